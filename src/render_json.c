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
 *   setvbuf is no longer allowed: the buffer is ours instead. */
#include "report.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

struct jw {
	FILE *f;
	char *out;
	size_t len;
	int depth;
	bool has_items[JW_MAX_DEPTH];
	bool failed;
	json_t *str; /* reused for every string scalar */
	struct jw_cached cache[JW_CACHE_SIZE];
};

static void jw_flush(struct jw *w)
{
	if (w->len && fwrite(w->out, 1, w->len, w->f) != w->len)
		w->failed = true;
	w->len = 0;
}

static void jw_raw(struct jw *w, const char *s, size_t n)
{
	if (n > JW_OUT_SIZE - w->len) {
		jw_flush(w);
		if (n > JW_OUT_SIZE) {
			if (fwrite(s, 1, n, w->f) != n)
				w->failed = true;
			return;
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
	size_t n = 2 * (size_t)w->depth;
	char *p = jw_reserve(w, n + 1);
	*p++ = '\n';
	memset(p, ' ', n);
	w->len += n + 1;
}

/* Before a member or an item: the separator and the indentation. */
static inline void jw_next(struct jw *w)
{
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
	w->len += n + 4;
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
	jw_k_cstr(w, "failure_class", failure_class_name(at->failure));
	jw_k_bool(w, "non_retriable", at->non_retriable);
	jw_k_str(w, "completed_at", at->completed_at);
	jw_k_int(w, "results", (int64_t)at->n_results);
	jw_k_id(w, "task_execution_id", at->task_execution_id);
	if (inv->is_child_workflow)
		jw_k_id(w, "instance_id", at->instance_id);
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
	/* extra: positions in history, which also reach results (event_id -1) */
	jw_open(w, "evidence_event_indexes", '[');
	for (size_t i = 0; i < f->n_evidence_event_indexes; i++) {
		jw_next(w);
		jw_int(w, (int64_t)f->evidence_event_indexes[i]);
	}
	jw_close(w, ']');
	jw_close(w, '}');
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

static void write_run(struct jw *w, const struct report_run *run)
{
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
	} else {
		jw_open(w, "data_sharing", '{');
		jw_k_str(w, "level", "unknown");
		jw_k_str(w, "source", "the run was not audited");
		jw_close(w, '}');
		jw_open(w, "error", '{');
		jw_k_int(w, "code", (int64_t)run->failure_code);
		jw_k_str(w, "message", run->failure);
		jw_k_str(w, "refusal_kind", run->refusal_kind);
		jw_k_str(w, "instruction", run->refusal_instruction);
		jw_close(w, '}');
	}

	jw_open(w, "activities", '[');
	for (size_t i = 0; a && i < a->n_invocations; i++)
		write_activity(w, &a->invocations[i]);
	jw_close(w, ']');

	jw_open(w, "findings", '[');
	for (size_t i = 0; a && i < a->n_findings; i++)
		write_finding(w, &a->findings[i]);
	jw_close(w, ']');

	jw_open(w, "withheld", '[');
	for (size_t i = 0; a && i < a->n_withheld; i++) {
		const struct withheld *h = &a->withheld[i];
		jw_open(w, NULL, '{');
		jw_k_int(w, "event_id", h->event_id);
		jw_k_cstr(w, "event_type", withheld_event_type(h));
		jw_k_cstr(w, "field", withheld_field_name(h->field));
		jw_k_int(w, "event_index", (int64_t)h->event_index);
		jw_close(w, '}');
	}
	jw_close(w, ']');

	jw_open(w, "limits", '[');
	for (size_t i = 0; a && i < a->n_limits; i++) {
		jw_next(w);
		jw_str(w, a->limits[i]);
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

struct render_json_stream {
	struct jw w;
	bool segment;  /* runs only, each without its separator (render_json_begin_segment) */
	size_t n_runs; /* runs written or spliced so far */
};

static void stream_free(struct render_json_stream *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < JW_CACHE_SIZE; i++)
		free(s->w.cache[i].text);
	json_decref(s->w.str);
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
	write_run(&s->w, run);
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
