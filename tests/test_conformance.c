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

/* Each scenario runs under the suite's release (0.1.16, spec NULL) or its
 * 0.2.0 alpha pinned in tests/npm (`conformance-next`), which serves the
 * revision `spec` names: its 2026-07-28 scenarios, and the 2025-11-25
 * ones again, where our server/discover probe meets a legacy server and
 * the handshake must follow. */
static const struct {
	const char *scenario;
	const char *spec;
	const char *checks[8]; /* must be SUCCESS */
	const char *timing;    /* a check that may be WARNING (late) but not FAILURE */
} scenarios[] = {
	{"initialize", NULL, {"mcp-client-initialization", NULL}, NULL},
	{"tools_call", NULL, {"tool-add-numbers", NULL}, NULL},
	/* Reconnection after a graceful stream close, with Last-Event-ID.
	 * The suite also times the reconnect against `retry:`; too early is a
	 * failure we must never show, a little late is only a warning a busy
	 * machine can cause. */
	{"sse-retry",
	 NULL,
	 {"client-sse-graceful-reconnect", "client-sse-last-event-id", NULL},
	 "client-sse-retry-timing"},
	{"initialize", "2025-11-25", {"mcp-client-initialization", NULL}, NULL},
	{"tools_call", "2025-11-25", {"tool-add-numbers", "wire-schema-valid", NULL}, NULL},
	{"sse-retry",
	 "2025-11-25",
	 {"client-sse-graceful-reconnect", "client-sse-last-event-id", NULL},
	 "client-sse-retry-timing"},
	{"tools_call", "2026-07-28", {"tool-add-numbers", "wire-schema-valid", NULL}, NULL},
	{"request-metadata",
	 "2026-07-28",
	 {"sep-2575-http-client-sends-version-header", "sep-2575-client-populates-meta",
	  "sep-2575-client-sends-client-info", "sep-2575-http-version-header-matches-meta",
	  "sep-2575-client-retry-supported-version", NULL},
	 NULL},
	{"http-standard-headers", "2026-07-28", {"sep-2243-client-includes-standard-headers", NULL}, NULL},
	{"http-custom-headers",
	 "2026-07-28",
	 {"sep-2243-client-supports-custom-headers", "sep-2243-client-mirrors-designated-params",
	  "sep-2243-client-encode-values", "sep-2243-client-base64-unsafe", "sep-2243-client-omit-null", NULL},
	 NULL},
	{"http-invalid-tool-headers",
	 "2026-07-28",
	 {"sep-2243-client-reject-invalid-tool", "sep-2243-x-mcp-header-not-empty",
	  "sep-2243-x-mcp-header-primitive-only", "sep-2243-x-mcp-header-unique", "sep-2243-x-mcp-header-charset",
	  NULL},
	 NULL},
	{"json-schema-ref-no-deref", "2026-07-28", {"sep-2106-no-network-ref-deref", NULL}, NULL},
	{"json-schema-2020-12-preservation",
	 "2026-07-28",
	 {"json-schema-2020-12-client-echo-completed", "json-schema-2020-12-client-$schema-preserved",
	  "json-schema-2020-12-client-$defs-preserved", "sep-2106-client-composition-keywords-preserved", NULL},
	 NULL},
};

START_TEST(scenario_passes)
{
	const char *scenario = scenarios[_i].scenario;
	char tmp[] = "/tmp/ca-conformance-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmp));

	struct testlib_output o;
	testlib_conformance_run("conformance-client", scenario, scenarios[_i].spec, tmp, NULL, &o);
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
