#pragma once
/* Zeroed memory for an open-addressing hash table, its pages faulted in
 * writable up front. A table is probed before it is written, so each page
 * of a fresh calloc was first mapped to the kernel's shared zero page and
 * then copied on the write after: two faults a page, the second with a TLB
 * flush sent to the other core once a second thread runs. On `file` that
 * was 6% of the CPU time (issue 34). Freed with free(). */

#include <stddef.h>

void *table_alloc(size_t n, size_t size);
