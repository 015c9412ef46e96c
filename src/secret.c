/* Secrets in use, redacted from every line written. */

#include "secret.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SECRET_MIN 8
#define REDACTED "<redacted>"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **secrets;
static size_t n_secrets;

void secret_add(const char *s)
{
	if (!s || strlen(s) < SECRET_MIN)
		return;
	pthread_mutex_lock(&lock);
	bool known = false;
	for (size_t i = 0; i < n_secrets && !known; i++)
		known = strcmp(secrets[i], s) == 0;
	char **more = known ? NULL : realloc(secrets, (n_secrets + 1) * sizeof *more);
	if (more) {
		secrets = more;
		if ((secrets[n_secrets] = strdup(s)))
			n_secrets++;
	}
	pthread_mutex_unlock(&lock);
}

/* The earliest secret in text at or after p: its start, and its length in *len. */
static const char *next_secret(const char *p, size_t *len)
{
	const char *best = NULL;
	*len = 0;
	for (size_t i = 0; i < n_secrets; i++) {
		const char *at = strstr(p, secrets[i]);
		if (at && (!best || at < best || (at == best && strlen(secrets[i]) > *len))) {
			best = at;
			*len = strlen(secrets[i]);
		}
	}
	return best;
}

char *secret_redact_dup(const char *text)
{
	pthread_mutex_lock(&lock);
	size_t cap = strlen(text) + 1, len = 0, slen = 0;
	/* Each replacement may be longer than the secret it hides. */
	for (const char *p = text, *at; (at = next_secret(p, &slen)); p = at + slen)
		cap += sizeof REDACTED;
	char *out = malloc(cap);
	if (out) {
		const char *p = text, *at;
		while ((at = next_secret(p, &slen))) {
			memcpy(out + len, p, (size_t)(at - p));
			len += (size_t)(at - p);
			memcpy(out + len, REDACTED, sizeof REDACTED - 1);
			len += sizeof REDACTED - 1;
			p = at + slen;
		}
		strcpy(out + len, p);
	}
	pthread_mutex_unlock(&lock);
	return out;
}

void secret_forget_all(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_secrets; i++) {
		OPENSSL_cleanse(secrets[i], strlen(secrets[i]));
		free(secrets[i]);
	}
	free(secrets);
	secrets = NULL;
	n_secrets = 0;
	pthread_mutex_unlock(&lock);
}
