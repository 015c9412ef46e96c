#pragma once
/* A report taller than the screen, shown through a pager as git does
 * (issue 19): the command the CLI chose (CATALYST_PAGER, else PAGER, else
 * less) run by /bin/sh -c with the report on its standard input. */

#include <stddef.h>

#include "err.h"

/* Writes data (len bytes) to `pager` (a shell command); LESS=FRX and
 * LV=-c unless already set, as git sets them, so less quits on a screen's
 * worth, keeps colours and leaves the text on screen. A pager the shell
 * cannot start (status 126/127) reads nothing: data goes to stdout
 * instead. The reader quitting early is no error. -1 with e set only when
 * neither could be written. Never prints anything else. */
int pager_write(const char *pager, const char *data, size_t len, struct err *e);
