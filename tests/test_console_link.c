#include <stdlib.h>
#include <string.h>

#include "console_link.h"
#include "testlib.h"

static const struct {
	const char *name, *uid;
	int rc;
	enum console_project_kind kind;
	const char *value;
} classify_cases[] = {
	{NULL, NULL, 0, CONSOLE_PROJECT_NAME, "default"},
	{"shop", NULL, 0, CONSOLE_PROJECT_NAME, "shop"},
	{"shop-prod", NULL, 0, CONSOLE_PROJECT_NAME, "shop-prod"},
	{"prj-123", NULL, 0, CONSOLE_PROJECT_UID, "prj-123"},
	{"123", NULL, 0, CONSOLE_PROJECT_AMBIGUOUS, "123"},
	{"prj-", NULL, 0, CONSOLE_PROJECT_NAME, "prj-"},
	{"prj-12a", NULL, 0, CONSOLE_PROJECT_NAME, "prj-12a"},
	{"12a", NULL, 0, CONSOLE_PROJECT_NAME, "12a"},
	{NULL, "165", 0, CONSOLE_PROJECT_UID, "165"},
	{NULL, "prj-165", 0, CONSOLE_PROJECT_UID, "prj-165"},
	{NULL, "shop", -1, CONSOLE_PROJECT_NONE, NULL},
	{NULL, "prj-", -1, CONSOLE_PROJECT_NONE, NULL},
	{NULL, "", -1, CONSOLE_PROJECT_NONE, NULL},
	{NULL, "-165", -1, CONSOLE_PROJECT_NONE, NULL},
	{"", NULL, -1, CONSOLE_PROJECT_NONE, NULL},
	{"shop", "165", -1, CONSOLE_PROJECT_NONE, NULL},
};

START_TEST(classify_table)
{
	struct console_project p;
	struct err e;
	err_clear(&e);
	int rc = console_project_classify(classify_cases[_i].name, classify_cases[_i].uid, &p, &e);
	ck_assert_int_eq(rc, classify_cases[_i].rc);
	if (rc == 0) {
		ck_assert_int_eq(p.kind, classify_cases[_i].kind);
		ck_assert_str_eq(p.value, classify_cases[_i].value);
	} else {
		ck_assert_int_eq(e.code, ERR_USAGE);
		ck_assert(strlen(e.msg) > 0);
	}
}
END_TEST

static const struct {
	const char *console;
	enum console_project_kind kind;
	const char *project;
	const char *app, *run;
	const char *link; /* NULL: no link */
	enum err_code code;
} link_cases[] = {
	{NULL, CONSOLE_PROJECT_NAME, "default", "checkout", "pay-20931",
	 "https://catalyst.diagrid.io/workflows/checkout/pay-20931?project=default", 0},
	{"https://catalyst.diagrid.io/", CONSOLE_PROJECT_NAME, "shop", "checkout", "pay-1",
	 "https://catalyst.diagrid.io/workflows/checkout/pay-1?project=shop", 0},
	{"https://catalyst.diagrid.io///", CONSOLE_PROJECT_UID, "165", "checkout", "pay-1",
	 "https://catalyst.diagrid.io/workflows/checkout/pay-1?projectId=165", 0},
	{NULL, CONSOLE_PROJECT_UID, "prj-165", "checkout", "pay-1",
	 "https://catalyst.diagrid.io/workflows/checkout/pay-1?projectId=prj-165", 0},
	/* a child instance id: ':' encoded */
	{NULL, CONSOLE_PROJECT_NAME, "default", "orders", "order-7740:0002",
	 "https://catalyst.diagrid.io/workflows/orders/order-7740%3A0002?project=default", 0},
	/* separators and spaces in segments cannot change the route */
	{NULL, CONSOLE_PROJECT_NAME, "my proj", "a/b", "r?x#y",
	 "https://catalyst.diagrid.io/workflows/a%2Fb/r%3Fx%23y?project=my%20proj", 0},
	{NULL, CONSOLE_PROJECT_NAME, "p&projectId=1", "app", "run",
	 "https://catalyst.diagrid.io/workflows/app/run?project=p%26projectId%3D1", 0},
	{NULL, CONSOLE_PROJECT_NAME, "default", "app", "..",
	 "https://catalyst.diagrid.io/workflows/app/%2E%2E?project=default", 0},
	{NULL, CONSOLE_PROJECT_NAME, "default", ".", "run",
	 "https://catalyst.diagrid.io/workflows/%2E/run?project=default", 0},
	{NULL, CONSOLE_PROJECT_NAME, "default", "app", "r\xc3\xa9",
	 "https://catalyst.diagrid.io/workflows/app/r%C3%A9?project=default", 0},
	/* ambiguous or no project: the parameter is left out, never guessed */
	{NULL, CONSOLE_PROJECT_AMBIGUOUS, "123", "app", "run", "https://catalyst.diagrid.io/workflows/app/run", 0},
	{NULL, CONSOLE_PROJECT_NONE, NULL, "app", "run", "https://catalyst.diagrid.io/workflows/app/run", 0},
	{"http://127.0.0.1:8080/console", CONSOLE_PROJECT_NAME, "default", "app", "run",
	 "http://127.0.0.1:8080/console/workflows/app/run?project=default", 0},
	/* no link at all */
	{NULL, CONSOLE_PROJECT_NAME, "default", NULL, "run", NULL, ERR_INPUT},
	{NULL, CONSOLE_PROJECT_NAME, "default", "", "run", NULL, ERR_INPUT},
	{NULL, CONSOLE_PROJECT_NAME, "default", "app", NULL, NULL, ERR_INPUT},
	{NULL, CONSOLE_PROJECT_NAME, "default", "app", "", NULL, ERR_INPUT},
	{"catalyst.diagrid.io", CONSOLE_PROJECT_NAME, "default", "app", "run", NULL, ERR_USAGE},
	{"https://catalyst.diagrid.io/?x=1", CONSOLE_PROJECT_NAME, "default", "app", "run", NULL, ERR_USAGE},
	{"https://catalyst.diagrid.io/#f", CONSOLE_PROJECT_NAME, "default", "app", "run", NULL, ERR_USAGE},
	{"https://bad host/", CONSOLE_PROJECT_NAME, "default", "app", "run", NULL, ERR_USAGE},
};

START_TEST(link_table)
{
	struct console_project p = {link_cases[_i].kind, link_cases[_i].project};
	struct err e;
	err_clear(&e);
	char *link = console_link_run(link_cases[_i].console, &p, link_cases[_i].app, link_cases[_i].run, &e);
	if (link_cases[_i].link) {
		ck_assert_ptr_nonnull(link);
		ck_assert_str_eq(link, link_cases[_i].link);
	} else {
		ck_assert_ptr_null(link);
		ck_assert_int_eq(e.code, link_cases[_i].code);
		ck_assert(strlen(e.msg) > 0);
	}
	free(link);
}
END_TEST

START_TEST(note_only_when_left_out)
{
	struct console_project p = {CONSOLE_PROJECT_AMBIGUOUS, "123"};
	ck_assert_ptr_nonnull(console_project_note(&p));
	ck_assert_ptr_nonnull(strstr(console_project_note(&p), "bare number"));
	p.kind = CONSOLE_PROJECT_NAME;
	ck_assert_ptr_null(console_project_note(&p));
	p.kind = CONSOLE_PROJECT_UID;
	ck_assert_ptr_null(console_project_note(&p));
}
END_TEST

START_TEST(uid_predicate)
{
	ck_assert(console_is_uid("0"));
	ck_assert(console_is_uid("prj-7"));
	ck_assert(!console_is_uid("prj7"));
	ck_assert(!console_is_uid("PRJ-7"));
	ck_assert(!console_is_uid(""));
	ck_assert(!console_is_uid(NULL));
	ck_assert(!console_is_uid("1 2"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("console_link");
	TCase *tc = tcase_create("classify");
	tcase_add_loop_test(tc, classify_table, 0, sizeof classify_cases / sizeof *classify_cases);
	tcase_add_test(tc, uid_predicate);
	suite_add_tcase(s, tc);
	tc = tcase_create("link");
	tcase_add_loop_test(tc, link_table, 0, sizeof link_cases / sizeof *link_cases);
	tcase_add_test(tc, note_only_when_left_out);
	suite_add_tcase(s, tc);
	return testlib_main(s);
}
