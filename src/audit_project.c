/* The project, as far as the server can settle it: a bare number given as
 * --project resolved to a name or a uid, and a project the server says does
 * not exist turned into status 7 with the projects there are. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_catalyst.h"

/* Other projects named in a message, at most. */
#define MAX_PROJECT_NAMES 20

void audit_join_names(char *const *names, size_t n, bool more, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n && !more ? " and " : ", ";
		used += (size_t)snprintf(out + used, size - used, "%s%s", sep, names[i]);
	}
	if (more && used < size)
		snprintf(out + used, size - used, " and more");
}

/* A bare number given as --project: a name or a uid? Only the server can
 * say. Returns the form, or PROJECT_NONE with *why set. */
static enum project_form resolve_number(struct audit_ctx *x, const char *value, char *why, size_t why_size)
{
	struct err e;
	err_clear(&e);
	bool by_name = false, by_uid = false;
	if (catalyst_has_tool(x->c, "catalyst_list_projects")) {
		struct catalyst_projects l;
		if (catalyst_list_projects(x->c, &l, &e) < 0) {
			snprintf(why, why_size, "%s", e.msg);
			return PROJECT_NONE;
		}
		for (size_t i = 0; i < l.n; i++) {
			by_name |= l.items[i].name && strcmp(l.items[i].name, value) == 0;
			by_uid |= project_same_uid(l.items[i].uid, value);
		}
		catalyst_projects_finish(&l);
	} else if (catalyst_has_tool(x->c, "catalyst_get_project")) {
		struct catalyst_project p;
		if (catalyst_get_project(x->c, value, &p, &e) < 0) {
			snprintf(why, why_size, "%s", e.msg);
			return PROJECT_NONE;
		}
		by_name = p.name && strcmp(p.name, value) == 0;
		by_uid = project_same_uid(p.uid, value);
		catalyst_project_finish(&p);
	} else {
		snprintf(why, why_size,
			 "the server offers neither catalyst_list_projects nor catalyst_get_project");
		return PROJECT_NONE;
	}
	/* --project takes a name, and the server reads a name first too. */
	if (by_name)
		return PROJECT_NAME;
	if (by_uid)
		return PROJECT_UID;
	snprintf(why, why_size, "the server knows no project named or numbered %s", value);
	return PROJECT_NONE;
}

/* A uid given (--project-id 42) that a project has as its name: the server
 * reads a name first, so every answer is that project's, and a link with
 * ?projectId=42 would open another (doc/PRODUCT.md rule 3). The project
 * becomes the one the server means, by its uid in the prj- form (which no
 * reader takes for a name), and a note says so. */
static void uid_read_as_name(struct audit_ctx *x)
{
	if (x->project.form != PROJECT_UID || x->project.defaulted ||
	    !catalyst_has_tool(x->c, "catalyst_list_projects"))
		return;
	struct catalyst_projects l;
	if (audit_projects(x, &l) < 0)
		return;
	const struct catalyst_project *named = NULL;
	for (size_t i = 0; i < l.n && !named; i++)
		if (l.items[i].name && strcmp(l.items[i].name, x->project.value) == 0)
			named = &l.items[i];
	if (named && named->uid && !project_same_uid(named->uid, x->project.value)) {
		const char *digits = strncmp(named->uid, "prj-", 4) == 0 ? named->uid + 4 : named->uid;
		char *said = NULL, *note = NULL;
		if (asprintf(&said, "prj-%s", digits) >= 0 &&
		    asprintf(&note,
			     "--project-id %s: the server reads %s as the name of project %s (uid %s), not as uid "
			     "%s; this report and its links are that project's (prj-%s)",
			     x->project.value, x->project.value, named->name, digits, x->project.value,
			     digits) >= 0) {
			x->project_said = said;
			x->said_note = note;
			x->project.value = said;
		} else {
			free(said);
		}
	}
	catalyst_projects_finish(&l);
}

/* The names of the projects in l, joined, into out. */
static void list_names(const struct catalyst_projects *l, char *out, size_t size)
{
	char *names[MAX_PROJECT_NAMES];
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].name && n < MAX_PROJECT_NAMES)
			names[n++] = l->items[i].name;
	audit_join_names(names, n, l->n > n, out, size);
}

/* Whether the server's answer about a project names the one asked: uid for
 * uid, name for name. A uid answer without a uid, or a name answer without
 * a name, confirms nothing. */
static bool names_asked(const struct project_ref *asked, const struct catalyst_project *p)
{
	if (asked->form == PROJECT_UID)
		return p->uid && project_same_uid(p->uid, asked->value);
	return p->name && strcmp(p->name, asked->value) == 0;
}

static const char *form_word(const struct project_ref *p)
{
	return p->form == PROJECT_UID ? "uid" : "name";
}

/* A console link names the project asked; only the server can say that the
 * runs it answers with are that project's (issue 28: asked for uid 999, a
 * server that read it as a name answered about uid 165, and the link said
 * ?projectId=999). catalyst_get_project is asked first (it is the server's
 * reading of the very value sent), else the project list is searched. When
 * neither names the project asked, x->unconfirmed says which project the
 * server answered about, and no link is printed for it. */
static void confirm_project(struct audit_ctx *x)
{
	const struct project_ref *asked = &x->project;
	if ((asked->form != PROJECT_NAME && asked->form != PROJECT_UID) || x->project_said)
		return; /* no project, or the one the server's own list named */
	char why[900];
	struct err e;
	err_clear(&e);
	if (catalyst_has_tool(x->c, "catalyst_get_project")) {
		struct catalyst_project p = {0};
		if (catalyst_get_project(x->c, asked->value, &p, &e) < 0) {
			/* A project that is not there: the calls that need it
			 * say so, with the projects there are (status 7). */
			x->unconfirmed_missing = e.code == ERR_NOT_FOUND;
			snprintf(why, sizeof why, "the server did not confirm project %s %s: %s", form_word(asked),
				 asked->value, e.msg);
		} else if (names_asked(asked, &p)) {
			catalyst_project_finish(&p);
			return;
		} else {
			snprintf(
				why, sizeof why,
				"asked about project %s %s, the server answered about project %s (uid %s): a link "
				"naming %s %s cannot be vouched for",
				form_word(asked), asked->value, p.name ? p.name : "(no name given)",
				p.uid ? p.uid : "not given", form_word(asked), asked->value);
		}
		catalyst_project_finish(&p);
	} else if (catalyst_has_tool(x->c, "catalyst_list_projects")) {
		struct catalyst_projects l;
		if (catalyst_list_projects(x->c, &l, &e) < 0) {
			snprintf(why, sizeof why, "the server did not confirm project %s %s: %s", form_word(asked),
				 asked->value, e.msg);
		} else {
			bool found = false;
			for (size_t i = 0; i < l.n; i++)
				found |= names_asked(asked, &l.items[i]);
			char known[600];
			list_names(&l, known, sizeof known);
			snprintf(why, sizeof why, "the server's project list has no project with %s %s%s%s%s",
				 form_word(asked), asked->value, *known ? " (it lists " : "", known,
				 *known ? ")" : "");
			catalyst_projects_finish(&l);
			if (found)
				return;
		}
	} else {
		snprintf(
			why, sizeof why,
			"the server offers neither catalyst_get_project nor catalyst_list_projects, so project %s "
			"%s cannot be confirmed",
			form_word(asked), asked->value);
	}
	x->unconfirmed = strdup(why);
}

void audit_resolve_project(struct audit_ctx *x)
{
	uid_read_as_name(x);
	if (x->said_note) {
		audit_notef(x->rq, "%s", x->said_note);
		if (x->r)
			report_add_note(x->r, "%s", x->said_note);
	}
	if (!project_ref_unresolved(&x->project)) {
		confirm_project(x);
		return;
	}
	char why[600];
	/* Resolved from the server's own answer: confirmed by it. */
	x->project.form = resolve_number(x, x->project.value, why, sizeof why);
	if (x->project.form != PROJECT_NONE)
		return;
	char note[900];
	snprintf(note, sizeof note,
		 "console links carry no project: --project %s is a bare number (a name or a uid?) and "
		 "it could not be resolved: %s",
		 x->project.value, why);
	x->unresolved = strdup(note);
}

int audit_projects(struct audit_ctx *x, struct catalyst_projects *l)
{
	memset(l, 0, sizeof *l);
	if (!catalyst_has_tool(x->c, "catalyst_list_projects"))
		return -1;
	struct err e;
	err_clear(&e);
	return catalyst_list_projects(x->c, l, &e);
}

/* The projects the signed-in user sees, by name, into out ("" when they
 * cannot be listed). */
static void project_names(struct audit_ctx *x, char *out, size_t size)
{
	out[0] = '\0';
	struct catalyst_projects l;
	if (audit_projects(x, &l) < 0)
		return;
	list_names(&l, out, size);
	catalyst_projects_finish(&l);
}

void audit_project_missing(struct audit_ctx *x, struct err *e)
{
	char said[ERR_MSG_MAX], known[600];
	snprintf(said, sizeof said, "%s", e->msg);
	project_names(x, known, sizeof known);
	err_set(e, ERR_NOT_FOUND, "project %s does not exist (%s)%s%s", x->project.value, said,
		*known ? "; the projects you can see: " : "", known);
}
