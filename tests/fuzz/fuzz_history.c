/* libFuzzer harness for the history dialect parsers: any bytes must give a
 * log or an ERR_INPUT with a message, never a crash, a leak or a hang. The
 * decoded-document path is fed the same bytes when jansson accepts them,
 * and jansson's JSON_REJECT_DUPLICATES is the reference for duplicate
 * keys: we refuse a document exactly when it has one. Whatever history
 * parses is analysed at every data-sharing level, and the analysis must
 * agree with itself (analysis_contradiction: every chain of attempts
 * reported as re-executed, the count what the findings say, no note naming
 * a finding the run lacks). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct event_log *log)
{
	/* Touch every string so ASan sees any dangling pointer. */
	size_t n = event_log_count(log);
	volatile size_t sink = 0;
	for (size_t i = 0; i < n; i++) {
		struct event evb;
		event_log_get(log, i, &evb);
		const struct event *ev = &evb;
		const char *s[] = {ev->kind_name,
				   ev->timestamp,
				   ev->name,
				   ev->task_execution_id,
				   ev->fire_at,
				   ev->origin_id,
				   ev->instance_id,
				   ev->execution_id,
				   ev->retry_parent_instance_id,
				   ev->rerun_parent_instance_id,
				   ev->workflow_status,
				   ev->error_type,
				   ev->error_message};
		for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
			sink += s[k] ? strlen(s[k]) : 0;
	}
	const struct event_count *c;
	size_t k = event_log_unknown_keys(log, &c);
	for (size_t i = 0; i < k; i++)
		sink += strlen(c[i].name) + c[i].count;
	k = event_log_unknown_kinds(log, &c);
	for (size_t i = 0; i < k; i++)
		sink += strlen(c[i].name);
	const struct event_run_info *ri = event_log_run_info(log);
	if (ri->data_sharing_level)
		sink += strlen(ri->data_sharing_level) + strlen(ri->data_sharing_field);
	(void)sink;
}

/* --show-payloads: every present payload's kept text is bounded, and says
 * truly whether it was cut. */
static void check_texts(const struct event_log *log)
{
	size_t n = event_log_count(log);
	for (size_t i = 0; i < n; i++) {
		struct event ev;
		event_log_get(log, i, &ev);
		const struct payload *ps[] = {&ev.input, &ev.output, &ev.custom_status};
		for (size_t k = 0; k < 3; k++) {
			size_t len;
			bool cut;
			const char *t = event_log_payload_text(log, ps[k], &len, &cut);
			if (!t)
				continue;
			if (len > EVENT_PAYLOAD_TEXT_MAX || (cut ? len >= ps[k]->size : len != ps[k]->size) ||
			    t[len] != '\0')
				abort();
		}
	}
}

static void check_analysis(const struct event_log *log)
{
	static const enum data_sharing_level levels[] = {SHARING_UNKNOWN, SHARING_METADATA, SHARING_FULL};
	for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
		struct err e;
		err_clear(&e);
		struct analysis_options o = {.sharing = levels[l], .sharing_source = "fuzz"};
		struct analysis *a = analysis_run(log, &o, &e);
		if (!a)
			continue; /* out of memory, or too many events: said, not a contradiction */
		char why[1024];
		if (analysis_contradiction(a, why, sizeof why)) {
			fprintf(stderr, "contradiction (sharing %d): %s\n", (int)levels[l], why);
			abort();
		}
		analysis_free(a);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	err_clear(&e);
	struct event_log *log = event_log_parse((const char *)data, size, &e);
	bool parsed = log != NULL, not_json = false, duplicate = false;
	/* Keeping payload texts reads the same events, or fails alike. */
	struct err te;
	err_clear(&te);
	struct event_log *texts = event_log_parse_opts((const char *)data, size,
						       &(struct event_parse_options){.payload_text = true}, &te);
	if (!texts != !log || (texts && event_log_count(texts) != event_log_count(log)))
		abort();
	if (texts) {
		check_texts(texts);
		event_log_free(texts);
	}
	if (log) {
		walk(log);
		check_analysis(log);
		event_log_free(log);
	} else if (e.code != ERR_INPUT || e.msg[0] == '\0') {
		abort();
	} else {
		not_json = strncmp(e.msg, "not JSON", 8) == 0 && !strstr(e.msg, "nested deeper");
		duplicate = strncmp(e.msg, "duplicate key", 13) == 0;
	}

	/* jansson refuses a byte order mark; we skip one. */
	const char *json = (const char *)data;
	size_t json_len = size;
	if (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		json += 3, json_len -= 3;
	json_error_t je;
	json_t *doc = json_loadb(json, json_len, JSON_DECODE_ANY, &je);
	/* Our scanner is as strict as jansson, never stricter (but for
	 * nesting depth): a document jansson reads is JSON to us too. Not
	 * for input holding a NUL byte: jansson's buffer reader stops at
	 * one and ignores what follows, we refuse it. */
	if (doc && not_json && !memchr(data, 0, size))
		abort();
	if (doc) {
		json_t *strict = json_loadb(json, json_len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
		/* A key we call repeated is repeated; a document with a
		 * repeated key is never accepted. */
		if ((duplicate && strict) || (parsed && !strict))
			abort();
		json_decref(strict);
	}
	if (doc) {
		err_clear(&e);
		log = event_log_from_json_opts(doc, &(struct event_parse_options){.payload_text = true}, &e);
		if (log) {
			walk(log);
			check_texts(log);
			event_log_free(log);
		} else if (e.code != ERR_INPUT) {
			abort();
		}
		json_decref(doc);
	}
	return 0;
}
