/* Reading a history from a decoded document (a tool answer, already
 * decoded by the MCP layer): the same search for the event list as
 * event_parse.c makes in bytes, and the same decoder, fed tokens made from
 * the json_t values. An execution graph is read as the list of its nodes'
 * events. */
#include "event_decode.h"

#include <string.h>

struct jwalk {
	struct dec d;
	bool found;
	bool empty_list;
};

static int jwalk_value(struct jwalk *w, const json_t *v, int depth, const char *key);

static int jwalk_array(struct jwalk *w, const json_t *a, int depth, const char *key)
{
	size_t n = json_array_size(a);
	if (n == 0) {
		if ((depth == 0 && !key) || (key && event_key_names_list(key, strlen(key))))
			w->empty_list = true;
		return 0;
	}
	if (w->found)
		return 0;
	const json_t *first = json_array_get(a, 0);
	if (json_is_object(first)) {
		struct err tmp;
		err_clear(&tmp);
		int rc = jscan_tokenise_json(first, &w->d.toks, &tmp);
		enum event_dialect dia;
		if (rc == JSCAN_ERROR) {
			*w->d.e = tmp;
			return -1;
		}
		if (rc == 0 && dec_looks_like_event(&w->d.toks, &w->d.scratch, &w->d.scratch_cap, &dia)) {
			w->found = true;
			for (size_t i = 0; i < n; i++) {
				w->d.index = i;
				if (i &&
				    (rc = jscan_tokenise_json(json_array_get(a, i), &w->d.toks, w->d.e)) < 0) {
					dec_tokenise_failed(&w->d, rc);
					err_prefix(w->d.e, "event %zu", i);
					return -1;
				}
				if (dec_event(&w->d) < 0)
					return -1;
			}
			return 0;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (jwalk_value(w, json_array_get(a, i), depth + 1, NULL) < 0)
			return -1;
	}
	return 0;
}

static int jwalk_value(struct jwalk *w, const json_t *v, int depth, const char *key)
{
	if ((json_is_object(v) || json_is_array(v)) && depth >= JSCAN_DEPTH_MAX)
		return err_set(w->d.e, ERR_INPUT, "document nested deeper than %d levels", JSCAN_DEPTH_MAX);
	if (json_is_array(v))
		return jwalk_array(w, v, depth, key);
	if (!json_is_object(v))
		return 0;
	const char *k;
	json_t *m;
	json_object_foreach((json_t *)v, k, m) {
		if (json_is_string(m)) {
			struct jscan_tok t = {.type = JSCAN_STRING,
					      .p = json_string_value(m),
					      .len = json_string_length(m),
					      .j = m};
			dec_run_field(&w->d, k, strlen(k), &t, depth);
		} else if (json_is_object(m) && propagated_history_key(k, strlen(k))) {
			if (event_log_read_propagated(w->d.log, m, w->d.e) < 0)
				return -1;
		} else if (jwalk_value(w, m, depth + 1, k) < 0) {
			return -1;
		}
	}
	return 0;
}

/* An execution graph ({"graph": {"nodes": [{"events": [...]}, ...]}}, or
 * the same under "export") with no flat event list beside it: the nodes'
 * events, concatenated in document order, are the history. Returns the
 * document to walk, a new reference: doc itself, or a shallow copy in
 * which "history" holds that list and "graph" is gone (or else the node
 * array could pass for the event list). A flat list already there is left
 * alone: the events must not be counted twice. */
static json_t *graph_nodes(const json_t *doc, json_t **where_out)
{
	json_t *top = (json_t *)doc, *where = top;
	json_t *graph = json_object_get(top, "graph");
	if (!graph) {
		where = json_object_get(top, "export");
		graph = json_object_get(where, "graph");
	}
	json_t *nodes = json_object_get(graph, "nodes");
	if (!json_is_array(nodes) || json_object_get(where, "history") || json_object_get(where, "events"))
		return NULL;
	*where_out = where;
	return nodes;
}

bool event_doc_is_graph(const json_t *doc)
{
	json_t *where;
	return graph_nodes(doc, &where) != NULL;
}

static json_t *graph_flattened(const json_t *doc)
{
	json_t *top = (json_t *)doc, *where;
	json_t *nodes = graph_nodes(doc, &where);
	if (!nodes)
		return json_incref(top);
	json_t *flat = json_array(), *node, *ev, *copy = NULL;
	size_t i, k;
	json_array_foreach(nodes, i, node)
		json_array_foreach(json_object_get(node, "events"), k, ev)
			json_array_append(flat, ev);
	/* Out of memory: the graph is walked as it is. */
	if (json_array_size(flat) > 0 && (copy = json_copy(where))) {
		json_object_set(copy, "history", flat);
		json_object_del(copy, "graph");
		if (where != top) {
			json_t *outer = json_copy(top);
			if (outer)
				json_object_set(outer, "export", copy);
			json_decref(copy);
			copy = outer;
		}
	}
	json_decref(flat);
	return copy ? copy : json_incref(top);
}

struct event_log *event_log_from_json(const json_t *doc, struct err *e)
{
	return event_log_from_json_opts(doc, NULL, e);
}

struct event_log *event_log_from_json_opts(const json_t *doc, const struct event_parse_options *o, struct err *e)
{
	struct jwalk w = {0};
	if (!doc) {
		err_set(e, ERR_INPUT, "%s", dec_no_list_msg);
		return NULL;
	}
	if (dec_init(&w.d, true, e) < 0)
		return NULL;
	if (o && o->payload_text) {
		w.d.payload_text = true;
		event_log_set_keeps_payload_text(w.d.log);
	}
	json_t *walked = graph_flattened(doc);
	if (jwalk_value(&w, walked, 0, NULL) < 0)
		goto fail;
	if (!w.found && !w.empty_list) {
		err_set(e, ERR_INPUT, "%s", dec_no_list_msg);
		goto fail;
	}
	event_log_set_dialect(w.d.log, w.d.dialect);
	dec_run_finish(&w.d); /* before the walked document goes: it holds the run fields */
	dec_finish(&w.d);
	json_decref(walked);
	return w.d.log;
fail:
	dec_finish(&w.d);
	json_decref(walked);
	event_log_free(w.d.log);
	return NULL;
}
