#pragma once
/* Private to the event model and its parsers: the interning pool and the
 * low-level ways a parser fills a log without copying each event twice. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "event.h"

/* Whether the len bytes at a and b are equal, a word at a time, the last
 * word overlapping: keys and interned ids are short, and a memcmp call for
 * each of a large history's million keys and ids cost more than the
 * compare (the decoder's key and text caches, the pool's probe). */
static inline bool event_bytes_eq(const char *a, const char *b, size_t len)
{
	uint64_t x, y;
	if (len >= 8) {
		for (size_t i = 0; i + 8 < len; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return false;
		}
		memcpy(&x, a + len - 8, 8);
		memcpy(&y, b + len - 8, 8);
		return x == y;
	}
	if (len >= 4) {
		uint32_t p, q, r, t;
		memcpy(&p, a, 4);
		memcpy(&q, b, 4);
		memcpy(&r, a + len - 4, 4);
		memcpy(&t, b + len - 4, 4);
		return p == q && r == t;
	}
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Every field of ev zeroed (NULL, 0, false, PAYLOAD_ABSENT), field by
 * field: GCC zeroes a whole struct (memset, an initializer) with `rep
 * stos`, whose start-up on AMD was half the time of unpacking an event;
 * these stores it merges into vector ones. The assertion makes a new
 * field come here too. */
static inline void event_clear(struct event *ev)
{
	/* On 64-bit builds, where it is developed: the package is built for
	 * 32-bit architectures too, where the struct is smaller. */
	_Static_assert(sizeof(void *) != 8 || sizeof(struct event) == 224,
		       "every field of struct event is cleared below");
	ev->kind = EVENT_UNKNOWN;
	ev->origin = ORIGIN_NONE;
	ev->kind_name = ev->timestamp = ev->name = ev->task_execution_id = NULL;
	ev->event_id = ev->task_scheduled_id = ev->timer_id = 0;
	ev->fire_at = ev->origin_id = ev->instance_id = ev->execution_id = NULL;
	ev->retry_parent_instance_id = ev->rerun_parent_instance_id = ev->workflow_status = NULL;
	ev->error_type = ev->error_message = ev->cause_type = ev->cause_message = ev->patches = NULL;
	ev->input = ev->output = ev->custom_status = (struct payload){0};
	ev->source_offset = 0;
	ev->has_event_id = ev->has_task_scheduled_id = ev->has_timer_id = false;
	ev->has_non_retriable = ev->non_retriable = ev->attested = false;
	ev->cause_depth = 0;
}

struct pool_str {
	uint32_t len;        /* an input is at most EVENT_INPUT_MAX bytes */
	uint32_t ord;        /* event_log_str_ord */
	const char *forward; /* where this string lives in the pool merged into */
	char text[];
};

struct pool_slot {
	uint64_t hash;
	struct pool_str *s;
};

struct event_pool {
	struct pool_chunk *chunks;
	struct pool_slot *table;
	size_t cap, count;
	size_t bytes;
	uint32_t ords; /* ordinals given: count, but never reset with the table */
};

void event_pool_init(struct event_pool *p);
void event_pool_finish(struct event_pool *p);
/* NULL stays NULL; returns NULL on allocation failure otherwise. */
const char *event_pool_intern(struct event_pool *p, const char *s, size_t len);
/* Copies without deduplication (timestamps: nearly all distinct). */
const char *event_pool_store(struct event_pool *p, const char *s, size_t len);
/* Moves from's memory into `into` (strings stay where they are) and
 * finishes from. */
void event_pool_adopt(struct event_pool *into, struct event_pool *from);
/* s must come from event_pool_intern on a pool that will be adopted into
 * `into`: returns into's equal string, adding s itself when into has none
 * (memoised). */
const char *event_pool_forward(struct event_pool *into, const char *s);

struct event_pool *event_log_pool(struct event_log *log);
void event_log_set_dialect(struct event_log *log, enum event_dialect d);
/* Packs ev at the end of the log. Its strings must already be the log's
 * (interned or stored in its pool). -1 on allocation failure. */
int event_log_store(struct event_log *log, const struct event *ev);
int event_log_count_unknown_key(struct event_log *log, const char *name, size_t len, size_t n);
/* Keeps the first EVENT_PAYLOAD_TEXT_MAX bytes of a present payload's text
 * s (len bytes, whose hash and size are those of p) unless its text is
 * kept already, and marks the log as one that keeps payload texts. -1 on
 * allocation failure. */
int event_log_keep_payload_text(struct event_log *log, const struct payload *p, const char *s, size_t len);
void event_log_set_keeps_payload_text(struct event_log *log);
int event_log_count_unknown_kind(struct event_log *log, const char *name, size_t len, size_t n);
/* Appends from's events to into, taking over its event blocks as they are
 * and re-interning its ids in into's pool (for the second half of a parse
 * done in another thread), and frees from. Works once per log. -1 on
 * allocation failure, with from's events not appended. */
int event_log_take(struct event_log *into, struct event_log *from);
