/*
 * test_bound.c - the bound module: Paper VII's worked values, the three
 * methods for f against each other and against brute force, the search
 * against an independent exhaustive minimum, program parameters from
 * hand-written traces, and the lower bound against exhaustive simulation.
 *
 * Expectations come from the paper (Sections 4.4.4-4.4.7, 7.2), hand
 * calculation (in the comments) or brute force written here, never from
 * the code under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bound/bound.h"
#include "bound/boundint.h"
#include "gen/gen.h"
#include "sim/sim.h"
#include "tests/testutil.h"

/* ---------------------------------------------------------------------
 * Helpers
 */

static void assert_mpz_eq_ui(const mpz_t z, unsigned long v)
{
	if (mpz_cmp_ui(z, v) != 0) {
		gmp_fprintf(stderr, "got %Zd, want %lu\n", z, v);
		fail();
	}
}

/* a/b as an mpq (caller clears) */
static void qset(mpq_t q, long a, unsigned long b)
{
	mpq_set_si(q, a, b);
	mpq_canonicalize(q);
}

/* Independent brute force of pi(k,w,q,l): all 2^(k w) placements. */
static unsigned long pi_brute(uint32_t k, uint32_t w, uint32_t q, uint32_t l)
{
	uint32_t bits = k * w;
	unsigned long cnt = 0;
	for (uint64_t m = 0; m < ((uint64_t)1 << bits); m++) {
		if ((uint32_t)__builtin_popcountll(m) != q)
			continue;
		uint32_t mx = 0;
		for (uint32_t s = 0; s < k; s++) {
			uint32_t c = (uint32_t)__builtin_popcountll(
				(m >> (s * w)) & (((uint64_t)1 << w) - 1));
			if (c > mx)
				mx = c;
		}
		cnt += mx == l;
	}
	return cnt;
}

/* Independent brute force of f(A,q,l) over all rows. */
static uint64_t f_brute_here(const uint32_t *A, uint32_t a, uint32_t q, uint32_t l)
{
	uint32_t proc[32], n = 0;
	for (uint32_t i = 0; i < a; i++)
		for (uint32_t j = 0; j < A[i]; j++)
			proc[n++] = i;
	uint64_t sum = 0;
	for (uint64_t m = 0; m < ((uint64_t)1 << n); m++) {
		if ((uint32_t)__builtin_popcountll(m) != q)
			continue;
		uint32_t cnt[32] = {0}, mx = l;
		for (uint32_t t = 0; t < n; t++)
			if (m >> t & 1 && ++cnt[proc[t]] > mx)
				mx = cnt[proc[t]];
		sum += mx;
	}
	return sum;
}

/* Calls fn(A, a, arg) for every partition A of n (non-increasing) into at
 * most kmax parts (kmax = 0: any), by an independent recursion. */
typedef void (*part_fn)(const uint32_t *A, uint32_t a, void *arg);
static void parts_rec(uint32_t *A, uint32_t a, uint32_t rem, uint32_t cap,
                      uint32_t kmax, part_fn fn, void *arg)
{
	if (rem == 0) {
		fn(A, a, arg);
		return;
	}
	if (kmax && a == kmax)
		return;
	for (uint32_t x = rem < cap ? rem : cap; x >= 1; x--) {
		A[a] = x;
		parts_rec(A, a + 1, rem - x, x, kmax, fn, arg);
	}
}
static void for_partitions(uint32_t n, uint32_t kmax, part_fn fn, void *arg)
{
	uint32_t A[64];
	parts_rec(A, 0, n, n, kmax, fn, arg);
}

/* A random profile for n threads (sometimes with idle time v0 and zero
 * entries), a random z. */
static void random_prog(struct bound_prog *bp, uint32_t n, uint64_t *seed)
{
	assert_int_equal(bound_prog_init(bp, n), BOUND_OK);
	unsigned long w[70], tot = 0;
	int idle = tu_rand(seed) % 4 == 0;
	for (uint32_t i = 0; i <= n; i++) {
		w[i] = (i == 0 && !idle) ? 0 : tu_rand(seed) % 3 == 0 ? 0 : 1 + tu_rand(seed) % 9;
		tot += w[i];
	}
	if (tot == 0) {
		w[n] = 1;
		tot = 1;
	}
	for (uint32_t i = 0; i <= n; i++)
		qset(bp->v[i], (long)w[i], tot);
	qset(bp->z, (long)(tu_rand(seed) % 5), 1 + tu_rand(seed) % 7);
}

/* ---------------------------------------------------------------------
 * pi and f: the paper's values
 */

static void test_pi_paper(void **state)
{
	(void)state;
	/* Section 4.4.5-4.4.7 */
	static const struct { uint32_t k, w, q, l; unsigned long v; } t[] = {
		{2, 2, 2, 1, 4}, {2, 2, 2, 2, 2}, {2, 2, 3, 2, 4}, {1, 1, 1, 1, 1},
		/* the zero cases of Section 4.4.3: q < l, q > k l */
		{2, 2, 1, 2, 0}, {2, 2, 5, 2, 0}, {3, 2, 7, 2, 0},
		/* k = 1: C(w, l) */
		{1, 5, 2, 2, 10},
		/* by hand: 3 sets of 1 slot, 2 ones: max is 1, C(3,2) = 3 */
		{3, 1, 2, 1, 3},
	};
	mpz_t z;
	mpz_init(z);
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		assert_int_equal(bound_pi(z, t[i].k, t[i].w, t[i].q, t[i].l), BOUND_OK);
		assert_mpz_eq_ui(z, t[i].v);
	}
	mpz_clear(z);
}

static void test_pi_brute(void **state)
{
	(void)state;
	mpz_t z;
	mpz_init(z);
	for (uint32_t k = 1; k <= 5; k++)
		for (uint32_t w = 1; w * k <= 14; w++)
			for (uint32_t q = 0; q <= k * w; q++)
				for (uint32_t l = 0; l <= w + 1; l++) {
					assert_int_equal(bound_pi(z, k, w, q, l), BOUND_OK);
					if (mpz_cmp_ui(z, pi_brute(k, w, q, l)) != 0)
						fail_msg("pi(%u,%u,%u,%u)", k, w, q, l);
				}
	mpz_clear(z);
}

static void test_f_paper(void **state)
{
	(void)state;
	/* Table 4: f((2,2,1),3,0) = 16; Sections 4.4.6-7: f((1),1,1) = 1,
	 * f((1),1,2) = 2 */
	static const uint32_t A221[] = {2, 2, 1}, A1[] = {1};
	/* the same allocation given in another order, with an empty
	 * processor */
	static const uint32_t A122[] = {1, 0, 2, 2};
	mpz_t z;
	mpz_init(z);
	for (int m = BOUND_POLY; m <= BOUND_BRUTE; m++) {
		assert_int_equal(bound_f(z, A221, 3, 3, 0, m), BOUND_OK);
		assert_mpz_eq_ui(z, 16);
		assert_int_equal(bound_f(z, A122, 4, 3, 0, m), BOUND_OK);
		assert_mpz_eq_ui(z, 16);
		assert_int_equal(bound_f(z, A1, 1, 1, 1, m), BOUND_OK);
		assert_mpz_eq_ui(z, 1);
		assert_int_equal(bound_f(z, A1, 1, 1, 2, m), BOUND_OK);
		assert_mpz_eq_ui(z, 2);
	}
	/* Table 4 row by row: 10 rows, times 2,2,2,2,1,1,2,1,1,2 */
	assert_int_equal(f_brute_here(A221, 3, 3, 0), 16);
	/* bad arguments */
	assert_int_equal(bound_f(z, A221, 3, 6, 0, BOUND_POLY), BOUND_EINVAL);
	assert_int_equal(bound_f(z, A221, 0, 0, 0, BOUND_POLY), BOUND_EINVAL);
	mpz_clear(z);
}

/* every A with n <= 9, every q, several l: four methods agree */
struct fcheck {
	struct bd_count wide[10], narrow[10];
	mpz_t a, b;
	unsigned long cases;
};

static void check_f_all(const uint32_t *A, uint32_t a, void *arg)
{
	struct fcheck *fc = arg;
	uint32_t n = 0;
	for (uint32_t i = 0; i < a; i++)
		n += A[i];
	uint32_t ls[] = {0, 1, 2, n, n + 2};
	for (size_t li = 0; li < 5; li++) {
		uint32_t l = ls[li];
		uint64_t want[10];
		for (uint32_t q = 0; q <= n; q++)
			want[q] = f_brute_here(A, a, q, l);
		for (int m = BOUND_POLY; m <= BOUND_BRUTE; m++)
			for (int wd = 0; wd < 2; wd++) {
				struct bd_count *c = wd ? &fc->wide[n] : &fc->narrow[n];
				assert_int_equal(bd_f_all(c, A, a, l, m), BOUND_OK);
				for (uint32_t q = 0; q <= n; q++) {
					bd_F_get(c, q, fc->a);
					if (mpz_cmp_ui(fc->a, want[q]) != 0)
						fail_msg("f n=%u a=%u q=%u l=%u method %d wide %d",
						         n, a, q, l, m, wd);
					fc->cases++;
				}
			}
	}
}

static void test_f_small_all(void **state)
{
	(void)state;
	struct fcheck fc;
	memset(&fc, 0, sizeof fc);
	mpz_inits(fc.a, fc.b, NULL);
	for (uint32_t n = 1; n <= 9; n++) {
		assert_int_equal(bd_count_init2(&fc.wide[n], n, 1), BOUND_OK);
		assert_int_equal(bd_count_init2(&fc.narrow[n], n, 0), BOUND_OK);
		assert_int_equal(fc.wide[n].wide, 1);
		assert_int_equal(fc.narrow[n].wide, 0);
		for_partitions(n, 0, check_f_all, &fc);
	}
	for (uint32_t n = 1; n <= 9; n++) {
		bd_count_release(&fc.wide[n]);
		bd_count_release(&fc.narrow[n]);
	}
	assert_true(fc.cases > 10000);
	mpz_clears(fc.a, fc.b, NULL);
}

/* Larger n: the polynomial method (128-bit and GMP) against the paper's
 * recursion, and against brute force up to n = 16. */
static void test_f_larger(void **state)
{
	(void)state;
	static const uint32_t allocs[][17] = {
		/* n = 16 */ {5, 4, 4, 3}, {16}, {2, 2, 2, 2, 2, 2, 2, 2},
		{7, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		/* n = 79, the paper's example size */
		{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 4},
		{31, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
		{20, 20, 20, 19},
		/* n = 121, the largest 128-bit case: (41, 40, 40) */
		{41, 40, 40},
		/* n = 130: GMP only (the 128-bit run is skipped) */
		{33, 33, 32, 32},
	};
	struct bd_count w, z, p;
	mpz_t a, b, c;
	mpz_inits(a, b, c, NULL);
	for (size_t i = 0; i < sizeof allocs / sizeof allocs[0]; i++) {
		uint32_t k = 0, n = 0;
		while (k < 17 && allocs[i][k])
			n += allocs[i][k++];
		assert_int_equal(bd_count_init2(&w, n, 1), BOUND_OK);
		assert_int_equal(bd_count_init2(&z, n, 0), BOUND_OK);
		assert_int_equal(bd_count_init2(&p, n, 0), BOUND_OK);
		assert_int_equal(w.wide, n <= BD_WIDE_MAX);
		assert_int_equal(bd_f_all(&w, allocs[i], k, 0, BOUND_POLY), BOUND_OK);
		assert_int_equal(bd_f_all(&z, allocs[i], k, 0, BOUND_POLY), BOUND_OK);
		assert_int_equal(bd_f_all(&p, allocs[i], k, 0, BOUND_PAPER), BOUND_OK);
		for (uint32_t q = 0; q <= n; q++) {
			bd_F_get(&w, q, a);
			bd_F_get(&z, q, b);
			bd_F_get(&p, q, c);
			assert_int_equal(mpz_cmp(a, b), 0);
			assert_int_equal(mpz_cmp(a, c), 0);
			if (n <= 16)
				assert_int_equal(mpz_cmp_ui(a, f_brute_here(allocs[i], k, q, 0)), 0);
			/* bounds: C(n,q) <= f <= a_1 C(n,q) for q >= 1 */
			mpz_bin_uiui(b, n, q);
			if (q >= 1) {
				assert_true(mpz_cmp(a, b) >= 0);
				mpz_mul_ui(b, b, allocs[i][0]);
				assert_true(mpz_cmp(a, b) <= 0);
			}
		}
		bd_count_release(&w);
		bd_count_release(&z);
		bd_count_release(&p);
	}
	/* Many processors of few distinct loads: the GMP path multiplies
	 * them by the power and product recurrences (Miller; D F' = N F),
	 * the 128-bit path factor by factor.  Every F[q], full and
	 * truncated at several qmax, must agree. */
	{
		static const uint32_t many[][41] = {
			/* 30 x 4 = 120: one group */
			{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
			 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
			/* 20 x 3 + 20 x 2 = 100: two groups */
			{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
			 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
			/* 12 x 4 + 12 x 3 + 12 x 2 = 108, and a 1 and an 11 */
			{11, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3,
			 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1},
		};
		for (size_t i = 0; i < sizeof many / sizeof many[0]; i++) {
			uint32_t k = 0, n = 0;
			while (k < 41 && many[i][k])
				n += many[i][k++];
			assert_true(n <= BD_WIDE_MAX);
			assert_int_equal(bd_count_init2(&w, n, 1), BOUND_OK);
			assert_int_equal(bd_f_all(&w, many[i], k, 0, BOUND_POLY), BOUND_OK);
			const uint32_t qs[] = {n, n / 2, 7, 1};
			for (size_t t = 0; t < 4; t++) {
				assert_int_equal(bd_count_init2(&z, n, 0), BOUND_OK);
				assert_int_equal(bd_f_upto(&z, many[i], k, 0,
				                           BOUND_POLY, qs[t]), BOUND_OK);
				for (uint32_t q = 0; q <= qs[t]; q++) {
					bd_F_get(&w, q, a);
					bd_F_get(&z, q, b);
					if (mpz_cmp(a, b) != 0)
						fail_msg("many[%zu] qmax %u: F[%u] differs",
						         i, qs[t], q);
				}
				bd_count_release(&z);
			}
			bd_count_release(&w);
		}
	}
	/* truncated counting (the search's fast path): F[0..qmax] equal the
	 * full computation, for every qmax */
	{
		static const uint32_t A[] = {9, 7, 7, 3, 3, 3, 1};
		struct bd_count full, tr;
		assert_int_equal(bd_count_init2(&full, 33, 1), BOUND_OK);
		assert_int_equal(bd_count_init2(&tr, 33, 1), BOUND_OK);
		assert_int_equal(bd_f_all(&full, A, 7, 0, BOUND_POLY), BOUND_OK);
		for (uint32_t qmax = 0; qmax <= 33; qmax++)
			for (int wd = 0; wd < 2; wd++) {
				struct bd_count *c = &tr;
				struct bd_count nw;
				if (!wd) {
					assert_int_equal(bd_count_init2(&nw, 33, 0), BOUND_OK);
					c = &nw;
				}
				assert_int_equal(bd_f_upto(c, A, 7, 0, BOUND_POLY, qmax), BOUND_OK);
				for (uint32_t q = 0; q <= qmax; q++) {
					bd_F_get(&full, q, a);
					bd_F_get(c, q, b);
					assert_int_equal(mpz_cmp(a, b), 0);
				}
				if (!wd)
					bd_count_release(&nw);
			}
		bd_count_release(&full);
		bd_count_release(&tr);
	}
	/* one processor: every row's time is q, f = q C(n,q) */
	uint32_t one[] = {79};
	assert_int_equal(bound_f(a, one, 1, 40, 0, BOUND_POLY), BOUND_OK);
	mpz_bin_uiui(b, 79, 40);
	mpz_mul_ui(b, b, 40);
	assert_int_equal(mpz_cmp(a, b), 0);
	mpz_clears(a, b, c, NULL);
}

/* ---------------------------------------------------------------------
 * s, r: Figure 1 (n = 3, V = (1/3, 1/3, 1/3)), by hand
 */

static void test_s_r_figure1(void **state)
{
	(void)state;
	struct bound_prog bp;
	assert_int_equal(bound_prog_init(&bp, 3), BOUND_OK);
	for (int i = 1; i <= 3; i++)
		qset(bp.v[i], 1, 3);
	qset(bp.z, 5, 6); /* Section 2: z = 5/6 */
	assert_int_equal(bound_prog_check(&bp), BOUND_OK);
	mpq_t s, want, t;
	mpq_inits(s, want, t, NULL);
	/* (1,1,1): every row takes 1: s = 1 */
	uint32_t A111[] = {1, 1, 1}, A3[] = {3}, A21[] = {2, 1};
	for (int m = BOUND_POLY; m <= BOUND_BRUTE; m++) {
		assert_int_equal(bound_s(s, &bp, A111, 3, m), BOUND_OK);
		assert_int_equal(mpq_cmp_ui(s, 1, 1), 0);
		/* (3): a row with q ones takes q: s = (1+2+3)/3 = 2 */
		assert_int_equal(bound_s(s, &bp, A3, 1, m), BOUND_OK);
		assert_int_equal(mpq_cmp_ui(s, 2, 1), 0);
		/* (2,1): q=1: 3 rows of 1 -> 1; q=2: {12}=2, {13}=1, {23}=1
		 * -> 4/3; q=3: 2 -> s = (1 + 4/3 + 2)/3 = 13/9 */
		assert_int_equal(bound_s(s, &bp, A21, 2, m), BOUND_OK);
		assert_int_equal(mpq_cmp_ui(s, 13, 9), 0);
	}
	/* r((2,1), t) = (6 - 2)/6 * t * (1/3 + 2/3 + 3/3) = 4t/3 */
	qset(t, 3, 1);
	assert_int_equal(bound_r(s, &bp, A21, 2, t), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(s, 4, 1), 0);
	/* r((3), t) = 0; r((1,1,1), t) = 1 * t * 2 = 6 */
	assert_int_equal(bound_r(s, &bp, A3, 1, t), BOUND_OK);
	assert_int_equal(mpq_sgn(s), 0);
	assert_int_equal(bound_r(s, &bp, A111, 3, t), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(s, 6, 1), 0);
	/* value((2,1)) = 13/9 + 5/6 * 4 = 13/9 + 10/3 = 43/9 */
	assert_int_equal(bound_value(s, &bp, A21, 2, t, BOUND_POLY), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(s, 43, 9), 0);
	/* p(3, 2, 3, 5/6, V): (2,1) 43/9; (3): 2 + 0 = 2; so p = 2 with (3) */
	struct bound_pres r;
	assert_int_equal(bound_p(&bp, 2, t, NULL, &r), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(r.p, 2, 1), 0);
	assert_int_equal(r.alloc[0], 3);
	assert_int_equal(r.alloc[1], 0);
	assert_mpz_eq_ui(r.total, 2);
	bound_pres_release(&r);
	/* t = 0, k = 2: min((2,1): 13/9, (3): 2) = 13/9 */
	mpq_set_ui(t, 0, 1);
	assert_int_equal(bound_p(&bp, 2, t, NULL, &r), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(r.p, 13, 9), 0);
	assert_int_equal(r.alloc[0], 2);
	assert_int_equal(r.alloc[1], 1);
	bound_pres_release(&r);
	/* n = 1: r = 0 */
	struct bound_prog b1;
	assert_int_equal(bound_prog_init(&b1, 1), BOUND_OK);
	mpq_set_ui(b1.v[1], 1, 1);
	uint32_t A1[] = {1};
	qset(t, 8, 1);
	assert_int_equal(bound_r(s, &b1, A1, 1, t), BOUND_OK);
	assert_int_equal(mpq_sgn(s), 0);
	bound_prog_release(&b1);
	/* a profile that does not sum to 1 is rejected */
	qset(bp.v[1], 1, 2);
	assert_int_equal(bound_prog_check(&bp), BOUND_EINVAL);
	assert_int_equal(bound_p(&bp, 2, t, NULL, &r), BOUND_EINVAL);
	assert_null(r.alloc);
	mpq_clears(s, want, t, NULL);
	bound_prog_release(&bp);
	bound_prog_release(&bp); /* twice: zeroed */
}

static void test_allocations(void **state)
{
	(void)state;
	mpz_t z;
	mpz_init(z);
	bound_allocations(z, 79, 16); /* Section 7.2 */
	assert_mpz_eq_ui(z, 6158681);
	bound_allocations(z, 5, 2); /* (5) (4,1) (3,2) */
	assert_mpz_eq_ui(z, 3);
	bound_allocations(z, 9, 9); /* p(9) = 30 */
	assert_mpz_eq_ui(z, 30);
	bound_allocations(z, 9, 20);
	assert_mpz_eq_ui(z, 30);
	bound_allocations(z, 7, 1);
	assert_mpz_eq_ui(z, 1);
	mpz_clear(z);
}

/* ---------------------------------------------------------------------
 * p: the search against an independent exhaustive minimum
 */

struct pmin {
	const struct bound_prog *bp;
	const mpq_t *t;
	mpq_t best, v;
	int have;
	unsigned long count;
};

static void pmin_visit(const uint32_t *A, uint32_t a, void *arg)
{
	struct pmin *pm = arg;
	/* brute-force s through the public mpq path */
	enum bound_method m = pm->bp->n <= 12 ? BOUND_BRUTE : BOUND_PAPER;
	assert_int_equal(bound_value(pm->v, pm->bp, A, a, *pm->t, m), BOUND_OK);
	if (!pm->have || mpq_cmp(pm->v, pm->best) < 0)
		mpq_set(pm->best, pm->v);
	pm->have = 1;
	pm->count++;
}

static void test_p_vs_exhaustive(void **state)
{
	(void)state;
	uint64_t seed = 42;
	mpq_t t, v;
	mpq_inits(t, v, NULL);
	unsigned long cases = 0;
	for (int it = 0; it < 160; it++) {
		uint32_t n = 1 + (uint32_t)(tu_rand(&seed) % 12);
		uint32_t k = 1 + (uint32_t)(tu_rand(&seed) % 7);
		struct bound_prog bp;
		random_prog(&bp, n, &seed);
		static const long ts[][2] = {{0, 1}, {1, 2}, {3, 1}, {17, 1}, {200, 3}};
		const long *tt = ts[tu_rand(&seed) % 5];
		qset(t, tt[0], (unsigned long)tt[1]);
		struct pmin pm = {.bp = &bp, .t = (const mpq_t *)&t};
		mpq_inits(pm.best, pm.v, NULL);
		for_partitions(n, k, pmin_visit, &pm);
		struct bound_opts o;
		bound_opts_init(&o);
		for (int mode = 0; mode < 4; mode++) {
			o.lazy = mode == 0;
			o.exhaustive = mode == 2;
			o.method = mode == 3 ? BOUND_PAPER : BOUND_POLY;
			struct bound_pres r;
			assert_int_equal(bound_p(&bp, k, t, &o, &r), BOUND_OK);
			if (mpq_cmp(r.p, pm.best) != 0) {
				gmp_fprintf(stderr, "n=%u k=%u t=%Qd mode %d: p=%Qd want %Qd\n",
				            n, k, t, mode, r.p, pm.best);
				fail();
			}
			/* the reported allocation attains p */
			assert_int_equal(bound_value(v, &bp, r.alloc, k, t, BOUND_POLY), BOUND_OK);
			assert_int_equal(mpq_cmp(v, r.p), 0);
			for (uint32_t i = 1; i < k; i++)
				assert_true(r.alloc[i] <= r.alloc[i - 1]);
			assert_int_equal(mpz_cmp_ui(r.total, pm.count), 0);
			if (mode == 2)
				assert_int_equal(r.complete, pm.count);
			assert_true(r.classes >= 1);
			bound_pres_release(&r);
			cases++;
		}
		mpq_clears(pm.best, pm.v, NULL);
		bound_prog_release(&bp);
	}
	assert_int_equal(cases, 640);
	mpq_clears(t, v, NULL);
}

/* p = 1 when k >= n and t = 0; p does not increase with k when t = 0 */
static void test_p_properties(void **state)
{
	(void)state;
	uint64_t seed = 7;
	mpq_t t, prev;
	mpq_inits(t, prev, NULL);
	for (int it = 0; it < 40; it++) {
		uint32_t n = 1 + (uint32_t)(tu_rand(&seed) % 40);
		struct bound_prog bp;
		random_prog(&bp, n, &seed);
		for (uint32_t k = 1; k <= n + 2; k++) {
			struct bound_pres r;
			assert_int_equal(bound_p(&bp, k, t, NULL, &r), BOUND_OK);
			if (k >= n)
				assert_int_equal(mpq_cmp_ui(r.p, 1, 1), 0);
			if (k > 1)
				assert_true(mpq_cmp(r.p, prev) <= 0);
			/* p >= 1 always; k = 1: p = sum q v_q + v0 */
			assert_true(mpq_cmp_ui(r.p, 1, 1) >= 0);
			mpq_set(prev, r.p);
			bound_pres_release(&r);
		}
		bound_prog_release(&bp);
	}
	mpq_clears(t, prev, NULL);
}

/*
 * Issue 20 item 5: C(n,q) is made on demand up to the largest q_max asked
 * for (no whole row of n + 1 big binomials).  One GMP workspace reused
 * over a sequence of q_max that rises, falls and jumps must give, for
 * every allocation, the same F[0..q_max] as brute force over all 2^20
 * rows (an independent method) on a fresh wide workspace.
 */
static void test_f_qmax_reuse(void **state)
{
	(void)state;
	enum { N = 20 };
	static const uint32_t allocs[][5] = {
		{20, 0, 0, 0, 0}, {10, 10, 0, 0, 0}, {7, 7, 6, 0, 0},
		{9, 5, 3, 2, 1}, {4, 4, 4, 4, 4}, {13, 1, 1, 1, 4},
	};
	static const uint32_t qmaxes[] = {2, 0, 5, 20, 3, 20, 11, 1, 19};
	struct bd_count z;
	assert_int_equal(bd_count_init2(&z, N, 0), BOUND_OK);
	assert_int_equal(z.wide, 0);
	mpz_t a, b;
	mpz_inits(a, b, NULL);
	for (size_t i = 0; i < sizeof allocs / sizeof *allocs; i++) {
		struct bd_count br;
		assert_int_equal(bd_count_init2(&br, N, 1), BOUND_OK);
		assert_int_equal(bd_f_all(&br, allocs[i], 5, 0, BOUND_BRUTE), BOUND_OK);
		for (size_t j = 0; j < sizeof qmaxes / sizeof *qmaxes; j++) {
			assert_int_equal(bd_f_upto(&z, allocs[i], 5, 0, BOUND_POLY,
			                           qmaxes[j]), BOUND_OK);
			for (uint32_t q = 0; q <= qmaxes[j]; q++) {
				bd_F_get(&br, q, a);
				bd_F_get(&z, q, b);
				if (mpz_cmp(a, b))
					fail_msg("alloc %zu, qmax %u, q %u differ", i,
					         qmaxes[j], q);
			}
		}
		bd_count_release(&br);
	}
	/* the row was made only as far as asked: q_max 20 = n */
	assert_int_equal(z.zCn_len, N + 1);
	bd_count_release(&z);
	/* and no further than asked */
	assert_int_equal(bd_count_init2(&z, N, 0), BOUND_OK);
	static const uint32_t two[] = {10, 10};
	assert_int_equal(bd_f_upto(&z, two, 2, 0, BOUND_POLY, 3), BOUND_OK);
	assert_int_equal(z.zCn_len, 4);
	bd_count_release(&z);
	mpz_clears(a, b, NULL);
}

/*
 * p for more threads than BOUND_MAX_THREADS was before issue 20 item 5
 * (4096), by hand: n = 5000, V = (v_2 = 1), k = 2, t = 0.  Every row has
 * two ones; a pair on one processor takes 2, a split pair 1, so f(A,2,0)
 * = C(n,2) + C(a_1,2) + C(a_2,2) and s = 1 + sum a_i(a_i-1) / (n(n-1)),
 * least at (2500,2500): 1 + 2 x 2500 x 2499 / (5000 x 4999) = 1 +
 * 2499/4999 = 7498/4999.  At k = 1: s = 2 (f = 2 C(n,2)).
 * n = 9000, V = (v_1 = 1/2, v_3 = 1/2), k = 3: the even split (3000 x 3)
 * gives f(A,3,0) = 3 x C(3000,3) x 3 (all three on one processor: takes
 * 3) + 6 x C(3000,2) x 3000 x 2 (two on one, one elsewhere: 2) +
 * 3000^3 x 1 (one each) over C(9000,3); exact value checked with
 * bound_s at that allocation, and p equals it (Theorem 3: the even split
 * is best when t = 0).
 */
static void test_p_many_threads(void **state)
{
	(void)state;
	struct bound_prog bp;
	assert_int_equal(bound_prog_init(&bp, 5000), BOUND_OK);
	mpq_set_ui(bp.v[2], 1, 1);
	mpq_t t, want;
	mpq_inits(t, want, NULL);
	struct bound_pres r;
	assert_int_equal(bound_p(&bp, 2, t, NULL, &r), BOUND_OK);
	mpq_set_ui(want, 7498, 4999);
	assert_int_equal(mpq_cmp(r.p, want), 0);
	assert_int_equal(r.capped, 0);
	assert_int_equal(r.alloc[0], 2500);
	assert_int_equal(r.alloc[1], 2500);
	bound_pres_release(&r);
	assert_int_equal(bound_p(&bp, 1, t, NULL, &r), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(r.p, 2, 1), 0);
	bound_pres_release(&r);
	bound_prog_release(&bp);

	assert_int_equal(bound_prog_init(&bp, 9000), BOUND_OK);
	mpq_set_ui(bp.v[1], 1, 2);
	mpq_set_ui(bp.v[3], 1, 2);
	assert_int_equal(bound_p(&bp, 3, t, NULL, &r), BOUND_OK);
	assert_int_equal(r.capped, 0);
	assert_int_equal(r.alloc[0], 3000);
	assert_int_equal(r.alloc[1], 3000);
	assert_int_equal(r.alloc[2], 3000);
	/* s = 1/2 + 1/2 f / C(9000,3), f by hand as above */
	mpz_t f, c, x;
	mpz_inits(f, c, x, NULL);
	mpz_bin_uiui(c, 3000, 3);
	mpz_mul_ui(f, c, 9);                 /* 3 processors x C(3000,3) x 3 */
	mpz_bin_uiui(c, 3000, 2);
	mpz_mul_ui(x, c, 6ul * 3000 * 2);    /* 6 ordered pairs of processors */
	mpz_add(f, f, x);
	mpz_ui_pow_ui(x, 3000, 3);           /* one on each: takes 1 */
	mpz_add(f, f, x);
	mpz_bin_uiui(c, 9000, 3);
	mpq_set_num(want, f);
	mpq_set_den(want, c);
	mpq_canonicalize(want);
	mpq_t half;
	mpq_init(half);
	mpq_set_ui(half, 1, 2);
	mpq_mul(want, want, half);
	mpq_add(want, want, half);
	assert_int_equal(mpq_cmp(r.p, want), 0);
	mpq_clear(half);
	mpz_clears(f, c, x, NULL);
	bound_pres_release(&r);
	bound_prog_release(&bp);

	/* The memory cap: a uniform profile over 1..25,000 would hold about
	 * 25,000 x 1.443 x 25,001 + 3 x 25,001 x 25,000 = 2.8 10^9 bits >
	 * BOUND_MEMORY_CAP_BITS = 2^31: no search, the one-processor value
	 * sum q / 25000 = 25001/2, capped; over 1..20,001 (1.8 10^9 bits)
	 * the estimate stays under the cap. */
	assert_int_equal(bound_prog_init(&bp, 25000), BOUND_OK);
	for (uint32_t q = 1; q <= 25000; q++)
		mpq_set_ui(bp.v[q], 1, 25000);
	assert_int_equal(bound_p(&bp, 2, t, NULL, &r), BOUND_OK);
	assert_int_equal(r.capped, BOUND_CAP_MEMORY);
	assert_string_equal(bound_cap_name(r.capped), "stopped at memory cap");
	mpq_set_ui(want, 25001, 2);
	assert_int_equal(mpq_cmp(r.p, want), 0);
	assert_int_equal(r.alloc[0], 25000);
	assert_int_equal(r.alloc[1], 0);
	/* partitions of 25000 into at most 2 parts: 12501 */
	assert_int_equal(mpz_cmp_ui(r.total, 12501), 0);
	bound_pres_release(&r);
	bound_prog_release(&bp);
	mpq_clears(t, want, NULL);
}

/* n = 79, k = 16 (Section 7.2's size): lazy and eager branch-and-bound
 * agree, evaluate a tiny fraction of the 6,158,681 allocations, and the
 * answer's value checks with the paper's own f. */
static void test_p_n79(void **state)
{
	(void)state;
	struct bound_prog bp;
	assert_int_equal(bound_prog_init(&bp, 79), BOUND_OK);
	/* a pipeline-like profile: ramps up and down */
	unsigned long tot = 0, w[80];
	for (uint32_t i = 1; i <= 79; i++)
		tot += w[i] = i <= 20 ? 3 : (i <= 40 ? 1 : 0);
	for (uint32_t i = 1; i <= 79; i++)
		qset(bp.v[i], (long)w[i], tot);
	qset(bp.z, 1, 50);
	mpq_t t, v;
	mpq_inits(t, v, NULL);
	for (long lat = 0; lat <= 8; lat += 4) {
		qset(t, lat, 1);
		struct bound_opts o;
		bound_opts_init(&o);
		struct bound_pres lz, eg;
		assert_int_equal(bound_p(&bp, 16, t, &o, &lz), BOUND_OK);
		o.lazy = 0;
		assert_int_equal(bound_p(&bp, 16, t, &o, &eg), BOUND_OK);
		assert_int_equal(mpq_cmp(lz.p, eg.p), 0);
		assert_mpz_eq_ui(lz.total, 6158681);
		assert_true(lz.classes < 2000 && eg.classes < 20000);
		assert_true(lz.thick <= eg.thick);
		assert_int_equal(bound_value(v, &bp, lz.alloc, 16, t, BOUND_PAPER), BOUND_OK);
		assert_int_equal(mpq_cmp(v, lz.p), 0);
		bound_pres_release(&lz);
		bound_pres_release(&eg);
	}
	mpq_clears(t, v, NULL);
	bound_prog_release(&bp);
}

/* ---------------------------------------------------------------------
 * The work cap (issue 14: `bound --threads 4096 --profile <uniform>
 * --cpus 2` ran past 120 s).  Work counts, not seconds.
 */
static void test_cap(void **state)
{
	(void)state;
	/* Uniform profile over 1..4096, k = 2: the even root class alone
	 * needs about 4096 * 2048^2 multiply-adds of 64-word numbers. */
	const uint32_t n = 4096;
	struct bound_prog bp;
	assert_int_equal(bound_prog_init(&bp, n), BOUND_OK);
	for (uint32_t q = 1; q <= n; q++)
		qset(bp.v[q], 1, n);
	qset(bp.z, 0, 1);
	mpq_t t, want;
	mpq_inits(t, want, NULL);
	struct bound_opts o;
	bound_opts_init(&o);
	assert_int_equal(o.max_work, BOUND_WORK_DEFAULT);
	o.max_work = 1000000;
	struct bound_pres r;
	assert_int_equal(bound_p(&bp, 2, t, &o, &r), BOUND_OK);
	assert_int_equal(r.capped, BOUND_CAP_WORK);
	assert_string_equal(bound_cap_name(r.capped), "stopped at work cap");
	/* It stops at the first charge past the cap: one coefficient
	 * (at most 2n multiply-adds of weight 1 + n/64 = 65) later. */
	assert_true(r.work > o.max_work);
	assert_true(r.work <= o.max_work + 2ull * n * 65);
	/* No complete allocation was reached: p is the one-processor value,
	 * v0 + sum q v_q = sum q / n = (n + 1) / 2, on allocation (n, 0). */
	qset(want, n + 1, 2);
	assert_int_equal(mpq_cmp(r.p, want), 0);
	assert_int_equal(r.alloc[0], n);
	assert_int_equal(r.alloc[1], 0);
	assert_int_equal(r.classes, 1);
	uint64_t w1 = r.work;
	bound_pres_release(&r);
	/* Deterministic: the same work again. */
	assert_int_equal(bound_p(&bp, 2, t, &o, &r), BOUND_OK);
	assert_int_equal(r.work, w1);
	bound_pres_release(&r);
	/* The time cap: a deadline long past at the first clock reading
	 * (every 2^20 units of work). */
	o.max_work = 0;
	o.max_seconds = 1e-9;
	assert_int_equal(bound_p(&bp, 2, t, &o, &r), BOUND_OK);
	assert_int_equal(r.capped, BOUND_CAP_TIME);
	assert_true(r.work <= (1u << 20) + 2ull * n * 65);
	assert_int_equal(mpq_cmp(r.p, want), 0);
	bound_pres_release(&r);
	bound_prog_release(&bp);

	/* A program the search finishes: the 79-thread profile of
	 * test_p_n79.  Uncapped: work W, not capped.  Capped at W: the same
	 * (the cap is passed only when the work exceeds it).  Capped below
	 * W: p from a complete allocation evaluated or one processor, never
	 * below the true minimum, never above the one-processor value. */
	assert_int_equal(bound_prog_init(&bp, 79), BOUND_OK);
	unsigned long tot = 0, w[80];
	for (uint32_t i = 1; i <= 79; i++)
		tot += w[i] = i <= 20 ? 3 : (i <= 40 ? 1 : 0);
	for (uint32_t i = 1; i <= 79; i++)
		qset(bp.v[i], (long)w[i], tot);
	qset(bp.z, 1, 50);
	qset(t, 4, 1);
	/* one processor: sum q v_q = (3 * 210 + 610) / 80 = 1240 / 80 */
	qset(want, 3 * 210 + (820 - 210), tot);
	bound_opts_init(&o);
	struct bound_pres full;
	assert_int_equal(bound_p(&bp, 16, t, &o, &full), BOUND_OK);
	assert_int_equal(full.capped, 0);
	assert_true(full.work > 0);
	o.max_work = full.work;
	assert_int_equal(bound_p(&bp, 16, t, &o, &r), BOUND_OK);
	assert_int_equal(r.capped, 0);
	assert_int_equal(r.work, full.work);
	assert_int_equal(mpq_cmp(r.p, full.p), 0);
	bound_pres_release(&r);
	for (uint64_t cap = 1; cap < full.work; cap = cap * 3 + 1) {
		o.max_work = cap;
		assert_int_equal(bound_p(&bp, 16, t, &o, &r), BOUND_OK);
		assert_int_equal(r.capped, BOUND_CAP_WORK);
		assert_true(mpq_cmp(r.p, full.p) >= 0);
		assert_true(mpq_cmp(r.p, want) <= 0);
		bound_pres_release(&r);
	}
	bound_pres_release(&full);
	bound_prog_release(&bp);
	mpq_clears(t, want, NULL);
}

/* A fork-join of n threads: thread 1 creates 2..n, each does `100 exit`,
 * thread 1 joins them in order and exits. */
static struct trace *forkjoin_trace(uint32_t n)
{
	size_t cap = 64 + 32 * (size_t)n * 3, len = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "shadowbind-trace 1\n");
	for (uint32_t i = 2; i <= n; i++)
		len += (size_t)snprintf(text + len, cap - len, "1 0 create %u\n", i);
	for (uint32_t i = 2; i <= n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%u 100 exit\n", i);
	for (uint32_t i = 2; i <= n; i++)
		len += (size_t)snprintf(text + len, cap - len, "1 0 join %u\n", i);
	snprintf(text + len, cap - len, "1 0 exit\n");
	struct trace *tr = tu_trace(text);
	free(text);
	return tr;
}

/* Issue 14's reproduction: a fork-join of 4000 threads (`T 100 exit`
 * each, joined) kept allocate's bound header busy past 90 s.  With
 * bound_for_trace's quick caps it stops one coefficient past
 * BOUND_WORK_QUICK units, says so, and still gives a true upper bound: the
 * one-processor value, the total work 3999 * 100 = 399900 (every thread
 * runs at once: V = (0, ..., 0, 1), s((n)) = sum q v_q = 3999 over
 * T = 100); the lower bound is untouched: 3999 * 100 / 2 = 199950 on two
 * processors. */
static void test_cap_forkjoin(void **state)
{
	(void)state;
	const uint32_t n = 4000;
	struct trace *tr = forkjoin_trace(n);
	struct bound_trace_opts o;
	bound_trace_opts_init(&o);
	o.max_seconds = 0; /* work counts only */
	struct bound_result r;
	assert_int_equal(bound_for_trace_opts(tr, 2, 0, &o, &r), BOUND_OK);
	assert_int_equal(r.capped, BOUND_CAP_WORK);
	assert_true(r.work > BOUND_WORK_QUICK);
	/* one coefficient: at most 2n multiply-adds of weight 1 + n/64 */
	assert_true(r.work <= BOUND_WORK_QUICK + 2ull * n * (1 + n / 64));
	assert_string_equal(r.bound_str, "399900");
	assert_string_equal(r.lower_str, "199950");
	trace_free(tr);
}

/* allocate's header in proportion to the search: the 4000-thread fork-join
 * above with a search of 10 tests.  Records: 3999 creates, 3999 exits,
 * 3999 joins and thread 1's exit = 11998; per test 11998 + 4 * 4000 + 16
 * = 28014 record-equivalents; a tenth of 10 tests: 28014; counting cap
 * 28014 * BOUND_UNITS_PER_REC (40) = 1120560 units; GLPK: 28014 / (4000
 * * 2 * BOUND_GLPK_COST (20)) = 0 -> 1 iteration, fewer than the n + k
 * the root relaxation needs, so GLPK is skipped: the trivial bound
 * 3999 * 100 / 2 = 199950 stands (LPT: 200000).  The same work twice (no
 * clock involved); the bound is the one-processor value, 399900. */
static void test_cap_budget(void **state)
{
	(void)state;
	const uint32_t n = 4000;
	struct trace *tr = forkjoin_trace(n);
	struct bound_trace_opts o;
	bound_trace_opts_budget(&o, tr, 2, 10);
	assert_int_equal(o.max_work, 1120560);
	assert_int_equal(o.ilp_iters, 1);
	assert_true(o.max_seconds == 0);
	uint64_t work[2];
	for (int rep = 0; rep < 2; rep++) {
		struct bound_result r;
		assert_int_equal(bound_for_trace_opts(tr, 2, 0, &o, &r), BOUND_OK);
		assert_int_equal(r.capped, BOUND_CAP_WORK);
		assert_true(r.work > o.max_work);
		assert_true(r.work <= o.max_work + 2ull * n * (1 + n / 64));
		assert_string_equal(r.bound_str, "399900");
		assert_string_equal(r.lower_str, "199950");
		/* GLPK skipped: the trivial bound stands (LPT's 2000 x 100 =
		 * 200000 is above it, so the gap was not closed) */
		assert_int_equal(r.part_itercap, 1);
		work[rep] = r.work;
	}
	assert_int_equal(work[0], work[1]);
	/* no budget: no caps */
	bound_trace_opts_budget(&o, tr, 2, 0);
	assert_int_equal(o.max_work, 0);
	assert_int_equal(o.ilp_iters, 0);
	trace_free(tr);
}

/* The limits for fig_trace below (9 records, 3 threads, k = 2): per test
 * 9 + 12 + 16 = 37 record-equivalents; 1000 tests: a tenth is 3700;
 * counting 3700 * 40 = 148000 units; GLPK gets what the fixed parts
 * (9 records * BOUND_FIXED_PER_REC (14) = 126) leave: (3700 - 126) /
 * (3 * 2 * BOUND_GLPK_COST (20)) = 29 iterations.  One test: 3 -> 120
 * units; 3 < 126: nothing left -> 1 iteration. */
static const char *fig_trace;
static void test_trace_opts_budget(void **state)
{
	(void)state;
	struct trace *tr = tu_trace(fig_trace);
	struct bound_trace_opts o;
	bound_trace_opts_budget(&o, tr, 2, 1000);
	assert_int_equal(o.max_work, 148000);
	assert_int_equal(o.ilp_iters, 29);
	bound_trace_opts_budget(&o, tr, 2, 1);
	assert_int_equal(o.max_work, 120);
	assert_int_equal(o.ilp_iters, 1);
	trace_free(tr);
}

/* ---------------------------------------------------------------------
 * Program parameters from hand-written traces
 */

/* Figure 1 in our format: T = 35; running 3 threads on [0,5], 2 on
 * [5,30], 1 on [30,35]: V = (5, 25, 5)/35; signals: 2 creates, the wait
 * (post by thread 2) and 2 joins = 5; work 70: z = 1/14. */
static const char *fig_trace =
	"shadowbind-trace 1\n"
	"unit us\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 10 post 1\n"
	"2 20 exit\n"
	"3 30 exit\n"
	"1 5 wait 1\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 5 exit\n";

static void test_params_figure(void **state)
{
	(void)state;
	struct trace *tr = tu_trace(fig_trace);
	struct bound_prog bp;
	assert_int_equal(bound_prog_from_trace(tr, &bp), BOUND_OK);
	assert_int_equal(bp.n, 3);
	assert_int_equal(mpq_cmp_ui(bp.T, 35, 1), 0);
	assert_int_equal(mpq_sgn(bp.v[0]), 0);
	assert_int_equal(mpq_cmp_ui(bp.v[1], 1, 7), 0);
	assert_int_equal(mpq_cmp_ui(bp.v[2], 5, 7), 0);
	assert_int_equal(mpq_cmp_ui(bp.v[3], 1, 7), 0);
	assert_int_equal(bp.signals, 5);
	assert_int_equal(bp.work, 70);
	assert_int_equal(mpq_cmp_ui(bp.z, 1, 14), 0);
	uint64_t by[TRACE_NOPS];
	assert_int_equal(bound_signals(tr, by), 5);
	assert_int_equal(by[TRACE_CREATE], 2);
	assert_int_equal(by[TRACE_WAIT], 1);
	assert_int_equal(by[TRACE_JOIN], 2);
	/* p(3,2,0): (2,1): 1/7 + 5/7 * 4/3 + 1/7 * 2 = 29/21 < (3): 2 */
	mpq_t t;
	mpq_init(t);
	struct bound_pres r;
	assert_int_equal(bound_p(&bp, 2, t, NULL, &r), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(r.p, 29, 21), 0);
	bound_pres_release(&r);
	/* t = 2: r((2,1)) = 4/6 * 2 * 2 = 8/3, z r = 4/21: 33/21 = 11/7 */
	mpq_set_ui(t, 2, 1);
	assert_int_equal(bound_p(&bp, 2, t, NULL, &r), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(r.p, 11, 7), 0);
	bound_pres_release(&r);
	/* the one call for allocate: bound = 11/7 * 35 = 55; lower = 40
	 * (works 10, 30, 30 on 2 processors) */
	struct bound_result br;
	assert_int_equal(bound_for_trace(tr, 2, 2, &br), BOUND_OK);
	assert_string_equal(br.bound_str, "55");
	assert_string_equal(br.lower_str, "40");
	assert_int_equal(br.n, 3);
	assert_true(br.p > 1.5714 && br.p < 1.5715);
	/* the two halves allocate uses (the analytic bound on a thread of its
	 * own): the lower half alone has lower 40 and no bound yet; with the
	 * upper half, the same values (hand-derived above) */
	struct bound_result h;
	assert_int_equal(bound_for_trace_lower(tr, 2, 2, NULL, &h), BOUND_OK);
	assert_string_equal(h.lower_str, "40");
	assert_string_equal(h.bound_str, "");
	assert_int_equal(h.n, 0);
	assert_int_equal(bound_for_trace_upper(tr, 3, 2, NULL, &h), BOUND_EINVAL); /* other k */
	assert_string_equal(h.lower_str, "40"); /* left as it was */
	assert_int_equal(bound_for_trace_upper(tr, 2, 2, NULL, &h), BOUND_OK);
	assert_string_equal(h.bound_str, "55");
	assert_string_equal(h.lower_str, "40");
	assert_int_equal(h.n, 3);
	assert_true(h.p == br.p && h.lower_any == br.lower_any);
	mpq_clear(t);
	bound_prog_release(&bp);
	trace_free(tr);
}

/* A sleep: no thread runs on [10,20]: v0 = 10/25, v1 = 15/25. */
static void test_params_sleep(void **state)
{
	(void)state;
	struct trace *tr = tu_trace(
		"shadowbind-trace 1\n"
		"1 0 create 2\n"
		"2 10 exit\n"
		"1 0 sleep 20\n"
		"1 5 join 2\n"
		"1 0 exit\n");
	struct bound_prog bp;
	assert_int_equal(bound_prog_from_trace(tr, &bp), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(bp.T, 25, 1), 0);
	assert_int_equal(mpq_cmp_ui(bp.v[0], 2, 5), 0);
	assert_int_equal(mpq_cmp_ui(bp.v[1], 3, 5), 0);
	assert_int_equal(mpq_sgn(bp.v[2]), 0);
	/* one create, one join */
	assert_int_equal(bp.signals, 2);
	mpq_t t;
	mpq_init(t);
	struct bound_pres r;
	assert_int_equal(bound_p(&bp, 1, t, NULL, &r), BOUND_OK);
	assert_int_equal(mpq_cmp_ui(r.p, 1, 1), 0); /* v0 + v1 */
	bound_pres_release(&r);
	mpq_clear(t);
	bound_prog_release(&bp);
	trace_free(tr);
}

/* What is and is not a synchronization signal, one object kind at a time
 * (counts by hand in the comments). */
static void test_signals(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		uint64_t total, op, n_op; /* n_op signals under op */
	} t[] = {
		/* mutex: thread 1 locks twice (first: free; second: its own
		 * unlock), thread 2 then locks after thread 1's unlock: 1;
		 * plus 1 create, 1 join */
		{"shadowbind-trace 1\n"
		 "1 0 create 2\n"
		 "1 1 lock 1\n1 1 unlock 1\n1 1 lock 1\n1 1 unlock 1\n"
		 "2 1 lock 1\n2 1 unlock 1\n2 0 exit\n"
		 "1 0 join 2\n1 0 exit\n", 3, TRACE_LOCK, 1},
		/* semaphore with an initial token: the wait needs no release;
		 * a post nobody waits for is not a signal */
		{"shadowbind-trace 1\nsem 1 1\n"
		 "1 1 wait 1\n1 1 post 2\n1 0 exit\n", 0, TRACE_WAIT, 0},
		/* barrier of 3: the two early arrivals pair with the last one
		 * (another thread): 2; the last pairs with itself: 0; plus 2
		 * creates and 2 joins */
		{"shadowbind-trace 1\n"
		 "1 0 create 2\n1 0 create 3\n"
		 "1 1 barrier 1 3\n2 2 barrier 1 3\n3 3 barrier 1 3\n"
		 "2 0 exit\n3 0 exit\n1 0 join 2\n1 0 join 3\n1 0 exit\n",
		 6, TRACE_BARRIER, 2},
		/* read-write lock: thread 2's rdlock after thread 1's
		 * rwunlock: 1; thread 1's first wrlock: none */
		{"shadowbind-trace 1\n"
		 "1 0 create 2\n"
		 "1 1 wrlock 1\n1 1 rwunlock 1\n"
		 "2 1 rdlock 1\n2 1 rwunlock 1\n2 0 exit\n"
		 "1 0 join 2\n1 0 exit\n", 3, TRACE_RDLOCK, 1},
		/* trylock: busy is nothing; ok after another thread's unlock
		 * is a signal */
		{"shadowbind-trace 1\n"
		 "1 0 create 2\n"
		 "1 1 lock 1\n"
		 "2 1 trylock 1 busy\n"
		 "1 1 unlock 1\n"
		 "2 1 trylock 1 ok\n2 1 unlock 1\n2 0 exit\n"
		 "1 0 join 2\n1 0 exit\n", 3, TRACE_TRYLOCK, 1},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct trace *tr = tu_trace(t[i].text);
		uint64_t by[TRACE_NOPS];
		uint64_t got = bound_signals(tr, by);
		if (got != t[i].total || by[t[i].op] != t[i].n_op)
			fail_msg("case %zu: %" PRIu64 " signals (%" PRIu64 " by op %" PRIu64
			         "), want %" PRIu64 " (%" PRIu64 ")", i, got, by[t[i].op],
			         t[i].op, t[i].total, t[i].n_op);
		trace_free(tr);
	}
}

static void test_signals_cond(void **state)
{
	(void)state;
	/* thread 2 locks m and waits on c, releasing m implicitly; thread 1
	 * locks m (paired, per trace.h, with thread 2's record before its
	 * cwait: another thread's release, 1), signals c and unlocks m;
	 * thread 2's cwait completes (paired with the signal: 1), it unlocks
	 * and exits.  Signals: create 1 + lock 1 + cwait 1 + join 1 = 4. */
	struct trace *tr = tu_trace(
		"shadowbind-trace 1\n"
		"1 0 create 2\n"
		"2 1 lock 1\n"
		"1 1 lock 1\n"
		"1 1 signal 1 1\n"
		"1 1 unlock 1\n"
		"2 0 cwait 1 1\n"
		"2 1 unlock 1\n"
		"2 0 exit\n"
		"1 0 join 2\n"
		"1 0 exit\n");
	uint64_t by[TRACE_NOPS];
	uint64_t got = bound_signals(tr, by);
	assert_int_equal(by[TRACE_CREATE], 1);
	assert_int_equal(by[TRACE_CWAIT], 1);
	assert_int_equal(by[TRACE_JOIN], 1);
	assert_int_equal(by[TRACE_LOCK], 1);
	assert_int_equal(got, 4);
	trace_free(tr);
}

/* ---------------------------------------------------------------------
 * Lower bound
 */

/* Two threads contending for a mutex (docs/simulation.md, last section):
 * thread 2 has a long tail after its critical section.  One processor per
 * thread: thread 1 locks at 2, thread 2 asks at 3 and waits until 12, its
 * tail ends at 113 = T(P,n,0).  With thread 1 sharing processor 0 with
 * thread 3 (ps, rate 1/2), thread 1 asks only at 4: thread 2 gets the
 * mutex at 3, releases at 4 and ends at 104 < 113.  So T(P,n,0) is not a
 * lower bound; the relaxed critical path (mutex dropped) is
 * max(2+10, 3+1+100, 4) = 104, tight here. */
static const char *mutex_trace =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 2 lock 1\n"
	"1 10 unlock 1\n"
	"1 0 exit\n"
	"2 3 lock 1\n"
	"2 1 unlock 1\n"
	"2 100 exit\n"
	"3 4 exit\n";

static void test_lower_mutex(void **state)
{
	(void)state;
	struct trace *tr = tu_trace(mutex_trace);
	struct sim_program *sp = sim_program_new(tr);
	struct sim_work *sw = sim_work_new(sp);
	struct sim_params par;
	sim_params_init(&par);
	sim_time ms;
	assert_int_equal(sim_makespan(sp, sw, &par, NULL, &ms), SIM_OK);
	assert_int_equal(sim_time_cmp(ms, sim_time_int(113)), 0);
	par.cpus = 2;
	int32_t bind[3] = {0, 1, 0};
	assert_int_equal(sim_makespan(sp, sw, &par, bind, &ms), SIM_OK);
	assert_int_equal(sim_time_cmp(ms, sim_time_int(104)), 0);
	struct bound_lower lo;
	assert_int_equal(bound_lower(tr, 2, 200, &lo), BOUND_OK);
	assert_int_equal(sim_time_cmp(lo.path, sim_time_int(104)), 0);
	assert_int_equal(lo.path_relaxed, 1);
	assert_int_equal(lo.path_dropped, 4);
	assert_int_equal(lo.work_max, 104);
	/* works 12, 104, 4 on 2 processors: 104 */
	assert_int_equal(lo.part_lb, 104);
	assert_int_equal(lo.part_ub, 104);
	assert_int_equal(sim_time_cmp(lo.lower, sim_time_int(104)), 0);
	sim_work_free(sw);
	sim_program_free(sp);
	trace_free(tr);
}

/* The relaxed program by hand: thread 1's lock and unlock (works 5, 7)
 * are dropped and their work goes to its next kept record, the post
 * (3 + 5 + 7 = 15); semaphore 1 has one waiter (thread 2), so its post
 * and wait stay.  Kept, thread-major: create 0, post 1, join 2, exit 3
 * (thread 1), wait 4, exit 5 (thread 2); the wait pairs with the post
 * (1), the join with thread 2's exit (5).  Path: the post at 15, thread
 * 2 waits from 4 to 15 and exits at 17, thread 1 joins then and exits
 * at 18 (the same as with the mutex kept: 5 + 7 + 3). */
static const char *relax_trace =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 5 lock 1\n"
	"1 7 unlock 1\n"
	"1 3 post 1\n"
	"2 4 wait 1\n"
	"2 2 exit\n"
	"1 0 join 2\n"
	"1 1 exit\n";

static void test_relaxed_trace(void **state)
{
	(void)state;
	struct trace *tr = tu_trace(relax_trace);
	uint64_t dropped = 99;
	struct trace *rt = bound_relaxed_trace(tr, &dropped);
	assert_non_null(rt);
	assert_int_equal(dropped, 2);
	assert_int_equal(rt->nrec, 6);
	assert_null(rt->loc);
	static const struct {
		uint8_t op;
		uint64_t work;
		uint32_t pair;
	} want[6] = {
		{TRACE_CREATE, 0, TRACE_NONE}, {TRACE_POST, 15, TRACE_NONE},
		{TRACE_JOIN, 0, 5},            {TRACE_EXIT, 1, TRACE_NONE},
		{TRACE_WAIT, 4, 1},            {TRACE_EXIT, 2, TRACE_NONE},
	};
	for (int r = 0; r < 6; r++) {
		assert_int_equal(rt->rec[r].op, want[r].op);
		assert_int_equal(rt->rec[r].work, want[r].work);
		assert_int_equal(rt->pair[r], want[r].pair);
	}
	assert_int_equal(rt->threads[0].first, 0);
	assert_int_equal(rt->threads[0].nrec, 4);
	assert_int_equal(rt->threads[1].first, 4);
	assert_int_equal(rt->threads[1].nrec, 2);
	/* the original keeps its records */
	assert_int_equal(tr->nrec, 8);
	assert_int_equal(tr->rec[1].op, TRACE_LOCK);
	struct bound_lower lo;
	memset(&lo, 0, sizeof lo);
	assert_int_equal(bound_lower_path(tr, &lo), BOUND_OK);
	assert_int_equal(sim_time_cmp(lo.path, sim_time_int(18)), 0);
	assert_int_equal(lo.path_dropped, 2);
	bound_relaxed_trace_free(rt);
	trace_free(tr);
}

/* P||Cmax by hand and by brute force over all assignments. */
static uint64_t part_brute(const uint64_t *w, uint32_t n, uint32_t k)
{
	uint64_t best = UINT64_MAX, load[8];
	uint32_t a[12] = {0};
	for (;;) {
		memset(load, 0, sizeof load);
		for (uint32_t i = 0; i < n; i++)
			load[a[i]] += w[i];
		uint64_t m = 0;
		for (uint32_t j = 0; j < k; j++)
			if (load[j] > m)
				m = load[j];
		if (m < best)
			best = m;
		uint32_t i = 0;
		while (i < n && ++a[i] == k)
			a[i++] = 0;
		if (i == n)
			break;
	}
	return best;
}

/* GLPK's iteration cap (bound_partition_capped).  {3,3,2,2,2} on 2
 * processors: trivial bound max(3, 12/2, 3 + 2) = 6, LPT 7 (3,2,2 | 3,2);
 * a cap of 1 iteration is below n + k = 7, so GLPK does not run: [6, 7],
 * capped; a large cap changes nothing ([6, 6], not capped).  On random
 * instances every cap keeps lb <= optimum (brute force) <= ub, and the
 * same cap gives the same result twice. */
static void test_partition_itercap(void **state)
{
	(void)state;
	uint64_t lb, ub;
	int ilp, to, cap;
	static const uint64_t w1[] = {3, 3, 2, 2, 2};
	assert_int_equal(bound_partition_capped(w1, 5, 2, 1000, 1, &lb, &ub, &ilp, &to, &cap),
	                 BOUND_OK);
	assert_int_equal(lb, 6);
	assert_int_equal(ub, 7);
	assert_int_equal(ilp, 0);
	assert_int_equal(cap, 1);
	assert_int_equal(bound_partition_capped(w1, 5, 2, 1000, 1000000, &lb, &ub, &ilp, &to,
	                                        &cap), BOUND_OK);
	assert_int_equal(lb, 6);
	assert_int_equal(ub, 6);
	assert_int_equal(cap, 0);
	uint64_t seed = 7;
	int capped = 0;
	for (int it = 0; it < 60; it++) {
		uint32_t n = 1 + (uint32_t)(tu_rand(&seed) % 9), k = 1 + (uint32_t)(tu_rand(&seed) % 4);
		uint64_t w[12], iters = 1 + tu_rand(&seed) % 40;
		for (uint32_t i = 0; i < n; i++)
			w[i] = 1 + tu_rand(&seed) % 1000;
		uint64_t opt = part_brute(w, n, k), lb2, ub2;
		assert_int_equal(bound_partition_capped(w, n, k, 60000, iters, &lb, &ub, &ilp,
		                                        &to, &cap), BOUND_OK);
		assert_true(lb <= opt);
		assert_true(ub >= opt);
		capped += cap;
		int cap2;
		assert_int_equal(bound_partition_capped(w, n, k, 60000, iters, &lb2, &ub2, &ilp,
		                                        &to, &cap2), BOUND_OK);
		assert_int_equal(lb, lb2);
		assert_int_equal(ub, ub2);
		assert_int_equal(cap, cap2);
	}
	assert_true(capped > 0); /* the cap was exercised */
}

/* The trivial bound alone (GLPK capped at 1 iteration, so it never runs)
 * on every multiset of 1..6 works, each 1..6, on 2 and 3 processors:
 * lb = min(T, LPT) and ub = LPT, where T = max(w_max, ceil(W / k),
 * w_(k) + w_(k+1)) (bound/lower.c's header: the largest work, the mean
 * load rounded up, and two of the k + 1 largest works must share a
 * processor) and LPT = the largest work first onto the least loaded
 * processor, both computed here; and lb <= optimum <= ub (brute force). */
static void test_partition_trivial(void **state)
{
	(void)state;
	int n_cases = 0;
	for (uint32_t k = 2; k <= 3; k++)
		for (uint32_t n = 1; n <= 6; n++) {
			uint64_t w[6];
			for (uint32_t i = 0; i < n; i++)
				w[i] = 6;
			for (;;) { /* w non-increasing, each 1..6 */
				uint64_t W = 0, load[3] = {0, 0, 0}, lpt = 0;
				for (uint32_t i = 0; i < n; i++) {
					W += w[i];
					uint32_t b = 0;
					for (uint32_t j = 1; j < k; j++)
						if (load[j] < load[b])
							b = j;
					load[b] += w[i];
				}
				for (uint32_t j = 0; j < k; j++)
					if (load[j] > lpt)
						lpt = load[j];
				uint64_t t = (W + k - 1) / k;
				if (w[0] > t)
					t = w[0];
				if (n > k && w[k - 1] + w[k] > t)
					t = w[k - 1] + w[k];
				uint64_t lb, ub, opt = part_brute(w, n, k);
				int ilp, to, cap;
				assert_int_equal(bound_partition_capped(w, n, k, 1000, 1, &lb, &ub, &ilp, &to,
				                                        &cap), BOUND_OK);
				if (lb != (t < lpt ? t : lpt) || ub != lpt || lb > opt || opt > ub)
					fail_msg("k %u, works %llu %llu %llu %llu %llu %llu (n %u): [%llu, %llu], "
					         "want [%llu, %llu], optimum %llu", k,
					         (unsigned long long)w[0], (unsigned long long)(n > 1 ? w[1] : 0),
					         (unsigned long long)(n > 2 ? w[2] : 0),
					         (unsigned long long)(n > 3 ? w[3] : 0),
					         (unsigned long long)(n > 4 ? w[4] : 0),
					         (unsigned long long)(n > 5 ? w[5] : 0), n,
					         (unsigned long long)lb, (unsigned long long)ub,
					         (unsigned long long)(t < lpt ? t : lpt), (unsigned long long)lpt,
					         (unsigned long long)opt);
				n_cases++;
				/* next non-increasing sequence */
				int i = (int)n - 1;
				while (i >= 0 && w[i] == 1)
					i--;
				if (i < 0)
					break;
				w[i]--;
				for (uint32_t j = (uint32_t)i + 1; j < n; j++)
					w[j] = w[i];
			}
		}
	assert_int_equal(n_cases, 2 * 923); /* C(n + 5, 5) multisets for n = 1..6 */
}

static void test_partition(void **state)
{
	(void)state;
	uint64_t lb, ub;
	int ilp, to;
	/* 3,3,2,2,2 on 2: total 12, 6 + 6: optimum 6; LPT gives 7
	 * (3,2,2 | 3,2), the trivial bound 6: GLPK closes the gap */
	static const uint64_t w1[] = {3, 3, 2, 2, 2};
	assert_int_equal(bound_partition(w1, 5, 2, 1000, &lb, &ub, &ilp, &to), BOUND_OK);
	assert_int_equal(lb, 6);
	assert_int_equal(ub, 6);
	assert_int_equal(ilp, 1);
	assert_int_equal(to, 0);
	uint64_t seed = 99;
	for (int it = 0; it < 60; it++) {
		uint32_t n = 1 + (uint32_t)(tu_rand(&seed) % 9), k = 1 + (uint32_t)(tu_rand(&seed) % 4);
		uint64_t w[12];
		for (uint32_t i = 0; i < n; i++)
			w[i] = 1 + tu_rand(&seed) % (it % 2 ? 1000 : 20);
		uint64_t opt = part_brute(w, n, k);
		assert_int_equal(bound_partition(w, n, k, 2000, &lb, &ub, &ilp, &to), BOUND_OK);
		assert_true(lb <= opt);
		assert_true(ub >= opt);
		if (!to) {
			assert_int_equal(lb, opt);
			assert_int_equal(ub, opt);
		}
	}
}

/*
 * Exhaustive: generated programs of every family, every binding of up to 8
 * threads to k processors (set partitions into at most k blocks: the
 * processors are identical), simulated; the lower bound is below every
 * makespan, under ps with t = 0 and t = L, and under fifo with t = L (L:
 * the program's mean work per synchronization signal).  The upper bound
 * p(n,k,t,z,V) T(P,n,0) is never below the best binding's makespan (ps)
 * for the programs whose synchronization order cannot change, t = 0
 * (asserted) and t = L (counted); for the others, how often it is below is
 * counted and printed.
 *
 * SB_BOUND_WIDE=1 runs the wide measurement of docs/bound.md instead
 * (25 seeds, n = 4..7, k = 2..3; about 5 s).
 */
struct exh {
	const struct sim_program *sp;
	struct sim_work *sw;
	uint32_t n, k;
	uint64_t lat;
	int32_t bind[16];
	sim_time best;
	int have;
	uint64_t bindings, deadlocks;
	sim_time lower;
	unsigned long below_lower;
};

static void exh_rec(struct exh *E, uint32_t i, uint32_t used)
{
	if (i == E->n) {
		struct sim_params par;
		sim_params_init(&par);
		par.cpus = E->k;
		par.latency = E->lat;
		sim_time ms;
		int st = sim_makespan(E->sp, E->sw, &par, E->bind, &ms);
		E->bindings++;
		if (st == SIM_DEADLOCK) {
			E->deadlocks++;
		} else {
			assert_int_equal(st, SIM_OK);
			if (sim_time_cmp(ms, E->lower) < 0)
				E->below_lower++;
			if (!E->have || sim_time_cmp(ms, E->best) < 0)
				E->best = ms;
			E->have = 1;
		}
		/* run-to-block: the lower bound still holds */
		par.policy = SIM_FIFO;
		if (sim_makespan(E->sp, E->sw, &par, E->bind, &ms) == SIM_OK &&
		    sim_time_cmp(ms, E->lower) < 0)
			E->below_lower++;
		return;
	}
	for (uint32_t p = 0; p <= used && p < E->k; p++) {
		E->bind[i] = (int32_t)p;
		exh_rec(E, i + 1, p == used ? used + 1 : used);
	}
}

static void q_of(mpq_t q, sim_time t)
{
	mpz_set_ui(mpq_numref(q), 0);
	mpz_import(mpq_numref(q), 1, -1, 8, 0, 0, &t.num);
	mpz_import(mpq_denref(q), 1, -1, 8, 0, 0, &t.den);
	mpq_canonicalize(q);
}

static void test_exhaustive_generated(void **state)
{
	(void)state;
	static const struct {
		const char *family;
		const char *opt, *val; /* one family option or NULL */
		uint32_t threads[3];
		int fixed;             /* synchronization order never changes */
	} fam[] = {
		{"pipeline", NULL, NULL, {4, 6, 8}, 1},
		{"forkjoin", NULL, NULL, {4, 6, 8}, 1},
		{"dag", NULL, NULL, {4, 6, 8}, 1},
		{"transactions", NULL, NULL, {4, 6, 7}, 0},
		{"prodcons", NULL, NULL, {4, 6, 7}, 0},
		{"worstcase", NULL, NULL, {5, 5, 5}, 0},
		{"pipeline", "lock", "mutex", {4, 5, 6}, 0},
	};
	const char *wide_env = getenv("SB_BOUND_WIDE");
	int wide = wide_env && *wide_env == '1';
	uint64_t nseeds = wide ? 25 : 2;
	uint32_t kmax = wide ? 3 : 4;
	unsigned long programs = 0;
	/* [fixed][latency index]: cases, bound below the optimum */
	unsigned long cases[2][2] = {{0}}, below[2][2] = {{0}};
	double worst[2][2] = {{0}};
	uint64_t sims = 0;
	mpq_t t, bnd, opt;
	mpq_inits(t, bnd, opt, NULL);
	for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++)
		for (int ti = 0; ti < (wide ? 4 : 3); ti++)
			for (uint64_t seed = 1; seed <= nseeds; seed++) {
				struct gen_opts go;
				gen_opts_init(&go);
				go.threads = wide ? (!strcmp(fam[f].family, "worstcase") ? 5 : 4 + (uint32_t)ti)
				                  : fam[f].threads[ti];
				go.seed = wide ? seed : seed + 10 * (uint64_t)ti;
				if (fam[f].opt)
					gen_opts_set(&go, fam[f].opt, fam[f].val);
				if (!strcmp(fam[f].family, "pipeline"))
					gen_opts_set(&go, "limit", "0");
				struct trace *tr = NULL;
				char err[256];
				if (gen_trace(fam[f].family, &go, &tr, NULL, err, sizeof err) != GEN_OK)
					fail_msg("%s: %s", fam[f].family, err);
				programs++;
				uint64_t dropped;
				struct trace *rt = bound_relaxed_trace(tr, &dropped);
				bound_relaxed_trace_free(rt);
				/* a program of another family may happen to be
				 * order-fixed too: classify by the relaxation */
				if (fam[f].fixed && dropped)
					fail_msg("%s n=%u seed %" PRIu64 ": %" PRIu64 " records dropped",
					         fam[f].family, tr->nthreads, go.seed, dropped);
				const int fixed = dropped == 0;
				struct bound_prog bp;
				assert_int_equal(bound_prog_from_trace(tr, &bp), BOUND_OK);
				uint64_t L = bp.signals ? bp.work / bp.signals : 1;
				if (L == 0)
					L = 1;
				struct sim_program *sp = sim_program_new(tr);
				struct sim_work *sw = sim_work_new(sp);
				for (uint32_t k = 2; k <= kmax; k++) {
					if (tr->nthreads >= 8 && k > 3)
						continue; /* keep the suite fast */
					struct bound_lower lo;
					assert_int_equal(bound_lower(tr, k, 300, &lo), BOUND_OK);
					if (!lo.path_relaxed) {
						/* nothing dropped: the path is T(P,n,0) */
						q_of(opt, lo.path);
						assert_int_equal(mpq_cmp(opt, bp.T), 0);
					}
					for (int li = 0; li < 2; li++) {
						struct exh E = {.sp = sp, .sw = sw, .n = tr->nthreads,
						                .k = k, .lat = li ? L : 0, .lower = lo.lower};
						exh_rec(&E, 0, 0);
						sims += 2 * E.bindings;
						if (E.below_lower)
							fail_msg("%s n=%u k=%u: %lu makespans below the lower bound",
							         fam[f].family, tr->nthreads, k, E.below_lower);
						if (!E.have)
							continue;
						mpq_set_ui(t, E.lat, 1);
						struct bound_pres r;
						assert_int_equal(bound_p(&bp, k, t, NULL, &r), BOUND_OK);
						mpq_mul(bnd, r.p, bp.T);
						q_of(opt, E.best);
						int fx = fixed;
						cases[fx][li]++;
						if (mpq_cmp(bnd, opt) < 0) {
							below[fx][li]++;
							double ratio = mpq_get_d(opt) / mpq_get_d(bnd);
							if (ratio > worst[fx][li])
								worst[fx][li] = ratio;
							if (fx && li == 0)
								fail_msg("%s n=%u k=%u seed %" PRIu64 ": bound %.3f below the best binding %.3f",
								         fam[f].family, tr->nthreads, k, go.seed,
								         mpq_get_d(bnd), mpq_get_d(opt));
						}
						bound_pres_release(&r);
					}
				}
				sim_work_free(sw);
				sim_program_free(sp);
				bound_prog_release(&bp);
				trace_free(tr);
			}
	print_message("exhaustive: %lu programs, %" PRIu64 " bindings simulated\n"
	              "  order-fixed:          bound below the optimum: t=0 %lu of %lu, t=L %lu of %lu (worst optimum/bound %.4f)\n"
	              "  mutexes/shared sems:  bound below the optimum: t=0 %lu of %lu (worst %.4f), t=L %lu of %lu (worst %.4f)\n",
	              programs, sims, below[1][0], cases[1][0], below[1][1], cases[1][1], worst[1][1],
	              below[0][0], cases[0][0], worst[0][0], below[0][1], cases[0][1], worst[0][1]);
	mpq_clears(t, bnd, opt, NULL);
}

static void test_qfmt(void **state)
{
	(void)state;
	static const struct { long a; unsigned long b; int d, dir; const char *s; } t[] = {
		{13, 9, 6, 0, "1.444444"}, {13, 9, 6, 1, "1.444445"}, {13, 9, 6, -1, "1.444444"},
		{2, 3, 3, 0, "0.667"}, {2, 3, 3, -1, "0.666"}, {1, 1, 6, 1, "1"},
		{3, 2, 6, 0, "1.5"}, {-3, 2, 0, 0, "-2"}, {5, 2, 0, 0, "3"},
		{1, 200, 2, 0, "0.01"}, {1, 300, 2, 0, "0"}, {1, 300, 2, 1, "0.01"},
		{1999, 1000, 2, 0, "2"},
	};
	mpq_t q;
	mpq_init(q);
	char buf[64];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		qset(q, t[i].a, t[i].b);
		assert_string_equal(bound_qfmt(q, t[i].d, t[i].dir, buf, sizeof buf), t[i].s);
	}
	mpq_clear(q);
}

/* Each BOUND_* code's line and word (bound.h; the words are allocate's
 * `no_bound WORD`, docs/alloc.md), and what an unknown code gives. */
static void test_codes(void **state)
{
	(void)state;
	static const struct {
		int code;
		const char *text, *word;
	} rows[] = {
		{.code = BOUND_OK, .text = "ok", .word = "ok"},
		{.code = BOUND_EINVAL, .text = "invalid argument", .word = "no-work"},
		{.code = BOUND_ENOMEM, .text = "out of memory", .word = "out-of-memory"},
		{.code = BOUND_ETOOBIG, .text = "too many threads", .word = "too-many-threads"},
		{.code = BOUND_EDEADLOCK, .text = "the program deadlocks with one processor per thread",
		 .word = "deadlock"},
		{.code = BOUND_ESIM, .text = "the simulation failed", .word = "failed"},
		{.code = -99, .text = "unknown error", .word = "failed"},
		{.code = 7, .text = "unknown error", .word = "failed"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		assert_string_equal(bound_strerror(rows[i].code), rows[i].text);
		assert_string_equal(bound_errword(rows[i].code), rows[i].word);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes),
		cmocka_unit_test(test_pi_paper),
		cmocka_unit_test(test_pi_brute),
		cmocka_unit_test(test_f_paper),
		cmocka_unit_test(test_f_small_all),
		cmocka_unit_test(test_f_larger),
		cmocka_unit_test(test_s_r_figure1),
		cmocka_unit_test(test_allocations),
		cmocka_unit_test(test_p_vs_exhaustive),
		cmocka_unit_test(test_p_properties),
		cmocka_unit_test(test_p_n79),
		cmocka_unit_test(test_f_qmax_reuse),
		cmocka_unit_test(test_p_many_threads),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_cap_forkjoin),
		cmocka_unit_test(test_qfmt),
		cmocka_unit_test(test_params_figure),
		cmocka_unit_test(test_params_sleep),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_signals_cond),
		cmocka_unit_test(test_lower_mutex),
		cmocka_unit_test(test_relaxed_trace),
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_partition_itercap),
		cmocka_unit_test(test_trace_opts_budget),
		cmocka_unit_test(test_cap_budget),
		cmocka_unit_test(test_partition_trivial),
		cmocka_unit_test(test_exhaustive_generated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
