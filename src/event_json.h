#pragma once
/* Private to the history parsers: a small validating JSON scanner that never
 * builds a whole-document tree. One event object at a time is cut into a
 * flat token array (reused for every event); everything else is walked or
 * skipped in place. The same tokens can be made from a decoded json_t, so
 * one decoder serves bytes and tool results alike. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"

/* Deeper documents are refused with a clear error, never a stack overflow. */
#define EVJ_DEPTH_MAX 512
/* No real event has more than a few dozen values: a cap keeps one hostile
 * element from costing memory out of proportion to its size. */
#define EVJ_TOKENS_MAX 100000

enum evj_type {
	EVJ_NULL,
	EVJ_FALSE,
	EVJ_TRUE,
	EVJ_INT,
	EVJ_REAL,
	EVJ_STRING,
	EVJ_ARRAY,
	EVJ_OBJECT,
};

struct evj_tok {
	uint8_t type;
	bool escaped;  /* string text still holds backslash escapes */
	bool opaque;   /* container whose members were not tokenised */
	uint32_t end;  /* index one past this token's subtree */
	const char *p; /* string contents (between quotes), number text, container span */
	size_t len;
	size_t off;      /* byte offset in the input (0 for json_t) */
	int64_t i;       /* EVJ_INT value */
	const json_t *j; /* the value, when made from a json_t */
};

/* The keys of the objects open at the moment, innermost last: each object's
 * keys are checked for a repeat when it closes (evj_keys_close), so a
 * document never means one thing to us and another to a last-wins or
 * first-wins reader. */
struct evj_key {
	const char *p; /* raw text between the quotes */
	size_t len;
	size_t off; /* byte offset of the opening quote */
	bool escaped;
};

struct evj_keys {
	struct evj_key *v;
	size_t n, cap;
};

int evj_keys_grow(struct evj_keys *k, struct err *e);
static inline int evj_keys_push(struct evj_keys *k, const char *p, size_t len, bool escaped, size_t off,
				struct err *e)
{
	if (k->n == k->cap && evj_keys_grow(k, e) < 0)
		return -1;
	k->v[k->n++] = (struct evj_key){.p = p, .len = len, .off = off, .escaped = escaped};
	return 0;
}
/* Refuses a key named twice among v[from..n) with ERR_INPUT naming the byte
 * of the second one, then drops those keys (n = from). */
int evj_keys_close(struct evj_keys *k, size_t from, struct err *e);
void evj_keys_finish(struct evj_keys *k);

struct evj_toks {
	struct evj_tok *v;
	size_t n, cap;
	struct evj_keys keys; /* scratch for the duplicate-key check */
};

struct evj_scan {
	const char *buf;
	size_t len;
	size_t pos;
};

enum evj_status {
	EVJ_OK = 0,
	EVJ_ERROR = -1,   /* bad JSON: err set */
	EVJ_TOO_BIG = -2, /* over EVJ_TOKENS_MAX: err set */
};

void evj_skip_ws_slow(struct evj_scan *s);
/* Inline: called between every two tokens, and most often there is no
 * whitespace at all (after a key, before ':'). */
static inline void evj_skip_ws(struct evj_scan *s)
{
	if (s->pos < s->len && (unsigned char)s->buf[s->pos] > ' ')
		return;
	evj_skip_ws_slow(s);
}
/* Validates and skips one value at s->pos (duplicate keys included). */
int evj_skip_value(struct evj_scan *s, struct err *e);
/* Validates a string at s->pos (a quote); p and len get the raw contents. */
int evj_scan_string(struct evj_scan *s, const char **p, size_t *len, bool *escaped, struct err *e);
/* Tokenises one value at s->pos; arrays and payload values stay opaque. */
int evj_tokenise(struct evj_scan *s, struct evj_toks *t, struct err *e);
/* The same from a decoded value (strings are not escaped; opaque containers
 * keep their json_t). */
int evj_tokenise_json(const json_t *v, struct evj_toks *t, struct err *e);
void evj_toks_finish(struct evj_toks *t);

/* Unescapes a string token's text into *scratch (grown as needed) unless it
 * has no escapes; returns a pointer to len bytes, or NULL on allocation
 * failure. */
const char *evj_str(const struct evj_tok *t, char **scratch, size_t *scratch_cap, size_t *len);
/* FNV-1a over the unescaped text of a string token, and its length. */
void evj_str_hash(const struct evj_tok *t, uint64_t *hash, size_t *len);

/* Lowercases and drops '_', '-', '.' and ' ': taskExecutionId,
 * task_execution_id and TaskExecutionID all become taskexecutionid. Returns
 * the length, or 0 if it does not fit in cap. */
size_t evj_normalise(const char *s, size_t len, char *out, size_t cap);
/* A key spelled like a payload field (input, output, result, customStatus). */
bool evj_is_payload_key(const char *s, size_t len);
