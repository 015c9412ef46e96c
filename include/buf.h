#pragma once
/* A growable byte buffer, always NUL-terminated, with a hard size cap so a
 * hostile peer cannot make us allocate without bound. */

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

struct buf {
	char *data; /* NUL-terminated when non-NULL */
	size_t len;
	size_t cap;
	size_t limit; /* 0: no limit */
};

void buf_init(struct buf *b, size_t limit);
void buf_finish(struct buf *b);
void buf_reset(struct buf *b); /* len = 0, keeps memory */
/* Returns -1 (ERR_PROTOCOL "... over N bytes") when the limit would be passed. */
int buf_append(struct buf *b, const void *data, size_t len, struct err *e);
int buf_printf(struct buf *b, struct err *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Drops the first n bytes. */
void buf_consume(struct buf *b, size_t n);
/* Hands the data to the caller (malloc'd, NUL-terminated) and resets. */
char *buf_steal(struct buf *b, size_t *len);
/* Zeroes the memory before freeing: for buffers that held secrets. */
void buf_finish_secure(struct buf *b);
