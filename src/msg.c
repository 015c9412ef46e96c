#include "msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "escape.h"
#include "secret.h"

/* Every line this program writes to stderr goes through here. */
static void say(const char *prefix, const char *text, const char *end)
{
	/* Outside text may carry a token in use (a server echoing it). */
	char *msg = secret_redact_dup(text);
	if (!msg) {
		fprintf(stderr, "%s(out of memory)%s", prefix, end);
		return;
	}
	char *safe = escape_message_dup(msg);
	if (safe) {
		fprintf(stderr, "%s%s%s", prefix, safe, end);
		free(safe);
	} else {
		char cut[512]; /* out of memory: the first part, still neutralised */
		escape_message_into(cut, sizeof cut, msg);
		fprintf(stderr, "%s%s...%s", prefix, cut, end);
	}
	free(msg);
}

static void sayv(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0) {
		say(prefix, "(out of memory)", "\n");
		return;
	}
	say(prefix, msg, "\n");
	free(msg);
}

void msg_errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sayv("catalyst-audit: error: ", fmt, ap);
	va_end(ap);
}

void msg_warnf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sayv("catalyst-audit: warning: ", fmt, ap);
	va_end(ap);
}

void msg_notef(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sayv("catalyst-audit: ", fmt, ap);
	va_end(ap);
}

void msg_progress(const char *line)
{
	say("\r\033[K", line, "");
	fflush(stderr);
}

void msg_line(const char *line)
{
	say("", line, "\n");
}

void msg_warn_sink(const char *msg, void *ctx)
{
	(void)ctx;
	msg_warnf("%s", msg);
}

void msg_note_sink(const char *msg, void *ctx)
{
	(void)ctx;
	msg_notef("%s", msg);
}

void msg_progress_sink(const char *line, void *ctx)
{
	(void)ctx;
	msg_progress(line);
}

void msg_line_sink(const char *line, void *ctx)
{
	(void)ctx;
	msg_line(line);
}
