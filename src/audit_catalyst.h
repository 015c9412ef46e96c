#pragma once
/* Inside the commands over Catalyst (run, runs, link, whoami): what one
 * command carries from file to file — its session, the project, the
 * data-sharing level as known so far, the report — and the pieces of the
 * pipeline the command files share. For src/audit_*.c only. */

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "audit.h"
#include "catalyst.h"
#include "session.h"

/* How the data-sharing level is known, best first (doc/catalyst-mcp.md). */
enum sharing_rank {
	RANK_FIELD = 1,
	RANK_REFUSAL,
	RANK_ASSERTED,
	RANK_NONE,
};

struct audit_stream;
struct whoami_probe;

struct audit_ctx {
	const struct audit_request *rq;
	struct session *session;
	struct catalyst *c;         /* the session's layer once it is open */
	struct project_ref project; /* rq->project, a bare number's form resolved through the server */
	char *unresolved;           /* why links carry no project (a bare number left unresolved), or NULL */
	/* A uid the server reads as a project's name (issue 19: --project-id 42
	 * is the project named "42", uid 977): what the server said the project
	 * is, and the sentence that says so; NULL otherwise. */
	char *project_said;
	char *said_note;
	/* Why no console link is vouched for (issue 28): the server's answer
	 * about the project named another one, or none, or could not be had.
	 * NULL when it named the very project asked, uid for uid, name for
	 * name. */
	char *unconfirmed;
	bool unconfirmed_missing; /* because the server says it does not exist */
	struct report *r;         /* NULL for link and whoami */
	pthread_mutex_t lock;     /* guards the sharing fields below and the report notes */
	enum data_sharing_level sharing;
	char sharing_source[200];
	enum sharing_rank rank;
	struct audit_stream *stream;   /* the JSON report written as runs finish, or NULL */
	struct whoami_probe *whoami;   /* `run`: the probe still under way beside the fetch */
	struct catalyst_run_set *seen; /* every run in the report */
	json_t *baseline;              /* --baseline's finding ids -> true, or NULL */
	struct review *source;         /* --source's reviewed code, or NULL */
	int save_fd;                   /* --save-histories: the folder, else -1 */
};

/* ---- audit_context.c: the context, the level as learned, the probe ---- */

void audit_ctx_init(struct audit_ctx *x, const struct audit_request *rq, struct report *r);
void audit_ctx_finish(struct audit_ctx *x);
/* The session (SESSION_CATALYST); errors as session_open says them. */
int audit_ctx_connect(struct audit_ctx *x, struct err *e);

/* session_open with the options rq resolves to: --stdio's command, else
 * rq->server over HTTP signed in as oauth_config_from_request says, the
 * request's timeout and --jobs, and (SESSION_MCP) rq->progress for the
 * server's progress. (audit_login.c) */
struct session *audit_session_open(const struct audit_request *rq, enum session_kind kind, struct err *e);

/* An answer's word on the level: taken when it ranks above what is known
 * (a contradicted --data-sharing gets a report note). Thread-safe. */
void audit_sharing_offer(struct audit_ctx *x, enum data_sharing_level l, enum sharing_rank rank, const char *fmt,
			 ...) __attribute__((format(printf, 4, 5)));
void audit_sharing_from_refusal(struct audit_ctx *x, const struct catalyst_refusal *rf);
/* A level a field of a tool's answer named (key), if it named one. */
void audit_sharing_from_field(struct audit_ctx *x, enum data_sharing_level level, const char *key,
			      const char *tool);
/* The level and its source as they stand, for one run's analysis. */
void audit_sharing_get(struct audit_ctx *x, enum data_sharing_level *level, char *source, size_t size);

/* catalyst_whoami, when the server has it: the identity check that fails
 * early on a connection refusal (-1), and an answer that may name the
 * level. Anything else is no failure: the audit goes on. */
int audit_probe_whoami(struct audit_ctx *x, struct err *e);
/* The probe in a thread beside `run`'s fetch (or here when no thread
 * starts); audit_probe_join() before anything its answer could change,
 * so the outcome is the one of probing first. */
struct whoami_probe {
	struct audit_ctx *x;
	pthread_t th;
	bool running;
	int rc;
	struct err e;
};
int audit_probe_start(struct audit_ctx *x, struct whoami_probe *w, struct err *e);
void audit_probe_join(struct audit_ctx *x);

/* Whether the report holds the run (app id, run id); remembering one. */
bool audit_seen_run(const struct audit_ctx *x, const char *app_id, const char *run_id);
int audit_mark_run(struct audit_ctx *x, const char *app_id, const char *run_id, struct err *e);

/* ---- audit_catalyst.c: the pipeline ----------------------------------- */

/* Fetches and audits one run into rr (already holding app_id, run_id).
 * Never fails: a run that cannot be audited is a failed report entry. */
void audit_one_run(struct audit_ctx *x, struct report_run *rr);
/* The same, keeping the history's events in rr->log (run --follow compares
 * them with the last reading; it drops them itself). */
void audit_one_run_keep(struct audit_ctx *x, struct report_run *rr, bool keep_events);

/* ---- audit_follow.c: run --follow ---------------------------------------- */

/* A usage error when --follow is asked of a format that cannot follow. */
int audit_follow_check(const struct audit_request *rq, struct err *e);
/* Follows the run until it ends (or is stopped, or disappears): lines as
 * it changes, then the verdict. Returns run's status, or -1 with e set. */
int audit_follow_run(struct audit_ctx *x, const char *app, const char *run_id, struct err *e);
/* runs --follow: every run of x's report (as the listing audited them),
 * followed at once, each line prefixed by its run. */
int audit_follow_runs(struct audit_ctx *x, struct err *e);

/* The report's runs, streamed (x->stream's) or held whole (x->r's): how
 * many, run i's ids, and one more added (ids copied). */
size_t audit_n_runs(const struct audit_ctx *x);
void audit_run_ids(const struct audit_ctx *x, size_t i, const char **app, const char **run);
int audit_add_run(struct audit_ctx *x, const char *app, const char *run, const char *parent, struct err *e);
/* Fetches and audits report runs [from, to) with --jobs workers over the
 * one session; `what` names them in the progress line. */
void audit_range(struct audit_ctx *x, size_t from, size_t to, const char *what);
/* The same for runs that join while the workers run: started with none,
 * each page's runs added to the report and the pool as the page arrives
 * (audit_feed_add, from the one listing thread), then ended, which waits
 * for the last. NULL when out of memory. */
struct audit_feed;
struct audit_feed *audit_feed_start(struct audit_ctx *x, const char *what);
int audit_feed_add(struct audit_feed *f, const struct catalyst_run_item *items, size_t n, struct err *e);
void audit_feed_end(struct audit_feed *f);
/* Child workflow runs the audited runs' histories name, audited in turn,
 * breadth first within the bounds. */
int audit_follow_children(struct audit_ctx *x, size_t from, struct err *e);
/* The report out (streamed or whole), and the exit status: findings, or
 * the most telling failure of a run that could not be audited. */
int audit_finish_report(struct audit_ctx *x, const char *what, struct err *e);

/* ---- audit_stream.c: the JSON report written as runs finish ------------ */

/* NULL when the report is held whole (not JSON, or no temporary file). */
struct audit_stream *audit_stream_new(const struct audit_request *rq);
void audit_stream_free(struct audit_stream *st);
/* A streamed report's runs are the stream's, the report holding none
 * (its notes and meta only): run i added (ids copied; -1 when memory ran
 * out), how many there are, its ids (borrowed from the stream, which
 * never moves them), and a report_run made of them for a worker to audit
 * (-1, the stream failed, when memory ran out; the caller frees it with
 * report_run_finish after audit_stream_ready). */
int audit_stream_add(struct audit_stream *st, const char *app, const char *run, const char *parent, struct err *e);
size_t audit_stream_count(struct audit_stream *st);
void audit_stream_ids(struct audit_stream *st, size_t i, const char **app, const char **run);
int audit_stream_take(struct audit_stream *st, size_t i, struct report_run *rr);
/* Run i (rr, the worker's copy of report run i) is audited: rendered,
 * and its analysis and log freed. */
void audit_stream_ready(struct audit_ctx *x, struct report_run *rr, size_t i);
/* What stays of a run after audit_stream_ready, or of one held whole. */
bool audit_run_audited(const struct audit_ctx *x, size_t i);
enum err_code audit_run_failure_code(const struct audit_ctx *x, size_t i);
/* The c-th child instance id run i's history named (*id), and how many. */
size_t audit_run_children(const struct audit_ctx *x, size_t i, size_t c, const char **id);
/* audit_emit_report for a streamed report. */
int audit_stream_emit(struct audit_ctx *x, struct err *e);

/* ---- audit_project.c: the project, through the server ------------------ */

/* After connecting: a bare number settled as a name or a uid through the
 * server; unsettled, x->unresolved says why. */
void audit_resolve_project(struct audit_ctx *x);
/* The projects the signed-in user sees; -1 when they cannot be listed (no
 * catalyst_list_projects, or it failed: a courtesy, never the error). */
int audit_projects(struct audit_ctx *x, struct catalyst_projects *l);
/* A project the server says does not exist: e becomes that (status 7),
 * with the projects there are. */
void audit_project_missing(struct audit_ctx *x, struct err *e);
/* "a, b and c" of the first n strings (", and more" when more), into out. */
void audit_join_names(char *const *names, size_t n, bool more, char *out, size_t size);

/* ---- audit_filters.c: what the filters of `runs` name ------------------- */
struct runs_filters {
	char **apps, **workflows, **statuses; /* split at commas, statuses normalised */
	size_t n_apps, n_workflows, n_statuses;
	char *workflow_send; /* the server's spelling of the one --workflow, sent to its filter */
};
/* Before any traffic: each repeatable filter split (`--status failed,completed`),
 * statuses checked; one value goes to f's scalar (the server's filter), several
 * to f's lists (checked here). -1 with ERR_USAGE. */
int runs_filters_parse(const struct audit_request *rq, struct runs_filters *rf, struct catalyst_run_filter *f,
		       struct err *e);
/* After connecting: every app given must be one of the project's (exactly),
 * every workflow one of its workflows' names (in any case), else status 7
 * with the nearest name; the one workflow's spelling for the server's
 * filter. When the server cannot say (no tool, an error), a report note
 * says what was not checked. */
int runs_filters_check(struct audit_ctx *x, struct runs_filters *rf, struct catalyst_run_filter *f, struct err *e);
void runs_filters_finish(struct runs_filters *rf);

/* ---- audit_state.c: the checkpoint of `runs --state FILE` -------------- */
struct runs_state {
	char *ended_at; /* the largest end time audited; NULL: no checkpoint yet */
	json_t *runs;   /* catalyst_run_key() of the runs audited at it -> true */
	int lock_fd;    /* PATH.lock, held until runs_state_finish */
	bool waited;    /* another job held the lock first */
};
/* Takes the checkpoint's lock (waiting while another job holds it) and
 * reads it: none yet (no file) is 0 with st->ended_at NULL; a file that is
 * not one (or a symbolic link, or not a regular file) is ERR_INPUT, never
 * reset; one that another user owns or can write is refused. The lock is
 * held until runs_state_finish, after runs_state_save. */
int runs_state_load(const char *path, struct runs_state *st, struct err *e);
/* Writes it atomically (0600, a temporary file renamed over it). */
int runs_state_save(const char *path, const char *ended_at, const json_t *runs, struct err *e);
void runs_state_finish(struct runs_state *st);

/* ---- audit_lookup.c: a run by its id ---------------------------------- */

/* `run RUN_ID` / `link RUN_ID`: the one app of the project that holds the
 * run, into *app. None: status 7, saying where a run of that id is, if
 * anywhere; several: a usage error naming them. */
int audit_locate_run(struct audit_ctx *x, const char *run_id, char **app, struct err *e);
/* A run the server says is not in app `app`: e becomes status 7, saying
 * where a run of that id is, if anywhere. */
void audit_explain_missing(struct audit_ctx *x, const char *app, const char *run_id, struct err *e);
/* Tells the user (and the report) which app a lookup found. */
void audit_say_found(struct audit_ctx *x, const char *app, const char *run_id);

/* ---- audit_runs.c: the run listing, as runs and stats share it ---------- */

/* One listing of runs, from the filters to its end. */
struct audit_listing {
	struct catalyst_run_filter f;
	struct runs_filters rfs; /* --app, --workflow, --status, each repeatable */
	char since[32], until[32], ended_since[32];
	struct catalyst_run_list list;
	struct catalyst_refusal rf;
	struct err err; /* how the listing ended (code 0: at its end) */
	bool sharing_offered;
};
/* The filters checked (usage errors before any traffic); x's project is
 * the one the filter names. */
int audit_listing_filters(struct audit_ctx *x, struct audit_listing *l, struct err *e);
/* The session opened and probed, the project resolved, --workflow's
 * spelling looked up (notes to x->r), and the listing started, giving
 * each run once through x->seen. */
int audit_listing_start(struct audit_ctx *x, struct audit_listing *l, struct err *e);
/* The next page in l->list (1), the end (0) or an error (-1, in l->err);
 * a level a list answer names is offered before the page's runs are
 * audited. */
int audit_listing_next(struct audit_ctx *x, struct audit_listing *l);
/* A listing that failed before it gave a run: e becomes its error, as the
 * command's answer. */
void audit_listing_failed(struct audit_ctx *x, struct audit_listing *l, struct err *e);
void audit_listing_finish(struct audit_listing *l);

/* --since, --until, --ended-since as the server takes them (RFC 3339 UTC,
 * written into the caller's buffers): usage errors before any traffic. */
int audit_time_filters(const struct audit_request *rq, struct catalyst_run_filter *f, char since[32],
		       char until[32], char ended_since[32], struct err *e);
/* What the listing did that the report should say (into x->r's notes),
 * after n_runs runs. */
void audit_listing_notes(struct audit_ctx *x, const struct catalyst_run_list *l, const struct err *list_err,
			 size_t n_runs);

/* ---- audit_link.c ------------------------------------------------------ */

/* --web: the console link opened with $BROWSER, when it is one to vouch
 * for (why_not says why not). */
void audit_open_web(const struct audit_request *rq, const char *link, const char *why_not);
