#include "audit.h"
#include "pager.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	rq->project = PROJECT_REF_DEFAULT;
}

static void say(void (*to)(const char *, void *), void *ctx, const char *fmt, va_list ap)
{
	if (!to)
		return;
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	to(msg, ctx);
}

void audit_warnf(const struct audit_request *rq, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(rq->warn, rq->msg_ctx, fmt, ap);
	va_end(ap);
}

void audit_notef(const struct audit_request *rq, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(rq->notice, rq->msg_ctx, fmt, ap);
	va_end(ap);
}

int audit_execute(const struct audit_request *rq, struct err *e)
{
	if (!rq->run)
		return err_set(e, ERR_USAGE, "no command given (see --help)");
	return rq->run(rq, e);
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

int audit_close_plain(FILE *out, struct err *e)
{
	int rc = 0;
	if (fflush(out) != 0)
		rc = err_set(e, ERR_USAGE, "cannot write the output: %s", strerror(errno));
	if (out != stdout)
		fclose(out);
	return rc;
}

/* The report rendered whole, then shown through the pager when it is
 * taller than the screen (git's way: the verdict's first screen stays
 * where the reader starts), else written as it is. */
static int emit_paged(const struct audit_request *rq, struct report *r, const struct render_options *ro,
		      struct err *e)
{
	char *data = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&data, &len);
	if (!mem)
		return err_set(e, ERR_INTERNAL, "out of memory");
	int rc = render_report(mem, rq->format, r, ro, e);
	if (fclose(mem) != 0 && rc == 0)
		rc = err_set(e, ERR_INTERNAL, "out of memory");
	if (rc == 0) {
		size_t lines = 0;
		for (size_t i = 0; i < len; i++)
			lines += data[i] == '\n';
		if (rq->screen_rows > 0 && lines >= (size_t)rq->screen_rows)
			rc = pager_write(rq->pager, data, len, e);
		else if (fwrite(data, 1, len, stdout) != len)
			rc = err_set(e, ERR_USAGE, "cannot write the report: %s", strerror(errno));
	}
	free(data);
	return audit_close_output(rq, stdout, rc, r->n_findings, r->n_suspect, e);
}

int audit_emit_report(const struct audit_request *rq, struct report *r, struct err *e)
{
	report_summarize(r);
	FILE *out = audit_open_output(rq, e);
	if (!out)
		return -1;
	/* COLOR_AUTO was the CLI's to resolve: here no terminal is asked. */
	struct render_options ro = {.color = rq->format == FORMAT_TEXT && rq->color == COLOR_ALWAYS,
				    .width = 80,
				    .view = rq->view,
				    .all_runs = rq->all_runs,
				    .threads = rq->threads,
				    .local_time = rq->local_time};
	if (rq->pager && out == stdout)
		return emit_paged(rq, r, &ro, e);
	int rc = render_report(out, rq->format, r, &ro, e);
	return audit_close_output(rq, out, rc, r->n_findings, r->n_suspect, e);
}
