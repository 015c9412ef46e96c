#pragma once
/* A connection to an MCP server for one command: the transport (HTTP with
 * OAuth — a token from the request, the token store, refresh, sign-in as
 * the request allows — or a local server over stdio), the MCP session on
 * it and, for Catalyst, the tool layer with its bindings. The commands ask
 * for one here and never build a connection themselves. */

#include <stdbool.h>

#include "catalyst.h"
#include "err.h"
#include "mcp.h"
#include "oauth.h"

enum session_kind {
	/* The Catalyst tool layer, bindings loaded; errors say where
	 * ("connecting to URL: ..."). Server progress is not shown: the
	 * commands show their own. */
	SESSION_CATALYST = 0,
	/* Any MCP server, initialized, no tool layer (`tools`): server
	 * progress goes to the options' progress, errors come as they are. */
	SESSION_MCP,
};

/* What a session is opened with, resolved by the pipeline from the
 * command line (audit_session_open): the session never sees the CLI's
 * request, and calls nothing above it. */
struct session_options {
	const char *server;    /* the MCP server's URL, when stdio_cmd is NULL; its scheme picks the transport */
	const char *stdio_cmd; /* a local server's command line, run over stdio, or NULL */
	const char *cacert;    /* HTTP: a CA bundle, or NULL for the system's */
	long timeout_ms;       /* each request's deadline */
	unsigned max_parallel; /* HTTP: handles kept, as many as runs fetched at once */
	bool pass_stderr;      /* stdio: the server's stderr traced (--verbose) */
	/* A transport that signs in (HTTP): how (its resource is set to server); copied. */
	const struct oauth_config *oauth;
	/* SESSION_MCP: the server's progress notifications, as one escaped line. */
	void (*progress)(const char *line, void *ctx);
	void *progress_ctx;
};

struct session;

/* Opens the session o describes: o->stdio_cmd, else o->server over HTTP
 * with OAuth. NULL with e set. */
struct session *session_open(const struct session_options *o, enum session_kind kind, struct err *e);
/* The Catalyst layer (SESSION_CATALYST) or NULL. */
struct catalyst *session_catalyst(const struct session *s);
struct mcp_session *session_mcp(const struct session *s);
/* Ends the MCP session and frees everything; accepts NULL. */
void session_close(struct session *s);
