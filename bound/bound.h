/*
 * bound.h - the analytic bound of Paper VII (Broberg, Lundberg, Klonowska,
 * "A Method for Bounding the Minimal Completion Time in Multiprocessors")
 * and a proven lower bound: every allocation can be judged from both sides.
 *
 *   T(P,k,t) = min_A T(P,k,t,A) <= p(n,k,t,z,V) * T(P,n,0)      (Paper VII)
 *   lower <= T(P,k,t,A) for every binding A of the threads to k processors
 *
 * See docs/bound.md for the definitions (what a synchronization signal is in
 * our trace format, how V is measured, units, rounding) and the proofs.
 *
 * Arithmetic is exact: GMP rationals for p, s, r and the program
 * parameters, exact integers (128-bit or GMP) for the counting.
 *
 * No global state; every function may run in several threads at once on
 * different objects; const inputs may be shared.  Functions returning int
 * return BOUND_OK (0) or a negative BOUND_E* code and, on failure, leave
 * their out-parameters zeroed / released (see each function).
 */
#ifndef SHADOWBIND_BOUND_H
#define SHADOWBIND_BOUND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gmp.h>

#include "trace/trace.h"
#include "sim/sim.h"

enum {
	BOUND_OK = 0,
	BOUND_EINVAL = -1,    /* bad argument (n = 0, k = 0, V not a profile) */
	BOUND_ENOMEM = -2,
	BOUND_ETOOBIG = -3,   /* n above BOUND_MAX_THREADS, or brute force
	                         asked for n above BOUND_BRUTE_MAX            */
	BOUND_EDEADLOCK = -4, /* the trace deadlocks with one processor per
	                         thread: T(P,n,0) does not exist              */
	BOUND_ESIM = -5       /* the simulator failed (overflow, ...)         */
};
/* A static one-line description of a BOUND_E* code. */
const char *bound_strerror(int code);
/* The same code as one static word for a file's header (allocate's
 * `no_bound WORD`, docs/alloc.md): "deadlock", "too-many-threads",
 * "out-of-memory", "no-work" (BOUND_EINVAL: n = 0 or no work, where the
 * bound is undefined), "failed" (BOUND_ESIM or an unknown code). */
const char *bound_errword(int code);

/* Largest n (threads) the bound accepts: 2^31 - 1, so that n + 2 fits in
 * a uint32_t and an int, every loop `q <= n` over uint32_t ends, n(n-1)
 * (r's denominator, and sum a_i(a_i-1) <= n(n-1)) fits in a uint64_t
 * (< 2^62), and the arrays of n + 2 numbers (16 bytes each) have sizes
 * far inside size_t.  Nothing else grows with n but GMP numbers: the
 * counting keeps O(n) numbers (no (n+1)^2 table above BD_WIDE_MAX = 121
 * threads, and C(n,q) only up to the largest q with v_q != 0), so memory
 * runs out (BOUND_ENOMEM) long before this limit (docs/bound.md §9).
 * Was 4096 up to issue 20 item 5. */
#define BOUND_MAX_THREADS 0x7fffffffu
/* Largest n for brute-force enumeration of rows (2^n rows). */
#define BOUND_BRUTE_MAX 24u

/* ---------------------------------------------------------------------
 * Program parameters (Paper VII, Sections 2 and 7.1)
 */

struct bound_prog {
	uint32_t n;       /* threads (the paper's processes), >= 1           */
	mpq_t *v;         /* [n + 1] parallel profile: v[i] (1 <= i <= n) is
	                     the fraction of T(P,n,0) during which exactly i
	                     threads run; v[0] the fraction during which none
	                     runs (only sleeps are pending; 0 in the paper's
	                     model).  Each >= 0, sum = 1.                     */
	mpq_t z;          /* granularity: synchronization signals per unit of
	                     total work; units: 1 / time unit (trace unit)    */
	/* Filled from a trace only (0 in parameter mode): */
	mpq_t T;          /* T(P,n,0): simulated completion with one processor
	                     per thread and t = 0; units: trace unit          */
	uint64_t signals; /* synchronization signals (bound_signals)        */
	uint64_t work;    /* total work; units: trace unit                   */
	int model;        /* enum sim_model that gave T and V: the Direct
	                     model, or when the trace deadlocks under it with
	                     one processor per thread, the next model of the
	                     thesis's scheme that does not (client-server,
	                     then strict sequence), as simulate does          */
};

/* bound_prog_init - n threads, V = 0, z = T = 0.  Returns BOUND_OK,
 * BOUND_EINVAL (n = 0), BOUND_ETOOBIG or BOUND_ENOMEM (then *bp is zeroed
 * and needs no release). */
int bound_prog_init(struct bound_prog *bp, uint32_t n);
/* bound_prog_release - free what *bp owns and zero it; accepts zeroed. */
void bound_prog_release(struct bound_prog *bp);
/* bound_prog_check - BOUND_OK if every v[i] >= 0, sum v = 1, z >= 0;
 * else BOUND_EINVAL. */
int bound_prog_check(const struct bound_prog *bp);

/*
 * bound_signals - the number of synchronization signals of `tr`: the
 * paper's Activate -> Wait pairs, read in our format as "a release that is
 * acquired by a different thread" (docs/bound.md):
 *   - every `create` (the creator activates the child's start);
 *   - every acquisition whose recorded pairing (trace.pair) names a release
 *     record of another thread: join <- exit, lock/trylock ok <- unlock,
 *     wait/trywait ok <- post, cwait <- signal/broadcast, barrier <- the
 *     group's last arrival, rdlock/wrlock <- rwunlock.
 * Not counted: acquisitions with no releasing record (free mutex, initial
 * token), releases by the acquiring thread itself, releases nobody
 * acquires, sleeps.  If by_op is not NULL, by_op[op] receives the count per
 * acquiring op (create counted under TRACE_CREATE).
 */
uint64_t bound_signals(const struct trace *tr, uint64_t by_op[TRACE_NOPS]);

/*
 * bound_prog_from_trace - n, V, z, T(P,n,0), signals and work of `tr`.
 * T and V come from the simulator with one processor per thread, t = 0
 * (sim_run with binding NULL, SIM_SCHEDULE): v[i] is the total length of
 * the instants at which exactly i threads are running.  The model is
 * SIM_AUTO's: Direct, or the first model of the thesis's scheme that does
 * not deadlock (bp->model says which; strict sequence never deadlocks on
 * a valid trace).  *bp must be
 * zeroed or released; on success it is initialized (release it), on
 * failure it is zeroed.  Returns BOUND_OK, BOUND_EDEADLOCK, BOUND_ESIM,
 * BOUND_ETOOBIG, BOUND_ENOMEM, or BOUND_EINVAL (zero total work).
 */
int bound_prog_from_trace(const struct trace *tr, struct bound_prog *bp);

/* ---------------------------------------------------------------------
 * The functions of Paper VII, Section 4-6.  An allocation A is an array of
 * `a` processor loads (numbers of threads); any order, zeros allowed
 * (ignored); n = sum A.
 */

enum bound_method {
	BOUND_POLY = 0, /* counting polynomials (docs/bound.md), fastest     */
	BOUND_PAPER,    /* f and pi exactly as Paper VII, Section 4.4        */
	BOUND_BRUTE     /* enumerate all 2^n rows; n <= BOUND_BRUTE_MAX      */
};

/* bound_pi - pi(k,w,q,l) of Section 4.4.3: the number of ways to place q
 * ones in k sets of w slots such that the fullest set has exactly l ones.
 * *out must be initialized.  Returns BOUND_OK, BOUND_EINVAL (k = 0),
 * BOUND_ENOMEM (then *out = 0). */
int bound_pi(mpz_t out, uint32_t k, uint32_t w, uint32_t q, uint32_t l);

/* bound_f - f(A,q,l) of Section 4.4.2: the sum over all C(n,q) rows with q
 * ones of max(l, the largest number of ones on one processor).  *out must
 * be initialized.  Returns BOUND_OK, BOUND_EINVAL (n = 0, q > n or
 * l > BOUND_MAX_THREADS), BOUND_ETOOBIG (n > BOUND_MAX_THREADS; brute force with n >
 * BOUND_BRUTE_MAX; the paper's method when its memo tables would exceed
 * 2^24 entries), BOUND_ENOMEM (then *out = 0). */
int bound_f(mpz_t out, const uint32_t *A, uint32_t a, uint32_t q, uint32_t l,
            enum bound_method m);

/* bound_s - s(A,V) of Section 4.4.1 (with v[0] counted as time during which
 * no thread runs, which takes the same time under any allocation):
 *   s = v0 + sum_{q>=1} v_q f(A,q,0) / C(n,q).
 * bp->n must equal sum A.  *out must be initialized. */
int bound_s(mpq_t out, const struct bound_prog *bp, const uint32_t *A,
            uint32_t a, enum bound_method m);

/* bound_r - r(A,t,V) of Section 5:
 *   0 if n = 1, else (n(n-1) - sum a_i(a_i-1)) / (n(n-1)) * t * sum q v_q.
 * t in the time unit of z.  *out must be initialized. */
int bound_r(mpq_t out, const struct bound_prog *bp, const uint32_t *A,
            uint32_t a, const mpq_t t);

/* bound_value - s(A,V) + z r(A,t,V) (Section 6). */
int bound_value(mpq_t out, const struct bound_prog *bp, const uint32_t *A,
                uint32_t a, const mpq_t t, enum bound_method m);

/* bound_allocations - the number of allocations of n threads to k
 * processors as Paper VII counts them: partitions of n into at most k
 * parts (6,158,681 for n = 79, k = 16).  *out must be initialized. */
void bound_allocations(mpz_t out, uint32_t n, uint32_t k);

struct bound_opts {
	enum bound_method method; /* for s(A,V); default BOUND_POLY          */
	int lazy;                 /* lazy evaluation (Section 6.3); default 1 */
	int exhaustive;           /* 1: evaluate every allocation instead of
	                             branch-and-bound (for checking)         */
	uint64_t max_work;        /* work cap of the polynomial counting:
	                             coefficient multiply-adds, each weighted
	                             by 1 (128-bit path, n <= 121) or 1 + n/64
	                             (GMP path); deterministic.  Default
	                             BOUND_WORK_DEFAULT; 0: none            */
	double max_seconds;       /* time cap; units: s; 0 (default): none.
	                             With it the result depends on the
	                             machine's speed.                        */
};
/* The default work cap: 1-5 s of one core of the development machine
 * (2 x 10^8 to 10^9 units per second on the GMP path, depending on n);
 * every case of the test suite and bench/bound-speed's sieve sweep stays
 * far below it. */
#define BOUND_WORK_DEFAULT 1000000000ull
/* Defaults: BOUND_POLY, lazy, branch-and-bound, BOUND_WORK_DEFAULT, no
 * time cap. */
void bound_opts_init(struct bound_opts *o);

/* The result of bound_p. */
struct bound_pres {
	mpq_t p;             /* p(n,k,t,z,V) >= 1                            */
	uint32_t k;
	uint32_t *alloc;     /* [k] an allocation attaining p, non-increasing,
	                        zeros for unused processors (owned)          */
	uint64_t classes;    /* allocation classes whose value was computed
	                        (including complete allocations)             */
	uint64_t thick;      /* s(A,V) computations (distinct thick
	                        allocations: re-used values not counted)     */
	uint64_t complete;   /* complete allocations (single-member classes)
	                        among `classes`                              */
	uint64_t lazy_nodes; /* deferred child ranges created (Section 6.3) */
	mpz_t total;         /* all allocations (bound_allocations)         */
	uint64_t work;       /* counting work spent (bound_opts.max_work's
	                        unit)                                       */
	int capped;          /* 0: p is Paper VII's minimum.  Else the search
	                        stopped at a cap (BOUND_CAP_WORK or
	                        BOUND_CAP_TIME) and p is the value of the best
	                        complete allocation it had evaluated (alloc
	                        holds it), or of the one-processor allocation
	                        (= v0 + sum q v_q), or it did not start
	                        (BOUND_CAP_MEMORY) and p is the one-processor
	                        value: p >= Paper VII's minimum, so
	                        p T(P,n,0) is still an upper bound on the
	                        minimal completion time, only a weaker one  */
};
enum { BOUND_CAP_WORK = 1, BOUND_CAP_TIME = 2, BOUND_CAP_MEMORY = 3 };
/* The memory cap (BOUND_CAP_MEMORY): bound_p does not start a search
 * whose exact numbers would need more than about this many bits: the
 * common denominator's numerators, about 1.443 (n + 1) bits (the lcm of
 * the C(n,q)) for each q with v_q != 0, plus 3 (q_max + 1) n for the
 * rows of the counting.  It gives the one-processor value instead (p = v0
 * + sum q v_q, capped = BOUND_CAP_MEMORY).  Only many threads with many
 * distinct numbers running reach it: at n <= 4096 the estimate stays
 * below 2^27; a uniform profile over 1..20,001 (estimate 1.8 10^9 bits,
 * 118 MB measured) is still searched; over 1..25,000 it is not. */
#define BOUND_MEMORY_CAP_BITS 2147483648.0
/* "minimal", "stopped at work cap", "stopped at time cap", "stopped at
 * memory cap". */
const char *bound_cap_name(int capped);
/* bound_pres_release - free what *r owns and zero it; accepts zeroed. */
void bound_pres_release(struct bound_pres *r);

/*
 * bound_p - p(n,k,t,z,V) = min_A (s(A,V) + z r(A,t,V)) over all
 * allocations of bp->n threads to at most k processors, by allocation
 * classes, best-first branch-and-bound and (o->lazy) lazy evaluation
 * (Sections 6.1-6.3), or by exhaustive enumeration (o->exhaustive).
 * t: latency, in the time unit of bp->z (t >= 0).  o may be NULL
 * (defaults).  *out must be zeroed or released; on success it is filled
 * (release it); on failure zeroed.  Returns BOUND_OK, BOUND_EINVAL,
 * BOUND_ETOOBIG, BOUND_ENOMEM.  A cap (o->max_work, o->max_seconds)
 * never fails: the result then says so (out->capped).
 */
int bound_p(const struct bound_prog *bp, uint32_t k, const mpq_t t,
            const struct bound_opts *o, struct bound_pres *out);

/* ---------------------------------------------------------------------
 * Lower bound: no binding of the trace's threads to k processors (no
 * shadow processors), under any policy, latency and costs of the
 * simulator, completes before it.
 */

struct bound_lower {
	uint64_t work_max;     /* the largest thread's work; trace units      */
	uint64_t part_lb;      /* proven lower bound on the optimum of
	                          partitioning the threads' work over k
	                          processors (P||Cmax); trace units           */
	uint64_t part_ub;      /* the busiest processor of the best partition
	                          found; part_lb == part_ub when optimal      */
	int part_ilp;          /* 1 if GLPK was run (0: solved by the trivial
	                          bounds and LPT, or n <= k, or k = 1)        */
	int part_timeout;      /* 1 if GLPK stopped at the time limit: part_lb
	                          is the proven bound it reached              */
	sim_time path;         /* critical path of the program with the
	                          synchronizations whose order can change
	                          dropped (docs/bound.md); trace units        */
	int path_relaxed;      /* 0: nothing dropped, path = T(P,n,0)         */
	int path_deadlock;     /* 1: the relaxed program deadlocks under the
	                          Direct model with one processor per thread;
	                          path is 0 (not part of lower)             */
	uint64_t path_dropped; /* records dropped                             */
	sim_time lower;        /* max(work_max, part_lb, path)                */
	int part_itercap;      /* 1 if GLPK stopped at the iteration cap
	                          (bound_lower_capped): part_lb is the proven
	                          bound it reached; deterministic            */
};

/*
 * bound_lower - the lower bound for `tr` on k processors.  ilp_ms: time
 * limit for GLPK in milliseconds (0: 1000).  On failure *out is zeroed.
 * If GLPK stops early for any reason, the bound it had proven is used
 * (never less than the trivial bounds).  Returns BOUND_OK, BOUND_EINVAL
 * (k = 0), BOUND_EDEADLOCK (the relaxed program deadlocks: cannot happen
 * for a valid trace), BOUND_ESIM, BOUND_ENOMEM.
 */
int bound_lower(const struct trace *tr, uint32_t k, uint32_t ilp_ms,
                struct bound_lower *out);
/* The same with a deterministic cap on GLPK as well: ilp_iters simplex
 * iterations in all, root relaxation and branch-and-bound together
 * (checked at every call of GLPK's search callback, i.e. at least once
 * per node); 0: no cap.  Stopped there, out->part_itercap
 * = 1 and part_lb is the bound GLPK had proven (never below the trivial
 * bounds); unlike the time limit, the result does not depend on the
 * machine.  bound_lower is bound_lower_capped with ilp_iters = 0. */
int bound_lower_capped(const struct trace *tr, uint32_t k, uint32_t ilp_ms,
                      uint64_t ilp_iters, struct bound_lower *out);
/* bound_lower_capped's two parts: bound_lower_partition fills work_max
 * and the partition fields, lower = max(work_max, part_lb) and path 0
 * (on failure *out is zeroed); bound_lower_path then adds the relaxed
 * critical path (path, path_relaxed, path_dropped) and raises lower to it
 * (on failure *out is zeroed). */
int bound_lower_partition(const struct trace *tr, uint32_t k, uint32_t ilp_ms,
                          uint64_t ilp_iters, struct bound_lower *out);
int bound_lower_path(const struct trace *tr, struct bound_lower *out);

/*
 * bound_partition - the P||Cmax part alone: lower bound *lb and best found
 * *ub on the largest sum when the n values w[] are split into k groups.
 * *timeout = 1 if GLPK hit the limit, *ilp = 1 if it ran.  ilp_ms: GLPK's
 * time limit in milliseconds (0: 1000).  Returns BOUND_OK, BOUND_EINVAL
 * (k = 0) or BOUND_ENOMEM (then all four are 0).
 */
int bound_partition(const uint64_t *w, uint32_t n, uint32_t k, uint32_t ilp_ms,
                    uint64_t *lb, uint64_t *ub, int *ilp, int *timeout);
/* The same with GLPK capped at ilp_iters simplex iterations in all (0: no
 * cap); *itercap = 1 if it stopped there. */
int bound_partition_capped(const uint64_t *w, uint32_t n, uint32_t k,
                          uint32_t ilp_ms, uint64_t ilp_iters, uint64_t *lb,
                          uint64_t *ub, int *ilp, int *timeout, int *itercap);

/*
 * bound_relaxed_trace - a copy of `tr` in which every record whose
 * synchronization order can change with timing (docs/bound.md: mutexes,
 * condition variables, read-write locks, semaphores waited on by more
 * than one thread, barriers not used by exactly N threads equally often)
 * is dropped, its work added to its thread's next record (what a `sleep
 * 0` in its place would do, in fewer events).  The records are
 * renumbered (threads[], pair[] follow; loc is NULL).  Returns NULL on
 * allocation failure; *dropped receives the number of dropped records.
 * Free with bound_relaxed_trace_free (it shares the strings and object
 * arrays of tr: tr must outlive it).
 */
struct trace *bound_relaxed_trace(const struct trace *tr, uint64_t *dropped);
void bound_relaxed_trace_free(struct trace *rt);

/* ---------------------------------------------------------------------
 * One call for allocation tools.
 */

struct bound_result {
	uint32_t n, k;
	uint64_t latency;    /* t; units: trace unit                          */
	double z;            /* signals per trace unit of work               */
	double T;            /* T(P,n,0); trace units                        */
	double p;            /* p(n,k,t,z,V), rounded up to 1e-9             */
	double bound;        /* p * T; trace units                           */
	double lower;        /* the lower bound; trace units                 */
	int lower_exact_partition; /* the P||Cmax part was proven optimal    */
	char bound_str[48];  /* bound as bin/bound prints it (rounded up to
	                        3 decimals)                                  */
	char lower_str[48];  /* lower as bin/bound prints it (exact integer,
	                        else rounded down to 3 decimals)             */
	uint64_t lower_any;  /* max(largest thread's work, partition bound):
	                        the part of `lower` that holds under every
	                        simulation model (the critical-path part does
	                        not hold for client-server, whose lists may
	                        run out of order); trace units              */
	int part_timeout;    /* GLPK stopped at its time limit (the partition
	                        part is the bound it had proven; depends on
	                        the machine)                                 */
	int part_itercap;    /* GLPK stopped at its iteration cap (the same, but
	                        deterministic)                               */
	uint64_t classes, thick; /* evaluation counts of bound_p             */
	uint64_t work;       /* bound_p's counting work (bound_pres.work)    */
	int capped;          /* bound_pres.capped: 0, or the bound is that of
	                        the best allocation evaluated before the cap
	                        (still an upper bound on the best binding,
	                        weaker than Paper VII's minimum);
	                        bound_cap_name says which                   */
};

/* Limits of bound_for_trace_opts (the one call for allocation tools). */
struct bound_trace_opts {
	uint64_t max_work;   /* bound_opts.max_work for p (0: none)          */
	double max_seconds;  /* bound_opts.max_seconds for p; units: s
	                        (0: none)                                    */
	uint32_t ilp_ms;     /* GLPK's time limit for the lower bound (a last
	                        resort: the result then depends on the
	                        machine); units: ms; 0: 1000                 */
	uint64_t ilp_iters;  /* GLPK's deterministic cap: simplex iterations
	                        (bound_lower_capped);
	                        0: none                                      */
};
/* For a header next to a search of about a second: p capped at
 * BOUND_WORK_QUICK (about 0.1 s) and 0.1 s, GLPK at 100 ms. */
#define BOUND_WORK_QUICK 20000000ull
void bound_trace_opts_init(struct bound_trace_opts *o);

/*
 * bound_trace_opts_budget - limits proportional to a search of `tests`
 * tests of `tr` (docs/bound.md, "The header's share"): the search
 * simulates about tests x (records + 4 threads + 16) record-equivalents
 * (alloc_default_budget's measure), and the header gets a tenth of that,
 * converted with constants measured on the development machine:
 * BOUND_UNITS_PER_REC counting units and one GLPK simplex
 * iteration (with its share of the branch-and-bound around it) for
 * BOUND_GLPK_COST x threads x k record-equivalents, out of what the
 * uncapped parts (BOUND_FIXED_PER_REC per record) leave of the share.
 * Every limit is a work count, so the header's values depend only on the trace, k and
 * `tests`, never on timing (max_seconds 0; ilp_ms 1000 stays as the last
 * resort).  tests = 0: no caps at all (Paper VII's minimum, GLPK to
 * optimality or its time limit).
 */
#define BOUND_UNITS_PER_REC 40u
#define BOUND_GLPK_COST 20u /* docs/bound.md §8: 0.17 us per column-iteration */
#define BOUND_FIXED_PER_REC 14u /* docs/bound.md §8: the uncapped parts */
void bound_trace_opts_budget(struct bound_trace_opts *o, const struct trace *tr,
                             uint32_t k, uint64_t tests);

/*
 * bound_for_trace - n, V, z, T(P,n,0), p, bound = p T(P,n,0) and the lower
 * bound of `tr` on k processors with latency `latency` (trace units), with
 * the polynomial method, lazy branch-and-bound, and the limits of
 * bound_trace_opts_init (p's counting capped: out->capped says when it
 * stopped there; GLPK limited to 100 ms).  On failure *out is zeroed.  Returns as
 * bound_prog_from_trace, bound_p and bound_lower.
 */
int bound_for_trace(const struct trace *tr, uint32_t k, uint64_t latency,
                    struct bound_result *out);
/* The same with explicit limits (o NULL: bound_trace_opts_init's).
 * bound_for_trace uses bound_trace_opts_init's limits. */
int bound_for_trace_opts(const struct trace *tr, uint32_t k, uint64_t latency,
                         const struct bound_trace_opts *o,
                         struct bound_result *out);

/*
 * The two halves of bound_for_trace_opts, for a caller that needs the
 * lower bound before a search and the analytic bound only after it (and
 * may compute it on another thread meanwhile: the two share nothing but
 * the read-only trace).
 * bound_for_trace_lower fills k, latency, lower_any (the part a search
 * may stop at), lower_exact_partition, part_timeout, part_itercap, and
 * lower/lower_str provisionally as lower_any; it zeroes the rest; on
 * failure *out is zeroed.  bound_for_trace_upper then adds the relaxed
 * critical path to lower/lower_str and fills n, z, T, p, bound, bound_str
 * and the counting fields of an *out that bound_for_trace_lower filled for
 * the same k and latency (else BOUND_EINVAL); on failure it leaves *out as
 * it was.  Together they give exactly bound_for_trace_opts's result.
 */
int bound_for_trace_lower(const struct trace *tr, uint32_t k, uint64_t latency,
                          const struct bound_trace_opts *o, struct bound_result *out);
int bound_for_trace_upper(const struct trace *tr, uint32_t k, uint64_t latency,
                          const struct bound_trace_opts *o, struct bound_result *out);

/* ---------------------------------------------------------------------
 * Formatting (the rules of docs/bound.md, "Printed values").
 */

/* Decimal of q with `digits` decimals, rounded: dir < 0 down, 0 nearest
 * (half away from zero), > 0 up.  Integers are written without a point.
 * Returns buf (truncated to len). */
char *bound_qfmt(const mpq_t q, int digits, int dir, char *buf, size_t len);

#endif
