#pragma once
/* Every file this tool reads goes through here (state, baseline, config,
 * token files, --cacert, --source and review trees, saved reports, `file`
 * inputs), so each is opened the same safe way: without blocking (a FIFO
 * nobody writes to does not hold the tool in open()), refused with a clear
 * error when it is not a regular file (a folder, a FIFO, a device, a
 * socket; a symbolic link is followed to what it names, and judged by
 * that), bounded in size, read whole or not at all (a file that grows or
 * shrinks while it is read is an error, never a short read taken for the
 * whole), and, where a file can carry trust or silence findings, yours (or
 * root's) and writable by nobody else. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "err.h"

struct file_in {
	const char *what;   /* names the file in messages: "--state", "config file" */
	enum err_code code; /* the status of a refusal (ERR_USAGE, ERR_INPUT) */
	size_t max;         /* bytes at most; a larger file is refused (0: no bound of its own) */
	bool own;           /* carries trust: owned by you or root, not writable by group or others */
	bool stream;        /* a pipe, a device or a socket is read as a stream, not refused */
	bool dev_null;      /* /dev/null is accepted, and reads as empty */
	bool nofollow;      /* a symbolic link at the path is refused, not followed */
	bool text;          /* a NUL byte ends the read at once: no text holds one (/dev/zero) */
	bool secret;        /* it holds a secret: no buffer is freed or left behind unwiped */
	/* Each piece read, bytes [from, len) of data, is given here first, so
	 * that what the first bytes already refuse stops the read there (-1,
	 * e set). NULL: none. */
	int (*check)(const char *data, size_t from, size_t len, void *ctx, struct err *e);
	void *check_ctx;
};

/* Opens path for reading by r's rules, without blocking, close-on-exec;
 * the descriptor is in blocking mode when returned. *st is what it is.
 * Returns the descriptor, -2 when the file does not exist (e untouched: a
 * missing optional file is the caller's to judge), or -1 with e set. */
int file_in_open(const char *path, const struct file_in *r, struct stat *st, struct err *e);

/* Reads fd (from file_in_open, st its stat) whole into a NUL-terminated
 * malloc'd *data of *len bytes: at most r->max bytes (more is an error
 * that says the bound), and a regular file must hold at the end what it
 * held at the start. Returns 0, or -1 with e set. */
int file_in_read_fd(int fd, const char *path, const struct file_in *r, const struct stat *st, char **data,
		    size_t *len, struct err *e);

/* file_in_open and file_in_read_fd in one: returns 0, -2 when path does not
 * exist, or -1. */
int file_in_read(const char *path, const struct file_in *r, char **data, size_t *len, struct err *e);

/* What kind of file st is, in words ("a folder", "a FIFO (named pipe)",
 * "a character device"...). */
const char *file_in_kind(const struct stat *st);

/* Whether st is yours (or root's) and writable by no one else; when not,
 * e says which and what to run. */
int file_in_check_own(const char *path, const struct file_in *r, const struct stat *st, struct err *e);
