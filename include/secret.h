#pragma once
/* The secrets in use (bearer and refresh tokens, whichever way they came:
 * CATALYST_TOKEN, the store, a sign-in, a refresh), kept so that no line
 * this program writes shows one, whatever carried it there: a server may
 * echo the token in an error message, a WWW-Authenticate header or a log
 * line. Thread-safe. */

/* Remembers a copy of s. NULL and strings under 8 bytes are ignored (too
 * short to be a token, and common words would vanish from messages). */
void secret_add(const char *s);
/* A malloc'd copy of text with every secret in it replaced by
 * "<redacted>"; NULL when memory ran out. */
char *secret_redact_dup(const char *text);
/* Wipes and forgets them all (at exit). */
void secret_forget_all(void);
