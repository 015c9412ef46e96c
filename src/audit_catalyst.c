/* The audit pipeline over Catalyst's MCP tools, as `run` and `runs` share
 * it: each report run fetched (catalyst_get_run) -> event model ->
 * analysis, --jobs at a time over the one session; the child workflow runs
 * the histories name, followed; the report out and the exit status. The
 * commands themselves are in audit_run.c and audit_runs.c. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_catalyst.h"
#include "console_link.h"
#include "audit_save.h"

/* Child workflows of child workflows are followed this deep. */
#define MAX_CHILD_DEPTH 4
/* And no more than this many child runs per command. */
#define MAX_CHILD_RUNS 1000
/* Workers for one round of runs, at most. */
#define MAX_JOBS 64

static void fail_run(struct report_run *rr, const struct err *e, const struct catalyst_refusal *rf)
{
	rr->failure_code = e->code ? e->code : ERR_PROTOCOL;
	rr->failure_final = e->detail == ERR_DETAIL_FINAL;
	rr->failure = strdup(e->msg);
	if (e->detail == ERR_DETAIL_REFUSAL && rf && *rf->kind) {
		rr->refusal_kind = strdup(rf->kind);
		if (*rf->instruction)
			rr->refusal_instruction = strdup(rf->instruction);
	}
}

/* The run a rerun was made from, fetched to tell what the re-driven call
 * did there (doc/PRODUCT.md, rerun_reexecuted). */
struct rerun_source {
	struct event_log *log;
	struct analysis *analysis;
	char why[256];
};

static void rerun_source_free(struct rerun_source *s)
{
	analysis_free(s->analysis);
	event_log_free(s->log);
	memset(s, 0, sizeof *s);
}

/* A rerun runs in the project and app of its source (the runtime copies
 * the source's history into a new instance beside it): fetched there, its
 * link shown beside the run's. Whatever goes wrong is a note on the run
 * and the finding stays a suspect: the audit of the rerun never fails for
 * it. */
static void rerun_source_fetch(struct audit_ctx *x, struct report_run *rr, struct analysis_pending *scanned,
			       const struct analysis_options *ao, struct rerun_source *s)
{
	const char *parent = analysis_pending_rerun_parent(scanned);
	if (!parent || !*parent)
		return;
	rr->rerun_of = strdup(parent);
	struct err e;
	err_clear(&e);
	struct catalyst_refusal rf;
	memset(&rf, 0, sizeof rf);
	struct catalyst_run run;
	if (catalyst_get_run(x->c, &x->project, rr->app_id, parent, &run, &rf, &e) < 0) {
		snprintf(s->why, sizeof s->why, "app %s of this project: %s", rr->app_id, e.msg);
		event_log_free(run.log);
		goto out;
	}
	s->log = run.log;
	struct analysis_options so = *ao;
	so.sharing_source = NULL;
	so.sharing = SHARING_UNKNOWN;
	s->analysis = analysis_run(s->log, &so, &e);
	if (!s->analysis) {
		snprintf(s->why, sizeof s->why, "its history could not be analysed: %s", e.msg);
		goto out;
	}
	struct err le;
	err_clear(&le);
	rr->rerun_of_link = console_link_run(x->rq->console, &x->project, rr->app_id, parent, &le);
	if (!rr->rerun_of_link)
		rr->rerun_of_note = strdup(le.msg);
out:
	if (*s->why) {
		size_t n = strlen(s->why) + 32;
		rr->rerun_of_note = malloc(n);
		if (rr->rerun_of_note)
			snprintf(rr->rerun_of_note, n, "source run not fetched: %s", s->why);
	}
	analysis_pending_rerun_source(scanned, s->analysis, *s->why ? s->why : NULL);
}

void audit_one_run(struct audit_ctx *x, struct report_run *rr)
{
	audit_one_run_keep(x, rr, false);
}

void audit_one_run_keep(struct audit_ctx *x, struct report_run *rr, bool keep_events)
{
	struct err e;
	err_clear(&e);
	struct catalyst_refusal rf;
	memset(&rf, 0, sizeof rf);
	rr->source = strdup(CATALYST_TOOL_GET_RUN);
	struct err le;
	err_clear(&le);
	link_for_run(rr, LINK_FROM_SERVER, x->rq->console, &x->project,
		     x->unresolved ? x->unresolved : x->said_note, x->unconfirmed, &le);
	if (!rr->app_id || !*rr->app_id || !rr->run_id || !*rr->run_id) {
		err_set(&e, ERR_PROTOCOL, "the run list gave no %s for this run",
			rr->run_id ? "app id" : "run id");
		fail_run(rr, &e, NULL);
		return;
	}
	struct catalyst_run run;
	json_t *doc = NULL;
	int fetched = catalyst_get_run_doc(x->c, &x->project, rr->app_id, rr->run_id, &run,
					   x->save_fd >= 0 ? &doc : NULL, &rf, &e);
	audit_probe_join(x);
	if (fetched < 0 && e.detail == ERR_DETAIL_REFUSAL)
		audit_sharing_from_refusal(x, &rf);
	audit_sharing_from_field(x, run.sharing, run.sharing_key, CATALYST_TOOL_GET_RUN);
	if (fetched < 0) {
		fail_run(rr, &e, &rf);
		return;
	}
	struct analysis_options ao = {
		.payload_limit = x->rq->payload_limit, .catalyst_source = true, .threads = x->rq->threads};
	char source[sizeof x->sharing_source];
	audit_sharing_get(x, &ao.sharing, source, sizeof source);
	ao.sharing_source = ao.sharing != SHARING_UNKNOWN ? source : NULL;
	if (doc) {
		/* The answer as analysed, with the level it was read at. */
		struct err se;
		err_clear(&se);
		if (audit_save_history(x->save_fd, rr->app_id, rr->run_id, doc, ao.sharing, &x->project, &se) < 0)
			audit_warnf(x->rq, "--save-histories: run %s: %s", rr->run_id, se.msg);
		json_decref(doc);
	}
	/* The renderers read the analysis and the log's run info, never its
	 * events: holding 500 histories until the report is written would make
	 * memory grow with the number of runs. They go between the analysis'
	 * scan and its findings. */
	struct analysis_pending *scanned = analysis_scan(run.log, &ao, &e);
	if (!keep_events)
		event_log_drop_events(run.log);
	struct rerun_source src = {0};
	rerun_source_fetch(x, rr, scanned, &ao, &src);
	rr->analysis = analysis_finish(scanned, &e);
	rerun_source_free(&src);
	rr->log = run.log;
	if (!rr->analysis) {
		fail_run(rr, &e, NULL);
		return;
	}
	/* The history's end time when the run list gave none (`run`). */
	if (!rr->ended_at && rr->analysis->finished && rr->analysis->ended_at)
		rr->ended_at = strdup(rr->analysis->ended_at);
	if (report_mark_known(rr, x->baseline) < 0 || report_attach_source(rr, x->source, x->rq->source) < 0) {
		err_oom(&e);
		fail_run(rr, &e, NULL);
	}
}

/* ---- the worker pool ---------------------------------------------------- */

/* The workers take report runs [from, to) in order. `to` may grow while
 * they work (audit_feed_*): the runs a page lists join the pool as the
 * page arrives, so fetching goes on while the next page is asked for and
 * no page waits for the slowest run of the one before. The report's run
 * array may move as runs join, so a worker audits a copy of its run and
 * puts it back, both under the lock the feeder grows the array under. */
struct pool {
	struct audit_ctx *x;
	pthread_mutex_t lock;
	pthread_cond_t more;
	size_t next, done, from, to;
	bool open; /* more runs may still join */
	const char *what;
	pthread_t th[MAX_JOBS];
	size_t started;
};

/* Run i audited into rr: held whole, rr is the report's run; streamed, rr
 * is made from the stream's ids, written, then freed. */
static void audit_slot(struct audit_ctx *x, struct report_run *rr, size_t i)
{
	if (!x->stream) {
		audit_one_run(x, rr);
		return;
	}
	if (audit_stream_take(x->stream, i, rr) < 0)
		return; /* the stream failed: the report says so */
	audit_one_run(x, rr);
	audit_stream_ready(x, rr, i);
	report_run_finish(rr);
}

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	struct audit_ctx *x = p->x;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->from + p->next >= p->to && p->open)
			pthread_cond_wait(&p->more, &p->lock);
		size_t i = p->from + p->next;
		if (i >= p->to)
			break;
		p->next++;
		struct report_run rr;
		if (!x->stream)
			rr = x->r->runs[i];
		pthread_mutex_unlock(&p->lock);
		audit_slot(x, &rr, i);
		pthread_mutex_lock(&p->lock);
		if (!x->stream)
			x->r->runs[i] = rr;
		size_t done = ++p->done;
		if (x->rq->progress) {
			char line[80];
			/* Counted across pages (issue 19): the runs before this
			 * range are audited already; an open pool's total grows
			 * while the list is read ("+"). */
			snprintf(line, sizeof line, "audited %zu of %zu%s %s", p->from + done, p->to,
				 p->open ? "+" : "", p->what);
			x->rq->progress(line, x->rq->msg_ctx);
		}
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static struct pool *pool_start(struct audit_ctx *x, size_t from, size_t to, bool open, const char *what)
{
	struct pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	*p = (struct pool){.x = x, .from = from, .to = to, .open = open, .what = what};
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	size_t jobs = x->rq->jobs > 0 ? (size_t)x->rq->jobs : 8;
	if (!open && jobs > to - from)
		jobs = to - from;
	if (jobs > MAX_JOBS)
		jobs = MAX_JOBS;
	/* One job of a fixed range is done here; an open pool has a thread of
	 * its own even for one, so the listing goes on beside it. */
	if (jobs > 1 || open)
		for (; p->started < jobs; p->started++)
			if (pthread_create(&p->th[p->started], NULL, pool_worker, p) != 0)
				break;
	return p;
}

/* No more runs join: the workers finish what there is (or this thread
 * does it, when none could start). */
static void pool_end(struct pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->open = false;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	if (p->started == 0)
		pool_worker(p);
	for (size_t i = 0; i < p->started; i++)
		pthread_join(p->th[i], NULL);
	struct audit_ctx *x = p->x;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->more);
	free(p);
	if (x->rq->progress)
		x->rq->progress("", x->rq->msg_ctx);
}

/* The report's run slots are fixed while the workers run: each writes only
 * to the slot it took. */
void audit_range(struct audit_ctx *x, size_t from, size_t to, const char *what)
{
	if (from >= to)
		return;
	struct pool *p = pool_start(x, from, to, false, what);
	if (!p) {
		/* No memory for the pool: one run at a time, here. */
		for (size_t i = from; i < to; i++) {
			struct report_run rr;
			audit_slot(x, x->stream ? &rr : &x->r->runs[i], i);
		}
		return;
	}
	pool_end(p);
}

struct audit_feed *audit_feed_start(struct audit_ctx *x, const char *what)
{
	size_t n = audit_n_runs(x);
	return (struct audit_feed *)pool_start(x, n, n, true, what);
}

int audit_feed_add(struct audit_feed *f, const struct catalyst_run_item *items, size_t n, struct err *e)
{
	struct pool *p = (struct pool *)f;
	struct audit_ctx *x = p->x;
	if (n == 0)
		return 0;
	pthread_mutex_lock(&p->lock);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = audit_add_run(x, items[i].app_id, items[i].run_id, items[i].parent_id, e);
	p->to = audit_n_runs(x);
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

void audit_feed_end(struct audit_feed *f)
{
	if (f)
		pool_end((struct pool *)f);
}

/* ---- child runs --------------------------------------------------------- */

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

size_t audit_n_runs(const struct audit_ctx *x)
{
	return x->stream ? audit_stream_count(x->stream) : x->r->n_runs;
}

void audit_run_ids(const struct audit_ctx *x, size_t i, const char **app, const char **run)
{
	if (x->stream) {
		audit_stream_ids(x->stream, i, app, run);
		return;
	}
	*app = x->r->runs[i].app_id;
	*run = x->r->runs[i].run_id;
}

int audit_add_run(struct audit_ctx *x, const char *app, const char *run, const char *parent, struct err *e)
{
	if (x->stream)
		return audit_stream_add(x->stream, app, run, parent, e);
	struct report_run *rr = report_add_run(x->r); /* may move x->r->runs, not the strings */
	if (!rr)
		return err_oom(e);
	rr->app_id = xstrdup(app);
	rr->run_id = xstrdup(run);
	rr->parent_run_id = xstrdup(parent);
	return 0;
}

/* Child workflow instances named in the histories of runs [from, to) and
 * not in the report yet become runs of their own, parent named. A child
 * runs in its parent's app: history does not say otherwise. */
static int add_children(struct audit_ctx *x, size_t from, size_t to, size_t *budget, bool *capped, struct err *e)
{
	for (size_t i = from; i < to; i++) {
		const char *child;
		for (size_t c = 0; c < audit_run_children(x, i, c, &child); c++) {
			const char *app, *parent;
			/* Strings that do not move when a run is added. */
			audit_run_ids(x, i, &app, &parent);
			if (!child || !*child || audit_seen_run(x, app, child))
				continue;
			if (*budget == 0) {
				*capped = true;
				return 0;
			}
			if (audit_add_run(x, app, child, parent, e) < 0 || audit_mark_run(x, app, child, e) < 0)
				return -1;
			(*budget)--;
		}
	}
	return 0;
}

/* Breadth first, one generation of children per round. */
int audit_follow_children(struct audit_ctx *x, size_t from, struct err *e)
{
	size_t start = from, end = audit_n_runs(x), budget = MAX_CHILD_RUNS;
	bool capped = false;
	for (int depth = 0; depth < MAX_CHILD_DEPTH && start < end && !capped; depth++) {
		if (add_children(x, start, end, &budget, &capped, e) < 0)
			return -1;
		audit_range(x, end, audit_n_runs(x), "child runs");
		start = end;
		end = audit_n_runs(x);
	}
	if (capped || start < end)
		report_add_note(x->r,
				"child workflows were followed %d levels deep and up to %d child runs; "
				"deeper or further children were not audited",
				MAX_CHILD_DEPTH, MAX_CHILD_RUNS);
	return 0;
}

/* ---- the end ------------------------------------------------------------ */

/* Exit status for runs that could not be audited: the most telling first
 * (sign-in, then data sharing, then transport/protocol, then input). */
static int failure_status(const struct audit_ctx *x, size_t *n_failed)
{
	static const enum err_code order[] = {ERR_AUTH, ERR_DATA_SHARING, ERR_PROTOCOL, ERR_INPUT, ERR_NOT_FOUND};
	size_t best = sizeof order / sizeof *order;
	*n_failed = 0;
	for (size_t i = 0, n = audit_n_runs(x); i < n; i++) {
		if (audit_run_audited(x, i))
			continue;
		(*n_failed)++;
		size_t k = 0;
		while (k < sizeof order / sizeof *order && order[k] != audit_run_failure_code(x, i))
			k++;
		if (k == sizeof order / sizeof *order)
			k = 2; /* anything else counts as a protocol failure */
		if (k < best)
			best = k;
	}
	return *n_failed ? (int)order[best] : 0;
}

int audit_finish_report(struct audit_ctx *x, const char *what, struct err *e)
{
	int status = x->stream ? audit_stream_emit(x, e) : audit_emit_report(x->rq, x->r, e);
	if (status < 0)
		return -1;
	size_t n_failed;
	int fs = failure_status(x, &n_failed);
	if (fs) {
		audit_warnf(x->rq, "%zu of %zu %s could not be audited (see the report)", n_failed,
			    audit_n_runs(x), what);
		return fs;
	}
	return status;
}
