#define TESTLIB_INTERNAL
#include "testlib.h"

#include <curl/curl.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "transport.h"

extern char **environ;

const char *testlib_env(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v) {
		fprintf(stderr, "test environment variable %s is not set (run through meson test)\n", name);
		abort();
	}
	return v;
}

const char *testlib_src(const char *rel)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8];
	snprintf(b, sizeof bufs[0], "%s/%s", testlib_env("CA_SOURCE_DIR"), rel);
	return b;
}

char *testlib_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *data = malloc(cap);
	size_t r;
	while (data && (r = fread(data + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n - 1 == 0) {
			char *p = realloc(data, cap * 2);
			if (!p) {
				free(data);
				data = NULL;
				break;
			}
			data = p;
			cap *= 2;
		}
	}
	fclose(f);
	if (!data)
		return NULL;
	data[n] = '\0';
	if (len)
		*len = n;
	return data;
}

const char *testlib_node(void)
{
	static char path[4096];
	const char *npm = getenv("CA_NPM_DIR");
	if (npm && *npm) {
		snprintf(path, sizeof path, "%s/node_modules/.bin/node", npm);
		if (access(path, X_OK) == 0)
			return path;
	}
	return "node";
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char **build_env(char *const extra[])
{
	size_t n = 0, m = 0;
	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	char **env = calloc(n + m + 1, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		/* an extra entry overrides the inherited one */
		const char *eq = strchr(environ[i], '=');
		size_t klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		bool overridden = false;
		for (size_t j = 0; j < m; j++)
			if (strncmp(extra[j], environ[i], klen) == 0 && extra[j][klen] == '=')
				overridden = true;
		if (!overridden)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = extra[j];
	env[k] = NULL;
	return env;
}

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 4096;
		while (c < *len + n + 1)
			c *= 2;
		*buf = realloc(*buf, c);
		*cap = c;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

int testlib_run(char *const argv[], char *const envp_extra[], const char *stdin_data, size_t stdin_len,
		int timeout_ms, struct testlib_output *out)
{
	memset(out, 0, sizeof *out);
	int in[2], o[2], er[2];
	if (pipe(in) || pipe(o) || pipe(er))
		return -1;
	/* A person at a terminal: stdin on a pseudo-terminal (stdout and
	 * stderr stay pipes, read as always). Its master stays open until
	 * the child is gone. */
	int tty_master = -1, tty_slave = -1;
	if (testlib_stdin_tty && !stdin_data && openpty(&tty_master, &tty_slave, NULL, NULL, NULL) < 0)
		return -1;
	char **env = build_env(envp_extra);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		dup2(tty_slave >= 0 ? tty_slave : in[0], 0);
		if (tty_slave >= 0)
			close(tty_slave), close(tty_master);
		dup2(o[1], 1);
		dup2(er[1], 2);
		close(in[0]), close(in[1]), close(o[0]), close(o[1]), close(er[0]), close(er[1]);
		execvpe(argv[0], argv, env);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	free(env);
	close(in[0]), close(o[1]), close(er[1]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	size_t in_off = 0;
	if (!stdin_data) {
		close(in[1]);
		in[1] = -1;
	}
	size_t out_cap = 0, err_cap = 0;
	long long deadline = now_ms() + timeout_ms;
	int open_fds = 2;
	bool signalled = false;
	while (open_fds > 0) {
		struct pollfd p[3] = {{o[0], POLLIN, 0}, {er[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
		long long left = deadline - now_ms();
		if (left <= 0) {
			out->timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		int r = poll(p, in[1] >= 0 ? 3 : 2, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		char chunk[65536];
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(p[i].fd, chunk, sizeof chunk);
			if (n <= 0) {
				close(p[i].fd);
				if (i == 0)
					o[0] = -1;
				else
					er[0] = -1;
				open_fds--;
			} else if (i == 0) {
				append(&out->out, &out->out_len, &out_cap, chunk, (size_t)n);
				if (testlib_signal_when && !signalled && strstr(out->out, testlib_signal_when)) {
					kill(pid, testlib_signal_sig);
					signalled = true;
				}
			} else {
				append(&out->err, &out->err_len, &err_cap, chunk, (size_t)n);
			}
		}
		if (in[1] >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t n = write(in[1], stdin_data + in_off, stdin_len - in_off);
			if (n > 0)
				in_off += (size_t)n;
			if (n < 0 || in_off >= stdin_len) {
				close(in[1]);
				in[1] = -1;
			}
		}
	}
	if (in[1] >= 0)
		close(in[1]);
	if (o[0] >= 0)
		close(o[0]);
	if (er[0] >= 0)
		close(er[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	if (tty_master >= 0)
		close(tty_master), close(tty_slave);
	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (!out->out)
		out->out = calloc(1, 1);
	if (!out->err)
		out->err = calloc(1, 1);
	return 0;
}

bool testlib_cli_memcheck = true;
bool testlib_stdin_tty = false;
const char *testlib_signal_when = NULL;
int testlib_signal_sig = 0;

void testlib_memcheck_row(int row)
{
	testlib_cli_memcheck = row % 4 == 0;
}

/* A checked fixture of every case: CK_FORK=no runs them in one process. */
static void memcheck_on(void)
{
	testlib_cli_memcheck = true;
}

int testlib_run_cli(char *const args[], char *const envp_extra[], const char *stdin_data, int timeout_ms,
		    struct testlib_output *out)
{
	size_t n = 0;
	while (args[n])
		n++;
	/* Under `meson test --setup valgrind` the binary itself runs under
	 * memcheck too, so CLI paths are checked, not only the test body. */
	static char *vg[] = {"valgrind",
			     "--quiet",
			     "--leak-check=full",
			     "--errors-for-leak-kinds=definite",
			     "--error-exitcode=99",
			     NULL};
	const char *wrap = getenv("CA_VALGRIND_CLI");
	size_t nvg = testlib_cli_memcheck && wrap && *wrap == '1' ? 5 : 0;
	char **argv = calloc(n + nvg + 2, sizeof *argv);
	for (size_t i = 0; i < nvg; i++)
		argv[i] = vg[i];
	argv[nvg] = (char *)testlib_env("CA_BINARY");
	for (size_t i = 0; i < n; i++)
		argv[nvg + i + 1] = args[i];
	int r = testlib_run(argv, envp_extra, stdin_data, stdin_data ? strlen(stdin_data) : 0, timeout_ms, out);
	free(argv);
	return r;
}

void testlib_output_free(struct testlib_output *out)
{
	free(out->out);
	free(out->err);
	out->out = out->err = NULL;
}

int testlib_server_start(struct testlib_server *s, char *const argv[], char *const envp_extra[],
			 const char *ready_prefix, int timeout_ms)
{
	memset(s, 0, sizeof *s);
	s->pid = -1;
	int o[2];
	if (pipe(o))
		return -1;
	char **env = build_env(envp_extra);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(o[1], 1);
		close(o[0]), close(o[1]);
		execvpe(argv[0], argv, env);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	free(env);
	setpgid(pid, pid);
	close(o[1]);
	s->pid = pid;
	s->stdout_fd = o[0];
	char line[4096];
	size_t len = 0;
	long long deadline = now_ms() + timeout_ms;
	while (1) {
		long long left = deadline - now_ms();
		if (left <= 0)
			break;
		struct pollfd p = {o[0], POLLIN, 0};
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		ssize_t n = read(o[0], line + len, sizeof line - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
		line[len] = '\0';
		char *nl;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (strncmp(line, ready_prefix, strlen(ready_prefix)) == 0) {
				snprintf(s->ready_line, sizeof s->ready_line, "%s", line);
				const char *rest = line + strlen(ready_prefix);
				const char *u = strstr(rest, "http://");
				if (u) {
					size_t ul = strcspn(u, " \t\r");
					snprintf(s->url, sizeof s->url, "%.*s", (int)ul, u);
					const char *colon = strchr(u + 7, ':');
					if (colon)
						s->port = atoi(colon + 1);
				} else {
					const char *d = rest + strcspn(rest, "0123456789");
					s->port = atoi(d);
				}
				return 0;
			}
			size_t used = (size_t)(nl - line) + 1;
			memmove(line, nl + 1, len - used + 1);
			len -= used;
		}
		if (len >= sizeof line - 1)
			len = 0; /* an overlong line: drop it */
	}
	fprintf(stderr, "server %s did not print '%s' within %d ms\n", argv[0], ready_prefix, timeout_ms);
	testlib_server_stop(s);
	return -1;
}

void testlib_server_stop(struct testlib_server *s)
{
	if (s->pid <= 0)
		return;
	pid_t group = s->pid;
	kill(-group, SIGTERM);
	int st;
	for (int i = 0; i < 50; i++) {
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = -1;
			break;
		}
		usleep(20000);
	}
	if (s->pid > 0) {
		kill(-s->pid, SIGKILL);
		waitpid(s->pid, &st, 0);
		s->pid = -1;
	}
	/* Whatever else the group spawned goes too. */
	kill(-group, SIGKILL);
	if (s->stdout_fd > 0)
		close(s->stdout_fd);
	s->stdout_fd = -1;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

size_t testlib_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s: %s", dir, strerror(errno));
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

void testlib_remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *testlib_conformance_result_dir(const char *dir, const char *scenario)
{
	const char *slash = strchr(scenario, '/');
	char sub[4096];
	snprintf(sub, sizeof sub, "%s/%.*s", dir, slash ? (int)(slash - scenario) : 0, scenario);
	const char *name = slash ? slash + 1 : scenario;
	DIR *d = opendir(sub);
	ck_assert_msg(d != NULL, "no %s", sub);
	char *found = NULL;
	struct dirent *de;
	size_t n = strlen(name);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, name, n) == 0 && de->d_name[n] == '-') {
			ck_assert_msg(found == NULL, "two result directories for %s", scenario);
			ck_assert_int_ge(asprintf(&found, "%s/%s", sub, de->d_name), 0);
		}
	}
	closedir(d);
	return found;
}

void testlib_conformance_run(const char *client, const char *scenario, const char *spec, const char *out_dir,
			     char *const env_extra[], struct testlib_output *o)
{
	char path[4096], loopback[4096], suite[4096];
	snprintf(path, sizeof path, "%s/tests/conformance/%s", testlib_env("CA_BUILD_DIR"), client);
	snprintf(loopback, sizeof loopback, "%s", testlib_src("tests/sim/loopback.mjs"));
	snprintf(suite, sizeof suite, "%s/node_modules/%s", testlib_env("CA_NPM_DIR"),
		 spec ? "conformance-next/dist/index.js" : ".bin/conformance");
	ck_assert_msg(access(path, X_OK) == 0, "%s is not built", path);
	/* The suite splits --command on spaces. */
	ck_assert_msg(strchr(path, ' ') == NULL, "build path has a space: %s", path);
	char *argv[] = {(char *)testlib_node(),
			"--import",
			loopback,
			suite,
			"client",
			"--command",
			path,
			"--scenario",
			(char *)scenario,
			"--timeout",
			"30000",
			"-o",
			(char *)out_dir,
			spec ? "--spec-version" : NULL,
			(char *)spec,
			NULL};
	ck_assert_int_eq(testlib_run(argv, env_extra, NULL, 0, 60000, o), 0);
}

json_t *testlib_conformance_check(json_t *checks, const char *id)
{
	size_t i;
	json_t *c;
	json_array_foreach(checks, i, c) {
		const char *cid = json_string_value(json_object_get(c, "id"));
		if (cid && strcmp(cid, id) == 0)
			return c;
	}
	return NULL;
}

/* ---- a JSON-RPC exchange over a real transport ----------------------- */

static int collect_cb(const char *msg, size_t len, void *ctx, struct err *e)
{
	struct testlib_collect *c = ctx;
	ck_assert_int_eq(msg[len], '\0');
	json_error_t jerr;
	json_t *j = json_loadb(msg, len, 0, &jerr);
	ck_assert_msg(j != NULL, "message not JSON: %s: %s", jerr.text, msg);
	json_array_append(c->msgs, j);
	json_t *id = json_object_get(j, "id");
	const char *method = json_string_value(json_object_get(j, "method"));
	int r = 0;
	if (method && id) {
		json_t *ans = json_pack("{s:s, s:O, s:{}}", "jsonrpc", "2.0", "id", id, "result");
		char *text = json_dumps(ans, JSON_COMPACT);
		/* From inside the exchange, on the same transport. */
		ck_assert_int_eq(transport_send(c->t, text, strlen(text), false, NULL, NULL, e), 0);
		c->answered++;
		free(text);
		json_decref(ans);
	} else if (json_is_integer(id) && json_integer_value(id) == c->id) {
		r = 1;
	}
	json_decref(j);
	return r;
}

int testlib_call(struct transport *t, const char *method, bool with_params, struct testlib_collect *c,
		 struct err *e)
{
	/* Threads of one test call at once. */
	static json_int_t next_id = 1;
	c->t = t;
	c->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_SEQ_CST);
	c->msgs = json_array();
	c->answered = 0;
	json_t *req = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", c->id, "method", method);
	if (with_params)
		json_object_set_new(req, "params", json_object());
	char *text = json_dumps(req, JSON_COMPACT);
	err_clear(e);
	int r = transport_send(t, text, strlen(text), true, collect_cb, c, e);
	free(text);
	json_decref(req);
	return r;
}

json_t *testlib_last_result(struct testlib_collect *c)
{
	size_t n = json_array_size(c->msgs);
	ck_assert_uint_gt(n, 0);
	json_t *res = json_object_get(json_array_get(c->msgs, n - 1), "result");
	ck_assert_ptr_nonnull(res);
	return res;
}

char testlib_tmpdir[256];

/* Made and removed by the runner itself (an unchecked fixture), so a
 * failed test leaves no files behind. */
void testlib_tmpdir_make(void)
{
	const char *name = program_invocation_short_name;
	if (strncmp(name, "test_", 5) == 0)
		name += 5;
	testlib_make_tmpdir(testlib_tmpdir, sizeof testlib_tmpdir, name);
}

void testlib_tmpdir_remove(void)
{
	testlib_remove_tree(testlib_tmpdir);
}

/* ---- one Check case per test ---------------------------------------- */

/* Enough for the suites there are; testlib_group aborts past it. */
#define GROUPS_MAX 16
#define GROUP_TESTS_MAX 64

struct testlib_group {
	const char *name;
	double timeout; /* 0: Check's default (CK_DEFAULT_TIMEOUT) */
	const char *tags;
	SFun setup, teardown;    /* checked */
	SFun once_up, once_down; /* unchecked: once for the group */
	struct {
		const TTest *t;
		int from, to;
	} tests[GROUP_TESTS_MAX];
	size_t n_tests;
};

static struct testlib_group groups[GROUPS_MAX];
static size_t n_groups;
/* The group whose unchecked fixture is set up, if any. Unchecked
 * fixtures run in the runner's process (forked or not), so this is
 * seen by the next case's. */
static struct testlib_group *group_up;

static void group_down(void)
{
	if (group_up && group_up->once_down)
		group_up->once_down();
	group_up = NULL;
}

static void group_bring_up(struct testlib_group *g)
{
	if (group_up == g)
		return;
	group_down();
	if (g->once_up)
		g->once_up();
	group_up = g;
}

/* Check's fixtures take no argument: one trampoline per group slot. */
#define GROUP_UP(i)                         \
	static void group_up_##i(void)      \
	{                                   \
		group_bring_up(&groups[i]); \
	}
GROUP_UP(0)
GROUP_UP(1)
GROUP_UP(2)
GROUP_UP(3)
GROUP_UP(4)
GROUP_UP(5)
GROUP_UP(6)
GROUP_UP(7)
GROUP_UP(8)
GROUP_UP(9)
GROUP_UP(10)
GROUP_UP(11)
GROUP_UP(12)
GROUP_UP(13)
GROUP_UP(14)
GROUP_UP(15)
static const SFun group_ups[GROUPS_MAX] = {
	group_up_0, group_up_1, group_up_2,  group_up_3,  group_up_4,  group_up_5,  group_up_6,  group_up_7,
	group_up_8, group_up_9, group_up_10, group_up_11, group_up_12, group_up_13, group_up_14, group_up_15,
};

static void group_noop(void)
{
}

struct testlib_group *testlib_group(const char *name)
{
	if (n_groups == GROUPS_MAX) {
		fprintf(stderr, "testlib: more than %d test groups\n", GROUPS_MAX);
		abort();
	}
	struct testlib_group *g = &groups[n_groups++];
	g->name = name;
	return g;
}

void testlib_group_timeout(struct testlib_group *g, double seconds)
{
	g->timeout = seconds;
}

void testlib_group_tags(struct testlib_group *g, const char *tags)
{
	g->tags = tags;
}

void testlib_group_checked_fixture(struct testlib_group *g, SFun setup, SFun teardown)
{
	g->setup = setup;
	g->teardown = teardown;
}

void testlib_group_unchecked_fixture(struct testlib_group *g, SFun setup, SFun teardown)
{
	g->once_up = setup;
	g->once_down = teardown;
}

void testlib_group_add_test(struct testlib_group *g, const TTest *t, int from, int to)
{
	if (g->n_tests == GROUP_TESTS_MAX) {
		fprintf(stderr, "testlib: more than %d tests in group %s\n", GROUP_TESTS_MAX, g->name);
		abort();
	}
	g->tests[g->n_tests].t = t;
	g->tests[g->n_tests].from = from;
	g->tests[g->n_tests].to = to;
	g->n_tests++;
}

void testlib_suite_add(Suite *s, struct testlib_group *g)
{
	for (size_t i = 0; i < g->n_tests; i++) {
		/* The case is named after the test: CK_RUN_CASE picks it. */
		TCase *tc = tcase_create(g->tests[i].t->name);
		if (g->timeout > 0)
			tcase_set_timeout(tc, g->timeout);
		if (g->tags)
			tcase_set_tags(tc, g->tags);
		/* Every case brings its group up, so the group before it is
		 * torn down first, as its TCase's teardown would have been. */
		tcase_add_unchecked_fixture(tc, group_ups[g - groups], group_noop);
		tcase_add_checked_fixture(tc, memcheck_on, NULL);
		if (g->setup || g->teardown)
			tcase_add_checked_fixture(tc, g->setup, g->teardown);
		_tcase_add_test(tc, g->tests[i].t, 0, 0, g->tests[i].from, g->tests[i].to);
		suite_add_tcase(s, tc);
	}
}

int testlib_main(Suite *s)
{
	/* What main() does for the program (src/process.c): the library
	 * leaves libcurl's global state to its caller. */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	group_down();
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void testlib_make_tmpdir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "/tmp/ca-%s-XXXXXX", name);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
}

double testlib_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int testlib_spawn_measured(char *const argv[], char *const env_extra[], const char *out_path, const char *err_path,
			   double deadline_s, struct testlib_measured *m, bool *timed_out)
{
	memset(m, 0, sizeof *m);
	m->status = 127;
	*timed_out = false;
	double t0 = testlib_now_s();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		int in = open("/dev/null", O_RDONLY);
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || out < 0 || err < 0)
			_exit(126);
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		unsetenv("MALLOC_PERTURB_");
		for (char *const *e = env_extra; e && *e; e++)
			putenv(*e);
		execv(argv[0], argv);
		_exit(127);
	}
	struct rusage ru;
	int ws = 0;
	for (;;) {
		memset(&ru, 0, sizeof ru);
		pid_t r = wait4(pid, &ws, WNOHANG, &ru);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			kill(-pid, SIGKILL);
			return -1;
		}
		if (testlib_now_s() - t0 > deadline_s) {
			kill(-pid, SIGKILL);
			wait4(pid, &ws, 0, &ru);
			*timed_out = true;
			break;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	m->wall_s = testlib_now_s() - t0;
	m->maxrss_kb = ru.ru_maxrss;
	m->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}
