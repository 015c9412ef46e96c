/* "Did you mean": the edit distance and the choice of a suggestion. */
#include <stdint.h>
#include <string.h>

#include "suggest.h"
#include "testlib.h"

static const struct {
	const char *a, *b;
	size_t want;
} distance_cases[] = {
	{"", "", 0},
	{"runs", "runs", 0},
	{"RUNS", "runs", 0}, /* case folded */
	{"", "run", 3},
	{"run", "", 3},
	{"run", "runs", 1},  /* insertion */
	{"runs", "run", 1},  /* deletion */
	{"rin", "run", 1},   /* substitution */
	{"rnus", "runs", 1}, /* one adjacent transposition, not two substitutions */
	{"stauts", "status", 1},
	{"ca", "abc", 3}, /* optimal string alignment: no edit of a transposed pair */
	{"kitten", "sitting", 3},
	{"fial-on", "fail-on", 1},
	{"project", "project-id", 3},
	{"whoiam", "whoami", 2}, /* a rotation: two edits */
	{"tolls", "tools", 1},
};

START_TEST(distance_table)
{
	size_t got = suggest_distance(distance_cases[_i].a, distance_cases[_i].b);
	ck_assert_msg(got == distance_cases[_i].want, "d(%s, %s) = %zu, want %zu", distance_cases[_i].a,
		      distance_cases[_i].b, got, distance_cases[_i].want);
	/* symmetric */
	ck_assert_uint_eq(suggest_distance(distance_cases[_i].b, distance_cases[_i].a), got);
}
END_TEST

START_TEST(distance_of_overlong_words)
{
	char longword[SUGGEST_MAX_LEN + 2];
	memset(longword, 'a', sizeof longword - 1);
	longword[sizeof longword - 1] = '\0';
	ck_assert_uint_eq(suggest_distance(longword, "a"), SIZE_MAX);
	ck_assert_uint_eq(suggest_distance("a", longword), SIZE_MAX);
	longword[SUGGEST_MAX_LEN] = '\0'; /* exactly the limit: computed */
	ck_assert_uint_eq(suggest_distance(longword, ""), SUGGEST_MAX_LEN);
}
END_TEST

static const char *const commands[] = {"run",    "runs",   "file",  "link", "login",
				       "logout", "whoami", "tools", "help"};
static const char *const options[] = {"server",     "stdio",  "status",  "since",    "project",
				      "project-id", "format", "fail-on", "no-login", "no-children"};

static const struct {
	const char *word;
	int options; /* 0: against the commands, 1: against the options */
	const char *want;
} nearest_cases[] = {
	{"rnus", 0, "runs"},
	{"rum", 0, "run"}, /* a tie of run and runs at one edit: run (first) */
	{"fiel", 0, "file"},
	{"logn", 0, "login"},
	{"lgout", 0, "logout"},
	{"whoiam", 0, "whoami"},
	{"Tools", 0, "tools"},
	{"hlep", 0, "help"},
	{"xyz", 0, NULL}, /* nothing near */
	{"ru", 0, "run"}, /* one edit, short word */
	{"q", 0, NULL},   /* a single letter suggests nothing */
	{"fo", 0, NULL},  /* two edits from everything: too far for two letters */
	{"audit", 0, NULL},
	{"stauts", 1, "status"},
	{"statsu", 1, "status"},
	{"sever", 1, "server"},
	{"fial-on", 1, "fail-on"},
	{"projet", 1, "project"},
	{"project_id", 1, "project-id"},
	{"proj", 1, "project"}, /* no near word: the shortest it begins */
	{"no-chil", 1, "no-children"},
	{"nologin", 1, "no-login"},
	{"colour", 1, NULL},
	{"", 1, NULL},
};

START_TEST(nearest_table)
{
	const char *const *names = nearest_cases[_i].options ? options : commands;
	size_t n = nearest_cases[_i].options ? sizeof options / sizeof *options
					     : sizeof commands / sizeof *commands;
	const char *got = suggest_nearest(nearest_cases[_i].word, names, n);
	const char *want = nearest_cases[_i].want;
	ck_assert_msg((got == NULL && want == NULL) || (got && want && strcmp(got, want) == 0),
		      "'%s': got %s, want %s", nearest_cases[_i].word, got ? got : "(none)",
		      want ? want : "(none)");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("suggest");
	struct testlib_group *tc = testlib_group("suggest");
	add_loop_test(tc, distance_table, 0, (int)(sizeof distance_cases / sizeof *distance_cases));
	add_test(tc, distance_of_overlong_words);
	add_loop_test(tc, nearest_table, 0, (int)(sizeof nearest_cases / sizeof *nearest_cases));
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
