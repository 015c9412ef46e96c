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

/* The wording of a fold in the text views (issue 19). */
/* "29 alike", "5 alike in 3 runs"; nothing for one finding. */
int report_fold_count(struct buf *out, const struct report_fold *g);
/* The fold's other first runs of r (the first is the line's own): "also
 * b, c, ..."; nothing when it is in one run. */
int report_fold_runs(struct buf *out, const struct report *r, const struct report_fold *g);

/* The second line of a suspect. */
/* When the finding's attempt ran: "attempt 1 2026-09-14 10:00:00-10:00:02Z"
 * (UTC, or local with its offset); nothing when the finding names no
 * attempt or its times are not times. */
int report_finding_when(struct buf *out, const struct finding *f, bool local);
/* The gap before the attempt after it: "attempt 2 ran 5.1s later"; nothing
 * when there is none or a time is missing. */
int report_finding_next(struct buf *out, const struct finding *f);
/* The failed attempt's error: its message, after its type only where the
 * type tells something (analysis_error_type_tells); nothing when the
 * finding names no failed attempt. Not escaped: server text. */
int report_finding_error(struct buf *out, const struct finding *f);
