/* The history event model and its dialect parsers. */
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event.h"
#include "testlib.h"

static char *fixture(const char *name, size_t *len)
{
	char rel[256];
	snprintf(rel, sizeof rel, "tests/fixtures/%s", name);
	char *buf = testlib_read_file(testlib_src(rel), len);
	ck_assert_msg(buf != NULL, "cannot read %s", rel);
	return buf;
}

static struct event_log *parse_str(const char *s, struct err *e)
{
	err_clear(e);
	return event_log_parse(s, strlen(s), e);
}

static struct event_log *parse_ok(const char *s)
{
	struct err e;
	struct event_log *log = parse_str(s, &e);
	ck_assert_msg(log != NULL, "parse failed: %s\ninput: %.200s", e.msg, s);
	return log;
}

static struct event_log *parse_fixture(const char *name)
{
	size_t len;
	char *buf = fixture(name, &len);
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_parse(buf, len, &e);
	ck_assert_msg(log != NULL, "%s: %s", name, e.msg);
	free(buf);
	return log;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Event i, materialised into one of a ring of slots so that a test can hold
 * a few at once; NULL past the end. */
static const struct event *at(const struct event_log *log, size_t i)
{
	static struct event ring[16];
	static unsigned next;
	struct event *ev = &ring[next++ % 16];
	return event_log_get(log, i, ev) ? ev : NULL;
}

static bool payload_eq(const struct payload *a, const struct payload *b)
{
	return a->state == b->state && a->size == b->size && a->hash == b->hash;
}

static size_t count_kind(const struct event_log *log, enum event_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < event_log_count(log); i++)
		n += at(log, i)->kind == k;
	return n;
}

/* ------------------------------------------------------------------------ */
/* The model itself. */

/* Issue 16, item 5: the table `dapr workflow history` prints by default
 * (and -o wide), rendered as dapr/cli 1.17/1.18 utils.WriteTable does from
 * the rows of b-retry-fail-fail-succeed, is read for its TYPE, NAME,
 * EVENTID, STATUS and DETAILS columns. */
START_TEST(cli_table_view_read)
{
	static const char *const files[] = {"k6-cli-table-short.cli-1.18.txt", "k6-cli-table-wide.cli-1.18.txt"};
	static const enum event_kind kinds[] = {
		EVENT_EXECUTION_STARTED, EVENT_WORKFLOW_STARTED,    EVENT_TASK_SCHEDULED,   EVENT_TASK_FAILED,
		EVENT_WORKFLOW_STARTED,  EVENT_TIMER_CREATED,       EVENT_TIMER_FIRED,      EVENT_WORKFLOW_STARTED,
		EVENT_TASK_SCHEDULED,    EVENT_TASK_FAILED,         EVENT_WORKFLOW_STARTED, EVENT_TIMER_CREATED,
		EVENT_TIMER_FIRED,       EVENT_WORKFLOW_STARTED,    EVENT_TASK_SCHEDULED,   EVENT_TASK_COMPLETED,
		EVENT_WORKFLOW_STARTED,  EVENT_EXECUTION_COMPLETED,
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		struct event_log *log = parse_fixture(files[i]);
		ck_assert_int_eq(event_log_dialect(log), DIALECT_DAPR_TABLE);
		ck_assert_uint_eq(event_log_count(log), sizeof kinds / sizeof *kinds);
		for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
			ck_assert_msg(at(log, k)->kind == kinds[k], "%s row %zu", files[i], k);
		const struct event *ev = at(log, 0);
		ck_assert_str_eq(ev->name, "PaymentWorkflow");
		ck_assert(!ev->has_event_id);
		ck_assert_ptr_null(ev->execution_id);
		ev = at(log, 2);
		ck_assert_str_eq(ev->name, "ChargeCard");
		ck_assert(ev->has_event_id);
		ck_assert_int_eq(ev->event_id, 0);
		ck_assert_ptr_null(ev->task_execution_id);
		ck_assert_int_eq(ev->input.state, PAYLOAD_ABSENT);
		/* The failure names no call: the only one pending, by order. */
		ev = at(log, 3);
		ck_assert(!ev->has_task_scheduled_id);
		ck_assert_int_eq(ev->task_scheduled_id, 0);
		ck_assert_ptr_null(ev->error_type);
		ck_assert_ptr_null(ev->error_message);
		ck_assert_ptr_null(ev->name);
		ev = at(log, 5);
		ck_assert_int_eq(ev->event_id, 1);
		ck_assert_int_eq(ev->origin, ORIGIN_ACTIVITY_RETRY);
		ck_assert_str_eq(ev->origin_id, "7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17");
		ck_assert(at(log, 6)->has_timer_id);
		ck_assert_int_eq(at(log, 6)->timer_id, 1);
		ck_assert_int_eq(at(log, 9)->task_scheduled_id, 2);
		ck_assert_int_eq(at(log, 12)->timer_id, 3);
		ev = at(log, 15); /* DETAILS eventId=4 */
		ck_assert(ev->has_task_scheduled_id);
		ck_assert_int_eq(ev->task_scheduled_id, 4);
		ev = at(log, 17);
		ck_assert_int_eq(ev->event_id, 5);
		ck_assert_str_eq(ev->workflow_status, "COMPLETED");
		event_log_free(log);
	}
}
END_TEST

/* A failure while two calls are pending names neither: left unpaired (-1),
 * not guessed; a cell with a multi-byte character shifts the bytes, not
 * the columns, of the cells after it. */
START_TEST(cli_table_view_fan_out_unpaired)
{
	struct err e;
	struct event_log *log = parse_str("TYPE           NAME  EVENTID  ELAPSED  STATUS   DETAILS\n"
					  "TaskScheduled  A\xe2\x80\xa6    0        1ms      RUNNING  -\n"
					  "TaskScheduled  B     1        1ms      RUNNING  -\n"
					  "TaskFailed     -     -        1ms      FAILED   -\n"
					  "TaskCompleted  -     -        1ms      RUNNING  eventId=1\n",
					  &e);
	ck_assert_msg(log != NULL, "%s", e.msg);
	ck_assert_uint_eq(event_log_count(log), 4);
	ck_assert_str_eq(at(log, 0)->name, "A\xe2\x80\xa6");
	ck_assert_int_eq(at(log, 0)->event_id, 0);
	ck_assert_int_eq(at(log, 1)->event_id, 1);
	ck_assert_int_eq(at(log, 2)->task_scheduled_id, -1);
	ck_assert_int_eq(at(log, 3)->task_scheduled_id, 1);
	event_log_free(log);
}
END_TEST

/* Without the TYPE, NAME and EVENTID columns the table is refused with how
 * to save a history, not "not JSON at byte 0". */
START_TEST(cli_table_view_refused)
{
	struct err e;
	ck_assert_ptr_null(parse_str("TYPE           NAME  ELAPSED  STATUS   DETAILS\n"
				     "TaskScheduled  A     1ms      RUNNING  -\n",
				     &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_msg(strstr(e.msg, "this is the table view of `dapr workflow history`"), "%s", e.msg);
	ck_assert(strstr(e.msg, "save the history with `dapr workflow history ID -o json`"));
	/* Text that merely starts with the word is still just not JSON. */
	ck_assert_ptr_null(parse_str("TYPE of thing", &e));
	ck_assert(strstr(e.msg, "not JSON at byte 0"));
}
END_TEST

START_TEST(model_append_copies_and_interns)
{
	struct event_log *log = event_log_new();
	ck_assert_ptr_nonnull(log);
	char id[] = "exec-1";
	struct event ev = {.kind = EVENT_TASK_SCHEDULED,
			   .name = "Charge",
			   .task_execution_id = id,
			   .event_id = 3,
			   .has_event_id = true};
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(event_log_append(log, &ev, &e), 0);
	ev.kind = EVENT_TASK_COMPLETED;
	ev.task_scheduled_id = 3;
	ev.has_task_scheduled_id = true;
	ck_assert_int_eq(event_log_append(log, &ev, &e), 0);
	id[0] = 'X'; /* the log holds its own copy */
	ck_assert_uint_eq(event_log_count(log), 2);
	const struct event *a = at(log, 0), *b = at(log, 1);
	ck_assert_str_eq(a->task_execution_id, "exec-1");
	ck_assert_ptr_eq(a->task_execution_id, b->task_execution_id); /* interned */
	ck_assert_str_eq(a->kind_name, "TaskScheduled");
	ck_assert_str_eq(b->kind_name, "TaskCompleted");
	ck_assert_int_eq(a->event_id, 3);
	ck_assert_ptr_null(a->timestamp);
	ck_assert_ptr_null(at(log, 2));
	ck_assert_ptr_eq(event_log_intern(log, "exec-1", 6), a->task_execution_id);
	ck_assert_ptr_null(event_log_intern(log, NULL, 0));
	ck_assert_int_eq(event_log_dialect(log), DIALECT_UNKNOWN);

	struct event u = {.kind = EVENT_UNKNOWN, .kind_name = "ExecutionRewound"};
	ck_assert_int_eq(event_log_append(log, &u, &e), 0);
	ck_assert_int_eq(event_log_append(log, &u, &e), 0);
	const struct event_count *c;
	ck_assert_uint_eq(event_log_unknown_kinds(log, &c), 1);
	ck_assert_str_eq(c[0].name, "ExecutionRewound");
	ck_assert_uint_eq(c[0].count, 2);

	char level[] = "metadata";
	struct event_run_info ri = {
		.app_id = "orders", .data_sharing_level = level, .data_sharing_field = "dataSharingLevel"};
	event_log_set_run_info(log, &ri);
	level[0] = 'X';
	ck_assert_str_eq(event_log_run_info(log)->data_sharing_level, "metadata");
	ck_assert_str_eq(event_log_run_info(log)->app_id, "orders");
	ck_assert_ptr_null(event_log_run_info(log)->instance_id);
	event_log_free(log);
	event_log_free(NULL);
}
END_TEST

/* event_log_release_before (issue 34): the events before each mark are
 * gone and answer as past the end, every later one comes back whole, the
 * strings handed out stay; in a log read on one thread and in one joined
 * from two halves (a list of over 4 MB is read in two). */
static char *release_history(size_t pairs, size_t *len)
{
	size_t cap = pairs * 512 + 16, n = 0; /* a pair is about 330 bytes */
	char *t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	t[n++] = '[';
	for (size_t i = 0; i < pairs && n < cap; i++)
		n += (size_t)snprintf(
			t + n, cap - n,
			"%s{\"event_id\": %zu, \"timestamp\": \"2026-09-14T00:00:%02zu.000Z\", "
			"\"event_type\": \"TaskScheduled\", \"name\": \"Step%zu\", "
			"\"task_execution_id\": \"exec-%zu\"},\n"
			"{\"event_id\": -1, \"event_type\": \"TaskFailed\", \"task_scheduled_id\": %zu, "
			"\"task_execution_id\": \"exec-%zu\", \"error_type\": \"Boom\", "
			"\"error_message\": \"boom %zu\"}",
			i ? "," : "", i, i % 60, i % 7, i, i, i, i);
	ck_assert_uint_lt(n, cap - 2);
	t[n++] = ']';
	t[n] = '\0';
	*len = n;
	return t;
}

static void release_check(struct event_log *log, size_t n)
{
	ck_assert_uint_eq(event_log_count(log), n);
	const char *name = at(log, 2)->name; /* "Step1", the pool's */
	static const size_t marks[] = {1,     1023,  1024,  1025,  3000,  4096,  9001,
				       14500, 15001, 15500, 16100, 17000, 22222, 29999};
	size_t from = 0;
	for (size_t m = 0; m < sizeof marks / sizeof marks[0] && marks[m] < n; m++) {
		event_log_release_before(log, marks[m]);
		from = marks[m];
		ck_assert_ptr_null(at(log, from - 1));
		ck_assert_int_eq(event_log_kind(log, from - 1), EVENT_UNKNOWN);
		ck_assert(!event_log_names_version(log, from - 1));
		for (size_t i = from; i < n; i += (i % 997 == 0) ? 1 : 13) {
			const struct event *ev = at(log, i);
			ck_assert_ptr_nonnull(ev);
			char want[64];
			snprintf(want, sizeof want, "exec-%zu", i / 2);
			ck_assert_str_eq(ev->task_execution_id, want);
			if (i % 2 == 0) {
				ck_assert_int_eq(ev->kind, EVENT_TASK_SCHEDULED);
				ck_assert_int_eq(ev->event_id, (int64_t)(i / 2));
				ck_assert_ptr_nonnull(ev->timestamp);
			} else {
				ck_assert_int_eq(ev->kind, EVENT_TASK_FAILED);
				ck_assert_int_eq(ev->task_scheduled_id, (int64_t)(i / 2));
				snprintf(want, sizeof want, "boom %zu", i / 2);
				ck_assert_str_eq(ev->error_message, want);
			}
		}
		event_log_release_before(log, from - 1); /* behind the mark: nothing */
		ck_assert_ptr_nonnull(at(log, from));
	}
	event_log_release_before(log, n + 5); /* past the end: all of it */
	ck_assert_ptr_null(at(log, n - 1));
	ck_assert_uint_eq(event_log_count(log), n);
	ck_assert_str_eq(name, "Step1");
	event_log_drop_events(log);
	ck_assert_uint_eq(event_log_count(log), 0);
	ck_assert_str_eq(name, "Step1");
}

START_TEST(model_releases_what_was_read)
{
	size_t len;
	char *text = release_history(15000, &len);
	ck_assert_uint_gt(len, 4u << 20);
	for (unsigned threads = 1; threads <= 2; threads++) {
		struct event_parse_options po = {.threads = threads};
		struct err e;
		err_clear(&e);
		struct event_log *log = event_log_parse_opts(text, len, &po, &e);
		ck_assert_msg(log != NULL, "%s", e.msg);
		release_check(log, 30000);
		event_log_free(log);
	}
	free(text);
}
END_TEST

START_TEST(model_packs_every_field)
{
	/* The log stores events packed (fields that are set, in a side
	 * array): every combination must come back exactly as appended. */
	struct event_log *log = event_log_new();
	struct err e;
	err_clear(&e);
	struct event full = {
		.kind = EVENT_TIMER_CREATED,
		.origin = ORIGIN_CHILD_RETRY,
		.kind_name = "timerCreated",
		.event_id = INT64_MIN,
		.timestamp = "2026-12-02T10:00:00Z",
		.name = "n",
		.task_scheduled_id = INT64_MAX,
		.task_execution_id = "x",
		.timer_id = -7,
		.fire_at = "2026-12-02T10:00:05Z",
		.origin_id = "o",
		.instance_id = "i",
		.execution_id = "e",
		.retry_parent_instance_id = "rp",
		.rerun_parent_instance_id = "rr",
		.workflow_status = "s",
		.error_type = "t",
		.error_message = "m",
		.cause_type = "ct",
		.cause_message = "cm",
		.input = {.state = PAYLOAD_PRESENT, .size = 3, .hash = UINT64_MAX, .truncated = true},
		.output = {.state = PAYLOAD_EMPTY},
		.custom_status = {.state = PAYLOAD_NULL},
		.source_offset = ((size_t)5 << 32) | 17u,
		.has_event_id = true,
		.has_task_scheduled_id = true,
		.has_timer_id = true,
		.has_non_retriable = true,
		.non_retriable = true,
		.cause_depth = UINT8_MAX,
	};
	struct event bare = {.kind = EVENT_UNKNOWN, .kind_name = "Mystery"};
	struct event zeros = {.kind = EVENT_TASK_COMPLETED, .has_event_id = true, .has_task_scheduled_id = true};
	const struct event *in[] = {&full, &bare, &zeros, &full};
	for (size_t k = 0; k < 4; k++)
		ck_assert_int_eq(event_log_append(log, in[k], &e), 0);
	for (size_t k = 0; k < 4; k++) {
		const struct event *a = in[k], *b = at(log, k);
		ck_assert_int_eq(a->kind, b->kind);
		ck_assert_int_eq(a->origin, b->origin);
		/* No spelling given: the canonical name. */
		ck_assert_str_eq(a->kind_name ? a->kind_name : event_kind_name(a->kind), b->kind_name);
		ck_assert(a->event_id == b->event_id && a->task_scheduled_id == b->task_scheduled_id &&
			  a->timer_id == b->timer_id);
		ck_assert(str_eq(a->timestamp, b->timestamp) && str_eq(a->name, b->name) &&
			  str_eq(a->task_execution_id, b->task_execution_id) && str_eq(a->fire_at, b->fire_at) &&
			  str_eq(a->origin_id, b->origin_id) && str_eq(a->instance_id, b->instance_id) &&
			  str_eq(a->execution_id, b->execution_id) &&
			  str_eq(a->retry_parent_instance_id, b->retry_parent_instance_id) &&
			  str_eq(a->rerun_parent_instance_id, b->rerun_parent_instance_id) &&
			  str_eq(a->workflow_status, b->workflow_status) && str_eq(a->error_type, b->error_type) &&
			  str_eq(a->error_message, b->error_message) && str_eq(a->cause_type, b->cause_type) &&
			  str_eq(a->cause_message, b->cause_message));
		ck_assert_uint_eq(a->cause_depth, b->cause_depth);
		ck_assert(a->input.state == b->input.state && a->input.size == b->input.size &&
			  a->input.hash == b->input.hash && a->input.truncated == b->input.truncated);
		ck_assert(!b->output.truncated && !b->custom_status.truncated);
		ck_assert(a->output.state == b->output.state && a->custom_status.state == b->custom_status.state);
		ck_assert_uint_eq(a->source_offset, b->source_offset);
		ck_assert(a->has_event_id == b->has_event_id &&
			  a->has_task_scheduled_id == b->has_task_scheduled_id &&
			  a->has_timer_id == b->has_timer_id && a->has_non_retriable == b->has_non_retriable &&
			  a->non_retriable == b->non_retriable);
	}
	/* A known kind spelled as its canonical name needs no slot, and reads
	 * back the same. */
	struct event plain = {.kind = EVENT_TASK_SCHEDULED, .kind_name = "TaskScheduled"};
	ck_assert_int_eq(event_log_append(log, &plain, &e), 0);
	ck_assert_str_eq(at(log, 4)->kind_name, "TaskScheduled");
	ck_assert_ptr_null(at(log, 5));
	event_log_free(log);
}
END_TEST

START_TEST(model_many_events_stay_put)
{
	/* More than one block of events: earlier strings stay valid. */
	struct event_log *log = event_log_new();
	struct err e;
	const char *first = NULL;
	for (int i = 0; i < 10000; i++) {
		char id[32];
		snprintf(id, sizeof id, "x-%d", i % 300);
		struct event ev = {.kind = EVENT_TASK_SCHEDULED, .task_execution_id = id, .event_id = i};
		ck_assert_int_eq(event_log_append(log, &ev, &e), 0);
		if (i == 0)
			first = at(log, 0)->task_execution_id;
	}
	ck_assert_ptr_eq(first, at(log, 0)->task_execution_id);
	ck_assert_int_eq(at(log, 0)->event_id, 0);
	ck_assert_int_eq(at(log, 9999)->event_id, 9999);
	ck_assert_str_eq(at(log, 9999)->task_execution_id, "x-99");
	ck_assert_ptr_eq(at(log, 9999)->task_execution_id, at(log, 99)->task_execution_id);
	event_log_free(log);
}
END_TEST

START_TEST(model_drop_events_keeps_strings)
{
	/* Several event blocks and several pool chunks: every string handed
	 * out before the drop stays readable (valgrind and ASan check it). */
	struct event_log *log = event_log_new();
	struct err e;
	err_clear(&e);
	const char *ids[3000];
	for (int i = 0; i < 3000; i++) {
		char id[64], name[80];
		snprintf(id, sizeof id, "task-execution-%05d-0000-0000-000000000000", i);
		snprintf(name, sizeof name, "Activity%d", i % 7);
		struct event ev = {.kind = EVENT_TASK_SCHEDULED,
				   .name = name,
				   .task_execution_id = id,
				   .timestamp = "2026-12-02T10:00:00.123456Z",
				   .event_id = i,
				   .has_event_id = true};
		ck_assert_int_eq(event_log_append(log, &ev, &e), 0);
		ids[i] = at(log, (size_t)i)->task_execution_id;
	}
	const char *ts = at(log, 2999)->timestamp;
	struct event_run_info ri = {.app_id = "orders", .workflow_name = "Checkout"};
	event_log_set_run_info(log, &ri);
	event_log_drop_events(log);
	ck_assert_uint_eq(event_log_count(log), 0);
	ck_assert_ptr_null(at(log, 0));
	for (int i = 0; i < 3000; i++) {
		char id[64];
		snprintf(id, sizeof id, "task-execution-%05d-0000-0000-000000000000", i);
		ck_assert_str_eq(ids[i], id);
	}
	ck_assert_str_eq(ts, "2026-12-02T10:00:00.123456Z");
	ck_assert_str_eq(event_log_run_info(log)->app_id, "orders");
	ck_assert_str_eq(event_log_run_info(log)->workflow_name, "Checkout");
	/* Still a log: interning and appending work after the drop. */
	ck_assert_str_eq(event_log_intern(log, "late", 4), "late");
	struct event ev = {.kind = EVENT_TIMER_FIRED, .name = "t"};
	ck_assert_int_eq(event_log_append(log, &ev, &e), 0);
	ck_assert_uint_eq(event_log_count(log), 1);
	ck_assert_str_eq(at(log, 0)->name, "t");
	event_log_drop_events(log);
	event_log_drop_events(log);
	event_log_drop_events(NULL);
	event_log_free(log);

	/* A parsed history (the path `run` and `runs` take). */
	log = parse_fixture("b-retry-fail-fail-succeed.catalyst.json");
	size_t n = event_log_count(log);
	ck_assert_uint_gt(n, 0);
	const char *last_name = NULL;
	for (size_t i = 0; i < n; i++)
		if (at(log, i)->name)
			last_name = at(log, i)->name;
	ck_assert_ptr_nonnull(last_name);
	char copy[256];
	snprintf(copy, sizeof copy, "%s", last_name);
	event_log_drop_events(log);
	ck_assert_str_eq(last_name, copy);
	event_log_free(log);
}
END_TEST

START_TEST(model_names)
{
	ck_assert_str_eq(event_kind_name(EVENT_TASK_SCHEDULED), "TaskScheduled");
	ck_assert_str_eq(event_kind_name(EVENT_CHILD_CREATED), "ChildWorkflowInstanceCreated");
	ck_assert_str_eq(event_kind_name(EVENT_WORKFLOW_STARTED), "WorkflowStarted");
	ck_assert_str_eq(event_kind_name(EVENT_KIND_COUNT), "Unknown");
	for (int k = 0; k < EVENT_KIND_COUNT; k++)
		ck_assert_ptr_nonnull(event_kind_name((enum event_kind)k));
	ck_assert_str_eq(event_dialect_name(DIALECT_CATALYST), "catalyst");
	ck_assert_str_eq(event_dialect_name(DIALECT_PROTOJSON), "protojson");
	ck_assert_str_eq(event_dialect_name(DIALECT_DAPR_CLI), "dapr-cli");
	ck_assert_str_eq(event_dialect_name(DIALECT_DAPR_TABLE), "dapr-cli-table");
	ck_assert_str_eq(event_dialect_name(DIALECT_UNKNOWN), "unknown");
	/* What the analysis reads of a dialect: its caps, not its name. */
	ck_assert_uint_eq(event_dialect_caps(DIALECT_CATALYST), DIALECT_CAP_SHARING);
	ck_assert_uint_eq(event_dialect_caps(DIALECT_PROTOJSON), 0);
	ck_assert_uint_eq(event_dialect_caps(DIALECT_DAPR_CLI),
			  DIALECT_CAP_OMITS_EMPTY_PAYLOADS | DIALECT_CAP_NO_CHILD_IDS);
	ck_assert_uint_eq(event_dialect_caps(DIALECT_DAPR_TABLE),
			  DIALECT_CAP_NO_CHILD_IDS | DIALECT_CAP_NO_FAILURE_DETAILS);
	ck_assert_uint_eq(event_dialect_caps(DIALECT_UNKNOWN), 0);
	ck_assert_ptr_null(event_dialect_origin(DIALECT_CATALYST));
	ck_assert_str_eq(event_dialect_origin(DIALECT_DAPR_CLI), "dapr workflow history output");
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Every fixture. */

static const struct {
	const char *file;
	enum event_dialect dialect;
	size_t count, scheduled, failed, timers, children;
} fixtures[] = {
	{"a-clean-activity.catalyst.json", DIALECT_CATALYST, 9, 2, 0, 0, 0},
	{"a-clean-activity.proto.json", DIALECT_PROTOJSON, 9, 2, 0, 0, 0},
	{"b-retry-fail-fail-succeed.catalyst.json", DIALECT_CATALYST, 18, 3, 2, 2, 0},
	{"b-retry-fail-fail-succeed.dapr-cli.json", DIALECT_DAPR_CLI, 18, 3, 2, 2, 0},
	{"b-retry-fail-fail-succeed.proto.json", DIALECT_PROTOJSON, 18, 3, 2, 2, 0},
	{"c1-attempt-timeout-then-retry.catalyst.json", DIALECT_CATALYST, 12, 2, 1, 1, 0},
	{"c1-attempt-timeout-then-retry.proto.json", DIALECT_PROTOJSON, 12, 2, 1, 1, 0},
	{"c2-timer-race-recall-overlap.catalyst.json", DIALECT_CATALYST, 13, 2, 0, 2, 0},
	{"c2-timer-race-recall-overlap.proto.json", DIALECT_PROTOJSON, 13, 2, 0, 2, 0},
	{"d-child-retry.child-attempt1.catalyst.json", DIALECT_CATALYST, 6, 1, 1, 0, 0},
	{"d-child-retry.child-attempt1.proto.json", DIALECT_PROTOJSON, 6, 1, 1, 0, 0},
	{"d-child-retry.child-attempt2.catalyst.json", DIALECT_CATALYST, 6, 1, 0, 0, 0},
	{"d-child-retry.child-attempt2.proto.json", DIALECT_PROTOJSON, 6, 1, 0, 0, 0},
	{"d-child-retry.parent.catalyst.json", DIALECT_CATALYST, 12, 0, 0, 1, 2},
	{"d-child-retry.parent.proto.json", DIALECT_PROTOJSON, 12, 0, 0, 1, 2},
	{"e-continue-as-new.gen1-snapshot.catalyst.json", DIALECT_CATALYST, 6, 1, 0, 1, 0},
	{"e-continue-as-new.gen1-snapshot.proto.json", DIALECT_PROTOJSON, 6, 1, 0, 1, 0},
	{"e-continue-as-new.gen2.catalyst.json", DIALECT_CATALYST, 6, 1, 0, 1, 0},
	{"e-continue-as-new.gen2.proto.json", DIALECT_PROTOJSON, 6, 1, 0, 1, 0},
	{"f-crash-redelivery.catalyst.json", DIALECT_CATALYST, 6, 1, 0, 0, 0},
	{"f-crash-redelivery.proto.json", DIALECT_PROTOJSON, 6, 1, 0, 0, 0},
	{"f-legacy-duplicate-completion.proto.json", DIALECT_PROTOJSON, 11, 2, 0, 0, 0},
	{"g-logic-duplicate.catalyst.json", DIALECT_CATALYST, 9, 2, 0, 0, 0},
	{"g-logic-duplicate.proto.json", DIALECT_PROTOJSON, 9, 2, 0, 0, 0},
	{"h1-nonretryable-error-type.catalyst.json", DIALECT_CATALYST, 6, 1, 1, 0, 0},
	{"h1-nonretryable-error-type.proto.json", DIALECT_PROTOJSON, 6, 1, 1, 0, 0},
	{"h2-nonretriable-flag-dotnet.catalyst.json", DIALECT_CATALYST, 6, 0, 0, 0, 1},
	{"h2-nonretriable-flag-dotnet.proto.json", DIALECT_PROTOJSON, 6, 0, 0, 0, 1},
	{"hostile-escapes.catalyst.json", DIALECT_CATALYST, 12, 2, 1, 1, 0},
	{"d-cli-child-retry.go-1.18.dapr-cli.json", DIALECT_DAPR_CLI, 18, 0, 0, 2, 3},
	{"d-cli-child-retry.python-1.17.dapr-cli.json", DIALECT_DAPR_CLI, 18, 0, 0, 2, 3},
	{"d-cli-child-completed.go-1.18.dapr-cli.json", DIALECT_DAPR_CLI, 6, 0, 0, 0, 1},
	{"d-cli-child-fan-out.python-1.17.dapr-cli.json", DIALECT_DAPR_CLI, 26, 0, 0, 0, 10},
	{"g-cli-repeated-call-truncated-input.dapr-cli.json", DIALECT_DAPR_CLI, 9, 2, 0, 0, 0},
	{"j1-inner-failure-dotnet.catalyst.json", DIALECT_CATALYST, 12, 2, 1, 1, 0},
	{"j1-inner-failure-dotnet.proto.json", DIALECT_PROTOJSON, 12, 2, 1, 1, 0},
	{"j2-fetch-failed-js.proto.json", DIALECT_PROTOJSON, 12, 2, 1, 1, 0},
};

START_TEST(fixture_parses)
{
	const char *file = fixtures[_i].file;
	struct event_log *log = parse_fixture(file);
	ck_assert_msg(event_log_dialect(log) == fixtures[_i].dialect, "%s: dialect %s", file,
		      event_dialect_name(event_log_dialect(log)));
	ck_assert_uint_eq(event_log_count(log), fixtures[_i].count);
	ck_assert_uint_eq(count_kind(log, EVENT_TASK_SCHEDULED), fixtures[_i].scheduled);
	ck_assert_uint_eq(count_kind(log, EVENT_TASK_FAILED), fixtures[_i].failed);
	ck_assert_uint_eq(count_kind(log, EVENT_TIMER_CREATED), fixtures[_i].timers);
	ck_assert_uint_eq(count_kind(log, EVENT_CHILD_CREATED), fixtures[_i].children);
	/* Every event type and key in the fixtures is known. */
	const struct event_count *c;
	size_t nk = event_log_unknown_kinds(log, &c);
	ck_assert_msg(nk == 0, "%s: unknown kind %s", file, nk ? c[0].name : "");
	size_t nkeys = event_log_unknown_keys(log, &c);
	ck_assert_msg(nkeys == 0, "%s: unknown key %s", file, nkeys ? c[0].name : "");
	size_t prev = 0;
	for (size_t i = 0; i < event_log_count(log); i++) {
		const struct event *ev = at(log, i);
		ck_assert_msg(ev->kind != EVENT_UNKNOWN, "%s: event %zu unknown", file, i);
		ck_assert_ptr_nonnull(ev->timestamp);
		/* source_offset points at the event's '{', in order. */
		ck_assert_msg(i == 0 || ev->source_offset > prev, "%s: offsets", file);
		prev = ev->source_offset;
		/* At metadata level the Catalyst dialect drops payload keys. */
		if (fixtures[_i].dialect == DIALECT_CATALYST) {
			ck_assert_int_eq(ev->input.state, PAYLOAD_ABSENT);
			ck_assert_int_eq(ev->output.state, PAYLOAD_ABSENT);
		}
		if (ev->kind == EVENT_TASK_SCHEDULED && fixtures[_i].dialect != DIALECT_CATALYST)
			ck_assert_int_eq(ev->input.state, PAYLOAD_PRESENT);
		if (ev->kind == EVENT_TASK_SCHEDULED)
			ck_assert_msg(ev->name && ev->task_execution_id, "%s: event %zu", file, i);
	}
	size_t len;
	char *buf = fixture(file, &len);
	ck_assert_int_eq(buf[at(log, 1)->source_offset], '{');
	free(buf);
	event_log_free(log);
}
END_TEST

START_TEST(fixture_b_details)
{
	/* The retry scenario, field by field, in the Catalyst dialect. */
	struct event_log *log = parse_fixture("b-retry-fail-fail-succeed.catalyst.json");
	const char *x = "7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17";
	const struct event *ev = at(log, 1);
	ck_assert_int_eq(ev->kind, EVENT_EXECUTION_STARTED);
	ck_assert_str_eq(ev->name, "PaymentWorkflow");
	ck_assert_str_eq(ev->instance_id, "pay-20931");
	ck_assert_str_eq(ev->execution_id, "c2a9e471-0b3d-4f8e-9d16-58a0f7b3e2c9");
	ck_assert_int_eq(ev->event_id, -1);
	ev = at(log, 2);
	ck_assert_int_eq(ev->kind, EVENT_TASK_SCHEDULED);
	ck_assert_int_eq(ev->event_id, 0);
	ck_assert(ev->has_event_id);
	ck_assert_str_eq(ev->task_execution_id, x);
	ev = at(log, 4);
	ck_assert_int_eq(ev->kind, EVENT_TASK_FAILED);
	ck_assert_int_eq(ev->task_scheduled_id, 0);
	ck_assert(ev->has_task_scheduled_id);
	ck_assert_str_eq(ev->error_type, "ConnectionError");
	ck_assert_ptr_nonnull(strstr(ev->error_message, "Connection aborted"));
	ck_assert(ev->has_non_retriable);
	ck_assert(!ev->non_retriable);
	ev = at(log, 5);
	ck_assert_int_eq(ev->kind, EVENT_TIMER_CREATED);
	ck_assert_int_eq(ev->event_id, 1);
	ck_assert_int_eq(ev->origin, ORIGIN_ACTIVITY_RETRY);
	ck_assert_str_eq(ev->origin_id, x);
	ck_assert_str_eq(ev->fire_at, "2026-09-14T10:00:07.140Z");
	ev = at(log, 7);
	ck_assert_int_eq(ev->kind, EVENT_TIMER_FIRED);
	ck_assert_int_eq(ev->timer_id, 1);
	ck_assert(ev->has_timer_id);
	ev = at(log, 17);
	ck_assert_int_eq(ev->kind, EVENT_EXECUTION_COMPLETED);
	ck_assert_str_eq(ev->workflow_status, "ORCHESTRATION_STATUS_COMPLETED");
	event_log_free(log);
}
END_TEST

START_TEST(fixture_proto_zero_values_and_payloads)
{
	struct event_log *log = parse_fixture("b-retry-fail-fail-succeed.proto.json");
	const struct event *ev = at(log, 2);
	/* No eventId key: it is 0. */
	ck_assert_int_eq(ev->kind, EVENT_TASK_SCHEDULED);
	ck_assert_str_eq(ev->kind_name, "taskScheduled");
	ck_assert_int_eq(ev->event_id, 0);
	ck_assert(!ev->has_event_id);
	ck_assert_int_eq(ev->input.state, PAYLOAD_PRESENT);
	const char *in = "{\"paymentId\":\"p-20931\",\"amountCents\":4599,\"currency\":\"EUR\"}";
	ck_assert_uint_eq(ev->input.size, strlen(in));
	/* Same input, same hash; a different one differs. */
	ck_assert_uint_eq(ev->input.hash, at(log, 8)->input.hash);
	ck_assert_uint_ne(ev->input.hash, at(log, 1)->input.hash + 1);
	ev = at(log, 4);
	ck_assert_int_eq(ev->kind, EVENT_TASK_FAILED);
	/* taskScheduledId 0 omitted; isNonRetriable false omitted. */
	ck_assert_int_eq(ev->task_scheduled_id, 0);
	ck_assert(!ev->has_task_scheduled_id);
	ck_assert(!ev->has_non_retriable);
	ck_assert_str_eq(ev->error_type, "ConnectionError");
	ev = at(log, 16);
	ck_assert_int_eq(ev->kind, EVENT_TASK_COMPLETED);
	ck_assert_int_eq(ev->output.state, PAYLOAD_PRESENT);
	ck_assert_int_eq(ev->task_scheduled_id, 4);
	event_log_free(log);

	/* Before Dapr 1.18: orchestratorStarted, orchestrationInstance,
	 * orchestrationStatus. */
	log = parse_fixture("f-legacy-duplicate-completion.proto.json");
	ck_assert_int_eq(at(log, 0)->kind, EVENT_WORKFLOW_STARTED);
	ck_assert_str_eq(at(log, 0)->kind_name, "orchestratorStarted");
	ck_assert_str_eq(at(log, 1)->instance_id, "receipt-5490");
	ck_assert_ptr_nonnull(at(log, 1)->execution_id);
	ev = at(log, 10);
	ck_assert_int_eq(ev->kind, EVENT_EXECUTION_COMPLETED);
	ck_assert_str_eq(ev->workflow_status, "ORCHESTRATION_STATUS_COMPLETED");
	event_log_free(log);

	/* .NET's flag, inside failureDetails. */
	log = parse_fixture("h2-nonretriable-flag-dotnet.proto.json");
	ev = at(log, 4);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_FAILED);
	ck_assert(ev->has_non_retriable);
	ck_assert(ev->non_retriable);
	ck_assert_str_eq(ev->error_type, "System.InvalidOperationException");
	event_log_free(log);
}
END_TEST

START_TEST(fixture_child_retry)
{
	struct event_log *log = parse_fixture("d-child-retry.parent.proto.json");
	const struct event *ev = at(log, 5);
	ck_assert_int_eq(ev->kind, EVENT_TIMER_CREATED);
	ck_assert_int_eq(ev->origin, ORIGIN_CHILD_RETRY);
	ck_assert_str_eq(ev->origin_id, "order-7740:0000");
	ck_assert_str_eq(ev->name, "ShipOrder-retry");
	ev = at(log, 8);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_CREATED);
	ck_assert_str_eq(ev->instance_id, "order-7740:0002");
	ck_assert_str_eq(ev->retry_parent_instance_id, "order-7740:0000");
	ck_assert_int_eq(ev->event_id, 2);
	event_log_free(log);
}
END_TEST

START_TEST(fixture_dapr_cli)
{
	struct event_log *log = parse_fixture("b-retry-fail-fail-succeed.dapr-cli.json");
	const char *x = "7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17";
	ck_assert_str_eq(event_log_run_info(log)->app_id, "orders");
	const struct event *ev = at(log, 0);
	ck_assert_int_eq(ev->kind, EVENT_EXECUTION_STARTED);
	/* executionId is the workflow's on ExecutionStarted... */
	ck_assert_str_eq(ev->execution_id, "c2a9e471-0b3d-4f8e-9d16-58a0f7b3e2c9");
	ck_assert_ptr_null(ev->task_execution_id);
	ck_assert_int_eq(ev->input.state, PAYLOAD_PRESENT);
	ck_assert_int_eq(ev->event_id, -1);
	ck_assert(!ev->has_event_id);
	ev = at(log, 2);
	/* ...and the task's on task events. */
	ck_assert_int_eq(ev->kind, EVENT_TASK_SCHEDULED);
	ck_assert_str_eq(ev->task_execution_id, x);
	ck_assert_int_eq(ev->event_id, 0);
	ck_assert(ev->has_event_id);
	ev = at(log, 3);
	ck_assert_int_eq(ev->kind, EVENT_TASK_FAILED);
	ck_assert_int_eq(ev->task_scheduled_id, 0);
	ck_assert(ev->has_task_scheduled_id);
	ck_assert_str_eq(ev->error_type, "ConnectionError");
	ck_assert_str_eq(
		ev->error_message,
		"('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))");
	ev = at(log, 5);
	ck_assert_int_eq(ev->kind, EVENT_TIMER_CREATED);
	ck_assert_int_eq(ev->event_id, 1);
	ck_assert_int_eq(ev->origin, ORIGIN_ACTIVITY_RETRY);
	ck_assert_str_eq(ev->origin_id, x);
	ck_assert_str_eq(ev->fire_at, "2026-09-14T10:00:07Z");
	ev = at(log, 6);
	ck_assert_int_eq(ev->kind, EVENT_TIMER_FIRED);
	ck_assert_int_eq(ev->timer_id, 1);
	ev = at(log, 15);
	ck_assert_int_eq(ev->kind, EVENT_TASK_COMPLETED);
	ck_assert_int_eq(ev->task_scheduled_id, 4);
	ck_assert_int_eq(ev->output.state, PAYLOAD_PRESENT);
	ck_assert_uint_eq(ev->output.size, strlen("{\"chargeId\":\"ch_3PqL9a\",\"status\":\"succeeded\"}"));
	ev = at(log, 17);
	ck_assert_int_eq(ev->kind, EVENT_EXECUTION_COMPLETED);
	ck_assert_str_eq(ev->workflow_status, "COMPLETED");
	event_log_free(log);
}
END_TEST

START_TEST(dapr_cli_attrs_with_semicolons)
{
	/* input= runs to the next known key, even across ';' and '='. */
	struct event_log *log =
		parse_ok("[{\"type\":\"TaskCompleted\",\"executionId\":\"x1\","
			 "\"attrs\":\"scheduledId=7;output={\\\"a\\\":\\\"b;c=d\\\"};errorType=E;bogus=1\"}]");
	const struct event *ev = at(log, 0);
	ck_assert_int_eq(ev->task_scheduled_id, 7);
	ck_assert_int_eq(ev->output.state, PAYLOAD_PRESENT);
	ck_assert_uint_eq(ev->output.size, strlen("{\"a\":\"b;c=d\"}"));
	ck_assert_str_eq(ev->error_type, "E");
	ck_assert_str_eq(ev->task_execution_id, "x1");
	const struct event_count *c;
	ck_assert_uint_eq(event_log_unknown_keys(log, &c), 1);
	ck_assert_str_eq(c[0].name, "attrs.bogus");
	event_log_free(log);
}
END_TEST

/* `dapr workflow history` child rows, CLI 1.18 spelling (dapr/cli
 * pkg/workflow/history.go at v1.18.0): ChildWorkflowCreated prints its name
 * and an eventId only above 0, ChildWorkflowFailed prints nothing but its
 * type, and the retry timer's origin is in attrs and details. */
START_TEST(dapr_cli_child_rows_1_18)
{
	struct event_log *log = parse_fixture("d-cli-child-retry.go-1.18.dapr-cli.json");
	const struct event *ev = at(log, 1);
	ck_assert_int_eq(ev->kind, EVENT_EXECUTION_STARTED);
	/* Nil input: the CLI prints no input=, and that means none, not withheld. */
	ck_assert_int_eq(ev->input.state, PAYLOAD_NULL);
	ev = at(log, 2);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_CREATED);
	ck_assert_str_eq(ev->kind_name, "ChildWorkflowCreated");
	ck_assert_str_eq(ev->name, "Child");
	/* eventId 0 is left out: the first action. */
	ck_assert(!ev->has_event_id);
	ck_assert_int_eq(ev->event_id, 0);
	ck_assert_ptr_null(ev->instance_id);
	ck_assert_ptr_null(ev->retry_parent_instance_id);
	ck_assert_int_eq(ev->input.state, PAYLOAD_NULL);
	ev = at(log, 4);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_FAILED);
	ck_assert_str_eq(ev->kind_name, "ChildWorkflowFailed");
	ck_assert(!ev->has_task_scheduled_id);
	ck_assert_int_eq(ev->task_scheduled_id, -1);
	ck_assert_int_eq(ev->event_id, -1);
	ck_assert_ptr_null(ev->name);
	ck_assert_ptr_null(ev->error_message);
	ev = at(log, 5);
	ck_assert_int_eq(ev->kind, EVENT_TIMER_CREATED);
	ck_assert_int_eq(ev->event_id, 1);
	ck_assert_str_eq(ev->name, "Child-retry");
	ck_assert_int_eq(ev->origin, ORIGIN_CHILD_RETRY);
	/* The origin's id, never taken for the timer's own instance. */
	ck_assert_str_eq(ev->origin_id, "workflow_retries_child");
	ck_assert_ptr_null(ev->instance_id);
	ev = at(log, 8);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_CREATED);
	ck_assert(ev->has_event_id);
	ck_assert_int_eq(ev->event_id, 2);
	ev = at(log, 17);
	ck_assert_int_eq(ev->kind, EVENT_EXECUTION_COMPLETED);
	ck_assert_int_eq(ev->event_id, 5);
	ck_assert_str_eq(ev->workflow_status, "FAILED");
	ck_assert_str_eq(ev->error_type, "*errors.errorString");
	ck_assert_str_eq(ev->error_message, "task failed with an error: Child failed");
	ck_assert_int_eq(ev->output.state, PAYLOAD_NULL);
	event_log_free(log);
}
END_TEST

/* CLI 1.16-1.17 spelling: SubOrch* rows; no timer origins. */
START_TEST(dapr_cli_child_rows_suborch)
{
	struct event_log *log = parse_fixture("d-cli-child-retry.python-1.17.dapr-cli.json");
	const struct event *ev = at(log, 0);
	ck_assert_int_eq(ev->kind, EVENT_WORKFLOW_STARTED);
	ck_assert_str_eq(ev->kind_name, "OrchestratorStarted");
	ev = at(log, 2);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_CREATED);
	ck_assert_str_eq(ev->kind_name, "SubOrchCreated");
	ck_assert_str_eq(ev->name, "child_orchestrator_with_retry");
	ck_assert_int_eq(ev->event_id, 0);
	/* CLI 1.16 printed no payload on SubOrch rows: a missing one is unknown. */
	ck_assert_int_eq(ev->input.state, PAYLOAD_ABSENT);
	ev = at(log, 4);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_FAILED);
	ck_assert_int_eq(ev->task_scheduled_id, -1);
	ck_assert(!ev->has_task_scheduled_id);
	ev = at(log, 5);
	ck_assert_int_eq(ev->kind, EVENT_TIMER_CREATED);
	ck_assert_int_eq(ev->origin, ORIGIN_NONE);
	ck_assert_ptr_null(ev->origin_id);
	ck_assert_int_eq(ev->event_id, 1);
	ev = at(log, 7);
	ck_assert_int_eq(ev->kind, EVENT_TIMER_FIRED);
	ck_assert(ev->has_timer_id);
	ck_assert_int_eq(ev->timer_id, 1);
	ev = at(log, 17);
	ck_assert_str_eq(ev->error_type, "TaskFailedError");
	ck_assert_str_eq(ev->error_message,
			 "Sub-orchestration task #4 failed: Activity task #4 failed: Kah-BOOOOM!!!");
	event_log_free(log);

	/* Completions carry the scheduled id in details (CLI 1.17, 1.18). */
	log = parse_fixture("d-cli-child-fan-out.python-1.17.dapr-cli.json");
	ev = at(log, 13);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_COMPLETED);
	ck_assert_str_eq(ev->kind_name, "SubOrchCompleted");
	ck_assert(ev->has_task_scheduled_id);
	ck_assert_int_eq(ev->task_scheduled_id, 2);
	ck_assert_int_eq(ev->output.state, PAYLOAD_ABSENT);
	ck_assert_int_eq(at(log, 3)->event_id, 1);
	ck_assert_int_eq(at(log, 2)->event_id, 0);
	event_log_free(log);

	log = parse_fixture("d-cli-child-completed.go-1.18.dapr-cli.json");
	ev = at(log, 2);
	ck_assert_int_eq(ev->input.state, PAYLOAD_PRESENT);
	ck_assert_uint_eq(ev->input.size, strlen("Hello, world!")); /* the CLI unquotes */
	ck_assert(!ev->input.truncated);
	ev = at(log, 4);
	ck_assert_int_eq(ev->kind, EVENT_CHILD_COMPLETED);
	ck_assert(ev->has_task_scheduled_id);
	ck_assert_int_eq(ev->task_scheduled_id, 0);
	ck_assert_int_eq(ev->output.state, PAYLOAD_PRESENT);
	event_log_free(log);

	/* CLI 1.16: a SubOrchCompleted with no details names no scheduled id. */
	log = parse_ok(
		"[{\"appID\":\"a\",\"play\":1,\"type\":\"SubOrchCreated\",\"name\":\"C\","
		"\"eventId\":3,\"details\":null},"
		"{\"appID\":\"a\",\"play\":2,\"type\":\"SubOrchCompleted\",\"name\":null,\"details\":null}]");
	ck_assert_int_eq(at(log, 0)->event_id, 3);
	ck_assert_int_eq(at(log, 1)->kind, EVENT_CHILD_COMPLETED);
	ck_assert_int_eq(at(log, 1)->task_scheduled_id, -1);
	ck_assert(!at(log, 1)->has_task_scheduled_id);
	event_log_free(log);
}
END_TEST

/* The CLI cuts input=/output= at 120 runes (ExecutionCompleted output at
 * 160) and appends U+2026; a whole value may end in one too. */
START_TEST(dapr_cli_truncation)
{
	char a120[400], a121[400], e121[400], c161[400], c121[400];
	memset(a120, 'x', 119);
	strcpy(a120 + 119, "\xe2\x80\xa6"); /* 120 runes ending in an ellipsis: whole */
	memset(a121, 'x', 120);
	strcpy(a121 + 120, "\xe2\x80\xa6");
	size_t n = 0;
	for (int i = 0; i < 120; i++, n += 2)
		memcpy(e121 + n, "\xc3\xa9", 2); /* 120 two-byte runes */
	strcpy(e121 + n, "\xe2\x80\xa6");
	memset(c161, 'y', 160);
	strcpy(c161 + 160, "\xe2\x80\xa6");
	memset(c121, 'y', 120);
	strcpy(c121 + 120, "\xe2\x80\xa6");
	char *doc;
	ck_assert_int_ge(
		asprintf(&doc,
			 "[{\"type\":\"TaskScheduled\",\"name\":\"A\",\"eventId\":0,\"attrs\":\"input=%s\"},"
			 "{\"type\":\"TaskScheduled\",\"name\":\"A\",\"eventId\":1,\"attrs\":\"input=%s\"},"
			 "{\"type\":\"TaskScheduled\",\"name\":\"A\",\"eventId\":2,\"attrs\":\"input=%s\"},"
			 "{\"type\":\"ExecutionCompleted\",\"attrs\":\"output=%s\"},"
			 "{\"type\":\"ExecutionCompleted\",\"attrs\":\"output=%s\"},"
			 "{\"type\":\"TaskCompleted\",\"attrs\":\"scheduledId=0;output=%s\"}]",
			 a120, a121, e121, c121, c161, a121),
		0);
	struct event_log *log = parse_ok(doc);
	ck_assert(!at(log, 0)->input.truncated);
	ck_assert(at(log, 1)->input.truncated);
	ck_assert(at(log, 2)->input.truncated);
	ck_assert_uint_eq(at(log, 2)->input.size, 243);
	ck_assert(!at(log, 3)->output.truncated);
	ck_assert(at(log, 4)->output.truncated);
	ck_assert(at(log, 5)->output.truncated);
	ck_assert_int_eq(at(log, 5)->output.state, PAYLOAD_PRESENT);
	free(doc);
	event_log_free(log);

	/* Two inputs that differ only after the cut: same prefix, both flagged. */
	log = parse_fixture("g-cli-repeated-call-truncated-input.dapr-cli.json");
	const struct event *x = at(log, 2), *y = at(log, 5);
	ck_assert_int_eq(x->kind, EVENT_TASK_SCHEDULED);
	ck_assert_int_eq(y->kind, EVENT_TASK_SCHEDULED);
	ck_assert(x->input.truncated && y->input.truncated);
	ck_assert(payload_eq(&x->input, &y->input));
	ck_assert(!at(log, 4)->output.truncated);
	event_log_free(log);
}
END_TEST

/* Every attr key the CLI writes ends a free-text value before it, and the
 * ones the model carries are read; details give what attrs do not. */
START_TEST(dapr_cli_attr_keys_and_details)
{
	struct event_log *log = parse_ok(
		"[{\"type\":\"TaskFailed\",\"attrs\":\"scheduledId=3;errorType=E;errorMsg=a;b;nonRetriable=true\"},"
		"{\"type\":\"EventSent\",\"name\":\"ev\",\"eventId\":4,"
		"\"attrs\":\"eventName=ev;payload={\\\"k\\\":1};targetInstance=other\"},"
		"{\"type\":\"TimerCreated\",\"name\":\"T\",\"eventId\":5,"
		"\"details\":\"fireAt=2026-09-14T10:00:00Z,rerunParent=R1,origin=childWorkflowRetry(p:00,1)\"},"
		"{\"type\":\"TimerCreated\",\"name\":\"T\",\"eventId\":6,"
		"\"attrs\":\"timerName=T;fireAt=2026-09-14T10:00:00Z;origin=createTimer\"},"
		"{\"type\":\"ExecutionStarted\",\"name\":\"W\",\"details\":\"workflowStart,parent=P\","
		"\"attrs\":\"input=in;put;tags=a=b,c=d\"},"
		"{\"type\":\"TaskScheduled\",\"name\":\"A\",\"eventId\":0,\"details\":\"rerunParent=R2\"},"
		"{\"type\":\"TaskCompleted\",\"details\":\"eventId=9\"},"
		"{\"type\":\"WorkflowStarted\",\"attrs\":\"versionName=v2;versionPatches=p1,p2\"}]");
	const struct event *ev = at(log, 0);
	ck_assert_str_eq(ev->error_message, "a;b");
	ck_assert(ev->has_non_retriable && ev->non_retriable);
	ev = at(log, 1);
	ck_assert_int_eq(ev->input.state, PAYLOAD_PRESENT);
	ck_assert_uint_eq(ev->input.size, 7);
	ev = at(log, 2);
	ck_assert_int_eq(ev->origin, ORIGIN_CHILD_RETRY);
	ck_assert_str_eq(ev->origin_id, "p:00,1");
	ck_assert_str_eq(ev->rerun_parent_instance_id, "R1");
	ck_assert_ptr_null(ev->fire_at); /* from attrs only */
	ck_assert_int_eq(at(log, 3)->origin, ORIGIN_CREATE_TIMER);
	ck_assert_str_eq(at(log, 3)->fire_at, "2026-09-14T10:00:00Z");
	ev = at(log, 4);
	ck_assert_uint_eq(ev->input.size, 6); /* "in;put", up to ;tags= */
	ck_assert_str_eq(at(log, 5)->rerun_parent_instance_id, "R2");
	ck_assert(at(log, 6)->has_task_scheduled_id);
	ck_assert_int_eq(at(log, 6)->task_scheduled_id, 9);
	/* A non-action row without eventId is -1; an action row is 0. */
	ck_assert_int_eq(at(log, 6)->event_id, -1);
	ck_assert_int_eq(at(log, 7)->event_id, -1);
	const struct event_count *c;
	ck_assert_uint_eq(event_log_unknown_keys(log, &c), 0);
	event_log_free(log);
}
END_TEST

/* Catalyst and protojson versions of a scenario give the same history. */
static const char *const pairs[] = {
	"a-clean-activity",
	"b-retry-fail-fail-succeed",
	"c1-attempt-timeout-then-retry",
	"c2-timer-race-recall-overlap",
	"d-child-retry.child-attempt1",
	"d-child-retry.child-attempt2",
	"d-child-retry.parent",
	"e-continue-as-new.gen1-snapshot",
	"e-continue-as-new.gen2",
	"f-crash-redelivery",
	"g-logic-duplicate",
	"h1-nonretryable-error-type",
	"h2-nonretriable-flag-dotnet",
	"j1-inner-failure-dotnet",
};

static enum timer_origin origin_norm(enum timer_origin o)
{
	/* The flattened dialect has no key for an empty createTimer {}. */
	return o == ORIGIN_CREATE_TIMER ? ORIGIN_NONE : o;
}

START_TEST(catalyst_equals_proto)
{
	char a[256], b[256];
	snprintf(a, sizeof a, "%s.catalyst.json", pairs[_i]);
	snprintf(b, sizeof b, "%s.proto.json", pairs[_i]);
	struct event_log *la = parse_fixture(a), *lb = parse_fixture(b);
	ck_assert_uint_eq(event_log_count(la), event_log_count(lb));
	for (size_t i = 0; i < event_log_count(la); i++) {
		const struct event *x = at(la, i), *y = at(lb, i);
		ck_assert_msg(x->kind == y->kind, "%s event %zu: kind", pairs[_i], i);
		ck_assert_msg(x->event_id == y->event_id, "%s event %zu: event_id", pairs[_i], i);
		ck_assert_msg(x->task_scheduled_id == y->task_scheduled_id, "%s %zu: tsid", pairs[_i], i);
		ck_assert_msg(x->timer_id == y->timer_id, "%s %zu: timer_id", pairs[_i], i);
		ck_assert_msg(str_eq(x->task_execution_id, y->task_execution_id), "%s %zu: texid", pairs[_i], i);
		ck_assert_msg(origin_norm(x->origin) == origin_norm(y->origin), "%s %zu: origin", pairs[_i], i);
		ck_assert_msg(str_eq(x->origin_id, y->origin_id), "%s %zu: origin_id", pairs[_i], i);
		ck_assert_msg(str_eq(x->instance_id, y->instance_id), "%s %zu: instance", pairs[_i], i);
		ck_assert_msg(str_eq(x->execution_id, y->execution_id), "%s %zu: exec", pairs[_i], i);
		ck_assert_msg(str_eq(x->retry_parent_instance_id, y->retry_parent_instance_id),
			      "%s %zu: retry parent", pairs[_i], i);
		ck_assert_msg(str_eq(x->error_type, y->error_type), "%s %zu: error type", pairs[_i], i);
		ck_assert_msg(str_eq(x->error_message, y->error_message), "%s %zu: error msg", pairs[_i], i);
		ck_assert_msg(str_eq(x->cause_type, y->cause_type) && str_eq(x->cause_message, y->cause_message) &&
				      x->cause_depth == y->cause_depth,
			      "%s %zu: innermost cause", pairs[_i], i);
		ck_assert_msg(str_eq(x->workflow_status, y->workflow_status), "%s %zu: status", pairs[_i], i);
		ck_assert_msg(str_eq(x->timestamp, y->timestamp), "%s %zu: timestamp", pairs[_i], i);
		ck_assert_msg(str_eq(x->fire_at, y->fire_at), "%s %zu: fire_at", pairs[_i], i);
		ck_assert_msg(x->non_retriable == y->non_retriable, "%s %zu: nonretriable", pairs[_i], i);
		if (x->kind == EVENT_TASK_SCHEDULED || x->kind == EVENT_CHILD_CREATED)
			ck_assert_msg(str_eq(x->name, y->name), "%s %zu: name", pairs[_i], i);
	}
	event_log_free(la);
	event_log_free(lb);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Spellings, envelopes, payloads. */

static const char *const spellings[] = {
	"[{\"event_type\":\"TaskScheduled\",\"event_id\":4,\"name\":\"A\",\"task_execution_id\":\"x\"}]",
	"[{\"eventType\":\"taskScheduled\",\"eventId\":4,\"name\":\"A\",\"taskExecutionId\":\"x\"}]",
	"[{\"EventType\":\"TASK_SCHEDULED\",\"EventId\":4,\"Name\":\"A\",\"TaskExecutionID\":\"x\"}]",
	"[{\"EVENT_TYPE\":\"task_scheduled\",\"EVENT_ID\":4,\"NAME\":\"A\",\"TASK_EXECUTION_ID\":\"x\"}]",
	"[{\"event-type\":\"EVENT_TYPE_TASK_SCHEDULED\",\"event-id\":\"4\",\"name\":\"A\","
	"\"task-execution-id\":\"x\"}]",
	"{\"events\":[{\"eventId\":4,\"taskScheduled\":{\"name\":\"A\",\"taskExecutionId\":\"x\"}}]}",
	"[{\"type\":\"TaskScheduled\",\"eventId\":4,\"name\":\"A\",\"executionId\":\"x\"}]",
};

/* An integer field given as a string of digits (protojson's 64-bit
 * integers): read as strtoll reads it, accepted only when the whole
 * string is [-]digits; up to 18 digits without strtoll, 19 through it
 * (which saturates). */
static const char *const quoted_ints[] = {
	"0",
	"-0",
	"7",
	"007",
	"-12",
	"123456789012345678",
	"-123456789012345678",
	"1234567890123456789",
	"9223372036854775807",
	"9223372036854775808",
	"-9223372036854775809",
	"",
	"-",
	"+5",
	" 5",
	"5 ",
	"1e3",
	"0x10",
	"12a",
	"--1",
	"\\u0031",
};

START_TEST(quoted_integers_as_strtoll)
{
	const char *q = quoted_ints[_i];
	char doc[256];
	snprintf(doc, sizeof doc, "[{\"event_type\":\"TaskScheduled\",\"event_id\":\"%s\",\"name\":\"A\"}]", q);
	/* the reference: what the decoder did before it read digits itself */
	size_t n = strlen(q);
	char *end = NULL;
	long long ref = n ? strtoll(q, &end, 10) : 0;
	bool accepted = n > 0 && n < 20 && (q[0] == '-' || (q[0] >= '0' && q[0] <= '9')) && *end == '\0';
	struct err e;
	struct event_log *log = parse_str(doc, &e);
	if (accepted) {
		ck_assert_msg(log != NULL, "\"%s\": %s", q, e.msg);
		const struct event *ev = at(log, 0);
		ck_assert(ev->has_event_id);
		ck_assert_int_eq(ev->event_id, ref);
	} else {
		ck_assert_msg(log == NULL, "\"%s\" was taken as %" PRId64, q, at(log, 0)->event_id);
		ck_assert_msg(strstr(e.msg, "must be an integer"), "%s", e.msg);
	}
	event_log_free(log);
}
END_TEST

START_TEST(spelling_variants)
{
	struct event_log *log = parse_ok(spellings[_i]);
	ck_assert_uint_eq(event_log_count(log), 1);
	const struct event *ev = at(log, 0);
	ck_assert_int_eq(ev->kind, EVENT_TASK_SCHEDULED);
	ck_assert_int_eq(ev->event_id, 4);
	ck_assert_str_eq(ev->name, "A");
	ck_assert_str_eq(ev->task_execution_id, "x");
	ck_assert_uint_eq(event_log_unknown_keys(log, NULL), 0);
	event_log_free(log);
}
END_TEST

static const struct {
	const char *type;
	enum event_kind kind;
} type_names[] = {
	{"OrchestratorStarted", EVENT_WORKFLOW_STARTED},
	{"workflowStarted", EVENT_WORKFLOW_STARTED},
	{"SubOrchestrationInstanceCreated", EVENT_CHILD_CREATED},
	{"SubOrchestrationInstanceCompleted", EVENT_CHILD_COMPLETED},
	{"SubOrchestrationInstanceFailed", EVENT_CHILD_FAILED},
	{"CHILD_WORKFLOW_INSTANCE_CREATED", EVENT_CHILD_CREATED},
	{"childWorkflowInstanceFailed", EVENT_CHILD_FAILED},
	{"ExecutionTerminated", EVENT_EXECUTION_TERMINATED},
	{"executionSuspended", EVENT_EXECUTION_SUSPENDED},
	{"ExecutionResumed", EVENT_EXECUTION_RESUMED},
	{"ExecutionStalled", EVENT_EXECUTION_STALLED},
	{"ContinueAsNew", EVENT_CONTINUE_AS_NEW},
	{"OrchestratorCompleted", EVENT_WORKFLOW_COMPLETED},
	{"EventSent", EVENT_EVENT_SENT},
	{"event_raised", EVENT_EVENT_RAISED},
	{"GenericEvent", EVENT_GENERIC},
	{"HistoryState", EVENT_HISTORY_STATE},
	{"TimerFired", EVENT_TIMER_FIRED},
	{"ExecutionRewound", EVENT_UNKNOWN},
};

START_TEST(type_name_variants)
{
	char doc[256];
	snprintf(doc, sizeof doc, "[{\"event_type\":\"TaskScheduled\"},{\"event_type\":\"%s\"}]",
		 type_names[_i].type);
	struct event_log *log = parse_ok(doc);
	const struct event *ev = at(log, 1);
	ck_assert_int_eq(ev->kind, type_names[_i].kind);
	ck_assert_str_eq(ev->kind_name, type_names[_i].type);
	event_log_free(log);

	/* The same as a protojson oneof key. */
	snprintf(doc, sizeof doc, "{\"events\":[{\"taskScheduled\":{}},{\"%s\":{}}]}", type_names[_i].type);
	log = parse_ok(doc);
	ck_assert_int_eq(at(log, 1)->kind, type_names[_i].kind);
	ck_assert_int_eq(event_log_dialect(log), DIALECT_PROTOJSON);
	event_log_free(log);
}
END_TEST

START_TEST(protojson_timer_origins)
{
	struct event_log *log = parse_ok(
		"{\"events\":["
		"{\"eventId\":1,\"timerCreated\":{\"fireAt\":\"t\",\"activityRetry\":{\"taskExecutionId\":\"a\"}}},"
		"{\"eventId\":2,\"timerCreated\":{\"fireAt\":\"t\",\"childWorkflowRetry\":{\"instanceId\":\"c\"}}},"
		"{\"eventId\":3,\"timerCreated\":{\"fireAt\":\"t\",\"createTimer\":{}}},"
		"{\"eventId\":4,\"timerCreated\":{\"fireAt\":\"t\",\"externalEvent\":{\"name\":\"go\"}}},"
		"{\"eventId\":5,\"timerCreated\":{\"fireAt\":\"t\"}},"
		"{\"timerFired\":{\"fireAt\":\"t\"}}"
		"]}");
	ck_assert_int_eq(at(log, 0)->origin, ORIGIN_ACTIVITY_RETRY);
	ck_assert_str_eq(at(log, 0)->origin_id, "a");
	ck_assert_int_eq(at(log, 1)->origin, ORIGIN_CHILD_RETRY);
	ck_assert_str_eq(at(log, 1)->origin_id, "c");
	ck_assert_int_eq(at(log, 2)->origin, ORIGIN_CREATE_TIMER);
	ck_assert_int_eq(at(log, 3)->origin, ORIGIN_EXTERNAL_EVENT);
	ck_assert_str_eq(at(log, 3)->origin_id, "go");
	ck_assert_int_eq(at(log, 4)->origin, ORIGIN_NONE);
	/* timerId 0 omitted. */
	ck_assert_int_eq(at(log, 5)->timer_id, 0);
	ck_assert(!at(log, 5)->has_timer_id);
	ck_assert_uint_eq(event_log_unknown_keys(log, NULL), 0);
	event_log_free(log);
}
END_TEST

START_TEST(catalyst_origin_and_parent_spellings)
{
	struct event_log *log =
		parse_ok("[{\"event_type\":\"TimerCreated\",\"origin__child_workflow_retry_instance_id\":\"c1\"},"
			 "{\"event_type\":\"TimerCreated\",\"originActivityRetryTaskExecutionId\":\"a1\"},"
			 "{\"event_type\":\"ChildWorkflowInstanceCreated\",\"instance_id\":\"c2\","
			 "\"retry_parent_instance_info_instance_id\":\"c1\","
			 "\"rerunParentInstanceInfoInstanceID\":\"src\"},"
			 "{\"event_type\":\"ExecutionStarted\",\"rerun_parent_instance_instance_id\":\"r\"}]");
	ck_assert_int_eq(at(log, 0)->origin, ORIGIN_CHILD_RETRY);
	ck_assert_str_eq(at(log, 0)->origin_id, "c1");
	ck_assert_int_eq(at(log, 1)->origin, ORIGIN_ACTIVITY_RETRY);
	ck_assert_str_eq(at(log, 1)->origin_id, "a1");
	ck_assert_str_eq(at(log, 2)->instance_id, "c2");
	ck_assert_str_eq(at(log, 2)->retry_parent_instance_id, "c1");
	ck_assert_str_eq(at(log, 2)->rerun_parent_instance_id, "src");
	ck_assert_str_eq(at(log, 3)->rerun_parent_instance_id, "r");
	event_log_free(log);
}
END_TEST

static const char *const envelope_forms[] = {
	/* bare array */
	"[{\"event_type\":\"TaskScheduled\",\"event_id\":0,\"task_execution_id\":\"x\"},"
	"{\"event_type\":\"TaskCompleted\",\"task_scheduled_id\":0,\"task_execution_id\":\"x\"}]",
	/* {"events": [...]} */
	"{\"events\":[{\"event_type\":\"TaskScheduled\",\"event_id\":0,\"task_execution_id\":\"x\"},"
	"{\"event_type\":\"TaskCompleted\",\"task_scheduled_id\":0,\"task_execution_id\":\"x\"}]}",
	/* nested at depth 3 inside a run document, after other arrays */
	"{\"tags\":[\"a\",{\"b\":[1,2]}],\"result\":{\"run\":{\"history\":"
	"[{\"event_type\":\"TaskScheduled\",\"event_id\":0,\"task_execution_id\":\"x\"},"
	"{\"event_type\":\"TaskCompleted\",\"task_scheduled_id\":0,\"task_execution_id\":\"x\"}]}},"
	"\"trailer\":[[],{}]}",
};

START_TEST(envelope_forms_agree)
{
	struct event_log *log = parse_ok(envelope_forms[_i]);
	ck_assert_uint_eq(event_log_count(log), 2);
	ck_assert_int_eq(at(log, 0)->kind, EVENT_TASK_SCHEDULED);
	ck_assert_int_eq(at(log, 1)->kind, EVENT_TASK_COMPLETED);
	ck_assert_str_eq(at(log, 1)->task_execution_id, "x");
	ck_assert_int_eq(event_log_dialect(log), DIALECT_CATALYST);
	event_log_free(log);
}
END_TEST

START_TEST(envelope_run_fields)
{
	const char *doc = "{\"_meta\":{\"dataSharingLevel\":\"metadata\"},"
			  "\"instanceID\":\"pay-1\",\"appId\":\"orders\",\"workflowName\":\"PayWf\","
			  "\"runtimeStatus\":\"COMPLETED\",\"project\":\"prod\","
			  "\"data\":{\"run\":{\"events\":["
			  "{\"eventType\":\"ExecutionStarted\",\"name\":\"PayWf\"},"
			  "{\"eventType\":\"TaskScheduled\",\"name\":\"Charge\",\"input\":\"{}\"}]}}}";
	struct event_log *log = parse_ok(doc);
	ck_assert_uint_eq(event_log_count(log), 2);
	const struct event_run_info *ri = event_log_run_info(log);
	ck_assert_str_eq(ri->instance_id, "pay-1");
	ck_assert_str_eq(ri->app_id, "orders");
	ck_assert_str_eq(ri->workflow_name, "PayWf");
	ck_assert_str_eq(ri->runtime_status, "COMPLETED");
	ck_assert_str_eq(ri->project, "prod");
	ck_assert_str_eq(ri->data_sharing_level, "metadata");
	ck_assert_str_eq(ri->data_sharing_field, "dataSharingLevel");
	event_log_free(log);

	log = parse_ok("{\"data_sharing_level\":\"full\",\"name\":\"W\",\"status\":\"FAILED\","
		       "\"events\":[{\"event_type\":\"WorkflowStarted\"}]}");
	ri = event_log_run_info(log);
	ck_assert_str_eq(ri->data_sharing_level, "full");
	ck_assert_str_eq(ri->data_sharing_field, "data_sharing_level");
	ck_assert_str_eq(ri->workflow_name, "W");
	ck_assert_str_eq(ri->runtime_status, "FAILED");
	ck_assert_ptr_null(ri->instance_id);
	event_log_free(log);
}
END_TEST

START_TEST(payload_states)
{
	struct event_log *log =
		parse_ok("[{\"event_type\":\"TaskScheduled\"},"
			 "{\"event_type\":\"TaskScheduled\",\"input\":null},"
			 "{\"event_type\":\"TaskScheduled\",\"input\":\"\"},"
			 "{\"event_type\":\"TaskScheduled\",\"input\":\"{\\\"a\\\":1}\"},"
			 "{\"event_type\":\"TaskScheduled\",\"input\":{}},"
			 "{\"event_type\":\"TaskScheduled\",\"input\":{\"a\":1}},"
			 "{\"event_type\":\"TaskCompleted\",\"result\":\"\\u00e9\"},"
			 "{\"event_type\":\"TaskCompleted\",\"output\":\"x\",\"custom_status\":\"s\"},"
			 "{\"event_type\":\"TaskCompleted\",\"customStatus\":[]}]");
	ck_assert_int_eq(at(log, 0)->input.state, PAYLOAD_ABSENT);
	ck_assert_int_eq(at(log, 1)->input.state, PAYLOAD_NULL);
	ck_assert_int_eq(at(log, 2)->input.state, PAYLOAD_EMPTY);
	ck_assert_int_eq(at(log, 3)->input.state, PAYLOAD_PRESENT);
	ck_assert_uint_eq(at(log, 3)->input.size, 7); /* {"a":1} unescaped */
	ck_assert_int_eq(at(log, 4)->input.state, PAYLOAD_EMPTY);
	ck_assert_int_eq(at(log, 5)->input.state, PAYLOAD_PRESENT);
	ck_assert_uint_eq(at(log, 5)->input.size, 7);
	/* An object payload's text hashes like the same text in a string. */
	ck_assert_uint_eq(at(log, 5)->input.hash, at(log, 3)->input.hash);
	ck_assert_int_eq(at(log, 6)->output.state, PAYLOAD_PRESENT);
	ck_assert_uint_eq(at(log, 6)->output.size, 2); /* UTF-8 e-acute */
	ck_assert_int_eq(at(log, 7)->output.state, PAYLOAD_PRESENT);
	ck_assert_int_eq(at(log, 7)->custom_status.state, PAYLOAD_PRESENT);
	ck_assert_int_eq(at(log, 8)->custom_status.state, PAYLOAD_EMPTY);
	ck_assert_int_eq(at(log, 8)->output.state, PAYLOAD_ABSENT);
	event_log_free(log);
}
END_TEST

/* --show-payloads: each present payload's first EVENT_PAYLOAD_TEXT_MAX
 * bytes, as its hash was taken (a string unescaped, an object as written),
 * cut at a whole character, kept only when asked and after the events go. */
START_TEST(payload_texts_kept_only_when_asked)
{
	/* 1023 'a', an e-acute across byte 1024, then 'b's. */
	char big[2100];
	memset(big, 'a', 1023);
	memcpy(big + 1023, "\xc3\xa9", 2);
	memset(big + 1025, 'b', 1000);
	big[2025] = '\0';
	char doc[4096];
	snprintf(doc, sizeof doc,
		 "[{\"event_type\":\"TaskScheduled\",\"input\":\"{\\\"order\\\":\\\"o-1\\\"}\"},"
		 "{\"event_type\":\"TaskScheduled\",\"input\":{\"order\": \"o-1\"}},"
		 "{\"event_type\":\"TaskScheduled\",\"input\":\"{\\\"order\\\":\\\"o-1\\\"}\"},"
		 "{\"event_type\":\"TaskCompleted\",\"result\":\"%s\"},"
		 "{\"event_type\":\"TaskCompleted\",\"result\":null}]",
		 big);
	struct err e;
	err_clear(&e);
	struct event_log *plain = event_log_parse(doc, strlen(doc), &e);
	ck_assert_ptr_nonnull(plain);
	ck_assert(!event_log_keeps_payload_text(plain));
	ck_assert_ptr_null(event_log_payload_text(plain, &at(plain, 0)->input, NULL, NULL));
	struct event_log *log =
		event_log_parse_opts(doc, strlen(doc), &(struct event_parse_options){.payload_text = true}, &e);
	ck_assert_msg(log != NULL, "%s", e.msg);
	ck_assert(event_log_keeps_payload_text(log));
	struct event ev[5];
	for (size_t i = 0; i < 5; i++)
		ck_assert(event_log_get(log, i, &ev[i]));
	event_log_drop_events(log); /* the report reads them after the analysis */
	size_t len;
	bool cut;
	const char *t = event_log_payload_text(log, &ev[0].input, &len, &cut);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t, "{\"order\":\"o-1\"}");
	ck_assert(!cut);
	/* Identical payloads share one text. */
	ck_assert_ptr_eq(event_log_payload_text(log, &ev[2].input, NULL, NULL), t);
	t = event_log_payload_text(log, &ev[1].input, &len, &cut);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t, "{\"order\": \"o-1\"}");
	t = event_log_payload_text(log, &ev[3].output, &len, &cut);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(len, 1023);
	ck_assert(cut);
	ck_assert_uint_eq(ev[3].output.size, 2025);
	ck_assert_ptr_null(event_log_payload_text(log, &ev[4].output, NULL, NULL));
	event_log_free(log);
	event_log_free(plain);
	/* A tool answer (an already decoded document) the same. */
	json_t *j = json_loads(doc, 0, NULL);
	ck_assert_ptr_nonnull(j);
	log = event_log_from_json_opts(j, &(struct event_parse_options){.payload_text = true}, &e);
	ck_assert_ptr_nonnull(log);
	t = event_log_payload_text(log, &at(log, 1)->input, &len, &cut);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t, "{\"order\":\"o-1\"}"); /* jansson's compact form, as hashed */
	event_log_free(log);
	json_decref(j);
}
END_TEST

/* The .NET SDK's exception chain, failureDetails.innerFailure, nested in
 * protojson and flattened by Catalyst (failure_details_inner_failure_*): the
 * innermost level's type and message are kept, with its depth. */
START_TEST(inner_failure_innermost_is_kept)
{
	static const char *const docs[] = {
		/* protojson, nested; the outer keys after the inner ones. */
		"{\"events\":[{\"taskFailed\":{\"taskScheduledId\":4,\"failureDetails\":{"
		"\"innerFailure\":{\"errorType\":\"System.IO.IOException\",\"errorMessage\":\"Unable to read\","
		"\"innerFailure\":{\"errorType\":\"System.Net.Sockets.SocketException\","
		"\"errorMessage\":\"forcibly closed\",\"stackTrace\":\"at X\"}},"
		"\"errorType\":\"System.Net.Http.HttpRequestException\",\"errorMessage\":\"sending\"}}}]}",
		/* Catalyst, flattened snake_case; the deepest key first. */
		"[{\"event_type\":\"TaskFailed\",\"task_scheduled_id\":4,"
		"\"failure_details_inner_failure_inner_failure_error_message\":\"forcibly closed\","
		"\"failure_details_inner_failure_error_type\":\"System.IO.IOException\","
		"\"failure_details_inner_failure_error_message\":\"Unable to read\","
		"\"failure_details_inner_failure_inner_failure_error_type\":\"System.Net.Sockets.SocketException\","
		"\"failure_details_inner_failure_inner_failure_stack_trace\":\"at X\","
		"\"failure_details_error_type\":\"System.Net.Http.HttpRequestException\","
		"\"failure_details_error_message\":\"sending\"}]",
		/* camelCase and PascalCase flattenings. */
		"[{\"eventType\":\"TaskFailed\",\"taskScheduledId\":4,"
		"\"failureDetailsErrorType\":\"System.Net.Http.HttpRequestException\","
		"\"failureDetailsErrorMessage\":\"sending\","
		"\"FailureDetailsInnerFailureInnerFailureErrorType\":\"System.Net.Sockets.SocketException\","
		"\"FailureDetailsInnerFailureInnerFailureErrorMessage\":\"forcibly closed\","
		"\"failureDetailsInnerFailureErrorType\":\"System.IO.IOException\"}]",
	};
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		struct event_log *log = parse_ok(docs[i]);
		const struct event *ev = at(log, 0);
		ck_assert_int_eq(ev->kind, EVENT_TASK_FAILED);
		ck_assert_str_eq(ev->error_type, "System.Net.Http.HttpRequestException");
		ck_assert_str_eq(ev->error_message, "sending");
		ck_assert_str_eq(ev->cause_type, "System.Net.Sockets.SocketException");
		ck_assert_str_eq(ev->cause_message, "forcibly closed");
		ck_assert_uint_eq(ev->cause_depth, 2);
		ck_assert_uint_eq(event_log_unknown_keys(log, NULL), 0);
		event_log_free(log);
	}

	/* No inner failure, or one without a type or message (null is no
	 * value): nothing recorded. A level with only a type keeps the
	 * message absent, not empty. */
	struct event_log *log = parse_ok(
		"[{\"event_type\":\"TaskFailed\",\"failure_details_error_type\":\"E\"},"
		"{\"event_type\":\"TaskFailed\",\"failure_details_inner_failure_error_type\":null,"
		"\"failure_details_inner_failure_stack_trace\":\"at X\"},"
		"{\"event_type\":\"TaskFailed\",\"failure_details_inner_failure_error_type\":\"Inner\"}]");
	ck_assert_ptr_null(at(log, 0)->cause_type);
	ck_assert_ptr_null(at(log, 0)->cause_message);
	ck_assert_uint_eq(at(log, 0)->cause_depth, 0);
	ck_assert_ptr_null(at(log, 1)->cause_type);
	ck_assert_uint_eq(at(log, 1)->cause_depth, 0);
	ck_assert_str_eq(at(log, 2)->cause_type, "Inner");
	ck_assert_ptr_null(at(log, 2)->cause_message);
	ck_assert_uint_eq(at(log, 2)->cause_depth, 1);
	event_log_free(log);

	/* A chain deeper than the parser reads (four levels): the deepest
	 * level read is kept and the rest is counted as an unknown key, not
	 * dropped silently. */
	log = parse_ok("{\"events\":[{\"taskFailed\":{\"failureDetails\":{\"errorType\":\"L0\","
		       "\"innerFailure\":{\"errorType\":\"L1\",\"innerFailure\":{\"errorType\":\"L2\","
		       "\"innerFailure\":{\"errorType\":\"L3\",\"innerFailure\":{\"errorType\":\"L4\","
		       "\"innerFailure\":{\"errorType\":\"L5\"}}}}}}}}]}");
	ck_assert_str_eq(at(log, 0)->cause_type, "L4");
	ck_assert_uint_eq(at(log, 0)->cause_depth, 4);
	ck_assert_uint_eq(event_log_unknown_keys(log, NULL), 1);
	event_log_free(log);
}
END_TEST

START_TEST(unknowns_are_counted)
{
	struct event_log *log = parse_ok("[{\"event_type\":\"TaskScheduled\",\"shiny_new_key\":1,\"other\":\"x\"},"
					 "{\"event_type\":\"ExecutionRewound\",\"shiny_new_key\":2},"
					 "{\"event_type\":\"ExecutionRewound\",\"nested\":{\"deep\":true}},"
					 "{\"event_id\":3}]");
	ck_assert_uint_eq(event_log_count(log), 4);
	ck_assert_int_eq(at(log, 1)->kind, EVENT_UNKNOWN);
	ck_assert_str_eq(at(log, 1)->kind_name, "ExecutionRewound");
	ck_assert_int_eq(at(log, 3)->kind, EVENT_UNKNOWN);
	const struct event_count *c;
	size_t n = event_log_unknown_kinds(log, &c);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(c[0].name, "ExecutionRewound");
	ck_assert_uint_eq(c[0].count, 2);
	ck_assert_uint_eq(c[1].count, 1);
	n = event_log_unknown_keys(log, &c);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(c[0].name, "shiny_new_key");
	ck_assert_uint_eq(c[0].count, 2);
	ck_assert_str_eq(c[1].name, "other");
	ck_assert_str_eq(c[2].name, "nested.deep");
	event_log_free(log);

	/* A long oneof key next to another object member. */
	log = parse_ok("{\"events\":[{\"subOrchestrationInstanceCompleted\":{\"taskScheduledId\":3},"
		       "\"router\":{\"sourceAppID\":\"a\"},\"extra\":{\"x\":1}}]}");
	ck_assert_int_eq(at(log, 0)->kind, EVENT_CHILD_COMPLETED);
	ck_assert_int_eq(at(log, 0)->task_scheduled_id, 3);
	ck_assert_uint_eq(event_log_unknown_keys(log, &c), 1);
	ck_assert_str_eq(c[0].name, "extra.x");
	event_log_free(log);

	/* An unknown protojson oneof: its key is the kind name. */
	log = parse_ok(
		"{\"events\":[{\"taskScheduled\":{}},{\"eventId\":2,\"executionRewound\":{\"reason\":\"r\"}}]}");
	ck_assert_int_eq(at(log, 1)->kind, EVENT_UNKNOWN);
	ck_assert_str_eq(at(log, 1)->kind_name, "executionRewound");
	ck_assert_uint_eq(event_log_unknown_kinds(log, NULL), 1);
	event_log_free(log);
}
END_TEST

START_TEST(empty_lists)
{
	struct event_log *log = parse_ok("[]");
	ck_assert_uint_eq(event_log_count(log), 0);
	event_log_free(log);
	log = parse_ok("{\"events\": [ ], \"instanceId\": \"i\"}");
	ck_assert_uint_eq(event_log_count(log), 0);
	ck_assert_str_eq(event_log_run_info(log)->instance_id, "i");
	event_log_free(log);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Bad input. */

static const struct {
	const char *doc;
	const char *msg; /* a substring of the message */
} bad_inputs[] = {
	{"", "empty input"},
	{"   \n", "empty input"},
	{"hello", "not JSON at byte 0"},
	{"{\"a\":1", "truncated"},
	{"[{\"event_type\":\"TaskScheduled\"},{\"event_type\":\"Task", "truncated"},
	{"[{\"event_type\":\"TaskScheduled\"}", "truncated"},
	{"{\"a\": [1, 2, 3], \"b\": {\"c\": \"d\"}}", "no event list found"},
	{"42", "no event list found"},
	{"[{\"event_type\":\"TaskScheduled\",\"event_id\":\"x\"}]", "\"event_id\" must be an integer"},
	{"[{\"event_type\":\"TaskScheduled\",\"task_execution_id\":5}]", "\"task_execution_id\" must be a string"},
	{"[{\"event_type\":\"TaskFailed\",\"failure_details_is_non_retriable\":\"maybe\"}]", "must be a boolean"},
	{"[{\"event_type\":\"TaskScheduled\",\"event_id\":1.5}]", "must be an integer"},
	{"{\"events\":[{\"eventId\":1,\"taskScheduled\":{\"taskExecutionId\":[1]}}]}", "must be a string"},
	{"[{\"event_type\":\"TaskScheduled\"}, 7]", "event 1 at byte 33 is a number"},
	{"[{\"event_type\":\"TaskScheduled\"}] x", "data after the end"},
	{"[{\"event_type\":\"TaskScheduled\"}}", "expected ',' or ']'"},
	{"[{\"event_type\":\"Task\\x\"}]", "invalid escape"},
	{"[{\"event_type\":\"a\tb\"}]", "control character"},
	{"[{\"event_type\":\"\xff\"}]", "invalid UTF-8"},
	/* strict UTF-8: overlong, an encoded surrogate, past U+10FFFF, cut short */
	{"[{\"event_type\":\"\xc0\xaf\"}]", "invalid UTF-8"},
	{"[{\"event_type\":\"\xed\xa0\x80\"}]", "invalid UTF-8"},
	{"[{\"event_type\":\"\xf4\x90\x80\x80\"}]", "invalid UTF-8"},
	{"[{\"event_type\":\"\xe2\x82\"}]", "invalid UTF-8"},
	{"[{\"event_type\":\"\\u0000\"}]", "\\u0000"},
	{"[{\"event_type\":\"\\ud800\"}]", "surrogate"},
	{"[{\"event_type\":\"TaskScheduled\",\"event_id\":01}]", "expected ',' or '}'"},
	{"[{\"event_type\":\"TaskScheduled\",\"event_id\":-}]", "invalid number"},
	{"[{\"event_type\":\"TaskScheduled\",\"x\":tru}]", "invalid value"},
	{"[{\"event_type\":\"TaskScheduled\",\"x\":tr", "truncated"},
	{"{\"events\":[{\"event_type\":\"TaskScheduled\"}],}", "expected a string key"},
};

START_TEST(bad_input_rejected)
{
	struct err e;
	struct event_log *log = parse_str(bad_inputs[_i].doc, &e);
	ck_assert_msg(log == NULL, "accepted: %s", bad_inputs[_i].doc);
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_msg(strstr(e.msg, bad_inputs[_i].msg), "message \"%s\" lacks \"%s\"", e.msg, bad_inputs[_i].msg);
	ck_assert_msg(strstr(e.msg, "byte"), "no byte position: %s", e.msg);
}
END_TEST

/* The scanner's integers against jansson's, both sides of every shortcut
 * (up to 18 digits without an overflow check, then the full grammar): the
 * same value where jansson reads an integer, a refusal where it reads a
 * real or refuses the text. */
static const char *const number_texts[] = {
	"0",
	"-0",
	"7",
	"-1",
	"10",
	"99999",
	"123456789012345678",
	"-123456789012345678",
	"999999999999999999",
	"1000000000000000000",
	"-1000000000000000000",
	"1234567890123456789",
	"9223372036854775807",
	"-9223372036854775808",
	"9223372036854775808",
	"-9223372036854775809",
	"18446744073709551616",
	"1.5",
	"1e3",
	"1E+2",
	"-2e-1",
	"12.0",
	"0.0",
	"123456789012345678.5",
	"123456789012345678e1",
	"01",
	"-01",
	"00",
	"-",
	"1.",
	"1e",
	"--1",
	"1-",
	"+1",
};

/* One history is at most EVENT_INPUT_MAX bytes from a buffer too (a
 * server's answer), as from a file: payload sizes are 32-bit. The bytes
 * are never read: the length alone refuses them. */
/* The numbers of a log's interned strings (event_log_str_ord, by which the
 * scan keeps execution ids): each below the count, one string a number and
 * one number a string, in every dialect and in a log joined from two
 * halves. Returns how many strings were met. */
static size_t check_str_ords(const struct event_log *log)
{
	size_t count = event_log_str_count(log), met = 0;
	const char **by_ord = calloc(count ? count : 1, sizeof *by_ord);
	ck_assert_ptr_nonnull(by_ord);
	for (size_t i = 0; i < event_log_count(log); i++) {
		const struct event *ev = at(log, i);
		const char *const fields[] = {ev->name,         ev->task_execution_id, ev->origin_id,
					      ev->instance_id,  ev->execution_id,      ev->error_type,
					      ev->error_message};
		for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
			const char *s = fields[f];
			if (!s)
				continue;
			uint32_t ord = event_log_str_ord(s);
			ck_assert_msg(ord < count, "event %zu: \"%s\" numbered %u of %zu", i, s, ord, count);
			if (!by_ord[ord]) {
				by_ord[ord] = s;
				met++;
			}
			ck_assert_msg(by_ord[ord] == s, "event %zu: \"%s\" and \"%s\" both numbered %u", i,
				      by_ord[ord], s, ord);
		}
	}
	free(by_ord);
	return met;
}

static const char *const ord_fixtures[] = {
	"b-retry-fail-fail-succeed.catalyst.json", "b-retry-fail-fail-succeed.proto.json",
	"b-retry-fail-fail-succeed.dapr-cli.json", "c2-timer-race-recall-overlap.catalyst.json",
	"d-child-retry.parent.catalyst.json",      "k6-cli-table-short.cli-1.18.txt",
};

START_TEST(str_ords_one_per_string)
{
	struct event_log *log = parse_fixture(ord_fixtures[_i]);
	ck_assert_msg(check_str_ords(log) > 0, "%s", ord_fixtures[_i]);
	event_log_free(log);
}
END_TEST

START_TEST(buffer_over_input_max_refused)
{
	size_t len = (size_t)EVENT_INPUT_MAX + 1;
	char *buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ck_assert(buf != MAP_FAILED);
	struct err e;
	err_clear(&e);
	ck_assert_ptr_null(event_log_parse(buf, len, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_msg(strstr(e.msg, "input over 1024 MiB"), "%s", e.msg);
	munmap(buf, len);
}
END_TEST

START_TEST(numbers_as_jansson_reads_them)
{
	const char *n = number_texts[_i];
	char doc[256];
	snprintf(doc, sizeof doc, "[{\"event_type\":\"TaskScheduled\",\"event_id\":%s,\"name\":\"A\"}]", n);
	char arr[64];
	snprintf(arr, sizeof arr, "[%s]", n);
	json_error_t je;
	json_t *j = json_loads(arr, 0, &je);
	struct err e;
	struct event_log *log = parse_str(doc, &e);
	if (j && json_is_integer(json_array_get(j, 0))) {
		ck_assert_msg(log != NULL, "%s refused: %s", n, e.msg);
		const struct event *ev = at(log, 0);
		ck_assert_msg(ev->event_id == (int64_t)json_integer_value(json_array_get(j, 0)), "%s read as %lld",
			      n, (long long)ev->event_id);
	} else {
		ck_assert_msg(log == NULL, "%s accepted as an event id", n);
	}
	event_log_free(log);
	json_decref(j);
}
END_TEST

/* A key named twice in one object is refused, naming the byte of the second
 * (and of the first), wherever the object is: the event, an object the
 * decoder flattens, a payload it skips, an array inside an event, the
 * envelope, and what follows the event list. Keys compare after unescaping.
 * The marker "@" stands before the first and "#" before the second
 * occurrence; both are removed before parsing. */
static const char *const duplicate_docs[] = {
	"[{\"event_type\":\"TaskScheduled\",@\"name\":\"A\",#\"name\":\"B\"}]",
	"[{@\"name\":\"A\",\"event_type\":\"TaskScheduled\",\"event_id\":1,#\"name\":\"B\"}]",
	"[{\"event_type\":\"X\"},\n {\"event_type\":\"TaskScheduled\",@\"task_execution_id\":\"a\","
	"#\"task_execution_id\":\"b\"}]",
	"[{\"event_type\":\"TaskScheduled\",@\"name\":\"A\",#\"n\\u0061me\":\"B\"}]",
	"[{\"event_type\":\"TaskScheduled\",@\"caf\\u00e9\":1,#\"caf\xc3\xa9\":2}]",
	"{\"events\":[{\"eventId\":1,\"taskScheduled\":{@\"name\":\"A\",\"input\":\"x\",#\"name\":\"B\"}}]}",
	"[{\"event_type\":\"TaskScheduled\",\"input\":{@\"amount\":1,#\"amount\":2}}]",
	"[{\"event_type\":\"X\",\"tags\":[1,{@\"k\":1,#\"k\":1}]}]",
	"[{\"event_type\":\"X\",\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":{\"h\":{\"i\":{@\"j\":1,#\"j\":2}}}}}}}}}}]",
	"{@\"instanceId\":\"a\",\"events\":[{\"event_type\":\"X\"}],#\"instanceId\":\"b\"}",
	"{@\"events\":[{\"event_type\":\"X\"}],#\"events\":[{\"event_type\":\"Y\"}]}",
	"{\"events\":[{\"event_type\":\"X\"}],\"meta\":{\"x\":[{@\"y\":1,#\"y\":2}]}}",
	"[[{\"a\":1}],[{\"event_type\":\"X\",@\"event_id\":1,#\"event_id\":1}]]",
	/* the repeat comes first in the text, but inside a later object */
	"[{\"event_type\":\"X\",\"input\":{\"p\":{@\"q\":1,#\"q\":2},\"p2\":1}}]",
};

/* An object of `n` keys k0..k(n-1), key number `dup` spelled like k0. */
static char *many_keys(size_t n, size_t dup)
{
	char *doc = malloc(n * 16 + 64);
	ck_assert_ptr_nonnull(doc);
	size_t len = (size_t)sprintf(doc, "[{\"event_type\":\"X\"");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(doc + len, ",\"k%zu\":%zu", i == dup ? (size_t)0 : i, i);
	sprintf(doc + len, "}]");
	return doc;
}

START_TEST(duplicate_keys_refused)
{
	char doc[512];
	size_t first = 0, second = 0, n = 0;
	for (const char *p = duplicate_docs[_i]; *p; p++) {
		if (*p == '@')
			first = n;
		else if (*p == '#')
			second = n;
		else
			doc[n++] = *p;
	}
	doc[n] = '\0';
	ck_assert_uint_gt(second, first);
	struct err e;
	struct event_log *log = parse_str(doc, &e);
	ck_assert_msg(log == NULL, "accepted: %s", doc);
	ck_assert_int_eq(e.code, ERR_INPUT);
	char want[96];
	snprintf(want, sizeof want, "at byte %zu (first at byte %zu)", second, first);
	ck_assert_msg(strstr(e.msg, "duplicate key"), "%s", e.msg);
	ck_assert_msg(strstr(e.msg, want), "%s (want %s) in %s", e.msg, want, doc);
}
END_TEST

START_TEST(duplicate_keys_in_large_objects)
{
	/* Past the pair-by-pair size: sorted, the same answer. */
	char *doc = many_keys(5000, 3777);
	struct err e;
	ck_assert_ptr_null(parse_str(doc, &e));
	char want[96];
	snprintf(want, sizeof want, "duplicate key \"k0\" at byte %zu (first at byte %zu)",
		 (size_t)(strstr(doc, ",\"k0\":3777") + 1 - doc), (size_t)(strstr(doc, "\"k0\":0") - doc));
	ck_assert_msg(strstr(e.msg, want), "%s (want %s)", e.msg, want);
	free(doc);
	/* The earliest repeat is named when there are several. */
	doc = many_keys(40, 30);
	char *again = strstr(doc, "\"k12\":12");
	memcpy(again, "\"k07\"", 5); /* k07 is not k7: still distinct */
	ck_assert_ptr_null(parse_str(doc, &e));
	ck_assert_msg(strstr(e.msg, "duplicate key \"k0\""), "%s", e.msg);
	memcpy(again, "\"k7\": ", 6); /* a repeat of k7, before the k0 at 30 */
	ck_assert_ptr_null(parse_str(doc, &e));
	snprintf(want, sizeof want, "duplicate key \"k7\" at byte %zu (first at byte %zu)", (size_t)(again - doc),
		 (size_t)(strstr(doc, "\"k7\":7") - doc));
	ck_assert_msg(strstr(e.msg, want), "%s (want %s)", e.msg, want);
	free(doc);
	/* Many distinct keys, and keys alike but for case, length or one
	 * byte (same fingerprint bits), are fine. */
	doc = many_keys(5000, 5000);
	event_log_free(parse_ok(doc));
	free(doc);
	event_log_free(
		parse_ok("[{\"event_type\":\"X\",\"ab\":1,\"ba\":2,\"Ab\":3,\"a\":4,\"abc\":5,\"a\\u0062c\\n\":6,"
			 "\"input\":{\"a\":1,\"A\":2,\"b\":{\"a\":1}},\"x\":[{\"a\":1},{\"a\":1}]}]"));
	/* The same key in sibling objects is no repeat. */
	event_log_free(parse_ok(
		"{\"events\":[{\"event_type\":\"X\",\"name\":\"a\"},{\"event_type\":\"X\",\"name\":\"b\"}],"
		"\"more\":[{\"events\":1},{\"events\":2}]}"));
}
END_TEST

START_TEST(wrong_type_names_event_and_byte)
{
	struct err e;
	const char *doc = "[{\"event_type\":\"TaskScheduled\"},\n"
			  " {\"event_type\":\"TaskCompleted\",\"task_scheduled_id\":\"x\"}]";
	ck_assert_ptr_null(parse_str(doc, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	char want[128];
	snprintf(want, sizeof want, "event 1 at byte %zu: field \"task_scheduled_id\"",
		 (size_t)(strstr(doc, "\"x\"") - doc));
	ck_assert_msg(strstr(e.msg, want), "%s", e.msg);
}
END_TEST

START_TEST(deep_nesting_is_refused)
{
	size_t depth = 10000;
	char *doc = malloc(2 * depth + 1);
	ck_assert_ptr_nonnull(doc);
	memset(doc, '[', depth);
	memset(doc + depth, ']', depth);
	doc[2 * depth] = '\0';
	struct err e;
	ck_assert_ptr_null(parse_str(doc, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_msg(strstr(e.msg, "nested deeper than"), "%s", e.msg);
	ck_assert_ptr_nonnull(strstr(e.msg, "byte"));
	/* Objects, and deep nesting inside an event. */
	char *obj = malloc(depth * 6 + 64);
	ck_assert_ptr_nonnull(obj);
	size_t n = (size_t)sprintf(obj, "[{\"event_type\":\"X\",\"a\":");
	for (size_t i = 0; i < depth; i++)
		n += (size_t)sprintf(obj + n, "{\"a\":");
	n += (size_t)sprintf(obj + n, "1");
	for (size_t i = 0; i < depth + 2; i++)
		obj[n++] = i < depth + 1 ? '}' : ']';
	obj[n] = '\0';
	ck_assert_ptr_null(parse_str(obj, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_msg(strstr(e.msg, "nested deeper than"), "%s", e.msg);
	free(obj);
	free(doc);

	/* A decoded document as deep as jansson allows. */
	json_t *root = json_array(), *cur = root;
	for (int i = 0; i < 1000; i++) {
		json_t *next = json_array();
		json_array_append_new(cur, next);
		cur = next;
	}
	err_clear(&e);
	ck_assert_ptr_null(event_log_from_json(root, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_msg(strstr(e.msg, "nested deeper than"), "%s", e.msg);
	json_decref(root);
}
END_TEST

START_TEST(big_line_works)
{
	/* One event with a 2 MB payload on one line: linear, and bounded. */
	size_t big = 2u << 20;
	char *doc = malloc(big + 128);
	ck_assert_ptr_nonnull(doc);
	size_t n = (size_t)sprintf(doc, "[{\"event_type\":\"TaskCompleted\",\"output\":\"");
	memset(doc + n, 'a', big);
	n += big;
	n += (size_t)sprintf(doc + n, "\"}]");
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_parse(doc, n, &e);
	ck_assert_msg(log != NULL, "%s", e.msg);
	ck_assert_int_eq(at(log, 0)->output.state, PAYLOAD_PRESENT);
	ck_assert_uint_eq(at(log, 0)->output.size, big);
	event_log_free(log);
	/* Cut short: a clean error, not a crash. */
	ck_assert_ptr_null(event_log_parse(doc, n - 10, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "truncated"));
	free(doc);
}
END_TEST

/* An event of more JSON values than one event is let to cost (the
 * scanner's token cap) is refused, naming the event, from bytes and from a
 * decoded document alike. */
START_TEST(too_many_values_in_one_event)
{
	size_t keys = 60000, cap = keys * 16 + 128, n = 0;
	char *doc = malloc(cap);
	ck_assert_ptr_nonnull(doc);
	n += (size_t)sprintf(doc + n, "[{\"event_type\":\"TaskScheduled\"},{\"event_type\":\"TaskCompleted\"");
	for (size_t i = 0; i < keys; i++)
		n += (size_t)sprintf(doc + n, ",\"k%zu\":%zu", i, i);
	n += (size_t)sprintf(doc + n, "}]");
	ck_assert_uint_lt(n, cap);
	struct err e;
	err_clear(&e);
	ck_assert_ptr_null(event_log_parse(doc, n, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_str_eq(e.msg, "event 1 at byte 32: more than 100000 JSON values in one event");
	json_error_t je;
	json_t *j = json_loadb(doc, n, 0, &je);
	ck_assert_ptr_nonnull(j);
	err_clear(&e);
	ck_assert_ptr_null(event_log_from_json(j, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_str_eq(e.msg, "event 1: more than 100000 JSON values in one event");
	json_decref(j);
	free(doc);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The other entry points agree with event_log_parse. */

static void assert_logs_equal(const struct event_log *a, const struct event_log *b, bool offsets, const char *what)
{
	ck_assert_uint_eq(event_log_count(a), event_log_count(b));
	ck_assert_int_eq(event_log_dialect(a), event_log_dialect(b));
	for (size_t i = 0; i < event_log_count(a); i++) {
		const struct event *x = at(a, i), *y = at(b, i);
		ck_assert_msg(x->kind == y->kind && str_eq(x->kind_name, y->kind_name), "%s %zu", what, i);
		ck_assert_msg(x->event_id == y->event_id && x->has_event_id == y->has_event_id, "%s %zu", what, i);
		ck_assert_msg(x->task_scheduled_id == y->task_scheduled_id &&
				      x->has_task_scheduled_id == y->has_task_scheduled_id,
			      "%s %zu", what, i);
		ck_assert_msg(x->timer_id == y->timer_id && x->has_timer_id == y->has_timer_id, "%s %zu", what, i);
		ck_assert_msg(str_eq(x->timestamp, y->timestamp) && str_eq(x->name, y->name) &&
				      str_eq(x->task_execution_id, y->task_execution_id) &&
				      str_eq(x->fire_at, y->fire_at) && str_eq(x->origin_id, y->origin_id) &&
				      str_eq(x->instance_id, y->instance_id) &&
				      str_eq(x->execution_id, y->execution_id) &&
				      str_eq(x->retry_parent_instance_id, y->retry_parent_instance_id) &&
				      str_eq(x->rerun_parent_instance_id, y->rerun_parent_instance_id) &&
				      str_eq(x->workflow_status, y->workflow_status) &&
				      str_eq(x->error_type, y->error_type) &&
				      str_eq(x->error_message, y->error_message),
			      "%s %zu: strings", what, i);
		ck_assert_msg(x->origin == y->origin && x->non_retriable == y->non_retriable &&
				      x->has_non_retriable == y->has_non_retriable,
			      "%s %zu", what, i);
		ck_assert_msg(payload_eq(&x->input, &y->input) && payload_eq(&x->output, &y->output) &&
				      payload_eq(&x->custom_status, &y->custom_status),
			      "%s %zu: payloads", what, i);
		if (offsets)
			ck_assert_uint_eq(x->source_offset, y->source_offset);
	}
	const struct event_count *ca, *cb;
	size_t na = event_log_unknown_keys(a, &ca), nb = event_log_unknown_keys(b, &cb);
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++)
		ck_assert(str_eq(ca[i].name, cb[i].name) && ca[i].count == cb[i].count);
	na = event_log_unknown_kinds(a, &ca);
	nb = event_log_unknown_kinds(b, &cb);
	ck_assert_uint_eq(na, nb);
	const struct event_run_info *ra = event_log_run_info(a), *rb = event_log_run_info(b);
	ck_assert(str_eq(ra->instance_id, rb->instance_id) && str_eq(ra->app_id, rb->app_id) &&
		  str_eq(ra->data_sharing_level, rb->data_sharing_level) &&
		  str_eq(ra->data_sharing_field, rb->data_sharing_field));
}

START_TEST(from_json_equals_parse)
{
	size_t len;
	char *buf = fixture(fixtures[_i].file, &len);
	struct err e;
	err_clear(&e);
	struct event_log *a = event_log_parse(buf, len, &e);
	ck_assert_ptr_nonnull(a);
	json_error_t je;
	json_t *doc = json_loadb(buf, len, 0, &je);
	ck_assert_ptr_nonnull(doc);
	struct event_log *b = event_log_from_json(doc, &e);
	ck_assert_msg(b != NULL, "%s", e.msg);
	ck_assert_uint_eq(at(b, 1)->source_offset, 0);
	assert_logs_equal(a, b, false, fixtures[_i].file);
	event_log_free(a);
	event_log_free(b);
	json_decref(doc);
	free(buf);
}
END_TEST

START_TEST(from_json_envelope_and_errors)
{
	json_error_t je;
	json_t *doc =
		json_loads("{\"_meta\":{\"data_sharing_level\":\"metadata\"},\"appID\":\"a\",\"x\":{\"y\":{\"z\":["
			   "{\"eventType\":\"TaskScheduled\",\"eventId\":2,\"input\":null,\"weird\":1}]}}}",
			   0, &je);
	ck_assert_ptr_nonnull(doc);
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_from_json(doc, &e);
	ck_assert_msg(log != NULL, "%s", e.msg);
	ck_assert_int_eq(at(log, 0)->event_id, 2);
	ck_assert_int_eq(at(log, 0)->input.state, PAYLOAD_NULL);
	ck_assert_str_eq(event_log_run_info(log)->data_sharing_level, "metadata");
	ck_assert_str_eq(event_log_run_info(log)->app_id, "a");
	ck_assert_uint_eq(event_log_unknown_keys(log, NULL), 1);
	event_log_free(log);
	json_decref(doc);

	doc = json_loads("{\"a\":[1,2]}", 0, &je);
	ck_assert_ptr_null(event_log_from_json(doc, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "no event list found"));
	json_decref(doc);

	doc = json_loads("[{\"event_type\":\"TaskScheduled\",\"event_id\":\"x\"}]", 0, &je);
	ck_assert_ptr_null(event_log_from_json(doc, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "event 0: field \"event_id\" must be an integer"));
	json_decref(doc);
	ck_assert_ptr_null(event_log_from_json(NULL, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
}
END_TEST

/* A run answer holding an execution graph and no flat list, as the
 * simulator's profile b sends it (tests/sim/catalyst-tools.mjs, graphOf:
 * one node per workflow turn, events in history order across the nodes):
 * every node's events are the history, in document order, also under
 * "export"; the caller's document is left as it was. A flat list beside a
 * graph is read alone, so no event counts twice. */
#define GRAPH_NODES                                                                      \
	"\"graph\":{\"nodes\":[{\"id\":\"turn-0\",\"kind\":\"turn\",\"events\":["        \
	"{\"event_type\":\"ExecutionStarted\",\"event_id\":-1,\"name\":\"W\"},"          \
	"{\"event_type\":\"TaskScheduled\",\"event_id\":0,\"name\":\"A\"}]},"            \
	"{\"id\":\"turn-1\",\"kind\":\"turn\",\"events\":["                              \
	"{\"event_type\":\"WorkflowStarted\",\"event_id\":-1},"                          \
	"{\"event_type\":\"TaskCompleted\",\"event_id\":-1,\"task_scheduled_id\":0}]}]," \
	"\"edges\":[{\"from\":\"turn-0\",\"to\":\"turn-1\"}]}"

START_TEST(from_json_reads_graphs)
{
	static const char *const docs[] = {
		"{\"instanceId\":\"g-1\"," GRAPH_NODES "}",
		"{\"appId\":\"app\",\"export\":{\"instanceId\":\"g-1\"," GRAPH_NODES "}}",
	};
	static const enum event_kind kinds[] = {EVENT_EXECUTION_STARTED, EVENT_TASK_SCHEDULED,
						EVENT_WORKFLOW_STARTED, EVENT_TASK_COMPLETED};
	for (size_t d = 0; d < sizeof docs / sizeof *docs; d++) {
		json_error_t je;
		json_t *doc = json_loads(docs[d], 0, &je);
		ck_assert_msg(doc != NULL, "%s", je.text);
		struct err e;
		err_clear(&e);
		struct event_log *log = event_log_from_json(doc, &e);
		ck_assert_msg(log != NULL, "doc %zu: %s", d, e.msg);
		ck_assert_uint_eq(event_log_count(log), 4);
		for (size_t i = 0; i < 4; i++)
			ck_assert_int_eq(at(log, i)->kind, kinds[i]);
		ck_assert_str_eq(at(log, 1)->name, "A");
		ck_assert_int_eq(at(log, 3)->task_scheduled_id, 0);
		ck_assert_str_eq(event_log_run_info(log)->instance_id, "g-1");
		event_log_free(log);
		json_t *where = d == 0 ? doc : json_object_get(doc, "export");
		ck_assert_ptr_nonnull(json_object_get(where, "graph"));
		ck_assert_ptr_null(json_object_get(where, "history"));
		json_decref(doc);
	}

	json_error_t je;
	json_t *doc = json_loads(
		"{\"history\":[{\"event_type\":\"ExecutionStarted\",\"name\":\"W\"}]," GRAPH_NODES "}", 0, &je);
	ck_assert_ptr_nonnull(doc);
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_from_json(doc, &e);
	ck_assert_msg(log != NULL, "%s", e.msg);
	ck_assert_uint_eq(event_log_count(log), 1);
	event_log_free(log);
	json_decref(doc);
}
END_TEST

START_TEST(parse_fd_equals_parse)
{
	const char *rel = "tests/fixtures/d-child-retry.parent.proto.json";
	size_t len;
	char *buf = testlib_read_file(testlib_src(rel), &len);
	ck_assert_ptr_nonnull(buf);
	struct err e;
	err_clear(&e);
	struct event_log *a = event_log_parse(buf, len, &e);
	ck_assert_ptr_nonnull(a);
	/* A regular file (mapped). */
	int fd = open(testlib_src(rel), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	struct event_log *b = event_log_parse_fd(fd, NULL, &e);
	close(fd);
	ck_assert_msg(b != NULL, "%s", e.msg);
	assert_logs_equal(a, b, true, "fd");
	event_log_free(b);
	/* A pipe (read whole). */
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], buf, len), (ssize_t)len);
	close(p[1]);
	b = event_log_parse_fd(p[0], NULL, &e);
	close(p[0]);
	ck_assert_msg(b != NULL, "%s", e.msg);
	assert_logs_equal(a, b, true, "pipe");
	event_log_free(b);
	/* An empty pipe. */
	ck_assert_int_eq(pipe(p), 0);
	close(p[1]);
	ck_assert_ptr_null(event_log_parse_fd(p[0], NULL, &e));
	close(p[0]);
	ck_assert_int_eq(e.code, ERR_INPUT);
	event_log_free(a);
	free(buf);
}
END_TEST

/* A UTF-8 byte order mark at the very start is skipped, through every
 * entry point (a caller's buffer, a mapped file, a pipe as stdin is);
 * byte positions stay the file's own. */
START_TEST(bom_is_skipped)
{
	const char *rel = "tests/fixtures/b-retry-fail-fail-succeed.proto.json";
	size_t len;
	char *plain = testlib_read_file(testlib_src(rel), &len);
	ck_assert_ptr_nonnull(plain);
	char *bom = malloc(len + 3);
	ck_assert_ptr_nonnull(bom);
	memcpy(bom, "\xef\xbb\xbf", 3);
	memcpy(bom + 3, plain, len);
	struct err e;
	err_clear(&e);
	struct event_log *a = event_log_parse(plain, len, &e);
	ck_assert_ptr_nonnull(a);
	struct event_log *b = event_log_parse(bom, len + 3, &e);
	ck_assert_msg(b != NULL, "buffer: %s", e.msg);
	assert_logs_equal(a, b, false, "buffer");
	ck_assert_uint_eq(at(b, 2)->source_offset, at(a, 2)->source_offset + 3);
	event_log_free(b);

	char path[] = "/tmp/ca-test-bom-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bom, len + 3), (ssize_t)(len + 3));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	b = event_log_parse_fd(fd, NULL, &e); /* mapped */
	close(fd);
	unlink(path);
	ck_assert_msg(b != NULL, "file: %s", e.msg);
	assert_logs_equal(a, b, false, "file");
	event_log_free(b);

	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], bom, len + 3), (ssize_t)(len + 3));
	close(p[1]);
	b = event_log_parse_fd(p[0], NULL, &e); /* read whole */
	close(p[0]);
	ck_assert_msg(b != NULL, "pipe: %s", e.msg);
	assert_logs_equal(a, b, false, "pipe");
	event_log_free(b);
	event_log_free(a);
	free(bom);
	free(plain);
}
END_TEST

static const struct {
	const char *doc, *msg;
} bom_cases[] = {
	/* positions count the mark's three bytes */
	{"\xef\xbb\xbf[{\"event_type\":\"TaskScheduled\",\"event_id\":\"x\"}]", "event 0 at byte 45"},
	{"\xef\xbb\xbf", "not JSON at byte 3: empty input"},
	{"\xef\xbb\xbf \n", "not JSON at byte 5: empty input"},
	/* only one, only at the start, only UTF-8's */
	{"\xef\xbb\xbf\xef\xbb\xbf[]", "not JSON at byte 3"},
	{" \xef\xbb\xbf[]", "not JSON at byte 1"},
	{"[\xef\xbb\xbf]", "not JSON at byte 1"},
	{"\xff\xfe[\0]\0", "not JSON at byte 0"},
	{"\xef\xbb", "not JSON at byte 0"},
};

START_TEST(bom_positions_and_limits)
{
	struct err e;
	struct event_log *log = parse_str(bom_cases[_i].doc, &e);
	ck_assert_msg(log == NULL, "case %d accepted", _i);
	ck_assert_int_eq(e.code, ERR_INPUT);
	ck_assert_msg(strstr(e.msg, bom_cases[_i].msg), "case %d: \"%s\" lacks \"%s\"", _i, e.msg,
		      bom_cases[_i].msg);
	/* an empty list after the mark is an empty list */
	event_log_free(parse_ok("\xef\xbb\xbf[]"));
}
END_TEST

/* A history big enough for the two-thread parse. */
static char *big_history(size_t invocations, const char *poison, size_t *len)
{
	size_t cap = invocations * 400 + 4096 + (poison ? strlen(poison) : 0);
	char *doc = malloc(cap);
	ck_assert_ptr_nonnull(doc);
	size_t n = (size_t)sprintf(doc, "{\"instanceId\":\"big\",\"events\":[\n"
					"{\"event_type\":\"ExecutionStarted\",\"name\":\"W\"}");
	for (size_t i = 0; i < invocations; i++) {
		n += (size_t)sprintf(doc + n,
				     ",\n{\"event_type\":\"TaskScheduled\",\"event_id\":%zu,"
				     "\"timestamp\":\"2026-01-01T00:00:%02zu.%03zuZ\",\"name\":\"Step%zu\","
				     "\"task_execution_id\":\"exec-%zu\"}",
				     i, i % 60, i % 1000, i % 7, i);
		if (poison && i == invocations / 2)
			n += (size_t)sprintf(doc + n, ",\n{\"event_type\":\"GenericEvent\",\"input\":\"%s\"}",
					     poison);
		n += (size_t)sprintf(doc + n,
				     ",\n{\"event_type\":\"TaskCompleted\",\"task_scheduled_id\":%zu,"
				     "\"task_execution_id\":\"exec-%zu\",\"mystery\":%zu}",
				     i, i, i);
	}
	n += (size_t)sprintf(doc + n, "\n], \"appId\": \"after\"}");
	ck_assert_uint_lt(n, cap);
	*len = n;
	return doc;
}

static void check_threads_agree(const char *poison)
{
	size_t len;
	char *doc = big_history(25000, poison, &len);
	struct err e;
	err_clear(&e);
	struct event_log *one = event_log_parse_opts(doc, len, &(struct event_parse_options){.threads = 1}, &e);
	ck_assert_msg(one != NULL, "%s", e.msg);
	struct event_log *two = event_log_parse(doc, len, &e);
	ck_assert_msg(two != NULL, "%s", e.msg);
	ck_assert_uint_eq(event_log_count(one), 50001 + (poison ? 1 : 0));
	assert_logs_equal(one, two, true, "threads");
	/* Interning and its numbers hold across the two halves: the names
	 * Step0..6, the 25,000 ids and "W". */
	ck_assert_uint_eq(check_str_ords(one), 25008);
	ck_assert_uint_eq(check_str_ords(two), 25008);
	const struct event *last0 = NULL;
	for (size_t i = event_log_count(two); i-- > 0 && !last0;) {
		const struct event *ev = at(two, i);
		if (ev->name && strcmp(ev->name, "Step0") == 0)
			last0 = ev;
	}
	ck_assert_ptr_nonnull(last0);
	ck_assert_ptr_ne(last0, at(two, 1));
	ck_assert_ptr_eq(at(two, 1)->name, last0->name);
	const struct event_count *c;
	ck_assert_uint_eq(event_log_unknown_keys(two, &c), 1);
	ck_assert_str_eq(c[0].name, "mystery");
	ck_assert_uint_eq(c[0].count, 25000);
	ck_assert_str_eq(event_log_run_info(two)->app_id, "after");
	event_log_free(one);
	event_log_free(two);

	/* An error in the second half names its global index. */
	char *bad = strstr(doc + len / 2 + len / 4, "\"mystery\":");
	ck_assert_ptr_nonnull(bad);
	memcpy(bad, "\"name\":   ", 10); /* same length: a number where a string belongs */
	ck_assert_ptr_null(event_log_parse(doc, len, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	char *at = strstr(e.msg, "event ");
	ck_assert_msg(at != NULL, "%s", e.msg);
	ck_assert_int_gt(atoi(at + 6), 27000); /* not an index local to the second half */
	char want[64];
	snprintf(want, sizeof want, "at byte %zu: field \"name\"", (size_t)(bad + 10 - doc));
	ck_assert_msg(strstr(e.msg, want), "%s (want %s)", e.msg, want);
	free(doc);
}

/* Payload texts kept in the second half of a two-thread parse are the
 * log's after the halves are joined. */
START_TEST(two_threads_keep_payload_texts)
{
	size_t n_inv = 30000, cap = n_inv * 200 + 256, n = 0;
	char *doc = malloc(cap);
	ck_assert_ptr_nonnull(doc);
	n += (size_t)sprintf(doc + n, "[{\"event_type\":\"ExecutionStarted\",\"name\":\"W\"}");
	for (size_t i = 0; i < n_inv; i++)
		n += (size_t)sprintf(
			doc + n,
			",\n{\"event_type\":\"TaskScheduled\",\"event_id\":%zu,\"name\":\"Step\","
			"\"input\":\"order-%zu-padding-padding-padding-padding-padding-padding-padding\"}",
			i, i);
	n += (size_t)sprintf(doc + n, "]");
	ck_assert_uint_gt(n, 4u << 20);
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_parse_opts(
		doc, n, &(struct event_parse_options){.threads = 2, .payload_text = true}, &e);
	ck_assert_msg(log != NULL, "%s", e.msg);
	ck_assert_uint_eq(event_log_count(log), n_inv + 1);
	for (size_t i = 1; i <= n_inv; i += 997) {
		const char *t = event_log_payload_text(log, &at(log, i)->input, NULL, NULL);
		ck_assert_msg(t != NULL, "no text for event %zu", i);
		char want[32];
		snprintf(want, sizeof want, "order-%zu-", i - 1);
		ck_assert_msg(strncmp(t, want, strlen(want)) == 0, "event %zu: %s", i, t);
	}
	event_log_free(log);
	free(doc);
}
END_TEST

START_TEST(two_threads_agree)
{
	check_threads_agree(NULL);
}
END_TEST

START_TEST(two_threads_bad_split_guess)
{
	/* A 1 MB payload full of "},{" lands the split guess inside a string:
	 * the guess must be rejected and the result still be right. */
	size_t n = 1u << 20;
	char *poison = malloc(n + 1);
	ck_assert_ptr_nonnull(poison);
	for (size_t i = 0; i < n; i += 32)
		memcpy(poison + i, "},{\\\"event_type\\\":1},  {x:1}}   ", i + 32 <= n ? 32 : n - i);
	poison[n] = '\0';
	check_threads_agree(poison);
	free(poison);
}
END_TEST

/* The second thread's half refuses a repeat too, and the error names the
 * byte in the whole document. */
START_TEST(duplicate_keys_in_second_half)
{
	size_t len;
	char *doc = big_history(25000, NULL, &len);
	char *bad = strstr(doc + len / 2 + len / 4, "\"mystery\":");
	ck_assert_ptr_nonnull(bad);
	memcpy(bad, "\"m\":0,\"m\":", 10);
	struct err e;
	err_clear(&e);
	ck_assert_ptr_null(event_log_parse(doc, len, &e));
	ck_assert_int_eq(e.code, ERR_INPUT);
	char want[96];
	snprintf(want, sizeof want, "duplicate key \"m\" at byte %zu (first at byte %zu)", (size_t)(bad + 6 - doc),
		 (size_t)(bad - doc));
	ck_assert_msg(strstr(e.msg, want), "%s (want %s)", e.msg, want);
	free(doc);
}
END_TEST

/* Every event type of durabletask's HistoryEvent (the list
 * scripts/proto-event-types took from the protobuf, in
 * tests/fixtures/durabletask/history-event-types.txt) is read, in its
 * key of today and of Dapr 1.17 and before, in protojson and in the
 * flattened dialect; a reserved number's old event is read too (generic
 * and history-state events) or named as unknown and counted (the entity
 * events, which Dapr never wrote), never dropped. */
/* Dapr 1.18's propagated history beside the events: each chunk's raw
 * HistoryEvents (binary, base64 in protojson) decoded into the ancestor's
 * activities, on both parse paths (bytes and a JSON tree), and none of its
 * events in the run's own log. Events that are no protobuf are counted as
 * such, never dropped; a malformed PropagatedHistory is an input error. */
START_TEST(propagated_history_read_as_the_ancestors)
{
	size_t len;
	char *text = fixture("l5-propagated-lineage.proto.json", &len);
	struct err e;
	for (int path = 0; path < 2; path++) {
		err_clear(&e);
		json_t *doc = path ? json_loadb(text, len, 0, NULL) : NULL;
		struct event_log *log = path ? event_log_from_json(doc, &e) : event_log_parse(text, len, &e);
		json_decref(doc);
		ck_assert_msg(log, "%s", e.msg);
		ck_assert_uint_eq(event_log_count(log), 6); /* the run's own only */
		const struct propagated_history *p = event_log_propagated(log);
		ck_assert_ptr_nonnull(p);
		ck_assert_str_eq(p->scope, "LINEAGE");
		ck_assert_uint_eq(p->n_chunks, 1);
		const struct propagated_chunk *c = &p->chunks[0];
		ck_assert_str_eq(c->app_id, "orders");
		ck_assert_str_eq(c->instance_id, "order-4411");
		ck_assert_str_eq(c->workflow, "OrderWorkflow");
		ck_assert_uint_eq(c->events, 6);
		ck_assert_uint_eq(c->undecoded, 0);
		ck_assert_uint_eq(c->children, 1);
		ck_assert_uint_eq(c->n_activities, 1);
		ck_assert_str_eq(c->activities[0].name, "ChargeCard");
		ck_assert_str_eq(c->activities[0].task_execution_id, "7b9d1f3a-5c7e-4a9b-8d1f-3a5c7e9b1d2f");
		ck_assert_uint_eq(c->activities[0].scheduled, 1);
		ck_assert_uint_eq(c->activities[0].completed, 1);
		event_log_free(log);
	}
	free(text);

	/* "AA==" is one zero byte: field number 0, no protobuf; "!!" no base64. */
	struct event_log *log = parse_ok(
		"{\"events\":[{\"eventId\":1,\"timestamp\":\"2026-10-05T08:00:00Z\",\"taskScheduled\":{\"name\":\"A\"}}],"
		"\"propagated_history\":{\"scope\":2,\"chunks\":[{\"raw_events\":[\"AA==\",\"!!\",\"CAE\"],"
		"\"app_id\":\"a\"}]}}");
	const struct propagated_history *p = event_log_propagated(log);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->scope, "LINEAGE");
	ck_assert_uint_eq(p->chunks[0].events, 3);
	ck_assert_uint_eq(p->chunks[0].undecoded, 2);
	ck_assert_ptr_null(p->chunks[0].instance_id);
	event_log_free(log);

	static const char *const bad[] = {
		"{\"events\":[],\"propagatedHistory\":{\"chunks\":{}}}",
		"{\"events\":[],\"propagatedHistory\":{\"chunks\":[7]}}",
		"{\"events\":[],\"propagatedHistory\":{\"chunks\":[{\"rawEvents\":\"x\"}]}}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_ptr_null(parse_str(bad[i], &e));
		ck_assert_int_eq(e.code, ERR_INPUT);
		ck_assert_msg(strstr(e.msg, "propagated history"), "%s", e.msg);
	}
}
END_TEST

START_TEST(every_proto_event_type_is_read)
{
	size_t len = 0;
	char *list = testlib_read_file(testlib_src("tests/fixtures/durabletask/history-event-types.txt"), &len);
	ck_assert_ptr_nonnull(list);
	size_t n_types = 0, n_reserved = 0;
	char *save = NULL;
	for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		int number = 0;
		char key[64] = "", before[64] = "";
		ck_assert_int_ge(sscanf(line, "%d %63s %63s", &number, key, before), 2);
		bool reserved = strcmp(key, "reserved") == 0;
		const char *keys[] = {reserved ? NULL : key, *before ? before : NULL};
		for (size_t k = 0; k < 2; k++) {
			if (!keys[k])
				continue;
			char proto[256], flat[256], type[64];
			/* after a start, as in any history: a list is known by its events */
			snprintf(proto, sizeof proto,
				 "{\"events\":[{\"eventId\":-1,\"timestamp\":\"2026-05-04T12:00:00Z\","
				 "\"executionStarted\":{\"name\":\"W\"}},"
				 "{\"eventId\":1,\"timestamp\":\"2026-05-04T12:00:01Z\",\"%s\":{}}]}",
				 keys[k]);
			/* the flattened dialect names the type in PascalCase */
			snprintf(type, sizeof type, "%c%s", toupper((unsigned char)keys[k][0]), keys[k] + 1);
			snprintf(flat, sizeof flat,
				 "[{\"event_id\":-1,\"timestamp\":\"2026-05-04T12:00:00Z\","
				 "\"event_type\":\"ExecutionStarted\",\"name\":\"W\"},"
				 "{\"event_id\":1,\"timestamp\":\"2026-05-04T12:00:01Z\",\"event_type\":\"%s\"}]",
				 type);
			const char *docs[] = {proto, flat};
			for (size_t d = 0; d < 2; d++) {
				struct err e;
				err_clear(&e);
				struct event_log *log = event_log_parse(docs[d], strlen(docs[d]), &e);
				ck_assert_msg(log, "%d %s: %s", number, keys[k], e.msg);
				ck_assert_uint_eq(event_log_count(log), 2);
				struct event ev;
				event_log_get(log, 1, &ev);
				if (reserved && ev.kind == EVENT_UNKNOWN) {
					const struct event_count *c;
					size_t nc = event_log_unknown_kinds(log, &c);
					ck_assert_msg(ev.kind == EVENT_UNKNOWN && nc == 1 && c[0].count == 1,
						      "%d %s (%s): kind %s, %zu unknown kinds", number, keys[k],
						      d ? "flattened" : "protojson", event_kind_name(ev.kind), nc);
					ck_assert_msg(strcasecmp(c[0].name, keys[k]) == 0, "%s named %s", keys[k],
						      c[0].name);
				} else {
					ck_assert_msg(ev.kind != EVENT_UNKNOWN, "%d %s (%s) is not read", number,
						      keys[k], d ? "flattened" : "protojson");
				}
				event_log_free(log);
			}
		}
		n_types += !reserved;
		n_reserved += reserved;
	}
	free(list);
	/* the list as the protobuf of 2026-06-30 has it */
	ck_assert_uint_eq(n_types, 20);
	ck_assert_uint_eq(n_reserved, 9);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("event");
	struct testlib_group *tc = testlib_group("model");
	add_test(tc, model_append_copies_and_interns);
	add_test(tc, model_releases_what_was_read);
	add_test(tc, model_packs_every_field);
	add_test(tc, every_proto_event_type_is_read);
	add_test(tc, propagated_history_read_as_the_ancestors);
	add_test(tc, model_many_events_stay_put);
	add_test(tc, model_drop_events_keeps_strings);
	add_test(tc, model_names);
	testlib_suite_add(s, tc);

	tc = testlib_group("fixtures");
	add_loop_test(tc, fixture_parses, 0, sizeof fixtures / sizeof fixtures[0]);
	add_test(tc, fixture_b_details);
	add_test(tc, fixture_proto_zero_values_and_payloads);
	add_test(tc, fixture_child_retry);
	add_test(tc, fixture_dapr_cli);
	add_test(tc, dapr_cli_attrs_with_semicolons);
	add_test(tc, dapr_cli_child_rows_1_18);
	add_test(tc, dapr_cli_child_rows_suborch);
	add_test(tc, dapr_cli_truncation);
	add_test(tc, dapr_cli_attr_keys_and_details);
	add_loop_test(tc, catalyst_equals_proto, 0, sizeof pairs / sizeof pairs[0]);
	testlib_suite_add(s, tc);

	tc = testlib_group("dialects");
	add_loop_test(tc, spelling_variants, 0, sizeof spellings / sizeof spellings[0]);
	add_loop_test(tc, type_name_variants, 0, sizeof type_names / sizeof type_names[0]);
	add_test(tc, protojson_timer_origins);
	add_test(tc, catalyst_origin_and_parent_spellings);
	add_loop_test(tc, envelope_forms_agree, 0, sizeof envelope_forms / sizeof envelope_forms[0]);
	add_test(tc, envelope_run_fields);
	add_test(tc, payload_states);
	add_test(tc, payload_texts_kept_only_when_asked);
	add_test(tc, unknowns_are_counted);
	add_test(tc, inner_failure_innermost_is_kept);
	add_test(tc, empty_lists);
	testlib_suite_add(s, tc);

	tc = testlib_group("bad_input");
	add_loop_test(tc, bad_input_rejected, 0, sizeof bad_inputs / sizeof bad_inputs[0]);
	add_test(tc, buffer_over_input_max_refused);
	add_loop_test(tc, quoted_integers_as_strtoll, 0, sizeof quoted_ints / sizeof quoted_ints[0]);
	add_loop_test(tc, str_ords_one_per_string, 0, sizeof ord_fixtures / sizeof ord_fixtures[0]);
	add_loop_test(tc, numbers_as_jansson_reads_them, 0, sizeof number_texts / sizeof number_texts[0]);
	add_test(tc, wrong_type_names_event_and_byte);
	add_test(tc, deep_nesting_is_refused);
	add_test(tc, big_line_works);
	add_test(tc, too_many_values_in_one_event);
	add_loop_test(tc, duplicate_keys_refused, 0, sizeof duplicate_docs / sizeof duplicate_docs[0]);
	add_test(tc, duplicate_keys_in_large_objects);
	testlib_suite_add(s, tc);

	tc = testlib_group("entry_points");
	add_loop_test(tc, from_json_equals_parse, 0, sizeof fixtures / sizeof fixtures[0]);
	add_test(tc, from_json_envelope_and_errors);
	add_test(tc, from_json_reads_graphs);
	add_test(tc, parse_fd_equals_parse);
	add_test(tc, bom_is_skipped);
	add_loop_test(tc, bom_positions_and_limits, 0, sizeof bom_cases / sizeof bom_cases[0]);
	testlib_suite_add(s, tc);

	/* Histories over the two-thread threshold (4 MB), parsed several times:
	 * tagged "heavy" so the valgrind pass (CK_EXCLUDE_TAGS) leaves them to
	 * the plain and ASan/UBSan passes, where they take seconds, not minutes. */
	tc = testlib_group("threads");
	testlib_group_tags(tc, "heavy");
	add_test(tc, two_threads_agree);
	add_test(tc, two_threads_keep_payload_texts);
	add_test(tc, two_threads_bad_split_guess);
	add_test(tc, duplicate_keys_in_second_half);
	add_test(tc, cli_table_view_read);
	add_test(tc, cli_table_view_fan_out_unpaired);
	add_test(tc, cli_table_view_refused);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
