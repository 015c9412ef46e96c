#include "console_link.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "curl_lazy.h"

#define DEFAULT_CONSOLE "https://catalyst.diagrid.io"

/* Appends one percent-encoded path segment. "." and ".." are encoded as
 * well: a browser would otherwise resolve them and open another page. */
static int append_segment(struct buf *b, const char *seg, struct err *e)
{
	if (strcmp(seg, ".") == 0)
		return buf_append(b, "%2E", 3, e);
	if (strcmp(seg, "..") == 0)
		return buf_append(b, "%2E%2E", 6, e);
	char *esc = curl_easy_escape(NULL, seg, (int)strlen(seg));
	if (!esc)
		return curl_lazy_fail(e);
	int rc = buf_append(b, esc, strlen(esc), e);
	curl_free(esc);
	return rc;
}

static int check_console(const char *console, size_t len, struct err *e)
{
	bool http = strncmp(console, "https://", 8) == 0 || strncmp(console, "http://", 7) == 0;
	if (!http || memchr(console, '?', len) || memchr(console, '#', len))
		return err_set(e, ERR_USAGE,
			       "--console: expected an http(s) URL without query or fragment, got '%s'", console);
	/* Let libcurl's URL parser judge the rest (host, port, characters). */
	CURLU *u = curl_url();
	if (!u)
		return curl_lazy_fail(e);
	char *copy = strndup(console, len);
	CURLUcode uc = copy ? curl_url_set(u, CURLUPART_URL, copy, 0) : CURLUE_OUT_OF_MEMORY;
	free(copy);
	curl_url_cleanup(u);
	if (uc != CURLUE_OK)
		return err_set(e, ERR_USAGE, "--console: '%s' is not a valid URL: %s", console,
			       curl_url_strerror(uc));
	return 0;
}

char *console_link_run(const char *console, const struct project_ref *p, const char *app_id, const char *run_id,
		       struct err *e)
{
	if (!app_id || !*app_id) {
		err_set(e, ERR_INPUT, "no console link: the app id is unknown");
		return NULL;
	}
	if (!run_id || !*run_id) {
		err_set(e, ERR_INPUT, "no console link: the run id is unknown");
		return NULL;
	}
	if (!console || !*console)
		console = DEFAULT_CONSOLE;
	size_t clen = strlen(console);
	while (clen > 0 && console[clen - 1] == '/')
		clen--;
	if (check_console(console, clen, e) < 0)
		return NULL;

	struct buf b;
	buf_init(&b, 0);
	char *out = NULL;
	if (buf_append(&b, console, clen, e) < 0 || buf_append(&b, "/workflows/", 11, e) < 0 ||
	    append_segment(&b, app_id, e) < 0 || buf_append(&b, "/", 1, e) < 0 ||
	    append_segment(&b, run_id, e) < 0)
		goto out;
	if (p && p->value && (p->form == PROJECT_NAME || p->form == PROJECT_UID)) {
		const char *param = p->form == PROJECT_NAME ? "?project=" : "?projectId=";
		if (buf_append(&b, param, strlen(param), e) < 0 || append_segment(&b, p->value, e) < 0)
			goto out;
	}
	out = buf_steal(&b, NULL);
	if (!out)
		err_oom(e);
out:
	buf_finish(&b);
	return out;
}
