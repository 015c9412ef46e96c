#pragma once
/* The renderers: each formats a filled `struct report` (report.h) and
 * computes nothing; the format table (render_format.c) names them and
 * render_report picks one. The pipeline calls them; report.c never does
 * (the report layer sits above the renderers). */

#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#include "err.h"
#include "report.h"

enum render_format {
	FORMAT_TEXT = 0,
	FORMAT_JSON,
	FORMAT_MARKDOWN,
	FORMAT_JSONL, /* one JSON object per run, then a summary line */
	FORMAT_SARIF, /* SARIF 2.1.0: review only */
};

/* How much of each run the text and Markdown reports show (JSON and JSON
 * Lines always carry everything). */
enum report_view {
	REPORT_SHORT = 0, /* the verdict, the runs, the findings in a line each, the remedies and limits once */
	REPORT_FULL,      /* --verbose-report: every activity and attempt of every run */
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
	/* --show-payloads: the payloads of the attempts in findings, for the
	 * runs whose history was read to keep them (report_payloads.h) */
	bool show_payloads;
	/* review, text and Markdown: list the activities with no hazard too
	 * (--verbose); by default a linter's view, hazards only */
	bool verbose;
};

int render_text(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
int render_json(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
/* The JSON report, written run by run (render_json is render_json_begin,
 * render_json_run for each run and render_json_end): memory stays flat in
 * the number of runs. */
struct render_json_stream;
/* Writes the report's opening (r's meta), up to the open "runs" array.
 * NULL on error. */
struct render_json_stream *render_json_begin(FILE *out, const struct report *r, const struct render_options *o,
					     struct err *e);
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
struct render_json_stream *render_json_begin_segment(FILE *out, const struct render_options *o, struct err *e);
int render_json_splice(struct render_json_stream *s, int fd, off_t off, size_t len, struct err *e);
int render_markdown(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
/* JSON Lines: each run as render_json writes it, on one line, then one
 * summary line {"schema", "summary", "notes"}. render_jsonl_run writes one
 * run's line, on one thread (the streamed `runs` report writes each as its
 * run is done, on the worker that audited it);
 * render_jsonl_end the summary line, from r's counts and notes (r->runs is
 * not read; "runs" is n_runs). */
int render_jsonl(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
int render_jsonl_run(FILE *out, const struct report_run *run, const struct render_options *o, struct err *e);
int render_jsonl_end(FILE *out, const struct report *r, size_t n_runs, struct err *e);

/* What a format is, beside what it writes: bits of a row's traits. The
 * pipeline asks a row, never compares formats. */
#define FORMAT_FOR_PEOPLE (1u << 0)   /* read on a screen: paged on a terminal, --local-time, a width */
#define FORMAT_TAKES_COLOR (1u << 1)  /* --color colours it */
#define FORMAT_STREAMS_RUNS (1u << 2) /* a `runs` report written run by run, memory flat in runs */
#define FORMAT_LINE_PER_RUN (1u << 3) /* each run a line of its own, written as soon as it is audited */

/* What a command writes; a format writes it when its row has the writer
 * (render_formats_for): the command table names a subject, not formats. */
enum render_subject {
	RENDER_NOTHING = 0,
	RENDER_REPORT, /* run, runs, file */
	RENDER_STATS,
	RENDER_REVIEW,
	RENDER_LINK,
	RENDER_WHOAMI,
	RENDER_TOOLS,
	RENDER_FOLLOW, /* run --follow */
};

struct stats;
struct review;
struct link_info;
struct follow_run;
struct follow_event;

/* run --follow's lines (issue 30), for the formats that follow a run: an
 * event that matters, a finding the moment it becomes true, a note (a
 * retried connection, a run that vanished), and the end: the verdict and
 * summary of r (a report of the one run), after `unfinished` (why the
 * run's end was not seen: "Still running: ...") when it is not NULL. */
struct render_follow_writer {
	int (*event)(FILE *out, const struct follow_run *fr, const struct follow_event *ev,
		     const struct render_options *o, struct err *e);
	int (*finding)(FILE *out, const struct follow_run *fr, const struct report_run *run, size_t at,
		       const struct render_options *o, struct err *e);
	int (*note)(FILE *out, const struct follow_run *fr, const char *text, const struct render_options *o,
		    struct err *e);
	int (*end)(FILE *out, const struct report *r, const char *unfinished, const struct render_options *o,
		   struct err *e);
	/* On a terminal (text only; NULL otherwise): the verdict so far on a
	 * line kept current under the others, and its erasure before a line
	 * is written or the follow ends. */
	int (*status)(FILE *out, const struct report *r, long next_ms, const struct render_options *o,
		      struct err *e);
	void (*unstatus)(FILE *out);
};
extern const struct render_follow_writer render_follow_text, render_follow_jsonl;
struct whoami_info;
struct tools_info;

/* The output formats, one row each (src/render_format.c): the one list the
 * option table, --output-file's extensions, the help, the completions and the
 * tests read. A format is its enum value, its row, its file (the writers it
 * has) and meson.build; a NULL writer: the format does not write that. */
struct render_format_row {
	enum render_format format;
	const char *name;      /* for -o/--output and the config file */
	const char *extension; /* --output-file FILE with it picks the format; NULL: none */
	unsigned traits;       /* FORMAT_ bits */
	int (*render)(FILE *out, const struct report *r, const struct render_options *o, struct err *e);
	int (*stats)(FILE *out, const struct stats *st, const struct render_options *o, struct err *e);
	int (*review)(FILE *out, const struct review *rv, const struct render_options *o, struct err *e);
	int (*link)(FILE *out, const struct link_info *l, const struct render_options *o, struct err *e);
	int (*whoami)(FILE *out, const struct whoami_info *w, const struct render_options *o, struct err *e);
	int (*tools)(FILE *out, const struct tools_info *t, const struct render_options *o, struct err *e);
	const struct render_follow_writer *follow;
};
extern const struct render_format_row render_formats[]; /* {.name = NULL}-ended */
/* The row of a name, of a format, of a file name's extension (any case);
 * NULL when none has it. */
const struct render_format_row *render_format_by_name(const char *name);
const struct render_format_row *render_format_row(enum render_format f);
const struct render_format_row *render_format_of_path(const char *path);
/* Whether format f has every trait of traits. */
bool render_format_is(enum render_format f, unsigned traits);
/* The formats that write subject, as bits (1u << format). */
unsigned render_formats_for(enum render_subject subject);

/* The one way a document built with jansson (stats, review, link, whoami,
 * tools) is written: with `flags`, always JSON_ENSURE_ASCII, so a bidi
 * override or an invisible character from a server or a file goes out as
 * \uXXXX as in the report writer (json_writer.h), then a newline. Returns
 * 0, or -1 when the write failed. */
int render_json_dump(const json_t *doc, FILE *out, size_t flags);
/* "text|json": the names of the formats in bits (1u << format), '|'-joined. */
void render_format_list(unsigned bits, char *buf, size_t size);
/* "text or json", "text, json or markdown": the same in words. */
void render_format_words(unsigned bits, char *buf, size_t size);
#define RENDER_FORMATS_ALL 0xffffu

/* The format's follow writer; NULL: it does not follow a run. */
const struct render_follow_writer *render_follow_writer(enum render_format f);

int render_report(FILE *out, enum render_format f, const struct report *r, const struct render_options *o,
		  struct err *e);

/* The fleet view (render_stats.c): it formats, never computes. */
int render_stats(FILE *out, enum render_format f, const struct stats *st, const struct render_options *o,
		 struct err *e);
int render_stats_text(FILE *out, const struct stats *st, const struct render_options *o, struct err *e);
int render_stats_markdown(FILE *out, const struct stats *st, const struct render_options *o, struct err *e);
int render_stats_json(FILE *out, const struct stats *st, const struct render_options *o, struct err *e);
int render_stats_jsonl(FILE *out, const struct stats *st, const struct render_options *o, struct err *e);
