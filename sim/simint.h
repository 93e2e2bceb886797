/*
 * simint.h - simulator internals, shared by the files of sim/ (as
 * SQLite's btreeInt.h): the engine's state (threads, synchronization
 * objects, scheduling groups, the workspace), the scheduling-policy class
 * (struct sim_class, as Linux's sched_class), reduced fractions, and the
 * recorded pairing of releases and acquisitions that the strict-sequence
 * and client-server models follow.
 *
 * Where things are (one concept per file):
 *   program.c   sim_program (per-trace facts) and sim_work (allocation)
 *   heap.h      the event heap (indexed binary heap, 128-bit keys) and
 *               the tournament tree (ps groups, fifo/rr slots)
 *   thread.h    threads on processors: ready, leave, proceed, block
 *   slot.h      processors that run one thread at a time (fifo, rr)
 *   fifo.c      the fifo policy       } each: its class and its event
 *   rr.c        the rr policy         } loops, instantiated from
 *   ps.c        the ps policy (cycles)} loop.h with a constant class
 *   sync.h      synchronization objects of the Direct model
 *   direct.h    the Direct model's step
 *   pairing.h   the strict-sequence and client-server models' step
 *   models.c    their index of the recorded pairing (sim_pairs_build)
 *   loop.h      the event loop
 *   run.c       setup, sim_run, the model scheme, cutoff
 *   report.c    results: statistics, deadlock reports
 *   schedule.c  the schedule (intervals, synchronizations)
 *   time.c      sim_time
 *
 * The hot path is specialised per policy: heap.h, thread.h, slot.h,
 * sync.h, direct.h, pairing.h and loop.h hold static functions that each
 * policy's file includes once, after defining SIM_CLASS, a constant
 * pointer to its own class; every call through SIM_CLASS is then a
 * direct call the compiler inlines, and each policy gets its own copy of
 * the Direct and pairing event loops (no test of the policy or the model
 * per event).  run.c picks the loop through the classes' table.
 *
 * The engine computes in integer ticks; sim_time (a reduced fraction)
 * carries its results, and the few values that are averages (the unbound
 * ps pool's busy time per processor) are made exact with st_make.
 */
#ifndef SHADOWBIND_SIMINT_H
#define SHADOWBIND_SIMINT_H

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

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


/* ------------------------------------------------------------------ */
/* The engine's state */

/* Internal time: every time is an integer (ps runs in cycles), below 2^63
 * (checked in setup), so plain 64-bit arithmetic is exact.  Units: trace unit. */
typedef uint64_t stime;

/* Per-thread statistics while running. */
struct istat {
	stime start, end, cpu, blocked;
};

#define NIL UINT32_MAX
#define NOPROC INT32_MIN /* a release with no processor: no latency */

enum { ST_NEW = 0, ST_READY, ST_RUN, ST_BLOCK, ST_TIMER, ST_DONE };

/* What a blocked thread waits for. */
enum {
	BK_NONE = 0,
	BK_LOCK,        /* lock / trylock ok on mutex                       */
	BK_WAIT,        /* semaphore                                       */
	BK_JOIN,
	BK_BARRIER,
	BK_CWAIT,       /* registered on a condition variable               */
	BK_CWAIT_REACQ, /* woken, re-acquiring its mutex                    */
	BK_CWAIT_WAKE,  /* woken, its wake-up still on the way (a timer):
	                   asks for its mutex when it arrives               */
	BK_LOCK_WAKE,   /* lat_kinds: woken by an unlock, its wake-up on the
	                   way (a timer), the mutex free meanwhile: asks
	                   for it again when it arrives (wobj)              */
	BK_SIGWAIT,     /* signaller waiting for enough waiters             */
	BK_SIG_REACQ,   /* signaller re-acquiring its mutexes               */
	BK_RDLOCK,
	BK_WRLOCK,
	BK_PAIR,        /* strict, client-server: a wait (wobj = wait id)   */
	BK_IDLE         /* client-server: between lists, none can start     */
};

/* A thread's state.  The fields every step touches come first, in one
 * 64-byte cache line. */
struct sth {
	uint32_t cur, end;   /* current record, one past the last        */
	uint8_t state, bk;
	uint8_t deferred;    /* ps: ready, waiting for a cycle boundary  */
	uint8_t op;          /* the current record's op and operand a, as */
	uint32_t grp;        /* scheduling group                         */
	int32_t lproc;       /* processor for the latency rule           */
	int32_t slot;        /* fifo/rr: slot running on, -1             */
	uint32_t qnext;      /* link in one FIFO queue                   */
	uint32_t hbase;      /* held mutexes: held[hbase .. hbase+nheld) */
	uint32_t nheld;
	uint32_t a;          /* load_work copied them: the step's dispatch
	                        waits for this line only, not for the
	                        record behind it                         */
	stime rem;           /* remaining work of the current record     */
	stime seg;           /* fifo/rr: start of the running segment;
	                        ps: finish tag                           */
	stime nb;            /* not before (latency)                      */
	/* less often */
	uint32_t reacq;
	uint32_t wobj;       /* object blocked on (dense)                */
	uint32_t jhead, jtail; /* threads joining this one               */
	int32_t exit_proc;
	uint8_t xremote;     /* created on another processor than its
	                        creator's: its exit costs exit_cost_remote */
	stime pend;          /* CPU due before its next record's work: a
	                        remote create's extra (create_thread), a
	                        local wake-up's (nb_wake_local);
	                        units: trace unit                         */
	stime bstart;        /* blocked since (stats)                     */
	stime wsince;        /* waiting since: it left its processor, or
	                        (woken cwait, blocked signaller) asked for
	                        its mutex again (lat_kinds' sleep)        */
	stime exit_time;
	stime run_from;      /* schedule: current interval start          */
};

struct smutex {
	int32_t owner;
	uint32_t qh, qt;
	int32_t rel_proc;
	stime rel;
};

struct stok {
	stime t;
	int32_t proc;
};

/* A semaphore: 16 bytes, four to a cache line (a task graph has one per
 * edge, each touched by one post and one wait, far apart in time). */
struct ssem {
	uint32_t qh, qt;     /* blocked waiters                            */
	uint32_t init_left;  /* initial tokens left (they carry no latency) */
	uint32_t rcount;     /* posted tokens left                         */
};

/* The posted tokens' times and processors, oldest first: a ring of rcap
 * (the semaphore's posts) at tok[rbase..], from rhead.  Only read under
 * a latency (w->lat_on): without one a token is just a count, and
 * neither the rings nor w->tok are touched. */
struct sring {
	uint32_t rbase, rcap, rhead;
};

struct scond {
	uint32_t wh, wt, nw; /* registered waiters       */
	uint32_t sh, stl;    /* blocked signallers       */
};

struct sbar {
	uint32_t count;
	uint32_t qh, qt;
};

struct srw {
	int32_t writer;
	uint32_t readers;
	uint32_t qh, qt;
	int32_t rel_proc;    /* last release of any kind (for writers)     */
	int32_t wrel_proc;   /* last writer's release (for readers)         */
	stime rel, wrel;
};

struct sgrp {
	uint32_t nslots, slot0;
	uint32_t rqh, rqt;   /* fifo/rr ready queue                        */
	uint32_t m;          /* ps: ready threads                          */
	uint32_t ndef;       /* ps: ready threads waiting for the end of a
	                        cycle to join (sth.deferred)               */
	uint32_t hbase, hn;  /* ps: tree of ready threads by (tag, id) at
	                        rt[hbase], size 2 * rcap; hn: how many     */
	uint32_t rcap;       /* ps: leaves of that tree (a power of two)     */
	uint32_t unext;      /* ps: the thread of the completion at tnext
	                        (its entry in the groups' tree names it)   */
	stime V, tlast;   /* ps: virtual time at tlast                  */
	stime tnext;      /* ps: the next completion (end of a cycle)   */
	stime vnext;      /* ps, m <= slots or one slot: V at tnext       */
	stime tshort;     /* ps pool, m > c: start of the last cycle
	                     before tnext, which may be short; else
	                     UINT64_MAX                                  */
	uint64_t slast;   /* ps pool: units the threads get in that cycle */
	uint8_t rr_skip;  /* rr: some slot of the group may have skipped  */
	stime busy;       /* ps: units of work done; units: trace unit  */
	stime lb;         /* bound mode: the work of its threads plus the
	                     time it stood idle (no thread ready or
	                     running) before idle0: the makespan is at
	                     least that (grp_busy); units: trace unit     */
	stime idle0;      /* idle since (while idle); units: trace unit  */
};

struct sslot {
	int32_t run, last;
	uint8_t skip;     /* rr: the running thread was alone at an expiry
	                     and its next expiry was moved past boundaries
	                     (rr.c)                                       */
	stime qend;       /* rr quantum end                            */
	stime busy;
};

struct sim_program {
	const struct trace *tr;
	uint32_t n;
	uint32_t *maxheld;   /* [n] most mutexes held at once            */
	uint64_t *thwork;    /* [n] work of each thread; units: trace unit */
	uint32_t held_total;
	uint8_t has_signal;  /* some signal or broadcast record: only a
	                        blocked signaller reads the mutexes a thread
	                        holds (sth.hbase), so without one nobody
	                        keeps them (sim_work.held_on)            */
	uint32_t *sem_cap;   /* [nsem] posts of each semaphore            */
	uint32_t tok_total;
	uint64_t nsync;      /* records that can pay a latency or cost    */
	uint64_t work;       /* total work of the trace; units: trace unit */
	/* The recorded pairing (strict, client-server): built on the first
	 * run of one of those models (sim_program_pairs), since the Direct
	 * model never needs it (about 20 bytes per record).  A cache that
	 * keeps the program logically immutable: built once, under px_lock,
	 * then only read; px_ready says it is there. */
	struct sim_pairs px;
	atomic_int px_ready;
	pthread_mutex_t px_lock;
	/* maxheld, thwork, held_total, sem_cap, tok_total, nsync, work: a
	 * pass over the records, made by sim_program_new when the trace has
	 * a condition variable (has_signal), else by the first run or pool
	 * that needs them (sim_program_facts, under px_lock); until then
	 * zero, and has_signal is 0 */
	atomic_int facts_ready;
};

/* A work queue (sim.h, sim_pool_new; pool.c). */
struct sim_pool {
	const struct sim_program *p;
	uint32_t m;          /* the queue's mutex (dense)                     */
	uint32_t nworkers;
	uint32_t nseg;
	uint32_t *seg;       /* [nseg] the workers' `lock M` records in file
	                        order: a worker that acquires M goes on after
	                        the next of them                              */
	uint8_t *member;     /* [n] 1 for a worker                           */
};

/* An event of a strict or client-server run. */
struct pev {
	stime t;             /* when it happened                             */
	int32_t p;           /* on which processor                           */
	uint32_t left;       /* contributions still missing                  */
};

/* Per-thread state of the strict and client-server models. */
struct pth {
	uint32_t npend;      /* client-server: its lists not started yet     */
	uint32_t lhn;        /* client-server: lists that may start (heap)   */
	uint32_t sqh, sqt;   /* client-server: blocked signallers that need
	                        it, as the waits of its cwaits (sq_next)     */
	uint8_t idle;        /* client-server: between lists, none can start */
	uint8_t exit_wait;   /* client-server: at its exit, lists pending    */
};

/* An event: one 16-byte key, time << 64 | class << 63 | thread id << 32
 * | entry id, ordered by one 128-bit comparison (branch-free).  The order
 * is (time, class, thread id): no two entries share those three, so the
 * entry id in the low bits never decides.  Thread ids < 2^31 (setup). */
struct hent {
	st_u128 key;
};

/* No event (larger than every key: times are below 2^63). */
#define GT_NONE (~(st_u128)0)
enum { GT_GROUPS = 1, GT_SLOTS = 2 }; /* sim_class.gtree */

static inline uint32_t hent_id(struct hent e)
{
	return (uint32_t)e.key;
}

static inline st_u128 hent_key(uint64_t t, unsigned cls, uint32_t tid, uint32_t id)
{
	return (st_u128)t << 64 | (uint64_t)cls << 63 | (uint64_t)tid << 32 | id;
}

struct sim_work {
	const struct sim_program *p;
	uint32_t kmax;       /* capacity of group/slot arrays            */
	struct sth *th;
	uint32_t *held;      /* [held_total] mutexes each thread holds, in
	                        the order it took them (sth.hbase)          */
	uint32_t *hlink;     /* [held_total] a blocked signaller's links in
	                        mutex queues, per held slot (sync.h)        */
	uint32_t *hthr;      /* [held_total] the thread of each held slot   */
	struct smutex *mx;
	struct ssem *sem;
	struct sring *ring;  /* [nsem] (lat_on only)                      */
	struct stok *tok;    /* [tok_cap] (lat_on only; allocated by the
	                        first run under a latency)               */
	uint32_t tok_cap;
	struct scond *cv;
	struct sbar *bar;
	struct srw *rw;
	struct sgrp *g;
	struct sslot *sl;
	st_u128 *rt;         /* [4 n] ps: the groups' trees of ready threads
	                        (ps.c), each 2 * rcap <= 4 * its threads  */
	uint32_t *rleaf;     /* [n] ps: each thread's leaf in its tree      */
	/* global event heap */
	struct hent *heap;
	int32_t *hpos;
	uint32_t hn, ids;
	/* ps: each group's next completion, fifo/rr: each slot's end of work
	 * (heap key, GT_NONE: none) in a tournament tree: leaves at gtn +
	 * g or s, node 1 the earliest (heap.h), each key in two halves:
	 * gth[i] << 64 | gtl[i] (gt_key) */
	uint64_t *gth, *gtl; /* [2 * gtcap]                                */
	uint32_t gtn, gtcap;
	/* results */
	struct istat *ist;
	struct sim_thread_stats *stats;
	sim_time *busy;
	struct sim_blocked *blocked;
	struct sim_interval *iv;
	size_t niv, iv_cap;
	struct sim_sync *sy;
	size_t nsy, sy_cap;
	/* SIM_PROFILE: prof[i] the time with exactly i threads running so
	 * far (units: trace unit), up to prof_last, when prof_run were
	 * running; prof_bad: a start or end came before prof_last */
	stime *prof;
	sim_time *prof_out;
	stime prof_last;
	uint32_t prof_run;
	int prof_bad;
	/* per run */
	const struct sim_params *par;
	struct sim_params upar; /* par with its unbound remote costs
	                           (unbound_costs), which par points to */
	const struct sim_class *cls; /* the policy's class                   */
	const struct trace *tr;
	uint32_t ngrp, nslot;
	stime t_lat;         /* par->latency                              */
	stime t_latmax;      /* the largest latency any pair can have     */
	const uint64_t *lmat; /* par->lat_matrix, or NULL                 */
	uint32_t lk;         /* its order (par->cpus)                     */
	uint8_t lat_on;      /* latency or some obj_latency nonzero      */
	uint8_t lkinds;      /* par->lat_kinds (wake, wake_busy, transfer) */
	uint8_t op_remote;   /* par->machine, and a remote create or exit
	                        differs from a local one: create and exit
	                        look at processors                        */
	uint8_t pend_on;     /* some CPU may fall due before a record's
	                        work (sth.pend): op_remote, or wake_local  */
	uint8_t spread;      /* bound: a create across processors has
	                        happened (par->spread_create applies)     */
	stime spread_cost;   /* par->spread_create in bound mode, else 0  */
	uint32_t ncreated;   /* creates performed so far (under op_remote) */
	uint32_t local_acc;  /* unbound creates: the share of local children
	                        accumulated (par->unbound_local_ppm per
	                        create, less 10^6 per local one); units:
	                        parts per million                        */
	uint64_t opcost[TRACE_NOPS]; /* the local cost each operation adds
	                        to its record's work: create, exit       */
	uint8_t held_on;     /* keep the mutexes each thread holds
	                        (sim_program.has_signal)                 */
	unsigned flags;
	int nomem;
	uint8_t halt;        /* stop the event loop: nomem or cut          */
	int32_t cur_releaser; /* schedule: who performs the current step */
	uint64_t steps;
	uint64_t events;     /* heap events popped                         */
	st_u128 rr_last;     /* rr: key of the last quantum expiry handled */
	stime makespan;
	stime cutoff;        /* stop when an event lies later (SIM_CUTOFF) */
	stime lbcut;         /* stop when a group's lb passes it (SIM_CUTOFF;
	                        sim_makespan_within), else UINT64_MAX       */
	int cut;             /* the run stopped at the cutoff              */
	uint32_t live;
	const struct sim_pool *pool; /* the run's work queue, or NULL       */
	uint32_t pool_next;  /* its next segment                          */
	/* strict and client-server (allocated on their first run) */
	int pm_ok;
	int cs;              /* this run is client-server                    */
	struct pth *pt;      /* [n]                                          */
	struct pev *ev;      /* [nev]                                        */
	uint32_t *w_left;    /* [nwait] events still missing                 */
	uint32_t *lheap;     /* [nwait] client-server: each thread's heap of
	                        lists that may start, at px.th_wbase[thread] */
	uint32_t *sq_next;   /* [nwait] client-server: signaller queues       */
};

/* ------------------------------------------------------------------ */
/* The scheduling-policy class (as Linux's sched_class): what a policy
 * does with the threads of a scheduling group.  One instance per policy
 * (ps.c, fifo.c, rr.c); the event loops call the hot members through a
 * constant pointer, so they compile to direct, inlined calls. */
struct sim_class {
	const char *name;       /* as sim_policy_parse reads it: "fifo"     */
	uint8_t quantum;        /* 1: it takes a quantum, "NAME:Q" (rr)     */
	/* u becomes ready at T and joins its group (thread.h did the common
	 * bookkeeping: statistics, bk) */
	void (*enqueue)(struct sim_work *w, uint32_t u, stime T);
	/* u, running, stops using its processor at T (blocks, sleeps,
	 * exits) */
	void (*dequeue)(struct sim_work *w, uint32_t u, stime T);
	/* u, running, goes on at T with the work of its next record (in
	 * th[u].rem) */
	void (*go_on)(struct sim_work *w, uint32_t u, stime T);
	/* fifo, rr: the work of running thread u ended at T (its event
	 * fired) */
	void (*work_done)(struct sim_work *w, uint32_t u, stime T);
	/* event `id` >= n of the heap fired at T (ps: a group's completion,
	 * rr: a quantum expiry), `kt` the thread its key names: the thread
	 * that now performs its step, or NIL */
	uint32_t (*tick)(struct sim_work *w, uint32_t id, stime T, uint32_t kt);
	/* the tournament tree w->gth/gtl holds, instead of the heap, each group's
	 * next completion (ps: GT_GROUPS) or each slot's running thread's
	 * end of work (fifo, rr: GT_SLOTS) */
	uint8_t gtree;
	/* cold: busy time of processor c after a run (SIM_STATS) */
	sim_time (*busy)(const struct sim_work *w, uint32_t c, int *ovf);
	/* cold: run the event loop of model w->model (Direct or pairing) */
	void (*run)(struct sim_work *w);
};

extern const struct sim_class sim_class_ps, sim_class_fifo, sim_class_rr;
/* The classes by enum sim_policy (ORDER POLICY, sim.h). */
extern const struct sim_class *const sim_classes[SIM_NPOLICIES];

/* ------------------------------------------------------------------ */
/* Small helpers of every file */

static inline sim_time ST(stime t)
{
	sim_time r = {t, 1};
	return r;
}

/* FIFO queues through sth.qnext */
static inline void q_push(struct sim_work *w, uint32_t *h, uint32_t *t, uint32_t u)
{
	w->th[u].qnext = NIL;
	if (*h == NIL)
		*h = u;
	else
		w->th[*t].qnext = u;
	*t = u;
}

static inline uint32_t q_pop(struct sim_work *w, uint32_t *h, uint32_t *t)
{
	uint32_t u = *h;
	if (u != NIL) {
		*h = w->th[u].qnext;
		if (*h == NIL)
			*t = NIL;
	}
	return u;
}

static inline const struct trace_rec *cur_rec(const struct sim_work *w, uint32_t u)
{
	return &w->tr->rec[w->th[u].cur];
}

/* Latency from a release on processor x to thread u (some latency is
 * on: the uniform one or an override). */
static inline int lat_applies(const struct sim_work *w, int32_t x, uint32_t u)
{
	return w->lat_on && x != NOPROC && x != w->th[u].lproc;
}

/* The latency from processor x to processor y (x != y): the machine's
 * matrix where both are processors 0..k-1 (sim_params.lat_matrix), else
 * the uniform one; units: trace unit. */
static inline stime lat_pair(const struct sim_work *w, int32_t x, int32_t y)
{
	if (w->lmat && (uint32_t)x < w->lk && (uint32_t)y < w->lk)
		return w->lmat[(uint32_t)x * w->lk + (uint32_t)y];
	return w->t_lat;
}

/* u may proceed no earlier than r + t after a release at r on x of
 * object obj of kind `kind` that it asked for after r (a free mutex, a
 * token already there: under the machine's kinds of hand-off the
 * transfer, sim_params.lat_kinds). */
static inline void nb_after(struct sim_work *w, uint32_t u, stime r, int32_t x,
                            unsigned kind, uint32_t obj)
{
	if (lat_applies(w, x, u)) {
		const uint64_t *o = w->par->obj_latency[kind];
		stime t = r + (o ? o[obj] : w->lkinds ? w->par->transfer
		                                     : lat_pair(w, x, w->th[u].lproc));
		if (t > w->th[u].nb)
			w->th[u].nb = t;
	}
}

/* Under the machine's kinds of hand-off: the processor of u, blocked,
 * is busy: as many threads running or ready on it (its group: unbound,
 * the pool) as it has processors; under ps those that share it and
 * those waiting for the end of a cycle to join. */
static inline int wake_busy_at(const struct sim_work *w, uint32_t u)
{
	const struct sgrp *g = &w->g[w->th[u].grp];
	if (w->cls->gtree == GT_GROUPS) /* ps */
		return g->m + g->ndef >= g->nslots;
	if (g->rqh != NIL)
		return 1;
	for (uint32_t i = 0; i < g->nslots; i++)
		if (w->sl[g->slot0 + i].run < 0)
			return 0;
	return 1;
}

/* The latency a release at T on x pays to wake blocked thread u on its
 * processor y (x != y), u waiting since `since`: the pair's, or under
 * the kinds of hand-off the transfer when it waited less than `sleep`,
 * else wake_busy when y is busy; units: trace unit. */
static inline stime lat_wake(const struct sim_work *w, uint32_t u, int32_t x, int32_t y,
                             stime T, stime since)
{
	if (w->lkinds) {
		if (T - since < w->par->sleep)
			return w->par->transfer;
		if (wake_busy_at(w, u))
			return w->par->wake_busy;
	}
	return lat_pair(w, x, y);
}

/* Blocked u is woken by a release on x, its own processor: it
 * spends wake_local of CPU time on it before its next record's work
 * (sim_params.wake_local; 0: nothing). */
static inline void nb_wake_local(struct sim_work *w, uint32_t u, int32_t x)
{
	if (w->par->wake_local && x != NOPROC && x == w->th[u].lproc) {
		w->th[u].pend += w->par->wake_local;
		if (w->flags & SIM_STATS)
			w->ist[u].cpu += w->par->wake_local;
	}
}

/* Blocked u, waiting since `since`, is woken by a release at T on x of
 * object obj of kind `kind`: it may proceed no earlier than T + the
 * wake-up's latency (from another processor) or wake_local (from its
 * own). */
static inline void nb_wake_since(struct sim_work *w, uint32_t u, stime T, int32_t x,
                                 unsigned kind, uint32_t obj, stime since)
{
	if (lat_applies(w, x, u)) {
		const uint64_t *o = w->par->obj_latency[kind];
		stime t = T + (o ? o[obj] : lat_wake(w, u, x, w->th[u].lproc, T, since));
		if (t > w->th[u].nb)
			w->th[u].nb = t;
	} else {
		nb_wake_local(w, u, x);
	}
}

static inline void nb_wake(struct sim_work *w, uint32_t u, stime T, int32_t x,
                           unsigned kind, uint32_t obj)
{
	nb_wake_since(w, u, T, x, kind, obj, w->th[u].wsince);
}

/* The same without the override (strict, client-server): woken (1) by
 * the release at r, or asking after it (0). */
static inline void nb_after_u(struct sim_work *w, uint32_t u, stime r, int32_t x, int woken)
{
	if (lat_applies(w, x, u)) {
		stime t = r + (!w->lkinds ? lat_pair(w, x, w->th[u].lproc)
		               : woken ? lat_wake(w, u, x, w->th[u].lproc, r, w->th[u].wsince)
		                       : w->par->transfer);
		if (t > w->th[u].nb)
			w->th[u].nb = t;
	}
}

/* A release at rel of object obj of kind `kind` may still be on its way
 * at T (with the largest latency it can have: nb_after decides). */
static inline int before_latency_end(const struct sim_work *w, stime T, stime rel,
                                     unsigned kind, uint32_t obj)
{
	const uint64_t *o = w->par->obj_latency[kind];
	return w->lat_on && T < rel + (o ? o[obj] : w->t_latmax);
}

/* The creation of thread a by u, at its create step (called once per
 * create): across processors?  Bound mode: their groups differ.
 * Unbound, k >= 2: all but the share par->unbound_local_ppm the OS starts
 * on the creator's processor, by an accumulator (docs/sim.md, "Machine
 * files": a rule by the pool's idle processors was measured worse). */
static inline int create_is_remote(struct sim_work *w, uint32_t u, uint32_t a)
{
	if (w->par->mode == SIM_UNBOUND) {
		if (w->par->cpus < 2)
			return 0;
		w->local_acc += w->par->unbound_local_ppm;
		if (w->local_acc >= 1000000) {
			w->local_acc -= 1000000;
			return 0;
		}
		return 1;
	}
	return w->th[u].grp != w->th[a].grp;
}

/* The cost record r of u adds to its work (create, exit; sim_params):
 * units: trace unit.  A remote create's extra comes after the create
 * (sth.pend). */
static inline uint64_t op_cost(const struct sim_work *w, uint32_t u,
                               const struct trace_rec *r)
{
	if (__builtin_expect(w->op_remote, 0) && r->op == TRACE_EXIT && w->th[u].xremote)
		return w->par->exit_cost_remote;
	return w->opcost[r->op];
}

static inline int is_signal(const struct trace_rec *r)
{
	return r->op == TRACE_SIGNAL || r->op == TRACE_BROADCAST;
}

/* Group g (bound mode: one processor) falls idle at T: none of its
 * threads is ready or running. */
static inline void grp_idle(struct sgrp *g, stime T)
{
	g->idle0 = T;
}

/* Group g, idle since idle0, gets a thread at T.  No processor executes
 * more than one unit of work per unit of time, so a run that finishes
 * has a makespan of at least the work of g's threads plus the time g
 * stood idle before (costs only add busy time): when that passes
 * w->lbcut, the run stops (SIM_CUTOFF, sim_makespan_within). */
static inline void grp_busy(struct sim_work *w, struct sgrp *g, stime T)
{
	g->lb += T - g->idle0;
	if (__builtin_expect(g->lb > w->lbcut, 0)) {
		w->cut = 1;
		w->halt = 1;
	}
}

/* Load the work of u's current record into rem. */
static inline void load_work(struct sim_work *w, uint32_t u)
{
	const struct trace_rec *r = cur_rec(w, u);
	/* u performs r no earlier than its work ends, most often after
	 * other threads' steps: fetch what it will need meanwhile (its
	 * stream's next cache line; r's mutex or semaphore, the address
	 * chosen without a branch and as an integer: for other operations
	 * it is never dereferenced) */
	__builtin_prefetch(r + 3);
	unsigned op = r->op;
	uintptr_t pf = (uintptr_t)(r + 3);
	uintptr_t mx = (uintptr_t)w->mx + (uintptr_t)r->a * sizeof *w->mx;
	uintptr_t sm = (uintptr_t)w->sem + (uintptr_t)r->a * sizeof *w->sem;
	/* ORDER OP: lock, unlock, trylock and wait, post, trywait contiguous */
	_Static_assert(TRACE_TRYLOCK - TRACE_LOCK == 2 && TRACE_UNLOCK - TRACE_LOCK == 1 &&
	               TRACE_TRYWAIT - TRACE_WAIT == 2 && TRACE_POST - TRACE_WAIT == 1,
	               "ORDER OP: load_work's ranges of operations");
	pf = op - TRACE_LOCK <= TRACE_TRYLOCK - TRACE_LOCK ? mx : pf;
	pf = op - TRACE_WAIT <= TRACE_TRYWAIT - TRACE_WAIT ? sm : pf;
	__builtin_prefetch((const void *)pf);
	w->th[u].rem = r->work + op_cost(w, u, r);
	if (__builtin_expect(w->pend_on, 0)) {
		w->th[u].rem += w->th[u].pend;
		w->th[u].pend = 0;
	}
	w->th[u].op = r->op;
	w->th[u].a = r->a;
}

/* ------------------------------------------------------------------ */
/* Functions of one file used by others */

/* program.c: build p's recorded pairing if not yet done (safe when
 * several threads run p at once); 0, or -1 on allocation failure (p
 * unaltered: a later call tries again) */
int sim_program_pairs(const struct sim_program *p);

/* program.c: size the workspace for k processors, for the pairing
 * models, and for token times (0, or -1 on allocation failure: the
 * workspace is unaltered) */
int sim_work_reserve_k(struct sim_work *w, uint32_t k);
int sim_work_reserve_pm(struct sim_work *w);
int sim_work_reserve_tok(struct sim_work *w);

/* program.c: make sure p's per-record facts are there (sim_program.
 * facts_ready; safe when several threads run p at once) */
void sim_program_facts(const struct sim_program *p);

/* schedule.c (SIM_SCHEDULE; on allocation failure they set w->nomem) */
void sim_iv_add(struct sim_work *w, uint32_t u, int32_t proc, stime from, stime to);
/* SIM_PROFILE: d (+1, -1) threads start or stop running at T */
void sim_prof_step(struct sim_work *w, stime T, int d);
/* A thread starts running at T (its interval's start, run_from). */
static inline void sim_iv_open(struct sim_work *w, stime T)
{
	if (w->flags & SIM_PROFILE)
		sim_prof_step(w, T, 1);
}
void sim_sy_add(struct sim_work *w, uint32_t u, uint32_t rec, stime T, int32_t releaser);
int32_t sim_iv_proc(const struct sim_work *w, uint32_t u);

/* report.c: the threads left blocked by a deadlock, into res */
void sim_collect_blocked(struct sim_work *w, struct sim_result *res);
void sim_collect_blocked_pm(struct sim_work *w, struct sim_result *res);

#endif
