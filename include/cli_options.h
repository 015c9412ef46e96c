#pragma once
/* The command line's vocabulary, for cli.c: every option and command is
 * one row of a table, so the help (general and per command), getopt_long,
 * the config file's keys, the environment variables, which command takes
 * which option and where each value goes cannot drift. An option's row
 * names the field it sets (offsetof) and the setter that parses into it,
 * as José's command tables do (latchset/jose cmd/jose.h, struct jcmd_cfg):
 * a new option is one row. cli_options.c holds the tables and prints the
 * help from them; cli_set.c holds the setters. */

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "audit.h"
#include "render.h"

/* The commands an option applies to, as bits of enum audit_command. */
#define ON(c) (1u << (c))
#define ON_REPORT (ON(CMD_RUN) | ON(CMD_RUNS) | ON(CMD_FILE)) /* commands that write an audit report */
#define ON_SERVER (ON(CMD_RUN) | ON(CMD_RUNS) | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS) | ON(CMD_STATS))
#define ON_LISTING (ON(CMD_RUNS) | ON(CMD_STATS)) /* the run listing's filters */
#define ON_SIGNIN (ON_SERVER | ON(CMD_LOGIN))     /* may sign in: everything that connects over HTTP */
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

/* Where a value came from; a higher level wins. */
enum cli_level {
	LEVEL_CONFIG = 0,
	LEVEL_ENV,
	LEVEL_LINE,
	LEVEL_COUNT,
};

/* A value kept per level, with its label for messages ("--project",
 * "CATALYST_PROJECT", "/home/u/.config/catalyst-audit/config:3: project"). */
struct cli_level_value {
	const char *value;
	char label[300];
};

/* What the options set: the request, and what is resolved after every
 * level has been read (the project, which format the command line asked
 * for). The rows' offsets are into this. */
struct cli_values {
	struct audit_request rq;
	struct cli_level_value project[LEVEL_COUNT], project_id[LEVEL_COUNT];
	bool line_format_set;
	enum render_format line_format;
	char line_format_label[16];
};

/* Offsets for a row's .at: a field of the request, or of cli_values. */
#define RQ(field) offsetof(struct cli_values, rq.field)
#define CV(field) offsetof(struct cli_values, field)

struct cli_option;

/* Where a setter is called from: the values, the level and the label
 * that names the value in messages. */
struct cli_at {
	struct cli_values *v;
	enum cli_level level;
	const char *label;
};

/* Parses value (a flag's row .value when it takes none) into field (the
 * row's .at in at->v). 0, or -1 with ERR_USAGE in e. */
typedef int cli_setter(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		       struct err *e);

/* One word of a choice and the enum value it sets (an int-sized enum). */
struct cli_choice {
	const char *name;
	int value;
};

/* What the shell completions ask the server for after an option
 * (`__complete`, cli_complete.c): the names only it knows. */
enum cli_remote {
	CLI_REMOTE_NONE = 0,
	CLI_REMOTE_PROJECT, /* the projects the signed-in user sees */
	CLI_REMOTE_APP,     /* the apps of the project */
};

/* The options cli_parse reads itself, before any value is set. */
enum cli_special {
	CLI_VALUE = 0, /* set through .set */
	CLI_HELP,
	CLI_VERSION,
	CLI_CONFIG,
};

struct cli_option {
	const char *name;
	char short_name;         /* 0: none */
	const char *metavar;     /* NULL: a flag, which takes no value */
	const char *help;        /* after the choices, when the row has them */
	unsigned commands;       /* ON() bits: given for another command, it is a usage error */
	enum option_group group; /* where the usage summary lists it */
	bool config;             /* also a key of the config file */
	const char *env;         /* also read from this environment variable (set but empty: unset) */
	cli_setter *set;
	size_t at;                        /* RQ(field) or CV(field): what set writes */
	const char *value;                /* a flag's value for set ("json" for --json) */
	const struct cli_choice *choices; /* the words it takes, {NULL}-ended: cli_set_choice's
					   * values; with another setter, words the help and the
					   * completions offer and the setter's reader checks */
	long min, max;                    /* cli_set_long, cli_set_int, cli_set_size: the range */
	enum cli_special special;
	enum cli_remote remote; /* its values completed from the server */
};

/* The setters a row may name (cli_set.c). */
cli_setter cli_set_string;    /* const char *: the value as given */
cli_setter cli_set_values;    /* struct audit_values: one more value (repeatable: a run matches any) */
cli_setter cli_set_server;    /* const char *: a server URL, refused with user information */
cli_setter cli_set_flag;      /* bool: true */
cli_setter cli_set_int_const; /* an int-sized enum: the row's .min (--no-color) */
cli_setter cli_set_long;      /* long, in [min, max] */
cli_setter cli_set_int;       /* int, in [min, max] */
cli_setter cli_set_size;      /* size_t, in [min, max] */
cli_setter cli_set_duration;  /* long seconds: 90, 90s, 10m, 2h, 1d, in [min, max] */
cli_setter cli_set_choice;    /* an enum: the value of the choice named */
cli_setter cli_set_format;    /* rq.format: a format's name, or the row's value */
cli_setter cli_set_view;      /* rq.render.view: the row's value, "full" or "findings" */
cli_setter cli_set_all_runs;
cli_setter cli_set_project;    /* project[level]: a name, not empty */
cli_setter cli_set_project_id; /* project_id[level]: a uid */

struct cli_command {
	const char *name;
	enum audit_command cmd;                                    /* CMD_NONE: `help` */
	int (*run)(const struct audit_request *rq, struct err *e); /* the pipeline's command (audit.h) */
	/* what it writes: the formats whose row has that writer
	 * (render_formats_for); another asked for is a usage error */
	enum render_subject writes;
	int min_args, max_args;
	const char *args;    /* after the command word in its usage line */
	const char *summary; /* one line, for the command list */
	const char *description;
	const char *examples[2];
	/* Its operands are completed from the server: the apps, then the
	 * runs of the app given (`run [APP_ID] RUN_ID`). */
	bool remote_operands;
};

/* Room enough for the table (checked where it is defined). */
#define CLI_MAX_OPTIONS 96
#define CLI_MAX_COMMANDS 16

extern const struct cli_option cli_options[];
extern const size_t cli_n_options;
extern const struct cli_command cli_commands[];
extern const size_t cli_n_commands;

/* Lookups in the table; NULL when there is none. */
const struct cli_option *cli_option_by_short(int c);
const struct cli_option *cli_option_by_name(const char *name);
const struct cli_command *cli_command_by_name(const char *word);
/* "runs", "run and runs", "run, runs and file": the commands of bits. */
void cli_command_list(unsigned bits, char *buf, size_t size);
/* A row's help as --help prints it: its choices (or the formats) first,
 * @EXTENSIONS@ replaced by the formats' --output extensions. */
void cli_option_help(const struct cli_option *o, char *buf, size_t size);
/* "auto|always|never": a row's choices joined by '|'. */
void cli_choice_list(const struct cli_choice *choices, char *buf, size_t size);
