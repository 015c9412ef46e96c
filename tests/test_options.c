/* meson-test: integration npm */
/* Every option a command's row enables is read by that command (issue 29:
 * `stats --color always` was accepted and changed nothing). For each
 * (option, command) pair of the live tables, the command runs as a
 * baseline and again with the option's probe against the simulator: what
 * it did (standard output, standard error, exit status, the files it
 * wrote) must differ, and not by a usage error. A pair that cannot show it
 * here is in `unseen`, with why and where else it is tested; a pair with
 * neither a probe nor a reason fails, so a new option or a new command
 * for an option cannot land without one. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "cli_options.h"
#include "testlib.h"

#define CLI_TIMEOUT_MS 60000

static struct testlib_server sim, auth; /* auth asks for a token */
/* A port on 127.0.0.1 that takes connections and never answers. */
static char hole_port[16];

/* What each command runs as, before any probe. The server comes from the
 * config file CATALYST_AUDIT_CONFIG names (@TMP@/base.conf), so that
 * --server and --config can be probed too. */
/* a history that names its app (orders) */
#define ONE_FILE "@SRC@/tests/fixtures/envelope-run-document.catalyst.json"

static const char *const baselines[][6] = {
	[CMD_RUN] = {"run", "orders", "order-7740", NULL}, /* with child runs */
	[CMD_RUNS] = {"runs", NULL},
	/* a run without findings, and one with payloads */
	[CMD_FILE] = {"file", ONE_FILE, "@SRC@/tests/fixtures/b-retry-fail-fail-succeed.proto.json", NULL},
	[CMD_LINK] = {"link", "checkout", "pay-20931", NULL},
	[CMD_LOGIN] = {"login", NULL}, /* at a terminal (login_tty), with base.conf's client id */
	[CMD_LOGOUT] = {"logout", NULL},
	[CMD_WHOAMI] = {"whoami", NULL},
	[CMD_TOOLS] = {"tools", NULL},
	[CMD_STATS] = {"stats", NULL},
	[CMD_REVIEW] = {"review", "@SRC@/tests/fixtures/review/python", NULL},
};

/* A probe: args added to the baseline (or to argv, in its place); both
 * runs also get base (so that an option that only shows beside another is
 * probed without the other counting) and env. commands 0: for every
 * command of the row. */
struct probe {
	const char *option;
	unsigned commands;
	const char *args[4];
	const char *argv[6];
	const char *base[6];
	const char *env;
	const char *config; /* written to @TMP@/config before both runs */
	bool usage;         /* the probe exits 2 by design (it names what it read) */
	bool tty;           /* standard input a terminal, for both runs */
};

static const struct probe probes[] = {
	{"server", 0, .args = {"--server", "http://127.0.0.1:9/mcp"}},
	{"stdio", 0, .args = {"--stdio", "@SRC@/tests/sim/no-such-server"}},
	{"cacert", 0, .args = {"--cacert", "@SRC@/tests/no-such-ca.pem"}, .usage = true},
	/* a server that takes the connection and never answers: the error
	 * names the timeout it waited */
	{"timeout", ON(CMD_LOGIN), .args = {"--timeout", "1"},
	 .base = {"--config", "@TMP@/config", "--server", "http://127.0.0.1:@HOLE@/mcp", "--client-id", "probe"},
	 .config = "timeout = 2\n"},
	{"timeout", 0, .args = {"--timeout", "1"},
	 .base = {"--config", "@TMP@/config", "--server", "http://127.0.0.1:@HOLE@/mcp"},
	 .config = "timeout = 2\n"},
	/* a file's run gets a link when its app is known: the clean one, shown with --all-runs */
	{"project", ON(CMD_FILE), .args = {"--project", "probe"}, .base = {"--all-runs"}},
	{"project", 0, .args = {"--project", "no-such-project"}},
	{"project-id", ON(CMD_FILE), .args = {"--project-id", "prj-404"}, .base = {"--all-runs"}},
	{"project-id", 0, .args = {"--project-id", "prj-404"}},
	{"console", ON(CMD_FILE), .args = {"--console", "https://console.example.com"},
	 .base = {"--all-runs", "--project", "probe"}},
	{"console", 0, .args = {"--console", "https://console.example.com"}},
	{"web", 0, .args = {"--web"}, .env = "BROWSER=/bin/false"},
	{"no-check", 0, .args = {"--no-check"}, .base = {"--verbose"}},
	{"output", 0, .args = {"-o", "json"}},
	{"format", 0, .args = {"--format", "json"}},
	{"json", 0, .args = {"--json"}},
	{"output-file", 0, .args = {"--output-file", "@TMP@/out.txt"}},
	{"color", 0, .args = {"--color", "always"}},
	{"no-color", 0, .args = {"--no-color"}, .base = {"--color", "always"}},
	{"local-time", 0, .args = {"--local-time"}, .env = "TZ=Asia/Kolkata"},
	{"fail-on", 0, .args = {"--fail-on", "never"}},
	{"baseline", 0, .args = {"--baseline", "@SRC@/tests/no-such-report.json"}, .usage = true},
	{"verbose-report", 0, .args = {"--verbose-report"}},
	{"full", 0, .args = {"--full"}},
	{"findings-only", 0, .args = {"--findings-only"}},
	{"all-runs", 0, .args = {"--all-runs"}},
	{"show-payloads", 0, .args = {"--show-payloads"}},
	{"save-histories", 0, .args = {"--save-histories", "@TMP@/saved"}},
	/* the simulator's live runs grow while they are read */
	{"follow", ON(CMD_RUNS), .args = {"--follow"},
	 .argv = {"runs", "--app", "checkout", "--status", "running"}},
	{"follow", 0, .args = {"--follow"}, .argv = {"run", "checkout", "live-7001"}},
	{"follow-for", ON(CMD_RUNS), .args = {"--follow-for", "1"}, .base = {"--follow"},
	 .argv = {"runs", "--app", "checkout", "--status", "running"}},
	{"follow-for", 0, .args = {"--follow-for", "1"}, .base = {"--follow"},
	 .argv = {"run", "checkout", "live-7001"}},
	{"run-id", 0, .args = {"--run-id", "probe-run"}, .argv = {"file", ONE_FILE}},
	{"source", 0, .args = {"--source", "@SRC@/tests/fixtures/review/python"}},
	/* the simulator's organization shares full payloads; a file's level is inferred */
	{"data-sharing", ON(CMD_FILE), .args = {"--data-sharing", "full"}},
	{"data-sharing", 0, .args = {"--data-sharing", "metadata"}},
	{"payload-limit", 0, .args = {"--payload-limit", "1"}},
	{"no-children", 0, .args = {"--no-children"}},
	/* each row says its version: "[no version]" for the simulator's runs */
	{"by-version", 0, .args = {"--by-version"}},
	{"app", 0, .args = {"--app", "checkout"}},
	/* without APP_ID the run is looked up, and a notice says where */
	{"app-id", ON(CMD_RUN), .args = {"--app-id", "checkout"}, .argv = {"run", "pay-20931"}},
	{"app-id", ON(CMD_LINK), .args = {"--app-id", "checkout"}, .argv = {"link", "pay-20931"}},
	{"app-id", ON(CMD_FILE), .args = {"--app-id", "checkout"}, .argv = {"file", ONE_FILE}},
	{"app-id", 0, .args = {"--app-id", "checkout"}},
	{"workflow", 0, .args = {"--workflow", "NoSuchWorkflow"}},
	{"status", 0, .args = {"--status", "failed"}},
	{"since", 0, .args = {"--since", "1h"}},
	{"until", 0, .args = {"--until", "2000-01-01T00:00:00Z"}},
	{"ended-since", 0, .args = {"--ended-since", "1h"}},
	{"state", 0, .args = {"--state", "@TMP@/state.json"}},
	{"limit", 0, .args = {"--limit", "1"}},
	/* a server that asks for a token: what to run to sign in names them */
	{"client-id", ON(CMD_LOGOUT), .args = {"--client-id", "probe"}},
	{"client-id", 0, .args = {"--client-id", "probe"}, .base = {"--server", "@AUTH@"}},
	/* with no client id (the config file's is cleared), what to run to
	 * sign in names the document */
	{"client-metadata-url", 0, .args = {"--client-metadata-url", "https://probe.invalid/client.json"},
	 .base = {"--server", "@AUTH@", "--client-id", ""}},
	{"redirect-path", 0, .args = {"--redirect-path", "/probe"},
	 .base = {"--server", "@AUTH@", "--client-id", "probe"}},
	/* at a terminal, a server that asks for a token starts a sign-in */
	{"no-login", 0, .args = {"--no-login"}, .base = {"--server", "@AUTH@", "--client-id", "probe"},
	 .tty = true},
	{"config", ON(CMD_FILE), .args = {"--config", "@TMP@/config"}, .config = "format = json\n"},
	{"config", ON(CMD_REVIEW), .args = {"--config", "@TMP@/config"}, .config = "fail-on = never\n"},
	{"config", 0, .args = {"--config", "@TMP@/config"},
	 .config = "server = http://127.0.0.1:9/mcp\nclient-id = probe\n"},
	{"verbose", 0, .args = {"--verbose"}},
	/* what each says on standard error that --quiet silences */
	{"quiet", ON(CMD_RUN), .args = {"--quiet"}, .argv = {"run", "pay-20931"}},
	{"quiet", ON(CMD_LINK), .args = {"--quiet"}, .argv = {"link", "pay-20931"}},
	{"quiet", ON(CMD_FILE), .args = {"--quiet"}, .base = {"--app-id", "checkout"}, .argv = {"file", ONE_FILE}},
	{"quiet", 0, .args = {"--quiet"}},
	{"version", 0, .args = {"--version"}},
	{"help", 0, .args = {"--help"}},
};

/* Pairs this test cannot show, and why; each is tested where it can be. */
struct unseen {
	const char *option;
	unsigned commands;
	const char *why;
};

static const struct unseen unseen[] = {
	{"no-pager", ON_ALL,
	 .why = "the pager starts only when standard output is a terminal (test_follow: "
		"the_pager_gets_nothing_of_ours runs one under script(1))"},
	{"jobs", ON_ALL,
	 .why = "how many runs are audited at once, never what is printed (test_catalyst_sim: same "
		"bytes at --jobs 1 and 8)"},
	{"interval", ON_ALL,
	 .why = "the longest wait between two readings: when lines come, not what they say "
		"(test_follow follows with the default and a bound)"},
	{"no-browser", ON_ALL,
	 .why = "read at a sign-in's browser step only (oauth_login.c), which needs an "
		"authorization server: test_oauth_e2e redirect_path_and_no_browser_are_used"},
	{"client-id", ON(CMD_LOGIN),
	 .why = "sent once an authorization server is found; the simulator names none: "
		"test_oauth_e2e signs in as its client"},
	{"client-metadata-url", ON(CMD_LOGIN),
	 .why = "without it (and no client id) login is a usage error; with it, login goes on to the "
		"authorization server, which the simulator has none of: test_oauth_e2e "
		"client_metadata_url_needs_an_accepting_server, test_oauth_conformance auth/basic-cimd"},
	{"redirect-path", ON(CMD_LOGIN),
	 .why = "sent once an authorization server is found: test_oauth_e2e "
		"redirect_path_and_no_browser_are_used"},
	{"quiet", ON(CMD_LOGIN),
	 .why = "login keeps its notices under --quiet (the address to open, main.c); the "
		"simulator gives it no warning to silence"},
	{"quiet", ON(CMD_RUNS) | ON(CMD_STATS) | ON(CMD_WHOAMI) | ON(CMD_TOOLS) | ON(CMD_REVIEW),
	 .why = "they say nothing on standard error against a healthy server or code; --quiet is one switch of "
		"the sinks (main.c), seen on run, link, file and logout"},
	{"verbose", ON(CMD_LOGOUT),
	 .why = "the protocol trace; logout talks to no server (accepted by every command, so that a "
		"script can pass it to any)"},
};

static bool in(unsigned bits, enum audit_command c)
{
	return bits & ON(c);
}

static const struct probe *probe_of(const char *option, enum audit_command c)
{
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
		if (strcmp(probes[i].option, option) == 0 && (!probes[i].commands || in(probes[i].commands, c)))
			return &probes[i];
	return NULL;
}

static const struct unseen *unseen_of(const char *option, enum audit_command c)
{
	for (size_t i = 0; i < sizeof unseen / sizeof *unseen; i++)
		if (strcmp(unseen[i].option, option) == 0 && in(unseen[i].commands, c))
			return &unseen[i];
	return NULL;
}

/* s with @SRC@, @TMP@ and @URL@ replaced, in a rotating buffer. */
static const char *expand(const char *s)
{
	static char bufs[32][1024];
	static size_t next;
	char *out = bufs[next++ % 32];
	size_t used = 0;
	out[0] = '\0';
	while (*s && used < 1000) {
		const char *with = NULL;
		size_t skip = 0;
		if (strncmp(s, "@SRC@", 5) == 0)
			with = testlib_env("CA_SOURCE_DIR"), skip = 5;
		else if (strncmp(s, "@URL@", 5) == 0)
			with = sim.url, skip = 5;
		else if (strncmp(s, "@TMP@", 5) == 0)
			with = testlib_tmpdir, skip = 5;
		else if (strncmp(s, "@HOLE@", 6) == 0)
			with = hole_port, skip = 6;
		else if (strncmp(s, "@AUTH@", 6) == 0)
			with = auth.url, skip = 6;
		if (with) {
			used += (size_t)snprintf(out + used, 1024 - used, "%s", with);
			s += skip;
		} else {
			out[used++] = *s++;
			out[used] = '\0';
		}
	}
	return out;
}

/* Everything a run left: its outputs and the names and sizes of the files
 * in the temporary folder (which it is given empty). */
static char *what_it_did(const struct testlib_output *o)
{
	struct buf b;
	buf_init(&b, 1 << 24);
	buf_printf(&b, NULL, "status %d\n--- stdout\n%s\n--- stderr\n%s\n--- files\n", o->status, o->out, o->err);
	DIR *d = opendir(testlib_tmpdir);
	ck_assert_ptr_nonnull(d);
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "config") == 0 || strcmp(de->d_name, "home") == 0 ||
		    strcmp(de->d_name, "base.conf") == 0)
			continue;
		char path[600];
		snprintf(path, sizeof path, "%s/%s", testlib_tmpdir, de->d_name);
		struct stat st;
		ck_assert_int_eq(stat(path, &st), 0);
		buf_printf(&b, NULL, "%s %lld\n", de->d_name, S_ISDIR(st.st_mode) ? -1LL : (long long)st.st_size);
		if (S_ISDIR(st.st_mode))
			testlib_remove_tree(path);
		else
			unlink(path);
	}
	closedir(d);
	char *s = strdup(b.data ? b.data : "");
	buf_finish(&b);
	return s;
}

static void write_file(const char *name, const char *text)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", testlib_tmpdir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(expand(text), f);
	ck_assert_int_eq(fclose(f), 0);
}

/* What the command did; NULL after a usage error the probe did not mean
 * (it is said in failures). */
static char *run_cli(enum audit_command c, const struct probe *p, bool with_probe, struct buf *failures)
{
	if (p && p->config)
		write_file("config", p->config);
	const char *argv[32];
	size_t n = 0;
	for (size_t i = 0; p && i < 6 && p->base[i]; i++)
		argv[n++] = expand(p->base[i]);
	for (size_t i = 0; with_probe && i < 4 && p->args[i]; i++)
		argv[n++] = expand(p->args[i]);
	const char *const *command = p && p->argv[0] ? p->argv : baselines[c];
	for (size_t i = 0; command[i]; i++)
		argv[n++] = expand(command[i]);
	argv[n] = NULL;
	write_file("base.conf", "server = @URL@\nclient-id = base-client\n");
	char url[600], home[300], env_extra[300];
	snprintf(url, sizeof url, "CATALYST_AUDIT_CONFIG=%s/base.conf", testlib_tmpdir);
	snprintf(home, sizeof home, "HOME=%s/home", testlib_tmpdir);
	snprintf(env_extra, sizeof env_extra, "%s", p && p->env ? p->env : "CATALYST_SIM_PROBE=0");
	char *env[] = {
		url, home, "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "CATALYST_TOKEN=", "BROWSER=", env_extra, NULL};
	struct testlib_output o;
	/* login refuses at once without a person at a terminal */
	testlib_stdin_tty = (p && p->tty) || c == CMD_LOGIN;
	int rc = testlib_run_cli((char *const *)argv, env, NULL, CLI_TIMEOUT_MS, &o);
	testlib_stdin_tty = false;
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(!o.timed_out, "%s hung", baselines[c][0]);
	ck_assert_msg(o.status < 128, "%s died of signal %d: %s", baselines[c][0], o.status - 128, o.err);
	if (o.status == 2 && !(with_probe && p->usage)) {
		buf_printf(failures, NULL, "%s %s: a usage error, not a reading: %s\n", baselines[c][0],
			   p && with_probe ? p->args[0] : "(baseline)", o.err);
		testlib_output_free(&o);
		return NULL;
	}
	char *s = what_it_did(&o);
	testlib_output_free(&o);
	return s;
}

/* One pair, in a child of its own (so that the pairs of a command wait on
 * their servers side by side: the --timeout and --follow probes are most
 * of this test's time, and all of it waiting), in a folder of its own that
 * @TMP@ names. What it found wrong goes to dir/result, empty when nothing. */
static pid_t probe_in_child(enum audit_command c, const struct cli_option *o, const struct probe *p,
			    const char *plain, const char *dir)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	snprintf(testlib_tmpdir, sizeof testlib_tmpdir, "%s", dir);
	char home[600];
	snprintf(home, sizeof home, "%s/home", dir);
	mkdir(home, 0700);
	struct buf failures;
	buf_init(&failures, 1 << 20);
	testlib_memcheck_row((int)(o - cli_options));
	bool own_base = p->base[0] || p->env || p->config || p->argv[0] || p->tty;
	char *base = own_base ? run_cli(c, p, false, &failures) : NULL;
	char *probed = run_cli(c, p, true, &failures);
	if (probed && (!own_base || base) && strcmp(base ? base : plain, probed) == 0)
		buf_printf(&failures, NULL, "--%s on %s: accepted and changed nothing\n%s\n", o->name,
			   baselines[c][0], getenv("CA_OPTIONS_TERSE") ? "" : probed);
	char path[700];
	snprintf(path, sizeof path, "%s/../result-%s", dir, o->name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(failures.data ? failures.data : "", f) < 0 || fclose(f) != 0)
		_exit(3);
	_exit(0);
}

#define PAIRS_AT_ONCE 8

/* One command, every option its rows enable. */
START_TEST(every_option_is_read)
{
	enum audit_command c = (enum audit_command)_i;
	if (!baselines[c][0])
		return;
	char top[256];
	snprintf(top, sizeof top, "%s", testlib_tmpdir);
	char home[600];
	snprintf(home, sizeof home, "%s/home", top);
	mkdir(home, 0700);
	struct buf failures;
	buf_init(&failures, 1 << 20);
	char *plain = run_cli(c, NULL, false, &failures);
	ck_assert_msg(plain, "%s", failures.data);
	struct {
		pid_t pid;
		const struct cli_option *o;
	} running[PAIRS_AT_ONCE];
	size_t n_running = 0;
	for (size_t i = 0; i <= cli_n_options; i++) {
		const struct cli_option *o = i < cli_n_options ? &cli_options[i] : NULL;
		/* at the end, or with every slot taken: wait for one */
		while (n_running > 0 && (!o || n_running == PAIRS_AT_ONCE)) {
			int st = 0;
			pid_t done = wait(&st);
			ck_assert_int_gt(done, 0);
			size_t k = 0;
			while (k < n_running && running[k].pid != done)
				k++;
			if (k == n_running)
				continue; /* not a probe's (without CK_FORK the servers are children too) */
			char path[700];
			snprintf(path, sizeof path, "%s/result-%s", top, running[k].o->name);
			size_t len = 0;
			char *said = testlib_read_file(path, &len);
			ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && said,
				      "the probe of --%s on %s ended with status %d", running[k].o->name,
				      baselines[c][0], st);
			buf_printf(&failures, NULL, "%s", said);
			free(said);
			unlink(path);
			running[k] = running[--n_running];
		}
		if (!o)
			break;
		if (!in(o->commands, c) || unseen_of(o->name, c))
			continue;
		const struct probe *p = probe_of(o->name, c);
		if (!p) {
			buf_printf(&failures, NULL, "--%s on %s: no probe and no reason it cannot be seen\n",
				   o->name, baselines[c][0]);
			continue;
		}
		char dir[300];
		snprintf(dir, sizeof dir, "%s/%s", top, o->name);
		ck_assert_int_eq(mkdir(dir, 0700), 0);
		pid_t pid = probe_in_child(c, o, p, plain, dir);
		ck_assert_int_gt(pid, 0);
		running[n_running].pid = pid;
		running[n_running++].o = o;
	}
	for (size_t i = 0; i < cli_n_options; i++) {
		char dir[300];
		snprintf(dir, sizeof dir, "%s/%s", top, cli_options[i].name);
		testlib_remove_tree(dir);
	}
	ck_assert_msg(failures.len == 0, "%s", failures.data);
	buf_finish(&failures);
	free(plain);
}
END_TEST

/* Every reason names a pair that exists: a stale one hides nothing. */
START_TEST(every_reason_is_for_an_enabled_pair)
{
	for (size_t i = 0; i < sizeof unseen / sizeof *unseen; i++) {
		const struct cli_option *o = cli_option_by_name(unseen[i].option);
		ck_assert_msg(o, "unseen names --%s, which is not an option", unseen[i].option);
		ck_assert_msg(o->commands & unseen[i].commands, "--%s: a reason for commands it is not for",
			      unseen[i].option);
	}
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
		ck_assert_msg(cli_option_by_name(probes[i].option), "a probe names --%s, which is not an option",
			      probes[i].option);
}
END_TEST

/* Listens on 127.0.0.1 and never accepts: a connection is taken by the
 * kernel's backlog and its request never answered. */
static int open_hole(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	snprintf(hole_port, sizeof hole_port, "%u", (unsigned)ntohs(a.sin_port));
	return fd;
}

int main(void)
{
	int hole = open_hole();
	if (hole < 0) {
		fprintf(stderr, "cannot listen on 127.0.0.1\n");
		return EXIT_FAILURE;
	}
	/* full: payloads to show and to measure */
	char *argv[] = {(char *)testlib_node(),
			(char *)testlib_src("tests/sim/catalyst-sim.mjs"),
			"--data-sharing",
			"full",
			"--live",
			"--max-seconds",
			"900",
			NULL};
	char *auth_argv[] = {(char *)testlib_node(),
			     (char *)testlib_src("tests/sim/catalyst-sim.mjs"),
			     "--require-token",
			     "probe-token",
			     "--max-seconds",
			     "900",
			     NULL};
	if (testlib_server_start(&sim, argv, NULL, "LISTENING", 60000) != 0 ||
	    testlib_server_start(&auth, auth_argv, NULL, "LISTENING", 60000) != 0) {
		fprintf(stderr, "the simulator did not start\n");
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("options");
	struct testlib_group *g = testlib_group("options");
	testlib_group_timeout(g, 600);
	testlib_group_unchecked_fixture(g, testlib_tmpdir_make, testlib_tmpdir_remove);
	add_loop_test(g, every_option_is_read, CMD_RUN, CMD_REVIEW + 1);
	add_test(g, every_reason_is_for_an_enabled_pair);
	testlib_suite_add(s, g);
	int rc = testlib_main(s);
	testlib_server_stop(&sim);
	testlib_server_stop(&auth);
	close(hole);
	return rc;
}
