/* alg_auto.c - the default: the best combination measured (docs/alloc.md).
 *
 * If the budget covers every canonical allocation, enumerate them (the
 * optimum).  Else csga (when its worst-case test count fits in half the
 * budget, else binpack), then tabu search from its result with the rest of
 * the budget. */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

static int run(struct alloc_ctx *c)
{
	uint64_t room = alloc_room(c);
	if (alloc_partitions(c->n, c->k) <= room)
		return alloc_run_phase(c, &alloc_alg_exhaustive);
	int r;
	if (room == UINT64_MAX || alloc_sga_tests(c->n, c->k) + 1 <= room / 2)
		r = alloc_run_phase(c, &alloc_alg_csga);
	else
		r = alloc_run_phase(c, &alloc_alg_binpack);
	if (r || alloc_check(c))
		return r;
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	memcpy(b, c->best, sizeof *b * c->n);
	const char *old = c->phase;
	c->phase = "tabu";
	r = alloc_tabu_from(c, b, UINT64_MAX);
	c->phase = old;
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_auto = {
	"auto",
	"default: exhaustive when small, else csga then tabu search (ours)",
	run,
	1,
};
