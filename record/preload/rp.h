/*
 * rp.h - internals of libshadowbind-record.so, the LD_PRELOAD library of
 * shadowbind-record (recording) and shadowbind-run (pinning).  See
 * docs/record.md.
 *
 * This library lives inside someone else's process, so unlike the rest of
 * shadowbind it has global state (one recorder per process), takes its
 * functions from the next object (dlsym RTLD_NEXT) and never calls the
 * functions it interposes.  It is compiled with -fPIC into its own shared
 * object, never into build/librecord.a (see record/module.mk).
 *
 * Recording.  A release (unlock, post, signal, ...) is recorded just
 * before the real operation, an acquisition after the real operation
 * returned.  No counter is shared: each record gets a Lamport stamp, one
 * more than the largest of its thread's last stamp, its mutex's (a
 * mutex's lock, trylock, unlock, cwait) and, for the records taken under
 * the recorder lock G, G's own stamp (so that they stay in G's order);
 * a barrier's record also passes every live thread's stamp (each
 * member's previous record precedes its group).  Sorting the records by
 * (stamp, thread) is then an order in which the operations took effect
 * (docs/trace-format.md, Order; docs/record.md, "Lamport stamps").  Every
 * event but the lock and unlock of a mutex whose id is known also takes G
 * for its bookkeeping; those two need none (the mutex itself guards its
 * owner, depth and stamp: rp_emit_fast).  Records go to their thread's
 * own buffer, a region of the spool file mapped shared (record.h), so
 * that what was written survives the process however it ends; a full
 * buffer is copied to the spool as a block and reused.  At exit (or
 * SIGINT/SIGTERM) the thread names follow, and shadowbind-record merges
 * the threads' records by stamp into the trace.  Memory is one buffer
 * per thread whatever the run's length (docs/record.md, "Buffers").
 */
#ifndef SHADOWBIND_RP_H
#define SHADOWBIND_RP_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "record/record.h"
#include "record/spoolbuf.h"
#include "trace/trace.h"
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* Everything this header declares is internal to the library: hidden, so
 * that the wrappers call it directly rather than through the PLT (calls
 * that would otherwise fall inside the program's work, docs/record.md
 * "The recorder's cost").  The interposed functions keep their default
 * visibility from the system headers that declare them. */
#pragma GCC visibility push(hidden)

enum rp_mode { RP_OFF = 0, RP_RECORD, RP_RUN };

#define RP_BUFFER 8191 /* slots in a thread's buffer by default (a record
                          takes one, rarely two): with its header 8192
                          slots of 16 bytes, 128 KiB (SHADOWBIND_BUFFER:
                          rounded up to whole pages) */
#define RP_CAL_BUFFER 256 /* slots in the calibration's scratch buffer
                          (one page; its records are never kept and a
                          full one is emptied in place): the whole
                          8,192-slot buffer was 32 page faults of 20-30
                          us each on the project's VM at every
                          recording's start and end (rec37) */
/* Spins waiting for another thread (the spool's block lock, a record
 * still being written at the end) before each sched_yield (the other
 * thread may be preempted on this CPU). */
#define RP_SPIN_YIELD 64

struct rp_thread {
	uint32_t id;             /* trace thread id: 1 = initial thread      */
	char name[64];           /* start routine's symbol, or ""            */
	void *(*fn)(void *);     /* its start routine (NULL: thread 1)       */
	pthread_t pt;
	clockid_t clock;         /* its CPU-time clock (for the exit at
	                            process exit)                            */
	int started, exited;
	int busy;                /* inside a wrapper: nested calls (signal
	                            handlers) pass through unrecorded         */
	int app;                 /* 1 while rp_emit_fast appends without G:
	                            rp_write_trace waits for 0              */
	uint64_t stamp;          /* its last record's stamp (read by other
	                            threads: relaxed atomics)               */
	struct rec_spool_buf sb; /* its buffer (a block of the spool mapped
	                            shared) and its latest record, which
	                            rp_emit returns (record/spoolbuf.h)      */
	uint64_t last;           /* CPU time when its last wrapper was
	                            entered; ns                              */
	uint64_t carry;          /* work not yet in a record (a wrapper that
	                            recorded nothing); ns                    */
	/* the clock (rp_clock.c): the word that tells a context switch,
	 * the last exact reading and the TSC then */
	const void *pg;          /* task-clock page (mmap'd) or NULL        */
	const volatile uint32_t *sw; /* the switch word: the page's sequence
	                            word, or the low half of the thread's
	                            rseq_cs; NULL: the syscall clock        */
	uint32_t seq;            /* its value at the base                   */
	int base_ok;
	uint64_t base_ns;        /* thread CPU time at the base; ns         */
	uint64_t base_tsc;       /* TSC at the base; ticks                  */
	uint64_t chk_n, chk_err; /* checks of the extrapolation; err in ns  */
	uint64_t slow_n;         /* reads that needed the system call       */
	/* a wait's end after a switch (rp_now_wait): no exact read, the
	 * base is the wait's start plus the estimate (base_est set) */
	int base_est;
	uint32_t est_n;          /* waits estimated since the last exact    */
	uint64_t est_sum;        /* the CPU time they were given; ns        */
	uint64_t est_ns;         /* a wait's CPU time: the mean of the last
	                            exact interval's waits; ns              */
	int est_have;            /* est_ns measured                         */
	/* the recorder's own cost */
	uint64_t mark;           /* where the recorder's span began; ns     */
	uint8_t mark_op;         /* its kind                                */
	int64_t sub;             /* calibrated cost subtracted; ns          */
	uint64_t ncall[TRACE_NOPS]; /* wrapper calls per kind               */
	uint64_t excl[TRACE_NOPS];  /* spans excluded per kind; ns          */
	int cal;                 /* the calibration's own thread: records
	                            are only summed (cal_sum), never kept   */
	uint64_t cal_sum;        /* ns                                      */
	/* a condition wait in progress */
	int cw_active;
	const void *cw_cond, *cw_mutex;
	struct rec_spool_pend *cw_rec; /* its reserved `unlock M` (dead
	                            unless the wait ends without a wake-up) */
	uint64_t cw_ticket;      /* its registration number on the condvar   */
	int cw_claimed;          /* a signal/broadcast counted it as woken   */
	uint64_t cw_limit;       /* the condvar's registration number when it
	                            was claimed: waiters registered up to it
	                            could have been woken instead            */
	struct rp_thread *cw_next; /* next waiter of the condvar             */
	uint64_t omp_wait;       /* rp_gomp.c: CPU time inside libgomp's
	                            waits, not work; ns                     */
	void *omp_region;        /* rp_gomp.c: the OpenMP region whose end
	                            it reached, not yet written (under G)   */
} __attribute__((aligned(128))); /* side by side in their chunks
	                            (rp_state.c): no two threads' states
	                            share a line or its prefetched pair     */

/* An object's recorder state (address -> current id), 64 bytes aligned:
 * recorded on several CPUs, two threads' own mutexes must not share a
 * cache line.  It never moves once made (the table holds pointers), so
 * the lock-free lookup (rp_obj_peek) is safe while the table grows. */
struct rp_obj {
	uintptr_t key;           /* address, 0 = empty                       */
	uint8_t kind;            /* enum trace_kind                          */
	uint32_t id;             /* 0: not used yet (assigned at first use)  */
	uint32_t owner;          /* mutex: thread holding it, 0 = none       */
	uint32_t depth;          /* mutex: recursive re-locks                */
	uint32_t init;           /* sem: value at sem_init; barrier: count   */
	int has_init;
	int64_t count;           /* sem: tokens in the replay                */
	struct rp_thread *wq;    /* cond: waiting threads, in registration
	                            order (claimed or not)                   */
	uint64_t reg;            /* cond: registrations so far               */
	uint64_t stamp;          /* mutex: its last record's stamp, written
	                            by its holder only                       */
} __attribute__((aligned(64)));

/* rp_state.c */
extern int rp_mode;
extern volatile int rp_finished;
extern __thread struct rp_thread *rp_self __attribute__((tls_model("initial-exec")));

struct rp_real {
	int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*join)(pthread_t, void **);
	void (*exit)(void *) __attribute__((noreturn));
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
	int (*barrier_init)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
	int (*barrier_wait)(pthread_barrier_t *);
	int (*rw_rdlock)(pthread_rwlock_t *);
	int (*rw_tryrdlock)(pthread_rwlock_t *);
	int (*rw_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rw_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rw_wrlock)(pthread_rwlock_t *);
	int (*rw_trywrlock)(pthread_rwlock_t *);
	int (*rw_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rw_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rw_unlock)(pthread_rwlock_t *);
	int (*sem_init)(void *, int, unsigned);
	int (*sem_wait)(void *);
	int (*sem_trywait)(void *);
	int (*sem_timedwait)(void *, const struct timespec *);
	int (*sem_clockwait)(void *, clockid_t, const struct timespec *);
	int (*sem_post)(void *);
	unsigned (*sleep)(unsigned);
	int (*usleep)(useconds_t);
	int (*nanosleep)(const struct timespec *, struct timespec *);
	int (*clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);
	int (*yield)(void);
};
extern struct rp_real rp_real;

void rp_init(void);
/* The calling thread if it is recorded and not already inside a wrapper
 * (then marks it busy), else NULL: the wrapper just calls the real
 * function.  (Inline: it runs inside the program's work.) */
static inline struct rp_thread *rp_enter(void)
{
	struct rp_thread *t = rp_self;
	if (rp_mode != RP_RECORD || !t || t->busy || t->exited || rp_finished)
		return NULL;
	t->busy = 1;
	return t;
}

/* Leave a wrapper: if `recorded`, the work rp_work returned is in a
 * record. */
static inline void rp_leave(struct rp_thread *t, int recorded)
{
	if (recorded)
		t->carry = 0;
	t->busy = 0;
}
/* rp_clock.c: the clock and the recorder's own cost.
 * rp_clock_init: once, before any thread is recorded (TSC rate, whether
 * the fast clock works, and which switch word).  rp_clock_open/close:
 * the calling thread's switch word (call in the thread itself).  rp_now: t's CPU time
 * (t must be the calling thread); ns.  rp_cpu_now: the calling thread's.
 *
 * rp_work(t, op): a wrapper of kind `op` reached the point where its
 * record's work ends (a release: its entry; an acquisition: just after
 * the real call returned): adds the CPU time since the last point the
 * recorder left, minus op's calibrated cost, to the carry and returns
 * it; the recorder's own span begins.  rp_mark(t): the span ends (a
 * release: just before the real call; an acquisition: its exit): its
 * time is excluded from every record (a no-op with the slow clock, where
 * the calibration subtracts the whole span instead).
 * rp_calibrate_start: measure each kind's cost on private objects (the
 * caller then forgets every object and record, rp_reset); returns the
 * CPU time it took (ns).  rp_calibrate_end: measure again (the check).
 * rp_stats_write: PATH.stats, the figures shadowbind-record prints. */
void rp_clock_init(void);
void rp_clock_open(struct rp_thread *t);
void rp_clock_close(struct rp_thread *t);
uint64_t rp_cpu_now(void);

/* The fast clock's parts that run inside the program's work, inline (the
 * rest, after the reading, in rp_clock.c): ns = ticks * rp_tsc_mult >> 32;
 * a new exact base at least every RP_RESYNC_TICKS (about 50 ms at 2.6
 * GHz).  rp_now_slow: the exact clock (and a new base); s and c are the
 * sequence word and TSC the fast path read.  rp_work_at: rp_work's
 * bookkeeping once the clock was read (`now`, ns). */
#define RP_RESYNC_TICKS (1ull << 27)
extern uint64_t rp_tsc_mult;
extern uint64_t rp_startup_ns; /* the clock's set-up and the calibration
                                  at start (CPU time); ns */
uint64_t rp_now_slow(struct rp_thread *t, uint32_t s, uint64_t c);
/* rp_now_wait: rp_now where the span since t->last was a wait (its CPU
 * time is not work: libgomp's waits, rp_gomp.c's drop_wait).  When the
 * thread was switched out since the base (it slept in the wait), the
 * exact clock is read only every RP_EST_EVERY such waits (and after any
 * wait longer than RP_EST_MAX_NS of wall time); in between
 * the wait is given the mean CPU time of the waits of the last exact
 * interval and the new base is the wait's start plus that (rp_clock.c).
 * Spans without a switch stay exact (TSC); a switch inside a work span
 * reads the exact clock, and the estimates' error since the last exact
 * read (at most RP_EST_EVERY - 1 waits) lands in that span's work. */
#define RP_EST_EVERY 16
/* and only waits shorter than this (wall time, TSC): longer ones are
 * read exactly; ns */
#define RP_EST_MAX_NS 100000u
uint64_t rp_now_wait(struct rp_thread *t);
/* SHADOWBIND_WAIT_WORK=1 on a recording whose process may use one CPU
 * (read at start, rp_clock_init): libgomp's waits are work, not waits
 * (rp_gomp.c's drop_wait keeps their CPU time).  There each wait sleeps
 * in a futex after a short spin, and its CPU time (the spin, the futex
 * calls, the switches; 7 us a wait in NAS CG) is time the one CPU
 * spends, as the futex calls inside a pthread wait are in a pthread
 * program's work; on several CPUs libgomp's waits spin instead, and a
 * trace for them leaves it out (docs/record.md, OpenMP). */
extern int rp_wait_work;
uint64_t rp_work_at(struct rp_thread *t, int op, uint64_t now);

static inline uint64_t rp_ticks(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return 0;
#endif
}

/* Whether t's base still converts a TSC reading: taken on this
 * processor with no switch since (the switch word s equals the base's),
 * and d, the ticks since the base, under RP_RESYNC_TICKS.  The one test
 * of rp_now and rp_now_at. */
static inline int rp_base_holds(const struct rp_thread *t, uint32_t s,
				uint64_t d)
{
	return t->base_ok && s == t->seq && d < RP_RESYNC_TICKS;
}

static inline uint64_t rp_now(struct rp_thread *t)
{
	if (!t->sw)
		return rp_now_slow(t, 0, 0);
	uint32_t s = *t->sw;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint64_t c = rp_ticks(), d = c - t->base_tsc;
	if (__builtin_expect(rp_base_holds(t, s, d), 1))
		return t->base_ns + ((d * rp_tsc_mult) >> 32);
	return rp_now_slow(t, s, c);
}

/* rp_now for a TSC `c` read before anything of the recorder was
 * loaded (rp_ticks as the wrapper's first instruction, before
 * rp_enter): the loads rp_enter and rp_now make, which miss when the
 * program's own memory traffic evicted the recorder's lines since its
 * last call, then fall in the recorder's span instead of the
 * program's work (issue 20).  The switch word read after c still
 * tells whether the thread left its processor since the base (the
 * kernel changes it before the thread returns to user space, so
 * before c was read); a switch between the two reads only makes the
 * reading exact (rp_now_slow, a later instant). */
static inline uint64_t rp_now_at(struct rp_thread *t, uint64_t c)
{
	if (!t->sw)
		return rp_now_slow(t, 0, 0);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint32_t s = *t->sw;
	uint64_t d = c - t->base_tsc;
	if (__builtin_expect(rp_base_holds(t, s, d), 1))
		return t->base_ns + ((d * rp_tsc_mult) >> 32);
	return rp_now_slow(t, s, rp_ticks());
}

static inline uint64_t rp_work(struct rp_thread *t, int op)
{
	return rp_work_at(t, op, rp_now(t));
}

static inline void rp_mark(struct rp_thread *t)
{
	if (!t->sw)
		return;
	uint64_t now = rp_now(t);
	if (now > t->mark)
		t->excl[t->mark_op] += now - t->mark;
	t->last = now;
}
uint64_t rp_calibrate_start(void);
void rp_calibrate_end(void);
void rp_stats_mark(void); /* the process's CPU time before the writing */
void rp_stats_write(const char *trace_path);
/* rp_state.c: threads 1..rp_nthreads(); forget every thread, object and
 * record (after the calibration). */
uint32_t rp_nthreads(void);
struct rp_thread *rp_thread_at(uint32_t id);
void rp_reset(void);

/* The recorder lock G: a futex word of our own (0 free, 1 held, 2 held
 * with waiters), not a pthread mutex, so that taking it is one
 * compare-and-swap inline (a pthread_mutex_lock and unlock through their
 * pointers were some 55 instructions of the ~400 each record cost,
 * measured with callgrind on the lockprobe).  rp_hot.owner: which thread
 * holds it (the address of its rp_g_me), for the signal handler.
 *
 * rp_hot: G and what the records under G read or write, in one cache
 * line (64 bytes, aligned): G, its holder, the object table's address
 * and G's stamp (issue 20; docs/record.md, "The recorder's cost on
 * several CPUs").
 * rp_lock returns 0, or -1 when the recording has finished (then G is
 * not held and nothing may be recorded).  rp_g_acquire/rp_g_release: G
 * itself, whatever the recording's state. */
struct rp_objtab;
struct rp_hot {
	int g;                       /* G: 0 free, 1 held, 2 held, waiters   */
	const char *volatile owner;  /* &rp_g_me of G's holder, or NULL     */
	struct rp_objtab *objtab;    /* the object table (below), or NULL   */
	uint64_t stamp;              /* the last stamp given under G        */
} __attribute__((aligned(64)));
extern struct rp_hot rp_hot;
extern __thread char rp_g_me __attribute__((tls_model("initial-exec")));
void rp_g_wait(void); /* rp_g_acquire's contended path */
void rp_g_wake(void);

static inline void rp_g_acquire(void)
{
	int z = 0;
	if (!__atomic_compare_exchange_n(&rp_hot.g, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		rp_g_wait();
	rp_hot.owner = &rp_g_me;
}

static inline void rp_g_release(void)
{
	rp_hot.owner = NULL;
	if (__atomic_exchange_n(&rp_hot.g, 0, __ATOMIC_RELEASE) == 2)
		rp_g_wake();
}

static inline int rp_lock(void)
{
	rp_g_acquire();
	if (rp_finished) {
		rp_g_release();
		return -1;
	}
	return 0;
}

static inline void rp_unlock(void)
{
	rp_g_release();
}

/* Under G: the object at `addr` of `kind` (inserted if new; NULL when out
 * of memory); its id (assigned at first use).  The table (rp_state.c) is
 * open addressing over pointers to objects that never move; the first
 * probe is inline (most lookups end there), rp_obj_find the rest.  A
 * table that grows is replaced, never freed (a lock-free reader may
 * still probe it; the tables' sum is at most twice the last).
 * rp_obj_peek: without G, the object if it is in the table, else NULL. */
struct rp_objtab {
	size_t mask;             /* size - 1, size a power of two            */
	struct rp_obj *e[];      /* NULL: empty                              */
};
struct rp_obj *rp_obj_find(uintptr_t key, int kind);
uint32_t rp_obj_newid(struct rp_obj *o);

static inline size_t rp_obj_hash(uintptr_t key, int kind)
{
	uint64_t h = ((uint64_t)key ^ ((uint64_t)kind << 58)) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 20);
}

static inline struct rp_obj *rp_obj(const void *addr, int kind)
{
	uintptr_t key = addr ? (uintptr_t)addr : 1; /* never 0 (empty) */
	struct rp_objtab *tab = rp_hot.objtab;
	if (tab) {
		struct rp_obj *o = tab->e[rp_obj_hash(key, kind) & tab->mask];
		if (o && o->key == key && o->kind == kind)
			return o;
	}
	return rp_obj_find(key, kind);
}

static inline struct rp_obj *rp_obj_peek(const void *addr, int kind)
{
	uintptr_t key = addr ? (uintptr_t)addr : 1;
	struct rp_objtab *tab = __atomic_load_n(&rp_hot.objtab, __ATOMIC_ACQUIRE);
	if (!tab)
		return NULL;
	for (size_t j = rp_obj_hash(key, kind) & tab->mask;; j = (j + 1) & tab->mask) {
		struct rp_obj *o = __atomic_load_n(&tab->e[j], __ATOMIC_ACQUIRE);
		if (!o)
			return NULL;
		if (__atomic_load_n(&o->key, __ATOMIC_RELAXED) == key && o->kind == kind)
			return o;
	}
}

static inline uint32_t rp_obj_id(struct rp_obj *o)
{
	return o->id ? o->id : rp_obj_newid(o);
}
/* Under G: forget the id of the object at addr (it was initialized
 * again); `init` is its semaphore value or barrier count. */
void rp_obj_reinit(const void *addr, int kind, uint32_t init);
/* Under G: append a record for t; returns it (valid until t's next
 * record, see struct rec_spool_pend; never NULL). */
struct rec_spool_pend *rp_emit(struct rp_thread *t, uint64_t work, int op, uint64_t a,
                               uint64_t b);
/* Without G, for a mutex's lock or unlock whose id is known, by its
 * holder (the mutex guards the object's owner, depth and stamp): as
 * rp_emit, or NULL when the recording has finished (nothing recorded). */
struct rec_spool_pend *rp_emit_fast(struct rp_thread *t, struct rp_obj *o, uint64_t work,
                                    int op, uint64_t a, uint64_t b);
/* t's latest record's flags (dead, note: the only fields that change
 * after rp_emit) where the spool has it; by t itself or under G. */
void rp_sync(struct rp_thread *t);
/* Under G: a new thread (id in creation order); NULL when out of memory. */
struct rp_thread *rp_thread_new(void *(*fn)(void *));
/* Record the calling thread's exit (once); its buffer then serves the
 * next thread (rec_spool_buf_release). */
void rp_thread_exit(struct rp_thread *t);
/* Buffers mapped, and opened from ended threads' (the end's figures). */
void rp_buf_counts(uint64_t *mapped, uint64_t *reused);
/* Under G: the thread id of pthread_t pt, 0 if unknown; remember it. */
uint32_t rp_thread_of(pthread_t pt);
void rp_thread_map(pthread_t pt, uint32_t id);

/* Nanoseconds from the clock's now to the deadline (0 if passed). */
uint64_t rp_until(clockid_t clk, const struct timespec *deadline, const struct timespec *now);
uint64_t rp_ts_ns(const struct timespec *ts);

/* Semaphore bookkeeping under G (initial tokens from what the replay
 * needs when sem_init was not seen). */
void rp_sem_take(struct rp_obj *o);

/* Condition variables (under G): register t as a waiter; claim waiters
 * for a signal (at most 1) or broadcast (all), returning how many; take t
 * out of the queue, returning whether it ends as woken (claimed, possibly
 * by taking over the claim of a waiter that is still blocked and
 * registered later, see rp_state.c). */
void rp_cv_register(struct rp_obj *c, struct rp_thread *t);
uint32_t rp_cv_claim(struct rp_obj *c, int all);
int rp_cv_leave(struct rp_obj *c, struct rp_thread *t, int returned);

/* rp_pin.c: run mode, and recording a bound run */
void rp_pin_init(void);
/* 1 if SHADOWBIND_PIN was given: new threads are pinned. */
int rp_pin_active(void);
/* The next thread's id (run mode) and the OS CPU to pin it to (-1: none);
 * exits the process with status 2 and a message when the binding does
 * not name the thread. */
int rp_pin_next(uint32_t *id);
/* Pins the calling thread to OS CPU `cpu` (one system call); exits the
 * process with status 2 and a message when the OS refuses. */
void rp_pin_self(int cpu);
/* The calling thread's id in run mode (set by the trampoline). */
void rp_pin_set_id(uint32_t id);
/* How a new thread starts on its CPU (both libraries): cpu from
 * rp_pin_next (-1: not pinned), run_id its id, pinned set by
 * rp_pin_start_thread. */
struct rp_pin_start {
	int cpu;         /* OS CPU, -1 none */
	int pinned;      /* 1: the thread starts with that affinity already */
	uint32_t run_id; /* run mode: its thread id, 0 none */
};
typedef int (*rp_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
/* Creates a thread running tramp(arg) with `create` (the real
 * pthread_create), on OS CPU ps->cpu from its first instruction when
 * ps->cpu >= 0; sets ps->pinned before the thread can read it.  The
 * real pthread_create's result; on failure no thread exists. */
int rp_pin_start_thread(rp_create_fn create, pthread_t *pt, const pthread_attr_t *attr,
                        void *(*tramp)(void *), void *arg, struct rp_pin_start *ps);
/* In the new thread, first: takes its id and its CPU (a system call only
 * when it did not start pinned). */
void rp_pin_started(const struct rp_pin_start *ps);

/* rp_gomp.c: when OpenMP work queues were recorded (dynamic or guided
 * chunks, sections, single), the pool of the outermost team of thread 1
 * ("1-4") in buf and its queue mutex's id; 1, else 0. */
int rp_gomp_pool(char *buf, size_t len, uint32_t *mutex);
/* rp_gomp.c, under G: a thread that ends (t->omp_region set: a member of
 * a nested team, which libgomp ends with its region) writes its region's
 * end first (the master may not have returned yet). */
void rp_gomp_exit(struct rp_thread *t);

/* rp_name.c: the symbol of function fn into out ("" if unknown). */
void rp_symname(void *fn, char *out, size_t len);

/* rp_env.c (both libraries): write a message to stderr with write(2)
 * (async-signal-safe). */
void rp_say(const char *a, const char *b, const char *c);
/* Remove the libshadowbind-* entries from LD_PRELOAD and the
 * SHADOWBIND_* variables the libraries read, so that programs the
 * process starts are neither recorded into the same file nor pinned. */
void rp_env_clean(void);

#pragma GCC visibility pop

#endif
