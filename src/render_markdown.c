/* The Markdown report: a section to paste into a post-mortem issue. Formats
 * the report and nothing else; every server-supplied string goes through
 * escape_markdown so table syntax, emphasis, HTML and control characters in
 * names or error messages stay inert, and through md_mermaid_name before a
 * Mermaid chart sees it.
 *
 * What it is shaped by: GitHub renders an issue or comment of at most
 * 65,536 characters, a table wider than about six columns is cut off at its
 * width, and a reader sees an overlap in a picture faster than in a table.
 * So tables have at most six columns (long cells go to lists under them),
 * identical findings across runs are one line (report_fold.h), suspect runs
 * get a gantt chart, and the default view is assembled within MD_LIMIT,
 * folding the runs that do not fit into counts. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render_markdown_internal.h"

/* s cut to max code points (0: whole) and escaped for ctx; "" for NULL.
 * Valid until MD_SLOTS more calls. */
const char *md(struct md_out *m, const char *s, enum escape_md_context ctx, size_t max)
{
	if (!s)
		return "";
	size_t len = strlen(s);
	bool cut = false;
	if (max) {
		size_t cps = 0, i = 0;
		for (; i < len; i++) {
			if (((unsigned char)s[i] & 0xc0) != 0x80) {
				if (cps == max)
					break;
				cps++;
			}
		}
		cut = i < len;
		len = i;
	}
	struct buf *b = &m->slot[m->next_slot++ % MD_SLOTS];
	buf_reset(b);
	if (escape_markdown(b, s, len, ctx, NULL) < 0 || (cut && buf_append(b, "...", 3, NULL) < 0)) {
		m->oom = true;
		return "";
	}
	return b->data;
}

void md_ids(struct md_out *m, const int64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(m->f, "%s%" PRId64, i ? ", " : "", ids[i]);
}

void md_row(struct md_out *m, const char *label, const char *value)
{
	fprintf(m->f, "| %s | %s |\n", label, value);
}

/* The document's pieces are written to memory (open_memstream) so that the
 * short view can be measured and assembled within MD_LIMIT. */
struct md_piece {
	char *data;
	size_t len;
	FILE *f;
};

static bool md_open(struct md_out *m, struct md_piece *p)
{
	free(p->data);
	p->data = NULL;
	p->len = 0;
	p->f = open_memstream(&p->data, &p->len);
	if (!p->f) {
		m->oom = true;
		return false;
	}
	m->f = p->f;
	return true;
}

static void md_close(struct md_out *m, struct md_piece *p)
{
	if (p->f && fclose(p->f) != 0)
		m->oom = true;
	p->f = NULL;
	m->f = NULL;
}

/* Where the piece's writing stands (its length so far). */
static size_t md_pos(struct md_out *m, struct md_piece *p)
{
	if (fflush(p->f) != 0)
		m->oom = true;
	return p->len;
}

/* Whether `more` bytes still fit the note piece being written within room. */
static bool md_fits(struct md_out *m, size_t more, size_t room)
{
	long at = ftell(m->f);
	return at >= 0 && (size_t)at + more <= room;
}

/* What the short view could not fit: counts, the run ids in a <details>
 * block as far as room lasts, and where the whole report is. */
static void md_fold_note(struct md_out *m, const struct report *r, const bool *wanted, const bool *in_table,
			 const bool *charts, size_t room)
{
	size_t n_sections = 0, n_rows = 0, n_charted = 0, n_uncharted = 0;
	for (size_t i = 0; i < r->n_runs; i++) {
		if (wanted[i] && !m->shown[i])
			n_sections++;
		if (!in_table[i])
			n_rows++;
		if (charts[i] && m->shown[i])
			n_charted++;
		else if (r->runs[i].n_suspect)
			n_uncharted++;
	}
	if (n_uncharted) {
		fprintf(m->f, "\nA timeline is drawn for the first %zu suspect run%s; not for ", n_charted,
			n_charted == 1 ? "" : "s");
		size_t listed = 0;
		for (size_t i = 0; i < r->n_runs && listed < MD_UNCHARTED_NAMED; i++) {
			const struct report_run *run = &r->runs[i];
			if (!run->n_suspect || (charts[i] && m->shown[i]))
				continue;
			/* room left for the lines below it (MD_RESERVE holds them) */
			if (!md_fits(m, 2 * MD_NAME_MAX + 600, room))
				break;
			fputs(listed++ ? ", " : "", m->f);
			md_run_ref(m, r, run, ESCAPE_MD_INLINE, MD_NAME_MAX);
		}
		if (n_uncharted > listed)
			fprintf(m->f, " and %zu more", n_uncharted - listed);
		fprintf(m->f, " (`--verbose-report` in text draws each).\n");
	}
	if (!n_sections && !n_rows)
		return;
	fprintf(m->f, "\n**Folded to stay within GitHub's 65,536 characters:** ");
	if (n_sections)
		fprintf(m->f, "%zu run section%s not shown", n_sections, n_sections == 1 ? "" : "s");
	if (n_rows)
		fprintf(m->f, "%s%zu run%s not in the table", n_sections ? ", " : "", n_rows,
			n_rows == 1 ? "" : "s");
	fprintf(m->f,
		". The whole report, every run and attempt, is the JSON of the same audit (`--format json`).\n");
	if (!n_sections)
		return;
	fprintf(m->f, "\n<details><summary>Runs with findings not shown here</summary>\n\n");
	size_t listed = 0;
	for (size_t i = 0; i < r->n_runs && listed < MD_DETAILS_RUNS; i++) {
		const struct report_run *run = &r->runs[i];
		if (!wanted[i] || m->shown[i])
			continue;
		const char *id = md(m, run->run_id ? run->run_id : "unknown", ESCAPE_MD_INLINE, MD_NAME_MAX);
		/* the note so far, this id with its count, and the closing lines */
		if (!md_fits(m, strlen(id) + 80, room))
			break;
		fprintf(m->f, "%s%s", listed ? ", " : "", id);
		if (run->analysis)
			fprintf(m->f, " (%zu suspect)", run->n_suspect);
		else
			fprintf(m->f, " (not audited)");
		listed++;
	}
	if (listed < n_sections)
		fprintf(m->f, "%sand %zu more", listed ? ", " : "", n_sections - listed);
	fprintf(m->f, "\n\n</details>\n");
}

/* The run table into rows: the runs in_table (NULL: every run), then the
 * runs not audited among them. false when out of memory. */
static bool md_table(struct md_out *m, const struct report *r, struct md_piece *rows, const bool *in_table)
{
	if (!md_open(m, rows))
		return false;
	md_overview_head(m);
	for (size_t i = 0; i < r->n_runs; i++)
		if (!in_table || in_table[i])
			md_overview_row(m, r, &r->runs[i]);
	md_overview_failed(m, r, in_table);
	md_close(m, rows);
	return true;
}

/* Which runs the table holds within a third of avail: every run when they
 * fit, else the runs with sections (findings, not audited) while they do
 * (a run not audited counts thrice: its reason follows the table); the
 * clean runs are a count. The table is left in rows. */
static bool md_fit_table(struct md_out *m, const struct report *r, struct md_piece *rows, const bool *wanted,
			 bool *in_table, size_t *row_len, size_t avail)
{
	if (!md_open(m, rows))
		return false;
	md_overview_head(m);
	for (size_t i = 0; i < r->n_runs; i++) {
		size_t before = md_pos(m, rows);
		md_overview_row(m, r, &r->runs[i]);
		row_len[i] = md_pos(m, rows) - before;
	}
	md_overview_failed(m, r, NULL);
	size_t total = md_pos(m, rows);
	md_close(m, rows);
	if (total <= avail / 3)
		return true;
	size_t t = 200;
	for (size_t i = 0; i < r->n_runs; i++) {
		size_t cost = row_len[i] + (r->runs[i].analysis ? 0 : 2 * row_len[i]);
		in_table[i] = wanted[i] && t + cost <= avail / 3;
		if (in_table[i])
			t += cost;
	}
	return md_table(m, r, rows, in_table);
}

/* The wanted runs' sections in report order while they fit in avail;
 * those that do not are not shown. The length kept. */
static size_t md_fit_sections(struct md_out *m, const struct report *r, struct md_piece *sections,
			      const bool *wanted, bool *shown, size_t avail)
{
	if (!md_open(m, sections))
		return 0;
	size_t kept = 0;
	bool full = false;
	for (size_t i = 0; i < r->n_runs; i++) {
		if (!wanted[i])
			continue;
		if (full) {
			shown[i] = false;
			continue;
		}
		md_run_short(m, r, &r->runs[i], r->n_runs > 1);
		size_t now = md_pos(m, sections);
		if (now > avail) {
			full = true;
			shown[i] = false;
			continue;
		}
		kept = now;
	}
	md_close(m, sections);
	return kept;
}

/* The short view of several runs within MD_LIMIT: the head (verdict,
 * summary, context), the run table, a section per run with findings (or
 * every run with --all-runs), the remedies and limits once. The table takes
 * at most a third of the room; sections follow in report order while they
 * fit. Head and table are measured with a link to every section and
 * written again with links only to those that fit, so they only shrink. */
static void md_short(struct md_out *m, FILE *out, const struct report *r, const struct render_options *o,
		     bool *shown, const bool *charts)
{
	bool multi = r->n_runs > 1;
	bool all = !multi || (o && o->all_runs);
	size_t n = r->n_runs;
	struct md_piece head = {0}, tail = {0}, rows = {0}, sections = {0}, note = {0};
	bool *wanted = calloc(n + 1, sizeof *wanted), *in_table = calloc(n + 1, sizeof *in_table);
	size_t *row_len = calloc(n + 1, sizeof *row_len);
	if (!wanted || !in_table || !row_len) {
		m->oom = true;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		wanted[i] = all || !r->runs[i].analysis || report_run_has_findings(&r->runs[i]);
		shown[i] = wanted[i];
		in_table[i] = true;
	}
	if (!md_open(m, &tail))
		goto out;
	md_payloads(m, r);
	md_tail(m, r, all);
	md_notes(m, r);
	md_close(m, &tail);
	if (!md_open(m, &head))
		goto out;
	md_head(m, r, REPORT_SHORT);
	md_close(m, &head);
	if (m->oom)
		goto out;
	size_t used = head.len + tail.len + MD_RESERVE;
	size_t avail = used < MD_LIMIT ? MD_LIMIT - used : 0;
	if (multi) {
		if (!md_fit_table(m, r, &rows, wanted, in_table, row_len, avail))
			goto out;
		avail = avail > rows.len ? avail - rows.len : 0;
	}
	size_t kept = md_fit_sections(m, r, &sections, wanted, shown, avail);
	if (m->oom)
		goto out;
	/* Written again with the links that now hold. */
	if (!md_open(m, &head))
		goto out;
	md_head(m, r, REPORT_SHORT);
	md_close(m, &head);
	if (multi && !md_table(m, r, &rows, in_table))
		goto out;
	size_t so_far = head.len + rows.len + kept + tail.len;
	if (!md_open(m, &note))
		goto out;
	md_fold_note(m, r, wanted, in_table, charts, so_far + 200 < MD_LIMIT ? MD_LIMIT - so_far - 200 : 0);
	md_close(m, &note);
	if (m->oom)
		goto out;
	fwrite(head.data, 1, head.len, out);
	if (rows.data)
		fwrite(rows.data, 1, rows.len, out);
	if (sections.data)
		fwrite(sections.data, 1, kept, out);
	fwrite(note.data, 1, note.len, out);
	fwrite(tail.data, 1, tail.len, out);
out: /* every piece is closed by then: md_open fails with none open */
	free(head.data);
	free(tail.data);
	free(rows.data);
	free(sections.data);
	free(note.data);
	free(wanted);
	free(in_table);
	free(row_len);
}

int render_markdown(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	struct md_out m = {.f = out};
	if (o)
		m.o = *o;
	for (size_t i = 0; i < MD_SLOTS; i++)
		buf_init(&m.slot[i], 0);
	enum report_view view = o ? o->view : REPORT_SHORT;
	bool *shown = calloc(r->n_runs + 1, sizeof *shown);
	bool *charts = calloc(r->n_runs + 1, sizeof *charts);
	if (!shown || !charts) {
		m.oom = true;
		goto out;
	}
	/* The first suspect runs get a gantt chart. */
	for (size_t i = 0, drawn = 0; i < r->n_runs && drawn < MD_TIMELINES && view != REPORT_FINDINGS; i++)
		if (r->runs[i].analysis && r->runs[i].n_suspect)
			charts[i] = true, drawn++;
	m.charts = charts;
	m.shown = shown;
	if (view == REPORT_SHORT) {
		md_short(&m, out, r, o, shown, charts);
		goto out;
	}
	for (size_t i = 0; i < r->n_runs; i++)
		shown[i] = view == REPORT_FULL || !r->runs[i].analysis || report_run_has_findings(&r->runs[i]);
	md_head(&m, r, view);
	if (view == REPORT_FULL) {
		if (r->n_runs > 1) {
			md_overview_head(&m);
			for (size_t i = 0; i < r->n_runs; i++)
				md_overview_row(&m, r, &r->runs[i]);
			md_overview_failed(&m, r, NULL);
		}
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			md_anchor(&m, r, run);
			fputc('\n', out);
			md_header(&m, run);
			if (!run->analysis) {
				md_failed(&m, run);
				continue;
			}
			fprintf(out, "\n#### Activities and attempts\n");
			md_attempts(&m, run->analysis, true);
			if (charts[i])
				md_chart(&m, run);
			md_findings(&m, run);
			md_withheld(&m, run->analysis);
			md_limits(&m, run->analysis);
		}
	} else {
		for (size_t i = 0; i < r->n_runs; i++) {
			const struct report_run *run = &r->runs[i];
			if (!shown[i])
				continue;
			md_anchor(&m, r, run);
			fprintf(out, "\n### Run %s\n\n",
				run->run_id ? md(&m, run->run_id, ESCAPE_MD_INLINE, 0) : "(unknown run id)");
			if (!run->analysis) {
				md_failed(&m, run);
				continue;
			}
			for (size_t k = 0; k < run->analysis->n_findings; k++) {
				char id[REPORT_FINDING_SHORT_ID_LEN];
				report_finding_short_id(run, k, id);
				md_finding_short(&m, &run->analysis->findings[k], true, id,
						 report_source_note(run, &run->analysis->findings[k]));
			}
		}
	}
	md_payloads(&m, r);
	md_notes(&m, r);
out:
	free(shown);
	free(charts);
	for (size_t i = 0; i < MD_SLOTS; i++)
		buf_finish(&m.slot[i]);
	if (m.oom)
		return err_oom(e);
	if (ferror(out))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}
