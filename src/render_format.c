/* The output formats: names, file extensions and renderers in one table,
 * and the report rendered through it. */
#include <string.h>
#include <strings.h>

#include "render.h"

const struct render_format_row render_formats[] = {
	{FORMAT_TEXT, "text", NULL, render_text},
	{FORMAT_JSON, "json", ".json", render_json},
	{FORMAT_JSONL, "jsonl", ".jsonl", render_jsonl},
	{FORMAT_MARKDOWN, "markdown", ".md", render_markdown},
	{0, NULL, NULL, NULL},
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

int render_report(FILE *out, enum render_format format, const struct report *r, const struct render_options *o,
		  struct err *e)
{
	const struct render_format_row *f = render_format_row(format);
	if (!f)
		return err_set(e, ERR_INTERNAL, "unknown output format %d", (int)format);
	return f->render(out, r, o, e);
}
