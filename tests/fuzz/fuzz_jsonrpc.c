/* libFuzzer harness for the JSON-RPC message decoder: whatever bytes a
 * server sends must decode or fail with ERR_PROTOCOL, never crash, and a
 * decoded message must be internally consistent. The same bytes then reach
 * the MCP session through a fake transport: each line as a message that
 * arrives while a tools/call waits (server requests, notifications, stray
 * responses), then the whole input as the text content of the answer; once
 * more for a call that reads structuredContent first, whose messages are
 * walked member by member (json_scan.h) before they are decoded, and for
 * one that takes structuredContent's bytes (its big arrays emptied in
 * what is decoded): the bytes must be a JSON object with the same members
 * as the decoded one. Each
 * runs against a server of MCP's legacy era (server/discover refused,
 * initialize), one of 2026-07-28 (no handshake; per-request _meta and
 * headers; resultType read), and one whose answers to server/discover
 * are the input itself (the era is whatever they say, or an error). */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"
#include "mcp.h"

static const uint8_t *input;
static size_t input_size;

enum era {
	ERA_LEGACY,
	ERA_MODERN,
	ERA_FROM_INPUT
};
static enum era era;

/* Each line of the input, as a message in the stream of the request
 * `id` waits on. */
static int deliver_lines(transport_on_message cb, void *ctx, struct err *e)
{
	int rc = 0;
	size_t start = 0;
	for (size_t i = 0; i <= input_size && rc == 0; i++) {
		if (i < input_size && input[i] != '\n')
			continue;
		char *line = strndup((const char *)input + start, i - start);
		if (line && *line)
			rc = cb(line, strlen(line), ctx, e);
		free(line);
		start = i + 1;
	}
	return rc;
}

static int fake_send(struct transport *t, const char *body, size_t len, bool expect_reply, transport_on_message cb,
		     void *ctx, struct err *e)
{
	(void)t;
	if (!expect_reply)
		return 0;
	json_t *req = json_loadb(body, len, 0, NULL);
	if (!req)
		abort(); /* we sent something that is not JSON */
	long long id = (long long)json_integer_value(json_object_get(req, "id"));
	const char *method = json_string_value(json_object_get(req, "method"));
	int rc = 0;
	json_t *answer = NULL;
	if (strcmp(method, "server/discover") == 0) {
		if (era == ERA_FROM_INPUT)
			rc = deliver_lines(cb, ctx, e);
		else if (era == ERA_MODERN)
			answer = json_pack("{s:s, s:I, s:{s:s, s:[s], s:{}, s:i, s:s}}", "jsonrpc", "2.0", "id",
					   (json_int_t)id, "result", "resultType", "complete", "supportedVersions",
					   "2026-07-28", "capabilities", "ttlMs", 0, "cacheScope", "public");
		else
			answer = json_pack("{s:s, s:I, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", (json_int_t)id,
					   "error", "code", -32601, "message", "Method not found");
	} else if (strcmp(method, "initialize") == 0) {
		answer = json_pack("{s:s, s:I, s:{s:s, s:{}, s:{s:s}}}", "jsonrpc", "2.0", "id", (json_int_t)id,
				   "result", "protocolVersion", "2025-06-18", "capabilities", "serverInfo", "name",
				   "fuzz");
	} else {
		rc = deliver_lines(cb, ctx, e);
		if (rc == 0) {
			json_t *text = json_stringn((const char *)input, input_size); /* NULL unless UTF-8 */
			answer = json_pack("{s:s, s:I, s:{s:[{s:s, s:o}]}}", "jsonrpc", "2.0", "id",
					   (json_int_t)id, "result", "content", "type", "text", "text", text);
		}
	}
	if (answer) {
		char *a = json_dumps(answer, JSON_COMPACT);
		rc = a ? cb(a, strlen(a), ctx, e) : -1;
		free(a);
		json_decref(answer);
	}
	json_decref(req);
	if (rc < 0)
		return -1;
	return rc == 1 ? 0 : err_set(e, ERR_PROTOCOL, "no answer");
}

static int fake_set_header(struct transport *t, const char *name, const char *value)
{
	(void)t, (void)name, (void)value;
	return 0;
}

static void fake_nothing(struct transport *t)
{
	(void)t;
}

static const struct transport_ops fake_ops = {
	.name = "fuzz",
	.send = fake_send,
	.set_header = fake_set_header,
	.reset_session = fake_nothing,
	.close = fake_nothing,
	.destroy = fake_nothing,
};

static void on_progress(double progress, double total, const char *message, void *ctx)
{
	(void)progress, (void)total, (void)message, (void)ctx;
}

enum call {
	CALL_PLAIN,
	CALL_STRUCTURED,
	CALL_RAW
};

/* The bytes of a raw answer: an object with the decoded one's members. */
static void check_raw(const struct mcp_tool_result *r)
{
	if (!r->structured_raw)
		return;
	json_t *whole = json_loadb(r->structured_raw, r->structured_raw_len, 0, NULL);
	if (!json_is_object(whole) || !json_is_object(r->structured) ||
	    json_object_size(whole) != json_object_size(r->structured) ||
	    strlen(r->structured_raw) != r->structured_raw_len)
		abort();
	const char *k;
	json_t *v;
	json_object_foreach(whole, k, v) {
		json_t *d = json_object_get(r->structured, k);
		if (!d || json_typeof(d) != json_typeof(v))
			abort();
	}
	json_decref(whole);
}

static void through_session(const uint8_t *data, size_t size, enum call call, enum era as)
{
	input = data;
	input_size = size;
	era = as;
	struct transport t = {.ops = &fake_ops};
	struct mcp_options o = {.on_progress = on_progress};
	struct mcp_session *s = mcp_session_new(&t, &o);
	struct err e;
	err_clear(&e);
	if (mcp_initialize(s, &e) < 0) {
		/* Only the input's own answers may make the session fail. */
		if (as != ERA_FROM_INPUT || e.code == ERR_NONE)
			abort();
		mcp_session_free(s);
		return;
	}
	const char *v = mcp_protocol_version(s);
	if (!v || (as == ERA_MODERN && strcmp(v, "2026-07-28") != 0) ||
	    (as == ERA_LEGACY && strcmp(v, "2025-06-18") != 0))
		abort();
	struct mcp_tool_result r;
	int rc = call == CALL_RAW          ? mcp_call_tool_structured_raw(s, "t", NULL, &r, &e)
		 : call == CALL_STRUCTURED ? mcp_call_tool_structured_first(s, "t", NULL, &r, &e)
					   : mcp_call_tool(s, "t", NULL, &r, &e);
	if (rc == 0) {
		if (!r.result == !r.rpc_error)
			abort();
		check_raw(&r);
		mcp_tool_result_finish(&r);
	} else if (e.code == ERR_NONE) {
		abort();
	}
	mcp_session_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (enum era as = ERA_LEGACY; as <= ERA_FROM_INPUT; as++) {
		for (enum call c = CALL_PLAIN; c <= CALL_RAW; c++)
			through_session(data, size, c, as);
	}
	struct jsonrpc_message m;
	struct err e;
	err_clear(&e);
	if (jsonrpc_decode(&m, (const char *)data, size, &e) < 0) {
		if (e.code != ERR_PROTOCOL || m.root != NULL)
			abort();
		return 0;
	}
	switch (m.kind) {
	case JSONRPC_REQUEST:
		if (!m.method || !m.id)
			abort();
		break;
	case JSONRPC_NOTIFICATION:
		if (!m.method || m.id)
			abort();
		break;
	case JSONRPC_RESULT:
		if (!m.result || m.error || !m.id)
			abort();
		break;
	case JSONRPC_ERROR:
		if (!m.error || m.result || !m.error_message)
			abort();
		break;
	default:
		abort();
	}
	/* What we would send back for a request must itself decode. */
	if (m.kind == JSONRPC_REQUEST) {
		size_t len;
		char *answer = jsonrpc_error_build(m.id, JSONRPC_METHOD_NOT_FOUND, "Method not found", &len, &e);
		struct jsonrpc_message back;
		if (!answer || jsonrpc_decode(&back, answer, len, &e) < 0 || back.kind != JSONRPC_ERROR ||
		    !json_equal(back.id, m.id))
			abort();
		jsonrpc_message_finish(&back);
		free(answer);
	}
	jsonrpc_message_finish(&m);
	return 0;
}
