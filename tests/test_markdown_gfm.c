/* meson-test: integration */
/* The Markdown report pasted into GitHub (issue 31, item 5): server-supplied
 * names, ids and error messages carrying "@org/team", "#123",
 * "org/repo#7", "a@b.co", HTML, table pipes and invisible characters are
 * rendered with cmark-gfm (GitHub's own CommonMark fork, with its table and
 * autolink extensions) and the HTML is read the way GitHub's mention and
 * issue-reference filters read it: outside <code> and <pre>, no "@name",
 * no "#number", no mail link, no tag the history wrote, no invisible
 * character. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "testlib.h"

#define FIXTURE "tests/fixtures/hostile-names.catalyst.json"

static char *render_gfm(const char *markdown)
{
	char *argv[] = {"cmark-gfm",     "-e", "table",     "-e", "autolink", "-e",
			"strikethrough", "-e", "tagfilter", NULL};
	struct testlib_output o;
	ck_assert_int_eq(testlib_run(argv, NULL, markdown, strlen(markdown), 30000, &o), 0);
	ck_assert_msg(o.status == 0, "cmark-gfm: %s", o.err);
	char *html = strdup(o.out);
	testlib_output_free(&o);
	return html;
}

/* html with every <code>...</code> and <pre>...</pre> blanked out: what
 * GitHub's filters look at. */
static void drop_code(char *html)
{
	static const char *const pairs[][2] = {{"<pre", "</pre>"}, {"<code", "</code>"}};
	for (size_t k = 0; k < 2; k++) {
		char *p = html;
		while ((p = strstr(p, pairs[k][0]))) {
			char *end = strstr(p, pairs[k][1]);
			ck_assert_ptr_nonnull(end);
			end += strlen(pairs[k][1]);
			memset(p, ' ', (size_t)(end - p));
			p = end;
		}
	}
}

static void assert_inert(const char *html_in, const char *view)
{
	char *html = strdup(html_in);
	drop_code(html);
	for (const char *p = html; *p; p++) {
		bool mention = *p == '@' && (p[1] == '_' || (p[1] >= 'a' && p[1] <= 'z') ||
					     (p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= '0' && p[1] <= '9'));
		bool issue = *p == '#' && p[1] >= '0' && p[1] <= '9';
		ck_assert_msg(!mention && !issue, "%s: GitHub would link \"%.20s\" in:\n%s", view, p, html_in);
	}
	ck_assert_msg(!strstr(html, "mailto:"), "%s: a mail link in:\n%s", view, html_in);
	ck_assert_msg(!strstr(html_in, "<b>"), "%s: the history's HTML is live in:\n%s", view, html_in);
	/* no invisible character anywhere, code spans included */
	size_t len = strlen(html_in);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = escape_utf8_next(html_in + i, len - i, &cp);
		ck_assert_msg(n > 0, "%s: bad UTF-8 at %zu", view, i);
		ck_assert_msg(cp == '\n' || !escape_is_unsafe(cp), "%s: U+%04X raw in:\n%s", view, (unsigned)cp,
			      html_in);
		i += n;
	}
	free(html);
}

static void check_view(const char *const *extra, const char *view)
{
	char *argv[12] = {"file", (char *)testlib_src(FIXTURE), "-o", "markdown"};
	size_t n = 4;
	for (; extra && *extra; extra++)
		argv[n++] = (char *)*extra;
	argv[n] = NULL;
	struct testlib_output o;
	ck_assert_int_eq(testlib_run_cli(argv, NULL, NULL, 30000, &o), 0);
	ck_assert_msg(o.status == 1, "%s: status %d: %s", view, o.status, o.err);
	char *html = render_gfm(o.out);
	/* the names are there, shown, not dropped */
	ck_assert_msg(strstr(html, "<code>Pay@org/payments-oncall</code>"), "%s:\n%s", view, html);
	ck_assert_msg(strstr(html, "<code>pay-#42</code>"), "%s:\n%s", view, html);
	ck_assert_msg(strstr(html, "@org/oncall</code>"), "%s:\n%s", view, html);
	assert_inert(html, view);
	free(html);
	testlib_output_free(&o);
}

START_TEST(short_view_links_nobody)
{
	check_view(NULL, "short view");
}
END_TEST

START_TEST(whole_view_links_nobody)
{
	check_view((const char *const[]){"--full", "--all-runs", NULL}, "--full");
}
END_TEST

/* The rules themselves, rendered: a table cell keeps its columns with a
 * pipe in a code span, a backtick in a name fences the span longer, and a
 * word without a reference is escaped as before. */
START_TEST(code_spans_render_as_written)
{
	static const struct {
		const char *in;
		enum escape_md_context ctx;
		const char *html; /* in cmark-gfm's output */
	} cases[] = {
		{"ping @octocat now", ESCAPE_MD_INLINE, "<p>ping <code>@octocat</code> now</p>"},
		{"fixes #12.", ESCAPE_MD_INLINE, "<p>fixes <code>#12.</code></p>"},
		{"a`b@c", ESCAPE_MD_INLINE, "<p><code>a`b@c</code></p>"},
		{"`@x`", ESCAPE_MD_INLINE, "<p><code>`@x`</code></p>"},
		{"C# *not* @", ESCAPE_MD_INLINE, "<p>C# *not* @</p>"},
		{"a|@b|c", ESCAPE_MD_CELL, "<td><code>a|@b|c</code></td>"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *md = escape_markdown_dup(cases[i].in, cases[i].ctx);
		ck_assert_ptr_nonnull(md);
		char doc[512];
		if (cases[i].ctx == ESCAPE_MD_CELL)
			snprintf(doc, sizeof doc, "| h | i |\n| --- | --- |\n| %s | x |\n", md);
		else
			snprintf(doc, sizeof doc, "%s\n", md);
		char *html = render_gfm(doc);
		ck_assert_msg(strstr(html, cases[i].html), "%s -> %s -> %s", cases[i].in, md, html);
		free(html);
		free(md);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("markdown_gfm");
	struct testlib_group *g = testlib_group("markdown_gfm");
	add_test(g, short_view_links_nobody);
	add_test(g, whole_view_links_nobody);
	add_test(g, code_spans_render_as_written);
	testlib_suite_add(s, g);
	return testlib_main(s);
}
