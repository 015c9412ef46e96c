/* The finding kinds, one rule each (struct finding_rule): what makes a
 * finding of the kind, its id and severity, and its advice. A new kind is
 * a row in analysis_rules and its detect function here (or, for pairs of
 * calls, in analysis_pairs.c). Every message says what happened with the
 * ids that prove it, then what to do about it. */

#include <inttypes.h>
#include <string.h>

#include "analysis_internal.h"

/* Positions of an invocation's retry timers (created and fired). */
static void evidence_timers(struct finding_ctx *c, struct finding_build *b, const struct invocation *inv)
{
	struct work *w = c->w;
	for (size_t i = 0; b && i < inv->n_retry_timers; i++) {
		uint32_t *k = imap_find(&w->timers, inv->generation, inv->retry_timer_event_ids[i]);
		if (!k)
			continue;
		analysis_evidence_add(c, b, w->tim[*k].index, w->tim[*k].event_id);
		analysis_evidence_add(c, b, w->tim[*k].fired_index, -1);
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

/* The keying advice for inv, as its finding's message ends with it
 * (analysis_finding_message writes it); check: after "check the remote side
 * for a duplicate". */
static void tail_key(struct finding_build *b, const struct invocation *inv, bool check)
{
	if (!b)
		return;
	bool per_attempt = !exec_id_stable(inv) && inv->n_attempts > 1 &&
			   str_set(inv->attempts[0].task_execution_id);
	b->f.message_tail = (uint8_t)(check         ? per_attempt ? TAIL_CHECK_KEY_PER_ATTEMPT : TAIL_CHECK_KEY
				      : per_attempt ? TAIL_KEY_PER_ATTEMPT
						    : TAIL_KEY);
	b->f.message_tail_id = exec_id_stable(inv) ? inv->attempts[0].task_execution_id : NULL;
}

/* The advice's sentence: on the execution id when it is stable across the
 * attempts, else on a natural key (each attempt had its own id, or there
 * was none). Appended piece by piece: a report writes it for every
 * finding, and printf's formatting of the long text showed in profiles. */
static int key_advice(struct buf *out, bool per_attempt, const char *id, bool lower, bool stop)
{
	static const char stable[] =
		" (stable across retries) or on a natural key from the input, never on a "
		"value generated inside the activity or on the per-attempt task_scheduled_id, "
		"and make the write itself conditional on that key (unique constraint, upsert, "
		"conditional put, provider idempotency key)";
	static const char each[] = "ey the side effect on a natural key from the input: here each attempt has "
				   "its own task_execution_id (as the .NET SDK does), so neither it nor the "
				   "per-attempt task_scheduled_id is stable across retries; make the write itself "
				   "conditional on that key (unique constraint, upsert, conditional put, provider "
				   "idempotency key)";
	static const char none[] =
		"ey the side effect on a natural key from the input (this invocation has no "
		"usable task_execution_id), never on a value generated inside the activity or on "
		"the per-attempt task_scheduled_id, and make the write itself conditional on that "
		"key (unique constraint, upsert, conditional put, provider idempotency key)";
	static const char on_id[] = "ey the side effect on task_execution_id ";
	char k = lower ? 'k' : 'K';
	const char *rest = id ? stable : per_attempt ? each : none;
	size_t rest_len = id ? sizeof stable - 1 : per_attempt ? sizeof each - 1 : sizeof none - 1;
	if (buf_append(out, &k, 1, NULL) < 0 ||
	    (id &&
	     (buf_append(out, on_id, sizeof on_id - 1, NULL) < 0 || buf_append(out, id, strlen(id), NULL) < 0)) ||
	    buf_append(out, rest, rest_len, NULL) < 0 || (stop && buf_append(out, ".", 1, NULL) < 0))
		return -1;
	return 0;
}

static void sb_link(struct sb *s, const struct invocation *inv, bool has_origins)
{
	switch (inv->link) {
	case LINK_EXECUTION_ID:
		if (inv->is_child_workflow)
			sb_printf(s, "under the same instance id %s",
				  or_none(attempt_more(&inv->attempts[0])->instance_id));
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
		if (has_origins)
			sb_printf(s, "linked by inference only (failure, retry timer, then a new schedule of "
				     "the same name; that timer records no origin, or one that names no "
				     "attempt in this history)");
		else
			sb_printf(s, "linked by inference only (failure, timer, then a new schedule of the "
				     "same name; this history records no retry origin)");
		break;
	case LINK_ORDER:
		sb_printf(s,
			  "linked by order only (a failure, then the one call of the same name in the turn "
			  "that processed it; this run records no retry timer, as the JavaScript SDK's retry "
			  "handler and a zero first retry interval leave none; inputs %s)",
			  inv->order_inputs_unknown ? "not comparable" : "equal");
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

/* The scheduled ids of inv's attempts [from, to) with that outcome (and
 * that failure class, unless FAILURE_NONE), the first LIST_MAX of them. */
static bool is_failed(const struct attempt *a)
{
	return a->outcome == OUTCOME_FAILED;
}

static bool is_pending(const struct attempt *a)
{
	return a->outcome == OUTCOME_PENDING;
}

/* A failure after which the side effect may have landed: ambiguous by its
 * words, or with words that decide nothing (issue 28: "boom" says nothing
 * of what was sent, so the retry stays a suspect and the finding says the
 * class is unknown). A failure with no text at all (`dapr workflow
 * history` prints none) is no evidence either way: reexecuted only. */
static bool may_have_landed(const struct attempt *a)
{
	return a->outcome == OUTCOME_FAILED &&
	       (a->failure == FAILURE_AMBIGUOUS ||
		(a->failure == FAILURE_UNKNOWN &&
		 (str_set(attempt_more(a)->error_type) || str_set(attempt_more(a)->error_message))));
}

/* The scheduled ids of inv's attempts [from, to) that keep holds for. */
static void sb_ids_where(struct sb *s, const struct invocation *inv, size_t from, size_t to,
			 bool (*keep)(const struct attempt *))
{
	size_t listed = 0;
	for (size_t i = from; i < to; i++) {
		const struct attempt *x = &inv->attempts[i];
		if (!keep(x))
			continue;
		if (listed < LIST_MAX)
			sb_printf(s, "%s%" PRId64, listed ? ", " : "", x->scheduled_id);
		listed++;
	}
	if (listed > LIST_MAX)
		sb_printf(s, " and %zu more", listed - LIST_MAX);
}

/* The remedies: the advice, shared by every finding that needs the same
 * (doc/PRODUCT.md, "Each finding's message ends with the remedy"), so a report
 * prints each once; the message words the same advice with the finding's
 * own ids. A kind's own is its rule's explain; remedy_child and
 * remedy_key_natural also serve kinds whose case needs them. */
static const char remedy_key_stable[] =
	"Check the remote side for a duplicate; key the side effect on task_execution_id or a natural key from "
	"the input and make the write conditional on it (upsert, unique constraint).";
static const char remedy_key_natural[] =
	"Key the side effect on a natural key from the input (task_execution_id is not one stable id across "
	"these attempts) and make the write conditional on it.";
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
static const char remedy_rerun[] =
	"Before rerunning from an event, check what the source run's call already did; key its side effect on "
	"task_execution_id (a rerun keeps it) or a natural key and make the write conditional on it.";
static const char remedy_large[] = "Pass identifiers, not documents: store the data elsewhere and pass its key.";

/* The key remedy that goes with sb_key_remedy's wording for inv. */
static const char *key_remedy(const struct invocation *inv)
{
	return exec_id_stable(inv) ? remedy_key_stable : remedy_key_natural;
}

/* The attempt a finding is about (index at of inv's attempts) and the one
 * after it (NONE: none), numbered from 1. */
static void finding_attempts(struct finding_build *b, const struct invocation *inv, size_t at, size_t next)
{
	if (!b)
		return;
	b->f.attempt = &inv->attempts[at];
	b->f.attempt_no = (uint32_t)at + 1;
	if (next != NONE) {
		b->f.next = &inv->attempts[next];
		b->f.next_no = (uint32_t)next + 1;
	}
}

/* "failed with TYPE" in a summary: the type where it tells something (the
 * message has the text), else the start of the message itself. */
#define SUMMARY_QUOTE_MAX 48
static void sb_failed_with(struct sb *t, const struct attempt *a)
{
	const struct attempt_more *mo = attempt_more(a);
	sb_printf(t, "failed");
	if (analysis_error_type_tells(mo->error_type, mo->error_message)) {
		sb_printf(t, " with ");
		sb_type(t, mo->error_type);
	} else if (str_set(mo->error_message)) {
		size_t cut = strlen(mo->error_message);
		if (cut > SUMMARY_QUOTE_MAX) {
			cut = SUMMARY_QUOTE_MAX;
			while (cut > 0 && ((unsigned char)mo->error_message[cut] & 0xC0) == 0x80)
				cut--;
		}
		sb_printf(t, ": \"%.*s%s\"", (int)cut, mo->error_message, mo->error_message[cut] ? "..." : "");
	}
}

/* The texts of the two kinds made when read (struct finding's text_of):
 * functions of the invocation alone, which the analysis keeps. */

static void reexecuted_summary(struct sb *t, const struct invocation *inv)
{
	sb_printf(t, "ran %zu attempts as one invocation (task_scheduled_id ", (size_t)inv->n_attempts);
	sb_id_list(t, inv->attempts, inv->n_attempts);
	sb_printf(t, ")");
}

static void reexecuted_head(struct sb *s, const struct invocation *inv, bool has_origins)
{
	sb_printf(s, "%s ran %zu attempts as one invocation ", or_none(inv->name), (size_t)inv->n_attempts);
	sb_link(s, inv, has_origins);
	sb_printf(s, " (task_scheduled_id ");
	sb_id_list(s, inv->attempts, inv->n_attempts);
	sb_timers(s, inv);
	sb_printf(s, "), so its body may have run %zu times. ", (size_t)inv->n_attempts);
	if (inv->order_inputs_unknown)
		sb_printf(s, "Or they were calls for different items of a loop that went on after a "
			     "failure: their inputs cannot be compared here, so this is no suspect. ");
}

static void find_reexecuted(struct finding_ctx *c, const struct invocation *inv)
{
	/* A child linked blind is reported here too: never as a suspect. */
	if (inv->n_attempts < 2 || (inv->is_child_workflow && !inv->order_inputs_unknown))
		return;
	struct finding_build *b = analysis_finding_new(c, FINDING_REEXECUTED, inv->name, inv->task_execution_id,
						       inv->attempts[0].event_index);
	tail_key(b, inv, false);
	if (b) {
		b->f.text_of = inv;
		b->f.text_flags = c->w->has_origins ? FINDING_TEXT_ORIGINS : 0;
		for (size_t i = 0; i < inv->n_attempts; i++)
			analysis_evidence_attempt(c, b, &inv->attempts[i]);
		evidence_timers(c, b, inv);
	}
	analysis_finding_finish_untold(c, b, key_remedy(inv));
}

/* The first attempt but the last whose failure may have landed, NONE
 * when none; *n how many such. */
static size_t ambiguous_first(const struct invocation *inv, size_t *n)
{
	size_t first = NONE;
	*n = 0;
	for (size_t i = 0; i + 1 < inv->n_attempts; i++) {
		if (may_have_landed(&inv->attempts[i])) {
			if (first == NONE)
				first = i;
			(*n)++;
		}
	}
	return first;
}

static void ambiguous_summary(struct sb *t, const struct invocation *inv)
{
	size_t n_amb, first = ambiguous_first(inv, &n_amb);
	const struct attempt *a = &inv->attempts[first];
	if (inv->is_child_workflow) {
		sb_printf(t, "event %" PRId64 " ", a->scheduled_id);
		sb_failed_with(t, a);
		sb_printf(t, "; started again as event %" PRId64, inv->attempts[first + 1].scheduled_id);
	} else {
		sb_printf(t, "attempt %zu ", first + 1);
		sb_failed_with(t, a);
		sb_printf(t, "; attempt %zu ran again", first + 2);
	}
	if (n_amb > 1)
		sb_printf(t, " (%zu more like it)", n_amb - 1);
}

static void ambiguous_head(struct sb *s, const struct invocation *inv)
{
	size_t n_amb, first = ambiguous_first(inv, &n_amb);
	const struct attempt *a = &inv->attempts[first];
	if (inv->is_child_workflow)
		sb_printf(s, "Child workflow %s (event %" PRId64 ", instance %s) failed with ", or_none(inv->name),
			  a->scheduled_id, or_none(attempt_more(a)->instance_id));
	else
		sb_printf(s, "Attempt %zu of %s (task_scheduled_id %" PRId64 ") failed with ", first + 1,
			  or_none(inv->name), a->scheduled_id);
	sb_error(s, a);
	/* Said as it is: a timeout/connection-class error, or words that do
	 * not say whether the request went out. */
	const char *cls = a->failure == FAILURE_UNKNOWN
				  ? ", whose words do not say whether anything was sent (failure class unknown),"
				  : ", a timeout/connection-class error";
	if (inv->is_child_workflow)
		sb_printf(s,
			  "%s after which the side effects of its "
			  "activities may already have landed, and it was started again (event %" PRId64
			  ", instance %s)",
			  cls, inv->attempts[first + 1].scheduled_id,
			  or_none(attempt_more(&inv->attempts[first + 1])->instance_id));
	else
		sb_printf(s,
			  "%s after which the side effect may "
			  "already have landed, and attempt %zu (task_scheduled_id %" PRId64 ") ran again",
			  cls, first + 2, inv->attempts[first + 1].scheduled_id);
	if (n_amb > 1) {
		sb_printf(s, "; %zu more attempt%s failed the same way before a retry (%s ", n_amb - 1,
			  n_amb > 2 ? "s" : "", inv->is_child_workflow ? "event" : "task_scheduled_id");
		sb_ids_where(s, inv, first + 1, inv->n_attempts - 1, may_have_landed);
		sb_printf(s, ")");
	}
	if (inv->is_child_workflow)
		sb_printf(s, ". Check the child's side effects for duplicates; derive their idempotency "
			     "key from a natural key of the input or from the parent run, never from the "
			     "child's own instance id, make the writes conditional on it, and record "
			     "intent before a non-idempotent call so a pending one is reconciled instead "
			     "of re-issued.");
}

static void find_ambiguous(struct finding_ctx *c, const struct invocation *inv)
{
	/* Linked by order with inputs unknown: maybe a loop's next item. */
	if (inv->order_inputs_unknown)
		return;
	size_t n_amb, first = ambiguous_first(inv, &n_amb);
	if (first == NONE)
		return;
	const struct attempt *a = &inv->attempts[first];
	struct finding_build *b = analysis_finding_new(c, FINDING_AMBIGUOUS_FAILURE_RETRIED, inv->name,
						       inv->task_execution_id, a->event_index);
	if (!inv->is_child_workflow)
		tail_key(b, inv, true);
	finding_attempts(b, inv, first, first + 1);
	if (b) {
		b->f.text_of = inv;
		for (size_t i = first; i < inv->n_attempts; i++) {
			const struct attempt *x = &inv->attempts[i];
			analysis_evidence_attempt(c, b, x);
			if (may_have_landed(x))
				analysis_evidence_add(c, b, x->result_index, -1);
		}
	}
	analysis_finding_finish_untold(c, b, inv->is_child_workflow ? remedy_child : key_remedy(inv));
}

/* The head and summary of a finding that keeps none (text_of). */
static void untold_text(struct sb *s, struct sb *t, const struct finding *f)
{
	switch (f->kind) {
	case FINDING_REEXECUTED:
		if (s)
			reexecuted_head(s, f->text_of, f->text_flags & FINDING_TEXT_ORIGINS);
		if (t)
			reexecuted_summary(t, f->text_of);
		break;
	case FINDING_AMBIGUOUS_FAILURE_RETRIED:
		if (s)
			ambiguous_head(s, f->text_of);
		if (t)
			ambiguous_summary(t, f->text_of);
		break;
	default:
		break;
	}
}

int analysis_finding_message(const struct finding *f, struct buf *out)
{
	if (f->text_of) {
		bool oom = false;
		struct sb s = {.b = *out, .oom = &oom};
		untold_text(&s, NULL, f);
		*out = s.b;
		if (oom)
			return -1;
	} else {
		const char *head = f->message_head ? f->message_head : "";
		if (buf_append(out, head, strlen(head), NULL) < 0)
			return -1;
	}
	bool per_attempt = f->message_tail == TAIL_KEY_PER_ATTEMPT ||
			   f->message_tail == TAIL_CHECK_KEY_PER_ATTEMPT;
	switch ((enum finding_tail)f->message_tail) {
	case TAIL_NONE:
		return 0;
	case TAIL_KEY:
	case TAIL_KEY_PER_ATTEMPT:
		return key_advice(out, per_attempt, f->message_tail_id, false, true);
	case TAIL_CHECK_KEY:
	case TAIL_CHECK_KEY_PER_ATTEMPT: {
		static const char check[] = ". Check the remote side for a duplicate; ",
				  intent[] =
					  "; record intent before the non-idempotent call and reconcile a pending "
					  "one instead of re-issuing it.";
		if (buf_append(out, check, sizeof check - 1, NULL) < 0 ||
		    key_advice(out, per_attempt, f->message_tail_id, true, false) < 0)
			return -1;
		return buf_append(out, intent, sizeof intent - 1, NULL);
	}
	}
	return 0;
}

int analysis_finding_summary(const struct finding *f, struct buf *scratch, const char **out)
{
	*out = f->summary;
	if (!f->text_of)
		return 0;
	bool oom = false;
	buf_reset(scratch);
	struct sb t = {.b = *scratch, .oom = &oom};
	untold_text(NULL, &t, f);
	*scratch = t.b;
	*out = oom ? NULL : scratch->data ? scratch->data : "";
	return oom ? -1 : 0;
}

static void find_duplicates(struct finding_ctx *c, const struct invocation *inv)
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
		struct finding_build *b = analysis_finding_new(c, FINDING_DUPLICATE_RESULT, inv->name,
							       a->task_execution_id, a->event_index);
		struct sb s, t;
		analysis_finding_text(c, &s, &t);
		if (inv->is_child_workflow)
			sb_printf(&t, "event %" PRId64, a->scheduled_id);
		else
			sb_printf(&t, "attempt %zu", i + 1);
		sb_printf(&t, " has %zu results: it certainly ran more than once", (size_t)a->n_results);
		if (inv->is_child_workflow)
			sb_printf(&s, "Child workflow %s", or_none(inv->name));
		else
			sb_printf(&s, "Attempt %zu of %s", i + 1, or_none(inv->name));
		sb_printf(&s, " (task_scheduled_id %" PRId64 ") has %zu results (history positions %zu",
			  a->scheduled_id, (size_t)a->n_results, (size_t)a->result_index);
		finding_attempts(b, inv, i, NONE);
		if (b)
			analysis_evidence_attempt(c, b, a);
		if (b)
			analysis_evidence_add(c, b, a->result_index, -1);
		if (wi != NONE) {
			for (uint32_t d = w->wa[wi].dup_head; d != NONE32; d = w->dups[d].next) {
				sb_printf(&s, ", %zu", (size_t)w->dups[d].index);
				if (b)
					analysis_evidence_add(c, b, w->dups[d].index, -1);
			}
		}
		sb_printf(&s, "): the engine delivered it again, so its body certainly ran more than "
			      "once. ");
		struct invocation one = *inv;
		one.attempts = (struct attempt *)a;
		one.n_attempts = 1;
		tail_key(b, &one, false);
		analysis_finding_finish(c, b, &s, &t, key_remedy(&one));
	}
}

static void find_permanent(struct finding_ctx *c, const struct invocation *inv)
{
	if (inv->n_attempts < 2 || inv->order_inputs_unknown)
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
			const char *t0 = attempt_more(first_failed)->error_type, *t1 = attempt_more(a)->error_type;
			t0 = t0 ? t0 : "";
			t1 = t1 ? t1 : "";
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
	struct finding_build *b = analysis_finding_new(c, FINDING_PERMANENT_FAILURE_RETRIED, inv->name,
						       inv->task_execution_id, a->event_index);
	size_t at = (size_t)(a - inv->attempts);
	finding_attempts(b, inv, at, at + 1 < inv->n_attempts ? at + 1 : NONE);
	struct sb s, t;
	analysis_finding_text(c, &s, &t);
	if (flagged != NONE) {
		sb_printf(&t, "attempt %zu ", flagged + 1);
		sb_failed_with(&t, a);
		sb_printf(&t, ", flagged non-retriable; attempt %zu ran after it", flagged + 2);
	} else {
		sb_printf(&t, "retried although %s %zu failed attempt%s ", n_failed > 1 ? "all" : "its", n_failed,
			  n_failed > 1 ? "s" : "");
		sb_failed_with(&t, a);
		sb_printf(&t, " (permanent class)");
	}
	sb_printf(&s, "%s%s was retried after a failure that cannot succeed: ",
		  inv->is_child_workflow ? "Child workflow " : "", or_none(inv->name));
	if (flagged != NONE) {
		sb_printf(&s, "attempt %zu (task_scheduled_id %" PRId64 ") failed with ", flagged + 1,
			  a->scheduled_id);
		sb_error(&s, a);
		sb_printf(&s,
			  ", flagged non-retriable, and attempt %zu (task_scheduled_id %" PRId64 ") ran after it",
			  flagged + 2, inv->attempts[flagged + 1].scheduled_id);
	} else {
		sb_printf(&s, "%s %zu failed attempt%s (task_scheduled_id ", n_failed > 1 ? "all" : "its",
			  n_failed, n_failed > 1 ? "s" : "");
		sb_ids_where(&s, inv, 0, inv->n_attempts, is_failed);
		sb_printf(&s, ") failed with the same permanent-class error, ");
		sb_error(&s, a);
	}
	const char *type = attempt_more(a)->error_type;
	sb_printf(&s,
		  ". Return permanent rejections as data instead of raising them into the retry "
		  "policy, or exclude %s from the policy.",
		  str_set(type) && strlen(type) <= QUOTE_MAX ? type : "this error");
	if (b) {
		for (size_t i = 0; i < inv->n_attempts; i++) {
			analysis_evidence_attempt(c, b, &inv->attempts[i]);
			if (inv->attempts[i].outcome == OUTCOME_FAILED)
				analysis_evidence_add(c, b, inv->attempts[i].result_index, -1);
		}
	}
	analysis_finding_finish(c, b, &s, &t, NULL);
}

/* The index of inv, which may be a trimmed copy of an invocation (a
 * rerun's copies left out): the one whose attempts it points into. */
static size_t invocation_index(const struct analysis *an, const struct invocation *inv)
{
	size_t lo = 0, hi = an->n_invocations;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (an->invocations[mid].attempts <= inv->attempts)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static bool generation_finished(const struct analysis *an, size_t gen)
{
	return gen + 1 < an->n_generations || an->finished;
}

/* A call the workflow code scheduled in one turn together with others, one
 * of which got its result, and that never got its own before the run
 * finished: the loser of a when_any race, or a fan-out the workflow stopped
 * waiting for. It was called once, by the code's own design, so it is no
 * duplicate: a run-specific limit says its outcome is unknown, instead of
 * unresolved_attempt. An invocation with retries stays a finding. */
void analysis_race_losers(struct finding_ctx *c)
{
	struct work *w = c->w;
	const struct analysis *an = &c->ao->pub;
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
		    !generation_finished(an, inv->generation))
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
	analysis_run_limit_add(c, sb_steal(&s));
}

static void find_unresolved(struct finding_ctx *c, const struct invocation *inv)
{
	const struct analysis *an = &c->ao->pub;
	if (!generation_finished(an, inv->generation))
		return;
	/* A result the rows could not pair may be this child's: its outcome is
	 * unknown here, not missing (the limits say so). */
	if (inv->is_child_workflow && c->w->n_child_unpaired &&
	    !str_set(attempt_more(&inv->attempts[0])->instance_id))
		return;
	if (c->w->race_loser && c->w->race_loser[invocation_index(an, inv)])
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
	struct finding_build *b = analysis_finding_new(c, FINDING_UNRESOLVED_ATTEMPT, inv->name,
						       inv->task_execution_id, a->event_index);
	struct sb s, t;
	analysis_finding_text(c, &s, &t);
	finding_attempts(b, inv, first, NONE);
	if (inv->is_child_workflow)
		sb_printf(&t, "event %" PRId64, a->scheduled_id);
	else
		sb_printf(&t, "attempt %zu", first + 1);
	sb_printf(&t, "%s has no result, yet %s", n > 1 ? " (and more)" : "",
		  inv->generation + 1 < an->n_generations ? "its generation ended" : "the run has finished");
	if (inv->generation + 1 >= an->n_generations)
		sb_printf(&t, " (%s)", an->status ? an->status : "ended");
	sb_printf(&s, "%s %s (task_scheduled_id ", inv->is_child_workflow ? "Child workflow" : "Attempt",
		  or_none(inv->name));
	sb_ids_where(&s, inv, 0, inv->n_attempts, is_pending);
	for (size_t i = 0; b && i < inv->n_attempts; i++) {
		if (inv->attempts[i].outcome == OUTCOME_PENDING)
			analysis_evidence_attempt(c, b, &inv->attempts[i]);
	}
	if (inv->is_child_workflow)
		sb_printf(&s, ", instance %s", or_none(attempt_more(a)->instance_id));
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
	analysis_finding_finish(c, b, &s, &t, inv->is_child_workflow ? remedy_child : NULL);
}

static void find_child_retried(struct finding_ctx *c, const struct invocation *inv)
{
	if (inv->n_attempts < 2 || !inv->is_child_workflow || inv->order_inputs_unknown)
		return;
	struct finding_build *b = analysis_finding_new(c, FINDING_CHILD_WORKFLOW_RETRIED, inv->name, NULL,
						       inv->attempts[0].event_index);
	struct sb s, t;
	analysis_finding_text(c, &s, &t);
	sb_printf(&t, "started %zu times (event ", (size_t)inv->n_attempts);
	sb_id_list(&t, inv->attempts, inv->n_attempts);
	sb_printf(&t, "): its activities ran again each time");
	bool same_instance = true, no_ids = true;
	const char *i0 = attempt_more(&inv->attempts[0])->instance_id;
	for (size_t i = 0; i < inv->n_attempts; i++) {
		const char *x = attempt_more(&inv->attempts[i])->instance_id;
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
			sb_printf(&s, "%s%s", i ? ", " : "",
				  or_none(attempt_more(&inv->attempts[i])->instance_id));
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
	else if (inv->link == LINK_PATTERN)
		sb_printf(&s, "The attempts were grouped by order and name (a failure, a retry timer "
			      "whose origin names no attempt in this history, then a new creation of the "
			      "same name), an inference, not a recorded link. ");
	sb_printf(&s, "An idempotency key derived from the child's own instance id or its "
		      "activities' task_execution_ids deduplicates nothing across these attempts: "
		      "derive it from a natural key of the input or from the parent run, make the "
		      "child's writes conditional on it, and audit the child instances too.");
	if (b) {
		for (size_t i = 0; i < inv->n_attempts; i++)
			analysis_evidence_attempt(c, b, &inv->attempts[i]);
		evidence_timers(c, b, inv);
	}
	analysis_finding_finish(c, b, &s, &t, NULL);
}

static void find_large(struct finding_ctx *c, const struct invocation *inv)
{
	if (c->w->view != VIEW_VISIBLE)
		return;
	const struct attempt *big = NULL;
	const char *field = NULL;
	size_t size = 0;
	for (size_t i = 0; i < inv->n_attempts; i++) {
		const struct attempt *a = &inv->attempts[i];
		if (a->input.state == PAYLOAD_PRESENT && a->input.size > c->w->payload_limit &&
		    a->input.size > size) {
			big = a;
			field = "input";
			size = a->input.size;
		}
		if (a->output.state == PAYLOAD_PRESENT && a->output.size > c->w->payload_limit &&
		    a->output.size > size) {
			big = a;
			field = "result";
			size = a->output.size;
		}
	}
	if (!big)
		return;
	struct finding_build *b = analysis_finding_new(c, FINDING_LARGE_PAYLOAD, inv->name, inv->task_execution_id,
						       inv->attempts[0].event_index);
	struct sb s, t;
	analysis_finding_text(c, &s, &t);
	sb_printf(&t, "the %s of %s %" PRId64 " is %zu bytes, over the %zu-byte limit", field,
		  inv->is_child_workflow ? "event" : "task_scheduled_id", big->scheduled_id, size,
		  c->w->payload_limit);
	sb_printf(&s,
		  "The %s of %s%s (task_scheduled_id %" PRId64 ") is %zu bytes, over the %zu-byte "
		  "limit: history stores it and replays it on every turn of the run, and it can "
		  "hit the state store's limits. Pass identifiers, not documents: store the data "
		  "elsewhere and pass its key.",
		  field, inv->is_child_workflow ? "child workflow " : "", or_none(inv->name), big->scheduled_id,
		  size, c->w->payload_limit);
	if (b) {
		analysis_evidence_attempt(c, b, big);
		if (strcmp(field, "result") == 0)
			analysis_evidence_add(c, b, big->result_index, -1);
	}
	analysis_finding_finish(c, b, &s, &t, NULL);
}

/* The attempt of the source run the re-driven one repeats: the same
 * task_execution_id (a rerun keeps it), else the same event id and name. */
static const struct attempt *source_attempt(const struct analysis *src, const struct invocation *inv,
					    const struct attempt *a)
{
	const struct attempt *by_id = NULL;
	for (size_t v = 0; v < src->n_invocations; v++) {
		const struct invocation *si = &src->invocations[v];
		if (si->is_child_workflow != inv->is_child_workflow)
			continue;
		for (size_t i = 0; i < si->n_attempts; i++) {
			const struct attempt *s = &si->attempts[i];
			if (str_set(a->task_execution_id) && str_set(s->task_execution_id) &&
			    strcmp(a->task_execution_id, s->task_execution_id) == 0 &&
			    s->scheduled_id == a->scheduled_id)
				return s;
			if (!by_id && s->scheduled_id == a->scheduled_id && str_set(si->name) &&
			    str_set(inv->name) && strcmp(si->name, inv->name) == 0)
				by_id = s;
		}
	}
	return by_id;
}

/* The call a rerun re-drove (the event that names the source) already ran
 * in the source run: its body runs again here. */
static void find_rerun(struct finding_ctx *c, const struct invocation *inv)
{
	const struct work *w = c->w;
	if (w->rerun_index == NONE32 || inv->attempts[0].event_index != w->rerun_index)
		return;
	const struct attempt *a = &inv->attempts[0];
	const struct attempt *s = w->rerun_src ? source_attempt(w->rerun_src, inv, a) : NULL;
	bool permanent = s && s->outcome == OUTCOME_FAILED && s->failure == FAILURE_PERMANENT;
	struct finding_build *b =
		analysis_finding_new(c, FINDING_RERUN_REEXECUTED, inv->name, a->task_execution_id, a->event_index);
	if (b && permanent)
		b->f.severity = SEVERITY_NOTICE;
	const char *what = inv->is_child_workflow ? "child workflow" : "activity";
	struct sb m, t;
	analysis_finding_text(c, &m, &t);
	sb_printf(&t, "re-driven by this rerun of %s from event %" PRId64 "; it already ran there",
		  w->rerun_parent, w->rerun_event_id);
	sb_printf(&m, "This run reruns instance %s from event %" PRId64 ", which re-drove %s %s (%s %" PRId64,
		  w->rerun_parent, w->rerun_event_id, what, or_none(inv->name),
		  inv->is_child_workflow ? "event" : "task_scheduled_id", a->scheduled_id);
	if (str_set(a->task_execution_id))
		sb_printf(&m, ", task_execution_id %s, kept from the source", a->task_execution_id);
	sb_printf(&m, "): it already ran in the source run, ");
	if (!w->rerun_src) {
		sb_printf(&m,
			  "which was not fetched (%s), so what it did there is not known here and its "
			  "side effect may now have happened twice. ",
			  w->rerun_src_why ? w->rerun_src_why : "source run not fetched");
	} else if (!s) {
		sb_printf(&m, "whose history shows no such call, so what it did there is not known and its "
			      "side effect may now have happened twice. ");
	} else if (s->outcome == OUTCOME_COMPLETED) {
		sb_printf(&m, "where it completed: its side effect happened there and may now have happened "
			      "twice. ");
	} else if (s->outcome == OUTCOME_PENDING) {
		sb_printf(&m, "where it has no result: what it did there is not known, and its side effect "
			      "may now have happened twice. ");
	} else if (permanent) {
		sb_printf(&m, "where it failed with ");
		sb_error(&m, s);
		sb_printf(&m, ", a permanent-class failure: it did nothing there to repeat, unless the "
			      "failure came after its write. ");
	} else {
		sb_printf(&m, "where it failed with ");
		sb_error(&m, s);
		sb_printf(&m, "%s: its side effect may have landed there and may now have happened twice. ",
			  s->failure == FAILURE_AMBIGUOUS ? ", a timeout/connection-class error"
			  : s->failure == FAILURE_SAFE    ? ", before anything reached the remote side, yet"
							  : "");
	}
	sb_printf(&m,
		  "Check the source run's side effect before trusting this one; key it on %s and make the "
		  "write conditional on that key.",
		  str_set(a->task_execution_id) ? "its task_execution_id (a rerun keeps it)"
						: "a natural key from the input");
	if (b)
		analysis_evidence_attempt(c, b, a);
	analysis_finding_finish(c, b, &m, &t, NULL);
}

static void find_orphans(struct finding_ctx *c)
{
	struct work *w = c->w;
	for (size_t k = 0; k < w->n_tim; k++) {
		const struct work_timer *t = &w->tim[k];
		if (!t->orphan)
			continue;
		bool child = t->origin == ORIGIN_CHILD_RETRY;
		struct finding_build *b = analysis_finding_new(c, FINDING_ORPHAN_RETRY_TIMER, NULL,
							       child ? NULL : t->origin_id, t->index);
		struct sb s, u;
		analysis_finding_text(c, &s, &u);
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
			analysis_evidence_add(c, b, t->index, t->event_id);
			analysis_evidence_add(c, b, t->fired_index, -1);
		}
		analysis_finding_finish(c, b, &s, &u, child ? remedy_child : NULL);
	}
}

/* One row per kind, in enum order (finding_kind_id and
 * finding_kind_severity read it). */
const struct finding_rule analysis_rules[FINDING_KIND_COUNT] = {
	{
		.kind = FINDING_REEXECUTED,
		.id = "reexecuted",
		.severity = SEVERITY_NOTICE,
		.detect = find_reexecuted,
		.explain = remedy_key_stable,
	},
	{
		.kind = FINDING_AMBIGUOUS_FAILURE_RETRIED,
		.id = "ambiguous_failure_retried",
		.severity = SEVERITY_SUSPECT,
		.detect = find_ambiguous,
		.explain = remedy_key_stable,
	},
	{
		.kind = FINDING_DUPLICATE_RESULT,
		.id = "duplicate_result",
		.severity = SEVERITY_SUSPECT,
		.detect = find_duplicates,
		.explain = remedy_key_stable,
	},
	{
		.kind = FINDING_OVERLAPPING_CALL,
		.id = "overlapping_call",
		.severity = SEVERITY_SUSPECT,
		.detect_run = analysis_find_overlapping,
		.explain = remedy_key_natural,
	},
	{
		.kind = FINDING_REPEATED_CALL,
		.id = "repeated_call",
		.severity = SEVERITY_SUSPECT,
		.detect_run = analysis_find_repeated,
		.explain = remedy_repeated,
	},
	{
		.kind = FINDING_PERMANENT_FAILURE_RETRIED,
		.id = "permanent_failure_retried",
		.severity = SEVERITY_NOTICE,
		.detect = find_permanent,
		.explain = remedy_permanent,
	},
	{
		.kind = FINDING_UNRESOLVED_ATTEMPT,
		.id = "unresolved_attempt",
		.severity = SEVERITY_SUSPECT,
		.detect = find_unresolved,
		.explain = remedy_unresolved,
	},
	{
		.kind = FINDING_CHILD_WORKFLOW_RETRIED,
		.id = "child_workflow_retried",
		.severity = SEVERITY_SUSPECT,
		.detect = find_child_retried,
		.explain = remedy_child,
	},
	{
		.kind = FINDING_ORPHAN_RETRY_TIMER,
		.id = "orphan_retry_timer",
		.severity = SEVERITY_NOTICE,
		.detect_run = find_orphans,
		.explain = remedy_key_stable,
	},
	{
		.kind = FINDING_LARGE_PAYLOAD,
		.id = "large_payload",
		.severity = SEVERITY_NOTICE,
		.detect = find_large,
		.explain = remedy_large,
	},
	{
		/* Suspect; a notice when the source attempt failed permanently. */
		.kind = FINDING_RERUN_REEXECUTED,
		.id = "rerun_reexecuted",
		.severity = SEVERITY_SUSPECT,
		.detect = find_rerun,
		.explain = remedy_rerun,
	},
};
