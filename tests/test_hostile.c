/* meson-test: integration slow */
/* Hostile input through `catalyst-audit file`: a history of 1,000,001
 * events, a 100 MB string value, 10,000-deep nesting, and server-supplied
 * strings carrying terminal escapes, bidi controls and carriage returns.
 * Each gives a clear error (exit 6 naming the byte) or a correct report,
 * within a stated memory bound, and never a crash.
 *
 * And hostile servers: small HTTP servers on 127.0.0.1, forked by the test,
 * that put terminal escapes, C1 controls, bidi and zero-width characters
 * into every string the client may repeat on stderr (errors, the login
 * notice, the --verbose trace).
 *
 * Inputs are generated into a temporary directory. The binary runs through
 * our own fork/exec so wait4() hands back its peak RSS (ru_maxrss). Linux
 * carries a process's peak across execve, so ru_maxrss is at least the
 * test process's own (a few MiB here: inputs are written in chunks and
 * outputs read after the run), far below every bound. */

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define DEADLINE_S 240

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
	snprintf(out_path, sizeof out_path, "%s/stdout", testlib_tmpdir);
	snprintf(err_path, sizeof err_path, "%s/stderr", testlib_tmpdir);
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
	snprintf(path, sizeof path, "%s/million.catalyst.json", testlib_tmpdir);
	write_million(path);
	size_t size = file_size(path);
	/* Markdown: the smallest rendering of 500,000 activities. */
	char *args[] = {"--format", "markdown", "--verbose-report", "file", path, NULL};
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
	snprintf(path, sizeof path, "%s/big-string.catalyst.json", testlib_tmpdir);
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

	char *args[] = {"--format", "text", "--verbose-report", "file", path, NULL};
	struct measured m;
	run_cli(args, &m);
	unlink(path);
	long bound = rss_bound_kb(size);
	fprintf(stderr, "100 MB string: input %zu bytes, %.1f s, peak RSS %ld KiB (bound %ld KiB), status %d\n",
		size, m.run.wall_s, m.run.maxrss_kb, bound, m.run.status);
	/* One failed attempt, nothing re-executed: a clean report. */
	ck_assert_msg(m.run.status == 0, "status %d; stderr: %.1000s", m.run.status, m.err);
	ck_assert_ptr_nonnull(strstr(m.out, "Summary: CLEAN  1 run, 1 activity, 0 re-executed"));
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
	snprintf(path, sizeof path, "%s/deep.json", testlib_tmpdir);
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
	snprintf(path, sizeof path, "%s/moderate.json", testlib_tmpdir);
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
	ck_assert_ptr_nonnull(strstr(m.out, "Summary: CLEAN  1 run, 0 activities"));
	measured_free(&m);
}
END_TEST

/* ---- escapes, bidi and zero-width characters, carriage returns -------------- */

/* One string with a piece of each kind a terminal must never receive raw:
 * an OSC sequence ended by BEL, C1 CSI (U+009B) and NEL (U+0085), a bidi
 * override and isolate, zero-width space, word joiner and BOM, DEL and a
 * carriage return; and the visible form every one of them must take. */
#define HOSTILE \
	"<\x1b]0;X\x07|\xc2\x9b|\xc2\x85|\xe2\x80\xae|\xe2\x81\xa6|\xe2\x80\x8b|\xe2\x81\xa0|\xef\xbb\xbf|\x7f|\r>"
#define HOSTILE_SHOWN "<\\x1b]0;X\\x07|\\u009b|\\u0085|\\u202e|\\u2066|\\u200b|\\u2060|\\ufeff|\\x7f|\\r>"
/* Its first line: what an isError text is cut to. */
#define HOSTILE_LINE1_SHOWN "<\\x1b]0;X\\x07|\\u009b|\\u0085|\\u202e|\\u2066|\\u200b|\\u2060|\\ufeff|\\x7f|\n"
/* In an HTTP header (no CR there) and as raw bytes, with invalid UTF-8. */
#define HOSTILE_RAW \
	"<\x1b]0;X\x07|\xc2\x9b|\xc2\x85|\xe2\x80\xae|\xe2\x81\xa6|\xe2\x80\x8b|\xe2\x81\xa0|\xef\xbb\xbf|\x7f|\x9b\xff>"
#define HOSTILE_RAW_SHOWN \
	"<\\x1b]0;X\\x07|\\u009b|\\u0085|\\u202e|\\u2066|\\u200b|\\u2060|\\ufeff|\\x7f|\\x9b\\xff>"
/* In a URL: what a URL parser lets through (it refuses C0 and DEL). */
#define HOSTILE_URL "<\xc2\x9b|\xc2\x85|\xe2\x80\xae|\xe2\x81\xa6|\xe2\x80\x8b|\xe2\x81\xa0|\xef\xbb\xbf>"
#define HOSTILE_URL_SHOWN "<\\u009b|\\u0085|\\u202e|\\u2066|\\u200b|\\u2060|\\ufeff>"
/* An HTTP error body: the transport already blanks C0 and DEL in its
 * excerpt of it; the rest must be escaped. */
#define HOSTILE_BODY_SHOWN "< ]0;X |\\u009b|\\u0085|\\u202e|\\u2066|\\u200b|\\u2060|\\ufeff| |\\x9b\\xff>"

/* No raw C0 control but the newline that ends a line, no DEL, no C1 (raw
 * byte or UTF-8), bidi control, zero-width character or BOM. A failure
 * shows the 160 bytes around the culprit. */
static void assert_no_raw(const char *what, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i], d = i + 1 < n ? (unsigned char)s[i + 1] : 0,
			      f = i + 2 < n ? (unsigned char)s[i + 2] : 0;
		const char *why = NULL;
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			why = "a C0 control or DEL";
		else if (c >= 0x80 && c <= 0x9f && (i == 0 || (unsigned char)s[i - 1] < 0x80))
			why = "a raw C1 byte";
		else if (c == 0xc2 && d >= 0x80 && d <= 0x9f)
			why = "a C1 control";
		else if (c == 0xe2 && d == 0x80 && ((f >= 0xaa && f <= 0xae) || (f >= 0x8b && f <= 0x8d)))
			why = "a bidi override or zero-width character";
		else if (c == 0xe2 && d == 0x81 && (f == 0xa0 || (f >= 0xa6 && f <= 0xa9)))
			why = "a word joiner or bidi isolate";
		else if (c == 0xef && d == 0xbb && f == 0xbf)
			why = "a BOM";
		if (why) {
			size_t from = i > 80 ? i - 80 : 0;
			ck_abort_msg("%s: %s (0x%02x) raw at byte %zu: ...%.*s...", what, why, c, i,
				     (int)(n - from < 160 ? n - from : 160), s + from);
		}
	}
}

static const struct {
	const char *format;
	const char *expect[5]; /* escaped forms that must appear */
} escape_cases[] = {
	{"text",
	 {"evil-\\u202eeulav\\u202c-\\r7", "Pay\\x1b[2J\\x1b[HWorkflow", "timeout\\r\\x1b[2Kall good",
	  "\\u200b\\u200c\\u200d\\u2060\\ufeff<script>", NULL}},
	{"markdown",
	 {"\\u202e", "\\x1b", "&lt;script&gt;", "\\\\u200b\\\\u200c\\\\u200d\\\\u2060\\\\ufeff&lt;script&gt;",
	  NULL}},
};

START_TEST(escapes_neutralised)
{
	const char *path = testlib_src("tests/fixtures/hostile-escapes.catalyst.json");
	char *args[] = {"--format", (char *)escape_cases[_i].format, "--verbose-report", "file", (char *)path,
			NULL};
	struct measured m;
	run_cli(args, &m);
	ck_assert_msg(m.run.status == 1, "status %d: %s", m.run.status, m.err);
	assert_no_raw(escape_cases[_i].format, m.out, m.out_len);
	assert_no_raw("stderr", m.err, m.err_len);
	for (int k = 0; k < 5 && escape_cases[_i].expect[k]; k++)
		ck_assert_msg(strstr(m.out, escape_cases[_i].expect[k]), "%s: missing %s", escape_cases[_i].format,
			      escape_cases[_i].expect[k]);
	measured_free(&m);
}
END_TEST

/* ---- outside text on stderr: hostile servers on 127.0.0.1 ------------------ */

enum scenario {
	SC_RPC_ERROR,        /* tools/list answered with a JSON-RPC error */
	SC_IS_ERROR,         /* catalyst_whoami answered isError with plain text */
	SC_REFUSAL,          /* catalyst_whoami refused: kind, message, instruction */
	SC_CURSOR,           /* tools/list repeats its nextCursor */
	SC_PROTOCOL_VERSION, /* initialize names a version we do not speak */
	SC_CONTENT_TYPE,     /* every answer has a hostile Content-Type */
	SC_ERROR_BODY,       /* every answer is HTTP 400 with a hostile body */
	SC_HUGE_HEADER,      /* one response header of 200 KB */
	SC_LOGIN_NOTICE,     /* the authorization endpoint, printed by `login` */
	SC_CALLBACK_ERROR,   /* the sign-in callback's error and error_description */
	SC_TOKEN_ECHO,       /* the bearer token echoed: WWW-Authenticate, a JSON-RPC error */
};

/* The token the SC_TOKEN_ECHO test gives the client, and its server echoes. */
#define ECHO_TOKEN "tok-echo-secret-4242"
/* Added to every response when set (the server process's own copy). */
static const char *extra_header = "";

struct hostile_server {
	pid_t pid;
	int port;
	char url[64];
};

struct http_request {
	char method[16];
	char target[2048];
	char *body;
};

static bool write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w, n -= (size_t)w;
	}
	return true;
}

/* Reads one request (headers to 64 KiB, a Content-Length body to 1 MiB). */
static int read_request(int fd, struct http_request *rq)
{
	static char buf[65536];
	size_t n = 0;
	char *end = NULL;
	while (!end) {
		if (n + 1 >= sizeof buf)
			return -1;
		ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
		if (r <= 0)
			return -1;
		n += (size_t)r;
		buf[n] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	if (sscanf(buf, "%15s %2047s", rq->method, rq->target) != 2)
		return -1;
	size_t len = 0;
	const char *cl = strcasestr(buf, "\r\ncontent-length:");
	if (cl)
		len = strtoul(cl + 17, NULL, 10);
	if (len > (1u << 20))
		return -1;
	if (strcasestr(buf, "\r\nexpect: 100-continue"))
		write_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	rq->body = calloc(1, len + 1);
	if (!rq->body)
		return -1;
	size_t have = n - (size_t)(end + 4 - buf);
	if (have > len)
		have = len;
	memcpy(rq->body, end + 4, have);
	while (have < len) {
		ssize_t r = read(fd, rq->body + have, len - have);
		if (r <= 0)
			return -1;
		have += (size_t)r;
	}
	return 0;
}

static void respond(int fd, const char *status, const char *headers, const char *body)
{
	size_t blen = body ? strlen(body) : 0;
	char *head = NULL;
	int n = asprintf(&head, "HTTP/1.1 %s\r\n%s%sContent-Length: %zu\r\nConnection: close\r\n\r\n", status,
			 headers ? headers : "", extra_header, blen);
	if (n < 0)
		return;
	if (write_all(fd, head, (size_t)n) && blen)
		write_all(fd, body, blen);
	free(head);
}

static void respond_json(int fd, const char *status, json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	respond(fd, status, "Content-Type: application/json\r\n", text ? text : "{}");
	free(text);
}

/* The value of key in a query string, percent-decoded (malloc'd), or NULL. */
static char *query_value(const char *target, const char *key)
{
	const char *q = strchr(target, '?');
	size_t klen = strlen(key);
	for (const char *p = q; p && *p; p = strchr(p + 1, '&')) {
		if (strncmp(p + 1, key, klen) == 0 && p[1 + klen] == '=') {
			const char *v = p + 2 + klen;
			int len = 0;
			char *raw = curl_easy_unescape(NULL, v, (int)strcspn(v, "&"), &len);
			char *out = raw ? strndup(raw, (size_t)len) : NULL;
			curl_free(raw);
			return out;
		}
	}
	return NULL;
}

static json_t *whoami_tool(void)
{
	return json_pack("{s:s, s:s, s:{s:s, s:{}}, s:{s:b}}", "name", "catalyst_whoami", "description", "who",
			 "inputSchema", "type", "object", "properties", "annotations", "readOnlyHint", 1);
}

static void answer_mcp(int fd, enum scenario sc, const char *body)
{
	json_t *msg = json_loads(body, 0, NULL);
	const char *method = json_string_value(json_object_get(msg, "method"));
	json_t *id = json_object_get(msg, "id");
	if (!method || !id) {
		/* a notification, or an answer: accepted */
		json_decref(msg);
		respond(fd, "202 Accepted", NULL, NULL);
		return;
	}
	json_t *result = NULL, *error = NULL;
	if (strcmp(method, "initialize") == 0) {
		result = json_pack("{s:s, s:{s:{}}, s:{s:s, s:s}}", "protocolVersion",
				   sc == SC_PROTOCOL_VERSION ? HOSTILE : "2025-06-18", "capabilities", "tools",
				   "serverInfo", "name", "hostile", "version", "1");
	} else if (strcmp(method, "tools/list") == 0) {
		if (sc == SC_RPC_ERROR)
			error = json_pack("{s:i, s:s}", "code", -32000, "message", HOSTILE);
		else if (sc == SC_TOKEN_ECHO)
			error = json_pack("{s:i, s:s}", "code", -32001, "message",
					  "token " ECHO_TOKEN " is not valid");
		else
			result = json_pack("{s:[o]}", "tools", whoami_tool());
		if (sc == SC_CURSOR)
			json_object_set_new(result, "nextCursor", json_string(HOSTILE));
	} else if (strcmp(method, "tools/call") == 0) {
		const char *text = "{}";
		char *refusal = NULL;
		if (sc == SC_REFUSAL) {
			json_t *r = json_pack("{s:{s:s, s:s, s:s, s:s, s:b}}", "error", "kind", HOSTILE, "family",
					      "data_sharing", "message", HOSTILE, "instruction", HOSTILE,
					      "retryable", 0);
			refusal = json_dumps(r, JSON_COMPACT);
			json_decref(r);
			text = refusal;
		} else if (sc == SC_IS_ERROR) {
			text = HOSTILE;
		}
		result = json_pack("{s:b, s:[{s:s, s:s}]}", "isError", sc == SC_REFUSAL || sc == SC_IS_ERROR,
				   "content", "type", "text", "text", text);
		free(refusal);
	} else {
		error = json_pack("{s:i, s:s}", "code", -32601, "message", "method not found");
	}
	json_t *reply = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, result ? "result" : "error",
				  result ? result : error);
	json_decref(msg);
	respond_json(fd, "200 OK", reply);
}

/* One request of the scenario, on its own connection. */
static void serve_one(int fd, enum scenario sc, const char *base)
{
	struct http_request rq = {0};
	if (read_request(fd, &rq) < 0) {
		free(rq.body);
		return;
	}
	bool login = sc == SC_LOGIN_NOTICE || sc == SC_CALLBACK_ERROR;
	bool post_mcp = strcmp(rq.method, "POST") == 0 && strncmp(rq.target, "/mcp", 4) == 0;
	char hdr[512];
	if (post_mcp && login) {
		snprintf(
			hdr, sizeof hdr,
			"WWW-Authenticate: Bearer resource_metadata=\"%s/.well-known/oauth-protected-resource/mcp\"\r\n",
			base);
		respond(fd, "401 Unauthorized", hdr, NULL);
	} else if (post_mcp && sc == SC_CONTENT_TYPE) {
		respond(fd, "200 OK", "Content-Type: text/x-" HOSTILE_RAW "\r\n", "{}");
	} else if (post_mcp && sc == SC_ERROR_BODY) {
		respond(fd, "400 Bad Request", "Content-Type: text/plain\r\n", HOSTILE_RAW);
	} else if (post_mcp && sc == SC_HUGE_HEADER) {
		size_t big = 200 * 1024;
		char *h = malloc(big + 64);
		if (h) {
			memcpy(h, "X-Filler: ", 10);
			memset(h + 10, 'a', big);
			strcpy(h + 10 + big, "\r\nContent-Type: application/json\r\n");
			respond(fd, "200 OK", h, "{}");
			free(h);
		}
	} else if (post_mcp) {
		answer_mcp(fd, sc, rq.body);
	} else if (login && strcmp(rq.target, "/.well-known/oauth-protected-resource/mcp") == 0) {
		char resource[128];
		snprintf(resource, sizeof resource, "%s/mcp", base);
		respond_json(fd, "200 OK",
			     json_pack("{s:s, s:[s]}", "resource", resource, "authorization_servers", base));
	} else if (login && strcmp(rq.target, "/.well-known/oauth-authorization-server") == 0) {
		char authz[256], token[128];
		snprintf(authz, sizeof authz, "%s/authorize%s", base,
			 sc == SC_LOGIN_NOTICE ? "?x=" HOSTILE_URL : "");
		snprintf(token, sizeof token, "%s/token", base);
		respond_json(fd, "200 OK",
			     json_pack("{s:s, s:s, s:s, s:[s], s:[s]}", "issuer", base, "authorization_endpoint",
				       authz, "token_endpoint", token, "code_challenge_methods_supported", "S256",
				       "response_types_supported", "code"));
	} else if (login && strncmp(rq.target, "/authorize?", 11) == 0) {
		/* What a hostile authorization server sends the browser back with. */
		char *redirect = query_value(rq.target, "redirect_uri"), *state = query_value(rq.target, "state");
		char *err = curl_easy_escape(NULL, HOSTILE, 0);
		char *loc = NULL;
		if (redirect && state && err &&
		    asprintf(&loc, "Location: %s?error=%s&error_description=%s&state=%s\r\n", redirect, err, err,
			     state) >= 0) {
			respond(fd, "302 Found", loc, NULL);
			free(loc);
		} else {
			respond(fd, "400 Bad Request", NULL, NULL);
		}
		curl_free(err);
		free(redirect);
		free(state);
	} else {
		respond(fd, "404 Not Found", NULL, NULL);
	}
	free(rq.body);
}

#define SERVER_LIFETIME_S 60

/* Forks a server on 127.0.0.1 (an ephemeral port) that answers as the
 * scenario says, one request per connection, until the test stops it, its
 * parent dies, or SERVER_LIFETIME_S passes. */
static void server_start(struct hostile_server *s, enum scenario sc)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	socklen_t al = sizeof a;
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	s->port = ntohs(a.sin_port);
	snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d", s->port);
	s->pid = fork();
	ck_assert_int_ge(s->pid, 0);
	if (s->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(SERVER_LIFETIME_S);
		if (sc == SC_TOKEN_ECHO)
			extra_header =
				"WWW-Authenticate: Bearer error=\"invalid_token\", error_description=\"" ECHO_TOKEN
				" expired\"\r\n";
		signal(SIGPIPE, SIG_IGN);
		for (;;) {
			int c = accept(fd, NULL, NULL);
			if (c < 0) {
				if (errno == EINTR)
					continue;
				_exit(1);
			}
			struct timeval tv = {.tv_sec = 10};
			setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
			serve_one(c, sc, s->url);
			close(c);
		}
	}
	close(fd);
}

static void server_stop(struct hostile_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = 0;
}

static const struct {
	const char *what;
	enum scenario sc;
	const char *args[6];
	const char *shown[2]; /* what stderr must carry instead */
	int status;
} server_cases[] = {
	{"JSON-RPC error message", SC_RPC_ERROR, {"tools", NULL}, {"server error -32000: " HOSTILE_SHOWN, NULL}, 5},
	{"isError text", SC_IS_ERROR, {"whoami", NULL}, {"catalyst_whoami failed: " HOSTILE_LINE1_SHOWN, NULL}, 5},
	{"refusal kind, message, instruction",
	 SC_REFUSAL,
	 {"whoami", NULL},
	 {"refusal " HOSTILE_SHOWN ": " HOSTILE_SHOWN, HOSTILE_SHOWN "\n"},
	 4},
	{"paging cursor", SC_CURSOR, {"tools", NULL}, {"repeated cursor '" HOSTILE_SHOWN "'", NULL}, 5},
	{"protocolVersion", SC_PROTOCOL_VERSION, {"tools", NULL}, {"version '" HOSTILE_SHOWN "'", NULL}, 5},
	{"Content-Type",
	 SC_CONTENT_TYPE,
	 {"tools", NULL},
	 {"content type 'text/x-" HOSTILE_RAW_SHOWN "'", NULL},
	 5},
	{"HTTP error body", SC_ERROR_BODY, {"tools", NULL}, {"HTTP 400: " HOSTILE_BODY_SHOWN, NULL}, 5},
	{"authorization endpoint in the login notice",
	 SC_LOGIN_NOTICE,
	 {"login", "--client-id", "ca-test", "--no-browser", NULL},
	 {"/authorize?x=" HOSTILE_URL_SHOWN "&response_type=code", NULL},
	 3},
	{"callback error and error_description",
	 SC_CALLBACK_ERROR,
	 {"login", "--client-id", "ca-test", NULL},
	 {"refused the sign-in: " HOSTILE_SHOWN ": " HOSTILE_SHOWN, NULL},
	 3},
};

/* Each case twice: the error alone, and with the --verbose trace. */
START_TEST(server_text_neutralised_on_stderr)
{
	int k = _i / 2;
	bool verbose = _i % 2;
	struct hostile_server srv;
	server_start(&srv, server_cases[k].sc);
	char server[96];
	snprintf(server, sizeof server, "%s/mcp", srv.url);
	char *args[12];
	int n = 0;
	args[n++] = "--server";
	args[n++] = server;
	if (verbose)
		args[n++] = "--verbose";
	for (int j = 0; server_cases[k].args[j]; j++)
		args[n++] = (char *)server_cases[k].args[j];
	args[n] = NULL;
	char xdg[300], home[300], browser[4200];
	snprintf(xdg, sizeof xdg, "XDG_CONFIG_HOME=%s/config", testlib_tmpdir);
	snprintf(home, sizeof home, "HOME=%s", testlib_tmpdir);
	snprintf(browser, sizeof browser, "BROWSER=%s", testlib_src("tests/sim/follow-redirect.sh"));
	char *env[] = {xdg, home, browser, "CATALYST_LOGIN_TIMEOUT=2", "CATALYST_TOKEN=", "CI=", NULL};
	struct testlib_output o;
	/* login signs a person in: at a terminal (issue 19) */
	testlib_stdin_tty = strcmp(server_cases[k].args[0], "login") == 0;
	int rc = testlib_run_cli(args, env, NULL, 60000, &o);
	testlib_stdin_tty = false;
	server_stop(&srv);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(!o.timed_out, "%s: timed out; stderr: %s", server_cases[k].what, o.err);
	ck_assert_msg(o.status == server_cases[k].status, "%s: status %d; stderr: %s", server_cases[k].what,
		      o.status, o.err);
	assert_no_raw("stderr", o.err, o.err_len);
	assert_no_raw("stdout", o.out, o.out_len);
	for (int j = 0; j < 2 && server_cases[k].shown[j]; j++)
		ck_assert_msg(strstr(o.err, server_cases[k].shown[j]), "%s: stderr lacks %s: %s",
			      server_cases[k].what, server_cases[k].shown[j], o.err);
	testlib_output_free(&o);
}
END_TEST

/* libcurl refuses one response header over 100 KiB with "Out of memory";
 * the error says which limit it was. */
START_TEST(huge_header_names_the_limit)
{
	struct hostile_server srv;
	server_start(&srv, SC_HUGE_HEADER);
	char server[96];
	snprintf(server, sizeof server, "%s/mcp", srv.url);
	char *args[] = {"--server", server, "tools", NULL};
	char *env[] = {"CATALYST_TOKEN=", NULL};
	struct testlib_output o;
	int rc = testlib_run_cli(args, env, NULL, 60000, &o);
	server_stop(&srv);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(o.status == 5, "status %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.err, "response header over libcurl's 100 KiB limit"), "%s", o.err);
	testlib_output_free(&o);
}
END_TEST

/* ---- hostile servers ------------------------------------------------------
 *
 * tests/sim/hostile-server.mjs on 127.0.0.1 plays one attack per scenario.
 * Each stops by itself after a number of list pages, so the unbounded
 * client these tests guard against ends too (with a large peak RSS, a
 * wrong count or a late exit), never with an OOM. The server is the test's
 * child, not the binary's: its memory is not in the measured peak. */

struct hostile {
	struct testlib_server srv;
};

static void hostile_start(struct hostile *h, const char *scenario, char *const extra[])
{
	char *argv[24];
	int n = 0;
	argv[n++] = (char *)testlib_node();
	argv[n++] = (char *)testlib_src("tests/sim/hostile-server.mjs");
	argv[n++] = "--scenario";
	argv[n++] = (char *)scenario;
	for (; extra && *extra && n < 23; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	ck_assert_int_eq(testlib_server_start(&h->srv, argv, NULL, "LISTENING ", 20000), 0);
}

/* What the server saw (GET /stats): a new reference. */
static json_t *hostile_stats(const struct hostile *h)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)h->srv.port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	static const char req[] = "GET /stats HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
	ck_assert_int_eq(write(fd, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
	char buf[1 << 16];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof buf - 1 && (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	buf[len] = '\0';
	const char *body = strstr(buf, "\r\n\r\n");
	ck_assert_ptr_nonnull(body);
	json_error_t jerr;
	json_t *stats = json_loads(body + 4, 0, &jerr);
	ck_assert_msg(stats != NULL, "stats: %s", jerr.text);
	return stats;
}

static long stat_count(json_t *stats, const char *group, const char *key)
{
	json_t *g = group ? json_object_get(stats, group) : stats;
	return (long)json_integer_value(json_object_get(g, key));
}

static void hostile_stop(struct hostile *h)
{
	testlib_server_stop(&h->srv);
}

/* The peak a listing may reach: the pages held at its limit, plus the
 * program; ASan's shadow and redzones triple it. The unbounded client held
 * every page the server offered: well above. */
static long server_rss_bound_kb(long mb)
{
	long kb = mb * 1024;
	return binary_has_asan() ? kb * 3 : kb;
}

/* A JSON report's summary member (or -1 when the output is not one). */
static long summary_count(const struct measured *m, const char *key)
{
	json_t *doc = json_loadb(m->out, m->out_len, 0, NULL);
	long v = doc ? (long)json_integer_value(json_object_get(json_object_get(doc, "summary"), key)) : -1;
	json_decref(doc);
	return v;
}

static const struct {
	const char *scenario;
	const char *pages, *per_page;
	const char *expect; /* in the message */
	long max_pages;     /* list pages the client may ask for */
	long rss_mb;
} tools_cases[] = {
	/* 5,000 small tools a page: 200,000 unbounded. */
	{"tools-many", "40", "5000", "more than 10000 tools", 3, 64},
	/* 50 tools of 100 KB a page: 200 MB unbounded. */
	{"tools-fat", "40", "50", "over 16 MiB", 4, 64},
};

/* A server that keeps giving new cursors for tools/list: the listing stops
 * at its limit (tools, or bytes kept across pages), exit 5, the message
 * names the limit, and the peak RSS stays below what the pages would take. */
START_TEST(tools_listing_is_bounded)
{
	struct hostile h;
	char *extra[] = {"--pages", (char *)tools_cases[_i].pages, "--per-page", (char *)tools_cases[_i].per_page,
			 NULL};
	hostile_start(&h, tools_cases[_i].scenario, extra);
	char *args[] = {"--server", h.srv.url, "--format", "json", "tools", NULL};
	struct measured m;
	run_cli(args, &m);
	json_t *stats = hostile_stats(&h);
	long pages = stat_count(stats, NULL, "listPages");
	json_decref(stats);
	hostile_stop(&h);
	long bound = server_rss_bound_kb(tools_cases[_i].rss_mb);
	fprintf(stderr, "tools/list %s: %ld pages, %.2f s, peak RSS %ld KiB (bound %ld KiB), status %d: %.300s",
		tools_cases[_i].scenario, pages, m.run.wall_s, m.run.maxrss_kb, bound, m.run.status, m.err);
	ck_assert_msg(m.run.status == 5, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, tools_cases[_i].expect), "no '%s' in: %s", tools_cases[_i].expect, m.err);
	ck_assert_uint_eq(m.out_len, 0);
	ck_assert_int_le(pages, tools_cases[_i].max_pages);
	ck_assert_int_lt(m.run.maxrss_kb, bound);
	measured_free(&m);
}
END_TEST

static const struct {
	const char *scenario;
	const char *pages, *per_page, *id_bytes;
	const char *expect;
	long max_pages, rss_mb;
} runs_cases[] = {
	/* 5,000 runs a page, 200,000 unbounded: the limit is 50,000 runs. */
	{"runs-many", "40", "5000", "0", "more than 50000 runs", 11, 64},
	/* 100 runs a page with 32 KiB ids: 96 MiB of ids unbounded, 16 MiB kept at most. */
	{"runs-fat-ids", "30", "100", "32768", "over 16 MiB of run and app ids", 6, 96},
};

/* A run list that never ends: `runs` audits the pages as they come (never
 * holding the listing), stops at the limit with exit 5 and a message that
 * names it, and writes the report of the runs it took. The runs carry no
 * app id, so they fail without a fetch: only the listing is measured. */
START_TEST(run_listing_is_bounded)
{
	struct hostile h;
	char *extra[] = {"--pages",    (char *)runs_cases[_i].pages,
			 "--per-page", (char *)runs_cases[_i].per_page,
			 "--id-bytes", (char *)runs_cases[_i].id_bytes,
			 NULL};
	hostile_start(&h, runs_cases[_i].scenario, extra);
	char out_path[512];
	snprintf(out_path, sizeof out_path, "%s/report.json", testlib_tmpdir);
	char *args[] = {"--server", h.srv.url, "--format", "json", "--output-file", out_path, "runs", NULL};
	struct measured m;
	run_cli(args, &m);
	json_t *stats = hostile_stats(&h);
	long pages = stat_count(stats, NULL, "listPages");
	json_decref(stats);
	hostile_stop(&h);
	long bound = server_rss_bound_kb(runs_cases[_i].rss_mb);
	fprintf(stderr, "run list %s: %ld pages, %.2f s, peak RSS %ld KiB (bound %ld KiB), status %d: %.300s",
		runs_cases[_i].scenario, pages, m.run.wall_s, m.run.maxrss_kb, bound, m.run.status, m.err);
	ck_assert_msg(m.run.status == 5, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, runs_cases[_i].expect), "no '%s' in: %s", runs_cases[_i].expect, m.err);
	ck_assert_int_le(pages, runs_cases[_i].max_pages);
	ck_assert_int_lt(m.run.maxrss_kb, bound);
	/* The runs taken before the limit are reported, the note says why
	 * the list ends there. */
	size_t len;
	char *report = testlib_read_file(out_path, &len);
	ck_assert_ptr_nonnull(report);
	ck_assert_msg(strstr(report, runs_cases[_i].expect), "the report does not say '%s'",
		      runs_cases[_i].expect);
	json_t *doc = json_loadb(report, len, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	long runs = (long)json_integer_value(json_object_get(json_object_get(doc, "summary"), "runs"));
	ck_assert_int_gt(runs, 0);
	ck_assert_int_le(runs, 50000);
	json_decref(doc);
	free(report);
	unlink(out_path);
	measured_free(&m);
}
END_TEST

/* Cursors B, C, B, C, ...: the repeat ends the listing (exit 5, the cursor
 * named), each of the five runs is audited once and counted once. */
START_TEST(cursor_cycle_detected)
{
	struct hostile h;
	char *extra[] = {"--pages", "200", NULL};
	hostile_start(&h, "runs-cycle", extra);
	char *args[] = {"--server", h.srv.url, "--format", "json", "runs", NULL};
	struct measured m;
	run_cli(args, &m);
	json_t *stats = hostile_stats(&h);
	long pages = stat_count(stats, NULL, "listPages");
	long fetched = stat_count(stats, "tools", "catalyst_get_workflow_run");
	json_decref(stats);
	hostile_stop(&h);
	fprintf(stderr, "cursor cycle: %ld pages, %ld fetches, %.2f s, status %d: %.300s", pages, fetched,
		m.run.wall_s, m.run.status, m.err);
	ck_assert_msg(m.run.status == 5, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, "repeated cursor 'B'"), "%s", m.err);
	ck_assert_int_eq(pages, 3);
	ck_assert_int_eq(fetched, 5);
	ck_assert_int_eq(summary_count(&m, "runs"), 5);
	ck_assert_ptr_nonnull(strstr(m.out, "repeated cursor 'B'"));
	measured_free(&m);
}
END_TEST

/* The same run listed again (on its page and on later ones, as an offset
 * listing does while new runs arrive): audited and counted once, the
 * duplicates said in a note and a warning. And the listing does not hold
 * up the fetches: the first page's runs are fetched while the second page
 * (which takes a second) is still being answered. */
START_TEST(duplicate_runs_audited_once)
{
	struct hostile h;
	hostile_start(&h, "runs-dup", NULL);
	char *args[] = {"--server", h.srv.url, "--format", "json", "--jobs", "1", "runs", NULL};
	struct measured m;
	run_cli(args, &m);
	json_t *stats = hostile_stats(&h);
	long fetched = stat_count(stats, "tools", "catalyst_get_workflow_run");
	json_t *order = json_object_get(stats, "order");
	ck_assert_str_eq(json_string_value(json_array_get(order, 0)), "catalyst_list_workflow_runs");
	ck_assert_msg(json_is_true(json_object_get(stats, "overlap")), "no run fetched while a page was listed");
	json_decref(stats);
	hostile_stop(&h);
	ck_assert_msg(m.run.status == 0, "status %d: %s", m.run.status, m.err);
	ck_assert_int_eq(fetched, 4);
	ck_assert_int_eq(summary_count(&m, "runs"), 4);
	ck_assert_msg(strstr(m.out, "the server listed runs more than once (4 repeats)"), "%.2000s", m.out);
	ck_assert_msg(strstr(m.err, "the server listed runs more than once (4 repeats)"), "%s", m.err);
	measured_free(&m);
}
END_TEST

static const struct {
	const char *scenario;
	const char *expect;
} final_cases[] = {
	{"deep", "nested deeper than 512 levels"},
	{"huge", "over 16777216 bytes"},
	/* bytes that are wrong rather than missing */
	{"bad-utf8", "not valid UTF-8"},
};

/* An answer that cannot change (nested too deep, over the size limit) is
 * not asked for again: the server sees one request. */
START_TEST(final_errors_not_retried)
{
	struct hostile h;
	hostile_start(&h, final_cases[_i].scenario, NULL);
	char *args[] = {"--server", h.srv.url, "run", "orders", "r1", NULL};
	struct measured m;
	run_cli(args, &m);
	json_t *stats = hostile_stats(&h);
	long fetched = stat_count(stats, "tools", "catalyst_get_workflow_run");
	json_decref(stats);
	hostile_stop(&h);
	fprintf(stderr, "%s answer: %ld fetches, %.2f s, status %d: %.300s", final_cases[_i].scenario, fetched,
		m.run.wall_s, m.run.status, m.err);
	ck_assert_msg(m.run.status == 5, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, final_cases[_i].expect), "no '%s' in: %s", final_cases[_i].expect, m.err);
	ck_assert_int_eq(fetched, 1);
	measured_free(&m);
}
END_TEST

/* 25 server requests during one call, each answer held 1 s by the server:
 * --timeout 2 bounds the whole wait (exit 5, the cause named), instead of
 * 25 s of answering. */
START_TEST(server_requests_within_timeout)
{
	struct hostile h;
	char *extra[] = {"--requests", "25", "--hold-ms", "1000", NULL};
	hostile_start(&h, "server-requests", extra);
	char *args[] = {"--server", h.srv.url, "--timeout", "2", "run", "orders", "r1", NULL};
	struct measured m;
	run_cli(args, &m);
	json_t *stats = hostile_stats(&h);
	long answers = stat_count(stats, NULL, "answers");
	long fetched = stat_count(stats, "tools", "catalyst_get_workflow_run");
	json_decref(stats);
	hostile_stop(&h);
	fprintf(stderr, "25 held server requests, --timeout 2: %ld answers, %ld calls, %.2f s, status %d: %.300s",
		answers, fetched, m.run.wall_s, m.run.status, m.err);
	ck_assert_msg(m.run.status == 5, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, "the 2 s timeout passed"), "%s", m.err);
	ck_assert_msg(strstr(m.err, "server's own requests"), "%s", m.err);
	ck_assert_int_eq(fetched, 1);
	/* At most the answers the 2 s fit (held 1 s each): the deadline
	 * ended the wait, not the 25th answer. Counted, not timed. */
	ck_assert_int_le(answers, 3);
	measured_free(&m);
}
END_TEST

/* 25 server requests answered at once: 16 are answered, the 17th ends the
 * call (exit 5, the cap named); it is not sent again. */
START_TEST(server_requests_capped)
{
	struct hostile h;
	char *extra[] = {"--requests", "25", NULL};
	hostile_start(&h, "server-requests", extra);
	char *args[] = {"--server", h.srv.url, "--timeout", "10", "run", "orders", "r1", NULL};
	struct measured m;
	run_cli(args, &m);
	json_t *stats = hostile_stats(&h);
	long answers = stat_count(stats, NULL, "answers");
	long fetched = stat_count(stats, "tools", "catalyst_get_workflow_run");
	json_decref(stats);
	hostile_stop(&h);
	ck_assert_msg(m.run.status == 5, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, "more than 16 requests of its own"), "%s", m.err);
	ck_assert_int_eq(answers, 16);
	ck_assert_int_eq(fetched, 1);
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

/* ---- files the tool writes ------------------------------------------------ */

/* --output-file through a link planted at the path: refused, exit 2, the file
 * the link names untouched; a plain --output-file is 0600 whatever the umask
 * (the runner's 022 would leave 0644). */
START_TEST(output_never_through_a_link)
{
	const char *history = testlib_src("tests/fixtures/g-logic-duplicate.proto.json");
	char victim[400], planted[400], plain[400];
	snprintf(victim, sizeof victim, "%s/victim", testlib_tmpdir);
	snprintf(planted, sizeof planted, "%s/report.json", testlib_tmpdir);
	snprintf(plain, sizeof plain, "%s/plain.json", testlib_tmpdir);
	FILE *f = fopen(victim, "w");
	ck_assert_ptr_nonnull(f);
	fputs("precious\n", f);
	fclose(f);
	ck_assert_int_eq(symlink(victim, planted), 0);
	char *args[] = {"--output-file", planted, "file", (char *)history, NULL};
	struct measured m;
	run_cli(args, &m);
	ck_assert_msg(m.run.status == 2, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, "symbolic link"), "%s", m.err);
	size_t len = 0;
	char *kept = testlib_read_file(victim, &len);
	ck_assert_str_eq(kept, "precious\n");
	free(kept);
	measured_free(&m);

	char *plain_args[] = {"--output-file", plain, "file", (char *)history, NULL};
	run_cli(plain_args, &m);
	ck_assert_msg(m.run.status == 1, "status %d: %s", m.run.status, m.err);
	struct stat st;
	ck_assert_int_eq(lstat(plain, &st), 0);
	ck_assert_msg(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600, "mode %04o",
		      (unsigned)(st.st_mode & 07777));
	measured_free(&m);
	unlink(victim);
	unlink(planted);
	unlink(plain);
}
END_TEST

/* ---- no secret is ever shown --------------------------------------------- */

/* A server that echoes the bearer token (CATALYST_TOKEN) in a JSON-RPC
 * error message and in WWW-Authenticate: stderr shows <redacted> in its
 * place, with and without the --verbose trace. */
START_TEST(token_never_shown)
{
	bool verbose = _i;
	struct hostile_server srv;
	server_start(&srv, SC_TOKEN_ECHO);
	char server[96];
	snprintf(server, sizeof server, "%s/mcp", srv.url);
	char *args[] = {"--server", server, verbose ? "--verbose" : "tools", verbose ? "tools" : NULL, NULL};
	char *env[] = {"CATALYST_TOKEN=" ECHO_TOKEN, NULL};
	struct testlib_output o;
	int rc = testlib_run_cli(args, env, NULL, 60000, &o);
	server_stop(&srv);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(o.status == 5, "status %d: %s", o.status, o.err);
	ck_assert_msg(!strstr(o.err, ECHO_TOKEN), "the token on stderr: %s", o.err);
	ck_assert_msg(strstr(o.err, "token <redacted> is not valid"), "%s", o.err);
	if (verbose)
		ck_assert_msg(strstr(o.err, "error_description=\"<redacted> expired\""), "%s", o.err);
	testlib_output_free(&o);
}
END_TEST

/* User information in the server URL, from each of the three places it
 * may come from: refused before any connection, the password never
 * echoed. */
START_TEST(server_userinfo_refused)
{
	char config[400], cfg_env[420];
	snprintf(config, sizeof config, "%s/config", testlib_tmpdir);
	FILE *f = fopen(config, "w");
	ck_assert_ptr_nonnull(f);
	fputs("server = http://ann:pw-secret-77@127.0.0.1:9/mcp\n", f);
	fclose(f);
	snprintf(cfg_env, sizeof cfg_env, "CATALYST_AUDIT_CONFIG=%s", config);
	struct {
		char *args[5];
		char *env[3];
		const char *source;
	} cases[] = {
		{{"--server", "http://ann:pw-secret-77@127.0.0.1:9/mcp", "tools", NULL}, {NULL}, "--server"},
		{{"tools", NULL},
		 {"CATALYST_MCP_URL=http://ann:pw-secret-77@127.0.0.1:9/mcp", NULL},
		 "CATALYST_MCP_URL"},
		{{"tools", NULL}, {cfg_env, NULL}, config},
	};
	for (int k = 0; k < 3; k++) {
		struct testlib_output o;
		ck_assert_int_eq(testlib_run_cli(cases[k].args, cases[k].env, NULL, 60000, &o), 0);
		ck_assert_msg(o.status == 2, "%s: status %d: %s", cases[k].source, o.status, o.err);
		ck_assert_msg(strstr(o.err, "user information"), "%s: %s", cases[k].source, o.err);
		ck_assert_msg(strstr(o.err, cases[k].source), "%s: %s", cases[k].source, o.err);
		ck_assert_msg(!strstr(o.err, "pw-secret-77"), "%s: %s", cases[k].source, o.err);
		testlib_output_free(&o);
	}
	unlink(config);
}
END_TEST

/* ---- file: inputs that shrink or never end --------------------------------- */

/* /dev/zero stops at its first byte, which no history holds (issue 31:
 * it was read for 1 GiB, 1 GB resident, before the bound refused it). */
START_TEST(endless_input_bounded)
{
	char *args[] = {"file", "/dev/zero", NULL};
	struct measured m;
	run_cli(args, &m);
	ck_assert_msg(m.run.status == 6, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, "byte 1 is a NUL"), "%s", m.err);
	ck_assert_msg(m.run.maxrss_kb < 64 * 1024, "peak RSS %ld KiB for a refusal at byte 1", m.run.maxrss_kb);
	measured_free(&m);
}
END_TEST

/* A history truncated while `file` reads it (mapped): exit 6 with a
 * message, never a silent SIGBUS. Cut at three moments of the parse. */
START_TEST(shrinking_input_is_an_error)
{
	char path[400];
	snprintf(path, sizeof path, "%s/shrinking.json", testlib_tmpdir);
	write_million(path);
	static const int delays_ms[] = {150, 400, 900};
	for (int k = 0; k < 3; k++) {
		if (k)
			write_million(path);
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int null = open("/dev/null", O_RDWR);
			dup2(null, 0);
			dup2(null, 1);
			execl(testlib_env("CA_BINARY"), "catalyst-audit", "file", path, (char *)NULL);
			_exit(127);
		}
		usleep((useconds_t)delays_ms[k] * 1000);
		ck_assert_int_eq(truncate(path, 4096), 0);
		int status = 0;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(!WIFSIGNALED(status), "cut after %d ms: killed by signal %d", delays_ms[k],
			      WTERMSIG(status));
	}
	unlink(path);
}
END_TEST

/* ---- compressed bodies under --timeout ----------------------------------- */

static const struct {
	const char *scenario;
	int status;
	const char *expect[2]; /* one of them in stderr, or NULL */
	long max_fetches;
} gzip_cases[] = {
	/* the excerpt of the error is kept, the rest never inflated: retried
	 * as a 500 is */
	{"gzip-error", 5, {"HTTP 500", NULL}, 3},
	/* a stream is bounded decoded (final), or by the deadline when
	 * inflating 64 MiB takes longer than --timeout (a loaded machine,
	 * ASan): retried as a timeout */
	{"gzip-sse", 5, {"over 64 MiB decoded", "no complete response within 3000 ms"}, 3},
	/* a drained answer to a notification: read up to a message's worth */
	{"gzip-drain", 0, {NULL, NULL}, 1},
};

/* Bodies sent as `Content-Encoding: gzip, gzip` that inflate to 20 GiB:
 * inflating is work the deadline bounds, so `--timeout 3` ends the command
 * well within 30 s (three attempts of 3 s and their backoff), where each
 * attempt used to inflate all of it at full CPU. */
START_TEST(compressed_bodies_within_timeout)
{
	struct hostile h;
	hostile_start(&h, gzip_cases[_i].scenario, NULL);
	char *args[] = {"--timeout", "3", "--server", h.srv.url, "--format", "json", "run", "orders", "r1", NULL};
	struct measured m;
	run_cli(args, &m);
	json_t *stats = hostile_stats(&h);
	long fetched = stat_count(stats, "tools", "catalyst_get_workflow_run");
	json_decref(stats);
	hostile_stop(&h);
	fprintf(stderr, "%s: %ld fetches, %.2f s, status %d: %.300s\n", gzip_cases[_i].scenario, fetched,
		m.run.wall_s, m.run.status, m.err);
	ck_assert_msg(m.run.status == gzip_cases[_i].status, "status %d: %s", m.run.status, m.err);
	if (gzip_cases[_i].expect[0])
		ck_assert_msg(strstr(m.err, gzip_cases[_i].expect[0]) ||
				      (gzip_cases[_i].expect[1] && strstr(m.err, gzip_cases[_i].expect[1])),
			      "no '%s' in: %s", gzip_cases[_i].expect[0], m.err);
	ck_assert_int_le(fetched, gzip_cases[_i].max_fetches);
	ck_assert_msg(m.run.wall_s < 30.0, "%.1f s", m.run.wall_s);
	measured_free(&m);
}
END_TEST

/* ---- process setup: core dumps, closed standard descriptors ---------------- */

/* Whether /proc/PID/limits shows a core size limit of 0. */
static bool core_limit_zero(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
	size_t len = 0;
	char *text = testlib_read_file(path, &len);
	const char *line = text ? strstr(text, "Max core file size") : NULL;
	unsigned long soft = 1;
	bool zero = line && sscanf(line + 18, " %lu", &soft) == 1 && soft == 0;
	free(text);
	return zero;
}

static const char *const core_cases[][6] = {
	{"file", "-", NULL},
	{"--stdio", "exec sleep 10", "tools", NULL},
};

/* A crash while the token is in memory leaves no core file: the child is
 * started with an unlimited core limit in a folder it may write, holds
 * CATALYST_TOKEN, and is killed with SIGQUIT while it waits (on its
 * standard input, on a --stdio server that never answers). */
START_TEST(no_core_dumps)
{
	int in[2];
	ck_assert_int_eq(pipe(in), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit all = {RLIM_INFINITY, RLIM_INFINITY};
		setrlimit(RLIMIT_CORE, &all);
		/* A shell's background job ignores SIGQUIT, and exec keeps it
		 * ignored: the signal this test sends. */
		signal(SIGQUIT, SIG_DFL);
		if (chdir(testlib_tmpdir) < 0)
			_exit(126);
		dup2(in[0], 0);
		close(in[0]);
		close(in[1]);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		setenv("CATALYST_TOKEN", "core-secret-token", 1);
		char *argv[8] = {(char *)testlib_env("CA_BINARY")};
		for (int i = 0; core_cases[_i][i]; i++)
			argv[i + 1] = (char *)core_cases[_i][i];
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	/* Bounded: the limit shows at once, or never (the old program). */
	for (int i = 0; i < 20 && !core_limit_zero(pid); i++)
		usleep(100000);
	usleep(300000);
	ck_assert_int_eq(kill(pid, SIGQUIT), 0);
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	close(in[1]);
	ck_assert_msg(WIFSIGNALED(status), "%s: status %d", core_cases[_i][0], status);
	ck_assert_msg(!WCOREDUMP(status), "%s: dumped core", core_cases[_i][0]);
	char core[400];
	snprintf(core, sizeof core, "%s/core", testlib_tmpdir);
	ck_assert_msg(access(core, F_OK) < 0, "%s: left %s", core_cases[_i][0], core);
}
END_TEST

/* Started with standard output closed, the history file would take
 * descriptor 1 and the report would be written into it (or fail): the
 * program opens /dev/null there first, so the run ends as it would. */
START_TEST(closed_stdout_reopened)
{
	const char *history = testlib_src("tests/fixtures/g-logic-duplicate.proto.json");
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 2);
		close(null);
		close(1);
		execl(testlib_env("CA_BINARY"), "catalyst-audit", "file", history, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
}
END_TEST

/* ---- a history that changes under run --follow ---------------------------
 *
 * The follow scenarios of tests/sim/hostile-server.mjs answer the run's
 * history differently at each reading (see there). The follow is read as
 * JSON Lines: each line's type and `what` counted. */

/* The JSON Lines of out, each as an object (the caller frees them). */
static size_t jsonl_lines(const char *out, json_t **v, size_t max)
{
	size_t n = 0;
	char *copy = strdup(out), *save = NULL;
	ck_assert_ptr_nonnull(copy);
	for (char *line = strtok_r(copy, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		json_error_t je;
		v[n] = json_loads(line, 0, &je);
		ck_assert_msg(v[n], "not JSON: %s", line);
		n++;
	}
	free(copy);
	return n;
}

/* How many lines of type (and of what, when not NULL; and naming name,
 * when not NULL) there are. */
static size_t lines_of(json_t **v, size_t n, const char *type, const char *what, const char *name)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *t = json_string_value(json_object_get(v[i], "type"));
		const char *w = json_string_value(json_object_get(v[i], "what"));
		const char *nm = json_string_value(json_object_get(v[i], "name"));
		k += t && !strcmp(t, type) && (!what || (w && !strcmp(w, what))) &&
		     (!name || (nm && !strcmp(nm, name)));
	}
	return k;
}

/* The note lines that hold text. */
static size_t notes_with(json_t **v, size_t n, const char *text)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *t = json_string_value(json_object_get(v[i], "type"));
		const char *m = json_string_value(json_object_get(v[i], "text"));
		k += t && !strcmp(t, "note") && m && strstr(m, text);
	}
	return k;
}

struct followed {
	struct measured m;
	json_t *v[600];
	size_t n;
	long asked; /* how many times the server was asked for the run */
};

static void follow_hostile(const char *scenario, struct followed *f)
{
	struct hostile h;
	hostile_start(&h, scenario, NULL);
	char *args[] = {"--server", h.srv.url, "run",          "orders", "r1", "--follow",
			"-o",       "jsonl",   "--follow-for", "2m",     NULL};
	run_cli(args, &f->m);
	json_t *stats = hostile_stats(&h);
	f->asked = stat_count(stats, NULL, "runAsked");
	json_decref(stats);
	hostile_stop(&h);
	f->n = jsonl_lines(f->m.out ? f->m.out : "", f->v, sizeof f->v / sizeof *f->v);
	fprintf(stderr, "follow %s: %ld readings, %zu lines, %.2f s, peak RSS %ld KiB, status %d: %.300s\n",
		scenario, f->asked, f->n, f->m.run.wall_s, f->m.run.maxrss_kb, f->m.run.status, f->m.err);
}

static void followed_free(struct followed *f)
{
	for (size_t i = 0; i < f->n; i++)
		json_decref(f->v[i]);
	measured_free(&f->m);
}

/* The summary line's notes, joined (empty when there are none). */
static bool summary_notes_hold(json_t **v, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++) {
		const char *t = json_string_value(json_object_get(v[i], "type"));
		if (!t || strcmp(t, "summary"))
			continue;
		char *all = json_dumps(v[i], 0);
		bool found = all && strstr(all, text);
		free(all);
		return found;
	}
	return false;
}

/* Five activities said, a duplicate result found; then a reading of two:
 * the seven events and the finding it no longer holds are said once, the
 * events that come back are not said again, the verdict's note says the
 * history was dropped or rewritten under the follow, and the command
 * fails as for a server error (5), whatever the last reading found. */
START_TEST(follow_history_shrinks)
{
	struct followed f;
	follow_hostile("follow-shrink", &f);
	ck_assert_msg(f.m.run.status == 5, "status %d: %s", f.m.run.status, f.m.err);
	ck_assert_msg(strstr(f.m.err, "history of run r1 dropped or rewrote 7 events"), "%s", f.m.err);
	ck_assert_int_eq(f.asked, 4);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "scheduled", NULL), 6);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "scheduled", "A3"), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "completed", NULL), 7); /* A1's twice, then once */
	ck_assert_uint_eq(lines_of(f.v, f.n, "finding", NULL, NULL), 1);
	ck_assert_uint_eq(notes_with(f.v, f.n, "no longer holds 7 events said before"), 1);
	ck_assert_uint_eq(notes_with(f.v, f.n, "1 finding said before no longer holds"), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "ended", NULL), 1);
	ck_assert_msg(summary_notes_hold(f.v, f.n, "dropped or rewrote 7 events it had shown"), "%s", f.m.out);
	followed_free(&f);
}
END_TEST

/* An answer about another run than the one asked for is refused (5),
 * never reported (or linked) as the run asked for. */
START_TEST(answer_about_another_run_refused)
{
	struct hostile h;
	hostile_start(&h, "other-run", NULL);
	char *args[] = {"--server", h.srv.url, "-o", "json", "run", "orders", "r1", NULL};
	struct measured m;
	run_cli(args, &m);
	hostile_stop(&h);
	ck_assert_msg(m.run.status == 5, "status %d: %s", m.run.status, m.err);
	ck_assert_msg(strstr(m.err, "answered about run someone-else, not r1"), "%s", m.err);
	ck_assert_msg(!m.out || !strstr(m.out, "\"workflow\":\"W\""), "the other run's history was reported: %s",
		      m.out);
	measured_free(&m);
}
END_TEST

/* A completion already said comes back as a failure: the failure is said
 * once, and that the history lost what was said, once; exit 5. */
START_TEST(follow_event_rewritten)
{
	struct followed f;
	follow_hostile("follow-rewrite", &f);
	ck_assert_msg(f.m.run.status == 5, "status %d: %s", f.m.run.status, f.m.err);
	ck_assert_int_eq(f.asked, 3);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "failed", "A1"), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "completed", "A1"), 1);
	ck_assert_uint_eq(notes_with(f.v, f.n, "no longer holds 1 event said before"), 1);
	/* K=3 gives back the completion: nothing more is lost, nothing said */
	ck_assert_uint_eq(notes_with(f.v, f.n, "no longer holds"), 1);
	followed_free(&f);
}
END_TEST

/* A history that grows by 3 MiB a reading: the reading past the 16 MiB an
 * answer may hold (the sixth) ends the follow, not tried again, with a
 * line, the verdict of what was read and exit 5; the client's memory
 * stays that of about one answer. */
START_TEST(follow_history_grows_without_end)
{
	struct followed f;
	follow_hostile("follow-grow", &f);
	ck_assert_msg(f.m.run.status == 5, "status %d: %s", f.m.run.status, f.m.err);
	ck_assert_msg(strstr(f.m.err, "over 16777216 bytes"), "%s", f.m.err);
	ck_assert_int_eq(f.asked, 6);
	ck_assert_uint_eq(notes_with(f.v, f.n, "reading failed for good: "), 1);
	ck_assert_uint_eq(notes_with(f.v, f.n, "Stopped: a reading failed for good"), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "scheduled", NULL), 160);
	ck_assert_uint_eq(lines_of(f.v, f.n, "run", NULL, NULL), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "summary", NULL, NULL), 1);
	long bound = server_rss_bound_kb(96);
	ck_assert_msg(f.m.run.maxrss_kb < bound, "peak RSS %ld KiB, bound %ld", f.m.run.maxrss_kb, bound);
	followed_free(&f);
}
END_TEST

/* Every other reading answers about another run (ended), and the run's
 * own status goes RUNNING, PENDING and back: those readings are said as
 * failed and tried again, nothing of the other run is said, and the follow
 * ends when the run's own history ends. */
START_TEST(follow_run_id_and_status_flip)
{
	struct followed f;
	follow_hostile("follow-flip", &f);
	ck_assert_msg(f.m.run.status == 0, "status %d: %s", f.m.run.status, f.m.err);
	ck_assert_int_eq(f.asked, 7);
	ck_assert_uint_eq(notes_with(f.v, f.n, "answered about run someone-else, not r1"), 3);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "scheduled", NULL), 4);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "scheduled", "Other"), 0);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "ended", NULL), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "run_started", NULL), 1);
	followed_free(&f);
}
END_TEST

/* A run that continues as new shows its new generation alone: nothing is
 * lost (a line says the history starts over), the new generation's events
 * are said, and the end says the finding of the generation before is not
 * in the verdict. */
START_TEST(follow_continued_as_new)
{
	struct followed f;
	follow_hostile("follow-continue", &f);
	ck_assert_msg(f.m.run.status == 0, "status %d: %s", f.m.run.status, f.m.err);
	ck_assert_int_eq(f.asked, 4);
	ck_assert_uint_eq(notes_with(f.v, f.n, "no longer holds"), 0);
	ck_assert_uint_eq(notes_with(f.v, f.n, "the run continued as new"), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "finding", NULL, NULL), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "run_started", NULL), 2);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "scheduled", NULL), 5);
	ck_assert_msg(summary_notes_hold(f.v, f.n, "1 finding said of the generations before is not in it"), "%s",
		      f.m.out);
	followed_free(&f);
}
END_TEST

/* Each reading in another order: every event is said once, whatever order
 * it comes in, and the follow ends with the run. */
START_TEST(follow_events_far_out_of_order)
{
	struct followed f;
	follow_hostile("follow-shuffle", &f);
	ck_assert_msg(f.m.run.status == 0 || f.m.run.status == 1, "status %d: %s", f.m.run.status, f.m.err);
	ck_assert_int_eq(f.asked, 6);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "scheduled", NULL), 6);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "completed", NULL), 6);
	for (int i = 0; i < 6; i++) {
		char name[8];
		snprintf(name, sizeof name, "A%d", i);
		ck_assert_uint_eq(lines_of(f.v, f.n, "event", "scheduled", name), 1);
	}
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "run_started", NULL), 1);
	ck_assert_uint_eq(lines_of(f.v, f.n, "event", "ended", NULL), 1);
	ck_assert_uint_eq(notes_with(f.v, f.n, "no longer holds"), 0);
	followed_free(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile");
	struct testlib_group *tc = testlib_group("hostile");
	testlib_group_timeout(tc, 600);
	testlib_group_unchecked_fixture(tc, testlib_tmpdir_make, testlib_tmpdir_remove);
	add_loop_test(tc, deep_nesting, 0, (int)(sizeof deep_cases / sizeof *deep_cases));
	add_test(tc, moderate_nesting_is_fine);
	add_loop_test(tc, escapes_neutralised, 0, (int)(sizeof escape_cases / sizeof *escape_cases));
	add_test(tc, duplicate_key_refused);
	add_test(tc, byte_order_mark_skipped);
	testlib_suite_add(s, tc);
	/* Inputs of a hundred megabytes and more, and the longest listings:
	 * bounds measured in the plain pass; the valgrind and sanitizer
	 * passes (CK_EXCLUDE_TAGS=heavy) leave them out. */
	tc = testlib_group("giant");
	testlib_group_timeout(tc, 600);
	testlib_group_tags(tc, "heavy");
	testlib_group_unchecked_fixture(tc, testlib_tmpdir_make, testlib_tmpdir_remove);
	add_test(tc, million_events);
	add_test(tc, hundred_mb_string);
	add_loop_test(tc, run_listing_is_bounded, 0, (int)(sizeof runs_cases / sizeof *runs_cases));
	add_test(tc, endless_input_bounded);
	testlib_suite_add(s, tc);
	/* CK_RUN_CASE=stderr runs these alone. */
	struct testlib_group *st = testlib_group("stderr");
	testlib_group_timeout(st, 120);
	testlib_group_unchecked_fixture(st, testlib_tmpdir_make, testlib_tmpdir_remove);
	add_loop_test(st, server_text_neutralised_on_stderr, 0,
		      (int)(2 * sizeof server_cases / sizeof *server_cases));
	add_test(st, huge_header_names_the_limit);
	testlib_suite_add(s, st);
	tc = testlib_group("server");
	testlib_group_timeout(tc, 300);
	testlib_group_unchecked_fixture(tc, testlib_tmpdir_make, testlib_tmpdir_remove);
	add_loop_test(tc, tools_listing_is_bounded, 0, (int)(sizeof tools_cases / sizeof *tools_cases));
	add_test(tc, cursor_cycle_detected);
	add_test(tc, duplicate_runs_audited_once);
	add_loop_test(tc, final_errors_not_retried, 0, (int)(sizeof final_cases / sizeof *final_cases));
	add_test(tc, server_requests_within_timeout);
	add_test(tc, server_requests_capped);
	testlib_suite_add(s, tc);
	/* A history that changes under run --follow. */
	tc = testlib_group("follow");
	testlib_group_timeout(tc, 300);
	testlib_group_unchecked_fixture(tc, testlib_tmpdir_make, testlib_tmpdir_remove);
	add_test(tc, answer_about_another_run_refused);
	add_test(tc, follow_history_shrinks);
	add_test(tc, follow_event_rewritten);
	add_test(tc, follow_history_grows_without_end);
	add_test(tc, follow_run_id_and_status_flip);
	add_test(tc, follow_continued_as_new);
	add_test(tc, follow_events_far_out_of_order);
	testlib_suite_add(s, tc);
	/* The third round of attacks (CK_RUN_CASE=round3). */
	tc = testlib_group("round3");
	testlib_group_timeout(tc, 300);
	testlib_group_unchecked_fixture(tc, testlib_tmpdir_make, testlib_tmpdir_remove);
	add_test(tc, output_never_through_a_link);
	add_loop_test(tc, token_never_shown, 0, 2);
	add_test(tc, server_userinfo_refused);
	add_test(tc, shrinking_input_is_an_error);
	add_loop_test(tc, compressed_bodies_within_timeout, 0, (int)(sizeof gzip_cases / sizeof *gzip_cases));
	add_loop_test(tc, no_core_dumps, 0, (int)(sizeof core_cases / sizeof *core_cases));
	add_test(tc, closed_stdout_reopened);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
