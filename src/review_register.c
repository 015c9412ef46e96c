/* Registrations made at run time (issue 33): the function handed to
 * register_activity is not always named there. It may be wrapped
 * (register_activity(with_tracing(fn))), a loop's variable over a list
 * (for fn in [charge, refund]), or a parameter of the project's own
 * helper (def register(fn): ...) that other code calls with the
 * function. Each is followed back to the functions a reader would find;
 * when the trail ends in a list the code builds at run time (a package
 * scanned with importlib), the registration is marked dynamic and the
 * functions shaped like the SDK's activities in an `activities` folder
 * are taken as activities. */

#include <stdint.h>
#include <string.h>

#include "review_internal.h"

/* How far a name is followed back: a loop inside a helper, called from a
 * loop. */
#define RESOLVE_DEPTH 3

/* register(with_tracing(fn)) -> fn: a call whose first argument names a
 * function (the registration's own lambda is not unwrapped). */
TSNode rv_unwrap_registered(const struct rv_file *f, TSNode fn)
{
	for (int i = 0; i < 2 && rv_type(fn, f->lang->call); i++) {
		TSNode args[1];
		if (rv_args(fn, args, 1) != 1)
			break;
		if (!rv_type(args[0], "identifier") && !rv_type(args[0], "attribute") &&
		    !rv_type(args[0], "selector_expression") && !rv_type(args[0], "member_expression") &&
		    !rv_type(args[0], f->lang->call))
			break;
		fn = args[0];
	}
	return fn;
}

static bool list_like(TSNode n)
{
	return rv_type(n, "list") || rv_type(n, "tuple") || rv_type(n, "array") ||
	       rv_type(n, "composite_literal") || rv_type(n, "array_creation_expression") ||
	       rv_type(n, "collection_expression");
}

/* The elements of a list literal; Go's []T{a, b} holds them in its body. */
static size_t elements(TSNode list, TSNode *out, size_t max)
{
	TSNode holder = rv_type(list, "composite_literal") ? rv_field(list, "body") : list;
	size_t n = 0;
	uint32_t count = ts_node_is_null(holder) ? 0 : ts_node_named_child_count(holder);
	for (uint32_t i = 0; i < count && n < max; i++) {
		TSNode e = ts_node_named_child(holder, i);
		if (rv_type(e, "literal_element") && ts_node_named_child_count(e))
			e = ts_node_named_child(e, 0);
		if (!strstr(ts_node_type(e), "comment"))
			out[n++] = e;
	}
	return n;
}

/* The collection a loop ranges over, when its variable is `name`: Python's
 * for x in C, Go's for _, x := range C, JavaScript's for (const x of C). */
static TSNode loop_over(const struct rv_file *f, TSNode loop, const char *name)
{
	TSNode left = rv_field(loop, "left"), right = rv_field(loop, "right");
	if (rv_type(loop, "for_statement") && f->lang->lang == REVIEW_GO) {
		TSNode clause = {0};
		for (uint32_t i = 0; i < ts_node_named_child_count(loop); i++)
			if (rv_type(ts_node_named_child(loop, i), "range_clause"))
				clause = ts_node_named_child(loop, i);
		if (ts_node_is_null(clause))
			return (TSNode){0};
		left = rv_field(clause, "left");
		right = rv_field(clause, "right");
		/* for _, a := range: the value is the last name */
		if (rv_type(left, "expression_list") && ts_node_named_child_count(left))
			left = ts_node_named_child(left, ts_node_named_child_count(left) - 1);
	}
	if (ts_node_is_null(left) || ts_node_is_null(right) || !rv_is(f, left, name))
		return (TSNode){0};
	return right;
}

/* The index of parameter `name` of function fn, -1 when it has none. */
static int param_index(const struct rv_file *f, TSNode fn, const char *name)
{
	TSNode params = rv_field(fn, "parameters");
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	int index = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (strstr(ts_node_type(p), "comment"))
			continue;
		TSNode id = p;
		if (!rv_type(p, "identifier")) {
			id = rv_field(p, "name");
			if (ts_node_is_null(id))
				id = rv_field(p, "pattern");
			if (ts_node_is_null(id) && ts_node_named_child_count(p))
				id = ts_node_named_child(p, 0);
		}
		if (!ts_node_is_null(id) && rv_is(f, id, name))
			return index;
		index++;
	}
	return -1;
}

struct caller_walk {
	struct rv_ctx *x;
	size_t file;
	const char *name;
	int index;
	unsigned depth;
	int rc;
};

static bool caller_visit(TSNode n, void *arg)
{
	struct caller_walk *c = arg;
	const struct rv_file *f = &c->x->files[c->file];
	if (c->rc < 0)
		return false;
	if (!rv_type(n, f->lang->call) || !rv_is(f, rv_callee_name(n), c->name))
		return true;
	TSNode args[8];
	size_t n_args = rv_args(n, args, 8);
	if ((size_t)c->index < n_args)
		c->rc = rv_register_resolved(c->x, c->file, args[c->index], NULL, n, c->depth + 1);
	return true;
}

/* What a registration names, followed back from `fn` at `at`: a function
 * (registered as such), the elements of a list it loops over, or what the
 * callers of the helper whose parameter it is pass. */
int rv_register_resolved(struct rv_ctx *x, size_t file, TSNode fn, const char *registered, TSNode at,
			 unsigned depth)
{
	const struct rv_file *f = &x->files[file];
	fn = rv_unwrap_registered(f, fn);
	if (!rv_type(fn, "identifier") || depth > RESOLVE_DEPTH)
		return rv_register_named(x, file, fn, registered, at);
	char name[128];
	rv_text(f, fn, name, sizeof name);
	/* a loop's variable: what it ranges over (a local name first: a
	 * function of that name elsewhere is not the one registered) */
	TSNode fun = at;
	for (TSNode p = ts_node_parent(at); !ts_node_is_null(p); p = ts_node_parent(p)) {
		if (rv_type_in(p, f->lang->functions) || rv_type_in(p, f->lang->lambdas)) {
			fun = p;
			break;
		}
		if (!rv_type_in(p, f->lang->loops))
			continue;
		TSNode over = loop_over(f, p, name);
		if (ts_node_is_null(over))
			continue;
		if (rv_type(over, "identifier")) {
			char list[128];
			over = rv_bound_value(f, ts_tree_root_node(f->tree), rv_text(f, over, list, sizeof list),
					      UINT32_MAX);
		}
		if (ts_node_is_null(over) || !list_like(over)) {
			x->dynamic_registration = true; /* a list made at run time */
			return 0;
		}
		TSNode el[64];
		size_t n = elements(over, el, 64);
		for (size_t i = 0; i < n; i++)
			if (rv_register_resolved(x, file, el[i], NULL, p, depth + 1) < 0)
				return -1;
		return 0;
	}
	/* a parameter of the project's helper: what its callers pass */
	int index = ts_node_eq(fun, at) ? -1 : param_index(f, fun, name);
	if (index < 0) /* a name of the file, or a local: as registered */
		return rv_register_named(x, file, fn, registered, at);
	char helper[128];
	TSNode hname = rv_field(fun, "name");
	if (ts_node_is_null(hname) && rv_type(ts_node_parent(fun), "variable_declarator"))
		hname = rv_field(ts_node_parent(fun), "name");
	if (ts_node_is_null(hname))
		return 0;
	rv_text(f, hname, helper, sizeof helper);
	for (size_t i = 0; i < x->n_files; i++) {
		if (x->files[i].lang != f->lang)
			continue;
		struct caller_walk c = {x, i, helper, index, depth, 0};
		rv_walk(ts_tree_root_node(x->files[i].tree), caller_visit, &c);
		if (c.rc < 0)
			return -1;
	}
	return 0;
}

/* def name(ctx, input): public, at the top of a file in an `activities`
 * folder: how a project that registers a scanned package shapes its
 * activities (the SDK calls an activity with its context and one input). */
static bool activity_shaped(const struct rv_file *f, TSNode fn)
{
	char name[128];
	rv_text(f, rv_field(fn, "name"), name, sizeof name);
	if (!*name || name[0] == '_')
		return false;
	TSNode params = rv_field(fn, "parameters");
	if (ts_node_is_null(params) || ts_node_named_child_count(params) != 2)
		return false;
	return param_index(f, fn, "ctx") == 0 || param_index(f, fn, "context") == 0;
}

int rv_register_dynamic(struct rv_ctx *x)
{
	if (!x->dynamic_registration)
		return 0;
	for (size_t i = 0; i < x->n_files; i++) {
		const struct rv_file *f = &x->files[i];
		if (f->lang->lang != REVIEW_PYTHON || !strstr(f->path, "activities/"))
			continue;
		TSNode root = ts_tree_root_node(f->tree);
		for (uint32_t k = 0; k < ts_node_named_child_count(root); k++) {
			TSNode fn = ts_node_named_child(root, k);
			if (rv_type(fn, "decorated_definition"))
				fn = rv_field(fn, "definition");
			if (!rv_type(fn, "function_definition") || !activity_shaped(f, fn))
				continue;
			char name[128];
			rv_text(f, rv_field(fn, "name"), name, sizeof name);
			if (!rv_add_activity(x, name, i, fn, true))
				return -1;
		}
	}
	return 0;
}
