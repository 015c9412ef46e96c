/* What the history cannot show. The data-sharing level (given, read from
 * the run, or inferred from the payload keys the scan saw) decides how an
 * absent payload reads and which payloads are listed as withheld; the
 * limits are sentences, the same for any run (a report of several runs
 * prints those once) or naming this run's own data. */

#include <assert.h>
#include <inttypes.h>
#include <string.h>

#include "analysis_internal.h"

/* A schedule-to-result wait this long is worth naming next to the
 * crash-redelivery limit: a redelivery would hide inside it. */
#define LONG_GAP_MS (30 * 1000)

enum data_sharing_level analysis_sharing_given(const struct event_log *log, const struct analysis_options *o)
{
	const struct event_run_info *ri = event_log_run_info(log);
	if (o && o->sharing != SHARING_UNKNOWN)
		return o->sharing;
	return ri ? data_sharing_level_parse(ri->data_sharing_level) : SHARING_UNKNOWN;
}

int analysis_data_sharing(struct work *w, struct analysis_owned *ao)
{
	struct analysis *an = &ao->pub;
	struct sb s;
	bool oom = false;
	sb_init(&s, &oom);
	const struct event_run_info *ri = event_log_run_info(w->log);
	enum data_sharing_level ri_level = ri ? data_sharing_level_parse(ri->data_sharing_level) : SHARING_UNKNOWN;
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
		const char *origin = event_dialect_origin(w->dialect);
		sb_printf(&s, "not from Catalyst%s%s%s: no data-sharing level applies", origin ? " (" : "",
			  origin ? origin : "", origin ? ")" : "");
		if (w->caps & DIALECT_CAP_OMITS_EMPTY_PAYLOADS)
			/* The parser made every payload the dialect left out a
			 * null: there are no keys to point at. */
			sb_printf(&s,
				  ", and %s prints a payload only when there is one "
				  "(it omits nil and empty ones), so a missing one means no payload",
				  event_dialect_printer(w->dialect));
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

/* A sentence the same for any run. */
static int limit_generic(struct analysis_owned *ao, bool *oom, const char *sentence)
{
	return limit_add(ao, oom, strdup(sentence), false);
}

/* Child creations without instance ids (`dapr workflow history` output):
 * what was paired and grouped by order, and what cannot be seen. */
static void sb_children_without_ids(struct sb *s, const struct work *w, const struct analysis *an)
{
	size_t n_by_order = 0, n_grouped = 0;
	uint32_t pos[LIST_MAX];
	for (size_t v = 0; v < an->n_invocations; v++) {
		const struct invocation *inv = &an->invocations[v];
		if (!inv->is_child_workflow || str_set(attempt_more(&inv->attempts[0])->instance_id))
			continue;
		n_grouped += inv->n_attempts > 1 && inv->link == LINK_PATTERN;
		for (size_t i = 0; i < inv->n_attempts; i++) {
			if (!inv->attempts[i].result_by_order || inv->attempts[i].result_by_elimination)
				continue;
			if (n_by_order < LIST_MAX)
				pos[n_by_order] = inv->attempts[i].result_index;
			n_by_order++;
		}
	}
	if (w->caps & DIALECT_CAP_NO_CHILD_IDS)
		sb_printf(s,
			  "This history is %s, which prints no child "
			  "workflow instance id, no retry parent, and no scheduled id on a child's "
			  "failure (nor on its completion before CLI 1.17)",
			  event_dialect_origin(w->dialect));
	else
		sb_printf(s, "%zu child workflow creation%s here show%s no instance id", w->n_child_no_id,
			  w->n_child_no_id > 1 ? "s" : "", w->n_child_no_id > 1 ? "" : "s");
	sb_printf(s, ", so a child result that names no scheduled id can only be paired by order, "
		     "and child retries only grouped by order and name.");
	if (!n_by_order && !w->n_child_unpaired && !n_grouped && !w->n_child_eliminated)
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
	if (w->n_child_eliminated) {
		sb_printf(s,
			  "%s %zu child failure%s named no scheduled id while several children were "
			  "pending, and %s paired afterwards with the only child left without a result "
			  "before it (or one of several of the same name, which changes nothing shown)",
			  sep, w->n_child_eliminated, w->n_child_eliminated > 1 ? "s" : "",
			  w->n_child_eliminated > 1 ? "were" : "was");
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
	if (n_by_order || w->n_child_unpaired || n_grouped || w->n_child_eliminated)
		sb_printf(s, ".");
	sb_printf(s, " Without instance ids the children's own histories, and the activities in "
		     "them, cannot be found from this one.");
}

/* What the limits need to know of the run's calls, read once. */
struct run_shape {
	bool any_failed, any_pending, any_retried, any_pattern;
	int64_t gap; /* the longest schedule-to-result wait, ms; -1: none */
	const struct attempt *gap_at;
	const char *gap_name;
};

static struct run_shape run_shape(const struct analysis *an)
{
	struct run_shape r = {.gap = -1};
	for (size_t v = 0; v < an->n_invocations; v++) {
		const struct invocation *inv = &an->invocations[v];
		r.any_retried |= inv->n_attempts > 1;
		/* Children without instance ids have a limit of their own. */
		r.any_pattern |=
			inv->link == LINK_PATTERN &&
			!(inv->is_child_workflow && !str_set(attempt_more(&inv->attempts[0])->instance_id));
		for (size_t i = 0; i < inv->n_attempts; i++) {
			const struct attempt *a = &inv->attempts[i];
			r.any_failed |= a->outcome == OUTCOME_FAILED;
			r.any_pending |= a->outcome == OUTCOME_PENDING;
			if (a->outcome != OUTCOME_COMPLETED || inv->is_child_workflow)
				continue;
			int64_t t0 = parse_time_ms(a->scheduled_at), t1 = parse_time_ms(a->completed_at);
			if (t0 < 0 || t1 < 0)
				continue;
			if (t1 - t0 > r.gap) {
				r.gap = t1 - t0;
				r.gap_at = a;
				r.gap_name = inv->name;
			}
		}
	}
	return r;
}

/* Each step adds the limits of one kind and returns < 0 when out of
 * memory; the order of the steps is the order of the report. */
typedef int limit_step(struct finding_ctx *c, const struct run_shape *r);

/* Whether an attempt of the run has more than one result: a runtime
 * before Dapr 1.17.7 wrote it, which kept duplicate completions. */
static bool shows_duplicate_results(const struct analysis *an)
{
	for (size_t i = 0; i < an->n_invocations; i++)
		for (uint32_t k = 0; k < an->invocations[i].n_attempts; k++)
			if (an->invocations[i].attempts[k].n_results > 1)
				return true;
	return false;
}

/* 1. Crash or redelivery after commit: always, with its measure here. From
 * Dapr 1.17.7 the runtime also drops a duplicate completion before it is
 * written (dapr/dapr#9875, in 1.17.7 and 1.18; #9903 keeps a redelivery
 * from dispatching an activity running already), so a second run that
 * completed leaves no event either; a history that shows duplicate
 * results was written by a runtime before that, and the sentence without
 * it is the true one. */
static int limit_redelivery(struct finding_ctx *c, const struct run_shape *r)
{
	bool *oom = &c->w->oom;
	if (limit_generic(
		    c->ao, oom,
		    shows_duplicate_results(&c->ao->pub)
			    ? "A re-run after a worker crash or a redelivery after commit leaves no event."
			    : "A re-run after a worker crash or a redelivery after commit leaves no event, and "
			      "from Dapr 1.17.7 on the runtime drops a second completion of an activity before "
			      "it reaches history (dapr/dapr#9875), so an activity that ran twice that way "
			      "leaves no trace here: its own logs or its idempotency store would show it.") < 0)
		return -1;
	/* Its measure in this run: a sentence of its own, which stays with the run. */
	if (r->gap < LONG_GAP_MS || !r->gap_at)
		return 0;
	struct sb s;
	sb_init(&s, oom);
	sb_printf(&s,
		  "The longest wait between a schedule and its result here is %.1f s "
		  "(%s, task_scheduled_id %" PRId64 "): a redelivery would hide inside "
		  "such a gap.",
		  (double)r->gap / 1000.0, or_none(r->gap_name), r->gap_at->scheduled_id);
	return limit_add(c->ao, oom, sb_steal(&s), true);
}

/* A history that prints no failure details: read for what it prints. */
static int limit_dialect(struct finding_ctx *c, const struct run_shape *r)
{
	struct work *w = c->w;
	(void)r;
	if (!(w->caps & DIALECT_CAP_NO_FAILURE_DETAILS))
		return 0;
	struct sb s;
	sb_init(&s, &w->oom);
	sb_printf(&s,
		  "This history is %s, which prints no failure details (no error type or "
		  "message, so every failure class is unknown), no execution ids, no payloads "
		  "and no scheduled id on a failure: each failure is paired with a call by order, "
		  "and retries grouped by order and name. Save the history with `%s ID -o json` "
		  "for more.",
		  event_dialect_origin(w->dialect), event_dialect_printer(w->dialect));
	return limit_add(c->ao, &w->oom, sb_steal(&s), true);
}

/* 2. Payloads not visible, and the calls that made it matter. */
static int limit_payloads(struct finding_ctx *c, const struct run_shape *r)
{
	struct work *w = c->w;
	const struct analysis *an = &c->ao->pub;
	(void)r;
	if (w->view != VIEW_VISIBLE) {
		struct sb s;
		sb_init(&s, &w->oom);
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
		if (limit_add(c->ao, &w->oom, sb_steal(&s), w->view == VIEW_UNKNOWN) < 0)
			return -1;
	}
	for (size_t i = 0; i < c->n_run_limits; i++) {
		char *text = c->run_limits[i];
		c->run_limits[i] = NULL;
		if (limit_add(c->ao, &w->oom, text, true) < 0)
			return -1;
	}
	return 0;
}

/* 3. Earlier continue-as-new generations. */
static int limit_generations(struct finding_ctx *c, const struct run_shape *r)
{
	struct work *w = c->w;
	const struct analysis *an = &c->ao->pub;
	(void)r;
	struct sb s;
	sb_init(&s, &w->oom);
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
	return limit_add(c->ao, &w->oom, sb_steal(&s), !can_generic);
}

/* 4-7. What no history records: retries in code, the policy, remote
 * overlap, and links that were inferred. */
static int limit_unrecorded(struct finding_ctx *c, const struct run_shape *r)
{
	struct analysis_owned *ao = c->ao;
	bool *oom = &c->w->oom;
	if (limit_generic(ao, oom, "Retries inside activity code (a loop, an HTTP client's) leave no event.") < 0)
		return -1;
	if ((r->any_failed || r->any_retried) &&
	    limit_generic(ao, oom, "Retry policy settings (attempts, backoff, errors) are not in history.") < 0)
		return -1;
	if ((r->any_retried || r->any_pending) &&
	    limit_generic(ao, oom, "A failed attempt may still be running remotely while the next one runs.") < 0)
		return -1;
	if (r->any_pattern && !c->w->has_origins &&
	    limit_generic(ao, oom,
			  "This history records no retry-timer origins (Dapr before 1.18): attempts "
			  "marked as linked by pattern were joined because a failure, a timer and "
			  "a new schedule of the same name followed each other, which is an "
			  "inference, not a recorded link.") < 0)
		return -1;
	return 0;
}

/* What a timer linked by order was paired with, and what came of it: the
 * note names the call and, when a retry followed, the finding that counts
 * it, and says "linked" of nothing the findings do not show. */
static void sb_order_link(struct sb *s, const struct order_link *l, struct analysis *an)
{
	const char *what = l->child ? "child workflow" : "activity";
	if (!l->name) {
		sb_printf(s, "; it answers no failure here.");
		return;
	}
	sb_printf(s, "; by order, it answers the failure it follows, of %s %s (%s %" PRId64 "): ", what, l->name,
		  l->child ? "event" : "task_scheduled_id", l->scheduled_id);
	if (l->retried && an->n_claims < NOTE_CLAIMS_MAX)
		an->claims[an->n_claims++] = (struct note_claim){
			.limit = an->n_limits, /* the note this sentence becomes */
			.kind = l->child ? FINDING_CHILD_WORKFLOW_RETRIED : FINDING_REEXECUTED,
			.activity = l->name,
			.event_index = l->event_index,
		};
	if (l->retried)
		sb_printf(s,
			  "the next schedule of that name after it fired is counted as that call's retry "
			  "(finding %s), an inference, not a recorded link.",
			  l->child ? "child_workflow_retried" : "reexecuted");
	else if (l->fired)
		sb_printf(s, "it fired, but no new schedule of that name followed, so no retry is counted.");
	else
		sb_printf(s, "it has not fired, so no retry has followed it yet.");
}

/* 7b. Retry timers linked by order although the history records origins:
 * one whose origin named no attempt, one that records none. */
static int limit_unmatched_origins(struct finding_ctx *c, const struct run_shape *r)
{
	struct work *w = c->w;
	const struct order_link *u = &w->unmatched, *m = &w->missing;
	(void)r;
	if (u->n) {
		struct sb s;
		sb_init(&s, &w->oom);
		sb_printf(&s, "Retry timer %" PRId64 " names %s %s as its origin", u->timer_id,
			  u->child ? "child instance" : "task_execution_id", or_none(u->origin));
		if (u->n > 1)
			sb_printf(&s, " (and %zu more timer%s name%s such an origin)", u->n - 1,
				  u->n > 2 ? "s" : "", u->n > 2 ? "" : "s");
		if (w->caps & DIALECT_CAP_NO_FAILURE_DETAILS)
			sb_printf(&s,
				  ", which matches no attempt in this history (%s prints no execution id "
				  "on an attempt)",
				  event_dialect_origin(w->dialect));
		else if (u->child)
			sb_printf(&s, ", which matches no attempt in this history (the .NET SDK names a "
				      "child's retries after an instance id it never starts when none is "
				      "given)");
		else
			sb_printf(&s, ", which matches no attempt in this history (no attempt carries "
				      "that task_execution_id: the .NET SDK names the chain after one it "
				      "made, and this history left the attempts' ids out)");
		sb_order_link(&s, u, &c->ao->pub);
		if (limit_add(c->ao, &w->oom, sb_steal(&s), true) < 0)
			return -1;
	}
	if (m->n) {
		struct sb s;
		sb_init(&s, &w->oom);
		sb_printf(&s, "Timer %" PRId64 " records no origin", m->timer_id);
		if (m->n > 1)
			sb_printf(&s, " (and %zu more timer%s)", m->n - 1, m->n > 2 ? "s" : "");
		sb_printf(&s, ", though other timers of this history do (an SDK or a runtime before Dapr 1.18 "
			      "wrote it, or the history was assembled by hand)");
		sb_order_link(&s, m, &c->ao->pub);
		if (limit_add(c->ao, &w->oom, sb_steal(&s), true) < 0)
			return -1;
	}
	return 0;
}

/* 7c. Retries linked by order in a run with no retry timer: those whose
 * inputs could not be compared (blind), then those with equal inputs. */
static int limit_order_links_of(struct finding_ctx *c, bool blind)
{
	const struct analysis *an = &c->ao->pub;
	size_t n = 0;
	struct sb s;
	sb_init(&s, &c->w->oom);
	for (size_t v = 0; v < an->n_invocations; v++) {
		const struct invocation *inv = &an->invocations[v];
		if (inv->link != LINK_ORDER || inv->order_inputs_unknown != blind)
			continue;
		if (n < LIST_MAX) {
			sb_printf(&s, "%s%s%s (%s ", n ? "; " : "",
				  inv->is_child_workflow ? "child workflow " : "", or_none(inv->name),
				  inv->is_child_workflow ? "event" : "task_scheduled_id");
			sb_id_list(&s, inv->attempts, inv->n_attempts);
			sb_printf(&s, ")");
		}
		n++;
	}
	if (!n) {
		buf_finish(&s.b);
		return 0;
	}
	if (n > LIST_MAX)
		sb_printf(&s, " and %zu more", n - LIST_MAX);
	if (blind)
		sb_printf(&s,
			  ": linked by order, no retry timer, inputs not comparable. Each failure was "
			  "followed by the one call of the same name in the turn that processed it, "
			  "and this run records no retry timer (the JavaScript SDK's retry handler "
			  "and a zero first retry interval retry so); a loop that catches one item's "
			  "failure and calls the next item has the same shape, so %s reported as "
			  "re-executed, never as a suspect.",
			  n > 1 ? "these are" : "it is");
	else
		sb_printf(&s, ": linked by order, no retry timer. Each failure was followed by the one call "
			      "of the same name, with an equal input, in the turn that processed it, and "
			      "this run records no retry timer (the JavaScript SDK's retry handler and a "
			      "zero first retry interval retry so): an inference, not a recorded link.");
	return limit_add(c->ao, &c->w->oom, sb_steal(&s), true);
}

static int limit_order_links(struct finding_ctx *c, const struct run_shape *r)
{
	(void)r;
	return limit_order_links_of(c, true) < 0 ? -1 : limit_order_links_of(c, false);
}

/* 8. Child workflows have their own histories; 8b. creations that show
 * no instance id. */
static int limit_children(struct finding_ctx *c, const struct run_shape *r)
{
	struct work *w = c->w;
	const struct analysis *an = &c->ao->pub;
	struct sb s;
	(void)r;
	if (an->n_child_instances) {
		sb_init(&s, &w->oom);
		sb_printf(&s, "Activities of the %zu child workflow instance%s (", an->n_child_instances,
			  an->n_child_instances > 1 ? "s" : "");
		for (size_t i = 0; i < an->n_child_instances && i < LIST_MAX; i++)
			sb_printf(&s, "%s%s", i ? ", " : "", an->child_instances[i]);
		if (an->n_child_instances > LIST_MAX)
			sb_printf(&s, " and %zu more", an->n_child_instances - LIST_MAX);
		sb_printf(&s, ") are in their own histories, not in this one.");
		if (limit_add(c->ao, &w->oom, sb_steal(&s), true) < 0)
			return -1;
	}
	if (!w->n_child_no_id)
		return 0;
	sb_init(&s, &w->oom);
	sb_children_without_ids(&s, w, an);
	return limit_add(c->ao, &w->oom, sb_steal(&s), true);
}

/* 9. A rerun carries copies of the source run's events. */
static int limit_rerun(struct finding_ctx *c, const struct run_shape *r)
{
	struct work *w = c->w;
	(void)r;
	if (!w->rerun_parent)
		return 0;
	struct sb s;
	sb_init(&s, &w->oom);
	sb_printf(&s, "This run is a rerun of instance %s", w->rerun_parent);
	if (w->rerun_index != NONE32) {
		sb_printf(&s, " from event %" PRId64 " (%s%s%s, history position %" PRIu32 ")", w->rerun_event_id,
			  event_kind_name((enum event_kind)w->rerun_kind), str_set(w->rerun_name) ? " " : "",
			  str_set(w->rerun_name) ? w->rerun_name : "", w->rerun_index);
		sb_printf(&s,
			  ": the %" PRIu32 " event%s before it %s copies of that run's, with its ids "
			  "and times, and are not counted as this run's executions",
			  w->rerun_index, w->rerun_index == 1 ? "" : "s", w->rerun_index == 1 ? "is" : "are");
	}
	sb_printf(&s, "; schedules copied or re-driven keep the source's task_execution_ids and ran "
		      "there too, so audit the source run as well.");
	if (!w->rerun_src)
		sb_printf(&s, " Source run not fetched (%s).",
			  w->rerun_src_why ? w->rerun_src_why : "a saved history names it only");
	return limit_add(c->ao, &w->oom, sb_steal(&s), true);
}

/* 10. Results that point at nothing. */
static int limit_unmatched_results(struct finding_ctx *c, const struct run_shape *r)
{
	struct work *w = c->w;
	(void)r;
	if (!w->n_unmatched_results)
		return 0;
	struct sb s;
	sb_init(&s, &w->oom);
	sb_printf(&s,
		  "%zu result%s point%s at a task_scheduled_id with no schedule in this "
		  "history (first: %" PRId64 "), so this history is partial.",
		  w->n_unmatched_results, w->n_unmatched_results > 1 ? "s" : "",
		  w->n_unmatched_results > 1 ? "" : "s", w->first_unmatched_tsid);
	return limit_add(c->ao, &w->oom, sb_steal(&s), true);
}

/* Dapr 1.18 signed histories: a run the runtime failed because its
 * history's signatures did not verify. Its events are then no evidence. */
static int limit_tampered(struct finding_ctx *c, const struct run_shape *r)
{
	struct work *w = c->w;
	(void)r;
	if (!w->tampered)
		return 0;
	struct sb s;
	sb_init(&s, &w->oom);
	sb_printf(&s,
		  "The runtime failed this run because its history's signature did not verify "
		  "(%s: %s): the history was altered or damaged in the state "
		  "store, so no event of it can be taken as evidence, and the failure is not one of the "
		  "workflow's code.",
		  w->tampered_type, w->tampered);
	return limit_add(c->ao, &w->oom, sb_steal(&s), true);
}

void analysis_limits(struct finding_ctx *c)
{
	static limit_step *const steps[] = {
		limit_redelivery, limit_dialect,           limit_payloads,    limit_generations,
		limit_unrecorded, limit_unmatched_origins, limit_order_links, limit_children,
		limit_rerun,      limit_unmatched_results, limit_tampered,
	};
	const struct run_shape r = run_shape(&c->ao->pub);
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
		if (steps[i](c, &r) < 0)
			return;
}
