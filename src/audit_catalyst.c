/* `run`, `runs`, `link` and `whoami`: the audit pipeline over Catalyst's
 * MCP tools. connect -> initialize -> tools/list -> bind -> calls ->
 * event model -> analysis -> report -> renderer. */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "browser.h"
#include "catalyst.h"
#include "console_link.h"
#include "escape.h"
#include "event.h"
#include "mcp.h"
#include "oauth.h"
#include "transport.h"

/* Child workflows of child workflows are followed this deep. */
#define MAX_CHILD_DEPTH 4
/* And no more than this many child runs per command. */
#define MAX_CHILD_RUNS 1000
/* What `runs` keeps of a listing across its pages: a few ids per run (the
 * report's order, the duplicate check, the child runs to follow). A server
 * that lists without end stops here, not at the end of memory. */
#define MAX_LISTED_RUNS 50000
#define MAX_LISTED_ID_MIB 16

struct conn {
	struct transport *t;
	struct mcp_session *s;
	struct catalyst *c;
};

/* How the data-sharing level is known, best first (catalyst-mcp.md). */
enum sharing_rank {
	RANK_FIELD = 1,
	RANK_REFUSAL,
	RANK_ASSERTED,
	RANK_NONE,
};

struct ctx {
	const struct audit_request *rq;
	struct conn cn;
	struct console_project project;
	const char *server_project; /* what project-scoped calls pass; NULL: none */
	char *resolved_note;        /* why the link carries no project, or NULL */
	struct report *r;
	pthread_mutex_t lock; /* guards the sharing fields below and the report notes */
	enum data_sharing_level sharing;
	char sharing_source[200];
	enum sharing_rank rank;
	size_t done, total;          /* progress of `runs` */
	struct stream *stream;       /* the JSON report written as runs finish, or NULL */
	struct whoami_probe *whoami; /* `run`: the probe still under way beside the fetch */
	json_t *seen;                /* every (app id, run id) in the report: run_key() -> true */
};

static void warnf(const struct audit_request *rq, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(const struct audit_request *rq, const char *fmt, ...)
{
	if (!rq->warn)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rq->warn(msg, rq->msg_ctx);
}

/* ---- connection ------------------------------------------------------ */

static int conn_open(const struct audit_request *rq, struct conn *cn, struct err *e)
{
	memset(cn, 0, sizeof *cn);
	long timeout_ms = (rq->timeout_s > 0 ? rq->timeout_s : 60) * 1000;
	const char *where = rq->stdio_cmd ? rq->stdio_cmd : rq->server;
	if (rq->stdio_cmd) {
		struct transport_stdio_options so = {
			.command = rq->stdio_cmd,
			.pass_stderr = rq->verbose,
			.timeout_ms = timeout_ms,
		};
		cn->t = transport_stdio_new(&so, e);
	} else {
		/* The "oauth" module adds the token store; until then a token comes
		 * from the environment only. It is never printed. */
		const char *token = getenv("CATALYST_TOKEN");
		struct transport_http_options ho = {
			.url = rq->server,
			.cacert = rq->cacert,
			.bearer_token = token && *token ? token : NULL,
			.timeout_ms = timeout_ms,
			.max_parallel = rq->jobs > 0 ? rq->jobs : 8,
		};
		cn->t = oauth_connect_http(rq, &ho, e); /* token store, refresh, sign-in on 401 */
	}
	if (!cn->t)
		return err_prefix(e, "connecting to %s", where);
	/* No progress here: `runs` shows its own. */
	struct mcp_options mo = {.timeout_ms = timeout_ms};
	cn->s = mcp_session_new(cn->t, &mo);
	if (!cn->s)
		return err_set(e, ERR_INTERNAL, "out of memory");
	if (mcp_initialize(cn->s, e) < 0)
		return err_prefix(e, "connecting to %s", where);
	cn->c = catalyst_new(cn->s, NULL);
	if (!cn->c)
		return err_set(e, ERR_INTERNAL, "out of memory");
	if (catalyst_load_tools(cn->c, e) < 0)
		return err_prefix(e, "%s", where);
	return 0;
}

static void conn_close(struct conn *cn)
{
	catalyst_free(cn->c);
	if (cn->s)
		mcp_session_close(cn->s);
	mcp_session_free(cn->s);
	transport_free(cn->t);
	memset(cn, 0, sizeof *cn);
}

/* ---- data-sharing level ---------------------------------------------- */

static void sharing_offer(struct ctx *x, enum data_sharing_level l, enum sharing_rank rank, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void sharing_offer(struct ctx *x, enum data_sharing_level l, enum sharing_rank rank, const char *fmt, ...)
{
	if (l == SHARING_UNKNOWN)
		return;
	pthread_mutex_lock(&x->lock);
	if (rank < x->rank) {
		if (x->rank == RANK_ASSERTED && x->sharing != l && x->r)
			report_add_note(x->r,
					"--data-sharing %s contradicts the server, which says %s; the server's "
					"answer is used",
					data_sharing_level_name(x->sharing), data_sharing_level_name(l));
		x->rank = rank;
		x->sharing = l;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(x->sharing_source, sizeof x->sharing_source, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&x->lock);
}

static void sharing_from_answer(struct ctx *x, const char *tool, const json_t *doc, const json_t *meta)
{
	char key[64];
	enum data_sharing_level l = catalyst_find_sharing(doc, key, sizeof key);
	if (l == SHARING_UNKNOWN)
		l = catalyst_find_sharing(meta, key, sizeof key);
	sharing_offer(x, l, RANK_FIELD, "field %s in the %s answer", key, tool);
}

static void sharing_from_refusal(struct ctx *x, const struct catalyst_refusal *rf)
{
	sharing_offer(x, rf->level, RANK_REFUSAL, "named by a %s refusal (%s)", rf->kind, rf->level_key);
}

static void ctx_init(struct ctx *x, const struct audit_request *rq, struct report *r)
{
	memset(x, 0, sizeof *x);
	x->rq = rq;
	x->r = r;
	pthread_mutex_init(&x->lock, NULL);
	x->rank = RANK_NONE;
	x->seen = json_object();
	x->sharing = SHARING_UNKNOWN;
	if (rq->sharing != SHARING_UNKNOWN) {
		x->sharing = rq->sharing;
		x->rank = RANK_ASSERTED;
		snprintf(x->sharing_source, sizeof x->sharing_source, "asserted with --data-sharing");
	}
}

static void stream_free(struct stream *st);

static void ctx_finish(struct ctx *x)
{
	stream_free(x->stream);
	x->stream = NULL;
	conn_close(&x->cn);
	json_decref(x->seen);
	free(x->resolved_note);
	pthread_mutex_destroy(&x->lock);
}

/* catalyst_whoami, when the server has it: the identity check that fails
 * early on a connection refusal, and an answer that may name the level. */
static int probe_whoami(struct ctx *x, json_t **out, struct err *e)
{
	if (out)
		*out = NULL;
	if (!catalyst_has_tool(x->cn.c, "catalyst_whoami"))
		return 0;
	json_t *doc = NULL, *meta = NULL;
	struct catalyst_refusal rf;
	memset(&rf, 0, sizeof rf);
	if (catalyst_call(x->cn.c, "catalyst_whoami", NULL, &doc, &meta, &rf, e) < 0) {
		if (e->detail == ERR_DETAIL_REFUSAL) {
			sharing_from_refusal(x, &rf);
			if (rf.family == CATALYST_REFUSAL_CONNECTION)
				return -1;
		}
		/* Anything else: whoami is a courtesy here, the audit goes on. */
		err_clear(e);
		return 0;
	}
	sharing_from_answer(x, "catalyst_whoami", doc, meta);
	json_decref(meta);
	if (out)
		*out = doc;
	else
		json_decref(doc);
	return 0;
}

/* `run` makes two calls of its own: the whoami probe and the run's fetch.
 * Each waits out the server's latency, so the probe goes in a thread while
 * the run is fetched; whoami_join() comes before anything the probe's
 * answer could change (the data-sharing level and its source, the notes),
 * so the outcome is the one of probing first. */
struct whoami_probe {
	struct ctx *x;
	pthread_t th;
	bool running;
	int rc;
	struct err e;
};

static void *whoami_main(void *arg)
{
	struct whoami_probe *w = arg;
	w->rc = probe_whoami(w->x, NULL, &w->e);
	return NULL;
}

/* Starts the probe in a thread, or runs it here when no thread starts. */
static int whoami_start(struct ctx *x, struct whoami_probe *w, struct err *e)
{
	memset(w, 0, sizeof *w);
	w->x = x;
	err_clear(&w->e);
	if (pthread_create(&w->th, NULL, whoami_main, w) != 0)
		return probe_whoami(x, NULL, e);
	w->running = true;
	x->whoami = w;
	return 0;
}

static void whoami_join(struct ctx *x)
{
	struct whoami_probe *w = x->whoami;
	if (!w || !w->running)
		return;
	pthread_join(w->th, NULL);
	w->running = false;
}

/* ---- projects --------------------------------------------------------- */

static const char *const k_name[] = {"name", "projectname", NULL};
static const char *const k_uid[] = {"uid", "projectuid", "numericid", NULL};
static const char *const k_id[] = {"id", "projectid", NULL};

/* A project object's name and uid ("165" or "prj-165" as the server gives it). */
static void project_fields(const json_t *p, const char **name, const char **uid, char num[2][32])
{
	*name = catalyst_find_string(p, k_name, 0, NULL);
	*uid = catalyst_find_string(p, k_uid, 0, num[0]);
	if (!*uid) {
		const char *id = catalyst_find_string(p, k_id, 0, num[1]);
		if (id && console_is_uid(id))
			*uid = id;
	}
}

static bool same_uid(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	if (strncmp(a, "prj-", 4) == 0)
		a += 4;
	if (strncmp(b, "prj-", 4) == 0)
		b += 4;
	return strcmp(a, b) == 0;
}

static const json_t *first_object_array(const json_t *doc, int depth)
{
	if (json_is_array(doc))
		return doc;
	if (!json_is_object(doc) || depth < 0)
		return NULL;
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)doc, key, v)
		if (json_is_array(v) && json_is_object(json_array_get(v, 0)))
			return v;
	json_object_foreach((json_t *)doc, key, v) {
		const json_t *a = json_is_object(v) ? first_object_array(v, depth - 1) : NULL;
		if (a)
			return a;
	}
	return NULL;
}

/* A bare number given as --project: a name or a uid? Only the server can
 * say. Returns the resolved kind, or AMBIGUOUS with *why set. */
static enum console_project_kind resolve_number(struct ctx *x, const char *value, char *why, size_t why_size)
{
	struct err e;
	err_clear(&e);
	json_t *doc = NULL;
	bool by_name = false, by_uid = false;
	char num[2][32];
	const char *name, *uid;
	if (catalyst_has_tool(x->cn.c, "catalyst_list_projects")) {
		if (catalyst_call(x->cn.c, "catalyst_list_projects", NULL, &doc, NULL, NULL, &e) < 0) {
			snprintf(why, why_size, "%s", e.msg);
			return CONSOLE_PROJECT_AMBIGUOUS;
		}
		const json_t *arr = first_object_array(doc, 2);
		size_t i;
		const json_t *p;
		json_array_foreach(arr, i, p) {
			project_fields(p, &name, &uid, num);
			by_name |= name && strcmp(name, value) == 0;
			by_uid |= same_uid(uid, value);
		}
	} else if (catalyst_has_tool(x->cn.c, "catalyst_get_project")) {
		const char *vals[CATALYST_ARG_COUNT] = {[CATALYST_ARG_PROJECT] = value};
		if (catalyst_invoke(x->cn.c, "catalyst_get_project", vals, CATALYST_BIT(CATALYST_ARG_PROJECT),
				    NULL, &doc, NULL, NULL, &e) < 0) {
			snprintf(why, why_size, "%s", e.msg);
			return CONSOLE_PROJECT_AMBIGUOUS;
		}
		const json_t *p = json_object_get(doc, "project");
		project_fields(json_is_object(p) ? p : doc, &name, &uid, num);
		by_name = name && strcmp(name, value) == 0;
		by_uid = same_uid(uid, value);
	} else {
		snprintf(why, why_size,
			 "the server offers neither catalyst_list_projects nor catalyst_get_project");
		return CONSOLE_PROJECT_AMBIGUOUS;
	}
	json_decref(doc);
	/* --project takes a name, and the server reads a name first too. */
	if (by_name)
		return CONSOLE_PROJECT_NAME;
	if (by_uid)
		return CONSOLE_PROJECT_UID;
	snprintf(why, why_size, "the server knows no project named or numbered %s", value);
	return CONSOLE_PROJECT_AMBIGUOUS;
}

static int classify_project(struct ctx *x, struct err *e)
{
	const struct audit_request *rq = x->rq;
	if (console_project_classify(rq->project, rq->project_id, &x->project, e) < 0)
		return -1;
	x->server_project = rq->project_id ? rq->project_id : rq->project;
	return 0;
}

/* After connecting: settle an ambiguous project through the server. */
static void resolve_project(struct ctx *x)
{
	if (x->project.kind != CONSOLE_PROJECT_AMBIGUOUS)
		return;
	char why[600];
	enum console_project_kind k = resolve_number(x, x->project.value, why, sizeof why);
	x->project.kind = k;
	if (k != CONSOLE_PROJECT_AMBIGUOUS)
		return;
	char note[900];
	snprintf(note, sizeof note,
		 "console links carry no project: --project %s is a bare number (a name or a uid?) and "
		 "it could not be resolved: %s",
		 x->project.value, why);
	x->resolved_note = strdup(note);
}

/* ---- one run ------------------------------------------------------------ */

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void fill_link(struct ctx *x, struct report_run *rr)
{
	switch (x->project.kind) {
	case CONSOLE_PROJECT_NAME:
		rr->project_form = PROJECT_NAME;
		rr->project = xstrdup(x->project.value);
		break;
	case CONSOLE_PROJECT_UID:
		rr->project_form = PROJECT_UID;
		rr->project = xstrdup(x->project.value);
		break;
	default:
		rr->project_form = PROJECT_NONE;
		break;
	}
	struct err e;
	err_clear(&e);
	rr->console_link = console_link_run(x->rq->console, &x->project, rr->app_id, rr->run_id, &e);
	if (!rr->console_link)
		rr->link_note = strdup(e.msg);
	else if (x->resolved_note)
		rr->link_note = strdup(x->resolved_note);
}

static void fail_run(struct report_run *rr, const struct err *e, const struct catalyst_refusal *rf)
{
	rr->failure_code = e->code ? e->code : ERR_PROTOCOL;
	rr->failure = strdup(e->msg);
	if (e->detail == ERR_DETAIL_REFUSAL && rf && *rf->kind) {
		rr->refusal_kind = strdup(rf->kind);
		if (*rf->instruction)
			rr->refusal_instruction = strdup(rf->instruction);
	}
}

/* An execution graph ({"graph": {"nodes": [{"events": [...]}, ...]}}) with
 * no flat event list beside it: the nodes' events, concatenated in document
 * order, are the history. It replaces the graph as "history" so the event
 * model finds one list; left alone when a flat list is already there (the
 * model must not count events twice). Remove once event_log_from_json
 * walks graphs. */
static void flatten_graph(json_t *doc)
{
	json_t *graph = json_object_get(doc, "graph");
	if (!graph) {
		json_t *inner = json_object_get(doc, "export");
		graph = json_object_get(inner, "graph");
		doc = inner;
	}
	json_t *nodes = json_object_get(graph, "nodes");
	if (!json_is_array(nodes) || json_object_get(doc, "history") || json_object_get(doc, "events"))
		return;
	json_t *flat = json_array();
	size_t i, k;
	json_t *node, *ev;
	json_array_foreach(nodes, i, node)
		json_array_foreach(json_object_get(node, "events"), k, ev)
			json_array_append(flat, ev);
	if (json_array_size(flat) > 0) {
		json_object_set(doc, "history", flat);
		/* Otherwise the node array itself may pass for the event list. */
		json_object_del(doc, "graph");
	}
	json_decref(flat);
}

/* Fetches and audits one run into rr (already holding app_id, run_id).
 * Never fails: a run that cannot be audited is a failed report entry. */
static void audit_one(struct ctx *x, struct report_run *rr)
{
	static const char tool[] = "catalyst_get_workflow_run";
	struct err e;
	err_clear(&e);
	struct catalyst_refusal rf;
	memset(&rf, 0, sizeof rf);
	json_t *doc = NULL, *meta = NULL;
	rr->source = strdup(tool);
	fill_link(x, rr);
	if (!rr->app_id || !*rr->app_id || !rr->run_id || !*rr->run_id) {
		err_set(&e, ERR_PROTOCOL, "the run list gave no %s for this run",
			rr->run_id ? "app id" : "run id");
		fail_run(rr, &e, NULL);
		return;
	}
	const char *vals[CATALYST_ARG_COUNT] = {
		[CATALYST_ARG_PROJECT] = x->server_project ? x->server_project : "default",
		[CATALYST_ARG_APP] = rr->app_id,
		[CATALYST_ARG_RUN] = rr->run_id,
	};
	unsigned required = CATALYST_BIT(CATALYST_ARG_APP) | CATALYST_BIT(CATALYST_ARG_RUN);
	if (x->server_project)
		required |= CATALYST_BIT(CATALYST_ARG_PROJECT);
	int fetched = catalyst_invoke(x->cn.c, tool, vals, required, NULL, &doc, &meta, &rf, &e);
	whoami_join(x);
	if (fetched < 0) {
		if (e.detail == ERR_DETAIL_REFUSAL)
			sharing_from_refusal(x, &rf);
		fail_run(rr, &e, &rf);
		return;
	}
	sharing_from_answer(x, tool, doc, meta);
	flatten_graph(doc);
	struct event_log *log = event_log_from_json(doc, &e);
	json_decref(doc);
	json_decref(meta);
	if (!log) {
		err_prefix(&e, "%s answer for %s", tool, rr->run_id);
		fail_run(rr, &e, NULL);
		return;
	}
	const struct event_run_info *info = event_log_run_info(log);
	if (info && info->data_sharing_level) {
		enum data_sharing_level l = strcasecmp(info->data_sharing_level, "full") == 0 ? SHARING_FULL
					    : strcasecmp(info->data_sharing_level, "metadata") == 0
						    ? SHARING_METADATA
						    : SHARING_UNKNOWN;
		sharing_offer(x, l, RANK_FIELD, "field %s in the %s answer",
			      info->data_sharing_field ? info->data_sharing_field : "?", tool);
	}
	struct analysis_options ao = {.payload_limit = x->rq->payload_limit, .catalyst_source = true};
	pthread_mutex_lock(&x->lock);
	ao.sharing = x->sharing;
	char source[sizeof x->sharing_source];
	memcpy(source, x->sharing_source, sizeof source);
	pthread_mutex_unlock(&x->lock);
	ao.sharing_source = ao.sharing != SHARING_UNKNOWN ? source : NULL;
	/* The renderers read the analysis and the log's run info, never its
	 * events: holding 500 histories until the report is written would make
	 * memory grow with the number of runs. They go between the analysis'
	 * scan and its findings. */
	struct analysis_pending *scanned = analysis_scan(log, &ao, &e);
	event_log_drop_events(log);
	rr->analysis = analysis_finish(scanned, &e);
	rr->log = log;
	if (!rr->analysis)
		fail_run(rr, &e, NULL);
}

/* ---- the JSON report, run by run ------------------------------------------
 *
 * `runs` over hundreds of runs would hold every run's analysis until the
 * report is written. Instead, each run is rendered by its worker as soon as
 * it is audited, appended to an unlinked temporary file (in whatever order
 * the workers finish: a run stuck in retries holds nothing back), and its
 * analysis and log are freed; what stays is a few ids and a file offset
 * per run. Each run is written there by render_json_run on a segment
 * stream, and at the end render_json_splice puts the runs in report order
 * into the report stream: one code path with render_json, so the bytes are
 * those it writes for the whole report. Text and Markdown keep the whole
 * report. */

struct stream_run {
	bool written; /* rendered, analysis and log freed */
	char *line;   /* JSON Lines: the run's line, until the runs before it are out */
	bool audited;
	enum err_code failure_code;
	char **children; /* the analysis' child instance ids, kept for follow_children */
	size_t n_children;
	off_t off; /* its text in the temporary file */
	size_t len;
};

struct stream {
	pthread_mutex_t lock;
	FILE *runs;            /* the rendered runs, in the order they finished */
	struct stream_run *st; /* per report run; each worker writes its own */
	size_t cap;
	struct report totals; /* summary counts only */
	bool failed;
	struct err err;
	/* JSON Lines: each run's line goes out as soon as it and every run
	 * before it are audited (report order, so the output is the same
	 * whatever order the workers finish in). */
	FILE *out;
	size_t next_out;
};

/* Streams when the report is JSON and a temporary file can be had;
 * otherwise the report is held whole, as before. */
static struct stream *stream_new(const struct audit_request *rq)
{
	if (rq->format != FORMAT_JSON && rq->format != FORMAT_JSONL)
		return NULL;
	struct stream *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	if (rq->format == FORMAT_JSONL) {
		/* Where the lines go, now: they are written as runs finish. A
		 * FILE that cannot be opened leaves the report whole, and its
		 * error to audit_emit_report. */
		struct err e;
		err_clear(&e);
		st->out = audit_open_output(rq, &e);
		if (!st->out) {
			free(st);
			return NULL;
		}
	} else {
		st->runs = tmpfile();
		if (!st->runs) {
			free(st);
			return NULL;
		}
	}
	pthread_mutex_init(&st->lock, NULL);
	report_init(&st->totals);
	return st;
}

static void stream_free(struct stream *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->cap; i++) {
		for (size_t k = 0; k < st->st[i].n_children; k++)
			free(st->st[i].children[k]);
		free(st->st[i].children);
		free(st->st[i].line);
	}
	free(st->st);
	if (st->out && st->out != stdout)
		fclose(st->out); /* never finished: the report stopped before its end */
	if (st->runs)
		fclose(st->runs);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* Room for a state per report run (called between audit rounds). */
static int stream_reserve(struct stream *st, size_t n, struct err *e)
{
	if (n <= st->cap)
		return 0;
	/* Grown page by page as `runs` lists: doubled, not by each page. */
	size_t cap = st->cap * 2 > n ? st->cap * 2 : n;
	struct stream_run *more = realloc(st->st, cap * sizeof *more);
	if (!more)
		return err_set(e, ERR_INTERNAL, "out of memory");
	memset(more + st->cap, 0, (cap - st->cap) * sizeof *more);
	st->st = more;
	st->cap = cap;
	return 0;
}

/* Renders run i, appends it to the temporary file and frees its analysis
 * and log. Called by the worker that audited it; only the append and the
 * totals take the lock. */
static int stream_write(struct stream *st, struct report_run *rr, size_t i, struct err *e)
{
	struct report one;
	report_init(&one);
	one.runs = rr;
	one.n_runs = 1;
	/* As audit_emit_report does: the run's counts before it is rendered. */
	report_summarize(&one);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return err_set(e, ERR_INTERNAL, "out of memory");
	int rc;
	if (st->out) {
		rc = render_jsonl_run(m, rr, e);
	} else {
		struct render_json_stream *rs = render_json_begin_segment(m, e);
		rc = rs ? render_json_run(rs, rr, e) : -1;
		if (rs) {
			if (rc < 0)
				render_json_abort(rs);
			else
				rc = render_json_end(rs, NULL, e);
		}
	}
	if (fclose(m) != 0 && rc == 0)
		rc = err_set(e, ERR_INTERNAL, "out of memory");
	if (rc < 0) {
		free(text);
		return -1;
	}

	struct stream_run *sr = &st->st[i];
	sr->audited = rr->analysis != NULL;
	sr->failure_code = rr->failure_code;
	sr->len = len;
	pthread_mutex_lock(&st->lock);
	if (st->out) {
		/* Out in report order: this line, and those after it that wait. */
		sr->line = text;
		text = NULL;
		while (st->next_out < st->cap && st->st[st->next_out].line) {
			struct stream_run *o = &st->st[st->next_out];
			if (rc == 0 && (fwrite(o->line, 1, o->len, st->out) != o->len || fflush(st->out) != 0))
				rc = err_set(e, ERR_USAGE, "cannot write the report: %s", strerror(errno));
			free(o->line);
			o->line = NULL;
			st->next_out++;
		}
	} else {
		sr->off = ftello(st->runs);
		if (sr->off < 0 || fwrite(text, 1, sr->len, st->runs) != sr->len)
			rc = err_set(e, ERR_USAGE, "cannot write the report to a temporary file: %s",
				     strerror(errno));
	}
	st->totals.n_activities += one.n_activities;
	st->totals.n_reexecuted += one.n_reexecuted;
	st->totals.n_findings += one.n_findings;
	st->totals.n_suspect += one.n_suspect;
	st->totals.n_failed_runs += one.n_failed_runs;
	pthread_mutex_unlock(&st->lock);
	free(text);
	if (rc < 0)
		return -1;

	const struct analysis *an = rr->analysis;
	if (an && an->n_child_instances) {
		sr->children = calloc(an->n_child_instances, sizeof *sr->children);
		if (!sr->children)
			return err_set(e, ERR_INTERNAL, "out of memory");
		for (size_t c = 0; c < an->n_child_instances; c++) {
			const char *id = an->child_instances[c];
			if (!id)
				continue;
			if (!(sr->children[sr->n_children] = strdup(id)))
				return err_set(e, ERR_INTERNAL, "out of memory");
			sr->n_children++;
		}
	}
	/* The analysis borrows from the log: it goes first. */
	analysis_free(rr->analysis);
	rr->analysis = NULL;
	event_log_free(rr->log);
	rr->log = NULL;
	/* Rendered: only the ids stay (the report's order, the children to
	 * follow, the duplicate check), so a long listing keeps little per run. */
	char **done[] = {&rr->console_link, &rr->link_note,          &rr->source, &rr->project, &rr->failure,
			 &rr->refusal_kind, &rr->refusal_instruction};
	for (size_t k = 0; k < sizeof done / sizeof *done; k++) {
		free(*done[k]);
		*done[k] = NULL;
	}
	sr->written = true;
	return 0;
}

/* Run i is audited: out of memory with it. */
static void stream_ready(struct ctx *x, size_t i)
{
	struct stream *st = x->stream;
	struct err e;
	err_clear(&e);
	pthread_mutex_lock(&st->lock);
	bool skip = st->failed || i >= st->cap;
	pthread_mutex_unlock(&st->lock);
	if (skip || stream_write(st, &x->r->runs[i], i, &e) == 0)
		return;
	pthread_mutex_lock(&st->lock);
	if (!st->failed) {
		st->failed = true;
		st->err = e;
	}
	pthread_mutex_unlock(&st->lock);
}

static bool run_audited(const struct ctx *x, size_t i)
{
	if (x->stream && i < x->stream->cap && x->stream->st[i].written)
		return x->stream->st[i].audited;
	return x->r->runs[i].analysis != NULL;
}

static enum err_code run_failure_code(const struct ctx *x, size_t i)
{
	if (x->stream && i < x->stream->cap && x->stream->st[i].written)
		return x->stream->st[i].failure_code;
	return x->r->runs[i].failure_code;
}

/* The child instance ids run i's history named. */
static size_t run_children(const struct ctx *x, size_t i, size_t c, const char **id)
{
	if (x->stream && i < x->stream->cap && x->stream->st[i].written) {
		const struct stream_run *sr = &x->stream->st[i];
		*id = c < sr->n_children ? sr->children[c] : NULL;
		return sr->n_children;
	}
	const struct analysis *a = x->r->runs[i].analysis;
	size_t n = a ? a->n_child_instances : 0;
	*id = c < n ? a->child_instances[c] : NULL;
	return n;
}

/* audit_emit_report for a streamed report. */
static int stream_emit(struct ctx *x, struct err *e)
{
	struct stream *st = x->stream;
	const struct audit_request *rq = x->rq;
	if (st->failed) {
		*e = st->err;
		return -1;
	}
	if (st->out) {
		/* JSON Lines: the runs are out; the summary line ends it. */
		FILE *out = st->out;
		st->out = NULL;
		int rc = st->next_out == x->r->n_runs
				 ? 0
				 : err_set(e, ERR_INTERNAL, "run %zu of the report was never written",
					   st->next_out + 1);
		struct report totals = st->totals;
		totals.notes = x->r->notes;
		totals.n_notes = x->r->n_notes;
		if (rc == 0)
			rc = render_jsonl_end(out, &totals, x->r->n_runs, e);
		return audit_close_output(rq, out, rc, st->totals.n_findings, st->totals.n_suspect, e);
	}
	FILE *out = audit_open_output(rq, e);
	if (!out)
		return -1;
	struct render_options ro = {.width = 80};
	struct render_json_stream *rs = render_json_begin(out, &ro, e);
	int rc = rs ? 0 : -1;
	if (rs && x->r->n_runs && fflush(st->runs) != 0)
		rc = err_set(e, ERR_USAGE, "cannot write the report to a temporary file: %s", strerror(errno));
	int fd = fileno(st->runs);
	for (size_t i = 0; i < x->r->n_runs && rc == 0; i++) {
		const struct stream_run *sr = i < st->cap ? &st->st[i] : NULL;
		if (!sr || !sr->written)
			rc = err_set(e, ERR_INTERNAL, "run %zu of the report was never written", i + 1);
		else
			rc = render_json_splice(rs, fd, sr->off, sr->len, e);
	}
	if (rs) {
		struct report totals = st->totals;
		totals.notes = x->r->notes;
		totals.n_notes = x->r->n_notes;
		if (rc < 0)
			render_json_abort(rs);
		else
			rc = render_json_end(rs, &totals, e);
	}
	return audit_close_output(rq, out, rc, st->totals.n_findings, st->totals.n_suspect, e);
}

/* Exit status for runs that could not be audited: the most telling first
 * (sign-in, then data sharing, then transport/protocol, then input). */
static int failure_status(const struct ctx *x, const struct report *r, size_t *n_failed)
{
	static const enum err_code order[] = {ERR_AUTH, ERR_DATA_SHARING, ERR_PROTOCOL, ERR_INPUT, ERR_NOT_FOUND};
	size_t best = sizeof order / sizeof *order;
	*n_failed = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		if (run_audited(x, i))
			continue;
		(*n_failed)++;
		size_t k = 0;
		while (k < sizeof order / sizeof *order && order[k] != run_failure_code(x, i))
			k++;
		if (k == sizeof order / sizeof *order)
			k = 2; /* anything else counts as a protocol failure */
		if (k < best)
			best = k;
	}
	return *n_failed ? (int)order[best] : 0;
}

static int finish_report(struct ctx *x, struct report *r, const char *what, struct err *e)
{
	int status = x->stream ? stream_emit(x, e) : audit_emit_report(x->rq, r, e);
	if (status < 0)
		return -1;
	size_t n_failed;
	int fs = failure_status(x, r, &n_failed);
	if (fs) {
		warnf(x->rq, "%zu of %zu %s could not be audited (see the report)", n_failed, r->n_runs, what);
		return fs;
	}
	return status;
}

struct pool {
	struct ctx *x;
	pthread_mutex_t lock;
	size_t next, done, from, to;
	const char *what;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	struct ctx *x = p->x;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->from + p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->to)
			break;
		audit_one(x, &x->r->runs[i]);
		if (x->stream)
			stream_ready(x, i);
		pthread_mutex_lock(&p->lock);
		size_t done = ++p->done;
		if (x->rq->progress) {
			char line[80];
			snprintf(line, sizeof line, "audited %zu/%zu %s", done, p->to - p->from, p->what);
			x->rq->progress(line, x->rq->msg_ctx);
		}
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* Fetches and audits report runs [from, to) with --jobs workers over the
 * one session. The report's run slots are fixed while they work: each
 * worker writes only to the slot it took. */
static void audit_range(struct ctx *x, size_t from, size_t to, const char *what)
{
	if (from >= to)
		return;
	if (x->stream) {
		struct stream *st = x->stream;
		pthread_mutex_lock(&st->lock);
		if (!st->failed && stream_reserve(st, to, &st->err) < 0)
			st->failed = true;
		pthread_mutex_unlock(&st->lock);
	}
	struct pool p = {.x = x, .from = from, .to = to, .what = what};
	pthread_mutex_init(&p.lock, NULL);
	size_t jobs = x->rq->jobs > 0 ? (size_t)x->rq->jobs : 8;
	if (jobs > to - from)
		jobs = to - from;
	if (jobs > 64)
		jobs = 64;
	pthread_t th[64];
	size_t started = 0;
	if (jobs > 1)
		for (; started < jobs; started++)
			if (pthread_create(&th[started], NULL, pool_worker, &p) != 0)
				break;
	if (started == 0)
		pool_worker(&p); /* one job, or no thread could start: do it here */
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.lock);
	if (x->rq->progress)
		x->rq->progress("", x->rq->msg_ctx);
}

/* "<length of the app id>:<app id>/<run id>": no two pairs share a key,
 * whatever characters the ids hold. NULL when out of memory. */
static char *run_key(const char *app_id, const char *run_id)
{
	char *key;
	const char *app = app_id ? app_id : "";
	if (asprintf(&key, "%zu:%s/%s", strlen(app), app, run_id ? run_id : "") < 0)
		return NULL;
	return key;
}

static bool seen_run(const struct ctx *x, const char *app_id, const char *run_id)
{
	char *key = run_key(app_id, run_id);
	bool seen = key && json_object_get(x->seen, key) != NULL;
	free(key);
	return seen;
}

/* Remembers a run the report holds. */
static int mark_run(struct ctx *x, const char *app_id, const char *run_id, struct err *e)
{
	char *key = run_key(app_id, run_id);
	int rc = key && x->seen ? json_object_set_new(x->seen, key, json_true()) : -1;
	free(key);
	return rc < 0 ? err_set(e, ERR_INTERNAL, "out of memory") : 0;
}

/* Child workflow instances named in the histories of runs [from, to) and
 * not in the report yet become runs of their own, parent named. A child
 * runs in its parent's app: history does not say otherwise. */
static int add_children(struct ctx *x, size_t from, size_t to, size_t *budget, bool *capped, struct err *e)
{
	struct report *r = x->r;
	for (size_t i = from; i < to; i++) {
		const char *child;
		for (size_t c = 0; c < run_children(x, i, c, &child); c++) {
			if (!child || !*child || seen_run(x, r->runs[i].app_id, child))
				continue;
			if (*budget == 0) {
				*capped = true;
				return 0;
			}
			char *parent = xstrdup(r->runs[i].run_id);
			char *app = xstrdup(r->runs[i].app_id);
			char *id = strdup(child);
			struct report_run *cr = report_add_run(r); /* may move r->runs */
			if (!cr) {
				free(parent);
				free(app);
				free(id);
				return err_set(e, ERR_INTERNAL, "out of memory");
			}
			cr->app_id = app;
			cr->run_id = id;
			cr->parent_run_id = parent;
			if (mark_run(x, app, id, e) < 0)
				return -1;
			(*budget)--;
		}
	}
	return 0;
}

/* Breadth first, one generation of children per round. */
static int follow_children(struct ctx *x, size_t from, struct err *e)
{
	size_t start = from, end = x->r->n_runs, budget = MAX_CHILD_RUNS;
	bool capped = false;
	for (int depth = 0; depth < MAX_CHILD_DEPTH && start < end && !capped; depth++) {
		if (add_children(x, start, end, &budget, &capped, e) < 0)
			return -1;
		audit_range(x, end, x->r->n_runs, "child runs");
		start = end;
		end = x->r->n_runs;
	}
	if (capped || start < end)
		report_add_note(x->r,
				"child workflows were followed %d levels deep and up to %d child runs; "
				"deeper or further children were not audited",
				MAX_CHILD_DEPTH, MAX_CHILD_RUNS);
	return 0;
}

/* ---- finding a run by its id ----------------------------------------------
 *
 * `run RUN_ID` and `link RUN_ID` name no app, and a run that is not where
 * the user said may be elsewhere: both are answered from the run list
 * (catalyst_list_workflow_runs), through its filter by instance id when
 * the tool's schema has one, else page by page within the listing's bounds,
 * every listed id compared here exactly. */

/* Other projects searched for a run of some id, at most. */
#define MAX_OTHER_PROJECTS 20
/* Apps named as holding a run of one id, at most. */
#define MAX_PLACES 16

/* Where runs of one id are in one project's run list. */
struct run_places {
	char *apps[MAX_PLACES]; /* each app once, in listing order */
	size_t n;
	bool more;      /* more apps than are kept */
	bool by_server; /* the list tool took the id as a filter: one call */
};

static void run_places_finish(struct run_places *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->apps[i]);
	memset(p, 0, sizeof *p);
}

static int on_places_page(const struct catalyst_run_list *l, void *arg, struct err *e)
{
	struct run_places *p = arg;
	for (size_t i = 0; i < l->n; i++) {
		const char *app = l->items[i].app_id;
		bool known = !app;
		for (size_t k = 0; k < p->n && !known; k++)
			known = strcmp(p->apps[k], app) == 0;
		if (known)
			continue;
		if (p->n == MAX_PLACES) {
			p->more = true;
			continue;
		}
		if (!(p->apps[p->n] = strdup(app)))
			return err_set(e, ERR_INTERNAL, "out of memory");
		p->n++;
	}
	return 0;
}

/* The project the server is asked about: what the user gave, else default. */
static const char *project_of(const struct ctx *x)
{
	return x->server_project ? x->server_project : "default";
}

/* "--project payments " as the user gave it (or nothing for default), for
 * the commands a message suggests. */
static void project_flag(const struct ctx *x, char *out, size_t size)
{
	if (x->rq->project_id)
		snprintf(out, size, "--project-id %s ", x->rq->project_id);
	else if (x->rq->project)
		snprintf(out, size, "--project %s ", x->rq->project);
	else
		snprintf(out, size, "%s", "");
}

/* The apps of `project` that hold a run of this id. */
static int find_run_places(struct ctx *x, const char *project, const char *run_id, struct run_places *p,
			   struct err *e)
{
	memset(p, 0, sizeof *p);
	const struct catalyst_binding *b = catalyst_binding_get(x->cn.c, "catalyst_list_workflow_runs");
	p->by_server = b && b->prop[CATALYST_ARG_RUN];
	struct catalyst_run_filter f = {.project = project, .run = run_id};
	struct catalyst_run_list list;
	int rc = catalyst_list_runs(x->cn.c, &f, on_places_page, p, &list, NULL, e);
	catalyst_run_list_finish(&list);
	return rc;
}

/* "a, b and c" of the first n strings, into out. */
static void join_names(char *const *names, size_t n, bool more, char *out, size_t size)
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

/* The projects the signed-in user sees, by name, into out ("" when they
 * cannot be listed). */
static void project_names(struct ctx *x, char *out, size_t size)
{
	out[0] = '\0';
	if (!catalyst_has_tool(x->cn.c, "catalyst_list_projects"))
		return;
	struct err e;
	err_clear(&e);
	json_t *doc = NULL;
	if (catalyst_call(x->cn.c, "catalyst_list_projects", NULL, &doc, NULL, NULL, &e) < 0)
		return;
	const json_t *arr = first_object_array(doc, 2);
	char *names[MAX_OTHER_PROJECTS];
	size_t n = 0;
	size_t i;
	const json_t *p;
	json_array_foreach(arr, i, p) {
		const char *name, *uid;
		char num[2][32];
		project_fields(p, &name, &uid, num);
		if (name && n < MAX_OTHER_PROJECTS)
			names[n++] = (char *)name;
	}
	join_names(names, n, json_array_size(arr) > n, out, size);
	json_decref(doc);
}

/* A project the server says does not exist: e becomes that, status 7, with
 * the projects there are. */
static void project_missing(struct ctx *x, struct err *e)
{
	char said[ERR_MSG_MAX], known[600];
	snprintf(said, sizeof said, "%s", e->msg);
	project_names(x, known, sizeof known);
	err_set(e, ERR_NOT_FOUND, "project %s does not exist (%s)%s%s", project_of(x), said,
		*known ? "; the projects you can see: " : "", known);
}

/* "; a run of that id exists in project payments (app checkout): add
 * --project payments" for other projects holding a run of this id,
 * appended to msg. Only when the list tool filters by instance id (one
 * call a project); walking every page of every project is not. */
static void other_projects(struct ctx *x, const char *run_id, bool by_server, char *msg, size_t size)
{
	size_t used = strlen(msg);
	if (!by_server) {
		snprintf(msg + used, size - used,
			 " (other projects were not searched: the server's catalyst_list_workflow_runs has no "
			 "filter by instance id)");
		return;
	}
	if (!catalyst_has_tool(x->cn.c, "catalyst_list_projects"))
		return;
	struct err e;
	err_clear(&e);
	json_t *doc = NULL;
	if (catalyst_call(x->cn.c, "catalyst_list_projects", NULL, &doc, NULL, NULL, &e) < 0)
		return;
	const char *here = project_of(x);
	const json_t *arr = first_object_array(doc, 2);
	size_t i, searched = 0, found = 0;
	const json_t *p;
	json_array_foreach(arr, i, p) {
		const char *name, *uid;
		char num[2][32];
		project_fields(p, &name, &uid, num);
		if (!name || strcmp(name, here) == 0 || same_uid(uid, here) || searched == MAX_OTHER_PROJECTS)
			continue;
		searched++;
		struct run_places places;
		struct err pe;
		err_clear(&pe);
		if (find_run_places(x, name, run_id, &places, &pe) == 0 && places.n) {
			char apps[400];
			join_names(places.apps, places.n, places.more, apps, sizeof apps);
			used += (size_t)snprintf(msg + used, used < size ? size - used : 0,
						 "%s in project %s (app %s): add --project %s",
						 found++ ? ";" : "; a run of that id exists", name, apps, name);
		}
		run_places_finish(&places);
		if (used >= size)
			break;
	}
	if (searched && !found && used < size)
		snprintf(msg + used, size - used,
			 "; none of the %zu other project(s) you can see has a run of that id", searched);
	json_decref(doc);
}

/* `run RUN_ID`: the one app of the project that holds the run, into *app.
 * None: status 7, saying where a run of that id is, if anywhere. Several:
 * a usage error naming them (the user says which). */
static int locate_run(struct ctx *x, const char *run_id, char **app, struct err *e)
{
	*app = NULL;
	struct run_places p;
	int rc = -1;
	if (find_run_places(x, project_of(x), run_id, &p, e) < 0) {
		if (e->code == ERR_NOT_FOUND)
			project_missing(x, e);
		else
			err_prefix(
				e,
				"looking for run %s in the run list of project %s (give APP_ID RUN_ID to fetch it "
				"directly)",
				run_id, project_of(x));
		goto out;
	}
	char flag[200];
	project_flag(x, flag, sizeof flag);
	if (p.n == 0) {
		char msg[ERR_MSG_MAX];
		snprintf(msg, sizeof msg, "no run %s in project %s (%s)", run_id, project_of(x),
			 p.by_server ? "catalyst_list_workflow_runs filtered by its instance id found none"
				     : "it is in no page of catalyst_list_workflow_runs");
		other_projects(x, run_id, p.by_server, msg, sizeof msg);
		err_set(e, ERR_NOT_FOUND, "%s", msg);
		goto out;
	}
	if (p.n > 1) {
		char apps[600];
		join_names(p.apps, p.n, p.more, apps, sizeof apps);
		err_set(e, ERR_USAGE,
			"run %s exists in %zu%s apps of project %s (%s): say which, e.g. catalyst-audit %s%s %s %s",
			run_id, p.n, p.more ? "+" : "", project_of(x), apps, flag,
			x->rq->command == CMD_LINK ? "link" : "run", p.apps[0], run_id);
		goto out;
	}
	*app = p.apps[0];
	p.apps[0] = NULL;
	p.n = 0;
	rc = 0;
out:
	run_places_finish(&p);
	return rc;
}

/* A run the server says is not in app `app`: e (the server's words)
 * becomes status 7, saying where a run of that id is, if anywhere. */
static void explain_missing(struct ctx *x, const char *app, const char *run_id, struct err *e)
{
	char said[ERR_MSG_MAX];
	snprintf(said, sizeof said, "%s", e->msg);
	struct run_places p;
	struct err le;
	err_clear(&le);
	if (find_run_places(x, project_of(x), run_id, &p, &le) < 0) {
		if (le.code == ERR_NOT_FOUND) {
			*e = le;
			project_missing(x, e);
		} else {
			err_set(e, ERR_NOT_FOUND, "%s (the run list could not be searched for it: %s)", said,
				le.msg);
		}
		run_places_finish(&p);
		return;
	}
	/* The listing may hold the run in this very app (a list newer than
	 * the fetch, or a fetch the server refused for another reason): only
	 * other apps are news. */
	char *others[MAX_PLACES];
	size_t n = 0;
	for (size_t i = 0; i < p.n; i++)
		if (strcmp(p.apps[i], app) != 0)
			others[n++] = p.apps[i];
	char msg[ERR_MSG_MAX], flag[200];
	project_flag(x, flag, sizeof flag);
	int len = snprintf(msg, sizeof msg, "no run %s in app %s of project %s (%s)", run_id, app, project_of(x),
			   said);
	if (n) {
		char apps[400];
		join_names(others, n, p.more, apps, sizeof apps);
		snprintf(msg + len, len < (int)sizeof msg ? sizeof msg - (size_t)len : 0,
			 "; a run of that id exists in app %s: catalyst-audit %s%s %s %s", apps, flag,
			 x->rq->command == CMD_LINK ? "link" : "run", others[0], run_id);
	} else {
		other_projects(x, run_id, p.by_server, msg, sizeof msg);
	}
	err_set(e, ERR_NOT_FOUND, "%s", msg);
	run_places_finish(&p);
}

/* Tells the user which app `run RUN_ID` or `link RUN_ID` found. */
static void say_found(struct ctx *x, const char *app, const char *run_id)
{
	char msg[600];
	snprintf(msg, sizeof msg, "run %s is in app %s (found through catalyst_list_workflow_runs in project %s)",
		 run_id, app, project_of(x));
	if (x->rq->notice)
		x->rq->notice(msg, x->rq->msg_ctx);
	if (x->r)
		report_add_note(x->r, "%s", msg);
}

/* --web: the console link opened with $BROWSER, when it is one to vouch
 * for (why_not says why not). */
static void open_web(const struct audit_request *rq, const char *link, const char *why_not)
{
	if (!link || why_not) {
		warnf(rq, "--web: no link is opened: %s", why_not ? why_not : "there is no console link");
		return;
	}
	struct err e;
	err_clear(&e);
	if (browser_open(link, 2000, &e) < 0)
		warnf(rq, "--web: %s; the link: %s", e.msg, link);
}

/* ---- run ------------------------------------------------------------------ */

int audit_run(const struct audit_request *rq, struct err *e)
{
	struct report r;
	report_init(&r);
	struct ctx x;
	ctx_init(&x, rq, &r);
	struct whoami_probe wp;
	memset(&wp, 0, sizeof wp);
	char *found_app = NULL;
	int rc = -1;
	if (classify_project(&x, e) < 0 || conn_open(rq, &x.cn, e) < 0 || whoami_start(&x, &wp, e) < 0)
		goto out;
	resolve_project(&x);
	if (x.resolved_note) {
		whoami_join(&x); /* its note, if any, comes first */
		report_add_note(&r, "%s", x.resolved_note);
	}

	const char *app = rq->args[0], *run_id = rq->args[1];
	if (!app) {
		int found = locate_run(&x, run_id, &found_app, e);
		whoami_join(&x);
		if (wp.rc < 0) {
			*e = wp.e; /* a connection refusal: the answer, as when it was asked first */
			goto out;
		}
		if (found < 0)
			goto out;
		app = found_app;
		say_found(&x, app, run_id);
	}

	struct report_run *rr = report_add_run(&r);
	if (!rr) {
		err_set(e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	rr->app_id = strdup(app);
	rr->run_id = strdup(run_id);
	if (mark_run(&x, rr->app_id, rr->run_id, e) < 0)
		goto out;
	audit_one(&x, rr);
	whoami_join(&x);
	if (wp.rc < 0) {
		/* A connection refusal to the identity check: the answer, as
		 * when it was asked first. */
		*e = wp.e;
		goto out;
	}
	if (!rr->analysis) {
		/* The run itself could not be audited: that is the answer. */
		err_set(e, rr->failure_code, "%s", rr->failure);
		if (rr->refusal_kind)
			e->detail = ERR_DETAIL_REFUSAL;
		if (e->code == ERR_NOT_FOUND)
			explain_missing(&x, app, run_id, e);
		goto out;
	}

	if (!rq->no_children && follow_children(&x, 0, e) < 0)
		goto out;
	rc = finish_report(&x, &r, "runs", e);
	/* The run is there (audited): its link is one to vouch for unless
	 * the project is uncertain. Children may have moved r.runs. */
	if (rc >= 0 && rq->web)
		open_web(rq, r.runs[0].console_link, x.resolved_note);
out:
	whoami_join(&x);
	free(found_app);
	ctx_finish(&x);
	report_finish(&r);
	return rc;
}

/* ---- runs ----------------------------------------------------------------- */

static const char *filter_name(enum catalyst_arg a)
{
	switch (a) {
	case CATALYST_ARG_APP:
		return "--app";
	case CATALYST_ARG_WORKFLOW:
		return "--workflow";
	case CATALYST_ARG_STATUS:
		return "--status";
	case CATALYST_ARG_SINCE:
		return "--since";
	case CATALYST_ARG_UNTIL:
		return "--until";
	default:
		return "?";
	}
}

/* `runs` takes the listing page by page: each page's new runs are added
 * to the report and audited before the next page is asked for, so the
 * listing itself is never held. */
struct lister {
	struct ctx *x;
	long limit;         /* --limit, of top-level runs; 0: none */
	size_t top_level;   /* listed runs with no parent, in the report */
	size_t repeats;     /* listed runs the report already held */
	size_t id_bytes;    /* of the ids kept */
	bool limit_reached; /* --limit */
	bool sharing_offered;
};

static int add_listed(struct lister *ls, const struct catalyst_run_item *it, struct err *e)
{
	struct ctx *x = ls->x;
	struct report *r = x->r;
	if (seen_run(x, it->app_id, it->run_id)) {
		ls->repeats++;
		return 0;
	}
	if (r->n_runs >= MAX_LISTED_RUNS) {
		err_set(e, ERR_PROTOCOL,
			"the server listed more than %d runs, the most one `runs` command audits: narrow it with "
			"--since, --until, --app, --workflow, --status or --limit",
			MAX_LISTED_RUNS);
		e->detail = ERR_DETAIL_FINAL;
		return -1;
	}
	size_t bytes = (it->app_id ? strlen(it->app_id) : 0) + (it->run_id ? strlen(it->run_id) : 0) +
		       (it->parent_id ? strlen(it->parent_id) : 0);
	if (ls->id_bytes + bytes > (size_t)MAX_LISTED_ID_MIB << 20) {
		err_set(e, ERR_PROTOCOL, "the run list came to over %d MiB of run and app ids (%zu runs)",
			MAX_LISTED_ID_MIB, r->n_runs);
		e->detail = ERR_DETAIL_FINAL;
		return -1;
	}
	ls->id_bytes += bytes;
	struct report_run *rr = report_add_run(r);
	if (!rr)
		return err_set(e, ERR_INTERNAL, "out of memory");
	rr->app_id = xstrdup(it->app_id);
	rr->run_id = xstrdup(it->run_id);
	rr->parent_run_id = xstrdup(it->parent_id);
	return mark_run(x, it->app_id, it->run_id, e);
}

static int on_runs_page(const struct catalyst_run_list *l, void *arg, struct err *e)
{
	struct lister *ls = arg;
	struct ctx *x = ls->x;
	if (l->sharing != SHARING_UNKNOWN && !ls->sharing_offered) {
		/* Before this page's runs are analysed, as when it was read first. */
		sharing_offer(x, l->sharing, RANK_FIELD, "field %s in the catalyst_list_workflow_runs answer",
			      l->sharing_key);
		ls->sharing_offered = true;
	}
	size_t from = x->r->n_runs;
	int rc = 0;
	/* --limit counts top-level runs: a listed child run (one with a
	 * parent) is audited on top, like those its parent's history names. */
	for (size_t i = 0; i < l->n && rc == 0; i++) {
		const struct catalyst_run_item *it = &l->items[i];
		bool top = !it->parent_id || !*it->parent_id;
		size_t before = x->r->n_runs;
		if (top && ls->limit > 0 && (long)ls->top_level >= ls->limit) {
			ls->limit_reached = true;
			rc = 1;
		} else if (add_listed(ls, it, e) < 0) {
			rc = -1;
		} else if (top && x->r->n_runs > before) {
			ls->top_level++;
		}
	}
	if (rc == 0 && ls->limit > 0 && (long)ls->top_level >= ls->limit) {
		ls->limit_reached = true;
		rc = 1;
	}
	/* The runs taken so far are audited even when the listing stops here. */
	audit_range(x, from, x->r->n_runs, "runs");
	return rc;
}

/* --workflow matches in any case; the server's filter may not. So the
 * spelling the server uses is looked up in catalyst_list_workflows: one
 * spelling found, it is sent (and checked here too); none, the name goes
 * as given (the server knows no such workflow in any case); several, or
 * no answer, no workflow filter goes to the server and every listed run is
 * checked here, in any case. Returns the spelling to send (the caller's),
 * or NULL, with a note for the report in `note` ("" for none). */
static char *workflow_spelling(struct ctx *x, const char *want, const char *app, char *note, size_t size)
{
	static const char tool[] = "catalyst_list_workflows";
	static const char *const k_wf[] = {"workflowname", "name", "workflow", "workflowtype", NULL};
	note[0] = '\0';
	if (!catalyst_has_tool(x->cn.c, tool)) {
		snprintf(
			note, size,
			"--workflow %s was matched here in any case over every listed run (the server offers no %s "
			"to look up its spelling)",
			want, tool);
		return NULL;
	}
	const char *vals[CATALYST_ARG_COUNT] = {[CATALYST_ARG_PROJECT] = project_of(x), [CATALYST_ARG_APP] = app};
	unsigned required = x->server_project ? CATALYST_BIT(CATALYST_ARG_PROJECT) : 0;
	json_t *doc = NULL;
	struct err e;
	err_clear(&e);
	if (catalyst_invoke(x->cn.c, tool, vals, required, NULL, &doc, NULL, NULL, &e) < 0) {
		snprintf(note, size, "--workflow %s was matched here in any case over every listed run (%s)", want,
			 e.msg);
		return NULL;
	}
	char *names[8];
	size_t n = 0;
	bool more = false;
	size_t i;
	const json_t *w;
	json_array_foreach(first_object_array(doc, 2), i, w) {
		const char *name = catalyst_find_string(w, k_wf, 0, NULL);
		if (!name || strcasecmp(name, want) != 0)
			continue;
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(names[k], name) == 0;
		if (dup)
			continue;
		if (n == sizeof names / sizeof *names)
			more = true;
		else
			names[n++] = strdup(name);
	}
	json_decref(doc);
	char *pick = NULL;
	if (n == 1) {
		pick = names[0];
		names[0] = NULL;
		if (strcmp(pick, want) != 0)
			snprintf(note, size, "--workflow %s matched the workflow %s (names match in any case)",
				 want, pick);
	} else if (n > 1) {
		char list[400];
		join_names(names, n, more, list, sizeof list);
		snprintf(note, size,
			 "--workflow %s matched the workflows %s (names match in any case); they were picked here "
			 "from every listed run",
			 want, list);
	}
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	if (n == 0)
		pick = strdup(want);
	return pick;
}

int audit_runs(const struct audit_request *rq, struct err *e)
{
	struct report r;
	report_init(&r);
	struct ctx x;
	ctx_init(&x, rq, &r);
	struct catalyst_run_list list;
	memset(&list, 0, sizeof list);
	char *workflow_exact = NULL;
	int rc = -1;

	/* Usage errors before any traffic. */
	char status[32] = "", since[32], until[32];
	struct catalyst_run_filter f = {.limit = rq->filters.limit, .app = rq->filters.app};
	if (rq->filters.status) {
		catalyst_status_normalize(rq->filters.status, status, sizeof status);
		if (!catalyst_status_valid(status)) {
			err_set(e, ERR_USAGE,
				"--status: expected running|completed|failed|terminated|suspended|canceled, got '%s'",
				rq->filters.status);
			goto out;
		}
		f.status = status;
	}
	time_t now = time(NULL);
	if (rq->filters.since) {
		if (catalyst_time_arg("since", rq->filters.since, now, since, e) < 0)
			goto out;
		f.since = since;
	}
	if (rq->filters.until) {
		if (catalyst_time_arg("until", rq->filters.until, now, until, e) < 0)
			goto out;
		f.until = until;
	}
	if (f.since && f.until && strcmp(f.since, f.until) > 0) {
		err_set(e, ERR_USAGE, "--since %s is after --until %s", f.since, f.until);
		goto out;
	}
	x.stream = stream_new(rq);
	if (!x.seen) {
		err_set(e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	if (classify_project(&x, e) < 0 || conn_open(rq, &x.cn, e) < 0 || probe_whoami(&x, NULL, e) < 0)
		goto out;
	resolve_project(&x);
	if (x.resolved_note)
		report_add_note(&r, "%s", x.resolved_note);
	f.project = x.server_project ? x.server_project : "default";
	char wf_note[700] = "";
	if (rq->filters.workflow) {
		f.workflow = workflow_exact =
			workflow_spelling(&x, rq->filters.workflow, rq->filters.app, wf_note, sizeof wf_note);
		f.workflow_match = rq->filters.workflow;
		if (*wf_note)
			report_add_note(&r, "%s", wf_note);
	}

	struct catalyst_refusal rf;
	memset(&rf, 0, sizeof rf);
	struct lister ls = {.x = &x, .limit = rq->filters.limit};
	struct err list_err;
	err_clear(&list_err);
	if (catalyst_list_runs(x.cn.c, &f, on_runs_page, &ls, &list, &rf, &list_err) < 0) {
		if (r.n_runs == 0) {
			/* Nothing was listed: the error is the answer, as it always was. */
			*e = list_err;
			if (e->code == ERR_NOT_FOUND)
				project_missing(&x, e);
			else if (e->detail == ERR_DETAIL_REFUSAL && *rf.kind)
				err_prefix(e, "listing runs");
			goto out;
		}
	}
	for (int a = 0; a < CATALYST_ARG_COUNT; a++)
		if (list.client_side & CATALYST_BIT(a))
			report_add_note(&r,
					"the server's catalyst_list_workflow_runs has no input property for %s: "
					"%s was applied here to the listed runs",
					catalyst_arg_label((enum catalyst_arg)a),
					filter_name((enum catalyst_arg)a));
	if (list.unfilterable)
		report_add_note(&r,
				"the server refused %zu page(s) as unfilterable (too large to filter); runs were "
				"listed %ld per page",
				list.unfilterable, list.page_size);
	if (list.truncated)
		report_add_note(
			&r,
			"the run list was cut short after %zu pages (the server's list tool takes no cursor): "
			"more runs may match",
			list.pages);
	if (ls.limit_reached)
		report_add_note(&r, "--limit %ld reached: more runs may match", rq->filters.limit);
	if (ls.repeats) {
		report_add_note(&r,
				"the server listed runs more than once (%zu repeats): each run was audited and "
				"counted once",
				ls.repeats);
		warnf(rq,
		      "the server listed runs more than once (%zu repeats): each run was audited and counted once",
		      ls.repeats);
	}
	if (list_err.code)
		report_add_note(&r, "the run list ended early, after %zu runs in %zu pages: %s", r.n_runs,
				list.pages, list_err.msg);
	if (r.n_runs == 0)
		report_add_note(&r, "no runs matched");

	/* Child runs are often not listed on their own. */
	if (!rq->no_children && follow_children(&x, 0, e) < 0)
		goto out;
	if (rq->filters.limit > 0 && r.n_runs > ls.top_level)
		report_add_note(
			&r,
			"--limit %ld counts top-level runs (%zu audited); %zu child run(s) were added on top, "
			"listed with their parent or started by an audited run",
			rq->filters.limit, ls.top_level, r.n_runs - ls.top_level);
	rc = finish_report(&x, &r, "runs", e);
	if (rc >= 0 && list_err.code) {
		/* The report covers what was listed; the status says the list is
		 * incomplete. */
		*e = list_err;
		err_prefix(e, "listing runs (the report covers the %zu runs listed before)", r.n_runs);
		rc = -1;
	}
out:
	free(workflow_exact);
	catalyst_run_list_finish(&list);
	ctx_finish(&x);
	report_finish(&r);
	return rc;
}

/* ---- link ----------------------------------------------------------------- */

static int close_output(const struct audit_request *rq, FILE *out, struct err *e)
{
	int rc = 0;
	if (fflush(out) != 0)
		rc = err_set(e, ERR_USAGE, "cannot write the output: %s", strerror(errno));
	if (out != stdout)
		fclose(out);
	return rc;
}

/* Whether the run exists: one catalyst_get_workflow_run. Not found: status
 * 7, saying where a run of that id is, if anywhere. */
static int check_run(struct ctx *x, const char *app, const char *run_id, struct err *e)
{
	static const char tool[] = "catalyst_get_workflow_run";
	const char *vals[CATALYST_ARG_COUNT] = {
		[CATALYST_ARG_PROJECT] = project_of(x), [CATALYST_ARG_APP] = app, [CATALYST_ARG_RUN] = run_id};
	unsigned required = CATALYST_BIT(CATALYST_ARG_APP) | CATALYST_BIT(CATALYST_ARG_RUN);
	if (x->server_project)
		required |= CATALYST_BIT(CATALYST_ARG_PROJECT);
	json_t *doc = NULL;
	int rc = catalyst_invoke(x->cn.c, tool, vals, required, NULL, &doc, NULL, NULL, e);
	json_decref(doc);
	if (rc < 0 && e->code == ERR_NOT_FOUND)
		explain_missing(x, app, run_id, e);
	return rc;
}

/* The report's shape of the project a link names. */
static json_t *link_project(const struct console_project *p)
{
	switch (p->kind) {
	case CONSOLE_PROJECT_NAME:
		return json_pack("{s:s}", "name", p->value);
	case CONSOLE_PROJECT_UID:
		return json_pack("{s:s}", "uid", p->value);
	default:
		return NULL;
	}
}

int audit_link(const struct audit_request *rq, struct err *e)
{
	struct ctx x;
	ctx_init(&x, rq, NULL);
	int rc = -1;
	char *link = NULL, *found_app = NULL;
	FILE *out = NULL;
	const char *app = rq->args[0], *run_id = rq->args[1];
	if (classify_project(&x, e) < 0)
		goto out;
	/* Checked before any traffic: a bad --console is a usage error. */
	struct console_project probe = {CONSOLE_PROJECT_NONE, NULL};
	char *check = console_link_run(rq->console, &probe, "a", "r", e);
	if (!check)
		goto out;
	free(check);

	if (!rq->no_check) {
		/* The server says whether the run exists (and, for a bare number
		 * as --project, which project is meant): no link to a run that
		 * is not there. */
		if (conn_open(rq, &x.cn, e) < 0) {
			err_prefix(e, "checking that the run exists (--no-check prints the link without asking)");
			goto out;
		}
		resolve_project(&x);
		if (!app) {
			if (locate_run(&x, run_id, &found_app, e) < 0)
				goto out;
			app = found_app;
			say_found(&x, app, run_id);
		} else if (check_run(&x, app, run_id, e) < 0) {
			if (e->code != ERR_NOT_FOUND)
				err_prefix(
					e,
					"checking that the run exists (--no-check prints the link without asking)");
			goto out;
		}
	} else if (x.project.kind == CONSOLE_PROJECT_AMBIGUOUS) {
		char note[600];
		snprintf(note, sizeof note,
			 "the link carries no project: --project %s is a bare number (a name or a uid?) and "
			 "--no-check asks no server to resolve it; use --project-id for a uid",
			 x.project.value);
		x.resolved_note = strdup(note);
	}

	struct err le;
	err_clear(&le);
	link = console_link_run(rq->console, &x.project, app, run_id, &le);
	const char *note = link ? x.resolved_note : le.msg;
	if (!(out = audit_open_output(rq, e)))
		goto out;
	if (rq->format_given && rq->format == FORMAT_JSON) {
		json_t *doc = json_pack("{s:s, s:s?, s:s?, s:o?, s:s?, s:s?, s:b}", "schema",
					"catalyst-audit.link/v1", "app_id", app, "run_id", run_id, "project",
					link_project(&x.project), "console_link", link, "link_note", note,
					"checked", !rq->no_check);
		if (!doc || json_dumpf(doc, out, JSON_INDENT(2)) < 0) {
			json_decref(doc);
			if (out != stdout)
				fclose(out);
			err_set(e, ERR_INTERNAL, "out of memory");
			goto out;
		}
		fputc('\n', out);
		json_decref(doc);
		if (note)
			warnf(rq, "%s", note);
	} else if (link) {
		if (note)
			warnf(rq, "%s", note);
		fprintf(out, "%s\n", link);
	} else {
		char *sapp = escape_terminal_dup(app ? app : "", 0), *srun = escape_terminal_dup(run_id, 0);
		warnf(rq, "%s; the ids follow in plain text", le.msg);
		fprintf(out, "app id: %s  run id: %s\n", sapp ? sapp : "", srun ? srun : "");
		free(sapp);
		free(srun);
	}
	rc = close_output(rq, out, e);
	if (rc == 0 && rq->web)
		open_web(rq, link, link ? x.resolved_note : le.msg);
out:
	free(link);
	free(found_app);
	ctx_finish(&x);
	return rc;
}

/* ---- whoami --------------------------------------------------------------- */

static const char *const k_org_name[] = {"orgname", "organizationname", NULL};
static const char *const k_org_id[] = {"orgid", "organizationid", NULL};
static const char *const k_user[] = {"email", "useremail", "username", "login", "subject", "sub", NULL};

static void put_text(FILE *out, const char *label, const char *value)
{
	char *safe = escape_terminal_dup(value ? value : "unknown", 200);
	fprintf(out, "%s%s\n", label, safe ? safe : "?");
	free(safe);
}

int audit_whoami(const struct audit_request *rq, struct err *e)
{
	struct ctx x;
	ctx_init(&x, rq, NULL);
	int rc = -1;
	json_t *who = NULL, *projects_doc = NULL, *report = NULL;
	if (conn_open(rq, &x.cn, e) < 0)
		goto out;
	if (!catalyst_has_tool(x.cn.c, "catalyst_whoami")) {
		err_set(e, ERR_PROTOCOL, "the server offers no catalyst_whoami tool");
		goto out;
	}
	json_t *meta = NULL;
	struct catalyst_refusal rf;
	memset(&rf, 0, sizeof rf);
	if (catalyst_call(x.cn.c, "catalyst_whoami", NULL, &who, &meta, &rf, e) < 0)
		goto out;
	sharing_from_answer(&x, "catalyst_whoami", who, meta);
	json_decref(meta);

	/* Organization: {organization: {id, name}} or flat org_name / org_id. */
	const json_t *org = json_object_get(who, "organization");
	if (!json_is_object(org))
		org = json_object_get(who, "org");
	static const char *const k_n[] = {"name", "displayname", NULL};
	static const char *const k_i[] = {"id", "uid", NULL};
	char num[3][32];
	const char *org_name = json_is_object(org) ? catalyst_find_string(org, k_n, 0, NULL) : NULL;
	const char *org_id = json_is_object(org) ? catalyst_find_string(org, k_i, 0, num[0]) : NULL;
	if (!org_name)
		org_name = catalyst_find_string(who, k_org_name, 2, NULL);
	if (!org_id)
		org_id = catalyst_find_string(who, k_org_id, 2, num[1]);
	const char *user = catalyst_find_string(who, k_user, 2, num[2]);

	json_t *projects = json_array();
	char projects_error[600] = "";
	if (catalyst_has_tool(x.cn.c, "catalyst_list_projects")) {
		struct err pe;
		err_clear(&pe);
		json_t *pmeta = NULL;
		if (catalyst_call(x.cn.c, "catalyst_list_projects", NULL, &projects_doc, &pmeta, &rf, &pe) == 0) {
			sharing_from_answer(&x, "catalyst_list_projects", projects_doc, pmeta);
			const json_t *arr = first_object_array(projects_doc, 2);
			size_t i;
			const json_t *p;
			json_array_foreach(arr, i, p) {
				const char *name, *uid;
				char pnum[2][32];
				project_fields(p, &name, &uid, pnum);
				json_array_append_new(projects,
						      json_pack("{s:s?, s:s?}", "name", name, "uid", uid));
			}
		} else {
			if (pe.code == ERR_AUTH) {
				*e = pe;
				json_decref(pmeta);
				json_decref(projects);
				goto out;
			}
			snprintf(projects_error, sizeof projects_error, "%s", pe.msg);
		}
		json_decref(pmeta);
	}
	const char *level = data_sharing_level_name(x.sharing);
	const char *source = x.rank == RANK_NONE ? "no answer names it; an audit infers it from the payload "
						   "keys it sees, or pass --data-sharing"
						 : x.sharing_source;

	FILE *out = audit_open_output(rq, e);
	if (!out) {
		json_decref(projects);
		goto out;
	}
	if (rq->format_given && rq->format == FORMAT_JSON) {
		report = json_pack("{s:s, s:{s:s?, s:s?}, s:{s:s?}, s:O, s:s?, s:{s:s, s:s}}", "schema",
				   "catalyst-audit.whoami/v1", "organization", "name", org_name, "id", org_id,
				   "user", "email", user, "projects", projects, "projects_error",
				   *projects_error ? projects_error : NULL, "data_sharing", "level", level,
				   "source", source);
		if (report)
			json_dumpf(report, out, JSON_INDENT(2));
		fputc('\n', out);
	} else {
		put_text(out, "organization: ", org_name);
		if (org_id)
			put_text(out, "organization id: ", org_id);
		put_text(out, "user: ", user);
		fprintf(out, "projects:%s\n", json_array_size(projects) ? "" : " none listed");
		size_t i;
		json_t *p;
		json_array_foreach(projects, i, p) {
			const char *n = json_string_value(json_object_get(p, "name"));
			const char *u = json_string_value(json_object_get(p, "uid"));
			char *sn = escape_terminal_dup(n ? n : "?", 120),
			     *su = escape_terminal_dup(u ? u : "unknown", 40);
			fprintf(out, "  %s (uid %s)\n", sn ? sn : "?", su ? su : "?");
			free(sn);
			free(su);
		}
		if (*projects_error)
			put_text(out, "projects could not be listed: ", projects_error);
		fprintf(out, "data sharing: %s (%s)\n", level, source);
	}
	json_decref(projects);
	rc = close_output(rq, out, e);
out:
	json_decref(who);
	json_decref(projects_doc);
	json_decref(report);
	ctx_finish(&x);
	return rc;
}
