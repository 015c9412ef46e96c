/* `run … --follow` (issue 30): the run read again and again until it ends.
 * Catalyst's run tool answers the whole history and pages from no event
 * index (doc/catalyst-mcp.md), so each reading is the whole history,
 * compared with what was said before (report_follow.h): the new events that
 * matter and the findings that became true are written as lines. Readings
 * start 1 s apart and back off to --interval while nothing changes; a
 * reading that fails for the transport or the server is tried again, with
 * a line saying so. The follow ends with the run (the verdict and summary,
 * and run's exit status), when the run disappears (exit 7), at
 * --follow-for or on SIGINT/SIGTERM (the verdict so far, still running). */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit_catalyst.h"
#include "monotime.h"
#include "report_follow.h"

#define FOLLOW_FIRST_WAIT_MS 1000L
#define FOLLOW_SLICE_MS 100L /* how often a wait looks at the stop flag */

struct follower {
	struct audit_ctx *x;
	const struct render_follow_writer *w;
	struct render_options ro;
	FILE *out;
	struct follow_run fr;
	struct report_follow *said;
	struct report *r;  /* the last reading that could be audited (one run) */
	bool quiet_news;   /* the first reading on a screen: its report says it all */
	bool status_shown; /* a status line is on the terminal */
};

int audit_follow_check(const struct audit_request *rq, struct err *e)
{
	if (!rq->follow || render_follow_writer(rq->format))
		return 0;
	char words[64];
	render_format_words(render_formats_for(RENDER_FOLLOW), words, sizeof words);
	return err_set(e, ERR_USAGE, "--follow writes %s, not %s", words, render_format_row(rq->format)->name);
}

static void unstatus(struct follower *f)
{
	if (f->status_shown && f->w->unstatus)
		f->w->unstatus(f->out);
	f->status_shown = false;
}

static int on_event(const struct follow_event *ev, void *ctx, struct err *e)
{
	struct follower *f = ctx;
	if (f->quiet_news)
		return 0;
	unstatus(f);
	return f->w->event(f->out, &f->fr, ev, &f->ro, e);
}

static int on_finding(const struct analysis *a, size_t at, void *ctx, struct err *e)
{
	struct follower *f = ctx;
	(void)a;
	if (f->quiet_news)
		return 0;
	unstatus(f);
	return f->w->finding(f->out, &f->fr, &f->r->runs[0], at, &f->ro, e);
}

static int note(struct follower *f, struct err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(struct follower *f, struct err *e, const char *fmt, ...)
{
	char text[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	unstatus(f);
	return f->w->note(f->out, &f->fr, text, &f->ro, e);
}

/* One reading into a report of its own: 1 when it was audited (*out
 * holds it), 0 when it failed in a way another reading may mend (rr's
 * failure in *why), -1 when the follow must stop (e set). */
static int read_once(struct follower *f, struct report **out, char *why, size_t why_size, struct err *e)
{
	struct report *r = calloc(1, sizeof *r);
	if (!r)
		return err_oom(e);
	report_init(r);
	audit_report_meta(f->x->rq, r);
	struct report_run *rr = report_add_run(r);
	if (!rr || !(rr->app_id = strdup(f->fr.app_id)) || !(rr->run_id = strdup(f->fr.run_id))) {
		report_finish(r);
		free(r);
		return err_oom(e);
	}
	audit_one_run_keep(f->x, rr, true);
	if (rr->analysis) {
		*out = r;
		return 1;
	}
	/* Only what a transport or a server gets wrong may mend itself. */
	bool transient = rr->failure_code == ERR_PROTOCOL && !rr->refusal_kind;
	int rc = 0;
	if (transient)
		snprintf(why, why_size, "%s", rr->failure ? rr->failure : "the reading failed");
	else
		rc = err_set(e, rr->failure_code, "%s", rr->failure ? rr->failure : "the run could not be read");
	report_finish(r);
	free(r);
	return rc;
}

/* Says what the reading r holds that was not said, then keeps it as the
 * last reading. Returns how many events were new, or -1. */
static long take(struct follower *f, struct report *r, struct err *e)
{
	struct report *old = f->r;
	f->r = r;
	report_summarize(r);
	struct report_run *rr = &r->runs[0];
	struct follow_sink sink = {on_event, on_finding, f};
	long n = report_follow_news(f->said, rr->log, rr->analysis, &sink, e);
	/* The events were kept for this comparison only. */
	event_log_drop_events(rr->log);
	if (old) {
		report_finish(old);
		free(old);
	}
	return n;
}

/* Waits ms, or less when stopped or at the deadline (0: none). */
static void wait_ms(const struct audit_request *rq, long ms, long long deadline)
{
	long long until = monotime_ms() + ms;
	if (deadline && until > deadline)
		until = deadline;
	while (!(rq->stop && *rq->stop)) {
		long long left = until - monotime_ms();
		if (left <= 0)
			return;
		long slice = left < FOLLOW_SLICE_MS ? (long)left : FOLLOW_SLICE_MS;
		struct timespec ts = {slice / 1000, (slice % 1000) * 1000000L};
		nanosleep(&ts, NULL); /* a signal cuts it short: the flag is looked at */
	}
}

/* The first reading: on a screen, the report's first screen (its events
 * and findings are then said); for a script, every event and finding as
 * lines. 1: the run has ended already, 0: follow on, -1: error. */
static int first_reading(struct follower *f, struct report *r, struct err *e)
{
	const struct audit_request *rq = f->x->rq;
	bool screen = render_format_is(rq->format, FORMAT_FOR_PEOPLE);
	f->quiet_news = screen;
	long n = take(f, r, e);
	f->quiet_news = false;
	if (n < 0)
		return -1;
	if (screen && render_report(f->out, rq->format, f->r, &f->ro, e) < 0)
		return -1;
	if (f->r->runs[0].analysis->finished)
		return 1;
	if (screen && note(f, e, "following %s until it ends (Ctrl-C: the verdict so far)", f->fr.run_id) < 0)
		return -1;
	return 0;
}

/* Reads until the run ends, is stopped or fails for good. *ended: it
 * ended; *gone: it disappeared. */
static int follow_loop(struct follower *f, bool *ended, struct err *e)
{
	const struct audit_request *rq = f->x->rq;
	long long deadline = rq->follow_for_s ? monotime_ms() + rq->follow_for_s * 1000LL : 0;
	long most = (rq->follow_interval_s > 0 ? rq->follow_interval_s : 5) * 1000L;
	long next = FOLLOW_FIRST_WAIT_MS;
	for (;;) {
		if (f->w->status && rq->live) {
			if (f->w->status(f->out, f->r, next, &f->ro, e) < 0)
				return -1;
			f->status_shown = true;
		}
		fflush(f->out);
		wait_ms(rq, next, deadline);
		if ((rq->stop && *rq->stop) || (deadline && monotime_ms() >= deadline))
			return 0;
		struct report *r = NULL;
		char why[512] = "";
		int got = read_once(f, &r, why, sizeof why, e);
		if (got < 0)
			return -1;
		if (got == 0) {
			/* The connection dropped or the server failed: again,
			 * later, and said. */
			next = next * 2 > most ? most : next * 2;
			if (note(f, e, "reading failed (%s); again in %lds", why, (next + 999) / 1000) < 0)
				return -1;
			continue;
		}
		long n = take(f, r, e);
		if (n < 0)
			return -1;
		if (f->r->runs[0].analysis->finished) {
			*ended = true;
			return 0;
		}
		/* Back off while nothing changes; start over when it does. */
		next = n ? FOLLOW_FIRST_WAIT_MS : (next * 2 > most ? most : next * 2);
	}
}

int audit_follow_run(struct audit_ctx *x, const char *app, const char *run_id, struct err *e)
{
	const struct audit_request *rq = x->rq;
	struct follower f = {.x = x, .w = render_follow_writer(rq->format), .ro = audit_render_options(rq)};
	f.fr = (struct follow_run){app, run_id, false};
	struct file_out fo;
	int rc = -1;
	if (!f.w)
		return audit_follow_check(rq, e);
	if (!(f.said = report_follow_new()))
		return err_oom(e);
	if (!(f.out = audit_open_output(rq, &fo, e))) {
		report_follow_free(f.said);
		return -1;
	}
	struct report *r = NULL;
	char why[512] = "";
	int got = read_once(&f, &r, why, sizeof why, e);
	if (got == 0)
		err_set(e, ERR_PROTOCOL, "%s", why); /* the first reading says whether there is a run at all */
	else if (got < 0 && e->code == ERR_NOT_FOUND)
		audit_explain_missing(x, app, run_id, e);
	bool ended = false;
	int step = got > 0 ? first_reading(&f, r, e) : -1;
	if (step == 1) {
		/* Over already: the report said it all. */
		rc = audit_close_output(rq, &fo, 0, f.r, e);
		goto out;
	}
	if (step == 0)
		step = follow_loop(&f, &ended, e);
	if (step < 0 && e->code == ERR_NOT_FOUND && f.r) {
		/* Purged while followed: said, with the verdict of what was read. */
		struct err gone = *e;
		err_clear(e);
		if (note(&f, e, "the run is gone: %s", gone.msg) < 0 ||
		    f.w->end(f.out, f.r, "Gone: the run disappeared while followed; the verdict is of what was read.",
			     &f.ro, e) < 0) {
			rc = audit_close_output(rq, &fo, -1, f.r, e);
			goto out;
		}
		audit_close_output(rq, &fo, 0, f.r, e);
		*e = gone;
		rc = -1;
		goto out;
	}
	if (step < 0) {
		unstatus(&f);
		rc = audit_close_output(rq, &fo, -1, f.r, e);
		goto out;
	}
	unstatus(&f);
	rc = f.w->end(f.out, f.r,
		      ended ? NULL : "Still running: the follow was stopped; the verdict is of the history so far.",
		      &f.ro, e);
	rc = audit_close_output(rq, &fo, rc, f.r, e);
out:
	if (f.r) {
		report_finish(f.r);
		free(f.r);
	}
	report_follow_free(f.said);
	return rc;
}
