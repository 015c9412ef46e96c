/* A transport that keeps an HTTP transport signed in: every send that
 * comes back 401 (or 403 insufficient_scope) goes to the OAuth session,
 * which refreshes or signs in and sets the new token, and the message is
 * sent again. A 401/403 arrives before any body, so nothing was delivered
 * to the caller's callback and resending is safe. The MCP session and the
 * Catalyst layer above never see sign-in at all. */

#include <stdlib.h>

#include "oauth.h"

struct auth_transport {
	struct transport base;
	struct transport *inner;
	struct oauth_session *s;
	bool own_session;
};

static int auth_send(struct transport *t, const char *body, size_t len, bool expect_reply, transport_on_message cb,
		     void *ctx, struct err *e)
{
	struct auth_transport *a = (struct auth_transport *)t;
	for (int attempt = 0;; attempt++) {
		int rc = a->inner->ops->send(a->inner, body, len, expect_reply, cb, ctx, e);
		if (rc == 0 || !oauth_error_recoverable(e))
			return rc;
		if (attempt >= OAUTH_MAX_AUTHORIZATIONS)
			return err_prefix(e, "still refused after signing in");
		/* recover copies the failure before it writes e */
		if (oauth_session_recover(a->s, a->inner, e, e) < 0)
			return -1;
	}
}

static int auth_set_header(struct transport *t, const char *name, const char *value)
{
	struct auth_transport *a = (struct auth_transport *)t;
	return a->inner->ops->set_header(a->inner, name, value);
}

static void auth_reset_session(struct transport *t)
{
	struct auth_transport *a = (struct auth_transport *)t;
	a->inner->ops->reset_session(a->inner);
}

static void auth_close(struct transport *t)
{
	struct auth_transport *a = (struct auth_transport *)t;
	a->inner->ops->close(a->inner);
}

static void auth_destroy(struct transport *t)
{
	struct auth_transport *a = (struct auth_transport *)t;
	a->inner->ops->destroy(a->inner);
	if (a->own_session)
		oauth_session_free(a->s);
	free(a);
}

static int auth_set_bearer(struct transport *t, const char *token)
{
	struct auth_transport *a = (struct auth_transport *)t;
	return transport_set_bearer(a->inner, token);
}

static char *auth_www_authenticate(struct transport *t)
{
	struct auth_transport *a = (struct auth_transport *)t;
	return transport_www_authenticate(a->inner);
}

static const struct transport_ops auth_ops = {
	.name = "http+oauth",
	.send = auth_send,
	.set_header = auth_set_header,
	.reset_session = auth_reset_session,
	.close = auth_close,
	.destroy = auth_destroy,
	.set_bearer = auth_set_bearer,
	.www_authenticate = auth_www_authenticate,
};

struct transport *oauth_transport_new(struct transport *inner, struct oauth_session *s, bool own_session,
				      struct err *e)
{
	if (!inner || !s) {
		err_set(e, ERR_INTERNAL, "oauth_transport_new without a transport or session");
		return NULL;
	}
	/* Sign-in is two ops of the transport: one that lacks them cannot. */
	if (!inner->ops->set_bearer || !inner->ops->www_authenticate) {
		err_set(e, ERR_INTERNAL, "the %s transport takes no bearer token: it cannot sign in",
			inner->ops->name);
		return NULL;
	}
	if (oauth_session_attach(s, inner, e) < 0)
		return NULL;
	struct auth_transport *a = calloc(1, sizeof *a);
	if (!a) {
		err_oom(e);
		return NULL;
	}
	a->base.ops = &auth_ops;
	a->inner = inner;
	a->s = s;
	a->own_session = own_session;
	return &a->base;
}

struct transport *oauth_transport_inner(struct transport *t)
{
	return t && t->ops == &auth_ops ? ((struct auth_transport *)t)->inner : t;
}
