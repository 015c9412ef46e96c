/* --save-histories: file names a server's ids cannot steer out of the
 * folder, files only the user can read in a folder only the user can open,
 * and the run document written with what `file` needs to audit it again. */

#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_save.h"
#include "testlib.h"

/* Hostile ids and the names they must get. */
static const struct {
	const char *app, *run, *name;
} names[] = {
	{"checkout", "pay-20931", "checkout+pay-20931.json"},
	{"orders", "order-7740:0000", "orders+order-7740%3A0000.json"},
	{"..", "..", "%2E.+%2E..json"},
	{"../../etc", "passwd", "%2E.%2F..%2Fetc+passwd.json"},
	{"/abs", "a/b", "%2Fabs+a%2Fb.json"},
	{".hidden", "x", "%2Ehidden+x.json"},
	{"a+b", "c", "a%2Bb+c.json"}, /* '+' separates: escaped inside an id */
	{"a", "b+c", "a+b%2Bc.json"},
	{"", "", "%+%.json"},
	{"caf\xc3\xa9", "r\n", "caf%C3%A9+r%0A.json"},
};

START_TEST(names_stay_in_the_folder)
{
	char out[512];
	ck_assert_int_eq(audit_save_name(names[_i].app, names[_i].run, out, sizeof out), 0);
	ck_assert_str_eq(out, names[_i].name);
	ck_assert_ptr_null(strchr(out, '/'));
	ck_assert(out[0] != '.');
}
END_TEST

START_TEST(long_ids_get_a_bounded_name)
{
	char app[5000], run[5000], a2[5000], out[512], out2[512];
	memset(app, '/', sizeof app - 1);
	app[sizeof app - 1] = '\0';
	memset(run, 'r', sizeof run - 1);
	run[sizeof run - 1] = '\0';
	ck_assert_int_eq(audit_save_name(app, run, out, sizeof out), 0);
	ck_assert_uint_le(strlen(out), 200);
	ck_assert_ptr_null(strchr(out, '/'));
	ck_assert_ptr_nonnull(strstr(out, ".json"));
	/* two long ids that share their first 150 bytes differ by the hash */
	memcpy(a2, app, sizeof app);
	a2[4000] = 'x';
	ck_assert_int_eq(audit_save_name(a2, run, out2, sizeof out2), 0);
	ck_assert_str_ne(out, out2);
	/* a cut never splits a %XX escape */
	const char *tilde = strrchr(out, '~');
	ck_assert_ptr_nonnull(tilde);
	for (const char *p = out; p < tilde; p++)
		if (*p == '%')
			ck_assert(p + 3 <= tilde);
}
END_TEST

START_TEST(files_are_private_and_whole)
{
	char tmp[4096], dir[4200], path[4400];
	testlib_make_tmpdir(tmp, sizeof tmp, "save");
	snprintf(dir, sizeof dir, "%s/histories", tmp);
	struct err e;
	err_clear(&e);
	int fd = -1;
	ck_assert_msg(audit_save_open_dir(dir, &fd, &e) == 0, "%s", e.msg);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);

	json_t *doc = json_pack("{s:[{s:s}]}", "events", "eventType", "ExecutionStarted");
	struct project_ref project = {PROJECT_NAME, "payments", false, false};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		ck_assert_msg(audit_save_history(fd, names[i].app, names[i].run, doc, SHARING_METADATA, &project,
						 &e) == 0,
			      "%s", e.msg);
	/* every file in the folder, none beside it, each 0600 */
	ck_assert_uint_eq(testlib_count_entries(dir), sizeof names / sizeof *names);
	ck_assert_uint_eq(testlib_count_entries(tmp), 1);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i].name);
		ck_assert_msg(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "%s", path);
		ck_assert_uint_eq(st.st_mode & 0777, 0600);
	}
	/* what `file` reads from the envelope */
	snprintf(path, sizeof path, "%s/%s", dir, names[1].name);
	json_t *back = json_load_file(path, 0, NULL);
	ck_assert_ptr_nonnull(back);
	ck_assert_str_eq(json_string_value(json_object_get(back, "appId")), "orders");
	ck_assert_str_eq(json_string_value(json_object_get(back, "instanceId")), "order-7740:0000");
	ck_assert_str_eq(json_string_value(json_object_get(back, "dataSharingLevel")), "metadata");
	ck_assert_str_eq(json_string_value(json_object_get(back, "project")), "payments");
	ck_assert(json_equal(json_object_get(back, "events"), json_object_get(doc, "events")));
	json_decref(back);
	/* a level or project the answer named is left as it was */
	json_object_set_new(doc, "dataSharingLevel", json_string("full"));
	ck_assert_int_eq(audit_save_history(fd, "a", "b", doc, SHARING_METADATA, &project, &e), 0);
	snprintf(path, sizeof path, "%s/a+b.json", dir);
	back = json_load_file(path, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(back, "dataSharingLevel")), "full");
	json_decref(back);
	/* a link planted at a file's name is replaced, not followed */
	char target[4400];
	snprintf(target, sizeof target, "%s/target", tmp);
	FILE *f = fopen(target, "w");
	ck_assert_ptr_nonnull(f);
	fputs("untouched", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/x+y.json", dir);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(audit_save_history(fd, "x", "y", doc, SHARING_METADATA, &project, &e), 0);
	size_t len;
	char *t = testlib_read_file(target, &len);
	ck_assert_str_eq(t, "untouched");
	free(t);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	json_decref(doc);
	close(fd);
	testlib_remove_tree(tmp);
}
END_TEST

START_TEST(folder_others_can_open_is_refused)
{
	char tmp[4096], dir[4200], link[4200];
	testlib_make_tmpdir(tmp, sizeof tmp, "save");
	snprintf(dir, sizeof dir, "%s/open", tmp);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	struct err e;
	err_clear(&e);
	int fd = -1;
	ck_assert_int_eq(audit_save_open_dir(dir, &fd, &e), -1);
	ck_assert_int_eq(e.code, ERR_USAGE);
	ck_assert_msg(strstr(e.msg, "755") && strstr(e.msg, "chmod 700"), "%s", e.msg);
	/* a link to a private folder is not the folder */
	ck_assert_int_eq(chmod(dir, 0700), 0);
	snprintf(link, sizeof link, "%s/link", tmp);
	ck_assert_int_eq(symlink(dir, link), 0);
	err_clear(&e);
	ck_assert_int_eq(audit_save_open_dir(link, &fd, &e), -1);
	ck_assert_int_eq(e.code, ERR_USAGE);
	err_clear(&e);
	ck_assert_int_eq(audit_save_open_dir(dir, &fd, &e), 0);
	close(fd);
	testlib_remove_tree(tmp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("audit_save");
	struct testlib_group *tc = testlib_group("names");
	add_loop_test(tc, names_stay_in_the_folder, 0, sizeof names / sizeof *names);
	add_test(tc, long_ids_get_a_bounded_name);
	testlib_suite_add(s, tc);
	tc = testlib_group("files");
	add_test(tc, files_are_private_and_whole);
	add_test(tc, folder_others_can_open_is_refused);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
