/* Attempts joined into invocations (doc/history.md, "A grouping procedure",
 * step 2): union-find, the root always the earliest attempt, by non-empty
 * task_execution_id (or the child instance id, under which Python and Java
 * retry a child), by a child's retry parent, and by retry timers: a fired
 * timer whose origin names attempt X links the next scheduling of X's name
 * to X. Without any retry origin in the history (before Dapr 1.18) a timer
 * created right after a failure plays that role, and the link is marked as
 * inferred; so is a retry timer of a child whose creation shows no instance
 * id, paired with the child's failure by order. The links are made during
 * the scan (analysis_scan.c calls in at each event), the invocations after
 * it. */

#include <assert.h>
#include <string.h>

#include "analysis_internal.h"
#include "table_alloc.h"

static uint32_t queue_new(struct work *w)
{
	size_t q = PUSH(w, w->queues, w->n_queues, w->cap_queues);
	if (q == NONE)
		return NONE32;
	w->queues[q] = (struct queue){NONE32, NONE32};
	return (uint32_t)q;
}

uint32_t analysis_queue_of(struct work *w, struct smap *m, const char *key)
{
	bool fresh;
	uint32_t *qv = smap_get_or_put(m, w->gen, key, NONE32, &fresh);
	if (!qv) {
		w->oom = true;
		return NONE32;
	}
	if (fresh)
		*qv = queue_new(w);
	return *qv;
}

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

/* Joins attempt k to the first attempt of this generation under key in m,
 * or makes it that one. */
static int link_same_key(struct work *w, struct smap *m, const char *key, uint32_t k)
{
	bool fresh;
	uint32_t *v = smap_get_or_put(m, w->gen, key, k, &fresh);
	if (!v) {
		w->oom = true;
		return -1;
	}
	if (!fresh)
		uf_union(w, *v, k, LINKED_EXEC);
	return 0;
}

static bool child_without_id(const struct work *w, uint32_t attempt)
{
	return w->wa[attempt].is_child && !str_set(attempt_more(&w->att[attempt])->instance_id);
}

/* Takes the earliest failure waiting for its retry timer that is a child's
 * (or an activity's) and, unless root is NONE32, belongs to that union;
 * NONE32 when there is none. Timers follow their failures in order, so
 * this is the head almost always. */
static uint32_t take_failed(struct work *w, bool child, uint32_t root)
{
	for (size_t j = w->failed_head; j < w->n_failed; j++) {
		uint32_t a = w->failed_fifo[j];
		if (w->wa[a].is_child != child || (root != NONE32 && uf_find(w->wa, a) != root))
			continue;
		memmove(&w->failed_fifo[w->failed_head + 1], &w->failed_fifo[w->failed_head],
			(j - w->failed_head) * sizeof *w->failed_fifo);
		w->failed_head++;
		return a;
	}
	return NONE32;
}

/* A retry timer right after a child failure that named no scheduled id
 * (several children pending): it answers that failure, whose child is
 * known only once the scan is done (analysis_link_unpaired). */
static bool claim_unpaired(struct work *w, struct work_timer *t)
{
	while (w->unp_head < w->n_unp && !w->unp[w->unp_head].failed)
		w->unp_head++;
	if (w->unp_head >= w->n_unp)
		return false;
	t->unpaired = (uint32_t)w->unp_head++;
	t->retry = true;
	t->pattern = true;
	return true;
}

void analysis_link_unpaired(struct work *w)
{
	for (size_t k = 0; k < w->n_tim; k++) {
		struct work_timer *t = &w->tim[k];
		if (t->unpaired == NONE32)
			continue;
		uint32_t a = w->unp[t->unpaired].attempt;
		if (a == NONE32) {
			t->orphan = true;
			w->n_orphans++;
			continue;
		}
		t->target = a;
		if (t->fired_index == NONE32)
			continue;
		/* The next creation of the same name after it fired, not yet
		 * linked to anything. */
		for (size_t j = a + 1; j < w->n_att; j++) {
			const struct work_attempt *wj = &w->wa[j];
			if (w->att[j].event_index < t->fired_index || !wj->is_child || wj->gen != w->wa[a].gen)
				continue;
			if (!wj->name || !w->wa[a].name || strcmp(wj->name, w->wa[a].name) != 0)
				continue;
			if (uf_find(w->wa, (uint32_t)j) != j)
				continue; /* another timer's retry */
			uf_union(w, a, (uint32_t)j, LINKED_PATTERN);
			break;
		}
	}
}

void analysis_link_failed(struct work *w, uint32_t attempt)
{
	/* Queued with origins recorded too: a retry timer whose origin names
	 * no attempt (a child retried without an instance id given, on the
	 * .NET SDK, or a creation that shows none) falls back to the failure
	 * it answers, by order. */
	w->failed_fifo = grow(w->failed_fifo, &w->cap_failed, w->n_failed + 1, sizeof *w->failed_fifo, &w->oom);
	if (w->oom)
		return;
	w->failed_fifo[w->n_failed++] = attempt;
}

void analysis_link_attempt(struct work *w, uint32_t k, const struct event *ev)
{
	bool child = w->wa[k].is_child;
	if (!child && str_set(ev->task_execution_id) && link_same_key(w, &w->exec, ev->task_execution_id, k) < 0)
		return;
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
	/* Python and Java retry a child under the same instance id. */
	if (child && str_set(ev->instance_id))
		link_same_key(w, &w->child_inst, ev->instance_id, k);
}

void analysis_link_timer(struct work *w, uint32_t k, const struct event *ev)
{
	struct work_timer *t = &w->tim[k];
	if (ev->origin == ORIGIN_ACTIVITY_RETRY || ev->origin == ORIGIN_CHILD_RETRY) {
		t->retry = true;
		uint32_t *v = NULL;
		if (str_set(ev->origin_id))
			v = smap_find(ev->origin == ORIGIN_ACTIVITY_RETRY ? &w->exec : &w->child_inst, w->gen,
				      ev->origin_id);
		bool child = ev->origin == ORIGIN_CHILD_RETRY;
		if (v) {
			t->target = *v;
			/* The failure it answers waits no longer. */
			take_failed(w, child, uf_find(w->wa, *v));
			return;
		}
		/* The origin names no attempt here. The .NET SDK (1.18) names a
		 * child's retry chain after a GUID it makes for the first child
		 * and then never uses when no instance id is given, and `dapr
		 * workflow history` prints no instance id to match: the failure
		 * this timer answers, by order, as before origins. Only when
		 * there is none is the timer an orphan. */
		uint32_t f = take_failed(w, child, NONE32);
		if (f == NONE32 && child && claim_unpaired(w, t))
			return;
		if (f != NONE32) {
			t->target = f;
			t->pattern = true;
			if (!child_without_id(w, f)) {
				t->origin_unmatched = true;
				if (!w->unmatched.n++)
					w->unmatched = (struct order_link){.n = 1,
									   .timer = k,
									   .timer_id = t->event_id,
									   .origin = ev->origin_id,
									   .child = child};
			}
		} else {
			t->orphan = true;
			w->n_orphans++;
		}
		/* No clearing: several failures of one turn each wait for their
		 * own retry timer. */
		return;
	}
	/* No origin recorded: the failure it follows, by order, as before
	 * Dapr 1.18. Also where other timers of this history do record one
	 * (the .NET SDK's own TimerOriginTests build exactly that: a first
	 * retry timer without an origin, a later one with): left unlinked,
	 * its failure stayed queued and the next timer's fallback took the
	 * wrong one, and a two-attempt chain was counted as nothing. */
	if (ev->origin == ORIGIN_NONE && w->failed_head < w->n_failed) {
		t->retry = true;
		t->pattern = true;
		t->target = w->failed_fifo[w->failed_head++];
		if (w->has_origins && !w->missing.n++)
			w->missing = (struct order_link){.n = 1, .timer = k, .timer_id = t->event_id};
		return;
	}
	if (ev->origin == ORIGIN_NONE && claim_unpaired(w, t))
		return;
	analysis_link_break(w);
}

void analysis_link_fired(struct work *w, uint32_t k)
{
	const struct work_timer *t = &w->tim[k];
	if (t->target == NONE32)
		return;
	const struct work_attempt *target = &w->wa[t->target];
	if (!str_set(target->name))
		return;
	uint32_t qi = analysis_queue_of(w, target->is_child ? &w->pend_child : &w->pend_task, target->name);
	if (qi == NONE32)
		return;
	size_t n = PUSH(w, w->links, w->n_links, w->cap_links);
	if (n == NONE)
		return;
	w->links[n] = (struct link_node){.target = t->target, .pattern = t->pattern, .next = NONE32};
	struct queue *q = queue_at(w, qi);
	if (q->tail == NONE32)
		q->head = (uint32_t)n;
	else
		w->links[q->tail].next = (uint32_t)n;
	q->tail = (uint32_t)n;
}

/* What only the scan uses (its maps and queues, and the links': a quarter
 * of the analysis' memory on a large history), freed as soon as it is done. The
 * timer map stays: evidence looks retry timers up in it. */
void analysis_link_release(struct work *w)
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

/* Retries that leave no timer (doc/history.md, "Retries per SDK"): the
 * JavaScript SDK's retry handler returning true or 0, and a policy whose
 * first interval is zero, schedule the call again in the very turn that
 * processed the failure. Linked only in a run with no retry timer at all,
 * when that turn schedules exactly one call of the name and its input
 * equals the failed one's or cannot be compared; a loop that catches one
 * item's failure and calls the next item has the same shape, so inputs
 * that cannot be compared mark the link blind (reported as re-executed,
 * never as a suspect). */
static void link_untimed(struct work *w)
{
	for (size_t k = 0; k < w->n_tim; k++) {
		if (w->tim[k].retry)
			return;
	}
	bool any = false;
	for (size_t i = 0; i < w->n_att && !any; i++)
		any = w->att[i].outcome == OUTCOME_FAILED && w->wa[i].result_turn != NONE32;
	if (!any)
		return;
	/* (turn, name) -> the only call of that name in that turn, NONE32
	 * when there are several (the turn is the map's generation key). */
	struct smap once = {0};
	if (smap_reserve(&once, w->n_att, true) < 0) {
		w->oom = true;
		return;
	}
	for (size_t j = 0; j < w->n_att; j++) {
		const struct work_attempt *wj = &w->wa[j];
		if (!str_set(wj->name))
			continue;
		bool fresh;
		uint32_t *v = smap_get_or_put(&once, wj->turn, wj->name, (uint32_t)j, &fresh);
		if (!v) {
			w->oom = true;
			goto out;
		}
		if (!fresh)
			*v = NONE32;
	}
	for (size_t i = 0; i < w->n_att; i++) {
		const struct work_attempt *wf = &w->wa[i];
		if (w->att[i].outcome != OUTCOME_FAILED || wf->result_turn == NONE32 || !str_set(wf->name))
			continue;
		uint32_t *v = smap_find(&once, wf->result_turn, wf->name);
		if (!v || *v == NONE32 || *v <= i)
			continue;
		uint32_t j = *v;
		if (w->wa[j].is_child != wf->is_child || w->wa[j].gen != wf->gen || uf_find(w->wa, j) != j ||
		    uf_find(w->wa, (uint32_t)i) == j)
			continue;
		enum cmp c = analysis_payload_compare(&w->att[i].input, &w->att[j].input, w->view);
		if (c == CMP_DIFF)
			continue;
		uf_union(w, (uint32_t)i, j, LINKED_ORDER | (c == CMP_SAME ? 0u : LINKED_ORDER_BLIND));
	}
out:
	smap_free(&once);
}

/* What the first timer of a kind linked by order was paired with, and
 * whether a retry of that call came after it fired: the limit says "linked"
 * only then (issue 28: it said so of a timer that had not fired, beside a
 * verdict that counted nothing). */
static void order_link_fill(const struct work *w, const struct analysis *an, struct order_link *l)
{
	if (!l->n)
		return;
	const struct work_timer *t = &w->tim[l->timer];
	if (t->target == NONE32)
		return;
	const struct work_attempt *wa = &w->wa[t->target];
	const struct invocation *inv = &an->invocations[wa->inv];
	const struct attempt *a = &w->att[wa->slot]; /* the pool, in invocation order now */
	l->name = inv->name;
	l->scheduled_id = a->scheduled_id;
	l->event_index = a->event_index;
	l->fired = t->fired_index != NONE32;
	for (uint32_t i = 0; l->fired && i < inv->n_attempts; i++)
		l->retried |= inv->attempts[i].event_index > t->fired_index;
}

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
	an->invocations = table_array_alloc(n_inv ? n_inv : 1, sizeof *an->invocations);
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
	order_link_fill(w, an, &w->unmatched);
	order_link_fill(w, an, &w->missing);
	for (size_t i = 0; i < w->n_att; i++) {
		if (!w->wa[i].is_first)
			continue;
		struct invocation *inv = &an->invocations[w->wa[i].inv];
		unsigned f = w->wa[i].flags;
		inv->order_inputs_unknown = inv->n_attempts > 1 && (f & LINKED_ORDER_BLIND);
		if (inv->n_attempts < 2)
			inv->link = LINK_SINGLE;
		else if (f & LINKED_ORDER)
			inv->link = LINK_ORDER;
		else if (f & LINKED_PATTERN)
			inv->link = LINK_PATTERN;
		else if (f & LINKED_ORIGIN)
			inv->link = LINK_TIMER_ORIGIN;
		else
			inv->link = LINK_EXECUTION_ID;
	}
	return 0;
}

static int collect_children(struct work *w, struct analysis_owned *ao)
{
	struct analysis *an = &ao->pub;
	struct smap seen = {0};
	int rc = 0;
	for (size_t i = 0; i < w->n_att; i++) {
		const struct attempt *at = att_at(w, i);
		if (!w->wa[i].is_child || !str_set(attempt_more(at)->instance_id))
			continue;
		bool fresh;
		if (!smap_get_or_put(&seen, 0, attempt_more(at)->instance_id, (uint32_t)i, &fresh)) {
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
		an->child_instances[an->n_child_instances++] = attempt_more(at)->instance_id;
	}
	smap_free(&seen);
	return rc;
}

int analysis_group_invocations(struct work *w, struct analysis_owned *ao)
{
	link_untimed(w);
	if (w->oom)
		return -1;
	return build_invocations(w, ao) < 0 || collect_children(w, ao) < 0 ? -1 : 0;
}
