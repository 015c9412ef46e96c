#pragma once
/* JSON-RPC 2.0 messages as MCP uses them: built with jansson (never by
 * string concatenation) and decoded one message at a time, with every way
 * a peer can get the envelope wrong turned into one clear ERR_PROTOCOL. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* Larger messages are refused before parsing. A 10 MB tool result is fine. */
#define JSONRPC_MAX_MESSAGE ((size_t)64 << 20)

/* JSON-RPC error codes we send or name. */
#define JSONRPC_PARSE_ERROR -32700
#define JSONRPC_INVALID_REQUEST -32600
#define JSONRPC_METHOD_NOT_FOUND -32601
#define JSONRPC_INVALID_PARAMS -32602
#define JSONRPC_INTERNAL_ERROR -32603

enum jsonrpc_kind {
	JSONRPC_REQUEST = 1,  /* method + id: the peer wants an answer */
	JSONRPC_NOTIFICATION, /* method, no id */
	JSONRPC_RESULT,       /* id + result */
	JSONRPC_ERROR,        /* id (possibly null) + error {code, message, data} */
};

/* One decoded message. Every pointer but `root` is borrowed from `root`. */
struct jsonrpc_message {
	enum jsonrpc_kind kind;
	json_t *root;       /* owned */
	json_t *id;         /* string or integer; NULL for notifications, json null
			       for an error that names no request */
	const char *method; /* requests and notifications */
	json_t *params;     /* requests and notifications; NULL when absent */
	json_t *result;     /* JSONRPC_RESULT */
	json_t *error;      /* JSONRPC_ERROR: an object with integer code and string message */
	long long error_code;
	const char *error_message;
};

/* Decodes and classifies one message. On failure (not JSON, with jansson's
 * line:column; not an object; no "jsonrpc": "2.0"; result and error both
 * or neither; a malformed id or error object; over JSONRPC_MAX_MESSAGE)
 * returns -1 with ERR_PROTOCOL and leaves `m` empty. */
int jsonrpc_decode(struct jsonrpc_message *m, const char *text, size_t len, struct err *e);
void jsonrpc_message_finish(struct jsonrpc_message *m);
const char *jsonrpc_kind_name(enum jsonrpc_kind k);

/* A request ready to send. `method` and `name` are what the 2026-07-28
 * revision puts in the Mcp-Method / Mcp-Name headers; a transport can set
 * them from here without reparsing the body. */
struct jsonrpc_request {
	long long id;
	char *body; /* JSON text, NUL-terminated */
	size_t len;
	char *method;
	char *name; /* params.name (tools/call, prompts/get) or NULL */
};

/* Process-wide, atomic: ids never repeat, whichever thread or session asks. */
long long jsonrpc_next_id(void);

/* Builds {"jsonrpc":"2.0","id":N,"method":...,"params":...}. `params` and
 * `meta` are borrowed (NULL: omitted). A non-NULL `meta` becomes
 * params._meta, merged over any _meta already there. */
int jsonrpc_request_build(struct jsonrpc_request *r, const char *method, json_t *params, json_t *meta,
			  struct err *e);
/* The same with an id the caller took from jsonrpc_next_id() (when the id
 * must appear inside the message too, as a progress token). */
int jsonrpc_request_build_id(struct jsonrpc_request *r, long long id, const char *method, json_t *params,
			     json_t *meta, struct err *e);
void jsonrpc_request_finish(struct jsonrpc_request *r);

/* The other three shapes, as malloc'd JSON text; `params`, `result` and
 * `id` are borrowed. */
char *jsonrpc_notification_build(const char *method, json_t *params, size_t *len, struct err *e);
char *jsonrpc_result_build(json_t *id, json_t *result, size_t *len, struct err *e);
char *jsonrpc_error_build(json_t *id, long long code, const char *message, size_t *len, struct err *e);

/* True when a decoded id is the integer `id` we sent. */
bool jsonrpc_id_is(const json_t *id, long long want);
