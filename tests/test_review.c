/* meson-test: integration */
/* `review`: the activities and hazards of the fixtures under
 * tests/fixtures/review/ (one folder per language). Each fixture says what
 * must be found where: a line marked "HIT <hazard>" must give exactly
 * that hazard, and nothing else may be reported (the MUST-NOT lines are
 * the near misses: a uuid made in the workflow, a POST with the
 * idempotency header, a loop over the input, a read of one key and a
 * write of another). Then the command's exit status, and a history's
 * finding joined to its activity's code with `file --source`. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review.h"
#include "testlib.h"

#define CLI_TIMEOUT_MS 60000
#define MAX_MARKS 32

static const char *const langs[] = {"python", "go", "java", "csharp", "typescript"};
#define N_LANGS (sizeof langs / sizeof *langs)

struct mark {
	char file[512];
	unsigned line;
	char kind[48];
	bool helper;
	bool seen;
};

/* The "HIT kind" markers of every file under dir: the hazards the fixture
 * author expects, with "(helper)" when the line is in a helper. */
static void read_marks(const char *dir, struct mark *m, size_t *n)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR) {
			read_marks(path, m, n);
			continue;
		}
		size_t len;
		char *text = testlib_read_file(path, &len);
		ck_assert_ptr_nonnull(text);
		unsigned line = 1;
		for (char *p = text; *p; p++) {
			if (*p == '\n') {
				line++;
				continue;
			}
			/* a marker is a comment of its own: "# HIT kind", "// HIT kind" */
			if (strncmp(p, "HIT ", 4) != 0 || p - text < 2 || p[-1] != ' ' ||
			    (p[-2] != '#' && p[-2] != '/'))
				continue;
			ck_assert_uint_lt(*n, MAX_MARKS);
			struct mark *k = &m[(*n)++];
			snprintf(k->file, sizeof k->file, "%s", path);
			k->line = line;
			sscanf(p + 4, "%47[a-z-]", k->kind);
			char *eol = strchr(p, '\n');
			size_t rest = eol ? (size_t)(eol - p) : strlen(p);
			k->helper = memmem(p, rest, "(helper)", 8) != NULL;
			k->seen = false;
		}
		free(text);
	}
	closedir(d);
}

static const char *kind_id(enum review_hazard_kind k)
{
	return review_hazard_rows[k].id;
}

/* A hazard reported must be marked, once; then every mark must have been
 * reported. */
static void match(struct mark *m, size_t n, const struct review_hazard *h, const char *lang)
{
	for (size_t i = 0; i < n; i++) {
		if (m[i].seen || m[i].line != h->line || strcmp(m[i].file, h->file) != 0 ||
		    strcmp(m[i].kind, kind_id(h->kind)) != 0)
			continue;
		ck_assert_msg(m[i].helper == (h->helper != NULL), "%s:%u: helper %s", h->file, h->line,
			      h->helper ? h->helper : "none");
		m[i].seen = true;
		return;
	}
	ck_abort_msg("%s: %s:%u: %s reported, but the line is not marked HIT %s: %s", lang, h->file, h->line,
		     kind_id(h->kind), kind_id(h->kind), h->detail);
}

START_TEST(every_marked_hazard_and_nothing_else)
{
	const char *lang = langs[_i];
	char dir[512];
	snprintf(dir, sizeof dir, "%s/%s", testlib_src("tests/fixtures/review"), lang);
	struct mark marks[MAX_MARKS];
	size_t n = 0;
	read_marks(dir, marks, &n);
	ck_assert_uint_ge(n, 4); /* each fixture marks most kinds */

	struct review rv;
	review_init(&rv);
	struct err e;
	err_clear(&e);
	const char *paths[] = {dir};
	ck_assert_msg(review_paths(&rv, paths, 1, &e) == 0, "%s", e.msg);
	size_t reported = 0;
	for (size_t i = 0; i < rv.n_activities; i++)
		for (size_t k = 0; k < rv.activities[i].n_hazards; k++, reported++)
			match(marks, n, &rv.activities[i].hazards[k], lang);
	for (size_t k = 0; k < rv.n_orchestrator; k++, reported++)
		match(marks, n, &rv.orchestrator[k], lang);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(marks[i].seen, "%s: %s:%u: marked HIT %s, not reported", lang, marks[i].file,
			      marks[i].line, marks[i].kind);
	ck_assert_uint_eq(reported, rv.n_hazards);
	review_finish(&rv);
}
END_TEST

/* The activities each fixture declares, as the history would name them:
 * the registered name where one is given, else the function's or class's;
 * a registration without a definition in the source listed as such (a
 * loop variable registered is no activity). */
static const struct {
	const char *lang, *names;
} declared[] = {
	{"python", "AddLoyaltyPoints ChargeCard ChargeCardWithKey CreateOrder NotifyCustomer RecordReceipt "
		   "ReserveStock ShipLines log_order Refund"},
	{"go",
	 "AddPoints ChargeCard ChargeCardWithKey CreateShipment LogOrder Notify ReserveStock !MissingActivity"},
	{"java", "ChargeCardActivity PointsActivity SafeChargeActivity"},
	{"csharp", "ChargeCardActivity SafeChargeActivity PointsActivity"},
	{"typescript", "chargeCard safeCharge addPoints ReserveStock"},
};

START_TEST(activities_are_found_across_files)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s/%s", testlib_src("tests/fixtures/review"), declared[_i].lang);
	struct review rv;
	review_init(&rv);
	struct err e;
	err_clear(&e);
	const char *paths[] = {dir};
	ck_assert_int_eq(review_paths(&rv, paths, 1, &e), 0);
	char want[512];
	snprintf(want, sizeof want, "%s", declared[_i].names);
	size_t n_want = 0;
	for (char *save = NULL, *w = strtok_r(want, " ", &save); w; w = strtok_r(NULL, " ", &save), n_want++) {
		bool undefined = *w == '!';
		const struct review_activity *a = review_find_activity(&rv, w + undefined);
		ck_assert_msg(a, "%s: %s not found", declared[_i].lang, w);
		ck_assert_str_eq(a->name, w + undefined);
		ck_assert_msg(a->defined == !undefined, "%s: %s defined %d", declared[_i].lang, w, a->defined);
		ck_assert_str_eq(review_lang_name(a->lang), declared[_i].lang);
	}
	ck_assert_uint_eq(rv.n_activities, n_want);
	review_finish(&rv);
}
END_TEST

/* A history names an activity as the SDK registered it: Java's full class
 * name finds the class, any case finds it, another name does not. */
START_TEST(history_names_find_the_activity)
{
	static const char py[] = "from dapr.ext.workflow import WorkflowRuntime\n"
				 "wfr = WorkflowRuntime()\n"
				 "@wfr.activity(name='ChargeCard')\n"
				 "def charge(ctx, order):\n"
				 "    return order\n";
	static const char java[] = "class ChargeCardActivity implements WorkflowActivity {\n"
				   "  public Object run(WorkflowActivityContext ctx) { return null; }\n"
				   "}\n";
	struct review rv;
	review_init(&rv);
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(review_buffer(&rv, "a.py", py, strlen(py), &e), 0);
	ck_assert_uint_eq(rv.n_activities, 1);
	ck_assert_ptr_nonnull(review_find_activity(&rv, "ChargeCard"));
	ck_assert_ptr_nonnull(review_find_activity(&rv, "chargecard"));
	ck_assert_ptr_null(review_find_activity(&rv, "charge"));
	ck_assert_ptr_null(review_find_activity(&rv, "ChargeCards"));
	review_finish(&rv);

	review_init(&rv);
	ck_assert_int_eq(review_buffer(&rv, "ChargeCardActivity.java", java, strlen(java), &e), 0);
	ck_assert_ptr_nonnull(review_find_activity(&rv, "io.dapr.examples.ChargeCardActivity"));
	review_finish(&rv);

	/* an extension review does not read: nothing, and no error */
	review_init(&rv);
	ck_assert_int_eq(review_buffer(&rv, "notes.txt", py, strlen(py), &e), 0);
	ck_assert_uint_eq(rv.n_files, 0);
	review_finish(&rv);
}
END_TEST

static void cli(struct testlib_output *o, char *const *args)
{
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, CLI_TIMEOUT_MS, o), 0);
}

/* Exit status as for findings: 1 with a hazard, 0 with --fail-on never or
 * none found, 2 for a path that is not there. */
START_TEST(review_exit_status)
{
	struct testlib_output o;
	char *hazards[] = {"review", (char *)testlib_src("tests/fixtures/review/python"), NULL};
	cli(&o, hazards);
	ck_assert_msg(o.status == 1, "%d %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.out, "activities.py:19  post-without-idempotency-key"));
	testlib_output_free(&o);
	char *never[] = {"review", (char *)testlib_src("tests/fixtures/review/python"), "--fail-on", "never",
			 NULL};
	cli(&o, never);
	ck_assert_int_eq(o.status, 0);
	testlib_output_free(&o);
	/* the key-safe charge alone: no hazard */
	char *clean[] = {"review",
			 (char *)testlib_src("tests/fixtures/review/java/payments/SafeChargeActivity.java"), NULL};
	cli(&o, clean);
	ck_assert_msg(o.status == 0, "%d %s", o.status, o.out);
	ck_assert_ptr_nonnull(strstr(o.out, "no hazard found"));
	testlib_output_free(&o);
	char *missing[] = {"review", "/nonexistent/review-path", NULL};
	cli(&o, missing);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "/nonexistent/review-path"));
	testlib_output_free(&o);
	char *markdown[] = {"review", (char *)testlib_src("tests/fixtures/review/go"), "-o", "markdown", NULL};
	cli(&o, markdown);
	ck_assert_int_eq(o.status, 1);
	ck_assert_ptr_nonnull(strstr(o.out, "| ChargeCard | "));
	ck_assert_ptr_nonnull(strstr(o.out, "`one-retry-policy`"));
	testlib_output_free(&o);
}
END_TEST

/* The history's finding names its activity's hazard with file:line; an
 * activity the source does not have is said to be missing. */
START_TEST(findings_join_the_source)
{
	const char *history = testlib_src("tests/fixtures/b-retry-fail-fail-succeed.catalyst.json");
	struct testlib_output o;
	char *joined[] = {"file",     (char *)history,
			  "--source", (char *)testlib_src("tests/fixtures/review/python"),
			  "--format", "json",
			  NULL};
	cli(&o, joined);
	ck_assert_msg(o.status == 1, "%d %s", o.status, o.err);
	ck_assert_ptr_nonnull(strstr(o.out,
				     "\"source\": \"ChargeCard re-executed (ambiguous_failure_retried); its "
				     "body POSTs to f\\\"{PAYMENTS}/payments\\\" without an idempotency-key "
				     "header"));
	ck_assert_ptr_nonnull(strstr(o.out, "tests/fixtures/review/python/activities.py:19\""));
	testlib_output_free(&o);

	char *missing[] = {"file", (char *)history, "--source", (char *)testlib_src("tests/fixtures/review/java"),
			   NULL};
	cli(&o, missing);
	ck_assert_int_eq(o.status, 1);
	ck_assert_ptr_nonnull(strstr(o.out, "ChargeCard: not found in the source"));
	testlib_output_free(&o);

	/* a retried child workflow is no activity: said so, not "not found" */
	char *child[] = {"file", (char *)testlib_src("tests/fixtures/d-child-retry.parent.catalyst.json"),
			 "--source", (char *)testlib_src("tests/fixtures/review/python"), NULL};
	cli(&o, child);
	ck_assert_ptr_nonnull(strstr(o.out, "is a child workflow: review reads activity bodies, not workflows"));
	testlib_output_free(&o);

	/* without --source, no finding carries one */
	char *plain[] = {"file", (char *)history, "--format", "json", NULL};
	cli(&o, plain);
	ck_assert_ptr_null(strstr(o.out, "re-executed (ambiguous"));
	testlib_output_free(&o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("review");
	struct testlib_group *g = testlib_group("review");
	add_loop_test(g, every_marked_hazard_and_nothing_else, 0, (int)N_LANGS);
	add_loop_test(g, activities_are_found_across_files, 0, (int)(sizeof declared / sizeof *declared));
	add_test(g, history_names_find_the_activity);
	add_test(g, review_exit_status);
	add_test(g, findings_join_the_source);
	testlib_suite_add(s, g);
	return testlib_main(s);
}
