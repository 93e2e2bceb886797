/* alg_rgreedy.c - greedy from random starts (Paper V Section 3.5, Figure
 * 3: "10 x 50" and "10 x 500"): R runs of the greedy algorithm of Figure
 * 1, each from a uniformly random initial allocation, each limited to its
 * share of the test budget; the best allocation of all runs is kept.
 *
 * R is alloc_params.restarts (0: 10, the paper's).  The budget left after
 * the floor (binpacking's allocation, tested first by alloc_run) is dealt
 * to the runs in order: run i of R gets (tests left) / (runs left), at
 * least 1, so with max_tests = 501 every run has exactly 500 / R tests,
 * and a run that ends early (the stop criterion, stop_after, or no
 * untested neighbour) leaves its tests to the runs after it.  Without a
 * test budget (a time limit only) each run ends by its criterion.  The
 * runs share the history of tested allocations, as every algorithm of a
 * search does: a run never spends a test on an allocation an earlier run
 * tested (Paper V keeps the history across dynamic-start greedy's starts;
 * for Figure 3's runs it does not say).  The random starts come from the
 * search's stream after the previous run, which alloc_greedy_from leaves
 * where the one-at-a-time algorithm does: the same for any number of
 * OpenMP threads.  alloc_result.restarts counts the runs after the
 * first; stop is ALLOC_STOP_DONE when all R runs ended, else what stopped
 * the search (the last run's share is the rest of the budget, so with
 * stop_after = 0 that is ALLOC_STOP_TESTS). */
#include <stdlib.h>

#include "alloc/allocint.h"

static int run(struct alloc_ctx *c)
{
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	const uint64_t runs = c->par->restarts ? c->par->restarts : 10;
	const uint64_t max = c->max_tests;
	int r = 0;
	for (uint64_t i = 0; i < runs; i++) {
		if (alloc_check(c))
			break;
		uint64_t room = alloc_room(c);
		if (room != UINT64_MAX) {
			uint64_t share = room / (runs - i);
			c->max_tests = c->tests + (share ? share : 1);
		}
		alloc_random_binding(c, b);
		if (i > 0)
			c->restarts++;
		enum alloc_stop why;
		r = alloc_greedy_from(c, b, c->par->stop_after, &why);
		/* This run's share is spent, not the search's budget. */
		if (c->stop == ALLOC_STOP_TESTS && c->tests < max)
			c->stop = ALLOC_STOP_DONE;
		c->max_tests = max;
		if (r || c->stop != ALLOC_STOP_DONE)
			break;
	}
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_rgreedy = {
	.name = "rgreedy",
	.summary = "greedy from `restarts` (10) random allocations, best kept (Paper V Fig. 3)",
	.run = run,
	.search = 1,
	.baseline = 0,
};
