/* What `link` prints: the console link alone, for a shell's $(...), or the
 * catalyst-audit.link/v1 object; without a link, the ids in plain text.
 * What the link cannot say goes to standard error, from the command. */
#include <stdlib.h>

#include "escape.h"
#include "render_info.h"

/* The report's shape of the project a link names. */
static json_t *link_project(const struct project_ref *p)
{
	switch (p ? p->form : PROJECT_NONE) {
	case PROJECT_NAME:
		return json_pack("{s:s}", "name", p->value);
	case PROJECT_UID:
		return json_pack("{s:s}", "uid", p->value);
	default:
		return NULL;
	}
}

int render_link_json(FILE *out, const struct link_info *l, const struct render_options *o, struct err *e)
{
	(void)o;
	/* jansson escapes every control character of the server's ids. */
	json_t *doc = json_pack("{s:s, s:s?, s:s?, s:o?, s:s?, s:s?, s:b}", "schema", "catalyst-audit.link/v1",
				"app_id", l->app_id, "run_id", l->run_id, "project", link_project(l->project),
				"console_link", l->link, "link_note", l->note, "checked", l->checked);
	if (!doc)
		return err_oom(e);
	int rc = render_json_dump(doc, out, JSON_INDENT(2));
	json_decref(doc);
	if (rc < 0)
		return err_set(e, ERR_USAGE, "cannot write the link");
	return 0;
}

int render_link_text(FILE *out, const struct link_info *l, const struct render_options *o, struct err *e)
{
	(void)o;
	if (l->link) {
		fprintf(out, "%s\n", l->link);
		return 0;
	}
	char *app = escape_terminal_dup(l->app_id ? l->app_id : "", 0), *run = escape_terminal_dup(l->run_id, 0);
	if (!app || !run) {
		free(app);
		free(run);
		return err_oom(e);
	}
	fprintf(out, "app id: %s  run id: %s\n", app, run);
	free(app);
	free(run);
	return 0;
}
