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

/* The time filters as the server takes them: usage errors before any
 * traffic. */
static int time_filters(const struct audit_request *rq, struct catalyst_run_filter *f, char since[32],
			char until[32], struct err *e)
{
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

/* The listed runs of one page join the report and are audited. */
static int take_page(struct audit_ctx *x, const struct catalyst_run_list *l, struct err *e)
{
	size_t from = x->r->n_runs;
	int rc = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct catalyst_run_item *it = &l->items[i];
		struct report_run *rr = report_add_run(x->r);
		if (!rr) {
			rc = err_set(e, ERR_INTERNAL, "out of memory");
			break;
		}
		rr->app_id = it->app_id ? strdup(it->app_id) : NULL;
		rr->run_id = it->run_id ? strdup(it->run_id) : NULL;
		rr->parent_run_id = it->parent_id ? strdup(it->parent_id) : NULL;
		/* Already in x->seen: the listing added it there (f.seen). */
	}
	/* The runs taken so far are audited even when the listing stops here. */
	audit_range(x, from, x->r->n_runs, "runs");
	return rc;
}

/* What the listing did that the report should say. */
static void listing_notes(struct audit_ctx *x, const struct catalyst_run_list *l, const struct err *list_err)
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
		report_add_note(r, "the run list ended early, after %zu runs in %zu pages: %s", r->n_runs,
				l->pages, list_err->msg);
	if (r->n_runs == 0)
		report_add_note(r, "no runs matched");
}

int audit_runs(const struct audit_request *rq, struct err *e)
{
	struct report r;
	report_init(&r);
	struct audit_ctx x;
	audit_ctx_init(&x, rq, &r);
	struct catalyst_run_list list;
	memset(&list, 0, sizeof list);
	struct runs_filters rfs;
	memset(&rfs, 0, sizeof rfs);
	int rc = -1;

	char since[32], until[32];
	struct catalyst_run_filter f = {.limit = rq->filters.limit, .project = &x.project};
	if (runs_filters_parse(rq, &rfs, &f, e) < 0 || time_filters(rq, &f, since, until, e) < 0)
		goto out;
	audit_report_meta(rq, &r);
	struct report_meta *m = &r.meta;
	m->has_filters = true;
	m->apps = rfs.apps, m->n_apps = rfs.n_apps;
	m->workflows = rfs.workflows, m->n_workflows = rfs.n_workflows;
	m->statuses = rfs.statuses, m->n_statuses = rfs.n_statuses;
	m->since = f.since, m->until = f.until, m->limit = f.limit;
	if (rq->baseline && !(x.baseline = audit_load_baseline(rq, e)))
		goto out;
	x.stream = audit_stream_new(rq);
	if (!x.seen) {
		err_set(e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	if (audit_ctx_connect(&x, e) < 0 || audit_probe_whoami(&x, e) < 0)
		goto out;
	audit_resolve_project(&x);
	m->project_form = x.project.form, m->project = x.project.value;
	if (x.unresolved)
		report_add_note(&r, "%s", x.unresolved);
	if (runs_filters_check(&x, &rfs, &f, e) < 0)
		goto out;

	struct catalyst_refusal rf;
	memset(&rf, 0, sizeof rf);
	struct err list_err;
	err_clear(&list_err);
	bool sharing_offered = false;
	/* One set of run keys for the listing and the report (children are
	 * added to it after the listing ends). */
	f.seen = x.seen;
	catalyst_list_runs(x.c, &f, &list);
	int step;
	while ((step = catalyst_run_list_next(&list, &rf, &list_err)) > 0) {
		if (list.sharing != SHARING_UNKNOWN && !sharing_offered) {
			/* Before this page's runs are analysed, as when it was read first. */
			audit_sharing_from_field(&x, list.sharing, list.sharing_key, CATALYST_TOOL_LIST_RUNS);
			sharing_offered = true;
		}
		if (take_page(&x, &list, &list_err) < 0) {
			step = -1;
			break;
		}
	}
	if (step < 0 && r.n_runs == 0) {
		/* Nothing was listed: the error is the answer, as it always was. */
		*e = list_err;
		if (e->code == ERR_NOT_FOUND)
			audit_project_missing(&x, e);
		else if (e->detail == ERR_DETAIL_REFUSAL && *rf.kind)
			err_prefix(e, "listing runs");
		goto out;
	}
	listing_notes(&x, &list, &list_err);

	/* Child runs are often not listed on their own. */
	if (!rq->no_children && audit_follow_children(&x, 0, e) < 0)
		goto out;
	if (rq->filters.limit > 0 && r.n_runs > list.top_level)
		report_add_note(
			&r,
			"--limit %ld counts top-level runs (%zu audited); %zu child run(s) were added on top, "
			"listed with their parent or started by an audited run",
			rq->filters.limit, list.top_level, r.n_runs - list.top_level);
	rc = audit_finish_report(&x, "runs", e);
	if (rc >= 0 && list_err.code) {
		/* The report covers what was listed; the status says the list is
		 * incomplete. */
		*e = list_err;
		err_prefix(e, "listing runs (the report covers the %zu runs listed before)", r.n_runs);
		rc = -1;
	}
out:
	runs_filters_finish(&rfs);
	catalyst_run_list_finish(&list);
	audit_ctx_finish(&x);
	report_finish(&r);
	return rc;
}
