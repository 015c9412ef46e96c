/* placeholder until the module lands */
#include "audit.h"

int audit_run(const struct audit_request *rq, struct err *e)
{
	(void)rq;
	return err_set(e, ERR_INTERNAL, "run: not implemented yet");
}

int audit_runs(const struct audit_request *rq, struct err *e)
{
	(void)rq;
	return err_set(e, ERR_INTERNAL, "runs: not implemented yet");
}

int audit_link(const struct audit_request *rq, struct err *e)
{
	(void)rq;
	return err_set(e, ERR_INTERNAL, "link: not implemented yet");
}

int audit_whoami(const struct audit_request *rq, struct err *e)
{
	(void)rq;
	return err_set(e, ERR_INTERNAL, "whoami: not implemented yet");
}
