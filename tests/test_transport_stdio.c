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

struct collect {
	struct transport *t;
	json_int_t id;
	json_t *msgs;
	int answered;
};

static int collect_cb(const char *msg, size_t len, void *ctx, struct err *e)
{
	struct collect *c = ctx;
	ck_assert_int_eq(msg[len], '\0');
	json_error_t jerr;
	json_t *j = json_loadb(msg, len, 0, &jerr);
	ck_assert_msg(j != NULL, "message not JSON: %s: %s", jerr.text, msg);
	json_array_append(c->msgs, j);
	json_t *id = json_object_get(j, "id");
	const char *method = json_string_value(json_object_get(j, "method"));
	int r = 0;
	if (method && id) {
		json_t *ans = json_pack("{s:s, s:O, s:{}}", "jsonrpc", "2.0", "id", id, "result");
		char *text = json_dumps(ans, JSON_COMPACT);
		/* From inside the exchange, on the same transport. */
		ck_assert_int_eq(transport_send(c->t, text, strlen(text), false, NULL, NULL, e), 0);
		c->answered++;
		free(text);
		json_decref(ans);
	} else if (json_is_integer(id) && json_integer_value(id) == c->id) {
		r = 1;
	}
	json_decref(j);
	return r;
}

static json_int_t next_id = 1;

static int call(struct transport *t, const char *method, struct collect *c, struct err *e)
{
	c->t = t;
	c->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_SEQ_CST);
	c->msgs = json_array();
	c->answered = 0;
	json_t *req = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", c->id, "method", method);
	char *text = json_dumps(req, JSON_COMPACT);
	err_clear(e);
	int r = transport_send(t, text, strlen(text), true, collect_cb, c, e);
	free(text);
	json_decref(req);
	return r;
}

static json_t *last_result(struct collect *c)
{
	size_t n = json_array_size(c->msgs);
	ck_assert_uint_gt(n, 0);
	json_t *res = json_object_get(json_array_get(c->msgs, n - 1), "result");
	ck_assert_ptr_nonnull(res);
	return res;
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
	struct collect c;
	struct err e;
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
		ck_assert_uint_eq(json_array_size(c.msgs), 2);
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c.msgs, 0), "method")),
				 "notifications/message");
		ck_assert_str_eq(json_string_value(json_object_get(last_result(&c), "echo")), "tools/list");
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
	struct collect c;
	struct err e;
	ck_assert_msg(call(t, "ask", &c, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(c.answered, 1);
	ck_assert(json_is_true(json_object_get(last_result(&c), "answered")));
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
	struct collect c;
	struct err e;
	ck_assert_msg(call(t, shape_cases[_i].method, &c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(json_array_size(c.msgs), shape_cases[_i].n_msgs);
	ck_assert_ptr_nonnull(json_object_get(last_result(&c), shape_cases[_i].key));
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

START_TEST(child_exits_early)
{
	struct transport *t = stdio_new("exit-early", 0, 0, false);
	struct collect c;
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
	struct collect c;
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
	struct collect c;
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
	struct collect c;
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
	struct collect c;
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
	struct collect c;
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
		struct collect c;
		struct err e;
		if (call(w->t, "tools/call", &c, &e) == 0 &&
		    strcmp(json_string_value(json_object_get(last_result(&c), "echo")), "tools/call") == 0)
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
	TCase *tc = tcase_create("stdio");
	tcase_add_test(tc, echo_roundtrip);
	tcase_add_test(tc, server_request_answered_inside_exchange);
	tcase_add_loop_test(tc, message_shapes, 0, sizeof shape_cases / sizeof *shape_cases);
	tcase_add_test(tc, child_exits_early);
	tcase_add_test(tc, command_not_found);
	tcase_add_test(tc, line_limit);
	tcase_add_test(tc, read_timeout);
	tcase_add_test(tc, close_escalates_to_kill);
	tcase_add_test(tc, stderr_passed_only_when_asked);
	tcase_add_test(tc, concurrent_sends_serialised);
	suite_add_tcase(s, tc);
	return testlib_main(s);
}
