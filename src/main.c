/* The program: set up the process, parse the command line into a request,
 * run it, turn the outcome into the exit status. The CLI layer owns the
 * terminal: every line on stderr goes through msg. */

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "cli.h"
#include "cli_complete.h"
#include "err.h"
#include "msg.h"
#include "process.h"
#include "secret.h"
#include "trace.h"

/* run --follow: Ctrl-C or SIGTERM ends the follow with the verdict so
 * far (the loop reads the flag between readings and while it waits). */
static volatile sig_atomic_t stop_follow;

static void on_stop(int sig)
{
	(void)sig;
	stop_follow = 1;
}

static void catch_stop(struct audit_request *rq)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a wait in progress returns at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rq->stop = &stop_follow;
}

static int run(int argc, char **argv)
{
	struct audit_request rq;
	struct err e;
	err_clear(&e);

	/* The shells' completions ask here (hidden from --help): before
	 * anything is parsed, as the words are a line still being typed. */
	if (argc >= 2 && strcmp(argv[1], "__complete") == 0) {
		/* libcurl's start before any thread; failing, nothing is completed */
		if (process_network_setup(&e) < 0)
			return 0;
		return cli_complete(argc - 2, argv + 2);
	}

	static struct config cfg; /* rq borrows its strings until exit */
	int action = cli_parse(argc, argv, &rq, &cfg, &e);
	if (action < 0) {
		msg_errorf("%s", e.msg);
		/* Out of memory, or libcurl missing (--server is checked with
		 * it): not the user's words. */
		return e.code == ERR_INTERNAL ? ERR_INTERNAL : ERR_USAGE;
	}
	if (action == CLI_ACTION_HELP) {
		cli_print_help(stdout, rq.command);
		return 0;
	}
	if (action == CLI_ACTION_VERSION) {
		cli_print_version(stdout);
		return 0;
	}
	secret_add(rq.env_token);
	/* Only the commands that never reach a server skip libcurl's start. */
	if (rq.command != CMD_FILE && rq.command != CMD_REVIEW && process_network_setup(&e) < 0) {
		msg_errorf("%s", e.msg);
		return e.code;
	}
	if (rq.command == CMD_RUNS || rq.command == CMD_STATS || rq.command == CMD_FILE)
		process_malloc_setup();
	if (rq.verbose)
		trace_set_sink(msg_line_sink, NULL);
	/* -q: errors and the report stay; the sign-in address stays too, as
	 * login cannot go on without it. */
	rq.warn = rq.quiet ? NULL : msg_warn_sink;
	rq.notice = rq.quiet && rq.command != CMD_LOGIN ? NULL : msg_note_sink;
	if (isatty(STDERR_FILENO) && !rq.quiet)
		rq.progress = msg_progress_sink;
	if (rq.follow) {
		catch_stop(&rq);
		rq.live = !rq.output_file && isatty(STDOUT_FILENO);
	}

	int status = audit_execute(&rq, &e);
	if (status < 0) {
		msg_errorf("%s", e.msg);
		return e.code ? (int)e.code : ERR_PROTOCOL;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct err e;
	err_clear(&e);
	if (process_setup(&e) < 0) {
		msg_errorf("%s", e.msg);
		return e.code;
	}
	int status = run(argc, argv);
	process_teardown();
	return status;
}
