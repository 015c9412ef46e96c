/* overlapping_call and repeated_call: two calls of one activity name in
 * different invocations (analysis.h says when they pair). One walk over
 * the attempts in history order finds the pairs of both kinds, chained per
 * (generation, name) group; each kind's rule then makes one finding per
 * group from its pairs. Pairs whose inputs cannot be compared are not
 * findings but run-specific limits, made with the pairs. */

#include <assert.h>
#include <inttypes.h>
#include <string.h>

#include "analysis_internal.h"

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

enum cmp analysis_payload_compare(const struct payload *a, const struct payload *b, enum payload_view view)
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

/* What the pairs of p0's group that share its kind and limit say of their
 * inputs, together. */
static enum cmp group_cmp(const struct work *w, const struct pair *p0)
{
	enum cmp v = CMP_SAME;
	for (uint32_t j = w->pair_head[p0->group]; j != NONE32; j = w->pair_next[j])
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
		enum cmp v = analysis_payload_compare(&att_at(w, st->holder)->input, &at->input, w->view);
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
	enum cmp v = analysis_payload_compare(&att_at(w, st->last_first)->input, &at->input, w->view);
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
static void collect_pairs(struct finding_ctx *c, const struct analysis *an)
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
		/* A rerun's copies ran in the source run, not in this one. */
		if (att_copied(w, at))
			continue;
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
static void sb_why_incomparable(struct finding_ctx *c, struct sb *s, enum cmp verdict)
{
	if (verdict == CMP_TRUNCATED) {
		sb_printf(s, "this history shows only the first 120 characters of each (dapr workflow history "
			     "cuts payloads short), and those were the same");
		return;
	}
	switch (c->w->view) {
	case VIEW_WITHHELD:
		sb_printf(s, "they were not shared at this organization's data-sharing level (%s, %s)",
			  data_sharing_level_name(c->ao->pub.sharing), c->ao->pub.sharing_source);
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

static void sb_inputs(struct finding_ctx *c, struct sb *s, enum cmp verdict, bool present, unsigned cause)
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
static uint32_t *pair_calls(struct work *w, const struct pair *p0, size_t *n)
{
	size_t cap = 0, len = 0;
	uint32_t *v = NULL;
	for (uint32_t j = w->pair_head[p0->group]; j != NONE32; j = w->pair_next[j]) {
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

/* The scheduled ids of calls (attempt indexes), the first LIST_MAX of them. */
static void sb_calls(struct sb *s, const struct work *w, const uint32_t *calls, size_t n)
{
	for (size_t i = 0; i < n && i < LIST_MAX; i++)
		sb_printf(s, "%s%" PRId64, i ? ", " : "", att_at(w, calls[i])->scheduled_id);
	if (n > LIST_MAX)
		sb_printf(s, " and %zu more", n - LIST_MAX);
}

/* A run-specific limit for calls whose inputs could not be compared. */
static void calls_limit(struct finding_ctx *c, const struct pair *p0)
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
		for (uint32_t j = w->pair_head[p0->group]; j != NONE32; j = w->pair_next[j]) {
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
		sb_why_incomparable(c, &s, group_cmp(w, p0));
		sb_printf(&s, "; so whether these were calls for different items or the same call made twice "
			      "cannot be told from this history.");
	} else {
		size_t n = 0;
		uint32_t *calls = pair_calls(w, p0, &n);
		if (!calls) {
			buf_finish(&s.b);
			return;
		}
		sb_printf(&s,
			  "%s was called %zu times outside a retry chain, each call after the previous one "
			  "had ended without failing (task_scheduled_id ",
			  name, n);
		sb_calls(&s, w, calls, n);
		free(calls);
		sb_printf(&s, "): the shape of a loop over items. Their inputs cannot be compared: ");
		sb_why_incomparable(c, &s, group_cmp(w, p0));
		sb_printf(&s, "; so whether these were calls for different items or the same call made again "
			      "cannot be told from this history.");
	}
	analysis_run_limit_add(c, sb_steal(&s));
}

/* Chains the pairs per group, in pair order, for the walks below. */
static void chain_pairs(struct work *w)
{
	size_t n_groups = 0;
	for (size_t i = 0; i < w->n_pairs; i++)
		if (w->pairs[i].group + 1 > n_groups)
			n_groups = w->pairs[i].group + 1;
	uint32_t *tail = malloc((n_groups ? n_groups : 1) * sizeof *tail);
	w->pair_head = malloc((n_groups ? n_groups : 1) * sizeof *w->pair_head);
	w->pair_next = malloc((w->n_pairs ? w->n_pairs : 1) * sizeof *w->pair_next);
	w->pair_done = calloc(w->n_pairs ? w->n_pairs : 1, sizeof *w->pair_done);
	if (!tail || !w->pair_head || !w->pair_next || !w->pair_done) {
		free(tail);
		w->oom = true;
		return;
	}
	for (size_t g = 0; g < n_groups; g++)
		w->pair_head[g] = tail[g] = NONE32;
	for (size_t i = 0; i < w->n_pairs; i++) {
		uint32_t g = w->pairs[i].group;
		/* Groups are indexes into collect_pairs' table: the count above
		 * covers them all. */
		assert(g < n_groups);
		w->pair_next[i] = NONE32;
		if (tail[g] == NONE32)
			w->pair_head[g] = (uint32_t)i;
		else
			w->pair_next[tail[g]] = (uint32_t)i;
		tail[g] = (uint32_t)i;
	}
	free(tail);
}

/* fn once per group and kind, on the group's first pair of that kind, for
 * the pairs that are limits (limit) or findings (!limit) of kind (any kind:
 * FINDING_KIND_COUNT), in pair order; the group's other pairs of the kind
 * are fn's to read and are done with. */
static void pairs_each(struct finding_ctx *c, enum finding_kind kind, bool limit,
		       void (*fn)(struct finding_ctx *c, const struct pair *p0))
{
	struct work *w = c->w;
	for (size_t i = 0; i < w->n_pairs && !w->oom; i++) {
		const struct pair *p0 = &w->pairs[i];
		if (w->pair_done[i] || p0->limit != limit || (kind != FINDING_KIND_COUNT && p0->kind != kind))
			continue;
		for (uint32_t j = w->pair_head[p0->group]; j != NONE32; j = w->pair_next[j]) {
			if (w->pairs[j].kind == p0->kind && w->pairs[j].limit == p0->limit)
				w->pair_done[j] = true;
		}
		fn(c, p0);
	}
}

void analysis_pairs_collect(struct finding_ctx *c)
{
	struct work *w = c->w;
	collect_pairs(c, &c->ao->pub);
	if (!w->oom)
		chain_pairs(w);
	if (!w->oom)
		pairs_each(c, FINDING_KIND_COUNT, true, calls_limit);
}

void analysis_pairs_release(struct work *w)
{
	free(w->pairs);
	free(w->pair_head);
	free(w->pair_next);
	free(w->pair_done);
	w->pairs = NULL;
	w->pair_head = w->pair_next = NULL;
	w->pair_done = NULL;
	w->n_pairs = w->cap_pairs = 0;
}

/* What the pairs of p0's group and kind that are findings say together. */
struct pair_class {
	const struct attempt *e0, *l0; /* p0's calls */
	const char *name;
	size_t n;         /* pairs */
	enum cmp verdict; /* of their inputs */
	unsigned cause;   /* turn_cause of the calls whose inputs were not comparable */
	bool present;     /* the earlier call had an input */
};

/* The finding of p0's class, with its calls (and, for an overlap, the
 * earlier call's result) as evidence. */
static struct finding_build *pair_finding(struct finding_ctx *c, const struct pair *p0, struct pair_class *k)
{
	struct work *w = c->w;
	*k = (struct pair_class){
		.e0 = att_at(w, p0->earlier),
		.l0 = att_at(w, p0->later),
		.name = w->wa[p0->later].name,
		.verdict = CMP_SAME,
	};
	struct finding_build *b =
		analysis_finding_new(c, p0->kind, k->name, k->l0->task_execution_id, k->e0->event_index);
	for (uint32_t j = w->pair_head[p0->group]; j != NONE32; j = w->pair_next[j]) {
		const struct pair *p = &w->pairs[j];
		if (p->kind != p0->kind || p->limit)
			continue;
		k->n++;
		if (incomparable(p->cmp)) {
			k->verdict = worse_cmp(k->verdict, p->cmp);
			k->cause |= w->wa[p->later].cause;
		}
		if (b) {
			analysis_evidence_attempt(c, b, att_at(w, p->earlier));
			analysis_evidence_attempt(c, b, att_at(w, p->later));
			if (p0->kind == FINDING_OVERLAPPING_CALL)
				analysis_evidence_add(c, b, att_at(w, p->earlier)->result_index, -1);
		}
	}
	k->present = k->e0->input.state == PAYLOAD_PRESENT;
	return b;
}

static void overlapping_finding(struct finding_ctx *c, const struct pair *p0)
{
	struct pair_class k;
	struct finding_build *b = pair_finding(c, p0, &k);
	struct sb s, t;
	analysis_finding_text(c, &s, &t);
	sb_printf(&t,
		  "called again (task_scheduled_id %" PRId64 ") while the earlier call (task_scheduled_id %" PRId64
		  ") was %s",
		  k.l0->scheduled_id, k.e0->scheduled_id,
		  p0->never_resolved ? "pending (it never got a result)" : "still in flight");
	if (k.n > 1)
		sb_printf(&t, " (and %zu more such call%s)", k.n - 1, k.n > 2 ? "s" : "");
	sb_printf(&s,
		  "%s was called again (task_scheduled_id %" PRId64
		  ", task_execution_id %s, not a retry) before the earlier call "
		  "(task_scheduled_id %" PRId64 ", task_execution_id %s) had %s, so "
		  "two executions were in flight at once",
		  or_none(k.name), k.l0->scheduled_id, or_none(k.l0->task_execution_id), k.e0->scheduled_id,
		  or_none(k.e0->task_execution_id),
		  p0->never_resolved ? "a result (it never got one)" : "its result");
	if (k.n > 1)
		sb_printf(&s, " (and %zu more such call%s)", k.n - 1, k.n > 2 ? "s" : "");
	sb_printf(&s, "; ");
	sb_inputs(c, &s, k.verdict, k.present, k.cause);
	sb_printf(&s, ". Key the side effect on a natural key from the input (each call "
		      "has its own task_execution_id) and make the write conditional on "
		      "it (unique constraint, upsert, conditional put, provider idempotency "
		      "key); record intent before a non-idempotent third-party call and "
		      "reconcile a pending one instead of re-issuing it.");
	analysis_finding_finish(c, b, &s, &t, NULL);
}

static void repeated_finding(struct finding_ctx *c, const struct pair *p0)
{
	struct work *w = c->w;
	struct pair_class k;
	struct finding_build *b = pair_finding(c, p0, &k);
	struct sb s, t;
	analysis_finding_text(c, &s, &t);
	size_t n_calls = 0;
	uint32_t *calls = pair_calls(w, p0, &n_calls);
	sb_printf(&t, "called %zu times outside a retry chain (task_scheduled_id ", n_calls);
	sb_calls(&t, w, calls, n_calls);
	sb_printf(&t, ")%s", k.verdict == CMP_SAME ? ", with identical inputs" : "");
	sb_printf(&s,
		  "%s was called %zu times outside a retry chain, each call after "
		  "the previous one had ended without failing (task_scheduled_id ",
		  or_none(k.name), n_calls);
	sb_calls(&s, w, calls, n_calls);
	free(calls);
	sb_printf(&s, "; task_execution_ids %s, %s%s); ", or_none(k.e0->task_execution_id),
		  or_none(k.l0->task_execution_id), k.n > 1 ? ", ..." : "");
	sb_inputs(c, &s, k.verdict, k.present, k.cause);
	sb_printf(&s, ". If the workflow meant one call, fix the workflow code; either "
		      "way key the side effect on a natural key from the input (each call "
		      "has its own task_execution_id) and make the write conditional on it "
		      "(unique constraint, upsert, conditional put, provider idempotency "
		      "key).");
	analysis_finding_finish(c, b, &s, &t, NULL);
}

void analysis_find_overlapping(struct finding_ctx *c)
{
	pairs_each(c, FINDING_OVERLAPPING_CALL, false, overlapping_finding);
}

void analysis_find_repeated(struct finding_ctx *c)
{
	pairs_each(c, FINDING_REPEATED_CALL, false, repeated_finding);
}
