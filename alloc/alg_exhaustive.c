/* alg_exhaustive.c - every allocation, once: the canonical bindings
 * (restricted growth strings: thread 0 on processor 0, each next thread on
 * a processor already used or the next new one, at most k), in
 * lexicographic order, in batches simulated in parallel.  Exact when the
 * budget covers alloc_partitions(n, k) tests; else the best of the first
 * max_tests. */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

#define BATCH 64

static int run(struct alloc_ctx *c)
{
	const uint32_t n = c->n, k = c->k;
	int32_t *a = calloc(n, sizeof *a);   /* current string            */
	int32_t *mx = calloc(n, sizeof *mx); /* max of a[0..i]            */
	int32_t *cand = malloc(sizeof *cand * n * BATCH);
	int *st = malloc(sizeof *st * BATCH);
	sim_time *ms = malloc(sizeof *ms * BATCH);
	uint64_t *cut = malloc(sizeof *cut * BATCH);
	int r = 0, more = 1;
	if (!a || !mx || !cand || !st || !ms || !cut) {
		r = ALLOC_ENOMEM;
		goto out;
	}
	c->enumerated = 1;
	while (more && !alloc_check(c)) {
		uint64_t room = alloc_room(c);
		size_t m = 0, lim = room < BATCH ? (size_t)room : BATCH;
		while (more && m < lim) {
			memcpy(cand + m * n, a, sizeof *a * n);
			m++;
			/* Next string: increment the last position that can grow. */
			int64_t i;
			for (i = (int64_t)n - 1; i >= 1; i--)
				if (a[i] <= mx[i - 1] && a[i] + 1 < (int32_t)k)
					break;
			if (i < 1) {
				more = 0;
				break;
			}
			a[i]++;
			mx[i] = a[i] > mx[i - 1] ? a[i] : mx[i - 1];
			for (uint32_t j = (uint32_t)i + 1; j < n; j++) {
				a[j] = 0;
				mx[j] = mx[i];
			}
		}
		/* Only a strictly shorter run changes the best (ties keep
		 * the first): stop each simulation once it passes the best. */
		uint64_t cb = c->have_best ? alloc_cut_at(c->best_st, c->best_ms) :
		              UINT64_MAX;
		for (size_t i = 0; i < m; i++)
			cut[i] = cb;
		if ((r = alloc_evaluate_cut(c, cand, m, 1, cut, st, ms)) != 0)
			break;
	}
	if (!more && !r) {
		/* Every string was generated and evaluated (the last batch
		 * too): the enumeration is complete even if the budget ran
		 * out on its last test. */
		c->complete = 1;
		if (c->stop == ALLOC_STOP_DONE)
			c->stop = ALLOC_STOP_EXHAUSTED;
	}
out:
	free(a);
	free(mx);
	free(cand);
	free(st);
	free(ms);
	free(cut);
	return r;
}

const struct alloc_algorithm alloc_alg_exhaustive = {
	.name = "exhaustive",
	.summary = "every canonical allocation once (exact when the budget allows)",
	.run = run,
	.search = 1,
	.baseline = 0,
};
