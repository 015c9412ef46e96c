#pragma once
/* Console links (doc/PRODUCT.md rule 3): exact or absent. A run link is
 * <console>/workflows/<appId>/<runId>[?project=<name>|?projectId=<uid>],
 * path segments percent-encoded. */

#include "err.h"
#include "project.h"

/* The run link, malloc'd. A project that is none or whose form is unknown
 * gives a link with no project parameter (the caller says why). Returns
 * NULL with e set when no trustworthy link exists: app id or run id unknown
 * or empty (ERR_INPUT), a console that is not an http(s) URL without query
 * or fragment (ERR_USAGE). console NULL means https://catalyst.diagrid.io;
 * trailing slashes are dropped. A child run is linked the same way: its
 * instance id ("order-7740:0002") is a run id whose ':' is encoded. */
char *console_link_run(const char *console, const struct project_ref *p, const char *app_id, const char *run_id,
		       struct err *e);
