#pragma once
/* The re-execution analysis: attempts paired with results, invocations
 * grouped by task_execution_id and retry-timer origin, findings with the
 * event ids that prove them, withheld payloads and the limits of what the
 * history can show. Pure: sees only the event model; computes every string
 * a renderer prints, so renderers never compute. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "data_sharing.h"
#include "err.h"
#include "event.h"

enum attempt_outcome {
	OUTCOME_PENDING = 0, /* no result in history */
	OUTCOME_COMPLETED,
	OUTCOME_FAILED,
};

/* classify.h: failure classes of an error type + message. */
enum failure_class {
	FAILURE_NONE = 0,  /* not failed */
	FAILURE_UNKNOWN,   /* failed, class not recognised */
	FAILURE_AMBIGUOUS, /* timeout / connection / 5xx: the side effect may have landed */
	FAILURE_PERMANENT, /* 4xx / validation / declined / not found / non-retriable */
	FAILURE_SAFE,      /* nothing reached the remote side: refused, DNS, connect or pool timeout */
};

/* Positions in history are uint32_t: analysis_scan refuses a history of
 * UINT32_MAX events or more (a file of hundreds of gigabytes), and a
 * 128,000-attempt history is held whole, so every byte counts. */
#define ATTEMPT_NO_RESULT UINT32_MAX

/* What only a failed attempt or a child workflow's has, beside the
 * attempt: five pointers that the completed calls of a large history
 * would hold as NULL, 40 of their bytes (issue 34). Read them with
 * attempt_more(), below the attempt. */
struct attempt_more {
	const char *instance_id; /* child workflows: the child instance */
	const char *error_type;
	const char *error_message;
	/* The failure's innermost cause (innerFailure), which the class was
	 * decided on: both NULL when there is none, or when it has neither a
	 * type nor a message that is not empty. */
	const char *cause_type;
	const char *cause_message;
};

/* Fields ordered for size (88 bytes: the flags are bits). */
struct attempt {
	const char *scheduled_at;      /* timestamp, may be NULL */
	const char *task_execution_id; /* this attempt's own id (differs per attempt on .NET) */
	const char *completed_at;
	struct attempt_more *more; /* NULL: none of those fields is set */
	struct payload input;
	struct payload output;
	int64_t scheduled_id;  /* its event_id */
	uint32_t event_index;  /* of the TaskScheduled / ChildWorkflowInstanceCreated */
	uint32_t result_index; /* ATTEMPT_NO_RESULT when pending */
	uint32_t n_results;    /* > 1: duplicate_result */
	uint8_t outcome;       /* enum attempt_outcome */
	uint8_t failure;       /* enum failure_class */
	uint8_t cause_depth;   /* innerFailure levels down to the cause; 0: none */
	bool non_retriable : 1;
	/* Child workflows: the result named no scheduled id (`dapr workflow
	 * history` prints none on a child's failure) and was paired with this
	 * attempt because it was the only child pending then: an inference. */
	bool result_by_order : 1;
	/* ... and, among those, one paired after the whole history was read:
	 * the only child of its name left without a result before the row. */
	bool result_by_elimination : 1;
};
_Static_assert(sizeof(struct attempt) <= 88, "a 128,000-attempt history holds every attempt");

/* An attempt's failure and child fields: all NULL when it has none. */
static inline const struct attempt_more *attempt_more(const struct attempt *a)
{
	static const struct attempt_more none;
	return a->more ? a->more : &none;
}

enum invocation_link {
	LINK_SINGLE = 0,   /* one attempt */
	LINK_EXECUTION_ID, /* attempts share task_execution_id */
	LINK_TIMER_ORIGIN, /* linked through a retry timer's origin key */
	LINK_PATTERN,      /* inferred: failed -> timer -> fired -> scheduled, same name */
	/* inferred: a failure, then the only call of that name in the turn that
	 * processed it, in a run with no retry timer at all (the JavaScript
	 * SDK's retry handler, a zero first retry interval) */
	LINK_ORDER,
};

struct invocation {
	const char *name;
	const char *task_execution_id; /* the invocation's key: first attempt's id (may be NULL) */
	struct attempt *attempts;
	int64_t *retry_timer_event_ids;
	uint32_t n_attempts;
	uint32_t n_retry_timers;
	uint32_t generation; /* 0-based, split at ExecutionStarted */
	uint8_t link;        /* enum invocation_link */
	bool is_child_workflow;
	/* LINK_ORDER with inputs that cannot be compared (withheld, cut, or
	 * absent): a loop that catches one item's failure and calls the next
	 * has the same shape, so it is reported as re-executed, never as a
	 * suspect. */
	bool order_inputs_unknown;
};

/* Decisions the finding kinds rest on (doc/PRODUCT.md names the kinds):
 * - A child workflow invocation with several attempts gets
 *   child_workflow_retried instead of reexecuted; the failure-class kinds
 *   (ambiguous_failure_retried, permanent_failure_retried, unresolved_attempt,
 *   duplicate_result) apply to activities and child workflows alike.
 * - overlapping_call and repeated_call are one finding per activity name and
 *   generation, listing every call involved. A turn (one orchestrator
 *   episode: WorkflowStarted, the new inputs, then the actions the code
 *   produced) that schedules a name several times is the code's intent
 *   (fan-out, when_all, when_any): calls of one turn are never paired. A call
 *   in a later turn is paired with an earlier one still pending (overlap) or
 *   with the latest one of an earlier turn (repeat). Inputs present and
 *   different: not a finding. Identical: a finding. Not comparable: a
 *   run-specific limit, except an overlap made in a turn a non-retry timer
 *   fired or a call failed in (the when_any(call, timer) re-call), which is a
 *   finding whatever the inputs; the message says why they cannot be compared.
 * - An absent payload key is withheld only at metadata. At full, and in a
 *   history not from Catalyst that carries payloads elsewhere, it means no
 *   payload and compares as null. A history not from Catalyst with no payload
 *   at all cannot be compared: its level is unknown and nothing is withheld.
 * - permanent_failure_retried needs a failure followed by another attempt,
 *   and either a non-retriable flag, or every failed attempt permanent-class
 *   with the same error type and no attempt that succeeded (a 404 that later
 *   succeeded was not permanent).
 * - Evidence event ids are those of actions (TaskScheduled, TimerCreated,
 *   ChildWorkflowInstanceCreated); results carry -1, so every evidence event,
 *   results included, is also given by position (evidence_event_indexes). */
enum finding_kind {
	FINDING_REEXECUTED = 0,
	FINDING_AMBIGUOUS_FAILURE_RETRIED,
	FINDING_DUPLICATE_RESULT,
	FINDING_OVERLAPPING_CALL,
	FINDING_REPEATED_CALL,
	FINDING_PERMANENT_FAILURE_RETRIED,
	FINDING_UNRESOLVED_ATTEMPT,
	FINDING_CHILD_WORKFLOW_RETRIED,
	FINDING_ORPHAN_RETRY_TIMER,
	FINDING_LARGE_PAYLOAD,
	/* A rerun re-drove a call that already ran in the source run. */
	FINDING_RERUN_REEXECUTED,
	FINDING_KIND_COUNT
};

enum severity {
	SEVERITY_NOTICE = 0,
	SEVERITY_SUSPECT,
};

struct finding {
	enum finding_kind kind;
	enum severity severity;
	const char *activity;          /* may be NULL (orphan timer) */
	const char *task_execution_id; /* may be NULL */
	int64_t *evidence_event_ids;   /* event ids >= 0 only: results carry -1 */
	size_t n_evidence;
	/* What happened, then the remedy: read it whole with
	 * analysis_finding_message. Kept as its first part (in the analysis'
	 * blocks, as the evidence arrays: never free them) and, for the keying
	 * advice most findings end with, which wording it takes and the
	 * execution id it names: 100,000 invocations' findings held 12 MB of
	 * that advice, word for word (issue 34). */
	char *message_head;
	uint8_t message_tail;        /* enum finding_tail */
	uint8_t text_flags;          /* enum finding_text_flag, for text_of */
	const char *message_tail_id; /* the task_execution_id the advice names, or NULL */
	/* The fact in one line, with its ids (in the analysis' blocks too):
	 * what a short report prints; the message keeps the detail. Read it
	 * with analysis_finding_summary. */
	char *summary;
	/* The kinds a large history has by the ten thousand (reexecuted,
	 * ambiguous_failure_retried) keep no text: message_head and summary
	 * are NULL and both are made from this invocation (in the analysis)
	 * when read, as they would have been made: 100,000 invocations'
	 * findings held 10 MB of them at the analysis' peak (issue 34). */
	const struct invocation *text_of;
	/* What to do about it: static text, one per kind and variant (the .NET
	 * per-attempt execution ids, a child workflow, ...), so findings that
	 * need the same advice share the very same string and a report prints
	 * it once. */
	const char *remedy;
	/* Positions (0-based index in history order) of every event that proves
	 * it, results included: a result's event_id is -1 and cannot point. */
	uint32_t *evidence_event_indexes;
	size_t n_evidence_event_indexes;
	/* The attempt the finding is about (the failure that was retried, the
	 * one without a result, the one with two results) and the attempt that
	 * ran after it, in the attempt pool: the report shows their times and
	 * the failure's own message. NULL when the kind names none. Their
	 * numbers count the invocation's attempts from 1, as people do (the
	 * event ids stay the evidence). */
	const struct attempt *attempt;
	const struct attempt *next;
	uint32_t attempt_no;
	uint32_t next_no;
};

/* The advice a finding's message ends with (analysis_finding_message). */
enum finding_tail {
	TAIL_NONE = 0,
	TAIL_KEY,             /* key the side effect: on message_tail_id, or a natural key */
	TAIL_KEY_PER_ATTEMPT, /* ... a natural key: each attempt had its own execution id (.NET) */
	TAIL_CHECK_KEY,       /* check the remote side, key it (as TAIL_KEY), record intent */
	TAIL_CHECK_KEY_PER_ATTEMPT,
};

enum finding_text_flag {
	FINDING_TEXT_ORIGINS = 1u << 0, /* the run's retry timers name their origin */
};

/* Appends finding f's message, whole, to out; -1 when memory runs out. */
int analysis_finding_message(const struct finding *f, struct buf *out);
/* Finding f's summary into *out: the one it keeps (NULL if none), or made
 * in scratch (emptied first; the caller's, to buf_finish) for a finding
 * whose text is made when read; -1 when memory runs out. */
int analysis_finding_summary(const struct finding *f, struct buf *scratch, const char **out);

enum withheld_field {
	WITHHELD_INPUT = 0,
	WITHHELD_OUTPUT,
	WITHHELD_CUSTOM_STATUS,
};

/* 16 bytes: a metadata-level history withholds a payload on most events. */
struct withheld {
	int64_t event_id;
	uint32_t event_index; /* position in history: event_id is -1 on most events */
	uint8_t kind;         /* enum event_kind: withheld_event_type names it */
	uint8_t field;        /* enum withheld_field: withheld_field_name names it */
};

struct analysis_options {
	size_t payload_limit;            /* bytes; 0 means 64 KiB */
	enum data_sharing_level sharing; /* known from elsewhere, or UNKNOWN to infer */
	const char *sharing_source;      /* how it is known, e.g. "--data-sharing", "refusal ..." */
	/* The history came from Catalyst (an MCP answer, or a saved file that
	 * analysis_catalyst_shaped accepts): only there is an absent payload key
	 * the data-sharing level's doing, so only there is metadata inferred and
	 * are absent payloads listed as withheld. False (the default): the level
	 * is unknown unless given, and an absent key is absent from the history. */
	bool catalyst_source;
	/* The threads setting (parallel.h): 0 decides by the machine (the
	 * finding passes of over 10,000 invocations take a second core when
	 * there is one), 1 keeps them on one thread. The analysis is the same
	 * either way. */
	unsigned threads;
};

/* What a note claims of the findings: the limit at index limit says the
 * attempt at event_index of activity was retried and counted by a finding
 * of kind (a retry timer linked by order: analysis_limits.c). Kept as data
 * so analysis_contradiction checks the claim, not the note's words. */
struct note_claim {
	size_t limit;
	enum finding_kind kind;
	const char *activity;
	uint32_t event_index;
};

enum {
	NOTE_CLAIMS_MAX = 2
};

/* A workflow start that named a version or patches (Dapr 1.17+
 * versioning): the version's name (NULL when it names none) and the
 * patches it added, one a line (Dapr keeps on each start only those no
 * earlier one named; NULL when none). */
struct run_version {
	const char *name;
	const char *patches;
	const char *at; /* its timestamp, may be NULL */
	uint32_t event_index;
	int64_t event_id;
};

/* An ExecutionStalled event (Dapr 1.17+): the run stopped until a worker
 * with the right version or patches (or a larger body limit) takes it
 * up; its replay then re-runs no activity. */
struct run_stall {
	const char *reason;      /* PATCH_MISMATCH, VERSION_NOT_AVAILABLE, PAYLOAD_SIZE_EXCEEDED */
	const char *description; /* the runtime's words, may be NULL */
	const char *at;
	uint32_t event_index;
};

struct analysis {
	const char *workflow; /* from ExecutionStarted, may be NULL */
	const char *status;   /* from ExecutionCompleted (normalised), or NULL */
	const char *instance_id;
	const char *started_at; /* the first ExecutionStarted's timestamp, or NULL */
	const char *ended_at;   /* the last generation's ExecutionCompleted/Terminated timestamp, or NULL */
	size_t n_generations;
	bool finished; /* the run has ended (completed/failed/terminated) */
	struct invocation *invocations;
	size_t n_invocations;
	struct finding *findings;
	size_t n_findings;
	struct withheld *withheld;
	size_t n_withheld;
	enum data_sharing_level sharing;
	char *sharing_source; /* "inferred: ...", "--data-sharing", ... */
	char **limits;        /* sentences */
	/* Per limit: true when it names this run's own data (ids, counts, how
	 * the level was learned) and stays with the run; false when it is the
	 * same sentence for any run, which a report of several runs prints once. */
	bool *limit_specific;
	size_t n_limits;
	const char **child_instances; /* child instance ids found (to audit too) */
	size_t n_child_instances;
	size_t n_events;
	struct note_claim claims[NOTE_CLAIMS_MAX];
	size_t n_claims;
	struct run_version *versions; /* in history order */
	size_t n_versions;
	/* The version the run was last started under: the last start that
	 * named one (a start that only adds patches keeps the name before
	 * it); NULL when none did. Borrowed, as the versions' names. */
	const char *version;
	struct run_stall *stalls; /* in history order */
	size_t n_stalls;
	/* Results of activities and children, and how many of them carry the
	 * runtime's attestation (Dapr 1.18 signed histories). */
	size_t n_results, n_attested;
	/* The runtime failed the run because its history's signatures did
	 * not verify (error type DAPR_WORKFLOW_HISTORY_TAMPERED): its
	 * message (or its type, when it gives none); NULL otherwise. */
	const char *tampered;
	/* Dapr 1.18: the ancestors' record the run received with its start
	 * (borrowed from the log), NULL when the document carried none. Never
	 * counted among this run's invocations. */
	const struct propagated_history *propagated;
};

/* Whether a saved history has a Catalyst shape: the flattened dialect of
 * catalyst_get_workflow_run, or a run document whose envelope names a
 * project or a data-sharing level. durabletask protojson and `dapr workflow
 * history` output are not (self-hosted Dapr has no data-sharing level). */
bool analysis_catalyst_shaped(const struct event_log *log);

/* The analysis borrows strings from the log: free it before the log.
 *
 * It runs in two steps, so that a caller that reads no event after it can
 * drop the events in between (event_log_drop_events) and never hold the
 * history and the findings at once: analysis_scan reads the events and
 * the log's run info, and keeps what the rest needs; analysis_finish makes
 * the invocations, findings and limits without reading the log (whose
 * strings must stay). The analysis comes out the same either way. */
struct analysis_pending;
struct analysis_pending *analysis_scan(const struct event_log *log, const struct analysis_options *o,
				       struct err *e);
/* The same for a caller that reads no event after it (`file`): the events
 * are given back as the scan passes them (event_log_release_before), so a
 * large history's records and the scan's tables are never all held at
 * once, and the log holds none after (as after event_log_drop_events). */
struct analysis_pending *analysis_scan_release(struct event_log *log, const struct analysis_options *o,
					       struct err *e);
/* Takes p whatever happens; NULL (a failed analysis_scan) gives NULL and
 * leaves e as analysis_scan set it. */
struct analysis *analysis_finish(struct analysis_pending *p, struct err *e);
/* A rerun (Dapr 1.17+ names the source on the re-driven event): the
 * source instance id after analysis_scan, or NULL. The caller may fetch
 * that run and hand its analysis over before analysis_finish, which
 * borrows it (and why_not, when it could not be had) until it returns: the
 * re-driven call's rerun_reexecuted finding is then a notice when the
 * source attempt failed permanently, and a suspect otherwise. */
const char *analysis_pending_rerun_parent(const struct analysis_pending *p);
void analysis_pending_rerun_source(struct analysis_pending *p, const struct analysis *source, const char *why_not);
/* Both steps, for a caller that keeps the events. */
struct analysis *analysis_run(const struct event_log *log, const struct analysis_options *o, struct err *e);
void analysis_free(struct analysis *a); /* accepts NULL */

const char *finding_kind_id(enum finding_kind k); /* "reexecuted", ... */
/* The analysis checked against itself: NULL when its findings, counts and
 * notes agree (every chain of two or more attempts has one re-executed
 * finding, the re-executed count is the number of such chains, and every
 * note's claim names a finding this run has), else what contradicts, in
 * buf. For the tests and the fuzzers: a contradiction is a bug here. The
 * notes are checked through their claims, never their words: a note quotes
 * ids the server sent. */
const char *analysis_contradiction(const struct analysis *a, char *buf, size_t size);
/* Whether an error type adds something to its message: not a generic type
 * every failure of that language has (Go's *errors.errorString), nor one
 * the message already starts with. */
bool analysis_error_type_tells(const char *type, const char *message);
enum severity finding_kind_severity(enum finding_kind k);
const char *severity_name(enum severity s);               /* "notice", "suspect" */
const char *attempt_outcome_name(enum attempt_outcome o); /* "completed", ... */
/* "single", "execution_id", "timer_origin", "pattern", "order". */
const char *invocation_link_name(enum invocation_link l);
const char *withheld_field_name(enum withheld_field f);    /* "input", "output", "customStatus" */
const char *withheld_event_type(const struct withheld *w); /* "TaskScheduled", ... */
