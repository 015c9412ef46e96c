#pragma once
/* The hidden `__complete` command the shell completions call
 * (cli_complete.c). */

/* words: what follows `__complete`, the last being the word completed.
 * Prints the candidates (nothing on any failure); returns the exit
 * status, 0. */
int cli_complete(int n, char **words);
