/* The Markdown report's runs: the overview table, each run's short
 * section, its attempts (a table, then a list of what does not fit), the
 * withheld payloads and limits, and --show-payloads' payloads. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "report_facts.h"
#include "report_payloads.h"
#include "render_markdown_internal.h"

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
		fprintf(m->f, "%" PRIu32 " bytes", p->size);
}

void md_withheld(struct md_out *m, const struct analysis *a)
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

void md_limits(struct md_out *m, const struct analysis *a)
{
	fprintf(m->f, "\n#### What this history cannot show\n\n");
	if (a->n_limits == 0)
		fprintf(m->f, "No limits recorded.\n");
	for (size_t i = 0; i < a->n_limits; i++)
		fprintf(m->f, "- %s\n", md(m, a->limits[i], ESCAPE_MD_INLINE, 0));
}

void md_failed(struct md_out *m, const struct report_run *run)
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

/* A run named in running text: a link to its section when the document
 * has it (the anchor run-N, N its 1-based place in the report). */
void md_run_ref(struct md_out *m, const struct report *r, const struct report_run *run, enum escape_md_context ctx,
		size_t max)
{
	size_t i = (size_t)(run - r->runs);
	const char *id = md(m, run->run_id ? run->run_id : "unknown", ctx, max);
	if (m->shown && m->shown[i])
		fprintf(m->f, "[%s](#run-%zu)", id, i + 1);
	else
		fputs(id, m->f);
}

const char *md_outcome(const struct attempt *at)
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
	const struct attempt_more *mo = attempt_more(at);
	bool err = mo->error_type || mo->error_message || mo->cause_type || mo->cause_message;
	bool inst = inv->is_child_workflow && mo->instance_id;
	fprintf(m->f, "  - attempt %zu:", k + 1);
	if (inst)
		fprintf(m->f, " instance %s%s", md(m, mo->instance_id, ESCAPE_MD_INLINE, 0), err ? ";" : "");
	if (mo->error_type)
		fprintf(m->f, " %s%s", md(m, mo->error_type, ESCAPE_MD_INLINE, 80), mo->error_message ? ":" : "");
	if (mo->error_message)
		fprintf(m->f, " %s", md(m, mo->error_message, ESCAPE_MD_INLINE, MD_CELL_MAX));
	if (at->non_retriable)
		fprintf(m->f, " (non-retriable)");
	if (mo->cause_type || mo->cause_message) {
		/* The innermost cause (innerFailure), which the class rests on. */
		fprintf(m->f, "; caused by");
		if (mo->cause_type)
			fprintf(m->f, " %s%s", md(m, mo->cause_type, ESCAPE_MD_INLINE, 80),
				mo->cause_message ? ":" : "");
		if (mo->cause_message)
			fprintf(m->f, " %s", md(m, mo->cause_message, ESCAPE_MD_INLINE, MD_CELL_MAX));
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
void md_attempts(struct md_out *m, const struct analysis *a, bool all)
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
			const struct attempt_more *mo = attempt_more(at);
			bool err = mo->error_type || mo->error_message || mo->cause_type || mo->cause_message;
			bool inst = inv->is_child_workflow && mo->instance_id;
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

/* With several runs, one row per run in six columns (md_overview_row);
 * the reasons of runs not audited go to a list under the table. */
void md_overview_row(struct md_out *m, const struct report *r, const struct report_run *run)
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

void md_overview_head(struct md_out *m)
{
	fprintf(m->f, "\n| Run | App | Workflow | Started (UTC) | Status | Findings |\n"
		      "| --- | --- | --- | --- | --- | --- |\n");
}

/* rows: the runs in the table (NULL: all). */
void md_overview_failed(struct md_out *m, const struct report *r, const bool *rows)
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

void md_anchor(struct md_out *m, const struct report *r, const struct report_run *run)
{
	fprintf(m->f, "\n<a id=\"run-%zu\"></a>\n", (size_t)(run - r->runs) + 1);
}

/* The run's version, stalls and signing (report_facts.h), an item each. */
struct md_facts {
	struct md_out *m;
	bool any;
};

static void md_fact(const char *sentence, void *ctx)
{
	struct md_facts *f = ctx;
	fprintf(f->m->f, "%s- %s\n", f->any ? "" : "\n", md(f->m, sentence, ESCAPE_MD_INLINE, 0));
	f->any = true;
}

static void md_facts(struct md_out *m, const struct analysis *a)
{
	struct md_facts f = {m, false};
	report_facts_each(a, md_fact, &f);
}

void md_run_short(struct md_out *m, const struct report *r, const struct report_run *run, bool own_limits)
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
	md_facts(m, a);
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
void md_payloads(struct md_out *m, const struct report *r)
{
	size_t runs = 0, more_runs = 0;
	for (size_t i = 0; m->o.show_payloads && i < r->n_runs; i++) {
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
