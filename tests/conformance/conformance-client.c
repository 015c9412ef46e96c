/* The client under test for @modelcontextprotocol/conformance: the suite
 * starts a scenario server, runs `conformance-client URL` with
 * MCP_CONFORMANCE_SCENARIO set, and judges what it saw on the wire. This is
 * the same session and transport code the catalyst-audit binary uses;
 * only the choice of tool to call lives here. */

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mcp.h"
#include "trace.h"
#include "transport.h"
#include "version.h"

/* What each scenario's server expects the client to call. */
static const struct {
	const char *scenario;
	const char *tool;
	const char *arguments; /* JSON */
} scenarios[] = {
	{"initialize", NULL, NULL}, /* initialize and list, nothing more */
	{"tools_call", "add_numbers", "{\"a\": 2, \"b\": 3}"},
	{"sse-retry", "test_reconnection", "{}"},
};

static void to_stderr(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

static int fail(const struct err *e)
{
	fprintf(stderr, "conformance-client: error: %s\n", e->msg);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: conformance-client [ARGS...] SERVER_URL\n");
		return 2;
	}
	const char *url = argv[argc - 1];
	/* The library leaves libcurl's global state to the program (as
	 * src/process.c does for catalyst-audit). */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	const char *scenario = getenv("MCP_CONFORMANCE_SCENARIO");
	size_t k;
	for (k = 0; scenario && k < sizeof scenarios / sizeof *scenarios; k++)
		if (strcmp(scenario, scenarios[k].scenario) == 0)
			break;
	if (!scenario || k == sizeof scenarios / sizeof *scenarios) {
		fprintf(stderr, "conformance-client: unknown scenario '%s'\n", scenario ? scenario : "(unset)");
		return 2;
	}
	/* The suite keeps our stderr in stderr.txt: the trace is the record. */
	trace_set_sink(to_stderr, NULL);

	struct err e;
	err_clear(&e);
	int status = 1;
	json_t *tools = NULL;
	struct mcp_session *s = NULL;
	struct mcp_tool_result r = {0};
	struct transport_http_options ho = {.url = url, .timeout_ms = 20000};
	struct transport *t = transport_http_new(&ho, &e);
	if (!t) {
		status = fail(&e);
		goto out;
	}
	struct mcp_options mo = {.client_name = "catalyst-audit-conformance",
				 .client_version = CATALYST_AUDIT_VERSION};
	s = mcp_session_new(t, &mo);
	if (!s || mcp_initialize(s, &e) < 0) {
		status = fail(&e);
		goto out;
	}
	tools = mcp_list_tools(s, &e);
	if (!tools) {
		status = fail(&e);
		goto out;
	}
	printf("protocol %s, %zu tools\n", mcp_protocol_version(s), json_array_size(tools));
	if (scenarios[k].tool) {
		json_t *args = json_loads(scenarios[k].arguments, 0, NULL);
		int rc = mcp_call_tool(s, scenarios[k].tool, args, &r, &e);
		json_decref(args);
		if (rc < 0) {
			status = fail(&e);
			goto out;
		}
		if (r.rpc_error) {
			char *d = json_dumps(r.rpc_error, JSON_COMPACT);
			fprintf(stderr, "conformance-client: %s: JSON-RPC error %s\n", scenarios[k].tool,
				d ? d : "?");
			free(d);
			goto out;
		}
		char *d = json_dumps(r.result, JSON_COMPACT);
		printf("%s: %s\n", scenarios[k].tool, d ? d : "?");
		free(d);
		if (r.is_error)
			goto out;
	}
	status = 0;
out:
	mcp_tool_result_finish(&r);
	json_decref(tools);
	if (s)
		mcp_session_close(s);
	mcp_session_free(s);
	transport_free(t);
	return status;
}
