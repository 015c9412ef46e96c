/* meson-test: integration npm */
/* The completions that know the user's world (issue 35): bash, zsh and
 * fish, as generated in the build folder, each driven by the shell itself
 * against the Catalyst simulator, complete the projects after --project,
 * the apps after --app / --app-id and `run`, and the latest runs of an app
 * after `run APP`, with their status and start time where the shell shows
 * a description. Behind them `catalyst-audit __complete`: its cache (a
 * second tab asks no server), no network at all without a token or with
 * --no-login, nothing printed on a failure, within its deadline, and
 * server names a shell must take as text. */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "oauth.h"
#include "testlib.h"

#define TIMEOUT_MS 30000
#define TOKEN "complete-test-token"

/* The simulator the group shares: a token required, hostile names too. */
static struct testlib_server sim;
/* A folder with `catalyst-audit` in it (the binary, linked), first in
 * PATH, as the shells find the command they complete. */
static char bindir[512];
static char path_env[8192];
static char server_env[400];

static void sim_start(void)
{
	char *argv[] = {(char *)testlib_node(),
			(char *)testlib_src("tests/sim/catalyst-sim.mjs"),
			"--require-token",
			TOKEN,
			"--hostile-names",
			"--max-seconds",
			"600",
			NULL};
	if (testlib_server_start(&sim, argv, NULL, "LISTENING", 30000) < 0)
		ck_abort_msg("the simulator did not start");
	snprintf(server_env, sizeof server_env, "CATALYST_MCP_URL=%s", sim.url);
	testlib_make_tmpdir(bindir, sizeof bindir, "complete-bin");
	char link[600];
	snprintf(link, sizeof link, "%s/catalyst-audit", bindir);
	if (symlink(testlib_env("CA_BINARY"), link) < 0)
		ck_abort_msg("symlink: %s", strerror(errno));
	snprintf(path_env, sizeof path_env, "PATH=%s:%s", bindir,
		 getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
}

static void sim_stop(void)
{
	testlib_server_stop(&sim);
	testlib_remove_tree(bindir);
}

/* Each test's own HOME, cache and config folders, and where the shells
 * run (a name that ran as a command would leave a file there). */
static char home[512];
static char cache_env[600], config_env[600], home_env[600];

static void home_make(void)
{
	testlib_make_tmpdir(home, sizeof home, "complete-home");
	snprintf(home_env, sizeof home_env, "HOME=%s", home);
	snprintf(cache_env, sizeof cache_env, "XDG_CACHE_HOME=%s/cache", home);
	snprintf(config_env, sizeof config_env, "XDG_CONFIG_HOME=%s/config", home);
	if (chdir(home) < 0)
		ck_abort_msg("chdir: %s", strerror(errno));
}

static void home_remove(void)
{
	if (chdir("/") < 0)
		ck_abort_msg("chdir: %s", strerror(errno));
	testlib_remove_tree(home);
}

/* The environment of a completion: token (or none), the simulator's URL
 * (or server, when not NULL), the test's folders. */
static void env_for(char *env[8], const char *token, const char *server)
{
	static char token_env[256], url_env[400];
	int n = 0;
	env[n++] = path_env;
	env[n++] = home_env;
	env[n++] = cache_env;
	env[n++] = config_env;
	snprintf(token_env, sizeof token_env, "CATALYST_TOKEN=%s", token ? token : "");
	env[n++] = token_env;
	if (server) {
		snprintf(url_env, sizeof url_env, "CATALYST_MCP_URL=%s", server);
		env[n++] = url_env;
	} else {
		env[n++] = server_env;
	}
	env[n] = NULL;
}

/* Runs argv in the test's environment; its stdout (asserted status 0). */
static char *run_env(char *const argv[], char *const env[], char **err)
{
	struct testlib_output o;
	ck_assert_int_eq(testlib_run(argv, env, NULL, 0, TIMEOUT_MS, &o), 0);
	ck_assert_msg(o.status == 0, "%s exited %d: %s", argv[0], o.status, o.err);
	char *out = strdup(o.out);
	if (err)
		*err = strdup(o.err);
	testlib_output_free(&o);
	return out;
}

static const char *built(const char *rel)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/%s", testlib_env("CA_BUILD_DIR"), rel);
	return path;
}

/* bash -i, as a user's shell: the completion sourced, the function that
 * `complete -p` names for catalyst-audit called on the words (a bash
 * array literal), the candidates printed one a line. */
static bool with_bash_completion; /* the bash-completion package's set-up first, as Debian's bashrc does */

static char *bash_complete(const char *words, int cword, const char *token)
{
	char script[2048];
	snprintf(
		script, sizeof script,
		"%s"
		"source '%s' || exit 9\n"
		"spec=$(complete -p catalyst-audit) || exit 8\n"
		"fn=${spec#*-F }; fn=${fn%% *}\n"
		"COMP_WORDS=(%s); COMP_CWORD=%d; COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n"
		"COMPREPLY=(); \"$fn\" catalyst-audit \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
		"((${#COMPREPLY[@]} == 0)) || printf '%%s\\n' \"${COMPREPLY[@]}\"\n",
		with_bash_completion ? "source /usr/share/bash-completion/bash_completion || exit 7\n" : "",
		built("completions/catalyst-audit"), words, cword);
	char *argv[] = {"bash", "--norc", "--noprofile", "-i", "-c", script, NULL};
	char *env[8];
	env_for(env, token, NULL);
	return run_env(argv, env, NULL);
}

/* zsh's own completion system, through tests/complete/zsh-capture.zsh:
 * "VALUE -- DESCRIPTION" lines. */
static char *zsh_complete(const char *line, const char *token)
{
	char *argv[] = {"zsh",
			"-f",
			(char *)testlib_src("tests/complete/zsh-capture.zsh"),
			(char *)built("completions"),
			(char *)line,
			NULL};
	char *env[8];
	env_for(env, token, NULL);
	return run_env(argv, env, NULL);
}

/* fish -c 'complete -C LINE': "VALUE<TAB>DESCRIPTION" lines. */
static char *fish_complete(const char *line, const char *token)
{
	char script[2048];
	snprintf(script, sizeof script, "source '%s'; or exit 9; complete -C '%s'",
		 built("completions/catalyst-audit.fish"), line);
	char *argv[] = {"fish", "--no-config", "-c", script, NULL};
	char *env[8];
	env_for(env, token, NULL);
	return run_env(argv, env, NULL);
}

/* `catalyst-audit __complete WORDS...` itself, with its stderr. */
static char *complete_raw(char *const words[], const char *token, const char *server, char **err)
{
	char *argv[32] = {(char *)testlib_env("CA_BINARY"), "__complete"};
	int n = 2;
	for (; words[n - 2] && n < 31; n++)
		argv[n] = words[n - 2];
	argv[n] = NULL;
	char *env[8];
	env_for(env, token, server);
	return run_env(argv, env, err);
}

static void assert_has_line(const char *out, const char *line, const char *what)
{
	size_t n = strlen(line);
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return;
	ck_abort_msg("%s: no line \"%s\" in:\n%s", what, line, out);
}

static void assert_no_pwned(void)
{
	for (int i = 1; i <= 3; i++) {
		char f[600];
		snprintf(f, sizeof f, "%s/pwned-%d", home, i);
		ck_assert_msg(access(f, F_OK) != 0, "a project's name ran as a command: %s exists", f);
	}
}

START_TEST(bash_projects_apps_runs)
{
	char *out = bash_complete("catalyst-audit --project ''", 2, TOKEN);
	assert_has_line(out, "default", "bash --project");
	assert_has_line(out, "payments", "bash --project");
	free(out);
	out = bash_complete("catalyst-audit --project pay", 2, TOKEN);
	ck_assert_str_eq(out, "payments\n");
	free(out);
	out = bash_complete("catalyst-audit runs --app ''", 3, TOKEN);
	assert_has_line(out, "orders", "bash --app");
	assert_has_line(out, "checkout", "bash --app");
	free(out);
	out = bash_complete("catalyst-audit run ''", 2, TOKEN);
	assert_has_line(out, "orders", "bash run");
	free(out);
	out = bash_complete("catalyst-audit run orders order-78", 3, TOKEN);
	assert_has_line(out, "order-7804", "bash run orders");
	assert_has_line(out, "order-7801", "bash run orders");
	ck_assert_ptr_null(strstr(out, "order-7731")); /* not order-78... */
	free(out);
	/* The tables' completions still hold: options after `run`. */
	out = bash_complete("catalyst-audit run --no-ch", 2, TOKEN);
	ck_assert_str_eq(out, "--no-children\n");
	free(out);
}
END_TEST

/* The same through bash-completion's _init_completion, as a Debian
 * user's interactive bash has it. */
START_TEST(bash_with_bash_completion)
{
	/* scripts/install-deps.sh test installs it: a missing one is a failure,
	 * not a case passed without being run */
	ck_assert_msg(access("/usr/share/bash-completion/bash_completion", R_OK) == 0,
		      "bash-completion is not installed (scripts/install-deps.sh test)");
	with_bash_completion = true;
	char *out = bash_complete("catalyst-audit --project pay", 2, TOKEN);
	ck_assert_str_eq(out, "payments\n");
	free(out);
	out = bash_complete("catalyst-audit run orders order-780", 3, TOKEN);
	assert_has_line(out, "order-7804", "bash-completion run orders");
	free(out);
	with_bash_completion = false;
}
END_TEST

START_TEST(zsh_projects_and_runs_described)
{
	char *out = zsh_complete("catalyst-audit --project ", TOKEN);
	assert_has_line(out, "default -- uid 165", "zsh --project");
	assert_has_line(out, "payments -- uid 212", "zsh --project");
	free(out);
	out = zsh_complete("catalyst-audit --project=", TOKEN);
	assert_has_line(out, "payments -- uid 212", "zsh --project=");
	free(out);
	out = zsh_complete("catalyst-audit --app-id ", TOKEN);
	assert_has_line(out, "orders", "zsh --app-id");
	free(out);
	out = zsh_complete("catalyst-audit run ", TOKEN);
	assert_has_line(out, "orders", "zsh run");
	free(out);
	out = zsh_complete("catalyst-audit run orders ", TOKEN);
	assert_has_line(out, "order-7804 -- canceled, started 2026-09-14T14:12:03.401Z", "zsh run orders");
	assert_has_line(out, "order-7731 -- completed, started 2026-09-14T09:12:03.401Z", "zsh run orders");
	free(out);
}
END_TEST

START_TEST(fish_projects_and_runs_described)
{
	char *out = fish_complete("catalyst-audit --project ", TOKEN);
	assert_has_line(out, "default\tuid 165", "fish --project");
	assert_has_line(out, "sandbox\tuid 301", "fish --project");
	free(out);
	out = fish_complete("catalyst-audit runs --app ", TOKEN);
	assert_has_line(out, "orders", "fish --app");
	free(out);
	out = fish_complete("catalyst-audit --project default run ", TOKEN);
	assert_has_line(out, "orders", "fish run");
	free(out);
	out = fish_complete("catalyst-audit run orders ", TOKEN);
	assert_has_line(out, "order-7802\tsuspended, started 2026-09-14T12:12:03.401Z", "fish run orders");
	free(out);
	/* fish's commands and options come from the same tables */
	out = fish_complete("catalyst-audit ru", TOKEN);
	assert_has_line(out, "run\taudit one run", "fish commands");
	free(out);
}
END_TEST

/* Names with $( ), ` `, ; and ' are offered quoted and run nothing; one
 * with a newline or an escape is not offered at all. */
START_TEST(hostile_names_stay_text)
{
	char *raw = complete_raw((char *[]){"--project", "", NULL}, TOKEN, NULL, NULL);
	assert_has_line(raw, "$(touch pwned-1)\tuid 900", "__complete");
	for (const char *p = raw; *p; p++)
		ck_assert_msg((unsigned char)*p >= 0x20 || *p == '\n' || *p == '\t', "a control character: %s",
			      raw);
	ck_assert_ptr_null(strstr(raw, "two"));
	ck_assert_ptr_null(strstr(raw, "esc"));
	free(raw);

	char *out = bash_complete("catalyst-audit --project ''", 2, TOKEN);
	assert_has_line(out, "\\$\\(touch\\ pwned-1\\)", "bash");
	assert_has_line(out, "\\`touch\\ pwned-2\\`", "bash");
	assert_has_line(out, "a\\;touch\\ pwned-3", "bash");
	assert_has_line(out, "it\\'s", "bash");
	free(out);
	out = zsh_complete("catalyst-audit --project ", TOKEN);
	ck_assert_ptr_nonnull(strstr(out, "\\$\\(touch\\ pwned-1\\)"));
	free(out);
	out = fish_complete("catalyst-audit --project ", TOKEN);
	assert_has_line(out, "a;touch pwned-3\tuid 902", "fish");
	free(out);
	assert_no_pwned();
}
END_TEST

/* A stored sign-in is used (never a prompt): the token in the store for
 * the simulator's URL, no CATALYST_TOKEN. */
START_TEST(stored_token_is_used)
{
	char dir[700];
	snprintf(dir, sizeof dir, "%s/config/catalyst-audit", home);
	struct oauth_tokens t = {.issuer = "http://127.0.0.1:1/as",
				 .client_id = "complete-test",
				 .resource = sim.url,
				 .access_token = TOKEN,
				 .token_endpoint = "http://127.0.0.1:1/as/token",
				 .expires_at = 4000000000};
	struct err e;
	err_clear(&e);
	ck_assert_msg(oauth_store_save(dir, &t, &e) == 0, "%s", e.msg);
	char *out = complete_raw((char *[]){"--project", "", NULL}, NULL, NULL, NULL);
	assert_has_line(out, "payments\tuid 212", "stored token");
	free(out);
}
END_TEST

/* A port of our own, listening: whether anything connected to it. */
static int listener(char *url, size_t size)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	snprintf(url, size, "http://127.0.0.1:%d/mcp", ntohs(a.sin_port));
	return fd;
}

static bool connected(int fd)
{
	int c = accept(fd, NULL, NULL);
	if (c >= 0) {
		close(c);
		return true;
	}
	ck_assert_msg(errno == EAGAIN || errno == EWOULDBLOCK, "accept: %s", strerror(errno));
	return false;
}

/* No token (none in the environment, none stored), or --no-login on the
 * line: nothing printed and no connection made at all. */
START_TEST(no_token_or_no_login_no_network)
{
	char url[128];
	int fd = listener(url, sizeof url);
	char *err = NULL;
	char *out = complete_raw((char *[]){"--project", "", NULL}, NULL, url, &err);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ck_assert_msg(!connected(fd), "__complete connected without a token");
	out = complete_raw((char *[]){"--no-login", "run", "", NULL}, TOKEN, url, NULL);
	ck_assert_str_eq(out, "");
	free(out);
	ck_assert_msg(!connected(fd), "__complete connected with --no-login");
	/* and through a shell */
	out = bash_complete("catalyst-audit --no-login --project ''", 3, TOKEN);
	ck_assert_str_eq(out, "");
	free(out);
	close(fd);
}
END_TEST

/* A server that never answers: nothing printed, within the deadline. */
START_TEST(failure_prints_nothing_in_time)
{
	char url[128];
	int fd = listener(url, sizeof url); /* accepts (backlog), never answers */
	char *err = NULL;
	double t0 = testlib_now_s();
	char *out = complete_raw((char *[]){"--project", "", NULL}, TOKEN, url, &err);
	double took = testlib_now_s() - t0;
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	ck_assert_msg(took < 8.0, "__complete took %.1f s", took);
	free(out);
	free(err);
	close(fd);
	/* A refused token: nothing either, and no sign-in prompt. */
	out = complete_raw((char *[]){"--project", "", NULL}, "not-the-token", NULL, &err);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	/* Nothing the server knows: the shell's own tables answer. */
	out = complete_raw((char *[]){"--color", "", NULL}, TOKEN, NULL, NULL);
	ck_assert_str_eq(out, "");
	free(out);
}
END_TEST

/* The second tab within a minute is answered from the cache: the
 * simulator is stopped in between. A private file, the token not in it;
 * older than a minute, it is not used. */
START_TEST(cache_answers_the_second_tab)
{
	struct testlib_server own;
	char *argv[] = {(char *)testlib_node(),
			(char *)testlib_src("tests/sim/catalyst-sim.mjs"),
			"--require-token",
			TOKEN,
			"--max-seconds",
			"120",
			NULL};
	ck_assert_int_eq(testlib_server_start(&own, argv, NULL, "LISTENING", 30000), 0);
	char *first = complete_raw((char *[]){"run", "orders", "", NULL}, TOKEN, own.url, NULL);
	assert_has_line(first, "order-7804\tcanceled, started 2026-09-14T14:12:03.401Z", "first");
	testlib_server_stop(&own);

	char *second = complete_raw((char *[]){"run", "orders", "", NULL}, TOKEN, own.url, NULL);
	ck_assert_str_eq(second, first);
	free(second);

	char dir[700];
	snprintf(dir, sizeof dir, "%s/cache/catalyst-audit", home);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_int_eq(testlib_count_entries(dir), 1);
	char cmd[800];
	snprintf(cmd, sizeof cmd, "%s/complete-", dir);
	char *text = NULL;
	char *ls[] = {"sh", "-c", "for f in \"$0\"*; do stat -c %a \"$f\"; cat \"$f\"; done", cmd, NULL};
	char *env[8];
	env_for(env, NULL, NULL);
	text = run_env(ls, env, NULL);
	ck_assert_msg(strncmp(text, "600\n", 4) == 0, "cache file mode: %s", text);
	ck_assert_ptr_null(strstr(text, TOKEN));
	ck_assert_ptr_nonnull(strstr(text, "order-7804"));
	free(text);

	/* Set back past a minute: a miss, and with no server, nothing. */
	char *touch[] = {"sh", "-c", "touch -d '-61 seconds' \"$0\"*", cmd, NULL};
	free(run_env(touch, env, NULL));
	char *stale = complete_raw((char *[]){"run", "orders", "", NULL}, TOKEN, own.url, NULL);
	ck_assert_str_eq(stale, "");
	free(stale);
	free(first);
}
END_TEST

/* __complete is for the shells: no help line names it. */
START_TEST(hidden_from_help)
{
	char *argv[] = {(char *)testlib_env("CA_BINARY"), "--help", NULL};
	char *env[8];
	env_for(env, NULL, NULL);
	char *out = run_env(argv, env, NULL);
	ck_assert_ptr_null(strstr(out, "__complete"));
	free(out);
	char *man = testlib_read_file(testlib_src("man/catalyst-audit.1"), NULL);
	ck_assert_ptr_null(strstr(man, "__complete"));
	free(man);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("complete");
	struct testlib_group *g = testlib_group("complete");
	testlib_group_timeout(g, 120);
	testlib_group_unchecked_fixture(g, sim_start, sim_stop);
	testlib_group_checked_fixture(g, home_make, home_remove);
	add_test(g, bash_projects_apps_runs);
	add_test(g, bash_with_bash_completion);
	add_test(g, zsh_projects_and_runs_described);
	add_test(g, fish_projects_and_runs_described);
	add_test(g, hostile_names_stay_text);
	add_test(g, stored_token_is_used);
	add_test(g, no_token_or_no_login_no_network);
	add_test(g, failure_prints_nothing_in_time);
	add_test(g, cache_answers_the_second_tab);
	add_test(g, hidden_from_help);
	testlib_suite_add(s, g);
	return testlib_main(s);
}
