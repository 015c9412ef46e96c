/* file_out: every file the tool writes is private (0600, folders 0700),
 * never written through a symbolic link, and whole or not at all. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_out.h"
#include "testlib.h"

static char dir[256];

static void dir_make(void)
{
	testlib_make_tmpdir(dir, sizeof dir, "file-out");
}

static void dir_remove(void)
{
	testlib_remove_tree(dir);
}

static const char *at(const char *name)
{
	static char p[2][512];
	static int k;
	k ^= 1;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void assert_content(const char *path, const char *want)
{
	size_t len = 0;
	char *got = testlib_read_file(path, &len);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

/* Only the files the test made: no temporary file left behind. */
static size_t entries(void)
{
	size_t n = 0;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%zu", &n), 1);
	pclose(p);
	return n;
}

/* Mode 0600 even under umask 0, which would let open()'s 0666 through. */
START_TEST(new_file_is_private)
{
	mode_t old = umask(0);
	struct file_out fo;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(file_out_open(&fo, at("new.json"), &e), 0);
	fputs("{}\n", fo.f);
	ck_assert_int_eq(file_out_commit(&fo, &e), 0);
	umask(old);
	struct stat st;
	ck_assert_int_eq(lstat(at("new.json"), &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0600, "mode %04o", (unsigned)(st.st_mode & 07777));
	assert_content(at("new.json"), "{}\n");
	ck_assert_uint_eq(entries(), 1);
}
END_TEST

/* An existing file keeps its old content until the commit, and a new
 * inode replaces it (mode 0600 even where the old one was 0644). */
START_TEST(replacement_is_atomic)
{
	put(at("report"), "old\n");
	chmod(at("report"), 0644);
	struct file_out fo;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(file_out_open(&fo, at("report"), &e), 0);
	fputs("new\n", fo.f);
	fflush(fo.f);
	assert_content(at("report"), "old\n");
	ck_assert_int_eq(file_out_commit(&fo, &e), 0);
	assert_content(at("report"), "new\n");
	struct stat st;
	ck_assert_int_eq(stat(at("report"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_eq(entries(), 1);

	/* Abandoned: the old content stays, the temporary file goes. */
	ck_assert_int_eq(file_out_open(&fo, at("report"), &e), 0);
	fputs("half", fo.f);
	file_out_abandon(&fo);
	assert_content(at("report"), "new\n");
	ck_assert_uint_eq(entries(), 1);
}
END_TEST

/* A link planted at the path is refused and what it points at untouched
 * (a dangling link would otherwise create its target). */
START_TEST(symbolic_link_refused)
{
	put(at("victim"), "precious\n");
	ck_assert_int_eq(symlink(at("victim"), at("out.json")), 0);
	ck_assert_int_eq(symlink(at("created-by-link"), at("dangling.json")), 0);
	struct file_out fo;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(file_out_open(&fo, at("out.json"), &e), -1);
	ck_assert_int_eq(e.code, ERR_USAGE);
	ck_assert_msg(strstr(e.msg, "symbolic link"), "%s", e.msg);
	ck_assert_int_eq(file_out_open(&fo, at("dangling.json"), &e), -1);
	assert_content(at("victim"), "precious\n");
	ck_assert_int_eq(access(at("created-by-link"), F_OK), -1);
	ck_assert_uint_eq(entries(), 3);
}
END_TEST

/* A device (or a pipe) cannot be replaced: it is written in place. */
START_TEST(device_written_in_place)
{
	struct file_out fo;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(file_out_open(&fo, "/dev/null", &e), 0);
	ck_assert_ptr_null(fo.tmp);
	fputs("x", fo.f);
	ck_assert_int_eq(file_out_commit(&fo, &e), 0);
	ck_assert_int_eq(file_out_open(&fo, dir, &e), -1);
	ck_assert_msg(strstr(e.msg, "is a folder"), "%s", e.msg);
	ck_assert_int_eq(file_out_open(&fo, at("missing/x.json"), &e), -1);
	ck_assert_int_eq(e.code, ERR_USAGE);
}
END_TEST

START_TEST(folders_are_private)
{
	mode_t old = umask(0);
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(file_out_mkdir(at("a/b/c"), &e), 0);
	umask(old);
	const char *made[] = {"a", "a/b", "a/b/c"};
	for (int i = 0; i < 3; i++) {
		struct stat st;
		ck_assert_int_eq(lstat(at(made[i]), &st), 0);
		ck_assert_msg(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700, "%s: mode %04o", made[i],
			      (unsigned)(st.st_mode & 07777));
	}
	ck_assert_int_eq(file_out_mkdir(at("a/b/c"), &e), 0); /* there already */
	ck_assert_int_eq(symlink(at("a"), at("link")), 0);
	ck_assert_int_eq(file_out_mkdir(at("link"), &e), -1);
	ck_assert_msg(strstr(e.msg, "symbolic link"), "%s", e.msg);
	put(at("plain"), "");
	ck_assert_int_eq(file_out_mkdir(at("plain"), &e), -1);
	ck_assert_msg(strstr(e.msg, "not a folder"), "%s", e.msg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("file_out");
	struct testlib_group *tc = testlib_group("file_out");
	testlib_group_checked_fixture(tc, dir_make, dir_remove);
	add_test(tc, new_file_is_private);
	add_test(tc, replacement_is_atomic);
	add_test(tc, symbolic_link_refused);
	add_test(tc, device_written_in_place);
	add_test(tc, folders_are_private);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
