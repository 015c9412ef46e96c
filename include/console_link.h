#pragma once
/* Console links (PRODUCT.md rule 3): exact or absent. A run link is
 * <console>/workflows/<appId>/<runId>[?project=<name>|?projectId=<uid>],
 * path segments percent-encoded. A project name and a project uid never
 * stand in for each other: the console silently shows another project when
 * a uid is passed as ?project=. */

#include <stdbool.h>

#include "err.h"

enum console_project_kind {
	CONSOLE_PROJECT_NONE = 0,  /* no project: the link carries no parameter */
	CONSOLE_PROJECT_NAME,      /* ?project=<name> */
	CONSOLE_PROJECT_UID,       /* ?projectId=<uid> */
	CONSOLE_PROJECT_AMBIGUOUS, /* a bare number given as a name: resolve it or leave it out */
};

struct console_project {
	enum console_project_kind kind;
	/* As the user gave it. A uid keeps its "prj-" prefix when it had one:
	 * the console takes both "165" and "prj-165", and echoing the user's
	 * own spelling makes the link recognisable. Borrowed. */
	const char *value;
};

/* Classifies --project NAME / --project-id UID (either may be NULL; both
 * given is a usage error). --project-id must be digits or prj-digits.
 * --project prj-123 is a uid; --project 123 is AMBIGUOUS; anything else is
 * a name. Neither: the `default` project by name, since the server treats an
 * unqualified request as `default`. Returns 0 or -1 with ERR_USAGE. */
int console_project_classify(const char *name, const char *uid, struct console_project *out, struct err *e);

/* true for "165" and "prj-165". */
bool console_is_uid(const char *s);

/* The run link, malloc'd. A NONE or AMBIGUOUS project gives a link with no
 * project parameter (the caller says why). Returns NULL with e set when no
 * trustworthy link exists: app id or run id unknown or empty (ERR_INPUT), a
 * console that is not an http(s) URL without query or fragment (ERR_USAGE).
 * console NULL means https://catalyst.diagrid.io; trailing slashes are
 * dropped. A child run is linked the same way: its instance id
 * ("order-7740:0002") is a run id whose ':' is encoded. */
char *console_link_run(const char *console, const struct console_project *p, const char *app_id,
		       const char *run_id, struct err *e);

/* One sentence for a report note when the project parameter was left out,
 * or NULL when nothing was left out. Static string. */
const char *console_project_note(const struct console_project *p);
