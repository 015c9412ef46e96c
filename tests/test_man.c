/* meson-test: integration */
/* The man page documents what the binary does: every long option --help
 * prints, every finding kind, every exit status, every JSON field; and it
 * renders without a warning. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli_options.h"
#include "render.h"
#include "testlib.h"
#include "version.h"

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

/* Every --option in the usage summary, and in each command's help (its
 * description names options too). */
START_TEST(every_help_option_is_documented)
{
	struct testlib_output o;
	char *args[] = {"--help", NULL, NULL};
	if (_i < (int)cli_n_commands) { /* each command's, then the summary */
		args[0] = "help";
		args[1] = (char *)cli_commands[_i].name;
	}
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
	ck_assert_uint_ge(found, _i == 0 ? 31 : 5); /* the summary has the option table, whole */
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

/* Every output format has its entry in OUTPUT FORMATS (a .TP, then its
 * name in bold), and --output's extensions are named under --output. */
START_TEST(every_output_format_is_documented)
{
	char *roff = man_page();
	char *section = strstr(roff, ".SH OUTPUT FORMATS");
	ck_assert_ptr_nonnull(section);
	char *end = strstr(section + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (const struct render_format_row *f = render_formats; f->name; f++) {
		char want[64];
		snprintf(want, sizeof want, ".TP\n.B %s\n", f->name);
		ck_assert_msg(strstr(section, want), "format %s has no entry in OUTPUT FORMATS", f->name);
	}
	free(roff);
	roff = man_page();
	char *output = strstr(roff, ".BI \\-\\-output \" FILE\"");
	ck_assert_ptr_nonnull(output);
	end = strstr(output, "\n.TP");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	for (const struct render_format_row *f = render_formats; f->name; f++)
		if (f->extension)
			ck_assert_msg(strstr(output, f->extension), "--output does not name %s", f->extension);
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
	static const char *const statuses[] = {"0", "1", "2", "3", "4", "5", "6", "7", "70"};
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
	static const char *const env[] = {"CATALYST_MCP_URL",
					  "CATALYST_TOKEN",
					  "NO_COLOR",
					  "XDG_CONFIG_HOME",
					  "BROWSER",
					  "CI",
					  "CATALYST_PROJECT",
					  "CATALYST_PROJECT_ID",
					  "CATALYST_AUDIT_CONFIG",
					  "CATALYST_AUDIT_THREADS"};
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
					       ".SH FILES",        ".SH EXAMPLES",      ".SH CONFIGURATION FILE"};
	for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
		ck_assert_msg(strstr(roff, sections[i]), "no %s", sections[i]);
	free(roff);
}
END_TEST

/* A word set in bold on a .B or .BR line of the section, whole (not the
 * prefix of a longer name). */
static bool bold_in(const char *section, const char *word)
{
	size_t n = strlen(word);
	for (const char *line = section; *line;) {
		const char *end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (strncmp(line, ".B ", 3) == 0 || strncmp(line, ".BR ", 4) == 0)
			for (const char *p = line; (p = strstr(p, word)) && p < end; p += n) {
				bool start = p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
				bool stop = !(isalnum((unsigned char)p[n]) || p[n] == '_');
				if (start && stop)
					return true;
			}
		line = *end ? end + 1 : end;
	}
	return false;
}

static void schema_names(const json_t *node, json_t *names)
{
	if (json_is_array(node)) {
		size_t i;
		const json_t *v;
		json_array_foreach(node, i, v)
			schema_names(v, names);
		return;
	}
	if (!json_is_object(node))
		return;
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)node, k, v) {
		if (strcmp(k, "properties") == 0 && json_is_object(v)) {
			const char *name;
			const json_t *sub;
			json_object_foreach((json_t *)v, name, sub)
				json_object_set_new(names, name, json_true());
		}
		schema_names(v, names);
	}
}

/* Every property a shipped JSON Schema names, at any depth, is set in
 * bold in its section (the report's in JSON OUTPUT, stats' in STATS
 * OUTPUT): the schema, not a list kept here, says which fields exist. */
static const struct {
	const char *schema, *section;
	size_t at_least;
} schemas[] = {
	{"doc/catalyst-audit.report.v1.schema.json", ".SH JSON OUTPUT", 60},
	{"doc/catalyst-audit.stats.v1.schema.json", ".SH STATS OUTPUT", 30},
};

START_TEST(every_schema_field_is_documented)
{
	char *roff = man_page();
	char *json = strstr(roff, schemas[_i].section);
	ck_assert_ptr_nonnull(json);
	char *end = strstr(json + 1, "\n.SH ");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	json_error_t je;
	json_t *schema = json_load_file(testlib_src(schemas[_i].schema), 0, &je);
	ck_assert_msg(schema != NULL, "%s", je.text);
	json_t *names = json_object();
	schema_names(schema, names);
	ck_assert_uint_gt(json_object_size(names), schemas[_i].at_least);
	const char *name;
	const json_t *v;
	json_object_foreach(names, name, v)
		ck_assert_msg(bold_in(json, name), "JSON field %s not documented in %s", name,
			      schemas[_i].section);
	json_decref(names);
	json_decref(schema);
	free(roff);
}
END_TEST

/* The keys CONFIGURATION FILE lists are exactly the options the binary
 * takes from a config file: each listed key is accepted, each other long
 * option of --help is refused as an unknown key. */
START_TEST(config_keys_are_the_documented_ones)
{
	char *roff = man_page();
	char *sec = strstr(roff, ".SH CONFIGURATION FILE");
	ck_assert_ptr_nonnull(sec);
	char *list = strstr(sec, "The keys are these long option names");
	ck_assert_ptr_nonnull(list);
	char *end = strstr(list, "Values are checked");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	/* ".BR server \", \" cacert ..." lines: the words after .BR, unescaped. */
	char documented[64][32];
	size_t n_doc = 0;
	for (char *p = strstr(list, "\n.BR "); p; p = strstr(p + 1, "\n.BR ")) {
		char *q = p + 5;
		while (*q && *q != '\n') {
			while (*q == ' ' || *q == '"' || *q == ',')
				q++;
			char word[32];
			size_t k = 0;
			for (; *q && *q != ' ' && *q != '\n' && *q != '"' && k + 1 < sizeof word; q++)
				if (!(*q == '\\' && q[1] == '-'))
					word[k++] = *q;
			word[k] = '\0';
			if (k > 1 && strcmp(word, "and") != 0 && strcmp(word, ".") != 0 && n_doc < 64)
				snprintf(documented[n_doc++], sizeof documented[0], "%s", word);
		}
	}
	ck_assert_uint_ge(n_doc, 10);

	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "mancfg");
	char path[512];
	snprintf(path, sizeof path, "%s/config", dir);
	struct testlib_output o;
	char *args[] = {"--help", NULL};
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, 10000, &o), 0);
	size_t accepted = 0;
	for (const char *p = strstr(o.out, "--"); p; p = strstr(p + 2, "--")) {
		char name[64];
		if (sscanf(p + 2, "%63[-a-z]", name) != 1 || !*name || p[-1] != ' ')
			continue;
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "%s = x\n", name);
		fclose(f);
		/* every entry is checked, whatever the command: one without side effects */
		char *cargs[] = {"--config", path, "file", "/nonexistent/history.json", NULL};
		struct testlib_output c;
		ck_assert_int_eq(testlib_run_cli(cargs, NULL, NULL, 10000, &c), 0);
		bool is_key = !strstr(c.err, "unknown key");
		bool listed = false;
		for (size_t i = 0; i < n_doc; i++)
			if (strcmp(documented[i], name) == 0)
				listed = true;
		ck_assert_msg(is_key == listed, "--%s: %s a config key, but the man page %s it", name,
			      is_key ? "is" : "is not", listed ? "lists" : "does not list");
		accepted += is_key;
		testlib_output_free(&c);
	}
	ck_assert_uint_ge(accepted, 10);
	testlib_output_free(&o);
	testlib_remove_tree(dir);
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

/* The installed man page carries the project's version (meson fills in
 * man/catalyst-audit.1's @VERSION@), the one --version prints. */
START_TEST(man_page_version_is_the_project_s)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/catalyst-audit.1", testlib_env("CA_BUILD_DIR"));
	char *roff = testlib_read_file(path, NULL);
	ck_assert_msg(roff, "no %s", path);
	char want[128];
	snprintf(want, sizeof want, "\"catalyst-audit %s\" \"User Commands\"", CATALYST_AUDIT_VERSION);
	ck_assert_msg(strstr(roff, want), "%s: no %s in its .TH line", path, want);
	ck_assert_ptr_null(strstr(roff, "@VERSION@"));
	free(roff);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("man");
	struct testlib_group *tc = testlib_group("man");
	testlib_group_timeout(tc, 60);
	add_loop_test(tc, every_help_option_is_documented, 0, (int)cli_n_commands + 1);
	add_test(tc, config_keys_are_the_documented_ones);
	add_test(tc, documents_option_is_strict);
	add_test(tc, every_finding_kind_is_documented);
	add_test(tc, man_page_version_is_the_project_s);
	add_test(tc, every_output_format_is_documented);
	add_test(tc, every_exit_status_is_documented);
	add_test(tc, json_fields_and_environment_are_documented);
	add_loop_test(tc, every_schema_field_is_documented, 0, sizeof schemas / sizeof *schemas);
	add_test(tc, renders_without_warnings);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
