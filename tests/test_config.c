/* The config file parser: what a line means, and every error naming the
 * file and line. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "testlib.h"

static const char *const keys[] = {"server",        "project", "project-id", "console", "client-id",
				   "format",        "color",   "fail-on",    "timeout", "jobs",
				   "redirect-path", "cacert",  NULL};

struct kv {
	const char *key, *value;
	unsigned line;
};

static const struct {
	const char *text;
	struct kv want[4];
} good_cases[] = {
	{"", {{0}}},
	{"\n\n   \n\t\n", {{0}}},
	{"# only a comment\n   # an indented one\n", {{0}}},
	{"server = https://mcp.example.com/mcp\n", {{"server", "https://mcp.example.com/mcp", 1}}},
	{"server=https://x/mcp", {{"server", "https://x/mcp", 1}}}, /* no blanks, no final newline */
	{"  project\t=\tpayments  \n", {{"project", "payments", 1}}},
	{"# c\n\nproject = payments\nformat = json\n", {{"project", "payments", 3}, {"format", "json", 4}}},
	{"project = payments # the team's\n", {{"project", "payments", 1}}}, /* inline comment after a blank */
	{"console = https://c.example/a#b\n", {{"console", "https://c.example/a#b", 1}}}, /* # in a word stays */
	{"project = \"my project\"\n", {{"project", "my project", 1}}},
	{"project = 'single'\n", {{"project", "single", 1}}},
	{"project = \"unbalanced\n", {{"project", "\"unbalanced", 1}}},
	{"project = a=b\n", {{"project", "a=b", 1}}}, /* the first = splits */
	{"project = payments\r\nformat = json\r\n", {{"project", "payments", 1}, {"format", "json", 2}}},
};

START_TEST(good_table)
{
	struct config c;
	config_init(&c);
	struct err e;
	err_clear(&e);
	const char *text = good_cases[_i].text;
	ck_assert_msg(config_parse(&c, "cfg", text, strlen(text), keys, &e) == 0, "case %d: %s", _i, e.msg);
	size_t n = 0;
	while (good_cases[_i].want[n].key)
		n++;
	ck_assert_uint_eq(c.n, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(c.entries[i].key, good_cases[_i].want[i].key);
		ck_assert_str_eq(c.entries[i].value, good_cases[_i].want[i].value);
		ck_assert_uint_eq(c.entries[i].line, good_cases[_i].want[i].line);
	}
	config_finish(&c);
}
END_TEST

static const struct {
	const char *text;
	const char *want; /* the whole message */
} bad_cases[] = {
	{"project payments\n", "cfg:1: expected `key = value`"},
	{"\n\n= payments\n", "cfg:3: no key before '='"},
	{"project =\n", "cfg:1: project has no value"},
	{"project =   # nothing\n", "cfg:1: project has no value"},
	{"project = \"\"\n", "cfg:1: project has no value"},
	{"project = a\nproject = b\n", "cfg:2: project is set twice (first on line 1)"},
	{"sever = x\n", "cfg:1: unknown key 'sever'; did you mean 'server'?"},
	{"project_id = 165\n", "cfg:1: unknown key 'project_id'; did you mean 'project-id'?"},
	{"verbosity = 3\n", "cfg:1: unknown key 'verbosity' (see catalyst-audit(1), FILES)"},
	{"a\0b = c\n", "cfg: not a text file (a NUL byte)"},
};

START_TEST(bad_table)
{
	struct config c;
	config_init(&c);
	struct err e;
	err_clear(&e);
	const char *text = bad_cases[_i].text;
	size_t len = strlen(text);
	if (_i == 9)
		len = 8; /* the NUL case */
	ck_assert_int_eq(config_parse(&c, "cfg", text, len, keys, &e), -1);
	ck_assert_int_eq(e.code, ERR_USAGE);
	ck_assert_str_eq(e.msg, bad_cases[_i].want);
	config_finish(&c);
}
END_TEST

/* A secret is refused by its key, whatever the key's spelling, and its
 * value is never in the message. */
START_TEST(secrets_refused)
{
	static const char *const lines[] = {
		"token = eyJhbGciOiJSUzI1NiJ9.SECRETVALUE\n",
		"access-token = SECRETVALUE\n",
		"refresh_token = SECRETVALUE\n",
		"client-secret = SECRETVALUE\n",
		"Password = SECRETVALUE\n",
		"SECRETVALUE\n", /* a pasted token alone on a line */
	};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		struct config c;
		config_init(&c);
		struct err e;
		err_clear(&e);
		ck_assert_int_eq(config_parse(&c, "cfg", lines[i], strlen(lines[i]), keys, &e), -1);
		ck_assert_ptr_null(strstr(e.msg, "SECRETVALUE"));
		ck_assert_ptr_nonnull(strstr(e.msg, "cfg:1: "));
		if (i < 5)
			ck_assert_msg(strstr(e.msg, "holds no secrets"), "%s", e.msg);
		config_finish(&c);
	}
}
END_TEST

START_TEST(load_from_disk)
{
	char dir[256];
	testlib_make_tmpdir(dir, sizeof dir, "config");
	char path[512];
	snprintf(path, sizeof path, "%s/config", dir);
	struct config c;
	config_init(&c);
	struct err e;
	err_clear(&e);

	/* missing: fine unless it must exist */
	ck_assert_int_eq(config_load(&c, path, false, keys, &e), 0);
	ck_assert_ptr_null(c.path);
	ck_assert_uint_eq(c.n, 0);
	ck_assert_int_eq(config_load(&c, path, true, keys, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "No such file"));

	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("# mine\njobs = 4\n", f);
	fclose(f);
	ck_assert_int_eq(config_load(&c, path, false, keys, &e), 0);
	ck_assert_str_eq(c.path, path);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_str_eq(c.entries[0].value, "4");
	config_finish(&c);

	/* a directory, and a file too big to be a config file */
	config_init(&c);
	ck_assert_int_eq(config_load(&c, dir, true, keys, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "is a folder, not a regular file"));
	f = fopen(path, "w");
	for (int i = 0; i < CONFIG_MAX_BYTES / 10 + 1; i++)
		fputs("#########\n", f);
	fclose(f);
	ck_assert_int_eq(config_load(&c, path, true, keys, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "this tool reads"));
	config_finish(&c);

	/* /dev/null: an empty file, so no config at all */
	config_init(&c);
	ck_assert_int_eq(config_load(&c, "/dev/null", true, keys, &e), 0);
	ck_assert_uint_eq(c.n, 0);
	config_finish(&c);
	testlib_remove_tree(dir);
}
END_TEST

static const struct {
	const char *xdg, *home, *want;
} path_cases[] = {
	{"/x/cfg", "/home/u", "/x/cfg/catalyst-audit/config"},
	{NULL, "/home/u", "/home/u/.config/catalyst-audit/config"},
	{"", "/home/u", "/home/u/.config/catalyst-audit/config"},
	{"relative/cfg", "/home/u", "/home/u/.config/catalyst-audit/config"}, /* XDG: relative is ignored */
	{NULL, NULL, NULL},
	{NULL, "", NULL},
};

START_TEST(default_path_table)
{
	char *got = config_default_path(path_cases[_i].xdg, path_cases[_i].home);
	if (!path_cases[_i].want)
		ck_assert_ptr_null(got);
	else
		ck_assert_str_eq(got, path_cases[_i].want);
	free(got);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config");
	struct testlib_group *tc = testlib_group("config");
	add_loop_test(tc, good_table, 0, (int)(sizeof good_cases / sizeof *good_cases));
	add_loop_test(tc, bad_table, 0, (int)(sizeof bad_cases / sizeof *bad_cases));
	add_test(tc, secrets_refused);
	add_test(tc, load_from_disk);
	add_loop_test(tc, default_path_table, 0, (int)(sizeof path_cases / sizeof *path_cases));
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
