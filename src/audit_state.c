/* `runs --state FILE`: the checkpoint of a cron job that audits each
 * finished run once — the largest end time audited, and the runs audited
 * at that very time (the next listing starts there, so they come again
 * and are left out). A file that is there but is not such a checkpoint is
 * refused: reset silently, it would have the job audit everything again,
 * or nothing. */

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_catalyst.h"
#include "file_in.h"
#include "file_out.h"

#define STATE_SCHEMA "catalyst-audit.state/v1"
/* A checkpoint holds the runs of one instant: a few ids. */
#define STATE_MAX_BYTES (4u << 20)

void runs_state_finish(struct runs_state *st)
{
	int lock = st->lock_fd;
	free(st->ended_at);
	json_decref(st->runs);
	memset(st, 0, sizeof *st);
	st->lock_fd = -1;
	if (lock >= 0)
		close(lock); /* the lock goes with it */
}

static int damaged(const char *path, const char *why, struct err *e)
{
	return err_set(e, ERR_INPUT,
		       "--state %s: not a checkpoint of catalyst-audit (%s); it is left as it is: move it away to "
		       "audit every finished run again",
		       path, why);
}

/* Two `runs --state` of the same file at once would each read the
 * checkpoint before either wrote it, and audit the same runs twice: the
 * second waits on a lock beside it (PATH.lock, 0600, never through a
 * link) that the first holds from reading the checkpoint to writing it. */
static int take_lock(const char *path, struct runs_state *st, struct err *e)
{
	char *lock = NULL;
	if (asprintf(&lock, "%s.lock", path) < 0)
		return err_oom(e);
	int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0) {
		err_set(e, ERR_USAGE, "--state %s: its lock %s: %s", path, lock,
			errno == ELOOP ? "a symbolic link (refused)" : strerror(errno));
		free(lock);
		return -1;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		err_set(e, ERR_USAGE, "--state %s: its lock %s is not a regular file", path, lock);
		goto fail;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			err_set(e, ERR_USAGE, "--state %s: locking %s: %s", path, lock, strerror(errno));
			goto fail;
		}
		st->waited = true;
		while (flock(fd, LOCK_EX) < 0) {
			if (errno != EINTR) {
				err_set(e, ERR_USAGE, "--state %s: locking %s: %s", path, lock, strerror(errno));
				goto fail;
			}
		}
	}
	free(lock);
	st->lock_fd = fd;
	return 0;
fail:
	close(fd);
	free(lock);
	return -1;
}

int runs_state_load(const char *path, struct runs_state *st, struct err *e)
{
	memset(st, 0, sizeof *st);
	st->lock_fd = -1;
	if (take_lock(path, st, e) < 0)
		return -1;
	/* Never through a symbolic link: the checkpoint is the job's own
	 * file; and it says which runs are not audited again, so it is yours
	 * and writable by nobody else. */
	const struct file_in rules = {.what = "--state",
				      .code = ERR_INPUT,
				      .max = STATE_MAX_BYTES,
				      .own = true,
				      .nofollow = true,
				      .text = true};
	char *text = NULL;
	size_t len = 0;
	int got = file_in_read(path, &rules, &text, &len, e);
	if (got == -2)
		return 0; /* the first run: no checkpoint yet */
	if (got < 0) {
		runs_state_finish(st);
		return -1;
	}
	json_error_t je;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!doc) {
		char why[200];
		snprintf(why, sizeof why, "%s, line %d", je.text, je.line);
		runs_state_finish(st); /* and its lock */
		return damaged(path, why, e);
	}
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	const char *ended = json_string_value(json_object_get(doc, "ended_at"));
	const json_t *runs = json_object_get(doc, "runs");
	time_t t;
	int rc = 0;
	if (!schema || strcmp(schema, STATE_SCHEMA) != 0)
		rc = damaged(path, "no \"schema\": \"" STATE_SCHEMA "\"", e);
	else if (!ended || catalyst_time_parse(ended, &t) < 0)
		rc = damaged(path, "\"ended_at\" is not an RFC 3339 time", e);
	else if (!json_is_array(runs))
		rc = damaged(path, "\"runs\" is not a list", e);
	/* ended is set when rc is 0; tested for the analyzer, which cannot see
	 * that damaged() returns -1. */
	if (rc == 0 && ended && (!(st->runs = json_object()) || !(st->ended_at = strdup(ended))))
		rc = err_oom(e);
	size_t i;
	const json_t *k;
	json_array_foreach(runs, i, k) {
		if (rc < 0)
			break;
		if (!json_is_string(k))
			rc = damaged(path, "a run key that is not a string", e);
		else if (json_object_set_new(st->runs, json_string_value(k), json_true()) < 0)
			rc = err_oom(e);
	}
	json_decref(doc);
	if (rc < 0)
		runs_state_finish(st);
	return rc;
}

/* Through file_out, as every file this tool writes: 0600, never through a
 * symbolic link, whole or not at all, so a crash leaves the old checkpoint
 * or the new one, never half of one. */
static int write_state(const char *path, const char *text, struct err *e)
{
	struct file_out fo;
	if (file_out_open(&fo, path, e) < 0) {
		err_prefix(e, "--state");
		return -1;
	}
	if (fputs(text, fo.f) == EOF) {
		file_out_abandon(&fo);
		return err_set(e, ERR_USAGE, "--state %s: cannot write it: %s", path, strerror(errno));
	}
	if (file_out_commit(&fo, e) < 0) {
		err_prefix(e, "--state");
		return -1;
	}
	return 0;
}

int runs_state_save(const char *path, const char *ended_at, const json_t *runs, struct err *e)
{
	json_t *keys = json_array();
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)runs, k, v)
		json_array_append_new(keys, json_string(k));
	json_t *doc = json_pack("{s:s, s:s, s:o}", "schema", STATE_SCHEMA, "ended_at", ended_at, "runs", keys);
	char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(doc);
	if (!text)
		return err_oom(e);
	size_t n = strlen(text);
	char *line = realloc(text, n + 2);
	if (!line) {
		free(text);
		return err_oom(e);
	}
	memcpy(line + n, "\n", 2);
	int rc = write_state(path, line, e);
	free(line);
	return rc;
}
