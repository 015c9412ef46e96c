/* Differential check of the JSON writer's strings (src/json_writer.c)
 * against jansson:
 * 300,000 random strings built from pieces that need no escaping, need
 * escaping ('"', '\\', control characters, non-ASCII), or are invalid
 * UTF-8 (stray continuation bytes, truncated and overlong sequences,
 * surrogates, code points over U+10FFFF), written through jw_str and
 * jw_str_cached, must come out byte for byte as json_dumps(JSON_ENSURE_ASCII)
 * of the same string (repaired with U+FFFD when jansson refuses it); so
 * must strings longer than the 1 MiB output buffer. Not a test (the test
 * suite is other files); build and run it after changing the writer:
 *
 *   cc -O1 -g -fsanitize=address,undefined -std=c11 -D_GNU_SOURCE -Iinclude \
 *      -IBUILD bench/render-json-diff.c BUILD/libcatalyst-audit-core.a \
 *      $(pkg-config --libs jansson libcurl libcrypto) -lpthread \
 *      -o /tmp/render-json-diff && /tmp/render-json-diff
 *
 * It prints "ok 300000" or the first mismatch (exit 1). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "json_writer.h"

static char *ref(const char *s)
{
	json_t *v = json_string(s);
	if (!v) {
		char *f = escape_utf8_repair_dup(s);
		v = json_string(f);
		free(f);
	}
	char *o = json_dumps(v, JSON_ENSURE_ASCII | JSON_ENCODE_ANY | JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(v);
	return o;
}
static const char *pieces[] = {
	"a",      "Z",       " ", "\"",   "\\",   "/",        "\n",           "\x01",     "\x7f",
	"é",      "€",       "𝄞", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xc0\x80", "\xf4\x90\x80\x80",
	"\u202e", "abc def", "\t"};
int main(void)
{
	srand(1);
	struct jw w;
	if (jw_init(&w, NULL) < 0)
		return 1;
	long n = 0;
	for (int it = 0; it < 300000; it++) {
		char s[4096];
		size_t len = 0;
		int k = rand() % (it % 1000 == 0 ? 400 : 12);
		for (int j = 0; j < k; j++) {
			const char *p = pieces[rand() % 21];
			size_t l = strlen(p);
			memcpy(s + len, p, l);
			len += l;
		}
		s[len] = 0;
		char *buf = NULL;
		size_t bl = 0;
		w.f = open_memstream(&buf, &bl);
		w.len = 0;
		w.failed = false;
		if (it % 2)
			jw_str(&w, s);
		else {
			for (int c = 0; c < JW_CACHE_SIZE; c++)
				w.cache[c].key = NULL; /* fresh: same stack address each time */
			jw_str_cached(&w, s);
			jw_str_cached(&w, s);
		}
		jw_flush(&w);
		fclose(w.f);
		char *r = ref(s);
		if (it % 2 == 0) {
			char *r2 = malloc(2 * strlen(r) + 1);
			strcpy(r2, r);
			strcat(r2, r);
			free(r);
			r = r2;
		}
		if (!r || strcmp(r, buf) != 0 || w.failed) {
			printf("MISMATCH it=%d\n[%s]\n[%s]\n", it, r, buf);
			return 1;
		}
		free(r);
		free(buf);
		n++;
	}
	/* a long string over the buffer, with and without escapes */
	size_t L = 3 * JW_OUT_SIZE;
	char *big = malloc(L + 1);
	for (int v = 0; v < 2; v++) {
		for (size_t i = 0; i < L; i++)
			big[i] = 'a' + i % 26;
		if (v)
			big[L / 2] = '"';
		big[L] = 0;
		char *buf = NULL;
		size_t bl = 0;
		w.f = open_memstream(&buf, &bl);
		w.len = 0;
		jw_lit(&w, "xx");
		jw_str(&w, big);
		jw_flush(&w);
		fclose(w.f);
		char *r = ref(big);
		assert(strncmp(buf, "xx", 2) == 0 && strcmp(buf + 2, r) == 0);
		free(r);
		free(buf);
	}
	free(big);
	jw_finish(&w);
	printf("ok %ld\n", n);
	return 0;
}
