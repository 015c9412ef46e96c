/* The HTTP transport's reading side: the response headers as libcurl hands
 * them over (status, Content-Type, Mcp-Session-Id, Retry-After,
 * WWW-Authenticate), the body classified and either kept (JSON), fed to
 * the SSE parser whose `message` events are delivered, or kept in part
 * (an error); then the judgement of a finished transfer: done, resume the
 * stream, or the error the layers above branch on. */

#include "transport_http_internal.h"
#include "monotime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "trace.h"

/* ---- small helpers ---- */

static char *trim_dup(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n'))
		len--;
	return strndup(s, len);
}

static bool header_is(const char *line, size_t name_len, const char *name)
{
	return strlen(name) == name_len && strncasecmp(line, name, name_len) == 0;
}

/* The media type of a Content-Type value, compared without parameters. */
static bool media_type_is(const char *ct, const char *type)
{
	if (!ct)
		return false;
	size_t n = strcspn(ct, ";");
	while (n && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
		n--;
	return strlen(type) == n && strncasecmp(ct, type, n) == 0;
}

/* Mcp-Session-Id must be visible ASCII (0x21-0x7E): anything else could
 * smuggle a header line when sent back. */
static bool session_id_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

/* Retry-After: delta-seconds or an HTTP-date; -1 when absent or unreadable. */
static double retry_after_seconds(const char *v)
{
	if (!v || !*v)
		return -1;
	if (strspn(v, "0123456789") == strlen(v))
		return strtod(v, NULL);
	time_t when = curl_getdate(v, NULL);
	if (when == (time_t)-1)
		return -1;
	double d = difftime(when, time(NULL));
	return d < 0 ? 0 : d;
}

void transport_http_reset_response(struct http_exchange *ex)
{
	free(ex->content_type);
	free(ex->session_id);
	free(ex->retry_after);
	free(ex->www_authenticate);
	ex->content_type = ex->session_id = ex->retry_after = ex->www_authenticate = NULL;
	ex->status = 0;
	ex->headers_done = false;
	ex->kind = HTTP_BODY_UNKNOWN;
	ex->decoded = 0;
	buf_reset(&ex->body);
}

/* ---- libcurl callbacks ---- */

size_t transport_http_on_header(char *data, size_t size, size_t n, void *userp)
{
	struct http_exchange *ex = userp;
	size_t len = size * n;
	size_t l = len;
	while (l && (data[l - 1] == '\r' || data[l - 1] == '\n'))
		l--;
	if (l >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		/* A new response (after a 100 Continue, say): start over. */
		transport_http_reset_response(ex);
		const char *sp = memchr(data, ' ', l);
		if (sp)
			ex->status = strtol(sp + 1, NULL, 10);
		trace_printf("http", "< %.*s", (int)l, data);
		return len;
	}
	if (l == 0) {
		ex->headers_done = true;
		return len;
	}
	const char *colon = memchr(data, ':', l);
	if (!colon)
		return len;
	if (trace_enabled()) {
		char *line = strndup(data, l);
		char *shown = line ? trace_redact_header(line) : NULL;
		if (shown)
			trace_printf("http", "< %s", shown);
		free(shown);
		free(line);
	}
	size_t name_len = (size_t)(colon - data);
	const char *value = colon + 1;
	size_t value_len = l - name_len - 1;
	char **slot = NULL;
	if (header_is(data, name_len, "content-type"))
		slot = &ex->content_type;
	else if (header_is(data, name_len, "mcp-session-id"))
		slot = &ex->session_id;
	else if (header_is(data, name_len, "retry-after"))
		slot = &ex->retry_after;
	else if (header_is(data, name_len, "www-authenticate"))
		slot = &ex->www_authenticate;
	if (slot) {
		free(*slot);
		*slot = trim_dup(value, value_len);
	}
	return len;
}

static void exchange_fail(struct http_exchange *ex, const struct err *e)
{
	if (ex->failed)
		return;
	ex->failed = true;
	ex->err = *e;
}

int transport_http_on_sse_event(const struct sse_event *ev, void *ctx, struct err *e)
{
	struct http_exchange *ex = ctx;
	/* Only `message` events carry JSON-RPC; an empty one primes the
	 * stream with an event id for resumption. */
	if (strcmp(ev->type, "message") != 0 || ev->len == 0)
		return 0;
	trace_body("http", "< event", ev->data, ev->len);
	ex->events++;
	return transport_deliver(ev->data, ev->len, true, ex->on_message, ex->ctx, e);
}

static void remember_session(struct http_exchange *ex);

static void classify(struct http_exchange *ex)
{
	/* Take the session id as soon as the headers are in: a server request
	 * on this stream is answered with it. */
	if (ex->status >= 200 && ex->status < 300)
		remember_session(ex);
	if (ex->status < 200 || ex->status >= 300)
		ex->kind = HTTP_BODY_ERROR;
	else if (!ex->expect_reply || !ex->on_message)
		ex->kind = HTTP_BODY_DRAIN;
	else if (media_type_is(ex->content_type, "text/event-stream"))
		ex->kind = HTTP_BODY_SSE;
	else if (media_type_is(ex->content_type, "application/json") && strcmp(ex->method, "POST") == 0)
		ex->kind = HTTP_BODY_JSON;
	else
		ex->kind = HTTP_BODY_WRONG_TYPE;
}

/* Checks that hold for every body: the deadline, and the decoded size of
 * a stream or a drained body (a JSON body is bounded by its buffer, an
 * error body by its excerpt). false: stop reading, ex->failed set. */
static bool body_within_bounds(struct http_exchange *ex, size_t len)
{
	struct err e;
	err_clear(&e);
	ex->decoded += len;
	if (monotime_ms() > ex->deadline) {
		err_set(&e, ERR_PROTOCOL, "no complete response within %ld ms (%zu bytes of body decoded)",
			ex->ht->timeout_ms, ex->decoded);
		e.detail = ERR_DETAIL_TIMEOUT;
		e.http_status = ex->status;
		exchange_fail(ex, &e);
		return false;
	}
	size_t bound = ex->ht->max_message * STREAM_MAX_MESSAGES;
	if (ex->kind == HTTP_BODY_SSE && ex->decoded > bound) {
		err_set_final(&e, ERR_PROTOCOL, "the event stream is over %zu MiB decoded without the response",
			      bound >> 20);
		e.http_status = ex->status;
		exchange_fail(ex, &e);
		return false;
	}
	return true;
}

size_t transport_http_on_body(char *data, size_t size, size_t n, void *userp)
{
	struct http_exchange *ex = userp;
	size_t len = size * n;
	struct err e;
	err_clear(&e);
	if (ex->kind == HTTP_BODY_UNKNOWN)
		classify(ex);
	if (ex->kind != HTTP_BODY_ERROR && ex->kind != HTTP_BODY_DRAIN && !body_within_bounds(ex, len))
		return 0;
	switch (ex->kind) {
	case HTTP_BODY_JSON:
		if (buf_append(&ex->body, data, len, &e) < 0) {
			exchange_fail(ex, &e);
			return 0;
		}
		return len;
	case HTTP_BODY_SSE: {
		if (ex->done)
			return len;
		int r = sse_parser_feed(ex->sse, data, len, &e);
		if (r < 0) {
			exchange_fail(ex, &e);
			return 0;
		}
		if (r > 0) {
			ex->done = true;
			ex->done_at = monotime_ms();
		}
		return len;
	}
	case HTTP_BODY_ERROR: {
		/* Its excerpt is all that is kept: the rest is not read (nor
		 * inflated), and the status makes the error. */
		size_t take = ERROR_BODY_MAX - ex->body.len;
		buf_append(&ex->body, data, len < take ? len : take, &e);
		return ex->body.len < ERROR_BODY_MAX ? len : 0;
	}
	case HTTP_BODY_WRONG_TYPE:
		return 0;
	case HTTP_BODY_DRAIN:
		/* Nobody reads it: stop at the deadline or after a message's
		 * worth, without making the exchange fail. */
		ex->decoded += len;
		return ex->decoded <= ex->ht->max_message && monotime_ms() <= ex->deadline ? len : 0;
	case HTTP_BODY_UNKNOWN:
		break;
	}
	return len;
}

/* After the response arrived on a stream the server should end it; one
 * that lingers is cut after a short grace. */
int transport_http_on_progress(void *userp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
			       curl_off_t ulnow)
{
	struct http_exchange *ex = userp;
	if (ex->done && monotime_ms() - ex->done_at > DONE_GRACE_MS)
		return 1;
	return 0;
}

/* ---- what a transfer left behind ---- */

const char *transport_http_curl_text(const struct http_exchange *ex, CURLcode res)
{
	return ex->errbuf[0] ? ex->errbuf : curl_easy_strerror(res);
}

/* A short, printable excerpt of an error body for the message. */
static void body_excerpt(const struct buf *b, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; b->data && i < b->len && n + 1 < cap && n < 200; i++) {
		unsigned char c = (unsigned char)b->data[i];
		out[n++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
	}
	out[n] = '\0';
}

/* The challenge of a 401 or 403, kept for sign-in to read
 * (the www_authenticate op). */
static void keep_challenge(struct http_exchange *ex)
{
	struct http_transport *ht = ex->ht;
	pthread_mutex_lock(&ht->lock);
	free(ht->www_authenticate);
	ht->www_authenticate = ex->www_authenticate ? strdup(ex->www_authenticate) : NULL;
	pthread_mutex_unlock(&ht->lock);
}

/* Turns a non-2xx status into the error the layers above branch on. */
static int status_error(struct http_exchange *ex, const char *session_sent, struct err *e)
{
	struct http_transport *ht = ex->ht;
	long s = ex->status;
	char excerpt[256];
	body_excerpt(&ex->body, excerpt, sizeof excerpt);
	const char *sep = excerpt[0] ? ": " : "";
	if (s == 404 && session_sent) {
		err_set(e, ERR_PROTOCOL, "%s %s: HTTP 404: the session has expired", ex->method, ht->url);
		e->detail = ERR_DETAIL_SESSION_EXPIRED;
	} else if (s == 400 && session_sent && strcasestr(excerpt, "session")) {
		/* The SDK's session-routing servers answer an id they no longer
		 * know with 400 ("No valid session ID provided"), not 404: a
		 * request that was on its way when the session expired gets
		 * it. Unread, so as safe to send again as after a 404. */
		err_set(e, ERR_PROTOCOL, "%s %s: HTTP 400: the session is no longer known%s%s", ex->method,
			ht->url, sep, excerpt);
		e->detail = ERR_DETAIL_SESSION_EXPIRED;
	} else if (s == 401) {
		keep_challenge(ex);
		err_set(e, ERR_AUTH, "%s %s: HTTP 401: not authorized%s%s", ex->method, ht->url, sep, excerpt);
		e->detail = ERR_DETAIL_UNAUTHORIZED;
	} else if (s == 403) {
		/* A 403 may carry an insufficient_scope challenge: sign-in steps up. */
		keep_challenge(ex);
		err_set(e, ERR_AUTH, "%s %s: HTTP 403: forbidden%s%s", ex->method, ht->url, sep, excerpt);
		e->detail = ERR_DETAIL_FORBIDDEN;
	} else if (s >= 500 || s == 429) {
		err_set(e, ERR_PROTOCOL, "%s %s: HTTP %ld%s%s", ex->method, ht->url, s, sep, excerpt);
		e->detail = ERR_DETAIL_RETRYABLE;
		e->retry_after = retry_after_seconds(ex->retry_after);
	} else {
		err_set(e, ERR_PROTOCOL, "%s %s: HTTP %ld%s%s", ex->method, ht->url, s, sep, excerpt);
	}
	e->http_status = s;
	return -1;
}

/* MCP 2026-07-28 answers a request it refuses (an unsupported version, a
 * missing field, an unknown method) with a 4xx whose body is the JSON-RPC
 * error: when the request asked for it, that body is the answer. Not for
 * a status the layers above branch on by itself (401, 403, 429), nor a
 * session's expiry, nor a body cut at its excerpt. true when the body was
 * handed on (ex->done: it answered; else e says why not). */
static bool deliver_error_body(struct http_exchange *ex, const char *session_sent, struct err *e)
{
	const struct transport_request *rq = transport_request_get();
	long s = ex->status;
	if (!rq || !rq->error_bodies || !ex->expect_reply || !ex->on_message || s < 400 || s > 499 || s == 401 ||
	    s == 403 || s == 429 || (session_sent && (s == 404 || s == 400)) ||
	    !media_type_is(ex->content_type, "application/json") || !ex->body.data ||
	    ex->body.len >= ERROR_BODY_MAX)
		return false;
	trace_body("http", "<", ex->body.data, ex->body.len);
	struct err de;
	err_clear(&de);
	int r = transport_deliver(ex->body.data, ex->body.len, true, ex->on_message, ex->ctx, &de);
	if (r == 1) {
		ex->done = true;
		return true;
	}
	if (r < 0) {
		*e = de;
		err_prefix(e, "%s %s: HTTP %ld", ex->method, ex->ht->url, s);
		e->http_status = s;
		return true;
	}
	return false;
}

static void remember_session(struct http_exchange *ex)
{
	struct http_transport *ht = ex->ht;
	if (!ex->session_id || !session_id_valid(ex->session_id))
		return;
	pthread_mutex_lock(&ht->lock);
	if (!ht->session_id || strcmp(ht->session_id, ex->session_id) != 0) {
		free(ht->session_id);
		ht->session_id = strdup(ex->session_id);
	}
	pthread_mutex_unlock(&ht->lock);
}

/* Reads what one transfer left behind. */
enum http_outcome transport_http_judge(struct http_exchange *ex, CURLcode res, const char *session_sent,
				       int resumptions, struct err *e)
{
	struct http_transport *ht = ex->ht;
	/* Whatever else happened, a 2xx answer's session id is the session. */
	if (ex->status >= 200 && ex->status < 300)
		remember_session(ex);
	if (ex->failed) {
		*e = ex->err;
		err_prefix(e, "%s %s", ex->method, ht->url);
		return HTTP_OUTCOME_ERROR;
	}
	if (ex->done)
		return HTTP_OUTCOME_DONE;
	if (res == CURLE_OUT_OF_MEMORY && !ex->headers_done) {
		/* libcurl fails one header line over CURL_MAX_HTTP_HEADER with
		 * no more than "Out of memory": say which limit it was. */
		err_set(e, ERR_PROTOCOL, "%s %s: response header over libcurl's %d KiB limit for one header (%s)",
			ex->method, ht->url, CURL_MAX_HTTP_HEADER / 1024, transport_http_curl_text(ex, res));
		e->http_status = ex->status;
		return HTTP_OUTCOME_ERROR;
	}
	if (ex->status == 0) {
		err_set(e, ERR_PROTOCOL, "%s %s: %s", ex->method, ht->url, transport_http_curl_text(ex, res));
		if (res == CURLE_OPERATION_TIMEDOUT)
			e->detail = ERR_DETAIL_TIMEOUT;
		else if (res == CURLE_RECV_ERROR || res == CURLE_SEND_ERROR || res == CURLE_GOT_NOTHING)
			e->detail = ERR_DETAIL_RETRYABLE;
		return HTTP_OUTCOME_ERROR;
	}
	if (ex->status < 200 || ex->status >= 300) {
		if (deliver_error_body(ex, session_sent, e))
			return ex->done ? HTTP_OUTCOME_DONE : HTTP_OUTCOME_ERROR;
		status_error(ex, session_sent, e);
		return HTTP_OUTCOME_ERROR;
	}
	if (res == CURLE_OPERATION_TIMEDOUT) {
		err_set(e, ERR_PROTOCOL, "%s %s: no complete response within %ld ms (%s)", ex->method, ht->url,
			ht->timeout_ms, transport_http_curl_text(ex, res));
		e->detail = ERR_DETAIL_TIMEOUT;
		e->http_status = ex->status;
		return HTTP_OUTCOME_ERROR;
	}
	if (ex->kind == HTTP_BODY_WRONG_TYPE) {
		err_set(e, ERR_PROTOCOL, "%s %s: unexpected content type '%s' (HTTP %ld)", ex->method, ht->url,
			ex->content_type ? ex->content_type : "none", ex->status);
		e->http_status = ex->status;
		return HTTP_OUTCOME_ERROR;
	}
	if (!ex->expect_reply || !ex->on_message)
		return HTTP_OUTCOME_DONE;
	if (ex->kind == HTTP_BODY_UNKNOWN) {
		/* No body at all: a 202 or an empty 200. */
		if (res != CURLE_OK)
			err_set(e, ERR_PROTOCOL, "%s %s: %s", ex->method, ht->url,
				transport_http_curl_text(ex, res));
		else
			err_set(e, ERR_PROTOCOL, "%s %s: HTTP %ld with no response to the request", ex->method,
				ht->url, ex->status);
		e->http_status = ex->status;
		return HTTP_OUTCOME_ERROR;
	}
	if (ex->kind == HTTP_BODY_JSON) {
		if (res != CURLE_OK) {
			err_set(e, ERR_PROTOCOL, "%s %s: %s", ex->method, ht->url,
				transport_http_curl_text(ex, res));
			return HTTP_OUTCOME_ERROR;
		}
		trace_body("http", "<", ex->body.data ? ex->body.data : "", ex->body.len);
		int r = transport_deliver(ex->body.data ? ex->body.data : "", ex->body.len, true, ex->on_message,
					  ex->ctx, e);
		if (r < 0) {
			err_prefix(e, "%s %s", ex->method, ht->url);
			return HTTP_OUTCOME_ERROR;
		}
		if (r == 0) {
			err_set(e, ERR_PROTOCOL, "%s %s: the response body held no answer to the request",
				ex->method, ht->url);
			return HTTP_OUTCOME_ERROR;
		}
		return HTTP_OUTCOME_DONE;
	}
	/* SSE: the stream ended (or broke) before the response. */
	if (resumptions < ht->max_resumptions && ex->sse->seen_id && *sse_parser_last_id(ex->sse))
		return HTTP_OUTCOME_RESUME;
	bool partial = sse_parser_has_partial(ex->sse);
	char after[64] = "";
	if (resumptions)
		snprintf(after, sizeof after, " after %d resumption%s", resumptions, resumptions > 1 ? "s" : "");
	err_set(e, ERR_PROTOCOL, "%s %s: stream ended before the response%s%s%s%s", ex->method, ht->url, after,
		partial ? " (in the middle of an event)" : "", res != CURLE_OK ? ": " : "",
		res != CURLE_OK ? transport_http_curl_text(ex, res) : "");
	e->http_status = ex->status;
	return HTTP_OUTCOME_ERROR;
}
