#pragma once
/* Which Catalyst project a command is about, in one shape from the command
 * line to the tool arguments, the report and the console link. A project
 * name and a project uid never stand in for each other (doc/PRODUCT.md rule 3):
 * the console silently shows another project when a uid is passed as
 * ?project=. */

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

enum project_form {
	PROJECT_NONE = 0, /* no project; with a value: a bare number given as a name, a name or a uid */
	PROJECT_NAME,
	PROJECT_UID,
};

struct project_ref {
	enum project_form form;
	/* As the user gave it: a uid keeps its "prj-" prefix when it had one
	 * (the console takes both "165" and "prj-165", and echoing the user's
	 * own spelling makes a link recognisable); "default" when defaulted;
	 * NULL for none. Borrowed. */
	const char *value;
	bool defaulted; /* nothing named a project: `default`, as the server reads a request naming none */
	bool as_uid;    /* named as a uid: --project-id, CATALYST_PROJECT_ID, `project-id =` */
};

/* A project as the server lists it (whoami, the project lookups); the
 * Catalyst layer fills it, renderers print it. */
struct catalyst_project {
	char *name; /* NULL: the answer does not say */
	char *uid;  /* "165" or "prj-165", as the server gives it */
};

/* No project given: the `default` project, by name. */
#define PROJECT_REF_DEFAULT ((struct project_ref){PROJECT_NAME, "default", true, false})

/* The project --project NAME / --project-id UID name (either may be NULL;
 * both is a usage error). --project-id must be digits or prj-digits.
 * --project prj-123 is a uid; --project 123 is a bare number (form NONE,
 * value kept: resolve it or leave it out); anything else is a name.
 * Neither: PROJECT_REF_DEFAULT. Returns 0 or -1 with ERR_USAGE. */
int project_ref_from_options(const char *name, const char *uid, struct project_ref *out, struct err *e);

/* true for "165" and "prj-165". */
bool project_is_uid(const char *s);
/* Two uids the same but for a "prj-" prefix. */
bool project_same_uid(const char *a, const char *b);
/* A value whose form is not known (a bare number given as a name). */
bool project_ref_unresolved(const struct project_ref *p);

/* "--project payments " or "--project-id 165 " as the user named it (""
 * when defaulted), for the commands a message suggests. */
void project_ref_flag(const struct project_ref *p, char *out, size_t size);

/* One sentence for a report note when a link leaves the project out
 * because its form is unknown, or NULL. Static string. */
const char *project_ref_note(const struct project_ref *p);
