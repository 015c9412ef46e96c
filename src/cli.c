#include "cli.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

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
	OPT_OUTPUT,
	OPT_COLOR,
	OPT_FAIL_ON,
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
	OPT_VERSION,
};

struct cli_option {
	const char *name;
	int has_arg;
	int val;
	const char *metavar;
	const char *help;
};

/* The one source of truth for --help and getopt_long. */
static const struct cli_option options[] = {
	{"server", required_argument, OPT_SERVER, "URL",
	 "MCP server (env CATALYST_MCP_URL; default " CATALYST_DEFAULT_SERVER ")"},
	{"stdio", required_argument, OPT_STDIO, "COMMAND", "talk to a local MCP server over stdio"},
	{"cacert", required_argument, OPT_CACERT, "FILE", "trust this CA bundle (TLS is always verified)"},
	{"timeout", required_argument, OPT_TIMEOUT, "SECONDS", "per request (default 60)"},
	{"jobs", required_argument, OPT_JOBS, "N", "runs fetched at once by `runs` (default 8)"},
	{"project", required_argument, OPT_PROJECT, "NAME", "Catalyst project name (default `default`)"},
	{"project-id", required_argument, OPT_PROJECT_ID, "UID", "Catalyst project uid (165 or prj-165)"},
	{"console", required_argument, OPT_CONSOLE, "URL",
	 "console for links (default " CATALYST_DEFAULT_CONSOLE ")"},
	{"format", required_argument, OPT_FORMAT, "FMT", "text|json|markdown (default: text on a TTY, else json)"},
	{"output", required_argument, OPT_OUTPUT, "FILE", "write the report to FILE"},
	{"color", required_argument, OPT_COLOR, "WHEN", "auto|always|never (honours NO_COLOR)"},
	{"fail-on", required_argument, OPT_FAIL_ON, "LEVEL", "never|reexecuted|suspect (default suspect)"},
	{"data-sharing", required_argument, OPT_DATA_SHARING, "LEVEL",
	 "assert the organization's level: metadata|full"},
	{"payload-limit", required_argument, OPT_PAYLOAD_LIMIT, "BYTES",
	 "large_payload threshold (default 65536)"},
	{"no-children", no_argument, OPT_NO_CHILDREN, NULL, "do not audit child workflow runs"},
	{"app", required_argument, OPT_APP, "APP_ID", "runs: only this app"},
	{"workflow", required_argument, OPT_WORKFLOW, "NAME", "runs: only this workflow"},
	{"status", required_argument, OPT_STATUS, "STATUS",
	 "runs: running|completed|failed|terminated|suspended|canceled"},
	{"since", required_argument, OPT_SINCE, "WHEN", "runs: started after (24h, 30m, or RFC 3339)"},
	{"until", required_argument, OPT_UNTIL, "WHEN", "runs: started before (duration or RFC 3339)"},
	{"limit", required_argument, OPT_LIMIT, "N", "runs: at most N runs"},
	{"client-id", required_argument, OPT_CLIENT_ID, "ID", "login: pre-registered OAuth client id"},
	{"redirect-path", required_argument, OPT_REDIRECT_PATH, "PATH",
	 "login: loopback callback path (default /callback)"},
	{"no-browser", no_argument, OPT_NO_BROWSER, NULL, "login: print the sign-in URL, do not open it"},
	{"no-login", no_argument, OPT_NO_LOGIN, NULL, "never start an interactive sign-in"},
	{"verbose", no_argument, 'v', NULL, "protocol trace on stderr (tokens redacted)"},
	{"version", no_argument, OPT_VERSION, NULL, "print versions and exit"},
	{"help", no_argument, 'h', NULL, "print this help and exit"},
};
#define N_OPTIONS (sizeof options / sizeof *options)

static const struct {
	const char *name;
	enum audit_command cmd;
	int min_args, max_args;
	const char *synopsis;
} commands[] = {
	{"run", CMD_RUN, 2, 2, "run APP_ID RUN_ID      audit one run"},
	{"runs", CMD_RUNS, 0, 0, "runs [FILTERS]         list runs, audit each (concurrently)"},
	{"file", CMD_FILE, 1, 1, "file PATH|-            audit a saved history, no server needed"},
	{"link", CMD_LINK, 2, 2, "link APP_ID RUN_ID     print the console link only"},
	{"login", CMD_LOGIN, 0, 0, "login                  sign in (OAuth)"},
	{"logout", CMD_LOGOUT, 0, 0, "logout                 forget stored tokens"},
	{"whoami", CMD_WHOAMI, 0, 0, "whoami                 show identity, projects, data sharing"},
	{"tools", CMD_TOOLS, 0, 0, "tools                  list the server's tools and input schemas"},
};

void cli_print_usage(FILE *out)
{
	fprintf(out, "Usage: catalyst-audit [OPTIONS] COMMAND [ARGS]\n\n"
		     "Did any activity of a Dapr Workflow run on Diagrid Catalyst execute more than once?\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		fprintf(out, "  %s\n", commands[i].synopsis);
	fprintf(out, "\nOptions:\n");
	for (size_t i = 0; i < N_OPTIONS; i++) {
		char left[64];
		const char *shortname = options[i].val == 'v' ? "-v, " : options[i].val == 'h' ? "-h, " : "    ";
		snprintf(left, sizeof left, "%s--%s%s%s", shortname, options[i].name,
			 options[i].metavar ? " " : "", options[i].metavar ? options[i].metavar : "");
		fprintf(out, "  %-28s %s\n", left, options[i].help);
	}
	fprintf(out, "\nExit status: 0 nothing at or above --fail-on; 1 findings at or above it;\n"
		     "2 usage; 3 not signed in or connection refusal; 4 data-sharing refusal;\n"
		     "5 transport, protocol or server error; 6 input could not be parsed.\n"
		     "See catalyst-audit(1).\n");
}

void cli_print_version(FILE *out)
{
	curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
	fprintf(out, "catalyst-audit %s\nlibcurl %s (%s)\njansson %s\n", CATALYST_AUDIT_VERSION, cv->version,
		cv->ssl_version ? cv->ssl_version : "no TLS", jansson_version_str());
}

static int parse_long(const char *opt, const char *s, long min, long max, long *out, struct err *e)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return err_set(e, ERR_USAGE, "--%s: expected a whole number from %ld to %ld, got '%s'", opt, min,
			       max, s);
	*out = v;
	return 0;
}

static int parse_choice(const char *opt, const char *s, const char *const *names, int n, struct err *e)
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
	return err_set(e, ERR_USAGE, "--%s: expected %s, got '%s'", opt, list, s);
}

int cli_parse(int argc, char **argv, struct audit_request *rq, struct err *e)
{
	struct option longopts[N_OPTIONS + 1];
	for (size_t i = 0; i < N_OPTIONS; i++)
		longopts[i] = (struct option){options[i].name, options[i].has_arg, NULL, options[i].val};
	longopts[N_OPTIONS] = (struct option){0, 0, 0, 0};

	audit_request_init(rq);
	const char *env_server = getenv("CATALYST_MCP_URL");
	if (env_server && *env_server)
		rq->server = env_server;

	/* "+" stops at the command word; options may also follow it (a second
	 * pass below), as users type `catalyst-audit runs --status failed`. */
	optind = 0;
	opterr = 0;
	int c;
	long v = 0;
	static const char *const formats[] = {"text", "json", "markdown"};
	static const char *const colors[] = {"auto", "always", "never"};
	static const char *const fails[] = {"suspect", "reexecuted", "never"};
	static const char *const levels[] = {"metadata", "full"};
	int positional_start = -1;
	char *positional[8];
	int n_positional = 0;

	while (1) {
		c = getopt_long(argc, argv, "+vh", longopts, NULL);
		if (c == -1) {
			if (optind >= argc)
				break;
			if (n_positional >= (int)(sizeof positional / sizeof *positional))
				return err_set(e, ERR_USAGE, "too many arguments (see --help)");
			positional[n_positional++] = argv[optind++];
			if (positional_start < 0)
				positional_start = optind;
			continue;
		}
		int r;
		switch (c) {
		case 'h':
			return CLI_ACTION_HELP;
		case OPT_VERSION:
			return CLI_ACTION_VERSION;
		case 'v':
			rq->verbose = true;
			break;
		case OPT_SERVER:
			rq->server = optarg;
			break;
		case OPT_STDIO:
			rq->stdio_cmd = optarg;
			break;
		case OPT_CACERT:
			rq->cacert = optarg;
			break;
		case OPT_TIMEOUT:
			if (parse_long("timeout", optarg, 1, 86400, &v, e) < 0)
				return -1;
			rq->timeout_s = v;
			break;
		case OPT_JOBS:
			if (parse_long("jobs", optarg, 1, 64, &v, e) < 0)
				return -1;
			rq->jobs = (int)v;
			break;
		case OPT_PROJECT:
			rq->project = optarg;
			break;
		case OPT_PROJECT_ID:
			rq->project_id = optarg;
			break;
		case OPT_CONSOLE:
			rq->console = optarg;
			break;
		case OPT_FORMAT:
			if ((r = parse_choice("format", optarg, formats, 3, e)) < 0)
				return -1;
			rq->format = (enum render_format)r;
			rq->format_given = true;
			break;
		case OPT_OUTPUT:
			rq->output = optarg;
			break;
		case OPT_COLOR:
			if ((r = parse_choice("color", optarg, colors, 3, e)) < 0)
				return -1;
			rq->color = (enum color_mode)r;
			break;
		case OPT_FAIL_ON:
			if ((r = parse_choice("fail-on", optarg, fails, 3, e)) < 0)
				return -1;
			rq->fail_on = (enum fail_on)r;
			break;
		case OPT_DATA_SHARING:
			if ((r = parse_choice("data-sharing", optarg, levels, 2, e)) < 0)
				return -1;
			rq->sharing = r == 0 ? SHARING_METADATA : SHARING_FULL;
			break;
		case OPT_PAYLOAD_LIMIT:
			if (parse_long("payload-limit", optarg, 1, 1L << 40, &v, e) < 0)
				return -1;
			rq->payload_limit = (size_t)v;
			break;
		case OPT_NO_CHILDREN:
			rq->no_children = true;
			break;
		case OPT_APP:
			rq->filters.app = optarg;
			break;
		case OPT_WORKFLOW:
			rq->filters.workflow = optarg;
			break;
		case OPT_STATUS:
			rq->filters.status = optarg;
			break;
		case OPT_SINCE:
			rq->filters.since = optarg;
			break;
		case OPT_UNTIL:
			rq->filters.until = optarg;
			break;
		case OPT_LIMIT:
			if (parse_long("limit", optarg, 1, 1000000, &v, e) < 0)
				return -1;
			rq->filters.limit = v;
			break;
		case OPT_CLIENT_ID:
			rq->client_id = optarg;
			break;
		case OPT_REDIRECT_PATH:
			rq->redirect_path = optarg;
			break;
		case OPT_NO_BROWSER:
			rq->no_browser = true;
			break;
		case OPT_NO_LOGIN:
			rq->no_login = true;
			break;
		case '?':
		default:
			if (optopt)
				return err_set(e, ERR_USAGE, "unknown option or missing value: -%c", optopt);
			return err_set(e, ERR_USAGE, "unknown option or missing value: %s (see --help)",
				       argv[optind - 1]);
		}
	}

	if (n_positional == 0)
		return err_set(e, ERR_USAGE, "no command given (see --help)");
	size_t i;
	for (i = 0; i < sizeof commands / sizeof *commands; i++)
		if (strcmp(positional[0], commands[i].name) == 0)
			break;
	if (i == sizeof commands / sizeof *commands)
		return err_set(e, ERR_USAGE, "unknown command '%s' (see --help)", positional[0]);
	int nargs = n_positional - 1;
	if (nargs < commands[i].min_args || nargs > commands[i].max_args)
		return err_set(e, ERR_USAGE, "usage: catalyst-audit [OPTIONS] %s", commands[i].synopsis);
	rq->command = commands[i].cmd;
	for (int k = 0; k < nargs && k < 2; k++)
		rq->args[k] = positional[k + 1];

	if (rq->project && rq->project_id)
		return err_set(e, ERR_USAGE, "--project and --project-id name one project two ways: give one");
	if (rq->stdio_cmd && rq->command == CMD_LOGIN)
		return err_set(e, ERR_USAGE, "login signs in to an HTTP server: --stdio does not apply");
	const char *no_color = getenv("NO_COLOR");
	if (no_color && *no_color && rq->color == COLOR_AUTO)
		rq->color = COLOR_NEVER;
	return CLI_ACTION_RUN;
}
