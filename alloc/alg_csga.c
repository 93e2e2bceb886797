/* alg_csga.c - the combined simple greedy algorithm (Paper IV Section 6):
 * the better of sga and binpack, one test more than sga (none when sga's
 * last step already tested binpacking's allocation: the history answers);
 * never worse than binpacking (on a tie sga's allocation, tested first, is
 * kept). */
#include "alloc/allocint.h"

static int run(struct alloc_ctx *c)
{
	int r = alloc_run_phase(c, &alloc_alg_sga);
	if (!r)
		r = alloc_run_phase(c, &alloc_alg_binpack);
	return r;
}

const struct alloc_algorithm alloc_alg_csga = {
	.name = "csga",
	.summary = "better of sga and binpack (Paper IV; as many tests as sga)",
	.run = run,
	.search = 0,
	.baseline = 0,
};
