#pragma once
/* What the analysis' files share, and only they (include/analysis.h is
 * the interface). The analysis runs in two phases (analysis.c):
 *
 * - analysis_scan.c reads the events once, in history order, into the
 *   working state (struct work): attempts, results, timers, turns, run
 *   facts and the data-sharing evidence; analysis_group.c links attempts
 *   as the pass goes (execution id, retry parent, retry timer origin, the
 *   failure-timer-schedule pattern), and analysis_limits.c decides the
 *   data-sharing level. The events are not read after this.
 * - analysis_group.c then puts the attempts in invocations;
 *   analysis_findings.c runs the finding rules (analysis_rules.c, and the
 *   pairs of calls in analysis_pairs.c) and analysis_limits.c writes the
 *   limits. Messages are built with analysis_text.c.
 *
 * Working state is freed as soon as no later step needs it: a history of
 * 128,000 attempts is held whole, so every byte counts. */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis.h"
#include "buf.h"

#define NONE SIZE_MAX
/* uint32_t indexes (history positions, attempts, timers, queues): the
 * history is under UINT32_MAX events (analysis_scan checks), and there are
 * never more of any of these than events. */
#define NONE32 UINT32_MAX
/* Id lists inside messages stay readable. */
#define LIST_MAX 8
#define QUOTE_MAX 160

static inline bool str_set(const char *s)
{
	return s && *s;
}

static inline const char *or_none(const char *s)
{
	return str_set(s) ? s : "(none)";
}

/* On failure (or after one) p comes back unchanged with *oom set, so that
 * `arr = grow(arr, ...)` never loses what is to be freed. */
static inline void *grow(void *p, size_t *cap, size_t need, size_t size, bool *oom)
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

/* ---------------------------------------------------------------------- */
/* analysis_map.c: maps keyed by (generation, integer) and (generation,
 * string). No deletion, so linear probing stays simple. */

struct imap_slot {
	int64_t key;
	uint32_t tag; /* generation + 1; 0 = empty */
	uint32_t value;
};

/* Event ids count a generation's actions from 0, so keys [0, n_direct)
 * are first kept in a direct array, an entry a key: 8 bytes a call where
 * a slot took 32 at half load, and no probing. A key outside it, or whose
 * entry another generation holds, goes in the slots. */
struct imap_direct {
	uint32_t tag; /* generation + 1; 0 = empty */
	uint32_t value;
};

struct imap {
	struct imap_slot *slots;
	size_t cap, count;
	struct imap_direct *direct;
	size_t n_direct;
};

/* Keys are NUL-terminated: the hash covers the length, strcmp the rest. */
struct smap_slot {
	const char *key; /* NULL = empty */
	uint64_t hash;
	uint32_t gen;
	uint32_t value;
};

/* A key interned by the log (smap_reserve_interned) first goes in a direct
 * array by its number (event_log_str_ord): no hash, and the numbers come
 * in the order the scan meets the keys, so its entries are written one
 * after the other where a hashed slot missed the cache at every call (a
 * third of the scan, on 128,000 calls). A key whose entry another holds
 * goes in the slots. */
struct smap_direct {
	const char *key; /* NULL = empty */
	uint32_t gen;
	uint32_t value;
};

struct smap {
	struct smap_slot *slots;
	size_t cap, count;
	struct smap_direct *direct;
	size_t n_direct;
};

void imap_free(struct imap *m);
/* Room for keys [0, span) in the direct array; others go in slots grown
 * as they fill. */
int imap_reserve(struct imap *m, size_t span);
uint32_t *imap_find(const struct imap *m, uint32_t gen, int64_t key);
/* Sets (or overwrites) the value. */
int imap_put(struct imap *m, uint32_t gen, int64_t key, uint32_t value);
void smap_free(struct smap *m);
/* Room for n keys; filled: all of them will come (as imap_reserve), else
 * the table's pages come as they are written. */
int smap_reserve(struct smap *m, size_t n, bool filled);
/* Every key of m will be a string log interned, under n_strings numbers
 * (event_log_str_count): they are kept by number. Only before the first
 * key. */
int smap_reserve_interned(struct smap *m, size_t n_strings);
uint32_t *smap_find(const struct smap *m, uint32_t gen, const char *key);
/* Inserts when absent; returns the slot's value pointer (existing or new),
 * NULL on allocation failure. *fresh says which. */
uint32_t *smap_get_or_put(struct smap *m, uint32_t gen, const char *key, uint32_t value, bool *fresh);

/* ---------------------------------------------------------------------- */
/* The working state of one analysis. */

enum link_flag {
	LINKED_EXEC = 1u << 0,        /* same task_execution_id / child instance id */
	LINKED_ORIGIN = 1u << 1,      /* a retry timer's origin or a retry parent */
	LINKED_PATTERN = 1u << 2,     /* inferred: failure, timer, schedule */
	LINKED_ORDER = 1u << 3,       /* inferred: failure, the next turn's only call of the name */
	LINKED_ORDER_BLIND = 1u << 4, /* ... with inputs that cannot be compared */
};

/* What the analysis keeps of an attempt beside the attempt itself, in
 * history order. The attempts are scanned straight into the array that
 * becomes the analysis' attempt pool (grouped by invocation in place), so
 * there is no second copy of them: this is 40 bytes, an attempt 88. */
struct work_attempt {
	const char *name;
	uint32_t gen;
	uint32_t uf;          /* union-find parent; roots are the earliest attempt */
	uint32_t inv;         /* invocation index, after grouping */
	uint32_t dup_head;    /* first duplicate result in work.dups, or NONE32 */
	uint32_t slot;        /* its place in the attempt array: i until grouped */
	uint32_t turn;        /* the orchestrator turn that scheduled it */
	uint32_t result_turn; /* the turn its first result came in, or NONE32 */
	uint8_t flags;        /* link_flag, meaningful on roots */
	uint8_t cause;        /* turn_cause flags of that turn's inputs */
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

/* Two inputs compared (analysis_payload_compare). */
enum cmp {
	CMP_SAME,
	CMP_DIFF,
	CMP_UNKNOWN,
	CMP_TRUNCATED, /* only equal prefixes are known */
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
	uint32_t unpaired;    /* the unpaired child failure it answers, or NONE32 */
	uint8_t origin;       /* enum timer_origin */
	bool retry;           /* a retry timer (by origin, or by pattern) */
	bool pattern;
	bool origin_unmatched; /* its origin named no attempt; linked by pattern */
	bool orphan;
	bool fired;
};

/* A child result row that named no scheduled id while several children
 * were pending (`dapr workflow history`: a parallel fan-out), kept for
 * the pairing by elimination at the end of the scan. */
struct unpaired {
	uint32_t index; /* its position */
	uint32_t gen;
	uint32_t attempt; /* paired with, or NONE32 */
	bool failed;
};

/* The first retry timer of a kind that was linked by order (see work). */
struct order_link {
	size_t n;       /* how many timers of the kind */
	uint32_t timer; /* the first one, in w->tim, until the invocations exist */
	int64_t timer_id;
	const char *origin; /* the origin id it named (unmatched only) */
	bool child;
	/* Filled by analysis_group_invocations: the call whose failure it
	 * follows, and whether a retry came after it fired. */
	const char *name;
	int64_t scheduled_id;
	uint32_t event_index;
	bool fired;
	bool retried;
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

/* Two calls of one name in different invocations (analysis_pairs.c). */
struct pair {
	uint32_t group;
	uint32_t earlier, later; /* attempt indexes */
	uint8_t kind;            /* enum finding_kind */
	uint8_t cmp;             /* enum cmp of their inputs */
	bool never_resolved;     /* the earlier call never got a result */
	bool limit;              /* inputs not comparable: a limit, not a finding */
};

struct work {
	/* Read by the scan phase only: both are NULL in the finish phase. */
	const struct event_log *log;
	/* analysis_scan_release: the same log, whose scanned events are given
	 * back as the scan passes them; NULL otherwise. */
	struct event_log *release;
	const struct analysis_options *o;
	bool oom;
	/* What the finish phase needs of the options and the log. */
	size_t payload_limit;
	unsigned threads;
	enum event_dialect dialect; /* for its words only: what it can say is caps */
	unsigned caps;              /* event_log_caps */

	struct attempt *att;     /* history order; grouped in place by analysis_group_invocations */
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
	 * analysis_race_losers); unresolved_attempt leaves these to the limits. */
	bool *race_loser;
	bool in_actions;       /* the turn's actions have begun */
	uint8_t turn_cause;    /* enum turn_cause of the current turn */
	uint32_t *failed_fifo; /* failures not yet followed by a timer (pattern) */
	size_t n_failed, failed_head, cap_failed;
	bool has_origins;

	/* Run facts, gathered by the scan: the events may be gone after it. */
	struct run_version *versions; /* handed to the analysis by run_facts */
	size_t n_versions, cap_versions;
	struct run_stall *stalls;
	size_t n_stalls, cap_stalls;
	size_t n_results, n_attested;
	const char *tampered;
	const char *tampered_type; /* its error type, as the history spells it */
	size_t n_events;
	size_t n_started;
	size_t n_continue_as_new;
	bool completed_seen;
	uint32_t completed_gen;
	const char *completed_status; /* of that ExecutionCompleted */
	const char *completed_at;     /* its timestamp (or ExecutionTerminated's) */
	bool completed_error;         /* it carries an error type or message */
	bool terminated;
	const char *first_workflow;   /* first ExecutionStarted name / instance id set */
	const char *first_started_at; /* and its timestamp */
	const char *first_instance;
	size_t n_unmatched_results;
	int64_t first_unmatched_tsid;
	size_t n_orphans;
	/* Retry timers whose origin named no attempt, linked by order to the
	 * failure they answer: the first one, for the limit. */
	/* Retry timers linked by order, not by a recorded origin: those whose
	 * origin named no attempt, and those without one in a history where
	 * other timers record one. The limit that says so names the first of
	 * each and what it was paired with (filled once the invocations are
	 * built), so it never claims a link the findings do not show. */
	struct order_link unmatched, missing;

	/* What the data-sharing level is decided on, also gathered by the scan. */
	size_t ds_slots, ds_absent;
	size_t ds_first_present; /* NONE until a payload key is seen */
	enum withheld_field ds_first_field;
	enum event_kind ds_first_kind;
	enum data_sharing_level ds_given; /* by the options or a run field, else UNKNOWN */
	/* The withheld payloads, collected while they may be reported (the
	 * level is not full, or not known yet): the analysis' array if so. */
	struct withheld *wh;
	size_t n_wh, cap_wh;
	enum payload_view view; /* set by analysis_data_sharing */

	/* Pairs of calls, chained per group (analysis_pairs.c); done marks the
	 * pairs whose finding or limit is made. */
	struct pair *pairs;
	size_t n_pairs, cap_pairs;
	uint32_t *pair_head, *pair_next;
	bool *pair_done;

	/* A rerun (Dapr 1.16 and later): a new instance whose events before
	 * the re-driven one are copies of the source run's. From 1.17 the
	 * re-driven TaskScheduled, TimerCreated or ChildWorkflowInstanceCreated
	 * names the source (rerunParentInstanceInfo); 1.16 writes nothing. */
	const char *rerun_parent;         /* this run reran that instance */
	uint32_t rerun_index;             /* position of the re-driven event, or NONE32 */
	int64_t rerun_event_id;           /* its event id */
	uint8_t rerun_kind;               /* its enum event_kind */
	const char *rerun_name;           /* its name */
	struct text_block **arena;        /* the analysis' blocks: the attempts' struct attempt_more */
	const struct analysis *rerun_src; /* the source run, analysed, if it was had */
	const char *rerun_src_why;        /* why not, when it was not */

	/* Child creations that show no instance id (`dapr workflow history`
	 * prints none, nor a retry parent, nor a scheduled id on a child's
	 * failure): results and retry timers are paired with them by order,
	 * and the limits say so. */
	size_t n_child_no_id;
	uint32_t child_pend_n, child_pend_xor; /* child attempts of this generation without a result */
	size_t n_child_unpaired;               /* results naming no scheduled id, several children pending */
	uint32_t first_child_unpaired;
	struct unpaired *unp; /* those results, for the pairing by elimination */
	size_t n_unp, cap_unp;
	size_t unp_head;           /* the first one a retry timer may still answer */
	size_t n_child_eliminated; /* paired by elimination after the scan */

	bool cls_valid, cls_nr;
	const char *cls_type, *cls_msg, *cls_cause_type, *cls_cause_msg;
	enum failure_class cls;
};

struct text_block;

/* The analysis and what it owns beyond the public fields. */
struct analysis_owned {
	struct analysis pub;
	struct attempt *attempt_pool;
	int64_t *timer_pool;
	char *status;
	struct text_block *texts; /* finding messages and evidence */
	size_t cap_limits, cap_limit_flags, cap_children;
};

/* An attempt copied from the run this one reruns: it ran there. */
static inline bool att_copied(const struct work *w, const struct attempt *a)
{
	return w->rerun_index != NONE32 && a->event_index < w->rerun_index;
}

/* Attempt i in history order, wherever grouping put it. */
static inline const struct attempt *att_at(const struct work *w, size_t i)
{
	return &w->att[w->wa[i].slot];
}

/* Every value in the fire and pend_* maps is an index analysis_queue_of
 * returned (one that could not be made leaves w->oom set, which ends the
 * scan before anyone looks it up). The pointer is only good until the next
 * queue is made. */
static inline struct queue *queue_at(struct work *w, uint32_t q)
{
	assert(w->queues && q < w->n_queues);
	return &w->queues[q];
}

/* analysis_scan.c: the pass over the events, into w. */
void analysis_scan_events(struct work *w);

/* analysis_group.c: links made during the pass (each called by it at the
 * event named), then the invocations. */
/* The queue kept in m under (w->gen, key), made when absent; NONE32 when
 * out of memory (w->oom set). */
uint32_t analysis_queue_of(struct work *w, struct smap *m, const char *key);
void analysis_link_attempt(struct work *w, uint32_t k, const struct event *ev); /* TaskScheduled, ChildCreated */
void analysis_link_timer(struct work *w, uint32_t k, const struct event *ev);   /* TimerCreated */
void analysis_link_fired(struct work *w, uint32_t k);                           /* TimerFired, k matched */
void analysis_link_failed(struct work *w, uint32_t attempt);                    /* a failure result */
/* Any other action: the pattern link joins only a timer made in direct
 * answer to a failure. */
static inline void analysis_link_break(struct work *w)
{
	w->n_failed = w->failed_head = 0;
	w->unp_head = w->n_unp;
}
/* At the end of the pass: child results that named no scheduled id
 * paired by elimination, and the retry timers that answered them linked. */
void analysis_link_unpaired(struct work *w);
/* Frees what only the pass uses (the linking maps and queues). */
void analysis_link_release(struct work *w);
/* Groups the attempts into the analysis' invocations (the attempt array
 * becomes its pool) and lists the child instances. */
int analysis_group_invocations(struct work *w, struct analysis_owned *ao);

/* analysis_limits.c: the data-sharing level, the withheld payloads and the
 * limits. */
enum data_sharing_level analysis_sharing_given(const struct event_log *log, const struct analysis_options *o);
int analysis_data_sharing(struct work *w, struct analysis_owned *ao);

/* ---------------------------------------------------------------------- */
/* analysis_text.c: messages are built in a struct sb: a finding's buffer
 * is lent by its context and given back by analysis_finding_finish, so the
 * ~670-byte messages of a large history cost no allocation each. Out of
 * memory sets *oom, which every step checks. */
struct sb {
	struct buf b;
	bool *oom;
};

void sb_init(struct sb *s, bool *oom);
void sb_printf(struct sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text, the caller's (NULL after an out-of-memory). */
char *sb_steal(struct sb *s);
/* Server text quoted into a message: cut at a UTF-8 boundary. */
void sb_quote(struct sb *s, const char *text);
/* A type is a short name; a hostile one is cut like a message. */
void sb_type(struct sb *s, const char *type);
void sb_error(struct sb *s, const struct attempt *a);
/* The scheduled ids of n attempts, the first LIST_MAX of them. */
void sb_id_list(struct sb *s, const struct attempt *at, size_t n);

/* ---------------------------------------------------------------------- */
/* analysis_findings.c: findings in the making, and the passes. */

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

struct finding_ctx {
	struct work *w;
	struct analysis_owned *ao;
	struct findings fs;
	struct text_block **texts; /* where messages and evidence go */
	struct buf msg;            /* the message buffer analysis_finding_text lends */
	struct buf sum;            /* and the summary's */
	/* Run-specific limits the finding passes make (calls whose inputs
	 * could not be compared, race losers), handed to the analysis' limits
	 * by analysis_limits. */
	char **run_limits;
	size_t n_run_limits, cap_run_limits;
};

/* The finding kinds (doc/PRODUCT.md), one row each, in enum order: a new kind
 * is a row in analysis_rules.c and its detect function. */
struct finding_rule {
	enum finding_kind kind;
	const char *id; /* the stable identifier: JSON "kind", --fail-on */
	enum severity severity;
	/* Exactly one of the two is set; each appends the kind's findings
	 * (analysis_finding_new, the evidence, analysis_finding_text, then
	 * analysis_finding_finish). detect sees one invocation at a time: the
	 * pass that is split over two threads on a large history, so it writes
	 * nothing but its findings. detect_run sees the whole run once, for a
	 * kind that spans invocations (two calls of one name) or has none (a
	 * retry timer with no attempt). */
	void (*detect)(struct finding_ctx *c, const struct invocation *inv);
	void (*detect_run)(struct finding_ctx *c);
	/* The kind's advice, what a report's "What to do" prints for its
	 * findings (analysis_finding_finish with remedy NULL). A finding whose
	 * case needs other advice (a child workflow's, or per-attempt execution
	 * ids) names one of the shared remedies instead. */
	const char *explain;
};

extern const struct finding_rule analysis_rules[FINDING_KIND_COUNT];

struct finding_build *analysis_finding_new(struct finding_ctx *c, enum finding_kind kind, const char *activity,
					   const char *exec_id, uint32_t anchor);
/* The event at position idx as evidence of b (id: its event id when it is
 * an action, else -1); sorted and stored by analysis_finding_finish. */
static inline void analysis_evidence_add(struct finding_ctx *c, struct finding_build *b, uint32_t idx, int64_t id)
{
	struct findings *fs = &c->fs;
	if (*fs->oom || !b || idx == NONE32)
		return;
	fs->ev = grow(fs->ev, &fs->cap_ev, fs->n_ev + 1, sizeof *fs->ev, fs->oom);
	if (*fs->oom)
		return;
	fs->ev[fs->n_ev++] = (struct evidence){.index = idx, .id = id};
}

/* An attempt's own schedule as evidence. */
static inline void analysis_evidence_attempt(struct finding_ctx *c, struct finding_build *b,
					     const struct attempt *a)
{
	analysis_evidence_add(c, b, a->event_index, a->scheduled_id);
}

/* A finding's message and summary buffers: the context's, lent until
 * analysis_finding_finish (which every call is paired with) gives them back. */
void analysis_finding_text(struct finding_ctx *c, struct sb *s, struct sb *t);
/* s: the message (the fact, its detail, the remedy for this finding);
 * t: the summary (the fact in one line); remedy: the advice, NULL for the
 * rule's own. b may be NULL (out of memory): the buffers are given back. */
void analysis_finding_finish(struct finding_ctx *c, struct finding_build *b, struct sb *s, struct sb *t,
			     const char *remedy);
/* As analysis_finding_finish, for a finding whose text is made when it is
 * read (struct finding's text_of, set by the rule). */
void analysis_finding_finish_untold(struct finding_ctx *c, struct finding_build *b, const char *remedy);
/* Keeps a limit sentence of this run's own (text NULL: out of memory,
 * already flagged), for analysis_limits to place with the others. */
void analysis_run_limit_add(struct finding_ctx *c, char *text);
/* Runs every rule: the findings into c->fs, the limits they find into
 * c->run_limits. -1: out of memory. */
int analysis_findings(struct finding_ctx *c);
/* The findings, in report order, into the analysis. */
void analysis_findings_take(struct finding_ctx *c);
void analysis_texts_free(struct text_block *b);
/* size bytes aligned to align (a power of two, at most 8) in the text
 * blocks at *head, freed with them; NULL when out of memory. */
void *analysis_arena_alloc(struct text_block **head, size_t size, size_t align);

/* analysis_rules.c: the rules (above), and what analysis_findings runs
 * before them for unresolved_attempt: the single calls a finished run left
 * without a result while a call of the same turn got its own (a limit, not
 * a finding). */
void analysis_race_losers(struct finding_ctx *c);

/* analysis_pairs.c: the pairs of calls, found once for both kinds; those
 * whose inputs cannot be compared become run limits here. */
void analysis_pairs_collect(struct finding_ctx *c);
/* Two inputs: where an absent key means no payload (VIEW_VISIBLE) it
 * compares as null; anywhere else it cannot be compared. */
enum cmp analysis_payload_compare(const struct payload *a, const struct payload *b, enum payload_view view);
void analysis_pairs_release(struct work *w);
void analysis_find_overlapping(struct finding_ctx *c);
void analysis_find_repeated(struct finding_ctx *c);

/* analysis_limits.c */
void analysis_limits(struct finding_ctx *c);
