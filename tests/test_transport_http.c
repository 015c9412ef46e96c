/* meson-test: integration npm */
/* The Streamable HTTP transport against tests/sim/http-fixture.mjs, a raw
 * node:http server with one scenario per path. */
#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"
#include "trace.h"
#include "transport.h"

static struct testlib_server server;
static char base_url[256];

static void fixture_start(void)
{
	char *argv[] = {(char *)testlib_node(), (char *)testlib_src("tests/sim/http-fixture.mjs"), NULL};
	if (testlib_server_start(&server, argv, NULL, "LISTENING", 20000) < 0)
		abort();
	snprintf(base_url, sizeof base_url, "%s", server.url);
}

static void fixture_stop(void)
{
	testlib_server_stop(&server);
}

static const char *url_for(const char *path)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ % 4];
	snprintf(b, sizeof bufs[0], "%s%s", base_url, path);
	return b;
}

static struct transport *http_new(const char *path, long timeout_ms, size_t max_message)
{
	struct transport_http_options o = {
		.url = url_for(path),
		.timeout_ms = timeout_ms,
		.max_message = max_message,
	};
	struct err e;
	err_clear(&e);
	struct transport *t = transport_http_new(&o, &e);
	ck_assert_msg(t != NULL, "transport_http_new: %s", e.msg);
	return t;
}

static int call(struct transport *t, const char *method, struct testlib_collect *c, struct err *e)
{
	return testlib_call(t, method, true, c, e);
}

static json_t *fixture_log(struct transport *t)
{
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "fixture/log", &c, &e) == 0, "%s", e.msg);
	json_t *log = json_incref(testlib_last_result(&c));
	json_decref(c.msgs);
	return log;
}

START_TEST(json_answer_and_session)
{
	struct transport *t = http_new("/json", 0, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "initialize", &c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(json_array_size(c.msgs), 1);
	ck_assert_str_eq(json_string_value(json_object_get(testlib_last_result(&c), "echo")), "initialize");
	json_decref(c.msgs);
	char *sid = transport_http_session_id(t);
	ck_assert_ptr_nonnull(sid);
	ck_assert_int_eq(strncmp(sid, "json-", 5), 0);
	/* The fixture answers DELETE on /json with 405: ignored. */
	transport_free(t);

	t = http_new("/json", 0, 0);
	json_t *log = fixture_log(t);
	json_t *dels = json_object_get(log, "deletes");
	bool found = false;
	size_t i;
	json_t *d;
	json_array_foreach(dels, i, d)
		if (json_is_string(json_object_get(d, "session")) &&
		    strcmp(json_string_value(json_object_get(d, "session")), sid) == 0)
			found = true;
	ck_assert_msg(found, "no DELETE for session %s", sid);
	json_decref(log);
	free(sid);
	transport_free(t);
}
END_TEST

static char *trace_text;

static void trace_collect(const char *line, void *ctx)
{
	size_t n = trace_text ? strlen(trace_text) : 0;
	trace_text = realloc(trace_text, n + strlen(line) + 2);
	strcpy(trace_text + n, line);
	strcat(trace_text + n, "\n");
}

START_TEST(headers_bearer_and_trace)
{
	struct transport_http_options o = {.url = url_for("/headers"), .bearer_token = "s3cr3t-token"};
	struct err e;
	struct transport *t = transport_http_new(&o, &e);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->ops->set_header(t, "MCP-Protocol-Version", "2025-11-25"), 0);
	trace_set_sink(trace_collect, NULL);
	struct testlib_collect c;
	ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
	trace_set_sink(NULL, NULL);
	json_t *r = testlib_last_result(&c);
	ck_assert_str_eq(json_string_value(json_object_get(r, "authorization")), "Bearer s3cr3t-token");
	ck_assert_str_eq(json_string_value(json_object_get(r, "protocolVersion")), "2025-11-25");
	ck_assert_str_eq(json_string_value(json_object_get(r, "accept")), "application/json, text/event-stream");
	ck_assert_str_eq(json_string_value(json_object_get(r, "contentType")), "application/json");
	json_decref(c.msgs);
	ck_assert_ptr_nonnull(trace_text);
	ck_assert_ptr_null(strstr(trace_text, "s3cr3t"));
	ck_assert_ptr_nonnull(strstr(trace_text, "Authorization: Bearer <redacted>"));
	ck_assert_ptr_nonnull(strstr(trace_text, "> POST http://127.0.0.1:"));
	ck_assert_ptr_nonnull(strstr(trace_text, "< HTTP/1.1 200"));
	free(trace_text);
	trace_text = NULL;

	/* A new token through set_header; removal of a header. */
	ck_assert_int_eq(t->ops->set_header(t, "Authorization", "Bearer other"), 0);
	ck_assert_int_eq(t->ops->set_header(t, "MCP-Protocol-Version", NULL), 0);
	ck_assert_int_eq(t->ops->set_header(t, "Bad\r\nName", "x"), -1);
	ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
	r = testlib_last_result(&c);
	ck_assert_str_eq(json_string_value(json_object_get(r, "authorization")), "Bearer other");
	ck_assert(json_is_null(json_object_get(r, "protocolVersion")));
	json_decref(c.msgs);
	ck_assert_int_eq(transport_set_bearer(t, NULL), 0);
	ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
	ck_assert(json_is_null(json_object_get(testlib_last_result(&c), "authorization")));
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

START_TEST(batch_is_split)
{
	struct transport *t = http_new("/batch", 0, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(json_array_size(c.msgs), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c.msgs, 0), "method")),
			 "notifications/message");
	ck_assert(json_is_true(json_object_get(testlib_last_result(&c), "batch")));
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

START_TEST(sse_interleaved_with_server_request)
{
	struct transport *t = http_new("/sse", 10000, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "tools/call", &c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(json_array_size(c.msgs), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c.msgs, 0), "method")),
			 "notifications/progress");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c.msgs, 1), "method")), "ping");
	ck_assert_int_eq(c.answered, 1);
	json_t *r = testlib_last_result(&c);
	ck_assert(json_is_true(json_object_get(r, "sse")));
	/* The server got our answer while its stream was still open. */
	ck_assert(json_is_true(json_object_get(r, "answered")));
	json_decref(c.msgs);
	/* A session id from a streamed answer counts too. */
	char *sid = transport_http_session_id(t);
	ck_assert_str_eq(sid, "sse-session");
	free(sid);
	transport_free(t);
}
END_TEST

START_TEST(sse_crlf_split)
{
	struct transport *t = http_new("/crlf", 0, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "tools/call", &c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(json_array_size(c.msgs), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c.msgs, 0), "method")),
			 "notifications/x");
	ck_assert(json_is_true(json_object_get(testlib_last_result(&c), "crlf")));
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

START_TEST(session_expiry_and_delete)
{
	struct transport *t = http_new("/session", 0, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "initialize", &c, &e) == 0, "%s", e.msg);
	char *sid = strdup(json_string_value(json_object_get(testlib_last_result(&c), "session")));
	json_decref(c.msgs);
	char *held = transport_http_session_id(t);
	ck_assert_str_eq(held, sid);
	free(held);
	ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(json_string_value(json_object_get(testlib_last_result(&c), "session")), sid);
	json_decref(c.msgs);
	ck_assert_msg(call(t, "expire", &c, &e) == 0, "%s", e.msg);
	json_decref(c.msgs);

	ck_assert_int_eq(call(t, "tools/list", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.detail, ERR_DETAIL_SESSION_EXPIRED);
	ck_assert_int_eq(e.http_status, 404);

	/* Without a session the fixture says 400: not an expiry. */
	t->ops->reset_session(t);
	ck_assert_ptr_null(transport_http_session_id(t));
	ck_assert_int_eq(call(t, "tools/list", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.detail, ERR_DETAIL_NONE);
	ck_assert_int_eq(e.http_status, 400);
	ck_assert_ptr_nonnull(strstr(e.msg, "HTTP 400"));
	ck_assert_ptr_nonnull(strstr(e.msg, "no session"));

	ck_assert_msg(call(t, "initialize", &c, &e) == 0, "%s", e.msg);
	char *sid2 = strdup(json_string_value(json_object_get(testlib_last_result(&c), "session")));
	json_decref(c.msgs);
	ck_assert_str_ne(sid, sid2);
	transport_free(t);

	t = http_new("/json", 0, 0);
	json_t *log = fixture_log(t);
	bool found = false;
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(log, "deletes"), i, d)
		if (strcmp(json_string_value(json_object_get(d, "path")), "/session") == 0 &&
		    json_is_string(json_object_get(d, "session")) &&
		    strcmp(json_string_value(json_object_get(d, "session")), sid2) == 0)
			found = true;
	ck_assert_msg(found, "no DELETE of %s", sid2);
	json_decref(log);
	transport_free(t);
	free(sid);
	free(sid2);
}
END_TEST

START_TEST(sse_resume_with_last_event_id)
{
	struct transport *t = http_new("/resume", 10000, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "tools/call", &c, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(json_array_size(c.msgs), 3);
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(json_array_get(c.msgs, 0), "params"), "data")),
		"before drop");
	ck_assert_str_eq(
		json_string_value(json_object_get(json_object_get(json_array_get(c.msgs, 1), "params"), "data")),
		"after resume");
	json_t *r = testlib_last_result(&c);
	ck_assert(json_is_true(json_object_get(r, "resumed")));
	ck_assert_str_eq(json_string_value(json_object_get(r, "lastEventId")), "ev-2");
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

START_TEST(sse_resume_after_clean_end)
{
	struct transport *t = http_new("/resume-graceful", 10000, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_msg(call(t, "tools/call", &c, &e) == 0, "%s", e.msg);
	/* The priming event carries no message; the GET brings two. */
	ck_assert_uint_eq(json_array_size(c.msgs), 2);
	ck_assert_str_eq(json_string_value(json_object_get(testlib_last_result(&c), "lastEventId")), "g-1");
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

START_TEST(sse_resumptions_bounded)
{
	struct transport *t = http_new("/resume-forever", 10000, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	ck_assert_uint_eq(json_array_size(c.msgs), 0);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "GET ") != NULL &&
			      strstr(e.msg, "stream ended before the response after 3 resumptions"),
		      "%s", e.msg);
	json_t *log = fixture_log(t);
	size_t i, n = 0;
	json_t *id;
	json_array_foreach(json_object_get(log, "lastEventIds"), i, id)
		if (json_is_string(id) && strncmp(json_string_value(id), "f-", 2) == 0)
			n++;
	/* Each resumption asked from the last id it had seen: f-0, f-1, f-2. */
	ck_assert_uint_eq(n, 3);
	json_decref(log);
	transport_free(t);
}
END_TEST

START_TEST(sse_drop_without_id)
{
	struct transport *t = http_new("/nodrop-noid", 0, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	ck_assert_uint_eq(json_array_size(c.msgs), 1); /* the notification came */
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "stream ended before the response") != NULL, "%s", e.msg);
	transport_free(t);
}
END_TEST

START_TEST(sse_truncated)
{
	struct transport *t = http_new("/truncated", 0, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	ck_assert_uint_eq(json_array_size(c.msgs), 0);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "stream ended before the response (in the middle of an event)") != NULL, "%s",
		      e.msg);
	transport_free(t);
}
END_TEST

/* Path, expected code, detail, status, message fragment. */
static const struct {
	const char *path;
	enum err_code code;
	enum err_detail detail;
	long status;
	const char *fragment;
} status_cases[] = {
	{"/503", ERR_PROTOCOL, ERR_DETAIL_RETRYABLE, 503, "HTTP 503"},
	{"/429", ERR_PROTOCOL, ERR_DETAIL_RETRYABLE, 429, "HTTP 429"},
	{"/401", ERR_AUTH, ERR_DETAIL_UNAUTHORIZED, 401, "HTTP 401"},
	{"/403", ERR_AUTH, ERR_DETAIL_FORBIDDEN, 403, "HTTP 403"},
	{"/nonexistent", ERR_PROTOCOL, ERR_DETAIL_NONE, 404, "HTTP 404"},
	{"/wrongtype", ERR_PROTOCOL, ERR_DETAIL_NONE, 200, "unexpected content type 'text/html'"},
	/* Bytes that are wrong, not missing: asking again gets them again. */
	{"/notjson", ERR_PROTOCOL, ERR_DETAIL_FINAL, 0, "message is not JSON"},
	{"/badutf8", ERR_PROTOCOL, ERR_DETAIL_FINAL, 0, "not valid UTF-8"},
	{"/badutf8-sse", ERR_PROTOCOL, ERR_DETAIL_FINAL, 0, "not valid UTF-8"},
	{"/bigline", ERR_PROTOCOL, ERR_DETAIL_FINAL, 0, "message is not JSON"},
	{"/accepted", ERR_PROTOCOL, ERR_DETAIL_NONE, 202, "HTTP 202 with no response"},
};

START_TEST(status_errors)
{
	struct transport *t = http_new(status_cases[_i].path, 20000, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, status_cases[_i].code);
	ck_assert_int_eq(e.detail, status_cases[_i].detail);
	if (status_cases[_i].status)
		ck_assert_int_eq(e.http_status, status_cases[_i].status);
	ck_assert_msg(strstr(e.msg, status_cases[_i].fragment) != NULL, "%s: %s", status_cases[_i].path, e.msg);
	ck_assert_ptr_nonnull(strstr(e.msg, url_for(status_cases[_i].path)));
	transport_free(t);
}
END_TEST

START_TEST(retry_after_and_www_authenticate)
{
	struct transport *t = http_new("/503", 0, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert(e.retry_after == 7.0);
	transport_free(t);

	t = http_new("/429", 0, 0);
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	json_decref(c.msgs);
	/* An HTTP-date two minutes ahead. */
	ck_assert_msg(e.retry_after > 100 && e.retry_after <= 121, "retry_after %f", e.retry_after);
	transport_free(t);

	t = http_new("/401", 0, 0);
	ck_assert_ptr_null(transport_www_authenticate(t));
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	json_decref(c.msgs);
	char *w = transport_www_authenticate(t);
	ck_assert_ptr_nonnull(w);
	ck_assert_str_eq(w, "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\"");
	free(w);
	transport_free(t);
}
END_TEST

START_TEST(event_size_bound)
{
	struct transport *t = http_new("/bigline", 20000, 1 << 20);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "SSE event over 1048576 bytes") != NULL, "%s", e.msg);
	ck_assert_int_eq(e.detail, ERR_DETAIL_FINAL); /* over the limit: never retried */
	transport_free(t);
}
END_TEST

START_TEST(total_timeout)
{
	struct transport *t = http_new("/slow", 300, 0);
	struct testlib_collect c;
	struct err e;
	ck_assert_int_eq(call(t, "tools/call", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.detail, ERR_DETAIL_TIMEOUT);
	ck_assert_msg(strstr(e.msg, "imed out") != NULL, "%s", e.msg); /* curl's text */
	transport_free(t);
}
END_TEST

START_TEST(notification_accepted)
{
	struct transport *t = http_new("/accepted", 0, 0);
	struct err e;
	err_clear(&e);
	const char *n = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
	ck_assert_int_eq(transport_send(t, n, strlen(n), false, NULL, NULL, &e), 0);
	transport_free(t);
}
END_TEST

START_TEST(connection_refused)
{
	/* A port that was free a moment ago. */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	socklen_t al = sizeof a;
	getsockname(fd, (struct sockaddr *)&a, &al);
	close(fd);
	char url[128];
	snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", ntohs(a.sin_port));
	struct transport_http_options o = {.url = url};
	struct err e;
	struct transport *t = transport_http_new(&o, &e);
	ck_assert_ptr_nonnull(t);
	struct testlib_collect c;
	ck_assert_int_eq(call(t, "initialize", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.http_status, 0);
	/* libcurl's error buffer names what failed. */
	ck_assert_msg(strstr(e.msg, "onnect") != NULL, "%s", e.msg);
	transport_free(t);
}
END_TEST

START_TEST(bad_urls)
{
	struct err e;
	struct transport_http_options o = {.url = "ftp://127.0.0.1/x"};
	ck_assert_ptr_null(transport_http_new(&o, &e));
	ck_assert_int_eq(e.code, ERR_USAGE);
	o.url = "not a url";
	ck_assert_ptr_null(transport_http_new(&o, &e));
	ck_assert_int_eq(e.code, ERR_USAGE);
}
END_TEST

/* The session's choice: a server URL's scheme picks its row, a command
 * the stdio row; an unknown scheme reaches HTTP, which refuses it. */
START_TEST(kind_by_scheme)
{
	ck_assert_str_eq(transport_kind_for("https://mcp.example.com/mcp", false)->name, "http");
	ck_assert_str_eq(transport_kind_for("HTTP://127.0.0.1:1/mcp", false)->name, "http");
	ck_assert(transport_kind_for("https://x", false)->signs_in);
	ck_assert_str_eq(transport_kind_for("node server.js", true)->name, "stdio");
	ck_assert(!transport_kind_for("node server.js", true)->signs_in);
	const struct transport_kind *k = transport_kind_for("ftp://127.0.0.1/x", false);
	ck_assert_str_eq(k->name, "http");
	struct transport_target tt = {.address = "ftp://127.0.0.1/x"};
	struct err e;
	ck_assert_ptr_null(k->open(&tt, &e));
	ck_assert_int_eq(e.code, ERR_USAGE);
	ck_assert_msg(strstr(e.msg, "only http and https"), "%s", e.msg);
}
END_TEST

START_TEST(connection_reused)
{
	struct transport *t = http_new("/json", 0, 0);
	json_t *log = fixture_log(t);
	json_int_t before = json_integer_value(json_object_get(log, "connections"));
	json_decref(log);
	for (int i = 0; i < 5; i++) {
		struct testlib_collect c;
		struct err e;
		ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
		json_decref(c.msgs);
	}
	log = fixture_log(t);
	ck_assert_int_eq(json_integer_value(json_object_get(log, "connections")), before);
	json_decref(log);
	transport_free(t);
}
END_TEST

struct worker {
	struct transport *t;
	int ok;
	json_int_t base;
};

static int worker_cb(const char *msg, size_t len, void *ctx, struct err *e)
{
	return 1;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	for (int i = 0; i < 10; i++) {
		char body[128];
		snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"tools/call\"}",
			 (long long)(w->base + i));
		struct err e;
		err_clear(&e);
		if (transport_send(w->t, body, strlen(body), true, worker_cb, w, &e) == 0)
			w->ok++;
	}
	return NULL;
}

START_TEST(concurrent_sends)
{
	struct transport_http_options o = {.url = url_for("/json"), .max_parallel = 4};
	struct err e;
	struct transport *t = transport_http_new(&o, &e);
	ck_assert_ptr_nonnull(t);
	json_t *log = fixture_log(t);
	json_int_t before = json_integer_value(json_object_get(log, "connections"));
	json_decref(log);
	pthread_t th[4];
	struct worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){.t = t, .base = 1000 * (i + 1)};
		pthread_create(&th[i], NULL, worker_run, &w[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(w[i].ok, 10);
	}
	log = fixture_log(t);
	/* At most one connection per concurrent sender, not one per send. */
	ck_assert_int_le(json_integer_value(json_object_get(log, "connections")) - before, 4);
	json_decref(log);
	transport_free(t);
}
END_TEST

/* HTTPS with a private CA: the fixture's self-signed certificate. */
static struct testlib_server tls_server;
static char tls_dir[64];
static char tls_cert[128];

static void tls_start(void)
{
	snprintf(tls_dir, sizeof tls_dir, "/tmp/ca-tls-%d", (int)getpid());
	mkdir(tls_dir, 0700);
	snprintf(tls_cert, sizeof tls_cert, "%s/cert.pem", tls_dir);
	char key[128];
	snprintf(key, sizeof key, "%s/key.pem", tls_dir);
	char *gen[] = {"openssl",
		       "req",
		       "-x509",
		       "-newkey",
		       "ec",
		       "-pkeyopt",
		       "ec_paramgen_curve:prime256v1",
		       "-nodes",
		       "-keyout",
		       key,
		       "-out",
		       tls_cert,
		       "-days",
		       "1",
		       "-subj",
		       "/CN=127.0.0.1",
		       "-addext",
		       "subjectAltName=IP:127.0.0.1",
		       NULL};
	struct testlib_output out;
	if (testlib_run(gen, NULL, NULL, 0, 30000, &out) < 0 || out.status != 0) {
		fprintf(stderr, "openssl failed: %s\n", out.err ? out.err : "");
		abort();
	}
	testlib_output_free(&out);
	char *argv[] = {(char *)testlib_node(),
			(char *)testlib_src("tests/sim/http-fixture.mjs"),
			"--tls",
			tls_cert,
			key,
			NULL};
	if (testlib_server_start(&tls_server, argv, NULL, "LISTENING", 20000) < 0)
		abort();
}

static void tls_stop(void)
{
	testlib_server_stop(&tls_server);
	char path[128];
	snprintf(path, sizeof path, "%s/key.pem", tls_dir);
	unlink(path);
	unlink(tls_cert);
	rmdir(tls_dir);
}

START_TEST(tls_with_private_ca_and_http2)
{
	char url[128];
	snprintf(url, sizeof url, "https://127.0.0.1:%d/headers", tls_server.port);
	struct transport_http_options o = {.url = url, .cacert = tls_cert};
	struct err e;
	struct transport *t = transport_http_new(&o, &e);
	ck_assert_ptr_nonnull(t);
	struct testlib_collect c;
	ck_assert_msg(call(t, "tools/list", &c, &e) == 0, "%s", e.msg);
	/* The server offers h2 by ALPN; we take it. */
	ck_assert_str_eq(json_string_value(json_object_get(testlib_last_result(&c), "httpVersion")), "2.0");
	json_decref(c.msgs);
	transport_free(t);
}
END_TEST

START_TEST(tls_unknown_ca_refused)
{
	char url[128];
	snprintf(url, sizeof url, "https://127.0.0.1:%d/headers", tls_server.port);
	struct transport_http_options o = {.url = url};
	struct err e;
	struct transport *t = transport_http_new(&o, &e);
	ck_assert_ptr_nonnull(t);
	struct testlib_collect c;
	ck_assert_int_eq(call(t, "tools/list", &c, &e), -1);
	json_decref(c.msgs);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.http_status, 0);
	ck_assert_msg(strstr(e.msg, "certificate") != NULL, "%s", e.msg);
	transport_free(t);
}
END_TEST

/* A message handed up must be strict UTF-8 (RFC 3629) as a whole. */
START_TEST(utf8_check)
{
#define S(lit) lit, sizeof lit - 1
	static const struct {
		const char *s;
		size_t len;
		bool valid;
	} cases[] = {
		{S(""), true},
		{S("{\"a\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}"), true},
		{S("a\0b"), true}, /* U+0000 is a code point like any */
		{S("\xf4\x8f\xbf\xbf"), true},
		{S("\xc0\xaf"), false},         /* overlong */
		{S("\xe0\x9f\xbf"), false},     /* overlong */
		{S("\xed\xa0\x80"), false},     /* a surrogate */
		{S("\xf4\x90\x80\x80"), false}, /* past U+10FFFF */
		{S("\xe2\x82"), false},         /* cut short */
		{S("ok \xff"), false},
	};
#undef S
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ck_assert_msg(transport_utf8_valid(cases[i].s, cases[i].len) == cases[i].valid, "case %zu", i);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("transport_http");
	struct testlib_group *tc = testlib_group("http");
	testlib_group_unchecked_fixture(tc, fixture_start, fixture_stop);
	add_test(tc, json_answer_and_session);
	add_test(tc, utf8_check);
	add_test(tc, headers_bearer_and_trace);
	add_test(tc, batch_is_split);
	add_test(tc, sse_interleaved_with_server_request);
	add_test(tc, sse_crlf_split);
	add_test(tc, session_expiry_and_delete);
	add_test(tc, sse_resume_with_last_event_id);
	add_test(tc, sse_resume_after_clean_end);
	add_test(tc, sse_resumptions_bounded);
	add_test(tc, sse_drop_without_id);
	add_test(tc, sse_truncated);
	add_loop_test(tc, status_errors, 0, sizeof status_cases / sizeof *status_cases);
	add_test(tc, retry_after_and_www_authenticate);
	add_test(tc, event_size_bound);
	add_test(tc, total_timeout);
	add_test(tc, notification_accepted);
	add_test(tc, connection_refused);
	add_test(tc, bad_urls);
	add_test(tc, kind_by_scheme);
	add_test(tc, connection_reused);
	add_test(tc, concurrent_sends);
	testlib_suite_add(s, tc);
	tc = testlib_group("tls");
	testlib_group_unchecked_fixture(tc, tls_start, tls_stop);
	add_test(tc, tls_with_private_ca_and_http2);
	add_test(tc, tls_unknown_ca_refused);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
