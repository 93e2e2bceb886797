/* alg_greedy.c - the greedy algorithm of Paper V Figure 1.
 *
 * From the binpacking allocation: change the current allocation by a swap
 * (probability 1/2, when not every thread is on one processor: a random
 * thread with a random thread on another processor) or a move (a random
 * thread to a random other processor); skip the change if the allocation
 * is in the history of tested allocations, else test it.  Better: it is
 * the new best and the next change starts from it.  Equal: the next change
 * starts from it (the best stays).  Worse, or skipped: the next change
 * starts from the best.  Stop after stop_after consecutive tests without
 * improvement (Paper V Section 3.4: 100), when the budget is spent, or
 * when no untested allocation turns up in a long series of draws.
 *
 * The history holds canonical forms (processors relabelled in order of
 * first appearance), so no allocation is simulated twice, not even one
 * that merely renames the processors of another.
 *
 * Cutoff: a change is kept only if it is not longer than the best, so its
 * simulation stops once its time passes the best (alloc_evaluate_cut).
 *
 * Parallel and exactly sequential: the B next changes are drawn
 * speculatively, as if each failed (the first from the current
 * allocation, the others from the best), and simulated at the same time;
 * then they are taken in order like the sequential algorithm does.  At
 * the first one accepted (better or equal) the rest are dropped (their
 * results stay in the history as speculative: if drawn again later they
 * count as tests but are not simulated again) and the random stream is
 * rewound to just after that change.  So the result, the tests and their
 * order are those of the one-at-a-time algorithm for any B; B is the
 * number of OpenMP threads while parallel evaluation pays (alloc_width),
 * else 1.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

/* Draw one change of `from` into `to` (Paper V Figure 1). */
static void change(struct alloc_ctx *c, const int32_t *from, int32_t *to)
{
	const uint32_t n = c->n, k = c->k;
	memcpy(to, from, sizeof *to * n);
	int same = 1;
	for (uint32_t i = 1; i < n && same; i++)
		same = from[i] == from[0];
	if (alloc_rand01(&c->rng) > 0.5 && !same) {
		uint32_t a = alloc_rand_below(&c->rng, n), m = 0;
		for (uint32_t i = 0; i < n; i++)
			m += from[i] != from[a];
		uint32_t r = alloc_rand_below(&c->rng, m), b = 0;
		for (uint32_t i = 0; i < n; i++)
			if (from[i] != from[a] && r-- == 0) {
				b = i;
				break;
			}
		to[a] = from[b];
		to[b] = from[a];
	} else {
		uint32_t a = alloc_rand_below(&c->rng, n);
		uint32_t q = alloc_rand_below(&c->rng, k - 1);
		if (q >= (uint32_t)from[a])
			q++;
		to[a] = (int32_t)q;
	}
}

int alloc_greedy_from(struct alloc_ctx *c, const int32_t *init,
                      uint64_t stop_after, enum alloc_stop *why)
{
	const uint32_t n = c->n;
	const size_t kl = c->hist.keylen;
	size_t B = alloc_width_max(c);
	int32_t *best = malloc(sizeof *best * n);
	int32_t *base = malloc(sizeof *base * n);
	int32_t *cand = malloc(sizeof *cand * n * B);
	uint8_t *keys = malloc(kl * (B + 1));
	uint64_t *rng_after = malloc(sizeof *rng_after * B);
	int *st = malloc(sizeof *st * B);
	sim_time *ms = malloc(sizeof *ms * B);
	uint64_t *cut = malloc(sizeof *cut * B);
	int r = 0;
	*why = ALLOC_STOP_DONE;
	if (!best || !base || !cand || !keys || !rng_after || !st || !ms ||
	    !cut) {
		r = ALLOC_ENOMEM;
		goto out;
	}

	int bst;
	sim_time bms;
	if ((alloc_lookup(c, init, &bst, &bms) != ALLOC_H_TESTED ||
	     bst == SIM_CUTOFF) &&
	    (r = alloc_evaluate(c, init, 1, 1, &bst, &bms)) != 0)
		goto out;
	memcpy(best, init, sizeof *best * n);
	memcpy(base, init, sizeof *base * n);
	if (c->k < 2 || n < 2) {
		*why = ALLOC_STOP_EXHAUSTED; /* nothing to change */
		goto out;
	}

	/* Draws in a row that found nothing untested: give up after this
	 * many (the neighbourhood has n(k-1) moves and < n^2/2 swaps). */
	const uint64_t give_up = 64 + 8 * (uint64_t)n * c->k;
	uint64_t dups = 0, noimp = 0;
	for (;;) {
		if (alloc_check(c)) {
			*why = c->stop;
			break;
		}
		uint64_t room = alloc_room(c);
		size_t w = alloc_width(c);
		size_t nb = w < room ? w : (size_t)room, j = 0;
		int exhausted = 0;
		const int32_t *from = base;
		while (j < nb) {
			int32_t *x = cand + j * n;
			change(c, from, x);
			from = best;
			uint8_t *key = keys + j * kl;
			uint64_t hv = alloc_hist_key(&c->hist, x, key);
			int64_t e = alloc_hist_find(&c->hist, key, hv);
			int dup = e >= 0 && c->hist.ent[e].state == ALLOC_H_TESTED;
			for (size_t i = 0; i < j && !dup; i++)
				dup = memcmp(keys + i * kl, key, kl) == 0;
			if (dup) {
				if (++dups >= give_up) {
					exhausted = 1;
					break;
				}
				continue;
			}
			dups = 0;
			rng_after[j++] = c->rng;
		}
		/* Every change of the batch is compared with bst, which
		 * changes only at an accepted one (the rest are dropped):
		 * a makespan above bst is rejected whatever its value, so the
		 * simulations may stop there (same tests, same result). */
		for (size_t i = 0; i < j; i++)
			cut[i] = alloc_cut_at(bst, bms);
		if (j > 0 && (r = alloc_evaluate_cut(c, cand, j, 0, cut, st, ms)) != 0)
			goto out;
		int done = 0;
		for (size_t i = 0; i < j; i++) {
			int32_t *x = cand + i * n;
			alloc_commit(c, x, st[i], ms[i]);
			noimp++;
			int cmp = alloc_cmp(st[i], ms[i], bst, bms), acc = 0;
			if (cmp < 0) {
				memcpy(best, x, sizeof *best * n);
				bst = st[i];
				bms = ms[i];
				noimp = 0;
				acc = 1;
			} else if (cmp == 0) {
				acc = 1;
			}
			memcpy(base, acc ? x : best, sizeof *base * n);
			/* Ending here, the random stream must be where the
			 * one-at-a-time algorithm leaves it (dsg goes on). */
			if (stop_after && noimp >= stop_after) {
				*why = ALLOC_STOP_CRITERION;
				c->rng = rng_after[i];
				done = 1;
				break;
			}
			if (c->stop != ALLOC_STOP_DONE) {
				*why = c->stop;
				c->rng = rng_after[i];
				done = 1;
				break;
			}
			if (acc) {
				/* Rewind to just after this change; drop the rest. */
				c->rng = rng_after[i];
				dups = 0;
				exhausted = 0;
				break;
			}
		}
		if (done)
			break;
		if (exhausted) {
			*why = ALLOC_STOP_EXHAUSTED;
			break;
		}
	}
out:
	free(best);
	free(base);
	free(cand);
	free(keys);
	free(rng_after);
	free(st);
	free(ms);
	free(cut);
	return r;
}

static int run(struct alloc_ctx *c)
{
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	if (c->par->random_start)
		alloc_random_binding(c, b);
	else
		memcpy(b, c->binpack, sizeof *b * c->n);
	enum alloc_stop why;
	int r = alloc_greedy_from(c, b, c->par->stop_after, &why);
	if (!r && c->stop == ALLOC_STOP_DONE)
		c->stop = why;
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_greedy = {
	.name = "greedy",
	.summary = "random swap/move from binpack, keep if better (Paper V Fig. 1)",
	.run = run,
	.search = 1,
	.baseline = 0,
};
