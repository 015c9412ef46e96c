#include "cli.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "console_link.h"
#include "suggest.h"
#include "version.h"

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

static const char *const group_titles[GROUP_COUNT] = {
	"Connection", "Project and console", "Output", "Analysis", "Filters (runs)", "Sign-in", "General",
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

/* The one source of truth for the help, getopt_long, the config file's
 * keys and which command takes which option. */
static const struct cli_option options[] = {
	{"server", 0, required_argument, OPT_SERVER, "URL",
	 "MCP server (env CATALYST_MCP_URL; default " CATALYST_DEFAULT_SERVER ")", ON_SIGNIN | ON(CMD_LOGOUT),
	 GROUP_CONNECTION, true},
	{"stdio", 0, required_argument, OPT_STDIO, "COMMAND", "talk to a local MCP server over stdio", ON_SERVER,
	 GROUP_CONNECTION, false},
	{"cacert", 0, required_argument, OPT_CACERT, "FILE", "trust this CA bundle (TLS is always verified)",
	 ON_SIGNIN, GROUP_CONNECTION, true},
	{"timeout", 0, required_argument, OPT_TIMEOUT, "SECONDS", "per request (default 60)", ON_SIGNIN,
	 GROUP_CONNECTION, true},
	{"jobs", 0, required_argument, OPT_JOBS, "N", "runs audited at once (default 8)",
	 ON(CMD_RUN) | ON(CMD_RUNS), GROUP_CONNECTION, true},
	{"project", 0, required_argument, OPT_PROJECT, "NAME",
	 "Catalyst project name (env CATALYST_PROJECT; default `default`)", ON_REPORT | ON(CMD_LINK),
	 GROUP_PROJECT, true},
	{"project-id", 0, required_argument, OPT_PROJECT_ID, "UID",
	 "Catalyst project uid, 165 or prj-165 (env CATALYST_PROJECT_ID)", ON_REPORT | ON(CMD_LINK), GROUP_PROJECT,
	 true},
	{"console", 0, required_argument, OPT_CONSOLE, "URL",
	 "console for links (default " CATALYST_DEFAULT_CONSOLE ")", ON_REPORT | ON(CMD_LINK), GROUP_PROJECT,
	 true},
	{"web", 0, no_argument, OPT_WEB, NULL, "open the run's console link with $BROWSER",
	 ON(CMD_RUN) | ON(CMD_LINK), GROUP_PROJECT, false},
	{"no-check", 0, no_argument, OPT_NO_CHECK, NULL, "do not ask the server whether the run exists",
	 ON(CMD_LINK), GROUP_PROJECT, false},
	{"format", 'o', required_argument, OPT_FORMAT, "FMT", "text|json|jsonl|markdown (default text)",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS), GROUP_OUTPUT, true},
	{"json", 0, no_argument, OPT_JSON, NULL, "same as --format json",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS), GROUP_OUTPUT, false},
	{"output", 0, required_argument, OPT_OUTPUT, "FILE", "write to FILE; .json .jsonl .md pick the format",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS), GROUP_OUTPUT, false},
	{"color", 0, required_argument, OPT_COLOR, "WHEN", "auto|always|never (honours NO_COLOR)", ON_REPORT,
	 GROUP_OUTPUT, true},
	{"fail-on", 0, required_argument, OPT_FAIL_ON, "LEVEL", "never|reexecuted|suspect (default suspect)",
	 ON_REPORT, GROUP_OUTPUT, true},
	{"verbose-report", 0, no_argument, OPT_VERBOSE_REPORT, NULL,
	 "text/Markdown: every activity and attempt of every run", ON_REPORT, GROUP_OUTPUT, false},
	{"full", 0, no_argument, OPT_VERBOSE_REPORT, NULL, "same as --verbose-report", ON_REPORT, GROUP_OUTPUT,
	 false},
	{"findings-only", 0, no_argument, OPT_FINDINGS_ONLY, NULL,
	 "text/Markdown: runs with findings, a line per finding", ON_REPORT, GROUP_OUTPUT, false},
	{"all-runs", 0, no_argument, OPT_ALL_RUNS, NULL,
	 "text/Markdown: a section for every run, not only those "
	 "with findings",
	 ON_REPORT, GROUP_OUTPUT, false},
	{"data-sharing", 0, required_argument, OPT_DATA_SHARING, "LEVEL",
	 "assert the organization's level: metadata|full", ON_REPORT | ON(CMD_WHOAMI), GROUP_ANALYSIS, false},
	{"payload-limit", 0, required_argument, OPT_PAYLOAD_LIMIT, "BYTES",
	 "large_payload threshold (default 65536)", ON_REPORT, GROUP_ANALYSIS, false},
	{"no-children", 0, no_argument, OPT_NO_CHILDREN, NULL, "do not audit child workflow runs",
	 ON(CMD_RUN) | ON(CMD_RUNS), GROUP_ANALYSIS, false},
	{"app", 0, required_argument, OPT_APP, "APP_ID", "only this app", ON(CMD_RUNS), GROUP_FILTERS, false},
	{"workflow", 0, required_argument, OPT_WORKFLOW, "NAME", "only this workflow (its name in any case)",
	 ON(CMD_RUNS), GROUP_FILTERS, false},
	{"status", 0, required_argument, OPT_STATUS, "STATUS",
	 "running|completed|failed|terminated|suspended|canceled", ON(CMD_RUNS), GROUP_FILTERS, false},
	{"since", 0, required_argument, OPT_SINCE, "WHEN", "started after (24h, 30m, or RFC 3339)", ON(CMD_RUNS),
	 GROUP_FILTERS, false},
	{"until", 0, required_argument, OPT_UNTIL, "WHEN", "started before (duration or RFC 3339)", ON(CMD_RUNS),
	 GROUP_FILTERS, false},
	{"limit", 0, required_argument, OPT_LIMIT, "N", "at most N top-level runs (child runs on top)",
	 ON(CMD_RUNS), GROUP_FILTERS, false},
	{"client-id", 0, required_argument, OPT_CLIENT_ID, "ID", "pre-registered OAuth client id",
	 ON_SIGNIN | ON(CMD_LOGOUT), GROUP_SIGNIN, true},
	{"redirect-path", 0, required_argument, OPT_REDIRECT_PATH, "PATH",
	 "loopback callback path registered for it (default /callback)", ON_SIGNIN, GROUP_SIGNIN, true},
	{"no-browser", 0, no_argument, OPT_NO_BROWSER, NULL, "print the sign-in URL, do not open it", ON_SIGNIN,
	 GROUP_SIGNIN, false},
	{"no-login", 0, no_argument, OPT_NO_LOGIN, NULL, "never start an interactive sign-in", ON_SIGNIN,
	 GROUP_SIGNIN, false},
	{"config", 0, required_argument, OPT_CONFIG, "FILE",
	 "config file (env CATALYST_AUDIT_CONFIG; /dev/null: none)", ON_ALL, GROUP_GENERAL, false},
	{"verbose", 'v', no_argument, 'v', NULL, "protocol trace on stderr (tokens redacted)", ON_ALL,
	 GROUP_GENERAL, false},
	{"version", 0, no_argument, OPT_VERSION, NULL, "print versions and exit", ON_ALL, GROUP_GENERAL, false},
	{"help", 'h', no_argument, 'h', NULL, "print help (of a command: CMD --help) and exit", ON_ALL,
	 GROUP_GENERAL, false},
};
#define N_OPTIONS (sizeof options / sizeof *options)

struct cli_command {
	const char *name;
	enum audit_command cmd; /* CMD_NONE: `help` */
	int min_args, max_args;
	const char *args;    /* after the command word in its usage line */
	const char *summary; /* one line, for the command list */
	const char *description;
	const char *examples[2];
};

static const struct cli_command commands[] = {
	{"run",
	 CMD_RUN,
	 1,
	 2,
	 "[APP_ID] RUN_ID",
	 "audit one run",
	 "Fetch one run's history from Catalyst (catalyst_get_workflow_run), audit it and\n"
	 "the child workflow runs it started, and report which activities ran more than\n"
	 "once, with the evidence, what was withheld and what the history cannot show.\n"
	 "Without APP_ID the run is looked up in the run list and the app it is in is\n"
	 "named. A run or project that does not exist exits 7, saying where a run of\n"
	 "that id is, if anywhere.",
	 {"catalyst-audit --project payments run pay-20931",
	  "catalyst-audit run checkout pay-20931 --no-children --output pay-20931.md"}},
	{"runs",
	 CMD_RUNS,
	 0,
	 0,
	 "[FILTERS]",
	 "list runs, audit each (concurrently)",
	 "List the project's workflow runs (catalyst_list_workflow_runs), narrowed by the\n"
	 "filters, and audit each, --jobs at a time. A run that cannot be fetched is\n"
	 "reported with the reason; the others are still audited.",
	 {"catalyst-audit runs --status failed --since 24h",
	  "catalyst-audit --project payments runs --app orders --since 7d -o json"}},
	{"file",
	 CMD_FILE,
	 1,
	 1,
	 "PATH|-",
	 "audit a saved history, no server needed",
	 "Audit a saved history; no server is needed. PATH - reads standard input. The\n"
	 "dialect is detected: a saved catalyst_get_workflow_run result, durabletask\n"
	 "protojson, or `dapr workflow history -o json` output.",
	 {"catalyst-audit file saved-run.json",
	  "catalyst-audit file saved-run.json --data-sharing full --output audit.md"}},
	{"link",
	 CMD_LINK,
	 1,
	 2,
	 "[APP_ID] RUN_ID",
	 "print the console link only",
	 "Print the Catalyst console link of a run and nothing else, after asking the\n"
	 "server that the run exists (--no-check: no server is asked; a missing run exits\n"
	 "7 and prints no link). Without APP_ID the run is looked up in the run list. A\n"
	 "bare number given as --project is resolved through the server; when no exact\n"
	 "link can be built, the app id and run id are printed as plain text instead.\n"
	 "--format json prints an object; --web opens the link with $BROWSER.",
	 {"catalyst-audit --project-id prj-165 link orders order-7740:0002",
	  "catalyst-audit --project payments link pay-20931 --format json"}},
	{"login",
	 CMD_LOGIN,
	 0,
	 0,
	 "",
	 "sign in (OAuth)",
	 "Sign in with OAuth 2.1 (authorization code with PKCE) in a browser and store the\n"
	 "tokens. Catalyst accepts only clients registered in advance: pass the client id\n"
	 "you were given, and its redirect path when it is not /callback.",
	 {"catalyst-audit login --client-id CLIENT_ID",
	  "catalyst-audit login --client-id CLIENT_ID --redirect-path /oauth/callback --no-browser"}},
	{"logout",
	 CMD_LOGOUT,
	 0,
	 0,
	 "",
	 "forget stored tokens",
	 "Delete the tokens stored for the server (only --client-id's, when given).",
	 {"catalyst-audit logout", "catalyst-audit --server https://mcp.example.com/mcp logout"}},
	{"whoami",
	 CMD_WHOAMI,
	 0,
	 0,
	 "",
	 "show identity, projects, data sharing",
	 "Show the signed-in identity, the organization's projects and, where the server\n"
	 "names it, the data-sharing level.",
	 {"catalyst-audit whoami", "catalyst-audit whoami --json"}},
	{"tools",
	 CMD_TOOLS,
	 0,
	 0,
	 "",
	 "list the server's tools and input schemas",
	 "List the MCP server's tools and their input schemas, as text or JSON. Works with\n"
	 "any MCP server, over HTTP (--server) or stdio (--stdio).",
	 {"catalyst-audit tools --json",
	  "catalyst-audit --stdio 'npx @modelcontextprotocol/server-everything' tools"}},
	{"help",
	 CMD_NONE,
	 0,
	 1,
	 "[COMMAND]",
	 "a command's usage, options and examples",
	 "Print the usage summary, or one command's usage, options and examples (as\n"
	 "COMMAND --help does).",
	 {"catalyst-audit help runs", "catalyst-audit runs --help"}},
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static const struct cli_command *command_of(enum audit_command cmd)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].cmd == cmd)
			return &commands[i];
	return NULL;
}

/* "-o, --format FMT" */
static void option_left(const struct cli_option *o, char *buf, size_t size)
{
	char shortname[8] = "    ";
	if (o->short_name)
		snprintf(shortname, sizeof shortname, "-%c, ", o->short_name);
	snprintf(buf, size, "%s--%s%s%s", shortname, o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

static void print_option(FILE *out, const struct cli_option *o)
{
	char left[64];
	option_left(o, left, sizeof left);
	fprintf(out, "  %-28s %s\n", left, o->help);
}

static void print_usage(FILE *out)
{
	fprintf(out, "Usage: catalyst-audit [OPTIONS] COMMAND [ARGS]\n\n"
		     "Did any activity of a Dapr Workflow run on Diagrid Catalyst execute more than once?\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++) {
		char left[32];
		snprintf(left, sizeof left, "%s %s", commands[i].name, commands[i].args);
		fprintf(out, "  %-22s %s\n", left, commands[i].summary);
	}
	for (int g = 0; g < GROUP_COUNT; g++) {
		fprintf(out, "\n%s:\n", group_titles[g]);
		for (size_t i = 0; i < N_OPTIONS; i++)
			if (options[i].group == (enum option_group)g)
				print_option(out, &options[i]);
	}
	fprintf(out, "\nOptions may come before or after the command; those that do not apply to it are\n"
		     "an error (`catalyst-audit help COMMAND` lists its own). The command line wins over\n"
		     "the environment, which wins over the config file ($XDG_CONFIG_HOME/catalyst-audit/config).\n"
		     "\nExit status: 0 nothing at or above --fail-on; 1 findings at or above it;\n"
		     "2 usage; 3 not signed in or connection refusal; 4 data-sharing refusal;\n"
		     "5 transport, protocol or server error; 6 input could not be parsed;\n"
		     "7 the run or project does not exist.\n"
		     "See catalyst-audit(1).\n");
}

void cli_print_help(FILE *out, enum audit_command cmd)
{
	const struct cli_command *c = cmd == CMD_NONE ? NULL : command_of(cmd);
	if (!c) {
		print_usage(out);
		return;
	}
	fprintf(out, "Usage: catalyst-audit %s [OPTIONS]%s%s\n\n%s\n\nOptions:\n", c->name, *c->args ? " " : "",
		c->args, c->description);
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (options[i].commands & ON(cmd))
			print_option(out, &options[i]);
	fprintf(out, "\nExamples:\n  %s\n  %s\n\nSee catalyst-audit(1).\n", c->examples[0], c->examples[1]);
}

void cli_print_version(FILE *out)
{
	curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
	fprintf(out, "catalyst-audit %s\nlibcurl %s (%s)\njansson %s\n", CATALYST_AUDIT_VERSION, cv->version,
		cv->ssl_version ? cv->ssl_version : "no TLS", jansson_version_str());
}

/* ---- values ---------------------------------------------------------- */

/* label names where a value came from in messages: "--timeout",
 * "CATALYST_PROJECT", "/home/u/.config/catalyst-audit/config:3: timeout". */
static int parse_long(const char *label, const char *s, long min, long max, long *out, struct err *e)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return err_set(e, ERR_USAGE, "%s: expected a whole number from %ld to %ld, got '%s'", label, min,
			       max, s);
	*out = v;
	return 0;
}

static int parse_choice(const char *label, const char *s, const char *const *names, int n, struct err *e)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	char list[256] = "";
	for (int i = 0; i < n; i++) {
		strncat(list, names[i], sizeof list - strlen(list) - 1);
		if (i + 1 < n)
			strncat(list, "|", sizeof list - strlen(list) - 1);
	}
	return err_set(e, ERR_USAGE, "%s: expected %s, got '%s'", label, list, s);
}

static const struct {
	const char *name;
	enum render_format format;
	const char *extension; /* --output FILE with it picks the format */
} formats[] = {
	{"text", FORMAT_TEXT, NULL},
	{"json", FORMAT_JSON, ".json"},
	{"jsonl", FORMAT_JSONL, ".jsonl"},
	{"markdown", FORMAT_MARKDOWN, ".md"},
};
#define N_FORMATS (sizeof formats / sizeof *formats)

static int parse_format(const char *label, const char *s, enum render_format *f, struct err *e)
{
	const char *names[N_FORMATS];
	for (size_t i = 0; i < N_FORMATS; i++)
		names[i] = formats[i].name;
	int r = parse_choice(label, s, names, (int)N_FORMATS, e);
	if (r < 0)
		return -1;
	*f = formats[r].format;
	return 0;
}

/* The format a file name asks for by its extension (any case). */
static bool format_of_path(const char *path, enum render_format *f)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < N_FORMATS; i++) {
		const char *x = formats[i].extension;
		if (x && n > strlen(x) && strcasecmp(path + n - strlen(x), x) == 0) {
			*f = formats[i].format;
			return true;
		}
	}
	return false;
}

/* ---- resolving the three sources --------------------------------------- */

enum level {
	LEVEL_CONFIG = 0,
	LEVEL_ENV,
	LEVEL_LINE,
	LEVEL_COUNT,
};

struct resolve {
	struct audit_request *rq;
	/* The project, per level: one of either kind at a higher level wins
	 * over both kinds at a lower one. */
	const char *project[LEVEL_COUNT], *project_id[LEVEL_COUNT];
	char project_label[LEVEL_COUNT][300], project_id_label[LEVEL_COUNT][300];
	/* The format asked for on the command line, and by which spelling. */
	bool line_format_set;
	enum render_format line_format;
	char line_format_label[16];
};

static int apply(struct resolve *st, const struct cli_option *o, const char *value, enum level lv,
		 const char *label, struct err *e)
{
	static const char *const colors[] = {"auto", "always", "never"};
	static const char *const fails[] = {"suspect", "reexecuted", "never"};
	static const char *const levels[] = {"metadata", "full"};
	struct audit_request *rq = st->rq;
	long v = 0;
	int r;
	enum render_format f;
	switch (o->val) {
	case 'v':
		rq->verbose = true;
		break;
	case OPT_SERVER:
		rq->server = value;
		break;
	case OPT_STDIO:
		rq->stdio_cmd = value;
		break;
	case OPT_CACERT:
		rq->cacert = value;
		break;
	case OPT_TIMEOUT:
		if (parse_long(label, value, 1, 86400, &v, e) < 0)
			return -1;
		rq->timeout_s = v;
		break;
	case OPT_JOBS:
		if (parse_long(label, value, 1, 64, &v, e) < 0)
			return -1;
		rq->jobs = (int)v;
		break;
	case OPT_PROJECT:
		if (!*value)
			return err_set(e, ERR_USAGE, "%s: the project name is empty", label);
		st->project[lv] = value;
		snprintf(st->project_label[lv], sizeof st->project_label[lv], "%s", label);
		break;
	case OPT_PROJECT_ID:
		if (!console_is_uid(value))
			return err_set(e, ERR_USAGE,
				       "%s: expected a numeric project uid (165 or prj-165), got '%s'", label,
				       value);
		st->project_id[lv] = value;
		snprintf(st->project_id_label[lv], sizeof st->project_id_label[lv], "%s", label);
		break;
	case OPT_CONSOLE:
		rq->console = value;
		break;
	case OPT_FORMAT:
	case OPT_JSON:
		if (o->val == OPT_JSON)
			f = FORMAT_JSON;
		else if (parse_format(label, value, &f, e) < 0)
			return -1;
		if (lv == LEVEL_LINE) {
			if (st->line_format_set && st->line_format != f)
				return err_set(e, ERR_USAGE, "%s and %s ask for two different formats: give one",
					       st->line_format_label, label);
			st->line_format_set = true;
			st->line_format = f;
			snprintf(st->line_format_label, sizeof st->line_format_label, "%s", label);
		}
		rq->format = f;
		rq->format_given = true;
		break;
	case OPT_OUTPUT:
		rq->output = value;
		break;
	case OPT_COLOR:
		if ((r = parse_choice(label, value, colors, 3, e)) < 0)
			return -1;
		rq->color = (enum color_mode)r;
		break;
	case OPT_FAIL_ON:
		if ((r = parse_choice(label, value, fails, 3, e)) < 0)
			return -1;
		rq->fail_on = (enum fail_on)r;
		break;
	case OPT_VERBOSE_REPORT:
	case OPT_FINDINGS_ONLY: {
		enum report_view want = o->val == OPT_VERBOSE_REPORT ? REPORT_FULL : REPORT_FINDINGS;
		if (rq->view != REPORT_SHORT && rq->view != want)
			return err_set(e, ERR_USAGE,
				       "--verbose-report and --findings-only ask for two views: give one");
		if (want == REPORT_FINDINGS && rq->all_runs)
			return err_set(e, ERR_USAGE, "--all-runs and --findings-only ask for two views: give one");
		rq->view = want;
		break;
	}
	case OPT_ALL_RUNS:
		if (rq->view == REPORT_FINDINGS)
			return err_set(e, ERR_USAGE, "--all-runs and --findings-only ask for two views: give one");
		rq->all_runs = true;
		break;
	case OPT_DATA_SHARING:
		if ((r = parse_choice(label, value, levels, 2, e)) < 0)
			return -1;
		rq->sharing = r == 0 ? SHARING_METADATA : SHARING_FULL;
		break;
	case OPT_PAYLOAD_LIMIT:
		if (parse_long(label, value, 1, 1L << 40, &v, e) < 0)
			return -1;
		rq->payload_limit = (size_t)v;
		break;
	case OPT_NO_CHILDREN:
		rq->no_children = true;
		break;
	case OPT_APP:
		rq->filters.app = value;
		break;
	case OPT_WORKFLOW:
		rq->filters.workflow = value;
		break;
	case OPT_STATUS:
		rq->filters.status = value;
		break;
	case OPT_SINCE:
		rq->filters.since = value;
		break;
	case OPT_UNTIL:
		rq->filters.until = value;
		break;
	case OPT_LIMIT:
		if (parse_long(label, value, 1, 1000000, &v, e) < 0)
			return -1;
		rq->filters.limit = v;
		break;
	case OPT_CLIENT_ID:
		rq->client_id = value;
		break;
	case OPT_REDIRECT_PATH:
		rq->redirect_path = value;
		break;
	case OPT_NO_BROWSER:
		rq->no_browser = true;
		break;
	case OPT_NO_LOGIN:
		rq->no_login = true;
		break;
	case OPT_WEB:
		rq->web = true;
		break;
	case OPT_NO_CHECK:
		rq->no_check = true;
		break;
	default: /* --config, --help, --version: read before values are applied */
		break;
	}
	return 0;
}

static const struct cli_option *option_by_val(int val)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (options[i].val == val)
			return &options[i];
	return NULL;
}

static const struct cli_option *option_by_short(int c)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (options[i].short_name && options[i].short_name == c)
			return &options[i];
	return NULL;
}

static const struct cli_option *option_by_name(const char *name)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (strcmp(options[i].name, name) == 0)
			return &options[i];
	return NULL;
}

/* The highest level that names a project decides; both kinds at that
 * level name one project two ways. */
static int resolve_project(struct resolve *st, struct err *e)
{
	for (int lv = LEVEL_LINE; lv >= LEVEL_CONFIG; lv--) {
		if (!st->project[lv] && !st->project_id[lv])
			continue;
		if (st->project[lv] && st->project_id[lv])
			return err_set(e, ERR_USAGE, "%s and %s name one project two ways: give one",
				       st->project_label[lv], st->project_id_label[lv]);
		st->rq->project = st->project[lv];
		st->rq->project_id = st->project_id[lv];
		return 0;
	}
	return 0;
}

/* The config file's keys: the options marked for it, NULL-ended. */
static void config_keys(const char **keys)
{
	size_t n = 0;
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (options[i].config)
			keys[n++] = options[i].name;
	keys[n] = NULL;
}

static int apply_config(struct resolve *st, const char *line_config, struct config *cfg, struct err *e)
{
	const char *keys[N_OPTIONS + 1];
	config_keys(keys);
	const char *env = getenv("CATALYST_AUDIT_CONFIG");
	int rc;
	if (line_config) {
		if (!*line_config)
			return err_set(e, ERR_USAGE, "--config: the path is empty");
		rc = config_load(cfg, line_config, true, keys, e);
	} else if (env && *env) {
		rc = config_load(cfg, env, true, keys, e);
	} else {
		char *path = config_default_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"));
		rc = path ? config_load(cfg, path, false, keys, e) : 0;
		free(path);
	}
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < cfg->n; i++) {
		const struct config_entry *en = &cfg->entries[i];
		char label[300];
		snprintf(label, sizeof label, "%s:%u: %s", cfg->path, en->line, en->key);
		if (apply(st, option_by_name(en->key), en->value, LEVEL_CONFIG, label, e) < 0)
			return -1;
	}
	return 0;
}

static int apply_env(struct resolve *st, struct err *e)
{
	static const struct {
		const char *var;
		int val;
	} vars[] = {
		{"CATALYST_MCP_URL", OPT_SERVER},
		{"CATALYST_PROJECT", OPT_PROJECT},
		{"CATALYST_PROJECT_ID", OPT_PROJECT_ID},
	};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i].var);
		/* Set but empty is unset: `CATALYST_PROJECT= catalyst-audit ...`. */
		if (v && *v && apply(st, option_by_val(vars[i].val), v, LEVEL_ENV, vars[i].var, e) < 0)
			return -1;
	}
	return 0;
}

/* ---- the command line -------------------------------------------------- */

struct setting {
	const struct cli_option *opt;
	const char *value;
	char spelling[48]; /* as typed: "--format", "-o" */
};

/* "--stauts=x" -> "stauts" in buf. */
static const char *option_word(const char *arg, char *buf, size_t size)
{
	while (*arg == '-')
		arg++;
	size_t n = strcspn(arg, "=");
	if (n >= size)
		n = size - 1;
	memcpy(buf, arg, n);
	buf[n] = '\0';
	return buf;
}

static const char *nearest_option(const char *word)
{
	const char *names[N_OPTIONS];
	for (size_t i = 0; i < N_OPTIONS; i++)
		names[i] = options[i].name;
	return suggest_nearest(word, names, N_OPTIONS);
}

static int unknown_option(const char *arg, struct err *e)
{
	char word[SUGGEST_MAX_LEN + 1];
	const char *near = nearest_option(option_word(arg, word, sizeof word));
	int len = (int)strcspn(arg, "=");
	if (near)
		return err_set(e, ERR_USAGE, "unknown option %.*s; did you mean --%s?", len > 80 ? 80 : len, arg,
			       near);
	return err_set(e, ERR_USAGE, "unknown option %.*s (see catalyst-audit --help)", len > 80 ? 80 : len, arg);
}

static int unknown_command(const char *word, struct err *e)
{
	const char *names[N_COMMANDS];
	for (size_t i = 0; i < N_COMMANDS; i++)
		names[i] = commands[i].name;
	const char *near = suggest_nearest(word, names, N_COMMANDS);
	if (near)
		return err_set(e, ERR_USAGE, "unknown command '%.80s'; did you mean '%s'?", word, near);
	return err_set(e, ERR_USAGE, "unknown command '%.80s' (see catalyst-audit --help)", word);
}

static const struct cli_command *command_by_name(const char *word)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(word, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/* "runs", "run and runs", "run, runs and file": the commands of bits. */
static void command_list(unsigned bits, char *buf, size_t size)
{
	size_t total = 0, k = 0;
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].cmd != CMD_NONE && (bits & ON(commands[i].cmd)))
			total++;
	buf[0] = '\0';
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (commands[i].cmd == CMD_NONE || !(bits & ON(commands[i].cmd)))
			continue;
		const char *sep = k == 0 ? "" : k + 1 == total ? " and " : ", ";
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s%s", sep, commands[i].name);
		k++;
	}
}

/* Only the whole name: getopt_long also takes unambiguous prefixes
 * (`--stat`), which would change meaning the day an option is added. */
static bool spelled_whole(const char *element, const char *name)
{
	size_t n = strlen(name);
	return strncmp(element, "--", 2) == 0 && strncmp(element + 2, name, n) == 0 &&
	       (element[2 + n] == '\0' || element[2 + n] == '=');
}

int cli_parse(int argc, char **argv, struct audit_request *rq, struct config *cfg, struct err *e)
{
	struct option longopts[N_OPTIONS + 1];
	for (size_t i = 0; i < N_OPTIONS; i++)
		longopts[i] = (struct option){options[i].name, options[i].has_arg, NULL, options[i].val};
	longopts[N_OPTIONS] = (struct option){0, 0, 0, 0};

	audit_request_init(rq);
	config_init(cfg);
	struct setting *line = calloc((size_t)(argc > 0 ? argc : 1), sizeof *line);
	char **positional = calloc((size_t)(argc > 0 ? argc : 1), sizeof *positional);
	struct resolve *st = calloc(1, sizeof *st);
	if (!line || !positional || !st) {
		free(line);
		free(positional);
		free(st);
		return err_set(e, ERR_INTERNAL, "out of memory");
	}
	st->rq = rq;
	int rc = -1;
	size_t n_line = 0, n_positional = 0;
	bool help = false, version = false, failed = false;
	const char *line_config = NULL;

	/* "+" stops at the command word and the loop goes on past it: options
	 * may come before or after it (`catalyst-audit runs --status failed`).
	 * ":" tells a missing value from an unknown option. The first error is
	 * kept and parsing goes on, so that --help anywhere still helps. */
	optind = 0;
	opterr = 0;
	while (1) {
		/* The element this call reads (an option's separate value is the
		 * next one; getopt_long moves optind past a cluster of short
		 * options only when it is done with it). */
		int at = optind ? optind : 1;
		if (at < argc && strcmp(argv[at], "--") == 0) {
			for (int k = at + 1; k < argc; k++)
				positional[n_positional++] = argv[k];
			break;
		}
		int idx = -1;
		int c = getopt_long(argc, argv, "+:vho:", longopts, &idx);
		if (c == -1) {
			if (optind >= argc)
				break;
			positional[n_positional++] = argv[optind++];
			continue;
		}
		if (c == '?') {
			const struct cli_option *no_value =
				optopt && strncmp(argv[at], "--", 2) == 0 ? option_by_val(optopt) : NULL;
			if (!failed && no_value) {
				/* --json=x: a value for an option that takes none */
				err_set(e, ERR_USAGE, "--%s takes no value", no_value->name);
			} else if (!failed && optopt) {
				/* -status: a long option with one dash */
				const char *el = argv[at];
				char word[SUGGEST_MAX_LEN + 1];
				const char *near = strlen(el) > 2 && el[1] != '-'
							   ? nearest_option(option_word(el, word, sizeof word))
							   : NULL;
				if (near)
					err_set(e, ERR_USAGE, "unknown option -%c (in %.40s); did you mean --%s?",
						optopt, el, near);
				else
					err_set(e, ERR_USAGE, "unknown option -%c (see catalyst-audit --help)",
						optopt);
			} else if (!failed) {
				unknown_option(argv[at], e);
			}
			failed = true;
			continue;
		}
		const struct cli_option *o = idx >= 0 ? &options[idx] : option_by_short(c);
		if (c == ':') {
			o = option_by_val(optopt) ? option_by_val(optopt) : option_by_short(optopt);
			if (!failed && o)
				err_set(e, ERR_USAGE, "--%s needs a value (%s)", o->name, o->metavar);
			failed = true;
			continue;
		}
		if (!o)
			continue;
		struct setting *s = &line[n_line];
		if (idx >= 0) {
			if (!spelled_whole(argv[at], o->name)) {
				if (!failed)
					unknown_option(argv[at], e);
				failed = true;
				continue;
			}
			snprintf(s->spelling, sizeof s->spelling, "--%s", o->name);
		} else {
			snprintf(s->spelling, sizeof s->spelling, "-%c", o->short_name);
			enum render_format f;
			/* -output is -o with the value "utput": say what was meant. */
			if (c == 'o' && optarg != argv[optind - 1] && parse_format("-o", optarg, &f, NULL) < 0) {
				char word[SUGGEST_MAX_LEN + 1];
				const char *el = argv[at];
				const char *near = nearest_option(option_word(el, word, sizeof word));
				if (near && strlen(el) > 3) {
					if (!failed)
						err_set(e, ERR_USAGE, "unknown option %.40s; did you mean --%s?",
							el, near);
					failed = true;
					continue;
				}
			}
		}
		if (c == 'h') {
			help = true;
		} else if (c == OPT_VERSION) {
			version = true;
		} else {
			if (c == OPT_CONFIG)
				line_config = optarg;
			s->opt = o;
			s->value = optarg;
			n_line++;
		}
	}

	/* The command, and what help was asked for: help is given even
	 * after a mistake in the options, but never for a command that does
	 * not exist. */
	const struct cli_command *cmd = n_positional > 0 ? command_by_name(positional[0]) : NULL;
	size_t first_arg = 1;
	if (cmd && cmd->cmd == CMD_NONE) { /* help [COMMAND] */
		help = true;
		cmd = NULL;
		if (n_positional > 2) {
			err_set(e, ERR_USAGE, "help takes one command, e.g. catalyst-audit help runs");
			goto out;
		}
		if (n_positional == 2 && !(cmd = command_by_name(positional[1]))) {
			unknown_command(positional[1], e);
			goto out;
		}
		first_arg = 2;
	}
	if (help && n_positional > 0 && !cmd && first_arg == 1) {
		unknown_command(positional[0], e);
		goto out;
	}
	if (help) {
		rq->command = cmd ? cmd->cmd : CMD_NONE;
		rc = CLI_ACTION_HELP;
		goto out;
	}
	if (version) {
		rc = CLI_ACTION_VERSION;
		goto out;
	}
	if (failed)
		goto out;
	if (n_positional == 0) {
		err_set(e, ERR_USAGE, "no command given (see catalyst-audit --help)");
		goto out;
	}
	if (!cmd) {
		unknown_command(positional[0], e);
		goto out;
	}
	size_t nargs = n_positional - first_arg;
	if ((int)nargs < cmd->min_args || (int)nargs > cmd->max_args) {
		err_set(e, ERR_USAGE, "usage: catalyst-audit %s%s%s (see catalyst-audit %s --help)", cmd->name,
			*cmd->args ? " " : "", cmd->args, cmd->name);
		goto out;
	}
	rq->command = cmd->cmd;
	for (size_t k = 0; k < nargs && k < 2; k++)
		rq->args[k] = positional[first_arg + k];
	if ((cmd->cmd == CMD_RUN || cmd->cmd == CMD_LINK) && nargs == 1) {
		/* RUN_ID alone: the app is found through the run list. */
		rq->args[1] = rq->args[0];
		rq->args[0] = NULL;
	}

	/* A filter or option the command would ignore is a mistake to say,
	 * not to pass over: `run --status failed` audits no failed run. */
	for (size_t i = 0; i < n_line; i++) {
		if (line[i].opt->commands & ON(cmd->cmd))
			continue;
		char list[128];
		command_list(line[i].opt->commands, list, sizeof list);
		err_set(e, ERR_USAGE, "%s does not apply to %s (only to %s; see catalyst-audit %s --help)",
			line[i].spelling, cmd->name, list, cmd->name);
		goto out;
	}

	if (apply_config(st, line_config, cfg, e) < 0 || apply_env(st, e) < 0)
		goto out;
	for (size_t i = 0; i < n_line; i++)
		if (apply(st, line[i].opt, line[i].value, LEVEL_LINE, line[i].spelling, e) < 0)
			goto out;
	if (option_by_val(OPT_PROJECT)->commands & ON(cmd->cmd))
		if (resolve_project(st, e) < 0)
			goto out;
	/* --output's name picks the format unless the command line chose one:
	 * it is a command-line choice too, so it beats the config file. */
	enum render_format f;
	if (!st->line_format_set && rq->output && (option_by_val(OPT_FORMAT)->commands & ON(cmd->cmd)) &&
	    format_of_path(rq->output, &f)) {
		rq->format = f;
		rq->format_given = true;
	}
	if (cmd->cmd == CMD_LINK) {
		/* A link is a line or a JSON object, as the command line asks
		 * (--output's name included): another format asked for there is
		 * a mistake; the config file's is a default for reports. */
		if (st->line_format_set && st->line_format != FORMAT_TEXT && st->line_format != FORMAT_JSON) {
			err_set(e, ERR_USAGE, "%s: link prints text or json", st->line_format_label);
			goto out;
		}
		bool json = st->line_format_set ? st->line_format == FORMAT_JSON
						: rq->output && format_of_path(rq->output, &f) && f == FORMAT_JSON;
		rq->format = json ? FORMAT_JSON : FORMAT_TEXT;
		rq->format_given = json;
		if (rq->no_check && !rq->args[0]) {
			err_set(e, ERR_USAGE,
				"link %s --no-check: without the server the app cannot be looked up; give APP_ID "
				"RUN_ID",
				rq->args[1]);
			goto out;
		}
	}
	/* The one threads setting (parallel.h): 1 keeps every step on one
	 * thread; unset, 0 or any other value lets each step decide. */
	const char *threads = getenv("CATALYST_AUDIT_THREADS");
	rq->threads = threads && strcmp(threads, "1") == 0 ? 1 : 0;
	const char *no_color = getenv("NO_COLOR");
	if (no_color && *no_color && rq->color == COLOR_AUTO)
		rq->color = COLOR_NEVER;
	rc = CLI_ACTION_RUN;
out:
	free(line);
	free(positional);
	free(st);
	return rc;
}
