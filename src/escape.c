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

/* Generated at build time from the Unicode data files (scripts/
 * gen-unsafe-table): general categories Cc Cf Co Cn Zl Zp, every
 * Default_Ignorable_Code_Point and every Bidi_Control. A property rather
 * than a hand-made list, so no invisible character is left out because
 * nobody thought of it (U+FFFB was). */
static const struct {
	uint32_t from, to;
} unsafe_ranges[] = {
#include "escape_unsafe_ranges.inc"
};

const char *escape_unicode_version(void)
{
	return ESCAPE_UNICODE_VERSION;
}

size_t escape_unsafe_range_count(void)
{
	return sizeof unsafe_ranges / sizeof *unsafe_ranges;
}

void escape_unsafe_range(size_t i, uint32_t *from, uint32_t *to)
{
	*from = unsafe_ranges[i].from;
	*to = unsafe_ranges[i].to;
}

bool escape_is_unsafe(uint32_t cp)
{
	if (cp >= 0x20 && cp < 0x7f) /* printable ASCII: nearly all of what we print */
		return false;
	size_t lo = 0, hi = sizeof unsafe_ranges / sizeof *unsafe_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < unsafe_ranges[mid].from)
			hi = mid;
		else if (cp > unsafe_ranges[mid].to)
			lo = mid + 1;
		else
			return true;
	}
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
	else if (cp <= 0xffff)
		snprintf(tmp, 16, "\\u%04x", (unsigned)cp);
	else
		snprintf(tmp, 16, "\\U%08x", (unsigned)cp);
	return tmp;
}

/* One unit of input (a code point, or an invalid byte) as it goes out. */
struct unit {
	const char *text;
	size_t len;   /* bytes of text */
	size_t chars; /* columns it counts for */
};

/* The unit at s: itself, or its visible escape written into tmp. A
 * backslash is doubled only when `forge_proof`. Returns the input bytes it
 * took. */
static size_t next_unit(const char *s, size_t len, bool forge_proof, char tmp[16], struct unit *u)
{
	uint32_t cp;
	size_t n = escape_utf8_next(s, len, &cp);
	if (n == 0) {
		snprintf(tmp, 16, "\\x%02x", (unsigned)(unsigned char)s[0]);
		u->text = tmp, u->len = strlen(tmp), u->chars = u->len;
		return 1;
	}
	if (cp == '\\' && forge_proof) {
		u->text = "\\\\", u->len = 2, u->chars = 2;
	} else if (escape_is_unsafe(cp)) {
		u->text = visible_escape(cp, tmp);
		u->len = strlen(u->text), u->chars = u->len;
	} else {
		u->text = s, u->len = n, u->chars = 1;
	}
	return n;
}

/* The one loop behind escape_terminal and escape_message. */
static int escape_units(struct buf *out, const char *s, size_t len, size_t max_chars, bool forge_proof,
			struct err *e)
{
	size_t start = out->len;
	size_t chars = 0;
	/* Where to cut if the whole does not fit: the last unit boundary that
	 * leaves room for "...". */
	size_t cut = start;
	size_t room = max_chars > 3 ? max_chars - 3 : 0;
	size_t i = 0;
	while (i < len) {
		char tmp[16];
		struct unit u;
		i += next_unit(s + i, len - i, forge_proof, tmp, &u);
		if (buf_append(out, u.text, u.len, e) < 0)
			return -1;
		chars += u.chars;
		if (chars <= room)
			cut = out->len;
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

int escape_terminal(struct buf *out, const char *s, size_t len, size_t max_chars, struct err *e)
{
	return escape_units(out, s, len, max_chars, true, e);
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

size_t escape_columns_n(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

size_t escape_columns(const char *s)
{
	return escape_columns_n(s, strlen(s));
}

int escape_message(struct buf *out, const char *s, size_t len, struct err *e)
{
	return escape_units(out, s, len, 0, false, e);
}

char *escape_message_dup(const char *s)
{
	if (!s)
		return NULL;
	struct buf b;
	buf_init(&b, 0);
	if (escape_message(&b, s, strlen(s), NULL) < 0) {
		buf_finish(&b);
		return NULL;
	}
	return buf_steal(&b, NULL);
}

void escape_message_into(char *out, size_t cap, const char *s)
{
	if (cap == 0)
		return;
	size_t k = 0, len = s ? strlen(s) : 0, i = 0;
	while (i < len) {
		char tmp[16];
		struct unit u;
		size_t n = next_unit(s + i, len - i, false, tmp, &u);
		if (k + u.len + 1 > cap)
			break; /* whole units only: never half an escape or a character */
		memcpy(out + k, u.text, u.len);
		k += u.len;
		i += n;
	}
	out[k] = '\0';
}

static int md_plain(struct buf *out, const char *s, size_t len, enum escape_md_context ctx, bool *at_line_start,
		    struct err *e)
{
	bool line_start = *at_line_start;
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
	*at_line_start = line_start;
	return 0;
}

static bool md_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool ascii_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Whether GitHub would make something of the word when the report is
 * pasted there: "@org/team" notifies a team, "#123" and "repo#123" link
 * an issue, "a@b.co" becomes a mail link. Backslash escapes and HTML
 * entities do not stop it (GitHub finds them in the rendered text), a code
 * span does. */
static bool md_references(const char *w, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if ((w[i] == '@' || w[i] == '#') && ascii_alnum(w[i + 1]))
			return true;
	return false;
}

/* The word as a code span: its control characters and bad bytes as visible
 * escapes (one backslash: nothing is an escape inside a code span), "|" as
 * "\|" in a table cell (GFM reads the cell boundaries first), fenced by one
 * backtick more than its longest run of them and padded with a space where
 * it starts or ends with one (CommonMark 6.1). */
static int md_code(struct buf *out, const char *w, size_t len, enum escape_md_context ctx, struct err *e)
{
	size_t run = 0, longest = 0;
	for (size_t i = 0; i < len; i++) {
		run = w[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	bool pad = len && (w[0] == '`' || w[len - 1] == '`');
	for (size_t k = 0; k <= longest; k++)
		if (buf_append(out, "`", 1, e) < 0)
			return -1;
	if (pad && buf_append(out, " ", 1, e) < 0)
		return -1;
	size_t i = 0;
	while (i < len) {
		char tmp[16];
		struct unit u;
		size_t n = next_unit(w + i, len - i, false, tmp, &u);
		if (u.len == 1 && *u.text == '|' && ctx == ESCAPE_MD_CELL)
			u.text = "\\|", u.len = 2;
		if (buf_append(out, u.text, u.len, e) < 0)
			return -1;
		i += n;
	}
	if (pad && buf_append(out, " ", 1, e) < 0)
		return -1;
	for (size_t k = 0; k <= longest; k++)
		if (buf_append(out, "`", 1, e) < 0)
			return -1;
	return 0;
}

int escape_markdown(struct buf *out, const char *s, size_t len, enum escape_md_context ctx, struct err *e)
{
	bool line_start = true;
	size_t i = 0;
	while (i < len) {
		/* a run of spaces, then a word: each word that GitHub would
		 * turn into a mention or a reference goes out as a code span */
		size_t j = i;
		while (j < len && md_space(s[j]))
			j++;
		if (j > i && md_plain(out, s + i, j - i, ctx, &line_start, e) < 0)
			return -1;
		size_t k = j;
		while (k < len && !md_space(s[k]))
			k++;
		if (k > j) {
			int rc = md_references(s + j, k - j) ? md_code(out, s + j, k - j, ctx, e)
							     : md_plain(out, s + j, k - j, ctx, &line_start, e);
			if (rc < 0)
				return -1;
			line_start = false;
		}
		i = k;
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
