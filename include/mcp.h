#pragma once
/* The MCP client session: initialize and version negotiation, tools/list,
 * tools/call, and answers to whatever the server asks of us. Sits on a
 * transport; knows nothing of Catalyst. */

#include <jansson.h>
#include <stdbool.h>

#include "err.h"
#include "transport.h"

struct mcp_session;

/* Progress notifications (notifications/progress) for an outstanding call. */
typedef void (*mcp_progress_fn)(double progress, double total, const char *message, void *ctx);

struct mcp_options {
	const char *client_name;    /* default "catalyst-audit" */
	const char *client_version; /* default the program version */
	mcp_progress_fn on_progress;
	void *progress_ctx;
	/* The whole wait for one request, the server's own requests to us
	 * included (at most 16 are answered per request); 0: 60 s. The
	 * transport's own timeout should be the same. */
	long timeout_ms;
};

/* The session takes no ownership of the transport. */
struct mcp_session *mcp_session_new(struct transport *t, const struct mcp_options *o);
void mcp_session_free(struct mcp_session *s); /* accepts NULL */

/* initialize + notifications/initialized. Offers 2025-11-25; accepts
 * 2025-06-18 and 2025-03-26 from the server; anything else is an error. */
int mcp_initialize(struct mcp_session *s, struct err *e);
const char *mcp_protocol_version(const struct mcp_session *s);
/* The server's initialize result (serverInfo, capabilities, instructions);
 * borrowed, valid until the session is freed. */
const json_t *mcp_server_info_get(const struct mcp_session *s);

/* Every tool, following nextCursor to the end: a new array reference. A
 * repeated cursor, more than 10,000 tools or more than 16 MiB of answers
 * across the pages end the listing (ERR_PROTOCOL, ERR_DETAIL_FINAL, the
 * bound named). */
json_t *mcp_list_tools(struct mcp_session *s, struct err *e);

/* One tools/call answer, in whichever envelope it came. Exactly one of
 * rpc_error / result is set when mcp_call_tool returns 0. */
struct mcp_tool_result {
	json_t *rpc_error;  /* the JSON-RPC error object {code, message, data} */
	json_t *result;     /* the whole result object */
	json_t *structured; /* borrowed from result: structuredContent or NULL */
	json_t *content;    /* borrowed from result: content array or NULL */
	json_t *text_json;  /* new: the first content[].text that parses as JSON, or NULL */
	bool is_error;      /* result.isError */
	/* mcp_call_tool_structured_raw: structuredContent's own bytes (an
	 * object's, NUL-terminated, owned), or NULL */
	char *structured_raw;
	size_t structured_raw_len;
};

/* Thread-safe: `runs` calls this from several workers on one session. On a
 * session expiry (HTTP 404) it re-initializes once and retries. Returns -1
 * only when no JSON-RPC answer was obtained (transport, protocol, timeout). */
int mcp_call_tool(struct mcp_session *s, const char *name, json_t *arguments, struct mcp_tool_result *out,
		  struct err *e);
void mcp_tool_result_finish(struct mcp_tool_result *r);

/* mcp_call_tool for a caller that reads structuredContent first, and
 * content[] only without it or in an error (isError) answer. When a
 * successful answer has structuredContent, content[] is not decoded at
 * all: `content` is an empty array and text_json NULL. An answer that
 * repeats its data as JSON text (as the SDK's servers do) then costs one
 * decode of the data instead of three. */
int mcp_call_tool_structured_first(struct mcp_session *s, const char *name, json_t *arguments,
				   struct mcp_tool_result *out, struct err *e);

/* mcp_call_tool_structured_first for a caller that reads the big arrays of
 * a successful answer's structuredContent from its bytes: `structured` is
 * decoded with every array over 2 KiB emptied ([]), and structured_raw
 * holds the whole object as the server sent it. Other answers are as
 * mcp_call_tool_structured_first gives them (structured_raw NULL). */
int mcp_call_tool_structured_raw(struct mcp_session *s, const char *name, json_t *arguments,
				 struct mcp_tool_result *out, struct err *e);

/* Ends the session (HTTP DELETE / stdio shutdown) through the transport. */
void mcp_session_close(struct mcp_session *s);
