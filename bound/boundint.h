/*
 * boundint.h - internals of the bound module shared between its files.
 * Not a public interface.
 */
#ifndef SHADOWBIND_BOUNDINT_H
#define SHADOWBIND_BOUNDINT_H

#include <stdint.h>

#include <gmp.h>

#include "bound/bound.h"

typedef unsigned __int128 bd_u128;

/*
 * Largest n for which the polynomial counting runs in unsigned 128-bit
 * integers.  Proof that nothing overflows: every coefficient of a partial
 * product prod_{i in S} sum_{j <= min(m, a_i)} C(a_i, j) x^j counts subsets
 * of the threads of S, so it is at most 2^|S| <= 2^n; f(A,q,l) <=
 * max(l, a_1) C(n,q) <= max(l, n) 2^n; with n <= 121 and l <= 127,
 * that is < 2^7 2^121 = 2^128.  Larger l (possible only through bound_f,
 * the search uses l = 0) goes to GMP.
 */
#define BD_WIDE_MAX 121u
#define BD_WIDE_L_MAX 127u

/*
 * Counting workspace for one n: binomials and scratch polynomials, in
 * 128-bit integers (n <= BD_WIDE_MAX, with a binomial table) or GMP (rows
 * made on demand: O(n) numbers, not O(n^2)).  One per search; never shared
 * between threads.
 */
struct bd_count {
	uint32_t n;
	int wide;          /* 1: the u128 arrays are used, else the mpz ones */
	bd_u128 *binom;    /* [(n+1)*(n+1)] C(i,j) at i*(n+1)+j              */
	bd_u128 *poly, *tmp, *F;        /* [n+1]                             */
	mpz_t *zpoly, *ztmp, *zF;       /* [n+1]                             */
	mpz_t *zCn;        /* [n+1] C(n, q), valid for q < zCn_len: made on
	                      demand up to the largest qmax asked for (not
	                      the whole row: at n = 20,001 that row is
	                      0.72 n^2 bits = 36 MB where threadtask needs
	                      q <= 3)                                        */
	uint32_t zCn_len;  /* entries of zCn computed (>= 1 after init)      */
	mpz_t *zrowA;      /* [n+1] a binomial row C(a_i, .), made on demand  */
	mpz_t *zQ;         /* [n+1] a group's power P^g (GMP path)           */
	mpz_t *zP;         /* [BD_GROUPS * (n+1)] group factors (GMP path)   */
	mpz_t *zA, *zB, *zD, *zN; /* [n+2] scratch of the product recurrence */
	mpz_t zt;          /* scratch (initialized iff zt_init)              */
	int zt_init;
	uint32_t *sorted;  /* [n] scratch: non-zero loads, non-increasing    */
	/* The work cap (bound_opts.max_work, max_seconds).  work counts
	 * coefficient multiply-adds of the polynomial method, each weighted
	 * by the size of the coefficients in 64-bit words on the GMP path
	 * (1 + n/64; 1 on the 128-bit path); deterministic. */
	uint64_t work;     /* so far                                         */
	uint64_t cap;      /* stop when work passes it; 0: none              */
	double deadline;   /* CLOCK_MONOTONIC seconds; 0: none               */
	uint64_t next_clock; /* work at which to read the clock next         */
	int capped;        /* 0, BD_CAP_WORK or BD_CAP_TIME                  */
};

enum { BD_CAP_WORK = 1, BD_CAP_TIME = 2 };
/* Most distinct loads the product recurrence of f_poly_mpz handles. */
#define BD_GROUPS 6
/* Internal return code: the work or time cap stopped the computation. */
#define BD_ECAP (-100)

/* Monotonic seconds. */
double bd_now(void);

int bd_count_init(struct bd_count *c, uint32_t n);
/* The same, choosing GMP even for small n when wide = 0 (for tests). */
int bd_count_init2(struct bd_count *c, uint32_t n, int wide);
void bd_count_release(struct bd_count *c);

/*
 * bd_f_all - F[q] = f(A,q,l) for q = 0..n into c->F (wide) or c->zF, by the
 * given method.  A: `a` loads summing to c->n (any order, zeros allowed).
 * Returns BOUND_OK, BOUND_ETOOBIG (brute force above BOUND_BRUTE_MAX),
 * BOUND_EINVAL (l > BD_WIDE_L_MAX on a wide workspace), BOUND_ENOMEM, or
 * BD_ECAP (the polynomial method passed c->cap or c->deadline: F is
 * then undefined, c->capped says which).
 */
int bd_f_all(struct bd_count *c, const uint32_t *A, uint32_t a, uint32_t l,
             enum bound_method m);
/* The same for q = 0..qmax only (F[q] for q > qmax is left undefined by
 * the polynomial method; the others compute every q). */
int bd_f_upto(struct bd_count *c, const uint32_t *A, uint32_t a, uint32_t l,
              enum bound_method m, uint32_t qmax);
/* F[q] of the last bd_f_all as an mpz. */
void bd_F_get(const struct bd_count *c, uint32_t q, mpz_t out);

/* Sort loads non-increasing, drop zeros; returns the number kept. */
uint32_t bd_sort_loads(const uint32_t *A, uint32_t a, uint32_t *out);

/* Set an mpz from an unsigned 128-bit integer. */
void bd_mpz_set_u128(mpz_t z, bd_u128 v);

#endif
