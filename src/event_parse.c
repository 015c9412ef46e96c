/* Dialect parsers for workflow history: the flattened Catalyst dialect (with
 * camelCase/PascalCase spellings), durabletask protojson, and `dapr workflow
 * history -o json`. One decoder serves all three: nested protojson members
 * are flattened by concatenating normalised key names (failureDetails.errorType
 * becomes failuredetailserrortype), which is exactly Catalyst's flattening, so
 * one field table covers both. The event list is found anywhere in the
 * document and read one element at a time. */
#include "event.h"
#include "event_internal.h"
#include "event_json.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Keys longer than this (normalised) are never known fields. */
#define KEY_MAX 96
/* A mapped input is given back in steps of this, keeping a margin. */
#define RELEASE_STEP (1u << 20)
#define RELEASE_MARGIN (256u << 10)
/* Lists at least this big are parsed in two threads. */
#define SPLIT_MIN (4u << 20)
#define SPLIT_SEARCH (1u << 20)
/* How deep members of one event are flattened. */
#define FLATTEN_DEPTH 6

enum field {
	F_NONE = 0,
	F_IGNORED, /* known, not modelled: counted nowhere */
	F_TYPE,
	F_EVENT_ID,
	F_TIMESTAMP,
	F_NAME,
	F_TSID,
	F_TEXID,
	F_TIMER_ID,
	F_FIRE_AT,
	F_ORIGIN_ACTIVITY,
	F_ORIGIN_CHILD,
	F_ORIGIN_CREATE,
	F_ORIGIN_EXTERNAL,
	F_INSTANCE_ID,
	F_EXECUTION_ID,
	F_RETRY_PARENT,
	F_RERUN_PARENT,
	F_WF_STATUS,
	F_ERR_MSG,
	F_ERR_TYPE,
	F_CAUSE_MSG,  /* failureDetails.innerFailure[.innerFailure...].errorMessage */
	F_CAUSE_TYPE, /* ... .errorType */
	F_NON_RETRIABLE,
	F_INPUT,
	F_OUTPUT,
	F_CUSTOM_STATUS,
	F_ATTRS,
	F_APP_ID,
	F_STATUS,
};

struct name_map {
	const char *name; /* normalised */
	int value;
};

static const struct name_map field_names[] = {
	{"eventtype", F_TYPE},
	{"type", F_TYPE},
	{"eventid", F_EVENT_ID},
	{"timestamp", F_TIMESTAMP},
	{"name", F_NAME},
	{"taskscheduledid", F_TSID},
	{"scheduledid", F_TSID},
	{"taskexecutionid", F_TEXID},
	{"timerid", F_TIMER_ID},
	{"fireat", F_FIRE_AT},
	{"activityretry", F_ORIGIN_ACTIVITY},
	{"childworkflowretry", F_ORIGIN_CHILD},
	{"createtimer", F_ORIGIN_CREATE},
	{"externalevent", F_ORIGIN_EXTERNAL},
	{"externaleventname", F_ORIGIN_EXTERNAL},
	{"instanceid", F_INSTANCE_ID},
	{"workflowinstanceinstanceid", F_INSTANCE_ID},
	{"orchestrationinstanceinstanceid", F_INSTANCE_ID},
	{"executionid", F_EXECUTION_ID},
	{"workflowinstanceexecutionid", F_EXECUTION_ID},
	{"orchestrationinstanceexecutionid", F_EXECUTION_ID},
	{"workflowstatus", F_WF_STATUS},
	{"orchestrationstatus", F_WF_STATUS},
	{"failuredetailserrormessage", F_ERR_MSG},
	{"errormessage", F_ERR_MSG},
	{"failuredetailserrortype", F_ERR_TYPE},
	{"errortype", F_ERR_TYPE},
	{"failuredetailsisnonretriable", F_NON_RETRIABLE},
	{"isnonretriable", F_NON_RETRIABLE},
	{"input", F_INPUT},
	{"output", F_OUTPUT},
	{"result", F_OUTPUT},
	{"customstatus", F_CUSTOM_STATUS},
	{"attrs", F_ATTRS},
	{"appid", F_APP_ID},
	{"status", F_STATUS},
	/* Known keys the model does not carry. */
	{"stacktrace", F_IGNORED},
	{"details", F_IGNORED},
	{"play", F_IGNORED},
	{"elapsed", F_IGNORED},
	{"tags", F_IGNORED},
	{"version", F_IGNORED},
	{"scheduledstarttimestamp", F_IGNORED},
	{"reason", F_IGNORED},
	{"workflowspanid", F_IGNORED},
	{"orchestrationspanid", F_IGNORED},
};

/* Prefixes of known groups the model does not carry. */
static const char *const ignored_prefixes[] = {
	"failuredetails", "parentinstance", "router", "parenttracecontext", "tags",
};

static const struct name_map kind_names[] = {
	{"executionstarted", EVENT_EXECUTION_STARTED},
	{"executioncompleted", EVENT_EXECUTION_COMPLETED},
	{"executionterminated", EVENT_EXECUTION_TERMINATED},
	{"executionsuspended", EVENT_EXECUTION_SUSPENDED},
	{"executionresumed", EVENT_EXECUTION_RESUMED},
	{"executionstalled", EVENT_EXECUTION_STALLED},
	{"continueasnew", EVENT_CONTINUE_AS_NEW},
	{"workflowstarted", EVENT_WORKFLOW_STARTED},
	{"orchestratorstarted", EVENT_WORKFLOW_STARTED},
	{"workflowcompleted", EVENT_WORKFLOW_COMPLETED},
	{"orchestratorcompleted", EVENT_WORKFLOW_COMPLETED},
	{"taskscheduled", EVENT_TASK_SCHEDULED},
	{"taskcompleted", EVENT_TASK_COMPLETED},
	{"taskfailed", EVENT_TASK_FAILED},
	{"timercreated", EVENT_TIMER_CREATED},
	{"timerfired", EVENT_TIMER_FIRED},
	{"childworkflowinstancecreated", EVENT_CHILD_CREATED},
	{"suborchestrationinstancecreated", EVENT_CHILD_CREATED},
	{"childworkflowinstancecompleted", EVENT_CHILD_COMPLETED},
	{"suborchestrationinstancecompleted", EVENT_CHILD_COMPLETED},
	{"childworkflowinstancefailed", EVENT_CHILD_FAILED},
	{"suborchestrationinstancefailed", EVENT_CHILD_FAILED},
	/* `dapr workflow history` row types: CLI 1.18, then 1.16-1.17. */
	{"childworkflowcreated", EVENT_CHILD_CREATED},
	{"childworkflowcompleted", EVENT_CHILD_COMPLETED},
	{"childworkflowfailed", EVENT_CHILD_FAILED},
	{"suborchcreated", EVENT_CHILD_CREATED},
	{"suborchcompleted", EVENT_CHILD_COMPLETED},
	{"suborchfailed", EVENT_CHILD_FAILED},
	{"eventsent", EVENT_EVENT_SENT},
	{"eventraised", EVENT_EVENT_RAISED},
	{"genericevent", EVENT_GENERIC},
	{"historystate", EVENT_HISTORY_STATE},
};

static bool has_prefix(const char *s, size_t len, const char *pre)
{
	size_t l = strlen(pre);
	return len >= l && memcmp(s, pre, l) == 0;
}

static bool has_suffix(const char *s, size_t len, const char *suf)
{
	size_t l = strlen(suf);
	return len >= l && memcmp(s + len - l, suf, l) == 0;
}

static int map_lookup(const struct name_map *m, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (m[i].name[0] == s[0] && strlen(m[i].name) == len && memcmp(m[i].name, s, len) == 0)
			return m[i].value;
	}
	return -1;
}

/* How many innerFailure levels a normalised failureDetails key goes down
 * (failuredetailsinnerfailureinnerfailureerrortype: 2), and what follows. */
static size_t inner_failure_depth(const char *nk, size_t len, const char **rest, size_t *rest_len)
{
	size_t depth = 0;
	if (has_prefix(nk, len, "failuredetails")) {
		nk += 14;
		len -= 14;
		while (has_prefix(nk, len, "innerfailure")) {
			nk += 12;
			len -= 12;
			depth++;
		}
	}
	*rest = nk;
	*rest_len = len;
	return depth;
}

static enum field field_lookup(const char *nk, size_t len)
{
	if (!len)
		return F_NONE;
	int f = map_lookup(field_names, sizeof field_names / sizeof field_names[0], nk, len);
	if (f >= 0)
		return (enum field)f;
	/* Lenient on how a flattener spells the path to these. */
	if (has_suffix(nk, len, "activityretrytaskexecutionid"))
		return F_ORIGIN_ACTIVITY;
	if (has_suffix(nk, len, "childworkflowretryinstanceid"))
		return F_ORIGIN_CHILD;
	if (has_prefix(nk, len, "origin") && strstr(nk, "createtimer"))
		return F_ORIGIN_CREATE;
	if (has_prefix(nk, len, "origin") && has_suffix(nk, len, "externaleventname"))
		return F_ORIGIN_EXTERNAL;
	if (has_prefix(nk, len, "retryparent") && has_suffix(nk, len, "instanceid"))
		return F_RETRY_PARENT;
	if (has_prefix(nk, len, "rerunparent") && has_suffix(nk, len, "instanceid"))
		return F_RERUN_PARENT;
	const char *rest;
	size_t rest_len;
	if (inner_failure_depth(nk, len, &rest, &rest_len) > 0) {
		if (rest_len == 9 && memcmp(rest, "errortype", 9) == 0)
			return F_CAUSE_TYPE;
		if (rest_len == 12 && memcmp(rest, "errormessage", 12) == 0)
			return F_CAUSE_MSG;
	}
	for (size_t i = 0; i < sizeof ignored_prefixes / sizeof ignored_prefixes[0]; i++) {
		if (has_prefix(nk, len, ignored_prefixes[i]))
			return F_IGNORED;
	}
	return F_NONE;
}

static enum event_kind kind_lookup(const char *s, size_t len)
{
	char nk[KEY_MAX];
	size_t l = evj_normalise(s, len, nk, sizeof nk);
	if (!l)
		return EVENT_UNKNOWN;
	const char *p = nk;
	/* EVENT_TYPE_TASK_SCHEDULED and the like. */
	if (has_prefix(p, l, "eventtype") && l > 9) {
		p += 9;
		l -= 9;
	}
	int k = map_lookup(kind_names, sizeof kind_names / sizeof kind_names[0], p, l);
	return k < 0 ? EVENT_UNKNOWN : (enum event_kind)k;
}

/* ------------------------------------------------------------------------ */
/* Decoding one event from its tokens. */

struct run_cand {
	struct evj_tok tok;
	int depth;
	bool set;
	const char *key;
	size_t key_len;
};

enum run_field {
	RUN_INSTANCE,
	RUN_APP,
	RUN_NAME,
	RUN_STATUS,
	RUN_PROJECT,
	RUN_SHARING,
	RUN_COUNT,
};

#define KEY_CACHE_LEN 32
#define KEY_CACHE_SIZE 128

struct key_info {
	enum field field;
	enum event_kind kind; /* when the key names a kind (a protojson oneof) */
	bool event_type;      /* event_type, eventType, EventType */
	bool type;            /* type (dapr workflow history) */
	uint8_t norm_len;
	char norm[KEY_CACHE_LEN];
};

struct key_cache_ent {
	uint8_t len;
	char key[KEY_CACHE_LEN];
	struct key_info info;
};

#define KIND_CACHE_SIZE 32

struct dec {
	struct key_cache_ent keys[KEY_CACHE_SIZE];
	struct {
		const char *name;
		enum event_kind kind;
	} kinds[KIND_CACHE_SIZE];
	struct event_log *log;
	struct event_pool *pool;
	struct evj_toks toks;
	char *scratch;
	size_t scratch_cap;
	char *attrs;
	size_t attrs_cap;
	size_t index; /* of the event in the list */
	size_t off;   /* of the event in the input */
	bool from_json;
	enum event_dialect dialect; /* of the first event */
	struct event *ev;           /* &evbuf: filled, then packed into the log */
	struct event evbuf;
	enum event_dialect ev_dialect;
	const char *raw_execution_id;
	const char *attrs_task_exec_id;
	const char *attrs_instance_id;
	const char *status;
	const char *app_id;
	char path[KEY_MAX * 2];
	struct run_cand run[RUN_COUNT];
	struct err *e;
};

static const char *type_name(const struct evj_tok *t)
{
	switch ((enum evj_type)t->type) {
	case EVJ_NULL:
		return "null";
	case EVJ_FALSE:
	case EVJ_TRUE:
		return "a boolean";
	case EVJ_INT:
	case EVJ_REAL:
		return "a number";
	case EVJ_STRING:
		return "a string";
	case EVJ_ARRAY:
		return "an array";
	case EVJ_OBJECT:
		return "an object";
	}
	return "?";
}

static int bad_type(struct dec *d, const char *key, size_t key_len, const struct evj_tok *v, const char *want)
{
	size_t off = d->from_json ? d->off : v->off;
	if (d->from_json)
		return err_set(d->e, ERR_INPUT, "event %zu: field \"%.*s\" must be %s, got %s", d->index,
			       (int)key_len, key, want, type_name(v));
	return err_set(d->e, ERR_INPUT, "event %zu at byte %zu: field \"%.*s\" must be %s, got %s", d->index, off,
		       (int)key_len, key, want, type_name(v));
}

static int oom(struct dec *d)
{
	return err_set(d->e, ERR_INTERNAL, "out of memory reading event %zu", d->index);
}

/* A string field: NULL stays absent; anything but a string is an error. */
static int get_str(struct dec *d, const char *key, size_t key_len, const struct evj_tok *v, const char **out)
{
	if (v->type == EVJ_NULL)
		return 0;
	if (v->type != EVJ_STRING)
		return bad_type(d, key, key_len, v, "a string");
	size_t len;
	const char *s = evj_str(v, &d->scratch, &d->scratch_cap, &len);
	if (!s || !(*out = event_pool_intern(d->pool, s, len)))
		return oom(d);
	return 0;
}

/* Timestamps are strings in every known dialect; a number is kept as its
 * text rather than refused, since the envelope is undocumented. */
static int get_time(struct dec *d, const char *key, size_t key_len, const struct evj_tok *v, const char **out)
{
	if (v->type == EVJ_STRING) {
		size_t len;
		const char *s = evj_str(v, &d->scratch, &d->scratch_cap, &len);
		if (!s || !(*out = event_pool_store(d->pool, s, len)))
			return oom(d);
		return 0;
	}
	if ((v->type == EVJ_INT || v->type == EVJ_REAL) && !d->from_json) {
		if (!(*out = event_pool_store(d->pool, v->p, v->len)))
			return oom(d);
		return 0;
	}
	if ((v->type == EVJ_INT || v->type == EVJ_REAL) && d->from_json) {
		char *t = json_dumps(v->j, JSON_ENCODE_ANY | JSON_COMPACT);
		if (!t)
			return oom(d);
		*out = event_pool_store(d->pool, t, strlen(t));
		free(t);
		return *out ? 0 : oom(d);
	}
	return get_str(d, key, key_len, v, out);
}

/* An integer field; protojson may quote 64-bit integers, so a string of
 * digits is accepted too. */
static int get_int(struct dec *d, const char *key, size_t key_len, const struct evj_tok *v, int64_t *out,
		   bool *has)
{
	if (v->type == EVJ_NULL)
		return 0;
	if (v->type == EVJ_INT) {
		*out = v->i;
		*has = true;
		return 0;
	}
	if (v->type == EVJ_STRING && !v->escaped && v->len > 0 && v->len < 20) {
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

static int get_bool(struct dec *d, const char *key, size_t key_len, const struct evj_tok *v, bool *out, bool *has)
{
	if (v->type == EVJ_NULL)
		return 0;
	if (v->type == EVJ_TRUE || v->type == EVJ_FALSE) {
		*out = v->type == EVJ_TRUE;
		*has = true;
		return 0;
	}
	if (v->type == EVJ_STRING && !v->escaped &&
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

static int get_payload(struct dec *d, const struct evj_tok *v, struct payload *out)
{
	memset(out, 0, sizeof *out);
	switch ((enum evj_type)v->type) {
	case EVJ_NULL:
		out->state = PAYLOAD_NULL;
		return 0;
	case EVJ_STRING:
		if (v->len == 0) {
			out->state = PAYLOAD_EMPTY;
			return 0;
		}
		out->state = PAYLOAD_PRESENT;
		evj_str_hash(v, &out->hash, &out->size);
		return 0;
	case EVJ_ARRAY:
	case EVJ_OBJECT:
		if (d->from_json ? (json_is_array(v->j) ? json_array_size(v->j) == 0 : json_object_size(v->j) == 0)
				 : span_is_empty_container(v->p, v->len)) {
			out->state = PAYLOAD_EMPTY;
			return 0;
		}
		break;
	case EVJ_FALSE:
	case EVJ_TRUE:
	case EVJ_INT:
	case EVJ_REAL:
		break;
	}
	out->state = PAYLOAD_PRESENT;
	if (!d->from_json) {
		out->size = v->len;
		out->hash = fnv(v->p, v->len);
		return 0;
	}
	char *t = json_dumps(v->j, JSON_ENCODE_ANY | JSON_COMPACT);
	if (!t)
		return oom(d);
	out->size = strlen(t);
	out->hash = fnv(t, out->size);
	free(t);
	return 0;
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
		return oom(d);
	return 0;
}

static int origin_kind_from_name(const char *s, size_t len)
{
	char n[KEY_MAX];
	size_t l = evj_normalise(s, len, n, sizeof n);
	if (l == 13 && memcmp(n, "activityretry", 13) == 0)
		return ORIGIN_ACTIVITY_RETRY;
	if (l == 18 && memcmp(n, "childworkflowretry", 18) == 0)
		return ORIGIN_CHILD_RETRY;
	if (l == 11 && memcmp(n, "createtimer", 11) == 0)
		return ORIGIN_CREATE_TIMER;
	if (l == 13 && memcmp(n, "externalevent", 13) == 0)
		return ORIGIN_EXTERNAL_EVENT;
	return ORIGIN_OTHER;
}

/* What a top-level key means, cached by its exact spelling: a history
 * repeats the same handful of keys hundreds of thousands of times, and
 * normalising and looking each one up again showed in profiles. */
static const struct key_info *key_info_get(struct dec *d, const struct evj_tok *kt)
{
	if (kt->escaped || kt->len == 0 || kt->len >= KEY_CACHE_LEN)
		return NULL;
	const unsigned char *k = (const unsigned char *)kt->p;
	size_t l = kt->len;
	size_t h = (l * 7u + k[0] * 31u + k[l - 1] * 13u + k[l / 2] * 5u) & (KEY_CACHE_SIZE - 1);
	struct key_cache_ent *c = &d->keys[h];
	if (c->len == l && memcmp(c->key, k, l) == 0)
		return &c->info;
	char nk[KEY_MAX];
	size_t nl = evj_normalise(kt->p, l, nk, sizeof nk);
	if (!nl || nl >= KEY_CACHE_LEN)
		return NULL;
	c->len = (uint8_t)l;
	memcpy(c->key, k, l);
	memcpy(c->info.norm, nk, nl + 1);
	c->info.norm_len = (uint8_t)nl;
	c->info.field = field_lookup(nk, nl);
	c->info.kind = c->info.field == F_NONE ? kind_lookup(nk, nl) : EVENT_UNKNOWN;
	c->info.event_type = nl == 9 && memcmp(nk, "eventtype", 9) == 0;
	c->info.type = nl == 4 && memcmp(nk, "type", 4) == 0;
	return &c->info;
}

static int member(struct dec *d, const char *prefix, size_t prefix_len, size_t ki, int depth);

/* Flattens the members of the object token at oi under a normalised prefix. */
static int flatten(struct dec *d, const char *prefix, size_t prefix_len, size_t oi, int depth)
{
	const struct evj_tok *t = d->toks.v;
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
static int get_cause(struct dec *d, const char *key, size_t key_len, const struct evj_tok *v, const char *nk,
		     size_t nl, bool is_type)
{
	struct event *ev = d->ev;
	const char *rest;
	size_t rest_len;
	size_t depth = inner_failure_depth(nk, nl, &rest, &rest_len);
	const char *s = NULL;
	if (get_str(d, key, key_len, v, &s) < 0)
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

/* One key (token ki) and its value (ki + 1). */
static int member(struct dec *d, const char *prefix, size_t prefix_len, size_t ki, int depth)
{
	const struct evj_tok *kt = &d->toks.v[ki];
	const struct evj_tok *v = &d->toks.v[ki + 1];
	struct event *ev = d->ev;
	const char *key;
	size_t key_len;
	char keybuf[KEY_MAX];
	char nkbuf[KEY_MAX * 2];
	const char *nk = nkbuf;
	size_t nl;
	enum field f;
	const struct key_info *inf = prefix_len ? NULL : key_info_get(d, kt);
	if (inf) {
		/* Unescaped, so the key text is the input's and stays put. */
		key = kt->p;
		key_len = kt->len;
		f = inf->field;
		nk = inf->norm;
		nl = inf->norm_len;
	} else {
		key = evj_str(kt, &d->scratch, &d->scratch_cap, &key_len);
		if (!key)
			return oom(d);
		if (key_len >= sizeof keybuf)
			return count_unknown_key(d, key, key_len);
		/* The scratch is reused for values: keep the key. */
		memcpy(keybuf, key, key_len);
		keybuf[key_len] = '\0';
		key = keybuf;
		memcpy(nkbuf, prefix, prefix_len);
		nl = evj_normalise(key, key_len, nkbuf + prefix_len, sizeof nkbuf - prefix_len);
		if (!nl && key_len)
			return count_unknown_key(d, key, key_len);
		nl += prefix_len;
		f = field_lookup(nk, nl);
	}
	switch (f) {
	case F_IGNORED:
		if (v->type != EVJ_OBJECT || v->opaque)
			return 0;
		if (depth >= FLATTEN_DEPTH) {
			/* An inner failure too deep to read: the innermost cause
			 * shown is not the innermost one, so say so. */
			return has_suffix(nk, nl, "innerfailure") ? count_unknown_key(d, key, key_len) : 0;
		}
		/* A group we skip may still hold members we know
		 * (failureDetails.errorType): look inside. */
		return flatten(d, nk, nl, ki + 1, depth + 1);
	case F_NONE:
		if (v->type == EVJ_OBJECT && !v->opaque && depth < FLATTEN_DEPTH) {
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
	case F_TYPE: /* handled when the kind was found */
		return 0;
	case F_EVENT_ID:
		return get_int(d, key, key_len, v, &ev->event_id, &ev->has_event_id);
	case F_TIMESTAMP:
		return get_time(d, key, key_len, v, &ev->timestamp);
	case F_NAME:
		return get_str(d, key, key_len, v, &ev->name);
	case F_TSID:
		return get_int(d, key, key_len, v, &ev->task_scheduled_id, &ev->has_task_scheduled_id);
	case F_TEXID:
		return get_str(d, key, key_len, v, &ev->task_execution_id);
	case F_TIMER_ID:
		return get_int(d, key, key_len, v, &ev->timer_id, &ev->has_timer_id);
	case F_FIRE_AT:
		return get_time(d, key, key_len, v, &ev->fire_at);
	case F_ORIGIN_ACTIVITY:
	case F_ORIGIN_CHILD:
	case F_ORIGIN_EXTERNAL:
		if (v->type == EVJ_NULL)
			return 0;
		set_origin(d, f == F_ORIGIN_ACTIVITY ? ORIGIN_ACTIVITY_RETRY
			      : f == F_ORIGIN_CHILD  ? ORIGIN_CHILD_RETRY
						     : ORIGIN_EXTERNAL_EVENT);
		if (v->type == EVJ_OBJECT && !v->opaque && depth < FLATTEN_DEPTH)
			return flatten(d, nk, nl, ki + 1, depth + 1);
		return get_str(d, key, key_len, v, &ev->origin_id);
	case F_ORIGIN_CREATE:
		if (v->type != EVJ_NULL && v->type != EVJ_FALSE)
			set_origin(d, ORIGIN_CREATE_TIMER);
		return 0;
	case F_INSTANCE_ID:
		return get_str(d, key, key_len, v, &ev->instance_id);
	case F_EXECUTION_ID:
		return get_str(d, key, key_len, v, &d->raw_execution_id);
	case F_RETRY_PARENT:
		return get_str(d, key, key_len, v, &ev->retry_parent_instance_id);
	case F_RERUN_PARENT:
		return get_str(d, key, key_len, v, &ev->rerun_parent_instance_id);
	case F_WF_STATUS:
		return get_str(d, key, key_len, v, &ev->workflow_status);
	case F_ERR_MSG:
		return get_str(d, key, key_len, v, &ev->error_message);
	case F_ERR_TYPE:
		return get_str(d, key, key_len, v, &ev->error_type);
	case F_CAUSE_MSG:
	case F_CAUSE_TYPE:
		return get_cause(d, key, key_len, v, nk, nl, f == F_CAUSE_TYPE);
	case F_NON_RETRIABLE:
		return get_bool(d, key, key_len, v, &ev->non_retriable, &ev->has_non_retriable);
	case F_INPUT:
		return get_payload(d, v, &ev->input);
	case F_OUTPUT:
		return get_payload(d, v, &ev->output);
	case F_CUSTOM_STATUS:
		return get_payload(d, v, &ev->custom_status);
	case F_ATTRS:
		if (v->type == EVJ_NULL)
			return 0;
		if (v->type != EVJ_STRING)
			return bad_type(d, key, key_len, v, "a string");
		break;
	case F_APP_ID:
		return get_str(d, key, key_len, v, &d->app_id);
	case F_STATUS:
		return get_str(d, key, key_len, v, &d->status);
	}
	return 0;
}

/* `dapr workflow history` attrs: "k=v;k=v" (dapr/cli pkg/workflow/history.go,
 * addAttr; CLI 1.16 to 1.18). Free-text values (input, output, errorMsg,
 * ...) may hold ';' and run to the next ";<known key>=" or the end, so every
 * key the CLI writes is listed. */
static const char *const attr_keys[] = {
	"scheduledId",    "errorType",  "errorMsg",     "input",       "output",         "result",      "fireAt",
	"origin",         "taskExecId", "timerId",      "instanceId",  "name",           "eventName",   "reason",
	"customStatus",   "status",     "nonRetriable", "failureType", "failureMessage", "description", "payload",
	"targetInstance", "timerName",  "tags",         "versionName", "versionPatches",
};

static bool key_is(const char *k, size_t l, const char *want)
{
	return l == strlen(want) && memcmp(k, want, l) == 0;
}

static bool attr_free_text(const char *k, size_t l)
{
	static const char *const free_text[] = {
		"input",        "output",         "result",      "errorMsg", "reason",
		"customStatus", "failureMessage", "description", "payload",
	};
	for (size_t i = 0; i < sizeof free_text / sizeof free_text[0]; i++) {
		if (key_is(k, l, free_text[i]))
			return true;
	}
	return false;
}

/* The CLI cuts input=/output=/payload= at 120 runes (an ExecutionCompleted
 * output at 160) and appends "…" (its trim()): exactly limit + 1 runes
 * ending in U+2026 is a cut value; a shorter one ending in "…" is whole. */
static bool cli_truncated(const char *v, size_t len, size_t limit)
{
	static const char ellipsis[] = "\xe2\x80\xa6";
	if (len < 3 || memcmp(v + len - 3, ellipsis, 3) != 0)
		return false;
	size_t runes = 0;
	for (size_t i = 0; i < len; i++)
		runes += ((unsigned char)v[i] & 0xC0u) != 0x80u;
	return runes == limit + 1;
}

static int cli_payload(struct dec *d, const struct evj_tok *t, struct payload *out)
{
	if (get_payload(d, t, out) < 0)
		return -1;
	size_t limit = d->ev->kind == EVENT_EXECUTION_COMPLETED ? 160 : 120;
	out->truncated = out->state == PAYLOAD_PRESENT && cli_truncated(t->p, t->len, limit);
	return 0;
}

static const char *next_known_key(const char *p, const char *end)
{
	for (const char *q = p; q < end; q++) {
		if (*q != ';')
			continue;
		for (size_t i = 0; i < sizeof attr_keys / sizeof attr_keys[0]; i++) {
			size_t l = strlen(attr_keys[i]);
			if ((size_t)(end - q - 1) > l && memcmp(q + 1, attr_keys[i], l) == 0 && q[1 + l] == '=')
				return q;
		}
	}
	return end;
}

static int attr_value(struct dec *d, const char *k, size_t kl, const char *v, size_t vl)
{
	struct event *ev = d->ev;
	struct evj_tok t = {.type = EVJ_STRING, .p = v, .len = vl, .off = d->off};
	if (kl == 11 && memcmp(k, "scheduledId", 11) == 0)
		return get_int(d, k, kl, &t, &ev->task_scheduled_id, &ev->has_task_scheduled_id);
	if (kl == 7 && memcmp(k, "timerId", 7) == 0)
		return get_int(d, k, kl, &t, &ev->timer_id, &ev->has_timer_id);
	if (kl == 9 && memcmp(k, "errorType", 9) == 0)
		return get_str(d, k, kl, &t, &ev->error_type);
	if (kl == 8 && memcmp(k, "errorMsg", 8) == 0)
		return get_str(d, k, kl, &t, &ev->error_message);
	if (kl == 6 && memcmp(k, "fireAt", 6) == 0)
		return get_str(d, k, kl, &t, &ev->fire_at);
	if (kl == 6 && memcmp(k, "origin", 6) == 0) {
		set_origin(d, (enum timer_origin)origin_kind_from_name(v, vl));
		return 0;
	}
	if (kl == 10 && memcmp(k, "taskExecId", 10) == 0)
		return get_str(d, k, kl, &t, &d->attrs_task_exec_id);
	/* A timer's childWorkflowRetry origin is the only row that prints
	 * one: settled once the origin kind is known. */
	if (kl == 10 && memcmp(k, "instanceId", 10) == 0)
		return get_str(d, k, kl, &t, &d->attrs_instance_id);
	/* input= on ExecutionStarted / TaskScheduled / child creations,
	 * payload= on EventSent / EventRaised. */
	if ((kl == 5 && memcmp(k, "input", 5) == 0) || key_is(k, kl, "payload"))
		return cli_payload(d, &t, &ev->input);
	if ((kl == 6 && memcmp(k, "output", 6) == 0) || (kl == 6 && memcmp(k, "result", 6) == 0))
		return cli_payload(d, &t, &ev->output);
	if (kl == 12 && memcmp(k, "customStatus", 12) == 0)
		return get_payload(d, &t, &ev->custom_status);
	if (kl == 4 && memcmp(k, "name", 4) == 0)
		return ev->name ? 0 : get_str(d, k, kl, &t, &ev->name);
	if (key_is(k, kl, "nonRetriable"))
		return get_bool(d, k, kl, &t, &ev->non_retriable, &ev->has_non_retriable);
	/* ExecutionCompleted's failure. */
	if (key_is(k, kl, "failureType"))
		return ev->error_type ? 0 : get_str(d, k, kl, &t, &ev->error_type);
	if (key_is(k, kl, "failureMessage"))
		return ev->error_message ? 0 : get_str(d, k, kl, &t, &ev->error_message);
	/* Written by the CLI, not modelled (timerName repeats the row's name). */
	if ((kl == 9 && memcmp(k, "eventName", 9) == 0) || (kl == 6 && memcmp(k, "reason", 6) == 0) ||
	    (kl == 6 && memcmp(k, "status", 6) == 0) || key_is(k, kl, "timerName") ||
	    key_is(k, kl, "description") || key_is(k, kl, "targetInstance") || key_is(k, kl, "tags") ||
	    key_is(k, kl, "versionName") || key_is(k, kl, "versionPatches"))
		return 0;
	char name[KEY_MAX];
	int n = snprintf(name, sizeof name, "attrs.%.*s", (int)(kl < 64 ? kl : 64), k);
	if (event_log_count_unknown_key(d->log, name, (size_t)n < sizeof name ? (size_t)n : 0, 1) < 0)
		return oom(d);
	return 0;
}

static int parse_attrs(struct dec *d, const struct evj_tok *v)
{
	size_t len;
	const char *s = evj_str(v, &d->scratch, &d->scratch_cap, &len);
	if (!s)
		return oom(d);
	/* Own copy: the field setters reuse the scratch. */
	if (d->attrs_cap < len + 1) {
		char *n = realloc(d->attrs, len + 1);
		if (!n)
			return oom(d);
		d->attrs = n;
		d->attrs_cap = len + 1;
	}
	memcpy(d->attrs, s, len);
	d->attrs[len] = '\0';
	const char *p = d->attrs, *end = d->attrs + len;
	while (p < end) {
		const char *eq = memchr(p, '=', (size_t)(end - p));
		const char *semi = memchr(p, ';', (size_t)(end - p));
		if (!eq || (semi && semi < eq)) {
			/* A fragment without '=': keep count of it, move on. */
			if (event_log_count_unknown_key(d->log, "attrs", 5, 1) < 0)
				return oom(d);
			if (!semi)
				break;
			p = semi + 1;
			continue;
		}
		const char *k = p;
		size_t kl = (size_t)(eq - p);
		const char *val = eq + 1;
		const char *vend = attr_free_text(k, kl) ? next_known_key(val, end) : (semi ? semi : end);
		if (attr_value(d, k, kl, val, (size_t)(vend - val)) < 0)
			return -1;
		p = vend < end ? vend + 1 : end;
	}
	return 0;
}

/* `dapr workflow history` details: "k=v,k=v" (deriveDetails). What the
 * attrs do not carry: "eventId=N" on TaskCompleted and, from CLI 1.17, on
 * child completions (the scheduled id), "rerunParent=X", and in CLI 1.18 a
 * timer's "origin=kind(id)" (always last, so it takes the rest). Other
 * details are a human summary. */
static int parse_details(struct dec *d, const struct evj_tok *v)
{
	struct event *ev = d->ev;
	size_t len;
	const char *s = evj_str(v, &d->scratch, &d->scratch_cap, &len);
	if (!s)
		return oom(d);
	const char *p = s, *end = s + len;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq || (comma && comma < eq)) {
			p = comma ? comma + 1 : end;
			continue;
		}
		const char *k = p;
		size_t kl = (size_t)(eq - p);
		const char *val = eq + 1;
		const char *vend = comma ? comma : end;
		if (key_is(k, kl, "origin")) {
			/* kind or kind(id), to the end: an id may hold a comma. */
			const char *par = memchr(val, '(', (size_t)(end - val));
			const char *kend = par ? par : end;
			if (ev->origin == ORIGIN_NONE)
				set_origin(d, (enum timer_origin)origin_kind_from_name(val, (size_t)(kend - val)));
			if (par && end[-1] == ')' && end - 1 > par + 1 && !ev->origin_id &&
			    !(ev->origin_id = event_pool_intern(d->pool, par + 1, (size_t)(end - 1 - par - 1))))
				return oom(d);
			break;
		}
		struct evj_tok t = {.type = EVJ_STRING, .p = val, .len = (size_t)(vend - val), .off = d->off};
		if (key_is(k, kl, "eventId") && !ev->has_task_scheduled_id &&
		    (ev->kind == EVENT_TASK_COMPLETED || ev->kind == EVENT_CHILD_COMPLETED)) {
			if (get_int(d, k, kl, &t, &ev->task_scheduled_id, &ev->has_task_scheduled_id) < 0)
				return -1;
		} else if (key_is(k, kl, "rerunParent") && !ev->rerun_parent_instance_id) {
			if (get_str(d, k, kl, &t, &ev->rerun_parent_instance_id) < 0)
				return -1;
		}
		p = vend < end ? vend + 1 : end;
	}
	return 0;
}

/* What a `dapr workflow history` row leaves implicit (history.go):
 * - eventId is printed only when above 0, except on TaskScheduled and
 *   TimerCreated: an action row without one is action 0 (a child creation
 *   or a completion first in its generation), any other row is not an
 *   action (-1);
 * - child failures (every version) and child completions before CLI 1.17
 *   name no scheduled id: -1, for the analysis to pair by order;
 * - input=/output=/payload= are left out when the payload is nil, JSON null
 *   or "" (trim gives "" and addAttr drops empty values), so on the rows
 *   that print one, a missing payload is a null one, not a withheld one.
 *   SubOrchCreated/SubOrchCompleted rows printed no payload at all in CLI
 *   1.16, so there a missing one stays absent (unknown). */
static void cli_implicit(struct dec *d)
{
	struct event *ev = d->ev;
	bool action = ev->kind == EVENT_TASK_SCHEDULED || ev->kind == EVENT_TIMER_CREATED ||
		      ev->kind == EVENT_CHILD_CREATED || ev->kind == EVENT_EVENT_SENT ||
		      ev->kind == EVENT_EXECUTION_COMPLETED;
	if (!ev->has_event_id)
		ev->event_id = action ? 0 : -1;
	if ((ev->kind == EVENT_CHILD_COMPLETED || ev->kind == EVENT_CHILD_FAILED) && !ev->has_task_scheduled_id)
		ev->task_scheduled_id = -1;
	bool suborch = ev->kind_name && strncmp(ev->kind_name, "SubOrch", 7) == 0;
	switch (ev->kind) {
	case EVENT_EXECUTION_STARTED:
	case EVENT_TASK_SCHEDULED:
	case EVENT_EVENT_SENT:
	case EVENT_EVENT_RAISED:
	case EVENT_CHILD_CREATED:
		if (ev->input.state == PAYLOAD_ABSENT && !suborch)
			ev->input.state = PAYLOAD_NULL;
		break;
	case EVENT_TASK_COMPLETED:
	case EVENT_CHILD_COMPLETED:
	case EVENT_EXECUTION_COMPLETED:
		if (ev->output.state == PAYLOAD_ABSENT && !suborch)
			ev->output.state = PAYLOAD_NULL;
		break;
	default:
		break;
	}
	if (d->attrs_instance_id) {
		if (ev->origin == ORIGIN_CHILD_RETRY && !ev->origin_id)
			ev->origin_id = d->attrs_instance_id;
		else if (ev->origin != ORIGIN_CHILD_RETRY && !ev->instance_id)
			ev->instance_id = d->attrs_instance_id;
	}
}

/* Does the object at token 0 look like a history event? Sets the dialect. */
static bool looks_like_event(const struct evj_toks *tk, char **scratch, size_t *cap, enum event_dialect *dialect)
{
	const struct evj_tok *t = tk->v;
	if (!tk->n || t[0].type != EVJ_OBJECT || t[0].opaque)
		return false;
	for (size_t ki = 1; ki < t[0].end; ki = t[ki + 1].end) {
		char nk[KEY_MAX];
		size_t kl;
		const char *k = evj_str(&t[ki], scratch, cap, &kl);
		if (!k)
			return false;
		size_t l = evj_normalise(k, kl, nk, sizeof nk);
		const struct evj_tok *v = &t[ki + 1];
		if (l == 9 && memcmp(nk, "eventtype", 9) == 0 && v->type == EVJ_STRING) {
			*dialect = DIALECT_CATALYST;
			return true;
		}
		if (v->type == EVJ_OBJECT && kind_lookup(nk, l) != EVENT_UNKNOWN) {
			*dialect = DIALECT_PROTOJSON;
			return true;
		}
		if (l == 4 && memcmp(nk, "type", 4) == 0 && v->type == EVJ_STRING) {
			size_t vl;
			const char *s = evj_str(v, scratch, cap, &vl);
			if (s && kind_lookup(s, vl) != EVENT_UNKNOWN) {
				*dialect = DIALECT_DAPR_CLI;
				return true;
			}
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
		d->kinds[h].kind = kind_lookup(name, strlen(name));
	}
	return d->kinds[h].kind;
}

/* Decodes the event whose tokens are in d->toks and appends it. */
static int decode_event(struct dec *d)
{
	const struct evj_tok *t = d->toks.v;
	if (t[0].type != EVJ_OBJECT || t[0].opaque) {
		if (d->from_json)
			return err_set(d->e, ERR_INPUT,
				       "event %zu is %s, not an object: the event list holds objects", d->index,
				       type_name(&t[0]));
		return err_set(d->e, ERR_INPUT,
			       "event %zu at byte %zu is %s, not an object: the event list holds objects",
			       d->index, d->off, type_name(&t[0]));
	}
	struct event *ev = &d->evbuf;
	memset(ev, 0, sizeof *ev);
	d->ev = ev;
	d->raw_execution_id = NULL;
	d->attrs_task_exec_id = NULL;
	d->attrs_instance_id = NULL;
	d->status = NULL;
	d->app_id = NULL;
	d->path[0] = '\0';
	ev->source_offset = d->from_json ? 0 : d->off;

	/* Pass 1: the kind, from an event-type key or the protojson oneof. */
	size_t type_ki = 0, oneof_ki = 0, unknown_obj_ki = 0, unknown_objs = 0;
	enum event_dialect dialect = DIALECT_UNKNOWN;
	for (size_t ki = 1; ki < t[0].end; ki = t[ki + 1].end) {
		const struct evj_tok *v = &t[ki + 1];
		const struct key_info *inf = key_info_get(d, &t[ki]);
		struct key_info tmp;
		if (!inf) {
			size_t kl;
			const char *k = evj_str(&t[ki], &d->scratch, &d->scratch_cap, &kl);
			if (!k)
				goto fail_oom;
			/* Longer than the cache takes (subOrchestrationInstanceCompleted). */
			char nk[KEY_MAX];
			size_t l = evj_normalise(k, kl, nk, sizeof nk);
			tmp.field = l ? field_lookup(nk, l) : F_NONE;
			tmp.kind = tmp.field == F_NONE && l ? kind_lookup(nk, l) : EVENT_UNKNOWN;
			tmp.event_type = l == 9 && memcmp(nk, "eventtype", 9) == 0;
			tmp.type = l == 4 && memcmp(nk, "type", 4) == 0;
			inf = &tmp;
		}
		if (inf->event_type) {
			type_ki = ki;
			dialect = DIALECT_CATALYST;
		} else if (inf->type && !type_ki) {
			type_ki = ki;
			dialect = DIALECT_DAPR_CLI;
		} else if (v->type == EVJ_OBJECT && inf->field == F_NONE) {
			if (!oneof_ki && inf->kind != EVENT_UNKNOWN) {
				oneof_ki = ki;
			} else {
				unknown_obj_ki = ki;
				unknown_objs++;
			}
		}
	}
	if (type_ki) {
		const struct evj_tok *v = &t[type_ki + 1];
		/* The key only names the field in an error message. */
		const char *key = t[type_ki].escaped ? "event_type" : t[type_ki].p;
		size_t kl = t[type_ki].escaped ? 10 : t[type_ki].len;
		if (get_str(d, key, kl, v, &ev->kind_name) < 0)
			goto fail;
		ev->kind = ev->kind_name ? kind_of_type(d, ev->kind_name) : EVENT_UNKNOWN;
	} else if (oneof_ki || unknown_objs == 1) {
		size_t ki = oneof_ki ? oneof_ki : unknown_obj_ki;
		size_t kl;
		const char *k = evj_str(&t[ki], &d->scratch, &d->scratch_cap, &kl);
		if (!k || !(ev->kind_name = event_pool_intern(d->pool, k, kl)))
			goto fail_oom;
		ev->kind = kind_lookup(k, kl);
		dialect = DIALECT_PROTOJSON;
		oneof_ki = ki;
	}
	if (!ev->kind_name && !(ev->kind_name = event_pool_intern(d->pool, "(no event type)", 15)))
		goto fail_oom;
	d->ev_dialect = dialect;

	/* Pass 2: every other member, flattened. */
	for (size_t ki = 1; ki < t[0].end; ki = t[ki + 1].end) {
		if (ki == type_ki)
			continue;
		if (ki == oneof_ki) {
			if (t[ki + 1].opaque)
				continue;
			if (flatten(d, "", 0, ki + 1, 1) < 0)
				goto fail;
			continue;
		}
		if (t[ki + 1].type == EVJ_STRING && dialect == DIALECT_DAPR_CLI) {
			size_t kl;
			const char *k = evj_str(&t[ki], &d->scratch, &d->scratch_cap, &kl);
			if (k && kl == 5 && memcmp(k, "attrs", 5) == 0) {
				if (parse_attrs(d, &t[ki + 1]) < 0)
					goto fail;
				continue;
			}
			if (k && kl == 7 && memcmp(k, "details", 7) == 0) {
				if (parse_details(d, &t[ki + 1]) < 0)
					goto fail;
				continue;
			}
		}
		if (member(d, "", 0, ki, 0) < 0)
			goto fail;
	}

	/* What each dialect leaves implicit. */
	if (dialect == DIALECT_DAPR_CLI)
		cli_implicit(d);
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
	if (d->app_id && !d->run[RUN_APP].set) {
		d->run[RUN_APP].set = true;
		d->run[RUN_APP].depth = 1 << 20;
		d->run[RUN_APP].tok =
			(struct evj_tok){.type = EVJ_STRING, .p = d->app_id, .len = strlen(d->app_id)};
	}
	if (ev->kind == EVENT_UNKNOWN &&
	    event_log_count_unknown_kind(d->log, ev->kind_name, strlen(ev->kind_name), 1) < 0)
		goto fail_oom;
	if (event_log_store(d->log, ev) < 0)
		goto fail_oom;
	if (d->dialect == DIALECT_UNKNOWN)
		d->dialect = dialect;
	return 0;
fail_oom:
	oom(d);
fail:
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Run fields in the envelope. */

static void run_field(struct dec *d, const char *key, size_t key_len, const struct evj_tok *v, int depth)
{
	if (v->type != EVJ_STRING || key_len >= KEY_MAX)
		return;
	char nk[KEY_MAX];
	size_t l = evj_normalise(key, key_len, nk, sizeof nk);
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
	const char *s = evj_str(&c->tok, &d->scratch, &d->scratch_cap, &len);
	return s ? event_pool_intern(d->pool, s, len) : NULL;
}

static void run_finish(struct dec *d)
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

static bool key_names_a_list(const char *k, size_t kl)
{
	char nk[KEY_MAX];
	size_t l = evj_normalise(k, kl, nk, sizeof nk);
	return l && (strstr(nk, "event") || strstr(nk, "history"));
}

/* ------------------------------------------------------------------------ */
/* From bytes. */

struct walk {
	struct evj_scan s;
	struct dec d;
	struct evj_keys keys; /* of the envelope objects being walked */
	bool found;           /* an event list was read */
	bool empty_list;      /* an empty array under a key like "events" */
	bool release;         /* the input is a private file mapping: drop what was read */
	size_t released;      /* bytes before this were given back */
	atomic_bool *cancel;
};

static int walk_value(struct walk *w, int depth, const char *key, size_t key_len);

/* Gives back the pages of a mapped file that the parse has passed: the
 * mapping is private and read-only, so they are simply read again from
 * the page cache if the run fields point back into them. Without this a
 * 60 MB file stays resident next to the ~90 MB model. */
static void release_behind(struct walk *w)
{
	size_t page = 4096;
	size_t upto = w->s.pos > RELEASE_MARGIN ? (w->s.pos - RELEASE_MARGIN) & ~(page - 1) : 0;
	size_t from = w->released & ~(page - 1);
	if (upto <= from + RELEASE_STEP)
		return;
	uintptr_t base = (uintptr_t)w->s.buf;
	uintptr_t lo = (base + from + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t hi = (base + upto) & ~(uintptr_t)(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
	w->released = upto;
}

enum run_stop {
	STOP_END,   /* the closing ']' */
	STOP_SPLIT, /* the next element begins exactly at the split point */
	STOP_PAST,  /* the split point was inside an element */
};

static int next_element(struct walk *w)
{
	struct dec *d = &w->d;
	d->index++;
	d->off = w->s.pos;
	if (evj_tokenise(&w->s, &d->toks, d->e) < 0) {
		if (d->e && !strstr(d->e->msg, "byte"))
			err_prefix(d->e, "event %zu at byte %zu", d->index, d->off);
		return -1;
	}
	return 0;
}

/* Decodes events from the one already tokenised (at d.off) up to the
 * closing ']', or, with a split point, until the next element would begin
 * at or after it. */
static int read_run(struct walk *w, size_t split, enum run_stop *stop)
{
	struct dec *d = &w->d;
	struct evj_scan *s = &w->s;
	for (;;) {
		if (decode_event(d) < 0)
			return -1;
		evj_skip_ws(s);
		if (s->pos >= s->len)
			return err_set(
				d->e, ERR_INPUT,
				"not JSON at byte %zu: unexpected end of input after event %zu (truncated file?)",
				s->len, d->index);
		if (s->buf[s->pos] == ']') {
			s->pos++;
			*stop = STOP_END;
			return 0;
		}
		if (s->buf[s->pos] != ',')
			return err_set(d->e, ERR_INPUT,
				       "not JSON at byte %zu: expected ',' or ']' after event %zu", s->pos,
				       d->index);
		s->pos++;
		evj_skip_ws(s);
		if (split && s->pos >= split) {
			*stop = s->pos == split ? STOP_SPLIT : STOP_PAST;
			return 0;
		}
		if (w->cancel && atomic_load_explicit(w->cancel, memory_order_relaxed))
			return err_set(d->e, ERR_INTERNAL, "cancelled");
		if (w->release)
			release_behind(w);
		if (next_element(w) < 0)
			return -1;
	}
}

/* The second half of a large event list, parsed by another thread. */
struct half {
	struct walk w;
	struct err err;
	size_t start;
	int rc;
	pthread_t thread;
	atomic_bool cancel;
};

static void *half_main(void *arg)
{
	struct half *h = arg;
	struct walk *w = &h->w;
	enum event_dialect dia;
	enum run_stop stop;
	h->rc = -1;
	w->s.pos = h->start;
	w->d.off = h->start;
	w->d.index = 0;
	if (evj_tokenise(&w->s, &w->d.toks, &h->err) < 0 ||
	    !looks_like_event(&w->d.toks, &w->d.scratch, &w->d.scratch_cap, &dia))
		return NULL;
	h->rc = read_run(w, 0, &stop);
	return NULL;
}

static struct half *half_start(const struct walk *main, size_t start)
{
	struct half *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->start = start;
	h->w.s = main->s;
	h->w.release = main->release;
	h->w.released = start;
	h->w.d.e = &h->err;
	atomic_init(&h->cancel, false);
	h->w.cancel = &h->cancel;
	h->w.d.log = event_log_new();
	if (!h->w.d.log)
		goto fail;
	h->w.d.pool = event_log_pool(h->w.d.log);
	if (pthread_create(&h->thread, NULL, half_main, h) != 0)
		goto fail;
	return h;
fail:
	event_log_free(h->w.d.log);
	free(h);
	return NULL;
}

static void dec_finish(struct dec *d);

/* Joins; returns the finished half, or NULL (and frees it) when it failed
 * or was cancelled. */
static struct half *half_join(struct half *h, bool cancel)
{
	if (cancel)
		atomic_store(&h->cancel, true);
	pthread_join(h->thread, NULL);
	dec_finish(&h->w.d);
	if (cancel || h->rc < 0) {
		event_log_free(h->w.d.log);
		free(h);
		return NULL;
	}
	return h;
}

/* A split point near the middle of the rest of the list: a '{' that
 * follows "}," — a guess, since it might lie inside a string; the guess is
 * accepted only if the first half's own parse arrives exactly there. */
static size_t find_split(const char *buf, size_t from, size_t len)
{
	size_t mid = from + (len - from) / 2;
	size_t limit = mid + SPLIT_SEARCH < len ? mid + SPLIT_SEARCH : len;
	for (size_t p = mid; p < limit; p++) {
		if (buf[p] != '}')
			continue;
		size_t q = p + 1;
		while (q < limit && (buf[q] == ' ' || buf[q] == '\n' || buf[q] == '\r' || buf[q] == '\t'))
			q++;
		if (q >= limit || buf[q] != ',')
			continue;
		q++;
		while (q < limit && (buf[q] == ' ' || buf[q] == '\n' || buf[q] == '\r' || buf[q] == '\t'))
			q++;
		if (q < limit && buf[q] == '{')
			return q;
	}
	return 0;
}

static bool use_threads(size_t bytes)
{
	if (bytes < SPLIT_MIN)
		return false;
	const char *env = getenv("CATALYST_AUDIT_PARSE_THREADS");
	if (env && strcmp(env, "1") == 0)
		return false;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* d.toks holds the first element, which starts at w->d.off. */
static int read_events(struct walk *w)
{
	enum run_stop stop;
	struct half *h = NULL;
	size_t split = 0;
	if (use_threads(w->s.len - w->s.pos) && (split = find_split(w->s.buf, w->s.pos, w->s.len)))
		h = half_start(w, split);
	if (!h)
		return read_run(w, 0, &stop);
	if (read_run(w, split, &stop) < 0) {
		half_join(h, true);
		return -1;
	}
	if (stop == STOP_END) {
		half_join(h, true);
		return 0;
	}
	if (stop == STOP_SPLIT && (h = half_join(h, false))) {
		size_t end = h->w.s.pos;
		struct event_log *second = h->w.d.log;
		free(h);
		if (event_log_take(w->d.log, second) < 0)
			return err_set(w->d.e, ERR_INTERNAL, "out of memory merging events");
		w->s.pos = end;
		return 0;
	}
	/* The guess was wrong, or the second half failed: carry on here, so
	 * any error names the right event. */
	if (h)
		half_join(h, true);
	if (next_element(w) < 0)
		return -1;
	return read_run(w, 0, &stop);
}

static int walk_array(struct walk *w, int depth, const char *key, size_t key_len)
{
	struct evj_scan *s = &w->s;
	size_t open = s->pos;
	s->pos++;
	evj_skip_ws(s);
	if (s->pos < s->len && s->buf[s->pos] == ']') {
		s->pos++;
		if ((depth == 0 && !key) || (key && key_names_a_list(key, key_len)))
			w->empty_list = true;
		return 0;
	}
	if (w->found) {
		s->pos = open;
		return evj_skip_value(s, w->d.e);
	}
	if (s->pos < s->len && s->buf[s->pos] == '{') {
		size_t first = s->pos;
		struct err tmp;
		err_clear(&tmp);
		int rc = evj_tokenise(s, &w->d.toks, &tmp);
		if (rc == EVJ_ERROR) {
			*w->d.e = tmp;
			return -1;
		}
		enum event_dialect dia;
		if (rc == 0 && looks_like_event(&w->d.toks, &w->d.scratch, &w->d.scratch_cap, &dia)) {
			w->found = true;
			w->d.index = 0;
			w->d.off = first;
			return read_events(w);
		}
		s->pos = first;
	}
	/* Not an event list: look inside its elements. */
	for (;;) {
		if (walk_value(w, depth + 1, NULL, 0) < 0)
			return -1;
		evj_skip_ws(s);
		if (s->pos >= s->len)
			return err_set(w->d.e, ERR_INPUT,
				       "not JSON at byte %zu: unexpected end of input (truncated file?)", s->len);
		if (s->buf[s->pos] == ']') {
			s->pos++;
			return 0;
		}
		if (s->buf[s->pos] != ',')
			return err_set(w->d.e, ERR_INPUT, "not JSON at byte %zu: expected ',' or ']'", s->pos);
		s->pos++;
	}
}

static int walk_object(struct walk *w, int depth)
{
	struct evj_scan *s = &w->s;
	s->pos++;
	evj_skip_ws(s);
	if (s->pos < s->len && s->buf[s->pos] == '}') {
		s->pos++;
		return 0;
	}
	size_t kfrom = w->keys.n;
	for (;;) {
		evj_skip_ws(s);
		if (s->pos >= s->len || s->buf[s->pos] != '"') {
			if (s->pos >= s->len)
				return err_set(w->d.e, ERR_INPUT,
					       "not JSON at byte %zu: unexpected end of input (truncated file?)",
					       s->len);
			return err_set(w->d.e, ERR_INPUT, "not JSON at byte %zu: expected a string key", s->pos);
		}
		const char *k;
		size_t kl;
		bool kesc;
		size_t koff = s->pos;
		if (evj_scan_string(s, &k, &kl, &kesc, w->d.e) < 0 ||
		    evj_keys_push(&w->keys, k, kl, kesc, koff, w->d.e) < 0)
			return -1;
		evj_skip_ws(s);
		if (s->pos >= s->len || s->buf[s->pos] != ':')
			return err_set(w->d.e, ERR_INPUT, "not JSON at byte %zu: expected ':' after a key",
				       s->pos);
		s->pos++;
		evj_skip_ws(s);
		if (s->pos < s->len && s->buf[s->pos] == '"') {
			struct evj_tok v = {.type = EVJ_STRING, .off = s->pos};
			if (evj_scan_string(s, &v.p, &v.len, &v.escaped, w->d.e) < 0)
				return -1;
			/* Keys with escapes are not run fields we know. */
			if (!kesc)
				run_field(&w->d, k, kl, &v, depth);
		} else if (walk_value(w, depth + 1, k, kl) < 0) {
			return -1;
		}
		evj_skip_ws(s);
		if (s->pos >= s->len)
			return err_set(w->d.e, ERR_INPUT,
				       "not JSON at byte %zu: unexpected end of input (truncated file?)", s->len);
		if (s->buf[s->pos] == '}') {
			s->pos++;
			return evj_keys_close(&w->keys, kfrom, w->d.e);
		}
		if (s->buf[s->pos] != ',')
			return err_set(w->d.e, ERR_INPUT, "not JSON at byte %zu: expected ',' or '}'", s->pos);
		s->pos++;
	}
}

static int walk_value(struct walk *w, int depth, const char *key, size_t key_len)
{
	struct evj_scan *s = &w->s;
	evj_skip_ws(s);
	if (s->pos >= s->len)
		return err_set(w->d.e, ERR_INPUT,
			       "not JSON at byte %zu: unexpected end of input (truncated file?)", s->len);
	char c = s->buf[s->pos];
	if ((c == '{' || c == '[') && depth >= EVJ_DEPTH_MAX)
		return err_set(w->d.e, ERR_INPUT, "not JSON at byte %zu: nested deeper than %d levels", s->pos,
			       EVJ_DEPTH_MAX);
	if (c == '{')
		return walk_object(w, depth);
	if (c == '[')
		return walk_array(w, depth, key, key_len);
	return evj_skip_value(s, w->d.e);
}

static void dec_finish(struct dec *d)
{
	evj_toks_finish(&d->toks);
	free(d->scratch);
	free(d->attrs);
}

static const char no_list_msg[] =
	"no event list found: expected an array of history events (objects with an "
	"event_type key, durabletask protojson {\"events\": [...]} or `dapr workflow history "
	"-o json` output), as the document or anywhere inside it";

static struct event_log *parse_bytes(const char *buf, size_t len, bool release, struct err *e)
{
	struct walk w = {.s = {.buf = buf, .len = len}, .release = release};
	w.d.e = e;
	w.d.log = event_log_new();
	if (!w.d.log) {
		err_set(e, ERR_INTERNAL, "out of memory");
		return NULL;
	}
	w.d.pool = event_log_pool(w.d.log);
	/* A UTF-8 byte order mark (Windows editors, PowerShell) is no JSON, but
	 * RFC 8259 section 8.1 lets a parser ignore it: skip it, and keep byte
	 * offsets the file's own. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		w.s.pos = 3;
	evj_skip_ws(&w.s);
	if (w.s.pos >= len) {
		err_set(e, ERR_INPUT, "not JSON at byte %zu: empty input", len);
		goto fail;
	}
	if (walk_value(&w, 0, NULL, 0) < 0)
		goto fail;
	evj_skip_ws(&w.s);
	if (w.s.pos < len) {
		err_set(e, ERR_INPUT, "not JSON at byte %zu: data after the end of the document", w.s.pos);
		goto fail;
	}
	if (!w.found && !w.empty_list) {
		err_set(e, ERR_INPUT, "%s (searched all %zu bytes)", no_list_msg, len);
		goto fail;
	}
	event_log_set_dialect(w.d.log, w.d.dialect);
	run_finish(&w.d);
	dec_finish(&w.d);
	evj_keys_finish(&w.keys);
	return w.d.log;
fail:
	dec_finish(&w.d);
	evj_keys_finish(&w.keys);
	event_log_free(w.d.log);
	return NULL;
}

struct event_log *event_log_parse(const char *buf, size_t len, struct err *e)
{
	return parse_bytes(buf, len, false, e);
}

struct event_log *event_log_parse_fd(int fd, struct err *e)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size <= SIZE_MAX) {
		size_t len = (size_t)st.st_size;
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			madvise(map, len, MADV_SEQUENTIAL);
			struct event_log *log = parse_bytes(map, len, true, e);
			munmap(map, len);
			return log;
		}
	}
	/* A pipe, or a file that cannot be mapped: read it whole. */
	size_t len = 0, cap = 0;
	char *data = NULL;
	struct event_log *log = NULL;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 1u << 16;
			char *n = ncap > cap ? realloc(data, ncap) : NULL;
			if (!n) {
				err_set(e, ERR_INPUT, "input too large to hold in memory (over %zu bytes)", len);
				goto out;
			}
			data = n;
			cap = ncap;
		}
		ssize_t r = read(fd, data + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err_set(e, ERR_INPUT, "reading input at byte %zu: %s", len, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	log = parse_bytes(data ? data : "", len, false, e);
out:
	free(data);
	return log;
}

/* ------------------------------------------------------------------------ */
/* From a decoded document. */

struct jwalk {
	struct dec d;
	bool found;
	bool empty_list;
};

static int jwalk_value(struct jwalk *w, const json_t *v, int depth, const char *key);

static int jwalk_array(struct jwalk *w, const json_t *a, int depth, const char *key)
{
	size_t n = json_array_size(a);
	if (n == 0) {
		if ((depth == 0 && !key) || (key && key_names_a_list(key, strlen(key))))
			w->empty_list = true;
		return 0;
	}
	if (w->found)
		return 0;
	const json_t *first = json_array_get(a, 0);
	if (json_is_object(first)) {
		struct err tmp;
		err_clear(&tmp);
		int rc = evj_tokenise_json(first, &w->d.toks, &tmp);
		enum event_dialect dia;
		if (rc == EVJ_ERROR) {
			*w->d.e = tmp;
			return -1;
		}
		if (rc == 0 && looks_like_event(&w->d.toks, &w->d.scratch, &w->d.scratch_cap, &dia)) {
			w->found = true;
			for (size_t i = 0; i < n; i++) {
				w->d.index = i;
				if (i && evj_tokenise_json(json_array_get(a, i), &w->d.toks, w->d.e) < 0) {
					err_prefix(w->d.e, "event %zu", i);
					return -1;
				}
				if (decode_event(&w->d) < 0)
					return -1;
			}
			return 0;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (jwalk_value(w, json_array_get(a, i), depth + 1, NULL) < 0)
			return -1;
	}
	return 0;
}

static int jwalk_value(struct jwalk *w, const json_t *v, int depth, const char *key)
{
	if ((json_is_object(v) || json_is_array(v)) && depth >= EVJ_DEPTH_MAX)
		return err_set(w->d.e, ERR_INPUT, "document nested deeper than %d levels", EVJ_DEPTH_MAX);
	if (json_is_array(v))
		return jwalk_array(w, v, depth, key);
	if (!json_is_object(v))
		return 0;
	const char *k;
	json_t *m;
	json_object_foreach((json_t *)v, k, m) {
		if (json_is_string(m)) {
			struct evj_tok t = {.type = EVJ_STRING,
					    .p = json_string_value(m),
					    .len = json_string_length(m),
					    .j = m};
			run_field(&w->d, k, strlen(k), &t, depth);
		} else if (jwalk_value(w, m, depth + 1, k) < 0) {
			return -1;
		}
	}
	return 0;
}

struct event_log *event_log_from_json(const json_t *doc, struct err *e)
{
	struct jwalk w = {0};
	w.d.e = e;
	w.d.from_json = true;
	if (!doc) {
		err_set(e, ERR_INPUT, "%s", no_list_msg);
		return NULL;
	}
	w.d.log = event_log_new();
	if (!w.d.log) {
		err_set(e, ERR_INTERNAL, "out of memory");
		return NULL;
	}
	w.d.pool = event_log_pool(w.d.log);
	if (jwalk_value(&w, doc, 0, NULL) < 0)
		goto fail;
	if (!w.found && !w.empty_list) {
		err_set(e, ERR_INPUT, "%s", no_list_msg);
		goto fail;
	}
	event_log_set_dialect(w.d.log, w.d.dialect);
	run_finish(&w.d);
	dec_finish(&w.d);
	return w.d.log;
fail:
	dec_finish(&w.d);
	event_log_free(w.d.log);
	return NULL;
}
