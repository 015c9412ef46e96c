/* `catalyst-audit stats`: the fleet view, from the server or from saved
 * reports. Each run is folded into the rows (stats.h) as soon as it is
 * audited and dropped, so memory grows with the activities, not the runs.
 *
 * From the server, the listing and the fetches overlap: the listing thread
 * (this one) hands each page's runs to a short queue as the page arrives
 * and the --jobs workers take them from there, so fetching starts with the
 * first page instead of after the last, and the queue (not the listing)
 * bounds what waits. The only per-run memory is the listing's own set of
 * run keys, which gives each run once.
 *
 * From reports, the files are read newest first (modification time, then
 * name) and a run (project, app, run id) already met is left out: the
 * latest report of a run wins without any report's runs being held. */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "audit_catalyst.h"
#include "file_in.h"
#include "render.h"
#include "stats.h"

#define MAX_JOBS 64
/* One saved report (JSON or JSON Lines): a large project's is tens of MiB. */
#define REPORT_MAX_BYTES ((size_t)1 << 30)

/* ---- from the server ------------------------------------------------------- */

struct queued {
	char *app_id, *run_id, *parent_id;
};

struct feed {
	struct audit_ctx *x;
	struct stats *st;
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	struct queued *q; /* ring */
	size_t cap, head, n;
	bool closed; /* the listing is over */
	size_t done;
	bool failed;
	struct err err;
};

static void queued_free(struct queued *it)
{
	free(it->app_id);
	free(it->run_id);
	free(it->parent_id);
}

/* One run fetched, audited, folded into the rows and dropped. */
static void count_one(struct feed *fd, struct queued it)
{
	struct audit_ctx *x = fd->x;
	struct report_run rr;
	memset(&rr, 0, sizeof rr);
	rr.app_id = it.app_id;
	rr.run_id = it.run_id;
	rr.parent_run_id = it.parent_id;
	audit_one_run(x, &rr);
	struct err e;
	err_clear(&e);
	pthread_mutex_lock(&fd->lock);
	if (!fd->failed && stats_add_report_run(fd->st, &rr, &e) < 0) {
		fd->failed = true;
		fd->err = e;
	}
	size_t done = ++fd->done;
	if (x->rq->progress) {
		char line[80];
		snprintf(line, sizeof line, "counted %zu runs", done);
		x->rq->progress(line, x->rq->msg_ctx);
	}
	pthread_mutex_unlock(&fd->lock);
	report_run_finish(&rr);
}

static void *feed_worker(void *arg)
{
	struct feed *fd = arg;
	for (;;) {
		pthread_mutex_lock(&fd->lock);
		while (fd->n == 0 && !fd->closed)
			pthread_cond_wait(&fd->more, &fd->lock);
		if (fd->n == 0) {
			pthread_mutex_unlock(&fd->lock);
			break;
		}
		struct queued it = fd->q[fd->head];
		fd->head = (fd->head + 1) % fd->cap;
		fd->n--;
		pthread_cond_signal(&fd->room);
		pthread_mutex_unlock(&fd->lock);
		count_one(fd, it);
	}
	return NULL;
}

/* Hands a page's runs to the workers, waiting while the queue is full
 * (with no worker, each is counted here). */
static int feed_page(struct feed *fd, struct catalyst_run_list *l, bool workers, struct err *e)
{
	for (size_t i = 0; i < l->n; i++) {
		struct catalyst_run_item *it = &l->items[i];
		if (!workers) {
			count_one(fd, (struct queued){it->app_id, it->run_id, it->parent_id});
			it->app_id = it->run_id = it->parent_id = NULL;
			if (fd->failed)
				return err_oom(e);
			continue;
		}
		pthread_mutex_lock(&fd->lock);
		while (fd->n == fd->cap)
			pthread_cond_wait(&fd->room, &fd->lock);
		/* Taken over from the page (which frees what it still holds). */
		fd->q[(fd->head + fd->n) % fd->cap] = (struct queued){it->app_id, it->run_id, it->parent_id};
		it->app_id = it->run_id = it->parent_id = NULL;
		fd->n++;
		pthread_cond_signal(&fd->more);
		bool failed = fd->failed;
		pthread_mutex_unlock(&fd->lock);
		if (failed)
			return err_oom(e);
	}
	return 0;
}

/* No more runs come: the workers finish what is queued, and end. */
static void feed_close(struct feed *fd, pthread_t *th, size_t started)
{
	pthread_mutex_lock(&fd->lock);
	fd->closed = true;
	pthread_cond_broadcast(&fd->more);
	pthread_mutex_unlock(&fd->lock);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

static int stats_from_server(const struct audit_request *rq, struct stats *st, struct err *e)
{
	struct report r; /* holds the notes the shared pipeline writes */
	report_init(&r);
	struct audit_ctx x;
	audit_ctx_init(&x, rq, &r);
	struct audit_listing l;
	int rc = -1;
	struct feed fd = {.x = &x, .st = st};
	pthread_t th[MAX_JOBS];
	size_t started = 0;

	if (audit_listing_filters(&x, &l, e) < 0 || audit_listing_start(&x, &l, e) < 0)
		goto out;
	size_t jobs = rq->jobs > 0 ? (size_t)rq->jobs : 8;
	if (jobs > MAX_JOBS)
		jobs = MAX_JOBS;
	/* Room for two pages or four runs a worker: the listing stays ahead
	 * of the fetches without holding the runs. */
	fd.cap = jobs * 4 > 100 ? jobs * 4 : 100;
	fd.q = calloc(fd.cap, sizeof *fd.q);
	if (!fd.q) {
		err_oom(e);
		goto out;
	}
	pthread_mutex_init(&fd.lock, NULL);
	pthread_cond_init(&fd.more, NULL);
	pthread_cond_init(&fd.room, NULL);
	for (; started < jobs; started++)
		if (pthread_create(&th[started], NULL, feed_worker, &fd) != 0)
			break;

	int step;
	size_t listed = 0;
	while ((step = audit_listing_next(&x, &l)) > 0) {
		listed += l.list.n;
		if (feed_page(&fd, &l.list, started > 0, &l.err) < 0) {
			step = -1;
			break;
		}
	}
	feed_close(&fd, th, started);
	started = 0;
	if (fd.failed) {
		*e = fd.err;
		goto out;
	}
	if (step < 0 && listed == 0) {
		audit_listing_failed(&x, &l, e);
		goto out;
	}
	audit_listing_notes(&x, &l.list, &l.err, listed);
	/* Past a bound, or a listing that broke off: what was read, marked
	 * partial; the status is the listing's, after the output. */
	st->partial = l.err.code != 0 || l.list.truncated;
	rc = l.err.code ? 1 : 0;
	for (size_t i = 0; i < r.n_notes; i++)
		if (stats_add_note(st, "%s", r.notes[i]) < 0) {
			rc = err_oom(e);
			goto out;
		}
	if (rc == 1)
		*e = l.err;
out:
	if (started)
		feed_close(&fd, th, started);
	if (fd.q) {
		for (size_t i = 0; i < fd.n; i++)
			queued_free(&fd.q[(fd.head + i) % fd.cap]);
		free(fd.q);
		pthread_mutex_destroy(&fd.lock);
		pthread_cond_destroy(&fd.more);
		pthread_cond_destroy(&fd.room);
	}
	audit_listing_finish(&l);
	audit_ctx_finish(&x);
	report_finish(&r);
	return rc;
}

/* ---- from saved reports ---------------------------------------------------- */

struct report_file {
	char *path;
	struct timespec mtime;
};

static int newest_first(const void *a, const void *b)
{
	const struct report_file *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec > y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec > y->mtime.tv_nsec ? -1 : 1;
	return -strcmp(x->path, y->path);
}

struct file_list {
	struct report_file *f;
	size_t n, cap;
};

static int list_add(struct file_list *l, const char *path, const struct stat *sb, struct err *e)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct report_file *more = realloc(l->f, cap * sizeof *more);
		if (!more)
			return err_oom(e);
		l->f = more;
		l->cap = cap;
	}
	if (!(l->f[l->n].path = strdup(path)))
		return err_oom(e);
	l->f[l->n++].mtime = sb->st_mtim;
	return 0;
}

static bool report_name(const char *name)
{
	size_t n = strlen(name);
	return name[0] != '.' && ((n > 5 && strcasecmp(name + n - 5, ".json") == 0) ||
				  (n > 6 && strcasecmp(name + n - 6, ".jsonl") == 0));
}

/* A folder's *.json and *.jsonl files (not its subfolders); a file as it is. */
static int collect(struct file_list *l, const char *path, struct err *e)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return err_set(e, ERR_USAGE, "cannot read %s: %s", path, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return list_add(l, path, &sb, e);
	DIR *d = opendir(path);
	if (!d)
		return err_set(e, ERR_USAGE, "cannot read %s: %s", path, strerror(errno));
	int rc = 0;
	size_t before = l->n;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		if (!report_name(de->d_name))
			continue;
		char *full;
		if (asprintf(&full, "%s/%s", path, de->d_name) < 0) {
			rc = err_oom(e);
			break;
		}
		struct stat fs;
		if (stat(full, &fs) == 0 && S_ISREG(fs.st_mode))
			rc = list_add(l, full, &fs, e);
		free(full);
	}
	closedir(d);
	if (rc == 0 && l->n == before)
		rc = err_set(e, ERR_USAGE, "%s holds no .json or .jsonl report", path);
	return rc;
}

static int stats_from_reports(const struct audit_request *rq, struct stats *st, struct err *e)
{
	/* A saved report is filtered here, one value a filter: repeated
	 * filters and --ended-since are the server listing's. */
	const struct audit_filters *fl = &rq->filters;
	if (fl->app.n > 1 || fl->workflow.n > 1 || fl->status.n > 1)
		return err_set(e, ERR_USAGE,
			       "--app, --workflow and --status take one value each over saved reports");
	if (fl->ended_since)
		return err_set(e, ERR_USAGE,
			       "--ended-since filters the server's listing: saved reports are read whole");
	struct stats_filter sf = {.app = fl->app.n ? fl->app.v[0] : NULL,
				  .workflow = fl->workflow.n ? fl->workflow.v[0] : NULL};
	char status[32] = "", since[32], until[32], ended[32];
	struct catalyst_run_filter f = {0};
	if (fl->status.n) {
		catalyst_status_normalize(fl->status.v[0], status, sizeof status);
		if (!catalyst_status_valid(status))
			return err_set(
				e, ERR_USAGE,
				"--status: expected running|completed|failed|terminated|suspended|canceled, got "
				"'%s'",
				fl->status.v[0]);
		f.status = status;
	}
	if (audit_time_filters(rq, &f, since, until, ended, e) < 0)
		return -1;
	sf.status = f.status;
	sf.since = f.since;
	sf.until = f.until;
	if (rq->filters.limit)
		return err_set(e, ERR_USAGE, "--limit bounds the server's listing: saved reports are read whole");
	struct file_list l = {0};
	int rc = 0;
	for (size_t i = 0; i < rq->n_reports && rc == 0; i++)
		rc = collect(&l, rq->reports[i], e);
	if (rc == 0 && l.n > 1)
		qsort(l.f, l.n, sizeof *l.f, newest_first);
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		/* Read whole first: a pipe (`stats <(zcat r.json.gz)`) cannot be
		 * read twice, and an input not read whole (/dev/zero, a file
		 * that changed) is an error, never "0 runs". */
		const struct file_in rules = {.what = "report",
					      .code = ERR_INPUT,
					      .max = REPORT_MAX_BYTES,
					      .stream = true,
					      .text = true};
		char *text = NULL;
		size_t len = 0;
		int got = file_in_read(l.f[i].path, &rules, &text, &len, e);
		if (got < 0) {
			rc = got == -2 ? err_set(e, ERR_USAGE, "cannot read %s: %s", l.f[i].path, strerror(ENOENT))
				       : -1;
			break;
		}
		if (strspn(text, " \t\r\n") == len) {
			free(text);
			rc = err_set(e, ERR_INPUT, "%s is empty: not a catalyst-audit report", l.f[i].path);
			break;
		}
		FILE *in = fmemopen(text, len, "r");
		if (!in) {
			free(text);
			rc = err_oom(e);
			break;
		}
		rc = stats_read_report(st, in, l.f[i].path, &sf, e);
		fclose(in);
		free(text);
		st->reports++;
	}
	for (size_t i = 0; i < l.n; i++)
		free(l.f[i].path);
	free(l.f);
	if (rc == 0 && sf.no_start)
		rc = stats_add_note(st,
				    "%zu run(s) left out: their report names no start time for --since/--until to "
				    "compare",
				    sf.no_start) < 0
			     ? err_oom(e)
			     : 0;
	if (rc == 0 && st->runs == 0)
		stats_add_note(st, "no runs matched");
	return rc;
}

/* ---- the command ------------------------------------------------------------ */

int audit_stats(const struct audit_request *rq, struct err *e)
{
	struct stats st;
	stats_init(&st, rq->n_reports ? STATS_FROM_REPORTS : STATS_FROM_SERVER);
	st.by_version = rq->stats_by_version;
	if (!st.index || !st.project_set || (rq->n_reports && !st.seen)) {
		stats_finish(&st);
		return err_oom(e);
	}
	int got = rq->n_reports ? stats_from_reports(rq, &st, e) : stats_from_server(rq, &st, e);
	if (got < 0) {
		stats_finish(&st);
		return -1;
	}
	struct err list_err = *e; /* the listing's error, when got == 1 */
	stats_rank(&st);
	int rc = -1;
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (out) {
		struct render_options ro = audit_render_options(rq);
		int wrc = render_stats(out, rq->format, &st, &ro, e);
		/* Only the counts --fail-on reads: stats knows no baseline. */
		struct report counts = {0};
		for (size_t i = 0; i < st.n_rows; i++) {
			counts.n_findings += st.rows[i]->suspect + st.rows[i]->notice;
			counts.n_suspect += st.rows[i]->suspect;
		}
		rc = audit_close_output(rq, &fo, wrc, &counts, e);
	}
	if (rc >= 0 && got == 1) {
		/* Written, marked partial; the status says the list is incomplete. */
		*e = list_err;
		err_prefix(e, "listing runs (the statistics cover the %zu runs listed before)", st.runs);
		rc = -1;
	}
	stats_finish(&st);
	return rc;
}
