/* What a command over Catalyst carries: its session, the project, the
 * data-sharing level as the answers reveal it, the runs in its report; and
 * the whoami probe that checks the identity first. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit_catalyst.h"
#include "audit_save.h"

void audit_ctx_init(struct audit_ctx *x, const struct audit_request *rq, struct report *r)
{
	memset(x, 0, sizeof *x);
	x->rq = rq;
	x->r = r;
	x->project = rq->project;
	pthread_mutex_init(&x->lock, NULL);
	x->rank = RANK_NONE;
	x->seen = catalyst_run_set_new();
	x->sharing = SHARING_UNKNOWN;
	x->save_fd = -1;
	if (rq->sharing != SHARING_UNKNOWN) {
		x->sharing = rq->sharing;
		x->rank = RANK_ASSERTED;
		snprintf(x->sharing_source, sizeof x->sharing_source, "asserted with --data-sharing");
	}
}

void audit_ctx_finish(struct audit_ctx *x)
{
	audit_stream_free(x->stream);
	x->stream = NULL;
	session_close(x->session);
	x->session = NULL;
	x->c = NULL;
	catalyst_run_set_free(x->seen);
	json_decref(x->baseline);
	audit_free_source(x->source);
	free(x->unresolved);
	free(x->project_said);
	free(x->said_note);
	free(x->unconfirmed);
	if (x->save_fd >= 0)
		close(x->save_fd);
	pthread_mutex_destroy(&x->lock);
}

int audit_ctx_connect(struct audit_ctx *x, struct err *e)
{
	if (x->rq->save_histories && x->save_fd < 0 &&
	    audit_save_open_dir(x->rq->save_histories, &x->save_fd, e) < 0)
		return -1;
	x->session = audit_session_open(x->rq, SESSION_CATALYST, e);
	x->c = session_catalyst(x->session);
	if (x->c) {
		struct event_parse_options po = audit_parse_options(x->rq);
		catalyst_set_parse_options(x->c, &po);
	}
	return x->session ? 0 : -1;
}

/* ---- data-sharing level ---------------------------------------------- */

void audit_sharing_offer(struct audit_ctx *x, enum data_sharing_level l, enum sharing_rank rank, const char *fmt,
			 ...)
{
	if (l == SHARING_UNKNOWN)
		return;
	pthread_mutex_lock(&x->lock);
	if (rank < x->rank) {
		if (x->rank == RANK_ASSERTED && x->sharing != l && x->r)
			report_add_note(x->r,
					"--data-sharing %s contradicts the server, which says %s; the server's "
					"answer is used",
					data_sharing_level_name(x->sharing), data_sharing_level_name(l));
		x->rank = rank;
		x->sharing = l;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(x->sharing_source, sizeof x->sharing_source, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&x->lock);
}

void audit_sharing_from_refusal(struct audit_ctx *x, const struct catalyst_refusal *rf)
{
	audit_sharing_offer(x, rf->level, RANK_REFUSAL, "named by a %s refusal (%s)", rf->kind, rf->level_key);
}

void audit_sharing_from_field(struct audit_ctx *x, enum data_sharing_level level, const char *key,
			      const char *tool)
{
	audit_sharing_offer(x, level, RANK_FIELD, "field %s in the %s answer", key, tool);
}

void audit_sharing_get(struct audit_ctx *x, enum data_sharing_level *level, char *source, size_t size)
{
	pthread_mutex_lock(&x->lock);
	*level = x->sharing;
	snprintf(source, size, "%s", x->sharing_source);
	pthread_mutex_unlock(&x->lock);
}

/* ---- the identity check ------------------------------------------------ */

int audit_probe_whoami(struct audit_ctx *x, struct err *e)
{
	if (!catalyst_has_tool(x->c, "catalyst_whoami"))
		return 0;
	struct catalyst_identity id;
	struct catalyst_refusal rf;
	memset(&rf, 0, sizeof rf);
	if (catalyst_whoami(x->c, &id, &rf, e) < 0) {
		if (e->detail == ERR_DETAIL_REFUSAL) {
			audit_sharing_from_refusal(x, &rf);
			if (rf.family == CATALYST_REFUSAL_CONNECTION)
				return -1;
		}
		/* Anything else: whoami is a courtesy here, the audit goes on. */
		err_clear(e);
		return 0;
	}
	audit_sharing_from_field(x, id.sharing, id.sharing_key, "catalyst_whoami");
	catalyst_identity_finish(&id);
	return 0;
}

static void *probe_main(void *arg)
{
	struct whoami_probe *w = arg;
	w->rc = audit_probe_whoami(w->x, &w->e);
	return NULL;
}

int audit_probe_start(struct audit_ctx *x, struct whoami_probe *w, struct err *e)
{
	memset(w, 0, sizeof *w);
	w->x = x;
	err_clear(&w->e);
	if (pthread_create(&w->th, NULL, probe_main, w) != 0)
		return audit_probe_whoami(x, e);
	w->running = true;
	x->whoami = w;
	return 0;
}

void audit_probe_join(struct audit_ctx *x)
{
	struct whoami_probe *w = x->whoami;
	if (!w || !w->running)
		return;
	pthread_join(w->th, NULL);
	w->running = false;
}

/* ---- the runs in the report ------------------------------------------- */

bool audit_seen_run(const struct audit_ctx *x, const char *app_id, const char *run_id)
{
	return catalyst_run_set_has(x->seen, app_id, run_id);
}

int audit_mark_run(struct audit_ctx *x, const char *app_id, const char *run_id, struct err *e)
{
	return catalyst_run_set_add(x->seen, app_id, run_id) < 0 ? err_oom(e) : 0;
}
