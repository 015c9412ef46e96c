/* --verbose-report in text: every activity, attempt, finding, withheld
 * field and limit of every run. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "render_text_internal.h"
#include "report_timeline.h"

#define LABEL_WIDTH 16

static void field(struct text_out *t, const char *label, const char *value)
{
	fprintf(t->f, "  %-*s", LABEL_WIDTH - 2, label);
	text_wrap_at(t, value, LABEL_WIDTH, LABEL_WIDTH);
}

static const char *project_kind(enum project_form f)
{
	return f == PROJECT_UID ? "uid" : "name";
}

static void print_header(struct text_out *t, const struct report_run *run)
{
	const char *workflow = report_run_workflow(run);
	const char *status = report_run_status(run);
	const struct analysis *a = run->analysis;

	fprintf(t->f, "%sRun %s%s", text_on(t, STYLE_BOLD),
		run->run_id ? text_esc(t, run->run_id, 0) : "(unknown run id)", text_off(t));
	if (workflow)
		fprintf(t->f, "  %s", text_esc(t, workflow, 0));
	if (status)
		fprintf(t->f, "  [%s]", text_esc(t, status, 0));
	else if (a && !a->finished)
		fprintf(t->f, "  [not finished]");
	fputc('\n', t->f);

	field(t, "app id", run->app_id ? text_esc(t, run->app_id, 0) : "unknown");
	field(t, "run id", run->run_id ? text_esc(t, run->run_id, 0) : "unknown");
	if (run->parent_run_id)
		field(t, "parent run", text_esc(t, run->parent_run_id, 0));
	char line[1024];
	if (run->project_form == PROJECT_NONE && run->project) {
		snprintf(line, sizeof line, "%s (name or uid: unresolved)", text_esc(t, run->project, 0));
		field(t, "project", line);
	} else if (run->project_form == PROJECT_NONE || !run->project)
		field(t, "project", "not given");
	else {
		snprintf(line, sizeof line, "%s (%s)", text_esc(t, run->project, 0),
			 project_kind(run->project_form));
		field(t, "project", line);
	}
	if (a) {
		snprintf(line, sizeof line, "%s (%s)", data_sharing_level_name(a->sharing),
			 a->sharing_source ? text_esc(t, a->sharing_source, 0) : "source unknown");
		field(t, "data sharing", line);
	}
	if (run->rerun_of) {
		/* The source of a rerun: its link beside the run's. */
		field(t, "rerun of", text_esc(t, run->rerun_of, 0));
		if (run->rerun_of_link)
			field(t, "", text_esc(t, run->rerun_of_link, 0));
		else if (run->rerun_of_note)
			field(t, "", text_esc(t, run->rerun_of_note, 0));
	}
	if (run->console_link) {
		field(t, "console", text_esc(t, run->console_link, 0));
		if (run->link_note)
			field(t, "", text_esc(t, run->link_note, 0));
	} else {
		snprintf(line, sizeof line, "app %s, run %s (no console link%s%s)",
			 run->app_id ? text_esc(t, run->app_id, 0) : "unknown",
			 run->run_id ? text_esc(t, run->run_id, 0) : "unknown", run->link_note ? ": " : "",
			 run->link_note ? text_esc(t, run->link_note, 0) : "");
		fprintf(t->f, "  %-*s", LABEL_WIDTH - 2, "console");
		text_wrap_at(t, line, LABEL_WIDTH, LABEL_WIDTH);
	}
	if (run->source)
		field(t, "source", text_esc(t, run->source, 0));
	if (a) {
		snprintf(line, sizeof line, "%zu event%s", a->n_events, a->n_events == 1 ? "" : "s");
		if (a->n_generations > 1)
			snprintf(line + strlen(line), sizeof line - strlen(line), ", %zu generations",
				 a->n_generations);
		field(t, "history", line);
		text_print_facts(t, a);
	}
}

static const char *link_name(enum invocation_link l)
{
	switch (l) {
	case LINK_SINGLE:
		return NULL;
	case LINK_EXECUTION_ID:
		return "linked by execution id";
	case LINK_TIMER_ORIGIN:
		return "linked by retry timer origin";
	case LINK_PATTERN:
		return "linked by failure/timer/schedule pattern, inferred";
	case LINK_ORDER:
		return "linked by order, no retry timer, inferred";
	}
	return NULL;
}

static const char *payload_word(enum payload_state s)
{
	switch (s) {
	case PAYLOAD_ABSENT:
		return NULL; /* listed under "withheld" */
	case PAYLOAD_NULL:
		return "null";
	case PAYLOAD_EMPTY:
		return "empty";
	case PAYLOAD_PRESENT:
		return "present";
	}
	return NULL;
}

static void print_payloads(struct text_out *t, const struct attempt *at, size_t indent)
{
	const char *in = payload_word(at->input.state);
	const char *out = payload_word(at->output.state);
	if (!in && !out)
		return;
	fprintf(t->f, "%*s", (int)indent, "");
	if (in) {
		if (at->input.state == PAYLOAD_PRESENT)
			fprintf(t->f, "input %" PRIu32 " bytes", at->input.size);
		else
			fprintf(t->f, "input %s", in);
	}
	if (out) {
		fprintf(t->f, "%s", in ? ", " : "");
		if (at->output.state == PAYLOAD_PRESENT)
			fprintf(t->f, "output %" PRIu32 " bytes", at->output.size);
		else
			fprintf(t->f, "output %s", out);
	}
	fputc('\n', t->f);
}

/* Timestamps are shown whole (a cut one would lie); the column is as wide
 * as the widest, 24 for the usual millisecond form. */
static int time_width(struct text_out *t, const struct invocation *inv)
{
	size_t w = 24;
	for (size_t k = 0; k < inv->n_attempts; k++) {
		const char *ts = inv->attempts[k].scheduled_at;
		size_t c = ts ? escape_columns(text_esc(t, ts, 64)) : 0;
		if (c > w)
			w = c;
	}
	return (int)w;
}

static void print_attempt(struct text_out *t, const struct invocation *inv, size_t k, int tw)
{
	const struct attempt *at = &inv->attempts[k];
	const struct attempt_more *mo = attempt_more(at);
	enum style s = at->outcome == OUTCOME_COMPLETED ? STYLE_GREEN
		       : at->outcome == OUTCOME_FAILED  ? STYLE_RED
							: STYLE_YELLOW;
	char n[24], id[32];
	snprintf(n, sizeof n, "%zu.", k + 1);
	snprintf(id, sizeof id, "%" PRId64, at->scheduled_id);
	const char *outcome = attempt_outcome_name(at->outcome);
	const char *when = at->scheduled_at ? text_esc(t, at->scheduled_at, 64) : "-";
	fprintf(t->f, "    %-3s %-7s %s%*s  %s%s%s%*s  ", n, id, when, tw - (int)escape_columns(when), "",
		text_on(t, s), outcome, text_off(t), (int)(strlen(outcome) < 9 ? 9 - strlen(outcome) : 0), "");
	if (at->outcome == OUTCOME_PENDING)
		fprintf(t->f, "no result in history");
	else
		fprintf(t->f, "%s", at->completed_at ? text_esc(t, at->completed_at, 64) : "-");
	fputc('\n', t->f);

	/* Detail lines line up under the event id. */
	const size_t indent = 8;
	if (at->n_results > 1)
		fprintf(t->f, "%*s%s%zu results for this one attempt%s\n", (int)indent, "", text_on(t, STYLE_RED),
			(size_t)at->n_results, text_off(t));
	if (inv->is_child_workflow && mo->instance_id)
		fprintf(t->f, "%*sinstance %s\n", (int)indent, "",
			text_esc(t, mo->instance_id, t->width - indent - 9));
	if (at->task_execution_id && *at->task_execution_id && inv->task_execution_id &&
	    strcmp(at->task_execution_id, inv->task_execution_id) != 0)
		fprintf(t->f, "%*sexecution %s\n", (int)indent, "",
			text_esc(t, at->task_execution_id, t->width - indent - 10));
	if (at->outcome == OUTCOME_FAILED && (mo->error_type || mo->error_message || at->non_retriable)) {
		struct buf msg;
		buf_init(&msg, 0);
		buf_printf(&msg, NULL, "%s%s%s%s", mo->error_type ? mo->error_type : "",
			   mo->error_type && mo->error_message ? ": " : "",
			   mo->error_message ? mo->error_message : "",
			   at->non_retriable ? " [non-retriable]" : "");
		/* Two lines at most: a stack of long messages would push the
		 * findings off the screen; --format json has them whole. */
		if (msg.data)
			text_wrap(t, text_esc(t, msg.data, 2 * (t->width - indent) - 16), indent);
		buf_finish(&msg);
	}
	if (at->outcome == OUTCOME_FAILED && (mo->cause_type || mo->cause_message)) {
		/* The innermost cause (innerFailure), which the class rests on. */
		struct buf msg;
		buf_init(&msg, 0);
		buf_printf(&msg, NULL, "caused by %s%s%s", mo->cause_type ? mo->cause_type : "",
			   mo->cause_type && mo->cause_message ? ": " : "",
			   mo->cause_message ? mo->cause_message : "");
		if (msg.data)
			text_wrap(t, text_esc(t, msg.data, 2 * (t->width - indent) - 16), indent);
		buf_finish(&msg);
	}
	const char *note = at->outcome == OUTCOME_FAILED ? failure_class_note((enum failure_class)at->failure)
							 : NULL;
	if (note)
		text_wrap(t, note, indent);
	print_payloads(t, at, indent);
}

static void print_ids(struct text_out *t, const int64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(t->f, "%s%" PRId64, i ? ", " : "", ids[i]);
}

/* The execution id line, with how the attempts were linked. */
static void print_invocation_key(struct text_out *t, const struct invocation *inv)
{
	const char *ln = link_name(inv->link);
	bool has_id = inv->task_execution_id && *inv->task_execution_id;
	if (inv->is_child_workflow && !has_id) {
		/* Child workflows have instance ids (per attempt), not execution ids. */
		if (ln)
			fprintf(t->f, "    (%s)\n", ln);
		return;
	}
	const char *id = has_id ? text_esc(t, inv->task_execution_id, 60) : "(none recorded)";
	fprintf(t->f, "    execution %s", id);
	if (ln && 14 + escape_columns(id) + 3 + strlen(ln) > t->width)
		fprintf(t->f, "\n    (%s)", ln);
	else if (ln)
		fprintf(t->f, " (%s)", ln);
	fputc('\n', t->f);
}

/* The attempts drawn on one time axis, a row each (report_timeline.h):
 * '=' running, 'X' its failure, '~' the retry timer, '.' no result, and a
 * row of '?' where a failed attempt may still have been running while the
 * next one ran. An overlap is seen faster than read. */
#define TIMELINE_ROWS 8
static void print_timeline(struct text_out *t, const struct invocation *inv)
{
	struct report_timeline tl;
	if (report_timeline_make(inv, &tl) < 0) {
		t->oom = true;
		return;
	}
	if (!tl.known || tl.t1 <= tl.t0) /* nothing to draw on an axis of one instant */
		goto out;
	size_t cols = t->width > 40 + 12 ? t->width - 40 : 12;
	if (cols > 60)
		cols = 60;
	int64_t span = tl.t1 > tl.t0 ? tl.t1 - tl.t0 : 1;
	char from[40], to[40];
	report_time_format(tl.t0, REPORT_TIME_CLOCK, from, sizeof from);
	report_time_format(tl.t1, REPORT_TIME_CLOCK, to, sizeof to);
	fprintf(t->f, "%s    timeline %s to %s%s\n", text_on(t, STYLE_DIM), from, to, text_off(t));
	char row[64];
	size_t rows = 0;
#define COL(ms) ((size_t)(((ms)-tl.t0) * (int64_t)(cols - 1) / span))
	for (size_t k = 0; k < tl.n_attempts && rows < TIMELINE_ROWS; k++) {
		const struct report_timeline_attempt *ta = &tl.attempts[k];
		if (!ta->has_start)
			continue;
		memset(row, ' ', cols);
		row[cols] = '\0';
		size_t a = COL(ta->start), b = COL(ta->end);
		for (size_t c = a; c <= b; c++)
			row[c] = ta->has_end ? '=' : '.';
		if (ta->attempt->outcome == OUTCOME_FAILED)
			row[b] = 'X';
		if (ta->retry_gap)
			for (size_t c = b + 1, e = COL(ta->next_start); c < e; c++)
				row[c] = '~';
		fprintf(t->f, "    %-3zu|%s| %s\n", k + 1, row,
			ta->has_end ? attempt_outcome_name(ta->attempt->outcome) : "no result");
		rows++;
		if (ta->may_overlap) {
			memset(row, ' ', cols);
			for (size_t c = b, e = COL(ta->overlap_end); c <= e; c++)
				row[c] = '?';
			fprintf(t->f, "       |%s| %zu may still run\n", row, k + 1);
		}
	}
#undef COL
	fprintf(t->f, "%s       = ran  X failed  ~ retry timer  . no result  ? may still run%s\n",
		text_on(t, STYLE_DIM), text_off(t));
	if (tl.n_attempts > rows)
		fprintf(t->f, "       %zu more attempt%s not drawn\n", tl.n_attempts - rows,
			tl.n_attempts - rows == 1 ? "" : "s");
out:
	report_timeline_finish(&tl);
}

static void print_activities(struct text_out *t, const struct analysis *a)
{
	fprintf(t->f, "\n%sActivities%s (%zu)\n", text_on(t, STYLE_BOLD), text_off(t), a->n_invocations);
	if (a->n_invocations == 0)
		fprintf(t->f, "  none scheduled in this history\n");
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		fprintf(t->f, "  %s%s%s%s", text_on(t, STYLE_BOLD),
			inv->is_child_workflow ? "child workflow " : "",
			inv->name ? text_esc(t, inv->name, 48) : "(unnamed)", text_off(t));
		fprintf(t->f, "  %zu attempt%s", (size_t)inv->n_attempts, inv->n_attempts == 1 ? "" : "s");
		if (a->n_generations > 1)
			fprintf(t->f, ", generation %zu", (size_t)inv->generation + 1);
		fputc('\n', t->f);
		print_invocation_key(t, inv);
		int tw = time_width(t, inv);
		fprintf(t->f, "%s    #   event   %-*s  outcome    result at%s\n", text_on(t, STYLE_DIM), tw,
			"scheduled at", text_off(t));
		for (size_t k = 0; k < inv->n_attempts; k++)
			print_attempt(t, inv, k, tw);
		if (inv->n_retry_timers) {
			fprintf(t->f, "    retry timer%s: event%s ", inv->n_retry_timers == 1 ? "" : "s",
				inv->n_retry_timers == 1 ? "" : "s");
			print_ids(t, inv->retry_timer_event_ids, inv->n_retry_timers);
			fputc('\n', t->f);
		}
		if (report_timeline_wanted(inv))
			print_timeline(t, inv);
	}
}

static void print_findings(struct text_out *t, const struct report_run *run)
{
	const struct analysis *a = run->analysis;
	fprintf(t->f, "\n%sFindings%s (%zu)\n", text_on(t, STYLE_BOLD), text_off(t), a->n_findings);
	if (a->n_findings == 0)
		fprintf(t->f, "  none: this history shows no activity executed more than once\n"
			      "  (it cannot show everything: see the limits below)\n");
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *f = &a->findings[i];
		enum style s = f->severity == SEVERITY_SUSPECT ? STYLE_RED : STYLE_YELLOW;
		fprintf(t->f, "  %s%-7s%s %s", text_on(t, s), severity_name(f->severity), text_off(t),
			finding_kind_id(f->kind));
		if (f->activity)
			fprintf(t->f, "  %s", text_esc(t, f->activity, 40));
		fputc('\n', t->f);
		if (f->task_execution_id && *f->task_execution_id)
			fprintf(t->f, "          execution %s\n", text_esc(t, f->task_execution_id, 60));
		if (f->n_evidence || f->n_evidence_event_indexes) {
			struct buf ev;
			buf_init(&ev, 0);
			if (buf_printf(&ev, NULL, "evidence: ") < 0 || report_evidence(&ev, f, true) < 0)
				t->oom = true;
			else
				text_wrap(t, ev.data, 10);
			buf_finish(&ev);
		}
		struct buf msg;
		buf_init(&msg, 0);
		if (analysis_finding_message(f, &msg) < 0)
			t->oom = true;
		else if (msg.len)
			text_wrap(t, text_esc(t, msg.data, 0), 10);
		buf_finish(&msg);
		const char *note = report_source_note(run, f);
		if (note)
			text_wrap(t, text_esc(t, note, 0), 10);
	}
}

static void print_withheld(struct text_out *t, const struct analysis *a)
{
	if (a->n_withheld == 0)
		return;
	fprintf(t->f, "\n%sWithheld%s (%zu)\n", text_on(t, STYLE_BOLD), text_off(t), a->n_withheld);
	/* The phrase stays on one line so it reads (and greps) whole. */
	char counted[64];
	snprintf(counted, sizeof counted, "These %zu fields were", a->n_withheld);
	fprintf(t->f, "  %s %s\n", a->n_withheld == 1 ? "This field was" : counted, REPORT_WITHHELD_PHRASE);
	struct buf how;
	buf_init(&how, 0);
	buf_printf(&how, NULL, "(%s, %s):", data_sharing_level_name(a->sharing),
		   a->sharing_source ? text_esc(t, a->sharing_source, 0) : "source unknown");
	text_wrap(t, how.data, 2);
	buf_finish(&how);
	struct report_withheld_group *g;
	long n = report_withheld_groups(a, &g);
	if (n < 0) {
		t->oom = true;
		return;
	}
	for (long i = 0; i < n; i++) {
		struct buf line;
		buf_init(&line, 0);
		buf_printf(&line, NULL, "%s", text_esc(t, g[i].field ? g[i].field : "payload", 0));
		buf_printf(&line, NULL, " of %zu %s event%s", g[i].count, text_esc(t, g[i].event_type, 0),
			   g[i].count == 1 ? "" : "s");
		if (report_withheld_ids(&line, &g[i]) < 0)
			t->oom = true;
		text_bullet(t, line.data, 4);
		buf_finish(&line);
	}
	free(g);
}

static void print_limits(struct text_out *t, const struct analysis *a)
{
	fprintf(t->f, "\n%sWhat this history cannot show%s\n", text_on(t, STYLE_BOLD), text_off(t));
	if (a->n_limits == 0)
		fprintf(t->f, "  (no limits recorded)\n");
	for (size_t i = 0; i < a->n_limits; i++) {
		text_bullet(t, text_esc(t, a->limits[i], 0), 2);
	}
}

/* --verbose-report: every activity, attempt, finding, withheld field and
 * limit of every run. */
void text_render_full(struct text_out *t, const struct report *r)
{
	FILE *out = t->f;
	text_print_verdict(t, r, true);
	fputc('\n', out);
	if (r->n_runs > 1) {
		text_print_overview(t, r);
		fputc('\n', out);
	}
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		if (i) {
			fputc('\n', out);
			for (size_t k = 0; k < t->width; k++)
				fputc('-', out);
			fprintf(out, "\n\n");
		}
		print_header(t, run);
		if (!run->analysis) {
			text_print_failed_run(t, run);
			continue;
		}
		print_activities(t, run->analysis);
		print_findings(t, run);
		print_withheld(t, run->analysis);
		print_limits(t, run->analysis);
	}
	text_print_payloads(t, r);
	text_print_notes(t, r);
	fputc('\n', out);
	text_print_summary(t, r);
}
