#include "mcp.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json_scan.h"
#include "jsonrpc.h"
#include "mcp_wire.h"
#include "monotime.h"
#include "trace.h"
#include "version.h"

#define MCP_OFFERED_VERSION "2025-11-25"
/* tools/list pages followed before we call the server's cursor a loop. */
#define MCP_MAX_PAGES 1000
/* What one listing keeps across pages: Catalyst offers some 40 tools in
 * about 100 KB; a server that keeps giving cursors must not grow us
 * without end. */
#define MCP_MAX_TOOLS 10000
#define MCP_MAX_LIST_MIB 16
/* Requests of its own a server may make while one of ours waits: we offer
 * no capabilities, so a server has no reason for more than a few pings. */
#define MCP_MAX_SERVER_REQUESTS 16
#define MCP_DEFAULT_TIMEOUT_MS 60000

static const char *const accepted_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

struct mcp_session {
	struct transport *t;
	char *client_name;
	char *client_version;
	mcp_progress_fn on_progress;
	void *progress_ctx;
	long timeout_ms;

	/* Guards everything below. Held across a (re-)initialize so that
	 * concurrent callers who all saw the session expire re-initialize once. */
	pthread_mutex_t lock;
	unsigned generation; /* bumped by every successful initialize */
	char version[16];
	/* 2026-07-28: no handshake, every request carries the version. */
	bool modern;
	/* server/discover was refused once: the server is of the legacy era,
	 * and a re-initialize after an expiry need not ask again. */
	bool legacy_known;
	json_t *server_info;  /* the current initialize result */
	json_t *retired;      /* earlier results: borrowed pointers stay valid */
	json_t *tool_headers; /* modern: tool name -> its x-mcp-header designations */
};

struct mcp_session *mcp_session_new(struct transport *t, const struct mcp_options *o)
{
	struct mcp_session *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->t = t;
	s->client_name = strdup(o && o->client_name ? o->client_name : "catalyst-audit");
	s->client_version = strdup(o && o->client_version ? o->client_version : CATALYST_AUDIT_VERSION);
	s->on_progress = o ? o->on_progress : NULL;
	s->progress_ctx = o ? o->progress_ctx : NULL;
	s->timeout_ms = o && o->timeout_ms > 0 ? o->timeout_ms : MCP_DEFAULT_TIMEOUT_MS;
	s->retired = json_array();
	s->tool_headers = json_object();
	pthread_mutex_init(&s->lock, NULL);
	if (!s->client_name || !s->client_version || !s->retired || !s->tool_headers) {
		mcp_session_free(s);
		return NULL;
	}
	return s;
}

void mcp_session_free(struct mcp_session *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	json_decref(s->server_info);
	json_decref(s->retired);
	json_decref(s->tool_headers);
	free(s->client_name);
	free(s->client_version);
	free(s);
}

const char *mcp_protocol_version(const struct mcp_session *s)
{
	return s->version[0] ? s->version : NULL;
}

const json_t *mcp_server_info_get(const struct mcp_session *s)
{
	return s->server_info;
}

/* exchange() flags. */
#define EX_PROGRESS 1u  /* ask for progress notifications */
#define EX_SKIP_TEXT 2u /* tools/call whose caller reads structuredContent first */
#define EX_RAW_DATA 4u  /* ... and reads its big arrays from its bytes (mcp_call_tool_structured_raw) */

/* One request/response exchange: what the transport's callback sees. */
struct exchange {
	struct mcp_session *s;
	long long id;
	const char *method;
	unsigned flags;
	long long deadline;  /* monotime_ms: the whole wait, the server's requests included */
	int server_requests; /* answered so far */
	size_t answer_len;   /* bytes of the message that answered */
	json_t *result;      /* new reference once answered */
	json_t *rpc_error;   /* new reference once answered with an error */
	char *raw;           /* EX_RAW_DATA: structuredContent's bytes, once answered */
	size_t raw_len;
};

/* The server spent our whole wait on requests of its own: asking again
 * would only meet the same. */
static int deadline_passed(struct exchange *x, struct err *e)
{
	err_set(e, ERR_PROTOCOL,
		"%s: the %.3g s timeout passed while answering the server's own requests (%d answered)", x->method,
		(double)x->s->timeout_ms / 1000, x->server_requests);
	if (e)
		e->detail = ERR_DETAIL_FINAL;
	return -1;
}

/* The server asked us something. We offer no client capabilities, so only
 * ping deserves an answer with a result; everything else (sampling,
 * elicitation, roots, anything new) gets "method not found" so the server
 * is never left waiting on us. Their number is capped and their time
 * counts against our request's deadline: a server cannot hold a call open
 * past --timeout by asking and holding our answers. */
static int answer_server_request(struct exchange *x, const struct jsonrpc_message *m, struct err *e)
{
	if (x->server_requests >= MCP_MAX_SERVER_REQUESTS) {
		err_set(e, ERR_PROTOCOL,
			"%s: the server made more than %d requests of its own (the last: %.60s) while ours waited",
			x->method, MCP_MAX_SERVER_REQUESTS, m->method);
		if (e)
			e->detail = ERR_DETAIL_FINAL;
		return -1;
	}
	if (monotime_ms() >= x->deadline)
		return deadline_passed(x, e);
	x->server_requests++;
	size_t len;
	char *body;
	if (strcmp(m->method, "ping") == 0) {
		body = jsonrpc_result_build(m->id, NULL, &len, e);
	} else {
		trace_printf("mcp", "refusing server request %s (a capability this client does not offer)",
			     m->method);
		body = jsonrpc_error_build(m->id, JSONRPC_METHOD_NOT_FOUND, "Method not found", &len, e);
	}
	if (!body)
		return -1;
	transport_set_send_deadline(x->deadline);
	/* Our answer is no request: none of the headers of the one it came in. */
	const struct transport_request *outer = transport_request_get();
	transport_set_request(NULL);
	int rc = transport_send(x->s->t, body, len, false, NULL, NULL, e);
	transport_set_request(outer);
	transport_set_send_deadline(0);
	free(body);
	if (rc < 0 && monotime_ms() >= x->deadline) {
		err_clear(e);
		return deadline_passed(x, e);
	}
	if (rc < 0)
		err_prefix(e, "answering the server's %s request", m->method);
	return rc;
}

static void deliver_progress(struct exchange *x, const struct jsonrpc_message *m)
{
	if (!x->s->on_progress || !json_is_object(m->params))
		return;
	/* We use the request id as the progress token. */
	json_t *token = json_object_get(m->params, "progressToken");
	if (!jsonrpc_id_is(token, x->id))
		return;
	json_t *progress = json_object_get(m->params, "progress");
	json_t *total = json_object_get(m->params, "total");
	json_t *message = json_object_get(m->params, "message");
	if (!json_is_number(progress))
		return;
	x->s->on_progress(json_number_value(progress), json_is_number(total) ? json_number_value(total) : 0,
			  json_is_string(message) ? json_string_value(message) : NULL, x->s->progress_ctx);
}

/* Where the values of some members of the object at s->pos lie. A key
 * given twice, or any key spelled with escapes (which might spell one of
 * ours), makes `unsure` true: then nothing is cut. -1 when the text is not
 * an object or not JSON (the decoder will say why). */
struct member_span {
	const char *key;
	size_t start, end;
	bool found;
	struct member_span *inner; /* an object value's members to find too */
	size_t n_inner;
	struct buf *shallow; /* an object value copied here as it is walked (shallow_copy) */
};

static int shallow_copy(struct jscan *s, struct buf *b, int depth);

static int object_members(struct jscan *s, struct member_span *m, size_t n, bool *unsure)
{
	struct err ignored;
	err_clear(&ignored);
	struct jscan_object o;
	struct jscan_key key;
	int more;
	if (jscan_object_open(s, &o, NULL, &ignored) < 0)
		return -1;
	while ((more = jscan_object_member(s, &o, &key, &ignored)) > 0) {
		if (key.escaped)
			*unsure = true;
		size_t start = s->pos;
		size_t i = 0;
		while (i < n && (strlen(m[i].key) != key.len || memcmp(m[i].key, key.p, key.len) != 0))
			i++;
		bool object = i < n && start < s->len && s->buf[start] == '{' && !m[i].found;
		if (object && m[i].inner) {
			/* Walked through once, not skipped and then walked. */
			if (object_members(s, m[i].inner, m[i].n_inner, unsure) < 0)
				return -1;
		} else if (object && m[i].shallow) {
			if (shallow_copy(s, m[i].shallow, 0) < 0)
				return -1;
		} else if (jscan_skip_value(s, &ignored) < 0) {
			return -1;
		}
		if (i < n) {
			if (m[i].found)
				*unsure = true;
			m[i].found = true;
			m[i].start = start;
			m[i].end = s->pos;
		}
	}
	return more;
}

static bool span_is(const char *text, const struct member_span *m, const char *literal)
{
	size_t n = strlen(literal);
	return m->end - m->start == n && memcmp(text + m->start, literal, n) == 0;
}

/* The value at s->pos appended to b, with every array of more than
 * SHALLOW_ARRAY bytes (an event list, a graph's nodes) written as []. */
#define SHALLOW_ARRAY 2048
static int shallow_copy(struct jscan *s, struct buf *b, int depth)
{
	struct err ignored;
	err_clear(&ignored);
	jscan_skip_ws(s);
	size_t start = s->pos;
	if (start < s->len && s->buf[start] == '{' && depth < JSCAN_DEPTH_MAX) {
		struct jscan_object o;
		struct jscan_key k;
		int more;
		if (jscan_object_open(s, &o, NULL, &ignored) < 0 || buf_append(b, "{", 1, &ignored) < 0)
			return -1;
		for (bool first = true; (more = jscan_object_member(s, &o, &k, &ignored)) > 0; first = false)
			if ((!first && buf_append(b, ",", 1, &ignored) < 0) ||
			    buf_append(b, s->buf + k.off, k.len + 2, &ignored) < 0 ||
			    buf_append(b, ":", 1, &ignored) < 0 || shallow_copy(s, b, depth + 1) < 0)
				return -1;
		return more < 0 ? -1 : buf_append(b, "}", 1, &ignored);
	}
	if (jscan_skip_value(s, &ignored) < 0)
		return -1;
	if (s->buf[start] == '[' && s->pos - start > SHALLOW_ARRAY)
		return buf_append(b, "[]", 2, &ignored);
	return buf_append(b, s->buf + start, s->pos - start, &ignored);
}

/* What a successful tools/call answer is decoded as, when its caller reads
 * structuredContent first (EX_SKIP_TEXT). The answer usually repeats it as
 * JSON text in content[] (the SDK's servers do): decoding that string was
 * half the cost of the message, for a caller that will not read it, so
 * result.content is emptied. With EX_RAW_DATA, structuredContent's own
 * bytes go to *raw and its big arrays are emptied in what is decoded: a
 * run's history then goes through the history parser once, never through
 * a json_t tree (over half of a `runs` audit's instructions, issue 34).
 * Returns the message to decode (malloc'd, NUL-terminated, *out_len), or
 * NULL: decode the message as it is (not such an answer, a key given
 * twice or escaped, out of memory). */
static char *trim_answer(const char *msg, size_t len, unsigned flags, size_t *out_len, char **raw, size_t *raw_len)
{
	*raw = NULL;
	bool unsure = false;
	struct jscan s = {.buf = msg, .len = len, .pos = 0};
	struct buf shallow;
	buf_init(&shallow, 0);
	struct member_span in[] = {{.key = "structuredContent", .shallow = flags & EX_RAW_DATA ? &shallow : NULL},
				   {.key = "content"},
				   {.key = "isError"}};
	struct member_span top[] = {{.key = "result", .inner = in, .n_inner = 3}};
	if (object_members(&s, top, 1, &unsure) < 0 || unsure || !top[0].found || msg[top[0].start] != '{' ||
	    !in[0].found || span_is(msg, &in[0], "null") || (in[2].found && span_is(msg, &in[2], "true"))) {
		buf_finish(&shallow);
		return NULL;
	}
	struct member_span *cut[2];
	const char *with[2];
	size_t n = 0;
	if (in[1].found && !span_is(msg, &in[1], "[]")) {
		cut[n] = &in[1];
		with[n++] = "[]";
	}
	if (shallow.data) {
		/* an object, copied as it was walked */
		size_t l = in[0].end - in[0].start;
		if (!(*raw = malloc(l + 1))) {
			buf_finish(&shallow);
			return NULL;
		}
		memcpy(*raw, msg + in[0].start, l);
		(*raw)[l] = '\0';
		*raw_len = l;
		cut[n] = &in[0];
		with[n++] = shallow.data;
	}
	if (n == 2 && cut[0]->start > cut[1]->start) {
		struct member_span *c = cut[0];
		const char *w = with[0];
		cut[0] = cut[1], with[0] = with[1];
		cut[1] = c, with[1] = w;
	}
	struct buf out;
	buf_init(&out, 0);
	size_t at = 0;
	struct err ignored;
	int rc = n ? 0 : -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = buf_append(&out, msg + at, cut[i]->start - at, &ignored) < 0 ||
				     buf_append(&out, with[i], strlen(with[i]), &ignored) < 0
			     ? -1
			     : 0;
		at = cut[i]->end;
	}
	if (rc == 0)
		rc = buf_append(&out, msg + at, len - at, &ignored);
	buf_finish(&shallow);
	if (rc < 0) {
		buf_finish(&out);
		free(*raw);
		*raw = NULL;
		return NULL;
	}
	return buf_steal(&out, out_len);
}

static int on_message(const char *msg, size_t len, void *ctx, struct err *e)
{
	struct exchange *x = ctx;
	struct jsonrpc_message m;
	size_t cut_len = 0, raw_len = 0;
	char *raw = NULL;
	char *cut = x->flags & EX_SKIP_TEXT ? trim_answer(msg, len, x->flags, &cut_len, &raw, &raw_len) : NULL;
	int decoded = cut ? jsonrpc_decode(&m, cut, cut_len, e) : jsonrpc_decode(&m, msg, len, e);
	free(cut);
	if (decoded < 0) {
		free(raw);
		/* A whole message that is no JSON-RPC: it would come again. */
		if (e)
			e->detail = ERR_DETAIL_FINAL;
		return err_prefix(e, "%s", x->method);
	}
	int rc = 0;
	switch (m.kind) {
	case JSONRPC_RESULT:
	case JSONRPC_ERROR:
		/* An error with id null is the server saying it could not read a
		 * request; the only one it can mean, in the stream of ours, is
		 * ours, and waiting on would only end in a timeout. */
		if (m.kind == JSONRPC_ERROR && json_is_null(m.id)) {
			trace_printf("mcp", "an error with id null answers %s (id %lld)", x->method, x->id);
		} else if (!jsonrpc_id_is(m.id, x->id)) {
			/* Not ours (a stale or bogus id): the exchange goes on until
			 * our own id arrives or the transport gives up. */
			char *id = json_dumps(m.id, JSON_ENCODE_ANY | JSON_COMPACT);
			trace_printf("mcp", "ignoring a %s for id %s while waiting for %lld (%s)",
				     jsonrpc_kind_name(m.kind), id ? id : "?", x->id, x->method);
			free(id);
			break;
		}
		if (m.kind == JSONRPC_RESULT) {
			x->result = json_incref(m.result);
			x->raw = raw;
			x->raw_len = raw_len;
			raw = NULL;
		} else {
			x->rpc_error = json_incref(m.error);
		}
		x->answer_len = len;
		rc = 1;
		break;
	case JSONRPC_REQUEST:
		rc = answer_server_request(x, &m, e);
		break;
	case JSONRPC_NOTIFICATION:
		if (strcmp(m.method, "notifications/progress") == 0)
			deliver_progress(x, &m);
		/* Others (logging, list_changed, ...) are of no use to an audit. */
		break;
	}
	jsonrpc_message_finish(&m);
	free(raw);
	return rc;
}

/* One request as exchange() sends it. */
struct request {
	const char *method;
	json_t *params;
	unsigned flags;
	/* The 2026-07-28 wire: the version every request names; NULL for the
	 * legacy era (initialize negotiated it, the header says it). */
	const char *modern;
	const json_t *designations; /* tools/call: the tool's x-mcp-header ones */
	char **raw;                 /* EX_RAW_DATA: where the answer's structuredContent bytes go */
	size_t *raw_len;
};

/* 2026-07-28 results say what they are; an absent resultType is a legacy
 * server's complete one. We declare no capabilities, so a server that
 * needs input from us has nothing to get. */
static int result_type_check(const char *method, const json_t *result, struct err *e)
{
	const json_t *rt = json_object_get(result, "resultType");
	if (!rt || (json_is_string(rt) && strcmp(json_string_value(rt), "complete") == 0))
		return 0;
	if (json_is_string(rt) && strcmp(json_string_value(rt), "input_required") == 0)
		return err_set_final(e, ERR_PROTOCOL,
				     "%s: the server asks for input (resultType input_required) that this client, "
				     "which declares no capabilities, cannot give",
				     method);
	return err_set_final(e, ERR_PROTOCOL, "%s: the result's resultType is not one MCP %s defines", method,
			     MCP_MODERN_VERSION);
}

/* Sends one request and waits for its answer: 0 with exactly one of
 * *result / *rpc_error set (new references), or -1. */
static int exchange(struct mcp_session *s, const struct request *q, json_t **result, json_t **rpc_error,
		    size_t *answer_len, struct err *e)
{
	struct jsonrpc_request r;
	*result = *rpc_error = NULL;
	long long id = jsonrpc_next_id();
	json_t *m = q->modern ? mcp_wire_meta(q->modern, s->client_name, s->client_version) : NULL;
	if (q->flags & EX_PROGRESS) {
		/* The request id doubles as the progress token. */
		if (!m)
			m = json_object();
		json_object_set_new(m, "progressToken", json_integer(id));
	}
	/* 2026-07-28 requests carry params, if only for _meta. */
	json_t *empty = q->modern && !q->params ? json_object() : NULL;
	int built = jsonrpc_request_build_id(&r, id, q->method, empty ? empty : q->params, m, e);
	json_decref(m);
	json_decref(empty);
	if (built < 0)
		return -1;
	struct mcp_wire_headers wh = {0};
	struct transport_request tr = {0};
	if (q->modern) {
		if (mcp_wire_headers_build(&wh, q->modern, q->method, q->params, q->designations, e) < 0) {
			jsonrpc_request_finish(&r);
			return -1;
		}
		tr = (struct transport_request){.headers = wh.h, .n_headers = wh.n, .error_bodies = true};
	}
	struct exchange x = {.s = s,
			     .id = r.id,
			     .method = q->method,
			     .flags = q->flags,
			     .deadline = monotime_ms() + s->timeout_ms};
	const struct transport_request *outer = transport_request_get();
	transport_set_request(q->modern ? &tr : NULL);
	int rc = transport_send(s->t, r.body, r.len, true, on_message, &x, e);
	transport_set_request(outer);
	mcp_wire_headers_finish(&wh);
	jsonrpc_request_finish(&r);
	if (rc == 0 && !x.result && !x.rpc_error)
		rc = err_set(e, ERR_PROTOCOL, "%s: the server ended the exchange without answering", q->method);
	if (rc == 0 && x.result && q->modern)
		rc = result_type_check(q->method, x.result, e);
	if (rc < 0) {
		json_decref(x.result);
		json_decref(x.rpc_error);
		free(x.raw);
		return -1;
	}
	*result = x.result;
	*rpc_error = x.rpc_error;
	if (q->raw) {
		*q->raw = x.raw;
		*q->raw_len = x.raw_len;
	} else {
		free(x.raw);
	}
	if (answer_len)
		*answer_len = x.answer_len;
	return 0;
}

static int rpc_error_set(struct err *e, const char *method, const json_t *error)
{
	json_t *code = json_object_get(error, "code");
	json_t *message = json_object_get(error, "message");
	return err_set(e, ERR_PROTOCOL, "%s: server error %lld: %s", method, (long long)json_integer_value(code),
		       json_is_string(message) ? json_string_value(message) : "(no message)");
}

/* Rewritten only when it changes: other threads read it unlocked while
 * their requests go out. */
static void set_version(struct mcp_session *s, const char *v, bool modern)
{
	if (strcmp(s->version, v) != 0)
		snprintf(s->version, sizeof s->version, "%s", v);
	s->modern = modern;
}

static bool version_accepted(const char *v)
{
	for (size_t i = 0; i < sizeof accepted_versions / sizeof *accepted_versions; i++)
		if (strcmp(v, accepted_versions[i]) == 0)
			return true;
	return false;
}

/* The legacy era's handshake. Called with s->lock held. */
static int handshake_locked(struct mcp_session *s, struct err *e)
{
	json_t *result = NULL, *rpc_error = NULL;
	int rc = -1;
	/* A fresh session must not claim a version it has not negotiated. */
	s->t->ops->set_header(s->t, "MCP-Protocol-Version", NULL);
	json_t *params = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", MCP_OFFERED_VERSION,
				   "capabilities", "clientInfo", "name", s->client_name, "version",
				   s->client_version);
	if (!params)
		return err_oom(e);
	struct request q = {.method = "initialize", .params = params};
	if (exchange(s, &q, &result, &rpc_error, NULL, e) < 0)
		goto out;
	if (rpc_error) {
		rpc_error_set(e, "initialize", rpc_error);
		goto out;
	}
	json_t *pv = json_object_get(result, "protocolVersion");
	if (!json_is_object(result) || !json_is_string(pv)) {
		err_set(e, ERR_PROTOCOL, "initialize: the answer has no protocolVersion");
		goto out;
	}
	const char *v = json_string_value(pv);
	if (!version_accepted(v)) {
		err_set(e, ERR_PROTOCOL,
			"initialize: the server speaks MCP protocol version '%.40s'; this client speaks 2025-11-25, "
			"2025-06-18 and 2025-03-26",
			v);
		goto out;
	}
	set_version(s, v, false);
	trace_printf("mcp", "MCP %s, negotiated by initialize", s->version);
	if (s->t->ops->set_header(s->t, "MCP-Protocol-Version", s->version) < 0) {
		err_set(e, ERR_INTERNAL, "cannot set the MCP-Protocol-Version header");
		goto out;
	}
	size_t len;
	char *note = jsonrpc_notification_build("notifications/initialized", NULL, &len, e);
	if (!note)
		goto out;
	int sent = transport_send(s->t, note, len, false, NULL, NULL, e);
	free(note);
	if (sent < 0) {
		err_prefix(e, "notifications/initialized");
		goto out;
	}
	if (s->server_info)
		json_array_append_new(s->retired, s->server_info);
	s->server_info = json_incref(result);
	s->generation++;
	rc = 0;
out:
	json_decref(params);
	json_decref(result);
	json_decref(rpc_error);
	return rc;
}

/* server/discover's answer, a modern era's: what mcp_server_info_get
 * gives, in the shape of an initialize result (the server's name is in
 * the result's _meta; some servers put it in the body). */
static json_t *discovered_info(const json_t *result, const char *version)
{
	json_t *info = json_pack("{s:s}", "protocolVersion", version);
	const json_t *meta = json_object_get(result, "_meta");
	const json_t *who = json_object_get(meta, "io.modelcontextprotocol/serverInfo");
	if (!json_is_object(who))
		who = json_object_get(result, "serverInfo");
	static const char *const keep[] = {"capabilities", "instructions", "supportedVersions"};
	for (size_t i = 0; info && i < sizeof keep / sizeof *keep; i++) {
		json_t *v = json_object_get(result, keep[i]);
		if (v)
			json_object_set(info, keep[i], v);
	}
	if (info && json_is_object(who))
		json_object_set(info, "serverInfo", (json_t *)who);
	return info;
}

static bool lists(const json_t *versions, const char *v)
{
	size_t i;
	const json_t *x;
	json_array_foreach(versions, i, x)
		if (json_is_string(x) && strcmp(json_string_value(x), v) == 0)
			return true;
	return false;
}

/* A refusal of the probe that a server of the legacy era gives: its 4xx
 * to a request it cannot place (the SDK's "Server not initialized", a 404
 * or 405 of its router). Not sign-in, throttling or an outage, which no
 * handshake would get past either. */
static bool legacy_refusal(const struct err *pe)
{
	long st = pe->http_status;
	return st >= 400 && st <= 499 && st != 401 && st != 403 && st != 429;
}

/* 2026-07-28's probe. 0: the server speaks it (s->modern); -1 with
 * *legacy: it does not, by its own answer (any JSON-RPC error but an
 * unsupported-version one that names a modern version, or a result that
 * lists none; never its name); -1 otherwise: e says why. Called with
 * s->lock held. */
static int discover_locked(struct mcp_session *s, bool *legacy, struct err *e)
{
	*legacy = false;
	for (int attempt = 0; attempt < 2; attempt++) {
		json_t *result = NULL, *rpc_error = NULL;
		struct err pe;
		err_clear(&pe);
		struct request q = {.method = "server/discover", .modern = MCP_MODERN_VERSION};
		if (exchange(s, &q, &result, &rpc_error, NULL, &pe) < 0) {
			if (legacy_refusal(&pe)) {
				trace_printf("mcp", "server/discover refused (%s): a server of the legacy era",
					     pe.msg);
				*legacy = true;
				return -1;
			}
			*e = pe;
			return -1;
		}
		if (rpc_error) {
			long long code = json_integer_value(json_object_get(rpc_error, "code"));
			const json_t *supported = json_object_get(json_object_get(rpc_error, "data"), "supported");
			/* -32022 names the versions the server takes: one more try
			 * with ours when it is listed (a server may refuse the
			 * first request it sees so). */
			bool retry = code == MCP_UNSUPPORTED_VERSION && lists(supported, MCP_MODERN_VERSION);
			char *text = json_dumps(rpc_error, JSON_COMPACT);
			json_decref(rpc_error);
			if (retry && attempt == 0) {
				trace_printf("mcp", "server/discover: %s; asking again", text ? text : "?");
				free(text);
				continue;
			}
			if (retry) {
				err_set(e, ERR_PROTOCOL,
					"server/discover: the server refuses MCP %s twice though it lists it: %.200s",
					MCP_MODERN_VERSION, text ? text : "?");
				free(text);
				return -1;
			}
			trace_printf("mcp", "server/discover answered %s: a server of the legacy era",
				     text ? text : "an error");
			free(text);
			*legacy = true;
			return -1;
		}
		const json_t *versions = json_object_get(result, "supportedVersions");
		if (!lists(versions, MCP_MODERN_VERSION)) {
			char *text = json_dumps(versions, JSON_COMPACT | JSON_ENCODE_ANY);
			trace_printf("mcp", "server/discover lists versions %s, not %s: initialize",
				     text ? text : "(none)", MCP_MODERN_VERSION);
			free(text);
			json_decref(result);
			*legacy = true;
			return -1;
		}
		json_t *info = discovered_info(result, MCP_MODERN_VERSION);
		json_decref(result);
		if (!info)
			return err_oom(e);
		set_version(s, MCP_MODERN_VERSION, true);
		/* Each request names its version in its own headers. */
		s->t->ops->set_header(s->t, "MCP-Protocol-Version", NULL);
		if (s->server_info)
			json_array_append_new(s->retired, s->server_info);
		s->server_info = info;
		s->generation++;
		trace_printf("mcp", "MCP %s, learned from server/discover (no initialize handshake)", s->version);
		return 0;
	}
	return err_set(e, ERR_INTERNAL, "server/discover: unreachable");
}

/* The session's era, from the server's own answers: 2026-07-28 when
 * server/discover says so, else the initialize handshake of 2025-11-25
 * (which settles on 2025-06-18 or 2025-03-26 when the server offers
 * those). Called with s->lock held. */
static int initialize_locked(struct mcp_session *s, struct err *e)
{
	if (!s->legacy_known) {
		bool legacy;
		if (discover_locked(s, &legacy, e) == 0)
			return 0;
		if (!legacy)
			return -1;
		s->legacy_known = true;
	}
	return handshake_locked(s, e);
}

int mcp_initialize(struct mcp_session *s, struct err *e)
{
	pthread_mutex_lock(&s->lock);
	int rc = initialize_locked(s, e);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Re-initializes after the server forgot our session, unless another
 * thread already did since generation `seen`. */
static int reinitialize(struct mcp_session *s, unsigned seen, struct err *e)
{
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	if (s->generation == seen) {
		trace_printf("mcp", "session expired: initializing a new one");
		s->t->ops->reset_session(s->t);
		rc = initialize_locked(s, e);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static unsigned generation(struct mcp_session *s)
{
	pthread_mutex_lock(&s->lock);
	unsigned g = s->generation;
	pthread_mutex_unlock(&s->lock);
	return g;
}

/* The version a modern session's requests name, NULL for a legacy one.
 * The string lives in the session and only an initialize rewrites it. */
static const char *modern_version(struct mcp_session *s)
{
	pthread_mutex_lock(&s->lock);
	const char *v = s->modern ? s->version : NULL;
	pthread_mutex_unlock(&s->lock);
	return v;
}

/* The tool's designations from the last listing (a new reference), NULL
 * when it has none or the session is legacy. */
static json_t *tool_designations(struct mcp_session *s, const char *name)
{
	pthread_mutex_lock(&s->lock);
	json_t *d = s->modern ? json_incref(json_object_get(s->tool_headers, name)) : NULL;
	pthread_mutex_unlock(&s->lock);
	return d;
}

/* exchange(), with one re-initialize and retry on a session expiry. */
static int exchange_retry(struct mcp_session *s, struct request *q, json_t **result, json_t **rpc_error,
			  size_t *answer_len, struct err *e)
{
	unsigned seen = generation(s);
	q->modern = modern_version(s);
	int rc = exchange(s, q, result, rpc_error, answer_len, e);
	/* Another thread re-initialized while this request was being sent:
	 * it may have gone out between the old session's reset and the new
	 * one, with no session id, and been refused unread (the SDK answers
	 * 400). generation() waits for the new session; send again with it.
	 * Bounded, and only while re-initializations keep happening: under
	 * many jobs and repeated expiries the request can fall into the next
	 * window too (seen in the soak test). */
	for (int raced = 0; rc < 0 && e && e->http_status == 400 && raced < 4; raced++) {
		unsigned now = generation(s);
		if (now == seen)
			break;
		seen = now;
		err_clear(e);
		q->modern = modern_version(s);
		rc = exchange(s, q, result, rpc_error, answer_len, e);
	}
	if (rc == 0)
		return 0;
	if (!e || e->detail != ERR_DETAIL_SESSION_EXPIRED)
		return -1;
	struct err first = *e;
	err_clear(e);
	if (reinitialize(s, seen, e) < 0)
		return err_prefix(e, "re-initializing after '%s'", first.msg);
	q->modern = modern_version(s);
	return exchange(s, q, result, rpc_error, answer_len, e);
}

/* 2026-07-28 over HTTP: a tool whose x-mcp-header designations cannot be
 * sent is not one a client may call, and leaves the listing (said under
 * --verbose); the others' designations are kept for tools/call. Over
 * stdio there are no headers to send. -1: no memory. */
static int keep_sendable_tools(struct mcp_session *s, json_t *list, json_t *designations)
{
	bool headers = strcmp(s->t->ops->name, "stdio") != 0;
	for (size_t i = 0; i < json_array_size(list);) {
		json_t *tool = json_array_get(list, i);
		const char *name = json_string_value(json_object_get(tool, "name"));
		json_t *d = NULL;
		char why[200];
		if (!headers || !name) {
			i++;
			continue;
		}
		if (mcp_wire_tool_headers(tool, &d, why, sizeof why) < 0) {
			trace_printf("mcp", "tools/list: leaving out tool '%.80s': %s", name, why);
			json_array_remove(list, i);
			continue;
		}
		if (json_array_size(d) && json_object_set(designations, name, d) < 0) {
			json_decref(d);
			return -1;
		}
		json_decref(d);
		i++;
	}
	return 0;
}

json_t *mcp_list_tools(struct mcp_session *s, struct err *e)
{
	json_t *tools = json_array();
	json_t *cursors = json_object(); /* every cursor seen, to stop a loop */
	json_t *params = json_object();
	json_t *designations = json_object(); /* this listing's, for tools/call */
	json_t *result = NULL, *rpc_error = NULL;
	size_t bytes = 0; /* of the answers kept, cursors included */
	if (!tools || !cursors || !params || !designations) {
		err_oom(e);
		goto fail;
	}
	for (int page = 1;; page++) {
		if (page > MCP_MAX_PAGES) {
			err_set_final(e, ERR_PROTOCOL, "tools/list: still paging after %d pages; giving up",
				      MCP_MAX_PAGES);
			goto fail;
		}
		size_t len = 0;
		struct request q = {.method = "tools/list", .params = params};
		if (exchange_retry(s, &q, &result, &rpc_error, &len, e) < 0)
			goto fail;
		if (rpc_error) {
			rpc_error_set(e, "tools/list", rpc_error);
			goto fail;
		}
		json_t *list = json_object_get(result, "tools");
		if (!json_is_array(list)) {
			err_set(e, ERR_PROTOCOL, "tools/list: page %d has no \"tools\" array", page);
			goto fail;
		}
		bytes += len;
		if (json_array_size(tools) + json_array_size(list) > MCP_MAX_TOOLS) {
			err_set_final(e, ERR_PROTOCOL,
				      "tools/list: the server listed more than %d tools (page %d); giving up",
				      MCP_MAX_TOOLS, page);
			goto fail;
		}
		if (bytes > (size_t)MCP_MAX_LIST_MIB << 20) {
			err_set_final(
				e, ERR_PROTOCOL,
				"tools/list: the pages came to over %d MiB (%zu bytes in %d pages); giving up",
				MCP_MAX_LIST_MIB, bytes, page);
			goto fail;
		}
		if (modern_version(s) && keep_sendable_tools(s, list, designations) < 0) {
			err_oom(e);
			goto fail;
		}
		json_array_extend(tools, list);
		json_t *next = json_object_get(result, "nextCursor");
		if (!json_is_string(next) || !*json_string_value(next))
			break;
		const char *cursor = json_string_value(next);
		if (json_object_get(cursors, cursor)) {
			err_set_final(e, ERR_PROTOCOL,
				      "tools/list: the server repeated cursor '%.60s' (page %d); giving up",
				      cursor, page);
			goto fail;
		}
		json_object_set_new(cursors, cursor, json_true());
		json_object_set_new(params, "cursor", json_string(cursor));
		json_decref(result);
		result = NULL;
	}
	json_decref(result);
	json_decref(cursors);
	json_decref(params);
	pthread_mutex_lock(&s->lock);
	json_decref(s->tool_headers);
	s->tool_headers = designations;
	pthread_mutex_unlock(&s->lock);
	return tools;
fail:
	json_decref(result);
	json_decref(rpc_error);
	json_decref(cursors);
	json_decref(params);
	json_decref(designations);
	json_decref(tools);
	return NULL;
}

void mcp_tool_result_finish(struct mcp_tool_result *r)
{
	if (!r)
		return;
	json_decref(r->rpc_error);
	json_decref(r->result);
	json_decref(r->text_json);
	free(r->structured_raw);
	memset(r, 0, sizeof *r);
}

/* The first text item that is JSON: servers that predate structuredContent
 * (or add it alongside) put their data there. */
static json_t *first_json_text(json_t *content)
{
	size_t i;
	json_t *item;
	json_array_foreach(content, i, item) {
		json_t *type = json_object_get(item, "type");
		json_t *text = json_object_get(item, "text");
		if (!json_is_string(type) || strcmp(json_string_value(type), "text") != 0 || !json_is_string(text))
			continue;
		json_t *v = json_loadb(json_string_value(text), json_string_length(text),
				       JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
		if (v)
			return v;
	}
	return NULL;
}

static int call_tool(struct mcp_session *s, const char *name, json_t *arguments, unsigned mode,
		     struct mcp_tool_result *out, struct err *e)
{
	bool lazy_text = mode & EX_SKIP_TEXT;
	memset(out, 0, sizeof *out);
	json_t *params = json_pack("{s:s, s:o}", "name", name, "arguments",
				   arguments ? json_incref(arguments) : json_object());
	if (!params)
		return err_set(e, ERR_INTERNAL, "tools/call %s: cannot build the arguments", name);
	json_t *result = NULL, *rpc_error = NULL;
	unsigned flags = (s->on_progress ? EX_PROGRESS : 0) | mode;
	json_t *designations = tool_designations(s, name);
	struct request q = {.method = "tools/call",
			    .params = params,
			    .flags = flags,
			    .designations = designations,
			    .raw = &out->structured_raw,
			    .raw_len = &out->structured_raw_len};
	int rc = exchange_retry(s, &q, &result, &rpc_error, NULL, e);
	json_decref(designations);
	json_decref(params);
	if (rc < 0)
		return err_prefix(e, "tools/call %s", name);
	if (rpc_error) {
		out->rpc_error = rpc_error;
		return 0;
	}
	if (!json_is_object(result)) {
		json_decref(result);
		return err_set(e, ERR_PROTOCOL, "tools/call %s: the result is not an object", name);
	}
	out->result = result;
	out->structured = json_object_get(result, "structuredContent");
	if (out->structured && json_is_null(out->structured))
		out->structured = NULL;
	out->content = json_object_get(result, "content");
	if (!json_is_array(out->content))
		out->content = NULL;
	out->is_error = json_is_true(json_object_get(result, "isError"));
	bool want_text = !lazy_text || !out->structured || out->is_error;
	out->text_json = out->content && want_text ? first_json_text(out->content) : NULL;
	return 0;
}

int mcp_call_tool(struct mcp_session *s, const char *name, json_t *arguments, struct mcp_tool_result *out,
		  struct err *e)
{
	return call_tool(s, name, arguments, 0, out, e);
}

int mcp_call_tool_structured_first(struct mcp_session *s, const char *name, json_t *arguments,
				   struct mcp_tool_result *out, struct err *e)
{
	return call_tool(s, name, arguments, EX_SKIP_TEXT, out, e);
}

int mcp_call_tool_structured_raw(struct mcp_session *s, const char *name, json_t *arguments,
				 struct mcp_tool_result *out, struct err *e)
{
	return call_tool(s, name, arguments, EX_SKIP_TEXT | EX_RAW_DATA, out, e);
}

void mcp_session_close(struct mcp_session *s)
{
	if (s && s->t && s->t->ops->close)
		s->t->ops->close(s->t);
}
