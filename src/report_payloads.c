/* --show-payloads: which attempts the findings name, and how each of their
 * payloads reads (report_payloads.h). */
#include "report_payloads.h"

#include <stdlib.h>
#include <string.h>

bool report_run_shows_payloads(const struct report_run *run)
{
	return run->analysis && event_log_keeps_payload_text(run->log);
}

bool report_run_has_payloads_to_show(const struct report_run *run)
{
	return report_run_shows_payloads(run) && run->analysis->n_findings;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

long report_payload_attempts(const struct report_run *run, struct report_payload_attempt **out)
{
	*out = NULL;
	const struct analysis *a = run->analysis;
	if (!a)
		return 0;
	size_t n_ev = 0;
	for (size_t i = 0; i < a->n_findings; i++)
		n_ev += a->findings[i].n_evidence_event_indexes;
	if (!n_ev)
		return 0;
	/* Every evidence position once, sorted: an attempt is named when its
	 * scheduling event is one of them. */
	uint32_t *ev = malloc(n_ev * sizeof *ev);
	if (!ev)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *f = &a->findings[i];
		memcpy(ev + k, f->evidence_event_indexes, f->n_evidence_event_indexes * sizeof *ev);
		k += f->n_evidence_event_indexes;
	}
	qsort(ev, n_ev, sizeof *ev, cmp_u32);
	struct report_payload_attempt *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		for (uint32_t j = 0; j < inv->n_attempts; j++) {
			const struct attempt *at = &inv->attempts[j];
			if (!bsearch(&at->event_index, ev, n_ev, sizeof *ev, cmp_u32))
				continue;
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 8;
				struct report_payload_attempt *nv = realloc(v, ncap * sizeof *nv);
				if (!nv) {
					free(v);
					free(ev);
					return -1;
				}
				v = nv;
				cap = ncap;
			}
			v[n++] = (struct report_payload_attempt){.inv = inv, .at = at, .no = j + 1};
		}
	}
	free(ev);
	*out = v;
	return (long)n;
}

/* Whether the analysis lists the field of the event at index as withheld. */
static bool listed_withheld(const struct analysis *a, uint32_t index, enum withheld_field field)
{
	for (size_t i = 0; i < a->n_withheld; i++)
		if (a->withheld[i].event_index == index && a->withheld[i].field == field)
			return true;
	return false;
}

bool report_payload_of(const struct report_run *run, const struct report_payload_attempt *pa, bool output,
		       struct report_payload *out)
{
	const struct attempt *at = pa->at;
	/* A failure carries no output field, and a pending attempt no result. */
	if (output && at->outcome != OUTCOME_COMPLETED)
		return false;
	const struct payload *p = output ? &at->output : &at->input;
	memset(out, 0, sizeof *out);
	switch (p->state) {
	case PAYLOAD_PRESENT:
		out->size = p->size;
		out->history_cut = p->truncated;
		out->text = event_log_payload_text(run->log, p, &out->len, &out->cut);
		out->shown = out->text ? REPORT_PAYLOAD_TEXT : REPORT_PAYLOAD_NOT_KEPT;
		break;
	case PAYLOAD_NULL:
		out->shown = REPORT_PAYLOAD_NULL;
		break;
	case PAYLOAD_EMPTY:
		out->shown = REPORT_PAYLOAD_EMPTY;
		break;
	case PAYLOAD_ABSENT: {
		uint32_t index = output ? at->result_index : at->event_index;
		bool withheld = run->analysis && index != ATTEMPT_NO_RESULT &&
				listed_withheld(run->analysis, index, output ? WITHHELD_OUTPUT : WITHHELD_INPUT);
		out->shown = withheld ? REPORT_PAYLOAD_WITHHELD : REPORT_PAYLOAD_ABSENT;
		break;
	}
	}
	return true;
}

int report_payload_note(struct buf *out, const struct report_run *run, const struct report_payload *p)
{
	const struct analysis *a = run->analysis;
	switch (p->shown) {
	case REPORT_PAYLOAD_TEXT:
		if (p->cut)
			return buf_printf(out, NULL, "(first %zu of %zu bytes shown%s)", p->len, p->size,
					  p->history_cut ? ", as cut by dapr workflow history" : "");
		return buf_printf(out, NULL, "(%zu bytes%s)", p->size,
				  p->history_cut ? ", as cut by dapr workflow history" : "");
	case REPORT_PAYLOAD_NOT_KEPT:
		return buf_printf(out, NULL, "(%zu bytes; its text was not kept)", p->size);
	case REPORT_PAYLOAD_NULL:
		return buf_printf(out, NULL, "null");
	case REPORT_PAYLOAD_EMPTY:
		return buf_printf(out, NULL, "empty");
	case REPORT_PAYLOAD_WITHHELD:
		return buf_printf(out, NULL, "%s (%s)", REPORT_WITHHELD_PHRASE,
				  data_sharing_level_name(a ? a->sharing : SHARING_UNKNOWN));
	case REPORT_PAYLOAD_ABSENT:
		return buf_printf(out, NULL, "absent from the history");
	}
	return 0;
}

int report_payloads_withheld(struct buf *out, const struct report_run *run)
{
	const struct analysis *a = run->analysis;
	if (!a || a->sharing != SHARING_METADATA)
		return 0;
	return buf_printf(out, NULL,
			  "The payloads were %s (%s, %s): the level is set per organization (an administrator "
			  "can change it to full); the run's console link%s shows the run.",
			  REPORT_WITHHELD_PHRASE, data_sharing_level_name(a->sharing),
			  a->sharing_source ? a->sharing_source : "source unknown",
			  run->console_link ? "" : ", when there is one,");
}
