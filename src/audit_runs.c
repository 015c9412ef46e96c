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
	case CATALYST_ARG_ENDED_SINCE:
		return "--ended-since";
	default:
		return "?";
	}
}

int audit_time_filters(const struct audit_request *rq, struct catalyst_run_filter *f, char since[32],
		       char until[32], char ended_since[32], struct err *e)
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
	if (rq->filters.ended_since) {
		if (catalyst_time_arg("ended-since", rq->filters.ended_since, now, ended_since, e) < 0)
			return -1;
		f->ended_since = ended_since;
	}
	return 0;
}

/* What --state adds to one `runs`: the checkpoint read, and the end
 * times of the runs listed this time, for the next one. */
struct checkpoint {
	struct runs_state old;
	bool on;
	char window[32]; /* the --ended-since the checkpoint makes */
	char *max_end;   /* the largest end time listed now */
	json_t *at_max;  /* the runs listed at it */
	size_t skipped;  /* runs at the old checkpoint, audited then */
};

/* --ended-since from the checkpoint (when later than the one given); with
 * --state and neither, every run that has ended. */
static int checkpoint_start(const struct audit_request *rq, struct checkpoint *cp, struct catalyst_run_filter *f,
			    struct err *e)
{
	if (!rq->filters.state)
		return 0;
	if (runs_state_load(rq->filters.state, &cp->old, e) < 0)
		return -1;
	if (cp->old.waited)
		audit_warnf(rq, "--state %s: waited for another catalyst-audit that was using it",
			    rq->filters.state);
	cp->on = true;
	if (!(cp->at_max = json_object()))
		return err_oom(e);
	const char *from = f->ended_since;
	if (cp->old.ended_at && (!from || catalyst_time_cmp(cp->old.ended_at, from) > 0))
		from = cp->old.ended_at;
	snprintf(cp->window, sizeof cp->window, "%s", from ? from : "1970-01-01T00:00:00Z");
	f->ended_since = cp->window;
	return 0;
}

/* A listed run: left out when the checkpoint's last job audited it; its
 * end time kept for the next one. */
static bool checkpoint_take(struct checkpoint *cp, const struct catalyst_run_item *it)
{
	if (!cp->on)
		return true;
	const char *end = catalyst_run_ended_at(it);
	char *key = catalyst_run_key(it->app_id, it->run_id);
	if (!end || !key) {
		free(key);
		return true;
	}
	if (cp->old.ended_at && catalyst_time_cmp(end, cp->old.ended_at) == 0 &&
	    json_object_get(cp->old.runs, key)) {
		cp->skipped++;
		free(key);
		return false;
	}
	int c = cp->max_end ? catalyst_time_cmp(end, cp->max_end) : 1;
	if (c > 0) {
		free(cp->max_end);
		cp->max_end = strdup(end);
		json_object_clear(cp->at_max);
	}
	if (c >= 0)
		json_object_set_new(cp->at_max, key, json_true());
	free(key);
	return true;
}

/* The next checkpoint: the largest end time audited and the runs at it
 * (those of the old checkpoint too, when it is the same instant). */
static int checkpoint_save(const struct audit_request *rq, struct checkpoint *cp, struct err *e)
{
	if (!cp->on || !cp->max_end)
		return 0;
	if (cp->old.ended_at) {
		int c = catalyst_time_cmp(cp->max_end, cp->old.ended_at);
		if (c < 0)
			return 0;
		if (c == 0)
			json_object_update_missing(cp->at_max, cp->old.runs);
	}
	return runs_state_save(rq->filters.state, cp->max_end, cp->at_max, e);
}

static void checkpoint_finish(struct checkpoint *cp)
{
	runs_state_finish(&cp->old);
	free(cp->max_end);
	json_decref(cp->at_max);
}

/* The runs of a page the checkpoint lets through, into l->kept (borrowed
 * items). */
static int checkpoint_page(struct checkpoint *cp, const struct catalyst_run_list *l,
			   struct catalyst_run_item **kept, size_t *n_kept, struct err *e)
{
	*n_kept = 0;
	if (!l->n)
		return 0;
	struct catalyst_run_item *k = realloc(*kept, l->n * sizeof *k);
	if (!k)
		return err_oom(e);
	*kept = k;
	for (size_t i = 0; i < l->n; i++)
		if (checkpoint_take(cp, &l->items[i]))
			k[(*n_kept)++] = l->items[i];
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
	l->f = (struct catalyst_run_filter){.limit = rq->filters.limit, .project = &x->project};
	return runs_filters_parse(rq, &l->rfs, &l->f, e) < 0 ||
			       audit_time_filters(rq, &l->f, l->since, l->until, l->ended_since, e) < 0
		       ? -1
		       : 0;
}

int audit_listing_start(struct audit_ctx *x, struct audit_listing *l, struct err *e)
{
	if (!x->seen)
		return err_oom(e);
	if (audit_ctx_connect(x, e) < 0 || audit_probe_whoami(x, e) < 0)
		return -1;
	audit_resolve_project(x);
	if (x->unresolved)
		report_add_note(x->r, "%s", x->unresolved);
	if (runs_filters_check(x, &l->rfs, &l->f, e) < 0)
		return -1;
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
	runs_filters_finish(&l->rfs);
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
	struct checkpoint cp;
	memset(&cp, 0, sizeof cp);
	cp.old.lock_fd = -1;
	struct catalyst_run_item *kept = NULL;
	size_t n_kept = 0;

	if (audit_follow_check(rq, e) < 0 || audit_listing_filters(&x, &l, e) < 0 ||
	    checkpoint_start(rq, &cp, &l.f, e) < 0)
		goto out;
	audit_report_meta(rq, &r);
	struct report_meta *m = &r.meta;
	m->has_filters = true;
	m->apps = l.rfs.apps, m->n_apps = l.rfs.n_apps;
	m->workflows = l.rfs.workflows, m->n_workflows = l.rfs.n_workflows;
	m->statuses = l.rfs.statuses, m->n_statuses = l.rfs.n_statuses;
	m->since = l.f.since, m->until = l.f.until, m->ended_since = l.f.ended_since, m->limit = l.f.limit;
	if ((rq->baseline && !(x.baseline = audit_load_baseline(rq, e))) ||
	    (rq->source && !(x.source = audit_load_source(rq, e))))
		goto out;
	/* a follow writes its own lines once the runs are listed */
	x.stream = rq->follow ? NULL : audit_stream_new(rq);
	if (audit_listing_start(&x, &l, e) < 0)
		goto out;
	m->project_form = x.project.form, m->project = x.project.value;
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
		if (checkpoint_page(&cp, &l.list, &kept, &n_kept, &l.err) < 0 ||
		    audit_feed_add(feed, kept, n_kept, &l.err) < 0) {
			step = -1;
			break;
		}
	audit_feed_end(feed);
	if (step < 0 && audit_n_runs(&x) == 0) {
		audit_listing_failed(&x, &l, e);
		goto out;
	}
	audit_listing_notes(&x, &l.list, &l.err, audit_n_runs(&x));
	if (l.f.ended_since && !(l.list.client_side & CATALYST_BIT(CATALYST_ARG_ENDED_SINCE))) {
		const struct catalyst_binding *b = catalyst_binding_get(x.c, CATALYST_TOOL_LIST_RUNS);
		report_add_note(&r, "--ended-since %s was applied by the server (%s's %s)", l.f.ended_since,
				CATALYST_TOOL_LIST_RUNS,
				b && b->prop[CATALYST_ARG_ENDED_SINCE] ? b->prop[CATALYST_ARG_ENDED_SINCE]
								       : "filter");
	}
	if (cp.skipped)
		report_add_note(&r, "--state %s: %zu run(s) that ended at its checkpoint (%s) were audited before",
				rq->filters.state, cp.skipped, cp.old.ended_at);

	/* Child runs are often not listed on their own. */
	if (!rq->no_children && audit_follow_children(&x, 0, e) < 0)
		goto out;
	if (rq->filters.limit > 0 && audit_n_runs(&x) > l.list.top_level)
		report_add_note(
			&r,
			"--limit %ld counts top-level runs (%zu audited); %zu child run(s) were added on top, "
			"listed with their parent or started by an audited run",
			rq->filters.limit, l.list.top_level, audit_n_runs(&x) - l.list.top_level);
	if (rq->follow) {
		rc = audit_follow_runs(&x, e);
		goto out;
	}
	rc = audit_finish_report(&x, "runs", e);
	/* The checkpoint moves only past an audit that is whole: a run that
	 * could not be audited is listed again next time. */
	if ((rc == 0 || rc == ERR_FINDINGS) && !l.err.code && checkpoint_save(rq, &cp, e) < 0)
		rc = -1;
	if (rc >= 0 && l.err.code) {
		/* The report covers what was listed; the status says the list is
		 * incomplete. */
		*e = l.err;
		err_prefix(e, "listing runs (the report covers the %zu runs listed before)", audit_n_runs(&x));
		rc = -1;
	}
out:
	free(kept);
	checkpoint_finish(&cp);
	audit_listing_finish(&l);
	audit_ctx_finish(&x);
	report_finish(&r);
	return rc;
}
