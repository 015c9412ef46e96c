#include "event_propagated.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one document may carry: an ancestry deeper than this is no
 * workflow's, and the events are bounded by the document's own size. */
#define MAX_CHUNKS 1000
#define MAX_ACTIVITIES 10000

/* HistoryEvent's fields (dapr/durabletask-protobuf history_events.proto). */
enum {
	F_EVENT_ID = 1,
	F_EXECUTION_STARTED = 3,
	F_TASK_SCHEDULED = 6,
	F_TASK_COMPLETED = 7,
	F_TASK_FAILED = 8,
	F_CHILD_CREATED = 9,
};

bool propagated_history_key(const char *key, size_t len)
{
	static const char *const keys[] = {"propagatedHistory", "propagated_history", "propagated-history"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (strlen(keys[i]) == len && memcmp(keys[i], key, len) == 0)
			return true;
	return false;
}

/* ---- protobuf's wire format, as far as these events need it ---- */

struct pb {
	const unsigned char *p, *end;
};

static bool varint(struct pb *b, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && b->p < b->end; shift += 7) {
		unsigned char c = *b->p++;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return true;
	}
	return false;
}

/* The next field: its number, wire type, and for a varint its value or
 * for a length-delimited one its bytes. false at the end or on bytes
 * that are no protobuf. */
struct field {
	uint32_t number;
	unsigned type;
	uint64_t value;
	struct pb bytes;
};

static bool next_field(struct pb *b, struct field *f, bool *bad)
{
	*bad = false;
	if (b->p >= b->end)
		return false;
	uint64_t key;
	if (!varint(b, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
		goto bad;
	f->number = (uint32_t)(key >> 3);
	f->type = (unsigned)(key & 7);
	switch (f->type) {
	case 0:
		if (!varint(b, &f->value))
			goto bad;
		return true;
	case 1:
	case 5: {
		size_t n = f->type == 1 ? 8 : 4;
		if ((size_t)(b->end - b->p) < n)
			goto bad;
		b->p += n;
		return true;
	}
	case 2: {
		uint64_t n;
		if (!varint(b, &n) || n > (uint64_t)(b->end - b->p))
			goto bad;
		f->bytes = (struct pb){b->p, b->p + n};
		b->p += n;
		return true;
	}
	default:
		goto bad;
	}
bad:
	*bad = true;
	return false;
}

/* The string fields `want_a` and `want_b` of a message (NULL when absent). */
static bool message_strings(struct pb m, uint32_t want_a, char **a, uint32_t want_b, char **b)
{
	struct field f;
	bool bad;
	while (next_field(&m, &f, &bad)) {
		char **slot = f.type == 2 && f.number == want_a ? a : f.type == 2 && f.number == want_b ? b : NULL;
		if (!slot)
			continue;
		free(*slot);
		*slot = strndup((const char *)f.bytes.p, (size_t)(f.bytes.end - f.bytes.p));
	}
	return !bad;
}

/* ---- the chunk's activities ---- */

static struct propagated_activity *activity_for(struct propagated_chunk *c, const char *name, const char *exec_id)
{
	for (size_t i = 0; i < c->n_activities; i++) {
		struct propagated_activity *a = &c->activities[i];
		bool same_exec = exec_id && a->task_execution_id && strcmp(exec_id, a->task_execution_id) == 0;
		bool same_name = !exec_id && name && a->name && !a->task_execution_id &&
				 strcmp(name, a->name) == 0;
		if (same_exec || same_name)
			return a;
	}
	if (c->n_activities >= MAX_ACTIVITIES)
		return NULL;
	struct propagated_activity *more = realloc(c->activities, (c->n_activities + 1) * sizeof *more);
	if (!more)
		return NULL;
	c->activities = more;
	struct propagated_activity *a = &c->activities[c->n_activities++];
	memset(a, 0, sizeof *a);
	a->name = name ? strdup(name) : NULL;
	a->task_execution_id = exec_id ? strdup(exec_id) : NULL;
	return a;
}

/* One raw HistoryEvent folded into the chunk; false: not one. */
static bool fold_event(struct propagated_chunk *c, const unsigned char *p, size_t n)
{
	struct pb b = {p, p + n};
	struct field f;
	bool bad, any = false;
	while (next_field(&b, &f, &bad)) {
		any = true;
		if (f.type != 2)
			continue;
		char *name = NULL, *exec = NULL;
		bool ok = true;
		struct propagated_activity *a = NULL;
		switch (f.number) {
		case F_TASK_SCHEDULED:
			ok = message_strings(f.bytes, 1, &name, 5, &exec);
			if (ok && (a = activity_for(c, name, exec)))
				a->scheduled++;
			break;
		case F_TASK_COMPLETED:
		case F_TASK_FAILED:
			ok = message_strings(f.bytes, 3, &exec, 0, &name);
			if (ok && (a = activity_for(c, NULL, exec))) {
				if (f.number == F_TASK_COMPLETED)
					a->completed++;
				else
					a->failed++;
			}
			break;
		case F_CHILD_CREATED:
			c->children++;
			break;
		case F_EXECUTION_STARTED:
			if (!c->workflow && message_strings(f.bytes, 1, &name, 0, &exec) && name) {
				c->workflow = name;
				name = NULL;
			}
			break;
		default:
			break;
		}
		free(name);
		free(exec);
		if (!ok)
			return false;
	}
	/* A message with no field at all is an event protobuf's defaults
	 * left empty (eventId 0): one still. */
	return !bad && (any || n == 0);
}

/* ---- the document ---- */

static const char *member(const json_t *o, const char *camel, const char *snake)
{
	const char *v = json_string_value(json_object_get(o, camel));
	return v ? v : json_string_value(json_object_get(o, snake));
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Standard or URL-safe base64, padded or not, as protojson writers give
 * bytes. NULL: not base64 (or no memory). */
static unsigned char *base64_decode(const char *s, size_t len, size_t *out_len)
{
	char *std = malloc(len + 4);
	if (!std)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '-')
			c = '+';
		else if (c == '_')
			c = '/';
		else if (c == '=')
			break;
		std[n++] = c;
	}
	while (n % 4)
		std[n++] = '=';
	unsigned char *bin = malloc(n / 4 * 3 + 1);
	int got = bin ? EVP_DecodeBlock(bin, (const unsigned char *)std, (int)n) : -1;
	if (got < 0) {
		free(std);
		free(bin);
		return NULL;
	}
	/* EVP_DecodeBlock counts the padding as zero bytes. */
	size_t pad = 0;
	while (pad < 2 && n > pad && std[n - 1 - pad] == '=')
		pad++;
	free(std);
	*out_len = (size_t)got - pad;
	return bin;
}

static int read_chunk(const json_t *j, struct propagated_chunk *c, size_t index, struct err *e)
{
	if (!json_is_object(j))
		return err_set(e, ERR_INPUT, "propagated history: chunk %zu is not an object", index);
	c->app_id = dup_or_null(member(j, "appId", "app_id"));
	c->instance_id = dup_or_null(member(j, "instanceId", "instance_id"));
	c->workflow = dup_or_null(member(j, "workflowName", "workflow_name"));
	const json_t *raw = json_object_get(j, "rawEvents");
	if (!raw)
		raw = json_object_get(j, "raw_events");
	if (raw && !json_is_array(raw))
		return err_set(e, ERR_INPUT, "propagated history: chunk %zu: rawEvents is not an array", index);
	size_t i;
	const json_t *ev;
	json_array_foreach(raw, i, ev) {
		c->events++;
		size_t n = 0;
		unsigned char *bin = json_is_string(ev)
					     ? base64_decode(json_string_value(ev), json_string_length(ev), &n)
					     : NULL;
		if (!bin || !fold_event(c, bin, n))
			c->undecoded++;
		free(bin);
	}
	return 0;
}

int propagated_history_read(const json_t *doc, struct propagated_history **out, struct err *e)
{
	*out = NULL;
	if (!json_is_object(doc))
		return err_set(e, ERR_INPUT, "propagated history is not an object");
	const json_t *chunks = json_object_get(doc, "chunks");
	if (chunks && !json_is_array(chunks))
		return err_set(e, ERR_INPUT, "propagated history: chunks is not an array");
	if (json_array_size(chunks) > MAX_CHUNKS)
		return err_set(e, ERR_INPUT, "propagated history: more than %d chunks", MAX_CHUNKS);
	struct propagated_history *p = calloc(1, sizeof *p);
	if (!p)
		return err_oom(e);
	const json_t *scope = json_object_get(doc, "scope");
	if (json_is_string(scope)) {
		const char *s = json_string_value(scope);
		/* The enum's own prefix adds nothing a reader needs. */
		if (strncmp(s, "HISTORY_PROPAGATION_SCOPE_", 26) == 0)
			s += 26;
		p->scope = strdup(s);
	} else if (json_is_integer(scope)) {
		static const char *const names[] = {"NONE", "OWN_HISTORY", "LINEAGE"};
		json_int_t v = json_integer_value(scope);
		char num[32];
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, v);
		p->scope = strdup(v >= 0 && v < 3 ? names[v] : num);
	}
	size_t n = json_array_size(chunks);
	p->chunks = n ? calloc(n, sizeof *p->chunks) : NULL;
	if (n && !p->chunks) {
		propagated_history_free(p);
		return err_oom(e);
	}
	p->n_chunks = n;
	for (size_t i = 0; i < n; i++)
		if (read_chunk(json_array_get(chunks, i), &p->chunks[i], i, e) < 0) {
			propagated_history_free(p);
			return -1;
		}
	*out = p;
	return 0;
}

void propagated_history_free(struct propagated_history *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_chunks; i++) {
		struct propagated_chunk *c = &p->chunks[i];
		free(c->app_id);
		free(c->instance_id);
		free(c->workflow);
		for (size_t k = 0; k < c->n_activities; k++) {
			free(c->activities[k].name);
			free(c->activities[k].task_execution_id);
		}
		free(c->activities);
	}
	free(p->chunks);
	free(p->scope);
	free(p);
}
