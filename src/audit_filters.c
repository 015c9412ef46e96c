/* What the filters of `runs` name: each repeatable filter's values split
 * and checked before any traffic, then the apps and workflows they name
 * checked against the project, so that a typo is an error (status 7) and
 * not a clean audit of nothing that keeps a gate green forever. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "audit_catalyst.h"
#include "suggest.h"

/* The names a list answer's items hold under one of the keys; NULL-free,
 * malloc'd (the caller frees each and the array). */
static char **item_names(const json_t *doc, const char *const *keys, size_t *n)
{
	const json_t *list = catalyst_find_list(doc, 2);
	size_t cap = json_array_size(list);
	char **names = calloc(cap ? cap : 1, sizeof *names);
	*n = 0;
	size_t i;
	const json_t *item;
	if (!names)
		return NULL;
	json_array_foreach(list, i, item) {
		char num[32];
		const char *name = catalyst_find_string(item, keys, 0, num);
		if (name && *name && (names[*n] = strdup(name)))
			(*n)++;
	}
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Each value split at commas, blanks around it trimmed, empty and repeated
 * ones left out. */
static int split(const struct audit_values *in, const char *label, char ***out, size_t *n, struct err *e)
{
	size_t cap = 0;
	for (size_t i = 0; i < in->n; i++)
		cap += 1 + strlen(in->v[i]); /* at most a value per byte */
	*out = calloc(cap ? cap : 1, sizeof **out);
	*n = 0;
	if (!*out)
		return err_oom(e);
	for (size_t i = 0; i < in->n; i++) {
		for (const char *p = in->v[i]; *p;) {
			size_t len = strcspn(p, ",");
			const char *s = p;
			size_t m = len;
			while (m && (*s == ' ' || *s == '\t'))
				s++, m--;
			while (m && (s[m - 1] == ' ' || s[m - 1] == '\t'))
				m--;
			p += len + (p[len] == ',');
			if (!m)
				continue;
			char *v = strndup(s, m);
			if (!v)
				return err_oom(e);
			bool dup = false;
			for (size_t k = 0; k < *n && !dup; k++)
				dup = strcmp((*out)[k], v) == 0;
			if (dup)
				free(v);
			else
				(*out)[(*n)++] = v;
		}
	}
	if (in->n && !*n)
		return err_set(e, ERR_USAGE, "%s: the value is empty", label);
	return 0;
}

int runs_filters_parse(const struct audit_request *rq, struct runs_filters *rf, struct catalyst_run_filter *f,
		       struct err *e)
{
	memset(rf, 0, sizeof *rf);
	if (split(&rq->filters.app, "--app", &rf->apps, &rf->n_apps, e) < 0 ||
	    split(&rq->filters.workflow, "--workflow", &rf->workflows, &rf->n_workflows, e) < 0 ||
	    split(&rq->filters.status, "--status", &rf->statuses, &rf->n_statuses, e) < 0)
		return -1;
	for (size_t i = 0; i < rf->n_statuses; i++) {
		char norm[32];
		catalyst_status_normalize(rf->statuses[i], norm, sizeof norm);
		if (!catalyst_status_valid(norm))
			return err_set(
				e, ERR_USAGE,
				"--status: expected running|completed|failed|terminated|suspended|canceled, got '%s'",
				rf->statuses[i]);
		free(rf->statuses[i]);
		if (!(rf->statuses[i] = strdup(norm)))
			return err_oom(e);
	}
	/* One value goes to the server; several are checked here (its filter
	 * takes one), and the report says so. */
	if (rf->n_apps == 1)
		f->app = rf->apps[0];
	else if (rf->n_apps > 1)
		f->apps = (const char *const *)rf->apps, f->n_apps = rf->n_apps;
	if (rf->n_statuses == 1)
		f->status = rf->statuses[0];
	else if (rf->n_statuses > 1)
		f->statuses = (const char *const *)rf->statuses, f->n_statuses = rf->n_statuses;
	return 0;
}

void runs_filters_finish(struct runs_filters *rf)
{
	free_names(rf->apps, rf->n_apps);
	free_names(rf->workflows, rf->n_workflows);
	free_names(rf->statuses, rf->n_statuses);
	free(rf->workflow_send);
	memset(rf, 0, sizeof *rf);
}

/* "a, b and c" of the values, for notes. */
static void joined(char *const *v, size_t n, char *out, size_t size)
{
	audit_join_names(v, n > 8 ? 8 : n, n > 8, out, size);
}

/* A name the project does not have: status 7, with the nearest one (in
 * any case: `Checkout` is near `checkout`), else the names there are. */
static int missing(struct err *e, const char *opt, const char *what, const char *value, const char *where,
		   char *const *names, size_t n, const char *how)
{
	const char *near = suggest_nearest(value, (const char *const *)names, n);
	if (near)
		return err_set(e, ERR_NOT_FOUND, "%s %s: %s has no %s of that name (%s); did you mean %s?", opt,
			       value, where, what, how, near);
	char known[600];
	joined(names, n, known, sizeof known);
	return err_set(e, ERR_NOT_FOUND, "%s %s: %s has no %s of that name (%s); it has %s", opt, value, where,
		       what, how, n ? known : "none");
}

/* The names a list tool answers (in the project, of app when given), read
 * under the first of keys an item has. NULL with *failed when the tool
 * failed (le says why), NULL otherwise when out of memory. */
static char **listed_names(struct audit_ctx *x, const char *tool, const char *app, const char *const *keys,
			   size_t *n, bool *failed, struct err *le)
{
	const char *vals[CATALYST_ARG_COUNT] = {
		[CATALYST_ARG_PROJECT] = x->project.value, [CATALYST_ARG_APP] = app};
	unsigned required = x->project.defaulted ? 0 : CATALYST_BIT(CATALYST_ARG_PROJECT);
	json_t *doc = NULL;
	err_clear(le);
	*failed = catalyst_invoke(x->c, tool, vals, required, NULL, &doc, NULL, NULL, le) < 0;
	if (*failed)
		return NULL;
	char **names = item_names(doc, keys, n);
	json_decref(doc);
	return names;
}

/* The apps of the project, from catalyst_list_apps. An app id tells case
 * (Dapr's app ids do), so `Checkout` is not `checkout`. */
static int check_apps(struct audit_ctx *x, struct runs_filters *rf, struct err *e)
{
	static const char tool[] = "catalyst_list_apps";
	static const char *const k_app[] = {"appid", "app", "appname", "applicationid", "id", "name", NULL};
	if (!rf->n_apps)
		return 0;
	char list[300];
	joined(rf->apps, rf->n_apps, list, sizeof list);
	if (!catalyst_has_tool(x->c, tool)) {
		report_add_note(x->r,
				"--app %s was not checked against the project's apps (the server offers no %s)",
				list, tool);
		return 0;
	}
	struct err le;
	size_t n;
	bool failed;
	char **names = listed_names(x, tool, NULL, k_app, &n, &failed, &le);
	if (failed) {
		report_add_note(x->r, "--app %s was not checked against the project's apps (%s)", list, le.msg);
		return 0;
	}
	if (!names)
		return err_oom(e);
	char where[300];
	snprintf(where, sizeof where, "project %s", x->project.value);
	int rc = 0;
	for (size_t i = 0; i < rf->n_apps && rc == 0; i++) {
		bool found = false;
		for (size_t k = 0; k < n && !found; k++)
			found = strcmp(names[k], rf->apps[i]) == 0;
		if (!found)
			rc = missing(e, "--app", "app", rf->apps[i], where, names, n, "app ids tell case");
	}
	free_names(names, n);
	return rc;
}

/* The workflows: each name must exist in some spelling (names match in any
 * case). One name: the server's spelling goes to its filter, as before.
 * Several: no workflow filter goes to the server; each listed run is
 * checked here, in any case. */
static int check_workflows(struct audit_ctx *x, struct runs_filters *rf, struct catalyst_run_filter *f,
			   struct err *e)
{
	static const char tool[] = "catalyst_list_workflows";
	static const char *const k_wf[] = {"workflowname", "name", "workflow", "workflowtype", NULL};
	if (!rf->n_workflows)
		return 0;
	char list[300];
	joined(rf->workflows, rf->n_workflows, list, sizeof list);
	if (rf->n_workflows > 1) {
		f->workflows = (const char *const *)rf->workflows;
		f->n_workflows = rf->n_workflows;
	} else {
		f->workflow_match = rf->workflows[0];
	}
	const char *app = rf->n_apps == 1 ? rf->apps[0] : NULL;
	if (!catalyst_has_tool(x->c, tool)) {
		report_add_note(
			x->r,
			"--workflow %s was matched here in any case over every listed run (the server offers "
			"no %s to look up its spelling)",
			list, tool);
		return 0;
	}
	struct err le;
	size_t n;
	bool failed;
	char **names = listed_names(x, tool, app, k_wf, &n, &failed, &le);
	if (failed) {
		report_add_note(x->r, "--workflow %s was matched here in any case over every listed run (%s)",
				list, le.msg);
		return 0;
	}
	if (!names)
		return err_oom(e);
	char where[300];
	if (app)
		snprintf(where, sizeof where, "app %s of project %s", app, x->project.value);
	else
		snprintf(where, sizeof where, "project %s", x->project.value);
	int rc = 0;
	for (size_t i = 0; i < rf->n_workflows && rc == 0; i++) {
		/* The distinct spellings of this name. */
		const char *spelling[8];
		size_t ns = 0;
		bool more = false;
		for (size_t k = 0; k < n; k++) {
			if (strcasecmp(names[k], rf->workflows[i]) != 0)
				continue;
			bool dup = false;
			for (size_t s = 0; s < ns && !dup; s++)
				dup = strcmp(spelling[s], names[k]) == 0;
			if (dup)
				continue;
			if (ns == sizeof spelling / sizeof *spelling)
				more = true;
			else
				spelling[ns++] = names[k];
		}
		if (ns == 0) {
			rc = missing(e, "--workflow", "workflow", rf->workflows[i], where, names, n,
				     "names match in any case");
			break;
		}
		if (rf->n_workflows > 1)
			continue;
		if (ns == 1) {
			if (!(rf->workflow_send = strdup(spelling[0]))) {
				rc = err_oom(e);
				break;
			}
			f->workflow = rf->workflow_send;
			if (strcmp(spelling[0], rf->workflows[i]) != 0)
				report_add_note(x->r,
						"--workflow %s matched the workflow %s (names match in any case)",
						rf->workflows[i], spelling[0]);
		} else {
			char sp[400];
			audit_join_names((char *const *)spelling, ns, more, sp, sizeof sp);
			report_add_note(
				x->r,
				"--workflow %s matched the workflows %s (names match in any case); they were "
				"picked here from every listed run",
				rf->workflows[i], sp);
		}
	}
	if (rc == 0 && rf->n_workflows > 1)
		report_add_note(
			x->r,
			"--workflow %s: several names, matched here in any case over every listed run (the "
			"server's filter takes one)",
			list);
	free_names(names, n);
	return rc;
}

int runs_filters_check(struct audit_ctx *x, struct runs_filters *rf, struct catalyst_run_filter *f, struct err *e)
{
	if (check_apps(x, rf, e) < 0 || check_workflows(x, rf, f, e) < 0)
		return -1;
	char list[300];
	if (rf->n_apps > 1) {
		joined(rf->apps, rf->n_apps, list, sizeof list);
		report_add_note(x->r,
				"--app %s: several apps, matched here over the listed runs (the server's "
				"filter takes one)",
				list);
	}
	if (rf->n_statuses > 1) {
		joined(rf->statuses, rf->n_statuses, list, sizeof list);
		report_add_note(x->r,
				"--status %s: several statuses, matched here over the listed runs (the "
				"server's filter takes one)",
				list);
	}
	return 0;
}
