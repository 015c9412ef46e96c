/* The history event model: a log of normalised events whose strings live in
 * an interning pool owned by the log. Events are stored in fixed-size blocks
 * so appending never copies what is already there (no realloc doubling of a
 * 300,000-event array) and nothing already stored moves. */
#include "event.h"
#include "event_internal.h"

#include <stdlib.h>
#include <string.h>

#define EVENT_BLOCK_SHIFT 10
#define EVENT_BLOCK_SIZE (1u << EVENT_BLOCK_SHIFT)

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
	uint64_t w = 0;
	memcpy(&w, s + i, len - i);
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
	struct pool_slot *t = calloc(ncap, sizeof *t);
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

const char *event_pool_intern(struct event_pool *p, const char *s, size_t len)
{
	if (!s)
		return NULL;
	if ((p->count + 1) * 4 > p->cap * 3 && pool_grow(p) < 0)
		return NULL;
	uint64_t h = hash_bytes(s, len);
	size_t j = h & (p->cap - 1);
	for (struct pool_str *c; (c = p->table[j].s); j = (j + 1) & (p->cap - 1)) {
		/* The hash sits in the table: most misses never touch the
		 * string itself. */
		if (p->table[j].hash == h && c->len == len && memcmp(c->text, s, len) == 0)
			return c->text;
	}
	struct pool_str *n = pool_alloc(p, len);
	if (!n)
		return NULL;
	n->len = len;
	n->forward = NULL;
	memcpy(n->text, s, len);
	n->text[len] = '\0';
	p->table[j].s = n;
	p->table[j].hash = h;
	p->count++;
	return n->text;
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
	struct pool_str *h = (struct pool_str *)(void *)(s - offsetof(struct pool_str, text));
	if (!h->forward)
		h->forward = event_pool_intern(into, h->text, h->len);
	return h->forward;
}

/* ------------------------------------------------------------------------ */

struct event_counter {
	struct event_count *items;
	size_t n, cap;
};

struct event_log {
	struct event **blocks;
	size_t nblocks_cap;
	size_t count;
	/* After a two-thread parse the second half's blocks are taken over
	 * as they are: events from join_at on start afresh in join_block. */
	bool joined;
	size_t join_at, join_block;
	enum event_dialect dialect;
	struct event_run_info run;
	struct event_counter unknown_kinds;
	struct event_counter unknown_keys;
	struct event_pool pool;
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

struct event_log *event_log_new(void)
{
	struct event_log *log = calloc(1, sizeof *log);
	if (!log)
		return NULL;
	event_pool_init(&log->pool);
	return log;
}

void event_log_free(struct event_log *log)
{
	if (!log)
		return;
	size_t nb = nblocks(log);
	for (size_t i = 0; i < nb; i++)
		free(log->blocks[i]);
	free(log->blocks);
	free(log->unknown_kinds.items);
	free(log->unknown_keys.items);
	event_pool_finish(&log->pool);
	free(log);
}

void event_log_drop_events(struct event_log *log)
{
	if (!log)
		return;
	size_t nb = nblocks(log);
	for (size_t i = 0; i < nb; i++)
		free(log->blocks[i]);
	free(log->blocks);
	log->blocks = NULL;
	log->nblocks_cap = 0;
	log->count = 0;
	log->joined = false;
	log->join_at = log->join_block = 0;
	/* The strings stay where they are; only finding them again by value
	 * needs the table, and a log without events interns nothing more. */
	free(log->pool.table);
	log->pool.table = NULL;
	log->pool.cap = log->pool.count = 0;
}

size_t event_log_count(const struct event_log *log)
{
	return log ? log->count : 0;
}

bool event_log_get(const struct event_log *log, size_t i, struct event *out)
{
	if (!log || i >= log->count)
		return false;
	size_t b, o;
	slot_of(log, i, &b, &o);
	*out = log->blocks[b][o];
	return true;
}

enum event_dialect event_log_dialect(const struct event_log *log)
{
	return log ? log->dialect : DIALECT_UNKNOWN;
}

void event_log_set_dialect(struct event_log *log, enum event_dialect d)
{
	log->dialect = d;
}

const char *event_dialect_name(enum event_dialect d)
{
	switch (d) {
	case DIALECT_CATALYST:
		return "catalyst";
	case DIALECT_PROTOJSON:
		return "protojson";
	case DIALECT_DAPR_CLI:
		return "dapr-cli";
	case DIALECT_UNKNOWN:
		break;
	}
	return "unknown";
}

const struct event_run_info *event_log_run_info(const struct event_log *log)
{
	return log ? &log->run : NULL;
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

struct event *event_log_push(struct event_log *log)
{
	size_t b, o;
	slot_of(log, log->count, &b, &o);
	if (o == 0) {
		if (b >= log->nblocks_cap) {
			size_t ncap = log->nblocks_cap ? log->nblocks_cap * 2 : 16;
			while (ncap <= b)
				ncap *= 2;
			struct event **nb = realloc(log->blocks, ncap * sizeof *nb);
			if (!nb)
				return NULL;
			log->blocks = nb;
			log->nblocks_cap = ncap;
		}
		log->blocks[b] = malloc(EVENT_BLOCK_SIZE * sizeof(struct event));
		if (!log->blocks[b])
			return NULL;
	}
	log->count++;
	return &log->blocks[b][o];
}

void event_log_pop(struct event_log *log)
{
	/* Only undoes the last push; frees its block if it was the first
	 * event in it. */
	log->count--;
	size_t b, o;
	slot_of(log, log->count, &b, &o);
	if (o == 0) {
		free(log->blocks[b]);
		log->blocks[b] = NULL;
	}
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
	if (fail)
		return err_set(e, ERR_INTERNAL, "out of memory interning event strings");
	struct event *slot = event_log_push(log);
	if (!slot)
		return err_set(e, ERR_INTERNAL, "out of memory appending event %zu", log->count);
	*slot = copy;
	if (copy.kind == EVENT_UNKNOWN && copy.kind_name &&
	    event_log_count_unknown_kind(log, copy.kind_name, strlen(copy.kind_name), 1) < 0)
		return err_set(e, ERR_INTERNAL, "out of memory counting unknown kinds");
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
			struct event **nb = realloc(into->blocks, ncap * sizeof *nb);
			if (!nb)
				goto out;
			into->blocks = nb;
			into->nblocks_cap = ncap;
		}
		struct event_pool *ip = &into->pool;
		for (size_t i = 0; i < from->count; i++) {
			size_t b, o;
			slot_of(from, i, &b, &o);
			struct event *ev = &from->blocks[b][o];
			/* timestamp and fire_at were stored, not interned: they
			 * come along with the pool's chunks below. */
			forward(ip, &ev->kind_name);
			forward(ip, &ev->name);
			forward(ip, &ev->task_execution_id);
			forward(ip, &ev->origin_id);
			forward(ip, &ev->instance_id);
			forward(ip, &ev->execution_id);
			forward(ip, &ev->retry_parent_instance_id);
			forward(ip, &ev->rerun_parent_instance_id);
			forward(ip, &ev->workflow_status);
			forward(ip, &ev->error_type);
			forward(ip, &ev->error_message);
		}
		/* Take the blocks over as they are: no copy, and no moment
		 * when both copies are held. */
		memcpy(into->blocks + nb_into, from->blocks, nb_from * sizeof *from->blocks);
		into->joined = true;
		into->join_at = into->count;
		into->join_block = nb_into;
		into->count += from->count;
		from->count = 0;
	}
	rc = 0;
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
};

const char *event_kind_name(enum event_kind k)
{
	if ((unsigned)k >= EVENT_KIND_COUNT)
		return "Unknown";
	return kind_names[k];
}
