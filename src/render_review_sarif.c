/* `review -o sarif`: SARIF 2.1.0, the format GitHub code scanning and most
 * editors read. One rule per hazard of doc/hazards.md with its help text;
 * one result per hazard found, located relative to the path reviewed (its
 * uriBaseId names that folder), with a fingerprint that survives the code
 * around it moving: the rule, the file, the activity and what the code
 * does, without line numbers. */

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_info.h"
#include "review.h"
#include "version.h"

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#define FINGERPRINT_KEY "catalystAuditHazard/v1"

/* RFC 3986: what a path may keep in a URI; the rest is %XX. */
static char *uri_encode(const char *s, bool dir)
{
	size_t n = strlen(s);
	char *out = malloc(n * 3 + 2);
	if (!out)
		return NULL;
	size_t k = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			out[k++] = (char)*p;
		else
			k += (size_t)snprintf(out + k, 4, "%%%02X", *p);
	}
	if (dir && (k == 0 || out[k - 1] != '/'))
		out[k++] = '/';
	out[k] = '\0';
	return out;
}

static void base_id(char *buf, size_t size, size_t root)
{
	if (root == 0)
		snprintf(buf, size, "SRCROOT");
	else
		snprintf(buf, size, "SRCROOT%zu", root + 1);
}

static json_t *rules(void)
{
	json_t *list = json_array();
	for (int k = 0; list && k < HAZARD_KIND_COUNT; k++) {
		const struct review_hazard_row *r = &review_hazard_rows[k];
		char *full = NULL, *help = NULL, *md = NULL;
		if (asprintf(&full, "The activity %s. A second run: %s.", r->does, r->second_run) < 0)
			full = NULL;
		if (asprintf(&help, "Why it is a hazard, on a second run: %s. Fix: %s.", r->second_run, r->fix) <
		    0)
			help = NULL;
		if (asprintf(&md, "**Why it is a hazard, on a second run:** %s.\n\n**Fix:** %s.", r->second_run,
			     r->fix) < 0)
			md = NULL;
		json_t *rule = full && help && md
				       ? json_pack("{s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s}, s:{s:[s, s]}}",
						   "id", r->id, "shortDescription", "text", r->does,
						   "fullDescription", "text", full, "help", "text", help,
						   "markdown", md, "defaultConfiguration", "level", "warning",
						   "properties", "tags", "idempotency", "dapr-workflow")
				       : NULL;
		free(full);
		free(help);
		free(md);
		if (!rule || json_array_append_new(list, rule) < 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

/* One result per hazard; a silenced one (reason non-NULL or silenced)
 * carries its in-source suppression, as GitHub shows it dismissed. */
static int add_results(json_t *results, const struct review *rv, const char *activity, const char *language,
		       const struct review_hazard *h, size_t n, const struct review_suppressed *silenced)
{
	for (size_t i = 0; i < n; i++) {
		const struct review_hazard_row *row = &review_hazard_rows[h[i].kind];
		const char *rel;
		size_t root;
		rel = review_relative_path(rv, h[i].file, &root);
		char base[32], fp[33];
		base_id(base, sizeof base, root);
		review_fingerprint(rv, &h[i], activity, fp);
		char *uri = uri_encode(rel, false), *text = NULL;
		if (asprintf(&text, "%s%s%s%s: %s. Why: %s. Fix: %s.", activity, h[i].helper ? " (in " : "",
			     h[i].helper ? h[i].helper : "", h[i].helper ? ")" : "", h[i].detail, h[i].why,
			     h[i].fix) < 0)
			text = NULL;
		json_t *r =
			uri && text
				? json_pack(
					  "{s:s, s:i, s:s, s:{s:s}, s:[{s:{s:{s:s, s:s}, s:{s:i, s:i}}}], s:{s:s}, "
					  "s:{s:s, s:s?}}",
					  "ruleId", row->id, "ruleIndex", (int)h[i].kind, "level", "warning",
					  "message", "text", text, "locations", "physicalLocation",
					  "artifactLocation", "uri", uri, "uriBaseId", base, "region", "startLine",
					  (int)(h[i].line ? h[i].line : 1), "startColumn",
					  (int)(h[i].col ? h[i].col : 1), "partialFingerprints", FINGERPRINT_KEY,
					  fp, "properties", "activity", activity, "language", language)
				: NULL;
		free(uri);
		free(text);
		if (r && silenced) {
			json_t *sup = json_pack("{s:s}", "kind", "inSource");
			if (sup && silenced->reason)
				json_object_set_new(sup, "justification", json_string(silenced->reason));
			json_object_set_new(r, "suppressions", json_pack("[o]", sup));
		} else if (r && rv->has_baseline) {
			json_object_set_new(r, "baselineState", json_string(h[i].known ? "unchanged" : "new"));
		}
		if (!r || json_array_append_new(results, r) < 0)
			return -1;
	}
	return 0;
}

static json_t *base_ids(const struct review *rv)
{
	json_t *ids = json_object();
	for (size_t i = 0; ids && i < rv->n_roots; i++) {
		char abs[PATH_MAX], base[32];
		const char *r = realpath(rv->roots[i], abs) ? abs : rv->roots[i];
		char *enc = uri_encode(r, true), *uri = NULL;
		if (!enc || asprintf(&uri, "file://%s", enc) < 0)
			uri = NULL;
		free(enc);
		base_id(base, sizeof base, i);
		if (!uri || json_object_set_new(ids, base, json_pack("{s:s}", "uri", uri)) < 0) {
			free(uri);
			json_decref(ids);
			return NULL;
		}
		free(uri);
	}
	return ids;
}

int render_review_sarif(FILE *out, const struct review *rv, const struct render_options *o, struct err *e)
{
	(void)o;
	json_t *results = json_array();
	bool ok = results != NULL;
	for (size_t i = 0; ok && i < rv->n_activities; i++) {
		const struct review_activity *a = &rv->activities[i];
		ok = add_results(results, rv, a->name, review_lang_name(a->lang), a->hazards, a->n_hazards,
				 NULL) == 0;
	}
	ok = ok &&
	     add_results(results, rv, "(orchestrator)", NULL, rv->orchestrator, rv->n_orchestrator, NULL) == 0;
	for (size_t i = 0; ok && i < rv->n_suppressed; i++) {
		const struct review_suppressed *s = &rv->suppressed[i];
		ok = add_results(results, rv, s->activity ? s->activity : "(orchestrator)", NULL, &s->hazard, 1,
				 s) == 0;
	}
	json_t *doc = ok ? json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:s, s:o*}}, s:o*, s:o, s:[{s:b}]}]}",
				     "$schema", SARIF_SCHEMA, "version", "2.1.0", "runs", "tool", "driver", "name",
				     "catalyst-audit", "version", CATALYST_AUDIT_VERSION, "semanticVersion",
				     CATALYST_AUDIT_VERSION, "rules", rules(), "originalUriBaseIds", base_ids(rv),
				     "results", results, "invocations", "executionSuccessful", true)
			 : NULL;
	if (!doc) {
		if (!ok)
			json_decref(results);
		return err_oom(e);
	}
	int rc = render_json_dump(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return rc < 0 ? err_set(e, ERR_INTERNAL, "review: the SARIF could not be written") : 0;
}
