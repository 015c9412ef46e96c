#include "transport.h"
#include "escape.h"
#include "json_scan.h"
#include "monotime.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Each defined in its transport's file. */
extern const struct transport_kind transport_kind_http, transport_kind_stdio;

/* The first row takes URLs of schemes no row names (see transport_kind_for). */
static const struct transport_kind *const kinds[] = {
	&transport_kind_http,
	&transport_kind_stdio,
};

static bool scheme_in(const char *schemes, const char *scheme, size_t len)
{
	for (const char *p = schemes; *p;) {
		size_t n = strcspn(p, " ");
		if (n == len && strncasecmp(p, scheme, len) == 0)
			return true;
		p += n + (p[n] == ' ');
	}
	return false;
}

const struct transport_kind *transport_kind_for(const char *address, bool command)
{
	size_t len = address ? strcspn(address, ":") : 0;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		const char *schemes = kinds[i]->schemes;
		if (command ? !schemes
			    : schemes && address && address[len] == ':' && scheme_in(schemes, address, len))
			return kinds[i];
	}
	return command ? NULL : kinds[0];
}

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
bool transport_utf8_valid(const char *s, size_t len)
{
	uint32_t cp;
	for (size_t i = 0; i < len;) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		size_t n = escape_utf8_next(s + i, len - i, &cp);
		if (!n)
			return false;
		i += n;
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

/* The scanner's "not JSON at byte N: why", as "message is not JSON: at
 * byte N: why". A fault before the last byte (nested too deep, a bad
 * token) is in the bytes the server sent: asking again gets it again. One
 * at the end may be a body cut short, which a retry can mend. */
static int not_json(struct err *e, const struct err *je, bool before_end)
{
	const char *why = je->msg;
	if (strncmp(why, "not JSON ", 9) == 0)
		why += 9;
	err_set(e, ERR_PROTOCOL, "message is not JSON: %s", why);
	if (e && before_end)
		e->detail = ERR_DETAIL_FINAL;
	return -1;
}

/* A whole message that is no JSON-RPC message: final, as above. */
static int not_rpc(struct err *e, const char *what)
{
	err_set(e, ERR_PROTOCOL, "%s", what);
	if (e)
		e->detail = ERR_DETAIL_FINAL;
	return -1;
}

static _Thread_local long long send_deadline_ms;

void transport_set_send_deadline(long long at_ms)
{
	send_deadline_ms = at_ms;
}

long transport_send_timeout(long timeout_ms)
{
	if (!send_deadline_ms)
		return timeout_ms;
	long long left = send_deadline_ms - monotime_ms();
	if (left < 1)
		left = 1;
	return left < timeout_ms ? (long)left : timeout_ms;
}

static _Thread_local const struct transport_request *request_now;

void transport_set_request(const struct transport_request *r)
{
	request_now = r;
}

const struct transport_request *transport_request_get(void)
{
	return request_now;
}

/* One element of a batch, copied out NUL-terminated (the callback's
 * contract) and handed on. */
static int deliver_span(const char *p, size_t len, transport_on_message cb, void *ctx, struct err *e)
{
	char *one = malloc(len + 1);
	if (!one)
		return err_oom(e);
	memcpy(one, p, len);
	one[len] = '\0';
	int r = cb(one, len, ctx, e);
	free(one);
	return r;
}

/* The JSON is checked with the validating scanner (json_scan.h): as
 * strict as jansson (grammar, UTF-8, no NUL in strings, bounded depth) but
 * it builds nothing. A tool answer is then decoded once, by the layer that
 * reads it, instead of once here to be thrown away; a batch is cut into
 * its elements' own bytes rather than decoded and dumped again. */
/* Whether the one fault of text is a character cut at its end: bytes
 * missing, which a retry may bring, rather than wrong. */
static bool cut_in_a_character(const char *t, size_t len)
{
	size_t i = len;
	int cont = 0;
	while (i > 0 && cont < 3 && ((unsigned char)t[i - 1] & 0xc0) == 0x80)
		i--, cont++;
	return i > 0 && (unsigned char)t[i - 1] >= 0xc0 && transport_utf8_valid(t, i - 1);
}

int transport_deliver(const char *text, size_t len, bool parse, transport_on_message cb, void *ctx, struct err *e)
{
	if (!transport_utf8_valid(text, len)) {
		err_set(e, ERR_PROTOCOL, "message is not valid UTF-8");
		/* Wrong bytes come again when asked again: final. */
		if (e && !cut_in_a_character(text, len))
			e->detail = ERR_DETAIL_FINAL;
		return -1;
	}
	size_t lead = skip_space(text, len);
	if (lead == len)
		return err_set(e, ERR_PROTOCOL, "empty message");
	bool array = text[lead] == '[';
	if (!parse && !array)
		return cb(text, len, ctx, e);

	struct err je;
	err_clear(&je);
	struct jscan s = {.buf = text, .len = len, .pos = lead};
	if (jscan_skip_value(&s, &je) < 0)
		return not_json(e, &je, s.pos < len);
	jscan_skip_ws(&s);
	if (s.pos != len) {
		err_set(e, ERR_PROTOCOL, "message is not JSON: at byte %zu: text after the value", s.pos);
		if (e)
			e->detail = ERR_DETAIL_FINAL;
		return -1;
	}
	if (text[lead] == '{')
		return cb(text, len, ctx, e);
	if (!array)
		return not_rpc(e, "message is neither a JSON-RPC object nor a batch");

	/* A valid array: its elements are valid values, so skipping them
	 * again cannot fail. */
	s.pos = lead + 1;
	jscan_skip_ws(&s);
	if (text[s.pos] == ']')
		return not_rpc(e, "message is neither a JSON-RPC object nor a batch");
	for (size_t i = 0;; i++) {
		jscan_skip_ws(&s);
		size_t start = s.pos;
		if (text[start] != '{') {
			err_set(e, ERR_PROTOCOL, "batch element %zu is not a JSON-RPC object", i);
			if (e)
				e->detail = ERR_DETAIL_FINAL;
			return -1;
		}
		if (jscan_skip_value(&s, &je) < 0)
			return not_json(e, &je, true);
		int r = deliver_span(text + start, s.pos - start, cb, ctx, e);
		if (r != 0)
			return r;
		jscan_skip_ws(&s);
		if (text[s.pos] != ',')
			return 0;
		s.pos++;
	}
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
