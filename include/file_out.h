#pragma once
/* Every file this tool writes (--output today; saved state, baselines and
 * histories later) goes through here, so each is written the same way:
 * private (mode 0600, folders 0700), never through a symbolic link, and
 * whole or not at all (a temporary file in the same folder, synced, then
 * renamed into place), so a reader or a crash never sees half a file and
 * a link planted at the path cannot send the bytes elsewhere. */

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

struct file_out {
	FILE *f;    /* write here */
	char *path; /* where it goes; NULL: f is standard output */
	char *tmp;  /* the temporary file renamed onto path; NULL when written in place */
};

/* Opens path for writing. A regular file (or none) at path is replaced
 * when file_out_commit succeeds; until then path is untouched. A FIFO or a
 * character device (a pipe, /dev/null) is written in place: it cannot be
 * replaced and holds nothing to tear. A symbolic link at path, or any
 * other kind of file, is refused. The folder must exist. Returns 0, or -1
 * with e set (ERR_USAGE, the path and the reason). */
int file_out_open(struct file_out *fo, const char *path, struct err *e);
/* Fills fo for standard output: commit flushes, abandon does nothing. */
void file_out_stdout(struct file_out *fo);
/* Flushes, syncs and closes; renames the temporary file into place.
 * Returns 0, or -1 with e set, the temporary file removed and path
 * untouched. fo is finished either way. */
int file_out_commit(struct file_out *fo, struct err *e);
/* Closes and removes the temporary file: path keeps what it held. Accepts
 * a finished or zeroed fo. */
void file_out_abandon(struct file_out *fo);

/* Creates the folder path, mode 0700, and any missing parent (0700 too);
 * an existing one must be a folder (not a link to one). Returns 0, or -1
 * with e set (ERR_USAGE). */
int file_out_mkdir(const char *path, struct err *e);
