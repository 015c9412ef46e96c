#pragma once
/* Shared by every test: running the built binary, starting servers on
 * 127.0.0.1 (and always stopping them), reading fixtures, and the one main()
 * that runs a Check suite. */

#include <check.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Paths the meson test environment provides (CA_SOURCE_DIR, CA_BUILD_DIR,
 * CA_BINARY, CA_NODE, CA_NPM_DIR). Aborts the test when unset. */
const char *testlib_env(const char *name);
/* "<CA_SOURCE_DIR>/<rel>" in a static rotating buffer (valid for 8 calls). */
const char *testlib_src(const char *rel);
/* Reads a whole file; NULL on error. Caller frees. */
char *testlib_read_file(const char *path, size_t *len);

struct testlib_output {
	char *out; /* stdout, NUL-terminated */
	size_t out_len;
	char *err; /* stderr */
	size_t err_len;
	int status; /* exit status, or 128+signal */
	bool timed_out;
};

/* Runs argv (argv[0] is a path or found in PATH) with stdin_data on its
 * stdin (NULL: /dev/null), extra "NAME=VALUE" environment entries (NULL
 * terminated, may be NULL), killing it after timeout_ms. */
int testlib_run(char *const argv[], char *const envp_extra[], const char *stdin_data, size_t stdin_len,
		int timeout_ms, struct testlib_output *out);
/* Whether testlib_run gives the child a pseudo-terminal as its standard
 * input (stdin_data NULL): a person at a terminal, as `login` needs
 * (issue 19). Off by default: tests run as a script would. */
extern bool testlib_stdin_tty;
/* When set, testlib_run sends the child testlib_signal_sig the first time
 * its standard output holds testlib_signal_when (Ctrl-C in the middle of
 * run --follow). The caller sets both and clears them after. */
extern const char *testlib_signal_when;
extern int testlib_signal_sig;

/* Whether testlib_run_cli runs the binary under memcheck when the suite
 * asks for it (CA_VALGRIND_CLI=1): true unless a test turns it off for a
 * sweep that repeats, over every fixture, runs another sweep already
 * checked under memcheck (the CI budget cannot afford each one twice). */
extern bool testlib_cli_memcheck;
/* First in a loop test that sweeps a table: under CA_VALGRIND_CLI=1 one row
 * in four runs the binary under memcheck (rows 0, 4, 8, ...). The rows
 * differ in their arguments more than in the code memcheck watches, and a
 * memcheck start of the binary alone costs seconds; the plain and ASan
 * passes run every row. Every case starts with memcheck on again. */
void testlib_memcheck_row(int row);
/* Runs the built catalyst-audit with args (NULL terminated). */
int testlib_run_cli(char *const args[], char *const envp_extra[], const char *stdin_data, int timeout_ms,
		    struct testlib_output *out);
void testlib_output_free(struct testlib_output *out);

struct testlib_server {
	pid_t pid;
	int stdout_fd;
	int port;
	char url[256]; /* http://127.0.0.1:<port><path> when the ready line gives one */
	char ready_line[512];
};

/* Starts argv in its own process group with extra environment, then reads
 * its stdout until a line starting with ready_prefix appears (the line's
 * first number after the prefix is taken as the port, the first "http://"
 * word as the url). Returns -1 (and kills the process) on timeout or exit. */
int testlib_server_start(struct testlib_server *s, char *const argv[], char *const envp_extra[],
			 const char *ready_prefix, int timeout_ms);
/* SIGTERM to the group, then SIGKILL after a grace period; reaps. */
void testlib_server_stop(struct testlib_server *s);

/* Node from tests/npm (22, for the conformance suite) or the system's. */
const char *testlib_node(void);

/* How many entries a directory holds besides . and .. (asserts it opens). */
size_t testlib_count_entries(const char *dir);

/* Removes a directory tree (files first), ignoring what is already gone. */
void testlib_remove_tree(const char *path);

/* A fresh directory /tmp/ca-<name>-XXXXXX, written to dir (aborts on
 * failure: for unchecked fixtures). */
void testlib_make_tmpdir(char *dir, size_t size, const char *name);

double testlib_now_s(void); /* CLOCK_MONOTONIC */

/* One measured run of a program (the hostile-input and soak tests). */
struct testlib_measured {
	int status; /* exit status, or 128+signal */
	long maxrss_kb;
	double wall_s;
};

/* Runs argv (argv[0] a path) in its own process group, stdin from
 * /dev/null, stdout and stderr to the two files, env_extra ("K=V", NULL
 * ended) added and MALLOC_PERTURB_ removed (meson test sets it, and glibc
 * then fills every block, which makes all of it resident and hides what
 * the program itself touches). Kills the group after deadline_s and says
 * so in *timed_out. Asserts nothing, so a forked helper can call it;
 * returns -1 when the program could not be run or waited for. */
int testlib_spawn_measured(char *const argv[], char *const env_extra[], const char *out_path, const char *err_path,
			   double deadline_s, struct testlib_measured *m, bool *timed_out);

/* The official conformance suite writes each scenario's results to
 * <dir>/<group>/<name>-<time>/ ("auth/metadata-default") or <dir>/<name>-<time>/.
 * Returns that directory (malloc'd; asserts there is exactly one). */
char *testlib_conformance_result_dir(const char *dir, const char *scenario);
/* The check with this id in a checks.json array (borrowed), or NULL. */
json_t *testlib_conformance_check(json_t *checks, const char *id);
/* Runs one client scenario of the suite against the adapter `client`
 * (tests/conformance/<client> in the build), its results under out_dir:
 * the release (0.1.16) when spec is NULL, else the 0.2.0 alpha pinned in
 * tests/npm (conformance-next) serving that revision. The scenario
 * servers are kept on 127.0.0.1 (tests/sim/loopback.mjs). */
void testlib_conformance_run(const char *client, const char *scenario, const char *spec, const char *out_dir,
			     char *const env_extra[], struct testlib_output *o);

/* Runs the suite with CK_NORMAL output; returns the process exit status. */
int testlib_main(Suite *s);

/* ---- a JSON-RPC exchange over a real transport ------------------------
 * Collects every message of one exchange, answers the server's own
 * requests on the same transport (an empty result) from inside it, and
 * completes on the response to `id`. */
struct transport;
struct err;
struct testlib_collect {
	struct transport *t;
	json_int_t id;
	json_t *msgs; /* every message, parsed (the caller's: json_decref) */
	int answered; /* server requests answered */
};
/* Sends request `method` (params {} when with_params) with the next id and
 * waits for its response; 0 or -1 with e set. */
int testlib_call(struct transport *t, const char *method, bool with_params, struct testlib_collect *c,
		 struct err *e);
/* The last message's "result" (asserted present). */
json_t *testlib_last_result(struct testlib_collect *c);

/* An unchecked fixture pair: a private temporary folder for the suite,
 * named after the program, in testlib_tmpdir; removed with all it holds. */
extern char testlib_tmpdir[256];
void testlib_tmpdir_make(void);
void testlib_tmpdir_remove(void);

/* ---- one Check case per test ------------------------------------------
 * Every test is its own TCase named after it (libevdev's add_test), so
 * CK_RUN_CASE=<test> runs that one test. Tests are written in groups that
 * share settings, as a TCase would have shared them:
 *
 *	struct testlib_group *g = testlib_group("http");
 *	testlib_group_timeout(g, 120);
 *	testlib_group_unchecked_fixture(g, server_start, server_stop);
 *	add_test(g, answer_is_json);
 *	add_loop_test(g, status_errors, 0, N_STATUS);
 *	testlib_suite_add(s, g);
 *
 * An unchecked fixture stays once per group: set up before the group's
 * first test that runs and torn down before another group's fixture is
 * set up (or when the suite ends), so a server is not restarted per test.
 * A checked fixture runs around each test, as Check's does. Old-style
 * registration converts mechanically (see CONTRIBUTING.md, "Tests"). */
struct testlib_group;
struct testlib_group *testlib_group(const char *name);
void testlib_group_timeout(struct testlib_group *g, double seconds);
void testlib_group_tags(struct testlib_group *g, const char *tags);
void testlib_group_checked_fixture(struct testlib_group *g, SFun setup, SFun teardown);
void testlib_group_unchecked_fixture(struct testlib_group *g, SFun setup, SFun teardown);
void testlib_group_add_test(struct testlib_group *g, const TTest *t, int from, int to);
#define add_test(g, t) testlib_group_add_test((g), (t), 0, 1)
#define add_loop_test(g, t, from, to) testlib_group_add_test((g), (t), (from), (to))
/* One TCase per test of g added to s. */
void testlib_suite_add(Suite *s, struct testlib_group *g);

#ifndef TESTLIB_INTERNAL
/* Tests register through the group helpers above, never a TCase of their own. */
#pragma GCC poison tcase_create suite_add_tcase
#endif
