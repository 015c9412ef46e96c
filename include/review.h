#pragma once
/* `review`: the activity code read with tree-sitter. Finds the activities
 * (across files: a registration often lives in another file than the
 * function) and the idempotency hazards of their bodies, two levels of
 * helper calls deep, and the one retry policy an orchestrator gives every
 * activity call (doc/hazards.md). A library module: it reads the files it
 * is given and never prints. */

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

enum review_lang {
	REVIEW_PYTHON = 0,
	REVIEW_GO,
	REVIEW_JAVA,
	REVIEW_TYPESCRIPT, /* .ts and .js (the TypeScript grammar reads both) */
	REVIEW_CSHARP,
	REVIEW_LANG_COUNT,
};

/* The name of a language ("python"), for every format. */
const char *review_lang_name(enum review_lang l);

enum review_hazard_kind {
	HAZARD_GENERATED_KEY = 0,   /* a key or id generated in the body */
	HAZARD_POST_WITHOUT_KEY,    /* an HTTP POST without an idempotency-key header */
	HAZARD_RETRY_LOOP,          /* a retry loop (or retry decorator) in the body */
	HAZARD_READ_THEN_WRITE,     /* a read, then a write of the same key, not conditional */
	HAZARD_SHARED_RETRY_POLICY, /* orchestrator: one retry policy for every activity call */
	HAZARD_PUBLISH_WITHOUT_ID,  /* a pub/sub publish with no message id to deduplicate on */
	HAZARD_INSERT_WITHOUT_KEY,  /* an INSERT (or insertOne) no key makes refuse the second time */
	HAZARD_INCREMENT,           /* a counter, balance or stock changed by an amount, not set */
	HAZARD_SEND_WITHOUT_KEY,    /* an email, SMS or notification sent with nothing to deduplicate on */
	HAZARD_KIND_COUNT,
};

/* A hazard's row of doc/hazards.md: its id, what the body does, what a
 * second run does, and the fix. */
struct review_hazard_row {
	enum review_hazard_kind kind;
	const char *id;
	const char *does;
	const char *second_run;
	const char *fix;
	/* The same two fitted to the call flagged: the one %s is replaced by
	 * the call's code as written in why_call ("`r.incr(\"charges:\" + id)`
	 * applies the amount again on every attempt"), by its callee in fix_call. */
	const char *why_call;
	const char *fix_call;
};
extern const struct review_hazard_row review_hazard_rows[HAZARD_KIND_COUNT];

struct review_hazard {
	enum review_hazard_kind kind;
	char *file; /* as found under the path given */
	unsigned line;
	unsigned col; /* from 1, in bytes of the line */
	/* What the code does, in words, with code text quoted from the file
	 * ("POSTs to \"/payments\" without an idempotency-key header"): a
	 * renderer escapes it. */
	char *detail;
	char *helper; /* the helper it is in, one call from the body; NULL: the body itself */
	/* Why it is a hazard and the fix, one sentence each, naming the code
	 * flagged (the row's why_call and fix_call); a renderer escapes them. */
	char *why;
	char *fix;
	bool known; /* --baseline: the baseline has its fingerprint */
};

struct review_activity {
	char *name; /* as registered: the name the history carries, or the function's / class's */
	enum review_lang lang;
	char *file; /* its definition; the registration when the definition was not found */
	unsigned line;
	bool defined; /* false: registered, but no definition in the source */
	struct review_hazard *hazards;
	size_t n_hazards;
};

/* A hazard a comment silenced: `catalyst-audit: ignore ID reason...` on
 * its line or the line above it, or on the activity's definition line or
 * the line above that. ID is the hazard's id or its row in the table, H1
 * to H5. Counted, and kept for the formats that show them. */
struct review_suppressed {
	struct review_hazard hazard;
	char *activity;        /* NULL: an orchestrator's */
	char *reason;          /* the comment's words after the id; NULL when it gives none */
	unsigned comment_line; /* where the comment is */
};

struct review {
	struct review_activity *activities; /* in file, then line order */
	size_t n_activities;
	struct review_hazard *orchestrator; /* hazards of orchestrators (workflows) */
	size_t n_orchestrator;
	size_t n_files; /* source files read */
	size_t n_by_lang[REVIEW_LANG_COUNT];
	size_t n_skipped; /* files not read: too large, or beyond the file limit */
	size_t n_hazards; /* of activities and orchestrators, the silenced ones not counted */
	struct review_suppressed *suppressed;
	size_t n_suppressed;
	bool has_baseline; /* --baseline given: known and n_new mean something */
	size_t n_new;      /* hazards the baseline does not have */
	/* The paths reviewed, as given (a file's own is its folder): what the
	 * files are named relative to in SARIF. */
	char **roots;
	size_t n_roots;
};

/* Largest file read, and most files read from one review. */
#define REVIEW_MAX_FILE (2u << 20)
#define REVIEW_MAX_FILES 20000u

void review_init(struct review *rv);
void review_finish(struct review *rv);

/* Reviews the files and folders in paths (folders recursively, hidden
 * folders and dependency folders such as node_modules left out; only the
 * extensions of a language it reads). -1 with e set: ERR_USAGE for a path
 * that cannot be read, ERR_OOM. */
int review_paths(struct review *rv, const char *const *paths, size_t n, struct err *e);
/* Reviews one file's bytes as if read from name (its extension picks the
 * language; another extension reviews nothing). For the fuzzer and tests. */
int review_buffer(struct review *rv, const char *name, const char *data, size_t len, struct err *e);

/* file as named relative to the path it was found under (the longest of
 * the paths reviewed that holds it, "./" dropped); *root: that path's index
 * (0 when none holds it). Points into file. */
const char *review_relative_path(const struct review *rv, const char *file, size_t *root);

/* A fingerprint that stays when code above the hazard moves: of its id,
 * its file under the path reviewed, the activity ("(orchestrator)" for an
 * orchestrator's) and what the code does without line numbers; 32 hex
 * digits. SARIF's partialFingerprints and JSON's "fingerprint". */
void review_fingerprint(const struct review *rv, const struct review_hazard *h, const char *activity,
			char out[33]);

/* --baseline: marks each hazard whose fingerprint is a key of `known`
 * (h->known) and counts the others (rv->n_new); rv->has_baseline. */
struct json_t;
void review_mark_known(struct review *rv, const struct json_t *known);

/* The activity a history names: the same name, else the same in any case,
 * else the last dotted part the same (Java registers a class's full name).
 * NULL when the source has none. */
const struct review_activity *review_find_activity(const struct review *rv, const char *name);
