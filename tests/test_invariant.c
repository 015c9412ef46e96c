/* No verdict contradicts its own notes (issue 28): analysis_contradiction
 * over every history in tests/fixtures, at every data-sharing level, and
 * the .NET activity retry that once printed CLEAN beside a note saying its
 * retry was linked. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "event.h"
#include "report.h"
#include "testlib.h"

static struct analysis *analyze(const char *text, size_t len, enum data_sharing_level level,
				struct event_log **log_out)
{
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_parse(text, len, &e);
	if (!log)
		return NULL;
	struct analysis_options o = {.sharing = level, .sharing_source = "test"};
	struct analysis *a = analysis_run(log, &o, &e);
	ck_assert_msg(a != NULL, "analysis_run: %s", e.msg);
	*log_out = log;
	return a;
}

static bool is_history(const char *name)
{
	size_t n = strlen(name);
	return (n > 5 && strcmp(name + n - 5, ".json") == 0) || (n > 4 && strcmp(name + n - 4, ".txt") == 0);
}

START_TEST(every_fixture_agrees_with_itself)
{
	const char *dir = testlib_src("tests/fixtures");
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	size_t n_files = 0, n_chains = 0;
	static const enum data_sharing_level levels[] = {SHARING_UNKNOWN, SHARING_METADATA, SHARING_FULL};
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!is_history(de->d_name))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		size_t len;
		char *text = testlib_read_file(path, &len);
		ck_assert_msg(text != NULL, "cannot read %s", path);
		bool read = false;
		for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
			struct event_log *log = NULL;
			struct analysis *a = analyze(text, len, levels[l], &log);
			if (!a)
				break; /* not a history (a schema, a payload sample) */
			read = true;
			char why[2048];
			const char *bad = analysis_contradiction(a, why, sizeof why);
			ck_assert_msg(bad == NULL, "%s (sharing %d): %s", de->d_name, (int)levels[l], bad);
			if (l == 0) {
				size_t reexecuted, suspect;
				report_analysis_counts(a, &reexecuted, &suspect);
				n_chains += reexecuted;
			}
			analysis_free(a);
			event_log_free(log);
		}
		n_files += read;
		free(text);
	}
	closedir(d);
	/* The fixtures hold histories, and chains among them: a sweep that
	 * read nothing would prove nothing. */
	ck_assert_uint_ge(n_files, 60);
	ck_assert_uint_ge(n_chains, 25);
}
END_TEST

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_payload(const struct payload *a, const struct payload *b)
{
	return a->state == b->state && a->truncated == b->truncated && a->size == b->size && a->hash == b->hash;
}

/* Where two reads of one history first differ, or NULL. source_offset is
 * left out: only the bytes know it. */
static const char *first_difference(const struct event_log *x, const struct event_log *y, size_t *at)
{
	*at = 0;
	if (event_log_count(x) != event_log_count(y))
		return "the number of events";
	if (event_log_dialect(x) != event_log_dialect(y))
		return "the dialect";
	for (size_t i = 0; i < event_log_count(x); i++) {
		struct event a, b;
		event_log_get(x, i, &a);
		event_log_get(y, i, &b);
		*at = i;
		if (a.kind != b.kind || a.origin != b.origin || a.event_id != b.event_id ||
		    a.task_scheduled_id != b.task_scheduled_id || a.timer_id != b.timer_id ||
		    a.has_event_id != b.has_event_id || a.has_task_scheduled_id != b.has_task_scheduled_id ||
		    a.has_timer_id != b.has_timer_id || a.has_non_retriable != b.has_non_retriable ||
		    a.non_retriable != b.non_retriable || a.attested != b.attested ||
		    a.cause_depth != b.cause_depth)
			return "a kind, id or flag";
		const char *sa[] = {a.kind_name,
				    a.timestamp,
				    a.name,
				    a.task_execution_id,
				    a.fire_at,
				    a.origin_id,
				    a.instance_id,
				    a.execution_id,
				    a.retry_parent_instance_id,
				    a.rerun_parent_instance_id,
				    a.workflow_status,
				    a.error_type,
				    a.error_message,
				    a.cause_type,
				    a.cause_message,
				    a.patches};
		const char *sb[] = {b.kind_name,
				    b.timestamp,
				    b.name,
				    b.task_execution_id,
				    b.fire_at,
				    b.origin_id,
				    b.instance_id,
				    b.execution_id,
				    b.retry_parent_instance_id,
				    b.rerun_parent_instance_id,
				    b.workflow_status,
				    b.error_type,
				    b.error_message,
				    b.cause_type,
				    b.cause_message,
				    b.patches};
		for (size_t k = 0; k < sizeof sa / sizeof sa[0]; k++)
			if (!same_str(sa[k], sb[k]))
				return "a text field";
		if (!same_payload(&a.input, &b.input) || !same_payload(&a.output, &b.output) ||
		    !same_payload(&a.custom_status, &b.custom_status))
			return "a payload";
	}
	const struct event_run_info *ra = event_log_run_info(x), *rb = event_log_run_info(y);
	if (!ra != !rb ||
	    (ra && (!same_str(ra->instance_id, rb->instance_id) || !same_str(ra->app_id, rb->app_id) ||
		    !same_str(ra->workflow_name, rb->workflow_name) ||
		    !same_str(ra->runtime_status, rb->runtime_status) || !same_str(ra->project, rb->project) ||
		    !same_str(ra->data_sharing_level, rb->data_sharing_level))))
		return "the run's envelope";
	return NULL;
}

/* A run's answer is read from its bytes (mcp_call_tool_structured_raw), a
 * graph's and a saved one's from the decoded document (issue 34): both
 * reads must give the same history for every fixture that is a JSON
 * document, and the graphs, which the bytes parser would read as their
 * first node's events, must be told apart. */
START_TEST(bytes_and_tree_read_every_fixture_alike)
{
	const char *dir = testlib_src("tests/fixtures");
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	size_t n_same = 0, n_graphs = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		if (nl < 6 || strcmp(de->d_name + nl - 5, ".json") != 0)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		size_t len;
		char *text = testlib_read_file(path, &len);
		ck_assert_ptr_nonnull(text);
		json_error_t je;
		json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
		struct err e1, e2;
		err_clear(&e1);
		err_clear(&e2);
		struct event_log *tree = doc ? event_log_from_json(doc, &e1) : NULL;
		struct event_log *bytes = doc ? event_log_parse(text, len, &e2) : NULL;
		if (doc && event_doc_is_graph(doc)) {
			n_graphs++;
		} else if (tree || bytes) {
			ck_assert_msg(tree && bytes, "%s: only one read it: %s%s", de->d_name, e1.msg, e2.msg);
			size_t at;
			const char *what = first_difference(tree, bytes, &at);
			ck_assert_msg(what == NULL, "%s: the two reads differ in %s (event %zu)", de->d_name, what,
				      at);
			n_same++;
		}
		event_log_free(tree);
		event_log_free(bytes);
		json_decref(doc);
		free(text);
	}
	closedir(d);
	ck_assert_uint_ge(n_same, 50);
	ck_assert_uint_ge(n_graphs, 1);

	/* A graph of two nodes (as the simulator's profile b answers, a node a
	 * turn): the bytes alone would read the first node's events only. */
	size_t len;
	char *text =
		testlib_read_file(testlib_src("tests/fixtures/b-retry-fail-fail-succeed.catalyst.json"), &len);
	json_error_t je;
	json_t *flat = text ? json_loadb(text, len, 0, &je) : NULL;
	ck_assert(json_is_array(flat) && json_array_size(flat) >= 4);
	json_t *first = json_array(), *second = json_array();
	for (size_t i = 0; i < json_array_size(flat); i++)
		json_array_append(i < json_array_size(flat) / 2 ? first : second, json_array_get(flat, i));
	json_t *graph = json_pack("{s:{s:[{s:o},{s:o}]}}", "graph", "nodes", "events", first, "events", second);
	char *graph_text = json_dumps(graph, JSON_COMPACT);
	ck_assert(graph && graph_text && event_doc_is_graph(graph));
	struct err e;
	err_clear(&e);
	struct event_log *tree = event_log_from_json(graph, &e),
			 *bytes = event_log_parse(graph_text, strlen(graph_text), &e);
	ck_assert(tree && bytes);
	ck_assert_uint_eq(event_log_count(tree), json_array_size(flat));
	ck_assert_uint_lt(event_log_count(bytes), event_log_count(tree));
	event_log_free(tree);
	event_log_free(bytes);
	free(graph_text);
	json_decref(graph);
	json_decref(flat);
	free(text);
}
END_TEST

/* dapr/dotnet-sdk test/Dapr.Workflow.Test/Worker/Internal/TimerOriginTests.cs
 * ActivityRetry_TaskExecutionId_IsStableAcrossAttempts, its events as the
 * test builds them, with the timer the worker answers with: two attempts of
 * failAct, the first timer without an origin, the second naming an id no
 * attempt carries. Once CLEAN, "0 re-executed", beside a note saying the
 * retry was linked. */
START_TEST(dotnet_timer_origin_chain_is_reexecuted)
{
	size_t len;
	char *text =
		testlib_read_file(testlib_src("tests/fixtures/k7-activity-retry-origin-dotnet.proto.json"), &len);
	ck_assert_ptr_nonnull(text);
	struct event_log *log = NULL;
	struct analysis *a = analyze(text, len, SHARING_UNKNOWN, &log);
	ck_assert_ptr_nonnull(a);
	char why[2048];
	ck_assert_msg(analysis_contradiction(a, why, sizeof why) == NULL, "%s", why);
	size_t reexecuted, suspect;
	report_analysis_counts(a, &reexecuted, &suspect);
	ck_assert_uint_eq(reexecuted, 1);
	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert_uint_eq(a->invocations[0].n_attempts, 2);
	ck_assert_int_eq(a->invocations[0].link, LINK_PATTERN);
	bool reexec = false, timer1 = false, timer3 = false;
	for (size_t k = 0; k < a->n_findings; k++)
		reexec |= a->findings[k].kind == FINDING_REEXECUTED;
	ck_assert(reexec);
	for (size_t l = 0; l < a->n_limits; l++) {
		const char *s = a->limits[l];
		/* The origin-less first timer carried the link; the second has
		 * not fired and is not said to have linked anything. */
		timer1 |= strstr(s, "Timer 1 records no origin") && strstr(s, "(finding reexecuted)");
		timer3 |= strstr(s, "Retry timer 3 names task_execution_id") && strstr(s, "has not fired");
		ck_assert_msg(!strstr(s, "retry was linked"), "%s", s);
	}
	ck_assert(timer1);
	ck_assert(timer3);
	/* The note's claim is data the invariant checks: one, on failAct's
	 * first attempt (position 1: after ExecutionStarted). */
	ck_assert_uint_eq(a->n_claims, 1);
	ck_assert_int_eq(a->claims[0].kind, FINDING_REEXECUTED);
	ck_assert_str_eq(a->claims[0].activity, "failAct");
	ck_assert_uint_eq(a->claims[0].event_index, 1);
	analysis_free(a);
	event_log_free(log);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("invariant");
	struct testlib_group *tc = testlib_group("invariant");
	add_test(tc, every_fixture_agrees_with_itself);
	add_test(tc, dotnet_timer_origin_chain_is_reexecuted);
	add_test(tc, bytes_and_tree_read_every_fixture_alike);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
