/* libcurl, loaded the first time a command uses it.
 *
 * Linking libcurl maps it and the 29 libraries it needs (OpenSSL, GnuTLS
 * through librtmp, Kerberos, LDAP, ...) and relocates them all before
 * main: 4.7 MB of resident memory for every process, `file` included,
 * which never makes a transfer. So the binary is not linked against it:
 * this file defines the libcurl functions the code calls, with libcurl's
 * own prototypes (the compiler checks them against curl.h), and each
 * forwards to libcurl, opened with dlopen on the first call. A command
 * that reaches a server loads it in process_network_setup; `file` loads
 * it only to check a console link's base URL.
 *
 * If libcurl cannot be loaded, every function fails the way it documents
 * failure (NULL, an error code), and the strerror functions give the
 * reason, so the caller's own error message says what is missing. A
 * libcurl function called anywhere else must be added here: until it is,
 * the link fails. */
#define CURL_DISABLE_TYPECHECK /* the definitions below are the functions */
#include <curl/curl.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "curl_lazy.h"
#include "version.h" /* CATALYST_LIBCURL_SONAME, meson's libcurl_soname */

/* The functions called, each defined below. */
/* clang-format off */
#define CURL_LAZY_FUNCTIONS(X) \
	X(global_init) X(global_cleanup) X(easy_init) X(easy_setopt) X(easy_perform) \
	X(easy_getinfo) X(easy_reset) X(easy_cleanup) X(easy_strerror) X(easy_escape) \
	X(easy_unescape) X(free) X(getdate) X(multi_init) X(multi_add_handle) \
	X(multi_remove_handle) X(multi_perform) X(multi_poll) X(multi_info_read) \
	X(multi_cleanup) X(share_init) X(share_setopt) X(share_cleanup) \
	X(slist_append) X(slist_free_all) X(url) X(url_get) X(url_set) X(url_strerror) \
	X(url_cleanup) X(version_info)
/* clang-format on */

static struct {
#define X(name) __typeof__(curl_##name) *name;
	CURL_LAZY_FUNCTIONS(X)
#undef X
} fn;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[320];

static void load(void)
{
	/* RTLD_LAZY: each library binds as it was built to (libcurl itself
	 * with BIND_NOW), as when it was linked; RTLD_NOW bound all 30 at
	 * once and made `tools` 10% and --version 11% slower. */
	void *lib = dlopen(CATALYST_LIBCURL_SONAME, RTLD_LAZY | RTLD_LOCAL);
	if (!lib) {
		const char *d = dlerror();
		snprintf(why, sizeof why, "libcurl could not be loaded: %s", d ? d : CATALYST_LIBCURL_SONAME);
		return;
	}
	void *p;
	/* memcpy: ISO C has no conversion from void * to a function pointer. */
#define X(name)                                                                                 \
	if (!(p = dlsym(lib, "curl_" #name))) {                                                 \
		snprintf(why, sizeof why, "libcurl could not be loaded: %s has no curl_" #name, \
			 CATALYST_LIBCURL_SONAME);                                              \
		return;                                                                         \
	}                                                                                       \
	memcpy(&fn.name, &p, sizeof p);
	CURL_LAZY_FUNCTIONS(X)
#undef X
	loaded = true;
}

static bool have(void)
{
	pthread_once(&load_once, load);
	return loaded;
}

const char *curl_lazy_error(void)
{
	return have() ? NULL : why;
}

int curl_lazy_fail(struct err *e)
{
	return have() ? err_oom(e) : err_set(e, ERR_INTERNAL, "%s", why);
}

CURLcode curl_global_init(long flags)
{
	return have() ? fn.global_init(flags) : CURLE_FAILED_INIT;
}

/* Never loads libcurl only to clean it up. */
void curl_global_cleanup(void)
{
	if (loaded)
		fn.global_cleanup();
}

CURL *curl_easy_init(void)
{
	return have() ? fn.easy_init() : NULL;
}

/* The option's number says its argument's type (curl.h's CURLOPTTYPE_*
 * ranges), exactly as libcurl reads it back. */
CURLcode curl_easy_setopt(CURL *h, CURLoption option, ...)
{
	if (!have())
		return CURLE_FAILED_INIT;
	va_list ap;
	va_start(ap, option);
	CURLcode c;
	if (option < CURLOPTTYPE_OBJECTPOINT)
		c = fn.easy_setopt(h, option, va_arg(ap, long));
	else if (option < CURLOPTTYPE_FUNCTIONPOINT)
		c = fn.easy_setopt(h, option, va_arg(ap, void *));
	else if (option < CURLOPTTYPE_OFF_T)
		c = fn.easy_setopt(h, option, va_arg(ap, void (*)(void)));
	else if (option < CURLOPTTYPE_BLOB)
		c = fn.easy_setopt(h, option, va_arg(ap, curl_off_t));
	else
		c = fn.easy_setopt(h, option, va_arg(ap, void *));
	va_end(ap);
	return c;
}

CURLcode curl_easy_perform(CURL *h)
{
	return have() ? fn.easy_perform(h) : CURLE_FAILED_INIT;
}

/* Every CURLINFO_* takes a pointer to where the answer goes. */
CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
	if (!have())
		return CURLE_FAILED_INIT;
	va_list ap;
	va_start(ap, info);
	CURLcode c = fn.easy_getinfo(h, info, va_arg(ap, void *));
	va_end(ap);
	return c;
}

/* A handle exists only once libcurl is loaded: none of the functions
 * given one loads it for a NULL one. */
void curl_easy_reset(CURL *h)
{
	if (h && have())
		fn.easy_reset(h);
}

void curl_easy_cleanup(CURL *h)
{
	if (h && have())
		fn.easy_cleanup(h);
}

const char *curl_easy_strerror(CURLcode c)
{
	return have() ? fn.easy_strerror(c) : why;
}

char *curl_easy_escape(CURL *h, const char *s, int n)
{
	return have() ? fn.easy_escape(h, s, n) : NULL;
}

char *curl_easy_unescape(CURL *h, const char *s, int n, int *out_len)
{
	return have() ? fn.easy_unescape(h, s, n, out_len) : NULL;
}

void curl_free(void *p)
{
	if (p && have())
		fn.free(p);
}

time_t curl_getdate(const char *s, const time_t *unused)
{
	return have() ? fn.getdate(s, unused) : (time_t)-1;
}

CURLM *curl_multi_init(void)
{
	return have() ? fn.multi_init() : NULL;
}

CURLMcode curl_multi_add_handle(CURLM *m, CURL *h)
{
	return have() ? fn.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h)
{
	return have() ? fn.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_perform(CURLM *m, int *running)
{
	return have() ? fn.multi_perform(m, running) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd extra[], unsigned int n_extra, int timeout_ms, int *ret)
{
	return have() ? fn.multi_poll(m, extra, n_extra, timeout_ms, ret) : CURLM_INTERNAL_ERROR;
}

CURLMsg *curl_multi_info_read(CURLM *m, int *left)
{
	return have() ? fn.multi_info_read(m, left) : NULL;
}

CURLMcode curl_multi_cleanup(CURLM *m)
{
	return m && have() ? fn.multi_cleanup(m) : CURLM_BAD_HANDLE;
}

CURLSH *curl_share_init(void)
{
	return have() ? fn.share_init() : NULL;
}

/* As libcurl reads them: CURLSHOPT_SHARE and _UNSHARE an int, the lock
 * functions function pointers, the user data a pointer. */
CURLSHcode curl_share_setopt(CURLSH *s, CURLSHoption option, ...)
{
	if (!have())
		return CURLSHE_NOT_BUILT_IN;
	va_list ap;
	va_start(ap, option);
	CURLSHcode c;
	switch (option) {
	case CURLSHOPT_SHARE:
	case CURLSHOPT_UNSHARE:
		c = fn.share_setopt(s, option, va_arg(ap, int));
		break;
	case CURLSHOPT_LOCKFUNC:
	case CURLSHOPT_UNLOCKFUNC:
		c = fn.share_setopt(s, option, va_arg(ap, void (*)(void)));
		break;
	default:
		c = fn.share_setopt(s, option, va_arg(ap, void *));
		break;
	}
	va_end(ap);
	return c;
}

CURLSHcode curl_share_cleanup(CURLSH *s)
{
	return s && have() ? fn.share_cleanup(s) : CURLSHE_INVALID;
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *s)
{
	return have() ? fn.slist_append(list, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *list)
{
	if (list && have())
		fn.slist_free_all(list);
}

CURLU *curl_url(void)
{
	return have() ? fn.url() : NULL;
}

#if CATALYST_CURL_URL_GET_CONST
CURLUcode curl_url_get(const CURLU *u, CURLUPart part, char **out, unsigned int flags)
#else
CURLUcode curl_url_get(CURLU *u, CURLUPart part, char **out, unsigned int flags)
#endif
{
	return have() ? fn.url_get(u, part, out, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLUcode curl_url_set(CURLU *u, CURLUPart part, const char *content, unsigned int flags)
{
	return have() ? fn.url_set(u, part, content, flags) : CURLUE_OUT_OF_MEMORY;
}

const char *curl_url_strerror(CURLUcode c)
{
	return have() ? fn.url_strerror(c) : why;
}

void curl_url_cleanup(CURLU *u)
{
	if (u && have())
		fn.url_cleanup(u);
}

curl_version_info_data *curl_version_info(CURLversion v)
{
	return have() ? fn.version_info(v) : NULL;
}
