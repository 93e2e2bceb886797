/* alg_block.c - contiguous blocks, Paper VII's "simple" allocation (thesis
 * Section 7.2 of Paper VII): threads in id order (dense order) cut into k
 * contiguous blocks, "the first n mod k processors are allocated ⌈n/k⌉
 * processes and the remaining processors ⌊n/k⌋"; with n < k, one thread
 * per processor on the first n.  A baseline: no search, no binpacking
 * floor (a user asking for block wants block's binding), one test to
 * know its makespan. */
#include <stdlib.h>

#include "alloc/allocint.h"

void alloc_block(uint32_t n, uint32_t k, int32_t *out)
{
	uint32_t q = n / k, rem = n % k, i = 0;
	for (uint32_t p = 0; p < k && i < n; p++) {
		uint32_t size = q + (p < rem);
		for (uint32_t j = 0; j < size; j++)
			out[i++] = (int32_t)p;
	}
}

static int run(struct alloc_ctx *c)
{
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	alloc_block(c->n, c->k, b);
	int st;
	sim_time ms;
	int r = alloc_evaluate(c, b, 1, 1, &st, &ms);
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_block = {
	.name = "block",
	.summary = "baseline, no floor: threads in id order in k contiguous blocks (Paper VII's simple allocation)",
	.run = run,
	.search = 0,
	.baseline = 1,
};
