/* The fleet view's rows: runs folded in one at a time, from an analysis or
 * a saved report's run object, into counts per (project, app, activity). */

#include "stats.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

/* Error messages are kept this long at most: enough to tell two apart. */
#define MESSAGE_MAX 300

const char *stats_class_name(enum stats_class c)
{
	static const char *const names[STATS_CLASS_COUNT] = {"ambiguous", "permanent", "safe", "unknown"};
	return c < STATS_CLASS_COUNT ? names[c] : "unknown";
}

void stats_init(struct stats *st, enum stats_source source)
{
	memset(st, 0, sizeof *st);
	st->source = source;
	st->index = json_object();
	st->project_set = json_object();
	st->seen = source == STATS_FROM_REPORTS ? json_object() : NULL;
}

static void row_free(struct stats_row *r)
{
	if (!r)
		return;
	free(r->project);
	free(r->app_id);
	free(r->name);
	free(r->version);
	free(r->sparse);
	for (int k = 0; k < FINDING_KIND_COUNT; k++)
		free(r->kind_remedy[k]);
	for (int c = 0; c < STATS_CLASS_COUNT; c++)
		for (size_t i = 0; i < r->failures[c].n_slots; i++)
			free(r->failures[c].slots[i].message);
	free(r->latest.app_id);
	free(r->latest.run_id);
	free(r->latest.started_at);
	free(r->latest.console_link);
	free(r->latest.link_note);
	free(r);
}

void stats_finish(struct stats *st)
{
	for (size_t i = 0; i < st->n_rows; i++)
		row_free(st->rows[i]);
	free(st->rows);
	for (size_t i = 0; i < st->n_notes; i++)
		free(st->notes[i]);
	free(st->notes);
	json_decref(st->index);
	json_decref(st->project_set);
	json_decref(st->seen);
	memset(st, 0, sizeof *st);
}

int stats_add_note(struct stats *st, const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	char **more = realloc(st->notes, (st->n_notes + 1) * sizeof *more);
	if (!more) {
		free(s);
		return -1;
	}
	st->notes = more;
	st->notes[st->n_notes++] = s;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Length-prefixed, so no id can pass for another whatever it holds. */
static char *key_of(enum project_form form, const char *project, const char *app, const char *name,
		    const char *version)
{
	char *key;
	if (asprintf(&key, "%d%c%zu:%s%c%zu:%s%c%zu:%s%c%zu:%s", (int)form, project ? '+' : '-',
		     project ? strlen(project) : 0, project ? project : "", app ? '+' : '-', app ? strlen(app) : 0,
		     app ? app : "", name ? '+' : '-', name ? strlen(name) : 0, name ? name : "",
		     version ? '+' : '-', version ? strlen(version) : 0, version ? version : "") < 0)
		return NULL;
	return key;
}

/* The run being folded: what every row it touches needs. */
struct fold {
	struct stats *st;
	enum project_form form;
	const char *project;
	const char *app_id;
	const char *run_id;
	const char *started_at;
	const char *console_link;
	const char *link_note;
	const char *version; /* by_version: the run's, NULL when it names none */
	struct err *e;
};

static struct stats_row *row_get(struct fold *f, const char *name)
{
	struct stats *st = f->st;
	char *key = key_of(f->form, f->project, f->app_id, name, f->version);
	if (!key)
		goto oom;
	json_t *at = json_object_get(st->index, key);
	if (at) {
		free(key);
		struct stats_row *r = st->rows[json_integer_value(at)];
		if (r->last_run != st->runs) {
			r->last_run = st->runs;
			r->runs++;
		}
		return r;
	}
	struct stats_row *r = calloc(1, sizeof *r);
	if (!r)
		goto oom;
	if (st->n_rows == st->cap_rows) {
		size_t cap = st->cap_rows ? st->cap_rows * 2 : 32;
		struct stats_row **more = realloc(st->rows, cap * sizeof *more);
		if (!more) {
			free(r);
			goto oom;
		}
		st->rows = more;
		st->cap_rows = cap;
	}
	r->project_form = f->form;
	r->project = dup_or_null(f->project);
	r->app_id = dup_or_null(f->app_id);
	r->name = dup_or_null(name);
	r->version = dup_or_null(f->version);
	r->last_run = st->runs;
	r->runs = 1;
	if ((f->project && !r->project) || (f->app_id && !r->app_id) || (name && !r->name) ||
	    (f->version && !r->version) ||
	    json_object_set_new_nocheck(st->index, key, json_integer((json_int_t)st->n_rows)) < 0) {
		row_free(r);
		goto oom;
	}
	free(key);
	st->rows[st->n_rows++] = r;
	return r;
oom:
	free(key);
	err_oom(f->e);
	return NULL;
}

static int row_invocation(struct fold *f, struct stats_row *r, size_t attempts, bool child)
{
	r->child_workflow |= child;
	r->invocations++;
	if (attempts > 1)
		r->reexecuted++;
	if (attempts <= STATS_DENSE_ATTEMPTS) {
		r->hist[attempts]++;
		return 0;
	}
	for (size_t i = 0; i < r->n_sparse; i++)
		if (r->sparse[i].attempts == attempts) {
			r->sparse[i].invocations++;
			return 0;
		}
	if (r->n_sparse == r->cap_sparse) {
		size_t cap = r->cap_sparse ? r->cap_sparse * 2 : 4;
		struct stats_pair *more = realloc(r->sparse, cap * sizeof *more);
		if (!more)
			return err_oom(f->e);
		r->sparse = more;
		r->cap_sparse = cap;
	}
	r->sparse[r->n_sparse++] = (struct stats_pair){attempts, 1};
	return 0;
}

/* Space-saving: a message not in a full table takes the place of the least
 * counted one, with its count plus one. */
static int row_failure(struct fold *f, struct stats_row *r, enum stats_class c, const char *message)
{
	struct stats_failures *fl = &r->failures[c];
	fl->attempts++;
	if (!message)
		return 0; /* absent: counted, never shown as empty */
	size_t len = strnlen(message, MESSAGE_MAX);
	for (size_t i = 0; i < fl->n_slots; i++)
		if (strncmp(fl->slots[i].message, message, len) == 0 && fl->slots[i].message[len] == '\0') {
			fl->slots[i].count++;
			return 0;
		}
	char *copy = strndup(message, len);
	if (!copy)
		return err_oom(f->e);
	if (fl->n_slots < STATS_MESSAGE_SLOTS) {
		fl->slots[fl->n_slots++] = (struct stats_message){copy, 1, 0};
		return 0;
	}
	size_t least = 0;
	for (size_t i = 1; i < fl->n_slots; i++)
		if (fl->slots[i].count < fl->slots[least].count)
			least = i;
	struct stats_message *m = &fl->slots[least];
	free(m->message);
	m->message = copy;
	m->overcount = m->count;
	m->count++;
	fl->estimated = true;
	return 0;
}

static enum stats_class class_of(enum failure_class c)
{
	switch (c) {
	case FAILURE_AMBIGUOUS:
		return STATS_CLASS_AMBIGUOUS;
	case FAILURE_PERMANENT:
		return STATS_CLASS_PERMANENT;
	case FAILURE_SAFE:
		return STATS_CLASS_SAFE;
	default:
		return STATS_CLASS_UNKNOWN;
	}
}

/* Later start wins; a run that names its start beats one that does not;
 * between equals, the greater run id, so the pick does not depend on the
 * order runs arrive in. */
static bool later_than(const char *at, const char *run_id, const struct stats_suspect_run *cur)
{
	if (!cur->run_id)
		return true;
	if (at && cur->started_at) {
		int c = strcmp(at, cur->started_at);
		if (c)
			return c > 0;
	} else if (at || cur->started_at) {
		return at != NULL;
	}
	return strcmp(run_id ? run_id : "", cur->run_id) > 0;
}

static int row_finding(struct fold *f, struct stats_row *r, enum finding_kind k, enum severity sev,
		       const char *remedy)
{
	if (k >= FINDING_KIND_COUNT)
		return 0;
	r->kinds[k]++;
	if (sev == SEVERITY_SUSPECT)
		r->suspect++;
	else
		r->notice++;
	if (remedy && !r->kind_remedy[k] && !(r->kind_remedy[k] = strdup(remedy)))
		return err_oom(f->e);
	if (sev != SEVERITY_SUSPECT || !later_than(f->started_at, f->run_id, &r->latest))
		return 0;
	struct stats_suspect_run n = {dup_or_null(f->app_id), dup_or_null(f->run_id), dup_or_null(f->started_at),
				      dup_or_null(f->console_link), dup_or_null(f->link_note)};
	struct stats_suspect_run old = r->latest;
	r->latest = n;
	free(old.app_id);
	free(old.run_id);
	free(old.started_at);
	free(old.console_link);
	free(old.link_note);
	if ((f->app_id && !n.app_id) || (f->run_id && !n.run_id) || (f->started_at && !n.started_at) ||
	    (f->console_link && !n.console_link) || (f->link_note && !n.link_note))
		return err_oom(f->e);
	return 0;
}

static int count_project(struct fold *f)
{
	char *key = key_of(f->form, f->project, NULL, NULL, NULL);
	if (!key || json_object_set_new_nocheck(f->st->project_set, key, json_true()) < 0) {
		free(key);
		return err_oom(f->e);
	}
	free(key);
	f->st->projects = json_object_size(f->st->project_set);
	return 0;
}

int stats_add_report_run(struct stats *st, const struct report_run *rr, struct err *e)
{
	st->runs++;
	const struct analysis *a = rr->analysis;
	if (!a) {
		st->failed_runs++;
		return 0;
	}
	struct fold f = {.st = st,
			 .form = rr->project_form,
			 .project = rr->project,
			 .app_id = rr->app_id,
			 .run_id = rr->run_id,
			 .started_at = a->started_at,
			 .console_link = rr->console_link,
			 .link_note = rr->console_link ? NULL : rr->link_note,
			 .e = e};
	if (st->by_version)
		f.version = a->version;
	if (count_project(&f) < 0)
		return -1;
	for (size_t i = 0; i < a->n_invocations; i++) {
		const struct invocation *inv = &a->invocations[i];
		struct stats_row *r = row_get(&f, inv->name);
		if (!r || row_invocation(&f, r, inv->n_attempts, inv->is_child_workflow) < 0)
			return -1;
		for (uint32_t k = 0; k < inv->n_attempts; k++) {
			const struct attempt *at = &inv->attempts[k];
			if (at->outcome == OUTCOME_FAILED &&
			    row_failure(&f, r, class_of((enum failure_class)at->failure),
					attempt_more(at)->error_message) < 0)
				return -1;
		}
	}
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct finding *fd = &a->findings[i];
		struct stats_row *r = row_get(&f, fd->activity);
		if (!r || row_finding(&f, r, fd->kind, fd->severity, fd->remedy) < 0)
			return -1;
	}
	return 0;
}

/* ---- a saved report's run object --------------------------------------- */

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static enum finding_kind kind_by_id(const char *id)
{
	for (int k = 0; id && k < FINDING_KIND_COUNT; k++)
		if (strcmp(finding_kind_id((enum finding_kind)k), id) == 0)
			return (enum finding_kind)k;
	return FINDING_KIND_COUNT;
}

static enum stats_class class_by_name(const char *s)
{
	for (int c = 0; s && c < STATS_CLASS_COUNT; c++)
		if (strcmp(stats_class_name((enum stats_class)c), s) == 0)
			return (enum stats_class)c;
	return STATS_CLASS_UNKNOWN;
}

/* Whether the run was met already (a newer report came first): the key
 * is (project, app, run). */
static int seen_before(struct fold *f, bool *seen)
{
	char *key = key_of(f->form, f->project, f->app_id, f->run_id, NULL);
	if (!key)
		return err_oom(f->e);
	*seen = json_object_get(f->st->seen, key) != NULL;
	int rc = 0;
	if (!*seen && json_object_set_new_nocheck(f->st->seen, key, json_true()) < 0)
		rc = err_oom(f->e);
	free(key);
	return rc;
}

int stats_add_json_run(struct stats *st, const json_t *run, struct err *e)
{
	if (!json_is_object(run))
		return err_set(e, ERR_INPUT, "a run is not a JSON object");
	const json_t *activities = json_object_get(run, "activities");
	const json_t *findings = json_object_get(run, "findings");
	if (!json_is_array(activities) || !json_is_array(findings) || !json_object_get(run, "run_id"))
		return err_set(e, ERR_INPUT,
			       "not a catalyst-audit run object (no run_id, activities or findings)");
	struct fold f = {.st = st, .e = e};
	const json_t *project = json_object_get(run, "project");
	if (jstr(project, "name")) {
		f.form = PROJECT_NAME;
		f.project = jstr(project, "name");
	} else if (jstr(project, "uid")) {
		f.form = PROJECT_UID;
		f.project = jstr(project, "uid");
	}
	f.app_id = jstr(run, "app_id");
	f.run_id = jstr(run, "run_id");
	f.started_at = jstr(run, "started_at");
	f.console_link = jstr(run, "console_link");
	f.link_note = f.console_link ? NULL : jstr(run, "link_note");
	/* A report of before versions were read has no "version": the run
	 * names none as far as it can tell. */
	if (st->by_version)
		f.version = jstr(json_object_get(run, "version"), "name");
	if (st->seen) {
		bool seen = false;
		if (seen_before(&f, &seen) < 0)
			return -1;
		if (seen) {
			st->repeats++;
			return 0;
		}
	}
	st->runs++;
	/* A run the report could not audit: its counts are null. */
	if (!json_is_object(json_object_get(run, "counts"))) {
		st->failed_runs++;
		return 0;
	}
	if (count_project(&f) < 0)
		return -1;
	size_t i, k;
	const json_t *inv, *at;
	json_array_foreach(activities, i, inv) {
		const json_t *attempts = json_object_get(inv, "attempts");
		struct stats_row *r = row_get(&f, jstr(inv, "name"));
		if (!r || row_invocation(&f, r, json_array_size(attempts),
					 json_is_true(json_object_get(inv, "child_workflow"))) < 0)
			return -1;
		json_array_foreach(attempts, k, at) {
			const char *outcome = jstr(at, "outcome");
			if (outcome && strcmp(outcome, "failed") == 0 &&
			    row_failure(&f, r, class_by_name(jstr(at, "failure_class")),
					jstr(at, "error_message")) < 0)
				return -1;
		}
	}
	const json_t *fd;
	json_array_foreach(findings, i, fd) {
		enum finding_kind kind = kind_by_id(jstr(fd, "kind"));
		if (kind == FINDING_KIND_COUNT)
			continue; /* a kind of a later version: not ours to count */
		const char *sev = jstr(fd, "severity");
		struct stats_row *r = row_get(&f, jstr(fd, "activity"));
		if (!r || row_finding(&f, r, kind,
				      sev && strcmp(sev, "suspect") == 0 ? SEVERITY_SUSPECT : SEVERITY_NOTICE,
				      jstr(fd, "remedy")) < 0)
			return -1;
	}
	return 0;
}

/* ---- the ranking --------------------------------------------------------- */

/* The nearest-rank percentile p (of 100) of the row's attempt counts. */
static size_t percentile(const struct stats_row *r, unsigned p)
{
	if (!r->invocations)
		return 0;
	size_t rank = (r->invocations * p + 99) / 100;
	if (rank == 0)
		rank = 1;
	size_t seen = 0;
	for (size_t a = 0; a <= STATS_DENSE_ATTEMPTS; a++) {
		seen += r->hist[a];
		if (seen >= rank)
			return a;
	}
	/* The sparse pairs are sorted by then. */
	for (size_t i = 0; i < r->n_sparse; i++) {
		seen += r->sparse[i].invocations;
		if (seen >= rank)
			return r->sparse[i].attempts;
	}
	return 0;
}

static int by_attempts(const void *a, const void *b)
{
	const struct stats_pair *x = a, *y = b;
	return (x->attempts > y->attempts) - (x->attempts < y->attempts);
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int by_rank(const void *a, const void *b)
{
	const struct stats_row *x = *(struct stats_row *const *)a, *y = *(struct stats_row *const *)b;
	if (x->suspect != y->suspect)
		return x->suspect > y->suspect ? -1 : 1;
	/* The shares compared exactly: x.re / x.inv against y.re / y.inv. */
	unsigned long long l = (unsigned long long)x->reexecuted * y->invocations,
			   rr = (unsigned long long)y->reexecuted * x->invocations;
	if (l != rr)
		return l > rr ? -1 : 1;
	if (x->invocations != y->invocations)
		return x->invocations > y->invocations ? -1 : 1;
	int c;
	if ((c = cmp_str(x->project, y->project)) || (c = cmp_str(x->app_id, y->app_id)) ||
	    (c = cmp_str(x->name, y->name)) || (c = cmp_str(x->version, y->version)))
		return c;
	return (int)x->project_form - (int)y->project_form;
}

/* The kind whose remedy a row gets: suspect kinds before notice kinds,
 * then the most findings, then the order of the kinds. */
static void pick_remedy(struct stats_row *r)
{
	int best = -1;
	for (int k = 0; k < FINDING_KIND_COUNT; k++) {
		if (!r->kinds[k] || !r->kind_remedy[k])
			continue;
		if (best < 0) {
			best = k;
			continue;
		}
		bool ks = finding_kind_severity((enum finding_kind)k) == SEVERITY_SUSPECT;
		bool bs = finding_kind_severity((enum finding_kind)best) == SEVERITY_SUSPECT;
		if (ks != bs ? ks : r->kinds[k] > r->kinds[best])
			best = k;
	}
	r->remedy = best >= 0 ? r->kind_remedy[best] : NULL;
	r->top_kind = best >= 0 ? (enum finding_kind)best : FINDING_REEXECUTED;
}

static void order_messages(struct stats_row *r)
{
	for (int c = 0; c < STATS_CLASS_COUNT; c++) {
		const struct stats_failures *fl = &r->failures[c];
		bool used[STATS_MESSAGE_SLOTS] = {false};
		size_t n = 0;
		for (; n < STATS_MESSAGES_SHOWN && n < fl->n_slots; n++) {
			size_t best = SIZE_MAX;
			for (size_t i = 0; i < fl->n_slots; i++) {
				if (used[i])
					continue;
				if (best == SIZE_MAX || fl->slots[i].count > fl->slots[best].count ||
				    (fl->slots[i].count == fl->slots[best].count &&
				     strcmp(fl->slots[i].message, fl->slots[best].message) < 0))
					best = i;
			}
			used[best] = true;
			r->order[c][n] = best;
		}
		r->n_shown[c] = n;
	}
}

void stats_rank(struct stats *st)
{
	for (size_t i = 0; i < st->n_rows; i++) {
		struct stats_row *r = st->rows[i];
		if (r->n_sparse > 1)
			qsort(r->sparse, r->n_sparse, sizeof *r->sparse, by_attempts);
		r->attempts_median = percentile(r, 50);
		r->attempts_p95 = percentile(r, 95);
		r->attempts_max = percentile(r, 100);
		r->reexecuted_share = r->invocations ? (double)r->reexecuted / (double)r->invocations : 0.0;
		pick_remedy(r);
		order_messages(r);
	}
	if (st->n_rows > 1)
		qsort(st->rows, st->n_rows, sizeof *st->rows, by_rank);
	/* The index points at positions before the ranking: no use after it. */
	json_object_clear(st->index);
}
