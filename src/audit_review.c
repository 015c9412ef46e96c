/* `catalyst-audit review PATH...`: the activity code's hazards, no server
 * needed. Exit status as for findings: every hazard counts at any
 * --fail-on but never. */

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "file_in.h"
#include "render_info.h"
#include "review.h"

/* The fingerprints of a hazard list of a review report. */
static void add_prints(json_t *known, const json_t *hazards)
{
	size_t i;
	const json_t *h;
	json_array_foreach(hazards, i, h) {
		const char *fp = json_string_value(json_object_get(h, "fingerprint"));
		if (fp)
			json_object_set_new(known, fp, json_true());
	}
}

/* --baseline for review: an earlier `review -o json` report or its SARIF,
 * read as every baseline is (yours, writable by nobody else): the
 * fingerprints it holds, as an object's keys. NULL with e set. */
static json_t *review_baseline(const char *path, struct err *e)
{
	const struct file_in rules = {
		.what = "--baseline", .code = ERR_USAGE, .max = BASELINE_MAX_BYTES, .own = true, .text = true};
	char *text = NULL;
	size_t len = 0;
	int got = file_in_read(path, &rules, &text, &len, e);
	if (got == -2)
		err_set(e, ERR_USAGE, "--baseline %s: %s", path, strerror(ENOENT));
	if (got != 0)
		return NULL;
	json_error_t je;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	json_t *known = json_object();
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	const json_t *runs = json_object_get(doc, "runs");
	if (known && schema && strcmp(schema, "catalyst-audit.review/v1") == 0) {
		size_t i;
		const json_t *a;
		json_array_foreach(json_object_get(doc, "activities"), i, a)
			add_prints(known, json_object_get(a, "hazards"));
		add_prints(known, json_object_get(doc, "orchestrator_hazards"));
	} else if (known && json_is_array(runs)) {
		size_t i, k;
		const json_t *run, *r;
		json_array_foreach(runs, i, run)
			json_array_foreach(json_object_get(run, "results"), k, r) {
				const char *fp = json_string_value(json_object_get(
					json_object_get(r, "partialFingerprints"), "catalystAuditHazard/v1"));
				if (fp)
					json_object_set_new(known, fp, json_true());
			}
	} else if (known) {
		err_set(e, ERR_USAGE,
			"--baseline %s: not a catalyst-audit review report (-o json) or its SARIF (-o sarif)%s%s",
			path, doc ? "" : ": ", doc ? "" : je.text);
		json_decref(known);
		known = NULL;
	} else {
		err_oom(e);
	}
	json_decref(doc);
	return known;
}

int audit_review(const struct audit_request *rq, struct err *e)
{
	struct review rv;
	review_init(&rv);
	int rc = -1;
	if (review_paths(&rv, rq->files, rq->n_files, e) < 0)
		goto out;
	if (rq->baseline) {
		json_t *known = review_baseline(rq->baseline, e);
		if (!known)
			goto out;
		review_mark_known(&rv, known);
		json_decref(known);
	}
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (!out)
		goto out;
	struct render_options ro = {.verbose = rq->verbose};
	rc = audit_close_plain(&fo, render_review(out, rq->format, &rv, &ro, e), e);
	/* With a baseline only what it does not have fails the gate. */
	size_t counted = rv.has_baseline ? rv.n_new : rv.n_hazards;
	if (rc == 0 && counted && rq->fail_on != FAIL_ON_NEVER)
		rc = ERR_FINDINGS;
out:
	review_finish(&rv);
	return rc;
}

struct review *audit_load_source(const struct audit_request *rq, struct err *e)
{
	struct review *rv = malloc(sizeof *rv);
	if (!rv) {
		err_oom(e);
		return NULL;
	}
	review_init(rv);
	const char *paths[] = {rq->source};
	if (review_paths(rv, paths, 1, e) < 0) {
		audit_free_source(rv);
		return NULL;
	}
	return rv;
}

void audit_free_source(struct review *rv)
{
	review_finish(rv);
	free(rv);
}
