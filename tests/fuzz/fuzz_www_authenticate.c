/* libFuzzer harness for the WWW-Authenticate parser: any header a server
 * (or something in between) sends after a 401/403. Invariants: no crash,
 * no leak, and on success every parameter is a NUL-terminated string no
 * longer than the header itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *v, size_t max)
{
	if (v && strlen(v) > max)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *h = malloc(size + 1);
	if (!h)
		return 0;
	memcpy(h, data, size);
	h[size] = '\0';
	struct oauth_challenge c;
	struct err e;
	err_clear(&e);
	if (oauth_challenge_parse(h, &c, &e) == 0) {
		size_t n = strlen(h);
		check(c.resource_metadata, n);
		check(c.scope, n);
		check(c.error, n);
		check(c.error_description, n);
	} else if (c.scope || c.error || c.resource_metadata || c.error_description) {
		abort(); /* a failed parse leaves nothing behind */
	}
	oauth_challenge_finish(&c);
	free(h);
	return 0;
}
