#pragma once
/* Command-line parsing: options and commands from one table, so --help and
 * the parser cannot drift. Fills an audit_request; never runs anything. */

#include <stdio.h>

#include "audit.h"
#include "err.h"

enum cli_action {
	CLI_ACTION_RUN = 0, /* execute the request */
	CLI_ACTION_HELP,    /* --help was asked for: usage printed, exit 0 */
	CLI_ACTION_VERSION, /* --version */
};

/* Parses argv into rq (strings borrowed from argv/environ). Returns the
 * action, or -1 with ERR_USAGE in e. */
int cli_parse(int argc, char **argv, struct audit_request *rq, struct err *e);
void cli_print_usage(FILE *out);
void cli_print_version(FILE *out);
