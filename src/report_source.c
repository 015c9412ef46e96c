/* --source PATH: each finding joined to its activity's code. The history
 * shows that an activity ran twice; the reviewed body shows whether that
 * did anything twice (doc/hazards.md). One sentence per finding, worded
 * here once for every format. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "review.h"

/* Whether the finding's name is a child workflow the run started (the
 * analysis' invocations say): review reads activities, not workflows. */
static bool child_workflow(const struct analysis *an, const char *name)
{
	for (size_t i = 0; i < an->n_invocations; i++)
		if (an->invocations[i].is_child_workflow && an->invocations[i].name &&
		    strcmp(an->invocations[i].name, name) == 0)
			return true;
	return false;
}

static char *sentence(const struct analysis *an, const struct finding *f, const struct review *rv,
		      const char *path)
{
	struct buf b;
	buf_init(&b, 0);
	const struct review_activity *a = review_find_activity(rv, f->activity);
	int rc = 0;
	if (!a && child_workflow(an, f->activity)) {
		rc = buf_printf(&b, NULL, "%s is a child workflow: review reads activity bodies, not workflows",
				f->activity);
	} else if (!a) {
		rc = buf_printf(&b, NULL,
				"%s: not found in the source (%s): no activity of that name is registered there",
				f->activity, path);
	} else if (!a->defined) {
		rc = buf_printf(&b, NULL, "%s is registered at %s:%u, but its definition is not in the source",
				f->activity, a->file, a->line);
	} else if (!a->n_hazards) {
		rc = buf_printf(&b, NULL, "%s (%s:%u): review found no idempotency hazard in its body",
				f->activity, a->file, a->line);
	} else {
		rc = buf_printf(&b, NULL, "%s re-executed (%s); its body ", f->activity, finding_kind_id(f->kind));
		for (size_t k = 0; k < a->n_hazards && rc == 0; k++) {
			const struct review_hazard *h = &a->hazards[k];
			rc = buf_printf(&b, NULL, "%s%s%s%s%s — %s:%u", k ? "; " : "", h->detail,
					h->helper ? " (in " : "", h->helper ? h->helper : "", h->helper ? ")" : "",
					h->file, h->line);
		}
	}
	if (rc < 0) {
		buf_finish(&b);
		return NULL;
	}
	return buf_steal(&b, NULL);
}

int report_attach_source(struct report_run *run, const struct review *rv, const char *path)
{
	const struct analysis *an = run->analysis;
	if (!rv || !an || !an->n_findings)
		return 0;
	run->source_notes = calloc(an->n_findings, sizeof *run->source_notes);
	if (!run->source_notes)
		return -1;
	for (size_t k = 0; k < an->n_findings; k++) {
		const struct finding *f = &an->findings[k];
		if (!f->activity)
			continue; /* an orphan timer: no activity to look for */
		if (!(run->source_notes[k] = sentence(an, f, rv, path)))
			return -1;
	}
	return 0;
}

const char *report_source_note(const struct report_run *run, const struct finding *f)
{
	if (!run->source_notes || !run->analysis || f < run->analysis->findings ||
	    f >= run->analysis->findings + run->analysis->n_findings)
		return NULL;
	return run->source_notes[f - run->analysis->findings];
}
