#pragma once
/* An invocation's attempts on one time axis, for the pictures the reports
 * draw (a Mermaid gantt chart in Markdown, a character line in the full
 * text view): when each attempt was scheduled and ended, the retry gap
 * before the next one, and where a failed attempt may still have been
 * running while the next one ran. Computed here so renderers only draw. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

/* An RFC 3339 time ("2026-09-14T10:00:00.051Z", "...+02:00") as
 * milliseconds since the epoch; false for anything else. */
bool report_time_parse(const char *ts, int64_t *ms);

enum report_time_form {
	REPORT_TIME_FULL = 0, /* 2026-09-14T10:00:00.051Z (milliseconds only when not 0) */
	REPORT_TIME_MINUTE,   /* 2026-09-14T10:00Z */
	REPORT_TIME_CLOCK,    /* 10:00:00Z */
	REPORT_TIME_MERMAID,  /* 2026-09-14T10:00:00.051: Mermaid's dateFormat YYYY-MM-DDTHH:mm:ss.SSS, in UTC */
	REPORT_TIME_SECONDS,  /* 2026-09-14 10:00:00Z (the text view's suspect line) */
	REPORT_TIME_HMS,      /* 10:00:00Z, never a fraction (the end of a range in text) */
};
/* ms as form into out (size >= 32). */
void report_time_format(int64_t ms, enum report_time_form form, char *out, size_t size);
/* The same with local (--local-time): in the local zone, its offset
 * ("+01:00") in place of the Z; Mermaid's form stays UTC. */
void report_time_format_in(int64_t ms, enum report_time_form form, bool local, char *out, size_t size);
/* Whether a and b fall on one day, in UTC or the local zone. */
bool report_time_same_day(int64_t a, int64_t b, bool local);
/* A gap or a duration as a person reads it: 2.1s, 42s, 3m05s, 2h10m;
 * "before" when negative. -1 when it does not fit. */
int report_duration(long long ms, char *out, size_t size);
/* A history's time in UTC with "Z" in form; a time that is not RFC 3339
 * is copied as it is and false returned (the renderer escapes it). */
bool report_time_utc(const char *ts, enum report_time_form form, char *out, size_t size);

struct report_timeline_attempt {
	const struct attempt *attempt;
	int64_t start, end; /* ms; end is the result's time, else the span's end */
	bool has_start;
	bool has_end; /* a result with a time */
	/* The retry gap: from this attempt's failure to the next attempt. */
	bool retry_gap;
	int64_t next_start;
	/* A failure of the timeout/connection class followed by another
	 * attempt: the remote side may still have been running, up to the next
	 * attempt's end (doc/history.md). */
	bool may_overlap;
	int64_t overlap_end;
};

struct report_timeline {
	const struct invocation *inv;
	struct report_timeline_attempt *attempts; /* inv->n_attempts of them */
	size_t n_attempts;
	int64_t t0, t1; /* the span of every known time */
	bool known;     /* some attempt has a start time */
};

/* Whether an invocation is worth a picture: more than one attempt, or an
 * attempt without a result. */
bool report_timeline_wanted(const struct invocation *inv);
/* Fills t for inv; -1 when memory ran out. */
int report_timeline_make(const struct invocation *inv, struct report_timeline *t);
void report_timeline_finish(struct report_timeline *t);
