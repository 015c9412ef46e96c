/* `catalyst-audit login` and `logout`, and the OAuth configuration every
 * server command builds from the request. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "audit.h"
#include "oauth.h"
#include "version.h"

static void to_warn(const char *msg, void *ctx)
{
	const struct audit_request *rq = ctx;
	if (rq->warn)
		rq->warn(msg, rq->msg_ctx);
}

static void to_notice(const char *msg, void *ctx)
{
	const struct audit_request *rq = ctx;
	if (rq->notice)
		rq->notice(msg, rq->msg_ctx);
}

static void noticef(const struct audit_request *rq, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void noticef(const struct audit_request *rq, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	to_notice(msg, (void *)rq);
}

/* Tokens live in this process's memory from now on: no core file may
 * carry them to disk. */
static void no_core_dumps(void)
{
	struct rlimit rl = {0, 0};
	setrlimit(RLIMIT_CORE, &rl);
}

/* A script or CI job must never sit waiting for a browser. */
static bool may_interact(const struct audit_request *rq)
{
	const char *ci = getenv("CI");
	return !rq->no_login && isatty(STDIN_FILENO) && !(ci && *ci);
}

void oauth_config_from_request(struct oauth_config *c, const struct audit_request *rq, char *hint_buf,
			       size_t hint_len)
{
	memset(c, 0, sizeof *c);
	c->resource = rq->server;
	c->client_id = rq->client_id && *rq->client_id ? rq->client_id : NULL;
	c->redirect_path = rq->redirect_path;
	c->scope = OAUTH_DEFAULT_SCOPE;
	c->cacert = rq->cacert;
	c->timeout_ms = (rq->timeout_s > 0 ? rq->timeout_s : 30) * 1000;
	c->interactive = may_interact(rq);
	c->no_browser = rq->no_browser;
	c->store_dir = rq->token_dir;
	c->env_token = rq->env_token;
	c->browser = rq->browser;
	/* For tests and slow hands: how long the loopback listener waits. */
	const char *t = getenv("CATALYST_LOGIN_TIMEOUT");
	if (t && *t)
		c->callback_timeout_s = strtol(t, NULL, 10);
	c->notice = to_warn;
	c->notice_ctx = (void *)rq;
	bool default_server = strcmp(rq->server, CATALYST_DEFAULT_SERVER) == 0;
	bool default_path = !rq->redirect_path || strcmp(rq->redirect_path, "/callback") == 0;
	snprintf(hint_buf, hint_len, "catalyst-audit%s%s%s login --client-id %s%s%s",
		 default_server ? "" : " --server '", default_server ? "" : rq->server, default_server ? "" : "'",
		 c->client_id ? c->client_id : "CLIENT_ID", default_path ? "" : " --redirect-path ",
		 default_path ? "" : rq->redirect_path);
	c->hint = hint_buf;
}

struct transport *oauth_connect_http(const struct audit_request *rq, const struct transport_http_options *ho,
				     struct err *e)
{
	struct transport *inner = transport_http_new(ho, e);
	if (!inner)
		return NULL;
	no_core_dumps();
	struct oauth_config c;
	char hint[1024];
	oauth_config_from_request(&c, rq, hint, sizeof hint);
	c.resource = ho->url;
	struct oauth_session *s = oauth_session_new(&c, e); /* copies the hint */
	struct transport *t = s ? oauth_transport_new(inner, s, true, e) : NULL;
	if (!t) {
		oauth_session_free(s);
		transport_free(inner);
	}
	return t;
}

int audit_login(const struct audit_request *rq, struct err *e)
{
	char hint[1024];
	struct oauth_config c;
	oauth_config_from_request(&c, rq, hint, sizeof hint);
	/* `login` is the explicit request to sign in: only --no-login stops it. */
	c.interactive = !rq->no_login;
	c.notice = to_notice;
	c.notice_ctx = (void *)rq;
	struct oauth_session *s = NULL;
	struct oauth_tokens stored = {0};
	int rc = -1;
	if (!c.client_id) {
		/* Signing in again: the client id of the stored sign-in will do. */
		if (oauth_store_load(rq->token_dir, NULL, NULL, c.resource, &stored, NULL) == 1)
			c.client_id = stored.client_id;
	}
	if (!c.client_id) {
		err_set(e, ERR_USAGE,
			"login needs --client-id: %s accepts only OAuth clients registered in advance (no dynamic "
			"client registration), each with a fixed redirect path. Pass the client id your Catalyst "
			"administrator or Diagrid's documentation gives you, and its --redirect-path if it is not "
			"/callback",
			rq->server);
		goto out;
	}
	no_core_dumps();
	s = oauth_session_new(&c, e);
	if (!s)
		goto out;
	if (oauth_session_login(s, e) < 0)
		goto out;
	noticef(rq, "signed in to %s (client %s); tokens stored in %s", rq->server, c.client_id,
		rq->token_dir ? rq->token_dir : "the token folder");
	rc = 0;
out:
	oauth_session_free(s);
	oauth_tokens_finish(&stored);
	return rc;
}

int audit_logout(const struct audit_request *rq, struct err *e)
{
	/* no token folder: the store says so */
	int n = oauth_store_delete(rq->token_dir, rq->client_id && *rq->client_id ? rq->client_id : NULL,
				   rq->server, e);
	if (n >= 0)
		noticef(rq, "%s for %s", n ? "stored tokens deleted" : "no stored tokens", rq->server);
	return n < 0 ? -1 : 0;
}
