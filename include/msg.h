#pragma once
/* What this program says on stderr, for the CLI layer only (main.c, and
 * the callbacks it hands the library through the request): one format,
 * `catalyst-audit: error: <what>: <detail>`. Messages carry outside text (a
 * server's error, a header, a URL, a callback's error_description), so each
 * is neutralised on the way out, here: no error path can forget it. */

void msg_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_notef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One self-overwriting line (for a terminal: the caller knows); "" clears it. */
void msg_progress(const char *line);
/* A line as it is, but neutralised (the protocol trace under --verbose). */
void msg_line(const char *line);

/* The same in the shape of the request's callbacks and trace's sink (ctx
 * is not used). */
void msg_warn_sink(const char *msg, void *ctx);
void msg_note_sink(const char *msg, void *ctx);
void msg_progress_sink(const char *line, void *ctx);
void msg_line_sink(const char *line, void *ctx);
