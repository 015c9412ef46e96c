/* `review`: the activities found and the hazards of their bodies, as text,
 * JSON (catalyst-audit.review/v1) and Markdown. Code quoted from the files
 * is outside text: escaped for the terminal and for Markdown. */

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "render_info.h"
#include "review.h"

static void put_term(FILE *out, const char *s, size_t max)
{
	char *safe = escape_terminal_dup(s, max);
	fputs(safe ? safe : "?", out);
	free(safe);
}

static void put_md(FILE *out, const char *s, enum escape_md_context ctx)
{
	char *safe = escape_markdown_dup(s, ctx);
	fputs(safe ? safe : "?", out);
	free(safe);
}

/* A hazard with the activity it is in, for the one list of a file. */
struct located {
	const struct review_hazard *h;
	const char *activity; /* NULL: an orchestrator's */
	const char *rel;      /* the file under the path reviewed */
};

static int by_place(const void *a, const void *b)
{
	const struct located *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);
	if (c)
		return c;
	if (x->h->line != y->h->line)
		return x->h->line < y->h->line ? -1 : 1;
	return (x->h->col > y->h->col) - (x->h->col < y->h->col);
}

/* Every hazard, activities' and orchestrators', in file and line order;
 * NULL with *n 0 when there is none (or no memory: then *oom). */
static struct located *located_all(const struct review *rv, size_t *n, bool *oom)
{
	*n = 0;
	*oom = false;
	if (!rv->n_hazards)
		return NULL;
	struct located *all = calloc(rv->n_hazards, sizeof *all);
	if (!all) {
		*oom = true;
		return NULL;
	}
	size_t root;
	for (size_t i = 0; i < rv->n_activities; i++)
		for (size_t k = 0; k < rv->activities[i].n_hazards && *n < rv->n_hazards; k++) {
			const struct review_hazard *h = &rv->activities[i].hazards[k];
			all[(*n)++] = (struct located){h, rv->activities[i].name,
						       review_relative_path(rv, h->file, &root)};
		}
	for (size_t k = 0; k < rv->n_orchestrator && *n < rv->n_hazards; k++) {
		const struct review_hazard *h = &rv->orchestrator[k];
		all[(*n)++] = (struct located){h, NULL, review_relative_path(rv, h->file, &root)};
	}
	qsort(all, *n, sizeof *all, by_place);
	return all;
}

/* A path as the text names it: under the one path reviewed, relative to
 * it; with several, as found (each under its own). */
static const char *shown_path(const struct review *rv, const char *file)
{
	size_t root;
	return rv->n_roots > 1 ? file : review_relative_path(rv, file, &root);
}

static void text_languages(FILE *out, const struct review *rv)
{
	bool first = true;
	for (int l = 0; l < REVIEW_LANG_COUNT; l++)
		if (rv->n_by_lang[l]) {
			fprintf(out, "%s%s %zu", first ? "" : ", ", review_lang_name((enum review_lang)l),
				rv->n_by_lang[l]);
			first = false;
		}
	if (first)
		fputs("none", out);
}

/* --verbose: every activity, with or without hazards, as before the
 * linter's view. */
static void text_activities(FILE *out, const struct review *rv)
{
	fputs("\nActivities:\n", out);
	for (size_t i = 0; i < rv->n_activities; i++) {
		const struct review_activity *a = &rv->activities[i];
		fputs("  ", out);
		put_term(out, a->name, 120);
		fprintf(out, " (%s)  ", review_lang_name(a->lang));
		put_term(out, shown_path(rv, a->file), 200);
		fprintf(out, ":%u  %s\n", a->line,
			!a->defined    ? "registered here; its definition is not in the source"
			: a->n_hazards ? "hazards above"
				       : "no hazard found");
	}
}

static void text_suppressed(FILE *out, const struct review *rv)
{
	fputs("\nSilenced by comments:\n", out);
	for (size_t i = 0; i < rv->n_suppressed; i++) {
		const struct review_suppressed *s = &rv->suppressed[i];
		fputs("  ", out);
		put_term(out, shown_path(rv, s->hazard.file), 200);
		fprintf(out, ":%u  %s  ", s->hazard.line, review_hazard_rows[s->hazard.kind].id);
		put_term(out, s->activity ? s->activity : "(orchestrator)", 120);
		fprintf(out, " (comment at line %u: ", s->comment_line);
		put_term(out, s->reason ? s->reason : "no reason given", 200);
		fputs(")\n", out);
	}
}

/* A linter's view: the path once, then a line per hazard (line:col, the
 * rule, the activity and what its code does), each one's why and fix
 * naming its call, and a summary. */
static void print_text(FILE *out, const struct review *rv, bool verbose)
{
	size_t n;
	bool oom;
	struct located *all = located_all(rv, &n, &oom);
	const char *file = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct located *l = &all[i];
		const char *path = shown_path(rv, l->h->file);
		if (!file || strcmp(file, path) != 0) {
			fputs(file ? "\n" : "", out);
			put_term(out, path, 300);
			fputc('\n', out);
			file = path;
		}
		fprintf(out, "  %u:%u  %s%s  ", l->h->line, l->h->col ? l->h->col : 1,
			review_hazard_rows[l->h->kind].id, rv->has_baseline && l->h->known ? " (known)" : "");
		put_term(out, l->activity ? l->activity : "(orchestrator)", 120);
		if (l->h->helper) {
			fputs(" (in ", out);
			put_term(out, l->h->helper, 100);
			fputc(')', out);
		}
		fputs(": ", out);
		put_term(out, l->h->detail, 300);
		fputc('\n', out);
	}
	/* each hazard's why and fix, fitted to its call, the path once again */
	if (n)
		fputs("\nWhy, and the fix:\n", out);
	file = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct review_hazard *h = all[i].h;
		const char *path = shown_path(rv, h->file);
		if (!file || strcmp(file, path) != 0) {
			fputs("  ", out);
			put_term(out, path, 300);
			fputc('\n', out);
			file = path;
		}
		fprintf(out, "    %u  %s: ", h->line, review_hazard_rows[h->kind].id);
		put_term(out, h->why, 400);
		fputs(". Fix: ", out);
		put_term(out, h->fix, 400);
		fputs(".\n", out);
	}
	free(all);
	if (verbose)
		text_activities(out, rv);
	if (verbose && rv->n_suppressed)
		text_suppressed(out, rv);
	fprintf(out, "%s%zu hazard%s", n || verbose ? "\n" : "", rv->n_hazards, rv->n_hazards == 1 ? "" : "s");
	if (rv->has_baseline)
		fprintf(out, " (%zu new, %zu known from the baseline)", rv->n_new, rv->n_hazards - rv->n_new);
	if (rv->n_suppressed)
		fprintf(out, ", %zu silenced by comments%s", rv->n_suppressed,
			verbose ? "" : " (--verbose lists them)");
	fprintf(out, "; %zu activit%s in %zu source file%s (", rv->n_activities,
		rv->n_activities == 1 ? "y" : "ies", rv->n_files, rv->n_files == 1 ? "" : "s");
	text_languages(out, rv);
	fputs(")", out);
	if (!verbose && rv->n_activities)
		fputs("; --verbose lists the activities", out);
	fputs(".\n", out);
	if (rv->n_skipped)
		fprintf(out, "%zu file%s not read (not regular files: FIFOs, devices, sockets).\n", rv->n_skipped,
			rv->n_skipped == 1 ? "" : "s");
	if (oom)
		fputs("(out of memory: the hazards could not be listed)\n", out);
}

static void md_hazard_rows(FILE *out, const char *activity, const struct review_hazard *h, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct review_hazard_row *row = &review_hazard_rows[h[k].kind];
		fputs("| ", out);
		put_md(out, activity, ESCAPE_MD_CELL);
		fputs(" | ", out);
		put_md(out, h[k].file, ESCAPE_MD_CELL);
		fprintf(out, ":%u | `%s` | ", h[k].line, row->id);
		put_md(out, h[k].detail, ESCAPE_MD_CELL);
		if (h[k].helper) {
			fputs(" (in ", out);
			put_md(out, h[k].helper, ESCAPE_MD_CELL);
			fputs(")", out);
		}
		fputs(" | ", out);
		put_md(out, h[k].fix, ESCAPE_MD_CELL);
		fputs(" |\n", out);
	}
}

static void print_markdown(FILE *out, const struct review *rv)
{
	fprintf(out, "# Activity code review\n\n%zu activities in %zu source files, %zu hazards.\n\n",
		rv->n_activities, rv->n_files, rv->n_hazards);
	fputs("| activity | language | defined at |\n| --- | --- | --- |\n", out);
	for (size_t i = 0; i < rv->n_activities; i++) {
		const struct review_activity *a = &rv->activities[i];
		fputs("| ", out);
		put_md(out, a->name, ESCAPE_MD_CELL);
		fprintf(out, " | %s | ", review_lang_name(a->lang));
		put_md(out, a->file, ESCAPE_MD_CELL);
		fprintf(out, ":%u%s |\n", a->line, a->defined ? "" : " (registered; not defined in the source)");
	}
	if (rv->n_suppressed)
		fprintf(out,
			"\n%zu hazard%s silenced by `catalyst-audit: ignore` comments (not listed; the JSON "
			"report's `suppressed` has them).\n",
			rv->n_suppressed, rv->n_suppressed == 1 ? "" : "s");
	if (!rv->n_hazards) {
		fputs("\nNo hazard found.\n", out);
		return;
	}
	fputs("\n## Hazards\n\n| activity | where | hazard | what the code does | fix |\n"
	      "| --- | --- | --- | --- | --- |\n",
	      out);
	for (size_t i = 0; i < rv->n_activities; i++)
		md_hazard_rows(out, rv->activities[i].name, rv->activities[i].hazards,
			       rv->activities[i].n_hazards);
	md_hazard_rows(out, "(orchestrator)", rv->orchestrator, rv->n_orchestrator);
}

static json_t *json_hazards(const struct review *rv, const char *activity, const struct review_hazard *h, size_t n)
{
	json_t *arr = json_array();
	for (size_t k = 0; arr && k < n; k++) {
		const struct review_hazard_row *row = &review_hazard_rows[h[k].kind];
		char fp[33];
		review_fingerprint(rv, &h[k], activity, fp);
		json_t *one = json_pack("{s:s, s:s, s:I, s:I, s:s, s:s?, s:s, s:s, s:s, s:s}", "kind", row->id,
					"file", h[k].file, "line", (json_int_t)h[k].line, "col",
					(json_int_t)(h[k].col ? h[k].col : 1), "detail", h[k].detail, "helper",
					h[k].helper, "table_row", row->does, "why", h[k].why, "fix", h[k].fix,
					"fingerprint", fp);
		if (one && rv->has_baseline)
			json_object_set_new(one, "known", json_boolean(h[k].known));
		if (json_array_append_new(arr, one) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *json_suppressed(const struct review *rv)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < rv->n_suppressed; i++) {
		const struct review_suppressed *s = &rv->suppressed[i];
		if (json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:s?, s:s?, s:I, s:s}", "kind",
							 review_hazard_rows[s->hazard.kind].id, "file",
							 s->hazard.file, "line", (json_int_t)s->hazard.line,
							 "activity", s->activity, "reason", s->reason,
							 "comment_line", (json_int_t)s->comment_line, "detail",
							 s->hazard.detail)) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *json_review(const struct review *rv)
{
	json_t *acts = json_array(), *langs = json_object();
	for (size_t i = 0; acts && i < rv->n_activities; i++) {
		const struct review_activity *a = &rv->activities[i];
		json_array_append_new(acts,
				      json_pack("{s:s, s:s, s:s, s:I, s:b, s:o*}", "name", a->name, "language",
						review_lang_name(a->lang), "file", a->file, "line",
						(json_int_t)a->line, "defined", a->defined, "hazards",
						json_hazards(rv, a->name, a->hazards, a->n_hazards)));
	}
	for (int l = 0; langs && l < REVIEW_LANG_COUNT; l++)
		if (rv->n_by_lang[l])
			json_object_set_new(langs, review_lang_name((enum review_lang)l),
					    json_integer((json_int_t)rv->n_by_lang[l]));
	json_t *doc = json_pack("{s:s, s:o*, s:o*, s:o*, s:{s:I, s:I, s:I, s:I, s:I, s:o*}}", "schema",
				"catalyst-audit.review/v1", "activities", acts, "orchestrator_hazards",
				json_hazards(rv, "(orchestrator)", rv->orchestrator, rv->n_orchestrator),
				"suppressed", json_suppressed(rv), "summary", "activities",
				(json_int_t)rv->n_activities, "hazards", (json_int_t)rv->n_hazards, "suppressed",
				(json_int_t)rv->n_suppressed, "files", (json_int_t)rv->n_files, "files_skipped",
				(json_int_t)rv->n_skipped, "languages", langs);
	if (doc && rv->has_baseline)
		json_object_set_new(json_object_get(doc, "summary"), "new", json_integer((json_int_t)rv->n_new));
	return doc;
}

int render_review_json(FILE *out, const struct review *rv, const struct render_options *o, struct err *e)
{
	(void)o;
	json_t *doc = json_review(rv);
	if (!doc)
		return err_oom(e);
	int rc = render_json_dump(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return rc < 0 ? err_set(e, ERR_INTERNAL, "review: the JSON could not be written") : 0;
}

int render_review_markdown(FILE *out, const struct review *rv, const struct render_options *o, struct err *e)
{
	(void)o;
	(void)e;
	print_markdown(out, rv);
	return 0;
}

int render_review_text(FILE *out, const struct review *rv, const struct render_options *o, struct err *e)
{
	(void)e;
	print_text(out, rv, o && o->verbose);
	return 0;
}
