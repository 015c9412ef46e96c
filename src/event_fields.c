/* The history's field table: what each key and type name means, in every
 * spelling the dialects use. Keys are compared normalised (see
 * event_key_normalise), and nested protojson members arrive flattened into
 * one key (failureDetails.errorType is failuredetailserrortype), which is
 * Catalyst's own flattening: one table serves both. */
#include "event_decode.h"

#include <string.h>

struct name_map {
	const char *name; /* normalised */
	int value;
};

static const struct name_map field_names[] = {
	{"eventtype", F_TYPE},
	{"type", F_TYPE},
	{"eventid", F_EVENT_ID},
	{"timestamp", F_TIMESTAMP},
	{"name", F_NAME},
	{"taskscheduledid", F_TSID},
	{"scheduledid", F_TSID},
	{"taskexecutionid", F_TEXID},
	{"timerid", F_TIMER_ID},
	{"fireat", F_FIRE_AT},
	{"activityretry", F_ORIGIN_ACTIVITY},
	{"childworkflowretry", F_ORIGIN_CHILD},
	{"createtimer", F_ORIGIN_CREATE},
	{"externalevent", F_ORIGIN_EXTERNAL},
	{"externaleventname", F_ORIGIN_EXTERNAL},
	{"instanceid", F_INSTANCE_ID},
	{"workflowinstanceinstanceid", F_INSTANCE_ID},
	{"orchestrationinstanceinstanceid", F_INSTANCE_ID},
	{"executionid", F_EXECUTION_ID},
	{"workflowinstanceexecutionid", F_EXECUTION_ID},
	{"orchestrationinstanceexecutionid", F_EXECUTION_ID},
	{"workflowstatus", F_WF_STATUS},
	{"orchestrationstatus", F_WF_STATUS},
	{"failuredetailserrormessage", F_ERR_MSG},
	{"errormessage", F_ERR_MSG},
	{"failuredetailserrortype", F_ERR_TYPE},
	{"errortype", F_ERR_TYPE},
	{"failuredetailsisnonretriable", F_NON_RETRIABLE},
	{"isnonretriable", F_NON_RETRIABLE},
	{"input", F_INPUT},
	{"output", F_OUTPUT},
	{"result", F_OUTPUT},
	{"customstatus", F_CUSTOM_STATUS},
	{"attrs", F_ATTRS},
	{"appid", F_APP_ID},
	{"status", F_STATUS},
	/* Known keys the model does not carry. */
	{"stacktrace", F_IGNORED},
	{"details", F_IGNORED},
	{"play", F_IGNORED},
	{"elapsed", F_IGNORED},
	{"tags", F_IGNORED},
	/* a string on a scheduling or a start; a group on a workflowStarted */
	{"version", F_IGNORED},
	{"versionname", F_VERSION_NAME},
	{"versionpatches", F_PATCHES},
	{"scheduledstarttimestamp", F_IGNORED},
	{"reason", F_REASON},
	{"description", F_DESCRIPTION},
	{"attestation", F_ATTESTATION},
	{"attestationpayload", F_ATTESTATION},
	{"attestationsignature", F_ATTESTATION},
	{"signercertificate", F_IGNORED},
	{"historypropagationscope", F_IGNORED},
	{"workflowspanid", F_IGNORED},
	{"orchestrationspanid", F_IGNORED},
};

/* Prefixes of known groups the model does not carry. */
static const char *const ignored_prefixes[] = {
	"failuredetails", "parentinstance", "router", "parenttracecontext", "tags",
};

static const struct name_map kind_names[] = {
	{"executionstarted", EVENT_EXECUTION_STARTED},
	{"executioncompleted", EVENT_EXECUTION_COMPLETED},
	{"executionterminated", EVENT_EXECUTION_TERMINATED},
	{"executionsuspended", EVENT_EXECUTION_SUSPENDED},
	{"executionresumed", EVENT_EXECUTION_RESUMED},
	{"executionstalled", EVENT_EXECUTION_STALLED},
	{"continueasnew", EVENT_CONTINUE_AS_NEW},
	{"workflowstarted", EVENT_WORKFLOW_STARTED},
	{"orchestratorstarted", EVENT_WORKFLOW_STARTED},
	{"workflowcompleted", EVENT_WORKFLOW_COMPLETED},
	{"orchestratorcompleted", EVENT_WORKFLOW_COMPLETED},
	{"taskscheduled", EVENT_TASK_SCHEDULED},
	{"taskcompleted", EVENT_TASK_COMPLETED},
	{"taskfailed", EVENT_TASK_FAILED},
	{"timercreated", EVENT_TIMER_CREATED},
	{"timerfired", EVENT_TIMER_FIRED},
	{"childworkflowinstancecreated", EVENT_CHILD_CREATED},
	{"suborchestrationinstancecreated", EVENT_CHILD_CREATED},
	{"childworkflowinstancecompleted", EVENT_CHILD_COMPLETED},
	{"suborchestrationinstancecompleted", EVENT_CHILD_COMPLETED},
	{"childworkflowinstancefailed", EVENT_CHILD_FAILED},
	{"suborchestrationinstancefailed", EVENT_CHILD_FAILED},
	/* `dapr workflow history` row types: CLI 1.18, then 1.16-1.17. */
	{"childworkflowcreated", EVENT_CHILD_CREATED},
	{"childworkflowcompleted", EVENT_CHILD_COMPLETED},
	{"childworkflowfailed", EVENT_CHILD_FAILED},
	{"suborchcreated", EVENT_CHILD_CREATED},
	{"suborchcompleted", EVENT_CHILD_COMPLETED},
	{"suborchfailed", EVENT_CHILD_FAILED},
	{"eventsent", EVENT_EVENT_SENT},
	{"eventraised", EVENT_EVENT_RAISED},
	{"genericevent", EVENT_GENERIC},
	{"historystate", EVENT_HISTORY_STATE},
	{"detachedworkflowinstancecreated", EVENT_DETACHED_CREATED},
};

static int map_lookup(const struct name_map *m, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (m[i].name[0] == s[0] && strlen(m[i].name) == len && memcmp(m[i].name, s, len) == 0)
			return m[i].value;
	}
	return -1;
}

/* How many innerFailure levels a normalised failureDetails key goes down
 * (failuredetailsinnerfailureinnerfailureerrortype: 2), and what follows. */
size_t event_inner_failure_depth(const char *nk, size_t len, const char **rest, size_t *rest_len)
{
	size_t depth = 0;
	if (key_has_prefix(nk, len, "failuredetails")) {
		nk += 14;
		len -= 14;
		while (key_has_prefix(nk, len, "innerfailure")) {
			nk += 12;
			len -= 12;
			depth++;
		}
	}
	*rest = nk;
	*rest_len = len;
	return depth;
}

enum field event_field_lookup(const char *nk, size_t len)
{
	if (!len)
		return F_NONE;
	int f = map_lookup(field_names, sizeof field_names / sizeof field_names[0], nk, len);
	if (f >= 0)
		return (enum field)f;
	/* Lenient on how a flattener spells the path to these. */
	if (key_has_suffix(nk, len, "activityretrytaskexecutionid"))
		return F_ORIGIN_ACTIVITY;
	if (key_has_suffix(nk, len, "childworkflowretryinstanceid"))
		return F_ORIGIN_CHILD;
	if (key_has_prefix(nk, len, "origin") && strstr(nk, "createtimer"))
		return F_ORIGIN_CREATE;
	if (key_has_prefix(nk, len, "origin") && key_has_suffix(nk, len, "externaleventname"))
		return F_ORIGIN_EXTERNAL;
	if (key_has_prefix(nk, len, "retryparent") && key_has_suffix(nk, len, "instanceid"))
		return F_RETRY_PARENT;
	if (key_has_prefix(nk, len, "rerunparent") && key_has_suffix(nk, len, "instanceid"))
		return F_RERUN_PARENT;
	const char *rest;
	size_t rest_len;
	if (event_inner_failure_depth(nk, len, &rest, &rest_len) > 0) {
		if (rest_len == 9 && memcmp(rest, "errortype", 9) == 0)
			return F_CAUSE_TYPE;
		if (rest_len == 12 && memcmp(rest, "errormessage", 12) == 0)
			return F_CAUSE_MSG;
	}
	for (size_t i = 0; i < sizeof ignored_prefixes / sizeof ignored_prefixes[0]; i++) {
		if (key_has_prefix(nk, len, ignored_prefixes[i]))
			return F_IGNORED;
	}
	return F_NONE;
}

enum event_kind event_kind_lookup(const char *s, size_t len)
{
	char nk[KEY_MAX];
	size_t l = event_key_normalise(s, len, nk, sizeof nk);
	if (!l)
		return EVENT_UNKNOWN;
	const char *p = nk;
	/* EVENT_TYPE_TASK_SCHEDULED and the like. */
	if (key_has_prefix(p, l, "eventtype") && l > 9) {
		p += 9;
		l -= 9;
	}
	int k = map_lookup(kind_names, sizeof kind_names / sizeof kind_names[0], p, l);
	return k < 0 ? EVENT_UNKNOWN : (enum event_kind)k;
}

bool event_key_names_list(const char *k, size_t kl)
{
	char nk[KEY_MAX];
	size_t l = event_key_normalise(k, kl, nk, sizeof nk);
	return l && (strstr(nk, "event") || strstr(nk, "history"));
}

size_t event_key_normalise(const char *s, size_t len, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '_' || c == '-' || c == '.' || c == ' ')
			continue;
		if (o + 1 >= cap)
			return 0;
		out[o++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	out[o] = '\0';
	return o;
}

bool event_key_is_payload(const char *s, size_t len)
{
	/* Cheap length filter first: called for every key of every event. */
	if (len < 5 || len > 14)
		return false;
	switch (s[0]) {
	case 'i':
	case 'I':
	case 'o':
	case 'O':
	case 'r':
	case 'R':
	case 'c':
	case 'C':
		break;
	default:
		return false;
	}
	char n[16];
	size_t l = event_key_normalise(s, len, n, sizeof n);
	return (l == 5 && memcmp(n, "input", 5) == 0) || (l == 6 && memcmp(n, "output", 6) == 0) ||
	       (l == 6 && memcmp(n, "result", 6) == 0) || (l == 12 && memcmp(n, "customstatus", 12) == 0);
}

/* Every dialect in one row: its name (in traces), what a reader is told
 * of it, its caps, and the key that names an event's type in it (none:
 * protojson names it by the one member that is an event kind). */
static const struct {
	const char *name;
	const char *origin;
	const char *printer;
	unsigned caps;
	const char *type_key; /* normalised */
	bool type_needs_kind; /* the key is a common word: only a known type marks the dialect */
} dialects[] = {
	[DIALECT_UNKNOWN] = {"unknown", NULL, NULL, 0, NULL, false},
	[DIALECT_CATALYST] = {"catalyst", NULL, NULL, DIALECT_CAP_SHARING, "eventtype", false},
	[DIALECT_PROTOJSON] = {"protojson", "durabletask protojson", NULL, 0, NULL, false},
	[DIALECT_DAPR_CLI] = {"dapr-cli", "dapr workflow history output", "dapr workflow history",
			      DIALECT_CAP_OMITS_EMPTY_PAYLOADS | DIALECT_CAP_NO_CHILD_IDS, "type", true},
	/* Not JSON: detected by its header line (event_dapr_table.c). */
	[DIALECT_DAPR_TABLE] = {"dapr-cli-table", "the table view of dapr workflow history",
				"dapr workflow history", DIALECT_CAP_NO_CHILD_IDS | DIALECT_CAP_NO_FAILURE_DETAILS,
				NULL, false},
};

static unsigned dialect_index(enum event_dialect d)
{
	return (unsigned)d < sizeof dialects / sizeof dialects[0] ? (unsigned)d : DIALECT_UNKNOWN;
}

enum event_dialect event_dialect_of_type_key(const char *nk, size_t nl)
{
	for (size_t i = 0; i < sizeof dialects / sizeof dialects[0]; i++) {
		const char *k = dialects[i].type_key;
		if (k && strlen(k) == nl && memcmp(k, nk, nl) == 0)
			return (enum event_dialect)i;
	}
	return DIALECT_UNKNOWN;
}

bool event_dialect_type_needs_kind(enum event_dialect d)
{
	return dialects[dialect_index(d)].type_needs_kind;
}

const char *event_dialect_name(enum event_dialect d)
{
	return dialects[dialect_index(d)].name;
}

const char *event_dialect_origin(enum event_dialect d)
{
	return dialects[dialect_index(d)].origin;
}

const char *event_dialect_printer(enum event_dialect d)
{
	return dialects[dialect_index(d)].printer;
}

unsigned event_dialect_caps(enum event_dialect d)
{
	return dialects[dialect_index(d)].caps;
}
