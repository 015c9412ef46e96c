/* Bench driver: parses a history file with event_log_parse_fd and prints
 * the event count and the parse time, nothing else. Built by
 * bench/file-vs-peers against the release build's core library, to time the
 * parser apart from the analysis and the renderer. CATALYST_AUDIT_THREADS=1
 * parses on one thread, as it does for catalyst-audit. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "event.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: parse-history FILE\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 6;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct err e;
	err_clear(&e);
	const char *threads = getenv("CATALYST_AUDIT_THREADS");
	struct event_parse_options o = {.threads = threads && strcmp(threads, "1") == 0 ? 1 : 0};
	struct event_log *log = event_log_parse_fd(fd, &o, &e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	if (!log) {
		fprintf(stderr, "parse-history: %s\n", e.msg);
		return 6;
	}
	printf("%zu events in %.3f s\n", event_log_count(log),
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	event_log_free(log);
	return 0;
}
