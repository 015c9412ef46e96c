/* run --follow as text (issue 30): one line per event that matters and per
 * finding as it becomes true, each starting with the event's time (and
 * the run's id when several are followed), then the verdict and summary
 * lines of the report once the run ends or the follow is stopped. Server
 * text (names, error messages) is escaped for the terminal. */
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "render_text_internal.h"
#include "report_follow.h"
#include "report_timeline.h"

#define FOLLOW_MESSAGE_MIN 20 /* characters of an error message shown, however narrow the line */
#define CLOCK_COLUMNS 11      /* "10:00:02Z  " */

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
static size_t line_start(struct text_out *t, const struct follow_run *fr, const char *ts)
{
	size_t used = CLOCK_COLUMNS;
	if (fr->prefix) {
		const char *id = text_esc(t, fr->run_id, 40);
		fprintf(t->f, "%s  ", id);
		used += strlen(id) + 2;
	}
	int64_t ms;
	char clock[40];
	if (ts && report_time_parse(ts, &ms))
		report_time_format_in(ms, REPORT_TIME_HMS, t->o.local_time, clock, sizeof clock);
	else
		snprintf(clock, sizeof clock, "%s", "");
	fprintf(t->f, "%-9s  ", clock);
	return used;
}

/* "ChargeCard  attempt 2 failed"; returns the columns it took. */
static size_t attempt_words(struct text_out *t, const struct follow_event *ev, const char *verb)
{
	const char *name = ev->name ? text_esc(t, ev->name, 60) : "(unnamed)";
	fprintf(t->f, "%s%s%s  ", text_on(t, STYLE_BOLD), name, text_off(t));
	int n = ev->attempt ? fprintf(t->f, "attempt %u %s", (unsigned)ev->attempt, verb)
			    : fprintf(t->f, "%s", verb);
	return strlen(name) + 2 + (n > 0 ? (size_t)n : 0);
}

/* The class, then the error cut so that the line stays within the width
 * (used: the columns the line has taken so far). */
static void failure_words(struct text_out *t, const struct follow_event *ev, size_t used)
{
	enum style s = ev->failure == FAILURE_AMBIGUOUS ? STYLE_RED
		       : ev->failure == FAILURE_SAFE    ? STYLE_GREEN
							: STYLE_YELLOW;
	const char *cls = failure_class_name(ev->failure);
	fprintf(t->f, " %s[%s]%s", text_on(t, s), cls, text_off(t));
	used += strlen(cls) + 3;
	if (!ev->error_type && !ev->error_message)
		return;
	const char *type = ev->error_type ? text_esc(t, ev->error_type, 40) : "";
	used += 1 + strlen(type) + (ev->error_type && ev->error_message ? 2 : 0);
	size_t room = t->width > used + FOLLOW_MESSAGE_MIN ? t->width - used : FOLLOW_MESSAGE_MIN;
	fprintf(t->f, " %s%s%s", type, ev->error_type && ev->error_message ? ": " : "",
		ev->error_message ? text_esc(t, ev->error_message, room) : "");
}

/* The words of the events said the same way: of an attempt ("ChargeCard
 * attempt 2 failed"), with the failure when failed, or of the run. */
static const struct {
	const char *words;
	bool of_attempt, failure;
} said[FOLLOW_WHAT_COUNT] = {
	[FOLLOW_SCHEDULED] = {"scheduled", true, false},
	[FOLLOW_COMPLETED] = {"completed", true, false},
	[FOLLOW_FAILED] = {"failed", true, true},
	[FOLLOW_CHILD_STARTED] = {"started (child workflow)", true, false},
	[FOLLOW_CHILD_COMPLETED] = {"completed (child workflow)", true, false},
	[FOLLOW_CHILD_FAILED] = {"failed (child workflow)", true, true},
	[FOLLOW_SUSPENDED] = {"run suspended", false, false},
	[FOLLOW_RESUMED] = {"run resumed", false, false},
	[FOLLOW_CONTINUED_AS_NEW] = {"run continued as new", false, false},
};

static void event_words(struct text_out *t, const struct follow_event *ev, size_t used)
{
	if (ev->what == FOLLOW_RUN_STARTED) {
		fprintf(t->f, "run started%s%s", ev->name ? ": " : "", ev->name ? text_esc(t, ev->name, 60) : "");
	} else if (ev->what == FOLLOW_RETRY_TIMER || ev->what == FOLLOW_TIMER) {
		int64_t ms;
		char at[40] = "";
		if (ev->fire_at && report_time_parse(ev->fire_at, &ms))
			report_time_format_in(ms, REPORT_TIME_HMS, t->o.local_time, at, sizeof at);
		bool retry = ev->what == FOLLOW_RETRY_TIMER;
		fprintf(t->f, "%s%s%s%s%s", retry ? "retry timer" : "timer", retry && ev->name ? " for " : "",
			retry && ev->name ? text_esc(t, ev->name, 60) : "", *at ? ", fires " : "", at);
	} else if (ev->what == FOLLOW_ENDED) {
		fprintf(t->f, "run ended: %s", ev->status ? text_esc(t, ev->status, 40) : "status not recorded");
	} else if ((unsigned)ev->what < FOLLOW_WHAT_COUNT && said[ev->what].of_attempt) {
		size_t took = attempt_words(t, ev, said[ev->what].words);
		if (said[ev->what].failure)
			failure_words(t, ev, used + took);
	} else if ((unsigned)ev->what < FOLLOW_WHAT_COUNT && said[ev->what].words) {
		fputs(said[ev->what].words, t->f);
	}
}

/* line (escaped already, with our own colour sequences) cut to width
 * columns, "..." marking the cut. */
static void put_fit(FILE *out, const char *line, size_t width, bool color)
{
	size_t visible = 0;
	for (const char *p = line; *p; p++) {
		if (*p == '\033') {
			while (*p && *p != 'm')
				p++;
			if (!*p)
				break;
			continue;
		}
		visible += ((unsigned char)*p & 0xc0) != 0x80;
	}
	if (visible <= width) {
		fputs(line, out);
		return;
	}
	size_t shown = 0;
	for (const char *p = line; *p; p++) {
		if (*p == '\033') {
			const char *q = p;
			while (*q && *q != 'm')
				q++;
			fwrite(p, 1, (size_t)(q - p) + (*q ? 1 : 0), out);
			p = *q ? q : q - 1;
			continue;
		}
		bool starts = ((unsigned char)*p & 0xc0) != 0x80;
		if (starts && shown == width - 3)
			break;
		shown += starts;
		fputc(*p, out);
	}
	fputs(color ? "...\033[0m" : "...", out);
}

static int follow_event_text(FILE *out, const struct follow_run *fr, const struct follow_event *ev,
			     const struct render_options *o, struct err *e)
{
	char *line = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&line, &len);
	if (!mem)
		return err_oom(e);
	struct text_out t = open_out(mem, o);
	/* the late mark is never what the cut takes */
	char late[64] = "";
	if (ev->late)
		snprintf(late, sizeof late, "  (late: event %u)", (unsigned)ev->index);
	size_t used = line_start(&t, fr, ev->timestamp);
	t.width = t.width > strlen(late) + 60 ? t.width - strlen(late) : 60;
	event_words(&t, ev, used);
	int rc = close_out(&t, e);
	if (fclose(mem) != 0 && rc == 0)
		rc = err_oom(e);
	if (rc == 0) {
		put_fit(out, line, t.width, t.o.color);
		fprintf(out, "%s\n", late);
	}
	free(line);
	return rc;
}

/* "suspect  ChargeCard  ambiguous_failure_retried: attempt 2 ran 5.0s later" */
static int follow_finding_text(FILE *out, const struct follow_run *fr, const struct report_run *run, size_t at,
			       const struct render_options *o, struct err *e)
{
	struct text_out t = open_out(out, o);
	const struct finding *f = &run->analysis->findings[at];
	size_t col = CLOCK_COLUMNS;
	if (fr->prefix) {
		const char *id = text_esc(&t, fr->run_id, 40);
		fprintf(out, "%s  ", id);
		col += strlen(id) + 2;
	}
	bool suspect = f->severity == SEVERITY_SUSPECT;
	fprintf(out, "%s%-9s%s  ", text_on(&t, suspect ? STYLE_RED : STYLE_YELLOW), severity_name(f->severity),
		text_off(&t));
	/* the finding whole: wrapped under itself, never cut */
	struct buf b, msg;
	buf_init(&b, 0);
	buf_init(&msg, 0);
	const char *summary;
	int rc = analysis_finding_summary(f, &msg, &summary);
	if (rc == 0 && !summary)
		rc = analysis_finding_message(f, &msg);
	const char *what = summary ? summary : msg.data ? msg.data : "";
	if (rc == 0)
		rc = buf_printf(&b, NULL, "%s %s: %s", f->activity ? text_esc(&t, f->activity, 60) : "(unnamed)",
				finding_kind_id(f->kind), text_esc(&t, what, 0));
	text_wrap_at(&t, rc == 0 ? b.data : NULL, col, col);
	buf_finish(&msg);
	buf_finish(&b);
	return close_out(&t, e);
}

static int follow_note_text(FILE *out, const struct follow_run *fr, const char *text,
			    const struct render_options *o, struct err *e)
{
	struct text_out t = open_out(out, o);
	size_t col = CLOCK_COLUMNS;
	if (fr->prefix) {
		const char *id = text_esc(&t, fr->run_id, 40);
		fprintf(out, "%s  ", id);
		col += strlen(id) + 2;
	}
	fprintf(out, "%-9s  ", "note");
	text_wrap_at(&t, text_esc(&t, text, 0), col, col);
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
	if (r->n_notes) {
		/* what the follow saw that the last reading cannot show */
		text_print_notes(&t, r);
		fputc('\n', out);
	}
	text_print_summary(&t, r);
	return close_out(&t, e);
}

/* "following  SUSPECT  2 findings (1 suspect), 12 events; next reading in 3s",
 * with no newline: the next line or the end erases it. */
static int follow_status_text(FILE *out, const struct report *r, long next_ms, const struct render_options *o,
			      struct err *e)
{
	struct text_out t = open_out(out, o);
	fprintf(out, "\r\033[K%sfollowing%s  %s  %zu finding%s (%zu suspect); next reading in %lds",
		text_on(&t, STYLE_BOLD), text_off(&t), report_verdict(r), r->n_findings,
		r->n_findings == 1 ? "" : "s", r->n_suspect, (next_ms + 999) / 1000);
	fflush(out);
	return close_out(&t, e);
}

static void follow_unstatus_text(FILE *out)
{
	fputs("\r\033[K", out);
}

const struct render_follow_writer render_follow_text = {
	follow_event_text, follow_finding_text, follow_note_text,
	follow_end_text,   follow_status_text,  follow_unstatus_text,
};
