#pragma once
/* --show-payloads (issue 19): the inputs and outputs of the attempts a
 * run's findings name, so that the on-call engineer can look the order or
 * the charge up at the payment provider. The history is parsed to keep
 * each payload's first EVENT_PAYLOAD_TEXT_MAX bytes only when asked
 * (event_parse_options.payload_text); renderers print what this gives,
 * escaped for their format. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "report.h"

/* Whether the run's history was read to show its payloads. */
bool report_run_shows_payloads(const struct report_run *run);
/* Whether it shows payloads and has findings, whose attempts they are. */
bool report_run_has_payloads_to_show(const struct report_run *run);

/* An attempt a finding names (its scheduling event is among the
 * finding's evidence). */
struct report_payload_attempt {
	const struct invocation *inv;
	const struct attempt *at;
	uint32_t no; /* counted from 1 in its invocation */
};
/* The run's such attempts, each once, in the order of the invocations and
 * their attempts: a malloc'd array in *out and its length (0 and NULL for
 * none), or -1 when memory ran out. */
long report_payload_attempts(const struct report_run *run, struct report_payload_attempt **out);

enum report_payload_shown {
	REPORT_PAYLOAD_TEXT = 0, /* present, and its text kept */
	REPORT_PAYLOAD_NOT_KEPT, /* present, its text not kept (no memory for it) */
	REPORT_PAYLOAD_NULL,
	REPORT_PAYLOAD_EMPTY,
	REPORT_PAYLOAD_WITHHELD, /* absent: not shared at the data-sharing level (doc/PRODUCT.md rule 2) */
	REPORT_PAYLOAD_ABSENT,   /* absent from a history that withholds nothing */
};

/* One payload as a report shows it. */
struct report_payload {
	enum report_payload_shown shown;
	const char *text; /* REPORT_PAYLOAD_TEXT: len bytes (may hold a NUL), the log's */
	size_t len;
	size_t size;      /* bytes of the whole value, when present */
	bool cut;         /* only the first len of size bytes are shown */
	bool history_cut; /* the history itself holds only a prefix (`dapr workflow history`) */
};

/* The attempt's input, or its output (output: only a completed attempt
 * has one; false when it has none to show). */
bool report_payload_of(const struct report_run *run, const struct report_payload_attempt *pa, bool output,
		       struct report_payload *out);
/* "input", "output" or a state word ("null", "empty", "absent"), and what
 * a cut or withheld payload says, shared by text and Markdown: "(62
 * bytes)", "(first 1024 of 5000 bytes)", the withheld phrase with the
 * level. Appends to out; -1 when memory ran out. */
int report_payload_note(struct buf *out, const struct report_run *run, const struct report_payload *p);
/* At metadata: the one sentence a run's payloads get instead (the level is
 * per organization, an administrator can change it, the run's link shows
 * the run). Appends to out; 0 and nothing when the level is not metadata;
 * -1 when memory ran out. */
int report_payloads_withheld(struct buf *out, const struct report_run *run);
