#pragma once
/* What the two halves of the HTTP transport share: transport_http.c sends
 * (the handle pool, the request, the transfer, the resumption loop) and
 * transport_http_response.c reads what comes back (the libcurl header and
 * body callbacks, SSE delivery, the status turned into an error). Nothing
 * outside them includes this. */

#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>

#include "buf.h"
#include "sse.h"
#include "transport.h"

#define ERROR_BODY_MAX 4096
/* A stream (SSE) may carry notifications and server requests before the
 * response, each up to max_message: four times that, decoded, ends it. */
#define STREAM_MAX_MESSAGES 4
#define DONE_GRACE_MS 250

/* An easy handle and the multi handle that drives it and keeps its
 * connection. */
struct http_pooled {
	CURL *h;
	CURLM *m;
};

struct http_header {
	char *name;
	char *value;
};

struct http_transport {
	struct transport base;
	char *url;
	char *cacert;
	long connect_timeout_ms;
	long timeout_ms;
	int max_parallel;
	size_t max_message;
	int max_resumptions;

	pthread_mutex_t lock; /* guards everything below */
	char *session_id;
	char *authorization; /* the whole header line; never traced in clear */
	char *www_authenticate;
	struct http_header *headers;
	size_t n_headers;
	struct http_pooled *idle;
	int n_idle;

	CURLSH *share;
	pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
};

enum http_body_kind {
	HTTP_BODY_UNKNOWN,
	HTTP_BODY_JSON,
	HTTP_BODY_SSE,
	HTTP_BODY_DRAIN,
	HTTP_BODY_ERROR,
	HTTP_BODY_WRONG_TYPE,
};

/* One transfer (a POST, a resuming GET, a DELETE) and what it gathered. */
struct http_exchange {
	struct http_transport *ht;
	CURL *h;
	CURLM *m;
	const char *method;
	bool expect_reply;
	transport_on_message on_message;
	void *ctx;
	char errbuf[CURL_ERROR_SIZE];

	/* from the headers of the last response */
	long status;
	char *content_type;
	char *session_id;
	char *retry_after;
	char *www_authenticate;
	bool headers_done; /* the blank line that ends them came */

	enum http_body_kind kind;
	struct buf body;        /* the JSON body, or the start of an error body */
	struct sse_parser *sse; /* lives across the resumptions of one send */
	bool done;              /* on_message returned 1 */
	long long done_at;
	bool failed; /* a callback failed: see err */
	struct err err;
	size_t events; /* SSE messages this transfer delivered */
	/* What a compressed body inflates to is work libcurl does inside one
	 * read, between its own timeout checks: the body callback checks the
	 * deadline and bounds the decoded bytes itself. */
	long long deadline; /* monotime_ms() by which the transfer must end */
	size_t decoded;     /* body bytes of the last response, after decoding */
};

enum http_outcome {
	HTTP_OUTCOME_ERROR = -1,
	HTTP_OUTCOME_DONE = 0,
	HTTP_OUTCOME_RESUME = 1,
};

/* ---- transport_http_response.c: libcurl callbacks (userp: the exchange) ---- */

size_t transport_http_on_header(char *data, size_t size, size_t n, void *userp);
size_t transport_http_on_body(char *data, size_t size, size_t n, void *userp);
/* After the response arrived on a stream the server should end it; one
 * that lingers is cut after a short grace. */
int transport_http_on_progress(void *userp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
			       curl_off_t ulnow);
/* The SSE parser's callback (ctx: the exchange): delivers `message` events. */
int transport_http_on_sse_event(const struct sse_event *ev, void *ctx, struct err *e);

/* ---- transport_http_response.c: what one transfer left behind ---- */

/* Forgets the last response's headers and body (a new response starts). */
void transport_http_reset_response(struct http_exchange *ex);
/* libcurl's error buffer text, else its text for the code. */
const char *transport_http_curl_text(const struct http_exchange *ex, CURLcode res);
/* Reads what one transfer left behind: done, resume the stream (SSE cut
 * before the response, with an event id), or an error in e. */
enum http_outcome transport_http_judge(struct http_exchange *ex, CURLcode res, const char *session_sent,
				       int resumptions, struct err *e);
