#pragma once
/* The --verbose protocol trace. Library modules never print: they hand trace
 * lines to a sink the CLI installs (stderr), or to nothing. Everything that
 * may hold a secret goes through trace_redact_* first. */

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"

typedef void (*trace_sink_fn)(const char *line, void *ctx);

void trace_set_sink(trace_sink_fn fn, void *ctx);
bool trace_enabled(void);
/* One line of trace, prefixed by the caller's channel ("http", "stdio", ...),
 * outside text in it neutralised (escape_message). */
void trace_printf(const char *channel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The bytes of a body trace_body shows; the rest is counted. */
#define TRACE_BODY_MAX 4096
/* Trace a protocol body (JSON text): bounded in length, line breaks and
 * other C0 controls shown as spaces, values of secret-looking keys replaced
 * by "<redacted>". */
void trace_body(const char *channel, const char *direction, const char *body, size_t len);
/* Returns a malloc'd copy of one "Name: value" HTTP header line with the
 * value redacted when the header can carry a credential. */
char *trace_redact_header(const char *line);
/* Appends text (n bytes) to out with the values of token-like keys
 * ("access_token", "refresh_token", "code", "code_verifier", "id_token",
 * "client_secret", "password", "authorization", "token", ...) in JSON or
 * form text replaced by "<redacted>", whatever their length. */
int trace_redact(struct buf *out, const char *text, size_t n, struct err *e);
/* The same, malloc'd (NULL when memory ran out). */
char *trace_redact_dup(const char *text);
