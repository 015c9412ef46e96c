/* placeholder until the module lands */
#include "audit.h"

int audit_file(const struct audit_request *rq, struct err *e)
{
	(void)rq;
	return err_set(e, ERR_INTERNAL, "file: not implemented yet");
}
