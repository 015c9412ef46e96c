/* The man page documents what the binary does: every long option --help
 * prints, every finding kind, every exit status, every JSON field; and it
 * renders without a warning. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "testlib.h"

static char *man_page(void)
{
	char *roff = testlib_read_file(testlib_src("man/catalyst-audit.1"), NULL);
	ck_assert_ptr_nonnull(roff);
	return roff;
}

/* In roff a hyphen in an option is written \- ; accept both spellings. */
static bool documents_option(const char *roff, const char *name)
{
	char plain[128], escaped[256];
	snprintf(plain, sizeof plain, "--%s", name);
	size_t k = 0;
	k += (size_t)snprintf(escaped + k, sizeof escaped - k, "\\-\\-");
	for (const char *p = name; *p && k + 3 < sizeof escaped; p++) {
		if (*p == '-') {
			escaped[k++] = '\\';
			escaped[k++] = '-';
		} else {
			escaped[k++] = *p;
		}
	}
	escaped[k] = '\0';
	/* Whole option names only: --project must not be satisfied by
	 * --project-id alone. */
	const char *const forms[] = {plain, escaped};
	for (int f = 0; f < 2; f++) {
		size_t len = strlen(forms[f]);
		for (const char *p = roff; (p = strstr(p, forms[f])); p += len) {
			char next = p[len];
			if (next == '\\' && p[len + 1] == '-')
				continue;
			if (!(isalnum((unsigned char)next) || next == '-' || next == '_'))
				return true;
		}
	}
	return false;
}

START_TEST(every_help_option_is_documented)
{
	struct testlib_output o;
	char *args[] = {"--help", NULL};
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, 10000, &o), 0);
	ck_assert_int_eq(o.status, 0);
	char *roff = man_page();
	size_t found = 0;
	for (const char *p = o.out; (p = strstr(p, "--"));) {
		p += 2;
		size_t n = 0;
		while (isalnum((unsigned char)p[n]) || p[n] == '-')
			n++;
		if (n == 0)
			continue;
		char name[64];
		ck_assert_uint_lt(n, sizeof name);
		memcpy(name, p, n);
		name[n] = '\0';
		found++;
		ck_assert_msg(documents_option(roff, name), "--%s is in --help but not in the man page", name);
	}
	ck_assert_uint_ge(found, 28); /* the option table, whole */
	free(roff);
	testlib_output_free(&o);
}
END_TEST

START_TEST(documents_option_is_strict)
{
	/* The checker itself: it must be able to say no. */
	ck_assert(documents_option(".B \\-\\-project\\-id", "project-id"));
	ck_assert(!documents_option(".B \\-\\-project\\-id", "project"));
	ck_assert(documents_option("--fail-on never", "fail-on"));
	ck_assert(!documents_option("--fail-onx", "fail-on"));
}
END_TEST

START_TEST(every_finding_kind_is_documented)
{
	char *roff = man_page();
	char *section = strstr(roff, ".SH FINDING KINDS");
	ck_assert_ptr_nonnull(section);
	for (int k = 0; k < FINDING_KIND_COUNT; k++) {
		const char *id = finding_kind_id((enum finding_kind)k);
		char want[128];
		snprintf(want, sizeof want, ".BR %s \" (%s)\"", id,
			 severity_name(finding_kind_severity((enum finding_kind)k)));
		ck_assert_msg(strstr(section, want), "finding kind %s with its severity not in FINDING KINDS", id);
	}
	free(roff);
}
END_TEST

START_TEST(every_exit_status_is_documented)
{
	char *roff = man_page();
	char *section = strstr(roff, ".SH EXIT STATUS");
	ck_assert_ptr_nonnull(section);
	char *end = strstr(section + 1, ".SH ");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	static const char *const statuses[] = {"0", "1", "2", "3", "4", "5", "6", "70"};
	for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) {
		char want[32];
		snprintf(want, sizeof want, ".TP\n.B %s\n", statuses[i]);
		ck_assert_msg(strstr(section, want), "exit status %s not documented", statuses[i]);
	}
	free(roff);
}
END_TEST

START_TEST(json_fields_and_environment_are_documented)
{
	char *roff = man_page();
	char *json = strstr(roff, ".SH JSON OUTPUT");
	ck_assert_ptr_nonnull(json);
	static const char *const fields[] = {
		"schema",
		"runs",
		"summary",
		"app_id",
		"run_id",
		"workflow",
		"status",
		"project",
		"console_link",
		"data_sharing",
		"activities",
		"findings",
		"withheld",
		"limits",
		"name",
		"task_execution_id",
		"attempts",
		"retry_timer_event_ids",
		"task_scheduled_id",
		"scheduled_at",
		"outcome",
		"error_message",
		"error_cause",
		"kind",
		"severity",
		"activity",
		"evidence_event_ids",
		"message",
		"event_id",
		"event_type",
		"field",
		"reexecuted",
	};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		char want[64];
		snprintf(want, sizeof want, ".B %s\n", fields[i]);
		ck_assert_msg(strstr(json, want), "JSON field %s not documented", fields[i]);
	}
	ck_assert_ptr_nonnull(strstr(json, "catalyst-audit.report/v1"));
	static const char *const env[] = {"CATALYST_MCP_URL", "CATALYST_TOKEN", "NO_COLOR",
					  "XDG_CONFIG_HOME",  "BROWSER",        "CI"};
	char *envsec = strstr(roff, ".SH ENVIRONMENT");
	ck_assert_ptr_nonnull(envsec);
	for (size_t i = 0; i < sizeof env / sizeof *env; i++) {
		char want[64];
		snprintf(want, sizeof want, ".TP\n.B %s\n", env[i]);
		ck_assert_msg(strstr(envsec, want), "environment variable %s not documented", env[i]);
	}
	ck_assert_ptr_nonnull(strstr(roff, "not shared at this organization's data-sharing level"));
	static const char *const sections[] = {".SH NAME",         ".SH SYNOPSIS",      ".SH DESCRIPTION",
					       ".SH COMMANDS",     ".SH OPTIONS",       ".SH OUTPUT FORMATS",
					       ".SH DATA SHARING", ".SH CONSOLE LINKS", ".SH SIGN-IN",
					       ".SH FILES",        ".SH EXAMPLES"};
	for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
		ck_assert_msg(strstr(roff, sections[i]), "no %s", sections[i]);
	free(roff);
}
END_TEST

static bool have(const char *tool)
{
	char *argv[] = {"sh", "-c", NULL, NULL};
	char cmd[128];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null", tool);
	argv[2] = cmd;
	struct testlib_output o;
	if (testlib_run(argv, NULL, NULL, 0, 10000, &o) < 0)
		return false;
	bool ok = o.status == 0;
	testlib_output_free(&o);
	return ok;
}

START_TEST(renders_without_warnings)
{
	const char *page = testlib_src("man/catalyst-audit.1");
	char *env[] = {"MANWIDTH=80", "MAN_KEEP_FORMATTING=", NULL};
	struct testlib_output o;
	if (have("man")) {
		char *argv[] = {"man", "--warnings", "-l", (char *)page, NULL};
		ck_assert_int_eq(testlib_run(argv, env, NULL, 0, 30000, &o), 0);
	} else {
		/* No man(1): groff itself, with every warning on. */
		ck_assert_msg(have("groff"), "neither man nor groff is installed");
		char *argv[] = {"groff", "-man", "-Tutf8", "-ww", "-z", (char *)page, NULL};
		ck_assert_int_eq(testlib_run(argv, env, NULL, 0, 30000, &o), 0);
	}
	ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
	ck_assert_msg(o.err_len == 0, "warnings:\n%s", o.err);
	testlib_output_free(&o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("man");
	TCase *tc = tcase_create("man");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_help_option_is_documented);
	tcase_add_test(tc, documents_option_is_strict);
	tcase_add_test(tc, every_finding_kind_is_documented);
	tcase_add_test(tc, every_exit_status_is_documented);
	tcase_add_test(tc, json_fields_and_environment_are_documented);
	tcase_add_test(tc, renders_without_warnings);
	suite_add_tcase(s, tc);
	return testlib_main(s);
}
