/* The text report's layout: colour, escaping for the terminal and
 * word-wrapping to the width. */
#include <string.h>

#include "render_text_internal.h"

static const char *const style_codes[] = {
	[STYLE_BOLD] = "\033[1m",    [STYLE_RED] = "\033[1;31m", [STYLE_GREEN] = "\033[32m",
	[STYLE_YELLOW] = "\033[33m", [STYLE_DIM] = "\033[2m",
};

const char *render_style(bool color, enum style s)
{
	return color ? style_codes[s] : "";
}

const char *render_style_off(bool color)
{
	return color ? "\033[0m" : "";
}

const char *text_on(struct text_out *t, enum style s)
{
	return render_style(t->o.color, s);
}

const char *text_off(struct text_out *t)
{
	return render_style_off(t->o.color);
}

/* s escaped for the terminal (and cut to max characters when max > 0);
 * "" for NULL. Valid until ESC_SLOTS more calls. */
const char *text_esc(struct text_out *t, const char *s, size_t max)
{
	if (!s)
		return "";
	struct buf *b = &t->slot[t->next_slot++ % ESC_SLOTS];
	buf_reset(b);
	if (escape_terminal(b, s, strlen(s), max, NULL) < 0) {
		t->oom = true;
		return "";
	}
	return b->data;
}

/* Prints already-escaped text word-wrapped to the width. The first line
 * continues at column col (the caller printed that much already); later
 * lines start with indent spaces. */
void text_wrap_at(struct text_out *t, const char *text, size_t indent, size_t col)
{
	if (!text) {
		t->oom = true;
		return;
	}
	bool first = true;
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *w = p;
		/* The withheld phrase is one unit: it reads, and greps, whole. */
		if (strncmp(p, REPORT_WITHHELD_PHRASE, strlen(REPORT_WITHHELD_PHRASE)) == 0)
			p += strlen(REPORT_WITHHELD_PHRASE);
		while (*p && *p != ' ')
			p++;
		size_t wcols = escape_columns_n(w, (size_t)(p - w));
		if (!first && col + 1 + wcols > t->width) {
			fprintf(t->f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', t->f);
			col++;
		}
		fwrite(w, 1, (size_t)(p - w), t->f);
		col += wcols;
		first = false;
	}
	fputc('\n', t->f);
}

void text_wrap(struct text_out *t, const char *text, size_t indent)
{
	if (!text) {
		t->oom = true;
		return;
	}
	fprintf(t->f, "%*s", (int)indent, "");
	text_wrap_at(t, text, indent, indent);
}

/* "- item" with the item's continuation lines under its first word. */
void text_bullet(struct text_out *t, const char *text, size_t indent)
{
	if (!text) {
		t->oom = true;
		return;
	}
	fprintf(t->f, "%*s- ", (int)indent, "");
	text_wrap_at(t, text, indent + 2, indent + 2);
}
