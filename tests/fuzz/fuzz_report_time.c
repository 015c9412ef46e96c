/* libFuzzer harness for what the reports read from a server's strings
 * themselves: history timestamps (report_time_parse, turned back into
 * text by report_time_format and drawn by report_timeline) and the saved
 * history names made from run ids (audit_save_name). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit_save.h"
#include "report_timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	int64_t ms;
	if (report_time_parse(s, &ms)) {
		/* What it formats parses back to the same instant. */
		char out[64];
		int64_t back;
		report_time_format(ms, REPORT_TIME_FULL, out, sizeof out);
		if (!report_time_parse(out, &back) || back != ms)
			abort();
	}
	/* Two ids split at the first NUL-free half: a name inside the folder. */
	size_t half = strlen(s) / 2;
	char app[4096];
	snprintf(app, sizeof app, "%.*s", (int)half, s);
	char name[512];
	if (audit_save_name(app, s + half, name, sizeof name) == 0 &&
	    (strchr(name, '/') || name[0] == '.' || strlen(name) > 220))
		abort();
	free(s);
	return 0;
}
