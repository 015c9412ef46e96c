/* libFuzzer harness for the SSE parser: the input is split into chunks at
 * offsets drawn from its first bytes, so CR/LF pairs, BOMs and fields are
 * cut at every kind of place, and the bound is sometimes tiny. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_event(const struct sse_event *ev, void *ctx, struct err *e)
{
	size_t *total = ctx;
	/* The contract the transport relies on. */
	if (!ev->type || !ev->data || !ev->id || ev->data[ev->len] != '\0')
		abort();
	*total += ev->len;
	/* Stop now and then, as the transport does on its response. */
	return ev->len == 3 ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	uint8_t seed = data[0];
	size_t max_event = (data[1] & 1) ? 64 : 0;
	data += 2;
	size -= 2;
	size_t total = 0;
	struct sse_parser p;
	struct err e;
	err_clear(&e);
	sse_parser_init(&p, max_event, on_event, &total);
	size_t off = 0;
	unsigned step = seed;
	while (off < size) {
		size_t n = (step % 17) + 1;
		if (n > size - off)
			n = size - off;
		int r = sse_parser_feed(&p, data + off, n, &e);
		if (r < 0) {
			if (e.code != ERR_PROTOCOL)
				abort();
			break;
		}
		off += n;
		step = step * 31 + 7;
		if ((step & 0x3f) == 0)
			sse_parser_restart(&p);
	}
	(void)sse_parser_has_partial(&p);
	if (max_event && p.line.len + p.data.len > max_event)
		abort();
	sse_parser_finish(&p);
	return 0;
}
