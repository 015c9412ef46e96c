/* The run facts of Dapr 1.17+ histories as sentences (report_facts.h). */
#include "report_facts.h"

#include <inttypes.h>
#include <string.h>

/* Appends a patch list ("p1\np2") as "p1, p2". */
static void patches_list(struct buf *b, const char *patches, bool *first)
{
	for (const char *p = patches; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		buf_printf(b, NULL, "%s%.*s", *first ? "" : ", ", (int)n, p);
		*first = false;
		p += n + (nl != NULL);
	}
}

int report_version_sentence(struct buf *b, const struct analysis *a)
{
	if (!a || !a->n_versions)
		return 0;
	bool any_patch = false;
	for (size_t i = 0; i < a->n_versions; i++)
		any_patch |= a->versions[i].patches && *a->versions[i].patches;
	buf_printf(b, NULL, "version %s", a->version ? a->version : "(unnamed)");
	if (any_patch) {
		/* Dapr keeps on each start only the patches no earlier one
		 * named: the run's are all of them */
		bool first = true;
		buf_printf(b, NULL, ", patches ");
		for (size_t i = 0; i < a->n_versions; i++)
			patches_list(b, a->versions[i].patches, &first);
	}
	/* what changed within the run: another name, or patches after the
	 * first start that named any */
	bool said = false;
	const char *prev = NULL;
	for (size_t i = 0; i < a->n_versions; i++) {
		const struct run_version *v = &a->versions[i];
		bool renamed = v->name && *v->name && prev && strcmp(prev, v->name) != 0;
		/* patches a start after the run's first one added */
		bool repatched = v->patches && *v->patches && i > 0;
		if (renamed || repatched) {
			buf_printf(b, NULL, "%s", said ? "; " : "; changed within the run: ");
			said = true;
			if (renamed)
				buf_printf(b, NULL, "%s (was %s)", v->name, prev);
			if (repatched) {
				bool first = true;
				buf_printf(b, NULL, "%spatch%s ", renamed ? ", " : "",
					   strchr(v->patches, '\n') ? "es" : "");
				patches_list(b, v->patches, &first);
			}
			buf_printf(b, NULL, " from event %" PRIu32 "%s%s", v->event_index, v->at ? " at " : "",
				   v->at ? v->at : "");
		}
		if (v->name && *v->name)
			prev = v->name;
	}
	return 1;
}

int report_stall_sentence(struct buf *b, const struct run_stall *st)
{
	const char *reason = st->reason ? st->reason : "PATCH_MISMATCH";
	buf_printf(b, NULL, "stalled%s%s (event %" PRIu32 "): %s", st->at ? " at " : "", st->at ? st->at : "",
		   st->event_index, reason);
	bool dot = false;
	if (st->description && *st->description) {
		size_t n = strlen(st->description);
		while (n && st->description[n - 1] == ' ')
			n--; /* the runtime ends its patch-mismatch words with a space */
		dot = n && st->description[n - 1] == '.';
		buf_printf(b, NULL, ", \"%.*s\"", (int)n, st->description);
	}
	const char *why = strcmp(reason, "PAYLOAD_SIZE_EXCEEDED") == 0
				  ? "the run waits until the sidecar's body limit is raised"
			  : strcmp(reason, "VERSION_NOT_AVAILABLE") == 0
				  ? "the run waits for a worker that has the version its history names"
				  : "the run waits for a worker whose code takes the patches its history names";
	buf_printf(b, NULL, "%s A stall is no re-execution: %s, and the replay that follows re-runs no activity",
		   dot ? "" : ".", why);
	return 1;
}

int report_signed_sentence(struct buf *b, const struct analysis *a)
{
	if (!a || !a->n_attested)
		return 0;
	buf_printf(b, NULL, "signed: %zu of %zu results carry the runtime's attestation", a->n_attested,
		   a->n_results);
	return 1;
}

int report_propagated_sentence(struct buf *b, const struct analysis *a, size_t chunk)
{
	const struct propagated_history *p = a ? a->propagated : NULL;
	if (!p || chunk >= p->n_chunks)
		return 0;
	const struct propagated_chunk *c = &p->chunks[chunk];
	buf_printf(b, NULL, "received from ancestor %s (%s%s%s%s%s): %zu event%s",
		   c->instance_id ? c->instance_id : "(unnamed)", c->workflow ? c->workflow : "workflow not named",
		   c->app_id ? ", app " : "", c->app_id ? c->app_id : "", p->scope ? "; scope " : "",
		   p->scope ? p->scope : "", c->events, c->events == 1 ? "" : "s");
	if (c->undecoded)
		buf_printf(b, NULL, " (%zu of no type this client reads)", c->undecoded);
	for (size_t i = 0; i < c->n_activities; i++) {
		const struct propagated_activity *x = &c->activities[i];
		buf_printf(b, NULL, "%s%s scheduled %" PRIu32 ", completed %" PRIu32, i ? "; " : ", ",
			   x->name ? x->name : "(an activity whose schedule it does not hold)", x->scheduled,
			   x->completed);
		if (x->failed)
			buf_printf(b, NULL, ", failed %" PRIu32, x->failed);
	}
	if (c->children)
		buf_printf(b, NULL, "; %zu child workflow%s started", c->children, c->children == 1 ? "" : "s");
	buf_printf(b, NULL,
		   ". The ancestor's record, read as such: none of it is counted as this run's executions");
	return 1;
}

/* The first chunk whose record shows an activity of this name. */
static const struct propagated_chunk *ancestor_with(const struct propagated_history *p, const char *name)
{
	for (size_t i = 0; name && i < p->n_chunks; i++)
		for (size_t k = 0; k < p->chunks[i].n_activities; k++) {
			const char *n = p->chunks[i].activities[k].name;
			if (n && strcmp(n, name) == 0)
				return &p->chunks[i];
		}
	return NULL;
}

int report_also_ran_sentence(struct buf *b, const struct analysis *a)
{
	const struct propagated_history *p = a ? a->propagated : NULL;
	if (!p)
		return 0;
	size_t said = 0;
	for (size_t i = 0; i < a->n_invocations; i++) {
		const char *name = a->invocations[i].name;
		const struct propagated_chunk *c = ancestor_with(p, name);
		bool earlier = false; /* named once, for its first invocation */
		for (size_t k = 0; k < i && !earlier; k++)
			earlier = a->invocations[k].name && name && strcmp(a->invocations[k].name, name) == 0;
		if (!c || earlier)
			continue;
		buf_printf(b, NULL, "%s%s (ancestor %s)", said ? ", " : "", name,
			   c->instance_id ? c->instance_id : "(unnamed)");
		said++;
	}
	if (!said)
		return 0;
	buf_printf(
		b, NULL,
		": ran in this run and in its ancestor's record too. Each is its own execution; a side effect "
		"keyed on either run's own ids is not deduplicated across them, one keyed on the business input "
		"is");
	return 1;
}

void report_facts_each(const struct analysis *a, report_fact_fn *fn, void *ctx)
{
	struct buf b;
	buf_init(&b, 0);
	if (report_version_sentence(&b, a))
		fn(b.data, ctx);
	for (size_t i = 0; i < a->n_stalls; i++) {
		buf_reset(&b);
		report_stall_sentence(&b, &a->stalls[i]);
		fn(b.data, ctx);
	}
	buf_reset(&b);
	if (report_signed_sentence(&b, a))
		fn(b.data, ctx);
	for (size_t i = 0; buf_reset(&b), report_propagated_sentence(&b, a, i); i++)
		fn(b.data, ctx);
	buf_reset(&b);
	if (report_also_ran_sentence(&b, a))
		fn(b.data, ctx);
	buf_finish(&b);
}
