/* `catalyst-audit runs [FILTERS]`: the project's runs, listed page by page
 * and each page audited before the next is asked for, so the listing is
 * never held; child runs followed after. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "audit_catalyst.h"

static const char *filter_name(enum catalyst_arg a)
{
	switch (a) {
	case CATALYST_ARG_APP:
		return "--app";
	case CATALYST_ARG_WORKFLOW:
		return "--workflow";
	case CATALYST_ARG_STATUS:
		return "--status";
	case CATALYST_ARG_SINCE:
		return "--since";
	case CATALYST_ARG_UNTIL:
		return "--until";
	default:
		return "?";
	}
}

/* --workflow matches in any case; the server's filter may not. So the
 * spelling the server uses is looked up in catalyst_list_workflows: one
 * spelling found, it is sent (and checked here too); none, the name goes
 * as given (the server knows no such workflow in any case); several, or
 * no answer, no workflow filter goes to the server and every listed run is
 * checked here, in any case. Returns the spelling to send (the caller's),
 * or NULL, with a note for the report in `note` ("" for none). */
char *audit_workflow_spelling(struct audit_ctx *x, const char *want, const char *app, char *note, size_t size)
{
	static const char tool[] = "catalyst_list_workflows";
	static const char *const k_wf[] = {"workflowname", "name", "workflow", "workflowtype", NULL};
	note[0] = '\0';
	if (!catalyst_has_tool(x->c, tool)) {
		snprintf(
			note, size,
			"--workflow %s was matched here in any case over every listed run (the server offers no %s "
			"to look up its spelling)",
			want, tool);
		return NULL;
	}
	const char *vals[CATALYST_ARG_COUNT] = {
		[CATALYST_ARG_PROJECT] = x->project.value, [CATALYST_ARG_APP] = app};
	unsigned required = x->project.defaulted ? 0 : CATALYST_BIT(CATALYST_ARG_PROJECT);
	json_t *doc = NULL;
	struct err e;
	err_clear(&e);
	if (catalyst_invoke(x->c, tool, vals, required, NULL, &doc, NULL, NULL, &e) < 0) {
		snprintf(note, size, "--workflow %s was matched here in any case over every listed run (%s)", want,
			 e.msg);
		return NULL;
	}
	char *names[8];
	size_t n = 0;
	bool more = false;
	size_t i;
	const json_t *w;
	json_array_foreach(catalyst_find_list(doc, 2), i, w) {
		const char *name = catalyst_find_string(w, k_wf, 0, NULL);
		if (!name || strcasecmp(name, want) != 0)
			continue;
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(names[k], name) == 0;
		if (dup)
			continue;
		if (n == sizeof names / sizeof *names)
			more = true;
		else
			names[n++] = strdup(name);
	}
	json_decref(doc);
	char *pick = NULL;
	if (n == 1) {
		pick = names[0];
		names[0] = NULL;
		if (strcmp(pick, want) != 0)
			snprintf(note, size, "--workflow %s matched the workflow %s (names match in any case)",
				 want, pick);
	} else if (n > 1) {
		char list[400];
		audit_join_names(names, n, more, list, sizeof list);
		snprintf(note, size,
			 "--workflow %s matched the workflows %s (names match in any case); they were picked here "
			 "from every listed run",
			 want, list);
	}
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	if (n == 0)
		pick = strdup(want);
	return pick;
}

/* The filters as the server takes them: usage errors before any traffic. */
int audit_run_filters(const struct audit_request *rq, struct catalyst_run_filter *f, char status[32],
		      char since[32], char until[32], struct err *e)
{
	if (rq->filters.status) {
		catalyst_status_normalize(rq->filters.status, status, 32);
		if (!catalyst_status_valid(status))
			return err_set(
				e, ERR_USAGE,
				"--status: expected running|completed|failed|terminated|suspended|canceled, got "
				"'%s'",
				rq->filters.status);
		f->status = status;
	}
	time_t now = time(NULL);
	if (rq->filters.since) {
		if (catalyst_time_arg("since", rq->filters.since, now, since, e) < 0)
			return -1;
		f->since = since;
	}
	if (rq->filters.until) {
		if (catalyst_time_arg("until", rq->filters.until, now, until, e) < 0)
			return -1;
		f->until = until;
	}
	if (f->since && f->until && strcmp(f->since, f->until) > 0)
		return err_set(e, ERR_USAGE, "--since %s is after --until %s", f->since, f->until);
	return 0;
}

void audit_listing_notes(struct audit_ctx *x, const struct catalyst_run_list *l, const struct err *list_err,
			 size_t n_runs)
{
	const struct audit_request *rq = x->rq;
	struct report *r = x->r;
	for (int a = 0; a < CATALYST_ARG_COUNT; a++)
		if (l->client_side & CATALYST_BIT(a))
			report_add_note(r,
					"the server's catalyst_list_workflow_runs has no input property for %s: "
					"%s was applied here to the listed runs",
					catalyst_arg_label((enum catalyst_arg)a),
					filter_name((enum catalyst_arg)a));
	if (l->unfilterable)
		report_add_note(r,
				"the server refused %zu page(s) as unfilterable (too large to filter); runs were "
				"listed %ld per page",
				l->unfilterable, l->page_size);
	if (l->truncated)
		report_add_note(
			r,
			"the run list was cut short after %zu pages (the server's list tool takes no cursor): "
			"more runs may match",
			l->pages);
	if (l->limit_reached)
		report_add_note(r, "--limit %ld reached: more runs may match", rq->filters.limit);
	if (l->repeats) {
		report_add_note(r,
				"the server listed runs more than once (%zu repeats): each run was audited and "
				"counted once",
				l->repeats);
		audit_warnf(
			rq,
			"the server listed runs more than once (%zu repeats): each run was audited and counted once",
			l->repeats);
	}
	if (list_err->code)
		report_add_note(r, "the run list ended early, after %zu runs in %zu pages: %s", n_runs, l->pages,
				list_err->msg);
	if (n_runs == 0)
		report_add_note(r, "no runs matched");
}

int audit_listing_filters(struct audit_ctx *x, struct audit_listing *l, struct err *e)
{
	const struct audit_request *rq = x->rq;
	memset(l, 0, sizeof *l);
	l->f = (struct catalyst_run_filter){
		.limit = rq->filters.limit, .app = rq->filters.app, .project = &x->project};
	return audit_run_filters(rq, &l->f, l->status, l->since, l->until, e);
}

int audit_listing_start(struct audit_ctx *x, struct audit_listing *l, struct err *e)
{
	const struct audit_request *rq = x->rq;
	if (!x->seen)
		return err_oom(e);
	if (audit_ctx_connect(x, e) < 0 || audit_probe_whoami(x, e) < 0)
		return -1;
	audit_resolve_project(x);
	if (x->unresolved)
		report_add_note(x->r, "%s", x->unresolved);
	char wf_note[700] = "";
	if (rq->filters.workflow) {
		l->f.workflow = l->workflow_exact =
			audit_workflow_spelling(x, rq->filters.workflow, rq->filters.app, wf_note, sizeof wf_note);
		l->f.workflow_match = rq->filters.workflow;
		if (*wf_note)
			report_add_note(x->r, "%s", wf_note);
	}
	/* One set of run keys for the listing and the report (children are
	 * added to it after the listing ends). */
	l->f.seen = x->seen;
	catalyst_list_runs(x->c, &l->f, &l->list);
	return 0;
}

int audit_listing_next(struct audit_ctx *x, struct audit_listing *l)
{
	int step = catalyst_run_list_next(&l->list, &l->rf, &l->err);
	if (step > 0 && l->list.sharing != SHARING_UNKNOWN && !l->sharing_offered) {
		/* Before this page's runs are analysed, as when it was read first. */
		audit_sharing_from_field(x, l->list.sharing, l->list.sharing_key, CATALYST_TOOL_LIST_RUNS);
		l->sharing_offered = true;
	}
	return step;
}

void audit_listing_failed(struct audit_ctx *x, struct audit_listing *l, struct err *e)
{
	/* Nothing was listed: the error is the answer, as it always was. */
	*e = l->err;
	if (e->code == ERR_NOT_FOUND)
		audit_project_missing(x, e);
	else if (e->detail == ERR_DETAIL_REFUSAL && *l->rf.kind)
		err_prefix(e, "listing runs");
}

void audit_listing_finish(struct audit_listing *l)
{
	free(l->workflow_exact);
	catalyst_run_list_finish(&l->list);
}

int audit_runs(const struct audit_request *rq, struct err *e)
{
	struct report r;
	report_init(&r);
	struct audit_ctx x;
	audit_ctx_init(&x, rq, &r);
	struct audit_listing l;
	int rc = -1;

	if (audit_listing_filters(&x, &l, e) < 0)
		goto out;
	x.stream = audit_stream_new(rq);
	if (audit_listing_start(&x, &l, e) < 0)
		goto out;
	/* Each page's runs are audited as soon as it arrives, while the next
	 * is asked for (the runs taken are audited even when the listing
	 * stops); the pool ends with the listing. Each run is in x->seen
	 * already: the listing added it there (f.seen). */
	struct audit_feed *feed = audit_feed_start(&x, "runs");
	if (!feed) {
		err_oom(e);
		goto out;
	}
	int step;
	while ((step = audit_listing_next(&x, &l)) > 0)
		if (audit_feed_add(feed, l.list.items, l.list.n, &l.err) < 0) {
			step = -1;
			break;
		}
	audit_feed_end(feed);
	if (step < 0 && r.n_runs == 0) {
		audit_listing_failed(&x, &l, e);
		goto out;
	}
	audit_listing_notes(&x, &l.list, &l.err, r.n_runs);

	/* Child runs are often not listed on their own. */
	if (!rq->no_children && audit_follow_children(&x, 0, e) < 0)
		goto out;
	if (rq->filters.limit > 0 && r.n_runs > l.list.top_level)
		report_add_note(
			&r,
			"--limit %ld counts top-level runs (%zu audited); %zu child run(s) were added on top, "
			"listed with their parent or started by an audited run",
			rq->filters.limit, l.list.top_level, r.n_runs - l.list.top_level);
	rc = audit_finish_report(&x, "runs", e);
	if (rc >= 0 && l.err.code) {
		/* The report covers what was listed; the status says the list is
		 * incomplete. */
		*e = l.err;
		err_prefix(e, "listing runs (the report covers the %zu runs listed before)", r.n_runs);
		rc = -1;
	}
out:
	audit_listing_finish(&l);
	audit_ctx_finish(&x);
	report_finish(&r);
	return rc;
}
