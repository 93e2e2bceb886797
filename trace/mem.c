/*
 * mem.c - memory for the reader's big arrays (a few bytes per record),
 * in transparent huge pages where the system offers them.
 *
 * Why: about half of reading 10^6 records was the kernel's, faulting in
 * the records' fresh pages one 4 KiB page at a time (12 faults per 1000
 * records, ~1.5 us each on this machine, a virtual machine); with 2 MiB
 * pages the same memory takes one fault per 2 MiB and is zeroed in bulk
 * (48 MB: 4-6 ms instead of 19-25 ms, measured).  Linux only asks for
 * them (MADV_HUGEPAGE, for systems whose THP setting is `madvise`);
 * elsewhere, or when refused, the arrays are ordinary pages.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/traceint.h"

/* Bytes mapped for an array of n bytes: whole pages; from TR_HUGE up,
 * whole huge pages. */
static size_t map_size(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (n >= TR_HUGE)
		page = TR_HUGE;
	return (n + page - 1) & ~(page - 1);
}

/* Ask for huge pages over [p, p + bytes) (whole pages). */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	if (bytes >= TR_HUGE)
		madvise(p, bytes, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

void *tr_big_alloc(size_t bytes)
{
	if (bytes < TR_HUGE)
		return malloc(bytes ? bytes : 1);
	/* whole aligned huge pages: the last one is not shared with other
	 * blocks, and the first starts at the array */
	size_t n = (bytes + TR_HUGE - 1) & ~(TR_HUGE - 1);
	void *p = aligned_alloc(TR_HUGE, n);
	if (p)
		advise_huge(p, n);
	return p;
}

void *tr_map_grow(void *p, size_t old_bytes, size_t new_bytes)
{
	size_t o = map_size(old_bytes), n = map_size(new_bytes);
	void *q;
	if (!p || !o) {
		if (n >= TR_HUGE) {
			/* whole huge pages, aligned: map one more and trim */
			char *m = mmap(NULL, n + TR_HUGE, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (m == MAP_FAILED)
				return NULL;
			char *a = (char *)(((uintptr_t)m + TR_HUGE - 1) & ~(uintptr_t)(TR_HUGE - 1));
			if (a > m)
				munmap(m, (size_t)(a - m));
			if (a + n < m + n + TR_HUGE)
				munmap(a + n, (size_t)(m + n + TR_HUGE - (a + n)));
			advise_huge(a, n);
			return a;
		}
		q = mmap(NULL, n, PROT_READ | PROT_WRITE,
		         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else if (n <= o) {
		return p;
	} else {
		/* the pages move, not their contents: no copy */
		q = mremap(p, o, n, MREMAP_MAYMOVE);
	}
	if (q == MAP_FAILED)
		return NULL;
	advise_huge(q, n);
	return q;
}

void tr_map_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, map_size(bytes));
}

void tr_map_drop(void *p, size_t bytes, uintptr_t *done)
{
	uintptr_t lo = ((uintptr_t)p + TR_HUGE - 1) & ~(uintptr_t)(TR_HUGE - 1);
	uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(TR_HUGE - 1);
	if (*done > lo)
		lo = *done;
	if (hi > lo) {
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
		*done = hi;
	}
}
