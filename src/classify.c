#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "classify.h"

/* What one pattern says about a failure. SAFE: the request provably never
 * reached the remote side, so a retry is right and duplicates nothing. */
enum verdict {
	VERDICT_NONE = 0,
	VERDICT_SAFE,
	VERDICT_AMBIGUOUS,
	VERDICT_PERMANENT,
};

enum match_mode {
	MATCH_SUBSTRING,
	MATCH_WORD, /* not preceded or followed by a letter or digit */
};

struct pattern {
	const char *text;
	enum match_mode mode;
	enum verdict verdict;
};

/* The one table. First match wins, so order is the policy:
 * 1. "nothing was sent" before the generic connection patterns, so a refused
 *    connection is not mistaken for a reset one;
 * 2. ambiguous phrases before permanent ones, so "invalid response (timed
 *    out)" stays ambiguous: when in doubt, the side effect may have landed;
 * 3. bare status codes last, as words, because numbers also occur in order
 *    ids and amounts ("order 500 not found" is a not-found, matched above). */
static const struct pattern patterns[] = {
	/* 1. Nothing reached the remote side. */
	{"connection refused", MATCH_SUBSTRING, VERDICT_SAFE},
	{"ECONNREFUSED", MATCH_SUBSTRING, VERDICT_SAFE},
	{"ConnectionRefused", MATCH_SUBSTRING, VERDICT_SAFE},
	{"no such host", MATCH_SUBSTRING, VERDICT_SAFE},
	{"name or service not known", MATCH_SUBSTRING, VERDICT_SAFE},
	{"name resolution", MATCH_SUBSTRING, VERDICT_SAFE},
	{"getaddrinfo", MATCH_SUBSTRING, VERDICT_SAFE},
	{"ENOTFOUND", MATCH_WORD, VERDICT_SAFE},
	{"too many requests", MATCH_SUBSTRING, VERDICT_SAFE},
	{"rate limit", MATCH_SUBSTRING, VERDICT_SAFE},
	{"ResourceExhausted", MATCH_SUBSTRING, VERDICT_SAFE},
	{"429", MATCH_WORD, VERDICT_SAFE},

	/* 2. The request may have been acted on: timeouts. */
	{"timeout", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* ReadTimeout, TimeoutError, ... */
	{"timed out", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"deadline exceeded", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"DeadlineExceeded", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"deadline_exceeded", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"context deadline", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ETIMEDOUT", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* .NET's HttpClient reports its timeout as a cancellation. */
	{"TaskCanceledException", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"OperationCanceledException", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* ... connection lost after the request went out. */
	{"ECONNRESET", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"connection reset", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ConnectionReset", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"connection aborted", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ConnectionAborted", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ECONNABORTED", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"RemoteDisconnected", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"remote end closed", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"server disconnected", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"connection closed", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"broken pipe", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"EPIPE", MATCH_WORD, VERDICT_AMBIGUOUS},
	{"socket hang up", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"EOF", MATCH_WORD, VERDICT_AMBIGUOUS},
	{"IncompleteRead", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* requests.ConnectionError without a detail: could be either; assume
	 * the worst. A "connection refused" message was matched above. */
	{"ConnectionError", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* ... 5xx: the server failed while (or after) handling the request. */
	{"Internal Server Error", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Bad Gateway", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Service Unavailable", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ServiceUnavailable", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Gateway Time-out", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Server Error", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* requests: "503 Server Error" */
	{"Unavailable", MATCH_WORD, VERDICT_AMBIGUOUS},       /* gRPC code Unavailable */

	/* 3. A retry cannot succeed. */
	{"NonRetryable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"NonRetriable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"non-retryable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"non_retryable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"non-retriable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Bad Request", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"BadRequest", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Unauthorized", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Unauthenticated", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Forbidden", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"permission denied", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"PermissionDenied", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"access denied", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Not Found", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"NotFound", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"does not exist", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"no such", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Conflict", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"already exists", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"AlreadyExists", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Unprocessable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Client Error", MATCH_SUBSTRING, VERDICT_PERMANENT}, /* requests: "404 Client Error" */
	{"validation", MATCH_SUBSTRING, VERDICT_PERMANENT},   /* ValidationError, ... */
	{"ValueError", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"TypeError", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"KeyError", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"ArgumentException", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"ArgumentNullException", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"ArgumentOutOfRangeException", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"FormatException", MATCH_SUBSTRING, VERDICT_PERMANENT},
	/* A state the workflow cannot change by waiting: retrying re-fails. */
	{"InvalidOperationException", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"NotSupported", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"InvalidArgument", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"FailedPrecondition", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"invalid", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"declined", MATCH_SUBSTRING, VERDICT_PERMANENT}, /* card declined, ... */
	{"insufficient funds", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"insufficient_funds", MATCH_SUBSTRING, VERDICT_PERMANENT},

	/* 4. Bare HTTP status codes, as words. */
	{"500", MATCH_WORD, VERDICT_AMBIGUOUS},
	{"502", MATCH_WORD, VERDICT_AMBIGUOUS},
	{"503", MATCH_WORD, VERDICT_AMBIGUOUS},
	{"504", MATCH_WORD, VERDICT_AMBIGUOUS},
	{"400", MATCH_WORD, VERDICT_PERMANENT},
	{"401", MATCH_WORD, VERDICT_PERMANENT},
	{"403", MATCH_WORD, VERDICT_PERMANENT},
	{"404", MATCH_WORD, VERDICT_PERMANENT},
	{"409", MATCH_WORD, VERDICT_PERMANENT},
	{"410", MATCH_WORD, VERDICT_PERMANENT},
	{"422", MATCH_WORD, VERDICT_PERMANENT},
};

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) != 0;
}

static bool pattern_matches(const struct pattern *p, const char *s)
{
	size_t n = strlen(p->text);
	for (const char *hit = strcasestr(s, p->text); hit; hit = strcasestr(hit + 1, p->text)) {
		if (p->mode == MATCH_SUBSTRING)
			return true;
		bool left = hit == s || !is_word_char(hit[-1]);
		bool right = !is_word_char(hit[n]);
		if (left && right)
			return true;
	}
	return false;
}

static enum verdict classify_text(const char *s)
{
	if (!s || !*s)
		return VERDICT_NONE;
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		if (pattern_matches(&patterns[i], s))
			return patterns[i].verdict;
	}
	return VERDICT_NONE;
}

static enum failure_class verdict_class(enum verdict v)
{
	switch (v) {
	case VERDICT_AMBIGUOUS:
		return FAILURE_AMBIGUOUS;
	case VERDICT_PERMANENT:
		return FAILURE_PERMANENT;
	case VERDICT_SAFE:
	case VERDICT_NONE:
		break;
	}
	return FAILURE_UNKNOWN;
}

enum failure_class classify_failure(const char *error_type, const char *error_message, bool non_retriable)
{
	/* The SDK said so: whatever the text, a retry was not meant to happen. */
	if (non_retriable)
		return FAILURE_PERMANENT;
	enum verdict t = classify_text(error_type);
	enum verdict m = classify_text(error_message);
	/* A message proving nothing was sent refines a vague connection type. */
	if (m == VERDICT_SAFE && t != VERDICT_PERMANENT)
		return FAILURE_UNKNOWN;
	if (t != VERDICT_NONE)
		return verdict_class(t);
	return verdict_class(m);
}

const char *failure_class_name(enum failure_class c)
{
	switch (c) {
	case FAILURE_NONE:
		return "none";
	case FAILURE_UNKNOWN:
		return "unknown";
	case FAILURE_AMBIGUOUS:
		return "ambiguous";
	case FAILURE_PERMANENT:
		return "permanent";
	}
	return "unknown";
}
