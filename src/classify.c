#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
	MATCH_WORD,  /* not preceded or followed by a letter or digit */
	MATCH_WHOLE, /* the whole text, nothing around it */
};

struct pattern {
	const char *text;
	enum match_mode mode;
	enum verdict verdict;
};

/* The one table. First match wins, so order is the policy:
 * 0. a program's own bugs first: their text quotes the program's names
 *    ("unexpected keyword argument 'timeout'"), which must not read as a
 *    timeout;
 * 1. "nothing was sent" before the generic connection patterns, so a refused
 *    connection, a connect timeout or a failed TLS handshake is not mistaken
 *    for a reset or a read timeout;
 * 2. ambiguous phrases before permanent ones, so "invalid response (timed
 *    out)" stays ambiguous: when in doubt, the side effect may have landed;
 * 3. bare status codes last, as words, because numbers also occur in order
 *    ids and amounts ("order 500 not found" is a not-found, matched above).
 * tests/test_classify.c holds the real messages behind these rows, each with
 * the library and symbol that produces it. */
static const struct pattern patterns[] = {
	/* 0. A bug in the activity's code fails the same way on every attempt.
	 * Python (CPython Objects/abstract.c, call.c, object.c, ceval.c) and
	 * V8 (message-template.h) spell them so. A type alone never says this:
	 * a JavaScript TypeError is also how fetch reports a network failure. */
	{"unexpected keyword argument", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"positional argument", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"unsupported operand type", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"is not subscriptable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"is not callable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"is not iterable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"can only concatenate", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"is not JSON serializable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"has no attribute", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Cannot read properties of", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Cannot set properties of", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"is not a function", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"is not a constructor", MATCH_SUBSTRING, VERDICT_PERMANENT},

	/* 0b. The server refused the login or the channel: a refusal, though
	 * the text also names the connect step it happened in ("failed to
	 * connect to ...: server error (FATAL: password authentication
	 * failed)", pgx pgconn). */
	{"password authentication failed", MATCH_SUBSTRING, VERDICT_PERMANENT}, /* PostgreSQL 28P01 */
	{"Access denied for user", MATCH_SUBSTRING, VERDICT_PERMANENT},         /* MySQL 1045 */
	{"ACCESS_REFUSED", MATCH_SUBSTRING, VERDICT_PERMANENT},                 /* AMQP 403 */

	/* 1. Nothing reached the remote side. Refused connections. */
	{"connection refused", MATCH_SUBSTRING, VERDICT_SAFE},
	{"ECONNREFUSED", MATCH_SUBSTRING, VERDICT_SAFE},
	{"ConnectionRefused", MATCH_SUBSTRING, VERDICT_SAFE},
	{"actively refused", MATCH_SUBSTRING, VERDICT_SAFE},               /* Windows WSAECONNREFUSED (10061) */
	{"postmaster is accepting TCP/IP", MATCH_SUBSTRING, VERDICT_SAFE}, /* PgJDBC: "... refused. Check ..." */
	/* ... and whatever else failed while connecting: the client names
	 * the connect step, and sends its request only after it. */
	{"dial tcp", MATCH_SUBSTRING, VERDICT_SAFE}, /* Go net.OpError{Op: "dial"} */
	{"dial unix", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Error while dialing", MATCH_SUBSTRING, VERDICT_SAFE}, /* grpc-go */
	{"ConnectException", MATCH_SUBSTRING, VERDICT_SAFE},    /* Java java.net.ConnectException */
	{"ConnectError", MATCH_SUBSTRING, VERDICT_SAFE},        /* httpx.ConnectError */
	{"NewConnectionError", MATCH_SUBSTRING, VERDICT_SAFE},  /* urllib3 */
	{"Failed to establish a new connection", MATCH_SUBSTRING, VERDICT_SAFE},
	{"ClientConnectorError", MATCH_SUBSTRING, VERDICT_SAFE}, /* aiohttp */
	{"Cannot connect to host", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Connect call failed", MATCH_SUBSTRING, VERDICT_SAFE},           /* asyncio */
	{"Failed to connect to", MATCH_SUBSTRING, VERDICT_SAFE},          /* OkHttp */
	{"could not connect to server", MATCH_SUBSTRING, VERDICT_SAFE},   /* libpq before 14 */
	{"The connection attempt failed", MATCH_SUBSTRING, VERDICT_SAFE}, /* PgJDBC */
	/* Connect timeouts: the connection was never made. */
	{"ConnectTimeout", MATCH_SUBSTRING, VERDICT_SAFE}, /* requests, urllib3, httpx, Java */
	{"connect timed out", MATCH_SUBSTRING, VERDICT_SAFE},
	{"connect ETIMEDOUT", MATCH_SUBSTRING, VERDICT_SAFE},     /* Node: the connect() syscall */
	{"Connect Timeout Error", MATCH_SUBSTRING, VERDICT_SAFE}, /* undici UND_ERR_CONNECT_TIMEOUT */
	{"UND_ERR_CONNECT_TIMEOUT", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Connection timeout to host", MATCH_SUBSTRING, VERDICT_SAFE}, /* aiohttp ConnectionTimeoutError */
	{"ConnectionTimeoutError", MATCH_SUBSTRING, VERDICT_SAFE},
	/* libpq's connect_timeout; SQL Server's "Timeout expired" is not it. */
	{"timeout expired", MATCH_WHOLE, VERDICT_SAFE},
	{"failed: timeout expired", MATCH_SUBSTRING, VERDICT_SAFE},
	/* Waiting for a pooled connection: no request was written. */
	{"PoolTimeout", MATCH_SUBSTRING, VERDICT_SAFE},             /* httpx */
	{"connection pool timeout", MATCH_SUBSTRING, VERDICT_SAFE}, /* go-redis internal/pool ErrPoolTimeout */
	/* grpc-java's deadline insight: a stream that reached a transport
	 * names its remote_addr (the call went out, so the deadline stays
	 * ambiguous); one still buffered waiting for a connection never left
	 * (internal/DelayedStream.java appendTimeoutInsight). */
	{"remote_addr=", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"waiting_for_connection", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Connection is not available, request timed out", MATCH_SUBSTRING, VERDICT_SAFE}, /* HikariCP */
	/* No connection to send on: the pool had none to give, or the client
	 * never got one (tests/classify/error-texts.json has each text). A
	 * "Timeout" in these texts names the wait or a setting, not a reply
	 * that did not come. */
	{"connection pool has been exhausted", MATCH_SUBSTRING, VERDICT_SAFE}, /* Npgsql */
	{"checking out a connection", MATCH_SUBSTRING, VERDICT_SAFE},          /* the Mongo drivers */
	{"couldn't get a connection", MATCH_SUBSTRING, VERDICT_SAFE},          /* psycopg_pool */
	{"QueuePool limit", MATCH_SUBSTRING, VERDICT_SAFE},                    /* SQLAlchemy */
	{"Pool is empty", MATCH_SUBSTRING, VERDICT_SAFE},                      /* urllib3 EmptyPoolError */
	{"No connection available", MATCH_SUBSTRING, VERDICT_SAFE},            /* redis-py */
	{"No connection is available", MATCH_SUBSTRING, VERDICT_SAFE},         /* StackExchange.Redis */
	{"No connection is active", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Too many connections", MATCH_SUBSTRING, VERDICT_SAFE},   /* redis-py pool; MySQL 1040 */
	{"waiting for connection", MATCH_SUBSTRING, VERDICT_SAFE}, /* Go net/http */
	{"while waiting for a connection", MATCH_SUBSTRING, VERDICT_SAFE},
	{"while connecting", MATCH_SUBSTRING, VERDICT_SAFE},                  /* Npgsql */
	{"Timeout connecting", MATCH_SUBSTRING, VERDICT_SAFE},                /* redis-py */
	{"connection timeout expired", MATCH_SUBSTRING, VERDICT_SAFE},        /* psycopg 3 */
	{"not possible to connect", MATCH_SUBSTRING, VERDICT_SAFE},           /* StackExchange.Redis */
	{"Unable to connect", MATCH_SUBSTRING, VERDICT_SAFE},                 /* Lettuce */
	{"Could not connect to the endpoint", MATCH_SUBSTRING, VERDICT_SAFE}, /* botocore */
	{"Connect timeout on endpoint", MATCH_SUBSTRING, VERDICT_SAFE},
	{"failed to connect to all addresses", MATCH_SUBSTRING, VERDICT_SAFE}, /* gRPC C-core */
	{"while waiting to connect", MATCH_SUBSTRING, VERDICT_SAFE},           /* Mongo Java server selection */
	{"waiting for a server that matches", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Server selection timed out", MATCH_SUBSTRING, VERDICT_SAFE}, /* Mongo Node */
	{"server selection error", MATCH_SUBSTRING, VERDICT_SAFE},     /* Mongo Go */
	/* MySQL's handshake packet comes first: none received, no query sent. */
	{"has not received any packets from the server", MATCH_SUBSTRING, VERDICT_SAFE},
	{"rejected establishment of connection", MATCH_SUBSTRING, VERDICT_SAFE},
	{"None of the specified endpoints were reachable", MATCH_SUBSTRING, VERDICT_SAFE}, /* RabbitMQ .NET */
	{"no healthy upstream", MATCH_SUBSTRING, VERDICT_SAFE},                            /* Envoy 503 */
	{"reset reason: connection failure", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Currently not connected", MATCH_SUBSTRING, VERDICT_SAFE}, /* Lettuce REJECT */
	{"client is closed", MATCH_SUBSTRING, VERDICT_SAFE},        /* go-redis ErrClosed */
	/* Still in the client: queued, not written, or waiting for what
	 * sending needs. StackExchange.Redis counts its commands in every
	 * timeout text (docs/Timeouts.md): qu queued unsent, qs sent and
	 * awaiting a reply; with qs 0 nothing awaits one, so the timed-out
	 * command never left. */
	{"qs: 0", MATCH_WORD, VERDICT_SAFE},
	{"before the message could be written", MATCH_SUBSTRING, VERDICT_SAFE},
	{"it was not sent", MATCH_SUBSTRING, VERDICT_SAFE},
	{"in the backlog", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Request queue size exceeded", MATCH_SUBSTRING, VERDICT_SAFE}, /* Lettuce */
	{"Queue full", MATCH_SUBSTRING, VERDICT_SAFE},                  /* librdkafka */
	{"Failed to allocate memory within the configured max blocking time", MATCH_SUBSTRING,
	 VERDICT_SAFE},                                             /* Kafka BufferPool */
	{"not present in metadata", MATCH_SUBSTRING, VERDICT_SAFE}, /* Kafka producer */
	{"Failed to update metadata", MATCH_SUBSTRING, VERDICT_SAFE},
	/* The request's body never finished arriving: the storage service
	 * closed it and stored nothing (S3 RequestTimeout, IncompleteBody). */
	{"not read from or written to within the timeout period", MATCH_SUBSTRING, VERDICT_SAFE},
	{"did not provide the number of bytes specified", MATCH_SUBSTRING, VERDICT_SAFE},
	{"reduce your request rate", MATCH_SUBSTRING, VERDICT_SAFE}, /* S3 SlowDown */
	/* Name resolution. */
	{"no such host", MATCH_SUBSTRING, VERDICT_SAFE}, /* Go; .NET/Windows "No such host is known" */
	{"name or service not known", MATCH_SUBSTRING, VERDICT_SAFE},           /* glibc EAI_NONAME */
	{"nodename nor servname", MATCH_SUBSTRING, VERDICT_SAFE},               /* BSD/macOS EAI_NONAME */
	{"Name does not resolve", MATCH_SUBSTRING, VERDICT_SAFE},               /* musl EAI_NONAME */
	{"No address associated with hostname", MATCH_SUBSTRING, VERDICT_SAFE}, /* EAI_NODATA */
	{"name resolution", MATCH_SUBSTRING, VERDICT_SAFE},                     /* EAI_AGAIN */
	{"getaddrinfo", MATCH_SUBSTRING, VERDICT_SAFE},
	{"ENOTFOUND", MATCH_WORD, VERDICT_SAFE},
	{"Failed to resolve", MATCH_SUBSTRING, VERDICT_SAFE}, /* urllib3 NameResolutionError */
	{"UnknownHostException", MATCH_SUBSTRING, VERDICT_SAFE},
	{"Unable to resolve host", MATCH_SUBSTRING, VERDICT_SAFE},        /* Android */
	{"could not translate host name", MATCH_SUBSTRING, VERDICT_SAFE}, /* libpq */
	/* TLS handshake failures: HTTP clients send the request only after the
	 * handshake (none of them sends 0-RTT early data by default). A TLS
	 * error after the handshake (a bad record, an EOF) is not here: it
	 * falls to the ambiguous rows below. */
	{"handshake", MATCH_SUBSTRING, VERDICT_SAFE}, /* Go, Java SSLHandshakeException, OpenSSL alerts */
	{"certificate verify failed", MATCH_SUBSTRING, VERDICT_SAFE},               /* OpenSSL via Python ssl */
	{"x509: ", MATCH_SUBSTRING, VERDICT_SAFE},                                  /* Go crypto/x509 */
	{"SSL connection could not be established", MATCH_SUBSTRING, VERDICT_SAFE}, /* .NET */
	{"remote certificate is invalid", MATCH_SUBSTRING, VERDICT_SAFE},           /* .NET SslStream */
	{"Authentication failed because the remote party", MATCH_SUBSTRING, VERDICT_SAFE},
	{"PKIX path building failed", MATCH_SUBSTRING, VERDICT_SAFE}, /* Java */
	{"No subject alternative", MATCH_SUBSTRING, VERDICT_SAFE},
	{"SSLPeerUnverifiedException", MATCH_SUBSTRING, VERDICT_SAFE},             /* OkHttp hostname check */
	{"unable to verify the first certificate", MATCH_SUBSTRING, VERDICT_SAFE}, /* OpenSSL via Node */
	{"unable to get local issuer certificate", MATCH_SUBSTRING, VERDICT_SAFE},
	{"self-signed certificate", MATCH_SUBSTRING, VERDICT_SAFE},
	{"self signed certificate", MATCH_SUBSTRING, VERDICT_SAFE},
	{"certificate has expired", MATCH_SUBSTRING, VERDICT_SAFE},
	{"does not match certificate's altnames", MATCH_SUBSTRING, VERDICT_SAFE}, /* Node */
	{"before secure TLS connection was established", MATCH_SUBSTRING, VERDICT_SAFE},
	{"wrong version number", MATCH_SUBSTRING, VERDICT_SAFE}, /* OpenSSL: plain HTTP on a TLS port */
	/* Rate limiting: refused before any work. */
	{"too many requests", MATCH_SUBSTRING, VERDICT_SAFE},
	{"rate limit", MATCH_SUBSTRING, VERDICT_SAFE},
	/* gRPC ResourceExhausted is a quota or rate refusal, except for message
	 * sizes: a *received* message over the limit means the call ran and only
	 * its reply was too big (or the server refused the request's size: the
	 * same text, so assume the worse); one refused on sending never left. */
	{"received message larger than max", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* grpc-go, C-core */
	{"received message after decompression larger than max", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Received message exceeds the maximum", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* Grpc.Net.Client */
	{"gRPC message exceeds maximum size", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},    /* grpc-java */
	{"send message larger than max", MATCH_SUBSTRING, VERDICT_SAFE},              /* grpc-go */
	{"Sent message larger than max", MATCH_SUBSTRING, VERDICT_SAFE},              /* C-core */
	{"Sending message exceeds the maximum", MATCH_SUBSTRING, VERDICT_SAFE},       /* Grpc.Net.Client */
	{"ResourceExhausted", MATCH_SUBSTRING, VERDICT_SAFE},
	{"RESOURCE_EXHAUSTED", MATCH_SUBSTRING, VERDICT_SAFE},
	{"429", MATCH_WORD, VERDICT_SAFE},

	/* 2. The request may have been acted on: the connection ended in the
	 * middle of an operation (before the generic timeout rows, so that
	 * "closed prematurely" is not lost to a later "timeout" or a 503). */
	{"prematurely", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},               /* Mongo Java, Lettuce, .NET */
	{"Unexpected end of file", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},    /* java.net HttpClient */
	{"unexpectedly lost", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},         /* MySQL Connector/J */
	{"closed before we received", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* botocore */
	{"operation was interrupted", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* RabbitMQ .NET */
	{"since batch creation", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},      /* Kafka batch expiry */
	{"unexpected error when processing", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* ... timeouts. */
	{"timeout", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* ReadTimeout, TimeoutError, ... */
	{"timed out", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"deadline exceeded", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"DeadlineExceeded", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"deadline_exceeded", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"context deadline", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ETIMEDOUT", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"failed to respond", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},        /* Apache NoHttpResponseException */
	{"did not properly respond", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* Windows WSAETIMEDOUT (10060) */
	/* .NET's HttpClient reports its timeout as a cancellation, fetch
	 * (AbortSignal.timeout, or a timer calling abort()) as an abort. */
	{"TaskCanceledException", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"OperationCanceledException", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"AbortError", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"operation was aborted", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* ... connection lost after the request went out. */
	{"ECONNRESET", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"connection reset", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ConnectionReset", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"forcibly closed", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},        /* Windows WSAECONNRESET */
	{"10054", MATCH_WORD, VERDICT_AMBIGUOUS},                       /* SocketException (10054) */
	{"connection abort", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},       /* "aborted.", Java "abort: recv failed" */
	{"connection was aborted", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* Windows WSAECONNABORTED */
	{"ConnectionAborted", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ECONNABORTED", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"RemoteDisconnected", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"remote end closed", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"server disconnected", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ServerDisconnected", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"peer closed connection", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* h11 via httpx */
	{"RemoteProtocolError", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"connection closed", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"server closed the connection unexpectedly", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* libpq */
	{"closed in the middle of operation", MATCH_SUBSTRING,
	 VERDICT_AMBIGUOUS}, /* asyncpg ConnectionDoesNotExistError */
	{"closed unexpectedly", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"other side closed", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* undici SocketError */
	{"UND_ERR_SOCKET", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* undici: every network failure of fetch() is a TypeError with this
	 * message (the cause is only in err.cause); a body cut off mid-read is
	 * TypeError "terminated", whole. */
	{"fetch failed", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"terminated", MATCH_WHOLE, VERDICT_AMBIGUOUS},
	{"broken pipe", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"EPIPE", MATCH_WORD, VERDICT_AMBIGUOUS},
	{"socket hang up", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"EOF", MATCH_WORD, VERDICT_AMBIGUOUS},
	{"IncompleteRead", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Connection broken", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},             /* urllib3 ProtocolError */
	{"ReadError", MATCH_WORD, VERDICT_AMBIGUOUS},                          /* httpx */
	{"payload is not completed", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},      /* aiohttp ClientPayloadError */
	{"server closed idle connection", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* Go net/http */
	{"transport connection broken", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"GOAWAY", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"RST_STREAM", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"stream was reset", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},                /* OkHttp StreamResetException */
	{"unexpected end of stream", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},        /* OkHttp */
	{"header parser received no bytes", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* Java HttpClient */
	{"could not receive data from server", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* libpq */
	{"could not send data to server", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"I/O error occurred while sending", MATCH_SUBSTRING, VERDICT_AMBIGUOUS}, /* PgJDBC */
	{"Communications link failure", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},      /* MySQL Connector/J */
	/* .NET HttpClient's own words (System.Net.Http strings): the request
	 * was being sent or its answer read. */
	{"error occurred while sending the request", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Error while copying content to a stream", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ended prematurely", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"the transport connection", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"HTTP/2 error code", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* requests.ConnectionError without a detail: could be either; assume
	 * the worst. A "connection refused" message was matched above. */
	{"ConnectionError", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	/* ... 5xx: the server failed while (or after) handling the request. */
	{"Internal Server Error", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Bad Gateway", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Service Unavailable", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"ServiceUnavailable", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Gateway Time-out", MATCH_SUBSTRING, VERDICT_AMBIGUOUS},
	{"Server Error", MATCH_SUBSTRING,
	 VERDICT_AMBIGUOUS},                            /* requests "503 Server Error", httpx "Server error" */
	{"Unavailable", MATCH_WORD, VERDICT_AMBIGUOUS}, /* gRPC code Unavailable */

	/* 3. A retry cannot succeed: the server answered no. */
	{"duplicate key", MATCH_SUBSTRING, VERDICT_PERMANENT},   /* PostgreSQL 23505, Mongo E11000 */
	{"Duplicate entry", MATCH_SUBSTRING, VERDICT_PERMANENT}, /* MySQL 1062 */
	{"unique constraint", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"conditional request failed", MATCH_SUBSTRING, VERDICT_PERMANENT}, /* DynamoDB */
	{"ConditionalCheckFailed", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"WRONGTYPE", MATCH_WORD, VERDICT_PERMANENT},                                    /* Redis */
	{"max message size the server will accept", MATCH_SUBSTRING, VERDICT_PERMANENT}, /* Kafka */
	{"Message size too large", MATCH_SUBSTRING, VERDICT_PERMANENT},                  /* librdkafka */
	{"does not host this topic-partition", MATCH_SUBSTRING, VERDICT_PERMANENT},
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
	{"PERMISSION_DENIED", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"access denied", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Not Found", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"NotFound", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"NOT_FOUND", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"does not exist", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"no such", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Conflict", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"already exists", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"AlreadyExists", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"ALREADY_EXISTS", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Unprocessable", MATCH_SUBSTRING, VERDICT_PERMANENT},
	{"Client Error", MATCH_SUBSTRING,
	 VERDICT_PERMANENT},                                /* requests "404 Client Error", httpx "Client error" */
	{"validation", MATCH_SUBSTRING, VERDICT_PERMANENT}, /* ValidationError, ... */
	{"ValueError", MATCH_SUBSTRING, VERDICT_PERMANENT},
	/* No "TypeError" row: the type is shared by Python (a bug) and
	 * JavaScript (also fetch's network failures); its message decides. */
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
	{"FAILED_PRECONDITION", MATCH_SUBSTRING, VERDICT_PERMANENT},
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

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The table's texts in lower case, made once: each text is lowered once
 * too and searched with memmem, only for the patterns whose first and
 * last byte pairs it holds. strcasestr set up its search for every
 * pattern over every text again, and was a tenth of a `runs` audit's
 * instructions (issue 34). Without setlocale the C locale's case rules
 * are ASCII's, as here. */
#define N_PATTERNS (sizeof patterns / sizeof patterns[0])
static char *lowered[N_PATTERNS]; /* NULL: out of memory, the pattern is skipped */
static size_t lowered_len[N_PATTERNS];
/* Each text's first and last two bytes, hashed into a text's bigram set
 * (below): a pattern whose pairs the text lacks is not searched for. */
static uint16_t lowered_pairs[N_PATTERNS][2];
#define PAIR_BITS 1024u

static uint16_t pair_hash(const char *p)
{
	return (uint16_t)(((unsigned char)p[0] * 31u ^ (unsigned char)p[1]) & (PAIR_BITS - 1));
}
static pthread_once_t lowered_once = PTHREAD_ONCE_INIT;

static void ascii_lower(char *dst, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)((unsigned)(unsigned char)src[i] - 'A' < 26u ? src[i] + ('a' - 'A') : src[i]);
}

static void lower_patterns(void)
{
	for (size_t i = 0; i < N_PATTERNS; i++) {
		size_t n = strlen(patterns[i].text);
		if ((lowered[i] = malloc(n + 1))) {
			ascii_lower(lowered[i], patterns[i].text, n + 1);
			lowered_len[i] = n;
			if (n >= 2) {
				lowered_pairs[i][0] = pair_hash(lowered[i]);
				lowered_pairs[i][1] = pair_hash(lowered[i] + n - 2);
			}
		}
	}
}

/* Whether pattern i matches the len bytes of s, both in lower case; pairs
 * is the set of s's byte pairs. */
static bool pattern_matches(size_t i, const char *s, size_t len, const uint64_t *pairs)
{
	const struct pattern *p = &patterns[i];
	const char *t = lowered[i];
	size_t n = lowered_len[i];
	if (!t || n > len)
		return false;
	for (int k = 0; n >= 2 && k < 2; k++) {
		unsigned h = lowered_pairs[i][k];
		if (!(pairs[h / 64] >> (h % 64) & 1))
			return false;
	}
	if (p->mode == MATCH_WHOLE) {
		/* Whole, but for surrounding blanks (psycopg2 ends its messages
		 * with a newline). */
		while (len > 0 && is_blank(*s)) {
			s++;
			len--;
		}
		while (len > 0 && is_blank(s[len - 1]))
			len--;
		return len == n && memcmp(s, t, n) == 0;
	}
	const char *end = s + len;
	for (const char *hit = memmem(s, len, t, n); hit; hit = memmem(hit + 1, (size_t)(end - hit - 1), t, n)) {
		if (p->mode == MATCH_SUBSTRING)
			return true;
		bool left = hit == s || !is_word_char(hit[-1]);
		bool right = hit + n == end || !is_word_char(hit[n]);
		if (left && right)
			return true;
	}
	return false;
}

/* Only the first CLASSIFY_WINDOW bytes of a text are read. The type and the
 * qualifier lead a failure text; what runs past 64 KiB is a stack trace or
 * a payload echoed back, and scanning it with every pattern took a minute
 * for a 100 MB message (tests/test_hostile.c). */
static enum verdict classify_text(const char *s)
{
	if (!s || !*s)
		return VERDICT_NONE;
	pthread_once(&lowered_once, lower_patterns);
	size_t len = strnlen(s, CLASSIFY_WINDOW);
	char small[512];
	char *low = len <= sizeof small ? small : malloc(len);
	if (!low) /* out of memory: the class is not known, said as such */
		return VERDICT_NONE;
	ascii_lower(low, s, len);
	uint64_t pairs[PAIR_BITS / 64] = {0};
	for (size_t i = 0; i + 1 < len; i++) {
		unsigned h = pair_hash(low + i);
		pairs[h / 64] |= UINT64_C(1) << (h % 64);
	}
	enum verdict v = VERDICT_NONE;
	for (size_t i = 0; i < N_PATTERNS && v == VERDICT_NONE; i++)
		if (pattern_matches(i, low, len, pairs))
			v = patterns[i].verdict;
	if (low != small)
		free(low);
	return v;
}

/* One level of a failure: its type and its message, classified separately.
 * A decisive type wins over the message (a ValueError whose message
 * mentions "timeout" is still a validation error), except that a message
 * proving nothing was sent wins over a vague connection type
 * ("ConnectionError: ... Connection refused"). */
static enum verdict classify_level(const char *error_type, const char *error_message)
{
	enum verdict t = classify_text(error_type);
	enum verdict m = classify_text(error_message);
	if (m == VERDICT_SAFE && t != VERDICT_PERMANENT)
		return VERDICT_SAFE;
	/* A connect-step type (pgx's *pgconn.ConnectError) around the server's
	 * refusal of the login: the refusal is what happened there. */
	if (m == VERDICT_PERMANENT && t == VERDICT_SAFE)
		return VERDICT_PERMANENT;
	return t != VERDICT_NONE ? t : m;
}

static enum failure_class verdict_class(enum verdict v)
{
	switch (v) {
	case VERDICT_AMBIGUOUS:
		return FAILURE_AMBIGUOUS;
	case VERDICT_PERMANENT:
		return FAILURE_PERMANENT;
	case VERDICT_SAFE:
		return FAILURE_SAFE;
	case VERDICT_NONE:
		break;
	}
	return FAILURE_UNKNOWN;
}

enum failure_class classify_failure(const char *error_type, const char *error_message, bool non_retriable)
{
	return classify_failure_chain(error_type, error_message, NULL, NULL, non_retriable);
}

enum failure_class classify_failure_chain(const char *error_type, const char *error_message,
					  const char *cause_type, const char *cause_message, bool non_retriable)
{
	/* The SDK said so: whatever the text, a retry was not meant to happen. */
	if (non_retriable)
		return FAILURE_PERMANENT;
	/* The innermost cause is the most specific ("An error occurred while
	 * sending the request" wraps "An existing connection was forcibly
	 * closed"); when it says nothing we know, the outer failure decides. */
	enum verdict v = classify_level(cause_type, cause_message);
	enum verdict outer = classify_level(error_type, error_message);
	/* ... except that a wrapper saying nothing was sent decides: it names
	 * a step the operation would have passed before anything went out
	 * ("Exception while connecting" around "The operation has timed
	 * out", a pool that gave no connection around the connect that
	 * failed). */
	if (v == VERDICT_NONE || (outer == VERDICT_SAFE && v != VERDICT_PERMANENT))
		v = outer;
	return verdict_class(v);
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
	case FAILURE_SAFE:
		return "safe";
	}
	return "unknown";
}

const char *failure_class_note(enum failure_class c)
{
	return c == FAILURE_SAFE ? "safe: nothing reached the remote side, so a retry duplicates nothing" : NULL;
}
