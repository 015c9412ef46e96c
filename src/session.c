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
	/* The progress sink, kept: the caller's options may be gone by the
	 * time the server reports progress. */
	void (*progress)(const char *line, void *ctx);
	void *progress_ctx;
};

/* The transport the address names (--stdio's command, else the server
 * URL's scheme); one that signs in is wrapped with an OAuth session: a
 * token from the environment or the store (refreshed), and a 401 that
 * refreshes or signs in (interactively only when the options allow it,
 * else ERR_AUTH naming the login command) before the request is sent
 * again. CATALYST_TOKEN, as the CLI read it, is set on the transport by
 * oauth_session_attach. */
static struct transport *transport_for(const struct session_options *o, struct err *e)
{
	const char *address = o->stdio_cmd ? o->stdio_cmd : o->server;
	const struct transport_kind *k = transport_kind_for(address, o->stdio_cmd != NULL);
	if (!k) {
		err_set(e, ERR_INTERNAL, "no transport runs commands");
		return NULL;
	}
	struct transport_target target = {
		.address = address,
		.cacert = o->cacert,
		.timeout_ms = o->timeout_ms,
		.max_parallel = (int)o->max_parallel,
		.pass_stderr = o->pass_stderr,
	};
	struct transport *inner = k->open(&target, e);
	if (!inner || !k->signs_in)
		return inner;
	struct oauth_config c = o->oauth ? *o->oauth : (struct oauth_config){0};
	c.resource = address;
	struct oauth_session *os = oauth_session_new(&c, e); /* copies the hint */
	struct transport *t = os ? oauth_transport_new(inner, os, true, e) : NULL;
	if (!t) {
		oauth_session_free(os);
		transport_free(inner);
	}
	return t;
}

static void forward_progress(double progress, double total, const char *message, void *ctx)
{
	const struct session *s = ctx;
	/* The message is the server's text: escaped before it reaches the terminal. */
	char *msg = message ? escape_terminal_dup(message, 200) : NULL;
	char line[512];
	if (total > 0)
		snprintf(line, sizeof line, "server progress %.0f/%.0f%s%s", progress, total, msg ? ": " : "",
			 msg ? msg : "");
	else
		snprintf(line, sizeof line, "server progress %.0f%s%s", progress, msg ? ": " : "", msg ? msg : "");
	free(msg);
	s->progress(line, s->progress_ctx);
}

struct session *session_open(const struct session_options *o, enum session_kind kind, struct err *e)
{
	struct session *s = calloc(1, sizeof *s);
	if (!s) {
		err_oom(e);
		return NULL;
	}
	const char *where = o->stdio_cmd ? o->stdio_cmd : o->server;
	bool catalyst = kind == SESSION_CATALYST;
	struct mcp_options mo = {
		.client_name = "catalyst-audit",
		.client_version = CATALYST_AUDIT_VERSION,
		.timeout_ms = o->timeout_ms,
	};
	if (!catalyst && o->progress) {
		s->progress = o->progress;
		s->progress_ctx = o->progress_ctx;
		mo.on_progress = forward_progress;
		mo.progress_ctx = s;
	}
	if (!(s->t = transport_for(o, e))) {
		if (catalyst)
			err_prefix(e, "connecting to %s", where);
		goto fail;
	}
	if (!(s->mcp = mcp_session_new(s->t, &mo))) {
		err_oom(e);
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
		err_oom(e);
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
