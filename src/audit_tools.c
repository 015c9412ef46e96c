/* placeholder until the module lands */
#include "audit.h"

int audit_tools(const struct audit_request *rq, struct err *e)
{
	(void)rq;
	return err_set(e, ERR_INTERNAL, "tools: not implemented yet");
}
