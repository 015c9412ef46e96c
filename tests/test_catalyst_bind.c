/* The Catalyst tool layer without a server: argument binding against both
 * simulator profiles' schemas and odd ones, refusal parsing in every
 * envelope, time and status arguments, and — over a scripted in-memory
 * transport — the allow-list, retries and the unfilterable page halving. */

#include <stdlib.h>
#include <string.h>

#include "catalyst.h"
#include "event.h"
#include "mcp.h"
#include "fake_transport.h"
#include "testlib.h"

#define P_A "\"projectId\":{\"type\":\"string\"},\"appId\":{\"type\":\"string\"},"
#define P_B "\"ProjectId\":{\"type\":\"string\"},\"app_id\":{\"type\":\"string\"},"

static const char *const schema_runs_a =
	"{\"type\":\"object\",\"properties\":{" P_A
	"\"status\":{\"type\":\"string\",\"enum\":[\"running\",\"completed\",\"failed\",\"terminated\","
	"\"suspended\",\"canceled\"]},\"workflowName\":{\"type\":\"string\"},\"startTimeFrom\":{\"type\":\"string\"},"
	"\"startTimeTo\":{\"type\":\"string\"},\"pageSize\":{\"type\":\"integer\"},\"cursor\":{\"type\":\"string\"}},"
	"\"required\":[\"projectId\"]}";
static const char *const schema_runs_b =
	"{\"type\":\"object\",\"properties\":{" P_B
	"\"runtime_status\":{\"type\":\"string\"},\"workflow_name\":{\"type\":\"string\"},\"created_after\":{\"type\":\"string\"},"
	"\"created_before\":{\"type\":\"string\"},\"limit\":{\"type\":\"integer\"},\"page_token\":{\"type\":\"string\"}},"
	"\"required\":[\"ProjectId\"]}";
static const char *const schema_run_a =
	"{\"type\":\"object\",\"properties\":{" P_A
	"\"instanceId\":{\"type\":\"string\"},\"includeData\":{\"type\":\"boolean\"}},"
	"\"required\":[\"projectId\",\"appId\",\"instanceId\"]}";
static const char *const schema_run_b = "{\"type\":\"object\",\"properties\":{" P_B
					"\"runId\":{\"type\":\"string\"}},"
					"\"required\":[\"ProjectId\",\"app_id\",\"runId\"]}";
static const char *const schema_export_b = "{\"type\":\"object\",\"properties\":{" P_B
					   "\"run_id\":{\"type\":\"string\"}},"
					   "\"required\":[\"ProjectId\",\"app_id\",\"run_id\"]}";
static const char *const schema_workflow_b =
	"{\"type\":\"object\",\"properties\":{\"ProjectId\":{\"type\":\"string\"},\"appID\":{\"type\":\"string\"},"
	"\"name\":{\"type\":\"string\"}},\"required\":[\"ProjectId\"]}";
static const char *const schema_project_b =
	"{\"type\":\"object\",\"properties\":{\"project\":{\"type\":\"string\"}},\"required\":[\"project\"]}";
static const char *const schema_odd =
	"{\"type\":\"object\",\"properties\":{\"Project-Name\":{\"type\":\"string\"},\"APP.ID\":{\"type\":\"string\"},"
	"\"workflow_run_id\":{\"type\":\"string\"},\"runtimeStatus\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
	"\"enum\":[\"RUNNING\",\"COMPLETED\",\"FAILED\"]}},\"maxResults\":{\"type\":[\"integer\",\"null\"]},"
	"\"nextPageToken\":{\"type\":\"string\"},\"since\":{\"type\":\"string\"}}}";
/* A boolean "limit" cannot carry a page size; the integer "pageSize" can.
 * An object "project" cannot carry a project; "project_id" can. */
static const char *const schema_types =
	"{\"properties\":{\"limit\":{\"type\":\"boolean\"},\"page_size\":{\"anyOf\":[{\"type\":\"null\"},"
	"{\"type\":\"integer\"}]},\"project\":{\"type\":\"object\"},\"project_id\":{\"type\":\"integer\"},\"id\":{}}}";

/* A run list that filters by instance id, several at once. */
static const char *const schema_runs_ids =
	"{\"type\":\"object\",\"properties\":{\"projectId\":{\"type\":\"string\"},\"instanceIds\":{\"type\":"
	"\"array\",\"items\":{\"type\":\"string\"}},\"pageSize\":{\"type\":\"integer\"}}}";

struct bind_case {
	const char *schema;
	const char *props[CATALYST_ARG_COUNT]; /* expected binding, NULL: none */
};

static const struct bind_case bind_cases[] = {
	{schema_runs_a,
	 {"projectId", "appId", NULL, "status", "startTimeFrom", "startTimeTo", "workflowName", "pageSize",
	  "cursor"}},
	{schema_runs_b,
	 {"ProjectId", "app_id", NULL, "runtime_status", "created_after", "created_before", "workflow_name",
	  "limit", "page_token"}},
	{schema_run_a, {"projectId", "appId", "instanceId", NULL, NULL, NULL, NULL, NULL, NULL}},
	{schema_run_b, {"ProjectId", "app_id", "runId", NULL, NULL, NULL, NULL, NULL, NULL}},
	{schema_export_b, {"ProjectId", "app_id", "run_id", NULL, NULL, NULL, NULL, NULL, NULL}},
	{schema_workflow_b, {"ProjectId", "appID", NULL, NULL, NULL, NULL, "name", NULL, NULL}},
	{schema_project_b, {"project", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}},
	{schema_odd,
	 {"Project-Name", "APP.ID", "workflow_run_id", "runtimeStatus", "since", NULL, NULL, "maxResults",
	  "nextPageToken"}},
	{schema_types, {"project_id", NULL, "id", NULL, NULL, NULL, NULL, "page_size", NULL}},
	{schema_runs_ids, {"projectId", NULL, "instanceIds", NULL, NULL, NULL, NULL, "pageSize", NULL}},
	{"{}", {NULL}},
	{"{\"properties\":[]}", {NULL}},
};

START_TEST(bind_table)
{
	const struct bind_case *c = &bind_cases[_i];
	json_t *schema = json_loads(c->schema, 0, NULL);
	ck_assert_ptr_nonnull(schema);
	struct catalyst_binding b;
	catalyst_binding_init(&b, "t", schema);
	for (int a = 0; a < CATALYST_ARG_COUNT; a++) {
		if (c->props[a]) {
			ck_assert_msg(b.prop[a] != NULL, "arg %d unbound, expected %s", a, c->props[a]);
			ck_assert_str_eq(b.prop[a], c->props[a]);
		} else {
			ck_assert_msg(b.prop[a] == NULL, "arg %d bound to %s", a, b.prop[a]);
		}
	}
	catalyst_binding_finish(&b);
	json_decref(schema);
}
END_TEST

static json_t *args_for(const char *schema_text, const char *tool, const char *const vals[CATALYST_ARG_COUNT],
			unsigned required, unsigned *omitted, struct err *e)
{
	json_t *schema = json_loads(schema_text, 0, NULL);
	ck_assert_ptr_nonnull(schema);
	struct catalyst_binding b;
	catalyst_binding_init(&b, tool, schema);
	json_t *args = catalyst_binding_args(&b, vals, required, omitted, e);
	catalyst_binding_finish(&b);
	json_decref(schema);
	return args;
}

static void assert_json(json_t *got, const char *want_text)
{
	json_t *want = json_loads(want_text, 0, NULL);
	ck_assert_ptr_nonnull(want);
	char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
	char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
	ck_assert_str_eq(g, w);
	free(g);
	free(w);
	json_decref(want);
}

START_TEST(args_typed_and_enumerated)
{
	struct err e;
	err_clear(&e);
	unsigned omitted = 99;
	const char *vals[CATALYST_ARG_COUNT] = {
		[CATALYST_ARG_PROJECT] = "default",
		[CATALYST_ARG_STATUS] = "COMPLETED",
		[CATALYST_ARG_PAGE_SIZE] = "50",
		[CATALYST_ARG_SINCE] = "2026-12-01T00:00:00Z",
	};
	json_t *a = args_for(schema_runs_a, "catalyst_list_workflow_runs", vals, 1, &omitted, &e);
	ck_assert_ptr_nonnull(a);
	assert_json(a, "{\"projectId\":\"default\",\"status\":\"completed\",\"pageSize\":50,"
		       "\"startTimeFrom\":\"2026-12-01T00:00:00Z\"}");
	ck_assert_uint_eq(omitted, 0);
	json_decref(a);

	/* An array property gets a one-element array in the schema's own case. */
	vals[CATALYST_ARG_STATUS] = "completed";
	vals[CATALYST_ARG_UNTIL] = "2026-12-02T00:00:00Z";
	a = args_for(schema_odd, "odd", vals, 0, &omitted, &e);
	ck_assert_ptr_nonnull(a);
	assert_json(a, "{\"Project-Name\":\"default\",\"runtimeStatus\":[\"COMPLETED\"],\"maxResults\":50,"
		       "\"since\":\"2026-12-01T00:00:00Z\"}");
	ck_assert_uint_eq(omitted, CATALYST_BIT(CATALYST_ARG_UNTIL));
	json_decref(a);

	/* A status the schema does not list is a usage error naming the list. */
	vals[CATALYST_ARG_STATUS] = "stalled";
	a = args_for(schema_runs_a, "catalyst_list_workflow_runs", vals, 0, &omitted, &e);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(e.code, ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(e.msg, "\"canceled\""));

	/* An integer project property takes a uid, prefix or not. */
	const char *v2[CATALYST_ARG_COUNT] = {[CATALYST_ARG_PROJECT] = "prj-165", [CATALYST_ARG_RUN] = "r1"};
	a = args_for(schema_types, "t", v2, 1, &omitted, &e);
	ck_assert_ptr_nonnull(a);
	assert_json(a, "{\"project_id\":165,\"id\":\"r1\"}");
	json_decref(a);
	v2[CATALYST_ARG_PROJECT] = "shop";
	a = args_for(schema_types, "t", v2, 1, &omitted, &e);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(e.code, ERR_USAGE);
}
END_TEST

START_TEST(args_missing_required_named)
{
	struct err e;
	err_clear(&e);
	const char *schema =
		"{\"properties\":{\"projectId\":{\"type\":\"string\"},\"appId\":{\"type\":\"string\"},"
		"\"name\":{\"type\":\"string\"}}}";
	const char *vals[CATALYST_ARG_COUNT] = {
		[CATALYST_ARG_PROJECT] = "p", [CATALYST_ARG_APP] = "a", [CATALYST_ARG_RUN] = "r"};
	unsigned req = CATALYST_BIT(CATALYST_ARG_PROJECT) | CATALYST_BIT(CATALYST_ARG_APP) |
		       CATALYST_BIT(CATALYST_ARG_RUN);
	json_t *a = args_for(schema, "catalyst_get_workflow_run", vals, req, NULL, &e);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_str_eq(e.msg, "catalyst_get_workflow_run: no input property for the run id among: "
				"projectId, appId, name");

	a = args_for("{}", "catalyst_get_workflow_run", vals, req, NULL, &e);
	ck_assert_ptr_null(a);
	ck_assert_str_eq(e.msg, "catalyst_get_workflow_run: no input property for the project among: "
				"(the schema lists no properties)");

	/* A required property nothing binds to is named too. */
	a = args_for("{\"properties\":{\"runId\":{\"type\":\"string\"},\"region\":{\"type\":\"string\"}},"
		     "\"required\":[\"runId\",\"region\"]}",
		     "catalyst_get_workflow_run", vals, 0, NULL, &e);
	ck_assert_ptr_null(a);
	ck_assert_ptr_nonnull(strstr(e.msg, "requires region"));
}
END_TEST

START_TEST(key_match_table)
{
	ck_assert(catalyst_key_match("projectId", "projectid"));
	ck_assert(catalyst_key_match("Project_ID", "projectid"));
	ck_assert(catalyst_key_match("project-id", "projectid"));
	ck_assert(catalyst_key_match("_project.id_", "projectid"));
	ck_assert(!catalyst_key_match("projectIds", "projectid"));
	ck_assert(!catalyst_key_match("project", "projectid"));
	ck_assert(!catalyst_key_match("", "projectid"));
	ck_assert(catalyst_key_match("", ""));
}
END_TEST

/* ---- refusals ------------------------------------------------------- */

static const struct {
	const char *kind;
	enum catalyst_refusal_family family;
	enum err_code code;
} kinds[] = {
	{"NOT_AUTHENTICATED", CATALYST_REFUSAL_CONNECTION, ERR_AUTH},
	{"NO_ORG", CATALYST_REFUSAL_CONNECTION, ERR_AUTH},
	{"ORG_MISMATCH", CATALYST_REFUSAL_CONNECTION, ERR_AUTH},
	{"ORG_UNAVAILABLE", CATALYST_REFUSAL_CONNECTION, ERR_AUTH},
	{"CATALYST_NOT_ENABLED", CATALYST_REFUSAL_CONNECTION, ERR_AUTH},
	{"denied", CATALYST_REFUSAL_DATA_SHARING, ERR_DATA_SHARING},
	{"no-policy", CATALYST_REFUSAL_DATA_SHARING, ERR_DATA_SHARING},
	{"unfilterable", CATALYST_REFUSAL_DATA_SHARING, ERR_DATA_SHARING},
	{"DATA_SHARING_RESTRICTED", CATALYST_REFUSAL_DATA_SHARING, ERR_DATA_SHARING},
	{"NOT_FOUND", CATALYST_REFUSAL_OTHER, ERR_PROTOCOL},
};
#define N_KINDS (sizeof kinds / sizeof *kinds)

/* The envelope the simulator (and the public sample) use, built by hand. */
static void make_result(struct mcp_tool_result *r, int envelope, const char *kind, bool retryable)
{
	memset(r, 0, sizeof *r);
	json_t *obj = json_pack("{s:{s:s, s:s, s:s, s:s, s:b}}", "error", "kind", kind, "message",
				"The response was withheld at data-sharing level metadata.", "cause", "because",
				"instruction", "Ask an administrator.", "retryable", retryable);
	switch (envelope) {
	case CATALYST_ENVELOPE_RPC_ERROR:
		r->rpc_error = json_pack("{s:i, s:s, s:o}", "code", -32000, "message", "refused", "data", obj);
		return;
	case CATALYST_ENVELOPE_TEXT: {
		char *text = json_dumps(obj, JSON_COMPACT);
		r->result =
			json_pack("{s:b, s:[{s:s, s:s}]}", "isError", 1, "content", "type", "text", "text", text);
		r->text_json = obj;
		r->content = json_object_get(r->result, "content");
		r->is_error = true;
		free(text);
		return;
	}
	default:
		r->result = json_pack("{s:b, s:o, s:[{s:s, s:s}]}", "isError", 1, "structuredContent", obj,
				      "content", "type", "text", "text", "The response was withheld.");
		r->structured = json_object_get(r->result, "structuredContent");
		r->content = json_object_get(r->result, "content");
		r->is_error = true;
		return;
	}
}

START_TEST(refusal_table)
{
	size_t k = (size_t)_i / 3;
	int envelope = _i % 3 + 1;
	bool retryable = _i % 2;
	struct mcp_tool_result r;
	make_result(&r, envelope, kinds[k].kind, retryable);
	struct catalyst_refusal rf;
	ck_assert(catalyst_refusal_parse(&r, &rf));
	ck_assert_int_eq(rf.family, kinds[k].family);
	ck_assert_int_eq(rf.envelope, envelope);
	ck_assert_str_eq(rf.kind, kinds[k].kind);
	ck_assert_str_eq(rf.instruction, "Ask an administrator.");
	ck_assert_str_eq(rf.cause, "because");
	ck_assert_int_eq(rf.retryable, retryable);
	ck_assert_int_eq(catalyst_refusal_code(&rf), kinds[k].code);
	if (rf.family == CATALYST_REFUSAL_DATA_SHARING)
		ck_assert_int_eq(rf.level, SHARING_METADATA);
	mcp_tool_result_finish(&r);
}
END_TEST

START_TEST(refusal_level_fields_and_non_refusals)
{
	struct mcp_tool_result r;
	struct catalyst_refusal rf;
	memset(&r, 0, sizeof r);
	/* The public sample: a bare {"error": {...}} without cause/instruction. */
	r.result = json_pack("{s:b}", "isError", 1);
	r.is_error = true;
	r.text_json =
		json_pack("{s:{s:s, s:s, s:b}}", "error", "kind", "ORG_MISMATCH", "message", "m", "retryable", 0);
	ck_assert(catalyst_refusal_parse(&r, &rf));
	ck_assert_int_eq(rf.family, CATALYST_REFUSAL_CONNECTION);
	ck_assert_str_eq(rf.instruction, "");
	mcp_tool_result_finish(&r);

	/* A field that names the level. */
	r.result = json_pack("{s:b}", "isError", 1);
	r.is_error = true;
	r.text_json = json_pack("{s:s, s:s, s:s}", "kind", "denied", "message", "no", "dataSharingLevel", "full");
	ck_assert(catalyst_refusal_parse(&r, &rf));
	ck_assert_int_eq(rf.level, SHARING_FULL);
	ck_assert_str_eq(rf.level_key, "dataSharingLevel");
	mcp_tool_result_finish(&r);

	/* A bare "level", read as every other field is: the enum spelling too. */
	r.result = json_pack("{s:b}", "isError", 1);
	r.is_error = true;
	r.text_json = json_pack("{s:{s:s, s:s, s:s}}", "error", "kind", "denied", "message", "no", "level",
				"DATA_SHARING_LEVEL_METADATA");
	ck_assert(catalyst_refusal_parse(&r, &rf));
	ck_assert_int_eq(rf.level, SHARING_METADATA);
	ck_assert_str_eq(rf.level_key, "level");
	mcp_tool_result_finish(&r);

	/* Not refusals: JSON text on a successful result, plain error text,
	 * a JSON-RPC error without data. */
	r.result = json_pack("{s:b}", "isError", 0);
	r.text_json = json_pack("{s:{s:s}}", "error", "kind", "denied");
	ck_assert(!catalyst_refusal_parse(&r, &rf));
	mcp_tool_result_finish(&r);
	r.result = json_pack("{s:b}", "isError", 1);
	r.is_error = true;
	ck_assert(!catalyst_refusal_parse(&r, &rf));
	mcp_tool_result_finish(&r);
	r.rpc_error = json_pack("{s:i, s:s}", "code", -32602, "message", "Invalid params");
	ck_assert(!catalyst_refusal_parse(&r, &rf));
	mcp_tool_result_finish(&r);
}
END_TEST

/* ---- answers, statuses, times ---------------------------------------- */

START_TEST(sharing_fields)
{
	static const struct {
		const char *doc;
		enum data_sharing_level level;
		const char *key;
	} cases[] = {
		{"{\"dataSharingLevel\":\"metadata\"}", SHARING_METADATA, "dataSharingLevel"},
		{"{\"org\":{\"data_sharing_level\":\"FULL\"}}", SHARING_FULL, "data_sharing_level"},
		{"{\"diagrid.io/dataSharingLevel\":\"full\"}", SHARING_FULL, "diagrid.io/dataSharingLevel"},
		{"{\"dataSharing\":{\"level\":\"metadata\"}}", SHARING_METADATA, "dataSharing"},
		{"{\"dataSharingLevel\":\"partial\"}", SHARING_UNKNOWN, ""},
		{"{\"runs\":[{\"dataSharingLevel\":\"full\"}]}", SHARING_UNKNOWN, ""},
		{"{\"level\":\"full\"}", SHARING_UNKNOWN, ""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *d = json_loads(cases[i].doc, 0, NULL);
		char key[64];
		ck_assert_int_eq(catalyst_find_sharing(d, key, sizeof key), cases[i].level);
		ck_assert_str_eq(key, cases[i].key);
		json_decref(d);
	}
}
END_TEST

START_TEST(status_table)
{
	static const char *const cases[][2] = {
		{"COMPLETED", "completed"},
		{"ORCHESTRATION_STATUS_FAILED", "failed"},
		{"Running", "running"},
		{"cancelled", "canceled"},
		{"CANCELED", "canceled"},
		{"workflow_status_terminated", "terminated"},
		{"", ""},
	};
	char out[32];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ck_assert_str_eq(catalyst_status_normalize(cases[i][0], out, sizeof out), cases[i][1]);
	ck_assert(catalyst_status_valid("suspended"));
	ck_assert(!catalyst_status_valid("done"));
	ck_assert(!catalyst_status_valid(NULL));
}
END_TEST

START_TEST(time_table)
{
	static const struct {
		const char *in;
		const char *out; /* NULL: usage error */
	} cases[] = {
		{"24h", "2026-12-01T12:00:00Z"},
		{"30m", "2026-12-02T11:30:00Z"},
		{"7d", "2026-11-25T12:00:00Z"},
		{"1h30m", "2026-12-02T10:30:00Z"},
		{"90s", "2026-12-02T11:58:30Z"},
		{"2w", "2026-11-18T12:00:00Z"},
		{"2026-12-01T09:00:00Z", "2026-12-01T09:00:00Z"},
		{"2026-12-01T09:00:00.123456Z", "2026-12-01T09:00:00Z"},
		{"2026-12-01T10:00:00+01:00", "2026-12-01T09:00:00Z"},
		{"2026-12-01t04:30:00-04:30", "2026-12-01T09:00:00Z"},
		{"2026-12-01", "2026-12-01T00:00:00Z"},
		{"2026-12-01T09:00:00", NULL},
		{"2026-02-31T09:00:00Z", NULL},
		{"24", NULL},
		{"h", NULL},
		{"-5h", NULL},
		{"yesterday", NULL},
		{"", NULL},
		{"5y", NULL},
		/* found by fuzz_cli_args: a year under 1000 came out in three
		 * digits, and sscanf took a sign or a space for a digit */
		{"0159-12-01T14:00:00Z", "0159-12-01T14:00:00Z"},
		{"0000-01-01T00:00:00+01:00", NULL},
		{" +15-12-01", NULL},
		{"+026-12-01", NULL},
		{"2026-12-01T 9:00:00Z", NULL},
		{"2026-12-01T09:00:00+-1:00", NULL},
	};
	struct tm tm = {.tm_year = 126, .tm_mon = 11, .tm_mday = 2, .tm_hour = 12}; /* 2026-12-02T12:00Z */
	time_t now = timegm(&tm);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char out[32];
		struct err e;
		err_clear(&e);
		int rc = catalyst_time_arg("since", cases[i].in, now, out, &e);
		if (cases[i].out) {
			ck_assert_msg(rc == 0, "%s: %s", cases[i].in, e.msg);
			ck_assert_str_eq(out, cases[i].out);
		} else {
			ck_assert_msg(rc == -1, "%s accepted", cases[i].in);
			ck_assert_int_eq(e.code, ERR_USAGE);
			ck_assert_ptr_nonnull(strstr(e.msg, "--since"));
		}
	}
}
END_TEST

/* The listing's set of runs: each (app, run) once, the two ids kept apart
 * ("a"+"bc" is not "ab"+"c"), NULL read as "", and thousands held as the
 * table grows. */
START_TEST(run_set_holds_each_run_once)
{
	struct catalyst_run_set *s = catalyst_run_set_new();
	ck_assert_ptr_nonnull(s);
	ck_assert(!catalyst_run_set_has(s, "a", "bc"));
	ck_assert_int_eq(catalyst_run_set_add(s, "a", "bc"), 1);
	ck_assert_int_eq(catalyst_run_set_add(s, "a", "bc"), 0);
	ck_assert(catalyst_run_set_has(s, "a", "bc"));
	ck_assert(!catalyst_run_set_has(s, "ab", "c"));
	ck_assert_int_eq(catalyst_run_set_add(s, "ab", "c"), 1);
	ck_assert_int_eq(catalyst_run_set_add(s, NULL, "x"), 1);
	ck_assert(catalyst_run_set_has(s, "", "x"));
	ck_assert_int_eq(catalyst_run_set_add(s, "", NULL), 1);
	ck_assert(catalyst_run_set_has(s, NULL, ""));
	char big[9000];
	memset(big, 'r', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(catalyst_run_set_add(s, "orders", big), 1); /* a key of its own */
	for (int i = 0; i < 20000; i++) {
		char id[32];
		snprintf(id, sizeof id, "run-%d", i);
		ck_assert_int_eq(catalyst_run_set_add(s, i % 2 ? "orders" : "billing", id), 1);
	}
	ck_assert_uint_eq(catalyst_run_set_count(s), 20005);
	for (int i = 0; i < 20000; i++) {
		char id[32];
		snprintf(id, sizeof id, "run-%d", i);
		ck_assert(catalyst_run_set_has(s, i % 2 ? "orders" : "billing", id));
		ck_assert(!catalyst_run_set_has(s, i % 2 ? "billing" : "orders", id));
	}
	ck_assert(catalyst_run_set_has(s, "orders", big));
	ck_assert(catalyst_run_set_has(s, "a", "bc"));
	catalyst_run_set_free(s);
	catalyst_run_set_free(NULL);
}
END_TEST

START_TEST(run_items_both_profiles)
{
	struct err e;
	json_t *a = json_loads(
		"{\"runs\":[{\"instanceId\":\"pay-1\",\"appId\":\"checkout\",\"workflowName\":\"Pay\","
		"\"status\":\"COMPLETED\",\"createdAt\":\"2026-12-01T00:00:00Z\"}],\"nextCursor\":\"c2\"}",
		0, NULL);
	json_t *b = json_loads("{\"workflow_runs\":[{\"run_id\":\"order-1:0001\",\"app_id\":\"orders\","
			       "\"workflow_name\":\"Ship\",\"runtime_status\":\"failed\",\"created_at\":\"x\"}],"
			       "\"next_page_token\":\"\"}",
			       0, NULL);
	struct catalyst_run_list l;
	memset(&l, 0, sizeof l);
	ck_assert_int_eq(catalyst_run_items_parse(a, &l, &e), 0);
	ck_assert_int_eq(catalyst_run_items_parse(b, &l, &e), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_str_eq(l.items[0].run_id, "pay-1");
	ck_assert_str_eq(l.items[0].app_id, "checkout");
	ck_assert_str_eq(l.items[0].status, "completed");
	ck_assert_str_eq(l.items[0].workflow, "Pay");
	ck_assert_str_eq(l.items[1].run_id, "order-1:0001");
	ck_assert_str_eq(l.items[1].app_id, "orders");
	ck_assert_str_eq(l.items[1].status, "failed");
	catalyst_run_list_finish(&l);
	json_t *none = json_loads("{\"message\":\"hello\"}", 0, NULL);
	ck_assert_int_eq(catalyst_run_items_parse(none, &l, &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	catalyst_run_list_finish(&l);
	json_decref(a);
	json_decref(b);
	json_decref(none);
}
END_TEST

/* ---- a scripted transport -------------------------------------------- */

#define MAX_SCRIPT 16

struct fake {
	struct fake_transport ft;       /* first: the answer function gets it */
	const char *tools_json;         /* the tools/list result's "tools" */
	const char *script[MAX_SCRIPT]; /* per tools/call: a result JSON, "!retryable", "!rpc:<error json>" */
	int n_script;
	int next;
	int calls;                   /* tools/call requests */
	char *last_args[MAX_SCRIPT]; /* arguments of each tools/call */
};

/* A tools/call's scripted step: a transport error, a JSON-RPC error or a
 * result. */
static int answer_call(struct fake *f, json_t *msg, struct err *e)
{
	if (f->calls < MAX_SCRIPT)
		f->last_args[f->calls] = json_dumps(json_object_get(json_object_get(msg, "params"), "arguments"),
						    JSON_SORT_KEYS | JSON_COMPACT);
	f->calls++;
	ck_assert_int_lt(f->next, f->n_script);
	const char *step = f->script[f->next++];
	if (strcmp(step, "!retryable") == 0) {
		err_set(e, ERR_PROTOCOL, "HTTP 503");
		e->detail = ERR_DETAIL_RETRYABLE;
		e->retry_after = 0;
		return -1;
	}
	if (strcmp(step, "!final") == 0) {
		/* As the transport says of an answer over the size limit. */
		err_set(e, ERR_PROTOCOL, "message over 16777216 bytes");
		e->detail = ERR_DETAIL_FINAL;
		return -1;
	}
	if (strcmp(step, "!cut") == 0) {
		/* A body that ended early: worth another try. */
		err_set(e, ERR_PROTOCOL, "message is not JSON: at byte 12: truncated");
		e->http_status = 200;
		return -1;
	}
	if (strncmp(step, "!rpc:", 5) == 0) {
		json_t *err = json_loads(step + 5, 0, NULL);
		ck_assert_ptr_nonnull(err);
		fake_deliver_error(msg, err);
		return 0;
	}
	json_t *res = json_loads(step, 0, NULL);
	ck_assert_ptr_nonnull(res);
	fake_deliver_result(msg, res);
	return 0;
}

static int fake_answer(struct fake_transport *ft, json_t *msg, const char *method, struct err *e)
{
	struct fake *f = (struct fake *)ft;
	if (strcmp(method, "tools/call") == 0)
		return answer_call(f, msg, e);
	json_t *res = json_object();
	if (strcmp(method, "tools/list") == 0) {
		json_t *tools = json_loads(f->tools_json, 0, NULL);
		ck_assert_ptr_nonnull(tools);
		json_object_set_new(res, "tools", tools);
	}
	fake_deliver_result(msg, res);
	return 0;
}

static const char *const tools_b =
	"[{\"name\":\"catalyst_list_workflow_runs\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	"\"ProjectId\":{\"type\":\"string\"},\"limit\":{\"type\":\"integer\"},\"page_token\":{\"type\":\"string\"}},"
	"\"required\":[\"ProjectId\"]}},"
	"{\"name\":\"catalyst_get_workflow_run\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	"\"ProjectId\":{\"type\":\"string\"},\"app_id\":{\"type\":\"string\"},\"runId\":{\"type\":\"string\"}},"
	"\"required\":[\"ProjectId\",\"app_id\",\"runId\"]}},"
	"{\"name\":\"catalyst_terminate_workflow_run\",\"inputSchema\":{\"type\":\"object\"}}]";

struct rig {
	struct fake f;
	struct mcp_session *s;
	struct catalyst *c;
};

static void rig_init_tools(struct rig *r, const char *tools_json)
{
	memset(r, 0, sizeof *r);
	fake_transport_init(&r->f.ft, fake_answer);
	r->f.tools_json = tools_json;
	r->s = mcp_session_new(&r->f.ft.base, NULL);
	ck_assert_ptr_nonnull(r->s);
	struct catalyst_options o = {.backoff_s = 0.001, .backoff_cap_s = 0.01};
	r->c = catalyst_new(r->s, &o);
	ck_assert_ptr_nonnull(r->c);
	struct err e;
	ck_assert_int_eq(catalyst_load_tools(r->c, &e), 0);
}

static void rig_init(struct rig *r)
{
	rig_init_tools(r, tools_b);
}

static void rig_finish(struct rig *r)
{
	catalyst_free(r->c);
	mcp_session_free(r->s);
	for (int i = 0; i < MAX_SCRIPT; i++)
		free(r->f.last_args[i]);
	fake_transport_finish(&r->f.ft);
}

START_TEST(allow_list_sends_nothing)
{
	struct rig r;
	rig_init(&r);
	/* the server offers it, the layer still never binds or calls it */
	ck_assert(!catalyst_has_tool(r.c, "catalyst_terminate_workflow_run"));
	ck_assert(catalyst_has_tool(r.c, "catalyst_get_workflow_run"));
	int before = (int)json_array_size(r.f.ft.sent);
	static const char *const writes[] = {"catalyst_terminate_workflow_run",
					     "catalyst_purge_workflow_runs",
					     "catalyst_start_workflow",
					     "catalyst_get_workflow_run_logs",
					     "catalyst_get_workflow_run ",
					     "",
					     NULL};
	for (const char *const *w = writes; *w; w++) {
		struct err e;
		err_clear(&e);
		json_t *doc = (json_t *)1;
		ck_assert_int_eq(catalyst_call(r.c, *w, NULL, &doc, NULL, NULL, &e), -1);
		ck_assert_int_eq(e.code, ERR_INTERNAL);
		ck_assert_ptr_nonnull(strstr(e.msg, "allow-list"));
		ck_assert_ptr_null(doc);
		const char *vals[CATALYST_ARG_COUNT] = {[CATALYST_ARG_RUN] = "r"};
		ck_assert_int_eq(catalyst_invoke(r.c, *w, vals, 0, NULL, &doc, NULL, NULL, &e), -1);
		ck_assert_int_eq(e.code, ERR_INTERNAL);
	}
	ck_assert_int_eq(catalyst_call(r.c, NULL, NULL, &(json_t *){NULL}, NULL, NULL, NULL), -1);
	ck_assert_int_eq((int)json_array_size(r.f.ft.sent), before);
	ck_assert_int_eq(r.f.calls, 0);
	ck_assert(catalyst_tool_allowed("catalyst_get_workflow_run"));
	ck_assert(!catalyst_tool_allowed("catalyst_get_workflow_run_logs"));
	rig_finish(&r);
}
END_TEST

static int get_run(struct rig *r, struct catalyst_refusal *rf, json_t **doc, struct err *e)
{
	const char *vals[CATALYST_ARG_COUNT] = {[CATALYST_ARG_PROJECT] = "default",
						[CATALYST_ARG_APP] = "orders",
						[CATALYST_ARG_RUN] = "order-7740:0002"};
	unsigned req = CATALYST_BIT(CATALYST_ARG_PROJECT) | CATALYST_BIT(CATALYST_ARG_APP) |
		       CATALYST_BIT(CATALYST_ARG_RUN);
	return catalyst_invoke(r->c, "catalyst_get_workflow_run", vals, req, NULL, doc, NULL, rf, e);
}

#define REFUSE(kind, retry)                                                                                   \
	"{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"{\\\"error\\\":{\\\"kind\\\":\\\"" kind \
	"\\\",\\\"message\\\":\\\"m\\\",\\\"instruction\\\":\\\"do this\\\",\\\"retryable\\\":" retry "}}\"}]}"

START_TEST(retries)
{
	struct rig r;
	struct err e;
	struct catalyst_refusal rf;
	json_t *doc;

	/* transient failures: retried, the third try answers */
	rig_init(&r);
	r.f.script[0] = "!retryable";
	r.f.script[1] = "!retryable";
	r.f.script[2] = "{\"structuredContent\":{\"run\":{\"run_id\":\"x\"}},\"content\":[]}";
	r.f.n_script = 3;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), 0);
	ck_assert_int_eq(r.f.calls, 3);
	ck_assert_str_eq(r.f.last_args[0],
			 "{\"ProjectId\":\"default\",\"app_id\":\"orders\",\"runId\":\"order-7740:0002\"}");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "run"), "run_id")), "x");
	json_decref(doc);
	rig_finish(&r);

	/* ...but not forever */
	rig_init(&r);
	for (int i = 0; i < 5; i++)
		r.f.script[i] = "!retryable";
	r.f.n_script = 5;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_int_eq(r.f.calls, 3);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(e.msg, "after 3 attempts"));
	rig_finish(&r);

	/* a retryable connection refusal: once */
	rig_init(&r);
	r.f.script[0] = REFUSE("ORG_UNAVAILABLE", "true");
	r.f.script[1] = REFUSE("ORG_UNAVAILABLE", "true");
	r.f.script[2] = "{\"structuredContent\":{}}";
	r.f.n_script = 3;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_int_eq(r.f.calls, 2);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_int_eq(e.detail, ERR_DETAIL_REFUSAL);
	ck_assert_str_eq(rf.kind, "ORG_UNAVAILABLE");
	ck_assert_ptr_nonnull(strstr(e.msg, "ORG_UNAVAILABLE"));
	ck_assert_ptr_nonnull(strstr(e.msg, "do this"));
	rig_finish(&r);

	/* a retryable refusal that clears on the second try */
	rig_init(&r);
	r.f.script[0] = REFUSE("ORG_UNAVAILABLE", "true");
	r.f.script[1] = "{\"structuredContent\":{\"ok\":1}}";
	r.f.n_script = 2;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), 0);
	ck_assert_int_eq(r.f.calls, 2);
	json_decref(doc);
	rig_finish(&r);

	/* not retryable: never */
	rig_init(&r);
	r.f.script[0] = REFUSE("NOT_AUTHENTICATED", "false");
	r.f.script[1] = "{\"structuredContent\":{}}";
	r.f.n_script = 2;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_int_eq(r.f.calls, 1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	rig_finish(&r);

	/* data-sharing: never, even when it says it is retryable */
	rig_init(&r);
	r.f.script[0] = REFUSE("denied", "true");
	r.f.script[1] = "{\"structuredContent\":{}}";
	r.f.n_script = 2;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_int_eq(r.f.calls, 1);
	ck_assert_int_eq(e.code, ERR_DATA_SHARING);
	ck_assert_int_eq(rf.family, CATALYST_REFUSAL_DATA_SHARING);
	rig_finish(&r);

	/* a tool error with a kind that is no refusal: exit 5, not retried */
	rig_init(&r);
	r.f.script[0] = REFUSE("WORKFLOW_STORE_NOT_CONFIGURED", "false");
	r.f.n_script = 1;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_int_eq(r.f.calls, 1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_ne(e.detail, ERR_DETAIL_REFUSAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "WORKFLOW_STORE_NOT_CONFIGURED"));
	rig_finish(&r);

	/* JSON-RPC error with no refusal in it */
	rig_init(&r);
	r.f.script[0] = "!rpc:{\"code\":-32602,\"message\":\"Invalid params\"}";
	r.f.n_script = 1;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(e.msg, "Invalid params"));
	rig_finish(&r);

	/* a refusal as a JSON-RPC error */
	rig_init(&r);
	r.f.script[0] = "!rpc:{\"code\":-32000,\"message\":\"x\",\"data\":{\"error\":{\"kind\":\"no-policy\","
			"\"message\":\"m\",\"retryable\":false}}}";
	r.f.n_script = 1;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_int_eq(e.code, ERR_DATA_SHARING);
	ck_assert_int_eq(rf.envelope, CATALYST_ENVELOPE_RPC_ERROR);
	rig_finish(&r);
}
END_TEST

/* The run ids of every page, as the listing hands them over. */
struct collected {
	char *ids[16];
	size_t n;
	size_t pages;
};

static void collect(const struct catalyst_run_list *l, struct collected *c)
{
	c->pages++;
	for (size_t i = 0; i < l->n; i++) {
		ck_assert_uint_lt(c->n, 16);
		c->ids[c->n++] = strdup(l->items[i].run_id ? l->items[i].run_id : "(none)");
	}
}

/* Steps a listing to its end (or its error), collecting every page. */
static int walk(struct catalyst *c, const struct catalyst_run_filter *f, struct collected *col,
		struct catalyst_run_list *l, struct catalyst_refusal *rf, struct err *e)
{
	catalyst_list_runs(c, f, l);
	int rc;
	while ((rc = catalyst_run_list_next(l, rf, e)) > 0)
		collect(l, col);
	return rc;
}

#define NAMED(name) (&(struct project_ref){PROJECT_NAME, (name), false, false})

static void collected_free(struct collected *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->ids[i]);
	memset(c, 0, sizeof *c);
}

START_TEST(unfilterable_halves_the_page)
{
	struct rig r;
	rig_init(&r);
	r.f.script[0] = REFUSE("unfilterable", "false");
	r.f.script[1] = REFUSE("unfilterable", "false");
	r.f.script[2] = "{\"structuredContent\":{\"workflow_runs\":[{\"run_id\":\"a\",\"app_id\":\"x\"}],"
			"\"next_page_token\":\"p2\"}}";
	r.f.script[3] = "{\"structuredContent\":{\"workflow_runs\":[{\"run_id\":\"b\",\"app_id\":\"x\"}],"
			"\"next_page_token\":\"\"}}";
	r.f.n_script = 4;
	struct catalyst_run_filter f = {.project = NAMED("default"), .page_size = 100};
	struct catalyst_run_list l;
	struct catalyst_refusal rf;
	struct err e;
	struct collected col = {0};
	ck_assert_int_eq(walk(r.c, &f, &col, &l, &rf, &e), 0);
	ck_assert_uint_eq(col.n, 2);
	ck_assert_uint_eq(col.pages, 2);
	ck_assert_uint_eq(l.unfilterable, 2);
	ck_assert_int_eq(l.page_size, 25);
	ck_assert_str_eq(r.f.last_args[0], "{\"ProjectId\":\"default\",\"limit\":100}");
	ck_assert_str_eq(r.f.last_args[1], "{\"ProjectId\":\"default\",\"limit\":50}");
	ck_assert_str_eq(r.f.last_args[2], "{\"ProjectId\":\"default\",\"limit\":25}");
	ck_assert_str_eq(r.f.last_args[3], "{\"ProjectId\":\"default\",\"limit\":25,\"page_token\":\"p2\"}");
	ck_assert_str_eq(col.ids[1], "b");
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);

	/* down to 1, then it stops the listing with exit 4 */
	rig_init(&r);
	for (int i = 0; i < 3; i++)
		r.f.script[i] = REFUSE("unfilterable", "false");
	r.f.n_script = 3;
	f.page_size = 4;
	ck_assert_int_eq(walk(r.c, &f, &col, &l, &rf, &e), -1);
	ck_assert_uint_eq(col.n, 0);
	ck_assert_int_eq(r.f.calls, 3);
	ck_assert_str_eq(r.f.last_args[2], "{\"ProjectId\":\"default\",\"limit\":1}");
	ck_assert_int_eq(e.code, ERR_DATA_SHARING);
	ck_assert_str_eq(rf.kind, "unfilterable");
	catalyst_run_list_finish(&l);
	rig_finish(&r);
}
END_TEST

/* An answer that cannot change is final; one cut short is tried again. */
START_TEST(final_errors_not_retried)
{
	struct rig r;
	struct catalyst_refusal rf;
	json_t *doc;
	struct err e;
	rig_init(&r);
	r.f.script[0] = "!final";
	r.f.script[1] = "{\"structuredContent\":{}}";
	r.f.n_script = 2;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_int_eq(r.f.calls, 1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(e.msg, "over 16777216 bytes"));
	ck_assert_ptr_null(strstr(e.msg, "attempts"));
	rig_finish(&r);

	rig_init(&r);
	r.f.script[0] = "!cut";
	r.f.script[1] = "{\"structuredContent\":{\"run\":{\"run_id\":\"x\"}}}";
	r.f.n_script = 2;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), 0);
	ck_assert_int_eq(r.f.calls, 2);
	json_decref(doc);
	rig_finish(&r);
}
END_TEST

#define RUNS_PAGE(id, next)                                                                     \
	"{\"structuredContent\":{\"workflow_runs\":[{\"run_id\":\"" id "\",\"app_id\":\"x\"}]," \
	"\"next_page_token\":\"" next "\"}}"

/* Any repeated cursor ends the listing, not only one given twice in a
 * row; so do the page bound and the callback. */
START_TEST(run_listing_bounds)
{
	struct rig r;
	struct catalyst_run_list l;
	struct catalyst_refusal rf;
	struct err e;
	struct collected col = {0};
	struct catalyst_run_filter f = {.project = NAMED("default")};

	/* A, B, A */
	rig_init(&r);
	r.f.script[0] = RUNS_PAGE("a", "A");
	r.f.script[1] = RUNS_PAGE("b", "B");
	r.f.script[2] = RUNS_PAGE("c", "A");
	r.f.n_script = 3;
	ck_assert_int_eq(walk(r.c, &f, &col, &l, &rf, &e), -1);
	ck_assert_int_eq(r.f.calls, 3);
	ck_assert_uint_eq(col.n, 3);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_int_eq(e.detail, ERR_DETAIL_FINAL);
	ck_assert_msg(strstr(e.msg, "repeated cursor 'A' (page 3)"), "%s", e.msg);
	ck_assert_uint_eq(l.pages, 3);
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);

	/* new cursors without end: stopped at max_pages */
	rig_init(&r);
	r.f.script[0] = RUNS_PAGE("a", "A");
	r.f.script[1] = RUNS_PAGE("b", "B");
	r.f.script[2] = RUNS_PAGE("c", "C");
	r.f.n_script = 3;
	f.max_pages = 2;
	ck_assert_int_eq(walk(r.c, &f, &col, &l, &rf, &e), -1);
	ck_assert_int_eq(r.f.calls, 2);
	ck_assert_msg(strstr(e.msg, "still more pages after 2"), "%s", e.msg);
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);
}
END_TEST

START_TEST(run_listing_stops_when_told)
{
	struct rig r;
	struct catalyst_run_list l;
	struct err e;
	struct collected col = {0};
	struct catalyst_run_filter f = {.project = NAMED("default")};
	rig_init(&r);
	r.f.script[0] = RUNS_PAGE("a", "A");
	r.f.script[1] = RUNS_PAGE("b", "");
	r.f.n_script = 2;
	catalyst_list_runs(r.c, &f, &l);
	ck_assert_int_eq(catalyst_run_list_next(&l, NULL, &e), 1);
	collect(&l, &col);
	/* the caller stops here: no other page is asked for */
	ck_assert_int_eq(r.f.calls, 1);
	ck_assert_uint_eq(col.n, 1);
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);
}
END_TEST

#define PAGE(items, next) \
	"{\"structuredContent\":{\"workflow_runs\":[" items "],\"next_page_token\":\"" next "\"}}"
#define RUN(id, app) "{\"run_id\":\"" id "\",\"app_id\":\"" app "\"}"
#define CHILD(id, app, parent) \
	"{\"run_id\":\"" id "\",\"app_id\":\"" app "\",\"parent_instance_id\":\"" parent "\"}"

/* A run listed twice (on one page or across pages) is given once; the
 * same run id in another app is another run. */
START_TEST(run_listing_gives_each_run_once)
{
	struct rig r;
	struct catalyst_run_list l;
	struct err e;
	struct collected col = {0};
	struct catalyst_run_filter f = {.project = NAMED("default")};
	rig_init(&r);
	r.f.script[0] = PAGE(RUN("a", "x") "," RUN("b", "x") "," RUN("a", "x"), "p2");
	r.f.script[1] = PAGE(RUN("a", "x") "," RUN("a", "y") "," RUN("c", "x"), "");
	r.f.n_script = 2;
	ck_assert_int_eq(walk(r.c, &f, &col, &l, NULL, &e), 0);
	ck_assert_uint_eq(col.pages, 2);
	ck_assert_uint_eq(col.n, 4);
	ck_assert_str_eq(col.ids[0], "a");
	ck_assert_str_eq(col.ids[1], "b");
	ck_assert_str_eq(col.ids[2], "a"); /* app y */
	ck_assert_str_eq(col.ids[3], "c");
	ck_assert_uint_eq(l.repeats, 2);
	ck_assert_uint_eq(l.top_level, 4);
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);
}
END_TEST

/* The limit counts top-level runs: child runs on the page that reaches it
 * are given up to the next top-level run, where the listing ends without
 * asking for another page (a repeat after that point is not counted). */
START_TEST(run_listing_limit_counts_top_level)
{
	struct rig r;
	struct catalyst_run_list l;
	struct err e;
	struct collected col = {0};
	struct catalyst_run_filter f = {.project = NAMED("default"), .limit = 2};
	rig_init(&r);
	r.f.script[0] = PAGE(RUN("t1", "x") "," CHILD("c1", "x", "t1") "," RUN("t2", "x") "," CHILD(
				     "c2", "x", "t2") "," RUN("t1", "x") "," RUN("t3", "x"),
			     "p2");
	r.f.script[1] = PAGE(RUN("t4", "x"), "");
	r.f.n_script = 2;
	ck_assert_int_eq(walk(r.c, &f, &col, &l, NULL, &e), 0);
	ck_assert_int_eq(r.f.calls, 1);
	ck_assert_str_eq(r.f.last_args[0], "{\"ProjectId\":\"default\",\"limit\":2}");
	ck_assert_uint_eq(col.n, 4);
	ck_assert_str_eq(col.ids[3], "c2");
	ck_assert(l.limit_reached);
	ck_assert_uint_eq(l.top_level, 2);
	ck_assert_uint_eq(l.repeats, 0);
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);

	/* reached with the page's last run: no other page is asked for */
	rig_init(&r);
	r.f.script[0] = PAGE(RUN("t1", "x"), "p2");
	r.f.script[1] = PAGE(RUN("t2", "x"), "");
	r.f.n_script = 2;
	f.limit = 1;
	ck_assert_int_eq(walk(r.c, &f, &col, &l, NULL, &e), 0);
	ck_assert_int_eq(r.f.calls, 1);
	ck_assert_uint_eq(col.n, 1);
	ck_assert(l.limit_reached);
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);

	/* not reached: the listing ends with the pages */
	rig_init(&r);
	r.f.script[0] = PAGE(RUN("t1", "x") "," CHILD("c1", "x", "t1"), "");
	r.f.n_script = 1;
	f.limit = 5;
	ck_assert_int_eq(walk(r.c, &f, &col, &l, NULL, &e), 0);
	ck_assert_uint_eq(col.n, 2);
	ck_assert(!l.limit_reached);
	ck_assert_uint_eq(l.top_level, 1);
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);
}
END_TEST

/* catalyst_get_run: the answer parsed into a history, and the level it
 * names, by a field of the answer or of the history's own envelope (in
 * the enum spelling too); an answer that is no history says so and keeps
 * the level the answer named. */
START_TEST(get_run_reads_history_and_level)
{
	struct rig r;
	struct err e;
	struct catalyst_run run;
	struct project_ref project = PROJECT_REF_DEFAULT;
	rig_init(&r);
	r.f.script[0] =
		"{\"structuredContent\":{\"workflow_run\":{\"instance_id\":\"r1\",\"app_id\":\"orders\","
		"\"orgDataSharingLevel\":\"DATA_SHARING_LEVEL_FULL\"},\"history\":["
		"{\"event_id\":-1,\"timestamp\":\"2026-09-14T09:12:03.401Z\",\"event_type\":\"ExecutionStarted\","
		"\"name\":\"OrderWorkflow\"},"
		"{\"event_id\":0,\"timestamp\":\"2026-09-14T09:12:03.447Z\",\"event_type\":\"TaskScheduled\","
		"\"name\":\"ValidateOrder\",\"task_execution_id\":\"t0\"}]}}";
	r.f.script[1] = "{\"structuredContent\":{\"dataSharingLevel\":\"metadata\",\"message\":\"hello\"}}";
	r.f.n_script = 2;
	err_clear(&e);
	ck_assert_msg(catalyst_get_run(r.c, &project, "orders", "r1", &run, NULL, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(r.f.last_args[0], "{\"ProjectId\":\"default\",\"app_id\":\"orders\",\"runId\":\"r1\"}");
	ck_assert_uint_eq(event_log_count(run.log), 2);
	ck_assert_int_eq(run.sharing, SHARING_FULL);
	ck_assert_str_eq(run.sharing_key, "orgDataSharingLevel");
	event_log_free(run.log);

	ck_assert_int_eq(catalyst_get_run(r.c, &project, "orders", "r1", &run, NULL, &e), -1);
	ck_assert_ptr_null(run.log);
	ck_assert_msg(strncmp(e.msg, "catalyst_get_workflow_run answer for r1: ", 41) == 0, "%s", e.msg);
	ck_assert_int_eq(run.sharing, SHARING_METADATA);
	ck_assert_str_eq(run.sharing_key, "dataSharingLevel");
	rig_finish(&r);
}
END_TEST

/* catalyst_whoami and catalyst_list_projects in the shapes the answers
 * come in: an organization object or flat org fields, a uid or an id that
 * reads as one (a number as text), the level in _meta. */
START_TEST(identity_and_projects_read)
{
	static const char tools[] = "[{\"name\":\"catalyst_whoami\",\"inputSchema\":{\"type\":\"object\"}},"
				    "{\"name\":\"catalyst_list_projects\",\"inputSchema\":{\"type\":\"object\"}}]";
	struct rig r;
	struct err e;
	rig_init_tools(&r, tools);
	r.f.script[0] = "{\"structuredContent\":{\"user\":{\"email\":\"a@b.example\"},\"organization\":{\"id\":42,"
			"\"displayName\":\"Acme\"}},\"_meta\":{\"diagrid.io/dataSharingLevel\":\"full\"}}";
	r.f.script[1] = "{\"structuredContent\":{\"org_name\":\"Flat\",\"org_id\":\"o-1\",\"username\":\"u\"}}";
	r.f.script[2] =
		"{\"structuredContent\":{\"data\":{\"projects\":[{\"name\":\"default\",\"id\":\"prj-165\"},"
		"{\"projectName\":\"payments\",\"numericId\":212},{\"name\":\"odd\",\"id\":\"abc\"},7]}}}";
	r.f.n_script = 3;
	struct catalyst_identity id;
	ck_assert_int_eq(catalyst_whoami(r.c, &id, NULL, &e), 0);
	ck_assert_str_eq(id.org_name, "Acme");
	ck_assert_str_eq(id.org_id, "42");
	ck_assert_str_eq(id.user, "a@b.example");
	ck_assert_int_eq(id.sharing, SHARING_FULL);
	ck_assert_str_eq(id.sharing_key, "diagrid.io/dataSharingLevel");
	catalyst_identity_finish(&id);
	ck_assert_int_eq(catalyst_whoami(r.c, &id, NULL, &e), 0);
	ck_assert_str_eq(id.org_name, "Flat");
	ck_assert_str_eq(id.org_id, "o-1");
	ck_assert_str_eq(id.user, "u");
	ck_assert_int_eq(id.sharing, SHARING_UNKNOWN);
	catalyst_identity_finish(&id);

	struct catalyst_projects l;
	ck_assert_int_eq(catalyst_list_projects(r.c, &l, &e), 0);
	ck_assert_uint_eq(l.n, 4); /* one per entry, whatever it holds */
	ck_assert_str_eq(l.items[0].name, "default");
	ck_assert_str_eq(l.items[0].uid, "prj-165");
	ck_assert_str_eq(l.items[1].name, "payments");
	ck_assert_str_eq(l.items[1].uid, "212");
	ck_assert_str_eq(l.items[2].name, "odd");
	ck_assert_ptr_null(l.items[2].uid);
	ck_assert_ptr_null(l.items[3].name);
	catalyst_projects_finish(&l);
	rig_finish(&r);
}
END_TEST

/* A missing run or project, however it is said, is ERR_NOT_FOUND (7),
 * asked once; what merely mentions "not found" elsewhere is not. */
static const struct {
	const char *answer;
	enum err_code code;
} not_found_cases[] = {
	{REFUSE("NOT_FOUND", "false"), ERR_NOT_FOUND},
	{REFUSE("RUN_NOT_FOUND", "false"), ERR_NOT_FOUND},
	{"{\"isError\":true,\"structuredContent\":{\"error\":{\"kind\":\"NotFound\",\"message\":\"no run\"}},"
	 "\"content\":[{\"type\":\"text\",\"text\":\"no run\"}]}",
	 ERR_NOT_FOUND},
	{"{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"workflow run 'x' not found in app 'orders'\"}]}",
	 ERR_NOT_FOUND},
	{"{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"Project 'x' does not exist\"}]}",
	 ERR_NOT_FOUND},
	{"!rpc:{\"code\":-32002,\"message\":\"Resource not found\"}", ERR_NOT_FOUND},
	{"!rpc:{\"code\":-32000,\"message\":\"x\",\"data\":{\"error\":{\"kind\":\"NOT_FOUND\",\"message\":\"m\"}}}",
	 ERR_NOT_FOUND},
	/* not a missing run */
	{"!rpc:{\"code\":-32602,\"message\":\"Tool catalyst_get_workflow_run not found\"}", ERR_PROTOCOL},
	{"{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"internal error\"}]}", ERR_PROTOCOL},
	{REFUSE("WORKFLOW_STORE_NOT_CONFIGURED", "false"), ERR_PROTOCOL},
};

START_TEST(not_found_in_every_envelope)
{
	struct rig r;
	struct catalyst_refusal rf;
	json_t *doc = NULL;
	struct err e;
	rig_init(&r);
	r.f.script[0] = not_found_cases[_i].answer;
	r.f.n_script = 1;
	ck_assert_int_eq(get_run(&r, &rf, &doc, &e), -1);
	ck_assert_msg(e.code == not_found_cases[_i].code, "case %d: code %d: %s", _i, e.code, e.msg);
	ck_assert_int_eq(r.f.calls, 1);
	rig_finish(&r);
}
END_TEST

START_TEST(not_found_kinds)
{
	static const char *const yes[] = {"NOT_FOUND",       "not-found",      "NotFound", "RUN_NOT_FOUND",
					  "ProjectNotFound", "DOES_NOT_EXIST", NULL};
	static const char *const no[] = {"", "FOUND", "NOT_AUTHENTICATED", "INVALID_CURSOR", "denied", NULL};
	for (const char *const *k = yes; *k; k++)
		ck_assert_msg(catalyst_kind_not_found(*k), "%s", *k);
	for (const char *const *k = no; *k; k++)
		ck_assert_msg(!catalyst_kind_not_found(*k), "%s", *k);
	ck_assert(!catalyst_kind_not_found(NULL));
	ck_assert(catalyst_text_not_found("workflow run 'x' not found"));
	ck_assert(catalyst_text_not_found("No such run"));
	ck_assert(!catalyst_text_not_found("internal error"));
	ck_assert(!catalyst_text_not_found(NULL));
}
END_TEST

/* A run looked up by id: only that very id comes back, whether or not the
 * server filtered (tools_b's list has no filter by instance id). */
START_TEST(run_lookup_is_exact)
{
	struct rig r;
	struct catalyst_run_list l;
	struct err e;
	struct collected col = {0};
	struct catalyst_run_filter f = {.project = NAMED("default"), .run = "a"};
	rig_init(&r);
	r.f.script[0] =
		"{\"structuredContent\":{\"workflow_runs\":[{\"run_id\":\"ab\",\"app_id\":\"x\"},"
		"{\"run_id\":\"a\",\"app_id\":\"y\"},{\"app_id\":\"z\"},{\"run_id\":\"A\",\"app_id\":\"w\"}],"
		"\"next_page_token\":\"\"}}";
	r.f.n_script = 1;
	ck_assert_int_eq(walk(r.c, &f, &col, &l, NULL, &e), 0);
	ck_assert_uint_eq(col.n, 1);
	ck_assert_str_eq(col.ids[0], "a");
	ck_assert(l.client_side & CATALYST_BIT(CATALYST_ARG_RUN));
	collected_free(&col);
	catalyst_run_list_finish(&l);
	rig_finish(&r);
}
END_TEST

START_TEST(no_workflow_store_is_said)
{
	struct rig r;
	rig_init(&r);
	r.f.script[0] = REFUSE("WORKFLOW_STORE_NOT_CONFIGURED", "false");
	r.f.n_script = 1;
	struct catalyst_run_filter f = {.project = NAMED("sandbox")};
	struct catalyst_run_list l;
	struct err e;
	catalyst_list_runs(r.c, &f, &l);
	ck_assert_int_eq(catalyst_run_list_next(&l, NULL, &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(e.msg, "project sandbox has no managed workflow store"));
	catalyst_run_list_finish(&l);
	rig_finish(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("catalyst_bind");
	struct testlib_group *tc = testlib_group("bind");
	add_loop_test(tc, bind_table, 0, sizeof bind_cases / sizeof *bind_cases);
	add_test(tc, args_typed_and_enumerated);
	add_test(tc, args_missing_required_named);
	add_test(tc, key_match_table);
	testlib_suite_add(s, tc);
	tc = testlib_group("refusal");
	add_loop_test(tc, refusal_table, 0, (int)N_KINDS * 3);
	add_test(tc, refusal_level_fields_and_non_refusals);
	testlib_suite_add(s, tc);
	tc = testlib_group("answers");
	add_test(tc, sharing_fields);
	add_test(tc, status_table);
	add_test(tc, time_table);
	add_test(tc, run_items_both_profiles);
	add_test(tc, run_set_holds_each_run_once);
	testlib_suite_add(s, tc);
	tc = testlib_group("session");
	add_test(tc, allow_list_sends_nothing);
	add_test(tc, retries);
	add_test(tc, unfilterable_halves_the_page);
	add_test(tc, no_workflow_store_is_said);
	add_test(tc, final_errors_not_retried);
	add_test(tc, run_listing_bounds);
	add_test(tc, run_listing_stops_when_told);
	add_test(tc, run_listing_gives_each_run_once);
	add_test(tc, run_listing_limit_counts_top_level);
	add_test(tc, get_run_reads_history_and_level);
	add_test(tc, identity_and_projects_read);
	add_loop_test(tc, not_found_in_every_envelope, 0, sizeof not_found_cases / sizeof *not_found_cases);
	add_test(tc, not_found_kinds);
	add_test(tc, run_lookup_is_exact);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
