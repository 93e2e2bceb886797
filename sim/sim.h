/*
 * sim.h - the trace-driven discrete-event simulator (docs/simulation.md):
 * how a recorded program runs on k processors under a binding, a local
 * scheduling policy and a synchronization latency.
 *
 * Made for search: load a trace once into an immutable sim_program (shared
 * by any number of threads), give each evaluating thread its own sim_work
 * (caller-owned, reused), then call sim_run for as many bindings as
 * needed.  sim_run keeps no global state, and allocates nothing on the
 * makespan-only path once the workspace is sized for the run (see
 * sim_work_reserve: the first run with a larger k, or the first
 * strict or client-server run, sizes it).
 *
 * Time is exact: every simulated time is an integer number of trace units.
 * Processor sharing (ps) is computed in cycles (an exact integer scheme; see
 * docs/sim.md): the fluid limit's rational times grow denominators without
 * bound and overflow any fixed width within a few thousand events.  Results
 * are given as sim_time, a reduced fraction, so that averages stay exact;
 * all times a run produces have den == 1 except the unbound ps pool's
 * per-processor busy time.  Times stay below 2^63 (checked before a run:
 * SIM_EOVERFLOW when latency and costs could exceed that).
 *
 * Simultaneous events follow docs/simulation.md: at one instant the thread
 * with the smallest id that has something to do performs one step, the
 * wake-ups it causes take effect inside that step in queue order, then the
 * smallest id is chosen again; round-robin quantum expiries at that instant
 * apply after all threads' steps.
 */
#ifndef SHADOWBIND_SIM_H
#define SHADOWBIND_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

/* An exact time: num/den, den >= 1, gcd(num, den) = 1.  Units: trace unit. */
typedef struct {
	uint64_t num;
	uint64_t den;
} sim_time;

static inline sim_time sim_time_int(uint64_t v)
{
	sim_time t = {v, 1};
	return t;
}
/* -1, 0, 1 as a <, ==, > b. */
int sim_time_cmp(sim_time a, sim_time b);
double sim_time_to_double(sim_time t);
/* Writes "4060" for integers, "12281/3" otherwise; returns buf. */
char *sim_time_format(sim_time t, char *buf, size_t len);
/* Writes "4060" or "4093.667" (rounded to 3 decimals); returns buf. */
char *sim_time_format_dec(sim_time t, char *buf, size_t len);

/*
 * Local scheduling policies.  ORDER POLICY: each is a class (struct
 * sim_class, sim/simint.h: its name, whether it takes a quantum, its
 * event loop's hooks); adding one touches
 *   sim/sim.h          this enum, SIM_POLICY_SYNTAX
 *   sim/NAME.c         its class (sim_class_NAME)
 *   sim/simint.h       the class's declaration
 *   sim/run.c          sim_classes[] (by enum value)
 *   viz/sched.c, viz/critical.c, viz/report.c, sim/schedule.c, sim/run.c
 *                      where processor sharing differs (SIM_PS: a
 *                      processor's intervals overlap)
 *   tests/refsim.c, tests/test_differential.c  (the reference's rule)
 *   docs/simulation.md, docs/sim.md
 * Parsing and printing (sim_policy_parse, sim_policy_format) go by the
 * classes' names.
 */
enum sim_policy { SIM_PS = 0, SIM_FIFO, SIM_RR, SIM_NPOLICIES };
enum sim_mode { SIM_BOUND = 0, SIM_UNBOUND };
/*
 * Simulation models (Paper VIII; docs/models.md):
 *   SIM_DIRECT         an acquisition takes whatever release of its object
 *                      comes first (docs/simulation.md).  Most accurate;
 *                      may deadlock on a program that never deadlocked.
 *   SIM_CLIENT_SERVER  each acquisition waits for exactly the release(s)
 *                      that satisfied it in the recording (trace.pair),
 *                      and a thread is cut into lists at those
 *                      acquisitions that run in whichever order their
 *                      releases arrive; a signal/broadcast is a rendezvous
 *                      with its recorded waiters.  Deadlocks only through
 *                      a signaller blocked inside a list.
 *   SIM_STRICT         recorded pairing, each thread in its recorded
 *                      order.  Never deadlocks on a valid trace.
 *   SIM_AUTO           the scheme of Paper VIII, Figure 14: Direct; on
 *                      deadlock client-server; on deadlock strict.
 *                      sim_result.model says which model produced it.
 */
enum sim_model { SIM_DIRECT = 0, SIM_CLIENT_SERVER, SIM_STRICT, SIM_AUTO };

struct sim_params {
	uint32_t cpus;          /* k >= 1                                    */
	enum sim_mode mode;     /* bound (binding or all shadow) or unbound  */
	enum sim_policy policy;
	uint64_t quantum;       /* rr quantum, >= 1; units: trace unit        */
	uint64_t latency;       /* t; units: trace unit                       */
	uint64_t create_cost;   /* CPU the creator spends per create; units:
	                           trace unit                                */
	uint64_t switch_cost;   /* context switch (fifo, rr); units: trace unit */
	enum sim_model model;   /* SIM_DIRECT (default), SIM_CLIENT_SERVER,
	                           SIM_STRICT or SIM_AUTO (see above)        */
	/* The machine model (docs/sim.md, "Machine files"; mach.h fills
	 * these from a calibrated machine file).  All zero/NULL: the
	 * contract's rules.
	 * lat_matrix: NULL (every pair of different processors has
	 * `latency`), or [cpus * cpus], the latency from processor x to
	 * processor y at [x * cpus + y] (units: trace unit; the diagonal
	 * is not read), owned by the caller and read during the run.  It
	 * applies where both processors are among 0..cpus-1; a shadow
	 * processor, a thread of the unbound ps pool (k >= 2) and a thread
	 * that never ran keep `latency`. */
	const uint64_t *lat_matrix;
	/* CPU a thread spends at its exit before the exit takes effect
	 * (like create_cost for the creator); units: trace unit. */
	uint64_t exit_cost;
	/* 1: the machine's rules for a thread created on another processor
	 * than its creator's (unbound with k >= 2: every created thread):
	 * the creator spends create_cost_remote in all, its excess over
	 * create_cost right after the create; the thread's exit costs
	 * exit_cost_remote instead of exit_cost, and the thread becomes
	 * ready no earlier than the create + that excess + the latency
	 * between the two processors.  0 (the contract): create_cost and
	 * exit_cost for every thread, a create has no latency. */
	int machine;
	uint64_t create_cost_remote, exit_cost_remote; /* units: trace unit */
	/* Under machine: CPU a remote thread spends at its start, before its
	 * first record's work (beyond a local thread's start, which a trace
	 * recorded on one CPU holds); units: trace unit. */
	uint64_t start_cost_remote;
	/* Under machine, bound mode: the time a creator waits, off its
	 * processor (not CPU time), in the create of a thread bound to
	 * another processor than its own: right after the create step,
	 * before its create_cost_remote excess (glibc's pinned start
	 * synchronizes with the other CPU; docs/sim.md, "Machine files").
	 * Unbound creates (the OS's own placement) do not wait.  0: none.
	 * Units: trace unit. */
	uint64_t create_wait_remote;
	/* Under machine, unbound, k >= 2: the share of created threads the
	 * operating system starts on their creator's processor, in parts
	 * per million (0..1000000; 0: every created thread is remote, the
	 * rule before issue 25's sixth session).  Deterministic: of the
	 * first n creates of a run, floor(n * unbound_local_ppm / 10^6)
	 * are local (an accumulator, in the order the creates are
	 * performed): the create that brings the accumulated share to a
	 * whole number is local, the others remote. */
	uint32_t unbound_local_ppm;
	/* Under machine, unbound (k >= 2), when unbound_costs is 1: a
	 * remote thread's costs as the OS's own placement costs them
	 * (calibrated on threads it placed, docs/sim.md, "Machine files"),
	 * in place of create_cost_remote, start_cost_remote and
	 * exit_cost_remote (which stay those of a thread bound to another
	 * processor, glibc's pinned start).  0: the same costs both ways.
	 * Units: trace unit. */
	int unbound_costs;
	uint64_t unbound_create_cost_remote, unbound_start_cost_remote,
	         unbound_exit_cost_remote;
	/* The kinds of hand-off (docs/sim.md, "Machine files"; a machine
	 * file that measured them).  0: every release that lets a thread on
	 * another processor proceed costs the pair's latency (lat_matrix or
	 * `latency`), as the contract says.  1: only a thread that was
	 * blocked waiting for the release (woken by it) pays the pair's
	 * latency, and `wake_busy` instead when its processor is busy at the
	 * release (as many threads running or ready there as it has
	 * processors; unbound: in the whole pool); a thread that asks after
	 * the release (a free mutex, a token already there, an exited
	 * thread) pays `transfer` (a cache line's move), and so does a
	 * blocked thread released less than `sleep` after it began to wait
	 * (it had not yet fallen asleep).  A per-object latency still wins
	 * over all of them. */
	int lat_kinds;
	uint64_t wake_busy, transfer, sleep; /* units: trace unit */
	/* A blocked thread woken by a release on its own processor (bound
	 * mode, or unbound where threads share one: k = 1 under ps, the
	 * processor it last ran on under fifo and rr) spends wake_local of
	 * CPU time there before its next record's work (a futex sleep, its
	 * wake-up and the switch a shared CPU pays where the trace leaves
	 * the waits out: an OpenMP team's, docs/record.md, "OpenMP"; until
	 * 2026-11-27 a wait without the processor).  Direct model (the
	 * strict and client-server models ignore it); with or without a
	 * latency, whatever the per-object override says.  0: none (the
	 * contract).  Units: trace unit. */
	uint64_t wake_local;
	/* Under machine, bound mode: once the process has a thread on a
	 * processor other than its first thread's (the run's first create
	 * of a thread bound to another processor than its creator's has
	 * happened: every thread descends from the first by creates), each
	 * later create of a thread on its creator's own processor costs the
	 * creator spread_create more CPU, right after the create, before
	 * its next record's work (a remote create's extra comes first in
	 * the same place).  The kernel's cost per thread in a process that
	 * has run on two CPUs, which a trace recorded on one CPU does not
	 * hold (docs/sim.md, "A process on two CPUs: the per-thread
	 * cost").  Remote creates pay none (create_cost_remote was measured
	 * in such a process), and neither do the run's first spread_cached
	 * creates (counted over all creates, local and remote): the cost is
	 * the unmapping of joined threads' stacks, and glibc keeps the
	 * stacks of that many threads (its 40 MB cache: five 8 MB stacks;
	 * mach.h sets MACH_STACKS_CACHED) without unmapping them.  Unbound
	 * runs ignore it.  0: none (the contract).  Units: trace unit. */
	uint64_t spread_create;
	uint32_t spread_cached;
	/* Per-object latency override (what-if analyses: "what if this
	 * lock's latency were 0"): obj_latency[kind] is NULL (every object
	 * of that kind has the uniform `latency`, the default) or an array
	 * [trace.nobj[kind]] indexed by dense object index, units: trace
	 * unit, owned by the caller and read during the run.  Where the
	 * latency rule (docs/simulation.md) applies to a release of object
	 * X, X's latency is used instead of `latency`: a mutex hand-off or
	 * release (TRACE_K_MUTEX, also a woken cwait's reacquisition), a
	 * semaphore token or post (TRACE_K_SEM), a condition variable's
	 * wake-up and a waiter's registration that lets a blocked signaller
	 * go on (TRACE_K_COND), a barrier release (TRACE_K_BARRIER), a
	 * read-write lock release (TRACE_K_RWLOCK), and for a join the exit
	 * of the joined thread (TRACE_K_THREAD, indexed by dense thread).
	 * Direct model only: with any array set, SIM_CLIENT_SERVER and
	 * SIM_STRICT give SIM_EINVAL and SIM_AUTO stops after Direct (its
	 * result, deadlocked or not).  All NULL costs nothing. */
	const uint64_t *obj_latency[TRACE_NKINDS];
	/* A work queue (sim_pool_new; docs/models.md, "Work queues"): its
	 * workers take the recorded tasks in recorded order, whichever worker
	 * gets the queue's mutex next, instead of each replaying its own.
	 * NULL: none (the default).  Owned by the caller, made for the same
	 * program.  Direct model only, as obj_latency. */
	const struct sim_pool *pool;
	/* The spinning wait (issue 28; docs/sim.md, "Retry loops"): the
	 * program's waiters spin this long before they block (PARSEC's
	 * barrier: a flag polled up to a count, then a condition wait).
	 * A poll is a `trylock M ok` that is its thread's next record
	 * after it released M (`unlock M`): the work between is the thread
	 * spinning until it may take M back (shadowbind-record
	 * --spin-as-wait leaves a retry loop as its successful try), and
	 * the recording holds how long it spun there, beside a thread that
	 * ran on another processor.  (A `lock M` there is the program
	 * taking M for its next critical section: not a poll.)  Where the poller shares its
	 * processor at the release (its group has more threads ready or
	 * running than processors), the thread it waits for cannot run
	 * while it spins, so it spins to the end: the acquisition's work
	 * is then at least `spin` (the extra is CPU it burns).  0 (the
	 * contract): the recorded work.  Direct model only (the pairing
	 * models replay the recorded work).  Units: trace unit. */
	uint64_t spin;
};

/*
 * Work queues.  A recording fixes which worker of a work queue took which
 * task: on one processor each worker took what the interleaving gave it,
 * on k processors a worker with a processor to itself takes more.  A pool
 * names the interchangeable workers; the simulator then deals their
 * segments (from an acquisition of the queue's mutex M by a `lock` record
 * to the worker's next `lock M`, or its exit: one task and the work that
 * follows it) to whichever worker acquires M next, in the order the
 * recording acquired them.  Exact and deterministic like every run; the
 * trace's total work is unchanged, each worker's is not.
 *
 * sim_pool_new - the pool of `p`'s threads that `spec` names: external
 * thread ids and ranges ("2-4", "2,3,7-9") or a thread name ("worker":
 * every thread of that name).  M is the mutex of the workers' first
 * `lock` record, which must be the same for all of them; they must hold
 * as many mutexes at once as each other, and no mutex at any of their
 * `lock M` records.  Returns 0 and *out, or -1 with *out = NULL and a
 * one-line reason in why[len] (fewer than two workers, unknown thread,
 * no common mutex, workers not alike, out of memory).
 * sim_pool_free accepts NULL.
 */
struct sim_program;
struct sim_pool;
int sim_pool_new(const struct sim_program *p, const char *spec, struct sim_pool **out,
                 char *why, size_t len);
void sim_pool_free(struct sim_pool *pool);
/* Workers, segments and the mutex (dense) of a pool, for reports. */
uint32_t sim_pool_workers(const struct sim_pool *pool);
uint32_t sim_pool_segments(const struct sim_pool *pool);
uint32_t sim_pool_mutex(const struct sim_pool *pool);

/* sim_params_init - defaults: 1 cpu, bound, ps, quantum 1, all costs 0,
 * Direct model. */
void sim_params_init(struct sim_params *p);

/* sim_policy_parse - "ps", "fifo", "rr:Q" (Q >= 1): a policy class's
 * name, with ":Q" for a class that takes a quantum.  Returns 0, or -1 and
 * leaves *p unaltered. */
int sim_policy_parse(const char *s, struct sim_params *p);
/* What sim_policy_parse accepts, for messages ("is not a policy (...)").
 * ORDER POLICY: one name per class (a test checks it). */
#define SIM_POLICY_SYNTAX "ps, fifo, rr:Q with Q >= 1"
/* "ps", "fifo", "rr:100" into buf; returns buf. */
char *sim_policy_format(const struct sim_params *p, char *buf, size_t len);
/* "direct", "client-server", "strict", "auto". */
const char *sim_model_name(enum sim_model m);
/* sim_model_parse - a sim_model_name into *out.  0, or -1 and *out
 * unaltered. */
int sim_model_parse(const char *s, enum sim_model *out);
/* What sim_model_parse accepts, for messages (a test checks it). */
#define SIM_MODEL_SYNTAX "direct, client-server, strict, auto"
/* The model the scheme tries after `m` deadlocks: client-server after
 * Direct, strict after client-server (and after strict, which never
 * deadlocks on a valid trace).  For a search that fixes one model per
 * trace and escalates on a deadlock (docs/models.md). */
enum sim_model sim_model_fallback(enum sim_model m);

/* Return codes of sim_run. */
enum {
	SIM_OK = 0,
	SIM_DEADLOCK = 1,    /* the replay deadlocked: see result.blocked   */
	SIM_CUTOFF = 2,      /* sim_makespan_cutoff: the simulated time
	                        passed the cutoff                          */
	SIM_EINVAL = -1,     /* bad parameters or binding                   */
	SIM_EOVERFLOW = -2,  /* a time exceeded 64-bit exact arithmetic     */
	SIM_ENOMEM = -3      /* only on the SIM_SCHEDULE path               */
};

/* Flags for sim_run. */
#define SIM_STATS    1u  /* per-thread and per-processor statistics     */
#define SIM_SCHEDULE 2u  /* run intervals and synchronizations          */
#define SIM_NO_SYNCS 4u  /* with SIM_SCHEDULE: the intervals only, no
                            synchronizations (nsyncs 0): 32 bytes less
                            per acquisition (bound's V needs no more)  */
#define SIM_PROFILE 8u   /* with SIM_SCHEDULE and SIM_NO_SYNCS: instead
                            of the intervals (nintervals 0), the time
                            during which exactly i threads ran, summed
                            as the run goes (profile; O(threads) memory
                            whatever the run's length: bound's V)     */

struct sim_program; /* immutable once made; share freely */
struct sim_work;    /* one per evaluating thread         */

/*
 * sim_program_new - prepare trace `tr` for simulation (per-object
 * capacities, offsets; the facts that take a pass over the records,
 * unless the trace has a condition variable, on the first run or pool
 * that needs them: a ps run without latency or costs never does).  The
 * recorded pairing that the strict and
 * client-server models follow (about 20 bytes per record) is built on
 * the first run of one of them (or by sim_work_reserve for them), once,
 * under a lock: the program may be shared by threads that run it at the
 * same time.  `tr` must outlive the program and is not modified.
 * Returns the program, or NULL on allocation failure.
 */
struct sim_program *sim_program_new(const struct trace *tr);
void sim_program_free(struct sim_program *p); /* accepts NULL */
const struct trace *sim_program_trace(const struct sim_program *p);

/* sim_work_new - a workspace for `p` (sized for k <= 8 and the Direct
 * model), or NULL on allocation failure. */
struct sim_work *sim_work_new(const struct sim_program *p);
void sim_work_free(struct sim_work *w); /* accepts NULL */

/*
 * sim_work_reserve - size `w` for runs with `par`: its group and slot
 * arrays for par->cpus processors (O(k + threads)), the semaphores'
 * token times for runs under a latency (O(posts)), and, unless
 * par->model is SIM_DIRECT, the strict and client-server models' state
 * (O(records)).  sim_run does the same when a run needs it, so this is
 * only needed to take the allocation out of a timed or parallel section:
 * afterwards sim_run and sim_makespan allocate nothing for runs with at
 * most par->cpus processors and any model (only SIM_SCHEDULE allocates).
 * Returns SIM_OK, SIM_EINVAL (cpus = 0), or SIM_ENOMEM (w unaltered and
 * still usable).
 */
int sim_work_reserve(struct sim_work *w, const struct sim_params *par);

/* The processor of a thread or interval that no one processor holds:
 * unbound mode's pool of processors (statistics of every unbound thread;
 * intervals under unbound ps).  Printed "any". */
#define SIM_PROC_ANY (-2)

struct sim_thread_stats {
	sim_time start;   /* became ready for the first time              */
	sim_time end;     /* exit                                         */
	sim_time cpu;     /* work executed, plus create costs             */
	sim_time ready;   /* ready but not progressing: end - start - cpu
	                     - blocked (under ps: the share it did not get) */
	sim_time blocked; /* blocked on synchronization, sleeping, or
	                     waiting out a latency                         */
	int32_t proc;     /* bound processor, TRACE_SHADOW, or SIM_PROC_ANY
	                     (unbound)                                   */
};

/* One interval during which `thread` ran on processor `proc` (bound:
 * 0..k-1, TRACE_SHADOW for its own; unbound fifo/rr: the processor;
 * unbound ps: SIM_PROC_ANY, the pool).  Under ps intervals of one processor overlap:
 * each thread progressed at its share of the processor. */
struct sim_interval {
	uint32_t thread;  /* dense index */
	int32_t proc;
	sim_time from, to;
};

/* One completed acquisition (lock, wait, join, barrier, cwait, rdlock,
 * wrlock, trylock ok, trywait ok, a signaller's wait for waiters). */
struct sim_sync {
	sim_time time;     /* when it was granted                          */
	uint32_t rec;      /* the acquiring record (index in trace.rec)    */
	uint32_t thread;   /* acquiring thread (dense)                     */
	int32_t releaser;  /* thread whose release granted it, -1: none
	                      (free object or initial token)               */
};

/* A thread left blocked by a deadlock. */
struct sim_blocked {
	uint32_t thread;   /* dense index                                  */
	uint32_t rec;      /* the record it is blocked in (client-server,
	                      idle thread: the first of its waiting lists) */
	uint8_t kind;      /* enum trace_kind of the object it waits on    */
	uint32_t obj;      /* dense object index                           */
	int32_t holder;    /* Direct: a thread holding it (mutex, rwlock
	                      writer, join target); strict, client-server:
	                      the thread of `after`; or -1                 */
	const char *why;   /* "lock", "wait", "reacquire after cwait", ... */
	uint32_t after;    /* strict, client-server: the record whose
	                      release it still waits for (a signaller: the
	                      cwait of a waiter not there yet), or
	                      UINT32_MAX                                   */
	uint32_t lists;    /* client-server: 0, or the thread is idle and
	                      this many of its lists wait (rec: the first)  */
};

struct sim_result {
	int status;           /* as returned by sim_run                    */
	enum sim_model model; /* the model that produced the result (never
	                         SIM_AUTO: under it, the model the scheme
	                         ended with)                               */
	sim_time makespan;    /* time of the last exit; on SIM_DEADLOCK the
	                         time at which the replay got stuck; units:
	                         trace unit                                */
	uint64_t steps;       /* operations performed                      */
	uint64_t events;      /* events the loop processed: timers, ends of
	                         work, ps cycle ends, rr quantum expiries
	                         (a measure of the work a run took)        */
	/* SIM_STATS (owned by the workspace, valid until its next run): */
	const struct sim_thread_stats *threads; /* [nthreads]              */
	uint32_t nprocs;                        /* k                       */
	const sim_time *busy; /* [k] busy time of each processor (unbound
	                         ps: the pool's busy time / k)             */
	/* SIM_SCHEDULE: */
	size_t nintervals;
	const struct sim_interval *intervals;
	size_t nsyncs;
	const struct sim_sync *syncs;
	/* SIM_PROFILE: [nthreads + 1], profile[i] the time from 0 to the
	 * makespan during which exactly i threads were running (between
	 * the start and the end of one of their intervals); units: trace
	 * unit.  NULL if the run's starts and ends did not come in time
	 * order (never seen; then run again without SIM_PROFILE). */
	const sim_time *profile;
	/* SIM_DEADLOCK: */
	size_t nblocked;
	const struct sim_blocked *blocked;
};

/*
 * sim_run - simulate program `p` with workspace `w` (made for `p`).
 * `binding` gives each dense thread a processor 0..k-1 or TRACE_SHADOW;
 * NULL means every thread shadow (one processor per thread: the critical
 * path).  Ignored in unbound mode.  `flags`: SIM_STATS, SIM_SCHEDULE,
 * SIM_NO_SYNCS.
 * Fills *res (pointers into `w`, valid until w's next run) and returns its
 * status.  On SIM_EINVAL/SIM_EOVERFLOW/SIM_ENOMEM, res->makespan is 0.
 * par->model = SIM_AUTO runs Direct, then (on SIM_DEADLOCK) client-server,
 * then strict, and returns the last run's result; res->model names it.
 * Allocates only to size the workspace (see sim_work_reserve) and, with
 * SIM_SCHEDULE, for the schedule; SIM_ENOMEM when that fails.
 */
int sim_run(const struct sim_program *p, struct sim_work *w,
            const struct sim_params *par, const int32_t *binding,
            unsigned flags, struct sim_result *res);

/*
 * sim_makespan - the cheap path: *out = makespan.  Returns sim_run's
 * status; *out is zero unless SIM_OK.
 */
int sim_makespan(const struct sim_program *p, struct sim_work *w,
                 const struct sim_params *par, const int32_t *binding,
                 sim_time *out);

/*
 * sim_makespan_cutoff - like sim_makespan, but stops as soon as the
 * simulated time passes `cutoff` (trace units): for a search, which only
 * needs to know whether a binding beats the best so far.  Returns
 * SIM_CUTOFF with *out = 0 when an event lies later than `cutoff` while
 * threads remain: the makespan is then > cutoff, or the run would have
 * deadlocked after `cutoff` (a deadlock is only reported as SIM_DEADLOCK
 * when the replay got stuck at or before `cutoff`; under SIM_AUTO the
 * scheme stops at the first model that passes the cutoff).  Otherwise
 * (the run ended at or before `cutoff`) exactly sim_makespan's result.
 * cutoff = UINT64_MAX is sim_makespan.  Allocates nothing, as
 * sim_makespan; the work saved is the events after `cutoff`.
 */
int sim_makespan_cutoff(const struct sim_program *p, struct sim_work *w,
                        const struct sim_params *par, const int32_t *binding,
                        uint64_t cutoff, sim_time *out);

/*
 * sim_makespan_within - what a search needs: "does this binding finish
 * by `cutoff`, and when?".  Like sim_makespan_cutoff, but also stops as
 * soon as, in bound mode, a processor's work (the work of the threads
 * bound to it) plus the time it has stood idle so far passes `cutoff`:
 * no processor executes more than one unit of work per unit of time, so
 * the run would end later, or never.  SIM_CUTOFF (*out = 0) therefore
 * means "no makespan <= cutoff": later, or a deadlock at any time
 * (SIM_DEADLOCK only when the replay got stuck before either test
 * stopped it).  Otherwise exactly sim_makespan's result.  Under SIM_AUTO
 * exactly sim_makespan_cutoff (the scheme must see Direct's deadlocks).
 * Allocates nothing, as sim_makespan.
 */
int sim_makespan_within(const struct sim_program *p, struct sim_work *w,
                        const struct sim_params *par, const int32_t *binding,
                        uint64_t cutoff, sim_time *out);

/*
 * sim_deadlock_print - one line per blocked thread of a deadlocked result,
 * naming the thread, the object and the holder, e.g. (Direct)
 *   "thread 3 (worker) waits at line 12 to lock mutex 1, held by thread 2"
 * or the release it still needs (strict, client-server), e.g.
 *   "thread 2 waits at line 9 to see its waiters on condition variable 2,
 *    until thread 2's cwait at line 14"
 *   "thread 1 is idle with 1 list waiting; the first waits at line 7 to
 *    be signalled on condition variable 1, until thread 2's signal at
 *    line 12"
 */
void sim_deadlock_print(const struct sim_program *p,
                        const struct sim_result *res, FILE *f);

#endif
