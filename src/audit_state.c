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
#include <sys/stat.h>
#include <unistd.h>

#include "audit_catalyst.h"
#include "file_out.h"

#define STATE_SCHEMA "catalyst-audit.state/v1"
/* A checkpoint holds the runs of one instant: a few ids. */
#define STATE_MAX_BYTES (4u << 20)

void runs_state_finish(struct runs_state *st)
{
	free(st->ended_at);
	json_decref(st->runs);
	memset(st, 0, sizeof *st);
}

static int damaged(const char *path, const char *why, struct err *e)
{
	return err_set(e, ERR_INPUT,
		       "--state %s: not a checkpoint of catalyst-audit (%s); it is left as it is: move it away to "
		       "audit every finished run again",
		       path, why);
}

int runs_state_load(const char *path, struct runs_state *st, struct err *e)
{
	memset(st, 0, sizeof *st);
	/* Never through a symbolic link: the checkpoint is the job's own file. */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0; /* the first run: no checkpoint yet */
	if (fd < 0)
		return err_set(e, errno == ELOOP ? ERR_INPUT : ERR_USAGE, "--state %s: %s", path,
			       errno == ELOOP ? "a symbolic link (refused)" : strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size > (off_t)STATE_MAX_BYTES) {
		close(fd);
		return damaged(path, "not a regular file of at most 4 MiB", e);
	}
	json_error_t je;
	json_t *doc = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
	close(fd);
	if (!doc) {
		char why[200];
		snprintf(why, sizeof why, "%s, line %d", je.text, je.line);
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
