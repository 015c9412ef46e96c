/* An invocation's attempts on one time axis (include/report_timeline.h). */
#include "report_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool digits(const char *s, size_t n, int *v)
{
	int x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil): timegm is not C11, and the TZ must not matter. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

bool report_time_parse(const char *ts, int64_t *ms)
{
	int y, mo, d, h, mi, s;
	if (!ts || strlen(ts) < 19 || ts[4] != '-' || ts[7] != '-' ||
	    (ts[10] != 'T' && ts[10] != 't' && ts[10] != ' ') || ts[13] != ':' || ts[16] != ':' ||
	    !digits(ts, 4, &y) || !digits(ts + 5, 2, &mo) || !digits(ts + 8, 2, &d) || !digits(ts + 11, 2, &h) ||
	    !digits(ts + 14, 2, &mi) || !digits(ts + 17, 2, &s))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return false;
	const char *p = ts + 19;
	int frac = 0;
	if (*p == '.') {
		p++;
		int n = 0;
		for (; *p >= '0' && *p <= '9'; p++, n++)
			if (n < 3)
				frac = frac * 10 + (*p - '0');
		if (n == 0)
			return false;
		for (; n < 3; n++)
			frac *= 10;
	}
	int offset = 0; /* minutes east of UTC */
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;
		if (strlen(p) < 6 || p[3] != ':' || !digits(p + 1, 2, &oh) || !digits(p + 4, 2, &om) || oh > 23 ||
		    om > 59)
			return false;
		offset = (oh * 60 + om) * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return false; /* a time without a zone is not an instant */
	}
	if (*p)
		return false;
	int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - (int64_t)offset * 60;
	*ms = secs * 1000 + frac;
	return true;
}

void report_time_format(int64_t ms, enum report_time_form form, char *out, size_t size)
{
	int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
	int frac = (int)(ms - secs * 1000);
	int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
	int64_t rem = secs - days * 86400;
	/* civil_from_days (Hinnant) */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1);
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);
	y += m <= 2;
	int hh = (int)(rem / 3600), mm = (int)(rem / 60 % 60), ss = (int)(rem % 60);
	switch (form) {
	case REPORT_TIME_MINUTE:
		snprintf(out, size, "%04d-%02d-%02dT%02d:%02dZ", (int)y, m, d, hh, mm);
		break;
	case REPORT_TIME_CLOCK:
		if (frac)
			snprintf(out, size, "%02d:%02d:%02d.%03dZ", hh, mm, ss, frac);
		else
			snprintf(out, size, "%02d:%02d:%02dZ", hh, mm, ss);
		break;
	case REPORT_TIME_MERMAID:
		snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03d", (int)y, m, d, hh, mm, ss, frac);
		break;
	case REPORT_TIME_SECONDS:
		snprintf(out, size, "%04d-%02d-%02d %02d:%02d:%02dZ", (int)y, m, d, hh, mm, ss);
		break;
	case REPORT_TIME_HMS:
		snprintf(out, size, "%02d:%02d:%02dZ", hh, mm, ss);
		break;
	case REPORT_TIME_FULL:
		if (frac)
			snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (int)y, m, d, hh, mm, ss, frac);
		else
			snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)y, m, d, hh, mm, ss);
		break;
	}
}

/* The local zone's offset from UTC at ms, in seconds (0 when unknown). */
static long local_offset(int64_t ms)
{
	time_t sec = (time_t)(ms / 1000);
	struct tm tm;
	return localtime_r(&sec, &tm) ? tm.tm_gmtoff : 0;
}

void report_time_format_in(int64_t ms, enum report_time_form form, bool local, char *out, size_t size)
{
	if (!local || form == REPORT_TIME_MERMAID) {
		report_time_format(ms, form, out, size);
		return;
	}
	long off = local_offset(ms);
	report_time_format(ms + (int64_t)off * 1000, form, out, size);
	size_t n = strlen(out);
	if (n && out[n - 1] == 'Z') {
		long a = off < 0 ? -off : off;
		snprintf(out + n - 1, size - (n - 1), "%c%02ld:%02ld", off < 0 ? '-' : '+', a / 3600 % 100,
			 a / 60 % 60);
	}
}

static int64_t day_of(int64_t ms)
{
	return ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
}

bool report_time_same_day(int64_t a, int64_t b, bool local)
{
	if (local) {
		a += (int64_t)local_offset(a) * 1000;
		b += (int64_t)local_offset(b) * 1000;
	}
	return day_of(a) == day_of(b);
}

int report_duration(long long ms, char *out, size_t size)
{
	int n;
	if (ms < 0)
		n = snprintf(out, size, "before");
	else if (ms < 10000)
		n = snprintf(out, size, "%lld.%llds", ms / 1000, ms % 1000 / 100);
	else if (ms < 120000)
		n = snprintf(out, size, "%llds", ms / 1000);
	else if (ms < 7200000)
		n = snprintf(out, size, "%lldm%02llds", ms / 60000, ms / 1000 % 60);
	else
		n = snprintf(out, size, "%lldh%02lldm", ms / 3600000, ms / 60000 % 60);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

bool report_time_utc(const char *ts, enum report_time_form form, char *out, size_t size)
{
	int64_t ms;
	if (!report_time_parse(ts, &ms)) {
		snprintf(out, size, "%s", ts ? ts : "");
		return false;
	}
	report_time_format(ms, form, out, size);
	return true;
}

bool report_timeline_wanted(const struct invocation *inv)
{
	if (inv->n_attempts > 1)
		return true;
	for (size_t k = 0; k < inv->n_attempts; k++)
		if (inv->attempts[k].outcome == OUTCOME_PENDING)
			return true;
	return false;
}

int report_timeline_make(const struct invocation *inv, struct report_timeline *t)
{
	memset(t, 0, sizeof *t);
	t->inv = inv;
	t->attempts = calloc(inv->n_attempts ? inv->n_attempts : 1, sizeof *t->attempts);
	if (!t->attempts)
		return -1;
	t->n_attempts = inv->n_attempts;
	for (size_t k = 0; k < inv->n_attempts; k++) {
		struct report_timeline_attempt *ta = &t->attempts[k];
		ta->attempt = &inv->attempts[k];
		ta->has_start = report_time_parse(ta->attempt->scheduled_at, &ta->start);
		ta->has_end = ta->attempt->outcome != OUTCOME_PENDING &&
			      report_time_parse(ta->attempt->completed_at, &ta->end);
		for (int i = 0; i < 2; i++) {
			bool has = i ? ta->has_end : ta->has_start;
			int64_t v = i ? ta->end : ta->start;
			if (!has)
				continue;
			if (!t->known || v < t->t0)
				t->t0 = v;
			if (!t->known || v > t->t1)
				t->t1 = v;
			t->known = true;
		}
	}
	for (size_t k = 0; k < t->n_attempts; k++) {
		struct report_timeline_attempt *ta = &t->attempts[k];
		if (!ta->has_end)
			ta->end = t->t1; /* no result: to the span's end */
		if (ta->has_start && ta->end < ta->start)
			ta->end = ta->start; /* a result stamped before its schedule: a point */
	}
	for (size_t k = 0; k + 1 < t->n_attempts; k++) {
		struct report_timeline_attempt *ta = &t->attempts[k];
		const struct report_timeline_attempt *next = &t->attempts[k + 1];
		if (!ta->has_start || !ta->has_end || !next->has_start || ta->attempt->outcome != OUTCOME_FAILED)
			continue;
		if (next->start >= ta->end) {
			ta->retry_gap = true;
			ta->next_start = next->start;
		}
		if (ta->attempt->failure == FAILURE_AMBIGUOUS && next->end > ta->end) {
			ta->may_overlap = true;
			ta->overlap_end = next->end;
		}
	}
	return 0;
}

void report_timeline_finish(struct report_timeline *t)
{
	free(t->attempts);
	memset(t, 0, sizeof *t);
}
