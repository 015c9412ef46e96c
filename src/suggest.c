#include "suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	/* Three rows of the dynamic programme: the one before the previous
	 * is what a transposition looks back to. */
	size_t rows[3][SUGGEST_MAX_LEN + 1];
	size_t *older = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		int ca = tolower((unsigned char)a[i - 1]);
		for (size_t j = 1; j <= lb; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			size_t best = prev[j - 1] + (ca != cb);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && older[j - 2] + 1 < best)
				best = older[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = older;
		older = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *suggest_nearest(const char *word, const char *const *candidates, size_t n)
{
	size_t len = strlen(word);
	if (len == 0)
		return NULL;
	size_t limit = len <= 3 ? 1 : 2;
	size_t best = n, best_d = SIZE_MAX; /* best == n: none yet */
	for (size_t i = 0; i < n; i++) {
		size_t d = suggest_distance(word, candidates[i]);
		if (d <= limit && d < best_d) {
			best = i;
			best_d = d;
		}
	}
	if (best == n && len >= 2)
		for (size_t i = 0; i < n; i++)
			if (strncasecmp(word, candidates[i], len) == 0 &&
			    (best == n || strlen(candidates[i]) < strlen(candidates[best])))
				best = i;
	return best < n ? candidates[best] : NULL;
}
