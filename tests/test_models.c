/*
 * test_models.c - the three simulation models of Paper VIII (Direct,
 * client-server, strict sequence) and the automatic scheme (SIM_AUTO):
 *   - the paper's programs P, Q and R, written with our operations (a
 *     synchronous "Send X to Pi" is `signal i 1`, which blocks until its
 *     waiter is there; "Wait for X" is `cwait i i` on a private mutex),
 *     with the paper's completion times where its machine is ours (one
 *     processor per process) and hand-derived ones elsewhere;
 *   - hand-written traces where the Direct model deadlocks and the
 *     program does not (a semaphore reply taken by the wrong client, a
 *     barrier grouped wrongly, a lock-order tu_lock_inversion that did not happen
 *     in the recording), where client-server deadlocks too (R: a
 *     signaller blocked inside a list), and a read-write lock, each with
 *     hand-computed times (derivations in the comments);
 *   - a random valid-trace generator (a random uniprocessor execution of
 *     random threads using every operation) and what is guaranteed on its
 *     traces: strict never deadlocks; client-server never deadlocks
 *     without condition variables; on one processor every model that
 *     finishes takes the total work; SIM_AUTO is the scheme; Direct and
 *     strict agree exactly where the synchronization order cannot change;
 *   - the Direct <= client-server <= strict ordering the paper observed,
 *     counted (not asserted: it is not guaranteed) and printed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim/sim.h"
#include "sim/simint.h" /* test_lazy_pairing looks at the program's cache */
#include "tests/testutil.h"
#include "trace/trace.h"

#define S TRACE_SHADOW
#define DL (-1) /* expected: SIM_DEADLOCK */


/* ------------------------------------------------------------------ */
/* The paper's programs. */

/*
 * Program Q (Paper VIII, Table 2).  P1 = thread 1 serves P2 and P3: it
 * waits for a request from anyone and replies to the sender; the lists
 * (Q') the Direct model builds reply to P2 first, as in the recording.
 * Works from Table 2 (priorities P1 > P2 > P3 on one processor):
 *   P1: create P2, w1 create P3, w1 Wait, w2 Send P2, w1 Wait, w2 Send P3,
 *       w1 terminate;  P2: w7 Send P1, w1 Wait, w1 terminate;
 *   P3: w2 Send P1, w1 Wait, w1 terminate.
 * One processor per process (the paper's Figures 5 and 7), t = 0:
 * Direct: P3 sends at 3 and P1 (waiting since 2) takes it; P1 then sends
 *   to P2 at 5, but P2 works until 7: P1 blocks; P2 sends to P1 at 7, but
 *   P1 is blocked: deadlock (Figure 5).
 * Client-server: P1's lists start at Wait(P2) and Wait(P3).  P1 is idle
 *   at 2; P3's Send at 3 meets it: P1 runs its P3 list 3..5, sends to P3
 *   (idle since 4) at 5 and ends the list at 6 (P3 exits at 6), idle; P2
 *   sends at 7: P1 runs its P2 list 7..9, sends to P2 (idle since 8) at
 *   9, ends at 10 (P2 exits at 10): 10, the paper's Figure 7.
 * Strict: P1 waits for P2's Send first: 7; w2, Send P2 at 9 (P2 there
 *   since 8); w1, Wait at 10 meets P3 (blocked in its Send since 3);
 *   w2, Send P3 at 12 (P3 there since 11), w1: 13 (P3 also 13): the
 *   paper's 13.
 * With t = 1 (every process on its own processor):
 *   strict: P2's Send at 7 reaches P1 at 8; w2, Send P2 at 10, P2 resumes
 *   at 11, exits 12; P1's Wait at 11 meets P3's Send (blocked since 3):
 *   P3 resumes at 12 and P1 at 12 (the wake-up came from P3 at 11);
 *   Send P3 at 14 (P3 there since 13), P3 resumes at 15, exits 16: 16.
 *   client-server: P3's Send at 3 reaches P1 at 4; Send P3 at 6 (P3 idle
 *   since 4), P3 resumes 7, exits 8; P1 ends its list at 7, idle; P2's
 *   Send at 7 reaches P1 at 8; Send P2 at 10 (P2 idle since 8), P2
 *   resumes 11, exits 12; P1 exits at 11: 12.
 */
static const char prog_q[] =
	"shadowbind-trace 1\n"
	"1 0 lock 1\n"
	"1 0 create 2\n"
	"1 1 create 3\n"
	"2 0 lock 2\n"
	"2 7 signal 1 1\n"
	"1 1 cwait 1 1\n"
	"1 2 signal 2 1\n"
	"2 1 cwait 2 2\n"
	"2 1 unlock 2\n"
	"2 0 exit\n"
	"3 0 lock 3\n"
	"3 2 signal 1 1\n"
	"1 1 cwait 1 1\n"
	"1 2 signal 3 1\n"
	"3 1 cwait 3 3\n"
	"1 1 unlock 1\n"
	"1 0 exit\n"
	"3 1 unlock 3\n"
	"3 0 exit\n";

/*
 * Program R (Paper VIII, Table 3): P1 collects the requests of P2 and P3,
 * replies to both, then serves P4.  Works:
 *   P1: create P2, w1 create P3, w1 create P4, w1 Wait, w2 Wait, w2 Send
 *       P2, w1 Send P3, w1 Wait, w2 Send P4, w1 terminate;
 *   P2: w12 Send P1, w1 Wait, w1;  P3: w7 Send P1, w1 Wait, w1;
 *   P4: w2 Send P1, w1 Wait, w1.
 * One processor per process, t = 0:
 * Direct: P4's Send at 4 and P3's at 8 are taken by P1's two Waits (4,
 *   8); P1 sends to P2 at 10, P2 works until 12: P1 blocks; P2's Send at
 *   12 finds no waiter: deadlock.
 * Client-server (the paper's Figure 10): P1 idle at 3; P4's Send (4)
 *   starts P1's P4 list; P1 sends to P4 at 6 (P4 idle since 5), P4 exits
 *   at 7; P1 idle at 7; P3's Send (8) starts P1's P3 list: w2, Send P2
 *   at 10 while P2 works until 12: P1 blocks inside its list; P2's Send
 *   at 12 needs P1 idle: it blocks too.  Deadlock, with P3 idle (its
 *   reply list waits for P1's Send P3) and P4 done.
 * Strict (the paper's Figure 12): P1's Wait(P2) at 3 gets P2's Send at
 *   12; w2, Wait(P3) at 14 meets P3 (blocked since 8); w2, Send P2 at 16
 *   (P2 there since 13), P2 exits 17; w1, Send P3 at 17 (P3 there since
 *   15), P3 exits 18; w1, Wait(P4) at 18 meets P4 (blocked since 4); w2,
 *   Send P4 at 20 (P4 there since 19), P4 exits 21; P1 exits 21: the
 *   paper's 21.
 */
static const char prog_r[] =
	"shadowbind-trace 1\n"
	"1 0 lock 1\n"
	"1 0 create 2\n"
	"1 1 create 3\n"
	"1 1 create 4\n"
	"2 0 lock 2\n"
	"2 12 signal 1 1\n"
	"1 1 cwait 1 1\n"
	"3 0 lock 3\n"
	"3 7 signal 1 1\n"
	"1 2 cwait 1 1\n"
	"1 2 signal 2 1\n"
	"2 1 cwait 2 2\n"
	"2 1 unlock 2\n"
	"2 0 exit\n"
	"1 1 signal 3 1\n"
	"3 1 cwait 3 3\n"
	"3 1 unlock 3\n"
	"3 0 exit\n"
	"4 0 lock 4\n"
	"4 2 signal 1 1\n"
	"1 1 cwait 1 1\n"
	"1 2 signal 4 1\n"
	"4 1 cwait 4 4\n"
	"1 1 unlock 1\n"
	"1 0 exit\n"
	"4 1 unlock 4\n"
	"4 0 exit\n";

/*
 * Program P (Paper VIII, Table 1): P1 creates P2, P3, waits for an event
 * twice (P2's and P3's, in that order in the recording), creating P4 in
 * between.  Works: P1: create P2, w1 create P3, w2 Wait, w1 create P4, w1
 * Wait, w2 terminate;  P2: w2 Send P1, w1;  P3: w2 Send P1, w3;  P4: w3.
 * The paper's machine: P1, P2 on one processor, P3, P4 on the other, with
 * priorities; ours: the same binding under fifo (run to block, no
 * preemption), t = 0.
 * Direct: P1 runs 0..3 and waits; P2 runs 3..5.  P3 (processor 1, 1..3)
 *   sends at 3 to P1, waiting since 3: P1 is ready, behind P2.  P2's Send
 *   at 5 finds no waiter: P2 blocks; P1 runs 5..7 (create P4 at 6), waits
 *   at 7 and takes P2's Send; P2 (made ready first) runs 7..8, P1 8..10.
 *   Processor 1: P3 3..6, P4 6..9.  Makespan 10 (the paper: 10).
 * Client-server: P1 ends its first list at 3 (idle); P3's Send at 3
 *   starts P1's P3 list, P1 queued behind P2 (3..5); P2's Send at 5 finds
 *   P1 not idle: P2 blocks.  P1 runs 5..7 (its P3 list; its exit must
 *   wait for the P2 list), meets P2 at 7: P2 ready, P1 runs its P2 list
 *   7..9 (create P4 at 8), exits at 9; P2 runs 9..10; P4 8..11 on
 *   processor 1 (P3 ran 3..6).  Makespan 11 (the paper: 11).
 * Strict: P1 waits at 3 for P2's Send (5) while P3 blocks in its Send at
 *   3 (P1's second Wait is not there yet); P2 exits at 6, P1 runs 6..8
 *   (create P4 at 7: P4 runs 7..10 on the idle processor 1), its Wait at
 *   8 releases P3, which is ready behind P4; P1 exits at 10; P3 runs
 *   10..13.  Makespan 13 (the paper, whose P3 preempts P4 by priority:
 *   12).
 * With one processor per process all three models give 8: P2 sends at 2
 *   and blocks until P1's first Wait at 3 (Direct: P1, smallest id, acts
 *   first at 3 and meets the blocked P2); P3's Send at 3 then blocks
 *   until P1's second Wait at 5; P1 exits at 7, P2 at 4, P3 at 8, P4
 *   (created at 4) at 7.
 */
static const char prog_p[] =
	"shadowbind-trace 1\n"
	"1 0 lock 1\n"
	"1 0 create 2\n"
	"1 1 create 3\n"
	"2 2 signal 1 1\n"
	"1 2 cwait 1 1\n"
	"1 1 create 4\n"
	"2 1 exit\n"
	"3 2 signal 1 1\n"
	"1 1 cwait 1 1\n"
	"1 2 unlock 1\n"
	"1 0 exit\n"
	"3 3 exit\n"
	"4 3 exit\n";

/* ------------------------------------------------------------------ */
/* Hand-written programs in the same spirit. */

/*
 * A reply taken by the wrong client.  Server thread 1 handles requests
 * (semaphore 1), replies on one shared semaphore 2, and waits for client
 * 2's acknowledgement (semaphore 3) after its reply.  Recorded: client 2
 * asks first (work 5), client 3 later (work 1 before its request).
 *   T1: create 2, create 3, w1 wait 1, w2 post 2, w1 wait 3, w1 wait 1,
 *       w2 post 2, join 2, join 3, exit;
 *   T2: w5 post 1, w1 wait 2, w3 post 3, w1 exit;
 *   T3: w1 post 1, w1 wait 2, w1 exit.
 * One processor per thread, t = 0.
 * Direct: T3's request (1) is served first: T1 posts the reply at 3 and
 *   T3 (waiting since 2) takes it; T1 waits for T2's acknowledgement (4);
 *   T2 asks at 5 and waits for a reply (6) that T1 posts only after the
 *   acknowledgement: deadlock.
 * Client-server: T1's lists start at its waits and joins.  T1 is idle at
 *   1; T3's request (1) starts the list of T1's second `wait 1` (paired
 *   with it): reply at 3, which T3 (idle since 2) takes, T3 exits at 4.
 *   T1 continues into `join 2`: idle; T3's exit (4) starts T1's `join 3`
 *   list: it reaches its exit with lists left: idle.  T2's request (5)
 *   starts T1's first list: reply at 7, which T2 (idle since 6) takes;
 *   T2 acknowledges at 10 and exits at 11.  T1: `wait 3` (8) idle until
 *   10, then runs into its second `wait 1` (11, already done), idle; T2's
 *   exit (11) starts `join 2`, after which no list is left: T1 exits at
 *   11.  Makespan 11.
 * Strict: T1 waits for T2's request (5), replies at 7 (T2, waiting since
 *   6, takes it, acknowledges at 10, exits 11), waits for the ack (10),
 *   takes T3's request (posted at 1) at 11, replies at 13: T3, waiting
 *   since 2, exits at 14; T1 joins: 14.
 */
static const char wrong_client[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 5 post 1\n"
	"1 1 wait 1\n"
	"1 2 post 2\n"
	"2 1 wait 2\n"
	"2 3 post 3\n"
	"1 1 wait 3\n"
	"3 1 post 1\n"
	"1 1 wait 1\n"
	"1 2 post 2\n"
	"3 1 wait 2\n"
	"3 1 exit\n"
	"2 1 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 exit\n";

/*
 * A barrier of 2 grouped wrongly.  Recorded: thread 2 meets thread 3,
 * then thread 4.  T2: w10 barrier, w5 barrier, w1 exit; T3: w1 barrier,
 * w1 exit; T4: w2 barrier, w1 exit.  One processor per thread, t = 0.
 * Direct: T3 (1) and T4 (2) form the first group; T2 arrives alone at 10
 *   and waits forever: deadlock.
 * Strict and client-server: T3 waits for T2's first arrival (10), exits
 *   11; T4 for T2's second (10 + 5 = 15), exits 16; T2 exits 16; T1 joins:
 *   16 (a barrier's list cannot start before its own arrival, so
 *   client-server has nothing to reorder).
 */
static const char wrong_group[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 create 4\n"
	"2 10 barrier 1 2\n"
	"3 1 barrier 1 2\n"
	"2 5 barrier 1 2\n"
	"4 2 barrier 1 2\n"
	"2 1 exit\n"
	"3 1 exit\n"
	"4 1 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 join 4\n"
	"1 0 exit\n";

/*
 * A lock-order tu_lock_inversion that did not happen in the recording (T2 ran
 * before T3): T2 locks 1 then (w10) 2, T3 locks 2 then (w10) 1.  One
 * processor per thread, t = 0.
 * Direct: T2 holds 1 and T3 holds 2 from 0; at 10 each wants the other's:
 *   deadlock.
 * Strict: T3's `lock 2` waits for T2's `unlock 2` (10), its `lock 1`
 *   (10 + 10 = 20) for T2's `unlock 1` (10): T3 exits at 20; T1: 20.
 * Client-server: T3 is idle at 0 (its first list is empty); T2's unlock 2
 *   at 10 starts the `lock 2` list (work 10 up to `lock 1`), and its
 *   unlock 1 at 10 makes the `lock 1` list ready, which T3 runs when it
 *   reaches it at 20: exit at 20.
 */

/*
 * A read-write lock, recorded writer first: T2 writes (w10, holds 5),
 * then T3 and T4 read (w1 and w2 before, hold 5), then T5 writes (w0,
 * holds 1).  One processor per thread, t = 0.
 * Direct: T5 writes 0..1; T3 asks at 1 (T3's step comes before T5's
 *   unlock at 1) and reads 1..6, T4 reads 2..7; T2 writes 10..15: 15.
 * Strict: the readers wait for the last write before them (T2's unlock,
 *   15): both read 15..20; T5's write waits for every release since the
 *   previous write (T2's at 15, T3's and T4's at 20): 20..21: 21.
 * Client-server: the same dependencies, nothing to reorder: 21.
 */
static const char rwlock_order[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"1 0 create 4\n"
	"1 0 create 5\n"
	"2 10 wrlock 1\n"
	"2 5 rwunlock 1\n"
	"3 1 rdlock 1\n"
	"4 2 rdlock 1\n"
	"3 5 rwunlock 1\n"
	"4 5 rwunlock 1\n"
	"5 0 wrlock 1\n"
	"5 1 rwunlock 1\n"
	"2 0 exit\n"
	"3 0 exit\n"
	"4 0 exit\n"
	"5 0 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 join 4\n"
	"1 0 join 5\n"
	"1 0 exit\n";

/*
 * A broadcast to two waiters, and a list that may run early.  T2 and T3
 * wait on condition variable 1 (mutex 1); T1 posts semaphore 1 first, then
 * locks, broadcasts, unlocks; T3, after its cwait, unlocks, takes T1's
 * token and works 20 before exiting.
 *   T1: post 1, create 2, create 3, w5 lock 1, broadcast 1 2, unlock 1,
 *       join 2, join 3, exit;  T2: lock 1, w2 cwait, w3 unlock, exit;
 *   T3: w1 lock 1, cwait, w4 unlock, wait 1, w20 exit.
 * One processor per thread, t = 0.
 * Direct: T2 cwaits at 2 and T3, which got the mutex then, at 2; T1
 *   locks at 5 and wakes both; T2 gets the mutex at 5 (T1's unlock),
 *   unlocks at 8, T3 at 12, takes the token, exits at 32.  32.
 * Strict: the same order is the recorded one: 32.
 * Client-server: T3's last list (wait 1, w20, exit) may start as soon as
 *   T1 posts (0): T3 runs it when it reaches its first cut at 1, up to
 *   its exit at 21, which must wait for its other lists.  T2 is idle
 *   from 2 (its cwait registered).  T3's `lock 1` list (ready since T2's
 *   registration at 2) then runs at 21 and registers T3's cwait, which
 *   lets T1 lock (its lock follows that registration in the recording)
 *   at 21; T3 is idle, so the broadcast meets both waiters at once: T2
 *   re-acquires at T1's unlock (21), unlocks at 24; T3 at 24, unlocks at
 *   28 and, no list left, exits at 28; T1 joins: 28.
 */
static const char broadcast2[] =
	"shadowbind-trace 1\n"
	"1 0 post 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 0 lock 1\n"
	"3 1 lock 1\n"
	"1 5 lock 1\n"
	"1 0 broadcast 1 2\n"
	"1 0 unlock 1\n"
	"2 2 cwait 1 1\n"
	"2 3 unlock 1\n"
	"3 0 cwait 1 1\n"
	"3 4 unlock 1\n"
	"3 0 wait 1\n"
	"2 0 exit\n"
	"3 20 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 exit\n";

struct hand_case {
	const char *name;
	const char *trace;
	const char *policy;
	uint32_t k;        /* with bound = 0: ignored (every thread shadow) */
	int bound;
	int32_t by_id[8];  /* processor of each thread id */
	uint64_t latency;
	enum sim_model model;
	int64_t expect;    /* makespan, or DL */
	enum sim_model used; /* SIM_AUTO cases: the model that produced it */
};

static const struct hand_case hand[] = {
	{"Q direct", prog_q, "ps", 1, 0, {0}, 0, SIM_DIRECT, DL, SIM_DIRECT},
	{"Q client-server", prog_q, "ps", 1, 0, {0}, 0, SIM_CLIENT_SERVER, 10, SIM_CLIENT_SERVER},
	{"Q strict", prog_q, "ps", 1, 0, {0}, 0, SIM_STRICT, 13, SIM_STRICT},
	{"Q auto", prog_q, "ps", 1, 0, {0}, 0, SIM_AUTO, 10, SIM_CLIENT_SERVER},
	{"Q client-server fifo", prog_q, "fifo", 1, 0, {0}, 0, SIM_CLIENT_SERVER, 10, SIM_CLIENT_SERVER},
	{"Q strict rr", prog_q, "rr:1", 1, 0, {0}, 0, SIM_STRICT, 13, SIM_STRICT},
	{"Q client-server t=1", prog_q, "ps", 1, 0, {0}, 1, SIM_CLIENT_SERVER, 12, SIM_CLIENT_SERVER},
	{"Q strict t=1", prog_q, "ps", 1, 0, {0}, 1, SIM_STRICT, 16, SIM_STRICT},
	{"R direct", prog_r, "ps", 1, 0, {0}, 0, SIM_DIRECT, DL, SIM_DIRECT},
	{"R client-server", prog_r, "ps", 1, 0, {0}, 0, SIM_CLIENT_SERVER, DL, SIM_CLIENT_SERVER},
	{"R strict", prog_r, "ps", 1, 0, {0}, 0, SIM_STRICT, 21, SIM_STRICT},
	{"R auto", prog_r, "fifo", 1, 0, {0}, 0, SIM_AUTO, 21, SIM_STRICT},
	{"P direct fifo", prog_p, "fifo", 2, 1, {0, 0, 0, 1, 1}, 0, SIM_DIRECT, 10, SIM_DIRECT},
	{"P client-server fifo", prog_p, "fifo", 2, 1, {0, 0, 0, 1, 1}, 0, SIM_CLIENT_SERVER, 11, SIM_CLIENT_SERVER},
	{"P strict fifo", prog_p, "fifo", 2, 1, {0, 0, 0, 1, 1}, 0, SIM_STRICT, 13, SIM_STRICT},
	{"P auto fifo", prog_p, "fifo", 2, 1, {0, 0, 0, 1, 1}, 0, SIM_AUTO, 10, SIM_DIRECT},
	{"P direct shadow", prog_p, "ps", 1, 0, {0}, 0, SIM_DIRECT, 8, SIM_DIRECT},
	{"P client-server shadow", prog_p, "ps", 1, 0, {0}, 0, SIM_CLIENT_SERVER, 8, SIM_CLIENT_SERVER},
	{"P strict shadow", prog_p, "ps", 1, 0, {0}, 0, SIM_STRICT, 8, SIM_STRICT},
	{"wrong client direct", wrong_client, "ps", 1, 0, {0}, 0, SIM_DIRECT, DL, SIM_DIRECT},
	{"wrong client client-server", wrong_client, "ps", 1, 0, {0}, 0, SIM_CLIENT_SERVER, 11, SIM_CLIENT_SERVER},
	{"wrong client strict", wrong_client, "ps", 1, 0, {0}, 0, SIM_STRICT, 14, SIM_STRICT},
	{"wrong client auto", wrong_client, "fifo", 1, 0, {0}, 0, SIM_AUTO, 11, SIM_CLIENT_SERVER},
	{"wrong group direct", wrong_group, "ps", 1, 0, {0}, 0, SIM_DIRECT, DL, SIM_DIRECT},
	{"wrong group client-server", wrong_group, "ps", 1, 0, {0}, 0, SIM_CLIENT_SERVER, 16, SIM_CLIENT_SERVER},
	{"wrong group strict", wrong_group, "ps", 1, 0, {0}, 0, SIM_STRICT, 16, SIM_STRICT},
	{"tu_lock_inversion direct", tu_lock_inversion, "ps", 1, 0, {0}, 0, SIM_DIRECT, DL, SIM_DIRECT},
	{"tu_lock_inversion client-server", tu_lock_inversion, "ps", 1, 0, {0}, 0, SIM_CLIENT_SERVER, 20, SIM_CLIENT_SERVER},
	{"tu_lock_inversion strict", tu_lock_inversion, "ps", 1, 0, {0}, 0, SIM_STRICT, 20, SIM_STRICT},
	{"tu_lock_inversion auto", tu_lock_inversion, "ps", 1, 0, {0}, 0, SIM_AUTO, 20, SIM_CLIENT_SERVER},
	{"rwlock direct", rwlock_order, "ps", 1, 0, {0}, 0, SIM_DIRECT, 15, SIM_DIRECT},
	{"rwlock client-server", rwlock_order, "ps", 1, 0, {0}, 0, SIM_CLIENT_SERVER, 21, SIM_CLIENT_SERVER},
	{"rwlock strict", rwlock_order, "ps", 1, 0, {0}, 0, SIM_STRICT, 21, SIM_STRICT},
	{"broadcast direct", broadcast2, "ps", 1, 0, {0}, 0, SIM_DIRECT, 32, SIM_DIRECT},
	{"broadcast client-server", broadcast2, "ps", 1, 0, {0}, 0, SIM_CLIENT_SERVER, 28, SIM_CLIENT_SERVER},
	{"broadcast strict", broadcast2, "ps", 1, 0, {0}, 0, SIM_STRICT, 32, SIM_STRICT},
};

static int run_case(struct tu_sim *c, const char *policy, uint32_t k, const int32_t *by_id,
                    uint64_t lat, enum sim_model model, unsigned flags,
                    struct sim_result *res)
{
	struct sim_params par;
	sim_params_init(&par);
	assert_int_equal(sim_policy_parse(policy, &par), 0);
	par.cpus = k;
	par.latency = lat;
	par.model = model;
	int32_t *b = NULL;
	if (by_id) {
		b = calloc(c->tr->nthreads, sizeof *b);
		for (uint32_t i = 0; i < c->tr->nthreads; i++)
			b[i] = by_id[c->tr->threads[i].id];
	}
	int rc = sim_run(c->p, c->w, &par, b, flags, res);
	free(b);
	return rc;
}

static void test_hand_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
		const struct hand_case *h = &hand[i];
		struct tu_sim c;
		tu_sim_open(&c, h->trace);
		struct sim_result res;
		int rc = run_case(&c, h->policy, h->k, h->bound ? h->by_id : NULL, h->latency,
		                  h->model, SIM_STATS | SIM_SCHEDULE, &res);
		int want = h->expect == DL ? SIM_DEADLOCK : SIM_OK;
		if (rc != want)
			fail_msg("%s: status %d, expected %d", h->name, rc, want);
		if (res.model != h->used)
			fail_msg("%s: model %s, expected %s", h->name, sim_model_name(res.model),
			         sim_model_name(h->used));
		if (rc == SIM_OK && (res.makespan.num != (uint64_t)h->expect || res.makespan.den != 1))
			fail_msg("%s: makespan %llu/%llu, expected %lld", h->name,
			         (unsigned long long)res.makespan.num,
			         (unsigned long long)res.makespan.den, (long long)h->expect);
		if (rc == SIM_DEADLOCK)
			assert_true(res.nblocked > 0);
		tu_sim_close(&c);
	}
}

/* The deadlock reports of the pairing models name what each thread still
 * waits for (lines of prog_r: 1 magic, 2 lock, 3..5 creates, 6 lock 2,
 * 7 signal 1 (T2), 8 cwait (T1's first), ...).  Client-server, one
 * processor per thread: T1 blocks in `signal 2 1` (line 12) until T2
 * can take its cwait (line 13); T2 in `signal 1 1` (line 7) until T1 can
 * take its first cwait (line 8); T3 is idle, its reply list (cwait at
 * line 17) waits for T1's `signal 3 1` (line 16). */
static void test_deadlock_report(void **state)
{
	(void)state;
	struct tu_sim c;
	tu_sim_open(&c, prog_r);
	struct sim_result res;
	assert_int_equal(run_case(&c, "ps", 1, NULL, 0, SIM_CLIENT_SERVER, 0, &res), SIM_DEADLOCK);
	assert_int_equal(res.model, SIM_CLIENT_SERVER);
	assert_int_equal(res.nblocked, 3);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sim_deadlock_print(c.p, &res, f);
	fclose(f);
	assert_string_equal(buf,
		"thread 1 waits at line 12 to see its waiters on condition variable 2, until thread 2's cwait at line 13\n"
		"thread 2 waits at line 7 to see its waiters on condition variable 1, until thread 1's cwait at line 8\n"
		"thread 3 is idle with 1 list waiting; the first waits at line 17 to be signalled on condition variable 3, until thread 1's signal at line 16\n");
	free(buf);
	/* the Direct model's report is unchanged in form */
	assert_int_equal(run_case(&c, "ps", 1, NULL, 0, SIM_DIRECT, 0, &res), SIM_DEADLOCK);
	f = open_memstream(&buf, &len);
	sim_deadlock_print(c.p, &res, f);
	fclose(f);
	assert_non_null(strstr(buf, "thread 1 waits at line 12 to see enough waiters on condition variable 2\n"));
	free(buf);
	tu_sim_close(&c);

	/* The same program with every signal a broadcast of 1: a broadcast
	 * that woke one waiter pairs as that signal did (docs/models.md), so
	 * the same threads block at the same lines; the verb is broadcast's
	 * own ("see its waiters on", trace.h) and thread 1's release at line
	 * 16 is now named a broadcast. */
	char *text = malloc(2 * sizeof prog_r); /* each 8-byte " signal " grows by 3 */
	assert_non_null(text);
	memcpy(text, prog_r, sizeof prog_r);
	for (char *q = text; (q = strstr(q, " signal ")) != NULL; q += 8) {
		memmove(q + 11, q + 8, strlen(q + 8) + 1);
		memcpy(q, " broadcast ", 11);
	}
	tu_sim_open(&c, text);
	assert_int_equal(run_case(&c, "ps", 1, NULL, 0, SIM_CLIENT_SERVER, 0, &res), SIM_DEADLOCK);
	f = open_memstream(&buf, &len);
	sim_deadlock_print(c.p, &res, f);
	fclose(f);
	assert_string_equal(buf,
		"thread 1 waits at line 12 to see its waiters on condition variable 2, until thread 2's cwait at line 13\n"
		"thread 2 waits at line 7 to see its waiters on condition variable 1, until thread 1's cwait at line 8\n"
		"thread 3 is idle with 1 list waiting; the first waits at line 17 to be signalled on condition variable 3, until thread 1's broadcast at line 16\n");
	free(buf);
	tu_sim_close(&c);
	free(text);
}

/* ------------------------------------------------------------------ */
/*
 * A random valid trace: a random execution of random threads on one
 * processor, written in the order its operations took effect (the
 * recording's order), so the reader accepts it by construction.  Thread 1
 * creates the workers, rescues blocked threads (posts a semaphore somebody
 * waits on, broadcasts a condition variable with waiters) and joins the
 * workers; workers do random operations, may create and join a child, and
 * release what they hold, finish their barrier episodes and join their
 * children before they exit.  To keep every execution live, resources are
 * taken in a global order (mutexes, then read-write locks), a cwait's
 * mutex is the highest resource its thread holds, and a thread holds
 * nothing at a barrier or a join.
 */

enum {
	F_MUTEX = 1,
	F_SEM = 2,
	F_COND = 4,
	F_BARRIER = 8,
	F_RWLOCK = 16,
	F_JOIN = 32,  /* nested create + join */
	F_SLEEP = 64,
	F_TRY = 128,
	F_FIXED = 256 /* semaphores are channels (one poster, one waiter, never
	                 blocked in the recording): Direct == strict */
};
#define F_ALL (F_MUTEX | F_SEM | F_COND | F_BARRIER | F_RWLOCK | F_JOIN | F_SLEEP | F_TRY)

#define GMAXT 14
#define GMAXO 4

enum { GB_NONE = 0, GB_LOCK, GB_REACQ, GB_SEM, GB_CWAIT, GB_BAR, GB_RD, GB_WR, GB_JOIN };

struct gth {
	int state;        /* 0 not created, 1 alive, 2 exited      */
	int blk, obj;     /* GB_..., object                        */
	uint64_t stamp;   /* when it queued (FIFO)                 */
	unsigned wk;      /* work of its pending record            */
	int cond;         /* GB_CWAIT, GB_REACQ: its cond variable */
	int budget;
	unsigned held;    /* bit i: mutex i; bit GMAXO + i: rwlock i */
	int bar_quota;
	int parent, joined, nchild, child[2];
};

struct gen {
	char *buf;
	size_t len, cap;
	uint64_t *seed;
	unsigned flags;
	int nt;
	struct gth th[GMAXT + 1];
	int nm, ns, nc, nr;
	int mx_owner[GMAXO];
	int sem_tok[GMAXO], sem_post[GMAXO], sem_wait[GMAXO];
	int rw_writer[GMAXO], rw_readers[GMAXO];
	int bar_n, bar_arrived, bar_order[GMAXT + 1];
	uint64_t clock;
	int ok;
};

static unsigned grand(struct gen *g, unsigned n)
{
	return n ? (unsigned)(tu_rand(g->seed) % n) : 0;
}

static void gput(struct gen *g, const char *fmt, ...)
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

static unsigned gwork(struct gen *g)
{
	unsigned r = grand(g, 10);
	return r < 3 ? 0 : grand(g, 30);
}

/* Highest resource order held (-1: none). */
static int top_held(const struct gth *t)
{
	for (int i = 2 * GMAXO - 1; i >= 0; i--)
		if (t->held >> i & 1)
			return i;
	return -1;
}

static void block_on(struct gen *g, int t, int blk, int obj, unsigned wk)
{
	g->th[t].blk = blk;
	g->th[t].obj = obj;
	g->th[t].wk = wk;
	g->th[t].stamp = ++g->clock;
}

/* The first thread blocked as `blk` on `obj` (FIFO), or 0. */
static int first_blocked(const struct gen *g, int blk, int obj)
{
	int best = 0;
	for (int v = 1; v <= g->nt; v++)
		if (g->th[v].state == 1 && g->th[v].blk == blk && g->th[v].obj == obj &&
		    (!best || g->th[v].stamp < g->th[best].stamp))
			best = v;
	return best;
}

/* Mutex m became free: hand it to the first locker or re-acquirer. */
static void g_mutex_free(struct gen *g, int m)
{
	g->mx_owner[m] = 0;
	int best = 0;
	for (int v = 1; v <= g->nt; v++) {
		const struct gth *x = &g->th[v];
		if (x->state == 1 && (x->blk == GB_LOCK || x->blk == GB_REACQ) && x->obj == m &&
		    (!best || x->stamp < g->th[best].stamp))
			best = v;
	}
	if (!best)
		return;
	struct gth *x = &g->th[best];
	g->mx_owner[m] = best;
	x->held |= 1u << m;
	if (x->blk == GB_LOCK)
		gput(g, "%d %u lock %d\n", best, x->wk, m + 1);
	else
		gput(g, "%d %u cwait %d %d\n", best, x->wk, x->cond + 1, m + 1);
	x->blk = GB_NONE;
}

static void g_post(struct gen *g, int t, unsigned wk, int s)
{
	gput(g, "%d %u post %d\n", t, wk, s + 1);
	g->sem_tok[s]++;
	int v = first_blocked(g, GB_SEM, s);
	if (v) {
		g->sem_tok[s]--;
		gput(g, "%d %u wait %d\n", v, g->th[v].wk, s + 1);
		g->th[v].blk = GB_NONE;
	}
}

static void g_signal(struct gen *g, int t, unsigned wk, int c, int all)
{
	int n = 0;
	for (int v = 1; v <= g->nt; v++)
		if (g->th[v].state == 1 && g->th[v].blk == GB_CWAIT && g->th[v].cond == c)
			n++;
	if (!all && n > 1)
		n = 1;
	gput(g, "%d %u %s %d %d\n", t, wk, all ? "broadcast" : "signal", c + 1, n);
	for (int i = 0; i < n; i++) {
		int v = 0;
		for (int u = 1; u <= g->nt; u++)
			if (g->th[u].state == 1 && g->th[u].blk == GB_CWAIT && g->th[u].cond == c &&
			    (!v || g->th[u].stamp < g->th[v].stamp))
				v = u;
		struct gth *x = &g->th[v];
		int m = x->obj;
		if (g->mx_owner[m] == 0) {
			g->mx_owner[m] = v;
			x->held |= 1u << m;
			gput(g, "%d %u cwait %d %d\n", v, x->wk, c + 1, m + 1);
			x->blk = GB_NONE;
		} else {
			block_on(g, v, GB_REACQ, m, x->wk);
			x->cond = c;
		}
	}
}

static void g_rw_grant(struct gen *g, int r)
{
	for (;;) {
		int best = 0;
		for (int v = 1; v <= g->nt; v++) {
			const struct gth *x = &g->th[v];
			if (x->state == 1 && (x->blk == GB_RD || x->blk == GB_WR) && x->obj == r &&
			    (!best || x->stamp < g->th[best].stamp))
				best = v;
		}
		if (!best || g->rw_writer[r])
			return;
		struct gth *x = &g->th[best];
		if (x->blk == GB_WR) {
			if (g->rw_readers[r])
				return;
			g->rw_writer[r] = best;
		} else {
			g->rw_readers[r]++;
		}
		x->held |= 1u << (GMAXO + r);
		gput(g, "%d %u %s %d\n", best, x->wk, x->blk == GB_WR ? "wrlock" : "rdlock", r + 1);
		x->blk = GB_NONE;
		if (g->rw_writer[r])
			return;
	}
}

static void g_exit(struct gen *g, int t, unsigned wk)
{
	gput(g, "%d %u exit\n", t, wk);
	g->th[t].state = 2;
	for (int v = 1; v <= g->nt; v++) {
		struct gth *x = &g->th[v];
		if (x->state == 1 && x->blk == GB_JOIN && x->obj == t) {
			gput(g, "%d %u join %d\n", v, x->wk, t);
			x->blk = GB_NONE;
			g->th[t].joined = 1;
		}
	}
}

static void g_release_one(struct gen *g, int t, unsigned wk)
{
	struct gth *x = &g->th[t];
	int i = top_held(x);
	x->held &= ~(1u << i);
	if (i < GMAXO) {
		gput(g, "%d %u unlock %d\n", t, wk, i + 1);
		g_mutex_free(g, i);
	} else {
		int r = i - GMAXO;
		gput(g, "%d %u rwunlock %d\n", t, wk, r + 1);
		if (g->rw_writer[r] == t)
			g->rw_writer[r] = 0;
		else
			g->rw_readers[r]--;
		g_rw_grant(g, r);
	}
}

static void g_arrive(struct gen *g, int t, unsigned wk)
{
	block_on(g, t, GB_BAR, 0, wk);
	g->th[t].bar_quota--;
	g->bar_order[g->bar_arrived++] = t;
	if (g->bar_arrived < g->bar_n)
		return;
	for (int i = 0; i < g->bar_n; i++) {
		int v = g->bar_order[i];
		gput(g, "%d %u barrier 1 %d\n", v, g->th[v].wk, g->bar_n);
		g->th[v].blk = GB_NONE;
	}
	g->bar_arrived = 0;
}

static void g_join(struct gen *g, int t, unsigned wk, int c)
{
	if (g->th[c].state == 2) {
		gput(g, "%d %u join %d\n", t, wk, c);
		g->th[c].joined = 1;
	} else {
		block_on(g, t, GB_JOIN, c, wk);
	}
}

/* One step of worker t. */
static void g_worker(struct gen *g, int t)
{
	struct gth *x = &g->th[t];
	unsigned wk = gwork(g), f = g->flags;
	if (x->budget == 0) {
		if (x->held) {
			g_release_one(g, t, wk);
		} else if (x->bar_quota > 0) {
			g_arrive(g, t, wk);
		} else {
			for (int i = 0; i < x->nchild; i++) {
				if (!g->th[x->child[i]].joined) {
					g_join(g, t, wk, x->child[i]);
					return;
				}
			}
			g_exit(g, t, wk);
		}
		return;
	}
	x->budget--;
	for (int tries = 0; tries < 12; tries++) {
		int top = top_held(x);
		switch (grand(g, 16)) {
		case 0: /* lock */
		case 1: {
			if (!(f & F_MUTEX) || !g->nm)
				break;
			int m = (int)grand(g, (unsigned)g->nm);
			if (m <= top)
				break;
			if (g->mx_owner[m] == 0) {
				g->mx_owner[m] = t;
				x->held |= 1u << m;
				gput(g, "%d %u lock %d\n", t, wk, m + 1);
			} else {
				block_on(g, t, GB_LOCK, m, wk);
			}
			return;
		}
		case 2: /* unlock */
			if (top < 0)
				break;
			g_release_one(g, t, wk);
			return;
		case 3: { /* trylock */
			if (!(f & F_MUTEX) || !(f & F_TRY) || !g->nm)
				break;
			int m = (int)grand(g, (unsigned)g->nm);
			if (m <= top)
				break;
			if (g->mx_owner[m] == 0) {
				g->mx_owner[m] = t;
				x->held |= 1u << m;
				gput(g, "%d %u trylock %d ok\n", t, wk, m + 1);
			} else {
				gput(g, "%d %u trylock %d busy\n", t, wk, m + 1);
			}
			return;
		}
		case 4: /* post */
		case 5: {
			if (!(f & F_SEM) || !g->ns)
				break;
			int s = (int)grand(g, (unsigned)g->ns);
			if ((f & F_FIXED) && g->sem_post[s] != t)
				break;
			g_post(g, t, wk, s);
			return;
		}
		case 6: /* wait */
		case 7: {
			if (!(f & F_SEM) || !g->ns)
				break;
			int s = (int)grand(g, (unsigned)g->ns);
			if (f & F_FIXED) {
				if (g->sem_wait[s] != t || g->sem_tok[s] == 0)
					break;
			}
			if (g->sem_tok[s]) {
				g->sem_tok[s]--;
				gput(g, "%d %u wait %d\n", t, wk, s + 1);
			} else {
				block_on(g, t, GB_SEM, s, wk);
			}
			return;
		}
		case 8: { /* trywait */
			if (!(f & F_SEM) || !(f & F_TRY) || (f & F_FIXED) || !g->ns)
				break;
			int s = (int)grand(g, (unsigned)g->ns);
			if (g->sem_tok[s]) {
				g->sem_tok[s]--;
				gput(g, "%d %u trywait %d ok\n", t, wk, s + 1);
			} else {
				gput(g, "%d %u trywait %d busy\n", t, wk, s + 1);
			}
			return;
		}
		case 9: { /* cwait on the highest held resource, a mutex */
			if (!(f & F_COND) || top < 0 || top >= GMAXO)
				break;
			int c = (int)grand(g, (unsigned)g->nc);
			x->held &= ~(1u << top);
			block_on(g, t, GB_CWAIT, top, wk);
			x->cond = c;
			g_mutex_free(g, top);
			return;
		}
		case 10: /* signal / broadcast */
			if (!(f & F_COND))
				break;
			g_signal(g, t, wk, (int)grand(g, (unsigned)g->nc), (int)grand(g, 3) == 0);
			return;
		case 11: /* barrier */
			if (!(f & F_BARRIER) || x->bar_quota <= 0 || x->held)
				break;
			g_arrive(g, t, wk);
			return;
		case 12: { /* rdlock / wrlock */
			if (!(f & F_RWLOCK) || !g->nr)
				break;
			int r = (int)grand(g, (unsigned)g->nr);
			if (GMAXO + r <= top)
				break;
			int wr = (int)grand(g, 2);
			if (!g->rw_writer[r] && (!wr || !g->rw_readers[r])) {
				if (wr)
					g->rw_writer[r] = t;
				else
					g->rw_readers[r]++;
				x->held |= 1u << (GMAXO + r);
				gput(g, "%d %u %s %d\n", t, wk, wr ? "wrlock" : "rdlock", r + 1);
			} else {
				block_on(g, t, wr ? GB_WR : GB_RD, r, wk);
			}
			return;
		}
		case 13: /* sleep */
			if (!(f & F_SLEEP))
				break;
			gput(g, "%d %u sleep %u\n", t, wk, grand(g, 40));
			return;
		case 14: { /* create a child */
			if (!(f & F_JOIN) || g->nt >= GMAXT || x->nchild >= 2)
				break;
			int c = ++g->nt;
			g->th[c] = (struct gth){.state = 1, .budget = 1 + (int)grand(g, 6), .parent = t};
			x->child[x->nchild++] = c;
			gput(g, "%d %u create %d\n", t, wk, c);
			return;
		}
		default: /* join a child */
			if (!(f & F_JOIN) || x->held)
				break;
			for (int i = 0; i < x->nchild; i++) {
				if (!g->th[x->child[i]].joined && g->th[x->child[i]].blk == GB_NONE) {
					g_join(g, t, wk, x->child[i]);
					return;
				}
			}
			break;
		}
	}
	/* nothing applied: a plain sleep of 0 keeps the record count honest */
	gput(g, "%d %u sleep 0\n", t, wk);
}

/* Thread 1: rescue, join, exit.  Returns 0 when it could do nothing. */
static int g_main(struct gen *g)
{
	unsigned wk = gwork(g);
	for (int v = 2; v <= g->nt; v++) {
		if (g->th[v].state == 1 && g->th[v].blk == GB_SEM) {
			g_post(g, 1, wk, g->th[v].obj);
			return 1;
		}
	}
	for (int v = 2; v <= g->nt; v++) {
		if (g->th[v].state == 1 && g->th[v].blk == GB_CWAIT) {
			g_signal(g, 1, wk, g->th[v].cond, 1);
			return 1;
		}
	}
	int all = 1;
	for (int v = 2; v <= g->nt; v++) {
		if (g->th[v].parent != 1)
			continue;
		if (g->th[v].state == 2 && !g->th[v].joined) {
			gput(g, "1 %u join %d\n", wk, v);
			g->th[v].joined = 1;
			return 1;
		}
		if (!g->th[v].joined)
			all = 0;
	}
	if (all) {
		g_exit(g, 1, wk);
		return 1;
	}
	return 0;
}

/*
 * A random valid trace with the operations in `flags`, up to `maxw`
 * workers doing up to `steps` operations each.  Returns the text
 * (malloc'd), or NULL in the (unexpected) case the execution got stuck.
 */
static char *gen_trace(uint64_t *seed, unsigned flags, int maxw, int steps)
{
	struct gen *g = calloc(1, sizeof *g);
	g->seed = seed;
	g->flags = flags;
	g->cap = 4096;
	g->buf = malloc(g->cap);
	g->len = 0;
	int nw = 2 + (int)grand(g, (unsigned)(maxw - 1));
	g->nt = 1 + nw;
	g->nm = 1 + (int)grand(g, GMAXO);
	g->ns = 1 + (int)grand(g, GMAXO);
	g->nc = 1 + (int)grand(g, 2);
	g->nr = 1 + (int)grand(g, 2);
	gput(g, "shadowbind-trace 1\n");
	for (int s = 0; s < g->ns; s++) {
		g->sem_tok[s] = (int)grand(g, 3);
		g->sem_post[s] = 2 + (int)grand(g, (unsigned)nw);
		g->sem_wait[s] = 2 + (int)grand(g, (unsigned)nw);
		gput(g, "sem %d %d\n", s + 1, g->sem_tok[s]);
	}
	g->th[1] = (struct gth){.state = 1};
	for (int v = 2; v <= g->nt; v++) {
		g->th[v] = (struct gth){.state = 1, .budget = 1 + (int)grand(g, (unsigned)steps), .parent = 1};
		gput(g, "1 0 create %d\n", v);
	}
	if ((flags & F_BARRIER) && nw >= 2) {
		int q = 1 + (int)grand(g, 3);
		for (int v = 2; v <= g->nt; v++) {
			if (g->bar_n < 2 || grand(g, 2)) {
				g->th[v].bar_quota = q;
				g->bar_n++;
			}
		}
	}
	for (long it = 0; it < 200000; it++) {
		if (g->th[1].state == 2) {
			g->ok = 1;
			break;
		}
		int run[GMAXT + 1], nr = 0;
		for (int v = 2; v <= g->nt; v++)
			if (g->th[v].state == 1 && g->th[v].blk == GB_NONE)
				run[nr++] = v;
		if (nr == 0 || grand(g, 6) == 0) {
			if (!g_main(g) && nr == 0)
				break; /* stuck */
			continue;
		}
		g_worker(g, run[grand(g, (unsigned)nr)]);
	}
	char *out = g->ok ? g->buf : NULL;
	if (!g->ok)
		free(g->buf);
	free(g);
	return out;
}

/* Random machine parameters. */
static const char *const policies[] = {"ps", "fifo", "rr:1", "rr:5", "rr:50"};
#define NPOL (sizeof policies / sizeof policies[0])

struct cfg {
	struct sim_params par;
	int32_t bind[GMAXT + 1];
	int shadow; /* binding NULL */
};

static void random_cfg(uint64_t *seed, const struct trace *tr, struct cfg *c)
{
	sim_params_init(&c->par);
	assert_int_equal(sim_policy_parse(policies[tu_rand(seed) % NPOL], &c->par), 0);
	c->par.cpus = 1 + (uint32_t)(tu_rand(seed) % 4);
	c->par.latency = tu_rand(seed) % 3 ? 0 : tu_rand(seed) % 20;
	if (tu_rand(seed) % 8 == 0) {
		c->par.create_cost = tu_rand(seed) % 5;
		c->par.switch_cost = tu_rand(seed) % 5;
	}
	unsigned kind = (unsigned)(tu_rand(seed) % 10);
	c->shadow = kind == 0;
	if (kind == 1)
		c->par.mode = SIM_UNBOUND;
	for (uint32_t i = 0; i < tr->nthreads; i++)
		c->bind[i] = tu_rand(seed) % 6 == 0 ? S : (int32_t)(tu_rand(seed) % c->par.cpus);
}

static int cfg_run(struct tu_sim *x, const struct cfg *c, enum sim_model m, unsigned flags,
                   struct sim_result *res)
{
	struct sim_params par = c->par;
	par.model = m;
	return sim_run(x->p, x->w, &par, c->shadow ? NULL : c->bind, flags, res);
}

/* Print a failing case for reproduction. */
static void dump_case(const char *text, struct tu_sim *x, const struct cfg *c, enum sim_model m)
{
	char pb[32];
	print_error("model %s policy %s cpus %u latency %llu mode %s%s\n%s", sim_model_name(m),
	            sim_policy_format(&c->par, pb, sizeof pb), c->par.cpus,
	            (unsigned long long)c->par.latency,
	            c->par.mode == SIM_UNBOUND ? "unbound" : "bound",
	            c->shadow ? " (all shadow)" : "", text);
	if (!c->shadow && c->par.mode == SIM_BOUND)
		for (uint32_t i = 0; i < x->tr->nthreads; i++)
			print_error("bind %u -> %d\n", x->tr->threads[i].id, c->bind[i]);
	struct sim_result res;
	if (cfg_run(x, c, m, 0, &res) == SIM_DEADLOCK)
		sim_deadlock_print(x->p, &res, stderr);
}

/* Invariants every finished run satisfies. */
static void check_finished(struct tu_sim *x, const struct cfg *c, const struct sim_result *r)
{
	const struct trace *tr = x->tr;
	uint64_t biggest = 0, load[4] = {0};
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		uint64_t wk = trace_thread_work(tr, i);
		if (wk > biggest)
			biggest = wk;
		if (!c->shadow && c->par.mode == SIM_BOUND && c->bind[i] != S)
			load[c->bind[i]] += wk;
		const struct sim_thread_stats *s = &r->threads[i];
		uint64_t creates = 0;
		for (uint32_t k = 0; k < tr->threads[i].nrec; k++)
			creates += tr->rec[tr->threads[i].first + k].op == TRACE_CREATE;
		assert_true(sim_time_cmp(s->cpu, sim_time_int(wk + creates * c->par.create_cost)) == 0);
		double sum = sim_time_to_double(s->start) + sim_time_to_double(s->cpu) +
		             sim_time_to_double(s->ready) + sim_time_to_double(s->blocked);
		assert_true(sum <= sim_time_to_double(s->end) + 1e-6 &&
		            sum >= sim_time_to_double(s->end) - 1e-6);
		assert_true(sim_time_cmp(s->end, r->makespan) <= 0);
	}
	assert_true(sim_time_cmp(r->makespan, sim_time_int(biggest)) >= 0);
	for (int p = 0; p < 4; p++)
		assert_true(sim_time_cmp(r->makespan, sim_time_int(load[p])) >= 0);
}

struct order_stats {
	long runs, dl_direct, dl_cs, dl_strict, all3;
	long d_gt_cs, cs_gt_s, d_gt_s, d_eq_s, cs_eq_s;
	long auto_direct, auto_cs, auto_strict;
};

/*
 * Thousands of random valid traces with every operation, on random
 * bindings (some threads shadow, some runs unbound), policies, latencies,
 * costs and processor counts:
 *   - strict never deadlocks (asserted);
 *   - client-server never deadlocks on traces without condition
 *     variables (asserted: docs/models.md proves it);
 *   - SIM_AUTO's result is the first of Direct, client-server, strict that
 *     finishes (asserted);
 *   - every finished run: per-thread times add up, makespan >= the
 *     biggest thread and the busiest processor's work (asserted);
 *   - Direct <= client-server <= strict (counted and printed only).
 */
static void test_random_traces(void **state)
{
	(void)state;
	uint64_t seed = 20240611;
	struct order_stats st = {0};
	long traces = 0, stuck = 0, nocond_cs = 0;
	for (int iter = 0; iter < 2000; iter++) {
		unsigned flags = F_ALL;
		if (iter % 3 == 1)
			flags &= ~F_COND;
		if (iter % 5 == 2)
			flags = (unsigned)(tu_rand(&seed) % (F_ALL + 1)) | F_SEM;
		char *text = gen_trace(&seed, flags, 7, 14);
		if (!text) {
			stuck++;
			continue;
		}
		traces++;
		struct tu_sim x;
		tu_sim_open(&x, text);
		int has_cond = strstr(text, "cwait") != NULL;
		for (int rep = 0; rep < 3; rep++) {
			struct cfg c;
			random_cfg(&seed, x.tr, &c);
			struct sim_result rd, rc, rs, ra;
			int sd = cfg_run(&x, &c, SIM_DIRECT, SIM_STATS, &rd);
			sim_time md = rd.makespan;
			if (sd == SIM_OK)
				check_finished(&x, &c, &rd);
			int sc = cfg_run(&x, &c, SIM_CLIENT_SERVER, SIM_STATS, &rc);
			sim_time mc = rc.makespan;
			if (sc == SIM_OK)
				check_finished(&x, &c, &rc);
			int ss = cfg_run(&x, &c, SIM_STRICT, SIM_STATS, &rs);
			sim_time ms = rs.makespan;
			if (ss != SIM_OK) {
				dump_case(text, &x, &c, SIM_STRICT);
				fail_msg("strict sequence model: status %d on a valid trace", ss);
			}
			check_finished(&x, &c, &rs);
			if (!has_cond) {
				nocond_cs++;
				if (sc != SIM_OK) {
					dump_case(text, &x, &c, SIM_CLIENT_SERVER);
					fail_msg("client-server deadlocked without condition variables");
				}
			}
			int sa = cfg_run(&x, &c, SIM_AUTO, 0, &ra);
			assert_int_equal(sa, SIM_OK);
			enum sim_model want = sd == SIM_OK ? SIM_DIRECT : sc == SIM_OK ? SIM_CLIENT_SERVER : SIM_STRICT;
			sim_time mw = sd == SIM_OK ? md : sc == SIM_OK ? mc : ms;
			assert_int_equal(ra.model, want);
			assert_true(sim_time_cmp(ra.makespan, mw) == 0);
			st.auto_direct += want == SIM_DIRECT;
			st.auto_cs += want == SIM_CLIENT_SERVER;
			st.auto_strict += want == SIM_STRICT;

			st.runs++;
			st.dl_direct += sd == SIM_DEADLOCK;
			st.dl_cs += sc == SIM_DEADLOCK;
			if (sd == SIM_OK && sc == SIM_OK) {
				st.all3++;
				st.d_gt_cs += sim_time_cmp(md, mc) > 0;
				st.cs_gt_s += sim_time_cmp(mc, ms) > 0;
				st.d_gt_s += sim_time_cmp(md, ms) > 0;
				st.d_eq_s += sim_time_cmp(md, ms) == 0;
				st.cs_eq_s += sim_time_cmp(mc, ms) == 0;
			}
		}
		tu_sim_close(&x);
		free(text);
	}
	print_message("random traces: %ld (%ld generator restarts), %ld runs of each model\n",
	              traces, stuck, st.runs);
	print_message("deadlocks: direct %ld, client-server %ld (none of %ld runs without condition variables), strict 0\n",
	              st.dl_direct, st.dl_cs, nocond_cs);
	print_message("auto used: direct %ld, client-server %ld, strict %ld\n", st.auto_direct,
	              st.auto_cs, st.auto_strict);
	print_message("all three finished: %ld; ordering fails: direct > client-server %ld, "
	              "client-server > strict %ld, direct > strict %ld; direct == strict %ld, "
	              "client-server == strict %ld\n",
	              st.all3, st.d_gt_cs, st.cs_gt_s, st.d_gt_s, st.d_eq_s, st.cs_eq_s);
	assert_true(traces >= 1900);
	assert_true(nocond_cs > 1000);
}

/*
 * On one processor with no latency, costs or sleeps, the processor is
 * never idle while a thread is ready, and a run that finishes has had
 * every thread ready until it exits: every model that finishes takes
 * exactly the total work (docs/simulation.md, the k = 1 invariant).
 */
static void test_one_processor(void **state)
{
	(void)state;
	uint64_t seed = 777;
	long checked[3] = {0};
	for (int iter = 0; iter < 400; iter++) {
		char *text = gen_trace(&seed, F_ALL & ~F_SLEEP, 6, 12);
		if (!text)
			continue;
		struct tu_sim x;
		tu_sim_open(&x, text);
		uint64_t total = trace_total_work(x.tr);
		struct sim_params par;
		sim_params_init(&par);
		assert_int_equal(sim_policy_parse(policies[iter % NPOL], &par), 0);
		int32_t b[GMAXT + 1] = {0};
		for (int m = 0; m < 3; m++) {
			par.model = (enum sim_model)m;
			sim_time ms;
			int rc = sim_makespan(x.p, x.w, &par, b, &ms);
			if (m == SIM_STRICT)
				assert_int_equal(rc, SIM_OK);
			if (rc != SIM_OK)
				continue;
			if (sim_time_cmp(ms, sim_time_int(total)) != 0) {
				print_error("%s", text);
				fail_msg("model %s on one processor: makespan %llu/%llu, total work %llu",
				         sim_model_name((enum sim_model)m), (unsigned long long)ms.num,
				         (unsigned long long)ms.den, (unsigned long long)total);
			}
			checked[m]++;
		}
		tu_sim_close(&x);
		free(text);
	}
	print_message("one processor: total work checked on %ld direct, %ld client-server, %ld strict runs\n",
	              checked[0], checked[1], checked[2]);
	assert_true(checked[2] > 350);
}

/*
 * Where the synchronization order cannot change (semaphores with one
 * poster and one waiter, creates, joins with one joiner, sleeps, and
 * barriers whose groups always have the same members), the recorded
 * pairing is the only one: Direct and strict must agree exactly, every
 * thread's end time included, on any binding, latency and policy
 * (barriers only under ps: when several threads pass a barrier at once,
 * the two models make them ready in different orders, arrival vs thread
 * id, which a fifo queue remembers).  Direct is the lead's independently
 * tested engine, so this checks strict's timing and latency rules.
 */
static void test_direct_equals_strict(void **state)
{
	(void)state;
	uint64_t seed = 4242;
	long checked = 0;
	for (int iter = 0; iter < 600; iter++) {
		unsigned flags = F_FIXED | F_SEM | F_JOIN | F_SLEEP | (iter % 2 ? F_BARRIER : 0);
		char *text = gen_trace(&seed, flags, 7, 14);
		if (!text)
			continue;
		struct tu_sim x;
		tu_sim_open(&x, text);
		for (int rep = 0; rep < 3; rep++) {
			struct cfg c;
			random_cfg(&seed, x.tr, &c);
			if (flags & F_BARRIER)
				c.par.policy = SIM_PS;
			struct sim_result rd, rs;
			int sd = cfg_run(&x, &c, SIM_DIRECT, SIM_STATS, &rd);
			struct sim_thread_stats ends[GMAXT + 1];
			memcpy(ends, rd.threads, x.tr->nthreads * sizeof *ends);
			int ss = cfg_run(&x, &c, SIM_STRICT, SIM_STATS, &rs);
			assert_int_equal(sd, SIM_OK);
			assert_int_equal(ss, SIM_OK);
			if (sim_time_cmp(rd.makespan, rs.makespan) != 0) {
				dump_case(text, &x, &c, SIM_STRICT);
				fail_msg("direct %llu, strict %llu", (unsigned long long)rd.makespan.num,
				         (unsigned long long)rs.makespan.num);
			}
			for (uint32_t i = 0; i < x.tr->nthreads; i++)
				assert_true(sim_time_cmp(ends[i].end, rs.threads[i].end) == 0);
			checked++;
		}
		tu_sim_close(&x);
		free(text);
	}
	print_message("direct == strict on %ld runs of fixed-order programs\n", checked);
	assert_true(checked > 1500);
}

/* The same run twice gives the same result; a workspace may switch
 * models and programs' sizes; bad models are refused. */
static void test_determinism_and_params(void **state)
{
	(void)state;
	uint64_t seed = 99;
	for (int iter = 0; iter < 100; iter++) {
		char *text = gen_trace(&seed, F_ALL, 6, 10);
		if (!text)
			continue;
		struct tu_sim x;
		tu_sim_open(&x, text);
		struct cfg c;
		random_cfg(&seed, x.tr, &c);
		for (int m = 0; m < 4; m++) {
			struct sim_result r1, r2;
			int a = cfg_run(&x, &c, (enum sim_model)m, SIM_SCHEDULE, &r1);
			sim_time t1 = r1.makespan;
			int b = cfg_run(&x, &c, (enum sim_model)m, 0, &r2);
			assert_int_equal(a, b);
			assert_true(sim_time_cmp(t1, r2.makespan) == 0);
		}
		tu_sim_close(&x);
		free(text);
	}
	struct tu_sim x;
	tu_sim_open(&x, prog_q);
	struct sim_params par;
	sim_params_init(&par);
	assert_int_equal(par.model, SIM_DIRECT);
	par.model = (enum sim_model)7;
	struct sim_result res;
	assert_int_equal(sim_run(x.p, x.w, &par, NULL, 0, &res), SIM_EINVAL);
	assert_string_equal(sim_model_name(SIM_CLIENT_SERVER), "client-server");
	assert_string_equal(sim_model_name(SIM_STRICT), "strict");
	assert_string_equal(sim_model_name(SIM_AUTO), "auto");
	assert_int_equal(sim_model_fallback(SIM_DIRECT), SIM_CLIENT_SERVER);
	assert_int_equal(sim_model_fallback(SIM_CLIENT_SERVER), SIM_STRICT);
	assert_int_equal(sim_model_fallback(SIM_STRICT), SIM_STRICT);
	tu_sim_close(&x);
}

/* bin/simulate --model: the default is auto, and the output names the
 * model that produced the result (Q: client-server 10; strict 13; Direct
 * deadlocks, exit 3). */
static void test_cli_model(void **state)
{
	(void)state;
	char bin[4096], cmd[8192];
	tu_bin("simulate", bin, sizeof bin);
	char *path = tu_tmpfile(prog_q);
	static const struct {
		const char *args;
		int status;
		const char *out, *err;
	} cases[] = {
		{"", 0, "makespan 10\n", NULL},
		{"--model auto", 0, "\nmodel client-server\n", NULL},
		{"--model client-server", 0, "\nmodel client-server\n", NULL},
		{"--model strict", 0, "makespan 13\n", NULL},
		{"--model strict", 0, "\nmodel strict\n", NULL},
		{"--json", 0, "\"model\": \"client-server\"", NULL},
		{"--model direct", 3, NULL, "with 3 threads blocked (model direct):\n"},
		{"--model fast", 1, NULL, "simulate: --model: 'fast' is not a model (direct, client-server, strict, auto); see 'simulate --help'\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		snprintf(cmd, sizeof cmd, "'%s' %s '%s'", bin, cases[i].args, path);
		int rc = tu_run(cmd, &out, &err);
		if (rc != cases[i].status)
			fail_msg("simulate %s: exit %d, expected %d (%s)", cases[i].args, rc,
			         cases[i].status, err);
		if (cases[i].out && !strstr(out, cases[i].out))
			fail_msg("simulate %s: no '%s' in\n%s", cases[i].args, cases[i].out, out);
		if (cases[i].err && !strstr(err, cases[i].err))
			fail_msg("simulate %s: no '%s' in\n%s", cases[i].args, cases[i].err, err);
		free(out);
		free(err);
	}
	unlink(path);
	free(path);
}

/*
 * The recorded pairing is built on the first pairing-model run, under a
 * lock: threads that share a fresh program and run the strict and
 * client-server models at the same time all get the serial result (an
 * independent run on a program of its own), and a Direct-only program
 * never builds it.
 */
/*
 * Work queues (sim_pool_new; docs/models.md, "Work queues").  Two workers
 * of mutex 1, recorded on one processor (line numbers in comments):
 *   worker 2 took tasks of 40 and 40, worker 3 one of 10.
 * Segments, in file order of the workers' `lock 1` records:
 *   s0 after line 4:  unlock, lock (work 40)
 *   s1 after line 6:  unlock, lock (work 10)
 *   s2 after line 8:  unlock, lock (work 40)
 *   s3 after line 10: unlock, exit          (a worker's last)
 *   s4 after line 13: unlock, exit
 * Without the pool, each replays its own: 2 on processor 0 needs 80, 3 on
 * processor 1 needs 10: makespan 80.  With it, at 0 worker 2 (lower id
 * first) takes s0 and works 40; worker 3 takes s1 and works 10, at 10
 * takes s2 and works 40 (10..50); at 40 worker 2 takes s3 and exits; at
 * 50 worker 3 takes s4 and exits; main joins at 50.  CPU: worker 2 40,
 * worker 3 50.  On one processor: the total work, 90.  Unbound on two:
 * as bound, 50.
 */
static const char pool_trace[] =
	"shadowbind-trace 1\n"          /* 1 */
	"1 0 create 2\n"                /* 2 */
	"1 0 create 3\n"                /* 3 */
	"2 0 lock 1\n"                  /* 4 */
	"2 0 unlock 1\n"                /* 5 */
	"3 0 lock 1\n"                  /* 6 */
	"3 0 unlock 1\n"                /* 7 */
	"2 40 lock 1\n"                 /* 8 */
	"2 0 unlock 1\n"                /* 9 */
	"3 10 lock 1\n"                 /* 10 */
	"3 0 unlock 1\n"                /* 11 */
	"3 0 exit\n"                    /* 12 */
	"2 40 lock 1\n"                 /* 13 */
	"2 0 unlock 1\n"                /* 14 */
	"2 0 exit\n"                    /* 15 */
	"1 0 join 2\n"                  /* 16 */
	"1 0 join 3\n"                  /* 17 */
	"1 0 exit\n";                   /* 18 */

static void test_pool(void **state)
{
	(void)state;
	static const struct {
		const char *spec;      /* NULL: no pool */
		enum sim_mode mode;
		uint32_t k;
		enum sim_model model;
		int rc;
		uint64_t makespan, cpu2, cpu3;
	} cases[] = {
		{NULL, SIM_BOUND, 2, SIM_DIRECT, SIM_OK, 80, 80, 10},
		{"2-3", SIM_BOUND, 2, SIM_DIRECT, SIM_OK, 50, 40, 50},
		{"2,3", SIM_BOUND, 2, SIM_AUTO, SIM_OK, 50, 40, 50},
		{"2-3", SIM_BOUND, 1, SIM_DIRECT, SIM_OK, 90, 40, 50},
		{"2-3", SIM_UNBOUND, 2, SIM_DIRECT, SIM_OK, 50, 40, 50},
		{"2-3", SIM_BOUND, 2, SIM_STRICT, SIM_EINVAL, 0, 0, 0},
		{"2-3", SIM_BOUND, 2, SIM_CLIENT_SERVER, SIM_EINVAL, 0, 0, 0},
	};
	struct tu_sim c;
	tu_sim_open(&c, pool_trace);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sim_pool *pool = NULL;
		char why[200];
		if (cases[i].spec)
			assert_int_equal(sim_pool_new(c.p, cases[i].spec, &pool, why, sizeof why), 0);
		struct sim_params par;
		sim_params_init(&par);
		par.cpus = cases[i].k;
		par.mode = cases[i].mode;
		par.model = cases[i].model;
		par.pool = pool;
		int32_t b[3] = {0, 0, cases[i].k > 1 ? 1 : 0}; /* dense: threads 1, 2, 3 */
		struct sim_result res;
		int rc = sim_run(c.p, c.w, &par, cases[i].mode == SIM_BOUND ? b : NULL, SIM_STATS,
		                 &res);
		if (rc != cases[i].rc)
			fail_msg("case %zu: status %d, expected %d", i, rc, cases[i].rc);
		if (rc == SIM_OK) {
			if (res.makespan.num != cases[i].makespan || res.makespan.den != 1)
				fail_msg("case %zu: makespan %llu/%llu, expected %llu", i,
				         (unsigned long long)res.makespan.num,
				         (unsigned long long)res.makespan.den,
				         (unsigned long long)cases[i].makespan);
			assert_int_equal(res.threads[1].cpu.num, cases[i].cpu2);
			assert_int_equal(res.threads[2].cpu.num, cases[i].cpu3);
			assert_int_equal(res.model, SIM_DIRECT);
		}
		sim_pool_free(pool);
	}
	/* the pool's facts, and the specs it refuses */
	struct sim_pool *pool = NULL;
	char why[200];
	assert_int_equal(sim_pool_new(c.p, "2-3", &pool, why, sizeof why), 0);
	assert_int_equal(sim_pool_workers(pool), 2);
	assert_int_equal(sim_pool_segments(pool), 5);
	assert_int_equal(sim_pool_mutex(pool), 0);
	sim_pool_free(pool);
	static const struct {
		const char *spec, *why;
	} bad[] = {
		{"2", "a pool needs two workers"},
		{"1-3", "thread 1 never locks"},
		{"2-4", "no thread 4"},
		{"nobody", "names 0 thread(s)"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pool = (struct sim_pool *)&why; /* must come back NULL */
		assert_int_equal(sim_pool_new(c.p, bad[i].spec, &pool, why, sizeof why), -1);
		assert_null(pool);
		if (!strstr(why, bad[i].why))
			fail_msg("pool %s: '%s' does not say '%s'", bad[i].spec, why, bad[i].why);
	}
	sim_pool_free(NULL);
	tu_sim_close(&c);
	/* Alike by the first two checks (first lock: mutex 1; at most two
	 * held at once each), but thread 2 holds mutex 2 at its second
	 * `lock 1`: a worker dealt that segment would unlock a mutex it never
	 * took.  (The differential test's seed 23506 did, and the run kept
	 * fewer held mutexes than the worker had taken.) */
	static const char held_across[] = "shadowbind-trace 1\n"
	                                  "1 0 create 2\n"
	                                  "1 0 create 3\n"
	                                  "2 5 lock 1\n"
	                                  "2 5 unlock 1\n"
	                                  "2 0 lock 2\n"
	                                  "2 5 lock 1\n"
	                                  "2 5 unlock 1\n"
	                                  "2 0 unlock 2\n"
	                                  "2 0 exit\n"
	                                  "3 5 lock 1\n"
	                                  "3 0 lock 3\n"
	                                  "3 0 unlock 3\n"
	                                  "3 5 unlock 1\n"
	                                  "3 0 exit\n"
	                                  "1 0 exit\n";
	tu_sim_open(&c, held_across);
	pool = (struct sim_pool *)&why;
	assert_int_equal(sim_pool_new(c.p, "2-3", &pool, why, sizeof why), -1);
	assert_null(pool);
	if (!strstr(why, "thread 2 holds a mutex at its lock of the queue's mutex (line 7)"))
		fail_msg("pool 2-3: '%s'", why);
	tu_sim_close(&c);
}

/*
 * The program's per-record facts (most mutexes held, semaphore posts,
 * work per thread, records that can pay a latency) wait, without a
 * condition variable, for the first run that needs them (simint.h,
 * sim_program.facts_ready): a ps run without latency or costs never
 * does; a run under a latency does, from several threads at once.
 * The trace (hand-derived): T1 on processor 0 posts at 10, T2 on
 * processor 1 waits at 20; with t = 50 it proceeds at 10 + 50 = 60,
 * exits at 65, T1's join pays t again: 115.  Without latency: T2
 * proceeds at 20, exits at 25, T1 joins then: 25.
 */
static const char lazy_facts_trace[] = "shadowbind-trace 1\n"
                                       "1 0 create 2\n"
                                       "1 10 post 1\n"
                                       "2 20 wait 1\n"
                                       "2 5 exit\n"
                                       "1 0 join 2\n"
                                       "1 0 exit\n";

static void test_lazy_facts(void **state)
{
	(void)state;
	struct trace *tr = NULL;
	struct trace_error err;
	assert_int_equal(trace_read_mem("lazy", lazy_facts_trace, sizeof lazy_facts_trace - 1,
	                                &tr, &err), 0);
	const int32_t b[2] = {0, 1};
	for (int rep = 0; rep < 20; rep++) {
		struct sim_program *p = sim_program_new(tr);
		assert_non_null(p);
		if (rep == 0) { /* ps, no latency: the facts stay unmade */
			struct sim_work *w = sim_work_new(p);
			assert_non_null(w);
			struct sim_params par;
			sim_params_init(&par);
			par.cpus = 2;
			sim_time ms;
			assert_int_equal(sim_makespan(p, w, &par, b, &ms), SIM_OK);
			assert_int_equal(ms.num, 25);
			assert_int_equal(atomic_load(&p->facts_ready), 0);
			sim_work_free(w);
		}
		int bad = 0;
#pragma omp parallel for num_threads(4) reduction(+ : bad)
		for (int i = 0; i < 8; i++) {
			struct sim_work *w = sim_work_new(p);
			if (!w) {
				bad++;
				continue;
			}
			struct sim_params par;
			sim_params_init(&par);
			par.cpus = 2;
			par.latency = 50;
			par.policy = i % 2 ? SIM_FIFO : SIM_PS;
			sim_time ms;
			if (sim_makespan(p, w, &par, b, &ms) != SIM_OK || ms.num != 115 || ms.den != 1)
				bad++;
			sim_work_free(w);
		}
		assert_int_equal(bad, 0);
		assert_int_equal(atomic_load(&p->facts_ready), 1);
		assert_int_equal(p->tok_total, 1);
		assert_int_equal(p->thwork[0], 10);
		sim_program_free(p);
	}
	trace_free(tr);
}

static void test_lazy_pairing(void **state)
{
	(void)state;
	struct tu_sim ref;
	tu_sim_open(&ref, prog_r);
	sim_time want[2];
	static const enum sim_model models[2] = {SIM_STRICT, SIM_CLIENT_SERVER};
	for (int m = 0; m < 2; m++) {
		struct sim_params par;
		sim_params_init(&par);
		par.model = models[m];
		struct sim_result res;
		int rc = sim_run(ref.p, ref.w, &par, NULL, 0, &res);
		assert_true(rc == SIM_OK || rc == SIM_DEADLOCK);
		want[m] = res.makespan;
	}
	for (int rep = 0; rep < 20; rep++) {
		struct sim_program *p = sim_program_new(ref.tr);
		assert_non_null(p);
		if (rep == 0) { /* Direct runs leave it unbuilt */
			struct sim_work *w = sim_work_new(p);
			struct sim_params par;
			sim_params_init(&par);
			par.model = SIM_DIRECT;
			struct sim_result res;
			sim_run(p, w, &par, NULL, 0, &res);
			assert_int_equal(atomic_load(&p->px_ready), 0);
			assert_null(p->px.rp);
			sim_work_free(w);
		}
		int bad = 0;
#pragma omp parallel for num_threads(4) reduction(+ : bad)
		for (int i = 0; i < 8; i++) {
			struct sim_work *w = sim_work_new(p);
			struct sim_params par;
			sim_params_init(&par);
			par.model = models[i % 2];
			struct sim_result res;
			if (!w) {
				bad++;
				continue;
			}
			sim_run(p, w, &par, NULL, 0, &res);
			if (sim_time_cmp(res.makespan, want[i % 2]) != 0)
				bad++;
			sim_work_free(w);
		}
		assert_int_equal(bad, 0);
		sim_program_free(p);
	}
	tu_sim_close(&ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_cases),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_deadlock_report),
		cmocka_unit_test(test_random_traces),
		cmocka_unit_test(test_one_processor),
		cmocka_unit_test(test_direct_equals_strict),
		cmocka_unit_test(test_determinism_and_params),
		cmocka_unit_test(test_cli_model),
		cmocka_unit_test(test_lazy_pairing),
		cmocka_unit_test(test_lazy_facts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
