/* `review`: the activities found and the hazards of their bodies, as text,
 * JSON (catalyst-audit.review/v1) and Markdown. Code quoted from the files
 * is outside text: escaped for the terminal and for Markdown. */

#include <jansson.h>
#include <stdlib.h>

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

static void text_hazard(FILE *out, const struct review_hazard *h)
{
	const struct review_hazard_row *row = &review_hazard_rows[h->kind];
	fputs("  ", out);
	put_term(out, h->file, 200);
	fprintf(out, ":%u  %s: ", h->line, row->id);
	put_term(out, h->detail, 300);
	if (h->helper) {
		fputs(" (in ", out);
		put_term(out, h->helper, 100);
		fputs(")", out);
	}
	fprintf(out, "\n    hazard table: %s -> a second run: %s\n    fix: %s\n", row->does, row->second_run,
		row->fix);
}

static void print_text(FILE *out, const struct review *rv)
{
	fprintf(out, "review: %zu activit%s in %zu source file%s (", rv->n_activities,
		rv->n_activities == 1 ? "y" : "ies", rv->n_files, rv->n_files == 1 ? "" : "s");
	bool first = true;
	for (int l = 0; l < REVIEW_LANG_COUNT; l++)
		if (rv->n_by_lang[l]) {
			fprintf(out, "%s%s %zu", first ? "" : ", ", review_lang_name((enum review_lang)l),
				rv->n_by_lang[l]);
			first = false;
		}
	fprintf(out, "%s), %zu hazard%s.\n", first ? "none" : "", rv->n_hazards, rv->n_hazards == 1 ? "" : "s");
	if (rv->n_skipped)
		fprintf(out, "%zu file%s not read (not regular files: FIFOs, devices, sockets).\n", rv->n_skipped,
			rv->n_skipped == 1 ? "" : "s");
	for (size_t i = 0; i < rv->n_activities; i++) {
		const struct review_activity *a = &rv->activities[i];
		fputs("\n", out);
		put_term(out, a->name, 120);
		fprintf(out, " (%s)  ", review_lang_name(a->lang));
		put_term(out, a->file, 200);
		fprintf(out, ":%u%s\n", a->line,
			a->defined ? "" : "  registered here; its definition is not in the source");
		if (a->defined && !a->n_hazards)
			fputs("  no hazard found\n", out);
		for (size_t k = 0; k < a->n_hazards; k++)
			text_hazard(out, &a->hazards[k]);
	}
	if (rv->n_orchestrator)
		fputs("\nOrchestrators:\n", out);
	for (size_t k = 0; k < rv->n_orchestrator; k++)
		text_hazard(out, &rv->orchestrator[k]);
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
		fprintf(out, " | %s |\n", row->fix);
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

static json_t *json_hazards(const struct review_hazard *h, size_t n)
{
	json_t *arr = json_array();
	for (size_t k = 0; arr && k < n; k++) {
		const struct review_hazard_row *row = &review_hazard_rows[h[k].kind];
		if (json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:s, s:s?, s:s, s:s}", "kind", row->id,
							 "file", h[k].file, "line", (json_int_t)h[k].line,
							 "detail", h[k].detail, "helper", h[k].helper, "table_row",
							 row->does, "fix", row->fix)) < 0) {
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
		json_array_append_new(acts, json_pack("{s:s, s:s, s:s, s:I, s:b, s:o*}", "name", a->name,
						      "language", review_lang_name(a->lang), "file", a->file,
						      "line", (json_int_t)a->line, "defined", a->defined,
						      "hazards", json_hazards(a->hazards, a->n_hazards)));
	}
	for (int l = 0; langs && l < REVIEW_LANG_COUNT; l++)
		if (rv->n_by_lang[l])
			json_object_set_new(langs, review_lang_name((enum review_lang)l),
					    json_integer((json_int_t)rv->n_by_lang[l]));
	return json_pack("{s:s, s:o*, s:o*, s:{s:I, s:I, s:I, s:I, s:o*}}", "schema", "catalyst-audit.review/v1",
			 "activities", acts, "orchestrator_hazards",
			 json_hazards(rv->orchestrator, rv->n_orchestrator), "summary", "activities",
			 (json_int_t)rv->n_activities, "hazards", (json_int_t)rv->n_hazards, "files",
			 (json_int_t)rv->n_files, "files_skipped", (json_int_t)rv->n_skipped, "languages", langs);
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
	(void)o;
	(void)e;
	print_text(out, rv);
	return 0;
}
