/*
 * test_sim.c - the Direct model against hand-computed expectations
 * (derivations in the comments), and the invariants of
 * docs/simulation.md on random valid traces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <malloc.h>

#include "sim/sim.h"
#include "tests/testutil.h"
#include "trace/trace.h"

#define S TRACE_SHADOW

/* Map external thread id -> processor, for bindings written by id. */
static int32_t *bind_by_id(const struct trace *tr, const int32_t *by_id, size_t nids)
{
	int32_t *b = calloc(tr->nthreads, sizeof *b);
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		uint32_t id = tr->threads[i].id;
		assert_true(id < nids);
		b[i] = by_id[id];
	}
	return b;
}

/* Simulate c under `policy` on k processors with latency lat; by_id gives
 * the processor of each thread id (NULL: every thread shadow). */
static int run_policy(struct tu_sim *c, const char *policy, uint32_t k, uint64_t lat,
                      const int32_t *by_id, size_t nids, unsigned flags,
                      struct sim_result *res)
{
	struct sim_params par;
	sim_params_init(&par);
	par.cpus = k;
	par.latency = lat;
	assert_int_equal(sim_policy_parse(policy, &par), 0);
	int32_t *b = by_id ? bind_by_id(c->tr, by_id, nids) : NULL;
	int rc = sim_run(c->p, c->w, &par, b, flags, res);
	free(b);
	return rc;
}

static void assert_time(sim_time t, uint64_t num, uint64_t den)
{
	if (t.num != num || t.den != den)
		fail_msg("time %llu/%llu, expected %llu/%llu", (unsigned long long)t.num,
		         (unsigned long long)t.den, (unsigned long long)num, (unsigned long long)den);
}

static const char *const policies[] = {"ps", "fifo", "rr:1", "rr:7", "rr:1000"};
#define NPOL (sizeof policies / sizeof policies[0])

/* ------------------------------------------------------------------ */
/* The shared example: Paper IV's binpacking worst case. */

static void test_binpack_example(void **state)
{
	(void)state;
	char path[4096];
	char *text = tu_slurp(tu_shared("examples/binpack-worst-case.trace", path, sizeof path), NULL);
	assert_non_null(text);
	struct tu_sim c;
	tu_sim_open(&c, text);
	free(text);
	/* by thread id 0..5 */
	static const int32_t binpack[] = {0, 0, 0, 0, 1, 1};
	static const int32_t sga[] = {0, 0, 0, 1, 1, 0};
	static const struct {
		const int32_t *b;
		uint64_t lat, expect;
	} cases[] = {
		{binpack, 0, 4060},
		{sga, 0, 2050},
		{sga, 100, 2240},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (size_t p = 0; p < NPOL; p++) {
			struct sim_result res;
			int rc = run_policy(&c, policies[p], 2, cases[i].lat, cases[i].b, 6, SIM_STATS, &res);
			assert_int_equal(rc, SIM_OK);
			if (res.makespan.num != cases[i].expect || res.makespan.den != 1)
				fail_msg("case %zu policy %s: makespan %llu/%llu, expected %llu", i, policies[p],
				         (unsigned long long)res.makespan.num,
				         (unsigned long long)res.makespan.den,
				         (unsigned long long)cases[i].expect);
		}
	}
	tu_sim_close(&c);
}

/* ------------------------------------------------------------------ */
/* Table of small hand-computed programs. */

struct hand_case {
	const char *name;
	const char *trace;
	const char *policy;
	uint32_t k;
	uint64_t latency;
	int32_t by_id[12]; /* processor per thread id; used when bound */
	int bound;         /* 0: every thread shadow (critical path) */
	int status;
	uint64_t num, den; /* makespan */
	int32_t end_id;    /* a thread whose end time is checked, or -1 */
	uint64_t end_num, end_den;
	int unbound;       /* unbound mode on k processors (by_id unused) */
	uint64_t switch_cost;
};

/* Condition variable, signal before wait in the simulation (T1 reaches
 * its signal at 10, T2 its cwait at 100), each thread on its own
 * processor.  t = 0: T1 blocks at 10 releasing mutex 1; T2 locks at 100,
 * cwaits at 100 (releases, registers); T1 re-acquires M and wakes T2,
 * which queues for M; T1 unlocks at 105 -> T2 has M at 105, unlocks at
 * 112, exits at 115; T1 joins at 105, woken at 115, exits at 116.
 * t = 50: T1 proceeds at 100+50 (the last waiter registered on another
 * processor) = 150, unlocks at 155; T2 gets M then, proceeds at 205,
 * unlocks 212, exits 215; T1's join sees the exit at 265, exits 266. */
static const char cv_early_signal[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"2 100 lock 1\n"
	"1 10 lock 1\n"
	"1 0 signal 1 1\n"
	"1 5 unlock 1\n"
	"2 0 cwait 1 1\n"
	"2 7 unlock 1\n"
	"2 3 exit\n"
	"1 0 join 2\n"
	"1 1 exit\n";

/* Barrier from a mutex and a condition variable, the broadcaster first:
 * T3 locks at 20 and broadcasts to 1 waiter that is not there yet: it
 * blocks and releases M.  T2 locks at 30 and cwaits at 30; T3 re-acquires
 * M, wakes T2 (queued for M), unlocks at 35; T2 gets M at 35, unlocks at
 * 40, exits at 40; T3 exits at 36; T1 joins both: 40. */
static const char cv_barrier[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 30 lock 1\n"
	"3 20 lock 1\n"
	"3 0 broadcast 1 1\n"
	"3 5 unlock 1\n"
	"2 0 cwait 1 1\n"
	"2 5 unlock 1\n"
	"2 0 exit\n"
	"3 1 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 exit\n";

/* Read-write lock, FIFO between waiters: T2 read-holds from 10; T4 asks
 * to write at 15 and queues; T3 asks to read at 20 and queues behind the
 * writer; T2 unlocks at 110 -> T4 writes, unlocks at 115 -> T3 reads,
 * unlocks at 215. */
static const char rwlock_fifo[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 create 4\n"
	"2 10 rdlock 1\n"
	"3 20 rdlock 1\n"
	"2 100 rwunlock 1\n"
	"3 100 rwunlock 1\n"
	"4 15 wrlock 1\n"
	"4 5 rwunlock 1\n"
	"2 0 exit\n"
	"3 0 exit\n"
	"4 0 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 join 4\n"
	"1 0 exit\n";

/* Sleep on one processor: T1 works 10 (0..10 under fifo), sleeps until
 * 110; T2 runs 10..210 (fifo keeps the CPU); T1 runs 210..215.
 * Under ps: T1 and T2 share 0..20 (T1 done with 10), T2 alone 20..120
 * (T2 has 90 left), T1 back at 120: 5 units at rate 1/2 -> 130, T2 alone
 * for its last 85 -> 215. */
static const char sleep_one_cpu[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 10 sleep 100\n"
	"1 5 exit\n"
	"2 200 exit\n";

/* trylock busy does not block: T1 goes on while T2 holds the mutex. */
static const char trylock_busy[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"2 0 lock 1\n"
	"1 10 trylock 1 busy\n"
	"1 5 exit\n"
	"2 100 unlock 1\n"
	"2 0 exit\n";

/* trylock ok behaves as lock: T2 holds the mutex from 0 to 100; T1 asks at
 * 10 and blocks until 100, exits at 105. */
static const char trylock_ok[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"2 0 lock 1\n"
	"2 100 unlock 1\n"
	"1 10 trylock 1 ok\n"
	"1 0 unlock 1\n"
	"1 5 exit\n"
	"2 0 exit\n";

/* Policies on one processor: T2 needs 100, T3 50.  fifo: T2 0..100, T3
 * 100..150.  ps: T3 done at 100, T2 at 150.  rr:30: T2 0-30, T3 30-60,
 * T2 60-90, T3 90-110 (done), T2 110-150. */
static const char two_workers[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 exit\n"
	"2 100 exit\n"
	"3 50 exit\n";

/* ps in cycles (docs/sim.md).  Processor 0 runs T2 (2), T3 (4) and T4
 * (waits for T5's post, then 3); T1 and T5 on processor 1.  From 0, T2 and
 * T3 share processor 0 in cycles of 2 ticks.  T5 posts at 1, inside a
 * cycle: T4 joins at the boundary 2, when T2 has 1 unit left, T3 3, T4 3.
 * Cycles of 3: T2 ends after one, at 5.  Cycles of 2: T3 and T4 need 2
 * more each: both end at 9.  (The fluid limit would give 11/2 and 17/2.)
 * Under fifo: T2 0-2, T3 2-6, T4 6-9. */
static const char ps_fraction[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 create 4\n"
	"1 0 create 5\n"
	"5 1 post 1\n"
	"5 0 exit\n"
	"4 0 wait 1\n"
	"2 2 exit\n"
	"4 3 exit\n"
	"3 4 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 join 4\n"
	"1 0 join 5\n"
	"1 0 exit\n";

/* Latency, T1 on processor 0, T2 on 1.  T1 posts at 10.  Blocked waiter
 * (T2 waits at 0): woken at 10 + t.  Late arrival (T2 waits at 20): it
 * proceeds at max(20, 10 + t).  T2 exits 5 later; T1's join pays t again. */
static const char lat_blocked[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 10 post 1\n"
	"2 0 wait 1\n"
	"2 5 exit\n"
	"1 0 join 2\n"
	"1 0 exit\n";
static const char lat_late[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 10 post 1\n"
	"2 20 wait 1\n"
	"2 5 exit\n"
	"1 0 join 2\n"
	"1 0 exit\n";

/* Barrier: T2 (10), T3 (30), T4 (20) meet at barrier 1 of 3; all pass at
 * 30; then 5 each: 35. */
static const char barrier3[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 create 4\n"
	"2 10 barrier 1 3\n"
	"3 30 barrier 1 3\n"
	"4 20 barrier 1 3\n"
	"2 5 exit\n"
	"3 5 exit\n"
	"4 5 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 join 4\n"
	"1 0 exit\n";

/* Semaphore with an initial token: sem 1 starts at 1, T2 and T3 each wait
 * (at 10 and 20); T2 takes the initial token at 10; T3 waits until T1
 * posts at 50 (T1 works 50); T3 exits 1 later: 51. */
static const char sem_init[] =
	"shadowbind-trace 1\n"
	"sem 1 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 10 wait 1\n"
	"2 0 exit\n"
	"1 50 post 1\n"
	"3 20 wait 1\n"
	"3 1 exit\n"
	"1 0 exit\n";

/* Deadlock of the Direct model: T2 locks 1 then 2, T3 locks 2 then 1, at
 * the same times on their own processors (recorded one after the other). */

/* Two threads contending for one mutex: T2 (lock at 10, holds 100), T3
 * (lock at 5, holds 100).  Recorded T2 first.  Own processors: T3 locks
 * at 5, T2 waits until 105, done 205.  One processor, fifo: T2 runs first
 * (created first): locks at 10, holds until 110 (runs to block: it does
 * not block), exits; T3 runs 110..115, locks, 215. */
static const char mutex2[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 10 lock 1\n"
	"2 100 unlock 1\n"
	"2 0 exit\n"
	"3 5 lock 1\n"
	"3 100 unlock 1\n"
	"3 0 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 exit\n";

/* trywait: T2 tries at 10 while sem 1 is empty (busy: goes on, exits at
 * 15); T3's trywait ok at 20 takes the token T1 posted at 5; with t = 50
 * on processors 0 (T1) and 1 (T3) it proceeds at 55, exits at 56. */
static const char trywait[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 10 trywait 1 busy\n"
	"2 5 exit\n"
	"1 5 post 1\n"
	"1 0 exit\n"
	"3 20 trywait 1 ok\n"
	"3 1 exit\n";

/* Issue 9.1: a woken cwait thread asks for its mutex when its wake-up
 * arrives.  T1 on processor 0, T2 on 1, T3 on 2, fifo, t = 10.  T2 locks
 * M at 0 (never released before: no latency), cwaits at 0 (releases M
 * from processor 1, registers).  T3 locks M at 21 (21 >= 0 + 10: no
 * wait), unlocks at 26 from processor 2.  T1 signals at 20 from
 * processor 0: T2's wake-up arrives at 30, when M is free; its last
 * release (26, processor 2) lets T2 go on at 36: unlock, exit at 36.
 * (Asking at the signal, 20, T2 would take M before T3 and T3 would end
 * at 45.) */
static const char cwait_arrival[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 0 lock 1\n"
	"1 20 signal 1 1\n"
	"3 21 lock 1\n"
	"3 5 unlock 1\n"
	"2 0 cwait 1 1\n"
	"2 0 unlock 1\n"
	"2 0 exit\n"
	"3 0 exit\n"
	"1 0 exit\n";

/* Issue 9.2: a read lock waits only for the last writer's release.  T4
 * on processor 0, T1-T3 on processor 1, fifo, t = 10.  At 0 T1 creates
 * 4, 3, 2 and exits; T3 (processor 1) write-locks and unlocks at 0; T4
 * (processor 0) read-locks at 0: the writer released on processor 1 at
 * 0, so T4 waits until 10, read-unlocks at 10 (processor 0), arrives at
 * the barrier at 10.  T3 arrives at 5; T2 runs 5..11 and read-locks at
 * 11: the last writer's release (0, processor 1, T2's own) costs nothing
 * (T4's read-unlock at 10 on processor 0 does not count); T2 arrives at
 * 11, third: releases T3 (same processor) and T4 (processor 0: at 21).
 * T4 exits at 21.  (Waiting for T4's unlock, T2 would read-lock at 20,
 * and T4 exit at 30.) */
static const char rdlock_writer[] =
	"shadowbind-trace 1\n"
	"1 0 create 4\n"
	"1 0 create 3\n"
	"3 0 wrlock 7\n"
	"3 0 rwunlock 7\n"
	"4 0 rdlock 7\n"
	"1 0 create 2\n"
	"4 0 rwunlock 7\n"
	"2 6 rdlock 7\n"
	"3 5 barrier 8 3\n"
	"2 0 barrier 8 3\n"
	"4 0 barrier 8 3\n"
	"4 0 exit\n"
	"2 0 exit\n"
	"3 0 exit\n"
	"1 0 exit\n";

/* Issue 9.3: unbound ps, 2 processors.  T1 creates T2-T4 and exits at 0;
 * each needs 1 unit: 3 threads on 2 processors, one cycle in which each
 * gets the 1 unit it needs (S = 3 units, ceil(3/2) = 2 ticks).  At 2 the
 * three act in increasing id: T2 trylocks 8 (ok) and locks 20 (0 work:
 * it acts again before T3); T3 asks for 20 and blocks; T4 exits.  (Had
 * the pool's cycle overshoot ordered them, T3 would have won 20.)  T2
 * alone runs 2..12, unlocks 20 (T3 ready at
 * 12, joins: 2 threads on 2 processors, each at full speed), unlocks 8,
 * exits at 12.  T3 unlocks at 13 and exits at 33. */
static const char ps_pool_order[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 create 4\n"
	"1 0 exit\n"
	"2 1 trylock 8 ok\n"
	"2 0 lock 20\n"
	"2 10 unlock 20\n"
	"2 0 unlock 8\n"
	"2 0 exit\n"
	"3 1 lock 20\n"
	"3 1 unlock 20\n"
	"3 20 exit\n"
	"4 1 exit\n";

/* Issue 9.4: the unbound ps pool loses no capacity.  2 processors, T2-T4
 * need 3 units each.  Cycle 1 (0..3): 3 ticks, 2 units each (1 left
 * each).  The last cycle gives each the 1 unit it needs: S = 3 units on
 * 2 processors, ceil(3/2) = 2 ticks: all end at 5 (a full cycle, giving
 * 2 units each, would end at 6; the fluid limit 9/2). */
static const char ps_pool_capacity[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 create 4\n"
	"1 0 exit\n"
	"2 3 exit\n"
	"3 3 exit\n"
	"4 3 exit\n";

/* The pool's last cycle lasts at least the largest need in it (rate <=
 * 1): 4 processors, T2 needs 4 units, T3-T6 1 each: S = 8 units,
 * ceil(8/4) = 2 ticks, but T2 needs 4 ticks: all end at 4. */
static const char ps_pool_rate[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 create 4\n"
	"1 0 create 5\n"
	"1 0 create 6\n"
	"1 0 exit\n"
	"2 4 exit\n"
	"3 1 exit\n"
	"4 1 exit\n"
	"5 1 exit\n"
	"6 1 exit\n";

/* Issue 9.5: cwait leaves its processor before it hands off its mutex.
 * Unbound fifo, 2 processors, switch cost 3.  At 0 T1 runs on processor
 * 0, creates T2 (takes idle processor 1, first thread there: free start)
 * and T3 (queued), exits; T3 starts on 0 after a switch, at 3.  T3 locks
 * M at 3; T2 asks at 5 and blocks (processor 1 idle).  T3 cwaits at 8:
 * it leaves processor 0 first, then hands M to T2, which takes the lowest
 * idle processor, 0 (last ran T3: a switch), starts at 11, signals at 21
 * (T3 asks for M: held by T2, queues), unlocks at 21 (M to T3, which
 * takes idle processor 1 after a switch, at 24) and exits at 21; T3
 * unlocks and exits at 24.  (Handing M off first, T2 would take
 * processor 1 with no switch and the run would end at 18.) */
static const char cwait_leaves_first[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 exit\n"
	"3 0 lock 1\n"
	"2 5 lock 1\n"
	"2 10 signal 1 1\n"
	"2 0 unlock 1\n"
	"3 5 cwait 1 1\n"
	"3 0 unlock 1\n"
	"3 0 exit\n"
	"2 0 exit\n";

/* A blocked signaller asks again for all its mutexes at once (ref's
 * differential test, seed 8269's family).  ps, t = 0, T2 on processor 0,
 * the others shadow.  At 0: T2 takes M2 and cwaits; T3 broadcasts (wakes
 * T2, which takes M2, unlocks and exits), locks M1 and M2, broadcasts
 * with no waiter: blocks releasing M1, M2.  T8 creates T10 and locks M1;
 * T10 queues for M1.  At 1 T8 takes M2, hands M1 to T10, cwaits
 * (releasing M2, registering): T3 queues on M1 (T10's) and takes M2 at
 * once, then wakes T8, which queues on M2 behind it.  T10 unlocks M1 at
 * 1: T3 holds both, unlocks M2 (to T8) and exits; all exit at 1.  (One
 * mutex after the other, T8 would take M2 and exit holding it: deadlock.) */
static const char sig_all_at_once[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"3 0 create 8\n"
	"8 0 create 10\n"
	"2 0 trylock 2 ok\n"
	"8 0 lock 1\n"
	"8 1 trylock 2 ok\n"
	"3 0 broadcast 2 1\n"
	"8 0 unlock 1\n"
	"10 0 trylock 1 ok\n"
	"2 0 cwait 2 2\n"
	"2 0 unlock 2\n"
	"10 0 unlock 1\n"
	"3 0 lock 1\n"
	"3 0 lock 2\n"
	"1 0 exit\n"
	"3 0 broadcast 2 1\n"
	"10 0 exit\n"
	"3 0 unlock 2\n"
	"8 0 cwait 2 2\n"
	"2 0 exit\n"
	"3 0 exit\n"
	"8 0 exit\n";

/* A blocked signaller wakes its waiters from the processor it blocked on
 * (ref's differential test).  Unbound rr:1, 2 processors, t = 4.  At 0:
 * T1 on 0 creates T2 (takes 1) and T5, exits (T5 takes 0).  T2
 * broadcasts with no waiter on 1 and blocks; T5 creates T9 (takes 1) and
 * exits; T9 locks M2 and cwaits on 1: T2 goes on (the registration came
 * from its own processor 1) and wakes T9 from processor 1, where T9 ran:
 * no latency, all exit at 0.  (Waking from processor 0, which T2 is
 * about to run on, T9 would wait until 4.) */
static const char sig_wakes_from[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 5\n"
	"5 0 create 9\n"
	"1 0 exit\n"
	"5 0 exit\n"
	"9 0 lock 2\n"
	"2 0 broadcast 2 1\n"
	"9 0 cwait 2 2\n"
	"2 0 exit\n"
	"9 0 exit\n";

/* rr with a thread alone on its processor (issue 14.2: skipped ahead),
 * rr:10, T1 shadow.  P0 runs T4 then T2, P1 T5 then T3.  T4 works 5 and
 * blocks in wait 1: T2 starts at 5 (quantum boundaries 15, 25, 35, ...);
 * T5 works 5 and sleeps until 35: T3 starts at 5 (same boundaries).  At
 * 35 T5 is ready: P1's expiry at 35 starts it; it posts at once and T4
 * joins P0's queue at 35.
 * Variant A (P0: T2, P1: T3): P0's expiry at 35 (thread 2) came before
 * P1's (thread 3) and found P0's queue empty, so T4 waits for 45, runs
 * 45..50; T2 (40 units done) ends at 110; T3 ends at 105.
 * Variant B (P0: T3, P1: T2): P0's expiry at 35 (thread 3) comes after
 * P1's (thread 2): T4 runs 35..40, T3 (30 done) ends at 110, T2 at 105. */
static const char rr_alone[] =
	"shadowbind-trace 1\n"
	"1 0 create 4\n"
	"1 0 create 5\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 exit\n"
	"5 5 sleep 30\n"
	"5 0 post 1\n"
	"5 0 exit\n"
	"4 5 wait 1\n"
	"4 5 exit\n"
	"2 100 exit\n"
	"3 100 exit\n";

/* Unbound (2 processors) the same program: T4 runs on 1 and blocks at
 * 5, T5 on 0 sleeps at 5; T2 (on 1) and T3 (on 0) run alone from 5.  At
 * 35 T5 joins the queue; T2's expiry (35, smaller id) gives processor 1
 * to T5, which posts (T4 queues behind T2) and exits: T2 takes 1 again;
 * T3's expiry gives processor 0 to T4, 35..40.  T2 ends at 105, T3 at
 * 110. */

/* sleep 0 is a yield: one processor, fifo.  T2 runs 0..5, yields to the
 * back of the queue: T3 runs 5..15, T2 15..20. */
static const char yield0[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 exit\n"
	"2 5 sleep 0\n"
	"2 5 exit\n"
	"3 10 exit\n";

/* Tie order of rr expiries, rr:5: T1 shadow; T2, T4 on processor 0; T5,
 * T3 on processor 1 (created in the order 5, 3, 2, 4).  At 0 T5 waits on
 * the empty semaphore and blocks; T3 runs on 1, T2 on 0.  At 5 both
 * quanta expire: T2's first (smaller id): T4 starts on 0 and, with no
 * work, posts before T3's expiry applies: T5 joins processor 1's queue,
 * then T3's expiry puts T3 behind it: T5 runs 5..8.  (Both expiries
 * first: T3 would keep processor 1 until 10, and T5 end at 13.) */
static const char rr_ties[] =
	"shadowbind-trace 1\n"
	"1 0 create 5\n"
	"1 0 create 3\n"
	"1 0 create 2\n"
	"1 0 create 4\n"
	"1 0 exit\n"
	"3 20 exit\n"
	"2 10 exit\n"
	"4 0 post 1\n"
	"4 0 exit\n"
	"5 0 wait 1\n"
	"5 3 exit\n";

static const struct hand_case hand[] = {
	{.name = "issue 9.1 cwait asks at arrival", .trace = cwait_arrival, .policy = "fifo",
	 .k = 3, .latency = 10, .by_id = {0, 0, 1, 2}, .bound = 1, .status = SIM_OK, .num = 36,
	 .den = 1, .end_id = 2, .end_num = 36, .end_den = 1},
	{.name = "issue 9.1 cwait, t = 0", .trace = cwait_arrival, .policy = "fifo", .k = 3,
	 .latency = 0, .by_id = {0, 0, 1, 2}, .bound = 1, .status = SIM_OK, .num = 26, .den = 1,
	 .end_id = 2, .end_num = 20, .end_den = 1},
	{.name = "issue 9.2 rdlock after writer", .trace = rdlock_writer, .policy = "fifo", .k = 2,
	 .latency = 10, .by_id = {0, 1, 1, 1, 0}, .bound = 1, .status = SIM_OK, .num = 21,
	 .den = 1, .end_id = 4, .end_num = 21, .end_den = 1},
	{.name = "issue 9.3 ps pool id order", .trace = ps_pool_order, .policy = "ps", .k = 2,
	 .latency = 0, .status = SIM_OK, .num = 33, .den = 1, .end_id = 2, .end_num = 12,
	 .end_den = 1, .unbound = 1},
	{.name = "issue 9.4 ps pool capacity", .trace = ps_pool_capacity, .policy = "ps", .k = 2,
	 .latency = 0, .status = SIM_OK, .num = 5, .den = 1, .end_id = 3, .end_num = 5,
	 .end_den = 1, .unbound = 1},
	{.name = "ps pool rate <= 1", .trace = ps_pool_rate, .policy = "ps", .k = 4, .latency = 0,
	 .status = SIM_OK, .num = 4, .den = 1, .end_id = 3, .end_num = 4, .end_den = 1,
	 .unbound = 1},
	{.name = "issue 9.5 cwait leaves first", .trace = cwait_leaves_first, .policy = "fifo",
	 .k = 2, .latency = 0, .status = SIM_OK, .num = 24, .den = 1, .end_id = 2, .end_num = 21,
	 .end_den = 1, .unbound = 1, .switch_cost = 3},
	{.name = "issue 9.5 cwait leaves first rr", .trace = cwait_leaves_first,
	 .policy = "rr:100", .k = 2, .latency = 0, .status = SIM_OK, .num = 24, .den = 1,
	 .end_id = 2, .end_num = 21, .end_den = 1, .unbound = 1, .switch_cost = 3},
	{.name = "signaller asks for all mutexes at once", .trace = sig_all_at_once,
	 .policy = "ps", .k = 1, .latency = 0, .by_id = {0, S, 0, S, 0, 0, 0, 0, S, 0, S},
	 .bound = 1, .status = SIM_OK, .num = 1, .den = 1, .end_id = 3, .end_num = 1,
	 .end_den = 1},
	{.name = "signaller wakes from where it blocked", .trace = sig_wakes_from,
	 .policy = "rr:1", .k = 2, .latency = 4, .status = SIM_OK, .num = 0, .den = 1, .end_id = 9,
	 .end_num = 0, .end_den = 1, .unbound = 1},
	{.name = "rr alone, arrival after the expiry", .trace = rr_alone, .policy = "rr:10",
	 .k = 2, .latency = 0, .by_id = {0, S, 0, 1, 0, 1}, .bound = 1, .status = SIM_OK,
	 .num = 110, .den = 1, .end_id = 4, .end_num = 50, .end_den = 1},
	{.name = "rr alone, arrival before the expiry", .trace = rr_alone, .policy = "rr:10",
	 .k = 2, .latency = 0, .by_id = {0, S, 1, 0, 0, 1}, .bound = 1, .status = SIM_OK,
	 .num = 110, .den = 1, .end_id = 4, .end_num = 40, .end_den = 1},
	{.name = "rr alone, unbound", .trace = rr_alone, .policy = "rr:10", .k = 2, .latency = 0,
	 .status = SIM_OK, .num = 110, .den = 1, .end_id = 4, .end_num = 40, .end_den = 1,
	 .unbound = 1},
	{.name = "sleep 0 yields", .trace = yield0, .policy = "fifo", .k = 1, .latency = 0,
	 .by_id = {0, 0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 20, .den = 1, .end_id = 3,
	 .end_num = 15, .end_den = 1},
	{.name = "rr expiry ties", .trace = rr_ties, .policy = "rr:5", .k = 2, .latency = 0,
	 .by_id = {0, S, 0, 1, 0, 1}, .bound = 1, .status = SIM_OK, .num = 23, .den = 1,
	 .end_id = 5, .end_num = 8, .end_den = 1},
	{.name = "trywait busy", .trace = trywait, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_OK, .num = 21, .den = 1, .end_id = 2, .end_num = 15, .end_den = 1},
	{.name = "trywait ok", .trace = trywait, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_OK, .num = 21, .den = 1, .end_id = 3, .end_num = 21, .end_den = 1},
	{.name = "trywait ok latency", .trace = trywait, .policy = "fifo", .k = 2, .latency = 50,
	 .by_id = {0, 0, 0, 1}, .bound = 1, .status = SIM_OK, .num = 56, .den = 1, .end_id = 3,
	 .end_num = 56, .end_den = 1},
	{.name = "cv early signal t=0", .trace = cv_early_signal, .policy = "ps", .k = 1,
	 .latency = 0, .status = SIM_OK, .num = 116, .den = 1, .end_id = 2, .end_num = 115,
	 .end_den = 1},
	{.name = "cv early signal t=50", .trace = cv_early_signal, .policy = "ps", .k = 1,
	 .latency = 50, .status = SIM_OK, .num = 266, .den = 1, .end_id = 2, .end_num = 215,
	 .end_den = 1},
	{.name = "cv early signal fifo", .trace = cv_early_signal, .policy = "fifo", .k = 1,
	 .latency = 0, .status = SIM_OK, .num = 116, .den = 1, .end_id = 2, .end_num = 115,
	 .end_den = 1},
	{.name = "barrier via mutex+cond", .trace = cv_barrier, .policy = "ps", .k = 1,
	 .latency = 0, .status = SIM_OK, .num = 40, .den = 1, .end_id = 3, .end_num = 36,
	 .end_den = 1},
	{.name = "barrier via mutex+cond rr", .trace = cv_barrier, .policy = "rr:3", .k = 1,
	 .latency = 0, .status = SIM_OK, .num = 40, .den = 1, .end_id = 3, .end_num = 36,
	 .end_den = 1},
	{.name = "rwlock fifo", .trace = rwlock_fifo, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_OK, .num = 215, .den = 1, .end_id = 4, .end_num = 115, .end_den = 1},
	{.name = "sleep fifo", .trace = sleep_one_cpu, .policy = "fifo", .k = 1, .latency = 0,
	 .by_id = {0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 215, .den = 1, .end_id = 1,
	 .end_num = 215, .end_den = 1},
	{.name = "sleep ps", .trace = sleep_one_cpu, .policy = "ps", .k = 1, .latency = 0,
	 .by_id = {0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 215, .den = 1, .end_id = 1,
	 .end_num = 130, .end_den = 1},
	{.name = "trylock busy", .trace = trylock_busy, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_OK, .num = 100, .den = 1, .end_id = 1, .end_num = 15, .end_den = 1},
	{.name = "trylock ok", .trace = trylock_ok, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_OK, .num = 105, .den = 1, .end_id = 1, .end_num = 105, .end_den = 1},
	{.name = "fifo one cpu", .trace = two_workers, .policy = "fifo", .k = 1, .latency = 0,
	 .by_id = {0, 0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 150, .den = 1, .end_id = 3,
	 .end_num = 150, .end_den = 1},
	{.name = "ps one cpu", .trace = two_workers, .policy = "ps", .k = 1, .latency = 0,
	 .by_id = {0, 0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 150, .den = 1, .end_id = 3,
	 .end_num = 100, .end_den = 1},
	{.name = "rr:30 one cpu", .trace = two_workers, .policy = "rr:30", .k = 1, .latency = 0,
	 .by_id = {0, 0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 150, .den = 1, .end_id = 3,
	 .end_num = 110, .end_den = 1},
	{.name = "rr:30 one cpu T2", .trace = two_workers, .policy = "rr:30", .k = 1, .latency = 0,
	 .by_id = {0, 0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 150, .den = 1, .end_id = 2,
	 .end_num = 150, .end_den = 1},
	{.name = "ps cycles T2", .trace = ps_fraction, .policy = "ps", .k = 2, .latency = 0,
	 .by_id = {0, 1, 0, 0, 0, 1}, .bound = 1, .status = SIM_OK, .num = 9, .den = 1,
	 .end_id = 2, .end_num = 5, .end_den = 1},
	{.name = "ps cycles T4", .trace = ps_fraction, .policy = "ps", .k = 2, .latency = 0,
	 .by_id = {0, 1, 0, 0, 0, 1}, .bound = 1, .status = SIM_OK, .num = 9, .den = 1,
	 .end_id = 4, .end_num = 9, .end_den = 1},
	{.name = "fifo fraction T4", .trace = ps_fraction, .policy = "fifo", .k = 2, .latency = 0,
	 .by_id = {0, 1, 0, 0, 0, 1}, .bound = 1, .status = SIM_OK, .num = 9, .den = 1,
	 .end_id = 3, .end_num = 6, .end_den = 1},
	{.name = "latency blocked", .trace = lat_blocked, .policy = "ps", .k = 2, .latency = 50,
	 .by_id = {0, 0, 1}, .bound = 1, .status = SIM_OK, .num = 115, .den = 1, .end_id = 2,
	 .end_num = 65, .end_den = 1},
	{.name = "latency blocked t=0", .trace = lat_blocked, .policy = "ps", .k = 2, .latency = 0,
	 .by_id = {0, 0, 1}, .bound = 1, .status = SIM_OK, .num = 15, .den = 1, .end_id = 2,
	 .end_num = 15, .end_den = 1},
	{.name = "latency late arrival", .trace = lat_late, .policy = "fifo", .k = 2,
	 .latency = 50, .by_id = {0, 0, 1}, .bound = 1, .status = SIM_OK, .num = 115, .den = 1,
	 .end_id = 2, .end_num = 65, .end_den = 1},
	{.name = "latency late arrival, small t", .trace = lat_late, .policy = "fifo", .k = 2,
	 .latency = 5, .by_id = {0, 0, 1}, .bound = 1, .status = SIM_OK, .num = 30, .den = 1,
	 .end_id = 2, .end_num = 25, .end_den = 1},
	{.name = "latency same processor", .trace = lat_late, .policy = "fifo", .k = 2,
	 .latency = 50, .by_id = {0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 35, .den = 1,
	 .end_id = 2, .end_num = 35, .end_den = 1},
	{.name = "barrier", .trace = barrier3, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_OK, .num = 35, .den = 1, .end_id = 2, .end_num = 35, .end_den = 1},
	{.name = "sem initial token", .trace = sem_init, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_OK, .num = 51, .den = 1, .end_id = 2, .end_num = 10, .end_den = 1},
	{.name = "mutex contention shadow", .trace = mutex2, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_OK, .num = 205, .den = 1, .end_id = 2, .end_num = 205, .end_den = 1},
	{.name = "mutex contention 1 cpu fifo", .trace = mutex2, .policy = "fifo", .k = 1,
	 .latency = 0, .by_id = {0, 0, 0, 0}, .bound = 1, .status = SIM_OK, .num = 215, .den = 1,
	 .end_id = 2, .end_num = 110, .end_den = 1},
	{.name = "deadlock", .trace = tu_lock_inversion, .policy = "ps", .k = 1, .latency = 0,
	 .status = SIM_DEADLOCK, .num = 0, .den = 1, .end_id = -1, .end_num = 0, .end_den = 1},
};

static void test_hand_cases(void **state)
{
	(void)state;
	/* every row runs; each failing row is reported by name */
	int failed = 0;
	for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
		const struct hand_case *h = &hand[i];
		struct tu_sim c;
		tu_sim_open(&c, h->trace);
		struct sim_result res;
		int rc;
		if (h->unbound || h->switch_cost) {
			struct sim_params par;
			sim_params_init(&par);
			par.cpus = h->k;
			par.latency = h->latency;
			par.switch_cost = h->switch_cost;
			par.mode = h->unbound ? SIM_UNBOUND : SIM_BOUND;
			assert_int_equal(sim_policy_parse(h->policy, &par), 0);
			int32_t *b = h->bound ? bind_by_id(c.tr, h->by_id, 12) : NULL;
			rc = sim_run(c.p, c.w, &par, b, SIM_STATS | SIM_SCHEDULE, &res);
			free(b);
		} else {
			rc = run_policy(&c, h->policy, h->k, h->latency, h->bound ? h->by_id : NULL, 12,
			                SIM_STATS | SIM_SCHEDULE, &res);
		}
		int64_t ix = h->end_id >= 0 ? trace_thread_index(c.tr, (uint32_t)h->end_id) : -1;
		if (rc != h->status) {
			print_message("%s: status %d, expected %d\n", h->name, rc, h->status);
			failed++;
		} else if (rc == SIM_OK && (res.makespan.num != h->num || res.makespan.den != h->den)) {
			print_message("%s: makespan %llu/%llu, expected %llu/%llu\n", h->name,
			              (unsigned long long)res.makespan.num, (unsigned long long)res.makespan.den,
			              (unsigned long long)h->num, (unsigned long long)h->den);
			failed++;
		} else if (rc == SIM_OK && h->end_id >= 0 && ix < 0) {
			print_message("%s: no thread %d\n", h->name, h->end_id);
			failed++;
		} else if (rc == SIM_OK && h->end_id >= 0 &&
		           (res.threads[ix].end.num != h->end_num || res.threads[ix].end.den != h->end_den)) {
			print_message("%s: thread %d ends %llu/%llu, expected %llu/%llu\n", h->name, h->end_id,
			              (unsigned long long)res.threads[ix].end.num,
			              (unsigned long long)res.threads[ix].end.den,
			              (unsigned long long)h->end_num, (unsigned long long)h->end_den);
			failed++;
		}
		tu_sim_close(&c);
	}
	if (failed)
		fail_msg("%d of %zu hand cases failed (listed above)", failed,
		         sizeof hand / sizeof hand[0]);
}

/* The full schedule, one processor under fifo (two_workers): T2 runs
 * 0..100, T3 100..150 (T1's zero-length interval is left out). */
static void test_schedule(void **state)
{
	(void)state;
	struct tu_sim c;
	tu_sim_open(&c, two_workers);
	static const int32_t one[] = {0, 0, 0, 0};
	struct sim_result res;
	assert_int_equal(run_policy(&c, "fifo", 1, 0, one, 4, SIM_SCHEDULE, &res), SIM_OK);
	assert_int_equal(res.nintervals, 2);
	assert_int_equal(c.tr->threads[res.intervals[0].thread].id, 2);
	assert_int_equal(res.intervals[0].proc, 0);
	assert_time(res.intervals[0].from, 0, 1);
	assert_time(res.intervals[0].to, 100, 1);
	assert_int_equal(c.tr->threads[res.intervals[1].thread].id, 3);
	assert_time(res.intervals[1].from, 100, 1);
	assert_time(res.intervals[1].to, 150, 1);
	tu_sim_close(&c);

	/* Synchronizations of sem_init, each thread on its own processor: T2
	 * takes the initial token at 10 (no releaser); T3 waits from 20 and
	 * is granted at 50 by T1's post. */
	tu_sim_open(&c, sem_init);
	assert_int_equal(run_policy(&c, "ps", 1, 0, NULL, 0, SIM_SCHEDULE, &res), SIM_OK);
	int seen = 0;
	for (size_t i = 0; i < res.nsyncs; i++) {
		const struct sim_sync *y = &res.syncs[i];
		uint32_t id = c.tr->threads[y->thread].id;
		if (c.tr->rec[y->rec].op != TRACE_WAIT)
			continue;
		if (id == 2) {
			assert_time(y->time, 10, 1);
			assert_int_equal(y->releaser, -1);
			seen |= 1;
		} else if (id == 3) {
			assert_time(y->time, 50, 1);
			assert_int_equal(c.tr->threads[y->releaser].id, 1);
			seen |= 2;
		}
	}
	assert_int_equal(seen, 3);
	/* SIM_NO_SYNCS: the same run's intervals (copied from the run above
	 * before the workspace is reused), no synchronizations */
	size_t niv = res.nintervals;
	struct sim_interval *iv = malloc(niv * sizeof *iv);
	assert_non_null(iv);
	memcpy(iv, res.intervals, niv * sizeof *iv);
	assert_int_equal(run_policy(&c, "ps", 1, 0, NULL, 0, SIM_SCHEDULE | SIM_NO_SYNCS, &res),
	                 SIM_OK);
	assert_int_equal(res.nsyncs, 0);
	assert_int_equal(res.nintervals, niv);
	for (size_t i = 0; i < niv; i++) {
		assert_int_equal(res.intervals[i].thread, iv[i].thread);
		assert_int_equal(res.intervals[i].proc, iv[i].proc);
		assert_int_equal(sim_time_cmp(res.intervals[i].from, iv[i].from), 0);
		assert_int_equal(sim_time_cmp(res.intervals[i].to, iv[i].to), 0);
	}
	free(iv);
	/* SIM_PROFILE: the time during which exactly i threads ran, by hand:
	 * T1 runs [0, 50] (its post at 50, exit), T2 [0, 10] (the initial
	 * token), T3 [0, 20] then, woken by the post, [50, 51]: 3 threads
	 * over [0, 10), 2 over [10, 20), 1 over [20, 51); no intervals kept */
	assert_int_equal(run_policy(&c, "ps", 1, 0, NULL, 0,
	                            SIM_SCHEDULE | SIM_NO_SYNCS | SIM_PROFILE, &res),
	                 SIM_OK);
	assert_int_equal(res.nintervals, 0);
	assert_non_null(res.profile);
	static const uint64_t prof[] = {0, 31, 10, 10};
	for (uint32_t i = 0; i <= c.tr->nthreads; i++)
		assert_time(res.profile[i], prof[i], 1);
	assert_time(res.makespan, 51, 1);
	tu_sim_close(&c);
}

static void test_deadlock_report(void **state)
{
	(void)state;
	struct tu_sim c;
	tu_sim_open(&c, tu_lock_inversion);
	struct sim_result res;
	assert_int_equal(run_policy(&c, "fifo", 1, 0, NULL, 0, 0, &res), SIM_DEADLOCK);
	/* T1 waits in join 2; T2 waits for mutex 2 held by T3; T3 for 1 held by T2. */
	assert_int_equal(res.nblocked, 3);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sim_deadlock_print(c.p, &res, f);
	fclose(f);
	assert_string_equal(buf,
		"thread 1 waits at line 14 to join thread 2\n"
		"thread 2 waits at line 5 to lock mutex 2, held by thread 3\n"
		"thread 3 waits at line 10 to lock mutex 1, held by thread 2\n");
	free(buf);
	tu_sim_close(&c);
}

/* The deadlock report for every kind of object a thread can wait on, and
 * every operation that can block there (Direct model, each thread on a
 * processor of its own).  Each program is a valid recording whose threads
 * ran one after the other; simulated side by side, the works in front of
 * the first acquisitions make them meet in the wrong order.  Expected
 * texts by hand from docs/simulation.md (Direct model) and sim.h's report
 * form: "thread T waits at line L to <verb> <kind> <id>[, held by thread
 * H]" (a holder for mutexes, rwlocks (the writer) and threads); the verbs
 * are those trace.h lists for each operation. */
static const struct {
	const char *name, *text, *report;
	uint64_t at; /* the time of the deadlock */
} deadlocks[] = {
	/* T2, T3 take semaphores 1, 2 (one token each) at 0, work 10 and
	 * each waits for the other's: no holder for a semaphore. */
	{ "semaphores",
	  "shadowbind-trace 1\nsem 1 1\nsem 2 1\n1 0 create 2\n1 0 create 3\n"
	  "2 0 wait 1\n2 10 wait 2\n2 0 post 2\n2 0 post 1\n2 0 exit\n"
	  "3 0 wait 2\n3 10 wait 1\n3 0 post 1\n3 0 post 2\n3 0 exit\n"
	  "1 0 join 2\n1 0 join 3\n1 0 exit\n",
	  "thread 1 waits at line 16 to join thread 2\n"
	  "thread 2 waits at line 7 to wait on semaphore 2\n"
	  "thread 3 waits at line 12 to wait on semaphore 1\n", 10 },
	/* the same inversion with write locks: held by the writer */
	{ "write locks",
	  "shadowbind-trace 1\n1 0 create 2\n1 0 create 3\n"
	  "2 0 wrlock 1\n2 10 wrlock 2\n2 0 rwunlock 2\n2 0 rwunlock 1\n2 0 exit\n"
	  "3 0 wrlock 2\n3 10 wrlock 1\n3 0 rwunlock 1\n3 0 rwunlock 2\n3 0 exit\n"
	  "1 0 join 2\n1 0 join 3\n1 0 exit\n",
	  "thread 1 waits at line 14 to join thread 2\n"
	  "thread 2 waits at line 5 to wrlock rwlock 2, held by thread 3\n"
	  "thread 3 waits at line 10 to wrlock rwlock 1, held by thread 2\n", 10 },
	/* read locks wanted while the other holds the write lock */
	{ "read locks",
	  "shadowbind-trace 1\n1 0 create 2\n1 0 create 3\n"
	  "2 0 wrlock 1\n2 10 rdlock 2\n2 0 rwunlock 2\n2 0 rwunlock 1\n2 0 exit\n"
	  "3 0 wrlock 2\n3 10 rdlock 1\n3 0 rwunlock 1\n3 0 rwunlock 2\n3 0 exit\n"
	  "1 0 join 2\n1 0 join 3\n1 0 exit\n",
	  "thread 1 waits at line 14 to join thread 2\n"
	  "thread 2 waits at line 5 to rdlock rwlock 2, held by thread 3\n"
	  "thread 3 waits at line 10 to rdlock rwlock 1, held by thread 2\n", 10 },
	/* T3 locked mutex 1 first in the recording (after work 5); here T2
	 * takes it at 0 and waits at barrier 1 for T3, which waits for the
	 * mutex from 5; T2 arrives at 10. */
	{ "barrier",
	  "shadowbind-trace 1\n1 0 create 2\n1 0 create 3\n"
	  "3 5 lock 1\n3 0 unlock 1\n2 0 lock 1\n2 10 barrier 1 2\n3 0 barrier 1 2\n"
	  "2 0 unlock 1\n2 0 exit\n3 0 exit\n1 0 join 2\n1 0 join 3\n1 0 exit\n",
	  "thread 1 waits at line 12 to join thread 2\n"
	  "thread 2 waits at line 7 to pass barrier 1\n"
	  "thread 3 waits at line 4 to lock mutex 1, held by thread 2\n", 10 },
	/* the same with the recorded outcomes: trylock ok blocks as lock */
	{ "trylock ok",
	  "shadowbind-trace 1\n1 0 create 2\n1 0 create 3\n"
	  "3 5 trylock 1 ok\n3 0 unlock 1\n2 0 trylock 1 ok\n2 10 barrier 1 2\n"
	  "3 0 barrier 1 2\n2 0 unlock 1\n2 0 exit\n3 0 exit\n1 0 join 2\n1 0 join 3\n"
	  "1 0 exit\n",
	  "thread 1 waits at line 12 to join thread 2\n"
	  "thread 2 waits at line 7 to pass barrier 1\n"
	  "thread 3 waits at line 4 to lock mutex 1, held by thread 2\n", 10 },
	/* ... and trywait ok as wait (semaphore 1 has one token) */
	{ "trywait ok",
	  "shadowbind-trace 1\nsem 1 1\n1 0 create 2\n1 0 create 3\n"
	  "3 5 trywait 1 ok\n3 0 post 1\n2 0 trywait 1 ok\n2 10 barrier 1 2\n"
	  "3 0 barrier 1 2\n2 0 post 1\n2 0 exit\n3 0 exit\n1 0 join 2\n1 0 join 3\n"
	  "1 0 exit\n",
	  "thread 1 waits at line 13 to join thread 2\n"
	  "thread 2 waits at line 8 to pass barrier 1\n"
	  "thread 3 waits at line 5 to wait on semaphore 1\n", 10 },
	/* T2 holds mutex 2 across its cwait (registered at 10); T3, which
	 * would signal, waits for mutex 2 from 5: nobody signals. */
	{ "condition variable",
	  "shadowbind-trace 1\n1 0 create 2\n1 0 create 3\n"
	  "3 5 lock 2\n3 0 unlock 2\n2 0 lock 2\n2 0 lock 1\n3 0 signal 1 1\n"
	  "2 10 cwait 1 1\n2 0 unlock 1\n2 0 unlock 2\n2 0 exit\n3 0 exit\n"
	  "1 0 join 2\n1 0 join 3\n1 0 exit\n",
	  "thread 1 waits at line 14 to join thread 2\n"
	  "thread 2 waits at line 9 to be signalled on condition variable 1\n"
	  "thread 3 waits at line 4 to lock mutex 2, held by thread 2\n", 10 },
	/* T2 waits on condition variable 1 from 0; T3 locks mutex 1 at 5,
	 * signals (T2 woken, queued for mutex 1 behind T3) and waits for
	 * mutex 2, which T4 took at 0; T4 asks for mutex 1 at 20. */
	{ "cwait's mutex",
	  "shadowbind-trace 1\n1 0 create 2\n1 0 create 3\n1 0 create 4\n"
	  "4 0 lock 2\n4 20 lock 1\n4 0 unlock 1\n4 0 unlock 2\n4 0 exit\n"
	  "2 0 lock 1\n3 5 lock 1\n3 0 signal 1 1\n3 0 lock 2\n3 0 unlock 2\n3 0 unlock 1\n"
	  "2 0 cwait 1 1\n2 0 unlock 1\n2 0 exit\n3 0 exit\n"
	  "1 0 join 2\n1 0 join 3\n1 0 join 4\n1 0 exit\n",
	  "thread 1 waits at line 20 to join thread 2\n"
	  "thread 2 waits at line 16 to re-acquire after cwait mutex 1, held by thread 3\n"
	  "thread 3 waits at line 13 to lock mutex 2, held by thread 4\n"
	  "thread 4 waits at line 6 to lock mutex 1, held by thread 3\n", 20 },
};

static void test_deadlock_kinds(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof deadlocks / sizeof *deadlocks; i++) {
		struct tu_sim c;
		tu_sim_open(&c, deadlocks[i].text);
		struct sim_result res;
		int rc = run_policy(&c, "ps", 1, 0, NULL, 0, 0, &res);
		if (rc != SIM_DEADLOCK)
			fail_msg("%s: status %d, not a deadlock", deadlocks[i].name, rc);
		assert_time(res.makespan, deadlocks[i].at, 1);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		sim_deadlock_print(c.p, &res, f);
		fclose(f);
		if (strcmp(buf, deadlocks[i].report))
			fail_msg("%s: report\n%swant\n%s", deadlocks[i].name, buf, deadlocks[i].report);
		free(buf);
		tu_sim_close(&c);
	}
}

/* Creation and context-switch costs on one processor (create cost 7,
 * switch cost 2).  fifo: T1 creates at 3 + 7 = 10, exits at 15; T2 starts
 * after a switch at 17, exits at 37.  ps ignores the switch cost: T1 done
 * with its 5 at 20 (sharing with T2 from 10), T2 has 15 left: 35 (on one
 * processor the makespan is the total work plus create costs). */
static void test_costs(void **state)
{
	(void)state;
	static const char text[] =
		"shadowbind-trace 1\n"
		"1 3 create 2\n"
		"1 5 exit\n"
		"2 20 exit\n";
	struct tu_sim c;
	tu_sim_open(&c, text);
	static const struct {
		const char *pol;
		uint64_t expect, cpu1;
	} cases[] = {{"fifo", 37, 15}, {"rr:100", 37, 15}, {"ps", 35, 15}};
	for (size_t i = 0; i < 3; i++) {
		struct sim_params par;
		sim_params_init(&par);
		assert_int_equal(sim_policy_parse(cases[i].pol, &par), 0);
		par.create_cost = 7;
		par.switch_cost = 2;
		int32_t b[2] = {0, 0};
		struct sim_result res;
		assert_int_equal(sim_run(c.p, c.w, &par, b, SIM_STATS, &res), SIM_OK);
		assert_time(res.makespan, cases[i].expect, 1);
		assert_time(res.threads[0].cpu, cases[i].cpu1, 1);
	}
	tu_sim_close(&c);
}

/* Unbound mode: 2 processors, T2..T4 need 100 each, created at 0 by T1.
 * fifo: T1 runs on processor 0, T2 takes processor 1 at once, T3 takes 0
 * when T1 exits at 0; T4 waits until 100: makespan 200.
 * ps: 3 threads share 2 processors at rate 2/3: all end at 150. */
static void test_unbound(void **state)
{
	(void)state;
	static const char text[] =
		"shadowbind-trace 1\n"
		"1 0 create 2\n"
		"1 0 create 3\n"
		"1 0 create 4\n"
		"1 0 exit\n"
		"2 100 exit\n"
		"3 100 exit\n"
		"4 100 exit\n";
	struct tu_sim c;
	tu_sim_open(&c, text);
	static const struct {
		const char *pol;
		uint64_t expect;
	} cases[] = {{"fifo", 200}, {"ps", 150}, {"rr:1000", 200}};
	for (size_t i = 0; i < 3; i++) {
		struct sim_params par;
		sim_params_init(&par);
		assert_int_equal(sim_policy_parse(cases[i].pol, &par), 0);
		par.cpus = 2;
		par.mode = SIM_UNBOUND;
		struct sim_result res;
		assert_int_equal(sim_run(c.p, c.w, &par, NULL, SIM_STATS, &res), SIM_OK);
		assert_time(res.makespan, cases[i].expect, 1);
	}
	tu_sim_close(&c);
}

/* ------------------------------------------------------------------ */
/* Random valid traces and the invariants of docs/simulation.md. */

struct rgen {
	char *buf;
	size_t len, cap;
};

static void rg_printf(struct rgen *g, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(g->buf + g->len, g->cap - g->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < g->cap - g->len) {
			g->len += (size_t)n;
			return;
		}
		g->cap = g->cap * 2 + (size_t)n + 64;
		g->buf = realloc(g->buf, g->cap);
	}
}

/*
 * A random program, written in a valid file order by replaying it
 * sequentially: thread 1 creates T workers and joins them; each worker
 * does `steps` records: work then lock/unlock (one mutex at a time) or
 * post/wait on its own semaphore (only its owner waits on it: semaphores
 * with a single waiting thread) or a sleep.  `mutexes` = 0 leaves out
 * mutexes (then the synchronization order cannot change).
 */
static char *random_trace(uint64_t *seed, int nthreads, int steps, int mutexes, int sleeps)
{
	struct rgen g = {malloc(4096), 0, 4096};
	g.buf[0] = 0;
	rg_printf(&g, "shadowbind-trace 1\n");
	int nw = nthreads - 1;
	for (int i = 0; i < nw; i++)
		rg_printf(&g, "1 %llu create %d\n", (unsigned long long)(tu_rand(seed) % 5), i + 2);
	int left[64], holding[64], tokens[64];
	for (int i = 0; i < nw; i++) {
		left[i] = 1 + (int)(tu_rand(seed) % (unsigned)steps);
		holding[i] = -1;
		tokens[i] = 0;
	}
	int owner[4] = {-1, -1, -1, -1};
	int alive = nw;
	while (alive) {
		int i = (int)(tu_rand(seed) % (unsigned)nw);
		if (left[i] < 0)
			continue;
		unsigned long long wk = tu_rand(seed) % 50;
		int tid = i + 2;
		if (left[i] == 0) {
			if (holding[i] >= 0) {
				rg_printf(&g, "%d %llu unlock %d\n", tid, wk, holding[i] + 1);
				owner[holding[i]] = -1;
				holding[i] = -1;
				continue;
			}
			rg_printf(&g, "%d %llu exit\n", tid, wk);
			left[i] = -1;
			alive--;
			continue;
		}
		int what = (int)(tu_rand(seed) % 4);
		if (holding[i] >= 0) {
			rg_printf(&g, "%d %llu unlock %d\n", tid, wk, holding[i] + 1);
			owner[holding[i]] = -1;
			holding[i] = -1;
		} else if (what == 0 && mutexes) {
			int m = (int)(tu_rand(seed) % 3);
			if (owner[m] >= 0)
				continue;
			owner[m] = i;
			holding[i] = m;
			rg_printf(&g, "%d %llu lock %d\n", tid, wk, m + 1);
		} else if (what == 1) {
			int to = (int)(tu_rand(seed) % (unsigned)nw);
			rg_printf(&g, "%d %llu post %d\n", tid, wk, to + 1);
			tokens[to]++;
		} else if (what == 2 && tokens[i] > 0) {
			tokens[i]--;
			rg_printf(&g, "%d %llu wait %d\n", tid, wk, i + 1);
		} else if (what == 3 && sleeps) {
			rg_printf(&g, "%d %llu sleep %llu\n", tid, wk, (unsigned long long)(tu_rand(seed) % 30));
		} else {
			continue;
		}
		left[i]--;
	}
	for (int i = 0; i < nw; i++)
		rg_printf(&g, "1 %llu join %d\n", (unsigned long long)(tu_rand(seed) % 3), i + 2);
	rg_printf(&g, "1 1 exit\n");
	return g.buf;
}

static void test_invariants(void **state)
{
	(void)state;
	uint64_t seed = 12345;
	int checked = 0;
	for (int iter = 0; iter < 300; iter++) {
		int n = 2 + (int)(tu_rand(&seed) % 9);
		int mutexes = iter % 2, sleeps = (iter % 3) == 0;
		char *text = random_trace(&seed, n, 12, mutexes, sleeps);
		struct tu_sim c;
		tu_sim_open(&c, text);
		uint32_t nt = c.tr->nthreads;
		uint64_t total = trace_total_work(c.tr), biggest = 0;
		for (uint32_t i = 0; i < nt; i++)
			if (trace_thread_work(c.tr, i) > biggest)
				biggest = trace_thread_work(c.tr, i);
		struct sim_params par;
		sim_params_init(&par);
		const char *pol = policies[iter % NPOL];
		assert_int_equal(sim_policy_parse(pol, &par), 0);

		/* critical path (all shadow, t = 0) */
		sim_time cp;
		int rc = sim_makespan(c.p, c.w, &par, NULL, &cp);
		if (rc == SIM_DEADLOCK) { /* mutex programs may deadlock */
			assert_true(mutexes);
			tu_sim_close(&c);
			free(text);
			continue;
		}
		assert_int_equal(rc, SIM_OK);

		/* one thread per processor == critical path */
		int32_t *b = calloc(nt, sizeof *b);
		for (uint32_t i = 0; i < nt; i++)
			b[i] = (int32_t)i;
		par.cpus = nt;
		sim_time own;
		assert_int_equal(sim_makespan(c.p, c.w, &par, b, &own), SIM_OK);
		assert_true(sim_time_cmp(own, cp) == 0);

		/* k = 1, no sleeps: makespan == total work */
		par.cpus = 1;
		for (uint32_t i = 0; i < nt; i++)
			b[i] = 0;
		sim_time one;
		rc = sim_makespan(c.p, c.w, &par, b, &one);
		if (rc == SIM_OK && !sleeps)
			assert_true(sim_time_cmp(one, sim_time_int(total)) == 0);

		/* random bindings on k processors: lower bounds */
		for (int rep = 0; rep < 5; rep++) {
			uint32_t k = 1 + (uint32_t)(tu_rand(&seed) % 4);
			uint64_t load[4] = {0};
			for (uint32_t i = 0; i < nt; i++) {
				b[i] = (int32_t)(tu_rand(&seed) % k);
				load[b[i]] += trace_thread_work(c.tr, i);
			}
			par.cpus = k;
			struct sim_result r1, r2;
			rc = sim_run(c.p, c.w, &par, b, SIM_STATS, &r1);
			if (rc == SIM_DEADLOCK) {
				assert_true(mutexes);
				continue;
			}
			assert_int_equal(rc, SIM_OK);
			sim_time ms = r1.makespan;
			uint64_t maxload = 0;
			for (uint32_t p = 0; p < k; p++)
				if (load[p] > maxload)
					maxload = load[p];
			assert_true(sim_time_cmp(ms, sim_time_int(maxload)) >= 0);
			assert_true(sim_time_cmp(ms, sim_time_int(biggest)) >= 0);
			assert_true(sim_time_to_double(ms) * k >= (double)total - 1e-6);
			if (!mutexes)
				assert_true(sim_time_cmp(ms, cp) >= 0);
			/* per-thread accounting: start + cpu + ready + blocked = end */
			for (uint32_t i = 0; i < nt; i++) {
				const struct sim_thread_stats *s = &r1.threads[i];
				assert_true(sim_time_cmp(s->cpu, sim_time_int(trace_thread_work(c.tr, i))) == 0);
				double sum = sim_time_to_double(s->start) + sim_time_to_double(s->cpu) +
				             sim_time_to_double(s->ready) + sim_time_to_double(s->blocked);
				assert_true(sum <= sim_time_to_double(s->end) + 1e-6 &&
				            sum >= sim_time_to_double(s->end) - 1e-6);
			}
			/* deterministic */
			assert_int_equal(sim_run(c.p, c.w, &par, b, 0, &r2), SIM_OK);
			assert_true(sim_time_cmp(r1.makespan, r2.makespan) == 0);
			checked++;
		}
		free(b);
		tu_sim_close(&c);
		free(text);
	}
	print_message("invariants checked on %d bindings\n", checked);
	assert_true(checked > 500);
}

/*
 * sim_makespan_cutoff against sim_makespan (the independent method: the
 * full run) on random programs, bindings, policies, latencies and models:
 * for cutoffs around the makespan, SIM_CUTOFF exactly when the makespan
 * exceeds the cutoff, else the same status and makespan; a run that
 * deadlocks gets SIM_DEADLOCK when the cutoff is at least the time it got
 * stuck, SIM_CUTOFF below it.
 */
static void test_cutoff(void **state)
{
	(void)state;
	uint64_t seed = 777;
	static const enum sim_model models[] = {SIM_DIRECT, SIM_CLIENT_SERVER, SIM_STRICT, SIM_AUTO};
	int checked = 0, cut = 0, dl = 0;
	for (int iter = 0; iter < 120; iter++) {
		int n = 2 + (int)(tu_rand(&seed) % 8);
		char *text = random_trace(&seed, n, 10, iter % 2, iter % 3 == 0);
		struct tu_sim c;
		tu_sim_open(&c, text);
		uint32_t nt = c.tr->nthreads;
		int32_t *b = calloc(nt, sizeof *b);
		for (int rep = 0; rep < 6; rep++) {
			struct sim_params par;
			sim_params_init(&par);
			assert_int_equal(sim_policy_parse(policies[tu_rand(&seed) % NPOL], &par), 0);
			par.cpus = 1 + (uint32_t)(tu_rand(&seed) % 4);
			par.latency = tu_rand(&seed) % 3 == 0 ? tu_rand(&seed) % 20 : 0;
			par.model = models[tu_rand(&seed) % 4];
			par.mode = rep == 5 ? SIM_UNBOUND : SIM_BOUND;
			for (uint32_t i = 0; i < nt; i++)
				b[i] = (int32_t)(tu_rand(&seed) % par.cpus);
			struct sim_result full;
			int rc = sim_run(c.p, c.w, &par, b, 0, &full);
			assert_true(rc == SIM_OK || rc == SIM_DEADLOCK);
			uint64_t ms = full.makespan.num; /* on deadlock: when it got stuck */
			const uint64_t cuts[] = {0, ms / 2, ms ? ms - 1 : 0, ms, ms + 1, UINT64_MAX};
			for (size_t j = 0; j < sizeof cuts / sizeof cuts[0]; j++) {
				sim_time got;
				int rc2 = sim_makespan_cutoff(c.p, c.w, &par, b, cuts[j], &got);
				if (ms > cuts[j]) {
					if (rc2 != SIM_CUTOFF)
						fail_msg("iter %d: makespan %llu, cutoff %llu: status %d", iter,
						         (unsigned long long)ms, (unsigned long long)cuts[j], rc2);
					assert_int_equal(got.num, 0);
					cut++;
				} else {
					assert_int_equal(rc2, rc);
					if (rc == SIM_OK)
						assert_true(sim_time_cmp(got, full.makespan) == 0);
					else
						dl++;
				}
				checked++;
				/* sim_makespan_within: the same, except that a
				 * run that deadlocks (fixed model) may be cut
				 * instead; under SIM_AUTO exactly the above. */
				sim_time got2;
				int rc3 = sim_makespan_within(c.p, c.w, &par, b, cuts[j], &got2);
				if (par.model == SIM_AUTO || rc == SIM_OK) {
					assert_int_equal(rc3, rc2);
					assert_true(sim_time_cmp(got2, got) == 0);
				} else {
					assert_true(rc3 == rc2 || rc3 == SIM_CUTOFF);
					assert_int_equal(got2.num, 0);
				}
			}
		}
		free(b);
		tu_sim_close(&c);
		free(text);
	}
	print_message("cutoff checked on %d runs (%d cut, %d deadlocks kept)\n", checked, cut, dl);
	assert_true(cut > 500);

	/* tu_lock_inversion deadlocks (Direct, every thread shadow) at 10:
	 * T2 and T3 each hold one mutex and ask for the other at 10. */
	struct tu_sim c;
	tu_sim_open(&c, tu_lock_inversion);
	struct sim_params par;
	sim_params_init(&par);
	struct sim_result res;
	assert_int_equal(sim_run(c.p, c.w, &par, NULL, 0, &res), SIM_DEADLOCK);
	assert_time(res.makespan, 10, 1);
	sim_time got;
	assert_int_equal(sim_makespan_cutoff(c.p, c.w, &par, NULL, 9, &got), SIM_CUTOFF);
	assert_int_equal(sim_makespan_cutoff(c.p, c.w, &par, NULL, 10, &got), SIM_DEADLOCK);
	assert_int_equal(got.num, 0);
	tu_sim_close(&c);

	/* sim_makespan_within stops on a processor's work plus idle time.
	 * k = 3, thread i on processor i - 1.  Thread 2 takes mutex 1 at
	 * 0 and asks for 2 at 10; thread 3, created at 5 (processor 2 idle
	 * until then), takes mutex 2 at 5 and asks for 1 at 15: the run
	 * deadlocks at 15.  Thread 3's work is 10 + 500, so from 5 on, 510
	 * + 5 = 515 is a lower bound on any makespan. */
	static const char idle_dl[] =
		"shadowbind-trace 1\n"
		"1 0 create 2\n"
		"1 5 create 3\n"
		"2 0 lock 1\n"
		"2 10 lock 2\n"
		"2 0 unlock 2\n"
		"2 0 unlock 1\n"
		"2 0 exit\n"
		"3 0 lock 2\n"
		"3 10 lock 1\n"
		"3 500 unlock 1\n"
		"3 0 unlock 2\n"
		"3 0 exit\n"
		"1 0 join 2\n"
		"1 0 join 3\n"
		"1 0 exit\n";
	tu_sim_open(&c, idle_dl);
	par.cpus = 3;
	par.model = SIM_DIRECT;
	const int32_t bind[3] = {0, 1, 2};
	assert_int_equal(sim_run(c.p, c.w, &par, bind, 0, &res), SIM_DEADLOCK);
	assert_time(res.makespan, 15, 1);
	assert_int_equal(sim_makespan_cutoff(c.p, c.w, &par, bind, 514, &got), SIM_DEADLOCK);
	assert_int_equal(sim_makespan_within(c.p, c.w, &par, bind, 514, &got), SIM_CUTOFF);
	assert_int_equal(got.num, 0);
	assert_int_equal(sim_makespan_within(c.p, c.w, &par, bind, 515, &got), SIM_DEADLOCK);
	assert_int_equal(sim_makespan_within(c.p, c.w, &par, bind, 14, &got), SIM_CUTOFF);
	/* under SIM_AUTO the scheme sees Direct's deadlock (client-server
	 * takes over): as sim_makespan_cutoff */
	par.model = SIM_AUTO;
	sim_time g1, g2;
	int r1 = sim_makespan_cutoff(c.p, c.w, &par, bind, 514, &g1);
	assert_int_equal(sim_makespan_within(c.p, c.w, &par, bind, 514, &g2), r1);
	assert_true(sim_time_cmp(g1, g2) == 0);
	tu_sim_close(&c);
}

/*
 * Issue 14.2: round robin skips ahead over the quanta of a thread alone
 * on its processor.  A lone thread of 2^62 - 1 units under rr:1, and of
 * 2^31 - 1 units unbound on 2 processors under rr:7: the makespan is the
 * work, and the run takes a handful of events (its start, one expiry
 * that skips ahead, its work's end), not work / quantum.  Threads that
 * share a processor and nothing else take whole rounds at once: T1 (10^6
 * + 3 units after its create) and T2 (10^6) under rr:7 on one processor
 * alternate 142,857 rounds of 14 units (to 1,999,998), leaving T1 4
 * units and T2 1: T1 ends at 2,000,002, T2 at 2,000,003, in a handful of
 * events.
 */
static void test_rr_skip(void **state)
{
	(void)state;
	static const struct {
		const char *trace, *policy;
		int unbound;
		uint32_t k;
		uint64_t makespan, max_events;
	} cases[] = {
		{"shadowbind-trace 1\n1 4611686018427387903 exit\n", "rr:1", 0, 1,
		 4611686018427387903ull, 4},
		{"shadowbind-trace 1\n1 2147483647 exit\n", "rr:7", 1, 2, 2147483647ull, 4},
		{"shadowbind-trace 1\n1 0 create 2\n1 1000003 exit\n2 1000000 exit\n", "rr:7", 0, 1,
		 2000003, 12},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tu_sim c;
		tu_sim_open(&c, cases[i].trace);
		struct sim_params par;
		sim_params_init(&par);
		assert_int_equal(sim_policy_parse(cases[i].policy, &par), 0);
		par.cpus = cases[i].k;
		par.mode = cases[i].unbound ? SIM_UNBOUND : SIM_BOUND;
		int32_t b[2] = {0, 0};
		struct sim_result res;
		assert_int_equal(sim_run(c.p, c.w, &par, b, SIM_STATS, &res), SIM_OK);
		assert_time(res.makespan, cases[i].makespan, 1);
		if (i == 2) {
			assert_time(res.threads[0].end, 2000002, 1);
			assert_time(res.threads[1].end, 2000003, 1);
		}
		if (res.events > cases[i].max_events)
			fail_msg("case %zu: %llu events, expected at most %llu", i,
			         (unsigned long long)res.events, (unsigned long long)cases[i].max_events);
		tu_sim_close(&c);
	}

	/* rr pays a switch per quantum: two threads of 2^30 units on one
	 * processor under rr:1 switch about 2^31 times; at 2^40 per switch
	 * that passes 2^63: refused, where 2^20 per switch is fine (and
	 * takes a handful of rounds-at-once events). */
	struct tu_sim c;
	tu_sim_open(&c, "shadowbind-trace 1\n1 0 create 2\n1 1073741824 exit\n2 1073741824 exit\n");
	struct sim_params par;
	sim_params_init(&par);
	assert_int_equal(sim_policy_parse("rr:1", &par), 0);
	int32_t one[2] = {0, 0};
	sim_time ms;
	par.switch_cost = (uint64_t)1 << 40;
	assert_int_equal(sim_makespan(c.p, c.w, &par, one, &ms), SIM_EOVERFLOW);
	par.switch_cost = (uint64_t)1 << 20;
	assert_int_equal(sim_makespan(c.p, c.w, &par, one, &ms), SIM_OK);
	tu_sim_close(&c);
}

/*
 * Whole rr rounds are taken at once only when no schedule is recorded:
 * with SIM_SCHEDULE every quantum is stepped.  Both must agree (the
 * schedule's run gives the reference, quantum by quantum) on random
 * programs with sleeps and semaphores, bound on 1-3 processors, rr with
 * small quanta and switch costs: makespan, and every thread's end and
 * ready time, and every processor's busy time.
 */
static void test_rr_rounds(void **state)
{
	(void)state;
	uint64_t seed = 4242;
	int checked = 0, jumped = 0;
	for (int iter = 0; iter < 150; iter++) {
		int n = 2 + (int)(tu_rand(&seed) % 8);
		char *text = random_trace(&seed, n, 10, 0, iter % 2);
		struct tu_sim c;
		tu_sim_open(&c, text);
		uint32_t nt = c.tr->nthreads;
		int32_t *b = calloc(nt, sizeof *b);
		for (int rep = 0; rep < 4; rep++) {
			struct sim_params par;
			sim_params_init(&par);
			par.policy = SIM_RR;
			par.quantum = 1 + tu_rand(&seed) % 4;
			par.switch_cost = tu_rand(&seed) % 3;
			par.latency = tu_rand(&seed) % 2 ? tu_rand(&seed) % 9 : 0;
			par.cpus = 1 + (uint32_t)(tu_rand(&seed) % 3);
			for (uint32_t i = 0; i < nt; i++)
				b[i] = (int32_t)(tu_rand(&seed) % par.cpus);
			struct sim_result a, r;
			assert_int_equal(sim_run(c.p, c.w, &par, b, SIM_STATS | SIM_SCHEDULE, &r), SIM_OK);
			sim_time ms = r.makespan, end[16], ready[16], busy[4];
			for (uint32_t i = 0; i < nt; i++) {
				end[i] = r.threads[i].end;
				ready[i] = r.threads[i].ready;
			}
			for (uint32_t p = 0; p < par.cpus; p++)
				busy[p] = r.busy[p];
			uint64_t stepped = r.events;
			assert_int_equal(sim_run(c.p, c.w, &par, b, SIM_STATS, &a), SIM_OK);
			assert_true(sim_time_cmp(a.makespan, ms) == 0);
			for (uint32_t i = 0; i < nt; i++) {
				assert_true(sim_time_cmp(a.threads[i].end, end[i]) == 0);
				assert_true(sim_time_cmp(a.threads[i].ready, ready[i]) == 0);
			}
			for (uint32_t p = 0; p < par.cpus; p++)
				assert_true(sim_time_cmp(a.busy[p], busy[p]) == 0);
			assert_true(a.events <= stepped);
			jumped += a.events < stepped;
			checked++;
		}
		free(b);
		tu_sim_close(&c);
		free(text);
	}
	print_message("rr rounds checked on %d runs (%d took rounds at once)\n", checked, jumped);
	assert_true(jumped > 50);
}

/* Bytes the allocator has handed out and not taken back (from its
 * arenas and as mmapped blocks). */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/*
 * sim.h: after sim_work_reserve, sim_run and sim_makespan allocate
 * nothing on the makespan path (any model, at most the reserved k); the
 * first run with a larger k does allocate.  Checked with the allocator's
 * counters, when they are visible (not under a sanitizer's allocator).
 */
static void test_no_allocation(void **state)
{
	(void)state;
	size_t before = heap_in_use();
	char *volatile probe = malloc(1 << 16); /* volatile: not elided */
	int visible = probe && heap_in_use() >= before + (1 << 16);
	free(probe);
	if (!visible) {
		print_message("skipped: this allocator's counters do not show allocations\n");
		skip();
	}
	struct tu_sim c;
	tu_sim_open(&c, cv_barrier);
	struct sim_params par;
	sim_params_init(&par);
	par.cpus = 40;
	par.model = SIM_STRICT;
	assert_int_equal(sim_work_reserve(c.w, &par), SIM_OK);
	static const char *const pols[] = {"ps", "fifo", "rr:3"};
	static const enum sim_model models[] = {SIM_DIRECT, SIM_CLIENT_SERVER, SIM_STRICT, SIM_AUTO};
	int32_t b[3] = {0, 1, 1};
	before = heap_in_use();
	for (size_t i = 0; i < 3; i++) {
		for (size_t m = 0; m < 4; m++) {
			for (uint32_t k = 2; k <= 40; k += 19) {
				struct sim_params q;
				sim_params_init(&q);
				assert_int_equal(sim_policy_parse(pols[i], &q), 0);
				q.cpus = k;
				q.model = models[m];
				q.mode = k == 21 ? SIM_UNBOUND : SIM_BOUND;
				sim_time ms;
				assert_int_equal(sim_makespan(c.p, c.w, &q, b, &ms), SIM_OK);
				assert_int_equal(sim_makespan_cutoff(c.p, c.w, &q, b, 10, &ms), SIM_CUTOFF);
				struct sim_result res;
				assert_int_equal(sim_run(c.p, c.w, &q, b, SIM_STATS, &res), SIM_OK);
			}
		}
	}
	assert_int_equal(heap_in_use(), before);
	/* the semaphores' token times, whatever latency the reserve saw */
	struct tu_sim c2;
	tu_sim_open(&c2, lat_blocked);
	struct sim_params q2;
	sim_params_init(&q2);
	q2.cpus = 2;
	assert_int_equal(sim_work_reserve(c2.w, &q2), SIM_OK);
	size_t before2 = heap_in_use();
	q2.latency = 50;
	int32_t b2[2] = {0, 1};
	sim_time ms2;
	assert_int_equal(sim_makespan(c2.p, c2.w, &q2, b2, &ms2), SIM_OK);
	assert_int_equal(ms2.num, 115); /* the hand case "latency blocked" */
	assert_int_equal(heap_in_use(), before2);
	tu_sim_close(&c2);
	/* a larger k than reserved grows the workspace */
	par.cpus = 100000;
	par.model = SIM_DIRECT;
	sim_time ms;
	assert_int_equal(sim_makespan(c.p, c.w, &par, b, &ms), SIM_OK);
	assert_true(heap_in_use() > before);
	par.cpus = 0;
	assert_int_equal(sim_work_reserve(c.w, &par), SIM_EINVAL);
	tu_sim_close(&c);
}

/* The workspace may be reused across programs of different k. */
static void test_reuse_and_params(void **state)
{
	(void)state;
	struct tu_sim c;
	tu_sim_open(&c, two_workers);
	struct sim_params par;
	sim_params_init(&par);
	struct sim_result res;
	par.cpus = 0;
	assert_int_equal(sim_run(c.p, c.w, &par, NULL, 0, &res), SIM_EINVAL);
	par.cpus = 2;
	int32_t bad[4] = {0, 5, 0, 0};
	assert_int_equal(sim_run(c.p, c.w, &par, bad, 0, &res), SIM_EINVAL);
	par.cpus = 100;
	int32_t ok[4] = {99, 98, 0, 1};
	assert_int_equal(sim_run(c.p, c.w, &par, ok, 0, &res), SIM_OK);
	assert_time(res.makespan, 100, 1);
	struct sim_params q;
	sim_params_init(&q);
	assert_int_equal(sim_policy_parse("rr:0", &q), -1);
	assert_int_equal(sim_policy_parse("rr:", &q), -1);
	assert_int_equal(sim_policy_parse("lifo", &q), -1);
	assert_int_equal(sim_policy_parse("rr:25", &q), 0);
	assert_int_equal(q.policy, SIM_RR);
	assert_int_equal(q.quantum, 25);
	tu_sim_close(&c);
}

/* ------------------------------------------------------------------ */
/* Per-object latency (sim_params.obj_latency) */

/*
 * T1 on processor 0, T2 on 1, latency t = 50 (fifo):
 *   T2 locks mutex 1 at 0 (free, never released: no latency), unlocks
 *   it at 0 (a release on processor 1), then waits on sem 1 (blocks).
 *   T1 works 10 and posts sem 1 at 10: T2 is woken at 10 + 50 = 60,
 *   works 5, exits at 65 (on processor 1).  T1 works 100 and locks
 *   mutex 1 at 110 >= 0 + 50 (the release is no longer on its way: no
 *   wait), unlocks, joins T2 at 110: the exit at 65 on processor 1
 *   arrives at 65 + 50 = 115.  Makespan 115.
 * Zero one object's latency:
 *   mutex 1: only the lock at 110 could pay it, and did not: 115.
 *   sem 1: T2 woken at 10, exits 15; join at max(110, 15 + 50) = 110.
 *   thread 2 (the exit a join waits for): T2 exits 65; join at 110: 110.
 * A larger override, sem 1 at 80: woken 90, exit 95, join 145: 145.
 * Uniform t = 0 and only sem 1 at 50: woken 60, exit 65, join at
 *   max(110, 65) = 110 (the thread's latency is 0): 110.
 */
static const char olat_trace[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"2 0 lock 1\n"
	"2 0 unlock 1\n"
	"1 10 post 1\n"
	"2 0 wait 1\n"
	"1 100 lock 1\n"
	"1 0 unlock 1\n"
	"2 5 exit\n"
	"1 0 join 2\n"
	"1 0 exit\n";

/* Dense index of the object of kind `kind` with external id `id`. */
static uint32_t dense_obj(const struct trace *tr, unsigned kind, uint32_t id)
{
	if (kind == TRACE_K_THREAD) {
		int64_t ix = trace_thread_index(tr, id);
		assert_true(ix >= 0);
		return (uint32_t)ix;
	}
	for (uint32_t i = 0; i < tr->nobj[kind]; i++)
		if (tr->obj_id[kind][i] == id)
			return i;
	fail_msg("no object %u of kind %u", id, kind);
	return 0;
}

static void test_obj_latency_hand(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		uint64_t latency;   /* uniform; units: trace unit */
		int kind;           /* -1: no override            */
		uint32_t id;        /* external id                */
		uint64_t value;     /* its latency                */
		uint64_t makespan;
	} cases[] = {
		{"no override", 50, -1, 0, 0, 115},
		{"mutex 1 at 0: off the path", 50, TRACE_K_MUTEX, 1, 0, 115},
		{"sem 1 at 0", 50, TRACE_K_SEM, 1, 0, 110},
		{"thread 2 at 0 (join)", 50, TRACE_K_THREAD, 2, 0, 110},
		{"sem 1 at 80", 50, TRACE_K_SEM, 1, 80, 145},
		{"sem 1 at 50, uniform 0", 0, TRACE_K_SEM, 1, 50, 110},
		{"sem 1 at 50, uniform 50", 50, TRACE_K_SEM, 1, 50, 115},
	};
	struct tu_sim c;
	tu_sim_open(&c, olat_trace);
	static const int32_t by_id[] = {0, 0, 1};
	int32_t *b = bind_by_id(c.tr, by_id, 3);
	uint64_t lat[4];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sim_params par;
		sim_params_init(&par);
		par.cpus = 2;
		par.policy = SIM_FIFO;
		par.latency = cases[i].latency;
		if (cases[i].kind >= 0) {
			unsigned kd = (unsigned)cases[i].kind;
			uint32_t no = kd == TRACE_K_THREAD ? c.tr->nthreads : c.tr->nobj[kd];
			assert_true(no <= 4);
			for (uint32_t j = 0; j < no; j++)
				lat[j] = cases[i].latency;
			lat[dense_obj(c.tr, kd, cases[i].id)] = cases[i].value;
			par.obj_latency[kd] = lat;
		}
		struct sim_result res;
		int rc = sim_run(c.p, c.w, &par, b, SIM_STATS | SIM_SCHEDULE, &res);
		if (rc != SIM_OK || res.makespan.num != cases[i].makespan || res.makespan.den != 1)
			fail_msg("%s: status %d makespan %llu, expected %llu", cases[i].name, rc,
			         (unsigned long long)res.makespan.num, (unsigned long long)cases[i].makespan);
		/* the override is for the Direct model only */
		if (cases[i].kind >= 0) {
			par.model = SIM_STRICT;
			assert_int_equal(sim_run(c.p, c.w, &par, b, 0, &res), SIM_EINVAL);
			par.model = SIM_CLIENT_SERVER;
			assert_int_equal(sim_run(c.p, c.w, &par, b, 0, &res), SIM_EINVAL);
			par.model = SIM_AUTO;
			sim_time ms;
			assert_int_equal(sim_makespan(c.p, c.w, &par, b, &ms), SIM_OK);
			assert_time(ms, cases[i].makespan, 1);
		}
	}
	free(b);
	tu_sim_close(&c);
}

/* obj_latency[kind] = L for every object of every kind gives exactly the
 * result of the uniform latency L, whatever par.latency says (every
 * application of the latency rule is a release of some object): on the
 * hand-written programs above (every kind of object) and random ones,
 * random policies, k, bindings and both modes. */
static int olat_same(struct tu_sim *c, struct sim_params *par, const int32_t *b,
                     uint64_t L, uint64_t other, uint64_t *buf)
{
	struct sim_result r1, r2;
	par->latency = L;
	for (unsigned kd = 0; kd < TRACE_NKINDS; kd++)
		par->obj_latency[kd] = NULL;
	int rc1 = sim_run(c->p, c->w, par, b, SIM_STATS, &r1);
	uint32_t nt = c->tr->nthreads;
	sim_time *ends = malloc((nt + 1) * sizeof *ends);
	for (uint32_t i = 0; rc1 == SIM_OK && i < nt; i++)
		ends[i] = r1.threads[i].end;
	sim_time ms1 = r1.makespan;
	par->latency = other;
	for (unsigned kd = 0; kd < TRACE_NKINDS; kd++)
		par->obj_latency[kd] = buf;
	int rc2 = sim_run(c->p, c->w, par, b, SIM_STATS, &r2);
	assert_int_equal(rc2, rc1);
	assert_int_equal(sim_time_cmp(r2.makespan, ms1), 0);
	for (uint32_t i = 0; rc1 == SIM_OK && i < nt; i++)
		assert_int_equal(sim_time_cmp(r2.threads[i].end, ends[i]), 0);
	free(ends);
	for (unsigned kd = 0; kd < TRACE_NKINDS; kd++)
		par->obj_latency[kd] = NULL;
	return rc1;
}

static void test_obj_latency_uniform(void **state)
{
	(void)state;
	uint64_t seed = 4242, buf[256];
	int checked = 0;
	for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
		const struct hand_case *h = &hand[i];
		struct tu_sim c;
		tu_sim_open(&c, h->trace);
		for (int rep = 0; rep < 4; rep++) {
			uint64_t L = rep == 0 ? h->latency : tu_rand(&seed) % 60;
			for (size_t j = 0; j < 256; j++)
				buf[j] = L;
			struct sim_params par;
			sim_params_init(&par);
			par.cpus = h->k;
			par.switch_cost = h->switch_cost;
			par.mode = h->unbound ? SIM_UNBOUND : SIM_BOUND;
			assert_int_equal(sim_policy_parse(h->policy, &par), 0);
			int32_t *b = h->bound ? bind_by_id(c.tr, h->by_id, 12) : NULL;
			olat_same(&c, &par, b, L, tu_rand(&seed) % 3 ? 0 : tu_rand(&seed) % 60, buf);
			free(b);
			checked++;
		}
		tu_sim_close(&c);
	}
	for (int iter = 0; iter < 150; iter++) {
		int n = 2 + (int)(tu_rand(&seed) % 8);
		char *text = random_trace(&seed, n, 10, iter % 3 != 0, iter % 2);
		struct tu_sim c;
		tu_sim_open(&c, text);
		uint32_t nt = c.tr->nthreads;
		int32_t *b = calloc(nt, sizeof *b);
		for (int rep = 0; rep < 4; rep++) {
			uint64_t L = 1 + tu_rand(&seed) % 30;
			for (size_t j = 0; j < 256; j++)
				buf[j] = L;
			struct sim_params par;
			sim_params_init(&par);
			assert_int_equal(sim_policy_parse(policies[tu_rand(&seed) % NPOL], &par), 0);
			par.cpus = 1 + (uint32_t)(tu_rand(&seed) % 4);
			par.mode = rep == 3 ? SIM_UNBOUND : SIM_BOUND;
			for (uint32_t i = 0; i < nt; i++)
				b[i] = tu_rand(&seed) % 5 == 0 ? S : (int32_t)(tu_rand(&seed) % par.cpus);
			olat_same(&c, &par, b, L, tu_rand(&seed) % 2 ? 0 : tu_rand(&seed) % 40, buf);
			checked++;
		}
		free(b);
		tu_sim_close(&c);
		free(text);
	}
	assert_true(checked > 600);
}

/* The spinning wait (sim_params.spin, issue 28).  T1 creates T2 (40 of
 * work), locks mutex 1, works 10, unlocks it, and polls it: 5 of work,
 * then `trylock 1 ok` (the poll's recorded length, beside a T2 on
 * another processor).  spin 30: where T1 shares its processor with a
 * ready T2 at the unlock, the poll lasts 30 (T2 cannot turn what T1
 * waits for while T1 spins), else its recorded 5.  By hand:
 *   T1 on 0, T2 on 1 (not shared), any policy: T1 ends at 15, T2 at 40.
 *   both on 0, fifo and rr:1000 (T1 first, T2 queued): T1 unlocks at 10,
 *     spins to 40, exits at 40; T2 runs 40..80.  Spin 0: T1 15, T2 55.
 *   both on 0, ps: T1 and T2 at rate 1/2: T1's 10 ends at 20 (T2 has
 *     10); then 30 each left: both end at 80.  Spin 0: T1's 5 ends at
 *     30 (T2 has 15), T2's 25 alone: 55.
 *   unbound, 2 processors: 2 threads, 2 processors: not shared, 40.
 *   unbound, 1 processor: as both on 0 (80; ps 80).
 * T1's CPU is its work plus the spin's extra: 10 + 30 = 40 (15 unshared).
 * A `lock 1` in the poll's place is the program taking the mutex for its
 * next critical section, not a poll: 55 shared, whatever the spin. */
static void test_spin_wait(void **state)
{
	(void)state;
	static const char poll[] =
		"shadowbind-trace 1\n"
		"1 0 create 2\n"
		"1 0 lock 1\n"
		"1 10 unlock 1\n"
		"1 5 trylock 1 ok\n"
		"1 0 unlock 1\n"
		"1 0 exit\n"
		"2 40 exit\n";
	static const char relock[] =
		"shadowbind-trace 1\n"
		"1 0 create 2\n"
		"1 0 lock 1\n"
		"1 10 unlock 1\n"
		"1 5 lock 1\n"
		"1 0 unlock 1\n"
		"1 0 exit\n"
		"2 40 exit\n";
	static const struct {
		const char *text, *pol;
		uint64_t spin;
		int unbound;       /* 0: bound by bind[], else unbound on k */
		uint32_t k;
		int32_t bind[3];   /* by thread id */
		uint64_t makespan, cpu1;
	} cases[] = {
		{.text = poll, .pol = "fifo", .spin = 30, .k = 2, .bind = {0, 0, 1}, .makespan = 40, .cpu1 = 15},
		{.text = poll, .pol = "ps", .spin = 30, .k = 2, .bind = {0, 0, 1}, .makespan = 40, .cpu1 = 15},
		{.text = poll, .pol = "fifo", .spin = 30, .k = 2, .bind = {0, 0, 0}, .makespan = 80, .cpu1 = 40},
		{.text = poll, .pol = "rr:1000", .spin = 30, .k = 2, .bind = {0, 0, 0}, .makespan = 80, .cpu1 = 40},
		{.text = poll, .pol = "ps", .spin = 30, .k = 2, .bind = {0, 0, 0}, .makespan = 80, .cpu1 = 40},
		{.text = poll, .pol = "fifo", .spin = 0, .k = 2, .bind = {0, 0, 0}, .makespan = 55, .cpu1 = 15},
		{.text = poll, .pol = "ps", .spin = 0, .k = 2, .bind = {0, 0, 0}, .makespan = 55, .cpu1 = 15},
		{.text = poll, .pol = "fifo", .spin = 30, .unbound = 1, .k = 2, .makespan = 40, .cpu1 = 15},
		{.text = poll, .pol = "ps", .spin = 30, .unbound = 1, .k = 2, .makespan = 40, .cpu1 = 15},
		{.text = poll, .pol = "fifo", .spin = 30, .unbound = 1, .k = 1, .makespan = 80, .cpu1 = 40},
		{.text = poll, .pol = "ps", .spin = 30, .unbound = 1, .k = 1, .makespan = 80, .cpu1 = 40},
		{.text = relock, .pol = "fifo", .spin = 30, .k = 2, .bind = {0, 0, 0}, .makespan = 55, .cpu1 = 15},
		{.text = relock, .pol = "ps", .spin = 30, .k = 2, .bind = {0, 0, 0}, .makespan = 55, .cpu1 = 15},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tu_sim c;
		tu_sim_open(&c, cases[i].text);
		struct sim_params par;
		sim_params_init(&par);
		assert_int_equal(sim_policy_parse(cases[i].pol, &par), 0);
		par.cpus = cases[i].k;
		par.spin = cases[i].spin;
		par.mode = cases[i].unbound ? SIM_UNBOUND : SIM_BOUND;
		int32_t *b = cases[i].unbound ? NULL : bind_by_id(c.tr, cases[i].bind, 3);
		struct sim_result res;
		assert_int_equal(sim_run(c.p, c.w, &par, b, SIM_STATS, &res), SIM_OK);
		assert_time(res.makespan, cases[i].makespan, 1);
		assert_time(res.threads[0].cpu, cases[i].cpu1, 1);
		free(b);
		tu_sim_close(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_binpack_example),
		cmocka_unit_test(test_hand_cases),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_deadlock_report),
		cmocka_unit_test(test_deadlock_kinds),
		cmocka_unit_test(test_costs),
		cmocka_unit_test(test_unbound),
		cmocka_unit_test(test_invariants),
		cmocka_unit_test(test_reuse_and_params),
		cmocka_unit_test(test_cutoff),
		cmocka_unit_test(test_rr_skip),
		cmocka_unit_test(test_rr_rounds),
		cmocka_unit_test(test_no_allocation),
		cmocka_unit_test(test_obj_latency_hand),
		cmocka_unit_test(test_obj_latency_uniform),
		cmocka_unit_test(test_spin_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
