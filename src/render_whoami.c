/* `whoami`: who is signed in, the projects, the data-sharing level. */

#include <stdlib.h>

#include "escape.h"
#include "render_info.h"

static void put_text(FILE *out, const char *label, const char *value)
{
	char *safe = escape_terminal_dup(value ? value : "unknown", 200);
	fprintf(out, "%s%s\n", label, safe ? safe : "?");
	free(safe);
}

static void print_text(FILE *out, const struct whoami_info *w)
{
	put_text(out, "organization: ", w->org_name);
	if (w->org_id)
		put_text(out, "organization id: ", w->org_id);
	put_text(out, "user: ", w->user);
	fprintf(out, "projects:%s\n", w->n_projects ? "" : " none listed");
	for (size_t i = 0; i < w->n_projects; i++) {
		const char *n = w->projects[i].name, *u = w->projects[i].uid;
		char *sn = escape_terminal_dup(n ? n : "?", 120), *su = escape_terminal_dup(u ? u : "unknown", 40);
		fprintf(out, "  %s (uid %s)\n", sn ? sn : "?", su ? su : "?");
		free(sn);
		free(su);
	}
	if (w->projects_error)
		put_text(out, "projects could not be listed: ", w->projects_error);
	fprintf(out, "data sharing: %s (%s)\n", w->sharing_level, w->sharing_source);
}

/* The document goes to a script: escaping is JSON's job. */
static int print_json(FILE *out, const struct whoami_info *w, struct err *e)
{
	json_t *projects = json_array();
	for (size_t i = 0; i < w->n_projects; i++)
		json_array_append_new(projects, json_pack("{s:s?, s:s?}", "name", w->projects[i].name, "uid",
							  w->projects[i].uid));
	json_t *doc = json_pack("{s:s, s:{s:s?, s:s?}, s:{s:s?}, s:o, s:s?, s:{s:s, s:s}}", "schema",
				"catalyst-audit.whoami/v1", "organization", "name", w->org_name, "id", w->org_id,
				"user", "email", w->user, "projects", projects, "projects_error",
				w->projects_error, "data_sharing", "level", w->sharing_level, "source",
				w->sharing_source);
	if (!doc)
		return err_set(e, ERR_INTERNAL, "cannot build the whoami document");
	int rc = render_json_dump(doc, out, JSON_INDENT(2));
	json_decref(doc);
	if (rc < 0)
		return err_set(e, ERR_USAGE, "cannot write the whoami document");
	return 0;
}

int render_whoami_json(FILE *out, const struct whoami_info *w, const struct render_options *o, struct err *e)
{
	(void)o;
	return print_json(out, w, e);
}

int render_whoami_text(FILE *out, const struct whoami_info *w, const struct render_options *o, struct err *e)
{
	(void)o;
	(void)e;
	print_text(out, w);
	return 0;
}
