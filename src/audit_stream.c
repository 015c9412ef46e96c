/* The JSON report of `run` and `runs`, written as runs finish. */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_catalyst.h"
#include "buf.h"
#include "render.h"

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

struct audit_stream {
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
	struct file_out fo; /* what out is: --output's file, or stdout */
	size_t next_out;
	struct render_options ro;
};

/* Streams when the report is JSON and a temporary file can be had;
 * otherwise the report is held whole and rendered once every run is in
 * (text and Markdown open with the verdict over all runs). */
struct audit_stream *audit_stream_new(const struct audit_request *rq)
{
	if (!render_format_is(rq->format, FORMAT_STREAMS_RUNS))
		return NULL;
	struct audit_stream *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	st->ro = audit_render_options(rq);
	if (render_format_is(rq->format, FORMAT_LINE_PER_RUN)) {
		/* Where the lines go, now: they are written as runs finish. A
		 * FILE that cannot be opened leaves the report whole, and its
		 * error to audit_emit_report. */
		struct err e;
		err_clear(&e);
		st->out = audit_open_output(rq, &st->fo, &e);
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

void audit_stream_free(struct audit_stream *st)
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
	if (st->out)
		file_out_abandon(&st->fo); /* never finished: the report stopped before its end */
	if (st->runs)
		fclose(st->runs);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static int reserve(struct audit_stream *st, size_t n, struct err *e)
{
	if (n <= st->cap)
		return 0;
	/* Grown page by page as `runs` lists: doubled, not by each page. */
	size_t cap = st->cap * 2 > n ? st->cap * 2 : n;
	struct stream_run *more = realloc(st->st, cap * sizeof *more);
	if (!more)
		return err_oom(e);
	memset(more + st->cap, 0, (cap - st->cap) * sizeof *more);
	st->st = more;
	st->cap = cap;
	return 0;
}

void audit_stream_reserve(struct audit_stream *st, size_t n)
{
	pthread_mutex_lock(&st->lock);
	if (!st->failed && reserve(st, n, &st->err) < 0)
		st->failed = true;
	pthread_mutex_unlock(&st->lock);
}

static ssize_t buf_write(void *cookie, const char *data, size_t n)
{
	struct err ignored;
	return buf_append(cookie, data, n, &ignored) < 0 ? -1 : (ssize_t)n;
}

/* One run rendered alone: a JSON line, or a segment of the JSON array. The
 * stream appends to a buf, unbuffered (the JSON writer keeps its own):
 * open_memstream zeroed and copied each of its doublings, a twentieth of
 * a `runs` audit's instructions (issue 34). */
static int render_one(const struct audit_stream *st, const struct report_run *rr, char **text, size_t *len,
		      struct err *e)
{
	struct buf b;
	buf_init(&b, 0);
	FILE *m = fopencookie(&b, "w", (cookie_io_functions_t){.write = buf_write});
	if (!m)
		return err_oom(e);
	setvbuf(m, NULL, _IONBF, 0);
	int rc;
	if (st->out) {
		rc = render_jsonl_run(m, rr, &st->ro, e);
	} else {
		struct render_json_stream *rs = render_json_begin_segment(m, &st->ro, e);
		rc = rs ? render_json_run(rs, rr, e) : -1;
		if (rs) {
			if (rc < 0)
				render_json_abort(rs);
			else
				rc = render_json_end(rs, NULL, e);
		}
	}
	if (fclose(m) != 0 && rc == 0)
		rc = err_oom(e);
	*len = 0;
	*text = rc < 0 ? NULL : buf_steal(&b, len);
	if (rc == 0 && !*text)
		rc = err_oom(e);
	buf_finish(&b);
	return rc;
}

/* The children to follow, copied before the analysis goes; NULL with
 * none (or out of memory, said in e). */
static char **children_of(const struct analysis *an, size_t *n, struct err *e)
{
	*n = 0;
	if (!an || !an->n_child_instances)
		return NULL;
	char **children = calloc(an->n_child_instances, sizeof *children);
	if (!children) {
		err_oom(e);
		return NULL;
	}
	for (size_t c = 0; c < an->n_child_instances; c++)
		if (an->child_instances[c] && (children[*n] = strdup(an->child_instances[c])))
			(*n)++;
	return children;
}

/* Rendered: only the ids stay (the report's order, the children to
 * follow, the duplicate check), so a long listing keeps little per run.
 * The analysis borrows from the log: it goes first. */
static void forget_run(struct report_run *rr)
{
	analysis_free(rr->analysis);
	rr->analysis = NULL;
	event_log_free(rr->log);
	rr->log = NULL;
	char **done[] = {&rr->console_link,
			 &rr->link_note,
			 &rr->source,
			 &rr->project,
			 &rr->failure,
			 &rr->refusal_kind,
			 &rr->refusal_instruction,
			 &rr->rerun_of,
			 &rr->rerun_of_link,
			 &rr->rerun_of_note};
	for (size_t k = 0; k < sizeof done / sizeof *done; k++) {
		free(*done[k]);
		*done[k] = NULL;
	}
}

/* Under the lock: the lines out in report order (this one, and those
 * after it that waited), or the segment to the temporary file. */
static int append_locked(struct audit_stream *st, struct stream_run *sr, char **text, struct err *e)
{
	int rc = 0;
	if (st->out) {
		sr->line = *text;
		*text = NULL;
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
		if (sr->off < 0 || fwrite(*text, 1, sr->len, st->runs) != sr->len)
			rc = err_set(e, ERR_USAGE, "cannot write the report to a temporary file: %s",
				     strerror(errno));
	}
	return rc;
}

/* Renders run i, appends it to the temporary file and frees its analysis
 * and log. Called by the worker that audited it; only the append and the
 * totals take the lock. */
static int stream_write(struct audit_stream *st, struct report_run *rr, size_t i, struct err *e)
{
	struct report one;
	report_init(&one);
	one.runs = rr;
	one.n_runs = 1;
	/* As audit_emit_report does: the run's counts before it is rendered. */
	report_summarize(&one);
	char *text = NULL;
	size_t len = 0;
	if (render_one(st, rr, &text, &len, e) < 0)
		return -1;
	size_t n_children;
	char **children = children_of(rr->analysis, &n_children, e);
	if (!children && rr->analysis && rr->analysis->n_child_instances) {
		free(text);
		return -1;
	}
	/* The per-run records may move (the feeder grows them while workers
	 * run, under the lock): each is touched under it only. */
	pthread_mutex_lock(&st->lock);
	struct stream_run *sr = &st->st[i];
	sr->audited = rr->analysis != NULL;
	sr->failure_code = rr->failure_code;
	sr->len = len;
	sr->children = children;
	sr->n_children = n_children;
	int rc = append_locked(st, sr, &text, e);
	st->totals.n_activities += one.n_activities;
	st->totals.n_reexecuted += one.n_reexecuted;
	st->totals.n_findings += one.n_findings;
	st->totals.n_suspect += one.n_suspect;
	st->totals.n_failed_runs += one.n_failed_runs;
	st->totals.n_known += one.n_known;
	st->totals.n_known_suspect += one.n_known_suspect;
	if (rc == 0)
		sr->written = true;
	pthread_mutex_unlock(&st->lock);
	free(text);
	if (rc < 0)
		return -1;
	forget_run(rr);
	return 0;
}

void audit_stream_ready(struct audit_ctx *x, struct report_run *rr, size_t i)
{
	struct audit_stream *st = x->stream;
	struct err e;
	err_clear(&e);
	pthread_mutex_lock(&st->lock);
	bool skip = st->failed || i >= st->cap;
	pthread_mutex_unlock(&st->lock);
	if (skip || stream_write(st, rr, i, &e) == 0)
		return;
	pthread_mutex_lock(&st->lock);
	if (!st->failed) {
		st->failed = true;
		st->err = e;
	}
	pthread_mutex_unlock(&st->lock);
}

bool audit_run_audited(const struct audit_ctx *x, size_t i)
{
	if (x->stream && i < x->stream->cap && x->stream->st[i].written)
		return x->stream->st[i].audited;
	return x->r->runs[i].analysis != NULL;
}

enum err_code audit_run_failure_code(const struct audit_ctx *x, size_t i)
{
	if (x->stream && i < x->stream->cap && x->stream->st[i].written)
		return x->stream->st[i].failure_code;
	return x->r->runs[i].failure_code;
}

size_t audit_run_children(const struct audit_ctx *x, size_t i, size_t c, const char **id)
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

int audit_stream_emit(struct audit_ctx *x, struct err *e)
{
	struct audit_stream *st = x->stream;
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
		totals.meta = x->r->meta;
		if (rc == 0)
			rc = render_jsonl_end(out, &totals, x->r->n_runs, e);
		return audit_close_output(rq, &st->fo, rc, &st->totals, e);
	}
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (!out)
		return -1;
	struct render_json_stream *rs = render_json_begin(out, x->r, &st->ro, e);
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
		totals.meta = x->r->meta;
		if (rc < 0)
			render_json_abort(rs);
		else
			rc = render_json_end(rs, &totals, e);
	}
	return audit_close_output(rq, &fo, rc, &st->totals, e);
}
