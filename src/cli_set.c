/* The setters an option's row names (cli_options.h): each parses one
 * value into the field the row points at. Messages start with the label,
 * which says where the value came from: "--timeout", "CATALYST_PROJECT",
 * "/home/u/.config/catalyst-audit/config:3: timeout". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "http_easy.h"
#include "project.h"

/* Choices are written as int: every enum a row names is int-sized. */
_Static_assert(sizeof(enum color_mode) == sizeof(int) && sizeof(enum fail_on) == sizeof(int) &&
		       sizeof(enum data_sharing_level) == sizeof(int),
	       "choice enums are int-sized");

int cli_set_string(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		   struct err *e)
{
	*(const char **)field = value;
	return 0;
}

/* A repeatable filter: each value is one more that a run may match. */
int cli_set_values(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		   struct err *e)
{
	struct audit_values *vs = field;
	if (vs->n == AUDIT_MAX_FILTER_VALUES)
		return err_set(e, ERR_USAGE, "%s: given more than %d times", at->label, AUDIT_MAX_FILTER_VALUES);
	vs->v[vs->n++] = value;
	return 0;
}

int cli_set_server(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		   struct err *e)
{
	if (http_easy_check_url(value, at->label, e) < 0)
		return -1;
	*(const char **)field = value;
	return 0;
}

int cli_set_flag(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		 struct err *e)
{
	*(bool *)field = true;
	return 0;
}

/* A flag that sets an int-sized enum to the row's .min (--no-color). */
int cli_set_int_const(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		      struct err *e)
{
	*(int *)field = (int)o->min;
	return 0;
}

static int parse_long(const struct cli_option *o, const char *s, const struct cli_at *at, long *out, struct err *e)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < o->min || v > o->max)
		return err_set(e, ERR_USAGE, "%s: expected a whole number from %ld to %ld, got '%s'", at->label,
			       o->min, o->max, s);
	*out = v;
	return 0;
}

int cli_set_long(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		 struct err *e)
{
	return parse_long(o, value, at, field, e);
}

/* "90", "90s", "10m", "2h", "1d": seconds, in [min, max]. */
int cli_set_duration(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		     struct err *e)
{
	char *end;
	errno = 0;
	long v = strtol(value, &end, 10);
	long unit = !*end                   ? 1
		    : strcmp(end, "s") == 0 ? 1
		    : strcmp(end, "m") == 0 ? 60
		    : strcmp(end, "h") == 0 ? 3600
		    : strcmp(end, "d") == 0 ? 86400
					    : 0;
	if (errno || end == value || !unit || v < 0 || v > o->max / unit || v * unit < o->min)
		return err_set(e, ERR_USAGE,
			       "%s: expected a duration (90s, 10m, 2h, 1d) from %lds to %lds, got '%s'", at->label,
			       o->min, o->max, value);
	*(long *)field = v * unit;
	return 0;
}

int cli_set_int(const struct cli_option *o, void *field, const char *value, const struct cli_at *at, struct err *e)
{
	long v = 0; /* set by parse_long; zeroed for the analyzer */
	if (parse_long(o, value, at, &v, e) < 0)
		return -1;
	*(int *)field = (int)v;
	return 0;
}

int cli_set_size(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		 struct err *e)
{
	long v = 0; /* set by parse_long; zeroed for the analyzer */
	if (parse_long(o, value, at, &v, e) < 0)
		return -1;
	*(size_t *)field = (size_t)v;
	return 0;
}

void cli_choice_list(const struct cli_choice *choices, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const struct cli_choice *c = choices; c->name; c++) {
		int w = snprintf(buf + used, size - used, "%s%s", used ? "|" : "", c->name);
		if (w < 0 || (size_t)w >= size - used)
			break;
		used += (size_t)w;
	}
}

int cli_set_choice(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		   struct err *e)
{
	for (const struct cli_choice *c = o->choices; c->name; c++) {
		if (strcmp(value, c->name) == 0) {
			*(int *)field = c->value;
			return 0;
		}
	}
	char list[256];
	cli_choice_list(o->choices, list, sizeof list);
	return err_set(e, ERR_USAGE, "%s: expected %s, got '%s'", at->label, list, value);
}

/* -o/--output, --format, --json; the config file's `format`. Which format the
 * command line asked for, and by which spelling, is kept apart: two
 * different ones there are a mistake, and a command that does not write
 * it says so (cli.c). */
int cli_set_format(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		   struct err *e)
{
	const struct render_format_row *f = render_format_by_name(value);
	if (!f) {
		char list[256];
		render_format_list(RENDER_FORMATS_ALL, list, sizeof list);
		/* `--output report.json` on the command line meant a file, as it once did. */
		if (at->level == LEVEL_LINE)
			return err_set(e, ERR_USAGE,
				       "%s: expected %s, got '%s' (a file is written with --output-file %.200s)",
				       at->label, list, value, value);
		return err_set(e, ERR_USAGE, "%s: expected %s, got '%s'", at->label, list, value);
	}
	struct cli_values *v = at->v;
	if (at->level == LEVEL_LINE) {
		if (v->line_format_set && v->line_format != f->format)
			return err_set(e, ERR_USAGE, "%s and %s ask for two different formats: give one",
				       v->line_format_label, at->label);
		v->line_format_set = true;
		v->line_format = f->format;
		snprintf(v->line_format_label, sizeof v->line_format_label, "%s", at->label);
	}
	*(enum render_format *)field = f->format;
	v->rq.format_given = true;
	return 0;
}

/* --verbose-report (--full) and --findings-only: one view of the report;
 * --all-runs widens the short one and cannot go with --findings-only. */
int cli_set_view(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		 struct err *e)
{
	struct audit_request *rq = &at->v->rq;
	enum report_view want = strcmp(value, "findings") == 0 ? REPORT_FINDINGS : REPORT_FULL;
	if (rq->render.view != REPORT_SHORT && rq->render.view != want)
		return err_set(e, ERR_USAGE, "--verbose-report and --findings-only ask for two views: give one");
	if (want == REPORT_FINDINGS && rq->render.all_runs)
		return err_set(e, ERR_USAGE, "--all-runs and --findings-only ask for two views: give one");
	*(enum report_view *)field = want;
	return 0;
}

int cli_set_all_runs(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		     struct err *e)
{
	if (at->v->rq.render.view == REPORT_FINDINGS)
		return err_set(e, ERR_USAGE, "--all-runs and --findings-only ask for two views: give one");
	*(bool *)field = true;
	return 0;
}

/* The project is kept per level: the highest level that names one
 * decides, and both kinds at one level are a mistake (cli.c). */
static void set_level(void *field, const char *value, const struct cli_at *at)
{
	struct cli_level_value *lv = &((struct cli_level_value *)field)[at->level];
	lv->value = value;
	snprintf(lv->label, sizeof lv->label, "%s", at->label);
}

int cli_set_project(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		    struct err *e)
{
	if (!*value)
		return err_set(e, ERR_USAGE, "%s: the project name is empty", at->label);
	set_level(field, value, at);
	return 0;
}

int cli_set_project_id(const struct cli_option *o, void *field, const char *value, const struct cli_at *at,
		       struct err *e)
{
	if (!project_is_uid(value))
		return err_set(e, ERR_USAGE, "%s: expected a numeric project uid (165 or prj-165), got '%s'",
			       at->label, value);
	set_level(field, value, at);
	return 0;
}
