/* The JSON report, "catalyst-audit.report/v1" (documented field by field in
 * catalyst-audit(1)). Every value is built and escaped by jansson; the
 * document is written member by member so a history of 100,000 invocations
 * never sits in memory twice (once analysed, once as a DOM). Key order is
 * fixed by the order of the calls below. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "classify.h"
#include "escape.h"

#define JW_MAX_DEPTH 16
#define JW_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_ENCODE_ANY)

/* A streaming writer producing exactly what json_dumpf(JSON_INDENT(2))
 * would for the whole document. */
struct jw {
	FILE *f;
	struct buf scratch; /* one value's text, written with one fwrite */
	int depth;
	bool has_items[JW_MAX_DEPTH];
	bool failed;
};

static const char spaces[2 * JW_MAX_DEPTH + 1] = "                                ";

static void jw_indent(struct jw *w)
{
	fputc('\n', w->f);
	fwrite(spaces, 1, 2 * (size_t)w->depth, w->f);
}

/* Before a member or an item: the separator and the indentation. */
static void jw_next(struct jw *w)
{
	if (w->has_items[w->depth])
		fputc(',', w->f);
	w->has_items[w->depth] = true;
	jw_indent(w);
}

/* jansson's dump callback: collects a value's text, re-indenting after
 * every newline. jansson never writes a raw newline inside a string, so
 * every newline here is layout. */
static int jw_chunk(const char *buf, size_t size, void *data)
{
	struct jw *w = data;
	while (size) {
		const char *nl = memchr(buf, '\n', size);
		size_t n = nl ? (size_t)(nl - buf) + 1 : size;
		if (buf_append(&w->scratch, buf, n, NULL) < 0)
			return -1;
		if (nl && buf_append(&w->scratch, spaces, 2 * (size_t)w->depth, NULL) < 0)
			return -1;
		buf += n;
		size -= n;
	}
	return 0;
}

/* Writes v (stolen) re-indented to the current depth. */
static void jw_value(struct jw *w, json_t *v)
{
	if (!v) {
		w->failed = true;
		return;
	}
	buf_reset(&w->scratch);
	if (json_dump_callback(v, jw_chunk, w, JW_FLAGS) < 0)
		w->failed = true;
	else
		fwrite(w->scratch.data, 1, w->scratch.len, w->f);
	json_decref(v);
}

/* Keys are this file's constant identifiers: nothing in them to escape. */
static void jw_key(struct jw *w, const char *key)
{
	jw_next(w);
	fprintf(w->f, "\"%s\": ", key);
}

static void jw_member(struct jw *w, const char *key, json_t *v)
{
	jw_key(w, key);
	jw_value(w, v);
}

static void jw_item(struct jw *w, json_t *v)
{
	jw_next(w);
	jw_value(w, v);
}

static void jw_open(struct jw *w, const char *key, char bracket)
{
	if (key)
		jw_key(w, key);
	else if (w->depth > 0)
		jw_next(w);
	fputc(bracket, w->f);
	if (w->depth + 1 >= JW_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	w->depth++;
	w->has_items[w->depth] = false;
}

static void jw_close(struct jw *w, char bracket)
{
	bool had = w->has_items[w->depth];
	w->depth--;
	if (had)
		jw_indent(w);
	fputc(bracket, w->f);
}

/* A string or null. Text that is not valid UTF-8 (jansson refuses it) is
 * repaired with U+FFFD rather than dropped. */
static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	json_t *v = json_string(s);
	if (v)
		return v;
	char *fixed = escape_utf8_repair_dup(s);
	v = fixed ? json_string(fixed) : NULL;
	free(fixed);
	return v;
}

/* An id: null when absent or empty (an empty id identifies nothing). */
static json_t *jid(const char *s)
{
	return s && *s ? jstr(s) : json_null();
}

static json_t *jids(const int64_t *ids, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_integer(ids[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static const char *payload_state_id(enum payload_state s)
{
	switch (s) {
	case PAYLOAD_ABSENT:
		return "absent";
	case PAYLOAD_NULL:
		return "null";
	case PAYLOAD_EMPTY:
		return "empty";
	case PAYLOAD_PRESENT:
		return "present";
	}
	return "absent";
}

static json_t *jpayload(const struct payload *p)
{
	json_t *o = json_pack("{s:s}", "state", payload_state_id(p->state));
	if (o && p->state == PAYLOAD_PRESENT)
		json_object_set_new(o, "bytes", json_integer((json_int_t)p->size));
	return o;
}

static json_t *jattempt(const struct invocation *inv, const struct attempt *at)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "task_scheduled_id", json_integer(at->scheduled_id));
	json_object_set_new(o, "scheduled_at", jstr(at->scheduled_at));
	json_object_set_new(o, "outcome", json_string(attempt_outcome_name(at->outcome)));
	json_object_set_new(o, "error_message", jstr(at->error_message));
	/* extras */
	json_object_set_new(o, "error_type", jstr(at->error_type));
	json_object_set_new(o, "failure_class", json_string(failure_class_name(at->failure)));
	json_object_set_new(o, "non_retriable", json_boolean(at->non_retriable));
	json_object_set_new(o, "completed_at", jstr(at->completed_at));
	json_object_set_new(o, "results", json_integer((json_int_t)at->n_results));
	json_object_set_new(o, "task_execution_id", jid(at->task_execution_id));
	if (inv->is_child_workflow)
		json_object_set_new(o, "instance_id", jid(at->instance_id));
	json_object_set_new(o, "input", jpayload(&at->input));
	json_object_set_new(o, "output", jpayload(&at->output));
	return o;
}

static json_t *jactivity(const struct invocation *inv)
{
	json_t *o = json_object();
	json_t *attempts = json_array();
	if (!o || !attempts) {
		json_decref(o);
		json_decref(attempts);
		return NULL;
	}
	json_object_set_new(o, "name", jstr(inv->name));
	json_object_set_new(o, "task_execution_id", jid(inv->task_execution_id));
	for (size_t k = 0; k < inv->n_attempts; k++)
		json_array_append_new(attempts, jattempt(inv, &inv->attempts[k]));
	json_object_set_new(o, "attempts", attempts);
	json_object_set_new(o, "retry_timer_event_ids", jids(inv->retry_timer_event_ids, inv->n_retry_timers));
	/* extras */
	json_object_set_new(o, "child_workflow", json_boolean(inv->is_child_workflow));
	json_object_set_new(o, "generation", json_integer((json_int_t)inv->generation));
	json_object_set_new(o, "link", json_string(invocation_link_name(inv->link)));
	return o;
}

static json_t *jfinding(const struct finding *f)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "kind", json_string(finding_kind_id(f->kind)));
	json_object_set_new(o, "severity", json_string(severity_name(f->severity)));
	json_object_set_new(o, "activity", jstr(f->activity));
	json_object_set_new(o, "task_execution_id", jid(f->task_execution_id));
	json_object_set_new(o, "evidence_event_ids", jids(f->evidence_event_ids, f->n_evidence));
	json_object_set_new(o, "message", jstr(f->message));
	/* extra: positions in history, which also reach results (event_id -1) */
	json_t *idx = json_array();
	for (size_t i = 0; idx && i < f->n_evidence_event_indexes; i++)
		json_array_append_new(idx, json_integer((json_int_t)f->evidence_event_indexes[i]));
	json_object_set_new(o, "evidence_event_indexes", idx);
	return o;
}

static json_t *jproject(const struct report_run *run)
{
	if (run->project_form == PROJECT_NONE || !run->project)
		return json_null(); /* also when its form is unknown: null, never a guess */
	return json_pack("{s:o}", run->project_form == PROJECT_UID ? "uid" : "name", jstr(run->project));
}

static void write_run(struct jw *w, const struct report_run *run)
{
	const struct analysis *a = run->analysis;
	jw_open(w, NULL, '{');
	jw_member(w, "app_id", jid(run->app_id));
	jw_member(w, "run_id", jid(run->run_id));
	jw_member(w, "workflow", jstr(report_run_workflow(run)));
	jw_member(w, "status", jstr(report_run_status(run)));
	jw_member(w, "project", jproject(run));
	jw_member(w, "console_link", jstr(run->console_link));
	if (run->link_note)
		jw_member(w, "link_note", jstr(run->link_note));
	if (run->source)
		jw_member(w, "source", jstr(run->source));
	if (run->parent_run_id)
		jw_member(w, "parent_run_id", jstr(run->parent_run_id));
	if (a) {
		jw_member(w, "data_sharing",
			  json_pack("{s:s, s:o}", "level", data_sharing_level_name(a->sharing), "source",
				    a->sharing_source ? jstr(a->sharing_source) : json_string("unknown")));
		jw_member(w, "finished", json_boolean(a->finished));
		jw_member(w, "generations", json_integer((json_int_t)a->n_generations));
		jw_member(w, "events", json_integer((json_int_t)a->n_events));
	} else {
		jw_member(w, "data_sharing",
			  json_pack("{s:s, s:s}", "level", "unknown", "source", "the run was not audited"));
		json_t *err = json_object();
		if (err) {
			json_object_set_new(err, "code", json_integer((json_int_t)run->failure_code));
			json_object_set_new(err, "message", jstr(run->failure));
			json_object_set_new(err, "refusal_kind", jstr(run->refusal_kind));
			json_object_set_new(err, "instruction", jstr(run->refusal_instruction));
		}
		jw_member(w, "error", err);
	}

	jw_open(w, "activities", '[');
	for (size_t i = 0; a && i < a->n_invocations; i++)
		jw_item(w, jactivity(&a->invocations[i]));
	jw_close(w, ']');

	jw_open(w, "findings", '[');
	for (size_t i = 0; a && i < a->n_findings; i++)
		jw_item(w, jfinding(&a->findings[i]));
	jw_close(w, ']');

	jw_open(w, "withheld", '[');
	for (size_t i = 0; a && i < a->n_withheld; i++) {
		const struct withheld *h = &a->withheld[i];
		jw_item(w, json_pack("{s:I, s:o, s:o, s:I}", "event_id", (json_int_t)h->event_id, "event_type",
				     jstr(h->event_type), "field", jstr(h->field), "event_index",
				     (json_int_t)h->event_index));
	}
	jw_close(w, ']');

	jw_open(w, "limits", '[');
	for (size_t i = 0; a && i < a->n_limits; i++)
		jw_item(w, jstr(a->limits[i]));
	jw_close(w, ']');
	jw_close(w, '}');
}

int render_json(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	(void)o; /* JSON has no colour and no width */
	struct jw w = {.f = out};
	buf_init(&w.scratch, 0);
	jw_open(&w, NULL, '{');
	jw_member(&w, "schema", json_string("catalyst-audit.report/v1"));
	jw_open(&w, "runs", '[');
	for (size_t i = 0; i < r->n_runs; i++)
		write_run(&w, &r->runs[i]);
	jw_close(&w, ']');
	jw_member(&w, "summary",
		  json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "runs", (json_int_t)r->n_runs, "activities",
			    (json_int_t)r->n_activities, "reexecuted", (json_int_t)r->n_reexecuted, "findings",
			    (json_int_t)r->n_findings, "suspect", (json_int_t)r->n_suspect, "failed_runs",
			    (json_int_t)r->n_failed_runs));
	if (r->n_notes) {
		jw_open(&w, "notes", '[');
		for (size_t i = 0; i < r->n_notes; i++)
			jw_item(&w, jstr(r->notes[i]));
		jw_close(&w, ']');
	}
	jw_close(&w, '}');
	fputc('\n', out);
	buf_finish(&w.scratch);
	if (w.failed)
		return err_set(e, ERR_INTERNAL, "out of memory while writing the JSON report");
	if (ferror(out))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}
