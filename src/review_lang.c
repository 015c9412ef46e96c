/* The languages `review` reads, and the helpers over tree-sitter nodes
 * that make one walker serve them all. */

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "review_internal.h"
#include "version.h"

const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_go(void);
const TSLanguage *tree_sitter_java(void);
const TSLanguage *tree_sitter_typescript(void);
#if CATALYST_REVIEW_CSHARP
const TSLanguage *tree_sitter_c_sharp(void);
#define CSHARP_GRAMMAR tree_sitter_c_sharp
#else
#define CSHARP_GRAMMAR NULL
#endif

#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Node type names from each grammar's src/node-types.json. */
const struct review_lang_row review_langs[REVIEW_LANG_COUNT] = {
	{REVIEW_PYTHON, "python", LIST(".py"), tree_sitter_python, "call", LIST("function_definition"),
	 LIST("for_statement", "while_statement"), LIST("lambda"), "try_statement"},
	{REVIEW_GO, "go", LIST(".go"), tree_sitter_go, "call_expression",
	 LIST("function_declaration", "method_declaration"), LIST("for_statement"), LIST("func_literal"), NULL},
	{REVIEW_JAVA, "java", LIST(".java"), tree_sitter_java, "method_invocation", LIST("method_declaration"),
	 LIST("for_statement", "enhanced_for_statement", "while_statement", "do_statement"),
	 LIST("lambda_expression"), "try_statement"},
	{REVIEW_TYPESCRIPT, "typescript", LIST(".ts", ".js", ".mjs", ".cjs", ".mts", ".cts"),
	 tree_sitter_typescript, "call_expression",
	 /* a Dapr JavaScript workflow is a generator: async function* (ctx, input) */
	 LIST("function_declaration", "method_definition", "function_expression", "generator_function",
	      "generator_function_declaration"),
	 LIST("for_statement", "for_in_statement", "while_statement", "do_statement"),
	 LIST("arrow_function", "function_expression", "generator_function"), "try_statement"},
	{REVIEW_CSHARP, "csharp", LIST(".cs"), CSHARP_GRAMMAR, "invocation_expression",
	 LIST("method_declaration", "local_function_statement"),
	 LIST("for_statement", "foreach_statement", "while_statement", "do_statement"), LIST("lambda_expression"),
	 "try_statement"},
};

const char *review_lang_name(enum review_lang l)
{
	return (unsigned)l < REVIEW_LANG_COUNT ? review_langs[l].name : "?";
}

const struct review_lang_row *review_lang_of_path(const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < REVIEW_LANG_COUNT; i++) {
		if (!review_langs[i].grammar)
			continue;
		for (const char *const *x = review_langs[i].extensions; *x; x++)
			if (n > strlen(*x) && strcasecmp(path + n - strlen(*x), *x) == 0)
				return &review_langs[i];
	}
	return NULL;
}

const char *rv_text(const struct rv_file *f, TSNode n, char *buf, size_t size)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (ts_node_is_null(n) || b > f->len || a > b)
		a = b = 0;
	size_t len = b - a < size - 1 ? b - a : size - 1;
	memcpy(buf, f->src + a, len);
	buf[len] = '\0';
	return buf;
}

bool rv_is(const struct rv_file *f, TSNode n, const char *s)
{
	if (ts_node_is_null(n))
		return false;
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	return b <= f->len && a <= b && b - a == strlen(s) && memcmp(f->src + a, s, b - a) == 0;
}

bool rv_type(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

bool rv_type_in(TSNode n, const char *const *types)
{
	for (; types && *types; types++)
		if (rv_type(n, *types))
			return true;
	return false;
}

unsigned rv_line(TSNode n)
{
	return ts_node_start_point(n).row + 1;
}

TSNode rv_field(TSNode n, const char *field)
{
	if (ts_node_is_null(n))
		return n;
	return ts_node_child_by_field_name(n, field, (uint32_t)strlen(field));
}

TSNode rv_callee(TSNode call)
{
	TSNode fn = rv_field(call, "function");
	if (ts_node_is_null(fn))
		fn = rv_field(call, "name"); /* Java: object.name(arguments) */
	return fn;
}

/* The last name of an expression: requests.post -> post, Foo<T> -> Foo. */
static TSNode last_name(TSNode n)
{
	static const char *const parts[] = {"attribute", "field", "property", "name"};
	for (int depth = 0; depth < 8 && !ts_node_is_null(n); depth++) {
		TSNode next = {0};
		for (size_t i = 0; i < sizeof parts / sizeof *parts && ts_node_is_null(next); i++)
			next = rv_field(n, parts[i]);
		if (ts_node_is_null(next) && rv_type(n, "generic_name") && ts_node_named_child_count(n))
			next = ts_node_named_child(n, 0);
		if (ts_node_is_null(next))
			return n;
		n = next;
	}
	return n;
}

TSNode rv_callee_name(TSNode call)
{
	TSNode name = rv_field(call, "name");
	if (!ts_node_is_null(name) && rv_type(call, "method_invocation"))
		return name;
	return last_name(rv_field(call, "function"));
}

size_t rv_args(TSNode call, TSNode *out, size_t max)
{
	TSNode list = rv_field(call, "arguments");
	size_t n = 0;
	if (ts_node_is_null(list))
		return 0;
	uint32_t count = ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count && n < max; i++) {
		TSNode a = ts_node_named_child(list, i);
		if (rv_type(a, "comment"))
			continue;
		/* C#'s argument wraps the expression */
		if (rv_type(a, "argument") && ts_node_named_child_count(a))
			a = ts_node_named_child(a, ts_node_named_child_count(a) - 1);
		out[n++] = a;
	}
	return n;
}

TSNode rv_named_arg(const struct rv_file *f, TSNode call, const char *name)
{
	TSNode list = rv_field(call, "arguments"), none = {0};
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(list, i);
		if ((rv_type(a, "keyword_argument") || rv_type(a, "argument")) &&
		    rv_is(f, rv_field(a, "name"), name)) {
			TSNode v = rv_field(a, "value");
			if (ts_node_is_null(v) && ts_node_named_child_count(a))
				v = ts_node_named_child(a, ts_node_named_child_count(a) - 1);
			return v;
		}
	}
	return none;
}

const char *rv_unquote(const struct rv_file *f, TSNode n, char *buf, size_t size)
{
	rv_text(f, n, buf, size);
	size_t len = strlen(buf);
	const char *t = ts_node_is_null(n) ? "" : ts_node_type(n);
	if (strstr(t, "string") && len >= 2 && (buf[0] == '"' || buf[0] == '\'' || buf[0] == '`') &&
	    buf[len - 1] == buf[0]) {
		memmove(buf, buf + 1, len - 2);
		buf[len - 2] = '\0';
	}
	return buf;
}

void rv_walk(TSNode root, bool (*visit)(TSNode n, void *arg), void *arg)
{
	if (ts_node_is_null(root))
		return;
	TSTreeCursor c = ts_tree_cursor_new(root);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		if (visit(n, arg) && ts_tree_cursor_goto_first_child(&c))
			continue;
		/* up until a next sibling, never above root */
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c))
				goto out;
		}
	}
out:
	ts_tree_cursor_delete(&c);
}

TSNode rv_func_body(TSNode def)
{
	TSNode b = rv_field(def, "body");
	return ts_node_is_null(b) ? def : b;
}
