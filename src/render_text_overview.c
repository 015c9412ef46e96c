/* The text report's table of runs: one line per run, the columns that fit. */
#include <string.h>

#include "render_text_internal.h"

/* Run ids longer than this take a line of their own in the table, so one
 * long id does not push the other columns off the screen. */
#define RUN_COL_MAX 24

enum ov_col {
	OV_RUN,
	OV_APP,
	OV_WORKFLOW,
	OV_STARTED,
	OV_STATUS,
	OV_FINDINGS,
	OV_COLS
};

static const char *const ov_titles[OV_COLS] = {"run", "app", "workflow", "started", "status", "findings"};

/* "2026-09-14T11:30:00.040Z" as "2026-09-14 11:30" (or "09-14 11:30"
 * when short); anything else as it is. */
static const char *started_cell(struct text_out *t, const struct report_run *run, bool short_form, char *tmp,
				size_t size)
{
	const char *ts = run->analysis ? run->analysis->started_at : NULL;
	if (!ts)
		return "-";
	if (!report_time_minute(ts, tmp, size))
		return text_esc(t, ts, 40);
	return short_form ? tmp + strlen("2026-") : tmp;
}

const char *text_status_cell(struct text_out *t, const struct report_run *run)
{
	const char *status = report_run_status(run);
	if (status)
		return text_esc(t, status, 0);
	if (!run->analysis)
		return "-";
	return run->analysis->finished ? "unknown" : "not finished";
}

static const char *findings_cell(const struct report_run *run, char *tmp, size_t size)
{
	if (!run->analysis)
		return "not audited";
	if (!run->n_findings)
		return "-";
	if (run->n_suspect)
		snprintf(tmp, size, "%zu (%zu suspect)", run->n_findings, run->n_suspect);
	else
		snprintf(tmp, size, "%zu notice%s", run->n_findings, run->n_findings == 1 ? "" : "s");
	return tmp;
}

/* One cell of run's row, escaped (valid until the next few esc calls). */
static const char *ov_cell(struct text_out *t, const struct report_run *run, enum ov_col c, bool short_started,
			   char *tmp, size_t size)
{
	switch (c) {
	case OV_RUN:
		return run->run_id ? text_esc(t, run->run_id, 0) : "unknown";
	case OV_APP:
		return run->app_id ? text_esc(t, run->app_id, 0) : "unknown";
	case OV_WORKFLOW: {
		const char *wf = report_run_workflow(run);
		return wf ? text_esc(t, wf, 0) : "-";
	}
	case OV_STARTED:
		return started_cell(t, run, short_started, tmp, size);
	case OV_STATUS:
		return text_status_cell(t, run);
	case OV_FINDINGS:
		return findings_cell(run, tmp, size);
	case OV_COLS:
		break;
	}
	return "";
}

/* One line per run, with the columns that fit the width: nothing is cut;
 * columns are dropped (app, then the start time, then the workflow) and a
 * long run id takes a line of its own. */
void text_print_overview(struct text_out *t, const struct report *r)
{
	if (!r->n_runs)
		return;
	size_t w[OV_COLS];
	bool shown[OV_COLS], short_started = false;
	char tmp[64];
	size_t total = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (int c = 0; c < OV_COLS; c++) {
			w[c] = strlen(ov_titles[c]);
			shown[c] = true;
		}
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			for (int c = 0; c < OV_COLS; c++) {
				size_t cw = escape_columns(
					ov_cell(t, run, (enum ov_col)c, short_started, tmp, sizeof tmp));
				if (c == OV_RUN && cw > RUN_COL_MAX)
					continue;
				if (cw > w[c])
					w[c] = cw;
			}
		}
		total = 0;
		for (int c = 0; c < OV_COLS; c++)
			total += w[c] + 2;
		if (total <= t->width || pass == 1)
			break;
		short_started = true; /* and measure again */
	}
	static const enum ov_col drop[] = {OV_APP, OV_STARTED, OV_WORKFLOW};
	for (size_t d = 0; d < sizeof drop / sizeof *drop && total > t->width; d++) {
		shown[drop[d]] = false;
		total -= w[drop[d]] + 2;
	}
	fprintf(t->f, "%s ", text_on(t, STYLE_BOLD));
	for (int c = 0; c < OV_COLS; c++)
		if (shown[c])
			fprintf(t->f, " %-*s", c == OV_FINDINGS ? 0 : (int)w[c] + 1, ov_titles[c]);
	fprintf(t->f, "%s\n", text_off(t));
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		fputc(' ', t->f);
		for (int c = 0; c < OV_COLS; c++) {
			if (!shown[c])
				continue;
			const char *cell = ov_cell(t, run, (enum ov_col)c, short_started, tmp, sizeof tmp);
			size_t cw = escape_columns(cell);
			if (c == OV_RUN && cw > w[c]) {
				/* The whole id, then the row under its columns. */
				fprintf(t->f, " %s\n %*s", cell, (int)w[c] + 2, "");
				continue;
			}
			/* A suspect, or a run that could not be audited, in red. */
			if (c == OV_FINDINGS && (run->n_suspect || !run->analysis))
				fprintf(t->f, " %s%s%s", text_on(t, STYLE_RED), cell, text_off(t));
			else if (c == OV_FINDINGS)
				fprintf(t->f, " %s", cell);
			else
				fprintf(t->f, " %s%*s", cell, (int)(w[c] + 1 - cw), "");
		}
		fputc('\n', t->f);
		/* Issue 19: why a run could not be audited, under its row, so
		 * the short view (no sections) says it too. */
		if (!run->analysis) {
			struct buf b;
			buf_init(&b, 0);
			buf_printf(&b, NULL, "not audited: %s",
				   text_esc(t, run->failure ? run->failure : "the run could not be fetched", 0));
			if (run->refusal_kind)
				buf_printf(&b, NULL, " (refusal %s)", text_esc(t, run->refusal_kind, 0));
			text_wrap(t, b.data, 6);
			buf_finish(&b);
		}
	}
}
