/*
 * simint.h - simulator internals: reduced fractions, and the recorded
 * pairing of releases and acquisitions that the strict-sequence and
 * client-server models follow (built by models.c, run by sim.c).
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

/* ------------------------------------------------------------------ */
/* The recorded pairing, for the strict-sequence and client-server models
 * (docs/models.md).  Built once per program by sim_pairs_build (models.c).
 *
 * An *event* is a release of the recording that some acquisition depends
 * on: an unlock, a post, a signal/broadcast (the wake-up), an exit, an
 * rwunlock, the first half of a cwait (releasing its mutex and
 * registering as a waiter), or the arrivals of one barrier group (one
 * event that needs all N arrivals).  A *wait* is a record that must wait
 * for events: an acquisition (lock, trylock ok, wait, trywait ok, join,
 * barrier, cwait, rdlock, wrlock) that depends on another record's
 * release, or a signal/broadcast, which waits for the registration of the
 * waiters it woke in the recording.  Events and waits are numbered in
 * record order (so a thread's waits are contiguous and in program order).
 */
#define SIM_NONE UINT32_MAX

/* A record's event and wait, side by side (one cache line per step). */
struct sim_prec {
	uint32_t ev;        /* event the record performs (or contributes to:
	                       barrier arrivals), or SIM_NONE                 */
	uint32_t wait;      /* wait of the record, or SIM_NONE                */
};

struct sim_pairs {
	uint32_t nev, nwait;
	struct sim_prec *rp; /* [nrec]                                        */
	uint32_t *ev_need;  /* [nev] contributions that complete it (1; a
	                       barrier group: its size)                       */
	uint32_t *ev_rec;   /* [nev] the record that performs it (a barrier
	                       group: its last arrival in the recording)      */
	uint32_t *ev_off;   /* [nev + 1] into ev_dep                          */
	uint32_t *ev_dep;   /* waits that need each event, ascending          */
	uint32_t *w_off;    /* [nwait + 1] into w_cond                        */
	uint32_t *w_cond;   /* events each wait needs; a cwait's signal first */
	uint32_t *w_rec;    /* [nwait] its record                             */
	uint32_t *w_th;     /* [nwait] its thread (dense)                     */
	uint32_t *th_wbase; /* [nthreads + 1] first wait of each thread       */
	uint32_t *th_ncut;  /* [nthreads] its acquisition waits (list starts
	                       in the client-server model)                    */
};

/* Build the index for `tr` (validated: pair[] as trace.h says).  Returns
 * 0, or -1 on allocation failure with *px zeroed.  Inconsistent pairs (a
 * hand-made trace) are skipped, never followed out of range. */
int sim_pairs_build(const struct trace *tr, struct sim_pairs *px);
void sim_pairs_release(struct sim_pairs *px);

#endif
