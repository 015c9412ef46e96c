/* libFuzzer harness for `review`'s reader of source files: the bytes are
 * one file, its language picked by the first byte (Python, Go, Java,
 * TypeScript, C#), reviewed whole: tree-sitter's parse, then our walks
 * over its tree (activities, hazards, the orchestrator's policies) and
 * the sentences built from the code's text. Every reported hazard must
 * carry a file, a line inside the input and a detail; and every review
 * format writes it (the SARIF one must be JSON with a result per hazard,
 * whatever the code's text holds). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "render_info.h"
#include "review.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"a.py", "a.go", "A.java", "a.ts", "A.cs"};
	if (size < 1)
		return 0;
	const char *name = names[data[0] % (sizeof names / sizeof *names)];
	data++;
	size--;
	unsigned lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	struct review rv;
	review_init(&rv);
	struct err e;
	err_clear(&e);
	if (review_buffer(&rv, name, (const char *)data, size, &e) == 0) {
		size_t n = rv.n_orchestrator;
		for (size_t i = 0; i < rv.n_activities; i++) {
			const struct review_activity *a = &rv.activities[i];
			if (!a->name || !a->file || a->line < 1 || a->line > lines)
				abort();
			for (size_t k = 0; k < a->n_hazards; k++, n++)
				if (!a->hazards[k].detail || a->hazards[k].line < 1 ||
				    a->hazards[k].line > lines ||
				    (unsigned)a->hazards[k].kind >= HAZARD_KIND_COUNT)
					abort();
			if (!review_find_activity(&rv, a->name))
				abort();
		}
		if (n != rv.n_hazards)
			abort();
		for (const struct render_format_row *f = render_formats; f->name; f++) {
			if (!f->review)
				continue;
			char *text = NULL;
			size_t len = 0;
			FILE *out = open_memstream(&text, &len);
			if (!out)
				abort();
			err_clear(&e);
			struct render_options ro = {.verbose = size % 2 == 1};
			if (render_review(out, f->format, &rv, &ro, &e) < 0)
				abort();
			fclose(out);
			if (f->format == FORMAT_SARIF) {
				json_t *doc = json_loadb(text, len, 0, NULL);
				json_t *results = json_object_get(json_array_get(json_object_get(doc, "runs"), 0),
								  "results");
				if (!doc || json_array_size(results) != rv.n_hazards + rv.n_suppressed)
					abort();
				json_decref(doc);
			}
			free(text);
		}
	}
	review_finish(&rv);
	return 0;
}
