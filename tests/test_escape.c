#include <stdio.h>
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
	/* their neighbours stay: en quad, hyphen, (R), U+3165, U+FE10 */
	{"\xe2\x80\x80\xe2\x80\x90\xc2\xae\xe3\x85\xa5\xef\xb8\x90", 0, 0,
	 "\xe2\x80\x80\xe2\x80\x90\xc2\xae\xe3\x85\xa5\xef\xb8\x90"},
	/* by property, not by list (issue 31): the interlinear annotation
	 * characters U+FFF9-U+FFFB (Cf), the Arabic number sign U+0600 (Cf),
	 * private use U+E000 and U+F0000 (Co), unassigned U+0378, U+FEFE and
	 * U+E1000 (Cn), the noncharacters U+FDD0 and U+FFFF (Cn) */
	{"a\xef\xbf\xb9\xef\xbf\xba\xef\xbf\xbb"
	 "b\xd8\x80|\xee\x80\x80\xf3\xb0\x80\x80|\xcd\xb8\xef\xbb\xbe\xf3\xa1\x80\x80|\xef\xb7\x90\xef\xbf\xbf",
	 0, 0, "a\\ufff9\\ufffa\\ufffbb\\u0600|\\ue000\\U000f0000|\\u0378\\ufefe\\U000e1000|\\ufdd0\\uffff"},
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
	{"issue #4", ESCAPE_MD_INLINE, "issue `#4`"}, /* issue 31: GitHub would link it */
	{"cc @org/team", ESCAPE_MD_CELL, "cc `@org/team`"},
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

/* The generated table (scripts/gen-unsafe-table) walked whole: sorted,
 * disjoint ranges of scalar values, and escape_is_unsafe says yes exactly
 * for the code points in them, every one of the 1,112,064; each of those
 * comes out of escape_terminal and escape_markdown as its visible escape. */
START_TEST(unsafe_table_walked_whole)
{
	size_t n = escape_unsafe_range_count();
	ck_assert_uint_gt(n, 100);
	uint32_t prev_to = 0;
	size_t r = 0;
	for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
		if (cp >= 0xd800 && cp <= 0xdfff)
			continue;
		uint32_t from, to;
		while (r < n) {
			escape_unsafe_range(r, &from, &to);
			if (cp <= to)
				break;
			r++;
		}
		bool in = false;
		if (r < n) {
			escape_unsafe_range(r, &from, &to);
			in = cp >= from;
		}
		ck_assert_msg(escape_is_unsafe(cp) == in, "U+%04X: table says %d", (unsigned)cp, in);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t from, to;
		escape_unsafe_range(i, &from, &to);
		ck_assert_msg(from <= to && to <= 0x10ffff, "range %zu", i);
		ck_assert_msg(i == 0 || from > prev_to + 1, "range %zu not sorted, disjoint and merged", i);
		prev_to = to;
		/* the range's first and last code point, escaped in both dialects */
		uint32_t ends[2] = {from, to};
		for (int k = 0; k < 2; k++) {
			uint32_t cp = ends[k];
			if (cp < 0x80 || (cp >= 0xd800 && cp <= 0xdfff))
				continue;
			char in[5] = {0}, want[16];
			if (cp < 0x800) {
				in[0] = (char)(0xc0 | (cp >> 6)), in[1] = (char)(0x80 | (cp & 0x3f));
			} else if (cp < 0x10000) {
				in[0] = (char)(0xe0 | (cp >> 12)), in[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
				in[2] = (char)(0x80 | (cp & 0x3f));
			} else {
				in[0] = (char)(0xf0 | (cp >> 18)), in[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
				in[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), in[3] = (char)(0x80 | (cp & 0x3f));
			}
			snprintf(want, sizeof want, cp <= 0xffff ? "\\u%04x" : "\\U%08x", (unsigned)cp);
			char *t = escape_terminal_dup(in, 0), *m = escape_markdown_dup(in, ESCAPE_MD_INLINE);
			ck_assert_msg(t && strcmp(t, want) == 0, "U+%04X: terminal %s", (unsigned)cp, t);
			ck_assert_msg(m && strstr(m, want + 0) != NULL, "U+%04X: markdown %s", (unsigned)cp, m);
			free(t);
			free(m);
		}
	}
}
END_TEST

/* The table against the Unicode data files themselves, read here apart
 * from the generator: every Cc Cf Co Zl Zp code point of UnicodeData.txt is
 * unsafe, every Default_Ignorable_Code_Point and Bidi_Control is, and a
 * letter, mark, number, punctuation, symbol or space that is neither is
 * printed as it is. */
static void each_property(const char *file, const char *prop, void (*fn)(uint32_t))
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", testlib_env("CA_UNICODE_DATA"), file);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f, "%s", path);
	char line[512];
	size_t seen = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned lo, hi;
		char name[64];
		int k = sscanf(line, "%x..%x ; %63[A-Za-z_]", &lo, &hi, name);
		if (k != 3) {
			if (sscanf(line, "%x ; %63[A-Za-z_]", &lo, name) != 2)
				continue;
			hi = lo;
		}
		if (strcmp(name, prop) != 0)
			continue;
		for (uint32_t c = lo; c <= hi; c++)
			fn(c);
		seen++;
	}
	fclose(f);
	ck_assert_msg(seen > 0, "no %s in %s", prop, file);
}

static unsigned char special[0x110000];
static void mark_special(uint32_t cp)
{
	special[cp] = 1;
	ck_assert_msg(escape_is_unsafe(cp), "U+%04X is %s", (unsigned)cp, "ignorable or a bidi control");
}

START_TEST(unsafe_table_matches_unicode_data)
{
	memset(special, 0, sizeof special);
	each_property("DerivedCoreProperties.txt", "Default_Ignorable_Code_Point", mark_special);
	each_property("PropList.txt", "Bidi_Control", mark_special);
	char path[600];
	snprintf(path, sizeof path, "%s/UnicodeData.txt", testlib_env("CA_UNICODE_DATA"));
	FILE *f = fopen(path, "r");
	ck_assert_msg(f, "%s", path);
	char line[512];
	size_t unsafe = 0, safe = 0;
	uint32_t first = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned cp;
		char name[128], gc[8];
		if (sscanf(line, "%x;%127[^;];%7[^;]", &cp, name, gc) != 3)
			continue;
		if (strstr(name, ", First>")) {
			first = cp;
			continue;
		}
		uint32_t lo = strstr(name, ", Last>") ? first : cp;
		bool bad = gc[0] == 'C' || strcmp(gc, "Zl") == 0 || strcmp(gc, "Zp") == 0;
		for (uint32_t c = lo; c <= cp; c++) {
			if (c >= 0xd800 && c <= 0xdfff)
				continue;
			if (bad) {
				ck_assert_msg(escape_is_unsafe(c), "U+%04X (%s) printed raw", (unsigned)c, gc);
				unsafe++;
			} else if (!special[c]) {
				ck_assert_msg(!escape_is_unsafe(c), "U+%04X (%s) escaped", (unsigned)c, gc);
				safe++;
			}
		}
	}
	fclose(f);
	ck_assert_uint_gt(safe, 100000);
	ck_assert_uint_gt(unsafe, 100000); /* the private use planes */
	/* the version the build read is the version read here */
	snprintf(path, sizeof path, "%s/DerivedCoreProperties.txt", testlib_env("CA_UNICODE_DATA"));
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char want[64];
	ck_assert_int_eq(fscanf(f, "# DerivedCoreProperties-%63[0-9.]", want), 1);
	fclose(f);
	size_t wl = strlen(want);
	if (wl && want[wl - 1] == '.')
		want[wl - 1] = '\0';
	ck_assert_str_eq(escape_unicode_version(), want);
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
	add_test(tc, unsafe_table_walked_whole);
	add_test(tc, unsafe_table_matches_unicode_data);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
