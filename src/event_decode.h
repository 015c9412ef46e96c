#pragma once
/* Private to the history parsers: the one event decoder both readers share
 * (event_parse.c reads bytes, event_tree.c a decoded document), its field
 * table (event_fields.c) and the `dapr workflow history` dialect
 * (event_dapr_cli.c). A reader finds the event list and tokenises one
 * element at a time into dec.toks (json_scan.h); dec_event decodes those
 * tokens into the log. */

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "event.h"
#include "event_internal.h"
#include "json_scan.h"

/* Keys longer than this (normalised) are never known fields. */
#define KEY_MAX 96

/* ---- The field table (event_fields.c) ---- */

enum field {
	F_NONE = 0,
	F_IGNORED, /* known, not modelled: counted nowhere */
	F_TYPE,
	F_EVENT_ID,
	F_TIMESTAMP,
	F_NAME,
	F_TSID,
	F_TEXID,
	F_TIMER_ID,
	F_FIRE_AT,
	F_ORIGIN_ACTIVITY,
	F_ORIGIN_CHILD,
	F_ORIGIN_CREATE,
	F_ORIGIN_EXTERNAL,
	F_INSTANCE_ID,
	F_EXECUTION_ID,
	F_RETRY_PARENT,
	F_RERUN_PARENT,
	F_WF_STATUS,
	F_ERR_MSG,
	F_ERR_TYPE,
	F_CAUSE_MSG,  /* failureDetails.innerFailure[.innerFailure...].errorMessage */
	F_CAUSE_TYPE, /* ... .errorType */
	F_NON_RETRIABLE,
	F_INPUT,
	F_OUTPUT,
	F_CUSTOM_STATUS,
	F_ATTRS,
	F_APP_ID,
	F_STATUS,
	F_VERSION_NAME, /* workflowStarted.version.name (Dapr 1.17+) */
	F_PATCHES,      /* workflowStarted.version.patches */
	F_REASON,       /* executionStalled.reason */
	F_DESCRIPTION,  /* executionStalled.description */
	F_ATTESTATION,  /* a result's attestation (Dapr 1.18) */
};

enum field event_field_lookup(const char *nk, size_t len);
/* The kind a type name (any spelling) names; EVENT_UNKNOWN if none. */
enum event_kind event_kind_lookup(const char *s, size_t len);
/* Lowercases and drops '_', '-', '.' and ' ': taskExecutionId,
 * task_execution_id and TaskExecutionID all become taskexecutionid. Returns
 * the length, or 0 if it does not fit in cap. */
size_t event_key_normalise(const char *s, size_t len, char *out, size_t cap);
/* A key spelled like a payload field (input, output, result, customStatus):
 * its value stays one opaque token. */
bool event_key_is_payload(const char *s, size_t len);
/* A key an event list may stand under (events, history...). */
bool event_key_names_list(const char *k, size_t kl);
/* How many innerFailure levels a normalised failureDetails key goes down
 * (failuredetailsinnerfailureinnerfailureerrortype: 2), and what follows. */
size_t event_inner_failure_depth(const char *nk, size_t len, const char **rest, size_t *rest_len);

static inline bool key_has_prefix(const char *s, size_t len, const char *pre)
{
	size_t l = strlen(pre);
	return len >= l && memcmp(s, pre, l) == 0;
}

static inline bool key_has_suffix(const char *s, size_t len, const char *suf)
{
	size_t l = strlen(suf);
	return len >= l && memcmp(s + len - l, suf, l) == 0;
}

/* ---- The decoder (event_decode.c) ---- */

struct run_cand {
	struct jscan_tok tok;
	int depth;
	bool set;
	const char *key;
	size_t key_len;
};

enum run_field {
	RUN_INSTANCE,
	RUN_APP,
	RUN_NAME,
	RUN_STATUS,
	RUN_PROJECT,
	RUN_SHARING,
	RUN_COUNT,
};

/* Keys up to 47 bytes are cached: the retry origin key of a Catalyst
 * history is 40 (origin__activity_retry_task_execution_id). */
#define KEY_CACHE_LEN 48
#define KEY_CACHE_BITS 8
#define KEY_CACHE_SIZE (1u << KEY_CACHE_BITS)

struct key_info {
	enum field field;
	enum event_kind kind; /* when the key names a kind (a protojson oneof) */
	uint8_t type_of;      /* the dialect whose event-type key this is (event_type: Catalyst), or 0 */
	uint8_t norm_len;
	char norm[KEY_CACHE_LEN];
};

struct key_cache_ent {
	uint8_t len;
	char key[KEY_CACHE_LEN];
	struct key_info info;
};

#define TYPE_CACHE_SIZE 32
#define TYPE_CACHE_LEN 40

struct text_cache_ent {
	uint8_t len; /* 0: empty */
	char text[TYPE_CACHE_LEN];
	const char *interned;
	enum event_kind kind;
};

#define KIND_CACHE_SIZE 32
#define DEC_TOP_KEYS 16

struct dec {
	struct key_cache_ent keys[KEY_CACHE_SIZE];
	unsigned key_misses; /* cache entries (re)written: pointers to older ones may be stale */
	/* The event's top-level keys as its first pass resolved them, for the
	 * second (dec_event_members); valid while key_misses stays top_misses. */
	const struct key_info *top[DEC_TOP_KEYS];
	size_t n_top;
	unsigned top_misses;
	const struct key_info *next_info; /* the next top-level member's, or NULL */
	struct {
		const char *name;
		enum event_kind kind;
	} kinds[KIND_CACHE_SIZE];
	/* Event type and activity name values by their raw text: the
	 * interned text (and a type's kind), without hashing the text into
	 * the pool for every event. */
	struct text_cache_ent types[TYPE_CACHE_SIZE], names[TYPE_CACHE_SIZE];
	struct event_log *log;
	struct event_pool *pool;
	struct jscan_toks toks;
	char *scratch;
	size_t scratch_cap;
	char *attrs;
	size_t attrs_cap;
	size_t index; /* of the event in the list */
	size_t off;   /* of the event in the input */
	bool from_json;
	bool payload_text;          /* keep payloads' texts (event_parse_options) */
	enum event_dialect dialect; /* of the first event */
	struct event *ev;           /* &evbuf: filled, then packed into the log */
	struct event evbuf;
	enum event_dialect ev_dialect;
	const char *raw_execution_id;
	const char *version_name, *reason, *description; /* put in place by kind */
	const char *attrs_task_exec_id;
	const char *attrs_instance_id;
	const char *status;
	const char *app_id;
	char path[KEY_MAX * 2];
	struct run_cand run[RUN_COUNT];
	struct err *e;
};

/* The error when a document holds no event list. */
extern const char dec_no_list_msg[];

/* Makes d's log; d is zeroed by the caller. -1 when memory runs out. */
int dec_init(struct dec *d, bool from_json, struct err *e);
/* Frees d's buffers, not its log. */
void dec_finish(struct dec *d);
/* Does the object in tk look like a history event? Sets its dialect. */
bool dec_looks_like_event(const struct jscan_toks *tk, char **scratch, size_t *cap, enum event_dialect *dialect);
/* Decodes the event whose tokens are in d->toks and appends it. */
int dec_event(struct dec *d);
/* Why d->toks could not be made: a message for JSCAN_TOO_BIG (the error
 * is then about the event), the scanner's otherwise. Returns -1. */
int dec_tokenise_failed(struct dec *d, int status);
/* A string member of the envelope (depth: how deep its object is) that may
 * be a run field (instance id, app id, workflow name, status, project, data
 * sharing level): the shallowest of each is kept. */
void dec_run_field(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, int depth);
/* Hands the run fields found to the log. */
void dec_run_finish(struct dec *d);

/* Field setters: v's value into *out, or an ERR_INPUT naming the event and
 * key when v has the wrong type (null leaves a field absent). */
int dec_get_str(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, const char **out);
/* An integer; protojson may quote 64-bit integers, so a string of digits
 * is one too. */
int dec_get_int(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, int64_t *out,
		bool *has);
int dec_get_bool(struct dec *d, const char *key, size_t key_len, const struct jscan_tok *v, bool *out, bool *has);
int dec_get_payload(struct dec *d, const struct jscan_tok *v, struct payload *out);
/* ERR_INTERNAL for the event being read. Returns -1. */
int dec_oom(struct dec *d);

/* ---- `dapr workflow history -o json` (event_dapr_cli.c) ---- */

/* A row's "attrs" string ("k=v;k=v") and "details" string ("k=v,k=v"). */
int dapr_cli_attrs(struct dec *d, const struct jscan_tok *v);
int dapr_cli_details(struct dec *d, const struct jscan_tok *v);
/* What a row leaves implicit, once all its members are read. */
void dapr_cli_implicit(struct dec *d);
/* A timer origin's kind from its name ("activityRetry", ...). */
enum timer_origin dapr_cli_origin_kind(const char *s, size_t len);

/* The table view of `dapr workflow history` (event_dapr_table.c): does the
 * text at p start with its header, and its events from the header at
 * buf + pos (NULL with e set when the table lacks the columns to read). */
bool dapr_table_header(const char *p, size_t n);
/* release: buf is a private read-only file mapping whose pages are given
 * back as the rows are read (event_input_release). */
struct event_log *dapr_table_parse(const char *buf, size_t len, size_t pos, bool release, struct err *e);
/* Gives back the whole pages of the mapped input buf that lie before pos,
 * less a margin, once a step's worth more has been passed; *released is
 * where the last call stopped (0 at first). */
void event_input_release(const char *buf, size_t pos, size_t *released);

/* The dialect whose event-type key nk is (normalised: "eventtype",
 * "type"), or DIALECT_UNKNOWN; earlier dialects of the table win over
 * later ones when an event has keys of both. A dialect whose type key is a
 * common word ("type") is only taken when the value is a known event type
 * (dec_looks_like_event). From the dialect table in event_fields.c. */
enum event_dialect event_dialect_of_type_key(const char *nk, size_t nl);
bool event_dialect_type_needs_kind(enum event_dialect d);
