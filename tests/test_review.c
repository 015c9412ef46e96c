/* meson-test: integration npm */
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
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "review.h"
#include "testlib.h"

#define CLI_TIMEOUT_MS 60000
#define MAX_MARKS 64

static const char *const langs[] = {"python", "go", "java", "csharp", "typescript"};
#define N_LANGS (sizeof langs / sizeof *langs)

struct mark {
	char file[512];
	unsigned line;
	char kind[48];
	bool helper;
	bool seen;
};

/* Calls fn with every file under dir (its path and text), folders
 * followed, names starting with '.' left out. */
static void each_file(const char *dir, void (*fn)(const char *path, char *text, void *arg), void *arg)
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
			each_file(path, fn, arg);
			continue;
		}
		size_t len;
		char *text = testlib_read_file(path, &len);
		ck_assert_ptr_nonnull(text);
		fn(path, text, arg);
		free(text);
	}
	closedir(d);
}

/* The "HIT kind" markers of a file: the hazards the fixture
 * author expects, with "(helper)" when the line is in a helper. */
struct marks {
	struct mark *m;
	size_t *n;
};

static void file_marks(const char *path, char *text, void *arg)
{
	struct mark *m = ((struct marks *)arg)->m;
	size_t *n = ((struct marks *)arg)->n;
	unsigned line = 1;
	for (char *p = text; *p; p++) {
		if (*p == '\n') {
			line++;
			continue;
		}
		/* a marker is a comment of its own: "# HIT kind", "// HIT kind" */
		if (strncmp(p, "HIT ", 4) != 0 || p - text < 2 || p[-1] != ' ' || (p[-2] != '#' && p[-2] != '/'))
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
}

static void read_marks(const char *dir, struct mark *m, size_t *n)
{
	struct marks arg = {m, n};
	each_file(dir, file_marks, &arg);
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

/* Each language's fixture of the table's hazards (tests/fixtures/review),
 * then its fixture of the demos' non-idempotent examples, a message
 * published and a record inserted (tests/fixtures/review-demo, issue 33):
 * every hazard marked HIT is found, nothing else, the idempotent variants
 * beside them (MUST-NOT) included. */
START_TEST(every_marked_hazard_and_nothing_else)
{
	bool demo = _i >= (int)N_LANGS;
	const char *lang = langs[_i % N_LANGS];
	char dir[512];
	snprintf(dir, sizeof dir, "%s/%s",
		 testlib_src(demo ? "tests/fixtures/review-demo" : "tests/fixtures/review"), lang);
	struct mark marks[MAX_MARKS];
	size_t n = 0;
	read_marks(dir, marks, &n);
	ck_assert_uint_ge(n, demo ? 2 : 4); /* each fixture marks most kinds */

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

/* A near miss: the lines after a "MUST-NOT id...: why" comment, up to the
 * next blank line or marker, where the hazards named must not be reported. */
struct near {
	char file[512];
	unsigned from, to;
	bool kinds[HAZARD_KIND_COUNT];
};

#define MAX_NEAR 64

static int kind_of_id(const char *id, size_t len)
{
	for (int k = 0; k < HAZARD_KIND_COUNT; k++)
		if (strlen(review_hazard_rows[k].id) == len && strncmp(review_hazard_rows[k].id, id, len) == 0)
			return k;
	return -1;
}

/* A marker "MUST-NOT a b: ..." names its rows before the colon; a
 * "MUST-NOT: ..." names none, and prose ("MUST-NOT lines are") is no
 * marker. A name no row has fails: a typo would hide a gap. */
struct nears {
	struct near *nm;
	size_t *n;
};

static void file_near(const char *path, char *text, void *arg)
{
	struct near *nm = ((struct nears *)arg)->nm;
	size_t *n = ((struct nears *)arg)->n;
	unsigned line = 1;
	struct near *open = NULL;
	for (char *p = text; *p; p++) {
		if (*p != '\n') {
			if (strncmp(p, "MUST-NOT ", 9) != 0 || p - text < 2 || p[-1] != ' ' ||
			    (p[-2] != '#' && p[-2] != '/'))
				continue;
			char *colon = strchr(p, ':'), *eol = strchr(p, '\n');
			if (!colon || (eol && colon > eol))
				continue;
			struct near m = {.from = line + 1};
			snprintf(m.file, sizeof m.file, "%s", path);
			bool any = false, prose = false;
			for (char *t = p + 9; t < colon;) {
				size_t w = strcspn(t, " ,:");
				if (w) {
					int k = kind_of_id(t, w);
					if (k < 0)
						prose = true;
					else
						m.kinds[k] = any = true;
				}
				t += w ? w : 1;
			}
			ck_assert_msg(!(prose && any), "%s:%u: a MUST-NOT names a row no table has", path, line);
			if (!any)
				continue;
			ck_assert_uint_lt(*n, MAX_NEAR);
			if (open) /* the next marker ends one too */
				open->to = line - 1;
			open = &nm[(*n)++];
			*open = m;
			continue;
		}
		line++;
		/* a blank line ends the near miss */
		if (open && (p[1] == '\n' || p[1] == '\0')) {
			open->to = line - 1;
			open = NULL;
		}
	}
	if (open)
		open->to = line;
}

static void read_near(const char *dir, struct near *nm, size_t *n)
{
	struct nears arg = {nm, n};
	each_file(dir, file_near, &arg);
}

/* issue 33's matrix: for every row of the table (review_hazard_rows, so a
 * new row joins the matrix by being written) and every language, a
 * fixture under tests/fixtures/review or review-demo marked HIT that
 * review reports, and a near miss marked MUST-NOT with the row's id that
 * it does not report, below an activity it found (the orchestrator's row
 * excepted: an orchestrator is no activity). */
START_TEST(every_row_in_every_language)
{
	const char *lang = langs[_i];
	char dirs[2][512];
	snprintf(dirs[0], sizeof dirs[0], "%s/%s", testlib_src("tests/fixtures/review"), lang);
	snprintf(dirs[1], sizeof dirs[1], "%s/%s", testlib_src("tests/fixtures/review-demo"), lang);
	static struct mark marks[MAX_MARKS];
	static struct near nm[MAX_NEAR];
	size_t n_marks = 0, n_near = 0;
	for (int d = 0; d < 2; d++) {
		read_marks(dirs[d], marks, &n_marks);
		read_near(dirs[d], nm, &n_near);
	}
	struct review rv;
	review_init(&rv);
	struct err e;
	err_clear(&e);
	const char *paths[] = {dirs[0], dirs[1]};
	ck_assert_msg(review_paths(&rv, paths, 2, &e) == 0, "%s", e.msg);
	for (int k = 0; k < HAZARD_KIND_COUNT; k++) {
		const char *id = review_hazard_rows[k].id;
		bool orchestrator = k == HAZARD_SHARED_RETRY_POLICY;
		bool hit = false;
		for (size_t i = 0; i < n_marks && !hit; i++) {
			if (strcmp(marks[i].kind, id) != 0)
				continue;
			for (size_t a = 0; a < rv.n_activities && !hit; a++)
				for (size_t h = 0; h < rv.activities[a].n_hazards && !hit; h++)
					hit = rv.activities[a].hazards[h].kind == (enum review_hazard_kind)k &&
					      rv.activities[a].hazards[h].line == marks[i].line &&
					      strcmp(rv.activities[a].hazards[h].file, marks[i].file) == 0;
			for (size_t h = 0; h < rv.n_orchestrator && !hit; h++)
				hit = rv.orchestrator[h].kind == (enum review_hazard_kind)k &&
				      rv.orchestrator[h].line == marks[i].line &&
				      strcmp(rv.orchestrator[h].file, marks[i].file) == 0;
		}
		ck_assert_msg(hit, "%s x %s: no fixture marked HIT %s that review reports", id, lang, id);
		bool near = false;
		for (size_t i = 0; i < n_near; i++) {
			if (!nm[i].kinds[k])
				continue;
			for (size_t a = 0; a < rv.n_activities; a++)
				for (size_t h = 0; h < rv.activities[a].n_hazards; h++) {
					const struct review_hazard *z = &rv.activities[a].hazards[h];
					ck_assert_msg(z->kind != (enum review_hazard_kind)k ||
							      strcmp(z->file, nm[i].file) != 0 ||
							      z->line < nm[i].from || z->line > nm[i].to,
						      "%s x %s: the near miss at %s:%u is reported: %s", id, lang,
						      nm[i].file, nm[i].from, z->detail);
				}
			for (size_t h = 0; h < rv.n_orchestrator; h++) {
				const struct review_hazard *z = &rv.orchestrator[h];
				ck_assert_msg(z->kind != (enum review_hazard_kind)k ||
						      strcmp(z->file, nm[i].file) != 0 || z->line < nm[i].from ||
						      z->line > nm[i].to,
					      "%s x %s: the near miss at %s:%u is reported: %s", id, lang,
					      nm[i].file, nm[i].from, z->detail);
			}
			/* read as an activity's body, not skipped as code outside
			 * one: an activity review found is defined above it */
			bool inside = orchestrator;
			for (size_t a = 0; a < rv.n_activities && !inside; a++)
				inside = rv.activities[a].defined &&
					 strcmp(rv.activities[a].file, nm[i].file) == 0 &&
					 rv.activities[a].line < nm[i].from;
			ck_assert_msg(inside, "%s x %s: the near miss at %s:%u is in no activity review found", id,
				      lang, nm[i].file, nm[i].from);
			near = true;
		}
		ck_assert_msg(near, "%s x %s: no near miss marked MUST-NOT %s", id, lang, id);
	}
	review_finish(&rv);
}
END_TEST

/* issue 33: the why and the fix of every row name the call flagged, not
 * the table's example: here an increment, a POST and a loop. */
START_TEST(why_and_fix_name_the_call)
{
	static const char py[] = "import redis, requests, time\n"
				 "from dapr.ext.workflow import WorkflowRuntime\n"
				 "wfr = WorkflowRuntime()\n"
				 "r = redis.Redis()\n"
				 "@wfr.activity(name='Count')\n"
				 "def count(ctx, order):\n"
				 "    r.incr(\"charges:\" + order['id'])\n"
				 "    requests.post('https://ship.example/v1/labels',\n"
				 "                  json=order)\n"
				 "    for attempt in range(3):  # no key either\n"
				 "        r.set('x', 1)\n"
				 "        time.sleep(1)\n";
	struct review rv;
	review_init(&rv);
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(review_buffer(&rv, "a.py", py, strlen(py), &e), 0);
	ck_assert_uint_eq(rv.n_activities, 1);
	const struct review_activity *a = &rv.activities[0];
	ck_assert_uint_eq(a->n_hazards, 3);
	static const struct {
		enum review_hazard_kind kind;
		const char *why, *fix;
	} want[] = {
		{HAZARD_INCREMENT,
		 "`r.incr(\"charges:\" + order['id'])` applies the amount again on every attempt",
		 "run `r.incr` only when the record is new"},
		/* on one line, whitespace folded */
		{HAZARD_POST_WITHOUT_KEY,
		 "`requests.post('https://ship.example/v1/labels', json=order)` makes the service act "
		 "again",
		 "give `requests.post` an Idempotency-Key header"},
		/* the loop's header, not its comment */
		{HAZARD_RETRY_LOOP, "`for attempt in range(3)` repeats the work",
		 "take out `for attempt in range(3)` and"},
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const struct review_hazard *h = NULL;
		for (size_t k = 0; k < a->n_hazards && !h; k++)
			if (a->hazards[k].kind == want[i].kind)
				h = &a->hazards[k];
		ck_assert_msg(h, "%s not reported", review_hazard_rows[want[i].kind].id);
		ck_assert_msg(strstr(h->why, want[i].why), "why: %s", h->why);
		ck_assert_msg(strstr(h->fix, want[i].fix), "fix: %s", h->fix);
	}
	review_finish(&rv);
}
END_TEST

/* The project's own helpers are read two deep (issue 33's corpus: a
 * client's DispatchAndFindRun calls DispatchWorkflow, which POSTs), not
 * three, and a helper calling back into its caller ends there. */
START_TEST(helpers_two_deep)
{
	static const char py[] = "import requests\n"
				 "from dapr.ext.workflow import WorkflowRuntime\n"
				 "wfr = WorkflowRuntime()\n"
				 "def dispatch(b):\n"
				 "    return requests.post('https://ci.example/dispatches', json=b)\n"
				 "def dispatch_and_find(b):\n"
				 "    dispatch(b)\n"
				 "    return start(None, b)\n"
				 "def deepest(b):\n"
				 "    requests.post('https://ci.example/deepest', json=b)\n"
				 "def deeper(b):\n"
				 "    deepest(b)\n"
				 "def deep(b):\n"
				 "    deeper(b)\n"
				 "@wfr.activity(name='Start')\n"
				 "def start(ctx, b):\n"
				 "    dispatch_and_find(b)\n"
				 "    deep(b)\n";
	struct review rv;
	review_init(&rv);
	struct err e;
	err_clear(&e);
	ck_assert_int_eq(review_buffer(&rv, "a.py", py, strlen(py), &e), 0);
	ck_assert_uint_eq(rv.n_activities, 1);
	const struct review_activity *a = &rv.activities[0];
	ck_assert_uint_eq(a->n_hazards, 1);
	ck_assert_int_eq(a->hazards[0].kind, HAZARD_POST_WITHOUT_KEY);
	ck_assert_uint_eq(a->hazards[0].line, 5);
	ck_assert_str_eq(a->hazards[0].helper, "dispatch_and_find() -> dispatch()");
	review_finish(&rv);
}
END_TEST

/* Activities registered at run time (issue 33): through a wrapper, a
 * loop over a list, a helper's parameter, durabletask's own workers; and
 * a package scanned at run time, where the functions shaped like
 * activities in an `activities` folder are taken. */
START_TEST(registered_at_run_time)
{
	static const struct {
		const char *file, *code, *names;
	} cases[] = {
		{"app.py",
		 "from dapr.ext.workflow import WorkflowRuntime\n"
		 "wfr = WorkflowRuntime()\n"
		 "def charge(ctx, o): return o\n"
		 "def refund(ctx, o): return o\n"
		 "def ship(ctx, o): return o\n"
		 "def traced(fn): return fn\n"
		 "def register(fn):\n"
		 "    wfr.register_activity(traced(fn))\n"
		 "ACTIVITIES = [charge, refund]\n"
		 "for fn in ACTIVITIES:\n"
		 "    register(fn)\n"
		 "register(ship)\n",
		 "charge refund ship"},
		{"worker.py",
		 "from durabletask import worker\n"
		 "def hello(ctx, name): return name\n"
		 "w = worker.TaskHubGrpcWorker()\n"
		 "w.add_activity(hello)\n",
		 "hello"},
		{"main.go",
		 "package main\n"
		 "func Charge(ctx workflow.ActivityContext) (any, error) { return nil, nil }\n"
		 "func Refund(ctx context.Context) (any, error) { return nil, nil }\n"
		 "func main() {\n"
		 "    for _, a := range []any{Charge, Refund} {\n"
		 "        _ = w.RegisterActivity(withLogging(a))\n"
		 "    }\n"
		 "}\n",
		 "Charge Refund"},
		{"worker.ts",
		 "const charge = async (ctx: any, o: any) => o;\n"
		 "const refund = async (ctx: any, o: any) => o;\n"
		 "for (const a of [charge, refund]) runtime.registerActivity(a);\n",
		 "charge refund"},
		/* the list is built by scanning the package: no name to follow */
		{"svc/activities/tasks.py",
		 "import pkgutil\n"
		 "from dapr.ext.workflow import WorkflowRuntime\n"
		 "wfr = WorkflowRuntime()\n"
		 "def send_callback(ctx, input_data): return input_data\n"
		 "def _private(ctx, input_data): return input_data\n"
		 "def helper(x): return x\n"
		 "for fn in discover(pkgutil.iter_modules()):\n"
		 "    wfr.register_activity(fn)\n",
		 "send_callback"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct review rv;
		review_init(&rv);
		struct err e;
		err_clear(&e);
		ck_assert_int_eq(review_buffer(&rv, cases[i].file, cases[i].code, strlen(cases[i].code), &e), 0);
		char want[128];
		snprintf(want, sizeof want, "%s", cases[i].names);
		size_t n = 0;
		for (char *save = NULL, *w = strtok_r(want, " ", &save); w; w = strtok_r(NULL, " ", &save), n++) {
			const struct review_activity *a = review_find_activity(&rv, w);
			ck_assert_msg(a && a->defined, "%s: %s not found as a defined activity", cases[i].file, w);
		}
		ck_assert_msg(rv.n_activities == n, "%s: %zu activities, want %zu", cases[i].file, rv.n_activities,
			      n);
		review_finish(&rv);
	}
}
END_TEST

/* Data flow (issue 33): a value generated in the body that reaches a key
 * through a local, string formatting and a request's field or header is
 * a generated key; one built from the input the same way is a stable key
 * (a near miss: nothing reported); a value passed to another call is no
 * key; a POST's address is read through the local it was formatted into. */
START_TEST(keys_through_formatting_and_fields)
{
	static const struct {
		const char *file, *code;
		int kind; /* -1: nothing */
		unsigned line;
		const char *detail;
	} cases[] = {
		{"a.py",
		 "import uuid, requests\n"
		 "from dapr.ext.workflow import WorkflowRuntime\n"
		 "wfr = WorkflowRuntime()\n"
		 "@wfr.activity(name='Charge')\n"
		 "def charge(ctx, order):\n"
		 "    token = uuid.uuid4().hex\n"
		 "    headers = {'Idempotency-Key': f'charge-{token}'}\n"
		 "    return requests.post('https://pay.example/charges', json=order, headers=headers)\n",
		 HAZARD_GENERATED_KEY, 6, "used in the key `Idempotency-Key`"},
		{"a.py",
		 "import requests\n"
		 "from dapr.ext.workflow import WorkflowRuntime\n"
		 "wfr = WorkflowRuntime()\n"
		 "@wfr.activity(name='Charge')\n"
		 "def charge(ctx, order):\n"
		 "    token = order['id']\n"
		 "    headers = {'Idempotency-Key': f'charge-{token}'}\n"
		 "    return requests.post('https://pay.example/charges', json=order, headers=headers)\n",
		 -1, 0, NULL},
		/* a state key built in a local, then written spelled out */
		{"a.py",
		 "from dapr.ext.workflow import WorkflowRuntime\n"
		 "wfr = WorkflowRuntime()\n"
		 "@wfr.activity(name='Points')\n"
		 "def points(ctx, order):\n"
		 "    key = f\"points-{order['customer']}\"\n"
		 "    s = d.get_state('statestore', key)\n"
		 "    d.save_state('statestore', f\"points-{order['customer']}\", int(s.data) + 1)\n",
		 HAZARD_READ_THEN_WRITE, 7, "reads state key"},
		{"a.py",
		 "from dapr.ext.workflow import WorkflowRuntime\n"
		 "wfr = WorkflowRuntime()\n"
		 "@wfr.activity(name='Receipt')\n"
		 "def receipt(ctx, order):\n"
		 "    key = f\"receipt-{order['id']}\"\n"
		 "    s = d.get_state('statestore', order['customer'])\n"
		 "    d.save_state('statestore', key, s.data)\n",
		 -1, 0, NULL},
		{"main.go",
		 "package main\n"
		 "func Mail(ctx workflow.ActivityContext) (any, error) {\n"
		 "\ttoken := uuid.NewString()\n"
		 "\topts := &resend.SendEmailOptions{IdempotencyKey: fmt.Sprintf(\"receipt/%s\", token)}\n"
		 "\treturn mail.Emails.SendWithOptions(context.Background(), params, opts)\n"
		 "}\n",
		 HAZARD_GENERATED_KEY, 3, "used in the key `IdempotencyKey`"},
		{"main.go",
		 "package main\n"
		 "func Find(ctx workflow.ActivityContext) (any, error) {\n"
		 "\tsince := time.Now()\n"
		 "\trunID, err := gh.FindRun(context.Background(), since)\n"
		 "\treturn runID, err\n"
		 "}\n",
		 -1, 0, NULL},
		{"main.go",
		 "package main\n"
		 "func Find(ctx workflow.ActivityContext) (any, error) {\n"
		 "\turl := fmt.Sprintf(\"https://ci.example/%s/search\", q)\n"
		 "\treq, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, nil)\n"
		 "\treturn http.DefaultClient.Do(req)\n"
		 "}\n",
		 -1, 0, NULL},
		{"Charge.cs",
		 "public class ChargeActivity : WorkflowActivity<Order, string>\n"
		 "{\n"
		 "    public override async Task<string> RunAsync(WorkflowActivityContext context, Order order)\n"
		 "    {\n"
		 "        var token = Guid.NewGuid();\n"
		 "        var req = new ChargeRequest { Amount = order.Amount, IdempotencyKey = $\"charge-{token}\" };\n"
		 "        return await payments.ChargeAsync(req);\n"
		 "    }\n"
		 "}\n",
		 HAZARD_GENERATED_KEY, 5, "used in the key `IdempotencyKey`"},
		{"ChargeActivity.java",
		 "public class ChargeActivity implements WorkflowActivity {\n"
		 "  public Object run(WorkflowActivityContext ctx) {\n"
		 "    String token = UUID.randomUUID().toString();\n"
		 "    HttpRequest req = HttpRequest.newBuilder().uri(URI.create(\"https://pay.example/charges\"))\n"
		 "        .header(\"Idempotency-Key\", \"charge-\" + token).POST(body).build();\n"
		 "    return http.send(req, handler);\n"
		 "  }\n"
		 "}\n",
		 HAZARD_GENERATED_KEY, 3, "used in the key `Idempotency-Key`"},
		{"worker.ts",
		 "const charge = async (_: WorkflowActivityContext, order: Order) => {\n"
		 "  const token = crypto.randomUUID();\n"
		 "  return fetch(\"https://pay.example/charges\", { method: \"POST\", headers: { \"Idempotency-Key\": "
		 "`charge-${token}` } });\n"
		 "};\n"
		 "runtime.registerActivity(charge);\n",
		 HAZARD_GENERATED_KEY, 2, "used in the key `Idempotency-Key`"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct review rv;
		review_init(&rv);
		struct err e;
		err_clear(&e);
		ck_assert_int_eq(review_buffer(&rv, cases[i].file, cases[i].code, strlen(cases[i].code), &e), 0);
		ck_assert_msg(rv.n_activities == 1, "case %zu: %zu activities", i, rv.n_activities);
		const struct review_activity *a = &rv.activities[0];
		if (cases[i].kind < 0) {
			ck_assert_msg(a->n_hazards == 0, "case %zu: %s", i,
				      a->n_hazards ? a->hazards[0].detail : "");
		} else {
			ck_assert_msg(a->n_hazards == 1, "case %zu: %zu hazards", i, a->n_hazards);
			ck_assert_int_eq(a->hazards[0].kind, cases[i].kind);
			ck_assert_uint_eq(a->hazards[0].line, cases[i].line);
			ck_assert_msg(strstr(a->hazards[0].detail, cases[i].detail), "case %zu: %s", i,
				      a->hazards[0].detail);
		}
		review_finish(&rv);
	}
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
	/* a linter's view: the path once, relative to the path given, then
	 * line:col, the rule and the activity; the activities only with
	 * --verbose */
	ck_assert_msg(strncmp(o.out, "activities.py\n  19:21  post-without-idempotency-key  ChargeCard: POSTs to",
			      72) == 0,
		      "%s", o.out);
	ck_assert_ptr_null(strstr(o.out, "tests/fixtures"));
	ck_assert_ptr_null(strstr(o.out, "Activities:"));
	ck_assert_ptr_nonnull(strstr(o.out, "\nlegacy.py\n  8:23  generated-key  Refund: "));
	ck_assert_ptr_nonnull(strstr(o.out, "8 hazards; 10 activities in 3 source files (python 3)"));
	/* each hazard's why and fix, under its file, naming its call (not
	 * the table's payment) */
	ck_assert_ptr_nonnull(
		strstr(o.out, "\n  legacy.py\n    8  generated-key: `random.random()` makes a new value"));
	ck_assert_ptr_nonnull(
		strstr(o.out, "\n    79  post-without-idempotency-key: `requests.post(f\"{SMS}/messages\""));
	ck_assert_ptr_null(strstr(o.out, "charges twice"));
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
	ck_assert_ptr_nonnull(strstr(o.out, "0 hazards; 1 activity in 1 source file (java 1)"));
	ck_assert_ptr_null(strstr(o.out, "no hazard found"));
	testlib_output_free(&o);
	char *clean_verbose[] = {
		"review", (char *)testlib_src("tests/fixtures/review/java/payments/SafeChargeActivity.java"),
		"--verbose", NULL};
	cli(&o, clean_verbose);
	ck_assert_msg(o.status == 0, "%d %s", o.status, o.out);
	ck_assert_ptr_nonnull(strstr(
		o.out, "Activities:\n  SafeChargeActivity (java)  SafeChargeActivity.java:13  no hazard found"));
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

/* The SARIF of the path given (python3-jsonschema against the schema npm's
 * @microsoft/jest-sarif ships); 0 when valid. */
static int sarif_valid(const char *file, struct testlib_output *o)
{
	char *argv[] = {"python3", (char *)testlib_src("tests/schema/validate-sarif.py"),
			(char *)testlib_env("CA_NPM_DIR"), (char *)file, NULL};
	ck_assert_int_eq(testlib_run(argv, NULL, NULL, 0, CLI_TIMEOUT_MS, o), 0);
	return o->status;
}

static json_t *load_sarif(const char *path)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	ck_assert_msg(doc, "%s: %s", path, je.text);
	return doc;
}

/* review -o sarif (or --output-file x.sarif): valid SARIF 2.1.0, one rule
 * per hazard of the table, one result per hazard found, located relative
 * to the path reviewed, with fingerprints that stay when the code above
 * moves; and a validator that refuses a document that is not SARIF. */
START_TEST(sarif_for_code_scanning)
{
	char dir[256], path[600], copy[600];
	testlib_make_tmpdir(dir, sizeof dir, "review-sarif");
	snprintf(path, sizeof path, "%s/review.sarif", dir);
	struct testlib_output o;
	char *all[] = {"review", (char *)testlib_src("tests/fixtures/review"), "--output-file", path, NULL};
	cli(&o, all);
	ck_assert_msg(o.status == 1, "%d %s", o.status, o.err);
	testlib_output_free(&o);
	ck_assert_msg(sarif_valid(path, &o) == 0, "%s", o.out);
	testlib_output_free(&o);
	char *json[] = {"review", (char *)testlib_src("tests/fixtures/review"), "-o", "json", NULL};
	cli(&o, json);
	json_t *report = json_loads(o.out, 0, NULL);
	ck_assert_ptr_nonnull(report);
	testlib_output_free(&o);

	json_t *doc = load_sarif(path);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "version")), "2.1.0");
	json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
	json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
	ck_assert_str_eq(json_string_value(json_object_get(driver, "name")), "catalyst-audit");
	ck_assert_ptr_nonnull(json_string_value(json_object_get(driver, "version")));
	ck_assert_uint_eq(json_array_size(json_object_get(driver, "rules")), HAZARD_KIND_COUNT);
	json_t *results = json_object_get(run, "results");
	ck_assert_int_eq((json_int_t)json_array_size(results),
			 json_integer_value(json_object_get(json_object_get(report, "summary"), "hazards")));
	ck_assert_uint_gt(json_array_size(results), 5);
	const char *base = json_string_value(
		json_object_get(json_object_get(json_object_get(run, "originalUriBaseIds"), "SRCROOT"), "uri"));
	ck_assert_msg(base && strncmp(base, "file:///", 8) == 0, "%s", base ? base : "(none)");
	size_t i;
	json_t *r;
	json_t *prints = json_object();
	json_array_foreach(results, i, r) {
		json_t *loc =
			json_object_get(json_array_get(json_object_get(r, "locations"), 0), "physicalLocation");
		const char *uri =
			json_string_value(json_object_get(json_object_get(loc, "artifactLocation"), "uri"));
		ck_assert_msg(uri && uri[0] != '/' && strncmp(uri, "./", 2) != 0 &&
				      !strstr(uri, "fixtures/review"),
			      "%s", uri ? uri : "(none)");
		/* relative to the folder reviewed: it is there */
		snprintf(copy, sizeof copy, "%s/%s", testlib_src("tests/fixtures/review"), uri);
		ck_assert_msg(access(copy, R_OK) == 0, "%s", copy);
		const char *fp = json_string_value(
			json_object_get(json_object_get(r, "partialFingerprints"), "catalystAuditHazard/v1"));
		ck_assert_ptr_nonnull(fp);
		ck_assert_msg(!json_object_get(prints, fp), "fingerprint %s twice", fp);
		json_object_set_new(prints, fp,
				    json_integer(json_integer_value(
					    json_object_get(json_object_get(loc, "region"), "startLine"))));
	}
	json_decref(doc);
	json_decref(report);
	json_decref(prints);

	/* The same code three lines lower: every result keeps its fingerprint,
	 * and its line moves. The fingerprint is of the file as named under
	 * the path reviewed, so both reviews are of a python folder. */
	prints = json_object();
	char *orig[] = {"review", (char *)testlib_src("tests/fixtures/review/python"), "-o", "sarif", NULL};
	cli(&o, orig);
	doc = json_loads(o.out, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	testlib_output_free(&o);
	json_array_foreach(json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "results"), i, r) {
		json_t *loc =
			json_object_get(json_array_get(json_object_get(r, "locations"), 0), "physicalLocation");
		json_object_set_new(prints,
				    json_string_value(json_object_get(json_object_get(r, "partialFingerprints"),
								      "catalystAuditHazard/v1")),
				    json_integer(json_integer_value(
					    json_object_get(json_object_get(loc, "region"), "startLine"))));
	}
	json_decref(doc);
	char moved[300];
	snprintf(moved, sizeof moved, "%s/python", dir);
	ck_assert_int_eq(mkdir(moved, 0700), 0);
	static const char *const files[] = {"activities.py", "legacy.py", "workflow.py"};
	for (size_t k = 0; k < 3; k++) {
		char rel[100];
		snprintf(rel, sizeof rel, "tests/fixtures/review/python/%s", files[k]);
		size_t len;
		char *text = testlib_read_file(testlib_src(rel), &len);
		ck_assert_ptr_nonnull(text);
		snprintf(copy, sizeof copy, "%s/%s", moved, files[k]);
		FILE *f = fopen(copy, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "\n\n\n%s", text);
		fclose(f);
		free(text);
	}
	char *py[] = {"review", moved, "-o", "sarif", NULL};
	cli(&o, py);
	ck_assert_int_eq(o.status, 1);
	doc = json_loads(o.out, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	testlib_output_free(&o);
	results = json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "results");
	ck_assert_uint_eq(json_array_size(results), json_object_size(prints));
	json_array_foreach(results, i, r) {
		const char *fp = json_string_value(
			json_object_get(json_object_get(r, "partialFingerprints"), "catalystAuditHazard/v1"));
		json_t *was = json_object_get(prints, fp);
		ck_assert_msg(was, "fingerprint %s is new after the code moved", fp);
		json_t *loc =
			json_object_get(json_array_get(json_object_get(r, "locations"), 0), "physicalLocation");
		ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(loc, "region"), "startLine")),
				 json_integer_value(was) + 3);
	}
	json_decref(doc);
	json_decref(prints);

	/* Not SARIF: refused by the same validator. */
	snprintf(copy, sizeof copy, "%s/bad.sarif", dir);
	FILE *f = fopen(copy, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"version\": \"2.0\", \"runs\": [{\"results\": [{\"message\": 7}]}]}\n", f);
	fclose(f);
	ck_assert_int_ne(sarif_valid(copy, &o), 0);
	testlib_output_free(&o);

	/* SARIF is review's alone. */
	char *history[] = {"file", (char *)testlib_src("tests/fixtures/a-clean-activity.catalyst.json"), "-o",
			   "sarif", NULL};
	cli(&o, history);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "file writes text, json, jsonl or markdown"));
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

/* A copy of the python fixture in dir/py, with `edit` applied to
 * activities.py: each {line, text} appends text to that line (from 1). */
struct line_edit {
	unsigned line;
	const char *text;
};

static void python_copy(const char *dir, const struct line_edit *edit, size_t n_edit, char *out, size_t size)
{
	snprintf(out, size, "%s/py", dir);
	testlib_remove_tree(out);
	ck_assert_int_eq(mkdir(out, 0700), 0);
	static const char *const files[] = {"activities.py", "legacy.py", "workflow.py"};
	for (size_t k = 0; k < 3; k++) {
		char rel[100], path[700];
		snprintf(rel, sizeof rel, "tests/fixtures/review/python/%s", files[k]);
		size_t len;
		char *text = testlib_read_file(testlib_src(rel), &len);
		ck_assert_ptr_nonnull(text);
		snprintf(path, sizeof path, "%s/%s", out, files[k]);
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		unsigned line = 1;
		for (size_t i = 0; i < len; i++) {
			if (text[i] == '\n' && k == 0)
				for (size_t e = 0; e < n_edit; e++)
					if (edit[e].line == line)
						fputs(edit[e].text, f);
			fputc(text[i], f);
			line += text[i] == '\n';
		}
		fclose(f);
		free(text);
	}
}

/* review's JSON report for args (exit status want_status), checked
 * against its published schema (saved in dir for the validator). */
static json_t *review_json(char *const *args, int want_status, const char *dir)
{
	struct testlib_output o;
	cli(&o, args);
	ck_assert_msg(o.status == want_status, "status %d, not %d: %s", o.status, want_status, o.err);
	json_t *doc = json_loads(o.out, 0, NULL);
	ck_assert_msg(doc, "%s", o.out);
	testlib_output_free(&o);
	char saved[400];
	snprintf(saved, sizeof saved, "%s/r.json", dir);
	ck_assert_int_eq(json_dump_file(doc, saved, 0), 0);
	char *validate[] = {(char *)testlib_node(), (char *)testlib_src("tests/schema/validate.mjs"),
			    (char *)testlib_src("doc/catalyst-audit.review.v1.schema.json"), saved, NULL};
	ck_assert_int_eq(testlib_run(validate, NULL, NULL, 0, CLI_TIMEOUT_MS, &o), 0);
	ck_assert_msg(o.status == 0, "%s", o.out);
	testlib_output_free(&o);
	return doc;
}

/* `catalyst-audit: ignore ID reason` silences one hazard, on its line, the
 * line above it or the function's: by its id or its table row (H2); a
 * comment naming another hazard silences nothing. What is silenced is
 * counted, listed in JSON with its reason, and kept in SARIF as an
 * in-source suppression. */
START_TEST(comments_silence_one_hazard_each)
{
	char dir[256], py[300];
	testlib_make_tmpdir(dir, sizeof dir, "review-ignore");
	static const struct line_edit edits[] = {
		{19, "  # catalyst-audit: ignore H2 the provider dedupes on the order id"},
		{30, "  # catalyst-audit: ignore generated-key ids are unique per order upstream"},
		{47, "  # catalyst-audit: ignore read-then-write (names another hazard: silences nothing)"},
	};
	python_copy(dir, edits, 3, py, sizeof py);
	char *args[] = {"review", py, "-o", "json", NULL};
	/* with what it silenced, the report still holds its schema */
	json_t *doc = review_json(args, 1, dir);
	json_t *summary = json_object_get(doc, "summary");
	ck_assert_int_eq(json_integer_value(json_object_get(summary, "hazards")), 6);
	ck_assert_int_eq(json_integer_value(json_object_get(summary, "suppressed")), 2);
	json_t *sup = json_object_get(doc, "suppressed");
	ck_assert_uint_eq(json_array_size(sup), 2);
	json_t *first = json_array_get(sup, 0), *second = json_array_get(sup, 1);
	ck_assert_str_eq(json_string_value(json_object_get(first, "kind")), "post-without-idempotency-key");
	ck_assert_str_eq(json_string_value(json_object_get(first, "activity")), "ChargeCard");
	ck_assert_str_eq(json_string_value(json_object_get(first, "reason")),
			 "the provider dedupes on the order id");
	ck_assert_int_eq(json_integer_value(json_object_get(first, "comment_line")), 19);
	/* the comment on the decorator, the line above the definition */
	ck_assert_str_eq(json_string_value(json_object_get(second, "kind")), "generated-key");
	ck_assert_int_eq(json_integer_value(json_object_get(second, "comment_line")), 30);
	json_decref(doc);

	char sarif[400];
	snprintf(sarif, sizeof sarif, "%s/s.sarif", dir);
	struct testlib_output o;
	char *to_sarif[] = {"review", py, "--output-file", sarif, NULL};
	cli(&o, to_sarif);
	testlib_output_free(&o);
	ck_assert_msg(sarif_valid(sarif, &o) == 0, "%s", o.out);
	testlib_output_free(&o);
	doc = load_sarif(sarif);
	json_t *results = json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "results");
	ck_assert_uint_eq(json_array_size(results), 8);
	size_t i, silenced = 0;
	json_t *r;
	json_array_foreach(results, i, r) {
		json_t *s = json_array_get(json_object_get(r, "suppressions"), 0);
		if (!s)
			continue;
		silenced++;
		ck_assert_str_eq(json_string_value(json_object_get(s, "kind")), "inSource");
	}
	ck_assert_uint_eq(silenced, 2);
	json_decref(doc);

	char *text[] = {"review", py, NULL};
	cli(&o, text);
	ck_assert_ptr_nonnull(strstr(o.out, "6 hazards, 2 silenced by comments (--verbose lists them)"));
	testlib_output_free(&o);
	testlib_remove_tree(dir);
}
END_TEST

/* --baseline for review: an earlier JSON report or its SARIF makes its
 * hazards known; only a new one fails the gate. A file that is neither is
 * a usage error. */
START_TEST(baseline_keeps_known_hazards_known)
{
	char dir[256], py[300], base_json[400], base_sarif[400];
	testlib_make_tmpdir(dir, sizeof dir, "review-baseline");
	python_copy(dir, NULL, 0, py, sizeof py);
	snprintf(base_json, sizeof base_json, "%s/base.json", dir);
	snprintf(base_sarif, sizeof base_sarif, "%s/base.sarif", dir);
	struct testlib_output o;
	char *make_json[] = {"review", py, "--output-file", base_json, NULL};
	cli(&o, make_json);
	testlib_output_free(&o);
	char *make_sarif[] = {"review", py, "--output-file", base_sarif, NULL};
	cli(&o, make_sarif);
	testlib_output_free(&o);

	/* the same code, two lines lower and with a new hazard */
	static const struct line_edit edits[] = {
		{1, "\n"},
		{2, "\n"},
		{36,
		 "\n\n@wfr.activity(name=\"Tag\")\ndef tag(ctx, order):\n    return requests.post(TAGS, json=order)\n"},
	};
	python_copy(dir, edits, 3, py, sizeof py);
	for (int b = 0; b < 2; b++) {
		char *args[] = {"review", py, "--baseline", b ? base_sarif : base_json, "-o", "json", NULL};
		json_t *doc = review_json(args, 1, dir);
		json_t *summary = json_object_get(doc, "summary");
		ck_assert_int_eq(json_integer_value(json_object_get(summary, "hazards")), 9);
		ck_assert_int_eq(json_integer_value(json_object_get(summary, "new")), 1);
		size_t i, k;
		json_t *a, *h;
		json_array_foreach(json_object_get(doc, "activities"), i, a)
			json_array_foreach(json_object_get(a, "hazards"), k, h) {
				bool is_new = strcmp(json_string_value(json_object_get(a, "name")), "Tag") == 0;
				ck_assert_int_eq(json_is_true(json_object_get(h, "known")), !is_new);
			}
		json_decref(doc);
	}
	/* without the new hazard: all known, the gate passes */
	python_copy(dir, edits, 2, py, sizeof py);
	char *known[] = {"review", py, "--baseline", base_json, NULL};
	cli(&o, known);
	ck_assert_msg(o.status == 0, "%d %s", o.status, o.out);
	ck_assert_ptr_nonnull(strstr(o.out, "8 hazards (0 new, 8 known from the baseline)"));
	ck_assert_ptr_nonnull(strstr(o.out, "post-without-idempotency-key (known)"));
	testlib_output_free(&o);
	char *not_review[] = {"review", py, "--baseline",
			      (char *)testlib_src("tests/fixtures/a-clean-activity.catalyst.json"), NULL};
	cli(&o, not_review);
	ck_assert_int_eq(o.status, 2);
	ck_assert_ptr_nonnull(strstr(o.err, "not a catalyst-audit review report"));
	testlib_output_free(&o);
	testlib_remove_tree(dir);
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
	add_loop_test(g, every_marked_hazard_and_nothing_else, 0, 2 * (int)N_LANGS);
	add_loop_test(g, every_row_in_every_language, 0, (int)N_LANGS);
	add_test(g, why_and_fix_name_the_call);
	add_test(g, helpers_two_deep);
	add_test(g, registered_at_run_time);
	add_test(g, keys_through_formatting_and_fields);
	add_loop_test(g, activities_are_found_across_files, 0, (int)(sizeof declared / sizeof *declared));
	add_test(g, history_names_find_the_activity);
	add_test(g, review_exit_status);
	add_test(g, sarif_for_code_scanning);
	add_test(g, comments_silence_one_hazard_each);
	add_test(g, baseline_keeps_known_hazards_known);
	add_test(g, findings_join_the_source);
	testlib_suite_add(s, g);
	return testlib_main(s);
}
