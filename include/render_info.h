#pragma once
/* What `whoami` and `tools` print. Not audit reports, but written the same
 * way: text for a person (server text escaped for the terminal), JSON for a
 * script (jansson's escaping); renderers only format what they are given. */

#include <jansson.h>
#include <stdio.h>

#include "err.h"
#include "project.h"
#include "render.h"

struct whoami_info {
	const char *org_name; /* NULL: not in the answer ("unknown") */
	const char *org_id;
	const char *user;
	const struct catalyst_project *projects;
	size_t n_projects;
	const char *projects_error; /* why the projects could not be listed, or NULL */
	const char *sharing_level;  /* data_sharing_level_name() */
	const char *sharing_source; /* how it is known */
};

/* FORMAT_JSON: the catalyst-audit.whoami/v1 object; anything else: text. */
int render_whoami(FILE *out, enum render_format f, const struct whoami_info *w, struct err *e);

struct tools_info {
	const json_t *server_info; /* the initialize result (its serverInfo is shown) */
	const char *protocol_version;
	json_t *tools; /* tools/list's tools, as the server gave them */
};

/* FORMAT_JSON: {server, protocolVersion, tools}; anything else: text, one
 * line a tool and one a property. */
int render_tools(FILE *out, enum render_format f, const struct tools_info *t, struct err *e);

struct review;
/* `review`: the activities found and their hazards. FORMAT_JSON: the
 * catalyst-audit.review/v1 object; FORMAT_MARKDOWN: a table a pull request
 * shows; anything else: text (code quoted from the files escaped). */
int render_review(FILE *out, enum render_format f, const struct review *rv, struct err *e);
