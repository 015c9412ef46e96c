/* Suspect findings folded for the short views (issue 19): findings of one
 * app, activity and kind are one line with a count and the first runs
 * named, so a run with thirty identical retries, or thirty runs of one
 * failing activity, leave the verdict on screen. Text builds on it today;
 * Markdown's short view can take the same folds. Also the second line of a
 * suspect: the failed attempt's times, the gap before the next, and its
 * message. */
#include "report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (h ^ 0xff) * 1099511628211u; /* a separator, so "ab"+"c" differs from "a"+"bc" */
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_fold(const struct report_fold *g, const struct report_run *run, const struct finding *f)
{
	return g->finding->kind == f->kind && same_str(g->finding->activity, f->activity) &&
	       same_str(g->run->app_id, run->app_id);
}

long report_fold_suspects(const struct report *r, struct report_fold **out)
{
	*out = NULL;
	size_t n_suspect = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct analysis *a = r->runs[i].analysis;
		for (size_t k = 0; a && k < a->n_findings; k++)
			n_suspect += a->findings[k].severity == SEVERITY_SUSPECT;
	}
	if (!n_suspect)
		return 0;
	/* An open-addressed table of fold numbers (+1; 0 is empty), at most
	 * half full: 28,000 findings of one bulk run fold in one pass. */
	size_t cap = 16;
	while (cap < 2 * n_suspect)
		cap *= 2;
	size_t *slot = calloc(cap, sizeof *slot);
	struct report_fold *v = malloc(n_suspect * sizeof *v);
	if (!slot || !v) {
		free(slot);
		free(v);
		return -1;
	}
	size_t n = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		const struct analysis *a = run->analysis;
		for (size_t k = 0; a && k < a->n_findings; k++) {
			const struct finding *f = &a->findings[k];
			if (f->severity != SEVERITY_SUSPECT)
				continue;
			uint64_t h = fnv(fnv(fnv(14695981039346656037u, run->app_id), f->activity),
					 finding_kind_id(f->kind));
			size_t at = (size_t)h & (cap - 1);
			while (slot[at] && !same_fold(&v[slot[at] - 1], run, f))
				at = (at + 1) & (cap - 1);
			if (!slot[at]) {
				v[n] = (struct report_fold){.run = run, .finding = f};
				slot[at] = ++n;
			}
			struct report_fold *g = &v[slot[at] - 1];
			g->count++;
			/* Runs come in report order: a new one differs from the last. */
			if (g->n_runs == 0 || g->last_run != run) {
				if (g->n_runs < REPORT_FOLD_RUNS)
					g->runs[g->n_runs] = run;
				g->n_runs++;
				g->last_run = run;
			}
		}
	}
	free(slot);
	*out = v;
	return (long)n;
}

int report_fold_count(struct buf *out, const struct report_fold *g)
{
	if (g->count < 2)
		return 0;
	int rc = buf_printf(out, NULL, "%zu alike", g->count);
	if (g->n_runs > 1)
		rc |= buf_printf(out, NULL, " in %zu runs", g->n_runs);
	return rc;
}

int report_fold_runs(struct buf *out, const struct report_fold *g)
{
	if (g->n_runs < 2)
		return 0;
	/* The first run is the line's own: the others after it. */
	int rc = buf_printf(out, NULL, "also ");
	size_t named = g->n_runs < REPORT_FOLD_RUNS ? g->n_runs : REPORT_FOLD_RUNS;
	for (size_t i = 1; i < named; i++)
		rc |= buf_printf(out, NULL, "%s%s", i > 1 ? ", " : "",
				 g->runs[i]->run_id ? g->runs[i]->run_id : "unknown");
	return rc | buf_printf(out, NULL, "%s", g->n_runs > named ? ", ..." : "");
}

int report_finding_when(struct buf *out, const struct finding *f, bool local)
{
	const struct attempt *a = f->attempt;
	struct report_time start, end;
	if (!a || !report_time_parse(a->scheduled_at, &start))
		return 0;
	char s1[48], s2[48];
	int rc = 0;
	if (report_time_format(&start, REPORT_TIME_SECONDS, local, s1, sizeof s1) < 0)
		return 0;
	bool ended = a->outcome != OUTCOME_PENDING && report_time_parse(a->completed_at, &end);
	if (ended &&
	    report_time_format(&end,
			       report_time_same_day(&start, &end, local) ? REPORT_TIME_CLOCK : REPORT_TIME_SECONDS,
			       local, s2, sizeof s2) == 0) {
		/* A range: the start without its zone (the end's says it), the end. */
		size_t zone = local ? 6 : 1;
		rc |= buf_printf(out, NULL, "attempt %u %.*s-%s", (unsigned)f->attempt_no,
				 (int)(strlen(s1) - zone), s1, s2);
	} else {
		/* A pending attempt's summary says it has no result. */
		if (a->outcome == OUTCOME_PENDING)
			rc |= buf_printf(out, NULL, "scheduled %s", s1);
		else
			rc |= buf_printf(out, NULL, "attempt %u %s", (unsigned)f->attempt_no, s1);
	}
	return rc;
}

int report_finding_next(struct buf *out, const struct finding *f)
{
	const struct attempt *a = f->attempt;
	struct report_time end, next;
	char gap[32];
	if (!a || !f->next || a->outcome == OUTCOME_PENDING || !report_time_parse(a->completed_at, &end) ||
	    !report_time_parse(f->next->scheduled_at, &next) ||
	    report_duration(report_time_ms_between(&end, &next), gap, sizeof gap) < 0)
		return 0;
	return buf_printf(out, NULL, "attempt %u ran %s later", (unsigned)f->next_no, gap);
}

int report_finding_error(struct buf *out, const struct finding *f)
{
	const struct attempt *a = f->attempt;
	if (!a || a->outcome != OUTCOME_FAILED)
		return 0;
	bool type = analysis_error_type_tells(a->error_type, a->error_message);
	bool msg = a->error_message && *a->error_message;
	int rc = 0;
	if (type)
		rc |= buf_printf(out, NULL, "%s%s", a->error_type, msg ? ": " : "");
	if (msg)
		rc |= buf_printf(out, NULL, "%s", a->error_message);
	else if (!type)
		rc |= buf_printf(out, NULL, "(no message)");
	return rc;
}
