/* meson-test: integration slow serial peers */
/* The official MCP client conformance suite (@modelcontextprotocol/conformance)
 * run against tests/conformance/conformance-client, the adapter built on
 * the core library. The suite passes a client that does nothing in some
 * scenarios, so this test reads each scenario's checks.json and requires
 * the checks that prove the behaviour, by id, to be SUCCESS. */

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static const struct {
	const char *scenario;
	const char *checks[4]; /* must be SUCCESS */
	const char *timing;    /* a check that may be WARNING (late) but not FAILURE */
} scenarios[] = {
	{"initialize", {"mcp-client-initialization", NULL}, NULL},
	{"tools_call", {"tool-add-numbers", NULL}, NULL},
	/* Reconnection after a graceful stream close, with Last-Event-ID.
	 * The suite also times the reconnect against `retry:`; too early is a
	 * failure we must never show, a little late is only a warning a busy
	 * machine can cause. */
	{"sse-retry",
	 {"client-sse-graceful-reconnect", "client-sse-last-event-id", NULL},
	 "client-sse-retry-timing"},
};

START_TEST(scenario_passes)
{
	const char *scenario = scenarios[_i].scenario;
	char tmp[] = "/tmp/ca-conformance-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmp));

	char client[4096], loopback[4096], suite[4096];
	snprintf(client, sizeof client, "%s/tests/conformance/conformance-client", testlib_env("CA_BUILD_DIR"));
	snprintf(loopback, sizeof loopback, "%s", testlib_src("tests/sim/loopback.mjs"));
	snprintf(suite, sizeof suite, "%s/node_modules/.bin/conformance", testlib_env("CA_NPM_DIR"));
	ck_assert_msg(access(client, X_OK) == 0, "%s is not built", client);
	/* The suite splits --command on spaces. */
	ck_assert_msg(strchr(client, ' ') == NULL, "build path has a space: %s", client);

	/* loopback.mjs keeps the suite's scenario servers on 127.0.0.1. */
	char *argv[] = {
		(char *)testlib_node(), "--import",       loopback,    suite,   "client", "--command", client,
		"--scenario",           (char *)scenario, "--timeout", "30000", "-o",     tmp,         NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run(argv, NULL, NULL, 0, 60000, &o), 0);
	ck_assert_msg(!o.timed_out, "conformance %s timed out; stderr:\n%s", scenario, o.err);
	ck_assert_msg(o.status == 0, "conformance %s exited %d; stderr:\n%s", scenario, o.status, o.err);

	char *dir = testlib_conformance_result_dir(tmp, scenario);
	ck_assert_msg(dir != NULL, "no result directory for %s; stderr:\n%s", scenario, o.err);
	char path[4200];
	snprintf(path, sizeof path, "%s/checks.json", dir);
	json_error_t jerr;
	json_t *checks = json_load_file(path, 0, &jerr);
	ck_assert_msg(json_is_array(checks), "%s: %s", path, jerr.text);

	for (int k = 0; scenarios[_i].checks[k]; k++) {
		json_t *c = testlib_conformance_check(checks, scenarios[_i].checks[k]);
		ck_assert_msg(c != NULL, "%s: no check %s", scenario, scenarios[_i].checks[k]);
		const char *status = json_string_value(json_object_get(c, "status"));
		ck_assert_msg(status && strcmp(status, "SUCCESS") == 0, "%s: %s is %s: %s", scenario,
			      scenarios[_i].checks[k], status ? status : "?",
			      json_string_value(json_object_get(c, "errorMessage")));
	}
	if (scenarios[_i].timing) {
		json_t *c = testlib_conformance_check(checks, scenarios[_i].timing);
		ck_assert_msg(c != NULL, "%s: no check %s", scenario, scenarios[_i].timing);
		const char *status = json_string_value(json_object_get(c, "status"));
		ck_assert_msg(status && (strcmp(status, "SUCCESS") == 0 || strcmp(status, "WARNING") == 0),
			      "%s: %s is %s: %s", scenario, scenarios[_i].timing, status ? status : "?",
			      json_string_value(json_object_get(c, "errorMessage")));
		ck_assert(!json_is_true(json_object_get(json_object_get(c, "details"), "tooEarly")));
	}
	/* And nothing else failed. */
	size_t i;
	json_t *c;
	json_array_foreach(checks, i, c) {
		const char *status = json_string_value(json_object_get(c, "status"));
		ck_assert_msg(!status || strcmp(status, "FAILURE") != 0, "%s: check %s failed: %s", scenario,
			      json_string_value(json_object_get(c, "id")),
			      json_string_value(json_object_get(c, "errorMessage")));
	}

	json_decref(checks);
	free(dir);
	testlib_output_free(&o);
	testlib_remove_tree(tmp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("conformance");
	struct testlib_group *tc = testlib_group("client");
	testlib_group_timeout(tc, 90);
	add_loop_test(tc, scenario_passes, 0, sizeof scenarios / sizeof *scenarios);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
