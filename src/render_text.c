/* The text report: what an on-call engineer reads in an 80-column terminal.
 * Formats the report and nothing else; every string that came from a
 * server or a file goes through escape_terminal first. This file holds the
 * entry, the verdict, the short view and --findings-only, and the sections
 * every view ends with; render_text_internal.h says where the rest is. */
#include "render.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render_text_internal.h"
#include "report_facts.h"
#include "report_fold.h"

void text_print_failed_run(struct text_out *t, const struct report_run *run)
{
	fprintf(t->f, "\n%sNot audited%s\n", text_on(t, STYLE_BOLD), text_off(t));
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "%s", text_esc(t, run->failure ? run->failure : "the run could not be fetched", 0));
	text_wrap(t, b.data, 2);
	buf_reset(&b);
	if (run->refusal_kind) {
		buf_printf(&b, NULL, "refusal %s", text_esc(t, run->refusal_kind, 0));
		if (run->refusal_instruction)
			buf_printf(&b, NULL, ": %s", text_esc(t, run->refusal_instruction, 0));
		text_wrap(t, b.data, 2);
	}
	buf_finish(&b);
}

static enum style verdict_style(const struct report *r)
{
	return r->n_suspect || r->n_failed_runs ? STYLE_RED : r->n_findings ? STYLE_YELLOW : STYLE_GREEN;
}

void text_print_summary(struct text_out *t, const struct report *r)
{
	struct buf b;
	buf_init(&b, 0);
	int rc = report_summary_sentence(&b, r);
	/* "Summary:" in bold, then the verdict word again (issue 19: the last
	 * line a pager leaves on screen says it); the rest wrapped so it stays
	 * inside the width. */
	const char *word = report_verdict(r);
	fprintf(t->f, "%sSummary:%s %s%s%s  ", text_on(t, STYLE_BOLD), text_off(t), text_on(t, verdict_style(r)),
		word, text_off(t));
	if (rc == 0)
		text_wrap_at(t, b.data, 9, strlen("Summary: ") + strlen(word) + 2);
	else
		t->oom = true;
	buf_finish(&b);
}

/* ---- the verdict ------------------------------------------------------- */

void text_print_verdict_line(struct text_out *t, const struct report *r)
{
	struct buf b;
	buf_init(&b, 0);
	int rc = report_verdict_sentence(&b, r, false);
	const char *word = report_verdict(r);
	fprintf(t->f, "%sVerdict:%s %s%s%s  ", text_on(t, STYLE_BOLD), text_off(t), text_on(t, verdict_style(r)),
		word, text_off(t));
	if (rc == 0)
		text_wrap_at(t, b.data, 2, strlen("Verdict: ") + strlen(word) + 2);
	else
		t->oom = true;
	buf_finish(&b);
}

/* "  (events 3, 5)" at the end of a finding's line, when it has evidence. */
static void append_evidence(struct text_out *t, struct buf *line, const struct finding *f)
{
	if (!f->n_evidence && !f->n_evidence_event_indexes)
		return;
	if (buf_printf(line, NULL, "  (") < 0 || report_evidence(line, f, false) < 0 ||
	    buf_printf(line, NULL, ")") < 0)
		t->oom = true;
}

/* A line of already-escaped text at indent, cut to the width ("..." at
 * the cut) so that it stays one line. */
static void print_cut(struct text_out *t, const char *line, size_t indent)
{
	if (!line) {
		t->oom = true;
		return;
	}
	size_t room = t->width > indent ? t->width - indent : 1;
	if (escape_columns(line) <= room) {
		fprintf(t->f, "%*s%s\n", (int)indent, "", line);
		return;
	}
	/* Cut at the last whole character (or escape) that leaves room for
	 * "...": escape_columns_n counts a prefix as it would print. */
	size_t len = strlen(line), cut = 0;
	while (cut < len) {
		size_t next = cut + 1;
		while (next < len && ((unsigned char)line[next] & 0xC0) == 0x80)
			next++;
		if (escape_columns_n(line, next) + 3 > room)
			break;
		cut = next;
	}
	fprintf(t->f, "%*s%.*s...\n", (int)indent, "", (int)cut, line);
}

/* A suspect (a fold of alike ones) in at most three lines (issue 19): what
 * and where; when its attempt ran and the real error; the run's link. */
static void print_suspect(struct text_out *t, const struct report *r, const struct report_fold *g, size_t w_run,
			  size_t w_act, bool with_run, bool local, bool say_no_link)
{
	const struct report_run *run = &r->runs[g->runs[0]];
	const struct finding *f = g->first;
	struct buf line, tail;
	buf_init(&line, 0);
	buf_init(&tail, 0);
	if (with_run) {
		const char *rid = run->run_id ? text_esc(t, run->run_id, 0) : "unknown";
		size_t c = escape_columns(rid);
		buf_printf(&line, NULL, "%s%*s  ", rid, (int)(w_run > c ? w_run - c : 0), "");
	}
	const char *act = f->activity ? text_esc(t, f->activity, 0) : "-";
	size_t c = escape_columns(act);
	buf_printf(&line, NULL, "%s%*s  %s", act, (int)(w_act > c ? w_act - c : 0), "", finding_kind_id(f->kind));
	/* Then, while it fits: how many alike, else the gap before the
	 * retry, then the evidence. */
	int rc = 0;
	if (g->n_findings > 1) {
		rc |= report_fold_count(&tail, g);
		if (tail.data)
			buf_printf(&line, NULL, "  %s", text_esc(t, tail.data, 0));
		/* The other runs named while they fit. */
		buf_reset(&tail);
		rc |= report_fold_runs(&tail, r, g);
		const char *others = tail.len ? text_esc(t, tail.data, 0) : "";
		if (*others && line.data && escape_columns(line.data) + 4 + escape_columns(others) <= t->width)
			buf_printf(&line, NULL, "; %s", others);
	} else {
		rc |= report_finding_next(&tail, f);
		if (tail.len && line.data && escape_columns(line.data) + 4 + tail.len <= t->width)
			buf_printf(&line, NULL, "  %s", tail.data);
		struct buf ev;
		buf_init(&ev, 0);
		if (f->n_evidence || f->n_evidence_event_indexes) {
			rc |= buf_printf(&ev, NULL, "  (");
			rc |= report_evidence(&ev, f, false);
			rc |= buf_printf(&ev, NULL, ")");
		}
		if (ev.len && line.data && escape_columns(line.data) + 2 + ev.len <= t->width)
			buf_printf(&line, NULL, "%s", ev.data);
		buf_finish(&ev);
	}
	if (rc < 0)
		t->oom = true;
	print_cut(t, line.data, 2);
	/* The second line: when, then the failure's own message, else the
	 * finding's summary. */
	buf_reset(&line);
	buf_reset(&tail);
	rc = report_finding_when(&line, f, local);
	rc |= report_finding_error(&tail, f);
	const char *what = tail.data;
	if (!tail.len)
		rc |= analysis_finding_summary(f, &tail, &what);
	if (what && *what)
		buf_printf(&line, NULL, "%s%s", line.len ? "  " : "", text_esc(t, what, 0));
	if (rc < 0)
		t->oom = true;
	if (line.len)
		print_cut(t, line.data, 4);
	buf_finish(&line);
	buf_finish(&tail);
	const char *note = report_source_note(run, f);
	if (note) /* --source: what the activity's code does twice */
		text_wrap(t, text_esc(t, note, 0), 4);
	if (run->console_link) {
		fprintf(t->f, "    %s\n", text_esc(t, run->console_link, 0));
	} else if (say_no_link) {
		struct buf b;
		buf_init(&b, 0);
		buf_printf(&b, NULL, "no console link%s%s", run->link_note ? ": " : "",
			   run->link_note ? text_esc(t, run->link_note, 0) : "");
		print_cut(t, b.data, 4);
		buf_finish(&b);
	}
}

/* The verdict, then every suspect finding, alike ones folded into one
 * (report_fold_findings), each in at most three lines. */
void text_print_verdict(struct text_out *t, const struct report *r, bool list_suspects)
{
	text_print_verdict_line(t, r);
	if (!list_suspects || !r->n_suspect)
		return;
	struct report_fold *v;
	long n = report_fold_findings(r, SEVERITY_SUSPECT, &v);
	if (n < 0) {
		t->oom = true;
		return;
	}
	bool with_run = r->n_runs > 1;
	size_t w_run = 0, w_act = 0;
	for (long i = 0; i < n; i++) {
		const char *rid = r->runs[v[i].runs[0]].run_id;
		size_t c = rid ? escape_columns(text_esc(t, rid, 0)) : 7;
		w_run = c > w_run ? c : w_run;
		c = v[i].activity ? escape_columns(text_esc(t, v[i].activity, 0)) : 1;
		w_act = c > w_act ? c : w_act;
	}
	if (!with_run)
		w_run = 0;
	/* Aligned while the columns leave room for the kind. */
	if (w_run + w_act + 34 > t->width)
		w_run = w_act = 0;
	/* Why a run has no link is said once, under its first suspect. */
	for (long i = 0; i < n; i++)
		print_suspect(t, r, &v[i], w_run, w_act, with_run, t->o.local_time,
			      i == 0 || v[i - 1].runs[0] != v[i].runs[0]);
	free(v);
}

/* ---- the short view ---------------------------------------------------- */

/* "suspect kind  activity  (events ...)", then the summary under it. With
 * one_line, the execution id and the finding's short id in place of the
 * summary (--findings-only; short_id is then set). */
static void print_finding_short(struct text_out *t, const struct finding *f, bool one_line, const char *short_id,
				const char *source)
{
	enum style s = f->severity == SEVERITY_SUSPECT ? STYLE_RED : STYLE_YELLOW;
	struct buf line;
	buf_init(&line, 0);
	buf_printf(&line, NULL, "%s", finding_kind_id(f->kind));
	if (f->activity)
		buf_printf(&line, NULL, "  %s", text_esc(t, f->activity, 0));
	if (one_line && f->task_execution_id && *f->task_execution_id)
		buf_printf(&line, NULL, "  execution %s", text_esc(t, f->task_execution_id, 0));
	append_evidence(t, &line, f);
	if (short_id)
		buf_printf(&line, NULL, "  id %s", short_id);
	fprintf(t->f, "  %s%-7s%s ", text_on(t, s), severity_name(f->severity), text_off(t));
	text_wrap_at(t, line.data, 10, 10);
	if (!one_line) {
		const char *summary;
		if (analysis_finding_summary(f, &line, &summary) < 0)
			t->oom = true;
		if (summary && *summary)
			text_wrap(t, text_esc(t, summary, 0), 10);
	}
	buf_finish(&line);
	if (source)
		text_wrap(t, text_esc(t, source, 0), 10);
}

/* The run's one header line, and where to look at it. */
static void print_run_short_header(struct text_out *t, const struct report_run *run)
{
	const char *workflow = report_run_workflow(run);
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "%s", workflow ? text_esc(t, workflow, 0) : "(workflow unknown)");
	buf_printf(&b, NULL, "  [%s]", text_status_cell(t, run));
	buf_printf(&b, NULL, "  app %s", run->app_id ? text_esc(t, run->app_id, 0) : "unknown");
	const char *rid = run->run_id ? text_esc(t, run->run_id, 0) : "(unknown run id)";
	fprintf(t->f, "%sRun %s%s  ", text_on(t, STYLE_BOLD), rid, text_off(t));
	text_wrap_at(t, b.data, 4, 4 + escape_columns(rid) + 2);
	buf_finish(&b);
}

static void print_link_short(struct text_out *t, const struct report_run *run)
{
	if (run->rerun_of && run->rerun_of_link)
		fprintf(t->f, "  rerun of %s: %s\n", text_esc(t, run->rerun_of, 0),
			text_esc(t, run->rerun_of_link, 0));
	if (run->console_link) {
		fprintf(t->f, "  %s\n", text_esc(t, run->console_link, 0));
		return;
	}
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "no console link%s%s", run->link_note ? ": " : "",
		   run->link_note ? text_esc(t, run->link_note, 0) : "");
	text_wrap(t, b.data, 2);
	buf_finish(&b);
}

/* What was withheld, in one sentence that names the level and how it is
 * known (doc/PRODUCT.md, rule 2); --verbose-report lists the fields. */
static void print_withheld_short(struct text_out *t, const struct report_run *run, const struct analysis *a)
{
	if (!a->n_withheld)
		return;
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "%zu payload field%s %s %s (%s, %s).", a->n_withheld, a->n_withheld == 1 ? "" : "s",
		   a->n_withheld == 1 ? "was" : "were", REPORT_WITHHELD_PHRASE,
		   data_sharing_level_name(a->sharing),
		   a->sharing_source ? text_esc(t, a->sharing_source, 0) : "source unknown");
	/* Issue 19: who can change that, and where the run can be seen whole. */
	if (a->sharing == SHARING_METADATA)
		buf_printf(&b, NULL,
			   " The level is set per organization (an administrator can change it); the "
			   "run's console link%s shows the run.",
			   run->console_link ? " above" : ", when there is one,");
	text_wrap(t, b.data, 2);
	buf_finish(&b);
}

static void text_fact(const char *sentence, void *ctx)
{
	struct text_out *t = ctx;
	text_wrap(t, text_esc(t, sentence, 0), 2);
}

void text_print_facts(struct text_out *t, const struct analysis *a)
{
	report_facts_each(a, text_fact, t);
}

/* A run's section in the short view: where to look, what was withheld,
 * its notices (its suspects are in the verdict) and, in a report of several
 * runs, the limits that name its own data. */
static void print_run_short(struct text_out *t, const struct report_run *run, bool own_limits)
{
	print_run_short_header(t, run);
	print_link_short(t, run);
	if (!run->analysis) {
		text_print_failed_run(t, run);
		return;
	}
	const struct analysis *a = run->analysis;
	if (!a->n_findings)
		fprintf(t->f, "  no findings: this history shows no activity executed more than once\n");
	else if (run->n_suspect)
		fprintf(t->f, "  %zu suspect finding%s: see the verdict above\n", run->n_suspect,
			run->n_suspect == 1 ? "" : "s");
	text_print_facts(t, a);
	for (size_t i = 0; i < a->n_findings; i++)
		if (a->findings[i].severity != SEVERITY_SUSPECT)
			print_finding_short(t, &a->findings[i], false, NULL,
					    report_source_note(run, &a->findings[i]));
	print_withheld_short(t, run, a);
	for (size_t i = 0; own_limits && i < a->n_limits; i++)
		if (a->limit_specific && a->limit_specific[i])
			text_bullet(t, text_esc(t, a->limits[i], 0), 2);
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
		fprintf(t->f, "\n%sWhat to do%s\n", text_on(t, STYLE_BOLD), text_off(t));
	for (long i = 0; i < n; i++) {
		struct buf b;
		buf_init(&b, 0);
		for (int k = 0; k < FINDING_KIND_COUNT; k++)
			if (v[i].kinds & (1u << k))
				buf_printf(&b, NULL, "%s%s", b.len ? ", " : "",
					   finding_kind_id((enum finding_kind)k));
		buf_printf(&b, NULL, ": %s", v[i].remedy);
		text_bullet(t, b.data, 2);
		buf_finish(&b);
	}
	free(v);
}

/* The short view's limits: one line (issue 19) counting the limits that
 * are the same sentence for any run; a run's own stay in its section, or
 * are counted when it has none. */
static void print_limits_line(struct text_out *t, const struct report *r, bool runs_have_sections)
{
	if (r->n_runs == r->n_failed_runs)
		return;
	const char **v;
	long n = report_common_limits(r, &v);
	if (n < 0) {
		t->oom = true;
		return;
	}
	free(v);
	size_t n_runs = 0;
	size_t n_specific = runs_have_sections ? 0 : report_unshown_specific_limits(r, false, &n_runs);
	struct buf b;
	buf_init(&b, 0);
	int rc = buf_printf(&b, NULL, "Limits: %ld thing%s %s cannot show", n, n == 1 ? "" : "s",
			    r->n_runs == 1 ? "this history" : "these histories");
	if (n_specific)
		rc |= buf_printf(&b, NULL, ", and %zu limit%s specific to %zu run%s", n_specific,
				 n_specific == 1 ? "" : "s", n_runs, n_runs == 1 ? "" : "s");
	rc |= buf_printf(&b, NULL, "; --verbose-report lists them.");
	fputc('\n', t->f);
	if (rc == 0)
		text_wrap(t, b.data, 0);
	else
		t->oom = true;
	buf_finish(&b);
}

void text_print_notes(struct text_out *t, const struct report *r)
{
	if (!r->n_notes)
		return;
	fprintf(t->f, "\n%sNotes%s\n", text_on(t, STYLE_BOLD), text_off(t));
	for (size_t i = 0; i < r->n_notes; i++)
		text_bullet(t, text_esc(t, r->notes[i], 0), 2);
}

static void render_short(struct text_out *t, const struct report *r, bool all_runs)
{
	bool multi = r->n_runs > 1;
	text_print_verdict(t, r, true);
	fputc('\n', t->f);
	if (multi) {
		text_print_overview(t, r);
		if (all_runs)
			fputc('\n', t->f);
	}
	/* Sections: the one run's; of several, every run's with --all-runs. */
	bool sections = !multi || all_runs;
	for (size_t i = 0; sections && i < r->n_runs; i++) {
		if (i)
			fputc('\n', t->f);
		print_run_short(t, &r->runs[i], true);
	}
	text_print_payloads(t, r);
	print_remedies(t, r);
	print_limits_line(t, r, sections);
	text_print_notes(t, r);
	fputc('\n', t->f);
	if (multi && !sections)
		fprintf(t->f, "Ids and links: --findings-only; every attempt: --verbose-report.\n");
	text_print_summary(t, r);
}

static void render_findings_only(struct text_out *t, const struct report *r)
{
	text_print_verdict(t, r, false);
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		if (run->analysis && !report_run_has_findings(run))
			continue;
		fputc('\n', t->f);
		print_run_short_header(t, run);
		print_link_short(t, run);
		if (!run->analysis) {
			text_print_failed_run(t, run);
			continue;
		}
		for (size_t k = 0; k < run->analysis->n_findings; k++) {
			char id[REPORT_FINDING_SHORT_ID_LEN];
			report_finding_short_id(run, k, id);
			print_finding_short(t, &run->analysis->findings[k], true, id,
					    report_source_note(run, &run->analysis->findings[k]));
		}
	}
	text_print_payloads(t, r);
	fputc('\n', t->f);
	text_print_summary(t, r);
}

int render_text(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	struct text_out t = {.f = out, .width = o && o->width >= 40 ? (size_t)o->width : 80};
	if (o)
		t.o = *o;
	for (size_t i = 0; i < ESC_SLOTS; i++)
		buf_init(&t.slot[i], 0);

	enum report_view view = o ? o->view : REPORT_SHORT;
	if (r->n_runs == 0) {
		fprintf(out, "No runs to audit.\n");
		text_print_notes(&t, r);
		fputc('\n', out);
		text_print_summary(&t, r);
	} else if (view == REPORT_FULL) {
		text_render_full(&t, r);
	} else if (view == REPORT_FINDINGS) {
		render_findings_only(&t, r);
	} else {
		render_short(&t, r, o && o->all_runs);
	}

	for (size_t i = 0; i < ESC_SLOTS; i++)
		buf_finish(&t.slot[i]);
	if (t.oom)
		return err_oom(e);
	if (ferror(out))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}
