#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"
#include "testlib.h"

static const struct {
	const char *text;
	enum jsonrpc_kind kind;
	const char *method; /* requests and notifications */
	long long id;       /* -1: none or not an integer */
} valid[] = {
	{"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[]}}", JSONRPC_RESULT, NULL, 7},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}", JSONRPC_RESULT, NULL, 1},
	{"{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,\"message\":\"nope\"}}", JSONRPC_ERROR, NULL,
	 3},
	{"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"parse\"}}", JSONRPC_ERROR,
	 NULL, -1},
	{"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}", JSONRPC_REQUEST, "ping", 0},
	{"{\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"method\":\"elicitation/create\",\"params\":{}}", JSONRPC_REQUEST,
	 "elicitation/create", -1},
	{"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}",
	 JSONRPC_NOTIFICATION, "notifications/progress", -1},
	{"  {\"method\":\"x\",\"jsonrpc\":\"2.0\"}\n", JSONRPC_NOTIFICATION, "x", -1},
};

START_TEST(decode_valid)
{
	struct jsonrpc_message m;
	struct err e;
	err_clear(&e);
	ck_assert_msg(jsonrpc_decode(&m, valid[_i].text, strlen(valid[_i].text), &e) == 0, "case %d: %s", _i,
		      e.msg);
	ck_assert_int_eq(m.kind, valid[_i].kind);
	if (valid[_i].method)
		ck_assert_str_eq(m.method, valid[_i].method);
	else
		ck_assert_ptr_null(m.method);
	if (valid[_i].id >= 0)
		ck_assert(jsonrpc_id_is(m.id, valid[_i].id));
	else
		ck_assert(!json_is_integer(m.id));
	if (m.kind == JSONRPC_ERROR) {
		ck_assert_ptr_nonnull(m.error_message);
		ck_assert_int_lt(m.error_code, 0);
	}
	if (m.kind == JSONRPC_NOTIFICATION)
		ck_assert_ptr_null(m.id);
	jsonrpc_message_finish(&m);
	ck_assert_ptr_null(m.root);
}
END_TEST

static const struct {
	const char *text;
	const char *expect; /* substring of the error message */
} invalid[] = {
	{"", "line 1 column 0"},
	{"{\"jsonrpc\":\"2.0\",", "invalid JSON at line 1 column"},
	{"{\"jsonrpc\":\"2.0\",\n\"id\":1,\n\"result\":tru}", "line 3 column"},
	{"[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]", "batch"},
	{"\"just a string\"", "invalid JSON"}, /* jansson refuses a bare scalar by default */
	{"{\"id\":1,\"result\":{}}", "\"jsonrpc\" is not \"2.0\""},
	{"{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}", "\"jsonrpc\" is not \"2.0\""},
	{"{\"jsonrpc\":2.0,\"id\":1,\"result\":{}}", "\"jsonrpc\" is not \"2.0\""},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}", "both"},
	{"{\"jsonrpc\":\"2.0\",\"id\":1}", "neither"},
	{"{\"jsonrpc\":\"2.0\",\"result\":{}}", "without \"id\""},
	{"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"result\":{}}", "neither a string nor an integer"},
	{"{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}", "neither a string nor an integer"},
	{"{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", "neither a string nor an integer"},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"bad\"}", "integer \"code\""},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"x\",\"message\":\"m\"}}", "integer \"code\""},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}", "string \"message\""},
	{"{\"jsonrpc\":\"2.0\",\"method\":5}", "\"method\" is not a string"},
	{"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1,\"result\":{}}", "carries \"result\""},
	{"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":3}", "\"params\""},
	{"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":null}", "neither a string nor an integer"},
	{"{\"jsonrpc\":\"2.0\",\"method\":\"m\xff\"}", "invalid JSON"}, /* invalid UTF-8 */
	{"{\"jsonrpc\":\"2.0\",\"method\":\"a\\u0000b\"}", "invalid JSON"},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} trailing", "invalid JSON"},
	/* A key given twice: two parsers could read two different answers
	 * (the history parser refuses the same). */
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":false,\"isError\":true}}", "duplicate object key"},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"result\":{}}", "duplicate object key"},
};

START_TEST(decode_invalid)
{
	struct jsonrpc_message m;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(jsonrpc_decode(&m, invalid[_i].text, strlen(invalid[_i].text), &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_msg(strstr(e.msg, invalid[_i].expect), "case %d: '%s' lacks '%s'", _i, e.msg,
		      invalid[_i].expect);
	ck_assert_ptr_null(m.root);
	jsonrpc_message_finish(&m); /* harmless on an empty message */
}
END_TEST

/* A hostile peer nests far deeper than any real message: jansson's depth
 * limit must turn that into an error, not a stack overflow. */
START_TEST(decode_deep_nesting_is_an_error)
{
	size_t depth = 100000;
	char *text = malloc(2 * depth + 64);
	ck_assert_ptr_nonnull(text);
	size_t n = (size_t)sprintf(text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":");
	/* Filled by a loop: GCC's -Warray-bounds misjudges memset here under ASan. */
	for (size_t i = 0; i < depth; i++) {
		text[n + i] = '[';
		text[n + depth + i] = ']';
	}
	strcpy(text + n + 2 * depth, "}");
	struct jsonrpc_message m;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(jsonrpc_decode(&m, text, strlen(text), &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(e.msg, "depth"));
	free(text);
}
END_TEST

START_TEST(decode_ten_megabytes)
{
	size_t big = 10u << 20;
	const char *head = "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"text\":\"";
	char *text = malloc(big + 128);
	ck_assert_ptr_nonnull(text);
	size_t n = strlen(head);
	memcpy(text, head, n);
	for (size_t i = 0; i < big; i++)
		text[n + i] = 'a';
	strcpy(text + n + big, "\"}}");
	struct jsonrpc_message m;
	struct err e;
	err_clear(&e);
	ck_assert_msg(jsonrpc_decode(&m, text, strlen(text), &e) == 0, "%s", e.msg);
	ck_assert_int_eq(m.kind, JSONRPC_RESULT);
	ck_assert_uint_eq(json_string_length(json_object_get(m.result, "text")), big);
	jsonrpc_message_finish(&m);
	/* Over the limit: refused before parsing, with the sizes named. */
	err_clear(&e);
	ck_assert_int_eq(jsonrpc_decode(&m, text, JSONRPC_MAX_MESSAGE + 1, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "limit"));
	free(text);
}
END_TEST

START_TEST(request_builder)
{
	struct err e;
	err_clear(&e);
	struct jsonrpc_request a, b;
	json_t *params = json_pack("{s:s, s:{s:i}}", "name", "catalyst_whoami", "arguments", "x", 1);
	ck_assert_int_eq(jsonrpc_request_build(&a, "tools/call", params, NULL, &e), 0);
	ck_assert_int_eq(jsonrpc_request_build(&b, "tools/list", NULL, NULL, &e), 0);
	ck_assert_int_gt(b.id, a.id); /* ids from one counter, never reused */
	ck_assert_str_eq(a.method, "tools/call");
	ck_assert_str_eq(a.name, "catalyst_whoami");
	ck_assert_ptr_null(b.name);
	ck_assert_uint_eq(a.len, strlen(a.body));

	/* The body decodes back to what was asked, through our own decoder. */
	struct jsonrpc_message m;
	ck_assert_int_eq(jsonrpc_decode(&m, a.body, a.len, &e), 0);
	ck_assert_int_eq(m.kind, JSONRPC_REQUEST);
	ck_assert(jsonrpc_id_is(m.id, a.id));
	ck_assert_str_eq(m.method, "tools/call");
	ck_assert(json_equal(m.params, params));
	jsonrpc_message_finish(&m);

	ck_assert_int_eq(jsonrpc_decode(&m, b.body, b.len, &e), 0);
	ck_assert_ptr_null(m.params); /* no params: the key is absent */
	jsonrpc_message_finish(&m);
	jsonrpc_request_finish(&a);
	jsonrpc_request_finish(&b);

	/* _meta is merged into params without touching the caller's object. */
	json_t *meta = json_pack("{s:i}", "progressToken", 42);
	ck_assert_int_eq(jsonrpc_request_build_id(&a, 1000, "tools/call", params, meta, &e), 0);
	ck_assert_int_eq(a.id, 1000);
	ck_assert_ptr_null(json_object_get(params, "_meta"));
	json_t *root = json_loads(a.body, 0, NULL);
	ck_assert_int_eq(json_integer_value(json_object_get(root, "id")), 1000);
	ck_assert_int_eq(json_integer_value(json_object_get(
				 json_object_get(json_object_get(root, "params"), "_meta"), "progressToken")),
			 42);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(root, "params"), "name")),
			 "catalyst_whoami");
	json_decref(root);
	jsonrpc_request_finish(&a);

	/* Text that needs escaping comes out as valid JSON (no concatenation). */
	json_t *tricky = json_pack("{s:s}", "name", "a\"b\\c\n\x01");
	ck_assert_int_eq(jsonrpc_request_build(&a, "tools/call", tricky, NULL, &e), 0);
	ck_assert_int_eq(jsonrpc_decode(&m, a.body, a.len, &e), 0);
	ck_assert_str_eq(json_string_value(json_object_get(m.params, "name")), "a\"b\\c\n\x01");
	ck_assert_str_eq(a.name, "a\"b\\c\n\x01");
	jsonrpc_message_finish(&m);
	jsonrpc_request_finish(&a);
	json_decref(tricky);
	json_decref(meta);
	json_decref(params);
}
END_TEST

START_TEST(other_builders)
{
	struct err e;
	err_clear(&e);
	size_t len;
	struct jsonrpc_message m;

	char *n = jsonrpc_notification_build("notifications/initialized", NULL, &len, &e);
	ck_assert_str_eq(n, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	ck_assert_uint_eq(len, strlen(n));
	free(n);

	json_t *sid = json_string("srv-1");
	char *r = jsonrpc_result_build(sid, NULL, &len, &e);
	ck_assert_int_eq(jsonrpc_decode(&m, r, len, &e), 0);
	ck_assert_int_eq(m.kind, JSONRPC_RESULT);
	ck_assert_str_eq(json_string_value(m.id), "srv-1");
	ck_assert(json_is_object(m.result) && json_object_size(m.result) == 0);
	jsonrpc_message_finish(&m);
	free(r);

	json_t *iid = json_integer(12);
	char *er = jsonrpc_error_build(iid, JSONRPC_METHOD_NOT_FOUND, "Method not found", &len, &e);
	ck_assert_int_eq(jsonrpc_decode(&m, er, len, &e), 0);
	ck_assert_int_eq(m.kind, JSONRPC_ERROR);
	ck_assert(jsonrpc_id_is(m.id, 12));
	ck_assert_int_eq(m.error_code, -32601);
	ck_assert_str_eq(m.error_message, "Method not found");
	jsonrpc_message_finish(&m);
	free(er);
	/* The ids passed in are borrowed, not consumed. */
	ck_assert_int_eq(sid->refcount, 1);
	ck_assert_int_eq(iid->refcount, 1);
	json_decref(sid);
	json_decref(iid);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jsonrpc");
	struct testlib_group *tc = testlib_group("decode");
	add_loop_test(tc, decode_valid, 0, sizeof valid / sizeof *valid);
	add_loop_test(tc, decode_invalid, 0, sizeof invalid / sizeof *invalid);
	add_test(tc, decode_deep_nesting_is_an_error);
	add_test(tc, decode_ten_megabytes);
	testlib_suite_add(s, tc);
	tc = testlib_group("build");
	add_test(tc, request_builder);
	add_test(tc, other_builders);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
