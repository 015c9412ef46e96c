#pragma once
/* What the renderers print: one entry per audited run (or per run whose
 * fetch failed), plus the totals. Built by the audit pipeline; renderers
 * only format it. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "analysis.h"
#include "buf.h"
#include "err.h"
#include "project.h"

struct json_t;

/* "f-" and 16 hex digits, NUL. */
#define REPORT_FINDING_ID_LEN 19

struct report_run {
	char *app_id; /* NULL when unknown (a file without it) */
	char *run_id;
	/* The project_ref the link was built from: its form (PROJECT_NONE:
	 * JSON null) and value, with PROJECT_NONE a value whose form is unknown. */
	enum project_form project_form;
	char *project;
	char *console_link;  /* NULL: no trustworthy link */
	char *link_note;     /* why there is no link / why a parameter was left out */
	char *source;        /* "file PATH", "catalyst_get_workflow_run", ... */
	char *parent_run_id; /* a child run audited because its parent named it */
	/* A rerun (its analysis names the source run): the source's run id,
	 * and its console link when the source was fetched from the same
	 * project (NULL otherwise; rerun_of_note says why). */
	char *rerun_of;
	char *rerun_of_link;
	char *rerun_of_note;
	struct analysis *analysis;  /* NULL when the run could not be audited */
	struct event_log *log;      /* owned: the analysis borrows from it */
	enum err_code failure_code; /* when analysis == NULL */
	bool failure_final;         /* no retry can mend it (a limit passed: ERR_DETAIL_FINAL) */
	char *failure;              /* the reason, one line */
	char *refusal_kind;         /* when a refusal stopped it */
	char *refusal_instruction;
	/* Each finding's stable id (report_finding_id), and whether the
	 * --baseline report holds it: filled by report_mark_known when there
	 * is one (NULL otherwise: every finding new, its id made as needed). */
	char (*finding_ids)[REPORT_FINDING_ID_LEN];
	bool *known;
	/* --source: for each finding, its activity's code in one sentence
	 * (report_attach_source); NULL without --source, and an entry is NULL
	 * for a finding of no activity. */
	char **source_notes;
	/* When the run ended, else when it was last updated, as the run list
	 * or the history says; NULL when neither says. */
	char *ended_at;
	char *updated_at;
	/* counts of this run, filled by report_summarize() */
	size_t n_activities;
	size_t n_reexecuted;
	size_t n_findings;
	size_t n_suspect;
	size_t n_known; /* findings in the baseline */
	size_t n_known_suspect;
};

/* What a report says of itself: when and by what it was made, and what it
 * covers (the filters of `runs` as applied, times absolute, UTC). */
struct report_meta {
	char generated_at[32]; /* RFC 3339 UTC; "" when not set */
	const char *tool_version;
	const char *command; /* "run", "runs", "file" */
	enum project_form project_form;
	const char *project; /* NULL: none known (a file) */
	bool has_filters;    /* `runs`: the filters below were applied */
	char *const *apps, *const *workflows, *const *statuses;
	size_t n_apps, n_workflows, n_statuses;
	const char *since, *until, *ended_since; /* NULL: not given */
	long limit;                              /* 0: none */
	const char *baseline;                    /* --baseline FILE, NULL: none */
};

struct report {
	struct report_run *runs;
	size_t n_runs;
	/* summary, filled by report_summarize() */
	size_t n_activities;
	size_t n_reexecuted;
	size_t n_findings;
	size_t n_suspect;
	size_t n_failed_runs;
	size_t n_finding_runs; /* runs with at least one finding */
	size_t n_suspect_runs; /* runs with at least one suspect finding */
	size_t n_known;        /* findings the --baseline report holds */
	size_t n_known_suspect;
	char **notes; /* report-wide remarks (e.g. a link parameter omitted) */
	size_t n_notes;
	struct report_meta meta;
};

void report_init(struct report *r);
void report_finish(struct report *r);
/* Frees what one run holds (not the run itself). */
void report_run_finish(struct report_run *run);
/* Appends a zeroed run and returns it (NULL on allocation failure). */
struct report_run *report_add_run(struct report *r);
int report_add_note(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An analysis' invocations run more than once and its suspect findings. */
void report_analysis_counts(const struct analysis *a, size_t *reexecuted, size_t *suspect);
void report_summarize(struct report *r);
/* A finding's id, the same on every audit of the same run and never shared
 * by two findings: a hash of (kind, project, app id, run id, activity,
 * execution id, the evidence's event ids and history positions). */
void report_finding_id(const struct report_run *run, const struct finding *f, char out[REPORT_FINDING_ID_LEN]);
/* Its short form for text and Markdown ("f-" and 7 hex digits, as git
 * shortens a commit): finding k of run. */
#define REPORT_FINDING_SHORT_ID_LEN 10
void report_finding_short_id(const struct report_run *run, size_t k, char out[REPORT_FINDING_SHORT_ID_LEN]);
/* Fills run->finding_ids and run->known from the ids of a baseline report
 * (an object whose keys are finding ids); without one (NULL) leaves both
 * NULL: every finding new, its id made when it is written. -1 when memory
 * ran out. */
int report_mark_known(struct report_run *run, const struct json_t *baseline_ids);

struct review;
/* --source PATH: fills run->source_notes from the reviewed code (review.h):
 * the activity's hazards with their file:line, or that the activity was
 * not found in the source. -1 when memory ran out. (report_source.c) */
int report_attach_source(struct report_run *run, const struct review *rv, const char *path);
/* The sentence of one of run's findings; NULL without --source. */
const char *report_source_note(const struct report_run *run, const struct finding *f);

/* The one wording of an absent payload (doc/PRODUCT.md rule 2), followed in
 * every format by "(<level>, <how known>)". Never "empty" or "no output". */
#define REPORT_WITHHELD_PHRASE "not shared at this organization's data-sharing level"

/* What every renderer prints for a run's workflow name and status: the
 * analysis' value, else the run envelope's (file or server), else NULL. */
const char *report_run_workflow(const struct report_run *run);
const char *report_run_status(const struct report_run *run);

/* A run's withheld fields grouped by (field, event type), in first-seen
 * order, so a history of thousands of attempts prints a few lines. */
#define REPORT_WITHHELD_IDS 12
struct report_withheld_group {
	const char *field;
	const char *event_type;
	size_t count;
	int64_t ids[REPORT_WITHHELD_IDS]; /* the first event ids that are >= 0 */
	size_t n_ids;
};
/* Returns the number of groups (and a malloc'd array in *out), or -1. */
long report_withheld_groups(const struct analysis *a, struct report_withheld_group **out);

/* The report's distinct remedies, in the order their first finding comes,
 * with the kinds of finding that need each: what a report prints once
 * (the analysis shares one string between the findings of a remedy). */
struct report_remedy {
	const char *remedy;
	unsigned kinds; /* bits 1u << enum finding_kind */
	size_t n_findings;
};
/* Returns the number of remedies (and a malloc'd array in *out), or -1. */
long report_remedies(const struct report *r, struct report_remedy **out);
/* The report's limits that are not run-specific (analysis limit_specific),
 * each once, in first-seen order: a malloc'd array of borrowed strings in
 * *out, and their number; -1 on allocation failure. */
long report_common_limits(const struct report *r, const char ***out);
/* Whether the run is one whose section the short view prints. */
bool report_run_has_findings(const struct report_run *run);
/* The limits that name one run's own data in the runs a short view gives
 * no section (every run, or with findings_have_sections those without
 * findings): how many, and in how many runs (*n_runs). */
size_t report_unshown_specific_limits(const struct report *r, bool findings_have_sections, size_t *n_runs);

/* What the text and Markdown reports say alike, worded here once so the
 * two cannot drift. Each appends to out and returns -1 when memory ran out. */
/* The verdict: SUSPECT, NOTICE, INCOMPLETE (a run was not audited) or CLEAN. */
const char *report_verdict(const struct report *r);
/* The sentence after the verdict ("2 suspect findings in 1 of 3 runs, and
 * 1 notice."); capital when it starts a sentence of its own. */
int report_verdict_sentence(struct buf *out, const struct report *r, bool capital);
/* The summary's counts: "3 runs, 5 activities, 1 re-executed, 2 findings
 * (1 suspect)." and the runs not audited. */
int report_summary_sentence(struct buf *out, const struct report *r);
/* A finding's evidence: "events 3, 5", else "history positions 7"; with
 * positions, both ("events 3; history positions 7"). */
int report_evidence(struct buf *out, const struct finding *f, bool positions);
/* A withheld group's event ids: " (events 3, 5, ...)", nothing when it
 * has none. */
int report_withheld_ids(struct buf *out, const struct report_withheld_group *g);
/* An ISO 8601 time to the minute ("2026-09-14T11:30:00.040Z" as
 * "2026-09-14 11:30", in out); false for any other form, which a renderer
 * shows as it is. */
bool report_time_minute(const char *ts, char *out, size_t size);
