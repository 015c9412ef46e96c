#pragma once
/* The fleet view of `catalyst-audit stats`: which activities (and child
 * workflows) of many runs re-execute, and after which failures, one row
 * per (project, app, name). Runs are folded in one at a time, from an
 * analysis (the server) or from a run object of a saved JSON / JSON Lines
 * report, and dropped: what is kept grows with the activities, never with
 * the runs (attempt counts as a histogram, the error messages in a table
 * of STATS_MESSAGE_SLOTS per failure class). stats_rank computes the
 * percentiles, the remedies and the ranking, so renderers never compute. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis.h"
#include "err.h"
#include "project.h"
#include "report.h"

/* Error messages counted per (row, failure class): past this many
 * distinct ones the table keeps the most frequent (space-saving: a
 * message pushed out hands its count to the newcomer, so counts after
 * that are upper bounds, marked estimated). */
#define STATS_MESSAGE_SLOTS 8
/* Messages shown per class. */
#define STATS_MESSAGES_SHOWN 3
/* Attempt counts held one counter each; larger ones in a short list. */
#define STATS_DENSE_ATTEMPTS 64

struct stats_message {
	char *message; /* as the history gave it (renderers escape it) */
	size_t count;
	size_t overcount; /* how much of count may belong to messages it pushed out */
};

struct stats_failures {
	size_t attempts; /* failed attempts of this class */
	struct stats_message slots[STATS_MESSAGE_SLOTS];
	size_t n_slots;
	bool estimated; /* a message was pushed out: counts are upper bounds */
};

struct stats_pair {
	size_t attempts, invocations;
};

struct stats_suspect_run {
	char *app_id;
	char *run_id;
	char *started_at;   /* NULL when neither the run nor the report named it */
	char *console_link; /* NULL: no trustworthy link */
	char *link_note;    /* why not, when the report said */
};

/* The failure classes a row counts: the report schema's failure_class
 * values for a failed attempt. */
enum stats_class {
	STATS_CLASS_AMBIGUOUS = 0,
	STATS_CLASS_PERMANENT,
	STATS_CLASS_SAFE,
	STATS_CLASS_UNKNOWN,
	STATS_CLASS_COUNT,
};
const char *stats_class_name(enum stats_class c); /* "ambiguous", "permanent", "safe", "unknown" */

struct stats_row {
	/* the key */
	enum project_form project_form; /* PROJECT_NONE with project NULL: the report named none */
	char *project;
	char *app_id; /* NULL when the run had none */
	char *name;   /* NULL: a finding that names no activity (orphan_retry_timer) */
	/* With by_version: the workflow version the run was last started
	 * under (Dapr 1.17+), NULL for a run whose history names none. */
	char *version;
	bool child_workflow;
	/* counts */
	size_t runs; /* runs it appears in */
	size_t invocations;
	size_t reexecuted; /* invocations of more than one attempt */
	size_t hist[STATS_DENSE_ATTEMPTS + 1];
	struct stats_pair *sparse; /* attempt counts over STATS_DENSE_ATTEMPTS */
	size_t n_sparse, cap_sparse;
	size_t kinds[FINDING_KIND_COUNT];
	char *kind_remedy[FINDING_KIND_COUNT]; /* the first remedy a finding of the kind gave */
	size_t suspect, notice;
	struct stats_failures failures[STATS_CLASS_COUNT];
	struct stats_suspect_run latest; /* run_id NULL: no suspect finding */
	size_t last_run;                 /* internal: the run that last counted it */
	/* set by stats_rank */
	size_t attempts_median, attempts_p95, attempts_max;
	double reexecuted_share;                               /* reexecuted / invocations, 0 when none */
	const char *remedy;                                    /* the remedy of its most telling kind, or NULL */
	enum finding_kind top_kind;                            /* valid when remedy */
	size_t order[STATS_CLASS_COUNT][STATS_MESSAGES_SHOWN]; /* slot indexes, most frequent first */
	size_t n_shown[STATS_CLASS_COUNT];
};

enum stats_source {
	STATS_FROM_SERVER = 0,
	STATS_FROM_REPORTS,
};

struct stats {
	enum stats_source source;
	/* --by-version: one row per activity and workflow version, so a
	 * post-mortem can say "since version 7". Set before any run is added. */
	bool by_version;
	struct stats_row **rows; /* ranked after stats_rank */
	size_t n_rows, cap_rows;
	json_t *index;       /* row key -> position in rows (before the ranking) */
	json_t *seen;        /* reports: the runs counted, (project, app, run) */
	size_t runs;         /* runs counted */
	size_t failed_runs;  /* runs that could not be audited (counted, nothing to fold) */
	size_t repeats;      /* runs met again in an older report, left out */
	size_t reports;      /* report files read */
	size_t projects;     /* distinct projects among the counted runs */
	json_t *project_set; /* internal */
	bool partial;        /* the listing (or a report) ended early: more runs may exist */
	char **notes;
	size_t n_notes;
};

void stats_init(struct stats *st, enum stats_source source);
void stats_finish(struct stats *st);
int stats_add_note(struct stats *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One audited run from the server (rr holds app_id, run_id, its console
 * link and the analysis); a run that could not be audited counts as
 * failed. -1: out of memory. */
int stats_add_report_run(struct stats *st, const struct report_run *rr, struct err *e);
/* One run object of a saved report (doc/catalyst-audit.report.v1.schema.json
 * $defs/run); fields it lacks count as absent, never as empty. 0, or -1
 * with ERR_INPUT when it is no run object (where names the file and line). */
int stats_add_json_run(struct stats *st, const json_t *run, struct err *e);

/* What --app, --workflow, --status, --since and --until keep of a saved
 * run (the listing's filters applied to what was saved: nothing is
 * fetched). status normalised, since and until RFC 3339 UTC; NULL: any. */
struct stats_filter {
	const char *app, *workflow, *status, *since, *until;
	size_t no_start; /* runs left out because the report names no start */
};

/* One saved report (stats_read.c), its runs folded in: 0, or -1 with
 * ERR_INPUT naming path and line when it is not a catalyst-audit report. */
int stats_read_report(struct stats *st, FILE *in, const char *path, struct stats_filter *sf, struct err *e);

/* Percentiles, remedies and the ranking: suspect findings, then the
 * re-execution share, then invocations, then project, app and name. */
void stats_rank(struct stats *st);
