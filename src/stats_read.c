/* Saved reports read back for `stats`: a catalyst-audit JSON report (one
 * indented document, or one on a line) or JSON Lines (a run a line, then a
 * summary line; lines of another "type" passed over), read a line at a
 * time so a JSON Lines file is never held whole. Untrusted input: fuzzed
 * by tests/fuzz/fuzz_stats_report.c. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalyst.h"
#include "stats.h"

/* A report line longer than this is no line of ours. */
#define MAX_LINE_BYTES (256u << 20)

/* What --app, --workflow, --status, --since and --until keep of a saved
 * run (the listing's filters, applied here: nothing is fetched). */
static bool keep_run(struct stats_filter *sf, const json_t *run)
{
	const char *app = json_string_value(json_object_get(run, "app_id"));
	const char *wf = json_string_value(json_object_get(run, "workflow"));
	const char *status = json_string_value(json_object_get(run, "status"));
	const char *started = json_string_value(json_object_get(run, "started_at"));
	if (sf->app && (!app || strcmp(app, sf->app) != 0))
		return false;
	if (sf->workflow && (!wf || strcasecmp(wf, sf->workflow) != 0))
		return false;
	if (sf->status) {
		char norm[32];
		if (!status || strcmp(catalyst_status_normalize(status, norm, sizeof norm), sf->status) != 0)
			return false;
	}
	if (sf->since || sf->until) {
		/* RFC 3339 UTC to the second, as the filters are written. */
		if (!started || strlen(started) < 19) {
			sf->no_start++;
			return false;
		}
		if (sf->since && strncmp(started, sf->since, 19) < 0)
			return false;
		if (sf->until && strncmp(started, sf->until, 19) > 0)
			return false;
	}
	return true;
}

/* One value of a report: a run object is folded in, a summary line or any
 * other object passed over (a later version's lines carry a "type"). */
static int take_value(struct stats *st, struct stats_filter *sf, const json_t *v, const char *path, size_t line,
		      struct err *e)
{
	const char *type = json_string_value(json_object_get(v, "type"));
	if (type && strcmp(type, "run") != 0)
		return 0;
	if (!json_object_get(v, "run_id") && !json_object_get(v, "activities"))
		return 0; /* the summary line */
	if (!keep_run(sf, v))
		return 0;
	if (stats_add_json_run(st, v, e) < 0)
		return err_prefix(e, "%s:%zu", path, line);
	return 0;
}

static int check_schema(const json_t *doc, const char *path, size_t line, struct err *e)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (schema && strcmp(schema, "catalyst-audit.report/v1") != 0)
		return err_set(e, ERR_INPUT, "%s:%zu: a %s document, not a catalyst-audit report", path, line,
			       schema);
	return 0;
}

int stats_read_report(struct stats *st, FILE *in, const char *path, struct stats_filter *sf, struct err *e)
{
	char *line = NULL;
	size_t cap = 0, no = 0;
	ssize_t len;
	int rc = 0;
	bool lines = true;
	while (rc == 0 && (len = getline(&line, &cap, in)) >= 0) {
		no++;
		if ((size_t)len > MAX_LINE_BYTES) {
			rc = err_set(e, ERR_INPUT, "%s:%zu: a line of over %u MiB", path, no,
				     MAX_LINE_BYTES >> 20);
			break;
		}
		size_t k = 0;
		while (k < (size_t)len && strchr(" \t\r\n", line[k]))
			k++;
		if (k == (size_t)len)
			continue;
		json_error_t je;
		json_t *v = json_loadb(line, (size_t)len, JSON_REJECT_DUPLICATES, &je);
		if (!v) {
			if (no == 1 || (line[k] == '{' && k + 1 < (size_t)len && strchr(" \t\r\n", line[k + 1]))) {
				/* An indented JSON document (--format json), not lines. */
				lines = false;
				break;
			}
			rc = err_set(e, ERR_INPUT, "%s:%zu: not a JSON line: %s", path, no, je.text);
			break;
		}
		if (!json_is_object(v))
			rc = err_set(e, ERR_INPUT, "%s:%zu: not a JSON object", path, no);
		else if (check_schema(v, path, no, e) < 0)
			rc = -1;
		else if (json_is_array(json_object_get(v, "runs"))) {
			/* A whole report on one line. */
			size_t i;
			const json_t *run;
			json_array_foreach(json_object_get(v, "runs"), i, run) {
				if ((rc = take_value(st, sf, run, path, no, e)) < 0)
					break;
			}
		} else
			rc = take_value(st, sf, v, path, no, e);
		json_decref(v);
	}
	free(line);
	if (rc == 0 && !lines) {
		/* The whole document: one file's runs at a time, never the set. */
		rewind(in);
		json_error_t je;
		json_t *doc = json_loadf(in, JSON_REJECT_DUPLICATES, &je);
		if (!doc)
			rc = err_set(e, ERR_INPUT, "%s:%d:%d: %s", path, je.line, je.column, je.text);
		else if (!json_is_array(json_object_get(doc, "runs")))
			rc = err_set(e, ERR_INPUT, "%s: not a catalyst-audit report (no \"runs\")", path);
		else if (check_schema(doc, path, 1, e) < 0)
			rc = -1;
		else {
			size_t i;
			const json_t *run;
			json_array_foreach(json_object_get(doc, "runs"), i, run) {
				if ((rc = take_value(st, sf, run, path, 1, e)) < 0)
					break;
			}
		}
		json_decref(doc);
	}
	if (rc == 0 && ferror(in))
		rc = err_set(e, ERR_USAGE, "cannot read %s: %s", path, strerror(errno));
	return rc;
}
