/* `review`'s ground floor: the result's activities and hazards, the index
 * of every function of the files read, and the context's lifetime. The
 * driver that reads the files and runs the finders is review_driver.c;
 * the finders are review_find.c, review_hazards.c and review_policy.c. */

#include "review.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "review_internal.h"
#include "escape.h"

void review_init(struct review *rv)
{
	memset(rv, 0, sizeof *rv);
}

static void hazards_free(struct review_hazard *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].file);
		free(h[i].detail);
		free(h[i].helper);
		free(h[i].why);
		free(h[i].fix);
	}
	free(h);
}

void review_finish(struct review *rv)
{
	if (!rv)
		return;
	for (size_t i = 0; i < rv->n_activities; i++) {
		free(rv->activities[i].name);
		free(rv->activities[i].file);
		hazards_free(rv->activities[i].hazards, rv->activities[i].n_hazards);
	}
	free(rv->activities);
	hazards_free(rv->orchestrator, rv->n_orchestrator);
	for (size_t i = 0; i < rv->n_suppressed; i++) {
		struct review_hazard *h = &rv->suppressed[i].hazard;
		free(h->file);
		free(h->detail);
		free(h->helper);
		free(h->why);
		free(h->fix);
		free(rv->suppressed[i].activity);
		free(rv->suppressed[i].reason);
	}
	free(rv->suppressed);
	for (size_t i = 0; i < rv->n_roots; i++)
		free(rv->roots[i]);
	free(rv->roots);
	review_init(rv);
}

/* ---- output ----------------------------------------------------------- */

/* What the code does, without the line numbers it quotes: those move
 * with every edit above them. */
void review_fingerprint(const struct review *rv, const struct review_hazard *h, const char *activity, char out[33])
{
	size_t root;
	const char *rule = review_hazard_rows[h->kind].id, *rel = review_relative_path(rv, h->file, &root),
		   *detail = h->detail;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	out[0] = '\0';
	if (!md)
		return;
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	const char *parts[] = {rule, rel, activity};
	for (size_t i = 0; i < 3; i++)
		EVP_DigestUpdate(md, parts[i], strlen(parts[i]) + 1);
	for (const char *p = detail; *p; p++) {
		if (strncmp(p, "line ", 5) == 0 && p[5] >= '0' && p[5] <= '9') {
			p += 5;
			while (p[1] >= '0' && p[1] <= '9')
				p++;
			continue;
		}
		EVP_DigestUpdate(md, p, 1);
	}
	EVP_DigestFinal_ex(md, digest, &len);
	EVP_MD_CTX_free(md);
	for (unsigned i = 0; i < 16 && i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

const char *review_relative_path(const struct review *rv, const char *file, size_t *root)
{
	size_t best = 0, best_len = 0;
	bool found = false;
	for (size_t i = 0; i < rv->n_roots; i++) {
		const char *r = rv->roots[i];
		size_t n = strlen(r);
		while (n > 1 && r[n - 1] == '/')
			n--;
		bool under = strcmp(r, ".") == 0 || (strncmp(file, r, n) == 0 && (file[n] == '/' || n == 1));
		if (under && (!found || n > best_len)) {
			best = i;
			best_len = strcmp(r, ".") == 0 ? 0 : n;
			found = true;
		}
	}
	const char *p = file + best_len;
	while (*p == '/')
		p++;
	while (strncmp(p, "./", 2) == 0)
		p += 2;
	*root = best;
	return p;
}

struct review_activity *rv_add_activity(struct rv_ctx *x, const char *name, size_t file, TSNode at, bool defined)
{
	struct review *rv = x->out;
	/* one activity per definition: a decorator and a register call, or two
	 * registrations, name the same function */
	for (size_t i = 0; i < rv->n_activities; i++)
		if (x->acts[i].file == file && ts_node_start_byte(x->acts[i].def) == ts_node_start_byte(at) &&
		    rv->activities[i].defined == defined)
			return &rv->activities[i];
	if (rv->n_activities == x->cap_acts) {
		size_t cap = x->cap_acts ? 2 * x->cap_acts : 16;
		struct review_activity *a = realloc(rv->activities, cap * sizeof *a);
		if (a)
			rv->activities = a;
		struct rv_activity_node *n = a ? realloc(x->acts, cap * sizeof *n) : NULL;
		if (!n) {
			err_oom(x->e);
			return NULL;
		}
		x->acts = n;
		x->cap_acts = cap;
	}
	struct review_activity *a = &rv->activities[rv->n_activities];
	memset(a, 0, sizeof *a);
	/* The code's bytes need not be UTF-8; what every format writes must. */
	a->name = escape_utf8_repair_dup(name);
	a->file = escape_utf8_repair_dup(x->files[file].path);
	if (!a->name || !a->file) {
		free(a->name);
		free(a->file);
		err_oom(x->e);
		return NULL;
	}
	a->lang = x->files[file].lang->lang;
	a->line = rv_line(at);
	a->defined = defined;
	x->acts[rv->n_activities] = (struct rv_activity_node){file, at};
	rv->n_activities++;
	return a;
}

struct binding_walk {
	const struct rv_file *f;
	const char *name;
	uint32_t before;
	TSNode value;
};

static bool binding_visit(TSNode n, void *arg)
{
	struct binding_walk *b = arg;
	if (ts_node_start_byte(n) >= b->before)
		return false;
	TSNode name = {0}, value = {0};
	if (rv_type(n, "assignment")) {
		name = rv_field(n, "left");
		value = rv_field(n, "right");
	} else if (rv_type(n, "variable_declarator") || rv_type(n, "var_spec")) {
		name = rv_field(n, "name");
		value = rv_field(n, "value");
	} else if (rv_type(n, "short_var_declaration")) {
		name = rv_field(n, "left");
		value = rv_field(n, "right");
	}
	if (!ts_node_is_null(value) && rv_type(value, "expression_list") && ts_node_named_child_count(value) == 1)
		value = ts_node_named_child(value, 0);
	if (!ts_node_is_null(name) && rv_type(name, "expression_list") && ts_node_named_child_count(name) == 1)
		name = ts_node_named_child(name, 0);
	if (!ts_node_is_null(name) && !ts_node_is_null(value) && rv_is(b->f, name, b->name))
		b->value = value;
	return true;
}

/* NAME = value, const NAME = value, NAME := value, var NAME = value in
 * scope, the last one starting before `before`: what a name holds. */
TSNode rv_bound_value(const struct rv_file *f, TSNode scope, const char *name, uint32_t before)
{
	struct binding_walk b = {.f = f, .name = name, .before = before};
	rv_walk(scope, binding_visit, &b);
	return b.value;
}

/* Bytes a..b of f on one line, cut short with "...". */
static void one_line(const struct rv_file *f, uint32_t a, uint32_t b, char *out, size_t size, size_t max)
{
	if (b > f->len)
		b = (uint32_t)f->len;
	size_t o = 0;
	bool space = false;
	for (uint32_t i = a; i < b && o + 5 < size; i++) {
		char c = f->src[i];
		if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
			space = o > 0;
			continue;
		}
		if (o >= max) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (space)
			out[o++] = ' ';
		space = false;
		out[o++] = c;
	}
	out[o] = '\0';
}

/* The code a hazard names: the call `at` is part of (a callee's name, an
 * argument; in a builder's chain, from the flagged step on), a loop's
 * header, else `at` itself; and a short name for it, the callee
 * ("requests.post") where the call has one short enough. */
static void hazard_code(const struct rv_file *f, TSNode at, char *code, char *name, size_t size)
{
	TSNode n = at;
	if (ts_node_named_child_count(at) == 0 || strstr(ts_node_type(at), "string"))
		for (int up = 0; up < 4 && !rv_type(n, f->lang->call); up++) {
			TSNode p = ts_node_parent(n);
			if (ts_node_is_null(p))
				break;
			n = p;
		}
	if (!rv_type(n, f->lang->call))
		n = at;
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	TSNode body = rv_field(n, "body");
	bool loop = rv_type_in(n, f->lang->loops) && !ts_node_is_null(body);
	if (loop)
		b = ts_node_start_byte(body);
	bool call = rv_type(n, f->lang->call);
	if (call && rv_type(rv_field(n, "object"), f->lang->call))
		a = ts_node_start_byte(rv_field(n, "name")); /* HttpRequest.newBuilder()...POST(body) */
	one_line(f, a, b, code, size, 64);
	if (loop) {
		/* "for attempt in range(3):", without a comment after it */
		char *cm = strstr(code, " #");
		if (!cm)
			cm = strstr(code, " //");
		if (cm)
			*cm = '\0';
		size_t o = strlen(code);
		while (o && (code[o - 1] == ':' || code[o - 1] == '{' || code[o - 1] == ' '))
			code[--o] = '\0';
	}
	snprintf(name, size, "%s", code);
	if (!call)
		return;
	TSNode callee = a == ts_node_start_byte(n) ? rv_callee(n) : rv_field(n, "name");
	if (ts_node_end_byte(callee) - ts_node_start_byte(callee) > 40)
		callee = rv_callee_name(n);
	one_line(f, ts_node_start_byte(callee), ts_node_end_byte(callee), name, size, 40);
}

/* One sentence of the row's, its %s the code. */
static char *fitted(const char *tmpl, const char *code)
{
	const char *at = strstr(tmpl, "%s");
	char *raw = NULL;
	if (!at || asprintf(&raw, "%.*s%s%s", (int)(at - tmpl), tmpl, code, at + 2) < 0)
		return NULL;
	char *s = escape_utf8_repair_dup(raw);
	free(raw);
	return s;
}

int rv_add_hazard(struct rv_ctx *x, struct review_hazard **v, size_t *n, enum review_hazard_kind kind, size_t file,
		  TSNode at, const char *helper, const char *fmt, ...)
{
	unsigned line = rv_line(at);
	/* The code's bytes need not be UTF-8; what every format writes must. */
	char *path = escape_utf8_repair_dup(x->files[file].path);
	if (!path)
		return err_oom(x->e);
	for (size_t i = 0; i < *n; i++) /* a helper called twice reports its line once */
		if ((*v)[i].kind == kind && (*v)[i].line == line && strcmp((*v)[i].file, path) == 0) {
			free(path);
			return 0;
		}
	struct review_hazard *grown = realloc(*v, (*n + 1) * sizeof **v);
	if (!grown) {
		free(path);
		return err_oom(x->e);
	}
	*v = grown;
	struct review_hazard *h = &grown[*n];
	memset(h, 0, sizeof *h);
	h->kind = kind;
	h->line = line;
	h->col = ts_node_start_point(at).column + 1;
	char *raw = NULL;
	va_list ap;
	va_start(ap, fmt);
	int w = vasprintf(&raw, fmt, ap);
	va_end(ap);
	h->detail = w < 0 ? NULL : escape_utf8_repair_dup(raw);
	if (w >= 0)
		free(raw);
	h->file = path;
	h->helper = helper ? escape_utf8_repair_dup(helper) : NULL;
	char code[96], name[96];
	hazard_code(&x->files[file], at, code, name, sizeof code);
	h->why = fitted(review_hazard_rows[kind].why_call, code);
	h->fix = fitted(review_hazard_rows[kind].fix_call, name);
	if (!h->detail || (helper && !h->helper) || !h->why || !h->fix) {
		free(h->detail);
		free(h->file);
		free(h->helper);
		free(h->why);
		free(h->fix);
		return err_oom(x->e);
	}
	(*n)++;
	x->out->n_hazards++;
	return 0;
}

/* ---- the function index ------------------------------------------------ */

struct index_walk {
	struct rv_ctx *x;
	size_t file;
	int rc;
};

static int index_add(struct rv_ctx *x, size_t file, TSNode def, TSNode name)
{
	if (ts_node_is_null(name))
		return 0;
	if (x->n_funcs == x->cap_funcs) {
		size_t cap = x->cap_funcs ? 2 * x->cap_funcs : 64;
		struct rv_func *f = realloc(x->funcs, cap * sizeof *f);
		if (!f)
			return err_oom(x->e);
		x->funcs = f;
		x->cap_funcs = cap;
	}
	char buf[256];
	char *copy = strdup(rv_text(&x->files[file], name, buf, sizeof buf));
	if (!copy)
		return err_oom(x->e);
	x->funcs[x->n_funcs++] = (struct rv_func){file, def, copy};
	return 0;
}

static bool index_visit(TSNode n, void *arg)
{
	struct index_walk *w = arg;
	const struct review_lang_row *l = w->x->files[w->file].lang;
	if (w->rc < 0)
		return false;
	if (rv_type_in(n, l->functions)) {
		w->rc = index_add(w->x, w->file, n, rv_field(n, "name"));
	} else if (rv_type(n, "variable_declarator")) {
		/* const charge = async (ctx, input) => {...} */
		TSNode v = rv_field(n, "value");
		if (rv_type_in(v, l->lambdas))
			w->rc = index_add(w->x, w->file, v, rv_field(n, "name"));
	}
	return true;
}

const struct rv_func *rv_func_named(const struct rv_ctx *x, const char *name, size_t file)
{
	const struct rv_func *other = NULL;
	for (size_t i = 0; i < x->n_funcs; i++) {
		const struct rv_func *f = &x->funcs[i];
		if (strcmp(f->name, name) != 0 || x->files[f->file].lang != x->files[file].lang)
			continue;
		if (f->file == file)
			return f;
		if (!other)
			other = f;
	}
	return other;
}

const struct rv_func *rv_func_unique(const struct rv_ctx *x, const char *name, size_t file)
{
	const struct rv_func *found = NULL;
	for (size_t i = 0; i < x->n_funcs; i++) {
		const struct rv_func *f = &x->funcs[i];
		if (strcmp(f->name, name) != 0 || x->files[f->file].lang != x->files[file].lang)
			continue;
		if (found)
			return NULL;
		found = f;
	}
	return found;
}

int rv_index_file(struct rv_ctx *x, size_t file)
{
	struct index_walk w = {x, file, 0};
	rv_walk(ts_tree_root_node(x->files[file].tree), index_visit, &w);
	return w.rc;
}

void rv_ctx_finish(struct rv_ctx *x)
{
	for (size_t i = 0; i < x->n_files; i++) {
		ts_tree_delete(x->files[i].tree);
		free(x->files[i].src);
		free(x->files[i].path);
	}
	free(x->files);
	for (size_t i = 0; i < x->n_funcs; i++)
		free(x->funcs[i].name);
	free(x->funcs);
	free(x->acts);
}

const struct review_activity *review_find_activity(const struct review *rv, const char *name)
{
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < rv->n_activities; i++) {
			const char *a = rv->activities[i].name, *dot = strrchr(a, '.'), *hdot = strrchr(name, '.');
			if ((pass == 0 && strcmp(a, name) == 0) || (pass == 1 && strcasecmp(a, name) == 0) ||
			    (pass == 2 && strcasecmp(dot ? dot + 1 : a, hdot ? hdot + 1 : name) == 0))
				return &rv->activities[i];
		}
	return NULL;
}

void review_mark_known(struct review *rv, const json_t *known)
{
	rv->has_baseline = true;
	rv->n_new = 0;
	char fp[33];
	for (size_t i = 0; i < rv->n_activities; i++)
		for (size_t k = 0; k < rv->activities[i].n_hazards; k++) {
			struct review_hazard *h = &rv->activities[i].hazards[k];
			review_fingerprint(rv, h, rv->activities[i].name, fp);
			h->known = json_object_get(known, fp) != NULL;
			rv->n_new += !h->known;
		}
	for (size_t k = 0; k < rv->n_orchestrator; k++) {
		struct review_hazard *h = &rv->orchestrator[k];
		review_fingerprint(rv, h, "(orchestrator)", fp);
		h->known = json_object_get(known, fp) != NULL;
		rv->n_new += !h->known;
	}
}
