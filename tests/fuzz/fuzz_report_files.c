/* libFuzzer harness for the two files `runs` reads back: the --baseline
 * report (JSON or JSON Lines) and the --state checkpoint. The first byte
 * picks which; the rest is the file. Either is accepted, or refused with
 * a usage (2) or input (6) error and nothing kept. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "src/audit_catalyst.h" /* the pipeline's private calls */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool state = data[0] & 1;
	char path[] = "/tmp/fuzz-report-files-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		abort();
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(fd);
	struct err e;
	err_clear(&e);
	if (state) {
		struct runs_state st;
		int rc = runs_state_load(path, &st, &e);
		if (rc == 0 && st.ended_at && !st.runs)
			abort();
		if (rc < 0 && e.code != ERR_INPUT && e.code != ERR_USAGE && e.code != ERR_INTERNAL)
			abort();
		if (rc == 0)
			runs_state_finish(&st);
	} else {
		struct audit_request rq;
		audit_request_init(&rq);
		rq.baseline = path;
		json_t *ids = audit_load_baseline(&rq, &e);
		if (!ids && e.code != ERR_USAGE && e.code != ERR_INTERNAL)
			abort();
		json_decref(ids);
	}
	unlink(path);
	char lock[sizeof path + 8];
	snprintf(lock, sizeof lock, "%s.lock", path);
	unlink(lock); /* runs_state_load's, beside the checkpoint */
	return 0;
}
