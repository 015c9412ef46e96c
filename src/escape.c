/* Escaping server-supplied text for a terminal and for Markdown. One UTF-8
 * decoder, one list of unsafe code points, two output dialects. */
#include "escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t escape_utf8_next(const char *str, size_t len, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	if (len == 0)
		return 0;
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t n;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0; /* continuation byte, overlong lead (c0 c1) or > U+10FFFF lead */
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

bool escape_is_unsafe(uint32_t cp)
{
	if (cp < 0x20 || cp == 0x7f)
		return true;
	if (cp >= 0x80 && cp <= 0x9f) /* C1: 0x9b is a one-byte CSI on some terminals */
		return true;
	if (cp == 0x061c || cp == 0x200e || cp == 0x200f) /* bidi marks */
		return true;
	if (cp >= 0x202a && cp <= 0x202e) /* bidi embeddings and overrides */
		return true;
	if (cp >= 0x2066 && cp <= 0x2069) /* bidi isolates */
		return true;
	if (cp == 0x2028 || cp == 0x2029) /* line and paragraph separators */
		return true;
	return false;
}

/* The visible form of an unsafe code point, written into tmp. */
static const char *visible_escape(uint32_t cp, char tmp[16])
{
	switch (cp) {
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	default:
		break;
	}
	if (cp < 0x80)
		snprintf(tmp, 16, "\\x%02x", (unsigned)cp);
	else
		snprintf(tmp, 16, "\\u%04x", (unsigned)cp);
	return tmp;
}

int escape_terminal(struct buf *out, const char *s, size_t len, size_t max_chars, struct err *e)
{
	size_t start = out->len;
	size_t chars = 0;
	/* Where to cut if the whole does not fit: the last unit boundary that
	 * leaves room for "...". */
	size_t cut = start;
	size_t room = max_chars > 3 ? max_chars - 3 : 0;
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = escape_utf8_next(s + i, len - i, &cp);
		char tmp[16];
		const char *unit;
		size_t unit_len, unit_chars;
		if (n == 0) {
			snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned)(unsigned char)s[i]);
			unit = tmp, unit_len = strlen(tmp), unit_chars = unit_len;
			n = 1;
		} else if (cp == '\\') {
			unit = "\\\\", unit_len = 2, unit_chars = 2;
		} else if (escape_is_unsafe(cp)) {
			unit = visible_escape(cp, tmp);
			unit_len = strlen(unit), unit_chars = unit_len;
		} else {
			unit = s + i, unit_len = n, unit_chars = 1;
		}
		if (buf_append(out, unit, unit_len, e) < 0)
			return -1;
		chars += unit_chars;
		if (chars <= room)
			cut = out->len;
		i += n;
	}
	if (max_chars && chars > max_chars) {
		out->len = cut;
		out->data[out->len] = '\0';
		if (buf_append(out, max_chars >= 3 ? "..." : "", max_chars >= 3 ? 3 : 0, e) < 0)
			return -1;
	}
	if (!out->data && buf_append(out, "", 0, e) < 0)
		return -1;
	return 0;
}

char *escape_terminal_dup(const char *s, size_t max_chars)
{
	if (!s)
		return NULL;
	struct buf b;
	buf_init(&b, 0);
	if (escape_terminal(&b, s, strlen(s), max_chars, NULL) < 0) {
		buf_finish(&b);
		return NULL;
	}
	return buf_steal(&b, NULL);
}

int escape_markdown(struct buf *out, const char *s, size_t len, enum escape_md_context ctx, struct err *e)
{
	bool line_start = true;
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = escape_utf8_next(s + i, len - i, &cp);
		char tmp[16];
		const char *unit;
		bool next_line_start = false;
		if (n == 0) {
			snprintf(tmp, sizeof tmp, "\\\\x%02x", (unsigned)(unsigned char)s[i]);
			unit = tmp;
			n = 1;
		} else if (cp == '\n') {
			unit = ctx == ESCAPE_MD_CELL ? "<br>" : " ";
			next_line_start = true;
		} else if (cp == '\r' && i + 1 < len && s[i + 1] == '\n') {
			unit = ""; /* the \r of a CRLF: the \n that follows breaks the line */
		} else if (escape_is_unsafe(cp)) {
			/* "\x1b" would read as an escaped "x" to nobody, but a
			 * doubled backslash keeps it literal in every renderer. */
			char v[16];
			snprintf(tmp, sizeof tmp, "\\%s", visible_escape(cp, v));
			unit = tmp;
		} else {
			switch (cp) {
			case '\\':
				unit = "\\\\";
				break;
			case '|':
				unit = "\\|";
				break;
			case '`':
				unit = "\\`";
				break;
			case '*':
				unit = "\\*";
				break;
			case '_':
				unit = "\\_";
				break;
			case '[':
				unit = "\\[";
				break;
			case ']':
				unit = "\\]";
				break;
			case '~':
				unit = "\\~";
				break;
			case '<':
				unit = "&lt;";
				break;
			case '>':
				unit = "&gt;";
				break;
			case '&':
				unit = "&amp;";
				break;
			case '#':
				unit = line_start ? "\\#" : "#";
				break;
			default:
				unit = NULL;
				break;
			}
			if (!unit) {
				if (buf_append(out, s + i, n, e) < 0)
					return -1;
				line_start = false;
				i += n;
				continue;
			}
		}
		if (buf_append(out, unit, strlen(unit), e) < 0)
			return -1;
		line_start = next_line_start;
		i += n;
	}
	if (!out->data && buf_append(out, "", 0, e) < 0)
		return -1;
	return 0;
}

char *escape_markdown_dup(const char *s, enum escape_md_context ctx)
{
	if (!s)
		return NULL;
	struct buf b;
	buf_init(&b, 0);
	if (escape_markdown(&b, s, strlen(s), ctx, NULL) < 0) {
		buf_finish(&b);
		return NULL;
	}
	return buf_steal(&b, NULL);
}

char *escape_utf8_repair_dup(const char *s)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	struct buf b;
	buf_init(&b, 0);
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = escape_utf8_next(s + i, len - i, &cp);
		int rc = n ? buf_append(&b, s + i, n, NULL) : buf_append(&b, "\xef\xbf\xbd", 3, NULL);
		if (rc < 0) {
			buf_finish(&b);
			return NULL;
		}
		i += n ? n : 1;
	}
	if (!b.data && buf_append(&b, "", 0, NULL) < 0)
		return NULL;
	return buf_steal(&b, NULL);
}
