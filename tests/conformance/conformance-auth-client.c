/* The client under test for the conformance suite's auth/ scenarios: the
 * same transport, MCP session and OAuth session code the catalyst-audit
 * binary uses, driven the way its commands drive it — attach a token,
 * and on a 401/403 let the OAuth session recover, then retry.
 *
 * The browser is $BROWSER (the tests point it at tests/sim/follow-redirect.sh);
 * the client id and secret come from MCP_CONFORMANCE_CONTEXT when the
 * scenario gives them (pre-registration), else a fixed pre-registered-style
 * id, since catalyst-audit never registers clients dynamically. Scopes
 * follow the MCP strategy (oauth_config.scope = NULL): the suite's servers
 * advertise mcp:* scopes, not Catalyst's. Tokens go to a private temporary
 * folder, removed at exit. */

#include <ftw.h>
#include <jansson.h>
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

enum step {
	STEP_INITIALIZE,
	STEP_LIST,
	STEP_CALL,
};

/* One MCP step, re-authorized and retried the way the commands do. */
static int run_step(enum step step, struct mcp_session *s, struct transport *t, struct oauth_session *os,
		    json_t **tools, struct err *e)
{
	for (int attempt = 0;; attempt++) {
		err_clear(e);
		int rc;
		if (step == STEP_INITIALIZE) {
			rc = mcp_initialize(s, e);
		} else if (step == STEP_LIST) {
			json_decref(*tools);
			*tools = mcp_list_tools(s, e);
			rc = *tools ? 0 : -1;
		} else {
			const char *name = json_string_value(json_object_get(json_array_get(*tools, 0), "name"));
			if (!name)
				return 0; /* nothing to call */
			json_t *args = json_object();
			struct mcp_tool_result r = {0};
			rc = mcp_call_tool(s, name, args, &r, e);
			json_decref(args);
			mcp_tool_result_finish(&r);
		}
		if (rc == 0)
			return 0;
		/* Each retry follows a new authorization or refresh; the OAuth
		 * session bounds how many there can be. */
		if (!oauth_error_recoverable(e) || attempt > OAUTH_MAX_AUTHORIZATIONS)
			return -1;
		fprintf(stderr, "conformance-auth-client: %s; re-authorizing\n", e->msg);
		if (oauth_session_recover(os, t, e, e) < 0)
			return -1;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: conformance-auth-client SERVER_URL\n");
		return 2;
	}
	const char *url = argv[argc - 1];
	trace_set_sink(to_stderr, NULL);

	json_t *context = NULL;
	const char *ctx_text = getenv("MCP_CONFORMANCE_CONTEXT");
	if (ctx_text)
		context = json_loads(ctx_text, 0, NULL);
	const char *client_id = json_string_value(json_object_get(context, "client_id"));
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
	struct oauth_config oc = {
		.resource = url,
		.client_id = client_id ? client_id : "catalyst-audit-conformance",
		.client_secret = client_secret,
		.scope = NULL,
		.store_dir = store_dir,
		.timeout_ms = 10000,
		.callback_timeout_s = 20,
		.interactive = true,
		.hint = "conformance-auth-client URL",
		.notice = notice,
	};
	struct transport_http_options ho = {.url = url, .timeout_ms = 20000};
	struct transport *t = transport_http_new(&ho, &e);
	if (!t)
		goto out;
	os = oauth_session_new(&oc, &e);
	if (!os || oauth_session_attach(os, t, &e) < 0)
		goto out;
	struct mcp_options mo = {.client_name = "catalyst-audit-conformance", .client_version = CATALYST_AUDIT_VERSION};
	s = mcp_session_new(t, &mo);
	if (!s) {
		err_set(&e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	if (run_step(STEP_INITIALIZE, s, t, os, &tools, &e) < 0 || run_step(STEP_LIST, s, t, os, &tools, &e) < 0 ||
	    run_step(STEP_CALL, s, t, os, &tools, &e) < 0)
		goto out;
	status = 0;
out:
	if (status)
		fprintf(stderr, "conformance-auth-client: error: %s\n", e.msg);
	json_decref(tools);
	if (s)
		mcp_session_close(s);
	mcp_session_free(s);
	oauth_session_free(os);
	transport_free(t);
	json_decref(context);
	nftw(store, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return status;
}
