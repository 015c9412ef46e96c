#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "trace.h"

static char captured[8192];

static void capture(const char *line, void *ctx)
{
	(void)ctx;
	strncat(captured, line, sizeof captured - strlen(captured) - 2);
	strcat(captured, "\n");
}

static const struct {
	const char *in;
	const char *out;
} redact_cases[] = {
	{"{\"access_token\":\"abc.def\",\"x\":1}", "{\"access_token\":\"*******\",\"x\":1}"},
	{"{\"refresh_token\" : \"r1\"}", "{\"refresh_token\" : \"**\"}"},
	{"grant_type=authorization_code&code=XYZ&code_verifier=v123&resource=x",
	 "grant_type=authorization_code&code=***&code_verifier=****&resource=x"},
	{"{\"name\":\"code\"}", "{\"name\":\"code\"}"},
	{"{\"apiToken\":\"s3cr\\\"et\"}", "{\"apiToken\":\"********\"}"},
};

START_TEST(redacts_secret_values)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", redact_cases[_i].in);
	trace_redact_inplace(buf);
	ck_assert_str_eq(buf, redact_cases[_i].out);
}
END_TEST

START_TEST(redacts_authorization_header)
{
	char *h = trace_redact_header("Authorization: Bearer eyJhbGciOi.secret");
	ck_assert_str_eq(h, "Authorization: Bearer <redacted>");
	free(h);
	h = trace_redact_header("Content-Type: application/json");
	ck_assert_str_eq(h, "Content-Type: application/json");
	free(h);
}
END_TEST

START_TEST(body_trace_escapes_and_bounds)
{
	captured[0] = '\0';
	trace_set_sink(capture, NULL);
	trace_body("http", "<-", "{\"a\":\"\x1b[31mred\"}", 17);
	ck_assert_ptr_null(strchr(captured, '\x1b'));
	char big[10000];
	memset(big, 'x', sizeof big);
	captured[0] = '\0';
	trace_body("http", "<-", big, sizeof big);
	ck_assert_ptr_nonnull(strstr(captured, "(10000 bytes in all)"));
	trace_set_sink(NULL, NULL);
	ck_assert(!trace_enabled());
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("redaction");
	tcase_add_loop_test(tc, redacts_secret_values, 0, sizeof redact_cases / sizeof *redact_cases);
	tcase_add_test(tc, redacts_authorization_header);
	tcase_add_test(tc, body_trace_escapes_and_bounds);
	suite_add_tcase(s, tc);
	return testlib_main(s);
}
