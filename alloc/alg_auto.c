/* alg_auto.c - the default: the best combination measured (docs/alloc.md).
 *
 * alloc_run has tested binpacking's allocation already (the floor).  The
 * plan uses the tests the rest of the search can afford: the test budget,
 * and with a time limit the time left divided by the wall time per test
 * so far (alloc_room_planned).  If that covers every canonical allocation
 * (twice over for a time estimate, which is only an estimate), enumerate
 * them (the optimum).  Else csga (when its worst-case test count fits in
 * half of it, else nothing more: binpacking's allocation), then tabu
 * search from the best so far until the budget or the time is spent.
 * With random_start (an independent search after the first), no csga:
 * tabu search from a random allocation. */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

static int run(struct alloc_ctx *c)
{
	uint64_t room = alloc_room_planned(c);
	uint64_t need = alloc_partitions(c->n, c->k);
	/* The floor's allocation is one of them and tested already. */
	need = need ? need - 1 : 0;
	if (c->deadline > 0)
		need = need > UINT64_MAX / 2 ? UINT64_MAX : 2 * need;
	if (need != UINT64_MAX && need <= room)
		return alloc_run_phase(c, &alloc_alg_exhaustive);
	int r = 0;
	int rs = c->par->random_start;
	if (!rs && alloc_sga_tests(c->n, c->k) + 1 <= room / 2)
		r = alloc_run_phase(c, &alloc_alg_csga);
	if (r || alloc_check(c))
		return r;
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	if (rs)
		alloc_random_binding(c, b);
	else
		memcpy(b, c->best, sizeof *b * c->n);
	const char *old = c->phase;
	c->phase = "tabu";
	r = alloc_tabu_from(c, b, UINT64_MAX);
	c->phase = old;
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_auto = {
	.name = "auto",
	.summary = "default: exhaustive when it can finish, else csga then tabu search (ours)",
	.run = run,
	.search = 1,
	.baseline = 0,
};
