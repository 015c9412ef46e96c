/* The libcurl options every transfer of ours must have. */

#include "http_easy.h"

#include "curl_lazy.h"
#include "version.h"

int http_easy_check_url(const char *url, const char *what, struct err *e)
{
	CURLU *u = curl_url();
	if (!u)
		return curl_lazy_fail(e);
	char *user = NULL, *password = NULL;
	int rc = 0;
	if (curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
		curl_url_get(u, CURLUPART_USER, &user, 0);
		curl_url_get(u, CURLUPART_PASSWORD, &password, 0);
		if (user || password)
			rc = err_set(
				e, ERR_USAGE,
				"%s: the server URL carries user information before the host (user@ or "
				"user:password@): refused; sign in with `catalyst-audit login` or CATALYST_TOKEN",
				what);
	}
	curl_free(user);
	curl_free(password);
	curl_url_cleanup(u);
	return rc;
}

void http_easy_setup(CURL *h, const struct http_easy_options *o)
{
	curl_easy_setopt(h, CURLOPT_URL, o->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	/* libcurl's own refusal too, should a URL ever get here unchecked */
	curl_easy_setopt(h, CURLOPT_DISALLOW_USERNAME_IN_URL, 1L);
	/* Threads: libcurl may not use signals (SIGALRM for DNS timeouts). */
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, o->cacert);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "catalyst-audit/" CATALYST_AUDIT_VERSION);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, o->errbuf);
}
