/* The pure parts of sign-in: WWW-Authenticate challenges, PKCE, the
 * well-known URLs, the callback query. Everything here is a parser of
 * untrusted input or a builder of URLs, table-tested and fuzzed. */

#include "oauth.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "curl_lazy.h"
#include "escape.h"

/* ---- WWW-Authenticate ---- */

static bool is_tchar(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool is_token68_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("-._~+/", c));
}

static size_t skip_ows(const char *s, size_t i)
{
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	return i;
}

/* Reads a quoted-string starting at s[i] == '"'; returns the index after
 * the closing quote, or 0 when unterminated. The unescaped text goes to
 * *out (malloc'd) when out is not NULL. */
static size_t read_quoted(const char *s, size_t i, char **out)
{
	size_t n = strlen(s);
	char *v = malloc(n + 1);
	if (!v)
		return 0;
	size_t k = 0;
	for (i++; i < n; i++) {
		if (s[i] == '"') {
			v[k] = '\0';
			if (out)
				*out = v;
			else
				free(v);
			return i + 1;
		}
		if (s[i] == '\\') {
			if (i + 1 >= n)
				break;
			i++;
		}
		v[k++] = s[i];
	}
	free(v);
	return 0;
}

static void set_param(struct oauth_challenge *c, const char *name, size_t name_len, char *value)
{
	static const struct {
		const char *name;
		size_t offset;
	} known[] = {
		{"resource_metadata", offsetof(struct oauth_challenge, resource_metadata)},
		{"scope", offsetof(struct oauth_challenge, scope)},
		{"error", offsetof(struct oauth_challenge, error)},
		{"error_description", offsetof(struct oauth_challenge, error_description)},
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
		if (strlen(known[i].name) != name_len || strncasecmp(known[i].name, name, name_len) != 0)
			continue;
		char **slot = (char **)((char *)c + known[i].offset);
		if (!*slot) { /* the first occurrence wins */
			*slot = value;
			return;
		}
	}
	free(value);
}

void oauth_challenge_finish(struct oauth_challenge *c)
{
	if (!c)
		return;
	free(c->resource_metadata);
	free(c->scope);
	free(c->error);
	free(c->error_description);
	memset(c, 0, sizeof *c);
}

/* RFC 9110 section 11.6.1: challenges and their parameters share one
 * comma-separated list, so a bare token after a comma starts the next
 * challenge while `name=value` continues the current one. */
/* The parameters of one challenge, from h[*pi] (past its scheme): name=value
 * pairs, quoted or not, or a token68. Stops at the next challenge's scheme
 * or the end of h. false when malformed, *pi where. */
static bool challenge_params(const char *h, size_t *pi, struct oauth_challenge *target)
{
	size_t i = *pi;
	bool first = true;
	while (h[i]) {
		size_t p0 = i;
		size_t n0 = i;
		while (is_tchar(h[i]))
			i++;
		size_t n1 = i;
		size_t j = skip_ows(h, i);
		if (n1 > n0 && h[j] == '=') {
			size_t v = skip_ows(h, j + 1);
			if (h[v] == '=' || h[v] == ',' || !h[v]) {
				/* token68 ending in '=' ("abc==") */
				if (!first) {
					*pi = i;
					return false;
				}
				while (h[v] == '=')
					v++;
				i = skip_ows(h, v);
			} else if (h[v] == '"') {
				char *val = NULL;
				size_t end = read_quoted(h, v, &val);
				if (!end) {
					*pi = i;
					return false;
				}
				set_param(target, h + n0, n1 - n0, val);
				i = skip_ows(h, end);
			} else {
				/* Lenient: servers send scope=catalyst:read unquoted
				 * although ':' is no tchar. */
				size_t v1 = v;
				while (h[v1] && !strchr(" \t,\"", h[v1]))
					v1++;
				if (v1 == v) {
					*pi = i;
					return false;
				}
				set_param(target, h + n0, n1 - n0, strndup(h + v, v1 - v));
				i = skip_ows(h, v1);
			}
		} else if (first) {
			/* token68 right after the scheme */
			i = p0;
			while (is_token68_char(h[i]))
				i++;
			while (h[i] == '=')
				i++;
			if (i == p0) {
				*pi = i;
				return false;
			}
			i = skip_ows(h, i);
		} else {
			/* a bare token: the next challenge's scheme */
			i = p0;
			break;
		}
		first = false;
		if (h[i] == ',') {
			i++;
			while (h[i] == ' ' || h[i] == '\t' || h[i] == ',')
				i++;
			continue;
		}
		if (h[i]) {
			*pi = i;
			return false;
		}
	}
	*pi = i;
	return true;
}

int oauth_challenge_parse(const char *h, struct oauth_challenge *c, struct err *e)
{
	memset(c, 0, sizeof *c);
	if (!h)
		return err_set(e, ERR_PROTOCOL, "no WWW-Authenticate challenge");
	bool found = false;
	size_t i = 0;
	while (1) {
		while (h[i] == ' ' || h[i] == '\t' || h[i] == ',')
			i++;
		if (!h[i])
			break;
		size_t s0 = i;
		while (is_tchar(h[i]))
			i++;
		if (i == s0)
			goto bad;
		bool bearer = !found && i - s0 == 6 && strncasecmp(h + s0, "Bearer", 6) == 0;
		struct oauth_challenge ignored = {0};
		struct oauth_challenge *target = bearer ? c : &ignored;
		if (h[i] && h[i] != ' ' && h[i] != '\t' && h[i] != ',') {
			oauth_challenge_finish(&ignored);
			goto bad;
		}
		i = skip_ows(h, i);
		if (!challenge_params(h, &i, target)) {
			oauth_challenge_finish(&ignored);
			goto bad;
		}
		oauth_challenge_finish(&ignored);
		if (bearer)
			found = true;
	}
	if (!found) {
		oauth_challenge_finish(c);
		return err_set(e, ERR_PROTOCOL, "WWW-Authenticate has no Bearer challenge");
	}
	return 0;
bad:
	oauth_challenge_finish(c);
	return err_set(e, ERR_PROTOCOL, "malformed WWW-Authenticate header at byte %zu", i);
}

/* ---- PKCE and random values ---- */

int oauth_random_string(char *out, size_t len, struct err *e)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char raw[128];
	if (len > sizeof raw)
		return err_set(e, ERR_INTERNAL, "random string of %zu characters asked", len);
	size_t got = 0;
	while (got < len) {
		ssize_t n = getrandom(raw + got, len - got, 0);
		if (n < 0)
			return err_set(e, ERR_INTERNAL, "getrandom failed");
		got += (size_t)n;
	}
	/* 64 symbols: six bits per byte, no modulo bias. */
	for (size_t i = 0; i < len; i++)
		out[i] = alphabet[raw[i] & 63];
	out[len] = '\0';
	OPENSSL_cleanse(raw, sizeof raw);
	return 0;
}

int oauth_pkce_challenge(const char *verifier, char out[OAUTH_CHALLENGE_LEN + 1], struct err *e)
{
	size_t n = strlen(verifier);
	if (n < 43 || n > 128)
		return err_set(e, ERR_INTERNAL, "PKCE verifier of %zu characters (43 to 128 needed)", n);
	unsigned char digest[32];
	unsigned int dlen = 0;
	if (!EVP_Digest(verifier, n, digest, &dlen, EVP_sha256(), NULL) || dlen != 32)
		return err_set(e, ERR_INTERNAL, "SHA-256 failed");
	unsigned char b64[48];
	int m = EVP_EncodeBlock(b64, digest, 32); /* 44 with one '=' */
	if (m != 44)
		return err_set(e, ERR_INTERNAL, "base64 failed");
	for (int i = 0; i < OAUTH_CHALLENGE_LEN; i++)
		out[i] = b64[i] == '+' ? '-' : b64[i] == '/' ? '_' : (char)b64[i];
	out[OAUTH_CHALLENGE_LEN] = '\0';
	return 0;
}

/* ---- Well-known URLs ---- */

struct url_parts {
	char *scheme, *host, *port, *path;
};

static void url_parts_finish(struct url_parts *p)
{
	curl_free(p->scheme);
	curl_free(p->host);
	curl_free(p->port);
	curl_free(p->path);
	memset(p, 0, sizeof *p);
}

static int url_split(const char *url, struct url_parts *p, struct err *e)
{
	memset(p, 0, sizeof *p);
	int rc = -1;
	/* Every failure leaves through out with rc -1, so callers (and the
	 * analyzer, which cannot see into err_set) know p is unset. */
	CURLU *u = curl_url();
	if (!u) {
		curl_lazy_fail(e);
		goto out;
	}
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		err_set(e, ERR_USAGE, "not a URL: %s", url);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_SCHEME, &p->scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &p->host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PATH, &p->path, 0) != CURLUE_OK) {
		err_set(e, ERR_USAGE, "not a URL with a host: %s", url);
		goto out;
	}
	curl_url_get(u, CURLUPART_PORT, &p->port, 0); /* absent: default port */
	if (strcasecmp(p->scheme, "http") != 0 && strcasecmp(p->scheme, "https") != 0) {
		err_set(e, ERR_USAGE, "not an http(s) URL: %s", url);
		goto out;
	}
	rc = 0;
out:
	curl_url_cleanup(u);
	if (rc < 0)
		url_parts_finish(p);
	return rc;
}

static char *url_join(const struct url_parts *p, const char *path)
{
	char *s = NULL;
	if (asprintf(&s, "%s://%s%s%s%s", p->scheme, p->host, p->port ? ":" : "", p->port ? p->port : "", path) <
	    0)
		return NULL;
	return s;
}

/* The path without its terminating slash; "" for the root. */
static char *path_trimmed(const char *path)
{
	size_t n = strlen(path);
	while (n > 0 && path[n - 1] == '/')
		n--;
	return strndup(path, n);
}

int oauth_prm_urls(const char *resource, char *out[2], struct err *e)
{
	struct url_parts p;
	if (url_split(resource, &p, e) < 0)
		return -1;
	int n = 0;
	char *path = path_trimmed(p.path);
	char *with = NULL;
	if (path && *path && asprintf(&with, "/.well-known/oauth-protected-resource%s", path) >= 0) {
		out[n] = url_join(&p, with);
		if (out[n])
			n++;
	}
	free(with);
	free(path);
	out[n] = url_join(&p, "/.well-known/oauth-protected-resource");
	if (out[n])
		n++;
	url_parts_finish(&p);
	return n;
}

int oauth_as_metadata_urls(const char *issuer, char *out[3], struct err *e)
{
	struct url_parts p;
	if (url_split(issuer, &p, e) < 0)
		return -1;
	char *path = path_trimmed(p.path);
	int n = 0;
	if (path && *path) {
		char *a = NULL, *b = NULL, *c = NULL;
		if (asprintf(&a, "/.well-known/oauth-authorization-server%s", path) >= 0)
			out[n++] = url_join(&p, a);
		if (asprintf(&b, "/.well-known/openid-configuration%s", path) >= 0)
			out[n++] = url_join(&p, b);
		if (asprintf(&c, "%s/.well-known/openid-configuration", path) >= 0)
			out[n++] = url_join(&p, c);
		free(a);
		free(b);
		free(c);
	} else {
		out[n++] = url_join(&p, "/.well-known/oauth-authorization-server");
		out[n++] = url_join(&p, "/.well-known/openid-configuration");
	}
	free(path);
	url_parts_finish(&p);
	for (int i = 0; i < n; i++)
		if (!out[i]) {
			for (int k = 0; k < n; k++)
				free(out[k]);
			return err_oom(e);
		}
	return n;
}

bool oauth_resource_matches(const char *prm_resource, const char *mcp_url)
{
	if (!prm_resource || !mcp_url)
		return false;
	if (strcmp(prm_resource, mcp_url) == 0)
		return true;
	if (strchr(prm_resource, '?') || strchr(prm_resource, '#'))
		return false;
	struct url_parts a, b;
	if (url_split(prm_resource, &a, NULL) < 0)
		return false;
	if (url_split(mcp_url, &b, NULL) < 0) {
		url_parts_finish(&a);
		return false;
	}
	bool ok = strcasecmp(a.scheme, b.scheme) == 0 && strcasecmp(a.host, b.host) == 0 &&
		  ((!a.port && !b.port) || (a.port && b.port && strcmp(a.port, b.port) == 0));
	if (ok) {
		char *ap = path_trimmed(a.path);
		size_t n = ap ? strlen(ap) : 0;
		ok = ap && b.path && strncmp(ap, b.path, n) == 0 && (b.path[n] == '\0' || b.path[n] == '/');
		free(ap);
	}
	url_parts_finish(&a);
	url_parts_finish(&b);
	return ok;
}

/* ---- The callback ---- */

void oauth_callback_finish(struct oauth_callback *cb)
{
	if (!cb)
		return;
	if (cb->code) {
		OPENSSL_cleanse(cb->code, strlen(cb->code));
		free(cb->code);
	}
	free(cb->state);
	free(cb->iss);
	free(cb->error);
	free(cb->error_description);
	memset(cb, 0, sizeof *cb);
}

/* Form decoding: '+' is a space, %XX a byte; a decoded NUL is refused. */
static char *form_decode(const char *s, size_t n)
{
	char *copy = strndup(s, n);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if (*p == '+')
			*p = ' ';
	int out_len = 0;
	char *d = curl_easy_unescape(NULL, copy, (int)n, &out_len);
	OPENSSL_cleanse(copy, n);
	free(copy);
	if (!d)
		return NULL;
	if ((size_t)out_len != strlen(d)) {
		OPENSSL_cleanse(d, (size_t)out_len);
		curl_free(d);
		return NULL;
	}
	char *r = strdup(d);
	OPENSSL_cleanse(d, (size_t)out_len);
	curl_free(d);
	return r;
}

int oauth_callback_parse(const char *target, const char *path, struct oauth_callback *cb, struct err *e)
{
	memset(cb, 0, sizeof *cb);
	if (!target || target[0] != '/')
		return err_set(e, ERR_AUTH, "sign-in callback: malformed request target");
	size_t plen = strcspn(target, "?#");
	if (strlen(path) != plen || strncmp(target, path, plen) != 0)
		return 0;
	if (target[plen] != '?')
		return 1;
	const char *q = target + plen + 1;
	size_t qlen = strcspn(q, "#");
	size_t i = 0;
	while (i < qlen) {
		size_t end = i;
		while (end < qlen && q[end] != '&')
			end++;
		const char *eq = memchr(q + i, '=', end - i);
		size_t klen = eq ? (size_t)(eq - (q + i)) : end - i;
		static const struct {
			const char *name;
			size_t offset;
		} keys[] = {
			{"code", offsetof(struct oauth_callback, code)},
			{"state", offsetof(struct oauth_callback, state)},
			{"iss", offsetof(struct oauth_callback, iss)},
			{"error", offsetof(struct oauth_callback, error)},
			{"error_description", offsetof(struct oauth_callback, error_description)},
		};
		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
			if (strlen(keys[k].name) != klen || strncmp(keys[k].name, q + i, klen) != 0)
				continue;
			char **slot = (char **)((char *)cb + keys[k].offset);
			if (*slot) {
				oauth_callback_finish(cb);
				return err_set(e, ERR_AUTH, "sign-in callback: parameter '%s' given twice",
					       keys[k].name);
			}
			const char *v = eq ? eq + 1 : q + end;
			*slot = form_decode(v, (size_t)(q + end - v));
			if (!*slot) {
				oauth_callback_finish(cb);
				return err_set(e, ERR_AUTH, "sign-in callback: parameter '%s' is malformed",
					       keys[k].name);
			}
		}
		i = end + 1;
	}
	return 1;
}

/* Server text in our messages: one line, bounded, escaped as on stderr. */
static void sanitize(char *out, size_t cap, const char *s)
{
	escape_message_into(out, cap, s);
}

int oauth_callback_check(const struct oauth_callback *cb, const char *state, const char *issuer, bool iss_required,
			 struct err *e)
{
	char a[200], b[300];
	/* The state first: without it, an error is anyone's word, not the
	 * authorization server's (RFC 6749 section 4.1.2.1 echoes it). */
	if (!cb->state || !state || strcmp(cb->state, state) != 0)
		return err_set(e, ERR_AUTH,
			       "sign-in callback refused: its state does not match the request (a forged or stale "
			       "redirect); run login again");
	if (cb->error) {
		sanitize(a, sizeof a, cb->error);
		sanitize(b, sizeof b, cb->error_description);
		return err_set(e, ERR_AUTH, "the authorization server refused the sign-in: %s%s%s", a,
			       *b ? ": " : "", b);
	}
	if (cb->iss ? !issuer || strcmp(cb->iss, issuer) != 0 : iss_required) {
		sanitize(a, sizeof a, cb->iss ? cb->iss : "(none)");
		return err_set(e, ERR_AUTH,
			       "sign-in callback refused: it names issuer %s, not %s (RFC 9207 mix-up defence)", a,
			       issuer ? issuer : "(unknown)");
	}
	if (!cb->code || !*cb->code)
		return err_set(e, ERR_AUTH, "sign-in callback carried no authorization code");
	return 0;
}

/* ---- The https rule ---- */

/* 127.0.0.0/8, ::1 and localhost, as libcurl has already normalised the
 * host (127.1 and 0x7f000001 arrive as 127.0.0.1, [0:0::1] as [::1],
 * percent-encoding decoded). */
static bool host_is_loopback(const char *host)
{
	if (strcasecmp(host, "localhost") == 0)
		return true;
	struct in_addr a4;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return ntohl(a4.s_addr) >> 24 == 127;
	size_t n = strlen(host);
	char inner[INET6_ADDRSTRLEN];
	if (n < 3 || host[0] != '[' || host[n - 1] != ']' || n - 2 >= sizeof inner)
		return false;
	memcpy(inner, host + 1, n - 2);
	inner[n - 2] = '\0';
	struct in6_addr a6;
	return inet_pton(AF_INET6, inner, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

int oauth_url_check(const char *url, const char *what, struct err *e)
{
	if (!url || !*url)
		return err_set(e, ERR_AUTH, "the %s is missing: refusing to sign in", what);
	int rc = -1;
	char *scheme = NULL, *host = NULL, *user = NULL, *password = NULL, *options = NULL, *shown = NULL;
	char text[300];
	CURLU *u = curl_url();
	if (!u)
		return curl_lazy_fail(e);
	/* No CURLU_GUESS_SCHEME: "localhost/x" is not a URL here. */
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		sanitize(text, sizeof text, url);
		err_set(e, ERR_AUTH, "the %s '%s' is not an absolute URL: refusing to sign in", what, text);
		goto out;
	}
	/* Anything before an '@' (even an empty user) is refused: it is where
	 * a host hides (http://localhost:1@otherhost/ goes to otherhost), and
	 * it may be a password, so it is never shown either. */
	bool userinfo = curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
			curl_url_get(u, CURLUPART_PASSWORD, &password, 0) == CURLUE_OK ||
			curl_url_get(u, CURLUPART_OPTIONS, &options, 0) == CURLUE_OK;
	curl_url_set(u, CURLUPART_USER, NULL, 0);
	curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
	curl_url_set(u, CURLUPART_OPTIONS, NULL, 0);
	curl_url_get(u, CURLUPART_URL, &shown, 0);
	sanitize(text, sizeof text, shown ? shown : host);
	if (userinfo)
		err_set(e, ERR_AUTH,
			"the %s carries user information before its host ('name@' or 'name:password@'), which "
			"would send the request to %s: refusing to sign in",
			what, text);
	else if (strcasecmp(scheme, "https") == 0 || (strcasecmp(scheme, "http") == 0 && host_is_loopback(host)))
		rc = 0;
	else
		err_set(e, ERR_AUTH,
			"the %s %s is not https (plain http is allowed only to 127.0.0.1, [::1] or localhost): "
			"refusing to sign in",
			what, text);
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_free(password);
	curl_free(options);
	curl_free(shown);
	curl_url_cleanup(u);
	return rc;
}

static bool b64token_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
	       c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
}

/* What a character that cannot be in a token is, in words: never the
 * character itself when it could be part of a secret. */
static const char *non_token_char(unsigned char c)
{
	if (c == '\n' || c == '\r')
		return "a line break";
	if (c == ' ' || c == '\t')
		return "a space or tab";
	if (c < 0x20 || c == 0x7f)
		return "a control character";
	if (c >= 0x80)
		return "a non-ASCII byte";
	if (c == '"' || c == '\'')
		return "a quotation mark";
	if (c == '=')
		return "an '=' before the end";
	return "a character a token cannot hold";
}

int oauth_token_check(const char *token, const char *what, enum err_code code, struct err *e)
{
	size_t len = token ? strlen(token) : 0;
	if (len == 0)
		return err_set(e, code, "%s is empty", what);
	size_t i = 0;
	while (i < len && b64token_char((unsigned char)token[i]))
		i++;
	size_t body = i;
	while (i < len && token[i] == '=')
		i++;
	if (i == len && body > 0)
		return 0;
	unsigned char c = (unsigned char)token[i == len ? 0 : i];
	if (body == 0 && i == len)
		return err_set(e, code, "%s is not a bearer token: it holds only '=' (RFC 6750 b64token)", what);
	/* an '=' in the middle is met where the padding run stops */
	const char *kind = i > body && i < len ? non_token_char('=') : non_token_char(c);
	size_t at = i > body && i < len ? body : i;
	const char *where = at + 1 == len ? "the last" : at == 0 ? "the first" : NULL;
	char pos[48];
	if (!where)
		snprintf(pos, sizeof pos, "character %zu of %zu", at + 1, len);
	return err_set(e, code,
		       "%s is not a bearer token: %s%s is %s (RFC 6750: letters, digits, - . _ ~ + / and '=' "
		       "only at the end); set it to the access token alone, with no quotes, spaces or line breaks",
		       what, where ? where : pos, where ? " character" : "", kind);
}
