/* `review`'s driver: reads the files and folders given (or one buffer),
 * parses each with tree-sitter and indexes it (review.c), then runs the
 * finders and orders what they found. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_in.h"
#include "review.h"
#include "review_internal.h"

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
	return rv_index_file(x, x->n_files - 1);
oom:
	free(src);
	return err_oom(x->e);
}

static int read_file(struct rv_ctx *x, const char *path)
{
	/* Never blocks on a FIFO in the tree; what is not a regular file is
	 * no source and is counted as not read. A source file too large to
	 * read is an error: a gate must not pass on code it did not read. */
	const struct file_in rules = {
		.what = "review:", .code = ERR_INPUT, .stream = true, .max = REVIEW_MAX_FILE};
	struct stat st;
	/* the bound is said below, in review's words */
	int fd = file_in_open(path, &(const struct file_in){.what = "review:", .code = ERR_INPUT, .stream = true},
			      &st, x->e);
	if (fd < 0)
		return fd == -2 ? err_set(x->e, ERR_USAGE, "review: %s: %s", path, strerror(ENOENT)) : -1;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		x->out->n_skipped++;
		return 0;
	}
	if (x->n_files >= REVIEW_MAX_FILES) {
		close(fd);
		return err_set(x->e, ERR_INPUT,
			       "review: over %u source files; name the folders that hold the activities",
			       REVIEW_MAX_FILES);
	}
	if ((uintmax_t)st.st_size > REVIEW_MAX_FILE) {
		close(fd);
		return err_set(
			x->e, ERR_INPUT,
			"review: %s is %jd bytes, over the %u a source file is read to: not reviewed, so no "
			"gate can pass on it; move it out of the tree or name the folders to review",
			path, (intmax_t)st.st_size, REVIEW_MAX_FILE);
	}
	char *src = NULL;
	size_t got = 0;
	int rc = file_in_read_fd(fd, path, &rules, &st, &src, &got, x->e);
	close(fd);
	if (rc < 0)
		return -1;
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

static int review_run(struct rv_ctx *x)
{
	int rc = 0;
	if (rv_find_activities(x) < 0 || rv_activity_hazards(x) < 0 || rv_orchestrator_hazards(x) < 0 ||
	    rv_suppress(x) < 0)
		rc = -1;
	if (x->out->n_activities)
		qsort(x->out->activities, x->out->n_activities, sizeof *x->out->activities, by_file_line);
	rv_ctx_finish(x);
	return rc;
}

/* The folder a path's files are named under: itself, or a file's folder. */
static int add_root(struct review *rv, const char *path, struct err *e)
{
	struct stat st;
	char *root = NULL;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		root = strdup(path);
	} else {
		const char *slash = strrchr(path, '/');
		root = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
	}
	char **more = root ? realloc(rv->roots, (rv->n_roots + 1) * sizeof *more) : NULL;
	if (!more) {
		free(root);
		return err_oom(e);
	}
	rv->roots = more;
	rv->roots[rv->n_roots++] = root;
	return 0;
}

int review_paths(struct review *rv, const char *const *paths, size_t n, struct err *e)
{
	struct rv_ctx x = {.out = rv, .e = e};
	for (size_t i = 0; i < n; i++)
		if (add_root(rv, paths[i], e) < 0 || walk_path(&x, paths[i], 0) < 0) {
			rv_ctx_finish(&x);
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
		rv_ctx_finish(&x);
		return -1;
	}
	return review_run(&x);
}
