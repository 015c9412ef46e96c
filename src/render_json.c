/* The JSON report, "catalyst-audit.report/v1" (documented field by field in
 * catalyst-audit(1)): its shape, written with the streaming writer
 * (json_writer.h), which gives byte for byte what json_dumpf(JSON_INDENT(2)
 * | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII) gives for the whole tree.
 * Key order is fixed by the order of the calls below.
 *
 * Why not one jansson tree: a history of 100,000 invocations makes a
 * 180 MB report; building it as jansson objects (one per attempt, ~15 keys
 * each) and dumping them was most of `file`'s time, and the tree doubled
 * the memory. A run's big arrays (activities, findings, withheld) may be
 * written by two threads (jw_items). */
#include "render.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "json_writer.h"
#include "report_follow.h"
#include "report_payloads.h"

/* An id: null when absent or empty (an empty id identifies nothing). */
static void write_id(struct jw *w, const char *s)
{
	jw_str(w, s && *s ? s : NULL);
}

static inline void write_k_id(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	write_id(w, s);
}

static void write_payload(struct jw *w, const char *key, const struct payload *p)
{
	/* Two for every attempt, nearly all with nothing but their state:
	 * those are the same bytes each time (a memo per state). */
	size_t mark = 0;
	bool same = p->state != PAYLOAD_PRESENT && (unsigned)p->state < JW_MEMOS;
	jw_key(w, key);
	if (same && jw_memo_begin(w, (unsigned)p->state, &mark))
		return;
	jw_open_value(w, '{');
	jw_k_cstr(w, "state", payload_state_name(p->state));
	if (p->state == PAYLOAD_PRESENT)
		jw_k_int(w, "bytes", (int64_t)p->size);
	/* Only a prefix is known (dapr workflow history cuts payloads). */
	if (p->state == PAYLOAD_PRESENT && p->truncated)
		jw_k_bool(w, "truncated", true);
	jw_close(w, '}');
	if (same)
		jw_memo_end(w, (unsigned)p->state, mark);
}

static void write_attempt(struct jw *w, const struct invocation *inv, const struct attempt *at)
{
	const struct attempt_more *mo = attempt_more(at);
	jw_open(w, NULL, '{');
	/* Counted from 1 as the text says it (issue 19); the scheduled id
	 * stays the evidence. */
	jw_k_int(w, "attempt", (int64_t)(at - inv->attempts) + 1);
	jw_k_int(w, "task_scheduled_id", at->scheduled_id);
	jw_k_str(w, "scheduled_at", at->scheduled_at);
	jw_k_cstr(w, "outcome", attempt_outcome_name(at->outcome));
	jw_k_cstr(w, "error_message", mo->error_message);
	/* extras */
	jw_k_cstr(w, "error_type", mo->error_type);
	/* The innermost innerFailure the class was decided on, or null. */
	if (mo->cause_type || mo->cause_message) {
		jw_open(w, "error_cause", '{');
		jw_k_cstr(w, "type", mo->cause_type);
		jw_k_str(w, "message", mo->cause_message);
		jw_k_int(w, "depth", at->cause_depth);
		jw_close(w, '}');
	} else {
		jw_k_null(w, "error_cause");
	}
	jw_k_cstr(w, "failure_class", failure_class_name(at->failure));
	jw_k_bool(w, "non_retriable", at->non_retriable);
	jw_k_str(w, "completed_at", at->completed_at);
	jw_k_int(w, "results", (int64_t)at->n_results);
	write_k_id(w, "task_execution_id", at->task_execution_id);
	if (inv->is_child_workflow)
		write_k_id(w, "instance_id", mo->instance_id);
	/* An inference: the result row named no scheduled id. */
	if (at->result_by_order)
		jw_k_bool(w, "result_by_order", true);
	write_payload(w, "input", &at->input);
	write_payload(w, "output", &at->output);
	jw_close(w, '}');
}

static void write_activity(struct jw *w, const struct invocation *inv)
{
	jw_open(w, NULL, '{');
	jw_k_cstr(w, "name", inv->name);
	write_k_id(w, "task_execution_id", inv->task_execution_id);
	jw_open(w, "attempts", '[');
	for (size_t k = 0; k < inv->n_attempts; k++)
		write_attempt(w, inv, &inv->attempts[k]);
	jw_close(w, ']');
	jw_k_ints(w, "retry_timer_event_ids", inv->retry_timer_event_ids, inv->n_retry_timers);
	/* extras */
	jw_k_bool(w, "child_workflow", inv->is_child_workflow);
	jw_k_int(w, "generation", (int64_t)inv->generation);
	jw_k_cstr(w, "link", invocation_link_name(inv->link));
	jw_close(w, '}');
}

static void write_finding(struct jw *w, const struct report_run *run, size_t at)
{
	const struct finding *f = &run->analysis->findings[at];
	char id[REPORT_FINDING_ID_LEN];
	if (run->finding_ids)
		memcpy(id, run->finding_ids[at], sizeof id);
	else
		report_finding_id(run, f, id);
	jw_open(w, NULL, '{');
	jw_k_str(w, "id", id);
	jw_k_cstr(w, "kind", finding_kind_id(f->kind));
	jw_k_cstr(w, "severity", severity_name(f->severity));
	/* Not in the --baseline report (every finding is new without one). */
	jw_k_bool(w, "new", !(run->known && run->known[at]));
	jw_k_cstr(w, "activity", f->activity);
	write_k_id(w, "task_execution_id", f->task_execution_id);
	jw_k_ints(w, "evidence_event_ids", f->evidence_event_ids, f->n_evidence);
	struct buf msg;
	buf_init(&msg, 0);
	if (analysis_finding_message(f, &msg) < 0)
		w->failed = true;
	jw_k_str(w, "message", msg.data ? msg.data : "");
	const char *summary;
	if (analysis_finding_summary(f, &msg, &summary) < 0)
		w->failed = true;
	jw_k_str(w, "summary", summary);
	buf_finish(&msg);
	jw_k_str(w, "remedy", f->remedy);
	const char *note = report_source_note(run, f);
	if (note) /* --source only: what the activity's code does */
		jw_k_str(w, "source", note);
	/* extra: positions in history, which also reach results (event_id -1) */
	jw_open(w, "evidence_event_indexes", '[');
	for (size_t i = 0; i < f->n_evidence_event_indexes; i++) {
		jw_next(w);
		jw_int(w, (int64_t)f->evidence_event_indexes[i]);
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

static void write_withheld(struct jw *w, const struct withheld *h)
{
	jw_open(w, NULL, '{');
	jw_k_int(w, "event_id", h->event_id);
	jw_k_cstr(w, "event_type", withheld_event_type(h));
	jw_k_cstr(w, "field", withheld_field_name(h->field));
	jw_k_int(w, "event_index", (int64_t)h->event_index);
	jw_close(w, '}');
}

/* ---- Big arrays ---- */

enum report_array {
	ARRAY_ACTIVITIES,
	ARRAY_FINDINGS,
	ARRAY_WITHHELD,
};

static size_t array_len(const struct analysis *a, enum report_array kind)
{
	if (!a)
		return 0;
	switch (kind) {
	case ARRAY_ACTIVITIES:
		return a->n_invocations;
	case ARRAY_FINDINGS:
		return a->n_findings;
	case ARRAY_WITHHELD:
		return a->n_withheld;
	}
	return 0;
}

static void write_items(struct jw *w, const struct report_run *run, enum report_array kind, size_t from, size_t to)
{
	const struct analysis *a = run->analysis;
	switch (kind) {
	case ARRAY_ACTIVITIES:
		for (size_t i = from; i < to; i++)
			write_activity(w, &a->invocations[i]);
		break;
	case ARRAY_FINDINGS:
		for (size_t i = from; i < to; i++)
			write_finding(w, run, i);
		break;
	case ARRAY_WITHHELD:
		for (size_t i = from; i < to; i++)
			write_withheld(w, &a->withheld[i]);
		break;
	}
}

/* Where the chunk starting at item from ends: about JW_CHUNK bytes of
 * output, by an estimate of each item's size (an attempt is about 600
 * bytes, a finding 1,100 with its message, a withheld entry 130). Only the
 * balance between the threads depends on it, never the bytes; both threads
 * compute the same boundaries. */
static size_t chunk_end(const struct analysis *a, enum report_array kind, size_t from)
{
	size_t n = array_len(a, kind), i = from, bytes = 0;
	switch (kind) {
	case ARRAY_ACTIVITIES:
		while (i < n && bytes < JW_CHUNK) {
			const struct invocation *inv = &a->invocations[i++];
			bytes += 330 + 600 * (size_t)inv->n_attempts + 16 * (size_t)inv->n_retry_timers;
		}
		return i;
	case ARRAY_FINDINGS:
		while (i < n && bytes < JW_CHUNK) {
			const struct finding *f = &a->findings[i++];
			bytes += 1100 + 24 * (f->n_evidence + f->n_evidence_event_indexes);
		}
		return i;
	case ARRAY_WITHHELD:
		return n - from > JW_CHUNK / 130 ? from + JW_CHUNK / 130 : n;
	}
	return n;
}

struct array_job {
	const struct report_run *run;
	const struct analysis *a;
	enum report_array kind;
};

static size_t job_chunk_end(const void *ctx, size_t from)
{
	const struct array_job *j = ctx;
	return chunk_end(j->a, j->kind, from);
}

static void job_write(struct jw *w, const void *ctx, size_t from, size_t to)
{
	const struct array_job *j = ctx;
	write_items(w, j->run, j->kind, from, to);
}

struct render_json_stream {
	struct jw w;
	bool segment;     /* runs only, each without its separator (render_json_begin_segment) */
	unsigned threads; /* the threads setting for big arrays */
	bool payloads;    /* --show-payloads: each run's payloads, where its history kept them */
	size_t n_runs;    /* runs written or spliced so far */
};

/* The items of one of a's arrays (the array itself opened and closed by
 * the caller). */
static void write_array(struct render_json_stream *s, const struct report_run *run, enum report_array kind)
{
	const struct analysis *a = run->analysis;
	struct array_job j = {.run = run, .a = a, .kind = kind};
	struct jw_items it = {.n = array_len(a, kind), .chunk_end = job_chunk_end, .write = job_write, .ctx = &j};
	jw_items(&s->w, &it, s->threads);
}

/* A patch list ("p1\np2") as an array. */
static void write_patches(struct jw *w, const char *patches)
{
	jw_open(w, "patches", '[');
	for (const char *p = patches; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *one = strndup(p, n);
		jw_next(w);
		jw_str(w, one); /* out of memory: null, never a name cut short */
		free(one);
		p += n + (nl != NULL);
	}
	jw_close(w, ']');
}

/* Dapr 1.17+ run facts (report_facts.h): the version and its changes
 * (null: the history names none), the stalls, and the signing. */
/* Dapr 1.18's propagated history: the ancestors' record, as read. */
static void write_propagated(struct jw *w, const struct propagated_history *p)
{
	if (!p) {
		jw_k_null(w, "propagated");
		return;
	}
	jw_open(w, "propagated", '{');
	jw_k_str(w, "scope", p->scope);
	jw_open(w, "chunks", '[');
	for (size_t i = 0; i < p->n_chunks; i++) {
		const struct propagated_chunk *c = &p->chunks[i];
		jw_open(w, NULL, '{');
		jw_k_str(w, "app_id", c->app_id);
		jw_k_str(w, "instance_id", c->instance_id);
		jw_k_str(w, "workflow", c->workflow);
		jw_k_int(w, "events", (int64_t)c->events);
		jw_k_int(w, "undecoded", (int64_t)c->undecoded);
		jw_k_int(w, "children", (int64_t)c->children);
		jw_open(w, "activities", '[');
		for (size_t k = 0; k < c->n_activities; k++) {
			const struct propagated_activity *x = &c->activities[k];
			jw_open(w, NULL, '{');
			jw_k_str(w, "name", x->name);
			jw_k_str(w, "task_execution_id", x->task_execution_id);
			jw_k_int(w, "scheduled", x->scheduled);
			jw_k_int(w, "completed", x->completed);
			jw_k_int(w, "failed", x->failed);
			jw_close(w, '}');
		}
		jw_close(w, ']');
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

static void write_facts(struct jw *w, const struct analysis *a)
{
	if (!a->n_versions) {
		jw_k_null(w, "version");
	} else {
		jw_open(w, "version", '{');
		jw_k_str(w, "name", a->version);
		jw_open(w, "starts", '[');
		for (size_t i = 0; i < a->n_versions; i++) {
			const struct run_version *v = &a->versions[i];
			jw_open(w, NULL, '{');
			jw_k_int(w, "event_index", v->event_index);
			jw_k_str(w, "at", v->at);
			jw_k_str(w, "name", v->name && *v->name ? v->name : NULL);
			write_patches(w, v->patches);
			jw_close(w, '}');
		}
		jw_close(w, ']');
		jw_close(w, '}');
	}
	jw_open(w, "stalls", '[');
	for (size_t i = 0; i < a->n_stalls; i++) {
		const struct run_stall *st = &a->stalls[i];
		jw_open(w, NULL, '{');
		jw_k_int(w, "event_index", st->event_index);
		jw_k_str(w, "at", st->at);
		jw_k_str(w, "reason", st->reason);
		jw_k_str(w, "description", st->description);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "signing", '{');
	jw_k_int(w, "results", (int64_t)a->n_results);
	jw_k_int(w, "attested", (int64_t)a->n_attested);
	jw_k_str(w, "tampered", a->tampered);
	jw_close(w, '}');
	write_propagated(w, a->propagated);
}

static void write_strings(struct jw *w, const char *key, char *const *v, size_t n)
{
	jw_open(w, key, '[');
	for (size_t i = 0; i < n; i++) {
		jw_next(w);
		jw_str(w, v[i]);
	}
	jw_close(w, ']');
}

static void write_project(struct jw *w, const struct report_run *run)
{
	if (run->project_form == PROJECT_NONE || !run->project) {
		/* also when its form is unknown: null, never a guess */
		jw_k_null(w, "project");
		return;
	}
	jw_open(w, "project", '{');
	jw_k_str(w, run->project_form == PROJECT_UID ? "uid" : "name", run->project);
	jw_close(w, '}');
}

/* The run's counts, from its analysis (also when the report was not
 * summarised). */
static void write_counts(struct jw *w, const struct analysis *a)
{
	size_t reexecuted, suspect;
	report_analysis_counts(a, &reexecuted, &suspect);
	jw_open(w, "counts", '{');
	jw_k_int(w, "activities", (int64_t)a->n_invocations);
	jw_k_int(w, "reexecuted", (int64_t)reexecuted);
	jw_open(w, "findings", '{');
	jw_k_int(w, "notice", (int64_t)(a->n_findings - suspect));
	jw_k_int(w, "suspect", (int64_t)suspect);
	jw_close(w, '}');
	jw_close(w, '}');
}

/* --show-payloads: one payload of an attempt in a finding, as shown. */
static void write_shown_payload(struct jw *w, const struct report_run *run,
				const struct report_payload_attempt *pa, bool output)
{
	static const char *const words[] = {
		[REPORT_PAYLOAD_TEXT] = "present",      [REPORT_PAYLOAD_NOT_KEPT] = "present",
		[REPORT_PAYLOAD_NULL] = "null",         [REPORT_PAYLOAD_EMPTY] = "empty",
		[REPORT_PAYLOAD_WITHHELD] = "withheld", [REPORT_PAYLOAD_ABSENT] = "absent",
	};
	struct report_payload p;
	if (!report_payload_of(run, pa, output, &p))
		return;
	jw_open(w, output ? "output" : "input", '{');
	jw_k_cstr(w, "state", words[p.shown]);
	if (p.shown == REPORT_PAYLOAD_TEXT || p.shown == REPORT_PAYLOAD_NOT_KEPT)
		jw_k_int(w, "bytes", (int64_t)p.size);
	if (p.history_cut)
		jw_k_bool(w, "truncated", true);
	if (p.shown == REPORT_PAYLOAD_TEXT) {
		/* The first EVENT_PAYLOAD_TEXT_MAX bytes at most. */
		jw_k_str(w, "text", p.text);
		jw_k_bool(w, "text_cut", p.cut);
	}
	jw_close(w, '}');
}

/* --show-payloads (issue 19): the inputs and outputs of the attempts the
 * run's findings name; at metadata the sentence that says why there are
 * none. Written only when the run was read to show them. */
static void write_payloads(struct jw *w, const struct report_run *run)
{
	struct report_payload_attempt *v;
	long n = report_payload_attempts(run, &v);
	struct buf b;
	buf_init(&b, 0);
	int rc = report_payloads_withheld(&b, run);
	jw_open(w, "payloads", '{');
	jw_k_str(w, "withheld", rc == 0 && b.len ? b.data : NULL);
	jw_open(w, "attempts", '[');
	for (long i = 0; i < n; i++) {
		const struct report_payload_attempt *pa = &v[i];
		jw_open(w, NULL, '{');
		jw_k_cstr(w, "activity", pa->inv->name);
		write_k_id(w, "task_execution_id", pa->at->task_execution_id);
		jw_k_int(w, "attempt", (int64_t)pa->no);
		jw_k_int(w, "task_scheduled_id", pa->at->scheduled_id);
		jw_k_cstr(w, "outcome", attempt_outcome_name(pa->at->outcome));
		write_shown_payload(w, run, pa, false);
		write_shown_payload(w, run, pa, true);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
	buf_finish(&b);
	free(v);
}

static void write_run(struct render_json_stream *s, const struct report_run *run)
{
	struct jw *w = &s->w;
	const struct analysis *a = run->analysis;
	jw_open(w, NULL, '{');
	if (w->compact) /* a JSON Lines line says what it is */
		jw_k_cstr(w, "type", "run");
	write_k_id(w, "app_id", run->app_id);
	write_k_id(w, "run_id", run->run_id);
	jw_k_str(w, "workflow", report_run_workflow(run));
	jw_k_str(w, "status", report_run_status(run));
	write_project(w, run);
	jw_k_str(w, "console_link", run->console_link);
	if (run->link_note)
		jw_k_str(w, "link_note", run->link_note);
	if (run->source)
		jw_k_str(w, "source", run->source);
	if (run->parent_run_id)
		jw_k_str(w, "parent_run_id", run->parent_run_id);
	if (run->rerun_of) {
		jw_open(w, "rerun_of", '{');
		jw_k_str(w, "run_id", run->rerun_of);
		jw_k_str(w, "console_link", run->rerun_of_link);
		if (run->rerun_of_note)
			jw_k_str(w, "note", run->rerun_of_note);
		jw_close(w, '}');
	}
	/* As the run list or the history says (null: neither does). */
	jw_k_str(w, "ended_at", run->ended_at);
	jw_k_str(w, "updated_at", run->updated_at);
	if (a) {
		jw_open(w, "data_sharing", '{');
		jw_k_str(w, "level", data_sharing_level_name(a->sharing));
		jw_k_str(w, "source", a->sharing_source ? a->sharing_source : "unknown");
		jw_close(w, '}');
		jw_k_bool(w, "finished", a->finished);
		jw_k_int(w, "generations", (int64_t)a->n_generations);
		jw_k_int(w, "events", (int64_t)a->n_events);
		jw_k_str(w, "started_at", a->started_at);
		write_counts(w, a);
		write_facts(w, a);
	} else {
		jw_open(w, "data_sharing", '{');
		jw_k_str(w, "level", "unknown");
		jw_k_str(w, "source", "the run was not audited");
		jw_close(w, '}');
		jw_k_null(w, "counts"); /* nothing was counted: not zero */
		jw_open(w, "error", '{');
		jw_k_int(w, "code", (int64_t)run->failure_code);
		jw_k_str(w, "message", run->failure);
		jw_k_str(w, "refusal_kind", run->refusal_kind);
		jw_k_str(w, "instruction", run->refusal_instruction);
		jw_close(w, '}');
	}

	jw_open(w, "activities", '[');
	write_array(s, run, ARRAY_ACTIVITIES);
	jw_close(w, ']');

	jw_open(w, "findings", '[');
	write_array(s, run, ARRAY_FINDINGS);
	jw_close(w, ']');

	jw_open(w, "withheld", '[');
	write_array(s, run, ARRAY_WITHHELD);
	jw_close(w, ']');

	write_strings(w, "limits", a ? a->limits : NULL, a ? a->n_limits : 0);
	/* extra: which limits name this run's own data (the others are the
	 * same sentence in every run) */
	jw_open(w, "specific_limits", '[');
	for (size_t i = 0; a && i < a->n_limits; i++) {
		if (!a->limit_specific || !a->limit_specific[i])
			continue;
		jw_next(w);
		jw_int(w, (int64_t)i);
	}
	jw_close(w, ']');
	if (s->payloads && report_run_shows_payloads(run))
		write_payloads(w, run);
	jw_close(w, '}');
}

static void stream_free(struct render_json_stream *s)
{
	if (!s)
		return;
	jw_finish(&s->w);
	free(s);
}

static struct render_json_stream *stream_new(FILE *out, unsigned threads, struct err *e)
{
	struct render_json_stream *s = calloc(1, sizeof *s);
	if (!s || jw_init(&s->w, out) < 0) {
		stream_free(s);
		err_oom(e);
		return NULL;
	}
	s->threads = threads;
	return s;
}

static int stream_status(const struct render_json_stream *s, struct err *e)
{
	if (s->w.failed && !ferror(s->w.f))
		return err_oom(e);
	if (ferror(s->w.f))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}

/* Flushes and frees s: 0, or what went wrong. */
static int stream_close(struct render_json_stream *s, struct err *e)
{
	jw_flush(&s->w);
	int rc = stream_status(s, e);
	stream_free(s);
	return rc;
}

/* The report's counts (the run count as written). */
static void write_summary(struct jw *w, const struct report *r, size_t n_runs)
{
	jw_open(w, "summary", '{');
	jw_k_int(w, "runs", (int64_t)n_runs);
	jw_k_int(w, "activities", (int64_t)r->n_activities);
	jw_k_int(w, "reexecuted", (int64_t)r->n_reexecuted);
	jw_k_int(w, "findings", (int64_t)r->n_findings);
	jw_k_int(w, "suspect", (int64_t)r->n_suspect);
	jw_k_int(w, "failed_runs", (int64_t)r->n_failed_runs);
	/* Against --baseline: findings it does not hold, and those it does
	 * (which --fail-on does not count). */
	jw_k_int(w, "new", (int64_t)(r->n_findings - r->n_known));
	jw_k_int(w, "known", (int64_t)r->n_known);
	jw_k_int(w, "new_suspect", (int64_t)(r->n_suspect - r->n_known_suspect));
	jw_close(w, '}');
}

static void write_values(struct jw *w, const char *key, char *const *v, size_t n)
{
	if (!n) {
		jw_k_null(w, key);
		return;
	}
	write_strings(w, key, v, n);
}

/* What the report says of itself, after "schema". */
static void write_meta(struct jw *w, const struct report_meta *m)
{
	jw_k_str(w, "generated_at", *m->generated_at ? m->generated_at : NULL);
	jw_k_cstr(w, "tool_version", m->tool_version);
	jw_k_cstr(w, "command", m->command);
	if (m->project && m->project_form != PROJECT_NONE) {
		jw_open(w, "project", '{');
		jw_k_str(w, m->project_form == PROJECT_UID ? "uid" : "name", m->project);
		jw_close(w, '}');
	} else {
		jw_k_null(w, "project");
	}
	if (m->has_filters) {
		jw_open(w, "filters", '{');
		write_values(w, "app", m->apps, m->n_apps);
		write_values(w, "workflow", m->workflows, m->n_workflows);
		write_values(w, "status", m->statuses, m->n_statuses);
		jw_k_str(w, "since", m->since);
		jw_k_str(w, "until", m->until);
		jw_k_str(w, "ended_since", m->ended_since);
		if (m->limit)
			jw_k_int(w, "limit", (int64_t)m->limit);
		else
			jw_k_null(w, "limit");
		jw_close(w, '}');
	} else {
		jw_k_null(w, "filters");
	}
	jw_k_str(w, "baseline", m->baseline);
}

/* JSON has no colour and no width: only the threads setting counts. */
struct render_json_stream *render_json_begin(FILE *out, const struct report *r, const struct render_options *o,
					     struct err *e)
{
	struct render_json_stream *s = stream_new(out, o ? o->threads : 0, e);
	if (!s)
		return NULL;
	s->payloads = o && o->show_payloads;
	jw_open(&s->w, NULL, '{');
	jw_k_str(&s->w, "schema", "catalyst-audit.report/v1");
	write_meta(&s->w, &r->meta);
	jw_open(&s->w, "runs", '[');
	return s;
}

/* One thread: segments are rendered by `runs`' workers, several at once. */
struct render_json_stream *render_json_begin_segment(FILE *out, const struct render_options *o, struct err *e)
{
	struct render_json_stream *s = stream_new(out, 1, e);
	if (!s)
		return NULL;
	s->payloads = o && o->show_payloads;
	/* Where render_json_begin leaves a stream: inside "runs". */
	s->w.depth = 2;
	s->segment = true;
	return s;
}

int render_json_run(struct render_json_stream *s, const struct report_run *run, struct err *e)
{
	if (s->segment)
		s->w.has_items[s->w.depth] = false; /* the separator is render_json_splice's */
	write_run(s, run);
	s->n_runs++;
	return s->w.failed ? stream_status(s, e) : 0;
}

int render_json_splice(struct render_json_stream *s, int fd, off_t off, size_t len, struct err *e)
{
	struct jw *w = &s->w;
	if (w->has_items[w->depth])
		jw_lit(w, ",");
	w->has_items[w->depth] = true;
	if (jw_raw_fd(w, fd, off, len) < 0)
		return err_set(e, ERR_USAGE, "cannot read back a rendered run: %s",
			       errno ? strerror(errno) : "unexpected end of file");
	s->n_runs++;
	return s->w.failed ? stream_status(s, e) : 0;
}

int render_json_end(struct render_json_stream *s, const struct report *r, struct err *e)
{
	struct jw *w = &s->w;
	if (!s->segment) {
		jw_close(w, ']');
		write_summary(w, r, s->n_runs);
		if (r->n_notes)
			write_strings(w, "notes", r->notes, r->n_notes);
		jw_close(w, '}');
		jw_lit(w, "\n");
	}
	return stream_close(s, e);
}

void render_json_abort(struct render_json_stream *s)
{
	stream_free(s);
}

int render_json(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	struct render_json_stream *s = render_json_begin(out, r, o, e);
	if (!s)
		return -1;
	for (size_t i = 0; i < r->n_runs; i++) {
		if (render_json_run(s, &r->runs[i], e) < 0) {
			render_json_abort(s);
			return -1;
		}
	}
	return render_json_end(s, r, e);
}

/* ---- JSON Lines -------------------------------------------------------- */

static int jsonl_run(FILE *out, const struct report_run *run, unsigned threads, bool payloads, struct err *e)
{
	struct render_json_stream *s = stream_new(out, threads, e);
	if (!s)
		return -1;
	s->w.compact = true;
	s->payloads = payloads;
	write_run(s, run);
	jw_lit(&s->w, "\n");
	return stream_close(s, e);
}

/* One thread: `runs` renders a line as soon as its run is audited, on the
 * worker that audited it, several at once. */
int render_jsonl_run(FILE *out, const struct report_run *run, const struct render_options *o, struct err *e)
{
	return jsonl_run(out, run, 1, o && o->show_payloads, e);
}

int render_jsonl_end(FILE *out, const struct report *r, size_t n_runs, struct err *e)
{
	struct render_json_stream *s = stream_new(out, 1, e);
	if (!s)
		return -1;
	struct jw *w = &s->w;
	w->compact = true;
	jw_open(w, NULL, '{');
	jw_k_cstr(w, "type", "summary");
	jw_k_str(w, "schema", "catalyst-audit.report/v1");
	write_meta(w, &r->meta);
	write_summary(w, r, n_runs);
	write_strings(w, "notes", r->notes, r->n_notes);
	jw_close(w, '}');
	jw_lit(w, "\n");
	return stream_close(s, e);
}

int render_jsonl(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	for (size_t i = 0; i < r->n_runs; i++)
		if (jsonl_run(out, &r->runs[i], o ? o->threads : 0, o && o->show_payloads, e) < 0)
			return -1;
	return render_jsonl_end(out, r, r->n_runs, e);
}

/* ---- JSON Lines of run --follow ------------------------------------------ */

static struct render_json_stream *line_open(FILE *out, const struct follow_run *fr, const char *type,
					    struct err *e)
{
	struct render_json_stream *s = stream_new(out, 1, e);
	if (!s)
		return NULL;
	s->w.compact = true;
	jw_open(&s->w, NULL, '{');
	jw_k_cstr(&s->w, "type", type);
	jw_k_str(&s->w, "app_id", fr->app_id);
	jw_k_str(&s->w, "run_id", fr->run_id);
	return s;
}

static int line_close(struct render_json_stream *s, struct err *e)
{
	jw_close(&s->w, '}');
	jw_lit(&s->w, "\n");
	/* A follower reads each line as it comes. */
	return stream_close(s, e);
}

static int follow_event_jsonl(FILE *out, const struct follow_run *fr, const struct follow_event *ev,
			      const struct render_options *o, struct err *e)
{
	(void)o;
	struct render_json_stream *s = line_open(out, fr, "event", e);
	if (!s)
		return -1;
	struct jw *w = &s->w;
	jw_k_cstr(w, "what", follow_what_name(ev->what));
	jw_k_int(w, "index", (int64_t)ev->index);
	if (ev->has_event_id)
		jw_k_int(w, "event_id", ev->event_id);
	else
		jw_k_null(w, "event_id");
	jw_k_str(w, "timestamp", ev->timestamp);
	jw_k_str(w, "name", ev->name);
	if (ev->attempt)
		jw_k_int(w, "attempt", (int64_t)ev->attempt);
	else
		jw_k_null(w, "attempt");
	if (ev->what == FOLLOW_FAILED || ev->what == FOLLOW_CHILD_FAILED) {
		jw_k_cstr(w, "failure_class", failure_class_name(ev->failure));
		jw_k_str(w, "error_type", ev->error_type);
		jw_k_str(w, "error_message", ev->error_message);
	}
	if (ev->what == FOLLOW_RETRY_TIMER || ev->what == FOLLOW_TIMER)
		jw_k_str(w, "fire_at", ev->fire_at);
	if (ev->what == FOLLOW_ENDED)
		jw_k_str(w, "status", ev->status);
	jw_k_bool(w, "late", ev->late);
	return line_close(s, e);
}

static int follow_finding_jsonl(FILE *out, const struct follow_run *fr, const struct report_run *run, size_t at,
				const struct render_options *o, struct err *e)
{
	(void)o;
	struct render_json_stream *s = line_open(out, fr, "finding", e);
	if (!s)
		return -1;
	jw_key(&s->w, "finding");
	s->w.has_items[s->w.depth] = false; /* the key's value, not an item after it */
	write_finding(&s->w, run, at);
	return line_close(s, e);
}

static int follow_note_jsonl(FILE *out, const struct follow_run *fr, const char *text,
			     const struct render_options *o, struct err *e)
{
	(void)o;
	struct render_json_stream *s = line_open(out, fr, "note", e);
	if (!s)
		return -1;
	jw_k_str(&s->w, "text", text);
	return line_close(s, e);
}

/* The run's line and the summary line, as `-o jsonl` ends. */
static int follow_end_jsonl(FILE *out, const struct report *r, const char *unfinished,
			    const struct render_options *o, struct err *e)
{
	for (size_t i = 0; i < r->n_runs; i++) {
		if (unfinished) {
			struct follow_run fr = {r->runs[i].app_id, r->runs[i].run_id, false};
			if (follow_note_jsonl(out, &fr, unfinished, o, e) < 0)
				return -1;
		}
		if (jsonl_run(out, &r->runs[i], 1, o && o->show_payloads, e) < 0)
			return -1;
	}
	return render_jsonl_end(out, r, r->n_runs, e);
}

const struct render_follow_writer render_follow_jsonl = {
	follow_event_jsonl, follow_finding_jsonl, follow_note_jsonl, follow_end_jsonl, NULL, NULL,
};
