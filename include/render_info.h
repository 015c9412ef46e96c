#pragma once
/* What `whoami` and `tools` print. Not audit reports, but written the same
 * way: text for a person (server text escaped for the terminal), JSON for a
 * script (jansson's escaping); renderers only format what they are given. */

#include <jansson.h>
#include <stdbool.h>
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

/* Through the format's row: the catalyst-audit.whoami/v1 object, or text. */
int render_whoami(FILE *out, enum render_format f, const struct whoami_info *w, struct err *e);
int render_whoami_text(FILE *out, const struct whoami_info *w, const struct render_options *o, struct err *e);
int render_whoami_json(FILE *out, const struct whoami_info *w, const struct render_options *o, struct err *e);

struct tools_info {
	const json_t *server_info; /* the initialize result (its serverInfo is shown) */
	const char *protocol_version;
	json_t *tools; /* tools/list's tools, as the server gave them */
};

/* Through the format's row: {server, protocolVersion, tools}, or text, one
 * line a tool and one a property. */
int render_tools(FILE *out, enum render_format f, const struct tools_info *t, struct err *e);
int render_tools_text(FILE *out, const struct tools_info *t, const struct render_options *o, struct err *e);
int render_tools_json(FILE *out, const struct tools_info *t, const struct render_options *o, struct err *e);

/* `review`: the activities found and their hazards, through the format's
 * row: the catalyst-audit.review/v1 object, a table a pull request shows,
 * or text (code quoted from the files escaped). */
int render_review(FILE *out, enum render_format f, const struct review *rv, const struct render_options *o,
		  struct err *e);
int render_review_text(FILE *out, const struct review *rv, const struct render_options *o, struct err *e);
int render_review_markdown(FILE *out, const struct review *rv, const struct render_options *o, struct err *e);
int render_review_sarif(FILE *out, const struct review *rv, const struct render_options *o, struct err *e);
int render_review_json(FILE *out, const struct review *rv, const struct render_options *o, struct err *e);

/* `link`: a run's console link, or why there is none. */
struct link_info {
	const char *app_id; /* NULL: not known */
	const char *run_id;
	const struct project_ref *project; /* the project the link names: a name, a uid or none */
	const char *link;                  /* NULL: none can be vouched for */
	const char *note;                  /* what the link cannot say, or why there is none */
	bool checked;                      /* the server was asked that the run exists */
};
/* Through the format's row: the catalyst-audit.link/v1 object, or the link
 * alone on a line (without one, the ids in plain text, escaped). */
int render_link(FILE *out, enum render_format f, const struct link_info *l, struct err *e);
int render_link_text(FILE *out, const struct link_info *l, const struct render_options *o, struct err *e);
int render_link_json(FILE *out, const struct link_info *l, const struct render_options *o, struct err *e);
