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

#include "console_link.h"
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

/* PRODUCT.md rule 3 in file mode: a link only when the app id, the run id
 * and the project are all known, and the project's form is certain. A file
 * does not say which project it came from unless its envelope names one. */
static int fill_link(const struct audit_request *rq, const struct event_run_info *ri, struct report_run *run,
		     struct err *e)
{
	const char *name = rq->project, *uid = rq->project_id;
	if (!name && !uid && ri && ri->project && *ri->project)
		name = ri->project;
	if (name || uid) {
		struct console_project p;
		if (console_project_classify(name, uid, &p, e) < 0)
			return -1;
		if (p.kind == CONSOLE_PROJECT_NAME || p.kind == CONSOLE_PROJECT_UID) {
			run->project_form = p.kind == CONSOLE_PROJECT_UID ? PROJECT_UID : PROJECT_NAME;
			run->project = strdup(p.value);
			if (!run->project)
				return err_set(e, ERR_INTERNAL, "out of memory");
		}
		if (p.kind == CONSOLE_PROJECT_AMBIGUOUS) {
			/* No server to ask which it is: a link that may open
			 * another project is worse than none. */
			run->project = strdup(p.value); /* shown, with its form unknown */
			if (!run->project)
				return err_set(e, ERR_INTERNAL, "out of memory");
			const char *why = console_project_note(&p);
			run->link_note =
				strdup(why ? why : "the project could be a name or a uid; no server to ask which");
			return run->link_note ? 0 : err_set(e, ERR_INTERNAL, "out of memory");
		}
	}
	if (!run->app_id)
		run->link_note = strdup("the file does not name the app id");
	else if (!run->run_id)
		run->link_note = strdup("the file does not name the run id");
	else if (run->project_form == PROJECT_NONE)
		run->link_note = strdup("no project given (--project NAME or --project-id UID)");
	if (run->link_note)
		return 0;
	if (!run->app_id || !run->run_id || run->project_form == PROJECT_NONE)
		return err_set(e, ERR_INTERNAL, "out of memory");

	struct console_project p = {
		.kind = run->project_form == PROJECT_UID ? CONSOLE_PROJECT_UID : CONSOLE_PROJECT_NAME,
		.value = run->project,
	};
	struct err le;
	err_clear(&le);
	run->console_link = console_link_run(rq->console, &p, run->app_id, run->run_id, &le);
	if (!run->console_link) {
		if (le.code == ERR_USAGE) {
			*e = le;
			return -1;
		}
		run->link_note = strdup(le.msg);
	}
	return 0;
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
	run->log = event_log_parse_fd(fd, e);
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
	run->app_id = dup_or_null(ri ? ri->app_id : NULL);
	run->run_id = dup_or_null(ri && ri->instance_id ? ri->instance_id : run->analysis->instance_id);
	if (asprintf(&run->source, "file %s", strcmp(path, "-") == 0 ? "- (standard input)" : path) < 0) {
		run->source = NULL;
		err_set(e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	if (fill_link(rq, ri, run, e) < 0)
		goto out;

	rc = audit_emit_report(rq, &r, e);
out:
	report_finish(&r);
	return rc;
}
