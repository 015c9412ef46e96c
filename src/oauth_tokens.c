/* The token store: one small JSON file per (issuer, client id, resource)
 * in a private folder. Files are replaced atomically, so a crash or a
 * concurrent reader never sees half a token, and the rotated refresh token
 * is never lost between the server issuing it and the disk holding it. */

#include "file_in.h"
#include "oauth_internal.h"

#include "secret.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOKEN_FILE_MAX (64 * 1024)

void oauth_free_secret(char *s)
{
	if (s) {
		OPENSSL_cleanse(s, strlen(s));
		free(s);
	}
}

void oauth_tokens_finish(struct oauth_tokens *t)
{
	if (!t)
		return;
	free(t->issuer);
	free(t->client_id);
	free(t->resource);
	oauth_free_secret(t->access_token);
	oauth_free_secret(t->refresh_token);
	free(t->token_endpoint);
	free(t->resource_indicator);
	free(t->scope);
	memset(t, 0, sizeof *t);
}

char *oauth_store_default_dir(const char *xdg_config_home, const char *home, struct err *e)
{
	char *dir = NULL;
	/* The XDG spec: a relative value is invalid and must be ignored. */
	if (xdg_config_home && xdg_config_home[0] == '/') {
		if (asprintf(&dir, "%s/catalyst-audit", xdg_config_home) < 0)
			dir = NULL;
	} else {
		if (!home || home[0] != '/') {
			oauth_store_no_dir(e);
			return NULL;
		}
		if (asprintf(&dir, "%s/.config/catalyst-audit", home) < 0)
			dir = NULL;
	}
	if (!dir)
		err_oom(e);
	return dir;
}

int oauth_store_no_dir(struct err *e)
{
	return err_set(e, ERR_AUTH, "cannot find where to keep tokens: neither XDG_CONFIG_HOME nor HOME is set");
}

char *oauth_store_path(const char *dir, const char *issuer, const char *client_id, const char *resource)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char d[32];
	unsigned int n = 0;
	if (!md)
		return NULL;
	/* NUL separators: no two triples hash the same text. */
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	EVP_DigestUpdate(md, issuer, strlen(issuer) + 1);
	EVP_DigestUpdate(md, client_id, strlen(client_id) + 1);
	EVP_DigestUpdate(md, resource, strlen(resource) + 1);
	EVP_DigestFinal_ex(md, d, &n);
	EVP_MD_CTX_free(md);
	char hex[33];
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	char *path = NULL;
	if (asprintf(&path, "%s/tokens-%s.json", dir, hex) < 0)
		return NULL;
	return path;
}

static int mkdir_private(const char *dir, struct err *e)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		if (errno == ENOENT) {
			/* ~/.config itself may be missing on a fresh account. */
			char *parent = strdup(dir);
			char *slash = parent ? strrchr(parent, '/') : NULL;
			if (slash && slash != parent) {
				*slash = '\0';
				if (mkdir(parent, 0700) < 0 && errno != EEXIST) {
					err_set(e, ERR_AUTH, "cannot create %s: %s", parent, strerror(errno));
					free(parent);
					return -1;
				}
			}
			free(parent);
			if (mkdir(dir, 0700) == 0 || errno == EEXIST)
				goto check;
		}
		return err_set(e, ERR_AUTH, "cannot create %s: %s", dir, strerror(errno));
	}
check:;
	struct stat st;
	if (lstat(dir, &st) < 0)
		return err_set(e, ERR_AUTH, "cannot use %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return err_set(e, ERR_AUTH, "%s is not a folder owned by you: tokens are not kept there", dir);
	if (st.st_mode & 077)
		return err_set(
			e, ERR_AUTH,
			"%s is open to other users (mode %04o): tokens are not kept there; run `chmod 700 %s`",
			dir, (unsigned)(st.st_mode & 07777), dir);
	return 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = fsync(fd);
	close(fd);
	return r;
}

/* Frees a token file's document, its secrets wiped first: jansson holds
 * its own copies of them. */
static void token_doc_free(json_t *doc)
{
	static const char *const secrets[] = {"access_token", "refresh_token"};
	for (size_t i = 0; doc && i < 2; i++) {
		json_t *v = json_object_get(doc, secrets[i]);
		if (json_is_string(v))
			OPENSSL_cleanse((char *)json_string_value(v), json_string_length(v));
	}
	json_decref(doc);
}

int oauth_store_save(const char *dir, const struct oauth_tokens *t, struct err *e)
{
	if (!dir)
		return oauth_store_no_dir(e);
	if (!t->issuer || !t->client_id || !t->resource || !t->access_token)
		return err_set(e, ERR_INTERNAL, "incomplete tokens cannot be stored");
	if (mkdir_private(dir, e) < 0)
		return -1;
	int rc = -1;
	char *path = oauth_store_path(dir, t->issuer, t->client_id, t->resource);
	char *tmp = NULL;
	char *text = NULL;
	int fd = -1;
	json_t *doc = json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s?, s:s?, s:s?, s:I}", "issuer", t->issuer,
				"client_id", t->client_id, "resource", t->resource, "resource_indicator",
				t->resource_indicator, "access_token", t->access_token, "refresh_token",
				t->refresh_token, "token_endpoint", t->token_endpoint, "scope", t->scope,
				"expires_at", (json_int_t)t->expires_at);
	if (!path || !doc || asprintf(&tmp, "%s/.tokens-XXXXXX", dir) < 0) {
		tmp = NULL;
		err_oom(e);
		goto out;
	}
	text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text) {
		err_set(e, ERR_INTERNAL, "cannot encode the tokens");
		goto out;
	}
	/* mkstemp creates the file 0600 whatever the umask. */
	fd = mkstemp(tmp);
	if (fd < 0) {
		err_set(e, ERR_AUTH, "cannot write in %s: %s", dir, strerror(errno));
		goto out;
	}
	size_t len = strlen(text), off = 0;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_set(e, ERR_AUTH, "cannot write %s: %s", tmp, strerror(errno));
			goto out;
		}
		off += (size_t)n;
	}
	if (fchmod(fd, 0600) < 0 || fsync(fd) < 0) {
		err_set(e, ERR_AUTH, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	if (rename(tmp, path) < 0) {
		err_set(e, ERR_AUTH, "cannot replace %s: %s", path, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	fsync_dir(dir);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	if (text) {
		OPENSSL_cleanse(text, strlen(text));
		free(text);
	}
	token_doc_free(doc);
	free(path);
	return rc;
}

enum entry {
	ENTRY_REFUSED = -1, /* e set */
	ENTRY_UNREADABLE,   /* not JSON, over the size limit, gone */
	ENTRY_READ,
	ENTRY_NOT_REGULAR, /* a link, a FIFO, a folder...: never read */
};

/* Reads one token file: never through a link, never waiting (a FIFO
 * planted there would hold the open), a regular file only. check_mode:
 * refuse a file others can read. */
static enum entry read_entry(int dirfd, const char *dir, const char *name, bool check_mode, json_t **out,
			     struct err *e)
{
	*out = NULL;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? ENTRY_NOT_REGULAR : ENTRY_UNREADABLE;
	struct stat st;
	enum entry rc = ENTRY_UNREADABLE;
	if (fstat(fd, &st) < 0)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		rc = ENTRY_NOT_REGULAR;
		goto out;
	}
	if (st.st_size > TOKEN_FILE_MAX)
		goto out;
	if (check_mode && (st.st_mode & 077 || st.st_uid != geteuid())) {
		rc = ENTRY_REFUSED;
		err_set(e, ERR_AUTH,
			"token file %s/%s is readable by other users (mode %04o): refusing to use it; "
			"run `chmod 600 %s/%s` if nobody else read it, else `catalyst-audit logout` and "
			"sign in again",
			dir, name, (unsigned)(st.st_mode & 07777), dir, name);
		goto out;
	}
	/* Read as every file is (file_in.h): whole or not at all; the one
	 * that changes while it is read is unreadable, as a damaged one. */
	static const struct file_in rule = {
		.what = "token file", .code = ERR_AUTH, .max = TOKEN_FILE_MAX, .secret = true};
	char *text;
	size_t got;
	struct err re;
	err_clear(&re);
	if (file_in_read_fd(fd, name, &rule, &st, &text, &got, &re) < 0)
		goto out;
	*out = json_loads(text, 0, NULL);
	OPENSSL_cleanse(text, got);
	free(text);
	rc = *out && json_is_object(*out) ? ENTRY_READ : ENTRY_UNREADABLE;
	if (rc != ENTRY_READ) {
		json_decref(*out);
		*out = NULL;
	}
out:
	close(fd);
	return rc;
}

static bool field_is(json_t *doc, const char *key, const char *want)
{
	const char *v = json_string_value(json_object_get(doc, key));
	return v && strcmp(v, want) == 0;
}

static char *dup_field(json_t *doc, const char *key)
{
	const char *v = json_string_value(json_object_get(doc, key));
	return v ? strdup(v) : NULL;
}

static bool is_token_file(const char *name)
{
	size_t n = strlen(name);
	return strncmp(name, "tokens-", 7) == 0 && n > 12 && strcmp(name + n - 5, ".json") == 0;
}

/* Opens the store's folder (*d NULL when there is none) after the check
 * every command makes: a folder another user owns, or others can write,
 * could have token files planted or swapped: refused. */
static int open_store(const char *dir, DIR **d, struct err *e)
{
	*d = NULL;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(e, ERR_AUTH, "cannot use %s: %s", dir, strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		unsigned mode = (unsigned)(st.st_mode & 07777);
		close(fd);
		return err_set(e, ERR_AUTH,
			       "%s is not a folder only you can write (owner %u, mode %04o): tokens there are not "
			       "used; run `chmod 700 %s`, or use a folder of your own",
			       dir, (unsigned)st.st_uid, mode, dir);
	}
	if (!(*d = fdopendir(fd))) {
		close(fd);
		return err_set(e, ERR_AUTH, "cannot use %s: %s", dir, strerror(errno));
	}
	return 0;
}

int oauth_store_load(const char *dir, const char *issuer, const char *client_id, const char *resource,
		     struct oauth_tokens *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (!dir)
		return oauth_store_no_dir(e);
	DIR *d = NULL;
	if (open_store(dir, &d, e) < 0)
		return -1;
	if (!d)
		return 0;
	struct stat st;
	bool readable = fstat(dirfd(d), &st) == 0 && (st.st_mode & 077);
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!is_token_file(de->d_name))
			continue;
		if (readable) {
			/* Others may read the folder: fine for a config file,
			 * not for tokens. */
			rc = err_set(e, ERR_AUTH,
				     "%s holds tokens and is open to other users (mode %04o): stored tokens are "
				     "not used; run `chmod 700 %s`",
				     dir, (unsigned)(st.st_mode & 07777), dir);
			break;
		}
		json_t *doc;
		enum entry r = read_entry(dirfd(d), dir, de->d_name, true, &doc, e);
		if (r == ENTRY_REFUSED) {
			rc = -1;
			break;
		}
		if (r == ENTRY_NOT_REGULAR) {
			rc = err_set(
				e, ERR_AUTH,
				"token file %s/%s is not a regular file (a link, a pipe...): not used; remove it, "
				"or run `catalyst-audit logout`",
				dir, de->d_name);
			break;
		}
		if (r == ENTRY_UNREADABLE)
			continue;
		/* Every file this store writes names its issuer and client (a
		 * refresh needs both): one that does not is not one of ours. */
		bool match = field_is(doc, "resource", resource) && (!issuer || field_is(doc, "issuer", issuer)) &&
			     (!client_id || field_is(doc, "client_id", client_id)) &&
			     json_is_string(json_object_get(doc, "issuer")) &&
			     json_is_string(json_object_get(doc, "client_id")) &&
			     json_is_string(json_object_get(doc, "access_token"));
		if (match) {
			out->issuer = dup_field(doc, "issuer");
			out->client_id = dup_field(doc, "client_id");
			out->resource = dup_field(doc, "resource");
			out->resource_indicator = dup_field(doc, "resource_indicator");
			out->access_token = dup_field(doc, "access_token");
			out->refresh_token = dup_field(doc, "refresh_token");
			out->token_endpoint = dup_field(doc, "token_endpoint");
			out->scope = dup_field(doc, "scope");
			out->expires_at = (int64_t)json_integer_value(json_object_get(doc, "expires_at"));
			secret_add(out->access_token);
			secret_add(out->refresh_token);
			rc = 1;
		}
		token_doc_free(doc);
		if (rc)
			break;
	}
	closedir(d);
	if (rc < 0)
		oauth_tokens_finish(out);
	return rc;
}

int oauth_store_delete(const char *dir, const char *client_id, const char *resource, struct err *e)
{
	if (!dir)
		return oauth_store_no_dir(e);
	DIR *d = NULL;
	if (open_store(dir, &d, e) < 0)
		return -1;
	if (!d)
		return 0;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!is_token_file(de->d_name))
			continue;
		json_t *doc;
		/* Deleting does not need the file to be private. A token file
		 * that cannot be read (a link, a pipe, over the size limit, not
		 * JSON) cannot be anyone's sign-in: it goes too. */
		enum entry r = read_entry(dirfd(d), dir, de->d_name, false, &doc, e);
		bool match = r != ENTRY_READ || (field_is(doc, "resource", resource) &&
						 (!client_id || field_is(doc, "client_id", client_id)));
		token_doc_free(doc);
		if (!match)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) < 0) {
			closedir(d);
			return err_set(e, ERR_AUTH, "cannot delete %s/%s: %s", dir, de->d_name, strerror(errno));
		}
		n++;
	}
	closedir(d);
	fsync_dir(dir);
	return n;
}

int oauth_store_lock(const char *dir, struct err *e)
{
	if (!dir)
		return oauth_store_no_dir(e);
	if (mkdir_private(dir, e) < 0)
		return -1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, ERR_AUTH, "cannot open %s: %s", dir, strerror(errno));
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			close(fd);
			return err_set(e, ERR_AUTH, "cannot lock %s: %s", dir, strerror(errno));
		}
	}
	return fd;
}

void oauth_store_unlock(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}
