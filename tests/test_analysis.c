#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis.h"
#include "src/analysis_internal.h" /* the rule table */
#include "buf.h"
#include "testlib.h"

/* Histories are built with event_log_append, so these tests do not depend
 * on any dialect parser. */

static struct event_log *log_new(void)
{
	struct event_log *log = event_log_new();
	ck_assert_ptr_nonnull(log);
	return log;
}

static void add(struct event_log *log, struct event ev)
{
	struct err e;
	err_clear(&e);
	if (!ev.kind_name)
		ev.kind_name = event_kind_name(ev.kind);
	ck_assert_int_eq(event_log_append(log, &ev, &e), 0);
}

static void started(struct event_log *log, const char *name, const char *instance, const char *execution)
{
	add(log, (struct event){.kind = EVENT_WORKFLOW_STARTED, .event_id = -1, .has_event_id = true});
	add(log, (struct event){.kind = EVENT_EXECUTION_STARTED,
				.event_id = -1,
				.has_event_id = true,
				.name = name,
				.instance_id = instance,
				.execution_id = execution});
}

static void sched(struct event_log *log, int64_t id, const char *name, const char *exec)
{
	add(log, (struct event){.kind = EVENT_TASK_SCHEDULED,
				.event_id = id,
				.has_event_id = true,
				.name = name,
				.task_execution_id = exec,
				.timestamp = "2026-09-14T10:00:00.000Z"});
}

static void sched_in(struct event_log *log, int64_t id, const char *name, const char *exec, struct payload input)
{
	add(log, (struct event){.kind = EVENT_TASK_SCHEDULED,
				.event_id = id,
				.has_event_id = true,
				.name = name,
				.task_execution_id = exec,
				.input = input});
}

static void completed(struct event_log *log, int64_t tsid)
{
	add(log, (struct event){.kind = EVENT_TASK_COMPLETED,
				.event_id = -1,
				.has_event_id = true,
				.task_scheduled_id = tsid,
				.has_task_scheduled_id = true,
				.timestamp = "2026-09-14T10:00:01.000Z"});
}

static void completed_out(struct event_log *log, int64_t tsid, struct payload output)
{
	add(log, (struct event){.kind = EVENT_TASK_COMPLETED,
				.event_id = -1,
				.has_event_id = true,
				.task_scheduled_id = tsid,
				.has_task_scheduled_id = true,
				.output = output});
}

static struct event failure(int64_t tsid, const char *type, const char *msg)
{
	return (struct event){.kind = EVENT_TASK_FAILED,
			      .event_id = -1,
			      .has_event_id = true,
			      .task_scheduled_id = tsid,
			      .has_task_scheduled_id = true,
			      .error_type = type,
			      .error_message = msg};
}

static void failed(struct event_log *log, int64_t tsid, const char *type, const char *msg, bool non_retriable)
{
	struct event ev = failure(tsid, type, msg);
	ev.has_non_retriable = true;
	ev.non_retriable = non_retriable;
	add(log, ev);
}

/* A failure whose innermost cause (the .NET SDK's innerFailure) is given,
 * with no non-retriable flag. */
static void failed_cause(struct event_log *log, int64_t tsid, const char *type, const char *msg,
			 const char *cause_type, const char *cause_msg, int cause_depth)
{
	struct event ev = failure(tsid, type, msg);
	ev.cause_type = cause_type;
	ev.cause_message = cause_msg;
	ev.cause_depth = cause_depth;
	add(log, ev);
}

static void timer(struct event_log *log, int64_t id, enum timer_origin origin, const char *origin_id,
		  const char *fire_at)
{
	add(log, (struct event){.kind = EVENT_TIMER_CREATED,
				.event_id = id,
				.has_event_id = true,
				.origin = origin,
				.origin_id = origin_id,
				.fire_at = fire_at});
}

/* timer_id < 0: the key is absent. */
static void fired(struct event_log *log, int64_t timer_id, const char *fire_at)
{
	add(log, (struct event){.kind = EVENT_TIMER_FIRED,
				.event_id = -1,
				.has_event_id = true,
				.timer_id = timer_id < 0 ? 0 : timer_id,
				.has_timer_id = timer_id >= 0,
				.fire_at = fire_at});
}

static void child(struct event_log *log, int64_t id, const char *name, const char *instance,
		  const char *retry_parent)
{
	add(log, (struct event){.kind = EVENT_CHILD_CREATED,
				.event_id = id,
				.has_event_id = true,
				.name = name,
				.instance_id = instance,
				.retry_parent_instance_id = retry_parent});
}

static void child_done(struct event_log *log, int64_t tsid, bool ok, const char *msg)
{
	add(log, (struct event){.kind = ok ? EVENT_CHILD_COMPLETED : EVENT_CHILD_FAILED,
				.event_id = -1,
				.has_event_id = true,
				.task_scheduled_id = tsid,
				.has_task_scheduled_id = true,
				.error_type = ok ? NULL : "Error",
				.error_message = ok ? NULL : msg});
}

static void finished(struct event_log *log, int64_t id, const char *status)
{
	add(log, (struct event){.kind = EVENT_EXECUTION_COMPLETED,
				.event_id = id,
				.has_event_id = true,
				.workflow_status = status});
}

static struct analysis *run(struct event_log *log, const struct analysis_options *o)
{
	struct err e;
	err_clear(&e);
	struct analysis *a = analysis_run(log, o, &e);
	ck_assert_msg(a != NULL, "analysis_run: %s", e.msg);
	return a;
}

static size_t count_kind(const struct analysis *a, enum finding_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n_findings; i++)
		n += a->findings[i].kind == k;
	return n;
}

static const struct finding *get_kind(const struct analysis *a, enum finding_kind k)
{
	for (size_t i = 0; i < a->n_findings; i++) {
		if (a->findings[i].kind == k)
			return &a->findings[i];
	}
	ck_abort_msg("no %s finding", finding_kind_id(k));
	return NULL;
}

/* Exactly these kinds (each with the given count), nothing else. */
static void expect_kinds(const struct analysis *a, const size_t want[FINDING_KIND_COUNT])
{
	for (int k = 0; k < FINDING_KIND_COUNT; k++)
		ck_assert_msg(count_kind(a, (enum finding_kind)k) == want[k], "%s: got %zu, want %zu",
			      finding_kind_id((enum finding_kind)k), count_kind(a, (enum finding_kind)k), want[k]);
}

static void expect_ids(const struct finding *f, const int64_t *ids, size_t n)
{
	ck_assert_msg(f->n_evidence == n, "%s: %zu evidence ids, want %zu", finding_kind_id(f->kind),
		      f->n_evidence, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(f->evidence_event_ids[i], ids[i]);
}

/* A finding's message whole (analysis_finding_message), valid for the
 * next seven calls. */
static const char *msg(const struct finding *f)
{
	static struct buf ring[8];
	static unsigned next;
	struct buf *b = &ring[next++ % 8];
	buf_finish(b);
	buf_init(b, 0);
	ck_assert_int_eq(analysis_finding_message(f, b), 0);
	return b->data ? b->data : "";
}

static bool has_text(const char *s, const char *needle)
{
	return s && strstr(s, needle) != NULL;
}

static bool limits_mention(const struct analysis *a, const char *needle)
{
	for (size_t i = 0; i < a->n_limits; i++) {
		if (strstr(a->limits[i], needle))
			return true;
	}
	return false;
}

static struct payload present(size_t size, uint64_t hash)
{
	return (struct payload){.state = PAYLOAD_PRESENT, .size = size, .hash = hash};
}

/* A history from Catalyst (an MCP answer): absent payload keys are the
 * data-sharing level's doing there, and only there. */
static const struct analysis_options from_catalyst = {.catalyst_source = true};

static bool any_text(const struct analysis *a, const char *needle)
{
	for (size_t i = 0; i < a->n_findings; i++) {
		if (has_text(msg(&a->findings[i]), needle))
			return true;
	}
	return limits_mention(a, needle) || has_text(a->sharing_source, needle);
}

/* ---------------------------------------------------------------------- */

START_TEST(go_python_same_execution_id)
{
	struct event_log *log = log_new();
	started(log, "PaymentWorkflow", "pay-1", "exec-1");
	sched(log, 0, "ChargeCard", "7c1e");
	failed(log, 0, "ConnectionError", "('Connection aborted.', RemoteDisconnected('x'))", false);
	timer(log, 1, ORIGIN_ACTIVITY_RETRY, "7c1e", "t1");
	fired(log, 1, "t1");
	sched(log, 2, "ChargeCard", "7c1e");
	failed(log, 2, "HTTPError", "503 Server Error: Service Unavailable", false);
	timer(log, 3, ORIGIN_ACTIVITY_RETRY, "7c1e", "t3");
	fired(log, 3, "t3");
	sched(log, 4, "ChargeCard", "7c1e");
	completed(log, 4);
	finished(log, 5, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, NULL);

	ck_assert_uint_eq(a->n_invocations, 1);
	const struct invocation *inv = &a->invocations[0];
	ck_assert_uint_eq(inv->n_attempts, 3);
	ck_assert_int_eq(inv->link, LINK_EXECUTION_ID);
	ck_assert_str_eq(inv->task_execution_id, "7c1e");
	ck_assert_uint_eq(inv->n_retry_timers, 2);
	ck_assert_int_eq(inv->retry_timer_event_ids[0], 1);
	ck_assert_int_eq(inv->retry_timer_event_ids[1], 3);
	ck_assert_int_eq(inv->attempts[0].outcome, OUTCOME_FAILED);
	ck_assert_int_eq(inv->attempts[0].failure, FAILURE_AMBIGUOUS);
	ck_assert_int_eq(inv->attempts[2].outcome, OUTCOME_COMPLETED);

	size_t want[FINDING_KIND_COUNT] = {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_REEXECUTED);
	expect_ids(f, (int64_t[]){0, 1, 2, 3, 4}, 5);
	ck_assert_int_eq(f->severity, SEVERITY_NOTICE);
	ck_assert_str_eq(f->activity, "ChargeCard");
	ck_assert(has_text(msg(f), "task_scheduled_id 0, 2, 4"));
	ck_assert(has_text(msg(f), "task_execution_id 7c1e (stable across retries)"));
	f = get_kind(a, FINDING_AMBIGUOUS_FAILURE_RETRIED);
	ck_assert_int_eq(f->severity, SEVERITY_SUSPECT);
	ck_assert(has_text(msg(f), "Connection aborted"));
	ck_assert(has_text(msg(f), "reconcile a pending one"));
	ck_assert_str_eq(a->status, "completed");
	ck_assert(a->finished);
	ck_assert_str_eq(a->workflow, "PaymentWorkflow");
	ck_assert_str_eq(a->instance_id, "pay-1");
	ck_assert_uint_eq(a->n_generations, 1);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* .NET: each attempt has its own execution id; only the retry timer's
 * origin (the first attempt's id) links them. */
START_TEST(dotnet_ids_linked_by_origin)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "Charge", "a1");
	failed(log, 0, "System.Net.Http.HttpRequestException", "Bad Request", false);
	timer(log, 1, ORIGIN_ACTIVITY_RETRY, "a1", "t1");
	fired(log, 1, "t1");
	sched(log, 2, "Charge", "a2");
	failed(log, 2, "System.Net.Http.HttpRequestException", "Bad Request", false);
	timer(log, 3, ORIGIN_ACTIVITY_RETRY, "a1", "t3");
	fired(log, 3, "t3");
	sched(log, 4, "Charge", "a3");
	failed(log, 4, "System.Net.Http.HttpRequestException", "Bad Request", false);
	finished(log, 5, "ORCHESTRATION_STATUS_FAILED");
	struct analysis *a = run(log, NULL);

	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert_uint_eq(a->invocations[0].n_attempts, 3);
	ck_assert_int_eq(a->invocations[0].link, LINK_TIMER_ORIGIN);
	ck_assert_str_eq(a->invocations[0].attempts[1].task_execution_id, "a2");
	size_t want[FINDING_KIND_COUNT] = {[FINDING_REEXECUTED] = 1, [FINDING_PERMANENT_FAILURE_RETRIED] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_REEXECUTED);
	ck_assert(has_text(msg(f), "a1, a2, a3"));
	ck_assert(has_text(msg(f), "its own task_execution_id"));
	ck_assert(!has_text(msg(f), "(stable across retries)"));
	f = get_kind(a, FINDING_PERMANENT_FAILURE_RETRIED);
	ck_assert(has_text(msg(f), "task_scheduled_id 0, 2, 4"));
	ck_assert(has_text(msg(f), "Return permanent rejections as data"));
	ck_assert_str_eq(a->status, "failed");
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* TimerFired without timer_id: matched by fire_at, then by order. */
START_TEST(missing_timer_id_matches_fire_at)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "A", "a1");
	sched(log, 1, "B", "b1");
	failed(log, 0, "TimeoutError", "", false);
	timer(log, 2, ORIGIN_ACTIVITY_RETRY, "a1", "10:05");
	failed(log, 1, "TimeoutError", "", false);
	timer(log, 3, ORIGIN_ACTIVITY_RETRY, "b1", "10:06");
	/* B's timer fires first, and names no timer id. */
	fired(log, -1, "10:06");
	sched(log, 4, "B", "b2");
	fired(log, -1, "10:05");
	sched(log, 5, "A", "a2");
	completed(log, 4);
	completed(log, 5);
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 2);
	ck_assert_str_eq(a->invocations[0].name, "A");
	ck_assert_uint_eq(a->invocations[0].n_attempts, 2);
	ck_assert_int_eq(a->invocations[0].attempts[1].scheduled_id, 5);
	ck_assert_int_eq(a->invocations[0].retry_timer_event_ids[0], 2);
	ck_assert_str_eq(a->invocations[1].name, "B");
	ck_assert_int_eq(a->invocations[1].attempts[1].scheduled_id, 4);
	ck_assert_int_eq(a->invocations[1].retry_timer_event_ids[0], 3);
	ck_assert_uint_eq(count_kind(a, FINDING_REEXECUTED), 2);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Two timers with the same fire_at and no timer ids: first created, first
 * fired. */
START_TEST(same_fire_at_matched_in_order)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "A", "a1");
	sched(log, 1, "B", "b1");
	failed(log, 0, "TimeoutError", "", false);
	timer(log, 2, ORIGIN_ACTIVITY_RETRY, "a1", "same");
	failed(log, 1, "TimeoutError", "", false);
	timer(log, 3, ORIGIN_ACTIVITY_RETRY, "b1", "same");
	fired(log, -1, "same");
	fired(log, -1, "same");
	sched(log, 4, "B", "b2");
	sched(log, 5, "A", "a2");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 2);
	ck_assert_uint_eq(a->invocations[0].n_attempts, 2);
	ck_assert_uint_eq(a->invocations[1].n_attempts, 2);
	ck_assert_int_eq(a->invocations[0].attempts[1].scheduled_id, 5);
	ck_assert_int_eq(a->invocations[1].attempts[1].scheduled_id, 4);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* With timer ids, the id decides, not the fire_at order. */
START_TEST(timer_id_beats_fire_at_order)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "A", "a1");
	sched(log, 1, "B", "b1");
	failed(log, 0, "TimeoutError", "", false);
	timer(log, 2, ORIGIN_ACTIVITY_RETRY, "a1", "same");
	failed(log, 1, "TimeoutError", "", false);
	timer(log, 3, ORIGIN_ACTIVITY_RETRY, "b1", "same");
	fired(log, 3, "same");
	sched(log, 4, "B", "b2");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 2);
	ck_assert_str_eq(a->invocations[1].name, "B");
	ck_assert_uint_eq(a->invocations[1].n_attempts, 2);
	ck_assert_str_eq(a->invocations[1].attempts[1].task_execution_id, "b2");
	ck_assert_uint_eq(a->invocations[0].n_attempts, 1);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Empty or absent ids never group: two calls, two invocations. */
START_TEST(empty_ids_never_grouped)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "Notify", "");
	completed(log, 0);
	sched(log, 1, "Notify", "");
	completed(log, 1);
	sched(log, 2, "Audit", NULL);
	completed(log, 2);
	sched(log, 3, "Audit", NULL);
	completed(log, 3);
	finished(log, 4, "ORCHESTRATION_STATUS_COMPLETED");
	/* At full, the absent inputs are no inputs: identical calls. */
	struct analysis_options o = {.sharing = SHARING_FULL, .sharing_source = "test"};
	struct analysis *a = run(log, &o);
	ck_assert_uint_eq(a->n_invocations, 4);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(a->invocations[i].n_attempts, 1);
		ck_assert_int_eq(a->invocations[i].link, LINK_SINGLE);
	}
	size_t want[FINDING_KIND_COUNT] = {[FINDING_REPEATED_CALL] = 2};
	expect_kinds(a, want);
	ck_assert(has_text(msg(&a->findings[0]), "no usable") || has_text(msg(&a->findings[0]), "natural key"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

START_TEST(duplicate_result)
{
	struct event_log *log = log_new();
	started(log, "ReceiptWorkflow", "r", "e");
	sched(log, 0, "SendReceiptEmail", "a2f9");
	completed(log, 0); /* position 3 */
	sched(log, 1, "ArchiveReceipt", "3c8e");
	completed(log, 0); /* position 5: the same attempt again */
	completed(log, 1);
	finished(log, 2, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 2);
	ck_assert_uint_eq(a->invocations[0].attempts[0].n_results, 2);
	ck_assert_uint_eq(a->invocations[0].attempts[0].result_index, 3);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_DUPLICATE_RESULT] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_DUPLICATE_RESULT);
	expect_ids(f, (int64_t[]){0}, 1);
	ck_assert_uint_eq(f->n_evidence_event_indexes, 3);
	ck_assert_uint_eq(f->evidence_event_indexes[0], 2);
	ck_assert_uint_eq(f->evidence_event_indexes[1], 3);
	ck_assert_uint_eq(f->evidence_event_indexes[2], 5);
	ck_assert(has_text(msg(f), "history positions 3, 5"));
	ck_assert(has_text(msg(f), "task_execution_id a2f9"));
	ck_assert_int_eq(f->severity, SEVERITY_SUSPECT);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

START_TEST(orphan_retry_timer)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e2");
	timer(log, 0, ORIGIN_ACTIVITY_RETRY, "gone-1", "t0");
	fired(log, 0, "t0");
	sched(log, 1, "Sync", "gone-1");
	completed(log, 1);
	struct analysis *a = run(log, NULL);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_ORPHAN_RETRY_TIMER] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_ORPHAN_RETRY_TIMER);
	expect_ids(f, (int64_t[]){0}, 1);
	ck_assert_ptr_null(f->activity);
	ck_assert(has_text(msg(f), "gone-1"));
	ck_assert(has_text(msg(f), "continue-as-new"));
	ck_assert_int_eq(f->severity, SEVERITY_NOTICE);
	ck_assert(limits_mention(a, "Only the latest continue-as-new generation is returned"));
	ck_assert_uint_eq(a->invocations[0].n_retry_timers, 0);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Event ids restart at 0 in each generation: results must not attach
 * across generations. */
START_TEST(continue_as_new_generations)
{
	struct event_log *log = log_new();
	started(log, "InventorySync", "inv", "gen-1");
	sched(log, 0, "SyncBatch", "s1");
	finished(log, 1, "ORCHESTRATION_STATUS_CONTINUED_AS_NEW");
	started(log, "InventorySync", "inv", "gen-2");
	sched(log, 0, "SyncBatch", "s2");
	completed(log, 0);
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_generations, 2);
	ck_assert_uint_eq(a->n_invocations, 2);
	ck_assert_uint_eq(a->invocations[0].generation, 0);
	ck_assert_int_eq(a->invocations[0].attempts[0].outcome, OUTCOME_PENDING);
	ck_assert_uint_eq(a->invocations[1].generation, 1);
	ck_assert_int_eq(a->invocations[1].attempts[0].outcome, OUTCOME_COMPLETED);
	ck_assert(!a->finished);
	/* Generation 1 ended with its attempt unresolved; the same name in two
	 * generations is not a repeated call. */
	size_t want[FINDING_KIND_COUNT] = {[FINDING_UNRESOLVED_ATTEMPT] = 1};
	expect_kinds(a, want);
	ck_assert(has_text(msg(get_kind(a, FINDING_UNRESOLVED_ATTEMPT)), "continued as new"));
	ck_assert(limits_mention(a, "2 generations"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* The scan keeps execution ids by their interned number (smap_reserve_
 * interned): an entry a number, and a key whose entry another generation
 * holds, or a string interned after the reserve, in the hashed slots. */
START_TEST(interned_map_direct_and_slots)
{
	struct event_log *log = log_new();
	const char *a = event_log_intern(log, "exec-a", 6), *b = event_log_intern(log, "exec-b", 6);
	ck_assert_ptr_eq(event_log_intern(log, "exec-a", 6), a);
	ck_assert_uint_ne(event_log_str_ord(a), event_log_str_ord(b));
	struct smap m = {0};
	ck_assert_int_eq(smap_reserve_interned(&m, event_log_str_count(log)), 0);
	const char *late = event_log_intern(log, "exec-late", 9); /* past the reserve */
	ck_assert_uint_ge(event_log_str_ord(late), m.n_direct);
	bool fresh;
	uint32_t *v = smap_get_or_put(&m, 0, a, 10, &fresh);
	ck_assert(fresh && *v == 10);
	v = smap_get_or_put(&m, 0, a, 11, &fresh);
	ck_assert_ptr_nonnull(v);
	ck_assert(!fresh && *v == 10);
	ck_assert_uint_eq(*smap_find(&m, 0, a), 10);
	ck_assert_ptr_null(smap_find(&m, 0, b));
	ck_assert_ptr_null(smap_find(&m, 1, a));
	ck_assert_uint_eq(m.count, 0);             /* all in the direct entries so far */
	v = smap_get_or_put(&m, 1, a, 20, &fresh); /* a's entry is generation 0's */
	ck_assert(fresh && *v == 20);
	ck_assert_uint_eq(m.count, 1);
	v = smap_get_or_put(&m, 0, late, 30, &fresh);
	ck_assert(fresh && *v == 30);
	ck_assert_uint_eq(m.count, 2);
	ck_assert_uint_eq(*smap_find(&m, 0, a), 10);
	ck_assert_uint_eq(*smap_find(&m, 1, a), 20);
	ck_assert_uint_eq(*smap_find(&m, 0, late), 30);
	ck_assert_ptr_null(smap_find(&m, 1, late));
	ck_assert_ptr_null(smap_find(&m, 2, a));
	smap_free(&m);
	event_log_free(log);
}
END_TEST

/* One execution id in two generations: retried in the second, the two
 * attempts there are one invocation, and the first generation's call is
 * another (the map's entry is the first generation's: the second's go to
 * its slots). */
START_TEST(execution_id_in_two_generations)
{
	struct event_log *log = log_new();
	started(log, "InventorySync", "inv", "gen-1");
	sched(log, 0, "SyncBatch", "same-exec");
	completed(log, 0);
	finished(log, 1, "ORCHESTRATION_STATUS_CONTINUED_AS_NEW");
	started(log, "InventorySync", "inv", "gen-2");
	sched(log, 0, "SyncBatch", "same-exec");
	failed(log, 0, "TimeoutError", "timed out", false);
	sched(log, 1, "SyncBatch", "same-exec");
	completed(log, 1);
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_generations, 2);
	ck_assert_uint_eq(a->n_invocations, 2);
	ck_assert_uint_eq(a->invocations[0].generation, 0);
	ck_assert_uint_eq(a->invocations[0].n_attempts, 1);
	ck_assert_uint_eq(a->invocations[1].generation, 1);
	ck_assert_uint_eq(a->invocations[1].n_attempts, 2);
	ck_assert_int_eq(a->invocations[1].attempts[0].outcome, OUTCOME_FAILED);
	ck_assert_int_eq(a->invocations[1].attempts[1].outcome, OUTCOME_COMPLETED);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Go: a new instance id per attempt, linked by retry parent and by the
 * childWorkflowRetry timer origin. */
START_TEST(child_retry_go)
{
	struct event_log *log = log_new();
	started(log, "OrderWorkflow", "order-7740", "e");
	child(log, 0, "ShipOrder", "order-7740:0000", NULL);
	child_done(log, 0, false, "task failed with an error: carrier API returned 502 Bad Gateway");
	timer(log, 1, ORIGIN_CHILD_RETRY, "order-7740:0000", "t1");
	fired(log, 1, "t1");
	child(log, 2, "ShipOrder", "order-7740:0002", NULL); /* timer origin only */
	child_done(log, 2, true, NULL);
	finished(log, 3, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	const struct invocation *inv = &a->invocations[0];
	ck_assert(inv->is_child_workflow);
	ck_assert_uint_eq(inv->n_attempts, 2);
	ck_assert_int_eq(inv->link, LINK_TIMER_ORIGIN);
	ck_assert_str_eq(attempt_more(&inv->attempts[1])->instance_id, "order-7740:0002");
	ck_assert_uint_eq(a->n_child_instances, 2);
	ck_assert_str_eq(a->child_instances[0], "order-7740:0000");
	ck_assert_str_eq(a->child_instances[1], "order-7740:0002");
	size_t want[FINDING_KIND_COUNT] = {
		[FINDING_CHILD_WORKFLOW_RETRIED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_CHILD_WORKFLOW_RETRIED);
	expect_ids(f, (int64_t[]){0, 1, 2}, 3);
	ck_assert(has_text(msg(f), "order-7740:0000, order-7740:0002"));
	ck_assert(has_text(msg(f), "own instance id"));
	ck_assert(limits_mention(a, "own histories"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Python / Java: the same instance id each time, no other link. */
START_TEST(child_retry_same_instance)
{
	struct event_log *log = log_new();
	started(log, "W", "p", "e");
	child(log, 0, "Ship", "p-child", NULL);
	child_done(log, 0, false, "boom");
	child(log, 2, "Ship", "p-child", NULL);
	child_done(log, 2, true, NULL);
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert_uint_eq(a->invocations[0].n_attempts, 2);
	ck_assert_int_eq(a->invocations[0].link, LINK_EXECUTION_ID);
	ck_assert_uint_eq(a->n_child_instances, 1);
	ck_assert_uint_eq(count_kind(a, FINDING_CHILD_WORKFLOW_RETRIED), 1);
	ck_assert(has_text(msg(get_kind(a, FINDING_CHILD_WORKFLOW_RETRIED)), "each time as instance p-child"));
	ck_assert_uint_eq(count_kind(a, FINDING_REEXECUTED), 0);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* .NET: a new GUID per attempt, linked by the retry parent only. */
START_TEST(child_retry_dotnet_retry_parent)
{
	struct event_log *log = log_new();
	started(log, "W", "p", "e");
	child(log, 0, "Verify", "9b1f0c2e", NULL);
	child_done(log, 0, false, "boom");
	child(log, 1, "Verify", "4d2a77e1", "9b1f0c2e");
	child_done(log, 1, true, NULL);
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert_uint_eq(a->invocations[0].n_attempts, 2);
	ck_assert_int_eq(a->invocations[0].link, LINK_TIMER_ORIGIN);
	ck_assert_uint_eq(a->n_child_instances, 2);
	ck_assert_uint_eq(count_kind(a, FINDING_CHILD_WORKFLOW_RETRIED), 1);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* `dapr workflow history` child rows: no instance id on creations, and a
 * failure (or a CLI 1.16 completion) names no scheduled id (-1). */
static void cli_child_done(struct event_log *log, bool ok)
{
	add(log, (struct event){.kind = ok ? EVENT_CHILD_COMPLETED : EVENT_CHILD_FAILED,
				.kind_name = ok ? "SubOrchCompleted" : "SubOrchFailed",
				.event_id = -1,
				.task_scheduled_id = -1});
}

/* One child pending: its id-less failure is paired by order, and the retry
 * (no origins) is grouped by the failure/timer/creation pattern. */
START_TEST(cli_child_paired_by_order)
{
	struct event_log *log = log_new();
	started(log, "W", "p", "e");
	child(log, 0, "Ship", NULL, NULL);
	cli_child_done(log, false);
	timer(log, 1, ORIGIN_NONE, NULL, "t1");
	fired(log, 1, "t1");
	child(log, 2, "Ship", NULL, NULL);
	cli_child_done(log, true);
	finished(log, 3, "COMPLETED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	const struct invocation *inv = &a->invocations[0];
	ck_assert_uint_eq(inv->n_attempts, 2);
	ck_assert_int_eq(inv->link, LINK_PATTERN);
	ck_assert_uint_eq(inv->n_retry_timers, 1);
	ck_assert_int_eq(inv->attempts[0].outcome, OUTCOME_FAILED);
	ck_assert(inv->attempts[0].result_by_order);
	ck_assert_uint_eq(inv->attempts[0].result_index, 3);
	ck_assert_int_eq(inv->attempts[1].outcome, OUTCOME_COMPLETED);
	ck_assert(inv->attempts[1].result_by_order);
	ck_assert_ptr_null(attempt_more(&inv->attempts[0])->instance_id); /* never invented */
	size_t want[FINDING_KIND_COUNT] = {[FINDING_CHILD_WORKFLOW_RETRIED] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_CHILD_WORKFLOW_RETRIED);
	expect_ids(f, (int64_t[]){0, 1, 2}, 3);
	ck_assert(has_text(msg(f), "this history shows no instance ids"));
	ck_assert(has_text(msg(f), "grouped by order and name"));
	ck_assert(!has_text(msg(f), "(none)"));
	ck_assert_uint_eq(a->n_child_instances, 0);
	ck_assert(limits_mention(a, "2 child results named no scheduled id and were paired with the only child "
				    "then pending (history positions 3, 7)"));
	ck_assert(limits_mention(a, "1 child workflow was grouped into retries"));
	ck_assert(limits_mention(a, "cannot be found from this one"));
	ck_assert(!limits_mention(a, "not paired"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Two children pending: an id-less result could be either's, so it is not
 * paired, neither child is called unresolved or retried, and the limit
 * says their outcomes are not known. */
START_TEST(cli_child_ambiguous_not_paired)
{
	struct event_log *log = log_new();
	started(log, "W", "p", "e");
	child(log, 0, "Ship", NULL, NULL);
	child(log, 1, "Ship", NULL, NULL);
	cli_child_done(log, false);
	cli_child_done(log, true);
	finished(log, 2, "FAILED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 2);
	for (size_t v = 0; v < 2; v++) {
		ck_assert_uint_eq(a->invocations[v].n_attempts, 1);
		ck_assert_int_eq(a->invocations[v].attempts[0].outcome, OUTCOME_PENDING);
		ck_assert(!a->invocations[v].attempts[0].result_by_order);
	}
	size_t want[FINDING_KIND_COUNT] = {0};
	expect_kinds(a, want);
	ck_assert(limits_mention(a, "2 child results named no scheduled id while several children were "
				    "pending and were not paired (first at history position 4)"));
	/* Not the generic "points at a task_scheduled_id" limit. */
	ck_assert(!limits_mention(a, "task_scheduled_id with no schedule"));
	analysis_free(a);
	event_log_free(log);

	/* Once one of them has its result by id, the other is the only one
	 * pending, and the next id-less result is its. */
	log = log_new();
	started(log, "W", "p", "e");
	child(log, 0, "Ship", NULL, NULL);
	child(log, 1, "Ship", NULL, NULL);
	child_done(log, 1, true, NULL);
	cli_child_done(log, false);
	a = run(log, NULL);
	ck_assert_int_eq(a->invocations[0].attempts[0].outcome, OUTCOME_FAILED);
	ck_assert(a->invocations[0].attempts[0].result_by_order);
	ck_assert(!a->invocations[1].attempts[0].result_by_order);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* CLI 1.18: the retry timer's origin names the first child's instance id,
 * which no creation row carries: linked by order, not an orphan timer. With
 * instance ids on the creations, an unknown origin id is still an orphan. */
START_TEST(cli_child_retry_timer_origin_without_ids)
{
	struct event_log *log = log_new();
	started(log, "Parent", "workflow_retries", "e");
	child(log, 0, "Child", NULL, NULL);
	cli_child_done(log, false);
	timer(log, 1, ORIGIN_CHILD_RETRY, "workflow_retries_child", "t1");
	fired(log, 1, "t1");
	child(log, 2, "Child", NULL, NULL);
	cli_child_done(log, false);
	finished(log, 3, "FAILED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert_uint_eq(a->invocations[0].n_attempts, 2);
	ck_assert_int_eq(a->invocations[0].link, LINK_PATTERN);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_CHILD_WORKFLOW_RETRIED] = 1};
	expect_kinds(a, want);
	/* Origins are recorded here: the "no retry-timer origins" limit does not apply. */
	ck_assert(!limits_mention(a, "records no retry-timer origins"));
	ck_assert(limits_mention(a, "grouped into retries"));
	analysis_free(a);
	event_log_free(log);

	/* A child and an activity fail in one turn and the activity's retry
	 * timer comes first: the child's retry timer still answers the child. */
	log = log_new();
	started(log, "Parent", "p", "e");
	child(log, 0, "A", NULL, NULL);
	sched(log, 1, "act", "x");
	failed(log, 1, "E", "m", false);
	cli_child_done(log, false);
	timer(log, 2, ORIGIN_ACTIVITY_RETRY, "x", "t2");
	timer(log, 3, ORIGIN_CHILD_RETRY, "p:0000", "t3");
	fired(log, 2, "t2");
	fired(log, 3, "t3");
	sched(log, 4, "act", "x");
	child(log, 5, "A", NULL, NULL);
	completed(log, 4);
	cli_child_done(log, true);
	finished(log, 6, "COMPLETED");
	a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 2);
	for (size_t v = 0; v < 2; v++) {
		ck_assert_uint_eq(a->invocations[v].n_attempts, 2);
		ck_assert_uint_eq(a->invocations[v].n_retry_timers, 1);
	}
	ck_assert_uint_eq(count_kind(a, FINDING_CHILD_WORKFLOW_RETRIED), 1);
	ck_assert_uint_eq(count_kind(a, FINDING_ORPHAN_RETRY_TIMER), 0);
	analysis_free(a);
	event_log_free(log);

	log = log_new();
	started(log, "Parent", "p", "e");
	child(log, 0, "Child", "p:0000", NULL);
	child_done(log, 0, false, "boom");
	timer(log, 1, ORIGIN_CHILD_RETRY, "elsewhere", "t1");
	a = run(log, NULL);
	/* Issue 16: a failure the timer can answer is linked by order, so the
	 * timer is no orphan (it was, before); the limit says the origin
	 * matched nothing. */
	ck_assert_uint_eq(count_kind(a, FINDING_ORPHAN_RETRY_TIMER), 0);
	ck_assert_uint_eq(a->invocations[0].n_retry_timers, 1);
	ck_assert(limits_mention(a, "child instance elsewhere as its origin, which matches no attempt"));
	ck_assert(!limits_mention(a, "paired by order"));
	analysis_free(a);
	event_log_free(log);

	/* With no failure to answer, it is one. */
	log = log_new();
	started(log, "Parent", "p", "e");
	child(log, 0, "Child", "p:0000", NULL);
	child_done(log, 0, true, NULL);
	timer(log, 1, ORIGIN_CHILD_RETRY, "elsewhere", "t1");
	a = run(log, NULL);
	ck_assert_uint_eq(count_kind(a, FINDING_ORPHAN_RETRY_TIMER), 1);
	ck_assert(!limits_mention(a, "matches no attempt in this history (the .NET"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Issue 16, item 1: an activity retry timer whose origin names no attempt
 * still links the failure it follows to the next schedule of the name. */
START_TEST(activity_origin_matches_nothing)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "Charge", "x-1");
	failed(log, 0, "*url.Error", "Post \"https://psp.example.net\": EOF", false);
	timer(log, 1, ORIGIN_ACTIVITY_RETRY, "never-scheduled", "t1");
	fired(log, 1, "t1");
	sched(log, 2, "Charge", "x-2");
	completed(log, 2);
	finished(log, 3, "COMPLETED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert_int_eq(a->invocations[0].link, LINK_PATTERN);
	ck_assert_uint_eq(a->invocations[0].n_retry_timers, 1);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1};
	expect_kinds(a, want);
	expect_ids(get_kind(a, FINDING_REEXECUTED), (int64_t[]){0, 1, 2}, 3);
	ck_assert(has_text(msg(get_kind(a, FINDING_REEXECUTED)), "names no attempt in this history"));
	ck_assert(limits_mention(a, "task_execution_id never-scheduled as its origin"));
	/* The note names the finding that counts the link (issue 28). */
	ck_assert(limits_mention(a, "(task_scheduled_id 0): the next schedule of that name after it fired is "
				    "counted as that call's retry (finding reexecuted)"));
	ck_assert(!limits_mention(a, "records no retry-timer origins"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Issue 16, item 2: durabletask-js RetryHandlerTask returning true or 0
 * reschedules in the turn that processed the failure, with no timer
 * (orchestration-executor.ts, rescheduleRetryTask). */
static struct event_log *untimed(struct payload in0, struct payload in1, const char *msg, bool second_call,
				 bool retry_timer_elsewhere)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched_in(log, 0, "flakyActivity", NULL, in0);
	failed(log, 0, "TypeError", msg, false);
	sched_in(log, 1, "flakyActivity", NULL, in1);
	if (second_call)
		sched_in(log, 2, "flakyActivity", NULL, in1);
	completed(log, 1);
	if (retry_timer_elsewhere) {
		sched(log, 3, "Other", "o-1");
		/* Refused by its words: no ambiguous finding of its own. */
		failed(log, 3, "Error", "400 Bad Request", false);
		timer(log, 4, ORIGIN_ACTIVITY_RETRY, "o-1", "t4");
		fired(log, 4, "t4");
		sched(log, 5, "Other", "o-1");
		completed(log, 5);
	}
	finished(log, 6, "COMPLETED");
	return log;
}

START_TEST(untimed_retry_linked_by_order)
{
	/* Equal inputs: a retry, and its failure class counts. */
	struct event_log *log = untimed(present(2, 21), present(2, 21), "fetch failed", false, false);
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert_int_eq(a->invocations[0].link, LINK_ORDER);
	ck_assert(!a->invocations[0].order_inputs_unknown);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1};
	expect_kinds(a, want);
	expect_ids(get_kind(a, FINDING_REEXECUTED), (int64_t[]){0, 1}, 2);
	ck_assert(limits_mention(a, "linked by order, no retry timer. Each failure"));
	ck_assert_str_eq(invocation_link_name(LINK_ORDER), "order");
	analysis_free(a);
	event_log_free(log);

	/* Inputs that cannot be compared: re-executed, never a suspect. */
	log = untimed((struct payload){0}, (struct payload){0}, "fetch failed", false, false);
	a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert(a->invocations[0].order_inputs_unknown);
	size_t blind[FINDING_KIND_COUNT] = {[FINDING_REEXECUTED] = 1};
	expect_kinds(a, blind);
	ck_assert(limits_mention(a, "linked by order, no retry timer, inputs not comparable"));
	ck_assert(has_text(msg(&a->findings[0]), "no suspect"));
	analysis_free(a);
	event_log_free(log);

	/* Different inputs: the next item of a loop, not a retry. */
	log = untimed(present(7, 1), present(7, 2), "fetch failed", false, false);
	a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 2);
	ck_assert_uint_eq(a->n_findings, 0);
	analysis_free(a);
	event_log_free(log);

	/* Two calls of the name in that turn: no link by order. */
	log = untimed(present(2, 21), present(2, 21), "fetch failed", true, false);
	a = run(log, NULL);
	ck_assert_uint_eq(count_kind(a, FINDING_REEXECUTED), 0);
	ck_assert(!limits_mention(a, "linked by order"));
	analysis_free(a);
	event_log_free(log);

	/* A run that records retry timers retries with them: no link by order. */
	log = untimed(present(2, 21), present(2, 21), "fetch failed", false, true);
	a = run(log, NULL);
	for (size_t v = 0; v < a->n_invocations; v++)
		ck_assert_int_ne(a->invocations[v].link, LINK_ORDER);
	ck_assert_uint_eq(count_kind(a, FINDING_AMBIGUOUS_FAILURE_RETRIED), 0);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Issue 16, item 3: `dapr workflow history` prints no scheduled id on a
 * child's failure; in a parallel fan-out (durabletask-go
 * tests/runtimestate_test.go Test_ChildWorkflowRetry_ApplierCopiesRetryParentPerAction:
 * Worker A and B retried, C fresh) the failures are paired by elimination
 * once the run is read, and the retries grouped, never a race lost. */
static void cli_child_ok_id(struct event_log *log, int64_t tsid)
{
	add(log, (struct event){.kind = EVENT_CHILD_COMPLETED,
				.kind_name = "ChildWorkflowCompleted",
				.event_id = -1,
				.task_scheduled_id = tsid,
				.has_task_scheduled_id = true});
}

START_TEST(cli_child_fan_out_retried)
{
	for (int origins = 0; origins < 2; origins++) {
		struct event_log *log = log_new();
		started(log, "Parent", "parent-instance", "e");
		child(log, 0, "Worker", NULL, NULL);
		child(log, 1, "Worker", NULL, NULL);
		child(log, 2, "Worker", NULL, NULL);
		cli_child_done(log, false);
		cli_child_done(log, false);
		timer(log, 3, origins ? ORIGIN_CHILD_RETRY : ORIGIN_NONE, origins ? "parent-instance:000a" : NULL,
		      "t3");
		timer(log, 4, origins ? ORIGIN_CHILD_RETRY : ORIGIN_NONE, origins ? "parent-instance:0014" : NULL,
		      "t4");
		cli_child_ok_id(log, 2);
		fired(log, 3, "t3");
		fired(log, 4, "t4");
		child(log, 5, "Worker", NULL, NULL);
		child(log, 6, "Worker", NULL, NULL);
		cli_child_ok_id(log, 5);
		cli_child_ok_id(log, 6);
		finished(log, 7, "COMPLETED");
		struct analysis *a = run(log, NULL);
		ck_assert_uint_eq(a->n_invocations, 3);
		size_t want[FINDING_KIND_COUNT] = {[FINDING_CHILD_WORKFLOW_RETRIED] = 2};
		expect_kinds(a, want);
		ck_assert(!limits_mention(a, "when_any race lost"));
		ck_assert(limits_mention(
			a, "2 child failures named no scheduled id while several children were pending, "
			   "and were paired afterwards"));
		analysis_free(a);
		event_log_free(log);
	}
}
END_TEST

/* Issue 16, item 4: a rerun (dapr/dapr tests/integration/suite/daprd/
 * workflow/rerun/basic/two.go: foo calls bar 5 times, rerun from event 1)
 * copies the events before the re-driven one, which carries
 * rerunParentInstanceInfo (durabletask-go backend fork.go handleFound). */
static void sched_rerun(struct event_log *log, int64_t id, const char *name, const char *exec, const char *parent)
{
	add(log, (struct event){.kind = EVENT_TASK_SCHEDULED,
				.event_id = id,
				.has_event_id = true,
				.name = name,
				.task_execution_id = exec,
				.rerun_parent_instance_id = parent});
}

static struct event_log *rerun_log(bool copied_retry)
{
	struct event_log *log = log_new();
	started(log, "foo", "hello", "e2");
	/* Copied from the source: call 0 (retried there, when asked). */
	sched(log, 0, "bar", "x-0");
	if (copied_retry) {
		failed(log, 0, "TimeoutError", "timed out", false);
		timer(log, 1, ORIGIN_ACTIVITY_RETRY, "x-0", "t1");
		fired(log, 1, "t1");
		sched(log, 2, "bar", "x-0");
		completed(log, 2);
	} else {
		completed(log, 0);
	}
	int64_t re = copied_retry ? 3 : 1;
	sched_rerun(log, re, "bar", "x-1", "abc");
	completed(log, re);
	sched(log, re + 1, "bar", "y-2");
	completed(log, re + 1);
	finished(log, re + 2, "COMPLETED");
	return log;
}

static struct analysis *run_with_source(struct event_log *log, const struct analysis *src, const char **parent)
{
	struct err e;
	err_clear(&e);
	struct analysis_pending *p = analysis_scan(log, NULL, &e);
	ck_assert_ptr_nonnull(p);
	*parent = analysis_pending_rerun_parent(p);
	analysis_pending_rerun_source(p, src, src ? NULL : "not in the same project");
	struct analysis *a = analysis_finish(p, &e);
	ck_assert_ptr_nonnull(a);
	return a;
}

START_TEST(rerun_from_event)
{
	/* No source: suspect, and the limit says it was not fetched. */
	struct event_log *log = rerun_log(true);
	const char *parent;
	struct analysis *a = run_with_source(log, NULL, &parent);
	ck_assert_str_eq(parent, "abc");
	size_t want[FINDING_KIND_COUNT] = {[FINDING_RERUN_REEXECUTED] = 1};
	expect_kinds(a, want); /* the copied retry is the source's, not this run's */
	const struct finding *f = get_kind(a, FINDING_RERUN_REEXECUTED);
	expect_ids(f, (int64_t[]){3}, 1);
	ck_assert_int_eq(f->severity, SEVERITY_SUSPECT);
	ck_assert(has_text(msg(f), "not fetched (not in the same project)"));
	ck_assert(limits_mention(a, "rerun of instance abc from event 3 (TaskScheduled bar"));
	ck_assert(limits_mention(a, "Source run not fetched (not in the same project)"));
	analysis_free(a);
	event_log_free(log);

	/* The source run's call completed: suspect; failed permanently: notice. */
	for (int permanent = 0; permanent < 2; permanent++) {
		struct event_log *src_log = log_new();
		started(src_log, "foo", "abc", "e1");
		sched(src_log, 0, "bar", "x-0");
		completed(src_log, 0);
		sched(src_log, 1, "bar", "x-1");
		if (permanent)
			failed(src_log, 1, "ValidationError", "invalid sku", false);
		else
			completed(src_log, 1);
		finished(src_log, 2, permanent ? "FAILED" : "COMPLETED");
		struct analysis *src = run(src_log, NULL);
		log = rerun_log(false);
		a = run_with_source(log, src, &parent);
		expect_kinds(a, want);
		f = get_kind(a, FINDING_RERUN_REEXECUTED);
		ck_assert_int_eq(f->severity, permanent ? SEVERITY_NOTICE : SEVERITY_SUSPECT);
		ck_assert(has_text(msg(f), permanent ? "a permanent-class failure" : "where it completed"));
		ck_assert(!limits_mention(a, "not fetched"));
		analysis_free(a);
		event_log_free(log);
		analysis_free(src);
		event_log_free(src_log);
	}

	/* Re-driven from a timer: no call re-driven, the limit names it. */
	log = log_new();
	started(log, "foo", "hello", "e2");
	sched(log, 0, "bar", "x-0");
	completed(log, 0);
	add(log, (struct event){.kind = EVENT_TIMER_CREATED,
				.event_id = 1,
				.has_event_id = true,
				.origin = ORIGIN_CREATE_TIMER,
				.rerun_parent_instance_id = "abc"});
	fired(log, 1, NULL);
	finished(log, 2, "COMPLETED");
	a = run(log, NULL);
	ck_assert_uint_eq(a->n_findings, 0);
	ck_assert(limits_mention(a, "from event 1 (TimerCreated, history position 4)"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* dapr workflow history cuts payloads at 120 characters: two inputs that
 * share those and differ after are not called identical. */
START_TEST(truncated_inputs_never_identical)
{
	struct payload cut = {.state = PAYLOAD_PRESENT, .truncated = true, .size = 123, .hash = 42};
	struct payload whole = {.state = PAYLOAD_PRESENT, .size = 123, .hash = 42};
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched_in(log, 0, "Notify", "x1", cut);
	completed(log, 0);
	sched_in(log, 1, "Notify", "x2", cut);
	completed(log, 1);
	finished(log, 2, "COMPLETED");
	struct analysis *a = run(log, NULL);
	/* Not comparable: a limit naming the calls, not a finding, and never
	 * "identical". */
	size_t want[FINDING_KIND_COUNT] = {0};
	expect_kinds(a, want);
	ck_assert(limits_mention(a, "cannot be compared: this history shows only the first 120 characters"));
	ck_assert(!any_text(a, "identical"));
	ck_assert(!any_text(a, "data-sharing level ("));
	analysis_free(a);
	event_log_free(log);

	/* A cut value and a whole one differ (the cut one is longer). */
	log = log_new();
	started(log, "W", "i", "e");
	sched_in(log, 0, "Notify", "x1", cut);
	completed(log, 0);
	sched_in(log, 1, "Notify", "x2", whole);
	completed(log, 1);
	a = run(log, NULL);
	ck_assert_uint_eq(count_kind(a, FINDING_REPEATED_CALL), 0);
	analysis_free(a);
	event_log_free(log);

	/* Whole and equal: identical. */
	log = log_new();
	started(log, "W", "i", "e");
	sched_in(log, 0, "Notify", "x1", whole);
	completed(log, 0);
	sched_in(log, 1, "Notify", "x2", whole);
	completed(log, 1);
	a = run(log, NULL);
	ck_assert(has_text(msg(get_kind(a, FINDING_REPEATED_CALL)), "inputs were identical"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Before Dapr 1.18: no origins anywhere, so failure -> timer -> fired ->
 * schedule of the same name links, and says it is inferred. */
START_TEST(pattern_inferred_link)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "Charge", "x1");
	failed(log, 0, "TimeoutError", "timed out", false);
	timer(log, 1, ORIGIN_NONE, NULL, "t1");
	fired(log, 1, "t1");
	sched(log, 2, "Charge", "x2");
	completed(log, 2);
	finished(log, 3, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 1);
	ck_assert_int_eq(a->invocations[0].link, LINK_PATTERN);
	ck_assert_int_eq(a->invocations[0].retry_timer_event_ids[0], 1);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1};
	expect_kinds(a, want);
	ck_assert(has_text(msg(get_kind(a, FINDING_REEXECUTED)), "inference"));
	ck_assert(limits_mention(a, "inference, not a recorded link"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* The pattern is not used for a timer the history marks as the workflow's
 * own (origin createTimer: every SDK that records retry origins marks its
 * own timers so), nor when another action came between the failure and the
 * timer. A timer with no origin at all, in a history whose other timers
 * record one, is linked by order (issue 28: the .NET SDK's TimerOriginTests
 * build exactly that, and leaving it out counted a two-attempt chain as
 * nothing). */
START_TEST(pattern_not_applied)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "Other", "o1");
	failed(log, 0, "TimeoutError", "", false);
	timer(log, 1, ORIGIN_ACTIVITY_RETRY, "o1", "t1");
	fired(log, 1, "t1");
	sched(log, 2, "Other", "o1");
	completed(log, 2);
	sched(log, 3, "Charge", "x1");
	failed(log, 3, "ValueError", "bad", false);
	timer(log, 4, ORIGIN_CREATE_TIMER, NULL, "t4");
	fired(log, 4, "t4");
	sched(log, 5, "Charge", "x2");
	completed(log, 5);
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 3);
	ck_assert_uint_eq(a->invocations[1].n_attempts, 1);
	ck_assert_uint_eq(a->invocations[2].n_attempts, 1);
	ck_assert_uint_eq(a->invocations[1].n_retry_timers, 0);
	/* The earlier Charge failed: not a repeated call either. */
	ck_assert_uint_eq(count_kind(a, FINDING_REPEATED_CALL), 0);
	analysis_free(a);
	event_log_free(log);

	log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "Charge", "x1");
	failed(log, 0, "TimeoutError", "", false);
	sched(log, 1, "Refund", "r1");
	timer(log, 2, ORIGIN_NONE, NULL, "t2");
	fired(log, 2, "t2");
	sched(log, 3, "Charge", "x2");
	a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, 3);
	ck_assert_uint_eq(count_kind(a, FINDING_REEXECUTED), 0);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* c2: the same activity called again with a new execution id before the
 * first call's result arrived. */
START_TEST(overlapping_call)
{
	struct event_log *log = log_new();
	started(log, "PayoutWorkflow", "payout-119", "e");
	sched(log, 0, "SubmitPayout", "1b0c");
	timer(log, 1, ORIGIN_CREATE_TIMER, NULL, "t1");
	fired(log, 1, "t1");
	sched(log, 2, "SubmitPayout", "f7d3");
	timer(log, 3, ORIGIN_CREATE_TIMER, NULL, "t3");
	completed(log, 0);
	completed(log, 2);
	finished(log, 4, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, &from_catalyst);
	ck_assert_uint_eq(a->n_invocations, 2);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_OVERLAPPING_CALL] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_OVERLAPPING_CALL);
	expect_ids(f, (int64_t[]){0, 2}, 2);
	ck_assert(has_text(msg(f), "task_scheduled_id 2, task_execution_id f7d3"));
	ck_assert(has_text(msg(f), "(task_scheduled_id 0, task_execution_id 1b0c) had its result"));
	/* Not comparable, yet a re-call: the timer fired, and the message
	 * says both. */
	ck_assert_msg(has_text(msg(f), "their inputs cannot be compared: they were not shared at this "
				       "organization's data-sharing level (metadata, inferred"),
		      "%s", msg(f));
	ck_assert_msg(has_text(msg(f), "followed a timer firing"), "%s", msg(f));
	ck_assert_str_eq(f->task_execution_id, "f7d3");
	analysis_free(a);
	/* The same history not from Catalyst: the same finding, and the
	 * reason is the file's, not a data-sharing level's. */
	a = run(log, NULL);
	expect_kinds(a, want);
	f = get_kind(a, FINDING_OVERLAPPING_CALL);
	ck_assert_msg(has_text(msg(f), "absent from this history, which is not from Catalyst"), "%s", msg(f));
	ck_assert(!any_text(a, "not shared"));
	analysis_free(a);
	event_log_free(log);

	/* The workflow completed before the late result: overlap, and the first
	 * call is unresolved. */
	log = log_new();
	started(log, "PayoutWorkflow", "payout-119", "e");
	sched(log, 0, "SubmitPayout", "1b0c");
	timer(log, 1, ORIGIN_CREATE_TIMER, NULL, "t1");
	fired(log, 1, "t1");
	sched(log, 2, "SubmitPayout", "f7d3");
	completed(log, 2);
	finished(log, 3, "ORCHESTRATION_STATUS_COMPLETED");
	a = run(log, &from_catalyst);
	size_t want2[FINDING_KIND_COUNT] = {[FINDING_OVERLAPPING_CALL] = 1, [FINDING_UNRESOLVED_ATTEMPT] = 1};
	expect_kinds(a, want2);
	ck_assert(has_text(msg(get_kind(a, FINDING_OVERLAPPING_CALL)), "it never got one"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

START_TEST(repeated_call_inputs)
{
	/* Metadata: inputs withheld, cannot be compared: a limit naming the
	 * calls, not a finding (a loop over items looks the same). */
	struct event_log *log = log_new();
	started(log, "NotifyWorkflow", "n", "e");
	sched(log, 0, "NotifyCustomer", "8e4d");
	completed(log, 0);
	sched(log, 1, "NotifyCustomer", "2b7f");
	completed(log, 1);
	finished(log, 2, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, &from_catalyst);
	ck_assert_uint_eq(a->n_findings, 0);
	ck_assert(limits_mention(a, "NotifyCustomer was called 2 times outside a retry chain, each call after "
				    "the previous one had ended without failing (task_scheduled_id 0, 1)"));
	ck_assert(limits_mention(a, "Their inputs cannot be compared: they were not shared at this "
				    "organization's data-sharing level (metadata, inferred"));
	for (size_t i = 0; i < a->n_limits; i++)
		ck_assert(!has_text(a->limits[i], "empty"));
	analysis_free(a);
	event_log_free(log);

	/* Full, identical inputs. */
	log = log_new();
	started(log, "NotifyWorkflow", "n", "e");
	sched_in(log, 0, "NotifyCustomer", "8e4d", present(40, 0xabc));
	completed(log, 0);
	sched_in(log, 1, "NotifyCustomer", "2b7f", present(40, 0xabc));
	completed(log, 1);
	a = run(log, &from_catalyst);
	ck_assert_int_eq(a->sharing, SHARING_FULL);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_REPEATED_CALL] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_REPEATED_CALL);
	expect_ids(f, (int64_t[]){0, 1}, 2);
	ck_assert(has_text(msg(f), "their inputs were identical (same size and hash)"));
	ck_assert(!limits_mention(a, "was called"));
	analysis_free(a);
	event_log_free(log);

	/* Full, different inputs: a loop over different items, not a repeat. */
	log = log_new();
	started(log, "NotifyWorkflow", "n", "e");
	sched_in(log, 0, "NotifyCustomer", "8e4d", present(40, 0xabc));
	completed(log, 0);
	sched_in(log, 1, "NotifyCustomer", "2b7f", present(40, 0xdef));
	completed(log, 1);
	a = run(log, &from_catalyst);
	ck_assert_uint_eq(a->n_findings, 0);
	ck_assert(!limits_mention(a, "was called"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* A name's group can open on an attempt that is not its invocation's first
 * (A and B share task_execution_id x): the repeated call must be compared
 * with that attempt, not with an unrelated one from another name. */
START_TEST(repeated_call_group_opens_on_renamed_attempt)
{
	struct event_log *log = log_new();
	started(log, "W", "w", "e");
	sched(log, 0, "Z", "z1");
	completed(log, 0);
	sched(log, 1, "A", "x");
	sched(log, 2, "B", "x");
	completed(log, 2);
	sched(log, 3, "B", "y");
	completed(log, 3);
	finished(log, 4, "ORCHESTRATION_STATUS_COMPLETED");
	/* At full an absent input is no input: the two are identical. */
	struct analysis_options o = {.sharing = SHARING_FULL, .sharing_source = "test"};
	struct analysis *a = run(log, &o);
	const struct finding *f = get_kind(a, FINDING_REPEATED_CALL);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->activity, "B");
	ck_assert_msg(has_text(msg(f), "task_scheduled_id 2, 3"), "%s", msg(f));
	ck_assert_msg(!has_text(msg(f), "z1"), "%s", msg(f));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Turns: calls the code schedules together are its intent (issue 10). */

/* A new orchestrator turn. */
static void turn(struct event_log *log)
{
	add(log, (struct event){.kind = EVENT_WORKFLOW_STARTED, .event_id = -1, .has_event_id = true});
}

/* durabletask-python test_fan_out / durabletask-go Test_ActivityFanOut:
 * N calls in one turn, results in later turns. */
static struct event_log *fan_out(bool with_turn_rows, struct payload in0, struct payload in1)
{
	struct event_log *log = log_new();
	if (with_turn_rows)
		turn(log);
	add(log,
	    (struct event){.kind = EVENT_EXECUTION_STARTED, .event_id = -1, .has_event_id = true, .name = "W"});
	sched_in(log, 0, "hello", "x0", in0);
	sched_in(log, 1, "hello", "x1", in1);
	sched_in(log, 2, "hello", "x2", in0);
	sched_in(log, 3, "hello", "x3", in1);
	if (with_turn_rows)
		turn(log);
	completed(log, 1);
	if (with_turn_rows)
		turn(log);
	completed(log, 0);
	completed(log, 3);
	if (with_turn_rows)
		turn(log);
	completed(log, 2);
	finished(log, 4, "ORCHESTRATION_STATUS_COMPLETED");
	return log;
}

START_TEST(fan_out_in_one_turn_is_never_a_pair)
{
	static const struct payload absent = {0};
	for (int rows = 0; rows < 2; rows++) {
		/* Withheld inputs (Catalyst, metadata): before, an overlapping_call. */
		struct event_log *log = fan_out(rows, absent, absent);
		struct analysis *a = run(log, &from_catalyst);
		ck_assert_int_eq(a->sharing, SHARING_METADATA);
		ck_assert_uint_eq(a->n_invocations, 4);
		ck_assert_uint_eq(a->n_findings, 0);
		ck_assert(!limits_mention(a, "was called"));
		analysis_free(a);
		/* Not from Catalyst, no payloads: the same. */
		a = run(log, NULL);
		ck_assert_uint_eq(a->n_findings, 0);
		ck_assert(!limits_mention(a, "was called"));
		analysis_free(a);
		event_log_free(log);
		/* Identical inputs, visible: still the code's own fan-out. */
		log = fan_out(rows, present(3, 7), present(3, 7));
		a = run(log, &from_catalyst);
		ck_assert_int_eq(a->sharing, SHARING_FULL);
		ck_assert_uint_eq(a->n_findings, 0);
		ck_assert(!limits_mention(a, "was called"));
		analysis_free(a);
		event_log_free(log);
	}
}
END_TEST

/* durabletask-python test_when_any: the first result completes the
 * workflow, the other call never gets one. */
START_TEST(when_any_over_one_activity)
{
	struct event_log *log = log_new();
	started(log, "W", "w", "e");
	sched(log, 0, "hello", "tokyo");
	sched(log, 1, "hello", "seattle");
	turn(log);
	completed(log, 0);
	finished(log, 2, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, &from_catalyst);
	/* The loser is left to the limits (race_loser_is_a_limit). */
	size_t want[FINDING_KIND_COUNT] = {0};
	expect_kinds(a, want);
	ck_assert(limits_mention(a, "activity hello (task_scheduled_id 1) has no result"));
	ck_assert(!limits_mention(a, "was called again"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* A fan-out bounded to two in flight (dapr docs, workflow patterns): each
 * later turn starts the next item while an earlier one is pending. */
static struct event_log *rolling(struct payload in2, struct payload in3, bool turn_rows)
{
	struct event_log *log = log_new();
	started(log, "Batch", "b", "e");
	sched_in(log, 0, "Process", "p0", present(1, 1));
	sched_in(log, 1, "Process", "p1", in2);
	if (turn_rows)
		turn(log);
	completed(log, 0);
	sched_in(log, 2, "Process", "p2", in3);
	if (turn_rows)
		turn(log);
	completed(log, 1);
	if (turn_rows)
		turn(log);
	completed(log, 2);
	finished(log, 3, "ORCHESTRATION_STATUS_COMPLETED");
	return log;
}

START_TEST(rolling_fan_out)
{
	static const struct payload absent = {0};
	for (int rows = 0; rows < 2; rows++) {
		/* Not comparable: a limit naming the calls, not a finding. */
		struct event_log *log = rolling(absent, absent, rows);
		struct analysis_options meta = {
			.sharing = SHARING_METADATA, .sharing_source = "test", .catalyst_source = true};
		struct analysis *a = run(log, &meta);
		ck_assert_uint_eq(a->n_findings, 0);
		ck_assert_msg(limits_mention(a,
					     "Process was called again while an earlier call of it was still "
					     "pending (task_scheduled_id 2 while 1 was pending), each time in a "
					     "later turn than that call and not in one that followed a timer "
					     "firing or a failure"),
			      "%s", a->n_limits > 2 ? a->limits[2] : "");
		ck_assert(limits_mention(a, "Their inputs cannot be compared: they were not shared at this "
					    "organization's data-sharing level (metadata, test)"));
		analysis_free(a);
		event_log_free(log);
		/* Different inputs: nothing at all. */
		log = rolling(present(1, 2), present(1, 3), rows);
		a = run(log, &from_catalyst);
		ck_assert_uint_eq(a->n_findings, 0);
		ck_assert(!limits_mention(a, "was called"));
		analysis_free(a);
		event_log_free(log);
		/* The next item's input is the pending one's: a real overlap. */
		log = rolling(present(1, 2), present(1, 2), rows);
		a = run(log, &from_catalyst);
		size_t want[FINDING_KIND_COUNT] = {[FINDING_OVERLAPPING_CALL] = 1};
		expect_kinds(a, want);
		const struct finding *f = get_kind(a, FINDING_OVERLAPPING_CALL);
		expect_ids(f, (int64_t[]){1, 2}, 2);
		ck_assert(has_text(msg(f), "their inputs were identical (same size and hash)"));
		analysis_free(a);
		event_log_free(log);
	}
}
END_TEST

/* A re-call in the turn after a failure is one whatever the inputs; a
 * retry timer firing is no such cause (the retry is its own invocation's). */
START_TEST(recall_cause)
{
	struct event_log *log = log_new();
	started(log, "W", "w", "e");
	sched(log, 0, "Charge", "c0");
	sched(log, 1, "Check", "k0");
	turn(log);
	failed(log, 1, "ValueError", "bad", false);
	sched(log, 2, "Charge", "c1");
	turn(log);
	completed(log, 0);
	completed(log, 2);
	finished(log, 3, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, &from_catalyst);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_OVERLAPPING_CALL] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_OVERLAPPING_CALL);
	expect_ids(f, (int64_t[]){0, 2}, 2);
	ck_assert_msg(has_text(msg(f), "cannot be compared: they were not shared"), "%s", msg(f));
	ck_assert_msg(has_text(msg(f), "in the turn that followed a failure while the earlier call was still "
				       "pending"),
		      "%s", msg(f));
	analysis_free(a);
	event_log_free(log);

	log = log_new();
	started(log, "W", "w", "e");
	sched(log, 0, "Charge", "c0");
	sched(log, 1, "Check", "k0");
	turn(log);
	failed(log, 1, "ValueError", "bad", false);
	timer(log, 2, ORIGIN_ACTIVITY_RETRY, "k0", "t2");
	turn(log);
	fired(log, 2, "t2");
	sched(log, 3, "Check", "k0");
	sched(log, 4, "Charge", "c1");
	turn(log);
	completed(log, 0);
	completed(log, 3);
	completed(log, 4);
	finished(log, 5, "ORCHESTRATION_STATUS_COMPLETED");
	a = run(log, &from_catalyst);
	ck_assert_uint_eq(count_kind(a, FINDING_OVERLAPPING_CALL), 0);
	ck_assert(limits_mention(a, "Charge was called again while an earlier call of it was still pending "
				    "(task_scheduled_id 4 while 0 was pending)"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Issue 10, part 4: no Catalyst organization, no "withheld". */
START_TEST(not_from_catalyst)
{
	struct event_log *log = log_new();
	started(log, "W", "w", "e");
	sched(log, 0, "A", "a0");
	turn(log);
	completed(log, 0);
	sched(log, 1, "A", "a1");
	turn(log);
	completed(log, 1);
	finished(log, 2, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, NULL);
	ck_assert_int_eq(a->sharing, SHARING_UNKNOWN);
	ck_assert_str_eq(a->sharing_source, "not from Catalyst: no data-sharing level applies, and the history "
					    "holds no payload (absent on all 6 events that would carry one)");
	ck_assert_uint_eq(a->n_withheld, 0);
	ck_assert_uint_eq(a->n_findings, 0);
	ck_assert(limits_mention(a, "Payloads are absent from this history, which is not from Catalyst (so no "
				    "data-sharing level withheld them)"));
	ck_assert(limits_mention(a, "Their inputs cannot be compared: they are absent from this history, which "
				    "is not from Catalyst and carries no payload at all"));
	ck_assert(!any_text(a, "not shared"));
	analysis_free(a);
	/* From Catalyst: metadata, withheld. */
	a = run(log, &from_catalyst);
	ck_assert_int_eq(a->sharing, SHARING_METADATA);
	ck_assert_uint_eq(a->n_withheld, 6);
	analysis_free(a);
	/* Asserted by the user: the user's word, withheld. */
	struct analysis_options o = {.sharing = SHARING_METADATA, .sharing_source = "--data-sharing"};
	a = run(log, &o);
	ck_assert_int_eq(a->sharing, SHARING_METADATA);
	ck_assert_uint_eq(a->n_withheld, 6);
	analysis_free(a);
	event_log_free(log);

	/* Payloads elsewhere in the history: a missing input is no input. */
	log = log_new();
	started(log, "W", "w", "e");
	sched(log, 0, "A", "a0");
	turn(log);
	completed_out(log, 0, present(2, 9));
	sched(log, 1, "A", "a1");
	turn(log);
	completed(log, 1);
	a = run(log, NULL);
	ck_assert_int_eq(a->sharing, SHARING_UNKNOWN);
	ck_assert_msg(has_text(a->sharing_source,
			       "not from Catalyst: no data-sharing level applies, and payload "
			       "keys are present (TaskCompleted output, history position 4), so "
			       "a missing one means no payload"),
		      "%s", a->sharing_source);
	ck_assert_uint_eq(a->n_withheld, 0);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_REPEATED_CALL] = 1};
	expect_kinds(a, want);
	ck_assert(has_text(msg(get_kind(a, FINDING_REPEATED_CALL)), "identical (neither call had one)"));
	ck_assert(!limits_mention(a, "Payloads"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

static bool shaped(const char *doc)
{
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_parse(doc, strlen(doc), &e);
	ck_assert_msg(log != NULL, "%s", e.msg);
	bool r = analysis_catalyst_shaped(log);
	event_log_free(log);
	return r;
}

START_TEST(catalyst_shaped)
{
	ck_assert(shaped("[{\"event_id\":0,\"event_type\":\"TaskScheduled\",\"name\":\"A\"}]"));
	ck_assert(!shaped("{\"events\":[{\"taskScheduled\":{\"name\":\"A\"}}]}"));
	ck_assert(!shaped(
		"[{\"appID\":\"app\",\"play\":1,\"type\":\"TaskScheduled\",\"name\":\"A\",\"eventId\":0}]"));
	/* A saved run document names its project or level around the events. */
	ck_assert(shaped("{\"project\":\"default\",\"events\":[{\"taskScheduled\":{\"name\":\"A\"}}]}"));
	ck_assert(shaped("{\"dataSharingLevel\":\"full\",\"events\":[{\"taskScheduled\":{\"name\":\"A\"}}]}"));
}
END_TEST

START_TEST(unresolved_only_when_finished)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "Slow", "s1");
	struct analysis *a = run(log, NULL);
	ck_assert(!a->finished);
	ck_assert_ptr_null(a->status);
	ck_assert_int_eq(a->invocations[0].attempts[0].outcome, OUTCOME_PENDING);
	ck_assert_uint_eq(a->invocations[0].attempts[0].result_index, ATTEMPT_NO_RESULT);
	ck_assert_uint_eq(a->n_findings, 0);
	analysis_free(a);

	add(log, (struct event){.kind = EVENT_EXECUTION_TERMINATED, .event_id = -1, .has_event_id = true});
	a = run(log, NULL);
	ck_assert(a->finished);
	ck_assert_str_eq(a->status, "terminated");
	size_t want[FINDING_KIND_COUNT] = {[FINDING_UNRESOLVED_ATTEMPT] = 1};
	expect_kinds(a, want);
	const struct finding *f = get_kind(a, FINDING_UNRESOLVED_ATTEMPT);
	expect_ids(f, (int64_t[]){0}, 1);
	ck_assert(has_text(msg(f), "task_execution_id s1"));
	ck_assert(has_text(msg(f), "(terminated)"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* when_any over calls: the call that lost the race never gets a result,
 * by the code's design. A limit, not unresolved_attempt; but a call that
 * raced only a timer, a lone call, or one with retries stays a finding. */
START_TEST(race_loser_is_a_limit)
{
	struct event_log *log = log_new();
	turn(log);
	started(log, "W", "i", "e");
	sched(log, 0, "hello", "x1");
	sched(log, 1, "hello", "x2");
	turn(log);
	completed(log, 0);
	finished(log, 2, "COMPLETED");
	struct analysis *a = run(log, &from_catalyst);
	size_t none[FINDING_KIND_COUNT] = {0};
	expect_kinds(a, none);
	ck_assert(
		limits_mention(a, "activity hello (task_scheduled_id 1) has no result although the run finished"));
	ck_assert(limits_mention(a, "when_any race lost"));
	analysis_free(a);
	event_log_free(log);

	/* when_any(call, timer), the timer won: the workflow gave up on a
	 * call still running; nothing it scheduled with it got a result. */
	log = log_new();
	turn(log);
	started(log, "W", "i", "e");
	sched(log, 0, "hello", "x1");
	timer(log, 1, ORIGIN_CREATE_TIMER, NULL, "2026-09-14T10:00:30.000Z");
	turn(log);
	fired(log, 1, "2026-09-14T10:00:30.000Z");
	finished(log, 2, "COMPLETED");
	a = run(log, &from_catalyst);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_UNRESOLVED_ATTEMPT] = 1};
	expect_kinds(a, want);
	ck_assert(!limits_mention(a, "when_any race lost"));
	analysis_free(a);
	event_log_free(log);

	/* The sibling resolved in an earlier turn, the pending call was
	 * scheduled later: not scheduled together. */
	log = log_new();
	turn(log);
	started(log, "W", "i", "e");
	sched(log, 0, "hello", "x1");
	turn(log);
	completed(log, 0);
	sched(log, 1, "hello", "x2");
	turn(log);
	finished(log, 2, "COMPLETED");
	a = run(log, &from_catalyst);
	ck_assert_uint_eq(count_kind(a, FINDING_UNRESOLVED_ATTEMPT), 1);
	analysis_free(a);
	event_log_free(log);

	/* A retried call left pending stays a finding. */
	log = log_new();
	turn(log);
	started(log, "W", "i", "e");
	sched(log, 0, "hello", "x1");
	sched(log, 1, "other", "y1");
	turn(log);
	failed(log, 0, "E", "boom", false);
	completed(log, 1);
	timer(log, 2, ORIGIN_ACTIVITY_RETRY, "x1", "2026-09-14T10:00:05.000Z");
	turn(log);
	fired(log, 2, "2026-09-14T10:00:05.000Z");
	sched(log, 3, "hello", "x1");
	turn(log);
	finished(log, 4, "COMPLETED");
	a = run(log, &from_catalyst);
	ck_assert_uint_eq(count_kind(a, FINDING_UNRESOLVED_ATTEMPT), 1);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

START_TEST(data_sharing_inferred_and_given)
{
	/* Every payload key absent: metadata, inferred, and withheld entries. */
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "A", "a");
	completed(log, 0);
	failed(log, 0, "x", "y", false); /* a duplicate, but failures carry no payload */
	finished(log, 1, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, &from_catalyst);
	ck_assert_int_eq(a->sharing, SHARING_METADATA);
	ck_assert_str_eq(a->sharing_source, "inferred: payload keys absent on all 4 events that would carry one");
	ck_assert_uint_eq(a->n_withheld, 4);
	ck_assert_str_eq(withheld_event_type(&a->withheld[0]), "ExecutionStarted");
	ck_assert_str_eq(withheld_field_name(a->withheld[0].field), "input");
	ck_assert_uint_eq(a->withheld[0].event_index, 1);
	ck_assert_str_eq(withheld_event_type(&a->withheld[1]), "TaskScheduled");
	ck_assert_int_eq(a->withheld[1].event_id, 0);
	ck_assert_str_eq(withheld_event_type(&a->withheld[2]), "TaskCompleted");
	ck_assert_str_eq(withheld_field_name(a->withheld[2].field), "output");
	ck_assert_str_eq(withheld_event_type(&a->withheld[3]), "ExecutionCompleted");
	ck_assert(limits_mention(a, "not shared at this organization's data-sharing level (metadata"));
	analysis_free(a);

	/* Given by the user: the assertion wins and says where it came from. */
	struct analysis_options o = {.sharing = SHARING_FULL, .sharing_source = "--data-sharing"};
	a = run(log, &o);
	ck_assert_int_eq(a->sharing, SHARING_FULL);
	ck_assert_str_eq(a->sharing_source, "--data-sharing");
	ck_assert_uint_eq(a->n_withheld, 0);
	analysis_free(a);
	event_log_free(log);

	/* One key present (even empty): full, inferred from that event. */
	log = log_new();
	started(log, "W", "i", "e");
	sched_in(log, 0, "A", "a", (struct payload){.state = PAYLOAD_EMPTY});
	completed(log, 0);
	a = run(log, &from_catalyst);
	ck_assert_int_eq(a->sharing, SHARING_FULL);
	ck_assert(has_text(a->sharing_source, "inferred: payload keys present (TaskScheduled input"));
	ck_assert_uint_eq(a->n_withheld, 0);
	analysis_free(a);
	event_log_free(log);

	/* Nothing would carry a payload: unknown. */
	log = log_new();
	timer(log, 0, ORIGIN_CREATE_TIMER, NULL, "t");
	a = run(log, &from_catalyst);
	ck_assert_int_eq(a->sharing, SHARING_UNKNOWN);
	ck_assert(has_text(a->sharing_source, "inferred"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

START_TEST(large_payload_only_at_full)
{
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched_in(log, 0, "Render", "r", present(100000, 1));
	completed_out(log, 0, present(10, 2));
	sched_in(log, 1, "Small", "s", present(100, 3));
	completed_out(log, 1, present(70000, 4));
	struct analysis *a = run(log, &from_catalyst);
	ck_assert_int_eq(a->sharing, SHARING_FULL);
	ck_assert_uint_eq(count_kind(a, FINDING_LARGE_PAYLOAD), 2);
	ck_assert(has_text(msg(&a->findings[0]), "input of Render"));
	ck_assert(has_text(msg(&a->findings[0]), "100000 bytes, over the 65536-byte limit"));
	ck_assert(has_text(msg(&a->findings[1]), "result of Small"));
	analysis_free(a);

	struct analysis_options o = {.payload_limit = 80000, .catalyst_source = true};
	a = run(log, &o);
	ck_assert_uint_eq(count_kind(a, FINDING_LARGE_PAYLOAD), 1);
	analysis_free(a);

	/* Not from Catalyst: no level, but the payloads are there to measure. */
	a = run(log, NULL);
	ck_assert_int_eq(a->sharing, SHARING_UNKNOWN);
	ck_assert_uint_eq(count_kind(a, FINDING_LARGE_PAYLOAD), 2);
	analysis_free(a);

	/* Told the level is metadata: sizes are not reported. */
	o = (struct analysis_options){.sharing = SHARING_METADATA, .sharing_source = "refusal"};
	a = run(log, &o);
	ck_assert_uint_eq(count_kind(a, FINDING_LARGE_PAYLOAD), 0);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

START_TEST(permanent_failures)
{
	/* Not retried (h1): nothing. */
	struct event_log *log = log_new();
	started(log, "RefundWorkflow", "refund-871", "e");
	sched(log, 0, "IssueRefund", "06c3");
	failed(log, 0, "NonRetryableError", "refund window closed", false);
	finished(log, 1, "ORCHESTRATION_STATUS_FAILED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_findings, 0);
	ck_assert_int_eq(a->invocations[0].attempts[0].failure, FAILURE_PERMANENT);
	ck_assert(limits_mention(a, "Retry policy settings"));
	analysis_free(a);
	event_log_free(log);

	/* Flagged non-retriable, retried anyway. */
	log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "A", "a");
	failed(log, 0, "Whatever", "nope", true);
	timer(log, 1, ORIGIN_ACTIVITY_RETRY, "a", "t");
	fired(log, 1, "t");
	sched(log, 2, "A", "a");
	completed(log, 2);
	a = run(log, NULL);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_REEXECUTED] = 1, [FINDING_PERMANENT_FAILURE_RETRIED] = 1};
	expect_kinds(a, want);
	ck_assert(has_text(msg(get_kind(a, FINDING_PERMANENT_FAILURE_RETRIED)), "flagged non-retriable"));
	analysis_free(a);
	event_log_free(log);

	/* A 404 that later succeeded could succeed: no finding. */
	log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "A", "a");
	failed(log, 0, "HTTPError", "404 Not Found", false);
	timer(log, 1, ORIGIN_ACTIVITY_RETRY, "a", "t");
	fired(log, 1, "t");
	sched(log, 2, "A", "a");
	completed(log, 2);
	a = run(log, NULL);
	ck_assert_uint_eq(count_kind(a, FINDING_PERMANENT_FAILURE_RETRIED), 0);
	ck_assert_uint_eq(count_kind(a, FINDING_AMBIGUOUS_FAILURE_RETRIED), 0);
	ck_assert_uint_eq(count_kind(a, FINDING_REEXECUTED), 1);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* The innermost cause of a failure (the .NET SDK's innerFailure) decides its
 * class, reaches the attempt, and is named in the finding; one with nothing
 * to say is no cause. */
START_TEST(failure_cause_decides)
{
	/* An outer text that says nothing; the cause is a reset. */
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "Charge", "a1");
	failed_cause(log, 0, "Checkout.ChargeFailedException", "Charge for order 871 failed",
		     "System.Net.Sockets.SocketException",
		     "An existing connection was forcibly closed by the remote host.", 2);
	timer(log, 1, ORIGIN_ACTIVITY_RETRY, "a1", "t1");
	fired(log, 1, "t1");
	sched(log, 2, "Charge", "a2");
	completed(log, 2);
	/* The same outer text, the cause a refused connection: nothing was sent. */
	sched(log, 3, "Refund", "r1");
	failed_cause(log, 3, "Checkout.ChargeFailedException", "Charge for order 871 failed",
		     "System.Net.Sockets.SocketException", "Connection refused", 1);
	timer(log, 4, ORIGIN_ACTIVITY_RETRY, "r1", "t4");
	fired(log, 4, "t4");
	sched(log, 5, "Refund", "r1");
	completed(log, 5);
	/* A cause with empty texts is none; the outer text decides. */
	sched(log, 6, "Notify", "n1");
	failed_cause(log, 6, "System.Net.Http.HttpRequestException",
		     "An error occurred while sending the request.", "", "", 1);
	finished(log, 7, "ORCHESTRATION_STATUS_FAILED");
	struct analysis *a = run(log, NULL);

	ck_assert_uint_eq(a->n_invocations, 3);
	const struct attempt *charge = &a->invocations[0].attempts[0];
	ck_assert_int_eq(charge->failure, FAILURE_AMBIGUOUS);
	ck_assert_str_eq(attempt_more(charge)->cause_type, "System.Net.Sockets.SocketException");
	ck_assert_str_eq(attempt_more(charge)->cause_message,
			 "An existing connection was forcibly closed by the remote host.");
	ck_assert_uint_eq(charge->cause_depth, 2);
	const struct attempt *refund = &a->invocations[1].attempts[0];
	ck_assert_int_eq(refund->failure, FAILURE_SAFE);
	ck_assert_str_eq(attempt_more(refund)->cause_message, "Connection refused");
	const struct attempt *notify = &a->invocations[2].attempts[0];
	ck_assert_int_eq(notify->failure, FAILURE_AMBIGUOUS);
	ck_assert_ptr_null(attempt_more(notify)->cause_type);
	ck_assert_ptr_null(attempt_more(notify)->cause_message);
	ck_assert_uint_eq(notify->cause_depth, 0);

	ck_assert_uint_eq(count_kind(a, FINDING_AMBIGUOUS_FAILURE_RETRIED), 1);
	const struct finding *f = get_kind(a, FINDING_AMBIGUOUS_FAILURE_RETRIED);
	ck_assert_str_eq(f->activity, "Charge");
	ck_assert(has_text(msg(f), "Checkout.ChargeFailedException \"Charge for order 871 failed\" (innermost "
				   "cause: System.Net.Sockets.SocketException \"An existing connection was "
				   "forcibly closed by the remote host.\")"));
	analysis_free(a);
	event_log_free(log);
}
END_TEST

START_TEST(run_facts)
{
	struct event_log *log = log_new();
	struct event_run_info ri = {.runtime_status = "RUNTIME_STATUS_RUNNING",
				    .data_sharing_level = "metadata",
				    .data_sharing_field = "dataSharingLevel",
				    .workflow_name = "FromEnvelope"};
	event_log_set_run_info(log, &ri);
	add(log, (struct event){.kind = EVENT_EXECUTION_STARTED,
				.event_id = -1,
				.has_event_id = true,
				.instance_id = "run-2",
				.rerun_parent_instance_id = "src-1"});
	sched(log, 0, "A", "a");
	completed(log, 9); /* points at nothing */
	struct analysis *a = run(log, NULL);
	ck_assert_str_eq(a->status, "running");
	ck_assert(!a->finished);
	ck_assert_str_eq(a->workflow, "FromEnvelope");
	ck_assert_str_eq(a->instance_id, "run-2");
	ck_assert_uint_eq(a->n_events, 3);
	ck_assert_int_eq(a->sharing, SHARING_METADATA);
	ck_assert_str_eq(a->sharing_source, "run field dataSharingLevel");
	ck_assert_uint_eq(a->n_findings, 0);
	ck_assert(limits_mention(a, "rerun of instance src-1"));
	ck_assert(limits_mention(a, "1 result points at a task_scheduled_id with no schedule"));
	analysis_free(a);

	/* A terminal runtime status finishes the run even without the event. */
	ri.runtime_status = "COMPLETED";
	event_log_set_run_info(log, &ri);
	a = run(log, NULL);
	ck_assert_str_eq(a->status, "completed");
	ck_assert(a->finished);
	ck_assert_uint_eq(count_kind(a, FINDING_UNRESOLVED_ATTEMPT), 1);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* The kinds' ids are the JSON Schema's `kind` enum, in its order: the one
 * published list (the man page's FINDING KINDS, with the severities, is
 * test_man's). */
/* The first {"kind": {"enum": [...]}} under v, depth first (borrowed). */
static json_t *kind_enum_in(json_t *v)
{
	json_t *k = json_object_get(json_object_get(v, "kind"), "enum");
	if (json_is_array(k))
		return k;
	const char *key;
	json_t *child;
	size_t i;
	if (json_is_object(v)) {
		json_object_foreach(v, key, child) {
			if ((k = kind_enum_in(child)))
				return k;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			if ((k = kind_enum_in(child)))
				return k;
		}
	}
	return NULL;
}

START_TEST(names)
{
	json_error_t jerr;
	json_t *schema = json_load_file(testlib_src("doc/catalyst-audit.report.v1.schema.json"), 0, &jerr);
	ck_assert_msg(schema, "schema: %s", jerr.text);
	json_t *kinds = json_object_get(
		json_object_get(json_object_get(json_object_get(json_object_get(schema, "$defs"), "finding"),
						"properties"),
				"kind"),
		"enum");
	ck_assert_msg(json_is_array(kinds), "the schema's finding.kind enum");
	ck_assert_uint_eq(json_array_size(kinds), FINDING_KIND_COUNT);
	for (int k = 0; k < FINDING_KIND_COUNT; k++)
		ck_assert_str_eq(finding_kind_id((enum finding_kind)k),
				 json_string_value(json_array_get(kinds, (size_t)k)));
	json_decref(schema);
	/* the stats schema lists the kinds a second time (by_kind) */
	schema = json_load_file(testlib_src("doc/catalyst-audit.stats.v1.schema.json"), 0, &jerr);
	ck_assert_msg(schema, "stats schema: %s", jerr.text);
	kinds = kind_enum_in(schema);
	ck_assert_msg(kinds, "the stats schema's kind enum");
	ck_assert_uint_eq(json_array_size(kinds), FINDING_KIND_COUNT);
	for (int k = 0; k < FINDING_KIND_COUNT; k++)
		ck_assert_str_eq(finding_kind_id((enum finding_kind)k),
				 json_string_value(json_array_get(kinds, (size_t)k)));
	json_decref(schema);
	ck_assert_str_eq(severity_name(SEVERITY_NOTICE), "notice");
	ck_assert_str_eq(severity_name(SEVERITY_SUSPECT), "suspect");
	ck_assert_str_eq(attempt_outcome_name(OUTCOME_PENDING), "pending");
	ck_assert_str_eq(attempt_outcome_name(OUTCOME_COMPLETED), "completed");
	ck_assert_str_eq(attempt_outcome_name(OUTCOME_FAILED), "failed");
	ck_assert_str_eq(data_sharing_level_name(SHARING_UNKNOWN), "unknown");
	ck_assert_str_eq(data_sharing_level_name(SHARING_METADATA), "metadata");
	ck_assert_str_eq(data_sharing_level_name(SHARING_FULL), "full");
	ck_assert_str_eq(invocation_link_name(LINK_SINGLE), "single");
	ck_assert_str_eq(invocation_link_name(LINK_EXECUTION_ID), "execution_id");
	ck_assert_str_eq(invocation_link_name(LINK_TIMER_ORIGIN), "timer_origin");
	ck_assert_str_eq(invocation_link_name(LINK_PATTERN), "pattern");
}
END_TEST

/* 100,000 invocations, every 7th retried twice: right counts, and the same
 * output twice (deterministic). No timing here; bench/ measures that. */
START_TEST(large_history)
{
	struct event_log *log = log_new();
	started(log, "Big", "big", "e");
	char exec[32];
	int64_t id = 0;
	size_t retried = 0;
	/* Under valgrind a tenth: the grouping is the same. */
	int n_calls = getenv("CA_VALGRIND") ? 10000 : 100000;
	for (int i = 0; i < n_calls; i++) {
		snprintf(exec, sizeof exec, "x-%d", i);
		const char *name = (i % 3) ? "Work" : "Other";
		int64_t first = id++;
		sched(log, first, name, exec);
		if (i % 7 == 0) {
			retried++;
			int64_t prev = first;
			for (int r = 0; r < 2; r++) {
				failed(log, prev, "TimeoutError", "timed out", false);
				int64_t t = id++;
				timer(log, t, ORIGIN_ACTIVITY_RETRY, exec, NULL);
				fired(log, t, NULL);
				prev = id++;
				sched(log, prev, name, exec);
			}
			completed(log, prev);
		} else {
			completed(log, first);
		}
	}
	finished(log, id, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_invocations, (size_t)n_calls);
	ck_assert_uint_eq(count_kind(a, FINDING_REEXECUTED), retried);
	ck_assert_uint_eq(count_kind(a, FINDING_AMBIGUOUS_FAILURE_RETRIED), retried);
	/* Sequential calls of two names whose inputs cannot be compared: no
	 * finding, one limit per name. */
	ck_assert_uint_eq(count_kind(a, FINDING_REPEATED_CALL), 0);
	ck_assert_uint_eq(count_kind(a, FINDING_OVERLAPPING_CALL), 0);
	ck_assert(limits_mention(a, "Other was called "));
	ck_assert(limits_mention(a, "Work was called "));
	struct analysis *b = run(log, NULL);
	ck_assert_uint_eq(a->n_findings, b->n_findings);
	for (size_t i = 0; i < a->n_findings; i++) {
		ck_assert_int_eq(a->findings[i].kind, b->findings[i].kind);
		ck_assert_str_eq(msg(&a->findings[i]), msg(&b->findings[i]));
	}
	analysis_free(a);
	analysis_free(b);
	event_log_free(log);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Every fixture: the findings it must produce (kinds, counts, evidence ids)
 * and, by the exact counts, every finding it must not produce. */

struct evidence_want {
	enum finding_kind kind;
	int64_t ids[8];
	size_t n;
};

static const struct fixture_case {
	const char *file;
	size_t n_invocations;
	const char *status;
	bool finished;
	enum data_sharing_level sharing;
	size_t n_withheld;
	size_t kinds[FINDING_KIND_COUNT];
	struct evidence_want ev[2];
	size_t n_children;
	const char *limit;     /* a limit that must be there, or NULL */
	const char *message;   /* text in the first finding's message, or NULL */
	const char *absent[2]; /* texts no message, limit or sharing source may hold */
} fixtures[] = {
	/* (a) clean: nothing. */
	{"a-clean-activity.catalyst.json",
	 2,
	 "completed",
	 true,
	 SHARING_METADATA,
	 6,
	 {0},
	 {{0}},
	 0,
	 "leaves no event",
	 NULL,
	 {NULL, NULL}},
	{"a-clean-activity.proto.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 "leaves no event",
	 NULL,
	 {NULL, NULL}},
	/* (b) failed twice (connection aborted, then 503), then succeeded. */
	{"b-retry-fail-fail-succeed.catalyst.json",
	 1,
	 "completed",
	 true,
	 SHARING_METADATA,
	 6,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2, 3, 4}, 5}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2, 4}, 3}},
	 0,
	 "Retry policy settings",
	 "7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17 (stable across retries)",
	 {NULL, NULL}},
	{"b-retry-fail-fail-succeed.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2, 3, 4}, 5}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2, 4}, 3}},
	 0,
	 NULL,
	 "ChargeCard ran 3 attempts",
	 {NULL, NULL}},
	{"b-retry-fail-fail-succeed.dapr-cli.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2, 3, 4}, 5}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2, 4}, 3}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	/* (c1) read timeout, then retry. */
	{"c1-attempt-timeout-then-retry.catalyst.json",
	 1,
	 "completed",
	 true,
	 SHARING_METADATA,
	 5,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2}, 3}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2}, 2}},
	 0,
	 "still be running remotely",
	 NULL,
	 {NULL, NULL}},
	{"c1-attempt-timeout-then-retry.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2}, 3}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2}, 2}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	/* (c2) called again with a new execution id while the first was in
	 * flight; both results arrived before the end: no unresolved attempt,
	 * no re-execution. */
	{"c2-timer-race-recall-overlap.catalyst.json",
	 2,
	 "completed",
	 true,
	 SHARING_METADATA,
	 6,
	 {[FINDING_OVERLAPPING_CALL] = 1},
	 {{FINDING_OVERLAPPING_CALL, {0, 2}, 2}},
	 0,
	 NULL,
	 "cannot be compared",
	 {NULL, NULL}},
	{"c2-timer-race-recall-overlap.proto.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_OVERLAPPING_CALL] = 1},
	 {{FINDING_OVERLAPPING_CALL, {0, 2}, 2}},
	 0,
	 NULL,
	 "inputs were identical",
	 {NULL, NULL}},
	/* (d) the parent retried its child (502 propagated); each child history
	 * alone shows one attempt of CreateShipment. */
	{"d-child-retry.parent.catalyst.json",
	 1,
	 "completed",
	 true,
	 SHARING_METADATA,
	 5,
	 {[FINDING_CHILD_WORKFLOW_RETRIED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_CHILD_WORKFLOW_RETRIED, {0, 1, 2}, 3}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2}, 2}},
	 2,
	 "own histories",
	 NULL,
	 {NULL, NULL}},
	{"d-child-retry.parent.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_CHILD_WORKFLOW_RETRIED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_CHILD_WORKFLOW_RETRIED, {0, 1, 2}, 3}},
	 2,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	{"d-child-retry.child-attempt1.catalyst.json",
	 1,
	 "failed",
	 true,
	 SHARING_METADATA,
	 2,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	{"d-child-retry.child-attempt1.proto.json",
	 1,
	 "failed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	{"d-child-retry.child-attempt2.catalyst.json",
	 1,
	 "completed",
	 true,
	 SHARING_METADATA,
	 4,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	{"d-child-retry.child-attempt2.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	/* (e) continue-as-new: one generation visible, still running, no orphan
	 * timer (the timers are the workflow's own); the limit says so. */
	{"e-continue-as-new.gen1-snapshot.catalyst.json",
	 1,
	 NULL,
	 false,
	 SHARING_METADATA,
	 3,
	 {0},
	 {{0}},
	 0,
	 "continued as new",
	 NULL,
	 {NULL, NULL}},
	{"e-continue-as-new.gen2.catalyst.json",
	 1,
	 NULL,
	 false,
	 SHARING_METADATA,
	 3,
	 {0},
	 {{0}},
	 0,
	 "only its latest generation is returned",
	 NULL,
	 {NULL, NULL}},
	{"e-continue-as-new.gen2.proto.json",
	 1,
	 NULL,
	 false,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 "only its latest generation is returned",
	 NULL,
	 {NULL, NULL}},
	/* (f) crash after commit, modern Dapr: nothing to see but a long gap. */
	{"f-crash-redelivery.catalyst.json",
	 1,
	 "completed",
	 true,
	 SHARING_METADATA,
	 4,
	 {0},
	 {{0}},
	 0,
	 "41.8 s (SendReceiptEmail, task_scheduled_id 0)",
	 NULL,
	 {NULL, NULL}},
	{"f-crash-redelivery.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 "leaves no event",
	 NULL,
	 {NULL, NULL}},
	/* (f) before Dapr 1.17.7: the redelivery's second result is visible. */
	{"f-legacy-duplicate-completion.proto.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_DUPLICATE_RESULT] = 1},
	 {{FINDING_DUPLICATE_RESULT, {0}, 1}},
	 0,
	 NULL,
	 "history positions 4, 7",
	 {NULL, NULL}},
	/* (g) the workflow calls the activity twice. */
	/* At metadata the inputs cannot be compared: a limit, not a finding. */
	{"g-logic-duplicate.catalyst.json",
	 2,
	 "completed",
	 true,
	 SHARING_METADATA,
	 6,
	 {0},
	 {{0}},
	 0,
	 "NotifyCustomer was called 2 times outside a retry chain, each call after the previous one had ended "
	 "without failing (task_scheduled_id 0, 1): the shape of a loop over items. Their inputs cannot be "
	 "compared: they were not shared at this organization's data-sharing level (metadata, inferred",
	 NULL,
	 {NULL, NULL}},
	{"g-logic-duplicate.proto.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REPEATED_CALL] = 1},
	 {{FINDING_REPEATED_CALL, {0, 1}, 2}},
	 0,
	 NULL,
	 "inputs were identical",
	 {NULL, NULL}},
	/* (h1) NonRetryableError, not retried: nothing to report. */
	{"h1-nonretryable-error-type.catalyst.json",
	 1,
	 "failed",
	 true,
	 SHARING_METADATA,
	 2,
	 {0},
	 {{0}},
	 0,
	 "Retry policy settings",
	 NULL,
	 {NULL, NULL}},
	{"h1-nonretryable-error-type.proto.json",
	 1,
	 "failed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	/* (h2) .NET child flagged non-retriable, not retried. */
	{"h2-nonretriable-flag-dotnet.catalyst.json",
	 1,
	 "failed",
	 true,
	 SHARING_METADATA,
	 2,
	 {0},
	 {{0}},
	 1,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	{"h2-nonretriable-flag-dotnet.proto.json",
	 1,
	 "failed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 1,
	 NULL,
	 NULL,
	 {NULL, NULL}},

	/* (i1) fan-out/fan-in: four calls in one turn are the code's intent. */
	{"i1-fan-out-when-all.catalyst.json",
	 4,
	 "completed",
	 true,
	 SHARING_METADATA,
	 10,
	 {0},
	 {{0}},
	 0,
	 "Payloads were not shared",
	 NULL,
	 {"was called", "overlapping"}},
	{"i1-fan-out-when-all.proto.json",
	 4,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {"was called", "not shared"}},
	{"i1-fan-out-when-all.dapr-cli.json",
	 4,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {"was called", "not shared"}},
	/* (i2) when_any: the loser never gets a result, by design: a limit,
	 * neither unresolved_attempt nor an overlap. */
	{"i2-when-any-first-wins.catalyst.json",
	 2,
	 "completed",
	 true,
	 SHARING_METADATA,
	 5,
	 {0},
	 {{0}},
	 0,
	 "activity hello (task_scheduled_id 1) has no result although the run finished, and it was scheduled "
	 "in one turn together with a call that did get its result",
	 NULL,
	 {"was called again", "overlapping"}},
	{"i2-when-any-first-wins.proto.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 "activity hello (task_scheduled_id 1) has no result although the run finished, and it was scheduled "
	 "in one turn together with a call that did get its result",
	 NULL,
	 {"was called again", "not shared"}},
	/* (i3) bounded fan-out: the next item starts as one finishes. */
	{"i3-rolling-fan-out.catalyst.json",
	 7,
	 "completed",
	 true,
	 SHARING_METADATA,
	 16,
	 {0},
	 {{0}},
	 0,
	 "ProcessWorkItem was called again while an earlier call of it was still pending (task_scheduled_id 3 "
	 "while 2 was pending, 4 while 3 was pending, 5 while 4 was pending), each time in a later turn",
	 NULL,
	 {"overlapping", NULL}},
	{"i3-rolling-fan-out.proto.json",
	 7,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {"was called", "not shared"}},
	/* (i4) a loop calling one activity with different inputs. */
	{"i4-activity-sequence.catalyst.json",
	 10,
	 "completed",
	 true,
	 SHARING_METADATA,
	 22,
	 {0},
	 {{0}},
	 0,
	 "plus_one was called 10 times outside a retry chain, each call after the previous one had ended "
	 "without failing (task_scheduled_id 0, 1, 2, 3, 4, 5, 6, 7 and 2 more)",
	 NULL,
	 {"repeated", NULL}},
	{"i4-activity-sequence.proto.json",
	 10,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {"was called", "not shared"}},
	/* (i5) two calls at once, each retried twice; no payload anywhere. */
	{"i5-parallel-retries-no-payloads.catalyst.json",
	 2,
	 "completed",
	 true,
	 SHARING_METADATA,
	 10,
	 {[FINDING_REEXECUTED] = 2, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 2},
	 {{FINDING_REEXECUTED, {0, 2, 4, 6, 8}, 5}},
	 0,
	 "Payloads were not shared",
	 NULL,
	 {"was called", "overlapping"}},
	{"i5-parallel-retries-no-payloads.proto.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 2, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 2},
	 {{FINDING_REEXECUTED, {0, 2, 4, 6, 8}, 5}},
	 0,
	 "Payloads are absent from this history, which is not from Catalyst",
	 NULL,
	 {"was called", "not shared"}},
	{"i5-parallel-retries-no-payloads.dapr-cli.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 2, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 2},
	 {{FINDING_REEXECUTED, {0, 2, 4, 6, 8}, 5}},
	 0,
	 NULL,
	 NULL,
	 {"was called", "not shared"}},
	/* dapr workflow history -o json renderings of SDK test histories
	 * (tests/fixtures/README). Go, CLI 1.18: a child that failed three
	 * times; the retry timers' origin names an instance id no row shows. */
	{"d-cli-child-retry.go-1.18.dapr-cli.json",
	 1,
	 "failed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_CHILD_WORKFLOW_RETRIED] = 1},
	 {{FINDING_CHILD_WORKFLOW_RETRIED, {0, 1, 2, 3, 4}, 5}},
	 0,
	 "paired with the only child then pending (history positions 4, 10, 16)",
	 "this history shows no instance ids; retry timers 1, 3",
	 {"not shared", NULL}},
	/* Python, CLI 1.17 (SubOrch* rows, no origins): the same, by pattern. */
	{"d-cli-child-retry.python-1.17.dapr-cli.json",
	 1,
	 "failed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_CHILD_WORKFLOW_RETRIED] = 1},
	 {{FINDING_CHILD_WORKFLOW_RETRIED, {0, 1, 2, 3, 4}, 5}},
	 0,
	 "1 child workflow was grouped into retries",
	 "grouped by order and name",
	 {"not shared", NULL}},
	/* One child that completed: no finding. */
	{"d-cli-child-completed.go-1.18.dapr-cli.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 "Here every child result named its scheduled id",
	 NULL,
	 {"not shared", NULL}},
	/* Ten children of one name in one turn, finishing out of order: ten
	 * calls, each paired by its eventId, no finding. */
	{"d-cli-child-fan-out.python-1.17.dapr-cli.json",
	 10,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 "no scheduled id on a child's failure",
	 NULL,
	 {"not shared", NULL}},
	/* (g) called twice, inputs equal in their first 120 characters only:
	 * not comparable, so a limit, never "identical". */
	{"g-cli-repeated-call-truncated-input.dapr-cli.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 "cannot be compared: this history shows only the first 120 characters of each",
	 NULL,
	 {"identical", "not shared"}},
	/* (j1) .NET: HttpRequestException -> IOException -> SocketException
	 * (10054) in TaskFailureDetails.innerFailure (durabletask protobuf,
	 * field 4; the .NET SDK fills it from InnerException), texts from
	 * System.Net.Http (SR.net_http_client_execution_error), System.Net.Sockets
	 * (SR.net_io_readfailure) and Windows WSAECONNRESET; retried under a new
	 * execution id linked by the timer origin, then succeeded. */
	{"j1-inner-failure-dotnet.catalyst.json",
	 1,
	 "completed",
	 true,
	 SHARING_METADATA,
	 5,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2}, 3}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2}, 2}},
	 0,
	 NULL,
	 NULL,
	 {"not from Catalyst", NULL}},
	{"j1-inner-failure-dotnet.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2}, 3}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2}, 2}},
	 0,
	 NULL,
	 NULL,
	 {"not shared", NULL}},
	/* (j2) JavaScript: Node's fetch (undici lib/web/fetch/index.js) throws
	 * TypeError "fetch failed" for every network failure, the cause (here a
	 * SocketError "other side closed") only in err.cause; retried, then
	 * succeeded. The retry shape is the Go/Python/Java one (one execution
	 * id, a retry timer with its origin). */
	{"j2-fetch-failed-js.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2}, 3}, {FINDING_AMBIGUOUS_FAILURE_RETRIED, {0, 2}, 2}},
	 0,
	 NULL,
	 NULL,
	 {"not shared", NULL}},
	/* Issue 16, item 1: .NET 1.18 child retries whose timer origin names
	 * the GUID made for the chain, which no attempt carries: linked by
	 * order, never orphans. */
	{"k1-child-retry-origin-unmatched-dotnet.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_CHILD_WORKFLOW_RETRIED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_CHILD_WORKFLOW_RETRIED, {0, 1, 2, 3, 4}, 5}},
	 3,
	 "as its origin (and 1 more timer names such an origin), which matches no attempt",
	 "whose words do not say whether anything was sent (failure class unknown)",
	 {"records no retry-timer origins", "earlier continue-as-new"}},
	/* Issue 16, item 2: durabletask-js's retry handler retries with no
	 * timer; equal inputs link by order. */
	{"k2-retry-handler-no-timer-js.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 1, [FINDING_AMBIGUOUS_FAILURE_RETRIED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2}, 3}},
	 0,
	 "linked by order, no retry timer. Each failure",
	 "linked by order only",
	 {"inputs not comparable", NULL}},
	{"k2-retry-handler-no-timer-js.catalyst.json",
	 1,
	 "completed",
	 true,
	 SHARING_METADATA,
	 6,
	 {[FINDING_REEXECUTED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2}, 3}},
	 0,
	 "linked by order, no retry timer, inputs not comparable",
	 "so this is no suspect",
	 {NULL, NULL}},
	/* ... and the must-not: a loop that catches one item's failure (an
	 * ambiguous one) and calls the next item. Visible inputs differ:
	 * nothing; withheld: re-executed, never a suspect. */
	{"k3-loop-catch-next-item-js.proto.json",
	 3,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {"linked by order", NULL}},
	{"k3-loop-catch-next-item-js.catalyst.json",
	 2,
	 "completed",
	 true,
	 SHARING_METADATA,
	 7,
	 {[FINDING_REEXECUTED] = 1},
	 {{FINDING_REEXECUTED, {0, 1}, 2}},
	 0,
	 "linked by order, no retry timer, inputs not comparable",
	 "so this is no suspect",
	 {"a timeout/connection-class error", NULL}},
	/* Issue 16, item 3: a parallel child fan-out rendered by `dapr
	 * workflow history` 1.18, one child retried: its failure row names no
	 * scheduled id; grouped all the same, never a race lost. */
	{"k4-cli-fan-out-one-retried.go-1.18.dapr-cli.json",
	 3,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_CHILD_WORKFLOW_RETRIED] = 1},
	 {{FINDING_CHILD_WORKFLOW_RETRIED, {0, 3, 4}, 3}},
	 0,
	 "paired afterwards with the only child left without a result",
	 "started 2 times",
	 {"when_any race lost", "earlier continue-as-new"}},
	/* Issue 16, item 5: the same retry as b-retry-fail-fail-succeed in the
	 * table `dapr workflow history` prints (short and -o wide): the retry
	 * is found, linked by order; no failure class without the error text,
	 * so no ambiguous_failure_retried, and no orphan timer or unresolved
	 * attempt for the failures that name no call. */
	{"k6-cli-table-short.cli-1.18.txt",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2, 3, 4}, 5}},
	 0,
	 "which prints no failure details (no error type or message, so every failure class is unknown), no "
	 "execution ids",
	 "ran 3 attempts as one invocation",
	 {"the .NET SDK names", "ConnectionError"}},
	{"k6-cli-table-wide.cli-1.18.txt",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_REEXECUTED] = 1},
	 {{FINDING_REEXECUTED, {0, 1, 2, 3, 4}, 5}},
	 0,
	 "each failure is paired with a call by order",
	 "ran 3 attempts as one invocation",
	 {"the .NET SDK names", "ConnectionError"}},
	/* Issue 16, item 4: a Dapr 1.17 rerun from event 1 (dapr/dapr
	 * rerun/basic/two.go), read from the file alone: the source is not
	 * fetched. */
	{"k5-rerun-from-event-1.proto.json",
	 5,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_RERUN_REEXECUTED] = 1},
	 {{FINDING_RERUN_REEXECUTED, {1}, 1}},
	 0,
	 "Source run not fetched",
	 "which was not fetched",
	 {NULL, NULL}},
	{"k5-rerun-from-event-1.catalyst.json",
	 5,
	 "completed",
	 true,
	 SHARING_METADATA,
	 12,
	 {[FINDING_RERUN_REEXECUTED] = 1},
	 {{FINDING_RERUN_REEXECUTED, {1}, 1}},
	 0,
	 "Source run not fetched",
	 "which was not fetched",
	 {NULL, NULL}},
	{"k5-rerun-from-event-1.source.catalyst.json",
	 5,
	 "completed",
	 true,
	 SHARING_METADATA,
	 12,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {"rerun", NULL}},
	/* Issue 32: Dapr 1.17-1.19. A run that ran under v1, took patch1,
	 * stalled on a worker without it (patching/stalled/patchmissing.go's
	 * words) and ended under v2: no finding, nothing re-executed. */
	{"l1-versioned-patched-stall.proto.json",
	 2,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 "drops a second completion of an activity",
	 NULL,
	 {"re-executed", NULL}},
	{"l1-versioned-patched-stall.catalyst.json",
	 2,
	 "completed",
	 true,
	 SHARING_METADATA,
	 6,
	 {0},
	 {{0}},
	 0,
	 "drops a second completion of an activity",
	 NULL,
	 {"re-executed", NULL}},
	/* still stalled: its version is on no worker
	 * (versioning/stalled/notavailable.go) */
	{"l2-stalled-version-not-available.catalyst.json",
	 1,
	 "stalled",
	 false,
	 SHARING_METADATA,
	 3,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	/* a signed history the runtime failed as tampered
	 * (signing/tamperedrunning.go): named so, and the call it left
	 * pending is unresolved */
	{"l3-history-tampered.proto.json",
	 2,
	 "failed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {[FINDING_UNRESOLVED_ATTEMPT] = 1},
	 {{FINDING_UNRESOLVED_ATTEMPT, {1}, 1}},
	 0,
	 "DAPR_WORKFLOW_HISTORY_TAMPERED",
	 NULL,
	 {NULL, NULL}},
	/* a detached workflow started (workflow/detached/single.go): no child */
	{"l4-detached-workflow.proto.json",
	 1,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {NULL, NULL}},
	/* ... and the source run itself: nothing. */
	{"k5-rerun-from-event-1.source.proto.json",
	 5,
	 "completed",
	 true,
	 SHARING_UNKNOWN,
	 0,
	 {0},
	 {{0}},
	 0,
	 NULL,
	 NULL,
	 {"rerun", NULL}},
};

START_TEST(fixture)
{
	const struct fixture_case *fc = &fixtures[_i];
	char rel[256];
	snprintf(rel, sizeof rel, "tests/fixtures/%s", fc->file);
	size_t len;
	char *text = testlib_read_file(testlib_src(rel), &len);
	ck_assert_msg(text != NULL, "cannot read %s", rel);
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_parse(text, len, &e);
	ck_assert_msg(log != NULL, "%s: %s", fc->file, e.msg);
	/* As `catalyst-audit file` runs it. */
	bool catalyst = analysis_catalyst_shaped(log);
	ck_assert_int_eq(catalyst, strstr(fc->file, ".catalyst.") != NULL);
	struct analysis_options o = {.catalyst_source = catalyst};
	struct analysis *a = run(log, &o);

	ck_assert_msg(a->n_invocations == fc->n_invocations, "%s: %zu invocations", fc->file, a->n_invocations);
	if (fc->status)
		ck_assert_str_eq(a->status, fc->status);
	else
		ck_assert_ptr_null(a->status);
	ck_assert_int_eq(a->finished, fc->finished);
	ck_assert_msg(a->sharing == fc->sharing, "%s: sharing %s", fc->file, data_sharing_level_name(a->sharing));
	ck_assert_msg(has_text(a->sharing_source, catalyst ? "inferred: " : "not from Catalyst"), "%s: %s",
		      fc->file, a->sharing_source);
	ck_assert_msg(a->n_withheld == fc->n_withheld, "%s: %zu withheld", fc->file, a->n_withheld);
	expect_kinds(a, fc->kinds);
	for (size_t i = 0; i < 2; i++) {
		if (!fc->ev[i].n)
			continue;
		expect_ids(get_kind(a, fc->ev[i].kind), fc->ev[i].ids, fc->ev[i].n);
	}
	ck_assert_uint_eq(a->n_child_instances, fc->n_children);
	if (fc->limit)
		ck_assert_msg(limits_mention(a, fc->limit), "%s: no limit with \"%s\"", fc->file, fc->limit);
	if (fc->message)
		ck_assert_msg(has_text(msg(&a->findings[0]), fc->message), "%s: %s", fc->file,
			      msg(&a->findings[0]));
	for (size_t i = 0; i < 2; i++)
		ck_assert_msg(!fc->absent[i] || !any_text(a, fc->absent[i]), "%s: says \"%s\"", fc->file,
			      fc->absent[i]);
	/* Withheld payloads only where Catalyst could withhold them. */
	if (!catalyst)
		ck_assert(!any_text(a, "not shared"));
	/* Every finding is complete: evidence and a message with a remedy. */
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *f = &a->findings[i];
		ck_assert_uint_gt(f->n_evidence, 0);
		ck_assert_uint_ge(f->n_evidence_event_indexes, f->n_evidence);
		ck_assert_ptr_nonnull(msg(f));
		ck_assert_int_eq(msg(f)[strlen(msg(f)) - 1], '.');
		ck_assert_int_eq(f->severity, finding_kind_severity(f->kind));
	}
	/* Metadata fixtures are never described as empty. */
	for (size_t i = 0; i < a->n_limits; i++)
		ck_assert(!has_text(a->limits[i], "empty"));
	analysis_free(a);
	event_log_free(log);
	free(text);
}
END_TEST

/* Never "not shared" next to the level full: at full an absent key is no
 * payload, and two calls without one have identical inputs. */
START_TEST(not_shared_never_at_full)
{
	struct event_log *log = log_new();
	started(log, "W", "w", "e");
	sched(log, 0, "Notify", "n0");
	turn(log);
	completed_out(log, 0, present(4, 1)); /* a payload key: full, inferred */
	sched(log, 1, "Notify", "n1");
	timer(log, 2, ORIGIN_CREATE_TIMER, NULL, "t2");
	turn(log);
	fired(log, 2, "t2");
	sched(log, 3, "Notify", "n2");
	turn(log);
	completed(log, 1);
	completed(log, 3);
	finished(log, 4, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, &from_catalyst);
	ck_assert_int_eq(a->sharing, SHARING_FULL);
	size_t want[FINDING_KIND_COUNT] = {[FINDING_OVERLAPPING_CALL] = 1, [FINDING_REPEATED_CALL] = 1};
	expect_kinds(a, want);
	ck_assert(has_text(msg(get_kind(a, FINDING_REPEATED_CALL)), "identical (neither call had one)"));
	ck_assert(has_text(msg(get_kind(a, FINDING_OVERLAPPING_CALL)), "identical (neither call had one)"));
	ck_assert(!any_text(a, "not shared"));
	ck_assert(!any_text(a, "cannot be compared"));
	analysis_free(a);
	/* The same told full by the user. */
	struct analysis_options o = {.sharing = SHARING_FULL, .sharing_source = "--data-sharing"};
	a = run(log, &o);
	expect_kinds(a, want);
	ck_assert(!any_text(a, "not shared"));
	analysis_free(a);
	event_log_free(log);

	/* Every fixture, told full. */
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		char rel[256];
		snprintf(rel, sizeof rel, "tests/fixtures/%s", fixtures[i].file);
		size_t len;
		char *text = testlib_read_file(testlib_src(rel), &len);
		ck_assert_ptr_nonnull(text);
		struct err e;
		err_clear(&e);
		log = event_log_parse(text, len, &e);
		ck_assert_msg(log != NULL, "%s: %s", rel, e.msg);
		o.catalyst_source = analysis_catalyst_shaped(log);
		a = run(log, &o);
		ck_assert_msg(!any_text(a, "not shared"), "%s at full says \"not shared\"", rel);
		ck_assert_uint_eq(a->n_withheld, 0);
		analysis_free(a);
		event_log_free(log);
		free(text);
	}
}
END_TEST

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_payload(const struct payload *a, const struct payload *b)
{
	return a->state == b->state && a->size == b->size && a->hash == b->hash;
}

/* Two analyses of the same history (from two logs: strings compared by
 * value) say the same in every field a renderer reads. */
static void assert_same_analysis(const struct analysis *x, const struct analysis *y, const char *what)
{
	ck_assert_msg(same_str(x->workflow, y->workflow) && same_str(x->status, y->status) &&
			      same_str(x->instance_id, y->instance_id) && x->n_generations == y->n_generations &&
			      x->finished == y->finished && x->n_events == y->n_events &&
			      x->sharing == y->sharing && same_str(x->sharing_source, y->sharing_source),
		      "%s: run facts differ", what);
	ck_assert_uint_eq(x->n_invocations, y->n_invocations);
	for (size_t v = 0; v < x->n_invocations; v++) {
		const struct invocation *a = &x->invocations[v], *b = &y->invocations[v];
		ck_assert_msg(same_str(a->name, b->name) && same_str(a->task_execution_id, b->task_execution_id) &&
				      a->n_attempts == b->n_attempts && a->n_retry_timers == b->n_retry_timers &&
				      a->generation == b->generation && a->link == b->link &&
				      a->is_child_workflow == b->is_child_workflow,
			      "%s: invocation %zu differs", what, v);
		for (size_t k = 0; k < a->n_retry_timers; k++)
			ck_assert_int_eq(a->retry_timer_event_ids[k], b->retry_timer_event_ids[k]);
		for (size_t k = 0; k < a->n_attempts; k++) {
			const struct attempt *p = &a->attempts[k], *q = &b->attempts[k];
			ck_assert_msg(
				p->event_index == q->event_index && p->scheduled_id == q->scheduled_id &&
					p->result_index == q->result_index && p->n_results == q->n_results &&
					p->outcome == q->outcome && p->failure == q->failure &&
					p->non_retriable == q->non_retriable &&
					same_str(p->scheduled_at, q->scheduled_at) &&
					same_str(p->completed_at, q->completed_at) &&
					same_str(p->task_execution_id, q->task_execution_id) &&
					same_str(attempt_more(p)->instance_id, attempt_more(q)->instance_id) &&
					same_str(attempt_more(p)->error_type, attempt_more(q)->error_type) &&
					same_str(attempt_more(p)->error_message, attempt_more(q)->error_message) &&
					same_str(attempt_more(p)->cause_type, attempt_more(q)->cause_type) &&
					same_str(attempt_more(p)->cause_message, attempt_more(q)->cause_message) &&
					p->cause_depth == q->cause_depth && same_payload(&p->input, &q->input) &&
					same_payload(&p->output, &q->output),
				"%s: attempt %zu of invocation %zu differs", what, k, v);
		}
	}
	ck_assert_uint_eq(x->n_findings, y->n_findings);
	for (size_t i = 0; i < x->n_findings; i++) {
		const struct finding *a = &x->findings[i], *b = &y->findings[i];
		ck_assert_msg(a->kind == b->kind && a->severity == b->severity &&
				      same_str(a->activity, b->activity) &&
				      same_str(a->task_execution_id, b->task_execution_id) &&
				      same_str(msg(a), msg(b)) && a->n_evidence == b->n_evidence &&
				      a->n_evidence_event_indexes == b->n_evidence_event_indexes,
			      "%s: finding %zu differs", what, i);
		for (size_t k = 0; k < a->n_evidence; k++)
			ck_assert_int_eq(a->evidence_event_ids[k], b->evidence_event_ids[k]);
		for (size_t k = 0; k < a->n_evidence_event_indexes; k++)
			ck_assert_uint_eq(a->evidence_event_indexes[k], b->evidence_event_indexes[k]);
	}
	ck_assert_uint_eq(x->n_withheld, y->n_withheld);
	for (size_t i = 0; i < x->n_withheld; i++) {
		const struct withheld *a = &x->withheld[i], *b = &y->withheld[i];
		ck_assert_msg(a->event_id == b->event_id && a->event_index == b->event_index &&
				      a->kind == b->kind && a->field == b->field,
			      "%s: withheld %zu differs", what, i);
	}
	ck_assert_uint_eq(x->n_limits, y->n_limits);
	for (size_t i = 0; i < x->n_limits; i++)
		ck_assert_str_eq(x->limits[i], y->limits[i]);
	ck_assert_uint_eq(x->n_child_instances, y->n_child_instances);
	for (size_t i = 0; i < x->n_child_instances; i++)
		ck_assert_str_eq(x->child_instances[i], y->child_instances[i]);
}

/* The events dropped between analysis_scan and analysis_finish: the
 * analysis comes out the same as with the history kept, on every fixture
 * and at every data-sharing level (the log's strings, which the analysis
 * borrows, still valid). */
START_TEST(released_log_same_analysis)
{
	const struct fixture_case *fc = &fixtures[_i];
	char rel[256];
	snprintf(rel, sizeof rel, "tests/fixtures/%s", fc->file);
	size_t len;
	char *text = testlib_read_file(testlib_src(rel), &len);
	ck_assert_msg(text != NULL, "cannot read %s", rel);
	static const enum data_sharing_level levels[] = {SHARING_UNKNOWN, SHARING_METADATA, SHARING_FULL};
	for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
		struct err e;
		err_clear(&e);
		struct event_log *kept = event_log_parse(text, len, &e);
		struct event_log *dropped = event_log_parse(text, len, &e);
		ck_assert_msg(kept && dropped, "%s: %s", fc->file, e.msg);
		size_t n = event_log_count(kept);
		struct analysis_options o = {.sharing = levels[l], .sharing_source = "test", .payload_limit = 16};
		struct analysis *a = run(kept, &o);
		ck_assert_uint_eq(event_log_count(kept), n);
		struct analysis_pending *scanned = analysis_scan(dropped, &o, &e);
		ck_assert_msg(scanned != NULL, "analysis_scan: %s", e.msg);
		event_log_drop_events(dropped);
		ck_assert_uint_eq(event_log_count(dropped), 0);
		struct analysis *b = analysis_finish(scanned, &e);
		ck_assert_msg(b != NULL, "analysis_finish: %s", e.msg);
		assert_same_analysis(a, b, fc->file);
		analysis_free(a);
		analysis_free(b);
		event_log_free(kept);
		event_log_free(dropped);
	}
	free(text);
}
END_TEST

/* Over 10,000 invocations the per-invocation findings are made in two
 * threads: the analysis must come out as from one thread (threads 1),
 * every finding kind included, at both data-sharing levels (large
 * payloads only count at full). */
START_TEST(threads_same_analysis)
{
	struct event_log *log = log_new();
	started(log, "Many", "many", "e");
	char exec[32], other[32];
	int64_t id = 0;
	const int n = 12000;
	/* A rerun re-driving the first call: only the two events before it
	 * are copies. */
	add(log, (struct event){.kind = EVENT_TASK_SCHEDULED,
				.event_id = id,
				.has_event_id = true,
				.name = "Rerun",
				.task_execution_id = "r-0",
				.rerun_parent_instance_id = "source-run"});
	completed(log, id++);
	for (int i = 0; i < n; i++) {
		snprintf(exec, sizeof exec, "x-%d", i);
		static const char *const acts[] = {"A", "B", "C"};
		const char *name = acts[i % 3];
		int64_t first = id++;
		switch (i % 12) {
		case 0: /* retried twice after timeouts */
			sched(log, first, name, exec);
			for (int r = 0, prev = (int)first; r < 2; r++) {
				failed(log, prev, "TimeoutError", "timed out", false);
				int64_t t = id++;
				timer(log, t, ORIGIN_ACTIVITY_RETRY, exec, NULL);
				fired(log, t, NULL);
				prev = (int)id++;
				sched(log, prev, name, exec);
				if (r == 1)
					completed(log, prev);
			}
			break;
		case 1: { /* a permanent failure retried */
			sched(log, first, name, exec);
			failed(log, first, "ValidationError", "invalid input", true);
			int64_t again = id++;
			sched(log, again, name, exec);
			completed(log, again);
			break;
		}
		case 2: /* two results */
			sched(log, first, name, exec);
			completed(log, first);
			completed(log, first);
			break;
		case 3: /* never resolved, alone in its turn (not a race loser) */
			sched(log, first, name, exec);
			turn(log);
			break;
		case 4: { /* a child workflow started twice */
			snprintf(other, sizeof other, "child-%d", i);
			child(log, first, "Child", other, NULL);
			child_done(log, first, false, "boom");
			int64_t again = id++;
			child(log, again, "Child", other, NULL);
			child_done(log, again, true, NULL);
			break;
		}
		case 5: /* a large input */
			sched_in(log, first, name, exec, present(100000, (uint64_t)i));
			completed(log, first);
			break;
		case 6: { /* a retry timer of nothing here */
			snprintf(other, sizeof other, "gone-%d", i);
			timer(log, first, ORIGIN_ACTIVITY_RETRY, other, NULL);
			fired(log, first, NULL);
			break;
		}
		case 7: { /* the same input called again while the first is in flight */
			sched_in(log, first, "Overlap", exec, present(10, 7));
			int64_t t = id++;
			timer(log, t, ORIGIN_CREATE_TIMER, NULL, NULL);
			fired(log, t, NULL);
			snprintf(other, sizeof other, "y-%d", i);
			int64_t second = id++;
			sched_in(log, second, "Overlap", other, present(10, 7));
			completed(log, first);
			completed(log, second);
			break;
		}
		case 8: /* the same input called again after the last one ended */
			sched_in(log, first, "Again", exec, present(10, 8));
			completed(log, first);
			break;
		default:
			sched(log, first, name, exec);
			completed(log, first);
			break;
		}
	}
	finished(log, id, "ORCHESTRATION_STATUS_COMPLETED");
	static const enum data_sharing_level levels[] = {SHARING_FULL, SHARING_METADATA};
	for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
		struct analysis_options o = {.sharing = levels[l], .sharing_source = "test"};
		struct analysis *two = run(log, &o);
		o.threads = 1;
		struct analysis *one = run(log, &o);
		ck_assert_uint_gt(one->n_invocations, 10000);
		for (int k = 0; k < FINDING_KIND_COUNT; k++) {
			if (k == FINDING_LARGE_PAYLOAD && levels[l] != SHARING_FULL)
				continue;
			ck_assert_msg(count_kind(one, (enum finding_kind)k) > 0, "no %s finding",
				      finding_kind_id((enum finding_kind)k));
		}
		assert_same_analysis(one, two, "threads");
		analysis_free(one);
		analysis_free(two);
	}
	event_log_free(log);
}
END_TEST

/* The rule table: one row per finding kind, at the kind's own index (so
 * every kind exactly once), each with an id of its own, exactly one detect
 * (per invocation or per run) and its advice; the id, the severity and the
 * advice a finding carries are the table's. */
START_TEST(rule_table)
{
	for (int k = 0; k < FINDING_KIND_COUNT; k++) {
		const struct finding_rule *r = &analysis_rules[k];
		ck_assert_int_eq(r->kind, k);
		ck_assert_ptr_nonnull(r->id);
		ck_assert_msg((r->detect != NULL) != (r->detect_run != NULL), "%s: not exactly one detect", r->id);
		ck_assert_ptr_nonnull(r->explain);
		ck_assert_ptr_eq(finding_kind_id((enum finding_kind)k), r->id);
		ck_assert_int_eq(finding_kind_severity((enum finding_kind)k), r->severity);
		for (int j = 0; j < k; j++)
			ck_assert_str_ne(analysis_rules[j].id, r->id);
	}
	/* A permanent failure retried under one execution id: reexecuted and
	 * permanent_failure_retried, each with its rule's advice. */
	struct event_log *log = log_new();
	started(log, "W", "i", "e");
	sched(log, 0, "A", "x");
	failed(log, 0, "ValidationError", "invalid input", true);
	sched(log, 1, "A", "x");
	completed(log, 1);
	finished(log, 2, "ORCHESTRATION_STATUS_COMPLETED");
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(count_kind(a, FINDING_REEXECUTED), 1);
	ck_assert_uint_eq(count_kind(a, FINDING_PERMANENT_FAILURE_RETRIED), 1);
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *f = &a->findings[i];
		ck_assert_int_eq(f->severity, analysis_rules[f->kind].severity);
		ck_assert_ptr_eq(f->remedy, analysis_rules[f->kind].explain);
	}
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* analysis_finish takes what analysis_scan gave, a failure included, so a
 * caller drops the events between the two without checking: NULL in, NULL
 * out, and the scan's error stays. */
START_TEST(finish_after_failed_scan)
{
	struct err e;
	err_clear(&e);
	err_set(&e, ERR_INPUT, "history of too many events");
	ck_assert_ptr_null(analysis_finish(NULL, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_str_eq(e.msg, "history of too many events");
}
END_TEST

/* A value out of range names the enum's zero value, as the switches did. */
START_TEST(names_out_of_range)
{
	ck_assert_str_eq(finding_kind_id(FINDING_KIND_COUNT), "unknown");
	ck_assert_int_eq(finding_kind_severity(FINDING_KIND_COUNT), SEVERITY_NOTICE);
	ck_assert_str_eq(severity_name((enum severity)7), "notice");
	ck_assert_str_eq(attempt_outcome_name((enum attempt_outcome)7), "pending");
	ck_assert_str_eq(data_sharing_level_name((enum data_sharing_level)7), "unknown");
	ck_assert_str_eq(withheld_field_name((enum withheld_field)7), "input");
	ck_assert_str_eq(invocation_link_name((enum invocation_link)7), "single");
}
END_TEST

/* Random histories (fixed seed): any order of any events, ids colliding,
 * names and ids empty or absent. The analysis must account for every
 * attempt, give every finding evidence and a message, and be the same
 * twice. Run under ASan and valgrind by the test setups. */
static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

START_TEST(random_histories)
{
	static const char *const rnames[] = {"A", "B", "", NULL};
	static const char *const ids[] = {"x1", "x2", "x3", "", NULL};
	static const char *const fires[] = {"f1", "f2", NULL};
	static const enum event_kind kinds[] = {
		EVENT_EXECUTION_STARTED, EVENT_TASK_SCHEDULED, EVENT_TASK_SCHEDULED,      EVENT_TASK_COMPLETED,
		EVENT_TASK_FAILED,       EVENT_TIMER_CREATED,  EVENT_TIMER_FIRED,         EVENT_CHILD_CREATED,
		EVENT_CHILD_COMPLETED,   EVENT_CHILD_FAILED,   EVENT_EXECUTION_COMPLETED, EVENT_EVENT_SENT,
		EVENT_UNKNOWN,
	};
	static const enum timer_origin origins[] = {ORIGIN_NONE, ORIGIN_ACTIVITY_RETRY, ORIGIN_CHILD_RETRY,
						    ORIGIN_CREATE_TIMER};
	for (int round = 0; round < 200; round++) {
		struct event_log *log = log_new();
		size_t n_actions = 0;
		int n = 1 + (int)rnd(60);
		for (int i = 0; i < n; i++) {
			enum event_kind k = kinds[rnd(sizeof kinds / sizeof kinds[0])];
			struct event ev = {
				.kind = k,
				.kind_name = k == EVENT_UNKNOWN ? "SomethingNew" : NULL,
				.event_id = (int64_t)rnd(6) - 1,
				.has_event_id = rnd(4) != 0,
				.name = rnames[rnd(4)],
				.task_scheduled_id = (int64_t)rnd(6) - 1,
				.has_task_scheduled_id = true,
				.task_execution_id = ids[rnd(5)],
				.timer_id = (int64_t)rnd(6),
				.has_timer_id = rnd(2) != 0,
				.fire_at = fires[rnd(3)],
				.origin = origins[rnd(4)],
				.origin_id = ids[rnd(5)],
				.instance_id = ids[rnd(5)],
				.execution_id = ids[rnd(5)],
				.retry_parent_instance_id = ids[rnd(5)],
				.workflow_status = rnd(2) ? "ORCHESTRATION_STATUS_COMPLETED" : NULL,
				.error_type = rnd(2) ? "TimeoutError" : "ValueError",
				.error_message = rnd(2) ? NULL : "boom",
				.has_non_retriable = true,
				.non_retriable = rnd(5) == 0,
				.input = rnd(2) ? present(rnd(3) * 40000, rnd(2)) : (struct payload){0},
				.output = rnd(2) ? present(rnd(3) * 40000, rnd(2)) : (struct payload){0},
			};
			n_actions += k == EVENT_TASK_SCHEDULED || k == EVENT_CHILD_CREATED;
			add(log, ev);
		}
		struct analysis *a = run(log, NULL);
		struct analysis *b = run(log, NULL);
		size_t n_attempts = 0;
		for (size_t v = 0; v < a->n_invocations; v++) {
			ck_assert_uint_ge(a->invocations[v].n_attempts, 1);
			n_attempts += a->invocations[v].n_attempts;
		}
		ck_assert_uint_eq(n_attempts, n_actions);
		ck_assert_uint_eq(a->n_findings, b->n_findings);
		for (size_t i = 0; i < a->n_findings; i++) {
			const struct finding *f = &a->findings[i];
			ck_assert_uint_gt(f->n_evidence_event_indexes, 0);
			ck_assert_ptr_nonnull(msg(f));
			ck_assert_str_eq(msg(f), msg(&b->findings[i]));
			for (size_t j = 0; j < f->n_evidence_event_indexes; j++)
				ck_assert_uint_lt(f->evidence_event_indexes[j], (size_t)n);
		}
		ck_assert_uint_ge(a->n_limits, 1);
		analysis_free(a);
		analysis_free(b);
		event_log_free(log);
	}
}
END_TEST

START_TEST(empty_log)
{
	struct event_log *log = log_new();
	struct analysis *a = run(log, NULL);
	ck_assert_uint_eq(a->n_findings, 0);
	ck_assert_uint_eq(a->n_invocations, 0);
	ck_assert_uint_eq(a->n_generations, 0);
	ck_assert_int_eq(a->sharing, SHARING_UNKNOWN);
	/* The crash-redelivery limit always applies. */
	ck_assert(limits_mention(a, "leaves no event"));
	analysis_free(a);
	analysis_free(NULL);
	event_log_free(log);
}
END_TEST

/* Issue 32: what a Dapr 1.17-1.19 history says beyond its calls. */
static struct analysis *fixture_analysis(const char *name, struct event_log **log)
{
	char rel[256];
	snprintf(rel, sizeof rel, "tests/fixtures/%s", name);
	size_t len;
	char *text = testlib_read_file(testlib_src(rel), &len);
	ck_assert_ptr_nonnull(text);
	struct err e;
	err_clear(&e);
	*log = event_log_parse(text, len, &e);
	free(text);
	ck_assert_msg(*log, "%s: %s", name, e.msg);
	return run(*log, NULL);
}

/* The two kinds a large history has by the ten thousand keep no text:
 * it is made from their invocation when read, the same words each time,
 * into the caller's buffer (issue 34). */
START_TEST(untold_texts_made_when_read)
{
	struct event_log *log;
	struct analysis *a = fixture_analysis("b-retry-fail-fail-succeed.catalyst.json", &log);
	ck_assert_uint_eq(a->n_findings, 2);
	static const char *const summary[] = {
		"ran 3 attempts as one invocation (task_scheduled_id 0, 2, 4)",
		"attempt 1 failed with ConnectionError; attempt 2 ran again (1 more like it)",
	};
	static const char *const head[] = {
		"ChargeCard ran 3 attempts as one invocation under task_execution_id "
		"7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17 (task_scheduled_id 0, 2, 4; retry timers 1, 3), so its "
		"body may have run 3 times. Key the side effect on task_execution_id "
		"7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17 (stable across retries)",
		"Attempt 1 of ChargeCard (task_scheduled_id 0) failed with ConnectionError \"('Connection "
		"aborted.', RemoteDisconnected('Remote end closed connection without response'))\", a "
		"timeout/connection-class error after which the side effect may already have landed, and "
		"attempt 2 (task_scheduled_id 2) ran again; 1 more attempt failed the same way before a retry "
		"(task_scheduled_id 2). Check the remote side for a duplicate; ",
	};
	struct buf b, m;
	buf_init(&b, 0);
	for (size_t i = 0; i < 2; i++) {
		const struct finding *f = &a->findings[i];
		ck_assert_int_eq(f->kind, i == 0 ? FINDING_REEXECUTED : FINDING_AMBIGUOUS_FAILURE_RETRIED);
		ck_assert_ptr_nonnull(f->text_of);
		ck_assert_ptr_null(f->message_head);
		ck_assert_ptr_null(f->summary);
		buf_printf(&b, NULL, "left over");
		const char *got;
		for (int read = 0; read < 2; read++) {
			ck_assert_int_eq(analysis_finding_summary(f, &b, &got), 0);
			ck_assert_str_eq(got, summary[i]);
		}
		/* appended to what the buffer holds, as for a kept head */
		buf_init(&m, 0);
		buf_printf(&m, NULL, ">");
		ck_assert_int_eq(analysis_finding_message(f, &m), 0);
		ck_assert_msg(strncmp(m.data + 1, head[i], strlen(head[i])) == 0 && m.data[0] == '>', "%s",
			      m.data);
		buf_finish(&m);
	}
	buf_finish(&b);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

START_TEST(versions_stalls_and_signing_read)
{
	static const char *const l1[] = {"l1-versioned-patched-stall.proto.json",
					 "l1-versioned-patched-stall.catalyst.json"};
	for (size_t f = 0; f < 2; f++) {
		struct event_log *log;
		struct analysis *a = fixture_analysis(l1[f], &log);
		ck_assert_uint_eq(a->n_versions, 3);
		ck_assert_str_eq(a->versions[0].name, "v1");
		ck_assert_ptr_null(a->versions[0].patches);
		ck_assert_str_eq(a->versions[1].patches, "patch1");
		ck_assert_str_eq(a->versions[2].name, "v2");
		ck_assert_uint_eq(a->versions[2].event_index, 8);
		ck_assert_uint_eq(a->n_stalls, 1);
		/* protojson leaves PATCH_MISMATCH, the enum's zero, out */
		ck_assert_str_eq(a->stalls[0].reason, "PATCH_MISMATCH");
		ck_assert_str_eq(a->stalls[0].description,
				 "Patch mismatch. History patches: [patch1], current patches: []. ");
		ck_assert_uint_eq(a->n_attested, 0);
		ck_assert_ptr_null(a->tampered);
		analysis_free(a);
		event_log_free(log);
	}
	struct event_log *log;
	struct analysis *a = fixture_analysis("l2-stalled-version-not-available.catalyst.json", &log);
	ck_assert_uint_eq(a->n_stalls, 1);
	ck_assert_str_eq(a->stalls[0].reason, "VERSION_NOT_AVAILABLE");
	ck_assert_str_eq(a->stalls[0].description, "Version not available: v1");
	ck_assert(!a->finished);
	analysis_free(a);
	event_log_free(log);
	a = fixture_analysis("l3-history-tampered.proto.json", &log);
	ck_assert_uint_eq(a->n_results, 1);
	ck_assert_uint_eq(a->n_attested, 1);
	ck_assert_ptr_nonnull(a->tampered);
	ck_assert_ptr_nonnull(strstr(a->tampered, "signature verification failed"));
	analysis_free(a);
	event_log_free(log);
	/* The same run under the name issue 32 gives the failure: read alike,
	 * and the limit names the type the history spells. */
	size_t len;
	char *text = testlib_read_file(testlib_src("tests/fixtures/l3-history-tampered.proto.json"), &len);
	ck_assert_ptr_nonnull(text);
	char *at = strstr(text, "DAPR_WORKFLOW_HISTORY_TAMPERED");
	ck_assert_ptr_nonnull(at);
	struct buf b;
	buf_init(&b, 0);
	buf_printf(&b, NULL, "%.*sSignatureVerificationFailed%s", (int)(at - text), text,
		   at + strlen("DAPR_WORKFLOW_HISTORY_TAMPERED"));
	free(text);
	struct err e;
	err_clear(&e);
	log = event_log_parse(b.data, b.len, &e);
	buf_finish(&b);
	ck_assert_msg(log, "%s", e.msg);
	a = run(log, NULL);
	ck_assert_ptr_nonnull(a->tampered);
	bool named = false;
	for (size_t i = 0; i < a->n_limits; i++)
		named |= strstr(a->limits[i], "(SignatureVerificationFailed: workflow history signature") != NULL;
	ck_assert(named);
	analysis_free(a);
	event_log_free(log);
	a = fixture_analysis("l4-detached-workflow.proto.json", &log);
	struct event ev;
	ck_assert(event_log_get(log, 2, &ev));
	ck_assert_int_eq(ev.kind, EVENT_DETACHED_CREATED);
	ck_assert_str_eq(ev.instance_id, "spawned-1");
	ck_assert_uint_eq(a->n_child_instances, 0);
	analysis_free(a);
	event_log_free(log);
}
END_TEST

/* Dapr 1.17.7 and 1.18 drop a second completion before it reaches
 * history (dapr/dapr#9875): the limit says so, in one sentence, unless
 * the history shows duplicate completions (a runtime before that wrote
 * it, and the blind spot is not there). */
START_TEST(dedup_blind_spot_said_unless_duplicates_shown)
{
	static const struct {
		const char *file;
		bool said;
	} cases[] = {
		{"a-clean-activity.proto.json", true},
		{"f-legacy-duplicate-completion.proto.json", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct event_log *log;
		struct analysis *a = fixture_analysis(cases[i].file, &log);
		bool said = false;
		for (size_t k = 0; k < a->n_limits; k++)
			said |= strstr(a->limits[k], "dapr/dapr#9875") != NULL &&
				strstr(a->limits[k], "idempotency store") != NULL;
		ck_assert_msg(said == cases[i].said, "%s: blind spot %s", cases[i].file,
			      said ? "said" : "not said");
		analysis_free(a);
		event_log_free(log);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("analysis");
	struct testlib_group *tc = testlib_group("grouping");
	add_test(tc, go_python_same_execution_id);
	add_test(tc, interned_map_direct_and_slots);
	add_test(tc, execution_id_in_two_generations);
	add_test(tc, versions_stalls_and_signing_read);
	add_test(tc, dedup_blind_spot_said_unless_duplicates_shown);
	add_test(tc, dotnet_ids_linked_by_origin);
	add_test(tc, missing_timer_id_matches_fire_at);
	add_test(tc, same_fire_at_matched_in_order);
	add_test(tc, timer_id_beats_fire_at_order);
	add_test(tc, empty_ids_never_grouped);
	add_test(tc, duplicate_result);
	add_test(tc, orphan_retry_timer);
	add_test(tc, continue_as_new_generations);
	add_test(tc, child_retry_go);
	add_test(tc, child_retry_same_instance);
	add_test(tc, child_retry_dotnet_retry_parent);
	add_test(tc, cli_child_paired_by_order);
	add_test(tc, cli_child_ambiguous_not_paired);
	add_test(tc, cli_child_retry_timer_origin_without_ids);
	add_test(tc, activity_origin_matches_nothing);
	add_test(tc, untimed_retry_linked_by_order);
	add_test(tc, cli_child_fan_out_retried);
	add_test(tc, rerun_from_event);
	add_test(tc, truncated_inputs_never_identical);
	add_test(tc, pattern_inferred_link);
	add_test(tc, pattern_not_applied);
	testlib_suite_add(s, tc);
	tc = testlib_group("findings");
	add_test(tc, overlapping_call);
	add_test(tc, repeated_call_inputs);
	add_test(tc, repeated_call_group_opens_on_renamed_attempt);
	add_test(tc, unresolved_only_when_finished);
	add_test(tc, race_loser_is_a_limit);
	add_test(tc, data_sharing_inferred_and_given);
	add_test(tc, large_payload_only_at_full);
	add_test(tc, permanent_failures);
	add_test(tc, run_facts);
	add_test(tc, names);
	add_test(tc, rule_table);
	add_test(tc, names_out_of_range);
	add_test(tc, finish_after_failed_scan);
	add_test(tc, large_history);
	add_test(tc, fan_out_in_one_turn_is_never_a_pair);
	add_test(tc, when_any_over_one_activity);
	add_test(tc, rolling_fan_out);
	add_test(tc, recall_cause);
	add_test(tc, not_from_catalyst);
	add_test(tc, catalyst_shaped);
	add_test(tc, random_histories);
	add_test(tc, empty_log);
	add_test(tc, failure_cause_decides);
	testlib_suite_add(s, tc);
	tc = testlib_group("fixtures");
	add_loop_test(tc, fixture, 0, (int)(sizeof fixtures / sizeof fixtures[0]));
	add_loop_test(tc, released_log_same_analysis, 0, (int)(sizeof fixtures / sizeof fixtures[0]));
	add_test(tc, threads_same_analysis);
	add_test(tc, untold_texts_made_when_read);
	add_test(tc, not_shared_never_at_full);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
