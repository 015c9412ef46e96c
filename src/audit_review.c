/* `catalyst-audit review PATH...`: the activity code's hazards, no server
 * needed. Exit status as for findings: every hazard counts at any
 * --fail-on but never. */

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
