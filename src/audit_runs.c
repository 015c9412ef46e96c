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
static char *workflow_spelling(struct audit_ctx *x, const char *want, const char *app, char *note, size_t size)
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
static int filters(const struct audit_request *rq, struct catalyst_run_filter *f, char status[32], char since[32],
		   char until[32], struct err *e)
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

/* The listed runs of one page join the report and are audited. */
static int take_page(struct audit_ctx *x, const struct catalyst_run_list *l, struct err *e)
{
	size_t from = x->r->n_runs;
	int rc = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct catalyst_run_item *it = &l->items[i];
		struct report_run *rr = report_add_run(x->r);
		if (!rr) {
			rc = err_oom(e);
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
	char *workflow_exact = NULL;
	int rc = -1;

	char status[32] = "", since[32], until[32];
	struct catalyst_run_filter f = {.limit = rq->filters.limit, .app = rq->filters.app, .project = &x.project};
	if (filters(rq, &f, status, since, until, e) < 0)
		goto out;
	x.stream = audit_stream_new(rq);
	if (!x.seen) {
		err_oom(e);
		goto out;
	}
	if (audit_ctx_connect(&x, e) < 0 || audit_probe_whoami(&x, e) < 0)
		goto out;
	audit_resolve_project(&x);
	if (x.unresolved)
		report_add_note(&r, "%s", x.unresolved);
	char wf_note[700] = "";
	if (rq->filters.workflow) {
		f.workflow = workflow_exact =
			workflow_spelling(&x, rq->filters.workflow, rq->filters.app, wf_note, sizeof wf_note);
		f.workflow_match = rq->filters.workflow;
		if (*wf_note)
			report_add_note(&r, "%s", wf_note);
	}

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
	free(workflow_exact);
	catalyst_run_list_finish(&list);
	audit_ctx_finish(&x);
	report_finish(&r);
	return rc;
}
