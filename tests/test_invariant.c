/* No verdict contradicts its own notes (issue 28): analysis_contradiction
 * over every history in tests/fixtures, at every data-sharing level, and
 * the .NET activity retry that once printed CLEAN beside a note saying its
 * retry was linked. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The next *.json fixture in d (the folder dir): its text (malloc'd) and
 * file name, or NULL past the last one. */
static char *next_json_fixture(DIR *d, const char *dir, const char **name, size_t *len)
{
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		if (nl < 6 || strcmp(de->d_name + nl - 5, ".json") != 0)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		char *text = testlib_read_file(path, len);
		ck_assert_msg(text != NULL, "cannot read %s", path);
		*name = de->d_name;
		return text;
	}
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
	const char *name;
	size_t len;
	char *text;
	while ((text = next_json_fixture(d, dir, &name, &len))) {
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
			ck_assert_msg(tree && bytes, "%s: only one read it: %s%s", name, e1.msg, e2.msg);
			size_t at;
			const char *what = first_difference(tree, bytes, &at);
			ck_assert_msg(what == NULL, "%s: the two reads differ in %s (event %zu)", name, what, at);
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
	text = testlib_read_file(testlib_src("tests/fixtures/b-retry-fail-fail-succeed.catalyst.json"), &len);
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

/* The CLI's table read from a mapped file gives its pages back as the rows
 * are read (issue 34): a table of over 3 MB (the fixture's rows again and
 * again) must read the same mapped as from memory. */
START_TEST(table_read_mapped_and_in_memory_alike)
{
	size_t len;
	char *text = testlib_read_file(testlib_src("tests/fixtures/k6-cli-table-wide.cli-1.18.txt"), &len);
	ck_assert_ptr_nonnull(text);
	const char *rows = strchr(text, '\n');
	ck_assert_ptr_nonnull(rows);
	size_t head = (size_t)(rows - text) + 1, body = len - head, cap = (3u << 20) + 2 * len, n = head;
	char *big = malloc(cap);
	ck_assert_ptr_nonnull(big);
	memcpy(big, text, head);
	while (n + body < cap - 1 && n < (3u << 20)) {
		memcpy(big + n, text + head, body);
		n += body;
	}
	char path[] = "/tmp/catalyst-audit-table-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, big, n), (ssize_t)n);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	struct err e;
	err_clear(&e);
	struct event_log *mapped = event_log_parse_fd(fd, NULL, &e);
	ck_assert_msg(mapped != NULL, "%s", e.msg);
	close(fd);
	unlink(path);
	struct event_log *memory = event_log_parse(big, n, &e);
	ck_assert_msg(memory != NULL, "%s", e.msg);
	ck_assert_int_eq(event_log_dialect(mapped), DIALECT_DAPR_TABLE);
	ck_assert_uint_gt(event_log_count(mapped), 8000);
	size_t at;
	const char *what = first_difference(mapped, memory, &at);
	ck_assert_msg(what == NULL, "the two reads differ in %s (event %zu)", what, at);
	event_log_free(mapped);
	event_log_free(memory);
	free(big);
	free(text);
}
END_TEST

static bool same_attempt(const struct attempt *x, const struct attempt *y)
{
	return same_str(x->scheduled_at, y->scheduled_at) && same_str(x->completed_at, y->completed_at) &&
	       same_str(x->task_execution_id, y->task_execution_id) &&
	       same_str(attempt_more(x)->instance_id, attempt_more(y)->instance_id) &&
	       same_str(attempt_more(x)->error_type, attempt_more(y)->error_type) &&
	       same_str(attempt_more(x)->error_message, attempt_more(y)->error_message) &&
	       same_str(attempt_more(x)->cause_type, attempt_more(y)->cause_type) &&
	       same_str(attempt_more(x)->cause_message, attempt_more(y)->cause_message) &&
	       same_payload(&x->input, &y->input) && same_payload(&x->output, &y->output) &&
	       x->scheduled_id == y->scheduled_id && x->event_index == y->event_index &&
	       x->result_index == y->result_index && x->n_results == y->n_results && x->outcome == y->outcome &&
	       x->failure == y->failure && x->non_retriable == y->non_retriable &&
	       x->result_by_order == y->result_by_order && x->result_by_elimination == y->result_by_elimination;
}

/* Where two analyses of one history first differ, or NULL. */
static const char *analysis_difference(const struct analysis *a, const struct analysis *b)
{
	if (a->n_events != b->n_events || a->n_generations != b->n_generations || a->finished != b->finished ||
	    !same_str(a->status, b->status) || !same_str(a->ended_at, b->ended_at) || a->sharing != b->sharing ||
	    !same_str(a->sharing_source, b->sharing_source) || a->n_withheld != b->n_withheld ||
	    a->n_child_instances != b->n_child_instances || a->n_results != b->n_results)
		return "the run's facts";
	if (a->n_invocations != b->n_invocations)
		return "the number of invocations";
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *x = &a->invocations[i], *y = &b->invocations[i];
		if (!same_str(x->name, y->name) || !same_str(x->task_execution_id, y->task_execution_id) ||
		    x->n_attempts != y->n_attempts || x->link != y->link || x->generation != y->generation ||
		    x->n_retry_timers != y->n_retry_timers)
			return "an invocation";
		for (size_t k = 0; k < x->n_attempts; k++)
			if (!same_attempt(&x->attempts[k], &y->attempts[k]))
				return "an attempt";
	}
	if (a->n_findings != b->n_findings)
		return "the number of findings";
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *x = &a->findings[i], *y = &b->findings[i];
		/* The texts as read: some kinds make theirs then (text_of). */
		struct buf mx, my, sx, sy;
		buf_init(&mx, 0);
		buf_init(&my, 0);
		buf_init(&sx, 0);
		buf_init(&sy, 0);
		const char *tx, *ty;
		ck_assert(analysis_finding_message(x, &mx) == 0 && analysis_finding_message(y, &my) == 0 &&
			  analysis_finding_summary(x, &sx, &tx) == 0 &&
			  analysis_finding_summary(y, &sy, &ty) == 0);
		bool texts = same_str(mx.data, my.data) && same_str(tx, ty);
		buf_finish(&mx);
		buf_finish(&my);
		buf_finish(&sx);
		buf_finish(&sy);
		if (x->kind != y->kind || x->severity != y->severity || !texts || x->n_evidence != y->n_evidence ||
		    x->n_evidence_event_indexes != y->n_evidence_event_indexes ||
		    (x->n_evidence && memcmp(x->evidence_event_ids, y->evidence_event_ids,
					     x->n_evidence * sizeof *x->evidence_event_ids)) ||
		    (x->n_evidence_event_indexes &&
		     memcmp(x->evidence_event_indexes, y->evidence_event_indexes,
			    x->n_evidence_event_indexes * sizeof *x->evidence_event_indexes)))
			return "a finding";
	}
	if (a->n_limits != b->n_limits)
		return "the number of limits";
	for (size_t i = 0; i < a->n_limits; i++)
		if (!same_str(a->limits[i], b->limits[i]))
			return "a limit";
	return NULL;
}

/* The fixture's events repeated until the history is over `at_least` events
 * long (the run's envelope kept), then, with a tail, its events once and
 * the fixture's again to twice that: a history long enough for the scan to
 * give events back while it reads, before the tail and after it. NULL when
 * the document holds no event list. */
static char *repeated(const json_t *doc, size_t at_least, json_t *tail)
{
	json_t *copy = json_deep_copy(doc);
	json_t *list = json_is_array(copy) ? copy : NULL;
	const char *key;
	json_t *v;
	if (!list && json_is_object(copy))
		json_object_foreach(copy, key, v) {
			if (json_is_array(v) && json_array_size(v) && json_is_object(json_array_get(v, 0))) {
				list = v;
				break;
			}
		}
	size_t n = list ? json_array_size(list) : 0;
	char *text = NULL;
	if (n) {
		json_t *orig = json_deep_copy(list);
		while (json_array_size(list) <= at_least)
			json_array_extend(list, orig);
		if (tail) {
			json_array_extend(list, tail);
			while (json_array_size(list) <= 2 * at_least)
				json_array_extend(list, orig);
		}
		json_decref(orig);
		text = json_dumps(copy, JSON_COMPACT);
	}
	json_decref(copy);
	return text;
}

/* Past the 4,096 events after which the scan gives back what it passed. */
#define RELEASE_SPAN 4500

/* Two analyses of one long history: the scan that keeps the log
 * (analysis_scan) and the one that gives each event back as it passes
 * (analysis_scan_release, what `file` uses: issue 34). */
static const char *scan_both(const char *text, size_t len, struct event_log **log1, struct event_log **log2,
			     struct analysis **a1, struct analysis **a2)
{
	struct err e;
	err_clear(&e);
	*log1 = event_log_parse(text, len, &e);
	*log2 = event_log_parse(text, len, &e);
	ck_assert_msg(*log1 && *log2, "%s", e.msg);
	size_t n = event_log_count(*log2);
	struct analysis_options o = {.sharing = SHARING_UNKNOWN, .sharing_source = "test"};
	*a1 = analysis_finish(analysis_scan(*log1, &o, &e), &e);
	*a2 = analysis_finish(analysis_scan_release(*log2, &o, &e), &e);
	ck_assert_msg(*a1 && *a2, "%s", e.msg);
	ck_assert_uint_eq(event_log_count(*log2), 0); /* nothing left */
	ck_assert_uint_eq((*a2)->n_events, n);
	return analysis_difference(*a1, *a2);
}

START_TEST(release_scan_analyses_every_fixture_alike)
{
	const char *dir = testlib_src("tests/fixtures");
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	size_t n_read = 0;
	const char *name;
	size_t len;
	char *text;
	while ((text = next_json_fixture(d, dir, &name, &len))) {
		json_error_t je;
		json_t *doc = json_loadb(text, len, 0, &je);
		struct err e;
		err_clear(&e);
		struct event_log *probe = doc && !event_doc_is_graph(doc) ? event_log_parse(text, len, &e) : NULL;
		char *big = probe && event_log_count(probe) ? repeated(doc, RELEASE_SPAN, NULL) : NULL;
		event_log_free(probe);
		if (big) {
			struct event_log *l1, *l2;
			struct analysis *a1, *a2;
			const char *what = scan_both(big, strlen(big), &l1, &l2, &a1, &a2);
			ck_assert_msg(what == NULL, "%s repeated: the two scans differ in %s", name, what);
			ck_assert_uint_gt(a1->n_events, RELEASE_SPAN);
			n_read++;
			analysis_free(a1);
			analysis_free(a2);
			event_log_free(l1);
			event_log_free(l2);
			free(big);
		}
		json_decref(doc);
		free(text);
	}
	closedir(d);
	ck_assert_uint_ge(n_read, 50);

	/* A parallel fan-out of child workflows whose failures name no
	 * scheduled id (`dapr workflow history`; durabletask-go
	 * Test_ChildWorkflowRetry_ApplierCopiesRetryParentPerAction, as
	 * test_analysis builds it), between 4,500 other events and 4,500 more:
	 * the pairing by elimination reads those rows again after the scan,
	 * which must keep them while it gives back what comes after. */
	size_t l1;
	char *filler =
		testlib_read_file(testlib_src("tests/fixtures/b-retry-fail-fail-succeed.dapr-cli.json"), &l1);
	ck_assert_ptr_nonnull(filler);
	json_error_t je;
	json_t *fd = json_loadb(filler, l1, 0, &je);
	json_t *tail = json_pack(
		"[{s:s,s:s},{s:s,s:s,s:s},{s:s,s:s},{s:s,s:s,s:i},{s:s,s:s,s:i},{s:s},{s:s},{s:s},"
		"{s:s,s:i,s:s},{s:s,s:i,s:s},{s:s,s:s},{s:s,s:s},{s:s,s:s},{s:s,s:s,s:i},{s:s,s:s,s:i},"
		"{s:s,s:s},{s:s,s:s},{s:s,s:i}]",
		"type", "WorkflowStarted", "timestamp", "2026-09-14T14:00:00Z",              /* */
		"type", "ExecutionStarted", "name", "Parent", "executionId", "fan-out-exec", /* */
		"type", "ChildWorkflowCreated", "name", "Worker", /* event id 0: the CLI leaves it out */
		"type", "ChildWorkflowCreated", "name", "Worker", "eventId", 1,                          /* */
		"type", "ChildWorkflowCreated", "name", "Worker", "eventId", 2,                          /* */
		"type", "WorkflowStarted", "type", "ChildWorkflowFailed", "type", "ChildWorkflowFailed", /* */
		"type", "TimerCreated", "eventId", 3, "attrs", "fireAt=2026-09-14T14:00:01Z",            /* */
		"type", "TimerCreated", "eventId", 4, "attrs", "fireAt=2026-09-14T14:00:01Z",            /* */
		"type", "ChildWorkflowCompleted", "details", "eventId=2",                                /* */
		"type", "TimerFired", "attrs", "timerId=3;fireAt=2026-09-14T14:00:01Z",                  /* */
		"type", "TimerFired", "attrs", "timerId=4;fireAt=2026-09-14T14:00:01Z",                  /* */
		"type", "ChildWorkflowCreated", "name", "Worker", "eventId", 5,                          /* */
		"type", "ChildWorkflowCreated", "name", "Worker", "eventId", 6,                          /* */
		"type", "ChildWorkflowCompleted", "details", "eventId=5",                                /* */
		"type", "ChildWorkflowCompleted", "details", "eventId=6",                                /* */
		"type", "ExecutionCompleted", "eventId", 7);
	ck_assert(json_is_array(fd) && json_array_size(tail) == 18);
	char *big = repeated(fd, RELEASE_SPAN, tail);
	ck_assert_ptr_nonnull(big);
	struct event_log *g1, *g2;
	struct analysis *a1, *a2;
	const char *what = scan_both(big, strlen(big), &g1, &g2, &a1, &a2);
	ck_assert_msg(what == NULL, "the fan-out amid 9,000 events: the two scans differ in %s", what);
	bool eliminated = false;
	for (size_t i = 0; i < a2->n_invocations; i++)
		for (size_t k = 0; k < a2->invocations[i].n_attempts; k++)
			eliminated |= a2->invocations[i].attempts[k].result_by_elimination;
	ck_assert_msg(eliminated, "the fan-out's failures were paired by elimination");
	analysis_free(a1);
	analysis_free(a2);
	event_log_free(g1);
	event_log_free(g2);
	json_decref(fd);
	json_decref(tail);
	free(big);
	free(filler);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("invariant");
	struct testlib_group *tc = testlib_group("invariant");
	add_test(tc, every_fixture_agrees_with_itself);
	add_test(tc, dotnet_timer_origin_chain_is_reexecuted);
	add_test(tc, bytes_and_tree_read_every_fixture_alike);
	add_test(tc, release_scan_analyses_every_fixture_alike);
	add_test(tc, table_read_mapped_and_in_memory_alike);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
