/*
 * refsim.h - a reference simulator for the differential test
 * (tests/test_differential.c), written only from the contract,
 * docs/simulation.md (a copy of shared/spec/simulation.md), Direct model,
 * and the machine model of docs/sim.md ("Machine files").
 *
 * It shares no code with sim/: only the trace reader (trace/trace.h).  It
 * is meant to be slow and obviously right: an event loop over integer
 * instants that at every instant scans all threads for the one with the
 * smallest id that has something to do, with every rule of the contract
 * written out once, in the contract's words where possible (refsim.c).
 * Where the contract leaves a corner open, refsim.c says which reading it
 * takes ("reading:" comments) so that a disagreement can be judged.
 */
#ifndef SHADOWBIND_REFSIM_H
#define SHADOWBIND_REFSIM_H

#include <stdint.h>

#include "trace/trace.h"

enum refsim_policy { REFSIM_PS = 0, REFSIM_FIFO, REFSIM_RR };

struct refsim_params {
	uint32_t cpus;              /* k >= 1                                */
	int unbound;                /* 1: one global ready queue / pool      */
	enum refsim_policy policy;
	uint64_t quantum;           /* rr quantum >= 1; units: trace unit    */
	uint64_t latency;           /* t; units: trace unit                  */
	uint64_t create_cost;       /* units: trace unit                     */
	uint64_t switch_cost;       /* fifo, rr only; units: trace unit      */
	/* The machine model (docs/sim.md, "Machine files"): */
	const uint64_t *lat_matrix; /* NULL, or [cpus * cpus] latency from
	                               processor x to y at [x * cpus + y]     */
	int machine;                /* 1: remote creates and exits          */
	uint64_t create_cost_remote, exit_cost, exit_cost_remote; /* units:
	                               trace unit                           */
	uint64_t start_cost_remote; /* machine: a remote thread's start;
	                               units: trace unit                    */
	uint64_t create_wait_remote; /* machine, bound: the creator's wait
	                               off its processor after a remote
	                               create; units: trace unit            */
	uint64_t spread_create;     /* machine, bound: a local create's
	                               extra once a remote create has
	                               happened, past the first
	                               spread_cached creates; units: trace
	                               unit                                 */
	uint32_t spread_cached;
	uint32_t unbound_local_ppm; /* machine, unbound: of the first n
	                               creates, floor(n * this / 10^6) local */
	int unbound_costs;          /* machine, unbound: a remote thread's
	                               costs are the three below instead   */
	uint64_t unbound_create_cost_remote, unbound_start_cost_remote,
	         unbound_exit_cost_remote; /* units: trace unit             */
	int lat_kinds;              /* 1: the kinds of hand-off (wake,
	                               wake onto a busy processor, transfer,
	                               a waiter not yet asleep)             */
	uint64_t wake_busy, transfer, sleep; /* units: trace unit          */
	uint64_t spin;              /* the spinning wait (docs/sim.md, "Retry
	                               loops"): a `trylock M ok` right after
	                               its thread's `unlock M`, whose
	                               processor is shared then, works at
	                               least this; 0: the contract; units:
	                               trace unit                           */
	const uint8_t *pool;        /* [nthreads] 1 for the workers of a work
	                               queue (docs/models.md, "Work queues"),
	                               or NULL: none                         */
};

enum { REFSIM_OK = 0, REFSIM_DEADLOCK = 1, REFSIM_ERROR = -1 };

/*
 * refsim_run - simulate `tr` (Direct model) on p->cpus processors with
 * `binding` (a processor 0..k-1 or TRACE_SHADOW per dense thread; NULL:
 * every thread shadow; ignored when p->unbound).  Sets *makespan (units:
 * trace unit; on a deadlock the instant the replay got stuck) and returns
 * REFSIM_OK, REFSIM_DEADLOCK, or REFSIM_ERROR (bad parameters, out of
 * memory, or a step limit of 10^7 operations passed), with *makespan 0.
 */
int refsim_run(const struct trace *tr, const struct refsim_params *p,
               const int32_t *binding, uint64_t *makespan);

#endif
