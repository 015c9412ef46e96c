/* The JSON report of `run` and `runs`, written as runs finish. */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
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
 * report.
 *
 * A streamed report's runs are the stream's, not the report's: the report
 * keeps no struct report_run per run (some 220 bytes each, and the array's
 * doublings), only its notes and meta. Each run is a stream_run (32 bytes,
 * in blocks that never move) and its ids packed in the stream's string
 * pool; a worker audits a report_run made from them and frees it once the
 * run is written, so memory stays flat as the runs grow (issue 34). */

struct stream_run {
	/* In the pool: a byte saying which ids follow (STREAM_ID_*), then
	 * each present id NUL-ended, app, run and parent in that order. */
	const char *ids;
	const char *const *children; /* in the pool: the analysis' child instance ids, NULL-ended; or NULL */
	union {
		char *line; /* JSON Lines: the run's line, until the runs before it are out */
		off_t off;  /* JSON: its text in the temporary file */
	};
	uint32_t len;         /* a run's text is under 4 GiB (stream_write) */
	uint8_t failure_code; /* enum err_code: an exit status */
	bool written : 1;     /* rendered, analysis and log freed */
	bool audited : 1;
};

enum {
	STREAM_ID_APP = 1,
	STREAM_ID_RUN = 2,
	STREAM_ID_PARENT = 4
};

#define STREAM_BLOCK_RUNS 1024  /* stream_runs per block */
#define STREAM_POOL_BLOCK 16384 /* bytes per block of the string pool */

struct pool_block {
	struct pool_block *next;
	size_t used, size;
	max_align_t data[];
};

struct audit_stream {
	pthread_mutex_t lock;
	FILE *runs;                 /* the rendered runs, in the order they finished */
	struct stream_run **blocks; /* the report's runs, STREAM_BLOCK_RUNS a block */
	size_t n, n_blocks;
	struct pool_block *pool; /* the runs' ids and children, never freed before the stream */
	struct report totals;    /* summary counts only */
	bool failed;
	struct err err;
	/* JSON Lines: each run's line goes out as soon as it and every run
	 * before it are audited (report order, so the output is the same
	 * whatever order the workers finish in). */
	FILE *out;
	struct file_out fo; /* what out is: --output's file, or stdout */
	size_t next_out;
	bool lines; /* JSON Lines: each stream_run holds line, not off */
	struct render_options ro;
};

static struct stream_run *rec(const struct audit_stream *st, size_t i)
{
	return &st->blocks[i / STREAM_BLOCK_RUNS][i % STREAM_BLOCK_RUNS];
}

/* n bytes from the pool, aligned to align (a power of two: 1 for ids,
 * that of a pointer for the children), NULL when memory ran out. A large
 * request gets a block of its own behind the one being filled. */
static void *pool_alloc(struct audit_stream *st, size_t n, size_t align)
{
	struct pool_block *b = st->pool;
	if (b) {
		size_t at = (b->used + align - 1) & ~(align - 1);
		if (at <= b->size && b->size - at >= n) {
			b->used = at + n;
			return (char *)b->data + at;
		}
	}
	bool own = n > STREAM_POOL_BLOCK / 4;
	size_t size = own ? n : STREAM_POOL_BLOCK;
	struct pool_block *nb = malloc(sizeof *nb + size);
	if (!nb)
		return NULL;
	nb->size = size;
	nb->used = n;
	if (own && b) {
		nb->next = b->next;
		b->next = nb;
	} else {
		nb->next = b;
		st->pool = nb;
	}
	return nb->data;
}

static const char *id_at(const char *ids, unsigned which)
{
	unsigned have = (unsigned char)*ids++;
	if (!(have & which))
		return NULL;
	for (unsigned bit = STREAM_ID_APP; bit < which; bit <<= 1)
		if (have & bit)
			ids += strlen(ids) + 1;
	return ids;
}

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
		st->lines = true;
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
	for (size_t i = 0; st->lines && i < st->n; i++)
		free(rec(st, i)->line);
	for (size_t b = 0; b < st->n_blocks; b++)
		free(st->blocks[b]);
	free(st->blocks);
	while (st->pool) {
		struct pool_block *next = st->pool->next;
		free(st->pool);
		st->pool = next;
	}
	if (st->out)
		file_out_abandon(&st->fo); /* never finished: the report stopped before its end */
	if (st->runs)
		fclose(st->runs);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static int add_locked(struct audit_stream *st, const char *app, const char *run, const char *parent, struct err *e)
{
	if (st->n == st->n_blocks * STREAM_BLOCK_RUNS) {
		struct stream_run **blocks = realloc(st->blocks, (st->n_blocks + 1) * sizeof *blocks);
		if (!blocks)
			return err_oom(e);
		st->blocks = blocks;
		if (!(blocks[st->n_blocks] = malloc(STREAM_BLOCK_RUNS * sizeof **blocks)))
			return err_oom(e);
		st->n_blocks++;
	}
	const char *v[] = {app, run, parent};
	size_t n = 1;
	for (size_t k = 0; k < 3; k++)
		n += v[k] ? strlen(v[k]) + 1 : 0;
	char *ids = pool_alloc(st, n, 1);
	if (!ids)
		return err_oom(e);
	char *p = ids + 1;
	*ids = 0;
	for (size_t k = 0; k < 3; k++)
		if (v[k]) {
			*ids |= (char)(1u << k);
			size_t len = strlen(v[k]) + 1;
			memcpy(p, v[k], len);
			p += len;
		}
	struct stream_run *sr = rec(st, st->n++);
	memset(sr, 0, sizeof *sr);
	sr->ids = ids;
	return 0;
}

int audit_stream_add(struct audit_stream *st, const char *app, const char *run, const char *parent, struct err *e)
{
	pthread_mutex_lock(&st->lock);
	int rc = add_locked(st, app, run, parent, e);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

size_t audit_stream_count(struct audit_stream *st)
{
	pthread_mutex_lock(&st->lock);
	size_t n = st->n;
	pthread_mutex_unlock(&st->lock);
	return n;
}

void audit_stream_ids(struct audit_stream *st, size_t i, const char **app, const char **run)
{
	pthread_mutex_lock(&st->lock);
	const char *ids = rec(st, i)->ids;
	pthread_mutex_unlock(&st->lock);
	/* The pool never moves what it holds. */
	*app = id_at(ids, STREAM_ID_APP);
	*run = id_at(ids, STREAM_ID_RUN);
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;
	*oom |= s && !d;
	return d;
}

int audit_stream_take(struct audit_stream *st, size_t i, struct report_run *rr)
{
	pthread_mutex_lock(&st->lock);
	const char *ids = rec(st, i)->ids;
	pthread_mutex_unlock(&st->lock);
	memset(rr, 0, sizeof *rr);
	bool oom = false;
	rr->app_id = dup_or_null(id_at(ids, STREAM_ID_APP), &oom);
	rr->run_id = dup_or_null(id_at(ids, STREAM_ID_RUN), &oom);
	rr->parent_run_id = dup_or_null(id_at(ids, STREAM_ID_PARENT), &oom);
	if (!oom)
		return 0;
	report_run_finish(rr);
	pthread_mutex_lock(&st->lock);
	if (!st->failed) {
		st->failed = true;
		err_oom(&st->err);
	}
	pthread_mutex_unlock(&st->lock);
	return -1;
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

/* The children to follow, copied into the pool (under the lock) before
 * the analysis goes; -1 when memory ran out. */
static int children_locked(struct audit_stream *st, struct stream_run *sr, const struct analysis *an,
			   struct err *e)
{
	sr->children = NULL;
	if (!an || !an->n_child_instances)
		return 0;
	size_t n = 0, bytes = 0;
	for (size_t c = 0; c < an->n_child_instances; c++)
		if (an->child_instances[c]) {
			n++;
			bytes += strlen(an->child_instances[c]) + 1;
		}
	const char **v = pool_alloc(st, (n + 1) * sizeof *v + bytes, _Alignof(const char *));
	if (!v)
		return err_oom(e);
	char *p = (char *)(v + n + 1);
	n = 0;
	for (size_t c = 0; c < an->n_child_instances; c++)
		if (an->child_instances[c]) {
			size_t len = strlen(an->child_instances[c]) + 1;
			memcpy(p, an->child_instances[c], len);
			v[n++] = p;
			p += len;
		}
	v[n] = NULL;
	sr->children = v;
	return 0;
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
		while (st->next_out < st->n && rec(st, st->next_out)->line) {
			struct stream_run *o = rec(st, st->next_out);
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
	/* The block table may move (the feeder grows it while workers run,
	 * under the lock), and the pool is shared: both under it only. */
	if (len > UINT32_MAX) {
		free(text);
		return err_set(e, ERR_INPUT, "run %s: its report comes to over 4 GiB",
			       rr->run_id ? rr->run_id : "?");
	}
	pthread_mutex_lock(&st->lock);
	struct stream_run *sr = rec(st, i);
	sr->audited = rr->analysis != NULL;
	sr->failure_code = (uint8_t)rr->failure_code;
	sr->len = (uint32_t)len;
	int rc = children_locked(st, sr, rr->analysis, e);
	if (rc == 0)
		rc = append_locked(st, sr, &text, e);
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
	bool skip = st->failed || i >= st->n;
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

/* A streamed report's runs are all the stream's (audit_stream_add); one
 * held whole is the report's. */
bool audit_run_audited(const struct audit_ctx *x, size_t i)
{
	if (x->stream) {
		const struct stream_run *sr = rec(x->stream, i);
		return sr->written && sr->audited;
	}
	return x->r->runs[i].analysis != NULL;
}

enum err_code audit_run_failure_code(const struct audit_ctx *x, size_t i)
{
	if (x->stream)
		return (enum err_code)rec(x->stream, i)->failure_code;
	return x->r->runs[i].failure_code;
}

size_t audit_run_children(const struct audit_ctx *x, size_t i, size_t c, const char **id)
{
	if (x->stream) {
		const struct stream_run *sr = rec(x->stream, i);
		size_t n = 0;
		while (sr->written && sr->children && sr->children[n])
			n++;
		*id = c < n ? sr->children[c] : NULL;
		return n;
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
		int rc = st->next_out == st->n
				 ? 0
				 : err_set(e, ERR_INTERNAL, "run %zu of the report was never written",
					   st->next_out + 1);
		struct report totals = st->totals;
		totals.notes = x->r->notes;
		totals.n_notes = x->r->n_notes;
		totals.meta = x->r->meta;
		if (rc == 0)
			rc = render_jsonl_end(out, &totals, st->n, e);
		return audit_close_output(rq, &st->fo, rc, &st->totals, e);
	}
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (!out)
		return -1;
	struct render_json_stream *rs = render_json_begin(out, x->r, &st->ro, e);
	int rc = rs ? 0 : -1;
	if (rs && st->n && fflush(st->runs) != 0)
		rc = err_set(e, ERR_USAGE, "cannot write the report to a temporary file: %s", strerror(errno));
	int fd = fileno(st->runs);
	for (size_t i = 0; i < st->n && rc == 0; i++) {
		const struct stream_run *sr = rec(st, i);
		if (!sr->written)
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
