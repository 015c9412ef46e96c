#pragma once
/* `run`/`runs --save-histories DIR`: each fetched catalyst_get_workflow_run
 * answer written as it was analysed, so that `file DIR` reproduces the
 * audit offline. The evidence travels with the report. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "data_sharing.h"
#include "err.h"
#include "project.h"

/* The folder: created 0700 when missing; an existing one must be a folder
 * of ours (not a link) that others cannot read or write, since at `full`
 * the files hold customer payloads. Its descriptor in *fd. */
int audit_save_open_dir(const char *dir, int *fd, struct err *e);

/* The file name for app_id/run_id: "<app>+<run>.json", each id with every
 * byte but [A-Za-z0-9_-] and a '.' that does not start it written %XX, so
 * no id ("../", "/", a leading '.') can name anything outside the folder
 * and two runs never share a name; an escaped name over 200 bytes keeps
 * its first 150 and a hash of both ids. */
int audit_save_name(const char *app_id, const char *run_id, char *out, size_t size);

/* Writes the run document doc (the answer's object, as analysed) with the
 * level the audit read it at and the project it came from added to its
 * envelope where the answer did not name them, mode 0600, atomically. */
int audit_save_history(int dir_fd, const char *app_id, const char *run_id, json_t *doc,
		       enum data_sharing_level level, const struct project_ref *project, struct err *e);
