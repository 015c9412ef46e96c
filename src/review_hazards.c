/* The hazards of an activity's body (doc/hazards.md): a key or id
 * generated in the body, an HTTP POST without an idempotency key, a retry
 * loop, a read then a write of the same key. Calls into the project's own
 * functions are followed two levels deep. Only activity bodies are read:
 * everywhere else the same code is mostly harmless. */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "review_internal.h"

const struct review_hazard_row review_hazard_rows[HAZARD_KIND_COUNT] = {
	{HAZARD_GENERATED_KEY, "generated-key",
	 "generates a key inside the body (uuid4(), uuid.New(), Guid.NewGuid(), UUID.randomUUID(), "
	 "crypto.randomUUID(), the current time) and uses it as the key or id",
	 "a new key every run, so it deduplicates nothing",
	 "derive the key from the input or the activity context",
	 "`%s` makes a new value on every attempt, so the key or id it gives deduplicates nothing",
	 "derive the key from the input or the activity context instead of `%s`"},
	/* doc/hazards.md's example is a payment; the sentence must fit any
	 * POST it flags (issue 33: a shipping-cost lookup is no charge). */
	{HAZARD_POST_WITHOUT_KEY, "post-without-idempotency-key",
	 "POSTs to a remote service without an idempotency-key header",
	 "the service acts on the request again (a second charge, order, booking or message) unless it "
	 "deduplicates it itself",
	 "send an idempotency-key header derived from the input or the task execution id (the provider's "
	 "own, where it has one)",
	 "`%s` makes the service act again on every attempt (a second charge, order, booking or message) "
	 "unless it deduplicates the request itself",
	 "give `%s` an Idempotency-Key header derived from the input or the task execution id (the "
	 "provider's own, where it has one)"},
	{HAZARD_RETRY_LOOP, "retry-loop", "retries in a loop inside the body",
	 "multiplies the engine's retries, invisible to history, lost on a crash",
	 "retry at the call site (the engine's policy, durable timers)",
	 "`%s` repeats the work inside the body: it multiplies the engine's retries, invisible to history, "
	 "lost on a crash",
	 "take out `%s` and retry at the call site (the engine's retry policy, durable timers)"},
	{HAZARD_READ_THEN_WRITE, "read-then-write", "reads, then writes if absent (check-then-act)",
	 "two attempts can both read \"absent\" and both write; attempts can overlap",
	 "make the write itself refuse the duplicate (unique constraint, upsert, compare-and-swap, conditional "
	 "PUT, INSERT ... IF NOT EXISTS); the read may stay in front as a shortcut",
	 "`%s` writes what an earlier read decided: two attempts can both read \"absent\" and both write",
	 "make `%s` itself refuse the duplicate (first-write-wins, compare-and-swap, a unique key, INSERT "
	 "... IF NOT EXISTS); the read may stay in front as a shortcut"},
	{HAZARD_SHARED_RETRY_POLICY, "one-retry-policy",
	 "in the orchestrator: one retry policy object applied to every activity call",
	 "retries permanent rejections on the same schedule as transient failures",
	 "one policy per failure class; return a business rejection as a value",
	 "`%s` shares its retry policy with the other activity calls: a permanent rejection is retried on "
	 "the schedule of a transient failure",
	 "give `%s` a policy of its own failure class; return a business rejection as a value"},
	/* issue 33: the demos' own non-idempotent examples (a message
	 * published, a record inserted) */
	{HAZARD_PUBLISH_WITHOUT_ID, "publish-without-id",
	 "publishes an event with no message id to deduplicate on",
	 "the event goes out again and every subscriber acts on it twice unless it deduplicates",
	 "give the message an id derived from the input (Dapr's cloudevent.id metadata) and deduplicate on it "
	 "in the subscribers",
	 "`%s` publishes the event again on every attempt, and every subscriber acts on it twice unless it "
	 "deduplicates",
	 "give `%s` a message id derived from the input (Dapr's cloudevent.id metadata) and deduplicate on it "
	 "in the subscribers"},
	{HAZARD_INSERT_WITHOUT_KEY, "insert-without-key",
	 "inserts a record that no key makes refuse a second time",
	 "a second row, document or record for the same operation",
	 "insert under a key derived from the input with a unique constraint, or upsert (ON CONFLICT, MERGE, "
	 "upsert=True)",
	 "`%s` adds a second row, document or record for the same operation on every attempt",
	 "make `%s` insert under a key derived from the input with a unique constraint, or upsert (ON "
	 "CONFLICT, MERGE, upsert=True)"},
	{HAZARD_INCREMENT, "increment",
	 "changes a counter, balance or stock by an amount (+=, -=, debit, increment)",
	 "the amount is applied twice",
	 "record the operation under a key derived from the input and apply the amount only when the record is "
	 "new, or set the computed value under that key",
	 "`%s` applies the amount again on every attempt",
	 "record the operation under a key derived from the input and run `%s` only when the record is new, "
	 "or set the computed value under that key instead"},
	{HAZARD_SEND_WITHOUT_KEY, "send-without-key",
	 "sends an email, SMS or notification with nothing to "
	 "deduplicate on",
	 "the person gets it twice",
	 "record the send under a key derived from the input and skip it when the record exists, or give the "
	 "provider a message id derived from the input",
	 "`%s` sends it again on every attempt: the person gets it twice",
	 "record the send under a key derived from the input and skip `%s` when the record exists, or give "
	 "the provider a message id derived from the input"},
};

#define MAX_STATE 64

/* A state call of the body: which key, read or write. */
struct state_call {
	char key[128];
	unsigned line;
	bool write;
	bool etag;
	TSNode node;
};

struct body_walk {
	struct rv_ctx *x;
	size_t act;  /* index into out->activities */
	size_t file; /* the file of the body walked */
	TSNode root; /* the body walked (its function) */
	const char *helper;
	/* the walk of the function that called this one (NULL: the body), and
	 * how many helpers deep it is */
	const struct body_walk *from;
	unsigned depth;
	bool follow;      /* calls into the project's functions are followed (not at the deepest helper) */
	bool idempotency; /* the function names an idempotency key somewhere */
	bool guarded;     /* it records the operation first with a set-if-absent (SET NX) */
	struct state_call state[MAX_STATE];
	size_t n_state;
	/* the end of the retry loop reported: a loop inside it is the same
	 * retry, what the loop repeats is still read */
	uint32_t retry_end;
	int rc;
};

static int hazard(struct body_walk *w, enum review_hazard_kind k, TSNode at, const char *fmt, const char *a,
		  const char *b)
{
	struct review_activity *act = &w->x->out->activities[w->act];
	return rv_add_hazard(w->x, &act->hazards, &act->n_hazards, k, w->file, at, w->helper, fmt, a, b);
}

/* ---- generated keys ----------------------------------------------------- */

/* A callee's text ends with one of these (after a '.' or at its start). */
static const char *const generators[] = {"uuid4",
					 "uuid1",
					 "uuid.New",
					 "uuid.NewString",
					 "uuid.NewRandom",
					 "NewGuid",
					 "randomUUID",
					 "uuidv4",
					 "uuid.v4",
					 "v4",
					 "time.time",
					 "time.time_ns",
					 "time.Now",
					 "datetime.now",
					 "datetime.utcnow",
					 "Date.now",
					 "currentTimeMillis",
					 "nanoTime",
					 "Instant.now",
					 "ulid",
					 "nanoid",
					 "ObjectId",
					 "random.random",
					 "random.randint",
					 "token_hex",
					 "token_urlsafe",
					 "Math.random",
					 NULL};
/* C# reads the clock as a property, not a call. */
static const char *const clock_properties[] = {"DateTime.Now", "DateTime.UtcNow", "DateTimeOffset.Now",
					       "DateTimeOffset.UtcNow", NULL};

static bool ends_with_part(const char *s, const char *part)
{
	size_t n = strlen(s), m = strlen(part);
	return n >= m && strcmp(s + n - m, part) == 0 && (n == m || s[n - m - 1] == '.');
}

static bool is_generator(const struct rv_file *f, TSNode n)
{
	char buf[128];
	if (rv_type(n, f->lang->call)) {
		rv_text(f, rv_callee(n), buf, sizeof buf);
		if (rv_type(n, "method_invocation")) { /* Java: object.name */
			char obj[96];
			TSNode o = rv_field(n, "object");
			if (!ts_node_is_null(o))
				snprintf(buf, sizeof buf, "%s.%s", rv_text(f, o, obj, sizeof obj),
					 rv_text(f, rv_field(n, "name"), (char[64]){0}, 64));
		}
		for (const char *const *g = generators; *g; g++)
			if (ends_with_part(buf, *g))
				return true;
		return false;
	}
	if (rv_type(n, "member_access_expression")) {
		rv_text(f, n, buf, sizeof buf);
		for (const char *const *g = clock_properties; *g; g++)
			if (ends_with_part(buf, *g))
				return true;
	}
	return false;
}

/* orderId, order_id, id, idempotency_key, reference: a name a key goes by. */
static bool key_like(const char *name)
{
	char low[128];
	size_t n = strlen(name);
	if (n == 0 || n >= sizeof low)
		return false;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	if (strstr(low, "key") || strstr(low, "idempot") || strstr(low, "uuid") || strstr(low, "guid") ||
	    strcmp(low, "id") == 0 || strcmp(low, "ref") == 0 || strstr(low, "reference"))
		return true;
	/* ends in id as a word: order_id, order-id, orderId, orderID */
	return n > 2 && (strcmp(low + n - 3, "_id") == 0 || strcmp(low + n - 3, "-id") == 0 ||
			 strcmp(name + n - 2, "Id") == 0 || strcmp(name + n - 2, "ID") == 0);
}

/* The name the generated value is bound to: climbs from the generator to
 * the nearest assignment, declaration, keyword argument or object key. */
static bool bound_name(const struct rv_file *f, TSNode gen, TSNode stop, char *out, size_t size)
{
	TSNode prev = gen;
	for (TSNode p = ts_node_parent(gen); !ts_node_is_null(p) && !ts_node_eq(p, stop);
	     prev = p, p = ts_node_parent(p)) {
		const char *t = ts_node_type(p);
		TSNode name = {0};
		if (!strcmp(t, "assignment") || !strcmp(t, "assignment_expression") ||
		    !strcmp(t, "short_var_declaration") || !strcmp(t, "assignment_statement")) {
			name = rv_field(p, "left");
		} else if (!strcmp(t, "variable_declarator") || !strcmp(t, "var_spec") ||
			   !strcmp(t, "keyword_argument") || !strcmp(t, "argument")) {
			name = rv_field(p, "name");
		} else if (!strcmp(t, "pair")) {
			name = rv_field(p, "key");
		} else if (!strcmp(t, "keyed_element") && ts_node_named_child_count(p) == 2) {
			if (ts_node_eq(ts_node_named_child(p, 0), prev))
				return false; /* the generator is the key expression itself */
			name = ts_node_named_child(p, 0);
		} else if ((!strcmp(t, "argument_list") || !strcmp(t, "arguments")) &&
			   ts_node_named_child_count(p) >= 2 &&
			   strstr(ts_node_type(ts_node_named_child(p, 0)), "string") &&
			   !ts_node_eq(ts_node_named_child(p, 0), prev)) {
			/* req.Header.Set("Idempotency-Key", v), .header("Idempotency-Key", v) */
			char k[128];
			rv_unquote(f, ts_node_named_child(p, 0), k, sizeof k);
			if (!strcasestr(k, "idempot") && !strcasestr(k, "key"))
				continue; /* Sprintf("r/%s", v): the format, no key's name */
			name = ts_node_named_child(p, 0);
		} else if (!strcmp(t, "block") || !strcmp(t, "statement_block") ||
			   !strcmp(t, "expression_statement")) {
			return false;
		}
		if (ts_node_is_null(name))
			continue;
		/* order.id, self.order_id, data["order_id"]: the last part */
		char buf[128];
		rv_unquote(f, name, buf, sizeof buf);
		const char *last = buf;
		for (const char *c = buf; *c; c++)
			if ((*c == '.' || *c == '[' || *c == '"' || *c == '\'' || *c == ',') && c[1] &&
			    (isalnum((unsigned char)c[1]) || c[1] == '_'))
				last = c + 1;
		snprintf(out, size, "%.*s", (int)strcspn(last, "\"']) ,"), last);
		return true;
	}
	return false;
}

struct use_walk {
	const struct rv_file *f;
	TSNode root;
	const char *name;
	uint32_t after;
	char key[128];
	bool found;
};

static bool in_list(const struct rv_file *f, TSNode n, const char *const *list);

/* From a use of a local up to where it is bound, only formatting
 * (f-strings, templates, interpolation, +, Sprintf, String.format, str()):
 * a value passed to any other call is an argument, not the key made. */
static bool only_formatted(const struct rv_file *f, TSNode use, TSNode root)
{
	static const char *const formatters[] = {"Sprintf",  "Sprint",   "format", "Format", "str",    "String",
						 "toString", "ToString", "join",   "Join",   "concat", NULL};
	for (TSNode p = ts_node_parent(use); !ts_node_is_null(p) && !ts_node_eq(p, root); p = ts_node_parent(p)) {
		const char *t = ts_node_type(p);
		if (!strcmp(t, "assignment") || !strcmp(t, "assignment_expression") ||
		    !strcmp(t, "short_var_declaration") || !strcmp(t, "variable_declarator") ||
		    !strcmp(t, "var_spec") || !strcmp(t, "keyword_argument") || !strcmp(t, "pair") ||
		    !strcmp(t, "keyed_element") || !strcmp(t, "argument"))
			return true;
		if (rv_type(p, f->lang->call)) {
			TSNode args = rv_field(p, "arguments");
			char k[128] = "";
			if (!ts_node_is_null(args) && ts_node_named_child_count(args) >= 2 &&
			    strstr(ts_node_type(ts_node_named_child(args, 0)), "string"))
				rv_unquote(f, ts_node_named_child(args, 0), k, sizeof k);
			if (strcasestr(k, "idempot") || strcasestr(k, "key"))
				return true; /* .header("Idempotency-Key", ...) */
			if (!in_list(f, rv_callee_name(p), formatters))
				return false;
		}
	}
	return false;
}

/* A later use of the local that puts it, formatted or not, where a key
 * goes: headers={"Idempotency-Key": f"c-{v}"}, Options{IdempotencyKey:
 * fmt.Sprintf("r/%s", v)}, new Req { IdempotencyKey = $"c-{v}" },
 * .header("Idempotency-Key", "c-" + v). */
static bool use_visit(TSNode n, void *arg)
{
	struct use_walk *u = arg;
	if (u->found || ts_node_end_byte(n) <= u->after)
		return !u->found && ts_node_end_byte(n) > u->after;
	if (ts_node_start_byte(n) >= u->after && rv_type(n, "identifier") && rv_is(u->f, n, u->name) &&
	    only_formatted(u->f, n, u->root) && bound_name(u->f, n, u->root, u->key, sizeof u->key) &&
	    key_like(u->key) && strcmp(u->key, u->name) != 0)
		u->found = true;
	return !u->found;
}

static void generated_key(struct body_walk *w, TSNode n)
{
	const struct rv_file *f = &w->x->files[w->file];
	char name[128], gen[96];
	if (!is_generator(f, n) || !bound_name(f, n, w->root, name, sizeof name))
		return;
	/* a local not named as a key may still become one a line later */
	struct use_walk u = {.f = f, .root = w->root, .name = name, .after = ts_node_end_byte(n)};
	if (!key_like(name))
		rv_walk(w->root, use_visit, &u);
	if (!key_like(name) && !u.found)
		return;
	rv_text(f, rv_type(n, f->lang->call) ? rv_callee(n) : n, gen, sizeof gen);
	TSNode obj = rv_field(n, "object"); /* Java: UUID.randomUUID */
	if (rv_type(n, "method_invocation") && !ts_node_is_null(obj)) {
		char o[48], m[40];
		snprintf(gen, sizeof gen, "%s.%s", rv_text(f, obj, o, sizeof o),
			 rv_text(f, rv_callee(n), m, sizeof m));
	}
	char what[320];
	if (u.found)
		snprintf(what, sizeof what, "`%s` is generated in the body (%s()) and used in the key `%s`", name,
			 gen, u.key);
	else
		snprintf(what, sizeof what, "`%s` is generated in the body (%s()) and used as a key or id", name,
			 gen);
	w->rc = hazard(w, HAZARD_GENERATED_KEY, n, "%s%s", what, "");
}

/* ---- POST without an idempotency key ----------------------------------- */

static bool arg_says_post(const struct rv_file *f, TSNode call)
{
	TSNode args[6];
	size_t n = rv_args(call, args, 6);
	char buf[64];
	for (size_t i = 0; i < n; i++) {
		rv_unquote(f, args[i], buf, sizeof buf);
		if (strcasecmp(buf, "POST") == 0 || strcmp(buf, "http.MethodPost") == 0 ||
		    strcmp(buf, "HttpMethod.Post") == 0)
			return true;
		/* fetch(url, {method: "POST"}) */
		uint32_t k = rv_type(args[i], "object") ? ts_node_named_child_count(args[i]) : 0;
		for (uint32_t j = 0; j < k; j++) {
			TSNode pair = ts_node_named_child(args[i], j);
			if (rv_is(f, rv_field(pair, "key"), "method") &&
			    strcasecmp(rv_unquote(f, rv_field(pair, "value"), buf, sizeof buf), "POST") == 0)
				return true;
		}
	}
	TSNode verb = rv_named_arg(f, call, "http_verb");
	return !ts_node_is_null(verb) && strcasecmp(rv_unquote(f, verb, buf, sizeof buf), "POST") == 0;
}

/* requests.post, http.Post, client.PostAsync, PostAsJsonAsync,
 * postForObject, HttpRequest...POST(...), axios.post; fetch, request,
 * NewRequest and invoke_method with "POST". */
static bool is_post(const struct rv_file *f, TSNode call)
{
	char name[64];
	rv_text(f, rv_callee_name(call), name, sizeof name);
	static const char *const posts[] = {
		"post", "PostAsync", "PostAsJsonAsync", "postForObject", "postForEntity", "postForLocation", NULL};
	bool member = !ts_node_is_null(rv_field(call, "object")) ||
		      !ts_node_eq(rv_callee(call), rv_callee_name(call)); /* x.post, not a bare post() */
	for (const char *const *p = posts; *p; p++)
		if (strcasecmp(name, *p) == 0 && member)
			return true;
	static const char *const by_arg[] = {
		"fetch",         "request",      "NewRequest",        "NewRequestWithContext",
		"invoke_method", "invokeMethod", "InvokeMethodAsync", NULL};
	for (const char *const *p = by_arg; *p; p++)
		if (strcmp(name, *p) == 0)
			return arg_says_post(f, call);
	return false;
}

struct first_string {
	TSNode node;
	bool found;
};

static bool first_string_visit(TSNode n, void *arg)
{
	struct first_string *fs = arg;
	if (fs->found)
		return false;
	if (rv_type(n, "string_literal") || rv_type(n, "string") || rv_type(n, "interpreted_string_literal")) {
		fs->node = n;
		fs->found = true;
		return false;
	}
	return true;
}

/* A POST to an address that names a lookup or a computation (search,
 * query, calculateCost, quote): the service answers, it does not act, and
 * a second one changes nothing (issue 33's shipping-cost case). */
static bool reads_only(const char *url)
{
	static const char *const words[] = {"search", "query",   "calculat", "quote", "estimat",
					    "lookup", "compute", "preview",  "/find", NULL};
	for (const char *const *w = words; *w; w++)
		if (strcasestr(url, *w))
			return true;
	return false;
}

static void post_without_key(struct body_walk *w, TSNode call)
{
	const struct rv_file *f = &w->x->files[w->file];
	if (w->idempotency || !is_post(f, call))
		return;
	TSNode args[3];
	size_t n = rv_args(call, args, 3);
	char url[80] = "";
	/* the first string argument is the address (NewRequest's first is the method) */
	for (size_t i = 0; i < n && !*url; i++) {
		char buf[80];
		if (strstr(ts_node_type(args[i]), "string") &&
		    strcasecmp(rv_unquote(f, args[i], buf, sizeof buf), "POST") != 0)
			snprintf(url, sizeof url, "%s", buf);
	}
	/* a builder's POST(body): the address is in the chain before it (.uri(...)) */
	TSNode chain = rv_field(call, "object");
	if (!*url && !ts_node_is_null(chain)) {
		struct first_string fs = {.found = false};
		rv_walk(chain, first_string_visit, &fs);
		if (fs.found)
			rv_unquote(f, fs.node, url, sizeof url);
	}
	/* url := fmt.Sprintf("https://.../%s/dispatches", ...), then
	 * NewRequest(ctx, http.MethodPost, url, body): the address the local
	 * was built from (its format string, f-string, template) */
	for (size_t i = 0; i < n && !*url; i++) {
		char name[64];
		rv_text(f, args[i], name, sizeof name);
		if (!rv_type(args[i], "identifier") || strstr(name, "ctx") || strstr(name, "context"))
			continue;
		TSNode value = rv_bound_value(f, w->root, name, ts_node_start_byte(call));
		struct first_string fs = {.found = false};
		if (!ts_node_is_null(value))
			rv_walk(value, first_string_visit, &fs);
		if (fs.found)
			rv_unquote(f, fs.node, url, sizeof url);
	}
	if (!*url && n)
		rv_text(f, args[0], url, sizeof url);
	if (reads_only(url))
		return;
	w->rc = hazard(w, HAZARD_POST_WITHOUT_KEY, rv_callee_name(call),
		       "POSTs to %s%s without an idempotency-key header", *url ? url : "an address", "");
}

/* ---- retry loops -------------------------------------------------------- */

static const char *const sleeps[] = {"sleep", "Sleep", "Delay", "setTimeout", "delay", NULL};

struct loop_scan {
	const struct rv_file *f;
	bool sleep, guard;
	bool acts; /* a call in it acts on the world: a POST, a publish, a state write */
};

static bool is_publish(const struct rv_file *f, TSNode call);
static bool is_state_write(const struct rv_file *f, TSNode call);

static bool loop_visit(TSNode n, void *arg)
{
	struct loop_scan *s = arg;
	if (rv_type(n, s->f->lang->call)) {
		TSNode name = rv_callee_name(n);
		for (const char *const *p = sleeps; *p; p++)
			if (rv_is(s->f, name, *p))
				s->sleep = true;
		s->acts |= is_post(s->f, n) || is_publish(s->f, n) || is_state_write(s->f, n);
	}
	if ((s->f->lang->try_statement && rv_type(n, s->f->lang->try_statement)) ||
	    (s->f->lang->lang == REVIEW_GO && rv_type(n, "if_statement")))
		s->guard = true;
	return true;
}

/* A loop whose header counts attempts or retries, or that sleeps between
 * guarded tries; not one that waits for a deadline between reads (it
 * polls: nothing is done again), unless what it repeats acts on the world
 * (a POST, a publish, a state write). */
static bool retry_loop(struct body_walk *w, TSNode loop, char *why, size_t size)
{
	const struct rv_file *f = &w->x->files[w->file];
	TSNode body = rv_field(loop, "body");
	uint32_t a = ts_node_start_byte(loop), b = ts_node_is_null(body) ? a : ts_node_start_byte(body);
	char head[160];
	size_t len = b - a < sizeof head - 1 ? b - a : sizeof head - 1;
	memcpy(head, f->src + a, len);
	head[len] = '\0';
	for (char *c = head; *c; c++)
		if (*c == '\n' || *c == '\t' || *c == '\r')
			*c = ' ';
	char low[160];
	for (size_t i = 0; i <= len; i++)
		low[i] = (char)tolower((unsigned char)head[i]);
	struct loop_scan s = {f, false, false, false};
	rv_walk(body, loop_visit, &s);
	bool counted = strstr(low, "retr") || strstr(low, "attempt") || strstr(low, "tries");
	bool polls = strstr(low, "deadline") || strstr(low, "timeout") || strstr(low, "time.now") ||
		     strstr(low, "date.now") || strstr(low, "elapsed") || strstr(low, "expire");
	if (!counted && !(s.sleep && s.guard && (s.acts || !polls)))
		return false;
	/* the header as written, trimmed: "for attempt in range(3):" */
	/* a comment after the header is not the header */
	for (const char *cm = strstr(head, "  #") ? strstr(head, "  #") : strstr(head, "//"); cm; cm = NULL) {
		len = (size_t)(cm - head);
		head[len] = '\0';
	}
	while (len && (head[len - 1] == ' ' || head[len - 1] == '{' || head[len - 1] == ':'))
		head[--len] = '\0';
	snprintf(why, size, "%s", head);
	return true;
}

/* tenacity's @retry, backoff's @backoff.on_exception on the function */
static void retry_decorator(struct body_walk *w, TSNode def)
{
	const struct rv_file *f = &w->x->files[w->file];
	TSNode dd = ts_node_parent(def);
	if (!rv_type(dd, "decorated_definition"))
		return;
	uint32_t count = ts_node_named_child_count(dd);
	for (uint32_t i = 0; i < count && w->rc == 0; i++) {
		TSNode d = ts_node_named_child(dd, i), expr = ts_node_named_child(d, 0);
		if (!rv_type(d, "decorator"))
			continue;
		if (rv_type(expr, "call"))
			expr = rv_field(expr, "function");
		TSNode last = rv_type(expr, "attribute") ? rv_field(expr, "attribute") : expr;
		char name[64];
		rv_text(f, last, name, sizeof name);
		if (!strcmp(name, "retry") || !strcmp(name, "on_exception") || !strcmp(name, "on_predicate"))
			w->rc = hazard(w, HAZARD_RETRY_LOOP, d, "retries in the body through the @%s%s decorator",
				       name, "");
	}
}

/* ---- read, then write the same key --------------------------------------- */

static const char *const reads[] = {
	"get_state", "GetState", "getState", "GetStateAsync", "GetStateAndETagAsync", "GetStateEntryAsync", NULL};
static const char *const writes[] = {"save_state",        "SaveState",       "saveState",     "SaveStateAsync",
				     "TrySaveStateAsync", "save_bulk_state", "SaveBulkState", NULL};

static bool in_list(const struct rv_file *f, TSNode n, const char *const *list)
{
	for (; *list; list++)
		if (rv_is(f, n, *list))
			return true;
	return false;
}

static bool is_state_write(const struct rv_file *f, TSNode call)
{
	return in_list(f, rv_callee_name(call), writes);
}

/* The key argument of a state call: key=, else the one after the store's
 * name (after Go's context); JavaScript's client.state.save(store, [{key}]). */
static void state_key(const struct rv_file *f, TSNode root, TSNode call, char *out, size_t size)
{
	TSNode kw = rv_named_arg(f, call, "key"), args[4];
	if (!ts_node_is_null(kw)) {
		rv_text(f, kw, out, size);
		return;
	}
	size_t n = rv_args(call, args, 4), skip = 0;
	char buf[64];
	if (n && (strstr(rv_text(f, args[0], buf, sizeof buf), "ctx") || strstr(buf, "context") ||
		  strstr(buf, "Context")))
		skip = 1;
	*out = '\0';
	if (n <= skip + 1)
		return;
	TSNode k = args[skip + 1];
	if (rv_type(k, "array") && ts_node_named_child_count(k))
		k = ts_node_named_child(k, 0);
	if (rv_type(k, "object")) {
		uint32_t m = ts_node_named_child_count(k);
		for (uint32_t j = 0; j < m; j++) {
			TSNode pair = ts_node_named_child(k, j);
			if (rv_is(f, rv_field(pair, "key"), "key"))
				k = rv_field(pair, "value");
			else if (rv_type(pair, "shorthand_property_identifier") && rv_is(f, pair, "key"))
				k = pair; /* {key, value} */
		}
	}
	/* key = f"points-{order['customer']}", then get_state(store, key): the
	 * key is what the local was built as, so a write that spells it out
	 * inline is the same key */
	char name[64];
	TSNode value = {0};
	if (rv_type(k, "identifier") || rv_type(k, "shorthand_property_identifier"))
		value = rv_bound_value(f, root, rv_text(f, k, name, sizeof name), ts_node_start_byte(call));
	rv_text(f, ts_node_is_null(value) ? k : value, out, size);
}

static void state_call(struct body_walk *w, TSNode call)
{
	const struct rv_file *f = &w->x->files[w->file];
	TSNode name = rv_callee_name(call);
	char obj[64];
	bool js_state = strstr(rv_text(f, rv_callee(call), obj, sizeof obj), "state.") != NULL;
	bool read = in_list(f, name, reads) || (js_state && rv_is(f, name, "get"));
	bool write = in_list(f, name, writes) || (js_state && rv_is(f, name, "save"));
	if ((!read && !write) || w->n_state == MAX_STATE)
		return;
	struct state_call *s = &w->state[w->n_state];
	state_key(f, w->root, call, s->key, sizeof s->key);
	if (!*s->key)
		return;
	char text[512];
	rv_text(f, call, text, sizeof text);
	s->etag = strcasestr(text, "etag") != NULL;
	s->write = write;
	s->line = rv_line(name); /* the call's name: a chain (client\n.getState) starts lines before */
	s->node = name;
	w->n_state++;
}

/* The same key, or the same field of two objects (orderItem.ProductId
 * read, productInventory.ProductId written: the product's id both times);
 * a field as bare as "id" or "key" says too little for that. */
static bool same_key(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
	if (!da || !db || strcmp(da, db) != 0 || strlen(da + 1) < 4)
		return false;
	for (const char *p = da + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return strcasecmp(da + 1, "key") != 0 && strcasecmp(da + 1, "name") != 0;
}

static void read_then_write(struct body_walk *w)
{
	for (size_t i = 0; i < w->n_state && w->rc == 0; i++) {
		if (!w->state[i].write)
			continue;
		for (size_t j = 0; j < i; j++) {
			if (w->state[j].write || !same_key(w->state[j].key, w->state[i].key))
				continue;
			char line[32];
			snprintf(line, sizeof line, "%u", w->state[j].line);
			w->rc = hazard(
				w, HAZARD_READ_THEN_WRITE, w->state[i].node,
				w->state[i].etag || w->state[j].etag
					? "reads state key `%s` (line %s), then writes it: the etag does not "
					  "make a re-run safe (the retry reads the new etag)"
					: "reads state key `%s` (line %s), then writes it without a conditional "
					  "write",
				w->state[i].key, line);
			break;
		}
	}
}

/* ---- the walk ------------------------------------------------------------ */

static int scan_function(struct rv_ctx *x, size_t act, size_t file, TSNode def, const char *helper,
			 const struct body_walk *from);

/* Whether a call through an object may reach the project's own function
 * of that name: the object a variable or a module (lower case: URI.create
 * is a library's static method), and the name none that libraries use at
 * every turn (a project's own create() is no lead for client.create()). */
static bool followed_through(const struct rv_file *f, TSNode obj, const char *name)
{
	static const char *const common[] = {"create", "run",     "get",      "set",    "build", "execute",
					     "call",   "start",   "apply",    "close",  "open",  "init",
					     "of",     "valueOf", "toString", "equals", "main",  "parse",
					     "send",   "write",   "read",     "format", NULL};
	for (const char *const *c = common; *c; c++)
		if (strcmp(name, *c) == 0)
			return false;
	char o[64];
	rv_text(f, obj, o, sizeof o);
	return (o[0] >= 'a' && o[0] <= 'z') || o[0] == '_';
}

/* A call into one of the project's functions (a bare name, or through
 * self/this), or into the one function or method of its name the project
 * defines (client.DispatchWorkflow, success.notify: a method of the
 * project's own client, a function of its own module): that helper's
 * body is read too, once. */
static void follow(struct body_walk *w, TSNode call)
{
	const struct rv_file *f = &w->x->files[w->file];
	TSNode callee = rv_callee(call), name = rv_callee_name(call), obj = rv_field(call, "object");
	if (ts_node_is_null(obj) && !ts_node_eq(callee, name)) {
		obj = rv_field(callee, "object");
		if (ts_node_is_null(obj))
			obj = rv_field(callee, "operand");
		if (ts_node_is_null(obj))
			obj = rv_field(callee, "expression");
	}
	bool own = ts_node_is_null(obj) || rv_is(f, obj, "self") || rv_is(f, obj, "this") || rv_is(f, obj, "cls");
	char buf[128];
	rv_text(f, name, buf, sizeof buf);
	if (!own && !followed_through(f, obj, buf))
		return;
	const struct rv_func *def = own ? rv_func_named(w->x, buf, w->file) : rv_func_unique(w->x, buf, w->file);
	if (!def || (def->file == w->file && ts_node_eq(def->node, ts_node_parent(w->root))))
		return;
	if (ts_node_start_byte(def->node) <= ts_node_start_byte(call) &&
	    ts_node_end_byte(def->node) >= ts_node_end_byte(call) && def->file == w->file)
		return; /* recursion */
	for (const struct body_walk *up = w; up; up = up->from)
		if (up->file == def->file && ts_node_eq(up->root, def->node))
			return; /* a helper calling back into its caller */
	char label[160];
	if (w->helper)
		snprintf(label, sizeof label, "%s -> %s()", w->helper, buf);
	else
		snprintf(label, sizeof label, "%s()", buf);
	w->rc = scan_function(w->x, w->act, def->file, def->node, label, w);
}

/* ---- publish without a message id; insert without a key ------------------ */

/* Dapr's publish in each SDK: publish_event, PublishEvent(Async),
 * publishEvent, and JavaScript's client.pubsub.publish. */
static bool is_publish(const struct rv_file *f, TSNode call)
{
	static const char *const names[] = {"publish_event", "PublishEvent", "PublishEventAsync", "publishEvent",
					    NULL};
	TSNode name = rv_callee_name(call);
	if (in_list(f, name, names))
		return true;
	char callee[128];
	rv_text(f, rv_callee(call), callee, sizeof callee);
	if (rv_is(f, name, "publish") && strstr(callee, "pubsub"))
		return true;
	/* Spring's KafkaTemplate and Dapr's DaprMessagingTemplate: send(topic, ...) */
	TSNode obj = rv_field(call, "object");
	char o[96] = "";
	if (!ts_node_is_null(obj))
		rv_text(f, obj, o, sizeof o);
	return (rv_is(f, name, "send") || rv_is(f, name, "sendDefault")) &&
	       (strcasestr(o, "template") || strcasestr(o, "kafka") || strcasestr(o, "messaging"));
}

/* The call's text names a message id Dapr deduplicates on. */
static bool names_message_id(const struct rv_file *f, TSNode call)
{
	static const char *const ids[] = {"cloudevent.id", "messageid", "message_id", NULL};
	uint32_t a = ts_node_start_byte(call), b = ts_node_end_byte(call);
	if (b > f->len)
		return false;
	for (uint32_t i = a; i < b; i++)
		for (const char *const *id = ids; *id; id++)
			if (b - i >= strlen(*id) && strncasecmp(f->src + i, *id, strlen(*id)) == 0)
				return true;
	return false;
}

static void publish_without_id(struct body_walk *w, TSNode call)
{
	const struct rv_file *f = &w->x->files[w->file];
	if (w->idempotency || !is_publish(f, call) || names_message_id(f, call))
		return;
	/* the topic: topic_name=, else the second argument (after the
	 * pub/sub's name; Go's context first) */
	char topic[80] = "";
	TSNode kw = rv_named_arg(f, call, "topic_name"), args[4];
	if (!ts_node_is_null(kw)) {
		rv_unquote(f, kw, topic, sizeof topic);
	} else {
		size_t n = rv_args(call, args, 4), skip = 0;
		char buf[64];
		if (n && (strstr(rv_text(f, args[0], buf, sizeof buf), "ctx") || strstr(buf, "context") ||
			  strstr(buf, "Context")))
			skip = 1;
		if (n > skip + 1)
			rv_unquote(f, args[skip + 1], topic, sizeof topic);
	}
	w->rc = hazard(w, HAZARD_PUBLISH_WITHOUT_ID, rv_callee_name(call),
		       "publishes to topic %s%s with no message id to deduplicate on",
		       *topic ? topic : "(unnamed)", "");
}

/* "INSERT INTO orders ..." with nothing that refuses or merges a repeat. */
static bool plain_insert(const char *s)
{
	char low[256];
	size_t n = strlen(s) < sizeof low - 1 ? strlen(s) : sizeof low - 1;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[n] = '\0';
	const char *at = strstr(low, "insert into");
	if (!at)
		return false;
	static const char *const merges[] = {"on conflict",
					     "on duplicate key",
					     "if not exists",
					     "insert or ignore",
					     "insert or replace",
					     "where not exists",
					     NULL};
	for (const char *const *m = merges; *m; m++)
		if (strstr(low, *m))
			return false;
	return true;
}

static void insert_without_key(struct body_walk *w, TSNode n)
{
	const struct rv_file *f = &w->x->files[w->file];
	if (w->idempotency)
		return;
	if (strstr(ts_node_type(n), "string") && !ts_node_is_null(ts_node_parent(n)) &&
	    !strstr(ts_node_type(ts_node_parent(n)), "string")) {
		char text[256];
		rv_unquote(f, n, text, sizeof text);
		if (!plain_insert(text))
			return;
		char table[64] = "";
		const char *t = strcasestr(text, "insert into");
		if (t && sscanf(t + 11, " %63[A-Za-z0-9_.\"`]", table) != 1)
			*table = '\0';
		w->rc = hazard(w, HAZARD_INSERT_WITHOUT_KEY, n,
			       "inserts into %s with no key that refuses a repeat%s", *table ? table : "a table",
			       " (INSERT INTO, no ON CONFLICT)");
		return;
	}
	static const char *const one[] = {"insert_one",     "insertOne",       "InsertOne",
					  "InsertOneAsync", "insert_many",     "insertMany",
					  "InsertMany",     "InsertManyAsync", NULL};
	if (!rv_type(n, f->lang->call) || !in_list(f, rv_callee_name(n), one))
		return;
	char name[64];
	rv_text(f, rv_callee_name(n), name, sizeof name);
	w->rc = hazard(w, HAZARD_INSERT_WITHOUT_KEY, rv_callee_name(n),
		       "inserts a document (%s) with no key that refuses a repeat%s", name, "");
}

/* ---- amounts applied; messages sent ------------------------------------- */

/* inventory[item] -= qty, self.points += n, order.total += x: an amount
 * applied to something that outlives the call (a plain local is not). */
static void increment(struct body_walk *w, TSNode n)
{
	const struct rv_file *f = &w->x->files[w->file];
	if (!rv_type(n, "augmented_assignment") && !rv_type(n, "augmented_assignment_expression") &&
	    !rv_type(n, "assignment_expression"))
		return;
	TSNode left = rv_field(n, "left"), op = rv_field(n, "operator");
	char o[8] = "";
	if (!ts_node_is_null(op))
		rv_text(f, op, o, sizeof o);
	else if (ts_node_child_count(n) >= 2)
		rv_text(f, ts_node_child(n, 1), o, sizeof o);
	if (strcmp(o, "+=") != 0 && strcmp(o, "-=") != 0)
		return;
	const char *t = ts_node_type(left);
	if (!strcmp(t, "identifier") || !strcmp(t, "expression_list"))
		return;
	char what[96];
	rv_text(f, left, what, sizeof what);
	w->rc = hazard(w, HAZARD_INCREMENT, n, "changes `%s` by an amount (%s)", what, o);
}

static bool name_starts(const char *name, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (strncasecmp(name, *prefixes, strlen(*prefixes)) == 0)
			return true;
	return false;
}

/* Resend's SDKs: resend.emails.send(...), client.Emails.SendWithContext(...) */
static bool resend_send(const struct rv_file *f, TSNode call, const char *name)
{
	char callee[128];
	rv_text(f, rv_callee(call), callee, sizeof callee);
	size_t n = strlen(callee), m = strlen(name);
	if (strncasecmp(name, "send", 4) != 0 || n < m + 7)
		return false;
	return strncasecmp(callee + n - m - 7, "emails.", 7) == 0;
}

/* accountService.debit(...), counter.incrementAndGet(), redis.incr(...);
 * sendMail, send_email, SendSmsAsync, notificationService.sendNotification. */
static void amount_or_message(struct body_walk *w, TSNode call)
{
	const struct rv_file *f = &w->x->files[w->file];
	if (w->idempotency ||
	    (ts_node_is_null(rv_field(call, "object")) && ts_node_eq(rv_callee(call), rv_callee_name(call))))
		return; /* a bare call is the project's own: followed, not judged */
	char name[64];
	rv_text(f, rv_callee_name(call), name, sizeof name);
	/* StackExchange.Redis's StringIncrementAsync, go-redis's HIncrBy */
	static const char *const amounts[] = {"debit",           "credit",        "increment",
					      "decrement",       "incr",          "decr",
					      "addAndGet",       "getAndAdd",     "StringIncrement",
					      "StringDecrement", "HashIncrement", "HashDecrement",
					      "hincr",           "zincr",         NULL};
	static const char *const sends[] = {
		"sendMail",          "send_mail",        "sendEmail", "send_email", "SendEmail",
		"SendMail",          "sendSms",          "send_sms",  "SendSms",    "sendNotification",
		"send_notification", "SendNotification", NULL};
	if (w->guarded)
		return;
	if (name_starts(name, amounts))
		w->rc = hazard(w, HAZARD_INCREMENT, rv_callee_name(call), "applies an amount (%s)%s", name, "");
	else if (name_starts(name, sends) || resend_send(f, call, name))
		w->rc = hazard(w, HAZARD_SEND_WITHOUT_KEY, rv_callee_name(call),
			       "sends a message (%s) with nothing to deduplicate on%s", name, "");
}

static bool body_visit(TSNode n, void *arg)
{
	struct body_walk *w = arg;
	const struct rv_file *f = &w->x->files[w->file];
	if (w->rc < 0)
		return false;
	/* a function defined in the body is not the body (a callback may be) */
	if (!ts_node_eq(n, w->root) && rv_type_in(n, f->lang->functions))
		return false;
	generated_key(w, n);
	if (w->rc == 0)
		insert_without_key(w, n);
	if (w->rc == 0)
		increment(w, n);
	if (w->rc == 0 && rv_type(n, f->lang->call)) {
		post_without_key(w, n);
		if (w->rc == 0)
			publish_without_id(w, n);
		size_t before = w->x->out->activities[w->act].n_hazards;
		if (w->rc == 0)
			amount_or_message(w, n);
		/* a call judged as what it does is not read again inside */
		bool judged = w->x->out->activities[w->act].n_hazards != before;
		state_call(w, n);
		if (w->follow && w->rc == 0 && !judged)
			follow(w, n);
	}
	if (w->rc == 0 && rv_type_in(n, f->lang->loops) && ts_node_start_byte(n) >= w->retry_end) {
		char why[160];
		if (retry_loop(w, n, why, sizeof why)) {
			/* one hazard for the outermost retry loop; the POST it
			 * repeats is one of its own */
			w->rc = hazard(w, HAZARD_RETRY_LOOP, n, "retries in a loop in the body (%s)%s", why, "");
			w->retry_end = ts_node_end_byte(n);
		}
	}
	return true;
}

struct names_key {
	const struct rv_file *f;
	bool found;
};

/* Code (a name, a string), not a comment, that names an idempotency key. */
static bool names_key_visit(TSNode n, void *arg)
{
	struct names_key *k = arg;
	if (k->found || strstr(ts_node_type(n), "comment"))
		return false;
	if (ts_node_child_count(n) == 0 || strstr(ts_node_type(n), "string")) {
		uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
		for (uint32_t i = a; i + 10 <= b && b <= k->f->len && !k->found; i++)
			k->found = strncasecmp(k->f->src + i, "idempotenc", 10) == 0;
		return false;
	}
	return true;
}

struct guard_scan {
	const struct rv_file *f;
	bool found;
};

/* A set-if-absent call: go-redis's SetNX, Jedis's setnx, redis-py's
 * set(..., nx=True), StackExchange.Redis's StringSet(..., When.NotExists),
 * Spring's setIfAbsent, a map's putIfAbsent. The second run finds the
 * record and does nothing (doc/hazards.md: a dedupe key recorded with the
 * send). */
static bool guard_visit(TSNode n, void *arg)
{
	struct guard_scan *g = arg;
	if (g->found)
		return false;
	if (!rv_type(n, g->f->lang->call))
		return true;
	static const char *const names[] = {"SetNX",  "setnx",       "setNX",         "SetNx",       "HSetNX",
					    "hsetnx", "setIfAbsent", "set_if_absent", "putIfAbsent", NULL};
	TSNode name = rv_callee_name(n);
	if (in_list(g->f, name, names)) {
		g->found = true;
		return false;
	}
	TSNode nx = rv_named_arg(g->f, n, "nx");
	if (!ts_node_is_null(nx) && rv_is(g->f, nx, "True")) {
		g->found = true;
		return false;
	}
	char text[256];
	rv_text(g->f, n, text, sizeof text);
	if (strstr(text, "When.NotExists"))
		g->found = true;
	return !g->found;
}

static bool set_if_absent(const struct rv_file *f, TSNode def)
{
	struct guard_scan g = {f, false};
	rv_walk(def, guard_visit, &g);
	return g.found;
}

/* How deep the project's own helpers are read: the body's, and theirs
 * (issue 33: a client's DispatchAndFindRun calls its DispatchWorkflow,
 * which POSTs). */
#define HELPER_DEPTH 2

static int scan_function(struct rv_ctx *x, size_t act, size_t file, TSNode def, const char *helper,
			 const struct body_walk *from)
{
	struct body_walk *w = calloc(1, sizeof *w);
	if (!w)
		return err_oom(x->e);
	w->x = x;
	w->act = act;
	w->file = file;
	w->root = def;
	w->helper = helper;
	w->from = from;
	w->depth = from ? from->depth + 1 : 0;
	w->follow = w->depth < HELPER_DEPTH;
	/* an idempotency key set anywhere in the function covers its POSTs */
	struct names_key nk = {&x->files[file], false};
	rv_walk(def, names_key_visit, &nk);
	w->idempotency = nk.found;
	w->guarded = set_if_absent(&x->files[file], def);
	retry_decorator(w, def);
	if (w->rc == 0)
		rv_walk(def, body_visit, w);
	if (w->rc == 0)
		read_then_write(w);
	int rc = w->rc;
	free(w);
	return rc;
}

int rv_activity_hazards(struct rv_ctx *x)
{
	for (size_t i = 0; i < x->out->n_activities; i++) {
		if (!x->out->activities[i].defined)
			continue;
		if (scan_function(x, i, x->acts[i].file, x->acts[i].def, NULL, NULL) < 0)
			return -1;
	}
	return 0;
}
