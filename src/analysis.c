/* The analysis' ground floor: whether a history has a Catalyst shape,
 * freeing an analysis, and the names of analysis.h's enums. The driver
 * (analysis_scan, analysis_finish, analysis_run) is analysis_driver.c. */

#include "analysis_internal.h"

bool analysis_catalyst_shaped(const struct event_log *log)
{
	if (event_log_caps(log) & DIALECT_CAP_SHARING)
		return true;
	/* Only a Catalyst run document names a project or a data-sharing
	 * level around its events. */
	const struct event_run_info *ri = event_log_run_info(log);
	return ri && (str_set(ri->project) || str_set(ri->data_sharing_level));
}

void analysis_free(struct analysis *a)
{
	if (!a)
		return;
	struct analysis_owned *ao = (struct analysis_owned *)(void *)a;
	free(a->findings); /* messages and evidence are in the text blocks */
	free(a->invocations);
	free(ao->attempt_pool);
	free(ao->timer_pool);
	free(a->withheld);
	free(a->sharing_source);
	for (size_t i = 0; i < a->n_limits; i++)
		free(a->limits[i]);
	free(a->limits);
	free(a->limit_specific);
	free(a->child_instances);
	free(a->versions);
	free(a->stalls);
	free(ao->status);
	analysis_texts_free(ao->texts);
	free(ao);
}

/* ---------------------------------------------------------------------- */
/* Names. */

/* names[v]; names[0], the enum's zero value, for a value out of range. */
static const char *name_of(const char *const *names, size_t n, unsigned v)
{
	return v < n ? names[v] : names[0];
}

#define NAME_OF(names, v) name_of((names), sizeof(names) / sizeof((names)[0]), (unsigned)(v))

const char *finding_kind_id(enum finding_kind k)
{
	if ((unsigned)k >= FINDING_KIND_COUNT)
		return "unknown";
	return analysis_rules[k].id;
}

enum severity finding_kind_severity(enum finding_kind k)
{
	if ((unsigned)k >= FINDING_KIND_COUNT)
		return SEVERITY_NOTICE;
	return analysis_rules[k].severity;
}

const char *severity_name(enum severity s)
{
	static const char *const names[] = {[SEVERITY_NOTICE] = "notice", [SEVERITY_SUSPECT] = "suspect"};
	return NAME_OF(names, s);
}

const char *attempt_outcome_name(enum attempt_outcome o)
{
	static const char *const names[] = {
		[OUTCOME_PENDING] = "pending",
		[OUTCOME_COMPLETED] = "completed",
		[OUTCOME_FAILED] = "failed",
	};
	return NAME_OF(names, o);
}

const char *withheld_field_name(enum withheld_field f)
{
	static const char *const names[] = {
		[WITHHELD_INPUT] = "input",
		[WITHHELD_OUTPUT] = "output",
		[WITHHELD_CUSTOM_STATUS] = "customStatus",
	};
	return NAME_OF(names, f);
}

const char *withheld_event_type(const struct withheld *w)
{
	return event_kind_name((enum event_kind)w->kind);
}

const char *invocation_link_name(enum invocation_link l)
{
	static const char *const names[] = {
		[LINK_SINGLE] = "single",
		[LINK_EXECUTION_ID] = "execution_id",
		[LINK_TIMER_ORIGIN] = "timer_origin",
		[LINK_PATTERN] = "pattern",
		[LINK_ORDER] = "order",
	};
	return NAME_OF(names, l);
}
