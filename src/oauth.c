/* The sign-in session the commands use to keep a transport authorized: a
 * token from the environment or the store (refreshed with rotation when it
 * is about to expire) before the first request, and after a 401 or 403 a
 * refresh, a step-up on insufficient_scope or an interactive sign-in
 * (oauth_login.c). Also what the other OAuth files share: the token
 * endpoint request and the scope word lists. */

#include "oauth_internal.h"
#include "monotime.h"

#include <curl/curl.h>
#include <jansson.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "buf.h"
#include "escape.h"
#include "secret.h"
#include "trace.h"

#define EXPIRY_MARGIN_S 60
/* A token obtained this recently is the one a concurrent failed request
 * should simply retry with (several `runs` workers hit one expiry). */
#define FRESH_TOKEN_MS 5000

void oauth_sanitize(char *out, size_t cap, const char *s)
{
	escape_message_into(out, cap, s);
}

/* ---- Scope word lists ---- */

bool oauth_words_has(const json_t *arr, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

void oauth_words_add(json_t *set, const char *list)
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
			if (w && !oauth_words_has(set, w))
				json_array_append_new(set, json_string(w));
			free(w);
		}
		p += n;
	}
}

char *oauth_words_join(const json_t *set)
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

/* ---- Token endpoint ---- */

void oauth_form_add(struct buf *b, const char *key, const char *value)
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
	if (!methods || oauth_words_has(methods, "client_secret_basic"))
		return "client_secret_basic";
	if (oauth_words_has(methods, "client_secret_post"))
		return "client_secret_post";
	return "none";
}

/* A token goes into an HTTP header (access) or a form (refresh) and into
 * the store, whose files are read up to 64 KiB: longer ones, and bytes a
 * header cannot carry (CR, LF, controls, non-ASCII), are refused before
 * anything is kept. */
static int token_text_check(const char *what, const char *t, unsigned char lowest, struct err *e)
{
	size_t n = strlen(t);
	if (n > OAUTH_TOKEN_MAX)
		return err_set(e, ERR_AUTH,
			       "the token endpoint issued a %s of %zu bytes, over %d: refused, nothing stored",
			       what, n, OAUTH_TOKEN_MAX);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)t[i] < lowest || (unsigned char)t[i] > 0x7e)
			return err_set(
				e, ERR_AUTH,
				"the token endpoint issued a %s with byte 0x%02x at %zu, which an HTTP request "
				"cannot carry: refused, nothing stored",
				what, (unsigned char)t[i], i);
	return 0;
}

/* A grant wider than what was asked (catalyst:write when catalyst:read
 * was) is a more powerful secret than this read-only tool needs to keep:
 * refused. `asked`: the scope of the request (sign-in), else of the grant
 * being refreshed; NULL: nothing to compare with. */
static int scope_check(const char *granted, const char *asked, struct err *e)
{
	if (!granted || !asked)
		return 0;
	json_t *g = json_array(), *a = json_array();
	oauth_words_add(g, granted);
	oauth_words_add(a, asked);
	size_t i;
	json_t *v;
	int rc = 0;
	json_array_foreach(g, i, v) {
		if (!oauth_words_has(a, json_string_value(v))) {
			char extra[100], want[300];
			oauth_sanitize(extra, sizeof extra, json_string_value(v));
			oauth_sanitize(want, sizeof want, asked);
			rc = err_set(
				e, ERR_AUTH,
				"the authorization server granted %s, more than was asked (%s): refused, nothing "
				"stored; a read-only grant is all this tool keeps",
				extra, want);
			break;
		}
	}
	json_decref(g);
	json_decref(a);
	return rc;
}

int oauth_token_request(struct oauth_session *s, const char *token_endpoint, const json_t *methods,
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
		oauth_form_add(form, "client_secret", s->cfg.client_secret);
	}
	struct oauth_http_answer a;
	json_t *doc = NULL;
	int rc = -1;
	if (oauth_http_exchange(s, token_endpoint, "token endpoint", OAUTH_BODY_FORM, form->data, basic, &a, e) <
	    0)
		goto out;
	json_error_t je;
	doc = a.body.data ? json_loadb(a.body.data, a.body.len, 0, &je) : NULL;
	if (a.status != 200) {
		char err_code[100], desc[300];
		oauth_sanitize(err_code, sizeof err_code, json_string_value(json_object_get(doc, "error")));
		oauth_sanitize(desc, sizeof desc, json_string_value(json_object_get(doc, "error_description")));
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
		oauth_sanitize(t, sizeof t, type);
		err_set(e, ERR_AUTH, "the token endpoint issued a %s token; only Bearer tokens are supported", t);
		goto out;
	}
	const char *refresh = json_string_value(json_object_get(doc, "refresh_token"));
	const char *granted = json_string_value(json_object_get(doc, "scope"));
	if (token_text_check("access token", access, 0x21, e) < 0 ||
	    (refresh && token_text_check("refresh token", refresh, 0x20, e) < 0) ||
	    scope_check(granted, s->scope_requested ? s->scope_requested : tok->scope, e) < 0)
		goto out;
	secret_add(access);
	secret_add(refresh);
	oauth_free_secret(tok->access_token);
	tok->access_token = strdup(access);
	if (refresh) {
		oauth_free_secret(tok->refresh_token);
		tok->refresh_token = strdup(refresh);
	}
	const char *scope = json_string_value(json_object_get(doc, "scope"));
	if (scope) {
		free(tok->scope);
		tok->scope = strdup(scope);
	}
	json_t *exp = json_object_get(doc, "expires_in");
	/* Capped before the sum: INT64_MAX seconds would overflow it. */
	json_int_t in = json_is_integer(exp) ? json_integer_value(exp) : 0;
	tok->expires_at = in > 0 ? (int64_t)time(NULL) + (in < OAUTH_EXPIRES_MAX ? (int64_t)in : OAUTH_EXPIRES_MAX)
				 : 0;
	rc = tok->access_token ? 0 : err_oom(e);
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
	oauth_http_answer_finish(&a);
	oauth_free_secret(basic);
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
	oauth_form_add(&form, "grant_type", "refresh_token");
	oauth_form_add(&form, "refresh_token", s->tok.refresh_token);
	oauth_form_add(&form, "client_id", s->tok.client_id);
	oauth_form_add(&form, "resource", s->tok.resource_indicator ? s->tok.resource_indicator : s->tok.resource);
	rc = oauth_token_request(s, s->tok.token_endpoint, NULL, &form, &s->tok, e);
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

/* draft-ietf-oauth-client-id-metadata-document: an https URL with a path
 * component, no fragment, no credentials, no dot segments. */
static bool client_metadata_url_ok(const char *u)
{
	if (strncmp(u, "https://", 8) != 0 || strpbrk(u, "#@ \t\r\n") || strstr(u, "/./") || strstr(u, "/../"))
		return false;
	const char *path = strchr(u + 8, '/');
	return path && path > u + 8 && path[1];
}

const char *oauth_session_client_id(const struct oauth_session *s)
{
	return s->tok.client_id ? s->tok.client_id : s->cfg.client_id;
}

struct oauth_session *oauth_session_new(const struct oauth_config *c, struct err *e)
{
	if (!c->resource || !*c->resource) {
		err_set(e, ERR_USAGE, "no server URL to sign in to");
		return NULL;
	}
	if (c->client_metadata_url && !client_metadata_url_ok(c->client_metadata_url)) {
		err_set(e, ERR_USAGE,
			"the client metadata document's URL must be https with a path (it is the client id): '%.200s'",
			c->client_metadata_url);
		return NULL;
	}
	struct oauth_session *s = calloc(1, sizeof *s);
	if (!s) {
		err_oom(e);
		return NULL;
	}
	s->cfg = *c;
	pthread_mutex_init(&s->lock, NULL);
	if (c->hint) {
		s->hint = strdup(c->hint);
		s->cfg.hint = s->hint;
	}
	if (!c->store_dir) {
		oauth_store_no_dir(e);
		oauth_session_free(s);
		return NULL;
	}
	s->store_dir = strdup(c->store_dir);
	if (!s->store_dir) {
		err_oom(e);
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
	if (transport_set_bearer(t, token) < 0)
		return err_set(e, ERR_USAGE, "a bearer token cannot be sent over %s", t->ops->name);
	return 0;
}

int oauth_session_attach(struct oauth_session *s, struct transport *t, struct err *e)
{
	const char *env = s->cfg.env_token;
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
	/* A store written by hand or by another tool: said as such, never
	 * sent as a header it would break. */
	if (oauth_token_check(s->tok.access_token, "the stored access token", ERR_AUTH, e) < 0) {
		rc = -1;
		goto out;
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

int oauth_not_signed_in(const struct oauth_session *s, const char *why, struct err *e)
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
	oauth_sanitize(sc, sizeof sc, ch->scope ? ch->scope : "(none)");
	if (s->cfg.scope && ch->scope) {
		json_t *wanted = json_array(), *asked = json_array();
		oauth_words_add(wanted, s->cfg.scope);
		oauth_words_add(asked, ch->scope);
		bool outside = false;
		size_t i;
		json_t *v;
		json_array_foreach(asked, i, v)
			if (!oauth_words_has(wanted, json_string_value(v)))
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
	oauth_words_add(held, s->tok.scope);
	oauth_words_add(held, s->scope_requested);
	char *held_text = oauth_words_join(held);
	json_decref(held);
	int rc = oauth_authorize(s, ch, held_text, e);
	free(held_text);
	return rc;
}

int oauth_session_recover(struct oauth_session *s, struct transport *t, const struct err *failed, struct err *e)
{
	struct err f = *failed;
	bool forbidden = f.detail == ERR_DETAIL_FORBIDDEN || f.http_status == 403;
	char *header = transport_www_authenticate(t);
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
			oauth_sanitize(d, sizeof d, have_ch ? ch.error_description : NULL);
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
			oauth_not_signed_in(s,
					    s->tok.access_token ? "the stored sign-in was refused or has expired"
								: "the server answered HTTP 401",
					    e);
			goto out;
		}
		rc = oauth_authorize(s, have_ch ? &ch : NULL, NULL, e);
	}
set:
	if (rc == 0)
		rc = set_bearer(t, s->tok.access_token, e);
out:
	pthread_mutex_unlock(&s->lock);
	oauth_challenge_finish(&ch);
	return rc;
}
