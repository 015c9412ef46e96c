/* meson-test: integration npm */
/* The session module and the typed Catalyst calls, in process, against the
 * Catalyst simulator on loopback: session_open builds the connection the
 * request asks for, and catalyst_whoami, catalyst_list_projects, the run
 * listing and catalyst_get_run read both schema profiles into structs. */

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalyst.h"
#include "event.h"
#include "src/audit_catalyst.h" /* the pipeline's private calls */
#include "testlib.h"

static void sim_start(struct testlib_server *s, const char *profile)
{
	const char *argv[] = {testlib_node(),
			      testlib_src("tests/sim/catalyst-sim.mjs"),
			      "--profile",
			      profile,
			      "--data-sharing",
			      "full",
			      "--whoami-names-level",
			      "--max-seconds",
			      "120",
			      NULL};
	ck_assert_int_eq(testlib_server_start(s, (char *const *)argv, NULL, "LISTENING", 20000), 0);
}

static char token_dir[] = "/tmp/ca-session-tokens-XXXXXX";

static void remove_token_dir(void)
{
	rmdir(token_dir);
}

static void request_for(struct audit_request *rq, const char *url)
{
	audit_request_init(rq);
	rq->server = url;
	rq->no_login = true; /* nothing here may wait for a person */
	rq->timeout_s = 30;
	/* What the CLI resolves from $XDG_CONFIG_HOME: an empty folder, so no
	 * stored token is found (the simulator asks for none). */
	if (token_dir[sizeof token_dir - 2] == 'X') {
		ck_assert_ptr_nonnull(mkdtemp(token_dir));
		atexit(remove_token_dir);
	}
	rq->token_dir = token_dir;
}

static const char *const profiles[] = {"a", "b"};

START_TEST(typed_calls_read_both_profiles)
{
	struct testlib_server srv;
	sim_start(&srv, profiles[_i]);
	struct audit_request rq;
	request_for(&rq, srv.url);
	struct err e;
	err_clear(&e);
	struct session *s = audit_session_open(&rq, SESSION_CATALYST, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	struct catalyst *c = session_catalyst(s);
	ck_assert_ptr_nonnull(c);
	ck_assert(catalyst_has_tool(c, "catalyst_list_workflow_runs"));

	struct catalyst_identity id;
	ck_assert_int_eq(catalyst_whoami(c, &id, NULL, &e), 0);
	ck_assert_str_eq(id.org_name, "Acme Payments");
	ck_assert_str_eq(id.user, "oncall@acme.example");
	ck_assert_int_eq(id.sharing, SHARING_FULL);
	ck_assert(catalyst_key_match(id.sharing_key, "datasharinglevel"));
	catalyst_identity_finish(&id);

	struct catalyst_projects projects;
	ck_assert_int_eq(catalyst_list_projects(c, &projects, &e), 0);
	ck_assert_uint_eq(projects.n, 4);
	bool payments = false;
	for (size_t i = 0; i < projects.n; i++)
		if (projects.items[i].name && strcmp(projects.items[i].name, "payments") == 0)
			payments = project_same_uid(projects.items[i].uid, "212");
	ck_assert(payments);
	catalyst_projects_finish(&projects);

	/* every run of the project, each once, page by page */
	struct project_ref project = PROJECT_REF_DEFAULT;
	struct catalyst_run_filter f = {.project = &project, .page_size = 3};
	struct catalyst_run_list list;
	catalyst_list_runs(c, &f, &list);
	json_t *seen = json_object();
	size_t runs = 0;
	int step;
	while ((step = catalyst_run_list_next(&list, NULL, &e)) > 0)
		for (size_t i = 0; i < list.n; i++, runs++) {
			char *key = catalyst_run_key(list.items[i].app_id, list.items[i].run_id);
			ck_assert_msg(!json_object_get(seen, key), "%s given twice", key);
			json_object_set_new(seen, key, json_true());
			free(key);
		}
	ck_assert_msg(step == 0, "%s", e.msg);
	ck_assert_uint_gt(list.pages, 1);
	ck_assert_uint_eq(list.repeats, 0);
	ck_assert_uint_ge(runs, 12);
	char *pay = catalyst_run_key("checkout", "pay-20931");
	ck_assert_ptr_nonnull(json_object_get(seen, pay));
	free(pay);
	json_decref(seen);
	catalyst_run_list_finish(&list);

	/* --limit: top-level runs, the listing ends there */
	f = (struct catalyst_run_filter){.project = &project, .limit = 2};
	catalyst_list_runs(c, &f, &list);
	runs = 0;
	while ((step = catalyst_run_list_next(&list, NULL, &e)) > 0)
		runs += list.n;
	ck_assert_int_eq(step, 0);
	ck_assert(list.limit_reached);
	ck_assert_uint_eq(list.top_level, 2);
	ck_assert_uint_ge(runs, 2);
	catalyst_run_list_finish(&list);

	struct catalyst_run run;
	ck_assert_int_eq(catalyst_get_run(c, &project, "checkout", "pay-20931", &run, NULL, &e), 0);
	ck_assert_ptr_nonnull(run.log);
	ck_assert_uint_gt(event_log_count(run.log), 0);
	event_log_free(run.log);

	err_clear(&e);
	ck_assert_int_eq(catalyst_check_run(c, &project, "checkout", "no-such-run", &e), -1);
	ck_assert_int_eq(e.code, ERR_NOT_FOUND);
	err_clear(&e);
	ck_assert_int_eq(catalyst_check_run(c, &project, "checkout", "pay-20931", &e), 0);

	session_close(s);
	testlib_server_stop(&srv);
}
END_TEST

/* Any MCP server, without the tool layer (`tools`). */
START_TEST(mcp_session_has_no_tool_layer)
{
	struct testlib_server srv;
	sim_start(&srv, "a");
	struct audit_request rq;
	request_for(&rq, srv.url);
	struct err e;
	err_clear(&e);
	struct session *s = audit_session_open(&rq, SESSION_MCP, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_ptr_null(session_catalyst(s));
	json_t *tools = mcp_list_tools(session_mcp(s), &e);
	ck_assert_ptr_nonnull(tools);
	ck_assert_uint_gt(json_array_size(tools), 5);
	json_decref(tools);
	session_close(s);
	testlib_server_stop(&srv);
}
END_TEST

/* A server that cannot be reached: the Catalyst session says where, the
 * plain MCP one gives the error as it came (as `tools` always printed it). */
START_TEST(errors_say_where)
{
	struct audit_request rq;
	audit_request_init(&rq);
	rq.stdio_cmd = "exit 3";
	rq.timeout_s = 10;
	struct err e;
	err_clear(&e);
	ck_assert_ptr_null(audit_session_open(&rq, SESSION_CATALYST, &e));
	ck_assert_msg(strncmp(e.msg, "connecting to exit 3: ", 22) == 0, "%s", e.msg);
	err_clear(&e);
	ck_assert_ptr_null(audit_session_open(&rq, SESSION_MCP, &e));
	ck_assert(e.code != ERR_NONE);
	ck_assert_msg(strstr(e.msg, "connecting to") == NULL, "%s", e.msg);
	session_close(NULL);
}
END_TEST

int main(void)
{
	/* No user's token or token store reaches the simulator. */
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "session");
	setenv("XDG_CONFIG_HOME", dir, 1);
	unsetenv("CATALYST_TOKEN");
	Suite *s = suite_create("session");
	struct testlib_group *tc = testlib_group("session");
	testlib_group_timeout(tc, 120);
	add_loop_test(tc, typed_calls_read_both_profiles, 0, 2);
	add_test(tc, mcp_session_has_no_tool_layer);
	add_test(tc, errors_say_where);
	testlib_suite_add(s, tc);
	int rc = testlib_main(s);
	testlib_remove_tree(dir);
	return rc;
}
