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
	const char *name = NULL; /* the last one named: the run's now */
	bool any_patch = false;
	for (size_t i = 0; i < a->n_versions; i++) {
		const struct run_version *v = &a->versions[i];
		if (v->name && *v->name)
			name = v->name;
		any_patch |= v->patches && *v->patches;
	}
	buf_printf(b, NULL, "version %s", name ? name : "(unnamed)");
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
