/* The SSE parser, table by table: every input is fed whole, split in two
 * at every byte offset, and one byte at a time, and must give the same
 * events each way. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "sse.h"
#include "testlib.h"

/* Events rendered as "[type][data][id]" lines; NUL bytes as "\0". */
static int record(const struct sse_event *ev, void *ctx, struct err *e)
{
	struct buf *out = ctx;
	buf_printf(out, e, "[%s][", ev->type);
	for (size_t i = 0; i < ev->len; i++) {
		if (ev->data[i] == '\0')
			buf_append(out, "\\0", 2, e);
		else
			buf_append(out, &ev->data[i], 1, e);
	}
	ck_assert_int_eq(ev->data[ev->len], '\0');
	buf_printf(out, e, "][%s]\n", ev->id);
	return 0;
}

#define S(lit) lit, sizeof(lit) - 1

static const struct {
	const char *name;
	const char *in;
	size_t len;
	const char *events;  /* expected, as record() writes them */
	long retry;          /* expected retry_ms */
	const char *last_id; /* expected last id after the input */
	bool partial;        /* bytes of an unfinished event remain */
} cases[] = {
	{"lf", S("data: hello\n\n"), "[message][hello][]\n", -1, "", false},
	{"cr", S("data: hello\r\r"), "[message][hello][]\n", -1, "", false},
	{"crlf", S("data: hello\r\n\r\n"), "[message][hello][]\n", -1, "", false},
	{"mixed endings", S("data: a\rdata: b\ndata: c\r\n\r\n"), "[message][a\nb\nc][]\n", -1, "", false},
	{"cr then lf events", S("data: 1\r\rdata: 2\n\n"), "[message][1][]\n[message][2][]\n", -1, "", false},
	{"multi-line data", S("data:x\ndata:  y\n\n"), "[message][x\n y][]\n", -1, "", false},
	{"one space stripped", S("data:no-space\n\ndata:  two\n\n"), "[message][no-space][]\n[message][ two][]\n",
	 -1, "", false},
	{"comments", S(": comment\ndata: a\n: another\n:\n\n"), "[message][a][]\n", -1, "", false},
	{"event type", S("event: ping\ndata: 1\n\nevent: pong\n\ndata: 2\n\n"), "[ping][1][]\n[message][2][]\n",
	 -1, "", false},
	{"empty event type", S("event:\ndata: 1\n\n"), "[message][1][]\n", -1, "", false},
	{"id persists", S("id: 7\ndata: a\n\ndata: b\n\n"), "[message][a][7]\n[message][b][7]\n", -1, "7", false},
	{"id with NUL ignored", S("id: 1\n\nid: a\0b\ndata: x\n\n"), "[message][x][1]\n", -1, "1", false},
	{"empty id resets", S("id: 5\ndata: a\n\nid\ndata: b\n\n"), "[message][a][5]\n[message][b][]\n", -1, "",
	 false},
	{"retry", S("retry: 1500\n\n"), "", 1500, "", false},
	{"retry not digits", S("retry: 15x\nretry: -1\nretry: 1.5\nretry:\n\n"), "", -1, "", false},
	{"retry keeps last good", S("retry: 100\nretry: abc\n\n"), "", 100, "", false},
	{"retry huge clamps", S("retry: 99999999999999999999999\n\n"), "", LONG_MAX, "", false},
	{"bom",
	 S("\xEF\xBB\xBF"
	   "data: a\n\n"),
	 "[message][a][]\n", -1, "", false},
	{"bom only at start",
	 S("data: a\n\n\xEF\xBB\xBF"
	   "data: b\n\n"),
	 "[message][a][]\n", -1, "", false},
	{"partial bom is text",
	 S("\xEF\xBB"
	   "data: a\n\n"),
	 "", -1, "", false},
	{"bom alone", S("\xEF\xBB\xBF"), "", -1, "", false},
	{"no blank line", S("data: a\n"), "", -1, "", true},
	{"no line end", S("data: a"), "", -1, "", true},
	{"events without data", S("event: x\n\nid: 3\n\n\n\n"), "", -1, "3", false},
	{"field without colon", S("data\n\n"), "[message][][]\n", -1, "", false},
	{"empty data", S("data:\n\n"), "[message][][]\n", -1, "", false},
	{"two empty data lines", S("data\ndata\n\n"), "[message][\n][]\n", -1, "", false},
	{"unknown field", S("foo: bar\nDATA: no\ndata: a\n\n"), "[message][a][]\n", -1, "", false},
	{"blank lines collapse", S("data: a\n\n\n\n"), "[message][a][]\n", -1, "", false},
	{"NUL in data", S("data: a\0b\n\n"), "[message][a\\0b][]\n", -1, "", false},
	{"colon in value", S("data: {\"a\":1}\n\n"), "[message][{\"a\":1}][]\n", -1, "", false},
	{"mcp priming", S("id: ev-1\nretry: 100\ndata:\n\nid: ev-2\nevent: message\ndata: {}\n\n"),
	 "[message][][ev-1]\n[message][{}][ev-2]\n", 100, "ev-2", false},
	{"empty input", S(""), "", -1, "", false},
};

/* Feeds `in` in pieces of `step` bytes after a first piece of `first`. */
static void run_case(int i, size_t first, size_t step)
{
	struct sse_parser p;
	struct buf out;
	struct err e;
	err_clear(&e);
	buf_init(&out, 0);
	sse_parser_init(&p, 0, record, &out);
	size_t off = 0, len = cases[i].len;
	size_t piece = first;
	while (off < len) {
		size_t n = piece < len - off ? piece : len - off;
		ck_assert_int_eq(sse_parser_feed(&p, cases[i].in + off, n, &e), 0);
		off += n;
		piece = step;
	}
	ck_assert_msg(strcmp(out.data ? out.data : "", cases[i].events) == 0,
		      "%s (first %zu, step %zu): got '%s', want '%s'", cases[i].name, first, step,
		      out.data ? out.data : "", cases[i].events);
	ck_assert_int_eq(p.retry_ms, cases[i].retry);
	ck_assert_str_eq(sse_parser_last_id(&p), cases[i].last_id);
	ck_assert_msg(sse_parser_has_partial(&p) == cases[i].partial, "%s: partial", cases[i].name);
	sse_parser_finish(&p);
	buf_finish(&out);
}

START_TEST(table_whole)
{
	run_case(_i, cases[_i].len + 1, 1);
}
END_TEST

START_TEST(table_every_split)
{
	for (size_t k = 0; k <= cases[_i].len; k++)
		run_case(_i, k ? k : 1, cases[_i].len);
}
END_TEST

START_TEST(table_byte_by_byte)
{
	run_case(_i, 1, 1);
}
END_TEST

START_TEST(size_limit)
{
	static const char *const inputs[] = {
		"data: 0123456789abcdefghij\n\n",          /* one long line */
		"data: 0123456789abcdefghij",              /* a long unfinished line */
		"data: 01234\ndata: 56789\ndata: abcde\n", /* data lines adding up */
	};
	for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
		struct sse_parser p;
		struct buf out;
		struct err e;
		err_clear(&e);
		buf_init(&out, 0);
		sse_parser_init(&p, 16, record, &out);
		ck_assert_int_eq(sse_parser_feed(&p, inputs[i], strlen(inputs[i]), &e), -1);
		ck_assert_int_eq(e.code, ERR_PROTOCOL);
		ck_assert_str_eq(e.msg, "SSE event over 16 bytes");
		ck_assert_ptr_null(out.data);
		sse_parser_finish(&p);
		buf_finish(&out);
	}
	/* At the bound itself it passes. */
	struct sse_parser p;
	struct buf out;
	struct err e;
	buf_init(&out, 0);
	sse_parser_init(&p, 16, record, &out);
	const char *ok = "data:0123456789\n\n";
	ck_assert_int_eq(sse_parser_feed(&p, ok, strlen(ok), &e), 0);
	ck_assert_str_eq(out.data, "[message][0123456789][]\n");
	sse_parser_finish(&p);
	buf_finish(&out);
}
END_TEST

static int stop_at_second(const struct sse_event *ev, void *ctx, struct err *e)
{
	int *n = ctx;
	if (++*n == 2)
		return 7;
	if (*n == 3)
		return err_set(e, ERR_PROTOCOL, "callback failed");
	return 0;
}

START_TEST(callback_stops_and_fails)
{
	struct sse_parser p;
	struct err e;
	int n = 0;
	sse_parser_init(&p, 0, stop_at_second, &n);
	const char *in = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
	ck_assert_int_eq(sse_parser_feed(&p, in, strlen(in), &e), 7);
	ck_assert_int_eq(n, 2);
	/* The rest of the chunk was not parsed; feeding it goes on. */
	const char *rest = "data: 3\n\n";
	ck_assert_int_eq(sse_parser_feed(&p, rest, strlen(rest), &e), -1);
	ck_assert_str_eq(e.msg, "callback failed");
	sse_parser_finish(&p);
}
END_TEST

START_TEST(restart_keeps_id_and_retry)
{
	struct sse_parser p;
	struct buf out;
	struct err e;
	buf_init(&out, 0);
	sse_parser_init(&p, 0, record, &out);
	const char *first = "id: 9\nretry: 250\ndata: a\n\ndata: cut";
	ck_assert_int_eq(sse_parser_feed(&p, first, strlen(first), &e), 0);
	ck_assert(sse_parser_has_partial(&p));
	sse_parser_restart(&p);
	ck_assert(!sse_parser_has_partial(&p));
	ck_assert_str_eq(sse_parser_last_id(&p), "9");
	ck_assert_int_eq(p.retry_ms, 250);
	/* A new stream may open with a BOM again. */
	const char *second = "\xEF\xBB\xBF"
			     "data: b\n\n";
	ck_assert_int_eq(sse_parser_feed(&p, second, strlen(second), &e), 0);
	ck_assert_str_eq(out.data, "[message][a][9]\n[message][b][9]\n");
	sse_parser_finish(&p);
	buf_finish(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sse");
	struct testlib_group *tc = testlib_group("table");
	int n = (int)(sizeof cases / sizeof *cases);
	add_loop_test(tc, table_whole, 0, n);
	add_loop_test(tc, table_every_split, 0, n);
	add_loop_test(tc, table_byte_by_byte, 0, n);
	testlib_suite_add(s, tc);
	tc = testlib_group("behaviour");
	add_test(tc, size_limit);
	add_test(tc, callback_stops_and_fails);
	add_test(tc, restart_keeps_id_and_retry);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
