/* meson-test: integration */
/* Every file the tool reads, opened the one safe way (issue 31, items 3,
 * 4 and 6; src/file_in.c): for each kind of file it reads (config,
 * --baseline, --state, --cacert, --output-file, `file`, `stats` and
 * `review` inputs), a FIFO nobody writes to, a folder, a device and a
 * symbolic link to each are refused or read as a stream at once (before
 * this round a FIFO held the tool in open() forever, and /dev/zero was
 * read for a GiB); a state, baseline or config file that other users can
 * write is refused; a file that changes while it is read is an error; two
 * `runs --state` of one file take turns. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_in.h"
#include "testlib.h"

#define FIXTURE "tests/fixtures/b-retry-fail-fail-succeed.catalyst.json"
#define HUNG_MS 10000

/* The kinds of file, made in the test's folder; NULL name: the path as it is. */
static const struct kind {
	const char *name; /* in messages */
	const char *said; /* what a refusal names */
	const char *path; /* under testlib_tmpdir, or absolute */
} kinds[] = {
	{"FIFO", "FIFO", "fifo"},
	{"folder", "folder", "dir"},
	{"device", "character device", "/dev/zero"},
	{"link to a FIFO", "FIFO", "to-fifo"},
	{"link to a folder", "folder", "to-dir"},
	{"link to a device", "character device", "to-zero"},
};

static const char *kind_path(const struct kind *k)
{
	static char path[600];
	if (k->path[0] == '/')
		return k->path;
	snprintf(path, sizeof path, "%s/%s", testlib_tmpdir, k->path);
	return path;
}

static void make_kinds(void)
{
	testlib_tmpdir_make();
	char p[600], q[600];
	snprintf(p, sizeof p, "%s/fifo", testlib_tmpdir);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	snprintf(p, sizeof p, "%s/dir", testlib_tmpdir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/fifo", testlib_tmpdir);
	snprintf(q, sizeof q, "%s/to-fifo", testlib_tmpdir);
	ck_assert_int_eq(symlink(p, q), 0);
	snprintf(p, sizeof p, "%s/dir", testlib_tmpdir);
	snprintf(q, sizeof q, "%s/to-dir", testlib_tmpdir);
	ck_assert_int_eq(symlink(p, q), 0);
	snprintf(q, sizeof q, "%s/to-zero", testlib_tmpdir);
	ck_assert_int_eq(symlink("/dev/zero", q), 0);
}

/* The files whose kind is judged: every kind above is refused, status and
 * message said; @F@ is the file. */
static const struct reader {
	const char *what;
	const char *argv[8];
	int status;
	const char *prefix; /* how the message names the file */
} readers[] = {
	{"config", {"--config", "@F@", "file", "@FIXTURE@", NULL}, 2, "config file"},
	{"baseline", {"file", "@FIXTURE@", "--baseline", "@F@", NULL}, 2, "--baseline"},
	{"state", {"--server", "http://127.0.0.1:9/mcp", "runs", "--state", "@F@", NULL}, 6, "--state"},
	{"cacert", {"--cacert", "@F@", "--server", "https://127.0.0.1:9/mcp", "runs", NULL}, 2, "--cacert"},
};

static const char *expand(const char *a, const char *f)
{
	if (strcmp(a, "@F@") == 0)
		return f;
	if (strcmp(a, "@FIXTURE@") == 0)
		return testlib_src(FIXTURE);
	return a;
}

static void run(const char *const *args, const char *f, struct testlib_output *o)
{
	const char *argv[12];
	size_t n = 0;
	for (; *args; args++)
		argv[n++] = expand(*args, f);
	argv[n] = NULL;
	char *env[] = {"CATALYST_TOKEN=", NULL};
	ck_assert_int_eq(testlib_run_cli((char *const *)argv, env, NULL, HUNG_MS, o), 0);
	ck_assert_msg(!o->timed_out, "%s: hung", f);
	ck_assert_msg(o->status < 128, "%s: died of signal %d", f, o->status - 128);
}

START_TEST(every_kind_refused_by_every_reader)
{
	make_kinds();
	for (size_t r = 0; r < sizeof readers / sizeof *readers; r++)
		for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
			struct testlib_output o;
			const char *f = kind_path(&kinds[k]);
			run(readers[r].argv, f, &o);
			ck_assert_msg(o.status == readers[r].status, "%s, %s: status %d: %s", readers[r].what,
				      kinds[k].name, o.status, o.err);
			char want[200];
			snprintf(want, sizeof want, "%s %s is a %s", readers[r].prefix, f, kinds[k].said);
			/* --state follows no link at all */
			bool link_refused = strcmp(readers[r].what, "state") == 0 &&
					    strncmp(kinds[k].name, "link", 4) == 0 &&
					    strstr(o.err, "a symbolic link (refused");
			ck_assert_msg(link_refused || strstr(o.err, want) ||
					      (strstr(o.err, kinds[k].said) && strstr(o.err, f)),
				      "%s, %s: %s", readers[r].what, kinds[k].name, o.err);
			testlib_output_free(&o);
		}
	testlib_tmpdir_remove();
}
END_TEST

/* The inputs read as streams: a FIFO nobody writes to is an empty input
 * at once, /dev/zero stops at its first byte (it was read for 1 GiB and
 * more), and neither is ever a clean result. */
START_TEST(streams_end_at_the_byte_that_decides)
{
	make_kinds();
	static const char *const inputs[][3] = {{"file", "@F@", NULL}, {"stats", "@F@", NULL}};
	static const char *const paths[] = {"fifo", "to-fifo", "/dev/zero", "to-zero"};
	for (size_t i = 0; i < 2; i++)
		for (size_t k = 0; k < 4; k++) {
			char f[600];
			if (paths[k][0] == '/')
				snprintf(f, sizeof f, "%s", paths[k]);
			else
				snprintf(f, sizeof f, "%s/%s", testlib_tmpdir, paths[k]);
			struct testlib_output o;
			run(inputs[i], f, &o);
			ck_assert_msg(o.status == 6, "%s %s: status %d: %s", inputs[i][0], f, o.status, o.err);
			ck_assert_msg(strstr(o.err, strstr(f, "zero") ? "NUL" : "empty"), "%s %s: %s",
				      inputs[i][0], f, o.err);
			testlib_output_free(&o);
		}
	/* a report from a pipe is read (it was: exit 6, a rewind) */
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "%s file %s -o json --fail-on never | %s stats /dev/stdin",
		 testlib_env("CA_BINARY"), testlib_src(FIXTURE), testlib_env("CA_BINARY"));
	char *sh[] = {"sh", "-c", cmd, NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run(sh, NULL, NULL, 0, HUNG_MS, &o), 0);
	ck_assert_msg(o.status == 1 && strstr(o.out, "STATS  1 run"), "status %d: %s%s", o.status, o.out, o.err);
	testlib_output_free(&o);
	testlib_tmpdir_remove();
}
END_TEST

/* --output-file: a FIFO nobody reads fails at once (it blocked in open()),
 * a folder and a link are refused, a device is written in place. */
START_TEST(output_file_never_blocks)
{
	make_kinds();
	static const struct {
		const char *path;
		int status;
		const char *said;
	} cases[] = {
		{"fifo", 2, "a FIFO that no process is reading"},
		{"dir", 2, "folder"},
		{"to-fifo", 2, "symbolic link"},
		{"/dev/null", 1, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char f[600];
		if (cases[i].path[0] == '/')
			snprintf(f, sizeof f, "%s", cases[i].path);
		else
			snprintf(f, sizeof f, "%s/%s", testlib_tmpdir, cases[i].path);
		struct testlib_output o;
		run((const char *const[]){"file", "@FIXTURE@", "--output-file", "@F@", NULL}, f, &o);
		ck_assert_msg(o.status == cases[i].status, "%s: status %d: %s", f, o.status, o.err);
		if (cases[i].said)
			ck_assert_msg(strstr(o.err, cases[i].said), "%s: %s", f, o.err);
		testlib_output_free(&o);
	}
	testlib_tmpdir_remove();
}
END_TEST

/* review: a FIFO in the tree is skipped without blocking; a source file
 * padded past the bound fails the review (it was "1 file not read" and a
 * passing gate). */
START_TEST(review_reads_its_tree_whole)
{
	testlib_tmpdir_make();
	char p[600];
	snprintf(p, sizeof p, "%s/src", testlib_tmpdir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/src/pipe.py", testlib_tmpdir);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	snprintf(p, sizeof p, "%s/src/activities.py", testlib_tmpdir);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("def charge(ctx, order):\n    return requests.post(URL, json=order)\n", f);
	for (int i = 0; i < (3 << 20) / 64; i++)
		fputs("# padding padding padding padding padding padding padding pad\n", f);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(p, sizeof p, "%s/src", testlib_tmpdir);
	struct testlib_output o;
	run((const char *const[]){"review", "@F@", NULL}, p, &o);
	ck_assert_msg(o.status == 6 && strstr(o.err, "activities.py is") && strstr(o.err, "no gate can pass"),
		      "status %d: %s", o.status, o.err);
	testlib_output_free(&o);
	testlib_tmpdir_remove();
}
END_TEST

/* A state, baseline or config file that others can write could silence
 * findings or send the token elsewhere: refused, whatever it says. */
START_TEST(files_others_can_write_are_refused)
{
	testlib_tmpdir_make();
	char state[600], base[600], conf[600];
	snprintf(state, sizeof state, "%s/state.json", testlib_tmpdir);
	snprintf(base, sizeof base, "%s/base.json", testlib_tmpdir);
	snprintf(conf, sizeof conf, "%s/config", testlib_tmpdir);
	const char *texts[][2] = {
		{state,
		 "{\"schema\":\"catalyst-audit.state/v1\",\"ended_at\":\"2999-01-01T00:00:00Z\",\"runs\":[]}"},
		{base, "{\"schema\":\"catalyst-audit.report/v1\",\"runs\":[]}"},
		{conf, "fail-on = never\n"},
	};
	for (size_t i = 0; i < 3; i++) {
		FILE *f = fopen(texts[i][0], "w");
		ck_assert_ptr_nonnull(f);
		fputs(texts[i][1], f);
		ck_assert_int_eq(fclose(f), 0);
		ck_assert_int_eq(chmod(texts[i][0], 0666), 0);
		if (geteuid() == 0)
			ck_assert_int_eq(chown(texts[i][0], 65534, 65534), 0);
	}
	struct testlib_output o;
	run((const char *const[]){"--server", "http://127.0.0.1:9/mcp", "runs", "--state", "@F@", NULL}, state,
	    &o);
	ck_assert_msg(o.status == 6 && strstr(o.err, "--state") && strstr(o.err, "not read"), "%d: %s", o.status,
		      o.err);
	testlib_output_free(&o);
	run((const char *const[]){"file", "@FIXTURE@", "--baseline", "@F@", NULL}, base, &o);
	ck_assert_msg(o.status == 2 && strstr(o.err, "--baseline") && strstr(o.err, "not read"), "%d: %s",
		      o.status, o.err);
	testlib_output_free(&o);
	run((const char *const[]){"--config", "@F@", "file", "@FIXTURE@", NULL}, conf, &o);
	ck_assert_msg(o.status == 2 && strstr(o.err, "config file") && strstr(o.err, "not read"), "%d: %s",
		      o.status, o.err);
	testlib_output_free(&o);
	testlib_tmpdir_remove();
}
END_TEST

/* A file that grows or shrinks between its stat and its end: an error,
 * never a short read taken for the whole. */
START_TEST(a_file_that_changes_while_read)
{
	testlib_tmpdir_make();
	char p[600];
	snprintf(p, sizeof p, "%s/f", testlib_tmpdir);
	const struct file_in rules = {.what = "test", .code = ERR_INPUT, .max = 1 << 20, .text = true};
	for (int grow = 0; grow < 2; grow++) {
		FILE *f = fopen(p, "w");
		ck_assert_ptr_nonnull(f);
		fputs("0123456789012345678901234567890123456789", f);
		ck_assert_int_eq(fclose(f), 0);
		struct stat st;
		struct err e;
		err_clear(&e);
		int fd = file_in_open(p, &rules, &st, &e);
		ck_assert_int_ge(fd, 0);
		if (grow) {
			f = fopen(p, "a");
			fputs("more", f);
			fclose(f);
		} else {
			ck_assert_int_eq(truncate(p, 10), 0);
		}
		char *data = NULL;
		size_t len = 0;
		ck_assert_int_eq(file_in_read_fd(fd, p, &rules, &st, &data, &len, &e), -1);
		ck_assert_msg(strstr(e.msg, "changed while it was read"), "%s", e.msg);
		ck_assert_ptr_null(data);
		close(fd);
	}
	testlib_tmpdir_remove();
}
END_TEST

/* Two `runs --state` of one file: the second waits for the first's lock
 * (held here by the test) instead of reading the checkpoint it is about
 * to change. */
START_TEST(state_is_locked)
{
	testlib_tmpdir_make();
	char state[600], lock[700];
	snprintf(state, sizeof state, "%s/state.json", testlib_tmpdir);
	snprintf(lock, sizeof lock, "%s.lock", state);
	int fd = open(lock, O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	const char *argv[] = {"--server", "http://127.0.0.1:9/mcp", "runs", "--state", state, NULL};
	char *env[] = {"CATALYST_TOKEN=", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli((char *const *)argv, env, NULL, 1500, &o), 0);
	ck_assert_msg(o.timed_out, "ran past a held lock: status %d: %s", o.status, o.err);
	testlib_output_free(&o);
	close(fd); /* the lock goes: the next one runs (and fails to connect) */
	ck_assert_int_eq(testlib_run_cli((char *const *)argv, env, NULL, HUNG_MS, &o), 0);
	ck_assert_msg(!o.timed_out && o.status == 5, "status %d: %s", o.status, o.err);
	testlib_output_free(&o);
	testlib_tmpdir_remove();
}
END_TEST

/* One escaping choke point for every JSON writer (issue 31, item 7):
 * `review -o json` printed a bidi override from a file name and an
 * activity name raw, where `file -o json` escapes it. */
START_TEST(review_json_escapes_names)
{
	testlib_tmpdir_make();
	char dir[600], p[700];
	snprintf(dir, sizeof dir, "%s/src", testlib_tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(p, sizeof p, "%s/pay\xe2\x80\xaeyp.py", dir);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("import requests\nfrom dapr.ext.workflow import WorkflowActivityContext, WorkflowRuntime\n"
	      "wfr = WorkflowRuntime()\n\n\n@wfr.activity(name=\"Charge\xe2\x80\xae"
	      "Card\xef\xbf\xbb\")\n"
	      "def charge(ctx: WorkflowActivityContext, order: dict) -> dict:\n"
	      "    return requests.post(\"https://payments.example/v1/payments\", json=order).json()\n",
	      f);
	ck_assert_int_eq(fclose(f), 0);
	struct testlib_output o;
	run((const char *const[]){"review", "@F@", "-o", "json", NULL}, dir, &o);
	ck_assert_msg(o.status == 1, "status %d: %s", o.status, o.err);
	ck_assert_msg(!strstr(o.out, "\xe2\x80\xae") && !strstr(o.out, "\xef\xbf\xbb"), "raw in:\n%s", o.out);
	ck_assert_msg(strstr(o.out, "Charge\\u202eCard\\ufffb") || strstr(o.out, "Charge\\u202ECard\\uFFFB"), "%s",
		      o.out);
	ck_assert_msg(strstr(o.out, "pay\\u202eyp.py") || strstr(o.out, "pay\\u202Eyp.py"), "%s", o.out);
	testlib_output_free(&o);
	testlib_tmpdir_remove();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("file_kinds");
	struct testlib_group *g = testlib_group("file_kinds");
	add_test(g, every_kind_refused_by_every_reader);
	add_test(g, streams_end_at_the_byte_that_decides);
	add_test(g, output_file_never_blocks);
	add_test(g, review_reads_its_tree_whole);
	add_test(g, files_others_can_write_are_refused);
	add_test(g, a_file_that_changes_while_read);
	add_test(g, state_is_locked);
	add_test(g, review_json_escapes_names);
	testlib_suite_add(s, g);
	return testlib_main(s);
}
