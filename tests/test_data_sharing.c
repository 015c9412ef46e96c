/* The one reading of the data-sharing level, table by table. */

#include "data_sharing.h"
#include "testlib.h"

static const struct {
	const char *value;
	enum data_sharing_level level;
} values[] = {
	{"metadata", SHARING_METADATA},
	{"full", SHARING_FULL},
	{"FULL", SHARING_FULL},
	{"Metadata", SHARING_METADATA},
	{"DATA_SHARING_LEVEL_FULL", SHARING_FULL},
	{"data_sharing_level_metadata", SHARING_METADATA},
	/* never guessed */
	{"partial", SHARING_UNKNOWN},
	{"fully", SHARING_UNKNOWN},
	{"full ", SHARING_UNKNOWN},
	{"metadata-only", SHARING_UNKNOWN},
	{"DATA_SHARING_LEVEL_", SHARING_UNKNOWN},
	{"DATA_SHARING_LEVEL_UNSPECIFIED", SHARING_UNKNOWN},
	{"", SHARING_UNKNOWN},
	{NULL, SHARING_UNKNOWN},
};

START_TEST(value_table)
{
	ck_assert_msg(data_sharing_level_parse(values[_i].value) == values[_i].level, "case %d: '%s'", _i,
		      values[_i].value ? values[_i].value : "(null)");
}
END_TEST

static const struct {
	const char *text;
	enum data_sharing_level level;
} texts[] = {
	{"Workflow payloads are not shared at this organization's data-sharing level metadata.", SHARING_METADATA},
	{"data sharing level: 'full'", SHARING_FULL},
	{"the sharing level is full", SHARING_FULL},
	{"Data Sharing Level = (METADATA)", SHARING_METADATA},
	{"the data-sharing level (metadata) hides payloads", SHARING_METADATA},
	/* the word must follow the phrase */
	{"full access is not shared at this data-sharing level", SHARING_UNKNOWN},
	{"metadata only", SHARING_UNKNOWN},
	{"sharing level unknown", SHARING_UNKNOWN},
	{"", SHARING_UNKNOWN},
	{NULL, SHARING_UNKNOWN},
};

START_TEST(text_table)
{
	ck_assert_msg(data_sharing_level_in_text(texts[_i].text) == texts[_i].level, "case %d: '%s'", _i,
		      texts[_i].text ? texts[_i].text : "(null)");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("data_sharing");
	struct testlib_group *tc = testlib_group("parse");
	add_loop_test(tc, value_table, 0, sizeof values / sizeof *values);
	add_loop_test(tc, text_table, 0, sizeof texts / sizeof *texts);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
