#include "trace.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static trace_sink_fn sink;
static void *sink_ctx;
/* Trace lines come from several worker threads during `runs`. */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;

#define TRACE_BODY_MAX 4096

void trace_set_sink(trace_sink_fn fn, void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

bool trace_enabled(void)
{
	return sink != NULL;
}

static void emit(const char *line)
{
	pthread_mutex_lock(&sink_lock);
	if (sink)
		sink(line, sink_ctx);
	pthread_mutex_unlock(&sink_lock);
}

void trace_printf(const char *channel, const char *fmt, ...)
{
	if (!sink)
		return;
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	char *line = NULL;
	if (asprintf(&line, "[%s] %s", channel, msg) < 0) {
		free(msg);
		return;
	}
	free(msg);
	/* Server text reaches a terminal here: neutralise control bytes. */
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	emit(line);
	free(line);
}

static const char *const secret_keys[] = {
	"access_token",  "refresh_token", "id_token", "code_verifier", "code",   "client_secret", "password",
	"authorization", "token",         "apiToken", "appToken",      "apiKey", "privateKey",    "clientSecret",
};

static bool is_secret_key(const char *k, size_t n)
{
	for (size_t i = 0; i < sizeof secret_keys / sizeof *secret_keys; i++)
		if (strlen(secret_keys[i]) == n && strncasecmp(secret_keys[i], k, n) == 0)
			return true;
	return false;
}

/* Overwrites the value that follows a secret key, in JSON ("key": "v") or
 * form (key=v&) text. The replacement is never longer than the original, so
 * it works in place; short values are starred out to the same length. */
void trace_redact_inplace(char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++) {
		bool json = s[i] == '"';
		bool form = isalpha((unsigned char)s[i]) && (i == 0 || s[i - 1] == '&' || s[i - 1] == '?');
		if (!json && !form)
			continue;
		size_t ks = json ? i + 1 : i, ke = ks;
		while (ke < n && (isalnum((unsigned char)s[ke]) || s[ke] == '_' || s[ke] == '-'))
			ke++;
		if (!is_secret_key(s + ks, ke - ks))
			continue;
		size_t v = ke;
		if (json) {
			if (v >= n || s[v] != '"')
				continue;
			v++;
			while (v < n && isspace((unsigned char)s[v]))
				v++;
			if (v >= n || s[v] != ':')
				continue;
			v++;
			while (v < n && isspace((unsigned char)s[v]))
				v++;
			if (v >= n || s[v] != '"')
				continue;
			size_t start = ++v;
			while (v < n && s[v] != '"') {
				if (s[v] == '\\' && v + 1 < n)
					v++;
				v++;
			}
			for (size_t j = start; j < v; j++)
				s[j] = '*';
			i = v;
		} else {
			if (v >= n || s[v] != '=')
				continue;
			size_t start = ++v;
			while (v < n && s[v] != '&' && s[v] != ' ')
				v++;
			for (size_t j = start; j < v; j++)
				s[j] = '*';
			i = v;
		}
	}
}

void trace_body(const char *channel, const char *direction, const char *body, size_t len)
{
	if (!sink)
		return;
	size_t shown = len < TRACE_BODY_MAX ? len : TRACE_BODY_MAX;
	char *copy = malloc(shown + 1);
	if (!copy)
		return;
	memcpy(copy, body, shown);
	copy[shown] = '\0';
	for (size_t i = 0; i < shown; i++)
		if ((unsigned char)copy[i] < 0x20 || copy[i] == 0x7f)
			copy[i] = ' ';
	trace_redact_inplace(copy);
	if (shown < len)
		trace_printf(channel, "%s %s ... (%zu bytes in all)", direction, copy, len);
	else
		trace_printf(channel, "%s %s", direction, copy);
	free(copy);
}

char *trace_redact_header(const char *line)
{
	const char *colon = strchr(line, ':');
	size_t name_len = colon ? (size_t)(colon - line) : strlen(line);
	static const char *const secret_headers[] = {"authorization", "proxy-authorization", "cookie",
						     "set-cookie"};
	for (size_t i = 0; colon && i < sizeof secret_headers / sizeof *secret_headers; i++) {
		if (strlen(secret_headers[i]) == name_len && strncasecmp(line, secret_headers[i], name_len) == 0) {
			/* Keep the scheme ("Bearer") so a reader sees which kind was sent. */
			const char *v = colon + 1;
			while (*v == ' ')
				v++;
			const char *sp = strchr(v, ' ');
			size_t scheme = sp ? (size_t)(sp - v) : 0;
			size_t out_len = name_len + 2 + scheme + 1 + 10 + 1;
			char *out = malloc(out_len);
			if (!out)
				return NULL;
			snprintf(out, out_len, "%.*s: %.*s%s<redacted>", (int)name_len, line, (int)scheme, v,
				 scheme ? " " : "");
			return out;
		}
	}
	return strdup(line);
}
