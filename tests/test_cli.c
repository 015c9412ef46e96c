#include <string.h>

#include "testlib.h"

START_TEST(help_lists_commands_and_exits_0)
{
	struct testlib_output o;
	char *args[] = {"--help", NULL};
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, 10000, &o), 0);
	ck_assert_int_eq(o.status, 0);
	ck_assert_ptr_nonnull(strstr(o.out, "run APP_ID RUN_ID"));
	ck_assert_ptr_nonnull(strstr(o.out, "--fail-on"));
	testlib_output_free(&o);
}
END_TEST

START_TEST(usage_errors_exit_2)
{
	static char *cases[][4] = {
		{"bogus", NULL},
		{"run", "only-one", NULL},
		{"--format", "yaml", "file", NULL},
		{"--jobs", "0", "runs", NULL},
		{"--nope", NULL},
		{NULL},
	};
	for (int i = 0; i < 6; i++) {
		struct testlib_output o;
		ck_assert_int_eq(testlib_run_cli(cases[i], NULL, NULL, 10000, &o), 0);
		ck_assert_msg(o.status == 2, "case %d: status %d, stderr %s", i, o.status, o.err);
		ck_assert_ptr_nonnull(strstr(o.err, "catalyst-audit: error: "));
		testlib_output_free(&o);
	}
}
END_TEST

START_TEST(version_names_libraries)
{
	struct testlib_output o;
	char *args[] = {"--version", NULL};
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, 10000, &o), 0);
	ck_assert_int_eq(o.status, 0);
	ck_assert_ptr_nonnull(strstr(o.out, "catalyst-audit "));
	ck_assert_ptr_nonnull(strstr(o.out, "libcurl "));
	ck_assert_ptr_nonnull(strstr(o.out, "jansson "));
	testlib_output_free(&o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, help_lists_commands_and_exits_0);
	tcase_add_test(tc, usage_errors_exit_2);
	tcase_add_test(tc, version_names_libraries);
	suite_add_tcase(s, tc);
	return testlib_main(s);
}
