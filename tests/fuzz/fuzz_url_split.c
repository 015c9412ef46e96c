/* libFuzzer harness for the URL splitting of the sign-in discovery
 * (url_split, behind oauth_prm_urls, oauth_as_metadata_urls,
 * oauth_resource_matches and oauth_url_check in src/oauth_parse.c): the
 * URLs come from a server's WWW-Authenticate header and metadata
 * documents. Any bytes give URLs or an error, never a crash or a leak.
 * The input is one URL, or two separated by a newline (a resource and
 * the MCP URL it must match). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a = malloc(size + 1);
	if (!a)
		return 0;
	memcpy(a, data, size);
	a[size] = '\0';
	char *b = strchr(a, '\n');
	if (b)
		*b++ = '\0';
	struct err e;
	err_clear(&e);
	char *prm[2] = {NULL, NULL}, *as[3] = {NULL, NULL, NULL};
	if (oauth_prm_urls(a, prm, &e) >= 0)
		for (int i = 0; i < 2; i++)
			free(prm[i]);
	if (oauth_as_metadata_urls(a, as, &e) >= 0)
		for (int i = 0; i < 3; i++)
			free(as[i]);
	(void)oauth_url_check(a, "issuer", &e);
	if (b)
		(void)oauth_resource_matches(a, b);
	free(a);
	return 0;
}
