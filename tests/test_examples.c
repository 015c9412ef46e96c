/* meson-test: integration npm */
/* Docs that work (issue 12): every command line the README, the man page
 * and each command's help show runs against the simulator's demo data, and
 * exits as the docs imply (0 or 1 for an audit, 0 for the rest).
 *
 * Found, not listed: README blocks fenced ```sh (every fence must name its
 * language), man page .nf blocks marked `.\" example: sh` (every .nf block
 * must be marked), and the Examples of `catalyst-audit help COMMAND`. Each
 * distinct line is run with /bin/sh in a scratch folder, catalyst-audit on
 * PATH and CATALYST_MCP_URL at the simulator (profile a, runs made recent);
 * sign-in examples go to a real OAuth server (oidc-provider) in front of a
 * protected MCP server, as in test_oauth_e2e. A line the test cannot run is
 * a failure unless `exempt` below lists it with the reason, and a listed
 * line no document shows any more is a failure too.
 *
 * Also: scripts/demo.sh, as the README's first command and with --keep
 * (the simulator it leaves running is reached, then stopped). */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wordexp.h>

#include <jansson.h>

#include "cli.h"
#include "cli_options.h"
#include "testlib.h"

#define RUN_TIMEOUT_MS 60000
#define MAX_EXAMPLES 128

/* Lines shown in the docs that this test does not run, and why. */
static const struct {
	const char *line, *why;
} exempt[] = {
	{"bash scripts/test.sh", "runs this very suite (and installs packages)"},
	{"bash scripts/install-deps.sh build", "installs Debian packages with apt-get"},
	{"meson setup build --buildtype=release", "configures a build folder in the source tree"},
	{"ninja -C build", "builds that folder (this suite runs from a build of its own)"},
	{"sudo meson install -C build", "installs system-wide; test_install checks meson install --destdir"},
	{"bash scripts/install-deps.sh deb", "installs Debian packages with apt-get"},
	{"bash scripts/build-deb.sh", "builds the Debian package from a meson dist tarball (minutes; by hand)"},
	{"sudo apt-get install ./build-deb/catalyst-audit_0.1.0-1_amd64.deb", "installs system-wide"},
};
#define N_EXEMPT (sizeof exempt / sizeof *exempt)

/* Files the examples read, as the demo data's saved histories. */
static const struct {
	const char *name, *fixture;
} inputs[] = {
	{"run.json", "tests/fixtures/b-retry-fail-fail-succeed.catalyst.json"},
	{"saved-history.json", "tests/fixtures/b-retry-fail-fail-succeed.catalyst.json"},
	{"saved-run.json", "tests/fixtures/b-retry-fail-fail-succeed.catalyst.json"},
	/* the workflow app's code that review and --source read */
	{"checkout/activities.py", "tests/fixtures/review/python/activities.py"},
	{"checkout/workflow.py", "tests/fixtures/review/python/workflow.py"},
	{"checkout/legacy.py", "tests/fixtures/review/python/legacy.py"},
};

struct example {
	char *line;      /* as the document shows it (continuations joined) */
	char where[160]; /* "README.md:31", "man/catalyst-audit.1:1425", "help run" */
};

static struct example examples[MAX_EXAMPLES];
static size_t n_examples;

static void add_example(const char *line, const char *where)
{
	for (size_t i = 0; i < n_examples; i++)
		if (strcmp(examples[i].line, line) == 0)
			return;
	ck_assert_uint_lt(n_examples, MAX_EXAMPLES);
	examples[n_examples].line = strdup(line);
	snprintf(examples[n_examples].where, sizeof examples[n_examples].where, "%s", where);
	n_examples++;
}

/* The line without a trailing shell comment (a '#' after a blank, outside
 * quotes) and trailing blanks. Caller frees. */
static char *without_comment(const char *line)
{
	char *s = strdup(line);
	char quote = 0;
	for (char *p = s; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
	}
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* Appends one document line to a command that may continue (a trailing
 * backslash); returns true when the command is complete. */
static bool join_line(char *cmd, size_t size, const char *line)
{
	size_t used = strlen(cmd);
	snprintf(cmd + used, size - used, "%s%s", used ? " " : "", line);
	size_t n = strlen(cmd);
	if (n && cmd[n - 1] == '\\') {
		cmd[n - 1] = '\0';
		while (n > 1 && cmd[n - 2] == ' ')
			cmd[--n - 1] = '\0';
		return false;
	}
	return true;
}

static void from_readme(void)
{
	char *text = testlib_read_file(testlib_src("README.md"), NULL);
	ck_assert_ptr_nonnull(text);
	bool in_fence = false, commands = false;
	char cmd[2048] = "";
	int lineno = 0, start = 0;
	for (char *next = text, *line; (line = strsep(&next, "\n"));) {
		lineno++;
		if (strncmp(line, "```", 3) == 0) {
			if (!in_fence) {
				ck_assert_msg(line[3] != '\0',
					      "README.md:%d: a fence without a language: mark it ```sh (commands "
					      "tests/test_examples.c runs) or ```text, ```ini ...",
					      lineno);
				commands = strcmp(line + 3, "sh") == 0;
			} else {
				ck_assert_msg(cmd[0] == '\0', "README.md:%d: a command ends in a backslash",
					      lineno);
			}
			in_fence = !in_fence;
			continue;
		}
		if (!in_fence || !commands || line[0] == '#' || line[strspn(line, " \t")] == '\0')
			continue;
		if (cmd[0] == '\0')
			start = lineno;
		if (join_line(cmd, sizeof cmd, line)) {
			char where[64];
			snprintf(where, sizeof where, "README.md:%d", start);
			add_example(cmd, where);
			cmd[0] = '\0';
		}
	}
	ck_assert_msg(!in_fence, "README.md: a fence is not closed");
	free(text);
}

/* roff to text for the few escapes example lines use. */
static void unroff(const char *in, char *out, size_t size)
{
	size_t k = 0;
	for (const char *p = in; *p && k + 1 < size; p++) {
		if (p[0] == '\\' && p[1] == '-') {
			out[k++] = '-';
			p++;
		} else if (p[0] == '\\' && p[1] == 'e') {
			out[k++] = '\\';
			p++;
		} else {
			out[k++] = *p;
		}
	}
	out[k] = '\0';
}

static void from_man(void)
{
	char *text = testlib_read_file(testlib_src("man/catalyst-audit.1"), NULL);
	ck_assert_ptr_nonnull(text);
	const char *mark = NULL; /* the kind of the last marker: "sh", "text", ... */
	int mark_line = -100, lineno = 0, start = 0;
	bool in_block = false, commands = false;
	char cmd[2048] = "";
	for (char *next = text, *line; (line = strsep(&next, "\n"));) {
		lineno++;
		if (strncmp(line, ".\\\" example: ", 13) == 0) {
			mark = line + 13;
			mark_line = lineno;
			continue;
		}
		if (strcmp(line, ".nf") == 0) {
			ck_assert_msg(
				mark && lineno - mark_line <= 3,
				"man/catalyst-audit.1:%d: an .nf block without a `.\\\" example: sh` (commands "
				"tests/test_examples.c runs) or `.\\\" example: text` line just before it",
				lineno);
			commands = strcmp(mark, "sh") == 0;
			in_block = true;
			mark = NULL;
			continue;
		}
		if (strcmp(line, ".fi") == 0) {
			ck_assert_msg(cmd[0] == '\0', "man/catalyst-audit.1:%d: a command ends in \\e", lineno);
			in_block = false;
			continue;
		}
		if (!in_block || !commands)
			continue;
		char plain[2048];
		unroff(line, plain, sizeof plain);
		if (cmd[0] == '\0')
			start = lineno;
		if (join_line(cmd, sizeof cmd, plain + strspn(plain, " "))) {
			char where[64];
			snprintf(where, sizeof where, "man/catalyst-audit.1:%d", start);
			add_example(cmd, where);
			cmd[0] = '\0';
		}
	}
	free(text);
}

static void from_help(void)
{
	/* (`help help` prints the usage summary, which has no examples) */
	for (size_t i = 0; i < cli_n_commands; i++) {
		if (cli_commands[i].cmd == CMD_NONE)
			continue;
		struct testlib_output o;
		char *args[] = {"help", (char *)cli_commands[i].name, NULL};
		ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, 10000, &o), 0);
		ck_assert_int_eq(o.status, 0);
		char *ex = strstr(o.out, "\nExamples:\n");
		ck_assert_ptr_nonnull(ex);
		for (char *line = ex + strlen("\nExamples:\n"); strncmp(line, "  catalyst-audit ", 17) == 0;) {
			char *nl = strchr(line, '\n');
			ck_assert_ptr_nonnull(nl);
			*nl = '\0';
			char where[64];
			snprintf(where, sizeof where, "help %s", cli_commands[i].name);
			add_example(line + 2, where);
			line = nl + 1;
		}
		testlib_output_free(&o);
	}
}

/* ---- the world the examples run in ---------------------------------------- */

static char dir[256];      /* scratch: the examples' working folder, config, shims */
static char work[300];     /* where they run */
static char shims[300];    /* catalyst-audit, dapr, npx */
static char recorder[300]; /* $BROWSER for --web: records the link */
static char runner[300];
static struct testlib_server sim, as, mcp;
static char writes[400];

static void write_exec(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = testlib_read_file(from, &len);
	ck_assert_ptr_nonnull(data);
	FILE *f = fopen(to, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
	free(data);
}

static void setup(void)
{
	testlib_make_tmpdir(dir, sizeof dir, "examples");
	snprintf(work, sizeof work, "%s/work", dir);
	snprintf(shims, sizeof shims, "%s/bin", dir);
	ck_assert_int_eq(mkdir(work, 0700), 0);
	ck_assert_int_eq(mkdir(shims, 0700), 0);
	char code[600];
	snprintf(code, sizeof code, "%s/checkout", work);
	ck_assert_int_eq(mkdir(code, 0700), 0);
	for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
		char to[600];
		snprintf(to, sizeof to, "%s/%s", work, inputs[i].name);
		copy_file(testlib_src(inputs[i].fixture), to);
	}
	char path[600], text[4096];
	snprintf(path, sizeof path, "%s/catalyst-audit", shims);
	ck_assert_int_eq(symlink(testlib_env("CA_BINARY"), path), 0);
	/* `dapr workflow history pay-20931 --app-id checkout -o json`: what the
	 * CLI prints for that run (tests/fixtures/README.md says where from). */
	snprintf(path, sizeof path, "%s/dapr", shims);
	snprintf(
		text, sizeof text,
		"#!/bin/sh\n"
		"[ \"$*\" = 'workflow history pay-20931 --app-id checkout -o json' ] || "
		"{ echo \"dapr (test shim): only 'workflow history pay-20931 --app-id checkout -o json', not: $*\" >&2; "
		"exit 1; }\n"
		"exec cat '%s'\n",
		testlib_src("tests/fixtures/b-retry-fail-fail-succeed.dapr-cli.json"));
	write_exec(path, text);
	/* npx runs an installed package as it would: the test peers' copy,
	 * never the network. */
	snprintf(path, sizeof path, "%s/npx", shims);
	snprintf(
		text, sizeof text,
		"#!/bin/sh\n"
		"[ \"$*\" = '@modelcontextprotocol/server-everything' ] || "
		"{ echo \"npx (test shim): only @modelcontextprotocol/server-everything, not: $*\" >&2; exit 1; }\n"
		"exec '%s' '%s/node_modules/@modelcontextprotocol/server-everything/dist/index.js'\n",
		testlib_node(), testlib_env("CA_NPM_DIR"));
	write_exec(path, text);
	snprintf(recorder, sizeof recorder, "%s/browser", dir);
	write_exec(recorder, "#!/bin/sh\nprintf '%s\\n' \"$@\" >> \"$0.log\"\n");
	/* Runs one example in a folder; a "person" opens a sign-in address
	 * the example prints (login --no-browser) when PERSON is set. */
	snprintf(runner, sizeof runner, "%s/run.sh", dir);
	write_exec(
		runner,
		"#!/bin/sh\n"
		"cd \"$2\" || exit 99\n"
		"err=$(mktemp)\n"
		"exec 3<&0\n"
		"( eval \"$1\" ) <&3 2>\"$err\" &\n"
		"pid=$!\n"
		"followed=\n"
		"while kill -0 \"$pid\" 2>/dev/null; do\n"
		"  if [ -n \"$PERSON\" ] && [ -z \"$followed\" ]; then\n"
		"    url=$(sed -n 's/^catalyst-audit:   \\(http:\\/\\/127\\.0\\.0\\.1:[0-9]*\\/[^ ]*\\)$/\\1/p' "
		"\"$err\" | head -n 1)\n"
		"    if [ -n \"$url\" ]; then followed=1; \"$PERSON\" \"$url\" >/dev/null 2>&1 & fi\n"
		"  fi\n"
		"  sleep 0.05\n"
		"done\n"
		"wait \"$pid\"\n"
		"st=$?\n"
		"cat \"$err\" >&2\n"
		"rm -f \"$err\"\n"
		"exit $st\n");

	/* The demo data, as scripts/demo.sh serves it. */
	snprintf(writes, sizeof writes, "%s/writes.jsonl", dir);
	char *sim_argv[] = {(char *)testlib_node(),
			    (char *)testlib_src("tests/sim/catalyst-sim.mjs"),
			    "--profile",
			    "a",
			    "--stateless",
			    "--shift-now",
			    "--live",
			    "--live-step-ms",
			    "500",
			    "--record-writes",
			    writes,
			    "--max-seconds",
			    "120",
			    NULL};
	ck_assert_int_eq(testlib_server_start(&sim, sim_argv, NULL, "LISTENING", 20000), 0);

	/* Sign-in: the client id the examples show, both redirect paths. */
	char oidc[600], prot[600], issuer[300];
	snprintf(oidc, sizeof oidc, "%s", testlib_src("tests/sim/oidc-server.mjs"));
	char *as_argv[] = {(char *)testlib_node(),
			   oidc,
			   "--client-id",
			   "CLIENT_ID",
			   "--redirect-path",
			   "/callback",
			   "--redirect-path",
			   "/oauth/callback",
			   NULL};
	ck_assert_int_eq(testlib_server_start(&as, as_argv, NULL, "ready ", 30000), 0);
	snprintf(issuer, sizeof issuer, "%s", as.url);
	snprintf(prot, sizeof prot, "%s", testlib_src("tests/sim/protected-mcp.mjs"));
	char *mcp_argv[] = {(char *)testlib_node(), prot, "--issuer", issuer, NULL};
	ck_assert_int_eq(testlib_server_start(&mcp, mcp_argv, NULL, "ready ", 30000), 0);
}

static void teardown(void)
{
	testlib_server_stop(&mcp);
	testlib_server_stop(&as);
	testlib_server_stop(&sim);
	testlib_remove_tree(dir);
}

/* The command a line runs catalyst-audit with (CMD_NONE for help and
 * --version), through the real parser; -1 when the line runs no
 * catalyst-audit. */
static int command_of(const char *line)
{
	char *plain = without_comment(line);
	const char *at = strstr(plain, "catalyst-audit");
	if (!at || (at != plain && at[-1] != ' ' && at[-1] != '|')) {
		free(plain);
		return -1;
	}
	/* Up to what the shell reads itself: a pipe, a redirection, a list. */
	char *words = strdup(at);
	words[strcspn(words, "|><;&")] = '\0';
	wordexp_t w;
	ck_assert_msg(wordexp(words, &w, WRDE_NOCMD | WRDE_UNDEF) == 0, "cannot split '%s'", words);
	struct audit_request rq;
	struct config cfg;
	struct err e;
	err_clear(&e);
	int action = cli_parse((int)w.we_wordc, w.we_wordv, &rq, &cfg, &e);
	ck_assert_msg(action >= 0, "'%s': %s", line, e.msg);
	int cmd = action == CLI_ACTION_RUN ? (int)rq.command : CMD_NONE;
	config_finish(&cfg);
	wordfree(&w);
	free(words);
	free(plain);
	return cmd;
}

static char *browser_log(void)
{
	char path[400];
	snprintf(path, sizeof path, "%s.log", recorder);
	char *log = testlib_read_file(path, NULL);
	unlink(path);
	return log;
}

/* Runs one example as /bin/sh would; returns the output (caller frees). */
static void run_line(const char *line, const char *where_to, const char *server, bool signin, bool person,
		     struct testlib_output *o)
{
	char env_path[4600], env_url[400], env_browser[400], env_person[400], env_xdg[400], env_home[400],
		env_build[600];
	const char *path = getenv("PATH");
	snprintf(env_path, sizeof env_path, "PATH=%s:%s", shims, path ? path : "/usr/bin:/bin");
	snprintf(env_url, sizeof env_url, "CATALYST_MCP_URL=%s", server);
	snprintf(env_browser, sizeof env_browser, "BROWSER=%s",
		 signin ? testlib_src("tests/sim/follow-redirect.sh") : recorder);
	snprintf(env_person, sizeof env_person, "PERSON=%s",
		 person ? testlib_src("tests/sim/follow-redirect.sh") : "");
	snprintf(env_xdg, sizeof env_xdg, "XDG_CONFIG_HOME=%s/config", dir);
	snprintf(env_home, sizeof env_home, "HOME=%s", dir);
	snprintf(env_build, sizeof env_build, "CATALYST_DEMO_BUILD_DIR=%s", testlib_env("CA_BUILD_DIR"));
	char *env[] = {env_path, env_url,   env_browser,       env_person, env_xdg,
		       env_home, env_build, "CATALYST_TOKEN=", "CI=",      "CATALYST_LOGIN_TIMEOUT=30",
		       NULL};
	char *argv[] = {"/bin/sh", runner, (char *)line, (char *)where_to, NULL};
	/* login signs a person in: at a terminal (issue 19); the runner
	 * hands its stdin on to the example (3<&0: a background job's is
	 * /dev/null otherwise). */
	testlib_stdin_tty = strstr(line, " login") != NULL;
	ck_assert_int_eq(testlib_run(argv, env, NULL, 0, RUN_TIMEOUT_MS, o), 0);
	testlib_stdin_tty = false;
	ck_assert_msg(!o->timed_out, "'%s' hung; stderr: %s", line, o->err);
}

START_TEST(every_documented_example_runs)
{
	from_readme();
	from_man();
	from_help();
	bool seen_exempt[N_EXEMPT] = {false};
	size_t ran = 0;
	for (size_t i = 0; i < n_examples; i++) {
		const struct example *ex = &examples[i];
		char *plain = without_comment(ex->line);
		size_t k = 0;
		while (k < N_EXEMPT && strcmp(exempt[k].line, plain) != 0)
			k++;
		if (k < N_EXEMPT) {
			printf("not run (%s): %s: %s\n", exempt[k].why, ex->where, ex->line);
			seen_exempt[k] = true;
			free(plain);
			continue;
		}
		struct testlib_output o;
		if (strncmp(plain, "bash scripts/demo.sh", 20) == 0) {
			/* The README's first command: from the top of the checkout. */
			run_line(ex->line, testlib_env("CA_SOURCE_DIR"), "", false, false, &o);
			ck_assert_msg(o.status == 0, "%s: '%s' exited %d: %s", ex->where, ex->line, o.status,
				      o.err);
			ck_assert_msg(strstr(o.err, "demo: catalyst-audit is built in "), "%s: %s", ex->where,
				      o.err);
			ck_assert_msg(strstr(o.out, "pay-20931"), "%s: %s", ex->where, o.out);
			printf("ran (status %d): %s: %s\n", o.status, ex->where, ex->line);
			testlib_output_free(&o);
			free(plain);
			ran++;
			continue;
		}
		int cmd = command_of(ex->line);
		ck_assert_msg(cmd >= 0,
			      "%s: '%s' runs no catalyst-audit: make it runnable against the demo data, or add it "
			      "to `exempt` in tests/test_examples.c with the reason",
			      ex->where, ex->line);
		bool signin = cmd == CMD_LOGIN;
		run_line(ex->line, work, signin ? mcp.url : sim.url, signin, strstr(plain, "--no-browser") != NULL,
			 &o);
		bool audit = cmd == CMD_RUN || cmd == CMD_RUNS || cmd == CMD_FILE || cmd == CMD_STATS ||
			     cmd == CMD_REVIEW;
		ck_assert_msg(o.status == 0 || (audit && o.status == 1),
			      "%s: '%s' exited %d (the docs imply %s): %s", ex->where, ex->line, o.status,
			      audit ? "0 or 1" : "0", o.err);
		ck_assert_msg(!strstr(o.err, "error:"), "%s: '%s': %s", ex->where, ex->line, o.err);
		if (cmd == CMD_LINK)
			ck_assert_msg(strstr(o.out, "https://catalyst.diagrid.io/workflows/"),
				      "%s: '%s' printed %s", ex->where, ex->line, o.out);
		char *log = browser_log();
		if (strstr(plain, "--web"))
			ck_assert_msg(log && strncmp(log, "https://catalyst.diagrid.io/workflows/", 38) == 0,
				      "%s: '%s' opened %s", ex->where, ex->line, log ? log : "nothing");
		else
			ck_assert_msg(!log, "%s: '%s' opened a browser: %s", ex->where, ex->line, log);
		if (signin)
			ck_assert_msg(strstr(o.err, "signed in to"), "%s: %s", ex->where, o.err);
		printf("ran (status %d): %s: %s\n", o.status, ex->where, ex->line);
		free(log);
		testlib_output_free(&o);
		free(plain);
		ran++;
	}
	for (size_t k = 0; k < N_EXEMPT; k++)
		ck_assert_msg(seen_exempt[k],
			      "exempt line '%s' is in no document any more: remove it from the list",
			      exempt[k].line);
	/* The extraction found the documents' examples, not a handful. */
	ck_assert_uint_ge(ran, 25);
	size_t len = 0;
	char *w = testlib_read_file(writes, &len);
	ck_assert_msg(!w || len == 0, "an example called a write tool: %s", w ? w : "");
	free(w);
	for (size_t i = 0; i < n_examples; i++)
		free(examples[i].line);
	n_examples = 0;
}
END_TEST

/* The README line that contains `has` (an sh example); fails when none
 * does. Caller frees. */
static char *readme_line(const char *has)
{
	from_readme();
	char *line = NULL;
	for (size_t i = 0; i < n_examples; i++) {
		if (!line && strstr(examples[i].line, has))
			line = strdup(examples[i].line);
		free(examples[i].line);
	}
	n_examples = 0;
	ck_assert_msg(line, "README.md shows no command line with %s", has);
	return line;
}

/* The GitHub Actions job in the README runs a command line this test
 * runs: every `run:` of a ```yaml block is one of the ```sh lines. */
START_TEST(ci_snippet_runs_the_tested_line)
{
	char *text = testlib_read_file(testlib_src("README.md"), NULL);
	ck_assert_ptr_nonnull(text);
	bool in_yaml = false;
	size_t runs = 0;
	for (char *next = text, *line; (line = strsep(&next, "\n"));) {
		if (strncmp(line, "```", 3) == 0) {
			in_yaml = !in_yaml && strcmp(line + 3, "yaml") == 0;
			continue;
		}
		const char *run = in_yaml ? strstr(line, "- run: ") : NULL;
		if (!run)
			continue;
		char *want = readme_line(run + strlen("- run: "));
		ck_assert_str_eq(want, run + strlen("- run: "));
		free(want);
		runs++;
	}
	ck_assert_uint_ge(runs, 1);
	free(text);
}
END_TEST

/* The JSON Lines report's run ids (caller frees), one per line. */
static char *jsonl_run_ids(const char *path)
{
	char *text = testlib_read_file(path, NULL);
	ck_assert_msg(text, "no %s", path);
	char *ids = calloc(1, strlen(text) + 1);
	for (char *next = text, *line; (line = strsep(&next, "\n"));) {
		static const char head[] = "{\"type\":\"run\",";
		if (strncmp(line, head, strlen(head)) != 0)
			continue;
		const char *id = strstr(line, "\"run_id\":\"");
		ck_assert_ptr_nonnull(id);
		id += strlen("\"run_id\":\"");
		strncat(ids, id, strcspn(id, "\""));
		strcat(ids, "\n");
	}
	free(text);
	return ids;
}

/* Issue 20, as a platform engineer would script it, against a simulator
 * where order-7750 started 30 h before the newest run and ended an hour
 * before it, and order-7801 finishes between the first listing and the
 * second: (b) the documented nightly job with --state audits every
 * finished run, then only the one that finished since; (c) --ended-since
 * audits a run started before the window that ended inside it, which
 * --since misses; (a) the documented gate, twice over the same runs:
 * exit 1 with N new suspect findings, then with --baseline of that
 * report exit 0 and "0 new (0 suspect), N known"; (d) a mistyped app
 * exits 7. */
START_TEST(scripted_audits_as_documented)
{
	struct testlib_server later;
	char *sim_argv[] = {(char *)testlib_node(),
			    (char *)testlib_src("tests/sim/catalyst-sim.mjs"),
			    "--profile",
			    "a",
			    "--stateless",
			    "--shift-now",
			    "--finish-later",
			    "--max-seconds",
			    "120",
			    NULL};
	ck_assert_int_eq(testlib_server_start(&later, sim_argv, NULL, "LISTENING", 20000), 0);
	struct testlib_output o;
	char path[600];

	/* (b) */
	char *nightly = readme_line("--state");
	run_line(nightly, work, later.url, false, false, &o);
	ck_assert_msg(o.status == 0 || o.status == 1, "'%s' exited %d: %s", nightly, o.status, o.err);
	testlib_output_free(&o);
	snprintf(path, sizeof path, "%s/nightly.jsonl", work);
	char *first = jsonl_run_ids(path);
	ck_assert_msg(strstr(first, "pay-20931\n") && !strstr(first, "order-7801\n"), "first night: %s", first);
	snprintf(path, sizeof path, "%s/audit-state.json", work);
	struct stat sb;
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	run_line(nightly, work, later.url, false, false, &o);
	ck_assert_msg(o.status == 0 || o.status == 1, "'%s' exited %d: %s", nightly, o.status, o.err);
	testlib_output_free(&o);
	snprintf(path, sizeof path, "%s/nightly.jsonl", work);
	char *second = jsonl_run_ids(path);
	ck_assert_msg(strcmp(second, "order-7801\n") == 0, "second night audited: %s", second);
	free(first);
	free(second);
	free(nightly);

	/* (c) */
	char *known_line = readme_line("--output-file known.json");
	run_line(known_line, work, later.url, false, false, &o);
	ck_assert_msg(o.status == 1, "'%s' exited %d: %s", known_line, o.status, o.err);
	testlib_output_free(&o);
	snprintf(path, sizeof path, "%s/known.json", work);
	json_error_t je;
	json_t *known = json_load_file(path, 0, &je);
	ck_assert_msg(known, "%s: %s", path, je.text);
	char *dump = json_dumps(json_object_get(known, "runs"), 0);
	ck_assert_msg(strstr(dump, "\"run_id\": \"order-7750\""), "--ended-since missed order-7750");
	free(dump);
	run_line("catalyst-audit --no-login runs --since 24h -o json", work, later.url, false, false, &o);
	ck_assert_msg(!strstr(o.out, "order-7750"), "--since 24h found order-7750: a run started 30 h ago");
	ck_assert_msg(strstr(o.out, "pay-20931"), "%s", o.err);
	testlib_output_free(&o);

	/* (a) */
	json_t *summary = json_object_get(known, "summary");
	json_int_t n_suspect = json_integer_value(json_object_get(summary, "new_suspect"));
	json_int_t n_findings = json_integer_value(json_object_get(summary, "findings"));
	ck_assert_msg(n_suspect > 0, "the first audit names no new suspect finding");
	ck_assert_int_eq(json_integer_value(json_object_get(summary, "known")), 0);
	json_decref(known);
	char *gate = readme_line("--baseline known.json");
	run_line(gate, work, later.url, false, false, &o);
	char want[200];
	snprintf(want, sizeof want, "0 new (0 suspect), %lld known.", (long long)n_findings);
	char *flat = strdup(o.out);
	for (char *p = flat; *p; p++)
		if (*p == '\n') /* the summary wraps */
			*p = ' ';
	for (char *p; (p = strstr(flat, "  "));)
		memmove(p, p + 1, strlen(p));
	ck_assert_msg(o.status == 0, "'%s' exited %d: %s %s", gate, o.status, o.out, o.err);
	ck_assert_msg(strstr(flat, want), "want '%s' in %s", want, o.out);
	free(flat);
	testlib_output_free(&o);
	free(gate);
	free(known_line);

	/* (d) */
	run_line("catalyst-audit --no-login runs --app Checkout", work, later.url, false, false, &o);
	ck_assert_msg(o.status == 7, "exited %d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "did you mean checkout?"));
	testlib_output_free(&o);
	testlib_server_stop(&later);
}
END_TEST

/* Running, not a zombie waiting for whoever adopted it to reap it. */
static bool alive(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	char *stat = testlib_read_file(path, NULL);
	if (!stat)
		return false;
	const char *end = strrchr(stat, ')');
	bool running = end && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
	free(stat);
	return running;
}

/* `scripts/demo.sh --keep`: the simulator stays, the export line reaches
 * it, its pid stops it. */
START_TEST(demo_keep_leaves_the_simulator_running)
{
	struct testlib_output o, by_hand = {0};
	run_line("bash scripts/demo.sh --keep --limit 1", testlib_env("CA_SOURCE_DIR"), "", false, false, &o);
	/* The pid first: whatever fails below, the simulator this test had
	 * left running is stopped before the assertions. */
	const char *pidtext = strstr(o.err, "or now with: kill ");
	long pid = pidtext ? strtol(pidtext + strlen("or now with: kill "), NULL, 10) : 0;
	const char *ex = strstr(o.err, "  export CATALYST_MCP_URL=http://127.0.0.1:");
	char url[200] = "";
	if (ex)
		sscanf(ex, "  export CATALYST_MCP_URL=%199s", url);
	const char *log = strstr(o.err, ", log ");
	char logdir[400] = "";
	if (log && sscanf(log, ", log %399[^)]", logdir) == 1 && strrchr(logdir, '/'))
		*strrchr(logdir, '/') = '\0';
	bool was_alive = pid > 1 && alive((pid_t)pid);
	/* a command typed by hand afterwards reaches it */
	if (was_alive && *url)
		run_line("catalyst-audit --project payments run pay-20931", work, url, false, false, &by_hand);
	if (pid > 1) {
		kill((pid_t)pid, SIGTERM);
		for (int i = 0; i < 100 && alive((pid_t)pid); i++)
			usleep(50000);
	}
	bool stopped = pid > 1 && !alive((pid_t)pid);
	if (strncmp(logdir, "/tmp/catalyst-demo.", 19) == 0)
		testlib_remove_tree(logdir);

	ck_assert_msg(o.status == 0, "demo.sh --keep exited %d: %s", o.status, o.err);
	ck_assert_msg(pid > 1 && was_alive, "no running simulator named: %s", o.err);
	ck_assert_msg(*url, "no export line: %s", o.err);
	char binline[700];
	snprintf(binline, sizeof binline, "  export PATH=\"%s:$PATH\"", testlib_env("CA_BUILD_DIR"));
	ck_assert_msg(strstr(o.err, binline), "no PATH line for the binary: %s", o.err);
	ck_assert_msg(by_hand.status == 1, "exited %d: %s", by_hand.status, by_hand.err);
	ck_assert_ptr_nonnull(strstr(by_hand.err, "run pay-20931 is in app checkout"));
	ck_assert_msg(stopped, "the simulator did not stop");
	testlib_output_free(&o);
	testlib_output_free(&by_hand);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("examples");
	struct testlib_group *tc = testlib_group("examples");
	testlib_group_checked_fixture(tc, setup, teardown);
	testlib_group_timeout(tc, 240);
	add_test(tc, every_documented_example_runs);
	add_test(tc, demo_keep_leaves_the_simulator_running);
	add_test(tc, ci_snippet_runs_the_tested_line);
	add_test(tc, scripted_audits_as_documented);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
