/* libFuzzer harness for the bearer-token check (oauth_token_check), which
 * reads CATALYST_TOKEN and stored tokens. Invariants: accepted exactly
 * when the input is an RFC 6750 b64token (checked here apart), and a
 * refusal's message never holds the token. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool b64token(const char *t)
{
	size_t i = 0, n = strlen(t);
	while (i < n && (strchr("-._~+/", t[i]) || (t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'z') ||
			 (t[i] >= 'A' && t[i] <= 'Z')))
		i++;
	size_t body = i;
	while (i < n && t[i] == '=')
		i++;
	return body > 0 && i == n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);
	if (!t)
		return 0;
	memcpy(t, data, size);
	t[size] = '\0';
	struct err e;
	err_clear(&e);
	int rc = oauth_token_check(t, "TOKEN", ERR_USAGE, &e);
	if ((rc == 0) != b64token(t))
		abort();
	if (rc < 0 && strlen(t) >= 8 && strstr(e.msg, t))
		abort();
	free(t);
	return 0;
}
