#pragma once
/* What the OAuth files share and nothing outside them sees: the session,
 * OAuth's own HTTP exchange (oauth_http.c), the scope word lists and the
 * token endpoint request (oauth.c), the interactive authorization
 * (oauth_login.c). */

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

#include "buf.h"
#include "oauth.h"

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

/* Zeroes a secret string, then frees it; accepts NULL. (oauth_tokens.c) */
void oauth_free_secret(char *s);
/* ERR_AUTH: no folder to keep tokens in (neither XDG_CONFIG_HOME nor HOME
 * usable); returns -1. (oauth_tokens.c) */
int oauth_store_no_dir(struct err *e);
/* Server text in our messages: one line, bounded, escaped as on stderr. */
void oauth_sanitize(char *out, size_t cap, const char *s);

/* ---- OAuth's own HTTP (oauth_http.c) ---- */

struct oauth_http_answer {
	long status;
	struct buf body;
	char *www_authenticate;
	struct err write_err;
};

enum oauth_body_kind {
	OAUTH_BODY_NONE = 0,
	OAUTH_BODY_FORM,
	OAUTH_BODY_JSON,
};

/* One exchange with `url`, the `what` of messages. `basic` is
 * "user:password" for client_secret_basic. The body may carry secrets: it
 * is traced redacted and never put in `e`. `a` is filled (finish it in
 * every case). */
int oauth_http_exchange(const struct oauth_session *s, const char *url, const char *what,
			enum oauth_body_kind kind, const char *body, const char *basic,
			struct oauth_http_answer *a, struct err *e);
void oauth_http_answer_finish(struct oauth_http_answer *a);

/* ---- Scope word lists, the token endpoint (oauth.c) ---- */

/* True when the JSON array `arr` holds the string `s`. */
bool oauth_words_has(const json_t *arr, const char *s);
/* Appends the words of `list` not yet in `set` (a JSON array). */
void oauth_words_add(json_t *set, const char *list);
/* The words space separated, NULL when there are none. */
char *oauth_words_join(const json_t *set);
/* Appends key=value, the value form-encoded, to a form body. */
void oauth_form_add(struct buf *b, const char *key, const char *value);
/* The longest token kept: the store reads files of up to 64 KiB, and a
 * file holds two tokens and their context. */
#define OAUTH_TOKEN_MAX 16384
/* expires_in beyond ten years is taken as ten years. */
#define OAUTH_EXPIRES_MAX ((int64_t)10 * 366 * 86400)
/* Posts a grant; on success fills tok's access/refresh/scope/expiry
 * (keeping the old refresh token when none is returned). Refused, with
 * nothing changed in tok: a token over OAUTH_TOKEN_MAX or with bytes a
 * request cannot carry, a scope wider than asked. Every token it keeps is
 * a secret (secret_add). */
int oauth_token_request(struct oauth_session *s, const char *token_endpoint, const json_t *methods,
			struct buf *form, struct oauth_tokens *tok, struct err *e);
/* ERR_AUTH: not signed in, `why`, and the command to run. */
int oauth_not_signed_in(const struct oauth_session *s, const char *why, struct err *e);

/* ---- Interactive sign-in (oauth_login.c) ---- */

/* Discovery, the browser, the code exchange; the tokens go into s and the
 * store. `extra_scope` (step-up) joins the challenge's scope. Call with
 * s->lock held. */
int oauth_authorize(struct oauth_session *s, const struct oauth_challenge *ch, const char *extra_scope,
		    struct err *e);
