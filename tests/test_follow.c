/* meson-test: integration slow */
/* run --follow (issue 30) against the simulator's live runs (tests/sim,
 * --live: a history that grows one event every --live-step-ms from the
 * first time a session asks for it): a run followed to its end, each event
 * said once and in order, the finding the moment it holds, the verdict and
 * run's exit status; JSON Lines typed and valid against the published
 * schema; an event that arrives late; a reading that fails (the
 * connection dropped three times over) retried and said; Ctrl-C and
 * --follow-for ending with the verdict so far, still running; a run
 * purged while followed ending with status 7. */
#include <check.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define CLI_TIMEOUT_MS 120000

static struct testlib_server sim, faulty, slow;

static void start(struct testlib_server *s, const char *const *extra)
{
	char *argv[24] = {(char *)testlib_node(), (char *)testlib_src("tests/sim/catalyst-sim.mjs"), "--live",
			  "--max-seconds", "900"};
	size_t n = 5;
	for (; extra && *extra; extra++)
		argv[n++] = (char *)*extra;
	argv[n] = NULL;
	ck_assert_int_eq(testlib_server_start(s, argv, NULL, "LISTENING", 60000), 0);
}

static void follow(const struct testlib_server *s, const char *const *args, struct testlib_output *o)
{
	const char *argv[32] = {"--server", s->url};
	size_t n = 2;
	for (; *args; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	static char *const env[] = {"CATALYST_TOKEN=", NULL};
	ck_assert_int_eq(testlib_run_cli((char *const *)argv, env, NULL, CLI_TIMEOUT_MS, o), 0);
	ck_assert_msg(!o->timed_out, "the follow did not end; stdout:\n%s", o->out);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Where needle first is in hay, as an offset (asserted present). */
static size_t at(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);
	ck_assert_msg(p, "no \"%s\" in:\n%s", needle, hay);
	return (size_t)(p - hay);
}

START_TEST(follows_a_run_to_its_end)
{
	struct testlib_output o;
	follow(&sim, (const char *[]){"run", "checkout", "live-7001", "--follow", NULL}, &o);
	/* the first screen: the report of what the history held then */
	ck_assert_ptr_nonnull(strstr(o.out, "Run live-7001  PaymentWorkflow [running]"));
	size_t following = at(o.out, "following live-7001 until it ends");
	/* then each change, once, in the run's order */
	const char *const order[] = {
		"ChargeCard  attempt 1 scheduled",
		"ChargeCard  attempt 1 failed [ambiguous] ConnectionError",
		"retry timer for ChargeCard, fires 10:00:07Z",
		"ChargeCard  attempt 2 scheduled",
		"ChargeCard  attempt 3 scheduled",
		"ChargeCard  attempt 3 completed",
		"run ended: completed",
	};
	size_t last = following;
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		size_t here = at(o.out, order[i]);
		ck_assert_msg(here > last, "\"%s\" out of order in:\n%s", order[i], o.out);
		ck_assert_uint_eq(count(o.out, order[i]), 1);
		last = here;
	}
	/* the finding as soon as the retry after the ambiguous failure exists */
	size_t suspect = at(o.out, "suspect    ChargeCard ambiguous_failure_retried");
	ck_assert_uint_gt(suspect, at(o.out, "ChargeCard  attempt 2 scheduled"));
	ck_assert_uint_lt(suspect, at(o.out, "ChargeCard  attempt 3 scheduled"));
	ck_assert_uint_eq(count(o.out, "ambiguous_failure_retried:"), 1);
	/* the verdict at the end, and run's status (a suspect finding: 1) */
	ck_assert_ptr_nonnull(strstr(o.out + last, "Verdict: SUSPECT"));
	ck_assert_ptr_nonnull(strstr(o.out + last, "Summary: SUSPECT  1 run, 1 activity, 1 re-executed"));
	ck_assert_int_eq(o.status, 1);
	/* piped: lines are only appended, no status line is kept */
	ck_assert_ptr_null(strchr(o.out, '\033'));
	ck_assert_ptr_null(strchr(o.out, '\r'));
	testlib_output_free(&o);
}
END_TEST

/* On a terminal the text view keeps a status line current under the
 * others (util-linux's script gives the follow a terminal for stdout):
 * written over with \r and erased (ESC [K) before each line and at the
 * end, so the verdict is the last thing on the screen. */
START_TEST(a_terminal_keeps_a_status_line)
{
	char ts[600], cmd[1600];
	snprintf(ts, sizeof ts, "%s/typescript", testlib_tmpdir);
	snprintf(cmd, sizeof cmd, "%s --server %s run checkout live-7001 --follow", testlib_env("CA_BINARY"),
		 sim.url);
	char *argv[] = {"script", "-qfec", cmd, ts, NULL};
	static char *const env[] = {"CATALYST_TOKEN=", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run(argv, env, NULL, 0, CLI_TIMEOUT_MS, &o), 0);
	ck_assert_int_eq(o.status, 1);
	testlib_output_free(&o);
	size_t len = 0;
	char *screen = testlib_read_file(ts, &len);
	ck_assert_ptr_nonnull(screen);
	ck_assert_msg(strstr(screen, "\r\033[Kfollowing  CLEAN  0 findings (0 suspect); next reading in 1s"), "%s",
		      screen);
	ck_assert_ptr_nonnull(strstr(screen, "\r\033[Kfollowing  SUSPECT  2 findings (1 suspect)"));
	/* the last status erased before the verdict */
	const char *verdict = strstr(screen, "Verdict: SUSPECT  1 suspect finding");
	ck_assert_ptr_nonnull(verdict);
	const char *last = NULL;
	for (const char *p = screen; (p = strstr(p, "following  ")) && p < verdict; p++)
		last = p;
	ck_assert_ptr_nonnull(last);
	const char *erase = strstr(last, "\r\033[K");
	ck_assert_msg(erase && erase < verdict, "the status line is left above the verdict");
	free(screen);
}
END_TEST

/* Children inherit nothing of ours (issue 31, item 8): the pager, started
 * while the client holds its connections to the simulator, records what
 * it got: no CATALYST_TOKEN in its environment (git's LESS default is
 * there), and no descriptor but 0, 1 and 2 (it got 26 sockets). The
 * shell execs ls, so what ls holds is what the pager's shell got. */
START_TEST(the_pager_gets_nothing_of_ours)
{
	char ts[600], cmd[2400], envf[600], fdsf[600];
	snprintf(ts, sizeof ts, "%s/typescript", testlib_tmpdir);
	snprintf(envf, sizeof envf, "%s/pager-env", testlib_tmpdir);
	snprintf(fdsf, sizeof fdsf, "%s/pager-fds", testlib_tmpdir);
	snprintf(
		cmd, sizeof cmd,
		"CATALYST_TOKEN=secret-token-31 LINES=3 CATALYST_PAGER='env > %s; cat >/dev/null; exec ls /proc/self/fd > %s' "
		"%s --server %s run checkout pay-20931",
		envf, fdsf, testlib_env("CA_BINARY"), sim.url);
	char *argv[] = {"script", "-qfec", cmd, ts, NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run(argv, NULL, NULL, 0, CLI_TIMEOUT_MS, &o), 0);
	testlib_output_free(&o);
	char *env = testlib_read_file(envf, NULL), *fds = testlib_read_file(fdsf, NULL);
	ck_assert_msg(env && fds, "the pager did not run");
	ck_assert_msg(!strstr(env, "secret-token-31") && !strstr(env, "CATALYST_TOKEN"), "%s", env);
	ck_assert_msg(strstr(env, "LESS=FRX"), "%s", env);
	/* ls itself holds one more: the folder it lists, 3 */
	for (char *line = strtok(fds, "\n"); line; line = strtok(NULL, "\n"))
		ck_assert_msg(atoi(line) <= 3, "the pager got descriptor %s", line);
	free(env);
	free(fds);
}
END_TEST

/* The run's app found through the run list, as `run RUN_ID` does. */
START_TEST(follows_a_run_named_by_id_alone)
{
	struct testlib_output o;
	follow(&sim, (const char *[]){"-f", "run", "live-7001", NULL}, &o);
	ck_assert_ptr_nonnull(strstr(o.err, "run live-7001 is in app checkout"));
	ck_assert_ptr_nonnull(strstr(o.out, "run ended: completed"));
	ck_assert_int_eq(o.status, 1);
	testlib_output_free(&o);
}
END_TEST

START_TEST(jsonl_lines_are_typed_and_valid)
{
	struct testlib_output o;
	follow(&sim, (const char *[]){"run", "checkout", "live-7001", "--follow", "-o", "jsonl", NULL}, &o);
	ck_assert_int_eq(o.status, 1);
	/* every line an object with a type; events and findings, then the
	 * run's line and the summary line last */
	size_t n = 0, events = 0, findings = 0, runs = 0, summaries = 0;
	char *save = NULL, *copy = strdup(o.out);
	const char *last_type = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		json_error_t je;
		json_t *v = json_loads(line, 0, &je);
		ck_assert_msg(v, "line %zu is not JSON: %s", n, line);
		const char *type = json_string_value(json_object_get(v, "type"));
		ck_assert_msg(type, "line %zu has no type", n);
		ck_assert_msg(!runs || strcmp(type, "summary") == 0, "a %s line after the run's", type);
		events += strcmp(type, "event") == 0;
		findings += strcmp(type, "finding") == 0;
		runs += strcmp(type, "run") == 0;
		summaries += strcmp(type, "summary") == 0;
		last_type = strcmp(type, "summary") == 0 ? "summary" : "other";
		json_decref(v);
	}
	free(copy);
	ck_assert_uint_eq(events, 10); /* started, 3 scheduled, 2 failed, 2 retry timers, completed, ended */
	ck_assert_uint_eq(findings, 2);
	ck_assert_uint_eq(runs, 1);
	ck_assert_uint_eq(summaries, 1);
	ck_assert_str_eq(last_type, "summary");
	ck_assert_ptr_nonnull(strstr(o.out, "\"what\":\"failed\""));
	ck_assert_ptr_nonnull(strstr(o.out, "\"failure_class\":\"ambiguous\""));

	/* and every line valid against the published schema */
	char path[600];
	snprintf(path, sizeof path, "%s/follow.jsonl", testlib_tmpdir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(o.out, f);
	ck_assert_int_eq(fclose(f), 0);
	char *argv[] = {(char *)testlib_node(), (char *)testlib_src("tests/schema/validate.mjs"),
			(char *)testlib_src("doc/catalyst-audit.report.v1.schema.json"), path, NULL};
	struct testlib_output v;
	ck_assert_int_eq(testlib_run(argv, NULL, NULL, 0, CLI_TIMEOUT_MS, &v), 0);
	ck_assert_msg(v.status == 0, "schema: %s%s", v.out, v.err);
	testlib_output_free(&v);
	testlib_output_free(&o);
}
END_TEST

/* live-7003 shows its first failure after the retry timer it caused: said
 * once, marked late, at its place in the history. */
START_TEST(a_late_event_is_said_once_where_it_belongs)
{
	struct testlib_output o;
	follow(&sim, (const char *[]){"run", "checkout", "live-7003", "--follow", NULL}, &o);
	const char *failed = "ChargeCard  attempt 1 failed [ambiguous]";
	ck_assert_uint_eq(count(o.out, failed), 1);
	ck_assert_uint_gt(at(o.out, failed), at(o.out, "retry timer for ChargeCard, fires 10:00:07Z"));
	const char *line = strstr(o.out, failed);
	const char *eol = strchr(line, '\n');
	ck_assert_ptr_nonnull(eol);
	ck_assert_msg(strstr(line, "  (late: event 4)") && strstr(line, "  (late: event 4)") < eol,
		      "not marked late: %.*s", (int)(eol - line), line);
	ck_assert_uint_eq(count(o.out, "(late: "), 1);
	ck_assert_ptr_nonnull(strstr(o.out, "Verdict: SUSPECT"));
	ck_assert_int_eq(o.status, 1);
	testlib_output_free(&o);
}
END_TEST

/* The connection dropped three times in a row (every try of one reading):
 * the reading is given up, said, and the next one goes on. */
START_TEST(a_failed_reading_is_retried_and_said)
{
	struct testlib_output o;
	follow(&faulty, (const char *[]){"run", "checkout", "live-7001", "--follow", NULL}, &o);
	ck_assert_uint_eq(count(o.out, "note       reading failed ("), 1);
	ck_assert_ptr_nonnull(strstr(o.out, "); again in 2s"));
	ck_assert_uint_eq(count(o.out, "ChargeCard  attempt 3 completed"), 1);
	ck_assert_ptr_nonnull(strstr(o.out, "run ended: completed"));
	ck_assert_int_eq(o.status, 1);
	testlib_output_free(&o);
}
END_TEST

/* Ctrl-C while the run still runs: the verdict so far, marked, and the
 * status of what was found (nothing yet at fail-on suspect: 0). */
START_TEST(ctrl_c_gives_the_verdict_so_far)
{
	struct testlib_output o;
	testlib_signal_when = "attempt 1 scheduled";
	testlib_signal_sig = SIGINT;
	follow(&slow, (const char *[]){"run", "checkout", "live-7001", "--follow", NULL}, &o);
	testlib_signal_when = NULL;
	ck_assert_msg(strstr(o.out, "Still running: the follow was stopped"), "%s", o.out);
	ck_assert_ptr_nonnull(strstr(o.out, "Verdict: CLEAN"));
	ck_assert_ptr_null(strstr(o.out, "run ended"));
	ck_assert_int_eq(o.status, 0);
	testlib_output_free(&o);
	/* SIGTERM the same, in JSON Lines: a note, then the run and summary */
	testlib_signal_when = "\"what\":\"scheduled\"";
	testlib_signal_sig = SIGTERM;
	follow(&slow, (const char *[]){"run", "checkout", "live-7001", "-f", "-o", "jsonl", NULL}, &o);
	testlib_signal_when = NULL;
	ck_assert_ptr_nonnull(strstr(o.out, "{\"type\":\"note\",\"app_id\":\"checkout\",\"run_id\":\"live-7001\","
					    "\"text\":\"Still running: the follow was stopped"));
	ck_assert_ptr_nonnull(strstr(o.out, "{\"type\":\"summary\""));
	ck_assert_int_eq(o.status, 0);
	testlib_output_free(&o);
}
END_TEST

START_TEST(follow_for_bounds_the_follow)
{
	struct testlib_output o;
	follow(&slow, (const char *[]){"run", "checkout", "live-7001", "--follow", "--follow-for", "3s", NULL},
	       &o);
	ck_assert_ptr_nonnull(strstr(o.out, "Still running: the follow was stopped"));
	ck_assert_ptr_null(strstr(o.out, "run ended"));
	ck_assert_int_eq(o.status, 0);
	testlib_output_free(&o);
}
END_TEST

/* live-7002 is purged once 4 of its events are shown. */
START_TEST(a_vanished_run_ends_with_7)
{
	struct testlib_output o;
	follow(&sim, (const char *[]){"run", "checkout", "live-7002", "--follow", NULL}, &o);
	ck_assert_ptr_nonnull(strstr(o.out, "note       the run is gone: "));
	ck_assert_ptr_nonnull(strstr(o.out, "Gone: the run disappeared while followed"));
	ck_assert_ptr_nonnull(strstr(o.out, "Verdict: "));
	ck_assert_int_eq(o.status, 7);
	testlib_output_free(&o);
}
END_TEST

/* A run that has ended already: its report, as run prints it. */
START_TEST(an_ended_run_is_its_report)
{
	struct testlib_output plain, o;
	follow(&sim, (const char *[]){"run", "checkout", "pay-20931", NULL}, &plain);
	follow(&sim, (const char *[]){"run", "checkout", "pay-20931", "--follow", NULL}, &o);
	ck_assert_str_eq(o.out, plain.out);
	ck_assert_int_eq(o.status, plain.status);
	testlib_output_free(&plain);
	testlib_output_free(&o);
}
END_TEST

/* runs --follow: every running run of the app at once, each line
 * prefixed by its run; the purged one said gone; the verdict over all. */
START_TEST(runs_follow_every_matching_run)
{
	struct testlib_output o;
	follow(&sim, (const char *[]){"runs", "--status", "running", "--app", "checkout", "--follow", NULL}, &o);
	ck_assert_ptr_nonnull(strstr(o.out, "following 3 runs until they end"));
	ck_assert_uint_eq(count(o.out, "live-7001  10:00:20Z  run ended: completed"), 1);
	ck_assert_uint_eq(count(o.out, "live-7003  10:00:20Z  run ended: completed"), 1);
	ck_assert_uint_eq(count(o.out, "live-7001  10:00:19Z  ChargeCard  attempt 3 scheduled"), 1);
	ck_assert_ptr_nonnull(strstr(o.out, "live-7002  note       the run is gone: "));
	ck_assert_uint_eq(count(o.out, "ambiguous_failure_retried:"), 2);
	ck_assert_ptr_nonnull(strstr(o.out, "Verdict: SUSPECT  2 suspect findings in 2 of 3 runs"));
	ck_assert_int_eq(o.status, 1);
	testlib_output_free(&o);
}
END_TEST

START_TEST(follow_refuses_what_it_cannot_write)
{
	struct testlib_output o;
	follow(&sim, (const char *[]){"run", "checkout", "live-7001", "--follow", "-o", "markdown", NULL}, &o);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "--follow writes text or jsonl, not markdown"));
	testlib_output_free(&o);
	follow(&sim, (const char *[]){"run", "checkout", "live-7001", "--follow", "--interval", "0", NULL}, &o);
	ck_assert_int_eq(o.status, 2);
	testlib_output_free(&o);
	follow(&sim, (const char *[]){"run", "checkout", "live-7001", "--follow-for", "1x", NULL}, &o);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "expected a duration"));
	testlib_output_free(&o);
}
END_TEST

static void servers_start(void)
{
	testlib_tmpdir_make();
	start(&sim, (const char *[]){"--live-step-ms", "400", NULL});
	/* one reading's three tries (the tool layer's) all dropped */
	start(&faulty,
	      (const char *[]){"--live-step-ms", "400", "--fail-tool", "catalyst_get_workflow_run", "--fail-nth",
			       "3:reset", "--fail-nth", "4:reset", "--fail-nth", "5:reset", NULL});
	start(&slow, (const char *[]){"--live-step-ms", "1500", NULL});
}

static void servers_stop(void)
{
	testlib_server_stop(&sim);
	testlib_server_stop(&faulty);
	testlib_server_stop(&slow);
	testlib_tmpdir_remove();
}

int main(void)
{
	Suite *s = suite_create("follow");
	struct testlib_group *g = testlib_group("follow");
	testlib_group_timeout(g, 300);
	testlib_group_unchecked_fixture(g, servers_start, servers_stop);
	add_test(g, follows_a_run_to_its_end);
	add_test(g, follows_a_run_named_by_id_alone);
	add_test(g, a_terminal_keeps_a_status_line);
	add_test(g, the_pager_gets_nothing_of_ours);
	add_test(g, jsonl_lines_are_typed_and_valid);
	add_test(g, a_late_event_is_said_once_where_it_belongs);
	add_test(g, a_failed_reading_is_retried_and_said);
	add_test(g, ctrl_c_gives_the_verdict_so_far);
	add_test(g, follow_for_bounds_the_follow);
	add_test(g, a_vanished_run_ends_with_7);
	add_test(g, an_ended_run_is_its_report);
	add_test(g, runs_follow_every_matching_run);
	add_test(g, follow_refuses_what_it_cannot_write);
	testlib_suite_add(s, g);
	return testlib_main(s);
}
