/* The analysis' message builder (struct sb): every sentence a renderer
 * prints is written here, into a struct buf. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis_internal.h"

void sb_init(struct sb *s, bool *oom)
{
	buf_init(&s->b, 0);
	s->oom = oom;
}

static inline void sb_put(struct sb *s, const char *p, size_t n)
{
	struct buf *b = &s->b;
	/* Room already (nearly always: the buffer is reused): no call. */
	if (!b->limit && b->data && n < b->cap - b->len) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	if (!*s->oom && buf_append(b, p, n, NULL) < 0)
		*s->oom = true;
}

static void sb_put_u64(struct sb *s, uint64_t v)
{
	char tmp[20];
	char *p = tmp + sizeof tmp;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_put(s, p, (size_t)(tmp + sizeof tmp - p));
}

static void sb_put_i64(struct sb *s, int64_t v)
{
	if (v < 0) {
		sb_put(s, "-", 1);
		sb_put_u64(s, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_put_u64(s, (uint64_t)v);
	}
}

/* The conversions the messages use (%s, %.*s, %d, %u, %zu and the l/ll
 * forms PRId64 expands to) are formatted here: vsnprintf cost ~900
 * instructions a call, a third of the analysis. Anything else, and a NULL
 * string, goes to vsnprintf so the text is always exactly printf's. */
static bool sb_format(struct sb *s, const char *fmt, va_list ap)
{
	const char *p = fmt;
	for (;;) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			sb_put(s, p, strlen(p));
			return true;
		}
		sb_put(s, p, (size_t)(pct - p));
		p = pct + 1;
		if (*p == '%') {
			sb_put(s, "%", 1);
			p++;
		} else if (*p == 's') {
			const char *a = va_arg(ap, const char *);
			if (!a)
				return false;
			sb_put(s, a, strlen(a));
			p++;
		} else if (p[0] == '.' && p[1] == '*' && p[2] == 's') {
			int prec = va_arg(ap, int);
			const char *a = va_arg(ap, const char *);
			if (!a || prec < 0)
				return false;
			sb_put(s, a, strnlen(a, (size_t)prec));
			p += 3;
		} else if (*p == 'd') {
			sb_put_i64(s, va_arg(ap, int));
			p++;
		} else if (*p == 'u') {
			sb_put_u64(s, va_arg(ap, unsigned));
			p++;
		} else if (p[0] == 'z' && p[1] == 'u') {
			sb_put_u64(s, va_arg(ap, size_t));
			p += 2;
		} else if (p[0] == 'l' && p[1] == 'd') {
			sb_put_i64(s, va_arg(ap, long));
			p += 2;
		} else if (p[0] == 'l' && p[1] == 'u') {
			sb_put_u64(s, va_arg(ap, unsigned long));
			p += 2;
		} else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'd') {
			sb_put_i64(s, va_arg(ap, long long));
			p += 3;
		} else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'u') {
			sb_put_u64(s, va_arg(ap, unsigned long long));
			p += 3;
		} else {
			return false;
		}
	}
}

void sb_printf(struct sb *s, const char *fmt, ...)
{
	if (*s->oom)
		return;
	size_t start = s->b.len;
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	bool done = sb_format(s, fmt, ap);
	va_end(ap);
	if (!done && !*s->oom) {
		/* What sb_format wrote of this call is dropped: printf redoes it. */
		s->b.len = start;
		if (s->b.data)
			s->b.data[start] = '\0';
		char *text = NULL;
		if (vasprintf(&text, fmt, again) < 0)
			*s->oom = true;
		else
			sb_put(s, text, strlen(text));
		free(text);
	}
	va_end(again);
}

char *sb_steal(struct sb *s)
{
	if (*s->oom) {
		buf_finish(&s->b);
		return NULL;
	}
	return buf_steal(&s->b, NULL);
}

/* Server text quoted into a message: cut at a UTF-8 boundary. */
void sb_quote(struct sb *s, const char *text)
{
	if (!text) {
		sb_printf(s, "(no message)");
		return;
	}
	size_t len = strlen(text);
	if (len <= QUOTE_MAX) {
		sb_printf(s, "\"%s\"", text);
		return;
	}
	size_t cut = QUOTE_MAX;
	while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80)
		cut--;
	sb_printf(s, "\"%.*s...\"", (int)cut, text);
}

bool analysis_error_type_tells(const char *type, const char *message)
{
	/* Go's errors.New and fmt.Errorf types, and the bare base classes:
	 * every failure of such code has them, so they say nothing the
	 * message does not (issue 19). */
	static const char *const generic[] = {
		"*errors.errorString", "errors.errorString", "*fmt.wrapError", "*fmt.wrapErrors",
		"*errors.joinError",   "Exception",          "Error",          "System.Exception",
		"java.lang.Exception",
	};
	if (!str_set(type))
		return false;
	for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++)
		if (strcmp(type, generic[i]) == 0)
			return !str_set(message);
	/* "ValueError: bad input" already names it. */
	size_t n = strlen(type);
	return !(str_set(message) && strncmp(message, type, n) == 0 && message[n] == ':');
}

/* A type is a short name; a hostile one is cut like a message. */
void sb_type(struct sb *s, const char *type)
{
	if (!str_set(type))
		return;
	size_t cut = strlen(type);
	if (cut > QUOTE_MAX) {
		cut = QUOTE_MAX;
		while (cut > 0 && ((unsigned char)type[cut] & 0xC0) == 0x80)
			cut--;
	}
	sb_printf(s, "%.*s%s", (int)cut, type, type[cut] ? "..." : "");
}

/* "TYPE " before a quoted message, nothing when there is no type. */
static void sb_type_before(struct sb *s, const char *type)
{
	if (!str_set(type))
		return;
	sb_type(s, type);
	sb_printf(s, " ");
}

void sb_error(struct sb *s, const struct attempt *a)
{
	const struct attempt_more *mo = attempt_more(a);
	sb_type_before(s, mo->error_type);
	sb_quote(s, mo->error_message);
	/* The class was decided on the innermost cause: name it. */
	if (mo->cause_type || mo->cause_message) {
		sb_printf(s, " (innermost cause: ");
		sb_type_before(s, mo->cause_type);
		sb_quote(s, mo->cause_message);
		sb_printf(s, ")");
	}
}

void sb_id_list(struct sb *s, const struct attempt *at, size_t n)
{
	for (size_t i = 0; i < n && i < LIST_MAX; i++) {
		if (i)
			sb_put(s, ", ", 2);
		sb_put_i64(s, at[i].scheduled_id);
	}
	if (n > LIST_MAX)
		sb_printf(s, " and %zu more", n - LIST_MAX);
}
