/* The report the pipeline fills and the renderers print: ownership, the
 * summary counts, and the dispatch to one renderer per format. */
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_init(struct report *r)
{
	memset(r, 0, sizeof *r);
}

static void report_run_finish(struct report_run *run)
{
	free(run->app_id);
	free(run->run_id);
	free(run->project);
	free(run->console_link);
	free(run->link_note);
	free(run->source);
	free(run->parent_run_id);
	/* The analysis borrows strings from the log: it goes first. */
	analysis_free(run->analysis);
	event_log_free(run->log);
	free(run->failure);
	free(run->refusal_kind);
	free(run->refusal_instruction);
	memset(run, 0, sizeof *run);
}

void report_finish(struct report *r)
{
	for (size_t i = 0; i < r->n_runs; i++)
		report_run_finish(&r->runs[i]);
	free(r->runs);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	memset(r, 0, sizeof *r);
}

struct report_run *report_add_run(struct report *r)
{
	/* Doubled when full (the capacity is the next power of two): `runs`
	 * adds runs one at a time, 50,000 of them at most, and growing by one
	 * copied the array each time. */
	size_t n = r->n_runs;
	if ((n & (n - 1)) == 0) {
		size_t cap = n ? n * 2 : 1;
		struct report_run *runs = realloc(r->runs, cap * sizeof *runs);
		if (!runs)
			return NULL;
		r->runs = runs;
	}
	struct report_run *runs = r->runs;
	struct report_run *run = &runs[r->n_runs++];
	memset(run, 0, sizeof *run);
	return run;
}

int report_add_note(struct report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *note = NULL;
	int n = vasprintf(&note, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	char **notes = realloc(r->notes, (r->n_notes + 1) * sizeof *notes);
	if (!notes) {
		free(note);
		return -1;
	}
	r->notes = notes;
	r->notes[r->n_notes++] = note;
	return 0;
}

void report_summarize(struct report *r)
{
	r->n_activities = r->n_reexecuted = r->n_findings = r->n_suspect = r->n_failed_runs = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		struct report_run *run = &r->runs[i];
		const struct analysis *a = run->analysis;
		run->n_activities = run->n_reexecuted = run->n_findings = run->n_suspect = 0;
		if (!a) {
			r->n_failed_runs++;
			continue;
		}
		run->n_activities = a->n_invocations;
		for (size_t k = 0; k < a->n_invocations; k++)
			if (a->invocations[k].n_attempts > 1)
				run->n_reexecuted++;
		run->n_findings = a->n_findings;
		for (size_t k = 0; k < a->n_findings; k++)
			if (a->findings[k].severity == SEVERITY_SUSPECT)
				run->n_suspect++;
		r->n_activities += run->n_activities;
		r->n_reexecuted += run->n_reexecuted;
		r->n_findings += run->n_findings;
		r->n_suspect += run->n_suspect;
	}
}

int render_report(FILE *out, enum render_format f, const struct report *r, const struct render_options *o,
		  struct err *e)
{
	switch (f) {
	case FORMAT_TEXT:
		return render_text(out, r, o, e);
	case FORMAT_JSON:
		return render_json(out, r, o, e);
	case FORMAT_MARKDOWN:
		return render_markdown(out, r, o, e);
	case FORMAT_JSONL:
		/* The CLI accepts it; its renderer is still to come. */
		return err_set(e, ERR_USAGE, "--format jsonl: not available yet");
	}
	return err_set(e, ERR_INTERNAL, "unknown output format %d", (int)f);
}

const char *report_run_workflow(const struct report_run *run)
{
	if (run->analysis && run->analysis->workflow)
		return run->analysis->workflow;
	const struct event_run_info *info = run->log ? event_log_run_info(run->log) : NULL;
	return info ? info->workflow_name : NULL;
}

const char *report_run_status(const struct report_run *run)
{
	if (run->analysis && run->analysis->status)
		return run->analysis->status;
	const struct event_run_info *info = run->log ? event_log_run_info(run->log) : NULL;
	return info ? info->runtime_status : NULL;
}

static bool same(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

long report_withheld_groups(const struct analysis *a, struct report_withheld_group **out)
{
	struct report_withheld_group *g = NULL;
	size_t n = 0;
	*out = NULL;
	for (size_t i = 0; i < a->n_withheld; i++) {
		const struct withheld *w = &a->withheld[i];
		size_t k;
		/* A handful of (field, type) pairs exist: a linear look-up. */
		for (k = 0; k < n; k++)
			if (same(g[k].field, withheld_field_name(w->field)) &&
			    same(g[k].event_type, withheld_event_type(w)))
				break;
		if (k == n) {
			struct report_withheld_group *more = realloc(g, (n + 1) * sizeof *g);
			if (!more) {
				free(g);
				return -1;
			}
			g = more;
			memset(&g[n], 0, sizeof g[n]);
			g[n].field = withheld_field_name(w->field);
			g[n].event_type = withheld_event_type(w);
			n++;
		}
		g[k].count++;
		if (w->event_id >= 0 && g[k].n_ids < REPORT_WITHHELD_IDS)
			g[k].ids[g[k].n_ids++] = w->event_id;
	}
	*out = g;
	return (long)n;
}
