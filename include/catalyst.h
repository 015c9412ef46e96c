#pragma once
/* The Catalyst tool layer: the read-only allow-list (doc/PRODUCT.md rule 4),
 * arguments bound from each tool's inputSchema, results read from
 * structuredContent or JSON text, refusals parsed from every envelope and
 * mapped to their family (rule 5), transient failures retried. Sits on an
 * MCP session; knows nothing of reports. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "data_sharing.h"
#include "err.h"
#include "event.h"
#include "mcp.h"
#include "project.h"

/* ---- allow-list ---------------------------------------------------- */

/* The only tools this program may call. Everything else mutates. */
bool catalyst_tool_allowed(const char *name);

/* ---- schema-driven argument binding --------------------------------- */

enum catalyst_arg {
	CATALYST_ARG_PROJECT = 0,
	CATALYST_ARG_APP,
	CATALYST_ARG_RUN,
	CATALYST_ARG_STATUS,
	CATALYST_ARG_SINCE,     /* start time window, from (RFC 3339 UTC) */
	CATALYST_ARG_UNTIL,     /* start time window, to */
	CATALYST_ARG_WORKFLOW,  /* workflow name */
	CATALYST_ARG_PAGE_SIZE, /* decimal text; sent as an integer when the schema says so */
	CATALYST_ARG_CURSOR,
	CATALYST_ARG_ENDED_SINCE, /* end time window, from: runs that finished at or after it */
	CATALYST_ARG_COUNT
};
#define CATALYST_BIT(a) (1u << (a))

/* "the run id", "the project", ... for messages. */
const char *catalyst_arg_label(enum catalyst_arg a);

enum catalyst_prop_type {
	CATALYST_PROP_ANY = 0, /* no type in the schema */
	CATALYST_PROP_STRING,
	CATALYST_PROP_INTEGER,
	CATALYST_PROP_NUMBER,
	CATALYST_PROP_ARRAY,
	CATALYST_PROP_BOOLEAN,
	CATALYST_PROP_OBJECT,
};

struct catalyst_binding {
	char *tool;
	char *prop[CATALYST_ARG_COUNT]; /* the schema's property, or NULL */
	enum catalyst_prop_type type[CATALYST_ARG_COUNT];
	enum catalyst_prop_type item_type[CATALYST_ARG_COUNT]; /* for arrays */
	json_t *enum_values[CATALYST_ARG_COUNT];               /* the property's enum (or items' enum), or NULL */
	char *props;            /* every property name, ", "-separated, for messages */
	char *unknown_required; /* required properties no logical argument binds to, or NULL */
};

/* Binds from one tool's inputSchema (may be NULL: no properties). A
 * property matches when its name, lower-cased with '_', '-', '.' and
 * spaces removed, is one of the known spellings of a logical argument and
 * its type can carry the value. Never fails on an odd schema: unmatched
 * arguments stay NULL. */
void catalyst_binding_init(struct catalyst_binding *b, const char *tool, const json_t *input_schema);
void catalyst_binding_finish(struct catalyst_binding *b);

/* The arguments object for a call. vals[i] is NULL when the caller has no
 * value. A logical argument in `required` with a value but no property is
 * an ERR_PROTOCOL naming the tool, the argument and the properties there
 * are; so is a required schema property nothing binds to. Given values with
 * no property and not required are left out and reported in *omitted (a
 * bitmask of CATALYST_BIT), for the caller to apply client-side. */
json_t *catalyst_binding_args(const struct catalyst_binding *b, const char *const vals[CATALYST_ARG_COUNT],
			      unsigned required, unsigned *omitted, struct err *e);

/* Case- and separator-insensitive key comparison used by the binding and
 * by every lookup in tool answers. */
bool catalyst_key_match(const char *key, const char *spelling);

/* ---- refusals --------------------------------------------------------- */

enum catalyst_refusal_family {
	CATALYST_REFUSAL_NONE = 0,
	CATALYST_REFUSAL_CONNECTION,   /* exit 3 */
	CATALYST_REFUSAL_DATA_SHARING, /* exit 4 */
	CATALYST_REFUSAL_OTHER,        /* an error object with a kind we do not know: exit 5 */
};

enum catalyst_envelope {
	CATALYST_ENVELOPE_NONE = 0,
	CATALYST_ENVELOPE_RPC_ERROR,  /* JSON-RPC error, details in data */
	CATALYST_ENVELOPE_TEXT,       /* isError result with JSON text */
	CATALYST_ENVELOPE_STRUCTURED, /* structuredContent {error: {...}} */
};

struct catalyst_refusal {
	enum catalyst_refusal_family family;
	enum catalyst_envelope envelope;
	char kind[64];
	char message[512];
	char cause[256];
	char instruction[512];
	bool retryable;
	enum data_sharing_level level; /* when the refusal names the level */
	char level_key[64];            /* the field that named it */
};

/* Finds a refusal in a tool answer, in any envelope. Returns true and fills
 * *out when the answer is one (an error object with a kind). */
bool catalyst_refusal_parse(const struct mcp_tool_result *r, struct catalyst_refusal *out);
const char *catalyst_refusal_family_name(enum catalyst_refusal_family f);
enum err_code catalyst_refusal_code(const struct catalyst_refusal *r);

/* How a tool says that what it was asked for does not exist, none of it
 * documented: an error object whose kind reads "not found" (NOT_FOUND,
 * RUN_NOT_FOUND, NotFound, ...), or an error result whose plain text says
 * "not found", "does not exist" or "no such". catalyst_call() turns either
 * (and a JSON-RPC error -32002, MCP's "resource not found") into
 * ERR_NOT_FOUND. */
bool catalyst_kind_not_found(const char *kind);
bool catalyst_text_not_found(const char *text);

/* ---- answers ---------------------------------------------------------- */

/* Looks for a field naming the data-sharing level (dataSharingLevel,
 * data_sharing: {level}, ...) in an answer, not inside arrays. Returns the
 * level or SHARING_UNKNOWN; key gets the field's name. */
enum data_sharing_level catalyst_find_sharing(const json_t *doc, char *key, size_t key_size);
/* The same for a tool's answer: its document, else its _meta (either may be
 * NULL). */
enum data_sharing_level catalyst_answer_sharing(const json_t *doc, const json_t *meta, char *key, size_t key_size);

/* The first array whose first item is an object: doc itself, or one found
 * in its objects down to `depth` levels (an object's own arrays first).
 * Borrowed; NULL when there is none. */
const json_t *catalyst_find_list(const json_t *doc, int depth);

/* The first string (or number, as text) under a key matching one of the
 * spellings, searching objects down to `depth` levels, not inside arrays.
 * Borrowed from doc / the static buffer `num` (>= 32 bytes). */
const char *catalyst_find_string(const json_t *doc, const char *const *spellings, int depth, char *num);

/* "COMPLETED", "ORCHESTRATION_STATUS_COMPLETED", "Completed" -> "completed";
 * "cancelled" -> "canceled". Writes into out; returns out. */
const char *catalyst_status_normalize(const char *s, char *out, size_t size);
/* true for the statuses a run can have (after normalising). */
bool catalyst_status_valid(const char *normalized);

/* --since/--until: a duration back from now ("24h", "30m", "7d", "90s",
 * "2w", "1h30m") or an RFC 3339 time, as RFC 3339 UTC
 * ("2026-12-01T14:00:00Z"). ERR_USAGE otherwise. */
int catalyst_time_arg(const char *opt, const char *when, time_t now, char out[32], struct err *e);
/* An RFC 3339 time (or a bare date) as seconds since the epoch; 0 or -1. */
int catalyst_time_parse(const char *s, time_t *out);

/* ---- the session ---------------------------------------------------- */

struct catalyst_options {
	int max_attempts;     /* for transient failures; 0: 3 */
	double backoff_s;     /* first backoff; 0: 0.2 s */
	double backoff_cap_s; /* 0: 5 s (also caps Retry-After) */
};

struct catalyst;

/* The layer takes no ownership of the session. */
struct catalyst *catalyst_new(struct mcp_session *s, const struct catalyst_options *o);
void catalyst_free(struct catalyst *c);
/* How the histories catalyst_get_run fetches are parsed (--show-payloads
 * keeps payload texts); by default as event_log_from_json. */
void catalyst_set_parse_options(struct catalyst *c, const struct event_parse_options *o);

/* tools/list, then a binding for every allowed tool the server has. */
int catalyst_load_tools(struct catalyst *c, struct err *e);
bool catalyst_has_tool(const struct catalyst *c, const char *name);
const struct catalyst_binding *catalyst_binding_get(const struct catalyst *c, const char *tool);

/* The one door to the server: refuses any tool outside the allow-list
 * (ERR_INTERNAL, nothing sent), retries transient transport failures with
 * capped exponential backoff and jitter (honouring Retry-After), retries a
 * connection refusal once when it says it is retryable, never a
 * data-sharing refusal. On success *doc is a new reference to the answer
 * (structuredContent, else the JSON text) and *meta (may be NULL) to the
 * result's _meta or NULL. On a refusal: -1, e->detail ERR_DETAIL_REFUSAL,
 * e->code from the family, *ref filled (ref may be NULL). Thread-safe. */
int catalyst_call(struct catalyst *c, const char *tool, json_t *args, json_t **doc, json_t **meta,
		  struct catalyst_refusal *ref, struct err *e);

/* Binds vals through the tool's schema and calls it (see
 * catalyst_binding_args for required/omitted). */
int catalyst_invoke(struct catalyst *c, const char *tool, const char *const vals[CATALYST_ARG_COUNT],
		    unsigned required, unsigned *omitted, json_t **doc, json_t **meta,
		    struct catalyst_refusal *ref, struct err *e);

/* ---- runs ------------------------------------------------------------- */

/* The tool a run's history comes from (the report names it as the source). */
#define CATALYST_TOOL_GET_RUN "catalyst_get_workflow_run"
#define CATALYST_TOOL_LIST_RUNS "catalyst_list_workflow_runs"

/* What one run listing walks: pages, bytes of cursors remembered to catch
 * a cycle, runs and bytes of their ids remembered to give each run once.
 * Past any, or on any repeated cursor, the listing ends with ERR_PROTOCOL
 * (ERR_DETAIL_FINAL) naming the bound. */
#define CATALYST_MAX_LIST_PAGES 1000
#define CATALYST_MAX_CURSOR_MIB 16
#define CATALYST_MAX_LISTED_RUNS 50000
#define CATALYST_MAX_LISTED_ID_MIB 16

struct catalyst_run_filter {
	const struct project_ref *project; /* NULL: `default`; another project must find a property to go in */
	const char *app;
	const char *workflow;       /* sent to the server; checked here when the schema has no place for it */
	const char *workflow_match; /* checked here on every run, in any case ("orderworkflow") */
	const char *run;            /* one instance id: sent when the schema has a filter for it, and every
				     * run listed is checked here against it, exactly */
	const char *status;         /* normalised */
	const char *since;          /* RFC 3339 UTC */
	const char *until;
	/* Runs that ended at or after this (RFC 3339 UTC): their completion
	 * time, else the last update of a run in a terminal state; sent when
	 * the schema has a property for it, else checked here (a run that has
	 * not ended is left out). */
	const char *ended_since;
	/* A filter given several values (OR): its scalar above is NULL, none
	 * of them goes to the server (its filter takes one), and each listed
	 * run is checked here against the list: an app or a (normalised)
	 * status exactly, a workflow name in any case. */
	const char *const *apps;
	size_t n_apps;
	const char *const *statuses;
	size_t n_statuses;
	const char *const *workflows;
	size_t n_workflows;
	long limit;     /* top-level runs (no parent) given, 0: none; also sizes the first page. Child runs
			 * listed on the page that reaches it are still given, up to the next top-level one */
	long page_size; /* 0: 50 */
	long max_pages; /* 0: CATALYST_MAX_LIST_PAGES */
	/* The runs not to give again, borrowed, and where each run given is
	 * added: the caller's set of the runs in its report. NULL: the
	 * listing keeps a set of its own. */
	struct catalyst_run_set *seen;
};

struct catalyst_run_item {
	char *run_id;
	char *app_id;
	char *workflow;
	char *status; /* normalised */
	char *started_at;
	char *parent_id;
	char *completed_at; /* as the list gives them, or NULL */
	char *updated_at;
};

struct catalyst_run_walk; /* the listing's own state */

struct catalyst_run_list {
	struct catalyst_run_item *items; /* the page in hand, until the next step */
	size_t n;
	/* The listing's facts, as they stand (whether or not it failed). */
	unsigned client_side; /* CATALYST_BIT of filters applied here, not by the server */
	size_t pages;
	long page_size;                  /* the last page size asked for (after unfilterable halvings) */
	size_t unfilterable;             /* how many times the server said a page was too big */
	bool truncated;                  /* more pages exist but the tool has no cursor property */
	enum data_sharing_level sharing; /* named by a field in a list answer (so far) */
	char sharing_key[64];
	size_t repeats;     /* runs listed again (same app id and run id), left out */
	size_t top_level;   /* top-level runs given */
	bool limit_reached; /* the listing ended at the filter's limit */
	struct catalyst_run_walk *walk;
};

/* Starts listing runs (no traffic yet): catalyst_run_list_next steps it
 * page by page, following the cursor, re-asking with half the page size
 * (down to 1) on `unfilterable`, filtering client-side what the schema
 * cannot filter, giving each run once (by app id and run id) and stopping
 * at the limit. f and its strings are borrowed until the listing is
 * finished. */
void catalyst_list_runs(struct catalyst *c, const struct catalyst_run_filter *f, struct catalyst_run_list *l);
/* The next page: 1 with its runs in l->items (there may be none: all
 * filtered out or repeats), 0 when the listing is over (l->limit_reached
 * says if by the limit), -1 with e set (a refusal in *ref, which may be
 * NULL). The page in hand is freed by the next step: nothing of a listing
 * is held across pages but the ids that make each run given once. A bound
 * reached inside a page gives the runs before it, and the error at the
 * next step. A tool error that is not a refusal means the project has no
 * managed workflow store, and the message says so. */
int catalyst_run_list_next(struct catalyst_run_list *l, struct catalyst_refusal *ref, struct err *e);
void catalyst_run_list_finish(struct catalyst_run_list *l);

/* When a listed run ended: its completion time, else the last update of
 * a run in a terminal state; NULL when it has not ended (or the list does
 * not say). */
const char *catalyst_run_ended_at(const struct catalyst_run_item *it);
/* Whether it ended at or after since (RFC 3339); an item that says nothing
 * of its state counts as ended. */
bool catalyst_run_ended_since(const struct catalyst_run_item *it, const char *since);
/* RFC 3339 times compared as instants (to the fraction of a second):
 * <0, 0, >0. */
int catalyst_time_cmp(const char *a, const char *b);

/* The run items found in one list answer, appended to out (exposed for
 * tests). */
int catalyst_run_items_parse(const json_t *doc, struct catalyst_run_list *out, struct err *e);

/* "<length of the app id>:<app id>/<run id>": one key per run, whatever
 * characters the ids hold. malloc'd; NULL when out of memory. */
char *catalyst_run_key(const char *app_id, const char *run_id);

/* A set of runs (app id, run id; NULL reads as ""), compact: a listing
 * of 50,000 runs keeps each once in some 40 bytes (a JSON object of
 * catalyst_run_key's took 110, and its buckets), so memory stays flat as
 * the listing grows (issue 34). Not thread-safe. NULL: out of memory. */
struct catalyst_run_set;
struct catalyst_run_set *catalyst_run_set_new(void);
void catalyst_run_set_free(struct catalyst_run_set *s);
bool catalyst_run_set_has(const struct catalyst_run_set *s, const char *app_id, const char *run_id);
/* 1: added; 0: it was there; -1: out of memory (the set unchanged). */
int catalyst_run_set_add(struct catalyst_run_set *s, const char *app_id, const char *run_id);
size_t catalyst_run_set_count(const struct catalyst_run_set *s);

/* One run, fetched and parsed. */
struct catalyst_run {
	struct event_log *log;           /* the history (the caller's: event_log_free) */
	enum data_sharing_level sharing; /* named by a field of the answer, its _meta or the history's envelope */
	char sharing_key[64];
};

/* CATALYST_TOOL_GET_RUN for app_id/run_id in project (required by the
 * binding unless defaulted), its answer parsed into a history. -1 with e
 * set: the call failed (a refusal in *ref), or the answer is no history
 * ("<tool> answer for <run id>: ..."; out->sharing is still what the answer
 * named). */
int catalyst_get_run(struct catalyst *c, const struct project_ref *project, const char *app_id, const char *run_id,
		     struct catalyst_run *out, struct catalyst_refusal *ref, struct err *e);
/* The same, also handing back the run document the history was parsed
 * from in *doc (a new reference; NULL when the call failed): what
 * --save-histories writes. */
int catalyst_get_run_doc(struct catalyst *c, const struct project_ref *project, const char *app_id,
			 const char *run_id, struct catalyst_run *out, json_t **doc, struct catalyst_refusal *ref,
			 struct err *e);
/* Whether the run exists: the same call, its answer not parsed (0, or -1
 * with e set; ERR_NOT_FOUND when the server says it is not there). */
int catalyst_check_run(struct catalyst *c, const struct project_ref *project, const char *app_id,
		       const char *run_id, struct err *e);

/* ---- who is signed in, and the projects they see ----------------------- */

struct catalyst_identity {
	char *org_name; /* NULL: the answer does not say */
	char *org_id;
	char *user;
	enum data_sharing_level sharing; /* named by a field of the answer or its _meta */
	char sharing_key[64];
};

/* catalyst_whoami, read. Refusals as catalyst_call. */
int catalyst_whoami(struct catalyst *c, struct catalyst_identity *out, struct catalyst_refusal *ref,
		    struct err *e);
void catalyst_identity_finish(struct catalyst_identity *id);

struct catalyst_projects {
	struct catalyst_project *items; /* one per entry of the answer's list, in its order */
	size_t n;
	enum data_sharing_level sharing; /* named by a field of the answer or its _meta */
	char sharing_key[64];
};

/* catalyst_list_projects, read. */
int catalyst_list_projects(struct catalyst *c, struct catalyst_projects *out, struct err *e);
void catalyst_projects_finish(struct catalyst_projects *l);
/* catalyst_get_project for a project as given (name or uid), read. */
int catalyst_get_project(struct catalyst *c, const char *project, struct catalyst_project *out, struct err *e);
void catalyst_project_finish(struct catalyst_project *p);
