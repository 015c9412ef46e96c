#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "testlib.h"

struct esc_case {
	const char *in;
	size_t in_len; /* 0: strlen(in) */
	size_t max;
	const char *want;
};

static const struct esc_case terminal_cases[] = {
	{"plain ascii", 0, 0, "plain ascii"},
	{"", 0, 0, ""},
	{"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80", 0, 0,
	 "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"},
	{"\x1b[31mred\x1b[0m", 0, 0, "\\x1b[31mred\\x1b[0m"},
	{"\x1b]8;;http://evil\x07link", 0, 0, "\\x1b]8;;http://evil\\x07link"},
	{"a\rb", 0, 0, "a\\rb"},
	{"a\nb\tc", 0, 0, "a\\nb\\tc"},
	{"nul\x01\x1f\x7f", 0, 0, "nul\\x01\\x1f\\x7f"},
	{"c1 \xc2\x9b"
	 "2J \xc2\x80 \xc2\x9f",
	 0, 0, "c1 \\u009b2J \\u0080 \\u009f"},
	{"bidi \xe2\x80\xae"
	 "cba",
	 0, 0, "bidi \\u202ecba"},
	{"\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 0, 0, "\\u202a\\u202b\\u202c\\u202d"},
	{"\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", 0, 0, "\\u2066\\u2067\\u2068\\u2069"},
	{"\xe2\x80\x8e\xe2\x80\x8f", 0, 0, "\\u200e\\u200f"},
	{"sep\xe2\x80\xa8", 0, 0, "sep\\u2028"},
	/* zero-width space, non-joiner, joiner, word joiner, BOM */
	{"z\xe2\x80\x8bw\xe2\x80\x8cn\xe2\x80\x8dj\xe2\x81\xa0"
	 "b\xef\xbb\xbf",
	 0, 0, "z\\u200bw\\u200cn\\u200dj\\u2060b\\ufeff"},
	/* the rest of Unicode's default-ignorable set: tag characters
	 * (U+E0041 tag A, U+E007F cancel tag), invisible separator U+2063 and
	 * function application U+2061, Hangul filler U+3164, soft hyphen,
	 * variation selectors 16 and 17, Mongolian vowel separator */
	{"tag\xf3\xa0\x81\x81\xf3\xa0\x81\xbf|\xe2\x81\xa3\xe2\x81\xa1|\xe3\x85\xa4|\xc2\xad|\xef\xb8\x8f"
	 "\xf3\xa0\x84\x80|\xe1\xa0\x8e",
	 0, 0, "tag\\U000e0041\\U000e007f|\\u2063\\u2061|\\u3164|\\u00ad|\\ufe0f\\U000e0100|\\u180e"},
	/* their neighbours stay: en quad, hyphen, U+FEFE, (R), U+3165, U+FE10,
	 * U+E1000 */
	{"\xe2\x80\x80\xe2\x80\x90\xef\xbb\xbe\xc2\xae\xe3\x85\xa5\xef\xb8\x90\xf3\xa1\x80\x80", 0, 0,
	 "\xe2\x80\x80\xe2\x80\x90\xef\xbb\xbe\xc2\xae\xe3\x85\xa5\xef\xb8\x90\xf3\xa1\x80\x80"},
	{"raw c1 \x9b", 0, 0, "raw c1 \\x9b"},
	{"bad \xff\xfe", 0, 0, "bad \\xff\\xfe"},
	{"overlong \xc0\xaf", 0, 0, "overlong \\xc0\\xaf"},
	{"overlong3 \xe0\x80\xaf", 0, 0, "overlong3 \\xe0\\x80\\xaf"},
	{"surrogate \xed\xa0\x80", 0, 0, "surrogate \\xed\\xa0\\x80"},
	{"too big \xf4\x90\x80\x80", 0, 0, "too big \\xf4\\x90\\x80\\x80"},
	{"truncated \xe2\x80", 0, 0, "truncated \\xe2\\x80"},
	{"back\\slash \\x1b", 0, 0, "back\\\\slash \\\\x1b"},
	{"a\0b", 3, 0, "a\\x00b"},
	/* shortening: at most max characters, never inside an escape */
	{"0123456789", 0, 10, "0123456789"},
	{"0123456789abc", 0, 10, "0123456..."},
	{"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 0, 5, "\xc3\xa9\xc3\xa9..."},
	{"ab\x1b\x1b\x1b\x1b", 0, 8, "ab..."},
	{"ab\x1b"
	 "cdefgh",
	 0, 9, "ab\\x1b..."},
};

START_TEST(terminal_table)
{
	const struct esc_case *c = &terminal_cases[_i];
	struct buf b;
	buf_init(&b, 0);
	size_t len = c->in_len ? c->in_len : strlen(c->in);
	ck_assert_int_eq(escape_terminal(&b, c->in, len, c->max, NULL), 0);
	ck_assert_msg(strcmp(b.data, c->want) == 0, "case %d: got '%s', want '%s'", _i, b.data, c->want);
	ck_assert_uint_eq(b.len, strlen(c->want));
	buf_finish(&b);
}
END_TEST

static const struct {
	const char *in;
	enum escape_md_context ctx;
	const char *want;
} markdown_cases[] = {
	{"ChargeCard", ESCAPE_MD_CELL, "ChargeCard"},
	{"a|b", ESCAPE_MD_CELL, "a\\|b"},
	{"`code` *b* _i_ [l](u) ~s~", ESCAPE_MD_INLINE, "\\`code\\` \\*b\\* \\_i\\_ \\[l\\](u) \\~s\\~"},
	{"<script>&amp;", ESCAPE_MD_INLINE, "&lt;script&gt;&amp;amp;"},
	{"# title", ESCAPE_MD_INLINE, "\\# title"},
	{"issue #4", ESCAPE_MD_INLINE, "issue #4"},
	{"one\ntwo", ESCAPE_MD_CELL, "one<br>two"},
	{"one\r\ntwo", ESCAPE_MD_CELL, "one<br>two"},
	{"one\n# two", ESCAPE_MD_INLINE, "one \\# two"},
	{"one\rtwo", ESCAPE_MD_INLINE, "one\\\\rtwo"},
	{"\x1b[2J", ESCAPE_MD_CELL, "\\\\x1b\\[2J"},
	{"rtl \xe2\x80\xae", ESCAPE_MD_CELL, "rtl \\\\u202e"},
	{"bad \xff", ESCAPE_MD_CELL, "bad \\\\xff"},
	{"back\\slash", ESCAPE_MD_INLINE, "back\\\\slash"},
	{"caf\xc3\xa9", ESCAPE_MD_INLINE, "caf\xc3\xa9"},
	{"tab\there", ESCAPE_MD_CELL, "tab\\\\there"},
	{"Pay\xe2\x80\x8bment\xef\xbb\xbf\xe2\x81\xa0", ESCAPE_MD_CELL, "Pay\\\\u200bment\\\\ufeff\\\\u2060"},
	{"Pay\xf3\xa0\x81\x81\xe2\x81\xa3\xe3\x85\xa4\xc2\xad", ESCAPE_MD_CELL,
	 "Pay\\\\U000e0041\\\\u2063\\\\u3164\\\\u00ad"},
};

START_TEST(markdown_table)
{
	char *got = escape_markdown_dup(markdown_cases[_i].in, markdown_cases[_i].ctx);
	ck_assert_ptr_nonnull(got);
	ck_assert_msg(strcmp(got, markdown_cases[_i].want) == 0, "case %d: got '%s', want '%s'", _i, got,
		      markdown_cases[_i].want);
	free(got);
}
END_TEST

/* Messages on stderr: the same escapes, but a backslash stays one, so an
 * escaped text passes unchanged and escaping twice changes nothing. */
static const struct {
	const char *in;
	const char *want;
} message_cases[] = {
	{"plain: 'quoted' \"text\"", "plain: 'quoted' \"text\""},
	{"\x1b]0;X\x07 \r\n\t\x7f", "\\x1b]0;X\\x07 \\r\\n\\t\\x7f"},
	{"c1 \xc2\x9b \xc2\x85, bidi \xe2\x80\xae \xe2\x81\xa9", "c1 \\u009b \\u0085, bidi \\u202e \\u2069"},
	{"zw \xe2\x80\x8b\xe2\x80\x8c\xe2\x80\x8d\xe2\x81\xa0\xef\xbb\xbf",
	 "zw \\u200b\\u200c\\u200d\\u2060\\ufeff"},
	{"bad \x9b\xff\xe2\x80", "bad \\x9b\\xff\\xe2\\x80"},
	{"escaped already: \\x1b \\\\ \\u202e", "escaped already: \\x1b \\\\ \\u202e"},
	{"caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5"},
};

START_TEST(message_table)
{
	char *got = escape_message_dup(message_cases[_i].in);
	ck_assert_ptr_nonnull(got);
	ck_assert_msg(strcmp(got, message_cases[_i].want) == 0, "case %d: got '%s', want '%s'", _i, got,
		      message_cases[_i].want);
	char *twice = escape_message_dup(got);
	ck_assert_str_eq(twice, got);
	/* what escape_terminal made (a report line) passes unchanged */
	char *term = escape_terminal_dup(message_cases[_i].in, 0);
	char *term_msg = escape_message_dup(term);
	ck_assert_str_eq(term_msg, term);
	char fixed[512];
	escape_message_into(fixed, sizeof fixed, message_cases[_i].in);
	ck_assert_str_eq(fixed, got);
	free(term);
	free(term_msg);
	free(twice);
	free(got);
}
END_TEST

/* The fixed-size form cuts between whole characters and escapes. */
START_TEST(message_into_cuts_whole_units)
{
	char out[8];
	escape_message_into(out, sizeof out, "ab\x1b\x1b");
	ck_assert_str_eq(out, "ab\\x1b"); /* a second \x1b does not fit */
	escape_message_into(out, sizeof out, "abcde\xc3\xa9\xc3\xa9");
	ck_assert_str_eq(out, "abcde\xc3\xa9"); /* 7 bytes and the NUL */
	escape_message_into(out, 1, "abc");
	ck_assert_str_eq(out, "");
	escape_message_into(out, sizeof out, NULL);
	ck_assert_str_eq(out, "");
	ck_assert_ptr_null(escape_message_dup(NULL));
}
END_TEST

START_TEST(utf8_decoder)
{
	static const struct {
		const char *in;
		size_t len;
		size_t want_n;
		uint32_t want_cp;
	} cases[] = {
		{"A", 1, 1, 'A'},
		{"\xc3\xa9", 2, 2, 0xe9},
		{"\xe2\x82\xac", 3, 3, 0x20ac},
		{"\xf0\x9f\x98\x80", 4, 4, 0x1f600},
		{"\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff},
		{"\xc3", 1, 0, 0},
		{"\x80", 1, 0, 0},
		{"\xc1\xbf", 2, 0, 0},
		{"\xf0\x8f\xbf\xbf", 4, 0, 0},
		{"\xed\xbf\xbf", 3, 0, 0},
		{"\xf5\x80\x80\x80", 4, 0, 0},
		{"\xe2\x28\xa1", 3, 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint32_t cp = 0;
		size_t n = escape_utf8_next(cases[i].in, cases[i].len, &cp);
		ck_assert_msg(n == cases[i].want_n, "case %zu: n %zu", i, n);
		if (n)
			ck_assert_uint_eq(cp, cases[i].want_cp);
	}
}
END_TEST

/* Columns of escaped text: one per code point, whatever its length in bytes. */
START_TEST(columns_count_code_points)
{
	static const struct {
		const char *in;
		size_t want;
	} cases[] = {
		{"", 0},
		{"order-7804", 10},
		{"caf\xc3\xa9", 4},
		{"\xe2\x82\xac 5", 3},
		{"\xf0\x9f\x98\x80", 1},
		{"\\x1b[2K", 7}, /* an escape as escape_terminal writes it */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ck_assert_msg(escape_columns(cases[i].in) == cases[i].want, "case %zu", i);
}
END_TEST

START_TEST(repair_and_null)
{
	char *r = escape_utf8_repair_dup("ok \xff end \xe2\x80\xae");
	ck_assert_str_eq(r, "ok \xef\xbf\xbd end \xe2\x80\xae");
	free(r);
	ck_assert_ptr_null(escape_terminal_dup(NULL, 0));
	ck_assert_ptr_null(escape_markdown_dup(NULL, ESCAPE_MD_CELL));
	r = escape_terminal_dup("", 0);
	ck_assert_str_eq(r, "");
	free(r);
}
END_TEST

/* Whatever bytes come in, no byte of the terminal form is a control
 * character or starts a C1 / bidi sequence. */
START_TEST(terminal_output_never_has_controls)
{
	char in[256];
	unsigned seed = 12345;
	for (int round = 0; round < 40; round++) {
		for (size_t i = 0; i < sizeof in; i++) {
			seed = seed * 1103515245u + 12345u;
			in[i] = (char)(seed >> 16);
		}
		struct buf b;
		buf_init(&b, 0);
		ck_assert_int_eq(escape_terminal(&b, in, sizeof in, 0, NULL), 0);
		size_t i = 0;
		while (i < b.len) {
			uint32_t cp;
			size_t n = escape_utf8_next(b.data + i, b.len - i, &cp);
			ck_assert_msg(n > 0, "invalid UTF-8 in output at %zu", i);
			ck_assert_msg(!escape_is_unsafe(cp), "unsafe U+%04x in output", (unsigned)cp);
			i += n;
		}
		buf_finish(&b);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("escape");
	struct testlib_group *tc = testlib_group("escape");
	add_loop_test(tc, terminal_table, 0, (int)(sizeof terminal_cases / sizeof *terminal_cases));
	add_loop_test(tc, markdown_table, 0, (int)(sizeof markdown_cases / sizeof *markdown_cases));
	add_loop_test(tc, message_table, 0, (int)(sizeof message_cases / sizeof *message_cases));
	add_test(tc, message_into_cuts_whole_units);
	add_test(tc, utf8_decoder);
	add_test(tc, columns_count_code_points);
	add_test(tc, repair_and_null);
	add_test(tc, terminal_output_never_has_controls);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
