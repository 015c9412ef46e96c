/* `review`: reads the source files, parses each with tree-sitter, indexes
 * every function, then finds the activities and their hazards
 * (review_find.c, review_hazards.c, review_policy.c). */

#include "review.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "review_internal.h"

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
	review_init(rv);
}

/* ---- output ----------------------------------------------------------- */

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
	a->name = strdup(name);
	a->file = strdup(x->files[file].path);
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

int rv_add_hazard(struct rv_ctx *x, struct review_hazard **v, size_t *n, enum review_hazard_kind kind, size_t file,
		  TSNode at, const char *helper, const char *fmt, ...)
{
	unsigned line = rv_line(at);
	for (size_t i = 0; i < *n; i++) /* a helper called twice reports its line once */
		if ((*v)[i].kind == kind && (*v)[i].line == line && strcmp((*v)[i].file, x->files[file].path) == 0)
			return 0;
	struct review_hazard *grown = realloc(*v, (*n + 1) * sizeof **v);
	if (!grown)
		return err_oom(x->e);
	*v = grown;
	struct review_hazard *h = &grown[*n];
	memset(h, 0, sizeof *h);
	h->kind = kind;
	h->line = line;
	va_list ap;
	va_start(ap, fmt);
	int w = vasprintf(&h->detail, fmt, ap);
	va_end(ap);
	h->file = strdup(x->files[file].path);
	h->helper = helper ? strdup(helper) : NULL;
	if (w < 0 || !h->file || (helper && !h->helper)) {
		if (w < 0)
			h->detail = NULL;
		free(h->detail);
		free(h->file);
		free(h->helper);
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

/* ---- files ------------------------------------------------------------- */

static int add_file(struct rv_ctx *x, const char *path, char *src, size_t len)
{
	const struct review_lang_row *l = review_lang_of_path(path);
	if (x->n_files == x->cap_files) {
		size_t cap = x->cap_files ? 2 * x->cap_files : 32;
		struct rv_file *f = realloc(x->files, cap * sizeof *f);
		if (!f)
			goto oom;
		x->files = f;
		x->cap_files = cap;
	}
	struct rv_file *f = &x->files[x->n_files];
	memset(f, 0, sizeof *f);
	f->path = strdup(path);
	if (!f->path)
		goto oom;
	f->src = src;
	f->len = len;
	f->lang = l;
	TSParser *p = ts_parser_new();
	if (!p || !ts_parser_set_language(p, l->grammar())) {
		ts_parser_delete(p);
		free(f->path);
		free(src);
		return err_set(x->e, ERR_INTERNAL, "review: the %s grammar does not load", l->name);
	}
	f->tree = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
	ts_parser_delete(p);
	if (!f->tree) {
		free(f->path);
		goto oom;
	}
	x->n_files++;
	x->out->n_files++;
	x->out->n_by_lang[l->lang]++;
	struct index_walk w = {x, x->n_files - 1, 0};
	rv_walk(ts_tree_root_node(f->tree), index_visit, &w);
	return w.rc;
oom:
	free(src);
	return err_oom(x->e);
}

static int read_file(struct rv_ctx *x, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		return err_set(x->e, ERR_USAGE, "review: %s: %s", path, strerror(saved));
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)REVIEW_MAX_FILE || x->n_files >= REVIEW_MAX_FILES) {
		close(fd);
		x->out->n_skipped++;
		return 0;
	}
	size_t len = (size_t)st.st_size, got = 0;
	char *src = malloc(len + 1);
	if (!src) {
		close(fd);
		return err_oom(x->e);
	}
	while (got < len) {
		ssize_t r = read(fd, src + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	src[got] = '\0';
	return add_file(x, path, src, got);
}

/* Folders no one's activity code lives in: dependencies and build output. */
static bool skipped_dir(const char *name)
{
	static const char *const skip[] = {"node_modules", "vendor", "bin",         "obj", "target",
					   "dist",         "build",  "__pycache__", "venv"};
	if (name[0] == '.')
		return true;
	for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
		if (strcmp(name, skip[i]) == 0)
			return true;
	return false;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk_path(struct rv_ctx *x, const char *path, int depth);

static int walk_dir(struct rv_ctx *x, const char *path, int depth)
{
	DIR *d = opendir(path);
	if (!d)
		return err_set(x->e, ERR_USAGE, "review: %s: %s", path, strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			char **g = realloc(names, cap * sizeof *g);
			if (!g) {
				rc = err_oom(x->e);
				goto out;
			}
			names = g;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = err_oom(x->e);
			goto out;
		}
		n++;
	}
	if (n) /* the same order on every machine */
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *child;
		if (asprintf(&child, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", names[i]) < 0) {
			rc = err_oom(x->e);
			break;
		}
		struct stat st;
		if (lstat(child, &st) == 0) { /* links are not followed: no cycles */
			if (S_ISDIR(st.st_mode) && !skipped_dir(names[i]))
				rc = walk_path(x, child, depth + 1);
			else if (S_ISREG(st.st_mode) && review_lang_of_path(child))
				rc = read_file(x, child);
		}
		free(child);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

static int walk_path(struct rv_ctx *x, const char *path, int depth)
{
	struct stat st;
	if (depth > 64)
		return 0;
	if (stat(path, &st) < 0)
		return err_set(x->e, ERR_USAGE, "review: %s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return walk_dir(x, path, depth);
	if (depth == 0 && !review_lang_of_path(path))
		return err_set(x->e, ERR_USAGE, "review: %s: not a source file of a language review reads", path);
	return read_file(x, path);
}

static int by_file_line(const void *a, const void *b)
{
	const struct review_activity *p = a, *q = b;
	int c = strcmp(p->file, q->file);
	return c ? c : (p->line > q->line) - (p->line < q->line);
}

static void ctx_finish(struct rv_ctx *x)
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

static int review_run(struct rv_ctx *x)
{
	int rc = 0;
	if (rv_find_activities(x) < 0 || rv_activity_hazards(x) < 0 || rv_orchestrator_hazards(x) < 0)
		rc = -1;
	if (x->out->n_activities)
		qsort(x->out->activities, x->out->n_activities, sizeof *x->out->activities, by_file_line);
	ctx_finish(x);
	return rc;
}

int review_paths(struct review *rv, const char *const *paths, size_t n, struct err *e)
{
	struct rv_ctx x = {.out = rv, .e = e};
	for (size_t i = 0; i < n; i++)
		if (walk_path(&x, paths[i], 0) < 0) {
			ctx_finish(&x);
			return -1;
		}
	return review_run(&x);
}

int review_buffer(struct review *rv, const char *name, const char *data, size_t len, struct err *e)
{
	struct rv_ctx x = {.out = rv, .e = e};
	if (!review_lang_of_path(name))
		return 0;
	char *src = malloc(len + 1);
	if (!src)
		return err_oom(e);
	memcpy(src, data, len);
	src[len] = '\0';
	if (add_file(&x, name, src, len) < 0) {
		ctx_finish(&x);
		return -1;
	}
	return review_run(&x);
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
