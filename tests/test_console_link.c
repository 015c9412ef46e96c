#include <stdlib.h>
#include <string.h>

#include "console_link.h"
#include "project.h"
#include "testlib.h"

static const struct {
	const char *name, *uid;
	int rc;
	enum project_form kind;
	const char *value;
} classify_cases[] = {
	{NULL, NULL, 0, PROJECT_NAME, "default"},
	{"shop", NULL, 0, PROJECT_NAME, "shop"},
	{"shop-prod", NULL, 0, PROJECT_NAME, "shop-prod"},
	{"prj-123", NULL, 0, PROJECT_UID, "prj-123"},
	{"123", NULL, 0, PROJECT_NONE, "123"},
	{"prj-", NULL, 0, PROJECT_NAME, "prj-"},
	{"prj-12a", NULL, 0, PROJECT_NAME, "prj-12a"},
	{"12a", NULL, 0, PROJECT_NAME, "12a"},
	{NULL, "165", 0, PROJECT_UID, "165"},
	{NULL, "prj-165", 0, PROJECT_UID, "prj-165"},
	{NULL, "shop", -1, PROJECT_NONE, NULL},
	{NULL, "prj-", -1, PROJECT_NONE, NULL},
	{NULL, "", -1, PROJECT_NONE, NULL},
	{NULL, "-165", -1, PROJECT_NONE, NULL},
	{"", NULL, -1, PROJECT_NONE, NULL},
	{"shop", "165", -1, PROJECT_NONE, NULL},
};

START_TEST(classify_table)
{
	struct project_ref p;
	struct err e;
	err_clear(&e);
	int rc = project_ref_from_options(classify_cases[_i].name, classify_cases[_i].uid, &p, &e);
	ck_assert_int_eq(rc, classify_cases[_i].rc);
	if (rc == 0) {
		ck_assert_int_eq(p.form, classify_cases[_i].kind);
		ck_assert_str_eq(p.value, classify_cases[_i].value);
		/* Where it came from travels with it: defaulted, or given as a uid. */
		ck_assert(p.defaulted == (!classify_cases[_i].name && !classify_cases[_i].uid));
		ck_assert(p.as_uid == (classify_cases[_i].uid != NULL));
	} else {
		ck_assert_int_eq(e.code, ERR_USAGE);
		ck_assert(strlen(e.msg) > 0);
	}
}
END_TEST

static const struct {
	const char *console;
	enum project_form kind;
	const char *project;
	const char *app, *run;
	const char *link; /* NULL: no link */
	enum err_code code;
} link_cases[] = {
	{NULL, PROJECT_NAME, "default", "checkout", "pay-20931",
	 "https://catalyst.diagrid.io/workflows/checkout/pay-20931?project=default", 0},
	{"https://catalyst.diagrid.io/", PROJECT_NAME, "shop", "checkout", "pay-1",
	 "https://catalyst.diagrid.io/workflows/checkout/pay-1?project=shop", 0},
	{"https://catalyst.diagrid.io///", PROJECT_UID, "165", "checkout", "pay-1",
	 "https://catalyst.diagrid.io/workflows/checkout/pay-1?projectId=165", 0},
	{NULL, PROJECT_UID, "prj-165", "checkout", "pay-1",
	 "https://catalyst.diagrid.io/workflows/checkout/pay-1?projectId=prj-165", 0},
	/* a child instance id: ':' encoded */
	{NULL, PROJECT_NAME, "default", "orders", "order-7740:0002",
	 "https://catalyst.diagrid.io/workflows/orders/order-7740%3A0002?project=default", 0},
	/* separators and spaces in segments cannot change the route */
	{NULL, PROJECT_NAME, "my proj", "a/b", "r?x#y",
	 "https://catalyst.diagrid.io/workflows/a%2Fb/r%3Fx%23y?project=my%20proj", 0},
	{NULL, PROJECT_NAME, "p&projectId=1", "app", "run",
	 "https://catalyst.diagrid.io/workflows/app/run?project=p%26projectId%3D1", 0},
	{NULL, PROJECT_NAME, "default", "app", "..",
	 "https://catalyst.diagrid.io/workflows/app/%2E%2E?project=default", 0},
	{NULL, PROJECT_NAME, "default", ".", "run",
	 "https://catalyst.diagrid.io/workflows/%2E/run?project=default", 0},
	{NULL, PROJECT_NAME, "default", "app", "r\xc3\xa9",
	 "https://catalyst.diagrid.io/workflows/app/r%C3%A9?project=default", 0},
	/* ambiguous or no project: the parameter is left out, never guessed */
	{NULL, PROJECT_NONE, "123", "app", "run", "https://catalyst.diagrid.io/workflows/app/run", 0},
	{NULL, PROJECT_NONE, NULL, "app", "run", "https://catalyst.diagrid.io/workflows/app/run", 0},
	{"http://127.0.0.1:8080/console", PROJECT_NAME, "default", "app", "run",
	 "http://127.0.0.1:8080/console/workflows/app/run?project=default", 0},
	/* no link at all */
	{NULL, PROJECT_NAME, "default", NULL, "run", NULL, ERR_INPUT},
	{NULL, PROJECT_NAME, "default", "", "run", NULL, ERR_INPUT},
	{NULL, PROJECT_NAME, "default", "app", NULL, NULL, ERR_INPUT},
	{NULL, PROJECT_NAME, "default", "app", "", NULL, ERR_INPUT},
	{"catalyst.diagrid.io", PROJECT_NAME, "default", "app", "run", NULL, ERR_USAGE},
	{"https://catalyst.diagrid.io/?x=1", PROJECT_NAME, "default", "app", "run", NULL, ERR_USAGE},
	{"https://catalyst.diagrid.io/#f", PROJECT_NAME, "default", "app", "run", NULL, ERR_USAGE},
	{"https://bad host/", PROJECT_NAME, "default", "app", "run", NULL, ERR_USAGE},
};

START_TEST(link_table)
{
	struct project_ref p = {link_cases[_i].kind, link_cases[_i].project, false, false};
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
	struct project_ref p = {PROJECT_NONE, "123", false, false};
	ck_assert(project_ref_unresolved(&p));
	ck_assert_ptr_nonnull(project_ref_note(&p));
	ck_assert_ptr_nonnull(strstr(project_ref_note(&p), "bare number"));
	p.form = PROJECT_NAME;
	ck_assert_ptr_null(project_ref_note(&p));
	p.form = PROJECT_UID;
	ck_assert_ptr_null(project_ref_note(&p));
	p = (struct project_ref){PROJECT_NONE, NULL, false, false};
	ck_assert(!project_ref_unresolved(&p));
	ck_assert_ptr_null(project_ref_note(&p));
}
END_TEST

START_TEST(uid_predicate)
{
	ck_assert(project_is_uid("0"));
	ck_assert(project_is_uid("prj-7"));
	ck_assert(!project_is_uid("prj7"));
	ck_assert(!project_is_uid("PRJ-7"));
	ck_assert(!project_is_uid(""));
	ck_assert(!project_is_uid(NULL));
	ck_assert(!project_is_uid("1 2"));
	ck_assert(project_same_uid("165", "prj-165"));
	ck_assert(project_same_uid("prj-165", "prj-165"));
	ck_assert(!project_same_uid("165", "16"));
	ck_assert(!project_same_uid(NULL, "165"));
}
END_TEST

/* The flag a message suggests is the option the user named the project
 * with: --project prj-165 stays --project, not --project-id. */
START_TEST(flag_as_given)
{
	char flag[64];
	struct project_ref p;
	ck_assert_int_eq(project_ref_from_options("prj-165", NULL, &p, NULL), 0);
	project_ref_flag(&p, flag, sizeof flag);
	ck_assert_str_eq(flag, "--project prj-165 ");
	ck_assert_int_eq(project_ref_from_options(NULL, "prj-165", &p, NULL), 0);
	project_ref_flag(&p, flag, sizeof flag);
	ck_assert_str_eq(flag, "--project-id prj-165 ");
	ck_assert_int_eq(project_ref_from_options(NULL, NULL, &p, NULL), 0);
	project_ref_flag(&p, flag, sizeof flag);
	ck_assert_str_eq(flag, "");
	ck_assert_int_eq(project_ref_from_options("default", NULL, &p, NULL), 0);
	ck_assert(!p.defaulted);
	project_ref_flag(&p, flag, sizeof flag);
	ck_assert_str_eq(flag, "--project default ");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("console_link");
	struct testlib_group *tc = testlib_group("classify");
	add_loop_test(tc, classify_table, 0, sizeof classify_cases / sizeof *classify_cases);
	add_test(tc, uid_predicate);
	add_test(tc, flag_as_given);
	testlib_suite_add(s, tc);
	tc = testlib_group("link");
	add_loop_test(tc, link_table, 0, sizeof link_cases / sizeof *link_cases);
	add_test(tc, note_only_when_left_out);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
