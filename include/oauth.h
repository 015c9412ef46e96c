#pragma once
/* Sign-in with OAuth 2.1 (authorization code + PKCE S256, public client,
 * RFC 8707 resource indicators, rotating refresh tokens), the discovery that
 * leads to it (RFC 9728 protected resource metadata, RFC 8414 / OpenID
 * authorization server metadata), the loopback callback (RFC 8252) and the
 * token store. OAuth's own HTTP (metadata, token endpoint) uses libcurl
 * here; MCP traffic goes through the transport, which this module only
 * hands a bearer token to. Never prints; secrets never reach an error
 * message or a trace line. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "transport.h"

/* What catalyst-audit asks for: read access and a refresh token, never
 * catalyst:write (the product is read-only by construction). */
#define OAUTH_DEFAULT_SCOPE "catalyst:read offline_access"
/* Interactive authorizations one session may start (first sign-in and
 * step-ups together): a server that never accepts cannot loop us. */
#define OAUTH_MAX_AUTHORIZATIONS 3
#define OAUTH_DEFAULT_CALLBACK_TIMEOUT_S 300

/* ---- WWW-Authenticate (RFC 6750 / RFC 9110 challenges) ---- */

struct oauth_challenge {
	char *resource_metadata; /* RFC 9728 */
	char *scope;
	char *error; /* "invalid_token", "insufficient_scope", ... */
	char *error_description;
};

/* Fills `c` from the first Bearer challenge in a WWW-Authenticate value
 * (several challenges may be listed; parameters in token or quoted-string
 * form). Returns 0, or -1 with ERR_PROTOCOL when no Bearer challenge is
 * there or the syntax is broken. */
int oauth_challenge_parse(const char *header, struct oauth_challenge *c, struct err *e);
void oauth_challenge_finish(struct oauth_challenge *c);

/* ---- PKCE (RFC 7636) and random values ---- */

#define OAUTH_VERIFIER_LEN 64  /* 43..128 allowed */
#define OAUTH_CHALLENGE_LEN 43 /* base64url(SHA-256) without padding */

/* `len` characters from the unreserved set, from getrandom(2). */
int oauth_random_string(char *out, size_t len, struct err *e);
/* S256: base64url(SHA-256(verifier)), no padding; out holds 44 bytes. */
int oauth_pkce_challenge(const char *verifier, char out[OAUTH_CHALLENGE_LEN + 1], struct err *e);

/* ---- Well-known URLs ---- */

/* RFC 9728 candidates for a resource URL, in the order to try: the
 * path-inserted form (when the URL has a path) then the root form.
 * Returns the count (1 or 2) with malloc'd strings in out, or -1. */
int oauth_prm_urls(const char *resource, char *out[2], struct err *e);
/* Authorization server metadata candidates for an issuer: RFC 8414
 * path-insertion, OpenID path-insertion, OpenID path-appended (with a
 * path), or RFC 8414 then OpenID at the root (without). Returns the count
 * (2 or 3) or -1. */
int oauth_as_metadata_urls(const char *issuer, char *out[3], struct err *e);
/* The https rule for every URL sign-in sends anything to or through (the
 * server URL, resource metadata, issuer, authorization and token
 * endpoints), decided on the host libcurl's URL API parses, which is the
 * host libcurl connects to: https, or plain http to a loopback host
 * (127.0.0.0/8, [::1], localhost); never user information before the host
 * (http://localhost:1@otherhost/ goes to otherhost). `what` names the URL
 * in the message. Returns 0, or -1 with ERR_AUTH (the URL shown without
 * its user information, which may be a password). */
int oauth_url_check(const char *url, const char *what, struct err *e);
/* Whether token is an RFC 6750 b64token, the only form an Authorization:
 * Bearer header carries: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" /
 * "/" ) *"=". Returns 0, or -1 with `code` and a message that names `what`
 * (e.g. "CATALYST_TOKEN"), the first offending character by its position
 * and kind (a line break, a space, a control character...), never the
 * token or any part of it. */
int oauth_token_check(const char *token, const char *what, enum err_code code, struct err *e);
/* True when the protected resource metadata's `resource` names the MCP
 * URL: equal byte for byte, or the same origin with a path that is a
 * segment prefix (metadata served at the root describes the origin). */
bool oauth_resource_matches(const char *prm_resource, const char *mcp_url);

/* ---- Loopback callback ---- */

struct oauth_callback {
	char *code;
	char *state;
	char *iss; /* RFC 9207 */
	char *error;
	char *error_description;
};

/* Parses a request target ("/callback?code=...&state=..."). Returns 1 when
 * the path is `path` exactly (the query decoded into cb), 0 when it is
 * another path (answer 404 and keep waiting), -1 when malformed. */
int oauth_callback_parse(const char *target, const char *path, struct oauth_callback *cb, struct err *e);
/* Refuses an `error`, a wrong `state`, an `iss` other than `issuer` (or a
 * missing one when the server promised it), a missing code: ERR_AUTH. */
int oauth_callback_check(const struct oauth_callback *cb, const char *state, const char *issuer, bool iss_required,
			 struct err *e);
void oauth_callback_finish(struct oauth_callback *cb); /* zeroes the code */

struct oauth_listener {
	int fd;
	int port;
};

/* Binds 127.0.0.1, any port. */
int oauth_listener_open(struct oauth_listener *l, struct err *e);
/* Waits for the redirect on `path` that carries `state` (code or error)
 * and answers the browser with a short page; then the listener is closed
 * (single use). Other paths get 404, other methods 405; a request on the
 * path with another state, or a malformed one, gets 400 and the wait goes
 * on, so no one who can reach the port can end the real sign-in. The
 * connections are served side by side, each for at most 10 s, so a silent
 * one holds up nothing. ERR_AUTH + ERR_DETAIL_TIMEOUT when nothing came
 * in time. */
int oauth_listener_wait(struct oauth_listener *l, const char *path, const char *state, long timeout_s,
			struct oauth_callback *cb, struct err *e);
void oauth_listener_close(struct oauth_listener *l);

/* ---- Token store ---- */

struct oauth_tokens {
	char *issuer;
	char *client_id;
	char *resource; /* the MCP URL: what the store is searched by */
	/* The protected resource metadata's `resource`, sent as RFC 8707's
	 * `resource` (NULL in files written before it: then `resource`). */
	char *resource_indicator;
	char *access_token;   /* secret */
	char *refresh_token;  /* secret, may be NULL */
	char *token_endpoint; /* kept so a refresh needs no discovery */
	char *scope;          /* granted, space separated; may be NULL */
	int64_t expires_at;   /* Unix seconds; 0 when the server did not say */
};

/* Zeroes the secrets and frees every field. */
void oauth_tokens_finish(struct oauth_tokens *t);

/* Where tokens are kept: <xdg_config_home>/catalyst-audit when that is an
 * absolute path (the XDG rule: a relative one is ignored), else
 * <home>/.config/catalyst-audit when home is absolute (malloc'd); NULL with
 * ERR_AUTH when neither is usable. The values are passed in: the CLI reads
 * the environment, this module never does. */
char *oauth_store_default_dir(const char *xdg_config_home, const char *home, struct err *e);
/* The file of one (issuer, client id, resource): <dir>/tokens-<hash>.json. */
char *oauth_store_path(const char *dir, const char *issuer, const char *client_id, const char *resource);
/* The functions below take the folder oauth_store_default_dir gave; a NULL
 * one is refused with its error (ERR_AUTH: no usable folder). */
/* Writes atomically: the folder is created 0700 (an existing one must not
 * be group- or world-accessible), a temp file 0600, fsync, rename, fsync of
 * the folder. */
int oauth_store_save(const char *dir, const struct oauth_tokens *t, struct err *e);
/* Finds the stored tokens for `resource` (and `issuer`, `client_id` when
 * not NULL). Returns 1 and fills out, 0 when none, -1 with ERR_AUTH when a
 * file is group- or world-readable (it is refused, not read). */
int oauth_store_load(const char *dir, const char *issuer, const char *client_id, const char *resource,
		     struct oauth_tokens *out, struct err *e);
/* Deletes every stored entry for `resource` (and client_id when not
 * NULL). Returns how many, or -1. */
int oauth_store_delete(const char *dir, const char *client_id, const char *resource, struct err *e);
/* An exclusive lock on the store (flock on the folder) across a refresh:
 * two processes must not both spend one rotating refresh token. Returns a
 * descriptor for oauth_store_unlock, or -1. */
int oauth_store_lock(const char *dir, struct err *e);
void oauth_store_unlock(int fd);

/* ---- Sessions: what the commands call ---- */

struct oauth_config {
	const char *resource;  /* the MCP URL, sent byte for byte as `resource` */
	const char *client_id; /* pre-registered; NULL: stored tokens or env_token only */
	/* An https URL with a path where the client's Client ID Metadata
	 * Document is published: the client id, with no registration, where
	 * the authorization server says it takes them and client_id is NULL. */
	const char *client_metadata_url;
	const char *client_secret; /* NULL: public client (Catalyst); else client_secret_basic/post */
	const char *redirect_path; /* NULL: "/callback" */
	const char *scope;         /* wanted scopes, asked only when advertised;
				    * NULL: the server's choice (MCP scope strategy) */
	const char *store_dir;     /* the token folder (oauth_store_default_dir); NULL: none
				    * usable, oauth_session_new fails with that error */
	const char *env_token;     /* a bearer token the environment gives (CATALYST_TOKEN):
				    * sent as is, never stored or refreshed; NULL or "": none */
	const char *browser;       /* what opens the sign-in address ($BROWSER, read as
				    * browser_open does); NULL or "": xdg-open */
	const char *cacert;        /* NULL: system store; TLS is always verified */
	long timeout_ms;           /* each OAuth HTTP exchange; 0: 30 s */
	long callback_timeout_s;   /* 0: OAUTH_DEFAULT_CALLBACK_TIMEOUT_S */
	bool interactive;          /* may open a browser to sign in */
	bool no_browser;           /* print the URL only */
	const char *hint;          /* the command to run to sign in, for messages */
	/* Where "open this URL to sign in" goes (stderr in the CLI). */
	void (*notice)(const char *msg, void *ctx);
	void *notice_ctx;
};

struct oauth_session;

/* The config's strings are borrowed and must outlive the session, except
 * `hint` and `store_dir`, which are copied. This module reads no
 * environment variable: all it uses is in the config. */
struct oauth_session *oauth_session_new(const struct oauth_config *c, struct err *e);
void oauth_session_free(struct oauth_session *s); /* accepts NULL */
/* The client id of the tokens held (a metadata document's URL when the
 * sign-in used one), else the configured one; NULL for none. Borrowed. */
const char *oauth_session_client_id(const struct oauth_session *s);

/* Before the first request: the config's env_token, else the stored token
 * (refreshed first when it expires within a minute), onto t. Returns 1
 * when a token was set, 0 when none is known (the server's 401 starts
 * sign-in), -1 on a refused token file or a failed refresh that cannot
 * be recovered. */
int oauth_session_attach(struct oauth_session *s, struct transport *t, struct err *e);

/* True when `failed` is an answer oauth_session_recover can act on: HTTP
 * 401 (ERR_DETAIL_UNAUTHORIZED) or 403 (ERR_DETAIL_FORBIDDEN). */
bool oauth_error_recoverable(const struct err *failed);

/* After a request on t failed with a 401 or a 403 (insufficient_scope):
 * reads the WWW-Authenticate of that answer from t, then refreshes, or
 * signs in (when interactive; step-up with the union of scopes), and sets
 * the new token on t. Returns 0: retry the request once; -1: e set
 * (ERR_AUTH with the command to run). `failed` may be `e`. Thread-safe. */
int oauth_session_recover(struct oauth_session *s, struct transport *t, const struct err *failed, struct err *e);

/* The login command: discovery (probing the server for its challenge),
 * browser, code exchange, store. */
int oauth_session_login(struct oauth_session *s, struct err *e);

/* Interactive authorizations started so far (step-up limit). */
int oauth_session_authorizations(const struct oauth_session *s);

/* Wraps an HTTP transport: attaches the token now (oauth_session_attach),
 * and every send that fails with 401/403 goes through
 * oauth_session_recover and is sent again (at most
 * OAUTH_MAX_AUTHORIZATIONS times). The wrapper takes `inner` (freed with
 * it) and, with own_session, the session. On failure nothing is taken. */
struct transport *oauth_transport_new(struct transport *inner, struct oauth_session *s, bool own_session,
				      struct err *e);
/* The wrapped HTTP transport (for transport_http_session_id and the
 * like); t itself when it is not a wrapper. */
struct transport *oauth_transport_inner(struct transport *t);
