#pragma once
/* --web: a console link opened in the user's browser, through $BROWSER and
 * without a shell, so nothing in the link or in $BROWSER is ever read as
 * shell syntax. */

#include "err.h"

/* Starts `browser` ($BROWSER, as the CLI read it) with url. It is a
 * ':'-separated list of commands tried in order (the convention); each is
 * split on blanks into words, a word "%s" is replaced by the url, else the
 * url is added as the last word. The browser's stdout goes to our stderr (stdout is the report's),
 * its stdin is /dev/null. Waits up to wait_ms for it to end, so an opener
 * that hands the link to a running browser (xdg-open) is reaped and its
 * failure seen; one that stays in front is left running. Returns 0 when a
 * command started (and did not fail within wait_ms); -1 with e set
 * (ERR_USAGE) when `browser` is NULL or empty, when no command in it could
 * be run, or when the one that ran failed. Never prints. */
int browser_open(const char *browser, const char *url, long wait_ms, struct err *e);
