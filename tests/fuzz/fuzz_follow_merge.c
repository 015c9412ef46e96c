/* libFuzzer harness for run --follow's comparison of readings
 * (report_follow_news): the bytes are up to eight histories, one per
 * reading, split at each 0x1e byte (ASCII record separator), each parsed
 * and analysed as a reading would be. Invariants: no crash, no leak; what
 * is said is an event of the reading (its index inside it) and each event
 * of a reading is said at most once; a reading given again says nothing
 * new and lacks what it lacked; the counts of what a reading no longer
 * holds never exceed what was said. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "event.h"
#include "report_follow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	size_t n_events;     /* of the reading */
	unsigned char *said; /* per index: said already in this call */
	size_t events, findings;
	bool bad;
};

static int on_event(const struct follow_event *ev, void *ctx, struct err *e)
{
	(void)e;
	struct tally *t = ctx;
	if (ev->index >= t->n_events || t->said[ev->index] || (unsigned)ev->what >= FOLLOW_WHAT_COUNT)
		t->bad = true;
	else
		t->said[ev->index] = 1;
	t->events++;
	return 0;
}

static int on_finding(const struct analysis *a, size_t at, void *ctx, struct err *e)
{
	(void)e;
	struct tally *t = ctx;
	if (!a || at >= a->n_findings)
		t->bad = true;
	t->findings++;
	return 0;
}

/* One reading: 0, or -1 when it cannot be one (not a history). */
static int reading(struct report_follow *f, const char *buf, size_t len, size_t *said_events,
		   size_t *said_findings)
{
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_parse(buf, len, &e);
	if (!log)
		return -1;
	struct analysis_options o = {.sharing_source = "fuzz"};
	struct analysis *a = analysis_run(log, &o, &e);
	if (!a) {
		event_log_free(log);
		return -1;
	}
	size_t n = event_log_count(log);
	struct tally t = {.n_events = n, .said = calloc(n ? n : 1, 1)};
	if (!t.said)
		abort();
	struct follow_sink sink = {on_event, on_finding, &t};
	long news = report_follow_news(f, log, a, &sink, &e);
	if (news < 0 || (size_t)news > n || t.bad)
		abort();
	*said_events += (size_t)news;
	*said_findings += t.findings;
	size_t gone_events, gone_findings, again_events, again_findings;
	report_follow_gone(f, &gone_events, &gone_findings);
	/* The same reading again is no news, and lacks what it lacked. */
	memset(t.said, 0, n ? n : 1);
	t.events = t.findings = 0;
	if (report_follow_news(f, log, a, &sink, &e) != 0 || t.events || t.findings || t.bad)
		abort();
	report_follow_gone(f, &again_events, &again_findings);
	if (again_events != gone_events || again_findings != gone_findings)
		abort();
	free(t.said);
	analysis_free(a);
	event_log_free(log);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_follow *f = report_follow_new();
	if (!f)
		return 0;
	const char *p = (const char *)data, *end = p + size;
	size_t said_events = 0, said_findings = 0;
	for (int k = 0; k < 8 && p <= end; k++) {
		const char *sep = memchr(p, 0x1e, (size_t)(end - p));
		size_t len = sep ? (size_t)(sep - p) : (size_t)(end - p);
		reading(f, p, len, &said_events, &said_findings);
		if (!sep)
			break;
		p = sep + 1;
	}
	size_t gone_events, gone_findings;
	report_follow_gone(f, &gone_events, &gone_findings);
	if (gone_events > said_events || gone_findings > said_findings)
		abort();
	report_follow_free(f);
	return 0;
}
