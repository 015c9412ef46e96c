/* OAuth's own HTTP: the metadata GETs, the token endpoint POSTs and the
 * unauthenticated probe for a challenge. One plain libcurl exchange each,
 * no redirects, every URL checked by oauth_url_check first; bodies may
 * carry secrets, so they are traced redacted and kept in zeroed buffers.
 * MCP traffic never comes here: it goes through the transport. */

#include "oauth_internal.h"

#include <curl/curl.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "http_easy.h"
#include "trace.h"
#include "version.h"

#define OAUTH_BODY_MAX ((size_t)1 << 20)

void oauth_http_answer_finish(struct oauth_http_answer *a)
{
	buf_finish_secure(&a->body);
	free(a->www_authenticate);
	a->www_authenticate = NULL;
}

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct oauth_http_answer *a = ctx;
	if (buf_append(&a->body, p, size * n, &a->write_err) < 0)
		return 0;
	return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	struct oauth_http_answer *a = ctx;
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

int oauth_http_exchange(const struct oauth_session *s, const char *url, const char *what,
			enum oauth_body_kind kind, const char *body, const char *basic,
			struct oauth_http_answer *a, struct err *e)
{
	memset(a, 0, sizeof *a);
	buf_init(&a->body, OAUTH_BODY_MAX);
	/* Every request, whatever led to it (metadata, a stored token
	 * endpoint): nothing is sent before the rule has passed. */
	if (oauth_url_check(url, what, e) < 0)
		return -1;
	CURL *c = curl_easy_init();
	if (!c)
		return err_oom(e);
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hs = NULL;
	hs = curl_slist_append(hs, kind == OAUTH_BODY_JSON ? "Accept: application/json, text/event-stream"
							   : "Accept: application/json");
	if (kind == OAUTH_BODY_FORM)
		hs = curl_slist_append(hs, "Content-Type: application/x-www-form-urlencoded");
	else if (kind == OAUTH_BODY_JSON)
		hs = curl_slist_append(hs, "Content-Type: application/json");
	long timeout = s->cfg.timeout_ms > 0 ? s->cfg.timeout_ms : 30000;
	http_easy_setup(c, &(struct http_easy_options){.url = url,
						       .cacert = s->cfg.cacert,
						       .connect_timeout_ms = timeout < 10000 ? timeout : 10000L,
						       .timeout_ms = timeout,
						       .errbuf = errbuf});
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hs);
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
