#include "table_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this the table sits in the heap's pages, most already faulted. */
#define TABLE_PREFAULT_MIN (64 * 1024)

void *table_alloc(size_t n, size_t size)
{
	char *p = calloc(n, size);
	size_t bytes = n * size; /* calloc has refused an overflow */
	if (!p || bytes < TABLE_PREFAULT_MIN)
		return p;
	long page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		page = 4096;
	uintptr_t mask = (uintptr_t)page - 1;
	uintptr_t from = ((uintptr_t)p + mask) & ~mask, to = ((uintptr_t)p + bytes) & ~mask;
#ifdef MADV_POPULATE_WRITE
	/* One call for every page (Linux 5.14 and later); only whole pages
	 * inside the allocation are named. */
	if (to > from && madvise((void *)from, to - from, MADV_POPULATE_WRITE) == 0)
		return p;
#endif
	/* Else a write to each page, so its first fault is the write's. */
	for (uintptr_t a = from; a < to; a += (uintptr_t)page)
		*(volatile char *)a = 0;
	return p;
}
