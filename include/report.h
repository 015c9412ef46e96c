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

struct report_run {
	char *app_id; /* NULL when unknown (a file without it) */
	char *run_id;
	/* The project_ref the link was built from: its form (PROJECT_NONE:
	 * JSON null) and value, with PROJECT_NONE a value whose form is unknown. */
	enum project_form project_form;
	char *project;
	char *console_link;         /* NULL: no trustworthy link */
	char *link_note;            /* why there is no link / why a parameter was left out */
	char *source;               /* "file PATH", "catalyst_get_workflow_run", ... */
	char *parent_run_id;        /* a child run audited because its parent named it */
	struct analysis *analysis;  /* NULL when the run could not be audited */
	struct event_log *log;      /* owned: the analysis borrows from it */
	enum err_code failure_code; /* when analysis == NULL */
	char *failure;              /* the reason, one line */
	char *refusal_kind;         /* when a refusal stopped it */
	char *refusal_instruction;
	/* counts of this run, filled by report_summarize() */
	size_t n_activities;
	size_t n_reexecuted;
	size_t n_findings;
	size_t n_suspect;
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
	char **notes;          /* report-wide remarks (e.g. a link parameter omitted) */
	size_t n_notes;
};

void report_init(struct report *r);
void report_finish(struct report *r);
/* Appends a zeroed run and returns it (NULL on allocation failure). */
struct report_run *report_add_run(struct report *r);
int report_add_note(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An analysis' invocations run more than once and its suspect findings. */
void report_analysis_counts(const struct analysis *a, size_t *reexecuted, size_t *suspect);
void report_summarize(struct report *r);

enum render_format {
	FORMAT_TEXT = 0,
	FORMAT_JSON,
	FORMAT_MARKDOWN,
	FORMAT_JSONL, /* one JSON object per run, then a summary line */
};

/* How much of each run the text and Markdown reports show (JSON and JSON
 * Lines always carry everything). */
enum report_view {
	REPORT_SHORT = 0, /* the verdict, the runs, the findings in a line each, the remedies and limits once */
	REPORT_FULL,      /* --verbose-report: every activity and attempt of every run, as before */
	REPORT_FINDINGS,  /* --findings-only: runs with findings, each finding in a line with its evidence */
};

struct render_options {
	bool color;
	int width; /* terminal columns for text; 0 means 80 */
	enum report_view view;
	bool all_runs; /* short view: a section for every run, not only those with findings */
	/* the threads setting (parallel.h): 1 keeps the JSON render on one thread */
	unsigned threads;
	bool local_time; /* --local-time: times in the local zone, offset printed */
};

int render_text(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
int render_json(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
/* The JSON report, written run by run (render_json is render_json_begin,
 * render_json_run for each run and render_json_end): memory stays flat in
 * the number of runs. */
struct render_json_stream;
/* Writes the report's opening, up to the open "runs" array. NULL on error. */
struct render_json_stream *render_json_begin(FILE *out, const struct render_options *o, struct err *e);
/* Writes run as the next item of "runs", separator and indentation included. */
int render_json_run(struct render_json_stream *s, const struct report_run *run, struct err *e);
/* Closes "runs" and writes the summary and notes as render_json does, from
 * r's counts and notes (r->runs is not read; the summary's "runs" is the
 * number of runs written). Frees s, also on error. For a segment stream,
 * only flushes (r may be NULL). */
int render_json_end(struct render_json_stream *s, const struct report *r, struct err *e);
/* Frees s without finishing the document. */
void render_json_abort(struct render_json_stream *s);
/* Runs rendered apart (by workers finishing in any order) and put into a
 * report later, in report order: render_json_run on a segment stream writes
 * a run at the depth of "runs" without its separator; render_json_splice
 * copies such bytes (len of them, read from fd at off) into a report stream
 * as its next run, separator first. Spliced in order, the runs come out byte
 * for byte as render_json_run would write them. A segment is written on one
 * thread: the workers that render segments already keep the cores busy. */
struct render_json_stream *render_json_begin_segment(FILE *out, struct err *e);
int render_json_splice(struct render_json_stream *s, int fd, off_t off, size_t len, struct err *e);
int render_markdown(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
/* JSON Lines: each run as render_json writes it, on one line, then one
 * summary line {"schema", "summary", "notes"}. render_jsonl_run writes one
 * run's line, on one thread (the streamed `runs` report writes each as its
 * run is done, on the worker that audited it);
 * render_jsonl_end the summary line, from r's counts and notes (r->runs is
 * not read; "runs" is n_runs). */
int render_jsonl(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
int render_jsonl_run(FILE *out, const struct report_run *run, struct err *e);
int render_jsonl_end(FILE *out, const struct report *r, size_t n_runs, struct err *e);

/* The output formats, one row each (src/render_format.c): the one list the
 * option table, --output's extensions, the help, the completions and the
 * tests read. A renderer is its enum value, its row and its file. */
struct render_format_row {
	enum render_format format;
	const char *name;      /* for --format and the config file */
	const char *extension; /* --output FILE with it picks the format; NULL: none */
	int (*render)(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
};
extern const struct render_format_row render_formats[]; /* {.name = NULL}-ended */
/* The row of a name, of a format, of a file name's extension (any case);
 * NULL when none has it. */
const struct render_format_row *render_format_by_name(const char *name);
const struct render_format_row *render_format_row(enum render_format f);
const struct render_format_row *render_format_of_path(const char *path);
/* "text|json": the names of the formats in bits (1u << format), '|'-joined. */
void render_format_list(unsigned bits, char *buf, size_t size);
#define RENDER_FORMATS_ALL 0xffffu

int render_report(FILE *out, enum render_format f, const struct report *r, const struct render_options *o,
		  struct err *e);

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

/* report_fold.c: the suspect findings of one app, activity and kind, in
 * every run, as one item (issue 19), in the order their first finding
 * comes; the short views print one line per fold. */
#define REPORT_FOLD_RUNS 3
struct report_fold {
	const struct report_run *run;                    /* the first finding's run */
	const struct finding *finding;                   /* the first finding */
	size_t count;                                    /* findings folded */
	size_t n_runs;                                   /* distinct runs among them */
	const struct report_run *runs[REPORT_FOLD_RUNS]; /* the first runs */
	const struct report_run *last_run;
};
/* Returns the number of folds (and a malloc'd array in *out), or -1. */
long report_fold_suspects(const struct report *r, struct report_fold **out);
/* "29 alike", "5 alike in 3 runs"; nothing for one finding. */
int report_fold_count(struct buf *out, const struct report_fold *g);
/* The fold's other first runs (the first is the line's own): "also b, c,
 * ..."; nothing when it is in one run. */
int report_fold_runs(struct buf *out, const struct report_fold *g);
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

/* report_time.c: a history's time, placed (issue 19: UTC with `Z` in every
 * format; local time, offset printed, only with --local-time). */
struct report_time {
	int64_t sec; /* since the epoch, UTC */
	int ms;
};
/* RFC 3339 with a zone (`Z` or an offset), fractions kept to the
 * millisecond; false for anything else (no zone, not a time). */
bool report_time_parse(const char *ts, struct report_time *t);
enum report_time_style {
	REPORT_TIME_ISO,     /* 2026-09-14T10:00:00.051Z (JSON) */
	REPORT_TIME_SECONDS, /* 2026-09-14 10:00:00Z */
	REPORT_TIME_CLOCK,   /* 10:00:00Z */
	REPORT_TIME_MINUTE,  /* 09-14 10:00Z (the overview's column) */
};
/* Formats t in out; with local, in the local zone with its offset
 * (+01:00) in place of Z. -1 when it does not fit. */
int report_time_format(const struct report_time *t, enum report_time_style style, bool local, char *out,
		       size_t size);
bool report_time_same_day(const struct report_time *a, const struct report_time *b, bool local);
long long report_time_ms_between(const struct report_time *a, const struct report_time *b);
/* A gap or a duration as a person reads it: 2.1s, 42s, 3m05s, 2h10m. */
int report_duration(long long ms, char *out, size_t size);
