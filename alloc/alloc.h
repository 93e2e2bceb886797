/*
 * alloc.h - allocation of threads to processors (docs/alloc.md): search for
 * the binding with the shortest simulated completion time, using the
 * simulator (sim.h) as the evaluation oracle.
 *
 * The algorithms are pluggable entries of one table (name, summary, run
 * function; alloc/alg_NAME.c each): the baselines block and roundrobin
 * (Paper VII), binpack, sga, csga (Paper IV), greedy, dsg (Paper V), our
 * own, and auto (the default).
 *
 * Vocabulary.  A *test* is the evaluation of one allocation by the
 * simulator on behalf of the search, as in the papers: the numbers of
 * tests reported and budgeted are these.  A *simulation* is any sim_run,
 * also the speculative ones that parallel evaluation wastes and the
 * reference runs for the report (binpacking, one processor).
 *
 * Determinism: for the same program, parameters and seed, alloc_run gives
 * the same binding, makespan and test count whatever the number of
 * OpenMP threads (omp_set_num_threads / OMP_NUM_THREADS) -- unless a time
 * limit stops the search, which then depends on the machine's speed.
 *
 * Thread safety: no global state; alloc_run may be called from several
 * threads at once (each call uses OpenMP for its own evaluations).
 */
#ifndef SHADOWBIND_ALLOC_H
#define SHADOWBIND_ALLOC_H

#include <stddef.h>
#include <stdint.h>


#include "sim/sim.h"

/* Return codes of alloc_run. */
enum {
	ALLOC_OK = 0,
	ALLOC_DEADLOCK = 1, /* every complete binding tested deadlocked   */
	ALLOC_EINVAL = -1,  /* bad parameters (unknown algorithm, k = 0,
	                       unbound mode, ...)                         */
	ALLOC_ENOMEM = -2,
	ALLOC_ESIM = -3,    /* the simulator failed on every binding
	                       tested (exact-time overflow), or rejected
	                       the parameters                             */
	ALLOC_EMPI = -4     /* alloc_run_ranks: the message passing
	                       between MPI ranks failed                   */
};

/* Why a search stopped (alloc_result.stop). */
enum alloc_stop {
	ALLOC_STOP_DONE = 0,   /* the algorithm finished by itself        */
	ALLOC_STOP_CRITERION,  /* stop_after tests without improvement    */
	ALLOC_STOP_TESTS,      /* max_tests reached                       */
	ALLOC_STOP_TIME,       /* time_limit reached                      */
	ALLOC_STOP_LOWER,      /* the best makespan reached params.lower  */
	ALLOC_STOP_EXHAUSTED,  /* no untested allocation left to try      */
	ALLOC_STOP_CANCELLED   /* the progress callback asked to stop     */
};
const char *alloc_stop_name(enum alloc_stop s); /* "stop criterion", ... */

/* What the progress callback sees. */
struct alloc_progress {
	const char *algorithm; /* the algorithm or phase running now       */
	uint64_t tests;        /* tests so far                             */
	uint64_t sims;         /* simulations so far                       */
	int have_best;         /* 1 once a complete binding has a makespan */
	sim_time best;         /* best makespan so far; units: trace unit  */
	double elapsed;        /* since alloc_run began; units: s          */
};

/*
 * Progress callback: called from the thread that called alloc_run, at most
 * every params.progress_interval seconds, and once at the end.  Return 0
 * to continue, non-zero to stop the search (it ends with the best binding
 * found so far; stop = ALLOC_STOP_CANCELLED).
 */
typedef int (*alloc_progress_fn)(void *arg, const struct alloc_progress *p);

/*
 * Observer: called once per simulation of the search (not for the
 * one-processor reference), from the calling thread, in a deterministic
 * order, with the binding simulated (dense threads, TRACE_SHADOW allowed),
 * the simulator's status and the makespan.  For tests and tracing.  With
 * an observer the search uses no cutoffs (alloc_params.no_cutoff): every
 * simulation runs to its end, in candidate order, once per allocation,
 * as observers of trajectories expect.
 */
typedef void (*alloc_observe_fn)(void *arg, const int32_t *binding,
                                 uint32_t nthreads, int status,
                                 sim_time makespan);

/*
 * What binpacking is told about each thread (docs/alloc.md, "Binpacking's
 * input"): the time by which it orders the threads and loads the
 * processors.  Every algorithm that uses binpacking uses it: the floor
 * under every search, binpack, csga, greedy's and dsg's start, and SGA's
 * order (Paper IV Section 4: "beginning with the longest executing
 * thread", the same time as binpacking's).  Each is exact, in trace
 * units.
 *   ALLOC_INPUT_WORK      the thread's CPU work (the sum of its work
 *                         records): the default, and the strongest
 *                         baseline (it is what a thread costs a
 *                         processor, whatever else runs there).
 *   ALLOC_INPUT_LIFETIME  creation to exit when the trace is simulated on
 *                         one processor under fifo (each thread runs
 *                         until it blocks, as the one-processor recording
 *                         ran): what Solaris `tha` reported as "the total
 *                         execution time of each thread" (Papers IV, V).
 *   ALLOC_INPUT_ELAPSED   start to exit under dynamic scheduling on the
 *                         target machine (k processors, unbound mode, its
 *                         policy).
 */
enum alloc_input {
	ALLOC_INPUT_WORK = 0,
	ALLOC_INPUT_LIFETIME,
	ALLOC_INPUT_ELAPSED
};
/* The names, for messages. */
#define ALLOC_INPUT_SYNTAX "work, lifetime, elapsed"
/* "work", "lifetime", "elapsed" ("?" for another value). */
const char *alloc_input_name(enum alloc_input in);
/* The reverse of alloc_input_name: 0, or -1 leaving *out unaltered. */
int alloc_parse_input(const char *s, enum alloc_input *out);

#define ALLOC_NAME_MAX 32
/* Default memory cap of the history: 256 MiB (about 2.5 million tests of
 * a 64-thread program). */
#define ALLOC_HISTORY_BYTES ((size_t)256 << 20)

/* The default of alloc_params.unbound_margin; units: percent.  A binding
 * and the unbound run are both predicted, each off by the calibrated
 * model's error in either direction: twice its mean error on 2 CPUs
 * over the idle 31-program suite of bench/validate (6.5%, 2026-11-26
 * 17:52; docs/sim.md, "Machine files"). */
#define ALLOC_UNBOUND_MARGIN 13.0

struct alloc_params {
	struct sim_params sim;  /* the machine: cpus, policy, latency, costs
	                           (mode must be SIM_BOUND)                */
	char algorithm[ALLOC_NAME_MAX]; /* table name; "" means "auto"     */
	uint64_t seed;          /* random stream of the randomized searches */
	uint64_t stop_after;    /* greedy/dsg stop criterion: consecutive
	                           tests without improvement (default 100,
	                           Paper V); 0: never                       */
	uint64_t max_tests;     /* test budget; 0: the algorithm's default
	                           (alloc_default_budget for the searches
	                           that need one)                           */
	double time_limit;      /* units: s; 0: none.  Results then depend
	                           on the machine's speed.                  */
	uint32_t restarts;      /* dsg: at most this many restarts; 0: as
	                           many as the budget allows.  rgreedy: the
	                           number of runs; 0: 10 (Paper V Fig. 3).
	                           greedy, anneal, tabu, auto: R >= 2 runs
	                           R independent searches, each with its
	                           share of the budget, the best kept
	                           (alloc_run_share); 0 or 1: one search.
	                           The other algorithms ignore it.         */
	int random_start;       /* greedy, anneal, tabu, auto: start from a
	                           random allocation (from seed) instead of
	                           binpacking's (greedy) or csga's (the
	                           others); auto still enumerates when its
	                           budget covers every allocation.  Set for
	                           every independent search but the first. */
	sim_time lower;         /* a proven lower bound on the makespan
	                           (bound module); the search stops when it
	                           reaches it.  {0, 1}: unknown.            */
	alloc_progress_fn progress;
	void *progress_arg;
	double progress_interval; /* units: s (default 0.1)                 */
	alloc_observe_fn observe;
	void *observe_arg;
	size_t history_bytes;   /* memory cap of the history of tested
	                           allocations; units: bytes; default
	                           ALLOC_HISTORY_BYTES; 0: none.  When full,
	                           new allocations are still tested but no
	                           longer remembered (result.history_full) */
	int no_cutoff;          /* 1: never stop a simulation early (for
	                           measurements: results are identical
	                           either way, only slower); implied by an
	                           observer.  Default 0: the searches stop
	                           a test's simulation once it provably
	                           cannot change the search
	                           (sim_makespan_within, docs/alloc.md)     */
	enum alloc_input binpack_input; /* binpacking's per-thread time
	                           (above); default ALLOC_INPUT_WORK        */
	uint32_t width;         /* allocations greedy, dsg and anneal draw
	                           speculatively at once (their results do
	                           not depend on it); 0: the OpenMP threads
	                           while parallel evaluation pays, else 1.
	                           For tests.                               */
	double unbound_margin;  /* units: percent (default
	                           ALLOC_UNBOUND_MARGIN): a binding not
	                           predicted at least this much faster than
	                           the program left unbound is not worth
	                           binding (result.run_unbound)            */
};

/* alloc_params_init - defaults: sim_params_init, algorithm "auto", seed 1,
 * stop_after 100, no budget, no time limit, no restart limit, no lower
 * bound, no callbacks, history capped at ALLOC_HISTORY_BYTES, unbound
 * margin ALLOC_UNBOUND_MARGIN. */
void alloc_params_init(struct alloc_params *p);

struct alloc_result {
	uint32_t nthreads;
	uint32_t cpus;         /* k                                         */
	int32_t *binding;      /* [nthreads] processor 0..k-1 of each dense
	                          thread (owned; alloc_result_release)     */
	int status;            /* SIM_OK, or SIM_DEADLOCK when even the
	                          best binding deadlocks                   */
	sim_time makespan;     /* of binding; units: trace unit            */
	sim_time binpack;      /* makespan of the binpacking allocation    */
	enum alloc_input binpack_input; /* what binpacking was told      */
	int binpack_status;    /* its sim status                           */
	sim_time serial;       /* makespan on one processor (k = 1)        */
	int serial_status;
	/* Under a machine model (par->sim.machine) with k >= 2: the program
	 * predicted left unbound (the OS's scheduling: the same policy,
	 * model, pool and machine), so that the caller can tell whether
	 * the binding beats leaving it to the OS (docs/sim.md, "Machine
	 * files").  has_unbound 1 when `unbound` holds it (its simulation
	 * returned SIM_OK); 0 otherwise (no machine model, k = 1, or a
	 * deadlock), `unbound` then 0.  Not counted in `sims` (a
	 * prediction beside the search, as the caller's own would be).
	 * Its model is the one asked for (par->sim.model), as `simulate
	 * --unbound` with the same options: under SIM_AUTO Paper VIII's
	 * scheme on the unbound run itself (Direct, on deadlock
	 * client-server, then strict), so it may differ from `model`, the
	 * search's (pigz: Direct wakes another waiter than the recording
	 * did and deadlocks unbound, not under binpacking's binding). */
	int has_unbound;
	sim_time unbound;      /* units: trace unit                        */
	int unbound_run;       /* 1: the unbound simulation was run (a
	                          machine model and k >= 2), 0: not      */
	int unbound_status;    /* its sim_run status (SIM_OK when
	                          has_unbound; SIM_DEADLOCK: deadlocked
	                          under the model asked for, or under each
	                          of the scheme's); 0 without unbound_run */
	enum sim_model unbound_model; /* the model that produced it (never
	                          SIM_AUTO; the last one tried when it
	                          failed); SIM_DIRECT without unbound_run */
	/* 1: has_unbound, and either the binding is not predicted at
	 * least par->unbound_margin percent faster than unbound ((unbound -
	 * makespan) / unbound): within the model's error, so leave the
	 * program to the OS; or it puts threads on fewer processors than
	 * min(nthreads, cpus) (cpus_used), where the OS would spread
	 * them: such a binding gains only hand-offs between processors,
	 * and what sharing a processor costs beyond the recorded work
	 * (the context switches at every hand-off of a program recorded
	 * with a processor per thread) the model does not charge (NAS SP,
	 * both threads on one CPU: predicted 35% and 69% faster than the
	 * OS, ran 2.6 and 3.9 times slower; docs/sim.md, "Machine files").
	 * 0 otherwise
	 * (also without has_unbound). */
	int run_unbound;
	double unbound_margin; /* units: percent: par->unbound_margin,
	                          which run_unbound was decided by (0
	                          without has_unbound)                    */
	uint32_t cpus_used;    /* processors the binding puts a thread on
	                          (0 without a binding)                   */
	uint64_t tests;        /* tests (see above)                        */
	uint64_t sims;         /* simulations, all kinds                   */
	uint64_t deadlocks;    /* tests that deadlocked before a cutoff
	                          stopped them (docs/alloc.md)             */
	uint64_t restarts;     /* dsg/auto restarts; rgreedy: runs - 1     */
	enum alloc_stop stop;
	double seconds;        /* wall time of alloc_run; units: s         */
	const char *algorithm; /* the table name run (static string)       */
	enum sim_model model;  /* the model every test used: par->sim.model,
	                          or under SIM_AUTO the model the scheme
	                          chose for binpacking's allocation          */
	int history_full;      /* 1 if the history reached its memory cap
	                          (params.history_bytes): allocations
	                          first tested after that were not
	                          remembered, and may have been tested (and
	                          counted) again                            */
	size_t history_bytes;  /* memory the history held at the end; bytes */
	uint64_t cutoffs;      /* evaluations stopped early at a cutoff
	                          (params.no_cutoff)                        */
	uint64_t pruned;       /* ... of which answered without simulation:
	                          the busiest processor's work alone passed
	                          the cutoff (not counted in sims)          */
	int enumerated;        /* 1 if exhaustive enumeration ran (as the
	                          algorithm or as auto's choice)           */
	uint32_t restart;      /* independent searches (restarts >= 2):
	                          the index of the one whose binding this
	                          is; 0 otherwise                          */
	int complete;          /* 1 if that enumeration tested every
	                          canonical binding (the result is the
	                          optimum under this model); 0 if a budget,
	                          the time limit, the lower bound or a
	                          cancel stopped it early, or if nothing
	                          was enumerated                           */
};

/*
 * alloc_run - search a binding of program `p`'s threads to par->sim.cpus
 * processors with the algorithm par->algorithm.
 *
 * The floor: every algorithm but the baselines (alloc_algorithm_baseline:
 * block, roundrobin) first tests binpacking's allocation (one test, within
 * max_tests), so whatever stops the search (test budget, time limit, the
 * progress callback cancelling) the result is at least as good as
 * binpacking's.
 *
 * Returns ALLOC_OK and fills *res (release with alloc_result_release);
 * ALLOC_DEADLOCK when every complete binding tested deadlocked (*res is
 * filled: the binpacking binding, status SIM_DEADLOCK); on a negative
 * code *res is zeroed.
 */
int alloc_run(const struct sim_program *p, const struct alloc_params *par,
              struct alloc_result *res);

/* alloc_result_release - free what *r owns and zero it; accepts zeroed. */
void alloc_result_release(struct alloc_result *r);

/* ---------------------------------------------------------------------
 * Independent searches (alloc/restarts.c): par->restarts = R >= 2 with
 * greedy, anneal, tabu or auto (alloc_restartable).
 *
 * Search i of R (0 <= i < R) is alloc_run with the same parameters but
 * seed alloc_restart_seed(par->seed, i), random_start = (i > 0), restarts
 * 0, and max_tests its share of the budget: B / R, plus one for i < B mod
 * R (at least 1), where B is par->max_tests or, without a test budget
 * and without a time limit, alloc_default_budget -- so R searches make as
 * many tests as one search would.  With a time limit, each search of a
 * process gets the time left divided by the searches it has left.  Each
 * search tests binpacking's allocation first (the floor), so the best is
 * never worse than binpacking's.  The best is the first by (status,
 * makespan, search index): the same whatever order or process the
 * searches ran in, so the result (binding, makespan, tests summed) is the
 * same bit for bit for any number of processes (alloc/mpi.c) or OpenMP
 * threads, unless a time limit stopped a search.
 */

/* 1 if par->restarts >= 2 and the algorithm is one that restarts. */
int alloc_restartable(const struct alloc_params *par);

/* alloc_restart_seed - the seed of search i: seed itself for i = 0, else
 * a splitmix64 mix of seed and i. */
uint64_t alloc_restart_seed(uint64_t seed, uint32_t i);

/*
 * alloc_run_share - run the searches first, first + stride, ... < R of
 * par->restarts = R (one search, alloc_run, when !alloc_restartable(par)
 * and first == 0; none when first >= R), keeping the best in *res
 * (res->restart its index): tests, simulations, deadlocks, cutoffs summed,
 * restarts = the searches' restarts + the searches after the first, stop =
 * ALLOC_STOP_CANCELLED if a search was cancelled (the later searches are
 * then not run), else ALLOC_STOP_TIME if one ran out of time, else the
 * best search's.  A process
 * without a search gets ALLOC_OK and a zeroed *res (binding NULL).
 * Returns as alloc_run.  The progress callback sees the tests of the
 * searches before the current one added, and the best of them all.
 */
int alloc_run_share(const struct sim_program *p,
                    const struct alloc_params *par, uint32_t first,
                    uint32_t stride, struct alloc_result *res);

/*
 * alloc_result_merge - fold *b (a search's result, its restart index set)
 * into *a, as alloc_run_share does: *a keeps the better binding of the
 * two (the first by status, makespan, restart index) with its
 * cpus_used and run_unbound, the sums, and the stop rule above; *b is
 * released.  *a may be zeroed (it then takes *b).
 */
void alloc_result_merge(struct alloc_result *a, struct alloc_result *b);

/* ---------------------------------------------------------------------
 * MPI (alloc/mpi.c, built with ALLOC_MPI when alloc/module.mk finds
 * mpicc; without it the one-process case): the independent searches
 * dealt over the ranks of mpirun, OpenMP inside each rank.
 */

/* 1 if this build has MPI. */
int alloc_mpi_available(void);
/* 1 if the process was started by mpirun (the environment says so). */
int alloc_mpi_launched(void);
/* MPI_Init_thread (MPI_THREAD_SERIALIZED asked; MPI_Query_thread says
 * what was given) with MPI_ERRORS_RETURN, Open MPI's shared-memory copies
 * without CMA unless OMPI_MCA_btl_vader_single_copy_mechanism is set; 0
 * or -1 (also without MPI in the build).  *rank and *size: this process
 * and all (0 and 1 on failure). */
int alloc_mpi_init(int *argc, char ***argv, int *rank, int *size);
/* MPI_Finalize when initialised and not finalised. */
void alloc_mpi_finalize(void);
/* MPI_Abort of every rank with exit status code (after reporting). */
void alloc_mpi_abort(int code);

/*
 * alloc_run_ranks - every rank calls it (after alloc_mpi_init): rank r
 * runs the searches r, r + size, ... (alloc_run_share), then every rank's
 * best and sums go to rank 0, which merges them (alloc_result_merge):
 * rank 0's *res is the result of all R searches, the same as alloc_run's
 * in one process.  Without restarts (alloc_restartable 0) rank 0 runs
 * the one search and the others none.  The other ranks' *res is their
 * own part (release it).  Returns as alloc_run on rank 0 (the first
 * failure of any rank, by rank; err names the rank and MPI's message
 * when the message passing itself failed: ALLOC_ESIM is not used for it,
 * ALLOC_EMPI is); without MPI (or size 1) it is alloc_run.
 */
int alloc_run_ranks(const struct sim_program *p,
                    const struct alloc_params *par, struct alloc_result *res,
                    char *err, size_t errlen);

/*
 * alloc_default_budget - the test budget of the searches when neither
 * max_tests nor time_limit is given: a fixed amount of simulated work,
 * so that the default run takes about a second for a 64-thread program of
 * the transactions family, at least 200 and at most 20000 tests.
 * Depends only on the trace, never on the machine.
 */
uint64_t alloc_default_budget(const struct trace *tr);

/* ---------------------------------------------------------------------
 * The algorithm table.
 */
size_t alloc_algorithm_count(void);
/* Name and one-line summary of entry i < alloc_algorithm_count(), or
 * NULL. */
const char *alloc_algorithm_name(size_t i);
const char *alloc_algorithm_summary(size_t i);
/* 1 if entry i is a baseline: it returns its own binding, without the
 * binpacking floor of alloc_run (a user asking for it wants it). */
int alloc_algorithm_baseline(size_t i);
/* Index of the algorithm called `name`, or -1. */
int alloc_algorithm_find(const char *name);

/* ---------------------------------------------------------------------
 * Building blocks, public for tools and tests.
 */

/*
 * alloc_binpack - the traditional binpacking of Paper IV Section 3: threads
 * in decreasing order of work (ties: increasing id), each onto the
 * processor with the least work bound so far (ties: lowest number).
 * out[nthreads] receives a processor per dense thread.  The same as
 * alloc_binpack_times with the threads' CPU work (ALLOC_INPUT_WORK).
 */
void alloc_binpack(const struct trace *tr, uint32_t cpus, int32_t *out);

/*
 * alloc_binpack_times - binpacking given each thread's time time[n]
 * (trace units): threads in decreasing order of time (ties: increasing
 * dense index), each onto the processor with the least total time bound
 * so far (ties: lowest number).  out[n].
 */
void alloc_binpack_times(const uint64_t *time, uint32_t n, uint32_t cpus,
                         int32_t *out);

/*
 * alloc_thread_times - binpacking's time of each dense thread of program
 * `p` under input `in` (enum alloc_input) for the machine `sim` (its
 * processors, policy, costs, latency, model and pool), into time[n]
 * (trace units, exact).  WORK needs no simulation; LIFETIME simulates
 * one processor under fifo (sim's costs and model), ELAPSED sim's k
 * processors in unbound mode under sim's policy, each with workspace `w`
 * (made for p; NULL: one of its own) and takes each thread's end - start.
 * Under SIM_AUTO, or when the run under sim->model deadlocks, the models
 * of Paper VIII's scheme are tried in turn (sim_model_fallback) and the
 * first that finishes gives the times.  Returns ALLOC_OK, ALLOC_EINVAL
 * (bad input or parameters), ALLOC_ENOMEM, or ALLOC_ESIM (no model
 * finished the run, or the simulator failed); on failure time[] is
 * zeroed.
 */
int alloc_thread_times(const struct sim_program *p, struct sim_work *w,
                       const struct sim_params *sim, enum alloc_input in,
                       uint64_t *time);

/*
 * alloc_block - Paper VII's simple allocation: the n threads in dense
 * (id) order cut into k contiguous blocks, the first n mod k of
 * ceil(n/k) threads, the others of floor(n/k) (n < k: one thread on each
 * of the first n processors).  out[n].
 */
void alloc_block(uint32_t n, uint32_t k, int32_t *out);

/* alloc_roundrobin - dense thread i on processor i mod k.  out[n]. */
void alloc_roundrobin(uint32_t n, uint32_t k, int32_t *out);

/*
 * alloc_sga_tests - the number of tests of the simple greedy algorithm in
 * the worst case, Paper IV Figure 3: P(P+1)/2 - 1 + P(T-P) for T threads
 * and P processors, T >= P > 1 (and the same rule, every used processor
 * plus one free one, for the other cases).
 */
uint64_t alloc_sga_tests(uint64_t threads, uint64_t cpus);

/*
 * alloc_canonical - the canonical form of a binding: processors are
 * interchangeable, so relabel them 0, 1, ... in order of first appearance
 * in dense thread order, into out[n] (not b).  Shadow threads keep
 * TRACE_SHADOW.  Two bindings have equal canonical forms iff they are the
 * same partition of the threads.
 */
void alloc_canonical(const int32_t *b, uint32_t n, int32_t *out);

/* alloc_partitions - number of canonical bindings of n threads on at most
 * k processors (sum of Stirling numbers S(n, j), j <= k), saturating at
 * UINT64_MAX. */
uint64_t alloc_partitions(uint32_t n, uint32_t k);

/* ---------------------------------------------------------------------
 * Configuration (INI, cli/ini.h): [machine] the keys of the machine's
 * vocabulary (CLI_MACHINE_ROWS in cli/cli.h: cpus, latency, policy,
 * create_cost, switch_cost, model); [search] algorithm, stop_after,
 * max_tests, time_limit, seed, restarts, binpack_input.  See
 * examples/allocate.ini (binpack_input: docs/alloc.md).
 */
struct cli_ini;

/*
 * alloc_config_apply - set the values that the parsed INI file `ini`
 * (cli_ini_parse / cli_ini_read) gives to *par; keys absent keep their
 * value.  Unknown keys in [machine] and [search] are errors; other
 * sections are ignored (other tools' settings).  Returns 0, or -1 with a
 * one-line message in err naming the file and line, every byte of the
 * file's text quoted (e.g. "allocate.ini:12: [search] max_tests: 'abc'
 * is not an integer in 0..18446744073709551615"); *par may then be partly
 * updated.
 */
int alloc_config_apply(const struct cli_ini *ini, struct alloc_params *par,
                       char *err, size_t errlen);

#endif
