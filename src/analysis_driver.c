/* The re-execution analysis' driver (doc/history.md, "A grouping
 * procedure"), in two phases a caller can put the release of the events
 * between:
 *
 * 1. analysis_scan: one pass over the events (analysis_scan.c), linking
 *    attempts as it goes (analysis_group.c); the run facts and the
 *    data-sharing level (analysis_limits.c). The last reader of the events.
 * 2. analysis_finish: invocations (analysis_group.c), findings
 *    (analysis_findings.c runs the rules of analysis_rules.c and
 *    analysis_pairs.c), limits (analysis_limits.c); every string a renderer
 *    prints is made here.
 *
 * Everything is hash maps and linear passes: a 300,000-event history takes
 * a few milliseconds. It sits on top of the module: analysis.c below it
 * holds what the rest shares (freeing, the enums' names). */

#include <ctype.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "analysis_internal.h"

#define DEFAULT_PAYLOAD_LIMIT ((size_t)64 * 1024)

/* Between the phases: the working state, and the analysis in the making. */
struct analysis_pending {
	struct work w;
	struct analysis_owned *ao;
};

static char *normalise_status(const char *s)
{
	static const char *const prefixes[] = {"ORCHESTRATION_STATUS_", "RUNTIME_STATUS_", "WORKFLOW_STATUS_"};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i]);
		if (strncasecmp(s, prefixes[i], n) == 0) {
			s += n;
			break;
		}
	}
	char *out = strdup(s);
	if (!out)
		return NULL;
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

static bool status_terminal(const char *s)
{
	static const char *const terminal[] = {"completed", "failed", "terminated", "canceled", "cancelled"};
	for (size_t i = 0; i < sizeof terminal / sizeof terminal[0]; i++) {
		if (strcmp(s, terminal[i]) == 0)
			return true;
	}
	return false;
}

static int run_facts(struct work *w, struct analysis_owned *ao)
{
	struct analysis *an = &ao->pub;
	size_t n = w->n_events;
	const struct event_run_info *ri = event_log_run_info(w->log);
	an->n_events = n;
	an->versions = w->versions;
	an->n_versions = w->n_versions;
	for (size_t i = 0; i < an->n_versions; i++)
		if (an->versions[i].name && *an->versions[i].name)
			an->version = an->versions[i].name;
	an->stalls = w->stalls;
	an->n_stalls = w->n_stalls;
	w->versions = NULL;
	w->stalls = NULL;
	an->n_results = w->n_results;
	an->n_attested = w->n_attested;
	an->tampered = w->tampered;
	an->propagated = event_log_propagated(w->log);
	an->n_generations = n ? (size_t)w->gen + 1 : 0;
	an->workflow = w->first_workflow;
	an->started_at = w->first_started_at;
	an->instance_id = w->first_instance;
	if (ri) {
		if (!an->workflow && str_set(ri->workflow_name))
			an->workflow = ri->workflow_name;
		if (!an->instance_id && str_set(ri->instance_id))
			an->instance_id = ri->instance_id;
	}
	const char *raw = NULL;
	bool last_gen = w->completed_gen == w->gen;
	if (w->completed_seen && last_gen) {
		raw = w->completed_status;
		if (!str_set(raw))
			raw = w->completed_error ? "failed" : "completed";
	} else if (w->terminated && last_gen) {
		raw = "terminated";
	} else if (ri && str_set(ri->runtime_status)) {
		raw = ri->runtime_status;
	}
	if (raw) {
		ao->status = normalise_status(raw);
		if (!ao->status)
			return -1;
		an->status = ao->status;
		an->finished = status_terminal(ao->status) || (w->terminated && last_gen) ||
			       (w->completed_seen && last_gen && strcmp(ao->status, "continued_as_new") != 0);
		if (an->finished && last_gen && w->completed_at && *w->completed_at)
			an->ended_at = w->completed_at;
	}
	return 0;
}

/* Also called as soon as the findings are collected (the limits need only
 * the run facts): what it frees is NULL after it. The attempts are the
 * analysis' once grouped (w->att is then its attempt pool). */
static void work_finish(struct work *w, const struct analysis_owned *ao)
{
	analysis_link_release(w);
	analysis_pairs_release(w);
	if (!ao || w->att != ao->attempt_pool)
		free(w->att);
	free(w->wa);
	free(w->tim);
	free(w->dups);
	free(w->unp);
	w->unp = NULL;
	w->n_unp = w->cap_unp = 0;
	free(w->wh);
	free(w->race_loser);
	free(w->versions);
	free(w->stalls);
	w->versions = NULL;
	w->stalls = NULL;
	imap_free(&w->timers);
	w->race_loser = NULL;
	w->att = NULL;
	w->wa = NULL;
	w->tim = NULL;
	w->dups = NULL;
	w->wh = NULL;
	w->n_att = w->n_tim = w->n_dups = w->cap_dups = w->n_wh = w->cap_wh = 0;
	w->timers = (struct imap){0};
}

static void pending_free(struct analysis_pending *p)
{
	if (!p)
		return;
	work_finish(&p->w, p->ao);
	if (p->ao)
		analysis_free(&p->ao->pub);
	free(p);
}

static struct analysis_pending *scan(const struct event_log *log, struct event_log *release,
				     const struct analysis_options *o, struct err *e)
{
	size_t n = event_log_count(log);
	/* Positions are uint32_t (analysis.h); no history comes near. */
	if (n >= UINT32_MAX) {
		err_set(e, ERR_INPUT, "history of %zu events: the analysis takes fewer than %" PRIu32, n,
			UINT32_MAX);
		return NULL;
	}
	struct analysis_pending *p = calloc(1, sizeof *p);
	if (p)
		p->ao = calloc(1, sizeof *p->ao);
	if (!p || !p->ao)
		goto fail;
	struct work *w = &p->w;
	*w = (struct work){
		.log = log,
		.arena = &p->ao->texts,
		.release = release,
		.o = o,
		.payload_limit = o && o->payload_limit ? o->payload_limit : DEFAULT_PAYLOAD_LIMIT,
		.threads = o ? o->threads : 0,
		.dialect = event_log_dialect(log),
		.caps = event_log_caps(log),
		.n_events = n,
		.ds_first_present = NONE,
		.rerun_index = NONE32,
		/* The level as analysis_data_sharing will take it, if it is given. */
		.ds_given = analysis_sharing_given(log, o),
	};
	analysis_scan_events(w);
	analysis_link_release(w);
	if (w->oom || run_facts(w, p->ao) < 0 || analysis_data_sharing(w, p->ao) < 0)
		goto fail;
	/* Nothing after this reads the log, nor the options (the sharing
	 * source is copied). */
	w->log = NULL;
	w->release = NULL;
	w->o = NULL;
	return p;
fail:
	pending_free(p);
	err_oom(e);
	return NULL;
}

struct analysis_pending *analysis_scan(const struct event_log *log, const struct analysis_options *o,
				       struct err *e)
{
	return scan(log, NULL, o, e);
}

struct analysis_pending *analysis_scan_release(struct event_log *log, const struct analysis_options *o,
					       struct err *e)
{
	struct analysis_pending *p = scan(log, log, o, e);
	event_log_drop_events(log);
	return p;
}

struct analysis *analysis_finish(struct analysis_pending *p, struct err *e)
{
	if (!p)
		return NULL;
	struct work *w = &p->w;
	struct analysis_owned *ao = p->ao;
	struct finding_ctx c = {.w = w, .ao = ao, .texts = &ao->texts};
	c.fs.oom = &w->oom;
	struct analysis *res = NULL;
	if (analysis_group_invocations(w, ao) < 0 || analysis_findings(&c) < 0)
		goto out;
	/* The limits need only the run facts and the invocations. */
	work_finish(w, ao);
	analysis_findings_take(&c);
	analysis_limits(&c);
	if (w->oom)
		goto out;
	res = &ao->pub;
	p->ao = NULL;
out:
	if (!res)
		err_oom(e);
	free(c.fs.v);
	free(c.fs.ev);
	for (size_t i = 0; i < c.n_run_limits; i++)
		free(c.run_limits[i]);
	free(c.run_limits);
	buf_finish(&c.msg);
	buf_finish(&c.sum);
	pending_free(p);
	return res;
}

const char *analysis_pending_rerun_parent(const struct analysis_pending *p)
{
	return p ? p->w.rerun_parent : NULL;
}

void analysis_pending_rerun_source(struct analysis_pending *p, const struct analysis *source, const char *why_not)
{
	if (!p)
		return;
	p->w.rerun_src = source;
	p->w.rerun_src_why = why_not;
}

struct analysis *analysis_run(const struct event_log *log, const struct analysis_options *o, struct err *e)
{
	return analysis_finish(analysis_scan(log, o, e), e);
}
