/* A transport with no server behind it, for the unit tests of the layers
 * above (the MCP session, the Catalyst tool bindings): it keeps every
 * message sent and hands each request to the test's answer function,
 * which delivers what a server would send. */
#ifndef CA_TESTS_FAKE_TRANSPORT_H
#define CA_TESTS_FAKE_TRANSPORT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

#include "transport.h"

struct fake_transport;
/* Answers one request (a message sent expecting a reply): calls
 * fake_deliver() with what the server sends, or sets e and returns -1
 * for a transport error. method is the request's. */
typedef int (*fake_answer_fn)(struct fake_transport *f, json_t *req, const char *method, struct err *e);
/* Sees a message sent with no reply expected (a notification, or our
 * answer to a server request). */
typedef void (*fake_note_fn)(struct fake_transport *f, json_t *msg);

struct fake_transport {
	struct transport base; /* first: the session holds &base */
	pthread_mutex_t lock;  /* sent and headers, for the threaded tests */
	json_t *sent;          /* every message sent, parsed, in order */
	json_t *headers;       /* what set_header left set */
	/* For each message sent, in order: the headers the MCP layer set for
	 * that request alone (transport_set_request), name -> value. */
	json_t *request_headers;
	int resets; /* reset_session calls */
	fake_answer_fn answer;
	fake_note_fn note;
	/* false: server/discover gets "method not found" here, as from a
	 * server of MCP's legacy era (the SDK's over stdio), and the answer
	 * function never sees it; true: it is the answer function's. */
	bool modern;
};

void fake_transport_init(struct fake_transport *f, fake_answer_fn answer);
void fake_transport_finish(struct fake_transport *f);

/* Hands one server message (printf format) to the exchange in progress on
 * this thread, as a transport would; returns what the session's callback
 * returned (1: the response we waited for), or an earlier failure. */
int fake_deliver(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The JSON-RPC response {"result": result} (stolen) to req. */
int fake_deliver_result(json_t *req, json_t *result);
/* The JSON-RPC error response {"error": error} (stolen) to req. */
int fake_deliver_error(json_t *req, json_t *error);

/* The n-th sent message with this method (for method NULL, the n-th sent
 * response), borrowed; NULL if there is none. */
json_t *fake_sent_nth(struct fake_transport *f, const char *method, int n);
int fake_count_sent(struct fake_transport *f, const char *method);
/* The headers sent with that one message (an object; empty when none). */
json_t *fake_headers_of(struct fake_transport *f, const json_t *msg);

#endif
