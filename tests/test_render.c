/* The three renderers on a hand-built report: what each must and must not
 * print, independent of any parser or analysis. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render.h"
#include "testlib.h"

/* ------------------------------------------------------------------------ */
/* A report built by hand: one audited run with hostile strings, one run
 * whose fetch was refused. The analysis is static memory, so it is detached
 * before report_finish (which would hand it to analysis_free). */

static struct attempt charge_attempts[3];
static struct attempt ship_attempts[1];
static int64_t charge_timers[] = {1, 3};
static struct invocation invocations[2];
static int64_t ev_ambiguous[] = {0, 1, 2};
static uint32_t idx_ambiguous[] = {2, 4, 5, 7};
static int64_t ev_reexec[] = {0, 2, 4};
static struct finding findings[2];
static struct withheld withheld[] = {
	{.event_id = 0, .kind = EVENT_TASK_SCHEDULED, .field = WITHHELD_INPUT, .event_index = 2},
	{.event_id = 2, .kind = EVENT_TASK_SCHEDULED, .field = WITHHELD_INPUT, .event_index = 8},
	{.event_id = 4, .kind = EVENT_TASK_SCHEDULED, .field = WITHHELD_INPUT, .event_index = 12},
	{.event_id = -1, .kind = EVENT_TASK_COMPLETED, .field = WITHHELD_OUTPUT, .event_index = 14},
};
static char limit0[] = "A worker crash after the side effect and before the result was saved leaves no event.";
static char limit1[] = "Payloads were withheld, so identical inputs cannot be compared.";
static char *limits[] = {limit0, limit1};
static char source[] = "inferred: no input, output or customStatus key on any event";
static char msg0[] = "ChargeCard attempt 0 failed with a connection-class error and was retried: the charge "
		     "may have landed twice. Key the charge on task_execution_id and make it conditional.";
static char msg1[] = "ChargeCard ran 3 attempts under one invocation.";
static struct analysis analysis;

#define HOSTILE_ERROR                                                     \
	"('Connection aborted.', \x1b[2K\rRemote end closed \xe2\x80\xae" \
	"dias)"
static struct attempt_more charge_more = {.error_type = "ConnectionError", .error_message = HOSTILE_ERROR};

static void build_analysis(void)
{
	memset(charge_attempts, 0, sizeof charge_attempts);
	memset(ship_attempts, 0, sizeof ship_attempts);
	memset(invocations, 0, sizeof invocations);
	memset(findings, 0, sizeof findings);
	memset(&analysis, 0, sizeof analysis);
	static const char *times[] = {"2026-09-14T10:00:00.051Z", "2026-09-14T10:00:07.196Z",
				      "2026-09-14T10:00:19.301Z"};
	for (int i = 0; i < 3; i++) {
		struct attempt *at = &charge_attempts[i];
		at->scheduled_id = i * 2;
		at->scheduled_at = times[i];
		at->task_execution_id = "7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17";
		at->outcome = i < 2 ? OUTCOME_FAILED : OUTCOME_COMPLETED;
		at->result_index = (uint32_t)(4 + i);
		at->n_results = 1;
		at->completed_at = "2026-09-14T10:00:02.118Z";
		if (i < 2) {
			at->more = &charge_more;
			at->failure = FAILURE_AMBIGUOUS;
		} else {
			at->output.state = PAYLOAD_EMPTY; /* present, "" */
		}
	}
	ship_attempts[0].scheduled_id = 6;
	ship_attempts[0].scheduled_at = "2026-09-14T10:00:20.000Z";
	ship_attempts[0].task_execution_id = "";
	ship_attempts[0].outcome = OUTCOME_PENDING;
	ship_attempts[0].result_index = ATTEMPT_NO_RESULT;

	invocations[0] = (struct invocation){.name = "ChargeCard",
					     .task_execution_id = "7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17",
					     .link = LINK_EXECUTION_ID,
					     .attempts = charge_attempts,
					     .n_attempts = 3,
					     .retry_timer_event_ids = charge_timers,
					     .n_retry_timers = 2};
	invocations[1] = (struct invocation){.name = "Ship|It *now* `x`",
					     .task_execution_id = "",
					     .link = LINK_SINGLE,
					     .attempts = ship_attempts,
					     .n_attempts = 1};
	findings[0] = (struct finding){.kind = FINDING_AMBIGUOUS_FAILURE_RETRIED,
				       .severity = SEVERITY_SUSPECT,
				       .activity = "ChargeCard",
				       .task_execution_id = "7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17",
				       .evidence_event_ids = ev_ambiguous,
				       .n_evidence = 3,
				       .message_head = msg0,
				       .evidence_event_indexes = idx_ambiguous,
				       .n_evidence_event_indexes = 4};
	findings[1] = (struct finding){.kind = FINDING_REEXECUTED,
				       .severity = SEVERITY_NOTICE,
				       .activity = "ChargeCard",
				       .task_execution_id = "7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17",
				       .evidence_event_ids = ev_reexec,
				       .n_evidence = 3,
				       .message_head = msg1};
	analysis.workflow = "PaymentWorkflow";
	analysis.status = "COMPLETED";
	analysis.instance_id = "pay-20931";
	analysis.n_generations = 1;
	analysis.finished = true;
	analysis.invocations = invocations;
	analysis.n_invocations = 2;
	analysis.findings = findings;
	analysis.n_findings = 2;
	analysis.withheld = withheld;
	analysis.n_withheld = 4;
	analysis.sharing = SHARING_METADATA;
	analysis.sharing_source = source;
	analysis.limits = limits;
	analysis.n_limits = 2;
	analysis.n_events = 17;
}

static void build_report(struct report *r, bool with_link)
{
	build_analysis();
	report_init(r);
	struct report_run *run = report_add_run(r);
	ck_assert_ptr_nonnull(run);
	run->app_id = strdup("payments\x1b[31m");
	run->run_id = strdup("pay-20931");
	run->project_form = PROJECT_NAME;
	run->project = strdup("default");
	if (with_link)
		run->console_link =
			strdup("https://catalyst.diagrid.io/workflows/payments/pay-20931?project=default");
	else
		run->link_note = strdup("the app id is not in this file");
	run->source = strdup("file tests/fixtures/x.json");
	run->analysis = &analysis;

	run = report_add_run(r);
	ck_assert_ptr_nonnull(run);
	run->app_id = strdup("payments");
	run->run_id = strdup("pay-20932");
	run->project_form = PROJECT_UID;
	run->project = strdup("prj-165");
	run->failure_code = ERR_DATA_SHARING;
	run->failure = strdup("catalyst_get_workflow_run was refused: denied");
	run->refusal_kind = strdup("denied");
	run->refusal_instruction = strdup("Ask an organization administrator to allow this.");
	ck_assert_int_eq(report_add_note(r, "note %d: --project was taken as a name", 1), 0);
	report_summarize(r);
}

static void free_report(struct report *r)
{
	for (size_t i = 0; i < r->n_runs; i++)
		if (r->runs[i].analysis == &analysis)
			r->runs[i].analysis = NULL;
	report_finish(r);
}

/* Renders into a malloc'd string, in the view given. */
static char *render_view(enum render_format f, const struct report *r, bool color, enum report_view view,
			 bool all_runs)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(out);
	struct render_options o = {.color = color, .width = 80, .view = view, .all_runs = all_runs};
	struct err e;
	err_clear(&e);
	int rc = render_report(out, f, r, &o, &e);
	ck_assert_msg(rc == 0, "render failed: %s", e.msg);
	fclose(out);
	ck_assert_uint_eq(strlen(text), len); /* no NUL byte inside */
	return text;
}

/* The full view (--verbose-report): what most of these tests read. */
static char *render(enum render_format f, const struct report *r, bool color)
{
	return render_view(f, r, color, REPORT_FULL, false);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ------------------------------------------------------------------------ */

START_TEST(summary_counts)
{
	struct report r;
	build_report(&r, true);
	ck_assert_uint_eq(r.n_activities, 2);
	ck_assert_uint_eq(r.n_reexecuted, 1);
	ck_assert_uint_eq(r.n_findings, 2);
	ck_assert_uint_eq(r.n_suspect, 1);
	ck_assert_uint_eq(r.n_failed_runs, 1);
	/* and per run, for the overview */
	ck_assert_uint_eq(r.runs[0].n_activities, 2);
	ck_assert_uint_eq(r.runs[0].n_reexecuted, 1);
	ck_assert_uint_eq(r.runs[0].n_findings, 2);
	ck_assert_uint_eq(r.runs[0].n_suspect, 1);
	ck_assert_uint_eq(r.runs[1].n_findings, 0);
	free_report(&r);
}
END_TEST

START_TEST(overview_lists_every_run)
{
	struct report r;
	build_report(&r, true);
	for (int view = REPORT_SHORT; view <= REPORT_FULL; view++) {
		char *t = render_view(FORMAT_TEXT, &r, false, (enum report_view)view, false);
		const char *ov = strstr(t, "\n  run ");
		ck_assert_msg(ov, "no overview in:\n%s", t);
		/* After the verdict, before what follows it: the runs' details
		 * (the full view) or the limits (the short view has no details). */
		const char *next = strstr(t, view == REPORT_FULL ? "\nRun " : "\nLimits: ");
		ck_assert_msg(strstr(t, "Verdict:") < ov && next && ov < next, "overview out of place in:\n%s", t);
		ck_assert_msg(strstr(ov, "status     findings\n"), "in:\n%s", t);
		const char *row = strstr(ov, "\n  pay-20931 ");
		ck_assert_ptr_nonnull(row);
		ck_assert_msg(strstr(row, "COMPLETED  2 (1 suspect)\n"), "in:\n%s", t);
		ck_assert_ptr_nonnull(strstr(t, "not audited\n"));
		free(t);
	}
	char *t = render(FORMAT_MARKDOWN, &r, false);
	ck_assert_ptr_nonnull(strstr(t, "| Run | App | Workflow | Started (UTC) | Status | Findings |\n"));
	ck_assert_ptr_nonnull(strstr(t, "| COMPLETED | 1 suspect, 1 notice |\n"));
	/* six columns: the reason a run was not audited goes under the table */
	ck_assert_ptr_nonnull(strstr(t, "| [pay-20932](#run-2) | payments |  |  | not audited | see below |\n"));
	ck_assert_ptr_nonnull(strstr(t, "\n- pay-20932 not audited: denied\n"));
	free(t);
	free_report(&r);
}
END_TEST

START_TEST(text_neutralises_server_strings)
{
	struct report r;
	build_report(&r, true);
	char *t = render(FORMAT_TEXT, &r, false);
	ck_assert_msg(!strchr(t, '\x1b'), "raw ESC in:\n%s", t);
	ck_assert_msg(!strchr(t, '\r'), "raw CR in text output");
	ck_assert_ptr_null(strstr(t, "\xe2\x80\xae"));
	ck_assert_ptr_nonnull(strstr(t, "payments\\x1b[31m"));
	ck_assert_msg(strstr(t, "('Connection aborted.', \\x1b[2K\\rRemote end"), "in:\n%s", t);
	ck_assert_msg(strstr(t, "\\u202edias)"), "in:\n%s", t);
	free(t);
	free_report(&r);
}
END_TEST

START_TEST(text_colour_only_when_asked)
{
	struct report r;
	build_report(&r, true);
	char *plain = render(FORMAT_TEXT, &r, false);
	char *colored = render(FORMAT_TEXT, &r, true);
	ck_assert_ptr_null(strstr(plain, "\033["));
	ck_assert_ptr_nonnull(strstr(colored, "\033[1;31msuspect"));
	ck_assert_ptr_nonnull(strstr(colored, "\033[0m"));
	/* The escaped server ESC is still text, not a control, under colour. */
	ck_assert_ptr_nonnull(strstr(colored, "payments\\x1b[31m"));
	free(plain);
	free(colored);
	free_report(&r);
}
END_TEST

START_TEST(text_fits_80_columns)
{
	struct report r;
	build_report(&r, true);
	char *t = render(FORMAT_TEXT, &r, false);
	size_t line = 1;
	for (char *p = t; *p;) {
		char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		size_t col = 0;
		for (size_t i = 0; i < len; i++)
			if (((unsigned char)p[i] & 0xc0) != 0x80)
				col++;
		/* A URL cannot be broken; everything else must fit. */
		char *url = strstr(p, "https://");
		ck_assert_msg(col <= 80 || (url && url < p + len), "line %zu is over 80 columns:\n%.*s", line,
			      (int)len, p);
		line++;
		p += len + (eol ? 1 : 0);
	}
	free(t);
	free_report(&r);
}
END_TEST

START_TEST(text_report_content)
{
	struct report r;
	build_report(&r, true);
	char *t = render(FORMAT_TEXT, &r, false);
	static const char *const want[] = {
		"Run pay-20931  PaymentWorkflow  [COMPLETED]",
		"app id        payments\\x1b[31m",
		"project       default (name)",
		"project       prj-165 (uid)",
		"data sharing  metadata (inferred: no input, output or customStatus key on any\n                event)",
		"console       https://catalyst.diagrid.io/workflows/payments/pay-20931?project=default",
		"ChargeCard  3 attempts",
		"execution 7c1e2b4a-3f6d-4e0b-9a51-2d8f6c0e4b17 (linked by execution id)",
		"1.  0       2026-09-14T10:00:00.051Z  failed     2026-09-14T10:00:02.118Z\n",
		"3.  4       2026-09-14T10:00:19.301Z  completed  2026-09-14T10:00:02.118Z\n",
		"output empty",
		"pending    no result in history\n",
		"execution (none recorded)",
		"retry timers: events 1, 3",
		"suspect ambiguous_failure_retried  ChargeCard",
		"evidence: events 0, 1, 2; history positions 2, 4, 5, 7",
		"notice  reexecuted  ChargeCard",
		"These 4 fields were " REPORT_WITHHELD_PHRASE "\n",
		"(metadata, inferred: no input, output or customStatus key on any event):",
		"- input of 3 TaskScheduled events (events 0, 2, 4)",
		"- output of 1 TaskCompleted event\n",
		"- A worker crash after the side effect",
		"Not audited",
		"catalyst_get_workflow_run was refused: denied",
		"refusal denied: Ask an organization administrator to allow this.",
		"note 1: --project was taken as a name",
		"Summary: SUSPECT  2 runs, 2 activities, 1 re-executed, 2 findings (1 suspect), 1\n         run not audited.\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		ck_assert_msg(strstr(t, want[i]), "missing '%s' in:\n%s", want[i], t);
	static const char *const never[] = {"no output", "returned nothing", "input empty", "output null"};
	for (size_t i = 0; i < sizeof never / sizeof *never; i++)
		ck_assert_msg(!strstr(t, never[i]), "'%s' in:\n%s", never[i], t);
	ck_assert_uint_eq(count(t, "empty"), 1); /* only the present-empty output */
	free(t);
	free_report(&r);
}
END_TEST

START_TEST(text_without_link_names_the_ids)
{
	struct report r;
	build_report(&r, false);
	char *t = render(FORMAT_TEXT, &r, false);
	ck_assert_msg(strstr(t, "console       app payments\\x1b[31m, run pay-20931 (no console link: the app id\n"
				"                is not in this file)"),
		      "in:\n%s", t);
	ck_assert_ptr_nonnull(strstr(t, "app payments, run pay-20932 (no console link)"));
	ck_assert_ptr_null(strstr(t, "https://"));
	free(t);
	free_report(&r);
}
END_TEST

static void check_type(json_t *o, const char *key, json_type want, bool nullable, const char *where)
{
	json_t *v = json_object_get(o, key);
	ck_assert_msg(v, "%s: no key '%s'", where, key);
	ck_assert_msg(json_typeof(v) == want || (nullable && json_is_null(v)), "%s: '%s' has type %d", where, key,
		      (int)json_typeof(v));
}

static void check_order(json_t *o, const char *const *keys, size_t n, const char *where)
{
	size_t i = 0;
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		(void)v;
		if (i < n)
			ck_assert_msg(strcmp(k, keys[i]) == 0, "%s: key %zu is '%s', want '%s'", where, i, k,
				      keys[i]);
		i++;
	}
	ck_assert_msg(i >= n, "%s: %zu keys", where, i);
}

START_TEST(json_shape)
{
	struct report r;
	build_report(&r, true);
	char *t = render(FORMAT_JSON, &r, false);
	ck_assert_uint_gt(strlen(t), 0);
	ck_assert_int_eq(t[strlen(t) - 1], '\n');
	json_error_t je;
	json_t *doc = json_loads(t, 0, &je);
	ck_assert_msg(doc, "invalid JSON at %d: %s\n%s", je.position, je.text, t);

	static const char *const top[] = {"schema",  "generated_at", "tool_version", "command", "project",
					  "filters", "baseline",     "runs",         "summary"};
	check_order(doc, top, 9, "top");
	ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "catalyst-audit.report/v1");
	json_t *runs = json_object_get(doc, "runs");
	ck_assert_uint_eq(json_array_size(runs), 2);

	json_t *run = json_array_get(runs, 0);
	static const char *const run_keys[] = {"app_id", "run_id",  "workflow",
					       "status", "project", "console_link"};
	check_order(run, run_keys, 6, "run");
	ck_assert_str_eq(json_string_value(json_object_get(run, "app_id")), "payments\x1b[31m");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(run, "project"), "name")), "default");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(run, "data_sharing"), "level")),
			 "metadata");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(run, "data_sharing"), "source")),
			 source);

	json_t *acts = json_object_get(run, "activities");
	ck_assert_uint_eq(json_array_size(acts), 2);
	json_t *charge = json_array_get(acts, 0);
	check_type(charge, "name", JSON_STRING, false, "activity");
	check_type(charge, "task_execution_id", JSON_STRING, true, "activity");
	check_type(charge, "attempts", JSON_ARRAY, false, "activity");
	check_type(charge, "retry_timer_event_ids", JSON_ARRAY, false, "activity");
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(charge, "retry_timer_event_ids"), 1)),
			 3);
	json_t *att = json_array_get(json_object_get(charge, "attempts"), 0);
	static const char *const att_keys[] = {"attempt", "task_scheduled_id", "scheduled_at", "outcome",
					       "error_message"};
	check_order(att, att_keys, 5, "attempt");
	ck_assert_int_eq(json_integer_value(json_object_get(att, "task_scheduled_id")), 0);
	/* Counted from 1 (issue 19), whatever the event ids. */
	ck_assert_int_eq(json_integer_value(json_object_get(att, "attempt")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(att, "outcome")), "failed");
	ck_assert_str_eq(json_string_value(json_object_get(att, "error_message")), HOSTILE_ERROR);
	ck_assert_str_eq(json_string_value(json_object_get(att, "failure_class")), "ambiguous");
	json_t *third = json_array_get(json_object_get(charge, "attempts"), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(third, "attempt")), 3);
	ck_assert(json_is_null(json_object_get(third, "error_message")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(third, "output"), "state")), "empty");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(third, "input"), "state")), "absent");

	json_t *ship = json_array_get(acts, 1);
	ck_assert(json_is_null(json_object_get(ship, "task_execution_id"))); /* "" is no id */
	ck_assert_str_eq(json_string_value(
				 json_object_get(json_array_get(json_object_get(ship, "attempts"), 0), "outcome")),
			 "pending");
	ck_assert(json_is_null(json_object_get(json_array_get(json_object_get(ship, "attempts"), 0),
					       "scheduled_at")) == false);

	json_t *f = json_array_get(json_object_get(run, "findings"), 0);
	static const char *const f_keys[] = {
		"id", "kind", "severity", "new", "activity", "task_execution_id", "evidence_event_ids", "message"};
	check_order(f, f_keys, 8, "finding");
	/* the id: stable (the same for the same finding of the same run),
	 * and no two findings share one */
	const char *id = json_string_value(json_object_get(f, "id"));
	ck_assert_msg(id && strlen(id) == 18 && strncmp(id, "f-", 2) == 0, "%s", id ? id : "(none)");
	size_t fi;
	json_t *other;
	json_array_foreach(json_object_get(run, "findings"), fi, other)
		if (fi > 0)
			ck_assert_str_ne(json_string_value(json_object_get(other, "id")), id);
	ck_assert_str_eq(json_string_value(json_object_get(f, "kind")), "ambiguous_failure_retried");
	ck_assert_str_eq(json_string_value(json_object_get(f, "severity")), "suspect");
	ck_assert_uint_eq(json_array_size(json_object_get(f, "evidence_event_ids")), 3);
	ck_assert_uint_eq(json_array_size(json_object_get(f, "evidence_event_indexes")), 4);

	json_t *w = json_array_get(json_object_get(run, "withheld"), 3);
	static const char *const w_keys[] = {"event_id", "event_type", "field"};
	check_order(w, w_keys, 3, "withheld");
	ck_assert_int_eq(json_integer_value(json_object_get(w, "event_id")), -1);
	ck_assert_str_eq(json_string_value(json_object_get(w, "field")), "output");
	ck_assert_uint_eq(json_array_size(json_object_get(run, "limits")), 2);

	json_t *failed = json_array_get(runs, 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(failed, "project"), "uid")), "prj-165");
	ck_assert(json_is_null(json_object_get(failed, "console_link")));
	ck_assert(json_is_null(json_object_get(failed, "workflow")));
	ck_assert_uint_eq(json_array_size(json_object_get(failed, "activities")), 0);
	json_t *err = json_object_get(failed, "error");
	ck_assert_int_eq(json_integer_value(json_object_get(err, "code")), 4);
	ck_assert_str_eq(json_string_value(json_object_get(err, "refusal_kind")), "denied");

	json_t *sum = json_object_get(doc, "summary");
	static const char *const s_keys[] = {"runs", "activities", "reexecuted", "findings"};
	check_order(sum, s_keys, 4, "summary");
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "runs")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "activities")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "reexecuted")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "findings")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(sum, "suspect")), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "notes")), 1);

	/* The streaming writer lays out exactly what jansson would. */
	char *again = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	ck_assert_ptr_nonnull(again);
	ck_assert_uint_eq(strlen(again) + 1, strlen(t));
	ck_assert(strncmp(again, t, strlen(again)) == 0);
	/* No raw control or bidi byte even when a human cats it. */
	ck_assert_ptr_null(strchr(t, '\x1b'));
	ck_assert_ptr_null(strstr(t, "\xe2\x80\xae"));
	free(again);
	json_decref(doc);
	free(t);
	free_report(&r);
}
END_TEST

START_TEST(json_invalid_utf8_is_repaired)
{
	struct report r;
	build_report(&r, true);
	free(r.runs[0].run_id);
	r.runs[0].run_id = strdup("bad\xff"
				  "id");
	char *t = render(FORMAT_JSON, &r, false);
	json_t *doc = json_loads(t, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	ck_assert_str_eq(
		json_string_value(json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "run_id")),
		"bad\xef\xbf\xbdid");
	json_decref(doc);
	free(t);
	free_report(&r);
}
END_TEST

/* Pipes that are not escaped, i.e. cell separators. */
static size_t separators(const char *line, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '\\') {
			i++;
			continue;
		}
		if (line[i] == '|')
			n++;
	}
	return n;
}

START_TEST(markdown_tables_hold)
{
	struct report r;
	build_report(&r, true);
	char *t = render(FORMAT_MARKDOWN, &r, false);
	ck_assert_ptr_null(strchr(t, '\x1b'));
	ck_assert_ptr_null(strchr(t, '\r'));
	ck_assert_ptr_null(strstr(t, "\xe2\x80\xae"));
	ck_assert_ptr_nonnull(strstr(t, "## Re-execution audit\n"));
	ck_assert_ptr_nonnull(strstr(t,
				     "**Summary:** 2 runs, 2 activities, 1 re-executed, 2 findings (1 suspect), "
				     "1 run not audited."));
	ck_assert_ptr_nonnull(strstr(t, "Ship\\|It \\*now\\* \\`x\\`"));
	ck_assert_msg(strstr(t, "\\\\x1b\\[2K\\\\rRemote end closed \\\\u202edias)"), "in:\n%s", t);
	ck_assert_ptr_nonnull(strstr(
		t, "| Console | <https://catalyst.diagrid.io/workflows/payments/pay-20931?project=default> |"));
	ck_assert_ptr_nonnull(strstr(t, "These fields were " REPORT_WITHHELD_PHRASE " (metadata, inferred"));
	ck_assert_ptr_nonnull(strstr(t, "- **suspect** `ambiguous_failure_retried`, ChargeCard"));
	ck_assert_ptr_nonnull(strstr(t, "Evidence: events 0, 1, 2."));
	ck_assert_ptr_nonnull(strstr(t, "**Not audited:** catalyst\\_get\\_workflow\\_run was refused: denied "
					"(refusal denied: Ask an organization administrator to allow this.)"));
	ck_assert_ptr_nonnull(strstr(t, ", output empty\n")); /* the present-empty output */

	/* Every row of a table has as many separators as its header. */
	size_t want = 0;
	const char *p = t;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && p[0] == '|') {
			size_t n = separators(p, len);
			if (want == 0)
				want = n;
			/* at most six columns: GitHub cuts wider tables off */
			ck_assert_msg(n <= 7, "a table of %zu columns: %.*s", n - 1, (int)len, p);
			ck_assert_msg(n == want, "row has %zu separators, header %zu: %.*s", n, want, (int)len, p);
		} else {
			want = 0;
		}
		p += len + (nl ? 1 : 0);
	}
	free(t);
	free_report(&r);
}
END_TEST

/* GitHub takes at most 65,536 characters in an issue or comment: the
 * short Markdown view of thousands of runs with long, escape-heavy ids
 * and app ids (each its own folded line) stays under it, and says so. */
START_TEST(markdown_stays_within_an_issue)
{
	struct report r;
	build_analysis();
	report_init(&r);
	char id[700];
	for (size_t i = 0; i < 3000; i++) {
		struct report_run *run = report_add_run(&r);
		ck_assert_ptr_nonnull(run);
		memset(id, '|', 600);
		snprintf(id + 600, sizeof id - 600, "<%zu>", i);
		run->run_id = strdup(id);
		id[0] = '*';
		run->app_id = strdup(id);
		run->analysis = &analysis;
	}
	report_summarize(&r);
	for (int all = 0; all < 2; all++) {
		char *t = render_view(FORMAT_MARKDOWN, &r, false, REPORT_SHORT, all);
		fprintf(stderr, "3000 runs, all_runs %d: %zu bytes\n", all, strlen(t));
		ck_assert_uint_lt(strlen(t), 65536);
		ck_assert_ptr_nonnull(strstr(t, "**Folded to stay within GitHub's 65,536 characters:**"));
		ck_assert_ptr_nonnull(strstr(t, "(`--format json`)"));
		ck_assert_ptr_nonnull(strstr(t, "### What these histories cannot show"));
		free(t);
	}
	free_report(&r);
}
END_TEST

START_TEST(empty_report)
{
	struct report r;
	report_init(&r);
	report_summarize(&r);
	char *t = render(FORMAT_TEXT, &r, false);
	ck_assert_ptr_nonnull(strstr(t, "No runs to audit."));
	free(t);
	t = render(FORMAT_JSON, &r, false);
	ck_assert_str_eq(t,
			 "{\n  \"schema\": \"catalyst-audit.report/v1\",\n  \"generated_at\": null,\n"
			 "  \"tool_version\": null,\n  \"command\": null,\n  \"project\": null,\n"
			 "  \"filters\": null,\n  \"baseline\": null,\n  \"runs\": [],\n  \"summary\": {\n"
			 "    \"runs\": 0,\n    \"activities\": 0,\n    \"reexecuted\": 0,\n    \"findings\": 0,\n"
			 "    \"suspect\": 0,\n    \"failed_runs\": 0,\n    \"new\": 0,\n    \"known\": 0,\n"
			 "    \"new_suspect\": 0\n  }\n}\n");
	free(t);
	report_finish(&r);
}
END_TEST

/* runs rendered apart, in reverse order, and spliced back in report order:
 * the bytes of render_json for the whole report */
START_TEST(json_segments_splice_to_the_whole_report)
{
	struct report r;
	build_report(&r, true);
	char *whole = render(FORMAT_JSON, &r, false);
	struct err e;
	err_clear(&e);
	FILE *tmp = tmpfile();
	ck_assert_ptr_nonnull(tmp);
	off_t off[2];
	size_t len[2];
	for (size_t k = r.n_runs; k-- > 0;) {
		off[k] = ftello(tmp);
		struct render_json_stream *seg = render_json_begin_segment(tmp, NULL, &e);
		ck_assert_ptr_nonnull(seg);
		ck_assert_int_eq(render_json_run(seg, &r.runs[k], &e), 0);
		ck_assert_int_eq(render_json_end(seg, NULL, &e), 0);
		len[k] = (size_t)(ftello(tmp) - off[k]);
		ck_assert_uint_gt(len[k], 0);
	}
	ck_assert_int_eq(fflush(tmp), 0);

	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);
	ck_assert_ptr_nonnull(out);
	struct render_options o = {.width = 80};
	struct render_json_stream *s = render_json_begin(out, &r, &o, &e);
	ck_assert_ptr_nonnull(s);
	for (size_t k = 0; k < r.n_runs; k++)
		ck_assert_int_eq(render_json_splice(s, fileno(tmp), off[k], len[k], &e), 0);
	ck_assert_int_eq(render_json_end(s, &r, &e), 0);
	fclose(out);
	fclose(tmp);
	ck_assert_str_eq(text, whole);
	free(text);
	free(whole);
	free_report(&r);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* A run big enough for the JSON writer to split its arrays between two
 * threads (each array well over its 2 MiB threshold), with what makes a
 * writer take its slow paths: strings to escape, invalid UTF-8, repeating
 * strings (the cache) next to unique ones, and findings whose messages are
 * over the 1 MiB buffer, three in a row (a chunk bigger than the buffers
 * between the threads). All in one pool, freed by free_big. */

#define BIG_INV 3000
#define BIG_FINDINGS 2500
#define BIG_WITHHELD 20000
#define BIG_STRING ((size_t)1200 << 10)

static struct attempt_more big_more[6] = {
	{0},
	{.error_type = "ConnectionError", .error_message = "bad byte \xc3("},
	{.error_type = "ConnectionError", .error_message = HOSTILE_ERROR},
	{.instance_id = "child-\xce\xbb-1"},
	{.instance_id = "child-\xce\xbb-1", .error_type = "ConnectionError", .error_message = "bad byte \xc3("},
	{.instance_id = "child-\xce\xbb-1", .error_type = "ConnectionError", .error_message = HOSTILE_ERROR},
};

struct big {
	struct analysis a;
	struct invocation *inv;
	struct attempt *att;
	struct finding *f;
	struct withheld *h;
	int64_t *ids;
	uint32_t *idx;
	char *pool; /* the unique strings */
	char *huge[3];
};

static void build_big(struct big *b)
{
	memset(b, 0, sizeof *b);
	b->inv = calloc(BIG_INV, sizeof *b->inv);
	b->att = calloc(3 * BIG_INV, sizeof *b->att);
	b->f = calloc(BIG_FINDINGS, sizeof *b->f);
	b->h = calloc(BIG_WITHHELD, sizeof *b->h);
	b->ids = calloc(8, sizeof *b->ids);
	b->idx = calloc(8, sizeof *b->idx);
	b->pool = malloc((size_t)(BIG_INV * 3 + BIG_FINDINGS) * 96);
	ck_assert(b->inv && b->att && b->f && b->h && b->ids && b->idx && b->pool);
	for (size_t i = 0; i < 8; i++) {
		b->ids[i] = (int64_t)i * 7 - 1;
		b->idx[i] = (uint32_t)i * 3;
	}
	/* plain, to escape, and invalid UTF-8 (repaired by the writer) */
	for (size_t k = 0; k < 3; k++) {
		b->huge[k] = malloc(BIG_STRING + 1);
		ck_assert_ptr_nonnull(b->huge[k]);
		for (size_t i = 0; i < BIG_STRING; i++)
			b->huge[k][i] = (char)('a' + i % 26);
		b->huge[k][BIG_STRING] = '\0';
	}
	memcpy(b->huge[1] + 1000, "\"\n\x1b\xe2\x80\xae", 6);
	b->huge[2][5000] = (char)0xff;

	char *pool = b->pool;
	size_t a = 0;
	for (size_t i = 0; i < BIG_INV; i++) {
		struct invocation *inv = &b->inv[i];
		inv->name = i % 3 ? "ChargeCard" : "Ship|It \"now\"";
		inv->is_child_workflow = i % 50 == 7;
		inv->n_attempts = i % 7 ? 1 : 3;
		inv->attempts = &b->att[a];
		inv->retry_timer_event_ids = b->ids;
		inv->n_retry_timers = inv->n_attempts - 1;
		inv->generation = (uint32_t)(i / 1000);
		inv->link = inv->n_attempts > 1 ? LINK_TIMER_ORIGIN : LINK_SINGLE;
		for (uint32_t k = 0; k < inv->n_attempts; k++, a++) {
			struct attempt *at = &b->att[a];
			at->scheduled_id = (int64_t)a;
			at->scheduled_at = pool;
			pool += sprintf(pool, "2026-09-14T10:%02zu:%02zu.%03zuZ", a / 3600 % 60, a / 60 % 60,
					a % 1000) +
				1;
			at->task_execution_id = i % 11 ? pool : "";
			pool += sprintf(pool, "%08zx-3f6d-4e0b-9a51-%012zx", i, a) + 1;
			at->outcome = k + 1 < inv->n_attempts ? OUTCOME_FAILED : OUTCOME_COMPLETED;
			/* child or not; completed, or failed with a bad byte or the
			 * hostile message */
			size_t m =
				(inv->is_child_workflow ? 3 : 0) + (at->outcome == OUTCOME_FAILED ? 1 + k % 2 : 0);
			at->more = m ? &big_more[m] : NULL;
			if (at->outcome == OUTCOME_FAILED) {
				at->failure = FAILURE_AMBIGUOUS;
				at->completed_at = at->scheduled_at;
			}
			at->n_results = 1;
			at->input.state = (enum payload_state)(a % 4);
			at->input.size = a;
			at->output.state = PAYLOAD_PRESENT;
			at->output.size = 3 * a;
		}
		inv->task_execution_id = inv->attempts[0].task_execution_id;
	}
	for (size_t i = 0; i < BIG_FINDINGS; i++) {
		struct finding *f = &b->f[i];
		f->kind = (enum finding_kind)(i % FINDING_KIND_COUNT);
		f->severity = finding_kind_severity(f->kind);
		f->activity = i % 9 ? b->inv[i].name : NULL;
		f->task_execution_id = b->inv[i].task_execution_id;
		f->evidence_event_ids = b->ids;
		f->n_evidence = i % 8;
		f->evidence_event_indexes = b->idx;
		f->n_evidence_event_indexes = (i + 3) % 8;
		f->message_head = pool;
		pool += sprintf(pool, "Finding %zu: \"%s\" ran %zu times.\n%s", i, f->activity ? f->activity : "-",
				i % 5, i % 2 ? "Key it." : "\xe2\x82\xac") +
			1;
		if (i >= 70 && i < 73)
			f->message_head = b->huge[i - 70];
	}
	for (size_t i = 0; i < BIG_WITHHELD; i++)
		b->h[i] = (struct withheld){.event_id = (int64_t)i - 5,
					    .event_index = (uint32_t)i,
					    .kind = i % 3 ? EVENT_TASK_SCHEDULED : EVENT_TASK_COMPLETED,
					    .field = (uint8_t)(i % 3)};
	b->a.workflow = "BigWorkflow";
	b->a.instance_id = "big-1";
	b->a.n_generations = 3;
	b->a.invocations = b->inv;
	b->a.n_invocations = BIG_INV;
	b->a.findings = b->f;
	b->a.n_findings = BIG_FINDINGS;
	b->a.withheld = b->h;
	b->a.n_withheld = BIG_WITHHELD;
	b->a.sharing = SHARING_FULL;
	b->a.n_events = 99999;
}

static void free_big(struct big *b)
{
	for (size_t k = 0; k < 3; k++)
		free(b->huge[k]);
	free(b->inv);
	free(b->att);
	free(b->f);
	free(b->h);
	free(b->ids);
	free(b->idx);
	free(b->pool);
}

/* Two runs of the big analysis and a small one in between. */
static void build_big_report(struct report *r, struct big *b)
{
	build_big(b);
	build_analysis();
	report_init(r);
	const char *ids[] = {"big-1", "pay-20931", "big-2"};
	for (size_t i = 0; i < 3; i++) {
		struct report_run *run = report_add_run(r);
		ck_assert_ptr_nonnull(run);
		run->run_id = strdup(ids[i]);
		run->analysis = i == 1 ? &analysis : &b->a;
	}
	report_summarize(r);
}

static void free_big_report(struct report *r, struct big *b)
{
	for (size_t i = 0; i < r->n_runs; i++)
		r->runs[i].analysis = NULL;
	report_finish(r);
	free_big(b);
}

/* A FILE that takes limit bytes and then fails for good, noting how many threads
 * the process had at each write (the writer's worker is alive while an
 * array is split). */
struct sink {
	char *data;
	size_t len, limit;
	bool full;
	int max_threads;
};

static int threads_now(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct sink *k = cookie;
	int t = threads_now();
	if (t > k->max_threads)
		k->max_threads = t;
	if (k->full || size > k->limit - k->len) {
		k->full = true;
		errno = ENOSPC;
		return 0; /* fopencookie's "error": a negative count corrupts the FILE */
	}
	memcpy(k->data + k->len, buf, size);
	k->len += size;
	return (ssize_t)size;
}

/* Renders r as JSON into a sink of limit bytes; returns render_json's
 * result, with the error in *e. */
static int render_sink(const struct report *r, struct sink *k, size_t limit, unsigned threads, struct err *e)
{
	memset(k, 0, sizeof *k);
	k->limit = limit;
	k->data = malloc(limit);
	ck_assert_ptr_nonnull(k->data);
	FILE *f = fopencookie(k, "w", (cookie_io_functions_t){.write = sink_write});
	ck_assert_ptr_nonnull(f);
	struct render_options o = {.width = 80, .threads = threads};
	err_clear(e);
	int rc = render_json(f, r, &o, e);
	if (fclose(f) != 0 && rc == 0)
		rc = -2;
	return rc;
}

#define BIG_OUT ((size_t)64 << 20)

START_TEST(json_threads_write_the_same_bytes)
{
	struct report r;
	struct big b;
	build_big_report(&r, &b);
	struct sink one, two;
	struct err e;
	ck_assert_int_eq(render_sink(&r, &one, BIG_OUT, 1, &e), 0);
	ck_assert_int_eq(render_sink(&r, &two, BIG_OUT, 0, &e), 0);
	ck_assert_int_eq(one.max_threads, 1);
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		ck_assert_int_ge(two.max_threads, 2); /* it did split */
	ck_assert_uint_gt(one.len, (size_t)20 << 20);
	ck_assert_uint_eq(one.len, two.len);
	ck_assert(memcmp(one.data, two.data, one.len) == 0);

	/* and it is the report: valid JSON, every item there */
	json_error_t je;
	json_t *doc = json_loadb(two.data, two.len, 0, &je);
	ck_assert_msg(doc != NULL, "%s at %d", je.text, je.position);
	json_t *run = json_array_get(json_object_get(doc, "runs"), 2);
	ck_assert_uint_eq(json_array_size(json_object_get(run, "activities")), BIG_INV);
	ck_assert_uint_eq(json_array_size(json_object_get(run, "findings")), BIG_FINDINGS);
	ck_assert_uint_eq(json_array_size(json_object_get(run, "withheld")), BIG_WITHHELD);
	json_t *huge = json_object_get(json_array_get(json_object_get(run, "findings"), 71), "message");
	ck_assert_str_eq(json_string_value(huge), b.huge[1]);
	json_decref(doc);
	free(one.data);
	free(two.data);
	free_big_report(&r, &b);
}
END_TEST

/* A write that fails part way, in a split array or at the first flush, is
 * the same error with two threads as with one. */
START_TEST(json_threads_report_write_failures)
{
	struct report r;
	struct big b;
	build_big_report(&r, &b);
	size_t caps[] = {0, (size_t)3 << 20, (size_t)9 << 20};
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
		struct sink one, two;
		struct err e1, e2;
		ck_assert_int_eq(render_sink(&r, &one, caps[i], 1, &e1), -1);
		ck_assert_int_eq(render_sink(&r, &two, caps[i], 0, &e2), -1);
		ck_assert_int_eq(e1.code, ERR_USAGE);
		ck_assert_int_eq(e2.code, ERR_USAGE);
		ck_assert_str_eq(e2.msg, e1.msg);
		/* what got through is the start of the report (how much of it
		 * depends on the sizes of the writes) */
		size_t n = one.len < two.len ? one.len : two.len;
		ck_assert(memcmp(one.data, two.data, n) == 0);
		free(one.data);
		free(two.data);
	}

	/* and a real device that is always full */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		struct render_options o = {.width = 80};
		struct err e;
		err_clear(&e);
		ck_assert_int_eq(render_json(full, &r, &o, &e), -1);
		ck_assert_int_eq(e.code, ERR_USAGE);
		fclose(full);
	}
	free_big_report(&r, &b);
}
END_TEST

/* What text and Markdown word alike (report.c), table by table. */
START_TEST(verdict_and_summary_wording)
{
	static const struct {
		struct report r;
		const char *word, *text, *summary;
	} cases[] = {
		{{.n_runs = 1},
		 "CLEAN",
		 "no activity in this run is shown to have run more than once.",
		 "1 run, 0 activities, 0 re-executed, 0 findings (0 suspect)."},
		{{.n_runs = 3, .n_activities = 1, .n_findings = 2, .n_finding_runs = 2, .n_failed_runs = 1},
		 "NOTICE",
		 "2 notices in 2 of 3 runs: retries happened, none suspect. 1 run could not be audited.",
		 "3 runs, 1 activity, 0 re-executed, 2 findings (0 suspect), 1 run not audited."},
		{{.n_runs = 2,
		  .n_activities = 4,
		  .n_reexecuted = 2,
		  .n_findings = 3,
		  .n_suspect = 2,
		  .n_suspect_runs = 1},
		 "SUSPECT",
		 "2 suspect findings in 1 of 2 runs, and 1 notice.",
		 "2 runs, 4 activities, 2 re-executed, 3 findings (2 suspect)."},
		{{.n_runs = 1, .n_findings = 1, .n_suspect = 1, .n_suspect_runs = 1},
		 "SUSPECT",
		 "1 suspect finding.",
		 "1 run, 0 activities, 0 re-executed, 1 finding (1 suspect)."},
		{{.n_runs = 2, .n_failed_runs = 2},
		 "INCOMPLETE",
		 "nothing was audited.",
		 "2 runs, 0 activities, 0 re-executed, 0 findings (0 suspect), 2 runs not audited."},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct report *r = &cases[i].r;
		ck_assert_str_eq(report_verdict(r), cases[i].word);
		struct buf b;
		buf_init(&b, 0);
		ck_assert_int_eq(report_verdict_sentence(&b, r, false), 0);
		ck_assert_str_eq(b.data, cases[i].text);
		buf_reset(&b);
		/* Markdown's sentence is the same, capitalised when it starts lower case */
		ck_assert_int_eq(report_verdict_sentence(&b, r, true), 0);
		ck_assert_int_eq(b.data[0], cases[i].text[0] == 'n' ? 'N' : cases[i].text[0]);
		ck_assert_str_eq(b.data + 1, cases[i].text + 1);
		buf_reset(&b);
		ck_assert_int_eq(report_summary_sentence(&b, r), 0);
		ck_assert_str_eq(b.data, cases[i].summary);
		buf_finish(&b);
	}
}
END_TEST

START_TEST(evidence_and_ids_wording)
{
	static int64_t one[] = {7}, three[] = {0, 2, 4};
	static uint32_t at[] = {3, 9};
	static const struct {
		struct finding f;
		const char *ids, *with_positions;
	} cases[] = {
		{{.evidence_event_ids = one, .n_evidence = 1}, "event 7", "event 7"},
		{{.evidence_event_ids = three, .n_evidence = 3}, "events 0, 2, 4", "events 0, 2, 4"},
		{{.evidence_event_indexes = at, .n_evidence_event_indexes = 2},
		 "history positions 3, 9",
		 "history positions 3, 9"},
		{{.evidence_event_ids = one,
		  .n_evidence = 1,
		  .evidence_event_indexes = at,
		  .n_evidence_event_indexes = 1},
		 "event 7",
		 "event 7; history positions 3"},
	};
	struct buf b;
	buf_init(&b, 0);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		buf_reset(&b);
		ck_assert_int_eq(report_evidence(&b, &cases[i].f, false), 0);
		ck_assert_str_eq(b.data, cases[i].ids);
		buf_reset(&b);
		ck_assert_int_eq(report_evidence(&b, &cases[i].f, true), 0);
		ck_assert_str_eq(b.data, cases[i].with_positions);
	}
	static const struct {
		struct report_withheld_group g;
		const char *want;
	} groups[] = {
		{{.count = 2}, ""},
		{{.count = 1, .ids = {5}, .n_ids = 1}, " (event 5)"},
		{{.count = 2, .ids = {5, 6}, .n_ids = 2}, " (events 5, 6)"},
		{{.count = 40, .ids = {5, 6}, .n_ids = 2}, " (events 5, 6, ...)"},
	};
	for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
		buf_reset(&b);
		ck_assert_int_eq(report_withheld_ids(&b, &groups[i].g), 0);
		ck_assert_str_eq(b.data ? b.data : "", groups[i].want);
	}
	buf_finish(&b);
}
END_TEST

START_TEST(time_to_the_minute)
{
	static const struct {
		const char *in, *want; /* want NULL: not an ISO time, shown as it is */
	} cases[] = {
		{"2026-09-14T11:30:00.040Z", "2026-09-14 11:30"},
		{"2026-09-14 11:30", "2026-09-14 11:30"},
		{"2026-09-14T11:30", "2026-09-14 11:30"},
		{"2026-09-14T11:3", NULL},
		{"2026-09-14X11:30:00Z", NULL},
		{"2026-O9-14T11:30:00Z", NULL},
		{"1789000000000", NULL},
		{"", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char out[64] = "untouched";
		bool iso = report_time_minute(cases[i].in, out, sizeof out);
		ck_assert_msg(iso == (cases[i].want != NULL), "case %zu", i);
		ck_assert_str_eq(out, cases[i].want ? cases[i].want : "untouched");
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("render");
	struct testlib_group *tc = testlib_group("render");
	add_test(tc, summary_counts);
	add_test(tc, text_neutralises_server_strings);
	add_test(tc, text_colour_only_when_asked);
	add_test(tc, text_fits_80_columns);
	add_test(tc, overview_lists_every_run);
	add_test(tc, text_report_content);
	add_test(tc, text_without_link_names_the_ids);
	add_test(tc, json_shape);
	add_test(tc, json_invalid_utf8_is_repaired);
	add_test(tc, markdown_tables_hold);
	add_test(tc, markdown_stays_within_an_issue);
	add_test(tc, empty_report);
	add_test(tc, json_segments_splice_to_the_whole_report);
	add_test(tc, json_threads_write_the_same_bytes);
	add_test(tc, verdict_and_summary_wording);
	add_test(tc, evidence_and_ids_wording);
	add_test(tc, time_to_the_minute);
	testlib_suite_add(s, tc);
	/* Six more renders of a 20 MB report: the plain and ASan/UBSan passes
	 * run it; the valgrind pass (CK_EXCLUDE_TAGS) checks the threaded path
	 * through the test above and leaves this one out. */
	struct testlib_group *heavy = testlib_group("render-heavy");
	testlib_group_tags(heavy, "heavy");
	testlib_group_timeout(heavy, 120);
	add_test(heavy, json_threads_report_write_failures);
	testlib_suite_add(s, heavy);
	return testlib_main(s);
}
