/* link_for_run: the one place a report run gets its console link, its link
 * note and the project it names, from a saved file or from the server. */

#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "testlib.h"

#define NAME(v)                                 \
	{                                       \
		PROJECT_NAME, (v), false, false \
	}
#define UID(v)                                \
	{                                     \
		PROJECT_UID, (v), false, true \
	}
#define BARE(v)                                 \
	{                                       \
		PROJECT_NONE, (v), false, false \
	}
#define NONE                                     \
	{                                        \
		PROJECT_NONE, NULL, false, false \
	}
#define DEFAULT                                      \
	{                                            \
		PROJECT_NAME, "default", true, false \
	}

static const struct {
	enum link_source from;
	const char *console;
	struct project_ref project;
	const char *unresolved;
	const char *unvouched; /* the server did not confirm the project */
	const char *app, *run;
	int rc;
	const char *link;       /* NULL: none */
	const char *note;       /* a part of it; NULL: none */
	enum project_form form; /* in the report */
	const char *shown;      /* the report's project value */
} cases[] = {
	/* a file */
	{LINK_FROM_FILE, NULL, NAME("shop"), NULL, NULL, "orders", "o-1", 0,
	 "https://catalyst.diagrid.io/workflows/orders/o-1?project=shop", NULL, PROJECT_NAME, "shop"},
	{LINK_FROM_FILE, NULL, UID("prj-165"), NULL, NULL, "orders", "o-1", 0,
	 "https://catalyst.diagrid.io/workflows/orders/o-1?projectId=prj-165", NULL, PROJECT_UID, "prj-165"},
	{LINK_FROM_FILE, NULL, BARE("165"), NULL, NULL, "orders", "o-1", 0, NULL, "bare number", PROJECT_NONE,
	 "165"},
	{LINK_FROM_FILE, NULL, NONE, NULL, NULL, "orders", "o-1", 0, NULL, "no project given", PROJECT_NONE, NULL},
	{LINK_FROM_FILE, NULL, NAME("shop"), NULL, NULL, NULL, "o-1", 0, NULL, "the file does not name the app id",
	 PROJECT_NAME, "shop"},
	{LINK_FROM_FILE, NULL, NAME("shop"), NULL, NULL, "orders", NULL, 0, NULL,
	 "the file does not name the run id", PROJECT_NAME, "shop"},
	{LINK_FROM_FILE, "ftp://x", NAME("shop"), NULL, NULL, "orders", "o-1", -1, NULL, NULL, PROJECT_NAME,
	 "shop"},
	/* the server */
	{LINK_FROM_SERVER, NULL, DEFAULT, NULL, NULL, "orders", "o-1", 0,
	 "https://catalyst.diagrid.io/workflows/orders/o-1?project=default", NULL, PROJECT_NAME, "default"},
	{LINK_FROM_SERVER, "http://127.0.0.1:9/", UID("165"), NULL, NULL, "orders", "o:2", 0,
	 "http://127.0.0.1:9/workflows/orders/o%3A2?projectId=165", NULL, PROJECT_UID, "165"},
	{LINK_FROM_SERVER, NULL, BARE("42"), "console links carry no project: --project 42 ...", NULL, "orders",
	 "o-1", 0, "https://catalyst.diagrid.io/workflows/orders/o-1", "--project 42", PROJECT_NONE, NULL},
	{LINK_FROM_SERVER, NULL, DEFAULT, NULL, NULL, NULL, "o-1", 0, NULL, "the app id is unknown", PROJECT_NAME,
	 "default"},
	{LINK_FROM_SERVER, "ftp://x", DEFAULT, NULL, NULL, "orders", "o-1", 0, NULL, "--console", PROJECT_NAME,
	 "default"},
	/* Issue 28: the server answered about another project, or listed no
	 * such uid: no link, the reason as the note, the project as asked. */
	{LINK_FROM_SERVER, NULL, UID("999"), NULL,
	 "asked about project uid 999, the server answered about project default (uid prj-165): a link naming uid "
	 "999 cannot be vouched for",
	 "checkout", "pay-77", 0, NULL, "answered about project default (uid prj-165)", PROJECT_UID, "999"},
	{LINK_FROM_SERVER, NULL, NAME("shop"), NULL, "the server's project list has no project with name shop",
	 "checkout", "pay-77", 0, NULL, "no project with name shop", PROJECT_NAME, "shop"},
};

START_TEST(link_table)
{
	struct report_run rr;
	memset(&rr, 0, sizeof rr);
	rr.app_id = cases[_i].app ? strdup(cases[_i].app) : NULL;
	rr.run_id = cases[_i].run ? strdup(cases[_i].run) : NULL;
	struct err e;
	err_clear(&e);
	int rc = link_for_run(&rr, cases[_i].from, cases[_i].console, &cases[_i].project, cases[_i].unresolved,
			      cases[_i].unvouched, &e);
	ck_assert_int_eq(rc, cases[_i].rc);
	if (rc < 0) {
		ck_assert_int_eq(e.code, ERR_USAGE);
	} else {
		if (cases[_i].link)
			ck_assert_str_eq(rr.console_link, cases[_i].link);
		else
			ck_assert_ptr_null(rr.console_link);
		if (cases[_i].note)
			ck_assert_msg(rr.link_note && strstr(rr.link_note, cases[_i].note), "case %d: %s", _i,
				      rr.link_note ? rr.link_note : "(none)");
		else
			ck_assert_ptr_null(rr.link_note);
		ck_assert_int_eq(rr.project_form, cases[_i].form);
		if (cases[_i].shown)
			ck_assert_str_eq(rr.project, cases[_i].shown);
		else
			ck_assert_ptr_null(rr.project);
	}
	free(rr.app_id);
	free(rr.run_id);
	free(rr.project);
	free(rr.console_link);
	free(rr.link_note);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("audit_link");
	struct testlib_group *tc = testlib_group("link_for_run");
	add_loop_test(tc, link_table, 0, sizeof cases / sizeof *cases);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
