#pragma once
/* Big zeroed allocations of the analysis and the event log.
 *
 * Zeroed memory for an open-addressing hash table, its pages faulted in
 * writable up front. A table is probed before it is written, so each page
 * of a fresh calloc was first mapped to the kernel's shared zero page and
 * then copied on the write after: two faults a page, the second with a TLB
 * flush sent to the other core once a second thread runs. On `file` that
 * was 6% of the CPU time (issue 34). Freed with free(). */

#include <stddef.h>

void *table_alloc(size_t n, size_t size);

/* Zeroed memory for a big array filled as the work goes (the scan's
 * attempts): its pages are not faulted in ahead, so memory grows as it is
 * used, but where it spans whole 2 MB pages they are asked for as huge
 * pages (the system decides), a fault for each 2 MB instead of each 4 KB.
 * On `file` that was 6,000 of 30,000 faults. Freed with free(). */
void *table_array_alloc(size_t n, size_t size);
