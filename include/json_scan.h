#pragma once
/* A validating JSON scanner that builds no tree, for input too large or too
 * hot to decode whole: the history parser (a 60 MB history would be a
 * ~380 MB jansson tree), the transport (is a message JSON, where does a
 * batch element end) and the MCP session (where do a few members of a tool
 * answer lie). It is exactly as strict as jansson's decoder, which the
 * history fuzzer checks differentially: RFC 8259 grammar, valid UTF-8, no
 * NUL in strings (not even as \u0000), a key at most once per object; and
 * nesting is bounded (JSCAN_DEPTH_MAX) where jansson's is not.
 *
 * Three ways to read a value at the scanner's position:
 * - skip it (jscan_skip_value): validated, nothing kept;
 * - walk an object's members (jscan_object_open, jscan_object_member): the
 *   caller reads or skips each value itself;
 * - cut it into a flat token array (jscan_tokenise): one small value at a
 *   time (a history event), the array reused for the next; the same
 *   tokens can be made from a decoded json_t (jscan_tokenise_json), so one
 *   reader serves bytes and decoded documents alike.
 * Errors are ERR_INPUT "not JSON at byte N: what" (N counts from buf), or
 * ERR_INTERNAL when memory runs out. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"

/* Deeper documents are refused with a clear error, never a stack overflow. */
#define JSCAN_DEPTH_MAX 512
/* The most tokens one jscan_tokenise makes: a cap keeps one hostile value
 * from costing memory out of proportion to its size. */
#define JSCAN_TOKENS_MAX 100000

/* The scanner: buf[pos..len) is still to read. */
struct jscan {
	const char *buf;
	size_t len;
	size_t pos;
};

enum jscan_status {
	JSCAN_OK = 0,
	JSCAN_ERROR = -1,   /* bad JSON, or out of memory: err set */
	JSCAN_TOO_BIG = -2, /* over JSCAN_TOKENS_MAX: err set */
};

void jscan_skip_ws_slow(struct jscan *s);
/* Skips whitespace. Inline: called between every two tokens, and most often
 * there is none at all (after a key, before ':'). */
static inline void jscan_skip_ws(struct jscan *s)
{
	if (s->pos < s->len && (unsigned char)s->buf[s->pos] > ' ')
		return;
	jscan_skip_ws_slow(s);
}

/* Validates and skips one value at s->pos (leading whitespace allowed),
 * repeated keys included. 0 or -1. */
int jscan_skip_value(struct jscan *s, struct err *e);

/* Validates the string at s->pos (a quote) and moves past it: *p and *len
 * get its raw contents between the quotes, *escaped whether they hold a
 * backslash escape (then jscan_str or jscan_str_hash read its text). */
int jscan_string(struct jscan *s, const char **p, size_t *len, bool *escaped, struct err *e);

/* ---- Repeated keys ----
 * The keys of the objects open at the moment, innermost last: each object's
 * keys are checked for a repeat when it closes (jscan_keys_close), so a
 * document never means one thing to us and another to a last-wins or
 * first-wins reader. */
struct jscan_key {
	const char *p; /* raw text between the quotes */
	size_t len;
	size_t off; /* byte offset of the opening quote */
	bool escaped;
};

struct jscan_keys {
	struct jscan_key *v;
	size_t n, cap;
};

int jscan_keys_grow(struct jscan_keys *k, struct err *e);
static inline int jscan_keys_push(struct jscan_keys *k, const char *p, size_t len, bool escaped, size_t off,
				  struct err *e)
{
	if (k->n == k->cap && jscan_keys_grow(k, e) < 0)
		return -1;
	k->v[k->n++] = (struct jscan_key){.p = p, .len = len, .off = off, .escaped = escaped};
	return 0;
}
/* Refuses a key named twice among v[from..n) with ERR_INPUT naming the byte
 * of the second one, then drops those keys (n = from). Keys compare by their
 * unescaped text ("a" and "\u0061" are one key). */
int jscan_keys_close(struct jscan_keys *k, size_t from, struct err *e);
void jscan_keys_finish(struct jscan_keys *k);

/* ---- Walking an object's members ----
 *
 *	struct jscan_object o;
 *	struct jscan_key key;
 *	int more;
 *	if (jscan_object_open(s, &o, keys, e) < 0)
 *		return -1;
 *	while ((more = jscan_object_member(s, &o, &key, e)) > 0)
 *		read or skip the value at s->pos;
 *	return more;
 *
 * With keys (not NULL), every key goes there and the object is refused
 * when one repeats (checked at its closing brace); the caller's values may
 * push and close keys of their own objects in between. Without, repeats
 * are the caller's to notice. */
struct jscan_object {
	struct jscan_keys *keys;
	size_t from; /* this object's first key in keys */
	bool started;
};

/* Consumes the '{' at s->pos (leading whitespace allowed). */
int jscan_object_open(struct jscan *s, struct jscan_object *o, struct jscan_keys *keys, struct err *e);
/* The next member: 1 with its key in *key and s->pos at its value (past the
 * whitespace), which the caller must consume before the next call; 0 past
 * the closing '}'; -1 on bad JSON. */
int jscan_object_member(struct jscan *s, struct jscan_object *o, struct jscan_key *key, struct err *e);

/* ---- Tokens ---- */

enum jscan_type {
	JSCAN_NULL,
	JSCAN_FALSE,
	JSCAN_TRUE,
	JSCAN_INT,
	JSCAN_REAL,
	JSCAN_STRING,
	JSCAN_ARRAY,
	JSCAN_OBJECT,
};

/* One value. An object's members follow it as key, value, key, value...
 * (each value with its own subtree), up to index end. */
struct jscan_tok {
	uint8_t type;
	bool escaped;  /* string text still holds backslash escapes */
	bool opaque;   /* container whose members were not tokenised */
	uint32_t end;  /* index one past this token's subtree */
	const char *p; /* string contents (between quotes), number text, container span */
	size_t len;
	size_t off;      /* byte offset in the input (0 for json_t) */
	int64_t i;       /* JSCAN_INT value */
	const json_t *j; /* the value, when made from a json_t */
};

/* The token array, reused from one jscan_tokenise to the next. Objects are
 * tokenised member by member down to 8 levels; arrays,
 * deeper objects and objects under a key opaque_key names (it may be NULL)
 * stay opaque: one token spanning their validated text. */
struct jscan_toks {
	struct jscan_tok *v;
	size_t n, cap;
	bool (*opaque_key)(const char *key, size_t len);
	struct jscan_keys keys; /* scratch for the repeated-key check */
};

/* Tokenises one value at s->pos into t (t->v[0] and on). JSCAN_OK, or a
 * jscan_status with err set. */
int jscan_tokenise(struct jscan *s, struct jscan_toks *t, struct err *e);
/* The same from a decoded value: strings are not escaped, tokens keep their
 * json_t (opaque containers need it), and p/len of a container or number
 * are not set. */
int jscan_tokenise_json(const json_t *v, struct jscan_toks *t, struct err *e);
void jscan_toks_finish(struct jscan_toks *t);
/* Unescapes a string token's text into *scratch (grown as needed) unless it
 * has no escapes; returns a pointer to len bytes (NUL-terminated only in
 * the scratch), or NULL on allocation failure. */
const char *jscan_str(const struct jscan_tok *t, char **scratch, size_t *scratch_cap, size_t *len);
/* FNV-1a over the unescaped text of a string token, and its length. */
void jscan_str_hash(const struct jscan_tok *t, uint64_t *hash, size_t *len);
