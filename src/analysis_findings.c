/* The finding passes (doc/history.md, "A grouping procedure", step 3): the
 * rules of analysis_rules.c run over the grouped attempts, the run-wide
 * ones once, the per-invocation ones over every invocation (in two threads
 * on a large history). Each finding is built here: its evidence sorted and
 * packed, its message and summary packed into the analysis' text blocks.
 * Findings are sorted by position, kind and order of making; each kind
 * comes from one rule, so the order the rules run in does not show. */

#include <stdio.h>
#include <string.h>

#include "analysis_internal.h"
#include "parallel.h"

/* Finding messages (~670 bytes each, one per finding: 19 MB for 28,000
 * findings) and evidence arrays are packed into blocks rather than left in
 * their growing buffers, which kept a third more than they used (and a
 * malloc header each). Blocks start small (a `runs` audit holds thousands
 * of analyses with a few findings each) and double up to TEXT_BLOCK_MAX. */
#define TEXT_BLOCK_MIN ((size_t)4 * 1024)
#define TEXT_BLOCK_MAX ((size_t)256 * 1024)

struct text_block {
	struct text_block *next;
	size_t used, cap;
	char data[];
};

/* size bytes aligned to align (a power of two, at most 8: data sits 24
 * bytes into a malloc'd block) in the analysis' blocks. */
void *analysis_arena_alloc(struct text_block **head, size_t size, size_t align)
{
	struct text_block *b = *head;
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
	if (!b || at > b->cap || b->cap - at < size) {
		size_t cap = !b ? TEXT_BLOCK_MIN : b->cap < TEXT_BLOCK_MAX / 2 ? 2 * b->cap : TEXT_BLOCK_MAX;
		bool outsized = size > cap;
		if (outsized)
			cap = size;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		if (*head && outsized) {
			/* An outsized request gets its own block behind the current
			 * one, which keeps its free space. */
			b->next = (*head)->next;
			(*head)->next = b;
		} else {
			b->next = *head;
			*head = b;
		}
		at = 0;
	}
	b->used = at + size;
	return b->data + at;
}

/* A copy of s (len bytes, then a NUL) in the analysis' text blocks. */
static char *text_dup(struct text_block **head, const char *s, size_t len)
{
	char *t = analysis_arena_alloc(head, len + 1, 1);
	if (!t)
		return NULL;
	memcpy(t, s, len);
	t[len] = '\0';
	return t;
}

void analysis_texts_free(struct text_block *b)
{
	while (b) {
		struct text_block *next = b->next;
		free(b);
		b = next;
	}
}

struct finding_build *analysis_finding_new(struct finding_ctx *c, enum finding_kind kind, const char *activity,
					   const char *exec_id, uint32_t anchor)
{
	struct findings *fs = &c->fs;
	fs->v = grow(fs->v, &fs->cap, fs->n + 1, sizeof *fs->v, fs->oom);
	if (*fs->oom)
		return NULL;
	struct finding_build *b = &fs->v[fs->n];
	*b = (struct finding_build){
		.f =
			{
				.kind = kind,
				.severity = analysis_rules[kind].severity,
				.activity = activity,
				.task_execution_id = exec_id,
			},
		.anchor = anchor,
		.seq = (uint32_t)fs->n,
	};
	fs->n++;
	fs->n_ev = 0;
	return b;
}

static int cmp_evidence(const void *pa, const void *pb)
{
	uint32_t a = ((const struct evidence *)pa)->index, b = ((const struct evidence *)pb)->index;
	return a < b ? -1 : a > b;
}

/* Positions in history order, each once; the event ids of the actions among
 * them (only actions own an event id: a result's is -1 or missing). Both
 * arrays exactly sized, in the analysis' blocks. */
static int evidence_finish(struct findings *fs, struct finding *f, struct text_block **arena)
{
	size_t n = fs->n_ev;
	fs->n_ev = 0;
	if (!n)
		return 0;
	struct evidence *ev = fs->ev;
	/* Evidence is mostly added in history order (a repeated call's
	 * hundreds of calls always are), and otherwise a handful of entries:
	 * a check or an insertion sort, where qsort cost thousands of
	 * instructions a finding. */
	size_t sorted = 1;
	while (sorted < n && ev[sorted - 1].index <= ev[sorted].index)
		sorted++;
	if (sorted == n) {
		/* nothing to do */
	} else if (n <= 32) {
		for (size_t i = 1; i < n; i++) {
			struct evidence x = ev[i];
			size_t j = i;
			for (; j > 0 && ev[j - 1].index > x.index; j--)
				ev[j] = ev[j - 1];
			ev[j] = x;
		}
	} else {
		qsort(ev, n, sizeof *ev, cmp_evidence);
	}
	size_t u = 0, n_ids = 0;
	for (size_t i = 0; i < n; i++) {
		if (u == 0 || ev[u - 1].index != ev[i].index) {
			ev[u++] = ev[i];
			n_ids += ev[i].id >= 0;
		}
	}
	f->evidence_event_indexes =
		analysis_arena_alloc(arena, u * sizeof *f->evidence_event_indexes, _Alignof(uint32_t));
	f->evidence_event_ids =
		n_ids ? analysis_arena_alloc(arena, n_ids * sizeof *f->evidence_event_ids, _Alignof(int64_t))
		      : NULL;
	if (!f->evidence_event_indexes || (n_ids && !f->evidence_event_ids))
		return -1;
	for (size_t i = 0; i < u; i++) {
		f->evidence_event_indexes[i] = ev[i].index;
		if (ev[i].id >= 0 && f->evidence_event_ids)
			f->evidence_event_ids[f->n_evidence++] = ev[i].id;
	}
	f->n_evidence_event_indexes = u;
	return 0;
}

void analysis_finding_text(struct finding_ctx *c, struct sb *s, struct sb *t)
{
	*s = (struct sb){.b = c->msg, .oom = c->fs.oom};
	buf_reset(&s->b);
	buf_init(&c->msg, 0);
	*t = (struct sb){.b = c->sum, .oom = c->fs.oom};
	buf_reset(&t->b);
	buf_init(&c->sum, 0);
}

void analysis_finding_finish(struct finding_ctx *c, struct finding_build *b, struct sb *s, struct sb *t,
			     const char *remedy)
{
	if (b && !*s->oom) {
		b->f.message_head = text_dup(c->texts, s->b.data ? s->b.data : "", s->b.len);
		b->f.summary = text_dup(c->texts, t->b.data ? t->b.data : "", t->b.len);
		b->f.remedy = remedy ? remedy : analysis_rules[b->f.kind].explain;
		if (!b->f.message_head || !b->f.summary || evidence_finish(&c->fs, &b->f, c->texts) < 0)
			*s->oom = true;
	}
	c->msg = s->b;
	c->sum = t->b;
}

void analysis_finding_finish_untold(struct finding_ctx *c, struct finding_build *b, const char *remedy)
{
	if (!b || *c->fs.oom)
		return;
	b->f.remedy = remedy ? remedy : analysis_rules[b->f.kind].explain;
	if (evidence_finish(&c->fs, &b->f, c->texts) < 0)
		*c->fs.oom = true;
}

void analysis_run_limit_add(struct finding_ctx *c, char *text)
{
	struct work *w = c->w;
	if (!text)
		return;
	c->run_limits =
		grow(c->run_limits, &c->cap_run_limits, c->n_run_limits + 1, sizeof *c->run_limits, &w->oom);
	if (w->oom) {
		free(text);
		return;
	}
	c->run_limits[c->n_run_limits++] = text;
}

/* The per-invocation rules over invocations [from, to): each invocation's
 * findings stand alone. */
static void findings_of(struct finding_ctx *c, size_t from, size_t to)
{
	const struct analysis *an = &c->ao->pub;
	for (size_t v = from; v < to && !*c->fs.oom; v++) {
		const struct invocation *inv = &an->invocations[v];
		/* A rerun's copies ran in the source run: not this run's
		 * executions (they come first in each invocation). When the
		 * rest begins with the re-driven call, its rerun finding speaks
		 * for the copy; any other attempt of a copied call ran it again
		 * here, and the whole chain is this run's re-execution (the
		 * summary counts it: issue 28, no count without its finding). */
		size_t n_copied = 0;
		while (n_copied < inv->n_attempts && att_copied(c->w, &inv->attempts[n_copied]))
			n_copied++;
		if (n_copied == inv->n_attempts)
			continue;
		struct invocation own;
		if (n_copied && inv->attempts[n_copied].event_index == c->w->rerun_index) {
			own = *inv;
			own.attempts += n_copied;
			own.n_attempts -= (uint32_t)n_copied;
			if (own.n_attempts < 2)
				own.link = LINK_SINGLE;
			inv = &own;
		}
		for (size_t k = 0; k < FINDING_KIND_COUNT; k++) {
			if (analysis_rules[k].detect)
				analysis_rules[k].detect(c, inv);
		}
	}
}

/* Over 10,000 invocations a second thread is worth starting. */
#define THREAD_INVOCATIONS 10001

/* The second half of the invocations, made in a thread of its own: it
 * reads the analysis and the working state, which nobody writes until it
 * is joined, and writes only its own findings, text blocks and flag. */
struct half {
	struct finding_ctx c;
	size_t from, to;
	bool oom;
	struct text_block *texts;
};

static void half_main(void *arg)
{
	struct half *h = arg;
	findings_of(&h->c, h->from, h->to);
}

/* The half's findings after c's, in the order one thread makes them: c
 * holds the run-wide rules' and the first half's, so the half's sequence
 * numbers go on from there, and cmp_findings (position, kind, sequence:
 * every key distinct) sorts both ways alike. Its text blocks become the
 * analysis' whatever happens, so analysis_free frees them. */
static void half_merge(struct finding_ctx *c, struct half *h)
{
	if (h->texts) {
		struct text_block *last = h->texts;
		while (last->next)
			last = last->next;
		if (*c->texts) {
			last->next = (*c->texts)->next;
			(*c->texts)->next = h->texts;
		} else {
			*c->texts = h->texts;
		}
		h->texts = NULL;
	}
	struct findings *fs = &h->c.fs;
	if (h->oom)
		*c->fs.oom = true;
	/* Exactly: doubling would leave up to half of the merged array
	 * unused, beside the half's own until it is freed below. */
	size_t need = c->fs.n + fs->n;
	if (!*c->fs.oom && need > c->fs.cap) {
		struct finding_build *v = realloc(c->fs.v, need * sizeof *v);
		if (v) {
			c->fs.v = v;
			c->fs.cap = need;
		} else {
			*c->fs.oom = true;
		}
	}
	if (!*c->fs.oom) {
		size_t base = c->fs.n;
		for (size_t i = 0; i < fs->n; i++) {
			c->fs.v[base + i] = fs->v[i];
			c->fs.v[base + i].seq = (uint32_t)(base + fs->v[i].seq);
		}
		c->fs.n = base + fs->n;
	}
	free(fs->v);
	free(fs->ev);
	buf_finish(&h->c.msg);
	buf_finish(&h->c.sum);
	fs->v = NULL;
	fs->ev = NULL;
}

/* Every invocation's findings; in two threads, one per half of the
 * invocations, on a large history when the threads setting allows. */
static void invocation_findings(struct finding_ctx *c)
{
	size_t n = c->ao->pub.n_invocations;
	if (!parallel_wanted(c->w->threads, n, THREAD_INVOCATIONS)) {
		findings_of(c, 0, n);
		return;
	}
	struct half h = {.from = n / 2, .to = n};
	h.c = (struct finding_ctx){
		.w = c->w,
		.ao = c->ao,
		.texts = &h.texts,
	};
	h.c.fs.oom = &h.oom;
	struct parallel_task *t = parallel_start(half_main, &h);
	findings_of(c, 0, h.from);
	if (t)
		parallel_join(t);
	else
		half_main(&h); /* no thread to be had: the same, in turn */
	half_merge(c, &h);
}

static void evidence_scratch_free(struct findings *fs)
{
	free(fs->ev);
	fs->ev = NULL;
	fs->n_ev = fs->cap_ev = 0;
}

int analysis_findings(struct finding_ctx *c)
{
	struct work *w = c->w;
	/* The run-wide rules first, so that the pairs' working memory is gone
	 * before the other findings' messages exist; the pairs whose inputs
	 * cannot be compared and the race losers are limits, made before them
	 * and in that order. */
	analysis_pairs_collect(c);
	if (!w->oom)
		analysis_race_losers(c);
	for (size_t k = 0; k < FINDING_KIND_COUNT && !w->oom; k++) {
		if (analysis_rules[k].detect_run)
			analysis_rules[k].detect_run(c);
	}
	analysis_pairs_release(w);
	evidence_scratch_free(&c->fs);
	if (!w->oom)
		invocation_findings(c);
	evidence_scratch_free(&c->fs);
	return w->oom ? -1 : 0;
}

static int cmp_findings(const void *pa, const void *pb)
{
	const struct finding_build *a = pa, *b = pb;
	if (a->anchor != b->anchor)
		return a->anchor < b->anchor ? -1 : 1;
	if (a->f.kind != b->f.kind)
		return a->f.kind < b->f.kind ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void analysis_findings_take(struct finding_ctx *c)
{
	struct findings *fs = &c->fs;
	struct analysis *an = &c->ao->pub;
	if (fs->n)
		qsort(fs->v, fs->n, sizeof *fs->v, cmp_findings);
	/* Moved out of their build records into the same memory (a struct
	 * finding is the head of each record). */
	struct finding *out = (struct finding *)(void *)fs->v;
	for (size_t i = 0; i < fs->n; i++)
		memmove(&out[i], &fs->v[i].f, sizeof *out);
	struct finding *fit = realloc(out, (fs->n ? fs->n : 1) * sizeof *out);
	if (fit)
		out = fit;
	an->findings = out;
	an->n_findings = fs->n;
	fs->v = NULL;
	fs->n = fs->cap = 0;
}
