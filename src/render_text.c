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

/* With several runs (`runs`, or a run and its children), one line per run
 * first, so the reader sees at a glance which runs to read. */
static void print_overview(struct text_out *t, const struct report *r)
{
	fprintf(t->f, "%sRuns (%zu)%s\n", on(t, STYLE_BOLD), r->n_runs, off(t));
	fprintf(t->f, "  %-22s %-12s %-9s %10s %6s  %s\n", "run", "app", "status", "activities", "re-ex",
		"findings");
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		const char *status = report_run_status(run);
		fprintf(t->f, "  %-22s %-12s ", run->run_id ? esc(t, run->run_id, 22) : "unknown",
			run->app_id ? esc(t, run->app_id, 12) : "unknown");
		if (!run->analysis) {
			fprintf(t->f, "%-9s %snot audited%s%s%s\n", "?", on(t, STYLE_RED), off(t),
				run->refusal_kind ? ": " : "",
				run->refusal_kind ? esc(t, run->refusal_kind, 24) : "");
			continue;
		}
		fprintf(t->f, "%-9s ", status ? esc(t, status, 9) : "unknown");
		fprintf(t->f, "%10zu %6zu  ", run->n_activities, run->n_reexecuted);
		if (run->n_suspect)
			fprintf(t->f, "%s%zu (%zu suspect)%s\n", on(t, STYLE_RED), run->n_findings, run->n_suspect,
				off(t));
		else
			fprintf(t->f, "%zu\n", run->n_findings);
	}
	fputc('\n', t->f);
}

int render_text(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	struct text_out t = {
		.f = out, .color = o && o->color, .width = o && o->width >= 40 ? (size_t)o->width : 80};
	for (size_t i = 0; i < ESC_SLOTS; i++)
		buf_init(&t.slot[i], 0);

	if (r->n_runs == 0)
		fprintf(out, "No runs to audit.\n");
	else if (r->n_runs > 1)
		print_overview(&t, r);
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		if (i) {
			fputc('\n', out);
			for (size_t k = 0; k < t.width; k++)
				fputc('-', out);
			fprintf(out, "\n\n");
		}
		print_header(&t, run);
		if (!run->analysis) {
			print_failed_run(&t, run);
			continue;
		}
		print_activities(&t, run->analysis);
		print_findings(&t, run->analysis);
		print_withheld(&t, run->analysis);
		print_limits(&t, run->analysis);
	}
	if (r->n_notes) {
		fprintf(out, "\n%sNotes%s\n", on(&t, STYLE_BOLD), off(&t));
		for (size_t i = 0; i < r->n_notes; i++) {
			bullet(&t, esc(&t, r->notes[i], 0), 2);
		}
	}
	fputc('\n', out);
	print_summary(&t, r);

	for (size_t i = 0; i < ESC_SLOTS; i++)
		buf_finish(&t.slot[i]);
	if (t.oom)
		return err_set(e, ERR_INTERNAL, "out of memory while writing the report");
	if (ferror(out))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}
