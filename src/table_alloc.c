#include "table_alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this the table sits in the heap's pages, most already faulted. */
#define TABLE_PREFAULT_MIN (64 * 1024)
/* Below this no huge page fits whole. */
#define TABLE_HUGE_MIN (4 * 1024 * 1024)

/* The whole pages inside [p, p + bytes), in *from and *to. */
static bool whole_pages(const void *p, size_t bytes, uintptr_t *from, uintptr_t *to, uintptr_t *page)
{
	long sz = sysconf(_SC_PAGESIZE);
	*page = sz > 0 ? (uintptr_t)sz : 4096;
	uintptr_t mask = *page - 1;
	*from = ((uintptr_t)p + mask) & ~mask;
	*to = ((uintptr_t)p + bytes) & ~mask;
	return *to > *from;
}

void *table_alloc(size_t n, size_t size)
{
	char *p = calloc(n, size);
	size_t bytes = n * size; /* calloc has refused an overflow */
	uintptr_t from, to, page;
	if (!p || bytes < TABLE_PREFAULT_MIN || !whole_pages(p, bytes, &from, &to, &page))
		return p;
#ifdef MADV_HUGEPAGE
	if (bytes >= TABLE_HUGE_MIN)
		madvise((void *)from, to - from, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	/* One call for every page (Linux 5.14 and later). */
	if (madvise((void *)from, to - from, MADV_POPULATE_WRITE) == 0)
		return p;
#endif
	/* Else a write to each page, so its first fault is the write's. */
	for (uintptr_t a = from; a < to; a += page)
		*(volatile char *)a = 0;
	return p;
}

void *table_array_alloc(size_t n, size_t size)
{
	char *p = calloc(n, size);
#ifdef MADV_HUGEPAGE
	/* A hint: refused (no huge pages here), the array is as calloc made it. */
	uintptr_t from, to, page;
	if (p && n * size >= TABLE_HUGE_MIN && whole_pages(p, n * size, &from, &to, &page))
		madvise((void *)from, to - from, MADV_HUGEPAGE);
#endif
	return p;
}
