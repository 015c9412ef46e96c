#pragma once
/* The byte runs the JSON scanner and writer skip as plain: a string's
 * bytes that are ASCII, not a control character, not '"' and not '\\'
 * (nothing to validate, nothing to escape), and the whitespace between
 * tokens. Sixteen bytes at a time with SSE2 (every x86-64 has it), eight
 * with the usual has-zero-byte tricks elsewhere: the scanner spent a
 * fifth of `file`'s instructions here a byte at a time (issue 34). Only
 * bytes inside [p, n) are read. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The first byte at or after p that is not plain string content, or n. */
static inline size_t json_bytes_plain(const unsigned char *b, size_t n, size_t p)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
	for (; p + 16 <= n; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + p));
		/* signed: 0x80..0xff are negative, so "< 0x20" takes them too */
		__m128i special = _mm_or_si128(_mm_cmplt_epi8(x, space),
					       _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)));
		unsigned m = (unsigned)_mm_movemask_epi8(special);
		if (m)
			return p + (size_t)__builtin_ctz(m);
	}
#endif
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	for (; p + 8 <= n; p += 8) {
		uint64_t x;
		memcpy(&x, b + p, 8);
		uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\');
		/* A byte below 0x20, a quote, a backslash, or high bit set: no
		 * false negatives; a false positive ends the run early. */
		uint64_t special = (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((bs - ones) & ~bs) | x) & high;
		if (special) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* Each term is exact at its lowest flagged byte (a borrow
			 * only runs upwards): the lowest is the first special. */
			p += (size_t)__builtin_ctzll(special) / 8;
#endif
			break;
		}
	}
	while (p < n && b[p] >= 0x20 && b[p] < 0x80 && b[p] != '"' && b[p] != '\\')
		p++;
	return p;
}

/* Whether all n bytes at b are plain. With SSE2 a string of 16 bytes or
 * more ends on a last block that overlaps the one before: no byte loop
 * for the tail of every id and timestamp the writer checks. */
static inline bool json_bytes_all_plain(const unsigned char *b, size_t n)
{
#ifdef __SSE2__
	if (n >= 16) {
		const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
			      space = _mm_set1_epi8(0x20);
		for (size_t p = 0;; p += 16) {
			if (p + 16 > n)
				p = n - 16;
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + p));
			__m128i special =
				_mm_or_si128(_mm_cmplt_epi8(x, space),
					     _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)));
			if (_mm_movemask_epi8(special))
				return false;
			if (p + 16 == n)
				return true;
		}
	}
#endif
	return json_bytes_plain(b, n, 0) == n;
}

/* The first byte at or after p that is not JSON whitespace, or n. */
static inline size_t json_bytes_ws(const unsigned char *b, size_t n, size_t p)
{
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
		      tab = _mm_set1_epi8('\t');
	for (; p + 16 <= n; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + p));
		__m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, nl)),
					  _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, tab)));
		unsigned m = ~(unsigned)_mm_movemask_epi8(ws) & 0xffffu;
		if (m)
			return p + (size_t)__builtin_ctz(m);
	}
#endif
	while (p < n && (b[p] == ' ' || b[p] == '\n' || b[p] == '\r' || b[p] == '\t'))
		p++;
	return p;
}
