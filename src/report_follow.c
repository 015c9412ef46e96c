/* What is new in a run's history since the last reading (report_follow.h).
 * An event is known by what it is (kind, ids, times, names), counted, so
 * two identical events (a duplicated result) are two; a finding by its
 * kind, activity, execution id and first evidence event. */
#include "report_follow.h"

#include <stdlib.h>
#include <string.h>

/* A multiset of 64-bit keys, open addressing; key 0 is never stored (a
 * hash of 0 is taken as 1). */
struct keyset {
	uint64_t *keys;
	uint32_t *counts;
	size_t cap, n;
};

static void keyset_free(struct keyset *s)
{
	free(s->keys);
	free(s->counts);
	memset(s, 0, sizeof *s);
}

static size_t slot_of(const struct keyset *s, uint64_t k)
{
	size_t i = (size_t)(k ^ (k >> 29)) & (s->cap - 1);
	while (s->keys[i] && s->keys[i] != k)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int keyset_grow(struct keyset *s)
{
	struct keyset g = {.cap = s->cap ? 2 * s->cap : 256};
	g.keys = calloc(g.cap, sizeof *g.keys);
	g.counts = calloc(g.cap, sizeof *g.counts);
	if (!g.keys || !g.counts) {
		keyset_free(&g);
		return -1;
	}
	for (size_t i = 0; i < s->cap; i++)
		if (s->keys[i]) {
			size_t j = slot_of(&g, s->keys[i]);
			g.keys[j] = s->keys[i];
			g.counts[j] = s->counts[i];
		}
	g.n = s->n;
	keyset_free(s);
	*s = g;
	return 0;
}

/* The count stored for k (0: none). */
static uint32_t keyset_get(const struct keyset *s, uint64_t k)
{
	if (!s->cap)
		return 0;
	size_t i = slot_of(s, k);
	return s->keys[i] ? s->counts[i] : 0;
}

/* Adds one to k's count and returns it; 0 when memory ran out. */
static uint32_t keyset_add(struct keyset *s, uint64_t k)
{
	if ((s->n + 1) * 4 > s->cap * 3 && keyset_grow(s) < 0)
		return 0;
	size_t i = slot_of(s, k);
	if (!s->keys[i]) {
		s->keys[i] = k;
		s->n++;
	}
	return ++s->counts[i];
}

struct report_follow {
	struct keyset events;   /* what each said event is, with how many of it were said */
	struct keyset findings; /* the findings said */
	size_t n_events_said, n_findings_said;
	/* Of those, how many the last reading no longer held. */
	size_t events_gone, findings_gone;
	/* The generation (continue-as-new) the said events are of: the hash
	 * of its ExecutionStarted's execution id, 0 while none was read. */
	uint64_t generation;
	bool new_generation;    /* the last reading began one */
	size_t findings_before; /* said of the generations before it */
};

struct report_follow *report_follow_new(void)
{
	return calloc(1, sizeof(struct report_follow));
}

void report_follow_free(struct report_follow *f)
{
	if (!f)
		return;
	keyset_free(&f->events);
	keyset_free(&f->findings);
	free(f);
}

static const char *const what_names[FOLLOW_WHAT_COUNT] = {
	[FOLLOW_RUN_STARTED] = "run_started",
	[FOLLOW_SCHEDULED] = "scheduled",
	[FOLLOW_COMPLETED] = "completed",
	[FOLLOW_FAILED] = "failed",
	[FOLLOW_RETRY_TIMER] = "retry_timer",
	[FOLLOW_TIMER] = "timer",
	[FOLLOW_CHILD_STARTED] = "child_started",
	[FOLLOW_CHILD_COMPLETED] = "child_completed",
	[FOLLOW_CHILD_FAILED] = "child_failed",
	[FOLLOW_SUSPENDED] = "suspended",
	[FOLLOW_RESUMED] = "resumed",
	[FOLLOW_CONTINUED_AS_NEW] = "continued_as_new",
	[FOLLOW_ENDED] = "ended",
};

const char *follow_what_name(enum follow_what w)
{
	return (unsigned)w < FOLLOW_WHAT_COUNT ? what_names[w] : "unknown";
}

/* FNV-1a, a string with its terminator (NULL and "" differ). */
static uint64_t mix_str(uint64_t h, const char *s)
{
	if (!s)
		return (h ^ 0xffu) * 0x100000001b3ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0u) * 0x100000001b3ull;
}

static uint64_t mix_int(uint64_t h, int64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ (uint8_t)((uint64_t)v >> (8 * i))) * 0x100000001b3ull;
	return h;
}

static uint64_t event_key(const struct event *ev)
{
	uint64_t h = 0xcbf29ce484222325ull;
	h = mix_int(h, ev->kind);
	h = mix_int(h, ev->has_event_id ? ev->event_id : INT64_MIN);
	h = mix_int(h, ev->task_scheduled_id);
	h = mix_int(h, ev->has_timer_id ? ev->timer_id : INT64_MIN);
	h = mix_str(h, ev->timestamp);
	h = mix_str(h, ev->name);
	h = mix_str(h, ev->task_execution_id);
	h = mix_str(h, ev->fire_at);
	h = mix_str(h, ev->instance_id);
	h = mix_str(h, ev->error_message);
	return h ? h : 1;
}

static uint64_t finding_key(const struct finding *fd)
{
	uint64_t h = 0xcbf29ce484222325ull;
	h = mix_int(h, fd->kind);
	h = mix_str(h, fd->activity);
	h = mix_str(h, fd->task_execution_id);
	h = mix_int(h, fd->n_evidence ? fd->evidence_event_ids[0] : INT64_MIN);
	return h ? h : 1;
}

/* Which attempt an event is, by its position: the scheduling event and the
 * result of every attempt of a's invocations. */
struct attempt_at {
	const struct invocation *inv;
	const struct attempt *at;
	uint32_t no; /* 1-based */
	bool result;
};

static struct attempt_at *attempts_by_index(const struct analysis *a, size_t n)
{
	struct attempt_at *by = calloc(n ? n : 1, sizeof *by);
	if (!by)
		return NULL;
	for (size_t i = 0; a && i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		for (uint32_t k = 0; k < inv->n_attempts; k++) {
			const struct attempt *at = &inv->attempts[k];
			if (at->event_index < n)
				by[at->event_index] = (struct attempt_at){inv, at, k + 1, false};
			if (at->result_index != ATTEMPT_NO_RESULT && at->result_index < n)
				by[at->result_index] = (struct attempt_at){inv, at, k + 1, true};
		}
	}
	return by;
}

/* The invocation a retry timer (by its event id) was created for. */
static const struct invocation *retried_by(const struct analysis *a, const struct event *ev)
{
	for (size_t i = 0; a && ev->has_event_id && i < a->n_invocations; i++)
		for (uint32_t k = 0; k < a->invocations[i].n_retry_timers; k++)
			if (a->invocations[i].retry_timer_event_ids[k] == ev->event_id)
				return &a->invocations[i];
	return NULL;
}

/* What each kind of event is said as, plus one; 0: it is not worth a line
 * (orchestrator turns, fired timers, sent and raised events). */
static const uint8_t said_as[EVENT_KIND_COUNT] = {
	[EVENT_EXECUTION_STARTED] = FOLLOW_RUN_STARTED + 1, [EVENT_TASK_SCHEDULED] = FOLLOW_SCHEDULED + 1,
	[EVENT_TASK_COMPLETED] = FOLLOW_COMPLETED + 1,      [EVENT_TASK_FAILED] = FOLLOW_FAILED + 1,
	[EVENT_TIMER_CREATED] = FOLLOW_TIMER + 1, /* or a retry timer: describe */
	[EVENT_CHILD_CREATED] = FOLLOW_CHILD_STARTED + 1,   [EVENT_CHILD_COMPLETED] = FOLLOW_CHILD_COMPLETED + 1,
	[EVENT_CHILD_FAILED] = FOLLOW_CHILD_FAILED + 1,     [EVENT_EXECUTION_SUSPENDED] = FOLLOW_SUSPENDED + 1,
	[EVENT_EXECUTION_RESUMED] = FOLLOW_RESUMED + 1,     [EVENT_CONTINUE_AS_NEW] = FOLLOW_CONTINUED_AS_NEW + 1,
	[EVENT_EXECUTION_COMPLETED] = FOLLOW_ENDED + 1,     [EVENT_EXECUTION_TERMINATED] = FOLLOW_ENDED + 1,
};

/* What ev is worth saying as, or false when it is not worth a line. */
static bool describe(const struct event *ev, const struct attempt_at *by, const struct analysis *a,
		     struct follow_event *out)
{
	unsigned as = (unsigned)ev->kind < EVENT_KIND_COUNT ? said_as[ev->kind] : 0;
	if (!as)
		return false;
	memset(out, 0, sizeof *out);
	out->what = (enum follow_what)(as - 1);
	out->event_id = ev->event_id;
	out->has_event_id = ev->has_event_id;
	out->timestamp = ev->timestamp;
	out->name = by->inv ? by->inv->name : ev->name;
	out->attempt = by->inv ? by->no : 0;
	out->fire_at = ev->fire_at;
	if (out->what == FOLLOW_FAILED || out->what == FOLLOW_CHILD_FAILED) {
		out->error_type = ev->error_type;
		out->error_message = ev->error_message;
		out->failure = by->at ? (enum failure_class)by->at->failure : FAILURE_UNKNOWN;
	} else if (out->what == FOLLOW_TIMER) {
		const struct invocation *inv = retried_by(a, ev);
		if (inv || ev->origin == ORIGIN_ACTIVITY_RETRY || ev->origin == ORIGIN_CHILD_RETRY)
			out->what = FOLLOW_RETRY_TIMER;
		if (inv)
			out->name = inv->name;
	} else if (out->what == FOLLOW_ENDED) {
		/* the analysis' status is the recorded one, normalised */
		out->status = ev->kind == EVENT_EXECUTION_TERMINATED ? "terminated"
			      : a && a->status                       ? a->status
								     : ev->workflow_status;
	}
	return true;
}

/* The execution id of the reading's generation, hashed (0: it names none).
 * A run that continued as new shows its last generation only, from a new
 * ExecutionStarted. */
static uint64_t generation_of(const struct event_log *log, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct event ev;
		event_log_get(log, i, &ev);
		if (ev.kind == EVENT_EXECUTION_STARTED) {
			if (!ev.execution_id || !*ev.execution_id)
				return 0;
			uint64_t h = mix_str(0xcbf29ce484222325ull, ev.execution_id);
			return h ? h : 1;
		}
	}
	return 0;
}

/* A new generation: what was said of the one before is no longer in the
 * history, and is not lost either. */
static void start_generation(struct report_follow *f, uint64_t g)
{
	if (f->generation && g && g != f->generation) {
		keyset_free(&f->events);
		keyset_free(&f->findings);
		f->findings_before += f->n_findings_said;
		f->n_events_said = f->n_findings_said = 0;
		f->new_generation = true;
	}
	if (g)
		f->generation = g;
}

/* Which events of the reading are new: fresh[i] for each; *last_said the
 * position after the last one said before (events before it that are new
 * arrived late). */
static int mark_fresh(struct report_follow *f, const struct event_log *log, size_t n, bool *fresh, uint64_t *keys,
		      size_t *last_said)
{
	struct keyset seen = {0};
	size_t held = 0;
	*last_said = 0;
	for (size_t i = 0; i < n; i++) {
		struct event ev;
		event_log_get(log, i, &ev);
		keys[i] = event_key(&ev);
		uint32_t nth = keyset_add(&seen, keys[i]);
		if (!nth) {
			keyset_free(&seen);
			return -1;
		}
		fresh[i] = nth > keyset_get(&f->events, keys[i]);
		if (!fresh[i]) {
			*last_said = i + 1;
			held++;
		}
	}
	keyset_free(&seen);
	f->events_gone = f->n_events_said - held;
	return 0;
}

/* The new findings of a, each with the position of the event that made it
 * true (its last evidence; the last event when it names none): said just
 * after that event. */
struct due_finding {
	size_t at; /* in a->findings */
	size_t due;
	uint64_t key;
};

static long new_findings(struct report_follow *f, const struct analysis *a, size_t n_events,
			 struct due_finding **out)
{
	*out = NULL;
	f->findings_gone = f->n_findings_said;
	if (!a || !a->n_findings)
		return 0;
	struct due_finding *v = calloc(a->n_findings, sizeof *v);
	if (!v)
		return -1;
	size_t n = 0, held = 0;
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *fd = &a->findings[i];
		uint64_t k = finding_key(fd);
		if (keyset_get(&f->findings, k)) {
			held++;
			continue;
		}
		size_t due = n_events ? n_events - 1 : 0;
		if (fd->n_evidence_event_indexes) {
			due = 0;
			for (size_t j = 0; j < fd->n_evidence_event_indexes; j++)
				if (fd->evidence_event_indexes[j] > due)
					due = fd->evidence_event_indexes[j];
		}
		v[n++] = (struct due_finding){i, due, k};
	}
	/* Two findings of one key would be held twice. */
	f->findings_gone = held < f->n_findings_said ? f->n_findings_said - held : 0;
	*out = v;
	return (long)n;
}

/* Says the findings due by event i (all of them when i is SIZE_MAX). */
static int say_due(struct report_follow *f, const struct analysis *a, struct due_finding *v, size_t n, size_t i,
		   const struct follow_sink *sink, struct err *e)
{
	for (size_t k = 0; k < n; k++) {
		if (!v[k].key || (i != SIZE_MAX && v[k].due > i))
			continue;
		if (sink && sink->finding && sink->finding(a, v[k].at, sink->ctx, e) < 0)
			return -1;
		if (!keyset_add(&f->findings, v[k].key))
			return err_oom(e);
		f->n_findings_said++;
		v[k].key = 0; /* said */
	}
	return 0;
}

long report_follow_news(struct report_follow *f, const struct event_log *log, const struct analysis *a,
			const struct follow_sink *sink, struct err *e)
{
	size_t n = event_log_count(log), last_said;
	f->new_generation = false;
	start_generation(f, generation_of(log, n));
	bool *fresh = calloc(n ? n : 1, sizeof *fresh);
	uint64_t *keys = calloc(n ? n : 1, sizeof *keys);
	struct attempt_at *by = attempts_by_index(a, n);
	struct due_finding *due = NULL;
	long n_due = new_findings(f, a, n, &due), n_new = 0;
	if (!fresh || !keys || !by || n_due < 0 || mark_fresh(f, log, n, fresh, keys, &last_said) < 0) {
		n_new = err_oom(e);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (fresh[i]) {
			struct event ev;
			event_log_get(log, i, &ev);
			struct follow_event fe;
			if (describe(&ev, &by[i], a, &fe) && sink && sink->event) {
				fe.index = (uint32_t)i;
				fe.late = i < last_said;
				if (sink->event(&fe, sink->ctx, e) < 0) {
					n_new = -1;
					goto out;
				}
			}
			if (!keyset_add(&f->events, keys[i])) {
				n_new = err_oom(e);
				goto out;
			}
			f->n_events_said++;
			n_new++;
		}
		if (say_due(f, a, due, (size_t)n_due, i, sink, e) < 0) {
			n_new = -1;
			goto out;
		}
	}
	if (say_due(f, a, due, (size_t)n_due, SIZE_MAX, sink, e) < 0)
		n_new = -1;
out:
	free(fresh);
	free(keys);
	free(by);
	free(due);
	return n_new;
}

void report_follow_gone(const struct report_follow *f, size_t *events, size_t *findings)
{
	*events = f->events_gone;
	*findings = f->findings_gone;
}

bool report_follow_new_generation(const struct report_follow *f, size_t *findings_before)
{
	*findings_before = f->findings_before;
	return f->new_generation;
}
