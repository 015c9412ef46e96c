/* The Catalyst tool layer's door to the server: every tools/call this
 * program makes goes through catalyst_call(), which is where the read-only
 * allow-list is enforced and where refusals and transient failures are
 * handled, once. */

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "catalyst.h"
#include "data_sharing.h"
#include "monotime.h"
#include "table_alloc.h"

struct catalyst {
	struct mcp_session *s;
	struct catalyst_options o;
	struct event_parse_options parse;
	struct catalyst_binding *bindings;
	size_t n_bindings;
};

struct catalyst *catalyst_new(struct mcp_session *s, const struct catalyst_options *o)
{
	struct catalyst *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->s = s;
	if (o)
		c->o = *o;
	if (c->o.max_attempts <= 0)
		c->o.max_attempts = 3;
	if (c->o.backoff_s <= 0)
		c->o.backoff_s = 0.2;
	if (c->o.backoff_cap_s <= 0)
		c->o.backoff_cap_s = 5;
	return c;
}

void catalyst_set_parse_options(struct catalyst *c, const struct event_parse_options *o)
{
	c->parse = *o;
}

void catalyst_free(struct catalyst *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_bindings; i++)
		catalyst_binding_finish(&c->bindings[i]);
	free(c->bindings);
	free(c);
}

int catalyst_load_tools(struct catalyst *c, struct err *e)
{
	json_t *tools = mcp_list_tools(c->s, e);
	if (!tools)
		return err_prefix(e, "tools/list");
	size_t i;
	json_t *t;
	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		if (!name || !catalyst_tool_allowed(name) || catalyst_binding_get(c, name))
			continue;
		struct catalyst_binding *nb = realloc(c->bindings, (c->n_bindings + 1) * sizeof *nb);
		if (!nb) {
			json_decref(tools);
			return err_oom(e);
		}
		c->bindings = nb;
		catalyst_binding_init(&c->bindings[c->n_bindings++], name, json_object_get(t, "inputSchema"));
	}
	json_decref(tools);
	return 0;
}

const struct catalyst_binding *catalyst_binding_get(const struct catalyst *c, const char *tool)
{
	for (size_t i = 0; i < c->n_bindings; i++)
		if (strcmp(c->bindings[i].tool, tool) == 0)
			return &c->bindings[i];
	return NULL;
}

bool catalyst_has_tool(const struct catalyst *c, const char *name)
{
	return catalyst_binding_get(c, name) != NULL;
}

/* Worth another try. Every call here is a read (the allow-list sees to
 * that), so a connection dropped mid-answer or a stream cut short may be
 * retried as safely as a 503; a 4xx other than 408/429, a sign-in problem
 * or an answer that cannot change (over the size limit, nested too deep)
 * may not. */
static bool transient(const struct err *e)
{
	if (e->detail == ERR_DETAIL_FINAL)
		return false;
	if (e->detail == ERR_DETAIL_RETRYABLE || e->detail == ERR_DETAIL_TIMEOUT ||
	    e->detail == ERR_DETAIL_SESSION_EXPIRED)
		return true;
	if (e->code != ERR_PROTOCOL || e->detail != ERR_DETAIL_NONE)
		return false;
	/* 0: no answer at all; 2xx: an answer that broke off. */
	return e->http_status < 300 || e->http_status >= 500 || e->http_status == 408 || e->http_status == 429;
}

/* Capped exponential backoff with jitter; a server's Retry-After wins (also
 * capped, so a hostile value cannot stall a scripted audit). */
static void backoff(const struct catalyst *c, int attempt, double retry_after)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	unsigned seed = (unsigned)now.tv_nsec ^ (unsigned)(uintptr_t)&now ^ (unsigned)attempt;
	double delay;
	if (retry_after >= 0) {
		delay = retry_after;
	} else {
		delay = c->o.backoff_s;
		for (int i = 1; i < attempt; i++)
			delay *= 2;
		delay *= 0.5 + 0.5 * ((double)rand_r(&seed) / RAND_MAX);
	}
	if (delay > c->o.backoff_cap_s)
		delay = c->o.backoff_cap_s;
	monotime_sleep_ms((long long)(delay * 1000));
}

/* The text of an isError result that is not a refusal. */
static void tool_error_text(const struct mcp_tool_result *r, char *out, size_t size)
{
	snprintf(out, size, "the tool reported an error");
	size_t i;
	json_t *item;
	json_array_foreach(r->content, i, item) {
		const char *text = json_string_value(json_object_get(item, "text"));
		if (text && *text) {
			snprintf(out, size, "%.*s", (int)strcspn(text, "\r\n"), text);
			return;
		}
	}
}

/* tool_failed: the call reached the tool and the tool said no, without a
 * refusal (what a project without a managed workflow store does). */
/* A tool answer's structuredContent as the server sent it, for a caller
 * that reads its big arrays from the bytes (mcp_call_tool_structured_raw). */
struct answer_raw {
	char *bytes; /* NUL-terminated, owned; NULL: none */
	size_t len;
};

/* raw (NULL, or where structuredContent's bytes go: the caller reads its
 * big arrays from them, see mcp_call_tool_structured_raw). */
static int call_tool(struct catalyst *c, const char *tool, json_t *args, json_t **doc, json_t **meta,
		     struct catalyst_refusal *ref, bool *tool_failed, struct answer_raw *raw, struct err *e)
{
	*doc = NULL;
	if (raw)
		*raw = (struct answer_raw){0};
	if (meta)
		*meta = NULL;
	if (tool_failed)
		*tool_failed = false;
	/* Rule 4, enforced here and only here: nothing else calls tools. */
	if (!catalyst_tool_allowed(tool))
		return err_set(e, ERR_INTERNAL,
			       "refusing to call %s: it is not one of the read-only tools on the "
			       "allow-list (a bug in catalyst-audit)",
			       tool ? tool : "(null)");
	bool refusal_retried = false;
	for (int attempt = 1;; attempt++) {
		struct mcp_tool_result r;
		memset(&r, 0, sizeof r);
		err_clear(e);
		if ((raw ? mcp_call_tool_structured_raw : mcp_call_tool_structured_first)(c->s, tool, args, &r,
											  e) < 0) {
			mcp_tool_result_finish(&r);
			if (transient(e) && attempt < c->o.max_attempts) {
				backoff(c, attempt, e->retry_after);
				continue;
			}
			if (transient(e) && attempt > 1)
				return err_prefix(e, "%s (after %d attempts)", tool, attempt);
			return err_prefix(e, "%s", tool);
		}
		struct catalyst_refusal rf;
		memset(&rf, 0, sizeof rf);
		if (catalyst_refusal_parse(&r, &rf) && rf.family == CATALYST_REFUSAL_OTHER) {
			/* An error object with a kind that is no refusal (NOT_FOUND,
			 * WORKFLOW_STORE_NOT_CONFIGURED, ...): the tool said no. */
			mcp_tool_result_finish(&r);
			if (ref)
				*ref = rf;
			if (tool_failed)
				*tool_failed = true;
			return err_set(e, catalyst_kind_not_found(rf.kind) ? ERR_NOT_FOUND : ERR_PROTOCOL,
				       "%s failed: %s: %s", tool, rf.kind,
				       *rf.message ? rf.message : "(no message)");
		}
		if (rf.family != CATALYST_REFUSAL_NONE) {
			mcp_tool_result_finish(&r);
			if (rf.family == CATALYST_REFUSAL_CONNECTION && rf.retryable && !refusal_retried) {
				refusal_retried = true;
				backoff(c, 1, -1);
				continue;
			}
			if (ref)
				*ref = rf;
			err_set(e, catalyst_refusal_code(&rf), "%s refused: %s refusal %s: %s%s%s%s%s", tool,
				catalyst_refusal_family_name(rf.family), rf.kind,
				*rf.message ? rf.message : "(no message)", *rf.instruction ? " — " : "",
				rf.instruction,
				refusal_retried ? " (retried once: the refusal said it was retryable)" : "", "");
			e->detail = ERR_DETAIL_REFUSAL;
			return -1;
		}
		if (r.rpc_error) {
			const char *msg = json_string_value(json_object_get(r.rpc_error, "message"));
			json_int_t code = json_integer_value(json_object_get(r.rpc_error, "code"));
			/* -32002: MCP's "resource not found", which a server may use for a run too. */
			err_set(e, code == -32002 ? ERR_NOT_FOUND : ERR_PROTOCOL, "%s: server error %lld: %s",
				tool, (long long)code, msg ? msg : "(no message)");
			mcp_tool_result_finish(&r);
			return -1;
		}
		if (r.is_error) {
			char text[512];
			tool_error_text(&r, text, sizeof text);
			err_set(e, catalyst_text_not_found(text) ? ERR_NOT_FOUND : ERR_PROTOCOL, "%s failed: %s",
				tool, text);
			mcp_tool_result_finish(&r);
			if (tool_failed)
				*tool_failed = true;
			return -1;
		}
		json_t *d = r.structured ? r.structured : r.text_json;
		if (!d) {
			mcp_tool_result_finish(&r);
			return err_set(e, ERR_PROTOCOL,
				       "%s: the answer carries neither structuredContent nor JSON text", tool);
		}
		*doc = json_incref(d);
		if (raw && r.structured_raw && d == r.structured) {
			raw->bytes = r.structured_raw;
			raw->len = r.structured_raw_len;
			r.structured_raw = NULL;
		}
		if (meta) {
			json_t *m = json_object_get(r.result, "_meta");
			*meta = m ? json_incref(m) : NULL;
		}
		mcp_tool_result_finish(&r);
		return 0;
	}
}

int catalyst_call(struct catalyst *c, const char *tool, json_t *args, json_t **doc, json_t **meta,
		  struct catalyst_refusal *ref, struct err *e)
{
	return call_tool(c, tool, args, doc, meta, ref, NULL, NULL, e);
}

static int invoke(struct catalyst *c, const char *tool, const char *const vals[CATALYST_ARG_COUNT],
		  unsigned required, unsigned *omitted, json_t **doc, json_t **meta, struct catalyst_refusal *ref,
		  bool *tool_failed, struct answer_raw *raw, struct err *e)
{
	*doc = NULL;
	if (!catalyst_tool_allowed(tool))
		return call_tool(c, tool, NULL, doc, meta, ref, tool_failed, raw, e);
	const struct catalyst_binding *b = catalyst_binding_get(c, tool);
	if (!b)
		return err_set(e, ERR_PROTOCOL, "the server offers no tool named %s", tool);
	json_t *args = catalyst_binding_args(b, vals, required, omitted, e);
	if (!args)
		return -1;
	int rc = call_tool(c, tool, args, doc, meta, ref, tool_failed, raw, e);
	json_decref(args);
	return rc;
}

int catalyst_invoke(struct catalyst *c, const char *tool, const char *const vals[CATALYST_ARG_COUNT],
		    unsigned required, unsigned *omitted, json_t **doc, json_t **meta,
		    struct catalyst_refusal *ref, struct err *e)
{
	return invoke(c, tool, vals, required, omitted, doc, meta, ref, NULL, NULL, e);
}

/* ---- run lists --------------------------------------------------------- */

static const char *const k_runs[] = {"runs",      "workflowruns",      "items",   "results", "data",
				     "instances", "workflowinstances", "records", "entries", NULL};
static const char *const k_run_id[] = {"instanceid", "runid", "workflowrunid", "workflowinstanceid", "id", NULL};
static const char *const k_app_id[] = {"appid", "app", "appname", "applicationid", NULL};
static const char *const k_workflow[] = {"workflowname", "workflow", "workflowtype", "name", NULL};
static const char *const k_status[] = {"runtimestatus", "status", "runstatus", "workflowstatus", "state", NULL};
static const char *const k_started[] = {"createdat", "createdtime", "startedat",        "starttime", "created",
					"started",   "createtime",  "createdtimestamp", NULL};
static const char *const k_parent[] = {"parentinstanceid", "parentid", "parentrunid", NULL};
static const char *const k_completed[] = {"completedat", "completedtime",      "endedat", "endtime",
					  "finishedat",  "completedtimestamp", NULL};
static const char *const k_updated[] = {"lastupdatedat", "lastupdatedtime", "updatedat",
					"lastupdated",   "updatedtime",     NULL};
static const char *const k_cursor[] = {"nextcursor", "cursor", "nextpagetoken", "continuationtoken", "nexttoken",
				       "pagetoken",  NULL};

static const json_t *run_array(const json_t *doc, int depth)
{
	if (json_is_array(doc))
		return doc;
	if (!json_is_object(doc))
		return NULL;
	const char *key;
	const json_t *v;
	for (const char *const *k = k_runs; *k; k++)
		json_object_foreach((json_t *)doc, key, v)
			if (catalyst_key_match(key, *k) && json_is_array(v))
				return v;
	if (depth <= 0)
		return NULL;
	json_object_foreach((json_t *)doc, key, v) {
		const json_t *a = json_is_object(v) ? run_array(v, depth - 1) : NULL;
		if (a)
			return a;
	}
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int catalyst_run_items_parse(const json_t *doc, struct catalyst_run_list *out, struct err *e)
{
	const json_t *arr = run_array(doc, 2);
	if (!arr)
		return err_set(e, ERR_PROTOCOL, "the answer holds no list of runs");
	size_t i;
	const json_t *item;
	json_array_foreach(arr, i, item) {
		if (!json_is_object(item))
			continue;
		char num[32];
		const char *id = catalyst_find_string(item, k_run_id, 1, num);
		struct catalyst_run_item *ni = realloc(out->items, (out->n + 1) * sizeof *ni);
		if (!ni)
			return err_oom(e);
		out->items = ni;
		struct catalyst_run_item *it = &out->items[out->n++];
		memset(it, 0, sizeof *it);
		it->run_id = dup_or_null(id);
		it->app_id = dup_or_null(catalyst_find_string(item, k_app_id, 1, NULL));
		it->workflow = dup_or_null(catalyst_find_string(item, k_workflow, 1, NULL));
		const char *st = catalyst_find_string(item, k_status, 1, NULL);
		if (st) {
			char norm[64];
			it->status = strdup(catalyst_status_normalize(st, norm, sizeof norm));
		}
		it->started_at = dup_or_null(catalyst_find_string(item, k_started, 1, NULL));
		it->parent_id = dup_or_null(catalyst_find_string(item, k_parent, 1, NULL));
		it->completed_at = dup_or_null(catalyst_find_string(item, k_completed, 1, NULL));
		it->updated_at = dup_or_null(catalyst_find_string(item, k_updated, 1, NULL));
	}
	return 0;
}

static void item_free(struct catalyst_run_item *it)
{
	free(it->run_id);
	free(it->app_id);
	free(it->workflow);
	free(it->status);
	free(it->started_at);
	free(it->parent_id);
	free(it->completed_at);
	free(it->updated_at);
}

static void clear_items(struct catalyst_run_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		item_free(&l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

static bool status_terminal(const char *status)
{
	static const char *const terminal[] = {"completed", "failed", "terminated", "canceled"};
	for (size_t i = 0; status && i < sizeof terminal / sizeof *terminal; i++)
		if (strcmp(status, terminal[i]) == 0)
			return true;
	return false;
}

const char *catalyst_run_ended_at(const struct catalyst_run_item *it)
{
	if (it->completed_at && *it->completed_at)
		return it->completed_at;
	return status_terminal(it->status) && it->updated_at && *it->updated_at ? it->updated_at : NULL;
}

int catalyst_time_cmp(const char *a, const char *b)
{
	time_t ta, tb;
	if (catalyst_time_parse(a, &ta) < 0 || catalyst_time_parse(b, &tb) < 0)
		return strcmp(a, b);
	if (ta != tb)
		return ta < tb ? -1 : 1;
	/* The same second: the fraction, as written (".031Z" after ".03Z"). */
	const char *fa = strchr(a, '.'), *fb = strchr(b, '.');
	double da = fa ? strtod(fa, NULL) : 0, db = fb ? strtod(fb, NULL) : 0;
	return da < db ? -1 : da > db;
}

bool catalyst_run_ended_since(const struct catalyst_run_item *it, const char *since)
{
	const char *end = catalyst_run_ended_at(it);
	if (!end)
		/* A run the list says is in flight has not ended; one that has
		 * ended (or says nothing of its state) but not when is kept:
		 * dropping it would be a guess. */
		return !it->status || status_terminal(it->status);
	return catalyst_time_cmp(end, since) >= 0;
}

/* Whether s is one of the n values (any case, or exactly). */
static bool one_of(const char *s, const char *const *v, size_t n, bool any_case)
{
	for (size_t i = 0; i < n; i++)
		if (any_case ? strcasecmp(s, v[i]) == 0 : strcmp(s, v[i]) == 0)
			return true;
	return false;
}

/* Filters the server could not apply, applied to items [from, n). An item
 * that lacks the field a filter needs is kept: dropping it would hide a run
 * on a guess. */
static void filter_client_side(struct catalyst_run_list *l, size_t from, unsigned omitted,
			       const struct catalyst_run_filter *f)
{
	size_t w = from;
	for (size_t i = from; i < l->n; i++) {
		struct catalyst_run_item *it = &l->items[i];
		bool keep = true;
		if ((omitted & CATALYST_BIT(CATALYST_ARG_STATUS)) && it->status &&
		    strcmp(it->status, f->status) != 0)
			keep = false;
		if ((omitted & CATALYST_BIT(CATALYST_ARG_APP)) && it->app_id && strcmp(it->app_id, f->app) != 0)
			keep = false;
		if ((omitted & CATALYST_BIT(CATALYST_ARG_WORKFLOW)) && it->workflow &&
		    strcmp(it->workflow, f->workflow) != 0)
			keep = false;
		if (f->workflow_match && it->workflow && strcasecmp(it->workflow, f->workflow_match) != 0)
			keep = false;
		if (f->n_apps > 1 && it->app_id && !one_of(it->app_id, f->apps, f->n_apps, false))
			keep = false;
		if (f->n_statuses > 1 && it->status && !one_of(it->status, f->statuses, f->n_statuses, false))
			keep = false;
		if (f->n_workflows > 1 && it->workflow &&
		    !one_of(it->workflow, f->workflows, f->n_workflows, true))
			keep = false;
		/* A lookup, not a filter: only the run of that very id, whatever
		 * the server's filter matched (a prefix, say). */
		if (f->run && (!it->run_id || strcmp(it->run_id, f->run) != 0))
			keep = false;
		time_t t, bound;
		if ((omitted & CATALYST_BIT(CATALYST_ARG_SINCE)) && it->started_at &&
		    catalyst_time_parse(it->started_at, &t) == 0 && catalyst_time_parse(f->since, &bound) == 0 &&
		    t < bound)
			keep = false;
		if ((omitted & CATALYST_BIT(CATALYST_ARG_UNTIL)) && it->started_at &&
		    catalyst_time_parse(it->started_at, &t) == 0 && catalyst_time_parse(f->until, &bound) == 0 &&
		    t > bound)
			keep = false;
		if ((omitted & CATALYST_BIT(CATALYST_ARG_ENDED_SINCE)) &&
		    !catalyst_run_ended_since(it, f->ended_since))
			keep = false;
		if (keep)
			l->items[w++] = *it;
		else
			item_free(it);
	}
	l->n = w;
}

struct catalyst_run_walk {
	struct catalyst *c;
	struct catalyst_run_filter f;
	const struct catalyst_binding *b;
	long page;
	long max_pages;
	bool started, done;
	char *cursor, *next_cursor;
	/* Every cursor seen, to catch any cycle (A, B, A, ...), not only a
	 * cursor given twice in a row. Bounded with the pages, and in bytes. */
	json_t *cursors;
	size_t cursor_bytes;
	/* Every run given, so each is given once: the filter's set, or one
	 * of the walk's own (own_seen). */
	struct catalyst_run_set *seen;
	bool own_seen;
	size_t n_seen, id_bytes;
	/* A bound reached inside the last page: said at the next step. */
	bool failed;
	struct err err;
};

void catalyst_list_runs(struct catalyst *c, const struct catalyst_run_filter *f, struct catalyst_run_list *l)
{
	memset(l, 0, sizeof *l);
	l->walk = calloc(1, sizeof *l->walk);
	if (!l->walk)
		return; /* said at the first step */
	struct catalyst_run_walk *w = l->walk;
	w->c = c;
	w->f = *f;
	w->page = f->page_size > 0 ? f->page_size : 50;
	if (f->limit > 0 && f->limit < w->page)
		w->page = f->limit;
	w->max_pages = f->max_pages > 0 ? f->max_pages : CATALYST_MAX_LIST_PAGES;
}

void catalyst_run_list_finish(struct catalyst_run_list *l)
{
	if (!l)
		return;
	clear_items(l);
	struct catalyst_run_walk *w = l->walk;
	if (w) {
		free(w->cursor);
		free(w->next_cursor);
		json_decref(w->cursors);
		if (w->own_seen)
			catalyst_run_set_free(w->seen);
		free(w);
	}
	memset(l, 0, sizeof *l);
}

/* ---- the set of runs ---------------------------------------------------
 *
 * Open addressing over a table of (hash, key handle), at most 3/4 full:
 * 8 bytes a slot. Each key is its app id and run id, NUL-ended, one after
 * the other, in blocks of bytes that never move; a handle is the block's
 * index and the offset in it. A key longer than a block's quarter has a
 * block of its own. */

#define RUN_SET_BLOCK_BITS 14
#define RUN_SET_BLOCK ((size_t)1 << RUN_SET_BLOCK_BITS)

struct run_set_slot {
	uint32_t hash;
	uint32_t key; /* 1 + (block << RUN_SET_BLOCK_BITS | offset); 0: empty */
};

struct catalyst_run_set {
	struct run_set_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;
	char **blocks;
	size_t n_blocks, cur, used; /* the block keys are added to, and its bytes used */
};

struct catalyst_run_set *catalyst_run_set_new(void)
{
	return calloc(1, sizeof(struct catalyst_run_set));
}

void catalyst_run_set_free(struct catalyst_run_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_blocks; i++)
		free(s->blocks[i]);
	free(s->blocks);
	free(s->slots);
	free(s);
}

size_t catalyst_run_set_count(const struct catalyst_run_set *s)
{
	return s ? s->n : 0;
}

static const char *run_set_key(const struct catalyst_run_set *s, uint32_t h)
{
	h--;
	return s->blocks[h >> RUN_SET_BLOCK_BITS] + (h & (RUN_SET_BLOCK - 1));
}

/* FNV-1a over the app id, a NUL, the run id. */
static uint32_t run_hash(const char *app, const char *run)
{
	uint32_t h = 2166136261u;
	for (const char *p = app;; p++) {
		h = (h ^ (unsigned char)*p) * 16777619u;
		if (!*p)
			break;
	}
	for (const char *p = run; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

static bool run_key_is(const char *key, const char *app, const char *run)
{
	return strcmp(key, app) == 0 && strcmp(key + strlen(key) + 1, run) == 0;
}

/* The slot of (app, run), or the empty slot where it would go. */
static struct run_set_slot *run_set_slot(const struct catalyst_run_set *s, uint32_t h, const char *app,
					 const char *run)
{
	size_t mask = s->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct run_set_slot *sl = &s->slots[i];
		if (!sl->key || (sl->hash == h && run_key_is(run_set_key(s, sl->key), app, run)))
			return sl;
	}
}

bool catalyst_run_set_has(const struct catalyst_run_set *s, const char *app_id, const char *run_id)
{
	const char *app = app_id ? app_id : "", *run = run_id ? run_id : "";
	if (!s || !s->n)
		return false;
	return run_set_slot(s, run_hash(app, run), app, run)->key != 0;
}

static int run_set_grow(struct catalyst_run_set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	struct run_set_slot *slots = table_alloc(cap, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].key) {
			size_t j = s->slots[i].hash & (cap - 1);
			while (slots[j].key)
				j = (j + 1) & (cap - 1);
			slots[j] = s->slots[i];
		}
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

/* Room for a key of n bytes that never moves, and its handle; NULL when
 * out of memory (or past the handles). */
static char *run_set_room(struct catalyst_run_set *s, size_t n, uint32_t *handle)
{
	bool own = n > RUN_SET_BLOCK / 4;
	bool fits = s->n_blocks && !own && RUN_SET_BLOCK - s->used >= n;
	if (!fits) {
		if (s->n_blocks >= (UINT32_MAX >> RUN_SET_BLOCK_BITS) - 1)
			return NULL;
		char **blocks = realloc(s->blocks, (s->n_blocks + 1) * sizeof *blocks);
		if (!blocks)
			return NULL;
		s->blocks = blocks;
		if (!(blocks[s->n_blocks] = malloc(own ? n : RUN_SET_BLOCK)))
			return NULL;
		if (own) {
			*handle = (uint32_t)(s->n_blocks++ << RUN_SET_BLOCK_BITS) + 1;
			return blocks[s->n_blocks - 1];
		}
		s->cur = s->n_blocks++;
		s->used = 0;
	}
	char *p = s->blocks[s->cur] + s->used;
	*handle = (uint32_t)((s->cur << RUN_SET_BLOCK_BITS) | s->used) + 1;
	s->used += n;
	return p;
}

int catalyst_run_set_add(struct catalyst_run_set *s, const char *app_id, const char *run_id)
{
	const char *app = app_id ? app_id : "", *run = run_id ? run_id : "";
	if (!s)
		return -1;
	if ((s->n + 1) * 4 > s->cap * 3 && run_set_grow(s) < 0)
		return -1;
	uint32_t h = run_hash(app, run);
	struct run_set_slot *sl = run_set_slot(s, h, app, run);
	if (sl->key)
		return 0;
	size_t na = strlen(app) + 1, nr = strlen(run) + 1;
	uint32_t handle;
	char *key = run_set_room(s, na + nr, &handle);
	if (!key)
		return -1;
	memcpy(key, app, na);
	memcpy(key + na, run, nr);
	sl->hash = h;
	sl->key = handle;
	s->n++;
	return 1;
}

char *catalyst_run_key(const char *app_id, const char *run_id)
{
	char *key;
	const char *app = app_id ? app_id : "";
	if (asprintf(&key, "%zu:%s/%s", strlen(app), app, run_id ? run_id : "") < 0)
		return NULL;
	return key;
}

/* Before asking for another page: the cursor the last one gave, checked.
 * 1: ask; 0: the listing is over; -1: e set. */
static int advance(struct catalyst_run_list *l, struct err *e)
{
	struct catalyst_run_walk *w = l->walk;
	char *next = w->next_cursor;
	w->next_cursor = NULL;
	int rc = -1;
	if (!next)
		return 0;
	if (!w->b->prop[CATALYST_ARG_CURSOR]) {
		/* More pages exist but cannot be asked for. */
		l->truncated = true;
		rc = 0;
	} else if (json_object_get(w->cursors, next)) {
		err_set_final(e, ERR_PROTOCOL,
			      "%s: the server repeated cursor '%.60s' (page %zu): the run list loops",
			      CATALYST_TOOL_LIST_RUNS, next, l->pages);
	} else if ((long)l->pages >= w->max_pages) {
		err_set_final(e, ERR_PROTOCOL, "%s: still more pages after %ld (the most one listing walks)",
			      CATALYST_TOOL_LIST_RUNS, w->max_pages);
	} else if ((w->cursor_bytes += strlen(next)) > (size_t)CATALYST_MAX_CURSOR_MIB << 20) {
		err_set_final(e, ERR_PROTOCOL, "%s: the cursors came to over %d MiB (page %zu)",
			      CATALYST_TOOL_LIST_RUNS, CATALYST_MAX_CURSOR_MIB, l->pages);
	} else if (json_object_set_new(w->cursors, next, json_true()) < 0) {
		err_oom(e);
	} else {
		free(w->cursor);
		w->cursor = next;
		return 1;
	}
	free(next);
	return rc;
}

/* One page from the server into l->items, filtered here as the schema
 * needs, and the cursor it gives kept for advance(). */
static int fetch_page(struct catalyst_run_list *l, struct catalyst_refusal *ref, struct err *e)
{
	struct catalyst_run_walk *w = l->walk;
	const struct catalyst_run_filter *f = &w->f;
	const char *project = f->project ? f->project->value : "default";
	for (;;) {
		char page_str[32];
		snprintf(page_str, sizeof page_str, "%ld", w->page);
		const char *vals[CATALYST_ARG_COUNT] = {
			[CATALYST_ARG_PROJECT] = project,      [CATALYST_ARG_APP] = f->app,
			[CATALYST_ARG_WORKFLOW] = f->workflow, [CATALYST_ARG_STATUS] = f->status,
			[CATALYST_ARG_SINCE] = f->since,       [CATALYST_ARG_UNTIL] = f->until,
			[CATALYST_ARG_PAGE_SIZE] = page_str,   [CATALYST_ARG_CURSOR] = w->cursor,
			[CATALYST_ARG_RUN] = f->run,           [CATALYST_ARG_ENDED_SINCE] = f->ended_since,
		};
		/* The server reads no project as `default`: only another project
		 * must find a property to go in. */
		unsigned required = strcmp(project, "default") != 0 ? CATALYST_BIT(CATALYST_ARG_PROJECT) : 0;
		if (w->cursor)
			required |= CATALYST_BIT(CATALYST_ARG_CURSOR);
		unsigned omitted = 0;
		json_t *doc = NULL, *meta = NULL;
		struct catalyst_refusal rf;
		memset(&rf, 0, sizeof rf);
		bool tool_failed = false;
		l->page_size = w->page;
		if (invoke(w->c, CATALYST_TOOL_LIST_RUNS, vals, required, &omitted, &doc, &meta, &rf, &tool_failed,
			   NULL, e) < 0) {
			if (e->detail == ERR_DETAIL_REFUSAL && catalyst_key_match(rf.kind, "unfilterable") &&
			    w->b->prop[CATALYST_ARG_PAGE_SIZE] && w->page > 1) {
				/* Truncated at the size limit: the only refusal worth asking again. */
				w->page /= 2;
				l->unfilterable++;
				continue;
			}
			if (ref && e->detail == ERR_DETAIL_REFUSAL)
				*ref = rf;
			if (tool_failed && e->code != ERR_NOT_FOUND && !strcasestr(rf.kind, "invalid")) {
				size_t len = strlen(e->msg);
				snprintf(e->msg + len, sizeof e->msg - len,
					 " (project %s has no managed workflow store: workflow calls fail "
					 "outright, which is not the same as having no runs)",
					 project);
			}
			return -1;
		}
		l->pages++;
		l->client_side |= omitted &
				  ~(CATALYST_BIT(CATALYST_ARG_PAGE_SIZE) | CATALYST_BIT(CATALYST_ARG_CURSOR));
		if (l->sharing == SHARING_UNKNOWN)
			l->sharing = catalyst_answer_sharing(doc, meta, l->sharing_key, sizeof l->sharing_key);
		int prc = catalyst_run_items_parse(doc, l, e);
		if (prc == 0)
			filter_client_side(l, 0, omitted, f);
		char num[32];
		const char *next = prc == 0 ? catalyst_find_string(doc, k_cursor, 2, num) : NULL;
		if (!next && meta)
			next = catalyst_find_string(meta, k_cursor, 1, num);
		w->next_cursor = next && *next ? strdup(next) : NULL;
		json_decref(doc);
		json_decref(meta);
		if (prc < 0)
			return err_prefix(e, "%s", CATALYST_TOOL_LIST_RUNS);
		return 0;
	}
}

/* Keeps the page's runs that are new, up to the limit and the bounds; the
 * rest is dropped (after a bound, with the error for the next step). */
static void take_page(struct catalyst_run_list *l)
{
	struct catalyst_run_walk *w = l->walk;
	long limit = w->f.limit;
	size_t kept = 0, i = 0;
	for (; i < l->n; i++) {
		struct catalyst_run_item *it = &l->items[i];
		/* The limit counts top-level runs: a listed child run (one with a
		 * parent) is given on top, like those its parent's history names. */
		bool top = !it->parent_id || !*it->parent_id;
		if (top && limit > 0 && (long)l->top_level >= limit) {
			l->limit_reached = true;
			w->done = true;
			break;
		}
		if (catalyst_run_set_has(w->seen, it->app_id, it->run_id)) {
			l->repeats++;
			item_free(it);
			continue;
		}
		if (w->n_seen >= CATALYST_MAX_LISTED_RUNS) {
			w->failed = true;
			err_set_final(&w->err, ERR_PROTOCOL,
				      "the server listed more than %d runs, the most one `runs` command audits: "
				      "narrow it with --since, --until, --app, --workflow, --status or --limit",
				      CATALYST_MAX_LISTED_RUNS);
			break;
		}
		size_t bytes = (it->app_id ? strlen(it->app_id) : 0) + (it->run_id ? strlen(it->run_id) : 0) +
			       (it->parent_id ? strlen(it->parent_id) : 0);
		if (w->id_bytes + bytes > (size_t)CATALYST_MAX_LISTED_ID_MIB << 20) {
			w->failed = true;
			err_set_final(&w->err, ERR_PROTOCOL,
				      "the run list came to over %d MiB of run and app ids (%zu runs)",
				      CATALYST_MAX_LISTED_ID_MIB, w->n_seen);
			break;
		}
		if (catalyst_run_set_add(w->seen, it->app_id, it->run_id) < 0) {
			w->failed = true;
			err_oom(&w->err);
			break;
		}
		w->id_bytes += bytes;
		w->n_seen++;
		if (top)
			l->top_level++;
		l->items[kept++] = *it;
	}
	for (; i < l->n; i++)
		item_free(&l->items[i]);
	l->n = kept;
	if (!w->failed && limit > 0 && (long)l->top_level >= limit) {
		l->limit_reached = true;
		w->done = true;
	}
}

int catalyst_run_list_next(struct catalyst_run_list *l, struct catalyst_refusal *ref, struct err *e)
{
	struct catalyst_run_walk *w = l->walk;
	clear_items(l);
	if (!w)
		return err_oom(e);
	if (w->failed) {
		*e = w->err;
		return -1;
	}
	if (w->done)
		return 0;
	if (!w->started) {
		w->started = true;
		w->b = catalyst_binding_get(w->c, CATALYST_TOOL_LIST_RUNS);
		if (!w->b)
			return err_set(e, ERR_PROTOCOL, "the server offers no tool named %s",
				       CATALYST_TOOL_LIST_RUNS);
		w->cursors = json_object();
		w->own_seen = !w->f.seen;
		w->seen = w->f.seen ? w->f.seen : catalyst_run_set_new();
		if (!w->cursors || !w->seen)
			return err_oom(e);
	} else {
		int more = advance(l, e);
		if (more <= 0) {
			w->done = true;
			return more;
		}
	}
	if (fetch_page(l, ref, e) < 0) {
		clear_items(l);
		w->done = true;
		return -1;
	}
	take_page(l);
	return 1;
}

/* ---- one run ---------------------------------------------------------- */

static int get_run(struct catalyst *c, const struct project_ref *project, const char *app_id, const char *run_id,
		   json_t **doc, json_t **meta, struct answer_raw *raw, struct catalyst_refusal *ref,
		   struct err *e)
{
	const char *vals[CATALYST_ARG_COUNT] = {
		[CATALYST_ARG_PROJECT] = project->value,
		[CATALYST_ARG_APP] = app_id,
		[CATALYST_ARG_RUN] = run_id,
	};
	unsigned required = CATALYST_BIT(CATALYST_ARG_APP) | CATALYST_BIT(CATALYST_ARG_RUN);
	if (!project->defaulted)
		required |= CATALYST_BIT(CATALYST_ARG_PROJECT);
	return invoke(c, CATALYST_TOOL_GET_RUN, vals, required, NULL, doc, meta, ref, NULL, raw, e);
}

int catalyst_get_run(struct catalyst *c, const struct project_ref *project, const char *app_id, const char *run_id,
		     struct catalyst_run *out, struct catalyst_refusal *ref, struct err *e)
{
	return catalyst_get_run_doc(c, project, app_id, run_id, out, NULL, ref, e);
}

/* The run a history says it is: its envelope's instance id, or its first
 * ExecutionStarted's (NULL when it names none). A rerun's start names the
 * rerun, a continued run's every generation the one id. */
static const char *history_run_id(const struct event_log *log)
{
	const struct event_run_info *info = event_log_run_info(log);
	if (info && info->instance_id && *info->instance_id)
		return info->instance_id;
	size_t n = event_log_count(log);
	for (size_t i = 0; i < n; i++) {
		struct event ev;
		event_log_get(log, i, &ev);
		if (ev.kind == EVENT_EXECUTION_STARTED)
			return ev.instance_id && *ev.instance_id ? ev.instance_id : NULL;
	}
	return NULL;
}

int catalyst_get_run_doc(struct catalyst *c, const struct project_ref *project, const char *app_id,
			 const char *run_id, struct catalyst_run *out, json_t **doc_out,
			 struct catalyst_refusal *ref, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (doc_out)
		*doc_out = NULL;
	json_t *doc = NULL, *meta = NULL;
	struct answer_raw raw;
	if (get_run(c, project, app_id, run_id, &doc, &meta, &raw, ref, e) < 0)
		return -1;
	/* doc has its big arrays emptied when raw came: the level, refusals
	 * and the graph's shape are read from it, the history from raw. */
	out->sharing = catalyst_answer_sharing(doc, meta, out->sharing_key, sizeof out->sharing_key);
	json_decref(meta);
	if (raw.bytes && (doc_out || event_doc_is_graph(doc))) {
		/* Saved whole, or a graph to flatten: the tree after all. */
		json_error_t je;
		json_t *whole = json_loadb(raw.bytes, raw.len, JSON_REJECT_DUPLICATES, &je);
		free(raw.bytes);
		raw.bytes = NULL;
		json_decref(doc);
		if (!(doc = whole)) {
			return err_set(e, ERR_PROTOCOL, "%s answer for %s: %s", CATALYST_TOOL_GET_RUN, run_id,
				       je.text);
		}
	}
	/* The parser also reads an execution graph's nodes. */
	out->log = raw.bytes ? event_log_parse_opts(raw.bytes, raw.len, &c->parse, e)
			     : event_log_from_json_opts(doc, &c->parse, e);
	free(raw.bytes);
	if (doc_out && out->log)
		*doc_out = json_incref(doc);
	json_decref(doc);
	if (!out->log)
		return err_prefix(e, "%s answer for %s", CATALYST_TOOL_GET_RUN, run_id);
	const char *about = history_run_id(out->log);
	if (about && strcmp(about, run_id) != 0) {
		/* Analysed, it would be reported (and linked) as the run asked
		 * for; a later answer may be the right one. The message first:
		 * the id is the log's. */
		err_set(e, ERR_PROTOCOL, "%s answered about run %s, not %s", CATALYST_TOOL_GET_RUN, about, run_id);
		event_log_free(out->log);
		out->log = NULL;
		if (doc_out) {
			json_decref(*doc_out);
			*doc_out = NULL;
		}
		return -1;
	}
	/* The history's own envelope may name the level where the answer's
	 * fields did not. */
	const struct event_run_info *info = event_log_run_info(out->log);
	if (out->sharing == SHARING_UNKNOWN && info && info->data_sharing_level) {
		out->sharing = data_sharing_level_parse(info->data_sharing_level);
		snprintf(out->sharing_key, sizeof out->sharing_key, "%s",
			 info->data_sharing_field ? info->data_sharing_field : "?");
	}
	return 0;
}

int catalyst_check_run(struct catalyst *c, const struct project_ref *project, const char *app_id,
		       const char *run_id, struct err *e)
{
	json_t *doc = NULL;
	int rc = get_run(c, project, app_id, run_id, &doc, NULL, NULL, NULL, e);
	json_decref(doc);
	return rc;
}
