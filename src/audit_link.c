/* The `link` command, which prints a run's console link after asking the
 * server that the run exists (doc/PRODUCT.md rule 3), and --web's opening
 * of a link. Every report run's own link is audit_run_link.c's. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_catalyst.h"
#include "browser.h"
#include "console_link.h"
#include "render_info.h"

void audit_open_web(const struct audit_request *rq, const char *link, const char *why_not)
{
	if (!link || why_not) {
		audit_warnf(rq, "--web: no link is opened: %s", why_not ? why_not : "there is no console link");
		return;
	}
	struct err e;
	err_clear(&e);
	if (browser_open(rq->browser, link, 2000, &e) < 0)
		audit_warnf(rq, "--web: %s; the link: %s", e.msg, link);
}

/* ---- the link command ------------------------------------------------ */

/* The server says the run exists (and, for a bare number as --project,
 * which project is meant): no link to a run that is not there. *app is
 * the run's app, found through the run list when none was given. */
static int check_with_server(struct audit_ctx *x, const char **app, char **found_app, const char *run_id,
			     struct err *e)
{
	static const char why[] = "checking that the run exists (--no-check prints the link without asking)";
	if (audit_ctx_connect(x, e) < 0)
		return err_prefix(e, "%s", why);
	audit_resolve_project(x);
	/* No link the server did not vouch for (issue 28): the status of a
	 * project that is not there, and which project it answered about. */
	if (x->unconfirmed && !x->unconfirmed_missing)
		return err_set(e, ERR_NOT_FOUND, "%s (--no-check prints the link unchecked)", x->unconfirmed);
	if (!*app) {
		if (audit_locate_run(x, run_id, found_app, e) < 0)
			return -1;
		*app = *found_app;
		audit_say_found(x, *app, run_id);
		return 0;
	}
	if (catalyst_check_run(x->c, &x->project, *app, run_id, e) < 0) {
		if (e->code == ERR_NOT_FOUND)
			audit_explain_missing(x, *app, run_id, e);
		else
			err_prefix(e, "%s", why);
		return -1;
	}
	return 0;
}

static int print_link(const struct audit_ctx *x, FILE *out, const char *app, const char *run_id, const char *link,
		      const char *note, struct err *e)
{
	const struct audit_request *rq = x->rq;
	struct link_info l = {app, run_id, &x->project, link, note, !rq->no_check};
	/* What the link cannot say, or why there is none, before the output
	 * (once: x->said_note was said already). */
	if (note && note != x->said_note)
		audit_warnf(rq, "%s%s", note, link ? "" : "; the ids follow instead");
	return render_link(out, rq->format, &l, e);
}

int audit_link(const struct audit_request *rq, struct err *e)
{
	struct audit_ctx x;
	audit_ctx_init(&x, rq, NULL);
	int rc = -1;
	char *link = NULL, *found_app = NULL;
	const char *app = rq->args[0], *run_id = rq->args[1];
	/* Checked before any traffic: a bad --console is a usage error. */
	struct project_ref none = {PROJECT_NONE, NULL, false, false};
	char *check = console_link_run(rq->console, &none, "a", "r", e);
	if (!check)
		goto out;
	free(check);

	if (!rq->no_check) {
		if (check_with_server(&x, &app, &found_app, run_id, e) < 0)
			goto out;
	} else if (project_ref_unresolved(&x.project)) {
		char note[600];
		snprintf(note, sizeof note,
			 "the link carries no project: --project %s is a bare number (a name or a uid?) and "
			 "--no-check asks no server to resolve it; use --project-id for a uid",
			 x.project.value);
		x.unresolved = strdup(note);
	}

	struct err le;
	err_clear(&le);
	link = console_link_run(rq->console, &x.project, app, run_id, &le);
	const char *note = link ? (x.unresolved ? x.unresolved : x.said_note) : le.msg;
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (!out)
		goto out;
	rc = audit_close_plain(&fo, print_link(&x, out, app, run_id, link, note, e), e);
	if (rc == 0 && rq->web)
		audit_open_web(rq, link, note);
out:
	free(link);
	free(found_app);
	audit_ctx_finish(&x);
	return rc;
}
