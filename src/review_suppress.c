/* Suppressions a team can live with: a comment `catalyst-audit: ignore ID
 * reason...` silences one hazard, on its line or the line above it, or on
 * the activity's definition line or the line above that (a comment before
 * a function). What is silenced is moved to rv->suppressed and counted,
 * never dropped. */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "review_internal.h"

#define MARK "catalyst-audit: ignore"

/* Line `line` (from 1) of f: its start and length; false when past the end. */
static bool line_of(const struct rv_file *f, unsigned line, const char **start, size_t *len)
{
	if (line < 1)
		return false;
	const char *p = f->src, *end = f->src + f->len;
	for (unsigned n = 1; n < line; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		p = nl + 1;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*start = p;
	*len = (size_t)((nl ? nl : end) - p);
	return true;
}

/* Whether the line names the hazard: its id or its table row (H1..H5).
 * *reason: the words after it, trimmed, comment closers dropped (malloc'd;
 * NULL when none). */
static bool line_silences(const char *s, size_t len, enum review_hazard_kind kind, char **reason)
{
	*reason = NULL;
	size_t m = strlen(MARK);
	for (size_t i = 0; i + m <= len; i++) {
		if (memcmp(s + i, MARK, m) != 0)
			continue;
		size_t p = i + m;
		while (p < len && (s[p] == ' ' || s[p] == '\t'))
			p++;
		size_t id = p;
		while (p < len && (s[p] == '-' || (s[p] >= 'a' && s[p] <= 'z') || (s[p] >= 'A' && s[p] <= 'Z') ||
				   (s[p] >= '0' && s[p] <= '9')))
			p++;
		size_t n = p - id;
		const char *want = review_hazard_rows[kind].id;
		char row[4] = {'H', (char)('1' + (int)kind), '\0', '\0'};
		bool named = (n == strlen(want) && memcmp(s + id, want, n) == 0) ||
			     (n == 2 && (s[id] == 'H' || s[id] == 'h') && s[id + 1] == row[1]);
		if (!named)
			continue;
		size_t end = len;
		while (p < end && (s[p] == ' ' || s[p] == '\t' || s[p] == ':' || s[p] == '-'))
			p++;
		static const char *const closers[] = {"*/", "-->", "#}"};
		for (size_t c = 0; c < sizeof closers / sizeof *closers; c++) {
			size_t cl = strlen(closers[c]);
			while (end > p && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
				end--;
			if (end - p >= cl && memcmp(s + end - cl, closers[c], cl) == 0)
				end -= cl;
		}
		while (end > p && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
			end--;
		if (end > p) {
			char *raw = strndup(s + p, end - p);
			*reason = raw ? escape_utf8_repair_dup(raw) : NULL;
			free(raw);
		}
		return true;
	}
	return false;
}

/* The file a hazard names: its path as read, or repaired to UTF-8 as the
 * hazard keeps it (the second loop only for such names). */
static const struct rv_file *file_named(const struct rv_ctx *x, const char *shown)
{
	for (size_t i = 0; i < x->n_files; i++)
		if (strcmp(x->files[i].path, shown) == 0)
			return &x->files[i];
	for (size_t i = 0; i < x->n_files; i++) {
		char *p = escape_utf8_repair_dup(x->files[i].path);
		bool same = p && strcmp(p, shown) == 0;
		free(p);
		if (same)
			return &x->files[i];
	}
	return NULL;
}

/* The line of a comment that silences h, 0 when none does. */
static unsigned silenced(const struct rv_ctx *x, const struct review_hazard *h, unsigned def_line, char **reason)
{
	const struct rv_file *f = file_named(x, h->file);
	unsigned lines[4] = {h->line, h->line - 1, def_line, def_line ? def_line - 1 : 0};
	for (size_t i = 0; f && i < 4; i++) {
		const char *s;
		size_t len;
		if (lines[i] && line_of(f, lines[i], &s, &len) && line_silences(s, len, h->kind, reason))
			return lines[i];
	}
	return 0;
}

/* Moves the silenced hazards of one list to rv->suppressed. */
static int sweep(struct rv_ctx *x, struct review_hazard *list, size_t *n, const char *activity, unsigned def_line)
{
	struct review *rv = x->out;
	size_t kept = 0;
	for (size_t i = 0; i < *n; i++) {
		char *reason = NULL;
		unsigned at = silenced(x, &list[i], def_line, &reason);
		if (!at) {
			list[kept++] = list[i];
			continue;
		}
		struct review_suppressed *more = realloc(rv->suppressed, (rv->n_suppressed + 1) * sizeof *more);
		char *who = activity ? strdup(activity) : NULL;
		if (!more || (activity && !who)) {
			free(reason);
			free(who);
			if (more)
				rv->suppressed = more;
			/* what is left stays counted as it was */
			for (size_t k = i; k < *n; k++)
				list[kept++] = list[k];
			*n = kept;
			return err_oom(x->e);
		}
		rv->suppressed = more;
		rv->suppressed[rv->n_suppressed++] = (struct review_suppressed){
			.hazard = list[i], .activity = who, .reason = reason, .comment_line = at};
		rv->n_hazards--;
	}
	*n = kept;
	return 0;
}

int rv_suppress(struct rv_ctx *x)
{
	struct review *rv = x->out;
	for (size_t i = 0; i < rv->n_activities; i++) {
		struct review_activity *a = &rv->activities[i];
		if (sweep(x, a->hazards, &a->n_hazards, a->name, a->defined ? a->line : 0) < 0)
			return -1;
	}
	return sweep(x, rv->orchestrator, &rv->n_orchestrator, NULL, 0);
}
