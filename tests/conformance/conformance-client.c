/* The client under test for @modelcontextprotocol/conformance: the suite
 * starts a scenario server, runs `conformance-client URL` with
 * MCP_CONFORMANCE_SCENARIO set, and judges what it saw on the wire. This is
 * the same session and transport code the catalyst-audit binary uses;
 * only the choice of tool to call lives here. */

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mcp.h"
#include "trace.h"
#include "transport.h"
#include "version.h"

/* What each scenario's server expects the client to call. */
enum calls {
	CALL_ONE,     /* `tool` with `arguments` (none: list only) */
	CALL_LISTED,  /* every tool the listing kept, with {} */
	CALL_CONTEXT, /* MCP_CONFORMANCE_CONTEXT's toolCalls, in order */
	CALL_ECHO,    /* `tool` with {"schema": the input schema of `arguments`' tool} */
};
static const struct {
	const char *scenario;
	enum calls calls;
	const char *tool;
	const char *arguments; /* JSON; CALL_ECHO: the tool whose schema goes back */
} scenarios[] = {
	{"initialize", CALL_ONE, NULL, NULL}, /* initialize and list, nothing more */
	{"tools_call", CALL_ONE, "add_numbers", "{\"a\": 2, \"b\": 3}"},
	{"sse-retry", CALL_ONE, "test_reconnection", "{}"},
	/* 2026-07-28 (0.2.0 alphas) */
	{"request-metadata", CALL_ONE, NULL, NULL},
	{"http-standard-headers", CALL_LISTED, NULL, NULL},
	{"http-custom-headers", CALL_CONTEXT, NULL, NULL},
	{"http-invalid-tool-headers", CALL_LISTED, NULL, NULL},
	{"json-schema-ref-no-deref", CALL_ONE, NULL, NULL},
	{"json-schema-2020-12-preservation", CALL_ECHO, "json_schema_echo", "json_schema_2020_12_tool"},
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

/* The calls a scenario expects: [[tool, arguments], ...]. */
static json_t *planned_calls(size_t k, const json_t *tools)
{
	json_t *calls = json_array();
	size_t i;
	json_t *t;
	switch (scenarios[k].calls) {
	case CALL_ONE:
		if (scenarios[k].tool)
			json_array_append_new(calls, json_pack("[s, o]", scenarios[k].tool,
							       json_loads(scenarios[k].arguments, 0, NULL)));
		break;
	case CALL_LISTED:
		json_array_foreach(tools, i, t)
			json_array_append_new(calls, json_pack("[O, {}]", json_object_get(t, "name")));
		break;
	case CALL_CONTEXT: {
		json_t *ctx = json_loads(
			getenv("MCP_CONFORMANCE_CONTEXT") ? getenv("MCP_CONFORMANCE_CONTEXT") : "{}", 0, NULL);
		json_array_foreach(json_object_get(ctx, "toolCalls"), i, t)
			json_array_append_new(calls, json_pack("[O, O]", json_object_get(t, "name"),
							       json_object_get(t, "arguments")));
		json_decref(ctx);
		break;
	}
	case CALL_ECHO:
		json_array_foreach(tools, i, t)
			if (json_is_string(json_object_get(t, "name")) &&
			    strcmp(json_string_value(json_object_get(t, "name")), scenarios[k].arguments) == 0)
				json_array_append_new(calls, json_pack("[s, {s:O}]", scenarios[k].tool, "schema",
								       json_object_get(t, "inputSchema")));
		break;
	}
	return calls;
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
	json_t *calls = planned_calls(k, tools);
	size_t i;
	json_t *c;
	json_array_foreach(calls, i, c) {
		const char *tool = json_string_value(json_array_get(c, 0));
		int rc = mcp_call_tool(s, tool, json_array_get(c, 1), &r, &e);
		if (rc < 0) {
			json_decref(calls);
			status = fail(&e);
			goto out;
		}
		char *d = json_dumps(r.rpc_error ? r.rpc_error : r.result, JSON_COMPACT);
		printf("%s: %s%s\n", tool, r.rpc_error ? "JSON-RPC error " : "", d ? d : "?");
		free(d);
		bool failed = r.rpc_error || r.is_error;
		mcp_tool_result_finish(&r);
		if (failed) {
			json_decref(calls);
			goto out;
		}
	}
	json_decref(calls);
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
