/* libFuzzer harness for the loopback callback: the request target any
 * local process (or a malicious page in the browser) can send to the
 * listener. Parsing and the state/iss/error checks must never crash, and
 * a callback is only ever accepted with the exact state and issuer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);
	if (!t)
		return 0;
	memcpy(t, data, size);
	t[size] = '\0';
	struct oauth_callback cb;
	struct err e;
	err_clear(&e);
	int r = oauth_callback_parse(t, "/callback", &cb, &e);
	if (r == 1) {
		bool iss_required = size & 1;
		if (oauth_callback_check(&cb, "expected-state", "https://issuer.example", iss_required, &e) == 0) {
			if (!cb.state || strcmp(cb.state, "expected-state") != 0 || cb.error || !cb.code)
				abort();
			if (cb.iss ? strcmp(cb.iss, "https://issuer.example") != 0 : iss_required)
				abort();
		}
	} else if (cb.code || cb.state || cb.iss || cb.error || cb.error_description) {
		abort();
	}
	oauth_callback_finish(&cb);
	free(t);
	return 0;
}
