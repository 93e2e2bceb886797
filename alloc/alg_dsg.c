/* alg_dsg.c - the dynamic start greedy algorithm (Paper V Section 3.5):
 * the greedy algorithm from the binpacking allocation; whenever its stop
 * criterion fires (or it finds no untested neighbour), it starts again
 * from a new, random, untested initial allocation, keeping the history of
 * tested allocations, until the budget (tests, time, or `restarts`) is
 * spent.  Needs a budget: alloc_default_budget when none is given. */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

static int run(struct alloc_ctx *c)
{
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	memcpy(b, c->binpack, sizeof *b * c->n);
	uint64_t limit = c->par->restarts;
	int r = 0;
	for (;;) {
		enum alloc_stop why;
		if ((r = alloc_greedy_from(c, b, c->par->stop_after, &why)) != 0)
			break;
		if (c->stop != ALLOC_STOP_DONE || alloc_check(c))
			break;
		if (limit && c->restarts >= limit)
			break;
		/* A new initial allocation that has not been tested. */
		int found = 0;
		for (int tries = 0; tries < 1000 && !found; tries++) {
			alloc_random_binding(c, b);
			found = !alloc_tested(c, b);
		}
		if (!found) {
			c->stop = ALLOC_STOP_EXHAUSTED;
			break;
		}
		c->restarts++;
	}
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_dsg = {
	.name = "dsg",
	.summary = "greedy restarted from random allocations at its stop criterion (Paper V)",
	.run = run,
	.search = 1,
	.baseline = 0,
};
