/*
 * simint.h - simulator internals: exact time arithmetic.
 *
 * Times are reduced fractions of 64-bit integers.  Every operation computes
 * in 128 bits, reduces, and sets *ovf when the result does not fit; the
 * run then stops with SIM_EOVERFLOW.  Integers (den == 1), the only times
 * under fifo and rr, take fast paths without gcd.
 */
#ifndef SHADOWBIND_SIMINT_H
#define SHADOWBIND_SIMINT_H

#include "sim/sim.h"

typedef unsigned __int128 st_u128;

static inline uint64_t st_gcd64(uint64_t a, uint64_t b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	int s = __builtin_ctzll(a | b);
	a >>= __builtin_ctzll(a);
	do {
		b >>= __builtin_ctzll(b);
		if (a > b) {
			uint64_t t = a;
			a = b;
			b = t;
		}
		b -= a;
	} while (b);
	return a << s;
}

static inline st_u128 st_gcd128(st_u128 a, st_u128 b)
{
	while (b) {
		if ((a >> 64) == 0 && (b >> 64) == 0)
			return st_gcd64((uint64_t)a, (uint64_t)b);
		st_u128 t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Reduce n/d and store it, flagging overflow. d > 0. */
static inline sim_time st_make(st_u128 n, st_u128 d, int *ovf)
{
	sim_time r = {0, 1};
	if (n == 0)
		return r;
	if (d != 1) {
		st_u128 g = st_gcd128(n, d);
		n /= g;
		d /= g;
	}
	if ((n >> 64) || (d >> 64)) {
		*ovf = 1;
		return r;
	}
	r.num = (uint64_t)n;
	r.den = (uint64_t)d;
	return r;
}

static inline int st_cmp(sim_time a, sim_time b)
{
	if (a.den == b.den)
		return (a.num > b.num) - (a.num < b.num);
	st_u128 l = (st_u128)a.num * b.den, r = (st_u128)b.num * a.den;
	return (l > r) - (l < r);
}

static inline int st_eq(sim_time a, sim_time b)
{
	return a.num == b.num && a.den == b.den;
}

static inline sim_time st_max(sim_time a, sim_time b)
{
	return st_cmp(a, b) >= 0 ? a : b;
}

static inline sim_time st_add(sim_time a, sim_time b, int *ovf)
{
	if (a.den == b.den) {
		if (a.den == 1) {
			uint64_t s = a.num + b.num;
			if (s < a.num)
				*ovf = 1;
			sim_time r = {s, 1};
			return r;
		}
		return st_make((st_u128)a.num + b.num, a.den, ovf);
	}
	st_u128 n = (st_u128)a.num * b.den + (st_u128)b.num * a.den;
	return st_make(n, (st_u128)a.den * b.den, ovf);
}

/* a - b, requires a >= b. */
static inline sim_time st_sub(sim_time a, sim_time b, int *ovf)
{
	if (a.den == b.den) {
		if (a.den == 1) {
			sim_time r = {a.num - b.num, 1};
			return r;
		}
		return st_make((st_u128)a.num - b.num, a.den, ovf);
	}
	st_u128 n = (st_u128)a.num * b.den - (st_u128)b.num * a.den;
	return st_make(n, (st_u128)a.den * b.den, ovf);
}

static inline sim_time st_add_int(sim_time a, uint64_t v, int *ovf)
{
	if (a.den == 1) {
		uint64_t s = a.num + v;
		if (s < a.num)
			*ovf = 1;
		sim_time r = {s, 1};
		return r;
	}
	st_u128 n = (st_u128)a.num + (st_u128)v * a.den;
	if (n >> 64) {
		*ovf = 1;
		sim_time z = {0, 1};
		return z;
	}
	sim_time r = {(uint64_t)n, a.den}; /* still reduced */
	return r;
}

/* a * m / d, m >= 0, d >= 1. */
static inline sim_time st_muldiv(sim_time a, uint64_t m, uint64_t d, int *ovf)
{
	if (m == d)
		return a;
	return st_make((st_u128)a.num * m, (st_u128)a.den * d, ovf);
}

#endif
