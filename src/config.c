#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_in.h"
#include "suggest.h"

void config_init(struct config *c)
{
	memset(c, 0, sizeof *c);
}

void config_finish(struct config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->entries[i].key);
		free(c->entries[i].value);
	}
	free(c->entries);
	free(c->path);
	free(c->kept_args);
	memset(c, 0, sizeof *c);
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* [*s, *end) without the blanks at either end. */
static void trim(const char **s, const char **end)
{
	while (*s < *end && is_blank(**s))
		(*s)++;
	while (*end > *s && is_blank((*end)[-1]))
		(*end)--;
}

/* A key that would hold a credential: refused whatever its spelling. */
static bool names_secret(const char *key)
{
	static const char *const words[] = {"token", "secret", "password", "passwd", "credential"};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strcasestr(key, words[i]))
			return true;
	return false;
}

static int add_entry(struct config *c, const char *key, size_t klen, const char *value, size_t vlen, unsigned line,
		     struct err *e)
{
	struct config_entry *more = realloc(c->entries, (c->n + 1) * sizeof *more);
	if (!more)
		return err_oom(e);
	c->entries = more;
	struct config_entry *en = &c->entries[c->n];
	en->key = strndup(key, klen);
	en->value = strndup(value, vlen);
	en->line = line;
	if (!en->key || !en->value) {
		free(en->key);
		free(en->value);
		return err_oom(e);
	}
	c->n++;
	return 0;
}

static int parse_line(struct config *c, const char *path, unsigned line, const char *s, const char *end,
		      const char *const *keys, struct err *e)
{
	trim(&s, &end);
	if (s == end || *s == '#')
		return 0;
	const char *eq = memchr(s, '=', (size_t)(end - s));
	/* The line is not echoed: it may be a pasted token. */
	if (!eq)
		return err_set(e, ERR_USAGE, "%s:%u: expected `key = value`", path, line);
	const char *k = s, *kend = eq;
	trim(&k, &kend);
	if (k == kend)
		return err_set(e, ERR_USAGE, "%s:%u: no key before '='", path, line);
	char key[64];
	if ((size_t)(kend - k) >= sizeof key)
		return err_set(e, ERR_USAGE, "%s:%u: unknown key '%.40s...'", path, line, k);
	memcpy(key, k, (size_t)(kend - k));
	key[kend - k] = '\0';
	/* Checked before anything else about the line: the value is never
	 * echoed, nor kept. */
	if (names_secret(key))
		return err_set(e, ERR_USAGE,
			       "%s:%u: %s: the config file holds no secrets; sign in with `catalyst-audit login` "
			       "(tokens go to the token store) or pass a token in CATALYST_TOKEN",
			       path, line, key);
	size_t n_keys = 0;
	bool known = false;
	for (; keys[n_keys]; n_keys++)
		if (strcmp(keys[n_keys], key) == 0)
			known = true;
	if (!known) {
		const char *near = suggest_nearest(key, keys, n_keys);
		if (near)
			return err_set(e, ERR_USAGE, "%s:%u: unknown key '%s'; did you mean '%s'?", path, line,
				       key, near);
		return err_set(e, ERR_USAGE, "%s:%u: unknown key '%s' (see catalyst-audit(1), FILES)", path, line,
			       key);
	}
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->entries[i].key, key) == 0)
			return err_set(e, ERR_USAGE, "%s:%u: %s is set twice (first on line %u)", path, line, key,
				       c->entries[i].line);

	const char *v = eq + 1, *vend = end;
	for (const char *p = v; p < vend; p++)
		if (*p == '#' && p > v && is_blank(p[-1])) {
			vend = p;
			break;
		}
	trim(&v, &vend);
	if (vend - v >= 2 && (*v == '"' || *v == '\'') && vend[-1] == *v) {
		v++;
		vend--;
	}
	if (v == vend)
		return err_set(e, ERR_USAGE, "%s:%u: %s has no value", path, line, key);
	return add_entry(c, key, (size_t)(kend - k), v, (size_t)(vend - v), line, e);
}

int config_parse(struct config *c, const char *path, const char *text, size_t len, const char *const *keys,
		 struct err *e)
{
	if (memchr(text, '\0', len))
		return err_set(e, ERR_USAGE, "%s: not a text file (a NUL byte)", path);
	/* Notepad and PowerShell save UTF-8 with a byte order mark. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
		text += 3;
		len -= 3;
	}
	unsigned line = 1;
	for (const char *s = text, *stop = text + len; s < stop; line++) {
		const char *nl = memchr(s, '\n', (size_t)(stop - s));
		const char *end = nl ? nl : stop;
		const char *content_end = end > s && end[-1] == '\r' ? end - 1 : end;
		if (parse_line(c, path, line, s, content_end, keys, e) < 0)
			return -1;
		s = nl ? nl + 1 : stop;
	}
	return 0;
}

/* The config names the server the token is sent to: a file that another
 * user could write or replace could send it elsewhere. The file itself is
 * checked where it is opened (file_in, .own); here its folder: yours or
 * root's, and writable by nobody else unless sticky (/tmp lets nobody
 * replace a file of yours). */
static int check_folder(const char *path, struct err *e)
{
	char *copy = strdup(path);
	if (!copy)
		return err_oom(e);
	const char *dir = dirname(copy);
	struct stat st;
	int rc = 0;
	if (stat(dir, &st) != 0)
		rc = 0;
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		rc = err_set(
			e, ERR_USAGE,
			"config folder %s is owned by user %u, not by you: not read; use a config file of your own",
			dir, (unsigned)st.st_uid);
	else if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		rc = err_set(
			e, ERR_USAGE,
			"config folder %s can be written by other users (mode %04o): not read; run `chmod go-w %s`",
			dir, (unsigned)(st.st_mode & 07777), dir);
	free(copy);
	return rc;
}

int config_load(struct config *c, const char *path, bool must_exist, const char *const *keys, struct err *e)
{
	/* the config names the server the token goes to: yours, and
	 * writable by nobody else; /dev/null is the documented "none" */
	const struct file_in rules = {.what = "config file",
				      .code = ERR_USAGE,
				      .max = CONFIG_MAX_BYTES,
				      .own = true,
				      .dev_null = true,
				      .text = true};
	struct stat sb;
	int fd = file_in_open(path, &rules, &sb, e);
	if (fd == -2) {
		if (!must_exist)
			return 0;
		return err_set(e, ERR_USAGE, "config file %s: %s", path, strerror(ENOENT));
	}
	if (fd < 0)
		return -1;
	char *text = NULL;
	size_t n = 0;
	int rc = -1;
	if (S_ISREG(sb.st_mode) && check_folder(path, e) < 0)
		goto out;
	if (file_in_read_fd(fd, path, &rules, &sb, &text, &n, e) < 0)
		goto out;
	if (!(c->path = strdup(path))) {
		err_oom(e);
		goto out;
	}
	rc = config_parse(c, path, text, n, keys, e);
out:
	free(text);
	close(fd);
	return rc;
}

char *config_default_path(const char *xdg_config_home, const char *home)
{
	const char *base = NULL, *sub = NULL;
	if (xdg_config_home && xdg_config_home[0] == '/') {
		base = xdg_config_home;
		sub = "catalyst-audit/config";
	} else if (home && *home) {
		base = home;
		sub = ".config/catalyst-audit/config";
	} else {
		return NULL;
	}
	size_t n = strlen(base) + 1 + strlen(sub) + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", base, sub);
	return p;
}
