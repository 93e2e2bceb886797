/* alg_binpack.c - the traditional binpacking (Paper IV Section 3): uses
 * only each thread's time (alloc_params.binpack_input: CPU work by
 * default); one test, to know the makespan. */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

static int run(struct alloc_ctx *c)
{
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	memcpy(b, c->binpack, sizeof *b * c->n);
	int st;
	sim_time ms;
	int r = alloc_evaluate(c, b, 1, 1, &st, &ms);
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_binpack = {
	.name = "binpack",
	.summary = "longest thread first onto the least loaded processor (Paper IV, 1 test)",
	.run = run,
	.search = 0,
	.baseline = 0,
};
