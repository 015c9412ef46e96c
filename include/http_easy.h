#pragma once
/* What every HTTP transfer of ours sets, the MCP transport's and sign-in's
 * alike, so the two cannot drift: only http and https, no redirect
 * followed, no user name taken from a URL, TLS always verified (a private
 * CA added, never a bypass), both deadlines, no signals (threads), our
 * user agent, libcurl's error text kept. Each caller adds its own
 * callbacks, limits and HTTP version. */

#include <curl/curl.h>

struct http_easy_options {
	const char *url;
	const char *cacert; /* NULL: the system store */
	long connect_timeout_ms;
	long timeout_ms;
	char *errbuf; /* CURL_ERROR_SIZE bytes, or NULL */
};

void http_easy_setup(CURL *h, const struct http_easy_options *o);

#include "err.h"

/* A server URL (what: where it came from, "--server", "CATALYST_MCP_URL",
 * the config's file:line) with user information before the host
 * (http://user:pass@host/mcp) is refused, ERR_USAGE, without echoing it:
 * a password there would be repeated in every connection error, and the
 * token goes to that server. 0 otherwise (other faults are the
 * transport's to report). */
int http_easy_check_url(const char *url, const char *what, struct err *e);
