/* The Markdown report: a section to paste into a post-mortem. Formats the
 * report and nothing else; every server-supplied string goes through
 * escape_markdown so table syntax, emphasis, HTML and control characters in
 * names or error messages stay inert. */
#include "render.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "escape.h"

#define MD_SLOTS 6
#define MD_CELL_MAX 200 /* characters of an error message in a table cell */

struct md_out {
	FILE *f;
	struct buf slot[MD_SLOTS];
	size_t next_slot;
	bool oom;
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

static void md_activities(struct md_out *m, const struct analysis *a)
{
	fprintf(m->f, "\n#### Activities and attempts\n\n");
	if (a->n_invocations == 0) {
		fprintf(m->f, "No activity was scheduled in this history.\n");
		return;
	}
	/* Payload columns only when some payload key is there at all: at
	 * metadata they would be a column of "absent". */
	bool payloads = false;
	for (size_t i = 0; i < a->n_invocations && !payloads; i++)
		for (size_t k = 0; k < a->invocations[i].n_attempts; k++)
			if (a->invocations[i].attempts[k].input.state != PAYLOAD_ABSENT ||
			    a->invocations[i].attempts[k].output.state != PAYLOAD_ABSENT)
				payloads = true;
	fprintf(m->f,
		"| Activity | Execution id | Linked by | Attempt | Scheduled id | Scheduled at | Outcome | Error |%s\n"
		"| --- | --- | --- | --- | --- | --- | --- | --- |%s\n",
		payloads ? " Input | Output |" : "", payloads ? " --- | --- |" : "");
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		for (size_t k = 0; k < inv->n_attempts; k++) {
			const struct attempt *at = &inv->attempts[k];
			if (k == 0)
				fprintf(m->f, "| %s%s | %s | %s |",
					inv->is_child_workflow ? "child workflow " : "",
					inv->name ? md(m, inv->name, ESCAPE_MD_CELL, 0) : "(unnamed)",
					inv->task_execution_id && *inv->task_execution_id
						? md(m, inv->task_execution_id, ESCAPE_MD_CELL, 0)
					: inv->is_child_workflow ? "none (child workflow: see instances)"
								 : "none recorded",
					md_link(inv->link));
			else
				fprintf(m->f, "| | | |");
			fprintf(m->f, " %zu | %" PRId64 " | %s | %s", k + 1, at->scheduled_id,
				at->scheduled_at ? md(m, at->scheduled_at, ESCAPE_MD_CELL, 0) : "",
				attempt_outcome_name(at->outcome));
			if (at->n_results > 1)
				fprintf(m->f, " (%zu results)", (size_t)at->n_results);
			if (inv->is_child_workflow && at->instance_id)
				fprintf(m->f, "<br>instance %s", md(m, at->instance_id, ESCAPE_MD_CELL, 0));
			fprintf(m->f, " | ");
			if (at->error_type)
				fprintf(m->f, "%s%s", md(m, at->error_type, ESCAPE_MD_CELL, 80),
					at->error_message ? ": " : "");
			if (at->error_message)
				fputs(md(m, at->error_message, ESCAPE_MD_CELL, MD_CELL_MAX), m->f);
			if (at->non_retriable)
				fprintf(m->f, " (non-retriable)");
			if (at->cause_type || at->cause_message) {
				/* The innermost cause (innerFailure), which the class rests on. */
				fprintf(m->f, "<br>caused by ");
				if (at->cause_type)
					fprintf(m->f, "%s%s", md(m, at->cause_type, ESCAPE_MD_CELL, 80),
						at->cause_message ? ": " : "");
				if (at->cause_message)
					fputs(md(m, at->cause_message, ESCAPE_MD_CELL, MD_CELL_MAX), m->f);
			}
			const char *note = at->outcome == OUTCOME_FAILED
						   ? failure_class_note((enum failure_class)at->failure)
						   : NULL;
			if (note)
				fprintf(m->f, "<br>%s", note);
			if (payloads) {
				fprintf(m->f, " | ");
				md_payload_cell(m, &at->input);
				fprintf(m->f, " | ");
				md_payload_cell(m, &at->output);
			}
			fprintf(m->f, " |\n");
		}
	}
	bool any = false;
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		if (!inv->n_retry_timers)
			continue;
		if (!any)
			fprintf(m->f, "\nRetry timers linking the attempts:\n\n");
		any = true;
		fprintf(m->f, "- %s: event%s ", inv->name ? md(m, inv->name, ESCAPE_MD_INLINE, 0) : "(unnamed)",
			inv->n_retry_timers == 1 ? "" : "s");
		md_ids(m, inv->retry_timer_event_ids, inv->n_retry_timers);
		fputc('\n', m->f);
	}
}

static void md_findings(struct md_out *m, const struct analysis *a)
{
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

/* "2026-09-14T11:30:00.040Z" as "2026-09-14 11:30"; anything else whole. */
static const char *md_started(struct md_out *m, const struct report_run *run, char *tmp, size_t size)
{
	const char *ts = run->analysis ? run->analysis->started_at : NULL;
	if (!ts)
		return "";
	if (!report_time_minute(ts, tmp, size))
		return md(m, ts, ESCAPE_MD_CELL, 40);
	return tmp;
}

/* With several runs, one table row per run: ids whole (a table cell wraps). */
static void md_overview(struct md_out *m, const struct report *r)
{
	char tmp[64];
	fprintf(m->f,
		"\n| Run | App | Workflow | Started | Status | Activities | Re-executed | Findings | Suspect |\n");
	fprintf(m->f, "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: |\n");
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		fprintf(m->f, "| %s | %s | %s | %s | ",
			md(m, run->run_id ? run->run_id : "unknown", ESCAPE_MD_CELL, 0),
			md(m, run->app_id ? run->app_id : "unknown", ESCAPE_MD_CELL, 0),
			md(m, report_run_workflow(run) ? report_run_workflow(run) : "", ESCAPE_MD_CELL, 0),
			md_started(m, run, tmp, sizeof tmp));
		if (!run->analysis) {
			fprintf(m->f, "not audited: %s | | | | |\n",
				md(m, run->refusal_kind ? run->refusal_kind : run->failure, ESCAPE_MD_CELL, 80));
			continue;
		}
		fprintf(m->f, "%s | %zu | %zu | %zu | %zu |\n",
			md(m, report_run_status(run) ? report_run_status(run) : "", ESCAPE_MD_CELL, 0),
			run->n_activities, run->n_reexecuted, run->n_findings, run->n_suspect);
	}
}

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
	fputc('\n', m->f);
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct report_run *run = &r->runs[i];
		const struct analysis *a = run->analysis;
		for (size_t k = 0; a && k < a->n_findings; k++) {
			const struct finding *f = &a->findings[k];
			if (f->severity != SEVERITY_SUSPECT)
				continue;
			fprintf(m->f, "- ");
			if (!one)
				fprintf(m->f,
					"%s: ", md(m, run->run_id ? run->run_id : "unknown", ESCAPE_MD_INLINE, 0));
			fprintf(m->f, "%s `%s`", f->activity ? md(m, f->activity, ESCAPE_MD_INLINE, 0) : "-",
				finding_kind_id(f->kind));
			if (f->task_execution_id && *f->task_execution_id)
				fprintf(m->f, ", execution %s", md(m, f->task_execution_id, ESCAPE_MD_INLINE, 0));
			fputc('\n', m->f);
		}
	}
}

/* A finding in a line: severity, kind, activity, execution, evidence, and
 * (unless one_line) its summary. */
static void md_finding_short(struct md_out *m, const struct finding *f, bool one_line)
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
	if (!one_line && f->summary && *f->summary)
		fprintf(m->f, ": %s", md(m, f->summary, ESCAPE_MD_INLINE, 0));
	fprintf(m->f, "\n");
}

static void md_run_short(struct md_out *m, const struct report_run *run, bool own_limits)
{
	const char *workflow = report_run_workflow(run);
	fprintf(m->f, "\n### Run %s", run->run_id ? md(m, run->run_id, ESCAPE_MD_INLINE, 0) : "(unknown run id)");
	if (workflow)
		fprintf(m->f, ": %s", md(m, workflow, ESCAPE_MD_INLINE, 0));
	const char *status = report_run_status(run);
	fprintf(m->f, "\n\nApp %s, status %s", run->app_id ? md(m, run->app_id, ESCAPE_MD_INLINE, 0) : "unknown",
		status                                      ? md(m, status, ESCAPE_MD_INLINE, 0)
		: run->analysis && !run->analysis->finished ? "not finished"
							    : "unknown");
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
	for (size_t i = 0; i < a->n_findings; i++)
		md_finding_short(m, &a->findings[i], false);
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

int render_markdown(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	struct md_out m = {.f = out};
	for (size_t i = 0; i < MD_SLOTS; i++)
		buf_init(&m.slot[i], 0);
	enum report_view view = o ? o->view : REPORT_SHORT;
	bool multi = r->n_runs > 1;

	fprintf(out, "## Re-execution audit\n\n");
	md_verdict(&m, r, view != REPORT_FINDINGS);
	fputc('\n', out);
	md_summary(&m, r);
	if (view == REPORT_FULL) {
		if (multi)
			md_overview(&m, r);
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			fputc('\n', out);
			md_header(&m, run);
			if (!run->analysis) {
				md_failed(&m, run);
				continue;
			}
			md_activities(&m, run->analysis);
			md_findings(&m, run->analysis);
			md_withheld(&m, run->analysis);
			md_limits(&m, run->analysis);
		}
	} else if (view == REPORT_FINDINGS) {
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			if (run->analysis && !report_run_has_findings(run))
				continue;
			fprintf(out, "\n### Run %s\n\n",
				run->run_id ? md(&m, run->run_id, ESCAPE_MD_INLINE, 0) : "(unknown run id)");
			if (!run->analysis) {
				md_failed(&m, run);
				continue;
			}
			for (size_t k = 0; k < run->analysis->n_findings; k++)
				md_finding_short(&m, &run->analysis->findings[k], true);
		}
	} else {
		if (multi)
			md_overview(&m, r);
		bool all = !multi || (o && o->all_runs);
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			if (!all && run->analysis && !report_run_has_findings(run))
				continue;
			md_run_short(&m, run, multi);
		}
		md_remedies(&m, r);
		md_limits_once(&m, r, all);
	}
	md_notes(&m, r);
	for (size_t i = 0; i < MD_SLOTS; i++)
		buf_finish(&m.slot[i]);
	if (m.oom)
		return err_oom(e);
	if (ferror(out))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}
