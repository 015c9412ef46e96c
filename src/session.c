#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "oauth.h"
#include "transport.h"
#include "version.h"

struct session {
	struct transport *t;
	struct mcp_session *mcp;
	struct catalyst *catalyst;
};

static long timeout_ms_of(const struct audit_request *rq)
{
	return (rq->timeout_s > 0 ? rq->timeout_s : 60) * 1000;
}

/* rq->server over HTTP, wrapped with an OAuth session: a token from the
 * environment or the store (refreshed), and a 401 that refreshes or signs
 * in (interactively only when the request allows it, else ERR_AUTH naming
 * the login command) before the request is sent again. CATALYST_TOKEN, as
 * the CLI read it, is set on the transport by oauth_session_attach. */
static struct transport *http_with_oauth(const struct audit_request *rq, enum session_kind kind, struct err *e)
{
	struct transport_http_options ho = {
		.url = rq->server,
		.cacert = rq->cacert,
		.timeout_ms = timeout_ms_of(rq),
		/* As many handles as runs fetched at once. */
		.max_parallel = kind == SESSION_CATALYST && rq->jobs > 0 ? rq->jobs : 8,
	};
	struct transport *inner = transport_http_new(&ho, e);
	if (!inner)
		return NULL;
	audit_no_core_dumps();
	struct oauth_config c;
	char hint[1024];
	oauth_config_from_request(&c, rq, hint, sizeof hint);
	c.resource = ho.url;
	struct oauth_session *os = oauth_session_new(&c, e); /* copies the hint */
	struct transport *t = os ? oauth_transport_new(inner, os, true, e) : NULL;
	if (!t) {
		oauth_session_free(os);
		transport_free(inner);
	}
	return t;
}

static struct transport *transport_for(const struct audit_request *rq, enum session_kind kind, struct err *e)
{
	if (!rq->stdio_cmd)
		return http_with_oauth(rq, kind, e);
	struct transport_stdio_options so = {
		.command = rq->stdio_cmd,
		.pass_stderr = rq->verbose,
		.timeout_ms = timeout_ms_of(rq),
	};
	return transport_stdio_new(&so, e);
}

static void forward_progress(double progress, double total, const char *message, void *ctx)
{
	const struct audit_request *rq = ctx;
	/* The message is the server's text: escaped before it reaches the terminal. */
	char *msg = message ? escape_terminal_dup(message, 200) : NULL;
	char line[512];
	if (total > 0)
		snprintf(line, sizeof line, "server progress %.0f/%.0f%s%s", progress, total, msg ? ": " : "",
			 msg ? msg : "");
	else
		snprintf(line, sizeof line, "server progress %.0f%s%s", progress, msg ? ": " : "", msg ? msg : "");
	free(msg);
	rq->progress(line, rq->msg_ctx);
}

struct session *session_open(const struct audit_request *rq, enum session_kind kind, struct err *e)
{
	struct session *s = calloc(1, sizeof *s);
	if (!s) {
		err_set(e, ERR_INTERNAL, "out of memory");
		return NULL;
	}
	const char *where = rq->stdio_cmd ? rq->stdio_cmd : rq->server;
	bool catalyst = kind == SESSION_CATALYST;
	struct mcp_options mo = {
		.client_name = "catalyst-audit",
		.client_version = CATALYST_AUDIT_VERSION,
		.timeout_ms = timeout_ms_of(rq),
	};
	if (!catalyst && rq->progress) {
		mo.on_progress = forward_progress;
		mo.progress_ctx = (void *)rq;
	}
	if (!(s->t = transport_for(rq, kind, e))) {
		if (catalyst)
			err_prefix(e, "connecting to %s", where);
		goto fail;
	}
	if (!(s->mcp = mcp_session_new(s->t, &mo))) {
		err_set(e, ERR_INTERNAL, "out of memory");
		goto fail;
	}
	if (mcp_initialize(s->mcp, e) < 0) {
		if (catalyst)
			err_prefix(e, "connecting to %s", where);
		goto fail;
	}
	if (!catalyst)
		return s;
	if (!(s->catalyst = catalyst_new(s->mcp, NULL))) {
		err_set(e, ERR_INTERNAL, "out of memory");
		goto fail;
	}
	if (catalyst_load_tools(s->catalyst, e) < 0) {
		err_prefix(e, "%s", where);
		goto fail;
	}
	return s;
fail:
	session_close(s);
	return NULL;
}

struct catalyst *session_catalyst(const struct session *s)
{
	return s ? s->catalyst : NULL;
}

struct mcp_session *session_mcp(const struct session *s)
{
	return s ? s->mcp : NULL;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	catalyst_free(s->catalyst);
	if (s->mcp)
		mcp_session_close(s->mcp);
	mcp_session_free(s->mcp);
	transport_free(s->t);
	free(s);
}
