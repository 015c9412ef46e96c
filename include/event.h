#pragma once
/* The history event model: every dialect (Catalyst's flattened snake_case,
 * durabletask protojson, `dapr workflow history -o json`) is normalised into
 * this, in history order. Strings are interned in the log's pool and live as
 * long as the log. The analysis sees only this, never JSON. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"
#include "event_propagated.h"

enum event_kind {
	EVENT_UNKNOWN = 0, /* kept and counted; type name in kind_name */
	EVENT_EXECUTION_STARTED,
	EVENT_EXECUTION_COMPLETED,
	EVENT_EXECUTION_TERMINATED,
	EVENT_EXECUTION_SUSPENDED,
	EVENT_EXECUTION_RESUMED,
	EVENT_EXECUTION_STALLED,
	EVENT_CONTINUE_AS_NEW,
	EVENT_WORKFLOW_STARTED, /* orchestratorStarted before Dapr 1.18 */
	EVENT_WORKFLOW_COMPLETED,
	EVENT_TASK_SCHEDULED,
	EVENT_TASK_COMPLETED,
	EVENT_TASK_FAILED,
	EVENT_TIMER_CREATED,
	EVENT_TIMER_FIRED,
	EVENT_CHILD_CREATED, /* childWorkflowInstanceCreated / subOrchestrationInstanceCreated */
	EVENT_CHILD_COMPLETED,
	EVENT_CHILD_FAILED,
	EVENT_EVENT_SENT,
	EVENT_EVENT_RAISED,
	EVENT_GENERIC,
	EVENT_HISTORY_STATE,
	/* A workflow started with no parent link (Dapr after 1.18): not a
	 * child, its instance in instance_id. */
	EVENT_DETACHED_CREATED,
	EVENT_KIND_COUNT
};

/* Whether a payload key was there at all: the data-sharing rule hangs on the
 * difference between ABSENT (key removed) and NULL/EMPTY (key present). */
enum payload_state {
	PAYLOAD_ABSENT = 0,
	PAYLOAD_NULL,
	PAYLOAD_EMPTY,
	PAYLOAD_PRESENT,
};

/* 16 bytes: every attempt holds two (issue 34). */
struct payload {
	uint64_t hash; /* FNV-1a of the value as text, when PRESENT: compares inputs */
	/* Bytes of the value as text, when PRESENT: under EVENT_INPUT_MAX, the
	 * most one history (a file or a server's answer) may hold. */
	uint32_t size;
	uint8_t state; /* enum payload_state */
	/* PRESENT, but only a prefix of the value is known (`dapr workflow
	 * history` cuts payloads at 120 characters and appends an ellipsis):
	 * size and hash describe the prefix, so two truncated payloads with the
	 * same prefix prove nothing about the values. */
	bool truncated;
};
_Static_assert(sizeof(struct payload) == 16, "a payload grew");

enum timer_origin {
	ORIGIN_NONE = 0, /* no origin recorded (before Dapr 1.18, or absent) */
	ORIGIN_ACTIVITY_RETRY,
	ORIGIN_CHILD_RETRY,
	ORIGIN_CREATE_TIMER,
	ORIGIN_EXTERNAL_EVENT,
	ORIGIN_OTHER,
};

/* One event, unpacked: what parsers fill and event_log_get gives back (the
 * log itself stores events packed, see event.c). Integers that may be
 * missing carry a has_ flag; strings are NULL when the key was absent and ""
 * when present but empty. */
struct event {
	enum event_kind kind;
	enum timer_origin origin;
	const char *kind_name; /* the type as spelled in the input */
	int64_t event_id;      /* missing -> 0 (protojson omits zero) */
	const char *timestamp;
	const char *name;
	/* Missing -> 0 where the kind carries one (protojson omits zero); -1
	 * when the dialect does not say (the dapr CLI prints none on child
	 * workflow failures, nor on completions before CLI 1.17). */
	int64_t task_scheduled_id;
	const char *task_execution_id;
	int64_t timer_id;
	const char *fire_at;
	const char *origin_id;    /* task execution id or child instance id */
	const char *instance_id;  /* child instance (CHILD_CREATED) or workflow instance */
	const char *execution_id; /* workflow execution id (EXECUTION_STARTED) */
	const char *retry_parent_instance_id;
	const char *rerun_parent_instance_id;
	const char *workflow_status; /* EXECUTION_COMPLETED */
	/* A failure's; an EXECUTION_STALLED's reason ("PATCH_MISMATCH",
	 * which protojson leaves out as the enum's zero) and description. */
	const char *error_type;
	const char *error_message;
	/* The innermost failureDetails.innerFailure (the .NET SDK records an
	 * exception's InnerException chain so): its error type and message, NULL
	 * when absent. cause_depth counts the innerFailure levels down to it
	 * (1: failureDetails.innerFailure); 0 when the failure has none. */
	const char *cause_type;
	const char *cause_message;
	/* WORKFLOW_STARTED (Dapr 1.17+): the patches its version names, one a
	 * line (Dapr keeps on each only those no earlier one named), NULL
	 * when none; the version's name is the event's name. */
	const char *patches;
	struct payload input;
	struct payload output; /* result / output */
	struct payload custom_status;
	size_t source_offset; /* byte offset of the event in the input, or 0 */
	bool has_event_id;
	bool has_task_scheduled_id;
	bool has_timer_id;
	bool has_non_retriable;
	bool non_retriable;
	/* A result that carries the runtime's attestation (Dapr 1.18 signed
	 * histories): TASK_COMPLETED/FAILED, CHILD_COMPLETED/FAILED. */
	bool attested;
	uint8_t cause_depth;
};

enum event_dialect {
	DIALECT_UNKNOWN = 0,
	DIALECT_CATALYST, /* flattened snake_case (camel/Pascal accepted) */
	DIALECT_PROTOJSON,
	DIALECT_DAPR_CLI,
	DIALECT_DAPR_TABLE, /* the table `dapr workflow history` prints without -o json */
};

struct event_count {
	const char *name;
	size_t count;
};

/* Run-level fields found in an envelope around the events (all may be NULL). */
struct event_run_info {
	const char *instance_id;
	const char *app_id;
	const char *workflow_name;
	const char *runtime_status;
	const char *project;
	const char *data_sharing_level; /* a field that names the level, if any */
	const char *data_sharing_field; /* the key it came from */
};

struct event_log;

struct event_log *event_log_new(void);
void event_log_free(struct event_log *log); /* accepts NULL */

/* Frees the events, keeping every string handed out (run info, unknown
 * counts, and whatever an analysis borrowed) valid until event_log_free:
 * a run's memory after its analysis is what the report prints, not its
 * history. The log then counts no events; interning into it afterwards
 * still works (it starts a new table, so it may duplicate a string). */
void event_log_drop_events(struct event_log *log);
/* Gives back, while the log is read front to back once (the scan of
 * `file`), the memory of events [0, i): their packed records. Those events
 * are gone (event_log_get, event_log_kind and event_log_names_version
 * answer as past the end); later ones, the strings and the run info stay;
 * interning starts a new table, as after event_log_drop_events, which
 * frees the rest. */
void event_log_release_before(struct event_log *log, size_t i);
size_t event_log_count(const struct event_log *log);
/* Copies event i into *out; its strings stay the log's (valid until
 * event_log_free). Events are stored packed, not as struct event, so there
 * is no pointer to hand out. Returns false, leaving *out alone, past the end. */
bool event_log_get(const struct event_log *log, size_t i, struct event *out);
/* The kind of event i without unpacking the rest, for passes that skip most
 * events; EVENT_UNKNOWN past the end. */
enum event_kind event_log_kind(const struct event_log *log, size_t i);
/* Whether event i is a WORKFLOW_STARTED that names a version or patches:
 * read without unpacking (most turns name neither). */
bool event_log_names_version(const struct event_log *log, size_t i);
enum event_dialect event_log_dialect(const struct event_log *log);
const char *event_dialect_name(enum event_dialect d);

/* What a dialect can and cannot say. The analysis reads these, never the
 * dialect itself, so a new dialect is a row of event_fields.c's table, not a
 * branch in the analysis. */
enum event_dialect_cap {
	/* Catalyst's own: a missing payload may be one a data-sharing
	 * level withheld (doc/PRODUCT.md rule 2). */
	DIALECT_CAP_SHARING = 1u << 0,
	/* Prints a payload only when there is one (nil and empty left out):
	 * the parser made each missing one a null, so none is withheld. */
	DIALECT_CAP_OMITS_EMPTY_PAYLOADS = 1u << 1,
	/* Prints no child workflow instance id, no retry parent and no
	 * scheduled id on a child's failure: children pair by order. */
	DIALECT_CAP_NO_CHILD_IDS = 1u << 2,
	/* Prints no failure details (error type and message), no execution
	 * ids, no payloads, and no scheduled id on a failure: results pair
	 * with calls by order and every failure class is unknown. */
	DIALECT_CAP_NO_FAILURE_DETAILS = 1u << 3,
};
/* The log's dialect's caps, or a dialect's (0 for DIALECT_UNKNOWN). */
unsigned event_log_caps(const struct event_log *log);
unsigned event_dialect_caps(enum event_dialect d);
/* Where a history in d comes from, in words ("durabletask protojson"),
 * and the program that prints it ("dapr workflow history"); NULL when
 * there is nothing to say. */
const char *event_dialect_origin(enum event_dialect d);
const char *event_dialect_printer(enum event_dialect d);
const struct event_run_info *event_log_run_info(const struct event_log *log);
/* Dapr 1.18: the propagated history the document carried beside its
 * events (event_propagated.h), NULL when none. */
const struct propagated_history *event_log_propagated(const struct event_log *log);
/* Reads one (a PropagatedHistory object) into the log: -1 with ERR_INPUT. */
int event_log_read_propagated(struct event_log *log, const json_t *doc, struct err *e);
/* Unknown event types and unknown keys, with counts: never silently dropped. */
size_t event_log_unknown_kinds(const struct event_log *log, const struct event_count **out);
size_t event_log_unknown_keys(const struct event_log *log, const struct event_count **out);
/* Appends a copy of ev, interning its strings (for parsers, and for tests
 * and builders that make histories without JSON). Returns 0 or -1. */
int event_log_append(struct event_log *log, const struct event *ev, struct err *e);
/* Sets run-level fields (copied/interned). */
void event_log_set_run_info(struct event_log *log, const struct event_run_info *info);
/* Intern a string in the log's pool (NULL stays NULL). */
const char *event_log_intern(struct event_log *log, const char *s, size_t len);
/* The log's interned strings are numbered 0, 1, ... as first interned (equal
 * strings, equal numbers, the second half of a parse too): a reader may keep
 * an array by them where it would hash the strings (the analysis does, for
 * execution ids). s must be a string the log interned, never NULL: an id or
 * a name of one of its events, or what event_log_intern returned. */
uint32_t event_log_str_ord(const char *s);
/* How many numbers have been given: every ordinal is below it. */
size_t event_log_str_count(const struct event_log *log);
/* Canonical name of a kind ("TaskScheduled", ...). */
const char *event_kind_name(enum event_kind k);
/* "absent", "null", "empty" or "present" (the JSON report's words). */
const char *payload_state_name(enum payload_state s);

/* How a history is parsed. */
struct event_parse_options {
	unsigned threads; /* the threads setting (parallel.h): 1 keeps the parse on one thread */
	/* --show-payloads: keep each present payload's first
	 * EVENT_PAYLOAD_TEXT_MAX bytes as text (event_log_payload_text).
	 * Otherwise only its size and hash are kept, as always: a history's
	 * payloads are most of its bytes. */
	bool payload_text;
};

/* How much of one payload --show-payloads keeps and shows: enough to find
 * an order or a charge at the payment provider, bounded so that a history
 * of big payloads stays a small model. */
#define EVENT_PAYLOAD_TEXT_MAX 1024

/* The kept text of a present payload (the unescaped string, or the JSON of
 * another value), cut to EVENT_PAYLOAD_TEXT_MAX bytes at a whole UTF-8
 * character: its len bytes (it may hold a NUL) and whether it was cut
 * (then p->size is the whole value's size). NULL when the log kept none
 * (parsed without payload_text) or p is not present. Kept by payload, not
 * by event: identical payloads share one text, and the texts outlive
 * event_log_drop_events (the report reads them after the analysis). */
const char *event_log_payload_text(const struct event_log *log, const struct payload *p, size_t *len, bool *cut);
/* Whether the log was parsed with payload_text. */
bool event_log_keeps_payload_text(const struct event_log *log);

/* Parses a document (a file's bytes) in any dialect, detected automatically,
 * streaming the event array element by element (lists over 4 MB in two
 * threads when there are two cores). On failure sets ERR_INPUT with the
 * byte position. Ids, names, kind names, error texts and fire_at are interned
 * (equal strings, equal pointers); timestamps are stored unshared: compare
 * those with strcmp. */
struct event_log *event_log_parse(const char *buf, size_t len, struct err *e);
/* The same under options (NULL: as event_log_parse). */
struct event_log *event_log_parse_opts(const char *buf, size_t len, const struct event_parse_options *o,
				       struct err *e);
/* The most one input may hold: a history of a million events is about
 * 135 MB. Beyond it ERR_INPUT names the limit (a pipe or a device that
 * never ends, /dev/zero, is not read until memory runs out). */
#define EVENT_INPUT_MAX (1 << 30)
/* The same from a file descriptor (a file or `-`), for the `file` command:
 * a regular file is mapped and the pages already parsed are given back as
 * the parse moves on, so peak memory is about the model's, not file plus
 * model (a file cut short while mapped raises SIGBUS, which the program
 * turns into exit 6: process.h); a pipe is read whole first. Options as
 * for event_log_parse_opts. Errors as for event_log_parse; read errors are
 * ERR_INPUT too. */
struct event_log *event_log_parse_fd(int fd, const struct event_parse_options *o, struct err *e);
/* The same from an already decoded document (a tool result), in one thread.
 * An execution graph ({"graph": {"nodes": [{"events": [...]}, ...]}}, also
 * under "export") with no flat list beside it is read as its nodes' events
 * in document order. */
struct event_log *event_log_from_json(const json_t *doc, struct err *e);
/* The same under options (threads is not read: one thread). */
struct event_log *event_log_from_json_opts(const json_t *doc, const struct event_parse_options *o, struct err *e);
/* Whether doc is such an execution graph, which only event_log_from_json
 * reads as one history (the bytes parser would take the first node's
 * events for the list). */
bool event_doc_is_graph(const json_t *doc);
