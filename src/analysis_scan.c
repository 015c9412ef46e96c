/* The one pass over the events, in history order (doc/history.md, "A grouping
 * procedure", step 1). Generations split at ExecutionStarted; every id map
 * is keyed by (generation, id) because event ids restart at 0 in each
 * generation. One attempt per TaskScheduled / ChildWorkflowInstanceCreated;
 * results attach by task_scheduled_id only; timers are matched to their
 * firing. Turns, the run facts and the data-sharing evidence (payload
 * keys present or absent, the withheld payloads) are gathered on the way:
 * no event is read after this pass. analysis_group.c links the attempts
 * as it goes. */

#include <assert.h>
#include <string.h>

#include "analysis_internal.h"
#include "table_alloc.h"
#include "classify.h"

/* The re-driven event of a rerun names its source (Dapr 1.17+). */
static void rerun_note(struct work *w, uint32_t i, const struct event *ev)
{
	if (w->rerun_index != NONE32 || !str_set(ev->rerun_parent_instance_id))
		return;
	w->rerun_index = i;
	w->rerun_parent = ev->rerun_parent_instance_id;
	w->rerun_event_id = ev->event_id;
	w->rerun_kind = (uint8_t)ev->kind;
	w->rerun_name = ev->name;
}

/* a's failure and child fields, made when first set (NULL: out of
 * memory, flagged). */
static struct attempt_more *more_of(struct work *w, struct attempt *a)
{
	if (!a->more) {
		a->more = analysis_arena_alloc(w->arena, sizeof *a->more, _Alignof(struct attempt_more));
		if (!a->more) {
			w->oom = true;
			return NULL;
		}
		*a->more = (struct attempt_more){0};
	}
	return a->more;
}

static void add_attempt(struct work *w, uint32_t i, const struct event *ev, bool child)
{
	rerun_note(w, i, ev);
	/* The first pass counted them: the arrays are sized. */
	assert(w->n_att < UINT32_MAX);
	uint32_t k = (uint32_t)w->n_att++;
	w->att[k] = (struct attempt){
		.event_index = i,
		.scheduled_id = ev->event_id,
		.scheduled_at = ev->timestamp,
		.task_execution_id = ev->task_execution_id,
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
		.result_turn = NONE32,
		.cause = w->turn_cause,
	};
	analysis_link_break(w);
	if (child) {
		w->child_pend_n++;
		w->child_pend_xor ^= k;
		w->n_child_no_id += !str_set(ev->instance_id);
		struct attempt_more *m = ev->instance_id ? more_of(w, &w->att[k]) : NULL;
		if (m)
			m->instance_id = ev->instance_id;
	}
	if (imap_put(&w->sched, w->gen, ev->event_id, k) < 0) {
		w->oom = true;
		return;
	}
	analysis_link_attempt(w, k, ev);
}

static void pair_result(struct work *w, uint32_t k, uint32_t i, const struct event *ev, bool child, bool failed,
			bool by_order);

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
			size_t u = PUSH(w, w->unp, w->n_unp, w->cap_unp);
			if (u != NONE)
				w->unp[u] = (struct unpaired){
					.index = i, .gen = w->gen, .attempt = NONE32, .failed = failed};
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
	pair_result(w, *v, i, ev, child, failed, only != NONE32);
}

/* Result i (ev) is attempt k's: the first one its outcome, a later one a
 * duplicate. by_order: the row named no scheduled id. */
static void pair_result(struct work *w, uint32_t k, uint32_t i, const struct event *ev, bool child, bool failed,
			bool by_order)
{
	struct work_attempt *wa = &w->wa[k];
	struct attempt *a = &w->att[k];
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
	wa->result_turn = w->turn;
	a->completed_at = ev->timestamp;
	a->result_by_order = by_order;
	if (child) {
		w->child_pend_n--;
		w->child_pend_xor ^= k;
	}
	if (failed) {
		a->outcome = OUTCOME_FAILED;
		/* A cause with nothing to say is no cause: never shown empty. */
		bool cause = str_set(ev->cause_type) || str_set(ev->cause_message);
		struct attempt_more *m = ev->error_type || ev->error_message || cause ? more_of(w, a) : NULL;
		if (m) {
			m->error_type = ev->error_type;
			m->error_message = ev->error_message;
			if (cause) {
				m->cause_type = ev->cause_type;
				m->cause_message = ev->cause_message;
				a->cause_depth = ev->cause_depth;
			}
		}
		const struct attempt_more *mo = attempt_more(a);
		a->non_retriable = ev->has_non_retriable && ev->non_retriable;
		/* The same error repeats across attempts and the log interns
		 * strings: remember the last answer by pointer. */
		if (w->cls_valid && w->cls_type == ev->error_type && w->cls_msg == ev->error_message &&
		    w->cls_cause_type == mo->cause_type && w->cls_cause_msg == mo->cause_message &&
		    w->cls_nr == a->non_retriable) {
			a->failure = (uint8_t)w->cls;
		} else {
			w->cls = classify_failure_chain(ev->error_type, ev->error_message, mo->cause_type,
							mo->cause_message, a->non_retriable);
			a->failure = (uint8_t)w->cls;
			w->cls_valid = true;
			w->cls_type = ev->error_type;
			w->cls_msg = ev->error_message;
			w->cls_cause_type = mo->cause_type;
			w->cls_cause_msg = mo->cause_message;
			w->cls_nr = a->non_retriable;
		}
		analysis_link_failed(w, k);
	} else {
		a->outcome = OUTCOME_COMPLETED;
		a->output = ev->output;
	}
}

static void add_timer(struct work *w, uint32_t i, const struct event *ev)
{
	rerun_note(w, i, ev);
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
		.unpaired = NONE32,
	};
	if (imap_put(&w->timers, w->gen, ev->event_id, k) < 0) {
		w->oom = true;
		return;
	}
	if (str_set(ev->fire_at)) {
		uint32_t qi = analysis_queue_of(w, &w->fire, ev->fire_at);
		if (qi == NONE32)
			return;
		struct queue *q = queue_at(w, qi);
		if (q->tail == NONE32)
			q->head = k;
		else
			w->tim[q->tail].next_fire = k;
		q->tail = k;
	}
	analysis_link_timer(w, k, ev);
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
	analysis_link_fired(w, k);
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
	analysis_link_break(w);
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

/* The payload facts of event i (read whole), as analysis_data_sharing needs them:
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
 * is found every event is read, for analysis_data_sharing. */
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

/* `dapr workflow history` prints no scheduled id on a child's failure:
 * in a fan-out of children such a row names none of the pending ones.
 * Once the whole history is read, the children left without a result
 * before it are its candidates: paired when there is one, or when they all
 * have one name and there are as many such rows left as candidates, all
 * failures (the CLI prints a child failure's type only, so which of them
 * failed then changes nothing the report can show). A history of
 * more than PEND_MAX pending children, or more than UNP_MAX such rows, is
 * left as it is (each row is a pass over the attempts before it). */
#define PEND_MAX 4096
#define UNP_MAX 256
static void eliminate_unpaired(struct work *w)
{
	if (w->n_unp > UNP_MAX) {
		analysis_link_unpaired(w);
		return;
	}
	for (size_t u = 0; u < w->n_unp && !w->oom; u++) {
		struct unpaired *up = &w->unp[u];
		size_t n = 0;
		bool one_name = true;
		const char *name = NULL;
		uint32_t first = NONE32;
		for (size_t k = 0; k < w->n_att; k++) {
			const struct attempt *a = &w->att[k];
			if (a->event_index > up->index)
				break;
			if (!w->wa[k].is_child || w->wa[k].gen != up->gen || a->n_results)
				continue;
			if (++n > PEND_MAX)
				break;
			if (first == NONE32)
				first = (uint32_t)k;
			if (name && (!w->wa[k].name || strcmp(name, w->wa[k].name) != 0))
				one_name = false;
			name = w->wa[k].name;
		}
		if (!n || n > PEND_MAX)
			continue;
		size_t rows_left = 0;
		bool same_outcome = true;
		for (size_t v = u; v < w->n_unp; v++) {
			if (w->unp[v].gen != up->gen || w->unp[v].attempt != NONE32)
				continue;
			rows_left++;
			same_outcome &= w->unp[v].failed == up->failed;
		}
		if (n != 1 && !(one_name && same_outcome && str_set(name) && rows_left == n))
			continue;
		struct event ev;
		event_log_get(w->log, up->index, &ev);
		pair_result(w, first, up->index, &ev, true, up->failed, true);
		up->attempt = first;
		w->att[first].result_by_elimination = true;
		w->n_child_unpaired--;
		w->n_child_eliminated++;
	}
	analysis_link_unpaired(w);
}

/* Sizes every table of the scan from a first pass over the kinds (a
 * timer's origin needs the event); < 0 when out of memory. */
static int scan_allocate(struct work *w)
{
	size_t n_att = 0, n_tim = 0, n_carry = 0;
	for (size_t i = 0; i < w->n_events; i++) {
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
	 * doubling arrays kept up to half of them unused. Calls and timers
	 * are keyed by event id, which counts a generation's actions (calls,
	 * timers, children, events sent) from 0: the direct arrays cover
	 * about that many, with room for the few other actions. Execution
	 * ids and fire times are the log's interned strings, kept by their
	 * numbers (pages of those arrays come as they are written). */
	size_t span = n_att + n_tim + (n_att + n_tim) / 16 + 1024, n_str = event_log_str_count(w->log);
	if (imap_reserve(&w->sched, span) < 0 || smap_reserve_interned(&w->exec, n_str) < 0 ||
	    imap_reserve(&w->timers, span) < 0 || (n_tim && smap_reserve_interned(&w->fire, n_str) < 0))
		return -1;
	/* Zeroed, though every attempt is written before it is read: the
	 * static analyzer cannot follow the pending count to that. */
	w->att = table_array_alloc(n_att ? n_att : 1, sizeof *w->att);
	w->wa = table_array_alloc(n_att ? n_att : 1, sizeof *w->wa);
	w->tim = malloc((n_tim ? n_tim : 1) * sizeof *w->tim);
	if (!w->att || !w->wa || !w->tim)
		return -1;
	/* Withheld payloads are listed unless the level is known to be full;
	 * pages of the array never written are never touched. */
	if (w->ds_given != SHARING_FULL && n_carry &&
	    (w->ds_given != SHARING_UNKNOWN || (w->o && w->o->catalyst_source))) {
		w->wh = malloc(n_carry * sizeof *w->wh);
		if (!w->wh)
			return -1;
		w->cap_wh = n_carry;
	}
	return 0;
}

/* Versioning (Dapr 1.17+): a workflow start that names a version or
 * patches, or the run stalled. Kept for the report, in history order. */
static void note_version(struct work *w, size_t i, enum event_kind k)
{
	struct event ev;
	event_log_get(w->log, i, &ev);
	if (k == EVENT_WORKFLOW_STARTED) {
		size_t at = PUSH(w, w->versions, w->n_versions, w->cap_versions);
		if (at != NONE)
			w->versions[at] = (struct run_version){ev.name, ev.patches, ev.timestamp, (uint32_t)i,
							       ev.has_event_id ? ev.event_id : -1};
		return;
	}
	size_t at = PUSH(w, w->stalls, w->n_stalls, w->cap_stalls);
	if (at != NONE)
		w->stalls[at] = (struct run_stall){ev.error_type, ev.error_message, ev.timestamp, (uint32_t)i};
}

/* One event of the history, read for what the analysis keeps of it. */
static void scan_event(struct work *w, size_t i)
{
	enum event_kind k = event_log_kind(w->log, i);
	turn_note(w, k);
	if (k == EVENT_EXECUTION_STALLED || (k == EVENT_WORKFLOW_STARTED && event_log_names_version(w->log, i)))
		note_version(w, i, k);
	if (!kind_read(k) && w->ds_first_present != NONE) {
		/* Kinds seen only for their kind. */
		if (k == EVENT_EXECUTION_TERMINATED) {
			w->terminated = true;
			w->completed_gen = w->gen;
		} else if (k == EVENT_CONTINUE_AS_NEW) {
			w->n_continue_as_new++;
		}
		return;
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
	case EVENT_TASK_FAILED:
	case EVENT_CHILD_COMPLETED:
	case EVENT_CHILD_FAILED:
		w->n_results++;
		w->n_attested += ev->attested;
		add_result(w, at, ev, ev->kind == EVENT_CHILD_COMPLETED || ev->kind == EVENT_CHILD_FAILED,
			   ev->kind == EVENT_TASK_FAILED || ev->kind == EVENT_CHILD_FAILED);
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
		w->completed_at = ev->timestamp;
		w->completed_error = str_set(ev->error_type) || str_set(ev->error_message);
		/* Dapr 1.18 (wfengine/state MarkAsTamperFailed): the runtime's
		 * verdict on the history, not a failure of the workflow's code.
		 * SignatureVerificationFailed is the name issue 32 gives it; the
		 * runtime's own is the first. */
		if (str_set(ev->error_type) && (strcmp(ev->error_type, "DAPR_WORKFLOW_HISTORY_TAMPERED") == 0 ||
						strcmp(ev->error_type, "SignatureVerificationFailed") == 0)) {
			w->tampered = str_set(ev->error_message) ? ev->error_message : ev->error_type;
			w->tampered_type = ev->error_type;
		}
		analysis_link_break(w);
		break;
	case EVENT_EXECUTION_TERMINATED:
		w->terminated = true;
		w->completed_gen = w->gen;
		w->completed_at = ev->timestamp;
		break;
	case EVENT_CONTINUE_AS_NEW:
		w->n_continue_as_new++;
		break;
	case EVENT_EVENT_SENT:
		analysis_link_break(w);
		break;
	default:
		break;
	}
}

/* analysis_scan_release: the events before `next` are read no more, but
 * for the child result rows the pairing by elimination reads again after
 * the scan (from the first of them on). */
#define RELEASE_EVERY 4096
static void release_scanned(struct work *w, size_t next)
{
	if (w->n_unp && w->unp[0].index < next)
		next = w->unp[0].index;
	event_log_release_before(w->release, next);
}

void analysis_scan_events(struct work *w)
{
	if (scan_allocate(w) < 0) {
		w->oom = true;
		return;
	}
	for (size_t i = 0; i < w->n_events && !w->oom; i++) {
		scan_event(w, i);
		if (w->release && (i & (RELEASE_EVERY - 1)) == RELEASE_EVERY - 1)
			release_scanned(w, i + 1);
	}
	if (w->n_unp && !w->oom)
		eliminate_unpaired(w);
}
