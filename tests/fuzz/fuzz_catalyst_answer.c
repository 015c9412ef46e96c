/* libFuzzer harness for the walkers of Catalyst tool answers: any JSON a
 * server sends (in any envelope) must give a refusal or none, runs or a
 * protocol error, a data-sharing level or unknown, never a crash, a leak
 * or a hang. The bytes are the tool result; the same document is also
 * walked as a bare answer, and as the strings the answers carry (status
 * words, times). */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalyst.h"
#include "mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void answer_strings(const char *s)
{
	char norm[32];
	catalyst_status_normalize(s, norm, sizeof norm);
	(void)catalyst_status_valid(norm);
	time_t t;
	(void)catalyst_time_parse(s, &t);
	(void)catalyst_kind_not_found(s);
	(void)catalyst_text_not_found(s);
}

static void answer_walk(const json_t *doc)
{
	char key[64], num[32];
	(void)catalyst_find_sharing(doc, key, sizeof key);
	(void)catalyst_answer_sharing(doc, json_object_get(doc, "_meta"), key, sizeof key);
	(void)catalyst_find_list(doc, 0);
	static const char *const spellings[] = {"appId", "app_id", "status", "name", "id", NULL};
	const char *s = catalyst_find_string(doc, spellings, 2, num);
	if (s)
		answer_strings(s);
	struct catalyst_run_list l;
	memset(&l, 0, sizeof l);
	struct err e;
	err_clear(&e);
	if (catalyst_run_items_parse(doc, &l, &e) == 0)
		for (size_t i = 0; i < l.n; i++)
			if (l.items[i].run_id)
				answer_strings(l.items[i].run_id);
	catalyst_run_list_finish(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
	if (doc) {
		/* As mcp.c hands a tool result to the Catalyst layer. */
		json_t *content = json_object_get(doc, "content");
		json_t *first = json_array_get(content, 0);
		const char *text = json_string_value(json_object_get(first, "text"));
		struct mcp_tool_result r = {
			.result = doc,
			.structured = json_object_get(doc, "structuredContent"),
			.content = content,
			.text_json = text ? json_loads(text, 0, NULL) : NULL,
			.is_error = json_is_true(json_object_get(doc, "isError")),
			.rpc_error = json_is_object(json_object_get(doc, "error")) ? json_object_get(doc, "error")
										   : NULL,
		};
		struct catalyst_refusal ref;
		if (catalyst_refusal_parse(&r, &ref))
			(void)catalyst_refusal_code(&ref);
		answer_walk(doc);
		if (r.structured)
			answer_walk(r.structured);
		if (r.text_json)
			answer_walk(r.text_json);
		json_decref(r.text_json);
		json_decref(doc);
	}
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
		answer_strings(s);
		free(s);
	}
	return 0;
}
