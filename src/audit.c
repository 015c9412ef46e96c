#include "audit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "mcp.h"
#include "version.h"

void audit_request_init(struct audit_request *rq)
{
	memset(rq, 0, sizeof *rq);
	rq->server = CATALYST_DEFAULT_SERVER;
	rq->console = CATALYST_DEFAULT_CONSOLE;
	rq->redirect_path = "/callback";
	rq->timeout_s = 60;
	rq->jobs = 8;
	rq->fail_on = FAIL_ON_SUSPECT;
	rq->color = COLOR_AUTO;
	rq->sharing = SHARING_UNKNOWN;
}

int audit_execute(const struct audit_request *rq, struct err *e)
{
	switch (rq->command) {
	case CMD_FILE:
		return audit_file(rq, e);
	case CMD_TOOLS:
		return audit_tools(rq, e);
	case CMD_RUN:
		return audit_run(rq, e);
	case CMD_RUNS:
		return audit_runs(rq, e);
	case CMD_LINK:
		return audit_link(rq, e);
	case CMD_WHOAMI:
		return audit_whoami(rq, e);
	case CMD_LOGIN:
		return audit_login(rq, e);
	case CMD_LOGOUT:
		return audit_logout(rq, e);
	case CMD_NONE:
		break;
	}
	return err_set(e, ERR_USAGE, "no command given (see --help)");
}

static bool wants_color(const struct audit_request *rq, FILE *out)
{
	if (rq->color == COLOR_ALWAYS)
		return true;
	if (rq->color == COLOR_NEVER)
		return false;
	const char *term = getenv("TERM");
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(out));
}

FILE *audit_open_output(const struct audit_request *rq, struct err *e)
{
	if (!rq->output)
		return stdout;
	FILE *out = fopen(rq->output, "w");
	if (!out)
		err_set(e, ERR_USAGE, "cannot write %s: %s", rq->output, strerror(errno));
	return out;
}

int audit_close_output(const struct audit_request *rq, FILE *out, int rc, size_t n_findings, size_t n_suspect,
		       struct err *e)
{
	if (fflush(out) != 0 && rc == 0)
		rc = err_set(e, ERR_USAGE, "cannot write the report: %s", strerror(errno));
	if (ferror(out) && rc == 0)
		rc = err_set(e, ERR_USAGE, "cannot write the report");
	if (out != stdout)
		fclose(out);
	if (rc < 0)
		return -1;
	if (rq->fail_on == FAIL_ON_NEVER)
		return 0;
	size_t over = rq->fail_on == FAIL_ON_REEXECUTED ? n_findings : n_suspect;
	return over > 0 ? ERR_FINDINGS : 0;
}

int audit_emit_report(const struct audit_request *rq, struct report *r, struct err *e)
{
	report_summarize(r);
	FILE *out = audit_open_output(rq, e);
	if (!out)
		return -1;
	struct render_options ro = {.color = rq->format == FORMAT_TEXT && wants_color(rq, out),
				    .width = 80,
				    .view = rq->view,
				    .all_runs = rq->all_runs,
				    .threads = rq->threads};
	int rc = render_report(out, rq->format, r, &ro, e);
	return audit_close_output(rq, out, rc, r->n_findings, r->n_suspect, e);
}

static void forward_progress(double progress, double total, const char *message, void *ctx)
{
	const struct audit_request *rq = ctx;
	/* The message is the server's text: escaped before it reaches the terminal. */
	char *msg = message ? escape_terminal_dup(message, 200) : NULL;
	char line[512];
	if (total > 0)
		snprintf(line, sizeof line, "server progress %.0f/%.0f%s%s", progress, total, msg ? ": " : "",
			 msg ? msg : "");
	else
		snprintf(line, sizeof line, "server progress %.0f%s%s", progress, msg ? ": " : "", msg ? msg : "");
	free(msg);
	rq->progress(line, rq->msg_ctx);
}

void audit_mcp_options(const struct audit_request *rq, struct mcp_options *mo)
{
	memset(mo, 0, sizeof *mo);
	mo->client_name = "catalyst-audit";
	mo->client_version = CATALYST_AUDIT_VERSION;
	mo->timeout_ms = (rq->timeout_s > 0 ? rq->timeout_s : 60) * 1000;
	if (rq->progress) {
		mo->on_progress = forward_progress;
		mo->progress_ctx = (void *)rq;
	}
}
