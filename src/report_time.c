/* Times as the report writes them (issue 19): UTC with a `Z` in every
 * format, local time (with its offset) only when asked. A history's own
 * strings are parsed, never trusted to be in either form: Catalyst writes
 * RFC 3339 in UTC, a saved file may carry an offset. */
#include "report.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static bool digits(const char *s, size_t n, int *out)
{
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

bool report_time_parse(const char *ts, struct report_time *t)
{
	int y, mo, d, h, mi, s;
	if (!ts || strlen(ts) < 19 || ts[4] != '-' || ts[7] != '-' ||
	    (ts[10] != 'T' && ts[10] != 't' && ts[10] != ' ') || ts[13] != ':' || ts[16] != ':' ||
	    !digits(ts, 4, &y) || !digits(ts + 5, 2, &mo) || !digits(ts + 8, 2, &d) || !digits(ts + 11, 2, &h) ||
	    !digits(ts + 14, 2, &mi) || !digits(ts + 17, 2, &s))
		return false;
	const char *p = ts + 19;
	int ms = 0, scale = 100;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		/* Nanoseconds are written; milliseconds are kept. */
		for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
			ms += scale ? (*p - '0') * scale : 0;
	}
	long offset = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;
		if (!digits(p + 1, 2, &oh))
			return false;
		const char *q = p + 3;
		if (*q == ':')
			q++;
		if (!digits(q, 2, &om) || oh > 23 || om > 59)
			return false;
		offset = (oh * 60L + om) * 60L * (*p == '-' ? -1 : 1);
		p = q + 2;
	} else {
		/* No zone: not a time we can place. */
		return false;
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return false;
	struct tm tm = {.tm_year = y - 1900,
			.tm_mon = mo - 1,
			.tm_mday = d,
			.tm_hour = h,
			.tm_min = mi,
			.tm_sec = s > 59 ? 59 : s};
	time_t sec = timegm(&tm);
	if (sec == (time_t)-1 || tm.tm_mday != d)
		return false;
	t->sec = (int64_t)sec - offset;
	t->ms = ms;
	return true;
}

/* tm for t, UTC or local, and the offset from UTC in seconds. */
static bool time_tm(const struct report_time *t, bool local, struct tm *tm, long *offset)
{
	time_t sec = (time_t)t->sec;
	*offset = 0;
	if (!local)
		return gmtime_r(&sec, tm) != NULL;
	if (!localtime_r(&sec, tm))
		return false;
	*offset = tm->tm_gmtoff;
	return true;
}

/* "Z", or "+01:00" when local. */
static void zone(char *out, size_t size, bool local, long offset)
{
	if (!local) {
		snprintf(out, size, "Z");
		return;
	}
	long a = offset < 0 ? -offset : offset;
	snprintf(out, size, "%c%02ld:%02ld", offset < 0 ? '-' : '+', a / 3600 % 100, a / 60 % 60);
}

int report_time_format(const struct report_time *t, enum report_time_style style, bool local, char *out,
		       size_t size)
{
	struct tm tm;
	long offset;
	if (!time_tm(t, local, &tm, &offset))
		return -1;
	char z[16];
	zone(z, sizeof z, local, offset);
	int n = -1;
	switch (style) {
	case REPORT_TIME_ISO:
		n = snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%s", tm.tm_year + 1900, tm.tm_mon + 1,
			     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, t->ms, z);
		break;
	case REPORT_TIME_SECONDS:
		n = snprintf(out, size, "%04d-%02d-%02d %02d:%02d:%02d%s", tm.tm_year + 1900, tm.tm_mon + 1,
			     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, z);
		break;
	case REPORT_TIME_CLOCK:
		n = snprintf(out, size, "%02d:%02d:%02d%s", tm.tm_hour, tm.tm_min, tm.tm_sec, z);
		break;
	case REPORT_TIME_MINUTE:
		n = snprintf(out, size, "%02d-%02d %02d:%02d%s", tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			     z);
		break;
	}
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

bool report_time_same_day(const struct report_time *a, const struct report_time *b, bool local)
{
	struct tm ta, tb;
	long oa, ob;
	return time_tm(a, local, &ta, &oa) && time_tm(b, local, &tb, &ob) && ta.tm_year == tb.tm_year &&
	       ta.tm_yday == tb.tm_yday;
}

long long report_time_ms_between(const struct report_time *a, const struct report_time *b)
{
	return (long long)(b->sec - a->sec) * 1000 + (b->ms - a->ms);
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
