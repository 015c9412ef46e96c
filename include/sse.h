#pragma once
/* An incremental parser for text/event-stream, after the WHATWG EventSource
 * rules: bytes arrive in chunks split anywhere (even between CR and LF),
 * lines end in CR, LF or CRLF, a leading BOM is dropped, `data:` lines join
 * with "\n", an event is dispatched on a blank line. An event larger than
 * the configured bound is an error instead of unbounded growth. */

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"

#define SSE_DEFAULT_MAX_EVENT ((size_t)16 << 20)

struct sse_event {
	const char *type; /* "message" when the event named none */
	const char *data; /* NUL-terminated; may contain NUL bytes, see len */
	size_t len;
	const char *id; /* the last event id in force ("" when none) */
};

/* Returns 0 to keep parsing, > 0 to stop (sse_parser_feed returns that
 * value at once, leaving the rest of the chunk unparsed), < 0 for an error
 * set in `e`. */
typedef int (*sse_event_fn)(const struct sse_event *ev, void *ctx, struct err *e);

struct sse_parser {
	sse_event_fn on_event;
	void *ctx;
	size_t max_event;
	struct buf line; /* the line being assembled */
	struct buf data; /* the event's data so far */
	struct buf type; /* the event's type so far */
	struct buf id;   /* the last event id, kept across events */
	long retry_ms;   /* the last `retry:` value, -1 when none */
	int bom;         /* BOM bytes matched so far; -1 once past the start */
	bool after_cr;   /* the last byte was CR: a following LF belongs to it */
	bool seen_id;    /* an `id:` field has been seen */
};

/* max_event 0: SSE_DEFAULT_MAX_EVENT. */
void sse_parser_init(struct sse_parser *p, size_t max_event, sse_event_fn on_event, void *ctx);
void sse_parser_finish(struct sse_parser *p);
/* Returns 0, the callback's positive stop value, or -1 with `e` set
 * (ERR_PROTOCOL when an event passes the size bound). */
int sse_parser_feed(struct sse_parser *p, const void *bytes, size_t len, struct err *e);
/* Clears the line and event state for a new stream (after a reconnect),
 * keeping the last event id and retry value, as EventSource does. */
void sse_parser_restart(struct sse_parser *p);
/* True when bytes of an undispatched event or line are pending: at the
 * end of a stream they are dropped, and the stream was cut short. */
bool sse_parser_has_partial(const struct sse_parser *p);
static inline const char *sse_parser_last_id(const struct sse_parser *p)
{
	return p->id.data ? p->id.data : "";
}
