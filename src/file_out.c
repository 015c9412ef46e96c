/* Files this tool writes: private, never through a link, whole or not at
 * all. */

#include "file_out.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void finish(struct file_out *fo)
{
	free(fo->path);
	free(fo->tmp);
	fo->f = NULL;
	fo->path = fo->tmp = NULL;
}

/* "<folder>/.<name>.XXXXXX": in the same folder, so the rename stays on
 * one file system and is atomic. */
static char *temp_template(const char *path)
{
	char *a = strdup(path), *b = strdup(path), *t = NULL;
	if (a && b && asprintf(&t, "%s/.%s.XXXXXX", dirname(a), basename(b)) < 0)
		t = NULL;
	free(a);
	free(b);
	return t;
}

void file_out_stdout(struct file_out *fo)
{
	*fo = (struct file_out){.f = stdout};
}

int file_out_open(struct file_out *fo, const char *path, struct err *e)
{
	*fo = (struct file_out){0};
	struct stat st;
	int fd = -1;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			return err_set(e, ERR_USAGE,
				       "cannot write %s: it is a symbolic link, and links are not followed; name "
				       "the file itself",
				       path);
		if (S_ISDIR(st.st_mode))
			return err_set(e, ERR_USAGE, "cannot write %s: it is a folder", path);
		if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
			/* A pipe or a device: written in place, as a shell's > would. */
			/* O_NONBLOCK: a FIFO nobody reads fails at once (ENXIO)
			 * instead of holding the tool in open() */
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
			if (fd < 0)
				return err_set(e, ERR_USAGE, "cannot write %s: %s", path,
					       errno == ENXIO ? "a FIFO that no process is reading"
							      : strerror(errno));
			int fl = fcntl(fd, F_GETFL);
			if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
				int saved = errno;
				close(fd);
				return err_set(e, ERR_USAGE, "cannot write %s: %s", path, strerror(saved));
			}
		} else if (!S_ISREG(st.st_mode)) {
			return err_set(e, ERR_USAGE, "cannot write %s: it is not a regular file", path);
		}
	} else if (errno != ENOENT) {
		return err_set(e, ERR_USAGE, "cannot write %s: %s", path, strerror(errno));
	}
	if (!(fo->path = strdup(path)))
		goto oom;
	if (fd < 0) {
		if (!(fo->tmp = temp_template(path)))
			goto oom;
		/* mkostemp creates it O_EXCL (a link there is never followed)
		 * and mode 0600 whatever the umask. */
		fd = mkostemp(fo->tmp, O_CLOEXEC);
		if (fd < 0) {
			err_set(e, ERR_USAGE, "cannot write %s: %s", path, strerror(errno));
			finish(fo);
			return -1;
		}
	}
	if (!(fo->f = fdopen(fd, "w"))) {
		int saved = errno;
		close(fd);
		if (fo->tmp)
			unlink(fo->tmp);
		err_set(e, ERR_USAGE, "cannot write %s: %s", path, strerror(saved));
		finish(fo);
		return -1;
	}
	return 0;
oom:
	if (fd >= 0)
		close(fd);
	finish(fo);
	return err_oom(e);
}

static void sync_folder(const char *path)
{
	char *a = strdup(path);
	if (!a)
		return;
	int fd = open(dirname(a), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(a);
}

int file_out_commit(struct file_out *fo, struct err *e)
{
	if (!fo->f)
		return err_set(e, ERR_INTERNAL, "file_out_commit: nothing open");
	const char *shown = fo->path ? fo->path : "standard output";
	int rc = 0;
	if (fflush(fo->f) != 0 || ferror(fo->f))
		rc = err_set(e, ERR_USAGE, "cannot write %s: %s", shown, strerror(errno ? errno : EIO));
	if (!fo->path) {
		finish(fo);
		return rc;
	}
	if (rc == 0 && fo->tmp && fsync(fileno(fo->f)) < 0)
		rc = err_set(e, ERR_USAGE, "cannot write %s: %s", shown, strerror(errno));
	if (fclose(fo->f) != 0 && rc == 0)
		rc = err_set(e, ERR_USAGE, "cannot write %s: %s", shown, strerror(errno));
	fo->f = NULL;
	if (fo->tmp) {
		if (rc == 0 && rename(fo->tmp, fo->path) < 0)
			rc = err_set(e, ERR_USAGE, "cannot replace %s: %s", shown, strerror(errno));
		if (rc < 0)
			unlink(fo->tmp);
		else
			sync_folder(fo->path);
	}
	finish(fo);
	return rc;
}

void file_out_abandon(struct file_out *fo)
{
	if (fo->f && fo->path)
		fclose(fo->f);
	if (fo->tmp)
		unlink(fo->tmp);
	finish(fo);
}

int file_out_mkdir(const char *path, struct err *e)
{
	char *p = strdup(path);
	if (!p)
		return err_oom(e);
	int rc = 0;
	/* Each missing component in turn, from the top. */
	for (char *s = p + 1; rc == 0; s++) {
		bool last = *s == '\0';
		if (*s != '/' && !last)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			rc = err_set(e, ERR_USAGE, "cannot create %s: %s", p, strerror(errno));
		*s = c;
		if (last)
			break;
	}
	struct stat st;
	if (rc == 0 && lstat(path, &st) < 0)
		rc = err_set(e, ERR_USAGE, "cannot create %s: %s", path, strerror(errno));
	else if (rc == 0 && !S_ISDIR(st.st_mode))
		rc = err_set(e, ERR_USAGE, "cannot use %s: it is %s", path,
			     S_ISLNK(st.st_mode) ? "a symbolic link, and links are not followed" : "not a folder");
	free(p);
	return rc;
}
