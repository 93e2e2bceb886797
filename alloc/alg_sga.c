/* alg_sga.c - the simple greedy algorithm with shadow processors (Paper
 * IV Section 4).
 *
 * Every thread starts on a shadow processor of its own.  Longest thread
 * first (ties: lowest id), each is tested on every processor used so far
 * plus one free processor (processors are interchangeable, so one free one
 * stands for all), with the threads not placed yet still on their shadow
 * processors, and placed on the first candidate with the shortest
 * simulated time.  The first thread needs no test (every processor is
 * free), nor does a thread with a single candidate (k = 1); in the worst
 * case, when the first P threads take a processor each, the number of
 * tests is Paper IV Figure 3's P(P+1)/2 - 1 + P(T-P).  The candidates of
 * one step are simulated in parallel and reduced in candidate order.
 *
 * A deadlock or exact-time overflow counts as an infinitely long run.
 * If the budget runs out before every thread is placed, the rest are
 * placed without tests, each onto the processor with the least time
 * (binpacking's input, alloc_params.binpack_input), and the result is
 * tested once.  "Longest" is by the same time: Paper IV orders SGA by
 * "the longest executing thread", the time its binpacking is given.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

int alloc_sga_place(struct alloc_ctx *c, int32_t *out, int *st, sim_time *ms)
{
	const uint32_t n = c->n, k = c->k;
	int32_t *cand = malloc(sizeof *cand * (size_t)n * (k + 1));
	int *cst = malloc(sizeof *cst * (k + 1));
	sim_time *cms = malloc(sizeof *cms * (k + 1));
	unsigned __int128 *load = calloc(k, sizeof *load);
	int r = 0, known = 0;
	if (!cand || !cst || !cms || !load) {
		r = ALLOC_ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		out[i] = TRACE_SHADOW;
	uint32_t used = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t t = c->order[j];
		uint32_t m = used < k ? used + 1 : k; /* candidates 0..m-1 */
		uint32_t pick = 0;
		if (m > 1 && !alloc_check(c)) {
			for (uint32_t p = 0; p < m; p++) {
				int32_t *b = cand + (size_t)p * n;
				memcpy(b, out, sizeof *b * n);
				b[t] = (int32_t)p;
			}
			/* Only the first of the shortest is used. */
			if ((r = alloc_evaluate_pick(c, cand, m, cst, cms)) != 0)
				goto out;
			for (uint32_t p = 1; p < m; p++)
				if (alloc_cmp(cst[p], cms[p], cst[pick], cms[pick]) < 0)
					pick = p;
			known = j == n - 1;
			*st = cst[pick];
			*ms = cms[pick];
		} else if (m > 1) {
			/* Out of budget: least time, as binpacking would. */
			for (uint32_t p = 1; p < m; p++)
				if (load[p] < load[pick])
					pick = p;
		}
		out[t] = (int32_t)pick;
		load[pick] += c->time[t];
		if (pick == used)
			used++;
	}
	if (!known) {
		/* The final allocation was not tested (k = 1, one thread, or out
		 * of budget): test it. */
		r = alloc_evaluate(c, out, 1, 1, st, ms);
	}
out:
	free(cand);
	free(cst);
	free(cms);
	free(load);
	return r;
}

static int run(struct alloc_ctx *c)
{
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	int st;
	sim_time ms;
	int r = alloc_sga_place(c, b, &st, &ms);
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_sga = {
	.name = "sga",
	.summary = "simple greedy with shadow processors (Paper IV; Figure 3's tests + the floor)",
	.run = run,
	.search = 0,
	.baseline = 0,
};
