#include "jsonrpc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_llong last_id;

long long jsonrpc_next_id(void)
{
	return atomic_fetch_add(&last_id, 1) + 1;
}

const char *jsonrpc_kind_name(enum jsonrpc_kind k)
{
	switch (k) {
	case JSONRPC_REQUEST:
		return "request";
	case JSONRPC_NOTIFICATION:
		return "notification";
	case JSONRPC_RESULT:
		return "result";
	case JSONRPC_ERROR:
		return "error";
	}
	return "?";
}

void jsonrpc_message_finish(struct jsonrpc_message *m)
{
	if (!m)
		return;
	json_decref(m->root);
	memset(m, 0, sizeof *m);
}

static int invalid(struct jsonrpc_message *m, struct err *e, const char *why)
{
	jsonrpc_message_finish(m);
	return err_set(e, ERR_PROTOCOL, "invalid JSON-RPC message: %s", why);
}

/* MCP ids are strings or integers; JSON-RPC's fractional numbers are not
 * ids anyone can match. */
static bool id_valid(const json_t *id)
{
	return json_is_string(id) || json_is_integer(id);
}

int jsonrpc_decode(struct jsonrpc_message *m, const char *text, size_t len, struct err *e)
{
	memset(m, 0, sizeof *m);
	if (len > JSONRPC_MAX_MESSAGE)
		return err_set(e, ERR_PROTOCOL, "JSON-RPC message of %zu bytes is over the %zu byte limit", len,
			       JSONRPC_MAX_MESSAGE);
	json_error_t jerr;
	/* jansson checks UTF-8, rejects NUL in strings and stops at
	 * JSON_PARSER_MAX_DEPTH nesting, so hostile input cannot overflow the
	 * stack. A key given twice is refused, as the history parser refuses
	 * it: which one counts would be a guess. */
	m->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!m->root)
		return err_set(e, ERR_PROTOCOL, "server sent invalid JSON at line %d column %d: %s", jerr.line,
			       jerr.column, jerr.text);
	if (json_is_array(m->root))
		return invalid(m, e, "a batch (JSON array); MCP sends one message at a time");
	if (!json_is_object(m->root))
		return invalid(m, e, "not a JSON object");
	json_t *version = json_object_get(m->root, "jsonrpc");
	if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0)
		return invalid(m, e, "\"jsonrpc\" is not \"2.0\"");

	json_t *method = json_object_get(m->root, "method");
	json_t *id = json_object_get(m->root, "id");
	json_t *result = json_object_get(m->root, "result");
	json_t *error = json_object_get(m->root, "error");

	if (method) {
		if (!json_is_string(method))
			return invalid(m, e, "\"method\" is not a string");
		if (result || error)
			return invalid(m, e, "a request or notification carries \"result\" or \"error\"");
		json_t *params = json_object_get(m->root, "params");
		if (params && !json_is_object(params) && !json_is_array(params))
			return invalid(m, e, "\"params\" is neither an object nor an array");
		if (id && !id_valid(id))
			return invalid(m, e, "request \"id\" is neither a string nor an integer");
		m->kind = id ? JSONRPC_REQUEST : JSONRPC_NOTIFICATION;
		m->method = json_string_value(method);
		m->id = id;
		m->params = params;
		return 0;
	}

	if (result && error)
		return invalid(m, e, "a response carries both \"result\" and \"error\"");
	if (!result && !error)
		return invalid(m, e, "neither \"method\", \"result\" nor \"error\"");
	if (!id)
		return invalid(m, e, "a response without \"id\"");
	if (result) {
		if (!id_valid(id))
			return invalid(m, e, "response \"id\" is neither a string nor an integer");
		m->kind = JSONRPC_RESULT;
		m->id = id;
		m->result = result;
		return 0;
	}
	/* An error about a message the server could not parse has id null. */
	if (!id_valid(id) && !json_is_null(id))
		return invalid(m, e, "error \"id\" is neither a string, an integer nor null");
	json_t *code = json_object_get(error, "code");
	json_t *message = json_object_get(error, "message");
	if (!json_is_object(error) || !json_is_integer(code) || !json_is_string(message))
		return invalid(m, e,
			       "\"error\" is not an object with an integer \"code\" and a string \"message\"");
	m->kind = JSONRPC_ERROR;
	m->id = id;
	m->error = error;
	m->error_code = (long long)json_integer_value(code);
	m->error_message = json_string_value(message);
	return 0;
}

bool jsonrpc_id_is(const json_t *id, long long want)
{
	return json_is_integer(id) && (long long)json_integer_value(id) == want;
}

/* Serialises and consumes `msg`. */
static char *dump(json_t *msg, size_t *len, struct err *e)
{
	if (!msg) {
		err_set(e, ERR_INTERNAL, "cannot build a JSON-RPC message (out of memory or bad value)");
		return NULL;
	}
	char *text = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (!text) {
		err_set(e, ERR_INTERNAL, "cannot serialise a JSON-RPC message");
		return NULL;
	}
	if (len)
		*len = strlen(text);
	return text;
}

void jsonrpc_request_finish(struct jsonrpc_request *r)
{
	if (!r)
		return;
	free(r->body);
	free(r->method);
	free(r->name);
	memset(r, 0, sizeof *r);
}

int jsonrpc_request_build(struct jsonrpc_request *r, const char *method, json_t *params, json_t *meta,
			  struct err *e)
{
	return jsonrpc_request_build_id(r, jsonrpc_next_id(), method, params, meta, e);
}

int jsonrpc_request_build_id(struct jsonrpc_request *r, long long id, const char *method, json_t *params,
			     json_t *meta, struct err *e)
{
	memset(r, 0, sizeof *r);
	json_t *p = NULL;
	if (params) {
		if (!json_is_object(params) && !json_is_array(params))
			return err_set(e, ERR_INTERNAL, "%s: params must be an object or an array", method);
		/* A shallow copy, so adding _meta never touches the caller's object. */
		p = json_copy(params);
	}
	if (meta) {
		if (!p)
			p = json_object();
		if (!json_is_object(p) || !json_is_object(meta)) {
			json_decref(p);
			return err_set(e, ERR_INTERNAL, "%s: _meta needs object params and an object", method);
		}
		json_t *merged = json_object();
		json_t *old = json_object_get(p, "_meta");
		if (json_is_object(old))
			json_object_update(merged, old);
		json_object_update(merged, meta);
		json_object_set_new(p, "_meta", merged);
	}
	r->id = id;
	json_t *msg = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)r->id, "method", method);
	if (msg && p)
		json_object_set(msg, "params", p);
	json_t *name = p && json_is_object(p) ? json_object_get(p, "name") : NULL;
	if (json_is_string(name))
		r->name = strdup(json_string_value(name));
	json_decref(p);
	r->method = strdup(method);
	r->body = dump(msg, &r->len, e);
	if (!r->body || !r->method) {
		jsonrpc_request_finish(r);
		return e && e->code ? -1 : err_oom(e);
	}
	return 0;
}

char *jsonrpc_notification_build(const char *method, json_t *params, size_t *len, struct err *e)
{
	json_t *msg = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
	if (msg && params)
		json_object_set(msg, "params", params);
	return dump(msg, len, e);
}

char *jsonrpc_result_build(json_t *id, json_t *result, size_t *len, struct err *e)
{
	/* "o" steals: hand it a reference of its own. */
	json_t *r = result ? json_incref(result) : json_object();
	json_t *msg = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "result", r);
	return dump(msg, len, e);
}

char *jsonrpc_error_build(json_t *id, long long code, const char *message, size_t *len, struct err *e)
{
	json_t *msg = json_pack("{s:s, s:O, s:{s:I, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error",
				"code", (json_int_t)code, "message", message);
	return dump(msg, len, e);
}
