#include "trace.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "escape.h"
#include "secret.h"

static trace_sink_fn sink;
static void *sink_ctx;
/* Trace lines come from several worker threads during `runs`. */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;

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
	/* Server text reaches a terminal here: tokens in use redacted and the
	 * rest neutralised, as in every stderr message (the CLI's sink does
	 * both again; that changes nothing). */
	char *clean = secret_redact_dup(line);
	free(line);
	char *safe = clean ? escape_message_dup(clean) : NULL;
	free(clean);
	if (safe)
		emit(safe);
	free(safe);
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

#define REDACTED "<redacted>"

/* Copies s to out with the value that follows each secret key, in JSON
 * ("key": "v"), form (key=v&) or log text (`... key=v`, `key: v`,
 * `key="v"`, `Authorization: Bearer v`), replaced by one fixed REDACTED:
 * nothing of the secret shows, not even its length. */
int trace_redact(struct buf *out, const char *s, size_t n, struct err *e)
{
	size_t copied = 0; /* s[0, copied) is in out */
	for (size_t i = 0; i < n; i++) {
		bool json = s[i] == '"';
		bool form = isalpha((unsigned char)s[i]) && (i == 0 || strchr("&? \t,;([{-", s[i - 1]) != NULL);
		if (!json && !form)
			continue;
		size_t ks = json ? i + 1 : i, ke = ks;
		while (ke < n && (isalnum((unsigned char)s[ke]) || s[ke] == '_' || s[ke] == '-'))
			ke++;
		if (!is_secret_key(s + ks, ke - ks))
			continue;
		size_t v = ke, start;
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
			start = ++v;
			while (v < n && s[v] != '"') {
				if (s[v] == '\\' && v + 1 < n)
					v++;
				v++;
			}
		} else {
			if (v >= n || (s[v] != '=' && s[v] != ':'))
				continue;
			v++;
			while (v < n && (s[v] == ' ' || s[v] == '\t'))
				v++;
			/* "Bearer X", "Basic X": the credential is the word after */
			size_t scheme = n - v > 7 && strncasecmp(s + v, "Bearer ", 7) == 0  ? 7
					: n - v > 6 && strncasecmp(s + v, "Basic ", 6) == 0 ? 6
											    : 0;
			for (v += scheme; scheme && v < n && s[v] == ' ';)
				v++;
			bool quoted = v < n && s[v] == '"';
			start = quoted ? ++v : v;
			while (v < n && (quoted ? s[v] != '"' : !strchr("& \t,;)]}", s[v])))
				v++;
		}
		if (buf_append(out, s + copied, start - copied, e) < 0 ||
		    buf_append(out, REDACTED, sizeof REDACTED - 1, e) < 0)
			return -1;
		copied = v < n ? v : n;
		i = v;
	}
	if (buf_append(out, s + copied, n - copied, e) < 0)
		return -1;
	return 0;
}

char *trace_redact_dup(const char *s)
{
	struct buf b;
	buf_init(&b, 0);
	if (trace_redact(&b, s, strlen(s), NULL) < 0) {
		buf_finish(&b);
		return NULL;
	}
	return buf_steal(&b, NULL);
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
	/* Line breaks and the like in a body read as spaces on one line. */
	for (size_t i = 0; i < shown; i++)
		if ((unsigned char)copy[i] < 0x20 || copy[i] == 0x7f)
			copy[i] = ' ';
	char *redacted = trace_redact_dup(copy);
	free(copy);
	if (!redacted)
		return;
	if (shown < len)
		trace_printf(channel, "%s %s ... (%zu bytes in all)", direction, redacted, len);
	else
		trace_printf(channel, "%s %s", direction, redacted);
	free(redacted);
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
