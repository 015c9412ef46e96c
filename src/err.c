#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void err_clear(struct err *e)
{
	if (!e)
		return;
	e->code = ERR_NONE;
	e->detail = ERR_DETAIL_NONE;
	e->http_status = 0;
	e->retry_after = -1;
	e->msg[0] = '\0';
}

static void err_vset(struct err *e, enum err_code code, const char *fmt, va_list ap)
{
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	e->code = code;
}

int err_set(struct err *e, enum err_code code, const char *fmt, ...)
{
	if (!e)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, code, fmt, ap);
	va_end(ap);
	return -1;
}

int err_set_final(struct err *e, enum err_code code, const char *fmt, ...)
{
	if (!e)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	err_vset(e, code, fmt, ap);
	va_end(ap);
	e->detail = ERR_DETAIL_FINAL;
	return -1;
}

int err_oom(struct err *e)
{
	return err_set(e, ERR_INTERNAL, "out of memory");
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	if (!e)
		return -1;
	char head[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	char old[ERR_MSG_MAX];
	memcpy(old, e->msg, sizeof old);
	snprintf(e->msg, sizeof e->msg, "%s: %s", head, old);
	return -1;
}
