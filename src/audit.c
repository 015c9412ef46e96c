#include "audit.h"
#include "pager.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "file_in.h"
#include "render.h"
#include "version.h"

void audit_request_init(struct audit_request *rq)
{
	memset(rq, 0, sizeof *rq);
	rq->server = CATALYST_DEFAULT_SERVER;
	rq->client_metadata_url = CATALYST_CLIENT_METADATA_URL;
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

FILE *audit_open_output(const struct audit_request *rq, struct file_out *fo, struct err *e)
{
	if (!rq->output_file) {
		file_out_stdout(fo);
		return fo->f;
	}
	if (file_out_open(fo, rq->output_file, e) < 0)
		return NULL;
	return fo->f;
}

int audit_close_output(const struct audit_request *rq, struct file_out *fo, int rc, const struct report *counts,
		       struct err *e)
{
	if (rc < 0)
		file_out_abandon(fo);
	else if (file_out_commit(fo, e) < 0)
		rc = -1;
	if (rc < 0)
		return -1;
	if (rq->fail_on == FAIL_ON_NEVER)
		return 0;
	/* Findings the --baseline report holds are known: only new ones count. */
	size_t over = rq->fail_on == FAIL_ON_REEXECUTED ? counts->n_findings - counts->n_known
							: counts->n_suspect - counts->n_known_suspect;
	return over > 0 ? ERR_FINDINGS : 0;
}

int audit_close_plain(struct file_out *fo, int rc, struct err *e)
{
	if (rc < 0) {
		file_out_abandon(fo);
		return -1;
	}
	return file_out_commit(fo, e);
}

/* The report rendered whole, then shown through the pager when it is
 * taller than the screen (git's way: the verdict's first screen stays
 * where the reader starts), else written as it is. */
static int emit_paged(const struct audit_request *rq, struct file_out *fo, struct report *r,
		      const struct render_options *ro, struct err *e)
{
	char *data = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&data, &len);
	if (!mem)
		return err_oom(e);
	int rc = render_report(mem, rq->format, r, ro, e);
	if (fclose(mem) != 0 && rc == 0)
		rc = err_oom(e);
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
	return audit_close_output(rq, fo, rc, r, e);
}

struct render_options audit_render_options(const struct audit_request *rq)
{
	struct render_options o = rq->render;
	/* COLOR_AUTO was the CLI's to resolve: here no terminal is asked. */
	o.color = render_format_is(rq->format, FORMAT_TAKES_COLOR) && rq->color == COLOR_ALWAYS;
	o.width = 80;
	o.threads = rq->threads;
	o.local_time = o.local_time && render_format_is(rq->format, FORMAT_FOR_PEOPLE);
	return o;
}

struct event_parse_options audit_parse_options(const struct audit_request *rq)
{
	return (struct event_parse_options){.threads = rq->threads, .payload_text = rq->render.show_payloads};
}

int audit_emit_report(const struct audit_request *rq, struct report *r, struct err *e)
{
	report_summarize(r);
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (!out)
		return -1;
	struct render_options ro = audit_render_options(rq);
	if (rq->pager && out == stdout)
		return emit_paged(rq, &fo, r, &ro, e);
	int rc = render_report(out, rq->format, r, &ro, e);
	return audit_close_output(rq, &fo, rc, r, e);
}

void audit_report_meta(const struct audit_request *rq, struct report *r)
{
	static const char *const names[] = {[CMD_RUN] = "run", [CMD_RUNS] = "runs", [CMD_FILE] = "file"};
	struct report_meta *m = &r->meta;
	struct tm tm;
	if (gmtime_r(&rq->clock, &tm))
		strftime(m->generated_at, sizeof m->generated_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
	m->tool_version = CATALYST_AUDIT_VERSION;
	m->command = rq->command < sizeof names / sizeof *names ? names[rq->command] : NULL;
	m->baseline = rq->baseline;
	if (rq->command != CMD_FILE) {
		m->project_form = rq->project.form;
		m->project = rq->project.value;
	}
}

/* Each finding's "id" of one run object of a report into ids. */
static int baseline_run(const json_t *run, json_t *ids)
{
	size_t i;
	const json_t *f;
	json_array_foreach(json_object_get(run, "findings"), i, f) {
		const char *id = json_string_value(json_object_get(f, "id"));
		if (id && json_object_set_new(ids, id, json_true()) < 0)
			return -1;
	}
	return 0;
}

/* A report of a large project is tens of MiB; a baseline past this is not one. */

json_t *audit_load_baseline(const struct audit_request *rq, struct err *e)
{
	if (!rq->baseline)
		return NULL;
	/* What it lists is not reported as new: a file that can silence
	 * findings is yours and writable by nobody else. */
	const struct file_in rules = {
		.what = "--baseline", .code = ERR_USAGE, .max = BASELINE_MAX_BYTES, .own = true, .text = true};
	char *text = NULL;
	size_t len = 0;
	int got = file_in_read(rq->baseline, &rules, &text, &len, e);
	if (got == -2)
		err_set(e, ERR_USAGE, "--baseline %s: %s", rq->baseline, strerror(ENOENT));
	FILE *f = got == 0 ? fmemopen(text, len ? len : 1, "r") : NULL;
	if (!f) {
		if (got == 0)
			err_oom(e);
		free(text);
		return NULL;
	}
	json_t *ids = json_object();
	/* A JSON report is one document; a JSON Lines report one per line:
	 * read documents one after another either way. */
	json_error_t je;
	size_t n_docs = 0;
	bool report = false, failed = !ids;
	while (!failed) {
		json_t *doc = json_loadf(f, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je);
		if (!doc) {
			int c;
			while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
				;
			if (c != EOF || n_docs == 0) {
				err_set(e, ERR_USAGE, "--baseline %s: not a catalyst-audit report (%s, line %d)",
					rq->baseline, je.text, je.line);
				failed = true;
			}
			break;
		}
		n_docs++;
		const char *schema = json_string_value(json_object_get(doc, "schema"));
		const char *type = json_string_value(json_object_get(doc, "type"));
		if (schema && strcmp(schema, "catalyst-audit.report/v1") == 0) {
			report = true;
			size_t i;
			const json_t *run;
			json_array_foreach(json_object_get(doc, "runs"), i, run)
				failed |= baseline_run(run, ids) < 0;
		} else if (type && strcmp(type, "run") == 0) {
			failed |= baseline_run(doc, ids) < 0;
		}
		json_decref(doc);
	}
	fclose(f);
	free(text);
	if (!failed && !report) {
		err_set(e, ERR_USAGE,
			"--baseline %s: not a catalyst-audit report (no \"schema\": "
			"\"catalyst-audit.report/v1\")",
			rq->baseline);
		failed = true;
	}
	if (failed) {
		if (!e->code)
			err_oom(e);
		json_decref(ids);
		return NULL;
	}
	return ids;
}
