/* The output formats: names, file extensions, traits and writers in one
 * table, and everything rendered through it. */
#include <string.h>
#include <strings.h>

#include "render.h"
#include "render_info.h"

const struct render_format_row render_formats[] = {
	{FORMAT_TEXT, "text", NULL, FORMAT_FOR_PEOPLE | FORMAT_TAKES_COLOR, render_text, render_stats_text,
	 render_review_text, render_link_text, render_whoami_text, render_tools_text, &render_follow_text},
	{FORMAT_JSON, "json", ".json", FORMAT_STREAMS_RUNS, render_json, render_stats_json, render_review_json,
	 render_link_json, render_whoami_json, render_tools_json, NULL},
	{FORMAT_JSONL, "jsonl", ".jsonl", FORMAT_STREAMS_RUNS | FORMAT_LINE_PER_RUN, render_jsonl,
	 render_stats_jsonl, NULL, NULL, NULL, NULL, &render_follow_jsonl},
	{FORMAT_MARKDOWN, "markdown", ".md", FORMAT_FOR_PEOPLE, render_markdown, render_stats_markdown,
	 render_review_markdown, NULL, NULL, NULL, NULL},
	{FORMAT_SARIF, "sarif", ".sarif", 0, NULL, NULL, render_review_sarif, NULL, NULL, NULL, NULL},
	{0, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};

const struct render_format_row *render_format_by_name(const char *name)
{
	for (const struct render_format_row *f = render_formats; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

const struct render_format_row *render_format_row(enum render_format format)
{
	for (const struct render_format_row *f = render_formats; f->name; f++)
		if (f->format == format)
			return f;
	return NULL;
}

const struct render_format_row *render_format_of_path(const char *path)
{
	size_t n = strlen(path);
	for (const struct render_format_row *f = render_formats; f->name; f++) {
		const char *x = f->extension;
		if (x && n > strlen(x) && strcasecmp(path + n - strlen(x), x) == 0)
			return f;
	}
	return NULL;
}

void render_format_list(unsigned bits, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const struct render_format_row *f = render_formats; f->name; f++) {
		if (!(bits & (1u << f->format)))
			continue;
		int w = snprintf(buf + used, size - used, "%s%s", used ? "|" : "", f->name);
		if (w < 0 || (size_t)w >= size - used)
			break;
		used += (size_t)w;
	}
}

/* "text or json", "text, json or markdown": the formats a command writes. */
void render_format_words(unsigned bits, char *buf, size_t size)
{
	char list[128];
	render_format_list(bits, list, sizeof list);
	buf[0] = '\0';
	char *save = NULL;
	size_t n = 0, total = 0;
	for (const char *p = list; *p; p++)
		total += *p == '|';
	total++;
	for (char *w = strtok_r(list, "|", &save); w; w = strtok_r(NULL, "|", &save), n++) {
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s%s", n == 0 ? "" : n + 1 == total ? " or " : ", ", w);
	}
}

bool render_format_is(enum render_format format, unsigned traits)
{
	const struct render_format_row *f = render_format_row(format);
	return f && (f->traits & traits) == traits;
}

/* Whether f has subject's writer. */
static bool writes(const struct render_format_row *f, enum render_subject subject)
{
	switch (subject) {
	case RENDER_NOTHING:
		return false;
	case RENDER_REPORT:
		return f->render;
	case RENDER_STATS:
		return f->stats;
	case RENDER_REVIEW:
		return f->review;
	case RENDER_LINK:
		return f->link;
	case RENDER_WHOAMI:
		return f->whoami;
	case RENDER_TOOLS:
		return f->tools;
	case RENDER_FOLLOW:
		return f->follow;
	}
	return false;
}

unsigned render_formats_for(enum render_subject subject)
{
	unsigned bits = 0;
	for (const struct render_format_row *f = render_formats; f->name; f++)
		if (writes(f, subject))
			bits |= 1u << f->format;
	return bits;
}

/* The row of format when it writes subject; else NULL and ERR_INTERNAL in
 * e (the CLI refuses a format a command does not write). */
static const struct render_format_row *writer_row(enum render_format format, enum render_subject subject,
						  struct err *e)
{
	const struct render_format_row *f = render_format_row(format);
	if (!f || !writes(f, subject)) {
		err_set(e, ERR_INTERNAL, "output format %d does not write this", (int)format);
		return NULL;
	}
	return f;
}

const struct render_follow_writer *render_follow_writer(enum render_format format)
{
	const struct render_format_row *f = render_format_row(format);
	return f ? f->follow : NULL;
}

int render_report(FILE *out, enum render_format format, const struct report *r, const struct render_options *o,
		  struct err *e)
{
	const struct render_format_row *f = writer_row(format, RENDER_REPORT, e);
	return f ? f->render(out, r, o, e) : -1;
}

int render_stats(FILE *out, enum render_format format, const struct stats *st, const struct render_options *o,
		 struct err *e)
{
	const struct render_format_row *f = writer_row(format, RENDER_STATS, e);
	return f ? f->stats(out, st, o, e) : -1;
}

int render_review(FILE *out, enum render_format format, const struct review *rv, const struct render_options *o,
		  struct err *e)
{
	const struct render_format_row *f = writer_row(format, RENDER_REVIEW, e);
	return f ? f->review(out, rv, o, e) : -1;
}

int render_link(FILE *out, enum render_format format, const struct link_info *l, struct err *e)
{
	const struct render_format_row *f = writer_row(format, RENDER_LINK, e);
	return f ? f->link(out, l, NULL, e) : -1;
}

int render_whoami(FILE *out, enum render_format format, const struct whoami_info *w, struct err *e)
{
	const struct render_format_row *f = writer_row(format, RENDER_WHOAMI, e);
	return f ? f->whoami(out, w, NULL, e) : -1;
}

int render_tools(FILE *out, enum render_format format, const struct tools_info *t, struct err *e)
{
	const struct render_format_row *f = writer_row(format, RENDER_TOOLS, e);
	return f ? f->tools(out, t, NULL, e) : -1;
}

int render_json_dump(const json_t *doc, FILE *out, size_t flags)
{
	if (json_dumpf(doc, out, flags | JSON_ENSURE_ASCII) < 0)
		return -1;
	return fputc('\n', out) == EOF ? -1 : 0;
}
