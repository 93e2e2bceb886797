/* alg_tabu.c - tabu search on the moves of Paper V (ours).
 *
 * From a starting allocation (csga's, in `tabu`), every iteration draws a
 * fixed-size sample of neighbours of the current allocation -- moves of
 * one thread to another processor and swaps of two threads on different
 * processors, half of them guided by the load (a thread of the most loaded
 * processor moves to, or swaps with one of, the least loaded) -- tests
 * them at the same time, and goes to the best of them even when it is
 * worse than the current one (that is how tabu search leaves a local
 * optimum).  The threads just moved are tabu for `tenure` iterations:
 * neighbours that move them are not drawn, so the search does not walk
 * straight back.  After `patience` iterations without a new best, the
 * search restarts: with probability 1/2 from a random allocation (as dsg
 * does; this cut the worst case), else from the best allocation with a
 * random kick of 2-4 moves.  Tenure 2 + n/6 and patience 8 + n/2
 * iterations, 16 neighbours per iteration: the best of the settings
 * measured (docs/alloc.md).  Neighbours tested before are answered from
 * the history at no cost.  The sample size does not depend on the number of OpenMP threads,
 * and the reduction takes the first of the shortest, so the result is the
 * same for any number of threads.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

#define SAMPLE 16    /* neighbours per iteration                      */
#define MAXDRAW 64   /* draws per iteration before settling for fewer  */

struct tabu {
	struct alloc_ctx *c;
	uint32_t n, k;
	int32_t *cur;
	uint64_t *until;          /* [n] iteration until which i is tabu */
	unsigned __int128 *load;  /* [k] work per processor of cur       */
	uint64_t iter;
};

static void loads(struct tabu *t)
{
	memset(t->load, 0, sizeof *t->load * t->k);
	for (uint32_t i = 0; i < t->n; i++)
		t->load[t->cur[i]] += t->c->work[i];
}

/* A random thread on processor p that is not tabu, or -1. */
static int64_t thread_on(struct tabu *t, int32_t p)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < t->n; i++)
		m += t->cur[i] == p && t->until[i] <= t->iter;
	if (!m)
		return -1;
	uint32_t r = alloc_rand_below(&t->c->rng, m);
	for (uint32_t i = 0; i < t->n; i++)
		if (t->cur[i] == p && t->until[i] <= t->iter && r-- == 0)
			return i;
	return -1;
}

/* Draw one neighbour of cur into x; sets the moved threads in mv[2]
 * (mv[1] = -1 for a move).  Returns 0 if the draw failed. */
static int neighbour(struct tabu *t, int guided, int32_t *x, int64_t *mv)
{
	struct alloc_ctx *c = t->c;
	const uint32_t n = t->n, k = t->k;
	memcpy(x, t->cur, sizeof *x * n);
	int swap = alloc_rand01(&c->rng) < 0.5;
	int64_t a, b = -1;
	int32_t q;
	if (guided) {
		int32_t hi = 0, lo = 0;
		for (uint32_t p = 1; p < k; p++) {
			if (t->load[p] > t->load[hi])
				hi = (int32_t)p;
			if (t->load[p] < t->load[lo])
				lo = (int32_t)p;
		}
		if (hi == lo)
			return 0;
		a = thread_on(t, hi);
		if (a < 0)
			return 0;
		q = lo;
		if (swap)
			b = thread_on(t, lo);
	} else {
		a = alloc_rand_below(&c->rng, n);
		if (t->until[a] > t->iter)
			return 0;
		q = (int32_t)alloc_rand_below(&c->rng, k - 1);
		if (q >= t->cur[a])
			q++;
		if (swap)
			b = thread_on(t, q);
	}
	if (b >= 0) {
		x[a] = t->cur[b];
		x[b] = t->cur[a];
	} else {
		x[a] = q;
	}
	mv[0] = a;
	mv[1] = b;
	return 1;
}

/* A kick: `m` random moves applied to x. */
static void kick(struct alloc_ctx *c, int32_t *x, uint32_t m)
{
	for (uint32_t j = 0; j < m; j++) {
		uint32_t a = alloc_rand_below(&c->rng, c->n);
		uint32_t q = alloc_rand_below(&c->rng, c->k - 1);
		if (q >= (uint32_t)x[a])
			q++;
		x[a] = (int32_t)q;
	}
}

int alloc_tabu_from(struct alloc_ctx *c, const int32_t *init, uint64_t budget)
{
	const uint32_t n = c->n, k = c->k;
	const size_t kl = c->hist.keylen;
	struct tabu t = {.c = c, .n = n, .k = k};
	t.cur = malloc(sizeof *t.cur * n);
	t.until = calloc(n, sizeof *t.until);
	t.load = calloc(k, sizeof *t.load);
	int32_t *cand = malloc(sizeof *cand * n * SAMPLE);
	int64_t *mv = malloc(sizeof *mv * 2 * SAMPLE);
	uint8_t *keys = malloc(kl * (SAMPLE + 1));
	int *st = malloc(sizeof *st * SAMPLE);
	sim_time *ms = malloc(sizeof *ms * SAMPLE);
	int r = 0;
	if (!t.cur || !t.until || !t.load || !cand || !mv || !keys || !st ||
	    !ms) {
		r = ALLOC_ENOMEM;
		goto out;
	}
	if (k < 2 || n < 2)
		goto out;
	uint64_t stop_at = budget == UINT64_MAX || c->tests > UINT64_MAX - budget
	                   ? UINT64_MAX : c->tests + budget;
	const uint64_t tenure = 2 + n / 6;
	const uint64_t patience = 8 + n / 2;
	memcpy(t.cur, init, sizeof *t.cur * n);
	int cst;
	sim_time cms;
	if ((r = alloc_evaluate(c, init, 1, 1, &cst, &cms)) != 0)
		goto out;
	uint64_t noimp = 0, idle = 0;
	/* Iterations in a row that tested nothing new (every neighbour drawn
	 * was in the history): a small space is exhausted. */
	const uint64_t give_up = 32 + 2 * (uint64_t)n * k;
	while (!alloc_check(c) && c->tests < stop_at) {
		if (idle >= give_up) {
			c->stop = ALLOC_STOP_EXHAUSTED;
			break;
		}
		t.iter++;
		loads(&t);
		/* The current allocation's own key, to skip null moves. */
		uint8_t *ckey = keys + SAMPLE * kl;
		alloc_hist_key(&c->hist, t.cur, ckey);
		size_t m = 0;
		for (int d = 0; d < MAXDRAW && m < SAMPLE; d++) {
			int32_t *x = cand + m * n;
			if (!neighbour(&t, (d & 1) == 0, x, mv + 2 * m))
				continue;
			uint8_t *key = keys + m * kl;
			alloc_hist_key(&c->hist, x, key);
			int dup = memcmp(key, ckey, kl) == 0;
			for (size_t i = 0; i < m && !dup; i++)
				dup = memcmp(keys + i * kl, key, kl) == 0;
			if (!dup)
				m++;
		}
		if (m == 0) {
			/* Everything near is tabu: forget the tabu list. */
			memset(t.until, 0, sizeof *t.until * n);
			idle++;
			continue;
		}
		int pbst = c->best_st;
		sim_time pbms = c->best_ms;
		uint64_t t_before = c->tests;
		/* Only the first of the shortest is used (it becomes the
		 * current allocation, and the best if it beats it). */
		if ((r = alloc_evaluate_pick(c, cand, m, st, ms)) != 0)
			break;
		idle = c->tests == t_before ? idle + 1 : 0;
		size_t pick = 0;
		for (size_t i = 1; i < m; i++)
			if (alloc_cmp(st[i], ms[i], st[pick], ms[pick]) < 0)
				pick = i;
		int improved = alloc_cmp(st[pick], ms[pick], pbst, pbms) < 0;
		memcpy(t.cur, cand + pick * n, sizeof *t.cur * n);
		cst = st[pick];
		cms = ms[pick];
		t.until[mv[2 * pick]] = t.iter + tenure;
		if (mv[2 * pick + 1] >= 0)
			t.until[mv[2 * pick + 1]] = t.iter + tenure;
		noimp = improved ? 0 : noimp + 1;
		if (noimp >= patience) {
			if (alloc_rand01(&c->rng) < 0.5) {
				alloc_random_binding(c, t.cur);
			} else {
				memcpy(t.cur, c->best, sizeof *t.cur * n);
				kick(c, t.cur, 2 + alloc_rand_below(&c->rng, 3));
			}
			memset(t.until, 0, sizeof *t.until * n);
			if ((r = alloc_evaluate(c, t.cur, 1, 1, &cst, &cms)) != 0)
				break;
			c->restarts++;
			noimp = 0;
		}
	}
out:
	free(t.cur);
	free(t.until);
	free(t.load);
	free(cand);
	free(mv);
	free(keys);
	free(st);
	free(ms);
	return r;
}

static int run(struct alloc_ctx *c)
{
	int r = c->par->random_start ? 0 : alloc_run_phase(c, &alloc_alg_csga);
	if (r || alloc_check(c))
		return r;
	int32_t *b = malloc(sizeof *b * c->n);
	if (!b)
		return ALLOC_ENOMEM;
	if (c->par->random_start)
		alloc_random_binding(c, b);
	else
		memcpy(b, c->best, sizeof *b * c->n);
	r = alloc_tabu_from(c, b, UINT64_MAX);
	free(b);
	return r;
}

const struct alloc_algorithm alloc_alg_tabu = {
	.name = "tabu",
	.summary = "ours: csga, then tabu search on load-guided and random moves/swaps",
	.run = run,
	.search = 1,
	.baseline = 0,
};
