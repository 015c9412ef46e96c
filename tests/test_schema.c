/* meson-test: integration npm */
/* The JSON Schema shipped in doc/ (catalyst-audit.report/v1) holds for every
 * JSON and JSON Lines golden, and it is not a schema that accepts anything:
 * a golden with a field of the wrong kind, or without a required field, is
 * rejected. So do the link and whoami documents for theirs. The validator is Ajv (draft 2020-12), run by node from tests/npm
 * (tests/schema/validate.mjs). */
#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define TIMEOUT_MS 120000

#define REPORT_SCHEMA "doc/catalyst-audit.report.v1.schema.json"
#define STATS_SCHEMA "doc/catalyst-audit.stats.v1.schema.json"

static int validate_with(const char *schema, char **files, size_t n, struct testlib_output *o)
{
	char **argv = calloc(n + 4, sizeof *argv);
	ck_assert_ptr_nonnull(argv);
	argv[0] = (char *)testlib_node();
	argv[1] = (char *)testlib_src("tests/schema/validate.mjs");
	argv[2] = (char *)testlib_src(schema);
	for (size_t i = 0; i < n; i++)
		argv[3 + i] = files[i];
	int rc = testlib_run(argv, NULL, NULL, 0, TIMEOUT_MS, o);
	free(argv);
	ck_assert_int_eq(rc, 0);
	return o->status;
}

static int validate(char **files, size_t n, struct testlib_output *o)
{
	return validate_with(REPORT_SCHEMA, files, n, o);
}

START_TEST(every_golden_is_valid)
{
	const char *dir = testlib_src("tests/golden");
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	char *files[512];
	size_t n = 0, n_json = 0, n_jsonl = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		bool jsonl = len > 6 && strcmp(de->d_name + len - 6, ".jsonl") == 0;
		bool json = len > 5 && strcmp(de->d_name + len - 5, ".json") == 0;
		if (!json && !jsonl)
			continue;
		ck_assert_uint_lt(n, 512);
		ck_assert_int_ge(asprintf(&files[n++], "%s/%s", dir, de->d_name), 0);
		n_json += json;
		n_jsonl += jsonl;
	}
	closedir(d);
	ck_assert_uint_ge(n_json, 28);
	ck_assert_uint_eq(n_jsonl, n_json);
	struct testlib_output o;
	int status = validate(files, n, &o);
	ck_assert_msg(status == 0, "%s%s", o.out, o.err);
	char want[64];
	snprintf(want, sizeof want, "%zu files, 0 invalid\n", n);
	ck_assert_str_eq(o.out, want);
	testlib_output_free(&o);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
}
END_TEST

/* A golden changed in one place, written to a temporary file. */
static char *mutated(const char *golden, const char *from, const char *to, const char *ext)
{
	char *text = testlib_read_file(testlib_src(golden), NULL);
	ck_assert_ptr_nonnull(text);
	char *at = strstr(text, from);
	ck_assert_msg(at, "%s has no %s", golden, from);
	char *path;
	ck_assert_int_ge(asprintf(&path, "/tmp/schema-mutant-%d-XXXXXX", (int)getpid()), 0);
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	fclose(f);
	char *named;
	ck_assert_int_ge(asprintf(&named, "%s%s", path, ext), 0);
	ck_assert_int_eq(rename(path, named), 0);
	free(path);
	free(text);
	return named;
}

START_TEST(a_golden_that_breaks_it_is_rejected)
{
	static const struct {
		const char *golden, *from, *to, *ext;
	} cases[] = {
		/* a severity the kinds do not have */
		{"tests/golden/b-retry-fail-fail-succeed.catalyst.json", "\"severity\": \"suspect\"",
		 "\"severity\": \"critical\"", ".json"},
		/* a finding without its summary */
		{"tests/golden/b-retry-fail-fail-succeed.catalyst.json", "\"summary\": \"ran 3",
		 "\"summary_\": \"ran 3", ".json"},
		/* counts as a string */
		{"tests/golden/b-retry-fail-fail-succeed.catalyst.json", "\"activities\": 1,",
		 "\"activities\": \"1\",", ".json"},
		/* a jsonl summary line without its schema */
		{"tests/golden/b-retry-fail-fail-succeed.catalyst.jsonl",
		 "\"schema\":\"catalyst-audit.report/v1\",", "", ".jsonl"},
		/* a jsonl line that says it is something else */
		{"tests/golden/b-retry-fail-fail-succeed.catalyst.jsonl", "{\"type\":\"run\",",
		 "{\"type\":\"summary\",", ".jsonl"},
		/* a finding without its stable id, or with one of another form */
		{"tests/golden/b-retry-fail-fail-succeed.catalyst.json", "\"id\": \"f-", "\"id_\": \"f-", ".json"},
		{"tests/golden/b-retry-fail-fail-succeed.catalyst.json", "\"id\": \"f-", "\"id\": \"F-", ".json"},
		/* a report that does not say when it was made */
		{"tests/golden/b-retry-fail-fail-succeed.catalyst.json", "\"generated_at\"", "\"generated\"",
		 ".json"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *path = mutated(cases[i].golden, cases[i].from, cases[i].to, cases[i].ext);
		struct testlib_output o;
		int status = validate(&path, 1, &o);
		ck_assert_msg(status == 1, "case %zu accepted: %s%s", i, o.out, o.err);
		ck_assert_msg(strstr(o.out, "1 files, 1 invalid\n"), "case %zu: %s", i, o.out);
		testlib_output_free(&o);
		unlink(path);
		free(path);
	}
}
END_TEST

/* --show-payloads' reports (tests/golden-payloads) are valid, and one whose
 * payload says a state the schema does not have, or whose text is no
 * string, is not. */
START_TEST(payload_goldens_are_valid)
{
	char *files[] = {strdup(testlib_src("tests/golden-payloads/k2-retry-handler-no-timer-js.proto.json")),
			 strdup(testlib_src("tests/golden-payloads/b-retry-fail-fail-succeed.catalyst.json"))};
	struct testlib_output o;
	int status = validate(files, 2, &o);
	ck_assert_msg(status == 0, "%s%s", o.out, o.err);
	ck_assert_str_eq(o.out, "2 files, 0 invalid\n");
	testlib_output_free(&o);
	free(files[0]);
	free(files[1]);
	static const struct {
		const char *from, *to;
	} cases[] = {
		/* a state the shown payloads do not have */
		{"\"state\": \"present\",\n              \"bytes\": 2,\n              \"text\"",
		 "\"state\": \"shown\",\n              \"bytes\": 2,\n              \"text\""},
		/* a text that is no string */
		{"\"text\": \"21\"", "\"text\": 21"},
		/* an attempt without its number */
		{"\"attempt\": 1,\n            \"task_scheduled_id\": 0,\n            \"outcome\"",
		 "\"task_scheduled_id\": 0,\n            \"outcome\""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *path = mutated("tests/golden-payloads/k2-retry-handler-no-timer-js.proto.json",
				     cases[i].from, cases[i].to, ".json");
		status = validate(&path, 1, &o);
		ck_assert_msg(status == 1, "case %zu accepted: %s%s", i, o.out, o.err);
		testlib_output_free(&o);
		unlink(path);
		free(path);
	}
}
END_TEST

/* `cmd -o json` (argv after --server URL when s is given) into a file of dir. */
static char *json_of(const char *dir, const char *name, const struct testlib_server *s, const char *const *args)
{
	const char *argv[16];
	int n = 0;
	if (s) {
		argv[n++] = "--server";
		argv[n++] = s->url;
	}
	for (; *args && n < 14; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	static char *const env[] = {"CATALYST_TOKEN=", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli((char *const *)argv, env, NULL, TIMEOUT_MS, &o), 0);
	ck_assert_msg(o.status == 0, "%s: exited %d: %s", name, o.status, o.err);
	char *path;
	ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(o.out, f);
	fclose(f);
	testlib_output_free(&o);
	return path;
}

/* The link and whoami documents (catalyst-audit.link/v1, whoami/v1) hold
 * for their schemas, shipped in doc/ too, in each of their shapes; and
 * the schemas reject a document of the other kind. */
START_TEST(link_and_whoami_documents_are_valid)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "schema-docs");
	struct testlib_server sim;
	char *sim_argv[] = {(char *)testlib_node(),
			    (char *)testlib_src("tests/sim/catalyst-sim.mjs"),
			    "--stateless",
			    "--max-seconds",
			    "60",
			    NULL};
	ck_assert_int_eq(testlib_server_start(&sim, sim_argv, NULL, "LISTENING", 20000), 0);
	char *links[] = {
		json_of(dir, "link-checked.json", &sim,
			(const char *[]){"link", "checkout", "pay-20931", "-o", "json", NULL}),
		json_of(dir, "link-uid.json", NULL,
			(const char *[]){"--project-id", "prj-165", "--no-check", "link", "a", "b", "-o", "json",
					 NULL}),
		json_of(dir, "link-bare.json", NULL,
			(const char *[]){"--project", "42", "--no-check", "link", "a", "b", "-o", "json", NULL}),
	};
	char *whoami[] = {
		json_of(dir, "whoami.json", &sim, (const char *[]){"whoami", "-o", "json", NULL}),
	};
	struct testlib_output o;
	ck_assert_msg(validate_with("doc/catalyst-audit.link.v1.schema.json", links, 3, &o) == 0, "%s%s", o.out,
		      o.err);
	testlib_output_free(&o);
	ck_assert_msg(validate_with("doc/catalyst-audit.whoami.v1.schema.json", whoami, 1, &o) == 0, "%s%s", o.out,
		      o.err);
	testlib_output_free(&o);
	/* not a schema that takes anything */
	ck_assert_int_eq(validate_with("doc/catalyst-audit.link.v1.schema.json", whoami, 1, &o), 1);
	testlib_output_free(&o);
	ck_assert_int_eq(validate_with("doc/catalyst-audit.whoami.v1.schema.json", links, 1, &o), 1);
	testlib_output_free(&o);
	testlib_server_stop(&sim);
	for (size_t i = 0; i < 3; i++)
		free(links[i]);
	free(whoami[0]);
	testlib_remove_tree(dir);
}
END_TEST

/* `stats` over every golden report (JSON and JSON Lines of every fixture:
 * every finding kind, failure class, child workflows, hostile names) holds
 * for the stats schema, in both of its forms; the same output with one
 * field changed does not. */
START_TEST(stats_output_is_valid)
{
	static const char *const forms[] = {"json", "jsonl"};
	for (size_t f = 0; f < 2; f++) {
		char *args[] = {"stats",     (char *)testlib_src("tests/golden"),
				"-o",        (char *)forms[f],
				"--fail-on", "never",
				NULL};
		struct testlib_output run;
		ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, TIMEOUT_MS, &run), 0);
		ck_assert_msg(run.status == 0, "%s", run.err);
		ck_assert_ptr_nonnull(strstr(run.out, "\"ambiguous_failure_retried\""));
		ck_assert(strstr(run.out, "\"child_workflow\":true") ||
			  strstr(run.out, "\"child_workflow\": true"));
		for (int broken = 0; broken < 2; broken++) {
			char *path;
			ck_assert_int_ge(
				asprintf(&path, "/tmp/schema-stats-%d-%zu-%d.json", (int)getpid(), f, broken), 0);
			FILE *out = fopen(path, "w");
			ck_assert_ptr_nonnull(out);
			char *text = strdup(run.out);
			if (broken) {
				/* a share given as a percentage string */
				char *at = strstr(text, "\"reexecuted_share\":");
				ck_assert_ptr_nonnull(at);
				memcpy(at, "\"reexecuted_sharf\":", 19);
			}
			fputs(text, out);
			fclose(out);
			free(text);
			struct testlib_output o;
			int status = validate_with(STATS_SCHEMA, &path, 1, &o);
			ck_assert_msg(status == broken, "%s form, broken %d: %s%s", forms[f], broken, o.out,
				      o.err);
			testlib_output_free(&o);
			unlink(path);
			free(path);
		}
		testlib_output_free(&run);
	}
}
END_TEST

/* `review -o json` over every per-language fixture (every hazard kind,
 * a helper, an activity registered without a definition) holds for the
 * review schema; a hazard whose kind is not one of the table's does not.
 * `file --source` findings hold for the report schema. */
START_TEST(review_output_is_valid)
{
	char *args[] = {"review", (char *)testlib_src("tests/fixtures/review"), "-o", "json", NULL};
	struct testlib_output run;
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, TIMEOUT_MS, &run), 0);
	ck_assert_msg(run.status == 1, "%s", run.err);
	ck_assert_ptr_nonnull(strstr(run.out, "\"helper\": \"send_sms()\""));
	ck_assert_ptr_nonnull(strstr(run.out, "\"defined\": false"));
	for (int broken = 0; broken < 2; broken++) {
		char *path;
		ck_assert_int_ge(asprintf(&path, "/tmp/schema-review-%d-%d.json", (int)getpid(), broken), 0);
		FILE *out = fopen(path, "w");
		ck_assert_ptr_nonnull(out);
		char *text = strdup(run.out);
		if (broken) {
			char *at = strstr(text, "\"kind\": \"retry-loop\"");
			ck_assert_ptr_nonnull(at);
			memcpy(at, "\"kind\": \"retry-lorp\"", 20);
		}
		fputs(text, out);
		fclose(out);
		free(text);
		struct testlib_output o;
		int status = validate_with("doc/catalyst-audit.review.v1.schema.json", &path, 1, &o);
		ck_assert_msg(status == broken, "broken %d: %s%s", broken, o.out, o.err);
		testlib_output_free(&o);
		unlink(path);
		free(path);
	}
	testlib_output_free(&run);

	char *path;
	ck_assert_int_ge(asprintf(&path, "/tmp/schema-source-%d.json", (int)getpid()), 0);
	char *joined[] = {"file",
			  (char *)testlib_src("tests/fixtures/b-retry-fail-fail-succeed.catalyst.json"),
			  "--source",
			  (char *)testlib_src("tests/fixtures/review/python"),
			  "--output-file",
			  path,
			  NULL};
	ck_assert_int_eq(testlib_run_cli(joined, NULL, NULL, TIMEOUT_MS, &run), 0);
	ck_assert_msg(run.status == 1, "%s", run.err);
	testlib_output_free(&run);
	struct testlib_output o;
	ck_assert_int_eq(validate_with(REPORT_SCHEMA, &path, 1, &o), 0);
	testlib_output_free(&o);
	unlink(path);
	free(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("schema");
	struct testlib_group *tc = testlib_group("schema");
	testlib_group_timeout(tc, 300);
	add_test(tc, every_golden_is_valid);
	add_test(tc, a_golden_that_breaks_it_is_rejected);
	add_test(tc, payload_goldens_are_valid);
	add_test(tc, link_and_whoami_documents_are_valid);
	add_test(tc, stats_output_is_valid);
	add_test(tc, review_output_is_valid);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
