#pragma once
/* Inside the Markdown report (render_markdown*.c only): the writer's state,
 * the bounds GitHub sets, and what the files call of each other. The
 * document and its fit within MD_LIMIT are render_markdown.c's; the header,
 * context and timeline render_markdown_header.c's; the runs, their attempts
 * and payloads render_markdown_runs.c's; the findings and the verdict
 * render_markdown_findings.c's. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "escape.h"
#include "render.h"
#include "report.h"
#include "report_timeline.h"

#define MD_SLOTS 6
#define MD_CELL_MAX 200    /* characters of an error message in a list under a table */
#define MD_SUMMARY_MAX 160 /* characters of a finding's summary in the short view */
#define MD_LIMIT 65536     /* GitHub's limit for an issue or comment, in characters; we count bytes */
#define MD_RESERVE 1024    /* for the fold note, measured before it is written */
#define MD_TIMELINES 5     /* runs drawn as a gantt chart */
#define MD_CHART_ACTIVITIES 3
#define MD_CHART_ATTEMPTS 6
#define MD_TABLE_ROWS 12       /* attempt rows of one run in the short view */
#define MD_VERDICT_LINES 10    /* folded suspect lines under the verdict */
#define MD_DETAILS_RUNS 200    /* run ids listed in the fold's <details> */
#define MD_UNCHARTED_NAMED 10  /* suspect runs without a chart, named */
#define MD_NAME_MAX 80         /* code points of a name in the verdict and the fold note: they bound its size */
#define MD_PAYLOAD_RUNS 5      /* runs whose payloads --show-payloads lists */
#define MD_PAYLOAD_ATTEMPTS 12 /* attempts listed per run: each payload may be EVENT_PAYLOAD_TEXT_MAX bytes */

struct md_out {
	FILE *f;
	struct buf slot[MD_SLOTS];
	size_t next_slot;
	bool oom;
	struct render_options o; /* as given: a new option is read as m->o.<name> */
	const bool *shown;       /* per run: its section is in the document (anchor run-N) */
	const bool *charts;      /* per run: its gantt chart is drawn */
};

/* s cut to max code points (0: whole) and escaped for ctx; "" for NULL.
 * Valid until MD_SLOTS more calls. */
const char *md(struct md_out *m, const char *s, enum escape_md_context ctx, size_t max);

/* render_markdown.c */
void md_ids(struct md_out *m, const int64_t *ids, size_t n);
void md_row(struct md_out *m, const char *label, const char *value);

/* render_markdown_header.c */
void md_header(struct md_out *m, const struct report_run *run);
const char *md_time(struct md_out *m, const char *ts, enum report_time_form form);
void md_chart(struct md_out *m, const struct report_run *run);
void md_notes(struct md_out *m, const struct report *r);
void md_head(struct md_out *m, const struct report *r, enum report_view view);
void md_tail(struct md_out *m, const struct report *r, bool all);

/* render_markdown_runs.c */
void md_withheld(struct md_out *m, const struct analysis *a);
void md_limits(struct md_out *m, const struct analysis *a);
void md_failed(struct md_out *m, const struct report_run *run);
void md_run_ref(struct md_out *m, const struct report *r, const struct report_run *run, enum escape_md_context ctx,
		size_t max);
const char *md_outcome(const struct attempt *at);
void md_attempts(struct md_out *m, const struct analysis *a, bool all);
void md_overview_row(struct md_out *m, const struct report *r, const struct report_run *run);
void md_overview_head(struct md_out *m);
void md_overview_failed(struct md_out *m, const struct report *r, const bool *rows);
void md_anchor(struct md_out *m, const struct report *r, const struct report_run *run);
void md_run_short(struct md_out *m, const struct report *r, const struct report_run *run, bool own_limits);
void md_payloads(struct md_out *m, const struct report *r);

/* render_markdown_findings.c */
void md_findings(struct md_out *m, const struct report_run *run);
void md_verdict(struct md_out *m, const struct report *r, bool list_suspects);
void md_finding_short(struct md_out *m, const struct finding *f, bool one_line, const char *short_id,
		      const char *source);
void md_run_findings(struct md_out *m, const struct report_run *run);
