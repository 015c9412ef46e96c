/* Finding a run by its id. `run RUN_ID` and `link RUN_ID` name no app, and
 * a run that is not where the user said may be elsewhere: both are
 * answered from the run list (catalyst_list_workflow_runs), through its
 * filter by instance id when the tool's schema has one, else page by page
 * within the listing's bounds, every listed id compared exactly. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_catalyst.h"

/* Other projects searched for a run of some id, at most. */
#define MAX_OTHER_PROJECTS 20
/* Apps named as holding a run of one id, at most. */
#define MAX_PLACES 16

/* Where runs of one id are in one project's run list. */
struct run_places {
	char *apps[MAX_PLACES]; /* each app once, in listing order */
	size_t n;
	bool more;      /* more apps than are kept */
	bool by_server; /* the list tool took the id as a filter: one call */
};

static void run_places_finish(struct run_places *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->apps[i]);
	memset(p, 0, sizeof *p);
}

static int add_places(struct run_places *p, const struct catalyst_run_list *l, struct err *e)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *app = l->items[i].app_id;
		bool known = !app;
		for (size_t k = 0; k < p->n && !known; k++)
			known = strcmp(p->apps[k], app) == 0;
		if (known)
			continue;
		if (p->n == MAX_PLACES) {
			p->more = true;
			continue;
		}
		if (!(p->apps[p->n] = strdup(app)))
			return err_oom(e);
		p->n++;
	}
	return 0;
}

/* The apps of `project` that hold a run of this id. */
static int find_run_places(struct audit_ctx *x, const struct project_ref *project, const char *run_id,
			   struct run_places *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	const struct catalyst_binding *b = catalyst_binding_get(x->c, CATALYST_TOOL_LIST_RUNS);
	p->by_server = b && b->prop[CATALYST_ARG_RUN];
	struct catalyst_run_filter f = {.project = project, .run = run_id};
	struct catalyst_run_list list;
	catalyst_list_runs(x->c, &f, &list);
	int rc;
	while ((rc = catalyst_run_list_next(&list, NULL, e)) > 0)
		if (add_places(p, &list, e) < 0) {
			rc = -1;
			break;
		}
	catalyst_run_list_finish(&list);
	return rc < 0 ? -1 : 0;
}

/* "; a run of that id exists in project payments (app checkout): add
 * --project payments" for other projects holding a run of this id,
 * appended to msg. Only when the list tool filters by instance id (one
 * call a project); walking every page of every project is not. */
static void other_projects(struct audit_ctx *x, const char *run_id, bool by_server, char *msg, size_t size)
{
	size_t used = strlen(msg);
	if (!by_server) {
		snprintf(msg + used, size - used,
			 " (other projects were not searched: the server's %s has no filter by instance id)",
			 CATALYST_TOOL_LIST_RUNS);
		return;
	}
	struct catalyst_projects l;
	if (audit_projects(x, &l) < 0)
		return;
	const char *here = x->project.value;
	size_t searched = 0, found = 0;
	for (size_t i = 0; i < l.n; i++) {
		const char *name = l.items[i].name;
		if (!name || strcmp(name, here) == 0 || project_same_uid(l.items[i].uid, here) ||
		    searched == MAX_OTHER_PROJECTS)
			continue;
		searched++;
		struct project_ref other = {PROJECT_NAME, name, false, false};
		struct run_places places;
		struct err pe;
		err_clear(&pe);
		if (find_run_places(x, &other, run_id, &places, &pe) == 0 && places.n) {
			char apps[400];
			audit_join_names(places.apps, places.n, places.more, apps, sizeof apps);
			used += (size_t)snprintf(msg + used, used < size ? size - used : 0,
						 "%s in project %s (app %s): add --project %s",
						 found++ ? ";" : "; a run of that id exists", name, apps, name);
		}
		run_places_finish(&places);
		if (used >= size)
			break;
	}
	if (searched && !found && used < size)
		snprintf(msg + used, size - used,
			 "; none of the %zu other project(s) you can see has a run of that id", searched);
	catalyst_projects_finish(&l);
}

static const char *command_word(const struct audit_ctx *x)
{
	return x->rq->command == CMD_LINK ? "link" : "run";
}

int audit_locate_run(struct audit_ctx *x, const char *run_id, char **app, struct err *e)
{
	*app = NULL;
	struct run_places p;
	int rc = -1;
	const char *project = x->project.value;
	if (find_run_places(x, &x->project, run_id, &p, e) < 0) {
		if (e->code == ERR_NOT_FOUND)
			audit_project_missing(x, e);
		else
			err_prefix(e,
				   "looking for run %s in the run list of project %s (give APP_ID RUN_ID to fetch "
				   "it directly)",
				   run_id, project);
		goto out;
	}
	char flag[200];
	project_ref_flag(&x->project, flag, sizeof flag);
	if (p.n == 0) {
		char msg[ERR_MSG_MAX];
		snprintf(msg, sizeof msg, "no run %s in project %s (%s)", run_id, project,
			 p.by_server ? "catalyst_list_workflow_runs filtered by its instance id found none"
				     : "it is in no page of catalyst_list_workflow_runs");
		other_projects(x, run_id, p.by_server, msg, sizeof msg);
		err_set(e, ERR_NOT_FOUND, "%s", msg);
		goto out;
	}
	if (p.n > 1) {
		char apps[600];
		audit_join_names(p.apps, p.n, p.more, apps, sizeof apps);
		err_set(e, ERR_USAGE,
			"run %s exists in %zu%s apps of project %s (%s): say which, e.g. catalyst-audit %s%s %s %s",
			run_id, p.n, p.more ? "+" : "", project, apps, flag, command_word(x), p.apps[0], run_id);
		goto out;
	}
	*app = p.apps[0];
	p.apps[0] = NULL;
	p.n = 0;
	rc = 0;
out:
	run_places_finish(&p);
	return rc;
}

/* `run pay-20931 checkout`: the two ids the other way round (issue 19).
 * True, with e said as a usage error, when the run list holds a run
 * named like the given app in an app named like the given run. */
static bool swapped(struct audit_ctx *x, const char *app, const char *run_id, struct err *e)
{
	struct run_places p;
	struct err le;
	err_clear(&le);
	bool found = false;
	if (find_run_places(x, &x->project, app, &p, &le) == 0)
		for (size_t i = 0; i < p.n && !found; i++)
			found = strcmp(p.apps[i], run_id) == 0;
	run_places_finish(&p);
	if (found) {
		char flag[200];
		project_ref_flag(&x->project, flag, sizeof flag);
		err_set(e, ERR_USAGE,
			"the app id and the run id are swapped: run %s is in app %s; the app comes first: "
			"catalyst-audit %s%s %s %s",
			app, run_id, flag, command_word(x), run_id, app);
	}
	return found;
}

void audit_explain_missing(struct audit_ctx *x, const char *app, const char *run_id, struct err *e)
{
	char said[ERR_MSG_MAX];
	snprintf(said, sizeof said, "%s", e->msg);
	if (swapped(x, app, run_id, e))
		return;
	struct run_places p;
	struct err le;
	err_clear(&le);
	if (find_run_places(x, &x->project, run_id, &p, &le) < 0) {
		if (le.code == ERR_NOT_FOUND) {
			*e = le;
			audit_project_missing(x, e);
		} else {
			err_set(e, ERR_NOT_FOUND, "%s (the run list could not be searched for it: %s)", said,
				le.msg);
		}
		run_places_finish(&p);
		return;
	}
	/* The listing may hold the run in this very app (a list newer than
	 * the fetch, or a fetch the server refused for another reason): only
	 * other apps are news. */
	char *others[MAX_PLACES];
	size_t n = 0;
	for (size_t i = 0; i < p.n; i++)
		if (strcmp(p.apps[i], app) != 0)
			others[n++] = p.apps[i];
	char msg[ERR_MSG_MAX], flag[200];
	project_ref_flag(&x->project, flag, sizeof flag);
	int len = snprintf(msg, sizeof msg, "no run %s in app %s of project %s (%s)", run_id, app,
			   x->project.value, said);
	if (n) {
		char apps[400];
		audit_join_names(others, n, p.more, apps, sizeof apps);
		snprintf(msg + len, len < (int)sizeof msg ? sizeof msg - (size_t)len : 0,
			 "; a run of that id exists in app %s: catalyst-audit %s%s %s %s", apps, flag,
			 command_word(x), others[0], run_id);
	} else {
		other_projects(x, run_id, p.by_server, msg, sizeof msg);
	}
	err_set(e, ERR_NOT_FOUND, "%s", msg);
	run_places_finish(&p);
}

void audit_say_found(struct audit_ctx *x, const char *app, const char *run_id)
{
	char msg[600];
	snprintf(msg, sizeof msg, "run %s is in app %s (found through %s in project %s)", run_id, app,
		 CATALYST_TOOL_LIST_RUNS, x->project.value);
	audit_notef(x->rq, "%s", msg);
	if (x->r)
		report_add_note(x->r, "%s", msg);
}
