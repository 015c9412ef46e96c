/* meson-test: integration */
/* What `meson install` ships besides the binary: the bash, zsh and fish
 * completions, generated from the option and command tables
 * (completions/gen-completions.c), must know every command and every long
 * option that `catalyst-audit --help` lists, and the bash one must
 * actually complete them. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "testlib.h"

#define TIMEOUT_MS 20000

static char *help_text(void)
{
	char *args[] = {"--help", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, TIMEOUT_MS, &o), 0);
	ck_assert_int_eq(o.status, 0);
	char *text = strdup(o.out);
	testlib_output_free(&o);
	return text;
}

/* Each "--word" of the help, and each command (the first word of the
 * lines under "Commands:"), is passed to fn. Returns how many. */
static int for_each_name(const char *help, void (*fn)(const char *name, void *ctx), void *ctx)
{
	int n = 0;
	bool in_commands = false;
	char *copy = strdup(help), *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "Commands:", 9) == 0) {
			in_commands = true;
			continue;
		}
		if (line[0] != ' ')
			in_commands = false;
		char word[64];
		if (in_commands && sscanf(line, " %63[a-z]", word) == 1) {
			fn(word, ctx);
			n++;
		}
		for (const char *p = strstr(line, "--"); p; p = strstr(p + 2, "--")) {
			if (p > line && p[-1] != ' ' && p[-1] != ',')
				continue;
			if (sscanf(p, "%63[-a-z]", word) == 1 && strlen(word) > 2) {
				fn(word, ctx);
				n++;
			}
		}
	}
	free(copy);
	return n;
}

struct in_file {
	const char *path;
	char *text;
};

static void assert_in_file(const char *name, void *ctx)
{
	struct in_file *f = ctx;
	/* fish names a long option `-l no-login`, not `--no-login` */
	char fish_name[128];
	size_t pl = strlen(f->path);
	if (pl > 5 && strcmp(f->path + pl - 5, ".fish") == 0 && strncmp(name, "--", 2) == 0) {
		snprintf(fish_name, sizeof fish_name, "-l %s", name + 2);
		name = fish_name;
	}
	/* As a whole word: --no-login must not pass for --no-log. */
	size_t n = strlen(name);
	for (const char *p = strstr(f->text, name); p; p = strstr(p + 1, name)) {
		char after = p[n];
		char before = p == f->text ? ' ' : p[-1];
		if ((after == '\0' || strchr(" \t\n'\":=[)|", after)) &&
		    (before == ' ' || before == '\t' || before == '\'' || before == '|' || before == '"' ||
		     before == '(' || before == '{' || before == ','))
			return;
	}
	ck_abort_msg("%s does not complete %s", f->path, name);
}

static const char *const files[] = {"completions/catalyst-audit", "completions/_catalyst-audit",
				    "completions/catalyst-audit.fish"};

/* A generated file, in the build folder. */
static const char *built(const char *rel)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/%s", testlib_env("CA_BUILD_DIR"), rel);
	return path;
}

START_TEST(completion_knows_every_option)
{
	char *help = help_text();
	struct in_file f = {.path = files[_i], .text = testlib_read_file(built(files[_i]), NULL)};
	ck_assert_ptr_nonnull(f.text);
	int n = for_each_name(help, assert_in_file, &f);
	/* 8 commands and 28 long options today: the parse found them. */
	ck_assert_int_ge(n, 30);
	free(f.text);
	free(help);
}
END_TEST

/* Runs the bash completion for a command line; returns its candidates. */
static char *complete(const char *line_words, int cword)
{
	char script[1024];
	snprintf(
		script, sizeof script,
		"source '%s'; COMP_WORDS=(%s); COMP_CWORD=%d; _catalyst_audit; printf '%%s\\n' \"${COMPREPLY[@]}\"",
		built("completions/catalyst-audit"), line_words, cword);
	char *argv[] = {"bash", "--norc", "--noprofile", "-c", script, NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run(argv, NULL, NULL, 0, TIMEOUT_MS, &o), 0);
	ck_assert_msg(o.status == 0, "bash: %s", o.err);
	char *out = strdup(o.out);
	testlib_output_free(&o);
	return out;
}

static const struct {
	const char *words;
	int cword;
	const char *want;
} bash_cases[] = {
	{"catalyst-audit ''", 1, "run\nruns\nstats\nreview\nfile\nlink\nlogin\nlogout\nwhoami\ntools\nhelp\n"},
	{"catalyst-audit --format ''", 2, "@FORMATS@"}, /* each of render_formats, a line each */
	{"catalyst-audit runs -o j", 3, "json\njsonl\n"},
	{"catalyst-audit help ru", 2, "run\nruns\n"},
	{"catalyst-audit run --st", 2, "--stdio\n"}, /* --status is for runs only */
	{"catalyst-audit --project payments ru", 3, "run\nruns\n"},
	{"catalyst-audit runs --st", 2, "--stdio\n--status\n--state\n"},
	{"catalyst-audit runs --status f", 3, "failed\n"},
	{"catalyst-audit stats --st", 2, "--stdio\n--status\n"},
	{"catalyst-audit --fail-on ''", 2, "never\nreexecuted\nsuspect\n"},
	{"catalyst-audit --color a", 2, "auto\nalways\n"},
};

START_TEST(bash_completes)
{
	char *got = complete(bash_cases[_i].words, bash_cases[_i].cword);
	char want[256] = "";
	if (strcmp(bash_cases[_i].want, "@FORMATS@") == 0) {
		for (const struct render_format_row *f = render_formats; f->name; f++) {
			strcat(want, f->name);
			strcat(want, "\n");
		}
	} else {
		snprintf(want, sizeof want, "%s", bash_cases[_i].want);
	}
	ck_assert_str_eq(got, want);
	free(got);
}
END_TEST

/* The long options a command's --help lists under "Options of CMD:" and "Global options:" (the first
 * word of each line there), each followed by a newline. */
static char *help_options(const char *cmd)
{
	char *args[] = {(char *)cmd, "--help", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(args, NULL, NULL, TIMEOUT_MS, &o), 0);
	ck_assert_int_eq(o.status, 0);
	char *list = calloc(1, o.out_len + 1);
	char head[64];
	snprintf(head, sizeof head, "\nOptions of %s:\n", cmd);
	char *p = strstr(o.out, head);
	char *end = strstr(o.out, "\n\nExamples:");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	char *save = NULL;
	for (char *line = strtok_r(p + strlen(head), "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* its own options, then (issue 19) the global ones */
		if (strcmp(line, "Global options:") == 0)
			continue;
		char word[64];
		char *dash = strstr(line, "--");
		ck_assert_msg(dash && dash - line <= 6, "not an option line: %s", line);
		ck_assert_int_eq(sscanf(dash, "%63[-a-z]", word), 1);
		strcat(list, word);
		strcat(list, "\n");
	}
	testlib_output_free(&o);
	return list;
}

static int compare_words(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The words of a newline-separated list, sorted, the short options (-o)
 * left out, joined again. */
static char *sorted_long_words(const char *list)
{
	char *copy = strdup(list), *save = NULL, *words[128];
	size_t n = 0;
	for (char *w = strtok_r(copy, "\n", &save); w && n < 128; w = strtok_r(NULL, "\n", &save))
		if (strncmp(w, "--", 2) == 0)
			words[n++] = w;
	qsort(words, n, sizeof *words, compare_words);
	char *out = calloc(1, strlen(list) + 2);
	for (size_t i = 0; i < n; i++) {
		strcat(out, words[i]);
		strcat(out, "\n");
	}
	free(copy);
	return out;
}

/* Per command, bash offers exactly the options that command takes: an
 * option the command would refuse is not offered, none it takes is missing. */
START_TEST(bash_offers_each_command_its_options)
{
	if (cli_commands[_i].cmd == CMD_NONE)
		return; /* `help` takes a command, no option of its own */
	const char *cmd = cli_commands[_i].name;
	char words[128];
	snprintf(words, sizeof words, "catalyst-audit %s --", cmd);
	char *offered = complete(words, 2);
	char *want = help_options(cmd);
	char *a = sorted_long_words(offered), *b = sorted_long_words(want);
	ck_assert_msg(strlen(b) > 0, "%s --help lists no options", cmd);
	ck_assert_msg(strcmp(a, b) == 0, "%s: bash offers\n%s\nbut --help lists\n%s", cmd, a, b);
	free(a);
	free(b);
	free(offered);
	free(want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("install");
	struct testlib_group *tc = testlib_group("install");
	add_loop_test(tc, completion_knows_every_option, 0, 3);
	add_loop_test(tc, bash_completes, 0, (int)(sizeof bash_cases / sizeof *bash_cases));
	add_loop_test(tc, bash_offers_each_command_its_options, 0, (int)cli_n_commands);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
