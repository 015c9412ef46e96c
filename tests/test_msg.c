/* msg: the CLI's one printer. Every line takes the one format and outside
 * text in it is neutralised on the way to the terminal. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "msg.h"
#include "testlib.h"

/* What the calls in `say` wrote to stderr. */
static char *captured(void (*say)(void))
{
	char path[] = "/tmp/ca-msg-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	say();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	char *text = testlib_read_file(path, NULL);
	unlink(path);
	ck_assert_ptr_nonnull(text);
	return text;
}

static const char hostile[] = "server said \x1b[2J\x1b]0;owned\x07 and\rthis";

static void say_each(void)
{
	msg_errorf("connecting to %s: %s", "http://x", hostile);
	msg_warnf("%d runs", 3);
	msg_notef("signed in");
	msg_warn_sink(hostile, NULL);
	msg_line_sink("[http] > GET /", NULL);
}

START_TEST(one_format_text_neutralised)
{
	char *out = captured(say_each);
	char *safe = escape_message_dup(hostile);
	ck_assert_ptr_nonnull(safe);
	ck_assert_ptr_null(strchr(out, '\x1b'));
	ck_assert_ptr_null(strchr(out, '\r'));
	ck_assert_ptr_null(strchr(out, '\a'));
	char want[2048];
	snprintf(want, sizeof want,
		 "catalyst-audit: error: connecting to http://x: %s\n"
		 "catalyst-audit: warning: 3 runs\n"
		 "catalyst-audit: signed in\n"
		 "catalyst-audit: warning: %s\n"
		 "[http] > GET /\n",
		 safe, safe);
	ck_assert_str_eq(out, want);
	free(safe);
	free(out);
}
END_TEST

static void progress_lines(void)
{
	msg_progress_sink("audited 1/2 runs", NULL);
	msg_progress("");
}

START_TEST(progress_overwrites_itself)
{
	char *out = captured(progress_lines);
	ck_assert_str_eq(out, "\r\x1b[Kaudited 1/2 runs\r\x1b[K");
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("msg");
	struct testlib_group *tc = testlib_group("msg");
	add_test(tc, one_format_text_neutralised);
	add_test(tc, progress_overwrites_itself);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
