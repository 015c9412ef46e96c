/* meson-test: integration slow */
/* `catalyst-audit stats`: the fleet view. Against the simulator's fleet
 * (tests/sim, --fleet N --reexecute NAME:RATE: named activities re-execute
 * after ambiguous failures at known rates among many clean ones), the
 * activities that re-execute rank first within --since 30d; saved JSON
 * Lines reports give the same rows as the server; the latest report of a
 * run wins and projects stay apart; outside text is escaped. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "buf.h"
#include "testlib.h"

#define CLI_TIMEOUT_MS 120000
#define FLEET "400"

static void sim_fleet_with(struct testlib_server *s, const char *extra1, const char *extra2)
{
	const char *argv[] = {testlib_node(),
			      testlib_src("tests/sim/catalyst-sim.mjs"),
			      "--fleet",
			      FLEET,
			      "--reexecute",
			      "ChargeCard:0.25",
			      "--reexecute",
			      "SendReceipt:0.1",
			      "--runs-project",
			      "fleet",
			      "--shift-now",
			      "--json",
			      "--max-seconds",
			      "300",
			      extra1,
			      extra2,
			      NULL};
	ck_assert_int_eq(testlib_server_start(s, (char *const *)argv, NULL, "LISTENING", 20000), 0);
	ck_assert(strncmp(s->url, "http://127.0.0.1:", 17) == 0);
}

static void sim_fleet(struct testlib_server *s)
{
	sim_fleet_with(s, NULL, NULL);
}

static void cli(struct testlib_output *out, const char *const *args)
{
	static char *const env[] = {"CATALYST_TOKEN=", "BROWSER=", NULL};
	ck_assert_int_eq(testlib_run_cli((char *const *)args, env, NULL, CLI_TIMEOUT_MS, out), 0);
	ck_assert_msg(!out->timed_out, "catalyst-audit hung; stderr: %s", out->err);
}

static json_t *parse(const struct testlib_output *o)
{
	json_error_t je;
	json_t *doc = json_loads(o->out, 0, &je);
	ck_assert_msg(doc, "not JSON (%s): %.400s / %s", je.text, o->out, o->err);
	return doc;
}

static json_t *row(json_t *doc, size_t i)
{
	json_t *r = json_array_get(json_object_get(doc, "activities"), i);
	ck_assert_ptr_nonnull(r);
	return r;
}

static const char *rs(json_t *r, const char *k)
{
	return json_string_value(json_object_get(r, k));
}

static json_int_t ri(json_t *r, const char *a, const char *b)
{
	json_t *v = json_object_get(r, a);
	if (b)
		v = json_object_get(v, b);
	ck_assert_msg(json_is_integer(v), "%s.%s is not an integer", a, b ? b : "");
	return json_integer_value(v);
}

/* The first four rows are ChargeCard and SendReceipt of both apps, with
 * the counts the simulator's rates give, and nothing else re-executes. */
static void expect_fleet_rows(json_t *doc)
{
	static const struct {
		const char *app, *name;
		json_int_t reexecuted;
	} want[] = {
		{"billing", "ChargeCard", 50},
		{"orders", "ChargeCard", 50},
		{"billing", "SendReceipt", 20},
		{"orders", "SendReceipt", 20},
	};
	json_t *rows = json_object_get(doc, "activities");
	ck_assert_uint_eq(json_array_size(rows), 12);
	for (size_t i = 0; i < 4; i++) {
		json_t *r = row(doc, i);
		ck_assert_str_eq(rs(r, "app_id"), want[i].app);
		ck_assert_str_eq(rs(r, "name"), want[i].name);
		ck_assert_int_eq(ri(r, "rank", NULL), (json_int_t)i + 1);
		ck_assert_int_eq(ri(r, "invocations", NULL), 200);
		ck_assert_int_eq(ri(r, "reexecuted", NULL), want[i].reexecuted);
		ck_assert_int_eq(ri(r, "findings", "suspect"), want[i].reexecuted);
		ck_assert_int_eq(ri(r, "attempts", "median"), 1);
		ck_assert_int_eq(ri(r, "attempts", "p95"), 2);
		ck_assert_int_eq(ri(r, "attempts", "max"), 2);
		ck_assert(json_real_value(json_object_get(r, "reexecuted_share")) * 200 ==
			  (double)want[i].reexecuted);
		/* suspect kinds first */
		json_t *k0 = json_array_get(json_object_get(json_object_get(r, "findings"), "by_kind"), 0);
		ck_assert_str_eq(rs(k0, "kind"), "ambiguous_failure_retried");
		ck_assert_str_eq(rs(k0, "severity"), "suspect");
		json_t *f0 = json_array_get(json_object_get(r, "failures"), 0);
		ck_assert_str_eq(rs(f0, "class"), "ambiguous");
		ck_assert_int_eq(ri(f0, "attempts", NULL), want[i].reexecuted);
		ck_assert_uint_ge(json_array_size(json_object_get(f0, "messages")), 1);
		json_t *latest = json_object_get(r, "latest_suspect_run");
		char link[200];
		snprintf(link, sizeof link, "https://catalyst.diagrid.io/workflows/%s/%s?project=fleet",
			 want[i].app, rs(latest, "run_id"));
		ck_assert_str_eq(rs(latest, "console_link"), link);
		ck_assert_str_eq(rs(latest, "app_id"), want[i].app);
		/* the remedy of the suspect kind, once per row */
		ck_assert_ptr_nonnull(strstr(rs(r, "remedy"), "task_execution_id"));
	}
	for (size_t i = 4; i < json_array_size(rows); i++) {
		json_t *r = row(doc, i);
		ck_assert_int_eq(ri(r, "reexecuted", NULL), 0);
		ck_assert_int_eq(ri(r, "findings", "suspect"), 0);
		ck_assert(json_is_null(json_object_get(r, "latest_suspect_run")));
		ck_assert(json_is_null(json_object_get(r, "remedy")));
	}
}

START_TEST(fleet_ranked_first)
{
	struct testlib_server s;
	sim_fleet(&s);
	struct testlib_output o;
	cli(&o, (const char *[]){"--server", s.url, "--project", "fleet", "stats", "--since", "30d", "-o", "json",
				 "--jobs", "8", NULL});
	ck_assert_msg(o.status == 1, "status %d: %s", o.status, o.err); /* suspect findings */
	json_t *doc = parse(&o);
	ck_assert_str_eq(rs(doc, "schema"), "catalyst-audit.stats/v1");
	ck_assert_str_eq(rs(doc, "source"), "server");
	ck_assert_int_eq(ri(doc, "summary", "runs"), 400);
	ck_assert(json_is_false(json_object_get(json_object_get(doc, "summary"), "partial")));
	expect_fleet_rows(doc);
	json_decref(doc);
	testlib_output_free(&o);

	/* The window matters: without it the old runs' activity comes first. */
	cli(&o, (const char *[]){"--server", s.url, "--project", "fleet", "stats", "-o", "json", NULL});
	doc = parse(&o);
	ck_assert_int_eq(ri(doc, "summary", "runs"), 600);
	ck_assert_str_eq(rs(row(doc, 0), "name"), "ArchiveOrder");
	json_decref(doc);
	testlib_output_free(&o);

	/* --app-id, the Dapr CLI's spelling, is one more --app here too. */
	cli(&o, (const char *[]){"--server", s.url, "--project", "fleet", "stats", "--since", "30d", "--app-id",
				 "billing", "-o", "json", NULL});
	ck_assert_msg(o.status == 1, "status %d: %s", o.status, o.err);
	doc = parse(&o);
	ck_assert_str_eq(rs(row(doc, 0), "app_id"), "billing");
	for (size_t i = 0; i < json_array_size(json_object_get(doc, "activities")); i++)
		ck_assert_str_eq(rs(row(doc, i), "app_id"), "billing");
	json_decref(doc);
	testlib_output_free(&o);

	/* Text: the same order, the top entries with their link and remedy. */
	cli(&o, (const char *[]){"--server", s.url, "--project", "fleet", "stats", "--since", "30d", "--fail-on",
				 "never", NULL});
	ck_assert_int_eq(o.status, 0);
	char *a = strstr(o.out, "billing  ChargeCard"), *b = strstr(o.out, "orders   SendReceipt"),
	     *c = strstr(o.out, "ValidateOrder");
	ck_assert_msg(a && b && c && a < b && b < c, "%s", o.out);
	ck_assert_ptr_nonnull(strstr(o.out, "remedy (ambiguous_failure_retried): "));
	ck_assert_ptr_nonnull(strstr(o.out, "https://catalyst.diagrid.io/workflows/billing/"));
	char *plain = strdup(o.out);
	testlib_output_free(&o);

	/* --color always (issue 29: accepted, and dropped on the way to the
	 * table): the header bold, non-zero suspect counts red, notices
	 * yellow; with the codes taken out, the very same table. */
	cli(&o, (const char *[]){"--server", s.url, "--project", "fleet", "--color", "always", "stats", "--since",
				 "30d", "--fail-on", "never", NULL});
	ck_assert_int_eq(o.status, 0);
	ck_assert_msg(strstr(o.out, "\033[1m") && strstr(o.out, "\033[1;31m"), "%s", o.out);
	struct buf stripped;
	buf_init(&stripped, 0);
	for (const char *p = o.out; *p;) {
		if (*p == '\033') {
			p += strcspn(p, "m");
			p += *p != '\0';
			continue;
		}
		buf_append(&stripped, p++, 1, NULL);
	}
	ck_assert_str_eq(stripped.data ? stripped.data : "", plain);
	buf_finish(&stripped);
	testlib_output_free(&o);
	cli(&o, (const char *[]){"--server", s.url, "--project", "fleet", "--color", "never", "stats", "--since",
				 "30d", "--fail-on", "never", NULL});
	ck_assert_ptr_null(strchr(o.out, '\033'));
	ck_assert_str_eq(o.out, plain);
	free(plain);
	testlib_output_free(&o);
	testlib_server_stop(&s);
}
END_TEST

/* A listing that breaks off after its first page: the statistics of the
 * runs listed before are written, marked partial, with a note, and the
 * status is the listing's (here a data-sharing refusal of page 2). */
START_TEST(listing_cut_short_is_partial)
{
	struct testlib_server s;
	sim_fleet_with(&s, "--refuse", "denied:iserror:catalyst_list_workflow_runs:match=cursor");
	struct testlib_output o;
	cli(&o, (const char *[]){"--server", s.url, "--project", "fleet", "stats", "--since", "30d", "-o", "json",
				 NULL});
	ck_assert_msg(o.status == 4, "status %d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "the statistics cover the 50 runs listed before"));
	json_t *doc = parse(&o);
	ck_assert_int_eq(ri(doc, "summary", "runs"), 50);
	ck_assert(json_is_true(json_object_get(json_object_get(doc, "summary"), "partial")));
	char *notes = json_dumps(json_object_get(doc, "notes"), 0);
	ck_assert_ptr_nonnull(strstr(notes, "the run list ended early, after 50 runs in 1 pages"));
	free(notes);
	json_decref(doc);
	testlib_output_free(&o);
	testlib_server_stop(&s);
}
END_TEST

static void write_file(const char *path, const char *text, size_t len, time_t mtime)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	struct timeval tv[2] = {{mtime, 0}, {mtime, 0}};
	ck_assert_int_eq(utimes(path, tv), 0);
}

START_TEST(same_ranking_from_saved_reports)
{
	struct testlib_server s;
	sim_fleet(&s);
	struct testlib_output server, saved, o;
	cli(&server, (const char *[]){"--server", s.url, "--project", "fleet", "stats", "--since", "30d", "-o",
				      "json", NULL});
	cli(&saved, (const char *[]){"--server", s.url, "--project", "fleet", "runs", "--since", "30d", "-o",
				     "jsonl", "--fail-on", "never", NULL});
	ck_assert_msg(saved.status == 0, "%s", saved.err);
	testlib_server_stop(&s);

	/* Two nightly files whose windows overlap by a fifth of the runs; each
	 * ends with its own summary line. */
	size_t n = 0;
	char *lines[1024];
	for (char *p = saved.out, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		ck_assert_uint_lt(n, 1024);
		lines[n++] = p;
	}
	ck_assert_uint_eq(n, 401); /* 400 runs, then the summary */
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "stats");
	for (int night = 0; night < 2; night++) {
		size_t from = night ? 160 : 0, to = night ? 400 : 240;
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		for (size_t i = from; i < to; i++)
			fwrite(lines[i], 1, (size_t)(strchr(lines[i], '\n') - lines[i]) + 1, m);
		fputs(lines[400], m);
		fclose(m);
		char path[300];
		snprintf(path, sizeof path, "%s/night-%d.jsonl", dir, night + 1);
		write_file(path, text, len, 1700000000 + night * 86400);
		free(text);
	}
	cli(&o, (const char *[]){"stats", dir, "-o", "json", NULL});
	ck_assert_msg(o.status == 1, "status %d: %s", o.status, o.err);
	json_t *from_server = parse(&server), *from_reports = parse(&o);
	ck_assert_str_eq(rs(from_reports, "source"), "reports");
	ck_assert_int_eq(ri(from_reports, "summary", "runs"), 400);
	ck_assert_int_eq(ri(from_reports, "summary", "repeats"), 80);
	ck_assert_int_eq(ri(from_reports, "summary", "reports"), 2);
	expect_fleet_rows(from_reports);
	json_t *a = json_object_get(from_server, "activities"), *b = json_object_get(from_reports, "activities");
	char *da = json_dumps(a, JSON_SORT_KEYS), *db = json_dumps(b, JSON_SORT_KEYS);
	ck_assert_str_eq(da, db);
	free(da);
	free(db);
	json_decref(from_server);
	json_decref(from_reports);
	testlib_output_free(&o);
	testlib_output_free(&server);
	testlib_output_free(&saved);
	testlib_remove_tree(dir);
}
END_TEST

/* A run object as a report writes it, with one invocation of X of the
 * given attempts (failed ambiguous but the last) and, when suspect, the
 * finding that says so. */
static char *run_line(const char *project, const char *run, int attempts, const char *msg, const char *extra)
{
	char att[2048] = "";
	for (int i = 0; i < attempts; i++) {
		size_t used = strlen(att);
		snprintf(
			att + used, sizeof att - used,
			"%s{\"task_scheduled_id\":%d,\"outcome\":\"%s\",\"failure_class\":%s,\"error_message\":%s}",
			i ? "," : "", i, i + 1 < attempts ? "failed" : "completed",
			i + 1 < attempts ? "\"ambiguous\"" : "null", i + 1 < attempts ? msg : "null");
	}
	char *line;
	ck_assert_int_ge(
		asprintf(&line,
			 "{%s\"app_id\":\"a\",\"run_id\":\"%s\",\"project\":{\"name\":\"%s\"},\"started_at\":"
			 "\"2026-11-20T10:00:00Z\",\"console_link\":null,\"link_note\":\"kept out\",\"counts\":{},"
			 "\"activities\":[{\"name\":\"X\",\"attempts\":[%s]}],\"findings\":[%s]}\n",
			 extra, run, project, att,
			 attempts > 1 ? "{\"kind\":\"ambiguous_failure_retried\",\"severity\":\"suspect\","
					"\"activity\":\"X\",\"remedy\":\"Key it.\"}"
				      : ""),
		0);
	return line;
}

static void write_lines(const char *path, char **lines, size_t n, time_t mtime)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	for (size_t i = 0; i < n; i++) {
		fputs(lines[i], m);
		free(lines[i]);
	}
	fclose(m);
	write_file(path, text, len, mtime);
	free(text);
}

START_TEST(latest_report_wins_and_projects_stay_apart)
{
	char dir[256], older[300], newer[300];
	testlib_make_tmpdir(dir, sizeof dir, "stats-latest");
	snprintf(older, sizeof older, "%s/b-older.jsonl", dir);
	snprintf(newer, sizeof newer, "%s/a-newer.jsonl", dir);
	for (int swap = 0; swap < 2; swap++) {
		/* r1 of p1: re-executed in one report, clean in the other; r1 of
		 * p2 (another project, the same ids) re-executed. Lines of other
		 * types (a later version's) are passed over. */
		write_lines(older,
			    (char *[]){run_line("p1", "r1", 3, "\"read timed out\"", ""),
				       strdup("{\"type\":\"finding\",\"kind\":\"reexecuted\"}\n")},
			    2, swap ? 1700090000 : 1700000000);
		write_lines(newer,
			    (char *[]){run_line("p1", "r1", 1, "null", "\"type\":\"run\","),
				       run_line("p2", "r1", 2, "\"503\"", "")},
			    2, swap ? 1700000000 : 1700090000);
		struct testlib_output o;
		cli(&o, (const char *[]){"stats", older, newer, "-o", "json", NULL});
		ck_assert_msg(o.status == 1, "status %d: %s %s", o.status, o.out, o.err);
		json_t *doc = parse(&o);
		ck_assert_int_eq(ri(doc, "summary", "runs"), 2);
		ck_assert_int_eq(ri(doc, "summary", "repeats"), 1);
		ck_assert_int_eq(ri(doc, "summary", "projects"), 2);
		json_t *r0 = row(doc, 0), *r1 = row(doc, 1);
		const char *winner = swap ? "p1" : "p2";
		ck_assert_str_eq(rs(json_object_get(r0, "project"), "name"), winner);
		ck_assert_int_eq(ri(r0, "findings", "suspect"), 1);
		ck_assert_int_eq(ri(r1, "findings", "suspect"), swap ? 1 : 0);
		ck_assert_int_eq(ri(r1, "reexecuted", NULL), swap ? 1 : 0);
		/* no link to vouch for: the note says why, the link is null */
		json_t *latest = json_object_get(r0, "latest_suspect_run");
		ck_assert(json_is_null(json_object_get(latest, "console_link")));
		ck_assert_str_eq(rs(latest, "link_note"), "kept out");
		json_decref(doc);
		testlib_output_free(&o);
	}
	testlib_remove_tree(dir);
}
END_TEST

START_TEST(messages_counted_in_bounded_slots)
{
	char dir[256], path[300];
	testlib_make_tmpdir(dir, sizeof dir, "stats-msgs");
	snprintf(path, sizeof path, "%s/r.jsonl", dir);
	/* 30 runs fail with one message, then 12 with a message each: the table
	 * of 8 keeps the frequent one first, and says its counts are estimates. */
	char *lines[42];
	for (int i = 0; i < 42; i++) {
		char run[16], msg[64];
		snprintf(run, sizeof run, "r%d", i);
		if (i < 30)
			snprintf(msg, sizeof msg, "\"deadline exceeded\"");
		else
			snprintf(msg, sizeof msg, "\"order %d: connection reset\"", i);
		lines[i] = run_line("p", run, 2, msg, "");
	}
	write_lines(path, lines, 42, 1700000000);
	struct testlib_output o;
	cli(&o, (const char *[]){"stats", path, "-o", "json", NULL});
	json_t *doc = parse(&o);
	json_t *f0 = json_array_get(json_object_get(row(doc, 0), "failures"), 0);
	ck_assert_int_eq(ri(f0, "attempts", NULL), 42);
	ck_assert(json_is_true(json_object_get(f0, "estimated")));
	json_t *m0 = json_array_get(json_object_get(f0, "messages"), 0);
	ck_assert_str_eq(rs(m0, "message"), "deadline exceeded");
	ck_assert_int_eq(ri(m0, "count", NULL), 30);
	ck_assert_uint_eq(json_array_size(json_object_get(f0, "messages")), 3);
	json_decref(doc);
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

/* stats --by-version: one row per activity and the workflow version its
 * run was last started under (Dapr 1.17+), from saved reports of the
 * runtime-derived fixtures; a run whose history names no version is its
 * own row, said as such, never an empty version. Without the option the
 * rows carry no version at all. */
START_TEST(rows_by_workflow_version)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "stats-version");
	static const char *const fixtures[] = {"l1-versioned-patched-stall.proto.json",
					       "l2-stalled-version-not-available.catalyst.json",
					       "a-clean-activity.catalyst.json"};
	for (size_t i = 0; i < 3; i++) {
		char in[300], out[300];
		snprintf(in, sizeof in, "tests/fixtures/%s", fixtures[i]);
		snprintf(out, sizeof out, "%s/r%zu.json", dir, i);
		struct testlib_output o;
		cli(&o, (const char *[]){"file", testlib_src(in), "-o", "json", "--output-file", out, NULL});
		ck_assert_msg(o.status == 0, "%s: %d %s", fixtures[i], o.status, o.err);
		testlib_output_free(&o);
	}
	static const struct {
		const char *name, *version;
	} want[] = {{"ReserveStock", "v2"},
		    {"BookCarrier", "v2"},
		    {"RenderInvoice", "v1"},
		    {"ReserveInventory", NULL},
		    {"ValidateOrder", NULL}};
	struct testlib_output o;
	cli(&o, (const char *[]){"stats", dir, "-o", "json", "--by-version", NULL});
	json_t *doc = parse(&o);
	json_t *rows = json_object_get(doc, "activities");
	ck_assert_uint_eq(json_array_size(rows), 5);
	for (size_t w = 0; w < 5; w++) {
		bool found = false;
		size_t i;
		json_t *r;
		json_array_foreach(rows, i, r) {
			if (strcmp(rs(r, "name"), want[w].name) != 0)
				continue;
			found = true;
			json_t *v = json_object_get(r, "version");
			ck_assert_msg(v != NULL, "%s: no version key", want[w].name);
			if (want[w].version)
				ck_assert_str_eq(json_string_value(v), want[w].version);
			else
				ck_assert_msg(json_is_null(v), "%s: version not null", want[w].name);
		}
		ck_assert_msg(found, "no row for %s", want[w].name);
	}
	json_decref(doc);
	testlib_output_free(&o);
	cli(&o, (const char *[]){"stats", dir, "--by-version", NULL});
	ck_assert_msg(strstr(o.out, "ReserveStock [version v2]"), "%s", o.out);
	ck_assert_msg(strstr(o.out, "ValidateOrder [no version]"), "%s", o.out);
	testlib_output_free(&o);
	cli(&o, (const char *[]){"stats", dir, "-o", "json", NULL});
	doc = parse(&o);
	ck_assert_ptr_null(json_object_get(row(doc, 0), "version"));
	json_decref(doc);
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

START_TEST(outside_text_is_escaped)
{
	char dir[256], path[300];
	testlib_make_tmpdir(dir, sizeof dir, "stats-esc");
	snprintf(path, sizeof path, "%s/r.jsonl", dir);
	char *line = run_line("p", "r\\u001b[2J", 2, "\"boom\\u001b]8;;http://x\\u0007 | *x*\"", "");
	/* the activity's name too */
	char *at;
	while ((at = strstr(line, "\"X\"")))
		memcpy(at, "\"\x01\"", 3);
	char *fixed = NULL;
	{
		/* \x01 stands for an escape sequence in the name */
		size_t len = strlen(line);
		fixed = malloc(len * 2 + 1);
		char *w = fixed;
		for (char *p = line; *p; p++) {
			if (*p == '\x01') {
				memcpy(w, "Pay\\u001b[31m", 13);
				w += 13;
			} else {
				*w++ = *p;
			}
		}
		*w = '\0';
		free(line);
	}
	write_lines(path, (char *[]){fixed}, 1, 1700000000);
	static const char *const formats[] = {"text", "markdown"};
	for (int i = 0; i < 2; i++) {
		struct testlib_output o;
		cli(&o, (const char *[]){"stats", path, "-o", formats[i], NULL});
		ck_assert_int_eq(o.status, 1);
		ck_assert_msg(!strchr(o.out, '\x1b') && !strchr(o.out, '\a'), "%s", o.out);
		ck_assert_ptr_nonnull(strstr(o.out, "\\x1b"));
		if (i == 1)
			ck_assert_ptr_nonnull(strstr(o.out, "\\| \\*x\\*"));
		testlib_output_free(&o);
	}
	testlib_remove_tree(dir);
}
END_TEST

START_TEST(what_is_not_a_report)
{
	char dir[256], path[300], empty[300];
	testlib_make_tmpdir(dir, sizeof dir, "stats-bad");
	snprintf(path, sizeof path, "%s/x.json", dir);
	snprintf(empty, sizeof empty, "%s/empty", dir);
	ck_assert_int_eq(mkdir(empty, 0700), 0);
	const char *other = "{\"schema\":\"catalyst-audit.stats/v1\",\"runs\":[]}\n";
	write_file(path, other, strlen(other), 1700000000);
	struct testlib_output o;
	cli(&o, (const char *[]){"stats", path, NULL});
	ck_assert_int_eq(o.status, 6);
	ck_assert_ptr_nonnull(strstr(o.err, "x.json:1: a catalyst-audit.stats/v1 document"));
	testlib_output_free(&o);
	const char *no_run = "{\"runs\": [\n{\"run_id\": 1}]}\n";
	write_file(path, no_run, strlen(no_run), 1700000000);
	cli(&o, (const char *[]){"stats", path, NULL});
	ck_assert_msg(o.status == 6, "%d %s", o.status, o.err);
	testlib_output_free(&o);
	cli(&o, (const char *[]){"stats", empty, NULL});
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "holds no .json or .jsonl report"));
	testlib_output_free(&o);
	cli(&o, (const char *[]){"stats", "--limit", "5", path, NULL});
	ck_assert_int_eq(o.status, 2);
	testlib_output_free(&o);
	cli(&o, (const char *[]){"stats", "--findings-only", NULL});
	ck_assert_int_eq(o.status, 2);
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	struct testlib_group *tc = testlib_group("fleet");
	testlib_group_timeout(tc, 300);
	add_test(tc, fleet_ranked_first);
	add_test(tc, same_ranking_from_saved_reports);
	add_test(tc, rows_by_workflow_version);
	add_test(tc, listing_cut_short_is_partial);
	testlib_suite_add(s, tc);
	tc = testlib_group("reports");
	testlib_group_timeout(tc, 120);
	add_test(tc, latest_report_wins_and_projects_stay_apart);
	add_test(tc, messages_counted_in_bounded_slots);
	add_test(tc, outside_text_is_escaped);
	add_test(tc, what_is_not_a_report);
	testlib_suite_add(s, tc);
	return s;
}

int main(void)
{
	return testlib_main(stats_suite());
}
