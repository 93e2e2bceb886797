/* alg_anneal.c - simulated annealing on the moves of Paper V (ours).
 *
 * From csga's allocation (random_start: a random one), draw a change as the greedy algorithm does
 * (swap or move); accept it if it is not longer, or else with probability
 * exp(-d / T), d the relative lengthening; T falls geometrically from T0 =
 * 3% to 0.05% of the makespan as the budget (tests, else time) is spent.
 * Allocations tested before are answered from the history and cost no
 * test.  Parallel like greedy: the next B changes and their random numbers
 * are drawn speculatively as if each were rejected, simulated at once,
 * and taken in order; at the first accepted the rest are dropped and the
 * random stream rewound, so the result is that of the one-at-a-time
 * algorithm for any number of threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

#define T0 0.03
#define TEND 0.0005

static void change(struct alloc_ctx *c, const int32_t *from, int32_t *to)
{
	const uint32_t n = c->n, k = c->k;
	memcpy(to, from, sizeof *to * n);
	uint32_t a = alloc_rand_below(&c->rng, n);
	if (alloc_rand01(&c->rng) < 0.5) {
		uint32_t b = alloc_rand_below(&c->rng, n);
		if (from[a] != from[b]) {
			to[a] = from[b];
			to[b] = from[a];
			return;
		}
	}
	uint32_t q = alloc_rand_below(&c->rng, k - 1);
	if (q >= (uint32_t)from[a])
		q++;
	to[a] = (int32_t)q;
}

static double progress_frac(struct alloc_ctx *c, uint64_t t_start,
                            uint64_t budget)
{
	if (budget != UINT64_MAX && budget > 0)
		return (double)(c->tests - t_start) / (double)budget;
	if (c->par->time_limit > 0)
		return alloc_elapsed(c) / c->par->time_limit;
	return 0;
}

static int run(struct alloc_ctx *c)
{
	int rs = c->par->random_start; /* from a random allocation */
	int r = rs ? 0 : alloc_run_phase(c, &alloc_alg_csga);
	if (r || alloc_check(c) || c->k < 2 || c->n < 2)
		return r;
	const uint32_t n = c->n;
	const size_t kl = c->hist.keylen;
	size_t B = alloc_width_max(c);
	int32_t *cur = malloc(sizeof *cur * n);
	int32_t *cand = malloc(sizeof *cand * n * B);
	uint8_t *keys = malloc(kl * 2);
	uint64_t *rng_after = malloc(sizeof *rng_after * B);
	double *u = malloc(sizeof *u * B);
	int *st = malloc(sizeof *st * B);
	sim_time *ms = malloc(sizeof *ms * B);
	uint64_t *cut = malloc(sizeof *cut * B);
	if (!cur || !cand || !keys || !rng_after || !u || !st || !ms || !cut) {
		r = ALLOC_ENOMEM;
		goto out;
	}
	memcpy(cur, c->best, sizeof *cur * n);
	int cst = c->best_st;
	sim_time cms = c->best_ms;
	if (rs) {
		alloc_random_binding(c, cur);
		if ((r = alloc_evaluate(c, cur, 1, 1, &cst, &cms)) != 0)
			goto out;
	}
	uint64_t t_start = c->tests, budget = alloc_room(c);
	uint64_t idle = 0, nulls = 0, give_up = 1000 + 64 * (uint64_t)n * c->k;
	while (!alloc_check(c)) {
		uint8_t *ckey = keys + kl;
		alloc_hist_key(&c->hist, cur, ckey);
		size_t j = 0, w = alloc_width(c);
		while (j < w) {
			/* A change that only renames processors is no change; in
			 * a row, give_up of them end the search (the same in any
			 * batch, as nulls counts across batches). */
			int32_t *x = cand + j * n;
			change(c, cur, x);
			u[j] = alloc_rand01(&c->rng);
			alloc_hist_key(&c->hist, x, keys);
			if (memcmp(keys, ckey, kl) == 0) {
				if (++nulls >= give_up)
					break;
				continue;
			}
			nulls = 0;
			rng_after[j++] = c->rng;
		}
		/*
		 * Cutoff: with a test budget, candidate i's acceptance
		 * threshold is known before its simulation -- its u, and its
		 * temperature from the test count at its commit (the tests
		 * before the batch plus the new ones up to it) -- so a
		 * makespan above cms (1 - T ln u) is rejected whatever its
		 * value.  The cutoff has a relative margin of 1e-9, far above
		 * the rounding of the double test below.  Not with a time
		 * schedule (T depends on the clock), a failed current run, or
		 * a full history (commits could not be predicted).
		 */
		int cutting = budget != UINT64_MAX && budget > 0 &&
		              cst == SIM_OK && !c->hist.full;
		uint64_t tn = c->tests;
		for (size_t i = 0; i < j; i++) {
			cut[i] = UINT64_MAX;
			if (!cutting)
				continue;
			int st0;
			sim_time ms0;
			int isnew = alloc_lookup(c, cand + i * n, &st0, &ms0) !=
			            ALLOC_H_TESTED;
			uint8_t *ki = keys; /* key of i vs earlier ones */
			alloc_hist_key(&c->hist, cand + i * n, ki);
			for (size_t l = 0; l < i && isnew; l++) {
				alloc_hist_key(&c->hist, cand + l * n, keys + kl);
				isnew = memcmp(ki, keys + kl, kl) != 0;
			}
			tn += isnew;
			double f = (double)(tn - t_start) / (double)budget;
			if (f > 1)
				f = 1;
			double T = T0 * pow(TEND / T0, f);
			double lim = sim_time_to_double(cms) *
			             (1.0 - T * log(u[i])) * (1.0 + 1e-9) + 2.0;
			if (u[i] > 0 && lim < 1.8e19)
				cut[i] = (uint64_t)ceil(lim);
		}
		if (j > 0 &&
		    (r = alloc_evaluate_cut(c, cand, j, 0, cut, st, ms)) != 0)
			break;
		for (size_t i = 0; i < j; i++) {
			int32_t *x = cand + i * n;
			idle = alloc_commit(c, x, st[i], ms[i]) ? 0 : idle + 1;
			if (idle >= give_up && c->stop == ALLOC_STOP_DONE)
				c->stop = ALLOC_STOP_EXHAUSTED;
			int acc;
			if (alloc_cmp(st[i], ms[i], cst, cms) <= 0) {
				acc = 1;
			} else if (st[i] != SIM_OK) {
				acc = 0;
			} else if (cst != SIM_OK) {
				acc = 1;
			} else {
				double f = progress_frac(c, t_start, budget);
				if (f > 1)
					f = 1;
				double T = T0 * pow(TEND / T0, f);
				double d = sim_time_to_double(ms[i]) /
				           sim_time_to_double(cms) - 1.0;
				acc = u[i] < exp(-d / T);
			}
			if (c->stop != ALLOC_STOP_DONE) {
				c->rng = rng_after[i];
				break;
			}
			if (acc) {
				memcpy(cur, x, sizeof *cur * n);
				cst = st[i];
				cms = ms[i];
				c->rng = rng_after[i];
				nulls = 0;
				break;
			}
		}
		if (nulls >= give_up && c->stop == ALLOC_STOP_DONE) {
			c->stop = ALLOC_STOP_EXHAUSTED;
			break;
		}
	}
out:
	free(cur);
	free(cand);
	free(keys);
	free(rng_after);
	free(u);
	free(st);
	free(ms);
	free(cut);
	return r;
}

const struct alloc_algorithm alloc_alg_anneal = {
	.name = "anneal",
	.summary = "ours: csga, then simulated annealing on swaps/moves",
	.run = run,
	.search = 1,
	.baseline = 0,
};
