#pragma once
/* What a Dapr 1.17+ history says of the run beyond its calls, in one
 * sentence each, for the text and Markdown reports (JSON writes the same
 * facts as members): the version and patches it ran under and where they
 * changed, each stall and why it is no re-execution, and whether its
 * results are signed. Server-supplied words stay raw here: the renderer
 * escapes the sentence whole. Computes only. */

#include "analysis.h"
#include "buf.h"

/* "version v2, patches p1, p2; changed within the run: v1 from event 3,
 * v2 from event 17": 1 when written, 0 when the run names no version. */
int report_version_sentence(struct buf *b, const struct analysis *a);

/* "stalled at T (event N): REASON, "description". A stall is no
 * re-execution: ...". */
int report_stall_sentence(struct buf *b, const struct run_stall *st);

/* "signed: 4 of 4 results carry the runtime's attestation": 1 when
 * written, 0 when none does. */
int report_signed_sentence(struct buf *b, const struct analysis *a);

/* The propagated history (Dapr 1.18), one sentence per ancestor chunk:
 * "received from ancestor order-4411 (OrderWorkflow, app orders; scope
 * LINEAGE): 6 events, ChargeCard scheduled 1, completed 1; their record,
 * not this run's executions". 1 when written, 0 when chunk is past the
 * last. */
int report_propagated_sentence(struct buf *b, const struct analysis *a, size_t chunk);

/* For an activity of this run the ancestors' record shows too: "ChargeCard
 * ran in ancestor order-4411 too ...". 1 when written (one sentence for
 * all such activities), 0 when there is none. */
int report_also_ran_sentence(struct buf *b, const struct analysis *a);

/* Every one of those sentences of a run, in the order every format lists
 * them (version, stalls, signing, each ancestor, the activities run in
 * both), each handed to fn as text. */
typedef void report_fact_fn(const char *sentence, void *ctx);
void report_facts_each(const struct analysis *a, report_fact_fn *fn, void *ctx);
