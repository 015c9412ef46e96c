/* meson-test: integration slow peers */
/* Sign-in end to end with the built binary against a real authorization
 * server (oidc-provider: PKCE required, resource indicators, rotating
 * refresh tokens; tests/sim/oidc-server.mjs) in front of a protected MCP
 * server (tests/sim/protected-mcp.mjs). The browser is
 * tests/sim/follow-redirect.sh through $BROWSER, as a user's would be.
 * Everything on 127.0.0.1; tokens in a temporary XDG_CONFIG_HOME. And the
 * OAuth library called directly: it takes its token, browser and token
 * folder from its config alone, never from the environment. */

#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mcp.h"
#include "oauth.h"
#include "testlib.h"
#include "transport.h"

#define CLIENT_ID "catalyst-audit-test"

static struct testlib_server as, mcp;
static char home[256];
static char env_xdg[300], env_browser[4200], env_home[300];
static char store[400];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

static void start_servers(const char *prm_resource)
{
	char script[4096];
	snprintf(script, sizeof script, "%s", testlib_src("tests/sim/oidc-server.mjs"));
	char *as_argv[] = {(char *)testlib_node(), script, "--client-id", CLIENT_ID, NULL};
	ck_assert_int_eq(testlib_server_start(&as, as_argv, NULL, "ready ", 30000), 0);

	char issuer[300];
	snprintf(issuer, sizeof issuer, "%s", as.url);
	snprintf(script, sizeof script, "%s", testlib_src("tests/sim/protected-mcp.mjs"));
	char *mcp_argv[] = {
		(char *)testlib_node(), script, "--issuer", issuer, prm_resource ? "--prm-resource" : NULL,
		(char *)prm_resource,   NULL};
	ck_assert_int_eq(testlib_server_start(&mcp, mcp_argv, NULL, "ready ", 30000), 0);
}

static void setup_common(void)
{
	snprintf(home, sizeof home, "/tmp/ca-oauth-e2e-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(home));
	snprintf(env_xdg, sizeof env_xdg, "XDG_CONFIG_HOME=%s/config", home);
	snprintf(env_home, sizeof env_home, "HOME=%s", home);
	snprintf(env_browser, sizeof env_browser, "BROWSER=%s", testlib_src("tests/sim/follow-redirect.sh"));
	snprintf(store, sizeof store, "%s/config/catalyst-audit", home);
}

static void setup(void)
{
	setup_common();
	start_servers(NULL);
}

static void setup_mismatch(void)
{
	setup_common();
	start_servers("http://127.0.0.1:9/elsewhere");
}

static void teardown(void)
{
	testlib_server_stop(&mcp);
	testlib_server_stop(&as);
	nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool sets(const char *const *extras, const char *name)
{
	for (int i = 0; extras && extras[i]; i++)
		if (strncmp(extras[i], name, strlen(name)) == 0)
			return true;
	return false;
}

/* Runs catalyst-audit --server <url> ARGS with the test environment and
 * `extras` (NAME=VALUE entries, NULL terminated, which replace the
 * defaults of the same names; may be NULL). */
static void run_env(const char *server, const char *const *args, const char *const *extras,
		    struct testlib_output *o)
{
	char *argv[16];
	int n = 0;
	argv[n++] = "--server";
	argv[n++] = (char *)server;
	for (int i = 0; args[i] && n < 14; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	char *env[16];
	int k = 0;
	env[k++] = env_xdg;
	env[k++] = env_home;
	if (!sets(extras, "BROWSER="))
		env[k++] = env_browser;
	if (!sets(extras, "CATALYST_LOGIN_TIMEOUT="))
		env[k++] = "CATALYST_LOGIN_TIMEOUT=30";
	env[k++] = "CI=";
	/* an empty value counts as unset; `extras` may set it */
	if (!sets(extras, "CATALYST_TOKEN="))
		env[k++] = "CATALYST_TOKEN=";
	for (int i = 0; extras && extras[i] && k < 15; i++)
		env[k++] = (char *)extras[i];
	env[k] = NULL;
	/* login signs a person in: at a terminal (issue 19: without one it
	 * exits 3 at once); every other command runs as a script would. */
	bool login = false;
	for (int i = 0; args[i]; i++)
		login |= strcmp(args[i], "login") == 0;
	testlib_stdin_tty = login;
	ck_assert_int_eq(testlib_run_cli(argv, env, NULL, 60000, o), 0);
	testlib_stdin_tty = false;
	ck_assert_msg(!o->timed_out, "catalyst-audit timed out; stderr:\n%s", o->err);
}

/* The same with one extra NAME=VALUE, or NULL. */
static void run(const char *server, const char *const *args, const char *extra, struct testlib_output *o)
{
	const char *extras[] = {extra, NULL};
	run_env(server, args, extras, o);
}

/* The one token file in the store, or NULL. */
static char *token_file(void)
{
	DIR *d = opendir(store);
	if (!d)
		return NULL;
	char *found = NULL;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, "tokens-", 7) == 0) {
			ck_assert_msg(found == NULL, "two token files");
			ck_assert_int_ge(asprintf(&found, "%s/%s", store, de->d_name), 0);
		}
	closedir(d);
	return found;
}

static json_t *read_tokens(void)
{
	char *path = token_file();
	ck_assert_ptr_nonnull(path);
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	ck_assert_msg(json_is_object(doc), "%s: %s", path, je.text);
	free(path);
	return doc;
}

static void write_tokens(json_t *doc)
{
	char *path = token_file();
	ck_assert_ptr_nonnull(path);
	ck_assert_int_eq(json_dump_file(doc, path, 0), 0); /* keeps the file's mode */
	free(path);
}

static const char *field(json_t *doc, const char *k)
{
	const char *v = json_string_value(json_object_get(doc, k));
	ck_assert_msg(v != NULL, "no %s in the token file", k);
	return v;
}

/* None of the secrets of `doc` appears in the output. */
static void assert_no_secret(json_t *doc, const struct testlib_output *o)
{
	static const char *const keys[] = {"access_token", "refresh_token"};
	for (size_t i = 0; i < 2; i++) {
		const char *v = json_string_value(json_object_get(doc, keys[i]));
		if (!v || strlen(v) < 8)
			continue;
		ck_assert_msg(strstr(o->out, v) == NULL, "%s on stdout", keys[i]);
		ck_assert_msg(strstr(o->err, v) == NULL, "%s on stderr", keys[i]);
	}
}

static void login(void)
{
	struct testlib_output o;
	const char *args[] = {"login", "--client-id", CLIENT_ID, NULL};
	run(mcp.url, args, NULL, &o);
	ck_assert_msg(o.status == 0, "login exited %d:\n%s", o.status, o.err);
	/* the address is always printed, even when a browser opens it */
	ck_assert_ptr_nonnull(strstr(o.err, "open this address"));
	ck_assert_ptr_nonnull(strstr(o.err, "code_challenge_method=S256"));
	ck_assert_ptr_nonnull(strstr(o.err, "signed in to"));
	json_t *doc = read_tokens();
	assert_no_secret(doc, &o);
	json_decref(doc);
	testlib_output_free(&o);
}

START_TEST(login_stores_private_tokens)
{
	login();
	struct stat st;
	ck_assert_int_eq(stat(store, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	char *path = token_file();
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	free(path);
	json_t *doc = read_tokens();
	ck_assert_str_eq(field(doc, "resource"), mcp.url); /* byte for byte */
	ck_assert_str_eq(field(doc, "issuer"), as.url);
	ck_assert_str_eq(field(doc, "client_id"), CLIENT_ID);
	ck_assert(strlen(field(doc, "refresh_token")) > 10);
	ck_assert_ptr_nonnull(strstr(field(doc, "scope"), "catalyst:read"));
	ck_assert_ptr_null(strstr(field(doc, "scope"), "catalyst:write")); /* never asked for */
	ck_assert_int_gt(json_integer_value(json_object_get(doc, "expires_at")), 0);
	json_decref(doc);
}
END_TEST

/* The browser `login` starts gets no socket or pipe of ours beyond the
 * standard descriptors (the loopback listener, the connections to the
 * servers) and no CATALYST_* variable (CATALYST_TOKEN would be the
 * token; CATALYST_LOGIN_TIMEOUT stands for the rest). */
START_TEST(login_browser_gets_nothing_of_ours)
{
	char log[400], browser[1200];
	snprintf(log, sizeof log, "%s/inherited", home);
	snprintf(browser, sizeof browser, "BROWSER=%s %s %s", testlib_src("tests/sim/record-browser.sh"), log,
		 testlib_src("tests/sim/follow-redirect.sh"));
	const char *extras[] = {browser, "CATALYST_TOKEN=outer-secret-token", NULL};
	const char *args[] = {"login", "--client-id", CLIENT_ID, NULL};
	struct testlib_output o;
	run_env(mcp.url, args, extras, &o);
	ck_assert_msg(o.status == 0, "login exited %d:\n%s", o.status, o.err);
	char *got = testlib_read_file(log, NULL);
	ck_assert_msg(got != NULL, "the browser did not run: %s", o.err);
	ck_assert_msg(strstr(got, "fds:") && strstr(got, "env:"), "%s", got);
	ck_assert_msg(!strstr(got, "socket:["), "the browser inherited a socket:\n%s", got);
	ck_assert_msg(!strstr(strstr(got, "env:"), "CATALYST_"), "the browser inherited:\n%s", got);
	free(got);
	testlib_output_free(&o);
}
END_TEST

static void tools_ok(const char *extra, const char *verbose, struct testlib_output *o)
{
	const char *args[] = {"--format", "json", verbose ? verbose : "--no-login", "tools", NULL};
	run(mcp.url, args, extra, o);
	ck_assert_msg(o->status == 0, "tools exited %d:\n%s", o->status, o->err);
	ck_assert_ptr_nonnull(strstr(o->out, "catalyst_whoami"));
}

START_TEST(tools_refresh_rotation_logout)
{
	login();
	struct testlib_output o;
	tools_ok(NULL, NULL, &o);
	testlib_output_free(&o);

	/* Expiry: the stored token is past its time, so the client refreshes
	 * before using it and stores the rotated refresh token. */
	json_t *before = read_tokens();
	json_object_set_new(before, "expires_at", json_integer(1));
	write_tokens(before);
	tools_ok(NULL, "-v", &o);
	json_t *after = read_tokens();
	ck_assert_str_ne(field(after, "refresh_token"), field(before, "refresh_token"));
	ck_assert_str_ne(field(after, "access_token"), field(before, "access_token"));
	ck_assert_int_gt(json_integer_value(json_object_get(after, "expires_at")), 1);
	/* the -v trace shows the refresh, never a token */
	ck_assert_ptr_nonnull(strstr(o.err, "grant_type=refresh_token"));
	assert_no_secret(before, &o);
	assert_no_secret(after, &o);
	testlib_output_free(&o);
	char *path = token_file();
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	free(path);
	json_decref(before);

	/* A 401 for a token that looked valid: refresh, rotate, retry. */
	json_object_set_new(after, "access_token", json_string("not-a-valid-token"));
	json_object_set_new(after, "expires_at", json_integer(4000000000));
	write_tokens(after);
	tools_ok(NULL, NULL, &o);
	testlib_output_free(&o);
	json_t *again = read_tokens();
	ck_assert_str_ne(field(again, "refresh_token"), field(after, "refresh_token"));
	ck_assert_str_ne(field(again, "access_token"), "not-a-valid-token");
	json_decref(after);

	/* CATALYST_TOKEN overrides the store: a bad one is refused, exit 3. */
	const char *args[] = {"--no-login", "tools", NULL};
	run(mcp.url, args, "CATALYST_TOKEN=bogus-token-from-env", &o);
	ck_assert_int_eq(o.status, 3);
	ck_assert_ptr_nonnull(strstr(o.err, "CATALYST_TOKEN"));
	testlib_output_free(&o);
	/* ...and a good one works with no store at all. */
	char env_token[4096];
	snprintf(env_token, sizeof env_token, "CATALYST_TOKEN=%s", field(again, "access_token"));

	/* logout deletes the tokens; then the command says how to sign in. */
	const char *out_args[] = {"logout", NULL};
	run(mcp.url, out_args, NULL, &o);
	ck_assert_int_eq(o.status, 0);
	testlib_output_free(&o);
	ck_assert_ptr_null(token_file());
	tools_ok(env_token, NULL, &o);
	assert_no_secret(again, &o);
	testlib_output_free(&o);
	json_decref(again);

	run(mcp.url, args, NULL, &o);
	ck_assert_int_eq(o.status, 3);
	ck_assert_ptr_nonnull(strstr(o.err, "login --client-id"));
	testlib_output_free(&o);
}
END_TEST

/* --redirect-path is the path of the redirect URI the authorization server
 * was told, and of the listener that waits for it: a path the client was
 * not registered with is refused by the server, and the sign-in fails. And
 * --no-browser prints the address without starting one. */
START_TEST(redirect_path_and_no_browser_are_used)
{
	char marker[400], env_b[600];
	snprintf(marker, sizeof marker, "%s/browser-was-opened", home);
	snprintf(env_b, sizeof env_b, "BROWSER=touch %s", marker);
	struct testlib_output o;
	const char *nargs[] = {"login", "--client-id", CLIENT_ID, "--no-browser", NULL};
	const char *extras[] = {env_b, "CATALYST_LOGIN_TIMEOUT=2", NULL};
	run_env(mcp.url, nargs, extras, &o);
	ck_assert_int_ne(o.status, 0); /* nobody opened the address */
	ck_assert_ptr_nonnull(strstr(o.err, "open this address"));
	ck_assert_ptr_nonnull(strstr(o.err, "%2Fcallback"));
	ck_assert_int_ne(access(marker, F_OK), 0);
	testlib_output_free(&o);

	const char *args[] = {"login", "--client-id", CLIENT_ID, "--redirect-path", "/elsewhere", NULL};
	const char *extras2[] = {"CATALYST_LOGIN_TIMEOUT=5", NULL};
	run_env(mcp.url, args, extras2, &o);
	ck_assert_msg(o.status != 0, "signed in with an unregistered redirect path:\n%s", o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "%2Felsewhere"));
	ck_assert_ptr_null(token_file());
	testlib_output_free(&o);
}
END_TEST

START_TEST(no_login_never_opens_a_browser)
{
	char marker[400], env_b[600];
	snprintf(marker, sizeof marker, "%s/browser-was-opened", home);
	snprintf(env_b, sizeof env_b, "BROWSER=touch %s", marker);
	struct testlib_output o;
	/* stdin is not a TTY here: --no-login is implied */
	const char *args[] = {"tools", NULL};
	run(mcp.url, args, env_b, &o);
	ck_assert_int_eq(o.status, 3);
	ck_assert_ptr_nonnull(strstr(o.err, "not signed in"));
	ck_assert_ptr_nonnull(strstr(o.err, "login --client-id"));
	ck_assert_int_ne(access(marker, F_OK), 0);
	testlib_output_free(&o);

	/* login itself, told --no-login, refuses too */
	const char *largs[] = {"--no-login", "login", "--client-id", CLIENT_ID, NULL};
	run(mcp.url, largs, env_b, &o);
	ck_assert_int_eq(o.status, 3);
	ck_assert_int_ne(access(marker, F_OK), 0);
	testlib_output_free(&o);

	/* login without a client id explains what to pass */
	const char *nargs[] = {"login", NULL};
	run(mcp.url, nargs, env_b, &o);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "--client-id"));
	ck_assert_ptr_nonnull(strstr(o.err, "dynamic"));
	testlib_output_free(&o);
}
END_TEST

/* Issue 19: login without a person (no terminal, or CI set) starts no
 * browser and exits 3 at once, saying to use CATALYST_TOKEN. */
START_TEST(login_without_a_person_exits_3)
{
	char marker[400], env_b[600];
	snprintf(marker, sizeof marker, "%s/browser-was-opened", home);
	snprintf(env_b, sizeof env_b, "BROWSER=touch %s", marker);
	static const char *const args[] = {"login", "--client-id", CLIENT_ID, NULL};
	for (int ci = 0; ci < 2; ci++) {
		const char *extras[] = {env_b, ci ? "CI=true" : NULL, NULL};
		struct testlib_output o;
		char *argv[8] = {"--server", mcp.url};
		int n = 2;
		for (int i = 0; args[i]; i++)
			argv[n++] = (char *)args[i];
		argv[n] = NULL;
		char env_x[600], env_h[600];
		snprintf(env_x, sizeof env_x, "XDG_CONFIG_HOME=%s/config", home);
		snprintf(env_h, sizeof env_h, "HOME=%s", home);
		char *env[] = {env_x,
			       env_h,
			       (char *)extras[0],
			       "CATALYST_TOKEN=",
			       "CATALYST_LOGIN_TIMEOUT=30",
			       ci ? "CI=true" : "CI=",
			       NULL};
		/* with CI set, even at a terminal */
		testlib_stdin_tty = ci;
		ck_assert_int_eq(testlib_run_cli(argv, env, NULL, 60000, &o), 0);
		testlib_stdin_tty = false;
		ck_assert_msg(o.status == 3, "exit %d: %s", o.status, o.err);
		ck_assert_msg(strstr(o.err, "CATALYST_TOKEN"), "%s", o.err);
		ck_assert_msg(strstr(o.err, ci ? "CI is set" : "standard input is not a terminal"), "%s", o.err);
		ck_assert_int_ne(access(marker, F_OK), 0);
		ck_assert_ptr_null(strstr(o.err, "open this address"));
		testlib_output_free(&o);
	}
}
END_TEST

START_TEST(readable_token_file_refused)
{
	login();
	char *path = token_file();
	ck_assert_int_eq(chmod(path, 0644), 0);
	struct testlib_output o;
	const char *args[] = {"--no-login", "tools", NULL};
	run(mcp.url, args, NULL, &o);
	ck_assert_int_eq(o.status, 3);
	ck_assert_ptr_nonnull(strstr(o.err, "readable by other users"));
	testlib_output_free(&o);
	free(path);
}
END_TEST

/* A redirect with a forged state is refused (the browser gets 400) and
 * the client goes on waiting for the real one, which never comes here: the
 * sign-in times out, saying why, and stores nothing. */
START_TEST(tampered_state_refused)
{
	struct testlib_output o;
	const char *args[] = {"login", "--client-id", CLIENT_ID, NULL};
	const char *extras[] = {"FOLLOW_REDIRECT_TAMPER=state", "CATALYST_LOGIN_TIMEOUT=3", NULL};
	run_env(mcp.url, args, extras, &o);
	ck_assert_int_eq(o.status, 3);
	ck_assert_msg(strstr(o.err, "redirects that did not carry this sign-in's state were refused"), "%s",
		      o.err);
	ck_assert_ptr_null(token_file());
	testlib_output_free(&o);
}
END_TEST

/* A forged error redirect (access_denied, another state) sent to the
 * callback before the browser's own: it is refused and the real sign-in
 * goes through. */
START_TEST(forged_error_redirect_ignored)
{
	struct testlib_output o;
	const char *args[] = {"login", "--client-id", CLIENT_ID, NULL};
	run(mcp.url, args, "FOLLOW_REDIRECT_FORGE=error", &o);
	ck_assert_msg(o.status == 0, "login exited %d:\n%s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "the forged error redirect got HTTP 400"));
	ck_assert_ptr_null(strstr(o.err, "access_denied"));
	ck_assert_ptr_nonnull(strstr(o.err, "signed in to"));
	char *path = token_file();
	ck_assert_ptr_nonnull(path);
	free(path);
	testlib_output_free(&o);
}
END_TEST

/* The resource is sent as the protected resource metadata names it
 * (RFC 9728 §3.3, checked by MCP 2026-07-28's conformance suite), not as
 * the user typed the URL: the same server named with a trailing slash
 * signs in, where sending the URL byte for byte got invalid_target from
 * the authorization server, which knows only the metadata's resource. */
START_TEST(resource_sent_as_its_metadata_names_it)
{
	char url[300];
	snprintf(url, sizeof url, "%s/", mcp.url);
	struct testlib_output o;
	const char *args[] = {"login", "--client-id", CLIENT_ID, NULL};
	run(url, args, NULL, &o);
	ck_assert_msg(o.status == 0, "login exited %d:\n%s", o.status, o.err);
	ck_assert_ptr_null(strstr(o.err, "invalid_target"));
	ck_assert_ptr_nonnull(strstr(o.err, "signed in to"));
	/* Kept under the URL used (the store's key), with the metadata's
	 * resource for the refreshes to ask for. */
	char *path = token_file();
	ck_assert_ptr_nonnull(path);
	json_t *doc = json_load_file(path, 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "resource")), url);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "resource_indicator")), mcp.url);
	json_decref(doc);
	free(path);
	testlib_output_free(&o);
}
END_TEST

/* A metadata document's URL is a client id only where the authorization
 * server says it takes them (client_id_metadata_document_supported):
 * this one does not, and with no --client-id nothing is sent to it. */
START_TEST(client_metadata_url_needs_an_accepting_server)
{
	struct testlib_output o;
	const char *args[] = {"login", "--client-metadata-url", "https://client.invalid/catalyst-audit.json",
			      NULL};
	run(mcp.url, args, NULL, &o);
	ck_assert_int_eq(o.status, 3);
	ck_assert_msg(strstr(o.err, "accepts no client metadata documents"), "%s", o.err);
	ck_assert_msg(strstr(o.err, "needs a pre-registered OAuth client id"), "%s", o.err);
	ck_assert_ptr_null(strstr(o.err, "open this address"));
	ck_assert_ptr_null(token_file());
	testlib_output_free(&o);
}
END_TEST

/* Metadata naming another resource: the client stops before any
 * authorization request. */
START_TEST(wrong_resource_in_metadata_refused)
{
	struct testlib_output o;
	const char *args[] = {"login", "--client-id", CLIENT_ID, NULL};
	run(mcp.url, args, NULL, &o);
	ck_assert_int_eq(o.status, 3);
	ck_assert_ptr_nonnull(strstr(o.err, "names resource http://127.0.0.1:9/elsewhere"));
	ck_assert_ptr_null(strstr(o.err, "open this address"));
	ck_assert_ptr_null(token_file());
	testlib_output_free(&o);
}
END_TEST

/* ---- A hostile authorization server ------------------------------------ */

/* tests/sim/hostile-oauth.mjs names, in its metadata, URLs whose host hides
 * behind user information (http://localhost:1@127.0.0.1:PORT/token goes to
 * 127.0.0.1:PORT, not to localhost:1). The host behind the '@' is the
 * hostile server itself, on loopback, so its request log shows whether
 * anything was sent there: the refusal must come before any request to it
 * (a real attack would name another host; the table in test_oauth.c covers
 * that without any traffic). The first case is the control: without an
 * attack the code and the PKCE verifier do reach the token endpoint. */
static const struct {
	const char *option, *value;
	const char *message;  /* in stderr */
	const char *never[3]; /* requests that must not reach the server */
	const char *must;     /* one that must */
} hostile_cases[] = {
	{NULL, NULL, "the token endpoint refused", {NULL}, "POST /token code_verifier"},
	{"--token-endpoint",
	 "http://localhost:1@{host}/token",
	 "token_endpoint of the authorization server carries user information",
	 {"GET /authorize", "POST /token", NULL},
	 "GET /.well-known/oauth-authorization-server"},
	{"--authorization-endpoint",
	 "http://127.0.0.1:1@{host}/authorize",
	 "authorization_endpoint of the authorization server carries user information",
	 {"GET /authorize", "POST /token", NULL},
	 "GET /.well-known/oauth-authorization-server"},
	{"--issuer",
	 "http://localhost:1@{host}",
	 "authorization server (issuer) the resource metadata names carries user information",
	 {"GET /.well-known/oauth-authorization-server", "GET /.well-known/openid-configuration",
	  "GET /authorize"},
	 "GET /.well-known/oauth-protected-resource/mcp"},
	{"--resource-metadata",
	 "http://localhost:1@{host}/.well-known/oauth-protected-resource/mcp",
	 "resource_metadata URL the server named carries user information",
	 {"GET /.well-known/oauth-protected-resource", "GET /authorize", "POST /token"},
	 "POST /mcp"},
};

static struct testlib_server hostile;
static char hostile_log[400];

static void setup_hostile(void)
{
	setup_common();
	hostile.pid = -1;
	snprintf(hostile_log, sizeof hostile_log, "%s/requests.log", home);
}

static void teardown_hostile(void)
{
	testlib_server_stop(&hostile);
	nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

START_TEST(hostile_metadata_urls_refused)
{
	char script[4096];
	snprintf(script, sizeof script, "%s", testlib_src("tests/sim/hostile-oauth.mjs"));
	/* {host} is the server's own 127.0.0.1:PORT, filled in once it listens */
	char *argv[] = {
		(char *)testlib_node(),          script, "--log", hostile_log, (char *)hostile_cases[_i].option,
		(char *)hostile_cases[_i].value, NULL};
	if (!hostile_cases[_i].option)
		argv[4] = NULL;
	ck_assert_int_eq(testlib_server_start(&hostile, argv, NULL, "ready ", 30000), 0);

	struct testlib_output o;
	const char *args[] = {"login", "--client-id", CLIENT_ID, NULL};
	const char *extras[] = {"CATALYST_LOGIN_TIMEOUT=10", NULL};
	run_env(hostile.url, args, extras, &o);
	testlib_server_stop(&hostile);
	size_t len = 0;
	char *log = testlib_read_file(hostile_log, &len);
	ck_assert_ptr_nonnull(log);
	ck_assert_int_eq(o.status, 3);
	ck_assert_msg(strstr(o.err, hostile_cases[_i].message), "case %d: %s", _i, o.err);
	ck_assert_msg(strstr(log, hostile_cases[_i].must), "case %d: no '%s' in\n%s", _i, hostile_cases[_i].must,
		      log);
	for (int k = 0; k < 3 && hostile_cases[_i].never[k]; k++)
		ck_assert_msg(!strstr(log, hostile_cases[_i].never[k]), "case %d: '%s' reached the server:\n%s",
			      _i, hostile_cases[_i].never[k], log);
	if (hostile_cases[_i].option) {
		/* refused before the browser: no address to open */
		ck_assert_ptr_null(strstr(o.err, "open this address"));
		/* the message names where the request would have gone */
		char where[64];
		snprintf(where, sizeof where, "would send the request to http://127.0.0.1:%d", hostile.port);
		ck_assert_msg(strstr(o.err, where), "case %d: %s", _i, o.err);
	}
	ck_assert_ptr_null(token_file());
	testlib_output_free(&o);
	free(log);
}
END_TEST

/* A token endpoint that grants what must not be kept: refused before
 * anything is stored (exit 3, no token file). The last case is kept, with
 * its expiry capped instead of overflowing. */
static const struct {
	const char *answer; /* a printf format for the access token's filler, or the whole answer */
	bool big;
	const char *message; /* in stderr; NULL: signed in */
} token_answer_cases[] = {
	{NULL, true, "over 16384: refused, nothing stored"},
	{"{\"access_token\":\"abc\\r\\nX-Evil: 1\",\"token_type\":\"Bearer\"}", false,
	 "with byte 0x0d at 3, which an HTTP request cannot carry"},
	{"{\"access_token\":\"abcdefgh\",\"token_type\":\"Bearer\",\"scope\":\"catalyst:read catalyst:write "
	 "offline_access\"}",
	 false, "granted catalyst:write, more than was asked"},
	{"{\"access_token\":\"abcdefgh\",\"token_type\":\"Bearer\",\"expires_in\":9223372036854775807}", false,
	 NULL},
};

START_TEST(hostile_token_answers_refused)
{
	char answer[400], script[4096];
	snprintf(answer, sizeof answer, "%s/token-answer.json", home);
	FILE *f = fopen(answer, "w");
	ck_assert_ptr_nonnull(f);
	if (token_answer_cases[_i].big) {
		fputs("{\"token_type\":\"Bearer\",\"access_token\":\"", f);
		for (int i = 0; i < 900 * 1024; i++)
			fputc('a', f);
		fputs("\"}", f);
	} else {
		fputs(token_answer_cases[_i].answer, f);
	}
	fclose(f);
	snprintf(script, sizeof script, "%s", testlib_src("tests/sim/hostile-oauth.mjs"));
	char *argv[] = {(char *)testlib_node(), script, "--log", hostile_log, "--token-answer", answer, NULL};
	ck_assert_int_eq(testlib_server_start(&hostile, argv, NULL, "ready ", 30000), 0);
	struct testlib_output o;
	const char *args[] = {"login", "--client-id", CLIENT_ID, NULL};
	const char *extras[] = {"CATALYST_LOGIN_TIMEOUT=10", NULL};
	run_env(hostile.url, args, extras, &o);
	testlib_server_stop(&hostile);
	char *path = token_file();
	if (token_answer_cases[_i].message) {
		ck_assert_msg(o.status == 3, "case %d: status %d: %s", _i, o.status, o.err);
		ck_assert_msg(strstr(o.err, token_answer_cases[_i].message), "case %d: %s", _i, o.err);
		ck_assert_msg(path == NULL, "case %d: a token file was stored", _i);
	} else {
		ck_assert_msg(o.status == 0, "case %d: status %d: %s", _i, o.status, o.err);
		ck_assert_ptr_nonnull(path);
		json_t *doc = read_tokens();
		json_int_t at = json_integer_value(json_object_get(doc, "expires_at"));
		ck_assert_msg(at > (json_int_t)time(NULL) && at <= (json_int_t)time(NULL) + 11LL * 366 * 86400,
			      "expires_at %lld", (long long)at);
		json_decref(doc);
	}
	free(path);
	testlib_output_free(&o);
}
END_TEST

/* ---- The library takes only its config ---- */

/* The OAuth library reads no environment: the token, the browser and the
 * token folder come from its config (the CLI resolves them). These tests
 * set stray values in this process's environment and check that none is
 * used; the environment is put back after each (CK_FORK=no runs them in
 * one process). For the token, a raw HTTP fixture echoes the Authorization
 * header each request carried. */

static const char *const stray_names[] = {"CATALYST_TOKEN", "BROWSER", "XDG_CONFIG_HOME"};
static char *stray_saved[3];
static bool stray_was_set[3];

static void env_save(void)
{
	for (int i = 0; i < 3; i++) {
		const char *v = getenv(stray_names[i]);
		stray_was_set[i] = v != NULL;
		stray_saved[i] = v ? strdup(v) : NULL;
	}
}

static void env_restore(void)
{
	for (int i = 0; i < 3; i++) {
		if (stray_was_set[i])
			setenv(stray_names[i], stray_saved[i], 1);
		else
			unsetenv(stray_names[i]);
		free(stray_saved[i]);
		stray_saved[i] = NULL;
	}
}

static struct testlib_server fixture;
static char session_store[256];
/* The fixture server is started and stopped in the test runner itself, so a
 * failed test cannot leave it running. */
static void fixture_start(void)
{
	char *argv[] = {(char *)testlib_node(), (char *)testlib_src("tests/sim/http-fixture.mjs"), NULL};
	if (testlib_server_start(&fixture, argv, NULL, "LISTENING", 20000) < 0)
		abort();
}

static void fixture_stop(void)
{
	testlib_server_stop(&fixture);
}

static void session_setup(void)
{
	testlib_make_tmpdir(session_store, sizeof session_store, "oauth-session");
	env_save();
}

static void session_teardown(void)
{
	env_restore();
	testlib_remove_tree(session_store);
}

static int keep_answer(const char *msg, size_t len, void *ctx, struct err *e)
{
	(void)e;
	json_t **out = ctx;
	*out = json_loadb(msg, len, 0, NULL);
	return 1;
}

/* A session with `c` attached to an HTTP transport to the fixture's
 * /headers, then one request: attach's result in *attached, and the
 * Authorization header the request carried (malloc'd), or NULL. */
static char *sent_with(struct oauth_config *c, int *attached)
{
	char url[300];
	snprintf(url, sizeof url, "%s/headers", fixture.url);
	struct transport_http_options ho = {.url = url, .timeout_ms = 10000};
	struct err e;
	err_clear(&e);
	struct transport *t = transport_http_new(&ho, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	c->resource = url;
	struct oauth_session *s = oauth_session_new(c, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	*attached = oauth_session_attach(s, t, &e);
	ck_assert_msg(*attached >= 0, "%s", e.msg);
	static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}";
	json_t *answer = NULL;
	ck_assert_msg(transport_send(t, req, strlen(req), true, keep_answer, &answer, &e) == 0, "%s", e.msg);
	const char *v = json_string_value(json_object_get(json_object_get(answer, "result"), "authorization"));
	char *sent = v ? strdup(v) : NULL;
	json_decref(answer);
	transport_free(t);
	oauth_session_free(s);
	c->resource = NULL;
	return sent;
}

static const struct {
	const char *environment; /* CATALYST_TOKEN in this process; NULL: unset */
	const char *config;      /* oauth_config.env_token */
	int attached;            /* what oauth_session_attach returns */
	const char *sent;        /* the Authorization header; NULL: none */
} token_cases[] = {
	/* the config's token, with no environment variable at all */
	{NULL, "token-from-config", 1, "Bearer token-from-config"},
	/* the config's token wins over a stray one in the environment */
	{"stray-token-from-environment", "token-from-config", 1, "Bearer token-from-config"},
	/* none in the config, nothing stored: no token known, none sent */
	{"stray-token-from-environment", NULL, 0, NULL},
	/* "" is none, as an empty CATALYST_TOKEN always was */
	{"stray-token-from-environment", "", 0, NULL},
};

START_TEST(session_token_from_config_alone)
{
	if (token_cases[_i].environment)
		setenv("CATALYST_TOKEN", token_cases[_i].environment, 1);
	else
		unsetenv("CATALYST_TOKEN");
	struct oauth_config c = {.store_dir = session_store, .env_token = token_cases[_i].config};
	int attached;
	char *sent = sent_with(&c, &attached);
	ck_assert_int_eq(attached, token_cases[_i].attached);
	if (token_cases[_i].sent)
		ck_assert_str_eq(sent, token_cases[_i].sent);
	else
		ck_assert_ptr_null(sent);
	free(sent);
}
END_TEST

/* No token folder in the config: refused with the folder's error, however
 * usable XDG_CONFIG_HOME and HOME are in the environment. */
START_TEST(session_needs_store_dir_from_config)
{
	struct oauth_config c = {.resource = "http://127.0.0.1:9/mcp", .env_token = "t"};
	setenv("XDG_CONFIG_HOME", session_store, 1);
	struct err e;
	err_clear(&e);
	struct oauth_session *s = oauth_session_new(&c, &e);
	ck_assert_ptr_null(s);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_str_eq(e.msg, "cannot find where to keep tokens: neither XDG_CONFIG_HOME nor HOME is set");
}
END_TEST

/* The binary reads the environment for the library: with neither
 * XDG_CONFIG_HOME nor HOME usable, what needs the token folder says so
 * (exit 3), even with a token in CATALYST_TOKEN, before any request. */
START_TEST(cli_without_token_folder)
{
	char url[300];
	snprintf(url, sizeof url, "%s/headers", fixture.url);
	static const char *const commands[] = {"logout", "tools"};
	for (size_t i = 0; i < 2; i++) {
		char *args[] = {"--server", url, (char *)commands[i], NULL};
		char *env[] = {"XDG_CONFIG_HOME=relative/ignored", "HOME=", "CATALYST_TOKEN=some-token", NULL};
		struct testlib_output o;
		ck_assert_int_eq(testlib_run_cli(args, env, NULL, 30000, &o), 0);
		ck_assert_msg(o.status == 3, "%s: exit %d: %s", commands[i], o.status, o.err);
		ck_assert_msg(strstr(o.err,
				     "cannot find where to keep tokens: neither XDG_CONFIG_HOME nor HOME is set"),
			      "%s: %s", commands[i], o.err);
		testlib_output_free(&o);
	}
}
END_TEST

/* Sign-in through the library with stray values in the environment: the
 * browser is the config's (the stray $BROWSER would leave a marker), the
 * tokens go to the config's folder (not the stray XDG_CONFIG_HOME's), and
 * the command's connection then sends the stored token, not the stray
 * CATALYST_TOKEN (which the server would refuse). */
START_TEST(library_signs_in_from_config_alone)
{
	char marker[400], stray_browser[600], stray_xdg[400], browser[4096];
	snprintf(marker, sizeof marker, "%s/stray-browser-was-opened", home);
	snprintf(stray_browser, sizeof stray_browser, "touch %s", marker);
	snprintf(stray_xdg, sizeof stray_xdg, "%s/stray-config", home);
	snprintf(browser, sizeof browser, "%s", testlib_src("tests/sim/follow-redirect.sh"));
	env_save();
	setenv("BROWSER", stray_browser, 1);
	setenv("CATALYST_TOKEN", "stray-token-from-environment", 1);
	setenv("XDG_CONFIG_HOME", stray_xdg, 1);
	struct oauth_config c = {
		.resource = mcp.url,
		.client_id = CLIENT_ID,
		.scope = OAUTH_DEFAULT_SCOPE,
		.store_dir = store,
		.browser = browser,
		.timeout_ms = 10000,
		.callback_timeout_s = 30,
		.interactive = true,
		.hint = "catalyst-audit login",
	};
	struct err e;
	err_clear(&e);
	struct oauth_session *s = oauth_session_new(&c, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_msg(oauth_session_login(s, &e) == 0, "%s", e.msg);
	oauth_session_free(s);
	ck_assert_int_ne(access(marker, F_OK), 0);
	ck_assert_int_ne(access(stray_xdg, F_OK), 0);
	json_t *doc = read_tokens(); /* in the config's folder */
	ck_assert_str_eq(field(doc, "client_id"), CLIENT_ID);
	json_decref(doc);

	c.interactive = false;
	struct transport_http_options ho = {.url = mcp.url, .timeout_ms = 10000};
	struct transport *inner = transport_http_new(&ho, &e);
	ck_assert_msg(inner != NULL, "%s", e.msg);
	s = oauth_session_new(&c, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	struct transport *t = oauth_transport_new(inner, s, true, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	struct mcp_options mo = {.timeout_ms = 10000};
	struct mcp_session *ms = mcp_session_new(t, &mo);
	ck_assert_ptr_nonnull(ms);
	ck_assert_msg(mcp_initialize(ms, &e) == 0, "%s", e.msg);
	mcp_session_close(ms);
	mcp_session_free(ms);
	transport_free(t);
	env_restore();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oauth_e2e");
	struct testlib_group *tc = testlib_group("oidc-provider");
	testlib_group_timeout(tc, 120);
	testlib_group_checked_fixture(tc, setup, teardown);
	add_test(tc, login_stores_private_tokens);
	add_test(tc, login_browser_gets_nothing_of_ours);
	add_test(tc, tools_refresh_rotation_logout);
	add_test(tc, no_login_never_opens_a_browser);
	add_test(tc, redirect_path_and_no_browser_are_used);
	add_test(tc, login_without_a_person_exits_3);
	add_test(tc, readable_token_file_refused);
	add_test(tc, tampered_state_refused);
	add_test(tc, forged_error_redirect_ignored);
	add_test(tc, resource_sent_as_its_metadata_names_it);
	add_test(tc, client_metadata_url_needs_an_accepting_server);
	add_test(tc, library_signs_in_from_config_alone);
	testlib_suite_add(s, tc);
	tc = testlib_group("session-config");
	testlib_group_timeout(tc, 120);
	testlib_group_unchecked_fixture(tc, fixture_start, fixture_stop);
	testlib_group_checked_fixture(tc, session_setup, session_teardown);
	add_loop_test(tc, session_token_from_config_alone, 0, (int)(sizeof token_cases / sizeof *token_cases));
	add_test(tc, session_needs_store_dir_from_config);
	add_test(tc, cli_without_token_folder);
	testlib_suite_add(s, tc);
	tc = testlib_group("mismatch");
	testlib_group_timeout(tc, 120);
	testlib_group_checked_fixture(tc, setup_mismatch, teardown);
	add_test(tc, wrong_resource_in_metadata_refused);
	testlib_suite_add(s, tc);
	tc = testlib_group("hostile");
	testlib_group_timeout(tc, 120);
	testlib_group_checked_fixture(tc, setup_hostile, teardown_hostile);
	add_loop_test(tc, hostile_token_answers_refused, 0,
		      (int)(sizeof token_answer_cases / sizeof *token_answer_cases));
	add_loop_test(tc, hostile_metadata_urls_refused, 0, (int)(sizeof hostile_cases / sizeof *hostile_cases));
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
