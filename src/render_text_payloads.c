/* The text report's payload section (--show-payloads, issue 19): the
 * inputs and outputs of the attempts in findings, each payload on a line
 * of its own so that it copies whole into the payment provider's search,
 * escaped (it is customer data from the server) and bounded (the history
 * was read keeping EVENT_PAYLOAD_TEXT_MAX bytes of each). */
#include <inttypes.h>
#include <stdlib.h>

#include "render_text_internal.h"
#include "report_payloads.h"

static void print_payload(struct text_out *t, const struct report_run *run,
			  const struct report_payload_attempt *pa, bool output, size_t indent)
{
	struct report_payload p;
	if (!report_payload_of(run, pa, output, &p))
		return;
	struct buf line, text;
	buf_init(&line, 0);
	buf_init(&text, 0);
	/* Raw here, escaped once as a whole below (the name and the level's
	 * source are server text). */
	int rc = buf_printf(&line, NULL, "%s attempt %u (task_scheduled_id %" PRId64 ") %s ",
			    pa->inv->name ? pa->inv->name : "-", pa->no, pa->at->scheduled_id,
			    output ? "output" : "input");
	rc |= report_payload_note(&line, run, &p);
	if (p.shown == REPORT_PAYLOAD_TEXT) {
		rc |= buf_printf(&line, NULL, ":");
		rc |= escape_terminal(&text, p.text, p.len, 0, NULL);
	}
	if (rc < 0) {
		t->oom = true;
	} else {
		text_wrap(t, text_esc(t, line.data, 0), indent);
		if (text.len)
			fprintf(t->f, "%*s%s%s\n", (int)indent + 2, "", text.data, p.cut ? "..." : "");
	}
	buf_finish(&line);
	buf_finish(&text);
}

static void print_run(struct text_out *t, const struct report *r, const struct report_run *run)
{
	struct report_payload_attempt *v;
	long n = report_payload_attempts(run, &v);
	if (n < 0) {
		t->oom = true;
		return;
	}
	if (n == 0)
		return;
	size_t indent = r->n_runs > 1 ? 4 : 2;
	if (r->n_runs > 1)
		fprintf(t->f, "  Run %s\n", run->run_id ? text_esc(t, run->run_id, 0) : "(unknown run id)");
	struct buf b;
	buf_init(&b, 0);
	if (report_payloads_withheld(&b, run) < 0)
		t->oom = true;
	if (b.len) {
		/* One sentence for the run, not one per payload. */
		text_wrap(t, text_esc(t, b.data, 0), indent);
	} else {
		for (long i = 0; i < n; i++) {
			print_payload(t, run, &v[i], false, indent);
			print_payload(t, run, &v[i], true, indent);
		}
	}
	buf_finish(&b);
	free(v);
}

void text_print_payloads(struct text_out *t, const struct report *r)
{
	bool any = false;
	for (size_t i = 0; t->o.show_payloads && i < r->n_runs && !any; i++)
		any = report_run_has_payloads_to_show(&r->runs[i]);
	if (!any)
		return;
	fprintf(t->f, "\n%sPayloads%s of the attempts in findings (--show-payloads)\n", text_on(t, STYLE_BOLD),
		text_off(t));
	for (size_t i = 0; i < r->n_runs; i++)
		if (report_run_shows_payloads(&r->runs[i]))
			print_run(t, r, &r->runs[i]);
}
