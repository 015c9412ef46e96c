/* run --follow as text (issue 30): one line per event that matters and per
 * finding as it becomes true, each starting with the event's time (and
 * the run's id when several are followed), then the verdict and summary
 * lines of the report once the run ends or the follow is stopped. Server
 * text (names, error messages) is escaped for the terminal. */
#include <string.h>

#include "classify.h"
#include "render_text_internal.h"
#include "report_follow.h"
#include "report_timeline.h"

#define FOLLOW_MESSAGE_MAX 100 /* characters of an error message on a line */

static struct text_out open_out(FILE *f, const struct render_options *o)
{
	struct text_out t = {.f = f, .width = 80};
	if (o)
		t.o = *o;
	for (size_t i = 0; i < ESC_SLOTS; i++)
		buf_init(&t.slot[i], 0);
	return t;
}

static int close_out(struct text_out *t, struct err *e)
{
	for (size_t i = 0; i < ESC_SLOTS; i++)
		buf_finish(&t->slot[i]);
	if (t->oom)
		return err_oom(e);
	if (ferror(t->f))
		return err_set(e, ERR_USAGE, "cannot write the follow");
	return 0;
}

/* "10:00:02Z  " (or the local time), or blanks when the event has none;
 * the run's id first when several runs are followed. */
static void line_start(struct text_out *t, const struct follow_run *fr, const char *ts)
{
	if (fr->prefix)
		fprintf(t->f, "%s  ", text_esc(t, fr->run_id, 40));
	int64_t ms;
	char clock[40];
	if (ts && report_time_parse(ts, &ms))
		report_time_format_in(ms, REPORT_TIME_HMS, t->o.local_time, clock, sizeof clock);
	else
		snprintf(clock, sizeof clock, "%s", "");
	fprintf(t->f, "%-9s  ", clock);
}

static void attempt_words(struct text_out *t, const struct follow_event *ev, const char *verb)
{
	fprintf(t->f, "%s%s%s  ", text_on(t, STYLE_BOLD), ev->name ? text_esc(t, ev->name, 60) : "(unnamed)",
		text_off(t));
	if (ev->attempt)
		fprintf(t->f, "attempt %u %s", (unsigned)ev->attempt, verb);
	else
		fprintf(t->f, "%s", verb);
}

static void failure_words(struct text_out *t, const struct follow_event *ev)
{
	enum style s = ev->failure == FAILURE_AMBIGUOUS ? STYLE_RED
		       : ev->failure == FAILURE_SAFE   ? STYLE_GREEN
						       : STYLE_YELLOW;
	fprintf(t->f, " %s[%s]%s", text_on(t, s), failure_class_name(ev->failure), text_off(t));
	if (ev->error_type || ev->error_message)
		fprintf(t->f, " %s%s%s", ev->error_type ? text_esc(t, ev->error_type, 40) : "",
			ev->error_type && ev->error_message ? ": " : "",
			ev->error_message ? text_esc(t, ev->error_message, FOLLOW_MESSAGE_MAX) : "");
}

static void event_words(struct text_out *t, const struct follow_event *ev)
{
	switch (ev->what) {
	case FOLLOW_RUN_STARTED:
		fprintf(t->f, "run started%s%s", ev->name ? ": " : "", ev->name ? text_esc(t, ev->name, 60) : "");
		break;
	case FOLLOW_SCHEDULED:
		attempt_words(t, ev, "scheduled");
		break;
	case FOLLOW_COMPLETED:
		attempt_words(t, ev, "completed");
		break;
	case FOLLOW_FAILED:
		attempt_words(t, ev, "failed");
		failure_words(t, ev);
		break;
	case FOLLOW_RETRY_TIMER:
	case FOLLOW_TIMER: {
		int64_t ms;
		char at[40] = "";
		if (ev->fire_at && report_time_parse(ev->fire_at, &ms))
			report_time_format_in(ms, REPORT_TIME_HMS, t->o.local_time, at, sizeof at);
		fprintf(t->f, "%s%s%s%s%s", ev->what == FOLLOW_RETRY_TIMER ? "retry timer" : "timer",
			ev->what == FOLLOW_RETRY_TIMER && ev->name ? " for " : "",
			ev->what == FOLLOW_RETRY_TIMER && ev->name ? text_esc(t, ev->name, 60) : "", *at ? ", fires " : "",
			at);
		break;
	}
	case FOLLOW_CHILD_STARTED:
		attempt_words(t, ev, "started (child workflow)");
		break;
	case FOLLOW_CHILD_COMPLETED:
		attempt_words(t, ev, "completed (child workflow)");
		break;
	case FOLLOW_CHILD_FAILED:
		attempt_words(t, ev, "failed (child workflow)");
		failure_words(t, ev);
		break;
	case FOLLOW_SUSPENDED:
		fprintf(t->f, "run suspended");
		break;
	case FOLLOW_RESUMED:
		fprintf(t->f, "run resumed");
		break;
	case FOLLOW_CONTINUED_AS_NEW:
		fprintf(t->f, "run continued as new");
		break;
	case FOLLOW_ENDED:
		fprintf(t->f, "run ended: %s", ev->status ? text_esc(t, ev->status, 40) : "status not recorded");
		break;
	case FOLLOW_WHAT_COUNT:
		break;
	}
}

static int follow_event_text(FILE *out, const struct follow_run *fr, const struct follow_event *ev,
			     const struct render_options *o, struct err *e)
{
	struct text_out t = open_out(out, o);
	line_start(&t, fr, ev->timestamp);
	event_words(&t, ev);
	if (ev->late)
		fprintf(out, "  (arrived late: event %u of the history)", (unsigned)ev->index);
	fputc('\n', out);
	return close_out(&t, e);
}

/* "suspect  ChargeCard  ambiguous_failure_retried: attempt 2 ran 5.0s later" */
static int follow_finding_text(FILE *out, const struct follow_run *fr, const struct report_run *run, size_t at,
			       const struct render_options *o, struct err *e)
{
	struct text_out t = open_out(out, o);
	const struct finding *f = &run->analysis->findings[at];
	if (fr->prefix)
		fprintf(out, "%s  ", text_esc(&t, fr->run_id, 40));
	bool suspect = f->severity == SEVERITY_SUSPECT;
	fprintf(out, "%s%-9s%s  %s  %s: %s\n", text_on(&t, suspect ? STYLE_RED : STYLE_YELLOW),
		severity_name(f->severity), text_off(&t), f->activity ? text_esc(&t, f->activity, 60) : "(unnamed)",
		finding_kind_id(f->kind), text_esc(&t, f->summary ? f->summary : f->message, 160));
	return close_out(&t, e);
}

static int follow_note_text(FILE *out, const struct follow_run *fr, const char *text, const struct render_options *o,
			    struct err *e)
{
	struct text_out t = open_out(out, o);
	if (fr->prefix)
		fprintf(out, "%s  ", text_esc(&t, fr->run_id, 40));
	fprintf(out, "%-9s  %s\n", "note", text_esc(&t, text, 0));
	return close_out(&t, e);
}

static int follow_end_text(FILE *out, const struct report *r, const char *unfinished,
			   const struct render_options *o, struct err *e)
{
	struct text_out t = open_out(out, o);
	fputc('\n', out);
	if (unfinished)
		fprintf(out, "%s%s%s\n", text_on(&t, STYLE_BOLD), unfinished, text_off(&t));
	text_print_verdict_line(&t, r);
	text_print_summary(&t, r);
	return close_out(&t, e);
}

/* "following  SUSPECT  2 findings (1 suspect), 12 events; next reading in 3s",
 * with no newline: the next line or the end erases it. */
static int follow_status_text(FILE *out, const struct report *r, long next_ms, const struct render_options *o,
			      struct err *e)
{
	struct text_out t = open_out(out, o);
	fprintf(out, "\r\033[K%sfollowing%s  %s  %zu finding%s (%zu suspect); next reading in %lds", text_on(&t, STYLE_BOLD),
		text_off(&t), report_verdict(r), r->n_findings, r->n_findings == 1 ? "" : "s", r->n_suspect,
		(next_ms + 999) / 1000);
	fflush(out);
	return close_out(&t, e);
}

static void follow_unstatus_text(FILE *out)
{
	fputs("\r\033[K", out);
}

const struct render_follow_writer render_follow_text = {
	follow_event_text, follow_finding_text, follow_note_text, follow_end_text, follow_status_text, follow_unstatus_text,
};
