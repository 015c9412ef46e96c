#pragma once
/* What the review's files share: the parsed files, the function index,
 * the language table and small helpers over tree-sitter nodes. */

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#include "review.h"

/* A language: the grammar and the node types the review reads, so the
 * walkers below are one code for every language. */
struct review_lang_row {
	enum review_lang lang;
	const char *name;
	const char *const *extensions;
	const TSLanguage *(*grammar)(void); /* NULL: not compiled in (meson -Dreview_csharp=false) */
	const char *call;                   /* a call expression */
	const char *const *functions;       /* definitions with a `name` field */
	const char *const *loops;
	const char *const *lambdas; /* function values: a registration may hold one */
	const char *try_statement;
};
extern const struct review_lang_row review_langs[REVIEW_LANG_COUNT];
const struct review_lang_row *review_lang_of_path(const char *path);

struct rv_file {
	char *path;
	char *src;
	size_t len;
	const struct review_lang_row *lang;
	TSTree *tree;
};

/* A function definition anywhere in the source. */
struct rv_func {
	size_t file;
	TSNode node; /* the definition (for a variable holding a lambda: the lambda) */
	char *name;
};

/* Each activity's definition (or registration) node, beside the output
 * while the hazards are looked for: acts[i] is out->activities[i]'s. */
struct rv_activity_node {
	size_t file;
	TSNode def;
};

struct rv_ctx {
	struct rv_activity_node *acts;
	size_t cap_acts;
	struct rv_file *files;
	size_t n_files, cap_files;
	struct rv_func *funcs;
	size_t n_funcs, cap_funcs;
	struct review *out;
	struct err *e;
	/* a registration's function comes from a list made at run time
	 * (review_register.c) */
	bool dynamic_registration;
};

/* Text of a node: into buf (truncated, NUL-ended), or whether it is s. */
const char *rv_text(const struct rv_file *f, TSNode n, char *buf, size_t size);
bool rv_is(const struct rv_file *f, TSNode n, const char *s);
bool rv_type(TSNode n, const char *type);
bool rv_type_in(TSNode n, const char *const *types);
unsigned rv_line(TSNode n);
TSNode rv_field(TSNode n, const char *field);
/* The called name of a call ("post" of requests.post(...)), and the
 * whole callee ("requests.post"). */
TSNode rv_callee_name(TSNode call);
TSNode rv_callee(TSNode call);
/* A call's arguments (named children of its argument list), up to max. */
size_t rv_args(TSNode call, TSNode *out, size_t max);
/* The value of a named argument (Python's key=, C#'s key:), null node when none. */
TSNode rv_named_arg(const struct rv_file *f, TSNode call, const char *name);
/* A string literal's text without its quotes, else the node's text. */
const char *rv_unquote(const struct rv_file *f, TSNode n, char *buf, size_t size);

/* Pre-order walk without recursion (a deep tree cannot overflow the
 * stack): visit returns false to skip a node's children. */
void rv_walk(TSNode root, bool (*visit)(TSNode n, void *arg), void *arg);

/* The function index: a function's definition by name, in the file's
 * language, the same file first. */
/* Indexes the functions of files[file] (review.c); 0 or -1. */
int rv_index_file(struct rv_ctx *x, size_t file);
/* Frees what the context holds (not the result). */
void rv_ctx_finish(struct rv_ctx *x);
const struct rv_func *rv_func_named(const struct rv_ctx *x, const char *name, size_t file);
/* The one function or method of that name in the project's files of that
 * language; NULL when there is none or more than one. */
const struct rv_func *rv_func_unique(const struct rv_ctx *x, const char *name, size_t file);
/* What `name` is bound to in scope (an assignment or declaration, the
 * last starting before `before`); a null node when nothing binds it. */
TSNode rv_bound_value(const struct rv_file *f, TSNode scope, const char *name, uint32_t before);
/* The body a definition's node holds (its `body` field, else the node). */
TSNode rv_func_body(TSNode def);

/* Adds to the output; -1 when memory ran out (e set). */
struct review_activity *rv_add_activity(struct rv_ctx *x, const char *name, size_t file, TSNode at, bool defined);
int rv_add_hazard(struct rv_ctx *x, struct review_hazard **v, size_t *n, enum review_hazard_kind kind, size_t file,
		  TSNode at, const char *helper, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

/* The steps: activities found (review_find.c), then their hazards
 * (review_hazards.c) and the orchestrators' (review_policy.c). */
int rv_find_activities(struct rv_ctx *x);
/* review_find.c: the function a registration names at `at` (by name, or a
 * lambda in place), as `registered` when given; 0 or -1. */
int rv_register_named(struct rv_ctx *x, size_t file, TSNode fn, const char *registered, TSNode at);
/* review_register.c: a registration's function followed back through a
 * wrapper call, a loop over a list, or a helper's parameter (depth: how
 * far already, 0 at the registration); 0 or -1. */
TSNode rv_unwrap_registered(const struct rv_file *f, TSNode fn);
int rv_register_resolved(struct rv_ctx *x, size_t file, TSNode fn, const char *registered, TSNode at,
			 unsigned depth);
/* With a registration from a list made at run time: the functions shaped
 * like activities in an `activities` folder; 0 or -1. */
int rv_register_dynamic(struct rv_ctx *x);
int rv_activity_hazards(struct rv_ctx *x);
int rv_orchestrator_hazards(struct rv_ctx *x);
/* review_suppress.c: the hazards `catalyst-audit: ignore ID` comments
 * silence, moved to out->suppressed. */
int rv_suppress(struct rv_ctx *x);
