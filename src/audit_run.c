/* `catalyst-audit run [APP_ID] RUN_ID`: one run audited, and the child
 * workflow runs it started. Its two calls of its own — the whoami probe
 * and the run's fetch — each wait out the server's latency, so the probe
 * goes in a thread beside the fetch. */

#include <stdlib.h>
#include <string.h>

#include "audit_catalyst.h"

int audit_run(const struct audit_request *rq, struct err *e)
{
	struct report r;
	report_init(&r);
	struct audit_ctx x;
	audit_ctx_init(&x, rq, &r);
	struct whoami_probe wp;
	memset(&wp, 0, sizeof wp);
	char *found_app = NULL;
	int rc = -1;
	audit_report_meta(rq, &r);
	if (audit_follow_check(rq, e) < 0)
		goto out;
	if ((rq->baseline && !(x.baseline = audit_load_baseline(rq, e))) ||
	    (rq->source && !(x.source = audit_load_source(rq, e))))
		goto out;
	if (audit_ctx_connect(&x, e) < 0 || audit_probe_start(&x, &wp, e) < 0)
		goto out;
	audit_resolve_project(&x);
	if (x.unresolved) {
		audit_probe_join(&x); /* its note, if any, comes first */
		report_add_note(&r, "%s", x.unresolved);
	}

	const char *app = rq->args[0], *run_id = rq->args[1];
	if (!app) {
		int found = audit_locate_run(&x, run_id, &found_app, e);
		audit_probe_join(&x);
		if (wp.rc < 0) {
			*e = wp.e; /* a connection refusal: the answer, as when it was asked first */
			goto out;
		}
		if (found < 0)
			goto out;
		app = found_app;
		audit_say_found(&x, app, run_id);
	}

	if (rq->follow) {
		rc = audit_follow_run(&x, app, run_id, e);
		goto out;
	}
	struct report_run *rr = report_add_run(&r);
	if (!rr) {
		err_oom(e);
		goto out;
	}
	rr->app_id = strdup(app);
	rr->run_id = strdup(run_id);
	if (audit_mark_run(&x, rr->app_id, rr->run_id, e) < 0)
		goto out;
	audit_one_run(&x, rr);
	audit_probe_join(&x);
	if (wp.rc < 0) {
		/* A connection refusal to the identity check: the answer, as
		 * when it was asked first. */
		*e = wp.e;
		goto out;
	}
	if (!rr->analysis) {
		/* The run itself could not be audited: that is the answer. */
		err_set(e, rr->failure_code, "%s", rr->failure);
		if (rr->refusal_kind)
			e->detail = ERR_DETAIL_REFUSAL;
		if (e->code == ERR_NOT_FOUND)
			audit_explain_missing(&x, app, run_id, e);
		goto out;
	}

	if (!rq->no_children && audit_follow_children(&x, 0, e) < 0)
		goto out;
	rc = audit_finish_report(&x, "runs", e);
	/* The run is there (audited): its link is one to vouch for unless
	 * the project is uncertain. Children may have moved r.runs. */
	if (rc >= 0 && rq->web)
		audit_open_web(rq, r.runs[0].console_link, x.unresolved);
out:
	audit_probe_join(&x);
	free(found_app);
	audit_ctx_finish(&x);
	report_finish(&r);
	return rc;
}
