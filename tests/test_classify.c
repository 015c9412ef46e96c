#include <stdbool.h>
#include <stddef.h>

#include "classify.h"
#include "testlib.h"

/* The classifier table, case by case: real messages from the fixtures and
 * from the SDKs' HTTP clients, and the ordering decisions (a refused
 * connection is not ambiguous, a 503 inside an HTTPError is, a decisive
 * type beats a misleading message). */
static const struct {
	const char *type;
	const char *message;
	bool non_retriable;
	enum failure_class want;
} cases[] = {
	/* Fixtures. */
	{"ConnectionError",
	 "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))", false,
	 FAILURE_AMBIGUOUS},
	{"HTTPError", "503 Server Error: Service Unavailable for url: https://psp.example.net/v2/charges", false,
	 FAILURE_AMBIGUOUS},
	{"ReadTimeout",
	 "HTTPSConnectionPool(host='payouts.bank.example', port=443): Read timed out. (read timeout=10)", false,
	 FAILURE_AMBIGUOUS},
	{"*errors.errorString", "carrier API returned 502 Bad Gateway", false, FAILURE_AMBIGUOUS},
	{"NonRetryableError", "refund window closed for order 871 (closed 2026-08-31)", false, FAILURE_PERMANENT},
	{"System.InvalidOperationException", "Applicant 62 has no identity document on file", true,
	 FAILURE_PERMANENT},
	{"TaskFailedError", "refund-871: Activity task #0 failed: refund window closed", false, FAILURE_UNKNOWN},
	/* Timeouts in every SDK's spelling. */
	{"TimeoutError", "", false, FAILURE_AMBIGUOUS},
	{NULL, "context deadline exceeded", false, FAILURE_AMBIGUOUS},
	{"DeadlineExceeded", "rpc error", false, FAILURE_AMBIGUOUS},
	{NULL, "rpc error: code = DeadlineExceeded desc = stream terminated", false, FAILURE_AMBIGUOUS},
	{"System.Threading.Tasks.TaskCanceledException",
	 "The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.", false,
	 FAILURE_AMBIGUOUS},
	{"Error", "connect ETIMEDOUT 10.0.0.5:443", false, FAILURE_AMBIGUOUS},
	{NULL, "504 Gateway Timeout", false, FAILURE_AMBIGUOUS},
	/* Connection lost after the request went out. */
	{"Error", "read ECONNRESET", false, FAILURE_AMBIGUOUS},
	{NULL, "write: broken pipe", false, FAILURE_AMBIGUOUS},
	{"Error", "socket hang up", false, FAILURE_AMBIGUOUS},
	{NULL, "Post \"https://api.example/charge\": EOF", false, FAILURE_AMBIGUOUS},
	{NULL, "unexpected eof while reading", false, FAILURE_AMBIGUOUS},
	{NULL, "rpc error: code = Unavailable desc = transport is closing", false, FAILURE_AMBIGUOUS},
	{NULL, "500 Internal Server Error", false, FAILURE_AMBIGUOUS},
	{"HttpRequestException", "Response status code does not indicate success: 503", false, FAILURE_AMBIGUOUS},
	/* Nothing was sent: a retry is safe, so neither ambiguous nor permanent. */
	{"ConnectionError",
	 "HTTPConnectionPool(host='localhost', port=8080): Max retries exceeded (Caused by "
	 "NewConnectionError: [Errno 111] Connection refused)",
	 false, FAILURE_UNKNOWN},
	{NULL, "dial tcp 10.1.2.3:443: connect: connection refused", false, FAILURE_UNKNOWN},
	{NULL, "dial tcp: lookup api.example: no such host", false, FAILURE_UNKNOWN},
	{"HTTPError", "429 Client Error: Too Many Requests", false, FAILURE_UNKNOWN},
	/* Permanent: 4xx, validation, declines, not found. */
	{"HTTPError", "400 Client Error: Bad Request for url", false, FAILURE_PERMANENT},
	{NULL, "401 Unauthorized", false, FAILURE_PERMANENT},
	{NULL, "403 Forbidden: missing scope", false, FAILURE_PERMANENT},
	{NULL, "customer cus_123 not found", false, FAILURE_PERMANENT},
	{NULL, "409 Conflict", false, FAILURE_PERMANENT},
	{NULL, "422 Unprocessable Entity", false, FAILURE_PERMANENT},
	{"ValidationError", "amount must be positive", false, FAILURE_PERMANENT},
	{"ValueError", "invalid literal for int() with base 10: 'x'", false, FAILURE_PERMANENT},
	{"System.ArgumentException", "Value cannot be empty", false, FAILURE_PERMANENT},
	{"CardError", "Your card was declined.", false, FAILURE_PERMANENT},
	{"PaymentError", "insufficient funds", false, FAILURE_PERMANENT},
	{NULL, "rpc error: code = InvalidArgument desc = bad sku", false, FAILURE_PERMANENT},
	{NULL, "HTTP 404", false, FAILURE_PERMANENT},
	/* A decisive type beats a misleading message. */
	{"ValueError", "timeout must be a positive number", false, FAILURE_PERMANENT},
	/* The flag always wins. */
	{"ReadTimeout", "Read timed out", true, FAILURE_PERMANENT},
	/* Case-insensitive. */
	{NULL, "SERVICE UNAVAILABLE", false, FAILURE_AMBIGUOUS},
	{NULL, "BAD REQUEST", false, FAILURE_PERMANENT},
	/* Numbers only count as words: order ids and amounts are not statuses. */
	{NULL, "order 15003 rejected by rule engine", false, FAILURE_UNKNOWN},
	{NULL, "amount 4040 exceeds daily cap", false, FAILURE_UNKNOWN},
	{NULL, "none thereof matched", false, FAILURE_UNKNOWN}, /* "EOF" must be a word */
	/* Nothing at all. */
	{NULL, NULL, false, FAILURE_UNKNOWN},
	{"", "", false, FAILURE_UNKNOWN},
};

START_TEST(table)
{
	enum failure_class got = classify_failure(cases[_i].type, cases[_i].message, cases[_i].non_retriable);
	ck_assert_msg(got == cases[_i].want, "case %d: type=%s message=%s: got %s, want %s", _i,
		      cases[_i].type ? cases[_i].type : "(null)", cases[_i].message ? cases[_i].message : "(null)",
		      failure_class_name(got), failure_class_name(cases[_i].want));
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(failure_class_name(FAILURE_NONE), "none");
	ck_assert_str_eq(failure_class_name(FAILURE_UNKNOWN), "unknown");
	ck_assert_str_eq(failure_class_name(FAILURE_AMBIGUOUS), "ambiguous");
	ck_assert_str_eq(failure_class_name(FAILURE_PERMANENT), "permanent");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("classify");
	TCase *tc = tcase_create("classify");
	tcase_add_loop_test(tc, table, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	return testlib_main(s);
}
