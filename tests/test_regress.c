/* Replays every file under tests/regress/<parser>/ through the libFuzzer
 * harness of that parser (tests/fuzz/fuzz_<parser>.c, compiled in here
 * under another name): the harness's own invariants (a result or a clean
 * error, never a crash, never an inconsistent parse) abort on a violation,
 * and the test process runs under ASan/UBSan and valgrind in the test
 * command. bench/fuzz-campaign copies every crashing input it finds into
 * these directories, so a fixed bug stays fixed. Each directory must hold
 * at least one case: an empty or missing one is a failure, not a pass. */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testlib.h"

/* The harnesses, each entry point renamed (their static helpers have
 * distinct names). */
#define LLVMFuzzerTestOneInput regress_sse
#include "fuzz/fuzz_sse.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_jsonrpc
#include "fuzz/fuzz_jsonrpc.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_history
#include "fuzz/fuzz_history.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_www_authenticate
#include "fuzz/fuzz_www_authenticate.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_oauth_callback
#include "fuzz/fuzz_oauth_callback.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_catalyst_answer
#include "fuzz/fuzz_catalyst_answer.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_url_split
#include "fuzz/fuzz_url_split.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_report_time
#include "fuzz/fuzz_report_time.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput regress_review
#include "fuzz/fuzz_review.c"
#undef LLVMFuzzerTestOneInput

static const struct {
	const char *parser;
	int (*one)(const uint8_t *data, size_t size);
} parsers[] = {
	{"sse", regress_sse},
	{"jsonrpc", regress_jsonrpc},
	{"history", regress_history},
	{"www_authenticate", regress_www_authenticate},
	{"oauth_callback", regress_oauth_callback},
	{"catalyst_answer", regress_catalyst_answer},
	{"url_split", regress_url_split},
	{"report_time", regress_report_time},
	{"review", regress_review},
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(replay)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", testlib_src("tests/regress"));
	snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/%s", parsers[_i].parser);
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "no regression directory %s", dir);
	char *names[4096];
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < sizeof names / sizeof *names)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	ck_assert_msg(n > 0, "%s holds no regression case", dir);
	qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		struct stat st;
		ck_assert_int_eq(stat(path, &st), 0);
		if (!S_ISREG(st.st_mode)) {
			free(names[i]);
			continue;
		}
		size_t len = 0;
		char *data = testlib_read_file(path, &len);
		ck_assert_msg(data != NULL, "cannot read %s", path);
		/* Named first: an abort in the harness leaves this as the
		 * last line of the log. */
		fprintf(stderr, "regress %s/%s (%zu bytes)\n", parsers[_i].parser, names[i], len);
		/* An exact-size copy, so ASan sees any read past the end. */
		uint8_t *exact = malloc(len ? len : 1);
		ck_assert_ptr_nonnull(exact);
		memcpy(exact, data, len);
		ck_assert_int_eq(parsers[_i].one(exact, len), 0);
		free(exact);
		free(data);
		free(names[i]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("regress");
	struct testlib_group *tc = testlib_group("regress");
	add_loop_test(tc, replay, 0, (int)(sizeof parsers / sizeof *parsers));
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
