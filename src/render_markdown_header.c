/* The Markdown report's header (the project, filters, data sharing), its
 * context and closing sections, and the timeline: a run's header table and
 * its gantt chart (Mermaid names escaped by md_mermaid_name). */
#include <stdlib.h>
#include <string.h>

#include "render_markdown_internal.h"

void md_header(struct md_out *m, const struct report_run *run)
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

/* A history time in UTC with "Z" (form), escaped if it is not RFC 3339;
 * "" for NULL. Valid until MD_SLOTS more calls. */
const char *md_time(struct md_out *m, const char *ts, enum report_time_form form)
{
	char tmp[64];
	if (!ts)
		return "";
	if (!report_time_utc(ts, form, tmp, sizeof tmp))
		return md(m, ts, ESCAPE_MD_CELL, 40);
	return md(m, tmp, ESCAPE_MD_CELL, 0);
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
void md_chart(struct md_out *m, const struct report_run *run)
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

void md_notes(struct md_out *m, const struct report *r)
{
	if (!r->n_notes)
		return;
	fprintf(m->f, "\n#### Notes\n\n");
	for (size_t i = 0; i < r->n_notes; i++)
		fprintf(m->f, "- %s\n", md(m, r->notes[i], ESCAPE_MD_INLINE, 0));
}

void md_head(struct md_out *m, const struct report *r, enum report_view view)
{
	fprintf(m->f, "## Re-execution audit\n\n");
	md_verdict(m, r, view != REPORT_FINDINGS);
	fputc('\n', m->f);
	md_summary(m, r);
	md_context(m, r);
}

void md_tail(struct md_out *m, const struct report *r, bool all)
{
	md_remedies(m, r);
	md_limits_once(m, r, all);
}
