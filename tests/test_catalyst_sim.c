/* meson-test: integration slow peers */
/* run, runs, link and whoami against the Catalyst simulator on loopback:
 * both schema profiles, both data-sharing levels, every refusal kind in
 * every envelope, every fault switch, JSON and SSE, stateless and stateful.
 * Every simulator records write-tool calls in one file; the last test
 * checks that it is empty and that every recorded call was a read tool on
 * the allow-list. */

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "buf.h"
#include "testlib.h"
#include "version.h"

#define CLI_TIMEOUT_MS 60000

static char writes_file[4096];
static char calls_file[4096];

/* One Node process, started by main(), serves every case's simulator
 * (catalyst-sim.mjs --hub): Node took 2 to 3 s to start on a CI machine,
 * for each of this binary's hundred cases. */
static struct testlib_server hub;

static size_t collect(char *data, size_t size, size_t n, void *user)
{
	struct buf *b = user;
	struct err e = {0};
	int rc = buf_append(b, data, size * n, &e);
	err_clear(&e);
	return rc == 0 ? size * n : 0;
}

/* A request to the hub: POST (body) or DELETE (body NULL); its status. */
static long hub_request(const char *url, const char *body, struct buf *answer)
{
	CURL *c = curl_easy_init();
	ck_assert_ptr_nonnull(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	else
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
	CURLcode rc = curl_easy_perform(c);
	ck_assert_msg(rc == CURLE_OK, "the simulator hub: %s", curl_easy_strerror(rc));
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	return status;
}

/* Makes a simulator with extra arguments (NULL terminated) in the hub. */
static void sim_start(struct testlib_server *s, const char *const *extra)
{
	json_t *args = json_pack("[ssss]", "--record-writes", writes_file, "--record-calls", calls_file);
	for (; extra && *extra; extra++)
		json_array_append_new(args, json_string(*extra));
	char *body = json_dumps(json_pack("{so}", "args", args), JSON_COMPACT);
	ck_assert_ptr_nonnull(body);
	struct buf answer;
	buf_init(&answer, 1 << 20);
	long status = hub_request(hub.url, body, &answer);
	free(body);
	json_t *doc = json_loadb(answer.data ? answer.data : "", answer.len, 0, NULL);
	const char *url = json_string_value(json_object_get(doc, "url"));
	ck_assert_msg(status == 201 && url, "the simulator hub answered %ld: %.*s", status, (int)answer.len,
		      answer.data ? answer.data : "");
	memset(s, 0, sizeof *s);
	snprintf(s->url, sizeof s->url, "%s", url);
	json_decref(doc);
	buf_finish(&answer);
	ck_assert(strncmp(s->url, "http://127.0.0.1:", 17) == 0);
}

/* Stops a simulator of the hub: DELETE /hub/instances/N for .../i/N/mcp. */
static void sim_stop(struct testlib_server *s)
{
	const char *n = strstr(s->url, "/i/");
	ck_assert_ptr_nonnull(n);
	char url[512];
	snprintf(url, sizeof url, "%s/%.*s", hub.url, (int)strcspn(n + 3, "/"), n + 3);
	struct buf answer;
	buf_init(&answer, 1 << 20);
	ck_assert_int_eq(hub_request(url, NULL, &answer), 204);
	buf_finish(&answer);
}

/* Runs catalyst-audit --server URL ARGS... */
static void cli(const struct testlib_server *s, struct testlib_output *out, const char *const *args)
{
	const char *argv[64];
	int n = 0;
	if (s) {
		argv[n++] = "--server";
		argv[n++] = s->url;
	}
	for (; args && *args && n < 62; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	static char *const env[] = {"CATALYST_TOKEN=", "BROWSER=", NULL};
	ck_assert_int_eq(testlib_run_cli((char *const *)argv, env, NULL, CLI_TIMEOUT_MS, out), 0);
	ck_assert_msg(!out->timed_out, "catalyst-audit hung; stderr: %s", out->err);
}

/* The same with $BROWSER set to `browser` (NULL: unset). */
static void cli_browser_env(const struct testlib_server *s, struct testlib_output *out, const char *browser,
			    const char *extra, const char *const *args)
{
	const char *argv[64];
	int n = 0;
	argv[n++] = "--server";
	argv[n++] = s->url;
	for (; args && *args && n < 62; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	char env_browser[4200];
	snprintf(env_browser, sizeof env_browser, "BROWSER=%s", browser ? browser : "");
	char *const env[] = {"CATALYST_TOKEN=", env_browser, (char *)extra, NULL};
	ck_assert_int_eq(testlib_run_cli((char *const *)argv, env, NULL, CLI_TIMEOUT_MS, out), 0);
	ck_assert_msg(!out->timed_out, "catalyst-audit hung; stderr: %s", out->err);
}

static void cli_browser(const struct testlib_server *s, struct testlib_output *out, const char *browser,
			const char *const *args)
{
	cli_browser_env(s, out, browser, NULL, args);
}

/* The report's notes as one string (caller frees). */
static char *notes_of(json_t *doc)
{
	json_t *notes = json_object_get(doc, "notes");
	char *text = notes ? json_dumps(notes, 0) : strdup("");
	ck_assert_ptr_nonnull(text);
	return text;
}

static json_t *report_of(const struct testlib_output *out)
{
	json_error_t je;
	json_t *doc = json_loads(out->out, 0, &je);
	ck_assert_msg(doc != NULL, "not JSON (%s): %.400s / stderr %.400s", je.text, out->out, out->err);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "catalyst-audit.report/v1");
	return doc;
}

static json_t *run_by_id(json_t *doc, const char *run_id)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(doc, "runs"), i, r)
		if (json_is_string(json_object_get(r, "run_id")) &&
		    strcmp(json_string_value(json_object_get(r, "run_id")), run_id) == 0)
			return r;
	return NULL;
}

static size_t n_runs(json_t *doc)
{
	return json_array_size(json_object_get(doc, "runs"));
}

/* A run that could not be audited carries "error": {code, message,
 * refusal_kind, instruction}. */
static json_t *run_error(json_t *run)
{
	json_t *err = json_object_get(run, "error");
	return json_is_object(err) ? err : NULL;
}

static size_t n_failed(json_t *doc)
{
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(json_object_get(doc, "runs"), i, r)
		if (run_error(r))
			n++;
	return n;
}

/* The simulator's project "default": 15 listed runs, 3 child runs only
 * reachable through their parents. */
#define DEFAULT_LISTED 15
#define DEFAULT_ALL 18

/* ---- profiles x levels x transports ----------------------------------- */

static const struct {
	const char *profile, *level, *json, *stateless;
	const char *opt, *val; /* one more switch: where the answer and the events go */
} modes[] = {
	{"a", "metadata", "--json", "--stateless", NULL, NULL},
	{"a", "full", NULL, NULL, NULL, NULL},
	{"b", "metadata", NULL, NULL, NULL, NULL},
	{"b", "full", "--json", "--stateless", NULL, NULL},
	{"a", "metadata", NULL, "--stateless", "--result-envelope", "structured"},
	{"b", "full", "--json", NULL, "--result-envelope", "both"},
	{"a", "full", "--json", NULL, "--result-envelope", "text"},
	{"b", "metadata", NULL, "--stateless", "--events", "both"},
};

START_TEST(runs_every_mode)
{
	struct testlib_server s;
	const char *extra[10];
	int n = 0;
	extra[n++] = "--profile";
	extra[n++] = modes[_i].profile;
	extra[n++] = "--data-sharing";
	extra[n++] = modes[_i].level;
	if (modes[_i].json)
		extra[n++] = modes[_i].json;
	if (modes[_i].stateless)
		extra[n++] = modes[_i].stateless;
	if (modes[_i].opt) {
		extra[n++] = modes[_i].opt;
		extra[n++] = modes[_i].val;
	}
	extra[n] = NULL;
	sim_start(&s, extra);
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--format", "json", "runs", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), DEFAULT_ALL);
	ck_assert_uint_eq(n_failed(doc), 0);
	/* the scenarios are found whatever the profile */
	json_t *pay = run_by_id(doc, "pay-20931");
	ck_assert_ptr_nonnull(pay);
	ck_assert_uint_ge(json_array_size(json_object_get(pay, "findings")), 1);
	json_t *ds = json_object_get(pay, "data_sharing");
	ck_assert_str_eq(json_string_value(json_object_get(ds, "level")), modes[_i].level);
	ck_assert_str_eq(json_string_value(json_object_get(pay, "console_link")),
			 "https://catalyst.diagrid.io/workflows/checkout/pay-20931?project=default");
	/* child runs reached through their parent */
	json_t *child = run_by_id(doc, "order-7740:0002");
	ck_assert_ptr_nonnull(child);
	ck_assert_str_eq(json_string_value(json_object_get(child, "parent_run_id")), "order-7740");
	ck_assert_str_eq(json_string_value(json_object_get(child, "console_link")),
			 "https://catalyst.diagrid.io/workflows/orders/order-7740%3A0002?project=default");
	json_t *bulk = run_by_id(doc, "bulk-import-1");
	ck_assert_ptr_nonnull(bulk);
	ck_assert_uint_ge(json_array_size(json_object_get(bulk, "activities")), 100);
	json_decref(doc);
	testlib_output_free(&out);

	cli(&s, &out, (const char *[]){"--format", "json", "run", "orders", "order-7740", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), 3);
	ck_assert_ptr_nonnull(run_by_id(doc, "order-7740:0000"));
	ck_assert_ptr_nonnull(run_by_id(doc, "order-7740:0002"));
	json_decref(doc);
	testlib_output_free(&out);

	cli(&s, &out, (const char *[]){"--format", "json", "--no-children", "run", "orders", "order-7740", NULL});
	ck_assert_int_eq(out.status, 1);
	doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), 1);
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

START_TEST(level_named_by_a_field)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", "b", "--data-sharing", "full", "--whoami-names-level", NULL});
	struct testlib_output out;
	cli(&s, &out,
	    (const char *[]){"--format", "json", "--data-sharing", "metadata", "--no-children", "run", "checkout",
			     "pay-20931", NULL});
	ck_assert_int_eq(out.status, 1);
	json_t *doc = report_of(&out);
	json_t *ds = json_object_get(run_by_id(doc, "pay-20931"), "data_sharing");
	ck_assert_str_eq(json_string_value(json_object_get(ds, "level")), "full");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(ds, "source")), "data_sharing_level"));
	json_decref(doc);
	testlib_output_free(&out);

	cli(&s, &out, (const char *[]){"whoami", NULL});
	ck_assert_int_eq(out.status, 0);
	ck_assert_ptr_nonnull(strstr(out.out, "organization: Acme Payments"));
	ck_assert_ptr_nonnull(strstr(out.out, "oncall@acme.example"));
	ck_assert_ptr_nonnull(strstr(out.out, "payments (uid prj-212)"));
	ck_assert_ptr_nonnull(
		strstr(out.out, "data sharing: full (field data_sharing_level in the catalyst_whoami answer)"));
	testlib_output_free(&out);
	sim_stop(&s);

	sim_start(&s, (const char *[]){"--meta-names-level", NULL});
	cli(&s, &out, (const char *[]){"--format", "json", "whoami", NULL});
	ck_assert_int_eq(out.status, 0);
	doc = json_loads(out.out, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	ds = json_object_get(doc, "data_sharing");
	ck_assert_str_eq(json_string_value(json_object_get(ds, "level")), "metadata");
	ck_assert_ptr_nonnull(
		strstr(json_string_value(json_object_get(ds, "source")), "diagrid.io/dataSharingLevel"));
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "projects")), 4);
	ck_assert_str_eq(
		json_string_value(json_object_get(json_array_get(json_object_get(doc, "projects"), 0), "uid")),
		"165");
	json_decref(doc);
	testlib_output_free(&out);

	/* --data-sharing is used when nothing names the level */
	sim_stop(&s);
	sim_start(&s, NULL);
	cli(&s, &out,
	    (const char *[]){"--format", "json", "--data-sharing", "metadata", "--no-children", "run", "checkout",
			     "pay-20931", NULL});
	doc = report_of(&out);
	ds = json_object_get(run_by_id(doc, "pay-20931"), "data_sharing");
	ck_assert_str_eq(json_string_value(json_object_get(ds, "level")), "metadata");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(ds, "source")), "--data-sharing"));
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* Issue 12: on the demo data (profile a, 300 generated runs, the newest
 * ten minutes old), `runs --since 24h` in text fits one screen (under 60
 * lines) and still names every suspect finding: its run, activity and kind,
 * as the JSON report of the same audit lists them. The jsonl report of it
 * is the JSON report's runs, a line each, then its summary. */
START_TEST(short_report_fits_one_screen)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--runs", "300", "--shift-now", "--stateless", NULL});
	struct testlib_output text, js, jl;
	cli(&s, &text, (const char *[]){"--format", "text", "--since", "24h", "runs", NULL});
	cli(&s, &js, (const char *[]){"--format", "json", "--since", "24h", "runs", NULL});
	cli(&s, &jl, (const char *[]){"--format", "jsonl", "--since", "24h", "runs", NULL});
	ck_assert_msg(text.status == 1, "exit %d: %s", text.status, text.err);
	size_t lines = 0;
	for (const char *p = text.out; (p = strchr(p, '\n')); p++)
		lines++;
	fprintf(stderr, "runs --since 24h, text: %zu lines\n", lines);
	ck_assert_msg(lines < 60, "%zu lines:\n%s", lines, text.out);

	json_t *doc = report_of(&js);
	json_t *runs = json_object_get(doc, "runs");
	ck_assert_uint_ge(json_array_size(runs), 10);
	size_t n_suspect = 0, i, k;
	json_t *run, *f;
	json_array_foreach(runs, i, run) {
		json_array_foreach(json_object_get(run, "findings"), k, f) {
			if (strcmp(json_string_value(json_object_get(f, "severity")), "suspect") != 0)
				continue;
			n_suspect++;
			/* "  RUN  ACTIVITY  KIND" on one line (aligned: any spaces),
			 * or (issue 19) the line of its fold: "ACTIVITY  KIND  N
			 * alike in M runs; also RUN, ..." (the other runs while
			 * they fit the width); the overview names every run. */
			const char *want[] = {json_string_value(json_object_get(run, "run_id")),
					      json_string_value(json_object_get(f, "activity")),
					      json_string_value(json_object_get(f, "kind"))};
			bool found = false;
			for (const char *line = text.out; line && *line && !found;) {
				const char *eol = strchr(line, '\n');
				size_t len = eol ? (size_t)(eol - line) : strlen(line);
				char *l = strndup(line, len);
				const char *at = l;
				found = true;
				for (size_t w = 0; w < 3 && found; w++) {
					at = strstr(at, want[w]);
					found = at != NULL;
					if (found)
						at += strlen(want[w]);
				}
				if (!found) {
					const char *act = strstr(l, want[1]);
					const char *kind = act ? strstr(act, want[2]) : NULL;
					found = kind && strstr(kind, " alike");
				}
				free(l);
				line = eol ? eol + 1 : NULL;
			}
			ck_assert_msg(found, "suspect %s %s %s not named in:\n%s", want[0], want[1], want[2],
				      text.out);
			ck_assert_ptr_nonnull(json_object_get(f, "summary"));
			ck_assert_ptr_nonnull(json_object_get(f, "remedy"));
		}
		ck_assert_ptr_nonnull(json_object_get(run, "counts"));
	}
	ck_assert_uint_ge(n_suspect, 5);

	/* jsonl: the same runs, a line each, then the summary line */
	size_t n_lines = 0;
	for (const char *p = jl.out; *p;) {
		const char *eol = strchr(p, '\n');
		ck_assert_ptr_nonnull(eol);
		json_t *line = json_loadb(p, (size_t)(eol - p), 0, NULL);
		ck_assert_ptr_nonnull(line);
		/* each line says what it is; otherwise a run line is the run object */
		const char *type = json_string_value(json_object_get(line, "type"));
		ck_assert_str_eq(type, n_lines < json_array_size(runs) ? "run" : "summary");
		if (n_lines < json_array_size(runs)) {
			json_object_del(line, "type");
			ck_assert(json_equal(line, json_array_get(runs, n_lines)));
		} else {
			ck_assert(json_equal(json_object_get(line, "summary"), json_object_get(doc, "summary")));
		}
		json_decref(line);
		n_lines++;
		p = eol + 1;
	}
	ck_assert_uint_eq(n_lines, json_array_size(runs) + 1);
	json_decref(doc);
	testlib_output_free(&text);
	testlib_output_free(&js);
	testlib_output_free(&jl);
	sim_stop(&s);
}
END_TEST

/* The views of a report of several runs, each against its reviewed golden
 * in tests/golden-sim/ (the simulator's profile a: fixed ids and times).
 * CA_UPDATE_GOLDENS=1 writes them instead (scripts/update-goldens does);
 * then read the diff. */
static const struct {
	const char *golden;
	const char *args[6];
} multi_run_views[] = {
	{"runs.txt", {"--format", "text", NULL}},
	{"runs.findings.txt", {"--format", "text", "--findings-only", NULL}},
	{"runs.md", {"--format", "markdown", NULL}},
	{"runs.all-runs.md", {"--format", "markdown", "--all-runs", NULL}},
	{"runs.jsonl", {"--format", "jsonl", NULL}},
};

START_TEST(multi_run_views_match_goldens)
{
	struct testlib_server s;
	sim_start(&s, NULL);
	const char *update = getenv("CA_UPDATE_GOLDENS");
	for (size_t i = 0; i < sizeof multi_run_views / sizeof *multi_run_views; i++) {
		const char *args[10];
		size_t n = 0;
		args[n++] = "--color";
		args[n++] = "never";
		for (const char *const *a = multi_run_views[i].args; *a; a++)
			args[n++] = *a;
		args[n++] = "runs";
		args[n] = NULL;
		struct testlib_output out;
		cli(&s, &out, args);
		ck_assert_msg(out.status == 1, "%s: exit %d: %s", multi_run_views[i].golden, out.status, out.err);
		char path[4096];
		snprintf(path, sizeof path, "%s", testlib_src("tests/golden-sim/"));
		strncat(path, multi_run_views[i].golden, sizeof path - strlen(path) - 1);
		if (update && strcmp(update, "1") == 0) {
			FILE *f = fopen(path, "w");
			ck_assert_ptr_nonnull(f);
			ck_assert_uint_eq(fwrite(out.out, 1, out.out_len, f), out.out_len);
			ck_assert_int_eq(fclose(f), 0);
		}
		size_t len;
		char *want = testlib_read_file(path, &len);
		ck_assert_msg(want, "no golden %s (CA_UPDATE_GOLDENS=1 writes it; then review it)", path);
		ck_assert_msg(len == out.out_len && memcmp(want, out.out, len) == 0,
			      "%s differs from its golden (CA_UPDATE_GOLDENS=1 rewrites it; then review the diff)",
			      path);
		free(want);
		testlib_output_free(&out);
	}
	sim_stop(&s);
}
END_TEST

/* A Markdown report checked as a reader's tools see it (tests/sim/md-check.mjs):
 * rendered by a GFM renderer (marked), every table at most six columns with
 * as many cells in each row as in its header, every link to a run's
 * section landing, every ```mermaid block parsed by Mermaid's own parser
 * as a gantt chart whose bars have the times written. Returns its summary
 * line's "charts". */
static json_t *md_check(const char *md, size_t len)
{
	char *argv[] = {(char *)testlib_node(), (char *)testlib_src("tests/sim/md-check.mjs"), NULL};
	static char *const env[] = {"TZ=UTC", NULL};
	struct testlib_output chk;
	ck_assert_int_eq(testlib_run(argv, env, md, len, 120000, &chk), 0);
	ck_assert_msg(!chk.timed_out && chk.status == 0, "md-check: exit %d\n%s\nof:\n%s", chk.status, chk.err,
		      md);
	json_t *summary = json_loads(chk.out, 0, NULL);
	ck_assert_msg(summary, "md-check said: %s", chk.out);
	testlib_output_free(&chk);
	return summary;
}

START_TEST(markdown_renders_as_written)
{
	struct testlib_server s;
	sim_start(&s, NULL);
	/* The demo's report (scripts/demo.sh: project payments), short and full. */
	const char *views[] = {NULL, "--verbose-report", "--all-runs"};
	for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
		struct testlib_output out;
		cli(&s, &out,
		    (const char *[]){"--project", "payments", "--format", "markdown", views[i] ? views[i] : "runs",
				     views[i] ? "runs" : NULL, NULL});
		ck_assert_msg(out.status == 1, "exit %d: %s", out.status, out.err);
		json_t *sum = md_check(out.out, out.out_len);
		/* three suspect runs, each drawn; tables: context, runs, attempts */
		ck_assert_int_eq(json_integer_value(json_object_get(sum, "charts")), 3);
		ck_assert_int_ge(json_integer_value(json_object_get(sum, "tables")), 5);
		ck_assert_int_ge(json_integer_value(json_object_get(sum, "links")), 6);
		/* every attempt's start and end, UTC with Z */
		ck_assert_ptr_nonnull(strstr(
			out.out,
			"| ChargeCard | 3 | 4 | 2026-09-14T10:00:19.366Z | 2026-09-14T10:00:19.994Z | completed |"));
		json_decref(sum);
		testlib_output_free(&out);
	}
	sim_stop(&s);
}
END_TEST

/* --show-payloads over the server (issue 19 item 7): at full the inputs
 * and outputs of the attempts in findings, from the tool's answer; at
 * metadata the sentence that says why there are none, who sets the level
 * and where the run is; never by default. */
START_TEST(show_payloads_over_the_server)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--data-sharing", "full", NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--show-payloads", "run", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == 1, "exit %d: %s", out.status, out.err);
	ck_assert_ptr_nonnull(strstr(
		out.out,
		"  ChargeCard attempt 1 (task_scheduled_id 0) input (44 bytes):\n    {\"workflow\":\"pay-20931\",\"step\":\"ChargeCard\"}\n"));
	ck_assert_ptr_nonnull(strstr(
		out.out,
		"  ChargeCard attempt 3 (task_scheduled_id 4) output (31 bytes):\n    {\"ok\":true,\"step\":\"ChargeCard\"}\n"));
	testlib_output_free(&out);
	cli(&s, &out, (const char *[]){"run", "checkout", "pay-20931", NULL});
	ck_assert_ptr_null(strstr(out.out, "Payloads"));
	ck_assert_ptr_null(strstr(out.out, "\"step\""));
	testlib_output_free(&out);
	sim_stop(&s);
	sim_start(&s, NULL);
	cli(&s, &out, (const char *[]){"--show-payloads", "run", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == 1, "exit %d: %s", out.status, out.err);
	const char *p = strstr(out.out,
			       "Payloads of the attempts in findings (--show-payloads)\n"
			       "  The payloads were not shared at this organization's data-sharing level\n"
			       "  (metadata");
	ck_assert_msg(p, "%s", out.out);
	ck_assert_ptr_nonnull(strstr(p, "an administrator can change it"));
	ck_assert_ptr_nonnull(strstr(p, "the run's console link shows the run."));
	ck_assert_ptr_null(strstr(out.out, "attempt 1 input"));
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* The header a post-mortem keeps (issue 21): when and by what the report
 * was made, the project, the window as absolute UTC times (an offset given
 * is turned into UTC) and the filters, and the data-sharing level; each row
 * once, and a table md-check reads. */
START_TEST(markdown_header_says_when_what_and_which_runs)
{
	struct testlib_server s;
	sim_start(&s, NULL);
	struct testlib_output out;
	cli(&s, &out,
	    (const char *[]){"--project", "payments", "-o", "markdown", "runs", "--since",
			     "2026-09-14T11:30:00+02:00", "--until", "2026-09-14T12:00:00Z", "--app", "checkout",
			     "--app", "orders", "--status", "completed", "--limit", "50", NULL});
	ck_assert_msg(out.status <= 1, "exit %d: %s", out.status, out.err);
	static const char *const rows[] = {
		"| About this report | |\n| --- | --- |\n| Generated (UTC) | 2025-12-04T00:00:00Z |\n",
		"\n| Tool | catalyst-audit " CATALYST_AUDIT_VERSION ", `runs` |\n",
		"\n| Project | payments (name) |\n",
		"\n| Window (UTC) | started after 2026-09-14T09:30:00Z, started before 2026-09-14T12:00:00Z |\n",
		"\n| Filters | app checkout, orders; status completed; limit 50 |\n",
		"\n| Data sharing | ",
	};
	const char *at = out.out;
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const char *p = strstr(at, rows[i]);
		ck_assert_msg(p, "no %s in\n%.1500s", rows[i], out.out);
		at = p + 1;
	}
	json_t *sum = md_check(out.out, out.out_len);
	ck_assert_int_ge(json_integer_value(json_object_get(sum, "tables")), 1);
	json_decref(sum);
	testlib_output_free(&out);
	/* `run` has no filters: no window or filters row, never an empty one. */
	cli(&s, &out, (const char *[]){"-o", "markdown", "run", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == 1, "exit %d: %s", out.status, out.err);
	ck_assert_ptr_nonnull(strstr(out.out, "\n| Tool | catalyst-audit " CATALYST_AUDIT_VERSION ", `run` |\n"));
	ck_assert_ptr_null(strstr(out.out, "| Window"));
	ck_assert_ptr_null(strstr(out.out, "| Filters"));
	ck_assert_ptr_null(strstr(out.out, "|  |"));
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* 426 runs (the size of a busy day) stay under GitHub's 65,536 characters
 * for an issue or comment, fold what does not fit into counts, and say
 * where the whole report is. */
START_TEST(markdown_fits_an_issue)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--runs", "426", "--runs-project", "bench", "--stateless", NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--project", "bench", "-o", "markdown", "runs", NULL});
	ck_assert_msg(out.status == 1, "exit %d: %s", out.status, out.err);
	json_t *sum = md_check(out.out, out.out_len);
	long long chars = json_integer_value(json_object_get(sum, "chars"));
	fprintf(stderr, "runs -o markdown, 426 runs: %zu bytes, %lld characters\n", out.out_len, chars);
	ck_assert_int_lt(chars, 65536);
	ck_assert_uint_lt(out.out_len, 65536);
	ck_assert_int_ge(json_integer_value(json_object_get(sum, "charts")), 1);
	ck_assert_ptr_nonnull(strstr(out.out, "**Folded to stay within GitHub's 65,536 characters:**"));
	ck_assert_ptr_nonnull(strstr(out.out, "`--format json`"));
	ck_assert_ptr_nonnull(strstr(out.out, "<details>"));
	/* identical findings across runs are one line with a count */
	ck_assert_ptr_nonnull(strstr(out.out, " runs: [gen-000426](#run-1)"));
	json_decref(sum);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* The run's findings, level and link as a comparable string per run. */
static char *findings_by_run(json_t *doc)
{
	json_t *by = json_object();
	size_t i;
	json_t *run;
	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		char key[512];
		snprintf(key, sizeof key, "%s/%s", json_string_value(json_object_get(run, "app_id")),
			 json_string_value(json_object_get(run, "run_id")));
		json_object_set_new(by, key,
				    json_pack("{s:O, s:O, s:O, s:O}", "findings", json_object_get(run, "findings"),
					      "level",
					      json_object_get(json_object_get(run, "data_sharing"), "level"),
					      "link", json_object_get(run, "console_link"), "workflow",
					      json_object_get(run, "workflow")));
	}
	char *t = json_dumps(by, JSON_SORT_KEYS);
	json_decref(by);
	return t;
}

/* run/runs --save-histories DIR, then file DIR offline: the same runs, the
 * same findings, level and link (the evidence travels with the report). */
START_TEST(saved_histories_audit_the_same)
{
	struct testlib_server s;
	sim_start(&s, NULL);
	char tmp[4096], dir[4200];
	testlib_make_tmpdir(tmp, sizeof tmp, "histories");
	snprintf(dir, sizeof dir, "%s/saved", tmp);
	struct testlib_output on, off;
	cli(&s, &on,
	    (const char *[]){"--project", "payments", "-o", "json", "runs", "--save-histories", dir, NULL});
	ck_assert_msg(on.status == 1, "exit %d: %s", on.status, on.err);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	cli(NULL, &off, (const char *[]){"-o", "json", "file", dir, NULL});
	ck_assert_msg(off.status == 1, "exit %d: %s", off.status, off.err);
	json_t *a = report_of(&on), *b = report_of(&off);
	ck_assert_uint_eq(n_runs(b), n_runs(a));
	ck_assert_uint_ge(n_runs(a), 6);
	char *fa = findings_by_run(a), *fb = findings_by_run(b);
	ck_assert_str_eq(fb, fa);
	ck_assert_ptr_nonnull(strstr(fa, "ambiguous_failure_retried"));
	free(fa);
	free(fb);
	json_decref(a);
	json_decref(b);
	testlib_output_free(&on);
	testlib_output_free(&off);

	/* One saved file, its ids named on the command line: the run's title
	 * and link, not "unknown run id". */
	char path[4400];
	snprintf(path, sizeof path, "%s/checkout+pay-20931.json", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	cli(NULL, &off,
	    (const char *[]){"-o", "markdown", "--project", "payments", "--app-id", "orders", "--run-id",
			     "renamed-1", "file",
			     testlib_src("tests/fixtures/b-retry-fail-fail-succeed.dapr-cli.json"), NULL});
	ck_assert_msg(off.status <= 1, "exit %d: %s", off.status, off.err);
	ck_assert_msg(strstr(off.out, "### Run renamed-1"), "%s", off.err);
	ck_assert_ptr_nonnull(
		strstr(off.out, "<https://catalyst.diagrid.io/workflows/orders/renamed-1?project=payments>"));
	testlib_output_free(&off);
	/* more than one history: whose ids would they be? */
	cli(NULL, &off, (const char *[]){"--run-id", "x", "file", dir, NULL});
	ck_assert_int_eq(off.status, 2);
	testlib_output_free(&off);
	testlib_remove_tree(tmp);
	sim_stop(&s);
}
END_TEST

START_TEST(filters_and_pages)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", "b", "--max-page", "3", NULL});
	struct testlib_output out;
	/* pages of 50 refused as unfilterable, re-asked at 25, 12, 6, then 3 */
	cli(&s, &out, (const char *[]){"--format", "json", "--no-children", "runs", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), DEFAULT_LISTED);
	char *text = json_dumps(json_object_get(doc, "notes"), 0);
	ck_assert_msg(text && strstr(text, "unfilterable"), "notes: %s", text);
	free(text);
	json_decref(doc);
	testlib_output_free(&out);

	cli(&s, &out,
	    (const char *[]){"--format", "json", "--no-children", "--status", "FAILED", "--since", "3650d", "runs",
			     NULL});
	doc = report_of(&out);
	ck_assert_uint_ge(n_runs(doc), 1);
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(doc, "runs"), i, r)
		ck_assert_str_eq(json_string_value(json_object_get(r, "status")), "failed");
	json_decref(doc);
	testlib_output_free(&out);

	cli(&s, &out,
	    (const char *[]){"--format", "json", "--no-children", "--limit", "4", "--app", "orders", "runs",
			     NULL});
	doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), 4);
	json_array_foreach(json_object_get(doc, "runs"), i, r)
		ck_assert_str_eq(json_string_value(json_object_get(r, "app_id")), "orders");
	json_decref(doc);
	testlib_output_free(&out);

	/* a window in the future: nothing, and it says so */
	cli(&s, &out, (const char *[]){"--format", "json", "--since", "2999-01-01T00:00:00Z", "runs", NULL});
	ck_assert_int_eq(out.status, 0);
	doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), 0);
	json_decref(doc);
	testlib_output_free(&out);

	/* usage errors, before any traffic */
	static const char *const bad[][3] = {{"--since", "yesterday", "--since"},
					     {"--until", "12", "--until"},
					     {"--status", "done", "--status"}};
	for (size_t k = 0; k < 3; k++) {
		cli(&s, &out, (const char *[]){bad[k][0], bad[k][1], "runs", NULL});
		ck_assert_int_eq(out.status, 2);
		ck_assert_ptr_nonnull(strstr(out.err, bad[k][2]));
		testlib_output_free(&out);
	}

	/* a project without a managed workflow store: said, not "no runs" */
	cli(&s, &out, (const char *[]){"--project", "sandbox", "runs", NULL});
	ck_assert_int_eq(out.status, 5);
	ck_assert_ptr_nonnull(strstr(out.err, "no managed workflow store"));
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* ---- link --------------------------------------------------------------- */

START_TEST(link_without_a_server)
{
	static const struct {
		const char *opt, *val, *app, *run, *want;
	} cases[] = {
		{"--project", "shop", "checkout", "pay-1",
		 "https://catalyst.diagrid.io/workflows/checkout/pay-1?project=shop\n"},
		{"--project-id", "165", "checkout", "pay-1",
		 "https://catalyst.diagrid.io/workflows/checkout/pay-1?projectId=165\n"},
		{"--project-id", "prj-165", "orders", "order-7740:0002",
		 "https://catalyst.diagrid.io/workflows/orders/order-7740%3A0002?projectId=prj-165\n"},
		{"--project", "prj-212", "a b", "r/1",
		 "https://catalyst.diagrid.io/workflows/a%20b/r%2F1?projectId=prj-212\n"},
		{"--console", "http://127.0.0.1:9/c/", "app", "run",
		 "http://127.0.0.1:9/c/workflows/app/run?project=default\n"},
	};
	struct testlib_server none = {.url = "http://127.0.0.1:1/mcp"};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct testlib_output out;
		cli(&none, &out,
		    (const char *[]){cases[i].opt, cases[i].val, "--no-check", "link", cases[i].app, cases[i].run,
				     NULL});
		ck_assert_msg(out.status == 0, "%s: %s", cases[i].val, out.err);
		ck_assert_str_eq(out.out, cases[i].want);
		ck_assert_str_eq(out.err, "");
		testlib_output_free(&out);
	}
	/* a bare number and no server: the parameter is left out, and why */
	struct testlib_output out;
	cli(&none, &out, (const char *[]){"--project", "123", "--no-check", "link", "app", "run", NULL});
	ck_assert_int_eq(out.status, 0);
	ck_assert_str_eq(out.out, "https://catalyst.diagrid.io/workflows/app/run\n");
	ck_assert_ptr_nonnull(strstr(out.err, "warning"));
	ck_assert_ptr_nonnull(strstr(out.err, "bare number"));
	testlib_output_free(&out);

	cli(&none, &out, (const char *[]){"--project-id", "shop", "link", "app", "run", NULL});
	ck_assert_int_eq(out.status, 2);
	ck_assert_str_eq(out.out, "");
	testlib_output_free(&out);

	cli(&none, &out, (const char *[]){"--console", "ftp://x", "link", "app", "run", NULL});
	ck_assert_int_eq(out.status, 2);
	testlib_output_free(&out);

	/* without --no-check the server is asked, and none answers: no link */
	cli(&none, &out, (const char *[]){"link", "app", "run", NULL});
	ck_assert_int_eq(out.status, 5);
	ck_assert_str_eq(out.out, "");
	ck_assert_ptr_nonnull(strstr(out.err, "--no-check"));
	testlib_output_free(&out);

	/* no trustworthy link: the ids in plain text, and a warning */
	cli(&none, &out, (const char *[]){"--no-check", "link", "", "run-1", NULL});
	ck_assert_int_eq(out.status, 0);
	ck_assert_ptr_null(strstr(out.out, "https://"));
	ck_assert_ptr_nonnull(strstr(out.out, "run-1"));
	ck_assert_ptr_nonnull(strstr(out.err, "app id is unknown"));
	testlib_output_free(&out);
}
END_TEST

START_TEST(link_resolved_by_the_server)
{
	static const struct {
		const char *profile, *val, *run, *want;
	} cases[] = {
		{"a", "42", "order-9001", "https://catalyst.diagrid.io/workflows/orders/order-9001?project=42\n"},
		{"a", "977", "order-9001",
		 "https://catalyst.diagrid.io/workflows/orders/order-9001?projectId=977\n"},
		{"b", "42", "order-9001", "https://catalyst.diagrid.io/workflows/orders/order-9001?project=42\n"},
		{"b", "212", "order-7731",
		 "https://catalyst.diagrid.io/workflows/orders/order-7731?projectId=212\n"},
		/* a project the server does not know: no link (status 7) */
		{"b", "999", "order-7731", ""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct testlib_server s;
		sim_start(&s, (const char *[]){"--profile", cases[i].profile, NULL});
		struct testlib_output out;
		cli(&s, &out, (const char *[]){"--project", cases[i].val, "link", "orders", cases[i].run, NULL});
		ck_assert_msg(out.status == (*cases[i].want ? 0 : 7), "%s: %d %s", cases[i].val, out.status,
			      out.err);
		ck_assert_str_eq(out.out, cases[i].want);
		if (strcmp(cases[i].val, "999") == 0) {
			ck_assert_ptr_nonnull(strstr(out.err, "project 999 does not exist"));
		} else {
			ck_assert_str_eq(out.err, "");
		}
		testlib_output_free(&out);

		/* the audit's report carries the same link */
		if (strcmp(cases[i].val, "42") == 0) {
			cli(&s, &out, (const char *[]){"--format", "json", "--project", "42", "runs", NULL});
			json_t *doc = report_of(&out);
			ck_assert_uint_ge(n_runs(doc), 1);
			json_t *r = json_array_get(json_object_get(doc, "runs"), 0);
			ck_assert_ptr_nonnull(
				strstr(json_string_value(json_object_get(r, "console_link")), "?project=42"));
			ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "project"), "name")),
					 "42");
			json_decref(doc);
			testlib_output_free(&out);
		}
		sim_stop(&s);
	}
}
END_TEST

/* Issue 19: --project-id 42 on a server that has a project *named* "42"
 * (uid 977). The server reads a name first, so it answered for uid 977,
 * and a link with ?projectId=42 would open another project while saying
 * "checked". The link, run's and runs' reports name the project the server
 * meant, by its uid, and say why. */
START_TEST(uid_read_as_a_name_links_the_project_meant)
{
	static const char want_link[] =
		"https://catalyst.diagrid.io/workflows/orders/order-9001?projectId=prj-977";
	static const char *const profiles[] = {"a", "b"};
	for (size_t i = 0; i < 2; i++) {
		struct testlib_server s;
		sim_start(&s, (const char *[]){"--profile", profiles[i], NULL});
		struct testlib_output out;
		cli(&s, &out, (const char *[]){"--project-id", "42", "link", "orders", "order-9001", NULL});
		ck_assert_msg(out.status == 0, "%s: %d %s", profiles[i], out.status, out.err);
		ck_assert_msg(strncmp(out.out, want_link, strlen(want_link)) == 0, "%s", out.out);
		ck_assert_ptr_null(strstr(out.out, "projectId=42"));
		ck_assert_msg(strstr(out.err, "reads 42 as the name of project 42 (uid 977)"), "%s", out.err);
		testlib_output_free(&out);

		cli(&s, &out,
		    (const char *[]){"--project-id", "42", "--format", "json", "link", "orders", "order-9001",
				     NULL});
		ck_assert_int_eq(out.status, 0);
		json_t *doc = json_loads(out.out, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		/* JSON `project` holds the project the server meant, as a uid. */
		ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "project"), "uid")),
				 "prj-977");
		ck_assert_ptr_null(json_object_get(json_object_get(doc, "project"), "name"));
		ck_assert(json_is_true(json_object_get(doc, "checked")));
		ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(doc, "link_note")), "uid 977"));
		json_decref(doc);
		testlib_output_free(&out);

		static const char *const cmds[][3] = {{"run", "orders", "order-9001"}, {"runs", NULL, NULL}};
		for (size_t k = 0; k < 2; k++) {
			cli(&s, &out,
			    (const char *[]){"--project-id", "42", "--format", "json", cmds[k][0], cmds[k][1],
					     cmds[k][2], NULL});
			doc = report_of(&out);
			ck_assert_uint_ge(n_runs(doc), 1);
			size_t j;
			json_t *r;
			json_array_foreach(json_object_get(doc, "runs"), j, r) {
				const char *link = json_string_value(json_object_get(r, "console_link"));
				ck_assert_msg(link && strstr(link, "?projectId=prj-977"), "%s",
					      link ? link : "no link");
				ck_assert_str_eq(
					json_string_value(json_object_get(json_object_get(r, "project"), "uid")),
					"prj-977");
			}
			if (k == 0)
				ck_assert_str_eq(json_string_value(json_object_get(run_by_id(doc, "order-9001"),
										   "console_link")),
						 want_link);
			char *notes = notes_of(doc);
			ck_assert_msg(strstr(notes, "not as uid 42"), "%s", notes);
			free(notes);
			json_decref(doc);
			testlib_output_free(&out);
		}
		sim_stop(&s);
	}
}
END_TEST

/* Issue 28: asked for uid 999, a server that reads a value it does not know
 * as project default answers about uid 165. No link names 999 as checked:
 * `link` exits 7 saying which project the server answered about, `run`
 * prints no console link with that reason, `--no-check` still prints it,
 * marked unchecked. The same asked by name and by the right uid links. */
START_TEST(unconfirmed_project_gets_no_link)
{
	static const char *const profiles[] = {"a", "b"};
	for (size_t i = 0; i < 2; i++) {
		struct testlib_server s;
		sim_start(&s, (const char *[]){"--profile", profiles[i], "--lenient-project", NULL});
		struct testlib_output out;
		cli(&s, &out, (const char *[]){"--project-id", "999", "link", "orders", "order-7804", NULL});
		ck_assert_msg(out.status == 7, "%s: %d %s", profiles[i], out.status, out.err);
		ck_assert_msg(!strstr(out.out, "projectId=999"), "%s", out.out);
		ck_assert_msg(strstr(out.err,
				     "asked about project uid 999, the server answered about project default"),
			      "%s", out.err);
		ck_assert_msg(strstr(out.err, "165"), "%s", out.err);
		testlib_output_free(&out);

		cli(&s, &out,
		    (const char *[]){"--project-id", "999", "--format", "json", "run", "orders", "order-7804",
				     NULL});
		json_t *doc = report_of(&out);
		json_t *r = run_by_id(doc, "order-7804");
		ck_assert_ptr_nonnull(r);
		ck_assert(json_is_null(json_object_get(r, "console_link")));
		const char *note = json_string_value(json_object_get(r, "link_note"));
		ck_assert_msg(note && strstr(note, "answered about project default"), "%s",
			      note ? note : "(none)");
		json_decref(doc);
		testlib_output_free(&out);

		cli(&s, &out, (const char *[]){"--project-id", "999", "run", "orders", "order-7804", NULL});
		ck_assert_msg(strstr(out.out, "no console link: asked about project uid 999"), "%s", out.out);
		ck_assert_ptr_null(strstr(out.out, "projectId=999"));
		testlib_output_free(&out);

		cli(&s, &out,
		    (const char *[]){"--no-check", "--project-id", "999", "--format", "json", "link", "orders",
				     "order-7804", NULL});
		ck_assert_int_eq(out.status, 0);
		doc = json_loads(out.out, 0, NULL);
		ck_assert_ptr_nonnull(doc);
		ck_assert_str_eq(json_string_value(json_object_get(doc, "console_link")),
				 "https://catalyst.diagrid.io/workflows/orders/order-7804?projectId=999");
		ck_assert(json_is_false(json_object_get(doc, "checked")));
		json_decref(doc);
		testlib_output_free(&out);

		/* Confirmed: the uid the server answers with, and the name. */
		static const char *const asked[][2] = {{"--project-id", "165"}, {"--project", "default"}};
		static const char *const want[] = {
			"https://catalyst.diagrid.io/workflows/orders/order-7804?projectId=165",
			"https://catalyst.diagrid.io/workflows/orders/order-7804?project=default"};
		for (size_t k = 0; k < 2; k++) {
			cli(&s, &out,
			    (const char *[]){asked[k][0], asked[k][1], "link", "orders", "order-7804", NULL});
			ck_assert_msg(out.status == 0, "%s %s: %d %s", asked[k][0], asked[k][1], out.status,
				      out.err);
			ck_assert_msg(strncmp(out.out, want[k], strlen(want[k])) == 0, "%s", out.out);
			testlib_output_free(&out);
		}
		sim_stop(&s);
	}
}
END_TEST

/* ---- the first screen (issue 19) ---------------------------------------- */

/* Runs catalyst-audit --server URL ARGS... on a pseudo-terminal of rows x
 * cols (stdout and stderr both on it, as a person sees them) with extra
 * environment; returns what the terminal got, \r and colour sequences
 * removed, and the exit status in *status. Bounded by CLI_TIMEOUT_MS. */
static char *pty_cli(const struct testlib_server *s, unsigned short rows, unsigned short cols,
		     const char *const *env, const char *const *args, int *status)
{
	const char *argv[64];
	int n = 0;
	argv[n++] = testlib_env("CA_BINARY");
	argv[n++] = "--server";
	argv[n++] = s->url;
	for (; args && *args && n < 62; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	struct winsize ws = {.ws_row = rows, .ws_col = cols};
	int master = -1;
	pid_t pid = forkpty(&master, NULL, NULL, &ws);
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (; env && *env; env++)
			putenv((char *)*env);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	size_t len = 0, cap = 1 << 16;
	char *raw = malloc(cap);
	ck_assert_ptr_nonnull(raw);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms > CLI_TIMEOUT_MS) {
			kill(pid, SIGKILL);
			ck_abort_msg("catalyst-audit hung on the terminal");
		}
		struct pollfd p = {.fd = master, .events = POLLIN};
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (len + 4096 > cap) {
			cap *= 2;
			raw = realloc(raw, cap);
			ck_assert_ptr_nonnull(raw);
		}
		ssize_t r = read(master, raw + len, 4096);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) /* EIO: the child and its terminal are gone */
			break;
		len += (size_t)r;
	}
	close(master);
	int st = 0;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	/* What a reader sees: no \r of the terminal's newlines, no SGR. */
	char *text = malloc(len + 1);
	ck_assert_ptr_nonnull(text);
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		if (raw[i] == '\r')
			continue;
		if (raw[i] == '\x1b' && i + 1 < len && raw[i + 1] == '[') {
			i += 2;
			while (i < len && !(raw[i] >= '@' && raw[i] <= '~'))
				i++;
			continue;
		}
		text[o++] = raw[i];
	}
	text[o] = '\0';
	free(raw);
	return text;
}

/* Issue 19, as the on-call engineer meets it: `run pay-20931` on an 80x24
 * terminal (PAGER=cat: no pager between), and the first screen holds the
 * verdict, the suspect with its times and its real error, and the link. */
START_TEST(first_screen_answers_the_page)
{
	struct testlib_server s;
	sim_start(&s, NULL);
	static const char *const env[] = {"PAGER=cat", "TZ=UTC", "CATALYST_TOKEN=", "BROWSER=", "NO_COLOR=", NULL};
	int status = -1;
	char *text = pty_cli(&s, 24, 80, env, (const char *[]){"run", "pay-20931", NULL}, &status);
	ck_assert_msg(status == 1, "exit %d:\n%s", status, text);
	/* The first 24 rows of the screen: a line wider than 80 columns
	 * (the notice on stderr) takes more than one. */
	char *end = text;
	for (int rows = 0; end && *end;) {
		char *nl = strchr(end, '\n');
		size_t cols = nl ? (size_t)(nl - end) : strlen(end);
		rows += cols ? (int)((cols + 79) / 80) : 1;
		if (rows > 24) {
			*end = '\0';
			break;
		}
		end = nl ? nl + 1 : NULL;
	}
	static const char *const want[] = {
		"Verdict: SUSPECT",
		"\n  ChargeCard  ambiguous_failure_retried  attempt 2 ran 5.0s later",
		"\n    attempt 1 2026-09-14 10:00:00-10:00:02Z  ConnectionError: ('Connection ab",
		"\n    https://catalyst.diagrid.io/workflows/checkout/pay-20931?project=default\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		ck_assert_msg(strstr(text, want[i]), "not in the first 24 lines: '%s'\n%s", want[i], text);
	/* The suspect's three lines come right after the verdict. */
	ck_assert(strstr(text, "Verdict: SUSPECT") < strstr(text, want[1]));
	free(text);
	sim_stop(&s);
}
END_TEST

/* ---- a run by its id alone, runs that do not exist (issue 12) ------------ */

/* Profile a's run list filters by instance id (one call, child runs
 * found too); profile b's does not (every page, compared here). */
static const char *const lookup_profiles[] = {"a", "b"};

START_TEST(run_without_app_id)
{
	bool by_server = _i == 0;
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", lookup_profiles[_i], NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--project", "payments", "--format", "json", "run", "pay-20931", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	ck_assert_ptr_nonnull(strstr(out.err, "run pay-20931 is in app checkout"));
	json_t *doc = report_of(&out);
	json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(run, "app_id")), "checkout");
	ck_assert_str_eq(json_string_value(json_object_get(run, "console_link")),
			 "https://catalyst.diagrid.io/workflows/checkout/pay-20931?project=payments");
	char *notes = notes_of(doc);
	ck_assert_msg(strstr(notes, "run pay-20931 is in app checkout (found through catalyst_list_workflow_runs"),
		      "%s", notes);
	free(notes);
	json_decref(doc);
	testlib_output_free(&out);

	/* a child run: found by the server's filter, not listed otherwise */
	cli(&s, &out, (const char *[]){"--format", "json", "--no-children", "run", "order-7740:0002", NULL});
	if (by_server) {
		ck_assert_msg(out.status == 0, "status %d: %s", out.status, out.err);
		doc = report_of(&out);
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
								   "app_id")),
				 "orders");
		json_decref(doc);
	} else {
		ck_assert_msg(out.status == 7, "status %d: %s", out.status, out.err);
		ck_assert_ptr_nonnull(strstr(out.err, "no run order-7740:0002 in project default"));
		ck_assert_ptr_nonnull(strstr(out.err, "other projects were not searched"));
	}
	testlib_output_free(&out);

	/* one id in two apps: the user says which */
	cli(&s, &out, (const char *[]){"--project", "42", "run", "order-9001", NULL});
	ck_assert_msg(out.status == 2, "status %d: %s", out.status, out.err);
	ck_assert_str_eq(out.out, "");
	ck_assert_ptr_nonnull(
		strstr(out.err, "run order-9001 exists in 2 apps of project 42 (orders and returns)"));
	ck_assert_ptr_nonnull(strstr(out.err, "catalyst-audit --project 42 run orders order-9001"));
	testlib_output_free(&out);

	/* nowhere in this project: 7, and where it is */
	cli(&s, &out, (const char *[]){"--project", "42", "run", "pay-20931", NULL});
	ck_assert_msg(out.status == 7, "status %d: %s", out.status, out.err);
	ck_assert_str_eq(out.out, "");
	ck_assert_ptr_nonnull(strstr(out.err, "no run pay-20931 in project 42"));
	if (by_server)
		ck_assert_msg(strstr(out.err,
				     "a run of that id exists in project default (app checkout): add --project "
				     "default; in project payments (app checkout): add --project payments"),
			      "%s", out.err);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* ---- a rerun and its source (issue 16) ---------------------------------- */

/* Project 42: `hello` reran `abc` (app orders) from event 1; `hello-2`
 * names a source that is not there. The source is fetched to decide the
 * finding and its link shown; a missing source never fails the audit. */
START_TEST(rerun_source_fetched)
{
	struct testlib_server s;
	sim_start(&s, NULL);
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--project", "42", "--format", "json", "run", "orders", "hello", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	json_t *doc = report_of(&out);
	json_t *run = run_by_id(doc, "hello");
	ck_assert_ptr_nonnull(run);
	json_t *src = json_object_get(run, "rerun_of");
	ck_assert_str_eq(json_string_value(json_object_get(src, "run_id")), "abc");
	ck_assert_str_eq(json_string_value(json_object_get(src, "console_link")),
			 "https://catalyst.diagrid.io/workflows/orders/abc?project=42");
	ck_assert_str_eq(json_string_value(json_object_get(run, "console_link")),
			 "https://catalyst.diagrid.io/workflows/orders/hello?project=42");
	json_t *f = json_array_get(json_object_get(run, "findings"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(f, "kind")), "rerun_reexecuted");
	ck_assert_str_eq(json_string_value(json_object_get(f, "severity")), "suspect");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(f, "message")), "where it completed"));
	json_decref(doc);
	testlib_output_free(&out);

	/* Both links in the text report too. */
	cli(&s, &out, (const char *[]){"--project", "42", "run", "orders", "hello", NULL});
	ck_assert_msg(strstr(out.out, "rerun of abc: https://catalyst.diagrid.io/workflows/orders/abc?project=42"),
		      "%s", out.out);
	ck_assert_ptr_nonnull(strstr(out.out, "https://catalyst.diagrid.io/workflows/orders/hello?project=42"));
	testlib_output_free(&out);

	cli(&s, &out, (const char *[]){"--project", "42", "--format", "json", "run", "orders", "hello-2", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	doc = report_of(&out);
	run = run_by_id(doc, "hello-2");
	ck_assert_ptr_null(run_error(run));
	src = json_object_get(run, "rerun_of");
	ck_assert_str_eq(json_string_value(json_object_get(src, "run_id")), "purged-1");
	ck_assert(json_is_null(json_object_get(src, "console_link")));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(src, "note")), "source run not fetched"));
	f = json_array_get(json_object_get(run, "findings"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(f, "severity")), "suspect");
	char *limits = json_dumps(json_object_get(run, "limits"), 0);
	ck_assert_msg(strstr(limits, "Source run not fetched (app orders of this project: "), "%s", limits);
	free(limits);
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* How a missing run is said is undocumented: every envelope is read. */
static const char *const not_found_envelopes[] = {"iserror", "structured", "text", "rpc"};

START_TEST(run_missing_says_where)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--not-found", not_found_envelopes[_i], NULL});
	struct testlib_output out;
	/* in another app of the project */
	cli(&s, &out, (const char *[]){"run", "orders", "pay-20931", NULL});
	ck_assert_msg(out.status == 7, "%s: status %d: %s", not_found_envelopes[_i], out.status, out.err);
	ck_assert_str_eq(out.out, "");
	ck_assert_msg(strstr(out.err, "no run pay-20931 in app orders of project default"), "%s", out.err);
	ck_assert_msg(strstr(out.err,
			     "a run of that id exists in app checkout: catalyst-audit run checkout pay-20931"),
		      "%s", out.err);
	testlib_output_free(&out);

	/* nowhere at all */
	cli(&s, &out, (const char *[]){"--project", "payments", "run", "orders", "nosuch-1", NULL});
	ck_assert_msg(out.status == 7, "status %d: %s", out.status, out.err);
	ck_assert_ptr_nonnull(strstr(out.err, "no run nosuch-1 in app orders of project payments"));
	ck_assert_ptr_nonnull(strstr(out.err, "none of the 3 other project(s) you can see has a run of that id"));
	testlib_output_free(&out);

	/* a project that does not exist, for run, runs and link */
	const char *const *cmds[] = {
		(const char *[]){"--project", "nosuch", "run", "orders", "order-7731", NULL},
		(const char *[]){"--project", "nosuch", "runs", NULL},
		(const char *[]){"--project", "nosuch", "run", "order-7731", NULL},
		(const char *[]){"--project", "nosuch", "link", "orders", "order-7731", NULL},
	};
	for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++) {
		cli(&s, &out, cmds[k]);
		ck_assert_msg(out.status == 7, "%s %zu: status %d: %s", not_found_envelopes[_i], k, out.status,
			      out.err);
		ck_assert_str_eq(out.out, "");
		ck_assert_msg(strstr(out.err, "project nosuch does not exist"), "%s", out.err);
		ck_assert_msg(strstr(out.err, "the projects you can see: default, payments, 42 and sandbox"), "%s",
			      out.err);
		testlib_output_free(&out);
	}
	sim_stop(&s);
}
END_TEST

START_TEST(workflow_in_any_case)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", lookup_profiles[_i], NULL});
	struct testlib_output out;
	/* the simulator's own filter is case-sensitive */
	const char *const spellings[] = {"paymentworkflow", "PAYMENTWORKFLOW", "PaymentWorkflow"};
	for (size_t k = 0; k < 3; k++) {
		cli(&s, &out,
		    (const char *[]){"--format", "json", "--no-children", "--workflow", spellings[k], "runs",
				     NULL});
		ck_assert_msg(out.status == 1, "%s: status %d: %s", spellings[k], out.status, out.err);
		json_t *doc = report_of(&out);
		ck_assert_uint_eq(n_runs(doc), 1);
		ck_assert_ptr_nonnull(run_by_id(doc, "pay-20931"));
		char *notes = notes_of(doc);
		if (k < 2)
			ck_assert_msg(strstr(notes,
					     "matched the workflow PaymentWorkflow (names match in any case)"),
				      "%s", notes);
		free(notes);
		json_decref(doc);
		testlib_output_free(&out);
	}
	/* child workflows of another name, found in any case too */
	cli(&s, &out, (const char *[]){"--format", "json", "--workflow", "shiporder", "runs", NULL});
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), 0); /* ShipOrder runs are children: not listed */
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* A filter that names nothing is an error, not a clean audit (issue 20):
 * an app the project does not have, in any case but its own, and a
 * workflow no spelling of which exists exit 7 with the nearest name; an
 * app or workflow that exists but has no runs in the window exits 0. */
START_TEST(filter_naming_nothing_exits_7)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", lookup_profiles[_i], NULL});
	struct testlib_output out;
	static const struct {
		const char *opt, *value, *want;
	} cases[] = {
		{"--app", "Checkout",
		 "--app Checkout: project default has no app of that name (app ids tell case); "
		 "did you mean checkout?"},
		{"--app", "nosuchapp",
		 "--app nosuchapp: project default has no app of that name (app ids tell case); "
		 "it has "},
		{"--workflow", "NoSuchWorkflow",
		 "--workflow NoSuchWorkflow: project default has no workflow of that "
		 "name (names match in any case); it has "},
		{"--workflow", "PaymentWorkflw", "did you mean PaymentWorkflow?"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		cli(&s, &out, (const char *[]){"--format", "json", cases[k].opt, cases[k].value, "runs", NULL});
		ck_assert_msg(out.status == 7, "%s %s: status %d: %s", cases[k].opt, cases[k].value, out.status,
			      out.err);
		ck_assert_msg(strstr(out.err, cases[k].want), "%s", out.err);
		ck_assert_str_eq(out.out, "");
		testlib_output_free(&out);
	}
	/* one of two apps mistyped is still an error: half a gate is no gate */
	cli(&s, &out, (const char *[]){"--app", "checkout", "--app", "odrers", "runs", NULL});
	ck_assert_msg(out.status == 7 && strstr(out.err, "did you mean orders?"), "%d %s", out.status, out.err);
	testlib_output_free(&out);
	/* there, but nothing in the window: a clean audit of nothing */
	cli(&s, &out,
	    (const char *[]){"--format", "json", "--app", "checkout", "--workflow", "paymentworkflow", "--since",
			     "2999-01-01T00:00:00Z", "runs", NULL});
	ck_assert_msg(out.status == 0, "status %d: %s", out.status, out.err);
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), 0);
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* Repeatable filters mean OR: --status a --status b, --status a,b,
 * --app a --app b; a scalar given twice with two values is a usage error. */
START_TEST(repeatable_filters_mean_or)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", lookup_profiles[_i], NULL});
	struct testlib_output out;
	static const char *const spellings[][5] = {
		{"--status", "failed", "--status", "completed", NULL},
		{"--status", "failed,completed", NULL},
		{"--status", "FAILED, completed", NULL},
	};
	size_t first = 0;
	for (size_t k = 0; k < 3; k++) {
		const char *args[12] = {"--format", "json", "--no-children"};
		size_t n = 3;
		for (size_t j = 0; spellings[k][j]; j++)
			args[n++] = spellings[k][j];
		args[n++] = "runs";
		cli(&s, &out, args);
		ck_assert_msg(out.status == 1, "%zu: status %d: %s", k, out.status, out.err);
		json_t *doc = report_of(&out);
		size_t i, failed = 0, completed = 0;
		json_t *r;
		json_array_foreach(json_object_get(doc, "runs"), i, r) {
			const char *st = json_string_value(json_object_get(r, "status"));
			failed += strcmp(st, "failed") == 0;
			completed += strcmp(st, "completed") == 0;
		}
		ck_assert_msg(failed >= 1 && completed >= 1 && failed + completed == n_runs(doc),
			      "%zu: %zu+%zu/%zu", k, failed, completed, n_runs(doc));
		if (k == 0)
			first = n_runs(doc);
		ck_assert_uint_eq(n_runs(doc), first);
		char *notes = notes_of(doc);
		ck_assert_msg(strstr(notes, "--status failed and completed: several statuses, matched here"), "%s",
			      notes);
		free(notes);
		json_decref(doc);
		testlib_output_free(&out);
	}
	cli(&s, &out,
	    (const char *[]){"--format", "json", "--no-children", "--app", "checkout", "--app", "payouts", "runs",
			     NULL});
	json_t *doc = report_of(&out);
	ck_assert_ptr_nonnull(run_by_id(doc, "pay-20931"));
	ck_assert_ptr_nonnull(run_by_id(doc, "payout-118"));
	ck_assert_ptr_null(run_by_id(doc, "order-7731"));
	json_decref(doc);
	testlib_output_free(&out);
	/* a scalar twice: which one was meant? */
	cli(&s, &out, (const char *[]){"--limit", "2", "runs", "--limit", "5", NULL});
	ck_assert_int_eq(out.status, 2);
	ck_assert_str_eq(out.err, "catalyst-audit: error: --limit is given twice, as '2' and '5': give one\n");
	testlib_output_free(&out);
	cli(&s, &out, (const char *[]){"--since", "24h", "runs", "--since", "24h", "--no-children", NULL});
	ck_assert_msg(out.status == 0 || out.status == 1, "%d %s", out.status, out.err);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* --ended-since: runs that ended in the window, also those started before
 * it; on the server where the list tool takes an end time (profile a:
 * endTimeFrom), here where it does not (profile b), and the report says
 * which. A --state file that is not a checkpoint is refused, untouched. */
START_TEST(ended_since_on_the_server_or_here)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", lookup_profiles[_i], "--shift-now", "--finish-later", NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"-o", "json", "--no-children", "--ended-since", "24h", "runs", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	json_t *doc = report_of(&out);
	json_t *long_run = run_by_id(doc, "order-7750");
	ck_assert_ptr_nonnull(long_run);
	ck_assert(json_is_string(json_object_get(long_run, "ended_at")));
	ck_assert_ptr_null(run_by_id(doc, "order-7802")); /* suspended: not ended */
	const char *window = json_string_value(json_object_get(json_object_get(doc, "filters"), "ended_since"));
	ck_assert_msg(window && strlen(window) == 20 && window[19] == 'Z', "%s", window ? window : "(null)");
	char *notes = notes_of(doc);
	if (_i == 0)
		ck_assert_msg(strstr(notes,
				     "was applied by the server (catalyst_list_workflow_runs's endTimeFrom)"),
			      "%s", notes);
	else
		ck_assert_msg(strstr(notes,
				     "the server's catalyst_list_workflow_runs has no input property for the "
				     "start of the end-time window: --ended-since was applied here"),
			      "%s", notes);
	free(notes);
	json_decref(doc);
	testlib_output_free(&out);
	/* --since misses a run started before the window */
	cli(&s, &out, (const char *[]){"-o", "json", "--no-children", "--since", "24h", "runs", NULL});
	doc = report_of(&out);
	ck_assert_ptr_null(run_by_id(doc, "order-7750"));
	json_decref(doc);
	testlib_output_free(&out);

	char dir[256], path[400];
	testlib_make_tmpdir(dir, sizeof dir, "state");
	snprintf(path, sizeof path, "%s/state.json", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"schema\": \"catalyst-audit.state/v1\", \"ended_at\": \"yesterday\", \"runs\": []}\n", f);
	fclose(f);
	cli(&s, &out, (const char *[]){"--state", path, "runs", NULL});
	ck_assert_int_eq(out.status, 6);
	ck_assert_msg(strstr(out.err, "not a checkpoint of catalyst-audit (\"ended_at\" is not an RFC 3339 time)"),
		      "%s", out.err);
	testlib_output_free(&out);
	char *kept = testlib_read_file(path, NULL);
	ck_assert_ptr_nonnull(strstr(kept, "yesterday"));
	free(kept);

	/* A --state that is a symbolic link is never followed (SECURITY.md):
	 * not read through, not written through, not replaced. The target is
	 * a valid checkpoint, so an implementation that followed the link
	 * would audit, then write it or put a file in the link's place. */
	char target[450], link[450], dangling[450], gone[450];
	snprintf(target, sizeof target, "%s/target.json", dir);
	snprintf(link, sizeof link, "%s/link.json", dir);
	snprintf(dangling, sizeof dangling, "%s/dangling.json", dir);
	snprintf(gone, sizeof gone, "%s/not-there.json", dir);
	const char *checkpoint =
		"{\"schema\": \"catalyst-audit.state/v1\", \"ended_at\": \"2020-01-01T00:00:00Z\", \"runs\": []}\n";
	f = fopen(target, "w");
	ck_assert_ptr_nonnull(f);
	fputs(checkpoint, f);
	fclose(f);
	ck_assert_int_eq(symlink("target.json", link), 0);
	ck_assert_int_eq(symlink("not-there.json", dangling), 0);
	const char *links[] = {link, dangling};
	for (size_t k = 0; k < 2; k++) {
		cli(&s, &out, (const char *[]){"--state", links[k], "runs", NULL});
		ck_assert_msg(out.status == 6, "%s: status %d: %s", links[k], out.status, out.err);
		ck_assert_msg(strstr(out.err, "a symbolic link (refused)"), "%s", out.err);
		testlib_output_free(&out);
		struct stat sb;
		ck_assert_int_eq(lstat(links[k], &sb), 0);
		ck_assert_msg(S_ISLNK(sb.st_mode), "%s was replaced", links[k]);
	}
	kept = testlib_read_file(target, NULL);
	ck_assert_str_eq(kept, checkpoint);
	free(kept);
	struct stat sb;
	ck_assert_msg(lstat(gone, &sb) < 0, "the dangling link's target was created");
	testlib_remove_tree(dir);
	sim_stop(&s);
}
END_TEST

static size_t n_top_level(json_t *doc)
{
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(json_object_get(doc, "runs"), i, r)
		if (!json_is_string(json_object_get(r, "parent_run_id")))
			n++;
	return n;
}

START_TEST(limit_counts_top_level_runs)
{
	struct testlib_server s;
	/* the list holds the child runs too: they do not count */
	sim_start(&s, (const char *[]){"--list-children", NULL});
	struct testlib_output out;
	cli(&s, &out,
	    (const char *[]){"--format", "json", "--no-children", "--app", "orders", "--limit", "5", "runs",
			     NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_top_level(doc), 5);
	ck_assert_uint_eq(n_runs(doc), 7);
	ck_assert_ptr_nonnull(run_by_id(doc, "order-7740:0002"));
	char *notes = notes_of(doc);
	ck_assert_msg(strstr(notes,
			     "--limit 5 counts top-level runs (5 audited); 2 child run(s) were added on top"),
		      "%s", notes);
	free(notes);
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);

	/* child runs found through their parent: on top, and said */
	sim_start(&s, NULL);
	cli(&s, &out, (const char *[]){"--format", "json", "--app", "orders", "--limit", "5", "runs", NULL});
	doc = report_of(&out);
	ck_assert_uint_eq(n_top_level(doc), 5);
	ck_assert_uint_eq(n_runs(doc), 7);
	notes = notes_of(doc);
	ck_assert_msg(strstr(notes, "2 child run(s) were added on top"), "%s", notes);
	free(notes);
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

START_TEST(link_checks_that_the_run_exists)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", lookup_profiles[_i], NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--project", "payments", "link", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == 0, "status %d: %s", out.status, out.err);
	ck_assert_str_eq(out.out, "https://catalyst.diagrid.io/workflows/checkout/pay-20931?project=payments\n");
	testlib_output_free(&out);

	/* not there: 7, no link, and where it is */
	cli(&s, &out, (const char *[]){"--project", "payments", "link", "shipping", "pay-20931", NULL});
	ck_assert_msg(out.status == 7, "status %d: %s", out.status, out.err);
	ck_assert_str_eq(out.out, "");
	ck_assert_ptr_nonnull(strstr(out.err, "catalyst-audit --project payments link checkout pay-20931"));
	testlib_output_free(&out);

	/* the app found through the run list, as JSON */
	cli(&s, &out, (const char *[]){"--project-id", "212", "--format", "json", "link", "pay-20931", NULL});
	ck_assert_msg(out.status == 0, "status %d: %s", out.status, out.err);
	json_t *doc = json_loads(out.out, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "catalyst-audit.link/v1");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "app_id")), "checkout");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "run_id")), "pay-20931");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "project"), "uid")), "212");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "console_link")),
			 "https://catalyst.diagrid.io/workflows/checkout/pay-20931?projectId=212");
	ck_assert(json_is_null(json_object_get(doc, "link_note")));
	ck_assert(json_is_true(json_object_get(doc, "checked")));
	json_decref(doc);
	ck_assert_ptr_nonnull(strstr(out.err, "run pay-20931 is in app checkout"));
	testlib_output_free(&out);

	/* no link: console_link null, the reason in link_note */
	cli(&s, &out, (const char *[]){"--json", "--no-check", "link", "", "pay-20931", NULL});
	ck_assert_msg(out.status == 0, "status %d: %s", out.status, out.err);
	doc = json_loads(out.out, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert(json_is_null(json_object_get(doc, "console_link")));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(doc, "link_note")), "app id is unknown"));
	ck_assert(json_is_false(json_object_get(doc, "checked")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "project"), "name")), "default");
	json_decref(doc);
	testlib_output_free(&out);

	/* a format a link does not have, asked for on the command line */
	cli(&s, &out, (const char *[]){"-o", "markdown", "link", "checkout", "pay-20931", NULL});
	ck_assert_int_eq(out.status, 2);
	ck_assert_str_eq(out.err, "catalyst-audit: error: -o markdown: link writes text or json\n");
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* A fake browser: records its arguments, one a line, in <script>.log. */
static void fake_browser(char *dir, size_t dir_size, char *script, size_t size)
{
	testlib_make_tmpdir(dir, dir_size, "browser");
	snprintf(script, size, "%s/browser", dir);
	FILE *f = fopen(script, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\nprintf '%s\\n' \"$@\" >> \"$0.log\"\n", f);
	fclose(f);
	ck_assert_int_eq(chmod(script, 0755), 0);
}

static char *browser_log(const char *script)
{
	char path[600];
	snprintf(path, sizeof path, "%s.log", script);
	char *log = testlib_read_file(path, NULL);
	unlink(path);
	return log;
}

START_TEST(web_opens_the_link_with_browser)
{
	char dir[256], script[400], cmd[500];
	fake_browser(dir, sizeof dir, script, sizeof script);
	struct testlib_server s;
	sim_start(&s, NULL);
	struct testlib_output out;
	const char *link = "https://catalyst.diagrid.io/workflows/checkout/pay-20931?project=default";

	cli_browser(&s, &out, script, (const char *[]){"link", "--web", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == 0, "status %d: %s", out.status, out.err);
	char *log = browser_log(script);
	ck_assert_ptr_nonnull(log);
	ck_assert_str_eq(log, "https://catalyst.diagrid.io/workflows/checkout/pay-20931?project=default\n");
	free(log);
	testlib_output_free(&out);

	/* $BROWSER's own words, no shell: "%s" is the link's place */
	snprintf(cmd, sizeof cmd, "/nonexistent/browser:%s --new-window %%s --x;echo", script);
	cli_browser(&s, &out, cmd, (const char *[]){"--web", "run", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	log = browser_log(script);
	ck_assert_ptr_nonnull(log);
	char want[300];
	snprintf(want, sizeof want, "--new-window\n%s\n--x;echo\n", link);
	ck_assert_str_eq(log, want);
	free(log);
	testlib_output_free(&out);

	/* no $BROWSER: xdg-open, found in PATH */
	char xdg[500], path_env[4200];
	snprintf(xdg, sizeof xdg, "%s/xdg-open", dir);
	ck_assert_int_eq(symlink(script, xdg), 0);
	snprintf(path_env, sizeof path_env, "PATH=%s:%s", dir, getenv("PATH"));
	cli_browser_env(&s, &out, NULL, path_env,
			(const char *[]){"link", "--web", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == 0, "status %d: %s", out.status, out.err);
	ck_assert_ptr_nonnull(strstr(out.out, link));
	log = browser_log(xdg);
	ck_assert_ptr_nonnull(log);
	snprintf(want, sizeof want, "%s\n", link);
	ck_assert_str_eq(log, want);
	free(log);
	testlib_output_free(&out);

	/* neither: said, and the link printed */
	cli_browser_env(&s, &out, NULL, "PATH=/nonexistent",
			(const char *[]){"link", "--web", "checkout", "pay-20931", NULL});
	ck_assert_int_eq(out.status, 0);
	ck_assert_ptr_nonnull(strstr(out.out, link));
	ck_assert_msg(strstr(out.err, "--web: no browser to open it with: $BROWSER is not set and xdg-open: "),
		      "%s", out.err);
	testlib_output_free(&out);

	/* never a link to vouch for: a run that is not there, a project that
	 * may be another */
	cli_browser(&s, &out, script, (const char *[]){"link", "--web", "orders", "pay-20931", NULL});
	ck_assert_int_eq(out.status, 7);
	testlib_output_free(&out);
	cli_browser(&s, &out, script,
		    (const char *[]){"--no-check", "--project", "123", "link", "--web", "a", "b", NULL});
	ck_assert_int_eq(out.status, 0);
	ck_assert_ptr_nonnull(strstr(out.err, "--web: no link is opened: the link carries no project"));
	ck_assert_ptr_null(browser_log(script));
	testlib_output_free(&out);
	sim_stop(&s);
	testlib_remove_tree(dir);
}
END_TEST

/* What a browser inherits (tests/sim/record-browser.sh wrote it): no socket
 * or pipe of ours beyond the standard descriptors, no CATALYST_* variable. */
static void assert_browser_got_nothing(const char *log_path)
{
	char *log = testlib_read_file(log_path, NULL);
	ck_assert_msg(log != NULL, "the browser did not run");
	ck_assert_msg(strstr(log, "fds:") && strstr(log, "env:"), "%s", log);
	ck_assert_msg(!strstr(log, "socket:["), "the browser inherited a socket:\n%s", log);
	const char *env = strstr(log, "env:");
	ck_assert_msg(!strstr(env, "CATALYST_"), "the browser inherited:\n%s", env);
	free(log);
}

/* --web with a token in the environment and connections to the server
 * open: the browser gets neither. */
START_TEST(web_browser_gets_nothing_of_ours)
{
	char dir[256], log[400], browser[900], browser_env[1000];
	testlib_make_tmpdir(dir, sizeof dir, "browser");
	snprintf(log, sizeof log, "%s/inherited", dir);
	snprintf(browser, sizeof browser, "%s %s true", testlib_src("tests/sim/record-browser.sh"), log);
	snprintf(browser_env, sizeof browser_env, "BROWSER=%s", browser);
	struct testlib_server s;
	sim_start(&s, NULL);
	char *args[] = {"--server", s.url, "--web", "run", "checkout", "pay-20931", NULL};
	char *env[] = {"CATALYST_TOKEN=sim-secret-token", "CATALYST_LOGIN_TIMEOUT=5", browser_env, NULL};
	struct testlib_output out;
	ck_assert_int_eq(testlib_run_cli(args, env, NULL, CLI_TIMEOUT_MS, &out), 0);
	sim_stop(&s);
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	assert_browser_got_nothing(log);
	testlib_output_free(&out);
	testlib_remove_tree(dir);
}
END_TEST

/* ---- refusals ------------------------------------------------------------ */

static const struct {
	const char *kind;
	int status;
	const char *instruction; /* a piece of the simulator's instruction text */
} refusals[] = {
	{"NOT_AUTHENTICATED", 3, "Sign in again"},
	{"NO_ORG", 3, "invite you"},
	{"ORG_MISMATCH", 3, "choose the organization"},
	{"ORG_UNAVAILABLE", 3, "Wait a moment"},
	{"CATALYST_NOT_ENABLED", 3, "enable Catalyst"},
	{"denied", 4, "which data the policy shares"},
	{"no-policy", 4, "Catalyst console"},
	{"unfilterable", 4, "fewer items per page"},
	{"DATA_SHARING_RESTRICTED", 4, "change the data-sharing level"},
};
static const char *const envelopes[] = {"rpc", "iserror", "structured"};
#define N_REFUSALS (sizeof refusals / sizeof *refusals)

START_TEST(refusal_every_kind_every_envelope)
{
	size_t k = (size_t)_i / 3;
	const char *env = envelopes[_i % 3];
	char rule[128];
	/* on the run list for `runs`, on the run for `run`, alternately */
	const char *tool = _i % 2 ? "catalyst_list_workflow_runs" : "catalyst_get_workflow_run";
	snprintf(rule, sizeof rule, "%s:%s:%s", refusals[k].kind, env, tool);
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--profile", _i % 4 < 2 ? "a" : "b", "--refuse", rule, NULL});
	struct testlib_output out;
	if (_i % 2)
		cli(&s, &out, (const char *[]){"--format", "json", "runs", NULL});
	else
		cli(&s, &out, (const char *[]){"--format", "json", "run", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == refusals[k].status, "%s: status %d: %s", rule, out.status, out.err);
	ck_assert_msg(strstr(out.err, refusals[k].kind) != NULL, "%s: %s", rule, out.err);
	ck_assert_msg(strstr(out.err, refusals[k].instruction) != NULL, "%s: %s", rule, out.err);
	ck_assert_str_eq(out.out, "");
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

START_TEST(refusal_of_one_run_loses_no_run)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--refuse", "denied:structured:catalyst_get_workflow_run:first=1", NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--format", "json", "--jobs", "1", "--no-children", "runs", NULL});
	ck_assert_msg(out.status == 4, "status %d: %s", out.status, out.err);
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), DEFAULT_LISTED);
	ck_assert_uint_eq(n_failed(doc), 1);
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(doc, "runs"), i, r) {
		json_t *err = run_error(r);
		if (!err)
			continue;
		ck_assert_int_eq(json_integer_value(json_object_get(err, "code")), 4);
		ck_assert_str_eq(json_string_value(json_object_get(err, "refusal_kind")), "denied");
		ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(err, "instruction")),
					     "which data the policy shares"));
	}
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

START_TEST(retryable_refusal_once)
{
	struct testlib_server s;
	/* retryable, once: the retry goes through */
	sim_start(&s,
		  (const char *[]){"--refuse",
				   "ORG_UNAVAILABLE:iserror:catalyst_get_workflow_run:retryable,first=1", NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--format", "json", "--no-children", "run", "checkout", "pay-20931", NULL});
	ck_assert_msg(out.status == 1, "status %d: %s", out.status, out.err);
	testlib_output_free(&out);
	sim_stop(&s);

	/* retryable twice: retried once only, then exit 3 */
	sim_start(&s, (const char *[]){"--refuse",
				       "ORG_UNAVAILABLE:rpc:catalyst_get_workflow_run:retryable,first=2", NULL});
	cli(&s, &out, (const char *[]){"--format", "json", "--no-children", "run", "checkout", "pay-20931", NULL});
	ck_assert_int_eq(out.status, 3);
	ck_assert_ptr_nonnull(strstr(out.err, "retried once"));
	testlib_output_free(&out);
	/* and a third call now succeeds: exactly two were used up */
	cli(&s, &out, (const char *[]){"--format", "json", "--no-children", "run", "checkout", "pay-20931", NULL});
	ck_assert_int_eq(out.status, 1);
	testlib_output_free(&out);
	sim_stop(&s);

	/* not retryable: one call, exit 3, and the next call succeeds */
	sim_start(&s, (const char *[]){"--refuse",
				       "NOT_AUTHENTICATED:structured:catalyst_get_workflow_run:first=1", NULL});
	cli(&s, &out, (const char *[]){"--format", "json", "--no-children", "run", "checkout", "pay-20931", NULL});
	ck_assert_int_eq(out.status, 3);
	testlib_output_free(&out);
	cli(&s, &out, (const char *[]){"--format", "json", "--no-children", "run", "checkout", "pay-20931", NULL});
	ck_assert_int_eq(out.status, 1);
	testlib_output_free(&out);
	sim_stop(&s);

	/* whoami stops at a connection refusal */
	sim_start(&s, (const char *[]){"--refuse", "NO_ORG:iserror:catalyst_whoami", NULL});
	cli(&s, &out, (const char *[]){"whoami", NULL});
	ck_assert_int_eq(out.status, 3);
	ck_assert_ptr_nonnull(strstr(out.err, "NO_ORG"));
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* ---- faults -------------------------------------------------------------- */

static const struct {
	const char *kind;
	bool stateful;
} faults[] = {
	{"500", false},  {"503", false}, {"reset", false}, {"truncate", false}, {"expire", true},
	{"slow", false}, {"503", true},  {"reset", true},  {"truncate", true},
};

START_TEST(fault_recovered)
{
	char first[32];
	snprintf(first, sizeof first, "2:%s", faults[_i].kind);
	struct testlib_server s;
	sim_start(&s,
		  (const char *[]){"--fail-first", first, "--fail-tool", "catalyst_get_workflow_run", "--slow-ms",
				   "4000", "--seed", "1", faults[_i].stateful ? NULL : "--stateless", NULL});
	struct testlib_output out;
	cli(&s, &out,
	    (const char *[]){"--format", "json", "--timeout", "2", "--jobs", "1", "--no-children", "runs", NULL});
	ck_assert_msg(out.status == 1, "%s: status %d: %s", faults[_i].kind, out.status, out.err);
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), DEFAULT_LISTED);
	ck_assert_uint_eq(n_failed(doc), 0);
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

START_TEST(fault_persistent)
{
	/* every fetch of one run fails: the run is reported failed, none lost */
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--fail-rate", "1", "--fail-kinds", faults[_i].kind, "--fail-tool",
				       "catalyst_get_workflow_run", "--fail-match", "pay-20931", "--slow-ms",
				       "4000", "--seed", "1", faults[_i].stateful ? NULL : "--stateless", NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--format", "json", "--timeout", "1", "--no-children", "runs", NULL});
	/* expire re-initializes and retries; the session simulator expires it again */
	ck_assert_msg(out.status == 5, "%s: status %d: %s", faults[_i].kind, out.status, out.err);
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), DEFAULT_LISTED);
	ck_assert_uint_eq(n_failed(doc), 1);
	json_t *pay = run_by_id(doc, "pay-20931");
	ck_assert_ptr_nonnull(pay);
	json_t *err = run_error(pay);
	ck_assert_ptr_nonnull(err);
	ck_assert_int_eq(json_integer_value(json_object_get(err, "code")), 5);
	ck_assert(strlen(json_string_value(json_object_get(err, "message"))) > 10);
	ck_assert_ptr_nonnull(strstr(out.err, "1 of 15 runs could not be audited"));
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

START_TEST(many_runs_concurrently)
{
	struct testlib_server s;
	sim_start(&s, (const char *[]){"--runs", "120", "--latency-ms", "5", "--fail-rate", "0.05", "--fail-kinds",
				       "503,reset", "--fail-tool", "catalyst_get_workflow_run", NULL});
	struct testlib_output out;
	cli(&s, &out, (const char *[]){"--format", "json", "--jobs", "16", "--no-children", "runs", NULL});
	ck_assert_msg(out.status == 1 || out.status == 5, "status %d: %s", out.status, out.err);
	json_t *doc = report_of(&out);
	ck_assert_uint_eq(n_runs(doc), DEFAULT_LISTED + 120);
	/* 5% of calls fail, each retried up to 3 times: a lost run would
	 * need three failures in a row; every run is there either way */
	if (out.status == 1)
		ck_assert_uint_eq(n_failed(doc), 0);
	json_decref(doc);
	testlib_output_free(&out);
	sim_stop(&s);
}
END_TEST

/* ---- read-only, across the whole suite ---------------------------------- */

START_TEST(no_write_tool_was_ever_called)
{
	size_t len = 0;
	char *w = testlib_read_file(writes_file, &len);
	/* the file exists only when something was written to it */
	if (w)
		ck_assert_msg(len == 0, "write tools were called: %s", w);
	free(w);
	char *calls = testlib_read_file(calls_file, &len);
	ck_assert_ptr_nonnull(calls);
	size_t n = 0;
	for (char *line = strtok(calls, "\n"); line; line = strtok(NULL, "\n"), n++) {
		json_t *j = json_loads(line, 0, NULL);
		ck_assert_ptr_nonnull(j);
		ck_assert_msg(json_is_true(json_object_get(j, "allowed")), "called: %s", line);
		json_decref(j);
	}
	ck_assert_uint_gt(n, 100);
	free(calls);
}
END_TEST

int main(void)
{
	snprintf(writes_file, sizeof writes_file, "%s/catalyst-sim-writes.jsonl", testlib_env("CA_BUILD_DIR"));
	snprintf(calls_file, sizeof calls_file, "%s/catalyst-sim-calls.jsonl", testlib_env("CA_BUILD_DIR"));
	unlink(writes_file);
	unlink(calls_file);
	char *hub_argv[] = {(char *)testlib_node(),
			    (char *)testlib_src("tests/sim/catalyst-sim.mjs"),
			    "--hub",
			    "--max-seconds",
			    "1800",
			    NULL};
	if (testlib_server_start(&hub, hub_argv, NULL, "LISTENING", 60000) != 0) {
		fprintf(stderr, "the simulator hub did not start\n");
		return EXIT_FAILURE;
	}

	Suite *s = suite_create("catalyst_sim");
	struct testlib_group *tc = testlib_group("modes");
	testlib_group_timeout(tc, 120);
	add_loop_test(tc, runs_every_mode, 0, sizeof modes / sizeof *modes);
	add_test(tc, level_named_by_a_field);
	add_test(tc, short_report_fits_one_screen);
	add_test(tc, filters_and_pages);
	testlib_suite_add(s, tc);
	/* CK_RUN_CASE=views: what scripts/update-goldens runs to rewrite them. */
	tc = testlib_group("screen");
	testlib_group_timeout(tc, 120);
	add_test(tc, first_screen_answers_the_page);
	testlib_suite_add(s, tc);
	tc = testlib_group("views");
	testlib_group_timeout(tc, 120);
	add_test(tc, multi_run_views_match_goldens);
	testlib_suite_add(s, tc);
	tc = testlib_group("markdown");
	testlib_group_timeout(tc, 240);
	add_test(tc, markdown_renders_as_written);
	add_test(tc, markdown_fits_an_issue);
	add_test(tc, markdown_header_says_when_what_and_which_runs);
	add_test(tc, show_payloads_over_the_server);
	add_test(tc, saved_histories_audit_the_same);
	testlib_suite_add(s, tc);
	tc = testlib_group("link");
	testlib_group_timeout(tc, 120);
	add_test(tc, link_without_a_server);
	add_test(tc, link_resolved_by_the_server);
	add_test(tc, uid_read_as_a_name_links_the_project_meant);
	add_test(tc, unconfirmed_project_gets_no_link);
	testlib_suite_add(s, tc);
	tc = testlib_group("lookup");
	testlib_group_timeout(tc, 120);
	add_loop_test(tc, run_without_app_id, 0, 2);
	add_loop_test(tc, run_missing_says_where, 0, 4);
	add_loop_test(tc, workflow_in_any_case, 0, 2);
	add_loop_test(tc, filter_naming_nothing_exits_7, 0, 2);
	add_loop_test(tc, repeatable_filters_mean_or, 0, 2);
	add_loop_test(tc, ended_since_on_the_server_or_here, 0, 2);
	add_test(tc, limit_counts_top_level_runs);
	add_loop_test(tc, link_checks_that_the_run_exists, 0, 2);
	add_test(tc, web_opens_the_link_with_browser);
	add_test(tc, rerun_source_fetched);
	add_test(tc, web_browser_gets_nothing_of_ours);
	testlib_suite_add(s, tc);
	tc = testlib_group("refusals");
	testlib_group_timeout(tc, 120);
	add_loop_test(tc, refusal_every_kind_every_envelope, 0, (int)N_REFUSALS * 3);
	add_test(tc, refusal_of_one_run_loses_no_run);
	add_test(tc, retryable_refusal_once);
	testlib_suite_add(s, tc);
	tc = testlib_group("faults");
	testlib_group_timeout(tc, 180);
	add_loop_test(tc, fault_recovered, 0, sizeof faults / sizeof *faults);
	add_loop_test(tc, fault_persistent, 0, sizeof faults / sizeof *faults);
	add_test(tc, many_runs_concurrently);
	testlib_suite_add(s, tc);
	tc = testlib_group("read-only");
	add_test(tc, no_write_tool_was_ever_called);
	testlib_suite_add(s, tc);
	int status = testlib_main(s);
	testlib_server_stop(&hub);
	return status;
}
