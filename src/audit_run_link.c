/* Console links (doc/PRODUCT.md rule 3) in audits: link_for_run gives every
 * report run its link and link note, whichever the source (a saved file or
 * the server), and keeps the project the link names. Used by every audit,
 * so it is not the `link` command's (audit_link.c). */

#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "console_link.h"

static int keep_project(struct report_run *rr, enum project_form form, const char *value, struct err *e)
{
	rr->project_form = form;
	rr->project = strdup(value);
	return rr->project ? 0 : err_oom(e);
}

static int link_from_file(struct report_run *rr, const char *console, const struct project_ref *p, struct err *e)
{
	if (p->form == PROJECT_NAME || p->form == PROJECT_UID) {
		if (keep_project(rr, p->form, p->value, e) < 0)
			return -1;
	} else if (project_ref_unresolved(p)) {
		/* No server to ask which it is: a link that may open another
		 * project is worse than none. Shown, its form unknown. */
		if (keep_project(rr, PROJECT_NONE, p->value, e) < 0)
			return -1;
		rr->link_note = strdup(project_ref_note(p));
		return rr->link_note ? 0 : err_oom(e);
	}
	if (!rr->app_id)
		rr->link_note = strdup("the file does not name the app id");
	else if (!rr->run_id)
		rr->link_note = strdup("the file does not name the run id");
	else if (rr->project_form == PROJECT_NONE)
		rr->link_note = strdup("no project given (--project NAME or --project-id UID)");
	if (rr->link_note)
		return 0;
	if (!rr->app_id || !rr->run_id || rr->project_form == PROJECT_NONE)
		return err_oom(e);
	struct err le;
	err_clear(&le);
	rr->console_link = console_link_run(console, p, rr->app_id, rr->run_id, &le);
	if (!rr->console_link) {
		if (le.code == ERR_USAGE) {
			*e = le;
			return -1;
		}
		rr->link_note = strdup(le.msg);
	}
	return 0;
}

int link_for_run(struct report_run *rr, enum link_source from, const char *console,
		 const struct project_ref *project, const char *note, const char *unvouched, struct err *e)
{
	if (from == LINK_FROM_FILE)
		return link_from_file(rr, console, project, e);
	if ((project->form == PROJECT_NAME || project->form == PROJECT_UID) &&
	    keep_project(rr, project->form, project->value, e) < 0)
		return -1;
	if (unvouched) {
		rr->link_note = strdup(unvouched);
		return 0;
	}
	struct err le;
	err_clear(&le);
	rr->console_link = console_link_run(console, project, rr->app_id, rr->run_id, &le);
	if (!rr->console_link)
		rr->link_note = strdup(le.msg);
	else if (note)
		rr->link_note = strdup(note);
	return 0;
}
