/* `catalyst-audit tools`: connect to any MCP server, list every tool and
 * its input schema. The quickest way to see what a server offers, and what
 * argument names the Catalyst tool layer will have to bind to. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "escape.h"
#include "mcp.h"
#include "oauth.h"
#include "transport.h"
#include "version.h"

/* Descriptions can be paragraphs; the listing shows their first line. */
#define DESCRIPTION_MAX_CHARS 120

static struct transport *connect_transport(const struct audit_request *rq, struct err *e)
{
	long timeout_ms = (rq->timeout_s > 0 ? rq->timeout_s : 60) * 1000;
	if (rq->stdio_cmd) {
		struct transport_stdio_options so = {
			.command = rq->stdio_cmd,
			.pass_stderr = rq->verbose,
			.timeout_ms = timeout_ms,
		};
		return transport_stdio_new(&so, e);
	}
	const char *token = rq->env_token;
	struct transport_http_options ho = {
		.url = rq->server,
		.cacert = rq->cacert,
		.bearer_token = token && *token ? token : NULL,
		.timeout_ms = timeout_ms,
	};
	return oauth_connect_http(rq, &ho, e); /* token store, refresh, sign-in on 401 */
}

/* Server text, made safe for a terminal: one line, control characters
 * shown as escapes. */
static void put_safe(FILE *out, const char *s, size_t max_chars)
{
	if (!s)
		return;
	char *safe = escape_terminal_dup(s, max_chars);
	fputs(safe ? safe : "?", out);
	free(safe);
}

static char *first_line(const char *s)
{
	return s ? strndup(s, strcspn(s, "\r\n")) : NULL;
}

/* "string", "integer|null", or what the schema uses instead of a type. */
static char *schema_type(json_t *schema)
{
	json_t *type = json_object_get(schema, "type");
	if (json_is_string(type))
		return strdup(json_string_value(type));
	if (json_is_array(type)) {
		char joined[128] = "";
		size_t i;
		json_t *t;
		json_array_foreach(type, i, t) {
			if (!json_is_string(t))
				continue;
			if (*joined)
				strncat(joined, "|", sizeof joined - strlen(joined) - 1);
			strncat(joined, json_string_value(t), sizeof joined - strlen(joined) - 1);
		}
		return strdup(*joined ? joined : "?");
	}
	static const char *const alternatives[] = {"enum", "const", "anyOf", "oneOf", "allOf", "$ref"};
	for (size_t i = 0; i < sizeof alternatives / sizeof *alternatives; i++)
		if (json_object_get(schema, alternatives[i]))
			return strdup(alternatives[i]);
	return strdup("any");
}

static bool is_required(json_t *input_schema, const char *prop)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(input_schema, "required"), i, r)
		if (json_is_string(r) && strcmp(json_string_value(r), prop) == 0)
			return true;
	return false;
}

/* Terminal width of an escaped string: escapes are ASCII, the rest is
 * counted per code point (close enough for names, which are ASCII). */
static size_t display_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void pad(FILE *out, size_t used, size_t width)
{
	for (; used < width; used++)
		fputc(' ', out);
}

static void print_text(FILE *out, const struct mcp_session *s, json_t *tools)
{
	const json_t *info = mcp_server_info_get(s);
	json_t *server = json_object_get(info, "serverInfo");
	fputs("server: ", out);
	put_safe(out, json_string_value(json_object_get(server, "name")), 80);
	const char *version = json_string_value(json_object_get(server, "version"));
	if (version) {
		fputc(' ', out);
		put_safe(out, version, 40);
	}
	fprintf(out, " (MCP %s)\n%zu tool%s\n", mcp_protocol_version(s), json_array_size(tools),
		json_array_size(tools) == 1 ? "" : "s");

	/* One column for tool names and (indented) property names. */
	size_t width = 0, type_width = 0;
	size_t i;
	json_t *tool;
	json_array_foreach(tools, i, tool) {
		char *name = escape_terminal_dup(json_string_value(json_object_get(tool, "name")), 0);
		if (name && display_width(name) > width)
			width = display_width(name);
		free(name);
		const char *prop;
		json_t *schema;
		json_object_foreach(json_object_get(json_object_get(tool, "inputSchema"), "properties"), prop,
				    schema) {
			char *p = escape_terminal_dup(prop, 0);
			if (p && display_width(p) + 2 > width)
				width = display_width(p) + 2;
			free(p);
			char *type = schema_type(schema);
			if (type && strlen(type) > type_width)
				type_width = strlen(type);
			free(type);
		}
	}
	width += 2;

	json_array_foreach(tools, i, tool) {
		fputc('\n', out);
		char *name = escape_terminal_dup(json_string_value(json_object_get(tool, "name")), 0);
		fputs(name ? name : "?", out);
		char *line = first_line(json_string_value(json_object_get(tool, "description")));
		if (line && *line) {
			pad(out, name ? display_width(name) : 1, width);
			put_safe(out, line, DESCRIPTION_MAX_CHARS);
		}
		free(line);
		free(name);
		fputc('\n', out);

		json_t *input = json_object_get(tool, "inputSchema");
		const char *prop;
		json_t *schema;
		json_object_foreach(json_object_get(input, "properties"), prop, schema) {
			char *p = escape_terminal_dup(prop, 0);
			fprintf(out, "  %s", p ? p : "?");
			pad(out, 2 + (p ? display_width(p) : 1), width);
			free(p);
			char *type = schema_type(schema);
			char *safe_type = escape_terminal_dup(type, 40);
			bool required = is_required(input, prop);
			fputs(safe_type ? safe_type : "?", out);
			if (required) {
				pad(out, safe_type ? display_width(safe_type) : 1, type_width + 2);
				fputs("required", out);
			}
			fputc('\n', out);
			free(safe_type);
			free(type);
		}
	}
}

static int print_json(FILE *out, const struct mcp_session *s, json_t *tools, struct err *e)
{
	const json_t *info = mcp_server_info_get(s);
	json_t *server = json_object_get(info, "serverInfo");
	json_t *doc = json_pack("{s:o, s:s, s:O}", "server", server ? json_incref(server) : json_object(),
				"protocolVersion", mcp_protocol_version(s), "tools", tools);
	if (!doc)
		return err_set(e, ERR_INTERNAL, "cannot build the tools document");
	/* The document goes to a script: escaping is JSON's job, and jansson
	 * escapes every control character. */
	int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (rc < 0)
		return err_set(e, ERR_USAGE, "cannot write the tools document");
	fputc('\n', out);
	return 0;
}

int audit_tools(const struct audit_request *rq, struct err *e)
{
	int rc = -1;
	FILE *out = stdout;
	json_t *tools = NULL;
	struct mcp_session *s = NULL;
	struct transport *t = connect_transport(rq, e);
	if (!t)
		goto out;
	struct mcp_options mo;
	audit_mcp_options(rq, &mo);
	s = mcp_session_new(t, &mo);
	if (!s) {
		err_set(e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	if (rq->progress)
		rq->progress("connecting", rq->msg_ctx);
	if (mcp_initialize(s, e) < 0)
		goto out;
	if (rq->progress)
		rq->progress("listing tools", rq->msg_ctx);
	tools = mcp_list_tools(s, e);
	if (rq->progress)
		rq->progress("", rq->msg_ctx);
	if (!tools)
		goto out;
	if (rq->output) {
		out = fopen(rq->output, "w");
		if (!out) {
			out = stdout;
			err_set(e, ERR_USAGE, "cannot write %s: %s", rq->output, strerror(errno));
			goto out;
		}
	}
	/* Without --format this lists for a person, even into a pipe. */
	if (rq->format_given && rq->format == FORMAT_JSON) {
		if (print_json(out, s, tools, e) < 0)
			goto out;
	} else {
		if (rq->format_given && rq->format != FORMAT_TEXT && rq->warn)
			rq->warn("tools: only text and json formats exist; writing text", rq->msg_ctx);
		print_text(out, s, tools);
	}
	if (fflush(out) != 0) {
		err_set(e, ERR_USAGE, "cannot write the tool list: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc < 0 && rq->progress)
		rq->progress("", rq->msg_ctx);
	if (out != stdout)
		fclose(out);
	json_decref(tools);
	if (s)
		mcp_session_close(s);
	mcp_session_free(s);
	transport_free(t);
	return rc;
}
