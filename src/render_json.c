/* The JSON report, "catalyst-audit.report/v1" (documented field by field in
 * catalyst-audit(1)). Key order is fixed by the order of the calls below.
 *
 * How it is written, and why not as one jansson tree. A history of 100,000
 * invocations makes a 180 MB report; building it as jansson objects (one per
 * attempt, ~15 keys each) and dumping them was most of `file`'s time, and
 * the tree doubled the memory. So the document is streamed, byte for byte
 * what json_dumpf(JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII)
 * gives for the whole tree:
 * - every string is escaped as jansson escapes it, and by jansson whenever
 *   there is anything to escape: a string with no byte jansson's
 *   dump_string would touch is copied between quotes (what jansson writes
 *   for it, checked in jw_plain: every id and timestamp); in any other the
 *   plain runs are copied and each run in between is encoded by jansson
 *   (one reused json_t string, json_string_setn + json_dumpb); a string
 *   jansson refuses (bad UTF-8) is repaired and encoded whole by jansson.
 *   Strings that repeat (names, event types, error texts, the fixed
 *   vocabulary) go through a small cache of their encoding, keyed by
 *   address (the report is immutable while it is written).
 *   bench/render-json-diff.c checks this against json_dumps;
 * - the structure (braces, brackets, ", ", ": ", newlines and the two-space
 *   indentation), the keys (this file's constant identifiers: nothing in
 *   them to escape), the literals true/false/null and integers (decimal,
 *   what jansson prints with "%" JSON_INTEGER_FORMAT) are written here;
 * - output goes through one 1 MiB buffer flushed with fwrite. The FILE
 *   belongs to the caller and may already have been written to, when
 *   setvbuf is no longer allowed: the buffer is ours instead;
 * - a run's big arrays (activities, findings, withheld) are written by two
 *   threads when there are two cores: see "Big arrays on two threads". */
#include "report.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "classify.h"
#include "escape.h"

#define JW_MAX_DEPTH 16
#define JW_OUT_SIZE ((size_t)1 << 20)
#define JW_CACHE_SIZE 256 /* entries; a power of two */
#define JW_CACHE_MAX 512  /* longest encoding kept in the cache */
#define JW_STRING_FLAGS (JSON_ENSURE_ASCII | JSON_ENCODE_ANY)

struct jw_cached {
	const char *key; /* the string's address */
	char *text;      /* its jansson encoding, quotes included */
	size_t len;
};

struct jw_pipe;

struct jw {
	FILE *f;              /* where jw_flush writes, or: */
	struct jw_pipe *pipe; /* a worker's: jw_flush hands the buffer over */
	char *out;
	size_t len;
	int depth;
	bool has_items[JW_MAX_DEPTH];
	bool failed;
	bool compact; /* JSON Lines: no newline, no indentation, no space after ':' */
	json_t *str;  /* reused for every string scalar */
	struct jw_cached cache[JW_CACHE_SIZE];
};

static void pipe_seal(struct jw *w);

/* Empties the buffer: to the FILE, or a worker's to the thread that writes
 * the FILE (w->out is then another buffer). */
static void jw_flush(struct jw *w)
{
	if (w->pipe) {
		pipe_seal(w);
		return;
	}
	if (w->len && fwrite(w->out, 1, w->len, w->f) != w->len)
		w->failed = true;
	w->len = 0;
}

static void jw_raw(struct jw *w, const char *s, size_t n)
{
	if (n > JW_OUT_SIZE - w->len) {
		jw_flush(w);
		if (n > JW_OUT_SIZE && !w->pipe) {
			if (fwrite(s, 1, n, w->f) != n)
				w->failed = true;
			return;
		}
		while (n > JW_OUT_SIZE) { /* a worker's: a buffer at a time */
			memcpy(w->out, s, JW_OUT_SIZE);
			w->len = JW_OUT_SIZE;
			jw_flush(w);
			s += JW_OUT_SIZE;
			n -= JW_OUT_SIZE;
		}
	}
	memcpy(w->out + w->len, s, n);
	w->len += n;
}

#define jw_lit(w, s) jw_raw((w), (s), sizeof(s) - 1)

/* Room for n more bytes in the buffer (n well under its size). */
static inline char *jw_reserve(struct jw *w, size_t n)
{
	if (n > JW_OUT_SIZE - w->len)
		jw_flush(w);
	return w->out + w->len;
}

static void jw_indent(struct jw *w)
{
	if (w->compact)
		return;
	size_t n = 2 * (size_t)w->depth;
	char *p = jw_reserve(w, n + 1);
	*p++ = '\n';
	memset(p, ' ', n);
	w->len += n + 1;
}

/* Before a member or an item: the separator and the indentation. */
static inline void jw_next(struct jw *w)
{
	if (w->compact) {
		if (w->has_items[w->depth])
			jw_raw(w, ",", 1);
		w->has_items[w->depth] = true;
		return;
	}
	size_t n = 2 * (size_t)w->depth;
	char *p = jw_reserve(w, n + 2), *start = p;
	if (w->has_items[w->depth])
		*p++ = ',';
	w->has_items[w->depth] = true;
	*p++ = '\n';
	memset(p, ' ', n);
	w->len += (size_t)(p - start) + n;
}

/* Called with the literal keys of this file, so inlined strlen folds. */
static inline void jw_key(struct jw *w, const char *key)
{
	size_t n = strlen(key);
	jw_next(w);
	char *p = jw_reserve(w, n + 4);
	*p++ = '"';
	memcpy(p, key, n);
	memcpy(p + n, "\": ", 3);
	w->len += n + 4 - (w->compact ? 1 : 0); /* compact: without the space */
}

static void jw_open(struct jw *w, const char *key, char bracket)
{
	if (key)
		jw_key(w, key);
	else if (w->depth > 0)
		jw_next(w);
	jw_raw(w, &bracket, 1);
	if (w->depth + 1 >= JW_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	w->depth++;
	w->has_items[w->depth] = false;
}

static void jw_close(struct jw *w, char bracket)
{
	bool had = w->has_items[w->depth];
	w->depth--;
	if (had)
		jw_indent(w);
	jw_raw(w, &bracket, 1);
}

/* Decimal, as jansson prints a json_integer. */
static void jw_int(struct jw *w, int64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof tmp;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	jw_raw(w, p, (size_t)(tmp + sizeof tmp - p));
}

static void jw_bool(struct jw *w, bool b)
{
	if (b)
		jw_lit(w, "true");
	else
		jw_lit(w, "false");
}

/* Loads s into the reused jansson string. Text that is not valid UTF-8
 * (jansson refuses it) is repaired with U+FFFD rather than dropped. */
static int jw_load(struct jw *w, const char *s)
{
	if (json_string_set(w->str, s) == 0)
		return 0;
	char *fixed = escape_utf8_repair_dup(s);
	int rc = fixed ? json_string_set(w->str, fixed) : -1;
	free(fixed);
	return rc;
}

/* Whether jansson writes the len bytes at s verbatim between quotes: its
 * dump_string escapes only '"', '\\', bytes below 0x20 and, with
 * JSON_ENSURE_ASCII, everything above 0x7F ('/' only under
 * JSON_ESCAPE_SLASH, not used here), and its UTF-8 check passes any ASCII.
 * Such a string has nothing for jansson to escape: copying it is byte for
 * byte what jansson writes, and every string that does need escaping still
 * goes through jansson. This skips jansson's per-character loop on ids and
 * timestamps, which was half the instructions of a large report. Eight
 * bytes at a time (the usual "has a byte less than / equal to" tests). */
static bool jw_plain(const char *s, size_t len)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t x, q, b;
		memcpy(&x, s + i, 8);
		q = x ^ (ones * '"');
		b = x ^ (ones * '\\');
		if (((x - ones * 0x20) & ~x & highs) | (x & highs) | ((q - ones) & ~q & highs) |
		    ((b - ones) & ~b & highs))
			return false;
	}
	for (; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c > 0x7F || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* A string with something to escape (a finding message quoting an error,
 * a non-ASCII name), written in pieces: runs of bytes jansson copies
 * verbatim (see jw_plain) are copied, and each run in between goes
 * through jansson (json_string_setn + json_dumpb, quotes dropped). jansson
 * escapes one code point at a time and a verbatim byte is ASCII, so always
 * a code point boundary: the pieces add up to what jansson writes for the
 * whole string, and a piece is valid UTF-8 exactly when the whole string's
 * bytes there are. Returns -1, with nothing written, when a piece is not
 * valid UTF-8 or does not fit: the caller then hands jansson the whole
 * string. */
static int jw_encode_pieces(struct jw *w, const char *s, size_t len, size_t *at_offset)
{
	/* jansson writes at most 6 bytes per input byte (\u00XX). */
	if (len > (JW_OUT_SIZE - 2) / 6)
		return -1;
	if (6 * len + 2 > JW_OUT_SIZE - w->len)
		jw_flush(w);
	size_t start = w->len;
	w->out[w->len++] = '"';
	const char *p = s, *end = s + len;
	while (p < end) {
		const char *q = p;
		while (q < end && (unsigned char)*q >= 0x20 && (unsigned char)*q <= 0x7F && *q != '"' &&
		       *q != '\\')
			q++;
		memcpy(w->out + w->len, p, (size_t)(q - p));
		w->len += (size_t)(q - p);
		if (q == end)
			break;
		p = q;
		while (q < end &&
		       ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7F || *q == '"' || *q == '\\'))
			q++;
		char *at = w->out + w->len;
		size_t room = JW_OUT_SIZE - w->len;
		size_t n = 0;
		if (json_string_setn(w->str, p, (size_t)(q - p)) == 0)
			n = json_dumpb(w->str, at, room, JW_STRING_FLAGS);
		if (n < 2 || n > room) {
			w->len = start;
			return -1;
		}
		memmove(at, at + 1, n - 2); /* without jansson's quotes */
		w->len += n - 2;
		p = q;
	}
	w->out[w->len++] = '"';
	*at_offset = start;
	return 0;
}

/* Writes s (not NULL) as jansson encodes it. Returns where the encoding
 * sits in the output buffer (for the cache), or NULL when it did not go
 * through the buffer or failed. */
static const char *jw_encode(struct jw *w, const char *s, size_t *len)
{
	size_t slen = strlen(s);
	if (!jw_plain(s, slen)) {
		size_t off;
		if (jw_encode_pieces(w, s, slen, &off) == 0) {
			*len = w->len - off;
			return w->out + off;
		}
	} else if (slen <= JW_OUT_SIZE - 2) {
		size_t plain = slen;
		if (plain + 2 > JW_OUT_SIZE - w->len)
			jw_flush(w);
		char *at = w->out + w->len;
		at[0] = '"';
		memcpy(at + 1, s, plain);
		at[plain + 1] = '"';
		w->len += plain + 2;
		*len = plain + 2;
		return at;
	}
	if (jw_load(w, s) < 0) {
		w->failed = true;
		return NULL;
	}
	size_t room = JW_OUT_SIZE - w->len;
	size_t n = json_dumpb(w->str, w->out + w->len, room, JW_STRING_FLAGS);
	if (n > room) {
		jw_flush(w);
		room = JW_OUT_SIZE;
		n = json_dumpb(w->str, w->out, room, JW_STRING_FLAGS);
	}
	if (n == 0) {
		w->failed = true;
		return NULL;
	}
	if (n > room) { /* a string of over 1 MiB: once, unbuffered */
		char *big = json_dumps(w->str, JW_STRING_FLAGS);
		if (!big) {
			w->failed = true;
			return NULL;
		}
		jw_raw(w, big, strlen(big));
		free(big);
		return NULL;
	}
	const char *at = w->out + w->len;
	w->len += n;
	*len = n;
	return at;
}

/* A string or null (the JSON of a C string that may be NULL). */
static void jw_str(struct jw *w, const char *s)
{
	size_t n;
	if (!s)
		jw_lit(w, "null");
	else
		jw_encode(w, s, &n);
}

/* The same, for strings that repeat across the report: the encoding is
 * computed by jansson once per address and then copied. */
static void jw_str_cached(struct jw *w, const char *s)
{
	if (!s) {
		jw_lit(w, "null");
		return;
	}
	uintptr_t h = (uintptr_t)s;
	h ^= h >> 17;
	h *= UINT64_C(0x9E3779B97F4A7C15) & UINTPTR_MAX;
	struct jw_cached *c = &w->cache[(h >> 24) & (JW_CACHE_SIZE - 1)];
	if (c->key == s) {
		jw_raw(w, c->text, c->len);
		return;
	}
	size_t n;
	const char *at = jw_encode(w, s, &n);
	if (!at || n > JW_CACHE_MAX)
		return;
	char *text = c->len >= n ? c->text : realloc(c->text, n);
	if (!text)
		return; /* the cache is only a shortcut */
	memcpy(text, at, n);
	c->text = text;
	c->len = n;
	c->key = s;
}

/* An id: null when absent or empty (an empty id identifies nothing). */
static void jw_id(struct jw *w, const char *s)
{
	jw_str(w, s && *s ? s : NULL);
}

static inline void jw_k_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str(w, s);
}

static inline void jw_k_cstr(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str_cached(w, s);
}

static inline void jw_k_id(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_id(w, s);
}

static inline void jw_k_int(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	jw_int(w, v);
}

static inline void jw_k_bool(struct jw *w, const char *key, bool b)
{
	jw_key(w, key);
	jw_bool(w, b);
}

static void jw_k_ints(struct jw *w, const char *key, const int64_t *v, size_t n)
{
	jw_open(w, key, '[');
	for (size_t i = 0; i < n; i++) {
		jw_next(w);
		jw_int(w, v[i]);
	}
	jw_close(w, ']');
}

static const char *payload_state_id(enum payload_state s)
{
	switch (s) {
	case PAYLOAD_ABSENT:
		return "absent";
	case PAYLOAD_NULL:
		return "null";
	case PAYLOAD_EMPTY:
		return "empty";
	case PAYLOAD_PRESENT:
		return "present";
	}
	return "absent";
}

static void write_payload(struct jw *w, const char *key, const struct payload *p)
{
	jw_open(w, key, '{');
	jw_k_cstr(w, "state", payload_state_id(p->state));
	if (p->state == PAYLOAD_PRESENT)
		jw_k_int(w, "bytes", (int64_t)p->size);
	/* Only a prefix is known (dapr workflow history cuts payloads). */
	if (p->state == PAYLOAD_PRESENT && p->truncated)
		jw_k_bool(w, "truncated", true);
	jw_close(w, '}');
}

static void write_attempt(struct jw *w, const struct invocation *inv, const struct attempt *at)
{
	jw_open(w, NULL, '{');
	jw_k_int(w, "task_scheduled_id", at->scheduled_id);
	jw_k_str(w, "scheduled_at", at->scheduled_at);
	jw_k_cstr(w, "outcome", attempt_outcome_name(at->outcome));
	jw_k_cstr(w, "error_message", at->error_message);
	/* extras */
	jw_k_cstr(w, "error_type", at->error_type);
	/* The innermost innerFailure the class was decided on, or null. */
	if (at->cause_type || at->cause_message) {
		jw_open(w, "error_cause", '{');
		jw_k_cstr(w, "type", at->cause_type);
		jw_k_str(w, "message", at->cause_message);
		jw_k_int(w, "depth", at->cause_depth);
		jw_close(w, '}');
	} else {
		jw_key(w, "error_cause");
		jw_lit(w, "null");
	}
	jw_k_cstr(w, "failure_class", failure_class_name(at->failure));
	jw_k_bool(w, "non_retriable", at->non_retriable);
	jw_k_str(w, "completed_at", at->completed_at);
	jw_k_int(w, "results", (int64_t)at->n_results);
	jw_k_id(w, "task_execution_id", at->task_execution_id);
	if (inv->is_child_workflow)
		jw_k_id(w, "instance_id", at->instance_id);
	/* An inference: the result row named no scheduled id. */
	if (at->result_by_order)
		jw_k_bool(w, "result_by_order", true);
	write_payload(w, "input", &at->input);
	write_payload(w, "output", &at->output);
	jw_close(w, '}');
}

static void write_activity(struct jw *w, const struct invocation *inv)
{
	jw_open(w, NULL, '{');
	jw_k_cstr(w, "name", inv->name);
	jw_k_id(w, "task_execution_id", inv->task_execution_id);
	jw_open(w, "attempts", '[');
	for (size_t k = 0; k < inv->n_attempts; k++)
		write_attempt(w, inv, &inv->attempts[k]);
	jw_close(w, ']');
	jw_k_ints(w, "retry_timer_event_ids", inv->retry_timer_event_ids, inv->n_retry_timers);
	/* extras */
	jw_k_bool(w, "child_workflow", inv->is_child_workflow);
	jw_k_int(w, "generation", (int64_t)inv->generation);
	jw_k_cstr(w, "link", invocation_link_name(inv->link));
	jw_close(w, '}');
}

static void write_finding(struct jw *w, const struct finding *f)
{
	jw_open(w, NULL, '{');
	jw_k_cstr(w, "kind", finding_kind_id(f->kind));
	jw_k_cstr(w, "severity", severity_name(f->severity));
	jw_k_cstr(w, "activity", f->activity);
	jw_k_id(w, "task_execution_id", f->task_execution_id);
	jw_k_ints(w, "evidence_event_ids", f->evidence_event_ids, f->n_evidence);
	jw_k_str(w, "message", f->message);
	jw_k_str(w, "summary", f->summary);
	jw_k_str(w, "remedy", f->remedy);
	/* extra: positions in history, which also reach results (event_id -1) */
	jw_open(w, "evidence_event_indexes", '[');
	for (size_t i = 0; i < f->n_evidence_event_indexes; i++) {
		jw_next(w);
		jw_int(w, (int64_t)f->evidence_event_indexes[i]);
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

static void write_withheld(struct jw *w, const struct withheld *h)
{
	jw_open(w, NULL, '{');
	jw_k_int(w, "event_id", h->event_id);
	jw_k_cstr(w, "event_type", withheld_event_type(h));
	jw_k_cstr(w, "field", withheld_field_name(h->field));
	jw_k_int(w, "event_index", (int64_t)h->event_index);
	jw_close(w, '}');
}

/* ---- Big arrays on two threads ---------------------------------------------
 *
 * A run's activities, findings and withheld entries are most of a large
 * report (183 MB for 100,000 invocations, 0.11 s of writing on one core).
 * When an array is big enough (JW_SPLIT_CHUNKS chunks) and there are two
 * cores, its items are cut into chunks of about JW_CHUNK bytes of output;
 * a worker thread writes the odd chunks with its own writer (same depth,
 * past the first item, its own jansson string and cache) while this thread
 * writes the even ones to the FILE and, in between, copies out the
 * worker's, in order. So the bytes are those of one thread: chunk
 * boundaries fall between items, an item's bytes do not depend on which
 * writer wrote it (the cache holds exact encodings), and an item past the
 * first starts with ",\n" either way.
 *
 * Other processes share the cores, and a thread the system does not run
 * must not hold the other up: the worker claims its chunks one at a time
 * (claim, under the lock), and an odd chunk this thread reaches before the
 * worker has claimed it, this thread writes itself; so does it a chunk the
 * worker has claimed but not finished within JW_STALL_US (when none of it
 * was copied out yet: a chunk over the pipe's size is waited for), and the
 * worker's bytes for it are dropped when they come.
 *
 * The worker writes into a pipe of JW_PIPE_BUFS buffers of JW_OUT_SIZE (the
 * only extra memory: the report is never held): its chunks follow one
 * another in them, and at each chunk's end it records where the chunk ends
 * (in a ring of JW_PIPE_ENDS). A full buffer is sealed and the worker goes
 * on in the next one once this thread has copied that one out. This thread
 * copies a chunk's bytes once it is complete, or a sealed buffer's even
 * before (a chunk bigger than the pipe). The worker stays at most the pipe's
 * size ahead, and neither waits for the other beyond that.
 *
 * Errors are this thread's as before: it alone writes to the FILE; the
 * worker's failures (out of memory) are added to the stream's after the
 * join. CATALYST_AUDIT_RENDER_THREADS=1, one core, or a thread that cannot
 * be started: one thread writes every chunk. */

#define JW_CHUNK ((size_t)64 << 10) /* estimated bytes of output per chunk */
#define JW_SPLIT_CHUNKS 32          /* fewer chunks (about 2 MiB): one thread */
#define JW_PIPE_BUFS 2
#define JW_PIPE_ENDS 64
#define JW_STALL_US 200 /* a chunk takes about 30 us */

enum jw_array {
	ARRAY_ACTIVITIES,
	ARRAY_FINDINGS,
	ARRAY_WITHHELD,
};

static size_t array_len(const struct analysis *a, enum jw_array kind)
{
	if (!a)
		return 0;
	switch (kind) {
	case ARRAY_ACTIVITIES:
		return a->n_invocations;
	case ARRAY_FINDINGS:
		return a->n_findings;
	case ARRAY_WITHHELD:
		return a->n_withheld;
	}
	return 0;
}

static void write_items(struct jw *w, const struct analysis *a, enum jw_array kind, size_t from, size_t to)
{
	switch (kind) {
	case ARRAY_ACTIVITIES:
		for (size_t i = from; i < to; i++)
			write_activity(w, &a->invocations[i]);
		break;
	case ARRAY_FINDINGS:
		for (size_t i = from; i < to; i++)
			write_finding(w, &a->findings[i]);
		break;
	case ARRAY_WITHHELD:
		for (size_t i = from; i < to; i++)
			write_withheld(w, &a->withheld[i]);
		break;
	}
}

/* Where the chunk starting at item from ends: about JW_CHUNK bytes of
 * output, by an estimate of each item's size (an attempt is about 600
 * bytes, a finding 1,100 with its message, a withheld entry 130). Only the
 * balance between the threads depends on it, never the bytes; both threads
 * compute the same boundaries. */
static size_t chunk_end(const struct analysis *a, enum jw_array kind, size_t from)
{
	size_t n = array_len(a, kind), i = from, bytes = 0;
	switch (kind) {
	case ARRAY_ACTIVITIES:
		while (i < n && bytes < JW_CHUNK) {
			const struct invocation *inv = &a->invocations[i++];
			bytes += 330 + 600 * (size_t)inv->n_attempts + 16 * (size_t)inv->n_retry_timers;
		}
		return i;
	case ARRAY_FINDINGS:
		while (i < n && bytes < JW_CHUNK) {
			const struct finding *f = &a->findings[i++];
			bytes += 1100 + 24 * (f->n_evidence + f->n_evidence_event_indexes);
		}
		return i;
	case ARRAY_WITHHELD:
		return n - from > JW_CHUNK / 130 ? from + JW_CHUNK / 130 : n;
	}
	return n;
}

enum {
	PIPE_FREE,
	PIPE_WRITING,
	PIPE_SEALED
};

struct jw_pipe {
	pthread_mutex_t lock;
	pthread_cond_t more; /* this thread waits: a chunk done or a buffer sealed */
	pthread_cond_t room; /* the worker waits: a buffer freed or an end taken */
	char *buf[JW_PIPE_BUFS];
	unsigned char state[JW_PIPE_BUFS];
	size_t sealed_len[JW_PIPE_BUFS];
	struct {
		unsigned buf;
		size_t off;
	} ends[JW_PIPE_ENDS]; /* chunk n_taken .. n_done-1 end there */
	size_t n_done, n_taken;
	size_t claim;  /* the next odd chunk the worker may write */
	size_t n_drop; /* chunks of the worker's given up on and not yet dropped */
	unsigned wbuf; /* the worker's buffer (read and written by it only, or locked) */
	unsigned rbuf; /* where this thread copies from next (this thread only) */
	size_t roff;
};

/* The worker's jw_flush: seals its buffer and goes on in the next, once
 * that one has been copied out. An empty buffer is kept. */
static void pipe_seal(struct jw *w)
{
	struct jw_pipe *p = w->pipe;
	if (!w->len)
		return;
	pthread_mutex_lock(&p->lock);
	p->sealed_len[p->wbuf] = w->len;
	p->state[p->wbuf] = PIPE_SEALED;
	pthread_cond_signal(&p->more);
	p->wbuf = (p->wbuf + 1) % JW_PIPE_BUFS;
	while (p->state[p->wbuf] != PIPE_FREE)
		pthread_cond_wait(&p->room, &p->lock);
	p->state[p->wbuf] = PIPE_WRITING;
	pthread_mutex_unlock(&p->lock);
	w->out = p->buf[p->wbuf];
	w->len = 0;
}

/* The worker, at the end of one of its chunks. */
static void pipe_chunk_done(struct jw *w)
{
	struct jw_pipe *p = w->pipe;
	pthread_mutex_lock(&p->lock);
	while (p->n_done - p->n_taken == JW_PIPE_ENDS)
		pthread_cond_wait(&p->room, &p->lock);
	p->ends[p->n_done % JW_PIPE_ENDS].buf = p->wbuf;
	p->ends[p->n_done % JW_PIPE_ENDS].off = w->len;
	p->n_done++;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->lock);
}

/* Writes n bytes of the worker's to the FILE, after what w holds: straight
 * from the worker's buffer (copying them into w's would be a second pass
 * over half the report). */
static void jw_copy_out(struct jw *w, const char *s, size_t n)
{
	if (!n)
		return;
	jw_flush(w);
	if (fwrite(s, 1, n, w->f) != n)
		w->failed = true;
}

/* Passes the worker's next chunk in the pipe, copying it out to w (NULL:
 * dropping it). Called and returns with the lock held. The bytes up to a
 * recorded end, or up to a sealed buffer's length, are the worker's to
 * read no more: they are read outside the lock. The chunk ends in the
 * buffer being read when its end names it: the worker can only be writing
 * into that buffer again after it was freed here. With a deadline, gives
 * up (false) when the chunk is not done by then and nothing of it was
 * passed yet. */
static bool pipe_pass(struct jw_pipe *p, struct jw *w, const struct timespec *deadline)
{
	bool started = false;
	for (;;) {
		if (p->n_done > p->n_taken && p->ends[p->n_taken % JW_PIPE_ENDS].buf == p->rbuf) {
			size_t end = p->ends[p->n_taken % JW_PIPE_ENDS].off;
			if (w) {
				pthread_mutex_unlock(&p->lock);
				jw_copy_out(w, p->buf[p->rbuf] + p->roff, end - p->roff);
				pthread_mutex_lock(&p->lock);
			}
			p->roff = end;
			p->n_taken++;
			/* a buffer passed to its end goes back now, not at the
			 * next chunk: the worker may be waiting for it */
			if (p->state[p->rbuf] == PIPE_SEALED && p->roff == p->sealed_len[p->rbuf]) {
				p->state[p->rbuf] = PIPE_FREE;
				p->rbuf = (p->rbuf + 1) % JW_PIPE_BUFS;
				p->roff = 0;
			}
			pthread_cond_signal(&p->room);
			return true;
		}
		if (p->state[p->rbuf] == PIPE_SEALED) {
			size_t end = p->sealed_len[p->rbuf];
			if (w) {
				pthread_mutex_unlock(&p->lock);
				jw_copy_out(w, p->buf[p->rbuf] + p->roff, end - p->roff);
				pthread_mutex_lock(&p->lock);
			}
			p->state[p->rbuf] = PIPE_FREE;
			p->rbuf = (p->rbuf + 1) % JW_PIPE_BUFS;
			p->roff = 0;
			pthread_cond_signal(&p->room);
			started = true;
			continue;
		}
		if (!deadline || started)
			pthread_cond_wait(&p->more, &p->lock);
		else if (pthread_cond_timedwait(&p->more, &p->lock, deadline) == ETIMEDOUT &&
			 p->n_done == p->n_taken && p->state[p->rbuf] != PIPE_SEALED)
			return false;
	}
}

/* Chunk c (odd): copies it out to w and returns true when the worker
 * writes it. False when this thread is to write it: the worker has not
 * claimed it (and now never will), or has not finished it within
 * JW_STALL_US while nothing of it was copied out yet (a worker the system
 * is not running: its bytes for c will be dropped). */
static bool pipe_take_chunk(struct jw_pipe *p, struct jw *w, size_t c)
{
	bool taken = false;
	pthread_mutex_lock(&p->lock);
	if (p->claim == c) {
		p->claim = c + 2;
	} else {
		/* chunks given up on: the worker finished them before it
		 * claimed c */
		for (; p->n_drop; p->n_drop--)
			pipe_pass(p, NULL, NULL);
		struct timespec deadline;
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_nsec += JW_STALL_US * 1000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		taken = pipe_pass(p, w, &deadline);
		if (!taken)
			p->n_drop++;
	}
	pthread_mutex_unlock(&p->lock);
	return taken;
}

/* After the last chunk: drops what the worker still writes for chunks
 * given up on, so that it can finish. */
static void pipe_drain(struct jw_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	for (; p->n_drop; p->n_drop--)
		pipe_pass(p, NULL, NULL);
	pthread_mutex_unlock(&p->lock);
}

/* The second writer, made the first time a stream splits an array and kept
 * for its later arrays and runs. */
struct jw_worker {
	pthread_t thread;
	struct jw w;
	struct jw_pipe pipe;
	const struct analysis *a; /* the job: the worker writes odd chunks */
	enum jw_array kind;
};

struct render_json_stream {
	struct jw w;
	bool segment;  /* runs only, each without its separator (render_json_begin_segment) */
	bool threads;  /* big arrays may be split (two cores, not turned off) */
	size_t n_runs; /* runs written or spliced so far */
	struct jw_worker *worker;
};

static bool use_threads(void)
{
	const char *env = getenv("CATALYST_AUDIT_RENDER_THREADS");
	if (env && strcmp(env, "1") == 0)
		return false;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

static void jw_free(struct jw *w);

static void worker_free(struct jw_worker *k)
{
	if (!k)
		return;
	jw_free(&k->w);
	for (size_t i = 0; i < JW_PIPE_BUFS; i++)
		free(k->pipe.buf[i]);
	pthread_cond_destroy(&k->pipe.room);
	pthread_cond_destroy(&k->pipe.more);
	pthread_mutex_destroy(&k->pipe.lock);
	free(k);
}

static struct jw_worker *worker_new(void)
{
	struct jw_worker *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	/* initialised before anything can fail: worker_free destroys them */
	pthread_mutex_init(&k->pipe.lock, NULL);
	pthread_condattr_t monotonic;
	pthread_condattr_init(&monotonic);
	pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
	pthread_cond_init(&k->pipe.more, &monotonic);
	pthread_condattr_destroy(&monotonic);
	pthread_cond_init(&k->pipe.room, NULL);
	bool ok = (k->w.str = json_string("")) != NULL;
	for (size_t i = 0; i < JW_PIPE_BUFS; i++)
		ok = ok && (k->pipe.buf[i] = malloc(JW_OUT_SIZE)) != NULL;
	if (!ok) {
		worker_free(k);
		return NULL;
	}
	k->w.pipe = &k->pipe;
	return k;
}

static void *worker_main(void *arg)
{
	struct jw_worker *k = arg;
	struct jw_pipe *p = &k->pipe;
	size_t n = array_len(k->a, k->kind);
	size_t c = 0, from = 0, to = chunk_end(k->a, k->kind, 0); /* chunk c is [from, to) */
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t want = p->claim;
		p->claim += 2;
		pthread_mutex_unlock(&p->lock);
		for (; c < want; c++) {
			if (to == n)
				return NULL; /* no such chunk: done */
			from = to;
			to = chunk_end(k->a, k->kind, from);
		}
		write_items(&k->w, k->a, k->kind, from, to);
		pipe_chunk_done(&k->w);
	}
}

/* Starts the worker on the array, the items of which go at depth depth
 * past the first. NULL when it cannot: one thread writes it all. */
static struct jw_worker *worker_start(struct render_json_stream *s, const struct analysis *a, enum jw_array kind)
{
	if (!s->worker && !(s->worker = worker_new()))
		return NULL;
	struct jw_worker *k = s->worker;
	struct jw_pipe *p = &k->pipe;
	for (size_t i = 0; i < JW_PIPE_BUFS; i++)
		p->state[i] = PIPE_FREE;
	p->state[0] = PIPE_WRITING;
	p->n_done = p->n_taken = 0;
	p->claim = 1;
	p->n_drop = 0;
	p->wbuf = p->rbuf = 0;
	p->roff = 0;
	k->w.out = p->buf[0];
	k->w.len = 0;
	k->w.depth = s->w.depth;
	k->w.compact = s->w.compact;
	k->w.has_items[k->w.depth] = true;
	k->a = a;
	k->kind = kind;
	if (pthread_create(&k->thread, NULL, worker_main, k) != 0)
		return NULL;
	return k;
}

/* Whether the array makes JW_SPLIT_CHUNKS chunks or more. */
static bool worth_splitting(const struct analysis *a, enum jw_array kind)
{
	size_t n = array_len(a, kind), from = 0, chunks = 0;
	while (from < n && chunks < JW_SPLIT_CHUNKS) {
		from = chunk_end(a, kind, from);
		chunks++;
	}
	return chunks >= JW_SPLIT_CHUNKS;
}

/* The items of one of a's arrays (the array itself opened and closed by
 * the caller): this thread writes chunks 0, 2, 4... (the first item among
 * them) and the odd ones the worker has not claimed, and copies out the
 * worker's in between. */
static void write_array(struct render_json_stream *s, const struct analysis *a, enum jw_array kind)
{
	struct jw *w = &s->w;
	size_t n = array_len(a, kind);
	struct jw_worker *k = s->threads && worth_splitting(a, kind) ? worker_start(s, a, kind) : NULL;
	if (!k) {
		write_items(w, a, kind, 0, n);
		return;
	}
	for (size_t c = 0, from = 0, to; from < n; c++, from = to) {
		to = chunk_end(a, kind, from);
		if (c % 2 == 0 || !pipe_take_chunk(&k->pipe, w, c))
			write_items(w, a, kind, from, to);
	}
	pipe_drain(&k->pipe);
	pthread_join(k->thread, NULL);
	if (k->w.failed)
		w->failed = true;
	k->w.failed = false;
}
static void write_project(struct jw *w, const struct report_run *run)
{
	if (run->project_form == PROJECT_NONE || !run->project) {
		/* also when its form is unknown: null, never a guess */
		jw_key(w, "project");
		jw_lit(w, "null");
		return;
	}
	jw_open(w, "project", '{');
	jw_k_str(w, run->project_form == PROJECT_UID ? "uid" : "name", run->project);
	jw_close(w, '}');
}

/* The run's counts, from its analysis (also when the report was not
 * summarised). */
static void write_counts(struct jw *w, const struct analysis *a)
{
	size_t reexecuted = 0, suspect = 0;
	for (size_t i = 0; i < a->n_invocations; i++)
		reexecuted += a->invocations[i].n_attempts > 1;
	for (size_t i = 0; i < a->n_findings; i++)
		suspect += a->findings[i].severity == SEVERITY_SUSPECT;
	jw_open(w, "counts", '{');
	jw_k_int(w, "activities", (int64_t)a->n_invocations);
	jw_k_int(w, "reexecuted", (int64_t)reexecuted);
	jw_open(w, "findings", '{');
	jw_k_int(w, "notice", (int64_t)(a->n_findings - suspect));
	jw_k_int(w, "suspect", (int64_t)suspect);
	jw_close(w, '}');
	jw_close(w, '}');
}

static void write_run(struct render_json_stream *s, const struct report_run *run)
{
	struct jw *w = &s->w;
	const struct analysis *a = run->analysis;
	jw_open(w, NULL, '{');
	jw_k_id(w, "app_id", run->app_id);
	jw_k_id(w, "run_id", run->run_id);
	jw_k_str(w, "workflow", report_run_workflow(run));
	jw_k_str(w, "status", report_run_status(run));
	write_project(w, run);
	jw_k_str(w, "console_link", run->console_link);
	if (run->link_note)
		jw_k_str(w, "link_note", run->link_note);
	if (run->source)
		jw_k_str(w, "source", run->source);
	if (run->parent_run_id)
		jw_k_str(w, "parent_run_id", run->parent_run_id);
	if (a) {
		jw_open(w, "data_sharing", '{');
		jw_k_str(w, "level", data_sharing_level_name(a->sharing));
		jw_k_str(w, "source", a->sharing_source ? a->sharing_source : "unknown");
		jw_close(w, '}');
		jw_k_bool(w, "finished", a->finished);
		jw_k_int(w, "generations", (int64_t)a->n_generations);
		jw_k_int(w, "events", (int64_t)a->n_events);
		jw_k_str(w, "started_at", a->started_at);
		write_counts(w, a);
	} else {
		jw_open(w, "data_sharing", '{');
		jw_k_str(w, "level", "unknown");
		jw_k_str(w, "source", "the run was not audited");
		jw_close(w, '}');
		jw_key(w, "counts");
		jw_lit(w, "null"); /* nothing was counted: not zero */
		jw_open(w, "error", '{');
		jw_k_int(w, "code", (int64_t)run->failure_code);
		jw_k_str(w, "message", run->failure);
		jw_k_str(w, "refusal_kind", run->refusal_kind);
		jw_k_str(w, "instruction", run->refusal_instruction);
		jw_close(w, '}');
	}

	jw_open(w, "activities", '[');
	write_array(s, a, ARRAY_ACTIVITIES);
	jw_close(w, ']');

	jw_open(w, "findings", '[');
	write_array(s, a, ARRAY_FINDINGS);
	jw_close(w, ']');

	jw_open(w, "withheld", '[');
	write_array(s, a, ARRAY_WITHHELD);
	jw_close(w, ']');

	jw_open(w, "limits", '[');
	for (size_t i = 0; a && i < a->n_limits; i++) {
		jw_next(w);
		jw_str(w, a->limits[i]);
	}
	jw_close(w, ']');
	/* extra: which limits name this run's own data (the others are the
	 * same sentence in every run) */
	jw_open(w, "specific_limits", '[');
	for (size_t i = 0; a && i < a->n_limits; i++) {
		if (!a->limit_specific || !a->limit_specific[i])
			continue;
		jw_next(w);
		jw_int(w, (int64_t)i);
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

static void jw_free(struct jw *w)
{
	for (size_t i = 0; i < JW_CACHE_SIZE; i++)
		free(w->cache[i].text);
	json_decref(w->str);
}

static void stream_free(struct render_json_stream *s)
{
	if (!s)
		return;
	worker_free(s->worker);
	jw_free(&s->w);
	free(s->w.out);
	free(s);
}

static struct render_json_stream *stream_new(FILE *out, struct err *e)
{
	struct render_json_stream *s = calloc(1, sizeof *s);
	if (s) {
		s->w.f = out;
		s->w.out = malloc(JW_OUT_SIZE);
		s->w.str = json_string("");
		s->threads = use_threads();
	}
	if (!s || !s->w.out || !s->w.str) {
		stream_free(s);
		err_set(e, ERR_INTERNAL, "out of memory while writing the JSON report");
		return NULL;
	}
	return s;
}

/* What went wrong so far, if anything. */
static int stream_status(const struct render_json_stream *s, struct err *e)
{
	if (s->w.failed && !ferror(s->w.f))
		return err_set(e, ERR_INTERNAL, "out of memory while writing the JSON report");
	if (ferror(s->w.f))
		return err_set(e, ERR_USAGE, "cannot write the report");
	return 0;
}

struct render_json_stream *render_json_begin(FILE *out, const struct render_options *o, struct err *e)
{
	(void)o; /* JSON has no colour and no width */
	struct render_json_stream *s = stream_new(out, e);
	if (!s)
		return NULL;
	jw_open(&s->w, NULL, '{');
	jw_k_str(&s->w, "schema", "catalyst-audit.report/v1");
	jw_open(&s->w, "runs", '[');
	return s;
}

struct render_json_stream *render_json_begin_segment(FILE *out, struct err *e)
{
	struct render_json_stream *s = stream_new(out, e);
	if (!s)
		return NULL;
	/* Where render_json_begin leaves a stream: inside "runs". */
	s->w.depth = 2;
	s->segment = true;
	return s;
}

int render_json_run(struct render_json_stream *s, const struct report_run *run, struct err *e)
{
	if (s->segment)
		s->w.has_items[s->w.depth] = false; /* the separator is render_json_splice's */
	write_run(s, run);
	s->n_runs++;
	return s->w.failed ? stream_status(s, e) : 0;
}

int render_json_splice(struct render_json_stream *s, int fd, off_t off, size_t len, struct err *e)
{
	struct jw *w = &s->w;
	if (w->has_items[w->depth])
		jw_lit(w, ",");
	w->has_items[w->depth] = true;
	for (size_t done = 0; done < len;) {
		if (w->len == JW_OUT_SIZE)
			jw_flush(w);
		size_t want = len - done < JW_OUT_SIZE - w->len ? len - done : JW_OUT_SIZE - w->len;
		ssize_t got = pread(fd, w->out + w->len, want, off + (off_t)done);
		if (got <= 0)
			return err_set(e, ERR_USAGE, "cannot read back a rendered run: %s",
				       got < 0 ? strerror(errno) : "unexpected end of file");
		w->len += (size_t)got;
		done += (size_t)got;
	}
	s->n_runs++;
	return s->w.failed ? stream_status(s, e) : 0;
}

int render_json_end(struct render_json_stream *s, const struct report *r, struct err *e)
{
	struct jw *w = &s->w;
	if (!s->segment) {
		jw_close(w, ']');
		jw_open(w, "summary", '{');
		jw_k_int(w, "runs", (int64_t)s->n_runs);
		jw_k_int(w, "activities", (int64_t)r->n_activities);
		jw_k_int(w, "reexecuted", (int64_t)r->n_reexecuted);
		jw_k_int(w, "findings", (int64_t)r->n_findings);
		jw_k_int(w, "suspect", (int64_t)r->n_suspect);
		jw_k_int(w, "failed_runs", (int64_t)r->n_failed_runs);
		jw_close(w, '}');
		if (r->n_notes) {
			jw_open(w, "notes", '[');
			for (size_t i = 0; i < r->n_notes; i++) {
				jw_next(w);
				jw_str(w, r->notes[i]);
			}
			jw_close(w, ']');
		}
		jw_close(w, '}');
		jw_lit(w, "\n");
	}
	jw_flush(w);
	int rc = stream_status(s, e);
	stream_free(s);
	return rc;
}

void render_json_abort(struct render_json_stream *s)
{
	stream_free(s);
}

int render_json(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	struct render_json_stream *s = render_json_begin(out, o, e);
	if (!s)
		return -1;
	for (size_t i = 0; i < r->n_runs; i++) {
		if (render_json_run(s, &r->runs[i], e) < 0) {
			render_json_abort(s);
			return -1;
		}
	}
	return render_json_end(s, r, e);
}

/* ---- JSON Lines -------------------------------------------------------- */

int render_jsonl_run(FILE *out, const struct report_run *run, struct err *e)
{
	struct render_json_stream *s = stream_new(out, e);
	if (!s)
		return -1;
	s->w.compact = true;
	write_run(s, run);
	jw_lit(&s->w, "\n");
	jw_flush(&s->w);
	int rc = stream_status(s, e);
	stream_free(s);
	return rc;
}

int render_jsonl_end(FILE *out, const struct report *r, size_t n_runs, struct err *e)
{
	struct render_json_stream *s = stream_new(out, e);
	if (!s)
		return -1;
	struct jw *w = &s->w;
	w->compact = true;
	jw_open(w, NULL, '{');
	jw_k_str(w, "schema", "catalyst-audit.report/v1");
	jw_open(w, "summary", '{');
	jw_k_int(w, "runs", (int64_t)n_runs);
	jw_k_int(w, "activities", (int64_t)r->n_activities);
	jw_k_int(w, "reexecuted", (int64_t)r->n_reexecuted);
	jw_k_int(w, "findings", (int64_t)r->n_findings);
	jw_k_int(w, "suspect", (int64_t)r->n_suspect);
	jw_k_int(w, "failed_runs", (int64_t)r->n_failed_runs);
	jw_close(w, '}');
	jw_open(w, "notes", '[');
	for (size_t i = 0; i < r->n_notes; i++) {
		jw_next(w);
		jw_str(w, r->notes[i]);
	}
	jw_close(w, ']');
	jw_close(w, '}');
	jw_lit(w, "\n");
	jw_flush(w);
	int rc = stream_status(s, e);
	stream_free(s);
	return rc;
}

int render_jsonl(FILE *out, const struct report *r, const struct render_options *o, struct err *e)
{
	(void)o;
	for (size_t i = 0; i < r->n_runs; i++)
		if (render_jsonl_run(out, &r->runs[i], e) < 0)
			return -1;
	return render_jsonl_end(out, r, r->n_runs, e);
}
