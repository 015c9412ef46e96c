#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "testlib.h"

START_TEST(append_grows_and_terminates)
{
	struct buf b;
	struct err e;
	buf_init(&b, 0);
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(buf_append(&b, "abc", 3, &e), 0);
	ck_assert_uint_eq(b.len, 3000);
	ck_assert_int_eq(b.data[3000], '\0');
	ck_assert_int_eq(memcmp(b.data + 2997, "abc", 3), 0);
	buf_finish(&b);
}
END_TEST

START_TEST(limit_is_enforced)
{
	struct buf b;
	struct err e;
	err_clear(&e);
	buf_init(&b, 10);
	ck_assert_int_eq(buf_append(&b, "0123456789", 10, &e), 0);
	ck_assert_int_eq(buf_append(&b, "x", 1, &e), -1);
	ck_assert_int_eq(e.code, ERR_PROTOCOL);
	ck_assert_ptr_nonnull(strstr(e.msg, "10 bytes"));
	ck_assert_uint_eq(b.len, 10);
	buf_finish(&b);
}
END_TEST

START_TEST(consume_and_printf)
{
	struct buf b;
	struct err e;
	buf_init(&b, 0);
	ck_assert_int_eq(buf_printf(&b, &e, "%s=%d;", "a", 1), 0);
	ck_assert_int_eq(buf_printf(&b, &e, "%s=%d;", "b", 22), 0);
	ck_assert_str_eq(b.data, "a=1;b=22;");
	buf_consume(&b, 4);
	ck_assert_str_eq(b.data, "b=22;");
	size_t n;
	char *s = buf_steal(&b, &n);
	ck_assert_str_eq(s, "b=22;");
	ck_assert_uint_eq(n, 5);
	ck_assert_ptr_null(b.data);
	free(s);
	buf_finish(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("buf");
	struct testlib_group *tc = testlib_group("buf");
	add_test(tc, append_grows_and_terminates);
	add_test(tc, limit_is_enforced);
	add_test(tc, consume_and_printf);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
