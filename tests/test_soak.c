/* meson-test: integration slow serial peers */
/* Fault-injection soak: `catalyst-audit runs --format json` over 200 and
 * then 1,000 generated runs of the Catalyst simulator, with 5% of tool
 * calls failing at random (503 + Retry-After, reset mid-body, truncated
 * body, session expiry, a response slower than our --timeout, an
 * `unfilterable` refusal). Everything is on 127.0.0.1 and bounded: the
 * faults apply to the run fetches (catalyst_get_workflow_run, 1 call per
 * run, so the call accounting below is exact), the simulator answers with
 * no added latency, our --timeout (2 s) is far
 * below its slow delay (20 s), and it exits by itself after 240 s.
 *
 * What it proves, for each run count:
 * - nothing is lost: every listed run is in the report exactly once, either
 *   audited or failed with a reason, and the counts add up to the summary;
 * - transient failures were retried: the simulator faulted calls of runs
 *   that the report shows audited;
 * - no refusal was retried: every call that reached the simulator's tool is
 *   in its call log, and that log holds exactly one call per run plus one
 *   per reset/truncated call (the only faulted calls that reach the tool);
 *   a retried refusal would add a call;
 * - the exit status reflects the failures (with --fail-on never, so
 *   findings do not mask it);
 * - memory stays flat: the peak RSS of the 1,000-run audit is under twice
 *   that of the 200-run audit (see rss_bound below).
 *
 * The binary runs through our own fork/exec (from a spawner process, see
 * below) so wait4() hands back its rusage (ru_maxrss), which testlib_run
 * does not expose. */

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define JOBS "8"
#define OUR_TIMEOUT_S "2"
#define SIM_SLOW_MS "20000"
#define FAIL_RATE "0.05"
#define FAIL_KINDS "503,reset,truncate,expire,slow,unfilterable"
#define RUN_DEADLINE_S 240

/* The spawner: a process forked before the test allocates anything, that
 * forks and execs each measured run for it. Linux carries a process's
 * peak RSS across execve (it becomes the floor of ru_maxrss), so a child
 * forked from the test process itself would report at least the test's
 * own peak (large under ASan, after reading a 90 MB report); a child of the
 * spawner starts from the spawner's few MiB, the same for every run.
 * Requests are NUL-separated strings: out, err, deadline, argv..., "",
 * env..., "". */
struct spawner {
	pid_t pid;
	int req, rep;
};

struct spawn_reply {
	struct testlib_measured m;
	bool timed_out;
};

static void spawner_serve(int req, int rep)
{
	for (;;) {
		uint32_t len;
		if (read(req, &len, sizeof len) != (ssize_t)sizeof len)
			_exit(0);
		char *blob = malloc(len + 1);
		size_t got = 0;
		while (blob && got < len) {
			ssize_t r = read(req, blob + got, len - got);
			if (r <= 0)
				_exit(1);
			got += (size_t)r;
		}
		if (!blob)
			_exit(1);
		blob[len] = '\0';
		char *strs[128];
		size_t n = 0;
		for (char *p = blob; p < blob + len && n < 127; p += strlen(p) + 1)
			strs[n++] = p;
		strs[n] = NULL;
		/* strs: out, err, deadline, argv..., "", env..., "" */
		size_t k = 3;
		char **argv = &strs[k];
		while (k < n && strs[k][0])
			k++;
		strs[k] = NULL; /* ends argv (was "") */
		char **env = &strs[k + 1];
		size_t j = k + 1;
		while (j < n && strs[j][0])
			j++;
		if (j <= n)
			strs[j] = NULL;
		struct spawn_reply r;
		memset(&r, 0, sizeof r);
		testlib_spawn_measured(argv, env, strs[0], strs[1], atoi(strs[2]), &r.m, &r.timed_out);
		free(blob);
		if (write(rep, &r, sizeof r) != (ssize_t)sizeof r)
			_exit(1);
	}
}

static void spawner_start(struct spawner *sp)
{
	int req[2], rep[2];
	ck_assert_int_eq(pipe(req), 0);
	ck_assert_int_eq(pipe(rep), 0);
	sp->pid = fork();
	ck_assert_int_ge(sp->pid, 0);
	if (sp->pid == 0) {
		close(req[1]);
		close(rep[0]);
		spawner_serve(req[0], rep[1]);
		_exit(0);
	}
	close(req[0]);
	close(rep[1]);
	sp->req = req[1];
	sp->rep = rep[0];
}

static void spawner_stop(struct spawner *sp)
{
	close(sp->req);
	close(sp->rep);
	int ws;
	waitpid(sp->pid, &ws, 0);
}

static void put(char *blob, size_t *len, size_t cap, const char *s)
{
	size_t n = strlen(s) + 1;
	ck_assert_uint_le(*len + n, cap);
	memcpy(blob + *len, s, n);
	*len += n;
}

static void run_measured(struct spawner *sp, char *const argv[], char *const env_extra[], const char *out_path,
			 const char *err_path, int deadline_s, struct testlib_measured *m)
{
	static char blob[16384];
	size_t len = 0;
	char deadline[16];
	snprintf(deadline, sizeof deadline, "%d", deadline_s);
	put(blob, &len, sizeof blob, out_path);
	put(blob, &len, sizeof blob, err_path);
	put(blob, &len, sizeof blob, deadline);
	for (char *const *a = argv; *a; a++)
		put(blob, &len, sizeof blob, *a);
	put(blob, &len, sizeof blob, "");
	for (char *const *e = env_extra; e && *e; e++)
		put(blob, &len, sizeof blob, *e);
	put(blob, &len, sizeof blob, "");
	uint32_t l = (uint32_t)len;
	ck_assert_int_eq(write(sp->req, &l, sizeof l), (ssize_t)sizeof l);
	ck_assert_int_eq(write(sp->req, blob, len), (ssize_t)len);
	struct spawn_reply r;
	ck_assert_int_eq(read(sp->rep, &r, sizeof r), (ssize_t)sizeof r);
	ck_assert_msg(!r.timed_out, "%s did not finish within %d s", argv[0], deadline_s);
	*m = r.m;
}

/* ---- reading a large report without holding it as one json_t ------------ */

/* Calls fn on each element of the top-level "runs" array and on the
 * top-level "summary" object, each parsed on its own: the 1,000-run report
 * is ~90 MB of JSON, too big to want as one tree under ASan. */
struct report_walk {
	void (*on_run)(json_t *run, void *ctx);
	json_t *summary;
	void *ctx;
	size_t runs_seen;
};

static void walk_report(const char *text, size_t len, struct report_walk *w)
{
	int depth = 0;
	bool in_str = false, esc = false;
	size_t str_start = 0, el_start = 0;
	char key[64] = "", array_key[64] = "";
	for (size_t i = 0; i < len; i++) {
		char ch = text[i];
		if (in_str) {
			if (esc)
				esc = false;
			else if (ch == '\\')
				esc = true;
			else if (ch == '"') {
				in_str = false;
				if (depth == 1)
					snprintf(key, sizeof key, "%.*s", (int)(i - str_start - 1),
						 text + str_start + 1);
			}
			continue;
		}
		switch (ch) {
		case '"':
			in_str = true;
			str_start = i;
			break;
		case '{':
		case '[':
			if (depth == 1) {
				snprintf(array_key, sizeof array_key, "%s", key);
				el_start = i;
			} else if (depth == 2 && strcmp(array_key, "runs") == 0) {
				el_start = i;
			}
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			ck_assert_int_ge(depth, 0);
			if (depth == 2 && strcmp(array_key, "runs") == 0) {
				json_error_t je;
				json_t *run = json_loadb(text + el_start, i + 1 - el_start, 0, &je);
				ck_assert_msg(run != NULL, "run %zu is not JSON: %s", w->runs_seen, je.text);
				w->on_run(run, w->ctx);
				w->runs_seen++;
				json_decref(run);
			} else if (depth == 1 && strcmp(array_key, "summary") == 0) {
				json_error_t je;
				w->summary = json_loadb(text + el_start, i + 1 - el_start, 0, &je);
				ck_assert_msg(w->summary != NULL, "summary is not JSON: %s", je.text);
			}
			break;
		default:
			break;
		}
	}
	ck_assert_int_eq(depth, 0);
	ck_assert(!in_str);
}

/* ---- one soak ------------------------------------------------------------ */

struct tally {
	size_t n;            /* runs generated */
	unsigned char *seen; /* per generated run: times in the report */
	size_t audited, failed, failed_refusal, failed_transient;
	int status_rank;         /* the most urgent failure code, as the CLI ranks them */
	char failed_ids[64][16]; /* refused runs (for the call log check) */
	size_t n_failed_ids;
};

/* The CLI's order: 3 (sign-in/connection), 4 (data sharing), 5, 6. */
static int code_rank(int code)
{
	switch (code) {
	case 3:
		return 0;
	case 4:
		return 1;
	case 6:
		return 3;
	default:
		return 2;
	}
}

static void on_run(json_t *run, void *ctx)
{
	struct tally *t = ctx;
	const char *id = json_string_value(json_object_get(run, "run_id"));
	ck_assert_ptr_nonnull(id);
	unsigned k = 0;
	ck_assert_msg(sscanf(id, "gen-%6u", &k) == 1 && k >= 1 && k <= t->n, "unexpected run %s", id);
	t->seen[k - 1]++;
	json_t *err = json_object_get(run, "error");
	if (!json_is_object(err)) {
		/* Audited: it has its analysis. */
		ck_assert_msg(json_is_array(json_object_get(run, "activities")), "run %s: no activities", id);
		ck_assert_int_gt(json_integer_value(json_object_get(run, "events")), 0);
		t->audited++;
		return;
	}
	t->failed++;
	const char *msg = json_string_value(json_object_get(err, "message"));
	int code = (int)json_integer_value(json_object_get(err, "code"));
	ck_assert_msg(msg && *msg, "run %s failed without a reason", id);
	ck_assert_msg(code >= 3 && code <= 6, "run %s: code %d", id, code);
	if (t->status_rank < 0 || code_rank(code) < t->status_rank)
		t->status_rank = code_rank(code);
	const char *kind = json_string_value(json_object_get(err, "refusal_kind"));
	if (kind && *kind) {
		/* The only refusal the simulator injects here. */
		ck_assert_str_eq(kind, "unfilterable");
		ck_assert_int_eq(code, 4);
		ck_assert_msg(strstr(msg, "unfilterable"), "run %s: %s", id, msg);
		t->failed_refusal++;
		if (t->n_failed_ids < 64)
			snprintf(t->failed_ids[t->n_failed_ids++], sizeof t->failed_ids[0], "%s", id);
	} else {
		/* A transient failure that outlived the retries says so. */
		ck_assert_msg(strstr(msg, "attempts"), "run %s failed without retries: %s", id, msg);
		t->failed_transient++;
	}
}

/* Faults the simulator logged, per kind, for catalyst_get_workflow_run. */
struct faults {
	size_t by_kind[6];
	size_t total_get, total;
	long refusals; /* refusals the tool layer answered (stats line) */
};

static const char *const fault_kinds[6] = {"503", "reset", "truncate", "expire", "slow", "unfilterable"};

static void read_faults(const char *log_path, struct faults *f)
{
	memset(f, 0, sizeof *f);
	FILE *fp = fopen(log_path, "r");
	ck_assert_ptr_nonnull(fp);
	char line[4096];
	f->refusals = -1;
	while (fgets(line, sizeof line, fp)) {
		char kind[32], tool[128];
		const char *st = strstr(line, "stats calls=");
		if (st && (st = strstr(st, " refusals=")))
			f->refusals = strtol(st + 10, NULL, 10);
		const char *p = strstr(line, "fault ");
		if (!p || sscanf(p, "fault %31s on tools/call %127[a-z_]", kind, tool) != 2)
			continue;
		f->total++;
		if (strcmp(tool, "catalyst_get_workflow_run") != 0)
			continue;
		f->total_get++;
		for (int i = 0; i < 6; i++)
			if (strcmp(kind, fault_kinds[i]) == 0)
				f->by_kind[i]++;
	}
	fclose(fp);
}

/* Calls of catalyst_get_workflow_run that reached the tool, and how many
 * were for the given run. */
static size_t count_get_calls(const char *calls_path, const char *run_id, size_t *for_run)
{
	FILE *fp = fopen(calls_path, "r");
	ck_assert_ptr_nonnull(fp);
	char *line = NULL;
	size_t cap = 0, n = 0;
	char needle[64];
	snprintf(needle, sizeof needle, "\"%s\"", run_id ? run_id : "");
	*for_run = 0;
	while (getline(&line, &cap, fp) > 0) {
		if (!strstr(line, "\"tool\":\"catalyst_get_workflow_run\""))
			continue;
		n++;
		if (run_id && strstr(line, needle))
			(*for_run)++;
	}
	free(line);
	fclose(fp);
	return n;
}

static void soak(struct spawner *sp, size_t n_runs, unsigned seed, struct testlib_measured *m)
{
	char calls[512], simlog[512], out[512], err[512], nruns[32], seed_s[32], script[1024];
	snprintf(calls, sizeof calls, "%s/calls-%zu.jsonl", testlib_tmpdir, n_runs);
	snprintf(simlog, sizeof simlog, "%s/sim-%zu.log", testlib_tmpdir, n_runs);
	snprintf(out, sizeof out, "%s/report-%zu.json", testlib_tmpdir, n_runs);
	snprintf(err, sizeof err, "%s/stderr-%zu.txt", testlib_tmpdir, n_runs);
	snprintf(nruns, sizeof nruns, "%zu", n_runs);
	snprintf(seed_s, sizeof seed_s, "%u", seed);
	/* The simulator's stderr (its fault log) goes to a file we read. */
	snprintf(script, sizeof script, "exec \"$0\" \"$@\" 2>'%s'", simlog);

	/* One switch and its value a line. */
	/* clang-format off */
	const char *sim_argv[] = {"/bin/sh", "-c", script, testlib_node(),
				  testlib_src("tests/sim/catalyst-sim.mjs"),
				  "--runs", nruns, "--runs-project", "soak", "--latency-ms", "0",
				  "--fail-tool", "catalyst_get_workflow_run",
				  "--fail-rate", FAIL_RATE, "--fail-kinds", FAIL_KINDS, "--seed", seed_s,
				  "--slow-ms", SIM_SLOW_MS, "--record-calls", calls, "--max-seconds", "240",
				  NULL};
	/* clang-format on */
	struct testlib_server s;
	ck_assert_int_eq(testlib_server_start(&s, (char *const *)sim_argv, NULL, "LISTENING", 60000), 0);
	ck_assert(strncmp(s.url, "http://127.0.0.1:", 17) == 0);

	/* clang-format off */
	char *cli_argv[] = {(char *)testlib_env("CA_BINARY"), "--server", s.url, "--project", "soak",
			    "--jobs", JOBS, "--timeout", OUR_TIMEOUT_S, "--fail-on", "never",
			    "--format", "json", "runs", NULL};
	/* clang-format on */
	/* Peak RSS is the heap we keep, not ASan's quarantine of freed blocks
	 * (global and per thread: with 8 workers it grows with the traffic, not
	 * with what we hold). This run gives up ASan's use-after-free delay
	 * for that; test_catalyst_sim runs `runs` concurrently with it. No-op
	 * options for a build without ASan. */
	char asan[512];
	const char *prev = getenv("ASAN_OPTIONS");
	snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%squarantine_size_mb=0:thread_local_quarantine_size_kb=0",
		 prev ? prev : "", prev && *prev ? ":" : "");
	char *env[] = {"CATALYST_TOKEN=", "NO_COLOR=1", asan, NULL};
	run_measured(sp, cli_argv, env, out, err, RUN_DEADLINE_S, m);
	testlib_server_stop(&s);

	size_t len = 0, elen = 0;
	char *text = testlib_read_file(out, &len);
	char *etext = testlib_read_file(err, &elen);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(etext);
	ck_assert_msg(m->status < 128, "catalyst-audit died of signal %d; stderr: %.2000s", m->status - 128,
		      etext);
	ck_assert_msg(len > 0, "no report (status %d); stderr: %.2000s", m->status, etext);

	struct tally t = {.n = n_runs, .seen = calloc(n_runs, 1), .status_rank = -1};
	ck_assert_ptr_nonnull(t.seen);
	struct report_walk w = {.on_run = on_run, .ctx = &t};
	walk_report(text, len, &w);
	free(text);
	unlink(out);

	/* Nothing lost, nothing twice, and the counts add up. */
	ck_assert_uint_eq(w.runs_seen, n_runs);
	for (size_t i = 0; i < n_runs; i++)
		ck_assert_msg(t.seen[i] == 1, "run gen-%06zu appears %u times", i + 1, t.seen[i]);
	free(t.seen);
	ck_assert_uint_eq(t.audited + t.failed, n_runs);
	ck_assert_uint_eq(t.failed, t.failed_refusal + t.failed_transient);
	ck_assert_ptr_nonnull(w.summary);
	ck_assert_int_eq(json_integer_value(json_object_get(w.summary, "runs")), (json_int_t)n_runs);
	ck_assert_int_eq(json_integer_value(json_object_get(w.summary, "failed_runs")), (json_int_t)t.failed);
	json_decref(w.summary);

	/* The faults happened, and almost all were survived. */
	struct faults f;
	read_faults(simlog, &f);
	size_t transient_get = f.total_get - f.by_kind[5];
	fprintf(stderr,
		"soak %zu runs: %.1f s, peak RSS %ld KiB, status %d; audited %zu, failed %zu "
		"(refused %zu, transient %zu); faults %zu (%zu on get_workflow_run: 503 %zu, reset %zu, "
		"truncate %zu, expire %zu, slow %zu, unfilterable %zu)\n",
		n_runs, m->wall_s, m->maxrss_kb, m->status, t.audited, t.failed, t.failed_refusal,
		t.failed_transient, f.total, f.total_get, f.by_kind[0], f.by_kind[1], f.by_kind[2], f.by_kind[3],
		f.by_kind[4], f.by_kind[5]);
	ck_assert_msg(transient_get >= 3, "too few transient faults (%zu) to prove retries", transient_get);
	/* Each run that failed transiently used up 3 faulted attempts; every
	 * other transient fault was retried into a success. */
	ck_assert_uint_le(3 * t.failed_transient, transient_get);
	ck_assert_uint_gt(transient_get, 3 * t.failed_transient);
	/* Refusals are final: every refusal the simulator's tools answered
	 * failed its run. A retried refusal would show as one refusal more
	 * (refused again) or as a run audited after its refusal. An
	 * unfilterable fault can miss its tool when an expiry closed the
	 * session first (404, then an ordinary retry): hence <= below. */
	ck_assert_msg(f.refusals >= 0, "no stats line in the simulator log");
	ck_assert_int_eq(f.refusals, (long)t.failed_refusal);
	ck_assert_uint_le(t.failed_refusal, f.by_kind[5]);

	/* The call log: one call per run that reached the tool at its last
	 * attempt, plus one per reset/truncated call (which reached the tool
	 * and were retried). A retried refusal would be one more. */
	size_t dummy;
	size_t get_calls = count_get_calls(calls, NULL, &dummy);
	size_t cut = f.by_kind[1] + f.by_kind[2];
	ck_assert_uint_le(get_calls, n_runs + cut);
	ck_assert_uint_ge(get_calls, n_runs - t.failed_transient);
	/* Each refused run was fetched once, plus at most the cut calls. */
	for (size_t i = 0; i < t.n_failed_ids; i++) {
		size_t for_run = 0;
		count_get_calls(calls, t.failed_ids[i], &for_run);
		ck_assert_msg(for_run >= 1 && for_run <= 1 + cut, "refused run %s fetched %zu times",
			      t.failed_ids[i], for_run);
	}

	/* The exit status names the failures (findings cannot, --fail-on never). */
	if (t.failed == 0) {
		ck_assert_int_eq(m->status, 0);
	} else {
		static const int by_rank[] = {3, 4, 5, 6};
		ck_assert_int_eq(m->status, by_rank[t.status_rank]);
		char want[96];
		snprintf(want, sizeof want, "%zu of %zu runs could not be audited", t.failed, n_runs);
		ck_assert_msg(strstr(etext, want), "stderr lacks '%s': %.2000s", want, etext);
	}
	free(etext);
}

/* Memory must not grow with the run count. A report that streams (each run
 * rendered and freed once audited) holds at most --jobs analyses plus the
 * run list (~100 bytes a run), so its peak at 1,000 runs is within a few
 * hundred KiB of its peak at 200. Twice the 200-run peak leaves room for
 * allocator noise and the retry timing of 8 workers, yet any design that
 * keeps every run until the end fails it: 5 times as many analyses of
 * ~200 events each far exceed a doubling. */
static const double rss_bound = 2.0;

START_TEST(soak_flat_memory)
{
	struct testlib_measured m200, m1000;
	struct spawner sp;
	spawner_start(&sp);
	soak(&sp, 200, 7, &m200);
	soak(&sp, 1000, 11, &m1000);
	spawner_stop(&sp);
	fprintf(stderr, "peak RSS: 200 runs %ld KiB, 1000 runs %ld KiB (ratio %.2f, bound %.1f)\n", m200.maxrss_kb,
		m1000.maxrss_kb, (double)m1000.maxrss_kb / (double)m200.maxrss_kb, rss_bound);
	ck_assert_msg((double)m1000.maxrss_kb < rss_bound * (double)m200.maxrss_kb,
		      "memory grows with the run count: peak RSS %ld KiB at 1000 runs vs %ld KiB at 200",
		      m1000.maxrss_kb, m200.maxrss_kb);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("soak");
	struct testlib_group *tc = testlib_group("soak");
	testlib_group_timeout(tc, 600);
	testlib_group_unchecked_fixture(tc, testlib_tmpdir_make, testlib_tmpdir_remove);
	add_test(tc, soak_flat_memory);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
