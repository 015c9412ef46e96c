/* A validating JSON scanner that builds no tree (see json_scan.h): it walks
 * the bytes once and keeps only the current value's tokens. It is strict
 * like jansson: RFC 8259 grammar, valid UTF-8, no NUL in strings. */
#include "json_scan.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "json_bytes.h"

static int bad(struct jscan *s, struct err *e, const char *what)
{
	if (s->pos >= s->len)
		return err_set(e, ERR_INPUT, "not JSON at byte %zu: unexpected end of input (truncated file?)",
			       s->len);
	return err_set(e, ERR_INPUT, "not JSON at byte %zu: %s", s->pos, what);
}

void jscan_skip_ws_slow(struct jscan *s)
{
	s->pos = json_bytes_ws((const unsigned char *)s->buf, s->len, s->pos);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static long hex4(const char *p)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval((unsigned char)p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* The escape at b[*p] (a backslash), checked and stepped over. */
static int string_escape(struct jscan *s, const unsigned char *b, size_t n, size_t *pp, struct err *e)
{
	size_t p = *pp;
	if (p + 1 >= n) {
		s->pos = n;
		return bad(s, e, "unterminated string");
	}
	unsigned d = b[p + 1];
	if (d != 'u') {
		/* a switch, not strchr: escaped quotes fill payload strings */
		switch (d) {
		case '"':
		case '\\':
		case '/':
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't':
			break;
		default:
			d = 0;
		}
		if (d == 0) {
			s->pos = p;
			return bad(s, e, "invalid escape in string");
		}
		*pp = p + 2;
		return 0;
	}
	if (p + 6 > n) {
		s->pos = n;
		return bad(s, e, "unterminated string");
	}
	long u = hex4((const char *)b + p + 2);
	if (u < 0) {
		s->pos = p;
		return bad(s, e, "invalid \\u escape");
	}
	if (u == 0) {
		s->pos = p;
		return bad(s, e, "\\u0000 is not allowed in strings");
	}
	if (u >= 0xdc00 && u <= 0xdfff) {
		s->pos = p;
		return bad(s, e, "lone low surrogate in \\u escape");
	}
	if (u < 0xd800 || u > 0xdbff) {
		*pp = p + 6;
		return 0;
	}
	long lo = -1;
	if (p + 12 <= n && b[p + 6] == '\\' && b[p + 7] == 'u')
		lo = hex4((const char *)b + p + 8);
	if (lo < 0xdc00 || lo > 0xdfff) {
		s->pos = p;
		return bad(s, e, "unpaired high surrogate in \\u escape");
	}
	*pp = p + 12;
	return 0;
}

int jscan_string(struct jscan *s, const char **out, size_t *outlen, bool *escaped, struct err *e)
{
	const unsigned char *b = (const unsigned char *)s->buf;
	size_t n = s->len;
	size_t p = s->pos + 1;
	size_t start = p;
	bool esc = false;
	for (;;) {
		p = json_bytes_plain(b, n, p);
		if (p >= n) {
			s->pos = n;
			return bad(s, e, "unterminated string");
		}
		unsigned c = b[p];
		if (c == '"')
			break;
		if (c == '\\') {
			esc = true;
			if (string_escape(s, b, n, &p, e) < 0)
				return -1;
			continue;
		}
		if (c < 0x20) {
			s->pos = p;
			return bad(s, e, "control character in string");
		}
		uint32_t cp;
		size_t l = escape_utf8_next((const char *)b + p, n - p, &cp);
		if (!l) {
			s->pos = p;
			return bad(s, e, "invalid UTF-8 in string");
		}
		p += l;
	}
	*out = (const char *)b + start;
	*outlen = p - start;
	*escaped = esc;
	s->pos = p + 1;
	return 0;
}

/* Moves *p past a run of digits; false when there is none. */
static bool skip_digits(const char *b, size_t n, size_t *p)
{
	if (*p >= n || b[*p] < '0' || b[*p] > '9')
		return false;
	while (*p < n && b[*p] >= '0' && b[*p] <= '9')
		(*p)++;
	return true;
}

/* Scans a number; *is_int with *iv when it is an integer that fits int64. */
static int scan_number(struct jscan *s, bool *is_int, int64_t *iv, struct err *e)
{
	const char *b = s->buf;
	size_t n = s->len, p = s->pos;
	bool neg = false, integral = true, overflow = false;
	uint64_t acc = 0;
	/* An integer of up to 18 digits, not led by a zero (ids, counts):
	 * it cannot overflow, so no check a digit. Anything else (a zero, a
	 * fraction, an exponent, more digits) takes the full grammar below. */
	size_t q = p + (p < n && b[p] == '-');
	if (q < n && b[q] >= '1' && b[q] <= '9') {
		size_t d0 = q;
		while (q < n && q - d0 < 18 && (unsigned)(b[q] - '0') < 10)
			acc = acc * 10 + (unsigned)(b[q++] - '0');
		if (q >= n || (b[q] != '.' && b[q] != 'e' && b[q] != 'E' && (unsigned)(b[q] - '0') >= 10)) {
			*is_int = true;
			*iv = b[p] == '-' ? -(int64_t)acc : (int64_t)acc;
			s->pos = q;
			return 0;
		}
		acc = 0;
	}
	if (p < n && b[p] == '-') {
		neg = true;
		p++;
	}
	if (p >= n || b[p] < '0' || b[p] > '9') {
		s->pos = p;
		return bad(s, e, "invalid number");
	}
	if (b[p] == '0') {
		p++;
	} else {
		while (p < n && b[p] >= '0' && b[p] <= '9') {
			unsigned d = (unsigned)(b[p] - '0');
			if (acc > (UINT64_MAX - d) / 10)
				overflow = true;
			else
				acc = acc * 10 + d;
			p++;
		}
	}
	if (p < n && b[p] == '.') {
		integral = false;
		p++;
		if (!skip_digits(b, n, &p)) {
			s->pos = p;
			return bad(s, e, "invalid number");
		}
	}
	if (p < n && (b[p] == 'e' || b[p] == 'E')) {
		integral = false;
		p++;
		if (p < n && (b[p] == '+' || b[p] == '-'))
			p++;
		if (!skip_digits(b, n, &p)) {
			s->pos = p;
			return bad(s, e, "invalid number");
		}
	}
	*is_int = false;
	if (integral && !overflow) {
		if (!neg && acc <= (uint64_t)INT64_MAX) {
			*is_int = true;
			*iv = (int64_t)acc;
		} else if (neg && acc <= (uint64_t)INT64_MAX + 1) {
			*is_int = true;
			*iv = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
		}
	}
	s->pos = p;
	return 0;
}

static int scan_literal(struct jscan *s, enum jscan_type *type, struct err *e)
{
	static const struct {
		const char *text;
		size_t len;
		enum jscan_type type;
	} lits[] = {{"true", 4, JSCAN_TRUE}, {"false", 5, JSCAN_FALSE}, {"null", 4, JSCAN_NULL}};
	for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
		if (s->len - s->pos >= lits[i].len && memcmp(s->buf + s->pos, lits[i].text, lits[i].len) == 0) {
			s->pos += lits[i].len;
			*type = lits[i].type;
			return 0;
		}
	}
	if (s->len - s->pos < 5 && s->pos < s->len) {
		/* A prefix of a literal cut off by the end of input. */
		for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
			if (memcmp(s->buf + s->pos, lits[i].text, s->len - s->pos) == 0) {
				s->pos = s->len;
				return bad(s, e, "");
			}
		}
	}
	return bad(s, e, "invalid value");
}

static int skip_value(struct jscan *s, struct jscan_keys *keys, struct err *e)
{
	/* Iterative, with one byte of state per level: no recursion, so the
	 * depth limit is ours and not the C stack's. */
	unsigned char stack[JSCAN_DEPTH_MAX];
	size_t kfrom[JSCAN_DEPTH_MAX]; /* where each open object's keys start */
	size_t depth = 0;
	enum {
		VALUE,
		KEY,
		AFTER
	} state = VALUE;
	for (;;) {
		if (state == AFTER && depth == 0)
			return 0;
		jscan_skip_ws(s);
		if (s->pos >= s->len)
			return bad(s, e, "");
		char c = s->buf[s->pos];
		if (state == KEY) {
			if (c != '"')
				return bad(s, e, "expected a string key");
			const char *p;
			size_t l;
			bool esc;
			size_t off = s->pos;
			if (jscan_string(s, &p, &l, &esc, e) < 0 || jscan_keys_push(keys, p, l, esc, off, e) < 0)
				return -1;
			jscan_skip_ws(s);
			if (s->pos >= s->len || s->buf[s->pos] != ':')
				return bad(s, e, "expected ':' after a key");
			s->pos++;
			state = VALUE;
			continue;
		}
		if (state == AFTER) {
			bool obj = stack[depth - 1];
			if (c == ',') {
				s->pos++;
				state = obj ? KEY : VALUE;
			} else if ((obj && c == '}') || (!obj && c == ']')) {
				s->pos++;
				depth--;
				if (obj && jscan_keys_close(keys, kfrom[depth], e) < 0)
					return -1;
			} else {
				return bad(s, e, obj ? "expected ',' or '}'" : "expected ',' or ']'");
			}
			continue;
		}
		/* VALUE */
		if (c == '{' || c == '[') {
			if (depth == JSCAN_DEPTH_MAX)
				return err_set(e, ERR_INPUT, "not JSON at byte %zu: nested deeper than %d levels",
					       s->pos, JSCAN_DEPTH_MAX);
			kfrom[depth] = keys->n;
			stack[depth++] = c == '{';
			s->pos++;
			jscan_skip_ws(s);
			if (s->pos < s->len && s->buf[s->pos] == (c == '{' ? '}' : ']')) {
				s->pos++;
				depth--;
				state = AFTER;
			} else {
				state = c == '{' ? KEY : VALUE;
			}
			continue;
		}
		if (c == '"') {
			const char *p;
			size_t l;
			bool esc;
			if (jscan_string(s, &p, &l, &esc, e) < 0)
				return -1;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			bool is_int;
			int64_t iv;
			if (scan_number(s, &is_int, &iv, e) < 0)
				return -1;
		} else {
			enum jscan_type t;
			if (scan_literal(s, &t, e) < 0)
				return -1;
		}
		state = AFTER;
	}
}

int jscan_skip_value(struct jscan *s, struct err *e)
{
	struct jscan_keys keys = {0};
	int rc = skip_value(s, &keys, e);
	jscan_keys_finish(&keys);
	return rc;
}

/* ---- Walking an object's members ---- */

int jscan_object_open(struct jscan *s, struct jscan_object *o, struct jscan_keys *keys, struct err *e)
{
	jscan_skip_ws(s);
	if (s->pos >= s->len || s->buf[s->pos] != '{')
		return bad(s, e, "expected an object");
	s->pos++;
	o->keys = keys;
	o->from = keys ? keys->n : 0;
	o->started = false;
	return 0;
}

int jscan_object_member(struct jscan *s, struct jscan_object *o, struct jscan_key *key, struct err *e)
{
	jscan_skip_ws(s);
	if (!o->started) {
		o->started = true;
		if (s->pos < s->len && s->buf[s->pos] == '}') {
			s->pos++;
			return 0;
		}
	} else {
		if (s->pos >= s->len)
			return bad(s, e, "");
		if (s->buf[s->pos] == '}') {
			s->pos++;
			return o->keys ? jscan_keys_close(o->keys, o->from, e) : 0;
		}
		if (s->buf[s->pos] != ',')
			return bad(s, e, "expected ',' or '}'");
		s->pos++;
		jscan_skip_ws(s);
	}
	if (s->pos >= s->len || s->buf[s->pos] != '"')
		return bad(s, e, "expected a string key");
	key->off = s->pos;
	if (jscan_string(s, &key->p, &key->len, &key->escaped, e) < 0)
		return -1;
	if (o->keys && jscan_keys_push(o->keys, key->p, key->len, key->escaped, key->off, e) < 0)
		return -1;
	jscan_skip_ws(s);
	/* Not bad(): at the end of input this names the ':' too. */
	if (s->pos >= s->len || s->buf[s->pos] != ':')
		return err_set(e, ERR_INPUT, "not JSON at byte %zu: expected ':' after a key", s->pos);
	s->pos++;
	jscan_skip_ws(s);
	return 1;
}

/* ---- Tokens ---- */

/* Room for one more token: the array grown, or the cap refused. */
__attribute__((noinline)) static long toks_grow(struct jscan_toks *t, struct err *e)
{
	if (t->n >= JSCAN_TOKENS_MAX) {
		err_set(e, ERR_INPUT, "more than %d JSON values in one value", JSCAN_TOKENS_MAX);
		return JSCAN_TOO_BIG;
	}
	size_t ncap = t->cap ? t->cap * 2 : 64;
	struct jscan_tok *v = realloc(t->v, ncap * sizeof *v);
	if (!v) {
		err_oom(e);
		return JSCAN_ERROR;
	}
	t->v = v;
	t->cap = ncap;
	return 0;
}

/* A new token at the end, zeroed but for its end: its index, or < 0. The
 * common case inline, as it is taken for every value of every event. */
static inline long push(struct jscan_toks *t, struct err *e)
{
	if (t->n >= t->cap || t->n >= JSCAN_TOKENS_MAX) {
		long r = toks_grow(t, e);
		if (r < 0)
			return r;
	}
	t->v[t->n] = (struct jscan_tok){.end = (uint32_t)t->n + 1};
	return (long)t->n++;
}

/* Two bits of 64 for a key, from its length and three of its bytes: equal
 * keys set the same two, and a key whose two are both set already may
 * repeat one. With one bit a key, the dapr CLI's dozen keys shared one on
 * every event, and each event's keys were sorted and compared. */
static inline uint64_t key_bits(const char *p, size_t len)
{
	if (!len)
		return 3;
	const unsigned char *b = (const unsigned char *)p;
	uint64_t x =
		((uint64_t)len | (uint64_t)b[0] << 8 | (uint64_t)b[len / 2] << 16 | (uint64_t)b[len - 1] << 24) *
		UINT64_C(0x9e3779b97f4a7c15);
	return 1ull << (x >> 58) | 1ull << (x >> 46 & 63);
}

/* The duplicate-key check of the tokenised object at t->v[obj]. */
__attribute__((noinline)) static int check_keys(struct jscan_toks *t, size_t obj, struct err *e)
{
	size_t from = t->keys.n;
	for (size_t ki = obj + 1; ki < t->n; ki = t->v[ki + 1].end) {
		const struct jscan_tok *k = &t->v[ki];
		if (jscan_keys_push(&t->keys, k->p, k->len, k->escaped, k->off, e) < 0)
			return -1;
	}
	return jscan_keys_close(&t->keys, from, e);
}

/* Objects deeper than this are kept opaque. */
#define TOK_OBJECT_DEPTH 8

/* Whether an object under key (NULL: the value tokenised) stays opaque.
 * Asked only of objects: nothing else has members to tokenise. */
static inline bool opaque_object(const struct jscan_toks *t, int depth, const char *key, size_t len)
{
	return depth >= TOK_OBJECT_DEPTH || (key && t->opaque_key && t->opaque_key(key, len));
}

/* jscan_string for the usual string, all plain bytes up to its closing
 * quote: inline, without the full scanner's frame (a call for each of the
 * million keys and values of a large history). Anything else in it (an
 * escape, a control character, a byte above 0x7F) and the full scanner
 * reads it again. */
__attribute__((always_inline)) static inline int tok_str(struct jscan *s, const char **out, size_t *len,
							 bool *escaped, struct err *e)
{
	const unsigned char *b = (const unsigned char *)s->buf;
	size_t q = json_bytes_plain(b, s->len, s->pos + 1);
	if (q < s->len && b[q] == '"') {
		*out = s->buf + s->pos + 1;
		*len = q - s->pos - 1;
		*escaped = false;
		s->pos = q + 1;
		return 0;
	}
	return jscan_string(s, out, len, escaped, e);
}

/* A string value at s->pos, as a new token. Strings and numbers are nearly
 * every member's value: the member loop of tok_value takes them without a
 * call of tok_value each. */
__attribute__((always_inline)) static inline int tok_string(struct jscan *s, struct jscan_toks *t, struct err *e)
{
	long r = push(t, e);
	if (r < 0)
		return (int)r;
	struct jscan_tok *k = &t->v[r];
	k->type = JSCAN_STRING;
	k->off = s->pos;
	return tok_str(s, &k->p, &k->len, &k->escaped, e) < 0 ? -1 : 0;
}

/* A number at s->pos, as a new token. */
__attribute__((always_inline)) static inline int tok_number(struct jscan *s, struct jscan_toks *t, struct err *e)
{
	long r = push(t, e);
	if (r < 0)
		return (int)r;
	size_t start = s->pos;
	bool is_int = false;
	int64_t iv = 0;
	if (scan_number(s, &is_int, &iv, e) < 0)
		return -1;
	struct jscan_tok *k = &t->v[r];
	k->off = start;
	k->type = is_int ? JSCAN_INT : JSCAN_REAL;
	k->i = iv;
	k->p = s->buf + start;
	k->len = s->pos - start;
	return 0;
}

static inline bool starts_number(char c)
{
	return c == '-' || (c >= '0' && c <= '9');
}

static int tok_value(struct jscan *s, struct jscan_toks *t, int depth, const char *key, size_t key_len,
		     struct err *e)
{
	jscan_skip_ws(s);
	if (s->pos >= s->len)
		return bad(s, e, "");
	if (s->buf[s->pos] == '"')
		return tok_string(s, t, e);
	if (starts_number(s->buf[s->pos]))
		return tok_number(s, t, e);
	long r = push(t, e);
	if (r < 0)
		return (int)r;
	size_t idx = (size_t)r;
	size_t start = s->pos;
	char c = s->buf[start];
	t->v[idx].off = start;
	if (c == '{' && !opaque_object(t, depth, key, key_len)) {
		t->v[idx].type = JSCAN_OBJECT;
		s->pos++;
		jscan_skip_ws(s);
		if (s->pos < s->len && s->buf[s->pos] == '}') {
			s->pos++;
			goto done;
		}
		/* Two bits of 64 per key (key_bits): a key with a bit of its
		 * own differs from every one before, so only an object where a
		 * key finds both its bits set (or has escapes) is compared key
		 * by key. */
		uint64_t seen = 0;
		bool compare = false;
		for (;;) {
			/* A newline and indentation before nearly every key of a
			 * pretty-printed history: skipped inline, not by a call. */
			if (s->pos < s->len && (unsigned char)s->buf[s->pos] <= ' ')
				s->pos = json_bytes_ws((const unsigned char *)s->buf, s->len, s->pos);
			if (s->pos >= s->len || s->buf[s->pos] != '"')
				return bad(s, e, "expected a string key");
			r = push(t, e);
			if (r < 0)
				return (int)r;
			struct jscan_tok *k = &t->v[r];
			k->type = JSCAN_STRING;
			k->off = s->pos;
			if (tok_str(s, &k->p, &k->len, &k->escaped, e) < 0)
				return -1;
			uint64_t bits = key_bits(k->p, k->len);
			compare |= (seen & bits) == bits || k->escaped;
			seen |= bits;
			jscan_skip_ws(s);
			if (s->pos >= s->len || s->buf[s->pos] != ':')
				return bad(s, e, "expected ':' after a key");
			s->pos++;
			/* Pretty-printed, one space: no call for it. */
			if (s->pos + 1 < s->len && s->buf[s->pos] == ' ' &&
			    (unsigned char)s->buf[s->pos + 1] > ' ')
				s->pos++;
			else
				jscan_skip_ws(s);
			char vc = s->pos < s->len ? s->buf[s->pos] : 0;
			int rc = vc == '"'           ? tok_string(s, t, e)
				 : starts_number(vc) ? tok_number(s, t, e)
						     : tok_value(s, t, depth + 1, k->p, k->len, e);
			if (rc < 0)
				return rc;
			jscan_skip_ws(s);
			if (s->pos >= s->len)
				return bad(s, e, "");
			if (s->buf[s->pos] == ',') {
				s->pos++;
				continue;
			}
			if (s->buf[s->pos] == '}') {
				s->pos++;
				break;
			}
			return bad(s, e, "expected ',' or '}'");
		}
		if (compare && check_keys(t, idx, e) < 0)
			return -1;
	} else if (c == '{' || c == '[') {
		t->v[idx].type = c == '{' ? JSCAN_OBJECT : JSCAN_ARRAY;
		t->v[idx].opaque = true;
		if (skip_value(s, &t->keys, e) < 0)
			return -1;
	} else {
		enum jscan_type ty = JSCAN_NULL;
		if (scan_literal(s, &ty, e) < 0)
			return -1;
		t->v[idx].type = (uint8_t)ty;
	}
done:
	t->v[idx].p = s->buf + start;
	t->v[idx].len = s->pos - start;
	t->v[idx].end = (uint32_t)t->n;
	return 0;
}

int jscan_tokenise(struct jscan *s, struct jscan_toks *t, struct err *e)
{
	t->n = 0;
	t->keys.n = 0;
	return tok_value(s, t, 0, NULL, 0, e);
}

static int tok_json(const json_t *v, struct jscan_toks *t, int depth, const char *key, struct err *e)
{
	long r = push(t, e);
	if (r < 0)
		return (int)r;
	size_t idx = (size_t)r;
	t->v[idx].j = v;
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		t->v[idx].type = JSCAN_OBJECT;
		if (opaque_object(t, depth, key, key ? strlen(key) : 0)) {
			t->v[idx].opaque = true;
			break;
		}
		const char *k;
		json_t *val;
		json_object_foreach((json_t *)v, k, val) {
			r = push(t, e);
			if (r < 0)
				return (int)r;
			t->v[r].type = JSCAN_STRING;
			t->v[r].p = k;
			t->v[r].len = strlen(k);
			int rc = tok_json(val, t, depth + 1, k, e);
			if (rc < 0)
				return rc;
		}
		break;
	}
	case JSON_ARRAY:
		t->v[idx].type = JSCAN_ARRAY;
		t->v[idx].opaque = true;
		break;
	case JSON_STRING:
		t->v[idx].type = JSCAN_STRING;
		t->v[idx].p = json_string_value(v);
		t->v[idx].len = json_string_length(v);
		break;
	case JSON_INTEGER:
		t->v[idx].type = JSCAN_INT;
		t->v[idx].i = (int64_t)json_integer_value(v);
		break;
	case JSON_REAL:
	case JSON_TRUE:
	case JSON_FALSE:
	case JSON_NULL: {
		static const uint8_t types[] = {[JSON_REAL] = JSCAN_REAL,
						[JSON_TRUE] = JSCAN_TRUE,
						[JSON_FALSE] = JSCAN_FALSE,
						[JSON_NULL] = JSCAN_NULL};
		t->v[idx].type = types[json_typeof(v)];
		break;
	}
	}
	t->v[idx].end = (uint32_t)t->n;
	return 0;
}

int jscan_tokenise_json(const json_t *v, struct jscan_toks *t, struct err *e)
{
	t->n = 0;
	return tok_json(v, t, 0, NULL, e);
}

void jscan_toks_finish(struct jscan_toks *t)
{
	jscan_keys_finish(&t->keys);
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* Decodes one character of escaped text at *p into out; returns its bytes.
 * The text was validated by jscan_string. */
static size_t unescape_one(const char **pp, char out[4])
{
	const char *p = *pp;
	if (*p != '\\') {
		out[0] = *p;
		*pp = p + 1;
		return 1;
	}
	char d = p[1];
	if (d != 'u') {
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		out[0] = to[strchr(from, d) - from];
		*pp = p + 2;
		return 1;
	}
	unsigned long cp = (unsigned long)hex4(p + 2);
	p += 6;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		unsigned long lo = (unsigned long)hex4(p + 2);
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	}
	*pp = p;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

const char *jscan_str(const struct jscan_tok *t, char **scratch, size_t *scratch_cap, size_t *len)
{
	if (!t->escaped) {
		*len = t->len;
		return t->p;
	}
	/* Unescaped text is never longer than the escaped one. */
	if (*scratch_cap < t->len + 1) {
		char *n = realloc(*scratch, t->len + 1);
		if (!n)
			return NULL;
		*scratch = n;
		*scratch_cap = t->len + 1;
	}
	const char *p = t->p, *end = t->p + t->len;
	size_t o = 0;
	while (p < end) {
		char c[4];
		size_t k = unescape_one(&p, c);
		memcpy(*scratch + o, c, k);
		o += k;
	}
	(*scratch)[o] = '\0';
	*len = o;
	return *scratch;
}

void jscan_str_hash(const struct jscan_tok *t, uint64_t *hash, size_t *len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = 0;
	const char *p = t->p, *end = t->p + t->len;
	if (!t->escaped) {
		for (; p < end; p++) {
			h ^= (unsigned char)*p;
			h *= 0x100000001b3ull;
		}
		n = t->len;
	} else {
		while (p < end) {
			char c[4];
			size_t k = unescape_one(&p, c);
			for (size_t i = 0; i < k; i++) {
				h ^= (unsigned char)c[i];
				h *= 0x100000001b3ull;
			}
			n += k;
		}
	}
	*hash = h;
	*len = n;
}

/* ---- Duplicate keys ---- */

int jscan_keys_grow(struct jscan_keys *k, struct err *e)
{
	size_t ncap = k->cap ? k->cap * 2 : 32;
	struct jscan_key *v = realloc(k->v, ncap * sizeof *v);
	if (!v) {
		err_oom(e);
		return -1; /* said outright: the analyzer cannot see err_oom's -1 */
	}
	k->v = v;
	k->cap = ncap;
	return 0;
}

void jscan_keys_finish(struct jscan_keys *k)
{
	free(k->v);
	memset(k, 0, sizeof *k);
}

/* Walks a key's unescaped text byte by byte, so "a" and "\u0061" compare
 * equal without a copy. */
struct key_cursor {
	const char *p, *end;
	bool escaped;
	char buf[4];
	size_t bn, bi;
};

static int key_byte(struct key_cursor *c)
{
	if (c->bi < c->bn)
		return (unsigned char)c->buf[c->bi++];
	if (c->p >= c->end)
		return -1;
	if (!c->escaped)
		return (unsigned char)*c->p++;
	c->bn = unescape_one(&c->p, c->buf);
	c->bi = 1;
	return (unsigned char)c->buf[0];
}

/* Orders keys by their unescaped text, byte by byte. */
static int key_text_cmp(const struct jscan_key *a, const struct jscan_key *b)
{
	if (!a->escaped && !b->escaped) {
		int r = memcmp(a->p, b->p, a->len < b->len ? a->len : b->len);
		return r ? r : (a->len > b->len) - (a->len < b->len);
	}
	struct key_cursor x = {.p = a->p, .end = a->p + a->len, .escaped = a->escaped};
	struct key_cursor y = {.p = b->p, .end = b->p + b->len, .escaped = b->escaped};
	for (;;) {
		int cx = key_byte(&x), cy = key_byte(&y);
		if (cx != cy)
			return cx < cy ? -1 : 1;
		if (cx < 0)
			return 0;
	}
}

static bool key_equal(const struct jscan_key *a, const struct jscan_key *b)
{
	if (!a->escaped && !b->escaped)
		return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
	return key_text_cmp(a, b) == 0;
}

static int key_order(const void *x, const void *y)
{
	const struct jscan_key *a = x, *b = y;
	int r = key_text_cmp(a, b);
	return r ? r : (a->off > b->off) - (a->off < b->off);
}

/* Objects with up to this many keys (every event object) are checked pair
 * by pair; larger ones are sorted, so a hostile object with a million keys
 * costs n log n, not n squared. */
#define KEYS_PAIRWISE 16

int jscan_keys_close(struct jscan_keys *k, size_t from, struct err *e)
{
	struct jscan_key *v = k->v + from;
	size_t n = k->n - from;
	k->n = from;
	if (n < 2)
		return 0;
	const struct jscan_key *first = NULL, *second = NULL;
	if (n <= KEYS_PAIRWISE) {
		for (size_t j = 1; j < n && !second; j++)
			for (size_t i = 0; i < j; i++)
				if (key_equal(&v[i], &v[j])) {
					first = &v[i];
					second = &v[j];
					break;
				}
	} else {
		/* Sorted by text then position: the earliest repeat is the
		 * smallest second member of an equal neighbour pair. */
		qsort(v, n, sizeof *v, key_order);
		for (size_t i = 1; i < n; i++)
			if ((!second || v[i].off < second->off) && key_equal(&v[i - 1], &v[i])) {
				first = &v[i - 1];
				second = &v[i];
			}
	}
	if (!second)
		return 0;
	/* The key as written, cut short and reduced to printable ASCII. */
	char name[48];
	size_t m = 0;
	for (size_t i = 0; i < second->len && m + 4 < sizeof name; i++) {
		unsigned char c = (unsigned char)second->p[i];
		name[m++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (m < second->len)
		name[m++] = '.', name[m++] = '.', name[m++] = '.';
	name[m] = '\0';
	return err_set(e, ERR_INPUT,
		       "duplicate key \"%s\" at byte %zu (first at byte %zu): a key may appear only once in an "
		       "object",
		       name, second->off, first->off);
}
