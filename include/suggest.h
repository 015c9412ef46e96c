#pragma once
/* "Did you mean": the known name nearest to a mistyped word, for unknown
 * commands, options and config keys. */

#include <stddef.h>

/* Words longer than this are never near anything (the distance is
 * computed in fixed-size rows). */
#define SUGGEST_MAX_LEN 64

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and transpositions of two adjacent characters, each one edit, ASCII case
 * folded. SIZE_MAX when either word is longer than SUGGEST_MAX_LEN. */
size_t suggest_distance(const char *a, const char *b);

/* The candidate nearest to word, or NULL when none is near enough: at most
 * one edit for a word of up to three characters, two for a longer one (the
 * first candidate wins a tie); failing that, the shortest candidate word
 * begins with, when word has at least two characters (`--proj` is
 * `--project`). */
const char *suggest_nearest(const char *word, const char *const *candidates, size_t n);
