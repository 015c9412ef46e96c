/* The client under test for the conformance suite's auth/ scenarios: the
 * same transport, MCP session and OAuth code the catalyst-audit binary
 * uses, connected the way its commands connect — the HTTP transport
 * wrapped by oauth_transport_new, which attaches a token and, on a 401 or
 * 403 insufficient_scope, lets the OAuth session recover and resends.
 * Then initialize, tools/list and a call of the first tool.
 *
 * The browser is $BROWSER (the tests point it at tests/sim/follow-redirect.sh),
 * read here as the CLI reads it: the OAuth library reads no environment;
 * the client id and secret come from MCP_CONFORMANCE_CONTEXT when the
 * scenario gives them (pre-registration), else a fixed pre-registered-style
 * id, since catalyst-audit never registers clients dynamically — except in
 * auth/basic-cimd, whose authorization server takes Client ID Metadata
 * Documents and offers no client to pre-register: there the client is
 * configured as a user with no --client-id is, and the metadata document's
 * URL (the one the suite's server expects; the build's own is a meson
 * option) must become the client id. Scopes
 * follow the MCP strategy (oauth_config.scope = NULL): the suite's servers
 * advertise mcp:* scopes, not Catalyst's. Tokens go to a private temporary
 * folder, removed at exit. */

#include <curl/curl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "mcp.h"
#include "oauth.h"
#include "trace.h"
#include "transport.h"
#include "version.h"

static void to_stderr(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

static void notice(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "conformance-auth-client: %s\n", msg);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: conformance-auth-client SERVER_URL\n");
		return 2;
	}
	const char *url = argv[argc - 1];
	/* The library leaves libcurl's global state to the program (as
	 * src/process.c does for catalyst-audit). */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	trace_set_sink(to_stderr, NULL);

	json_t *context = NULL;
	const char *ctx_text = getenv("MCP_CONFORMANCE_CONTEXT");
	if (ctx_text)
		context = json_loads(ctx_text, 0, NULL);
	const char *client_id = json_string_value(json_object_get(context, "client_id"));
	const char *scenario = getenv("MCP_CONFORMANCE_SCENARIO");
	bool no_registration = scenario && strcmp(scenario, "auth/basic-cimd") == 0;
	const char *client_secret = json_string_value(json_object_get(context, "client_secret"));

	char store[] = "/tmp/ca-conformance-tokens-XXXXXX";
	if (!mkdtemp(store)) {
		perror("mkdtemp");
		return 1;
	}
	char store_dir[sizeof store + 32];
	snprintf(store_dir, sizeof store_dir, "%s/catalyst-audit", store);

	struct err e;
	err_clear(&e);
	int status = 1;
	json_t *tools = NULL;
	struct mcp_session *s = NULL;
	struct oauth_session *os = NULL;
	struct transport *t = NULL;
	struct oauth_config oc = {
		.resource = url,
		.client_id = client_id         ? client_id
			     : no_registration ? NULL
					       : "catalyst-audit-conformance",
		.client_metadata_url = "https://conformance-test.local/client-metadata.json",
		.client_secret = client_secret,
		.scope = NULL,
		.store_dir = store_dir,
		.browser = getenv("BROWSER"),
		.timeout_ms = 10000,
		.callback_timeout_s = 20,
		.interactive = true,
		.hint = "conformance-auth-client URL",
		.notice = notice,
	};
	struct transport_http_options ho = {.url = url, .timeout_ms = 20000};
	struct transport *inner = transport_http_new(&ho, &e);
	if (!inner)
		goto out;
	os = oauth_session_new(&oc, &e);
	t = os ? oauth_transport_new(inner, os, false, &e) : NULL;
	if (!t) {
		transport_free(inner);
		goto out;
	}
	struct mcp_options mo = {.client_name = "catalyst-audit-conformance",
				 .client_version = CATALYST_AUDIT_VERSION};
	s = mcp_session_new(t, &mo);
	if (!s) {
		err_set(&e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	if (mcp_initialize(s, &e) < 0)
		goto out;
	tools = mcp_list_tools(s, &e);
	if (!tools)
		goto out;
	const char *name = json_string_value(json_object_get(json_array_get(tools, 0), "name"));
	if (name) {
		json_t *args = json_object();
		struct mcp_tool_result r = {0};
		int rc = mcp_call_tool(s, name, args, &r, &e);
		json_decref(args);
		mcp_tool_result_finish(&r);
		if (rc < 0)
			goto out;
	}
	status = 0;
out:
	if (status)
		fprintf(stderr, "conformance-auth-client: error: %s\n", e.msg);
	json_decref(tools);
	if (s)
		mcp_session_close(s);
	mcp_session_free(s);
	transport_free(t);
	oauth_session_free(os);
	json_decref(context);
	nftw(store, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return status;
}
