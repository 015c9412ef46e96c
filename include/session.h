#pragma once
/* A connection to an MCP server for one command: the transport (HTTP with
 * OAuth — a token from the request, the token store, refresh, sign-in as
 * the request allows — or a local server over stdio), the MCP session on
 * it and, for Catalyst, the tool layer with its bindings. The commands ask
 * for one here and never build a connection themselves. */

#include "audit.h"
#include "catalyst.h"
#include "err.h"
#include "mcp.h"

enum session_kind {
	/* The Catalyst tool layer, bindings loaded; errors say where
	 * ("connecting to URL: ..."). Server progress is not shown: the
	 * commands show their own. */
	SESSION_CATALYST = 0,
	/* Any MCP server, initialized, no tool layer (`tools`): server
	 * progress goes to rq->progress, errors come as they are. */
	SESSION_MCP,
};

struct session;

/* Opens the session rq asks for: --stdio's command, else rq->server over
 * HTTP. NULL with e set. */
struct session *session_open(const struct audit_request *rq, enum session_kind kind, struct err *e);
/* The Catalyst layer (SESSION_CATALYST) or NULL. */
struct catalyst *session_catalyst(const struct session *s);
struct mcp_session *session_mcp(const struct session *s);
/* Ends the MCP session and frees everything; accepts NULL. */
void session_close(struct session *s);
