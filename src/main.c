#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "audit.h"
#include "cli.h"
#include "err.h"
#include "escape.h"
#include "trace.h"

/* Every line this program writes to stderr goes through here. Messages
 * carry outside text (a server's error, a header, a URL, a callback's
 * error_description), so each is neutralised on the way out, in this one
 * place: no error path can forget it. */
static void say(const char *prefix, const char *msg, const char *end)
{
	char *safe = escape_message_dup(msg);
	if (safe) {
		fprintf(stderr, "%s%s%s", prefix, safe, end);
		free(safe);
	} else {
		char cut[512]; /* out of memory: the first part, still neutralised */
		escape_message_into(cut, sizeof cut, msg);
		fprintf(stderr, "%s%s...%s", prefix, cut, end);
	}
}

static void to_stderr(const char *line, void *ctx)
{
	(void)ctx;
	say("", line, "\n");
}

static void warn(const char *msg, void *ctx)
{
	(void)ctx;
	say("catalyst-audit: warning: ", msg, "\n");
}

static void notice(const char *msg, void *ctx)
{
	(void)ctx;
	say("catalyst-audit: ", msg, "\n");
}

static void progress(const char *line, void *ctx)
{
	(void)ctx;
	/* One self-overwriting line; an empty line clears it. */
	say("\r\033[K", line, "");
	fflush(stderr);
}

int main(int argc, char **argv)
{
	struct audit_request rq;
	struct err e;
	err_clear(&e);

	static struct config cfg; /* rq borrows its strings until exit */
	int action = cli_parse(argc, argv, &rq, &cfg, &e);
	if (action < 0) {
		say("catalyst-audit: error: ", e.msg, "\n");
		return ERR_USAGE;
	}
	if (action == CLI_ACTION_HELP) {
		cli_print_help(stdout, rq.command);
		return 0;
	}
	if (action == CLI_ACTION_VERSION) {
		cli_print_version(stdout);
		return 0;
	}
	if (rq.verbose)
		trace_set_sink(to_stderr, NULL);
	rq.warn = warn;
	rq.notice = notice;
	if (isatty(STDERR_FILENO))
		rq.progress = progress;

	int status = audit_execute(&rq, &e);
	if (status < 0) {
		say("catalyst-audit: error: ", e.msg, "\n");
		return e.code ? (int)e.code : ERR_PROTOCOL;
	}
	return status;
}
