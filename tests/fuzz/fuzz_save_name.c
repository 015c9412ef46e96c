/* libFuzzer harness for the file names of saved histories
 * (audit_save_name, run --save-histories): the bytes are two (app id, run
 * id) pairs, split at NUL bytes. Invariants: a name is made of
 * [A-Za-z0-9_.%+~-] only, never starts with '.', holds no '/', ends in
 * ".json" and fits the folder's name limit, so that no id can name a file
 * outside the folder or a hidden one; and two different pairs never share
 * a name unless both were cut to the hashed form and their hashes meet. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit_save.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *name)
{
	size_t n = strlen(name);
	if (!n || name[0] == '.' || n > 200 || n < 5 || strcmp(name + n - 5, ".json") != 0)
		abort();
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			  strchr("_.%+~-", c);
		if (!ok)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	const char *part[4] = {"", "", "", ""};
	char *p = copy;
	for (int k = 0; k < 4 && p <= copy + size; k++) {
		part[k] = p;
		p += strlen(p) + 1;
	}
	char one[512], two[512];
	if (audit_save_name(part[0], part[1], one, sizeof one) < 0 ||
	    audit_save_name(part[2], part[3], two, sizeof two) < 0)
		abort();
	check(one);
	check(two);
	bool same_ids = strcmp(part[0], part[2]) == 0 && strcmp(part[1], part[3]) == 0;
	bool hashed = strchr(one, '~') && strchr(two, '~');
	if (!same_ids && !hashed && strcmp(one, two) == 0)
		abort();
	if (same_ids && strcmp(one, two) != 0)
		abort();
	free(copy);
	return 0;
}
