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
	{"{\"access_token\":\"abc.def\",\"x\":1}", "{\"access_token\":\"<redacted>\",\"x\":1}"},
	{"{\"refresh_token\" : \"r1\"}", "{\"refresh_token\" : \"<redacted>\"}"},
	{"grant_type=authorization_code&code=XYZ&code_verifier=v123&resource=x",
	 "grant_type=authorization_code&code=<redacted>&code_verifier=<redacted>&resource=x"},
	{"{\"name\":\"code\"}", "{\"name\":\"code\"}"},
	{"{\"apiToken\":\"s3cr\\\"et\"}", "{\"apiToken\":\"<redacted>\"}"},
	{"{\"token\":\"\"}", "{\"token\":\"<redacted>\"}"},
	{"refresh_token=r&x=1", "refresh_token=<redacted>&x=1"},
	{"{\"password\":\"unterminated", "{\"password\":\"<redacted>"},
	{"no secrets here", "no secrets here"},
	/* log lines (a --stdio server's stderr, a command line) */
	{"level=info access_token=eyJ.x.y user=a", "level=info access_token=<redacted> user=a"},
	{"access_token: yaml1, next", "access_token: <redacted>, next"},
	{"refresh_token=\"q s\" x", "refresh_token=\"<redacted>\" x"},
	{"got Authorization: Bearer hdr3 ok", "got Authorization: Bearer <redacted> ok"},
	{"server --token=cmd4 --port 1", "server --token=<redacted> --port 1"},
	{"the code is ready", "the code is ready"},
};

START_TEST(redacts_secret_values)
{
	char *got = trace_redact_dup(redact_cases[_i].in);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, redact_cases[_i].out);
	free(got);
}
END_TEST

/* The redaction tells nothing of the secret, not even its length. */
START_TEST(redaction_hides_the_length)
{
	char *a = trace_redact_dup("{\"access_token\":\"x\"}");
	char *b = trace_redact_dup("{\"access_token\":\"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl\"}");
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
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

/* A trace line carries server text (a header, a URL, a body): C0, C1, bidi
 * and zero-width characters and invalid bytes come out escaped. */
START_TEST(trace_line_is_neutralised)
{
	captured[0] = '\0';
	trace_set_sink(capture, NULL);
	trace_printf("http", "< Content-Type: %s",
		     "a\x1b[2J\r\xc2\x9b"
		     "1m\xe2\x80\xae\xe2\x81\xa6\xe2\x80\x8b\xe2\x81\xa0\xef\xbb\xbf\xff\\x1b");
	trace_set_sink(NULL, NULL);
	ck_assert_str_eq(
		captured,
		"[http] < Content-Type: a\\x1b[2J\\r\\u009b1m\\u202e\\u2066\\u200b\\u2060\\ufeff\\xff\\x1b\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	struct testlib_group *tc = testlib_group("redaction");
	add_loop_test(tc, redacts_secret_values, 0, sizeof redact_cases / sizeof *redact_cases);
	add_test(tc, redaction_hides_the_length);
	add_test(tc, redacts_authorization_header);
	add_test(tc, trace_line_is_neutralised);
	add_test(tc, body_trace_escapes_and_bounds);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
