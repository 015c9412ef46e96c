/* `catalyst-audit login` and `logout`, and the OAuth configuration every
 * server command builds from the request (the session module's HTTP
 * transport takes it too). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "audit_catalyst.h"
#include "file_in.h"
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

void oauth_config_from_request(struct oauth_config *c, const struct audit_request *rq, char *hint_buf,
			       size_t hint_len)
{
	memset(c, 0, sizeof *c);
	c->resource = rq->server;
	c->client_id = rq->client_id && *rq->client_id ? rq->client_id : NULL;
	c->client_metadata_url = rq->client_metadata_url && *rq->client_metadata_url ? rq->client_metadata_url
										     : NULL;
	c->redirect_path = rq->redirect_path;
	c->scope = OAUTH_DEFAULT_SCOPE;
	c->cacert = rq->cacert;
	c->timeout_ms = (rq->timeout_s > 0 ? rq->timeout_s : 30) * 1000;
	/* A script or CI job must never sit waiting for a browser. */
	c->interactive = !rq->no_login && rq->may_prompt;
	c->no_browser = rq->no_browser;
	c->store_dir = rq->token_dir;
	c->env_token = rq->env_token;
	c->browser = rq->browser;
	/* For tests and slow hands: how long the loopback listener waits. */
	c->callback_timeout_s = rq->login_timeout_s;
	c->notice = to_warn;
	c->notice_ctx = (void *)rq;
	bool default_server = strcmp(rq->server, CATALYST_DEFAULT_SERVER) == 0;
	bool default_path = !rq->redirect_path || strcmp(rq->redirect_path, "/callback") == 0;
	/* With no client id, a metadata document may serve as one. */
	bool cimd = !c->client_id && c->client_metadata_url;
	snprintf(hint_buf, hint_len, "catalyst-audit%s%s%s login %s %s%s%s%s", default_server ? "" : " --server '",
		 default_server ? "" : rq->server, default_server ? "" : "'",
		 cimd ? "--client-metadata-url" : "--client-id",
		 cimd           ? c->client_metadata_url
		 : c->client_id ? c->client_id
				: "CLIENT_ID",
		 default_path ? "" : " --redirect-path ", default_path ? "" : rq->redirect_path,
		 cimd ? " (or --client-id ID, where the authorization server takes no metadata documents)" : "");
	c->hint = hint_buf;
}

/* Debian's whole bundle is 200 KiB. */
#define CACERT_MAX_BYTES ((size_t)16 << 20)

/* A --cacert that cannot be read is a mistake to say at once, whatever the
 * server's scheme: libcurl reads it only for https, and a typo would pass
 * unseen until the server moved to TLS. */
static int check_cacert(const struct audit_request *rq, struct err *e)
{
	if (!rq->cacert || rq->stdio_cmd)
		return 0;
	/* the certificates the server is trusted by: a regular file (libcurl
	 * would block on a FIFO), of a bundle's size */
	const struct file_in rules = {.what = "--cacert", .code = ERR_USAGE, .max = CACERT_MAX_BYTES};
	struct stat st;
	int fd = file_in_open(rq->cacert, &rules, &st, e);
	if (fd == -2)
		return err_set(e, ERR_USAGE, "--cacert %s: %s", rq->cacert, strerror(ENOENT));
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

struct session *audit_session_open(const struct audit_request *rq, enum session_kind kind, struct err *e)
{
	if (check_cacert(rq, e) < 0)
		return NULL;
	struct oauth_config c;
	char hint[1024];
	oauth_config_from_request(&c, rq, hint, sizeof hint);
	struct session_options o = {
		.server = rq->server,
		.stdio_cmd = rq->stdio_cmd,
		.cacert = rq->cacert,
		.timeout_ms = (rq->timeout_s > 0 ? rq->timeout_s : 60) * 1000L,
		/* As many handles as runs fetched at once. */
		.max_parallel = kind == SESSION_CATALYST && rq->jobs > 0 ? rq->jobs : 8,
		.pass_stderr = rq->verbose,
		.oauth = &c,
		.progress = rq->progress,
		.progress_ctx = rq->msg_ctx,
	};
	return session_open(&o, kind, e);
}

int audit_login(const struct audit_request *rq, struct err *e)
{
	char hint[1024];
	struct oauth_config c;
	if (check_cacert(rq, e) < 0)
		return -1;
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
	if (!c.client_id && !c.client_metadata_url) {
		err_set(e, ERR_USAGE,
			"login needs --client-id (or --client-metadata-url, where its authorization server takes "
			"client metadata documents): %s accepts only OAuth clients registered in advance (no dynamic "
			"client registration), each with a fixed redirect path. Pass the client id your Catalyst "
			"administrator or Diagrid's documentation gives you, and its --redirect-path if it is not "
			"/callback",
			rq->server);
		goto out;
	}
	/* Issue 19: a script or CI job has nobody to click through a browser;
	 * it would wait for the callback until the timeout. Said at once, with
	 * what to do instead. --no-login stays the session's own refusal. */
	if (!rq->may_prompt && !rq->no_login) {
		err_set(e, ERR_AUTH,
			"login needs a person at a terminal (%s), so no browser was started; in a script or CI "
			"job set CATALYST_TOKEN to an access token instead, or sign in once from a terminal: %s",
			rq->ci ? "CI is set" : "standard input is not a terminal", hint);
		goto out;
	}
	s = oauth_session_new(&c, e);
	if (!s)
		goto out;
	if (oauth_session_login(s, e) < 0)
		goto out;
	audit_notef(rq, "signed in to %s (client %s); tokens stored in %s", rq->server, oauth_session_client_id(s),
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
	bool one = rq->client_id && *rq->client_id;
	if (n >= 0)
		audit_notef(rq, "%s for %s%s%s%s", n ? "stored tokens deleted" : "no stored tokens", rq->server,
			    one ? " (client " : "", one ? rq->client_id : "", one ? ")" : "");
	return n < 0 ? -1 : 0;
}
