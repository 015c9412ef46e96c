/* `catalyst-audit review PATH...`: the activity code's hazards, no server
 * needed. Exit status as for findings: every hazard counts at any
 * --fail-on but never. */

#include <stdlib.h>

#include "audit.h"
#include "render_info.h"
#include "review.h"

int audit_review(const struct audit_request *rq, struct err *e)
{
	struct review rv;
	review_init(&rv);
	int rc = -1;
	if (review_paths(&rv, rq->files, rq->n_files, e) < 0)
		goto out;
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (!out)
		goto out;
	rc = audit_close_plain(&fo, render_review(out, rq->format, &rv, e), e);
	if (rc == 0 && rv.n_hazards && rq->fail_on != FAIL_ON_NEVER)
		rc = ERR_FINDINGS;
out:
	review_finish(&rv);
	return rc;
}

struct review *audit_load_source(const struct audit_request *rq, struct err *e)
{
	struct review *rv = malloc(sizeof *rv);
	if (!rv) {
		err_oom(e);
		return NULL;
	}
	review_init(rv);
	const char *paths[] = {rq->source};
	if (review_paths(rv, paths, 1, e) < 0) {
		audit_free_source(rv);
		return NULL;
	}
	return rv;
}

void audit_free_source(struct review *rv)
{
	review_finish(rv);
	free(rv);
}
