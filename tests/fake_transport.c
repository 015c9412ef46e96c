#include "fake_transport.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

/* The exchange in progress, per thread (the threaded tests run many). */
struct frame {
	transport_on_message cb;
	void *ctx;
	struct err *e;
	int rc;
};
static _Thread_local struct frame cur;

static int deliver_text(char *text)
{
	if (cur.rc != 0) {
		free(text);
		return cur.rc;
	}
	cur.rc = cur.cb(text, strlen(text), cur.ctx, cur.e);
	free(text);
	return cur.rc;
}

int fake_deliver(const char *fmt, ...)
{
	char *text;
	va_list ap;
	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&text, fmt, ap), 0);
	va_end(ap);
	return deliver_text(text);
}

static int deliver_member(json_t *req, const char *key, json_t *value)
{
	json_t *r = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", json_object_get(req, "id"), key, value);
	ck_assert_ptr_nonnull(r);
	char *text = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	ck_assert_ptr_nonnull(text);
	return deliver_text(text);
}

int fake_deliver_result(json_t *req, json_t *result)
{
	return deliver_member(req, "result", result);
}

int fake_deliver_error(json_t *req, json_t *error)
{
	return deliver_member(req, "error", error);
}

static int fake_send(struct transport *t, const char *body, size_t len, bool expect_reply, transport_on_message cb,
		     void *ctx, struct err *e)
{
	struct fake_transport *f = (struct fake_transport *)t;
	json_error_t jerr;
	json_t *msg = json_loadb(body, len, 0, &jerr);
	ck_assert_msg(msg != NULL, "we sent invalid JSON: %s", jerr.text);
	json_t *rh = json_object();
	const struct transport_request *rq = transport_request_get();
	for (size_t i = 0; rq && i < rq->n_headers; i++)
		json_object_set_new(rh, rq->headers[i].name, json_string(rq->headers[i].value));
	pthread_mutex_lock(&f->lock);
	json_array_append(f->sent, msg);
	json_array_append_new(f->request_headers, rh);
	pthread_mutex_unlock(&f->lock);
	if (!expect_reply) {
		if (f->note)
			f->note(f, msg);
		json_decref(msg);
		return 0;
	}
	ck_assert(cb != NULL);
	const char *method = json_string_value(json_object_get(msg, "method"));
	ck_assert_ptr_nonnull(method);
	/* A nested exchange (an answer sent from inside the callback) must not
	 * clobber ours. */
	struct frame saved = cur;
	cur = (struct frame){.cb = cb, .ctx = ctx, .e = e};
	int answered = 0;
	if (!f->modern && strcmp(method, "server/discover") == 0)
		fake_deliver("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32601,\"message\":\"Method "
			     "not found\"}}",
			     (long long)json_integer_value(json_object_get(msg, "id")));
	else
		answered = f->answer(f, msg, method, e);
	int rc = cur.rc;
	cur = saved;
	json_decref(msg);
	if (answered < 0 || rc < 0)
		return -1;
	if (rc == 0)
		return err_set(e, ERR_PROTOCOL, "the stream ended before the response");
	return 0;
}

static int fake_set_header(struct transport *t, const char *name, const char *value)
{
	struct fake_transport *f = (struct fake_transport *)t;
	pthread_mutex_lock(&f->lock);
	if (value)
		json_object_set_new(f->headers, name, json_string(value));
	else
		json_object_del(f->headers, name);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

static void fake_reset(struct transport *t)
{
	((struct fake_transport *)t)->resets++;
}

static void fake_noop(struct transport *t)
{
	(void)t;
}

static const struct transport_ops fake_ops = {
	.name = "fake",
	.send = fake_send,
	.set_header = fake_set_header,
	.reset_session = fake_reset,
	.close = fake_noop,
	.destroy = fake_noop,
};

void fake_transport_init(struct fake_transport *f, fake_answer_fn answer)
{
	memset(f, 0, sizeof *f);
	f->base.ops = &fake_ops;
	pthread_mutex_init(&f->lock, NULL);
	f->sent = json_array();
	f->headers = json_object();
	f->request_headers = json_array();
	f->answer = answer;
}

void fake_transport_finish(struct fake_transport *f)
{
	json_decref(f->sent);
	json_decref(f->headers);
	json_decref(f->request_headers);
	pthread_mutex_destroy(&f->lock);
}

json_t *fake_sent_nth(struct fake_transport *f, const char *method, int n)
{
	size_t i;
	json_t *m;
	json_array_foreach(f->sent, i, m) {
		const char *mm = json_string_value(json_object_get(m, "method"));
		bool match = method ? mm && strcmp(mm, method) == 0 : !mm;
		if (match && n-- == 0)
			return m;
	}
	return NULL;
}

int fake_count_sent(struct fake_transport *f, const char *method)
{
	int n = 0;
	while (fake_sent_nth(f, method, n))
		n++;
	return n;
}

json_t *fake_headers_of(struct fake_transport *f, const json_t *msg)
{
	size_t i;
	json_t *m;
	json_array_foreach(f->sent, i, m)
		if (m == msg)
			return json_array_get(f->request_headers, i);
	return NULL;
}
