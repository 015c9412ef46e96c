#pragma once
/* What the program sets up once for the whole process, in main() before
 * anything else runs (as curl's tool does in tool_main.c), and undoes at
 * its end. Nothing process-wide is done lazily from deep inside a module. */

#include "err.h"

/* A bus error (the mapped input file cut short) said and turned into exit
 * 6. Standard input, output and error opened on /dev/null when the program
 * was started with one closed (so no file this process opens later takes
 * descriptor 1 and receives the report, or 2 and receives errors); core
 * dumps off (RLIMIT_CORE 0, and not dumpable: a core would hold the bearer
 * token). Returns 0, or -1 with e set. */
int process_setup(struct err *e);
/* libcurl's global state, made by main() once it knows the command talks
 * to a server, before any thread starts: the TLS library's start-up is
 * about 2 MB and a tenth of process start, which `file`, `review`,
 * `--version` and `--help` never need (issue 34). Returns 0, or -1 with e
 * set. */
int process_network_setup(struct err *e);
/* `runs`, `stats` and `file`, before any thread starts: glibc's mmap
 * threshold held at its default instead of raised to the largest block
 * freed. Each run of `runs` frees a 1 MiB writer buffer and a history's
 * arrays on one of the --jobs threads, and `file` frees its scan's tables
 * before the findings are made on two; once the threshold rose to those
 * sizes, such blocks came from the arenas, which keep the pages they
 * touched: the peak RSS grew with the number of runs, and `file`'s by
 * 5 MB on the bench's history (issue 34). */
void process_malloc_setup(void);
/* Forgets the secrets; libcurl's global cleanup when it was made: after
 * the last transfer, at exit. */
void process_teardown(void);
