/* The token store: private folder and file modes whatever the umask,
 * atomic replacement, refusal of a file others can read, lookup by
 * (issuer, client id, resource), deletion, and where the folder is. */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oauth.h"
#include "testlib.h"

static char root[256];
static char dir[300];

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/ca-token-store-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(dir, sizeof dir, "%s/catalyst-audit", root);
}

static void teardown(void)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			char p[600];
			if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
	rmdir(root);
}

static struct oauth_tokens sample(const char *access, const char *refresh)
{
	struct oauth_tokens t = {
		.issuer = "https://api.example/mcp-auth",
		.client_id = "client-1",
		.resource = "https://mcp.example/mcp",
		.access_token = (char *)access,
		.refresh_token = (char *)refresh,
		.token_endpoint = "https://api.example/mcp-auth/token",
		.scope = "catalyst:read offline_access",
		.expires_at = 1900000000,
	};
	return t;
}

START_TEST(save_modes_and_roundtrip)
{
	struct err e;
	err_clear(&e);
	mode_t old = umask(0); /* the modes must not depend on the umask */
	struct oauth_tokens t = sample("access-1", "refresh-1");
	int rc = oauth_store_save(dir, &t, &e);
	umask(old);
	ck_assert_msg(rc == 0, "%s", e.msg);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	char *path = oauth_store_path(dir, t.issuer, t.client_id, t.resource);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_eq(testlib_count_entries(dir), 1); /* no temp file left behind */

	struct oauth_tokens got;
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), 1);
	ck_assert_str_eq(got.access_token, "access-1");
	ck_assert_str_eq(got.refresh_token, "refresh-1");
	ck_assert_str_eq(got.issuer, t.issuer);
	ck_assert_str_eq(got.client_id, "client-1");
	ck_assert_str_eq(got.token_endpoint, t.token_endpoint);
	ck_assert_str_eq(got.scope, t.scope);
	ck_assert_int_eq(got.expires_at, 1900000000);
	oauth_tokens_finish(&got);
	ck_assert_ptr_null(got.access_token);

	/* lookups that must miss: byte-for-byte resource, other client, other issuer */
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, "https://mcp.example/mcp/", &got, &e), 0);
	ck_assert_int_eq(oauth_store_load(dir, NULL, "client-2", t.resource, &got, &e), 0);
	ck_assert_int_eq(oauth_store_load(dir, "https://other", NULL, t.resource, &got, &e), 0);
	ck_assert_int_eq(oauth_store_load(dir, t.issuer, "client-1", t.resource, &got, &e), 1);
	oauth_tokens_finish(&got);
	free(path);
}
END_TEST

START_TEST(rewrite_is_atomic_replacement)
{
	struct err e;
	err_clear(&e);
	struct oauth_tokens t = sample("access-1", "refresh-1");
	ck_assert_int_eq(oauth_store_save(dir, &t, &e), 0);
	char *path = oauth_store_path(dir, t.issuer, t.client_id, t.resource);
	struct stat before, after;
	ck_assert_int_eq(stat(path, &before), 0);
	/* A reader holding the old file keeps reading the old, whole content. */
	FILE *reader = fopen(path, "r");
	ck_assert_ptr_nonnull(reader);
	t = sample("access-2", "refresh-2-rotated");
	ck_assert_int_eq(oauth_store_save(dir, &t, &e), 0);
	ck_assert_int_eq(stat(path, &after), 0);
	/* a new inode renamed over the old one, not a rewrite in place */
	ck_assert_uint_ne(before.st_ino, after.st_ino);
	char old[4096] = "";
	size_t n = fread(old, 1, sizeof old - 1, reader);
	old[n] = '\0';
	fclose(reader);
	ck_assert_ptr_nonnull(strstr(old, "refresh-1"));
	ck_assert_ptr_null(strstr(old, "refresh-2"));
	struct oauth_tokens got;
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), 1);
	ck_assert_str_eq(got.refresh_token, "refresh-2-rotated");
	oauth_tokens_finish(&got);
	ck_assert_uint_eq(testlib_count_entries(dir), 1);
	free(path);
}
END_TEST

START_TEST(refuses_readable_file)
{
	struct err e;
	err_clear(&e);
	struct oauth_tokens t = sample("access-secret-xyz", "refresh-secret-xyz");
	ck_assert_int_eq(oauth_store_save(dir, &t, &e), 0);
	char *path = oauth_store_path(dir, t.issuer, t.client_id, t.resource);
	ck_assert_int_eq(chmod(path, 0644), 0);
	struct oauth_tokens got;
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(e.msg, "readable by other users"));
	ck_assert_ptr_nonnull(strstr(e.msg, "0644"));
	ck_assert_ptr_null(strstr(e.msg, "secret"));
	ck_assert_ptr_null(got.access_token);
	/* group-readable alone is refused too */
	ck_assert_int_eq(chmod(path, 0640), 0);
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), -1);
	/* logout still removes it */
	ck_assert_int_eq(oauth_store_delete(dir, NULL, t.resource, &e), 1);
	ck_assert_uint_eq(testlib_count_entries(dir), 0);
	free(path);
}
END_TEST

START_TEST(refuses_open_folder)
{
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	struct oauth_tokens t = sample("a", "r");
	ck_assert_int_eq(oauth_store_save(dir, &t, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(e.msg, "chmod 700"));
	struct oauth_tokens got;
	/* A folder others can only read, with no token file in it (a config
	 * file's folder), is fine: nothing to load, no error. */
	err_clear(&e);
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), 0);
	ck_assert_int_eq(e.code, ERR_NONE);
	ck_assert_uint_eq(testlib_count_entries(dir), 0);
	/* With a token file in it: refused, the fix named. */
	ck_assert_int_eq(chmod(dir, 0700), 0);
	ck_assert_int_eq(oauth_store_save(dir, &t, &e), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), -1);
	ck_assert_msg(strstr(e.msg, "chmod 700"), "%s", e.msg);
	/* A folder others can write: refused, for logout too. */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), -1);
	ck_assert_msg(strstr(e.msg, "mode 0777"), "%s", e.msg);
	ck_assert_int_eq(oauth_store_delete(dir, NULL, t.resource, &e), -1);
	ck_assert_uint_eq(testlib_count_entries(dir), 1);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	ck_assert_int_eq(oauth_store_delete(dir, NULL, t.resource, &e), 1);
}
END_TEST

/* Token files planted by someone else, or left oversized: a FIFO (whose
 * open would wait for a writer forever) and a link are refused without
 * being opened for reading; logout removes them and the oversized one. */
START_TEST(planted_token_files)
{
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	char fifo[600], link[600], big[600];
	snprintf(fifo, sizeof fifo, "%s/tokens-00000000000000000000000000000001.json", dir);
	snprintf(link, sizeof link, "%s/tokens-00000000000000000000000000000002.json", dir);
	snprintf(big, sizeof big, "%s/tokens-00000000000000000000000000000003.json", dir);
	struct oauth_tokens t = sample("access-1", "refresh-1"), got;
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), -1);
	ck_assert_msg(strstr(e.msg, "not a regular file"), "%s", e.msg);
	ck_assert_int_eq(unlink(fifo), 0);
	ck_assert_int_eq(symlink("/etc/hostname", link), 0);
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), -1);
	ck_assert_msg(strstr(e.msg, "not a regular file"), "%s", e.msg);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	FILE *f = fopen(big, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"resource\":\"%s\",\"access_token\":\"", t.resource);
	for (int i = 0; i < 900 * 1024; i++)
		fputc('a', f);
	fputs("\"}", f);
	fclose(f);
	chmod(big, 0600);
	ck_assert_int_eq(oauth_store_delete(dir, NULL, t.resource, &e), 3);
	ck_assert_uint_eq(testlib_count_entries(dir), 0);
}
END_TEST

START_TEST(delete_matches_resource_and_client)
{
	struct err e;
	err_clear(&e);
	struct oauth_tokens a = sample("a1", "r1");
	struct oauth_tokens b = sample("a2", "r2");
	b.client_id = "client-2";
	struct oauth_tokens c = sample("a3", "r3");
	c.resource = "https://other.example/mcp";
	ck_assert_int_eq(oauth_store_save(dir, &a, &e), 0);
	ck_assert_int_eq(oauth_store_save(dir, &b, &e), 0);
	ck_assert_int_eq(oauth_store_save(dir, &c, &e), 0);
	ck_assert_uint_eq(testlib_count_entries(dir), 3);
	ck_assert_int_eq(oauth_store_delete(dir, "client-2", a.resource, &e), 1);
	ck_assert_uint_eq(testlib_count_entries(dir), 2);
	ck_assert_int_eq(oauth_store_delete(dir, NULL, a.resource, &e), 1);
	ck_assert_uint_eq(testlib_count_entries(dir), 1);
	struct oauth_tokens got;
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, c.resource, &got, &e), 1);
	ck_assert_str_eq(got.access_token, "a3");
	oauth_tokens_finish(&got);
	ck_assert_int_eq(oauth_store_delete(dir, NULL, a.resource, &e), 0);
}
END_TEST

/* The rule takes the two values; the CLI passes the environment's. */
START_TEST(default_dir_follows_xdg)
{
	static const struct {
		const char *xdg, *home, *want; /* want NULL: refused */
	} cases[] = {
		{"/x/conf", "/home/u", "/x/conf/catalyst-audit"},
		{"/x/conf", NULL, "/x/conf/catalyst-audit"},
		{"relative/ignored", "/home/u", "/home/u/.config/catalyst-audit"},
		{"", "/home/u", "/home/u/.config/catalyst-audit"},
		{NULL, "/home/u", "/home/u/.config/catalyst-audit"},
		{NULL, NULL, NULL},
		{"relative", "", NULL},
		{NULL, "home/relative", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct err e;
		err_clear(&e);
		char *d = oauth_store_default_dir(cases[i].xdg, cases[i].home, &e);
		if (cases[i].want) {
			ck_assert_msg(d && strcmp(d, cases[i].want) == 0, "case %zu: %s", i, d ? d : "(null)");
		} else {
			ck_assert_msg(!d, "case %zu: %s", i, d);
			ck_assert_int_eq(e.code, ERR_AUTH);
			ck_assert_str_eq(
				e.msg,
				"cannot find where to keep tokens: neither XDG_CONFIG_HOME nor HOME is set");
		}
		free(d);
	}
}
END_TEST

/* No usable folder reaches the store as NULL: each use refuses it with the
 * folder's error, nothing is read or written. */
START_TEST(no_dir_is_refused_where_needed)
{
	struct oauth_tokens t = {.issuer = "https://as.example",
				 .client_id = "c",
				 .resource = "https://mcp.example/mcp",
				 .access_token = "a"};
	struct oauth_tokens got;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(oauth_store_save(NULL, &t, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(e.msg, "cannot find where to keep tokens"));
	err_clear(&e);
	ck_assert_int_eq(oauth_store_load(NULL, NULL, NULL, t.resource, &got, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_ptr_null(got.access_token);
	err_clear(&e);
	ck_assert_int_eq(oauth_store_delete(NULL, NULL, t.resource, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	err_clear(&e);
	ck_assert_int_eq(oauth_store_lock(NULL, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
}
END_TEST

START_TEST(lock_creates_private_folder)
{
	struct err e;
	err_clear(&e);
	int fd = oauth_store_lock(dir, &e);
	ck_assert_int_ge(fd, 0);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	oauth_store_unlock(fd);
}
END_TEST

/* A file without its issuer or client is none this store wrote: it is
 * not found (a refresh from it would send no client id; found by
 * fuzz_token_store), and a whole one beside it still is. */
START_TEST(incomplete_token_file_not_used)
{
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	struct oauth_tokens t = sample("access-1", "refresh-1"), got;
	static const char *const files[] = {
		"{\"issuer\":\"https://api.example/mcp-auth\",\"resource\":\"https://mcp.example/mcp\","
		"\"access_token\":\"a\",\"refresh_token\":\"r\"}",
		"{\"client_id\":\"client-1\",\"resource\":\"https://mcp.example/mcp\",\"access_token\":\"a\"}",
		"{\"issuer\":7,\"client_id\":\"client-1\",\"resource\":\"https://mcp.example/mcp\","
		"\"access_token\":\"a\"}",
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char path[600];
		snprintf(path, sizeof path, "%s/tokens-0000000000000000000000000000000%zu.json", dir, i);
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(files[i], f);
		fclose(f);
		chmod(path, 0600);
		ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), 0);
	}
	ck_assert_int_eq(oauth_store_save(dir, &t, &e), 0);
	ck_assert_int_eq(oauth_store_load(dir, NULL, NULL, t.resource, &got, &e), 1);
	ck_assert_str_eq(got.client_id, "client-1");
	oauth_tokens_finish(&got);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("token_store");
	struct testlib_group *tc = testlib_group("store");
	testlib_group_checked_fixture(tc, setup, teardown);
	add_test(tc, save_modes_and_roundtrip);
	add_test(tc, rewrite_is_atomic_replacement);
	add_test(tc, refuses_readable_file);
	add_test(tc, refuses_open_folder);
	add_test(tc, planted_token_files);
	add_test(tc, delete_matches_resource_and_client);
	add_test(tc, default_dir_follows_xdg);
	add_test(tc, no_dir_is_refused_where_needed);
	add_test(tc, lock_creates_private_folder);
	add_test(tc, incomplete_token_file_not_used);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
