#include "sse.h"

#include <assert.h>
#include <limits.h>
#include <string.h>

static const unsigned char bom_bytes[3] = {0xEF, 0xBB, 0xBF};

void sse_parser_init(struct sse_parser *p, size_t max_event, sse_event_fn on_event, void *ctx)
{
	memset(p, 0, sizeof *p);
	p->on_event = on_event;
	p->ctx = ctx;
	p->max_event = max_event ? max_event : SSE_DEFAULT_MAX_EVENT;
	/* The bound is enforced here against line + data together, so the
	 * buffers themselves need none. */
	buf_init(&p->line, 0);
	buf_init(&p->data, 0);
	buf_init(&p->type, 0);
	buf_init(&p->id, 0);
	p->retry_ms = -1;
	p->bom = 0;
}

void sse_parser_finish(struct sse_parser *p)
{
	buf_finish(&p->line);
	buf_finish(&p->data);
	buf_finish(&p->type);
	buf_finish(&p->id);
}

void sse_parser_restart(struct sse_parser *p)
{
	buf_reset(&p->line);
	buf_reset(&p->data);
	buf_reset(&p->type);
	p->after_cr = false;
	/* A new response body may start with its own BOM. */
	p->bom = 0;
}

bool sse_parser_has_partial(const struct sse_parser *p)
{
	return p->line.len > 0 || p->data.len > 0 || p->type.len > 0 || p->bom > 0;
}

static int too_big(struct sse_parser *p, struct err *e)
{
	err_set(e, ERR_PROTOCOL, "SSE event over %zu bytes", p->max_event);
	if (e)
		e->detail = ERR_DETAIL_FINAL;
	return -1;
}

static bool field_is(const char *f, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(f, name, n) == 0;
}

static int dispatch(struct sse_parser *p, struct err *e)
{
	if (p->data.len == 0) {
		/* No data: nothing is dispatched, the type is forgotten. */
		buf_reset(&p->type);
		return 0;
	}
	/* Every data line appended a LF; the last one is not part of the data. */
	p->data.len--;
	p->data.data[p->data.len] = '\0';
	struct sse_event ev = {
		.type = p->type.len ? p->type.data : "message",
		.data = p->data.data,
		.len = p->data.len,
		.id = sse_parser_last_id(p),
	};
	int r = p->on_event ? p->on_event(&ev, p->ctx, e) : 0;
	buf_reset(&p->data);
	buf_reset(&p->type);
	return r;
}

static int process_line(struct sse_parser *p, struct err *e)
{
	const char *line = p->line.data ? p->line.data : "";
	size_t len = p->line.len;
	if (len == 0)
		return dispatch(p, e);
	if (line[0] == ':')
		return 0;
	const char *colon = memchr(line, ':', len);
	size_t flen = colon ? (size_t)(colon - line) : len;
	const char *value = colon ? colon + 1 : line + len;
	size_t vlen = colon ? len - flen - 1 : 0;
	if (vlen && value[0] == ' ') {
		value++;
		vlen--;
	}
	if (field_is(line, flen, "data")) {
		if (p->data.len + vlen + 1 > p->max_event)
			return too_big(p, e);
		if (buf_append(&p->data, value, vlen, e) < 0 || buf_append(&p->data, "\n", 1, e) < 0)
			return -1;
	} else if (field_is(line, flen, "event")) {
		buf_reset(&p->type);
		if (buf_append(&p->type, value, vlen, e) < 0)
			return -1;
	} else if (field_is(line, flen, "id")) {
		/* An id holding NUL is ignored: it could not be sent back. */
		if (memchr(value, '\0', vlen))
			return 0;
		buf_reset(&p->id);
		if (buf_append(&p->id, value, vlen, e) < 0)
			return -1;
		p->seen_id = true;
	} else if (field_is(line, flen, "retry")) {
		if (vlen == 0)
			return 0;
		long ms = 0;
		for (size_t i = 0; i < vlen; i++) {
			if (value[i] < '0' || value[i] > '9')
				return 0;
			int d = value[i] - '0';
			ms = ms > (LONG_MAX - d) / 10 ? LONG_MAX : ms * 10 + d;
		}
		p->retry_ms = ms;
	}
	/* Any other field is ignored. */
	return 0;
}

static int feed_lines(struct sse_parser *p, const unsigned char *s, size_t len, struct err *e)
{
	size_t i = 0;
	while (i < len) {
		if (p->after_cr) {
			p->after_cr = false;
			if (s[i] == '\n') {
				i++;
				continue;
			}
		}
		size_t j = i;
		while (j < len && s[j] != '\r' && s[j] != '\n')
			j++;
		size_t n = j - i;
		if (n) {
			if (p->line.len + p->data.len + n > p->max_event)
				return too_big(p, e);
			if (buf_append(&p->line, s + i, n, e) < 0)
				return -1;
		}
		if (j == len)
			break;
		p->after_cr = s[j] == '\r';
		i = j + 1;
		int r = process_line(p, e);
		buf_reset(&p->line);
		if (r != 0)
			return r;
	}
	return 0;
}

int sse_parser_feed(struct sse_parser *p, const void *bytes, size_t len, struct err *e)
{
	const unsigned char *s = bytes;
	size_t i = 0;
	while (p->bom >= 0 && i < len) {
		/* Reaching 3 turns bom into -1 below: it always indexes bom_bytes. */
		assert(p->bom < (int)sizeof bom_bytes);
		if (s[i] == bom_bytes[p->bom]) {
			i++;
			if (++p->bom == 3)
				p->bom = -1;
			continue;
		}
		/* Not a BOM after all: the bytes matched so far are text. */
		int k = p->bom;
		p->bom = -1;
		if (k) {
			int r = feed_lines(p, bom_bytes, (size_t)k, e);
			if (r != 0)
				return r;
		}
	}
	if (i == len)
		return 0;
	return feed_lines(p, s + i, len - i, e);
}
