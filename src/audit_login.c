/* placeholder until the module lands */
#include "audit.h"

int audit_login(const struct audit_request *rq, struct err *e)
{
	(void)rq;
	return err_set(e, ERR_INTERNAL, "login: not implemented yet");
}

int audit_logout(const struct audit_request *rq, struct err *e)
{
	(void)rq;
	return err_set(e, ERR_INTERNAL, "logout: not implemented yet");
}
