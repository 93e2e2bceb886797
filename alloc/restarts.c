/* restarts.c - independent searches (alloc.h, "Independent searches"):
 * R searches of one algorithm from different seeds and starts, each with
 * its share of the budget, the best kept with ties to the lowest index,
 * so that the result does not depend on which process ran which search
 * (alloc/mpi.c deals them over MPI ranks). */
#include <string.h>
#include <time.h>

#include "alloc/allocint.h"

int alloc_restartable(const struct alloc_params *par)
{
	static const char *const names[] = {"auto", "greedy", "tabu", "anneal"};
	const char *name = par->algorithm[0] ? par->algorithm : "auto";
	if (par->restarts < 2)
		return 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(name, names[i]) == 0)
			return 1;
	return 0;
}

uint64_t alloc_restart_seed(uint64_t seed, uint32_t i)
{
	if (i == 0)
		return seed;
	uint64_t z = seed + (uint64_t)i * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* What the progress callback sees: the earlier searches added. */
struct wrap {
	const struct alloc_params *par;
	uint64_t tests, sims;  /* of the searches before this one */
	int have;              /* best: of the searches before   */
	int best_st;
	sim_time best;
	double t0, start;      /* units: s; the share's start, the search's */
};

static int wrap_progress(void *arg, const struct alloc_progress *p)
{
	struct wrap *w = arg;
	struct alloc_progress q = *p;
	q.tests += w->tests;
	q.sims += w->sims;
	q.elapsed += w->start - w->t0;
	if (w->have && w->best_st == SIM_OK &&
	    (!q.have_best || sim_time_cmp(w->best, q.best) < 0)) {
		q.have_best = 1;
		q.best = w->best;
	}
	return w->par->progress(w->par->progress_arg, &q);
}

static int stop_rank(enum alloc_stop s)
{
	return s == ALLOC_STOP_CANCELLED ? 2 : s == ALLOC_STOP_TIME ? 1 : 0;
}

void alloc_result_merge(struct alloc_result *a, struct alloc_result *b)
{
	if (!b->binding) {
		alloc_result_release(b);
		return;
	}
	if (!a->binding) {
		*a = *b;
		memset(b, 0, sizeof *b);
		return;
	}
	int c = alloc_cmp(b->status, b->makespan, a->status, a->makespan);
	int better = c < 0 || (c == 0 && b->restart < a->restart);
	enum alloc_stop win = better ? b->stop : a->stop;
	int sa = stop_rank(a->stop), sb = stop_rank(b->stop);
	enum alloc_stop stop = sa || sb ? (sa >= sb ? a->stop : b->stop) : win;
	if (better) {
		int32_t *t = a->binding;
		a->binding = b->binding;
		b->binding = t;
		a->status = b->status;
		a->makespan = b->makespan;
		a->restart = b->restart;
		/* what the advice is decided by goes with the binding */
		a->cpus_used = b->cpus_used;
		a->run_unbound = b->run_unbound;
	}
	a->stop = stop;
	a->tests += b->tests;
	a->sims += b->sims;
	a->deadlocks += b->deadlocks;
	a->restarts += b->restarts + 1;
	a->cutoffs += b->cutoffs;
	a->pruned += b->pruned;
	a->history_full |= b->history_full;
	if (b->history_bytes > a->history_bytes)
		a->history_bytes = b->history_bytes;
	a->enumerated |= b->enumerated;
	a->complete |= b->complete;
	if (b->seconds > a->seconds)
		a->seconds = b->seconds;
	alloc_result_release(b);
}

int alloc_run_share(const struct sim_program *p,
                    const struct alloc_params *par, uint32_t first,
                    uint32_t stride, struct alloc_result *res)
{
	memset(res, 0, sizeof *res);
	if (!p || !par || stride < 1)
		return ALLOC_EINVAL;
	if (!alloc_restartable(par)) {
		if (first > 0)
			return ALLOC_OK;
		return alloc_run(p, par, res);
	}
	const uint32_t R = par->restarts;
	uint64_t B = par->max_tests;
	if (!B && !(par->time_limit > 0))
		B = alloc_default_budget(sim_program_trace(p));
	uint32_t m = first < R ? (R - first + stride - 1) / stride : 0;
	double t0 = now_s();
	struct wrap w = {.par = par, .t0 = t0};
	uint32_t j = 0;
	for (uint32_t i = first; i < R; i += stride, j++) {
		struct alloc_params q = *par;
		q.restarts = 0;
		q.seed = alloc_restart_seed(par->seed, i);
		q.random_start = i > 0;
		if (B) {
			q.max_tests = B / R + (i < B % R);
			if (!q.max_tests)
				q.max_tests = 1;
		}
		if (par->time_limit > 0) {
			double left = par->time_limit - (now_s() - t0);
			if (left <= 0 && res->binding) {
				res->stop = ALLOC_STOP_TIME;
				break;
			}
			q.time_limit = left > 1e-6 ? left / (m - j) : 1e-6;
		}
		w.start = now_s();
		if (par->progress) {
			q.progress = wrap_progress;
			q.progress_arg = &w;
		}
		struct alloc_result ri;
		int r = alloc_run(p, &q, &ri);
		if (r < 0) {
			alloc_result_release(res);
			return r;
		}
		ri.restart = i;
		w.tests += ri.tests;
		w.sims += ri.sims;
		alloc_result_merge(res, &ri);
		w.have = 1;
		w.best_st = res->status;
		w.best = res->makespan;
		if (res->stop == ALLOC_STOP_CANCELLED)
			break;
	}
	res->seconds = now_s() - t0;
	return res->binding && res->status == SIM_DEADLOCK ? ALLOC_DEADLOCK
	                                                   : ALLOC_OK;
}
