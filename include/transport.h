#pragma once
/* How JSON-RPC messages reach an MCP server: Streamable HTTP (libcurl) or a
 * child process's stdio. One vtable, in the manner of seatd's seat_impl; the
 * MCP session above never knows which one it talks to. */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"

struct transport;

/* Called for every JSON-RPC message (one JSON text) that arrives while a
 * request is outstanding: notifications, server->client requests and the
 * response itself. Return 1 when `msg` completed the exchange (the caller
 * decides: usually "this is the response to my id"), 0 to keep reading,
 * -1 to abort with the error set in `e`. The callback may call
 * transport_send(...expect_reply=false...) on the same transport to answer a
 * server request (HTTP does that on a second handle). */
typedef int (*transport_on_message)(const char *msg, size_t len, void *ctx, struct err *e);

struct transport_ops {
	const char *name; /* "http", "stdio" */
	/* Sends one message. When expect_reply is true, blocks delivering every
	 * incoming message to on_message until it returns 1, the stream ends
	 * (an error: the response never came), or the timeout passes. When false
	 * (notifications, responses to the server) the message is sent and any
	 * answer body is drained. Thread-safe for HTTP (concurrent calls share
	 * the session and the connection pool); serialised for stdio. */
	int (*send)(struct transport *t, const char *body, size_t len, bool expect_reply,
		    transport_on_message on_message, void *ctx, struct err *e);
	/* Protocol-level headers set by the MCP layer (MCP-Protocol-Version, and
	 * later Mcp-Method/Mcp-Name); NULL value removes. Ignored by stdio. */
	int (*set_header)(struct transport *t, const char *name, const char *value);
	/* Forget the session (after a 404, before re-initializing). */
	void (*reset_session)(struct transport *t);
	/* End the session politely (HTTP DELETE; stdio: close stdin, wait, TERM). */
	void (*close)(struct transport *t);
	void (*destroy)(struct transport *t);
	/* Sign-in, for a transport whose kind signs in (NULL otherwise): the
	 * bearer token sent from now on (NULL: none), registered as a secret
	 * so that it is never traced in clear; and the WWW-Authenticate value
	 * of the last 401/403 answer (the OAuth discovery's start), malloc'd,
	 * NULL when none. OAuth (oauth.c) uses these alone. */
	int (*set_bearer)(struct transport *t, const char *token);
	char *(*www_authenticate)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
};

struct transport_http_options {
	const char *url;
	const char *cacert;       /* NULL: the system store; TLS is always verified */
	const char *bearer_token; /* NULL: no Authorization header */
	long connect_timeout_ms;  /* 0: 10 s */
	long timeout_ms;          /* per exchange; 0: 60 s */
	int max_parallel;         /* size of the keep-alive handle pool; 0: 8 */
	size_t max_message;       /* largest message or SSE event; 0: 16 MiB */
	int max_resumptions;      /* SSE resumptions per exchange; 0: 3, < 0: none */
};

struct transport_stdio_options {
	const char *command; /* run through /bin/sh -c */
	bool pass_stderr;    /* the child's stderr to ours (under --verbose) */
	long timeout_ms;     /* per exchange; 0: 60 s */
	long grace_ms;       /* after closing stdin, before SIGTERM; 0: 2 s */
	size_t max_line;     /* longest message line; 0: 16 MiB */
};

/* The program has called curl_global_init (main() does, in process.c). */
struct transport *transport_http_new(const struct transport_http_options *o, struct err *e);
struct transport *transport_stdio_new(const struct transport_stdio_options *o, struct err *e);

/* ---- the transports, by what they reach -------------------------------
 * One row a transport (transport.c's table, each row defined next to its
 * transport): the session opens whichever row serves the address, so a new
 * transport is its file, its row and its line in meson.build. */

/* What any transport is opened with; each reads what applies to it. */
struct transport_target {
	const char *address; /* a URL, or for a command transport the command line */
	const char *cacert;  /* TLS: a CA bundle, or NULL for the system's */
	long timeout_ms;     /* each exchange's deadline */
	int max_parallel;    /* connections kept, as many as runs fetched at once */
	bool pass_stderr;    /* a child's stderr traced (--verbose) */
};

struct transport_kind {
	const char *name;
	/* The URL schemes it serves, space-separated ("http https"); NULL for
	 * the one that runs a command (--stdio). */
	const char *schemes;
	bool signs_in; /* the session wraps it in OAuth (oauth_transport_new) */
	struct transport *(*open)(const struct transport_target *o, struct err *e);
};

/* The kind that runs commands (command), or the one whose schemes include
 * address's; an unknown scheme gets the first row (HTTP), whose open
 * refuses it naming the schemes it takes. */
const struct transport_kind *transport_kind_for(const char *address, bool command);

static inline int transport_send(struct transport *t, const char *body, size_t len, bool expect_reply,
				 transport_on_message cb, void *ctx, struct err *e)
{
	return t->ops->send(t, body, len, expect_reply, cb, ctx, e);
}

/* A cap on how long sends from the calling thread may wait: monotonic
 * milliseconds (monotime_ms), 0 for none. The MCP layer sets it while it
 * answers a server's requests, so their time counts against the request
 * they came in. Each transport waits at most transport_send_timeout(its
 * own timeout). */
void transport_set_send_deadline(long long at_ms);
long transport_send_timeout(long timeout_ms);

/* What the MCP layer adds to the POSTs the calling thread sends until it
 * clears it (HTTP only; stdio has no headers): header lines that hold for
 * this one request (MCP 2026-07-28's Mcp-Method, Mcp-Name, Mcp-Param-*,
 * which a transport shared by several threads cannot keep as its own),
 * and whether a 4xx answer whose body is a whole JSON text is delivered
 * to on_message as the answer (MCP 2026-07-28 answers an unsupported
 * version or a missing field so; a legacy server's 4xx stays an error).
 * Names and values must hold no CR or LF; an empty value is sent empty.
 * Borrowed: it must outlive the sends. NULL clears. */
struct transport_header {
	const char *name;
	const char *value;
};
struct transport_request {
	const struct transport_header *headers;
	size_t n_headers;
	bool error_bodies;
};
void transport_set_request(const struct transport_request *r);
const struct transport_request *transport_request_get(void);

/* Closes and frees; accepts NULL. */
void transport_free(struct transport *t);

#define TRANSPORT_DEFAULT_MAX_MESSAGE ((size_t)16 << 20)

/* Every message handed to on_message is NUL-terminated at msg[len] and
 * valid UTF-8. */

/* The sign-in ops (struct transport_ops): -1 and NULL for a transport
 * that takes no bearer. */
static inline int transport_set_bearer(struct transport *t, const char *token)
{
	return t && t->ops->set_bearer ? t->ops->set_bearer(t, token) : -1;
}
static inline char *transport_www_authenticate(struct transport *t)
{
	return t && t->ops->www_authenticate ? t->ops->www_authenticate(t) : NULL;
}
/* The Mcp-Session-Id in force, malloc'd; NULL when none. */
char *transport_http_session_id(struct transport *t);

/* Shared by the transports. Hands one JSON text to cb, or each element of a
 * JSON array (a batch) in order. With `parse` the text is checked to be
 * JSON first (an HTTP body); without, only arrays are parsed. Returns the
 * first non-zero callback value, 0 when every callback returned 0, -1 with
 * ERR_PROTOCOL for text that is not JSON, not UTF-8 or not a message. */
int transport_deliver(const char *text, size_t len, bool parse, transport_on_message cb, void *ctx, struct err *e);
bool transport_utf8_valid(const char *s, size_t len);

/* SIGPIPE around a write to a pipe or socket, without touching the
 * process-wide disposition: blocked in the calling thread, and one raised
 * meanwhile (by our write) consumed before the mask is restored. */
struct transport_sigpipe {
	sigset_t old;
	bool was_pending;
};
void transport_sigpipe_block(struct transport_sigpipe *s);
void transport_sigpipe_restore(struct transport_sigpipe *s);
