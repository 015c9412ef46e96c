#pragma once
/* A streaming JSON writer for documents too big to build as a jansson tree
 * first (the JSON report: 180 MB for 100,000 invocations). The bytes are
 * exactly what json_dumpf(JSON_INDENT(2) | JSON_PRESERVE_ORDER |
 * JSON_ENSURE_ASCII) gives for the same tree, or, compact, what
 * JSON_COMPACT gives:
 * - the structure (braces, brackets, separators, newlines and two-space
 *   indentation), keys, literals and integers are written here. Keys are
 *   the caller's constant identifiers, written as they are: nothing in
 *   them may need escaping;
 * - every string is escaped as jansson escapes it, and by jansson whenever
 *   there is anything to escape (see jw_str); a string jansson refuses
 *   (bad UTF-8) is repaired with U+FFFD and encoded by jansson.
 *   bench/render-json-diff.c checks this against json_dumps;
 * - output goes through one 1 MiB buffer flushed with fwrite. The FILE
 *   belongs to the caller and may already have been written to, when
 *   setvbuf is no longer allowed: the buffer is ours instead;
 * - a big array's items may be written by two threads (jw_items), the
 *   bytes those of one.
 * Errors are sticky: `failed` (out of memory) and the FILE's error flag,
 * for the caller to check at the end. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <jansson.h>

#define JW_MAX_DEPTH 16
#define JW_OUT_SIZE ((size_t)1 << 20)
#define JW_CACHE_SIZE 256 /* entries; a power of two */

/* The per-member helpers are inlined whatever the compiler would choose: a
 * report writes millions of members, each a few instructions once a literal
 * key's strlen folds; left to itself GCC made some of them calls, and
 * `file --format json` ran 2% more instructions. */
#define JW_INLINE __attribute__((always_inline)) static inline

struct jw_cached {
	const char *key; /* the string's address */
	char *text;      /* its jansson encoding, quotes included */
	size_t len;
	size_t room; /* bytes allocated at text */
};

/* A value written the same way every time at one depth (jw_memo_begin). */
#define JW_MEMO_LEN 96
struct jw_memo {
	int depth;
	bool compact;
	uint8_t len;            /* 0: nothing kept */
	unsigned long at_flush; /* w->flushes when the value began */
	char text[JW_MEMO_LEN];
};
#define JW_MEMOS 8

struct jw_pipe;
struct jw_worker;

struct jw {
	FILE *f;                  /* where jw_flush writes, or: */
	struct jw_pipe *pipe;     /* a worker's: jw_flush hands the buffer over */
	struct jw_worker *worker; /* the second writer of jw_items, once made */
	char *out;
	size_t len;
	int depth;
	bool has_items[JW_MAX_DEPTH];
	bool failed;
	bool compact; /* JSON Lines: no newline, no indentation, no space after ':' */
	json_t *str;  /* reused for every string scalar */
	struct jw_cached cache[JW_CACHE_SIZE];
	unsigned long flushes;         /* buffers emptied so far (jw_memo_end) */
	struct jw_memo memo[JW_MEMOS]; /* each writer's own: writers run on two threads */
};

/* Ready to write to f at depth 0 (or set depth and has_items to continue a
 * document written elsewhere). -1 when memory runs out; jw_finish in either
 * case. */
int jw_init(struct jw *w, FILE *f);
/* Frees w's memory; writes nothing (jw_flush first). */
void jw_finish(struct jw *w);
/* Empties the buffer into the FILE. */
void jw_flush(struct jw *w);

void jw_raw_slow(struct jw *w, const char *s, size_t n);
/* Bytes as they are. */
static inline void jw_raw(struct jw *w, const char *s, size_t n)
{
	if (n > JW_OUT_SIZE - w->len) {
		jw_raw_slow(w, s, n);
		return;
	}
	memcpy(w->out + w->len, s, n);
	w->len += n;
}

#define jw_lit(w, s) jw_raw((w), (s), sizeof(s) - 1)

/* len bytes of fd from off, as they are (a part of a document written
 * apart). 0, or -1 with errno set (0 when the file ends first). */
int jw_raw_fd(struct jw *w, int fd, off_t off, size_t len);

/* Room for n more bytes in the buffer (n well under its size). */
static inline char *jw_reserve(struct jw *w, size_t n)
{
	if (n > JW_OUT_SIZE - w->len)
		jw_flush(w);
	return w->out + w->len;
}

/* The deepest indentation, 2 * (JW_MAX_DEPTH - 1) spaces, fits one
 * constant-size store of JW_SPACES: no memset call nor loop for each of a
 * large report's million keys (the buffer has room reserved past it). */
#define JW_SPACES 32
_Static_assert(2 * (JW_MAX_DEPTH - 1) <= JW_SPACES, "indentation in one store");

/* The separator and the indentation of the next member or item, at p
 * (2 + JW_SPACES bytes reserved): where they end. */
JW_INLINE char *jw_sep(struct jw *w, char *p)
{
	if (w->has_items[w->depth])
		*p++ = ',';
	w->has_items[w->depth] = true;
	if (w->compact)
		return p;
	*p++ = '\n';
	memset(p, ' ', JW_SPACES);
	return p + 2 * (size_t)w->depth;
}

/* Before a member or an item: the separator and the indentation. */
JW_INLINE void jw_next(struct jw *w)
{
	char *start = jw_reserve(w, 2 + JW_SPACES);
	w->len += (size_t)(jw_sep(w, start) - start);
}

/* A member's key, then its value is to be written: one reserve for the
 * separator, the indentation and the key. Always inline: called with
 * literal keys, so strlen folds. */
JW_INLINE void jw_key(struct jw *w, const char *key)
{
	size_t n = strlen(key);
	char *start = jw_reserve(w, 2 + JW_SPACES + n + 4), *p = jw_sep(w, start);
	*p++ = '"';
	memcpy(p, key, n);
	memcpy(p + n, "\": ", 3);
	p += n + (w->compact ? 2 : 3); /* compact: without the space */
	w->len += (size_t)(p - start);
}

/* Opens an object ('{') or array ('['): a member when key is not NULL,
 * else an item (or the document). */
/* Opens an object or array as the value of the key just written. */
JW_INLINE void jw_open_value(struct jw *w, char bracket)
{
	jw_raw(w, &bracket, 1);
	if (w->depth + 1 >= JW_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	w->depth++;
	w->has_items[w->depth] = false;
}

JW_INLINE void jw_open(struct jw *w, const char *key, char bracket)
{
	if (key)
		jw_key(w, key);
	else if (w->depth > 0)
		jw_next(w);
	jw_open_value(w, bracket);
}

JW_INLINE void jw_close(struct jw *w, char bracket)
{
	bool had = w->has_items[w->depth];
	w->depth--;
	if (had && !w->compact) {
		char *p = jw_reserve(w, 1 + JW_SPACES);
		*p = '\n';
		memset(p + 1, ' ', JW_SPACES);
		w->len += 1 + 2 * (size_t)w->depth;
	}
	jw_raw(w, &bracket, 1);
}

/* Values that are the same bytes each time at the same depth (a payload
 * with nothing to show is {"state": "absent"} in every attempt). Memo k
 * (below JW_MEMOS, the caller's numbering, one value each) either writes
 * the value as it was kept, returning true, or returns false: the caller
 * writes it and calls jw_memo_end(w, k, mark) to keep it. Only a value
 * after its key (jw_key), whose bytes depend on nothing but the depth and
 * the mode. */
static inline bool jw_memo_begin(struct jw *w, unsigned k, size_t *mark)
{
	struct jw_memo *m = &w->memo[k];
	if (m->len && m->depth == w->depth && m->compact == w->compact) {
		/* All of text, a constant size: a copy of len bytes was `rep
		 * movs`, 40% of writing a payload. */
		memcpy(jw_reserve(w, JW_MEMO_LEN), m->text, JW_MEMO_LEN);
		w->len += m->len;
		return true;
	}
	m->at_flush = w->flushes;
	*mark = w->len;
	return false;
}
void jw_memo_end(struct jw *w, unsigned k, size_t mark);

/* Values. A string may be NULL (written as null). */
void jw_int(struct jw *w, int64_t v);
static inline void jw_bool(struct jw *w, bool b)
{
	if (b)
		jw_lit(w, "true");
	else
		jw_lit(w, "false");
}
void jw_str(struct jw *w, const char *s);
/* The same for strings that repeat (names, fixed vocabulary): the encoding
 * is kept by the string's address, so s must not change while w writes. */
void jw_str_cached(struct jw *w, const char *s);

/* Members. */
JW_INLINE void jw_k_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str(w, s);
}

JW_INLINE void jw_k_cstr(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str_cached(w, s);
}

JW_INLINE void jw_k_int(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	jw_int(w, v);
}

JW_INLINE void jw_k_bool(struct jw *w, const char *key, bool b)
{
	jw_key(w, key);
	jw_bool(w, b);
}

JW_INLINE void jw_k_null(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_lit(w, "null");
}

void jw_k_ints(struct jw *w, const char *key, const int64_t *v, size_t n);

/* ---- An array's items on two threads ----
 * The items [0, n) of an array the caller has opened (and closes after),
 * written by write(w, ctx, from, to) in chunks: chunk_end(ctx, from) says
 * where the chunk starting at from ends (about JW_CHUNK bytes of output;
 * only the balance between the threads depends on it). With threads
 * (parallel.h) and JW_SPLIT_CHUNKS chunks or more, a worker writes the odd
 * chunks with a writer of its own while w writes the even ones: write must
 * write the same bytes whichever writer it is given, and read ctx only. */
#define JW_CHUNK ((size_t)64 << 10)
#define JW_SPLIT_CHUNKS 32 /* fewer chunks (about 2 MiB): one thread */

struct jw_items {
	size_t n;
	size_t (*chunk_end)(const void *ctx, size_t from);
	void (*write)(struct jw *w, const void *ctx, size_t from, size_t to);
	const void *ctx;
};

void jw_items(struct jw *w, const struct jw_items *it, unsigned threads);
