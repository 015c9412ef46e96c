#pragma once
/* Making server-supplied text safe to show. Everything a Catalyst server or
 * a saved history hands us (names, ids, error messages) may carry terminal
 * control sequences, bidi overrides or broken UTF-8; a report must show
 * them, visibly, and never let them act on the reader's terminal or on the
 * Markdown that renders the post-mortem. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

/* Decodes one UTF-8 sequence at s (len > 0 bytes available). Returns its
 * length (1-4) and the code point, or 0 when the bytes at s do not start a
 * valid, shortest-form sequence of a scalar value. */
size_t escape_utf8_next(const char *s, size_t len, uint32_t *cp);

/* Whether a valid code point must not reach a terminal raw: every code
 * point of general category Cc, Cf, Co, Cn (unassigned, noncharacters), Zl
 * or Zp, every default-ignorable one and every bidi control, by the Unicode
 * data the build read (escape_unicode_version()). */
bool escape_is_unsafe(uint32_t cp);
/* The Unicode version of that table, e.g. "15.0.0". */
const char *escape_unicode_version(void);
/* The table itself, sorted and disjoint ranges: for the test that walks it. */
size_t escape_unsafe_range_count(void);
void escape_unsafe_range(size_t i, uint32_t *from, uint32_t *to);

/* Appends s made safe for a terminal: every unsafe code point or invalid
 * byte becomes a visible escape (\n \r \t \x1b \u202e, \xff for a bad byte)
 * and a backslash becomes \\ so escapes cannot be forged. When max_chars is
 * non-zero the result is cut at that many characters and ends with "...". */
int escape_terminal(struct buf *out, const char *s, size_t len, size_t max_chars, struct err *e);
/* The same, malloc'd (NULL when s is NULL or memory ran out). */
char *escape_terminal_dup(const char *s, size_t max_chars);
/* Terminal columns of text escape_terminal wrote: one per code point (it
 * has no control characters left; a wide CJK glyph counts one, which ids
 * and names accept). */
size_t escape_columns(const char *s);
/* The same for the first len bytes of s. */
size_t escape_columns_n(const char *s, size_t len);

/* Appends a message of ours that may carry outside text (an error, a
 * warning, a notice, a trace line) made safe for a terminal: every unsafe
 * code point and invalid byte becomes its visible escape as in
 * escape_terminal, but a backslash stays one, so text escaped already
 * passes unchanged (escaping twice changes nothing) and our own quoting
 * reads as written. Every line on stderr goes through this once, in the
 * CLI's printer. */
int escape_message(struct buf *out, const char *s, size_t len, struct err *e);
/* The same, malloc'd (NULL when s is NULL or memory ran out). */
char *escape_message_dup(const char *s);
/* The same into out[cap] (cap > 0), NUL-terminated, cut at the last whole
 * character or escape that fits; s may be NULL (empty). Never allocates. */
void escape_message_into(char *out, size_t cap, const char *s);

enum escape_md_context {
	ESCAPE_MD_INLINE = 0, /* running text: a newline becomes a space */
	ESCAPE_MD_CELL,       /* a table cell: a newline becomes <br> */
};

/* Appends s made inert as Markdown: punctuation with meaning (| ` * _ [ ]
 * ~ \ and # at a line start) backslash-escaped, < > & as HTML entities,
 * newlines per ctx, and control characters as visible escapes as in
 * escape_terminal (written as \x1b text, which Markdown shows literally).
 * A word GitHub would turn into a mention, an issue reference or a mail
 * link ("@org/team", "#123", "a@b.co") goes out whole as a code span, where
 * GitHub links nothing. */
int escape_markdown(struct buf *out, const char *s, size_t len, enum escape_md_context ctx, struct err *e);
char *escape_markdown_dup(const char *s, enum escape_md_context ctx);

/* A copy of s with every invalid UTF-8 byte replaced by U+FFFD (for
 * libraries, like jansson, that refuse invalid text). */
char *escape_utf8_repair_dup(const char *s);
