/* Sign-in: discovery from a 401, the authorization code flow with PKCE
 * through the user's browser and a loopback listener, the code exchange,
 * refresh with rotation, step-up on insufficient_scope, and the session
 * object the commands use to keep a transport authorized. */

#include "oauth.h"
#include "monotime.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "escape.h"
#include "trace.h"
#include "version.h"

#define OAUTH_BODY_MAX ((size_t)1 << 20)
#define EXPIRY_MARGIN_S 60
/* A token obtained this recently is the one a concurrent failed request
 * should simply retry with (several `runs` workers hit one expiry). */
#define FRESH_TOKEN_MS 5000

struct oauth_metadata {
	char *issuer;
	char *authorization_endpoint;
	char *token_endpoint;
	json_t *prm_scopes;   /* PRM scopes_supported, or NULL */
	json_t *as_scopes;    /* AS scopes_supported, or NULL */
	json_t *auth_methods; /* token_endpoint_auth_methods_supported, or NULL */
	bool iss_supported;   /* authorization_response_iss_parameter_supported */
};

struct oauth_session {
	struct oauth_config cfg;
	pthread_mutex_t lock;
	char *store_dir;
	char *hint;              /* owned copy of cfg.hint */
	struct oauth_tokens tok; /* tok.access_token NULL: none */
	bool from_env;
	bool refresh_failed;
	char *scope_requested; /* the last scope asked for, NULL: omitted */
	int authorizations;
	long long obtained_ms; /* monotonic time the current token arrived */
};

static void free_secret(char *s)
{
	if (s) {
		OPENSSL_cleanse(s, strlen(s));
		free(s);
	}
}

static void metadata_finish(struct oauth_metadata *m)
{
	free(m->issuer);
	free(m->authorization_endpoint);
	free(m->token_endpoint);
	json_decref(m->prm_scopes);
	json_decref(m->as_scopes);
	json_decref(m->auth_methods);
	memset(m, 0, sizeof *m);
}

static void notice(const struct oauth_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notice(const struct oauth_session *s, const char *fmt, ...)
{
	if (!s->cfg.notice)
		return;
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		s->cfg.notice(msg, s->cfg.notice_ctx);
		free(msg);
	}
}

/* Server text in our messages: one line, bounded, escaped as on stderr. */
static void sanitize(char *out, size_t cap, const char *s)
{
	escape_message_into(out, cap, s);
}

/* ---- HTTP for OAuth itself ---- */

struct http_answer {
	long status;
	struct buf body;
	char *www_authenticate;
	struct err write_err;
};

static void http_answer_finish(struct http_answer *a)
{
	buf_finish_secure(&a->body);
	free(a->www_authenticate);
	a->www_authenticate = NULL;
}

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct http_answer *a = ctx;
	if (buf_append(&a->body, p, size * n, &a->write_err) < 0)
		return 0;
	return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	struct http_answer *a = ctx;
	size_t len = size * n;
	static const char name[] = "www-authenticate:";
	if (!a->www_authenticate && len > sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0) {
		size_t i = sizeof name - 1, j = len;
		while (i < j && (p[i] == ' ' || p[i] == '\t'))
			i++;
		while (j > i && (p[j - 1] == '\r' || p[j - 1] == '\n' || p[j - 1] == ' '))
			j--;
		a->www_authenticate = strndup(p + i, j - i);
	}
	/* A new response (after a 100 Continue) starts over. */
	if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) {
		free(a->www_authenticate);
		a->www_authenticate = NULL;
	}
	return len;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

enum body_kind {
	BODY_NONE = 0,
	BODY_FORM,
	BODY_JSON,
};

/* One exchange with `url`, the `what` of messages. `basic` is
 * "user:password" for client_secret_basic. The body may carry secrets: it
 * is traced redacted and never put in `e`. */
static int http_exchange(const struct oauth_session *s, const char *url, const char *what, enum body_kind kind,
			 const char *body, const char *basic, struct http_answer *a, struct err *e)
{
	memset(a, 0, sizeof *a);
	buf_init(&a->body, OAUTH_BODY_MAX);
	/* Every request, whatever led to it (metadata, a stored token
	 * endpoint): nothing is sent before the rule has passed. */
	if (oauth_url_check(url, what, e) < 0)
		return -1;
	pthread_once(&curl_once, curl_init_once);
	CURL *c = curl_easy_init();
	if (!c)
		return err_set(e, ERR_INTERNAL, "out of memory");
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hs = NULL;
	hs = curl_slist_append(hs, kind == BODY_JSON ? "Accept: application/json, text/event-stream"
						     : "Accept: application/json");
	if (kind == BODY_FORM)
		hs = curl_slist_append(hs, "Content-Type: application/x-www-form-urlencoded");
	else if (kind == BODY_JSON)
		hs = curl_slist_append(hs, "Content-Type: application/json");
	long timeout = s->cfg.timeout_ms > 0 ? s->cfg.timeout_ms : 30000;
	curl_easy_setopt(c, CURLOPT_URL, url);
	/* libcurl's own refusal too, should a URL ever get here unchecked */
	curl_easy_setopt(c, CURLOPT_DISALLOW_USERNAME_IN_URL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout < 10000 ? timeout : 10000L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (s->cfg.cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, s->cfg.cacert);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "catalyst-audit/" CATALYST_AUDIT_VERSION);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	if (basic) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERPWD, basic);
	}
	trace_printf("oauth", "%s %s", body ? "POST" : "GET", url);
	if (body && trace_enabled())
		trace_body("oauth", "->", body, strlen(body));
	CURLcode rc = curl_easy_perform(c);
	int r = 0;
	if (rc != CURLE_OK) {
		if (a->write_err.code)
			r = err_set(e, ERR_PROTOCOL, "%s: answer over %zu bytes", url, OAUTH_BODY_MAX);
		else
			r = err_set(e, ERR_PROTOCOL, "%s: %s", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		if (rc == CURLE_OPERATION_TIMEDOUT)
			e->detail = ERR_DETAIL_TIMEOUT;
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
		trace_printf("oauth", "<- HTTP %ld (%zu bytes)", a->status, a->body.len);
		if (a->body.data && trace_enabled())
			trace_body("oauth", "<-", a->body.data, a->body.len);
	}
	if (basic)
		curl_easy_setopt(c, CURLOPT_USERPWD, "");
	curl_easy_cleanup(c);
	curl_slist_free_all(hs);
	return r;
}

/* GETs a JSON object. Returns it, or NULL with `e` set (a non-200 answer is
 * ERR_PROTOCOL with the status in e->http_status). */
static json_t *get_json(const struct oauth_session *s, const char *url, const char *what, struct err *e)
{
	struct http_answer a;
	json_t *doc = NULL;
	if (http_exchange(s, url, what, BODY_NONE, NULL, NULL, &a, e) < 0)
		goto out;
	if (a.status != 200) {
		err_set(e, ERR_PROTOCOL, "%s: HTTP %ld", url, a.status);
		e->http_status = a.status;
		goto out;
	}
	json_error_t je;
	doc = a.body.data ? json_loadb(a.body.data, a.body.len, 0, &je) : NULL;
	if (!json_is_object(doc)) {
		json_decref(doc);
		doc = NULL;
		err_set(e, ERR_PROTOCOL, "%s: not a JSON object", url);
	}
out:
	http_answer_finish(&a);
	return doc;
}

static char *dup_string(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? strdup(v) : NULL;
}

static bool array_has(const json_t *arr, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

/* ---- Discovery ---- */

static int discover(struct oauth_session *s, const struct oauth_challenge *ch, struct oauth_metadata *m,
		    struct err *e)
{
	memset(m, 0, sizeof *m);
	const char *resource = s->cfg.resource;
	json_t *prm = NULL, *asm_doc = NULL;
	char *cand[3] = {0};
	int n = 0, rc = -1;
	struct err last;
	err_clear(&last);

	/* The token will be asked for this resource, and the metadata found
	 * from it: the same rule as every other URL. */
	if (oauth_url_check(resource, "server URL", e) < 0)
		goto out;
	/* RFC 9728: the challenge's resource_metadata first, then the
	 * well-known locations derived from the MCP URL. */
	if (ch && ch->resource_metadata) {
		if (oauth_url_check(ch->resource_metadata, "resource_metadata URL the server named", e) < 0)
			goto out;
		prm = get_json(s, ch->resource_metadata, "resource metadata URL", &last);
	}
	if (!prm) {
		n = oauth_prm_urls(resource, cand, e);
		if (n < 0)
			goto out;
		for (int i = 0; i < n && !prm; i++)
			prm = get_json(s, cand[i], "resource metadata URL", &last);
		for (int i = 0; i < n; i++) {
			free(cand[i]);
			cand[i] = NULL;
		}
	}
	if (!prm) {
		err_set(e, ERR_AUTH,
			"%s asks for sign-in but publishes no protected resource metadata (RFC 9728): %s",
			resource, last.msg);
		goto out;
	}
	const char *prm_resource = json_string_value(json_object_get(prm, "resource"));
	if (!oauth_resource_matches(prm_resource, resource)) {
		char got[300];
		sanitize(got, sizeof got, prm_resource ? prm_resource : "(none)");
		err_set(e, ERR_AUTH,
			"the protected resource metadata names resource %s, not %s: refusing to sign in (a token "
			"for one must not be sent to the other)",
			got, resource);
		goto out;
	}
	json_t *servers = json_object_get(prm, "authorization_servers");
	const char *issuer = json_string_value(json_array_get(servers, 0));
	if (oauth_url_check(issuer, "authorization server (issuer) the resource metadata names", e) < 0)
		goto out;
	m->issuer = strdup(issuer);
	json_t *ps = json_object_get(prm, "scopes_supported");
	if (json_is_array(ps))
		m->prm_scopes = json_incref(ps);

	n = oauth_as_metadata_urls(issuer, cand, e);
	if (n < 0)
		goto out;
	for (int i = 0; i < n && !asm_doc; i++)
		asm_doc = get_json(s, cand[i], "authorization server metadata URL", &last);
	if (!asm_doc) {
		err_set(e, ERR_AUTH, "no authorization server metadata for %s (RFC 8414 / OpenID discovery): %s",
			issuer, last.msg);
		goto out;
	}
	const char *as_issuer = json_string_value(json_object_get(asm_doc, "issuer"));
	if (!as_issuer || strcmp(as_issuer, issuer) != 0) {
		char got[300];
		sanitize(got, sizeof got, as_issuer ? as_issuer : "(none)");
		err_set(e, ERR_AUTH,
			"the authorization server metadata names issuer %s, not %s: refusing to sign in", got,
			issuer);
		goto out;
	}
	m->authorization_endpoint = dup_string(asm_doc, "authorization_endpoint");
	m->token_endpoint = dup_string(asm_doc, "token_endpoint");
	/* Checked here, before the browser opens: the code and the PKCE
	 * verifier go to the token endpoint, the user to the other. */
	if (oauth_url_check(m->authorization_endpoint, "authorization_endpoint of the authorization server", e) <
		    0 ||
	    oauth_url_check(m->token_endpoint, "token_endpoint of the authorization server", e) < 0)
		goto out;
	json_t *methods = json_object_get(asm_doc, "code_challenge_methods_supported");
	if (!array_has(methods, "S256")) {
		err_set(e, ERR_AUTH,
			"the authorization server %s does not advertise PKCE S256 (code_challenge_methods_supported): "
			"refusing to sign in without it",
			issuer);
		goto out;
	}
	json_t *as = json_object_get(asm_doc, "scopes_supported");
	if (json_is_array(as))
		m->as_scopes = json_incref(as);
	json_t *am = json_object_get(asm_doc, "token_endpoint_auth_methods_supported");
	if (json_is_array(am))
		m->auth_methods = json_incref(am);
	m->iss_supported =
		json_is_true(json_object_get(asm_doc, "authorization_response_iss_parameter_supported"));
	rc = 0;
out:
	for (int i = 0; i < 3; i++)
		free(cand[i]);
	json_decref(prm);
	json_decref(asm_doc);
	if (rc < 0)
		metadata_finish(m);
	return rc;
}

/* ---- Scopes ---- */

/* Appends the words of `list` not yet in `set` (a JSON array). */
static void add_words(json_t *set, const char *list)
{
	if (!list)
		return;
	const char *p = list;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n) {
			char *w = strndup(p, n);
			if (w && !array_has(set, w))
				json_array_append_new(set, json_string(w));
			free(w);
		}
		p += n;
	}
}

static char *join_words(const json_t *set)
{
	struct buf b;
	buf_init(&b, 0);
	size_t i;
	json_t *v;
	json_array_foreach(set, i, v) {
		if (b.len)
			buf_append(&b, " ", 1, NULL);
		buf_append(&b, json_string_value(v), json_string_length(v), NULL);
	}
	if (!b.len) {
		buf_finish(&b);
		return NULL;
	}
	return buf_steal(&b, NULL);
}

/* The scope to ask for, NULL to omit the parameter. With a wanted list
 * (the product's catalyst:read offline_access) only the wanted scopes the
 * server advertises, in the challenge or in either metadata; without one,
 * the MCP strategy: the challenge's scope, else everything the resource
 * lists, plus offline_access when the authorization server offers it.
 * `extra` (step-up) joins the challenge scope. */
static char *choose_scope(const struct oauth_session *s, const struct oauth_metadata *m,
			  const struct oauth_challenge *ch, const char *extra)
{
	json_t *advertised = json_array();
	if (ch)
		add_words(advertised, ch->scope);
	add_words(advertised, extra);
	bool from_challenge = json_array_size(advertised) > 0;
	json_t *chosen = json_array();
	size_t i;
	json_t *v;
	if (s->cfg.scope) {
		json_array_foreach(m->prm_scopes, i, v)
			if (json_is_string(v))
				add_words(advertised, json_string_value(v));
		json_array_foreach(m->as_scopes, i, v)
			if (json_is_string(v))
				add_words(advertised, json_string_value(v));
		json_t *wanted = json_array();
		add_words(wanted, s->cfg.scope);
		json_array_foreach(wanted, i, v)
			if (array_has(advertised, json_string_value(v)))
				json_array_append(chosen, v);
		json_decref(wanted);
	} else {
		if (from_challenge)
			json_array_extend(chosen, advertised);
		else
			json_array_foreach(m->prm_scopes, i, v)
				if (json_is_string(v))
					add_words(chosen, json_string_value(v));
		if (array_has(m->as_scopes, "offline_access") && !array_has(chosen, "offline_access") &&
		    json_array_size(chosen) > 0)
			json_array_append_new(chosen, json_string("offline_access"));
	}
	char *r = join_words(chosen);
	json_decref(chosen);
	json_decref(advertised);
	return r;
}

/* ---- Token endpoint ---- */

static void form_add(struct buf *b, const char *key, const char *value)
{
	char *v = curl_easy_escape(NULL, value, 0);
	if (!v)
		return;
	buf_printf(b, NULL, "%s%s=%s", b->len ? "&" : "", key, v);
	OPENSSL_cleanse(v, strlen(v));
	curl_free(v);
}

/* The client authentication the server accepts: public clients (none)
 * when possible, else the pre-registered secret. */
static const char *auth_method(const struct oauth_session *s, const json_t *methods)
{
	if (!s->cfg.client_secret)
		return "none";
	if (!methods || array_has(methods, "client_secret_basic"))
		return "client_secret_basic";
	if (array_has(methods, "client_secret_post"))
		return "client_secret_post";
	return "none";
}

/* Posts a grant; on success fills tok's access/refresh/scope/expiry
 * (keeping the old refresh token when none is returned). */
static int token_request(struct oauth_session *s, const char *token_endpoint, const json_t *methods,
			 struct buf *form, struct oauth_tokens *tok, struct err *e)
{
	const char *method = auth_method(s, methods);
	char *basic = NULL;
	if (strcmp(method, "client_secret_basic") == 0) {
		/* RFC 6749 2.3.1: both parts form-encoded before Basic. */
		char *u = curl_easy_escape(NULL, s->cfg.client_id, 0);
		char *p = curl_easy_escape(NULL, s->cfg.client_secret, 0);
		if (u && p && asprintf(&basic, "%s:%s", u, p) < 0)
			basic = NULL;
		curl_free(u);
		if (p) {
			OPENSSL_cleanse(p, strlen(p));
			curl_free(p);
		}
	} else if (strcmp(method, "client_secret_post") == 0) {
		form_add(form, "client_secret", s->cfg.client_secret);
	}
	struct http_answer a;
	json_t *doc = NULL;
	int rc = -1;
	if (http_exchange(s, token_endpoint, "token endpoint", BODY_FORM, form->data, basic, &a, e) < 0)
		goto out;
	json_error_t je;
	doc = a.body.data ? json_loadb(a.body.data, a.body.len, 0, &je) : NULL;
	if (a.status != 200) {
		char err_code[100], desc[300];
		sanitize(err_code, sizeof err_code, json_string_value(json_object_get(doc, "error")));
		sanitize(desc, sizeof desc, json_string_value(json_object_get(doc, "error_description")));
		err_set(e, ERR_AUTH, "the token endpoint refused (HTTP %ld)%s%s%s%s", a.status,
			*err_code ? ": " : "", err_code, *desc ? ": " : "", desc);
		e->http_status = a.status;
		goto out;
	}
	const char *access = json_string_value(json_object_get(doc, "access_token"));
	const char *type = json_string_value(json_object_get(doc, "token_type"));
	if (!access || !*access) {
		err_set(e, ERR_AUTH, "the token endpoint answered without an access_token");
		goto out;
	}
	if (type && strcasecmp(type, "Bearer") != 0) {
		char t[64];
		sanitize(t, sizeof t, type);
		err_set(e, ERR_AUTH, "the token endpoint issued a %s token; only Bearer tokens are supported", t);
		goto out;
	}
	free_secret(tok->access_token);
	tok->access_token = strdup(access);
	const char *refresh = json_string_value(json_object_get(doc, "refresh_token"));
	if (refresh) {
		free_secret(tok->refresh_token);
		tok->refresh_token = strdup(refresh);
	}
	const char *scope = json_string_value(json_object_get(doc, "scope"));
	if (scope) {
		free(tok->scope);
		tok->scope = strdup(scope);
	}
	json_t *exp = json_object_get(doc, "expires_in");
	tok->expires_at = json_is_integer(exp) && json_integer_value(exp) > 0
				  ? (int64_t)time(NULL) + (int64_t)json_integer_value(exp)
				  : 0;
	rc = tok->access_token ? 0 : err_set(e, ERR_INTERNAL, "out of memory");
out:
	if (doc) {
		static const char *const secrets[] = {"access_token", "refresh_token", "id_token"};
		for (size_t i = 0; i < 3; i++) {
			json_t *v = json_object_get(doc, secrets[i]);
			if (json_is_string(v))
				OPENSSL_cleanse((char *)json_string_value(v), json_string_length(v));
		}
		json_decref(doc);
	}
	http_answer_finish(&a);
	free_secret(basic);
	return rc;
}

/* ---- The browser ---- */

static pid_t open_browser(const char *url)
{
	const char *browser = getenv("BROWSER");
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	/* The child: stdout is the report's, so the browser gets stderr. */
	int null = open("/dev/null", O_RDONLY);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	if (browser && *browser)
		/* $BROWSER may hold arguments; the URL stays one word. */
		execl("/bin/sh", "sh", "-c", "$BROWSER \"$1\"", "sh", url, (char *)NULL);
	else
		execlp("xdg-open", "xdg-open", url, (char *)NULL);
	_exit(127);
}

/* ---- Authorization ---- */

static int authorize(struct oauth_session *s, const struct oauth_challenge *ch, const char *extra_scope,
		     struct err *e)
{
	struct oauth_metadata m;
	struct oauth_listener l = {.fd = -1};
	struct oauth_callback cb = {0};
	struct buf url, form;
	buf_init(&url, 0);
	buf_init(&form, 0);
	char verifier[OAUTH_VERIFIER_LEN + 1] = "", challenge[OAUTH_CHALLENGE_LEN + 1], state[33];
	char *redirect = NULL, *scope = NULL;
	pid_t browser = -1;
	int rc = -1;
	const char *path = s->cfg.redirect_path && *s->cfg.redirect_path ? s->cfg.redirect_path : "/callback";

	if (!s->cfg.client_id)
		return err_set(
			e, ERR_AUTH,
			"signing in to %s needs a pre-registered OAuth client id (the server has no dynamic "
			"client registration): run %s",
			s->cfg.resource, s->cfg.hint ? s->cfg.hint : "catalyst-audit login --client-id ID");
	if (path[0] != '/')
		return err_set(e, ERR_USAGE, "--redirect-path must start with '/', got '%s'", path);
	if (s->authorizations >= OAUTH_MAX_AUTHORIZATIONS)
		return err_set(
			e, ERR_AUTH,
			"the server still refuses after %d sign-ins (scope %s): giving up; ask an administrator "
			"for access",
			s->authorizations, s->scope_requested ? s->scope_requested : "(none)");
	if (discover(s, ch, &m, e) < 0)
		return -1;
	scope = choose_scope(s, &m, ch, extra_scope);
	if (oauth_random_string(verifier, OAUTH_VERIFIER_LEN, e) < 0 ||
	    oauth_pkce_challenge(verifier, challenge, e) < 0 || oauth_random_string(state, 32, e) < 0)
		goto out;
	if (oauth_listener_open(&l, e) < 0)
		goto out;
	if (asprintf(&redirect, "http://127.0.0.1:%d%s", l.port, path) < 0) {
		redirect = NULL;
		err_set(e, ERR_INTERNAL, "out of memory");
		goto out;
	}
	buf_printf(&url, NULL, "%s%c", m.authorization_endpoint,
		   strchr(m.authorization_endpoint, '?') ? '&' : '?');
	{
		struct buf q;
		buf_init(&q, 0);
		form_add(&q, "response_type", "code");
		form_add(&q, "client_id", s->cfg.client_id);
		form_add(&q, "redirect_uri", redirect);
		form_add(&q, "code_challenge", challenge);
		form_add(&q, "code_challenge_method", "S256");
		form_add(&q, "state", state);
		form_add(&q, "resource", s->cfg.resource);
		if (scope)
			form_add(&q, "scope", scope);
		buf_append(&url, q.data, q.len, NULL);
		buf_finish(&q);
	}
	s->authorizations++;
	free(s->scope_requested);
	s->scope_requested = scope ? strdup(scope) : NULL;
	/* Two notices, not one with a newline: every control character in a
	 * message is escaped on its way to the terminal. */
	notice(s, "to sign in to %s, open this address in a browser:", s->cfg.resource);
	notice(s, "  %s", url.data);
	if (!s->cfg.no_browser) {
		browser = open_browser(url.data);
		if (browser < 0)
			notice(s, "could not start a browser (%s); open the address above", strerror(errno));
	}
	long timeout = s->cfg.callback_timeout_s > 0 ? s->cfg.callback_timeout_s
						     : OAUTH_DEFAULT_CALLBACK_TIMEOUT_S;
	if (oauth_listener_wait(&l, path, state, timeout, &cb, e) < 0)
		goto out;
	if (oauth_callback_check(&cb, state, m.issuer, m.iss_supported, e) < 0)
		goto out;

	form_add(&form, "grant_type", "authorization_code");
	form_add(&form, "code", cb.code);
	form_add(&form, "redirect_uri", redirect);
	form_add(&form, "client_id", s->cfg.client_id);
	form_add(&form, "code_verifier", verifier);
	form_add(&form, "resource", s->cfg.resource);
	struct oauth_tokens fresh = {0};
	if (token_request(s, m.token_endpoint, m.auth_methods, &form, &fresh, e) < 0) {
		oauth_tokens_finish(&fresh);
		err_prefix(e, "sign-in to %s", s->cfg.resource);
		goto out;
	}
	fresh.issuer = strdup(m.issuer);
	fresh.client_id = strdup(s->cfg.client_id);
	fresh.resource = strdup(s->cfg.resource);
	fresh.token_endpoint = strdup(m.token_endpoint);
	if (!fresh.scope && scope)
		fresh.scope = strdup(scope);
	oauth_tokens_finish(&s->tok);
	s->tok = fresh;
	s->refresh_failed = false;
	s->obtained_ms = monotime_ms();
	if (s->store_dir && oauth_store_save(s->store_dir, &s->tok, e) < 0) {
		err_prefix(e, "signed in, but the tokens could not be stored");
		goto out;
	}
	rc = 0;
out:
	if (browser > 0) {
		/* The opener normally returns at once (xdg-open hands over to the
		 * browser); do not wait for a browser that stays in front. */
		for (int i = 0; i < 20 && waitpid(browser, NULL, WNOHANG) == 0; i++)
			usleep(50000);
	}
	oauth_listener_close(&l);
	oauth_callback_finish(&cb);
	OPENSSL_cleanse(verifier, sizeof verifier);
	buf_finish_secure(&form);
	buf_finish(&url);
	free(redirect);
	free(scope);
	metadata_finish(&m);
	return rc;
}

/* ---- Refresh ---- */

/* Refreshes s->tok under the store lock and stores the rotated result.
 * Another process may have rotated already: then its tokens are taken. */
static int refresh(struct oauth_session *s, struct err *e)
{
	if (!s->tok.refresh_token || !s->tok.token_endpoint || !s->cfg.resource)
		return err_set(e, ERR_AUTH, "no refresh token is stored");
	int lock = s->store_dir ? oauth_store_lock(s->store_dir, e) : -1;
	if (s->store_dir && lock < 0)
		return -1;
	int rc = -1;
	struct oauth_tokens disk = {0};
	if (s->store_dir &&
	    oauth_store_load(s->store_dir, s->tok.issuer, s->tok.client_id, s->tok.resource, &disk, e) == 1 &&
	    disk.access_token && strcmp(disk.access_token, s->tok.access_token) != 0 &&
	    (disk.expires_at == 0 || disk.expires_at > (int64_t)time(NULL) + EXPIRY_MARGIN_S)) {
		oauth_tokens_finish(&s->tok);
		s->tok = disk;
		memset(&disk, 0, sizeof disk);
		s->obtained_ms = monotime_ms();
		rc = 0;
		goto out;
	}
	struct buf form;
	buf_init(&form, 0);
	form_add(&form, "grant_type", "refresh_token");
	form_add(&form, "refresh_token", s->tok.refresh_token);
	form_add(&form, "client_id", s->tok.client_id);
	form_add(&form, "resource", s->tok.resource);
	rc = token_request(s, s->tok.token_endpoint, NULL, &form, &s->tok, e);
	buf_finish_secure(&form);
	if (rc < 0) {
		s->refresh_failed = true;
		err_prefix(e, "refreshing the sign-in to %s", s->cfg.resource);
		goto out;
	}
	s->obtained_ms = monotime_ms();
	trace_printf("oauth", "token refreshed for %s", s->tok.resource);
	if (s->store_dir && oauth_store_save(s->store_dir, &s->tok, e) < 0)
		rc = -1;
out:
	oauth_tokens_finish(&disk);
	if (lock >= 0)
		oauth_store_unlock(lock);
	return rc;
}

/* ---- Sessions ---- */

struct oauth_session *oauth_session_new(const struct oauth_config *c, struct err *e)
{
	if (!c->resource || !*c->resource) {
		err_set(e, ERR_USAGE, "no server URL to sign in to");
		return NULL;
	}
	struct oauth_session *s = calloc(1, sizeof *s);
	if (!s) {
		err_set(e, ERR_INTERNAL, "out of memory");
		return NULL;
	}
	s->cfg = *c;
	pthread_mutex_init(&s->lock, NULL);
	if (c->hint) {
		s->hint = strdup(c->hint);
		s->cfg.hint = s->hint;
	}
	s->store_dir = c->store_dir ? strdup(c->store_dir) : oauth_store_default_dir(e);
	if (!s->store_dir) {
		oauth_session_free(s);
		return NULL;
	}
	return s;
}

void oauth_session_free(struct oauth_session *s)
{
	if (!s)
		return;
	oauth_tokens_finish(&s->tok);
	free(s->store_dir);
	free(s->hint);
	free(s->scope_requested);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int oauth_session_authorizations(const struct oauth_session *s)
{
	return s->authorizations;
}

static int set_bearer(struct transport *t, const char *token, struct err *e)
{
	if (transport_http_set_bearer(t, token) < 0)
		return err_set(e, ERR_USAGE, "a bearer token can only be sent over HTTP");
	return 0;
}

int oauth_session_attach(struct oauth_session *s, struct transport *t, struct err *e)
{
	const char *env = getenv("CATALYST_TOKEN");
	if (env && *env) {
		s->from_env = true;
		return set_bearer(t, env, e) < 0 ? -1 : 1;
	}
	pthread_mutex_lock(&s->lock);
	int rc = 0;
	if (!s->tok.access_token) {
		rc = oauth_store_load(s->store_dir, NULL, s->cfg.client_id, s->cfg.resource, &s->tok, e);
		if (rc <= 0)
			goto out;
		s->obtained_ms = 0;
	}
	if (s->tok.expires_at && s->tok.expires_at <= (int64_t)time(NULL) + EXPIRY_MARGIN_S &&
	    s->tok.refresh_token) {
		struct err ignored;
		err_clear(&ignored);
		/* On failure the old token is tried anyway; its 401 then leads
		 * to sign-in or to the message saying how. */
		refresh(s, &ignored);
	}
	rc = set_bearer(t, s->tok.access_token, e) < 0 ? -1 : 1;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

bool oauth_error_recoverable(const struct err *f)
{
	return f && f->code == ERR_AUTH &&
	       (f->detail == ERR_DETAIL_UNAUTHORIZED || f->detail == ERR_DETAIL_FORBIDDEN ||
		f->http_status == 401 || f->http_status == 403);
}

static int not_signed_in(const struct oauth_session *s, const char *why, struct err *e)
{
	return err_set(e, ERR_AUTH, "not signed in to %s (%s); run: %s", s->cfg.resource, why,
		       s->cfg.hint ? s->cfg.hint : "catalyst-audit login --client-id ID");
}

/* 403 insufficient_scope: sign in again asking for the union of what we
 * hold and what the challenge names. With a wanted list, a challenge for a
 * scope outside it (catalyst:write) is refused instead: asking cannot be
 * the answer for a read-only tool. The OAuth session bounds the tries. */
static int step_up(struct oauth_session *s, const struct oauth_challenge *ch, struct err *e)
{
	char sc[300];
	sanitize(sc, sizeof sc, ch->scope ? ch->scope : "(none)");
	if (s->cfg.scope && ch->scope) {
		json_t *wanted = json_array(), *asked = json_array();
		add_words(wanted, s->cfg.scope);
		add_words(asked, ch->scope);
		bool outside = false;
		size_t i;
		json_t *v;
		json_array_foreach(asked, i, v)
			if (!array_has(wanted, json_string_value(v)))
				outside = true;
		json_decref(wanted);
		json_decref(asked);
		if (outside)
			return err_set(
				e, ERR_AUTH,
				"%s asks for scope %s; catalyst-audit only ever asks for %s (it is read-only)",
				s->cfg.resource, sc, s->cfg.scope);
	}
	if (!s->cfg.interactive)
		return err_set(e, ERR_AUTH,
			       "%s needs more access (scope %s) and sign-in is not interactive here; run: %s",
			       s->cfg.resource, sc,
			       s->cfg.hint ? s->cfg.hint : "catalyst-audit login --client-id ID");
	json_t *held = json_array();
	add_words(held, s->tok.scope);
	add_words(held, s->scope_requested);
	char *held_text = join_words(held);
	json_decref(held);
	int rc = authorize(s, ch, held_text, e);
	free(held_text);
	return rc;
}

int oauth_session_recover(struct oauth_session *s, struct transport *t, const struct err *failed, struct err *e)
{
	struct err f = *failed;
	bool forbidden = f.detail == ERR_DETAIL_FORBIDDEN || f.http_status == 403;
	char *header = transport_http_www_authenticate(t);
	struct oauth_challenge ch = {0};
	bool have_ch = header && oauth_challenge_parse(header, &ch, NULL) == 0;
	free(header);
	int rc = -1;
	pthread_mutex_lock(&s->lock);
	if (s->from_env) {
		err_set(e, ERR_AUTH,
			"%s refused the token in CATALYST_TOKEN (HTTP %ld); unset it or give a valid one",
			s->cfg.resource,
			f.http_status ? f.http_status
			: forbidden   ? 403L
				      : 401L);
		goto out;
	}
	if (!forbidden && s->tok.access_token && s->obtained_ms &&
	    monotime_ms() - s->obtained_ms < FRESH_TOKEN_MS) {
		/* another worker just renewed it: retry with that */
		rc = set_bearer(t, s->tok.access_token, e);
		goto out;
	}
	if (forbidden) {
		if (!have_ch || !ch.error || strcmp(ch.error, "insufficient_scope") != 0) {
			char d[300];
			sanitize(d, sizeof d, have_ch ? ch.error_description : NULL);
			err_set(e, ERR_AUTH, "%s refused access (HTTP 403)%s%s", s->cfg.resource, *d ? ": " : "",
				d);
			goto out;
		}
		rc = step_up(s, &ch, e);
	} else {
		if (s->tok.access_token && s->tok.refresh_token && !s->refresh_failed) {
			struct err rerr;
			err_clear(&rerr);
			if (refresh(s, &rerr) == 0) {
				rc = 0;
				goto set;
			}
		}
		if (!s->cfg.interactive) {
			not_signed_in(s,
				      s->tok.access_token ? "the stored sign-in was refused or has expired"
							  : "the server answered HTTP 401",
				      e);
			goto out;
		}
		rc = authorize(s, have_ch ? &ch : NULL, NULL, e);
	}
set:
	if (rc == 0)
		rc = set_bearer(t, s->tok.access_token, e);
out:
	pthread_mutex_unlock(&s->lock);
	oauth_challenge_finish(&ch);
	return rc;
}

/* POSTs an unauthenticated initialize to learn the server's challenge
 * (resource_metadata, scope). Returns the WWW-Authenticate value of a 401,
 * or NULL (the well-known locations are tried then). */
static char *probe_challenge(const struct oauth_session *s)
{
	static const char init[] =
		"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
		"\"capabilities\":{},\"clientInfo\":{\"name\":\"catalyst-audit\",\"version\":\"" CATALYST_AUDIT_VERSION
		"\"}}}";
	struct http_answer a;
	struct err ignored;
	err_clear(&ignored);
	char *h = NULL;
	if (http_exchange(s, s->cfg.resource, "server URL", BODY_JSON, init, NULL, &a, &ignored) == 0 &&
	    a.status == 401) {
		h = a.www_authenticate;
		a.www_authenticate = NULL;
	}
	http_answer_finish(&a);
	return h;
}

int oauth_session_login(struct oauth_session *s, struct err *e)
{
	if (!s->cfg.interactive)
		return not_signed_in(s, "interactive sign-in is off: --no-login", e);
	char *header = probe_challenge(s);
	struct oauth_challenge ch = {0};
	bool have_ch = header && oauth_challenge_parse(header, &ch, NULL) == 0;
	free(header);
	pthread_mutex_lock(&s->lock);
	int rc = authorize(s, have_ch ? &ch : NULL, NULL, e);
	pthread_mutex_unlock(&s->lock);
	oauth_challenge_finish(&ch);
	return rc;
}
