/* Hostile input through `catalyst-audit file`: a history of 1,000,001
 * events, a 100 MB string value, 10,000-deep nesting, and server-supplied
 * strings carrying terminal escapes, bidi controls and carriage returns.
 * Each gives a clear error (exit 6 naming the byte) or a correct report,
 * within a stated memory bound, and never a crash.
 *
 * Inputs are generated into a temporary directory. The binary runs through
 * our own fork/exec so wait4() hands back its peak RSS (ru_maxrss). Linux
 * carries a process's peak across execve, so ru_maxrss is at least the
 * test process's own (a few MiB here: inputs are written in chunks and
 * outputs read after the run), far below every bound. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define DEADLINE_S 240

static char tmpdir[256];

/* An unchecked fixture: made and removed by the runner itself, so a failed
 * test leaves no files behind. */
static void tmpdir_make(void)
{
	testlib_make_tmpdir(tmpdir, sizeof tmpdir, "hostile");
}

static void tmpdir_remove(void)
{
	testlib_remove_tree(tmpdir);
}

struct measured {
	struct testlib_measured run;
	char *out, *err;
	size_t out_len, err_len;
};

static void measured_free(struct measured *m)
{
	free(m->out);
	free(m->err);
	memset(m, 0, sizeof *m);
}

/* Runs catalyst-audit ARGS with stdout and stderr captured to files. */
static void run_cli(char *const args[], struct measured *m)
{
	char out_path[512], err_path[512];
	snprintf(out_path, sizeof out_path, "%s/stdout", tmpdir);
	snprintf(err_path, sizeof err_path, "%s/stderr", tmpdir);
	char *argv[32];
	int n = 0;
	argv[n++] = (char *)testlib_env("CA_BINARY");
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	/* The RSS of ASan's quarantine of freed blocks is not ours either (a
	 * no-op without ASan). */
	char asan[512];
	const char *prev = getenv("ASAN_OPTIONS");
	snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%squarantine_size_mb=1", prev ? prev : "",
		 prev && *prev ? ":" : "");
	char *env[] = {asan, "NO_COLOR=1", NULL};

	memset(m, 0, sizeof *m);
	bool timed_out;
	ck_assert_int_eq(testlib_spawn_measured(argv, env, out_path, err_path, DEADLINE_S, &m->run, &timed_out),
			 0);
	ck_assert_msg(!timed_out, "catalyst-audit did not finish within %d s", DEADLINE_S);
	m->out = testlib_read_file(out_path, &m->out_len);
	m->err = testlib_read_file(err_path, &m->err_len);
	ck_assert_ptr_nonnull(m->out);
	ck_assert_ptr_nonnull(m->err);
	unlink(out_path);
	unlink(err_path);
	ck_assert_msg(m->run.status < 128, "catalyst-audit died of signal %d; stderr: %.1000s",
		      m->run.status - 128, m->err);
}

/* Whether the binary was built with AddressSanitizer: it imports (or
 * carries) the runtime's entry point. */
static bool binary_has_asan(void)
{
	size_t len = 0;
	char *bin = testlib_read_file(testlib_env("CA_BINARY"), &len);
	ck_assert_ptr_nonnull(bin);
	bool asan = memmem(bin, len, "__asan_init", 11) != NULL;
	free(bin);
	return asan;
}

/* The memory bound, for an input of n bytes. The tool reads the whole
 * file (1x), tokenizes it, and keeps one event per record and one attempt
 * per activity: with the compact records here (~135 bytes each) that is
 * about 4.6x the input at 1,000,001 events and 3x for one 100 MB string.
 * 6x + 64 MB bounds it linearly: no copy per nesting level, no quadratic
 * growth, no unbounded buffering. ASan's shadow memory and redzones add a
 * constant factor: 3x more there. */
static long rss_bound_kb(size_t n_bytes)
{
	double kb = 6.0 * (double)n_bytes / 1024.0 + 64.0 * 1024.0;
	if (binary_has_asan())
		kb *= 3.0;
	return (long)kb;
}

static size_t file_size(const char *path)
{
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	return (size_t)st.st_size;
}

/* ---- 1,000,001 events ---------------------------------------------------- */

/* 499,998 clean activities with distinct names, then one activity failed
 * with a connection error and scheduled again under the same execution id:
 * 1 + 2 * 499,998 + 4 = 1,000,001 events, 499,999 activities, 1 re-executed.
 * Compact JSON: ~135 MB. */
#define CLEAN_ACTIVITIES 499998

static void write_million(const char *path)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[{\"event_id\":-1,\"timestamp\":\"2026-09-14T09:12:03.401Z\",\"event_type\":\"ExecutionStarted\","
	      "\"name\":\"Big\",\"workflow_instance_instance_id\":\"big-1\"}",
	      f);
	for (int i = 0; i < CLEAN_ACTIVITIES; i++)
		fprintf(f,
			",{\"event_id\":%d,\"timestamp\":\"2026-09-14T09:12:03.447Z\",\"event_type\":\"TaskScheduled\","
			"\"name\":\"A%d\",\"task_execution_id\":\"t%d\"}"
			",{\"event_id\":-1,\"timestamp\":\"2026-09-14T09:12:03.689Z\",\"event_type\":\"TaskCompleted\","
			"\"task_scheduled_id\":%d,\"task_execution_id\":\"t%d\"}",
			i, i, i, i, i);
	int k = CLEAN_ACTIVITIES;
	fprintf(f,
		",{\"event_id\":%d,\"timestamp\":\"2026-09-14T09:12:04.000Z\",\"event_type\":\"TaskScheduled\","
		"\"name\":\"Charge\",\"task_execution_id\":\"tz\"}"
		",{\"event_id\":-1,\"timestamp\":\"2026-09-14T09:12:05.000Z\",\"event_type\":\"TaskFailed\","
		"\"task_scheduled_id\":%d,\"task_execution_id\":\"tz\",\"failure_details_error_message\":"
		"\"connection reset\",\"failure_details_error_type\":\"ConnectionError\"}"
		",{\"event_id\":%d,\"timestamp\":\"2026-09-14T09:12:06.000Z\",\"event_type\":\"TaskScheduled\","
		"\"name\":\"Charge\",\"task_execution_id\":\"tz\"}"
		",{\"event_id\":-1,\"timestamp\":\"2026-09-14T09:12:07.000Z\",\"event_type\":\"TaskCompleted\","
		"\"task_scheduled_id\":%d,\"task_execution_id\":\"tz\"}]",
		k, k, k + 1, k + 1);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(million_events)
{
	char path[512];
	snprintf(path, sizeof path, "%s/million.catalyst.json", tmpdir);
	write_million(path);
	size_t size = file_size(path);
	/* Markdown: the smallest rendering of 500,000 activities. */
	char *args[] = {"--format", "markdown", "file", path, NULL};
	struct measured m;
	run_cli(args, &m);
	unlink(path);
	long bound = rss_bound_kb(size);
	fprintf(stderr, "1,000,001 events: input %zu bytes, %.1f s, peak RSS %ld KiB (bound %ld KiB), status %d\n",
		size, m.run.wall_s, m.run.maxrss_kb, bound, m.run.status);
	/* The one re-execution is a suspect finding: exit 1. */
	ck_assert_msg(m.run.status == 1, "status %d; stderr: %.1000s", m.run.status, m.err);
	ck_assert_msg(strstr(m.out, "**Summary:** 1 run, 499999 activities, 1 re-executed"), "summary: %.300s",
		      m.out);
	ck_assert_ptr_nonnull(strstr(m.out, "| History | 1000001 events, 1 generation |"));
	ck_assert_ptr_nonnull(strstr(m.out, "Charge"));
	ck_assert_int_lt(m.run.maxrss_kb, bound);
	measured_free(&m);
}
END_TEST

/* ---- a 100 MB string ------------------------------------------------------ */

#define BIG_STRING (100u * 1024 * 1024)

START_TEST(hundred_mb_string)
{
	char path[512];
	snprintf(path, sizeof path, "%s/big-string.catalyst.json", tmpdir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[{\"event_id\":-1,\"timestamp\":\"2026-09-14T09:12:03.401Z\",\"event_type\":\"ExecutionStarted\","
	      "\"name\":\"Big\",\"workflow_instance_instance_id\":\"big-1\"},"
	      "{\"event_id\":0,\"timestamp\":\"2026-09-14T09:12:03.447Z\",\"event_type\":\"TaskScheduled\","
	      "\"name\":\"Huge\",\"task_execution_id\":\"t0\"},"
	      "{\"event_id\":-1,\"timestamp\":\"2026-09-14T09:12:03.689Z\",\"event_type\":\"TaskFailed\","
	      "\"task_scheduled_id\":0,\"task_execution_id\":\"t0\",\"failure_details_error_message\":\"",
	      f);
	char chunk[4096];
	memset(chunk, 'x', sizeof chunk);
	memcpy(chunk, "HEAD-", 5);
	for (size_t done = 0; done < BIG_STRING; done += sizeof chunk) {
		ck_assert_uint_eq(fwrite(chunk, 1, sizeof chunk, f), sizeof chunk);
		chunk[0] = 'x';
		memset(chunk, 'x', 5);
	}
	fputs("\"}]", f);
	ck_assert_int_eq(fclose(f), 0);
	size_t size = file_size(path);

	char *args[] = {"--format", "text", "file", path, NULL};
	struct measured m;
	run_cli(args, &m);
	unlink(path);
	long bound = rss_bound_kb(size);
	fprintf(stderr, "100 MB string: input %zu bytes, %.1f s, peak RSS %ld KiB (bound %ld KiB), status %d\n",
		size, m.run.wall_s, m.run.maxrss_kb, bound, m.run.status);
	/* One failed attempt, nothing re-executed: a clean report. */
	ck_assert_msg(m.run.status == 0, "status %d; stderr: %.1000s", m.run.status, m.err);
	ck_assert_ptr_nonnull(strstr(m.out, "Summary: 1 run, 1 activity, 0 re-executed"));
	/* The message is shown, cut short: a terminal report stays readable. */
	ck_assert_ptr_nonnull(strstr(m.out, "HEAD-xxxx"));
	ck_assert_uint_lt(m.out_len, 64 * 1024);
	ck_assert_int_lt(m.run.maxrss_kb, bound);
	measured_free(&m);
}
END_TEST

/* ---- 10,000-deep nesting -------------------------------------------------- */

#define DEEP 10000

/* A prefix, DEEP openers, the matching closers, a suffix. */
static char *deep_doc(const char *prefix, const char *open, const char *inner, const char *close,
		      const char *suffix, size_t *first_open)
{
	size_t cap = strlen(prefix) + DEEP * (strlen(open) + strlen(close)) + strlen(inner) + strlen(suffix) + 1;
	char *s = malloc(cap), *p = s;
	ck_assert_ptr_nonnull(s);
	p = stpcpy(p, prefix);
	*first_open = (size_t)(p - s);
	for (int i = 0; i < DEEP; i++)
		p = stpcpy(p, open);
	p = stpcpy(p, inner);
	for (int i = 0; i < DEEP; i++)
		p = stpcpy(p, close);
	stpcpy(p, suffix);
	return s;
}

static const char EV_PREFIX[] = "[{\"event_id\":-1,\"timestamp\":\"2026-09-14T09:12:03.401Z\","
				"\"event_type\":\"ExecutionStarted\",\"name\":\"Deep\",\"input\":";

static const struct {
	const char *what, *prefix, *open, *inner, *close, *suffix;
	int extra_depth; /* nesting levels the prefix opens */
} deep_cases[] = {
	{"bare arrays", "", "[", "", "]", "", 0},
	{"objects in an input", EV_PREFIX, "{\"a\":", "1", "}", "}]", 2},
	{"arrays in an input", EV_PREFIX, "[", "", "]", "}]", 2},
	{"arrays in a string field", "[{\"event_type\":", "[", "", "]", "}]", 2},
};

START_TEST(deep_nesting)
{
	char path[512];
	snprintf(path, sizeof path, "%s/deep.json", tmpdir);
	size_t first_open = 0;
	char *doc = deep_doc(deep_cases[_i].prefix, deep_cases[_i].open, deep_cases[_i].inner,
			     deep_cases[_i].close, deep_cases[_i].suffix, &first_open);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(doc, f);
	ck_assert_int_eq(fclose(f), 0);

	char *args[] = {"--format", "json", "file", path, NULL};
	struct measured m;
	run_cli(args, &m);
	unlink(path);
	fprintf(stderr, "10,000 deep (%s): %.2f s, peak RSS %ld KiB, status %d: %.200s", deep_cases[_i].what,
		m.run.wall_s, m.run.maxrss_kb, m.run.status, m.err);
	/* A clear error: not JSON we accept, at the byte where the limit hit. */
	ck_assert_int_eq(m.run.status, 6);
	ck_assert_uint_eq(m.out_len, 0);
	const char *at = strstr(m.err, "at byte ");
	ck_assert_msg(at, "no byte position: %s", m.err);
	unsigned long pos = strtoul(at + 8, NULL, 10);
	/* The position is one of our openers, past the depth limit, and the
	 * byte there is an opener. */
	ck_assert_uint_ge(pos, first_open);
	ck_assert_uint_lt(pos, first_open + DEEP * strlen(deep_cases[_i].open));
	ck_assert_msg(doc[pos] == deep_cases[_i].open[0], "byte %lu is '%c'", pos, doc[pos]);
	ck_assert_ptr_nonnull(strstr(m.err, "nested deeper"));
	ck_assert_int_lt(m.run.maxrss_kb, rss_bound_kb(strlen(doc)));
	free(doc);
	measured_free(&m);
}
END_TEST

/* Nesting within the limit is an ordinary payload: the report is made. */
START_TEST(moderate_nesting_is_fine)
{
	char path[512];
	snprintf(path, sizeof path, "%s/moderate.json", tmpdir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(EV_PREFIX, f);
	for (int i = 0; i < 100; i++)
		fputs("{\"a\":", f);
	fputs("1", f);
	for (int i = 0; i < 100; i++)
		fputs("}", f);
	fputs(",\"workflow_instance_instance_id\":\"deep-1\"}]", f);
	ck_assert_int_eq(fclose(f), 0);
	char *args[] = {"--format", "text", "file", path, NULL};
	struct measured m;
	run_cli(args, &m);
	unlink(path);
	ck_assert_msg(m.run.status == 0, "status %d: %s", m.run.status, m.err);
	ck_assert_ptr_nonnull(strstr(m.out, "Run deep-1  Deep"));
	ck_assert_ptr_nonnull(strstr(m.out, "Summary: 1 run, 0 activities"));
	measured_free(&m);
}
END_TEST

/* ---- escapes, bidi controls, carriage returns ------------------------------ */

/* No raw ESC, CSI (C1), BEL, CR, or bidi override/embedding/isolate. */
static void assert_neutral(const char *what, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		ck_assert_msg(c != 0x1b && c != 0x07 && c != '\r', "%s: raw control 0x%02x at byte %zu", what, c,
			      i);
		if (c == 0xc2 && i + 1 < n)
			ck_assert_msg((unsigned char)s[i + 1] < 0x80 || (unsigned char)s[i + 1] > 0x9f,
				      "%s: raw C1 control at byte %zu", what, i);
		if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80) {
			unsigned char d = (unsigned char)s[i + 2];
			ck_assert_msg(!(d >= 0xaa && d <= 0xae), "%s: raw bidi control at byte %zu", what, i);
		}
		if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x81) {
			unsigned char d = (unsigned char)s[i + 2];
			ck_assert_msg(!(d >= 0xa6 && d <= 0xa9), "%s: raw bidi isolate at byte %zu", what, i);
		}
	}
}

static const struct {
	const char *format;
	const char *expect[4]; /* escaped forms that must appear */
} escape_cases[] = {
	{"text",
	 {"evil-\\u202eeulav\\u202c-\\r7", "Pay\\x1b[2J\\x1b[HWorkflow", "timeout\\r\\x1b[2Kall good", NULL}},
	{"markdown", {"\\u202e", "\\x1b", "&lt;script&gt;", NULL}},
};

START_TEST(escapes_neutralised)
{
	const char *path = testlib_src("tests/fixtures/hostile-escapes.catalyst.json");
	char *args[] = {"--format", (char *)escape_cases[_i].format, "file", (char *)path, NULL};
	struct measured m;
	run_cli(args, &m);
	ck_assert_msg(m.run.status == 1, "status %d: %s", m.run.status, m.err);
	assert_neutral(escape_cases[_i].format, m.out, m.out_len);
	assert_neutral("stderr", m.err, m.err_len);
	for (int k = 0; k < 4 && escape_cases[_i].expect[k]; k++)
		ck_assert_msg(strstr(m.out, escape_cases[_i].expect[k]), "%s: missing %s", escape_cases[_i].format,
			      escape_cases[_i].expect[k]);
	measured_free(&m);
}
END_TEST

/* ---- duplicate keys, byte order marks ------------------------------------ */

/* A history that says two things at once: the second "name" would win in a
 * last-wins reader (jq, Python), the first in a first-wins one. */
START_TEST(duplicate_key_refused)
{
	const char *path = testlib_src("tests/regress/history/handmade-duplicate-key-event.json");
	size_t len = 0;
	char *doc = testlib_read_file(path, &len);
	ck_assert_ptr_nonnull(doc);
	char *args[] = {"--format", "json", "file", (char *)path, NULL};
	struct measured m;
	run_cli(args, &m);
	ck_assert_msg(m.run.status == 6, "status %d: %s", m.run.status, m.err);
	ck_assert_uint_eq(m.out_len, 0);
	char want[128];
	snprintf(want, sizeof want, "duplicate key \"name\" at byte %zu (first at byte %zu)",
		 (size_t)(strstr(doc, "\"name\":\"Refund\"") - doc),
		 (size_t)(strstr(doc, "\"name\":\"Charge\"") - doc));
	ck_assert_msg(strstr(m.err, want), "%s (want %s)", m.err, want);
	measured_free(&m);
	free(doc);
}
END_TEST

/* A UTF-8 byte order mark (Notepad, PowerShell's Out-File) is skipped, from
 * a file and from standard input. */
START_TEST(byte_order_mark_skipped)
{
	const char *path = testlib_src("tests/regress/history/handmade-bom.json");
	char *args[] = {"--format", "text", "file", (char *)path, NULL};
	struct measured m;
	run_cli(args, &m);
	ck_assert_msg(m.run.status == 1, "status %d: %s", m.run.status, m.err);
	ck_assert_ptr_nonnull(strstr(m.out, "re-executed"));
	size_t len = 0;
	char *doc = testlib_read_file(path, &len);
	ck_assert_ptr_nonnull(doc);
	ck_assert_int_eq(memcmp(doc, "\xef\xbb\xbf", 3), 0);
	char *stdin_args[] = {"--format", "text", "file", "-", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(stdin_args, NULL, doc, 60000, &o), 0);
	ck_assert_msg(o.status == 1, "stdin: status %d: %s", o.status, o.err);
	/* the same report, but for where it came from */
	const char *a = strstr(m.out, "Summary:"), *b = strstr(o.out, "Summary:");
	ck_assert(a && b);
	ck_assert_str_eq(a, b);
	testlib_output_free(&o);
	measured_free(&m);
	free(doc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("hostile");
	tcase_set_timeout(tc, 600);
	tcase_add_unchecked_fixture(tc, tmpdir_make, tmpdir_remove);
	tcase_add_test(tc, million_events);
	tcase_add_test(tc, hundred_mb_string);
	tcase_add_loop_test(tc, deep_nesting, 0, (int)(sizeof deep_cases / sizeof *deep_cases));
	tcase_add_test(tc, moderate_nesting_is_fine);
	tcase_add_loop_test(tc, escapes_neutralised, 0, (int)(sizeof escape_cases / sizeof *escape_cases));
	tcase_add_test(tc, duplicate_key_refused);
	tcase_add_test(tc, byte_order_mark_skipped);
	suite_add_tcase(s, tc);
	return testlib_main(s);
}
