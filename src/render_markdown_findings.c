/* The Markdown report's findings: the verdict over every run, each run's
 * findings in a line or a list item with its evidence. */
#include <stdlib.h>

#include "report_fold.h"
#include "render_markdown_internal.h"

void md_findings(struct md_out *m, const struct report_run *run)
{
	const struct analysis *a = run->analysis;
	fprintf(m->f, "\n#### Findings\n\n");
	if (a->n_findings == 0) {
		fprintf(m->f, "None: this history shows no activity executed more than once (it cannot show "
			      "everything: see the limits below).\n");
		return;
	}
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *f = &a->findings[i];
		fprintf(m->f, "- **%s** `%s`", severity_name(f->severity), finding_kind_id(f->kind));
		if (f->activity)
			fprintf(m->f, ", %s", md(m, f->activity, ESCAPE_MD_INLINE, 0));
		if (f->task_execution_id && *f->task_execution_id)
			fprintf(m->f, " (execution %s)", md(m, f->task_execution_id, ESCAPE_MD_INLINE, 0));
		if (f->n_evidence) {
			fprintf(m->f, ". Evidence: event%s ", f->n_evidence == 1 ? "" : "s");
			md_ids(m, f->evidence_event_ids, f->n_evidence);
		}
		fprintf(m->f, ".");
		struct buf msg;
		buf_init(&msg, 0);
		if (analysis_finding_message(f, &msg) < 0)
			m->oom = true;
		else if (msg.len)
			fprintf(m->f, " %s", md(m, msg.data, ESCAPE_MD_INLINE, 0));
		buf_finish(&msg);
		const char *note = report_source_note(run, f);
		if (note)
			fprintf(m->f, "\n  Source: %s", md(m, note, ESCAPE_MD_INLINE, 0));
		fputc('\n', m->f);
	}
}

/* The verdict, then the suspect findings folded across runs (report_fold.h):
 * one line per kind of finding on one activity of one app, with the first
 * runs named and linked to their sections. */
void md_verdict(struct md_out *m, const struct report *r, bool list_suspects)
{
	bool one = r->n_runs == 1;
	struct buf b;
	buf_init(&b, 0);
	if (report_verdict_sentence(&b, r, true) < 0)
		m->oom = true;
	else
		fprintf(m->f, "**Verdict: %s.** %s", report_verdict(r), b.data);
	buf_finish(&b);
	fputc('\n', m->f);
	if (!list_suspects || !r->n_suspect)
		return;
	struct report_fold *v;
	long n = report_fold_findings(r, SEVERITY_SUSPECT, &v);
	if (n < 0) {
		m->oom = true;
		return;
	}
	fputc('\n', m->f);
	for (long i = 0; i < n && i < MD_VERDICT_LINES; i++) {
		const struct report_fold *g = &v[i];
		fprintf(m->f, "- %s `%s`", g->activity ? md(m, g->activity, ESCAPE_MD_INLINE, MD_NAME_MAX) : "-",
			finding_kind_id(g->kind));
		if (one) {
			if (g->first->task_execution_id && *g->first->task_execution_id)
				fprintf(m->f, ", execution %s",
					md(m, g->first->task_execution_id, ESCAPE_MD_INLINE, 0));
			if (m->shown && m->shown[0])
				fprintf(m->f, " ([details](#run-1))");
			const char *note = report_source_note(&r->runs[g->runs[0]], g->first);
			if (note)
				fprintf(m->f, "\n  Source: %s", md(m, note, ESCAPE_MD_INLINE, 0));
			fputc('\n', m->f);
			continue;
		}
		fprintf(m->f, " (app %s) in ",
			md(m, g->app_id ? g->app_id : "unknown", ESCAPE_MD_INLINE, MD_NAME_MAX));
		if (g->n_runs > 1)
			fprintf(m->f, "%zu runs: ", g->n_runs);
		size_t named = g->n_runs < REPORT_FOLD_RUNS ? g->n_runs : REPORT_FOLD_RUNS;
		for (size_t k = 0; k < named; k++) {
			fputs(k ? ", " : "", m->f);
			md_run_ref(m, r, &r->runs[g->runs[k]], ESCAPE_MD_INLINE, MD_NAME_MAX);
		}
		if (g->n_runs > named)
			fprintf(m->f, " and %zu more", g->n_runs - named);
		fputc('\n', m->f);
	}
	if (n > MD_VERDICT_LINES)
		fprintf(m->f, "- and %ld more kinds of suspect finding: see the runs below and `--format json`\n",
			n - MD_VERDICT_LINES);
	free(v);
}

/* A finding in at most two lines: severity, kind, activity, execution and
 * evidence (and how many more like it the run has, when `more`; its short
 * id, when given); then (unless one_line) its summary, cut to
 * MD_SUMMARY_MAX. */
static void md_finding_line(struct md_out *m, const struct finding *f, bool one_line, size_t more,
			    const char *short_id, const char *source)
{
	fprintf(m->f, "- **%s** `%s`", severity_name(f->severity), finding_kind_id(f->kind));
	if (f->activity)
		fprintf(m->f, ", %s", md(m, f->activity, ESCAPE_MD_INLINE, 0));
	if (f->task_execution_id && *f->task_execution_id)
		fprintf(m->f, " (execution %s)", md(m, f->task_execution_id, ESCAPE_MD_INLINE, 0));
	if (f->n_evidence || f->n_evidence_event_indexes) {
		struct buf ev;
		buf_init(&ev, 0);
		if (report_evidence(&ev, f, false) < 0)
			m->oom = true;
		else
			fprintf(m->f, ", %s", ev.data);
		buf_finish(&ev);
	}
	if (more)
		fprintf(m->f, "; %zu more like it in this run (`--verbose-report` lists each)", more);
	if (short_id) /* --findings-only: the id a baseline or a ticket names */
		fprintf(m->f, ", id `%s`", short_id);
	if (!one_line) {
		struct buf sum;
		buf_init(&sum, 0);
		const char *summary;
		if (analysis_finding_summary(f, &sum, &summary) < 0)
			m->oom = true;
		if (summary && *summary)
			fprintf(m->f, ":\n  %s", md(m, summary, ESCAPE_MD_INLINE, MD_SUMMARY_MAX));
		buf_finish(&sum);
	}
	if (source)
		fprintf(m->f, "\n  Source: %s", md(m, source, ESCAPE_MD_INLINE, 0));
	fprintf(m->f, "\n");
}

void md_finding_short(struct md_out *m, const struct finding *f, bool one_line, const char *short_id,
		      const char *source)
{
	md_finding_line(m, f, one_line, 0, short_id, source);
}

/* A run's findings, the same kind on the same activity folded into its
 * first one with a count (report_fold.h over this run alone): a bulk run
 * with 29 identical retries is two lines, not 58. */
void md_run_findings(struct md_out *m, const struct report_run *run)
{
	struct report one = {.runs = (struct report_run *)run, .n_runs = 1};
	struct report_fold *v;
	long n = report_fold_findings(&one, SEVERITY_NOTICE, &v);
	if (n < 0) {
		m->oom = true;
		return;
	}
	for (long i = 0; i < n; i++)
		md_finding_line(m, v[i].first, false, v[i].n_findings - 1, NULL,
				report_source_note(run, v[i].first));
	free(v);
}
