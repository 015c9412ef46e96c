/* `catalyst-audit file PATH|-`: audit a saved history, no server needed.
 * Parses the file or standard input in whatever dialect it is, runs the
 * analysis and hands one report run to the shared renderer tail. */
#include "audit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "event.h"
#include "trace.h"

/* Opens PATH ("-": standard input) for event_log_parse_fd, which maps a
 * regular file and gives its pages back as the parse moves on. */
static int input_open(const char *path, int *fd, struct err *e)
{
	if (strcmp(path, "-") == 0) {
		*fd = STDIN_FILENO;
		return 0;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return err_set(e, ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(*fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		err_set(e, ERR_INPUT, "cannot read %s: %s", path,
			S_ISDIR(st.st_mode) ? "it is a directory" : strerror(errno));
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
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

int audit_file(const struct audit_request *rq, struct err *e)
{
	const char *path = rq->args[0];
	struct report r;
	report_init(&r);
	int rc = -1;
	int fd = -1;

	if (!path)
		return err_set(e, ERR_USAGE, "usage: catalyst-audit [OPTIONS] file PATH|-");
	const char *display = strcmp(path, "-") == 0 ? "standard input" : path;
	struct report_run *run = report_add_run(&r);
	if (!run) {
		err_set(e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	if (input_open(path, &fd, e) < 0)
		goto out;
	run->log = event_log_parse_fd(fd, &(struct event_parse_options){.threads = rq->threads}, e);
	if (fd != STDIN_FILENO)
		close(fd);
	if (!run->log) {
		if (e && e->code == ERR_NONE)
			err_set(e, ERR_INPUT, "not a workflow history");
		err_prefix(e, "%s", display);
		goto out;
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
	 * events: the history goes before the findings are made. */
	struct analysis_pending *scanned = analysis_scan(run->log, &ao, e);
	event_log_drop_events(run->log);
	run->analysis = analysis_finish(scanned, e);
	if (!run->analysis) {
		err_prefix(e, "%s", display);
		goto out;
	}

	const struct event_run_info *ri = event_log_run_info(run->log);
	/* The file's own word on its app wins; --app-id names one it lacks. */
	if (rq->file_app && ri && ri->app_id && strcmp(ri->app_id, rq->file_app) != 0)
		audit_warnf(rq, "%s names app %s: --app-id %s is not used", display, ri->app_id, rq->file_app);
	run->app_id = dup_or_null(ri && ri->app_id ? ri->app_id : rq->file_app);
	run->run_id = dup_or_null(ri && ri->instance_id ? ri->instance_id : run->analysis->instance_id);
	if (asprintf(&run->source, "file %s", strcmp(path, "-") == 0 ? "- (standard input)" : path) < 0) {
		run->source = NULL;
		err_set(e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	struct project_ref project;
	file_project(rq, ri, &project);
	if (link_for_run(run, LINK_FROM_FILE, rq->console, &project, NULL, e) < 0)
		goto out;

	rc = audit_emit_report(rq, &r, e);
out:
	report_finish(&r);
	return rc;
}
