#pragma once
/* Command-line parsing: options and commands from one table
 * (cli_options.c), so the help (general and per command) and the parser
 * cannot drift. Resolves the command line, the environment, the config
 * file and the terminal into an audit_request; never runs anything.
 * Library code reads none of these itself. */

#include <stdio.h>

#include "audit.h"
#include "config.h"
#include "err.h"

enum cli_action {
	CLI_ACTION_RUN = 0, /* execute the request */
	CLI_ACTION_HELP,    /* help asked for (--help, -h, `help [COMMAND]`): print it, exit 0 */
	CLI_ACTION_VERSION, /* --version */
};

/* Parses argv into rq. Precedence, highest first: the command line, the
 * environment (CATALYST_MCP_URL, CATALYST_PROJECT, CATALYST_PROJECT_ID), the
 * config file (--config, else CATALYST_AUDIT_CONFIG, else the XDG path),
 * the built-in defaults. The terminal and the rest of the environment are
 * read here too, once: --color auto settled (NO_COLOR, TERM=dumb, whether
 * stdout or --output is a terminal), rq->may_prompt (stdin a terminal, CI
 * unset), rq->login_timeout_s (CATALYST_LOGIN_TIMEOUT). cfg is
 * initialised here and holds the config file's values, which rq borrows
 * (as it borrows from argv and environ): keep it until rq is done with,
 * then config_finish() it (also after an error). With CLI_ACTION_HELP, rq->command names the command whose help
 * was asked for (CMD_NONE: the usage summary). Returns the action, or -1
 * with ERR_USAGE in e. */
int cli_parse(int argc, char **argv, struct audit_request *rq, struct config *cfg, struct err *e);
/* The usage summary (cmd CMD_NONE), or one command's usage, options and
 * examples. */
void cli_print_help(FILE *out, enum audit_command cmd);
void cli_print_version(FILE *out);
