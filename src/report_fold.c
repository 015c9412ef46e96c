/* Identical findings across runs as one line (include/report_fold.h). A
 * report of 426 runs of one workflow has the same finding in most of them:
 * one line with a count says it, and names the first runs to open. */
#include "report_fold.h"

#include "report_timeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fold_hash(enum finding_kind k, const char *app, const char *activity)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)k; /* FNV-1a */
	for (const char *s = app ? app : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull; /* app "ab" + activity "c" differs from "a" + "bc" */
	for (const char *s = activity ? activity : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

long report_fold_findings(const struct report *r, enum severity min_severity, struct report_fold **out)
{
	*out = NULL;
	size_t n = 0, cap = 0;
	struct report_fold *v = NULL;
	/* An open-addressed table of indexes into v (+1; 0: free), kept at most
	 * half full: a report of many distinct findings stays linear. */
	size_t slots = 0;
	size_t *table = NULL;
	for (size_t ri = 0; ri < r->n_runs; ri++) {
		const struct report_run *run = &r->runs[ri];
		const struct analysis *a = run->analysis;
		for (size_t fi = 0; a && fi < a->n_findings; fi++) {
			const struct finding *f = &a->findings[fi];
			if (f->severity < min_severity)
				continue;
			if (2 * (n + 1) > slots) {
				size_t ns = slots ? 2 * slots : 64;
				size_t *nt = calloc(ns, sizeof *nt);
				if (!nt)
					goto oom;
				for (size_t i = 0; i < n; i++) {
					size_t h = fold_hash(v[i].kind, v[i].app_id, v[i].activity) & (ns - 1);
					while (nt[h])
						h = (h + 1) & (ns - 1);
					nt[h] = i + 1;
				}
				free(table);
				table = nt;
				slots = ns;
			}
			size_t h = fold_hash(f->kind, run->app_id, f->activity) & (slots - 1);
			struct report_fold *g = NULL;
			while (table[h]) {
				struct report_fold *c = &v[table[h] - 1];
				if (c->kind == f->kind && same(c->app_id, run->app_id) &&
				    same(c->activity, f->activity)) {
					g = c;
					break;
				}
				h = (h + 1) & (slots - 1);
			}
			if (!g) {
				if (n == cap) {
					size_t nc = cap ? 2 * cap : 16;
					struct report_fold *nv = realloc(v, nc * sizeof *nv);
					if (!nv)
						goto oom;
					v = nv;
					cap = nc;
				}
				g = &v[n];
				memset(g, 0, sizeof *g);
				g->kind = f->kind;
				g->severity = f->severity;
				g->app_id = run->app_id;
				g->activity = f->activity;
				g->first = f;
				table[h] = ++n;
			}
			g->n_findings++;
			if (g->last_run != ri + 1) { /* a run is counted once */
				if (g->n_runs < REPORT_FOLD_RUNS)
					g->runs[g->n_runs] = ri;
				g->n_runs++;
				g->last_run = ri + 1;
			}
		}
	}
	free(table);
	*out = v;
	return (long)n;
oom:
	free(table);
	free(v);
	return -1;
}

int report_fold_count(struct buf *out, const struct report_fold *g)
{
	if (g->n_findings < 2)
		return 0;
	int rc = buf_printf(out, NULL, "%zu alike", g->n_findings);
	if (g->n_runs > 1)
		rc |= buf_printf(out, NULL, " in %zu runs", g->n_runs);
	return rc;
}

int report_fold_runs(struct buf *out, const struct report *r, const struct report_fold *g)
{
	if (g->n_runs < 2)
		return 0;
	/* The first run is the line's own: the others after it. */
	int rc = buf_printf(out, NULL, "also ");
	size_t named = g->n_runs < REPORT_FOLD_RUNS ? g->n_runs : REPORT_FOLD_RUNS;
	for (size_t i = 1; i < named; i++) {
		const char *id = r->runs[g->runs[i]].run_id;
		rc |= buf_printf(out, NULL, "%s%s", i > 1 ? ", " : "", id ? id : "unknown");
	}
	return rc | buf_printf(out, NULL, "%s", g->n_runs > named ? ", ..." : "");
}

int report_finding_when(struct buf *out, const struct finding *f, bool local)
{
	const struct attempt *a = f->attempt;
	int64_t start, end;
	if (!a || !report_time_parse(a->scheduled_at, &start))
		return 0;
	char s1[48], s2[48];
	report_time_format_in(start, REPORT_TIME_SECONDS, local, s1, sizeof s1);
	if (a->outcome != OUTCOME_PENDING && report_time_parse(a->completed_at, &end)) {
		report_time_format_in(
			end, report_time_same_day(start, end, local) ? REPORT_TIME_HMS : REPORT_TIME_SECONDS,
			local, s2, sizeof s2);
		/* A range: the start without its zone (the end's says it), the end. */
		size_t zone = local ? 6 : 1;
		return buf_printf(out, NULL, "attempt %u %.*s-%s", (unsigned)f->attempt_no,
				  (int)(strlen(s1) - zone), s1, s2);
	}
	/* A pending attempt's summary says it has no result. */
	if (a->outcome == OUTCOME_PENDING)
		return buf_printf(out, NULL, "scheduled %s", s1);
	return buf_printf(out, NULL, "attempt %u %s", (unsigned)f->attempt_no, s1);
}

int report_finding_next(struct buf *out, const struct finding *f)
{
	const struct attempt *a = f->attempt;
	int64_t end, next;
	char gap[32];
	if (!a || !f->next || a->outcome == OUTCOME_PENDING || !report_time_parse(a->completed_at, &end) ||
	    !report_time_parse(f->next->scheduled_at, &next) || report_duration(next - end, gap, sizeof gap) < 0)
		return 0;
	return buf_printf(out, NULL, "attempt %u ran %s later", (unsigned)f->next_no, gap);
}

int report_finding_error(struct buf *out, const struct finding *f)
{
	const struct attempt *a = f->attempt;
	if (!a || a->outcome != OUTCOME_FAILED)
		return 0;
	const char *et = attempt_more(a)->error_type, *em = attempt_more(a)->error_message;
	bool type = et && analysis_error_type_tells(et, em);
	bool msg = em && *em;
	int rc = 0;
	if (type)
		rc |= buf_printf(out, NULL, "%s%s", et, msg ? ": " : "");
	if (msg)
		rc |= buf_printf(out, NULL, "%s", em);
	else if (!type)
		rc |= buf_printf(out, NULL, "(no message)");
	return rc;
}
