#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t limit)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->limit = limit;
}

void buf_finish(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_finish_secure(struct buf *b)
{
	if (b->data) {
		/* volatile so the compiler cannot drop the wipe of memory it frees */
		volatile char *p = b->data;
		for (size_t i = 0; i < b->cap; i++)
			p[i] = 0;
	}
	buf_finish(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static int reserve(struct buf *b, size_t extra, struct err *e)
{
	if (b->limit && (extra > b->limit || b->len > b->limit - extra)) {
		err_set(e, ERR_PROTOCOL, "message over %zu bytes", b->limit);
		if (e)
			e->detail = ERR_DETAIL_FINAL;
		return -1;
	}
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
	char *p = realloc(b->data, cap);
	if (!p)
		return err_oom(e);
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *data, size_t len, struct err *e)
{
	if (reserve(b, len, e) < 0)
		return -1;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int buf_printf(struct buf *b, struct err *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return err_set(e, ERR_INTERNAL, "formatting failed");
	if (reserve(b, (size_t)n, e) < 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

char *buf_steal(struct buf *b, size_t *len)
{
	char *d = b->data;
	if (!d) {
		d = calloc(1, 1);
	}
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return d;
}
