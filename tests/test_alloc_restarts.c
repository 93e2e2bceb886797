/*
 * test_alloc_restarts.c - independent searches (alloc_params.restarts >= 2
 * with greedy, anneal, tabu, auto; alloc/restarts.c, issue 23).
 *
 * The expectation is computed independently of alloc_run_share: search i
 * is, by the definition in alloc.h, alloc_run with seed
 * alloc_restart_seed(seed, i), random_start = (i > 0), restarts 0 and
 * max_tests = B / R + (i < B mod R); here the R searches are run one by
 * one and the best picked by hand (status, then makespan, then the lowest
 * index), the tests summed.  The result must not depend on how the
 * searches are dealt (alloc_run_share over 1, 2, 3 or 5 "ranks", merged in
 * any order), nor on the OpenMP threads, and is never worse than
 * binpacking's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <omp.h>

#include "alloc/alloc.h"
#include "gen/gen.h"
#include "tests/testutil.h"

static struct trace *transactions(uint32_t threads, uint64_t seed)
{
	struct gen_opts o;
	gen_opts_init(&o);
	o.threads = threads;
	o.seed = seed;
	struct trace *tr = NULL;
	char err[256];
	if (gen_trace("transactions", &o, &tr, NULL, err, sizeof err) != GEN_OK)
		fail_msg("gen: %s", err);
	return tr;
}

static int better(const struct alloc_result *a, uint32_t ia,
                  const struct alloc_result *b, uint32_t ib)
{
	if ((a->status != SIM_OK) != (b->status != SIM_OK))
		return a->status == SIM_OK;
	if (a->status == SIM_OK) {
		int c = sim_time_cmp(a->makespan, b->makespan);
		if (c)
			return c < 0;
	}
	return ia < ib;
}

static const struct {
	const char *algorithm;
	uint32_t threads, cpus, restarts;
	uint64_t budget; /* max_tests; 0: the default budget */
	uint64_t seed;
} cases[] = {
	{"auto", 24, 4, 2, 400, 1},
	{"auto", 24, 4, 8, 800, 3},
	{"tabu", 30, 6, 3, 301, 2},
	{"greedy", 20, 4, 5, 500, 1},
	{"anneal", 20, 3, 4, 403, 5},
	{"auto", 16, 4, 3, 0, 1},   /* the default budget, dealt */
	{"greedy", 12, 3, 7, 20, 9}, /* shares of 2 and 3 tests */
};

static void test_definition(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		struct trace *tr = transactions(cases[c].threads, 1);
		struct sim_program *sp = sim_program_new(tr);
		assert_non_null(sp);
		struct alloc_params par;
		alloc_params_init(&par);
		par.sim.cpus = cases[c].cpus;
		snprintf(par.algorithm, sizeof par.algorithm, "%s",
		         cases[c].algorithm);
		par.seed = cases[c].seed;
		par.max_tests = cases[c].budget;
		par.restarts = cases[c].restarts;
		assert_true(alloc_restartable(&par));
		const uint32_t R = par.restarts;
		uint64_t B = par.max_tests ? par.max_tests
		                           : alloc_default_budget(tr);

		/* By hand: the R searches one by one. */
		struct alloc_result best = {0};
		uint32_t ib = 0;
		uint64_t tests = 0;
		for (uint32_t i = 0; i < R; i++) {
			struct alloc_params q = par;
			q.restarts = 0;
			q.seed = alloc_restart_seed(par.seed, i);
			q.random_start = i > 0;
			q.max_tests = B / R + (i < B % R);
			struct alloc_result r;
			assert_int_equal(alloc_run(sp, &q, &r), ALLOC_OK);
			tests += r.tests;
			if (i == 0 || better(&r, i, &best, ib)) {
				alloc_result_release(&best);
				best = r;
				ib = i;
			} else {
				alloc_result_release(&r);
			}
		}

		/* alloc_run, with 1 and 2 OpenMP threads. */
		for (int th = 1; th <= 2; th++) {
			omp_set_num_threads(th);
			struct alloc_result res;
			assert_int_equal(alloc_run(sp, &par, &res), ALLOC_OK);
			if (res.restart != ib ||
			    sim_time_cmp(res.makespan, best.makespan) != 0 ||
			    res.tests != tests)
				fail_msg("case %zu (%s, R %u): search %u, %llu tests; "
				         "expected search %u, %llu tests", c,
				         cases[c].algorithm, R, res.restart,
				         (unsigned long long)res.tests, ib,
				         (unsigned long long)tests);
			assert_memory_equal(res.binding, best.binding,
			                    sizeof *res.binding * tr->nthreads);
			assert_int_equal(res.restarts >= R - 1, 1);
			/* Never worse than binpacking's. */
			assert_true(sim_time_cmp(res.makespan, res.binpack) <= 0);
			alloc_result_release(&res);
		}

		/* Dealt over N "ranks", merged in reverse order. */
		for (uint32_t N = 2; N <= 5; N++) {
			struct alloc_result all = {0};
			for (uint32_t k = N; k-- > 0;) {
				struct alloc_result part;
				assert_true(alloc_run_share(sp, &par, k, N, &part) >= 0);
				if (k >= R)
					assert_null(part.binding);
				alloc_result_merge(&all, &part);
			}
			assert_int_equal(all.restart, ib);
			assert_int_equal(all.tests, tests);
			assert_memory_equal(all.binding, best.binding,
			                    sizeof *all.binding * tr->nthreads);
			alloc_result_release(&all);
		}
		alloc_result_release(&best);
		sim_program_free(sp);
		trace_free(tr);
	}
}

/* The algorithms without randomness or with their own restarts ignore
 * restarts (rgreedy: runs; dsg: a limit), and R < 2 is one search. */
static void test_not_restartable(void **state)
{
	(void)state;
	static const char *const names[] = {"csga", "sga", "binpack",
	                                    "exhaustive", "rgreedy", "dsg",
	                                    "block"};
	struct alloc_params par;
	alloc_params_init(&par);
	par.restarts = 8;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(par.algorithm, sizeof par.algorithm, "%s", names[i]);
		assert_false(alloc_restartable(&par));
	}
	snprintf(par.algorithm, sizeof par.algorithm, "tabu");
	par.restarts = 1;
	assert_false(alloc_restartable(&par));
	par.restarts = 2;
	assert_true(alloc_restartable(&par));
	par.algorithm[0] = 0; /* auto */
	assert_true(alloc_restartable(&par));
	assert_int_equal(alloc_restart_seed(77, 0), 77);
	assert_int_not_equal(alloc_restart_seed(77, 1), 77);
	assert_int_not_equal(alloc_restart_seed(77, 1), alloc_restart_seed(77, 2));
}

/* A search cancelled at once: the later searches are not run, the
 * result is binpacking's allocation (the floor), stop says cancelled. */
static int cancel_now(void *arg, const struct alloc_progress *p)
{
	(void)p;
	(*(int *)arg)++;
	return 1;
}

static void test_cancel(void **state)
{
	(void)state;
	struct trace *tr = transactions(24, 1);
	struct sim_program *sp = sim_program_new(tr);
	struct alloc_params par;
	alloc_params_init(&par);
	par.sim.cpus = 4;
	par.restarts = 4;
	par.max_tests = 2000;
	int calls = 0;
	par.progress = cancel_now;
	par.progress_arg = &calls;
	par.progress_interval = 0;
	struct alloc_result res;
	assert_int_equal(alloc_run(sp, &par, &res), ALLOC_OK);
	assert_int_equal(res.stop, ALLOC_STOP_CANCELLED);
	assert_int_equal(res.restart, 0);
	assert_true(sim_time_cmp(res.makespan, res.binpack) <= 0);
	assert_true(res.tests < 2000 / 4);
	assert_true(calls > 0);
	alloc_result_release(&res);
	sim_program_free(sp);
	trace_free(tr);
}

/* The advice goes with the binding kept: a later search's better binding
 * brings its own processor count and advice (alloc.h: run_unbound is
 * decided by the binding's makespan and cpus_used).  a: makespan 100 on
 * one processor, advised unbound; b: 80 on two, advised binding; b is
 * better (80 < 100), so the merge holds b's binding, 2 and 0. */
static void test_merge_advice(void **state)
{
	(void)state;
	struct alloc_result a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.binding = calloc(2, sizeof *a.binding);
	b.binding = calloc(2, sizeof *b.binding);
	assert_non_null(a.binding);
	assert_non_null(b.binding);
	a.nthreads = b.nthreads = 2;
	a.cpus = b.cpus = 2;
	a.status = b.status = SIM_OK;
	a.makespan = sim_time_int(100);
	a.cpus_used = 1;
	a.run_unbound = 1;
	b.makespan = sim_time_int(80);
	b.binding[1] = 1;
	b.cpus_used = 2;
	b.run_unbound = 0;
	b.restart = 1;
	alloc_result_merge(&a, &b);
	assert_int_equal(a.binding[1], 1);
	assert_int_equal(a.cpus_used, 2);
	assert_int_equal(a.run_unbound, 0);
	alloc_result_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_definition),
		cmocka_unit_test(test_not_restartable),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_merge_advice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
