/*
 * alloc-speed - how fast the allocation searches run (docs/alloc.md).
 *
 *   build/bench/alloc-speed [repeats]
 *
 * On programs of the thesis's transactions family (gen), with 1 and 2
 * OpenMP threads: tests and simulations per second during search (tabu:
 * batches of independent neighbours; greedy: speculative batches), the time
 * of sga with 32 threads on 8 processors, and the time of 500 greedy tests
 * on a 36-thread program.  Each figure is the best of `repeats` runs
 * (default 5).  Goals: sga 32/8 under 50 ms, 500 greedy tests under 100 ms
 * on one core, and a search 1.8x faster on two cores than on one: tests/s,
 * the allocations the search judged (alloc.h's vocabulary), not
 * simulations/s, which also counts the speculative runs a parallel batch
 * throws away and the reference runs, and so grows with waste.
 *
 * Then the cutoffs (alloc_params.no_cutoff): CPU time of one thread per
 * algorithm with and without them on the 79-thread sieve (pipeline,
 * limit 397) at k = 8, 600 tests, and auto's default budget on the
 * 1000-thread transactions program at k = 64; the results are asserted
 * equal (binding, makespan, tests).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/alloc.h"
#include "gen/gen.h"
#include "sim/sim.h"
#include "trace/trace.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct trace *transactions(uint32_t threads, uint64_t seed)
{
	struct gen_opts o;
	gen_opts_init(&o);
	o.threads = threads;
	o.seed = seed;
	struct trace *tr = NULL;
	char err[256];
	if (gen_trace("transactions", &o, &tr, NULL, err, sizeof err) != GEN_OK) {
		fprintf(stderr, "alloc-speed: gen: %s\n", err);
		exit(2);
	}
	return tr;
}

struct fig {
	double sec;     /* best wall time                      */
	uint64_t tests, sims;
};

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One run of `alg` on one thread, with or without cutoffs: CPU seconds,
 * and the result in *r (release it). */
static double cut_run(const struct sim_program *sp, const char *alg,
                      uint32_t k, uint64_t max_tests, int no_cutoff,
                      struct alloc_result *r)
{
	omp_set_num_threads(1);
	struct alloc_params p;
	alloc_params_init(&p);
	p.sim.cpus = k;
	snprintf(p.algorithm, sizeof p.algorithm, "%s", alg);
	p.max_tests = max_tests;
	p.no_cutoff = no_cutoff;
	double t0 = cpu_s();
	if (alloc_run(sp, &p, r) != ALLOC_OK) {
		fprintf(stderr, "alloc-speed: %s failed\n", alg);
		exit(2);
	}
	return cpu_s() - t0;
}

static void cut_row(const struct sim_program *sp, const char *label,
                    const char *alg, uint32_t k, uint64_t max_tests)
{
	struct alloc_result a, b;
	double ta = cut_run(sp, alg, k, max_tests, 0, &a);
	double tb = cut_run(sp, alg, k, max_tests, 1, &b);
	if (sim_time_cmp(a.makespan, b.makespan) != 0 || a.tests != b.tests ||
	    memcmp(a.binding, b.binding, sizeof *a.binding * a.nthreads) != 0) {
		fprintf(stderr, "alloc-speed: %s: cutoffs changed the result\n",
		        alg);
		exit(1);
	}
	printf("%-26s %6llu %8.3fs %8.3fs %6.2fx %6llu %6llu %6llu\n", label,
	       (unsigned long long)a.tests, ta, tb, tb / ta,
	       (unsigned long long)b.sims, (unsigned long long)a.sims,
	       (unsigned long long)a.pruned);
	alloc_result_release(&a);
	alloc_result_release(&b);
}

/* Best of `rep` runs of `alg` with `th` OpenMP threads. */
static struct fig measure(const struct sim_program *sp, const char *alg,
                          uint32_t k, uint64_t max_tests, uint64_t stop_after,
                          int th, int rep)
{
	struct fig f = {1e30, 0, 0};
	omp_set_num_threads(th);
	for (int i = 0; i < rep; i++) {
		struct alloc_params p;
		alloc_params_init(&p);
		p.sim.cpus = k;
		snprintf(p.algorithm, sizeof p.algorithm, "%s", alg);
		p.max_tests = max_tests;
		p.stop_after = stop_after;
		struct alloc_result r;
		double t0 = now_s();
		int rc = alloc_run(sp, &p, &r);
		double t = now_s() - t0;
		if (rc != ALLOC_OK) {
			fprintf(stderr, "alloc-speed: %s failed (%d)\n", alg, rc);
			exit(2);
		}
		if (t < f.sec) {
			f.sec = t;
			f.tests = r.tests;
			f.sims = r.sims;
		}
		alloc_result_release(&r);
	}
	return f;
}

int main(int argc, char **argv)
{
	int rep = argc > 1 ? atoi(argv[1]) : 5;
	if (rep < 1)
		rep = 1;
	struct trace *t32 = transactions(32, 3), *t36 = transactions(36, 7);
	struct trace *t64 = transactions(64, 11);
	struct sim_program *p32 = sim_program_new(t32), *p36 = sim_program_new(t36);
	struct sim_program *p64 = sim_program_new(t64);
	if (!p32 || !p36 || !p64)
		return 2;

	printf("alloc-speed: transactions programs (gen), best of %d runs, "
	       "%d processors online\n", rep, omp_get_num_procs());
	printf("  32 threads: %zu records; 36 threads: %zu records; 64 threads: "
	       "%zu records\n\n", t32->nrec, t36->nrec, t64->nrec);
	printf("%-38s %10s %10s %8s  %s\n", "measure", "1 thread", "2 threads",
	       "speedup", "goal");

	struct fig a1 = measure(p36, "tabu", 8, 2000, 100, 1, rep);
	struct fig a2 = measure(p36, "tabu", 8, 2000, 100, 2, rep);
	printf("%-38s %10.0f %10.0f %7.2fx  1.8x on 2 cores\n", "tabu 36 thr/8 cpu: tests/s",
	       a1.tests / a1.sec, a2.tests / a2.sec,
	       (a2.tests / a2.sec) / (a1.tests / a1.sec));
	printf("%-38s %10.0f %10.0f %7.2fx  (speculative runs too)\n",
	       "tabu 36 thr/8 cpu: simulations/s", a1.sims / a1.sec,
	       a2.sims / a2.sec, (a2.sims / a2.sec) / (a1.sims / a1.sec));

	struct fig s1 = measure(p32, "sga", 8, 0, 100, 1, rep);
	struct fig s2 = measure(p32, "sga", 8, 0, 100, 2, rep);
	printf("%-38s %9.1fms %9.1fms %7.2fx  < 50 ms (%llu tests)\n",
	       "sga 32 threads on 8 cpus", s1.sec * 1e3, s2.sec * 1e3,
	       s1.sec / s2.sec, (unsigned long long)s1.tests);

	struct fig g1 = measure(p36, "greedy", 8, 500, 0, 1, rep);
	struct fig g2 = measure(p36, "greedy", 8, 500, 0, 2, rep);
	printf("%-38s %9.1fms %9.1fms %7.2fx  < 100 ms on 1 core\n",
	       "greedy 500 tests, 36 threads, 8 cpus", g1.sec * 1e3,
	       g2.sec * 1e3, g1.sec / g2.sec);
	printf("%-38s %10llu %10llu\n", "  greedy simulations (speculative)",
	       (unsigned long long)g1.sims, (unsigned long long)g2.sims);

	struct fig d1 = measure(p36, "dsg", 8, 500, 100, 1, rep);
	struct fig d2 = measure(p36, "dsg", 8, 500, 100, 2, rep);
	printf("%-38s %9.1fms %9.1fms %7.2fx\n", "dsg 500 tests, 36 threads",
	       d1.sec * 1e3, d2.sec * 1e3, d1.sec / d2.sec);

	struct fig x1 = measure(p64, "auto", 8, 0, 100, 1, rep < 2 ? rep : 2);
	struct fig x2 = measure(p64, "auto", 8, 0, 100, 2, rep < 2 ? rep : 2);
	printf("%-38s %9.0fms %9.0fms %7.2fx  a few seconds (%llu tests)\n",
	       "auto default budget, 64 thr/8 cpu", x1.sec * 1e3, x2.sec * 1e3,
	       x1.sec / x2.sec, (unsigned long long)x1.tests);

	/* Cutoffs. */
	struct gen_opts o;
	gen_opts_init(&o);
	gen_opts_set(&o, "limit", "397");
	struct trace *sieve = NULL, *t1000 = transactions(1000, 1);
	char err[256];
	if (gen_trace("pipeline", &o, &sieve, NULL, err, sizeof err) != GEN_OK)
		return 2;
	struct sim_program *ps = sim_program_new(sieve);
	struct sim_program *p1000 = sim_program_new(t1000);
	printf("\ncutoffs (one thread, CPU time; identical results asserted)\n");
	printf("%-26s %6s %9s %9s %7s %6s %6s %6s\n", "run", "tests", "cut",
	       "no cut", "gain", "sims-", "sims+", "pruned");
	printf("  (sims-: simulations without cutoffs; sims+: with them, plus "
	       "pruned: answered by the load bound)\n");
	const char *algs[] = {"sga", "greedy", "dsg", "tabu", "anneal",
	                      "exhaustive", "auto"};
	for (size_t i = 0; i < sizeof algs / sizeof *algs; i++) {
		char label[64];
		snprintf(label, sizeof label, "%s sieve k=8", algs[i]);
		cut_row(ps, label, algs[i], 8, 600);
	}
	cut_row(p1000, "auto 1000 thr k=64 default", "auto", 64, 0);
	sim_program_free(ps);
	sim_program_free(p1000);
	trace_free(sieve);
	trace_free(t1000);

	sim_program_free(p32);
	sim_program_free(p36);
	sim_program_free(p64);
	trace_free(t32);
	trace_free(t36);
	trace_free(t64);
	return 0;
}
