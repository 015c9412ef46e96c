/* The streaming writer against jansson: the report promises jansson's
 * bytes (json_writer.h), and the writer's shortcuts (integers two digits
 * a step, indentation in whole stores) must not change one of them. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"
#include "testlib.h"

/* What jw writes for v (objects, arrays, integers, strings only). */
static void write_value(struct jw *w, const char *key, const json_t *v)
{
	if (json_is_object(v)) {
		jw_open(w, key, '{');
		const char *k;
		json_t *m;
		json_object_foreach((json_t *)v, k, m)
			write_value(w, k, m);
		jw_close(w, '}');
	} else if (json_is_array(v)) {
		jw_open(w, key, '[');
		size_t i;
		json_t *m;
		json_array_foreach(v, i, m)
			write_value(w, NULL, m);
		jw_close(w, ']');
	} else {
		if (key)
			jw_key(w, key);
		else
			jw_next(w);
		if (json_is_integer(v))
			jw_int(w, json_integer_value(v));
		else
			jw_str(w, json_string_value(v));
	}
}

/* A writer into memory: sink_open, write through s->w, sink_close. */
struct sink {
	FILE *f;
	char *text;
	size_t len;
	struct jw w;
};

static void sink_open(struct sink *s)
{
	s->text = NULL;
	s->len = 0;
	s->f = open_memstream(&s->text, &s->len);
	ck_assert_ptr_nonnull(s->f);
	ck_assert_int_eq(jw_init(&s->w, s->f), 0);
}

/* What was written (malloc'd). */
static char *sink_close(struct sink *s)
{
	jw_flush(&s->w);
	ck_assert(!s->w.failed);
	jw_finish(&s->w);
	fclose(s->f);
	return s->text;
}

/* got (freed) is jansson's indented dump of v. */
static void is_jansson_dump(char *got, const json_t *v)
{
	char *want = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	ck_assert_str_eq(got, want);
	free(want);
	free(got);
}

static void same_as_jansson(const json_t *v)
{
	struct sink k;
	sink_open(&k);
	write_value(&k.w, NULL, v);
	is_jansson_dump(sink_close(&k), v);
}

START_TEST(integers_as_jansson_prints_them)
{
	static const int64_t edges[] = {0,
					1,
					9,
					10,
					11,
					99,
					100,
					101,
					999,
					1000,
					12345,
					99999,
					100000,
					1234567890,
					INT64_C(999999999999999999),
					INT64_C(1000000000000000000),
					INT64_MAX,
					INT64_MIN,
					INT64_MIN + 1,
					-1,
					-9,
					-10,
					-99,
					-100,
					-101,
					-1000000};
	json_t *a = json_array();
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
		json_array_append_new(a, json_integer(edges[i]));
	/* Every power of ten and its neighbours, both signs. */
	for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10) {
		for (int64_t d = -1; d <= 1; d++) {
			json_array_append_new(a, json_integer(p + d));
			json_array_append_new(a, json_integer(-(p + d)));
		}
	}
	same_as_jansson(a);
	json_decref(a);
}
END_TEST

START_TEST(indentation_at_every_depth)
{
	/* Nested to the writer's deepest level, a member, an item and an
	 * empty container at each: the indentation is 2 to 30 spaces, one
	 * and two whole stores. */
	json_t *root = json_object(), *at = root;
	for (int d = 1; d < JW_MAX_DEPTH - 1; d++) {
		json_object_set_new(at, "id", json_integer(d));
		json_object_set_new(at, "name", json_string("x\"y"));
		json_object_set_new(at, "empty", json_array());
		json_t *items = json_array();
		json_array_append_new(items, json_integer(-d));
		json_array_append_new(items, json_string("z"));
		json_object_set_new(at, "items", items);
		json_t *next = json_object();
		json_object_set_new(at, "next", next);
		at = next;
	}
	same_as_jansson(root);
	json_decref(root);
}
END_TEST

/* Cached strings (jw_str_cached) of every length around the constant-size
 * copy, each written twice (the miss, then the hit), and enough of them
 * that cache entries are taken over by longer ones: the same bytes as
 * jansson's. */
START_TEST(cached_strings_as_jansson_writes_them)
{
	enum {
		N = 4 * JW_CACHE_SIZE
	};
	static char texts[N][80];
	json_t *a = json_array();
	for (size_t i = 0; i < N; i++) {
		size_t len = i % 72;
		for (size_t k = 0; k < len; k++)
			texts[i][k] = (char)('a' + (i + k) % 26);
		texts[i][len] = '\0';
		if (i % 7 == 3 && len)
			texts[i][0] = '"'; /* escaped: a longer encoding */
		json_array_append_new(a, json_string(texts[i]));
		json_array_append_new(a, json_string(texts[i]));
	}
	struct sink k;
	sink_open(&k);
	jw_open(&k.w, NULL, '[');
	for (size_t i = 0; i < N; i++) {
		for (int twice = 0; twice < 2; twice++) {
			jw_next(&k.w);
			jw_str_cached(&k.w, texts[i]);
		}
	}
	jw_close(&k.w, ']');
	is_jansson_dump(sink_close(&k), a);
	json_decref(a);
}
END_TEST

/* A value kept by memo (jw_memo_begin/end) is written as the writer
 * would write it, at each depth it comes at and after buffer flushes: the
 * same document as jansson's. */
START_TEST(memo_values_as_jansson_writes_them)
{
	json_t *root = json_array();
	struct sink k;
	sink_open(&k);
	struct jw *w = &k.w;
	jw_open(w, NULL, '[');
	for (int i = 0; i < 3000; i++) {
		int depth = i % 5; /* nested 0..4 objects deeper each time */
		json_t *at = json_object();
		json_array_append_new(root, at);
		jw_open(w, NULL, '{');
		for (int d = 0; d < depth; d++) {
			json_t *in = json_object();
			json_object_set_new(at, "in", in);
			at = in;
			jw_open(w, "in", '{');
		}
		json_t *v = json_object();
		json_object_set_new(v, "state", json_string(i % 2 ? "absent" : "null"));
		json_object_set_new(at, "payload", v);
		size_t mark = 0;
		jw_key(w, "payload");
		if (!jw_memo_begin(w, (unsigned)(i % 2), &mark)) {
			jw_open_value(w, '{');
			jw_k_cstr(w, "state", i % 2 ? "absent" : "null");
			jw_close(w, '}');
			jw_memo_end(w, (unsigned)(i % 2), mark);
		}
		if (i % 97 == 0)
			jw_flush(w);
		for (int d = 0; d < depth; d++)
			jw_close(w, '}');
		jw_close(w, '}');
	}
	jw_close(w, ']');
	is_jansson_dump(sink_close(&k), root);
	json_decref(root);
}
END_TEST

/* A string with one byte to escape (a quote, a backslash, a control
 * character, a byte above 0x7F), at every position of every length from 1
 * to 40: the writer's plain check (its last block overlapping) must see
 * each of them, and the bytes are jansson's. */
START_TEST(one_special_byte_anywhere)
{
	static const char specials[] = {'"', '\\', '\n', '\x01', '\x7f'};
	json_t *a = json_array();
	for (size_t len = 1; len <= 40; len++) {
		for (size_t at = 0; at < len; at++) {
			for (size_t k = 0; k < sizeof specials; k++) {
				char text[48];
				for (size_t i = 0; i < len; i++)
					text[i] = (char)('a' + i % 26);
				text[at] = specials[k];
				text[len] = '\0';
				json_array_append_new(a, json_string(text));
			}
			char utf8[48]; /* a two-byte character ending at the end */
			for (size_t i = 0; i < len; i++)
				utf8[i] = (char)('a' + i % 26);
			memcpy(utf8 + (len > 1 ? len - 2 : 0), "\xc3\xa9", 2);
			utf8[len > 1 ? len : 2] = '\0';
			json_array_append_new(a, json_string(utf8));
		}
	}
	same_as_jansson(a);
	json_decref(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("json_writer");
	struct testlib_group *tc = testlib_group("json_writer");
	add_test(tc, integers_as_jansson_prints_them);
	add_test(tc, indentation_at_every_depth);
	add_test(tc, cached_strings_as_jansson_writes_them);
	add_test(tc, memo_values_as_jansson_writes_them);
	add_test(tc, one_special_byte_anywhere);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
