/* libFuzzer harness for the saved-report reader of `stats`: whatever bytes
 * a report file holds must fold in or fail with ERR_INPUT, never crash,
 * and what was folded must rank and render in every format. Read twice:
 * without filters, and with every filter set (the since/until comparison
 * reads the saved start times). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "render.h"
#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct stats_filter filters[] = {
		{0},
		{.app = "orders",
		 .workflow = "orderworkflow",
		 .status = "completed",
		 .since = "2026-01-01T00:00:00Z",
		 .until = "2027-01-01T00:00:00Z"},
	};
	FILE *sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	for (size_t k = 0; k < sizeof filters / sizeof *filters; k++) {
		FILE *in = fmemopen((void *)data, size ? size : 1, "r");
		if (!in)
			abort();
		if (!size)
			fgetc(in); /* an empty input: fmemopen wants a byte */
		struct stats st;
		stats_init(&st, STATS_FROM_REPORTS);
		/* Every other pass splits the rows by workflow version too. */
		st.by_version = k % 2 == 1;
		struct stats_filter sf = filters[k];
		struct err e;
		err_clear(&e);
		int rc = stats_read_report(&st, in, "fuzz.jsonl", &sf, &e);
		fclose(in);
		if (rc < 0 && e.code != ERR_INPUT && e.code != ERR_INTERNAL)
			abort(); /* only bad input (or no memory) may fail */
		stats_rank(&st);
		struct render_options ro = {.width = 80};
		for (int f = FORMAT_TEXT; f <= FORMAT_JSONL; f++) {
			err_clear(&e);
			render_stats(sink, (enum render_format)f, &st, &ro, &e);
		}
		stats_finish(&st);
	}
	fclose(sink);
	return 0;
}
