#pragma once
/* Dapr 1.18 propagated history: the record of its ancestors a workflow
 * received with its start (PropagatedHistory{scope, chunks}, where each
 * chunk is one ancestor's events as binary HistoryEvent messages). It is
 * never inside a HistoryEvent: a saved runtime state carries it beside the
 * events (WorkflowRuntimeStateMessage.propagatedHistory) and the actor
 * keeps it under the `propagated-history` key. Read as the ancestors'
 * record, never as this run's executions. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"

/* One activity an ancestor's record shows, by name and execution id. */
struct propagated_activity {
	char *name;              /* NULL: a result whose schedule the chunk does not hold */
	char *task_execution_id; /* NULL when the events carry none */
	uint32_t scheduled, completed, failed;
};

struct propagated_chunk {
	char *app_id, *instance_id, *workflow; /* NULL when the chunk does not say */
	size_t events;                         /* raw events in it */
	size_t undecoded;                      /* of those, not a HistoryEvent we could read */
	struct propagated_activity *activities;
	size_t n_activities;
	size_t children; /* child workflows it started */
};

struct propagated_history {
	char *scope; /* "OWN_HISTORY", "LINEAGE", ... as the document names it; NULL: not said */
	struct propagated_chunk *chunks;
	size_t n_chunks;
};

/* Reads a PropagatedHistory in protojson (scope, chunks[].rawEvents as
 * base64, appId, instanceId, workflowName; snake_case accepted). 0 with
 * *out set (a new object), or -1 with ERR_INPUT saying what is wrong. */
int propagated_history_read(const json_t *doc, struct propagated_history **out, struct err *e);
void propagated_history_free(struct propagated_history *p); /* accepts NULL */

/* Whether a document key names one: propagatedHistory, propagated_history,
 * propagated-history. */
bool propagated_history_key(const char *key, size_t len);
