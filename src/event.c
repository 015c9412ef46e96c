/* The history event model: a log of normalised events whose strings live in
 * an interning pool owned by the log. Events are stored in fixed-size blocks
 * so appending never copies what is already there (no realloc doubling of a
 * 300,000-event array) and nothing already stored moves. */
#include "event.h"
#include "event_internal.h"
#include "table_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define EVENT_BLOCK_SHIFT 10
#define EVENT_BLOCK_SIZE (1u << EVENT_BLOCK_SHIFT)
/* event_log_release_before gives back side slots in steps of this. */
#define XS_RELEASE_STEP (256u * 1024u)

/* ------------------------------------------------------------------------ */
/* The interning pool. Strings sit in large arena chunks, each preceded by a
 * small header (length, forward pointer); a power-of-two open
 * addressing table of header pointers finds them again. The forward pointer
 * lets a per-thread pool be merged into another one in O(1) per string. */

#define POOL_CHUNK (256u * 1024u)
#define POOL_FIRST_CHUNK (4u * 1024u)

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, cap;
	_Alignas(max_align_t) char data[];
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	/* Eight bytes a step with a multiply-xorshift mix: ids are 36-byte
	 * UUIDs, and byte-wise FNV showed in profiles. */
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	/* The tail as constant-size loads, overlapping what came before:
	 * a copy of a variable size was a call for every id. */
	uint64_t w = 0;
	if (len >= 8) {
		memcpy(&w, s + len - 8, 8);
	} else if (len >= 4) {
		uint32_t a, z;
		memcpy(&a, s, 4);
		memcpy(&z, s + len - 4, 4);
		w = a | (uint64_t)z << 32;
	} else if (len) {
		w = (unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
		    (uint64_t)(unsigned char)s[len - 1] << 16;
	}
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return h;
}

void event_pool_init(struct event_pool *p)
{
	memset(p, 0, sizeof *p);
}

void event_pool_adopt(struct event_pool *into, struct event_pool *from)
{
	/* Append from's chunks after into's current one, so into keeps
	 * filling its own top chunk. */
	struct pool_chunk *last = from->chunks;
	if (last) {
		while (last->next)
			last = last->next;
		if (into->chunks) {
			last->next = into->chunks->next;
			into->chunks->next = from->chunks;
		} else {
			into->chunks = from->chunks;
		}
	}
	into->bytes += from->bytes;
	from->chunks = NULL;
	from->bytes = 0;
	event_pool_finish(from);
}

void event_pool_finish(struct event_pool *p)
{
	struct pool_chunk *c = p->chunks;
	while (c) {
		struct pool_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(p->table);
	memset(p, 0, sizeof *p);
}

/* n bytes from the arena, aligned to `align` (a power of two). */
static void *pool_raw(struct event_pool *p, size_t n, size_t align)
{
	struct pool_chunk *c = p->chunks;
	if (c) {
		size_t at = (c->used + align - 1) & ~(align - 1);
		if (at <= c->cap && c->cap - at >= n) {
			c->used = at + n;
			p->bytes += n;
			return c->data + at;
		}
	}
	/* Chunks double from POOL_FIRST_CHUNK up to POOL_CHUNK: a 200-event
	 * tool answer needs a few kilobytes, and `runs` keeps one pool per
	 * run until the report is written. */
	bool one_off = n > POOL_CHUNK / 4;
	size_t cap = c ? c->cap * 2 : POOL_FIRST_CHUNK;
	if (cap > POOL_CHUNK)
		cap = POOL_CHUNK;
	while (cap < n)
		cap *= 2;
	if (one_off)
		cap = n;
	struct pool_chunk *nc = malloc(sizeof *nc + cap);
	if (!nc)
		return NULL;
	nc->cap = cap;
	p->bytes += n;
	if (c && one_off) {
		/* A big one-off string: keep the current chunk on top so its
		 * remaining space is still used. */
		nc->next = c->next;
		c->next = nc;
		nc->used = cap;
		return nc->data;
	}
	nc->next = c;
	nc->used = n;
	p->chunks = nc;
	return nc->data;
}

static struct pool_str *pool_alloc(struct event_pool *p, size_t len)
{
	return pool_raw(p, sizeof(struct pool_str) + len + 1, _Alignof(struct pool_str));
}

static char *pool_bytes(struct event_pool *p, size_t n)
{
	return pool_raw(p, n, 1);
}

static int pool_grow(struct event_pool *p)
{
	size_t ncap = p->cap ? p->cap * 2 : 1024;
	struct pool_slot *t = table_alloc(ncap, sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < p->cap; i++) {
		struct pool_str *s = p->table[i].s;
		if (!s)
			continue;
		size_t j = p->table[i].hash & (ncap - 1);
		while (t[j].s)
			j = (j + 1) & (ncap - 1);
		t[j] = p->table[i];
	}
	free(p->table);
	p->table = t;
	p->cap = ncap;
	return 0;
}

/* The header of an interned string. */
static struct pool_str *pool_node(const char *text)
{
	return (struct pool_str *)(void *)(text - offsetof(struct pool_str, text));
}

/* Finds s in p, or adds it: as `node` when given (a string already in a pool
 * being merged into p, which stays where it is), else as a new copy. */
static const char *pool_find_or_add(struct event_pool *p, const char *s, size_t len, struct pool_str *node)
{
	if ((p->count + 1) * 4 > p->cap * 3 && pool_grow(p) < 0)
		return NULL;
	uint64_t h = hash_bytes(s, len);
	size_t j = h & (p->cap - 1);
	for (struct pool_str *c; (c = p->table[j].s); j = (j + 1) & (p->cap - 1)) {
		/* The hash sits in the table: most misses never touch the
		 * string itself. */
		if (p->table[j].hash == h && c->len == len && event_bytes_eq(c->text, s, len))
			return c->text;
	}
	struct pool_str *n = node;
	if (!n) {
		n = pool_alloc(p, len);
		if (!n)
			return NULL;
		n->len = (uint32_t)len;
		n->forward = NULL;
		memcpy(n->text, s, len);
		n->text[len] = '\0';
	}
	n->ord = p->ords++;
	p->table[j].s = n;
	p->table[j].hash = h;
	p->count++;
	return n->text;
}

const char *event_pool_intern(struct event_pool *p, const char *s, size_t len)
{
	return s ? pool_find_or_add(p, s, len, NULL) : NULL;
}

const char *event_pool_store(struct event_pool *p, const char *s, size_t len)
{
	if (!s)
		return NULL;
	char *t = pool_bytes(p, len + 1);
	if (!t)
		return NULL;
	memcpy(t, s, len);
	t[len] = '\0';
	return t;
}

const char *event_pool_forward(struct event_pool *into, const char *s)
{
	if (!s)
		return NULL;
	struct pool_str *h = pool_node(s);
	/* A string new to `into` is not copied: the caller adopts this pool's
	 * chunks (event_pool_adopt), so the node itself joins into's table
	 * (and takes the next ordinal of into). One into had already is
	 * numbered as that one, should a pointer to it be left unforwarded. */
	if (!h->forward && (h->forward = pool_find_or_add(into, h->text, h->len, h)))
		h->ord = pool_node(h->forward)->ord;
	return h->forward;
}

/* ------------------------------------------------------------------------ */

/* Packed events. A struct event is 240 bytes, and a 300,000-event history
 * is held whole while it is analysed, so the log stores each event as a
 * 40-byte record of what nearly every event has (kind, timestamp, name,
 * execution id) plus 8-byte slots, in a side array, for each other field
 * that is set, in the order of enum xfield; event_log_get unpacks. */

enum xfield {
	X_KIND_NAME, /* only when spelled otherwise than event_kind_name(kind) */
	X_EVENT_ID,
	X_TASK_SCHEDULED_ID,
	X_TIMER_ID,
	X_FIRE_AT,
	X_ORIGIN_ID,
	X_INSTANCE_ID,
	X_EXECUTION_ID,
	X_RETRY_PARENT,
	X_RERUN_PARENT,
	X_WORKFLOW_STATUS,
	X_ERROR_TYPE,
	X_ERROR_MESSAGE,
	X_CAUSE_TYPE,
	X_CAUSE_MESSAGE,
	X_PATCHES,
	X_CAUSE_DEPTH,
	X_INPUT, /* payloads take two slots: size, hash */
	X_OUTPUT,
	X_CUSTOM_STATUS,
	X_SOURCE_HI, /* source_offset >> 32 */
	X_COUNT
};

/* Flags in event_rec.bits, after three 2-bit payload states. */
enum {
	B_HAS_EVENT_ID = 1u << 6,
	B_HAS_TASK_SCHEDULED_ID = 1u << 7,
	B_HAS_TIMER_ID = 1u << 8,
	B_HAS_NON_RETRIABLE = 1u << 9,
	B_NON_RETRIABLE = 1u << 10,
	B_TRUNCATED = 1u << 11, /* three bits: input, output, custom status */
	B_ATTESTED = 1u << 14,
};

union xslot {
	int64_t i;
	uint64_t u;
	const char *s;
};

struct event_rec {
	const char *timestamp;
	const char *name;
	const char *task_execution_id;
	uint32_t xoff; /* first slot in the log's side array */
	uint32_t xmask;
	uint32_t source_lo;
	uint16_t bits;
	uint8_t kind;
	uint8_t origin;
};

/* On 64-bit builds: three pointers make it smaller on 32-bit ones. */
_Static_assert(sizeof(void *) != 8 || sizeof(struct event_rec) == 40, "the packed event grew");
_Static_assert(EVENT_KIND_COUNT <= 256 && X_COUNT <= 32, "the packed event's fields no longer fit");

struct event_counter {
	struct event_count *items;
	size_t n, cap;
};

/* A payload's kept text (--show-payloads), found by the payload's hash and
 * size: open addressing, an empty slot has no text. */
struct payload_text {
	uint64_t hash;
	size_t size;
	const char *text; /* in the log's pool */
	size_t len;
	bool cut;
};

struct payload_texts {
	struct payload_text *slots;
	size_t cap, count;
	bool on; /* the log was parsed to keep them */
};

struct event_log {
	struct event_rec **blocks;
	size_t nblocks_cap;
	size_t count;
	/* After a two-thread parse the second half's blocks are taken over
	 * as they are: events from join_at on start afresh in join_block. */
	bool joined;
	size_t join_at, join_block;
	union xslot *xs; /* grows by doubling: large sizes are mremap'ed, not copied */
	size_t xn, xcap;
	/* event_log_release_before: events [0, released) are gone, with the
	 * blocks [0, blocks_released) that held only them, and the pages of
	 * the side slots [0, xs_released) (they stay allocated). */
	size_t released, blocks_released, xs_released;
	enum event_dialect dialect;
	struct event_run_info run;
	struct event_counter unknown_kinds;
	struct event_counter unknown_keys;
	struct payload_texts texts;
	struct event_pool pool;
	struct propagated_history *propagated; /* Dapr 1.18: the ancestors' record, or NULL */
};

static void slot_of(const struct event_log *log, size_t i, size_t *block, size_t *off)
{
	if (log->joined && i >= log->join_at) {
		size_t j = i - log->join_at;
		*block = log->join_block + (j >> EVENT_BLOCK_SHIFT);
		*off = j & (EVENT_BLOCK_SIZE - 1);
	} else {
		*block = i >> EVENT_BLOCK_SHIFT;
		*off = i & (EVENT_BLOCK_SIZE - 1);
	}
}

static size_t nblocks(const struct event_log *log)
{
	if (!log->count)
		return log->joined ? log->join_block : 0;
	size_t b, o;
	slot_of(log, log->count - 1, &b, &o);
	return b + 1;
}

static struct event_rec *rec_at(const struct event_log *log, size_t i)
{
	size_t b, o;
	slot_of(log, i, &b, &o);
	return &log->blocks[b][o];
}

struct event_log *event_log_new(void)
{
	struct event_log *log = calloc(1, sizeof *log);
	if (!log)
		return NULL;
	event_pool_init(&log->pool);
	return log;
}

static void free_events(struct event_log *log)
{
	size_t nb = nblocks(log);
	for (size_t i = 0; i < nb; i++)
		free(log->blocks[i]);
	free(log->blocks);
	free(log->xs);
	log->blocks = NULL;
	log->nblocks_cap = 0;
	log->count = 0;
	log->joined = false;
	log->join_at = log->join_block = 0;
	log->xs = NULL;
	log->xn = log->xcap = 0;
	log->released = log->blocks_released = log->xs_released = 0;
}

void event_log_free(struct event_log *log)
{
	if (!log)
		return;
	free_events(log);
	free(log->unknown_kinds.items);
	free(log->unknown_keys.items);
	free(log->texts.slots);
	event_pool_finish(&log->pool);
	propagated_history_free(log->propagated);
	free(log);
}

void event_log_drop_events(struct event_log *log)
{
	if (!log)
		return;
	free_events(log);
	/* The strings stay where they are; only finding them again by value
	 * needs the table, and a log without events interns nothing more. */
	free(log->pool.table);
	log->pool.table = NULL;
	log->pool.cap = log->pool.count = 0;
}

/* The first event of block b. */
static size_t block_start(const struct event_log *log, size_t b)
{
	if (log->joined && b >= log->join_block)
		return log->join_at + ((b - log->join_block) << EVENT_BLOCK_SHIFT);
	return b << EVENT_BLOCK_SHIFT;
}

/* Gives the whole pages inside [p, p + len) back to the system, the memory
 * staying allocated: a free() keeps small blocks resident for reuse, and
 * what the rest of `file` allocates is mostly too large to reuse them. */
static void give_back(const void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		return;
	uintptr_t m = (uintptr_t)page - 1;
	uintptr_t from = ((uintptr_t)p + m) & ~m, to = ((uintptr_t)p + len) & ~m;
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

void event_log_release_before(struct event_log *log, size_t i)
{
	if (!log || i <= log->released)
		return;
	if (i > log->count)
		i = log->count;
	/* Whole blocks of records: each block's events all before i. */
	size_t nb = nblocks(log), b = log->blocks_released;
	for (; b < nb && block_start(log, b + 1) <= i; b++) {
		give_back(log->blocks[b],
			  (block_start(log, b + 1) - block_start(log, b)) * sizeof(struct event_rec));
		free(log->blocks[b]);
		log->blocks[b] = NULL;
	}
	log->blocks_released = b;
	/* The side slots of the events in those blocks, 256 KB at a time:
	 * at the end of the scan, now the peak of `file`, they were 8 MB of
	 * it; given back with each block they cost the CLI's table 7% of its
	 * time in madvise. */
	size_t xupto = b < nb ? rec_at(log, block_start(log, b))->xoff : log->xn;
	if (log->xs && xupto > log->xs_released &&
	    (xupto - log->xs_released) * sizeof *log->xs >= XS_RELEASE_STEP) {
		give_back(log->xs + log->xs_released, (xupto - log->xs_released) * sizeof *log->xs);
		log->xs_released = xupto;
	}
	log->released = i;
	/* Nothing finds strings by value any more (see event_log_drop_events). */
	free(log->pool.table);
	log->pool.table = NULL;
	log->pool.cap = log->pool.count = 0;
}

size_t event_log_count(const struct event_log *log)
{
	return log ? log->count : 0;
}

/* The side slots of one event, in field order (one per set bit of mask,
 * two for a payload's size and hash), into out. Inlined: every pass of the
 * analysis unpacks every event. */
static inline void unpack_slots(struct event *out, const union xslot *x, uint32_t mask)
{
	for (uint32_t m = mask; m; m &= m - 1) {
		struct payload *p = NULL;
		switch ((enum xfield)__builtin_ctz(m)) {
		case X_KIND_NAME:
			out->kind_name = (x++)->s;
			break;
		case X_EVENT_ID:
			out->event_id = (x++)->i;
			break;
		case X_TASK_SCHEDULED_ID:
			out->task_scheduled_id = (x++)->i;
			break;
		case X_TIMER_ID:
			out->timer_id = (x++)->i;
			break;
		case X_FIRE_AT:
			out->fire_at = (x++)->s;
			break;
		case X_ORIGIN_ID:
			out->origin_id = (x++)->s;
			break;
		case X_INSTANCE_ID:
			out->instance_id = (x++)->s;
			break;
		case X_EXECUTION_ID:
			out->execution_id = (x++)->s;
			break;
		case X_RETRY_PARENT:
			out->retry_parent_instance_id = (x++)->s;
			break;
		case X_RERUN_PARENT:
			out->rerun_parent_instance_id = (x++)->s;
			break;
		case X_WORKFLOW_STATUS:
			out->workflow_status = (x++)->s;
			break;
		case X_ERROR_TYPE:
			out->error_type = (x++)->s;
			break;
		case X_ERROR_MESSAGE:
			out->error_message = (x++)->s;
			break;
		case X_CAUSE_TYPE:
			out->cause_type = (x++)->s;
			break;
		case X_CAUSE_MESSAGE:
			out->cause_message = (x++)->s;
			break;
		case X_PATCHES:
			out->patches = (x++)->s;
			break;
		case X_CAUSE_DEPTH:
			out->cause_depth = (uint8_t)(x++)->u;
			break;
		case X_INPUT:
			p = &out->input;
			break;
		case X_OUTPUT:
			p = &out->output;
			break;
		case X_CUSTOM_STATUS:
			p = &out->custom_status;
			break;
		case X_SOURCE_HI:
			out->source_offset |= (size_t)((x++)->u << 32);
			break;
		case X_COUNT:
			break;
		}
		if (p) {
			p->size = (size_t)x[0].u;
			p->hash = x[1].u;
			x += 2;
		}
	}
}

bool event_log_get(const struct event_log *log, size_t i, struct event *out)
{
	if (!log || i >= log->count || i < log->released)
		return false;
	const struct event_rec *r = rec_at(log, i);
	/* Every pass of the analysis unpacks every event: the fields cleared
	 * and the common ones stored (the compiler merges the two), then a
	 * step per slot, not per possible field. */
	event_clear(out);
	out->kind = (enum event_kind)r->kind;
	out->origin = (enum timer_origin)r->origin;
	out->kind_name = event_kind_name((enum event_kind)r->kind);
	out->timestamp = r->timestamp;
	out->name = r->name;
	out->task_execution_id = r->task_execution_id;
	out->input = (struct payload){.state = (uint8_t)(r->bits & 3u), .truncated = r->bits & B_TRUNCATED};
	out->output =
		(struct payload){.state = (uint8_t)(r->bits >> 2 & 3u), .truncated = r->bits & B_TRUNCATED << 1};
	out->custom_status =
		(struct payload){.state = (uint8_t)(r->bits >> 4 & 3u), .truncated = r->bits & B_TRUNCATED << 2};
	out->source_offset = r->source_lo;
	out->has_event_id = r->bits & B_HAS_EVENT_ID;
	out->has_task_scheduled_id = r->bits & B_HAS_TASK_SCHEDULED_ID;
	out->has_timer_id = r->bits & B_HAS_TIMER_ID;
	out->has_non_retriable = r->bits & B_HAS_NON_RETRIABLE;
	out->non_retriable = r->bits & B_NON_RETRIABLE;
	out->attested = r->bits & B_ATTESTED;
	if (r->xmask)
		unpack_slots(out, log->xs + r->xoff, r->xmask);
	return true;
}

enum event_kind event_log_kind(const struct event_log *log, size_t i)
{
	if (!log || i >= log->count || i < log->released)
		return EVENT_UNKNOWN;
	return (enum event_kind)rec_at(log, i)->kind;
}

bool event_log_names_version(const struct event_log *log, size_t i)
{
	if (!log || i >= log->count || i < log->released)
		return false;
	const struct event_rec *r = rec_at(log, i);
	return r->kind == EVENT_WORKFLOW_STARTED && (r->name || r->xmask & 1u << X_PATCHES);
}

enum event_dialect event_log_dialect(const struct event_log *log)
{
	return log ? log->dialect : DIALECT_UNKNOWN;
}

void event_log_set_dialect(struct event_log *log, enum event_dialect d)
{
	log->dialect = d;
}

unsigned event_log_caps(const struct event_log *log)
{
	return event_dialect_caps(event_log_dialect(log));
}

const struct event_run_info *event_log_run_info(const struct event_log *log)
{
	return log ? &log->run : NULL;
}

const struct propagated_history *event_log_propagated(const struct event_log *log)
{
	return log ? log->propagated : NULL;
}

int event_log_read_propagated(struct event_log *log, const json_t *doc, struct err *e)
{
	struct propagated_history *p;
	if (propagated_history_read(doc, &p, e) < 0)
		return -1;
	/* A document that names two keeps the first: the one beside the events. */
	if (log->propagated)
		propagated_history_free(p);
	else
		log->propagated = p;
	return 0;
}

size_t event_log_unknown_kinds(const struct event_log *log, const struct event_count **out)
{
	if (out)
		*out = log ? log->unknown_kinds.items : NULL;
	return log ? log->unknown_kinds.n : 0;
}

size_t event_log_unknown_keys(const struct event_log *log, const struct event_count **out)
{
	if (out)
		*out = log ? log->unknown_keys.items : NULL;
	return log ? log->unknown_keys.n : 0;
}

const char *event_log_intern(struct event_log *log, const char *s, size_t len)
{
	return event_pool_intern(&log->pool, s, len);
}

uint32_t event_log_str_ord(const char *s)
{
	return pool_node(s)->ord;
}

size_t event_log_str_count(const struct event_log *log)
{
	return log ? log->pool.ords : 0;
}

struct event_pool *event_log_pool(struct event_log *log)
{
	return &log->pool;
}

static const char *intern_cstr(struct event_log *log, const char *s, bool *fail)
{
	if (!s)
		return NULL;
	const char *r = event_pool_intern(&log->pool, s, strlen(s));
	if (!r)
		*fail = true;
	return r;
}

static int counter_add(struct event_log *log, struct event_counter *c, const char *name, size_t len, size_t n)
{
	/* Few distinct names, and interned: compare pointers. */
	const char *s = event_pool_intern(&log->pool, name, len);
	if (!s)
		return -1;
	for (size_t i = 0; i < c->n; i++) {
		if (c->items[i].name == s) {
			c->items[i].count += n;
			return 0;
		}
	}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 8;
		struct event_count *items = realloc(c->items, ncap * sizeof *items);
		if (!items)
			return -1;
		c->items = items;
		c->cap = ncap;
	}
	c->items[c->n].name = s;
	c->items[c->n].count = n;
	c->n++;
	return 0;
}

int event_log_count_unknown_key(struct event_log *log, const char *name, size_t len, size_t n)
{
	return counter_add(log, &log->unknown_keys, name, len, n);
}

int event_log_count_unknown_kind(struct event_log *log, const char *name, size_t len, size_t n)
{
	return counter_add(log, &log->unknown_kinds, name, len, n);
}

static int xs_reserve(struct event_log *log, size_t n)
{
	if (log->xcap - log->xn >= n)
		return 0;
	size_t ncap = log->xcap ? log->xcap : 256;
	while (ncap - log->xn < n)
		ncap *= 2;
	/* The offsets are 32-bit: 32 GiB of slots is far beyond any history. */
	if (ncap > UINT32_MAX)
		return -1;
	union xslot *nx = realloc(log->xs, ncap * sizeof *nx);
	if (!nx)
		return -1;
	log->xs = nx;
	log->xcap = ncap;
	return 0;
}

static struct event_rec *push_rec(struct event_log *log)
{
	size_t b, o;
	slot_of(log, log->count, &b, &o);
	if (o == 0) {
		if (b >= log->nblocks_cap) {
			size_t ncap = log->nblocks_cap ? log->nblocks_cap * 2 : 16;
			while (ncap <= b)
				ncap *= 2;
			struct event_rec **nb = realloc(log->blocks, ncap * sizeof *nb);
			if (!nb)
				return NULL;
			log->blocks = nb;
			log->nblocks_cap = ncap;
		}
		/* A small log (a tool answer) gets a small first block. */
		size_t n = b == 0 && !log->joined ? 64 : EVENT_BLOCK_SIZE;
		log->blocks[b] = malloc(n * sizeof(struct event_rec));
		if (!log->blocks[b])
			return NULL;
	} else if (b == 0 && !log->joined && o == 64) {
		struct event_rec *nb = realloc(log->blocks[0], EVENT_BLOCK_SIZE * sizeof(struct event_rec));
		if (!nb)
			return NULL;
		log->blocks[0] = nb;
	}
	log->count++;
	return &log->blocks[b][o];
}

int event_log_store(struct event_log *log, const struct event *ev)
{
	union xslot x[X_COUNT + 3];
	size_t n = 0;
	uint32_t m = 0;
#define PUT(f, field, v)            \
	do {                        \
		m |= 1u << (f);     \
		x[n++].field = (v); \
	} while (0)
	if (ev->kind_name && strcmp(ev->kind_name, event_kind_name(ev->kind)) != 0)
		PUT(X_KIND_NAME, s, ev->kind_name);
	if (ev->event_id || ev->has_event_id)
		PUT(X_EVENT_ID, i, ev->event_id);
	if (ev->task_scheduled_id || ev->has_task_scheduled_id)
		PUT(X_TASK_SCHEDULED_ID, i, ev->task_scheduled_id);
	if (ev->timer_id || ev->has_timer_id)
		PUT(X_TIMER_ID, i, ev->timer_id);
	const char *strs[] = {
		[X_FIRE_AT] = ev->fire_at,
		[X_ORIGIN_ID] = ev->origin_id,
		[X_INSTANCE_ID] = ev->instance_id,
		[X_EXECUTION_ID] = ev->execution_id,
		[X_RETRY_PARENT] = ev->retry_parent_instance_id,
		[X_RERUN_PARENT] = ev->rerun_parent_instance_id,
		[X_WORKFLOW_STATUS] = ev->workflow_status,
		[X_ERROR_TYPE] = ev->error_type,
		[X_ERROR_MESSAGE] = ev->error_message,
		[X_CAUSE_TYPE] = ev->cause_type,
		[X_CAUSE_MESSAGE] = ev->cause_message,
		[X_PATCHES] = ev->patches,
	};
	for (unsigned f = X_FIRE_AT; f <= X_PATCHES; f++)
		if (strs[f])
			PUT(f, s, strs[f]);
	if (ev->cause_depth)
		PUT(X_CAUSE_DEPTH, u, ev->cause_depth);
	const struct payload *ps[] = {&ev->input, &ev->output, &ev->custom_status};
	for (unsigned k = 0; k < 3; k++) {
		if (ps[k]->size || ps[k]->hash) {
			PUT(X_INPUT + k, u, ps[k]->size);
			x[n++].u = ps[k]->hash;
		}
	}
	if ((uint64_t)ev->source_offset >> 32)
		PUT(X_SOURCE_HI, u, (uint64_t)ev->source_offset >> 32);
#undef PUT
	if (n && xs_reserve(log, n) < 0)
		return -1;
	struct event_rec *r = push_rec(log);
	if (!r)
		return -1;
	*r = (struct event_rec){
		.timestamp = ev->timestamp,
		.name = ev->name,
		.task_execution_id = ev->task_execution_id,
		.xoff = (uint32_t)log->xn,
		.xmask = m,
		.source_lo = (uint32_t)ev->source_offset,
		.bits = (uint16_t)((ev->input.state & 3u) | (ev->output.state & 3u) << 2 |
				   (ev->custom_status.state & 3u) << 4 | (ev->has_event_id ? B_HAS_EVENT_ID : 0) |
				   (ev->has_task_scheduled_id ? B_HAS_TASK_SCHEDULED_ID : 0) |
				   (ev->has_timer_id ? B_HAS_TIMER_ID : 0) |
				   (ev->has_non_retriable ? B_HAS_NON_RETRIABLE : 0) |
				   (ev->non_retriable ? B_NON_RETRIABLE : 0) | (ev->attested ? B_ATTESTED : 0) |
				   (ev->input.truncated ? B_TRUNCATED : 0) |
				   (ev->output.truncated ? B_TRUNCATED << 1 : 0) |
				   (ev->custom_status.truncated ? B_TRUNCATED << 2 : 0)),
		.kind = (uint8_t)ev->kind,
		.origin = (uint8_t)ev->origin,
	};
	if (n)
		memcpy(log->xs + log->xn, x, n * sizeof *x);
	log->xn += n;
	return 0;
}

int event_log_append(struct event_log *log, const struct event *ev, struct err *e)
{
	bool fail = false;
	struct event copy = *ev;
	copy.kind_name = intern_cstr(log, ev->kind_name ? ev->kind_name : event_kind_name(ev->kind), &fail);
	copy.timestamp = intern_cstr(log, ev->timestamp, &fail);
	copy.name = intern_cstr(log, ev->name, &fail);
	copy.task_execution_id = intern_cstr(log, ev->task_execution_id, &fail);
	copy.fire_at = intern_cstr(log, ev->fire_at, &fail);
	copy.origin_id = intern_cstr(log, ev->origin_id, &fail);
	copy.instance_id = intern_cstr(log, ev->instance_id, &fail);
	copy.execution_id = intern_cstr(log, ev->execution_id, &fail);
	copy.retry_parent_instance_id = intern_cstr(log, ev->retry_parent_instance_id, &fail);
	copy.rerun_parent_instance_id = intern_cstr(log, ev->rerun_parent_instance_id, &fail);
	copy.workflow_status = intern_cstr(log, ev->workflow_status, &fail);
	copy.error_type = intern_cstr(log, ev->error_type, &fail);
	copy.error_message = intern_cstr(log, ev->error_message, &fail);
	copy.cause_type = intern_cstr(log, ev->cause_type, &fail);
	copy.cause_message = intern_cstr(log, ev->cause_message, &fail);
	copy.patches = intern_cstr(log, ev->patches, &fail);
	if (fail)
		return err_oom(e);
	if (event_log_store(log, &copy) < 0)
		return err_oom(e);
	if (copy.kind == EVENT_UNKNOWN && copy.kind_name &&
	    event_log_count_unknown_kind(log, copy.kind_name, strlen(copy.kind_name), 1) < 0)
		return err_oom(e);
	return 0;
}

void event_log_set_run_info(struct event_log *log, const struct event_run_info *info)
{
	bool fail = false;
	log->run.instance_id = intern_cstr(log, info->instance_id, &fail);
	log->run.app_id = intern_cstr(log, info->app_id, &fail);
	log->run.workflow_name = intern_cstr(log, info->workflow_name, &fail);
	log->run.runtime_status = intern_cstr(log, info->runtime_status, &fail);
	log->run.project = intern_cstr(log, info->project, &fail);
	log->run.data_sharing_level = intern_cstr(log, info->data_sharing_level, &fail);
	log->run.data_sharing_field = intern_cstr(log, info->data_sharing_field, &fail);
	/* On allocation failure a field stays NULL: run info is advisory. */
}

/* ---- Payload texts (--show-payloads) ---------------------------------- */

static struct payload_text *text_slot(const struct payload_texts *t, uint64_t hash, size_t size)
{
	size_t j = hash & (t->cap - 1);
	while (t->slots[j].text && !(t->slots[j].hash == hash && t->slots[j].size == size))
		j = (j + 1) & (t->cap - 1);
	return &t->slots[j];
}

static int texts_grow(struct payload_texts *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64;
	struct payload_texts n = {
		.slots = table_alloc(ncap, sizeof *n.slots), .cap = ncap, .count = t->count, .on = t->on};
	if (!n.slots)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].text)
			*text_slot(&n, t->slots[i].hash, t->slots[i].size) = t->slots[i];
	free(t->slots);
	*t = n;
	return 0;
}

/* Adds v (a text in the log's pool, or one adopted with a pool) unless
 * one of its payload is there. */
static int texts_add(struct payload_texts *t, const struct payload_text *v)
{
	if ((t->count + 1) * 4 > t->cap * 3 && texts_grow(t) < 0)
		return -1;
	struct payload_text *s = text_slot(t, v->hash, v->size);
	if (!s->text) {
		*s = *v;
		t->count++;
	}
	return 0;
}

int event_log_keep_payload_text(struct event_log *log, const struct payload *p, const char *s, size_t len)
{
	struct payload_texts *t = &log->texts;
	t->on = true;
	if (p->state != PAYLOAD_PRESENT)
		return 0;
	if (t->cap && text_slot(t, p->hash, p->size)->text)
		return 0;
	/* Cut at a whole UTF-8 character: a cut one would print as garbage. */
	size_t keep = len;
	if (keep > EVENT_PAYLOAD_TEXT_MAX) {
		keep = EVENT_PAYLOAD_TEXT_MAX;
		while (keep > 0 && ((unsigned char)s[keep] & 0xC0u) == 0x80u)
			keep--;
	}
	const char *text = event_pool_store(&log->pool, s, keep);
	if (!text)
		return -1;
	struct payload_text v = {.hash = p->hash, .size = p->size, .text = text, .len = keep, .cut = keep < len};
	return texts_add(t, &v);
}

void event_log_set_keeps_payload_text(struct event_log *log)
{
	log->texts.on = true;
}

bool event_log_keeps_payload_text(const struct event_log *log)
{
	return log && log->texts.on;
}

const char *event_log_payload_text(const struct event_log *log, const struct payload *p, size_t *len, bool *cut)
{
	if (!log || !p || p->state != PAYLOAD_PRESENT || !log->texts.count)
		return NULL;
	const struct payload_text *s = text_slot(&log->texts, p->hash, p->size);
	if (!s->text)
		return NULL;
	if (len)
		*len = s->len;
	if (cut)
		*cut = s->cut;
	return s->text;
}

static void forward(struct event_pool *into, const char **s)
{
	/* On allocation failure the string stays where it is: from's pool is
	 * adopted whole, so it remains valid, merely not shared. */
	const char *f = *s ? event_pool_forward(into, *s) : NULL;
	if (f)
		*s = f;
}

int event_log_take(struct event_log *into, struct event_log *from)
{
	int rc = -1;
	size_t nb_into = nblocks(into), nb_from = nblocks(from);
	if (into->joined || from->joined) {
		/* Only one junction is supported (the parser makes one). */
		goto out;
	}
	if (from->count) {
		if (nb_into + nb_from > into->nblocks_cap) {
			size_t ncap = nb_into + nb_from;
			struct event_rec **nb = realloc(into->blocks, ncap * sizeof *nb);
			if (!nb)
				goto out;
			into->blocks = nb;
			into->nblocks_cap = ncap;
		}
		if (from->xn && xs_reserve(into, from->xn) < 0)
			goto out;
		struct event_pool *ip = &into->pool;
		for (size_t i = 0; i < from->count; i++) {
			struct event_rec *r = rec_at(from, i);
			/* The timestamp was stored, not interned: it comes along
			 * with the pool's chunks below. */
			forward(ip, &r->name);
			forward(ip, &r->task_execution_id);
			union xslot *x = from->xs ? from->xs + r->xoff : NULL;
			for (unsigned f = 0; x && f < X_COUNT; f++) {
				if (!(r->xmask & (1u << f)))
					continue;
				if (f == X_KIND_NAME || (f >= X_FIRE_AT && f <= X_CAUSE_MESSAGE))
					forward(ip, &x->s);
				x += f >= X_INPUT && f <= X_CUSTOM_STATUS ? 2 : 1;
			}
			r->xoff += (uint32_t)into->xn;
		}
		if (from->xn)
			memcpy(into->xs + into->xn, from->xs, from->xn * sizeof *from->xs);
		into->xn += from->xn;
		/* A log of up to 64 events has a short first block: events
		 * appended after the junction go on filling it. */
		if (from->count <= 64) {
			struct event_rec *full =
				realloc(from->blocks[0], EVENT_BLOCK_SIZE * sizeof(struct event_rec));
			if (!full)
				goto out;
			from->blocks[0] = full;
		}
		memcpy(into->blocks + nb_into, from->blocks, nb_from * sizeof *from->blocks);
		free(from->blocks);
		from->blocks = NULL;
		into->joined = true;
		into->join_at = into->count;
		into->join_block = nb_into;
		into->count += from->count;
		from->count = 0;
	}
	rc = 0;
	/* The texts stay in from's pool, which into adopts below. */
	if (from->texts.on)
		into->texts.on = true;
	for (size_t i = 0; i < from->texts.cap && rc == 0; i++)
		if (from->texts.slots[i].text)
			rc = texts_add(&into->texts, &from->texts.slots[i]);
	for (size_t i = 0; i < from->unknown_kinds.n && rc == 0; i++) {
		const struct event_count *c = &from->unknown_kinds.items[i];
		rc = counter_add(into, &into->unknown_kinds, c->name, strlen(c->name), c->count);
	}
	for (size_t i = 0; i < from->unknown_keys.n && rc == 0; i++) {
		const struct event_count *c = &from->unknown_keys.items[i];
		rc = counter_add(into, &into->unknown_keys, c->name, strlen(c->name), c->count);
	}
out:
	/* Strings moved into `into` may point into from's pool: keep it. */
	event_pool_adopt(&into->pool, &from->pool);
	event_log_free(from);
	return rc;
}

static const char *const kind_names[EVENT_KIND_COUNT] = {
	[EVENT_UNKNOWN] = "Unknown",
	[EVENT_EXECUTION_STARTED] = "ExecutionStarted",
	[EVENT_EXECUTION_COMPLETED] = "ExecutionCompleted",
	[EVENT_EXECUTION_TERMINATED] = "ExecutionTerminated",
	[EVENT_EXECUTION_SUSPENDED] = "ExecutionSuspended",
	[EVENT_EXECUTION_RESUMED] = "ExecutionResumed",
	[EVENT_EXECUTION_STALLED] = "ExecutionStalled",
	[EVENT_CONTINUE_AS_NEW] = "ContinueAsNew",
	[EVENT_WORKFLOW_STARTED] = "WorkflowStarted",
	[EVENT_WORKFLOW_COMPLETED] = "WorkflowCompleted",
	[EVENT_TASK_SCHEDULED] = "TaskScheduled",
	[EVENT_TASK_COMPLETED] = "TaskCompleted",
	[EVENT_TASK_FAILED] = "TaskFailed",
	[EVENT_TIMER_CREATED] = "TimerCreated",
	[EVENT_TIMER_FIRED] = "TimerFired",
	[EVENT_CHILD_CREATED] = "ChildWorkflowInstanceCreated",
	[EVENT_CHILD_COMPLETED] = "ChildWorkflowInstanceCompleted",
	[EVENT_CHILD_FAILED] = "ChildWorkflowInstanceFailed",
	[EVENT_EVENT_SENT] = "EventSent",
	[EVENT_EVENT_RAISED] = "EventRaised",
	[EVENT_GENERIC] = "GenericEvent",
	[EVENT_HISTORY_STATE] = "HistoryState",
	[EVENT_DETACHED_CREATED] = "DetachedWorkflowInstanceCreated",
};

const char *event_kind_name(enum event_kind k)
{
	if ((unsigned)k >= EVENT_KIND_COUNT)
		return "Unknown";
	return kind_names[k];
}

const char *payload_state_name(enum payload_state s)
{
	static const char *const names[] = {
		[PAYLOAD_ABSENT] = "absent",
		[PAYLOAD_NULL] = "null",
		[PAYLOAD_EMPTY] = "empty",
		[PAYLOAD_PRESENT] = "present",
	};
	return (unsigned)s < sizeof names / sizeof *names ? names[s] : "absent";
}
