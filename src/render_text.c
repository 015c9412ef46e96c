/* The text report: what an on-call engineer reads in an 80-column terminal.
 * Formats the report and nothing else; every string that came from a
 * server or a file goes through escape_terminal first. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

#define LABEL_WIDTH 16
#define ESC_SLOTS 6

struct text_out {
	FILE *f;
	bool color;
	size_t width;
	/* Escaped strings live in rotating slots until the next few calls. */
	struct buf slot[ESC_SLOTS];
	size_t next_slot;
	bool oom;
};

enum style {
	STYLE_BOLD,
	STYLE_RED,
	STYLE_GREEN,
	STYLE_YELLOW,
	STYLE_DIM
};

static const char *const style_codes[] = {
	[STYLE_BOLD] = "\033[1m",    [STYLE_RED] = "\033[1;31m", [STYLE_GREEN] = "\033[32m",
	[STYLE_YELLOW] = "\033[33m", [STYLE_DIM] = "\033[2m",
};

static const char *on(struct text_out *t, enum style s)
{
	return t->color ? style_codes[s] : "";
}

static const char *off(struct text_out *t)
{
	return t->color ? "\033[0m" : "";
}

/* s escaped for the terminal (and cut to max characters when max > 0);
 * "" for NULL. Valid until ESC_SLOTS more calls. */
static const char *esc(struct text_out *t, const char *s, size_t max)
{
	if (!s)
		return "";
	struct buf *b = &t->slot[t->next_slot++ % ESC_SLOTS];
	buf_reset(b);
	if (escape_terminal(b, s, strlen(s), max, NULL) < 0) {
		t->oom = true;
		return "";
	}
	return b->data;
}

/* Display columns of UTF-8 text: one per code point (escaped text has no
 * controls; wide CJK glyphs are rare in ids and accepted as off by one). */
static size_t columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* Prints already-escaped text word-wrapped to the width. The first line
 * continues at column col (the caller printed that much already); later
 * lines start with indent spaces. */
static void wrap_at(struct text_out *t, const char *text, size_t indent, size_t col)
{
	bool first = true;
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *w = p;
		/* The withheld phrase is one unit: it reads, and greps, whole. */
		if (strncmp(p, REPORT_WITHHELD_PHRASE, strlen(REPORT_WITHHELD_PHRASE)) == 0)
			p += strlen(REPORT_WITHHELD_PHRASE);
		while (*p && *p != ' ')
			p++;
		size_t wcols = 0;
		for (const char *q = w; q < p; q++)
			if (((unsigned char)*q & 0xc0) != 0x80)
				wcols++;
		if (!first && col + 1 + wcols > t->width) {
			fprintf(t->f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', t->f);
			col++;
		}
		fwrite(w, 1, (size_t)(p - w), t->f);
		col += wcols;
		first = false;
	}
	fputc('\n', t->f);
}

static void wrap(struct text_out *t, const char *text, size_t indent)
{
	fprintf(t->f, "%*s", (int)indent, "");
	wrap_at(t, text, indent, indent);
}

static void field(struct text_out *t, const char *label, const char *value)
{
	fprintf(t->f, "  %-*s", LABEL_WIDTH - 2, label);
	wrap_at(t, value, LABEL_WIDTH, LABEL_WIDTH);
}

/* "- item" with the item's continuation lines under its first word. */
static void bullet(struct text_out *t, const char *text, size_t indent)
{
	fprintf(t->f, "%*s- ", (int)indent, "");
	wrap_at(t, text, indent + 2, indent + 2);
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

	fprintf(t->f, "%sRun %s%s", on(t, STYLE_BOLD), run->run_id ? esc(t, run->run_id, 0) : "(unknown run id)",
		off(t));
	if (workflow)
		fprintf(t->f, "  %s", esc(t, workflow, 0));
	if (status)
		fprintf(t->f, "  [%s]", esc(t, status, 0));
	else if (a && !a->finished)
		fprintf(t->f, "  [not finished]");
	fputc('\n', t->f);

	field(t, "app id", run->app_id ? esc(t, run->app_id, 0) : "unknown");
	field(t, "run id", run->run_id ? esc(t, run->run_id, 0) : "unknown");
	if (run->parent_run_id)
		field(t, "parent run", esc(t, run->parent_run_id, 0));
	char line[1024];
	if (run->project_form == PROJECT_NONE && run->project) {
		snprintf(line, sizeof line, "%s (name or uid: unresolved)", esc(t, run->project, 0));
		field(t, "project", line);
	} else if (run->project_form == PROJECT_NONE || !run->project)
		field(t, "project", "not given");
	else {
		snprintf(line, sizeof line, "%s (%s)", esc(t, run->project, 0), project_kind(run->project_form));
		field(t, "project", line);
	}
	if (a) {
		snprintf(line, sizeof line, "%s (%s)", data_sharing_level_name(a->sharing),
			 a->sharing_source ? esc(t, a->sharing_source, 0) : "source unknown");
		field(t, "data sharing", line);
	}
	if (run->console_link) {
		field(t, "console", esc(t, run->console_link, 0));
		if (run->link_note)
			field(t, "", esc(t, run->link_note, 0));
	} else {
		snprintf(line, sizeof line, "app %s, run %s (no console link%s%s)",
			 run->app_id ? esc(t, run->app_id, 0) : "unknown",
			 run->run_id ? esc(t, run->run_id, 0) : "unknown", run->link_note ? ": " : "",
			 run->link_note ? esc(t, run->link_note, 0) : "");
		fprintf(t->f, "  %-*s", LABEL_WIDTH - 2, "console");
		wrap_at(t, line, LABEL_WIDTH, LABEL_WIDTH);
	}
	if (run->source)
		field(t, "source", esc(t, run->source, 0));
	if (a) {
		snprintf(line, sizeof line, "%zu event%s", a->n_events, a->n_events == 1 ? "" : "s");
		if (a->n_generations > 1)
			snprintf(line + strlen(line), sizeof line - strlen(line), ", %zu generations",
				 a->n_generations);
		field(t, "history", line);
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
			fprintf(t->f, "input %zu bytes", at->input.size);
		else
			fprintf(t->f, "input %s", in);
	}
	if (out) {
		fprintf(t->f, "%s", in ? ", " : "");
		if (at->output.state == PAYLOAD_PRESENT)
			fprintf(t->f, "output %zu bytes", at->output.size);
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
		size_t c = ts ? columns(esc(t, ts, 64)) : 0;
		if (c > w)
			w = c;
	}
	return (int)w;
}

static void print_attempt(struct text_out *t, const struct invocation *inv, size_t k, int tw)
{
	const struct attempt *at = &inv->attempts[k];
	enum style s = at->outcome == OUTCOME_COMPLETED ? STYLE_GREEN
		       : at->outcome == OUTCOME_FAILED  ? STYLE_RED
							: STYLE_YELLOW;
	char n[24], id[32];
	snprintf(n, sizeof n, "%zu.", k + 1);
	snprintf(id, sizeof id, "%" PRId64, at->scheduled_id);
	const char *outcome = attempt_outcome_name(at->outcome);
	const char *when = at->scheduled_at ? esc(t, at->scheduled_at, 64) : "-";
	fprintf(t->f, "    %-3s %-7s %s%*s  %s%s%s%*s  ", n, id, when, tw - (int)columns(when), "", on(t, s),
		outcome, off(t), (int)(strlen(outcome) < 9 ? 9 - strlen(outcome) : 0), "");
	if (at->outcome == OUTCOME_PENDING)
		fprintf(t->f, "no result in history");
	else
		fprintf(t->f, "%s", at->completed_at ? esc(t, at->completed_at, 64) : "-");
	fputc('\n', t->f);

	/* Detail lines line up under the event id. */
	const size_t indent = 8;
	if (at->n_results > 1)
		fprintf(t->f, "%*s%s%zu results for this one attempt%s\n", (int)indent, "", on(t, STYLE_RED),
			(size_t)at->n_results, off(t));
	if (inv->is_child_workflow && at->instance_id)
		fprintf(t->f, "%*sinstance %s\n", (int)indent, "", esc(t, at->instance_id, t->width - indent - 9));
	if (at->task_execution_id && *at->task_execution_id && inv->task_execution_id &&
	    strcmp(at->task_execution_id, inv->task_execution_id) != 0)
		fprintf(t->f, "%*sexecution %s\n", (int)indent, "",
			esc(t, at->task_execution_id, t->width - indent - 10));
	if (at->outcome == OUTCOME_FAILED && (at->error_type || at->error_message || at->non_retriable)) {
		struct buf msg;
		buf_init(&msg, 0);
		buf_printf(&msg, NULL, "%s%s%s%s", at->error_type ? at->error_type : "",
			   at->error_type && at->error_message ? ": " : "",
			   at->error_message ? at->error_message : "",
			   at->non_retriable ? " [non-retriable]" : "");
		/* Two lines at most: a stack of long messages would push the
		 * findings off the screen; --format json has them whole. */
		if (msg.data)
			wrap(t, esc(t, msg.data, 2 * (t->width - indent) - 16), indent);
		buf_finish(&msg);
	}
	if (at->outcome == OUTCOME_FAILED && (at->cause_type || at->cause_message)) {
		/* The innermost cause (innerFailure), which the class rests on. */
		struct buf msg;
		buf_init(&msg, 0);
		buf_printf(&msg, NULL, "caused by %s%s%s", at->cause_type ? at->cause_type : "",
			   at->cause_type && at->cause_message ? ": " : "",
			   at->cause_message ? at->cause_message : "");
		if (msg.data)
			wrap(t, esc(t, msg.data, 2 * (t->width - indent) - 16), indent);
		buf_finish(&msg);
	}
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
	const char *id = has_id ? esc(t, inv->task_execution_id, 60) : "(none recorded)";
	fprintf(t->f, "    execution %s", id);
	if (ln && 14 + columns(id) + 3 + strlen(ln) > t->width)
		fprintf(t->f, "\n    (%s)", ln);
	else if (ln)
		fprintf(t->f, " (%s)", ln);
	fputc('\n', t->f);
}

static void print_activities(struct text_out *t, const struct analysis *a)
{
	fprintf(t->f, "\n%sActivities%s (%zu)\n", on(t, STYLE_BOLD), off(t), a->n_invocations);
	if (a->n_invocations == 0)
		fprintf(t->f, "  none scheduled in this history\n");
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		fprintf(t->f, "  %s%s%s%s", on(t, STYLE_BOLD), inv->is_child_workflow ? "child workflow " : "",
			inv->name ? esc(t, inv->name, 48) : "(unnamed)", off(t));
		fprintf(t->f, "  %zu attempt%s", (size_t)inv->n_attempts, inv->n_attempts == 1 ? "" : "s");
		if (a->n_generations > 1)
			fprintf(t->f, ", generation %zu", (size_t)inv->generation + 1);
		fputc('\n', t->f);
		print_invocation_key(t, inv);
		int tw = time_width(t, inv);
		fprintf(t->f, "%s    #   event   %-*s  outcome    result at%s\n", on(t, STYLE_DIM), tw,
			"scheduled at", off(t));
		for (size_t k = 0; k < inv->n_attempts; k++)
			print_attempt(t, inv, k, tw);
		if (inv->n_retry_timers) {
			fprintf(t->f, "    retry timer%s: event%s ", inv->n_retry_timers == 1 ? "" : "s",
				inv->n_retry_timers == 1 ? "" : "s");
			print_ids(t, inv->retry_timer_event_ids, inv->n_retry_timers);
			fputc('\n', t->f);
		}
	}
}

static void print_findings(struct text_out *t, const struct analysis *a)
{
	fprintf(t->f, "\n%sFindings%s (%zu)\n", on(t, STYLE_BOLD), off(t), a->n_findings);
	if (a->n_findings == 0)
		fprintf(t->f, "  none: this history shows no activity executed more than once\n"
			      "  (it cannot show everything: see the limits below)\n");
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *f = &a->findings[i];
		enum style s = f->severity == SEVERITY_SUSPECT ? STYLE_RED : STYLE_YELLOW;
		fprintf(t->f, "  %s%-7s%s %s", on(t, s), severity_name(f->severity), off(t),
			finding_kind_id(f->kind));
		if (f->activity)
			fprintf(t->f, "  %s", esc(t, f->activity, 40));
		fputc('\n', t->f);
		if (f->task_execution_id && *f->task_execution_id)
			fprintf(t->f, "          execution %s\n", esc(t, f->task_execution_id, 60));
		if (f->n_evidence || f->n_evidence_event_indexes) {
			struct buf ev;
			buf_init(&ev, 0);
			buf_printf(&ev, NULL, "evidence:");
			for (size_t k = 0; k < f->n_evidence; k++)
				buf_printf(&ev, NULL, "%s%" PRId64,
					   k                    ? ", "
					   : f->n_evidence == 1 ? " event "
								: " events ",
					   f->evidence_event_ids[k]);
			for (size_t k = 0; k < f->n_evidence_event_indexes; k++)
				buf_printf(&ev, NULL, "%s%zu",
					   k               ? ", "
					   : f->n_evidence ? "; history positions "
							   : " history positions ",
					   (size_t)f->evidence_event_indexes[k]);
			if (ev.data)
				wrap(t, ev.data, 10);
			buf_finish(&ev);
		}
		if (f->message)
			wrap(t, esc(t, f->message, 0), 10);
	}
}

static void print_withheld(struct text_out *t, const struct analysis *a)
{
	if (a->n_withheld == 0)
		return;
	fprintf(t->f, "\n%sWithheld%s (%zu)\n", on(t, STYLE_BOLD), off(t), a->n_withheld);
	/* The phrase stays on one line so it reads (and greps) whole. */
	char counted[64];
	snprintf(counted, sizeof counted, "These %zu fields were", a->n_withheld);
	fprintf(t->f, "  %s %s\n", a->n_withheld == 1 ? "This field was" : counted, REPORT_WITHHELD_PHRASE);
	struct buf how;
	buf_init(&how, 0);
	buf_printf(&how, NULL, "(%s, %s):", data_sharing_level_name(a->sharing),
		   a->sharing_source ? esc(t, a->sharing_source, 0) : "source unknown");
	if (how.data)
		wrap(t, how.data, 2);
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
		buf_printf(&line, NULL, "%s", esc(t, g[i].field ? g[i].field : "payload", 0));
		buf_printf(&line, NULL, " of %zu %s event%s", g[i].count, esc(t, g[i].event_type, 0),
			   g[i].count == 1 ? "" : "s");
		for (size_t k = 0; k < g[i].n_ids; k++)
			buf_printf(&line, NULL, "%s%" PRId64,
				   k                 ? ", "
				   : g[i].n_ids == 1 ? " (event "
						     : " (events ",
				   g[i].ids[k]);
		if (g[i].n_ids)
			buf_printf(&line, NULL, "%s)", g[i].n_ids < g[i].count ? ", ..." : "");
		if (line.data)
			bullet(t, line.data, 4);
		else
			t->oom = true;
		buf_finish(&line);
	}
	free(g);
}

static void print_limits(struct text_out *t, const struct analysis *a)
{
	fprintf(t->f, "\n%sWhat this history cannot show%s\n", on(t, STYLE_BOLD), off(t));
	if (a->n_limits == 0)
		fprintf(t->f, "  (no limits recorded)\n");
	for (size_t i = 0; i < a->n_limits; i++) {
		bullet(t, esc(t, a->limits[i], 0), 2);
	}
}

static void print_failed_run(struct text_out *t, const struct report_run *run)
{
	fprintf(t->f, "\n%sNot audited%s\n", on(t, STYLE_BOLD), off(t));
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "%s", esc(t, run->failure ? run->failure : "the run could not be fetched", 0));
	if (b.data)
		wrap(t, b.data, 2);
	buf_reset(&b);
	if (run->refusal_kind) {
		buf_printf(&b, NULL, "refusal %s", esc(t, run->refusal_kind, 0));
		if (run->refusal_instruction)
			buf_printf(&b, NULL, ": %s", esc(t, run->refusal_instruction, 0));
		if (b.data)
			wrap(t, b.data, 2);
	}
	buf_finish(&b);
}

static void print_summary(struct text_out *t, const struct report *r)
{
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "Summary: %zu run%s, %zu activit%s, %zu re-executed, %zu finding%s (%zu suspect)",
		   r->n_runs, r->n_runs == 1 ? "" : "s", r->n_activities, r->n_activities == 1 ? "y" : "ies",
		   r->n_reexecuted, r->n_findings, r->n_findings == 1 ? "" : "s", r->n_suspect);
	if (r->n_failed_runs)
		buf_printf(&b, NULL, ", %zu run%s not audited", r->n_failed_runs,
			   r->n_failed_runs == 1 ? "" : "s");
	buf_printf(&b, NULL, ".");
	/* "Summary:" in bold; the rest wrapped so it stays inside the width. */
	fprintf(t->f, "%sSummary:%s ", on(t, STYLE_BOLD), off(t));
	if (b.data)
		wrap_at(t, b.data + strlen("Summary: "), 9, strlen("Summary: "));
	else
		t->oom = true;
	buf_finish(&b);
}

/* ---- the overview table ------------------------------------------------ */

/* Run ids longer than this take a line of their own in the table, so one
 * long id does not push the other columns off the screen. */
#define RUN_COL_MAX 24

enum ov_col {
	OV_RUN,
	OV_APP,
	OV_WORKFLOW,
	OV_STARTED,
	OV_STATUS,
	OV_FINDINGS,
	OV_COLS
};

static const char *const ov_titles[OV_COLS] = {"run", "app", "workflow", "started", "status", "findings"};

/* "2026-09-14T11:30:00.040Z" as "2026-09-14 11:30" (or "09-14 11:30"
 * when short); anything else as it is. */
static const char *started_cell(struct text_out *t, const struct report_run *run, bool short_form, char *tmp,
				size_t size)
{
	const char *ts = run->analysis ? run->analysis->started_at : NULL;
	if (!ts)
		return "-";
	bool iso = strlen(ts) >= 16 && ts[4] == '-' && ts[7] == '-' && (ts[10] == 'T' || ts[10] == ' ') &&
		   ts[13] == ':';
	for (size_t i = 0; iso && i < 16; i++)
		if (i != 4 && i != 7 && i != 10 && i != 13 && (ts[i] < '0' || ts[i] > '9'))
			iso = false;
	if (!iso)
		return esc(t, ts, 40);
	snprintf(tmp, size, "%.*s %.5s", short_form ? 5 : 10, ts + (short_form ? 5 : 0), ts + 11);
	return tmp;
}

static const char *status_cell(struct text_out *t, const struct report_run *run)
{
	const char *status = report_run_status(run);
	if (!run->analysis)
		return status ? esc(t, status, 0) : "-";
	if (status)
		return esc(t, status, 0);
	return run->analysis->finished ? "unknown" : "not finished";
}

static const char *findings_cell(const struct report_run *run, char *tmp, size_t size)
{
	if (!run->analysis)
		return "not audited";
	if (!run->n_findings)
		return "-";
	if (run->n_suspect)
		snprintf(tmp, size, "%zu (%zu suspect)", run->n_findings, run->n_suspect);
	else
		snprintf(tmp, size, "%zu notice%s", run->n_findings, run->n_findings == 1 ? "" : "s");
	return tmp;
}

/* One cell of run's row, escaped (valid until the next few esc calls). */
static const char *ov_cell(struct text_out *t, const struct report_run *run, enum ov_col c, bool short_started,
			   char *tmp, size_t size)
{
	switch (c) {
	case OV_RUN:
		return run->run_id ? esc(t, run->run_id, 0) : "unknown";
	case OV_APP:
		return run->app_id ? esc(t, run->app_id, 0) : "unknown";
	case OV_WORKFLOW: {
		const char *wf = report_run_workflow(run);
		return wf ? esc(t, wf, 0) : "-";
	}
	case OV_STARTED:
		return started_cell(t, run, short_started, tmp, size);
	case OV_STATUS:
		return status_cell(t, run);
	case OV_FINDINGS:
		return findings_cell(run, tmp, size);
	case OV_COLS:
		break;
	}
	return "";
}

/* One line per run (only those without findings when only), with the
 * columns that fit the width: nothing is cut; columns are dropped (app,
 * then the start time, then the workflow) and a long run id takes a line
 * of its own. */
static void print_overview(struct text_out *t, const struct report *r, bool only_clean, const char *title)
{
	size_t w[OV_COLS], n_rows = 0;
	bool shown[OV_COLS], short_started = false;
	char tmp[64];
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < OV_COLS; c++) {
			w[c] = strlen(ov_titles[c]);
			shown[c] = true;
		}
		n_rows = 0;
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			if (only_clean && (report_run_has_findings(run) || !run->analysis))
				continue;
			n_rows++;
			for (int c = 0; c < OV_COLS; c++) {
				size_t cw =
					columns(ov_cell(t, run, (enum ov_col)c, short_started, tmp, sizeof tmp));
				if (c == OV_RUN && cw > RUN_COL_MAX)
					continue;
				if (cw > w[c])
					w[c] = cw;
			}
		}
		size_t total = 0;
		for (int c = 0; c < OV_COLS; c++)
			total += w[c] + 2;
		if (total <= t->width || pass == 1)
			break;
		short_started = true; /* and measure again */
	}
	size_t total = 0;
	for (int c = 0; c < OV_COLS; c++)
		total += w[c] + 2;
	static const enum ov_col drop[] = {OV_APP, OV_STARTED, OV_WORKFLOW};
	for (size_t d = 0; d < sizeof drop / sizeof *drop && total > t->width; d++) {
		shown[drop[d]] = false;
		total -= w[drop[d]] + 2;
	}
	if (!n_rows)
		return;
	(void)title;
	fprintf(t->f, "%s ", on(t, STYLE_BOLD));
	for (int c = 0; c < OV_COLS; c++)
		if (shown[c])
			fprintf(t->f, " %-*s", c == OV_FINDINGS ? 0 : (int)w[c] + 1, ov_titles[c]);
	fprintf(t->f, "%s\n", off(t));
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		if (only_clean && (report_run_has_findings(run) || !run->analysis))
			continue;
		fputc(' ', t->f);
		for (int c = 0; c < OV_COLS; c++) {
			if (!shown[c])
				continue;
			const char *cell = ov_cell(t, run, (enum ov_col)c, short_started, tmp, sizeof tmp);
			size_t cw = columns(cell);
			if (c == OV_RUN && cw > w[c]) {
				/* The whole id, then the row under its columns. */
				fprintf(t->f, " %s\n %*s", cell, (int)w[c] + 2, "");
				continue;
			}
			if (c == OV_FINDINGS && run->n_suspect)
				fprintf(t->f, " %s%s%s", on(t, STYLE_RED), cell, off(t));
			else if (c == OV_FINDINGS && !run->analysis)
				fprintf(t->f, " %s%s%s", on(t, STYLE_RED), cell, off(t));
			else if (c == OV_FINDINGS)
				fprintf(t->f, " %s", cell);
			else
				fprintf(t->f, " %s%*s", cell, (int)(w[c] + 1 - cw), "");
		}
		fputc('\n', t->f);
	}
}

static void evidence_line(struct buf *ev, const struct finding *f, bool positions);

/* ---- the verdict ------------------------------------------------------- */

static void print_verdict_line(struct text_out *t, const struct report *r)
{
	struct buf b;
	buf_init(&b, 0);
	bool one = r->n_runs == 1;
	size_t n_notice = r->n_findings - r->n_suspect;
	if (r->n_suspect) {
		buf_printf(&b, NULL, "%zu suspect finding%s", r->n_suspect, r->n_suspect == 1 ? "" : "s");
		if (!one)
			buf_printf(&b, NULL, " in %zu of %zu runs", r->n_suspect_runs, r->n_runs);
		if (n_notice)
			buf_printf(&b, NULL, ", and %zu notice%s", n_notice, n_notice == 1 ? "" : "s");
		buf_printf(&b, NULL, ".");
	} else if (r->n_findings) {
		buf_printf(&b, NULL, "%zu notice%s", r->n_findings, r->n_findings == 1 ? "" : "s");
		if (!one)
			buf_printf(&b, NULL, " in %zu of %zu runs", r->n_finding_runs, r->n_runs);
		buf_printf(&b, NULL, ": retries happened, none suspect.");
	} else if (r->n_runs > r->n_failed_runs) {
		buf_printf(&b, NULL, "no activity in %s is shown to have run more than once.",
			   one ? "this run" : "these runs");
	} else {
		buf_printf(&b, NULL, "nothing was audited.");
	}
	if (r->n_failed_runs && r->n_runs > r->n_failed_runs)
		buf_printf(&b, NULL, " %zu run%s could not be audited.", r->n_failed_runs,
			   r->n_failed_runs == 1 ? "" : "s");
	const char *word = r->n_suspect       ? "SUSPECT"
			   : r->n_findings    ? "NOTICE"
			   : r->n_failed_runs ? "INCOMPLETE"
					      : "CLEAN";
	enum style s = r->n_suspect || r->n_failed_runs ? STYLE_RED : r->n_findings ? STYLE_YELLOW : STYLE_GREEN;
	fprintf(t->f, "%sVerdict:%s %s%s%s  ", on(t, STYLE_BOLD), off(t), on(t, s), word, off(t));
	if (b.data)
		wrap_at(t, b.data, 2, strlen("Verdict: ") + strlen(word) + 2);
	else
		t->oom = true;
	buf_finish(&b);
}

/* The verdict, then every suspect finding: its run (in a report of several
 * runs), activity, kind and evidence on a line, its summary under it. */
static void print_verdict(struct text_out *t, const struct report *r, bool list_suspects)
{
	print_verdict_line(t, r);
	if (!list_suspects || !r->n_suspect)
		return;
	bool with_run = r->n_runs > 1;
	size_t w_run = 0, w_act = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct analysis *a = r->runs[i].analysis;
		for (size_t k = 0; a && k < a->n_findings; k++) {
			const struct finding *f = &a->findings[k];
			if (f->severity != SEVERITY_SUSPECT)
				continue;
			size_t c = r->runs[i].run_id ? columns(esc(t, r->runs[i].run_id, 0)) : 7;
			w_run = c > w_run ? c : w_run;
			c = f->activity ? columns(esc(t, f->activity, 0)) : 1;
			w_act = c > w_act ? c : w_act;
		}
	}
	if (!with_run)
		w_run = 0;
	/* Aligned while the columns leave room for the kind. */
	if (w_run + w_act + 34 > t->width)
		w_run = w_act = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		const struct analysis *a = run->analysis;
		for (size_t k = 0; a && k < a->n_findings; k++) {
			const struct finding *f = &a->findings[k];
			if (f->severity != SEVERITY_SUSPECT)
				continue;
			struct buf line;
			buf_init(&line, 0);
			if (with_run) {
				const char *rid = run->run_id ? esc(t, run->run_id, 0) : "unknown";
				size_t c = columns(rid);
				buf_printf(&line, NULL, "%s%*s  ", rid, (int)(w_run > c ? w_run - c : 0), "");
			}
			const char *act = f->activity ? esc(t, f->activity, 0) : "-";
			size_t c = columns(act);
			buf_printf(&line, NULL, "%s%*s  %s", act, (int)(w_act > c ? w_act - c : 0), "",
				   finding_kind_id(f->kind));
			struct buf ev;
			buf_init(&ev, 0);
			evidence_line(&ev, f, false);
			if (ev.data)
				buf_printf(&line, NULL, "  (%s)", ev.data);
			buf_finish(&ev);
			/* Printed as it is while it fits (wrap_at would fold the
			 * alignment's spaces), wrapped otherwise. */
			if (!line.data)
				t->oom = true;
			else if (2 + columns(line.data) <= t->width)
				fprintf(t->f, "  %s\n", line.data);
			else
				wrap(t, line.data, 2);
			buf_finish(&line);
			if (f->summary && *f->summary)
				wrap(t, esc(t, f->summary, 0), 4);
		}
	}
}

/* ---- the short view ---------------------------------------------------- */

static void evidence_line(struct buf *ev, const struct finding *f, bool positions)
{
	for (size_t k = 0; k < f->n_evidence; k++)
		buf_printf(ev, NULL, "%s%" PRId64,
			   k                    ? ", "
			   : f->n_evidence == 1 ? "event "
						: "events ",
			   f->evidence_event_ids[k]);
	if (f->n_evidence && !positions)
		return;
	for (size_t k = 0; k < f->n_evidence_event_indexes; k++)
		buf_printf(ev, NULL, "%s%zu",
			   k               ? ", "
			   : f->n_evidence ? "; history positions "
					   : "history positions ",
			   (size_t)f->evidence_event_indexes[k]);
}

/* "suspect kind  activity  (events ...)", then the summary under it. With
 * one_line, the execution id in place of the summary (--findings-only). */
static void print_finding_short(struct text_out *t, const struct finding *f, bool one_line)
{
	enum style s = f->severity == SEVERITY_SUSPECT ? STYLE_RED : STYLE_YELLOW;
	struct buf line;
	buf_init(&line, 0);
	buf_printf(&line, NULL, "%s", finding_kind_id(f->kind));
	if (f->activity)
		buf_printf(&line, NULL, "  %s", esc(t, f->activity, 0));
	if (one_line && f->task_execution_id && *f->task_execution_id)
		buf_printf(&line, NULL, "  execution %s", esc(t, f->task_execution_id, 0));
	struct buf ev;
	buf_init(&ev, 0);
	evidence_line(&ev, f, false);
	if (ev.data)
		buf_printf(&line, NULL, "  (%s)", ev.data);
	buf_finish(&ev);
	fprintf(t->f, "  %s%-7s%s ", on(t, s), severity_name(f->severity), off(t));
	if (line.data)
		wrap_at(t, line.data, 10, 10);
	else
		t->oom = true;
	buf_finish(&line);
	if (!one_line && f->summary && *f->summary)
		wrap(t, esc(t, f->summary, 0), 10);
}

/* The run's one header line, and where to look at it. */
static void print_run_short_header(struct text_out *t, const struct report_run *run)
{
	const char *workflow = report_run_workflow(run);
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "%s", workflow ? esc(t, workflow, 0) : "(workflow unknown)");
	buf_printf(&b, NULL, "  [%s]", status_cell(t, run));
	buf_printf(&b, NULL, "  app %s", run->app_id ? esc(t, run->app_id, 0) : "unknown");
	const char *rid = run->run_id ? esc(t, run->run_id, 0) : "(unknown run id)";
	fprintf(t->f, "%sRun %s%s  ", on(t, STYLE_BOLD), rid, off(t));
	if (b.data)
		wrap_at(t, b.data, 4, 4 + columns(rid) + 2);
	else
		t->oom = true;
	buf_finish(&b);
}

static void print_link_short(struct text_out *t, const struct report_run *run)
{
	if (run->console_link) {
		fprintf(t->f, "  %s\n", esc(t, run->console_link, 0));
		return;
	}
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "no console link%s%s", run->link_note ? ": " : "",
		   run->link_note ? esc(t, run->link_note, 0) : "");
	if (b.data)
		wrap(t, b.data, 2);
	buf_finish(&b);
}

/* What was withheld, in one sentence that names the level and how it is
 * known (PRODUCT.md rule 2); --verbose-report lists the fields. */
static void print_withheld_short(struct text_out *t, const struct analysis *a)
{
	if (!a->n_withheld)
		return;
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "%zu payload field%s %s %s (%s, %s).", a->n_withheld, a->n_withheld == 1 ? "" : "s",
		   a->n_withheld == 1 ? "was" : "were", REPORT_WITHHELD_PHRASE,
		   data_sharing_level_name(a->sharing),
		   a->sharing_source ? esc(t, a->sharing_source, 0) : "source unknown");
	if (b.data)
		wrap(t, b.data, 2);
	else
		t->oom = true;
	buf_finish(&b);
}

/* A run's section in the short view: where to look, what was withheld,
 * its notices (its suspects are in the verdict) and, in a report of several
 * runs, the limits that name its own data. */
static void print_run_short(struct text_out *t, const struct report_run *run, bool own_limits)
{
	print_run_short_header(t, run);
	print_link_short(t, run);
	if (!run->analysis) {
		print_failed_run(t, run);
		return;
	}
	const struct analysis *a = run->analysis;
	if (!a->n_findings)
		fprintf(t->f, "  no findings: this history shows no activity executed more than once\n");
	else if (run->n_suspect)
		fprintf(t->f, "  %zu suspect finding%s: see the verdict above\n", run->n_suspect,
			run->n_suspect == 1 ? "" : "s");
	for (size_t i = 0; i < a->n_findings; i++)
		if (a->findings[i].severity != SEVERITY_SUSPECT)
			print_finding_short(t, &a->findings[i], false);
	print_withheld_short(t, a);
	for (size_t i = 0; own_limits && i < a->n_limits; i++)
		if (a->limit_specific && a->limit_specific[i])
			bullet(t, esc(t, a->limits[i], 0), 2);
}

static void print_remedies(struct text_out *t, const struct report *r)
{
	struct report_remedy *v;
	long n = report_remedies(r, &v);
	if (n < 0) {
		t->oom = true;
		return;
	}
	if (n > 0)
		fprintf(t->f, "\n%sWhat to do%s\n", on(t, STYLE_BOLD), off(t));
	for (long i = 0; i < n; i++) {
		struct buf b;
		buf_init(&b, 0);
		for (int k = 0; k < FINDING_KIND_COUNT; k++)
			if (v[i].kinds & (1u << k))
				buf_printf(&b, NULL, "%s%s", b.len ? ", " : "",
					   finding_kind_id((enum finding_kind)k));
		buf_printf(&b, NULL, ": %s", v[i].remedy);
		if (b.data)
			bullet(t, b.data, 2);
		else
			t->oom = true;
		buf_finish(&b);
	}
	free(v);
}

/* The limits at the end: a single run's all; of several runs, those that
 * are the same sentence for any run once, then (when the runs have no
 * section of their own) each run's own, under its id. */
static void print_limits_once(struct text_out *t, const struct report *r, bool runs_have_sections)
{
	if (r->n_runs == r->n_failed_runs)
		return;
	fprintf(t->f, "\n%s%s%s\n", on(t, STYLE_BOLD),
		r->n_runs == 1 ? "What this history cannot show" : "What these histories cannot show", off(t));
	if (r->n_runs == 1) {
		const struct analysis *a = r->runs[0].analysis;
		for (size_t i = 0; i < a->n_limits; i++)
			bullet(t, esc(t, a->limits[i], 0), 2);
		return;
	}
	const char **v;
	long n = report_common_limits(r, &v);
	if (n < 0) {
		t->oom = true;
		return;
	}
	for (long i = 0; i < n; i++)
		bullet(t, esc(t, v[i], 0), 2);
	free(v);
	/* Without sections, the limits that name a run's own data are counted
	 * here and shown by --all-runs and --verbose-report. */
	size_t n_specific = 0, n_runs = 0;
	for (size_t k = 0; !runs_have_sections && k < r->n_runs; k++) {
		const struct analysis *a = r->runs[k].analysis;
		size_t before = n_specific;
		for (size_t i = 0; a && i < a->n_limits; i++)
			n_specific += a->limit_specific && a->limit_specific[i];
		n_runs += n_specific > before;
	}
	if (n_specific) {
		char line[160];
		snprintf(line, sizeof line,
			 "and %zu limit%s specific to %zu run%s (--all-runs or --verbose-report)", n_specific,
			 n_specific == 1 ? "" : "s", n_runs, n_runs == 1 ? "" : "s");
		bullet(t, line, 2);
	}
}

static void print_notes(struct text_out *t, const struct report *r)
{
	if (!r->n_notes)
		return;
	fprintf(t->f, "\n%sNotes%s\n", on(t, STYLE_BOLD), off(t));
	for (size_t i = 0; i < r->n_notes; i++)
		bullet(t, esc(t, r->notes[i], 0), 2);
}

static void render_short(struct text_out *t, const struct report *r, bool all_runs)
{
	bool multi = r->n_runs > 1;
	print_verdict(t, r, true);
	fputc('\n', t->f);
	if (multi) {
		print_overview(t, r, false, "Runs");
		if (all_runs)
			fputc('\n', t->f);
	}
	/* Sections: the one run's; of several, every run's with --all-runs. */
	bool sections = !multi || all_runs;
	for (size_t i = 0; sections && i < r->n_runs; i++) {
		if (i)
			fputc('\n', t->f);
		print_run_short(t, &r->runs[i], multi);
	}
	print_remedies(t, r);
	print_limits_once(t, r, sections);
	print_notes(t, r);
	fputc('\n', t->f);
	print_summary(t, r);
	if (multi && !sections)
		fprintf(t->f, "Ids and links: --findings-only; every attempt: --verbose-report.\n");
}

static void render_findings_only(struct text_out *t, const struct report *r)
{
	print_verdict(t, r, false);
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		if (run->analysis && !report_run_has_findings(run))
			continue;
		fputc('\n', t->f);
		print_run_short_header(t, run);
		print_link_short(t, run);
		if (!run->analysis) {
			print_failed_run(t, run);
			continue;
		}
		for (size_t k = 0; k < run->analysis->n_findings; k++)
			print_finding_short(t, &run->analysis->findings[k], true);
	}
	fputc('\n', t->f);
	print_summary(t, r);
}

/* --verbose-report: every activity, attempt, finding, withheld field and
 * limit of every run. */
static void render_full(struct text_out *t, const struct report *r)
{
	FILE *out = t->f;
	print_verdict(t, r, true);
	fputc('\n', out);
	if (r->n_runs > 1) {
		print_overview(t, r, false, "Runs");
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
			print_failed_run(t, run);
			continue;
		}
		print_activities(t, run->analysis);
		print_findings(t, run->analysis);
		print_withheld(t, run->analysis);
		print_limits(t, run->analysis);
	}
	print_notes(t, r);
	fputc('\n', out);
	print_summary(t, r);
}

int render_text(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	struct text_out t = {
		.f = out, .color = o && o->color, .width = o && o->width >= 40 ? (size_t)o->width : 80};
	for (size_t i = 0; i < ESC_SLOTS; i++)
		buf_init(&t.slot[i], 0);

	enum report_view view = o ? o->view : REPORT_SHORT;
	if (r->n_runs == 0) {
		fprintf(out, "No runs to audit.\n");
		print_notes(&t, r);
		fputc('\n', out);
		print_summary(&t, r);
	} else if (view == REPORT_FULL) {
		render_full(&t, r);
	} else if (view == REPORT_FINDINGS) {
		render_findings_only(&t, r);
	} else {
		render_short(&t, r, o && o->all_runs);
	}

	for (size_t i = 0; i < ESC_SLOTS; i++)
		buf_finish(&t.slot[i]);
	if (t.oom)
		return err_set(e, ERR_INTERNAL, "out of memory while writing the report");
	if (ferror(out))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}
