#include "mcp_wire.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A tool may designate no more arguments than one request carries. */
#define MAX_DESIGNATIONS 32

json_t *mcp_wire_meta(const char *version, const char *client_name, const char *client_version)
{
	return json_pack("{s:s, s:{}, s:{s:s, s:s}}", "io.modelcontextprotocol/protocolVersion", version,
			 "io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/clientInfo",
			 "name", client_name, "version", client_version);
}

static bool plain_ascii(const char *v, size_t len)
{
	if (len && (v[0] == ' ' || v[0] == '\t' || v[len - 1] == ' ' || v[len - 1] == '\t'))
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			return false;
	/* A value that is itself shaped as the sentinel must not be read as one. */
	return !(len >= 11 && strncasecmp(v, "=?base64?", 9) == 0 && strcmp(v + len - 2, "?=") == 0);
}

char *mcp_wire_header_value(const char *v, size_t len)
{
	if (plain_ascii(v, len))
		return strndup(v, len);
	size_t b64 = 4 * ((len + 2) / 3);
	char *out = malloc(9 + b64 + 3);
	if (!out)
		return NULL;
	memcpy(out, "=?base64?", 9);
	EVP_EncodeBlock((unsigned char *)out + 9, (const unsigned char *)v, (int)len);
	memcpy(out + 9 + b64, "?=", 3);
	return out;
}

/* Keeps p to be freed with the headers; false (p freed) when it is NULL
 * or there is no room. */
static bool own(struct mcp_wire_headers *w, char *p)
{
	if (!p || w->n_owned >= sizeof w->owned / sizeof *w->owned) {
		free(p);
		return false;
	}
	w->owned[w->n_owned++] = p;
	return true;
}

/* One header; the name is static or already owned, the value is taken. */
static int add(struct mcp_wire_headers *w, const char *name, char *value, struct err *e)
{
	if (w->n >= sizeof w->h / sizeof *w->h) {
		free(value);
		return err_set(e, ERR_INTERNAL, "too many request headers");
	}
	if (!own(w, value))
		return err_oom(e);
	w->h[w->n++] = (struct transport_header){.name = name, .value = value};
	return 0;
}

/* One designated argument's value as its header carries it; NULL (and
 * *skip) for one absent or null, which sends no header. */
static char *argument_text(const json_t *v, bool *skip)
{
	*skip = false;
	char num[32];
	switch (json_typeof(v)) {
	case JSON_STRING:
		return mcp_wire_header_value(json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return strdup(num);
	case JSON_REAL:
		snprintf(num, sizeof num, "%.17g", json_real_value(v));
		return strdup(num);
	case JSON_TRUE:
		return strdup("true");
	case JSON_FALSE:
		return strdup("false");
	default:
		*skip = true;
		return NULL;
	}
}

int mcp_wire_headers_build(struct mcp_wire_headers *w, const char *version, const char *method,
			   const json_t *params, const json_t *designations, struct err *e)
{
	memset(w, 0, sizeof *w);
	if (add(w, "MCP-Protocol-Version", strdup(version), e) < 0 || add(w, "Mcp-Method", strdup(method), e) < 0)
		goto fail;
	const json_t *name = NULL;
	if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
		name = json_object_get(params, "name");
	else if (strcmp(method, "resources/read") == 0)
		name = json_object_get(params, "uri");
	if (json_is_string(name) &&
	    add(w, "Mcp-Name", mcp_wire_header_value(json_string_value(name), json_string_length(name)), e) < 0)
		goto fail;
	const json_t *args = json_object_get(params, "arguments");
	size_t i;
	const json_t *d;
	json_array_foreach(designations, i, d) {
		const json_t *v = json_object_get(args, json_string_value(json_array_get(d, 0)));
		bool skip = true;
		char *text = v ? argument_text(v, &skip) : NULL;
		if (skip)
			continue;
		char *hname = NULL;
		if (!text || asprintf(&hname, "Mcp-Param-%s", json_string_value(json_array_get(d, 1))) < 0)
			hname = NULL;
		if (!own(w, hname)) {
			free(text);
			err_oom(e);
			goto fail;
		}
		if (add(w, hname, text, e) < 0)
			goto fail;
	}
	return 0;
fail:
	mcp_wire_headers_finish(w);
	return -1;
}

void mcp_wire_headers_finish(struct mcp_wire_headers *w)
{
	for (size_t i = 0; i < w->n_owned; i++)
		free(w->owned[i]);
	memset(w, 0, sizeof *w);
}

/* RFC 9110's token: what a header name may be made of. */
static bool header_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("!#$%&'*+-.^_`|~", *s)))
			return false;
	return true;
}

/* A property whose value a header can carry: one JSON Schema type, and
 * that one a string, an integer or a boolean (2026-07-28 rules out
 * numbers, whose text form is not one, and every structured type). */
static bool primitive_property(const json_t *schema)
{
	const char *t = json_string_value(json_object_get(schema, "type"));
	return t && (strcmp(t, "string") == 0 || strcmp(t, "integer") == 0 || strcmp(t, "boolean") == 0);
}

int mcp_wire_tool_headers(const json_t *tool, json_t **out, char *why, size_t why_len)
{
	*out = NULL;
	json_t *list = json_array();
	if (!list) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	const json_t *props = json_object_get(json_object_get(tool, "inputSchema"), "properties");
	const char *prop;
	const json_t *schema;
	json_object_foreach((json_t *)props, prop, schema) {
		const json_t *h = json_object_get(schema, "x-mcp-header");
		if (!h)
			continue;
		const char *name = json_string_value(h);
		if (!name || !header_token(name)) {
			snprintf(why, why_len, "the x-mcp-header of '%.60s' is not a header name", prop);
			goto bad;
		}
		if (!primitive_property(schema)) {
			snprintf(why, why_len,
				 "'%.60s' carries x-mcp-header but is not a string, integer or boolean", prop);
			goto bad;
		}
		size_t i;
		const json_t *d;
		json_array_foreach(list, i, d)
			if (strcasecmp(json_string_value(json_array_get(d, 1)), name) == 0) {
				snprintf(why, why_len, "x-mcp-header '%.60s' is designated twice", name);
				goto bad;
			}
		if (json_array_size(list) >= MAX_DESIGNATIONS) {
			snprintf(why, why_len, "more than %d x-mcp-header designations", MAX_DESIGNATIONS);
			goto bad;
		}
		json_array_append_new(list, json_pack("[s, s]", prop, name));
	}
	*out = list;
	return 0;
bad:
	json_decref(list);
	return -1;
}
