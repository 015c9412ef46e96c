/* Catalyst refusals: the wire envelope is undocumented, so every one of
 * the three seen in the public material is read, and each refusal is
 * mapped to its family by its kind. */

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalyst.h"
#include "data_sharing.h"

static const char *const connection_kinds[] = {"NOT_AUTHENTICATED",    "NO_ORG", "ORG_MISMATCH", "ORG_UNAVAILABLE",
					       "CATALYST_NOT_ENABLED", NULL};
static const char *const data_sharing_kinds[] = {"denied", "no-policy", "unfilterable", "DATA_SHARING_RESTRICTED",
						 NULL};

static bool in_list(const char *kind, const char *const *list)
{
	for (; *list; list++)
		if (catalyst_key_match(kind, *list))
			return true;
	return false;
}

const char *catalyst_refusal_family_name(enum catalyst_refusal_family f)
{
	switch (f) {
	case CATALYST_REFUSAL_CONNECTION:
		return "connection";
	case CATALYST_REFUSAL_DATA_SHARING:
		return "data-sharing";
	case CATALYST_REFUSAL_OTHER:
		return "other";
	case CATALYST_REFUSAL_NONE:
		break;
	}
	return "none";
}

enum err_code catalyst_refusal_code(const struct catalyst_refusal *r)
{
	switch (r->family) {
	case CATALYST_REFUSAL_CONNECTION:
		return ERR_AUTH;
	case CATALYST_REFUSAL_DATA_SHARING:
		return ERR_DATA_SHARING;
	default:
		return ERR_PROTOCOL;
	}
}

static void copy_str(char *dst, size_t size, const json_t *v)
{
	if (json_is_string(v))
		snprintf(dst, size, "%s", json_string_value(v));
}

/* The object that carries the refusal: {error: {kind...}} or {kind...}. */
static const json_t *refusal_object(const json_t *doc)
{
	if (!json_is_object(doc))
		return NULL;
	const json_t *inner = json_object_get(doc, "error");
	if (json_is_object(inner) && json_is_string(json_object_get(inner, "kind")))
		return inner;
	if (json_is_string(json_object_get(doc, "kind")))
		return doc;
	return NULL;
}

static void fill(const json_t *obj, enum catalyst_envelope env, struct catalyst_refusal *out)
{
	memset(out, 0, sizeof *out);
	out->envelope = env;
	copy_str(out->kind, sizeof out->kind, json_object_get(obj, "kind"));
	copy_str(out->message, sizeof out->message, json_object_get(obj, "message"));
	copy_str(out->cause, sizeof out->cause, json_object_get(obj, "cause"));
	copy_str(out->instruction, sizeof out->instruction, json_object_get(obj, "instruction"));
	const json_t *r = json_object_get(obj, "retryable");
	out->retryable = json_is_true(r) || (json_is_string(r) && strcasecmp(json_string_value(r), "true") == 0);

	if (in_list(out->kind, connection_kinds)) {
		out->family = CATALYST_REFUSAL_CONNECTION;
	} else if (in_list(out->kind, data_sharing_kinds)) {
		out->family = CATALYST_REFUSAL_DATA_SHARING;
	} else {
		/* An unknown kind: a family field, if there is one, decides. */
		static const char *const fam_keys[] = {"family", "category", "type", NULL};
		const char *fam = catalyst_find_string(obj, fam_keys, 0, NULL);
		if (fam && (catalyst_key_match(fam, "datasharing") || catalyst_key_match(fam, "data")))
			out->family = CATALYST_REFUSAL_DATA_SHARING;
		else if (fam && catalyst_key_match(fam, "connection"))
			out->family = CATALYST_REFUSAL_CONNECTION;
		else
			out->family = CATALYST_REFUSAL_OTHER;
	}

	out->level = catalyst_find_sharing(obj, out->level_key, sizeof out->level_key);
	if (out->level == SHARING_UNKNOWN) {
		static const char *const level_keys[] = {"level", NULL};
		const char *lv = catalyst_find_string(obj, level_keys, 1, NULL);
		out->level = data_sharing_level_parse(lv);
		if (out->level != SHARING_UNKNOWN)
			snprintf(out->level_key, sizeof out->level_key, "level");
	}
	if (out->level == SHARING_UNKNOWN && out->family == CATALYST_REFUSAL_DATA_SHARING) {
		out->level = data_sharing_level_in_text(out->message);
		if (out->level == SHARING_UNKNOWN)
			out->level = data_sharing_level_in_text(out->cause);
		if (out->level != SHARING_UNKNOWN)
			snprintf(out->level_key, sizeof out->level_key, "message");
	}
}

bool catalyst_refusal_parse(const struct mcp_tool_result *r, struct catalyst_refusal *out)
{
	const json_t *obj;
	if (r->rpc_error) {
		const json_t *data = json_object_get(r->rpc_error, "data");
		if ((obj = refusal_object(data))) {
			fill(obj, CATALYST_ENVELOPE_RPC_ERROR, out);
			if (!*out->message)
				copy_str(out->message, sizeof out->message,
					 json_object_get(r->rpc_error, "message"));
			return true;
		}
		return false;
	}
	if ((obj = refusal_object(r->structured))) {
		fill(obj, CATALYST_ENVELOPE_STRUCTURED, out);
		return true;
	}
	if (r->is_error && (obj = refusal_object(r->text_json))) {
		fill(obj, CATALYST_ENVELOPE_TEXT, out);
		return true;
	}
	return false;
}

bool catalyst_kind_not_found(const char *kind)
{
	if (!kind)
		return false;
	/* "NOT_FOUND", "RUN_NOT_FOUND", "NotFound", "not-found": lower case,
	 * separators dropped, then "notfound" anywhere. */
	char flat[64];
	size_t n = 0;
	for (const char *p = kind; *p && n + 1 < sizeof flat; p++)
		if (isalnum((unsigned char)*p))
			flat[n++] = (char)tolower((unsigned char)*p);
	flat[n] = '\0';
	return strstr(flat, "notfound") != NULL || strstr(flat, "doesnotexist") != NULL;
}

bool catalyst_text_not_found(const char *text)
{
	return text && (strcasestr(text, "not found") || strcasestr(text, "does not exist") ||
			strcasestr(text, "no such "));
}
