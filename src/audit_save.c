/* Saved histories (include/audit_save.h). */
#include "audit_save.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SAVE_NAME_MAX 200
#define SAVE_NAME_KEEP 150

int audit_save_open_dir(const char *dir, int *fd, struct err *e)
{
	*fd = -1;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return err_set(e, ERR_USAGE, "--save-histories %s: cannot create it: %s", dir, strerror(errno));
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0)
		return err_set(e, ERR_USAGE, "--save-histories %s: %s", dir,
			       errno == ELOOP || errno == ENOTDIR ? "not a folder (or a link to one)"
								  : strerror(errno));
	struct stat st;
	if (fstat(d, &st) < 0) {
		close(d);
		return err_set(e, ERR_USAGE, "--save-histories %s: %s", dir, strerror(errno));
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(d);
		return err_set(
			e, ERR_USAGE,
			"--save-histories %s: the folder has mode %03o%s; histories may hold customer payloads: "
			"use a folder only you can open (chmod 700 %s)",
			dir, (unsigned)(st.st_mode & 0777), st.st_uid != geteuid() ? " and another owner" : "",
			dir);
	}
	*fd = d;
	return 0;
}

/* id escaped into out (what fits of it, always terminated); returns the
 * length the whole escaped id has, so a caller sees it was cut. */
static size_t escape_id(const char *id, char *out, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0, w = 0; /* the escaped length, and the bytes written */
	bool full = size == 0;
	for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
		bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			    *p == '_' || *p == '-' || (*p == '.' && p != (const unsigned char *)id);
		char e[3] = {(char)*p, 0, 0};
		size_t len = 1;
		if (!keep) {
			e[0] = '%';
			e[1] = hex[*p >> 4];
			e[2] = hex[*p & 15];
			len = 3;
		}
		n += len;
		if (full || w + len >= size) {
			full = true; /* nothing after a piece that did not fit */
			continue;
		}
		memcpy(out + w, e, len);
		w += len;
	}
	if (size)
		out[w] = '\0';
	return n;
}

int audit_save_name(const char *app_id, const char *run_id, char *out, size_t size)
{
	char a[3 * 1024], r[3 * 1024];
	size_t na = escape_id(app_id ? app_id : "", a, sizeof a);
	size_t nr = escape_id(run_id ? run_id : "", r, sizeof r);
	/* An empty id is '%' alone, which no escaped id is. */
	int n = snprintf(out, size, "%s+%s.json", na ? a : "%", nr ? r : "%");
	if (n < 0 || (size_t)n >= size || na >= sizeof a || nr >= sizeof r || (size_t)n > SAVE_NAME_MAX) {
		uint64_t h = 1469598103934665603ull; /* FNV-1a of both ids, apart */
		for (const char *s = app_id ? app_id : ""; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
		h = (h ^ 0x100) * 1099511628211ull;
		for (const char *s = run_id ? run_id : ""; *s; s++)
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
		char both[2 * 3 * 1024 + 4];
		snprintf(both, sizeof both, "%s+%s", na ? a : "%", nr ? r : "%");
		/* cut where no %XX is split */
		size_t keep = SAVE_NAME_KEEP;
		for (size_t i = keep >= 2 ? keep - 2 : 0; i < keep; i++)
			if (both[i] == '%')
				keep = i;
		n = snprintf(out, size, "%.*s~%016llx.json", (int)keep, both, (unsigned long long)h);
		if (n < 0 || (size_t)n >= size)
			return -1;
	}
	return 0;
}

/* The one place this tool writes a file of its own: created beside its
 * final name without following links, 0600, then renamed into place, so
 * a reader never sees half a file. (To become the shared file module of
 * the hostile-input issue's file rules when it lands.) */
static int save_file_at(int dir_fd, const char *name, const char *data, size_t len, struct err *e)
{
	char tmp[SAVE_NAME_MAX + 64];
	snprintf(tmp, sizeof tmp, ".%s.%ld.tmp", name, (long)getpid());
	int fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_set(e, ERR_USAGE, "cannot write %s: %s", name, strerror(errno));
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int er = errno;
			close(fd);
			unlinkat(dir_fd, tmp, 0);
			return err_set(e, ERR_USAGE, "cannot write %s: %s", name, strerror(er));
		}
		off += (size_t)w;
	}
	if (fsync(fd) < 0 || close(fd) < 0 || renameat(dir_fd, tmp, dir_fd, name) < 0) {
		int er = errno;
		unlinkat(dir_fd, tmp, 0);
		return err_set(e, ERR_USAGE, "cannot write %s: %s", name, strerror(er));
	}
	return 0;
}

/* Whether the object names a field whose normalised key contains want
 * (as the history's envelope reader matches them: event_decode.c). */
static bool names(json_t *doc, const char *const *keys)
{
	for (; *keys; keys++)
		if (json_object_get(doc, *keys))
			return true;
	return false;
}

int audit_save_history(int dir_fd, const char *app_id, const char *run_id, json_t *doc,
		       enum data_sharing_level level, const struct project_ref *project, struct err *e)
{
	char name[SAVE_NAME_MAX + 32];
	if (audit_save_name(app_id, run_id, name, sizeof name) < 0)
		return err_set(e, ERR_INTERNAL, "no file name for run %s", run_id);
	json_t *out = json_is_object(doc) ? json_copy(doc) : json_incref(doc);
	if (!out)
		return err_oom(e);
	int rc = -1;
	if (json_is_object(out)) {
		/* What `file` reads from the envelope to audit it as this audit
		 * did: the run, the level, the project (a name only: a uid would
		 * be read as a name and make a wrong link). */
		static const char *const app_keys[] = {"appId", "app_id", "appID", NULL};
		static const char *const run_keys[] = {"instanceId", "instance_id", "workflowInstanceId", NULL};
		static const char *const level_keys[] = {"dataSharingLevel", "data_sharing_level", "dataSharing",
							 NULL};
		static const char *const project_keys[] = {"project", "projectName", "project_name", "projectId",
							   NULL};
		if ((app_id && !names(out, app_keys) &&
		     json_object_set_new(out, "appId", json_string(app_id)) < 0) ||
		    (run_id && !names(out, run_keys) &&
		     json_object_set_new(out, "instanceId", json_string(run_id)) < 0) ||
		    (level != SHARING_UNKNOWN && !names(out, level_keys) &&
		     json_object_set_new(out, "dataSharingLevel", json_string(data_sharing_level_name(level))) <
			     0) ||
		    (project && project->form == PROJECT_NAME && project->value && !names(out, project_keys) &&
		     json_object_set_new(out, "project", json_string(project->value)) < 0)) {
			err_oom(e);
			goto out;
		}
	}
	char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	if (!text) {
		err_oom(e);
		goto out;
	}
	size_t len = strlen(text);
	text[len] = '\0';
	rc = save_file_at(dir_fd, name, text, len, e);
	free(text);
out:
	json_decref(out);
	return rc;
}
