#pragma once
/* MCP 2026-07-28's wire, for mcp.c: the per-request _meta that replaced
 * the initialize handshake, the Mcp-Method / Mcp-Name / Mcp-Param-*
 * headers every HTTP request carries, and the tool listing's x-mcp-header
 * rules (a tool whose designations a client cannot send is dropped). */

#include <jansson.h>
#include <stdbool.h>

#include "err.h"
#include "transport.h"

#define MCP_MODERN_VERSION "2026-07-28"
/* 2026-07-28's error for a version the server does not take; its data
 * lists the ones it does (data.supported). */
#define MCP_UNSUPPORTED_VERSION -32022

/* The _meta members every modern request carries: the version, our
 * capabilities (none) and who we are. A new object. */
json_t *mcp_wire_meta(const char *version, const char *client_name, const char *client_version);

/* The headers of one modern request: MCP-Protocol-Version, Mcp-Method,
 * Mcp-Name (tools/call and prompts/get by name, resources/read by uri) and,
 * for tools/call, one Mcp-Param-<Header> per designated argument that is
 * present and not null (`designations`: the tool's [[property, header],
 * ...] from mcp_wire_tool_headers, or NULL). Values that are not plain
 * visible ASCII go as =?base64?...?=. */
struct mcp_wire_headers {
	struct transport_header h[40];
	size_t n;
	char *owned[80]; /* the names and values h[] points into */
	size_t n_owned;
};
int mcp_wire_headers_build(struct mcp_wire_headers *w, const char *version, const char *method,
			   const json_t *params, const json_t *designations, struct err *e);
void mcp_wire_headers_finish(struct mcp_wire_headers *w);

/* A tool's x-mcp-header designations, checked as 2026-07-28 asks of a
 * client on HTTP: 0 with *out a new [[property, header], ...] array (empty
 * when it has none), or -1 with `why` saying what makes the tool unusable
 * (then the client must not list it). */
int mcp_wire_tool_headers(const json_t *tool, json_t **out, char *why, size_t why_len);

/* A header value as sent: itself when plain visible ASCII with no space at
 * either end, else =?base64?<UTF-8 in base64>?=. malloc'd; NULL: no memory. */
char *mcp_wire_header_value(const char *v, size_t len);
