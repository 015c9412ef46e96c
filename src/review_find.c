/* The activities, found the way each SDK declares them: Python's
 * `@…activity` decorators and register_activity, Go's AddActivity /
 * RegisterActivity (the function often in another file), C# classes
 * deriving WorkflowActivity<,>, Java classes implementing
 * WorkflowActivity, JavaScript/TypeScript's registerActivity. Tree-sitter
 * query predicates (#eq?, #match?) are not applied by its C library, so
 * the tree is walked and names are compared here. */

#include <string.h>

#include "review_internal.h"

struct find_walk {
	struct rv_ctx *x;
	size_t file;
	int rc;
};

struct declared_walk {
	const struct rv_file *f;
	const char *name;
	uint32_t before;
	bool found;
};

static bool declared_visit(TSNode n, void *arg)
{
	struct declared_walk *d = arg;
	if (d->found || ts_node_start_byte(n) >= d->before)
		return false;
	if (rv_type(n, "identifier") && rv_is(d->f, n, d->name)) {
		TSNode p = ts_node_parent(n);
		d->found = !rv_type(p, "argument_list") && !rv_type(p, "arguments");
	}
	return true;
}

/* Whether name is bound before the call in the function around it (a
 * loop variable, a local): then it is no function's name. */
static bool declared_before(const struct rv_file *f, TSNode call, const char *name)
{
	TSNode fn = call;
	while (!ts_node_is_null(fn) && !rv_type_in(fn, f->lang->functions))
		fn = ts_node_parent(fn);
	if (ts_node_is_null(fn))
		return false;
	struct declared_walk d = {f, name, ts_node_start_byte(call), false};
	rv_walk(rv_func_body(fn), declared_visit, &d);
	return d.found;
}

/* A registered function: by name (the index, the same file first), or a
 * lambda given in place. */
int rv_register_named(struct rv_ctx *x, size_t file, TSNode fn, const char *registered, TSNode at)
{
	struct rv_file *f = &x->files[file];
	char name[256];
	if (rv_type_in(fn, f->lang->lambdas))
		return rv_add_activity(x, registered ? registered : "(lambda)", file, fn, true) ? 0 : -1;
	TSNode last = fn;
	/* activities.Charge, ChargeCard.class, self.charge: the last name */
	while (ts_node_named_child_count(last) && !rv_type(last, "identifier")) {
		TSNode n = rv_field(last, "field");
		if (ts_node_is_null(n))
			n = rv_field(last, "attribute");
		if (ts_node_is_null(n))
			n = rv_field(last, "property");
		if (ts_node_is_null(n))
			n = ts_node_named_child(last, ts_node_named_child_count(last) - 1);
		last = n;
	}
	rv_text(f, last, name, sizeof name);
	if (!*name || strchr(name, '(') || strchr(name, '"'))
		return 0;
	const struct rv_func *def = rv_func_named(x, name, file);
	if (!def && declared_before(f, at, name))
		return 0; /* for _, a := range acts { RegisterActivity(a) }: a variable, not a function */
	if (def)
		return rv_add_activity(x, registered ? registered : name, def->file, def->node, true) ? 0 : -1;
	return rv_add_activity(x, registered ? registered : name, file, at, false) ? 0 : -1;
}

static bool is_string(TSNode n)
{
	return !ts_node_is_null(n) && strstr(ts_node_type(n), "string") != NULL;
}

/* register_activity(fn[, name=]), AddActivity(fn), RegisterActivity(fn),
 * AddActivityN("name", fn), registerActivity(fn),
 * registerActivityWithName("name", fn). */
static int registration(struct find_walk *w, TSNode call)
{
	struct rv_file *f = &w->x->files[w->file];
	TSNode name = rv_callee_name(call);
	/* durabletask's own workers too: add_activity (Python), addActivity and
	 * addNamedActivity (JavaScript), AddActivityFunc (.NET) */
	static const char *const calls[] = {"register_activity", "AddActivity",      "RegisterActivity",
					    "AddActivityN",      "registerActivity", "registerActivityWithName",
					    "add_activity",      "addActivity",      "addNamedActivity",
					    "AddActivityFunc"};
	bool known = false;
	for (size_t i = 0; i < sizeof calls / sizeof *calls && !known; i++)
		known = rv_is(f, name, calls[i]);
	if (!known)
		return 0;
	TSNode args[3];
	size_t n = rv_args(call, args, 3);
	if (n == 0)
		return 0;
	char reg[256];
	const char *registered = NULL;
	TSNode fn = args[0];
	if (n >= 2 && is_string(args[0])) {
		registered = rv_unquote(f, args[0], reg, sizeof reg);
		fn = args[1];
	}
	TSNode kw = rv_named_arg(f, call, "name");
	if (is_string(kw))
		registered = rv_unquote(f, kw, reg, sizeof reg);
	/* Java's registerActivity(Charge.class) names a class: found as a class */
	if (f->lang->lang == REVIEW_JAVA)
		return 0;
	return rv_register_resolved(w->x, w->file, fn, registered, call, 0);
}

/* @wfr.activity, @activity, @runtime.activity(name="charge") */
static int decorated(struct find_walk *w, TSNode dd)
{
	struct rv_file *f = &w->x->files[w->file];
	TSNode def = rv_field(dd, "definition");
	if (!rv_type(def, "function_definition"))
		return 0;
	uint32_t count = ts_node_named_child_count(dd);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(dd, i);
		if (!rv_type(d, "decorator") || !ts_node_named_child_count(d))
			continue;
		TSNode expr = ts_node_named_child(d, 0), call = {0};
		if (rv_type(expr, "call")) {
			call = expr;
			expr = rv_field(expr, "function");
		}
		TSNode last = rv_type(expr, "attribute") ? rv_field(expr, "attribute") : expr;
		if (!rv_is(f, last, "activity"))
			continue;
		char reg[256], name[256];
		TSNode kw = ts_node_is_null(call) ? call : rv_named_arg(f, call, "name");
		const char *registered = is_string(kw) ? rv_unquote(f, kw, reg, sizeof reg)
						       : rv_text(f, rv_field(def, "name"), name, sizeof name);
		return rv_add_activity(w->x, registered, w->file, def, true) ? 0 : -1;
	}
	return 0;
}

/* Whether a class's bases name `base` (WorkflowActivity, WorkflowActivity<A, B>). */
static bool class_derives(const struct rv_file *f, TSNode cls, const char *base)
{
	uint32_t count = ts_node_named_child_count(cls);
	for (uint32_t i = 0; i < count; i++) {
		TSNode b = ts_node_named_child(cls, i);
		if (!rv_type(b, "base_list") && !rv_type(b, "super_interfaces"))
			continue;
		/* the bases' identifiers, one level into generic names and type lists */
		TSNode stack[16];
		size_t n = 0;
		stack[n++] = b;
		while (n) {
			TSNode t = stack[--n];
			if ((rv_type(t, "identifier") || rv_type(t, "type_identifier")) && rv_is(f, t, base))
				return true;
			uint32_t k = ts_node_named_child_count(t);
			for (uint32_t j = 0; j < k && n < 16; j++) {
				TSNode c = ts_node_named_child(t, j);
				if (!rv_type(c, "type_argument_list") && !rv_type(c, "type_arguments"))
					stack[n++] = c;
			}
		}
	}
	return false;
}

/* C#: class X : WorkflowActivity<I, O> { RunAsync }; Java: class X
 * implements WorkflowActivity { run }. */
static int activity_class(struct find_walk *w, TSNode cls)
{
	struct rv_file *f = &w->x->files[w->file];
	if (!class_derives(f, cls, "WorkflowActivity"))
		return 0;
	const char *method = f->lang->lang == REVIEW_JAVA ? "run" : "RunAsync";
	char name[256];
	rv_text(f, rv_field(cls, "name"), name, sizeof name);
	TSNode body = rv_field(cls, "body");
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(body, i);
		if (rv_type(m, "method_declaration") && rv_is(f, rv_field(m, "name"), method))
			return rv_add_activity(w->x, name, w->file, m, true) ? 0 : -1;
	}
	return rv_add_activity(w->x, name, w->file, cls, true) ? 0 : -1;
}

/* literal_element wraps the key and the value of a Go keyed element. */
static TSNode unwrap_element(TSNode n)
{
	return rv_type(n, "literal_element") && ts_node_named_child_count(n) ? ts_node_named_child(n, 0) : n;
}

/* Go registers from a table too: map[string]func(workflow.ActivityContext)
 * (any, error){"Name": pkg.Fn, ...}, ranged over into AddActivityN(name,
 * fn). Each entry is an activity under its key's name. */
static int activity_table(struct find_walk *w, TSNode lit)
{
	struct rv_file *f = &w->x->files[w->file];
	char type[256];
	if (!strstr(rv_text(f, rv_field(lit, "type"), type, sizeof type), "ActivityContext"))
		return 0;
	TSNode body = rv_field(lit, "body");
	uint32_t n = ts_node_named_child_count(body);
	for (uint32_t i = 0; i < n; i++) {
		TSNode el = ts_node_named_child(body, i);
		if (!rv_type(el, "keyed_element") || ts_node_named_child_count(el) != 2)
			continue;
		TSNode key = unwrap_element(ts_node_named_child(el, 0)),
		       value = unwrap_element(ts_node_named_child(el, 1));
		char reg[256];
		if (is_string(key) &&
		    rv_register_named(w->x, w->file, value, rv_unquote(f, key, reg, sizeof reg), el) < 0)
			return -1;
	}
	return 0;
}

static bool find_visit(TSNode n, void *arg)
{
	struct find_walk *w = arg;
	const struct rv_file *f = &w->x->files[w->file];
	if (w->rc < 0)
		return false;
	if (rv_type(n, f->lang->call))
		w->rc = registration(w, n);
	else if (rv_type(n, "decorated_definition"))
		w->rc = decorated(w, n);
	else if (f->lang->lang == REVIEW_GO && rv_type(n, "composite_literal"))
		w->rc = activity_table(w, n);
	else if (rv_type(n, "class_declaration") &&
		 (f->lang->lang == REVIEW_CSHARP || f->lang->lang == REVIEW_JAVA))
		w->rc = activity_class(w, n);
	return true;
}

/* The first parameter's type, as written ("WorkflowActivityContext",
 * "workflow.ActivityContext"); "" when it has none. */
static void first_param_type(const struct rv_file *f, TSNode fn, char *out, size_t size)
{
	*out = '\0';
	TSNode params = rv_field(fn, "parameters");
	if (ts_node_is_null(params) || !ts_node_named_child_count(params))
		return;
	TSNode p = ts_node_named_child(params, 0);
	TSNode t = rv_field(p, "type");
	if (!ts_node_is_null(t))
		rv_text(f, t, out, size);
}

/* The name a function goes by: its own, the variable it is bound to, or
 * the key it is stored under (registry.set("action_mail", function ...)). */
static bool function_name(const struct rv_file *f, TSNode fn, char *out, size_t size)
{
	TSNode name = rv_field(fn, "name");
	TSNode parent = ts_node_parent(fn);
	if (rv_type(parent, "arguments") || rv_type(parent, "argument_list")) {
		TSNode first = ts_node_named_child(parent, 0);
		if (is_string(first) && !ts_node_eq(first, fn)) {
			rv_unquote(f, first, out, size);
			return *out != '\0';
		}
	}
	if (ts_node_is_null(name) && rv_type(parent, "variable_declarator"))
		name = rv_field(parent, "name");
	if (ts_node_is_null(name))
		return false;
	rv_text(f, name, out, size);
	return *out != '\0';
}

/* An activity by its signature: a function whose first parameter is the
 * SDK's activity context (TypeScript's WorkflowActivityContext, Python's
 * annotated ctx, Go's workflow.ActivityContext), however it is registered
 * (a table, a loop, a wrapper): the SDK calls nothing else so. */
static bool signature_visit(TSNode n, void *arg)
{
	struct find_walk *w = arg;
	const struct rv_file *f = &w->x->files[w->file];
	if (w->rc < 0)
		return false;
	if (!rv_type_in(n, f->lang->functions) && !rv_type_in(n, f->lang->lambdas))
		return true;
	char type[128], name[256];
	first_param_type(f, n, type, sizeof type);
	bool context = strstr(type, "WorkflowActivityContext") ||
		       (f->lang->lang == REVIEW_GO && strstr(type, "ActivityContext"));
	if (context && function_name(f, n, name, sizeof name) && !rv_add_activity(w->x, name, w->file, n, true))
		w->rc = -1;
	return true;
}

int rv_find_activities(struct rv_ctx *x)
{
	for (size_t i = 0; i < x->n_files; i++) {
		struct find_walk w = {x, i, 0};
		rv_walk(ts_tree_root_node(x->files[i].tree), find_visit, &w);
		if (w.rc < 0)
			return -1;
	}
	if (rv_register_dynamic(x) < 0)
		return -1;
	/* After the registrations, which name an activity as the history
	 * does: a function found both ways keeps its registered name. */
	for (size_t i = 0; i < x->n_files; i++) {
		enum review_lang l = x->files[i].lang->lang;
		if (l != REVIEW_TYPESCRIPT && l != REVIEW_PYTHON && l != REVIEW_GO)
			continue;
		struct find_walk w = {x, i, 0};
		rv_walk(ts_tree_root_node(x->files[i].tree), signature_visit, &w);
		if (w.rc < 0)
			return -1;
	}
	return 0;
}
