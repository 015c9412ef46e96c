/* `tools`: every tool a server offers and its input schema's properties. */

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "render_info.h"

/* Descriptions can be paragraphs; the listing shows their first line. */
#define DESCRIPTION_MAX_CHARS 120

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

static void pad(FILE *out, size_t used, size_t width)
{
	for (; used < width; used++)
		fputc(' ', out);
}

static void print_text(FILE *out, const struct tools_info *t)
{
	json_t *tools = t->tools;
	const json_t *info = t->server_info;
	json_t *server = json_object_get(info, "serverInfo");
	fputs("server: ", out);
	put_safe(out, json_string_value(json_object_get(server, "name")), 80);
	const char *version = json_string_value(json_object_get(server, "version"));
	if (version) {
		fputc(' ', out);
		put_safe(out, version, 40);
	}
	fprintf(out, " (MCP %s)\n%zu tool%s\n", t->protocol_version, json_array_size(tools),
		json_array_size(tools) == 1 ? "" : "s");

	/* One column for tool names and (indented) property names. */
	size_t width = 0, type_width = 0;
	size_t i;
	json_t *tool;
	json_array_foreach(tools, i, tool) {
		char *name = escape_terminal_dup(json_string_value(json_object_get(tool, "name")), 0);
		if (name && escape_columns(name) > width)
			width = escape_columns(name);
		free(name);
		const char *prop;
		json_t *schema;
		json_object_foreach(json_object_get(json_object_get(tool, "inputSchema"), "properties"), prop,
				    schema) {
			char *p = escape_terminal_dup(prop, 0);
			if (p && escape_columns(p) + 2 > width)
				width = escape_columns(p) + 2;
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
			pad(out, name ? escape_columns(name) : 1, width);
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
			pad(out, 2 + (p ? escape_columns(p) : 1), width);
			free(p);
			char *type = schema_type(schema);
			char *safe_type = escape_terminal_dup(type, 40);
			bool required = is_required(input, prop);
			fputs(safe_type ? safe_type : "?", out);
			if (required) {
				pad(out, safe_type ? escape_columns(safe_type) : 1, type_width + 2);
				fputs("required", out);
			}
			fputc('\n', out);
			free(safe_type);
			free(type);
		}
	}
}

static int print_json(FILE *out, const struct tools_info *t, struct err *e)
{
	const json_t *info = t->server_info;
	json_t *server = json_object_get(info, "serverInfo");
	json_t *doc = json_pack("{s:o, s:s, s:O}", "server", server ? json_incref(server) : json_object(),
				"protocolVersion", t->protocol_version, "tools", t->tools);
	if (!doc)
		return err_set(e, ERR_INTERNAL, "cannot build the tools document");
	/* The document goes to a script: escaping is JSON's job, and jansson
	 * escapes every control character. */
	int rc = render_json_dump(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (rc < 0)
		return err_set(e, ERR_USAGE, "cannot write the tools document");
	return 0;
}

int render_tools_json(FILE *out, const struct tools_info *t, const struct render_options *o, struct err *e)
{
	(void)o;
	return print_json(out, t, e);
}

int render_tools_text(FILE *out, const struct tools_info *t, const struct render_options *o, struct err *e)
{
	(void)o;
	(void)e;
	print_text(out, t);
	return 0;
}
