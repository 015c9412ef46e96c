/* `catalyst-audit file PATH|-`: audit a saved history, no server needed.
 * Parses the file or standard input in whatever dialect it is, runs the
 * analysis and hands one report run to the shared renderer tail. */
#include "audit.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "event.h"
#include "file_in.h"
#include "trace.h"

/* Opens PATH ("-": standard input) for event_log_parse_fd, which maps a
 * regular file (giving its pages back as the parse moves on) and reads a
 * pipe or a device as a stream. Never blocks in open() (a FIFO nobody
 * writes to); a socket is refused. */
static int input_open(const char *path, int *fd, struct err *e)
{
	if (strcmp(path, "-") == 0) {
		*fd = STDIN_FILENO;
		return 0;
	}
	const struct file_in rules = {.what = "input", .code = ERR_INPUT, .stream = true};
	struct stat st;
	*fd = file_in_open(path, &rules, &st, e);
	if (*fd == -2)
		err_set(e, ERR_INPUT, "cannot read %s: %s", path, strerror(ENOENT));
	return *fd < 0 ? -1 : 0;
}

/* Unknown event types and keys are kept and counted by the parser; under
 * --verbose the user sees them. */
static void trace_unknowns(const struct event_log *log)
{
	if (!trace_enabled())
		return;
	const struct event_count *c;
	size_t n = event_log_unknown_kinds(log, &c);
	for (size_t i = 0; i < n; i++) {
		char *name = escape_terminal_dup(c[i].name, 80);
		trace_printf("history", "unknown event type %s: %zu event%s", name ? name : "?", c[i].count,
			     c[i].count == 1 ? "" : "s");
		free(name);
	}
	n = event_log_unknown_keys(log, &c);
	for (size_t i = 0; i < n; i++) {
		char *name = escape_terminal_dup(c[i].name, 80);
		trace_printf("history", "unknown key %s: %zu time%s", name ? name : "?", c[i].count,
			     c[i].count == 1 ? "" : "s");
		free(name);
	}
	trace_printf("history", "%zu events, dialect %s", event_log_count(log),
		     event_dialect_name(event_log_dialect(log)));
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* The project a link names: the one given, else the one the file's
 * envelope names (a file does not say which project it came from unless
 * it does), else none. */
static void file_project(const struct audit_request *rq, const struct event_run_info *ri, struct project_ref *p)
{
	*p = rq->project;
	if (!p->defaulted)
		return;
	*p = (struct project_ref){PROJECT_NONE, NULL, false, false};
	if (ri && ri->project && *ri->project)
		project_ref_from_options(ri->project, NULL, p, NULL); /* not empty: cannot fail */
}

/* One saved history as the next report run. */
static int file_one(const struct audit_request *rq, struct report *r, const char *path, const json_t *baseline,
		    const struct review *source, struct err *e)
{
	int fd = -1;
	const char *display = strcmp(path, "-") == 0 ? "standard input" : path;
	struct report_run *run = report_add_run(r);
	if (!run)
		return err_oom(e);
	if (input_open(path, &fd, e) < 0)
		return -1;
	struct event_parse_options po = audit_parse_options(rq);
	run->log = event_log_parse_fd(fd, &po, e);
	if (fd != STDIN_FILENO)
		close(fd);
	if (!run->log) {
		if (e && e->code == ERR_NONE)
			err_set(e, ERR_INPUT, "not a workflow history");
		err_prefix(e, "%s", display);
		return -1;
	}
	trace_unknowns(run->log);

	struct analysis_options ao = {
		.payload_limit = rq->payload_limit,
		.sharing = rq->sharing,
		.sharing_source = rq->sharing != SHARING_UNKNOWN ? "--data-sharing (asserted by the user)" : NULL,
		/* Only a Catalyst-shaped file can have had payloads withheld. */
		.catalyst_source = analysis_catalyst_shaped(run->log),
		.threads = rq->threads,
	};
	/* The report reads the analysis and the log's run info, never its
	 * events: the history goes as it is scanned, before the findings are
	 * made. */
	struct analysis_pending *scanned = analysis_scan_release(run->log, &ao, e);
	run->analysis = analysis_finish(scanned, e);
	if (!run->analysis) {
		err_prefix(e, "%s", display);
		return -1;
	}

	const struct event_run_info *ri = event_log_run_info(run->log);
	/* --app-id and --run-id name the run of a history that does not say
	 * it (or says it wrong): the user's word over the file's. */
	if (rq->file_app_id && ri && ri->app_id && strcmp(ri->app_id, rq->file_app_id) != 0)
		audit_warnf(rq, "%s names app %s: --app-id %s is used instead", display, ri->app_id,
			    rq->file_app_id);
	run->app_id = dup_or_null(rq->file_app_id ? rq->file_app_id : ri ? ri->app_id : NULL);
	run->run_id = dup_or_null(rq->file_run_id         ? rq->file_run_id
				  : ri && ri->instance_id ? ri->instance_id
							  : run->analysis->instance_id);
	if (asprintf(&run->source, "file %s", strcmp(path, "-") == 0 ? "- (standard input)" : path) < 0) {
		run->source = NULL;
		return err_oom(e);
	}
	struct project_ref project;
	file_project(rq, ri, &project);
	if (link_for_run(run, LINK_FROM_FILE, rq->console, &project, NULL, NULL, e) < 0)
		return -1;
	if (run->analysis->finished && run->analysis->ended_at &&
	    !(run->ended_at = strdup(run->analysis->ended_at)))
		return err_oom(e);
	if (report_mark_known(run, baseline) < 0 || report_attach_source(run, source, rq->source) < 0)
		return err_oom(e);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's *.json files (what --save-histories writes), in name order:
 * a malloc'd array of malloc'd paths in *out. Names starting with '.' (a
 * write under way) are not histories. */
static long folder_files(const char *dir, char ***out, struct err *e)
{
	*out = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return err_set(e, ERR_INPUT, "cannot read %s: %s", dir, strerror(errno));
	size_t n = 0, cap = 0;
	char **v = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nv = realloc(v, cap * sizeof *nv);
			if (!nv)
				goto oom;
			v = nv;
		}
		if (asprintf(&v[n], "%s/%s", dir, de->d_name) < 0)
			goto oom;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, by_name);
	*out = v;
	return (long)n;
oom:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return err_oom(e);
}

int audit_file(const struct audit_request *rq, struct err *e)
{
	const char *const *paths = rq->files;
	size_t n_paths = rq->n_files;
	if (!paths || !n_paths) {
		paths = rq->args;
		n_paths = rq->args[0] ? 1 : 0;
	}
	if (!n_paths)
		return err_set(e, ERR_USAGE, "usage: catalyst-audit [OPTIONS] file PATH...|-");
	struct report r;
	report_init(&r);
	int rc = -1;
	json_t *baseline = NULL;
	struct review *source = NULL;
	audit_report_meta(rq, &r);
	if ((rq->baseline && !(baseline = audit_load_baseline(rq, e))) ||
	    (rq->source && !(source = audit_load_source(rq, e))))
		goto out;
	for (size_t i = 0; i < n_paths; i++) {
		struct stat st;
		if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			char **files;
			long n = folder_files(paths[i], &files, e);
			if (n < 0)
				goto out;
			if (n == 0 || !files) {
				err_set(e, ERR_INPUT, "%s: no *.json history in this folder", paths[i]);
				goto out;
			}
			int bad = 0;
			for (long k = 0; k < n; k++) {
				if (!bad && file_one(rq, &r, files[k], baseline, source, e) < 0)
					bad = -1;
				free(files[k]);
			}
			free(files);
			if (bad < 0)
				goto out;
			continue;
		}
		if (file_one(rq, &r, paths[i], baseline, source, e) < 0)
			goto out;
	}
	if ((rq->file_app_id || rq->file_run_id) && r.n_runs > 1) {
		err_set(e, ERR_USAGE, "--app-id and --run-id name the run of one history; %zu were given",
			r.n_runs);
		goto out;
	}
	rc = audit_emit_report(rq, &r, e);
out:
	json_decref(baseline);
	audit_free_source(source);
	report_finish(&r);
	return rc;
}
