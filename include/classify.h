#pragma once
/* Failure classes of an activity (or child workflow) failure, from its error
 * type and message and, when the failure carries a chain of causes (the .NET
 * SDK's innerFailure), its innermost cause. One table, in classify.c,
 * decides; the analysis asks only this.
 *
 * - FAILURE_AMBIGUOUS: timeouts, deadline exceeded, connection reset or
 *   aborted after the request went out, 5xx answers, gRPC Unavailable, a
 *   gRPC reply over the size limit. The remote side may have acted before
 *   the caller gave up: a retry can duplicate the side effect.
 * - FAILURE_PERMANENT: 4xx answers, validation errors, declines, not found,
 *   bugs in the activity's code, errors named non-retryable, and anything
 *   flagged non-retriable. A retry cannot succeed.
 * - FAILURE_SAFE: a failure that provably happened before any byte of the
 *   request reached the remote side (connection refused, connect timeout,
 *   name resolution, TLS handshake, waiting for a pooled connection, a
 *   gRPC call still waiting_for_connection at its deadline, 429 rate
 *   limiting): a retry is right and cannot duplicate anything.
 * - FAILURE_UNKNOWN: failed, and nothing recognisable.
 *
 * The qualifier decides, not the word: a timeout while connecting or while
 * waiting for a pooled connection is safe, a connection lost in the middle
 * of a statement is ambiguous, a Redis timeout with nothing sent (qs: 0) is
 * safe. The rules, with an example of each, are in doc/history.md
 * ("Failure classes"); tests/classify/error-texts.json holds the real texts
 * they are checked against, with their sources.
 *
 * Matching is case-insensitive. The type and the message are classified
 * separately; a decisive type wins over the message (a ValueError whose
 * message mentions "timeout" is still a validation error), except that a
 * message proving nothing was sent wins over an ambiguous type
 * ("ConnectionError: ... Connection refused"). Some types decide nothing
 * alone: a TypeError is a bug in Python but how JavaScript's fetch reports
 * a network failure, so its message decides.
 *
 * Each text is read up to its first CLASSIFY_WINDOW bytes: what lies beyond
 * does not change the class. */

#include <stdbool.h>

#include "analysis.h"

enum {
	CLASSIFY_WINDOW = 64 * 1024
};

enum failure_class classify_failure(const char *error_type, const char *error_message, bool non_retriable);
/* The same for a failure with an innermost cause (NULL, NULL: none): the
 * cause decides when it says anything the table knows, else the outer
 * failure does. The non-retriable flag wins over both. */
enum failure_class classify_failure_chain(const char *error_type, const char *error_message,
					  const char *cause_type, const char *cause_message, bool non_retriable);
/* "none", "unknown", "ambiguous", "permanent", "safe". */
const char *failure_class_name(enum failure_class c);
/* What the text and Markdown reports print beside a failure of class c:
 * the class said in words where it is not in the error text itself (safe),
 * NULL otherwise. */
const char *failure_class_note(enum failure_class c);
