#pragma once
/* The one way this tool opens an address in the user's browser, for
 * `login` (the sign-in address) and `--web` (a console link): $BROWSER
 * run without a shell, then xdg-open. The browser gets nothing of ours:
 * no descriptor but its standard ones, no CATALYST_* variable. */

#include "err.h"

/* Starts the browser with url. `browser` is $BROWSER as the CLI read it: a
 * ':'-separated list of commands tried in order (the convention); each is
 * split on blanks into words, a word "%s" is replaced by the url, else the
 * url is added as the last word; no shell reads any of it. After them (or
 * when `browser` is NULL or empty) xdg-open is tried. The child's stdin is
 * /dev/null and its stdout our stderr (stdout is the report's); every
 * other descriptor is closed on exec, and its environment is ours without
 * the CATALYST_* variables (CATALYST_TOKEN among them). Waits up to wait_ms
 * for it to end, so an opener that hands the address to a running browser
 * (xdg-open) is reaped and its failure seen; one that stays in front is
 * left running. Returns 0 when a command started (and did not fail within
 * wait_ms); -1 with e set (ERR_USAGE) when none could be run or the one
 * that ran failed. Never prints. */
int browser_open(const char *browser, const char *url, long wait_ms, struct err *e);
