/* Interactive sign-in: discovery from a 401 (RFC 9728 resource metadata,
 * RFC 8414 / OpenID authorization server metadata), the scope to ask for,
 * the authorization code flow with PKCE through the user's browser and a
 * loopback listener, the code exchange, and the login command's probe for
 * the server's challenge. */

#include "oauth_internal.h"
#include "trace.h"

#include "browser.h"
#include "monotime.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "version.h"

struct oauth_metadata {
	char *resource; /* the protected resource metadata's own */
	char *issuer;
	char *authorization_endpoint;
	char *token_endpoint;
	json_t *prm_scopes;   /* PRM scopes_supported, or NULL */
	json_t *as_scopes;    /* AS scopes_supported, or NULL */
	json_t *auth_methods; /* token_endpoint_auth_methods_supported, or NULL */
	bool iss_supported;   /* authorization_response_iss_parameter_supported */
	bool cimd_supported;  /* client_id_metadata_document_supported */
};

static void metadata_finish(struct oauth_metadata *m)
{
	free(m->resource);
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

/* GETs a JSON object. Returns it, or NULL with `e` set (a non-200 answer is
 * ERR_PROTOCOL with the status in e->http_status). */
static json_t *get_json(const struct oauth_session *s, const char *url, const char *what, struct err *e)
{
	struct oauth_http_answer a;
	json_t *doc = NULL;
	if (oauth_http_exchange(s, url, what, OAUTH_BODY_NONE, NULL, NULL, &a, e) < 0)
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
	oauth_http_answer_finish(&a);
	return doc;
}

static char *dup_string(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? strdup(v) : NULL;
}

/* ---- Discovery ---- */

/* RFC 9728: the protected resource metadata, the challenge's
 * resource_metadata first, then the well-known locations derived from the
 * MCP URL; sets m->issuer and m->prm_scopes. */
static int discover_resource(struct oauth_session *s, const struct oauth_challenge *ch, struct oauth_metadata *m,
			     struct err *e)
{
	const char *resource = s->cfg.resource;
	json_t *prm = NULL;
	char *cand[3] = {0};
	int n = 0, rc = -1;
	struct err last;
	err_clear(&last);

	/* The token will be asked for this resource, and the metadata found
	 * from it: the same rule as every other URL. */
	if (oauth_url_check(resource, "server URL", e) < 0)
		goto out;
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
		oauth_sanitize(got, sizeof got, prm_resource ? prm_resource : "(none)");
		err_set(e, ERR_AUTH,
			"the protected resource metadata names resource %s, not %s: refusing to sign in (a token "
			"for one must not be sent to the other)",
			got, resource);
		goto out;
	}
	/* RFC 9728 §3.3: the token is asked for the resource exactly as its
	 * metadata names it (it matched the URL above). */
	m->resource = strdup(prm_resource);
	json_t *servers = json_object_get(prm, "authorization_servers");
	const char *issuer = json_string_value(json_array_get(servers, 0));
	if (oauth_url_check(issuer, "authorization server (issuer) the resource metadata names", e) < 0)
		goto out;
	m->issuer = strdup(issuer);
	json_t *ps = json_object_get(prm, "scopes_supported");
	if (json_is_array(ps))
		m->prm_scopes = json_incref(ps);
	rc = m->issuer && m->resource ? 0 : err_oom(e);
out:
	for (int i = 0; i < 3; i++)
		free(cand[i]);
	json_decref(prm);
	return rc;
}

/* RFC 8414 / OpenID discovery: the authorization server metadata of
 * m->issuer, checked (same issuer, https endpoints, PKCE S256). */
static int discover_server(struct oauth_session *s, struct oauth_metadata *m, struct err *e)
{
	const char *issuer = m->issuer;
	json_t *asm_doc = NULL;
	char *cand[3] = {0};
	int n, rc = -1;
	struct err last;
	err_clear(&last);

	n = oauth_as_metadata_urls(m->issuer, cand, e);
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
		oauth_sanitize(got, sizeof got, as_issuer ? as_issuer : "(none)");
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
	if (!oauth_words_has(methods, "S256")) {
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
	m->cimd_supported = json_is_true(json_object_get(asm_doc, "client_id_metadata_document_supported"));
	rc = 0;
out:
	for (int i = 0; i < 3; i++)
		free(cand[i]);
	json_decref(asm_doc);
	return rc;
}

static int discover(struct oauth_session *s, const struct oauth_challenge *ch, struct oauth_metadata *m,
		    struct err *e)
{
	memset(m, 0, sizeof *m);
	if (discover_resource(s, ch, m, e) < 0 || discover_server(s, m, e) < 0) {
		metadata_finish(m);
		return -1;
	}
	return 0;
}

/* ---- Scopes ---- */

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
		oauth_words_add(advertised, ch->scope);
	oauth_words_add(advertised, extra);
	bool from_challenge = json_array_size(advertised) > 0;
	json_t *chosen = json_array();
	size_t i;
	json_t *v;
	if (s->cfg.scope) {
		json_array_foreach(m->prm_scopes, i, v)
			if (json_is_string(v))
				oauth_words_add(advertised, json_string_value(v));
		json_array_foreach(m->as_scopes, i, v)
			if (json_is_string(v))
				oauth_words_add(advertised, json_string_value(v));
		json_t *wanted = json_array();
		oauth_words_add(wanted, s->cfg.scope);
		json_array_foreach(wanted, i, v)
			if (oauth_words_has(advertised, json_string_value(v)))
				json_array_append(chosen, v);
		json_decref(wanted);
	} else {
		if (from_challenge)
			json_array_extend(chosen, advertised);
		else
			json_array_foreach(m->prm_scopes, i, v)
				if (json_is_string(v))
					oauth_words_add(chosen, json_string_value(v));
		if (oauth_words_has(m->as_scopes, "offline_access") &&
		    !oauth_words_has(chosen, "offline_access") && json_array_size(chosen) > 0)
			json_array_append_new(chosen, json_string("offline_access"));
	}
	char *r = oauth_words_join(chosen);
	json_decref(chosen);
	json_decref(advertised);
	return r;
}

/* ---- Authorization ---- */

/* The authorization request's URL: the endpoint and the PKCE query. */
static void authorize_url(struct buf *url, const struct oauth_session *s, const struct oauth_metadata *m,
			  const char *client_id, const char *redirect, const char *challenge, const char *state,
			  const char *scope)
{
	buf_printf(url, NULL, "%s%c", m->authorization_endpoint,
		   strchr(m->authorization_endpoint, '?') ? '&' : '?');
	struct buf q;
	buf_init(&q, 0);
	oauth_form_add(&q, "response_type", "code");
	oauth_form_add(&q, "client_id", client_id);
	oauth_form_add(&q, "redirect_uri", redirect);
	oauth_form_add(&q, "code_challenge", challenge);
	oauth_form_add(&q, "code_challenge_method", "S256");
	oauth_form_add(&q, "state", state);
	oauth_form_add(&q, "resource", m->resource);
	if (scope)
		oauth_form_add(&q, "scope", scope);
	buf_append(url, q.data, q.len, NULL);
	buf_finish(&q);
}

/* The code for tokens at the token endpoint; the tokens kept (and stored
 * when there is a store). form is the caller's, wiped after. */
static int exchange_code(struct oauth_session *s, const struct oauth_metadata *m, const char *client_id,
			 const struct oauth_callback *cb, const char *redirect, const char *verifier,
			 const char *scope, struct buf *form, struct err *e)
{
	oauth_form_add(form, "grant_type", "authorization_code");
	oauth_form_add(form, "code", cb->code);
	oauth_form_add(form, "redirect_uri", redirect);
	oauth_form_add(form, "client_id", client_id);
	oauth_form_add(form, "code_verifier", verifier);
	oauth_form_add(form, "resource", m->resource);
	struct oauth_tokens fresh = {0};
	if (oauth_token_request(s, m->token_endpoint, m->auth_methods, form, &fresh, e) < 0) {
		oauth_tokens_finish(&fresh);
		err_prefix(e, "sign-in to %s", s->cfg.resource);
		return -1;
	}
	fresh.issuer = strdup(m->issuer);
	fresh.client_id = strdup(client_id);
	fresh.resource = strdup(s->cfg.resource);
	fresh.resource_indicator = strdup(m->resource);
	fresh.token_endpoint = strdup(m->token_endpoint);
	if (!fresh.scope && scope)
		fresh.scope = strdup(scope);
	oauth_tokens_finish(&s->tok);
	s->tok = fresh;
	s->refresh_failed = false;
	s->obtained_ms = monotime_ms();
	if (s->store_dir && oauth_store_save(s->store_dir, &s->tok, e) < 0) {
		err_prefix(e, "signed in, but the tokens could not be stored");
		return -1;
	}
	return 0;
}

static int no_client_id(const struct oauth_session *s, struct err *e)
{
	return err_set(e, ERR_AUTH,
		       "signing in to %s needs a pre-registered OAuth client id (the server has no dynamic "
		       "client registration): run %s",
		       s->cfg.resource, s->cfg.hint ? s->cfg.hint : "catalyst-audit login --client-id ID");
}

int oauth_authorize(struct oauth_session *s, const struct oauth_challenge *ch, const char *extra_scope,
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
	int rc = -1;
	const char *path = s->cfg.redirect_path && *s->cfg.redirect_path ? s->cfg.redirect_path : "/callback";

	if (!s->cfg.client_id && !s->cfg.client_metadata_url)
		return no_client_id(s, e);
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
	/* Pre-registered first; else the Client ID Metadata Document's URL,
	 * where the authorization server takes one (MCP 2025-11-25). */
	const char *client_id = s->cfg.client_id;
	if (!client_id && m.cimd_supported)
		client_id = s->cfg.client_metadata_url;
	if (!client_id) {
		no_client_id(s, e);
		err_prefix(e, "%s accepts no client metadata documents", m.issuer);
		goto out;
	}
	trace_printf("oauth", "client id %s (%s)", client_id,
		     client_id == s->cfg.client_id ? "pre-registered" : "client metadata document");
	scope = choose_scope(s, &m, ch, extra_scope);
	if (oauth_random_string(verifier, OAUTH_VERIFIER_LEN, e) < 0 ||
	    oauth_pkce_challenge(verifier, challenge, e) < 0 || oauth_random_string(state, 32, e) < 0)
		goto out;
	if (oauth_listener_open(&l, e) < 0)
		goto out;
	if (asprintf(&redirect, "http://127.0.0.1:%d%s", l.port, path) < 0) {
		redirect = NULL;
		err_oom(e);
		goto out;
	}
	authorize_url(&url, s, &m, client_id, redirect, challenge, state, scope);
	s->authorizations++;
	free(s->scope_requested);
	s->scope_requested = scope ? strdup(scope) : NULL;
	/* Two notices, not one with a newline: every control character in a
	 * message is escaped on its way to the terminal. */
	notice(s, "to sign in to %s, open this address in a browser:", s->cfg.resource);
	notice(s, "  %s", url.data);
	if (!s->cfg.no_browser) {
		/* Not waited for: the listener must take the browser's
		 * redirect while an opener that stays in front runs. */
		struct err be;
		err_clear(&be);
		if (browser_open(s->cfg.browser, url.data, 0, &be) < 0)
			notice(s, "%s; open the address above", be.msg);
	}
	long timeout = s->cfg.callback_timeout_s > 0 ? s->cfg.callback_timeout_s
						     : OAUTH_DEFAULT_CALLBACK_TIMEOUT_S;
	if (oauth_listener_wait(&l, path, state, timeout, &cb, e) < 0)
		goto out;
	if (oauth_callback_check(&cb, state, m.issuer, m.iss_supported, e) < 0)
		goto out;

	if (exchange_code(s, &m, client_id, &cb, redirect, verifier, scope, &form, e) < 0)
		goto out;
	rc = 0;
out:
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

/* POSTs an unauthenticated initialize to learn the server's challenge
 * (resource_metadata, scope). Returns the WWW-Authenticate value of a 401,
 * or NULL (the well-known locations are tried then). */
static char *probe_challenge(const struct oauth_session *s)
{
	static const char init[] =
		"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
		"\"capabilities\":{},\"clientInfo\":{\"name\":\"catalyst-audit\",\"version\":\"" CATALYST_AUDIT_VERSION
		"\"}}}";
	struct oauth_http_answer a;
	struct err ignored;
	err_clear(&ignored);
	char *h = NULL;
	if (oauth_http_exchange(s, s->cfg.resource, "server URL", OAUTH_BODY_JSON, init, NULL, &a, &ignored) ==
		    0 &&
	    a.status == 401) {
		h = a.www_authenticate;
		a.www_authenticate = NULL;
	}
	oauth_http_answer_finish(&a);
	return h;
}

int oauth_session_login(struct oauth_session *s, struct err *e)
{
	if (!s->cfg.interactive)
		return oauth_not_signed_in(s, "interactive sign-in is off: --no-login", e);
	char *header = probe_challenge(s);
	struct oauth_challenge ch = {0};
	bool have_ch = header && oauth_challenge_parse(header, &ch, NULL) == 0;
	free(header);
	pthread_mutex_lock(&s->lock);
	int rc = oauth_authorize(s, have_ch ? &ch : NULL, NULL, e);
	pthread_mutex_unlock(&s->lock);
	oauth_challenge_finish(&ch);
	return rc;
}
