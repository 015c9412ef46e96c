#include <stdio.h>
#include <unistd.h>

#include "audit.h"
#include "cli.h"
#include "err.h"
#include "trace.h"

static void to_stderr(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

static void warn(const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "catalyst-audit: warning: %s\n", msg);
}

static void progress(const char *line, void *ctx)
{
	(void)ctx;
	/* One self-overwriting line; an empty line clears it. */
	fprintf(stderr, "\r\033[K%s", line);
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
		fprintf(stderr, "catalyst-audit: error: %s\n", e.msg);
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
	if (isatty(STDERR_FILENO))
		rq.progress = progress;

	int status = audit_execute(&rq, &e);
	if (status < 0) {
		fprintf(stderr, "catalyst-audit: error: %s\n", e.msg);
		return e.code ? (int)e.code : ERR_PROTOCOL;
	}
	return status;
}
