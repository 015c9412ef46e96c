#pragma once
/* Identical findings across runs folded into one line: the same kind of
 * finding on the same activity of the same app, counted, with the first
 * runs named. What a report of hundreds of runs prints instead of one line
 * per run (text and Markdown share it; renderers only format it). */

#include <stddef.h>

#include "report.h"

#define REPORT_FOLD_RUNS 3 /* runs named per folded line */

struct report_fold {
	enum finding_kind kind;
	enum severity severity;
	const char *app_id;            /* borrowed; NULL when unknown */
	const char *activity;          /* borrowed; NULL (an orphan timer) */
	const struct finding *first;   /* the first such finding, for its execution id and summary */
	size_t n_runs;                 /* runs with at least one such finding */
	size_t n_findings;             /* such findings in all */
	size_t runs[REPORT_FOLD_RUNS]; /* indexes into report.runs of the first min(n_runs, 3) runs */
	size_t last_run;               /* index + 1 of the latest run counted (internal) */
};

/* The folded findings of severity min_severity or above, in the order
 * their first finding comes in the report: a malloc'd array in *out and
 * its length, or -1 when memory ran out. */
long report_fold_findings(const struct report *r, enum severity min_severity, struct report_fold **out);
