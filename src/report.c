/* The report the pipeline fills and the renderers print: ownership, the
 * summary counts, what the renderers word alike, and the dispatch to one
 * renderer per format. */
#include "report.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_init(struct report *r)
{
	memset(r, 0, sizeof *r);
}

void report_run_finish(struct report_run *run)
{
	free(run->app_id);
	free(run->run_id);
	free(run->project);
	free(run->console_link);
	free(run->link_note);
	free(run->source);
	free(run->finding_ids);
	free(run->known);
	for (size_t k = 0; run->source_notes && run->analysis && k < run->analysis->n_findings; k++)
		free(run->source_notes[k]);
	free(run->source_notes);
	free(run->ended_at);
	free(run->updated_at);
	free(run->parent_run_id);
	free(run->rerun_of);
	free(run->rerun_of_link);
	free(run->rerun_of_note);
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

void report_analysis_counts(const struct analysis *a, size_t *reexecuted, size_t *suspect)
{
	*reexecuted = *suspect = 0;
	for (size_t k = 0; k < a->n_invocations; k++)
		*reexecuted += a->invocations[k].n_attempts > 1;
	for (size_t k = 0; k < a->n_findings; k++)
		*suspect += a->findings[k].severity == SEVERITY_SUSPECT;
}

void report_summarize(struct report *r)
{
	r->n_activities = r->n_reexecuted = r->n_findings = r->n_suspect = r->n_failed_runs = 0;
	r->n_finding_runs = r->n_suspect_runs = 0;
	r->n_known = r->n_known_suspect = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		struct report_run *run = &r->runs[i];
		const struct analysis *a = run->analysis;
		run->n_activities = run->n_reexecuted = run->n_findings = run->n_suspect = 0;
		if (!a) {
			r->n_failed_runs++;
			continue;
		}
		run->n_activities = a->n_invocations;
		run->n_findings = a->n_findings;
		report_analysis_counts(a, &run->n_reexecuted, &run->n_suspect);
		run->n_known = run->n_known_suspect = 0;
		for (size_t k = 0; run->known && k < a->n_findings; k++) {
			run->n_known += run->known[k];
			run->n_known_suspect += run->known[k] && a->findings[k].severity == SEVERITY_SUSPECT;
		}
		r->n_known += run->n_known;
		r->n_known_suspect += run->n_known_suspect;
		r->n_activities += run->n_activities;
		r->n_reexecuted += run->n_reexecuted;
		r->n_findings += run->n_findings;
		r->n_suspect += run->n_suspect;
		r->n_finding_runs += run->n_findings > 0;
		r->n_suspect_runs += run->n_suspect > 0;
	}
}

/* FNV-1a, 64 bits: stable across builds and machines, which is all an id
 * needs (it guards against no adversary: a report is the user's own). */
static void fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= 0x100000001b3ULL;
	}
}

/* A field with its length first, so that ("ab", "c") and ("a", "bc")
 * differ; an absent one is not an empty one. */
static void fnv_str(uint64_t *h, const char *s)
{
	uint64_t n = s ? (uint64_t)strlen(s) : UINT64_MAX;
	fnv(h, &n, sizeof n);
	if (s)
		fnv(h, s, (size_t)n);
}

_Static_assert(REPORT_FINDING_ID_LEN == 19, "an id is f-, sixteen hex digits and a NUL");

void report_finding_id(const struct report_run *run, const struct finding *f, char out[REPORT_FINDING_ID_LEN])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	fnv_str(&h, finding_kind_id(f->kind));
	fnv_str(&h, run->project);
	fnv_str(&h, run->app_id);
	fnv_str(&h, run->run_id);
	fnv_str(&h, f->activity);
	fnv_str(&h, f->task_execution_id);
	for (size_t i = 0; i < f->n_evidence; i++) {
		int64_t v = f->evidence_event_ids[i];
		fnv(&h, &v, sizeof v);
	}
	uint64_t sep = UINT64_MAX;
	fnv(&h, &sep, sizeof sep);
	for (size_t i = 0; i < f->n_evidence_event_indexes; i++) {
		uint64_t v = f->evidence_event_indexes[i];
		fnv(&h, &v, sizeof v);
	}
	/* "f-%016" PRIx64, without snprintf: a large report names tens of
	 * thousands of findings, and the call was half of this function. */
	static const char hex[] = "0123456789abcdef";
	out[0] = 'f';
	out[1] = '-';
	for (int i = 0; i < 16; i++)
		out[2 + i] = hex[(h >> (60 - 4 * i)) & 15];
	out[18] = '\0';
}

void report_finding_short_id(const struct report_run *run, size_t k, char out[REPORT_FINDING_SHORT_ID_LEN])
{
	char id[REPORT_FINDING_ID_LEN];
	if (run->finding_ids)
		memcpy(id, run->finding_ids[k], sizeof id);
	else
		report_finding_id(run, &run->analysis->findings[k], id);
	snprintf(out, REPORT_FINDING_SHORT_ID_LEN, "%.9s", id);
}

int report_mark_known(struct report_run *run, const json_t *baseline_ids)
{
	const struct analysis *a = run->analysis;
	if (!a || !a->n_findings)
		return 0;
	free(run->finding_ids);
	free(run->known);
	run->finding_ids = NULL;
	run->known = NULL;
	/* Without a baseline every finding is new, and the ids are made where
	 * they are written (by the JSON report's two threads): here they were
	 * a twentieth of `file`'s wall time on 28,000 findings, on one. */
	if (!baseline_ids)
		return 0;
	run->finding_ids = calloc(a->n_findings, sizeof *run->finding_ids);
	run->known = calloc(a->n_findings, sizeof *run->known);
	if (!run->finding_ids || !run->known)
		return -1;
	for (size_t k = 0; k < a->n_findings; k++) {
		report_finding_id(run, &a->findings[k], run->finding_ids[k]);
		run->known[k] = json_object_get(baseline_ids, run->finding_ids[k]) != NULL;
	}
	return 0;
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

/* The lists below (withheld groups, remedies, limits) hold a handful of
 * distinct items: v with room for one more after its n, grown one at a
 * time; NULL, and v freed, when memory ran out. */
static void *room_for_one(void *v, size_t n, size_t size)
{
	void *more = realloc(v, (n + 1) * size);
	if (!more)
		free(v);
	return more;
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
			if (!(g = room_for_one(g, n, sizeof *g)))
				return -1;
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

long report_remedies(const struct report *r, struct report_remedy **out)
{
	struct report_remedy *v = NULL;
	size_t n = 0;
	*out = NULL;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct analysis *a = r->runs[i].analysis;
		for (size_t k = 0; a && k < a->n_findings; k++) {
			const struct finding *f = &a->findings[k];
			if (!f->remedy)
				continue;
			size_t j = 0;
			/* A dozen remedies exist: a linear look-up. */
			while (j < n && strcmp(v[j].remedy, f->remedy) != 0)
				j++;
			if (j == n) {
				if (!(v = room_for_one(v, n, sizeof *v)))
					return -1;
				v[n++] = (struct report_remedy){.remedy = f->remedy};
			}
			v[j].kinds |= 1u << f->kind;
			v[j].n_findings++;
		}
	}
	*out = v;
	return (long)n;
}

long report_common_limits(const struct report *r, const char ***out)
{
	const char **v = NULL;
	size_t n = 0;
	*out = NULL;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct analysis *a = r->runs[i].analysis;
		for (size_t k = 0; a && k < a->n_limits; k++) {
			if (a->limit_specific && a->limit_specific[k])
				continue;
			size_t j = 0;
			while (j < n && strcmp(v[j], a->limits[k]) != 0)
				j++;
			if (j < n)
				continue;
			if (!(v = room_for_one(v, n, sizeof *v)))
				return -1;
			v[n++] = a->limits[k];
		}
	}
	*out = v;
	return (long)n;
}

bool report_run_has_findings(const struct report_run *run)
{
	return run->analysis && run->analysis->n_findings > 0;
}

size_t report_unshown_specific_limits(const struct report *r, bool findings_have_sections, size_t *n_runs)
{
	size_t n = 0;
	*n_runs = 0;
	for (size_t k = 0; k < r->n_runs; k++) {
		const struct analysis *a = r->runs[k].analysis;
		if (!a || (findings_have_sections && report_run_has_findings(&r->runs[k])) || !a->limit_specific)
			continue;
		size_t before = n;
		for (size_t i = 0; i < a->n_limits; i++)
			n += a->limit_specific[i];
		*n_runs += n > before;
	}
	return n;
}

const char *report_verdict(const struct report *r)
{
	return r->n_suspect ? "SUSPECT" : r->n_findings ? "NOTICE" : r->n_failed_runs ? "INCOMPLETE" : "CLEAN";
}

int report_verdict_sentence(struct buf *out, const struct report *r, bool capital)
{
	bool one = r->n_runs == 1;
	size_t n_notice = r->n_findings - r->n_suspect;
	int rc = 0; /* -1 once any append fails */
	if (r->n_suspect) {
		rc |= buf_printf(out, NULL, "%zu suspect finding%s", r->n_suspect, r->n_suspect == 1 ? "" : "s");
		if (!one)
			rc |= buf_printf(out, NULL, " in %zu of %zu runs", r->n_suspect_runs, r->n_runs);
		if (n_notice)
			rc |= buf_printf(out, NULL, ", and %zu notice%s", n_notice, n_notice == 1 ? "" : "s");
		rc |= buf_printf(out, NULL, ".");
	} else if (r->n_findings) {
		rc |= buf_printf(out, NULL, "%zu notice%s", r->n_findings, r->n_findings == 1 ? "" : "s");
		if (!one)
			rc |= buf_printf(out, NULL, " in %zu of %zu runs", r->n_finding_runs, r->n_runs);
		rc |= buf_printf(out, NULL, ": retries happened, none suspect.");
	} else if (r->n_runs > r->n_failed_runs) {
		rc |= buf_printf(out, NULL, "%s activity in %s is shown to have run more than once.",
				 capital ? "No" : "no", one ? "this run" : "these runs");
	} else {
		rc |= buf_printf(out, NULL, "%s was audited.", capital ? "Nothing" : "nothing");
	}
	if (r->n_failed_runs && r->n_runs > r->n_failed_runs)
		rc |= buf_printf(out, NULL, " %zu run%s could not be audited.", r->n_failed_runs,
				 r->n_failed_runs == 1 ? "" : "s");
	return rc;
}

int report_summary_sentence(struct buf *out, const struct report *r)
{
	int rc = buf_printf(out, NULL, "%zu run%s, %zu activit%s, %zu re-executed, %zu finding%s (%zu suspect)",
			    r->n_runs, r->n_runs == 1 ? "" : "s", r->n_activities,
			    r->n_activities == 1 ? "y" : "ies", r->n_reexecuted, r->n_findings,
			    r->n_findings == 1 ? "" : "s", r->n_suspect);
	if (r->n_failed_runs)
		rc |= buf_printf(out, NULL, ", %zu run%s not audited", r->n_failed_runs,
				 r->n_failed_runs == 1 ? "" : "s");
	rc |= buf_printf(out, NULL, ".");
	/* Against --baseline: what --fail-on counts, and what it leaves. */
	if (r->meta.baseline)
		rc |= buf_printf(out, NULL, " Against the baseline: %zu new (%zu suspect), %zu known.",
				 r->n_findings - r->n_known, r->n_suspect - r->n_known_suspect, r->n_known);
	return rc;
}

/* "event 3" or "events 3, 5": the ids after their word, one or many. */
static int id_list(struct buf *out, const int64_t *ids, size_t n, const char *one, const char *many)
{
	int rc = 0;
	for (size_t k = 0; k < n; k++)
		rc |= buf_printf(out, NULL, "%s%" PRId64, k ? ", " : n == 1 ? one : many, ids[k]);
	return rc;
}

int report_evidence(struct buf *out, const struct finding *f, bool positions)
{
	int rc = id_list(out, f->evidence_event_ids, f->n_evidence, "event ", "events ");
	if (f->n_evidence && !positions)
		return rc;
	for (size_t k = 0; k < f->n_evidence_event_indexes; k++)
		rc |= buf_printf(out, NULL, "%s%zu",
				 k               ? ", "
				 : f->n_evidence ? "; history positions "
						 : "history positions ",
				 (size_t)f->evidence_event_indexes[k]);
	return rc;
}

int report_withheld_ids(struct buf *out, const struct report_withheld_group *g)
{
	int rc = id_list(out, g->ids, g->n_ids, " (event ", " (events ");
	if (g->n_ids)
		rc |= buf_printf(out, NULL, "%s)", g->n_ids < g->count ? ", ..." : "");
	return rc;
}

bool report_time_minute(const char *ts, char *out, size_t size)
{
	bool iso = strlen(ts) >= 16 && ts[4] == '-' && ts[7] == '-' && (ts[10] == 'T' || ts[10] == ' ') &&
		   ts[13] == ':';
	for (size_t i = 0; iso && i < 16; i++)
		if (i != 4 && i != 7 && i != 10 && i != 13 && (ts[i] < '0' || ts[i] > '9'))
			iso = false;
	if (iso)
		snprintf(out, size, "%.10s %.5s", ts, ts + 11);
	return iso;
}
