/* The analysis checked against itself (issue 28): no verdict may
 * contradict its own notes. The test suite runs it on every fixture and
 * the history fuzzer on whatever it makes; a finding here is a bug in the
 * analysis, never in the history. */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"

static const char *say(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool is_chain_kind(enum finding_kind k)
{
	return k == FINDING_REEXECUTED || k == FINDING_CHILD_WORKFLOW_RETRIED;
}

/* Whether finding f is about inv: its name, and one of inv's attempts
 * among its evidence (an attempt's position is its own). */
static bool names_invocation(const struct finding *f, const struct invocation *inv)
{
	if (!same_name(f->activity, inv->name))
		return false;
	for (size_t i = 0; i < f->n_evidence_event_indexes; i++) {
		for (size_t j = 0; j < inv->n_attempts; j++) {
			if (f->evidence_event_indexes[i] == inv->attempts[j].event_index)
				return true;
		}
	}
	return false;
}

const char *analysis_contradiction(const struct analysis *a, char *buf, size_t size)
{
	/* Every chain of two or more attempts is reported as re-executed,
	 * once; the summary counts those chains. */
	size_t chains = 0, chain_findings = 0;
	for (size_t v = 0; v < a->n_invocations; v++) {
		const struct invocation *inv = &a->invocations[v];
		if (inv->n_attempts < 2)
			continue;
		chains++;
		size_t n = 0, rerun = 0;
		for (size_t k = 0; k < a->n_findings; k++) {
			const struct finding *f = &a->findings[k];
			if (names_invocation(f, inv)) {
				n += is_chain_kind(f->kind);
				/* A re-driven call whose earlier attempt is a copy
				 * from the source run: its rerun finding counts it. */
				rerun += f->kind == FINDING_RERUN_REEXECUTED;
			}
		}
		if (n > 1 || (n == 0 && rerun == 0))
			return say(buf, size,
				   "%s (first attempt at position %u) ran %u attempts and has %zu re-executed "
				   "findings, not one",
				   inv->name ? inv->name : "(no name)", (unsigned)inv->attempts[0].event_index,
				   (unsigned)inv->n_attempts, n);
		chain_findings += n;
	}
	size_t n_kind = 0;
	for (size_t k = 0; k < a->n_findings; k++)
		n_kind += is_chain_kind(a->findings[k].kind);
	if (n_kind != chain_findings)
		return say(buf, size, "%zu re-executed findings, %zu of them on chains of attempts (%zu chains)",
			   n_kind, chain_findings, chains);
	/* Every note that says a retry was linked names the finding that
	 * counts it: that finding is there, about that call. */
	for (size_t i = 0; i < a->n_claims; i++) {
		const struct note_claim *cl = &a->claims[i];
		bool found = false;
		for (size_t k = 0; k < a->n_findings && !found; k++) {
			const struct finding *f = &a->findings[k];
			if (f->kind != cl->kind || !same_name(f->activity, cl->activity))
				continue;
			for (size_t j = 0; j < f->n_evidence_event_indexes && !found; j++)
				found = f->evidence_event_indexes[j] == cl->event_index;
		}
		if (!found)
			return say(buf, size,
				   "note %zu says %s at position %u was retried and counted as %s, and no "
				   "such finding is there",
				   cl->limit, cl->activity ? cl->activity : "(no name)", (unsigned)cl->event_index,
				   finding_kind_id(cl->kind));
	}
	return NULL;
}
