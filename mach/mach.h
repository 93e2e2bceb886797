/*
 * mach.h - the target machine as a measured model (docs/sim.md, "Machine
 * files"): what bin/shadowbind-calibrate measures on the machine it runs
 * on, the `[machine]` INI file it writes, reading that file back, and
 * turning it into the simulator's parameters (struct sim_params) for a
 * trace's unit.
 *
 * A machine file describes the machine's CPUs, in the order in which the
 * simulator's processors 0..k-1 use them (a binding's processor p is the
 * file's p-th CPU), and, each as a median with its spread (the smallest
 * and largest of the repeated measurements), in nanoseconds:
 *   - latency x y: the time from a semaphore post by a thread on CPU x
 *     to the running again of a thread on CPU y that was asleep in
 *     sem_wait, y otherwise idle; one measured value per kind of pair that
 *     the topology (hwloc) distinguishes (SMT siblings, cores sharing a
 *     cache, packages, ...);
 *   - switch: the same for two threads on one CPU; switch_cpu: the CPU
 *     time of such a hand-off (information: a trace's work holds it);
 *   - create, create_remote: the CPU time the creator spends in
 *     pthread_create, for a child on its own CPU and on another (children
 *     doing threadtask's task, 10 us of work and a mutex, created
 *     CJ_BATCH (64) in a row, then joined; likewise join,
 *     join_remote and start, start_remote below);
 *   - exit, exit_remote: the CPU time a created thread spends after its
 *     start routine returned, on its creator's CPU and on another,
 *     including the kernel's time at its end that the process's CPU
 *     time does not count (on one CPU, threads created CJ_BATCH (64) at a
 *     time and then joined: the wall time less the process's CPU time
 *     less a switch per thread; the same figure is added to
 *     exit_remote);
 *   - create_wait: the creator's wall time in pthread_create of a child
 *     on another CPU beyond its CPU time there (the remote batches
 *     above: the time it waited off its CPU);
 *   - wake_busy: the same as latency, the CPUs busy with other threads;
 *     transfer: a cache line's move from one CPU to another; sleep: the
 *     time a blocked thread takes to fall asleep.
 *
 * No global state; nothing prints except mach_write.  Functions that can
 * fail return 0, or -1 with a one-line reason in why (and their outputs
 * zeroed).
 */
#ifndef SHADOWBIND_MACH_H
#define SHADOWBIND_MACH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/sim.h"
#include "trace/trace.h"

/* Largest number of CPUs a machine file describes. */
#define MACH_CPUS_MAX 1024

/* One measured figure: the median of the repeats and their extremes;
 * units: ns. */
struct mach_fig {
	double med, lo, hi;
};

struct mach {
	char host[256];        /* hostname                                  */
	char cpu_model[256];   /* /proc/cpuinfo's model name, or ""          */
	char when[32];         /* UTC, ISO 8601: 2026-11-26T11:40:00Z        */
	char topology[256];    /* "1 package, 2 cores, 2 PUs" (hwloc)        */
	char method[256];      /* what was measured, how often                */
	uint32_t ncpu;         /* CPUs described, 1..MACH_CPUS_MAX            */
	int *os_cpu;           /* [ncpu] OS CPU number of processor p         */
	char **place;          /* [ncpu] where it is: "package 0 core 1 pu 1" */
	struct mach_fig *lat;  /* [ncpu * ncpu] latency x -> y at [x*ncpu+y];
	                          the diagonal is 0                           */
	char **pair_kind;      /* [ncpu * ncpu] the pair's kind ("core",
	                          "L3", "package", "machine"; "" on the
	                          diagonal)                                   */
	struct mach_fig switch_cost, create, create_remote, exit, exit_remote;
	struct mach_fig switch_cpu; /* optional in a file (0 when absent)   */
	struct mach_fig join, join_remote; /* the joiner's CPU in pthread_join
	                              of a child on its CPU / another (optional
	                              in a file: 0 when absent)             */
	/* The kinds of hand-off (optional in a file, both or neither:
	 * has_kinds): wake_busy, a wake-up of a thread blocked on a CPU that
	 * is busy (no halted CPU to wake; as latency, beyond a local
	 * hand-off's wall time); transfer, a cache line's move between two
	 * CPUs (what a thread that takes a free lock last released on another
	 * CPU waits for); sleep, the time a blocked thread takes to fall
	 * asleep (a release sooner than that after it blocked wakes it as
	 * cheaply as a transfer).  Each measured on the first pair of CPUs
	 * of the first kind and used for every pair. */
	struct mach_fig wake_busy, transfer, sleep;
	int has_kinds;
	/* start, start_remote: a created thread's CPU time before its start
	 * routine begins, on its creator's CPU and on another (optional in
	 * a file, both or neither: has_start) */
	struct mach_fig start, start_remote;
	int has_start;
	/* remote_share: of threads created unbound, CJ_BATCH at a time by
	 * an unbound creator, the share the OS starts on another CPU than
	 * the creator's (sched_getcpu at the child's start against the
	 * creator's at the create; no unit, 0..1; optional in a file:
	 * has_share; without it the model makes every child remote) */
	struct mach_fig remote_share;
	int has_share;
	/* unbound_create, unbound_start, unbound_exit: the costs of the OS's
	 * own placement, measured in the same rounds as remote_share
	 * against the same threads all on one CPU (creator pinned, children
	 * inheriting it): per thread the OS started on another CPU, the
	 * creator's extra CPU time in pthread_create and pthread_join, the
	 * child's before its start routine, and after it (each round's
	 * excess over all its threads, divided by its share; 0 in a round
	 * with a share under 5%).  Optional in a file, all three or none:
	 * has_unbound; without them an unbound remote thread costs what a
	 * pinned one does (create_remote, start_remote, exit_remote). */
	struct mach_fig unbound_create, unbound_start, unbound_exit;
	int has_unbound;
	/* create_wait: the creator's wall time in pthread_create of a child
	 * pinned to another CPU beyond its CPU time there (the remote
	 * batches of create_remote: the creator alone on its CPU, so the
	 * time it waited, off its CPU, for glibc's pinned start; ns).
	 * Optional in a file (has_wait; without it no wait). */
	struct mach_fig create_wait;
	int has_wait;
	/* margin: allocate's advice margin on this machine (units: percent,
	 * 0 to 100): a binding not predicted at least this much faster than
	 * the program left unbound is advised against (alloc.h,
	 * alloc_params.unbound_margin).  Not measured by calibrate: the
	 * model's error in that comparison, measured on this machine (bench/
	 * validate's "allocate vs the OS": the largest amount by which a
	 * binding's predicted gain over the OS exceeded its measured gain,
	 * less the 5% by which a binding may be slower unnoticed), which
	 * its user writes into the file.  Optional (has_margin; without it
	 * ALLOC_UNBOUND_MARGIN). */
	double margin;
	int has_margin;
	/* wake_local: what a blocked thread woken by a release on its own
	 * processor waits before it may go on (ns; has_wake_local).  For
	 * the traces of OpenMP programs only, which leave libgomp's waits
	 * out (recorded on one CPU they sleep, on two they spin; on a shared
	 * CPU every wait is a spin, a futex sleep, a wake-up and a switch:
	 * docs/record.md, "OpenMP"); mach_calibrate measures it with
	 * mach_opts.openmp (two threads on one CPU meeting at a barrier as
	 * libgomp's, the wall time of one).  A trace recorded with the
	 * pthread calls holds a local hand-off's system calls and switch in
	 * its work, so its file has none.  Optional in a file (without it,
	 * 0). */
	struct mach_fig wake_local;
	int has_wake_local;
	/* spread: the CPU one thread's life (its create and join by its
	 * creator, its start and exit) costs more, all on the creator's
	 * CPU, in a process that has once run a thread on another CPU than
	 * in one that never has (ns; has_spread): mach_calibrate_spread's
	 * fresh processes pinned to one CPU, a batch with and without one
	 * earlier child on another CPU (docs/sim.md, "A process on two
	 * CPUs: the per-thread cost").  The model charges it to the creator
	 * of each later local create, bound mode (sim_params.spread_create).
	 * Optional in a file (without it, 0). */
	struct mach_fig spread;
	int has_spread;
};

/* What to measure. */
struct mach_opts {
	int quick;             /* a few seconds instead of about a minute    */
	uint32_t max_cpus;     /* 0: every CPU this process may use; else at
	                          most this many                              */
	int openmp;            /* also wake_local, for OpenMP programs'
	                          traces (under a second more)              */
};

/*
 * mach_calibrate - measure this machine (the CPUs this process may use;
 * its threads pin themselves to them in turn).  Fills *m (release with
 * mach_release).  Takes about a minute (o->quick: a few seconds).  With
 * one usable CPU only the figures of one CPU (switch, create, exit) are
 * measured; the remote ones equal the local ones.  With o->openmp also
 * wake_local (has_wake_local), on the first CPU.  0, or -1 with why
 * (hwloc failed, a thread could not be made or pinned, out of memory).
 */
int mach_calibrate(struct mach *m, const struct mach_opts *o, char *why, size_t len);

/* mach_release - free what *m owns and zero it; accepts a zeroed struct. */
void mach_release(struct mach *m);

/*
 * mach_calibrate_spread - measure m->spread on m's first two CPUs (the
 * CPUs of m->os_cpu; m as mach_calibrate filled it, ncpu >= 2): rounds
 * of two fresh processes (fork) pinned to the first CPU, each running a
 * batch of threads as threadtask's (64 at a time, a mutex each), one of
 * them after a single child pinned to the second CPU; the process CPU
 * time per thread of the second less the first's, median and extremes
 * over the rounds (a negative median is 0).  o->quick: fewer rounds.
 * Sets has_spread; with one CPU (ncpu < 2) does nothing and returns 0.
 * Takes about 10 s here (o->quick: 1-2 s).  0, or -1 with why (a fork,
 * a pipe or a thread that failed; m->spread untouched).
 */
int mach_calibrate_spread(struct mach *m, const struct mach_opts *o, char *why, size_t len);

/*
 * mach_write - the `[machine]` INI of m on f (docs/sim.md shows one).
 * 0, or -1 on a write error.
 */
int mach_write(const struct mach *m, FILE *f);

/*
 * mach_read - read the machine file at path (cli_ini's language; the
 * keys mach_write writes; unknown keys and missing figures are errors,
 * "m.ini:7: latency.1: expected 2 numbers").  0 and *m; or -1 with *m
 * zeroed and one line in why.
 */
int mach_read(const char *path, struct mach *m, char *why, size_t len);
/* mach_parse - the same from len bytes at buf, `name` for messages. */
int mach_parse(const char *name, const char *buf, size_t len, struct mach *m,
               char *why, size_t whylen);

/*
 * The model's figures for k processors in one trace unit (docs/sim.md):
 * the latency matrix [k*k] and the costs, each rounded to the nearest
 * trace unit, for a trace whose work is its threads' CPU time as
 * shadowbind-record records it on one CPU: a create's CPU time on the
 * creator's CPU is in the work (create_cost 0), a create on another CPU
 * costs the creator create_remote - create more, and the join that
 * follows it join_remote - join more (charged at the create: the
 * creator is the usual joiner; the model has no join cost); a thread's exit costs
 * exit (exit_remote); a switch and a latency what the file says.
 */
struct mach_model {
	uint32_t k;
	uint64_t *lat;         /* [k*k] units: trace unit                    */
	uint64_t latency;      /* the largest latency of the file's matrix
	                          (all its CPUs): what a shadow processor or
	                          a thread on no processor pays               */
	uint64_t switch_cost, create_cost, create_cost_remote, exit_cost,
	         exit_cost_remote; /* units: trace unit                     */
	int lat_kinds;         /* the file has the kinds of hand-off         */
	uint64_t wake_busy, transfer, sleep; /* units: trace unit            */
	uint64_t start_cost_remote; /* start_remote - start (>= 0); units:
	                          trace unit                                */
	uint32_t local_ppm;    /* unbound: 1 - remote_share, parts per
	                          million (0 without remote_share: every
	                          child remote)                             */
	int unbound_costs;     /* the file has unbound_create, ...           */
	uint64_t unbound_create_cost_remote, unbound_start_cost_remote,
	         unbound_exit_cost_remote; /* unbound_create, unbound_start
	                          (each >= 0), exit + unbound_exit (>= exit);
	                          units: trace unit                         */
	uint64_t create_wait_remote; /* create_wait (>= 0; 0 without it):
	                          bound, the creator's wait in a remote
	                          create; units: trace unit                 */
	int has_margin;        /* the file's margin (struct mach), for      */
	double margin;         /* allocate's advice; units: percent        */
	uint64_t wake_local;   /* wake_local (0 without it); units: trace
	                          unit                                      */
	uint64_t spread_create; /* spread (>= 0; 0 without it); units: trace
	                          unit                                      */
};

/* The threads whose stacks glibc keeps without unmapping them (its
 * default stack cache, 40 MB, holds five default 8 MB stacks): the
 * first creates of a run that pay no `spread` (sim_params.spread_cached). */
#define MACH_STACKS_CACHED 5

/*
 * mach_model_init - m's figures for processors 0..k-1 (the file's first
 * k CPUs) in `unit` (a trace's: TRACE_TICK has no length and is refused).
 * 0, or -1 with why ("the machine file describes 2 CPUs, not 4", "the
 * trace has no time unit") and *mm zeroed.
 */
int mach_model_init(struct mach_model *mm, const struct mach *m, uint32_t k,
                    enum trace_unit unit, char *why, size_t len);
void mach_model_release(struct mach_model *mm); /* accepts zeroed */

/*
 * mach_model_apply - point par at mm's figures: lat_matrix, latency,
 * switch_cost, the create and exit costs (unbound's own when the file
 * has them), the creator's wait in a remote create, the share, the kinds of hand-off, machine = 1.  mm must
 * outlive par's use, and par->cpus must be mm->k (set here).
 */
void mach_model_apply(const struct mach_model *mm, struct sim_params *par);

#endif
