/* alg_roundrobin.c - round robin (Paper VII Section 7.2, Figure 21):
 * thread number i, in id order (dense order), on processor i mod k.  A
 * baseline: no search, no binpacking floor (a user asking for roundrobin
 * wants its binding), one test to know its makespan. */
#include <stdlib.h>

#include "alloc/allocint.h"

void alloc_roundrobin(uint32_t n, uint32_t k, int32_t *out)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = (int32_t)(i % k);
}

static int run(struct alloc_ctx *c)
{
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	alloc_roundrobin(c->n, c->k, b);
	int st;
	sim_time ms;
	int r = alloc_evaluate(c, b, 1, 1, &st, &ms);
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_roundrobin = {
	.name = "roundrobin",
	.summary = "baseline, no floor: thread i (id order) on processor i mod k (Paper VII)",
	.run = run,
	.search = 0,
	.baseline = 1,
};
