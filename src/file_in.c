/* The one way this tool opens a file to read (file_in.h). */
#include "file_in.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *file_in_kind(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return "a regular file";
	if (S_ISDIR(st->st_mode))
		return "a folder";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO (named pipe)";
	if (S_ISCHR(st->st_mode))
		return "a character device";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return "not a regular file";
}

static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

int file_in_check_own(const char *path, const struct file_in *r, const struct stat *st, struct err *e)
{
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return err_set(e, r->code,
			       "%s %s is owned by user %u, not by you: not read; use a file of your own", r->what,
			       path, (unsigned)st->st_uid);
	if (st->st_mode & 022)
		return err_set(e, r->code,
			       "%s %s can be written by other users (mode %04o): not read; run `chmod go-w %s`",
			       r->what, path, (unsigned)(st->st_mode & 07777), path);
	return 0;
}

int file_in_open(const char *path, const struct file_in *r, struct stat *st, struct err *e)
{
	/* O_NONBLOCK: opening a FIFO for reading waits for a writer without it */
	memset(st, 0, sizeof *st); /* defined on every return, for the analyzer too */
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (r->nofollow ? O_NOFOLLOW : 0);
	int fd = open(path, flags);
	if (fd < 0) {
		if (errno == ENOENT)
			return -2;
		if (errno == ELOOP && r->nofollow)
			return err_set(e, r->code, "%s %s: a symbolic link (refused)", r->what, path);
		return err_set(e, r->code, "%s %s: %s", r->what, path, strerror(errno));
	}
	if (fstat(fd, st) < 0) {
		err_set(e, r->code, "%s %s: %s", r->what, path, strerror(errno));
		goto fail;
	}
	bool regular = S_ISREG(st->st_mode);
	bool null = r->dev_null && is_dev_null(st);
	bool stream = r->stream && (S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode) || S_ISSOCK(st->st_mode));
	if (!regular && !null && !stream) {
		err_set(e, r->code, "%s %s is %s, not a regular file: not read", r->what, path, file_in_kind(st));
		goto fail;
	}
	if (regular && r->max && (uintmax_t)st->st_size > r->max) {
		err_set(e, r->code, "%s %s is %jd bytes, over the %zu this tool reads: not read", r->what, path,
			(intmax_t)st->st_size, r->max);
		goto fail;
	}
	if (r->own && (regular || stream) && file_in_check_own(path, r, st, e) < 0)
		goto fail;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		err_set(e, r->code, "%s %s: %s", r->what, path, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* Frees buf (cap bytes), wiped first when it holds a secret. */
static void drop(const struct file_in *r, char *buf, size_t cap)
{
	if (buf && r->secret)
		explicit_bzero(buf, cap);
	free(buf);
}

int file_in_read_fd(int fd, const char *path, const struct file_in *r, const struct stat *st, char **data,
		    size_t *len, struct err *e)
{
	*data = NULL;
	*len = 0;
	size_t max = r->max ? r->max : (size_t)1 << 30;
	size_t cap = S_ISREG(st->st_mode) ? (size_t)st->st_size + 1 : 4096;
	if (cap > max + 1)
		cap = max + 1;
	char *buf = malloc(cap + 1);
	if (!buf)
		return err_oom(e);
	size_t n = 0;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				drop(r, buf, cap + 1);
				return err_set(e, r->code, "%s %s: over the %zu bytes this tool reads%s", r->what,
					       path, max,
					       S_ISREG(st->st_mode) ? " (it grew while it was read)" : "");
			}
			size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			/* realloc would leave a secret's old copy behind */
			char *nb = r->secret ? malloc(ncap + 1) : realloc(buf, ncap + 1);
			if (!nb) {
				drop(r, buf, cap + 1);
				return err_oom(e);
			}
			if (r->secret) {
				memcpy(nb, buf, n);
				drop(r, buf, cap + 1);
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;
			drop(r, buf, cap + 1);
			return err_set(e, r->code, "%s %s: reading at byte %zu: %s", r->what, path, n,
				       strerror(err));
		}
		if (got == 0)
			break;
		const char *nul = r->text ? memchr(buf + n, '\0', (size_t)got) : NULL;
		if (nul) {
			size_t at = (size_t)(nul - buf);
			drop(r, buf, cap + 1);
			return err_set(e, r->code, "%s %s: byte %zu is a NUL, which no text holds: not read",
				       r->what, path, at + 1);
		}
		n += (size_t)got;
		if (r->check && r->check(buf, n - (size_t)got, n, r->check_ctx, e) < 0) {
			drop(r, buf, cap + 1);
			return -1;
		}
	}
	if (S_ISREG(st->st_mode) && n != (size_t)st->st_size) {
		drop(r, buf, cap + 1);
		return err_set(e, r->code, "%s %s changed while it was read (%jd bytes, then %zu): not read",
			       r->what, path, (intmax_t)st->st_size, n);
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

int file_in_read(const char *path, const struct file_in *r, char **data, size_t *len, struct err *e)
{
	struct stat st;
	int fd = file_in_open(path, r, &st, e);
	if (fd < 0)
		return fd;
	int rc = file_in_read_fd(fd, path, r, &st, data, len, e);
	close(fd);
	return rc;
}
