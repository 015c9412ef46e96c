#pragma once
/* run --follow (issue 30): what is new in a run's history since it was
 * last read. The history is read again whole at every poll (Catalyst's
 * run tool pages from no event index); this compares each reading with
 * what was said before, by what each event is rather than where it
 * stands, so that an event that arrives late (shown after events that
 * follow it) is said once, where it belongs, and marked late. Findings are
 * said the first time the analysis of a reading has them. Computes only:
 * the caller prints. */

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "err.h"
#include "event.h"

/* What a new event that matters is, in the run's words. */
enum follow_what {
	FOLLOW_RUN_STARTED = 0,
	FOLLOW_SCHEDULED, /* an attempt of an activity */
	FOLLOW_COMPLETED,
	FOLLOW_FAILED,
	FOLLOW_RETRY_TIMER, /* a timer a retry policy created */
	FOLLOW_TIMER,       /* any other durable timer */
	FOLLOW_CHILD_STARTED,
	FOLLOW_CHILD_COMPLETED,
	FOLLOW_CHILD_FAILED,
	FOLLOW_SUSPENDED,
	FOLLOW_RESUMED,
	FOLLOW_CONTINUED_AS_NEW,
	FOLLOW_ENDED, /* completed, failed or terminated: status says which */
	FOLLOW_WHAT_COUNT
};

/* "scheduled", "retry_timer", ...: the JSON Lines `what`. */
const char *follow_what_name(enum follow_what w);

struct follow_event {
	enum follow_what what;
	uint32_t index; /* in the history as read now (0-based) */
	int64_t event_id;
	bool has_event_id;
	const char *timestamp;      /* NULL: the history gives none */
	const char *name;           /* the activity or child workflow; NULL when the history names none */
	uint32_t attempt;           /* 1-based attempt of its invocation; 0: not an attempt */
	enum failure_class failure; /* FOLLOW_FAILED, FOLLOW_CHILD_FAILED */
	const char *error_type;     /* may be NULL */
	const char *error_message;  /* may be NULL */
	const char *fire_at;        /* timers; may be NULL */
	const char *status;         /* FOLLOW_ENDED: the workflow status as recorded; may be NULL */
	/* It was not in an earlier reading that showed events after it. */
	bool late;
};

struct report_follow;

struct report_follow *report_follow_new(void);
void report_follow_free(struct report_follow *f); /* accepts NULL */

struct follow_sink {
	/* Each returns 0, or -1 to stop (with e set). finding: a's
	 * findings[at]. */
	int (*event)(const struct follow_event *ev, void *ctx, struct err *e);
	int (*finding)(const struct analysis *a, size_t at, void *ctx, struct err *e);
	void *ctx;
};

/* The run a line is about, for the writers: with prefix, each text line
 * starts with the run's id (runs --follow follows several at once). */
struct follow_run {
	const char *app_id;
	const char *run_id;
	bool prefix;
};

/* The news of a reading: log and its analysis a. Every event not said
 * before goes to the sink's event in history order (those that matter:
 * attempts, timers, children, the run's own changes) and is then said;
 * every finding of a not said before goes to its finding just after the
 * event that made it true (its last evidence).
 * Returns how many events were new, mattering or not (0: the history did
 * not change), or -1 with e set (memory, or the sink's error). */
long report_follow_news(struct report_follow *f, const struct event_log *log, const struct analysis *a,
			const struct follow_sink *sink, struct err *e);

/* Of the events and findings said before the last reading, how many it no
 * longer held: a history that shrank, or an event rewritten after it was
 * sent (its new form is then a new event, said late). A server that does
 * this has changed what was said; the caller says so. */
void report_follow_gone(const struct report_follow *f, size_t *events, size_t *findings);

/* Whether the last reading began a new generation (the run continued as
 * new: its history starts over, from an ExecutionStarted of another
 * execution id), which loses nothing; *findings_before: how many findings
 * were said of the generations before the current one. */
bool report_follow_new_generation(const struct report_follow *f, size_t *findings_before);
