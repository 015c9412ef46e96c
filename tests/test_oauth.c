/* The pure parts of sign-in: the WWW-Authenticate parser, PKCE against the
 * RFC 7636 test vector, the well-known URLs, the callback query and its
 * checks, and that --verbose traces of OAuth traffic are redacted. */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oauth.h"
#include "testlib.h"
#include "trace.h"

#define N(a) (sizeof(a) / sizeof *(a))

static const struct {
	const char *header;
	int rc;
	const char *resource_metadata, *scope, *error, *error_description;
} challenge_cases[] = {
	{"Bearer resource_metadata=\"https://mcp.example/.well-known/oauth-protected-resource/mcp\"", 0,
	 "https://mcp.example/.well-known/oauth-protected-resource/mcp", NULL, NULL, NULL},
	{"Bearer error=\"invalid_token\", error_description=\"Missing Authorization header\", "
	 "resource_metadata=\"http://localhost:1/x\"",
	 0, "http://localhost:1/x", NULL, "invalid_token", "Missing Authorization header"},
	/* token form, odd spacing, case-insensitive scheme and names */
	{"bearer   Scope = catalyst:read ,ERROR=insufficient_scope", 0, NULL, "catalyst:read",
	 "insufficient_scope", NULL},
	/* several challenges: Bearer second */
	{"Basic realm=\"x\", Bearer scope=\"a b\", resource_metadata=\"https://r/m\"", 0, "https://r/m", "a b",
	 NULL, NULL},
	/* Bearer first, another after it */
	{"Bearer scope=\"s1\", DPoP algs=\"ES256\", Basic realm=x", 0, NULL, "s1", NULL, NULL},
	/* a token68 challenge before ours */
	{"Negotiate YIIB+g==, Bearer error=invalid_token", 0, NULL, NULL, "invalid_token", NULL},
	/* quoted-pair escapes */
	{"Bearer error_description=\"say \\\"hi\\\" \\\\ ok\"", 0, NULL, NULL, NULL, "say \"hi\" \\ ok"},
	/* the first occurrence wins */
	{"Bearer scope=\"first\", scope=\"second\"", 0, NULL, "first", NULL, NULL},
	/* a bare scheme */
	{"Bearer", 0, NULL, NULL, NULL, NULL},
	{"Basic realm=\"x\"", -1, NULL, NULL, NULL, NULL},
	{"", -1, NULL, NULL, NULL, NULL},
	{"Bearer scope=\"unterminated", -1, NULL, NULL, NULL, NULL},
	/* "scope=" is a token68 by the grammar: no parameter */
	{"Bearer scope=", 0, NULL, NULL, NULL, NULL},
	{"Bearer scope=a b", -1, NULL, NULL, NULL, NULL},
	{"=Bearer", -1, NULL, NULL, NULL, NULL},
};

static void assert_opt_str(const char *got, const char *want)
{
	if (!want)
		ck_assert_ptr_null(got);
	else
		ck_assert_str_eq(got, want);
}

START_TEST(challenge_table)
{
	struct oauth_challenge c;
	struct err e;
	err_clear(&e);
	int rc = oauth_challenge_parse(challenge_cases[_i].header, &c, &e);
	ck_assert_msg(rc == challenge_cases[_i].rc, "case %d '%s': rc %d (%s)", _i, challenge_cases[_i].header, rc,
		      e.msg);
	if (rc == 0) {
		assert_opt_str(c.resource_metadata, challenge_cases[_i].resource_metadata);
		assert_opt_str(c.scope, challenge_cases[_i].scope);
		assert_opt_str(c.error, challenge_cases[_i].error);
		assert_opt_str(c.error_description, challenge_cases[_i].error_description);
	} else {
		ck_assert_int_eq(e.code, ERR_PROTOCOL);
		ck_assert_ptr_null(c.scope);
	}
	oauth_challenge_finish(&c);
}
END_TEST

/* RFC 6750 section 2.1's b64token, and what the message says of the rest:
 * the offending character by place and kind, never the token. */
static const struct {
	const char *token;
	const char *said; /* NULL: accepted */
} token_cases[] = {
	{"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl", NULL},
	{"mF_9.B5f-4.1JqM", NULL}, /* RFC 6750's own example */
	{"a+b/c~d==", NULL},
	{"abc\n", "the last character is a line break"},
	{"abc\r\n", "character 4 of 5 is a line break"},
	{"Bearer abc", "character 7 of 10 is a space or tab"},
	{" abc", "the first character is a space or tab"},
	{"\"abc\"", "the first character is a quotation mark"},
	{"ab=c", "character 3 of 4 is an '=' before the end"},
	{"===", "it holds only '='"},
	{"caf\xc3\xa9", "character 4 of 5 is a non-ASCII byte"},
	{"a\x01"
	 "b",
	 "character 2 of 3 is a control character"},
	{"a,b", "character 2 of 3 is a character a token cannot hold"},
	{"", "CATALYST_TOKEN is empty"},
};

START_TEST(token_check_table)
{
	struct err e;
	err_clear(&e);
	int rc = oauth_token_check(token_cases[_i].token, "CATALYST_TOKEN", ERR_USAGE, &e);
	if (!token_cases[_i].said) {
		ck_assert_msg(rc == 0, "case %d refused: %s", _i, e.msg);
		return;
	}
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(e.code, ERR_USAGE);
	ck_assert_msg(strstr(e.msg, token_cases[_i].said), "case %d: %s", _i, e.msg);
	/* the token itself is not in the message */
	if (strlen(token_cases[_i].token) >= 3)
		ck_assert_msg(!strstr(e.msg, token_cases[_i].token), "case %d shows the token: %s", _i, e.msg);
}
END_TEST

START_TEST(pkce_rfc7636_vector)
{
	char out[OAUTH_CHALLENGE_LEN + 1];
	struct err e;
	err_clear(&e);
	/* RFC 7636 Appendix B, as published (and as `openssl dgst -sha256
	 * -binary | base64` computes it). */
	ck_assert_int_eq(oauth_pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", out, &e), 0);
	ck_assert_str_eq(out, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
	/* too short for RFC 7636 */
	ck_assert_int_eq(oauth_pkce_challenge("short", out, &e), -1);
}
END_TEST

START_TEST(random_strings)
{
	char a[OAUTH_VERIFIER_LEN + 1], b[OAUTH_VERIFIER_LEN + 1];
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(oauth_random_string(a, OAUTH_VERIFIER_LEN, &e), 0);
	ck_assert_int_eq(oauth_random_string(b, OAUTH_VERIFIER_LEN, &e), 0);
	ck_assert_uint_eq(strlen(a), OAUTH_VERIFIER_LEN);
	ck_assert_str_ne(a, b);
	/* RFC 7636 unreserved characters only */
	ck_assert_uint_eq(strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"),
			  strlen(a));
	char c[OAUTH_CHALLENGE_LEN + 1];
	ck_assert_int_eq(oauth_pkce_challenge(a, c, &e), 0);
	ck_assert_uint_eq(strlen(c), 43);
}
END_TEST

static const struct {
	const char *resource;
	int n;
	const char *url[2];
} prm_cases[] = {
	{"https://mcp.cloud.r1.diagrid.io/mcp",
	 2,
	 {"https://mcp.cloud.r1.diagrid.io/.well-known/oauth-protected-resource/mcp",
	  "https://mcp.cloud.r1.diagrid.io/.well-known/oauth-protected-resource"}},
	{"http://127.0.0.1:8080/a/b/",
	 2,
	 {"http://127.0.0.1:8080/.well-known/oauth-protected-resource/a/b",
	  "http://127.0.0.1:8080/.well-known/oauth-protected-resource"}},
	{"https://example.com", 1, {"https://example.com/.well-known/oauth-protected-resource", NULL}},
	{"https://example.com/?q=1", 1, {"https://example.com/.well-known/oauth-protected-resource", NULL}},
	{"ftp://example.com/x", -1, {NULL, NULL}},
};

START_TEST(prm_url_table)
{
	char *out[2] = {0};
	struct err e;
	err_clear(&e);
	int n = oauth_prm_urls(prm_cases[_i].resource, out, &e);
	ck_assert_int_eq(n, prm_cases[_i].n);
	for (int k = 0; k < n; k++) {
		ck_assert_str_eq(out[k], prm_cases[_i].url[k]);
		free(out[k]);
	}
}
END_TEST

static const struct {
	const char *issuer;
	int n;
	const char *url[3];
} as_cases[] = {
	{"https://api.r1.diagrid.io/mcp-auth",
	 3,
	 {"https://api.r1.diagrid.io/.well-known/oauth-authorization-server/mcp-auth",
	  "https://api.r1.diagrid.io/.well-known/openid-configuration/mcp-auth",
	  "https://api.r1.diagrid.io/mcp-auth/.well-known/openid-configuration"}},
	{"http://localhost:4000/tenant1/",
	 3,
	 {"http://localhost:4000/.well-known/oauth-authorization-server/tenant1",
	  "http://localhost:4000/.well-known/openid-configuration/tenant1",
	  "http://localhost:4000/tenant1/.well-known/openid-configuration"}},
	{"https://auth.example",
	 2,
	 {"https://auth.example/.well-known/oauth-authorization-server",
	  "https://auth.example/.well-known/openid-configuration", NULL}},
	{"not a url", -1, {NULL, NULL, NULL}},
};

START_TEST(as_url_table)
{
	char *out[3] = {0};
	struct err e;
	err_clear(&e);
	int n = oauth_as_metadata_urls(as_cases[_i].issuer, out, &e);
	ck_assert_int_eq(n, as_cases[_i].n);
	for (int k = 0; k < n; k++) {
		ck_assert_str_eq(out[k], as_cases[_i].url[k]);
		free(out[k]);
	}
}
END_TEST

static const struct {
	const char *prm, *mcp;
	bool match;
} resource_cases[] = {
	{"https://mcp.cloud.r1.diagrid.io/mcp", "https://mcp.cloud.r1.diagrid.io/mcp", true},
	{"http://localhost:3000", "http://localhost:3000/mcp", true}, /* root metadata: the origin */
	{"http://localhost:3000/", "http://localhost:3000/mcp", true},
	{"https://evil.example.com/mcp", "http://localhost:3000/mcp", false},
	{"https://mcp.example/mc", "https://mcp.example/mcp", false}, /* not a segment prefix */
	{"https://mcp.example/mcp/other", "https://mcp.example/mcp", false},
	{"https://mcp.example:444/mcp", "https://mcp.example/mcp", false},
	{"http://mcp.example/mcp", "https://mcp.example/mcp", false},
	{NULL, "https://mcp.example/mcp", false},
};

START_TEST(resource_match_table)
{
	ck_assert_msg(oauth_resource_matches(resource_cases[_i].prm, resource_cases[_i].mcp) ==
			      resource_cases[_i].match,
		      "case %d", _i);
}
END_TEST

/* The https rule, decided on the host libcurl parses (the one it would
 * connect to), never on the text. `shows` is what the message must say:
 * for user information, the host the request would really have gone to,
 * and never the user information itself. */
static const struct {
	const char *url;
	bool ok;
	const char *shows;
} url_cases[] = {
	/* user information: wherever the host hides, whatever it is */
	{"http://localhost:1@otherhost/token", false, "would send the request to http://otherhost/token"},
	{"http://localhost@evil/", false, "to http://evil/"},
	{"http://127.0.0.1:80@evil/", false, "to http://evil/"},
	{"http://[::1]@evil/", false, "to http://evil/"},
	{"http://localhost\\@evil/", false, "to http://evil/"},
	{"http://localhost;x@evil/", false, "to http://evil/"},
	{"http://localhost:@evil/", false, "to http://evil/"},
	{"https://user:pw@host/", false, "to https://host/"},
	{"https://alice@as.example/token", false, "user information"},
	{"http://@localhost/", false, "user information"},
	{"http://:@127.0.0.1/", false, "user information"},
	{"HTTPS://Client:Secret@AS.EXAMPLE/", false, "user information"},
	/* hosts that merely start like loopback */
	{"http://localhost.evil.com/", false, "http://localhost.evil.com/ is not https"},
	{"http://127.0.0.1.nip.io/", false, "is not https"},
	{"http://127.0.0.1%2eevil.com/", false, "http://127.0.0.1.evil.com/ is not https"},
	{"http://localhost./", false, "is not https"},
	{"http://[::ffff:127.0.0.1]/", false, "is not https"},
	{"http://0.0.0.0:8080/", false, "is not https"},
	{"http://128.0.0.1/", false, "is not https"},
	{"http://xn--localhost/", false, "is not https"},
	/* parts after the host are not the host */
	{"http://evil#@localhost/", false, "is not https"},
	{"http://evil?@localhost/", false, "is not https"},
	{"http://evil/localhost", false, "is not https"},
	/* not absolute http(s) URLs */
	{"ftp://localhost/", false, "is not https"},
	{"file:///etc/passwd", false, "refusing"},
	{"localhost/token", false, "not an absolute URL"},
	{"//localhost/token", false, "not an absolute URL"},
	{"http://localhost\\\\evil/", false, "not an absolute URL"},
	{"http:\\\\localhost/", false, "not an absolute URL"},
	{"http://localhost%00.evil/", false, "not an absolute URL"},
	{"http://evil\t.com/", false, "not an absolute URL"},
	{"", false, "missing"},
	{NULL, false, "missing"},
	/* https anywhere; plain http to loopback, however libcurl spells it */
	{"https://api.r1.diagrid.io/mcp-auth", true, NULL},
	{"https://127.0.0.1.nip.io/", true, NULL},
	{"http://127.0.0.1:4000/token", true, NULL},
	{"http://127.255.255.254:8080/x", true, NULL},
	{"http://127.1/", true, NULL},
	{"http://0x7f000001/", true, NULL},
	{"http://[::1]/", true, NULL},
	{"http://[::1]:9/token", true, NULL},
	{"http://[0:0:0:0:0:0:0:1]/", true, NULL},
	{"HTTP://LOCALHOST/", true, NULL},
	{"http://LocalHost:99/x", true, NULL},
	{"http://%6c%6f%63%61%6c%68%6f%73%74/", true, NULL}, /* libcurl decodes it: localhost */
	{"http:/localhost/", true, NULL},                    /* libcurl reads http://localhost/ */
};

START_TEST(url_rule_table)
{
	struct err e;
	err_clear(&e);
	const char *url = url_cases[_i].url;
	int rc = oauth_url_check(url, "token endpoint", &e);
	ck_assert_msg((rc == 0) == url_cases[_i].ok, "case %d '%s': rc %d (%s)", _i, url ? url : "(null)", rc,
		      e.msg);
	if (rc == 0)
		return;
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_msg(strstr(e.msg, "token endpoint"), "case %d: %s", _i, e.msg);
	ck_assert_msg(strstr(e.msg, url_cases[_i].shows), "case %d: '%s' lacks '%s'", _i, e.msg,
		      url_cases[_i].shows);
	/* what sat before the '@' may be a password: never in a message */
	const char *from = strstr(url ? url : "", "://"), *at = url ? strchr(url, '@') : NULL;
	if (from && at && at - from > 4 && strstr(e.msg, "user information")) {
		char userinfo[64];
		snprintf(userinfo, sizeof userinfo, "%.*s", (int)(at - from - 3), from + 3);
		ck_assert_msg(!strstr(e.msg, userinfo), "case %d shows '%s': %s", _i, userinfo, e.msg);
	}
}
END_TEST

static const struct {
	const char *target;
	int rc;
	const char *code, *state, *iss, *error;
} callback_cases[] = {
	{"/callback?code=abc&state=xyz", 1, "abc", "xyz", NULL, NULL},
	{"/callback?state=s%20t&code=a%2Bb+c&iss=http%3A%2F%2F127.0.0.1%3A9%2F", 1, "a+b c", "s t",
	 "http://127.0.0.1:9/", NULL},
	{"/callback?error=access_denied&error_description=no+way&state=xyz", 1, NULL, "xyz", NULL,
	 "access_denied"},
	{"/callback", 1, NULL, NULL, NULL, NULL},
	{"/favicon.ico", 0, NULL, NULL, NULL, NULL},
	{"/callback/extra?code=a", 0, NULL, NULL, NULL, NULL},
	{"/Callback?code=a", 0, NULL, NULL, NULL, NULL}, /* the path matches exactly */
	{"/callback?code=a&code=b", -1, NULL, NULL, NULL, NULL},
	{"/callback?code=a%00b", -1, NULL, NULL, NULL, NULL},
	{"http://evil/callback?code=a", -1, NULL, NULL, NULL, NULL},
	{"/callback?unknown=1&&state=&code=c", 1, "c", "", NULL, NULL},
};

START_TEST(callback_parse_table)
{
	struct oauth_callback cb;
	struct err e;
	err_clear(&e);
	int rc = oauth_callback_parse(callback_cases[_i].target, "/callback", &cb, &e);
	ck_assert_msg(rc == callback_cases[_i].rc, "case %d: %d", _i, rc);
	if (rc == 1) {
		assert_opt_str(cb.code, callback_cases[_i].code);
		assert_opt_str(cb.state, callback_cases[_i].state);
		assert_opt_str(cb.iss, callback_cases[_i].iss);
		assert_opt_str(cb.error, callback_cases[_i].error);
	}
	oauth_callback_finish(&cb);
}
END_TEST

static const struct {
	const char *target;
	bool iss_required;
	int rc;
	const char *msg_part;
} check_cases[] = {
	{"/cb?code=c1&state=S", false, 0, NULL},
	{"/cb?code=c1&state=S&iss=https%3A%2F%2Fas.example", true, 0, NULL},
	{"/cb?code=c1&state=T", false, -1, "state does not match"},
	{"/cb?code=c1", false, -1, "state does not match"},
	{"/cb?code=c1&state=S&iss=https%3A%2F%2Fevil.example", false, -1, "names issuer https://evil.example"},
	{"/cb?code=c1&state=S", true, -1, "names issuer (none)"},
	{"/cb?error=access_denied&error_description=User%20said%20no&state=S", false, -1,
	 "refused the sign-in: access_denied: User said no"},
	/* an error is the server's word only with the state it was sent */
	{"/cb?error=access_denied&error_description=forged&state=T", false, -1, "state does not match"},
	{"/cb?error=access_denied&error_description=forged", false, -1, "state does not match"},
	{"/cb?error=x%1b%5b31m&state=S", false, -1, "refused the sign-in: x\\x1b[31m"},
	{"/cb?state=S", false, -1, "no authorization code"},
};

START_TEST(callback_check_table)
{
	struct oauth_callback cb;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(oauth_callback_parse(check_cases[_i].target, "/cb", &cb, &e), 1);
	int rc = oauth_callback_check(&cb, "S", "https://as.example", check_cases[_i].iss_required, &e);
	ck_assert_msg(rc == check_cases[_i].rc, "case %d: %d %s", _i, rc, e.msg);
	if (rc < 0) {
		ck_assert_int_eq(e.code, ERR_AUTH);
		ck_assert_msg(strstr(e.msg, check_cases[_i].msg_part), "case %d: '%s'", _i, e.msg);
		/* the code itself never appears in a message */
		ck_assert_ptr_null(strstr(e.msg, "c1"));
	}
	oauth_callback_finish(&cb);
}
END_TEST

/* A browser stand-in: sends each request line to the listener and keeps
 * the status lines it got back. */
struct browser {
	int port;
	const char *requests[8];
	char statuses[8][64];
};

static void *browse(void *arg)
{
	struct browser *b = arg;
	for (int i = 0; b->requests[i]; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)b->port)};
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
			char req[512];
			int n = snprintf(req, sizeof req, "%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
					 b->requests[i]);
			if (write(fd, req, (size_t)n) == n) {
				char answer[2048];
				ssize_t got = read(fd, answer, sizeof answer - 1);
				if (got > 0) {
					answer[got] = '\0';
					snprintf(b->statuses[i], sizeof b->statuses[i], "%.*s",
						 (int)strcspn(answer, "\r"), answer);
				}
			}
		}
		close(fd);
	}
	return NULL;
}

START_TEST(listener_loopback_single_use)
{
	struct oauth_listener l;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(oauth_listener_open(&l, &e), 0);
	ck_assert_int_gt(l.port, 0);
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	ck_assert_int_eq(getsockname(l.fd, (struct sockaddr *)&a, &alen), 0);
	ck_assert_uint_eq(ntohl(a.sin_addr.s_addr), INADDR_LOOPBACK); /* never 0.0.0.0 */

	struct browser b = {.port = l.port,
			    .requests = {"POST /callback?code=p&state=s", "GET /favicon.ico",
					 "GET /callback?code=the-code&state=s&iss=https%3A%2F%2Fas", NULL}};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, browse, &b), 0);
	struct oauth_callback cb;
	int rc = oauth_listener_wait(&l, "/callback", "s", 30, &cb, &e);
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ck_assert_str_eq(b.statuses[0], "HTTP/1.1 405 Method Not Allowed");
	ck_assert_str_eq(b.statuses[1], "HTTP/1.1 404 Not Found");
	ck_assert_str_eq(b.statuses[2], "HTTP/1.1 200 OK");
	ck_assert_str_eq(cb.code, "the-code");
	ck_assert_int_eq(oauth_callback_check(&cb, "s", "https://as", true, &e), 0);
	oauth_callback_finish(&cb);
	/* single use: the listener is closed after the callback */
	ck_assert_int_eq(l.fd, -1);
	oauth_listener_close(&l);
}
END_TEST

/* Redirects that do not carry this sign-in's state (forged errors, forged
 * codes, no state, malformed) are answered 400 and cannot end the wait:
 * the real redirect after them still signs in. */
START_TEST(listener_ignores_foreign_redirects)
{
	struct oauth_listener l;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(oauth_listener_open(&l, &e), 0);
	struct browser b = {.port = l.port,
			    .requests = {"GET /callback?error=access_denied&error_description=forged&state=WRONG",
					 "GET /callback?error=access_denied",
					 "GET /callback?code=evil&state=WRONG",
					 "GET /callback?code=a&code=b&state=s", "GET /callback",
					 "GET /callback?code=real&state=s", NULL}};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, browse, &b), 0);
	struct oauth_callback cb;
	int rc = oauth_listener_wait(&l, "/callback", "s", 30, &cb, &e);
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "%s", e.msg);
	for (int i = 0; i < 5; i++)
		ck_assert_msg(strcmp(b.statuses[i], "HTTP/1.1 400 Bad Request") == 0, "request %d: '%s'", i,
			      b.statuses[i]);
	ck_assert_str_eq(b.statuses[5], "HTTP/1.1 200 OK");
	ck_assert_str_eq(cb.code, "real");
	ck_assert_ptr_null(cb.error);
	ck_assert_int_eq(oauth_callback_check(&cb, "s", "https://as", false, &e), 0);
	oauth_callback_finish(&cb);
	oauth_listener_close(&l);

	/* The authorization server's own error, with the state, is taken and
	 * reported. */
	ck_assert_int_eq(oauth_listener_open(&l, &e), 0);
	struct browser b2 = {.port = l.port,
			     .requests = {"GET /callback?error=access_denied&error_description=no&state=s", NULL}};
	ck_assert_int_eq(pthread_create(&th, NULL, browse, &b2), 0);
	rc = oauth_listener_wait(&l, "/callback", "s", 30, &cb, &e);
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ck_assert_str_eq(b2.statuses[0], "HTTP/1.1 200 OK");
	ck_assert_int_eq(oauth_callback_check(&cb, "s", "https://as", false, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "refused the sign-in: access_denied: no"));
	oauth_callback_finish(&cb);
	oauth_listener_close(&l);

	/* Foreign redirects alone end in the timeout, which says so. */
	ck_assert_int_eq(oauth_listener_open(&l, &e), 0);
	struct browser b3 = {.port = l.port, .requests = {"GET /callback?code=evil&state=WRONG", NULL}};
	ck_assert_int_eq(pthread_create(&th, NULL, browse, &b3), 0);
	ck_assert_int_eq(oauth_listener_wait(&l, "/callback", "s", 1, &cb, &e), -1);
	pthread_join(th, NULL);
	ck_assert_int_eq(e.detail, ERR_DETAIL_TIMEOUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "did not carry this sign-in's state were refused"));
	ck_assert_ptr_null(cb.code);
	oauth_listener_close(&l);
}
END_TEST

/* Connections that send nothing, or half a line, hold up nothing: the
 * browser's redirect behind them is served at once, also when there are
 * more of them than the listener keeps (the oldest give way). */
struct loiterers {
	int port;
	int idle;         /* silent connections to open first */
	const char *real; /* then this request */
	char status[64];
};

static int connect_loopback(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *loiter(void *arg)
{
	struct loiterers *w = arg;
	int fds[64];
	int n = 0;
	for (; n < w->idle && n < 64; n++) {
		fds[n] = connect_loopback(w->port);
		/* every other one sends the start of a request and stalls */
		if (fds[n] >= 0 && n % 2 == 1)
			(void)!write(fds[n], "GET /callb", 10);
	}
	usleep(200000); /* the listener has taken them in */
	int fd = connect_loopback(w->port);
	if (fd >= 0) {
		char req[256];
		int len = snprintf(req, sizeof req, "%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", w->real);
		if (write(fd, req, (size_t)len) == len) {
			char answer[2048];
			ssize_t got = read(fd, answer, sizeof answer - 1);
			if (got > 0) {
				answer[got] = '\0';
				snprintf(w->status, sizeof w->status, "%.*s", (int)strcspn(answer, "\r"), answer);
			}
		}
		close(fd);
	}
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return NULL;
}

static const int loiterer_counts[] = {1, 5, 40};

START_TEST(listener_silent_connections_block_nothing)
{
	struct oauth_listener l;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(oauth_listener_open(&l, &e), 0);
	struct loiterers w = {
		.port = l.port, .idle = loiterer_counts[_i], .real = "GET /callback?code=real&state=s"};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, loiter, &w), 0);
	struct oauth_callback cb;
	/* The listener's own wait, 5 s, is shorter than one silent
	 * connection's deadline (10 s): a redirect queued behind one would
	 * end the wait unanswered. The bound is the code's, not a timer of
	 * the test's. */
	int rc = oauth_listener_wait(&l, "/callback", "s", 5, &cb, &e);
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "%d silent connections held the redirect up: %s", w.idle, e.msg);
	ck_assert_str_eq(cb.code, "real");
	ck_assert_str_eq(w.status, "HTTP/1.1 200 OK");
	oauth_callback_finish(&cb);
	oauth_listener_close(&l);
}
END_TEST

START_TEST(listener_times_out)
{
	struct oauth_listener l;
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(oauth_listener_open(&l, &e), 0);
	struct oauth_callback cb;
	ck_assert_int_eq(oauth_listener_wait(&l, "/callback", "s", 1, &cb, &e), -1);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_int_eq(e.detail, ERR_DETAIL_TIMEOUT);
	ck_assert_ptr_null(cb.code);
	oauth_listener_close(&l);
}
END_TEST

static char captured[16384];

static void capture(const char *line, void *ctx)
{
	(void)ctx;
	strncat(captured, line, sizeof captured - strlen(captured) - 2);
	strcat(captured, "\n");
}

/* What oauth.c hands to the trace for a token request and its answer: the
 * secrets must not survive. */
START_TEST(trace_redacts_oauth_traffic)
{
	captured[0] = '\0';
	trace_set_sink(capture, NULL);
	const char *form = "grant_type=authorization_code&code=SECRETCODE123&redirect_uri=http%3A%2F%2F127.0.0.1"
			   "&client_id=cli&code_verifier=SECRETVERIFIER456&resource=https%3A%2F%2Fm%2Fmcp";
	trace_body("oauth", "->", form, strlen(form));
	const char *refresh = "grant_type=refresh_token&refresh_token=SECRETREFRESH789&client_id=cli";
	trace_body("oauth", "->", refresh, strlen(refresh));
	const char *answer = "{\"access_token\":\"SECRETACCESS000\",\"token_type\":\"Bearer\",\"expires_in\":60,"
			     "\"refresh_token\":\"SECRETREFRESH999\",\"id_token\":\"SECRETID\"}";
	trace_body("oauth", "<-", answer, strlen(answer));
	char *h = trace_redact_header("Authorization: Bearer SECRETACCESS000");
	trace_printf("http", "%s", h);
	free(h);
	trace_set_sink(NULL, NULL);
	ck_assert_ptr_null(strstr(captured, "SECRET"));
	ck_assert_ptr_nonnull(strstr(captured, "client_id=cli"));
	ck_assert_ptr_nonnull(strstr(captured, "grant_type=refresh_token"));
}
END_TEST

/* Sign-in is the transport's two ops, not HTTP's (issue 29): a transport
 * that is not libcurl's gets the bearer through them, and its challenge
 * is what recovery reads; one without them is refused by the wrapper. */
struct signing_transport {
	struct transport base;
	char bearer[64];
	int sends;
};

static int signing_send(struct transport *t, const char *body, size_t len, bool expect_reply,
			transport_on_message on_message, void *ctx, struct err *e)
{
	(void)body, (void)len, (void)expect_reply, (void)on_message, (void)ctx;
	((struct signing_transport *)t)->sends++;
	return err_set(e, ERR_AUTH, "refused");
}
static int signing_set_header(struct transport *t, const char *name, const char *value)
{
	(void)t, (void)name, (void)value;
	return 0;
}
static void signing_noop(struct transport *t)
{
	(void)t;
}
static void signing_free(struct transport *t)
{
	free(t);
}
static int signing_set_bearer(struct transport *t, const char *token)
{
	snprintf(((struct signing_transport *)t)->bearer, 64, "%s", token ? token : "");
	return 0;
}
static char *signing_challenge(struct transport *t)
{
	(void)t;
	return strdup("Bearer error=\"invalid_token\"");
}

START_TEST(any_transport_with_the_ops_signs_in)
{
	static const struct transport_ops with = {"signing",          signing_send,     signing_set_header,
						  signing_noop,       signing_noop,     signing_free,
						  signing_set_bearer, signing_challenge};
	static const struct transport_ops without = {
		"plain", signing_send, signing_set_header, signing_noop, signing_noop, signing_noop, NULL, NULL};
	char dir[] = "/tmp/ca-oauth-ops-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct oauth_config c = {
		.resource = "http://127.0.0.1:9/mcp", .env_token = "env-token-1", .store_dir = dir};
	struct err e;
	err_clear(&e);
	struct oauth_session *s = oauth_session_new(&c, &e);
	ck_assert_msg(s, "%s", e.msg);

	struct signing_transport *plain = calloc(1, sizeof *plain);
	plain->base.ops = &without;
	ck_assert_ptr_null(oauth_transport_new(&plain->base, s, false, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "the plain transport takes no bearer token"));
	free(plain);

	struct signing_transport *inner = calloc(1, sizeof *inner);
	inner->base.ops = &with;
	struct transport *t = oauth_transport_new(&inner->base, s, true, &e);
	ck_assert_msg(t, "%s", e.msg);
	ck_assert_str_eq(inner->bearer, "env-token-1");
	/* a refusal of the environment's token is said, not retried */
	err_clear(&e);
	ck_assert_int_lt(transport_send(t, "{}", 2, true, NULL, NULL, &e), 0);
	ck_assert_int_eq(e.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(e.msg, "CATALYST_TOKEN"));
	ck_assert_int_eq(inner->sends, 1);
	transport_free(t);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("oauth");
	struct testlib_group *tc = testlib_group("www-authenticate");
	add_loop_test(tc, challenge_table, 0, N(challenge_cases));
	testlib_suite_add(s, tc);
	tc = testlib_group("pkce");
	add_test(tc, pkce_rfc7636_vector);
	add_test(tc, random_strings);
	testlib_suite_add(s, tc);
	tc = testlib_group("well-known");
	add_loop_test(tc, prm_url_table, 0, N(prm_cases));
	add_loop_test(tc, as_url_table, 0, N(as_cases));
	add_loop_test(tc, resource_match_table, 0, N(resource_cases));
	testlib_suite_add(s, tc);
	tc = testlib_group("https-rule");
	add_loop_test(tc, url_rule_table, 0, N(url_cases));
	testlib_suite_add(s, tc);
	tc = testlib_group("callback");
	add_loop_test(tc, callback_parse_table, 0, N(callback_cases));
	add_loop_test(tc, callback_check_table, 0, N(check_cases));
	add_test(tc, listener_loopback_single_use);
	add_test(tc, listener_ignores_foreign_redirects);
	add_loop_test(tc, listener_silent_connections_block_nothing, 0, N(loiterer_counts));
	add_test(tc, listener_times_out);
	testlib_suite_add(s, tc);
	add_test(tc, any_transport_with_the_ops_signs_in);
	tc = testlib_group("token_check");
	add_loop_test(tc, token_check_table, 0, N(token_cases));
	testlib_suite_add(s, tc);
	tc = testlib_group("redaction");
	add_test(tc, trace_redacts_oauth_traffic);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
