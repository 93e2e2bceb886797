/* alg_binpack.c - the traditional binpacking (Paper IV Section 3): uses
 * only each thread's work; one test, to know the makespan. */
#include <stdlib.h>

#include "alloc/allocint.h"

static int run(struct alloc_ctx *c)
{
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	alloc_binpack(c->tr, c->k, b);
	int st;
	sim_time ms;
	int r = alloc_evaluate(c, b, 1, 1, &st, &ms);
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_binpack = {
	"binpack",
	"longest thread first onto the least loaded processor (Paper IV, 1 test)",
	run,
	0,
	0,
};
