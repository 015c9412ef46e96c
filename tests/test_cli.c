/* meson-test: integration slow spawns */
/* The command line as a user meets it: help (general and per command),
 * "did you mean", options that do not apply, the output format (text
 * unless asked, -o, --json, --output's name), and the context taken from
 * the environment and the config file, with its precedence and errors.
 * Through the built binary, and through cli_parse() in this process where
 * a table of cases is quicker. */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wordexp.h>

#include "cli.h"
#include "cli_options.h"
#include "data_sharing.h"
#include "oauth.h"
#include "testlib.h"
#include "version.h" /* CATALYST_LIBCURL_SONAME */

#define TIMEOUT_MS 20000
#define FIXTURE "tests/fixtures/b-retry-fail-fail-succeed.catalyst.json"

/* Runs the binary; env may be NULL. */
static void cli(struct testlib_output *o, char *const env[], char *const args[])
{
	ck_assert_int_eq(testlib_run_cli(args, env, NULL, TIMEOUT_MS, o), 0);
	ck_assert_msg(!o->timed_out, "catalyst-audit hung: %s", o->err);
}

/* A file in a fresh directory; returns its path (static, one at a time). */
static const char *write_file(const char *dir, const char *name, const char *text)
{
	static char path[600];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The fixture by its absolute path (the tests run from the build folder). */
static const char *fx(void)
{
	return testlib_src(FIXTURE);
}

/* s with @FORMATS@ replaced by the output formats' names, '|'-joined
 * (render_formats: the tables here name no format by hand). */
static const char *with_formats(const char *s, char *buf, size_t size)
{
	const char *at = strstr(s, "@FORMATS@");
	if (!at) {
		snprintf(buf, size, "%s", s);
		return buf;
	}
	char list[128];
	render_format_list(RENDER_FORMATS_ALL, list, sizeof list);
	snprintf(buf, size, "%.*s%s%s", (int)(at - s), s, list, at + strlen("@FORMATS@"));
	return buf;
}
/* ---- mistakes people make (issue 19) ------------------------------------- */

/* --app-id, the Dapr CLI's spelling, names a saved history's app (so its
 * link can be built); -q silences the warning a contradicting --app-id
 * gives, and --no-color is --color never. */
START_TEST(app_id_quiet_no_color)
{
	struct testlib_output o;
	cli(&o, NULL,
	    (char *[]){"--project", "default", "--app-id", "checkout", "file", (char *)fx(), "--no-color", NULL});
	ck_assert_msg(o.status <= 1, "%d %s", o.status, o.err);
	ck_assert_msg(strstr(o.out, "https://catalyst.diagrid.io/workflows/checkout/"), "%s", o.out);
	ck_assert_ptr_null(strchr(o.out, '\x1b'));
	testlib_output_free(&o);

	const char *env_doc = testlib_src("tests/fixtures/envelope-run-document.catalyst.json");
	cli(&o, NULL, (char *[]){"--app-id", "checkout", "file", (char *)env_doc, NULL});
	ck_assert_msg(strstr(o.err, "names app orders: --app-id checkout is used instead"), "%s", o.err);
	testlib_output_free(&o);
	cli(&o, NULL, (char *[]){"-q", "--app-id", "checkout", "file", (char *)env_doc, NULL});
	ck_assert_str_eq(o.err, "");
	ck_assert_msg(strstr(o.out, "Verdict:"), "%s", o.out);
	testlib_output_free(&o);

	/* one app named twice, two ways */
	cli(&o, NULL, (char *[]){"--app-id", "a", "run", "b", "r", NULL});
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "name two apps"));
	testlib_output_free(&o);
}
END_TEST

/* ---- help ----------------------------------------------------------------- */

START_TEST(help_lists_commands_and_exits_0)
{
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"--help", NULL});
	ck_assert_int_eq(o.status, 0);
	ck_assert_ptr_nonnull(strstr(o.out, "run [APP_ID] RUN_ID"));
	ck_assert_ptr_nonnull(strstr(o.out, "help [COMMAND]"));
	ck_assert_ptr_nonnull(strstr(o.out, "--fail-on"));
	ck_assert_ptr_nonnull(strstr(o.out, "-o, --output FMT"));
	char formats[160];
	ck_assert_ptr_nonnull(strstr(o.out, with_formats("@FORMATS@ (default text)", formats, sizeof formats)));
	ck_assert_ptr_null(strstr(o.out, "TTY"));
	testlib_output_free(&o);

	/* `help` and `-h` alone say the same */
	struct testlib_output h, s;
	cli(&h, NULL, (char *[]){"help", NULL});
	cli(&s, NULL, (char *[]){"-h", NULL});
	ck_assert_int_eq(h.status, 0);
	cli(&o, NULL, (char *[]){"--help", NULL});
	ck_assert_str_eq(h.out, o.out);
	ck_assert_str_eq(s.out, o.out);
	testlib_output_free(&o);
	testlib_output_free(&h);
	testlib_output_free(&s);
}
END_TEST

/* One command's help, four ways: `CMD --help`, `CMD -h`, `help CMD`,
 * `--help CMD`; its usage line, description, the options that apply to
 * it (and no other), and two examples that are valid command lines. */
START_TEST(per_command_help)
{
	testlib_memcheck_row(_i);
	if (cli_commands[_i].cmd == CMD_NONE)
		return; /* `help help`: the usage summary, help_lists_commands_and_exits_0 */
	const char *cmd = cli_commands[_i].name;
	struct testlib_output a, b, c, d;
	cli(&a, NULL, (char *[]){(char *)cmd, "--help", NULL});
	/* The other spellings print the same text by the same path: memcheck
	 * runs the first (CI budget). */
	testlib_cli_memcheck = false;
	cli(&b, NULL, (char *[]){(char *)cmd, "-h", NULL});
	cli(&c, NULL, (char *[]){"help", (char *)cmd, NULL});
	cli(&d, NULL, (char *[]){"--help", (char *)cmd, NULL});
	testlib_cli_memcheck = true;
	ck_assert_msg(a.status == 0, "%s --help: %d %s", cmd, a.status, a.err);
	ck_assert_int_eq(b.status, 0);
	ck_assert_int_eq(c.status, 0);
	ck_assert_int_eq(d.status, 0);
	ck_assert_str_eq(a.out, b.out);
	ck_assert_str_eq(a.out, c.out);
	ck_assert_str_eq(a.out, d.out);

	char usage[64];
	snprintf(usage, sizeof usage, "Usage: catalyst-audit %s [OPTIONS]", cmd);
	ck_assert_msg(strncmp(a.out, usage, strlen(usage)) == 0, "%s", a.out);
	/* Its own options first, then the global ones (issue 19). */
	char own[64];
	snprintf(own, sizeof own, "\nOptions of %s:\n", cmd);
	const char *own_at = strstr(a.out, own), *global_at = strstr(a.out, "\nGlobal options:\n");
	ck_assert_msg(own_at && global_at && own_at < global_at, "%s", a.out);
	ck_assert_ptr_nonnull(strstr(global_at, "  -h, --help"));
	ck_assert_ptr_nonnull(strstr(a.out, "  -h, --help"));
	ck_assert_ptr_nonnull(strstr(a.out, "--config FILE"));

	/* The options each command takes, and some it must not list. */
	static const struct {
		const char *cmd, *has[4], *lacks[4];
	} expect[] = {
		{"run",
		 {"--no-children", "--project", "--fail-on", "--web"},
		 {"--status", "--app", "--limit", "--no-check"}},
		{"runs", {"--status", "--since", "--limit", "--app"}, {NULL}},
		{"stats",
		 {"--since", "--jobs", "--fail-on", "--project"},
		 {"--no-children", "--findings-only", "--web", "--all-runs"}},
		{"review",
		 {"--format", "--fail-on", "--output-file", NULL},
		 {"--server", "--project", "--color", "--status"}},
		{"file",
		 {"--project", "--format", "--data-sharing", "--source"},
		 {"--server", "--stdio", "--status", "--timeout"}},
		{"link",
		 {"--project-id", "--console", "--no-check", "--web"},
		 {"--fail-on", "--status", "--color", "--jobs"}},
		{"login",
		 {"--client-id", "--redirect-path", "--no-browser", "--server"},
		 {"--stdio", "--format", "--project", NULL}},
		{"logout", {"--server", "--client-id", NULL}, {"--no-browser", "--format", "--timeout", NULL}},
		{"whoami",
		 {"--format", "--json", "--output-file", NULL},
		 {"--project", "--status", "--color", NULL}},
		{"tools", {"--stdio", "--format", "--server", NULL}, {"--project", "--fail-on", "--limit", NULL}},
	};
	ck_assert_str_eq(expect[_i].cmd, cmd);
	for (int k = 0; k < 4; k++) {
		char want[48];
		if (expect[_i].has[k]) {
			snprintf(want, sizeof want, " %s ", expect[_i].has[k]);
			ck_assert_msg(strstr(a.out, want), "%s --help lacks %s", cmd, expect[_i].has[k]);
		}
		if (expect[_i].lacks[k]) {
			snprintf(want, sizeof want, " %s ", expect[_i].lacks[k]);
			ck_assert_msg(!strstr(a.out, want), "%s --help lists %s", cmd, expect[_i].lacks[k]);
		}
	}

	/* Two examples, each a command line cli_parse takes for this command. */
	char *ex = strstr(a.out, "\nExamples:\n");
	ck_assert_ptr_nonnull(ex);
	ex += strlen("\nExamples:\n");
	int n_examples = 0;
	for (char *line = ex; strncmp(line, "  catalyst-audit ", 17) == 0; n_examples++) {
		char *nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		char *text = strndup(line + 2, (size_t)(nl - line - 2));
		wordexp_t w;
		ck_assert_int_eq(wordexp(text, &w, WRDE_NOCMD | WRDE_UNDEF), 0);
		struct audit_request rq;
		struct config cfg;
		struct err e;
		err_clear(&e);
		int action = cli_parse((int)w.we_wordc, w.we_wordv, &rq, &cfg, &e);
		ck_assert_msg(action == CLI_ACTION_RUN, "example '%s': %s", text, e.msg);
		ck_assert_msg(rq.command == cli_commands[_i].cmd, "example '%s' is not of %s", text, cmd);
		config_finish(&cfg);
		wordfree(&w);
		free(text);
		line = nl + 1;
	}
	ck_assert_int_eq(n_examples, 2);
	testlib_output_free(&a);
	testlib_output_free(&b);
	testlib_output_free(&c);
	testlib_output_free(&d);
}
END_TEST

/* --help wins over a mistake elsewhere on the line, but not over a
 * command that does not exist. */
START_TEST(help_despite_bad_options)
{
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"runs", "--jobs", "0", "--stauts", "x", "--help", NULL});
	ck_assert_int_eq(o.status, 0);
	ck_assert_ptr_nonnull(strstr(o.out, "Usage: catalyst-audit runs"));
	testlib_output_free(&o);

	cli(&o, NULL, (char *[]){"help", "rnus", NULL});
	ck_assert_int_eq(o.status, 2);
	ck_assert_str_eq(o.err, "catalyst-audit: error: unknown command 'rnus'; did you mean 'runs'?\n");
	testlib_output_free(&o);

	cli(&o, NULL, (char *[]){"nosuch", "--help", NULL});
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "unknown command 'nosuch'"));
	testlib_output_free(&o);

	cli(&o, NULL, (char *[]){"help", "run", "runs", NULL});
	ck_assert_int_eq(o.status, 2);
	testlib_output_free(&o);
}
END_TEST

/* ---- usage errors ------------------------------------------------------ */

static const struct {
	char *args[8];
	const char *err; /* the whole message after "catalyst-audit: error: " */
} usage_cases[] = {
	{{"bogus", NULL}, "unknown command 'bogus' (see catalyst-audit --help)"},
	{{NULL}, "no command given (see catalyst-audit --help)"},
	{{"--format", "yaml", "file", "x", NULL},
	 "--format: expected @FORMATS@, got 'yaml' (a file is written with --output-file yaml)"},
	/* --output is the format, as in kubectl: a file name there is a mistake named */
	{{"file", "x", "--output", "report.json", NULL},
	 "--output: expected @FORMATS@, got 'report.json' (a file is written with --output-file report.json)"},
	{{"--jobs", "0", "runs", NULL}, "--jobs: expected a whole number from 1 to 64, got '0'"},
	{{"run", "a", "b", "c", NULL},
	 "usage: catalyst-audit run [APP_ID] RUN_ID (see catalyst-audit run --help)"},
	{{"link", NULL}, "usage: catalyst-audit link [APP_ID] RUN_ID (see catalyst-audit link --help)"},
	{{"--no-check", "link", "r1", NULL},
	 "link r1 --no-check: without the server the app cannot be looked up; give APP_ID RUN_ID"},
	/* one rule for a format the command does not write */
	{{"-o", "markdown", "link", "a", "b", NULL}, "-o markdown: link writes text or json"},
	{{"link", "a", "b", "--format", "jsonl", NULL}, "--format jsonl: link writes text or json"},
	{{"whoami", "-o", "markdown", NULL}, "-o markdown: whoami writes text or json"},
	{{"tools", "--format", "jsonl", NULL}, "--format jsonl: tools writes text or json"},
	{{"runs", "extra", NULL}, "usage: catalyst-audit runs [FILTERS] (see catalyst-audit runs --help)"},
	{{"file", "x", "--format", NULL}, "--format needs a value (FMT)"},
	{{"file", "x", "-o", NULL}, "--output needs a value (FMT)"},
	{{"-o", "json", "--format", "text", "file", "x", NULL},
	 "-o and --format ask for two different formats: give one"},
	{{"--json", "-o", "markdown", "file", "x", NULL}, "--json and -o ask for two different formats: give one"},
	{{"--project", "a", "--project-id", "1", "link", "a", "b", NULL},
	 "--project and --project-id name one project two ways: give one"},
	{{"--project-id", "abc", "link", "a", "b", NULL},
	 "--project-id: expected a numeric project uid (165 or prj-165), got 'abc'"},
	{{"--json=yes", "file", "x", NULL}, "--json takes no value"},
	{{"--config", "", "file", "x", NULL}, "--config: the path is empty"},
	{{"--config", "/nonexistent/catalyst-audit.conf", "file", "x", NULL},
	 "config file /nonexistent/catalyst-audit.conf: No such file or directory"},
};

START_TEST(usage_errors_exit_2)
{
	struct testlib_output o;
	/* One parser behind every row: memcheck runs the first (CI budget). */
	testlib_cli_memcheck = _i == 0;
	cli(&o, NULL, usage_cases[_i].args);
	testlib_cli_memcheck = true;
	ck_assert_msg(o.status == 2, "case %d: status %d, stderr %s", _i, o.status, o.err);
	char want[512], err[256];
	snprintf(want, sizeof want, "catalyst-audit: error: %s\n",
		 with_formats(usage_cases[_i].err, err, sizeof err));
	ck_assert_str_eq(o.err, want);
	ck_assert_str_eq(o.out, "");
	testlib_output_free(&o);
}
END_TEST

/* "Did you mean": commands and options, long, prefixed or with one dash. */
static const struct {
	char *args[6];
	const char *err;
} suggest_cases[] = {
	{{"rnus", NULL}, "unknown command 'rnus'; did you mean 'runs'?"},
	{{"fiel", "x", NULL}, "unknown command 'fiel'; did you mean 'file'?"},
	{{"RUNS", NULL}, "unknown command 'RUNS'; did you mean 'runs'?"},
	{{"whoiam", NULL}, "unknown command 'whoiam'; did you mean 'whoami'?"},
	{{"audit", NULL}, "unknown command 'audit' (see catalyst-audit --help)"},
	/* words of other tools (issue 19) */
	{{"list", NULL}, "unknown command 'list'; did you mean 'runs'?"},
	{{"runs", "--stauts", "failed", NULL}, "unknown option --stauts; did you mean --status?"},
	{{"runs", "--stauts=failed", NULL}, "unknown option --stauts; did you mean --status?"},
	{{"--fial-on", "never", "file", "x", NULL}, "unknown option --fial-on; did you mean --fail-on?"},
	/* getopt_long would take these abbreviations; they are refused, with the name */
	{{"runs", "--stat", "failed", NULL}, "unknown option --stat; did you mean --state?"},
	{{"--proj", "x", "link", "a", "b", NULL}, "unknown option --proj; did you mean --project?"},
	{{"runs", "-status", "failed", NULL}, "unknown option -s (in -status); did you mean --status?"},
	{{"file", "x", "-output", "y", NULL}, "unknown option -output; did you mean --output?"},
	{{"runs", "--colour", "never", NULL}, "unknown option --colour; did you mean --color?"},
	{{"runs", "--frobnicate", NULL}, "unknown option --frobnicate (see catalyst-audit --help)"},
	{{"runs", "-x", NULL}, "unknown option -x (see catalyst-audit --help)"},
};

START_TEST(did_you_mean)
{
	struct testlib_output o;
	/* One parser behind every row: memcheck runs the first (CI budget). */
	testlib_cli_memcheck = _i == 0;
	cli(&o, NULL, suggest_cases[_i].args);
	testlib_cli_memcheck = true;
	ck_assert_msg(o.status == 2, "case %d: status %d, stderr %s", _i, o.status, o.err);
	char want[512];
	snprintf(want, sizeof want, "catalyst-audit: error: %s\n", suggest_cases[_i].err);
	ck_assert_str_eq(o.err, want);
	testlib_output_free(&o);
}
END_TEST

/* An option the command would ignore is an error naming both, wherever
 * it stands on the line. */
static const struct {
	char *args[8];
	const char *err;
} inapplicable_cases[] = {
	{{"run", "app", "run-1", "--status", "failed", NULL},
	 "--status does not apply to run (only to runs and stats; see catalyst-audit run --help)"},
	{{"--status", "failed", "run", "app", "run-1", NULL},
	 "--status does not apply to run (only to runs and stats; see catalyst-audit run --help)"},
	{{"file", FIXTURE, "--app", "x", NULL},
	 "--app does not apply to file (only to runs and stats; see catalyst-audit file --help)"},
	{{"login", "--limit", "3", NULL},
	 "--limit does not apply to login (only to runs and stats; see catalyst-audit login --help)"},
	{{"file", FIXTURE, "--server", "http://127.0.0.1:1/mcp", NULL},
	 "--server does not apply to file (only to run, runs, stats, link, login, logout, whoami and tools; see "
	 "catalyst-audit file --help)"},
	{{"link", "a", "b", "--fail-on", "never", NULL},
	 "--fail-on does not apply to link (only to run, runs, stats, review and file; see catalyst-audit link --help)"},
	{{"whoami", "-o", "json", "--web", NULL},
	 "--web does not apply to whoami (only to run and link; see catalyst-audit whoami --help)"},
	{{"run", "a", "b", "--no-check", NULL},
	 "--no-check does not apply to run (only to link; see catalyst-audit run --help)"},
	{{"whoami", "--color", "never", NULL},
	 "--color does not apply to whoami (only to run, runs, stats and file; see catalyst-audit whoami --help)"},
	{{"login", "--stdio", "cat", NULL},
	 "--stdio does not apply to login (only to run, runs, stats, link, whoami and tools; see catalyst-audit login "
	 "--help)"},
	{{"logout", "--timeout", "3", NULL},
	 "--timeout does not apply to logout (only to run, runs, stats, link, login, whoami and tools; see catalyst-audit "
	 "logout --help)"},
	{{"file", FIXTURE, "--no-children", NULL},
	 "--no-children does not apply to file (only to run and runs; see catalyst-audit file --help)"},
	{{"tools", "--project", "p", NULL},
	 "--project does not apply to tools (only to run, runs, stats, file and link; see catalyst-audit tools --help)"},
};

START_TEST(inapplicable_options_exit_2)
{
	struct testlib_output o;
	/* One parser behind every row: memcheck runs the first (CI budget). */
	testlib_cli_memcheck = _i == 0;
	cli(&o, NULL, inapplicable_cases[_i].args);
	testlib_cli_memcheck = true;
	ck_assert_msg(o.status == 2, "case %d: status %d, stderr %s", _i, o.status, o.err);
	char want[512];
	snprintf(want, sizeof want, "catalyst-audit: error: %s\n", inapplicable_cases[_i].err);
	ck_assert_str_eq(o.err, want);
	ck_assert_str_eq(o.out, "");
	testlib_output_free(&o);
}
END_TEST

START_TEST(double_dash_ends_options)
{
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"file", "--", "--not-an-option.json", NULL});
	ck_assert_int_eq(o.status, 6); /* a path that does not exist, not an unknown option */
	ck_assert_ptr_nonnull(strstr(o.err, "--not-an-option.json"));
	ck_assert_ptr_null(strstr(o.err, "unknown option"));
	testlib_output_free(&o);
}
END_TEST

/* Issue 16, item 5: the table `dapr workflow history` prints without -o
 * json is read when it has TYPE, NAME and EVENTID (tests/fixtures/k6-*);
 * one without them exits 6 with how to save a history. */
START_TEST(table_view_without_columns_exits_6)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-table");
	const char *path = write_file(dir, "history.txt",
				      "TYPE           NAME        ELAPSED  STATUS   DETAILS\n"
				      "TaskScheduled  ChargeCard  31.0ms   RUNNING  -\n");
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"file", (char *)path, NULL});
	ck_assert_int_eq(o.status, 6);
	ck_assert_msg(strstr(o.err, "this is the table view of `dapr workflow history`"), "%s", o.err);
	ck_assert_ptr_nonnull(strstr(o.err, "save the history with `dapr workflow history ID -o json`"));
	ck_assert_str_eq(o.out, "");
	testlib_output_free(&o);
	cli(&o, NULL,
	    (char *[]){"file", (char *)testlib_src("tests/fixtures/k6-cli-table-short.cli-1.18.txt"), NULL});
	ck_assert_msg(o.status == 0, "status %d: %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.out, "reexecuted ChargeCard"));
	ck_assert_ptr_nonnull(strstr(o.out, "table view of dapr workflow history"));
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

START_TEST(version_names_libraries)
{
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"--version", NULL});
	ck_assert_int_eq(o.status, 0);
	ck_assert_ptr_nonnull(strstr(o.out, "catalyst-audit "));
	ck_assert_ptr_nonnull(strstr(o.out, "libcurl "));
	ck_assert_ptr_nonnull(strstr(o.out, "jansson "));
	testlib_output_free(&o);
}
END_TEST

/* What the dynamic loader says it opened (LD_DEBUG=files) while the
 * binary ran args: libcurl is not linked (src/curl_lazy.c), so only a
 * command that uses it loads it. Not under memcheck: valgrind's own
 * loading would be in the same lines. */
static bool loads_libcurl(char *const args[])
{
	struct testlib_output o;
	testlib_cli_memcheck = false;
	cli(&o, (char *[]){"LD_DEBUG=files", NULL}, args);
	ck_assert_msg(strstr(o.err, "file=libjansson.so.4"), "LD_DEBUG gave no list: %s", o.err);
	bool loaded = strstr(o.err, "file=" CATALYST_LIBCURL_SONAME) != NULL;
	testlib_output_free(&o);
	return loaded;
}

/* `file` (the on-call's first command, often on a big history) never
 * opens libcurl and the 29 libraries it brings: 4.7 MB of memory; a
 * console link of a file does (curl checks the base URL), and so does
 * --version (it names the libcurl in use). */
START_TEST(libcurl_loaded_only_when_used)
{
	ck_assert(!loads_libcurl((char *[]){"file", (char *)fx(), NULL}));
	ck_assert(!loads_libcurl((char *[]){"--format", "json", "file", (char *)fx(), NULL}));
	ck_assert(loads_libcurl(
		(char *[]){"--project", "default", "--app-id", "checkout", "file", (char *)fx(), NULL}));
	ck_assert(loads_libcurl((char *[]){"--version", NULL}));
}
END_TEST

/* A libcurl that cannot be used (here a library of that name without
 * libcurl's functions, first on LD_LIBRARY_PATH): the commands that need
 * it say so and stop with 70 before any connection; `file` works. */
START_TEST(libcurl_unusable_said)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "fakecurl");
	/* A copy of jansson, which this test links: a real library. */
	void *jansson = dlopen("libjansson.so.4", RTLD_LAZY | RTLD_NOLOAD);
	struct link_map *map = NULL;
	ck_assert(jansson && dlinfo(jansson, RTLD_DI_LINKMAP, &map) == 0 && map->l_name);
	size_t len;
	char *lib = testlib_read_file(map->l_name, &len);
	dlclose(jansson);
	ck_assert_ptr_nonnull(lib);
	char path[512], env[600];
	snprintf(path, sizeof path, "%s/%s", dir, CATALYST_LIBCURL_SONAME);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(lib, 1, len, f), len);
	fclose(f);
	free(lib);
	snprintf(env, sizeof env, "LD_LIBRARY_PATH=%s", dir);

	struct testlib_output o;
	cli(&o, (char *[]){env, NULL}, (char *[]){"--version", NULL});
	ck_assert_int_eq(o.status, 0);
	ck_assert_msg(strstr(o.out, "libcurl: libcurl could not be loaded: " CATALYST_LIBCURL_SONAME
				    " has no curl_global_init"),
		      "%s", o.out);
	testlib_output_free(&o);
	/* --server is checked with libcurl's URL parser as it is read */
	cli(&o, (char *[]){env, NULL}, (char *[]){"--server", "http://127.0.0.1:9/mcp", "tools", NULL});
	ck_assert_int_eq(o.status, 70);
	ck_assert_msg(strstr(o.err, "libcurl could not be loaded"), "%s", o.err);
	testlib_output_free(&o);
	/* the default server: libcurl's start fails before any connection */
	cli(&o, (char *[]){env, NULL}, (char *[]){"tools", NULL});
	ck_assert_int_eq(o.status, 70);
	ck_assert_msg(strstr(o.err, "curl_global_init: libcurl could not be loaded"), "%s", o.err);
	testlib_output_free(&o);
	/* a file's console link is the one thing `file` needs it for */
	cli(&o, (char *[]){env, NULL},
	    (char *[]){"--project", "default", "--app-id", "checkout", "file", (char *)fx(), NULL});
	ck_assert_msg(o.status == 1, "%d %s", o.status, o.err);
	ck_assert_msg(strstr(o.out, "no console link: libcurl could not be loaded"), "%s", o.out);
	testlib_output_free(&o);
	cli(&o, (char *[]){env, NULL}, (char *[]){"file", (char *)fx(), NULL});
	ck_assert_msg(o.status == 1, "%d %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.out, "ChargeCard"));
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

/* ---- the output format ------------------------------------------------------ */

/* Standard output here is a pipe: the report is text all the same. */
START_TEST(text_unless_asked_when_piped)
{
	struct testlib_output plain, text;
	cli(&plain, NULL, (char *[]){"file", (char *)fx(), NULL});
	cli(&text, NULL, (char *[]){"--format", "text", "file", (char *)fx(), NULL});
	ck_assert_int_eq(plain.status, 1);
	ck_assert_str_eq(plain.out, text.out);
	ck_assert(plain.out[0] != '{');
	ck_assert_ptr_null(strstr(plain.out, "catalyst-audit.report/v1"));
	testlib_output_free(&plain);
	testlib_output_free(&text);
}
END_TEST

/* --output json, -o json, -ojson, --output=json, --format json and --json:
 * one report. */
START_TEST(json_spellings_agree)
{
	struct testlib_output ref;
	cli(&ref, NULL, (char *[]){"--format", "json", "file", (char *)fx(), NULL});
	ck_assert_ptr_nonnull(strstr(ref.out, "\"schema\": \"catalyst-audit.report/v1\""));
	static char *const spellings[][3] = {{"-o", "json", NULL},    {"-ojson", NULL},
					     {"--format=json", NULL}, {"--output", "json", NULL},
					     {"--json", NULL},        {"--output=json", NULL}};
	for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++) {
		char *args[6] = {spellings[i][0], spellings[i][1], NULL};
		int n = spellings[i][1] ? 2 : 1;
		args[n++] = "file";
		args[n++] = (char *)fx();
		args[n] = NULL;
		struct testlib_output o;
		cli(&o, NULL, args);
		ck_assert_msg(o.status == 1, "%s: %d %s", spellings[i][0], o.status, o.err);
		ck_assert_str_eq(o.out, ref.out);
		testlib_output_free(&o);
	}
	/* the same format twice is no conflict */
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"--json", "-o", "json", "file", (char *)fx(), NULL});
	ck_assert_int_eq(o.status, 1);
	ck_assert_str_eq(o.out, ref.out);
	testlib_output_free(&o);
	testlib_output_free(&ref);
}
END_TEST

/* --output-file's extension picks the format; an explicit one wins. */
START_TEST(output_extension_picks_format)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-output");
	static const struct {
		const char *name;
		const char *format; /* explicit, or NULL */
		const char *starts; /* what the file begins with */
	} cases[] = {
		{"r.json", NULL, "{\n  \"schema\": \"catalyst-audit.report/v1\""},
		{"R.JSON", NULL, "{\n  \"schema\": \"catalyst-audit.report/v1\""},
		{"r.md", NULL, "## "},
		{"r.txt", NULL, "Verdict: "},
		{"r", NULL, "Verdict: "},
		{"r.json", "text", "Verdict: "},
		{"r.md", "json", "{\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
		unlink(path);
		char *args[8] = {"--output-file", path};
		int n = 2;
		if (cases[i].format) {
			args[n++] = "--format";
			args[n++] = (char *)cases[i].format;
		}
		args[n++] = "file";
		args[n++] = (char *)fx();
		args[n] = NULL;
		struct testlib_output o;
		cli(&o, NULL, args);
		ck_assert_msg(o.status == 1, "%s: %d %s", cases[i].name, o.status, o.err);
		ck_assert_str_eq(o.out, "");
		char *got = testlib_read_file(path, NULL);
		ck_assert_ptr_nonnull(got);
		ck_assert_msg(strncmp(got, cases[i].starts, strlen(cases[i].starts)) == 0, "%s (%s): %.80s",
			      cases[i].name, cases[i].format ? cases[i].format : "no --format", got);
		free(got);
		testlib_output_free(&o);
	}
	/* .jsonl picks JSON Lines: a run line, then the summary line */
	char path[512];
	snprintf(path, sizeof path, "%s/r.jsonl", dir);
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"--output-file", path, "file", (char *)fx(), NULL});
	ck_assert_int_eq(o.status, 1);
	ck_assert_str_eq(o.err, "");
	char *got = testlib_read_file(path, NULL);
	ck_assert_ptr_nonnull(got);
	ck_assert_msg(strncmp(got, "{\"type\":\"run\",\"app_id\":null,\"run_id\":\"pay-20931\"", 47) == 0, "%.80s",
		      got);
	char *nl = strchr(got, '\n');
	ck_assert_ptr_nonnull(nl);
	const char *summary_start = "{\"type\":\"summary\",\"schema\":\"catalyst-audit.report/v1\",";
	ck_assert_msg(strncmp(nl + 1, summary_start, strlen(summary_start)) == 0, "%.80s", nl + 1);
	ck_assert_str_eq(strchr(nl + 1, '\n'), "\n");
	free(got);
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

START_TEST(jsonl_is_accepted_by_the_options)
{
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"-o", "jsonl", "file", (char *)fx(), NULL});
	ck_assert_int_eq(o.status, 1);
	ck_assert_str_eq(o.err, "");
	/* one object per line: a run, then the summary */
	size_t lines = 0;
	for (const char *p = o.out; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_uint_eq(lines, 2);
	ck_assert_ptr_nonnull(strstr(o.out, "\"summary\":\"attempt 1 failed with"));
	testlib_output_free(&o);
	/* the views cannot be asked for together */
	cli(&o, NULL, (char *[]){"--verbose-report", "--findings-only", "file", (char *)fx(), NULL});
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "ask for two views"));
	testlib_output_free(&o);
	cli(&o, NULL, (char *[]){"--all-runs", "--findings-only", "file", (char *)fx(), NULL});
	ck_assert_int_eq(o.status, 2);
	testlib_output_free(&o);
}
END_TEST

/* ---- context: environment and config file -------------------------------- */

/* The link shows which project and console won. */
static void link_with(struct testlib_output *o, char *const env[], char *const extra[])
{
	char *args[16];
	int n = 0;
	for (; extra && extra[n]; n++)
		args[n] = extra[n];
	args[n++] = "--no-check"; /* no server asked */
	args[n++] = "link";
	args[n++] = "orders";
	args[n++] = "o1";
	args[n] = NULL;
	cli(o, env, args);
}

START_TEST(project_precedence_end_to_end)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-context");
	char cfgvar[700];
	snprintf(cfgvar, sizeof cfgvar, "CATALYST_AUDIT_CONFIG=%s",
		 write_file(dir, "config", "project = cfgp\nconsole = http://console.test\n"));
	struct testlib_output o;

	link_with(&o, (char *[]){cfgvar, NULL}, NULL);
	ck_assert_str_eq(o.out, "http://console.test/workflows/orders/o1?project=cfgp\n");
	testlib_output_free(&o);

	link_with(&o, (char *[]){cfgvar, "CATALYST_PROJECT=envp", NULL}, NULL);
	ck_assert_str_eq(o.out, "http://console.test/workflows/orders/o1?project=envp\n");
	testlib_output_free(&o);

	/* the environment's uid replaces the config file's name */
	link_with(&o, (char *[]){cfgvar, "CATALYST_PROJECT_ID=prj-7", NULL}, NULL);
	ck_assert_str_eq(o.out, "http://console.test/workflows/orders/o1?projectId=prj-7\n");
	testlib_output_free(&o);

	/* both variables: which project? unless the command line says */
	link_with(&o, (char *[]){cfgvar, "CATALYST_PROJECT=envp", "CATALYST_PROJECT_ID=7", NULL}, NULL);
	ck_assert_int_eq(o.status, 2);
	ck_assert_str_eq(o.err,
			 "catalyst-audit: error: CATALYST_PROJECT and CATALYST_PROJECT_ID name one project two "
			 "ways: give one\n");
	testlib_output_free(&o);
	link_with(&o, (char *[]){cfgvar, "CATALYST_PROJECT=envp", "CATALYST_PROJECT_ID=7", NULL},
		  (char *[]){"--project-id", "9", NULL});
	ck_assert_str_eq(o.out, "http://console.test/workflows/orders/o1?projectId=9\n");
	testlib_output_free(&o);
	link_with(&o, (char *[]){cfgvar, "CATALYST_PROJECT_ID=7", NULL}, (char *[]){"--project", "linep", NULL});
	ck_assert_str_eq(o.out, "http://console.test/workflows/orders/o1?project=linep\n");
	testlib_output_free(&o);
	/* --console on the line beats the config file's */
	link_with(&o, (char *[]){cfgvar, NULL}, (char *[]){"--console", "http://other.test", NULL});
	ck_assert_str_eq(o.out, "http://other.test/workflows/orders/o1?project=cfgp\n");
	testlib_output_free(&o);

	/* --config beats CATALYST_AUDIT_CONFIG; /dev/null reads nothing */
	link_with(&o, (char *[]){cfgvar, NULL}, (char *[]){"--config", "/dev/null", NULL});
	ck_assert_str_eq(o.out, "https://catalyst.diagrid.io/workflows/orders/o1?project=default\n");
	testlib_output_free(&o);

	/* the default place: $XDG_CONFIG_HOME, else $HOME/.config */
	char xdg[700], home[700], sub[700];
	snprintf(sub, sizeof sub, "%s/catalyst-audit", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	write_file(sub, "config", "project = xdgp\n");
	snprintf(xdg, sizeof xdg, "XDG_CONFIG_HOME=%s", dir);
	link_with(&o, (char *[]){"CATALYST_AUDIT_CONFIG=", xdg, NULL}, NULL);
	ck_assert_str_eq(o.out, "https://catalyst.diagrid.io/workflows/orders/o1?project=xdgp\n");
	testlib_output_free(&o);
	snprintf(sub, sizeof sub, "%s/.config", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof sub, "%s/.config/catalyst-audit", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	write_file(sub, "config", "project = homep\n");
	snprintf(home, sizeof home, "HOME=%s", dir);
	link_with(&o, (char *[]){"CATALYST_AUDIT_CONFIG=", "XDG_CONFIG_HOME=", home, NULL}, NULL);
	ck_assert_str_eq(o.out, "https://catalyst.diagrid.io/workflows/orders/o1?project=homep\n");
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

/* The server comes from the line, else the environment, else the file:
 * the connection error names the one used (port 1 on loopback refuses). */
START_TEST(server_precedence_end_to_end)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-server");
	char cfgvar[700];
	snprintf(cfgvar, sizeof cfgvar, "CATALYST_AUDIT_CONFIG=%s",
		 write_file(dir, "config", "server = http://127.0.0.1:1/from-config\n"));
	static const struct {
		const char *env_url, *line_url, *want;
	} cases[] = {
		{NULL, NULL, "http://127.0.0.1:1/from-config"},
		{"CATALYST_MCP_URL=http://127.0.0.1:1/from-env", NULL, "http://127.0.0.1:1/from-env"},
		{"CATALYST_MCP_URL=http://127.0.0.1:1/from-env", "http://127.0.0.1:1/from-line",
		 "http://127.0.0.1:1/from-line"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *env[] = {cfgvar, (char *)cases[i].env_url, NULL};
		char *args[6] = {"--no-login", "whoami", NULL};
		if (cases[i].line_url) {
			args[2] = "--server";
			args[3] = (char *)cases[i].line_url;
		}
		struct testlib_output o;
		cli(&o, env, args);
		ck_assert_msg(o.status == 5, "%zu: %d %s", i, o.status, o.err);
		char want[256];
		snprintf(want, sizeof want, "connecting to %s", cases[i].want);
		ck_assert_msg(strstr(o.err, want), "%zu: %s", i, o.err);
		testlib_output_free(&o);
	}
	testlib_remove_tree(dir);
}
END_TEST

/* format from the file: the line's choice and --output-file's name beat it;
 * color = always there is not undone by NO_COLOR (no-color.org). */
START_TEST(config_format_and_color)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-format");
	char cfg[600];
	snprintf(cfg, sizeof cfg, "%s", write_file(dir, "config", "format = json\ncolor = always\n"));
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"--config", cfg, "file", (char *)fx(), NULL});
	ck_assert_msg(strncmp(o.out, "{\n  \"schema\"", 12) == 0, "%.80s", o.out);
	testlib_output_free(&o);
	cli(&o, NULL, (char *[]){"--config", cfg, "-o", "text", "file", (char *)fx(), NULL});
	ck_assert_ptr_nonnull(strstr(o.out, "\033[")); /* NO_COLOR=1 is set for every test */
	testlib_output_free(&o);
	char out[600];
	snprintf(out, sizeof out, "%s/report.md", dir);
	cli(&o, NULL, (char *[]){"--config", cfg, "--output-file", out, "file", (char *)fx(), NULL});
	char *md = testlib_read_file(out, NULL);
	ck_assert_ptr_nonnull(md);
	ck_assert_msg(strncmp(md, "## ", 3) == 0, "%.80s", md);
	free(md);
	testlib_output_free(&o);
	/* a link is not bothered by it: the config's format is for reports */
	cli(&o, NULL, (char *[]){"--config", cfg, "--no-check", "link", "a", "b", NULL});
	ck_assert_int_eq(o.status, 0);
	ck_assert_str_eq(o.out, "https://catalyst.diagrid.io/workflows/a/b?project=default\n");
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

/* A bad config file: exit 2, the file and line named, a secret never echoed. */
static const struct {
	const char *text;
	const char *err; /* after "<path>:" */
} config_error_cases[] = {
	{"# mine\nsever = https://x\n", "2: unknown key 'sever'; did you mean 'server'?"},
	{"timeout = 0\n", "1: timeout: expected a whole number from 1 to 86400, got '0'"},
	{"\nformat = yaml\n", "2: format: expected @FORMATS@, got 'yaml'"},
	{"fail-on = sometimes\n", "1: fail-on: expected never|reexecuted|suspect, got 'sometimes'"},
	{"project-id = payments\n",
	 "1: project-id: expected a numeric project uid (165 or prj-165), got 'payments'"},
	{"output = x.json\n", "1: unknown key 'output' (see catalyst-audit(1), FILES)"},
	{"token = eyJhbGciOiJIUzI1NiJ9.c2VjcmV0\n",
	 "1: token: the config file holds no secrets; sign in with `catalyst-audit login` (tokens go to the token "
	 "store) or pass a token in CATALYST_TOKEN"},
	{"project = a\nproject = b\n", "2: project is set twice (first on line 1)"},
	{"project\n", "1: expected `key = value`"},
};

START_TEST(config_errors_name_file_and_line)
{
	testlib_memcheck_row(_i);
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-cfgerr");
	const char *path = write_file(dir, "config", config_error_cases[_i].text);
	char cfgvar[700];
	snprintf(cfgvar, sizeof cfgvar, "CATALYST_AUDIT_CONFIG=%s", path);
	struct testlib_output o;
	cli(&o, (char *[]){cfgvar, NULL}, (char *[]){"file", (char *)fx(), NULL});
	ck_assert_msg(o.status == 2, "case %d: %d %s", _i, o.status, o.err);
	char want[1024], err[512];
	snprintf(want, sizeof want, "catalyst-audit: error: %s:%s\n", path,
		 with_formats(config_error_cases[_i].err, err, sizeof err));
	ck_assert_str_eq(o.err, want);
	ck_assert_ptr_null(strstr(o.err, "c2VjcmV0"));
	ck_assert_str_eq(o.out, "");
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

/* A config file others can write names the server the token goes to:
 * refused with the mode and the fix, as is one in a folder others can
 * write; a UTF-8 byte order mark (Notepad) is skipped. */
START_TEST(config_others_cannot_write)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-cfgmode");
	char cfg[600], cfgvar[700];
	snprintf(cfg, sizeof cfg, "%s",
		 write_file(dir, "config",
			    "\xef\xbb\xbf"
			    "format = json\n"));
	snprintf(cfgvar, sizeof cfgvar, "CATALYST_AUDIT_CONFIG=%s", cfg);
	struct testlib_output o;
	cli(&o, (char *[]){cfgvar, NULL}, (char *[]){"file", (char *)fx(), NULL});
	ck_assert_msg(o.status == 1, "BOM: status %d: %s", o.status, o.err);
	ck_assert_msg(strncmp(o.out, "{\n", 2) == 0, "%.80s", o.out);
	testlib_output_free(&o);
	ck_assert_int_eq(chmod(cfg, 0666), 0);
	cli(&o, (char *[]){cfgvar, NULL}, (char *[]){"file", (char *)fx(), NULL});
	ck_assert_msg(o.status == 2, "0666: status %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.err, "mode 0666") && strstr(o.err, "chmod go-w"), "%s", o.err);
	ck_assert_str_eq(o.out, "");
	testlib_output_free(&o);
	ck_assert_int_eq(chmod(cfg, 0644), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	cli(&o, (char *[]){cfgvar, NULL}, (char *[]){"file", (char *)fx(), NULL});
	ck_assert_msg(o.status == 2, "folder 0777: status %d: %s", o.status, o.err);
	ck_assert_msg(strstr(o.err, "config folder") && strstr(o.err, "mode 0777"), "%s", o.err);
	testlib_output_free(&o);
	chmod(dir, 0700);
	testlib_remove_tree(dir);
}
END_TEST

/* Precedence in detail, through cli_parse: line > environment > file >
 * default, a project of either kind replacing both kinds below it. */
static const struct {
	const char *config;       /* file text, or NULL for none */
	const char *env_project;  /* CATALYST_PROJECT */
	const char *env_uid;      /* CATALYST_PROJECT_ID */
	const char *line[5];      /* options before `file x` */
	const char *want_project; /* NULL: none */
	const char *want_uid;
	const char *want_err; /* a substring, or NULL */
} precedence_cases[] = {
	{NULL, NULL, NULL, {NULL}, NULL, NULL, NULL},
	{"project = c\n", NULL, NULL, {NULL}, "c", NULL, NULL},
	{"project-id = 1\n", NULL, NULL, {NULL}, NULL, "1", NULL},
	{"project = c\n", "e", NULL, {NULL}, "e", NULL, NULL},
	{"project = c\n", NULL, "2", {NULL}, NULL, "2", NULL},
	{"project-id = 1\n", "e", NULL, {NULL}, "e", NULL, NULL},
	{"project = c\n", "e", NULL, {"--project", "l"}, "l", NULL, NULL},
	{"project = c\n", "e", NULL, {"--project-id", "3"}, NULL, "3", NULL},
	{"project = c\n", "e", "2", {"--project", "l"}, "l", NULL, NULL},
	{NULL, "e", "2", {NULL}, NULL, NULL, "CATALYST_PROJECT and CATALYST_PROJECT_ID name one project two ways"},
	{"project = c\nproject-id = 1\n", NULL, NULL, {NULL}, NULL, NULL, ":1: project and "},
	{"project = c\nproject-id = 1\n", "e", NULL, {NULL}, "e", NULL, NULL},
	{"project = c\nproject-id = 1\n", NULL, NULL, {"--project-id", "4"}, NULL, "4", NULL},
	{NULL, "", "", {NULL}, NULL, NULL, NULL}, /* set but empty is unset */
	{NULL, NULL, "abc", {NULL}, NULL, NULL, "CATALYST_PROJECT_ID: expected a numeric project uid"},
};

START_TEST(precedence_table)
{
	testlib_memcheck_row(_i);
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-prec");
	const char *cfgpath = precedence_cases[_i].config ? write_file(dir, "config", precedence_cases[_i].config)
							  : "/dev/null";
	setenv("CATALYST_AUDIT_CONFIG", cfgpath, 1);
	if (precedence_cases[_i].env_project)
		setenv("CATALYST_PROJECT", precedence_cases[_i].env_project, 1);
	else
		unsetenv("CATALYST_PROJECT");
	if (precedence_cases[_i].env_uid)
		setenv("CATALYST_PROJECT_ID", precedence_cases[_i].env_uid, 1);
	else
		unsetenv("CATALYST_PROJECT_ID");
	char *argv[10] = {"catalyst-audit"};
	int argc = 1;
	for (int k = 0; precedence_cases[_i].line[k]; k++)
		argv[argc++] = (char *)precedence_cases[_i].line[k];
	argv[argc++] = "file";
	argv[argc++] = "x";
	argv[argc] = NULL;
	struct audit_request rq;
	struct config cfg;
	struct err e;
	err_clear(&e);
	int action = cli_parse(argc, argv, &rq, &cfg, &e);
	if (precedence_cases[_i].want_err) {
		ck_assert_int_eq(action, -1);
		ck_assert_int_eq(e.code, ERR_USAGE);
		ck_assert_msg(strstr(e.msg, precedence_cases[_i].want_err), "case %d: %s", _i, e.msg);
	} else {
		ck_assert_msg(action == CLI_ACTION_RUN, "case %d: %s", _i, e.msg);
		const char *wp = precedence_cases[_i].want_project, *wu = precedence_cases[_i].want_uid;
		/* The project as the request carries it: named, as a uid, or defaulted. */
		const char *project = !rq.project.defaulted && !rq.project.as_uid ? rq.project.value : NULL;
		const char *project_id = rq.project.as_uid ? rq.project.value : NULL;
		ck_assert(rq.project.defaulted == (!wp && !wu));
		ck_assert_msg((!wp && !project) || (wp && project && strcmp(wp, project) == 0),
			      "case %d: project %s", _i, project ? project : "(none)");
		ck_assert_msg((!wu && !project_id) || (wu && project_id && strcmp(wu, project_id) == 0),
			      "case %d: project id %s", _i, project_id ? project_id : "(none)");
	}
	config_finish(&cfg);
	unsetenv("CATALYST_PROJECT");
	unsetenv("CATALYST_PROJECT_ID");
	setenv("CATALYST_AUDIT_CONFIG", "/dev/null", 1);
	testlib_remove_tree(dir);
}
END_TEST

/* The other keys reach the request, and the line still wins. */
START_TEST(config_reaches_the_request)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-keys");
	const char *path =
		write_file(dir, "config",
			   "server = https://mcp.example/mcp\ncacert = /etc/ca.pem\ntimeout = 7\njobs = 3\n"
			   "console = https://console.example\nformat = markdown\ncolor = never\n"
			   "fail-on = reexecuted\nclient-id = cid\nredirect-path = /cb\n");
	char *argv[] = {"catalyst-audit", "--config", (char *)path, "runs", NULL};
	struct audit_request rq;
	struct config cfg;
	struct err e;
	err_clear(&e);
	unsetenv("CATALYST_MCP_URL");
	ck_assert_int_eq(cli_parse(4, argv, &rq, &cfg, &e), CLI_ACTION_RUN);
	ck_assert_str_eq(rq.server, "https://mcp.example/mcp");
	ck_assert_str_eq(rq.cacert, "/etc/ca.pem");
	ck_assert_int_eq(rq.timeout_s, 7);
	ck_assert_int_eq(rq.jobs, 3);
	ck_assert_str_eq(rq.console, "https://console.example");
	ck_assert_int_eq(rq.format, FORMAT_MARKDOWN);
	ck_assert_int_eq(rq.color, COLOR_NEVER);
	ck_assert_int_eq(rq.fail_on, FAIL_ON_REEXECUTED);
	ck_assert_str_eq(rq.client_id, "cid");
	ck_assert_str_eq(rq.redirect_path, "/cb");
	config_finish(&cfg);

	char *line[] = {"catalyst-audit", "--config",  (char *)path, "--timeout", "9", "--jobs", "1",
			"--json",         "--fail-on", "never",      "runs",      NULL};
	ck_assert_int_eq(cli_parse(11, line, &rq, &cfg, &e), CLI_ACTION_RUN);
	ck_assert_int_eq(rq.timeout_s, 9);
	ck_assert_int_eq(rq.jobs, 1);
	ck_assert_int_eq(rq.format, FORMAT_JSON);
	ck_assert_int_eq(rq.fail_on, FAIL_ON_NEVER);
	config_finish(&cfg);

	/* no config: the built-in defaults, text among them */
	char *bare[] = {"catalyst-audit", "runs", NULL};
	ck_assert_int_eq(cli_parse(2, bare, &rq, &cfg, &e), CLI_ACTION_RUN);
	ck_assert_int_eq(rq.format, FORMAT_TEXT);
	ck_assert(!rq.format_given);
	ck_assert_int_eq(rq.timeout_s, 60);
	config_finish(&cfg);
	testlib_remove_tree(dir);
}
END_TEST

/* run and link take RUN_ID alone (the app found on the server) or APP_ID
 * RUN_ID; a link's format is text or json, whatever the config says. */
START_TEST(run_and_link_arguments)
{
	static const struct {
		const char *line[8];
		enum audit_command cmd;
		const char *app, *run;
		enum render_format format;
		bool web, no_check;
	} cases[] = {
		{{"run", "pay-20931", NULL}, CMD_RUN, NULL, "pay-20931", FORMAT_TEXT, false, false},
		{{"run", "checkout", "pay-20931", "--web", NULL},
		 CMD_RUN,
		 "checkout",
		 "pay-20931",
		 FORMAT_TEXT,
		 true,
		 false},
		{{"link", "pay-20931", "--json", NULL}, CMD_LINK, NULL, "pay-20931", FORMAT_JSON, false, false},
		{{"--no-check", "link", "a", "r", "--web", NULL}, CMD_LINK, "a", "r", FORMAT_TEXT, true, true},
		{{"link", "a", "r", "--output-file", "link.json", NULL},
		 CMD_LINK,
		 "a",
		 "r",
		 FORMAT_JSON,
		 false,
		 false},
		{{"link", "a", "r", "--output-file", "link.md", NULL},
		 CMD_LINK,
		 "a",
		 "r",
		 FORMAT_TEXT,
		 false,
		 false},
		{{"--config", "CONFIG", "link", "a", "r", NULL}, CMD_LINK, "a", "r", FORMAT_TEXT, false, false},
	};
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "cli-args");
	const char *cfgpath = write_file(dir, "config", "format = markdown\n");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *argv[10] = {"catalyst-audit"};
		int argc = 1;
		for (int k = 0; cases[i].line[k]; k++)
			argv[argc++] = strcmp(cases[i].line[k], "CONFIG") == 0 ? (char *)cfgpath
									       : (char *)cases[i].line[k];
		argv[argc] = NULL;
		struct audit_request rq;
		struct config cfg;
		struct err e;
		err_clear(&e);
		ck_assert_msg(cli_parse(argc, argv, &rq, &cfg, &e) == CLI_ACTION_RUN, "case %zu: %s", i, e.msg);
		ck_assert_int_eq(rq.command, cases[i].cmd);
		ck_assert_msg((!cases[i].app && !rq.args[0]) ||
				      (cases[i].app && rq.args[0] && strcmp(cases[i].app, rq.args[0]) == 0),
			      "case %zu: app %s", i, rq.args[0] ? rq.args[0] : "(none)");
		ck_assert_str_eq(rq.args[1], cases[i].run);
		ck_assert_msg(rq.format == cases[i].format, "case %zu: format %d", i, (int)rq.format);
		ck_assert(rq.web == cases[i].web);
		ck_assert(rq.no_check == cases[i].no_check);
		config_finish(&cfg);
	}
	testlib_remove_tree(dir);
}
END_TEST

/* cli_parse into rq for `catalyst-audit ARGS... file x`; the action. */
static int parse_file_command(struct audit_request *rq, const char *const *args)
{
	char *argv[16] = {"catalyst-audit"};
	int argc = 1;
	for (; *args && argc < 13; args++)
		argv[argc++] = (char *)*args;
	argv[argc++] = "file";
	argv[argc++] = "x";
	argv[argc] = NULL;
	struct config cfg;
	struct err e;
	err_clear(&e);
	int action = cli_parse(argc, argv, rq, &cfg, &e);
	ck_assert_msg(action == CLI_ACTION_RUN, "%s", e.msg);
	config_finish(&cfg);
	return action;
}

/* The CLI reads the terminal and the environment once, into the request:
 * whether a prompt may wait (CI, standard input a terminal), the sign-in
 * listener's wait, and --color auto settled (NO_COLOR, TERM=dumb, whether
 * the output is a terminal, --output-file's path included). */
START_TEST(terminal_and_environment_resolved_once)
{
	struct audit_request rq;
	setenv("TERM", "xterm", 1);
	unsetenv("NO_COLOR");
	setenv("CI", "1", 1);
	setenv("CATALYST_LOGIN_TIMEOUT", "7", 1);
	parse_file_command(&rq, (const char *[]){NULL});
	ck_assert(!rq.may_prompt);
	ck_assert_int_eq(rq.login_timeout_s, 7);
	ck_assert_int_eq(rq.color, isatty(STDOUT_FILENO) ? COLOR_ALWAYS : COLOR_NEVER);
	unsetenv("CI");
	unsetenv("CATALYST_LOGIN_TIMEOUT");
	parse_file_command(&rq, (const char *[]){NULL});
	ck_assert(rq.may_prompt == (bool)isatty(STDIN_FILENO));
	ck_assert_int_eq(rq.login_timeout_s, 0);

	/* --output-file naming a terminal colours as stdout on one would */
	int pty = posix_openpt(O_RDWR | O_NOCTTY);
	ck_assert_int_ge(pty, 0);
	ck_assert_int_eq(grantpt(pty), 0);
	ck_assert_int_eq(unlockpt(pty), 0);
	char tty[128];
	snprintf(tty, sizeof tty, "%s", ptsname(pty));
	parse_file_command(&rq, (const char *[]){"--output-file", tty, NULL});
	ck_assert_int_eq(rq.color, COLOR_ALWAYS);
	setenv("TERM", "dumb", 1);
	parse_file_command(&rq, (const char *[]){"--output-file", tty, NULL});
	ck_assert_int_eq(rq.color, COLOR_NEVER);
	setenv("TERM", "xterm", 1);
	setenv("NO_COLOR", "1", 1);
	parse_file_command(&rq, (const char *[]){"--output-file", tty, NULL});
	ck_assert_int_eq(rq.color, COLOR_NEVER);
	parse_file_command(&rq, (const char *[]){"--color", "always", "--output-file", "/nonexistent/report.txt",
						 NULL});
	ck_assert_int_eq(rq.color, COLOR_ALWAYS);
	unsetenv("NO_COLOR");
	parse_file_command(&rq, (const char *[]){"--output-file", "/nonexistent/report.txt", NULL});
	ck_assert_int_eq(rq.color, COLOR_NEVER);
	parse_file_command(&rq, (const char *[]){"--output-file", "/dev/null", NULL});
	ck_assert_int_eq(rq.color, COLOR_NEVER);
	close(pty);
	setenv("NO_COLOR", "1", 1); /* as the suite runs */
}
END_TEST

/* OAuth's configuration comes from the request alone: CI in the
 * environment changes nothing once the CLI has resolved it. */
START_TEST(oauth_config_takes_the_request)
{
	struct audit_request rq;
	audit_request_init(&rq);
	rq.may_prompt = true;
	rq.login_timeout_s = 9;
	setenv("CI", "1", 1);
	setenv("CATALYST_LOGIN_TIMEOUT", "3", 1);
	struct oauth_config c;
	char hint[1024];
	oauth_config_from_request(&c, &rq, hint, sizeof hint);
	ck_assert(c.interactive);
	ck_assert_int_eq(c.callback_timeout_s, 9);
	rq.may_prompt = false;
	oauth_config_from_request(&c, &rq, hint, sizeof hint);
	ck_assert(!c.interactive);
	rq.may_prompt = true;
	rq.no_login = true;
	oauth_config_from_request(&c, &rq, hint, sizeof hint);
	ck_assert(!c.interactive);
	unsetenv("CI");
	unsetenv("CATALYST_LOGIN_TIMEOUT");
}
END_TEST

/* CATALYST_AUDIT_THREADS reaches the request as the steps' threads setting:
 * 1 is one thread, anything else (unset included) lets each step decide. */
START_TEST(threads_setting_reaches_the_request)
{
	static const struct {
		const char *env; /* NULL: unset */
		unsigned want;
	} cases[] = {{NULL, 0}, {"", 0}, {"0", 0}, {"1", 1}, {"2", 0}, {"one", 0}};
	char *argv[] = {"catalyst-audit", "runs", NULL};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		if (cases[i].env)
			setenv("CATALYST_AUDIT_THREADS", cases[i].env, 1);
		else
			unsetenv("CATALYST_AUDIT_THREADS");
		struct audit_request rq;
		struct config cfg;
		struct err e;
		err_clear(&e);
		ck_assert_int_eq(cli_parse(2, argv, &rq, &cfg, &e), CLI_ACTION_RUN);
		ck_assert_msg(rq.threads == cases[i].want, "CATALYST_AUDIT_THREADS=%s: %u",
			      cases[i].env ? cases[i].env : "(unset)", rq.threads);
		config_finish(&cfg);
	}
	unsetenv("CATALYST_AUDIT_THREADS");
}
END_TEST

/* ---- the tables ----------------------------------------------------------- */

/* A value the row accepts that differs from the default: a choice other
 * than the first, a number at the top of its range, a word. */
static const char *sample_value(const struct cli_option *o, char *buf, size_t size)
{
	if (o->choices)
		return o->choices[1].name ? o->choices[1].name : o->choices[0].name;
	if (o->set == cli_set_format)
		return "markdown";
	if (o->set == cli_set_project_id)
		return "165";
	if (o->set == cli_set_long || o->set == cli_set_int || o->set == cli_set_size ||
	    o->set == cli_set_duration) {
		snprintf(buf, size, "%ld", o->max);
		return buf;
	}
	return "x-sample";
}

/* The size of the field a row's setter writes. */
static size_t field_size(const struct cli_option *o)
{
	if (o->set == cli_set_flag || o->set == cli_set_all_runs)
		return sizeof(bool);
	if (o->set == cli_set_int || o->set == cli_set_choice || o->set == cli_set_view ||
	    o->set == cli_set_format)
		return sizeof(int);
	if (o->set == cli_set_long || o->set == cli_set_duration)
		return sizeof(long);
	if (o->set == cli_set_size)
		return sizeof(size_t);
	return sizeof(const char *);
}

static enum audit_command first_command(unsigned bits)
{
	for (size_t i = 0; i < cli_n_commands; i++)
		if (cli_commands[i].cmd != CMD_NONE && (bits & ON(cli_commands[i].cmd)))
			return cli_commands[i].cmd;
	return CMD_NONE;
}

static const char *command_name(enum audit_command cmd)
{
	for (size_t i = 0; i < cli_n_commands; i++)
		if (cli_commands[i].cmd == cmd)
			return cli_commands[i].name;
	return NULL;
}

/* Every row that sets a value has a setter that writes where its .at
 * points: given on the command line (with a command it applies to), the
 * request differs there from the one without it. A new row is checked
 * here without a line of test (which field it should name is the
 * behaviour tests' to say). */
START_TEST(every_option_row_reaches_the_request)
{
	testlib_memcheck_row(_i);
	const struct cli_option *o = &cli_options[_i];
	if (o->special != CLI_VALUE || o->set == cli_set_project || o->set == cli_set_project_id)
		return; /* read by cli_parse; the project is resolved into rq.project (project_precedence_*) */
	ck_assert_msg(o->set, "--%s has no setter", o->name);
	enum audit_command cmd = first_command(o->commands);
	ck_assert_msg(cmd != CMD_NONE, "--%s applies to no command", o->name);
	char num[32], opt[64];
	snprintf(opt, sizeof opt, "--%s", o->name);
	char *args[8] = {"catalyst-audit", opt}, *plain[8] = {"catalyst-audit"};
	int n = 2, m = 1;
	if (o->metavar)
		args[n++] = (char *)sample_value(o, num, sizeof num);
	const char *name = command_name(cmd);
	args[n++] = plain[m++] = (char *)name;
	/* the arguments the command needs */
	const char *more[] = {"app-1", "run-1"};
	for (int k = 0; k < cli_commands[0].max_args; k++) {
		const struct cli_command *c = cli_command_by_name(name);
		if (k < c->min_args || (cmd == CMD_LINK && k < 2)) {
			args[n++] = plain[m++] = (char *)more[k];
		}
	}
	struct audit_request with, without;
	struct config cfg1, cfg2;
	struct err e;
	err_clear(&e);
	ck_assert_msg(cli_parse(n, args, &with, &cfg1, &e) == CLI_ACTION_RUN, "--%s: %s", o->name, e.msg);
	ck_assert_msg(cli_parse(m, plain, &without, &cfg2, &e) == CLI_ACTION_RUN, "%s: %s", name, e.msg);
	/* rq is the first member of cli_values: .at is the field's offset in
	 * the request; the field's first bytes (a flag's one) differ. */
	size_t off = o->at - offsetof(struct cli_values, rq);
	ck_assert_msg(off < sizeof with, "--%s: .at is not in the request", o->name);
	size_t len = field_size(o);
	ck_assert_msg(memcmp((char *)&with + off, (char *)&without + off, len) != 0,
		      "--%s changes nothing where its row points", o->name);
	config_finish(&cfg1);
	config_finish(&cfg2);
}
END_TEST

/* The vocabularies the tables share: the choices of --data-sharing are the
 * level names; --format's help lists render_formats; names are unique. */
START_TEST(option_table_vocabularies)
{
	const struct cli_option *ds = cli_option_by_name("data-sharing");
	ck_assert_ptr_nonnull(ds);
	for (const struct cli_choice *c = ds->choices; c->name; c++)
		ck_assert_str_eq(c->name, data_sharing_level_name((enum data_sharing_level)c->value));
	struct testlib_output o;
	cli(&o, NULL, (char *[]){"--help", NULL});
	char list[128];
	render_format_list(RENDER_FORMATS_ALL, list, sizeof list);
	char want[160];
	snprintf(want, sizeof want, "--format FMT             %s ", list);
	ck_assert_msg(strstr(o.out, want), "--help does not list the formats %s", list);
	testlib_output_free(&o);
	for (size_t i = 0; i < cli_n_options; i++)
		for (size_t j = i + 1; j < cli_n_options; j++) {
			ck_assert_str_ne(cli_options[i].name, cli_options[j].name);
			ck_assert(!cli_options[i].short_name ||
				  cli_options[i].short_name != cli_options[j].short_name);
		}
	/* a command that writes nothing in a format takes no --format */
	for (size_t i = 0; i < cli_n_commands; i++)
		ck_assert_msg(!render_formats_for(cli_commands[i].writes) ==
					      !(cli_option_by_name("format")->commands &
						ON(cli_commands[i].cmd)) ||
				      cli_commands[i].cmd == CMD_NONE,
			      "%s", cli_commands[i].name);
}
END_TEST

/* CATALYST_TOKEN pasted with its line break or as "Bearer x" (issue 31,
 * item 2): a usage error that says what is wrong, where it is read, before
 * any connection; never the old "cannot be sent over HTTP"; never the
 * token. A command that connects nowhere is not held up by it. */
START_TEST(bad_env_token_said_where_read)
{
	static char *const bad[][2] = {{"CATALYST_TOKEN=secret-abc\n", NULL},
				       {"CATALYST_TOKEN=Bearer secret-abc", NULL}};
	for (size_t i = 0; i < 2; i++) {
		struct testlib_output o;
		cli(&o, bad[i], (char *[]){"--server", "http://127.0.0.1:9/mcp", "runs", NULL});
		ck_assert_int_eq(o.status, 2);
		ck_assert_msg(strstr(o.err, "CATALYST_TOKEN is not a bearer token"), "%s", o.err);
		ck_assert_msg(!strstr(o.err, "over HTTP") && !strstr(o.err, "secret-abc"), "%s", o.err);
		testlib_output_free(&o);
	}
	struct testlib_output o;
	cli(&o, bad[0], (char *[]){"file", (char *)testlib_src(FIXTURE), NULL});
	ck_assert_int_eq(o.status, 1);
	testlib_output_free(&o);
}
END_TEST

/* A cluster of short options is a setting per letter, more settings than
 * the line has elements: the parser once wrote past its table for them
 * (found by fuzz_cli_args; the sanitizer and valgrind passes see it). */
START_TEST(short_option_clusters_fit)
{
	char cluster[64] = "-";
	for (int i = 1; i < 41; i++)
		cluster[i] = i % 2 ? 'v' : 'q';
	char *argv[] = {"catalyst-audit", cluster, "file", (char *)testlib_src(FIXTURE), NULL};
	struct audit_request rq;
	struct config cfg;
	struct err e;
	err_clear(&e);
	int action = cli_parse(4, argv, &rq, &cfg, &e);
	ck_assert_msg(action == CLI_ACTION_RUN, "%s", e.msg);
	ck_assert_int_eq(rq.command, CMD_FILE);
	config_finish(&cfg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	struct testlib_group *tc = testlib_group("cli");
	testlib_group_timeout(tc, 120);
	add_test(tc, help_lists_commands_and_exits_0);
	add_test(tc, bad_env_token_said_where_read);
	add_test(tc, short_option_clusters_fit);
	add_loop_test(tc, per_command_help, 0, (int)cli_n_commands);
	add_test(tc, help_despite_bad_options);
	add_loop_test(tc, usage_errors_exit_2, 0, (int)(sizeof usage_cases / sizeof *usage_cases));
	add_test(tc, app_id_quiet_no_color);
	add_loop_test(tc, did_you_mean, 0, (int)(sizeof suggest_cases / sizeof *suggest_cases));
	add_loop_test(tc, inapplicable_options_exit_2, 0,
		      (int)(sizeof inapplicable_cases / sizeof *inapplicable_cases));
	add_test(tc, double_dash_ends_options);
	add_test(tc, table_view_without_columns_exits_6);
	add_test(tc, version_names_libraries);
	add_test(tc, libcurl_loaded_only_when_used);
	add_test(tc, libcurl_unusable_said);
	add_test(tc, text_unless_asked_when_piped);
	add_test(tc, json_spellings_agree);
	add_test(tc, output_extension_picks_format);
	add_test(tc, jsonl_is_accepted_by_the_options);
	add_test(tc, project_precedence_end_to_end);
	add_test(tc, server_precedence_end_to_end);
	add_test(tc, config_format_and_color);
	add_test(tc, config_others_cannot_write);
	add_loop_test(tc, config_errors_name_file_and_line, 0,
		      (int)(sizeof config_error_cases / sizeof *config_error_cases));
	add_loop_test(tc, precedence_table, 0, (int)(sizeof precedence_cases / sizeof *precedence_cases));
	add_test(tc, config_reaches_the_request);
	add_test(tc, threads_setting_reaches_the_request);
	add_test(tc, run_and_link_arguments);
	add_test(tc, terminal_and_environment_resolved_once);
	add_test(tc, oauth_config_takes_the_request);
	add_loop_test(tc, every_option_row_reaches_the_request, 0, (int)cli_n_options);
	add_test(tc, option_table_vocabularies);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
