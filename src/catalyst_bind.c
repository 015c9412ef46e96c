/* The pure half of the Catalyst tool layer: binding logical arguments to
 * the property names a tool's inputSchema happens to use, and reading
 * values out of answers whose shape is undocumented. */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "catalyst.h"
#include "data_sharing.h"

static const char *const allowed_tools[] = {
	"catalyst_whoami",           "catalyst_list_projects",       "catalyst_get_project",
	"catalyst_list_workflows",   "catalyst_get_workflow",        "catalyst_list_workflow_runs",
	"catalyst_get_workflow_run", "catalyst_export_workflow_run", "catalyst_list_apps",
};

bool catalyst_tool_allowed(const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof allowed_tools / sizeof *allowed_tools; i++)
		if (strcmp(name, allowed_tools[i]) == 0)
			return true;
	return false;
}

/* Known spellings, already normalised (lower case, no separators), in
 * order of preference. Names seen in Diagrid's material come first. */
static const char *const spell_project[] = {"projectid", "project", "projectname", "projectuid", NULL};
static const char *const spell_app[] = {"appid",       "app",       "appname", "applicationid",
					"application", "daprappid", NULL};
static const char *const spell_run[] = {"instanceid", "runid", "workflowrunid", "workflowinstanceid",
					"workflowrun", "instance", "run", "id",
					/* a run list's filter by instance id */
					"instanceids", "runids", "workflowinstanceids", "workflowrunids",
					"instanceidfilter", "runidfilter", NULL};
static const char *const spell_status[] = {"status", "runtimestatus", "runstatus",       "workflowstatus",
					   "state",  "statuses",      "runtimestatuses", NULL};
static const char *const spell_since[] = {"starttimefrom",
					  "starttimeafter",
					  "starttimestart",
					  "startedafter",
					  "startedfrom",
					  "startfrom",
					  "startafter",
					  "createdafter",
					  "createdfrom",
					  "createdtimefrom",
					  "createdsince",
					  "since",
					  "from",
					  "after",
					  "fromtime",
					  "timefrom",
					  NULL};
static const char *const spell_until[] = {"starttimeto", "starttimebefore", "starttimeend", "startedbefore",
					  "startedto",   "startto",         "startbefore",  "createdbefore",
					  "createdto",   "createdtimeto",   "until",        "to",
					  "before",      "totime",          "timeto",       NULL};
static const char *const spell_workflow[] = {"workflowname", "workflow",   "workflowtype",
					     "name",         "workflowid", NULL};
static const char *const spell_page_size[] = {"pagesize", "limit", "maxresults", "max", "pagelimit", "perpage",
					      "maxitems", "size",  "count",      "top", "first",     NULL};
static const char *const spell_cursor[] = {"cursor",    "pagetoken",     "nextcursor",   "continuationtoken",
					   "nexttoken", "nextpagetoken", "continuation", "pagecursor",
					   NULL};

static const char *const spell_ended_since[] = {"endtimefrom",    "endtimeafter",  "endedafter",
						"endedsince",     "endedfrom",     "completedafter",
						"completedsince", "completedfrom", "completedtimefrom",
						"finishedafter",  "finishedsince", NULL};

static const char *const *const spellings[CATALYST_ARG_COUNT] = {
	[CATALYST_ARG_ENDED_SINCE] = spell_ended_since,
	[CATALYST_ARG_PROJECT] = spell_project,
	[CATALYST_ARG_APP] = spell_app,
	[CATALYST_ARG_RUN] = spell_run,
	[CATALYST_ARG_STATUS] = spell_status,
	[CATALYST_ARG_SINCE] = spell_since,
	[CATALYST_ARG_UNTIL] = spell_until,
	[CATALYST_ARG_WORKFLOW] = spell_workflow,
	[CATALYST_ARG_PAGE_SIZE] = spell_page_size,
	[CATALYST_ARG_CURSOR] = spell_cursor,
};

static const char *const labels[CATALYST_ARG_COUNT] = {
	[CATALYST_ARG_PROJECT] = "the project",
	[CATALYST_ARG_APP] = "the app id",
	[CATALYST_ARG_RUN] = "the run id",
	[CATALYST_ARG_STATUS] = "the status filter",
	[CATALYST_ARG_SINCE] = "the start of the time window",
	[CATALYST_ARG_UNTIL] = "the end of the time window",
	[CATALYST_ARG_WORKFLOW] = "the workflow name",
	[CATALYST_ARG_PAGE_SIZE] = "the page size",
	[CATALYST_ARG_CURSOR] = "the page cursor",
	[CATALYST_ARG_ENDED_SINCE] = "the start of the end-time window",
};

const char *catalyst_arg_label(enum catalyst_arg a)
{
	return a < CATALYST_ARG_COUNT ? labels[a] : "?";
}

static bool is_separator(char c)
{
	return c == '_' || c == '-' || c == '.' || c == ' ';
}

bool catalyst_key_match(const char *key, const char *spelling)
{
	const char *a = key, *b = spelling;
	for (;;) {
		while (*a && is_separator(*a))
			a++;
		while (*b && is_separator(*b))
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
		a++, b++;
	}
}

static enum catalyst_prop_type type_of_name(const char *t)
{
	if (!t)
		return CATALYST_PROP_ANY;
	if (strcmp(t, "string") == 0)
		return CATALYST_PROP_STRING;
	if (strcmp(t, "integer") == 0)
		return CATALYST_PROP_INTEGER;
	if (strcmp(t, "number") == 0)
		return CATALYST_PROP_NUMBER;
	if (strcmp(t, "array") == 0)
		return CATALYST_PROP_ARRAY;
	if (strcmp(t, "boolean") == 0)
		return CATALYST_PROP_BOOLEAN;
	if (strcmp(t, "object") == 0)
		return CATALYST_PROP_OBJECT;
	return CATALYST_PROP_ANY;
}

/* "string", ["string", "null"], or an anyOf of such. */
static enum catalyst_prop_type schema_type(const json_t *schema)
{
	const json_t *t = json_object_get(schema, "type");
	if (json_is_string(t))
		return type_of_name(json_string_value(t));
	if (json_is_array(t)) {
		size_t i;
		const json_t *v;
		json_array_foreach(t, i, v)
			if (json_is_string(v) && strcmp(json_string_value(v), "null") != 0)
				return type_of_name(json_string_value(v));
	}
	const json_t *alts = json_object_get(schema, "anyOf");
	if (!alts)
		alts = json_object_get(schema, "oneOf");
	if (json_is_array(alts)) {
		size_t i;
		const json_t *v;
		json_array_foreach(alts, i, v) {
			enum catalyst_prop_type pt = schema_type(v);
			if (pt != CATALYST_PROP_ANY &&
			    !(json_is_string(json_object_get(v, "type")) &&
			      strcmp(json_string_value(json_object_get(v, "type")), "null") == 0))
				return pt;
		}
	}
	if (json_is_array(json_object_get(schema, "enum"))) {
		const json_t *first = json_array_get(json_object_get(schema, "enum"), 0);
		if (json_is_string(first))
			return CATALYST_PROP_STRING;
		if (json_is_integer(first))
			return CATALYST_PROP_INTEGER;
	}
	return CATALYST_PROP_ANY;
}

static bool is_textual(enum catalyst_prop_type t)
{
	return t == CATALYST_PROP_STRING || t == CATALYST_PROP_ANY;
}

/* Whether a property of this type (and item type) can carry the argument. */
static bool type_fits(enum catalyst_arg a, enum catalyst_prop_type t, enum catalyst_prop_type item)
{
	switch (a) {
	case CATALYST_ARG_PAGE_SIZE:
		return t == CATALYST_PROP_INTEGER || t == CATALYST_PROP_NUMBER || is_textual(t);
	case CATALYST_ARG_PROJECT:
		return is_textual(t) || t == CATALYST_PROP_INTEGER;
	case CATALYST_ARG_STATUS:
	case CATALYST_ARG_APP:
	case CATALYST_ARG_WORKFLOW:
	case CATALYST_ARG_RUN: /* a list's filter may take several ids: we give one */
		return is_textual(t) || (t == CATALYST_PROP_ARRAY && is_textual(item));
	default:
		return is_textual(t);
	}
}

void catalyst_binding_init(struct catalyst_binding *b, const char *tool, const json_t *input_schema)
{
	memset(b, 0, sizeof *b);
	b->tool = strdup(tool ? tool : "?");
	const json_t *props = json_object_get(input_schema, "properties");
	struct buf names;
	buf_init(&names, 0);
	const char *key;
	const json_t *v;
	bool used_any = false;
	json_object_foreach((json_t *)props, key, v) {
		if (names.len)
			buf_append(&names, ", ", 2, NULL);
		buf_append(&names, key, strlen(key), NULL);
		used_any = true;
	}
	b->props = used_any ? buf_steal(&names, NULL) : strdup("");
	buf_finish(&names);
	if (!json_is_object(props))
		return;

	for (int a = 0; a < CATALYST_ARG_COUNT; a++) {
		for (const char *const *sp = spellings[a]; *sp && !b->prop[a]; sp++) {
			json_object_foreach((json_t *)props, key, v) {
				if (!catalyst_key_match(key, *sp))
					continue;
				/* One property serves one logical argument. */
				bool taken = false;
				for (int o = 0; o < CATALYST_ARG_COUNT; o++)
					if (b->prop[o] && strcmp(b->prop[o], key) == 0)
						taken = true;
				if (taken)
					continue;
				enum catalyst_prop_type t = schema_type(v);
				const json_t *items = json_object_get(v, "items");
				enum catalyst_prop_type it = schema_type(items);
				if (!type_fits((enum catalyst_arg)a, t, it))
					continue;
				b->prop[a] = strdup(key);
				b->type[a] = t;
				b->item_type[a] = it;
				const json_t *en = json_object_get(t == CATALYST_PROP_ARRAY ? items : v, "enum");
				if (json_is_array(en))
					b->enum_values[a] = json_incref((json_t *)en);
				break;
			}
		}
	}

	const json_t *req = json_object_get(input_schema, "required");
	size_t i;
	const json_t *r;
	struct buf unknown;
	buf_init(&unknown, 0);
	json_array_foreach(req, i, r) {
		if (!json_is_string(r))
			continue;
		bool bound = false;
		for (int a = 0; a < CATALYST_ARG_COUNT; a++)
			if (b->prop[a] && strcmp(b->prop[a], json_string_value(r)) == 0)
				bound = true;
		if (bound)
			continue;
		if (unknown.len)
			buf_append(&unknown, ", ", 2, NULL);
		buf_append(&unknown, json_string_value(r), strlen(json_string_value(r)), NULL);
	}
	if (unknown.len)
		b->unknown_required = buf_steal(&unknown, NULL);
	buf_finish(&unknown);
}

void catalyst_binding_finish(struct catalyst_binding *b)
{
	if (!b)
		return;
	free(b->tool);
	for (int a = 0; a < CATALYST_ARG_COUNT; a++) {
		free(b->prop[a]);
		json_decref(b->enum_values[a]);
	}
	free(b->props);
	free(b->unknown_required);
	memset(b, 0, sizeof *b);
}

/* The schema's own spelling of an enumerated value ("COMPLETED" for
 * "completed"), or NULL when none matches. */
static const char *enum_pick(const json_t *values, enum catalyst_arg a, const char *val)
{
	size_t i;
	const json_t *v;
	char want[64], have[64];
	if (a == CATALYST_ARG_STATUS)
		catalyst_status_normalize(val, want, sizeof want);
	json_array_foreach(values, i, v) {
		if (!json_is_string(v))
			continue;
		const char *s = json_string_value(v);
		if (a == CATALYST_ARG_STATUS) {
			catalyst_status_normalize(s, have, sizeof have);
			if (strcmp(want, have) == 0)
				return s;
		} else if (strcasecmp(s, val) == 0) {
			return s;
		}
	}
	return NULL;
}

static json_t *enum_list(const json_t *values)
{
	char *s = json_dumps(values, JSON_COMPACT);
	json_t *j = json_string(s ? s : "?");
	free(s);
	return j;
}

static json_t *scalar_value(const struct catalyst_binding *b, enum catalyst_arg a, enum catalyst_prop_type t,
			    const char *val, struct err *e)
{
	if (b->enum_values[a]) {
		const char *pick = enum_pick(b->enum_values[a], a, val);
		if (!pick) {
			json_t *l = enum_list(b->enum_values[a]);
			err_set(e, ERR_USAGE, "%s: %s '%s' is not one the server accepts: %s", b->tool,
				catalyst_arg_label(a), val, json_string_value(l));
			json_decref(l);
			return NULL;
		}
		val = pick;
	}
	if (t == CATALYST_PROP_INTEGER || t == CATALYST_PROP_NUMBER) {
		const char *digits = val;
		if (a == CATALYST_ARG_PROJECT && strncmp(digits, "prj-", 4) == 0)
			digits += 4;
		char *end;
		errno = 0;
		long long n = strtoll(digits, &end, 10);
		if (errno || end == digits || *end) {
			err_set(e, ERR_USAGE, "%s: %s must be a number for property '%s', got '%s'", b->tool,
				catalyst_arg_label(a), b->prop[a], val);
			return NULL;
		}
		return json_integer(n);
	}
	return json_string(val);
}

json_t *catalyst_binding_args(const struct catalyst_binding *b, const char *const vals[CATALYST_ARG_COUNT],
			      unsigned required, unsigned *omitted, struct err *e)
{
	if (omitted)
		*omitted = 0;
	if (b->unknown_required) {
		err_set(e, ERR_PROTOCOL,
			"%s: the input schema requires %s, which catalyst-audit does not know how to fill",
			b->tool, b->unknown_required);
		return NULL;
	}
	json_t *args = json_object();
	if (!args) {
		err_oom(e);
		return NULL;
	}
	for (int a = 0; a < CATALYST_ARG_COUNT; a++) {
		if (!vals[a])
			continue;
		if (!b->prop[a]) {
			if (required & CATALYST_BIT(a)) {
				err_set(e, ERR_PROTOCOL, "%s: no input property for %s among: %s", b->tool,
					catalyst_arg_label((enum catalyst_arg)a),
					*b->props ? b->props : "(the schema lists no properties)");
				goto fail;
			}
			if (omitted)
				*omitted |= CATALYST_BIT(a);
			continue;
		}
		json_t *v;
		if (b->type[a] == CATALYST_PROP_ARRAY) {
			json_t *item = scalar_value(b, (enum catalyst_arg)a, b->item_type[a], vals[a], e);
			if (!item)
				goto fail;
			v = json_array();
			json_array_append_new(v, item);
		} else {
			v = scalar_value(b, (enum catalyst_arg)a, b->type[a], vals[a], e);
			if (!v)
				goto fail;
		}
		json_object_set_new(args, b->prop[a], v);
	}
	return args;
fail:
	json_decref(args);
	return NULL;
}

/* ---- reading answers ------------------------------------------------- */

static const char *find_in(const json_t *doc, const char *const *spellings_list, int depth, char *num)
{
	if (!json_is_object(doc))
		return NULL;
	const char *key;
	const json_t *v;
	for (const char *const *sp = spellings_list; *sp; sp++) {
		json_object_foreach((json_t *)doc, key, v) {
			if (!catalyst_key_match(key, *sp))
				continue;
			if (json_is_string(v) && *json_string_value(v))
				return json_string_value(v);
			if (json_is_integer(v) && num) {
				snprintf(num, 32, "%lld", (long long)json_integer_value(v));
				return num;
			}
		}
	}
	if (depth <= 0)
		return NULL;
	json_object_foreach((json_t *)doc, key, v) {
		const char *s = find_in(v, spellings_list, depth - 1, num);
		if (s)
			return s;
	}
	return NULL;
}

const json_t *catalyst_find_list(const json_t *doc, int depth)
{
	if (json_is_array(doc))
		return doc;
	if (!json_is_object(doc) || depth < 0)
		return NULL;
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)doc, key, v)
		if (json_is_array(v) && json_is_object(json_array_get(v, 0)))
			return v;
	json_object_foreach((json_t *)doc, key, v) {
		const json_t *a = json_is_object(v) ? catalyst_find_list(v, depth - 1) : NULL;
		if (a)
			return a;
	}
	return NULL;
}

const char *catalyst_find_string(const json_t *doc, const char *const *spellings_list, int depth, char *num)
{
	return find_in(doc, spellings_list, depth, num);
}

static bool names_sharing(const char *key)
{
	static const char *const keys[] = {"datasharinglevel", "datasharing",       "sharinglevel",
					   "datasharingmode",  "datasharingpolicy", NULL};
	/* Namespaced _meta keys: "diagrid.io/dataSharingLevel". */
	const char *slash = strrchr(key, '/');
	if (slash)
		key = slash + 1;
	for (const char *const *k = keys; *k; k++)
		if (catalyst_key_match(key, *k))
			return true;
	return false;
}

static enum data_sharing_level sharing_in(const json_t *doc, int depth, char *key_out, size_t key_size)
{
	if (!json_is_object(doc))
		return SHARING_UNKNOWN;
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)doc, key, v) {
		if (!names_sharing(key))
			continue;
		enum data_sharing_level l = SHARING_UNKNOWN;
		if (json_is_string(v)) {
			l = data_sharing_level_parse(json_string_value(v));
		} else if (json_is_object(v)) {
			static const char *const inner[] = {"level", "mode", "value", NULL};
			l = data_sharing_level_parse(find_in(v, inner, 0, NULL));
		}
		if (l != SHARING_UNKNOWN) {
			if (key_out)
				snprintf(key_out, key_size, "%s", key);
			return l;
		}
	}
	if (depth <= 0)
		return SHARING_UNKNOWN;
	json_object_foreach((json_t *)doc, key, v) {
		enum data_sharing_level l = sharing_in(v, depth - 1, key_out, key_size);
		if (l != SHARING_UNKNOWN)
			return l;
	}
	return SHARING_UNKNOWN;
}

enum data_sharing_level catalyst_find_sharing(const json_t *doc, char *key, size_t key_size)
{
	if (key && key_size)
		key[0] = '\0';
	return sharing_in(doc, 4, key, key_size);
}

enum data_sharing_level catalyst_answer_sharing(const json_t *doc, const json_t *meta, char *key, size_t key_size)
{
	enum data_sharing_level l = catalyst_find_sharing(doc, key, key_size);
	return l != SHARING_UNKNOWN ? l : catalyst_find_sharing(meta, key, key_size);
}

const char *catalyst_status_normalize(const char *s, char *out, size_t size)
{
	if (!size)
		return out;
	out[0] = '\0';
	if (!s)
		return out;
	static const char *const prefixes[] = {"orchestration_status_", "workflow_status_", "runtime_status_",
					       "run_status_", NULL};
	for (const char *const *p = prefixes; *p; p++)
		if (strncasecmp(s, *p, strlen(*p)) == 0) {
			s += strlen(*p);
			break;
		}
	size_t n = 0;
	for (; *s && n + 1 < size; s++)
		out[n++] = (char)tolower((unsigned char)*s);
	out[n] = '\0';
	if (strcmp(out, "cancelled") == 0)
		snprintf(out, size, "canceled");
	else if (strcmp(out, "continuedasnew") == 0)
		snprintf(out, size, "continued_as_new");
	return out;
}

bool catalyst_status_valid(const char *normalized)
{
	static const char *const known[] = {"running",  "completed", "failed",           "terminated", "suspended",
					    "canceled", "pending",   "continued_as_new", "stalled",    NULL};
	for (const char *const *k = known; *k; k++)
		if (normalized && strcmp(normalized, *k) == 0)
			return true;
	return false;
}

static int parse_duration(const char *s, long long *secs)
{
	long long total = 0;
	if (!*s)
		return -1;
	while (*s) {
		if (!isdigit((unsigned char)*s))
			return -1;
		char *end;
		errno = 0;
		long long n = strtoll(s, &end, 10);
		if (errno || n < 0 || n > 100000000)
			return -1;
		long long mult;
		switch (*end) {
		case 's':
			mult = 1;
			break;
		case 'm':
			mult = 60;
			break;
		case 'h':
			mult = 3600;
			break;
		case 'd':
			mult = 86400;
			break;
		case 'w':
			mult = 7 * 86400;
			break;
		default:
			return -1;
		}
		total += n * mult;
		if (total > 100LL * 365 * 86400)
			return -1;
		s = end + 1;
	}
	*secs = total;
	return 0;
}

/* s holds digits where pattern has 'D' and pattern's other bytes as they
 * are (sscanf's %d alone would take a sign or a space for a digit). */
static bool shaped(const char *s, const char *pattern)
{
	for (; *pattern; s++, pattern++)
		if (*pattern == 'D' ? !isdigit((unsigned char)*s) : *s != *pattern)
			return false;
	return true;
}

int catalyst_time_parse(const char *s, time_t *out)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
	struct tm tm = {0};
	if (!shaped(s, "DDDD-DD-DD") || sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -1;
	const char *p = s + n;
	long offset = 0;
	if (*p) {
		if (*p != 'T' && *p != 't' && *p != ' ')
			return -1;
		p++;
		int m = 0;
		if (!shaped(p, "DD:DD:DD") || sscanf(p, "%2d:%2d:%2d%n", &h, &mi, &sec, &m) != 3 || m != 8)
			return -1;
		p += m;
		if (*p == '.') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			while (isdigit((unsigned char)*p))
				p++;
		}
		if (*p == 'Z' || *p == 'z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int oh, om, k = 0;
			if (!shaped(p + 1, "DD:DD") || sscanf(p + 1, "%2d:%2d%n", &oh, &om, &k) != 2 || k != 5 ||
			    oh > 23 || om > 59)
				return -1;
			offset = (oh * 3600L + om * 60L) * (*p == '+' ? 1 : -1);
			p += 1 + k;
		} else {
			return -1; /* a time without a zone is not RFC 3339 */
		}
		if (*p)
			return -1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	if (t == (time_t)-1)
		return -1;
	/* timegm normalises 31 February into March: reject what moved. */
	struct tm back;
	gmtime_r(&t, &back);
	if (back.tm_mday != d || back.tm_mon != mo - 1)
		return -1;
	*out = t - offset;
	return 0;
}

int catalyst_time_arg(const char *opt, const char *when, time_t now, char out[32], struct err *e)
{
	long long secs;
	time_t t;
	if (!when || !*when)
		return err_set(e, ERR_USAGE, "--%s: empty time", opt);
	if (parse_duration(when, &secs) == 0)
		t = now - (time_t)secs;
	else if (catalyst_time_parse(when, &t) < 0)
		return err_set(e, ERR_USAGE,
			       "--%s: expected a duration (30m, 24h, 7d) or an RFC 3339 time "
			       "(2026-12-01T09:00:00Z), got '%s'",
			       opt, when);
	struct tm tm;
	/* RFC 3339 has four-digit years: strftime's %Y would print 159 */
	if (!gmtime_r(&t, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900)
		return err_set(e, ERR_USAGE, "--%s: %s is outside the years 0000 to 9999", opt, when);
	snprintf(out, 32, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec);
	return 0;
}
