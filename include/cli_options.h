#pragma once
/* The command line's vocabulary, for cli.c: every option and command in
 * one table, so the help (general and per command), getopt_long, the
 * config file's keys and which command takes which option cannot drift.
 * cli_options.c holds the table and prints the help from it. */

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "audit.h"

enum {
	OPT_SERVER = 256,
	OPT_STDIO,
	OPT_CACERT,
	OPT_TIMEOUT,
	OPT_JOBS,
	OPT_PROJECT,
	OPT_PROJECT_ID,
	OPT_CONSOLE,
	OPT_FORMAT,
	OPT_JSON,
	OPT_OUTPUT,
	OPT_COLOR,
	OPT_FAIL_ON,
	OPT_VERBOSE_REPORT,
	OPT_FINDINGS_ONLY,
	OPT_ALL_RUNS,
	OPT_DATA_SHARING,
	OPT_PAYLOAD_LIMIT,
	OPT_NO_CHILDREN,
	OPT_APP,
	OPT_WORKFLOW,
	OPT_STATUS,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_LIMIT,
	OPT_CLIENT_ID,
	OPT_REDIRECT_PATH,
	OPT_NO_BROWSER,
	OPT_NO_LOGIN,
	OPT_CONFIG,
	OPT_VERSION,
	OPT_WEB,
	OPT_NO_CHECK,
};

/* The commands an option applies to, as bits of enum audit_command. */
#define ON(c) (1u << (c))
#define ON_REPORT (ON(CMD_RUN) | ON(CMD_RUNS) | ON(CMD_FILE)) /* commands that write an audit report */
#define ON_SERVER (ON(CMD_RUN) | ON(CMD_RUNS) | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS))
#define ON_SIGNIN (ON_SERVER | ON(CMD_LOGIN)) /* may sign in: everything that connects over HTTP */
#define ON_ALL 0xffffu

enum option_group {
	GROUP_CONNECTION,
	GROUP_PROJECT,
	GROUP_OUTPUT,
	GROUP_ANALYSIS,
	GROUP_FILTERS,
	GROUP_SIGNIN,
	GROUP_GENERAL,
	GROUP_COUNT,
};

struct cli_option {
	const char *name;
	char short_name; /* 0: none */
	int has_arg;
	int val;
	const char *metavar;
	const char *help;
	unsigned commands; /* ON() bits: given for another command, it is a usage error */
	enum option_group group;
	bool config; /* also a key of the config file */
};

struct cli_command {
	const char *name;
	enum audit_command cmd; /* CMD_NONE: `help` */
	int min_args, max_args;
	const char *args;    /* after the command word in its usage line */
	const char *summary; /* one line, for the command list */
	const char *description;
	const char *examples[2];
};

/* Room enough for the table (checked where it is defined). */
#define CLI_MAX_OPTIONS 64
#define CLI_MAX_COMMANDS 16

extern const struct cli_option cli_options[];
extern const size_t cli_n_options;
extern const struct cli_command cli_commands[];
extern const size_t cli_n_commands;

/* Lookups in the table; NULL when there is none. */
const struct cli_option *cli_option_by_val(int val);
const struct cli_option *cli_option_by_short(int c);
const struct cli_option *cli_option_by_name(const char *name);
const struct cli_command *cli_command_by_name(const char *word);
/* "runs", "run and runs", "run, runs and file": the commands of bits. */
void cli_command_list(unsigned bits, char *buf, size_t size);
