#include "complete_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "file_out.h"

char *complete_cache_dir(const char *xdg_cache_home, const char *home)
{
	char *dir = NULL;
	if (xdg_cache_home && xdg_cache_home[0] == '/') {
		if (asprintf(&dir, "%s/catalyst-audit", xdg_cache_home) < 0)
			return NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&dir, "%s/.cache/catalyst-audit", home) < 0)
			return NULL;
	}
	return dir;
}

/* <dir>/complete-<first 16 bytes of SHA-256(key), hex>: the key holds a
 * server URL and names the user typed, so it is hashed into a name that
 * is always a plain file name; the key itself is the file's first line,
 * so two keys with one hash are told apart. */
static char *entry_path(const char *dir, const char *key)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;
	if (!EVP_Digest(key, strlen(key), md, &md_len, EVP_sha256(), NULL) || md_len < 16)
		return NULL;
	char hex[33];
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	char *path = NULL;
	return asprintf(&path, "%s/complete-%s", dir, hex) < 0 ? NULL : path;
}

/* The key as the file's first line: a newline in it would end the line
 * early, so it is written with newlines as spaces (the hash still tells
 * such keys apart). */
static void key_line(const char *key, char *out, size_t size)
{
	snprintf(out, size, "%s", key);
	for (char *p = out; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

int complete_cache_read(const char *dir, const char *key, time_t now, char **text)
{
	*text = NULL;
	if (!dir)
		return 0;
	char *path = entry_path(dir, key);
	if (!path)
		return 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return 0;
	struct stat st;
	int hit = 0;
	char *data = NULL;
	/* Ours, private, regular, small and fresh (a clock set back makes
	 * an entry from the future: not trusted either). */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) ||
	    st.st_size > COMPLETE_CACHE_MAX_BYTES || st.st_mtime > now + 5 ||
	    now - st.st_mtime > COMPLETE_CACHE_MAX_AGE_S)
		goto out;
	data = malloc((size_t)st.st_size + 1);
	if (!data)
		goto out;
	size_t len = 0;
	while (len < (size_t)st.st_size) {
		ssize_t r = read(fd, data + len, (size_t)st.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	data[len] = '\0';
	char want[1024];
	key_line(key, want, sizeof want);
	size_t wl = strlen(want);
	if (len > wl && memcmp(data, want, wl) == 0 && data[wl] == '\n') {
		memmove(data, data + wl + 1, len - wl);
		*text = data;
		data = NULL;
		hit = 1;
	}
out:
	free(data);
	close(fd);
	return hit;
}

int complete_cache_write(const char *dir, const char *key, const char *text)
{
	if (!dir || strlen(text) > COMPLETE_CACHE_MAX_BYTES)
		return -1;
	struct err e;
	err_clear(&e);
	if (file_out_mkdir(dir, &e) < 0)
		return -1;
	char *path = entry_path(dir, key);
	if (!path)
		return -1;
	struct file_out fo;
	int rc = file_out_open(&fo, path, &e);
	free(path);
	if (rc < 0)
		return -1;
	char line[1024];
	key_line(key, line, sizeof line);
	if (fprintf(fo.f, "%s\n%s", line, text) < 0) {
		file_out_abandon(&fo);
		return -1;
	}
	return file_out_commit(&fo, &e);
}
