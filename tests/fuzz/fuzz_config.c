/* libFuzzer harness for the config reader (config_parse): any bytes a
 * config file may hold. Invariants: no crash, no leak; on success every
 * entry has a key among those offered and a NUL-terminated value no
 * longer than the input; on failure the message names the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {"server", "client-id", "timeout", "format", "fail-on", "project", NULL};
	struct config c;
	config_init(&c);
	struct err e;
	err_clear(&e);
	if (config_parse(&c, "fuzz.conf", (const char *)data, size, keys, &e) == 0) {
		for (size_t i = 0; i < c.n; i++) {
			bool known = false;
			for (size_t k = 0; keys[k]; k++)
				known |= strcmp(c.entries[i].key, keys[k]) == 0;
			if (!known || strlen(c.entries[i].value) > size)
				abort();
		}
	} else if (!strstr(e.msg, "fuzz.conf")) {
		abort();
	}
	config_finish(&c);
	return 0;
}
