/* The MCP session against a scripted in-memory transport: every behaviour
 * that a real server shows only sometimes (paging loops, server requests
 * mid-call, stray ids, session expiry, concurrent callers) on demand. */

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"
#include "mcp.h"
#include "monotime.h"
#include "fake_transport.h"
#include "testlib.h"

struct fake;
/* Answers tools/list and tools/call: calls fake_deliver() with what the
 * server would send. */
typedef int (*fake_script)(struct fake *f, json_t *req, long long id);

struct fake {
	struct fake_transport ft; /* first: the answer functions get it */
	bool expired;             /* requests fail with a 404 until the next initialize */
	bool forgetful;           /* ... and even after it */
	bool refuse_init;         /* initialize gets a JSON-RPC error */
	const char *server_version;
	fake_script script;       /* tools/list and tools/call */
	int pages;                /* tools/list calls answered */
	int answer_hold_ms;       /* each of our answers to a server request takes this long */
	long answer_timeouts[32]; /* transport_send_timeout(60 s) seen by each answer */
	int n_answers;
};

static int fake_answer(struct fake_transport *ft, json_t *msg, const char *method, struct err *e)
{
	struct fake *f = (struct fake *)ft;
	pthread_mutex_lock(&ft->lock);
	bool init = strcmp(method, "initialize") == 0;
	if (init)
		f->expired = false;
	bool expire = !init && (f->expired || f->forgetful);
	pthread_mutex_unlock(&ft->lock);
	if (expire) {
		err_set(e, ERR_PROTOCOL, "HTTP 404: session not found");
		e->detail = ERR_DETAIL_SESSION_EXPIRED;
		return -1;
	}
	long long id = json_integer_value(json_object_get(msg, "id"));
	if (init && f->refuse_init)
		fake_deliver(
			"{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32602,\"message\":\"go away\"}}",
			id);
	else if (init)
		fake_deliver(
			"{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"protocolVersion\":\"%s\","
			"\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"fake\",\"version\":\"1\"}}}",
			id, f->server_version);
	else if (f->script)
		f->script(f, msg, id);
	return 0;
}

/* Our answer to a server request: held as a slow server holds it. */
static void fake_note(struct fake_transport *ft, json_t *msg)
{
	struct fake *f = (struct fake *)ft;
	if (json_object_get(msg, "method"))
		return;
	pthread_mutex_lock(&ft->lock);
	if (f->n_answers < 32)
		f->answer_timeouts[f->n_answers] = transport_send_timeout(60000);
	f->n_answers++;
	pthread_mutex_unlock(&ft->lock);
	if (f->answer_hold_ms)
		monotime_sleep_ms(f->answer_hold_ms);
}

static void fake_init(struct fake *f, const char *version, fake_script script)
{
	memset(f, 0, sizeof *f);
	fake_transport_init(&f->ft, fake_answer);
	f->ft.note = fake_note;
	f->server_version = version;
	f->script = script;
}

static void fake_finish(struct fake *f)
{
	fake_transport_finish(&f->ft);
}

static json_t *sent_nth(struct fake *f, const char *method, int n)
{
	return fake_sent_nth(&f->ft, method, n);
}

static int count_sent(struct fake *f, const char *method)
{
	return fake_count_sent(&f->ft, method);
}

/* --- initialize ------------------------------------------------------- */

static const struct {
	const char *server_version;
	bool accepted;
} versions[] = {
	{"2025-11-25", true},  {"2025-06-18", true},  {"2025-03-26", true},
	{"2024-11-05", false}, {"2026-07-28", false}, {"", false},
};

START_TEST(initialize_negotiates_version)
{
	struct fake f;
	fake_init(&f, versions[_i].server_version, NULL);
	struct mcp_options o = {.client_name = "unit", .client_version = "9.9"};
	struct mcp_session *s = mcp_session_new(&f.ft.base, &o);
	struct err e;
	err_clear(&e);
	int rc = mcp_initialize(s, &e);
	json_t *init = sent_nth(&f, "initialize", 0);
	ck_assert_ptr_nonnull(init);
	json_t *params = json_object_get(init, "params");
	ck_assert_str_eq(json_string_value(json_object_get(params, "protocolVersion")), "2025-11-25");
	/* No sampling, roots or elicitation: we never act for a model. */
	ck_assert(json_is_object(json_object_get(params, "capabilities")));
	ck_assert_int_eq(json_object_size(json_object_get(params, "capabilities")), 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(params, "clientInfo"), "name")),
			 "unit");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(params, "clientInfo"), "version")),
			 "9.9");
	if (versions[_i].accepted) {
		ck_assert_msg(rc == 0, "%s", e.msg);
		ck_assert_str_eq(mcp_protocol_version(s), versions[_i].server_version);
		ck_assert_str_eq(json_string_value(json_object_get(f.ft.headers, "MCP-Protocol-Version")),
				 versions[_i].server_version);
		/* initialized comes after initialize, as a notification (no id). */
		json_t *note = sent_nth(&f, "notifications/initialized", 0);
		ck_assert_ptr_nonnull(note);
		ck_assert_ptr_null(json_object_get(note, "id"));
		/* The 2026-07-28 probe went first, refused as a legacy server
		 * refuses it; then the handshake. */
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(f.ft.sent, 0), "method")),
				 "server/discover");
		ck_assert_ptr_eq(json_array_get(f.ft.sent, 1), init);
		ck_assert_ptr_eq(json_array_get(f.ft.sent, 2), note);
		ck_assert_str_eq(json_string_value(json_object_get(
					 json_object_get(mcp_server_info_get(s), "serverInfo"), "name")),
				 "fake");
	} else {
		ck_assert_int_eq(rc, -1);
		ck_assert_int_eq(e.code, ERR_PROTOCOL);
		ck_assert_msg(strstr(e.msg, "protocol version"), "%s", e.msg);
		char quoted[64];
		snprintf(quoted, sizeof quoted, "'%s'", versions[_i].server_version);
		ck_assert_msg(strstr(e.msg, quoted), "%s", e.msg);
		ck_assert_int_eq(count_sent(&f, "notifications/initialized"), 0);
		ck_assert_ptr_null(json_object_get(f.ft.headers, "MCP-Protocol-Version"));
	}
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

START_TEST(initialize_rpc_error)
{
	struct fake f;
	fake_init(&f, "2025-11-25", NULL);
	f.refuse_init = true;
	struct mcp_session *s = mcp_session_new(&f.ft.base, NULL);
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(mcp_initialize(s, &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_str_eq(e.msg, "initialize: server error -32602: go away");
	ck_assert_ptr_null(mcp_protocol_version(s));
	ck_assert_int_eq(count_sent(&f, "notifications/initialized"), 0);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

/* --- tools/list ------------------------------------------------------- */

static int script_three_pages(struct fake *f, json_t *req, long long id)
{
	json_t *cursor = json_object_get(json_object_get(req, "params"), "cursor");
	f->pages++;
	if (!cursor)
		return fake_deliver(
			"{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"tools\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
			"\"nextCursor\":\"p2\"}}",
			id);
	if (strcmp(json_string_value(cursor), "p2") == 0)
		return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"tools\":[{\"name\":\"c\"}],"
				    "\"nextCursor\":\"p3\"}}",
				    id);
	ck_assert_str_eq(json_string_value(cursor), "p3");
	return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"tools\":[{\"name\":\"d\"}]}}", id);
}

static int script_repeated_cursor(struct fake *f, json_t *req, long long id)
{
	(void)req;
	f->pages++;
	return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"tools\":[{\"name\":\"x\"}],"
			    "\"nextCursor\":\"%s\"}}",
			    id, f->pages % 2 ? "odd" : "even");
}

static int script_endless(struct fake *f, json_t *req, long long id)
{
	(void)req;
	f->pages++;
	return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"tools\":[],\"nextCursor\":\"c%d\"}}",
			    id, f->pages);
}

/* 4,000 tools a page, a new cursor each page (the repeat check is not
 * what stops it). */
static int script_many_tools(struct fake *f, json_t *req, long long id)
{
	(void)req;
	f->pages++;
	json_t *tools = json_array();
	for (int i = 0; i < 4000; i++)
		json_array_append_new(tools, json_pack("{s:s}", "name", "t"));
	char cursor[32];
	snprintf(cursor, sizeof cursor, "c%d", f->pages);
	json_t *msg = json_pack("{s:s, s:I, s:{s:o, s:s}}", "jsonrpc", "2.0", "id", (json_int_t)id, "result",
				"tools", tools, "nextCursor", cursor);
	char *text = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	int rc = fake_deliver("%s", text);
	free(text);
	return rc;
}

/* One tool with a 5 MB description a page, new cursors without end. */
static int script_fat_tools(struct fake *f, json_t *req, long long id)
{
	(void)req;
	f->pages++;
	size_t n = 5u << 20;
	char *desc = malloc(n + 1);
	ck_assert_ptr_nonnull(desc);
	memset(desc, 'd', n);
	desc[n] = '\0';
	int rc = fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"tools\":[{\"name\":\"fat\","
			      "\"description\":\"%s\"}],\"nextCursor\":\"c%d\"}}",
			      id, desc, f->pages);
	free(desc);
	return rc;
}

static int script_no_tools_array(struct fake *f, json_t *req, long long id)
{
	(void)f, (void)req;
	return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"tool\":[]}}", id);
}

static int script_list_refused(struct fake *f, json_t *req, long long id)
{
	(void)f, (void)req;
	return fake_deliver(
		"{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32601,\"message\":\"no tools here\"}}", id);
}

static struct mcp_session *session_up(struct fake *f)
{
	struct mcp_session *s = mcp_session_new(&f->ft.base, NULL);
	struct err e;
	err_clear(&e);
	ck_assert_msg(mcp_initialize(s, &e) == 0, "%s", e.msg);
	return s;
}

START_TEST(list_tools_follows_every_page)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_three_pages);
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	json_t *tools = mcp_list_tools(s, &e);
	ck_assert_msg(tools != NULL, "%s", e.msg);
	ck_assert_int_eq(json_array_size(tools), 4);
	const char *want[] = {"a", "b", "c", "d"};
	for (size_t i = 0; i < 4; i++)
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(tools, i), "name")), want[i]);
	ck_assert_int_eq(f.pages, 3);
	json_decref(tools);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

static int script_null_id_error(struct fake *f, json_t *req, long long id)
{
	(void)f, (void)req, (void)id;
	return fake_deliver(
		"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}");
}

static const struct {
	fake_script script;
	const char *expect;
	int max_pages;
} bad_lists[] = {
	{script_repeated_cursor, "repeated cursor 'odd'", 3},
	{script_endless, "after 1000 pages", 1000},
	{script_many_tools, "more than 10000 tools (page 3)", 3},
	{script_fat_tools, "over 16 MiB", 4},
	{script_no_tools_array, "no \"tools\" array", 0},
	{script_list_refused, "server error -32601: no tools here", 0},
	{script_null_id_error, "tools/list: server error -32700: Parse error", 0},
};

START_TEST(list_tools_bad_servers)
{
	struct fake f;
	fake_init(&f, "2025-11-25", bad_lists[_i].script);
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	ck_assert_ptr_null(mcp_list_tools(s, &e));
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, bad_lists[_i].expect), "%s", e.msg);
	ck_assert_int_eq(f.pages, bad_lists[_i].max_pages);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

/* --- tools/call ------------------------------------------------------- */

/* Everything a server may do before it answers, then the answer. */
static int script_busy_server(struct fake *f, json_t *req, long long id)
{
	(void)f, (void)req;
	fake_deliver(
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}}");
	fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":\"srv-ping\",\"method\":\"ping\"}");
	fake_deliver(
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%lld,"
		"\"progress\":1,\"total\":4,\"message\":\"one\"}}",
		id);
	/* progress for somebody else's call: not ours to show */
	fake_deliver(
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%lld,"
		"\"progress\":3}}",
		id + 100000);
	fake_deliver(
		"{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"elicitation/create\",\"params\":{\"message\":\"?\"}}");
	fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"sampling/createMessage\",\"params\":{}}");
	fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"roots/list\"}");
	fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":44,\"method\":\"something/new\"}");
	fake_deliver("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/unknown\"}");
	/* a response to nothing we asked: ignored, the wait goes on */
	fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"content\":[]}}", id + 7);
	fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":\"%lld\",\"result\":{\"content\":[]}}", id);
	fake_deliver(
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%lld,"
		"\"progress\":4,\"total\":4}}",
		id);
	return fake_deliver(
		"{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}",
		id);
}

struct progress_log {
	int n;
	double progress[8], total[8];
	char message[8][32];
};

static void on_progress(double progress, double total, const char *message, void *ctx)
{
	struct progress_log *l = ctx;
	ck_assert_int_lt(l->n, 8);
	l->progress[l->n] = progress;
	l->total[l->n] = total;
	snprintf(l->message[l->n], sizeof l->message[0], "%s", message ? message : "");
	l->n++;
}

START_TEST(call_answers_server_requests)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_busy_server);
	struct progress_log log = {0};
	struct mcp_options o = {.on_progress = on_progress, .progress_ctx = &log};
	struct mcp_session *s = mcp_session_new(&f.ft.base, &o);
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(mcp_initialize(s, &e), 0);
	struct mcp_tool_result r;
	json_t *args = json_pack("{s:s}", "runId", "r1");
	ck_assert_msg(mcp_call_tool(s, "catalyst_get_workflow_run", args, &r, &e) == 0, "%s", e.msg);
	ck_assert_ptr_null(r.rpc_error);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r.content, 0), "text")), "done");

	/* The request carried the arguments and a progress token = its id. */
	json_t *call = sent_nth(&f, "tools/call", 0);
	json_t *params = json_object_get(call, "params");
	ck_assert_str_eq(json_string_value(json_object_get(params, "name")), "catalyst_get_workflow_run");
	ck_assert(json_equal(json_object_get(params, "arguments"), args));
	ck_assert(json_equal(json_object_get(json_object_get(params, "_meta"), "progressToken"),
			     json_object_get(call, "id")));

	/* ping got an empty result, each other request a -32601, in order. */
	json_t *pong = sent_nth(&f, NULL, 0);
	ck_assert_str_eq(json_string_value(json_object_get(pong, "id")), "srv-ping");
	ck_assert(json_is_object(json_object_get(pong, "result")));
	ck_assert_int_eq(json_object_size(json_object_get(pong, "result")), 0);
	for (int i = 0; i < 4; i++) {
		json_t *refusal = sent_nth(&f, NULL, i + 1);
		ck_assert_ptr_nonnull(refusal);
		ck_assert_int_eq(json_integer_value(json_object_get(refusal, "id")), 41 + i);
		ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(refusal, "error"), "code")),
				 -32601);
		ck_assert_ptr_null(json_object_get(refusal, "result"));
	}
	ck_assert_ptr_null(sent_nth(&f, NULL, 5)); /* notifications are never answered */

	/* Only our own progress reached the callback. */
	ck_assert_int_eq(log.n, 2);
	ck_assert(log.progress[0] == 1 && log.total[0] == 4);
	ck_assert_str_eq(log.message[0], "one");
	ck_assert(log.progress[1] == 4 && log.total[1] == 4);
	mcp_tool_result_finish(&r);
	json_decref(args);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

static const char *call_answer;

static int script_answer(struct fake *f, json_t *req, long long id)
{
	(void)f, (void)req;
	return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,%s}", id, call_answer);
}

static const struct {
	const char *answer;
	int rc;
	bool rpc_error, structured, content, is_error;
	const char *text_json; /* compact dump of text_json, or NULL */
} envelopes[] = {
	{"\"result\":{\"structuredContent\":{\"a\":1}}", 0, false, true, false, false, NULL},
	{"\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"a\\\":1}\"}]}", 0, false, false, true, false,
	 "{\"a\":1}"},
	{"\"result\":{\"content\":[{\"type\":\"image\",\"data\":\"\"},{\"type\":\"text\",\"text\":\"not json\"},"
	 "{\"type\":\"text\",\"text\":\"[1,2]\"}],\"structuredContent\":{\"a\":1}}",
	 0, false, true, true, false, "[1,2]"},
	{"\"result\":{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"{\\\"error\\\":{\\\"kind\\\":"
	 "\\\"ORG_MISMATCH\\\"}}\"}]}",
	 0, false, false, true, true, "{\"error\":{\"kind\":\"ORG_MISMATCH\"}}"},
	{"\"result\":{\"isError\":false,\"content\":[{\"type\":\"text\",\"text\":\"plain\"}]}", 0, false, false,
	 true, false, NULL},
	{"\"error\":{\"code\":-32602,\"message\":\"bad args\",\"data\":{\"kind\":\"denied\"}}", 0, true, false,
	 false, false, NULL},
	{"\"result\":[1]", -1, false, false, false, false, NULL},
};

/* Ten requests of the server's own before the answer. */
static int script_asks_a_lot(struct fake *f, json_t *req, long long id, int n)
{
	(void)f, (void)req;
	for (int i = 0; i < n; i++) {
		int rc = fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":\"s%d\",\"method\":\"%s\"}", i,
				      i % 2 ? "ping" : "sampling/createMessage");
		if (rc != 0)
			return rc;
	}
	return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"content\":[]}}", id);
}

static int script_asks_17(struct fake *f, json_t *req, long long id)
{
	return script_asks_a_lot(f, req, id, 17);
}

static int script_asks_16(struct fake *f, json_t *req, long long id)
{
	return script_asks_a_lot(f, req, id, 16);
}

static int script_asks_10(struct fake *f, json_t *req, long long id)
{
	return script_asks_a_lot(f, req, id, 10);
}

/* 16 server requests in one call are answered; the 17th ends it, final. */
START_TEST(call_caps_server_requests)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_asks_16);
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	ck_assert_msg(mcp_call_tool(s, "t", NULL, &r, &e) == 0, "%s", e.msg);
	mcp_tool_result_finish(&r);
	ck_assert_int_eq(f.n_answers, 16);
	mcp_session_free(s);
	fake_finish(&f);

	fake_init(&f, "2025-11-25", script_asks_17);
	s = session_up(&f);
	ck_assert_int_eq(mcp_call_tool(s, "t", NULL, &r, &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.detail, ERR_DETAIL_FINAL);
	ck_assert_msg(strstr(e.msg, "more than 16 requests of its own (the last: sampling/createMessage)"), "%s",
		      e.msg);
	ck_assert_int_eq(f.n_answers, 16);
	mcp_tool_result_finish(&r);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

/* Answers held 100 ms each, a 300 ms timeout: the time spent answering
 * counts against it (each answer may wait only what is left of it), and
 * the call ends when it is spent, final. */
START_TEST(call_deadline_counts_server_requests)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_asks_10);
	f.answer_hold_ms = 100;
	struct mcp_options o = {.timeout_ms = 300};
	struct mcp_session *s = mcp_session_new(&f.ft.base, &o);
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(mcp_initialize(s, &e), 0);
	struct mcp_tool_result r;
	ck_assert_int_eq(mcp_call_tool(s, "t", NULL, &r, &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.detail, ERR_DETAIL_FINAL);
	ck_assert_msg(strstr(e.msg, "the 0.3 s timeout passed while answering the server's own requests"), "%s",
		      e.msg);
	/* Three held answers, then the deadline (of the ten asked): counted,
	 * not timed, so a slow machine cannot fail it. */
	ck_assert_int_ge(f.n_answers, 2);
	ck_assert_int_le(f.n_answers, 4);
	for (int i = 0; i < f.n_answers; i++) {
		ck_assert_int_le(f.answer_timeouts[i], 300);
		if (i)
			ck_assert_int_lt(f.answer_timeouts[i], f.answer_timeouts[i - 1]);
	}
	/* Outside an answer, sends wait their own timeout. */
	ck_assert_int_eq(transport_send_timeout(60000), 60000);
	mcp_tool_result_finish(&r);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

START_TEST(call_tool_envelopes)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_answer);
	call_answer = envelopes[_i].answer;
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	int rc = mcp_call_tool(s, "t", NULL, &r, &e);
	ck_assert_msg(rc == envelopes[_i].rc, "case %d: %s", _i, e.msg);
	/* No arguments still sends an (empty) arguments object. */
	json_t *args = json_object_get(json_object_get(sent_nth(&f, "tools/call", 0), "params"), "arguments");
	ck_assert(json_is_object(args) && json_object_size(args) == 0);
	if (rc == 0) {
		ck_assert_int_eq(r.rpc_error != NULL, envelopes[_i].rpc_error);
		ck_assert_int_eq(r.result != NULL, !envelopes[_i].rpc_error);
		ck_assert_int_eq(r.structured != NULL, envelopes[_i].structured);
		ck_assert_int_eq(r.content != NULL, envelopes[_i].content);
		ck_assert_int_eq(r.is_error, envelopes[_i].is_error);
		if (envelopes[_i].text_json) {
			char *d = json_dumps(r.text_json, JSON_COMPACT | JSON_ENCODE_ANY);
			ck_assert_str_eq(d, envelopes[_i].text_json);
			free(d);
		} else {
			ck_assert_ptr_null(r.text_json);
		}
		if (r.rpc_error)
			ck_assert_int_eq(json_integer_value(json_object_get(r.rpc_error, "code")), -32602);
	} else {
		ck_assert_int_eq(e.code, ERR_PROTOCOL);
		ck_assert_ptr_null(r.result);
	}
	mcp_tool_result_finish(&r);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

/* mcp_call_tool_structured_first: content[] is cut before decoding only
 * from a successful answer with structuredContent, and only when the
 * members are certain (no key given twice, no escaped key). */
#define TEXT_A "{\"type\":\"text\",\"text\":\"{\\\"a\\\":1}\"}"
static const struct {
	const char *answer;
	bool structured, is_error;
	int n_content;         /* -1: content NULL */
	const char *text_json; /* compact dump, or NULL */
} lazy_envelopes[] = {
	{"\"result\":{\"content\":[" TEXT_A "],\"structuredContent\":{\"a\":1}}", true, false, 0, NULL},
	{"\"result\":{\"structuredContent\":{\"a\":1},\"isError\":false,\"content\":[" TEXT_A "]}", true, false, 0,
	 NULL},
	{"\"result\":{\"content\":[" TEXT_A "]}", false, false, 1, "{\"a\":1}"},
	{"\"result\":{\"structuredContent\":null,\"content\":[" TEXT_A "]}", false, false, 1, "{\"a\":1}"},
	{"\"result\":{\"isError\":true,\"structuredContent\":{\"a\":1},\"content\":[" TEXT_A "]}", true, true, 1,
	 "{\"a\":1}"},
	{"\"result\":{\"structuredContent\":{\"a\":1},\"con\\u0074ent\":[" TEXT_A "]}", true, false, 1, NULL},
	/* Only result's own content: one inside _meta is data. */
	{"\"result\":{\"_meta\":{\"content\":[1]},\"structuredContent\":{\"content\":[2]},\"content\":[" TEXT_A
	 "]}",
	 true, false, 0, NULL},
};

/* A key given twice, in the result or around it: nothing is cut, and the
 * answer is refused (which of the two counts would be a guess). */
static const char *const duplicate_envelopes[] = {
	"\"result\":{\"content\":[],\"structuredContent\":{\"a\":1},\"content\":[" TEXT_A "," TEXT_A "]}",
	"\"result\":{\"structuredContent\":{\"a\":1},\"content\":[" TEXT_A "]},\"result\":{}",
};

START_TEST(call_tool_duplicate_keys_refused)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_answer);
	call_answer = duplicate_envelopes[_i];
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	ck_assert_int_eq(mcp_call_tool_structured_first(s, "t", NULL, &r, &e), -1);
	ck_assert_msg(strstr(e.msg, "duplicate object key"), "%s", e.msg);
	mcp_tool_result_finish(&r);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

START_TEST(call_tool_structured_first)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_answer);
	call_answer = lazy_envelopes[_i].answer;
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	ck_assert_msg(mcp_call_tool_structured_first(s, "t", NULL, &r, &e) == 0, "case %d: %s", _i, e.msg);
	ck_assert_int_eq(r.structured != NULL, lazy_envelopes[_i].structured);
	ck_assert_int_eq(r.is_error, lazy_envelopes[_i].is_error);
	if (lazy_envelopes[_i].n_content < 0)
		ck_assert_ptr_null(r.content);
	else
		ck_assert_int_eq(json_array_size(r.content), lazy_envelopes[_i].n_content);
	if (lazy_envelopes[_i].text_json) {
		char *d = json_dumps(r.text_json, JSON_COMPACT | JSON_ENCODE_ANY);
		ck_assert_str_eq(d, lazy_envelopes[_i].text_json);
		free(d);
	} else {
		ck_assert_ptr_null(r.text_json);
	}
	json_t *meta = json_object_get(r.result, "_meta");
	if (meta)
		ck_assert_int_eq(json_array_size(json_object_get(meta, "content")), 1);
	if (r.structured && json_object_get(r.structured, "content"))
		ck_assert_int_eq(json_array_size(json_object_get(r.structured, "content")), 1);
	mcp_tool_result_finish(&r);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

/* mcp_call_tool_structured_raw: structuredContent's bytes kept as sent,
 * and decoded with every array over 2 KiB emptied (a run's history, read
 * from the bytes by the history parser); small arrays and everything else
 * decoded as they are; an error answer or one without structuredContent
 * as mcp_call_tool_structured_first gives it, with no bytes. */
static char raw_answer[16384];

START_TEST(call_tool_structured_raw)
{
	/* 40 events of ~70 bytes under history: over the 2 KiB */
	char events[8192];
	size_t at = 0;
	for (int i = 0; i < 40; i++)
		at += (size_t)snprintf(events + at, sizeof events - at,
				       "%s{\"event_type\": \"TaskScheduled\", \"event_id\": %d, \"name\": \"A\"}",
				       i ? "," : "", i);
	char sc[9000];
	snprintf(sc, sizeof sc,
		 "{\"run\": {\"instanceId\": \"r-1\", \"tags\": [\"a\", \"b\"], \"history\": [%s]}, "
		 "\"dataSharingLevel\": \"metadata\"}",
		 events);
	snprintf(raw_answer, sizeof raw_answer, "\"result\":{\"content\":[" TEXT_A "],\"structuredContent\":%s}",
		 sc);
	struct fake f;
	fake_init(&f, "2025-11-25", script_answer);
	call_answer = raw_answer;
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	ck_assert_msg(mcp_call_tool_structured_raw(s, "t", NULL, &r, &e) == 0, "%s", e.msg);
	ck_assert_ptr_nonnull(r.structured_raw);
	ck_assert_uint_eq(r.structured_raw_len, strlen(sc));
	ck_assert_str_eq(r.structured_raw, sc);
	json_t *run = json_object_get(r.structured, "run");
	ck_assert_uint_eq(json_array_size(json_object_get(run, "history")), 0);
	ck_assert(json_is_array(json_object_get(run, "history")));
	ck_assert_uint_eq(json_array_size(json_object_get(run, "tags")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(run, "instanceId")), "r-1");
	ck_assert_str_eq(json_string_value(json_object_get(r.structured, "dataSharingLevel")), "metadata");
	ck_assert_int_eq(json_array_size(r.content), 0);
	mcp_tool_result_finish(&r);
	/* an error answer: decoded whole, no bytes */
	snprintf(raw_answer, sizeof raw_answer,
		 "\"result\":{\"isError\":true,\"content\":[" TEXT_A "],\"structuredContent\":%s}", sc);
	ck_assert_msg(mcp_call_tool_structured_raw(s, "t", NULL, &r, &e) == 0, "%s", e.msg);
	ck_assert_ptr_null(r.structured_raw);
	ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(r.structured, "run"), "history")), 40);
	mcp_tool_result_finish(&r);
	/* text only: no bytes, the text decoded */
	snprintf(raw_answer, sizeof raw_answer, "\"result\":{\"content\":[" TEXT_A "]}");
	ck_assert_msg(mcp_call_tool_structured_raw(s, "t", NULL, &r, &e) == 0, "%s", e.msg);
	ck_assert_ptr_null(r.structured_raw);
	ck_assert_ptr_nonnull(r.text_json);
	mcp_tool_result_finish(&r);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

static int script_garbage(struct fake *f, json_t *req, long long id)
{
	(void)f, (void)req, (void)id;
	return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":1,\n\"result\":{\"x\":nope}}");
}

START_TEST(call_garbage_is_protocol_error)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_garbage);
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	ck_assert_int_eq(mcp_call_tool(s, "t", NULL, &r, &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, "tools/call t") && strstr(e.msg, "line 2 column"), "%s", e.msg);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

/* --- session expiry --------------------------------------------------- */

START_TEST(call_reinitializes_once_on_expiry)
{
	struct fake f;
	fake_init(&f, "2025-06-18", script_answer);
	call_answer = "\"result\":{\"content\":[]}";
	struct mcp_session *s = session_up(&f);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	f.expired = true;
	ck_assert_msg(mcp_call_tool(s, "t", NULL, &r, &e) == 0, "%s", e.msg);
	mcp_tool_result_finish(&r);
	ck_assert_int_eq(f.ft.resets, 1);
	ck_assert_int_eq(count_sent(&f, "initialize"), 2);
	ck_assert_int_eq(count_sent(&f, "notifications/initialized"), 2);
	ck_assert_int_eq(count_sent(&f, "tools/call"), 2);
	/* The era is the session's: no second probe on a re-initialize. */
	ck_assert_int_eq(count_sent(&f, "server/discover"), 1);

	/* A server that forgets every session: one retry, then the error. */
	f.forgetful = true;
	err_clear(&e);
	ck_assert_int_eq(mcp_call_tool(s, "t", NULL, &r, &e), -1);
	ck_assert_int_eq(e.detail, ERR_DETAIL_SESSION_EXPIRED);
	ck_assert_int_eq(f.ft.resets, 2);
	ck_assert_int_eq(count_sent(&f, "tools/call"), 4);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

/* --- threads ---------------------------------------------------------- */

static int script_echo(struct fake *f, json_t *req, long long id)
{
	(void)f;
	json_t *args = json_object_get(json_object_get(req, "params"), "arguments");
	char *a = json_dumps(args, JSON_COMPACT);
	fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":\"stray\",\"result\":{}}");
	int rc = fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"structuredContent\":%s}}", id, a);
	free(a);
	return rc;
}

struct worker {
	struct mcp_session *s;
	int n;
	int ok;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	for (int i = 0; i < 50; i++) {
		json_t *args = json_pack("{s:i, s:i}", "worker", w->n, "i", i);
		struct mcp_tool_result r;
		struct err e;
		err_clear(&e);
		if (mcp_call_tool(w->s, "echo", args, &r, &e) == 0 && json_equal(r.structured, args))
			w->ok++;
		mcp_tool_result_finish(&r);
		json_decref(args);
	}
	return NULL;
}

START_TEST(call_tool_from_many_threads)
{
	struct fake f;
	fake_init(&f, "2025-11-25", script_echo);
	struct mcp_session *s = session_up(&f);
	/* The server lost the session: the threads' first calls fail together
	 * and must re-initialize once between them, not once each. */
	f.expired = true;
	struct worker w[8];
	pthread_t th[8];
	for (int i = 0; i < 8; i++) {
		w[i] = (struct worker){.s = s, .n = i};
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(w[i].ok, 50);
	}
	ck_assert_int_eq(f.ft.resets, 1);
	ck_assert_int_eq(count_sent(&f, "initialize"), 2);
	ck_assert_int_ge(count_sent(&f, "tools/call"), 8 * 50 + 1);
	mcp_session_free(s);
	fake_finish(&f);
}
END_TEST

/* --- MCP 2026-07-28 ----------------------------------------------------- */

/* A server of the modern era, as the conformance suite's mocks answer:
 * `discover` is what server/discover gets (a result or an error member),
 * `first_refusal` makes the first request of all get -32022. */
struct modern {
	struct fake_transport ft;
	const char *discover;
	bool first_refusal;
	int requests;
	const char *call_answer;
};

static int modern_answer(struct fake_transport *ft, json_t *req, const char *method, struct err *e)
{
	struct modern *m = (struct modern *)ft;
	(void)e;
	long long id = json_integer_value(json_object_get(req, "id"));
	if (m->requests++ == 0 && m->first_refusal)
		return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32022,\"message\":"
				    "\"Unsupported protocol version\",\"data\":{\"supported\":[\"2026-07-28\"],"
				    "\"requested\":\"1900-01-01\"}}}",
				    id);
	if (strcmp(method, "server/discover") == 0)
		return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,%s}", id, m->discover);
	if (strcmp(method, "initialize") == 0)
		return fake_deliver(
			"{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"protocolVersion\":\"2025-11-25\","
			"\"capabilities\":{},\"serverInfo\":{\"name\":\"old\",\"version\":\"1\"}}}",
			id);
	if (strcmp(method, "tools/list") == 0)
		return fake_deliver(
			"{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,"
			"\"cacheScope\":\"public\",\"tools\":["
			"{\"name\":\"valid_tool\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
			"\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
			"\"priority\":{\"type\":\"integer\",\"x-mcp-header\":\"Priority\"},"
			"\"verbose\":{\"type\":\"boolean\",\"x-mcp-header\":\"Verbose\"},"
			"\"empty\":{\"type\":\"string\",\"x-mcp-header\":\"EmptyVal\"},"
			"\"hello\":{\"type\":\"string\",\"x-mcp-header\":\"NonAscii\"},"
			"\"pad\":{\"type\":\"string\",\"x-mcp-header\":\"Pad\"},"
			"\"f\":{\"type\":\"number\"}}}},"
			"{\"name\":\"invalid_number\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
			"\"n\":{\"type\":\"number\",\"x-mcp-header\":\"N\"}}}},"
			"{\"name\":\"invalid_twice\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
			"\"a\":{\"type\":\"string\",\"x-mcp-header\":\"MyField\"},"
			"\"b\":{\"type\":\"string\",\"x-mcp-header\":\"myfield\"}}}},"
			"{\"name\":\"invalid_space\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
			"\"a\":{\"type\":\"string\",\"x-mcp-header\":\"My Region\"}}}},"
			"{\"name\":\"invalid_empty\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
			"\"a\":{\"type\":\"string\",\"x-mcp-header\":\"\"}}}},"
			"{\"name\":\"invalid_object\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
			"\"a\":{\"type\":\"object\",\"x-mcp-header\":\"Obj\"}}}}]}}",
			id);
	if (strcmp(method, "tools/call") == 0)
		return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":%s}", id,
				    m->call_answer ? m->call_answer
						   : "{\"resultType\":\"complete\",\"content\":[]}");
	return fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32601,\"message\":\"no\"}}",
			    id);
}

static const char discover_modern[] =
	"\"result\":{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
	"\"ttlMs\":0,\"cacheScope\":\"public\",\"instructions\":\"read me\","
	"\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"modern\",\"version\":\"2\"}}}";

static void modern_init(struct modern *m, const char *discover)
{
	memset(m, 0, sizeof *m);
	fake_transport_init(&m->ft, modern_answer);
	m->ft.modern = true;
	m->discover = discover;
}

/* Every request names the version, our (no) capabilities and who we are,
 * in _meta and, for the version and the method, in its own headers. */
static void assert_modern_request(struct modern *m, const json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	json_t *meta = json_object_get(json_object_get(msg, "params"), "_meta");
	ck_assert_msg(json_is_object(meta), "%s has no _meta", method);
	ck_assert_str_eq(json_string_value(json_object_get(meta, "io.modelcontextprotocol/protocolVersion")),
			 "2026-07-28");
	json_t *caps = json_object_get(meta, "io.modelcontextprotocol/clientCapabilities");
	ck_assert(json_is_object(caps) && json_object_size(caps) == 0);
	json_t *who = json_object_get(meta, "io.modelcontextprotocol/clientInfo");
	ck_assert_str_eq(json_string_value(json_object_get(who, "name")), "unit");
	json_t *h = fake_headers_of(&m->ft, msg);
	ck_assert_str_eq(json_string_value(json_object_get(h, "MCP-Protocol-Version")), "2026-07-28");
	ck_assert_str_eq(json_string_value(json_object_get(h, "Mcp-Method")), method);
}

START_TEST(discover_speaks_2026_07_28)
{
	struct modern m;
	modern_init(&m, discover_modern);
	m.first_refusal = _i == 1;
	struct mcp_options o = {.client_name = "unit", .client_version = "9.9"};
	struct mcp_session *s = mcp_session_new(&m.ft.base, &o);
	struct err e;
	err_clear(&e);
	ck_assert_msg(mcp_initialize(s, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(mcp_protocol_version(s), "2026-07-28");
	const json_t *info = mcp_server_info_get(s);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(info, "serverInfo"), "name")),
			 "modern");
	ck_assert_str_eq(json_string_value(json_object_get(info, "instructions")), "read me");
	ck_assert(json_is_object(json_object_get(json_object_get(info, "capabilities"), "tools")));
	/* No handshake, and no session-wide version header. */
	ck_assert_int_eq(fake_count_sent(&m.ft, "initialize"), 0);
	ck_assert_int_eq(fake_count_sent(&m.ft, "notifications/initialized"), 0);
	ck_assert_ptr_null(json_object_get(m.ft.headers, "MCP-Protocol-Version"));
	/* Refused once with -32022 naming our version: asked again, new id. */
	ck_assert_int_eq(fake_count_sent(&m.ft, "server/discover"), _i == 1 ? 2 : 1);
	if (_i == 1)
		ck_assert_int_ne(
			json_integer_value(json_object_get(fake_sent_nth(&m.ft, "server/discover", 0), "id")),
			json_integer_value(json_object_get(fake_sent_nth(&m.ft, "server/discover", 1), "id")));

	json_t *tools = mcp_list_tools(s, &e);
	ck_assert_msg(tools != NULL, "%s", e.msg);
	/* Only the tool whose designations can be sent is listed. */
	ck_assert_int_eq(json_array_size(tools), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(tools, 0), "name")), "valid_tool");
	json_decref(tools);

	json_t *args = json_pack("{s:s, s:i, s:n, s:s, s:s, s:s, s:f}", "region", "us-west1", "priority", 42,
				 "verbose", "empty", "", "hello", "Hello, \xe4\xb8\x96\xe7\x95\x8c", "pad",
				 " padded ", "f", 3.5);
	struct mcp_tool_result r;
	ck_assert_msg(mcp_call_tool(s, "valid_tool", args, &r, &e) == 0, "%s", e.msg);
	mcp_tool_result_finish(&r);
	json_decref(args);
	json_t *call = fake_sent_nth(&m.ft, "tools/call", 0);
	json_t *h = fake_headers_of(&m.ft, call);
	ck_assert_str_eq(json_string_value(json_object_get(h, "Mcp-Name")), "valid_tool");
	ck_assert_str_eq(json_string_value(json_object_get(h, "Mcp-Param-Region")), "us-west1");
	ck_assert_str_eq(json_string_value(json_object_get(h, "Mcp-Param-Priority")), "42");
	ck_assert_str_eq(json_string_value(json_object_get(h, "Mcp-Param-EmptyVal")), "");
	ck_assert_str_eq(json_string_value(json_object_get(h, "Mcp-Param-NonAscii")),
			 "=?base64?SGVsbG8sIOS4lueVjA==?=");
	ck_assert_str_eq(json_string_value(json_object_get(h, "Mcp-Param-Pad")), "=?base64?IHBhZGRlZCA=?=");
	/* null and undesignated arguments send nothing. */
	ck_assert_ptr_null(json_object_get(h, "Mcp-Param-Verbose"));
	ck_assert_int_eq(json_object_size(h), 8);
	size_t i;
	json_t *msg;
	json_array_foreach(m.ft.sent, i, msg)
		assert_modern_request(&m, msg);
	mcp_session_free(s);
	fake_transport_finish(&m.ft);
}
END_TEST

/* The server's own answers decide the era, never its name: each of these
 * is a server of the legacy era, and the handshake follows. */
static const char *const legacy_discovers[] = {
	"\"error\":{\"code\":-32601,\"message\":\"Method not found\"}",
	"\"error\":{\"code\":-32602,\"message\":\"Invalid params\"}",
	"\"error\":{\"code\":-32000,\"message\":\"Bad Request: Server not initialized\"}",
	"\"error\":{\"code\":-32022,\"message\":\"Unsupported\",\"data\":{\"supported\":[\"2025-11-25\"]}}",
	"\"result\":{\"supportedVersions\":[\"2025-11-25\",\"2025-06-18\"],\"capabilities\":{}}",
	"\"result\":{\"capabilities\":{}}",
};

START_TEST(discover_refused_falls_back_to_initialize)
{
	struct modern m;
	modern_init(&m, legacy_discovers[_i]);
	struct mcp_options o = {.client_name = "unit", .client_version = "9.9"};
	struct mcp_session *s = mcp_session_new(&m.ft.base, &o);
	struct err e;
	err_clear(&e);
	ck_assert_msg(mcp_initialize(s, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(mcp_protocol_version(s), "2025-11-25");
	ck_assert_int_eq(fake_count_sent(&m.ft, "server/discover"), 1);
	ck_assert_int_eq(fake_count_sent(&m.ft, "initialize"), 1);
	ck_assert_str_eq(json_string_value(json_object_get(m.ft.headers, "MCP-Protocol-Version")), "2025-11-25");
	/* Legacy requests carry no per-request fields. */
	json_t *tools = mcp_list_tools(s, &e);
	ck_assert_msg(tools != NULL, "%s", e.msg);
	/* The x-mcp-header rules are 2026-07-28's: a legacy listing is whole. */
	ck_assert_int_eq(json_array_size(tools), 6);
	json_decref(tools);
	json_t *list = fake_sent_nth(&m.ft, "tools/list", 0);
	ck_assert_ptr_null(json_object_get(json_object_get(list, "params"), "_meta"));
	ck_assert_int_eq(json_object_size(fake_headers_of(&m.ft, list)), 0);
	mcp_session_free(s);
	fake_transport_finish(&m.ft);
}
END_TEST

static int outage_answer(struct fake_transport *ft, json_t *req, const char *method, struct err *e)
{
	(void)ft;
	(void)req;
	(void)method;
	err_set(e, ERR_PROTOCOL, "POST http://127.0.0.1:1/mcp: HTTP 503");
	e->http_status = 503;
	e->detail = ERR_DETAIL_RETRYABLE;
	return -1;
}

/* An outage is no sign of the legacy era: the error, not a handshake that
 * would meet the same outage and hide what came first. */
START_TEST(discover_outage_is_an_error)
{
	struct fake_transport ft;
	fake_transport_init(&ft, outage_answer);
	ft.modern = true;
	struct mcp_session *s = mcp_session_new(&ft.base, NULL);
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(mcp_initialize(s, &e), -1);
	ck_assert_int_eq(e.http_status, 503);
	ck_assert_int_eq(fake_count_sent(&ft, "initialize"), 0);
	mcp_session_free(s);
	fake_transport_finish(&ft);
}
END_TEST

/* We declare no capabilities: a result that needs input from us, or one
 * of a kind 2026-07-28 does not define, is an error, never data. */
static const char *const odd_results[] = {
	"{\"resultType\":\"input_required\",\"inputRequests\":{\"confirm\":{\"method\":\"elicitation/create\"}},"
	"\"requestState\":\"x\"}",
	"{\"resultType\":\"partial\",\"content\":[]}",
	"{\"resultType\":7,\"content\":[]}",
};

START_TEST(modern_result_types)
{
	struct modern m;
	modern_init(&m, discover_modern);
	m.call_answer = odd_results[_i];
	struct mcp_session *s = mcp_session_new(&m.ft.base, NULL);
	struct err e;
	err_clear(&e);
	ck_assert_msg(mcp_initialize(s, &e) == 0, "%s", e.msg);
	struct mcp_tool_result r;
	ck_assert_int_eq(mcp_call_tool(s, "valid_tool", NULL, &r, &e), -1);
	ck_assert_int_eq(e.detail, ERR_DETAIL_FINAL);
	ck_assert_msg(strstr(e.msg, "resultType"), "%s", e.msg);
	ck_assert_msg(_i != 0 || strstr(e.msg, "input"), "%s", e.msg);
	/* A result with no resultType is a complete one. */
	m.call_answer = "{\"content\":[]}";
	err_clear(&e);
	ck_assert_msg(mcp_call_tool(s, "valid_tool", NULL, &r, &e) == 0, "%s", e.msg);
	mcp_tool_result_finish(&r);
	mcp_session_free(s);
	fake_transport_finish(&m.ft);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mcp");
	struct testlib_group *tc = testlib_group("initialize");
	add_loop_test(tc, initialize_negotiates_version, 0, sizeof versions / sizeof *versions);
	add_test(tc, initialize_rpc_error);
	testlib_suite_add(s, tc);
	tc = testlib_group("modern");
	add_loop_test(tc, discover_speaks_2026_07_28, 0, 2);
	add_loop_test(tc, discover_refused_falls_back_to_initialize, 0,
		      sizeof legacy_discovers / sizeof *legacy_discovers);
	add_test(tc, discover_outage_is_an_error);
	add_loop_test(tc, modern_result_types, 0, sizeof odd_results / sizeof *odd_results);
	testlib_suite_add(s, tc);
	tc = testlib_group("tools_list");
	add_test(tc, list_tools_follows_every_page);
	add_loop_test(tc, list_tools_bad_servers, 0, sizeof bad_lists / sizeof *bad_lists);
	testlib_suite_add(s, tc);
	tc = testlib_group("tools_call");
	add_test(tc, call_answers_server_requests);
	add_test(tc, call_caps_server_requests);
	add_test(tc, call_deadline_counts_server_requests);
	add_loop_test(tc, call_tool_envelopes, 0, sizeof envelopes / sizeof *envelopes);
	add_loop_test(tc, call_tool_structured_first, 0, sizeof lazy_envelopes / sizeof *lazy_envelopes);
	add_test(tc, call_tool_structured_raw);
	add_loop_test(tc, call_tool_duplicate_keys_refused, 0,
		      sizeof duplicate_envelopes / sizeof *duplicate_envelopes);
	add_test(tc, call_garbage_is_protocol_error);
	add_test(tc, call_reinitializes_once_on_expiry);
	add_test(tc, call_tool_from_many_threads);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
