/* meson-test: integration slow serial peers */
/* The official MCP conformance suite's auth/ scenarios, run against
 * tests/conformance/conformance-auth-client (the core library's transport,
 * MCP and OAuth sessions). The browser is tests/sim/follow-redirect.sh via
 * $BROWSER: the suite's authorization server approves at once, the script
 * follows its redirect to the client's loopback callback. Each scenario's
 * checks.json is read and the checks that prove the behaviour must be
 * SUCCESS; every other check must not be FAILURE, except the ones listed
 * as deliberate deviations (and why). */

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

/* catalyst-audit has no dynamic client registration (Catalyst accepts only
 * pre-registered clients): the metadata scenarios expect a /register call
 * and record its absence as a failure. That one check is allowed to fail;
 * every check about discovery, PKCE, the authorization and token requests
 * and the token's use must pass. */
#define NO_DCR "client-registration"

#define DISCOVERY_CHECKS                                                                                      \
	"prm-pathbased-requested", "authorization-server-metadata", "authorization-request", "token-request", \
		"pkce-code-challenge-sent", "pkce-s256-method-used", "pkce-verifier-matches-challenge",       \
		"valid-bearer-token"

/* spec NULL: the suite's release, 0.1.16; else its 0.2.0 alpha
 * (`conformance-next` in tests/npm) serving that revision, where after
 * sign-in the MCP server is 2026-07-28's stateless one. Not run: the
 * scenarios that need a client secret from dynamic registration
 * (token-endpoint-auth-basic, -post), a re-registration at a second
 * authorization server (authorization-server-migration), the 2025-03-26
 * fallbacks (no protected resource metadata: no way to know the resource
 * a token is for) and the extensions (client credentials, DPoP, workload
 * identity, enterprise-managed), none of which a person signing in to
 * Catalyst from a terminal uses. */
static const struct {
	const char *scenario;
	const char *spec;
	const char *checks[10]; /* must be SUCCESS */
	const char *allowed_failure;
	int min_attempts; /* scope-retry-auth-attempt checks at least (0: none counted) */
} scenarios[] = {
	{"auth/metadata-default", NULL, {DISCOVERY_CHECKS, NULL}, NO_DCR, 0},
	{"auth/metadata-var1", NULL, {DISCOVERY_CHECKS, NULL}, NO_DCR, 0},
	{"auth/metadata-var2", NULL, {DISCOVERY_CHECKS, NULL}, NO_DCR, 0},
	{"auth/metadata-var3", NULL, {DISCOVERY_CHECKS, NULL}, NO_DCR, 0},
	{"auth/scope-from-www-authenticate",
	 NULL,
	 {"scope-from-www-authenticate", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/scope-from-scopes-supported",
	 NULL,
	 {"scope-from-scopes-supported", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/scope-omitted-when-undefined",
	 NULL,
	 {"scope-omitted-when-undefined", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/scope-step-up", NULL, {"scope-step-up-initial", "scope-step-up-escalation", NULL}, NULL, 0},
	/* It must step up (more than one authorization) and stop at three. */
	{"auth/scope-retry-limit", NULL, {"scope-retry-limit", NULL}, NULL, 2},
	{"auth/token-endpoint-auth-none",
	 NULL,
	 {"token-endpoint-auth-method", "resource-parameter-in-authorization", "resource-parameter-in-token",
	  "resource-parameter-valid-uri", "resource-parameter-consistency", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/pre-registration", NULL, {"pre-registration-auth", "valid-bearer-token", NULL}, NULL, 0},
	{"auth/resource-mismatch", NULL, {"resource-mismatch-rejected", NULL}, NULL, 0},
	{"auth/offline-access-scope",
	 NULL,
	 {"sep-2207-offline-access-requested", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/offline-access-not-supported",
	 NULL,
	 {"sep-2207-offline-access-not-requested", "valid-bearer-token", NULL},
	 NULL,
	 0},
	/* The authorization server takes Client ID Metadata Documents, and the
	 * client has no pre-registered id: the document's URL is the id. */
	{"auth/basic-cimd", NULL, {"cimd-client-id-used", "token-request", "valid-bearer-token", NULL}, NULL, 0},
	{"auth/metadata-default", "2026-07-28", {DISCOVERY_CHECKS, NULL}, NO_DCR, 0},
	{"auth/metadata-var1", "2026-07-28", {DISCOVERY_CHECKS, NULL}, NO_DCR, 0},
	/* The resource asked for is the metadata's (the origin here), not the
	 * MCP URL: resource-parameter-matches-prm. */
	{"auth/metadata-var2", "2026-07-28", {DISCOVERY_CHECKS, "resource-parameter-matches-prm", NULL}, NO_DCR, 0},
	{"auth/metadata-var3", "2026-07-28", {DISCOVERY_CHECKS, NULL}, NO_DCR, 0},
	{"auth/basic-cimd",
	 "2026-07-28",
	 {"cimd-client-id-used", "token-request", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/scope-from-www-authenticate",
	 "2026-07-28",
	 {"scope-from-www-authenticate", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/scope-step-up", "2026-07-28", {"scope-step-up-initial", "scope-step-up-escalation", NULL}, NULL, 0},
	{"auth/scope-retry-limit", "2026-07-28", {"scope-retry-limit", NULL}, NULL, 2},
	{"auth/token-endpoint-auth-none",
	 "2026-07-28",
	 {"token-endpoint-auth-method", "resource-parameter-in-authorization", "resource-parameter-in-token",
	  "resource-parameter-consistency", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/pre-registration", "2026-07-28", {"pre-registration-auth", "valid-bearer-token", NULL}, NULL, 0},
	{"auth/resource-mismatch", "2026-07-28", {"resource-mismatch-rejected", NULL}, NULL, 0},
	{"auth/offline-access-scope",
	 "2026-07-28",
	 {"sep-2207-offline-access-requested", "valid-bearer-token", NULL},
	 NULL,
	 0},
	/* RFC 9207: the iss of the authorization response, compared as a
	 * string with the issuer whose metadata was used, before the code is
	 * redeemed; and metadata naming another issuer is not used at all. */
	{"auth/iss-supported",
	 "2026-07-28",
	 {"sep-2468-client-compare-iss-supported", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/iss-not-advertised",
	 "2026-07-28",
	 {"sep-2468-client-proceed-no-iss", "valid-bearer-token", NULL},
	 NULL,
	 0},
	{"auth/iss-supported-missing", "2026-07-28", {"sep-2468-client-reject-missing-iss", NULL}, NULL, 0},
	{"auth/iss-wrong-issuer", "2026-07-28", {"sep-2468-client-compare-iss-supported", NULL}, NULL, 0},
	{"auth/iss-unexpected", "2026-07-28", {"sep-2468-client-compare-iss-unadvertised", NULL}, NULL, 0},
	{"auth/iss-normalized", "2026-07-28", {"sep-2468-client-no-normalization", NULL}, NULL, 0},
	{"auth/metadata-issuer-mismatch",
	 "2026-07-28",
	 {"sep-2468-client-validate-metadata-issuer", NULL},
	 NULL,
	 0},
};

/* Every scenario's results live under one folder that an unchecked
 * teardown (in the parent process) removes, failed scenarios included. */
static char base[512];

static void base_create(void)
{
	snprintf(base, sizeof base, "/tmp/ca-oauth-conformance-XXXXXX");
	if (!mkdtemp(base))
		abort();
}

static void base_remove(void)
{
	testlib_remove_tree(base);
}

/* Check messages are bounded: the suite's log goes to stderr instead. */
static void show_tail(const char *text)
{
	size_t n = strlen(text);
	fprintf(stderr, "--- conformance suite output (last part) ---\n%s\n---\n",
		n > 6000 ? text + n - 6000 : text);
}

START_TEST(auth_scenario)
{
	const char *scenario = scenarios[_i].scenario;
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s/run-XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(tmp));

	char browser[4200];
	snprintf(browser, sizeof browser, "BROWSER=%s", testlib_src("tests/sim/follow-redirect.sh"));
	char *env[] = {browser, NULL};
	struct testlib_output o;
	testlib_conformance_run("conformance-auth-client", scenario, scenarios[_i].spec, tmp, env, &o);
	if (o.timed_out)
		show_tail(o.err);
	ck_assert_msg(!o.timed_out, "conformance %s timed out", scenario);

	char *dir = testlib_conformance_result_dir(tmp, scenario);
	if (!dir)
		show_tail(o.err);
	ck_assert_msg(dir != NULL, "no result directory for %s", scenario);
	char path[4200];
	snprintf(path, sizeof path, "%s/checks.json", dir);
	json_error_t jerr;
	json_t *checks = json_load_file(path, 0, &jerr);
	ck_assert_msg(json_is_array(checks), "%s: %s", path, jerr.text);

	for (int k = 0; scenarios[_i].checks[k]; k++) {
		json_t *c = testlib_conformance_check(checks, scenarios[_i].checks[k]);
		const char *status = json_string_value(json_object_get(c, "status"));
		if (!status || strcmp(status, "SUCCESS") != 0)
			show_tail(o.err);
		ck_assert_msg(c != NULL, "%s: no check %s", scenario, scenarios[_i].checks[k]);
		ck_assert_msg(status && strcmp(status, "SUCCESS") == 0, "%s: %s is %s: %s", scenario,
			      scenarios[_i].checks[k], status ? status : "?",
			      json_string_value(json_object_get(c, "description")));
	}
	size_t i;
	json_t *c;
	int attempts = 0;
	json_array_foreach(checks, i, c) {
		const char *id = json_string_value(json_object_get(c, "id"));
		const char *status = json_string_value(json_object_get(c, "status"));
		if (id && strcmp(id, "scope-retry-auth-attempt") == 0)
			attempts++;
		if (scenarios[_i].allowed_failure && id && strcmp(id, scenarios[_i].allowed_failure) == 0)
			continue;
		ck_assert_msg(!status || (strcmp(status, "FAILURE") != 0 && strcmp(status, "WARNING") != 0),
			      "%s: check %s is %s: %s", scenario, id, status,
			      json_string_value(json_object_get(c, "description")));
	}
	if (scenarios[_i].min_attempts)
		ck_assert_msg(attempts >= scenarios[_i].min_attempts && attempts <= 3,
			      "%s: %d authorization attempts", scenario, attempts);

	/* The client's own stderr (its --verbose-style trace) never shows the
	 * suite's authorization code or access tokens. */
	snprintf(path, sizeof path, "%s/stderr.txt", dir);
	char *client_err = testlib_read_file(path, NULL);
	ck_assert_ptr_nonnull(client_err);
	ck_assert_msg(strstr(client_err, "test-auth-code") == NULL, "%s: code in the client's output", scenario);
	ck_assert_msg(strstr(client_err, "test-token") == NULL, "%s: token in the client's output", scenario);
	free(client_err);

	json_decref(checks);
	free(dir);
	testlib_output_free(&o);
	testlib_remove_tree(tmp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oauth_conformance");
	struct testlib_group *tc = testlib_group("auth");
	testlib_group_timeout(tc, 90);
	testlib_group_unchecked_fixture(tc, base_create, base_remove);
	add_loop_test(tc, auth_scenario, 0, sizeof scenarios / sizeof *scenarios);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
