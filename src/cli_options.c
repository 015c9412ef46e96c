#include "cli_options.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "curl_lazy.h"
#include "version.h"

static const char *const group_titles[GROUP_COUNT] = {
	"Connection", "Project and console", "Output", "Analysis", "Filters (runs, stats)", "Sign-in", "General",
};

/* The one source of truth for the help, getopt_long, the config file's
 * keys, the environment, which command takes which option and where its
 * value goes. A row: name, short name, metavar (none: a flag), help,
 * commands, group, then what sets it. Choices are printed before the help
 * ("auto|always|never (honours NO_COLOR)"), as are the formats. */
const struct cli_option cli_options[] = {
	{"server", 0, "URL", "MCP server (env CATALYST_MCP_URL; default " CATALYST_DEFAULT_SERVER ")",
	 ON_SIGNIN | ON(CMD_LOGOUT), GROUP_CONNECTION, .config = true, .env = "CATALYST_MCP_URL",
	 .set = cli_set_server, .at = RQ(server)},
	{"stdio", 0, "COMMAND", "talk to a local MCP server over stdio", ON_SERVER, GROUP_CONNECTION,
	 .set = cli_set_string, .at = RQ(stdio_cmd)},
	{"cacert", 0, "FILE", "trust this CA bundle (TLS is always verified)", ON_SIGNIN, GROUP_CONNECTION,
	 .config = true, .set = cli_set_string, .at = RQ(cacert)},
	{"timeout", 0, "SECONDS", "per request (default 60)", ON_SIGNIN, GROUP_CONNECTION, .config = true,
	 .set = cli_set_long, .at = RQ(timeout_s), .min = 1, .max = 86400},
	{"jobs", 0, "N", "runs audited at once (default 8)", ON(CMD_RUN) | ON_LISTING, GROUP_CONNECTION,
	 .config = true, .set = cli_set_int, .at = RQ(jobs), .min = 1, .max = 64},
	{"project", 0, "NAME", "Catalyst project name (env CATALYST_PROJECT; default `default`)",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_STATS), GROUP_PROJECT, .config = true, .env = "CATALYST_PROJECT",
	 .set = cli_set_project, .at = CV(project), .remote = CLI_REMOTE_PROJECT},
	{"project-id", 0, "UID", "Catalyst project uid, 165 or prj-165 (env CATALYST_PROJECT_ID)",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_STATS), GROUP_PROJECT, .config = true, .env = "CATALYST_PROJECT_ID",
	 .set = cli_set_project_id, .at = CV(project_id)},
	{"console", 0, "URL", "console for links (default " CATALYST_DEFAULT_CONSOLE ")",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_STATS), GROUP_PROJECT, .config = true, .set = cli_set_string,
	 .at = RQ(console)},
	{"web", 0, NULL, "open the run's console link with $BROWSER", ON(CMD_RUN) | ON(CMD_LINK), GROUP_PROJECT,
	 .set = cli_set_flag, .at = RQ(web)},
	{"no-check", 0, NULL, "do not ask the server whether the run exists", ON(CMD_LINK), GROUP_PROJECT,
	 .set = cli_set_flag, .at = RQ(no_check)},
	/* -o/--output is the format, as in kubectl, temporal and the dapr CLI;
	 * --format (the config file's key) and --json are other spellings. */
	{"output", 'o', "FMT", "(default text)",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS) | ON(CMD_STATS) | ON(CMD_REVIEW), GROUP_OUTPUT,
	 .set = cli_set_format, .at = RQ(format)},
	{"format", 0, "FMT", "(same as --output)",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS) | ON(CMD_STATS) | ON(CMD_REVIEW), GROUP_OUTPUT,
	 .config = true, .set = cli_set_format, .at = RQ(format)},
	{"json", 0, NULL, "same as --output json",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS) | ON(CMD_STATS) | ON(CMD_REVIEW), GROUP_OUTPUT,
	 .set = cli_set_format, .at = RQ(format), .value = "json"},
	{"output-file", 0, "PATH", "write to PATH; @EXTENSIONS@ pick the format",
	 ON_REPORT | ON(CMD_LINK) | ON(CMD_WHOAMI) | ON(CMD_TOOLS) | ON(CMD_STATS) | ON(CMD_REVIEW), GROUP_OUTPUT,
	 .set = cli_set_string, .at = RQ(output_file)},
	{"color", 0, "WHEN", "(honours NO_COLOR)", ON_REPORT | ON(CMD_STATS), GROUP_OUTPUT, .config = true,
	 .set = cli_set_choice, .at = RQ(color),
	 .choices =
		 (const struct cli_choice[]){
			 {"auto", COLOR_AUTO}, {"always", COLOR_ALWAYS}, {"never", COLOR_NEVER}, {NULL, 0}}},
	{"no-color", 0, NULL, "same as --color never", ON_REPORT, GROUP_OUTPUT, .set = cli_set_flag,
	 .at = RQ(no_color)},
	{"no-pager", 0, NULL, "never page a report taller than the terminal (CATALYST_PAGER, PAGER)", ON_REPORT,
	 GROUP_OUTPUT, .set = cli_set_flag, .at = RQ(no_pager)},
	{"local-time", 0, NULL, "text/Markdown: times in the local zone, not UTC", ON_REPORT, GROUP_OUTPUT,
	 .set = cli_set_flag, .at = RQ(render.local_time)},
	{"fail-on", 0, "LEVEL", "(default suspect)", ON_REPORT | ON(CMD_STATS) | ON(CMD_REVIEW), GROUP_OUTPUT,
	 .config = true, .set = cli_set_choice, .at = RQ(fail_on),
	 .choices = (const struct cli_choice[]){{"never", FAIL_ON_NEVER},
						{"reexecuted", FAIL_ON_REEXECUTED},
						{"suspect", FAIL_ON_SUSPECT},
						{NULL, 0}}},
	{"baseline", 0, "FILE", "an earlier JSON/JSONL report (review: JSON or SARIF): its findings are known",
	 ON_REPORT | ON(CMD_REVIEW), GROUP_OUTPUT, .set = cli_set_string, .at = RQ(baseline)},
	{"verbose-report", 0, NULL, "text/Markdown: every activity and attempt of every run", ON_REPORT,
	 GROUP_OUTPUT, .set = cli_set_view, .at = RQ(render.view), .value = "full"},
	{"full", 0, NULL, "same as --verbose-report", ON_REPORT, GROUP_OUTPUT, .set = cli_set_view,
	 .at = RQ(render.view), .value = "full"},
	{"findings-only", 0, NULL, "text/Markdown: runs with findings, a line per finding", ON_REPORT,
	 GROUP_OUTPUT, .set = cli_set_view, .at = RQ(render.view), .value = "findings"},
	{"all-runs", 0, NULL, "text/Markdown: a section for every run, not only those with findings", ON_REPORT,
	 GROUP_OUTPUT, .set = cli_set_all_runs, .at = RQ(render.all_runs)},
	{"show-payloads", 0, NULL, "at full: the inputs and outputs of the attempts in findings (first 1 KiB)",
	 ON_REPORT, GROUP_OUTPUT, .set = cli_set_flag, .at = RQ(render.show_payloads)},
	{"follow", 'f', NULL, "keep reading the run: each attempt as it happens, the verdict when it ends",
	 ON(CMD_RUN) | ON(CMD_RUNS), GROUP_OUTPUT, .set = cli_set_flag, .at = RQ(follow)},
	{"interval", 0, "SECONDS", "--follow: the longest wait between two readings (default 5)",
	 ON(CMD_RUN) | ON(CMD_RUNS), GROUP_OUTPUT, .set = cli_set_int, .at = RQ(follow_interval_s), .min = 1,
	 .max = 3600},
	{"follow-for", 0, "DURATION", "--follow: stop after this long (90s, 10m, 2h), the verdict so far",
	 ON(CMD_RUN) | ON(CMD_RUNS), GROUP_OUTPUT, .set = cli_set_duration, .at = RQ(follow_for_s), .min = 1,
	 .max = 30 * 86400L},
	{"save-histories", 0, "DIR", "write each fetched history there, for `file DIR`",
	 ON(CMD_RUN) | ON(CMD_RUNS), GROUP_OUTPUT, .set = cli_set_string, .at = RQ(save_histories)},
	{"run-id", 0, "RUN_ID", "file: the run the saved history is of", ON(CMD_FILE), GROUP_PROJECT,
	 .set = cli_set_string, .at = RQ(file_run_id)},
	{"source", 0, "PATH", "the activity code: each finding names its activity's hazards (see review)",
	 ON_REPORT, GROUP_ANALYSIS, .set = cli_set_string, .at = RQ(source)},
	{"data-sharing", 0, "LEVEL", "(assert the organization's level)",
	 ON_REPORT | ON(CMD_WHOAMI) | ON(CMD_STATS), GROUP_ANALYSIS, .set = cli_set_choice, .at = RQ(sharing),
	 .choices =
		 (const struct cli_choice[]){{"metadata", SHARING_METADATA}, {"full", SHARING_FULL}, {NULL, 0}}},
	{"payload-limit", 0, "BYTES", "large_payload threshold (default 65536)", ON_REPORT | ON(CMD_STATS),
	 GROUP_ANALYSIS, .set = cli_set_size, .at = RQ(payload_limit), .min = 1, .max = 1L << 40},
	{"no-children", 0, NULL, "do not audit child workflow runs", ON(CMD_RUN) | ON(CMD_RUNS), GROUP_ANALYSIS,
	 .set = cli_set_flag, .at = RQ(no_children)},
	{"by-version", 0, NULL, "one row per activity and workflow version (Dapr 1.17+)", ON(CMD_STATS),
	 GROUP_ANALYSIS, .set = cli_set_flag, .at = RQ(stats_by_version)},
	/* --app, --workflow, --status: repeatable, a run matching any value is audited */
	{"app", 0, "APP_ID", "only this app (repeatable, or a,b: either)", ON_LISTING, GROUP_FILTERS,
	 .set = cli_set_values, .at = RQ(filters.app), .remote = CLI_REMOTE_APP},
	{"app-id", 0, "APP_ID",
	 "the app, as Dapr spells it: the filter of runs and stats, run's and link's APP_ID, the app a saved "
	 "history is of",
	 ON(CMD_RUN) | ON_LISTING | ON(CMD_LINK) | ON(CMD_FILE), GROUP_FILTERS, .set = cli_set_string,
	 .at = RQ(app_id), .remote = CLI_REMOTE_APP},
	{"workflow", 0, "NAME", "only this workflow, in any case (repeatable)", ON_LISTING, GROUP_FILTERS,
	 .set = cli_set_values, .at = RQ(filters.workflow)},
	/* the words a person types; the server's spellings are normalised in audit_filters.c */
	{"status", 0, "STATUS", "(repeatable)", ON_LISTING, GROUP_FILTERS, .set = cli_set_values,
	 .at = RQ(filters.status),
	 .choices = (const struct cli_choice[]){{"running", 0},
						{"completed", 0},
						{"failed", 0},
						{"terminated", 0},
						{"suspended", 0},
						{"canceled", 0},
						{NULL, 0}}},
	{"since", 0, "WHEN", "started after (24h, 30m, or RFC 3339)", ON_LISTING, GROUP_FILTERS,
	 .set = cli_set_string, .at = RQ(filters.since)},
	{"until", 0, "WHEN", "started before (duration or RFC 3339)", ON_LISTING, GROUP_FILTERS,
	 .set = cli_set_string, .at = RQ(filters.until)},
	{"ended-since", 0, "WHEN", "ended after (duration or RFC 3339)", ON_LISTING, GROUP_FILTERS,
	 .set = cli_set_string, .at = RQ(filters.ended_since)},
	{"state", 0, "FILE", "checkpoint: audit only runs that ended since the last run", ON(CMD_RUNS),
	 GROUP_FILTERS, .set = cli_set_string, .at = RQ(filters.state)},
	{"limit", 0, "N", "at most N top-level runs (child runs on top)", ON_LISTING, GROUP_FILTERS,
	 .set = cli_set_long, .at = RQ(filters.limit), .min = 1, .max = 1000000},
	{"client-id", 0, "ID", "pre-registered OAuth client id", ON_SIGNIN | ON(CMD_LOGOUT), GROUP_SIGNIN,
	 .config = true, .set = cli_set_string, .at = RQ(client_id)},
	{"client-metadata-url", 0, "URL",
	 "client id where the authorization server takes metadata documents (\"\": none)", ON_SIGNIN, GROUP_SIGNIN,
	 .config = true, .set = cli_set_string, .at = RQ(client_metadata_url)},
	{"redirect-path", 0, "PATH", "loopback callback path registered for it (default /callback)", ON_SIGNIN,
	 GROUP_SIGNIN, .config = true, .set = cli_set_string, .at = RQ(redirect_path)},
	{"no-browser", 0, NULL, "print the sign-in URL, do not open it", ON_SIGNIN, GROUP_SIGNIN,
	 .set = cli_set_flag, .at = RQ(no_browser)},
	{"no-login", 0, NULL, "never start an interactive sign-in", ON_SIGNIN, GROUP_SIGNIN, .set = cli_set_flag,
	 .at = RQ(no_login)},
	{"config", 0, "FILE", "config file (env CATALYST_AUDIT_CONFIG; /dev/null: none)", ON_ALL, GROUP_GENERAL,
	 .special = CLI_CONFIG},
	{"verbose", 'v', NULL, "protocol trace on stderr (tokens redacted)", ON_ALL, GROUP_GENERAL,
	 .set = cli_set_flag, .at = RQ(verbose)},
	{"quiet", 'q', NULL, "no notices, progress or warnings on stderr (errors stay)", ON_ALL, GROUP_GENERAL,
	 .set = cli_set_flag, .at = RQ(quiet)},
	{"version", 0, NULL, "print versions and exit", ON_ALL, GROUP_GENERAL, .special = CLI_VERSION},
	{"help", 'h', NULL, "print help (of a command: CMD --help) and exit", ON_ALL, GROUP_GENERAL,
	 .special = CLI_HELP},
};
const size_t cli_n_options = sizeof cli_options / sizeof *cli_options;
_Static_assert(sizeof cli_options / sizeof *cli_options <= CLI_MAX_OPTIONS, "CLI_MAX_OPTIONS");

const struct cli_command cli_commands[] = {
	{"run",
	 CMD_RUN,
	 audit_run,
	 RENDER_REPORT,
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
	  "catalyst-audit run checkout pay-20931 --no-children --output-file pay-20931.md"},
	 .remote_operands = true},
	{"runs",
	 CMD_RUNS,
	 audit_runs,
	 RENDER_REPORT,
	 0,
	 0,
	 "[FILTERS]",
	 "list runs, audit each (concurrently)",
	 "List the project's workflow runs (catalyst_list_workflow_runs), narrowed by the\n"
	 "filters, and audit each, --jobs at a time. A run that cannot be fetched is\n"
	 "reported with the reason; the others are still audited.",
	 {"catalyst-audit runs --status completed --ended-since 24h",
	  "catalyst-audit --project payments runs --app orders --since 7d -o json"},
	 false},
	{"stats",
	 CMD_STATS,
	 audit_stats,
	 RENDER_STATS,
	 0,
	 100000,
	 "[REPORT...]",
	 "which activities re-execute most, across runs",
	 "One row per (app, activity or child workflow) over every run the filters list,\n"
	 "--jobs at a time: invocations, how many re-executed and their share, attempts\n"
	 "(median, p95, max), findings by kind (suspect first), the failure classes seen\n"
	 "with their most frequent messages, the latest suspect run and its console link;\n"
	 "ranked by suspect findings, then by re-execution share. Given REPORT files or\n"
	 "folders of earlier --format json/jsonl reports, nothing is fetched: each run is\n"
	 "counted once per (project, app, run), from the newest report that holds it.",
	 {"catalyst-audit stats --since 30d",
	  "catalyst-audit --project payments stats --app checkout -o markdown"},
	 false},
	{"review",
	 CMD_REVIEW,
	 audit_review,
	 RENDER_REVIEW,
	 1,
	 1024,
	 "PATH...",
	 "flag idempotency hazards in activity code",
	 "Read the workflow app's code (files or folders: Python, Go, Java, C#,\n"
	 "JavaScript/TypeScript) with tree-sitter, find its activities (decorators,\n"
	 "registrations, WorkflowActivity classes) and flag the hazards of their\n"
	 "bodies that make a re-executed activity act twice: a key generated in the\n"
	 "body, a POST without an idempotency key, a retry loop, a read then a write\n"
	 "of the same key; and an orchestrator giving every activity call one retry\n"
	 "policy. Each hazard with its file:line and fix. No server is needed; run,\n"
	 "runs and file --source PATH join the hazards to the history's findings.",
	 {"catalyst-audit review checkout/",
	  "catalyst-audit review checkout/activities.py -o markdown --fail-on never"},
	 false},
	{"file",
	 CMD_FILE,
	 audit_file,
	 RENDER_REPORT,
	 1,
	 1024,
	 "PATH...|-",
	 "audit saved histories, no server needed",
	 "Audit saved histories; no server is needed. Each PATH is a file or a folder\n"
	 "(its *.json files, in name order: what --save-histories wrote); - reads\n"
	 "standard input. The dialect is detected: a saved catalyst_get_workflow_run\n"
	 "result, durabletask protojson, or `dapr workflow history -o json` output.\n"
	 "--app-id and --run-id name the run of a single history that does not.",
	 {"catalyst-audit file saved-run.json",
	  "catalyst-audit file saved-run.json --data-sharing full --output-file audit.md"},
	 false},
	{"link",
	 CMD_LINK,
	 audit_link,
	 RENDER_LINK,
	 1,
	 2,
	 "[APP_ID] RUN_ID",
	 "print the console link only",
	 "Print the Catalyst console link of a run and nothing else, after asking the\n"
	 "server that the run exists (--no-check: no server is asked; a missing run exits\n"
	 "7 and prints no link). Without APP_ID the run is looked up in the run list. A\n"
	 "bare number given as --project is resolved through the server; when no exact\n"
	 "link can be built, the app id and run id are printed as plain text instead.\n"
	 "--output json prints an object; --web opens the link with $BROWSER.",
	 {"catalyst-audit --project-id prj-165 link orders order-7740:0002",
	  "catalyst-audit --project payments link pay-20931 --output json"},
	 false},
	{"login",
	 CMD_LOGIN,
	 audit_login,
	 0,
	 0,
	 0,
	 "",
	 "sign in (OAuth)",
	 "Sign in with OAuth 2.1 (authorization code with PKCE) in a browser and store the\n"
	 "tokens. Catalyst accepts only clients registered in advance: pass the client id\n"
	 "you were given, and its redirect path when it is not /callback.",
	 {"catalyst-audit login --client-id CLIENT_ID",
	  "catalyst-audit login --client-id CLIENT_ID --redirect-path /oauth/callback --no-browser"},
	 false},
	{"logout",
	 CMD_LOGOUT,
	 audit_logout,
	 0,
	 0,
	 0,
	 "",
	 "forget stored tokens",
	 "Delete the tokens stored for the server (only --client-id's, when given).",
	 {"catalyst-audit logout", "catalyst-audit --server https://mcp.example.com/mcp logout"},
	 false},
	{"whoami",
	 CMD_WHOAMI,
	 audit_whoami,
	 RENDER_WHOAMI,
	 0,
	 0,
	 "",
	 "show identity, projects, data sharing",
	 "Show the signed-in identity, the organization's projects and, where the server\n"
	 "names it, the data-sharing level.",
	 {"catalyst-audit whoami", "catalyst-audit whoami --json"},
	 false},
	{"tools",
	 CMD_TOOLS,
	 audit_tools,
	 RENDER_TOOLS,
	 0,
	 0,
	 "",
	 "list the server's tools and input schemas",
	 "List the MCP server's tools and their input schemas, as text or JSON. Works with\n"
	 "any MCP server, over HTTP (--server) or stdio (--stdio).",
	 {"catalyst-audit tools --json",
	  "catalyst-audit --stdio 'npx @modelcontextprotocol/server-everything' tools"},
	 false},
	{"help",
	 CMD_NONE,
	 NULL,
	 0,
	 0,
	 1,
	 "[COMMAND]",
	 "a command's usage, options and examples",
	 "Print the usage summary, or one command's usage, options and examples (as\n"
	 "COMMAND --help does).",
	 {"catalyst-audit help runs", "catalyst-audit runs --help"},
	 false},
};
const size_t cli_n_commands = sizeof cli_commands / sizeof *cli_commands;
_Static_assert(sizeof cli_commands / sizeof *cli_commands <= CLI_MAX_COMMANDS, "CLI_MAX_COMMANDS");

static const struct cli_command *command_of(enum audit_command cmd)
{
	for (size_t i = 0; i < cli_n_commands; i++)
		if (cli_commands[i].cmd == cmd)
			return &cli_commands[i];
	return NULL;
}

/* "-o, --output FMT" */
static void option_left(const struct cli_option *o, char *buf, size_t size)
{
	char shortname[8] = "    ";
	if (o->short_name)
		snprintf(shortname, sizeof shortname, "-%c, ", o->short_name);
	snprintf(buf, size, "%s--%s%s%s", shortname, o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
}

/* The help of a row: its choices first, when it has them (a format's
 * row: the formats). */
void cli_option_help(const struct cli_option *o, char *buf, size_t size)
{
	char choices[256] = "";
	if (o->choices)
		cli_choice_list(o->choices, choices, sizeof choices);
	else if (o->set == cli_set_format && o->metavar)
		render_format_list(RENDER_FORMATS_ALL, choices, sizeof choices);
	/* "@EXTENSIONS@": the formats' --output extensions (--output's help) */
	const char *at = strstr(o->help, "@EXTENSIONS@");
	char help[256];
	if (at) {
		char ext[128] = "";
		for (const struct render_format_row *f = render_formats; f->name; f++)
			if (f->extension)
				snprintf(ext + strlen(ext), sizeof ext - strlen(ext), "%s%s", *ext ? " " : "",
					 f->extension);
		snprintf(help, sizeof help, "%.*s%s%s", (int)(at - o->help), o->help, ext,
			 at + strlen("@EXTENSIONS@"));
	} else {
		snprintf(help, sizeof help, "%s", o->help);
	}
	snprintf(buf, size, "%s%s%s", choices, *choices && *help ? " " : "", help);
}

static void print_option(FILE *out, const struct cli_option *o)
{
	char left[64], help[512];
	option_left(o, left, sizeof left);
	cli_option_help(o, help, sizeof help);
	fprintf(out, "  %-28s %s\n", left, help);
}

static void print_usage(FILE *out)
{
	fprintf(out, "Usage: catalyst-audit [OPTIONS] COMMAND [ARGS]\n\n"
		     "Did any activity of a Dapr Workflow run on Diagrid Catalyst execute more than once?\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < cli_n_commands; i++) {
		char left[32];
		snprintf(left, sizeof left, "%s %s", cli_commands[i].name, cli_commands[i].args);
		fprintf(out, "  %-22s %s\n", left, cli_commands[i].summary);
	}
	for (int g = 0; g < GROUP_COUNT; g++) {
		fprintf(out, "\n%s:\n", group_titles[g]);
		for (size_t i = 0; i < cli_n_options; i++)
			if (cli_options[i].group == (enum option_group)g)
				print_option(out, &cli_options[i]);
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
	fprintf(out, "Usage: catalyst-audit %s [OPTIONS]%s%s\n\n%s\n\nOptions of %s:\n", c->name,
		*c->args ? " " : "", c->args, c->description, c->name);
	/* The command's own options first (issue 19), then those every command
	 * that connects shares: connection, sign-in (but login's and logout's
	 * own), general. */
	bool sign_in_cmd = cmd == CMD_LOGIN || cmd == CMD_LOGOUT;
	for (int global = 0; global < 2; global++) {
		if (global)
			fprintf(out, "\nGlobal options:\n");
		for (size_t i = 0; i < cli_n_options; i++) {
			enum option_group g = cli_options[i].group;
			bool is_global = g == GROUP_CONNECTION || (g == GROUP_SIGNIN && !sign_in_cmd) ||
					 g == GROUP_GENERAL;
			if ((cli_options[i].commands & ON(cmd)) && is_global == (bool)global)
				print_option(out, &cli_options[i]);
		}
	}
	fprintf(out, "\nExamples:\n  %s\n  %s\n\nSee catalyst-audit(1).\n", c->examples[0], c->examples[1]);
}

void cli_print_version(FILE *out)
{
	/* The libcurl that is loaded, not the one built against: opened here
	 * (src/curl_lazy.c), or why it cannot be. */
	curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
	fprintf(out, "catalyst-audit %s\n", CATALYST_AUDIT_VERSION);
	if (cv)
		fprintf(out, "libcurl %s (%s)\n", cv->version, cv->ssl_version ? cv->ssl_version : "no TLS");
	else
		fprintf(out, "libcurl: %s\n", curl_lazy_error());
	fprintf(out, "jansson %s\ntree-sitter grammars: %s\n", jansson_version_str(), CATALYST_GRAMMARS);
}

/* ---- lookups ---------------------------------------------------------- */

const struct cli_option *cli_option_by_short(int c)
{
	for (size_t i = 0; i < cli_n_options; i++)
		if (cli_options[i].short_name && cli_options[i].short_name == c)
			return &cli_options[i];
	return NULL;
}

const struct cli_option *cli_option_by_name(const char *name)
{
	for (size_t i = 0; i < cli_n_options; i++)
		if (strcmp(cli_options[i].name, name) == 0)
			return &cli_options[i];
	return NULL;
}

const struct cli_command *cli_command_by_name(const char *word)
{
	for (size_t i = 0; i < cli_n_commands; i++)
		if (strcmp(word, cli_commands[i].name) == 0)
			return &cli_commands[i];
	return NULL;
}

void cli_command_list(unsigned bits, char *buf, size_t size)
{
	size_t total = 0, k = 0;
	for (size_t i = 0; i < cli_n_commands; i++)
		if (cli_commands[i].cmd != CMD_NONE && (bits & ON(cli_commands[i].cmd)))
			total++;
	buf[0] = '\0';
	for (size_t i = 0; i < cli_n_commands; i++) {
		if (cli_commands[i].cmd == CMD_NONE || !(bits & ON(cli_commands[i].cmd)))
			continue;
		const char *sep = k == 0 ? "" : k + 1 == total ? " and " : ", ";
		size_t used = strlen(buf);
		snprintf(buf + used, size - used, "%s%s", sep, cli_commands[i].name);
		k++;
	}
}
