/* `run … --follow` and `runs … --follow` (issue 30): runs read again and
 * again until they end. Catalyst's run tool answers the whole history and
 * pages from no event index (doc/catalyst-mcp.md), so each reading is the
 * whole history, compared with what was said before (report_follow.h):
 * the new events that matter and the findings that became true are
 * written as lines, prefixed by the run when several are followed.
 * Readings start 1 s apart and back off to --interval while nothing
 * changes; a reading that fails for the transport or the server is tried
 * again, with a line saying so. The follow ends when every run has ended
 * (the verdict and summary, and the command's exit status), when the one
 * run followed disappears (exit 7; of several, a line says so), at
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

static const char still_running[] = "Still running: the follow was stopped; the verdict is of the history so far.";

/* One run followed. */
struct follower {
	struct follow_run fr;
	struct report_follow *said;
	struct report *r; /* its last reading that could be audited (one run), or NULL */
	bool ended, gone;
	bool failed; /* a reading failed in a way no other reading mends: s->failure */
	/* The most events and findings said before that a reading no longer
	 * held (report_follow_gone): said when they grow. */
	size_t lost_events, lost_findings;
	size_t findings_before; /* said of generations before its last (continue-as-new) */
};

struct follow_set {
	struct audit_ctx *x;
	const struct render_follow_writer *w;
	struct render_options ro;
	FILE *out;
	struct follower *v;
	size_t n;
	struct follower *cur; /* whose news is being said */
	bool quiet_news;      /* the first readings on a screen: the report says them */
	bool said_all;        /* every run had ended at the first readings, and the screen said so */
	bool status_shown;    /* a status line is on the terminal */
	struct report view;   /* the last readings together (borrowed runs), for the status and the end */
	struct err failure;   /* the first reading that failed for good, after a first reading */
};

int audit_follow_check(const struct audit_request *rq, struct err *e)
{
	if (!rq->follow || render_follow_writer(rq->format))
		return 0;
	char words[64];
	render_format_words(render_formats_for(RENDER_FOLLOW), words, sizeof words);
	return err_set(e, ERR_USAGE, "--follow writes %s, not %s", words, render_format_row(rq->format)->name);
}

static void unstatus(struct follow_set *s)
{
	if (s->status_shown && s->w->unstatus)
		s->w->unstatus(s->out);
	s->status_shown = false;
}

static int on_event(const struct follow_event *ev, void *ctx, struct err *e)
{
	struct follow_set *s = ctx;
	if (s->quiet_news)
		return 0;
	unstatus(s);
	return s->w->event(s->out, &s->cur->fr, ev, &s->ro, e);
}

static int on_finding(const struct analysis *a, size_t at, void *ctx, struct err *e)
{
	struct follow_set *s = ctx;
	(void)a;
	if (s->quiet_news)
		return 0;
	unstatus(s);
	return s->w->finding(s->out, &s->cur->fr, &s->cur->r->runs[0], at, &s->ro, e);
}

static int note(struct follow_set *s, const struct follower *f, struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int note(struct follow_set *s, const struct follower *f, struct err *e, const char *fmt, ...)
{
	char text[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	unstatus(s);
	return s->w->note(s->out, &f->fr, text, &s->ro, e);
}

/* The last readings as one report (its runs borrowed from the followers,
 * in their order), summarized: what the status line and the end say. */
static void drop_view(struct follow_set *s);

static int make_view(struct follow_set *s, struct err *e)
{
	drop_view(s);
	struct report_meta meta = s->x->r->meta;
	report_init(&s->view);
	s->view.meta = meta;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->v[i].r)
			continue;
		struct report_run *rr = report_add_run(&s->view);
		if (!rr)
			return err_oom(e);
		*rr = s->v[i].r->runs[0];
	}
	report_summarize(&s->view);
	for (size_t i = 0; i < s->n; i++) {
		const struct follower *f = &s->v[i];
		if ((f->lost_events || f->lost_findings) &&
		    report_add_note(&s->view,
				    "run %s: while it was followed, the server's history dropped or rewrote %zu "
				    "event%s it had shown%s; the verdict is of the last reading, not of all that "
				    "was said",
				    f->fr.run_id, f->lost_events, f->lost_events == 1 ? "" : "s",
				    f->lost_findings ? ", and findings said before no longer hold" : "") < 0)
			return err_oom(e);
		if (f->findings_before &&
		    report_add_note(&s->view,
				    "run %s continued as new while it was followed: the verdict is of its last "
				    "generation; %zu finding%s said of the generations before %s not in it",
				    f->fr.run_id, f->findings_before, f->findings_before == 1 ? "" : "s",
				    f->findings_before == 1 ? "is" : "are") < 0)
			return err_oom(e);
	}
	return 0;
}

/* The view is borrowed: only its array is its own. */
static void drop_view(struct follow_set *s)
{
	free(s->view.runs);
	s->view.runs = NULL;
	s->view.n_runs = 0;
	for (size_t i = 0; i < s->view.n_notes; i++)
		free(s->view.notes[i]);
	free(s->view.notes);
	s->view.notes = NULL;
	s->view.n_notes = 0;
}

/* One reading of f into a report of its own: 1 when it was audited (*out
 * holds it), 0 when it failed in a way another reading may mend (its
 * failure in why), -1 when it failed for good (e set). */
static int read_once(struct follow_set *s, struct follower *f, struct report **out, char *why, size_t why_size,
		     struct err *e)
{
	*out = NULL;
	struct report *r = calloc(1, sizeof *r);
	if (!r) {
		err_oom(e);
		return -1;
	}
	report_init(r);
	audit_report_meta(s->x->rq, r);
	struct report_run *rr = report_add_run(r);
	int rc = -1;
	if (!rr || !(rr->app_id = strdup(f->fr.app_id)) || !(rr->run_id = strdup(f->fr.run_id))) {
		err_oom(e);
		goto fail;
	}
	audit_one_run_keep(s->x, rr, true);
	if (rr->analysis) {
		*out = r;
		return 1;
	}
	/* Only what a transport or a server gets wrong may mend itself; a
	 * limit passed (a history grown past what one answer may hold) stays
	 * passed. */
	if (rr->failure_code == ERR_PROTOCOL && !rr->refusal_kind && !rr->failure_final) {
		snprintf(why, why_size, "%s", rr->failure ? rr->failure : "the reading failed");
		rc = 0;
	} else {
		err_set(e, rr->failure_code, "%s", rr->failure ? rr->failure : "the run could not be read");
	}
fail:
	report_finish(r);
	free(r);
	return rc;
}

/* What a reading no longer held of what was said: a line when it is more
 * than any reading before lacked. */
static int say_lost(struct follow_set *s, struct follower *f, struct err *e)
{
	size_t events, findings;
	if (report_follow_new_generation(f->said, &f->findings_before) && !s->quiet_news &&
	    note(s, f, e,
		 "the run continued as new: its history starts over with a new generation (what was "
		 "said of the one before stands)") < 0)
		return -1;
	report_follow_gone(f->said, &events, &findings);
	if (events <= f->lost_events && findings <= f->lost_findings)
		return 0;
	f->lost_events = events > f->lost_events ? events : f->lost_events;
	f->lost_findings = findings > f->lost_findings ? findings : f->lost_findings;
	char also[96] = "";
	if (findings)
		snprintf(also, sizeof also, "; %zu finding%s said before no longer hold%s", findings,
			 findings == 1 ? "" : "s", findings == 1 ? "s" : "");
	return note(s, f, e,
		    "the history no longer holds %zu event%s said before (the server dropped or rewrote them)%s",
		    events, events == 1 ? "" : "s", also);
}

/* Says what the reading r of f holds that was not said, then keeps it as
 * f's last reading. Returns how many events were new, or -1. */
static long take(struct follow_set *s, struct follower *f, struct report *r, struct err *e)
{
	struct report *old = f->r;
	f->r = r;
	report_summarize(r);
	struct report_run *rr = &r->runs[0];
	struct follow_sink sink = {on_event, on_finding, s};
	s->cur = f;
	long n = report_follow_news(f->said, rr->log, rr->analysis, &sink, e);
	if (n >= 0 && say_lost(s, f, e) < 0)
		n = -1;
	/* The events were kept for this comparison only. */
	event_log_drop_events(rr->log);
	f->ended = rr->analysis->finished;
	if (old) {
		report_finish(old);
		free(old);
	}
	return n;
}

/* Reads f once and says it: 1 when the history changed, 0 when not (or
 * the reading failed and was said), -1 on an error that ends the follow.
 * A run that is gone is said and left (gone). */
static int read_and_say(struct follow_set *s, struct follower *f, long next_ms, struct err *e)
{
	struct report *r = NULL;
	char why[512] = "";
	int got = read_once(s, f, &r, why, sizeof why, e);
	if (got == 0)
		return note(s, f, e, "reading failed (%s); again in %lds", why, (next_ms + 999) / 1000) < 0 ? -1
													    : 0;
	if (got < 0 && e->code == ERR_NOT_FOUND && f->r) {
		f->gone = true;
		struct err gone = *e;
		err_clear(e);
		return note(s, f, e, "the run is gone: %s", gone.msg) < 0 ? -1 : 0;
	}
	if (got < 0 && f->r && e->code != ERR_INTERNAL) {
		/* What was said stands: the follow of this run ends with its
		 * verdict so far, and the command with this error's status. */
		f->failed = true;
		if (!s->failure.code)
			s->failure = *e;
		struct err failed = *e;
		err_clear(e);
		return note(s, f, e, "reading failed for good: %s", failed.msg) < 0 ? -1 : 0;
	}
	if (got < 0)
		return -1;
	long n = take(s, f, r, e);
	return n < 0 ? -1 : n > 0;
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

static bool all_done(const struct follow_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].ended && !s->v[i].gone && !s->v[i].failed)
			return false;
	return true;
}

/* The first readings: on a screen, the report's first screen (their
 * events and findings are then said); for a script, every event and
 * finding as lines. */
static int first_readings(struct follow_set *s, struct err *e)
{
	const struct audit_request *rq = s->x->rq;
	bool screen = render_format_is(rq->format, FORMAT_FOR_PEOPLE);
	s->quiet_news = screen;
	for (size_t i = 0; i < s->n; i++) {
		struct follower *f = &s->v[i];
		struct report *r = NULL;
		char why[512] = "";
		int got = read_once(s, f, &r, why, sizeof why, e);
		if (got == 0)
			err_set(e, ERR_PROTOCOL, "%s", why); /* a first reading says whether there is a run */
		if (got <= 0)
			return -1;
		if (take(s, f, r, e) < 0)
			return -1;
	}
	s->quiet_news = false;
	if (make_view(s, e) < 0)
		return -1;
	if (screen && render_report(s->out, rq->format, &s->view, &s->ro, e) < 0)
		return -1;
	s->said_all = screen && all_done(s);
	if (all_done(s) || !screen)
		return 0;
	struct follower *first = &s->v[0];
	if (s->n == 1)
		return note(s, first, e, "following %s until it ends (Ctrl-C: the verdict so far)",
			    first->fr.run_id);
	size_t open = 0;
	for (size_t i = 0; i < s->n; i++)
		open += !s->v[i].ended;
	struct follower all = {.fr = {"", "", false}};
	return note(s, &all, e, "following %zu runs until they end (Ctrl-C: the verdict so far)", open);
}

/* Reads until every run has ended, the follow is stopped, or it fails. */
static int follow_loop(struct follow_set *s, struct err *e)
{
	const struct audit_request *rq = s->x->rq;
	long long deadline = rq->follow_for_s ? monotime_ms() + rq->follow_for_s * 1000LL : 0;
	long most = (rq->follow_interval_s > 0 ? rq->follow_interval_s : 5) * 1000L;
	long next = FOLLOW_FIRST_WAIT_MS;
	while (!all_done(s)) {
		if (s->w->status && rq->live) {
			if (make_view(s, e) < 0 || s->w->status(s->out, &s->view, next, &s->ro, e) < 0)
				return -1;
			s->status_shown = true;
		}
		fflush(s->out);
		wait_ms(rq, next, deadline);
		if ((rq->stop && *rq->stop) || (deadline && monotime_ms() >= deadline))
			return 0;
		long grown = next * 2 > most ? most : next * 2;
		bool changed = false;
		for (size_t i = 0; i < s->n; i++) {
			struct follower *f = &s->v[i];
			if (f->ended || f->gone || f->failed)
				continue;
			int rc = read_and_say(s, f, grown, e);
			if (rc < 0)
				return -1;
			changed |= rc > 0;
		}
		fflush(s->out);
		/* Back off while nothing changes; start over when it does. */
		next = changed ? FOLLOW_FIRST_WAIT_MS : grown;
	}
	return 0;
}

/* The verdict of the last readings, then the status: 7 when the one run
 * followed is gone (after its verdict so far), else the command's. */
static int follow_end(struct follow_set *s, struct file_out *fo, struct err *e)
{
	const struct audit_request *rq = s->x->rq;
	unstatus(s);
	bool gone = s->n == 1 && s->v[0].gone;
	bool failed = s->failure.code != ERR_NONE;
	bool over = all_done(s) && !gone && !failed;
	int rc = make_view(s, e);
	if (rc == 0 && !s->said_all)
		rc = s->w->end(
			s->out, &s->view,
			over     ? NULL
			: gone   ? "Gone: the run disappeared while followed; the verdict is of what was read."
			: failed ? "Stopped: a reading failed for good; the verdict is of what was read before it."
				 : still_running,
			&s->ro, e);
	rc = audit_close_output(rq, fo, rc, &s->view, e);
	if (rc >= 0 && gone) {
		err_set(e, ERR_NOT_FOUND, "run %s disappeared while it was followed (purged?)", s->v[0].fr.run_id);
		return -1;
	}
	if (rc >= 0 && failed) {
		*e = s->failure;
		return -1;
	}
	/* A history is only ever added to: one that lost what it showed is a
	 * server error, whatever its last reading found (the notes say what). */
	for (size_t i = 0; rc >= 0 && i < s->n; i++)
		if (s->v[i].lost_events || s->v[i].lost_findings) {
			err_set(e, ERR_PROTOCOL,
				"the server's history of run %s dropped or rewrote %zu event%s while it was "
				"followed: the verdict is not of all that was said",
				s->v[i].fr.run_id, s->v[i].lost_events, s->v[i].lost_events == 1 ? "" : "s");
			return -1;
		}
	return rc;
}

/* Follows the runs (app, id) of ids, n of them. */
static int follow_set_run(struct audit_ctx *x, const char *const (*ids)[2], size_t n, struct err *e)
{
	const struct audit_request *rq = x->rq;
	struct follow_set s = {
		.x = x, .w = render_follow_writer(rq->format), .ro = audit_render_options(rq), .n = n};
	if (!s.w)
		return audit_follow_check(rq, e);
	struct file_out fo;
	int rc = -1;
	s.v = calloc(n ? n : 1, sizeof *s.v);
	if (!s.v)
		return err_oom(e);
	for (size_t i = 0; i < n; i++) {
		s.v[i].fr = (struct follow_run){ids[i][0], ids[i][1], n > 1};
		if (!(s.v[i].said = report_follow_new())) {
			rc = err_oom(e);
			goto out;
		}
	}
	if (!(s.out = audit_open_output(rq, &fo, e)))
		goto out;
	if (first_readings(&s, e) < 0 || follow_loop(&s, e) < 0) {
		if (n == 1 && e->code == ERR_NOT_FOUND && !s.v[0].r)
			audit_explain_missing(x, ids[0][0], ids[0][1], e);
		unstatus(&s);
		audit_close_output(rq, &fo, -1, &s.view, e);
		goto out;
	}
	rc = follow_end(&s, &fo, e);
out:
	drop_view(&s);
	for (size_t i = 0; i < n; i++) {
		if (s.v[i].r) {
			report_finish(s.v[i].r);
			free(s.v[i].r);
		}
		report_follow_free(s.v[i].said);
	}
	free(s.v);
	return rc;
}

int audit_follow_run(struct audit_ctx *x, const char *app, const char *run_id, struct err *e)
{
	const char *const ids[1][2] = {{app, run_id}};
	return follow_set_run(x, ids, 1, e);
}

int audit_follow_runs(struct audit_ctx *x, struct err *e)
{
	const struct report *r = x->r;
	const char *(*ids)[2] = calloc(r->n_runs ? r->n_runs : 1, sizeof *ids);
	if (!ids)
		return err_oom(e);
	size_t n = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		/* those the listing could not audit stay out, said by the report */
		if (!r->runs[i].app_id || !r->runs[i].run_id)
			continue;
		ids[n][0] = r->runs[i].app_id;
		ids[n][1] = r->runs[i].run_id;
		n++;
	}
	int rc = follow_set_run(x, (const char *const(*)[2])ids, n, e);
	free(ids);
	return rc;
}
