/* The Markdown report: a section to paste into a post-mortem issue. Formats
 * the report and nothing else; every server-supplied string goes through
 * escape_markdown so table syntax, emphasis, HTML and control characters in
 * names or error messages stay inert, and through md_mermaid_name before a
 * Mermaid chart sees it.
 *
 * What it is shaped by: GitHub renders an issue or comment of at most
 * 65,536 characters, a table wider than about six columns is cut off at its
 * width, and a reader sees an overlap in a picture faster than in a table.
 * So tables have at most six columns (long cells go to lists under them),
 * identical findings across runs are one line (report_fold.h), suspect runs
 * get a gantt chart, and the default view is assembled within MD_LIMIT,
 * folding the runs that do not fit into counts. */
#include "render.h"
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "escape.h"
#include "report_fold.h"
#include "report_payloads.h"
#include "report_timeline.h"

#define MD_SLOTS 6
#define MD_CELL_MAX 200    /* characters of an error message in a list under a table */
#define MD_SUMMARY_MAX 160 /* characters of a finding's summary in the short view */
#define MD_LIMIT 65536     /* GitHub's limit for an issue or comment, in characters; we count bytes */
#define MD_RESERVE 1024    /* for the fold note, measured before it is written */
#define MD_TIMELINES 5     /* runs drawn as a gantt chart */
#define MD_CHART_ACTIVITIES 3
#define MD_CHART_ATTEMPTS 6
#define MD_TABLE_ROWS 12       /* attempt rows of one run in the short view */
#define MD_VERDICT_LINES 10    /* folded suspect lines under the verdict */
#define MD_DETAILS_RUNS 200    /* run ids listed in the fold's <details> */
#define MD_UNCHARTED_NAMED 10  /* suspect runs without a chart, named */
#define MD_NAME_MAX 80         /* code points of a name in the verdict and the fold note: they bound its size */
#define MD_PAYLOAD_RUNS 5      /* runs whose payloads --show-payloads lists */
#define MD_PAYLOAD_ATTEMPTS 12 /* attempts listed per run: each payload may be EVENT_PAYLOAD_TEXT_MAX bytes */

struct md_out {
	FILE *f;
	struct buf slot[MD_SLOTS];
	size_t next_slot;
	bool oom;
	bool show_payloads; /* --show-payloads */
	const bool *shown;  /* per run: its section is in the document (anchor run-N) */
	const bool *charts; /* per run: its gantt chart is drawn */
};

/* s cut to max code points (0: whole) and escaped for ctx; "" for NULL.
 * Valid until MD_SLOTS more calls. */
static const char *md(struct md_out *m, const char *s, enum escape_md_context ctx, size_t max)
{
	if (!s)
		return "";
	size_t len = strlen(s);
	bool cut = false;
	if (max) {
		size_t cps = 0, i = 0;
		for (; i < len; i++) {
			if (((unsigned char)s[i] & 0xc0) != 0x80) {
				if (cps == max)
					break;
				cps++;
			}
		}
		cut = i < len;
		len = i;
	}
	struct buf *b = &m->slot[m->next_slot++ % MD_SLOTS];
	buf_reset(b);
	if (escape_markdown(b, s, len, ctx, NULL) < 0 || (cut && buf_append(b, "...", 3, NULL) < 0)) {
		m->oom = true;
		return "";
	}
	return b->data;
}

static void md_ids(struct md_out *m, const int64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(m->f, "%s%" PRId64, i ? ", " : "", ids[i]);
}

static void md_row(struct md_out *m, const char *label, const char *value)
{
	fprintf(m->f, "| %s | %s |\n", label, value);
}

static void md_header(struct md_out *m, const struct report_run *run)
{
	const struct analysis *a = run->analysis;
	const char *workflow = report_run_workflow(run);
	const char *status = report_run_status(run);
	fprintf(m->f, "### Run %s", run->run_id ? md(m, run->run_id, ESCAPE_MD_INLINE, 0) : "(unknown run id)");
	if (workflow)
		fprintf(m->f, ": %s", md(m, workflow, ESCAPE_MD_INLINE, 0));
	fprintf(m->f, "\n\n| Field | Value |\n| --- | --- |\n");
	md_row(m, "Status",
	       status              ? md(m, status, ESCAPE_MD_CELL, 0)
	       : a && !a->finished ? "not finished"
				   : "unknown");
	md_row(m, "App id", run->app_id ? md(m, run->app_id, ESCAPE_MD_CELL, 0) : "unknown");
	md_row(m, "Run id", run->run_id ? md(m, run->run_id, ESCAPE_MD_CELL, 0) : "unknown");
	if (run->parent_run_id)
		md_row(m, "Parent run", md(m, run->parent_run_id, ESCAPE_MD_CELL, 0));
	if (run->project_form == PROJECT_NONE && run->project)
		fprintf(m->f, "| Project | %s (name or uid: unresolved) |\n",
			md(m, run->project, ESCAPE_MD_CELL, 0));
	else if (run->project_form == PROJECT_NONE || !run->project)
		md_row(m, "Project", "not given");
	else
		fprintf(m->f, "| Project | %s (%s) |\n", md(m, run->project, ESCAPE_MD_CELL, 0),
			run->project_form == PROJECT_UID ? "uid" : "name");
	if (a)
		fprintf(m->f, "| Data sharing | %s (%s) |\n", data_sharing_level_name(a->sharing),
			a->sharing_source ? md(m, a->sharing_source, ESCAPE_MD_CELL, 0) : "source unknown");
	if (run->rerun_of) {
		fprintf(m->f, "| Rerun of | %s", md(m, run->rerun_of, ESCAPE_MD_CELL, 0));
		if (run->rerun_of_link)
			fprintf(m->f, " (%s)", md(m, run->rerun_of_link, ESCAPE_MD_CELL, 0));
		else if (run->rerun_of_note)
			fprintf(m->f, " (%s)", md(m, run->rerun_of_note, ESCAPE_MD_CELL, 0));
		fprintf(m->f, " |\n");
	}
	if (run->console_link) {
		/* An autolink: the link is ours (percent-encoded segments), but
		 * the console base came from the command line; anything that
		 * could end the autolink early is shown as text instead. */
		if (strpbrk(run->console_link, "<> \t\r\n|"))
			md_row(m, "Console", md(m, run->console_link, ESCAPE_MD_CELL, 0));
		else
			fprintf(m->f, "| Console | <%s> |\n", run->console_link);
		if (run->link_note)
			md_row(m, "Link note", md(m, run->link_note, ESCAPE_MD_CELL, 0));
	} else {
		fprintf(m->f, "| Console | app %s, run %s (no console link%s%s) |\n",
			run->app_id ? md(m, run->app_id, ESCAPE_MD_CELL, 0) : "unknown",
			run->run_id ? md(m, run->run_id, ESCAPE_MD_CELL, 0) : "unknown",
			run->link_note ? ": " : "",
			run->link_note ? md(m, run->link_note, ESCAPE_MD_CELL, 0) : "");
	}
	if (run->source)
		md_row(m, "Source", md(m, run->source, ESCAPE_MD_CELL, 0));
	if (a)
		fprintf(m->f, "| History | %zu event%s, %zu generation%s |\n", a->n_events,
			a->n_events == 1 ? "" : "s", a->n_generations, a->n_generations == 1 ? "" : "s");
}

static const char *md_payload(enum payload_state s)
{
	switch (s) {
	case PAYLOAD_ABSENT:
		/* The key was missing. Whether that is the data-sharing level
		 * or an event that carries none, the Withheld list says. */
		return "absent";
	case PAYLOAD_NULL:
		return "null";
	case PAYLOAD_EMPTY:
		return "empty";
	case PAYLOAD_PRESENT:
		return NULL;
	}
	return NULL;
}

static const char *md_link(enum invocation_link l)
{
	switch (l) {
	case LINK_SINGLE:
		return "single attempt";
	case LINK_EXECUTION_ID:
		return "execution id";
	case LINK_TIMER_ORIGIN:
		return "retry timer origin";
	case LINK_PATTERN:
		return "failure/timer pattern (inferred)";
	case LINK_ORDER:
		return "order, no retry timer (inferred)";
	}
	return "";
}

static void md_payload_cell(struct md_out *m, const struct payload *p)
{
	const char *w = md_payload(p->state);
	if (w)
		fputs(w, m->f);
	else
		fprintf(m->f, "%zu bytes", p->size);
}

static void md_findings(struct md_out *m, const struct report_run *run)
{
	const struct analysis *a = run->analysis;
	fprintf(m->f, "\n#### Findings\n\n");
	if (a->n_findings == 0) {
		fprintf(m->f, "None: this history shows no activity executed more than once (it cannot show "
			      "everything: see the limits below).\n");
		return;
	}
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *f = &a->findings[i];
		fprintf(m->f, "- **%s** `%s`", severity_name(f->severity), finding_kind_id(f->kind));
		if (f->activity)
			fprintf(m->f, ", %s", md(m, f->activity, ESCAPE_MD_INLINE, 0));
		if (f->task_execution_id && *f->task_execution_id)
			fprintf(m->f, " (execution %s)", md(m, f->task_execution_id, ESCAPE_MD_INLINE, 0));
		if (f->n_evidence) {
			fprintf(m->f, ". Evidence: event%s ", f->n_evidence == 1 ? "" : "s");
			md_ids(m, f->evidence_event_ids, f->n_evidence);
		}
		fprintf(m->f, ".");
		if (f->message)
			fprintf(m->f, " %s", md(m, f->message, ESCAPE_MD_INLINE, 0));
		const char *note = report_source_note(run, f);
		if (note)
			fprintf(m->f, "\n  Source: %s", md(m, note, ESCAPE_MD_INLINE, 0));
		fputc('\n', m->f);
	}
}

static void md_withheld(struct md_out *m, const struct analysis *a)
{
	if (a->n_withheld == 0)
		return;
	fprintf(m->f, "\n#### Withheld\n\n");
	fprintf(m->f, "%s %s (%s, %s):\n\n", a->n_withheld == 1 ? "This field was" : "These fields were",
		REPORT_WITHHELD_PHRASE, data_sharing_level_name(a->sharing),
		a->sharing_source ? md(m, a->sharing_source, ESCAPE_MD_INLINE, 0) : "source unknown");
	struct report_withheld_group *g;
	long n = report_withheld_groups(a, &g);
	if (n < 0) {
		m->oom = true;
		return;
	}
	for (long i = 0; i < n; i++) {
		fprintf(m->f, "- %s", md(m, g[i].field ? g[i].field : "payload", ESCAPE_MD_INLINE, 0));
		fprintf(m->f, " of %zu %s event%s", g[i].count, md(m, g[i].event_type, ESCAPE_MD_INLINE, 0),
			g[i].count == 1 ? "" : "s");
		struct buf ids;
		buf_init(&ids, 0);
		if (report_withheld_ids(&ids, &g[i]) < 0)
			m->oom = true;
		else if (ids.data)
			fputs(ids.data, m->f);
		buf_finish(&ids);
		fputc('\n', m->f);
	}
	free(g);
}

static void md_limits(struct md_out *m, const struct analysis *a)
{
	fprintf(m->f, "\n#### What this history cannot show\n\n");
	if (a->n_limits == 0)
		fprintf(m->f, "No limits recorded.\n");
	for (size_t i = 0; i < a->n_limits; i++)
		fprintf(m->f, "- %s\n", md(m, a->limits[i], ESCAPE_MD_INLINE, 0));
}

static void md_failed(struct md_out *m, const struct report_run *run)
{
	fprintf(m->f, "\n**Not audited:** %s",
		md(m, run->failure ? run->failure : "the run could not be fetched", ESCAPE_MD_INLINE, 0));
	if (run->refusal_kind) {
		fprintf(m->f, " (refusal %s", md(m, run->refusal_kind, ESCAPE_MD_INLINE, 0));
		if (run->refusal_instruction)
			fprintf(m->f, ": %s", md(m, run->refusal_instruction, ESCAPE_MD_INLINE, 0));
		fputc(')', m->f);
	}
	fputc('\n', m->f);
}

/* A history time in UTC with "Z" (form), escaped if it is not RFC 3339;
 * "" for NULL. Valid until MD_SLOTS more calls. */
static const char *md_time(struct md_out *m, const char *ts, enum report_time_form form)
{
	char tmp[64];
	if (!ts)
		return "";
	if (!report_time_utc(ts, form, tmp, sizeof tmp))
		return md(m, ts, ESCAPE_MD_CELL, 40);
	return md(m, tmp, ESCAPE_MD_CELL, 0);
}

/* A run named in running text: a link to its section when the document
 * has it (the anchor run-N, N its 1-based place in the report). */
static void md_run_ref(struct md_out *m, const struct report *r, const struct report_run *run,
		       enum escape_md_context ctx, size_t max)
{
	size_t i = (size_t)(run - r->runs);
	const char *id = md(m, run->run_id ? run->run_id : "unknown", ctx, max);
	if (m->shown && m->shown[i])
		fprintf(m->f, "[%s](#run-%zu)", id, i + 1);
	else
		fputs(id, m->f);
}

static const char *md_outcome(const struct attempt *at)
{
	if (at->outcome == OUTCOME_PENDING)
		return "no result";
	return attempt_outcome_name(at->outcome);
}

/* The attempts' table (all, or those report_timeline_wanted, at most
 * MD_TABLE_ROWS rows): the rows written, the attempts left out in *more,
 * and whether any attempt carries a payload in *payloads. */
static size_t md_attempt_table(struct md_out *m, const struct analysis *a, bool all, size_t *more, bool *payloads)
{
	size_t rows = 0;
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		if (!all && !report_timeline_wanted(inv))
			continue;
		for (size_t k = 0; k < inv->n_attempts; k++) {
			const struct attempt *at = &inv->attempts[k];
			if (at->input.state != PAYLOAD_ABSENT || at->output.state != PAYLOAD_ABSENT)
				*payloads = true;
			if (!all && rows == MD_TABLE_ROWS) {
				(*more)++;
				continue;
			}
			if (rows++ == 0)
				fprintf(m->f,
					"\n| Activity | Attempt | Scheduled id | Scheduled (UTC) | Ended (UTC) | Outcome |\n"
					"| --- | ---: | ---: | --- | --- | --- |\n");
			fprintf(m->f, "| %s%s | %zu | %" PRId64 " | %s | ",
				inv->is_child_workflow ? "child workflow " : "",
				inv->name ? md(m, inv->name, ESCAPE_MD_CELL, 0) : "(unnamed)", k + 1,
				at->scheduled_id, md_time(m, at->scheduled_at, REPORT_TIME_FULL));
			fprintf(m->f, "%s | %s",
				at->outcome == OUTCOME_PENDING ? ""
							       : md_time(m, at->completed_at, REPORT_TIME_FULL),
				md_outcome(at));
			if (at->n_results > 1)
				fprintf(m->f, " (%zu results)", (size_t)at->n_results);
			fprintf(m->f, " |\n");
		}
	}
	return rows;
}

/* An invocation's line under the table: its execution id, how its
 * attempts are linked, its retry timers. */
static void md_invocation_line(struct md_out *m, const struct invocation *inv)
{
	const char *name = inv->name ? md(m, inv->name, ESCAPE_MD_INLINE, 0) : "(unnamed)";
	fprintf(m->f, "- %s: ", name);
	if (inv->task_execution_id && *inv->task_execution_id)
		fprintf(m->f, "execution %s", md(m, inv->task_execution_id, ESCAPE_MD_INLINE, 0));
	else
		fputs(inv->is_child_workflow ? "no execution id (a child workflow: see its instances)"
					     : "no execution id recorded",
		      m->f);
	if (inv->link == LINK_SINGLE)
		fprintf(m->f, ", one attempt");
	else
		fprintf(m->f, ", linked by %s", md_link(inv->link));
	if (inv->n_retry_timers) {
		fprintf(m->f, ", retry timer%s: event%s ", inv->n_retry_timers == 1 ? "" : "s",
			inv->n_retry_timers == 1 ? "" : "s");
		md_ids(m, inv->retry_timer_event_ids, inv->n_retry_timers);
	}
	fputc('\n', m->f);
}

/* What of an attempt does not fit a cell: its child instance, error and
 * innermost cause, the failure class's note, its payloads (pay). */
static void md_attempt_line(struct md_out *m, const struct invocation *inv, size_t k, bool pay)
{
	const struct attempt *at = &inv->attempts[k];
	bool err = at->error_type || at->error_message || at->cause_type || at->cause_message;
	bool inst = inv->is_child_workflow && at->instance_id;
	fprintf(m->f, "  - attempt %zu:", k + 1);
	if (inst)
		fprintf(m->f, " instance %s%s", md(m, at->instance_id, ESCAPE_MD_INLINE, 0), err ? ";" : "");
	if (at->error_type)
		fprintf(m->f, " %s%s", md(m, at->error_type, ESCAPE_MD_INLINE, 80), at->error_message ? ":" : "");
	if (at->error_message)
		fprintf(m->f, " %s", md(m, at->error_message, ESCAPE_MD_INLINE, MD_CELL_MAX));
	if (at->non_retriable)
		fprintf(m->f, " (non-retriable)");
	if (at->cause_type || at->cause_message) {
		/* The innermost cause (innerFailure), which the class rests on. */
		fprintf(m->f, "; caused by");
		if (at->cause_type)
			fprintf(m->f, " %s%s", md(m, at->cause_type, ESCAPE_MD_INLINE, 80),
				at->cause_message ? ":" : "");
		if (at->cause_message)
			fprintf(m->f, " %s", md(m, at->cause_message, ESCAPE_MD_INLINE, MD_CELL_MAX));
	}
	const char *note = at->outcome == OUTCOME_FAILED ? failure_class_note((enum failure_class)at->failure)
							 : NULL;
	if (note)
		fprintf(m->f, "; %s", note);
	if (pay) {
		fprintf(m->f, "%s input ", err || inst ? ";" : "");
		md_payload_cell(m, &at->input);
		fprintf(m->f, ", output ");
		md_payload_cell(m, &at->output);
	}
	fputc('\n', m->f);
}

/* One run's attempts: a table of six columns (activity, attempt, scheduled
 * id, scheduled and ended in UTC, outcome), then what does not fit a cell
 * in lists under it: how the attempts are linked, the errors, payloads,
 * child instances and retry timers. all: every invocation (the full view),
 * else those report_timeline_wanted, at most MD_TABLE_ROWS rows. */
static void md_attempts(struct md_out *m, const struct analysis *a, bool all)
{
	size_t more = 0;
	bool payloads = false;
	size_t rows = md_attempt_table(m, a, all, &more, &payloads);
	if (!rows) {
		if (all)
			fprintf(m->f, "\nNo activity was scheduled in this history.\n");
		return;
	}
	if (more)
		fprintf(m->f, "\n%zu more attempt%s: `--verbose-report` or `--format json`.\n", more,
			more == 1 ? "" : "s");
	fputc('\n', m->f);
	rows = 0;
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		if (!all && !report_timeline_wanted(inv))
			continue;
		md_invocation_line(m, inv);
		for (size_t k = 0; k < inv->n_attempts; k++) {
			const struct attempt *at = &inv->attempts[k];
			bool err = at->error_type || at->error_message || at->cause_type || at->cause_message;
			bool inst = inv->is_child_workflow && at->instance_id;
			bool pay = payloads &&
				   (at->input.state != PAYLOAD_ABSENT || at->output.state != PAYLOAD_ABSENT);
			if (!err && !inst && !pay)
				continue;
			if (!all && rows >= MD_TABLE_ROWS)
				break;
			rows++;
			md_attempt_line(m, inv, k, pay);
		}
	}
}

/* A name as a Mermaid gantt chart may hold it: Mermaid's own syntax
 * (':', '#', ';', ',', quotes, HTML) and anything else that is not a
 * plain letter, digit, space, '.', '_' or '-' becomes '_', so a server's
 * name can neither break nor inject into the chart. */
static const char *md_mermaid_name(struct md_out *m, const char *s, size_t max)
{
	struct buf *b = &m->slot[m->next_slot++ % MD_SLOTS];
	buf_reset(b);
	size_t n = 0;
	for (const char *p = s ? s : "unnamed"; *p && n < max; p++, n++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' ||
			  c == '.' || c == '_' || c == '-';
		if (buf_append(b, ok ? &c : "_", 1, NULL) < 0) {
			m->oom = true;
			return "";
		}
		/* a multi-byte character is one '_' */
		while (!ok && ((unsigned char)p[1] & 0xc0) == 0x80)
			p++;
	}
	if (n == 0 && buf_append(b, "unnamed", 7, NULL) < 0)
		m->oom = true;
	return b->data ? b->data : "";
}

static void md_chart_bar(struct md_out *m, const char *label, const char *tag, int64_t from, int64_t to)
{
	char a[40], b[40];
	report_time_format(from, REPORT_TIME_MERMAID, a, sizeof a);
	report_time_format(to, REPORT_TIME_MERMAID, b, sizeof b);
	fprintf(m->f, "    %s :%s%s%s, %s\n", label, tag ? tag : "", tag ? ", " : "", a, b);
}

/* The run's re-executed activities as a gantt chart (GitHub and GitLab
 * draw a ```mermaid block): each attempt from scheduled to its result,
 * the retry timer before the next, and where a failed attempt may still
 * have been running while the next one ran. Times are UTC written without
 * a zone, which Mermaid shows as written. */
static void md_chart(struct md_out *m, const struct report_run *run)
{
	const struct analysis *a = run->analysis;
	size_t drawn = 0, more = 0;
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		if (!report_timeline_wanted(inv))
			continue;
		if (drawn == MD_CHART_ACTIVITIES) {
			more++;
			continue;
		}
		struct report_timeline t;
		if (report_timeline_make(inv, &t) < 0) {
			m->oom = true;
			return;
		}
		if (!t.known || t.t1 <= t.t0) {
			report_timeline_finish(&t);
			continue;
		}
		if (drawn++ == 0)
			fprintf(m->f,
				"\n```mermaid\ngantt\n    title Run %s, times in UTC\n    dateFormat YYYY-MM-DDTHH:mm:ss.SSS\n"
				"    axisFormat %%H:%%M:%%S\n",
				md_mermaid_name(m, run->run_id, 60));
		fprintf(m->f, "    section %s\n", md_mermaid_name(m, inv->name, 40));
		size_t shown = 0;
		for (size_t k = 0; k < t.n_attempts; k++) {
			const struct report_timeline_attempt *ta = &t.attempts[k];
			if (!ta->has_start)
				continue;
			if (shown++ == MD_CHART_ATTEMPTS)
				break;
			char label[64];
			const struct attempt *at = ta->attempt;
			snprintf(label, sizeof label, "attempt %zu %s", k + 1, md_outcome(at));
			md_chart_bar(m, label,
				     at->outcome == OUTCOME_FAILED    ? "crit"
				     : at->outcome == OUTCOME_PENDING ? "active"
								      : "done",
				     ta->start, ta->end);
			if (ta->retry_gap)
				md_chart_bar(m, "retry timer", NULL, ta->end, ta->next_start);
			if (ta->may_overlap) {
				snprintf(label, sizeof label, "attempt %zu may still run", k + 1);
				md_chart_bar(m, label, "active", ta->end, ta->overlap_end);
			}
		}
		report_timeline_finish(&t);
	}
	if (drawn)
		fprintf(m->f, "```\n");
	if (more)
		fprintf(m->f, "\n%zu more re-executed activit%s in the table above.\n", more,
			more == 1 ? "y is" : "ies are");
}

/* With several runs, one row per run in six columns (md_overview_row);
 * the reasons of runs not audited go to a list under the table. */
static void md_overview_row(struct md_out *m, const struct report *r, const struct report_run *run)
{
	fprintf(m->f, "| ");
	md_run_ref(m, r, run, ESCAPE_MD_CELL, 0);
	fprintf(m->f, " | %s | %s | %s | ", md(m, run->app_id ? run->app_id : "unknown", ESCAPE_MD_CELL, 0),
		md(m, report_run_workflow(run) ? report_run_workflow(run) : "", ESCAPE_MD_CELL, 0),
		md_time(m, run->analysis ? run->analysis->started_at : NULL, REPORT_TIME_MINUTE));
	if (!run->analysis) {
		fprintf(m->f, "not audited | see below |\n");
		return;
	}
	fprintf(m->f, "%s | ", md(m, report_run_status(run) ? report_run_status(run) : "", ESCAPE_MD_CELL, 0));
	size_t notices = run->n_findings - run->n_suspect;
	if (!run->n_findings)
		fprintf(m->f, "none |\n");
	else if (!notices)
		fprintf(m->f, "%zu suspect |\n", run->n_suspect);
	else if (!run->n_suspect)
		fprintf(m->f, "%zu notice%s |\n", notices, notices == 1 ? "" : "s");
	else
		fprintf(m->f, "%zu suspect, %zu notice%s |\n", run->n_suspect, notices, notices == 1 ? "" : "s");
}

static void md_overview_head(struct md_out *m)
{
	fprintf(m->f, "\n| Run | App | Workflow | Started (UTC) | Status | Findings |\n"
		      "| --- | --- | --- | --- | --- | --- |\n");
}

/* rows: the runs in the table (NULL: all). */
static void md_overview_failed(struct md_out *m, const struct report *r, const bool *rows)
{
	bool any = false;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		if ((rows && !rows[i]) || run->analysis)
			continue;
		if (!any)
			fputc('\n', m->f);
		any = true;
		fprintf(m->f, "- %s not audited: %s\n",
			md(m, run->run_id ? run->run_id : "unknown", ESCAPE_MD_INLINE, 0),
			md(m,
			   run->refusal_kind ? run->refusal_kind
			   : run->failure    ? run->failure
					     : "unknown reason",
			   ESCAPE_MD_INLINE, MD_CELL_MAX));
	}
}

/* The verdict, then the suspect findings folded across runs (report_fold.h):
 * one line per kind of finding on one activity of one app, with the first
 * runs named and linked to their sections. */
static void md_verdict(struct md_out *m, const struct report *r, bool list_suspects)
{
	bool one = r->n_runs == 1;
	struct buf b;
	buf_init(&b, 0);
	if (report_verdict_sentence(&b, r, true) < 0)
		m->oom = true;
	else
		fprintf(m->f, "**Verdict: %s.** %s", report_verdict(r), b.data);
	buf_finish(&b);
	fputc('\n', m->f);
	if (!list_suspects || !r->n_suspect)
		return;
	struct report_fold *v;
	long n = report_fold_findings(r, SEVERITY_SUSPECT, &v);
	if (n < 0) {
		m->oom = true;
		return;
	}
	fputc('\n', m->f);
	for (long i = 0; i < n && i < MD_VERDICT_LINES; i++) {
		const struct report_fold *g = &v[i];
		fprintf(m->f, "- %s `%s`", g->activity ? md(m, g->activity, ESCAPE_MD_INLINE, MD_NAME_MAX) : "-",
			finding_kind_id(g->kind));
		if (one) {
			if (g->first->task_execution_id && *g->first->task_execution_id)
				fprintf(m->f, ", execution %s",
					md(m, g->first->task_execution_id, ESCAPE_MD_INLINE, 0));
			if (m->shown && m->shown[0])
				fprintf(m->f, " ([details](#run-1))");
			const char *note = report_source_note(&r->runs[g->runs[0]], g->first);
			if (note)
				fprintf(m->f, "\n  Source: %s", md(m, note, ESCAPE_MD_INLINE, 0));
			fputc('\n', m->f);
			continue;
		}
		fprintf(m->f, " (app %s) in ",
			md(m, g->app_id ? g->app_id : "unknown", ESCAPE_MD_INLINE, MD_NAME_MAX));
		if (g->n_runs > 1)
			fprintf(m->f, "%zu runs: ", g->n_runs);
		size_t named = g->n_runs < REPORT_FOLD_RUNS ? g->n_runs : REPORT_FOLD_RUNS;
		for (size_t k = 0; k < named; k++) {
			fputs(k ? ", " : "", m->f);
			md_run_ref(m, r, &r->runs[g->runs[k]], ESCAPE_MD_INLINE, MD_NAME_MAX);
		}
		if (g->n_runs > named)
			fprintf(m->f, " and %zu more", g->n_runs - named);
		fputc('\n', m->f);
	}
	if (n > MD_VERDICT_LINES)
		fprintf(m->f, "- and %ld more kinds of suspect finding: see the runs below and `--format json`\n",
			n - MD_VERDICT_LINES);
	free(v);
}

/* A finding in at most two lines: severity, kind, activity, execution and
 * evidence (and how many more like it the run has, when `more`; its short
 * id, when given); then (unless one_line) its summary, cut to
 * MD_SUMMARY_MAX. */
static void md_finding_line(struct md_out *m, const struct finding *f, bool one_line, size_t more,
			    const char *short_id, const char *source)
{
	fprintf(m->f, "- **%s** `%s`", severity_name(f->severity), finding_kind_id(f->kind));
	if (f->activity)
		fprintf(m->f, ", %s", md(m, f->activity, ESCAPE_MD_INLINE, 0));
	if (f->task_execution_id && *f->task_execution_id)
		fprintf(m->f, " (execution %s)", md(m, f->task_execution_id, ESCAPE_MD_INLINE, 0));
	if (f->n_evidence || f->n_evidence_event_indexes) {
		struct buf ev;
		buf_init(&ev, 0);
		if (report_evidence(&ev, f, false) < 0)
			m->oom = true;
		else
			fprintf(m->f, ", %s", ev.data);
		buf_finish(&ev);
	}
	if (more)
		fprintf(m->f, "; %zu more like it in this run (`--verbose-report` lists each)", more);
	if (short_id) /* --findings-only: the id a baseline or a ticket names */
		fprintf(m->f, ", id `%s`", short_id);
	if (!one_line && f->summary && *f->summary)
		fprintf(m->f, ":\n  %s", md(m, f->summary, ESCAPE_MD_INLINE, MD_SUMMARY_MAX));
	if (source)
		fprintf(m->f, "\n  Source: %s", md(m, source, ESCAPE_MD_INLINE, 0));
	fprintf(m->f, "\n");
}

static void md_finding_short(struct md_out *m, const struct finding *f, bool one_line, const char *short_id,
			     const char *source)
{
	md_finding_line(m, f, one_line, 0, short_id, source);
}

/* A run's findings, the same kind on the same activity folded into its
 * first one with a count (report_fold.h over this run alone): a bulk run
 * with 29 identical retries is two lines, not 58. */
static void md_run_findings(struct md_out *m, const struct report_run *run)
{
	struct report one = {.runs = (struct report_run *)run, .n_runs = 1};
	struct report_fold *v;
	long n = report_fold_findings(&one, SEVERITY_NOTICE, &v);
	if (n < 0) {
		m->oom = true;
		return;
	}
	for (long i = 0; i < n; i++)
		md_finding_line(m, v[i].first, false, v[i].n_findings - 1, NULL,
				report_source_note(run, v[i].first));
	free(v);
}

static void md_anchor(struct md_out *m, const struct report *r, const struct report_run *run)
{
	fprintf(m->f, "\n<a id=\"run-%zu\"></a>\n", (size_t)(run - r->runs) + 1);
}

static void md_run_short(struct md_out *m, const struct report *r, const struct report_run *run, bool own_limits)
{
	const char *workflow = report_run_workflow(run);
	md_anchor(m, r, run);
	fprintf(m->f, "\n### Run %s", run->run_id ? md(m, run->run_id, ESCAPE_MD_INLINE, 0) : "(unknown run id)");
	if (workflow)
		fprintf(m->f, ": %s", md(m, workflow, ESCAPE_MD_INLINE, 0));
	const char *status = report_run_status(run);
	fprintf(m->f, "\n\nApp %s, status %s", run->app_id ? md(m, run->app_id, ESCAPE_MD_INLINE, 0) : "unknown",
		status                                      ? md(m, status, ESCAPE_MD_INLINE, 0)
		: run->analysis && !run->analysis->finished ? "not finished"
							    : "unknown");
	if (run->analysis && run->analysis->started_at)
		fprintf(m->f, ", started %s", md_time(m, run->analysis->started_at, REPORT_TIME_FULL));
	if (run->console_link && strpbrk(run->console_link, "<> \t\r\n|"))
		fprintf(m->f, ": %s", md(m, run->console_link, ESCAPE_MD_INLINE, 0));
	else if (run->console_link)
		fprintf(m->f, ": <%s>", run->console_link); /* an autolink, as the run table has it */
	else
		fprintf(m->f, " (no console link%s%s)", run->link_note ? ": " : "",
			run->link_note ? md(m, run->link_note, ESCAPE_MD_INLINE, 0) : "");
	fprintf(m->f, ".\n");
	if (!run->analysis) {
		md_failed(m, run);
		return;
	}
	const struct analysis *a = run->analysis;
	fputc('\n', m->f);
	if (!a->n_findings)
		fprintf(m->f, "No findings: this history shows no activity executed more than once.\n");
	md_run_findings(m, run);
	md_attempts(m, a, false);
	if (m->charts && m->charts[run - r->runs])
		md_chart(m, run);
	if (a->n_withheld)
		fprintf(m->f, "\n%zu payload field%s %s %s (%s, %s).\n", a->n_withheld,
			a->n_withheld == 1 ? "" : "s", a->n_withheld == 1 ? "was" : "were", REPORT_WITHHELD_PHRASE,
			data_sharing_level_name(a->sharing),
			a->sharing_source ? md(m, a->sharing_source, ESCAPE_MD_INLINE, 0) : "source unknown");
	bool any = false;
	for (size_t i = 0; own_limits && i < a->n_limits; i++) {
		if (!a->limit_specific || !a->limit_specific[i])
			continue;
		if (!any)
			fprintf(m->f, "\nWhat this history cannot show, besides the limits below:\n\n");
		any = true;
		fprintf(m->f, "- %s\n", md(m, a->limits[i], ESCAPE_MD_INLINE, 0));
	}
}

/* A project as "payments (name)"; its form unknown: "42 (name or uid:
 * unresolved)". NULL value: NULL. */
static const char *md_project(struct md_out *m, struct buf *b, enum project_form form, const char *value)
{
	if (!value)
		return NULL;
	buf_reset(b);
	buf_printf(b, NULL, "%s (%s)", md(m, value, ESCAPE_MD_CELL, 0),
		   form == PROJECT_UID    ? "uid"
		   : form == PROJECT_NAME ? "name"
					  : "name or uid: unresolved");
	if (!b->data)
		m->oom = true;
	return b->data;
}

/* Whether two runs name the same project the same way. */
static bool same_project(enum project_form fa, const char *a, enum project_form fb, const char *b)
{
	return fa == fb && ((!a && !b) || (a && b && strcmp(a, b) == 0));
}

/* The project row: the one the command asked for (report meta), and the
 * one the runs were found in when the server answered for another (a uid
 * read as a name, doc/PRODUCT.md rule 3); a file's runs name their own. */
static void md_project_row(struct md_out *m, const struct report *r)
{
	const struct report_meta *meta = &r->meta;
	const struct report_run *first = r->n_runs ? &r->runs[0] : NULL;
	bool runs_agree = first != NULL;
	for (size_t i = 1; i < r->n_runs && runs_agree; i++)
		runs_agree = same_project(r->runs[i].project_form, r->runs[i].project, first->project_form,
					  first->project);
	struct buf b, c;
	buf_init(&b, 0);
	buf_init(&c, 0);
	const char *asked = md_project(m, &b, meta->project_form, meta->project);
	const char *found = runs_agree ? md_project(m, &c, first->project_form, first->project) : NULL;
	if (asked && found &&
	    !same_project(meta->project_form, meta->project, first->project_form, first->project))
		fprintf(m->f, "| Project | %s as asked; the server answered for %s |\n", asked, found);
	else if (asked)
		md_row(m, "Project", asked);
	else if (found)
		md_row(m, "Project", found);
	else if (first && !runs_agree)
		md_row(m, "Project", "differs by run (see each run)");
	else
		md_row(m, "Project", "not given");
	buf_finish(&b);
	buf_finish(&c);
}

/* A filter's values ("app orders, payouts"), escaped for a cell. */
static void md_values(struct md_out *m, struct buf *b, const char *name, char *const *v, size_t n)
{
	if (!n)
		return;
	buf_printf(b, NULL, "%s%s ", b->len ? "; " : "", name);
	for (size_t i = 0; i < n; i++)
		buf_printf(b, NULL, "%s%s", i ? ", " : "", md(m, v[i], ESCAPE_MD_CELL, MD_NAME_MAX));
}

/* `runs`: the window, absolute and UTC as the filters were applied, and
 * the other filters. */
static void md_filters(struct md_out *m, const struct report_meta *meta)
{
	struct buf b;
	buf_init(&b, 0);
	if (meta->since)
		buf_printf(&b, NULL, "started after %s", md(m, meta->since, ESCAPE_MD_CELL, 0));
	if (meta->until)
		buf_printf(&b, NULL, "%sstarted before %s", b.len ? ", " : "",
			   md(m, meta->until, ESCAPE_MD_CELL, 0));
	if (meta->ended_since)
		buf_printf(&b, NULL, "%sended after %s", b.len ? "; " : "",
			   md(m, meta->ended_since, ESCAPE_MD_CELL, 0));
	md_row(m, "Window (UTC)", b.len ? b.data : "any time (no --since, --until or --ended-since)");
	buf_reset(&b);
	md_values(m, &b, "app", meta->apps, meta->n_apps);
	md_values(m, &b, "workflow", meta->workflows, meta->n_workflows);
	md_values(m, &b, "status", meta->statuses, meta->n_statuses);
	if (meta->limit)
		buf_printf(&b, NULL, "%slimit %ld", b.len ? "; " : "", meta->limit);
	md_row(m, "Filters", b.len ? b.data : "none");
	buf_finish(&b);
}

/* The data-sharing level the runs were read at. */
static void md_sharing_row(struct md_out *m, const struct report *r)
{
	const struct analysis *a0 = NULL;
	bool same_level = true;
	size_t audited = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct analysis *a = r->runs[i].analysis;
		if (!a)
			continue;
		if (!a0)
			a0 = a;
		else if (a->sharing != a0->sharing)
			same_level = false;
		audited++;
	}
	if (!a0)
		return;
	if (!same_level) {
		size_t n[3] = {0};
		for (size_t i = 0; i < r->n_runs; i++)
			if (r->runs[i].analysis && (size_t)r->runs[i].analysis->sharing < 3)
				n[r->runs[i].analysis->sharing]++;
		fprintf(m->f, "| Data sharing | differs by run:");
		bool sep = false;
		for (int l = 0; l < 3; l++)
			if (n[l]) {
				fprintf(m->f, "%s %s in %zu", sep ? "," : "",
					data_sharing_level_name((enum data_sharing_level)l), n[l]);
				sep = true;
			}
		fprintf(m->f, " |\n");
	} else if (audited == 1) {
		fprintf(m->f, "| Data sharing | %s (%s) |\n", data_sharing_level_name(a0->sharing),
			a0->sharing_source ? md(m, a0->sharing_source, ESCAPE_MD_CELL, 0) : "source unknown");
	} else {
		fprintf(m->f, "| Data sharing | %s (all %zu audited runs; how it was learned: each run) |\n",
			data_sharing_level_name(a0->sharing), audited);
	}
}

/* What a document that outlives the incident needs to say about itself
 * (issue 21): when and by what it was made, the project, for `runs` the
 * window and filters, and the data-sharing level the runs were read at. A
 * field the report lacks is said to be unknown or left out, never shown
 * empty. */
static void md_context(struct md_out *m, const struct report *r)
{
	const struct report_meta *meta = &r->meta;
	fprintf(m->f, "\n| About this report | |\n| --- | --- |\n");
	md_row(m, "Generated (UTC)",
	       *meta->generated_at ? md(m, meta->generated_at, ESCAPE_MD_CELL, 0) : "unknown");
	fprintf(m->f, "| Tool | catalyst-audit %s",
		meta->tool_version ? md(m, meta->tool_version, ESCAPE_MD_CELL, 0) : "(version unknown)");
	if (meta->command)
		fprintf(m->f, ", `%s`", meta->command);
	fprintf(m->f, " |\n");
	md_project_row(m, r);
	if (meta->has_filters)
		md_filters(m, meta);
	if (meta->baseline)
		md_row(m, "Baseline", md(m, meta->baseline, ESCAPE_MD_CELL, 0));
	md_sharing_row(m, r);
}

static void md_remedies(struct md_out *m, const struct report *r)
{
	struct report_remedy *v;
	long n = report_remedies(r, &v);
	if (n < 0) {
		m->oom = true;
		return;
	}
	if (n > 0)
		fprintf(m->f, "\n### What to do\n\n");
	for (long i = 0; i < n; i++) {
		fprintf(m->f, "- ");
		bool first = true;
		for (int k = 0; k < FINDING_KIND_COUNT; k++) {
			if (!(v[i].kinds & (1u << k)))
				continue;
			fprintf(m->f, "%s`%s`", first ? "" : ", ", finding_kind_id((enum finding_kind)k));
			first = false;
		}
		fprintf(m->f, ": %s\n", md(m, v[i].remedy, ESCAPE_MD_INLINE, 0));
	}
	free(v);
}

static void md_limits_once(struct md_out *m, const struct report *r, bool all_sections)
{
	if (r->n_runs == r->n_failed_runs)
		return;
	if (r->n_runs == 1) {
		md_limits(m, r->runs[0].analysis);
		return;
	}
	fprintf(m->f, "\n### What these histories cannot show\n\n");
	const char **v;
	long n = report_common_limits(r, &v);
	if (n < 0) {
		m->oom = true;
		return;
	}
	for (long i = 0; i < n; i++)
		fprintf(m->f, "- %s\n", md(m, v[i], ESCAPE_MD_INLINE, 0));
	free(v);
	/* Runs without findings have no section unless --all-runs: their own
	 * limits are counted, not said to be somewhere they are not. */
	size_t n_runs = 0;
	size_t n_unshown = all_sections ? 0 : report_unshown_specific_limits(r, true, &n_runs);
	if (n_unshown)
		fprintf(m->f,
			"\nLimits that name one run's own data are in that run's section; %zu more, specific to "
			"%zu run%s without findings, are shown with `--all-runs` or `--verbose-report`.\n",
			n_unshown, n_runs, n_runs == 1 ? "" : "s");
	else
		fprintf(m->f, "\nLimits that name one run's own data are in that run's section.\n");
}

static void md_summary(struct md_out *m, const struct report *r)
{
	struct buf b;
	buf_init(&b, 0);
	if (report_summary_sentence(&b, r) < 0)
		m->oom = true;
	else
		fprintf(m->f, "**Summary:** %s\n", b.data);
	buf_finish(&b);
}

static void md_notes(struct md_out *m, const struct report *r)
{
	if (!r->n_notes)
		return;
	fprintf(m->f, "\n#### Notes\n\n");
	for (size_t i = 0; i < r->n_notes; i++)
		fprintf(m->f, "- %s\n", md(m, r->notes[i], ESCAPE_MD_INLINE, 0));
}

/* The document's pieces are written to memory (open_memstream) so that the
 * short view can be measured and assembled within MD_LIMIT. */
struct md_piece {
	char *data;
	size_t len;
	FILE *f;
};

static bool md_open(struct md_out *m, struct md_piece *p)
{
	free(p->data);
	p->data = NULL;
	p->len = 0;
	p->f = open_memstream(&p->data, &p->len);
	if (!p->f) {
		m->oom = true;
		return false;
	}
	m->f = p->f;
	return true;
}

static void md_close(struct md_out *m, struct md_piece *p)
{
	if (p->f && fclose(p->f) != 0)
		m->oom = true;
	p->f = NULL;
	m->f = NULL;
}

/* Where the piece's writing stands (its length so far). */
static size_t md_pos(struct md_out *m, struct md_piece *p)
{
	if (fflush(p->f) != 0)
		m->oom = true;
	return p->len;
}

static void md_head(struct md_out *m, const struct report *r, enum report_view view)
{
	fprintf(m->f, "## Re-execution audit\n\n");
	md_verdict(m, r, view != REPORT_FINDINGS);
	fputc('\n', m->f);
	md_summary(m, r);
	md_context(m, r);
}

/* One payload of an attempt in a finding, as a list item. */
static void md_payload_item(struct md_out *m, const struct report_run *run,
			    const struct report_payload_attempt *pa, bool output)
{
	struct report_payload p;
	if (!report_payload_of(run, pa, output, &p))
		return;
	struct buf note;
	buf_init(&note, 0);
	if (report_payload_note(&note, run, &p) < 0) {
		m->oom = true;
		buf_finish(&note);
		return;
	}
	/* The scheduled id tells apart the attempts of two calls of a name. */
	fprintf(m->f, "- %s attempt %u (task\\_scheduled\\_id %" PRId64 ") %s %s",
		md(m, pa->inv->name ? pa->inv->name : "-", ESCAPE_MD_INLINE, 0), pa->no, pa->at->scheduled_id,
		output ? "output" : "input", md(m, note.data, ESCAPE_MD_INLINE, 0));
	/* Inline and escaped, not fenced: a payload holding a fence would
	 * close it. */
	if (p.shown == REPORT_PAYLOAD_TEXT)
		fprintf(m->f, ": %s%s", md(m, p.text, ESCAPE_MD_INLINE, 0), p.cut ? "..." : "");
	fputc('\n', m->f);
	buf_finish(&note);
}

/* --show-payloads (issue 19): the inputs and outputs of the attempts in
 * findings of the first MD_PAYLOAD_RUNS runs, MD_PAYLOAD_ATTEMPTS each; at
 * metadata the sentence that says why there are none. */
static void md_payloads(struct md_out *m, const struct report *r)
{
	size_t runs = 0, more_runs = 0;
	for (size_t i = 0; m->show_payloads && i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		if (!report_run_has_payloads_to_show(run))
			continue;
		if (runs == MD_PAYLOAD_RUNS) {
			more_runs++;
			continue;
		}
		struct report_payload_attempt *v;
		long n = report_payload_attempts(run, &v);
		if (n < 0) {
			m->oom = true;
			return;
		}
		if (n == 0)
			continue;
		if (runs++ == 0)
			fprintf(m->f, "\n### Payloads of the attempts in findings\n");
		if (r->n_runs > 1)
			fprintf(m->f, "\nRun %s:\n",
				run->run_id ? md(m, run->run_id, ESCAPE_MD_INLINE, 0) : "(unknown run id)");
		fputc('\n', m->f);
		struct buf b;
		buf_init(&b, 0);
		if (report_payloads_withheld(&b, run) < 0)
			m->oom = true;
		if (b.len) {
			fprintf(m->f, "%s\n", md(m, b.data, ESCAPE_MD_INLINE, 0));
		} else {
			for (long k = 0; k < n && k < MD_PAYLOAD_ATTEMPTS; k++) {
				md_payload_item(m, run, &v[k], false);
				md_payload_item(m, run, &v[k], true);
			}
			if (n > MD_PAYLOAD_ATTEMPTS)
				fprintf(m->f, "- %ld more attempts: `--format json` lists them all\n",
					n - MD_PAYLOAD_ATTEMPTS);
		}
		buf_finish(&b);
		free(v);
	}
	if (more_runs)
		fprintf(m->f, "\n%zu more run%s with findings: `--format json` has their payloads.\n", more_runs,
			more_runs == 1 ? "" : "s");
}

static void md_tail(struct md_out *m, const struct report *r, bool all)
{
	md_remedies(m, r);
	md_limits_once(m, r, all);
}

/* Whether `more` bytes still fit the note piece being written within room. */
static bool md_fits(struct md_out *m, size_t more, size_t room)
{
	long at = ftell(m->f);
	return at >= 0 && (size_t)at + more <= room;
}

/* What the short view could not fit: counts, the run ids in a <details>
 * block as far as room lasts, and where the whole report is. */
static void md_fold_note(struct md_out *m, const struct report *r, const bool *wanted, const bool *in_table,
			 const bool *charts, size_t room)
{
	size_t n_sections = 0, n_rows = 0, n_charted = 0, n_uncharted = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		if (wanted[i] && !m->shown[i])
			n_sections++;
		if (!in_table[i])
			n_rows++;
		if (charts[i] && m->shown[i])
			n_charted++;
		else if (r->runs[i].n_suspect)
			n_uncharted++;
	}
	if (n_uncharted) {
		fprintf(m->f, "\nA timeline is drawn for the first %zu suspect run%s; not for ", n_charted,
			n_charted == 1 ? "" : "s");
		size_t listed = 0;
		for (size_t i = 0; i < r->n_runs && listed < MD_UNCHARTED_NAMED; i++) {
			const struct report_run *run = &r->runs[i];
			if (!run->n_suspect || (charts[i] && m->shown[i]))
				continue;
			/* room left for the lines below it (MD_RESERVE holds them) */
			if (!md_fits(m, 2 * MD_NAME_MAX + 600, room))
				break;
			fputs(listed++ ? ", " : "", m->f);
			md_run_ref(m, r, run, ESCAPE_MD_INLINE, MD_NAME_MAX);
		}
		if (n_uncharted > listed)
			fprintf(m->f, " and %zu more", n_uncharted - listed);
		fprintf(m->f, " (`--verbose-report` in text draws each).\n");
	}
	if (!n_sections && !n_rows)
		return;
	fprintf(m->f, "\n**Folded to stay within GitHub's 65,536 characters:** ");
	if (n_sections)
		fprintf(m->f, "%zu run section%s not shown", n_sections, n_sections == 1 ? "" : "s");
	if (n_rows)
		fprintf(m->f, "%s%zu run%s not in the table", n_sections ? ", " : "", n_rows,
			n_rows == 1 ? "" : "s");
	fprintf(m->f,
		". The whole report, every run and attempt, is the JSON of the same audit (`--format json`).\n");
	if (!n_sections)
		return;
	fprintf(m->f, "\n<details><summary>Runs with findings not shown here</summary>\n\n");
	size_t listed = 0;
	for (size_t i = 0; i < r->n_runs && listed < MD_DETAILS_RUNS; i++) {
		const struct report_run *run = &r->runs[i];
		if (!wanted[i] || m->shown[i])
			continue;
		const char *id = md(m, run->run_id ? run->run_id : "unknown", ESCAPE_MD_INLINE, MD_NAME_MAX);
		/* the note so far, this id with its count, and the closing lines */
		if (!md_fits(m, strlen(id) + 80, room))
			break;
		fprintf(m->f, "%s%s", listed ? ", " : "", id);
		if (run->analysis)
			fprintf(m->f, " (%zu suspect)", run->n_suspect);
		else
			fprintf(m->f, " (not audited)");
		listed++;
	}
	if (listed < n_sections)
		fprintf(m->f, "%sand %zu more", listed ? ", " : "", n_sections - listed);
	fprintf(m->f, "\n\n</details>\n");
}

/* The run table into rows: the runs in_table (NULL: every run), then the
 * runs not audited among them. false when out of memory. */
static bool md_table(struct md_out *m, const struct report *r, struct md_piece *rows, const bool *in_table)
{
	if (!md_open(m, rows))
		return false;
	md_overview_head(m);
	for (size_t i = 0; i < r->n_runs; i++)
		if (!in_table || in_table[i])
			md_overview_row(m, r, &r->runs[i]);
	md_overview_failed(m, r, in_table);
	md_close(m, rows);
	return true;
}

/* Which runs the table holds within a third of avail: every run when they
 * fit, else the runs with sections (findings, not audited) while they do
 * (a run not audited counts thrice: its reason follows the table); the
 * clean runs are a count. The table is left in rows. */
static bool md_fit_table(struct md_out *m, const struct report *r, struct md_piece *rows, const bool *wanted,
			 bool *in_table, size_t *row_len, size_t avail)
{
	if (!md_open(m, rows))
		return false;
	md_overview_head(m);
	for (size_t i = 0; i < r->n_runs; i++) {
		size_t before = md_pos(m, rows);
		md_overview_row(m, r, &r->runs[i]);
		row_len[i] = md_pos(m, rows) - before;
	}
	md_overview_failed(m, r, NULL);
	size_t total = md_pos(m, rows);
	md_close(m, rows);
	if (total <= avail / 3)
		return true;
	size_t t = 200;
	for (size_t i = 0; i < r->n_runs; i++) {
		size_t cost = row_len[i] + (r->runs[i].analysis ? 0 : 2 * row_len[i]);
		in_table[i] = wanted[i] && t + cost <= avail / 3;
		if (in_table[i])
			t += cost;
	}
	return md_table(m, r, rows, in_table);
}

/* The wanted runs' sections in report order while they fit in avail;
 * those that do not are not shown. The length kept. */
static size_t md_fit_sections(struct md_out *m, const struct report *r, struct md_piece *sections,
			      const bool *wanted, bool *shown, size_t avail)
{
	if (!md_open(m, sections))
		return 0;
	size_t kept = 0;
	bool full = false;
	for (size_t i = 0; i < r->n_runs; i++) {
		if (!wanted[i])
			continue;
		if (full) {
			shown[i] = false;
			continue;
		}
		md_run_short(m, r, &r->runs[i], r->n_runs > 1);
		size_t now = md_pos(m, sections);
		if (now > avail) {
			full = true;
			shown[i] = false;
			continue;
		}
		kept = now;
	}
	md_close(m, sections);
	return kept;
}

/* The short view of several runs within MD_LIMIT: the head (verdict,
 * summary, context), the run table, a section per run with findings (or
 * every run with --all-runs), the remedies and limits once. The table takes
 * at most a third of the room; sections follow in report order while they
 * fit. Head and table are measured with a link to every section and
 * written again with links only to those that fit, so they only shrink. */
static void md_short(struct md_out *m, FILE *out, const struct report *r, const struct render_options *o,
		     bool *shown, const bool *charts)
{
	bool multi = r->n_runs > 1;
	bool all = !multi || (o && o->all_runs);
	size_t n = r->n_runs;
	struct md_piece head = {0}, tail = {0}, rows = {0}, sections = {0}, note = {0};
	bool *wanted = calloc(n + 1, sizeof *wanted), *in_table = calloc(n + 1, sizeof *in_table);
	size_t *row_len = calloc(n + 1, sizeof *row_len);
	if (!wanted || !in_table || !row_len) {
		m->oom = true;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		wanted[i] = all || !r->runs[i].analysis || report_run_has_findings(&r->runs[i]);
		shown[i] = wanted[i];
		in_table[i] = true;
	}
	if (!md_open(m, &tail))
		goto out;
	md_payloads(m, r);
	md_tail(m, r, all);
	md_notes(m, r);
	md_close(m, &tail);
	if (!md_open(m, &head))
		goto out;
	md_head(m, r, REPORT_SHORT);
	md_close(m, &head);
	if (m->oom)
		goto out;
	size_t used = head.len + tail.len + MD_RESERVE;
	size_t avail = used < MD_LIMIT ? MD_LIMIT - used : 0;
	if (multi) {
		if (!md_fit_table(m, r, &rows, wanted, in_table, row_len, avail))
			goto out;
		avail = avail > rows.len ? avail - rows.len : 0;
	}
	size_t kept = md_fit_sections(m, r, &sections, wanted, shown, avail);
	if (m->oom)
		goto out;
	/* Written again with the links that now hold. */
	if (!md_open(m, &head))
		goto out;
	md_head(m, r, REPORT_SHORT);
	md_close(m, &head);
	if (multi && !md_table(m, r, &rows, in_table))
		goto out;
	size_t so_far = head.len + rows.len + kept + tail.len;
	if (!md_open(m, &note))
		goto out;
	md_fold_note(m, r, wanted, in_table, charts, so_far + 200 < MD_LIMIT ? MD_LIMIT - so_far - 200 : 0);
	md_close(m, &note);
	if (m->oom)
		goto out;
	fwrite(head.data, 1, head.len, out);
	if (rows.data)
		fwrite(rows.data, 1, rows.len, out);
	if (sections.data)
		fwrite(sections.data, 1, kept, out);
	fwrite(note.data, 1, note.len, out);
	fwrite(tail.data, 1, tail.len, out);
out: /* every piece is closed by then: md_open fails with none open */
	free(head.data);
	free(tail.data);
	free(rows.data);
	free(sections.data);
	free(note.data);
	free(wanted);
	free(in_table);
	free(row_len);
}

int render_markdown(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	struct md_out m = {.f = out, .show_payloads = o && o->show_payloads};
	for (size_t i = 0; i < MD_SLOTS; i++)
		buf_init(&m.slot[i], 0);
	enum report_view view = o ? o->view : REPORT_SHORT;
	bool *shown = calloc(r->n_runs + 1, sizeof *shown);
	bool *charts = calloc(r->n_runs + 1, sizeof *charts);
	if (!shown || !charts) {
		m.oom = true;
		goto out;
	}
	/* The first suspect runs get a gantt chart. */
	for (size_t i = 0, drawn = 0; i < r->n_runs && drawn < MD_TIMELINES && view != REPORT_FINDINGS; i++)
		if (r->runs[i].analysis && r->runs[i].n_suspect)
			charts[i] = true, drawn++;
	m.charts = charts;
	m.shown = shown;
	if (view == REPORT_SHORT) {
		md_short(&m, out, r, o, shown, charts);
		goto out;
	}
	for (size_t i = 0; i < r->n_runs; i++)
		shown[i] = view == REPORT_FULL || !r->runs[i].analysis || report_run_has_findings(&r->runs[i]);
	md_head(&m, r, view);
	if (view == REPORT_FULL) {
		if (r->n_runs > 1) {
			md_overview_head(&m);
			for (size_t i = 0; i < r->n_runs; i++)
				md_overview_row(&m, r, &r->runs[i]);
			md_overview_failed(&m, r, NULL);
		}
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			md_anchor(&m, r, run);
			fputc('\n', out);
			md_header(&m, run);
			if (!run->analysis) {
				md_failed(&m, run);
				continue;
			}
			fprintf(out, "\n#### Activities and attempts\n");
			md_attempts(&m, run->analysis, true);
			if (charts[i])
				md_chart(&m, run);
			md_findings(&m, run);
			md_withheld(&m, run->analysis);
			md_limits(&m, run->analysis);
		}
	} else {
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			if (!shown[i])
				continue;
			md_anchor(&m, r, run);
			fprintf(out, "\n### Run %s\n\n",
				run->run_id ? md(&m, run->run_id, ESCAPE_MD_INLINE, 0) : "(unknown run id)");
			if (!run->analysis) {
				md_failed(&m, run);
				continue;
			}
			for (size_t k = 0; k < run->analysis->n_findings; k++) {
				char id[REPORT_FINDING_SHORT_ID_LEN];
				report_finding_short_id(run, k, id);
				md_finding_short(&m, &run->analysis->findings[k], true, id,
						 report_source_note(run, &run->analysis->findings[k]));
			}
		}
	}
	md_payloads(&m, r);
	md_notes(&m, r);
out:
	free(shown);
	free(charts);
	for (size_t i = 0; i < MD_SLOTS; i++)
		buf_finish(&m.slot[i]);
	if (m.oom)
		return err_oom(e);
	if (ferror(out))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}
