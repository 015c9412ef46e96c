/* `dapr workflow history -o json` rows (dapr/cli pkg/workflow/history.go,
 * CLI 1.16 to 1.18): most of an event is packed into two strings, "attrs"
 * and "details", and some of it is left implicit. The row's other members
 * are read by the decoder like any event's. */
#include "event_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum timer_origin dapr_cli_origin_kind(const char *s, size_t len)
{
	char n[KEY_MAX];
	size_t l = event_key_normalise(s, len, n, sizeof n);
	if (l == 13 && memcmp(n, "activityretry", 13) == 0)
		return ORIGIN_ACTIVITY_RETRY;
	if (l == 18 && memcmp(n, "childworkflowretry", 18) == 0)
		return ORIGIN_CHILD_RETRY;
	if (l == 11 && memcmp(n, "createtimer", 11) == 0)
		return ORIGIN_CREATE_TIMER;
	if (l == 13 && memcmp(n, "externalevent", 13) == 0)
		return ORIGIN_EXTERNAL_EVENT;
	return ORIGIN_OTHER;
}

/* `dapr workflow history` attrs: "k=v;k=v" (dapr/cli pkg/workflow/history.go,
 * addAttr; CLI 1.16 to 1.18). Free-text values (input, output, errorMsg,
 * ...) may hold ';' and run to the next ";<known key>=" or the end, so every
 * key the CLI writes is listed. */
static const char *const attr_keys[] = {
	"scheduledId",    "errorType",  "errorMsg",     "input",       "output",         "result",      "fireAt",
	"origin",         "taskExecId", "timerId",      "instanceId",  "name",           "eventName",   "reason",
	"customStatus",   "status",     "nonRetriable", "failureType", "failureMessage", "description", "payload",
	"targetInstance", "timerName",  "tags",         "versionName", "versionPatches",
};

static bool key_is(const char *k, size_t l, const char *want)
{
	return l == strlen(want) && memcmp(k, want, l) == 0;
}

static bool attr_free_text(const char *k, size_t l)
{
	static const char *const free_text[] = {
		"input",        "output",         "result",      "errorMsg", "reason",
		"customStatus", "failureMessage", "description", "payload",
	};
	for (size_t i = 0; i < sizeof free_text / sizeof free_text[0]; i++) {
		if (key_is(k, l, free_text[i]))
			return true;
	}
	return false;
}

/* The CLI cuts input=/output=/payload= at 120 runes (an ExecutionCompleted
 * output at 160) and appends "…" (its trim()): exactly limit + 1 runes
 * ending in U+2026 is a cut value; a shorter one ending in "…" is whole. */
static bool cli_truncated(const char *v, size_t len, size_t limit)
{
	static const char ellipsis[] = "\xe2\x80\xa6";
	if (len < 3 || memcmp(v + len - 3, ellipsis, 3) != 0)
		return false;
	size_t runes = 0;
	for (size_t i = 0; i < len; i++)
		runes += ((unsigned char)v[i] & 0xC0u) != 0x80u;
	return runes == limit + 1;
}

static int cli_payload(struct dec *d, const struct jscan_tok *t, struct payload *out)
{
	if (dec_get_payload(d, t, out) < 0)
		return -1;
	size_t limit = d->ev->kind == EVENT_EXECUTION_COMPLETED ? 160 : 120;
	out->truncated = out->state == PAYLOAD_PRESENT && cli_truncated(t->p, t->len, limit);
	return 0;
}

static const char *next_known_key(const char *p, const char *end)
{
	for (const char *q = p; q < end; q++) {
		if (*q != ';')
			continue;
		for (size_t i = 0; i < sizeof attr_keys / sizeof attr_keys[0]; i++) {
			size_t l = strlen(attr_keys[i]);
			if ((size_t)(end - q - 1) > l && memcmp(q + 1, attr_keys[i], l) == 0 && q[1 + l] == '=')
				return q;
		}
	}
	return end;
}

static int attr_value(struct dec *d, const char *k, size_t kl, const char *v, size_t vl)
{
	struct event *ev = d->ev;
	struct jscan_tok t = {.type = JSCAN_STRING, .p = v, .len = vl, .off = d->off};
	if (kl == 11 && memcmp(k, "scheduledId", 11) == 0)
		return dec_get_int(d, k, kl, &t, &ev->task_scheduled_id, &ev->has_task_scheduled_id);
	if (kl == 7 && memcmp(k, "timerId", 7) == 0)
		return dec_get_int(d, k, kl, &t, &ev->timer_id, &ev->has_timer_id);
	if (kl == 9 && memcmp(k, "errorType", 9) == 0)
		return dec_get_str(d, k, kl, &t, &ev->error_type);
	if (kl == 8 && memcmp(k, "errorMsg", 8) == 0)
		return dec_get_str(d, k, kl, &t, &ev->error_message);
	if (kl == 6 && memcmp(k, "fireAt", 6) == 0)
		return dec_get_str(d, k, kl, &t, &ev->fire_at);
	if (kl == 6 && memcmp(k, "origin", 6) == 0) {
		d->ev->origin = dapr_cli_origin_kind(v, vl);
		return 0;
	}
	if (kl == 10 && memcmp(k, "taskExecId", 10) == 0)
		return dec_get_str(d, k, kl, &t, &d->attrs_task_exec_id);
	/* A timer's childWorkflowRetry origin is the only row that prints
	 * one: settled once the origin kind is known. */
	if (kl == 10 && memcmp(k, "instanceId", 10) == 0)
		return dec_get_str(d, k, kl, &t, &d->attrs_instance_id);
	/* input= on ExecutionStarted / TaskScheduled / child creations,
	 * payload= on EventSent / EventRaised. */
	if ((kl == 5 && memcmp(k, "input", 5) == 0) || key_is(k, kl, "payload"))
		return cli_payload(d, &t, &ev->input);
	if ((kl == 6 && memcmp(k, "output", 6) == 0) || (kl == 6 && memcmp(k, "result", 6) == 0))
		return cli_payload(d, &t, &ev->output);
	if (kl == 12 && memcmp(k, "customStatus", 12) == 0)
		return dec_get_payload(d, &t, &ev->custom_status);
	if (kl == 4 && memcmp(k, "name", 4) == 0)
		return ev->name ? 0 : dec_get_str(d, k, kl, &t, &ev->name);
	if (key_is(k, kl, "nonRetriable"))
		return dec_get_bool(d, k, kl, &t, &ev->non_retriable, &ev->has_non_retriable);
	/* ExecutionCompleted's failure. */
	if (key_is(k, kl, "failureType"))
		return ev->error_type ? 0 : dec_get_str(d, k, kl, &t, &ev->error_type);
	if (key_is(k, kl, "failureMessage"))
		return ev->error_message ? 0 : dec_get_str(d, k, kl, &t, &ev->error_message);
	/* Written by the CLI, not modelled (timerName repeats the row's name). */
	if ((kl == 9 && memcmp(k, "eventName", 9) == 0) || (kl == 6 && memcmp(k, "reason", 6) == 0) ||
	    (kl == 6 && memcmp(k, "status", 6) == 0) || key_is(k, kl, "timerName") ||
	    key_is(k, kl, "description") || key_is(k, kl, "targetInstance") || key_is(k, kl, "tags") ||
	    key_is(k, kl, "versionName") || key_is(k, kl, "versionPatches"))
		return 0;
	char name[KEY_MAX];
	int n = snprintf(name, sizeof name, "attrs.%.*s", (int)(kl < 64 ? kl : 64), k);
	if (event_log_count_unknown_key(d->log, name, (size_t)n < sizeof name ? (size_t)n : 0, 1) < 0)
		return dec_oom(d);
	return 0;
}

int dapr_cli_attrs(struct dec *d, const struct jscan_tok *v)
{
	size_t len;
	const char *s = jscan_str(v, &d->scratch, &d->scratch_cap, &len);
	if (!s)
		return dec_oom(d);
	/* Own copy: the field setters reuse the scratch. */
	if (d->attrs_cap < len + 1) {
		char *n = realloc(d->attrs, len + 1);
		if (!n)
			return dec_oom(d);
		d->attrs = n;
		d->attrs_cap = len + 1;
	}
	memcpy(d->attrs, s, len);
	d->attrs[len] = '\0';
	const char *p = d->attrs, *end = d->attrs + len;
	while (p < end) {
		const char *eq = memchr(p, '=', (size_t)(end - p));
		const char *semi = memchr(p, ';', (size_t)(end - p));
		if (!eq || (semi && semi < eq)) {
			/* A fragment without '=': keep count of it, move on. */
			if (event_log_count_unknown_key(d->log, "attrs", 5, 1) < 0)
				return dec_oom(d);
			if (!semi)
				break;
			p = semi + 1;
			continue;
		}
		const char *k = p;
		size_t kl = (size_t)(eq - p);
		const char *val = eq + 1;
		const char *vend = attr_free_text(k, kl) ? next_known_key(val, end) : (semi ? semi : end);
		if (attr_value(d, k, kl, val, (size_t)(vend - val)) < 0)
			return -1;
		p = vend < end ? vend + 1 : end;
	}
	return 0;
}

/* `dapr workflow history` details: "k=v,k=v" (deriveDetails). What the
 * attrs do not carry: "eventId=N" on TaskCompleted and, from CLI 1.17, on
 * child completions (the scheduled id), "rerunParent=X", and in CLI 1.18 a
 * timer's "origin=kind(id)" (always last, so it takes the rest). Other
 * details are a human summary. */
int dapr_cli_details(struct dec *d, const struct jscan_tok *v)
{
	struct event *ev = d->ev;
	size_t len;
	const char *s = jscan_str(v, &d->scratch, &d->scratch_cap, &len);
	if (!s)
		return dec_oom(d);
	const char *p = s, *end = s + len;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq || (comma && comma < eq)) {
			p = comma ? comma + 1 : end;
			continue;
		}
		const char *k = p;
		size_t kl = (size_t)(eq - p);
		const char *val = eq + 1;
		const char *vend = comma ? comma : end;
		if (key_is(k, kl, "origin")) {
			/* kind or kind(id), to the end: an id may hold a comma. */
			const char *par = memchr(val, '(', (size_t)(end - val));
			const char *kend = par ? par : end;
			if (ev->origin == ORIGIN_NONE)
				d->ev->origin = dapr_cli_origin_kind(val, (size_t)(kend - val));
			if (par && end[-1] == ')' && end - 1 > par + 1 && !ev->origin_id &&
			    !(ev->origin_id = event_pool_intern(d->pool, par + 1, (size_t)(end - 1 - par - 1))))
				return dec_oom(d);
			break;
		}
		struct jscan_tok t = {.type = JSCAN_STRING, .p = val, .len = (size_t)(vend - val), .off = d->off};
		if (key_is(k, kl, "eventId") && !ev->has_task_scheduled_id &&
		    (ev->kind == EVENT_TASK_COMPLETED || ev->kind == EVENT_CHILD_COMPLETED)) {
			if (dec_get_int(d, k, kl, &t, &ev->task_scheduled_id, &ev->has_task_scheduled_id) < 0)
				return -1;
		} else if (key_is(k, kl, "rerunParent") && !ev->rerun_parent_instance_id) {
			if (dec_get_str(d, k, kl, &t, &ev->rerun_parent_instance_id) < 0)
				return -1;
		}
		p = vend < end ? vend + 1 : end;
	}
	return 0;
}

/* What a `dapr workflow history` row leaves implicit (history.go):
 * - eventId is printed only when above 0, except on TaskScheduled and
 *   TimerCreated: an action row without one is action 0 (a child creation
 *   or a completion first in its generation), any other row is not an
 *   action (-1);
 * - child failures (every version) and child completions before CLI 1.17
 *   name no scheduled id: -1, for the analysis to pair by order;
 * - input=/output=/payload= are left out when the payload is nil, JSON null
 *   or "" (trim gives "" and addAttr drops empty values), so on the rows
 *   that print one, a missing payload is a null one, not a withheld one.
 *   SubOrchCreated/SubOrchCompleted rows printed no payload at all in CLI
 *   1.16, so there a missing one stays absent (unknown). */
void dapr_cli_implicit(struct dec *d)
{
	struct event *ev = d->ev;
	bool action = ev->kind == EVENT_TASK_SCHEDULED || ev->kind == EVENT_TIMER_CREATED ||
		      ev->kind == EVENT_CHILD_CREATED || ev->kind == EVENT_EVENT_SENT ||
		      ev->kind == EVENT_EXECUTION_COMPLETED;
	if (!ev->has_event_id)
		ev->event_id = action ? 0 : -1;
	if ((ev->kind == EVENT_CHILD_COMPLETED || ev->kind == EVENT_CHILD_FAILED) && !ev->has_task_scheduled_id)
		ev->task_scheduled_id = -1;
	bool suborch = ev->kind_name && strncmp(ev->kind_name, "SubOrch", 7) == 0;
	switch (ev->kind) {
	case EVENT_EXECUTION_STARTED:
	case EVENT_TASK_SCHEDULED:
	case EVENT_EVENT_SENT:
	case EVENT_EVENT_RAISED:
	case EVENT_CHILD_CREATED:
		if (ev->input.state == PAYLOAD_ABSENT && !suborch)
			ev->input.state = PAYLOAD_NULL;
		break;
	case EVENT_TASK_COMPLETED:
	case EVENT_CHILD_COMPLETED:
	case EVENT_EXECUTION_COMPLETED:
		if (ev->output.state == PAYLOAD_ABSENT && !suborch)
			ev->output.state = PAYLOAD_NULL;
		break;
	default:
		break;
	}
	if (d->attrs_instance_id) {
		if (ev->origin == ORIGIN_CHILD_RETRY && !ev->origin_id)
			ev->origin_id = d->attrs_instance_id;
		else if (ev->origin != ORIGIN_CHILD_RETRY && !ev->instance_id)
			ev->instance_id = d->attrs_instance_id;
	}
}
