/* libFuzzer harness for the Markdown writer's escaping (escape_markdown),
 * which every server- and file-supplied string of a Markdown report goes
 * through. Invariants, whatever the input: the output is valid UTF-8 with
 * no unsafe code point (escape_is_unsafe) and no line break; in a table
 * cell no pipe that is not escaped; and no "@x" or "#1" outside a code
 * span, where GitHub would notify or link. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void check(const char *s, size_t len, enum escape_md_context ctx)
{
	size_t i = 0, fence = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = escape_utf8_next(s + i, len - i, &cp);
		if (n == 0 || escape_is_unsafe(cp))
			abort();
		if (fence == 0 && s[i] == '\\' && i + 1 < len) {
			i += 2; /* an escape outside a code span: the next byte is literal */
			continue;
		}
		if (s[i] == '`') {
			size_t run = 0;
			while (i + run < len && s[i + run] == '`')
				run++;
			if (fence == 0)
				fence = run;
			else if (run == fence)
				fence = 0;
			i += run;
			continue;
		}
		if (ctx == ESCAPE_MD_CELL && s[i] == '|' && (i == 0 || s[i - 1] != '\\'))
			abort();
		if (fence == 0 && (s[i] == '@' || s[i] == '#') && i + 1 < len && word_char(s[i + 1]) &&
		    !(s[i] == '#' && !(s[i + 1] >= '0' && s[i + 1] <= '9')))
			abort();
		i += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int ctx = ESCAPE_MD_INLINE; ctx <= ESCAPE_MD_CELL; ctx++) {
		struct buf b;
		buf_init(&b, 0);
		if (escape_markdown(&b, (const char *)data, size, (enum escape_md_context)ctx, NULL) == 0)
			check(b.data, b.len, (enum escape_md_context)ctx);
		buf_finish(&b);
	}
	return 0;
}
