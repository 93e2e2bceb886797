/*
 * quicksort.c - the parallel quicksort of Paper VI, Section 4.1: a
 * ParallelQuickSort partitions its range and creates two threads for the
 * halves while the range holds more than N/20 items (the paper: 2,000,000
 * items, threads while more than 100,000), else sorts sequentially with
 * RecursiveQuickSort; each thread joins its two children.
 *
 *   quicksort [N]      N = 6000000 random integers (fixed seed)
 */
#include <pthread.h>

#include "work.h"

static int *g_a;
static long g_cut;

struct range {
	long lo, hi; /* [lo, hi) */
};

static long partition(long lo, long hi)
{
	int pivot = g_a[lo + (hi - 1 - lo) / 2]; /* Hoare: never the last */
	long i = lo - 1, j = hi;
	for (;;) {
		do i++; while (g_a[i] < pivot);
		do j--; while (g_a[j] > pivot);
		if (i >= j)
			return j + 1;
		int t = g_a[i];
		g_a[i] = g_a[j];
		g_a[j] = t;
	}
}

static void recursive_quicksort(long lo, long hi)
{
	while (hi - lo > 1) {
		long m = partition(lo, hi);
		if (m - lo < hi - m) {
			recursive_quicksort(lo, m);
			lo = m;
		} else {
			recursive_quicksort(m, hi);
			hi = m;
		}
	}
}

static void *parallel_quicksort(void *arg)
{
	struct range *r = arg;
	if (r->hi - r->lo <= g_cut) {
		recursive_quicksort(r->lo, r->hi);
		return NULL;
	}
	long m = partition(r->lo, r->hi);
	struct range left = { r->lo, m }, right = { m, r->hi };
	pthread_t tl, tr;
	pthread_create(&tl, NULL, parallel_quicksort, &left);
	pthread_create(&tr, NULL, parallel_quicksort, &right);
	for (int i = 0; i < 2; i++) {
		count(C_THREADS);
		count(C_CREATE);
	}
	pthread_join(tl, NULL);
	pthread_join(tr, NULL);
	count(C_JOIN);
	count(C_JOIN);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 6000000);
	g_a = malloc((size_t)n * sizeof *g_a);
	uint64_t s = 12345;
	for (long i = 0; i < n; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		g_a[i] = (int)(s >> 33);
	}
	g_cut = n / 20 > 1 ? n / 20 : 1;
	count(C_THREADS);
	struct range all = { 0, n };
	parallel_quicksort(&all);
	for (long i = 1; i < n; i++)
		if (g_a[i - 1] > g_a[i]) {
			fprintf(stderr, "quicksort: not sorted at %ld\n", i);
			return 1;
		}
	free(g_a);
	printf("quicksort: %ld integers sorted\n", n);
	print_counts();
	return 0;
}
