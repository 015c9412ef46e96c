/* libFuzzer harness for `review`'s file walker and language detection
 * (review_paths): the bytes are a small tree, up to 16 files split at
 * 0x1e bytes, each "PATH\0CONTENT" (the path's bytes mapped to a safe set,
 * at most four levels, no "." or ".." level; hidden folders and
 * node_modules may be among them), written into a folder of its own and
 * reviewed whole. Invariants: no crash, no leak; it succeeds or fails
 * with a message; every file it names is one of the tree's, every line
 * is 1 or more; the files it read are counted by language exactly; and
 * nothing it read lies in a hidden or dependency folder. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "review.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 16
#define MAX_CONTENT (64u << 10)

static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.";

/* The record's path, made safe: at most four levels of at most 24 bytes. */
static void safe_path(const char *in, size_t len, char *out, size_t size)
{
	size_t o = 0, level = 0, in_level = 0;
	for (size_t i = 0; i < len && o + 2 < size; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c == '/') {
			if (in_level == 0 || level == 3)
				continue;
			out[o++] = '/';
			level++;
			in_level = 0;
			continue;
		}
		if (in_level == 24)
			continue;
		out[o++] = c && strchr(safe, c) ? (char)c : safe[c % (sizeof safe - 1)];
		in_level++;
	}
	if (o && out[o - 1] == '/')
		o--;
	out[o] = '\0';
	/* no level that is "." or "..", and never an empty path */
	for (char *p = out; *p;) {
		char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			p[0] = '_';
		p += n + (end != NULL);
	}
	if (!*out)
		snprintf(out, size, "empty");
}

static int write_file(const char *root, const char *rel, const char *data, size_t len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1; /* a folder of that name already: the tree has one file less */
	ssize_t w = write(fd, data, len);
	close(fd);
	return w == (ssize_t)len ? 0 : -1;
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char path[700];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (unlink(path) < 0)
			remove_tree(path);
	}
	closedir(d);
	rmdir(dir);
}

/* A file the review names: inside the tree, a regular file there, in no
 * hidden or dependency folder. */
static void check_file(const char *root, const char *file)
{
	size_t n = strlen(root);
	struct stat st;
	if (!file || strncmp(file, root, n) != 0 || file[n] != '/' || stat(file, &st) < 0 || !S_ISREG(st.st_mode))
		abort();
	for (const char *p = file + n; (p = strchr(p, '/')); p++) {
		const char *next = strchr(p + 1, '/');
		if (!next)
			break; /* the file's own name may start with a dot */
		if (p[1] == '.' || !strncmp(p + 1, "node_modules/", 13))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char root[] = "/tmp/fuzz-review-tree-XXXXXX";
	if (!mkdtemp(root))
		abort();
	const char *p = (const char *)data, *end = p + size;
	for (int k = 0; k < MAX_FILES && p < end; k++) {
		const char *sep = memchr(p, 0x1e, (size_t)(end - p));
		const char *rec_end = sep ? sep : end;
		const char *nul = memchr(p, '\0', (size_t)(rec_end - p));
		const char *content = nul ? nul + 1 : rec_end;
		char rel[160];
		safe_path(p, (size_t)((nul ? nul : rec_end) - p), rel, sizeof rel);
		size_t len = (size_t)(rec_end - content);
		write_file(root, rel, content, len > MAX_CONTENT ? MAX_CONTENT : len);
		if (!sep)
			break;
		p = sep + 1;
	}
	struct review rv;
	review_init(&rv);
	struct err e;
	err_clear(&e);
	const char *paths[] = {root};
	if (review_paths(&rv, paths, 1, &e) < 0) {
		if (!*e.msg)
			abort();
	} else {
		size_t by_lang = 0;
		for (int l = 0; l < REVIEW_LANG_COUNT; l++)
			by_lang += rv.n_by_lang[l];
		if (by_lang != rv.n_files || rv.n_files > MAX_FILES)
			abort();
		for (size_t i = 0; i < rv.n_activities; i++) {
			const struct review_activity *a = &rv.activities[i];
			check_file(root, a->file);
			if (!a->line || !a->name)
				abort();
			for (size_t h = 0; h < a->n_hazards; h++) {
				check_file(root, a->hazards[h].file);
				if (!a->hazards[h].line || !a->hazards[h].detail)
					abort();
			}
		}
		for (size_t h = 0; h < rv.n_orchestrator; h++) {
			check_file(root, rv.orchestrator[h].file);
			if (!rv.orchestrator[h].line)
				abort();
		}
	}
	review_finish(&rv);
	remove_tree(root);
	return 0;
}
