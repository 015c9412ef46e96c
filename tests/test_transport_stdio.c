/* meson-test: integration npm */
/* The stdio transport against tests/sim/stdio-fixture.mjs. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "trace.h"
#include "buf.h"
#include "transport.h"

static char pid_path[64];

static const char *command(const char *mode)
{
	static char cmd[8192];
	snprintf(pid_path, sizeof pid_path, "/tmp/ca-stdio-test-%d.pid", (int)getpid());
	unlink(pid_path);
	snprintf(cmd, sizeof cmd, "'%s' '%s' %s %s", testlib_node(), testlib_src("tests/sim/stdio-fixture.mjs"),
		 mode, pid_path);
	return cmd;
}

static struct transport *stdio_new(const char *mode, long timeout_ms, size_t max_line, bool pass_stderr)
{
	struct transport_stdio_options o = {
		.command = command(mode),
		.timeout_ms = timeout_ms,
		.max_line = max_line,
		.grace_ms = 300,
		.pass_stderr = pass_stderr,
	};
	struct err e;
	err_clear(&e);
	struct transport *t = transport_stdio_new(&o, &e);
	ck_assert_msg(t != NULL, "transport_stdio_new: %s", e.msg);
	return t;
}

static pid_t fixture_pid(void)
{
	/* The fixture writes its pid when it starts; wait for the file. */
	for (int i = 0; i < 500; i++) {
		char *s = testlib_read_file(pid_path, NULL);
		if (s && *s) {
			pid_t p = (pid_t)atoi(s);
			free(s);
			return p;
		}
		free(s);
		usleep(10000);
	}
	ck_abort_msg("the fixture never wrote %s", pid_path);
	return -1;
}

static int call(struct transport *t, const char *method, struct testlib_collect *c, struct err *e)
{
	return testlib_call(t, method, false, c, e);
}

static void assert_reaped(pid_t pid)
{
	/* Our child, reaped by close(): the pid no longer exists. */
	ck_assert_int_eq(kill(pid, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
}

START_TEST(echo_roundtrip)
{
	struct transport *t = stdio_new("echo", 0, 0, false);
	ck_assert_str_eq(t->ops->name, "stdio");
	struct testlib_collect c;
	struct err e;
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
		ck_assert_uint_eq(json_array_size(c.msgs), 2);
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c.msgs, 0), "method")),
				 "notifications/message");
		ck_assert_str_eq(json_string_value(json_object_get(testlib_last_result(&c), "echo")),
				 "tools/list");
		json_decref(c.msgs);
	}
	/* Notifications go without an answer. */
	const char *n = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
	ck_assert_int_eq(transport_send(t, n, strlen(n), false, NULL, NULL, &e), 0);
	ck_assert_int_eq(t->ops->set_header(t, "MCP-Protocol-Version", "x"), 0);
	pid_t pid = fixture_pid();
	transport_free(t);
	assert_reaped(pid);
}
END_TEST

START_TEST(server_request_answered_inside_exchange)
{
	struct transport *t = stdio_new("echo", 10000, 0, false);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "ask", &c, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(c.answered, 1);
	ck_assert(json_is_true(json_object_get(testlib_last_result(&c), "answered")));
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

static const struct {
	const char *method;
	size_t n_msgs;
	const char *key;
} shape_cases[] = {
	{"noise", 2, "echo"}, /* the log line and the blank line are skipped */
	{"batch", 2, "batch"},
	{"crlf", 2, "crlf"},
};

START_TEST(message_shapes)
{
	struct transport *t = stdio_new("echo", 0, 0, false);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, shape_cases[_i].method, &c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(json_array_size(c.msgs), shape_cases[_i].n_msgs);
	ck_assert_ptr_nonnull(json_object_get(testlib_last_result(&c), shape_cases[_i].key));
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

START_TEST(child_exits_early)
{
	struct transport *t = stdio_new("exit-early", 0, 0, false);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "initialize", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "exited with status 3 before the response") != NULL, "%s", e.msg);
	/* Writing to the dead child: an error, not a SIGPIPE killing us. */
	ck_assert_int_eq(call(t, "tools/list", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "exited with status 3") != NULL, "%s", e.msg);
	transport_free(t);
}
END_TEST

START_TEST(command_not_found)
{
	struct transport_stdio_options o = {.command = "/nonexistent/ca-no-such-server --flag"};
	struct err e;
	struct transport *t = transport_stdio_new(&o, &e);
	ck_assert_ptr_nonnull(t);
	struct testlib_collect c;
	ck_assert_int_eq(call(t, "initialize", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "status 127") != NULL, "%s", e.msg);
	transport_free(t);

	o.command = "";
	ck_assert_ptr_null(transport_stdio_new(&o, &e));
	ck_assert_int_eq(e.code, ERR_USAGE);
}
END_TEST

START_TEST(line_limit)
{
	struct transport *t = stdio_new("echo", 10000, 1 << 20, false);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "huge", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "line over 1048576 bytes") != NULL, "%s", e.msg);
	transport_free(t);
}
END_TEST

START_TEST(read_timeout)
{
	struct transport *t = stdio_new("echo", 300, 0, false);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "silent", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.detail, ERR_DETAIL_TIMEOUT);
	ck_assert_msg(strstr(e.msg, "within 300 ms") != NULL, "%s", e.msg);
	transport_free(t);
}
END_TEST

START_TEST(close_escalates_to_kill)
{
	struct transport *t = stdio_new("ignore-term", 0, 0, false);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
	json_decref(c.msgs);
	pid_t pid = fixture_pid();
	/* Neither EOF nor SIGTERM ends it: close() must still return, having
	 * killed and reaped it. */
	t->ops->close(t);
	assert_reaped(pid);
	/* After close, a send fails cleanly. */
	ck_assert_int_eq(call(t, "tools/list", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	transport_free(t);
}
END_TEST

struct trace_lines {
	pthread_mutex_t lock;
	struct buf b;
};

static void collect_trace(const char *line, void *ctx)
{
	struct trace_lines *t = ctx;
	pthread_mutex_lock(&t->lock);
	buf_append(&t->b, line, strlen(line), NULL);
	buf_append(&t->b, "\n", 1, NULL);
	pthread_mutex_unlock(&t->lock);
}

/* Runs one echo exchange with our stderr sent to a file and the trace
 * collected; returns what reached stderr, and the trace in *trace. */
static char *stderr_of_exchange(bool pass, char **trace)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/ca-stdio-stderr-%d", (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	struct trace_lines tl = {.lock = PTHREAD_MUTEX_INITIALIZER};
	buf_init(&tl.b, 0);
	trace_set_sink(collect_trace, &tl);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	close(fd);
	struct transport *t = stdio_new("echo", 0, 0, pass);
	struct testlib_collect c;
	struct err e;
	int r = call(t, "tools/list", &c, &e);
	json_decref(c.msgs);
	transport_free(t);
	dup2(saved, 2);
	close(saved);
	trace_set_sink(NULL, NULL);
	ck_assert_msg(r == 0, "%s", e.msg);
	char *text = testlib_read_file(path, NULL);
	unlink(path);
	ck_assert_ptr_nonnull(text);
	*trace = strndup(tl.b.data ? tl.b.data : "", tl.b.len);
	buf_finish(&tl.b);
	return text;
}

/* Under --verbose (pass_stderr) the server's log is traced a line at a time,
 * neutralised and redacted like all server text; the child never writes to
 * our stderr itself. */
START_TEST(stderr_passed_only_when_asked)
{
	char *trace;
	char *with = stderr_of_exchange(true, &trace);
	ck_assert_msg(strstr(with, "stdio-fixture") == NULL, "raw on stderr: %s", with);
	ck_assert_msg(strstr(trace, "[stdio] server stderr: stdio-fixture: got tools/list") != NULL, "trace: %s",
		      trace);
	ck_assert_msg(strchr(trace, 0x1b) == NULL && strchr(trace, 0x07) == NULL, "control raw in: %s", trace);
	ck_assert_msg(strstr(trace, "tok-secret-1") == NULL, "token in: %s", trace);
	ck_assert_msg(strstr(trace, "<redacted>") != NULL, "trace: %s", trace);
	free(with);
	free(trace);
	char *without = stderr_of_exchange(false, &trace);
	ck_assert_ptr_null(strstr(without, "stdio-fixture"));
	ck_assert_ptr_null(strstr(trace, "server stderr"));
	free(without);
	free(trace);
}
END_TEST

struct worker {
	struct transport *t;
	int ok;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	for (int i = 0; i < 10; i++) {
		struct testlib_collect c;
		struct err e;
		if (call(w->t, "tools/call", &c, &e) == 0 &&
		    strcmp(json_string_value(json_object_get(testlib_last_result(&c), "echo")), "tools/call") == 0)
			w->ok++;
		json_decref(c.msgs);
	}
	return NULL;
}

START_TEST(concurrent_sends_serialised)
{
	struct transport *t = stdio_new("echo", 0, 0, false);
	pthread_t th[4];
	struct worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){.t = t};
		pthread_create(&th[i], NULL, worker_run, &w[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(w[i].ok, 10);
	}
	transport_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("transport_stdio");
	struct testlib_group *tc = testlib_group("stdio");
	add_test(tc, echo_roundtrip);
	add_test(tc, server_request_answered_inside_exchange);
	add_loop_test(tc, message_shapes, 0, sizeof shape_cases / sizeof *shape_cases);
	add_test(tc, child_exits_early);
	add_test(tc, command_not_found);
	add_test(tc, line_limit);
	add_test(tc, read_timeout);
	add_test(tc, close_escalates_to_kill);
	add_test(tc, stderr_passed_only_when_asked);
	add_test(tc, concurrent_sends_serialised);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
