/* The re-execution analysis, as history.md "A grouping procedure" describes:
 *
 * 1. One pass over the events in history order. Generations split at
 *    ExecutionStarted; every id map is keyed by (generation, id) because
 *    event ids restart at 0 in each generation. One attempt per
 *    TaskScheduled / ChildWorkflowInstanceCreated; results attach by
 *    task_scheduled_id only.
 * 2. Attempts are unioned (union-find, the root is always the earliest
 *    attempt) by non-empty task_execution_id, and by retry timers: a fired
 *    timer whose origin names attempt X links the next scheduling of X's
 *    name to X. Without any retry origin in the history (before Dapr 1.18)
 *    a timer created right after a failure plays that role, and the link is
 *    marked as inferred.
 * 3. Findings, withheld payloads, the data-sharing level and the limits are
 *    computed from the grouped attempts; every string a renderer prints is
 *    made here.
 *
 * Everything is hash maps and linear passes: a 300,000-event history takes
 * a few milliseconds. */

#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "buf.h"
#include "classify.h"

#define NONE SIZE_MAX
#define DEFAULT_PAYLOAD_LIMIT ((size_t)64 * 1024)
/* A schedule-to-result wait this long is worth naming next to the
 * crash-redelivery limit: a redelivery would hide inside it. */
#define LONG_GAP_MS (30 * 1000)
/* Id lists inside messages stay readable. */
#define LIST_MAX 8
#define QUOTE_MAX 160

/* ---------------------------------------------------------------------- */
/* Maps keyed by (generation, integer) and (generation, string). No
 * deletion, so linear probing stays simple. */

struct imap_slot {
	int64_t key;
	uint32_t tag; /* generation + 1; 0 = empty */
	uint32_t value;
};

struct imap {
	struct imap_slot *slots;
	size_t cap, count;
};

/* Keys are NUL-terminated: the hash covers the length, strcmp the rest. */
struct smap_slot {
	const char *key; /* NULL = empty */
	uint64_t hash;
	uint32_t gen;
	uint32_t value;
};

struct smap {
	struct smap_slot *slots;
	size_t cap, count;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/* Eight bytes a step, one multiply each, and one full mix at the end: ids
 * are 36-byte UUIDs hashed several times per attempt. The tail is the last
 * eight bytes (overlapping) when there are eight, so no short memcpy. */
static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ len;
	uint64_t w;
	if (len < 8) {
		w = 0;
		for (size_t i = 0; i < len; i++)
			w = w << 8 | (unsigned char)s[i];
		return mix64(h ^ w);
	}
	size_t i = 0;
	for (; i + 8 < len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
	}
	memcpy(&w, s + len - 8, 8);
	return mix64(h ^ w);
}

static void imap_free(struct imap *m)
{
	free(m->slots);
}

/* Where key starts probing. Ids come nearly dense and in order (event ids
 * count the actions of a generation), so 16 consecutive ids take 16
 * consecutive slots and only the blocks are spread: scheduling and then
 * matching results walk the table instead of missing the cache at every
 * attempt, as a fully mixed hash did on a large history. */
static size_t imap_start(uint32_t tag, int64_t key, size_t cap)
{
	uint64_t k = (uint64_t)key;
	return (size_t)((mix64((k >> 4) ^ mix64(tag)) << 4) | (k & 15)) & (cap - 1);
}

static int imap_grow(struct imap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct imap_slot *n = calloc(ncap, sizeof *n);
	if (!n)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		struct imap_slot *s = &m->slots[i];
		if (!s->tag)
			continue;
		size_t j = imap_start(s->tag, s->key, ncap);
		while (n[j].tag)
			j = (j + 1) & (ncap - 1);
		n[j] = *s;
	}
	free(m->slots);
	m->slots = n;
	m->cap = ncap;
	return 0;
}

static uint32_t *imap_find(const struct imap *m, uint32_t gen, int64_t key)
{
	if (!m->cap)
		return NULL;
	uint32_t tag = gen + 1;
	size_t j = imap_start(tag, key, m->cap);
	for (; m->slots[j].tag; j = (j + 1) & (m->cap - 1)) {
		if (m->slots[j].tag == tag && m->slots[j].key == key)
			return &m->slots[j].value;
	}
	return NULL;
}

/* Sets (or overwrites) the value. */
static int imap_put(struct imap *m, uint32_t gen, int64_t key, uint32_t value)
{
	if ((m->count + 1) * 2 > m->cap && imap_grow(m) < 0)
		return -1;
	uint32_t tag = gen + 1;
	size_t j = imap_start(tag, key, m->cap);
	for (; m->slots[j].tag; j = (j + 1) & (m->cap - 1)) {
		if (m->slots[j].tag == tag && m->slots[j].key == key) {
			m->slots[j].value = value;
			return 0;
		}
	}
	m->slots[j] = (struct imap_slot){.key = key, .tag = tag, .value = value};
	m->count++;
	return 0;
}

static size_t table_size(size_t n)
{
	size_t cap = 64;
	while (cap < n * 2 + 2)
		cap *= 2;
	return cap;
}

static int imap_reserve(struct imap *m, size_t n)
{
	size_t cap = table_size(n);
	if (!m->cap) {
		m->slots = calloc(cap, sizeof *m->slots);
		if (!m->slots)
			return -1;
		m->cap = cap;
		return 0;
	}
	while (m->cap < cap) {
		if (imap_grow(m) < 0)
			return -1;
	}
	return 0;
}

static void smap_free(struct smap *m)
{
	free(m->slots);
}

static int smap_grow(struct smap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct smap_slot *n = calloc(ncap, sizeof *n);
	if (!n)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		struct smap_slot *s = &m->slots[i];
		if (!s->key)
			continue;
		size_t j = mix64(s->hash ^ s->gen) & (ncap - 1);
		while (n[j].key)
			j = (j + 1) & (ncap - 1);
		n[j] = *s;
	}
	free(m->slots);
	m->slots = n;
	m->cap = ncap;
	return 0;
}

static struct smap_slot *smap_slot_find(const struct smap *m, uint32_t gen, const char *key, uint64_t h)
{
	if (!m->cap)
		return NULL;
	size_t j = mix64(h ^ gen) & (m->cap - 1);
	for (; m->slots[j].key; j = (j + 1) & (m->cap - 1)) {
		struct smap_slot *s = &m->slots[j];
		if (s->hash == h && s->gen == gen && (s->key == key || strcmp(s->key, key) == 0))
			return s;
	}
	return NULL;
}

static uint32_t *smap_find(const struct smap *m, uint32_t gen, const char *key)
{
	struct smap_slot *s = smap_slot_find(m, gen, key, hash_str(key, strlen(key)));
	return s ? &s->value : NULL;
}

static int smap_reserve(struct smap *m, size_t n)
{
	size_t cap = table_size(n);
	if (!m->cap) {
		m->slots = calloc(cap, sizeof *m->slots);
		if (!m->slots)
			return -1;
		m->cap = cap;
		return 0;
	}
	while (m->cap < cap) {
		if (smap_grow(m) < 0)
			return -1;
	}
	return 0;
}

/* Inserts when absent; returns the slot's value pointer (existing or new),
 * NULL on allocation failure. *fresh says which. */
static uint32_t *smap_get_or_put(struct smap *m, uint32_t gen, const char *key, uint32_t value, bool *fresh)
{
	uint64_t h = hash_str(key, strlen(key));
	struct smap_slot *s = smap_slot_find(m, gen, key, h);
	*fresh = false;
	if (s)
		return &s->value;
	if ((m->count + 1) * 2 > m->cap && smap_grow(m) < 0)
		return NULL;
	size_t j = mix64(h ^ gen) & (m->cap - 1);
	while (m->slots[j].key)
		j = (j + 1) & (m->cap - 1);
	m->slots[j] = (struct smap_slot){.key = key, .hash = h, .gen = gen, .value = value};
	m->count++;
	*fresh = true;
	return &m->slots[j].value;
}

/* ---------------------------------------------------------------------- */
/* Working state of one analysis. */

/* uint32_t indexes (history positions, attempts, timers, queues): the
 * history is under UINT32_MAX events (analysis_run checks), and there are
 * never more of any of these than events. */
#define NONE32 UINT32_MAX

enum link_flag {
	LINKED_EXEC = 1u << 0,    /* same task_execution_id / child instance id */
	LINKED_ORIGIN = 1u << 1,  /* a retry timer's origin or a retry parent */
	LINKED_PATTERN = 1u << 2, /* inferred: failure, timer, schedule */
};

/* What the analysis keeps of an attempt beside the attempt itself, in
 * history order. The attempts are scanned straight into the array that
 * becomes the analysis' attempt pool (grouped by invocation in place), so
 * there is no second copy of them: this is 40 bytes, an attempt 120. */
struct work_attempt {
	const char *name;
	uint32_t gen;
	uint32_t uf;       /* union-find parent; roots are the earliest attempt */
	uint32_t inv;      /* invocation index, after grouping */
	uint32_t dup_head; /* first duplicate result in work.dups, or NONE32 */
	uint32_t slot;     /* its place in the attempt array: i until grouped */
	uint32_t turn;     /* the orchestrator turn that scheduled it */
	uint8_t flags;     /* link_flag, meaningful on roots */
	uint8_t cause;     /* turn_cause flags of that turn's inputs */
	bool is_child;
	bool is_first; /* the invocation's first attempt, after grouping */
};

/* What a turn's new inputs (they come before its actions) held that makes
 * a call in it a re-call whatever its input: a timer that is not a retry
 * timer fired (the when_any(call, timer) race lost), or something failed. */
enum turn_cause {
	CAUSE_TIMER = 1u << 0,
	CAUSE_FAILURE = 1u << 1,
};

/* How an absent payload key reads, decided with the data-sharing level. */
enum payload_view {
	VIEW_WITHHELD = 0, /* metadata: removed by the level, cannot be compared */
	VIEW_VISIBLE,      /* full, or a non-Catalyst history carrying payloads: no payload */
	VIEW_ABSENT,       /* a non-Catalyst history with no payload at all */
	VIEW_UNKNOWN,      /* the level is not known */
};

struct work_timer {
	int64_t event_id;
	const char *origin_id;
	uint32_t index;
	uint32_t gen;
	uint32_t target;      /* the attempt this timer retries, or NONE32 */
	uint32_t fired_index; /* NONE32 until fired */
	uint32_t next_fire;   /* next timer with the same fire_at, in creation order */
	uint8_t origin;       /* enum timer_origin */
	bool retry;           /* a retry timer (by origin, or by pattern) */
	bool pattern;
	bool orphan;
	bool fired;
};

struct link_node {
	uint32_t target;
	uint32_t next;
	bool pattern;
};

struct queue {
	uint32_t head, tail;
};

struct dup {
	uint32_t index; /* position of the extra result */
	uint32_t next;  /* next duplicate of the same attempt */
};

struct pair {
	uint32_t group;
	uint32_t earlier, later; /* attempt indexes */
	uint8_t kind;            /* enum finding_kind */
	uint8_t cmp;             /* enum cmp of their inputs */
	bool never_resolved;     /* the earlier call never got a result */
	bool limit;              /* inputs not comparable: a limit, not a finding */
};

/* A (generation, name) group in history order. What turns before the
 * current one scheduled is what a new call is paired with; the current
 * turn's calls join it when the next turn begins. */
struct group_state {
	uint32_t n;
	uint32_t turn;       /* of the latest attempt */
	uint32_t max_end;    /* earlier turns: latest result position (NONE32: pending) */
	uint32_t holder;     /* the attempt with that result (NONE32: no earlier turn) */
	uint32_t last_first; /* earlier turns: the attempt that opened the latest invocation */
	uint32_t cur_max_end, cur_holder, cur_last_first; /* the same, for the current turn */
};

struct work {
	const struct event_log *log;
	const struct analysis_options *o;
	bool oom;

	struct attempt *att;     /* history order; grouped in place by build_invocations */
	struct work_attempt *wa; /* history order, n_att entries */
	size_t n_att;
	struct work_timer *tim;
	size_t n_tim;
	struct link_node *links;
	size_t n_links, cap_links;
	struct queue *queues;
	size_t n_queues, cap_queues;
	struct dup *dups;
	size_t n_dups, cap_dups;

	struct imap sched;      /* (gen, event_id) -> attempt */
	struct imap timers;     /* (gen, event_id) -> timer */
	struct smap exec;       /* (gen, task_execution_id) -> first attempt */
	struct smap child_inst; /* (gen, child instance id) -> first child attempt */
	struct smap fire;       /* (gen, fire_at) -> queue of timers */
	struct smap pend_task;  /* (gen, name) -> queue of pending retry links */
	struct smap pend_child;

	uint32_t gen;
	bool gen_started;
	const char *gen_execution_id;
	uint32_t turn; /* turns seen (WorkflowStarted, or inputs after actions) */
	/* Per invocation: a single call left without a result by a run that
	 * finished after a call scheduled in the same turn got its own (see
	 * find_race_losers); find_unresolved leaves these to the limits. */
	bool *race_loser;
	bool in_actions;       /* the turn's actions have begun */
	uint8_t turn_cause;    /* enum turn_cause of the current turn */
	uint32_t *failed_fifo; /* failures not yet followed by a timer (pattern) */
	size_t n_failed, failed_head, cap_failed;
	bool has_origins;

	/* Run facts, gathered by the scan: the events may be gone after it. */
	size_t n_events;
	size_t n_started;
	size_t n_continue_as_new;
	bool completed_seen;
	uint32_t completed_gen;
	const char *completed_status; /* of that ExecutionCompleted */
	bool completed_error;         /* it carries an error type or message */
	bool terminated;
	const char *first_workflow;   /* first ExecutionStarted name / instance id set */
	const char *first_started_at; /* and its timestamp */
	const char *first_instance;
	size_t n_unmatched_results;
	int64_t first_unmatched_tsid;
	size_t n_orphans;

	/* What data_sharing decides on, also gathered by the scan. */
	size_t ds_slots, ds_absent;
	size_t ds_first_present; /* NONE until a payload key is seen */
	enum withheld_field ds_first_field;
	enum event_kind ds_first_kind;
	enum data_sharing_level ds_given; /* by the options or a run field, else UNKNOWN */
	/* The withheld payloads, collected while they may be reported (the
	 * level is not full, or not known yet): the analysis' array if so. */
	struct withheld *wh;
	size_t n_wh, cap_wh;
	enum payload_view view; /* set by data_sharing */

	struct pair *pairs;
	size_t n_pairs, cap_pairs;

	const char *rerun_parent; /* this run reran that instance */

	/* Child creations that show no instance id (`dapr workflow history`
	 * prints none, nor a retry parent, nor a scheduled id on a child's
	 * failure): results and retry timers are paired with them by order,
	 * and the limits say so. */
	size_t n_child_no_id;
	uint32_t child_pend_n, child_pend_xor; /* child attempts of this generation without a result */
	size_t n_child_unpaired;               /* results naming no scheduled id, several children pending */
	uint32_t first_child_unpaired;

	bool cls_valid, cls_nr;
	const char *cls_type, *cls_msg, *cls_cause_type, *cls_cause_msg;
	enum failure_class cls;
};

/* Finding messages (~670 bytes each, one per finding: 19 MB for 28,000
 * findings) and evidence arrays are packed into blocks rather than left in
 * their growing buffers, which kept a third more than they used (and a
 * malloc header each). Blocks start small (a `runs` audit holds thousands
 * of analyses with a few findings each) and double up to TEXT_BLOCK_MAX. */
#define TEXT_BLOCK_MIN ((size_t)4 * 1024)
#define TEXT_BLOCK_MAX ((size_t)256 * 1024)

struct text_block {
	struct text_block *next;
	size_t used, cap;
	char data[];
};

/* The analysis and what it owns beyond the public fields. */
struct analysis_owned {
	struct analysis pub;
	struct attempt *attempt_pool;
	int64_t *timer_pool;
	char *status;
	struct text_block *texts; /* finding messages and evidence */
	size_t cap_limits, cap_limit_flags, cap_children;
};

/* size bytes aligned to align (a power of two, at most 8: data sits 24
 * bytes into a malloc'd block) in the analysis' blocks. */
static void *arena_alloc(struct text_block **head, size_t size, size_t align)
{
	struct text_block *b = *head;
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
	if (!b || at > b->cap || b->cap - at < size) {
		size_t cap = !b ? TEXT_BLOCK_MIN : b->cap < TEXT_BLOCK_MAX / 2 ? 2 * b->cap : TEXT_BLOCK_MAX;
		bool outsized = size > cap;
		if (outsized)
			cap = size;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		if (*head && outsized) {
			/* An outsized request gets its own block behind the current
			 * one, which keeps its free space. */
			b->next = (*head)->next;
			(*head)->next = b;
		} else {
			b->next = *head;
			*head = b;
		}
		at = 0;
	}
	b->used = at + size;
	return b->data + at;
}

/* A copy of s (len bytes, then a NUL) in the analysis' text blocks. */
static char *text_dup(struct text_block **head, const char *s, size_t len)
{
	char *t = arena_alloc(head, len + 1, 1);
	if (!t)
		return NULL;
	memcpy(t, s, len);
	t[len] = '\0';
	return t;
}

static void text_free(struct text_block *b)
{
	while (b) {
		struct text_block *next = b->next;
		free(b);
		b = next;
	}
}

static bool str_set(const char *s)
{
	return s && *s;
}

/* On failure (or after one) p comes back unchanged with *oom set, so that
 * `arr = grow(arr, ...)` never loses what is to be freed. */
static void *grow(void *p, size_t *cap, size_t need, size_t size, bool *oom)
{
	if (*oom)
		return p;
	if (need <= *cap)
		return p;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(p, ncap * size);
	if (!n) {
		*oom = true;
		return p;
	}
	*cap = ncap;
	return n;
}

#define PUSH(w, arr, n, cap) \
	((arr) = grow((arr), &(cap), (n) + 1, sizeof *(arr), &(w)->oom), (w)->oom ? NONE : (n)++)

static uint32_t uf_find(struct work_attempt *wa, uint32_t i)
{
	while (wa[i].uf != i) {
		wa[i].uf = wa[wa[i].uf].uf;
		i = wa[i].uf;
	}
	return i;
}

static void uf_union(struct work *w, uint32_t a, uint32_t b, unsigned flag)
{
	uint32_t ra = uf_find(w->wa, a), rb = uf_find(w->wa, b);
	if (ra == rb)
		return;
	if (rb < ra) {
		uint32_t t = ra;
		ra = rb;
		rb = t;
	}
	w->wa[rb].uf = ra;
	w->wa[ra].flags |= (uint8_t)(w->wa[rb].flags | flag);
}

static uint32_t queue_new(struct work *w)
{
	size_t q = PUSH(w, w->queues, w->n_queues, w->cap_queues);
	if (q == NONE)
		return NONE32;
	w->queues[q] = (struct queue){NONE32, NONE32};
	return (uint32_t)q;
}

/* Every value in the fire and pend_* maps is an index queue_new returned
 * (a fresh entry whose queue could not be made leaves w->oom set, which
 * ends the scan before anyone looks it up). The pointer is only good until
 * the next queue_new. */
static struct queue *queue_at(struct work *w, uint32_t q)
{
	assert(w->queues && q < w->n_queues);
	return &w->queues[q];
}

/* ---------------------------------------------------------------------- */
/* The pass over the events. */

static bool child_without_id(const struct work *w, uint32_t attempt)
{
	return w->wa[attempt].is_child && !str_set(w->att[attempt].instance_id);
}

static void failed_push(struct work *w, uint32_t attempt)
{
	/* With origins recorded the pattern is needed only for a child whose
	 * creation shows no instance id: its retry timer's origin names one. */
	if (w->has_origins && !child_without_id(w, attempt))
		return;
	w->failed_fifo = grow(w->failed_fifo, &w->cap_failed, w->n_failed + 1, sizeof *w->failed_fifo, &w->oom);
	if (w->oom)
		return;
	w->failed_fifo[w->n_failed++] = attempt;
}

/* The pattern link only joins a timer created in direct answer to a
 * failure: any other action in between ends the chance. */
static void failed_clear(struct work *w)
{
	w->n_failed = w->failed_head = 0;
}

static void add_attempt(struct work *w, uint32_t i, const struct event *ev, bool child)
{
	/* The first pass counted them: the arrays are sized. */
	assert(w->n_att < UINT32_MAX);
	uint32_t k = (uint32_t)w->n_att++;
	w->att[k] = (struct attempt){
		.event_index = i,
		.scheduled_id = ev->event_id,
		.scheduled_at = ev->timestamp,
		.task_execution_id = ev->task_execution_id,
		.instance_id = child ? ev->instance_id : NULL,
		.outcome = OUTCOME_PENDING,
		.result_index = ATTEMPT_NO_RESULT,
		.input = ev->input,
	};
	w->wa[k] = (struct work_attempt){
		.name = ev->name,
		.gen = w->gen,
		.is_child = child,
		.uf = k,
		.inv = NONE32,
		.dup_head = NONE32,
		.slot = k,
		.turn = w->turn,
		.cause = w->turn_cause,
	};
	failed_clear(w);
	if (child) {
		w->child_pend_n++;
		w->child_pend_xor ^= k;
		w->n_child_no_id += !str_set(ev->instance_id);
	}
	if (imap_put(&w->sched, w->gen, ev->event_id, k) < 0) {
		w->oom = true;
		return;
	}
	bool fresh;
	if (!child && str_set(ev->task_execution_id)) {
		uint32_t *v = smap_get_or_put(&w->exec, w->gen, ev->task_execution_id, k, &fresh);
		if (!v) {
			w->oom = true;
			return;
		}
		if (!fresh)
			uf_union(w, *v, k, LINKED_EXEC);
	}
	if (child && str_set(ev->retry_parent_instance_id)) {
		uint32_t *v = smap_find(&w->child_inst, w->gen, ev->retry_parent_instance_id);
		if (v)
			uf_union(w, *v, k, LINKED_ORIGIN);
	}
	/* A fired retry timer waiting for the next scheduling of this name. */
	if (str_set(ev->name)) {
		uint32_t *qv = smap_find(child ? &w->pend_child : &w->pend_task, w->gen, ev->name);
		struct queue *q = qv ? queue_at(w, *qv) : NULL;
		if (q && q->head != NONE32) {
			struct link_node *ln = &w->links[q->head];
			q->head = ln->next;
			if (q->head == NONE32)
				q->tail = NONE32;
			uf_union(w, ln->target, k, ln->pattern ? LINKED_PATTERN : LINKED_ORIGIN);
		}
	}
	if (child && str_set(ev->instance_id)) {
		uint32_t *v = smap_get_or_put(&w->child_inst, w->gen, ev->instance_id, k, &fresh);
		if (!v) {
			w->oom = true;
			return;
		}
		/* Python and Java retry a child under the same instance id. */
		if (!fresh)
			uf_union(w, *v, k, LINKED_EXEC);
	}
}

static void add_result(struct work *w, uint32_t i, const struct event *ev, bool child, bool failed)
{
	uint32_t only = NONE32;
	uint32_t *v;
	if (child && !ev->has_task_scheduled_id && ev->task_scheduled_id < 0) {
		/* The row names no scheduled id (nor the child): pair it only when
		 * one child of this generation is pending, which the count and
		 * the xor of the pending ones give without a search. */
		if (w->child_pend_n != 1) {
			if (!w->n_child_unpaired)
				w->first_child_unpaired = i;
			w->n_child_unpaired++;
			return;
		}
		only = w->child_pend_xor;
		v = &only;
	} else {
		v = imap_find(&w->sched, w->gen, ev->task_scheduled_id);
	}
	if (!v || w->wa[*v].is_child != child) {
		if (!w->n_unmatched_results)
			w->first_unmatched_tsid = ev->task_scheduled_id;
		w->n_unmatched_results++;
		return;
	}
	struct work_attempt *wa = &w->wa[*v];
	struct attempt *a = &w->att[*v];
	a->n_results++;
	if (a->n_results > 1) {
		size_t d = PUSH(w, w->dups, w->n_dups, w->cap_dups);
		if (d == NONE)
			return;
		w->dups[d] = (struct dup){.index = i, .next = NONE32};
		/* Append, keeping history order. */
		uint32_t *link = &wa->dup_head;
		while (*link != NONE32)
			link = &w->dups[*link].next;
		*link = (uint32_t)d;
		return;
	}
	a->result_index = i;
	a->completed_at = ev->timestamp;
	a->result_by_order = only != NONE32;
	if (child) {
		w->child_pend_n--;
		w->child_pend_xor ^= *v;
	}
	if (failed) {
		a->outcome = OUTCOME_FAILED;
		a->error_type = ev->error_type;
		a->error_message = ev->error_message;
		/* A cause with nothing to say is no cause: never shown empty. */
		if (str_set(ev->cause_type) || str_set(ev->cause_message)) {
			a->cause_type = ev->cause_type;
			a->cause_message = ev->cause_message;
			a->cause_depth = ev->cause_depth;
		}
		a->non_retriable = ev->has_non_retriable && ev->non_retriable;
		/* The same error repeats across attempts and the log interns
		 * strings: remember the last answer by pointer. */
		if (w->cls_valid && w->cls_type == ev->error_type && w->cls_msg == ev->error_message &&
		    w->cls_cause_type == a->cause_type && w->cls_cause_msg == a->cause_message &&
		    w->cls_nr == a->non_retriable) {
			a->failure = (uint8_t)w->cls;
		} else {
			w->cls = classify_failure_chain(ev->error_type, ev->error_message, a->cause_type,
							a->cause_message, a->non_retriable);
			a->failure = (uint8_t)w->cls;
			w->cls_valid = true;
			w->cls_type = ev->error_type;
			w->cls_msg = ev->error_message;
			w->cls_cause_type = a->cause_type;
			w->cls_cause_msg = a->cause_message;
			w->cls_nr = a->non_retriable;
		}
		failed_push(w, *v);
	} else {
		a->outcome = OUTCOME_COMPLETED;
		a->output = ev->output;
	}
}

static void add_timer(struct work *w, uint32_t i, const struct event *ev)
{
	assert(w->n_tim < UINT32_MAX);
	uint32_t k = (uint32_t)w->n_tim++;
	struct work_timer *t = &w->tim[k];
	*t = (struct work_timer){
		.index = i,
		.event_id = ev->event_id,
		.gen = w->gen,
		.origin = (uint8_t)ev->origin,
		.origin_id = ev->origin_id,
		.target = NONE32,
		.fired_index = NONE32,
		.next_fire = NONE32,
	};
	if (imap_put(&w->timers, w->gen, ev->event_id, k) < 0) {
		w->oom = true;
		return;
	}
	if (str_set(ev->fire_at)) {
		bool fresh;
		uint32_t *qv = smap_get_or_put(&w->fire, w->gen, ev->fire_at, NONE32, &fresh);
		if (!qv) {
			w->oom = true;
			return;
		}
		if (fresh) {
			uint32_t q = queue_new(w);
			if (q == NONE32)
				return;
			*qv = q;
		}
		struct queue *q = queue_at(w, *qv);
		if (q->tail == NONE32)
			q->head = k;
		else
			w->tim[q->tail].next_fire = k;
		q->tail = k;
	}
	if (ev->origin == ORIGIN_ACTIVITY_RETRY || ev->origin == ORIGIN_CHILD_RETRY) {
		t->retry = true;
		uint32_t *v = NULL;
		if (str_set(ev->origin_id))
			v = smap_find(ev->origin == ORIGIN_ACTIVITY_RETRY ? &w->exec : &w->child_inst, w->gen,
				      ev->origin_id);
		if (v) {
			t->target = *v;
		} else if (ev->origin == ORIGIN_CHILD_RETRY && w->n_child_no_id) {
			/* The creations show no instance id to match the origin
			 * against: the child failure this timer answers, by order. */
			if (w->failed_head < w->n_failed && child_without_id(w, w->failed_fifo[w->failed_head])) {
				t->target = w->failed_fifo[w->failed_head++];
				t->pattern = true;
			}
		} else {
			t->orphan = true;
			w->n_orphans++;
		}
		/* No clearing: with origins recorded the queue holds only failures
		 * of children without ids, each waiting for its own retry timer
		 * (two can fail in one turn, beside an activity's retry). */
		return;
	}
	if (ev->origin == ORIGIN_NONE && !w->has_origins && w->failed_head < w->n_failed) {
		t->retry = true;
		t->pattern = true;
		t->target = w->failed_fifo[w->failed_head++];
		return;
	}
	failed_clear(w);
}

static uint32_t match_timer(struct work *w, const struct event *ev)
{
	uint32_t *v;
	if (ev->has_timer_id && (v = imap_find(&w->timers, w->gen, ev->timer_id)) && !w->tim[*v].fired)
		return *v;
	if (str_set(ev->fire_at) && (v = smap_find(&w->fire, w->gen, ev->fire_at))) {
		struct queue *q = queue_at(w, *v);
		while (q->head != NONE32 && w->tim[q->head].fired)
			q->head = w->tim[q->head].next_fire;
		if (q->head != NONE32)
			return q->head;
	}
	/* protojson omits a zero timerId: the timer of event 0. */
	if (!ev->has_timer_id && (v = imap_find(&w->timers, w->gen, 0)) && !w->tim[*v].fired)
		return *v;
	return NONE32;
}

static void fire_timer(struct work *w, uint32_t i, const struct event *ev)
{
	uint32_t k = match_timer(w, ev);
	if (k == NONE32)
		return;
	struct work_timer *t = &w->tim[k];
	t->fired = true;
	t->fired_index = i;
	if (!t->retry)
		w->turn_cause |= CAUSE_TIMER;
	if (t->target == NONE32)
		return;
	const struct work_attempt *target = &w->wa[t->target];
	if (!str_set(target->name))
		return;
	bool fresh;
	uint32_t *qv = smap_get_or_put(target->is_child ? &w->pend_child : &w->pend_task, w->gen, target->name,
				       NONE32, &fresh);
	if (!qv) {
		w->oom = true;
		return;
	}
	if (fresh) {
		uint32_t q = queue_new(w);
		if (q == NONE32)
			return;
		*qv = q;
	}
	size_t n = PUSH(w, w->links, w->n_links, w->cap_links);
	if (n == NONE)
		return;
	w->links[n] = (struct link_node){.target = t->target, .pattern = t->pattern, .next = NONE32};
	/* Take the queue again: queue_new may have moved the array. */
	struct queue *q = queue_at(w, *qv);
	if (q->tail == NONE32)
		q->head = (uint32_t)n;
	else
		w->links[q->tail].next = (uint32_t)n;
	q->tail = (uint32_t)n;
}

static void start_execution(struct work *w, const struct event *ev)
{
	/* The same ExecutionStarted seen twice is one generation. */
	bool same = w->gen_started && str_set(ev->execution_id) && str_set(w->gen_execution_id) &&
		    strcmp(ev->execution_id, w->gen_execution_id) == 0;
	if (w->gen_started && !same) {
		w->gen++;
		w->child_pend_n = w->child_pend_xor = 0;
	}
	w->gen_started = true;
	w->gen_execution_id = ev->execution_id;
	w->n_started++;
	if (!w->rerun_parent && str_set(ev->rerun_parent_instance_id))
		w->rerun_parent = ev->rerun_parent_instance_id;
	if (!w->first_workflow && str_set(ev->name))
		w->first_workflow = ev->name;
	if (!w->first_started_at && str_set(ev->timestamp))
		w->first_started_at = ev->timestamp;
	if (!w->first_instance && str_set(ev->instance_id))
		w->first_instance = ev->instance_id;
	failed_clear(w);
}

static bool carries_payload(const struct event *ev, enum withheld_field *field, const struct payload **p)
{
	switch (ev->kind) {
	case EVENT_EXECUTION_STARTED:
	case EVENT_TASK_SCHEDULED:
	case EVENT_CHILD_CREATED:
	case EVENT_EVENT_SENT:
	case EVENT_EVENT_RAISED:
		*field = WITHHELD_INPUT;
		*p = &ev->input;
		return true;
	case EVENT_TASK_COMPLETED:
	case EVENT_CHILD_COMPLETED:
		*field = WITHHELD_OUTPUT;
		*p = &ev->output;
		return true;
	case EVENT_EXECUTION_COMPLETED: {
		/* Only a completed run has a result to withhold. */
		const char *st = ev->workflow_status;
		if (str_set(ev->error_type) || str_set(ev->error_message))
			return false;
		if (str_set(st) && !strcasestr(st, "COMPLETED"))
			return false;
		*field = WITHHELD_OUTPUT;
		*p = &ev->output;
		return true;
	}
	default:
		return false;
	}
}

static enum data_sharing_level level_from_text(const char *s)
{
	if (!s)
		return SHARING_UNKNOWN;
	if (strcasestr(s, "full"))
		return SHARING_FULL;
	if (strcasestr(s, "metadata"))
		return SHARING_METADATA;
	return SHARING_UNKNOWN;
}

/* The payload facts of event i (read whole), as data_sharing needs them:
 * the slots that would carry a payload, how many are withheld, and the
 * first payload key seen anywhere. */
static void sharing_note(struct work *w, size_t i, const struct event *ev)
{
	enum withheld_field field;
	const struct payload *p;
	size_t was = w->ds_first_present;
	if (carries_payload(ev, &field, &p)) {
		w->ds_slots++;
		if (p->state == PAYLOAD_ABSENT) {
			w->ds_absent++;
			if (w->wh) {
				/* Sized by the first pass for every event of a kind
				 * that may carry a payload. */
				assert(w->n_wh < w->cap_wh);
				w->wh[w->n_wh++] = (struct withheld){
					.event_id = ev->event_id,
					.kind = (uint8_t)ev->kind,
					.field = (uint8_t)field,
					.event_index = (uint32_t)i,
				};
			}
		} else if (w->ds_first_present == NONE) {
			w->ds_first_present = i;
			w->ds_first_field = field;
		}
	} else if (w->ds_first_present == NONE) {
		/* A payload key on any other event shows the level too. */
		if (ev->input.state != PAYLOAD_ABSENT) {
			w->ds_first_present = i;
			w->ds_first_field = WITHHELD_INPUT;
		} else if (ev->output.state != PAYLOAD_ABSENT) {
			w->ds_first_present = i;
			w->ds_first_field = WITHHELD_OUTPUT;
		}
	}
	if (w->ds_first_present == NONE && ev->custom_status.state != PAYLOAD_ABSENT) {
		w->ds_first_present = i;
		w->ds_first_field = WITHHELD_CUSTOM_STATUS;
	}
	if (was == NONE && w->ds_first_present != NONE) {
		w->ds_first_kind = ev->kind;
		/* Inferred full: nothing is withheld. */
		if (w->ds_given == SHARING_UNKNOWN) {
			free(w->wh);
			w->wh = NULL;
			w->n_wh = w->cap_wh = 0;
		}
	}
}

/* Kinds whose events the main pass reads whole: the scan's, and those
 * that may carry a payload (carries_payload). Before the first payload key
 * is found every event is read, for data_sharing. */
static bool kind_read(enum event_kind k)
{
	switch (k) {
	case EVENT_EXECUTION_STARTED:
	case EVENT_EXECUTION_COMPLETED:
	case EVENT_TASK_SCHEDULED:
	case EVENT_TASK_COMPLETED:
	case EVENT_TASK_FAILED:
	case EVENT_TIMER_CREATED:
	case EVENT_TIMER_FIRED:
	case EVENT_CHILD_CREATED:
	case EVENT_CHILD_COMPLETED:
	case EVENT_CHILD_FAILED:
	case EVENT_EVENT_SENT:
	case EVENT_EVENT_RAISED:
		return true;
	default:
		return false;
	}
}

static bool kind_may_carry(enum event_kind k)
{
	switch (k) {
	case EVENT_EXECUTION_STARTED:
	case EVENT_TASK_SCHEDULED:
	case EVENT_CHILD_CREATED:
	case EVENT_EVENT_SENT:
	case EVENT_EVENT_RAISED:
	case EVENT_TASK_COMPLETED:
	case EVENT_CHILD_COMPLETED:
	case EVENT_EXECUTION_COMPLETED:
		return true;
	default:
		return false;
	}
}

/* Turns, as durabletask writes them (backend/orchestration.go applyWorkItem,
 * then runtimestate.Applier.Actions): WorkflowStarted, the work item's new
 * events (results, fired timers, raised events, ExecutionStarted, ...),
 * then the actions the code produced (TaskScheduled, TimerCreated,
 * ChildWorkflowInstanceCreated, EventSent, ExecutionCompleted). An input
 * after an action also starts a turn, so a history without WorkflowStarted
 * rows still splits; kinds that are neither (unknown ones) split nothing. */
static void turn_note(struct work *w, enum event_kind k)
{
	bool starts;
	switch (k) {
	case EVENT_WORKFLOW_STARTED:
	case EVENT_WORKFLOW_COMPLETED:
		starts = true;
		break;
	case EVENT_TASK_SCHEDULED:
	case EVENT_TIMER_CREATED:
	case EVENT_CHILD_CREATED:
	case EVENT_EVENT_SENT:
	case EVENT_EXECUTION_COMPLETED:
		w->in_actions = true;
		return;
	case EVENT_TASK_COMPLETED:
	case EVENT_TASK_FAILED:
	case EVENT_TIMER_FIRED:
	case EVENT_CHILD_COMPLETED:
	case EVENT_CHILD_FAILED:
	case EVENT_EVENT_RAISED:
	case EVENT_EXECUTION_STARTED:
	case EVENT_EXECUTION_TERMINATED:
	case EVENT_EXECUTION_SUSPENDED:
	case EVENT_EXECUTION_RESUMED:
		starts = w->in_actions;
		break;
	default:
		return;
	}
	if (starts) {
		w->turn++;
		w->in_actions = false;
		w->turn_cause = 0;
	}
	if (k == EVENT_TASK_FAILED || k == EVENT_CHILD_FAILED)
		w->turn_cause |= CAUSE_FAILURE;
}

static void scan(struct work *w)
{
	size_t n = w->n_events;
	size_t n_att = 0, n_tim = 0, n_carry = 0;
	/* First pass: sizes, by kind (a timer's origin needs the event). */
	for (size_t i = 0; i < n; i++) {
		enum event_kind k = event_log_kind(w->log, i);
		if (k == EVENT_TASK_SCHEDULED || k == EVENT_CHILD_CREATED)
			n_att++;
		n_carry += kind_may_carry(k);
		if (k != EVENT_TIMER_CREATED)
			continue;
		n_tim++;
		if (!w->has_origins) {
			struct event ev;
			event_log_get(w->log, i, &ev);
			if (ev.origin == ORIGIN_ACTIVITY_RETRY || ev.origin == ORIGIN_CHILD_RETRY)
				w->has_origins = true;
		}
	}
	/* Sized once: growing and rehashing was most of the pass, and
	 * doubling arrays kept up to half of them unused. */
	if (imap_reserve(&w->sched, n_att) < 0 || smap_reserve(&w->exec, n_att) < 0 ||
	    imap_reserve(&w->timers, n_tim) < 0 || smap_reserve(&w->fire, n_tim) < 0) {
		w->oom = true;
		return;
	}
	w->att = malloc((n_att ? n_att : 1) * sizeof *w->att);
	w->wa = malloc((n_att ? n_att : 1) * sizeof *w->wa);
	w->tim = malloc((n_tim ? n_tim : 1) * sizeof *w->tim);
	if (!w->att || !w->wa || !w->tim) {
		w->oom = true;
		return;
	}
	/* Withheld payloads are listed unless the level is known to be full;
	 * pages of the array never written are never touched. */
	if (w->ds_given != SHARING_FULL && n_carry &&
	    (w->ds_given != SHARING_UNKNOWN || (w->o && w->o->catalyst_source))) {
		w->wh = malloc(n_carry * sizeof *w->wh);
		if (!w->wh) {
			w->oom = true;
			return;
		}
		w->cap_wh = n_carry;
	}
	for (size_t i = 0; i < n && !w->oom; i++) {
		enum event_kind k = event_log_kind(w->log, i);
		turn_note(w, k);
		if (!kind_read(k) && w->ds_first_present != NONE) {
			/* Kinds seen only for their kind. */
			if (k == EVENT_EXECUTION_TERMINATED) {
				w->terminated = true;
				w->completed_gen = w->gen;
			} else if (k == EVENT_CONTINUE_AS_NEW) {
				w->n_continue_as_new++;
			}
			continue;
		}
		struct event evb;
		event_log_get(w->log, i, &evb);
		const struct event *ev = &evb;
		uint32_t at = (uint32_t)i;
		sharing_note(w, i, ev);
		switch (ev->kind) {
		case EVENT_EXECUTION_STARTED:
			start_execution(w, ev);
			break;
		case EVENT_TASK_SCHEDULED:
			add_attempt(w, at, ev, false);
			break;
		case EVENT_CHILD_CREATED:
			add_attempt(w, at, ev, true);
			break;
		case EVENT_TASK_COMPLETED:
			add_result(w, at, ev, false, false);
			break;
		case EVENT_TASK_FAILED:
			add_result(w, at, ev, false, true);
			break;
		case EVENT_CHILD_COMPLETED:
			add_result(w, at, ev, true, false);
			break;
		case EVENT_CHILD_FAILED:
			add_result(w, at, ev, true, true);
			break;
		case EVENT_TIMER_CREATED:
			add_timer(w, at, ev);
			break;
		case EVENT_TIMER_FIRED:
			fire_timer(w, at, ev);
			break;
		case EVENT_EXECUTION_COMPLETED:
			w->completed_seen = true;
			w->completed_gen = w->gen;
			w->completed_status = ev->workflow_status;
			w->completed_error = str_set(ev->error_type) || str_set(ev->error_message);
			failed_clear(w);
			break;
		case EVENT_EXECUTION_TERMINATED:
			w->terminated = true;
			w->completed_gen = w->gen;
			break;
		case EVENT_CONTINUE_AS_NEW:
			w->n_continue_as_new++;
			break;
		case EVENT_EVENT_SENT:
			failed_clear(w);
			break;
		default:
			break;
		}
	}
}

/* ---------------------------------------------------------------------- */
/* Small string helpers. */

/* Messages are built in a struct buf: a finding's buffer is lent by its
 * context and given back by finish_message, so the ~670-byte messages of a
 * large history cost no allocation each. Out of memory sets *oom, which
 * every step checks. */
struct sb {
	struct buf b;
	bool *oom;
};

static void sb_init(struct sb *s, bool *oom)
{
	buf_init(&s->b, 0);
	s->oom = oom;
}

static void sb_put(struct sb *s, const char *p, size_t n)
{
	if (!*s->oom && buf_append(&s->b, p, n, NULL) < 0)
		*s->oom = true;
}

static void sb_put_u64(struct sb *s, uint64_t v)
{
	char tmp[20];
	char *p = tmp + sizeof tmp;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_put(s, p, (size_t)(tmp + sizeof tmp - p));
}

static void sb_put_i64(struct sb *s, int64_t v)
{
	if (v < 0) {
		sb_put(s, "-", 1);
		sb_put_u64(s, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_put_u64(s, (uint64_t)v);
	}
}

/* The conversions the messages use (%s, %.*s, %d, %u, %zu and the l/ll
 * forms PRId64 expands to) are formatted here: vsnprintf cost ~900
 * instructions a call, a third of the analysis. Anything else, and a NULL
 * string, goes to vsnprintf so the text is always exactly printf's. */
static bool sb_format(struct sb *s, const char *fmt, va_list ap)
{
	const char *p = fmt;
	for (;;) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			sb_put(s, p, strlen(p));
			return true;
		}
		sb_put(s, p, (size_t)(pct - p));
		p = pct + 1;
		if (*p == '%') {
			sb_put(s, "%", 1);
			p++;
		} else if (*p == 's') {
			const char *a = va_arg(ap, const char *);
			if (!a)
				return false;
			sb_put(s, a, strlen(a));
			p++;
		} else if (p[0] == '.' && p[1] == '*' && p[2] == 's') {
			int prec = va_arg(ap, int);
			const char *a = va_arg(ap, const char *);
			if (!a || prec < 0)
				return false;
			sb_put(s, a, strnlen(a, (size_t)prec));
			p += 3;
		} else if (*p == 'd') {
			sb_put_i64(s, va_arg(ap, int));
			p++;
		} else if (*p == 'u') {
			sb_put_u64(s, va_arg(ap, unsigned));
			p++;
		} else if (p[0] == 'z' && p[1] == 'u') {
			sb_put_u64(s, va_arg(ap, size_t));
			p += 2;
		} else if (p[0] == 'l' && p[1] == 'd') {
			sb_put_i64(s, va_arg(ap, long));
			p += 2;
		} else if (p[0] == 'l' && p[1] == 'u') {
			sb_put_u64(s, va_arg(ap, unsigned long));
			p += 2;
		} else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'd') {
			sb_put_i64(s, va_arg(ap, long long));
			p += 3;
		} else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'u') {
			sb_put_u64(s, va_arg(ap, unsigned long long));
			p += 3;
		} else {
			return false;
		}
	}
}

static void sb_printf(struct sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sb *s, const char *fmt, ...)
{
	if (*s->oom)
		return;
	size_t start = s->b.len;
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	bool done = sb_format(s, fmt, ap);
	va_end(ap);
	if (!done && !*s->oom) {
		/* What sb_format wrote of this call is dropped: printf redoes it. */
		s->b.len = start;
		if (s->b.data)
			s->b.data[start] = '\0';
		char *text = NULL;
		if (vasprintf(&text, fmt, again) < 0)
			*s->oom = true;
		else
			sb_put(s, text, strlen(text));
		free(text);
	}
	va_end(again);
}

static char *sb_steal(struct sb *s)
{
	if (*s->oom) {
		buf_finish(&s->b);
		return NULL;
	}
	return buf_steal(&s->b, NULL);
}

/* Server text quoted into a message: cut at a UTF-8 boundary. */
static void sb_quote(struct sb *s, const char *text)
{
	if (!text) {
		sb_printf(s, "(no message)");
		return;
	}
	size_t len = strlen(text);
	if (len <= QUOTE_MAX) {
		sb_printf(s, "\"%s\"", text);
		return;
	}
	size_t cut = QUOTE_MAX;
	while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80)
		cut--;
	sb_printf(s, "\"%.*s...\"", (int)cut, text);
}

/* A type is a short name; a hostile one is cut like a message. */
static void sb_type(struct sb *s, const char *type)
{
	if (!str_set(type))
		return;
	size_t cut = strlen(type);
	if (cut > QUOTE_MAX) {
		cut = QUOTE_MAX;
		while (cut > 0 && ((unsigned char)type[cut] & 0xC0) == 0x80)
			cut--;
	}
	sb_printf(s, "%.*s%s ", (int)cut, type, type[cut] ? "..." : "");
}

static void sb_error(struct sb *s, const struct attempt *a)
{
	sb_type(s, a->error_type);
	sb_quote(s, a->error_message);
	/* The class was decided on the innermost cause: name it. */
	if (a->cause_type || a->cause_message) {
		sb_printf(s, " (innermost cause: ");
		sb_type(s, a->cause_type);
		sb_quote(s, a->cause_message);
		sb_printf(s, ")");
	}
}

static const char *or_none(const char *s)
{
	return str_set(s) ? s : "(none)";
}

/* ---------------------------------------------------------------------- */
/* Findings. */

struct finding_build {
	struct finding f;
	uint32_t anchor; /* history position that orders findings */
	uint32_t seq;
};

/* One piece of evidence: a position, and the event id when the event is an
 * action (TaskScheduled, ChildWorkflowInstanceCreated, TimerCreated), -1
 * otherwise. Carried along so that no event is read again once the scan is
 * done. */
struct evidence {
	uint32_t index;
	int64_t id;
};

struct findings {
	struct finding_build *v;
	size_t n, cap;
	bool *oom;
	/* The evidence of the finding being built (one at a time), reused. */
	struct evidence *ev;
	size_t n_ev, cap_ev;
};

static struct finding_build *finding_new(struct findings *fs, enum finding_kind kind, const char *activity,
					 const char *exec_id, uint32_t anchor)
{
	fs->v = grow(fs->v, &fs->cap, fs->n + 1, sizeof *fs->v, fs->oom);
	if (*fs->oom)
		return NULL;
	struct finding_build *b = &fs->v[fs->n];
	*b = (struct finding_build){
		.f =
			{
				.kind = kind,
				.severity = finding_kind_severity(kind),
				.activity = activity,
				.task_execution_id = exec_id,
			},
		.anchor = anchor,
		.seq = (uint32_t)fs->n,
	};
	fs->n++;
	fs->n_ev = 0;
	return b;
}

/* Adds the event at position idx (id: its event id when it is an action,
 * else -1) as evidence of the finding being built. Sorted, deduplicated and
 * stored once the finding is complete (evidence_finish). */
static void evidence_add(struct findings *fs, struct finding_build *b, uint32_t idx, int64_t id)
{
	if (*fs->oom || !b || idx == NONE32)
		return;
	fs->ev = grow(fs->ev, &fs->cap_ev, fs->n_ev + 1, sizeof *fs->ev, fs->oom);
	if (*fs->oom)
		return;
	fs->ev[fs->n_ev++] = (struct evidence){.index = idx, .id = id};
}

static int cmp_evidence(const void *pa, const void *pb)
{
	uint32_t a = ((const struct evidence *)pa)->index, b = ((const struct evidence *)pb)->index;
	return a < b ? -1 : a > b;
}

/* Positions in history order, each once; the event ids of the actions among
 * them (only actions own an event id: a result's is -1 or missing). Both
 * arrays exactly sized, in the analysis' blocks. */
static int evidence_finish(struct findings *fs, struct finding *f, struct text_block **arena)
{
	size_t n = fs->n_ev;
	fs->n_ev = 0;
	if (!n)
		return 0;
	struct evidence *ev = fs->ev;
	/* Evidence is mostly added in history order (a repeated call's
	 * hundreds of calls always are), and otherwise a handful of entries:
	 * a check or an insertion sort, where qsort cost thousands of
	 * instructions a finding. */
	size_t sorted = 1;
	while (sorted < n && ev[sorted - 1].index <= ev[sorted].index)
		sorted++;
	if (sorted == n) {
		/* nothing to do */
	} else if (n <= 32) {
		for (size_t i = 1; i < n; i++) {
			struct evidence x = ev[i];
			size_t j = i;
			for (; j > 0 && ev[j - 1].index > x.index; j--)
				ev[j] = ev[j - 1];
			ev[j] = x;
		}
	} else {
		qsort(ev, n, sizeof *ev, cmp_evidence);
	}
	size_t u = 0, n_ids = 0;
	for (size_t i = 0; i < n; i++) {
		if (u == 0 || ev[u - 1].index != ev[i].index) {
			ev[u++] = ev[i];
			n_ids += ev[i].id >= 0;
		}
	}
	f->evidence_event_indexes = arena_alloc(arena, u * sizeof *f->evidence_event_indexes, _Alignof(uint32_t));
	f->evidence_event_ids =
		n_ids ? arena_alloc(arena, n_ids * sizeof *f->evidence_event_ids, _Alignof(int64_t)) : NULL;
	if (!f->evidence_event_indexes || (n_ids && !f->evidence_event_ids))
		return -1;
	for (size_t i = 0; i < u; i++) {
		f->evidence_event_indexes[i] = ev[i].index;
		if (ev[i].id >= 0 && f->evidence_event_ids)
			f->evidence_event_ids[f->n_evidence++] = ev[i].id;
	}
	f->n_evidence_event_indexes = u;
	return 0;
}

struct ctx {
	struct work *w;
	struct analysis_owned *ao;
	struct findings fs;
	struct text_block **texts; /* where messages and evidence go */
	struct buf msg;            /* the message buffer msg_init lends */
	struct buf sum;            /* and the summary's */
	size_t payload_limit;
	char *sharing_phrase; /* "metadata, inferred: ..." for messages */
	/* Run-specific limits find_pairs makes (calls whose inputs could not
	 * be compared), handed to the analysis' limits by limits(). */
	char **run_limits;
	size_t n_run_limits, cap_run_limits;
};

/* An attempt's own schedule as evidence. */
static void evidence_attempt(struct ctx *c, struct finding_build *b, const struct attempt *a)
{
	evidence_add(&c->fs, b, a->event_index, a->scheduled_id);
}

/* An attempt's result (or a duplicate one) as evidence: results own no id. */
static void evidence_result(struct ctx *c, struct finding_build *b, uint32_t idx)
{
	evidence_add(&c->fs, b, idx, -1);
}

/* Attempt i in history order, wherever grouping put it. */
static const struct attempt *att_at(const struct work *w, size_t i)
{
	return &w->att[w->wa[i].slot];
}

static void sb_id_list(struct sb *s, const struct attempt *at, size_t n)
{
	for (size_t i = 0; i < n && i < LIST_MAX; i++)
		sb_printf(s, "%s%" PRId64, i ? ", " : "", at[i].scheduled_id);
	if (n > LIST_MAX)
		sb_printf(s, " and %zu more", n - LIST_MAX);
}

/* Positions of an invocation's retry timers (created and fired). */
static void evidence_timers(struct ctx *c, struct finding_build *b, const struct invocation *inv)
{
	struct work *w = c->w;
	for (size_t i = 0; b && i < inv->n_retry_timers; i++) {
		uint32_t *k = imap_find(&w->timers, inv->generation, inv->retry_timer_event_ids[i]);
		if (!k)
			continue;
		evidence_add(&c->fs, b, w->tim[*k].index, w->tim[*k].event_id);
		evidence_add(&c->fs, b, w->tim[*k].fired_index, -1);
	}
}

/* The invocation's execution ids: one when stable, else the distinct ones. */
static bool exec_id_stable(const struct invocation *inv)
{
	const char *first = inv->attempts[0].task_execution_id;
	if (!str_set(first))
		return false;
	for (size_t i = 1; i < inv->n_attempts; i++) {
		const char *x = inv->attempts[i].task_execution_id;
		if (!str_set(x) || strcmp(x, first) != 0)
			return false;
	}
	return true;
}

static void sb_key_remedy(struct sb *s, const struct invocation *inv)
{
	if (exec_id_stable(inv)) {
		sb_printf(s,
			  "Key the side effect on task_execution_id %s (stable across retries) or on a "
			  "natural key from the input, never on a value generated inside the activity "
			  "or on the per-attempt task_scheduled_id, and make the write itself "
			  "conditional on that key (unique constraint, upsert, conditional put, "
			  "provider idempotency key).",
			  inv->attempts[0].task_execution_id);
	} else if (inv->n_attempts > 1 && str_set(inv->attempts[0].task_execution_id)) {
		sb_printf(s, "Key the side effect on a natural key from the input: here each attempt has "
			     "its own task_execution_id (as the .NET SDK does), so neither it nor the "
			     "per-attempt task_scheduled_id is stable across retries; make the write "
			     "itself conditional on that key (unique constraint, upsert, conditional put, "
			     "provider idempotency key).");
	} else {
		sb_printf(s, "Key the side effect on a natural key from the input (this invocation has "
			     "no usable task_execution_id), never on a value generated inside the "
			     "activity or on the per-attempt task_scheduled_id, and make the write itself "
			     "conditional on that key (unique constraint, upsert, conditional put, "
			     "provider idempotency key).");
	}
}

static void sb_link(struct sb *s, const struct invocation *inv)
{
	switch (inv->link) {
	case LINK_EXECUTION_ID:
		if (inv->is_child_workflow)
			sb_printf(s, "under the same instance id %s", or_none(inv->attempts[0].instance_id));
		else
			sb_printf(s, "under task_execution_id %s", or_none(inv->task_execution_id));
		break;
	case LINK_TIMER_ORIGIN:
		sb_printf(s, "linked by %s",
			  inv->is_child_workflow ? "their retry parent or retry timer origin"
						 : "their retry timer's origin key");
		if (!inv->is_child_workflow && !exec_id_stable(inv)) {
			sb_printf(s, " across task_execution_ids ");
			for (size_t i = 0; i < inv->n_attempts && i < LIST_MAX; i++)
				sb_printf(s, "%s%s", i ? ", " : "", or_none(inv->attempts[i].task_execution_id));
			if (inv->n_attempts > LIST_MAX)
				sb_printf(s, " and %zu more", (size_t)inv->n_attempts - LIST_MAX);
		}
		break;
	case LINK_PATTERN:
		sb_printf(s, "linked by inference only (failure, timer, then a new schedule of the "
			     "same name; this history records no retry origin)");
		break;
	case LINK_SINGLE:
		break;
	}
}

static void sb_timers(struct sb *s, const struct invocation *inv)
{
	if (!inv->n_retry_timers)
		return;
	sb_printf(s, "; retry timer%s ", inv->n_retry_timers > 1 ? "s" : "");
	for (size_t i = 0; i < inv->n_retry_timers && i < LIST_MAX; i++)
		sb_printf(s, "%s%" PRId64, i ? ", " : "", inv->retry_timer_event_ids[i]);
	if (inv->n_retry_timers > LIST_MAX)
		sb_printf(s, " and %zu more", (size_t)inv->n_retry_timers - LIST_MAX);
}

/* A finding's message and summary buffers: the context's, lent until
 * finish_message (which every msg_init is paired with) gives them back. */
static void msg_init(struct ctx *c, struct sb *s, struct sb *t)
{
	*s = (struct sb){.b = c->msg, .oom = c->fs.oom};
	buf_reset(&s->b);
	buf_init(&c->msg, 0);
	*t = (struct sb){.b = c->sum, .oom = c->fs.oom};
	buf_reset(&t->b);
	buf_init(&c->sum, 0);
}

/* s: the message (the fact, its detail, the remedy for this finding);
 * t: the summary (the fact in one line); remedy: the kind's advice. */
static void finish_message(struct ctx *c, struct finding_build *b, struct sb *s, struct sb *t, const char *remedy)
{
	if (b && !*s->oom) {
		b->f.message = text_dup(c->texts, s->b.data ? s->b.data : "", s->b.len);
		b->f.summary = text_dup(c->texts, t->b.data ? t->b.data : "", t->b.len);
		b->f.remedy = remedy;
		if (!b->f.message || !b->f.summary || evidence_finish(&c->fs, &b->f, c->texts) < 0)
			*s->oom = true;
	}
	c->msg = s->b;
	c->sum = t->b;
}

/* The remedies: the advice, shared by every finding that needs the same
 * (PRODUCT.md, "Each finding's message ends with the remedy"), so a report
 * prints each once; the message words the same advice with the finding's
 * own ids. */
static const char remedy_key_stable[] =
	"Check the remote side for a duplicate; key the side effect on task_execution_id or a natural key from "
	"the input and make the write conditional on it (upsert, unique constraint).";
static const char remedy_key_natural[] =
	"Key the side effect on a natural key from the input (task_execution_id differs per call or attempt "
	"here) and make the write conditional on it.";
static const char remedy_child[] =
	"Key the child's side effects on an input key or the parent run, never on its instance id, make the "
	"writes conditional, and audit the child runs too.";
static const char remedy_unresolved[] =
	"Look the side effect up by task_execution_id or an input key and reconcile it instead of re-issuing it.";
static const char remedy_permanent[] =
	"Return permanent rejections as data instead of raising them into the retry policy, or exclude that "
	"error type from the policy.";
static const char remedy_repeated[] =
	"If the workflow meant one call, fix the workflow code; either way key the side effect on a natural key "
	"from the input and make the write conditional on it.";
static const char remedy_large[] = "Pass identifiers, not documents: store the data elsewhere and pass its key.";

/* The key remedy that goes with sb_key_remedy's wording for inv. */
static const char *key_remedy(const struct invocation *inv)
{
	return exec_id_stable(inv) ? remedy_key_stable : remedy_key_natural;
}

/* "failed with TYPE" in a summary: the type only (the message has the text). */
static void sb_failed_with(struct sb *t, const struct attempt *a)
{
	sb_printf(t, "failed");
	if (str_set(a->error_type)) {
		sb_printf(t, " with ");
		sb_type(t, a->error_type);
		if (!*t->oom && t->b.len && t->b.data[t->b.len - 1] == ' ')
			t->b.data[--t->b.len] = '\0'; /* sb_type's trailing space */
	}
}

static void find_reexecuted(struct ctx *c, const struct invocation *inv)
{
	struct finding_build *b = finding_new(&c->fs, FINDING_REEXECUTED, inv->name, inv->task_execution_id,
					      inv->attempts[0].event_index);
	struct sb s, t;
	msg_init(c, &s, &t);
	sb_printf(&t, "ran %zu attempts as one invocation (task_scheduled_id ", (size_t)inv->n_attempts);
	sb_id_list(&t, inv->attempts, inv->n_attempts);
	sb_printf(&t, ")");
	sb_printf(&s, "%s ran %zu attempts as one invocation ", or_none(inv->name), (size_t)inv->n_attempts);
	sb_link(&s, inv);
	sb_printf(&s, " (task_scheduled_id ");
	sb_id_list(&s, inv->attempts, inv->n_attempts);
	sb_timers(&s, inv);
	sb_printf(&s, "), so its body may have run %zu times. ", (size_t)inv->n_attempts);
	sb_key_remedy(&s, inv);
	if (b) {
		for (size_t i = 0; i < inv->n_attempts; i++)
			evidence_attempt(c, b, &inv->attempts[i]);
		evidence_timers(c, b, inv);
	}
	finish_message(c, b, &s, &t, key_remedy(inv));
}

static void find_ambiguous(struct ctx *c, const struct invocation *inv)
{
	size_t first = NONE, n_amb = 0;
	for (size_t i = 0; i + 1 < inv->n_attempts; i++) {
		const struct attempt *a = &inv->attempts[i];
		if (a->outcome == OUTCOME_FAILED && a->failure == FAILURE_AMBIGUOUS) {
			if (first == NONE)
				first = i;
			n_amb++;
		}
	}
	if (first == NONE)
		return;
	const struct attempt *a = &inv->attempts[first];
	struct finding_build *b = finding_new(&c->fs, FINDING_AMBIGUOUS_FAILURE_RETRIED, inv->name,
					      inv->task_execution_id, a->event_index);
	struct sb s, t;
	msg_init(c, &s, &t);
	if (inv->is_child_workflow) {
		sb_printf(&t, "event %" PRId64 " ", a->scheduled_id);
		sb_failed_with(&t, a);
		sb_printf(&t, "; started again as event %" PRId64, inv->attempts[first + 1].scheduled_id);
	} else {
		sb_printf(&t, "attempt %" PRId64 " ", a->scheduled_id);
		sb_failed_with(&t, a);
		sb_printf(&t, "; attempt %" PRId64 " ran again", inv->attempts[first + 1].scheduled_id);
	}
	if (n_amb > 1)
		sb_printf(&t, " (%zu more like it)", n_amb - 1);
	if (inv->is_child_workflow)
		sb_printf(&s, "Child workflow %s (event %" PRId64 ", instance %s) failed with ",
			  or_none(inv->name), a->scheduled_id, or_none(a->instance_id));
	else
		sb_printf(&s, "Attempt %s (task_scheduled_id %" PRId64 ") failed with ", or_none(inv->name),
			  a->scheduled_id);
	sb_error(&s, a);
	if (inv->is_child_workflow)
		sb_printf(&s,
			  ", a timeout/connection-class error after which the side effects of its "
			  "activities may already have landed, and it was started again (event %" PRId64
			  ", instance %s)",
			  inv->attempts[first + 1].scheduled_id, or_none(inv->attempts[first + 1].instance_id));
	else
		sb_printf(&s,
			  ", a timeout/connection-class error after which the side effect may "
			  "already have landed, and attempt %" PRId64 " ran again",
			  inv->attempts[first + 1].scheduled_id);
	if (n_amb > 1) {
		sb_printf(&s, "; %zu more attempt%s failed the same way before a retry (%s ", n_amb - 1,
			  n_amb > 2 ? "s" : "", inv->is_child_workflow ? "event" : "task_scheduled_id");
		size_t listed = 0;
		for (size_t i = first + 1; i + 1 < inv->n_attempts; i++) {
			const struct attempt *x = &inv->attempts[i];
			if (x->outcome != OUTCOME_FAILED || x->failure != FAILURE_AMBIGUOUS)
				continue;
			if (listed < LIST_MAX)
				sb_printf(&s, "%s%" PRId64, listed ? ", " : "", x->scheduled_id);
			listed++;
		}
		if (listed > LIST_MAX)
			sb_printf(&s, " and %zu more", listed - LIST_MAX);
		sb_printf(&s, ")");
	}
	if (inv->is_child_workflow) {
		sb_printf(&s, ". Check the child's side effects for duplicates; derive their idempotency "
			      "key from a natural key of the input or from the parent run, never from the "
			      "child's own instance id, make the writes conditional on it, and record "
			      "intent before a non-idempotent call so a pending one is reconciled instead "
			      "of re-issued.");
	} else {
		sb_printf(&s, ". Check the remote side for a duplicate; ");
		size_t at = s.b.len;
		sb_key_remedy(&s, inv);
		if (!*s.oom && s.b.len > at) {
			/* Lower-case the remedy's first letter to continue the
			 * sentence, and drop its full stop. */
			s.b.data[at] = (char)tolower((unsigned char)s.b.data[at]);
			if (s.b.data[s.b.len - 1] == '.')
				s.b.data[--s.b.len] = '\0';
		}
		sb_printf(&s, "; record intent before the non-idempotent call and reconcile a "
			      "pending one instead of re-issuing it.");
	}
	if (b) {
		for (size_t i = first; i < inv->n_attempts; i++) {
			const struct attempt *x = &inv->attempts[i];
			evidence_attempt(c, b, x);
			if (x->outcome == OUTCOME_FAILED && x->failure == FAILURE_AMBIGUOUS)
				evidence_result(c, b, x->result_index);
		}
	}
	finish_message(c, b, &s, &t, inv->is_child_workflow ? remedy_child : key_remedy(inv));
}

static void find_duplicates(struct ctx *c, const struct invocation *inv)
{
	struct work *w = c->w;
	for (size_t i = 0; i < inv->n_attempts; i++) {
		const struct attempt *a = &inv->attempts[i];
		if (a->n_results < 2)
			continue;
		/* The working attempt (history order, so a binary search) holds
		 * the duplicates. */
		size_t wi = NONE;
		size_t lo = 0, hi = w->n_att;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (att_at(w, mid)->event_index < a->event_index)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < w->n_att && att_at(w, lo)->event_index == a->event_index)
			wi = lo;
		struct finding_build *b = finding_new(&c->fs, FINDING_DUPLICATE_RESULT, inv->name,
						      a->task_execution_id, a->event_index);
		struct sb s, t;
		msg_init(c, &s, &t);
		sb_printf(&t, "%s %" PRId64 " has %zu results: it certainly ran more than once",
			  inv->is_child_workflow ? "event" : "attempt", a->scheduled_id, (size_t)a->n_results);
		sb_printf(&s, "%s %s (task_scheduled_id %" PRId64 ") has %zu results (history positions %zu",
			  inv->is_child_workflow ? "Child workflow" : "Attempt", or_none(inv->name),
			  a->scheduled_id, (size_t)a->n_results, (size_t)a->result_index);
		if (b)
			evidence_attempt(c, b, a);
		if (b)
			evidence_result(c, b, a->result_index);
		if (wi != NONE) {
			for (uint32_t d = w->wa[wi].dup_head; d != NONE32; d = w->dups[d].next) {
				sb_printf(&s, ", %zu", (size_t)w->dups[d].index);
				if (b)
					evidence_result(c, b, w->dups[d].index);
			}
		}
		sb_printf(&s, "): the engine delivered it again, so its body certainly ran more than "
			      "once. ");
		struct invocation one = *inv;
		one.attempts = (struct attempt *)a;
		one.n_attempts = 1;
		sb_key_remedy(&s, &one);
		finish_message(c, b, &s, &t, key_remedy(&one));
	}
}

static void find_permanent(struct ctx *c, const struct invocation *inv)
{
	if (inv->n_attempts < 2)
		return;
	/* Flagged non-retriable, yet another attempt followed. */
	size_t flagged = NONE;
	for (size_t i = 0; i + 1 < inv->n_attempts; i++) {
		if (inv->attempts[i].outcome == OUTCOME_FAILED && inv->attempts[i].non_retriable) {
			flagged = i;
			break;
		}
	}
	bool same_permanent = true;
	size_t n_failed = 0;
	const struct attempt *first_failed = NULL;
	for (size_t i = 0; i < inv->n_attempts; i++) {
		const struct attempt *a = &inv->attempts[i];
		if (a->outcome == OUTCOME_COMPLETED) {
			same_permanent = false;
			break;
		}
		if (a->outcome != OUTCOME_FAILED)
			continue;
		n_failed++;
		if (a->failure != FAILURE_PERMANENT) {
			same_permanent = false;
			break;
		}
		if (!first_failed) {
			first_failed = a;
		} else {
			const char *t0 = first_failed->error_type ? first_failed->error_type : "";
			const char *t1 = a->error_type ? a->error_type : "";
			if (strcmp(t0, t1) != 0) {
				same_permanent = false;
				break;
			}
		}
	}
	/* Needs a failure that was followed by another attempt. */
	bool retried_failure = false;
	for (size_t i = 0; i + 1 < inv->n_attempts; i++)
		retried_failure |= inv->attempts[i].outcome == OUTCOME_FAILED;
	if (!(same_permanent && n_failed >= 1 && retried_failure) && flagged == NONE)
		return;
	const struct attempt *a = flagged != NONE ? &inv->attempts[flagged] : first_failed;
	struct finding_build *b = finding_new(&c->fs, FINDING_PERMANENT_FAILURE_RETRIED, inv->name,
					      inv->task_execution_id, a->event_index);
	struct sb s, t;
	msg_init(c, &s, &t);
	if (flagged != NONE) {
		sb_printf(&t, "attempt %" PRId64 " ", a->scheduled_id);
		sb_failed_with(&t, a);
		sb_printf(&t, ", flagged non-retriable; attempt %" PRId64 " ran after it",
			  inv->attempts[flagged + 1].scheduled_id);
	} else {
		sb_printf(&t, "retried although %s %zu failed attempt%s ", n_failed > 1 ? "all" : "its", n_failed,
			  n_failed > 1 ? "s" : "");
		sb_failed_with(&t, a);
		sb_printf(&t, " (permanent class)");
	}
	sb_printf(&s, "%s%s was retried after a failure that cannot succeed: ",
		  inv->is_child_workflow ? "Child workflow " : "", or_none(inv->name));
	if (flagged != NONE) {
		sb_printf(&s, "attempt %" PRId64 " failed with ", a->scheduled_id);
		sb_error(&s, a);
		sb_printf(&s, ", flagged non-retriable, and attempt %" PRId64 " ran after it",
			  inv->attempts[flagged + 1].scheduled_id);
	} else {
		sb_printf(&s, "%s %zu failed attempt%s (task_scheduled_id ", n_failed > 1 ? "all" : "its",
			  n_failed, n_failed > 1 ? "s" : "");
		size_t listed = 0;
		for (size_t i = 0; i < inv->n_attempts; i++) {
			if (inv->attempts[i].outcome != OUTCOME_FAILED)
				continue;
			if (listed < LIST_MAX)
				sb_printf(&s, "%s%" PRId64, listed ? ", " : "", inv->attempts[i].scheduled_id);
			listed++;
		}
		if (listed > LIST_MAX)
			sb_printf(&s, " and %zu more", listed - LIST_MAX);
		sb_printf(&s, ") failed with the same permanent-class error, ");
		sb_error(&s, a);
	}
	sb_printf(&s,
		  ". Return permanent rejections as data instead of raising them into the retry "
		  "policy, or exclude %s from the policy.",
		  str_set(a->error_type) && strlen(a->error_type) <= QUOTE_MAX ? a->error_type : "this error");
	if (b) {
		for (size_t i = 0; i < inv->n_attempts; i++) {
			evidence_attempt(c, b, &inv->attempts[i]);
			if (inv->attempts[i].outcome == OUTCOME_FAILED)
				evidence_result(c, b, inv->attempts[i].result_index);
		}
	}
	finish_message(c, b, &s, &t, remedy_permanent);
}

static bool generation_finished(const struct work *w, const struct analysis *an, size_t gen)
{
	return gen + 1 < an->n_generations || an->finished;
}

/* Keeps a limit sentence of this run's own (text NULL: out of memory,
 * already flagged), for limits() to place with the others. */
static void run_limit_add(struct ctx *c, char *text)
{
	struct work *w = c->w;
	if (!text)
		return;
	c->run_limits =
		grow(c->run_limits, &c->cap_run_limits, c->n_run_limits + 1, sizeof *c->run_limits, &w->oom);
	if (w->oom) {
		free(text);
		return;
	}
	c->run_limits[c->n_run_limits++] = text;
}

/* A call the workflow code scheduled in one turn together with others, one
 * of which got its result, and that never got its own before the run
 * finished: the loser of a when_any race, or a fan-out the workflow stopped
 * waiting for. It was called once, by the code's own design, so it is no
 * duplicate: a run-specific limit says its outcome is unknown, instead of
 * unresolved_attempt. An invocation with retries stays a finding. */
static void find_race_losers(struct ctx *c, const struct analysis *an)
{
	struct work *w = c->w;
	if (!an->n_invocations || !w->n_att)
		return;
	bool *resolved = calloc((size_t)w->turn + 1, sizeof *resolved);
	w->race_loser = calloc(an->n_invocations, sizeof *w->race_loser);
	if (!resolved || !w->race_loser) {
		free(resolved);
		w->oom = true;
		return;
	}
	for (size_t i = 0; i < w->n_att; i++)
		if (att_at(w, i)->outcome != OUTCOME_PENDING)
			resolved[w->wa[i].turn] = true;
	struct sb s;
	sb_init(&s, &w->oom);
	size_t n = 0;
	for (size_t i = 0; i < w->n_att; i++) {
		const struct work_attempt *wa = &w->wa[i];
		const struct invocation *inv = &an->invocations[wa->inv];
		const struct attempt *at = att_at(w, i);
		if (inv->n_attempts != 1 || at->outcome != OUTCOME_PENDING || !resolved[wa->turn] ||
		    !generation_finished(w, an, inv->generation))
			continue;
		w->race_loser[wa->inv] = true;
		if (n < LIST_MAX)
			sb_printf(&s, "%s%s %s (task_scheduled_id %" PRId64 ")", n ? ", " : "",
				  inv->is_child_workflow ? "child workflow" : "activity", or_none(inv->name),
				  at->scheduled_id);
		n++;
	}
	free(resolved);
	if (!n) {
		buf_finish(&s.b);
		return;
	}
	if (n > LIST_MAX)
		sb_printf(&s, " and %zu more", n - LIST_MAX);
	char *list = sb_steal(&s);
	if (!list)
		return;
	sb_init(&s, &w->oom);
	bool one = n == 1;
	sb_printf(&s,
		  "%s %s no result although the run finished, and %s scheduled in one turn together with a "
		  "call that did get its result: the workflow code started them at once and went on without "
		  "%s (a when_any race lost, or a fan-out it stopped waiting for). %s called once, so %s a "
		  "re-execution, but whether %s ran, and with what effect, cannot be told from this history.",
		  list, one ? "has" : "have", one ? "it was" : "each was", one ? "it" : "them",
		  one ? "It was" : "Each was", one ? "it is not" : "none is", one ? "it" : "each");
	free(list);
	run_limit_add(c, sb_steal(&s));
}

static void find_unresolved(struct ctx *c, const struct invocation *inv)
{
	const struct analysis *an = &c->ao->pub;
	if (!generation_finished(c->w, an, inv->generation))
		return;
	/* A result the rows could not pair may be this child's: its outcome is
	 * unknown here, not missing (the limits say so). */
	if (inv->is_child_workflow && c->w->n_child_unpaired && !str_set(inv->attempts[0].instance_id))
		return;
	if (c->w->race_loser && c->w->race_loser[inv - an->invocations])
		return;
	size_t n = 0, first = NONE;
	for (size_t i = 0; i < inv->n_attempts; i++) {
		if (inv->attempts[i].outcome == OUTCOME_PENDING) {
			if (first == NONE)
				first = i;
			n++;
		}
	}
	if (!n)
		return;
	const struct attempt *a = &inv->attempts[first];
	struct finding_build *b =
		finding_new(&c->fs, FINDING_UNRESOLVED_ATTEMPT, inv->name, inv->task_execution_id, a->event_index);
	struct sb s, t;
	msg_init(c, &s, &t);
	sb_printf(&t, "%s %" PRId64 "%s has no result, yet %s", inv->is_child_workflow ? "event" : "attempt",
		  a->scheduled_id, n > 1 ? " (and more)" : "",
		  inv->generation + 1 < an->n_generations ? "its generation ended" : "the run has finished");
	if (inv->generation + 1 >= an->n_generations)
		sb_printf(&t, " (%s)", an->status ? an->status : "ended");
	sb_printf(&s, "%s %s (task_scheduled_id ", inv->is_child_workflow ? "Child workflow" : "Attempt",
		  or_none(inv->name));
	size_t listed = 0;
	for (size_t i = 0; i < inv->n_attempts; i++) {
		if (inv->attempts[i].outcome != OUTCOME_PENDING)
			continue;
		if (listed < LIST_MAX)
			sb_printf(&s, "%s%" PRId64, listed ? ", " : "", inv->attempts[i].scheduled_id);
		listed++;
		if (b)
			evidence_attempt(c, b, &inv->attempts[i]);
	}
	if (listed > LIST_MAX)
		sb_printf(&s, " and %zu more", listed - LIST_MAX);
	if (inv->is_child_workflow)
		sb_printf(&s, ", instance %s", or_none(a->instance_id));
	else
		sb_printf(&s, ", task_execution_id %s", or_none(a->task_execution_id));
	if (inv->generation + 1 < an->n_generations)
		sb_printf(&s, ") has no result although its generation ended (the workflow continued "
			      "as new), so whether and how often it ran is unknown. ");
	else
		sb_printf(&s,
			  ") has no result although the run has finished (%s), so whether and how "
			  "often it ran is unknown. ",
			  an->status ? an->status : "ended");
	if (!inv->is_child_workflow && str_set(a->task_execution_id))
		sb_printf(&s,
			  "Look the side effect up by task_execution_id %s or a natural key from "
			  "the input and reconcile it; record intent before a non-idempotent "
			  "third-party call so a pending one can be reconciled instead of re-issued.",
			  a->task_execution_id);
	else
		sb_printf(&s, "Look the side effect up by a natural key from the input and reconcile "
			      "it; record intent before a non-idempotent third-party call so a pending "
			      "one can be reconciled instead of re-issued.");
	finish_message(c, b, &s, &t, inv->is_child_workflow ? remedy_child : remedy_unresolved);
}

static void find_child_retried(struct ctx *c, const struct invocation *inv)
{
	struct finding_build *b =
		finding_new(&c->fs, FINDING_CHILD_WORKFLOW_RETRIED, inv->name, NULL, inv->attempts[0].event_index);
	struct sb s, t;
	msg_init(c, &s, &t);
	sb_printf(&t, "started %zu times (event ", (size_t)inv->n_attempts);
	sb_id_list(&t, inv->attempts, inv->n_attempts);
	sb_printf(&t, "): its activities ran again each time");
	bool same_instance = true, no_ids = true;
	const char *i0 = inv->attempts[0].instance_id;
	for (size_t i = 0; i < inv->n_attempts; i++) {
		const char *x = inv->attempts[i].instance_id;
		no_ids &= !str_set(x);
		if (i && (!str_set(i0) || !str_set(x) || strcmp(i0, x) != 0))
			same_instance = false;
	}
	sb_printf(&s, "Child workflow %s was started %zu times (event ", or_none(inv->name),
		  (size_t)inv->n_attempts);
	sb_id_list(&s, inv->attempts, inv->n_attempts);
	if (no_ids) {
		/* `dapr workflow history`: never invent the ids it leaves out. */
		sb_printf(&s, "; this history shows no instance ids");
	} else if (same_instance) {
		sb_printf(&s, ", each time as instance %s", i0);
	} else {
		sb_printf(&s, "; instances ");
		for (size_t i = 0; i < inv->n_attempts && i < LIST_MAX; i++)
			sb_printf(&s, "%s%s", i ? ", " : "", or_none(inv->attempts[i].instance_id));
		if (inv->n_attempts > LIST_MAX)
			sb_printf(&s, " and %zu more", (size_t)inv->n_attempts - LIST_MAX);
	}
	sb_timers(&s, inv);
	if (same_instance || no_ids)
		sb_printf(&s, "): each attempt ran the child again from the start, and its activities "
			      "ran again with new task_execution_ids. ");
	else
		sb_printf(&s, "): each attempt is a new instance whose activities ran again in that "
			      "instance's own history. ");
	if (no_ids && inv->link == LINK_PATTERN)
		sb_printf(&s, "The attempts were grouped by order and name (a failure, a retry timer, "
			      "then a new creation of the same name), an inference, not a recorded "
			      "link. ");
	sb_printf(&s, "An idempotency key derived from the child's own instance id or its "
		      "activities' task_execution_ids deduplicates nothing across these attempts: "
		      "derive it from a natural key of the input or from the parent run, make the "
		      "child's writes conditional on it, and audit the child instances too.");
	if (b) {
		for (size_t i = 0; i < inv->n_attempts; i++)
			evidence_attempt(c, b, &inv->attempts[i]);
		evidence_timers(c, b, inv);
	}
	finish_message(c, b, &s, &t, remedy_child);
}

static void find_large(struct ctx *c, const struct invocation *inv)
{
	if (c->w->view != VIEW_VISIBLE)
		return;
	const struct attempt *big = NULL;
	const char *field = NULL;
	size_t size = 0;
	for (size_t i = 0; i < inv->n_attempts; i++) {
		const struct attempt *a = &inv->attempts[i];
		if (a->input.state == PAYLOAD_PRESENT && a->input.size > c->payload_limit &&
		    a->input.size > size) {
			big = a;
			field = "input";
			size = a->input.size;
		}
		if (a->output.state == PAYLOAD_PRESENT && a->output.size > c->payload_limit &&
		    a->output.size > size) {
			big = a;
			field = "result";
			size = a->output.size;
		}
	}
	if (!big)
		return;
	struct finding_build *b = finding_new(&c->fs, FINDING_LARGE_PAYLOAD, inv->name, inv->task_execution_id,
					      inv->attempts[0].event_index);
	struct sb s, t;
	msg_init(c, &s, &t);
	sb_printf(&t, "the %s of %s %" PRId64 " is %zu bytes, over the %zu-byte limit", field,
		  inv->is_child_workflow ? "event" : "task_scheduled_id", big->scheduled_id, size,
		  c->payload_limit);
	sb_printf(&s,
		  "The %s of %s%s (task_scheduled_id %" PRId64 ") is %zu bytes, over the %zu-byte "
		  "limit: history stores it and replays it on every turn of the run, and it can "
		  "hit the state store's limits. Pass identifiers, not documents: store the data "
		  "elsewhere and pass its key.",
		  field, inv->is_child_workflow ? "child workflow " : "", or_none(inv->name), big->scheduled_id,
		  size, c->payload_limit);
	if (b) {
		evidence_attempt(c, b, big);
		if (strcmp(field, "result") == 0)
			evidence_result(c, b, big->result_index);
	}
	finish_message(c, b, &s, &t, remedy_large);
}

static void find_orphans(struct ctx *c)
{
	struct work *w = c->w;
	for (size_t k = 0; k < w->n_tim; k++) {
		const struct work_timer *t = &w->tim[k];
		if (!t->orphan)
			continue;
		bool child = t->origin == ORIGIN_CHILD_RETRY;
		struct finding_build *b = finding_new(&c->fs, FINDING_ORPHAN_RETRY_TIMER, NULL,
						      child ? NULL : t->origin_id, t->index);
		struct sb s, u;
		msg_init(c, &s, &u);
		sb_printf(&u, "retry timer %" PRId64 " (origin %s %s) matches no attempt in this history",
			  t->event_id, child ? "child instance" : "task_execution_id", or_none(t->origin_id));
		sb_printf(&s, "Retry timer %" PRId64 " (origin %s %s) matches no attempt in this history",
			  t->event_id, child ? "child instance" : "task_execution_id", or_none(t->origin_id));
		if (t->gen > 0)
			sb_printf(&s, " (generation %zu of %zu)", (size_t)t->gen + 1, c->ao->pub.n_generations);
		sb_printf(&s,
			  ": the attempt it retries was in an earlier continue-as-new generation "
			  "(only the latest is returned), a purged part of the history, or a "
			  "history this export does not include, so the retry after it cannot be "
			  "tied to its invocation. Treat that %s as re-executed: ",
			  child ? "child workflow" : "activity");
		if (child)
			sb_printf(&s, "derive its idempotency key from a natural key of the input or "
				      "the parent run, never from the child's own instance id, and make "
				      "its writes conditional on that key.");
		else
			sb_printf(&s,
				  "key its side effect on task_execution_id %s (stable across "
				  "retries on every SDK but .NET) or a natural key from the input, and "
				  "make the write conditional on that key.",
				  or_none(t->origin_id));
		if (b) {
			evidence_add(&c->fs, b, t->index, t->event_id);
			evidence_add(&c->fs, b, t->fired_index, -1);
		}
		finish_message(c, b, &s, &u, child ? remedy_child : remedy_key_stable);
	}
}

enum cmp {
	CMP_SAME,
	CMP_DIFF,
	CMP_UNKNOWN,
	CMP_TRUNCATED, /* only equal prefixes are known */
};

/* Where an absent key means no payload (VIEW_VISIBLE) it compares as null;
 * anywhere else it cannot be compared. */
static enum cmp payload_compare(const struct payload *a, const struct payload *b, enum payload_view view)
{
	enum payload_state sa = a->state, sb = b->state;
	if (view == VIEW_VISIBLE) {
		if (sa == PAYLOAD_ABSENT)
			sa = PAYLOAD_NULL;
		if (sb == PAYLOAD_ABSENT)
			sb = PAYLOAD_NULL;
	}
	if (sa == PAYLOAD_ABSENT || sb == PAYLOAD_ABSENT)
		return CMP_UNKNOWN;
	if (sa != sb)
		return CMP_DIFF;
	if (sa != PAYLOAD_PRESENT)
		return CMP_SAME;
	/* A cut value is longer than any whole one (the cut keeps a fixed
	 * number of characters), and different prefixes are different values;
	 * equal prefixes prove nothing. */
	if (a->truncated != b->truncated)
		return CMP_DIFF;
	if (a->size != b->size || a->hash != b->hash)
		return CMP_DIFF;
	return a->truncated ? CMP_TRUNCATED : CMP_SAME;
}

static bool incomparable(unsigned v)
{
	return v == CMP_UNKNOWN || v == CMP_TRUNCATED;
}

/* Of two verdicts on a group's calls, the one its message must state: not
 * knowing at all outweighs knowing only equal prefixes, which outweighs
 * identical. */
static enum cmp worse_cmp(enum cmp a, unsigned b)
{
	if (a == CMP_UNKNOWN || b == CMP_UNKNOWN)
		return CMP_UNKNOWN;
	if (a == CMP_TRUNCATED || b == CMP_TRUNCATED)
		return CMP_TRUNCATED;
	return a;
}

/* What the pairs chained from head that share p0's kind and limit say of
 * their inputs, together. */
static enum cmp group_cmp(const struct work *w, const uint32_t *next, uint32_t head, const struct pair *p0)
{
	enum cmp v = CMP_SAME;
	for (uint32_t j = head; j != NONE32; j = next[j])
		if (w->pairs[j].kind == p0->kind && w->pairs[j].limit == p0->limit)
			v = worse_cmp(v, w->pairs[j].cmp);
	return v;
}

/* build_invocations gives every invocation at least one attempt. */
static const struct attempt *invocation_last(const struct invocation *inv)
{
	assert(inv->attempts && inv->n_attempts > 0);
	return &inv->attempts[inv->n_attempts - 1];
}

/* The pair a new call (the first attempt of its invocation, at history
 * position i) makes with what earlier turns of its group scheduled, if
 * any: see analysis.h for the rules. */
static bool pair_of(const struct work *w, const struct analysis *an, const struct group_state *st, uint32_t i,
		    struct pair *p)
{
	const struct attempt *at = att_at(w, i);
	if (st->max_end > at->event_index) {
		/* An earlier turn's call still pending: two in flight. */
		enum cmp v = payload_compare(&att_at(w, st->holder)->input, &at->input, w->view);
		if (v == CMP_DIFF)
			return false;
		p->kind = FINDING_OVERLAPPING_CALL;
		p->earlier = st->holder;
		p->never_resolved = st->max_end == NONE32;
		p->cmp = (uint8_t)v;
		/* Not comparable: only the turn's cause can tell a re-call (a
		 * timer or a failure) from a bounded fan-out's next item. */
		p->limit = incomparable(v) && !(w->wa[i].cause & (CAUSE_TIMER | CAUSE_FAILURE));
		return true;
	}
	const struct invocation *prev = &an->invocations[w->wa[st->last_first].inv];
	if (invocation_last(prev)->outcome == OUTCOME_FAILED)
		return false;
	enum cmp v = payload_compare(&att_at(w, st->last_first)->input, &at->input, w->view);
	if (v == CMP_DIFF)
		return false;
	p->kind = FINDING_REPEATED_CALL;
	p->earlier = st->last_first;
	p->cmp = (uint8_t)v;
	p->limit = incomparable(v);
	return true;
}

/* Overlapping and repeated calls: same name, different invocations. One
 * pass over the attempts in history order, per (generation, name) group;
 * calls of one turn are never paired with each other. */
static void collect_pairs(struct ctx *c, const struct analysis *an)
{
	struct work *w = c->w;
	struct smap groups = {0};
	struct group_state *gs = NULL;
	size_t n_groups = 0, cap_groups = 0;
	for (size_t i = 0; i < w->n_att && !w->oom; i++) {
		const struct work_attempt *wa = &w->wa[i];
		if (wa->is_child || !str_set(wa->name))
			continue;
		const struct attempt *at = att_at(w, i);
		bool fresh;
		uint32_t *gv = smap_get_or_put(&groups, wa->gen, wa->name, (uint32_t)n_groups, &fresh);
		if (!gv) {
			w->oom = true;
			break;
		}
		if (fresh) {
			gs = grow(gs, &cap_groups, n_groups + 1, sizeof *gs, &w->oom);
			if (w->oom)
				break;
			gs[n_groups++] = (struct group_state){
				.turn = wa->turn,
				.holder = NONE32,
				.last_first = NONE32,
				.cur_holder = NONE32,
				.cur_last_first = NONE32,
			};
		}
		uint32_t g = *gv;
		/* The map holds only indexes made just above. */
		assert(gs && g < n_groups);
		struct group_state *st = &gs[g];
		if (wa->turn != st->turn) {
			/* A new turn: the last one's calls become earlier ones. */
			if (st->cur_holder != NONE32 && (st->holder == NONE32 || st->cur_max_end > st->max_end)) {
				st->max_end = st->cur_max_end;
				st->holder = st->cur_holder;
			}
			if (st->cur_last_first != NONE32)
				st->last_first = st->cur_last_first;
			st->cur_holder = st->cur_last_first = NONE32;
			st->turn = wa->turn;
		}
		bool is_first = wa->is_first;
		if (is_first && st->holder != NONE32) {
			/* Every group opens with a last_first (below), so an earlier
			 * turn left one. */
			assert(st->last_first != NONE32);
			struct pair p = {.group = g, .later = (uint32_t)i};
			if (pair_of(w, an, st, (uint32_t)i, &p)) {
				size_t k = PUSH(w, w->pairs, w->n_pairs, w->cap_pairs);
				if (k == NONE)
					break;
				w->pairs[k] = p;
			}
		}
		uint32_t end = at->result_index; /* ATTEMPT_NO_RESULT while pending: in flight forever */
		if (st->cur_holder == NONE32 || end > st->cur_max_end) {
			st->cur_max_end = end;
			st->cur_holder = (uint32_t)i;
		}
		/* A group can open on a retry: one that took another name under
		 * the same task_execution_id. */
		if (is_first || st->n == 0)
			st->cur_last_first = (uint32_t)i;
		st->n++;
	}
	smap_free(&groups);
	free(gs);
}

/* Why two inputs cannot be compared, truthfully for where the history came
 * from: never "not shared" unless the level is metadata. */
static void sb_why_incomparable(struct ctx *c, struct sb *s, enum cmp verdict)
{
	if (verdict == CMP_TRUNCATED) {
		sb_printf(s, "this history shows only the first 120 characters of each (dapr workflow history "
			     "cuts payloads short), and those were the same");
		return;
	}
	switch (c->w->view) {
	case VIEW_WITHHELD:
		sb_printf(s, "they were not shared at this organization's data-sharing level (%s)",
			  c->sharing_phrase ? c->sharing_phrase : "unknown");
		break;
	case VIEW_ABSENT:
		sb_printf(s, "they are absent from this history, which is not from Catalyst and carries no "
			     "payload at all");
		break;
	case VIEW_UNKNOWN:
	case VIEW_VISIBLE: /* absent compares as null there: not reached */
		sb_printf(s, "the data-sharing level is not known (%s)",
			  c->ao->pub.sharing_source ? c->ao->pub.sharing_source : "no source");
		break;
	}
}

static void sb_inputs(struct ctx *c, struct sb *s, enum cmp verdict, bool present, unsigned cause)
{
	if (verdict == CMP_SAME) {
		sb_printf(s, "their inputs were identical (%s)",
			  present ? "same size and hash" : "neither call had one");
		return;
	}
	sb_printf(s, "their inputs cannot be compared: ");
	sb_why_incomparable(c, s, verdict);
	if ((cause & CAUSE_TIMER) && (cause & CAUSE_FAILURE))
		sb_printf(s, "; but it was called again in the turn that followed a timer firing (one the "
			     "workflow set, not a retry timer) and a call failing, while the earlier call was "
			     "still pending: a re-call whatever the inputs");
	else if (cause & CAUSE_TIMER)
		sb_printf(s, "; but it was called again in the turn that followed a timer firing (one the "
			     "workflow set, not a retry timer) while the earlier call was still pending: a "
			     "when_any(call, timer) race lost and the call made again, a re-call whatever the "
			     "inputs");
	else
		sb_printf(s, "; but it was called again in the turn that followed a failure while the earlier "
			     "call was still pending: a call made again after a failure, a re-call whatever "
			     "the inputs");
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

/* The distinct calls (attempt indexes, history order) of the pairs chained
 * from j that match p0's kind and limit. */
static uint32_t *pair_calls(struct work *w, const uint32_t *next, uint32_t j, const struct pair *p0, size_t *n)
{
	size_t cap = 0, len = 0;
	uint32_t *v = NULL;
	for (; j != NONE32; j = next[j]) {
		const struct pair *p = &w->pairs[j];
		if (p->kind != p0->kind || p->limit != p0->limit)
			continue;
		v = grow(v, &cap, len + 2, sizeof *v, &w->oom);
		if (w->oom) {
			free(v);
			return NULL;
		}
		v[len++] = p->earlier;
		v[len++] = p->later;
	}
	bool sorted = true;
	for (size_t i = 1; i < len && sorted; i++)
		sorted = v[i - 1] <= v[i];
	if (!sorted)
		qsort(v, len, sizeof *v, cmp_u32);
	size_t u = 0;
	for (size_t i = 0; i < len; i++) {
		if (u == 0 || v[u - 1] != v[i])
			v[u++] = v[i];
	}
	*n = u;
	return v;
}

/* A run-specific limit for calls whose inputs could not be compared. */
static void calls_limit(struct ctx *c, const uint32_t *next, uint32_t head, const struct pair *p0)
{
	struct work *w = c->w;
	const char *name = or_none(w->wa[p0->later].name);
	struct sb s;
	sb_init(&s, &w->oom);
	if (p0->kind == FINDING_OVERLAPPING_CALL) {
		sb_printf(&s,
			  "%s was called again while an earlier call of it was still pending (task_scheduled_id ",
			  name);
		size_t listed = 0;
		for (uint32_t j = head; j != NONE32; j = next[j]) {
			const struct pair *p = &w->pairs[j];
			if (p->kind != p0->kind || p->limit != p0->limit)
				continue;
			if (listed < LIST_MAX)
				sb_printf(&s, "%s%" PRId64 " while %" PRId64 " was pending", listed ? ", " : "",
					  att_at(w, p->later)->scheduled_id, att_at(w, p->earlier)->scheduled_id);
			listed++;
		}
		if (listed > LIST_MAX)
			sb_printf(&s, " and %zu more", listed - LIST_MAX);
		sb_printf(&s, "), each time in a later turn than that call and not in one that followed a timer "
			      "firing or a failure: the shape of a fan-out that starts the next item as one "
			      "finishes. Their inputs cannot be compared: ");
		sb_why_incomparable(c, &s, group_cmp(w, next, head, p0));
		sb_printf(&s, "; so whether these were calls for different items or the same call made twice "
			      "cannot be told from this history.");
	} else {
		size_t n = 0;
		uint32_t *calls = pair_calls(w, next, head, p0, &n);
		if (!calls) {
			buf_finish(&s.b);
			return;
		}
		sb_printf(&s,
			  "%s was called %zu times outside a retry chain, each call after the previous one "
			  "had ended without failing (task_scheduled_id ",
			  name, n);
		for (size_t i = 0; i < n && i < LIST_MAX; i++)
			sb_printf(&s, "%s%" PRId64, i ? ", " : "", att_at(w, calls[i])->scheduled_id);
		if (n > LIST_MAX)
			sb_printf(&s, " and %zu more", n - LIST_MAX);
		free(calls);
		sb_printf(&s, "): the shape of a loop over items. Their inputs cannot be compared: ");
		sb_why_incomparable(c, &s, group_cmp(w, next, head, p0));
		sb_printf(&s, "; so whether these were calls for different items or the same call made again "
			      "cannot be told from this history.");
	}
	run_limit_add(c, sb_steal(&s));
}

static void find_pairs(struct ctx *c)
{
	struct work *w = c->w;
	/* One finding (or limit) per (group, kind, limit), in order of the
	 * group's first such pair; pairs are chained per group so each group
	 * is walked once per kind. */
	bool *done = calloc(w->n_pairs ? w->n_pairs : 1, sizeof *done);
	if (!done) {
		w->oom = true;
		return;
	}
	/* Index pairs by group so each group is visited once. */
	size_t n_groups = 0;
	for (size_t i = 0; i < w->n_pairs; i++)
		if (w->pairs[i].group + 1 > n_groups)
			n_groups = w->pairs[i].group + 1;
	uint32_t *head = malloc((n_groups ? n_groups : 1) * sizeof *head);
	uint32_t *next = malloc((w->n_pairs ? w->n_pairs : 1) * sizeof *next);
	uint32_t *tail = malloc((n_groups ? n_groups : 1) * sizeof *tail);
	if (!head || !next || !tail) {
		w->oom = true;
		goto out;
	}
	for (size_t g = 0; g < n_groups; g++)
		head[g] = tail[g] = NONE32;
	for (size_t i = 0; i < w->n_pairs; i++) {
		uint32_t g = w->pairs[i].group;
		/* Groups are indexes into collect_pairs' table: the count above
		 * covers them all. */
		assert(g < n_groups);
		next[i] = NONE32;
		if (tail[g] == NONE32)
			head[g] = (uint32_t)i;
		else
			next[tail[g]] = (uint32_t)i;
		tail[g] = (uint32_t)i;
	}
	for (size_t i = 0; i < w->n_pairs && !w->oom; i++) {
		if (done[i])
			continue;
		const struct pair *p0 = &w->pairs[i];
		enum finding_kind kind = p0->kind;
		for (uint32_t j = head[p0->group]; j != NONE32; j = next[j]) {
			if (w->pairs[j].kind == kind && w->pairs[j].limit == p0->limit)
				done[j] = true;
		}
		if (p0->limit) {
			calls_limit(c, next, head[p0->group], p0);
			continue;
		}
		const struct attempt *e0 = att_at(w, p0->earlier), *l0 = att_at(w, p0->later);
		const char *l0_name = w->wa[p0->later].name;
		struct finding_build *b =
			finding_new(&c->fs, kind, l0_name, l0->task_execution_id, e0->event_index);
		size_t n = 0;
		enum cmp verdict = CMP_SAME;
		unsigned cause = 0;
		for (uint32_t j = head[p0->group]; j != NONE32; j = next[j]) {
			const struct pair *p = &w->pairs[j];
			if (p->kind != kind || p->limit)
				continue;
			n++;
			if (incomparable(p->cmp)) {
				verdict = worse_cmp(verdict, p->cmp);
				cause |= w->wa[p->later].cause;
			}
			if (b) {
				evidence_attempt(c, b, att_at(w, p->earlier));
				evidence_attempt(c, b, att_at(w, p->later));
				if (kind == FINDING_OVERLAPPING_CALL)
					evidence_result(c, b, att_at(w, p->earlier)->result_index);
			}
		}
		bool present = e0->input.state == PAYLOAD_PRESENT;
		struct sb s, t;
		msg_init(c, &s, &t);
		if (kind == FINDING_OVERLAPPING_CALL) {
			sb_printf(&t, "called again (task_scheduled_id %" PRId64 ") while call %" PRId64 " was %s",
				  l0->scheduled_id, e0->scheduled_id,
				  p0->never_resolved ? "pending (it never got a result)" : "still in flight");
			if (n > 1)
				sb_printf(&t, " (and %zu more such call%s)", n - 1, n > 2 ? "s" : "");
			sb_printf(&s,
				  "%s was called again (task_scheduled_id %" PRId64
				  ", task_execution_id %s, not a retry) before the earlier call "
				  "(task_scheduled_id %" PRId64 ", task_execution_id %s) had %s, so "
				  "two executions were in flight at once",
				  or_none(l0_name), l0->scheduled_id, or_none(l0->task_execution_id),
				  e0->scheduled_id, or_none(e0->task_execution_id),
				  p0->never_resolved ? "a result (it never got one)" : "its result");
			if (n > 1)
				sb_printf(&s, " (and %zu more such call%s)", n - 1, n > 2 ? "s" : "");
			sb_printf(&s, "; ");
			sb_inputs(c, &s, verdict, present, cause);
			sb_printf(&s, ". Key the side effect on a natural key from the input (each call "
				      "has its own task_execution_id) and make the write conditional on "
				      "it (unique constraint, upsert, conditional put, provider idempotency "
				      "key); record intent before a non-idempotent third-party call and "
				      "reconcile a pending one instead of re-issuing it.");
		} else {
			size_t n_calls = 0;
			uint32_t *calls = pair_calls(w, next, head[p0->group], p0, &n_calls);
			sb_printf(&t, "called %zu times outside a retry chain (task_scheduled_id ", n_calls);
			for (size_t k = 0; calls && k < n_calls && k < LIST_MAX; k++)
				sb_printf(&t, "%s%" PRId64, k ? ", " : "", att_at(w, calls[k])->scheduled_id);
			if (n_calls > LIST_MAX)
				sb_printf(&t, " and %zu more", n_calls - LIST_MAX);
			sb_printf(&t, ")%s", verdict == CMP_SAME ? ", with identical inputs" : "");
			sb_printf(&s,
				  "%s was called %zu times outside a retry chain, each call after "
				  "the previous one had ended without failing (task_scheduled_id ",
				  or_none(l0_name), n_calls);
			for (size_t k = 0; calls && k < n_calls && k < LIST_MAX; k++)
				sb_printf(&s, "%s%" PRId64, k ? ", " : "", att_at(w, calls[k])->scheduled_id);
			if (n_calls > LIST_MAX)
				sb_printf(&s, " and %zu more", n_calls - LIST_MAX);
			free(calls);
			sb_printf(&s, "; task_execution_ids %s, %s%s); ", or_none(e0->task_execution_id),
				  or_none(l0->task_execution_id), n > 1 ? ", ..." : "");
			sb_inputs(c, &s, verdict, present, cause);
			sb_printf(&s, ". If the workflow meant one call, fix the workflow code; either "
				      "way key the side effect on a natural key from the input (each call "
				      "has its own task_execution_id) and make the write conditional on it "
				      "(unique constraint, upsert, conditional put, provider idempotency "
				      "key).");
		}
		finish_message(c, b, &s, &t,
			       kind == FINDING_OVERLAPPING_CALL ? remedy_key_natural : remedy_repeated);
	}
out:
	free(done);
	free(head);
	free(next);
	free(tail);
}

static int cmp_findings(const void *pa, const void *pb)
{
	const struct finding_build *a = pa, *b = pb;
	if (a->anchor != b->anchor)
		return a->anchor < b->anchor ? -1 : 1;
	if (a->f.kind != b->f.kind)
		return a->f.kind < b->f.kind ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ---------------------------------------------------------------------- */
/* Grouping into invocations. */

/* Groups the attempts by invocation: the scanned array, in history order,
 * is put in invocation order in place and becomes the attempt pool (a
 * second copy was 15 MB on a 128,000-attempt history). */
static int build_invocations(struct work *w, struct analysis_owned *ao)
{
	struct analysis *an = &ao->pub;
	size_t n_inv = 0;
	for (size_t i = 0; i < w->n_att; i++) {
		if (uf_find(w->wa, (uint32_t)i) == i)
			w->wa[i].inv = (uint32_t)n_inv++;
	}
	for (size_t i = 0; i < w->n_att; i++) {
		uint32_t root = uf_find(w->wa, (uint32_t)i);
		w->wa[i].inv = w->wa[root].inv;
		w->wa[i].is_first = root == i;
	}
	an->invocations = calloc(n_inv ? n_inv : 1, sizeof *an->invocations);
	size_t n_timers = 0;
	for (size_t k = 0; k < w->n_tim; k++)
		n_timers += w->tim[k].target != NONE32;
	ao->timer_pool = calloc(n_timers ? n_timers : 1, sizeof *ao->timer_pool);
	if (!an->invocations || !ao->timer_pool)
		return -1;
	an->n_invocations = n_inv;
	/* Counts, then offsets (kept in n_attempts' place for now), then the
	 * slot of each attempt in history order. */
	for (size_t i = 0; i < w->n_att; i++)
		an->invocations[w->wa[i].inv].n_attempts++;
	for (size_t k = 0; k < w->n_tim; k++) {
		if (w->tim[k].target != NONE32)
			an->invocations[w->wa[w->tim[k].target].inv].n_retry_timers++;
	}
	uint32_t *offset = malloc((n_inv ? n_inv : 1) * sizeof *offset);
	if (!offset)
		return -1;
	size_t off = 0, toff = 0;
	for (size_t v = 0; v < n_inv; v++) {
		struct invocation *inv = &an->invocations[v];
		offset[v] = (uint32_t)off;
		inv->retry_timer_event_ids = ao->timer_pool + toff;
		off += inv->n_attempts;
		toff += inv->n_retry_timers;
		inv->n_attempts = 0;
		inv->n_retry_timers = 0;
	}
	for (size_t i = 0; i < w->n_att; i++) {
		struct work_attempt *wa = &w->wa[i];
		struct invocation *inv = &an->invocations[wa->inv];
		if (inv->n_attempts == 0) {
			inv->name = wa->name;
			inv->task_execution_id = wa->is_child ? NULL : w->att[i].task_execution_id;
			inv->is_child_workflow = wa->is_child;
			inv->generation = wa->gen;
			inv->link = LINK_SINGLE;
		}
		wa->slot = offset[wa->inv] + inv->n_attempts++;
	}
	free(offset);
	/* Every attempt to its slot, cycle by cycle; uf (done with) tracks
	 * where the attempt now at each place belongs. */
	for (size_t i = 0; i < w->n_att; i++)
		w->wa[i].uf = w->wa[i].slot;
	for (size_t i = 0; i < w->n_att; i++) {
		while (w->wa[i].uf != i) {
			uint32_t j = w->wa[i].uf;
			struct attempt t = w->att[i];
			w->att[i] = w->att[j];
			w->att[j] = t;
			w->wa[i].uf = w->wa[j].uf;
			w->wa[j].uf = j;
		}
	}
	ao->attempt_pool = w->att; /* the analysis owns it from here */
	off = 0;
	for (size_t v = 0; v < n_inv; v++) {
		an->invocations[v].attempts = ao->attempt_pool + off;
		off += an->invocations[v].n_attempts;
	}
	for (size_t k = 0; k < w->n_tim; k++) {
		if (w->tim[k].target == NONE32)
			continue;
		struct invocation *inv = &an->invocations[w->wa[w->tim[k].target].inv];
		inv->retry_timer_event_ids[inv->n_retry_timers++] = w->tim[k].event_id;
	}
	for (size_t i = 0; i < w->n_att; i++) {
		if (!w->wa[i].is_first)
			continue;
		struct invocation *inv = &an->invocations[w->wa[i].inv];
		unsigned f = w->wa[i].flags;
		if (inv->n_attempts < 2)
			inv->link = LINK_SINGLE;
		else if (f & LINKED_PATTERN)
			inv->link = LINK_PATTERN;
		else if (f & LINKED_ORIGIN)
			inv->link = LINK_TIMER_ORIGIN;
		else
			inv->link = LINK_EXECUTION_ID;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Run facts, data sharing, withheld payloads, limits. */

static char *normalise_status(const char *s)
{
	static const char *const prefixes[] = {"ORCHESTRATION_STATUS_", "RUNTIME_STATUS_", "WORKFLOW_STATUS_"};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i]);
		if (strncasecmp(s, prefixes[i], n) == 0) {
			s += n;
			break;
		}
	}
	char *out = strdup(s);
	if (!out)
		return NULL;
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

static bool status_terminal(const char *s)
{
	static const char *const terminal[] = {"completed", "failed", "terminated", "canceled", "cancelled"};
	for (size_t i = 0; i < sizeof terminal / sizeof terminal[0]; i++) {
		if (strcmp(s, terminal[i]) == 0)
			return true;
	}
	return false;
}

static int run_facts(struct work *w, struct analysis_owned *ao)
{
	struct analysis *an = &ao->pub;
	size_t n = w->n_events;
	const struct event_run_info *ri = event_log_run_info(w->log);
	an->n_events = n;
	an->n_generations = n ? (size_t)w->gen + 1 : 0;
	an->workflow = w->first_workflow;
	an->started_at = w->first_started_at;
	an->instance_id = w->first_instance;
	if (ri) {
		if (!an->workflow && str_set(ri->workflow_name))
			an->workflow = ri->workflow_name;
		if (!an->instance_id && str_set(ri->instance_id))
			an->instance_id = ri->instance_id;
	}
	const char *raw = NULL;
	bool last_gen = w->completed_gen == w->gen;
	if (w->completed_seen && last_gen) {
		raw = w->completed_status;
		if (!str_set(raw))
			raw = w->completed_error ? "failed" : "completed";
	} else if (w->terminated && last_gen) {
		raw = "terminated";
	} else if (ri && str_set(ri->runtime_status)) {
		raw = ri->runtime_status;
	}
	if (raw) {
		ao->status = normalise_status(raw);
		if (!ao->status)
			return -1;
		an->status = ao->status;
		an->finished = status_terminal(ao->status) || (w->terminated && last_gen) ||
			       (w->completed_seen && last_gen && strcmp(ao->status, "continued_as_new") != 0);
	}
	return 0;
}

/* A history not from Catalyst, in words, for the data-sharing source. */
static const char *foreign_origin(const struct event_log *log)
{
	switch (event_log_dialect(log)) {
	case DIALECT_PROTOJSON:
		return "not from Catalyst (durabletask protojson)";
	case DIALECT_DAPR_CLI:
		return "not from Catalyst (dapr workflow history output)";
	case DIALECT_CATALYST:
	case DIALECT_UNKNOWN:
		break;
	}
	return "not from Catalyst";
}

static int data_sharing(struct work *w, struct analysis_owned *ao)
{
	struct analysis *an = &ao->pub;
	struct sb s;
	bool oom = false;
	sb_init(&s, &oom);
	const struct event_run_info *ri = event_log_run_info(w->log);
	enum data_sharing_level ri_level = ri ? level_from_text(ri->data_sharing_level) : SHARING_UNKNOWN;
	bool catalyst = w->o && w->o->catalyst_source;
	bool keys = w->ds_first_present != NONE;
	if (w->o && w->o->sharing != SHARING_UNKNOWN) {
		an->sharing = w->o->sharing;
		sb_printf(&s, "%s", str_set(w->o->sharing_source) ? w->o->sharing_source : "given");
	} else if (ri_level != SHARING_UNKNOWN) {
		an->sharing = ri_level;
		sb_printf(&s, "run field %s",
			  str_set(ri->data_sharing_field) ? ri->data_sharing_field : "data sharing level");
	} else if (!catalyst) {
		/* Self-hosted Dapr has no data-sharing level: a missing key
		 * there is a payload the history does not hold, never one an
		 * organization withheld. */
		an->sharing = SHARING_UNKNOWN;
		sb_printf(&s, "%s: no data-sharing level applies", foreign_origin(w->log));
		if (event_log_dialect(w->log) == DIALECT_DAPR_CLI)
			/* The parser made every payload the CLI left out a null:
			 * there are no keys to point at. */
			sb_printf(&s, ", and dapr workflow history prints a payload only when there is one "
				      "(it omits nil and empty ones), so a missing one means no payload");
		else if (keys)
			sb_printf(&s,
				  ", and payload keys are present (%s %s, history position %zu), so a "
				  "missing one means no payload",
				  event_kind_name(w->ds_first_kind), withheld_field_name(w->ds_first_field),
				  w->ds_first_present);
		else if (w->ds_slots)
			sb_printf(
				&s,
				", and the history holds no payload (absent on all %zu events that would carry one)",
				w->ds_slots);
		else
			sb_printf(&s, ", and no event in it would carry a payload");
	} else if (keys) {
		an->sharing = SHARING_FULL;
		sb_printf(&s, "inferred: payload keys present (%s %s, history position %zu)",
			  event_kind_name(w->ds_first_kind), withheld_field_name(w->ds_first_field),
			  w->ds_first_present);
	} else if (w->ds_slots) {
		an->sharing = SHARING_METADATA;
		sb_printf(&s, "inferred: payload keys absent on all %zu events that would carry one", w->ds_slots);
	} else {
		an->sharing = SHARING_UNKNOWN;
		sb_printf(&s, "inferred: no event in this history would carry a payload");
	}
	an->sharing_source = sb_steal(&s);
	if (!an->sharing_source)
		return -1;
	if (an->sharing == SHARING_FULL || (an->sharing == SHARING_UNKNOWN && !catalyst && keys))
		w->view = VIEW_VISIBLE;
	else if (an->sharing == SHARING_METADATA)
		w->view = VIEW_WITHHELD;
	else if (!catalyst && an->sharing == SHARING_UNKNOWN)
		w->view = VIEW_ABSENT;
	else
		w->view = VIEW_UNKNOWN;
	/* At full, an absent key is a zero value the dialect omitted, not a
	 * withheld one; outside Catalyst nothing is withheld unless the level
	 * was given. */
	if (an->sharing == SHARING_FULL || !w->ds_absent || (an->sharing == SHARING_UNKNOWN && !catalyst)) {
		free(w->wh);
		w->wh = NULL;
		w->n_wh = w->cap_wh = 0;
		return 0;
	}
	/* The scan collected them all (the level was not known to be full,
	 * and is not full): the array is exactly sized from here, 228,000
	 * entries on a large history at metadata level. */
	assert(w->wh && w->n_wh == w->ds_absent);
	an->withheld = w->wh;
	an->n_withheld = w->n_wh;
	w->wh = NULL;
	w->n_wh = w->cap_wh = 0;
	struct withheld *fit = realloc(an->withheld, an->n_withheld * sizeof *an->withheld);
	if (fit)
		an->withheld = fit;
	return 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* n decimal digits at *p, advancing it; -1 when they are not there. */
static int digits(const char **p, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!is_digit((*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return v;
}

/* Skips one character if it is a or b (both may be the same). */
static bool expect_char(const char **p, char a, char b)
{
	if (**p != a && **p != b)
		return false;
	(*p)++;
	return true;
}

/* Milliseconds since the epoch of an RFC 3339 time, or -1. Hand-written:
 * called for every completed attempt, where sscanf was a tenth of the run. */
static int64_t parse_time_ms(const char *s)
{
	if (!s)
		return -1;
	const char *p = s;
	int y = digits(&p, 4);
	if (y < 0 || !expect_char(&p, '-', '-'))
		return -1;
	int mo = digits(&p, 2);
	if (mo < 1 || mo > 12 || !expect_char(&p, '-', '-'))
		return -1;
	int d = digits(&p, 2);
	if (d < 1 || !(expect_char(&p, 'T', 't') || expect_char(&p, ' ', ' ')))
		return -1;
	int h = digits(&p, 2);
	if (h < 0 || !expect_char(&p, ':', ':'))
		return -1;
	int mi = digits(&p, 2);
	if (mi < 0 || !expect_char(&p, ':', ':'))
		return -1;
	int sec = digits(&p, 2);
	if (sec < 0)
		return -1;
	int64_t ms = 0;
	if (*p == '.') {
		int n = 0;
		for (p++; is_digit(*p); p++) {
			if (n < 3) {
				ms = ms * 10 + (*p - '0');
				n++;
			}
		}
		while (n++ < 3)
			ms *= 10;
	}
	int64_t off = 0;
	if (*p == '+' || *p == '-') {
		int sign = *p == '+' ? 1 : -1;
		p++;
		int oh = digits(&p, 2);
		if (oh < 0)
			return -1;
		int om = 0;
		if (expect_char(&p, ':', ':'))
			om = digits(&p, 2);
		if (om < 0)
			return -1;
		off = (int64_t)(oh * 60 + om) * 60 * sign;
	}
	/* Days from civil (Howard Hinnant). */
	int64_t yy = y - (mo <= 2);
	int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
	int64_t yoe = yy - era * 400;
	int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	return ((days * 86400 + h * 3600 + mi * 60 + sec) - off) * 1000 + ms;
}

/* specific: the sentence names this run's own data (see limit_specific). */
static int limit_add(struct analysis_owned *ao, bool *oom, char *sentence, bool specific)
{
	struct analysis *an = &ao->pub;
	if (!sentence) {
		*oom = true;
		return -1;
	}
	an->limits = grow(an->limits, &ao->cap_limits, an->n_limits + 1, sizeof *an->limits, oom);
	an->limit_specific =
		grow(an->limit_specific, &ao->cap_limit_flags, an->n_limits + 1, sizeof *an->limit_specific, oom);
	if (*oom) {
		free(sentence);
		return -1;
	}
	an->limit_specific[an->n_limits] = specific;
	an->limits[an->n_limits++] = sentence;
	return 0;
}

/* Child creations without instance ids (`dapr workflow history` output):
 * what was paired and grouped by order, and what cannot be seen. */
static void sb_children_without_ids(struct sb *s, const struct work *w, const struct analysis *an)
{
	size_t n_by_order = 0, n_grouped = 0;
	uint32_t pos[LIST_MAX];
	for (size_t v = 0; v < an->n_invocations; v++) {
		const struct invocation *inv = &an->invocations[v];
		if (!inv->is_child_workflow || str_set(inv->attempts[0].instance_id))
			continue;
		n_grouped += inv->n_attempts > 1 && inv->link == LINK_PATTERN;
		for (size_t i = 0; i < inv->n_attempts; i++) {
			if (!inv->attempts[i].result_by_order)
				continue;
			if (n_by_order < LIST_MAX)
				pos[n_by_order] = inv->attempts[i].result_index;
			n_by_order++;
		}
	}
	if (event_log_dialect(w->log) == DIALECT_DAPR_CLI)
		sb_printf(s, "This history is dapr workflow history output, which prints no child "
			     "workflow instance id, no retry parent, and no scheduled id on a child's "
			     "failure (nor on its completion before CLI 1.17)");
	else
		sb_printf(s, "%zu child workflow creation%s here show%s no instance id", w->n_child_no_id,
			  w->n_child_no_id > 1 ? "s" : "", w->n_child_no_id > 1 ? "" : "s");
	sb_printf(s, ", so a child result that names no scheduled id can only be paired by order, "
		     "and child retries only grouped by order and name.");
	if (!n_by_order && !w->n_child_unpaired && !n_grouped)
		sb_printf(s, " Here every child result named its scheduled id, and no child was retried.");
	const char *sep = " Here";
	if (n_by_order) {
		/* Listed invocation by invocation, as found. */
		sb_printf(s,
			  "%s %zu child result%s named no scheduled id and %s paired with the only "
			  "child then pending (history position%s ",
			  sep, n_by_order, n_by_order > 1 ? "s" : "", n_by_order > 1 ? "were" : "was",
			  n_by_order > 1 ? "s" : "");
		for (size_t i = 0; i < n_by_order && i < LIST_MAX; i++)
			sb_printf(s, "%s%" PRIu32, i ? ", " : "", pos[i]);
		if (n_by_order > LIST_MAX)
			sb_printf(s, " and %zu more", n_by_order - LIST_MAX);
		sb_printf(s, ")");
		sep = ";";
	}
	if (w->n_child_unpaired) {
		sb_printf(s,
			  "%s %zu child result%s named no scheduled id while several children were "
			  "pending and %s not paired (first at history position %" PRIu32
			  "), so those children's outcomes are not known here",
			  sep, w->n_child_unpaired, w->n_child_unpaired > 1 ? "s" : "",
			  w->n_child_unpaired > 1 ? "were" : "was", w->first_child_unpaired);
		sep = ";";
	}
	if (n_grouped)
		sb_printf(s,
			  "%s %zu child workflow%s %s grouped into retries because a failure, a retry "
			  "timer and a new creation of the same name followed each other, which is "
			  "an inference, not a recorded link",
			  sep, n_grouped, n_grouped > 1 ? "s" : "", n_grouped > 1 ? "were" : "was");
	if (n_by_order || w->n_child_unpaired || n_grouped)
		sb_printf(s, ".");
	sb_printf(s, " Without instance ids the children's own histories, and the activities in "
		     "them, cannot be found from this one.");
}

static void limits(struct ctx *c)
{
	struct work *w = c->w;
	struct analysis_owned *ao = c->ao;
	struct analysis *an = &ao->pub;
	bool *oom = &w->oom;
	struct sb s;

	/* 1. Crash or redelivery after commit: always. */
	int64_t gap = -1;
	const struct attempt *gap_at = NULL;
	const char *gap_name = NULL;
	bool any_failed = false, any_pending = false, any_retried = false, any_pattern = false;
	for (size_t v = 0; v < an->n_invocations; v++) {
		const struct invocation *inv = &an->invocations[v];
		any_retried |= inv->n_attempts > 1;
		/* Children without instance ids have a limit of their own. */
		any_pattern |= inv->link == LINK_PATTERN &&
			       !(inv->is_child_workflow && !str_set(inv->attempts[0].instance_id));
		for (size_t i = 0; i < inv->n_attempts; i++) {
			const struct attempt *a = &inv->attempts[i];
			any_failed |= a->outcome == OUTCOME_FAILED;
			any_pending |= a->outcome == OUTCOME_PENDING;
			if (a->outcome != OUTCOME_COMPLETED || inv->is_child_workflow)
				continue;
			int64_t t0 = parse_time_ms(a->scheduled_at), t1 = parse_time_ms(a->completed_at);
			if (t0 < 0 || t1 < 0)
				continue;
			if (t1 - t0 > gap) {
				gap = t1 - t0;
				gap_at = a;
				gap_name = inv->name;
			}
		}
	}
	sb_init(&s, oom);
	sb_printf(&s, "A re-run after a worker crash or a redelivery after commit leaves no event.");
	if (limit_add(ao, oom, sb_steal(&s), false) < 0)
		return;
	/* Its measure in this run: a sentence of its own, which stays with the run. */
	if (gap >= LONG_GAP_MS && gap_at) {
		sb_init(&s, oom);
		sb_printf(&s,
			  "The longest wait between a schedule and its result here is %.1f s "
			  "(%s, task_scheduled_id %" PRId64 "): a redelivery would hide inside "
			  "such a gap.",
			  (double)gap / 1000.0, or_none(gap_name), gap_at->scheduled_id);
		if (limit_add(ao, oom, sb_steal(&s), true) < 0)
			return;
	}

	/* 2. Payloads not visible, and the calls that made it matter. */
	if (w->view != VIEW_VISIBLE) {
		sb_init(&s, oom);
		/* The level only: how it was learned is the run's own (its data
		 * sharing and withheld lines say it), and this sentence is the
		 * same for every run at that level. */
		if (w->view == VIEW_WITHHELD)
			sb_printf(&s,
				  "Payloads were not shared at this organization's data-sharing level "
				  "(%s): identical inputs cannot be compared, nor payload sizes checked.",
				  data_sharing_level_name(an->sharing));
		else if (w->view == VIEW_ABSENT)
			sb_printf(&s, "Payloads are absent from this history, which is not from Catalyst (so no "
				      "data-sharing level withheld them) and carries no payload at all, so "
				      "identical inputs cannot be compared and payload sizes cannot be checked.");
		else
			sb_printf(&s,
				  "The data-sharing level is not known (%s), so identical inputs "
				  "cannot be compared and payload sizes cannot be checked.",
				  an->sharing_source);
		if (limit_add(ao, oom, sb_steal(&s), w->view == VIEW_UNKNOWN) < 0)
			return;
	}
	for (size_t i = 0; i < c->n_run_limits; i++) {
		char *text = c->run_limits[i];
		c->run_limits[i] = NULL;
		if (limit_add(ao, oom, text, true) < 0)
			return;
	}

	/* 3. Earlier continue-as-new generations. */
	sb_init(&s, oom);
	bool status_can = an->status && strcmp(an->status, "continued_as_new") == 0;
	if (an->n_generations > 1)
		sb_printf(&s,
			  "This history holds %zu generations (split at ExecutionStarted; event ids "
			  "restart in each); generations before the earliest one shown are not "
			  "returned.",
			  an->n_generations);
	else if (w->n_orphans)
		sb_printf(&s,
			  "Only the latest continue-as-new generation is returned: %zu retry "
			  "timer%s here point%s at attempts that are not in this history, which "
			  "suggests earlier generations (or a purge) hid them.",
			  w->n_orphans, w->n_orphans > 1 ? "s" : "", w->n_orphans > 1 ? "" : "s");
	else if (w->n_continue_as_new || status_can)
		sb_printf(&s, "This run continued as new: only its latest generation is returned, and "
			      "activities of earlier or later generations are not in this history.");
	else
		sb_printf(&s, "If the run continued as new, only its latest generation is returned.");
	bool can_generic = an->n_generations <= 1 && !w->n_orphans && !w->n_continue_as_new && !status_can;
	if (limit_add(ao, oom, sb_steal(&s), !can_generic) < 0)
		return;

	/* 4. Retries inside activity code: always. */
	sb_init(&s, oom);
	sb_printf(&s, "Retries inside activity code (a loop, an HTTP client's) leave no event.");
	if (limit_add(ao, oom, sb_steal(&s), false) < 0)
		return;

	/* 5. Retry policy settings. */
	if (any_failed || any_retried) {
		sb_init(&s, oom);
		sb_printf(&s, "Retry policy settings (attempts, backoff, errors) are not in history.");
		if (limit_add(ao, oom, sb_steal(&s), false) < 0)
			return;
	}

	/* 6. Overlap with a remote attempt still running. */
	if (any_retried || any_pending) {
		sb_init(&s, oom);
		sb_printf(&s, "A failed attempt may still be running remotely while the next one runs.");
		if (limit_add(ao, oom, sb_steal(&s), false) < 0)
			return;
	}

	/* 7. Links inferred by pattern. */
	if (any_pattern) {
		sb_init(&s, oom);
		sb_printf(&s, "This history records no retry-timer origins (Dapr before 1.18): attempts "
			      "marked as linked by pattern were joined because a failure, a timer and "
			      "a new schedule of the same name followed each other, which is an "
			      "inference, not a recorded link.");
		if (limit_add(ao, oom, sb_steal(&s), false) < 0)
			return;
	}

	/* 8. Child workflows have their own histories. */
	if (an->n_child_instances) {
		sb_init(&s, oom);
		sb_printf(&s, "Activities of the %zu child workflow instance%s (", an->n_child_instances,
			  an->n_child_instances > 1 ? "s" : "");
		for (size_t i = 0; i < an->n_child_instances && i < LIST_MAX; i++)
			sb_printf(&s, "%s%s", i ? ", " : "", an->child_instances[i]);
		if (an->n_child_instances > LIST_MAX)
			sb_printf(&s, " and %zu more", an->n_child_instances - LIST_MAX);
		sb_printf(&s, ") are in their own histories, not in this one.");
		if (limit_add(ao, oom, sb_steal(&s), true) < 0)
			return;
	}

	/* 8b. Child creations that show no instance id. */
	if (w->n_child_no_id) {
		sb_init(&s, oom);
		sb_children_without_ids(&s, w, an);
		if (limit_add(ao, oom, sb_steal(&s), true) < 0)
			return;
	}

	/* 9. A rerun carries copies of the source run's schedules. */
	if (w->rerun_parent) {
		sb_init(&s, oom);
		sb_printf(&s,
			  "This run is a rerun of instance %s: schedules copied from that run keep "
			  "its task_execution_ids and their side effects happened there, so audit "
			  "the source run too.",
			  w->rerun_parent);
		if (limit_add(ao, oom, sb_steal(&s), true) < 0)
			return;
	}

	/* 10. Results that point at nothing. */
	if (w->n_unmatched_results) {
		sb_init(&s, oom);
		sb_printf(&s,
			  "%zu result%s point%s at a task_scheduled_id with no schedule in this "
			  "history (first: %" PRId64 "), so this history is partial.",
			  w->n_unmatched_results, w->n_unmatched_results > 1 ? "s" : "",
			  w->n_unmatched_results > 1 ? "" : "s", w->first_unmatched_tsid);
		if (limit_add(ao, oom, sb_steal(&s), true) < 0)
			return;
	}
}

static int collect_children(struct work *w, struct analysis_owned *ao)
{
	struct analysis *an = &ao->pub;
	struct smap seen = {0};
	int rc = 0;
	for (size_t i = 0; i < w->n_att; i++) {
		const struct attempt *at = att_at(w, i);
		if (!w->wa[i].is_child || !str_set(at->instance_id))
			continue;
		bool fresh;
		if (!smap_get_or_put(&seen, 0, at->instance_id, (uint32_t)i, &fresh)) {
			rc = -1;
			break;
		}
		if (!fresh)
			continue;
		an->child_instances = grow(an->child_instances, &ao->cap_children, an->n_child_instances + 1,
					   sizeof *an->child_instances, &w->oom);
		if (w->oom) {
			rc = -1;
			break;
		}
		an->child_instances[an->n_child_instances++] = at->instance_id;
	}
	smap_free(&seen);
	return rc;
}

/* What only the scan uses (the grouping maps and queues: a quarter of the
 * analysis' memory on a large history), freed as soon as it is done. The
 * timer map stays: evidence looks retry timers up in it. */
static void work_release_scan(struct work *w)
{
	free(w->links);
	free(w->queues);
	free(w->failed_fifo);
	imap_free(&w->sched);
	smap_free(&w->exec);
	smap_free(&w->child_inst);
	smap_free(&w->fire);
	smap_free(&w->pend_task);
	smap_free(&w->pend_child);
	w->links = NULL;
	w->queues = NULL;
	w->failed_fifo = NULL;
	w->n_links = w->cap_links = w->n_queues = w->cap_queues = 0;
	w->n_failed = w->failed_head = w->cap_failed = 0;
	w->sched = (struct imap){0};
	w->exec = w->child_inst = w->fire = w->pend_task = w->pend_child = (struct smap){0};
}

static void work_release_pairs(struct work *w)
{
	free(w->pairs);
	w->pairs = NULL;
	w->n_pairs = w->cap_pairs = 0;
}

/* Also called as soon as the findings are collected (the limits need only
 * the run facts): what it frees is NULL after it. The attempts are the
 * analysis' once grouped (w->att is then its attempt pool). */
static void work_finish(struct work *w, const struct analysis_owned *ao)
{
	work_release_scan(w);
	work_release_pairs(w);
	if (!ao || w->att != ao->attempt_pool)
		free(w->att);
	free(w->wa);
	free(w->tim);
	free(w->dups);
	free(w->wh);
	free(w->race_loser);
	imap_free(&w->timers);
	w->race_loser = NULL;
	w->att = NULL;
	w->wa = NULL;
	w->tim = NULL;
	w->dups = NULL;
	w->wh = NULL;
	w->n_att = w->n_tim = w->n_dups = w->cap_dups = w->n_wh = w->cap_wh = 0;
	w->timers = (struct imap){0};
}

/* The findings in report order, moved out of their build records into the
 * same memory (a struct finding is the head of each record). */
static struct finding *findings_take(struct findings *fs)
{
	if (fs->n)
		qsort(fs->v, fs->n, sizeof *fs->v, cmp_findings);
	struct finding *out = (struct finding *)(void *)fs->v;
	for (size_t i = 0; i < fs->n; i++)
		memmove(&out[i], &fs->v[i].f, sizeof *out);
	struct finding *fit = realloc(out, (fs->n ? fs->n : 1) * sizeof *out);
	if (fit)
		out = fit;
	fs->v = NULL;
	fs->n = fs->cap = 0;
	return out;
}

static void release_events(const struct event_log *log, const struct analysis_options *o)
{
	if (o && o->release_events && o->release_events == log)
		event_log_drop_events(o->release_events);
}

/* The findings of invocations [from, to): each invocation's stand alone. */
static void findings_of(struct ctx *c, size_t from, size_t to)
{
	const struct analysis *an = &c->ao->pub;
	for (size_t v = from; v < to && !*c->fs.oom; v++) {
		const struct invocation *inv = &an->invocations[v];
		if (inv->n_attempts > 1 && !inv->is_child_workflow)
			find_reexecuted(c, inv);
		if (inv->n_attempts > 1 && inv->is_child_workflow)
			find_child_retried(c, inv);
		find_ambiguous(c, inv);
		find_duplicates(c, inv);
		find_permanent(c, inv);
		find_unresolved(c, inv);
		find_large(c, inv);
	}
}

/* Below this many invocations a second thread is not worth starting. */
#define THREAD_MIN_INVOCATIONS 10000

/* The second half of the invocations, made in a thread of its own: it
 * reads the analysis and the working state, which nobody writes until it
 * is joined, and writes only its own findings, text blocks and flag. */
struct half {
	struct ctx c;
	size_t from, to;
	bool oom;
	struct text_block *texts;
};

static void *half_main(void *arg)
{
	struct half *h = arg;
	findings_of(&h->c, h->from, h->to);
	return NULL;
}

static bool use_threads(size_t n_invocations)
{
	if (n_invocations <= THREAD_MIN_INVOCATIONS)
		return false;
	const char *env = getenv("CATALYST_AUDIT_ANALYSIS_THREADS");
	if (env && strcmp(env, "1") == 0)
		return false;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* The half's findings after c's, in the order one thread makes them: c
 * holds the pairs' and the first half's, so the half's sequence numbers go
 * on from there, and cmp_findings (position, kind, sequence: every key
 * distinct) sorts both ways alike. Its text blocks become the analysis'
 * whatever happens, so analysis_free frees them. */
static void half_merge(struct ctx *c, struct half *h)
{
	if (h->texts) {
		struct text_block *last = h->texts;
		while (last->next)
			last = last->next;
		if (*c->texts) {
			last->next = (*c->texts)->next;
			(*c->texts)->next = h->texts;
		} else {
			*c->texts = h->texts;
		}
		h->texts = NULL;
	}
	struct findings *fs = &h->c.fs;
	if (h->oom)
		*c->fs.oom = true;
	c->fs.v = grow(c->fs.v, &c->fs.cap, c->fs.n + fs->n, sizeof *c->fs.v, c->fs.oom);
	if (!*c->fs.oom) {
		size_t base = c->fs.n;
		for (size_t i = 0; i < fs->n; i++) {
			c->fs.v[base + i] = fs->v[i];
			c->fs.v[base + i].seq = (uint32_t)(base + fs->v[i].seq);
		}
		c->fs.n = base + fs->n;
	}
	free(fs->v);
	free(fs->ev);
	buf_finish(&h->c.msg);
	buf_finish(&h->c.sum);
	fs->v = NULL;
	fs->ev = NULL;
}

/* Every invocation's findings; in two threads, one per half of the
 * invocations, on a large history. */
static void invocation_findings(struct ctx *c)
{
	size_t n = c->ao->pub.n_invocations;
	if (!use_threads(n)) {
		findings_of(c, 0, n);
		return;
	}
	struct half h = {.from = n / 2, .to = n};
	h.c = (struct ctx){
		.w = c->w,
		.ao = c->ao,
		.texts = &h.texts,
		.payload_limit = c->payload_limit,
		.sharing_phrase = c->sharing_phrase,
	};
	h.c.fs.oom = &h.oom;
	pthread_t t;
	bool threaded = pthread_create(&t, NULL, half_main, &h) == 0;
	findings_of(c, 0, h.from);
	if (threaded)
		pthread_join(t, NULL);
	else
		half_main(&h); /* no thread to be had: the same, in turn */
	half_merge(c, &h);
}

struct analysis *analysis_run(const struct event_log *log, const struct analysis_options *o, struct err *e)
{
	struct work w = {.log = log, .o = o, .n_events = event_log_count(log), .ds_first_present = NONE};
	struct ctx c = {.w = &w};
	struct analysis_owned *ao = NULL;
	struct analysis *res = NULL;
	/* Positions are uint32_t (analysis.h); no history comes near. */
	if (w.n_events >= UINT32_MAX) {
		release_events(log, o);
		err_set(e, ERR_INPUT, "history of %zu events: the analysis takes fewer than %" PRIu32, w.n_events,
			UINT32_MAX);
		return NULL;
	}
	ao = calloc(1, sizeof *ao);
	if (!ao)
		goto out;
	c.ao = ao;
	c.texts = &ao->texts;
	c.fs.oom = &w.oom;
	c.payload_limit = o && o->payload_limit ? o->payload_limit : DEFAULT_PAYLOAD_LIMIT;
	struct analysis *an = &ao->pub;

	/* The level as data_sharing will take it, if it is given. */
	const struct event_run_info *ri = event_log_run_info(log);
	if (o && o->sharing != SHARING_UNKNOWN)
		w.ds_given = o->sharing;
	else if (ri)
		w.ds_given = level_from_text(ri->data_sharing_level);
	scan(&w);
	work_release_scan(&w);
	if (w.oom)
		goto out;
	/* The last readers of the events: the history can go before the
	 * findings are made. */
	if (run_facts(&w, ao) < 0 || data_sharing(&w, ao) < 0)
		goto out;
	release_events(log, o);
	if (build_invocations(&w, ao) < 0 || collect_children(&w, ao) < 0)
		goto out;
	{
		struct sb s;
		sb_init(&s, &w.oom);
		sb_printf(&s, "%s, %s", data_sharing_level_name(an->sharing), an->sharing_source);
		c.sharing_phrase = sb_steal(&s);
		if (!c.sharing_phrase)
			goto out;
	}

	/* The pairs first, so that their working memory is gone before the
	 * other findings' messages exist. Findings are sorted by position,
	 * kind and order of making, and each kind comes from one pass, so the
	 * order of the passes does not show. */
	collect_pairs(&c, an);
	if (!w.oom)
		find_pairs(&c);
	work_release_pairs(&w);
	if (!w.oom)
		find_race_losers(&c, an);
	free(c.fs.ev);
	c.fs.ev = NULL;
	c.fs.n_ev = c.fs.cap_ev = 0;
	invocation_findings(&c);
	find_orphans(&c);
	if (w.oom)
		goto out;
	work_finish(&w, ao);
	free(c.fs.ev);
	c.fs.ev = NULL;
	an->n_findings = c.fs.n;
	an->findings = findings_take(&c.fs);
	limits(&c);
	if (w.oom)
		goto out;
	res = an;
	ao = NULL;
out:
	if (!res) {
		release_events(log, o);
		err_set(e, ERR_INTERNAL, "out of memory analysing %zu events", w.n_events);
	}
	free(c.fs.v);
	free(c.fs.ev);
	free(c.sharing_phrase);
	for (size_t i = 0; i < c.n_run_limits; i++)
		free(c.run_limits[i]);
	free(c.run_limits);
	buf_finish(&c.msg);
	buf_finish(&c.sum);
	work_finish(&w, ao);
	if (ao)
		analysis_free(&ao->pub);
	return res;
}

bool analysis_catalyst_shaped(const struct event_log *log)
{
	if (event_log_dialect(log) == DIALECT_CATALYST)
		return true;
	/* Only a Catalyst run document names a project or a data-sharing
	 * level around its events. */
	const struct event_run_info *ri = event_log_run_info(log);
	return ri && (str_set(ri->project) || str_set(ri->data_sharing_level));
}

void analysis_free(struct analysis *a)
{
	if (!a)
		return;
	struct analysis_owned *ao = (struct analysis_owned *)(void *)a;
	free(a->findings); /* messages and evidence are in the text blocks */
	free(a->invocations);
	free(ao->attempt_pool);
	free(ao->timer_pool);
	free(a->withheld);
	free(a->sharing_source);
	for (size_t i = 0; i < a->n_limits; i++)
		free(a->limits[i]);
	free(a->limits);
	free(a->limit_specific);
	free(a->child_instances);
	free(ao->status);
	text_free(ao->texts);
	free(ao);
}

/* ---------------------------------------------------------------------- */
/* Names. */

static const char *const kind_ids[FINDING_KIND_COUNT] = {
	[FINDING_REEXECUTED] = "reexecuted",
	[FINDING_AMBIGUOUS_FAILURE_RETRIED] = "ambiguous_failure_retried",
	[FINDING_DUPLICATE_RESULT] = "duplicate_result",
	[FINDING_OVERLAPPING_CALL] = "overlapping_call",
	[FINDING_REPEATED_CALL] = "repeated_call",
	[FINDING_PERMANENT_FAILURE_RETRIED] = "permanent_failure_retried",
	[FINDING_UNRESOLVED_ATTEMPT] = "unresolved_attempt",
	[FINDING_CHILD_WORKFLOW_RETRIED] = "child_workflow_retried",
	[FINDING_ORPHAN_RETRY_TIMER] = "orphan_retry_timer",
	[FINDING_LARGE_PAYLOAD] = "large_payload",
};

const char *finding_kind_id(enum finding_kind k)
{
	if ((unsigned)k >= FINDING_KIND_COUNT)
		return "unknown";
	return kind_ids[k];
}

enum severity finding_kind_severity(enum finding_kind k)
{
	switch (k) {
	case FINDING_AMBIGUOUS_FAILURE_RETRIED:
	case FINDING_DUPLICATE_RESULT:
	case FINDING_OVERLAPPING_CALL:
	case FINDING_REPEATED_CALL:
	case FINDING_UNRESOLVED_ATTEMPT:
	case FINDING_CHILD_WORKFLOW_RETRIED:
		return SEVERITY_SUSPECT;
	case FINDING_REEXECUTED:
	case FINDING_PERMANENT_FAILURE_RETRIED:
	case FINDING_ORPHAN_RETRY_TIMER:
	case FINDING_LARGE_PAYLOAD:
	case FINDING_KIND_COUNT:
		break;
	}
	return SEVERITY_NOTICE;
}

const char *severity_name(enum severity s)
{
	return s == SEVERITY_SUSPECT ? "suspect" : "notice";
}

const char *attempt_outcome_name(enum attempt_outcome o)
{
	switch (o) {
	case OUTCOME_COMPLETED:
		return "completed";
	case OUTCOME_FAILED:
		return "failed";
	case OUTCOME_PENDING:
		break;
	}
	return "pending";
}

const char *data_sharing_level_name(enum data_sharing_level l)
{
	switch (l) {
	case SHARING_METADATA:
		return "metadata";
	case SHARING_FULL:
		return "full";
	case SHARING_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *withheld_field_name(enum withheld_field f)
{
	switch (f) {
	case WITHHELD_OUTPUT:
		return "output";
	case WITHHELD_CUSTOM_STATUS:
		return "customStatus";
	case WITHHELD_INPUT:
		break;
	}
	return "input";
}

const char *withheld_event_type(const struct withheld *w)
{
	return event_kind_name((enum event_kind)w->kind);
}

const char *invocation_link_name(enum invocation_link l)
{
	switch (l) {
	case LINK_EXECUTION_ID:
		return "execution_id";
	case LINK_TIMER_ORIGIN:
		return "timer_origin";
	case LINK_PATTERN:
		return "pattern";
	case LINK_SINGLE:
		break;
	}
	return "single";
}
