/*
 * simint.h - simulator internals: reduced fractions.
 *
 * The engine computes in integer ticks; sim_time (a reduced fraction)
 * carries its results, and the few values that are averages (the unbound
 * ps pool's busy time per processor) are made exact with st_make.
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

#endif
