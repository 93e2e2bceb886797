/*
 * allocint.h - internals of the alloc module: the search context that every
 * algorithm receives, parallel evaluation, the history of tested
 * allocations, the random stream, and the table entries.
 *
 * An algorithm is a run function on a struct alloc_ctx.  It asks for
 * evaluations through alloc_evaluate (parallel, deterministic), and the
 * context keeps the best complete binding over every test, counts tests,
 * checks the budget and calls the progress callback.  The result of
 * alloc_run is the context's best binding, whatever the algorithm.
 */
#ifndef SHADOWBIND_ALLOCINT_H
#define SHADOWBIND_ALLOCINT_H

#include "alloc/alloc.h"

/* ---------------------------------------------------------------------
 * History: a set of complete allocations in canonical form, with the
 * result of their simulation.  Open addressing (linear probing) on a
 * 64-bit hash, keys stored packed in an arena.
 */
enum { ALLOC_H_PENDING = 0, ALLOC_H_SPECULATIVE, ALLOC_H_TESTED };

struct alloc_hentry {
	sim_time ms;      /* makespan (valid unless PENDING); with st =
	                     SIM_CUTOFF the cutoff: "more than ms"       */
	int8_t st;        /* sim status                                  */
	uint8_t state;    /* ALLOC_H_*                                   */
	uint8_t resim;    /* being simulated in the current batch        */
	uint32_t slot;    /* ... by this candidate of the batch          */
};

struct alloc_hist {
	uint32_t n;           /* threads                                 */
	uint32_t width;       /* bytes per label: 1, 2 or 4              */
	size_t keylen;        /* n * width                               */
	size_t cap;           /* slots, power of two                     */
	uint64_t *slot_hash;  /* [cap], 0 = empty                        */
	uint32_t *slot_idx;   /* [cap] entry index                       */
	size_t count, ecap;
	struct alloc_hentry *ent; /* [count]                             */
	uint8_t *keys;        /* [count * keylen]                        */
	uint32_t k;           /* processors                              */
	int32_t *map;         /* [k] scratch of alloc_hist_key, all -1   */
	size_t max_bytes;     /* memory cap (alloc_params.history_bytes);
	                         0: none                                  */
	int full;             /* an insertion was refused by the cap     */
};

int alloc_hist_init(struct alloc_hist *h, uint32_t n, uint32_t k,
                    size_t max_bytes);
/* Bytes the history holds now (tables and arenas). */
size_t alloc_hist_bytes(const struct alloc_hist *h);
void alloc_hist_release(struct alloc_hist *h);
/* Key of binding b (complete) into key[keylen]; returns its hash (!= 0). */
uint64_t alloc_hist_key(struct alloc_hist *h, const int32_t *b,
                        uint8_t *key);
/* Entry of key (with its hash), or -1. */
int64_t alloc_hist_find(const struct alloc_hist *h, const uint8_t *key,
                        uint64_t hash);
/* Insert a key known to be absent, state PENDING; returns the entry index,
 * -1 on allocation failure, or -2 when growing would pass max_bytes (the
 * key is not stored; h->full is set). */
int64_t alloc_hist_add(struct alloc_hist *h, const uint8_t *key,
                       uint64_t hash);

/* ---------------------------------------------------------------------
 * Random stream (splitmix64): deterministic from the seed.
 */
static inline uint64_t alloc_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
/* Uniform in [0, n), n >= 1 (multiply-shift; bias < n / 2^32). */
static inline uint32_t alloc_rand_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((alloc_rand(s) >> 32) * (uint64_t)n) >> 32);
}
/* Uniform in [0, 1). */
static inline double alloc_rand01(uint64_t *s)
{
	return (double)(alloc_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---------------------------------------------------------------------
 * The search context.
 */

/* Which evaluation mode is faster on this machine now (alloc.c). */
struct alloc_pmode {
	double per[2];    /* wall time per simulation: [0] one thread,
	                     [1] the OpenMP team; 0: unknown; units: s   */
	double last_try;  /* when the slower mode was last tried; s      */
	double try_cost;  /* how long that batch took; s                 */
	int trying;
};
struct alloc_ctx {
	const struct sim_program *prog;
	const struct trace *tr;
	const struct alloc_params *par;
	struct sim_params sim;  /* par->sim                                 */
	uint32_t n;             /* threads                                  */
	uint32_t k;             /* processors                               */
	const uint64_t *work;   /* [n] CPU work of each thread (the load
	                           bound, tabu's loads); units: trace unit */
	const uint64_t *time;   /* [n] binpacking's time of each thread
	                           (par->binpack_input; alloc_thread_times);
	                           units: trace unit                       */
	const uint32_t *order;  /* [n] threads by decreasing time, ties by
	                           increasing index (the binpacking order,
	                           SGA's)                                  */
	const int32_t *binpack; /* [n] binpacking's allocation under time */

	int nworkers;           /* OpenMP threads available                 */
	struct alloc_pmode pmode;
	struct sim_work **wk;   /* [nworkers]                               */

	uint64_t rng;           /* the random stream                        */
	struct alloc_hist hist; /* complete allocations simulated           */

	/* The best complete binding over all tests, in commit order. */
	int have_best;
	int32_t *best;          /* [n]                                      */
	sim_time best_ms;
	int best_st;

	uint64_t tests, sims, deadlocks, overflows, restarts;
	uint64_t max_tests;     /* UINT64_MAX: none                         */
	double t0, deadline;    /* monotonic seconds; deadline 0: none      */
	double ts;              /* when the first test began (after the
	                           set-up); 0: not yet                      */
	double last_progress;
	const char *phase;      /* the running algorithm, for progress      */
	enum alloc_stop stop;   /* set once the search must stop            */
	int enumerated;         /* exhaustive enumeration ran               */
	int complete;           /* ... and covered every canonical binding  */
	int error;              /* first hard error (ALLOC_E*), or 0        */

	/* Scratch of alloc_evaluate. */
	size_t scap;
	uint8_t *skeys;         /* [scap * keylen]                          */
	uint64_t *shash;        /* [scap]                                   */
	int64_t *sent;          /* [scap] history entry or -1               */
	uint32_t *srun;         /* [scap] indices to simulate               */
	int *sst;               /* [scap]                                   */
	sim_time *sms;          /* [scap]                                   */
	uint64_t *scut;         /* [scap] cutoff of each simulation         */
	uint64_t cutoffs;       /* evaluations stopped at their cutoff      */
	uint64_t pruned;        /* ... of which answered by the load bound,
	                           not simulated                            */
	uint8_t *sskip;         /* [scap] answered by the load bound        */
	unsigned __int128 *sload; /* [k] work per processor; trace units    */
};

/* An algorithm: fills the context's best through alloc_evaluate.  Returns
 * 0, or an ALLOC_E* code on a hard error.  `search`: 1 if the algorithm
 * runs until a budget stops it, so that alloc_default_budget applies when
 * the parameters give neither max_tests nor time_limit; 0 for the
 * constructive ones (binpack, sga, csga), whose test count is bounded. */
struct alloc_algorithm {
	const char *name;
	const char *summary;
	int (*run)(struct alloc_ctx *c);
	int search;
	int baseline;   /* 1: no binpacking floor (alloc_run); the binding
	                   asked for is the answer                        */
};

/*
 * The table, in the order --list-algorithms shows it.  Adding an algorithm
 * is adding alloc/alg_NAME.c, which defines
 *	const struct alloc_algorithm alloc_alg_NAME = {.name = "NAME",
 *		.summary = "...", .run = run, .search = 1, .baseline = 0};
 * and one line here.
 */
#define ALLOC_TABLE(X) \
	X(block)       \
	X(roundrobin)  \
	X(binpack)     \
	X(sga)         \
	X(csga)        \
	X(greedy)      \
	X(dsg)         \
	X(rgreedy)     \
	X(tabu)        \
	X(anneal)      \
	X(exhaustive)  \
	X(auto)

#define ALLOC_DECLARE(name) extern const struct alloc_algorithm alloc_alg_##name;
ALLOC_TABLE(ALLOC_DECLARE)
#undef ALLOC_DECLARE

/* Comparison of two results where a failed run (deadlock, overflow)
 * counts as infinitely long: -1, 0, 1.  SIM_CUTOFF ("more than a
 * cutoff") counts as failed too: callers cut only where every such result
 * is worse than what they compare it with. */
static inline int alloc_cmp(int sta, sim_time a, int stb, sim_time b)
{
	if (sta != SIM_OK || stb != SIM_OK)
		return (sta != SIM_OK) - (stb != SIM_OK);
	return sim_time_cmp(a, b);
}

/* How many speculative evaluations are worth drawing at once: the number
 * of OpenMP threads while the team is the faster mode (or due to be tried
 * again), else 1.  Only for algorithms whose result does not depend on it
 * (greedy, anneal). */
size_t alloc_width(const struct alloc_ctx *c);
/* The most alloc_width can return (for buffers). */
size_t alloc_width_max(const struct alloc_ctx *c);

/* 1 if binding b has no shadow thread. */
int alloc_complete(const struct alloc_ctx *c, const int32_t *b);

/*
 * alloc_evaluate - evaluate m bindings cand[m][n] (row-major) and set
 * st[i], ms[i] (either may be NULL... neither may be NULL).  Complete
 * bindings already in the history are answered from it; the others are
 * simulated in parallel (one sim_work per OpenMP thread) and, when
 * complete, added to it; duplicates within the batch are simulated once.
 * With `commit`, every binding is then committed as a test in order
 * (alloc_commit); without, complete ones stay speculative until the
 * algorithm commits them.  Returns 0 or a hard error (ALLOC_E*), also
 * recorded in c->error.
 */
int alloc_evaluate(struct alloc_ctx *c, const int32_t *cand, size_t m,
                   int commit, int *st, sim_time *ms);

/*
 * alloc_evaluate_cut - alloc_evaluate with a cutoff per binding (cut[i],
 * trace units; UINT64_MAX or cut NULL: none): a binding whose makespan is
 * above cut[i] may come back as st[i] = SIM_CUTOFF, ms[i] = cut[i] ("more
 * than that"), its simulation stopped early (sim_makespan_within: a run
 * that would deadlock may also come back so).  Only for callers to which every makespan above cut[i],
 * and a deadlock, mean the same (e.g. "worse than the best").  The history keeps such a result with its
 * cutoff; a later evaluation with a higher cutoff simulates it again (a
 * simulation, not a test).  alloc_cmp ranks SIM_CUTOFF as a failed run,
 * so it is never the best.  With par->no_cutoff, cut is ignored.
 */
int alloc_evaluate_cut(struct alloc_ctx *c, const int32_t *cand, size_t m,
                       int commit, const uint64_t *cut, int *st,
                       sim_time *ms);

/*
 * alloc_evaluate_pick - evaluate and commit m candidates (in order, as
 * alloc_evaluate with commit) for a caller that keeps only the first of
 * the shortest (alloc_cmp): the candidate with the least load bound is
 * simulated first, exactly; the others in increasing load bound (ties:
 * index), in rounds of alloc_width, each with a cutoff at the shortest
 * makespan found so far.  So the first of the shortest, and every
 * candidate that ties it, has its exact result; the others may be
 * SIM_CUTOFF (longer).  The result is that of alloc_evaluate.
 */
int alloc_evaluate_pick(struct alloc_ctx *c, const int32_t *cand, size_t m,
                        int *st, sim_time *ms);

/* The smallest integer >= t (the cutoff that keeps every makespan <= t
 * exact), or UINT64_MAX when st is not SIM_OK (nothing to cut at). */
uint64_t alloc_cut_at(int st, sim_time t);

/*
 * alloc_commit - count binding b (evaluated: st, ms) as a test, unless it
 * is complete and was already tested; update the best binding; call the
 * progress callback when due; set c->stop when the budget is spent.
 * Returns 1 if it counted as a new test, 0 if it had been tested before.
 */
int alloc_commit(struct alloc_ctx *c, const int32_t *b, int st, sim_time ms);

/* 1 if binding b (complete) has been committed as a test. */
int alloc_tested(struct alloc_ctx *c, const int32_t *b);
/* The history's state of complete binding b (ALLOC_H_*), or -1 if never
 * simulated; *st, *ms receive its result unless PENDING or -1. */
int alloc_lookup(struct alloc_ctx *c, const int32_t *b, int *st, sim_time *ms);

/* alloc_check - set c->stop if the budget (tests, time), the lower bound
 * or the progress callback says so; returns c->stop != DONE || error. */
int alloc_check(struct alloc_ctx *c);

/* Tests left in the budget (UINT64_MAX: unlimited). */
uint64_t alloc_room(const struct alloc_ctx *c);

/* Tests the rest of the search can afford: alloc_room, and with a time
 * limit also the time left divided by the wall time per test since the
 * first test began (the floor's, a cold-cache estimate).  For planning
 * only (auto); 0 once the deadline has passed. */
uint64_t alloc_room_planned(const struct alloc_ctx *c);

/* Seconds since alloc_run began. */
double alloc_elapsed(const struct alloc_ctx *c);

/* Run another table algorithm on the same context (for csga, auto): sets
 * the phase name for progress, then restores it. */
int alloc_run_phase(struct alloc_ctx *c, const struct alloc_algorithm *a);

/* A random binding: a uniform processor for every thread. */
void alloc_random_binding(struct alloc_ctx *c, int32_t *b);

/*
 * The greedy algorithm of Paper V Figure 1 from `init` (tested first
 * unless it was tested before), until stop_after consecutive tests without
 * improvement, the budget, or no untested neighbour can be found.  Used by
 * greedy, dsg and auto.  On return *why is ALLOC_STOP_CRITERION or
 * ALLOC_STOP_EXHAUSTED when the run ended by itself (c->stop still DONE),
 * else c->stop.  The run's best is in the context's best if it beats it.
 */
int alloc_greedy_from(struct alloc_ctx *c, const int32_t *init,
                      uint64_t stop_after, enum alloc_stop *why);

/* The SGA of Paper IV Section 4 (for sga, csga, auto): places the
 * threads; the context's best holds its final allocation. */
int alloc_sga_place(struct alloc_ctx *c, int32_t *out, int *st,
                    sim_time *ms);

/*
 * The tabu search of ours (alloc/alg_tabu.c) from the binding `init`
 * with a test budget of `budget` (UINT64_MAX: the context's).
 */
int alloc_tabu_from(struct alloc_ctx *c, const int32_t *init,
                    uint64_t budget);

#endif
