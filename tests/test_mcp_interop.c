/* meson-test: integration slow */
/* The MCP client against real implementations, all on 127.0.0.1 and
 * started and stopped here: the reference server-everything (HTTP and
 * stdio), a tiny server built with the official SDK in its three HTTP
 * modes, and a deliberately broken stdio server. The reference answer for
 * "every tool" is the official SDK client's own listing. */

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "jsonrpc.h"
#include "mcp.h"
#include "testlib.h"
#include "trace.h"
#include "transport.h"

/* Servers started and not yet stopped, in memory shared with the runner:
 * a failed assertion ends the forked test with _exit() (no cleanup runs
 * there), so the runner's per-TCase teardown kills whatever is left.
 * Without this a leaked server would also hold meson's stderr pipe open. */
#define MAX_SERVERS 16
static pid_t *running;

static void track(pid_t pid)
{
	for (size_t i = 0; i < MAX_SERVERS; i++)
		if (running[i] == 0) {
			running[i] = pid;
			return;
		}
	ck_abort_msg("too many servers at once");
}

static void stop(struct testlib_server *s)
{
	for (size_t i = 0; i < MAX_SERVERS; i++)
		if (running[i] == s->pid)
			running[i] = 0;
	testlib_server_stop(s);
}

static void stop_all(void)
{
	for (size_t i = 0; i < MAX_SERVERS; i++)
		if (running[i] > 0) {
			kill(-running[i], SIGKILL);
			waitpid(running[i], NULL, WNOHANG);
			running[i] = 0;
		}
}

static char *npm_path(const char *rel)
{
	char *p;
	ck_assert_int_ge(asprintf(&p, "%s/node_modules/%s", testlib_env("CA_NPM_DIR"), rel), 0);
	return p;
}

static void start_everything_http(struct testlib_server *s)
{
	char *everything = npm_path("@modelcontextprotocol/server-everything/dist/index.js");
	char loopback[4096];
	snprintf(loopback, sizeof loopback, "%s", testlib_src("tests/sim/loopback.mjs"));
	/* It binds every interface on $PORT; loopback.mjs pins it to
	 * 127.0.0.1 and prints the ready line with the port the kernel chose. */
	char *argv[] = {(char *)testlib_node(), "--import", loopback, everything, "streamableHttp", NULL};
	char *env[] = {"PORT=0", "LOOPBACK_ANNOUNCE=/mcp", NULL};
	ck_assert_int_eq(testlib_server_start(s, argv, env, "LISTENING ", 20000), 0);
	track(s->pid);
	ck_assert_ptr_nonnull(strstr(s->url, "http://127.0.0.1:"));
	free(everything);
}

static void start_tiny(struct testlib_server *s, const char *mode, const char *token)
{
	char script[4096];
	snprintf(script, sizeof script, "%s", testlib_src("tests/sim/tiny-server.mjs"));
	char *argv[] = {(char *)testlib_node(),           script,        "--mode", (char *)mode,
			token ? "--require-token" : NULL, (char *)token, NULL};
	ck_assert_int_eq(testlib_server_start(s, argv, NULL, "LISTENING ", 20000), 0);
	track(s->pid);
	ck_assert_ptr_nonnull(strstr(s->url, "http://127.0.0.1:"));
}

static char *everything_stdio_command(void)
{
	char *everything = npm_path("@modelcontextprotocol/server-everything/dist/index.js");
	char *cmd;
	ck_assert_int_ge(asprintf(&cmd, "%s %s stdio", testlib_node(), everything), 0);
	free(everything);
	return cmd;
}

/* What the official SDK client lists: a JSON array of names. */
static json_t *sdk_tool_names(char *const args[])
{
	char script[4096];
	snprintf(script, sizeof script, "%s", testlib_src("tests/sim/sdk-list-tools.mjs"));
	char *argv[8] = {(char *)testlib_node(), script};
	for (int i = 0; args[i] && i < 5; i++)
		argv[i + 2] = args[i];
	struct testlib_output o;
	ck_assert_int_eq(testlib_run(argv, NULL, NULL, 0, 30000, &o), 0);
	ck_assert_msg(o.status == 0, "sdk-list-tools: %d %s", o.status, o.err);
	json_t *names = json_loads(o.out, 0, NULL);
	ck_assert_msg(json_is_array(names), "sdk-list-tools said: %s", o.out);
	testlib_output_free(&o);
	return names;
}

/* Runs `catalyst-audit ARGS --format json tools` and parses stdout. */
static json_t *cli_tools_json(char *const conn[], char *const env[])
{
	char *args[8];
	int n = 0;
	for (; conn[n]; n++)
		args[n] = conn[n];
	args[n++] = "--format";
	args[n++] = "json";
	args[n++] = "tools";
	args[n] = NULL;
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(args, env, NULL, 45000, &o), 0);
	ck_assert_msg(!o.timed_out, "tools timed out; stderr: %s", o.err);
	ck_assert_msg(o.status == 0, "tools exited %d: %s", o.status, o.err);
	json_error_t jerr;
	json_t *doc = json_loads(o.out, 0, &jerr);
	ck_assert_msg(doc != NULL, "not JSON (%s): %.300s", jerr.text, o.out);
	testlib_output_free(&o);
	return doc;
}

/* Our listing names exactly the tools the SDK listed, in the same order,
 * each with an input schema. */
static void assert_same_tools(json_t *doc, json_t *names)
{
	json_t *tools = json_object_get(doc, "tools");
	ck_assert(json_is_array(tools));
	ck_assert_int_gt(json_array_size(names), 0);
	ck_assert_int_eq(json_array_size(tools), json_array_size(names));
	size_t i;
	json_t *t;
	json_array_foreach(tools, i, t) {
		ck_assert_str_eq(json_string_value(json_object_get(t, "name")),
				 json_string_value(json_array_get(names, i)));
		ck_assert(json_is_object(json_object_get(t, "inputSchema")));
	}
	ck_assert(json_is_string(json_object_get(doc, "protocolVersion")));
	ck_assert(json_is_object(json_object_get(doc, "server")));
}

START_TEST(everything_http_lists_every_tool)
{
	struct testlib_server s;
	start_everything_http(&s);
	char *sdk_args[] = {"http", s.url, NULL};
	json_t *names = sdk_tool_names(sdk_args);
	char *conn[] = {"--server", s.url, NULL};
	json_t *doc = cli_tools_json(conn, NULL);
	stop(&s);
	assert_same_tools(doc, names);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "server"), "name")),
			 "mcp-servers/everything");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "protocolVersion")), "2025-11-25");
	json_decref(doc);
	json_decref(names);
}
END_TEST

START_TEST(everything_stdio_lists_every_tool)
{
	char *cmd = everything_stdio_command();
	char *everything = npm_path("@modelcontextprotocol/server-everything/dist/index.js");
	char *sdk_args[] = {"stdio", (char *)testlib_node(), everything, "stdio", NULL};
	json_t *names = sdk_tool_names(sdk_args);
	char *conn[] = {"--stdio", cmd, NULL};
	json_t *doc = cli_tools_json(conn, NULL);
	assert_same_tools(doc, names);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "server"), "name")),
			 "mcp-servers/everything");
	json_decref(doc);
	json_decref(names);
	free(everything);
	free(cmd);
}
END_TEST

/* server-everything's long-running tool reports progress over SSE. */
static void count_progress(double progress, double total, const char *message, void *ctx)
{
	(void)message;
	int *n = ctx;
	ck_assert(total == 2);
	ck_assert(progress == *n + 1);
	(*n)++;
}

START_TEST(everything_http_progress)
{
	struct testlib_server s;
	start_everything_http(&s);
	struct err e;
	err_clear(&e);
	struct transport_http_options ho = {.url = s.url, .timeout_ms = 20000};
	struct transport *t = transport_http_new(&ho, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	int n = 0;
	struct mcp_options mo = {.on_progress = count_progress, .progress_ctx = &n};
	struct mcp_session *ms = mcp_session_new(t, &mo);
	ck_assert_msg(mcp_initialize(ms, &e) == 0, "%s", e.msg);
	json_t *args = json_pack("{s:f, s:i}", "duration", 0.2, "steps", 2);
	struct mcp_tool_result r;
	ck_assert_msg(mcp_call_tool(ms, "trigger-long-running-operation", args, &r, &e) == 0, "%s", e.msg);
	ck_assert_ptr_null(r.rpc_error);
	ck_assert(!r.is_error);
	ck_assert_int_eq(n, 2);
	mcp_tool_result_finish(&r);
	json_decref(args);
	mcp_session_close(ms);
	mcp_session_free(ms);
	transport_free(t);
	stop(&s);
}
END_TEST

static const char *const tiny_modes[] = {"json", "sse", "stateless"};

START_TEST(tiny_lists_every_page)
{
	struct testlib_server s;
	start_tiny(&s, tiny_modes[_i], NULL);
	char *sdk_args[] = {"http", s.url, NULL};
	json_t *names = sdk_tool_names(sdk_args);
	char *conn[] = {"--server", s.url, NULL};
	json_t *doc = cli_tools_json(conn, NULL);
	stop(&s);
	assert_same_tools(doc, names);
	/* Pages of 7: the listing crossed several. */
	ck_assert_int_gt(json_array_size(names), 3 * 7);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "server"), "name")),
			 "tiny-server");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "server"), "version")), "1.2.3");
	/* Full tool objects, not only names. */
	json_t *echo = json_array_get(json_object_get(doc, "tools"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(echo, "name")), "echo");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(echo, "description")), "Second line"));
	json_decref(doc);
	json_decref(names);
}
END_TEST

START_TEST(tiny_text_listing_is_escaped_and_aligned)
{
	struct testlib_server s;
	start_tiny(&s, "json", NULL);
	char *args[] = {"--server", s.url, "tools", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, 30000, &o), 0);
	stop(&s);
	ck_assert_msg(o.status == 0, "%d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.out, "server: tiny-server 1.2.3 (MCP 2025-11-25)\n"));
	/* No control byte from the server reaches the terminal... */
	for (const char *p = o.out; *p; p++)
		ck_assert_msg((unsigned char)*p >= 0x20 || *p == '\n', "control byte 0x%02x in output",
			      (unsigned char)*p);
	/* ...they are shown instead. */
	ck_assert_ptr_nonnull(strstr(o.out, "Paints \\x1b[31mred\\x1b[0m and rings \\x07 the bell"));
	ck_assert_ptr_nonnull(strstr(o.out, "  na\\x1bme"));
	/* First line of a description only; properties with type and required,
	 * in columns. */
	ck_assert_ptr_nonnull(strstr(o.out, "Echoes the message back.\n"));
	ck_assert_ptr_null(strstr(o.out, "Second line"));
	const char *msg = strstr(o.out, "\n  message ");
	const char *times = strstr(o.out, "\n  times ");
	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_nonnull(times);
	ck_assert_ptr_nonnull(strstr(msg, "string   required\n"));
	ck_assert_int_eq(strstr(msg + 1, "string") - (msg + 1), strstr(times + 1, "integer") - (times + 1));
	testlib_output_free(&o);
}
END_TEST

/* --- the library over real HTTP -------------------------------------- */

struct progress_seen {
	int n;
	double progress[4];
	char message[4][32];
};

static void note_progress(double progress, double total, const char *message, void *ctx)
{
	struct progress_seen *p = ctx;
	ck_assert(total == 2);
	if (p->n < 4) {
		p->progress[p->n] = progress;
		snprintf(p->message[p->n], sizeof p->message[0], "%s", message ? message : "");
	}
	p->n++;
}

struct live {
	struct testlib_server srv;
	struct transport *t;
	struct mcp_session *s;
};

static void live_up(struct live *l, const char *mode, struct mcp_options *mo)
{
	start_tiny(&l->srv, mode, NULL);
	struct err e;
	err_clear(&e);
	struct transport_http_options ho = {.url = l->srv.url, .timeout_ms = 20000};
	l->t = transport_http_new(&ho, &e);
	ck_assert_msg(l->t != NULL, "%s", e.msg);
	l->s = mcp_session_new(l->t, mo);
	ck_assert_msg(mcp_initialize(l->s, &e) == 0, "%s", e.msg);
}

static void live_down(struct live *l)
{
	mcp_session_close(l->s);
	mcp_session_free(l->s);
	transport_free(l->t);
	stop(&l->srv);
}

/* Over SSE the server pings us and asks for elicitation, sampling and
 * roots mid-call: ping gets an empty result, the rest -32601, and the call
 * completes (the server reports what it got back). */
START_TEST(sse_server_requests_answered)
{
	struct live l;
	struct progress_seen seen = {0};
	struct mcp_options mo = {.on_progress = note_progress, .progress_ctx = &seen};
	live_up(&l, "sse", &mo);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	ck_assert_msg(mcp_call_tool(l.s, "chatty", NULL, &r, &e) == 0, "%s", e.msg);
	ck_assert_ptr_null(r.rpc_error);
	ck_assert_ptr_nonnull(r.structured);
	ck_assert(json_is_object(json_object_get(json_object_get(r.structured, "ping"), "ok")));
	const char *refused[] = {"elicitation", "sampling", "roots"};
	for (int i = 0; i < 3; i++)
		ck_assert_msg(json_integer_value(json_object_get(json_object_get(r.structured, refused[i]),
								 "error")) == JSONRPC_METHOD_NOT_FOUND,
			      "%s: %s", refused[i], json_dumps(r.structured, JSON_COMPACT));
	ck_assert(json_equal(r.structured, r.text_json));
	ck_assert_int_eq(seen.n, 2);
	ck_assert(seen.progress[0] == 1 && seen.progress[1] == 2);
	ck_assert_str_eq(seen.message[0], "halfway");
	mcp_tool_result_finish(&r);
	live_down(&l);
}
END_TEST

START_TEST(call_envelopes_and_session_expiry)
{
	struct live l;
	live_up(&l, tiny_modes[_i], NULL);
	struct err e;
	err_clear(&e);
	struct mcp_tool_result r;
	json_t *args = json_pack("{s:i, s:i}", "a", 2, "b", 40);
	ck_assert_msg(mcp_call_tool(l.s, "add", args, &r, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(json_integer_value(json_object_get(r.structured, "sum")), 42);
	ck_assert_int_eq(json_integer_value(json_object_get(r.text_json, "sum")), 42);
	ck_assert(!r.is_error);
	mcp_tool_result_finish(&r);

	ck_assert_msg(mcp_call_tool(l.s, "fail", NULL, &r, &e) == 0, "%s", e.msg);
	ck_assert(r.is_error);
	ck_assert_ptr_null(r.rpc_error);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r.text_json, "error"), "kind")),
			 "ORG_MISMATCH");
	mcp_tool_result_finish(&r);

	/* An unknown tool: the SDK answers with an error, in one envelope or
	 * the other, never silence. */
	ck_assert_msg(mcp_call_tool(l.s, "no-such-tool", NULL, &r, &e) == 0, "%s", e.msg);
	ck_assert(r.rpc_error != NULL || r.is_error);
	mcp_tool_result_finish(&r);

	if (strcmp(tiny_modes[_i], "stateless") != 0) {
		/* The server forgets us; the next call meets a 404, the session
		 * re-initializes and the call still succeeds. */
		char *before = transport_http_session_id(l.t);
		ck_assert_ptr_nonnull(before);
		ck_assert_msg(mcp_call_tool(l.s, "forget", NULL, &r, &e) == 0, "%s", e.msg);
		mcp_tool_result_finish(&r);
		ck_assert_msg(mcp_call_tool(l.s, "add", args, &r, &e) == 0, "%s", e.msg);
		ck_assert_int_eq(json_integer_value(json_object_get(r.structured, "sum")), 42);
		mcp_tool_result_finish(&r);
		char *after = transport_http_session_id(l.t);
		ck_assert_ptr_nonnull(after);
		ck_assert_str_ne(before, after);
		free(before);
		free(after);
	}
	json_decref(args);
	live_down(&l);
}
END_TEST

/* Several threads on one session over one HTTP transport, as `runs` does:
 * each call gets its own answer. */
struct adder {
	struct mcp_session *s;
	int n, ok;
};

static void *adder_main(void *arg)
{
	struct adder *a = arg;
	for (int i = 0; i < 10; i++) {
		json_t *args = json_pack("{s:i, s:i}", "a", a->n * 1000, "b", i);
		struct mcp_tool_result r;
		struct err e;
		err_clear(&e);
		if (mcp_call_tool(a->s, "add", args, &r, &e) == 0 &&
		    json_integer_value(json_object_get(r.structured, "sum")) == a->n * 1000 + i)
			a->ok++;
		mcp_tool_result_finish(&r);
		json_decref(args);
	}
	return NULL;
}

START_TEST(threads_share_one_session)
{
	struct live l;
	live_up(&l, tiny_modes[_i], NULL);
	struct adder a[8];
	pthread_t th[8];
	for (int i = 0; i < 8; i++) {
		a[i] = (struct adder){.s = l.s, .n = i + 1};
		ck_assert_int_eq(pthread_create(&th[i], NULL, adder_main, &a[i]), 0);
	}
	for (int i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 8; i++)
		ck_assert_msg(a[i].ok == 10, "thread %d: %d of 10 calls right", i, a[i].ok);
	live_down(&l);
}
END_TEST

/* --- the CLI's trace and errors -------------------------------------- */

START_TEST(verbose_trace_redacts_the_token)
{
	static const char token[] = "S3cr3t-T0ken-value";
	struct testlib_server s;
	start_tiny(&s, "sse", token);
	char *args[] = {"--verbose", "--server", s.url, "tools", NULL};
	char *env[] = {"CATALYST_TOKEN=S3cr3t-T0ken-value", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(args, env, NULL, 30000, &o), 0);
	/* Exit 0: the server (which demands the token) accepted it. */
	ck_assert_msg(o.status == 0, "%d: %s", o.status, o.err);
	ck_assert_ptr_null(strstr(o.err, token));
	ck_assert_ptr_null(strstr(o.out, token));
	ck_assert_ptr_nonnull(strstr(o.err, "Authorization: Bearer <redacted>"));
	/* The exchange itself is there. */
	ck_assert_ptr_nonnull(strstr(o.err, "\"method\":\"initialize\""));
	ck_assert_ptr_nonnull(strstr(o.err, "\"method\":\"tools/list\""));
	ck_assert_ptr_nonnull(strstr(o.err, "nextCursor"));
	testlib_output_free(&o);

	/* Without the token: a 401, reported as "not signed in" (exit 3). */
	char *env_none[] = {"CATALYST_TOKEN=", NULL};
	char *quiet[] = {"--server", s.url, "tools", NULL};
	ck_assert_int_eq(testlib_run_cli(quiet, env_none, NULL, 30000, &o), 0);
	stop(&s);
	ck_assert_msg(o.status == 3, "%d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "catalyst-audit: error: "));
	ck_assert_ptr_nonnull(strstr(o.err, "401"));
	testlib_output_free(&o);
}
END_TEST

/* --timeout: 3 s where only the timeout can end the wait (the server sends
 * nothing the client can take), 30 s where the server does answer: a 10 MB
 * message from a Node process took over 3 s on a loaded CI machine. */
static const struct {
	const char *mode;
	int status;
	const char *expect; /* in stderr (exit != 0) or stdout */
	const char *timeout;
} bad_servers[] = {
	{"nested", 5, "maximum parsing depth", "30"},
	{"badutf8", 5, "UTF-8", "30"},
	{"version", 5, "'2024-11-05'", "30"},
	{"wrongid", 5, "before the response", "30"},
	{"notjson", 5, "no response", "3"}, /* stdio skips non-JSON lines: bounded by --timeout */
	{"hugegarbage", 5, "no response", "3"},
	{"huge", 0, "bad-stdio-server", "30"}, /* a 10 MB message is fine */
	{"strayid", 0, "bad-stdio-server", "30"},
	{"asks", 0, "bad-stdio-server", "30"}, /* the server exits 9 unless every request was answered right */
};

START_TEST(stdio_bad_servers)
{
	char *cmd;
	ck_assert_int_ge(asprintf(&cmd, "%s %s %s", testlib_node(), testlib_src("tests/sim/bad-stdio-server.mjs"),
				  bad_servers[_i].mode),
			 0);
	char *args[] = {"--timeout", (char *)bad_servers[_i].timeout, "--stdio", cmd, "tools", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, 60000, &o), 0);
	ck_assert_msg(!o.timed_out, "%s: hung", bad_servers[_i].mode);
	ck_assert_msg(o.status == bad_servers[_i].status, "%s: exit %d: %s", bad_servers[_i].mode, o.status,
		      o.err);
	const char *where = o.status ? o.err : o.out;
	ck_assert_msg(strstr(where, bad_servers[_i].expect), "%s: '%s' lacks '%s'", bad_servers[_i].mode, where,
		      bad_servers[_i].expect);
	if (o.status)
		ck_assert_ptr_nonnull(strstr(o.err, "catalyst-audit: error: "));
	testlib_output_free(&o);
	free(cmd);
}
END_TEST

START_TEST(connection_refused_exits_5)
{
	/* Port 1 on loopback: nothing listens there. */
	char *args[] = {"--server", "http://127.0.0.1:1/mcp", "tools", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, 30000, &o), 0);
	ck_assert_msg(o.status == 5, "%d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "catalyst-audit: error: "));
	ck_assert_ptr_nonnull(strstr(o.err, "127.0.0.1"));
	testlib_output_free(&o);
}
END_TEST

static void no_setup(void)
{
}

int main(void)
{
	running = mmap(NULL, MAX_SERVERS * sizeof *running, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		       0);
	if (running == MAP_FAILED)
		return 99;
	memset(running, 0, MAX_SERVERS * sizeof *running);
	Suite *s = suite_create("mcp_interop");
	struct testlib_group *tc = testlib_group("everything");
	testlib_group_timeout(tc, 60);
	testlib_group_unchecked_fixture(tc, no_setup, stop_all);
	add_test(tc, everything_http_lists_every_tool);
	add_test(tc, everything_stdio_lists_every_tool);
	add_test(tc, everything_http_progress);
	testlib_suite_add(s, tc);
	tc = testlib_group("tiny");
	testlib_group_timeout(tc, 60);
	testlib_group_unchecked_fixture(tc, no_setup, stop_all);
	add_loop_test(tc, tiny_lists_every_page, 0, 3);
	add_test(tc, tiny_text_listing_is_escaped_and_aligned);
	add_test(tc, sse_server_requests_answered);
	add_loop_test(tc, call_envelopes_and_session_expiry, 0, 3);
	add_loop_test(tc, threads_share_one_session, 0, 3);
	add_test(tc, verbose_trace_redacts_the_token);
	testlib_suite_add(s, tc);
	tc = testlib_group("bad");
	testlib_group_timeout(tc, 60);
	testlib_group_unchecked_fixture(tc, no_setup, stop_all);
	add_loop_test(tc, stdio_bad_servers, 0, sizeof bad_servers / sizeof *bad_servers);
	add_test(tc, connection_refused_exits_5);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
