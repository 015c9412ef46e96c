/* The Streamable HTTP transport over libcurl.
 *
 * Each send is one POST whose answer is a JSON body, a JSON batch, or an
 * SSE stream carrying notifications and server requests before the
 * response. A stream cut before the response is resumed with GET and
 * Last-Event-ID when the server gave event ids.
 *
 * Connections: a pool of easy handles, each with a multi handle of its
 * own that holds its live connection between transfers, so taking an idle
 * handle reuses its connection (one thread: always the same one). The
 * transfer is driven through that multi handle rather than
 * curl_easy_perform so that the wait after a response, on a stream the
 * server keeps open, ends on our DONE_GRACE_MS timer: with
 * curl_easy_perform only the progress callback could end it, and libcurl
 * calls that about once a second on an idle stream. DNS and TLS sessions are
 * shared between the handles through a CURLSH with locks. The connection
 * cache itself is not put in the share: libcurl documents sharing it
 * between concurrently running threads as unsupported. A send finding no
 * idle handle makes a new one rather than waiting, so an answer to a server
 * request sent from inside on_message never waits on the stream it
 * answers; the pool keeps at most max_parallel idle handles. */

#include "transport_http_internal.h"
#include "monotime.h"

#include <curl/curl.h>
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "buf.h"
#include "http_easy.h"
#include "secret.h"
#include "sse.h"
#include "trace.h"

#define RETRY_WAIT_MAX_MS 30000

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *userp)
{
	struct http_transport *ht = userp;
	pthread_mutex_lock(&ht->share_locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *userp)
{
	struct http_transport *ht = userp;
	pthread_mutex_unlock(&ht->share_locks[data]);
}

/* ---- the handle pool ---- */

static void pooled_cleanup(struct http_pooled *p)
{
	/* The easy handle is never left in its multi handle. */
	if (p->m)
		curl_multi_cleanup(p->m);
	if (p->h)
		curl_easy_cleanup(p->h);
}

/* Sets ex->h and ex->m: an idle pair, or a new one. false when out of memory. */
static bool pool_take(struct http_transport *ht, struct http_exchange *ex)
{
	struct http_pooled p = {NULL, NULL};
	pthread_mutex_lock(&ht->lock);
	if (ht->n_idle > 0)
		p = ht->idle[--ht->n_idle];
	pthread_mutex_unlock(&ht->lock);
	if (p.h) {
		/* Keeps the live connection (in p.m), the DNS cache and the share. */
		curl_easy_reset(p.h);
	} else {
		p.h = curl_easy_init();
		p.m = curl_multi_init();
		if (!p.h || !p.m) {
			pooled_cleanup(&p);
			return false;
		}
		curl_easy_setopt(p.h, CURLOPT_SHARE, ht->share);
	}
	ex->h = p.h;
	ex->m = p.m;
	return true;
}

static void pool_give(struct http_transport *ht, struct http_exchange *ex)
{
	struct http_pooled p = {ex->h, ex->m};
	ex->h = NULL;
	ex->m = NULL;
	if (!p.h)
		return;
	pthread_mutex_lock(&ht->lock);
	if (ht->n_idle < ht->max_parallel) {
		ht->idle[ht->n_idle++] = p;
		p.h = NULL;
		p.m = NULL;
	}
	pthread_mutex_unlock(&ht->lock);
	pooled_cleanup(&p);
}

/* Ends an exchange: its handle back to the pool, no longer pointing at the
 * exchange's error buffer (which goes with the caller's frame), and its
 * response freed. */
static void exchange_finish(struct http_exchange *ex)
{
	if (ex->h)
		curl_easy_setopt(ex->h, CURLOPT_ERRORBUFFER, NULL);
	pool_give(ex->ht, ex);
	transport_http_reset_response(ex);
	buf_finish(&ex->body);
}

/* ---- requests ---- */

static bool header_text_ok(const char *s)
{
	for (; s && *s; s++)
		if (*s == '\r' || *s == '\n')
			return false;
	return true;
}

/* The request headers, built under the lock from the shared state. The
 * session id sent is remembered: a 404 means expiry only when one went. */
static struct curl_slist *request_headers(struct http_transport *ht, const char *method, const char *last_event_id,
					  char **session_sent, struct err *e)
{
	struct curl_slist *list = NULL, *t;
	char *line = NULL;
	bool ok = true, bad = false;
#define ADD(s)                                    \
	do {                                      \
		t = curl_slist_append(list, (s)); \
		if (!t)                           \
			ok = false;               \
		else                              \
			list = t;                 \
	} while (0)
	if (strcmp(method, "POST") == 0) {
		ADD("Content-Type: application/json");
		ADD("Accept: application/json, text/event-stream");
	} else if (strcmp(method, "GET") == 0) {
		ADD("Accept: text/event-stream");
	}
	/* No "Expect: 100-continue" round trip for large bodies. */
	ADD("Expect:");
	if (last_event_id && asprintf(&line, "Last-Event-ID: %s", last_event_id) >= 0) {
		ADD(line);
		free(line);
		line = NULL;
	}
	pthread_mutex_lock(&ht->lock);
	if (ht->session_id) {
		if (asprintf(&line, "Mcp-Session-Id: %s", ht->session_id) >= 0) {
			ADD(line);
			free(line);
			line = NULL;
		}
		*session_sent = strdup(ht->session_id);
	}
	for (size_t i = 0; i < ht->n_headers; i++) {
		if (asprintf(&line, "%s: %s", ht->headers[i].name, ht->headers[i].value) >= 0) {
			ADD(line);
			free(line);
			line = NULL;
		}
	}
	if (ht->authorization)
		ADD(ht->authorization);
	pthread_mutex_unlock(&ht->lock);
	const struct transport_request *rq = strcmp(method, "POST") == 0 ? transport_request_get() : NULL;
	for (size_t i = 0; rq && i < rq->n_headers; i++) {
		const struct transport_header *h = &rq->headers[i];
		if (!header_text_ok(h->name) || !header_text_ok(h->value)) {
			bad = true;
			continue;
		}
		/* libcurl drops "Name:" (it means "remove"); "Name;" sends it empty. */
		int n = *h->value ? asprintf(&line, "%s: %s", h->name, h->value) : asprintf(&line, "%s;", h->name);
		if (n >= 0) {
			ADD(line);
			free(line);
			line = NULL;
		} else {
			ok = false;
		}
	}
#undef ADD
	if (bad) {
		curl_slist_free_all(list);
		return err_set(e, ERR_INTERNAL, "a request header holds a line break"), NULL;
	}
	if (!ok) {
		curl_slist_free_all(list);
		err_oom(e);
		return NULL;
	}
	return list;
}

static void trace_request(const char *method, const char *url, const struct curl_slist *list, const char *body,
			  size_t len)
{
	if (!trace_enabled())
		return;
	trace_printf("http", "> %s %s", method, url);
	for (const struct curl_slist *l = list; l; l = l->next) {
		if (strcmp(l->data, "Expect:") == 0)
			continue;
		char *shown = trace_redact_header(l->data);
		if (shown)
			trace_printf("http", "> %s", shown);
		free(shown);
	}
	if (body && len)
		trace_body("http", ">", body, len);
}

/* curl_easy_perform through the exchange's own multi handle, with one
 * difference: once the response has arrived (ex->done), the wait for the
 * server to end the stream lasts DONE_GRACE_MS, not until libcurl next
 * calls the progress callback. */
static CURLcode perform(struct http_exchange *ex)
{
	if (curl_multi_add_handle(ex->m, ex->h) != CURLM_OK)
		return CURLE_OUT_OF_MEMORY;
	CURLcode res = CURLE_OK;
	bool cut = false;
	for (;;) {
		int running = 0;
		CURLMcode mc = curl_multi_perform(ex->m, &running);
		if (mc != CURLM_OK) {
			res = mc == CURLM_OUT_OF_MEMORY ? CURLE_OUT_OF_MEMORY : CURLE_RECV_ERROR;
			cut = true;
			break;
		}
		if (!running)
			break;
		int wait_ms = 1000;
		if (ex->done) {
			long long left = DONE_GRACE_MS - (monotime_ms() - ex->done_at);
			if (left <= 0) {
				/* What the progress callback's abort gives. */
				res = CURLE_ABORTED_BY_CALLBACK;
				cut = true;
				break;
			}
			wait_ms = (int)left;
		}
		/* Returns early on activity or on libcurl's own timers (the
		 * transfer timeout among them). */
		if (curl_multi_poll(ex->m, NULL, 0, wait_ms, NULL) != CURLM_OK) {
			res = CURLE_RECV_ERROR;
			cut = true;
			break;
		}
	}
	if (!cut) {
		CURLMsg *msg;
		int queued;
		while ((msg = curl_multi_info_read(ex->m, &queued)))
			if (msg->msg == CURLMSG_DONE && msg->easy_handle == ex->h)
				res = msg->data.result;
	}
	/* A transfer removed before its end loses its connection, as an
	 * aborted one does. */
	curl_multi_remove_handle(ex->m, ex->h);
	return res;
}

/* Runs one transfer; the curl code comes back, the rest is in ex. */
static CURLcode exchange_perform(struct http_exchange *ex, const char *body, size_t len,
				 struct curl_slist *headers, long timeout_ms)
{
	struct http_transport *ht = ex->ht;
	CURL *h = ex->h;
	ex->errbuf[0] = '\0';
	transport_http_reset_response(ex);
	ex->done = false;
	ex->events = 0;
	ex->deadline = monotime_ms() + timeout_ms;
	http_easy_setup(h, &(struct http_easy_options){.url = ht->url,
						       .cacert = ht->cacert,
						       .connect_timeout_ms = ht->connect_timeout_ms,
						       .timeout_ms = timeout_ms,
						       .errbuf = ex->errbuf});
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, transport_http_on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, ex);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, transport_http_on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, ex);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, transport_http_on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, ex);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	/* Compressed answers are welcome; what they inflate to is bounded
	 * and within the deadline (transport_http_on_body). */
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	if (strcmp(ex->method, "POST") == 0) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	} else if (strcmp(ex->method, "GET") == 0) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	} else {
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, ex->method);
	}
	trace_request(ex->method, ht->url, headers, body, len);
	/* CURLOPT_NOSIGNAL (needed with threads) also stops libcurl from
	 * ignoring SIGPIPE for us; a TLS write to a closed socket may raise it. */
	struct transport_sigpipe sp;
	transport_sigpipe_block(&sp);
	CURLcode res = perform(ex);
	transport_sigpipe_restore(&sp);
	if (res != CURLE_OK && !ex->done)
		trace_printf("http", "transfer ended: %s", ex->errbuf[0] ? ex->errbuf : curl_easy_strerror(res));
	return res;
}

static int http_send(struct transport *t, const char *body, size_t len, bool expect_reply,
		     transport_on_message on_message, void *ctx, struct err *e)
{
	struct http_transport *ht = (struct http_transport *)t;
	struct http_exchange ex = {
		.ht = ht,
		.method = "POST",
		.expect_reply = expect_reply,
		.on_message = on_message,
		.ctx = ctx,
	};
	struct sse_parser sse;
	struct curl_slist *headers = NULL;
	char *session_sent = NULL;
	int r = -1;
	buf_init(&ex.body, ht->max_message);
	sse_parser_init(&sse, ht->max_message, transport_http_on_sse_event, &ex);
	ex.sse = &sse;
	/* Shorter when it answers a server request within a call's deadline. */
	long timeout_ms = transport_send_timeout(ht->timeout_ms);
	long long deadline = monotime_ms() + timeout_ms;

	if (!pool_take(ht, &ex)) {
		err_set(e, ERR_INTERNAL, "curl_easy_init failed");
		goto out;
	}
	headers = request_headers(ht, "POST", NULL, &session_sent, e);
	if (!headers)
		goto out;
	CURLcode res = exchange_perform(&ex, body, len, headers, timeout_ms);
	int resumptions = 0;
	enum http_outcome oc;
	while ((oc = transport_http_judge(&ex, res, session_sent, resumptions, e)) == HTTP_OUTCOME_RESUME) {
		resumptions++;
		long wait = sse.retry_ms >= 0 ? sse.retry_ms : 1000;
		if (wait > RETRY_WAIT_MAX_MS)
			wait = RETRY_WAIT_MAX_MS;
		long long left = deadline - monotime_ms();
		if (left <= wait) {
			err_set(e, ERR_PROTOCOL,
				"POST %s: no response within %ld ms (stream ended, resumption due too late)",
				ht->url, ht->timeout_ms);
			e->detail = ERR_DETAIL_TIMEOUT;
			oc = HTTP_OUTCOME_ERROR;
			break;
		}
		trace_printf("http", "stream ended before the response; resuming after %ld ms from event %s", wait,
			     sse_parser_last_id(&sse));
		monotime_sleep_ms(wait);
		curl_slist_free_all(headers);
		free(session_sent);
		session_sent = NULL;
		headers = request_headers(ht, "GET", sse_parser_last_id(&sse), &session_sent, e);
		if (!headers) {
			oc = HTTP_OUTCOME_ERROR;
			break;
		}
		sse_parser_restart(&sse);
		ex.method = "GET";
		left = deadline - monotime_ms();
		res = exchange_perform(&ex, NULL, 0, headers, left > 1 ? (long)left : 1);
		if (!ex.failed && !ex.done && ex.status >= 200 && ex.status < 300 && ex.kind != HTTP_BODY_SSE &&
		    ex.kind != HTTP_BODY_WRONG_TYPE) {
			/* The GET must answer with a stream. */
			ex.kind = HTTP_BODY_WRONG_TYPE;
		}
	}
	r = oc == HTTP_OUTCOME_DONE ? 0 : -1;
out:
	curl_slist_free_all(headers);
	free(session_sent);
	exchange_finish(&ex);
	sse_parser_finish(&sse);
	return r;
}

static int set_header_locked(struct http_transport *ht, const char *name, const char *value)
{
	if (strcasecmp(name, "Authorization") == 0) {
		char *line = NULL;
		if (value && asprintf(&line, "Authorization: %s", value) < 0)
			return -1;
		if (ht->authorization) {
			explicit_bzero(ht->authorization, strlen(ht->authorization));
			free(ht->authorization);
		}
		ht->authorization = line;
		return 0;
	}
	for (size_t i = 0; i < ht->n_headers; i++) {
		if (strcasecmp(ht->headers[i].name, name) != 0)
			continue;
		if (!value) {
			free(ht->headers[i].name);
			free(ht->headers[i].value);
			ht->headers[i] = ht->headers[--ht->n_headers];
			return 0;
		}
		char *v = strdup(value);
		if (!v)
			return -1;
		free(ht->headers[i].value);
		ht->headers[i].value = v;
		return 0;
	}
	if (!value)
		return 0;
	struct http_header *nh = realloc(ht->headers, (ht->n_headers + 1) * sizeof *nh);
	if (!nh)
		return -1;
	ht->headers = nh;
	char *n = strdup(name), *v = strdup(value);
	if (!n || !v) {
		free(n);
		free(v);
		return -1;
	}
	ht->headers[ht->n_headers].name = n;
	ht->headers[ht->n_headers].value = v;
	ht->n_headers++;
	return 0;
}

static int http_set_header(struct transport *t, const char *name, const char *value)
{
	struct http_transport *ht = (struct http_transport *)t;
	if (!name || !*name || strchr(name, ':') || !header_text_ok(name) || !header_text_ok(value))
		return -1;
	pthread_mutex_lock(&ht->lock);
	int r = set_header_locked(ht, name, value);
	pthread_mutex_unlock(&ht->lock);
	return r;
}

static void http_reset_session(struct transport *t)
{
	struct http_transport *ht = (struct http_transport *)t;
	pthread_mutex_lock(&ht->lock);
	free(ht->session_id);
	ht->session_id = NULL;
	pthread_mutex_unlock(&ht->lock);
}

static void http_close(struct transport *t)
{
	struct http_transport *ht = (struct http_transport *)t;
	pthread_mutex_lock(&ht->lock);
	bool has_session = ht->session_id != NULL;
	pthread_mutex_unlock(&ht->lock);
	if (!has_session)
		return;
	struct http_exchange ex = {.ht = ht, .method = "DELETE"};
	char *session_sent = NULL;
	struct err e;
	err_clear(&e);
	buf_init(&ex.body, ERROR_BODY_MAX + 1);
	pool_take(ht, &ex);
	struct curl_slist *headers = ex.h ? request_headers(ht, "DELETE", NULL, &session_sent, &e) : NULL;
	if (headers) {
		long timeout = ht->timeout_ms < 5000 ? ht->timeout_ms : 5000;
		CURLcode res = exchange_perform(&ex, NULL, 0, headers, timeout);
		/* 405: the server does not let clients end sessions; fine. */
		if (res != CURLE_OK)
			trace_printf("http", "DELETE of the session failed: %s",
				     transport_http_curl_text(&ex, res));
	}
	http_reset_session(t);
	curl_slist_free_all(headers);
	free(session_sent);
	exchange_finish(&ex);
}

static void http_destroy(struct transport *t)
{
	struct http_transport *ht = (struct http_transport *)t;
	for (int i = 0; i < ht->n_idle; i++)
		pooled_cleanup(&ht->idle[i]);
	free(ht->idle);
	if (ht->share)
		curl_share_cleanup(ht->share);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&ht->share_locks[i]);
	pthread_mutex_destroy(&ht->lock);
	for (size_t i = 0; i < ht->n_headers; i++) {
		free(ht->headers[i].name);
		free(ht->headers[i].value);
	}
	free(ht->headers);
	if (ht->authorization) {
		explicit_bzero(ht->authorization, strlen(ht->authorization));
		free(ht->authorization);
	}
	free(ht->session_id);
	free(ht->www_authenticate);
	free(ht->url);
	free(ht->cacert);
	free(ht);
}

static int http_set_bearer(struct transport *t, const char *token);
static char *http_www_authenticate(struct transport *t);

static const struct transport_ops http_ops = {
	.name = "http",
	.send = http_send,
	.set_header = http_set_header,
	.reset_session = http_reset_session,
	.close = http_close,
	.destroy = http_destroy,
	.set_bearer = http_set_bearer,
	.www_authenticate = http_www_authenticate,
};

/* A copy of one of ht's strings, taken under the lock; NULL when t is not
 * an HTTP transport or the string is unset. `field` is the member's
 * offset. */
static char *copy_locked(struct transport *t, size_t field)
{
	if (!t || t->ops != &http_ops)
		return NULL;
	struct http_transport *ht = (struct http_transport *)t;
	pthread_mutex_lock(&ht->lock);
	const char *s = *(char **)((char *)ht + field);
	char *v = s ? strdup(s) : NULL;
	pthread_mutex_unlock(&ht->lock);
	return v;
}

static char *http_www_authenticate(struct transport *t)
{
	return copy_locked(t, offsetof(struct http_transport, www_authenticate));
}

char *transport_http_session_id(struct transport *t)
{
	return copy_locked(t, offsetof(struct http_transport, session_id));
}

static int http_set_bearer(struct transport *t, const char *token)
{
	if (!t || t->ops != &http_ops)
		return -1;
	char *value = NULL;
	if (token && asprintf(&value, "Bearer %s", token) < 0)
		return -1;
	secret_add(token);
	int r = http_set_header(t, "Authorization", value);
	if (value) {
		explicit_bzero(value, strlen(value));
		free(value);
	}
	return r;
}

struct transport *transport_http_new(const struct transport_http_options *o, struct err *e)
{
	if (!o->url || !*o->url) {
		err_set(e, ERR_USAGE, "no server URL");
		return NULL;
	}
	struct http_transport *ht = calloc(1, sizeof *ht);
	if (!ht) {
		err_oom(e);
		return NULL;
	}
	ht->base.ops = &http_ops;
	pthread_mutex_init(&ht->lock, NULL);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&ht->share_locks[i], NULL);
	ht->connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 10000;
	ht->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 60000;
	ht->max_parallel = o->max_parallel > 0 ? o->max_parallel : 8;
	ht->max_message = o->max_message ? o->max_message : TRANSPORT_DEFAULT_MAX_MESSAGE;
	ht->max_resumptions = o->max_resumptions == 0 ? 3 : o->max_resumptions < 0 ? 0 : o->max_resumptions;
	ht->url = strdup(o->url);
	ht->cacert = o->cacert ? strdup(o->cacert) : NULL;
	ht->idle = calloc((size_t)ht->max_parallel, sizeof *ht->idle);
	ht->share = curl_share_init();
	if (!ht->url || (o->cacert && !ht->cacert) || !ht->idle || !ht->share) {
		err_oom(e);
		goto fail;
	}
	/* Only http and https, checked here so a typo fails before any I/O. */
	CURLU *u = curl_url();
	CURLUcode uc = u ? curl_url_set(u, CURLUPART_URL, o->url, 0) : CURLUE_OUT_OF_MEMORY;
	char *scheme = NULL;
	if (uc == CURLUE_OK)
		uc = curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	bool scheme_ok = uc == CURLUE_OK && (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0);
	curl_free(scheme);
	curl_url_cleanup(u);
	if (uc != CURLUE_OK) {
		err_set(e, ERR_USAGE, "bad server URL '%s': %s", o->url, curl_url_strerror(uc));
		goto fail;
	}
	if (!scheme_ok) {
		err_set(e, ERR_USAGE, "bad server URL '%s': only http and https are supported", o->url);
		goto fail;
	}
	curl_share_setopt(ht->share, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(ht->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(ht->share, CURLSHOPT_USERDATA, ht);
	curl_share_setopt(ht->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(ht->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	if (o->bearer_token && http_set_bearer(&ht->base, o->bearer_token) < 0) {
		err_oom(e);
		goto fail;
	}
	return &ht->base;
fail:
	http_destroy(&ht->base);
	return NULL;
}

static struct transport *http_open(const struct transport_target *o, struct err *e)
{
	struct transport_http_options ho = {
		.url = o->address,
		.cacert = o->cacert,
		.timeout_ms = o->timeout_ms,
		.max_parallel = o->max_parallel,
	};
	return transport_http_new(&ho, e);
}

/* Streamable HTTP: signed in with OAuth by the session. */
const struct transport_kind transport_kind_http = {
	.name = "http",
	.schemes = "http https",
	.signs_in = true,
	.open = http_open,
};
