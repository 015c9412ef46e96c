#include "transport.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

void transport_free(struct transport *t)
{
	if (!t)
		return;
	t->ops->close(t);
	t->ops->destroy(t);
}

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past
 * U+10FFFF. jansson checks the same inside strings, but a message handed
 * up must be valid text as a whole before anyone traces or parses it. */
bool transport_utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < len) {
		unsigned char c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t n;
		unsigned char lo = 0x80, hi = 0xBF;
		if (c >= 0xC2 && c <= 0xDF) {
			n = 1;
		} else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			if (c == 0xE0)
				lo = 0xA0;
			else if (c == 0xED)
				hi = 0x9F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			if (c == 0xF0)
				lo = 0x90;
			else if (c == 0xF4)
				hi = 0x8F;
		} else {
			return false;
		}
		if (len - i - 1 < n)
			return false;
		if (s[i + 1] < lo || s[i + 1] > hi)
			return false;
		for (size_t k = 2; k <= n; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xBF)
				return false;
		i += n + 1;
	}
	return true;
}

static size_t skip_space(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i;
}

int transport_deliver(const char *text, size_t len, bool parse, transport_on_message cb, void *ctx,
		      struct err *e)
{
	if (!transport_utf8_valid(text, len))
		return err_set(e, ERR_PROTOCOL, "message is not valid UTF-8");
	size_t lead = skip_space(text, len);
	if (lead == len)
		return err_set(e, ERR_PROTOCOL, "empty message");
	bool array = text[lead] == '[';
	if (!parse && !array)
		return cb(text, len, ctx, e);

	json_error_t jerr;
	json_t *root = json_loadb(text, len, 0, &jerr);
	if (!root)
		return err_set(e, ERR_PROTOCOL, "message is not JSON: %s (line %d, column %d)", jerr.text,
			       jerr.line, jerr.column);
	int r = 0;
	if (json_is_object(root)) {
		r = cb(text, len, ctx, e);
		goto out;
	}
	if (!json_is_array(root) || json_array_size(root) == 0) {
		r = err_set(e, ERR_PROTOCOL, "message is neither a JSON-RPC object nor a batch");
		goto out;
	}
	size_t i;
	json_t *el;
	json_array_foreach(root, i, el) {
		if (!json_is_object(el)) {
			r = err_set(e, ERR_PROTOCOL, "batch element %zu is not a JSON-RPC object", i);
			goto out;
		}
		char *one = json_dumps(el, JSON_COMPACT);
		if (!one) {
			r = err_set(e, ERR_INTERNAL, "out of memory");
			goto out;
		}
		r = cb(one, strlen(one), ctx, e);
		free(one);
		if (r != 0)
			goto out;
	}
out:
	json_decref(root);
	return r;
}

void transport_sigpipe_block(struct transport_sigpipe *s)
{
	sigset_t pipe_set, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &s->old);
	sigpending(&pending);
	/* A SIGPIPE already pending is not ours to swallow. */
	s->was_pending = sigismember(&pending, SIGPIPE) == 1;
}

void transport_sigpipe_restore(struct transport_sigpipe *s)
{
	sigset_t pipe_set, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	if (!s->was_pending && sigismember(&pending, SIGPIPE) == 1) {
		struct timespec zero = {0, 0};
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &s->old, NULL);
}
