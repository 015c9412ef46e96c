/* What the shell completions ask the server (`catalyst-audit __complete`):
 * the projects the signed-in user sees, the apps of a project, the latest
 * runs of an app. Read-only tools only (catalyst_list_projects,
 * catalyst_list_apps, catalyst_list_workflow_runs), through the one session
 * the other commands use; the answer is lines a shell can take as they
 * are. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audit_catalyst.h"
#include "buf.h"
#include "catalyst.h"
#include "session.h"

/* Server text becomes one line "VALUE\tDESCRIPTION": a value holding a
 * control character (a newline would make two candidates, an escape would
 * reach the terminal) or a tab is left out, as no one could type it; in a
 * description each is a space. What the shell does with a value's other
 * characters is the completion script's care: it quotes them. */
static bool value_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static int put_item(struct buf *b, const char *value, const char *desc, struct err *e)
{
	if (!value_ok(value))
		return 0;
	if (buf_printf(b, e, "%s", value) < 0)
		return -1;
	if (desc && *desc) {
		if (buf_append(b, "\t", 1, e) < 0)
			return -1;
		for (const unsigned char *p = (const unsigned char *)desc; *p; p++) {
			char c = *p < 0x20 || *p == 0x7f ? ' ' : (char)*p;
			if (buf_append(b, &c, 1, e) < 0)
				return -1;
		}
	}
	return buf_append(b, "\n", 1, e);
}

static int projects(struct catalyst *c, struct buf *b, struct err *e)
{
	struct catalyst_projects l = {0};
	if (catalyst_list_projects(c, &l, e) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		char desc[128] = "";
		if (l.items[i].uid)
			snprintf(desc, sizeof desc, "uid %s", l.items[i].uid);
		rc = put_item(b, l.items[i].name, desc, e);
	}
	catalyst_projects_finish(&l);
	return rc;
}

static int apps(struct catalyst *c, const struct project_ref *project, struct buf *b, struct err *e)
{
	static const char tool[] = "catalyst_list_apps";
	static const char *const keys[] = {"appid", "app", "appname", "applicationid", "id", "name", NULL};
	const char *vals[CATALYST_ARG_COUNT] = {[CATALYST_ARG_PROJECT] = project->value};
	unsigned required = project->defaulted ? 0 : CATALYST_BIT(CATALYST_ARG_PROJECT);
	json_t *doc = NULL;
	if (catalyst_invoke(c, tool, vals, required, NULL, &doc, NULL, NULL, e) < 0)
		return -1;
	const json_t *list = catalyst_find_list(doc, 2);
	size_t i;
	const json_t *item;
	int rc = 0;
	json_array_foreach(list, i, item) {
		char num[32];
		if (rc == 0)
			rc = put_item(b, catalyst_find_string(item, keys, 0, num), NULL, e);
	}
	json_decref(doc);
	return rc;
}

static int runs(struct catalyst *c, const struct project_ref *project, const char *app, struct buf *b,
		struct err *e)
{
	struct catalyst_run_filter f = {
		.project = project,
		.app = app,
		.limit = AUDIT_COMPLETE_MAX_RUNS,
		.page_size = AUDIT_COMPLETE_MAX_RUNS,
		.max_pages = 1,
	};
	struct catalyst_run_list l;
	catalyst_list_runs(c, &f, &l);
	int rc = 0, step;
	while (rc == 0 && (step = catalyst_run_list_next(&l, NULL, e)) > 0) {
		for (size_t i = 0; i < l.n && rc == 0; i++) {
			const struct catalyst_run_item *it = &l.items[i];
			char desc[256];
			snprintf(desc, sizeof desc, "%s, started %s", it->status ? it->status : "status unknown",
				 it->started_at ? it->started_at : "(unknown)");
			rc = put_item(b, it->run_id, desc, e);
		}
	}
	if (rc == 0 && step < 0)
		rc = -1;
	catalyst_run_list_finish(&l);
	return rc;
}

int audit_complete(const struct audit_request *rq, enum audit_complete_what what, const char *app, char **out,
		   struct err *e)
{
	*out = NULL;
	struct session *s = audit_session_open(rq, SESSION_CATALYST, e);
	if (!s)
		return -1;
	struct catalyst *c = session_catalyst(s);
	struct buf b;
	buf_init(&b, AUDIT_COMPLETE_MAX_BYTES);
	int rc = what == AUDIT_COMPLETE_PROJECTS ? projects(c, &b, e)
		 : what == AUDIT_COMPLETE_APPS   ? apps(c, &rq->project, &b, e)
						 : runs(c, &rq->project, app, &b, e);
	session_close(s);
	if (rc < 0) {
		buf_finish(&b);
		return -1;
	}
	if (!b.data && buf_append(&b, "", 0, e) < 0)
		return -1;
	*out = buf_steal(&b, NULL);
	return *out ? 0 : err_oom(e);
}
