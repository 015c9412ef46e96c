/* The fleet view of `stats` as text, Markdown and JSON: formats the ranked
 * rows and nothing else (stats_rank computed every figure); every name and
 * message from a server or a report is escaped for where it goes. */

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "render.h"
#include "render_text_internal.h"
#include "stats.h"

/* Rows that get a detail section (findings, failures, the latest suspect
 * run, the remedy) in text and Markdown; JSON carries every row whole. */
#define DETAIL_ROWS 10
/* Characters of an error message shown in text and Markdown. */
#define MESSAGE_SHOWN 120

#define SCHEMA_ID "catalyst-audit.stats/v1"

/* The kinds in the order a row lists them: suspect kinds first. */
static size_t kinds_in_order(enum finding_kind out[FINDING_KIND_COUNT])
{
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < FINDING_KIND_COUNT; k++)
			if ((finding_kind_severity((enum finding_kind)k) == SEVERITY_SUSPECT) == (pass == 0))
				out[n++] = (enum finding_kind)k;
	return n;
}

static const char *project_label(const struct stats_row *r)
{
	return r->project ? r->project : "-";
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *jstr_or_null(const char *s)
{
	if (!s)
		return json_null();
	json_t *v = json_string(s);
	if (!v) {
		/* Not valid UTF-8 (a history's bytes): shown repaired, never dropped. */
		char *fixed = escape_utf8_repair_dup(s);
		v = fixed ? json_string(fixed) : NULL;
		free(fixed);
	}
	return v;
}

static json_t *project_json(const struct stats_row *r)
{
	if (!r->project)
		return json_null();
	if (r->project_form == PROJECT_UID)
		return json_pack("{s:o}", "uid", jstr_or_null(r->project));
	/* A value whose form is unknown went into the report as a name. */
	return json_pack("{s:o}", "name", jstr_or_null(r->project));
}

static json_t *row_json(const struct stats_row *r, size_t rank, bool by_version)
{
	enum finding_kind order[FINDING_KIND_COUNT];
	size_t nk = kinds_in_order(order);
	json_t *kinds = json_array();
	for (size_t i = 0; i < nk; i++)
		if (r->kinds[order[i]])
			json_array_append_new(kinds,
					      json_pack("{s:s,s:s,s:I}", "kind", finding_kind_id(order[i]),
							"severity", severity_name(finding_kind_severity(order[i])),
							"count", (json_int_t)r->kinds[order[i]]));
	json_t *failures = json_array();
	for (int c = 0; c < STATS_CLASS_COUNT; c++) {
		const struct stats_failures *fl = &r->failures[c];
		if (!fl->attempts)
			continue;
		json_t *msgs = json_array();
		for (size_t i = 0; i < r->n_shown[c]; i++) {
			const struct stats_message *m = &fl->slots[r->order[c][i]];
			json_array_append_new(msgs, json_pack("{s:o,s:I}", "message", jstr_or_null(m->message),
							      "count", (json_int_t)m->count));
		}
		json_array_append_new(failures, json_pack("{s:s,s:I,s:o,s:b}", "class",
							  stats_class_name((enum stats_class)c), "attempts",
							  (json_int_t)fl->attempts, "messages", msgs, "estimated",
							  fl->estimated));
	}
	json_t *latest = json_null();
	if (r->latest.run_id) {
		latest = json_pack("{s:o,s:o,s:o,s:o}", "app_id", jstr_or_null(r->latest.app_id), "run_id",
				   jstr_or_null(r->latest.run_id), "started_at",
				   jstr_or_null(r->latest.started_at), "console_link",
				   jstr_or_null(r->latest.console_link));
		if (latest && r->latest.link_note)
			json_object_set_new(latest, "link_note", jstr_or_null(r->latest.link_note));
	}
	json_t *row = json_pack(
		"{s:I,s:o,s:o,s:o,s:b,s:I,s:I,s:I,s:f,s:{s:I,s:I,s:I},s:{s:I,s:I,s:o},s:o,s:o,s:o}", "rank",
		(json_int_t)rank, "project", project_json(r), "app_id", jstr_or_null(r->app_id), "name",
		jstr_or_null(r->name), "child_workflow", r->child_workflow, "runs", (json_int_t)r->runs,
		"invocations", (json_int_t)r->invocations, "reexecuted", (json_int_t)r->reexecuted,
		"reexecuted_share", r->reexecuted_share, "attempts", "median", (json_int_t)r->attempts_median,
		"p95", (json_int_t)r->attempts_p95, "max", (json_int_t)r->attempts_max, "findings", "suspect",
		(json_int_t)r->suspect, "notice", (json_int_t)r->notice, "by_kind", kinds, "failures", failures,
		"latest_suspect_run", latest, "remedy", jstr_or_null(r->remedy));
	/* Only when grouped by it: then null is a run that named none. */
	if (row && by_version)
		json_object_set_new(row, "version", jstr_or_null(r->version));
	return row;
}

/* JSON Lines: the same document on one line. */
static int stats_json(FILE *out, const struct stats *st, bool one_line, struct err *e)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < st->n_rows; i++) {
		json_t *row = row_json(st->rows[i], i + 1, st->by_version);
		if (!row || json_array_append_new(rows, row) < 0) {
			json_decref(rows);
			return err_oom(e);
		}
	}
	json_t *notes = json_array();
	for (size_t i = 0; i < st->n_notes; i++)
		json_array_append_new(notes, jstr_or_null(st->notes[i]));
	json_t *doc = json_pack("{s:s,s:s,s:{s:I,s:I,s:I,s:I,s:I,s:b},s:o,s:o}", "schema", SCHEMA_ID, "source",
				st->source == STATS_FROM_SERVER ? "server" : "reports", "summary", "runs",
				(json_int_t)st->runs, "failed_runs", (json_int_t)st->failed_runs, "repeats",
				(json_int_t)st->repeats, "reports", (json_int_t)st->reports, "projects",
				(json_int_t)st->projects, "partial", st->partial, "activities", rows, "notes",
				notes);
	if (!doc)
		return err_oom(e);
	int rc = render_json_dump(doc, out,
				  (one_line ? JSON_COMPACT : JSON_INDENT(2)) | JSON_PRESERVE_ORDER |
					  JSON_REAL_PRECISION(6));
	json_decref(doc);
	if (rc < 0)
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}

/* ---- text and Markdown ------------------------------------------------------ */

struct out {
	FILE *f;
	bool md;
	bool color; /* text on a terminal that takes it: --color */
	struct buf tmp[4];
	size_t next;
};

/* s escaped for the output (text: the terminal; Markdown: ctx), cut at
 * max characters (0: whole); "" for NULL. Valid for 4 more calls. */
static const char *esc(struct out *o, const char *s, size_t max, enum escape_md_context ctx)
{
	if (!s)
		return "";
	struct buf *b = &o->tmp[o->next++ % 4];
	buf_reset(b);
	if (o->md) {
		char *cut = max && strlen(s) > max ? strndup(s, max) : NULL;
		if (escape_markdown(b, cut ? cut : s, strlen(cut ? cut : s), ctx, NULL) < 0 ||
		    (cut && buf_append(b, "...", 3, NULL) < 0)) {
			free(cut);
			return "";
		}
		free(cut);
	} else if (escape_terminal(b, s, strlen(s), max, NULL) < 0) {
		return "";
	}
	return b->data ? b->data : "";
}

static const char *row_name(const struct stats_row *r)
{
	return r->name ? r->name : "(no activity)";
}

/* The row's activity as a table shows it, escaped: with --by-version, the
 * version after it ("ChargeCard [version 7]", "[no version]" for runs
 * whose history names none). */
static const char *row_label(struct out *o, const struct stats *st, const struct stats_row *r,
			     enum escape_md_context ctx)
{
	if (!st->by_version)
		return esc(o, row_name(r), 0, ctx);
	char *label = NULL;
	if (asprintf(&label, "%s [%s%s]", row_name(r), r->version ? "version " : "no version",
		     r->version ? r->version : "") < 0)
		return "";
	const char *shown = esc(o, label, 0, ctx);
	free(label);
	return shown;
}

static void summary_line(struct out *o, const struct stats *st)
{
	size_t with_suspect = 0;
	for (size_t i = 0; i < st->n_rows; i++)
		with_suspect += st->rows[i]->suspect > 0;
	fprintf(o->f, "%zu run%s, %zu activit%s and child workflows; %zu with suspect findings.", st->runs,
		st->runs == 1 ? "" : "s", st->n_rows, st->n_rows == 1 ? "y" : "ies", with_suspect);
	if (st->source == STATS_FROM_REPORTS)
		fprintf(o->f, " From %zu saved report%s (%zu run%s met again in an older report left out).",
			st->reports, st->reports == 1 ? "" : "s", st->repeats, st->repeats == 1 ? "" : "s");
	if (st->failed_runs)
		fprintf(o->f, " %zu run%s could not be audited.", st->failed_runs,
			st->failed_runs == 1 ? "" : "s");
	if (st->partial)
		fprintf(o->f, " PARTIAL: more runs may exist (see the notes).");
	fputc('\n', o->f);
}

static void share(char *buf, size_t size, const struct stats_row *r)
{
	snprintf(buf, size, "%zu (%.1f%%)", r->reexecuted, r->reexecuted_share * 100.0);
}

static void attempts(char *buf, size_t size, const struct stats_row *r)
{
	snprintf(buf, size, "%zu/%zu/%zu", r->attempts_median, r->attempts_p95, r->attempts_max);
}

static void text_table(struct out *o, const struct stats *st)
{
	bool projects = st->projects > 1;
	size_t wp = strlen("project"), wa = strlen("app"), wn = strlen("activity");
	for (size_t i = 0; i < st->n_rows; i++) {
		const struct stats_row *r = st->rows[i];
		size_t c;
		if (projects && (c = escape_columns(esc(o, project_label(r), 0, 0))) > wp)
			wp = c;
		if ((c = escape_columns(esc(o, r->app_id ? r->app_id : "-", 0, 0))) > wa)
			wa = c;
		if ((c = escape_columns(row_label(o, st, r, 0)) + (r->child_workflow ? 8 : 0)) > wn)
			wn = c;
	}
	fprintf(o->f, "\n%4s  ", "#");
	if (projects)
		fprintf(o->f, "%-*s  ", (int)wp, "project");
	fprintf(o->f, "%s%-*s  %-*s  %11s  %16s  %11s  %7s  %6s%s\n", render_style(o->color, STYLE_BOLD), (int)wa,
		"app", (int)wn, "activity", "invocations", "re-executed", "attempts*", "suspect", "notice",
		render_style_off(o->color));
	for (size_t i = 0; i < st->n_rows; i++) {
		const struct stats_row *r = st->rows[i];
		char sh[48], at[64];
		share(sh, sizeof sh, r);
		attempts(at, sizeof at, r);
		fprintf(o->f, "%4zu  ", i + 1);
		if (projects) {
			const char *p = esc(o, project_label(r), 0, 0);
			fprintf(o->f, "%s%*s  ", p, (int)(wp - escape_columns(p)), "");
		}
		const char *a = esc(o, r->app_id ? r->app_id : "-", 0, 0);
		const char *n = row_label(o, st, r, 0);
		size_t nc = escape_columns(n) + (r->child_workflow ? 8 : 0);
		/* Colour only around counts that are not zero: the padding is
		 * the numbers' own, so the columns stay aligned. */
		bool red = o->color && r->suspect, yellow = o->color && r->notice;
		fprintf(o->f, "%s%*s  %s%s%*s  %11zu  %16s  %11s  %s%7zu%s  %s%6zu%s\n", a,
			(int)(wa - escape_columns(a)), "", n, r->child_workflow ? " (child)" : "", (int)(wn - nc),
			"", r->invocations, sh, at, render_style(red, STYLE_RED), r->suspect,
			render_style_off(red), render_style(yellow, STYLE_YELLOW), r->notice,
			render_style_off(yellow));
	}
	fprintf(o->f, "\n* attempts per invocation: median/p95/max\n");
}

static void md_table(struct out *o, const struct stats *st)
{
	bool projects = st->projects > 1;
	fprintf(o->f,
		"\n| # |%s app | activity | invocations | re-executed | attempts (median/p95/max) | suspect | "
		"notice |\n|---:|%s---|---|---:|---:|---:|---:|---:|\n",
		projects ? " project |" : "", projects ? "---|" : "");
	for (size_t i = 0; i < st->n_rows; i++) {
		const struct stats_row *r = st->rows[i];
		char sh[48], at[64];
		share(sh, sizeof sh, r);
		attempts(at, sizeof at, r);
		fprintf(o->f, "| %zu |", i + 1);
		if (projects)
			fprintf(o->f, " %s |", esc(o, project_label(r), 0, ESCAPE_MD_CELL));
		fprintf(o->f, " %s | %s%s | %zu | %s | %s | %zu | %zu |\n",
			esc(o, r->app_id ? r->app_id : "-", 0, ESCAPE_MD_CELL),
			row_label(o, st, r, ESCAPE_MD_CELL), r->child_workflow ? " (child workflow)" : "",
			r->invocations, sh, at, r->suspect, r->notice);
	}
}

static void detail(struct out *o, const struct stats *st, size_t i)
{
	const struct stats_row *r = st->rows[i];
	const char *ind = o->md ? "- " : "   ";
	if (o->md)
		fprintf(o->f, "\n### %zu. %s / %s%s\n\n", i + 1, esc(o, r->app_id ? r->app_id : "-", 0, 0),
			row_label(o, st, r, 0), r->child_workflow ? " (child workflow)" : "");
	else
		fprintf(o->f, "\n%zu. %s / %s%s\n", i + 1, esc(o, r->app_id ? r->app_id : "-", 0, 0),
			row_label(o, st, r, 0), r->child_workflow ? " (child workflow)" : "");
	if (st->projects > 1)
		fprintf(o->f, "%sproject: %s\n", ind, esc(o, project_label(r), 0, 0));
	enum finding_kind order[FINDING_KIND_COUNT];
	size_t nk = kinds_in_order(order);
	fprintf(o->f, "%sfindings:", ind);
	const char *sep = " ";
	for (size_t k = 0; k < nk; k++) {
		if (!r->kinds[order[k]])
			continue;
		fprintf(o->f, "%s%zu %s%s%s (%s)", sep, r->kinds[order[k]], o->md ? "`" : "",
			finding_kind_id(order[k]), o->md ? "`" : "",
			severity_name(finding_kind_severity(order[k])));
		sep = ", ";
	}
	fprintf(o->f, "%s\n", *sep == ' ' ? "none" : "");
	for (int c = 0; c < STATS_CLASS_COUNT; c++) {
		const struct stats_failures *fl = &r->failures[c];
		if (!fl->attempts)
			continue;
		fprintf(o->f, "%sfailed attempts, %s: %zu", ind, stats_class_name((enum stats_class)c),
			fl->attempts);
		for (size_t m = 0; m < r->n_shown[c]; m++) {
			const struct stats_message *msg = &fl->slots[r->order[c][m]];
			fprintf(o->f, "%s\"%s\" %s%zu", m == 0 ? ": " : "; ",
				esc(o, msg->message, MESSAGE_SHOWN, ESCAPE_MD_INLINE), fl->estimated ? "<=" : "x",
				msg->count);
		}
		fputc('\n', o->f);
	}
	if (r->latest.run_id) {
		fprintf(o->f, "%slatest suspect run: %s", ind, esc(o, r->latest.run_id, 0, ESCAPE_MD_INLINE));
		char minute[32];
		if (r->latest.started_at)
			fprintf(o->f, " (started %s)",
				report_time_minute(r->latest.started_at, minute, sizeof minute)
					? minute
					: esc(o, r->latest.started_at, 0, ESCAPE_MD_INLINE));
		if (r->latest.console_link)
			fprintf(o->f, o->md ? " <%s>" : " %s",
				esc(o, r->latest.console_link, 0, ESCAPE_MD_INLINE));
		else if (r->latest.link_note)
			fprintf(o->f, " (no console link: %s)", esc(o, r->latest.link_note, 0, ESCAPE_MD_INLINE));
		fputc('\n', o->f);
	}
	if (r->remedy)
		fprintf(o->f, "%sremedy (%s): %s\n", ind, finding_kind_id(r->top_kind),
			esc(o, r->remedy, 0, ESCAPE_MD_INLINE));
}

static int render_stats_human(FILE *f, bool md, bool color, const struct stats *st, struct err *e)
{
	struct out o = {.f = f, .md = md, .color = color && !md};
	for (int i = 0; i < 4; i++)
		buf_init(&o.tmp[i], 0);
	if (md)
		fprintf(f, "## Re-executed activities across runs\n\n");
	else
		fprintf(f, "STATS  ");
	summary_line(&o, st);
	if (st->n_rows) {
		if (md)
			md_table(&o, st);
		else
			text_table(&o, st);
		size_t shown = 0;
		for (size_t i = 0; i < st->n_rows && shown < DETAIL_ROWS; i++) {
			const struct stats_row *r = st->rows[i];
			if (!r->suspect && !r->notice && !r->reexecuted)
				continue;
			if (shown++ == 0)
				fprintf(f, md ? "\n## The top entries\n" : "\nThe top entries:\n");
			detail(&o, st, i);
		}
	}
	if (st->n_notes) {
		fprintf(f, md ? "\n## Notes\n\n" : "\nNotes:\n");
		for (size_t i = 0; i < st->n_notes; i++)
			fprintf(f, "%s%s\n", md ? "- " : "  ", esc(&o, st->notes[i], 0, ESCAPE_MD_INLINE));
	}
	for (int i = 0; i < 4; i++)
		buf_finish(&o.tmp[i]);
	if (ferror(f))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}

int render_stats_text(FILE *out, const struct stats *st, const struct render_options *o, struct err *e)
{
	return render_stats_human(out, false, o && o->color, st, e);
}

int render_stats_markdown(FILE *out, const struct stats *st, const struct render_options *o, struct err *e)
{
	(void)o;
	return render_stats_human(out, true, false, st, e);
}

int render_stats_json(FILE *out, const struct stats *st, const struct render_options *o, struct err *e)
{
	(void)o;
	return stats_json(out, st, false, e);
}

int render_stats_jsonl(FILE *out, const struct stats *st, const struct render_options *o, struct err *e)
{
	(void)o;
	return stats_json(out, st, true, e);
}
