/*
 * test_alloc.c - the allocation algorithms against the paper's worked
 * example (Paper IV Sections 3-4, derived by hand below), the paper's test
 * count formula (Figure 3), brute-force enumeration of every allocation,
 * an independent binpacking, and their own contracts: no allocation
 * simulated twice, the same result for any number of OpenMP threads,
 * budgets, configuration errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <omp.h>


#include "alloc/alloc.h"
#include "cli/ini.h"
#include "gen/gen.h"
#include "sim/sim.h"
#include "tests/testutil.h"
#include "trace/trace.h"

#define S TRACE_SHADOW

/* ------------------------------------------------------------------ */

static struct trace *read_shared(const char *rel)
{
	char path[4096];
	struct trace *tr = NULL;
	struct trace_error err;
	tu_shared(rel, path, sizeof path);
	if (trace_read_file(path, &tr, &err) != 0)
		fail_msg("%s", err.msg);
	return tr;
}

static struct trace *transactions(uint32_t threads, uint64_t seed)
{
	struct gen_opts o;
	gen_opts_init(&o);
	o.threads = threads;
	o.seed = seed;
	gen_opts_set(&o, "header", "0");
	struct trace *tr = NULL;
	char err[256];
	if (gen_trace("transactions", &o, &tr, NULL, err, sizeof err) != GEN_OK)
		fail_msg("gen: %s", err);
	return tr;
}

/* Every simulation the search reports, in order. */
struct obs {
	size_t n, cap;
	uint32_t nt;
	int32_t *b;
	int *st;
	sim_time *ms;
};

static void observe(void *arg, const int32_t *b, uint32_t n, int st,
                    sim_time ms)
{
	struct obs *o = arg;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->b = realloc(o->b, sizeof *o->b * n * o->cap);
		o->st = realloc(o->st, sizeof *o->st * o->cap);
		o->ms = realloc(o->ms, sizeof *o->ms * o->cap);
		assert_non_null(o->b);
	}
	o->nt = n;
	memcpy(o->b + o->n * n, b, sizeof *b * n);
	o->st[o->n] = st;
	o->ms[o->n] = ms;
	o->n++;
}

static void obs_free(struct obs *o)
{
	free(o->b);
	free(o->st);
	free(o->ms);
	memset(o, 0, sizeof *o);
}

/* 1 if the canonical form of b is among the observed complete bindings
 * (csga's binpacking test is then answered from the history). */
static int obs_has(const struct obs *o, const int32_t *b)
{
	uint32_t n = o->nt;
	int32_t *cb = malloc(sizeof *cb * n), *cx = malloc(sizeof *cx * n);
	int found = 0;
	alloc_canonical(b, n, cb);
	for (size_t i = 0; i < o->n && !found; i++) {
		alloc_canonical(o->b + i * n, n, cx);
		found = memcmp(cb, cx, sizeof *cb * n) == 0;
	}
	free(cb);
	free(cx);
	return found;
}

static void params(struct alloc_params *p, const char *alg, uint32_t k)
{
	alloc_params_init(p);
	p->sim.cpus = k;
	snprintf(p->algorithm, sizeof p->algorithm, "%s", alg);
}

static int run(const struct sim_program *sp, const struct alloc_params *p,
               struct alloc_result *r)
{
	int rc = alloc_run(sp, p, r);
	assert_true(rc == ALLOC_OK || rc == ALLOC_DEADLOCK);
	return rc;
}

static sim_time simulate(const struct sim_program *sp, const struct sim_params *par,
                         const int32_t *b, int *st)
{
	struct sim_work *w = sim_work_new(sp);
	sim_time ms;
	*st = sim_makespan(sp, w, par, b, &ms);
	sim_work_free(w);
	return ms;
}

/* Binpacking written again, independently of alloc_binpack: sort by
 * work, longest first (ties: lower index), least loaded processor (ties:
 * lowest). */
static void binpack_ref(const struct trace *tr, uint32_t k, int32_t *b)
{
	uint32_t n = tr->nthreads;
	uint64_t *w = malloc(sizeof *w * n);
	uint8_t *done = calloc(n, 1);
	uint64_t *load = calloc(k, sizeof *load);
	for (uint32_t i = 0; i < n; i++)
		w[i] = trace_thread_work(tr, i);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t t = UINT32_MAX;
		for (uint32_t i = 0; i < n; i++)
			if (!done[i] && (t == UINT32_MAX || w[i] > w[t]))
				t = i;
		done[t] = 1;
		uint32_t p = 0;
		for (uint32_t q = 1; q < k; q++)
			if (load[q] < load[p])
				p = q;
		b[t] = (int32_t)p;
		load[p] += w[t];
	}
	free(w);
	free(done);
	free(load);
}

/* Brute force: every restricted growth string with at most k blocks. */
static sim_time brute_force(const struct sim_program *sp,
                            const struct sim_params *par, uint32_t n,
                            uint64_t *count)
{
	int32_t a[16] = {0}, mx[16] = {0};
	struct sim_work *w = sim_work_new(sp);
	sim_time best = {0, 0};
	int have = 0;
	*count = 0;
	for (;;) {
		sim_time ms;
		int st = sim_makespan(sp, w, par, a, &ms);
		(*count)++;
		if (st == SIM_OK && (!have || sim_time_cmp(ms, best) < 0)) {
			best = ms;
			have = 1;
		}
		int i;
		for (i = (int)n - 1; i >= 1; i--)
			if (a[i] <= mx[i - 1] && a[i] + 1 < (int32_t)par->cpus)
				break;
		if (i < 1)
			break;
		a[i]++;
		mx[i] = a[i] > mx[i - 1] ? a[i] : mx[i - 1];
		for (uint32_t j = (uint32_t)i + 1; j < n; j++) {
			a[j] = 0;
			mx[j] = mx[i];
		}
	}
	sim_work_free(w);
	assert_true(have);
	return best;
}

/* ------------------------------------------------------------------
 * Paper IV: the worst case of binpacking and the SGA's worked example.
 * Dense threads: 0 main (work 0), 1 T1 (1030), 2 T2 (1000), 3 T3 (1010),
 * 4 T4 (1020); T3 and T4 wait for both T1 and T2.
 */

static void test_worst_binpack(void **state)
{
	(void)state;
	struct trace *tr = read_shared("examples/binpack-worst-case.trace");
	struct sim_program *sp = sim_program_new(tr);
	struct alloc_params p;
	params(&p, "binpack", 2);
	struct alloc_result r;
	run(sp, &p, &r);
	/* Section 3: T1 -> A, T4 -> B, T3 -> B (l+2e < l+3e), T2 -> A
	 * (l+3e < 2l+3e), main (0) -> A (2l+3e = 2l+3e, the lower number).
	 * T1 and T2 share A until 2l+3e = 2030, then T3 and T4 run on B for
	 * 2l+3e more: 4060. */
	const int32_t want[5] = {0, 0, 0, 1, 1};
	assert_memory_equal(r.binding, want, sizeof want);
	assert_int_equal(r.makespan.num, 4060);
	assert_int_equal(r.makespan.den, 1);
	assert_int_equal(r.tests, 1);
	assert_int_equal(r.binpack.num, 4060);
	/* One processor: total work 4060. */
	assert_int_equal(r.serial.num, 4060);
	int32_t b[5];
	alloc_binpack(tr, 2, b);
	assert_memory_equal(b, want, sizeof want);
	alloc_result_release(&r);
	sim_program_free(sp);
	trace_free(tr);
}

static void test_worst_sga(void **state)
{
	(void)state;
	struct trace *tr = read_shared("examples/binpack-worst-case.trace");
	struct sim_program *sp = sim_program_new(tr);
	struct alloc_params p;
	params(&p, "sga", 2);
	struct obs o = {0};
	p.observe = observe;
	p.observe_arg = &o;
	/* Every simulation in full and in candidate order (with cutoffs the
	 * least-loaded candidate of a step goes first and the others may
	 * stop early: the same result, checked at the end). */
	p.no_cutoff = 1;
	struct alloc_result r;
	run(sp, &p, &r);
	/* Section 4 under ps, latency 0.  T1 is placed on A without a test.
	 * T4: on A 2050 (waits for T1's post at 1030, then 1020), on B 2050:
	 *   equal, the first (A).
	 * T3: on A 3060 (T3 and T4 share A from 1030: 1010 and 1020 at rate
	 *   1/2), on B 2050 (T3 ends at 2040, T4 at 2050): B.
	 * T2: on A 3050 (T1 and T2 share A: T2 ends at 2000, T1 at 2030,
	 *   then T4 1020 alone), on B 2050 (T2 alone on B ends at 1000): B.
	 * main: on A 2050, on B 2050: A.
	 * The paper's allocation: T1, T4 (and main) on A, T2, T3 on B. */
	const int32_t steps[8][5] = {
		{S, 0, S, S, 0}, {S, 0, S, S, 1},
		{S, 0, S, 0, 0}, {S, 0, S, 1, 0},
		{S, 0, 0, 1, 0}, {S, 0, 1, 1, 0},
		{0, 0, 1, 1, 0}, {1, 0, 1, 1, 0},
	};
	const uint64_t ms[8] = {2050, 2050, 3060, 2050, 3050, 2050, 2050, 2050};
	/* First the floor: binpacking's allocation (test_worst_binpack),
	 * 4060; then SGA's eight steps (none of them is that allocation). */
	const int32_t floor_b[5] = {0, 0, 0, 1, 1};
	assert_int_equal(o.n, 9);
	assert_memory_equal(o.b, floor_b, sizeof floor_b);
	assert_int_equal(o.ms[0].num, 4060);
	for (int i = 0; i < 8; i++) {
		assert_memory_equal(o.b + 5 * (i + 1), steps[i], sizeof steps[i]);
		assert_int_equal(o.st[i + 1], SIM_OK);
		assert_int_equal(o.ms[i + 1].num, ms[i]);
		assert_int_equal(o.ms[i + 1].den, 1);
	}
	const int32_t want[5] = {0, 0, 1, 1, 0};
	assert_memory_equal(r.binding, want, sizeof want);
	assert_int_equal(r.makespan.num, 2050);
	/* Figure 3 with T = 5, P = 2: 2(3)/2 - 1 + 2(5 - 2) = 8, and the
	 * floor. */
	assert_int_equal(r.tests, 9);
	assert_int_equal(r.binpack.num, 4060);
	alloc_result_release(&r);
	obs_free(&o);
	p.no_cutoff = 0;
	p.observe = NULL;
	run(sp, &p, &r);
	assert_memory_equal(r.binding, want, sizeof want);
	assert_int_equal(r.makespan.num, 2050);
	assert_int_equal(r.tests, 9);
	alloc_result_release(&r);

	/* csga: the same tests (the floor is binpack's), the same
	 * allocation. */
	params(&p, "csga", 2);
	run(sp, &p, &r);
	assert_memory_equal(r.binding, want, sizeof want);
	assert_int_equal(r.makespan.num, 2050);
	assert_int_equal(r.tests, 9);
	alloc_result_release(&r);

	/* Every algorithm finds 2050 here: it is optimal (brute force). */
	uint64_t cnt;
	sim_time opt = brute_force(sp, &p.sim, 5, &cnt);
	assert_int_equal(opt.num, 2050);
	assert_int_equal(cnt, 16); /* S(5,1) + S(5,2) = 1 + 15 */
	const char *algs[] = {"greedy", "dsg", "rgreedy", "tabu", "anneal",
	                      "exhaustive", "auto"};
	for (size_t i = 0; i < sizeof algs / sizeof *algs; i++) {
		params(&p, algs[i], 2);
		p.max_tests = 40;
		run(sp, &p, &r);
		assert_int_equal(r.makespan.num, 2050);
		assert_true(r.tests <= 40);
		alloc_result_release(&r);
	}
	sim_program_free(sp);
	trace_free(tr);
}

/* Figure 3: P(P+1)/2 - 1 + P(T-P), T >= P > 1. */
static uint64_t figure3(uint64_t T, uint64_t P)
{
	return P * (P + 1) / 2 - 1 + P * (T - P);
}

/* Independent threads of distinct work: every earlier thread is alone on
 * its processor and a free processor gives max(work) while a used one
 * gives more, so the first P threads take one processor each -- the
 * worst case of Figure 3. */
static char *independent(uint32_t workers)
{
	size_t cap = 256 + 64 * (size_t)workers, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s + len, cap - len, "shadowbind-trace 1\n");
	for (uint32_t i = 0; i < workers; i++)
		len += (size_t)snprintf(s + len, cap - len, "1 0 create %u\n",
		                        i + 2);
	for (uint32_t i = 0; i < workers; i++)
		len += (size_t)snprintf(s + len, cap - len, "%u %u exit\n", i + 2,
		                        1000 + 37 * (workers - i));
	for (uint32_t i = 0; i < workers; i++)
		len += (size_t)snprintf(s + len, cap - len, "1 0 join %u\n", i + 2);
	snprintf(s + len, cap - len, "1 0 exit\n");
	return s;
}

static void test_sga_figure3(void **state)
{
	(void)state;
	for (uint64_t P = 2; P <= 12; P++)
		for (uint64_t T = P; T <= 40; T++)
			assert_int_equal(alloc_sga_tests(T, P), figure3(T, P));
	const uint32_t cases[][2] = {{4, 2}, {8, 3}, {8, 4}, {12, 4}, {7, 7},
	                             {20, 8}, {32, 8}};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		uint32_t workers = cases[c][0], P = cases[c][1], T = workers + 1;
		char *text = independent(workers);
		struct trace *tr = tu_trace(text);
		struct sim_program *sp = sim_program_new(tr);
		struct alloc_params p;
		params(&p, "sga", P);
		struct obs o = {0};
		p.observe = observe;
		p.observe_arg = &o;
		struct alloc_result r;
		run(sp, &p, &r);
		/* Figure 3's tests and the floor (binpacking's allocation,
		 * tested first), unless SGA's last step tries that allocation
		 * again (the history answers it: no test).  Every test is
		 * simulated once. */
		assert_true(r.tests == figure3(T, P) ||
		            r.tests == figure3(T, P) + 1);
		assert_int_equal(r.tests, o.n);
		int32_t *b = malloc(sizeof *b * tr->nthreads);
		binpack_ref(tr, P, b);
		assert_true(obs_has(&o, b));
		uint64_t sga_tests = r.tests;
		alloc_result_release(&r);
		/* csga: the same, binpack's test being the floor's. */
		params(&p, "csga", P);
		run(sp, &p, &r);
		assert_int_equal(r.tests, sga_tests);
		free(b);
		obs_free(&o);
		alloc_result_release(&r);
		sim_program_free(sp);
		trace_free(tr);
		free(text);
	}
}

/* csga is never worse than binpacking; csga = min(sga, binpack). */
static void test_csga_never_worse(void **state)
{
	(void)state;
	int programs = 0, better = 0;
	for (uint64_t seed = 1; seed <= 240; seed++) {
		uint32_t threads = 3 + (uint32_t)(seed % 12);
		uint32_t k = 2 + (uint32_t)(seed % 4);
		struct trace *tr = transactions(threads, seed);
		struct sim_program *sp = sim_program_new(tr);
		struct alloc_params p;
		struct alloc_result rc, rs;
		struct obs o = {0};
		for (int a = 0; a < 2; a++) {
			params(&p, a ? "sga" : "csga", k);
			if (a) {
				p.observe = observe;
				p.observe_arg = &o;
			}
			if (seed % 3 == 0)
				p.sim.latency = 100;
			if (seed % 5 == 0)
				sim_policy_parse("fifo", &p.sim);
			run(sp, &p, a ? &rs : &rc);
		}
		int32_t *b = malloc(sizeof *b * tr->nthreads);
		binpack_ref(tr, k, b);
		int st;
		sim_time bp = simulate(sp, &p.sim, b, &st);
		assert_int_equal(st, SIM_OK);
		assert_int_equal(rc.status, SIM_OK);
		assert_true(sim_time_cmp(rc.makespan, bp) <= 0);
		sim_time m = sim_time_cmp(rs.makespan, bp) <= 0 ? rs.makespan : bp;
		assert_int_equal(sim_time_cmp(rc.makespan, m), 0);
		/* Both test binpacking's allocation first (the floor). */
		assert_int_equal(rc.tests, rs.tests);
		assert_true(obs_has(&o, b));
		obs_free(&o);
		assert_true(rs.tests <= alloc_sga_tests(tr->nthreads, k) + 1);
		better += sim_time_cmp(rc.makespan, bp) < 0;
		programs++;
		free(b);
		alloc_result_release(&rc);
		alloc_result_release(&rs);
		sim_program_free(sp);
		trace_free(tr);
	}
	print_message("csga: %d programs, never worse than binpack, better on "
	              "%d\n", programs, better);
}

static int cmp_rows(const void *a, const void *b, void *n)
{
	return memcmp(a, b, sizeof(int32_t) * *(uint32_t *)n);
}

/* No canonical allocation simulated twice (nor speculatively), except
 * again after a run stopped at a lower cutoff. */
static void test_greedy_no_repeat(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct trace *tr = transactions(6 + (uint32_t)seed, seed);
		struct sim_program *sp = sim_program_new(tr);
		const char *alg = seed % 2 ? "greedy" : "dsg";
		for (int th = 1; th <= 2; th++) {
			omp_set_num_threads(th);
			struct alloc_params p;
			params(&p, alg, 2 + (uint32_t)(seed % 3));
			p.seed = seed;
			p.max_tests = 400;
			p.stop_after = seed % 2 ? 100 : 30;
			p.width = th == 1 ? 1 : 4; /* 4: speculative batches */
			struct obs o = {0};
			p.observe = observe;
			p.observe_arg = &o;
			struct alloc_result r;
			run(sp, &p, &r);
			/* Rows: the canonical binding, then 1 if that
			 * simulation stopped at a cutoff.  A binding is
			 * simulated again only after a cut run (a later
			 * comparison needed a higher cutoff): in a group of g
			 * equal bindings, at least g - 1 were cut. */
			uint32_t n = tr->nthreads, n1 = n + 1;
			int32_t *rows = malloc(sizeof *rows * n1 * (o.n + 1));
			for (size_t i = 0; i < o.n; i++) {
				alloc_canonical(o.b + i * n, n, rows + i * n1);
				rows[i * n1 + n] = o.st[i] == SIM_CUTOFF;
			}
			qsort_r(rows, o.n, sizeof *rows * n1, cmp_rows, &n);
			size_t resims = 0;
			for (size_t i = 0; i < o.n;) {
				size_t g = 1, cuts = (size_t)rows[i * n1 + n];
				while (i + g < o.n &&
				       memcmp(rows + i * n1, rows + (i + g) * n1,
				              sizeof *rows * n) == 0)
					cuts += (size_t)rows[(i + g++) * n1 + n];
				assert_true(cuts + 1 >= g);
				resims += g - 1;
				i += g;
			}
			free(rows);
			/* With an observer there are no cutoffs: never
			 * twice. */
			assert_int_equal(resims, 0);
			/* Every test is a simulation; with width 4 some
			 * simulations are speculative and do not count. */
			assert_true(r.tests + resims <= o.n);
			if (th == 1)
				assert_int_equal(r.tests + resims, o.n);
			assert_true(r.tests <= 400);
			obs_free(&o);
			alloc_result_release(&r);
		}
		sim_program_free(sp);
		trace_free(tr);
	}
	omp_set_num_threads(2);
}

/* Brute force on small programs: auto finds the optimum. */
static void test_bruteforce(void **state)
{
	(void)state;
	int cases = 0, exact = 0, heur = 0, greedy = 0;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		uint32_t threads = 4 + (uint32_t)(seed % 5); /* 4..8 */
		uint32_t k = 2 + (uint32_t)(seed % 2);
		struct trace *tr = transactions(threads, seed * 7919);
		struct sim_program *sp = sim_program_new(tr);
		uint32_t n = tr->nthreads;
		struct alloc_params p;
		params(&p, "auto", k);
		uint64_t cnt;
		sim_time opt = brute_force(sp, &p.sim, n, &cnt);
		assert_int_equal(cnt, alloc_partitions(n, k));
		struct alloc_result r;
		run(sp, &p, &r);
		assert_true(sim_time_cmp(r.makespan, opt) >= 0);
		exact += sim_time_cmp(r.makespan, opt) == 0;
		/* The heuristic path: a budget of a quarter of the space. */
		p.max_tests = cnt / 4 > 30 ? cnt / 4 : 30;
		alloc_result_release(&r);
		run(sp, &p, &r);
		heur += sim_time_cmp(r.makespan, opt) == 0;
		alloc_result_release(&r);
		params(&p, "greedy", k);
		run(sp, &p, &r);
		greedy += sim_time_cmp(r.makespan, opt) == 0;
		alloc_result_release(&r);
		cases++;
		sim_program_free(sp);
		trace_free(tr);
	}
	print_message("brute force, %d programs of 4-8 threads on 2-3 cpus: "
	              "auto optimal %d, auto with a quarter of the space as "
	              "budget %d, greedy %d\n", cases, exact, heur, greedy);
	assert_int_equal(exact, cases); /* the budget covers the space */
	assert_true(heur * 10 >= cases * 8);
}

/* ------------------------------------------------------------------
 * The floor (issue 11): whatever stops a search -- a tiny test budget, a
 * tiny time limit, the progress callback cancelling after N tests -- its
 * result is at least as good as binpacking's.  The programs are those on
 * which the old code lost to binpacking: the 16-thread transactions
 * program at k = 4 (exhaustive enumeration starts from "all on one
 * processor"; auto with a time limit chose it) and the 79-thread sieve at
 * k = 8 (the old auto returned the serial allocation).  Binpacking's
 * makespan is simulated here from binpack_ref, not taken from the result.
 */
static struct trace *pipeline(const char *limit)
{
	struct gen_opts o;
	gen_opts_init(&o);
	gen_opts_set(&o, "limit", limit);
	gen_opts_set(&o, "header", "0");
	struct trace *tr = NULL;
	char err[256];
	if (gen_trace("pipeline", &o, &tr, NULL, err, sizeof err) != GEN_OK)
		fail_msg("gen: %s", err);
	return tr;
}

static int cancel_after(void *arg, const struct alloc_progress *pr)
{
	return pr->tests >= *(uint64_t *)arg;
}

static void test_floor(void **state)
{
	(void)state;
	struct {
		struct trace *tr;
		uint32_t k;
	} progs[2] = {{transactions(16, 1), 4}, {pipeline("397"), 8}};
	const char *algs[] = {"binpack", "sga", "csga", "greedy", "dsg",
	                      "rgreedy", "tabu", "anneal", "exhaustive", "auto"};
	int runs = 0;
	for (int g = 0; g < 2; g++) {
		struct trace *tr = progs[g].tr;
		uint32_t k = progs[g].k, n = tr->nthreads;
		struct sim_program *sp = sim_program_new(tr);
		int32_t *b = malloc(sizeof *b * n);
		binpack_ref(tr, k, b);
		struct alloc_params p;
		params(&p, "binpack", k);
		int st;
		sim_time bp = simulate(sp, &p.sim, b, &st);
		assert_int_equal(st, SIM_OK);
		free(b);
		for (size_t a = 0; a < sizeof algs / sizeof *algs; a++) {
			/* mode 0..3: test budgets 1, 2, 7, 40; 4: time limit
			 * 1 ms; 5..7: cancel after 1, 3, 25 tests. */
			for (int mode = 0; mode < 8; mode++) {
				static const uint64_t mt[4] = {1, 2, 7, 40};
				static const uint64_t cn[3] = {1, 3, 25};
				uint64_t after = 0;
				params(&p, algs[a], k);
				if (mode < 4) {
					p.max_tests = mt[mode];
				} else if (mode == 4) {
					p.time_limit = 0.001;
				} else {
					after = cn[mode - 5];
					p.progress = cancel_after;
					p.progress_arg = &after;
					p.progress_interval = 0;
					p.max_tests = 100000;
				}
				struct alloc_result r;
				run(sp, &p, &r);
				assert_int_equal(r.status, SIM_OK);
				if (sim_time_cmp(r.makespan, bp) > 0)
					fail_msg("%s, program %d, mode %d: %g > "
					         "binpack %g", algs[a], g, mode,
					         sim_time_to_double(r.makespan),
					         sim_time_to_double(bp));
				if (strcmp(algs[a], "exhaustive") == 0 && mode != 4) {
					/* Neither space is covered by these. */
					assert_int_equal(r.enumerated, 1);
					assert_int_equal(r.complete, 0);
				}
				if (mode >= 5 && r.stop == ALLOC_STOP_CANCELLED)
					assert_true(r.tests >= after);
				/* auto never starts an enumeration it cannot
				 * finish: 16 threads on 4 processors are
				 * 1.7e8 bindings, far beyond 1 ms or 40
				 * tests. */
				if (strcmp(algs[a], "auto") == 0 && mode != 0)
					assert_int_equal(r.enumerated, 0);
				runs++;
				alloc_result_release(&r);
			}
		}
		sim_program_free(sp);
		trace_free(tr);
	}
	print_message("floor: %d runs, none worse than binpacking\n", runs);

	/* With time to spare, auto enumerates a small space and says it is
	 * complete: 5 threads on 2 processors, 16 bindings (S(5,1) +
	 * S(5,2)), the optimum 2050 (test_worst_sga). */
	struct trace *w = read_shared("examples/binpack-worst-case.trace");
	struct sim_program *wp = sim_program_new(w);
	struct alloc_params p;
	params(&p, "auto", 2);
	p.time_limit = 60;
	struct alloc_result r;
	run(wp, &p, &r);
	assert_int_equal(r.enumerated, 1);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.makespan.num, 2050);
	assert_int_equal(r.tests, 16);
	alloc_result_release(&r);
	sim_program_free(wp);
	trace_free(w);
}

/* ------------------------------------------------------------------
 * rgreedy: Paper V Section 3.5's "10 x 50", checked against its
 * definition on the simulations the search reports.  With max_tests =
 * 501, stop_after = 0 and one simulation per test (width 1, an
 * observer): test 1 is the floor (binpacking's allocation, written again
 * by binpack_ref), then ten runs of exactly 500 / 10 = 50 tests.  A run is
 * Figure 1's greedy walk: each of its tests after the first is one move
 * (one thread differs) or one swap (two threads exchange processors) away
 * from an earlier allocation of the same run (the current or the best);
 * its first test is a random allocation, not one change away from any
 * allocation tested before (16 threads on 4 processors: 4^16 bindings,
 * at most 48 moves and 96 swaps from each of the < 500 earlier ones, so a
 * random start lands there with probability < 2e-5).  The result is the
 * best of all 501 tests.  Then, on the worst case of Paper IV (5 threads,
 * 2 processors: 16 canonical allocations, S(5,1) + S(5,2)), runs that
 * share the history test every allocation at most once: however large
 * the budget, at most 16 tests, and the optimum 2050 (brute force in
 * test_worst_sga).
 */
static int one_change(const int32_t *a, const int32_t *b, uint32_t n)
{
	uint32_t d[3], nd = 0;
	for (uint32_t i = 0; i < n && nd < 3; i++)
		if (a[i] != b[i])
			d[nd++] = i;
	if (nd == 1)
		return 1;
	return nd == 2 && a[d[0]] == b[d[1]] && a[d[1]] == b[d[0]];
}

static void test_rgreedy(void **state)
{
	(void)state;
	struct trace *tr = transactions(16, 3);
	struct sim_program *sp = sim_program_new(tr);
	uint32_t n = tr->nthreads;
	assert_int_equal(n, 16);
	struct alloc_params p;
	params(&p, "rgreedy", 4);
	p.max_tests = 501;
	p.stop_after = 0;
	p.restarts = 10;
	p.width = 1;
	struct obs o = {0};
	p.observe = observe;
	p.observe_arg = &o;
	struct alloc_result r;
	run(sp, &p, &r);
	assert_int_equal(r.tests, 501);
	assert_int_equal(r.restarts, 9);
	assert_int_equal(r.stop, ALLOC_STOP_TESTS);
	assert_int_equal(o.n, 501);
	int32_t *bp = malloc(sizeof *bp * n);
	binpack_ref(tr, 4, bp);
	assert_memory_equal(o.b, bp, sizeof *bp * n);
	free(bp);
	sim_time best = o.ms[0];
	for (size_t t = 1; t < o.n; t++) {
		size_t start = 1 + (t - 1) / 50 * 50; /* first test of t's run */
		int near = 0;
		for (size_t s = t == start ? 0 : start; s < t && !near; s++)
			near = one_change(o.b + s * n, o.b + t * n, n);
		if (t == start && near)
			fail_msg("test %zu: a run starts next to an earlier test", t);
		if (t != start && !near)
			fail_msg("test %zu: not one change from its run", t);
		assert_int_equal(o.st[t], SIM_OK);
		if (sim_time_cmp(o.ms[t], best) < 0)
			best = o.ms[t];
	}
	assert_int_equal(sim_time_cmp(r.makespan, best), 0);
	assert_true(sim_time_cmp(best, o.ms[0]) < 0); /* the runs found better */
	obs_free(&o);
	alloc_result_release(&r);
	sim_program_free(sp);
	trace_free(tr);

	struct trace *w = read_shared("examples/binpack-worst-case.trace");
	struct sim_program *wp = sim_program_new(w);
	params(&p, "rgreedy", 2);
	p.max_tests = 1000;
	p.stop_after = 0;
	p.restarts = 3;
	run(wp, &p, &r);
	assert_true(r.tests <= 16);
	assert_int_equal(r.makespan.num, 2050);
	assert_int_equal(r.makespan.den, 1);
	assert_int_equal(r.restarts, 2);
	alloc_result_release(&r);
	sim_program_free(wp);
	trace_free(w);
}

/* The baselines (Paper VII Section 7.2): block and roundrobin, by hand. */
/* main (work 0) creates T2, T3, T4 of work 100, 200, 300 and joins them
 * (test_baselines, test_unbound) */
static const char three_children[] = "shadowbind-trace 1\n"
                                     "1 0 create 2\n1 0 create 3\n1 0 create 4\n"
                                     "2 100 exit\n3 200 exit\n4 300 exit\n"
                                     "1 0 join 2\n1 0 join 3\n1 0 join 4\n"
                                     "1 0 exit\n";

static void test_baselines(void **state)
{
	(void)state;
	/* Block: n = 7, k = 3: 7 mod 3 = 1 block of 3, then 2 of 2.
	 * n = 2, k = 3: one thread on each of the first two.  n = 6, k = 3:
	 * three blocks of 2. */
	const struct {
		uint32_t n, k;
		int32_t block[8], rr[8];
	} cases[] = {
		{7, 3, {0, 0, 0, 1, 1, 2, 2}, {0, 1, 2, 0, 1, 2, 0}},
		{2, 3, {0, 1}, {0, 1}},
		{6, 3, {0, 0, 1, 1, 2, 2}, {0, 1, 2, 0, 1, 2}},
		{8, 1, {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}},
		{5, 2, {0, 0, 0, 1, 1}, {0, 1, 0, 1, 0}},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int32_t b[8];
		alloc_block(cases[i].n, cases[i].k, b);
		assert_memory_equal(b, cases[i].block, sizeof *b * cases[i].n);
		alloc_roundrobin(cases[i].n, cases[i].k, b);
		assert_memory_equal(b, cases[i].rr, sizeof *b * cases[i].n);
	}
	/* Through alloc_run, k = 2: main (work 0) creates T2, T3, T4 of work
	 * 100, 200, 300 and joins them.  block {main, T2} / {T3, T4}: T3 and
	 * T4 share a processor, 500.  roundrobin {main, T3} / {T2, T4}: 400.
	 * binpacking ({main, T4} / {T2, T3}: T4 300, then T3 first, main last on the tie) gives 300, better than both:
	 * the baselines return their own binding all the same (no floor),
	 * after one test. */
	struct trace *tr = tu_trace(three_children);
	struct sim_program *sp = sim_program_new(tr);
	const struct {
		const char *alg;
		int32_t want[4];
		uint64_t ms;
	} runs[] = {
		{"block", {0, 0, 1, 1}, 500},
		{"roundrobin", {0, 1, 0, 1}, 400},
		{"binpack", {0, 1, 1, 0}, 300},
	};
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		struct alloc_params p;
		params(&p, runs[i].alg, 2);
		struct alloc_result r;
		run(sp, &p, &r);
		assert_memory_equal(r.binding, runs[i].want, sizeof runs[i].want);
		assert_int_equal(r.makespan.num, runs[i].ms);
		assert_int_equal(r.makespan.den, 1);
		assert_int_equal(r.binpack.num, 300);
		assert_int_equal(r.tests, 1);
		alloc_result_release(&r);
	}
	int bi = alloc_algorithm_find("block"), ri = alloc_algorithm_find("roundrobin");
	assert_true(bi >= 0 && ri >= 0);
	assert_int_equal(alloc_algorithm_baseline((size_t)bi), 1);
	assert_int_equal(alloc_algorithm_baseline((size_t)ri), 1);
	assert_int_equal(alloc_algorithm_baseline((size_t)alloc_algorithm_find("auto")), 0);
	sim_program_free(sp);
	trace_free(tr);
}

/* The prediction left unbound (alloc.h: has_unbound, unbound; issue 25:
 * allocate's binding against the OS).  The program of test_baselines:
 * main (work 0) creates T2, T3, T4 of work 100, 200, 300 and joins them.
 * Under a machine model with no costs (machine 1, every figure 0), fifo,
 * k = 2, unbound: T2 and T3 start at 0 on the two processors (main has
 * blocked in its join at 0), T4 takes T2's processor at 100 and ends at
 * 400, T3 at 200; main's joins and exit take no time: 400.  Binpacking's
 * binding ({main, T4} / {T2, T3}) 300 (test_baselines).  Without the
 * machine model, or on one processor, no prediction unbound. */
static void test_unbound(void **state)
{
	(void)state;
	struct trace *tr = tu_trace(three_children);
	struct sim_program *sp = sim_program_new(tr);
	/* run_unbound: the binding (300) is (400 - 300) / 400 = 25% faster
	 * than unbound: worth binding under the default margin (13%), not
	 * under a margin of 30% */
	const struct {
		int machine;
		uint32_t k;
		int has;
		uint64_t unbound;
		double margin;
		int run_unbound;
	} cases[] = {
		{.machine = 1, .k = 2, .has = 1, .unbound = 400, .margin = ALLOC_UNBOUND_MARGIN},
		{.machine = 1, .k = 2, .has = 1, .unbound = 400, .margin = 30, .run_unbound = 1},
		{.machine = 1, .k = 2, .has = 1, .unbound = 400, .margin = 25},
		{.machine = 0, .k = 2, .has = 0, .margin = 30},
		{.machine = 1, .k = 1, .has = 0, .margin = 30},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct alloc_params p;
		params(&p, "binpack", cases[i].k);
		p.sim.policy = SIM_FIFO;
		p.sim.machine = cases[i].machine;
		p.unbound_margin = cases[i].margin;
		struct alloc_result r;
		run(sp, &p, &r);
		assert_int_equal(r.has_unbound, cases[i].has);
		assert_int_equal(r.unbound.num, cases[i].unbound);
		assert_int_equal(r.run_unbound, cases[i].run_unbound);
		/* the margin it was decided by, for the caller to print */
		assert_true(r.unbound_margin == (cases[i].has ? cases[i].margin : 0));
		if (cases[i].k == 2)
			assert_int_equal(r.makespan.num, 300);
		alloc_result_release(&r);
	}
	sim_program_free(sp);
	trace_free(tr);
}

/* A binding on fewer processors than the OS would use is not advised,
 * however fast it is predicted (alloc.h: run_unbound, cpus_used; NAS
 * SP's two threads on one CPU ran 2.6 times slower than unbound).  main
 * creates T2, works 10 and posts S1; T2 waits for S1, works 10, posts
 * S2; main waits for S2 and joins T2.  Machine model (machine 1, every
 * cost 0) with latency L = 100 between any two processors, ps, k = 2.
 *   Both threads on one processor (exhaustive finds it; ties: the
 *   first): no hand-off crosses processors: T2 blocks in its wait at 0,
 *   main posts at 10, T2 works 10 to 20 and posts, main's wait and join
 *   at 20: 20.
 *   Unbound (every child remote, each thread of the pool on a processor
 *   of its own): T2 ready at 0 + L = 100; S1's token, posted at 10 on
 *   main's processor, reaches it at 10 + L = 110; T2 works to 120 and
 *   posts; main, blocked in its wait since 10, goes on at 120 + L = 220;
 *   T2's exit (120) reached it at 220 too: 220.
 * The binding is (220 - 20) / 220 = 91% faster, far above the margin,
 * but uses 1 processor of 2: run unbound.  three_children's binpacking
 * (test_unbound) uses both: its advice is the margin's alone. */
static const char two_handoffs[] = "shadowbind-trace 1\n"
                                   "1 0 create 2\n1 10 post 1\n"
                                   "2 0 wait 1\n2 10 post 2\n2 0 exit\n"
                                   "1 0 wait 2\n1 0 join 2\n1 0 exit\n";

static void test_unbound_cpus_used(void **state)
{
	(void)state;
	const struct {
		const char *trace;
		const char *alg;
		uint64_t makespan, unbound;
		uint32_t cpus_used;
		int run_unbound;
	} cases[] = {
		{two_handoffs, "exhaustive", 20, 220, 1, 1},
		{three_children, "binpack", 300, 400, 2, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct trace *tr = tu_trace(cases[i].trace);
		struct sim_program *sp = sim_program_new(tr);
		struct alloc_params p;
		params(&p, cases[i].alg, 2);
		p.sim.machine = 1;
		if (cases[i].trace == two_handoffs)
			p.sim.latency = 100;
		else
			p.sim.policy = SIM_FIFO; /* test_unbound's */
		struct alloc_result r;
		run(sp, &p, &r);
		assert_int_equal(r.has_unbound, 1);
		assert_int_equal(r.makespan.num, cases[i].makespan);
		assert_int_equal(r.unbound.num, cases[i].unbound);
		assert_int_equal(r.cpus_used, cases[i].cpus_used);
		assert_int_equal(r.run_unbound, cases[i].run_unbound);
		alloc_result_release(&r);
		sim_program_free(sp);
		trace_free(tr);
	}
}

/* The history's memory cap (issue 14: annealing's history grew to 1 GB):
 * with a 64 KiB cap a long anneal keeps going within it, says so, and is
 * never worse than binpacking; the default cap leaves short runs alone. */
static void test_history_cap(void **state)
{
	(void)state;
	struct trace *tr = transactions(16, 1);
	struct sim_program *sp = sim_program_new(tr);
	struct alloc_params p;
	struct alloc_result r, d;
	params(&p, "anneal", 4);
	p.max_tests = 3000;
	p.lower = sim_time_int(0); /* no early stop */
	run(sp, &p, &d);
	assert_int_equal(d.history_full, 0);
	assert_int_equal(p.history_bytes, ALLOC_HISTORY_BYTES);
	p.history_bytes = 64 << 10;
	run(sp, &p, &r);
	assert_int_equal(r.history_full, 1);
	assert_true(r.history_bytes <= 64 << 10);
	assert_true(d.history_bytes > 64 << 10);
	assert_int_equal(r.tests, 3000);
	assert_true(sim_time_cmp(r.makespan, r.binpack) <= 0);
	alloc_result_release(&r);
	alloc_result_release(&d);
	sim_program_free(sp);
	trace_free(tr);
}

/* The same result for 1, 2 and 3 OpenMP threads. */
static void test_determinism(void **state)
{
	(void)state;
	const char *algs[] = {"sga", "csga", "greedy", "dsg", "rgreedy", "tabu",
	                      "anneal", "exhaustive", "auto"};
	uint64_t cut = 0;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct trace *tr = transactions(10 + 4 * (uint32_t)seed, seed);
		struct sim_program *sp = sim_program_new(tr);
		for (size_t a = 0; a < sizeof algs / sizeof *algs; a++) {
			struct alloc_result r[3];
			for (int th = 1; th <= 3; th++) {
				omp_set_num_threads(th);
				struct alloc_params p;
				params(&p, algs[a], 3 + (uint32_t)(seed % 2));
				p.seed = seed;
				p.max_tests = 300;
				p.sim.latency = seed % 2 ? 0 : 50;
				run(sp, &p, &r[th - 1]);
			}
			/* Without cutoffs (alloc_params.no_cutoff): the same
			 * binding, makespan and tests, only slower. */
			{
				struct alloc_params p;
				params(&p, algs[a], 3 + (uint32_t)(seed % 2));
				p.seed = seed;
				p.max_tests = 300;
				p.sim.latency = seed % 2 ? 0 : 50;
				p.no_cutoff = 1;
				struct alloc_result rn;
				run(sp, &p, &rn);
				assert_memory_equal(r[0].binding, rn.binding,
				                    sizeof *rn.binding * tr->nthreads);
				assert_int_equal(sim_time_cmp(r[0].makespan,
				                              rn.makespan), 0);
				assert_int_equal(r[0].tests, rn.tests);
				assert_int_equal(rn.cutoffs, 0);
				alloc_result_release(&rn);
			}
			/* Speculation widths 1..7 (greedy, dsg, anneal). */
			for (uint32_t w = 1; w <= 7; w += 3) {
				struct alloc_params p;
				params(&p, algs[a], 3 + (uint32_t)(seed % 2));
				p.seed = seed;
				p.max_tests = 300;
				p.sim.latency = seed % 2 ? 0 : 50;
				p.width = w;
				struct alloc_result rw;
				run(sp, &p, &rw);
				assert_memory_equal(r[0].binding, rw.binding,
				                    sizeof *rw.binding * tr->nthreads);
				assert_int_equal(r[0].tests, rw.tests);
				alloc_result_release(&rw);
			}
			for (int th = 1; th < 3; th++) {
				assert_memory_equal(r[0].binding, r[th].binding,
				                    sizeof *r[0].binding * tr->nthreads);
				assert_int_equal(sim_time_cmp(r[0].makespan,
				                              r[th].makespan), 0);
				assert_int_equal(r[0].tests, r[th].tests);
			}
			cut += r[0].cutoffs;
			for (int th = 0; th < 3; th++)
				alloc_result_release(&r[th]);
		}
		sim_program_free(sp);
		trace_free(tr);
	}
	omp_set_num_threads(2);
	/* The comparison above means something only if runs were cut. */
	print_message("determinism: %llu simulations stopped at a cutoff\n",
	              (unsigned long long)cut);
	assert_true(cut > 0);
}

/* Budgets, exhaustive enumeration, cancel, lower bound. */
static int cancel_at_once(void *arg, const struct alloc_progress *pr)
{
	(void)pr;
	(*(int *)arg)++;
	return 1;
}

static void test_budget_and_stops(void **state)
{
	(void)state;
	struct trace *tr = transactions(16, 5);
	struct sim_program *sp = sim_program_new(tr);
	const char *algs[] = {"greedy", "dsg", "rgreedy", "tabu", "anneal",
	                      "auto", "exhaustive"};
	for (size_t a = 0; a < sizeof algs / sizeof *algs; a++) {
		for (uint64_t mt = 1; mt <= 200; mt += 67) {
			struct alloc_params p;
			params(&p, algs[a], 4);
			p.max_tests = mt;
			struct alloc_result r;
			run(sp, &p, &r);
			/* auto and tabu start with csga/binpack, which always
			 * complete: allow their tests. */
			uint64_t slack = strcmp(algs[a], "greedy") == 0 ||
			                 strcmp(algs[a], "dsg") == 0 ||
			                 strcmp(algs[a], "rgreedy") == 0 ||
			                 strcmp(algs[a], "exhaustive") == 0 ? 0 :
			                 alloc_sga_tests(tr->nthreads, 4) + 1;
			assert_true(r.tests <= mt + slack);
			assert_int_equal(r.status, SIM_OK);
			alloc_result_release(&r);
		}
	}
	/* dsg restarts when the criterion fires. */
	struct alloc_params p;
	params(&p, "dsg", 4);
	p.stop_after = 20;
	p.max_tests = 500;
	struct alloc_result r;
	run(sp, &p, &r);
	assert_true(r.restarts > 0);
	assert_int_equal(r.tests, 500);
	assert_int_equal(r.stop, ALLOC_STOP_TESTS);
	alloc_result_release(&r);
	p.restarts = 1;
	run(sp, &p, &r);
	assert_int_equal(r.restarts, 1);
	alloc_result_release(&r);

	/* Cancel from the progress callback: still a result. */
	int calls = 0;
	params(&p, "greedy", 4);
	p.progress = cancel_at_once;
	p.progress_arg = &calls;
	p.progress_interval = 0;
	run(sp, &p, &r);
	assert_true(calls >= 1);
	assert_int_equal(r.stop, ALLOC_STOP_CANCELLED);
	assert_true(r.tests <= 2);
	assert_int_equal(r.status, SIM_OK);
	alloc_result_release(&r);

	/* A lower bound equal to the optimum stops the search there. */
	struct trace *w = read_shared("examples/binpack-worst-case.trace");
	struct sim_program *wp = sim_program_new(w);
	params(&p, "dsg", 2);
	p.lower = sim_time_int(2050);
	p.max_tests = 1000;
	run(wp, &p, &r);
	assert_int_equal(r.makespan.num, 2050);
	assert_int_equal(r.stop, ALLOC_STOP_LOWER);
	assert_true(r.tests < 1000);
	alloc_result_release(&r);

	/* Exhaustive: exactly the partitions, then it stops. */
	params(&p, "exhaustive", 3);
	run(wp, &p, &r);
	assert_int_equal(r.tests, 1 + 15 + 25); /* S(5,1..3) */
	assert_int_equal(r.stop, ALLOC_STOP_EXHAUSTED);
	alloc_result_release(&r);
	sim_program_free(wp);
	trace_free(w);
	sim_program_free(sp);
	trace_free(tr);
}

static void test_invalid(void **state)
{
	(void)state;
	struct trace *tr = read_shared("examples/binpack-worst-case.trace");
	struct sim_program *sp = sim_program_new(tr);
	struct alloc_params p;
	struct alloc_result r;
	params(&p, "nosuch", 2);
	assert_int_equal(alloc_run(sp, &p, &r), ALLOC_EINVAL);
	assert_null(r.binding);
	params(&p, "sga", 0);
	assert_int_equal(alloc_run(sp, &p, &r), ALLOC_EINVAL);
	params(&p, "sga", 2);
	p.sim.mode = SIM_UNBOUND;
	assert_int_equal(alloc_run(sp, &p, &r), ALLOC_EINVAL);
	/* One processor: the only allocation. */
	params(&p, "auto", 1);
	assert_int_equal(alloc_run(sp, &p, &r), ALLOC_OK);
	assert_int_equal(r.makespan.num, 4060);
	alloc_result_release(&r);
	/* More processors than threads. */
	params(&p, "csga", 9);
	assert_int_equal(alloc_run(sp, &p, &r), ALLOC_OK);
	assert_int_equal(r.makespan.num, 2050);
	alloc_result_release(&r);
	sim_program_free(sp);
	trace_free(tr);
}

/* Lock-order deadlock (tu_lock_inversion): under ps the two workers
 * always take their first mutex (at 0) before either asks for its second
 * (alone: at 10 each; sharing a processor at rate 1/2: at 20 each),
 * whatever the binding; under fifo a worker sharing a processor with the
 * other runs both its locks before the other starts. */

static void test_deadlock(void **state)
{
	(void)state;
	struct trace *tr = tu_trace(tu_lock_inversion);
	struct sim_program *sp = sim_program_new(tr);
	const char *algs[] = {"binpack", "sga", "csga", "greedy", "auto"};
	for (size_t a = 0; a < sizeof algs / sizeof *algs; a++) {
		struct alloc_params p;
		params(&p, algs[a], 2);
		p.sim.model = SIM_DIRECT;
		struct alloc_result r;
		assert_int_equal(alloc_run(sp, &p, &r), ALLOC_DEADLOCK);
		assert_int_equal(r.status, SIM_DEADLOCK);
		assert_non_null(r.binding);
		assert_true(r.deadlocks >= 1);
		alloc_result_release(&r);
	}
	/* Under the auto model (Paper VIII) the strict model takes over. */
	{
		struct alloc_params p;
		params(&p, "csga", 2);
		assert_int_equal(p.sim.model, SIM_AUTO); /* the default */
		struct alloc_result r;
		assert_int_equal(alloc_run(sp, &p, &r), ALLOC_OK);
		assert_int_equal(r.status, SIM_OK);
		/* one model for the whole search, not Direct (it deadlocks on
		 * binpacking's allocation, where the scheme decides) */
		assert_true(r.model == SIM_CLIENT_SERVER || r.model == SIM_STRICT);
		assert_int_equal(r.deadlocks, 0);
		alloc_result_release(&r);
	}
	/* Under fifo the first worker runs to completion when the two share
	 * a processor: some binding works. */
	struct alloc_params p;
	params(&p, "auto", 2);
	p.sim.model = SIM_DIRECT;
	sim_policy_parse("fifo", &p.sim);
	struct alloc_result r;
	assert_int_equal(alloc_run(sp, &p, &r), ALLOC_OK);
	assert_int_equal(r.binding[1], r.binding[2]);
	alloc_result_release(&r);
	sim_program_free(sp);
	trace_free(tr);
}

static void test_canonical_partitions(void **state)
{
	(void)state;
	const int32_t a[6] = {3, 3, 1, S, 3, 0};
	int32_t c[6];
	alloc_canonical(a, 6, c);
	const int32_t want[6] = {0, 0, 1, S, 0, 2};
	assert_memory_equal(c, want, sizeof want);
	/* Bell numbers (k >= n) and 2^(n-1) (k = 2). */
	const uint64_t bell[] = {1, 1, 2, 5, 15, 52, 203, 877, 4140, 21147};
	for (uint32_t n = 0; n < 10; n++)
		assert_int_equal(alloc_partitions(n, n ? n : 1), bell[n]);
	for (uint32_t n = 1; n < 40; n++)
		assert_int_equal(alloc_partitions(n, 2), 1ull << (n - 1));
	assert_int_equal(alloc_partitions(8, 4), 1 + 127 + 966 + 1701);
	assert_int_equal(alloc_partitions(200, 3), UINT64_MAX);
}

/* FIPS 180-2 vectors, each way the compression runs: portable C, and
 * the SHA extensions when this processor has them (else said skipped). */
static void sha256_vectors(int portable)
{
	struct {
		const char *in, *hex;
	} v[] = {
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		struct trace_sha256 s;
		char hex[65];
		trace_sha256_init(&s);
		s.portable = portable;
		/* Byte by byte for the long one: exercises the buffering. */
		if (i == 2)
			for (const char *c = v[i].in; *c; c++)
				trace_sha256_update(&s, c, 1);
		else
			trace_sha256_update(&s, v[i].in, strlen(v[i].in));
		trace_sha256_final(&s, hex);
		assert_string_equal(hex, v[i].hex);
	}
	/* A million 'a' (FIPS 180-2 C.3): 1000 pieces of 1000 bytes, so
	 * that most blocks straddle two updates; then in one update. */
	static char buf[1000000];
	memset(buf, 'a', sizeof buf);
	for (int way = 0; way < 2; way++) {
		struct trace_sha256 s;
		char hex[65];
		trace_sha256_init(&s);
		s.portable = portable;
		if (way == 0)
			for (int i = 0; i < 1000; i++)
				trace_sha256_update(&s, buf + 1000 * i, 1000);
		else
			trace_sha256_update(&s, buf, sizeof buf);
		trace_sha256_final(&s, hex);
		assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	}
}

static void test_sha256(void **state)
{
	(void)state;
	sha256_vectors(1);
}

/* The SHA extensions' way: the same vectors, and the same digests as the
 * portable way (skipped, and counted so, on a processor without them). */
static void test_sha256_accelerated(void **state)
{
	(void)state;
	if (!trace_sha256_accelerated()) {
		print_message("test_sha256_accelerated: this processor has no SHA extensions: "
		              "SKIPPED (the portable way is test_sha256's)\n");
		skip();
	}
	sha256_vectors(0);
	/* The two ways agree on pseudo-random bytes of every length 0..300
	 * (all the padding cases) fed in uneven pieces. */
	uint8_t data[300];
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < sizeof data; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		data[i] = (uint8_t)x;
	}
	for (size_t n = 0; n <= sizeof data; n++) {
		char hex[2][65];
		for (int portable = 0; portable < 2; portable++) {
			struct trace_sha256 s;
			trace_sha256_init(&s);
			s.portable = portable;
			for (size_t off = 0, piece = 1; off < n; off += piece, piece = piece * 3 % 97 + 1)
				trace_sha256_update(&s, data + off, piece < n - off ? piece : n - off);
			trace_sha256_final(&s, hex[portable]);
		}
		assert_string_equal(hex[0], hex[1]);
	}
}

static int config_err(const char *sec, const char *key, const char *val,
                      char *err, size_t len, struct alloc_params *p)
{
	char text[256];
	struct cli_ini ini;
	snprintf(text, sizeof text, "[%s]\n%s = %s\n", sec, key, val);
	assert_int_equal(cli_ini_parse("allocate.ini", text, strlen(text), &ini, err, len), 0);
	alloc_params_init(p);
	int r = alloc_config_apply(&ini, p, err, len);
	cli_ini_release(&ini);
	return r;
}

static void test_config(void **state)
{
	(void)state;
	struct {
		const char *sec, *key, *val, *msg;
	} bad[] = {
		{"search", "max_tests", "abc", "allocate.ini:2: [search] max_tests: 'abc' is not an integer in 0..18446744073709551615"},
		{"search", "max_tests", "-5", "allocate.ini:2: [search] max_tests: '-5' is not an integer in 0..18446744073709551615"},
		{"search", "seed", "1x", "allocate.ini:2: [search] seed: '1x' is not an integer in 0..18446744073709551615"},
		{"search", "stop_after", "", "allocate.ini:2: [search] stop_after: '' is not an integer in 0..18446744073709551615"},
		{"search", "restarts", "99999999999", "allocate.ini:2: [search] restarts: '99999999999' is not an integer in 0..4294967295"},
		{"search", "time_limit", "soon", "allocate.ini:2: [search] time_limit: 'soon' is not a non-negative number of seconds"},
		{"search", "time_limit", "-1", "allocate.ini:2: [search] time_limit: '-1' is not a non-negative number of seconds"},
		{"search", "algorithm", "magic", "allocate.ini:2: [search] algorithm: 'magic' is not an algorithm (see --list-algorithms)"},
		{"search", "budget", "10", "allocate.ini:2: [search] budget: unknown key"},
		{"machine", "cpus", "0", "allocate.ini:2: [machine] cpus: '0' is not an integer in 1..65536"},
		{"machine", "cpus", "four", "allocate.ini:2: [machine] cpus: 'four' is not an integer in 1..65536"},
		{"machine", "latency", "1.5", "allocate.ini:2: [machine] latency: '1.5' is not an integer in 0..4611686018427387903"},
		{"machine", "policy", "lifo", "allocate.ini:2: [machine] policy: 'lifo' is not a policy (ps, fifo, rr:Q with Q >= 1)"},
		{"machine", "switch_cost", "x", "allocate.ini:2: [machine] switch_cost: 'x' is not an integer in 0..4611686018427387903"},
		{"machine", "cores", "4", "allocate.ini:2: [machine] cores: unknown key"},
		{"machine", "model", "fast", "allocate.ini:2: [machine] model: 'fast' is not a model (direct, client-server, strict, auto)"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char err[512] = "";
		struct alloc_params p;
		assert_int_equal(config_err(bad[i].sec, bad[i].key, bad[i].val, err,
		                            sizeof err, &p), -1);
		assert_string_equal(err, bad[i].msg);
	}
	/* Good values, and other sections are ignored. */
	static const char good[] =
		"[machine]\ncpus = 8\nlatency = 25\npolicy = rr:50\ncreate_cost = 3\n"
		"switch_cost = 4\nmodel = strict\n"
		"[search]\nalgorithm = dsg\nstop_after = 50\nmax_tests = 1234\n"
		"time_limit = 2.5\nseed = 99\nrestarts = 7\n"
		"[bound]\nwhatever = 1\n";
	struct cli_ini ini;
	struct alloc_params p;
	alloc_params_init(&p);
	char err[512] = "";
	assert_int_equal(cli_ini_parse("a.ini", good, strlen(good), &ini, err, sizeof err), 0);
	assert_int_equal(alloc_config_apply(&ini, &p, err, sizeof err), 0);
	cli_ini_release(&ini);
	assert_int_equal(p.sim.cpus, 8);
	assert_int_equal(p.sim.latency, 25);
	assert_int_equal(p.sim.policy, SIM_RR);
	assert_int_equal(p.sim.quantum, 50);
	assert_int_equal(p.sim.create_cost, 3);
	assert_int_equal(p.sim.switch_cost, 4);
	assert_int_equal(p.sim.model, SIM_STRICT);
	assert_string_equal(p.algorithm, "dsg");
	assert_int_equal(p.stop_after, 50);
	assert_int_equal(p.max_tests, 1234);
	assert_true(p.time_limit == 2.5);
	assert_int_equal(p.seed, 99);
	assert_int_equal(p.restarts, 7);
}

static void test_table(void **state)
{
	(void)state;
	const char *need[] = {"binpack", "sga", "csga", "greedy", "dsg", "auto"};
	for (size_t i = 0; i < sizeof need / sizeof *need; i++)
		assert_true(alloc_algorithm_find(need[i]) >= 0);
	for (size_t i = 0; i < alloc_algorithm_count(); i++) {
		assert_non_null(alloc_algorithm_name(i));
		assert_non_null(alloc_algorithm_summary(i));
		assert_int_equal(alloc_algorithm_find(alloc_algorithm_name(i)),
		                 (int)i);
	}
	assert_null(alloc_algorithm_name(alloc_algorithm_count()));
	assert_int_equal(alloc_algorithm_find("nope"), -1);
}

/* ------------------------------------------------------------------
 * Binpacking's input (docs/alloc.md, "Binpacking's input"): a program
 * whose three inputs give three different binpacking allocations on 2
 * processors (fifo, latency 0, no costs, Direct).  Dense threads: 0 main,
 * 1 w2, 2 w3, 3 w4, 4 w5.  main works 5, creates w2, w3, w4, works 5,
 * creates w5 and joins them all; w2 works 10, posts semaphore 1, works
 * 20 and exits; w3 works 40, w4 10; w5 waits for semaphore 1, then works
 * 50.  Every time below by hand; binpacking: longest first (ties: lower
 * dense index) onto the least loaded processor (ties: processor 0).
 *
 * work (CPU work): main 10, w2 30, w3 40, w4 10, w5 50.  Order w5 w3 w2
 *   main w4: w5 -> 0 (50), w3 -> 1 (40), w2 -> 1 (70), main -> 0 (60),
 *   w4 -> 0 (70).  {main, w4, w5} / {w2, w3}.
 *
 * lifetime (one processor, fifo: each thread runs until it blocks):
 *   0-5 main; at 5 it creates w2, w3, w4 (queue w2 w3 w4); 5-10 main,
 *   creates w5 at 10 (queue w2 w3 w4 w5), blocks in join w2.  10-20 w2,
 *   posts at 20, 20-40 w2, exits at 40: main ready (queue w3 w4 w5
 *   main).  40-80 w3, 80-90 w4, 90-140 w5 (the token is there), then
 *   main finds every thread exited and exits at 140.  Creation to exit:
 *   main 0-140 = 140, w2 5-40 = 35, w3 5-80 = 75, w4 5-90 = 85, w5
 *   10-140 = 130.  Order main w5 w4 w3 w2: main -> 0 (140), w5 -> 1
 *   (130), w4 -> 1 (215), w3 -> 0 (215), w2 -> 0 (the tie: 250).
 *   {main, w2, w3} / {w4, w5}.
 *
 * elapsed (2 processors unbound, fifo: a ready thread takes the lowest
 *   idle processor, else waits in one queue): main on P0 from 0; at 5
 *   w2 takes P1, w3 and w4 queue; w5 queues at 10 and main blocks in
 *   join w2, so w3 takes P0 at 10.  w2 posts at 15, exits at 35 (main
 *   ready: queue w4 w5 main); w4 takes P1 at 35, exits at 45; w5 takes
 *   P1 at 45 (the token is there) and exits at 95; w3 exits at 50 and
 *   main takes P0, finds w2, w3, w4 exited, blocks for w5 until 95 and
 *   exits.  Start to end: main 95, w2 5-35 = 30, w3 5-50 = 45, w4 5-45
 *   = 40, w5 10-95 = 85.  Order main w5 w3 w4 w2: main -> 0 (95), w5 ->
 *   1 (85), w3 -> 1 (130), w4 -> 0 (135), w2 -> 1 (160).
 *   {main, w4} / {w2, w3, w5}.
 * The program is tu_binpack_inputs (testutil.c).
 */

static void test_binpack_input(void **state)
{
	(void)state;
	static const struct {
		enum alloc_input in;
		const char *name;
		uint64_t time[5];       /* trace units, by hand (above) */
		int32_t binding[5];
		uint32_t sga_order[5];  /* SGA places longest first     */
	} want[] = {
		{.in = ALLOC_INPUT_WORK, .name = "work",
		 .time = {10, 30, 40, 10, 50}, .binding = {0, 1, 1, 0, 0},
		 .sga_order = {4, 2, 1, 0, 3}},
		{.in = ALLOC_INPUT_LIFETIME, .name = "lifetime",
		 .time = {140, 35, 75, 85, 130}, .binding = {0, 0, 0, 1, 1},
		 .sga_order = {0, 4, 3, 2, 1}},
		{.in = ALLOC_INPUT_ELAPSED, .name = "elapsed",
		 .time = {95, 30, 45, 40, 85}, .binding = {0, 1, 1, 0, 1},
		 .sga_order = {0, 4, 2, 3, 1}},
	};
	struct trace *tr = tu_trace(tu_binpack_inputs);
	struct sim_program *sp = sim_program_new(tr);
	assert_non_null(sp);
	struct sim_params m;
	sim_params_init(&m);
	m.cpus = 2;
	m.policy = SIM_FIFO;
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		enum alloc_input in;
		assert_int_equal(alloc_parse_input(want[i].name, &in), 0);
		assert_int_equal(in, want[i].in);
		assert_string_equal(alloc_input_name(in), want[i].name);
		uint64_t t[5];
		int32_t b[5];
		assert_int_equal(alloc_thread_times(sp, NULL, &m, in, t), ALLOC_OK);
		assert_memory_equal(t, want[i].time, sizeof t);
		alloc_binpack_times(t, 5, 2, b);
		assert_memory_equal(b, want[i].binding, sizeof b);

		/* binpack, and the floor under greedy and csga: binpacking's
		 * allocation under the input, tested first. */
		const char *algs[] = {"binpack", "greedy", "csga"};
		for (size_t a = 0; a < 3; a++) {
			struct alloc_params p;
			params(&p, algs[a], 2);
			p.sim.policy = SIM_FIFO;
			p.sim.model = SIM_DIRECT;
			p.binpack_input = in;
			p.max_tests = 30;
			struct obs o = {0};
			p.observe = observe;
			p.observe_arg = &o;
			struct alloc_result r;
			run(sp, &p, &r);
			assert_int_equal(r.binpack_input, in);
			assert_true(o.n >= 1);
			assert_memory_equal(o.b, want[i].binding, sizeof b);
			if (a == 0)
				assert_memory_equal(r.binding, want[i].binding, sizeof b);
			if (a == 2) {
				/* SGA's steps (after the floor) place one more
				 * thread each, in the input's order: the first
				 * without a test, so step s has threads
				 * order[0..s] placed. */
				for (size_t k = 1; k < o.n; k++) {
					uint32_t placed = 0;
					for (uint32_t th = 0; th < 5; th++)
						placed += o.b[k * 5 + th] != S;
					if (placed == 5)
						continue; /* the last step, or binpack again */
					for (uint32_t q = 0; q < placed; q++)
						assert_int_not_equal(o.b[k * 5 + want[i].sga_order[q]], S);
				}
			}
			obs_free(&o);
			alloc_result_release(&r);
		}
	}
	/* The three allocations are three different partitions. */
	int32_t c[3][5];
	for (size_t i = 0; i < 3; i++)
		alloc_canonical(want[i].binding, 5, c[i]);
	assert_memory_not_equal(c[0], c[1], sizeof c[0]);
	assert_memory_not_equal(c[0], c[2], sizeof c[0]);
	assert_memory_not_equal(c[1], c[2], sizeof c[0]);
	enum alloc_input in = ALLOC_INPUT_ELAPSED;
	assert_int_equal(alloc_parse_input("Work", &in), -1);
	assert_int_equal(in, ALLOC_INPUT_ELAPSED);
	uint64_t t[5];
	assert_int_equal(alloc_thread_times(sp, NULL, &m, (enum alloc_input)7, t),
	                 ALLOC_EINVAL);
	sim_program_free(sp);
	trace_free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_canonical_partitions),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_sha256_accelerated),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_worst_binpack),
		cmocka_unit_test(test_worst_sga),
		cmocka_unit_test(test_sga_figure3),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_deadlock),
		cmocka_unit_test(test_csga_never_worse),
		cmocka_unit_test(test_greedy_no_repeat),
		cmocka_unit_test(test_bruteforce),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_budget_and_stops),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_rgreedy),
		cmocka_unit_test(test_baselines),
		cmocka_unit_test(test_unbound),
		cmocka_unit_test(test_unbound_cpus_used),
		cmocka_unit_test(test_history_cap),
		cmocka_unit_test(test_binpack_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
