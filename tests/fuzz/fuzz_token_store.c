/* libFuzzer harness for the token store's reader (oauth_store_load): the
 * bytes are one token file, written 0600 into a 0700 folder of its own,
 * and looked up for one resource. Invariants: no crash, no leak; it is
 * found (1) only when it names that resource, its issuer and client, and
 * holds an access token, all as strings, not found (0), or refused (-1) with a sign-in error and a
 * message; and what was found, saved again and read back, is the same. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char resource[] = "https://mcp.example.test/mcp";

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Removes dir and what it holds, one level of folders deep. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/fuzz-token-store-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	char path[600];
	snprintf(path, sizeof path, "%s/tokens-fuzz0000.json", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0)
		abort();
	struct oauth_tokens t;
	struct err e;
	err_clear(&e);
	int rc = oauth_store_load(dir, NULL, NULL, resource, &t, &e);
	if (rc < 0 && (e.code != ERR_AUTH || !*e.msg))
		abort();
	if (rc == 1) {
		if (!t.access_token || !t.issuer || !t.client_id || !same(t.resource, resource))
			abort();
		char again_dir[640];
		snprintf(again_dir, sizeof again_dir, "%s/again", dir);
		struct oauth_tokens back;
		if (oauth_store_save(again_dir, &t, &e) < 0 ||
		    oauth_store_load(again_dir, t.issuer, t.client_id, resource, &back, &e) != 1)
			abort();
		if (!same(back.issuer, t.issuer) || !same(back.client_id, t.client_id) ||
		    !same(back.access_token, t.access_token) || !same(back.refresh_token, t.refresh_token) ||
		    !same(back.token_endpoint, t.token_endpoint) || !same(back.scope, t.scope) ||
		    back.expires_at != t.expires_at)
			abort();
		oauth_tokens_finish(&back);
	}
	if (rc >= 0)
		oauth_tokens_finish(&t);
	remove_tree(dir);
	return 0;
}
