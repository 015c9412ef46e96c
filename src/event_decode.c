/* The event decoder: one history event, from its tokens (json_scan.h), into
 * the log. One decoder serves every dialect: the flattened Catalyst one
 * (with camelCase/PascalCase spellings), durabletask protojson (nested
 * members flattened by concatenating normalised key names, which is
 * Catalyst's own flattening, so one field table covers both) and `dapr
 * workflow history -o json` (event_dapr_cli.c). Also the run fields found
 * in the envelope around the list. */
#include "event_decode.h"

#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How deep members of one event are flattened. */
#define FLATTEN_DEPTH 6

const char dec_no_list_msg[] =
	"no event list found: expected an array of history events (objects with an "
	"event_type key, durabletask protojson {\"events\": [...]} or `dapr workflow history "
	"-o json` output), as the document or anywhere inside it";

int dec_init(struct dec *d, bool from_json, struct err *e)
{
	d->e = e;
	d->from_json = from_json;
	d->toks.opaque_key = event_key_is_payload;
	d->log = event_log_new();
	if (!d->log)
		return err_oom(e);
	d->pool = event_log_pool(d->log);
	return 0;
}

void dec_finish(struct dec *d)
{
	jscan_toks_finish(&d->toks);
	free(d->scratch);
	free(d->attrs);
}

int dec_tokenise_failed(struct dec *d, int status)
{
	if (status == JSCAN_TOO_BIG)
		err_set(d->e, ERR_INPUT, "more than %d JSON values in one event", JSCAN_TOKENS_MAX);
	return -1;
}

static const char *type_name(const struct jscan_tok *t)
{
	switch ((enum jscan_type)t->type) {
	case JSCAN_NULL:
		return "null";
	case JSCAN_FALSE:
	case JSCAN_TRUE:
		return "a boolean";
	case JSCAN_INT:
	case JSCAN_REAL:
		return "a number";
	case JSCAN_STRING:
		return "a string";
	case JSCAN_ARRAY:
		return "an array";
	case JSCAN_OBJECT:
		return "an object";
	}
	return "?";
}

static int bad_type(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, const char *want)
{
	size_t off = d->from_json ? d->off : v->off;
	if (d->from_json)
		return err_set(d->e, ERR_INPUT, "event %zu: field \"%.*s\" must be %s, got %s", d->index,
			       (int)key_len, key, want, type_name(v));
	return err_set(d->e, ERR_INPUT, "event %zu at byte %zu: field \"%.*s\" must be %s, got %s", d->index, off,
		       (int)key_len, key, want, type_name(v));
}

int dec_oom(struct dec *d)
{
	return err_oom(d->e);
}

/* A string field: NULL stays absent; anything but a string is an error. */
int dec_get_str(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, const char **out)
{
	if (v->type == JSCAN_NULL)
		return 0;
	if (v->type != JSCAN_STRING)
		return bad_type(d, key, key_len, v, "a string");
	size_t len;
	const char *s = jscan_str(v, &d->scratch, &d->scratch_cap, &len);
	if (!s || !(*out = event_pool_intern(d->pool, s, len)))
		return dec_oom(d);
	return 0;
}

/* Timestamps are strings in every known dialect; a number is kept as its
 * text rather than refused, since the envelope is undocumented. An event's
 * own time is stored (nearly every one differs); a timer's fire time is
 * interned: its creation and its firing name the same, and the scan keeps
 * timers by it (event_log_str_ord). */
static int get_time(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, bool intern,
		    const char **out)
{
	const char *(*keep)(struct event_pool *, const char *, size_t) = intern ? event_pool_intern
										: event_pool_store;
	if (v->type == JSCAN_STRING) {
		size_t len;
		const char *s = jscan_str(v, &d->scratch, &d->scratch_cap, &len);
		if (!s || !(*out = keep(d->pool, s, len)))
			return dec_oom(d);
		return 0;
	}
	if ((v->type == JSCAN_INT || v->type == JSCAN_REAL) && !d->from_json) {
		if (!(*out = keep(d->pool, v->p, v->len)))
			return dec_oom(d);
		return 0;
	}
	if ((v->type == JSCAN_INT || v->type == JSCAN_REAL) && d->from_json) {
		char *t = json_dumps(v->j, JSON_ENCODE_ANY | JSON_COMPACT);
		if (!t)
			return dec_oom(d);
		*out = keep(d->pool, t, strlen(t));
		free(t);
		return *out ? 0 : dec_oom(d);
	}
	return dec_get_str(d, key, key_len, v, out);
}

/* An integer field; protojson may quote 64-bit integers, so a string of
 * digits is accepted too. */
int dec_get_int(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, int64_t *out, bool *has)
{
	if (v->type == JSCAN_NULL)
		return 0;
	if (v->type == JSCAN_INT) {
		*out = v->i;
		*has = true;
		return 0;
	}
	if (v->type == JSCAN_STRING && !v->escaped && v->len > 0 && v->len < 20) {
		/* Up to 18 digits cannot overflow: read here, as strtoll would
		 * (the CLI's "scheduledId=0" attributes come this way, one a
		 * result; strtoll was 180 instructions a call). */
		size_t neg = v->p[0] == '-', k = neg;
		if (v->len > neg && v->len - neg <= 18) {
			int64_t x = 0;
			while (k < v->len && (unsigned)(v->p[k] - '0') < 10)
				x = x * 10 + (v->p[k++] - '0');
			if (k == v->len) {
				*out = neg ? -x : x;
				*has = true;
				return 0;
			}
		}
		char tmp[24];
		memcpy(tmp, v->p, v->len);
		tmp[v->len] = '\0';
		char *end;
		long long x = strtoll(tmp, &end, 10);
		bool digits = tmp[0] == '-' || (tmp[0] >= '0' && tmp[0] <= '9');
		if (digits && *end == '\0') {
			*out = x;
			*has = true;
			return 0;
		}
	}
	return bad_type(d, key, key_len, v, "an integer");
}

int dec_get_bool(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, bool *out, bool *has)
{
	if (v->type == JSCAN_NULL)
		return 0;
	if (v->type == JSCAN_TRUE || v->type == JSCAN_FALSE) {
		*out = v->type == JSCAN_TRUE;
		*has = true;
		return 0;
	}
	if (v->type == JSCAN_STRING && !v->escaped &&
	    ((v->len == 4 && memcmp(v->p, "true", 4) == 0) || (v->len == 5 && memcmp(v->p, "false", 5) == 0))) {
		*out = v->len == 4;
		*has = true;
		return 0;
	}
	return bad_type(d, key, key_len, v, "a boolean");
}

static uint64_t fnv(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static bool span_is_empty_container(const char *p, size_t len)
{
	/* "{ }" or "[]": nothing but whitespace between the brackets. */
	for (size_t i = 1; i + 1 < len; i++) {
		if (p[i] != ' ' && p[i] != '\n' && p[i] != '\r' && p[i] != '\t')
			return false;
	}
	return true;
}

/* --show-payloads: the payload's text as its hash was taken (a string
 * unescaped, another value as written), for the log to keep a prefix of. */
static int keep_text(struct dec *d, const struct payload *p, const char *s, size_t len)
{
	if (!d->payload_text)
		return 0;
	return event_log_keep_payload_text(d->log, p, s, len) < 0 ? dec_oom(d) : 0;
}

int dec_get_payload(struct dec *d, const struct jscan_tok *v, struct payload *out)
{
	memset(out, 0, sizeof *out);
	switch ((enum jscan_type)v->type) {
	case JSCAN_NULL:
		out->state = PAYLOAD_NULL;
		return 0;
	case JSCAN_STRING:
		if (v->len == 0) {
			out->state = PAYLOAD_EMPTY;
			return 0;
		}
		out->state = PAYLOAD_PRESENT;
		size_t size;
		jscan_str_hash(v, &out->hash, &size);
		out->size = (uint32_t)size; /* under EVENT_INPUT_MAX */
		if (d->payload_text) {
			size_t len;
			const char *s = jscan_str(v, &d->scratch, &d->scratch_cap, &len);
			if (!s)
				return dec_oom(d);
			return keep_text(d, out, s, len);
		}
		return 0;
	case JSCAN_ARRAY:
	case JSCAN_OBJECT:
		if (d->from_json ? (json_is_array(v->j) ? json_array_size(v->j) == 0 : json_object_size(v->j) == 0)
				 : span_is_empty_container(v->p, v->len)) {
			out->state = PAYLOAD_EMPTY;
			return 0;
		}
		break;
	case JSCAN_FALSE:
	case JSCAN_TRUE:
	case JSCAN_INT:
	case JSCAN_REAL:
		break;
	}
	out->state = PAYLOAD_PRESENT;
	if (!d->from_json) {
		out->size = v->len;
		out->hash = fnv(v->p, v->len);
		return keep_text(d, out, v->p, v->len);
	}
	char *t = json_dumps(v->j, JSON_ENCODE_ANY | JSON_COMPACT);
	if (!t)
		return dec_oom(d);
	out->size = strlen(t);
	out->hash = fnv(t, out->size);
	int rc = keep_text(d, out, t, out->size);
	free(t);
	return rc;
}

static int count_unknown_key(struct dec *d, const char *key, size_t key_len)
{
	size_t plen = strlen(d->path);
	char name[KEY_MAX * 3];
	int n = snprintf(name, sizeof name, "%s%s%.*s", d->path, plen ? "." : "", (int)key_len, key);
	if (n < 0)
		return 0;
	size_t l = (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
	if (event_log_count_unknown_key(d->log, name, l, 1) < 0)
		return dec_oom(d);
	return 0;
}

/* What a top-level key means, cached by its exact spelling: a history
 * repeats the same handful of keys hundreds of thousands of times, and
 * normalising and looking each one up again showed in profiles. */
/* A key the cache does not hold: normalised, looked up and kept in c or
 * c2 (key_info_get). Out of line: misses are few. */
__attribute__((noinline)) static const struct key_info *
key_info_miss(struct dec *d, const struct jscan_tok *kt, struct key_cache_ent *c, struct key_cache_ent *c2)
{
	const unsigned char *k = (const unsigned char *)kt->p;
	size_t l = kt->len;
	/* A new key takes the free way, else the second: the first stays
	 * with the key that came first. */
	if (c->len)
		c = c2;
	char nk[KEY_MAX];
	size_t nl = event_key_normalise(kt->p, l, nk, sizeof nk);
	if (!nl || nl >= KEY_CACHE_LEN)
		return NULL;
	d->key_misses++;
	c->len = (uint8_t)l;
	memcpy(c->key, k, l);
	memcpy(c->info.norm, nk, nl + 1);
	c->info.norm_len = (uint8_t)nl;
	c->info.field = event_field_lookup(nk, nl);
	c->info.kind = c->info.field == F_NONE ? event_kind_lookup(nk, nl) : EVENT_UNKNOWN;
	c->info.type_of = (uint8_t)event_dialect_of_type_key(nk, nl);
	return &c->info;
}

/* Inlined, its hits: a call's frame was a third of its cost. */
__attribute__((always_inline)) static inline const struct key_info *key_info_get(struct dec *d,
										 const struct jscan_tok *kt)
{
	if (kt->escaped || kt->len == 0 || kt->len >= KEY_CACHE_LEN)
		return NULL;
	const unsigned char *k = (const unsigned char *)kt->p;
	size_t l = kt->len;
	/* Two ways: a key is in the entry its hash names or the one beside
	 * it, so that two keys every event has that hash alike (the dapr CLI's
	 * appID and router, name and elapsed) do not evict each other on
	 * every event, as they did in a cache of one way. */
	uint64_t w = 0;
	if (l >= 8) {
		/* The first and the last eight bytes: keys share prefixes
		 * (failure_details_..., workflow_instance_..., timer...). */
		uint64_t t;
		memcpy(&w, k, 8);
		memcpy(&t, k + l - 8, 8);
		w ^= t << 29 | t >> 35;
	} else if (l >= 4) {
		uint32_t a, z;
		memcpy(&a, k, 4);
		memcpy(&z, k + l - 4, 4);
		w = a | (uint64_t)z << 32;
	} else {
		w = k[0] | (uint64_t)k[l / 2] << 8 | (uint64_t)k[l - 1] << 16;
	}
	size_t h = (size_t)(((w ^ l) * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - KEY_CACHE_BITS));
	struct key_cache_ent *c = &d->keys[h], *c2 = &d->keys[h ^ 1];
	if (c->len == l && event_bytes_eq(c->key, (const char *)k, l))
		return &c->info;
	if (c2->len == l && event_bytes_eq(c2->key, (const char *)k, l))
		return &c2->info;
	return key_info_miss(d, kt, c, c2);
}

/* The slot of a string value's raw text in a text cache (d->types,
 * d->names), or -1 when it is not kept (escaped, empty, long, not a
 * string). The middle byte tells TaskScheduled from TaskCompleted, the
 * last Step1 from Step2. */
static int text_slot(const struct jscan_tok *v)
{
	if (v->type != JSCAN_STRING || v->escaped || !v->len || v->len >= TYPE_CACHE_LEN)
		return -1;
	const unsigned char *p = (const unsigned char *)v->p;
	size_t l = v->len;
	uint32_t x = (uint32_t)l | (uint32_t)p[0] << 8 | (uint32_t)p[l / 2] << 16 | (uint32_t)p[l - 1] << 24;
	return (int)((x * 0x9e3779b1u) >> 27) & (TYPE_CACHE_SIZE - 1);
}

static const struct text_cache_ent *text_cached(const struct text_cache_ent *cache, const struct jscan_tok *v)
{
	int h = text_slot(v);
	if (h < 0 || cache[h].len != v->len || !event_bytes_eq(cache[h].text, v->p, v->len))
		return NULL;
	return &cache[h];
}

static void text_remember(struct text_cache_ent *cache, const struct jscan_tok *v, const char *interned,
			  enum event_kind kind)
{
	int h = text_slot(v);
	if (h < 0 || !interned)
		return;
	cache[h].len = (uint8_t)v->len;
	memcpy(cache[h].text, v->p, v->len);
	cache[h].interned = interned;
	cache[h].kind = kind;
}

/* An activity name: interned, through d->names. */
static int get_name(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, const char **out)
{
	const struct text_cache_ent *c = text_cached(d->names, v);
	if (c) {
		*out = c->interned;
		return 0;
	}
	if (dec_get_str(d, key, key_len, v, out) < 0)
		return -1;
	text_remember(d->names, v, *out, EVENT_UNKNOWN);
	return 0;
}

static int member(struct dec *d, const char *prefix, size_t prefix_len, size_t ki, int depth);

/* Flattens the members of the object token at oi under a normalised prefix. */
static int flatten(struct dec *d, const char *prefix, size_t prefix_len, size_t oi, int depth)
{
	const struct jscan_tok *t = d->toks.v;
	for (size_t ki = oi + 1; ki < t[oi].end; ki = t[ki + 1].end) {
		if (member(d, prefix, prefix_len, ki, depth) < 0)
			return -1;
	}
	return 0;
}

static void set_origin(struct dec *d, enum timer_origin o)
{
	d->ev->origin = o;
}

/* An inner failure's type or message: only the innermost level is kept, so a
 * deeper level replaces what a shallower one set, in whatever order the keys
 * come. A null value is no value. */
static int get_cause(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, const char *nk,
		     size_t nl, bool is_type)
{
	struct event *ev = d->ev;
	const char *rest;
	size_t rest_len;
	size_t depth = event_inner_failure_depth(nk, nl, &rest, &rest_len);
	const char *s = NULL;
	if (dec_get_str(d, key, key_len, v, &s) < 0)
		return -1;
	if (!s || depth < ev->cause_depth)
		return 0;
	if (depth > ev->cause_depth) {
		ev->cause_depth = (uint8_t)depth; /* keys are short: a few levels at most */
		ev->cause_type = ev->cause_message = NULL;
	}
	if (is_type)
		ev->cause_type = s;
	else
		ev->cause_message = s;
	return 0;
}

/* workflowStarted.version.patches: an array of strings (a string alone
 * is taken as one), kept one a line. The array is one opaque token: read
 * from its text, or from the decoded document it was made from. */
static int get_patches(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v)
{
	if (v->type == JSCAN_NULL)
		return 0;
	if (v->type == JSCAN_STRING)
		return dec_get_str(d, key, key_len, v, &d->ev->patches);
	if (v->type != JSCAN_ARRAY)
		return bad_type(d, key, key_len, v, "an array of strings");
	json_t *own = v->j ? NULL : json_loadb(v->p, v->len, 0, NULL);
	const json_t *a = v->j ? v->j : own;
	if (!json_is_array(a)) {
		json_decref(own);
		return bad_type(d, key, key_len, v, "an array of strings");
	}
	struct buf b;
	buf_init(&b, 0);
	int rc = 0;
	size_t i;
	const json_t *p;
	json_array_foreach(a, i, p) {
		if (!json_is_string(p)) {
			rc = bad_type(d, key, key_len, v, "an array of strings");
			break;
		}
		if (buf_printf(&b, NULL, "%s%s", i ? "\n" : "", json_string_value(p)) < 0) {
			rc = dec_oom(d);
			break;
		}
	}
	if (rc == 0 && b.len && !(d->ev->patches = event_pool_intern(d->pool, b.data, b.len)))
		rc = dec_oom(d);
	buf_finish(&b);
	json_decref(own);
	return rc;
}

/* A member's key, resolved: as the input spells it, normalised under the
 * prefix of the groups it sits in, and the field it names. */
struct member_key {
	const char *key;
	size_t key_len;
	const char *nk;
	size_t nl;
	enum field f;
	char keybuf[KEY_MAX];
	char nkbuf[KEY_MAX * 2];
};

/* Resolves key token kt into mk. 1: an unknown key, counted (nothing more
 * to do); 0: resolved; -1: out of memory. */
static int member_key(struct dec *d, const char *prefix, size_t prefix_len, const struct jscan_tok *kt,
		      struct member_key *mk)
{
	const struct key_info *inf = prefix_len ? NULL : d->next_info ? d->next_info : key_info_get(d, kt);
	d->next_info = NULL;
	if (inf) {
		/* Unescaped, so the key text is the input's and stays put. */
		mk->key = kt->p;
		mk->key_len = kt->len;
		mk->f = inf->field;
		mk->nk = inf->norm;
		mk->nl = inf->norm_len;
		return 0;
	}
	const char *key = jscan_str(kt, &d->scratch, &d->scratch_cap, &mk->key_len);
	if (!key)
		return dec_oom(d);
	if (mk->key_len >= sizeof mk->keybuf)
		return count_unknown_key(d, key, mk->key_len) < 0 ? -1 : 1;
	/* The scratch is reused for values: keep the key. */
	memcpy(mk->keybuf, key, mk->key_len);
	mk->keybuf[mk->key_len] = '\0';
	mk->key = mk->keybuf;
	memcpy(mk->nkbuf, prefix, prefix_len);
	mk->nl = event_key_normalise(mk->key, mk->key_len, mk->nkbuf + prefix_len, sizeof mk->nkbuf - prefix_len);
	if (!mk->nl && mk->key_len)
		return count_unknown_key(d, mk->key, mk->key_len) < 0 ? -1 : 1;
	mk->nl += prefix_len;
	mk->nk = mk->nkbuf;
	mk->f = event_field_lookup(mk->nk, mk->nl);
	return 0;
}

/* A member that is a group (or may be one): skipped, unknown, or an
 * origin that names its id inside. */
static int member_group(struct dec *d, const struct member_key *mk, size_t ki, int depth)
{
	const struct jscan_tok *v = &d->toks.v[ki + 1];
	const char *key = mk->key, *nk = mk->nk;
	size_t key_len = mk->key_len, nl = mk->nl;
	enum field f = mk->f;
	switch (f) {
	case F_IGNORED:
		if (v->type != JSCAN_OBJECT || v->opaque)
			return 0;
		if (depth >= FLATTEN_DEPTH) {
			/* An inner failure too deep to read: the innermost cause
			 * shown is not the innermost one, so say so. */
			return key_has_suffix(nk, nl, "innerfailure") ? count_unknown_key(d, key, key_len) : 0;
		}
		/* A group we skip may still hold members we know
		 * (failureDetails.errorType): look inside. */
		return flatten(d, nk, nl, ki + 1, depth + 1);
	case F_NONE:
		if (v->type == JSCAN_OBJECT && !v->opaque && depth < FLATTEN_DEPTH) {
			size_t plen = strlen(d->path);
			if (plen + key_len + 2 < sizeof d->path) {
				snprintf(d->path + plen, sizeof d->path - plen, "%s%.*s", plen ? "." : "",
					 (int)key_len, key);
				int rc = flatten(d, nk, nl, ki + 1, depth + 1);
				d->path[plen] = '\0';
				return rc;
			}
		}
		return count_unknown_key(d, key, key_len);
	default: /* the origins */
		if (v->type == JSCAN_NULL)
			return 0;
		set_origin(d, f == F_ORIGIN_ACTIVITY ? ORIGIN_ACTIVITY_RETRY
			      : f == F_ORIGIN_CHILD  ? ORIGIN_CHILD_RETRY
						     : ORIGIN_EXTERNAL_EVENT);
		if (v->type == JSCAN_OBJECT && !v->opaque && depth < FLATTEN_DEPTH)
			return flatten(d, nk, nl, ki + 1, depth + 1);
		return dec_get_str(d, key, key_len, v, &d->ev->origin_id);
	}
}

/* One key (token ki) and its value (ki + 1). */
static int member(struct dec *d, const char *prefix, size_t prefix_len, size_t ki, int depth)
{
	const struct jscan_tok *v = &d->toks.v[ki + 1];
	struct event *ev = d->ev;
	struct member_key mk;
	int r = member_key(d, prefix, prefix_len, &d->toks.v[ki], &mk);
	if (r)
		return r < 0 ? -1 : 0;
	const char *key = mk.key, *nk = mk.nk;
	size_t key_len = mk.key_len, nl = mk.nl;
	enum field f = mk.f;
	switch (f) {
	case F_IGNORED:
	case F_NONE:
	case F_ORIGIN_ACTIVITY:
	case F_ORIGIN_CHILD:
	case F_ORIGIN_EXTERNAL:
		return member_group(d, &mk, ki, depth);
	case F_TYPE: /* handled when the kind was found */
		return 0;
	case F_EVENT_ID:
		return dec_get_int(d, key, key_len, v, &ev->event_id, &ev->has_event_id);
	case F_TIMESTAMP:
		return get_time(d, key, key_len, v, false, &ev->timestamp);
	case F_NAME:
		return get_name(d, key, key_len, v, &ev->name);
	case F_TSID:
		return dec_get_int(d, key, key_len, v, &ev->task_scheduled_id, &ev->has_task_scheduled_id);
	case F_TEXID:
		return dec_get_str(d, key, key_len, v, &ev->task_execution_id);
	case F_TIMER_ID:
		return dec_get_int(d, key, key_len, v, &ev->timer_id, &ev->has_timer_id);
	case F_FIRE_AT:
		return get_time(d, key, key_len, v, true, &ev->fire_at);
	case F_ORIGIN_CREATE:
		if (v->type != JSCAN_NULL && v->type != JSCAN_FALSE)
			set_origin(d, ORIGIN_CREATE_TIMER);
		return 0;
	case F_INSTANCE_ID:
		return dec_get_str(d, key, key_len, v, &ev->instance_id);
	case F_EXECUTION_ID:
		return dec_get_str(d, key, key_len, v, &d->raw_execution_id);
	case F_RETRY_PARENT:
		return dec_get_str(d, key, key_len, v, &ev->retry_parent_instance_id);
	case F_RERUN_PARENT:
		return dec_get_str(d, key, key_len, v, &ev->rerun_parent_instance_id);
	case F_WF_STATUS:
		return dec_get_str(d, key, key_len, v, &ev->workflow_status);
	case F_ERR_MSG:
		return dec_get_str(d, key, key_len, v, &ev->error_message);
	case F_ERR_TYPE:
		return dec_get_str(d, key, key_len, v, &ev->error_type);
	case F_CAUSE_MSG:
	case F_CAUSE_TYPE:
		return get_cause(d, key, key_len, v, nk, nl, f == F_CAUSE_TYPE);
	case F_NON_RETRIABLE:
		return dec_get_bool(d, key, key_len, v, &ev->non_retriable, &ev->has_non_retriable);
	case F_INPUT:
		return dec_get_payload(d, v, &ev->input);
	case F_OUTPUT:
		return dec_get_payload(d, v, &ev->output);
	case F_CUSTOM_STATUS:
		return dec_get_payload(d, v, &ev->custom_status);
	case F_ATTRS:
		if (v->type == JSCAN_NULL)
			return 0;
		if (v->type != JSCAN_STRING)
			return bad_type(d, key, key_len, v, "a string");
		break;
	case F_APP_ID:
		return dec_get_str(d, key, key_len, v, &d->app_id);
	case F_STATUS:
		return dec_get_str(d, key, key_len, v, &d->status);
	case F_VERSION_NAME:
		return dec_get_str(d, key, key_len, v, &d->version_name);
	case F_PATCHES:
		return get_patches(d, key, key_len, v);
	case F_REASON:
		return dec_get_str(d, key, key_len, v, &d->reason);
	case F_DESCRIPTION:
		return dec_get_str(d, key, key_len, v, &d->description);
	case F_ATTESTATION:
		ev->attested |= v->type != JSCAN_NULL;
		return 0;
	}
	return 0;
}

/* `dapr workflow history` attrs: "k=v;k=v" (dapr/cli pkg/workflow/history.go,
 * addAttr; CLI 1.16 to 1.18). Free-text values (input, output, errorMsg,
 * ...) may hold ';' and run to the next ";<known key>=" or the end, so every
 * key the CLI writes is listed. */

/* Does the object at token 0 look like a history event? Sets the dialect. */
bool dec_looks_like_event(const struct jscan_toks *tk, char **scratch, size_t *cap, enum event_dialect *dialect)
{
	const struct jscan_tok *t = tk->v;
	if (!tk->n || t[0].type != JSCAN_OBJECT || t[0].opaque)
		return false;
	for (size_t ki = 1; ki < t[0].end; ki = t[ki + 1].end) {
		char nk[KEY_MAX];
		size_t kl;
		const char *k = jscan_str(&t[ki], scratch, cap, &kl);
		if (!k)
			return false;
		size_t l = event_key_normalise(k, kl, nk, sizeof nk);
		const struct jscan_tok *v = &t[ki + 1];
		enum event_dialect td = event_dialect_of_type_key(nk, l);
		if (td != DIALECT_UNKNOWN && v->type == JSCAN_STRING) {
			size_t vl;
			const char *s = event_dialect_type_needs_kind(td) ? jscan_str(v, scratch, cap, &vl) : NULL;
			if (!event_dialect_type_needs_kind(td) ||
			    (s && event_kind_lookup(s, vl) != EVENT_UNKNOWN)) {
				*dialect = td;
				return true;
			}
		}
		if (v->type == JSCAN_OBJECT && event_kind_lookup(nk, l) != EVENT_UNKNOWN) {
			*dialect = DIALECT_PROTOJSON;
			return true;
		}
	}
	return false;
}

/* The kind for an interned type name, cached by pointer: interning makes
 * equal names the same pointer. */
static enum event_kind kind_of_type(struct dec *d, const char *name)
{
	size_t h = ((uintptr_t)name >> 3) & (KIND_CACHE_SIZE - 1);
	if (d->kinds[h].name != name) {
		d->kinds[h].name = name;
		d->kinds[h].kind = event_kind_lookup(name, strlen(name));
	}
	return d->kinds[h].kind;
}

/* Decodes the event whose tokens are in d->toks and appends it. */
/* Pass 1: the kind, from an event-type key or the protojson oneof, and
 * with it the dialect. Sets *type_ki / *oneof_ki to the member that named
 * it (0: none). -1 on error (d->e set). */
static int dec_event_kind(struct dec *d, size_t *type_ki, size_t *oneof_ki, enum event_dialect *dialect)
{
	const struct jscan_tok *t = d->toks.v;
	struct event *ev = d->ev;
	size_t unknown_obj_ki = 0, unknown_objs = 0;
	*type_ki = *oneof_ki = 0;
	*dialect = DIALECT_UNKNOWN;
	unsigned misses = d->key_misses;
	size_t n = 0;
	for (size_t ki = 1; ki < t[0].end; ki = t[ki + 1].end, n++) {
		const struct jscan_tok *v = &t[ki + 1];
		const struct key_info *inf = key_info_get(d, &t[ki]);
		if (n < DEC_TOP_KEYS)
			d->top[n] = inf;
		struct key_info tmp;
		if (!inf) {
			size_t kl;
			const char *k = jscan_str(&t[ki], &d->scratch, &d->scratch_cap, &kl);
			if (!k)
				return dec_oom(d);
			/* Longer than the cache takes (subOrchestrationInstanceCompleted). */
			char nk[KEY_MAX];
			size_t l = event_key_normalise(k, kl, nk, sizeof nk);
			tmp.field = l ? event_field_lookup(nk, l) : F_NONE;
			tmp.kind = tmp.field == F_NONE && l ? event_kind_lookup(nk, l) : EVENT_UNKNOWN;
			tmp.type_of = (uint8_t)event_dialect_of_type_key(nk, l);
			inf = &tmp;
		}
		if (inf->type_of && (!*type_ki || inf->type_of <= *dialect)) {
			/* The earlier dialect of the table wins; within one, the last key. */
			*type_ki = ki;
			*dialect = (enum event_dialect)inf->type_of;
		} else if (inf->type_of) {
			continue;
		} else if (v->type == JSCAN_OBJECT && inf->field == F_NONE) {
			if (!*oneof_ki && inf->kind != EVENT_UNKNOWN) {
				*oneof_ki = ki;
			} else {
				unknown_obj_ki = ki;
				unknown_objs++;
			}
		}
	}
	/* A key that missed may have taken the entry an earlier one resolved
	 * to: then the second pass looks them up again. */
	d->n_top = d->key_misses == misses && n <= DEC_TOP_KEYS ? n : 0;
	d->top_misses = d->key_misses;
	if (*type_ki) {
		const struct jscan_tok *v = &t[*type_ki + 1];
		/* The key only names the field in an error message. */
		const char *key = t[*type_ki].escaped ? "event_type" : t[*type_ki].p;
		size_t kl = t[*type_ki].escaped ? 10 : t[*type_ki].len;
		const struct text_cache_ent *c = text_cached(d->types, v);
		if (c) {
			ev->kind_name = c->interned;
			ev->kind = c->kind;
		} else {
			if (dec_get_str(d, key, kl, v, &ev->kind_name) < 0)
				return -1;
			ev->kind = ev->kind_name ? kind_of_type(d, ev->kind_name) : EVENT_UNKNOWN;
			text_remember(d->types, v, ev->kind_name, ev->kind);
		}
	} else if (*oneof_ki || unknown_objs == 1) {
		size_t ki = *oneof_ki ? *oneof_ki : unknown_obj_ki;
		size_t kl;
		const char *k = jscan_str(&t[ki], &d->scratch, &d->scratch_cap, &kl);
		if (!k || !(ev->kind_name = event_pool_intern(d->pool, k, kl)))
			return dec_oom(d);
		ev->kind = event_kind_lookup(k, kl);
		*dialect = DIALECT_PROTOJSON;
		*oneof_ki = ki;
	}
	if (!ev->kind_name && !(ev->kind_name = event_pool_intern(d->pool, "(no event type)", 15)))
		return dec_oom(d);
	return 0;
}

/* Pass 2: every member but the one that named the kind, flattened. */
static int dec_event_members(struct dec *d, size_t type_ki, size_t oneof_ki, enum event_dialect dialect)
{
	const struct jscan_tok *t = d->toks.v;
	size_t n = 0;
	for (size_t ki = 1; ki < t[0].end; ki = t[ki + 1].end, n++) {
		if (ki == type_ki)
			continue;
		if (ki == oneof_ki) {
			if (t[ki + 1].opaque)
				continue;
			if (flatten(d, "", 0, ki + 1, 1) < 0)
				return -1;
			continue;
		}
		if (t[ki + 1].type == JSCAN_STRING && dialect == DIALECT_DAPR_CLI) {
			/* Unescaped (nearly always), the key's text is the input's. */
			size_t kl = t[ki].len;
			const char *k = t[ki].escaped ? jscan_str(&t[ki], &d->scratch, &d->scratch_cap, &kl)
						      : t[ki].p;
			if (k && kl == 5 && memcmp(k, "attrs", 5) == 0) {
				if (dapr_cli_attrs(d, &t[ki + 1]) < 0)
					return -1;
				continue;
			}
			if (k && kl == 7 && memcmp(k, "details", 7) == 0) {
				if (dapr_cli_details(d, &t[ki + 1]) < 0)
					return -1;
				continue;
			}
		}
		/* Resolved by the first pass, unless an entry was written since. */
		d->next_info = n < d->n_top && d->key_misses == d->top_misses ? d->top[n] : NULL;
		if (member(d, "", 0, ki, 0) < 0)
			return -1;
	}
	return 0;
}

/* What each dialect leaves implicit, and the fields read aside (a raw
 * execution id, attrs, status, app id) put where they belong. */
static void dec_event_implicit(struct dec *d, enum event_dialect dialect)
{
	struct event *ev = d->ev;
	if (dialect == DIALECT_DAPR_CLI)
		dapr_cli_implicit(d);
	else if (!ev->has_event_id)
		ev->event_id = 0;
	if (d->raw_execution_id) {
		if (dialect == DIALECT_DAPR_CLI && ev->kind != EVENT_EXECUTION_STARTED) {
			if (!ev->task_execution_id)
				ev->task_execution_id = d->raw_execution_id;
		} else {
			ev->execution_id = d->raw_execution_id;
		}
	}
	if (d->attrs_task_exec_id) {
		if (ev->origin == ORIGIN_ACTIVITY_RETRY && !ev->origin_id)
			ev->origin_id = d->attrs_task_exec_id;
		else if (!ev->task_execution_id)
			ev->task_execution_id = d->attrs_task_exec_id;
	}
	if (d->status && ev->kind == EVENT_EXECUTION_COMPLETED && !ev->workflow_status)
		ev->workflow_status = d->status;
	if (ev->kind == EVENT_WORKFLOW_STARTED && d->version_name && !ev->name)
		ev->name = d->version_name;
	if (ev->kind == EVENT_EXECUTION_STALLED) {
		/* protojson leaves the enum's zero out */
		ev->error_type = d->reason ? d->reason : "PATCH_MISMATCH";
		if (d->description)
			ev->error_message = d->description;
	}
	if (d->app_id && !d->run[RUN_APP].set) {
		d->run[RUN_APP].set = true;
		d->run[RUN_APP].depth = 1 << 20;
		d->run[RUN_APP].tok =
			(struct jscan_tok){.type = JSCAN_STRING, .p = d->app_id, .len = strlen(d->app_id)};
	}
}

int dec_event(struct dec *d)
{
	const struct jscan_tok *t = d->toks.v;
	if (t[0].type != JSCAN_OBJECT || t[0].opaque) {
		if (d->from_json)
			return err_set(d->e, ERR_INPUT,
				       "event %zu is %s, not an object: the event list holds objects", d->index,
				       type_name(&t[0]));
		return err_set(d->e, ERR_INPUT,
			       "event %zu at byte %zu is %s, not an object: the event list holds objects",
			       d->index, d->off, type_name(&t[0]));
	}
	struct event *ev = &d->evbuf;
	event_clear(ev);
	d->ev = ev;
	d->raw_execution_id = NULL;
	d->version_name = d->reason = d->description = NULL;
	d->attrs_task_exec_id = NULL;
	d->attrs_instance_id = NULL;
	d->status = NULL;
	d->app_id = NULL;
	d->path[0] = '\0';
	ev->source_offset = d->from_json ? 0 : d->off;

	size_t type_ki, oneof_ki;
	enum event_dialect dialect;
	if (dec_event_kind(d, &type_ki, &oneof_ki, &dialect) < 0)
		return -1;
	d->ev_dialect = dialect;
	if (dec_event_members(d, type_ki, oneof_ki, dialect) < 0)
		return -1;
	dec_event_implicit(d, dialect);
	if (ev->kind == EVENT_UNKNOWN &&
	    event_log_count_unknown_kind(d->log, ev->kind_name, strlen(ev->kind_name), 1) < 0)
		return dec_oom(d);
	if (event_log_store(d->log, ev) < 0)
		return dec_oom(d);
	if (d->dialect == DIALECT_UNKNOWN)
		d->dialect = dialect;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Run fields in the envelope. */

void dec_run_field(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, int depth)
{
	if (v->type != JSCAN_STRING || key_len >= KEY_MAX)
		return;
	char nk[KEY_MAX];
	size_t l = event_key_normalise(key, key_len, nk, sizeof nk);
	int f = -1;
	if (!l)
		return;
	if (strstr(nk, "datasharing"))
		f = RUN_SHARING;
	else if (!strcmp(nk, "instanceid") || !strcmp(nk, "workflowinstanceid"))
		f = RUN_INSTANCE;
	else if (!strcmp(nk, "appid") || !strcmp(nk, "applicationid"))
		f = RUN_APP;
	else if (!strcmp(nk, "workflowname") || (depth <= 1 && !strcmp(nk, "name")))
		f = RUN_NAME;
	else if (!strcmp(nk, "runtimestatus") || (depth <= 1 && !strcmp(nk, "status")))
		f = RUN_STATUS;
	else if (!strcmp(nk, "project") || !strcmp(nk, "projectname") || !strcmp(nk, "projectid"))
		f = RUN_PROJECT;
	if (f < 0)
		return;
	struct run_cand *c = &d->run[f];
	if (c->set && c->depth <= depth)
		return;
	c->set = true;
	c->depth = depth;
	c->tok = *v;
	c->key = key;
	c->key_len = key_len;
}

static const char *run_str(struct dec *d, struct run_cand *c)
{
	if (!c->set)
		return NULL;
	size_t len;
	const char *s = jscan_str(&c->tok, &d->scratch, &d->scratch_cap, &len);
	return s ? event_pool_intern(d->pool, s, len) : NULL;
}

void dec_run_finish(struct dec *d)
{
	struct event_run_info info = {
		.instance_id = run_str(d, &d->run[RUN_INSTANCE]),
		.app_id = run_str(d, &d->run[RUN_APP]),
		.workflow_name = run_str(d, &d->run[RUN_NAME]),
		.runtime_status = run_str(d, &d->run[RUN_STATUS]),
		.project = run_str(d, &d->run[RUN_PROJECT]),
		.data_sharing_level = run_str(d, &d->run[RUN_SHARING]),
	};
	if (d->run[RUN_SHARING].set) {
		/* Keys with escapes never become run fields: the text is the
		 * key as spelled. */
		info.data_sharing_field =
			event_pool_intern(d->pool, d->run[RUN_SHARING].key, d->run[RUN_SHARING].key_len);
	}
	event_log_set_run_info(d->log, &info);
}
