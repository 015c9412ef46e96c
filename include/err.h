#pragma once
/* One error value threaded through every fallible call: a code that is also
 * the process exit status the CLI will use, and a one-line message that
 * carries the detail (curl's error text, a JSON position, a refusal kind). */

#include <stddef.h>

enum err_code {
	ERR_NONE = 0,
	ERR_FINDINGS = 1,     /* not an error: findings at or above --fail-on */
	ERR_USAGE = 2,        /* bad command line */
	ERR_AUTH = 3,         /* not signed in, or a connection refusal */
	ERR_DATA_SHARING = 4, /* a data-sharing refusal stopped the audit */
	ERR_PROTOCOL = 5,     /* transport, protocol or server error */
	ERR_INPUT = 6,        /* the input could not be parsed */
	ERR_NOT_FOUND = 7,    /* the run or project does not exist */
	ERR_INTERNAL = 70,    /* a bug in this program (e.g. a write tool was asked for), or out of memory */
};

/* Sub-kinds that callers may branch on without parsing the message. */
enum err_detail {
	ERR_DETAIL_NONE = 0,
	ERR_DETAIL_SESSION_EXPIRED, /* HTTP 404 on a session: re-initialize */
	ERR_DETAIL_UNAUTHORIZED,    /* HTTP 401: sign-in needed */
	ERR_DETAIL_FORBIDDEN,       /* HTTP 403 */
	ERR_DETAIL_TIMEOUT,
	ERR_DETAIL_RETRYABLE, /* 5xx / 429 / reset: a read may be retried */
	ERR_DETAIL_REFUSAL,   /* a Catalyst refusal; see the tool layer */
	/* An answer that asking again cannot change (over a size limit, nested
	 * too deep, not JSON-RPC) or a bound of this client that the server
	 * ran into: never retried. */
	ERR_DETAIL_FINAL,
};

#define ERR_MSG_MAX 1024

struct err {
	enum err_code code;
	enum err_detail detail;
	long http_status;   /* 0 when not an HTTP answer */
	double retry_after; /* seconds from Retry-After, -1 when absent */
	char msg[ERR_MSG_MAX];
};

void err_clear(struct err *e);
/* Sets code and message (printf format). Accepts e == NULL. Returns -1 so a
 * caller can write `return err_set(e, ...)`. */
int err_set(struct err *e, enum err_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, marked ERR_DETAIL_FINAL: an error no retry can mend. */
int err_set_final(struct err *e, enum err_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefixes the existing message with "<context>: ". */
/* Out of memory: ERR_INTERNAL (exit 70) saying "out of memory", the one
 * wording of every allocation failure (not "a bug": nothing is wrong with
 * the input or the program, the machine ran short). Returns -1. */
int err_oom(struct err *e);
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
