/*
 * rp_gomp.c - OpenMP programs built with GCC (libgomp): the GOMP_* entry
 * points compiled code calls, and omp_*_lock, interposed and mapped onto
 * the trace's operations (docs/record.md, "OpenMP").  libgomp
 * synchronizes through its own futexes, which the pthread wrappers of
 * rp_wrap.c never see; the threads of its teams are created with
 * pthread_create and are recorded (and pinned) as any thread.
 *
 *   parallel region        `barrier D N` at the start of the team's work
 *                          (every member, where fn begins) and `barrier E
 *                          N` at its end (written by the master for every
 *                          member when GOMP_parallel returns: the end is a
 *                          barrier inside libgomp that the members leave
 *                          unseen); N the team's size
 *   barrier, loop/sections `barrier B N` where it returned
 *   end without nowait
 *   critical, atomic,      `lock M` / `unlock M` (a mutex per name, one
 *   omp_set_lock & kin     for the unnamed critical, one for atomic)
 *   ordered                a hand-off in the order the blocks ran:
 *                          block k (the team's k-th) `wait S(k)` where it
 *                          started (k > 0) and `post S(k+1)` at its end
 *   dynamic, guided loop   `lock Q` + `unlock Q` at each request for a
 *   chunk, sections, single chunk (start and next, the last, empty one
 *                          too), Q one mutex per team: the team's work
 *                          queue, so that simulate --pool deals the chunks
 *   task                   `post S` at its creation, `wait S` where it
 *                          starts (S one semaphore per task), before it
 *                          `lock Q` + `unlock Q` (the team's queue) if it
 *                          was created outside any task, `post C` at
 *                          its end (C its parent's), and the parent's
 *                          taskwait `wait C` once per child since the last
 *
 * What is not mapped is said once by a warning (warn_once).
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "record/preload/rp.h"
#include "record/preload/rp_gomp_bar.h"

/* ---- the real functions, resolved at first use (libgomp may be loaded
 * after us; dlsym(RTLD_NEXT) from here finds it) ---- */

#define REALFN(name, type) \
	static type real_##name(void) \
	{ \
		static void *p; \
		void *q = __atomic_load_n(&p, __ATOMIC_RELAXED); \
		if (!q) { \
			q = dlsym(RTLD_NEXT, #name); \
			__atomic_store_n(&p, q, __ATOMIC_RELAXED); \
		} \
		return (type)q; \
	}

typedef void (*fn_t)(void *);
typedef void (*cpyfn_t)(void *, void *);
typedef unsigned long long ull;

typedef int (*int_t)(void);
typedef void (*sched_t)(int *, int *);
REALFN(omp_get_thread_num, int_t)
REALFN(omp_get_num_threads, int_t)
REALFN(omp_get_level, int_t)
REALFN(omp_get_schedule, sched_t)
REALFN(omp_get_max_threads, int_t)

static int recording(void)
{
	if (!rp_real.mutex_lock)
		rp_init();
	return rp_mode == RP_RECORD && !rp_finished && rp_self;
}

/* ---- warnings for what is not mapped ---- */

enum { W_OLDABI, W_TASKGROUP, W_TASKLOOP, W_DEPEND, W_DETACH, W_DOACROSS, W_CANCEL,
       W_TEAMS, W_NESTED_POOL, W_N };
static const char *const warn_text[W_N] = {
	[W_OLDABI] = "a parallel region of the pre-GCC-4.9 ABI (GOMP_parallel_start); its region is not recorded as one",
	[W_TASKGROUP] = "taskgroup: the wait at its end for the group's tasks is not recorded",
	[W_TASKLOOP] = "taskloop: its tasks are recorded as work of the threads that ran them, without their creation or the wait for them",
	[W_DEPEND] = "task dependences (depend clauses): the order they impose is not recorded, only creation, start and taskwait",
	[W_DETACH] = "detached tasks: their completion event is not recorded",
	[W_DOACROSS] = "doacross loops (ordered(n), depend(sink/source)): their waits are not recorded",
	[W_CANCEL] = "cancellation: a cancelled construct is recorded as if it had run to its end",
	[W_TEAMS] = "host teams (omp teams): the league's synchronization is not recorded",
	[W_NESTED_POOL] = "nested parallel regions: each inner team has its own work queue mutex (--pool applies to one team)",
};
static int warned[W_N];

static void warn_once(int w)
{
	if (rp_mode != RP_RECORD || __atomic_exchange_n(&warned[w], 1, __ATOMIC_RELAXED))
		return;
	rp_say("shadowbind-record: warning: OpenMP ", warn_text[w], " (docs/record.md, OpenMP)\n");
}

/* ---- teams and their objects ---- */

/* The objects of the teams one master thread leads at one nesting level:
 * their addresses are the recorder's keys (rp_obj). */
#define GT_SIZES 8
struct gteam {
	uint32_t master, level;
	char q;                      /* mutex: the work queue            */
	uint64_t ord;                /* ordered blocks started (under G) */
	struct gsize {
		uint32_t n;          /* team size                       */
		char d, e, b;        /* barriers: start, end, in-region */
		struct rp_obj *bo;   /* b's object once it has an id (set
		                      * under G, read without: bar_fast)  */
	} sz[GT_SIZES];
};

#define GT_MAX 512
static struct gteam g_team[GT_MAX];
static uint32_t g_nteam;

/* Under G: the team of (master, level), and the index of size n in it;
 * NULL when the tables are full. */
static struct gteam *team_get(uint32_t master, uint32_t level, uint32_t n, int *si)
{
	struct gteam *g = NULL;
	for (uint32_t i = 0; i < g_nteam && !g; i++)
		if (g_team[i].master == master && g_team[i].level == level)
			g = &g_team[i];
	if (!g) {
		if (g_nteam == GT_MAX)
			return NULL;
		g = &g_team[g_nteam++];
		g->master = master;
		g->level = level;
	}
	for (int k = 0; k < GT_SIZES; k++) {
		if (g->sz[k].n == n) {
			*si = k;
			return g;
		}
		if (!g->sz[k].n) {
			g->sz[k].n = n;
			rp_obj_reinit(&g->sz[k].d, TRACE_K_BARRIER, n);
			rp_obj_reinit(&g->sz[k].e, TRACE_K_BARRIER, n);
			rp_obj_reinit(&g->sz[k].b, TRACE_K_BARRIER, n);
			*si = k;
			return g;
		}
	}
	return NULL;
}

/* The pool hint: the members of thread 1's outermost team (ids < 64k). */
#define GP_MAX 65536
static uint8_t g_member[GP_MAX];
static int g_queue_used;          /* a chunk, section or single was dealt */

/* One parallel region, on its master's stack. */
struct gregion {
	fn_t fn;
	void *data;
	uint32_t master;             /* the master's trace id            */
	uint32_t cap;                /* slots                            */
	uint32_t n;                  /* team size (set by the members)   */
	struct gteam *team;
	int si;
	int ended;                   /* its end is written (under G)     */
	struct rp_thread **slot;     /* [team member] its recorder thread */
	struct gctx **ctx;           /* [team member] its implicit task   */
	struct rp_gomp_pub *pub;     /* [team member] its stamp at its
	                              * arrival at a barrier (bar_begin)  */
};

/* A thread's place: its current team and task (implicit or explicit). */
struct gctx {
	struct gteam *team;          /* NULL: none recorded               */
	int si;
	uint32_t n;
	uint64_t done_key;           /* this task's children post here    */
	uint64_t ord_k;              /* the ordered block it is in        */
	int ord_on;                  /* ... 1: in one, recorded           */
	uint32_t children;           /* created since its last taskwait   */
	int task;                    /* 1: an explicit task's             */
	struct gregion *reg;         /* the region (an implicit task's)   */
	uint32_t me;                 /* its member number there (reg set) */
	uint64_t bseq;               /* its `barrier B` records in it (an
	                              * implicit task's; read by the other
	                              * members: bar_early)               */
	struct gctx *outer;
};
/* initial-exec: the library is loaded at start (LD_PRELOAD), and the
 * default model for a shared library called __tls_get_addr at every
 * wrapper (perf, ompbarrier recorded on two CPUs) */
#define RP_TLS __attribute__((tls_model("initial-exec")))
static __thread struct gctx *g_cur RP_TLS;
static __thread int g_joined RP_TLS;    /* has been in a team (the first lock Q) */
static uint64_t g_key;           /* task keys                          */

/* Keys of the semaphores of tasks: never addresses of the program. */
static const void *task_key(uint64_t k)
{
	return (const void *)(uintptr_t)(0x8000000000000000ull | k);
}

static uint32_t obj_id(const void *key, int kind)
{
	struct rp_obj *o = rp_obj(key, kind);
	return o ? rp_obj_id(o) : 0;
}

/* Under G: the `lock Q` + `unlock Q` of a request to the work queue. */
static void queue_rec(struct rp_thread *t, uint64_t w, struct gteam *g)
{
	uint32_t q = obj_id(&g->q, TRACE_K_MUTEX);
	if (!q)
		return;
	rp_emit(t, w, TRACE_LOCK, q, 0);
	rp_emit(t, 0, TRACE_UNLOCK, q, 0);
	if (g->master == 1 && g->level == 1 && t->id < GP_MAX)
		g_member[t->id] = 1;
}

/* The CPU time since the thread's previous clock read is not work: it
 * was inside one of libgomp's waits, where libgomp, recorded on one CPU,
 * sleeps in futexes and, on as many CPUs as threads, spins (waiting
 * either way); with rp_wait_work (one CPU) it is kept as work, the
 * record that ends the wait carries it.  Returns the work still to be
 * recorded. */
static uint64_t drop_wait(struct rp_thread *t, int op)
{
	uint64_t c = t->carry;
	uint64_t w = rp_work_at(t, op, rp_now_wait(t));
	if (rp_wait_work)
		return w;
	t->omp_wait += w - c;
	t->carry = c;
	return c;
}

/* SHADOWBIND_OMP_START_WORK=1 in the recorder's environment (not the
 * default: measured loaded only; docs/record.md, "NAS MG's regions"),
 * on a process that could use two or more CPUs when it started (read in
 * a constructor that runs before the library's own, rp_ctor, which pins
 * the initial thread for a bound recording) and whose libgomp spins: the
 * master's time in GOMP_parallel before the region's function starts
 * (gomp_team_start: the team's set-up, then the store that releases the
 * docked members, and any wait for a member not docked yet) is on the
 * path of the whole team before the members' work, and is kept as the
 * master's work before its `barrier D` (g_start_work).  NAS MG W200 (8,861
 * regions) recorded on two CPUs (2026-11-28, omp14, loaded, under
 * SCHED_FIFO): 1.1-2.3 us per region, the median of each of three
 * recordings, against 0.13-0.23 us with it dropped; its two-CPU
 * predictions from the six idle round traces of runs F and G missed 1.6
 * us per region on average, but from nine loaded recordings each way
 * its bound runs were predicted -3.1% (mean) dropped and +3.7% kept.
 * By default, on one CPU (where that time is mostly the futex wake-up
 * that the simulator charges at `barrier D` itself), and where the team
 * sleeps (a short GOMP_SPINCOUNT, a passive wait policy) it is dropped
 * as a wait (kept as work with rp_wait_work, as every wait). */
static int g_start_work;
__attribute__((constructor(101))) static void start_work_ctor(void)
{
	cpu_set_t cpus;
	/* a short spin (GOMP_SPINCOUNT=100, which shadowbind-record
	 * --binding sets for a binding that shares a CPU between team
	 * threads) or a passive wait policy: the team sleeps */
	const char *sc = getenv("GOMP_SPINCOUNT"), *wp = getenv("OMP_WAIT_POLICY");
	int sleeps = (sc && strtoul(sc, NULL, 10) < 10000 && strcasecmp(sc, "infinite") != 0) ||
	             (wp && strcasecmp(wp, "passive") == 0);
	const char *on = getenv("SHADOWBIND_OMP_START_WORK");
	g_start_work = on && strcmp(on, "1") == 0 && !sleeps &&
	               sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) >= 2;
}

static void region_member(void *p)
{
	struct gregion *r = p;
	struct gctx c = { .outer = g_cur };
	int me = real_omp_get_thread_num()();
	uint32_t n = (uint32_t)real_omp_get_num_threads()();
	uint32_t level = (uint32_t)real_omp_get_level()();
	struct rp_thread *t = recording() ? rp_enter() : NULL;
	if (t) {
		/* a member's time since its previous region ended was in
		 * libgomp's dock (a wait); the master's since region_begin
		 * in libgomp's start of the team (its serial part before
		 * that is in its carry), which is work only under
		 * g_start_work (opted in, the team spinning) and otherwise a
		 * wait, as by default */
		uint64_t w = t->id == r->master && g_start_work ? rp_work(t, TRACE_BARRIER)
		                                                     : drop_wait(t, TRACE_BARRIER);
		int rec = 0;
		if (rp_lock() == 0) {
			int si = 0;
			struct gteam *g = team_get(r->master, level, n, &si);
			uint32_t d = g ? obj_id(&g->sz[si].d, TRACE_K_BARRIER) : 0;
			if (d && me >= 0 && (uint32_t)me < r->cap) {
				r->slot[me] = t;
				r->ctx[me] = &c;
				r->team = g;
				r->si = si;
				r->n = n;
				c.team = g;
				c.si = si;
				c.n = n;
				c.reg = r;
				c.me = (uint32_t)me;
				rp_emit(t, w, TRACE_BARRIER, d, n);
				rec = 1;
				if (!g_joined) {
					/* every member's first lock is the queue's
					 * (simulate --pool takes the first) */
					g_joined = 1;
					queue_rec(t, 0, g);
				}
				if (level > 1 && n > 1)
					warn_once(W_NESTED_POOL);
			}
			c.done_key = ++g_key;
			rp_unlock();
		}
		rp_mark(t);
		rp_leave(t, rec);
	}
	g_cur = &c;
	r->fn(r->data);
	g_cur = c.outer;
	if (t && (t = rp_enter())) {
		/* its work up to the end, for the master to write */
		rp_work(t, TRACE_BARRIER);
		if (me >= 0 && (uint32_t)me < r->cap && r->slot[me] == t)
			t->omp_region = r;
		rp_mark(t);
		rp_leave(t, 0);
	}
}

/* Under G, once per region, when every member has reached its end (the
 * team's barrier inside libgomp has released): `barrier E N` for every
 * member, each with its work up to its end. */
static void region_end_locked(struct gregion *r)
{
	if (r->ended)
		return;
	r->ended = 1;
	uint32_t e = obj_id(&r->team->sz[r->si].e, TRACE_K_BARRIER), have = 0;
	for (uint32_t i = 0; i < r->n && i < r->cap; i++)
		have += r->slot[i] != NULL;
	for (uint32_t i = 0; i < r->n && i < r->cap; i++) {
		struct rp_thread *m = r->slot[i];
		if (m && e && have == r->n) {
			rp_emit(m, m->carry, TRACE_BARRIER, e, r->n);
			m->carry = 0;
		}
		if (m)
			m->omp_region = NULL;
	}
}

void rp_gomp_exit(struct rp_thread *t)
{
	if (t->omp_region)
		region_end_locked(t->omp_region);
}

/* After the team ended (GOMP_parallel returned): the end barrier, for
 * every member; a member's work is what it did up to its end (its carry:
 * nothing of it runs until the next region, which the master starts). */
static void region_end(struct gregion *r)
{
	struct rp_thread *t = rp_enter();
	if (!t)
		return;
	if (r->team && r->slot[0] == t && rp_lock() == 0) {
		drop_wait(t, TRACE_BARRIER); /* its wait for the team */
		region_end_locked(r);
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, 0);
}

static int region_begin(struct gregion *r, fn_t fn, void *data, unsigned nthreads,
                        struct rp_thread **stack_slots, struct gctx **stack_ctx,
                        struct rp_gomp_pub *stack_pub, uint32_t stack_cap)
{
	memset(r, 0, sizeof *r);
	r->fn = fn;
	r->data = data;
	r->master = rp_self->id;
	uint32_t cap = nthreads ? nthreads : (uint32_t)real_omp_get_max_threads()();
	if (cap <= stack_cap) {
		r->slot = stack_slots;
		r->ctx = stack_ctx;
		r->pub = stack_pub;
		cap = stack_cap;
	} else if (!(r->slot = calloc(cap, sizeof *r->slot))) {
		return -1;
	} else if (!(r->ctx = calloc(cap, sizeof *r->ctx))) {
		free(r->slot);
		return -1;
	} else if (!(r->pub = aligned_alloc(_Alignof(struct rp_gomp_pub), (size_t)cap * sizeof *r->pub))) {
		free(r->slot);
		free(r->ctx);
		return -1;
	}
	memset(r->slot, 0, (size_t)cap * sizeof *r->slot);
	memset(r->ctx, 0, (size_t)cap * sizeof *r->ctx);
	for (uint32_t i = 0; i < cap; i++)
		r->pub[i].stamp = RP_GOMP_PUB_LIVE;
	r->cap = cap;
	/* The master's serial part up to here is work.  What GOMP_parallel
	 * does before the region's function starts in the master (setting
	 * up and waking the docked team) is not, unless g_start_work
	 * (1.1-2.3 us per region of NPB MG on two CPUs): recorded on one CPU the team
	 * sleeps and the wake-up is a futex system call (NPB MG: 4.2 us per
	 * region, 1819 regions); the simulator charges the hand-off at
	 * `barrier D` itself. */
	struct rp_thread *t = rp_enter();
	if (t) {
		rp_work(t, TRACE_BARRIER);
		rp_mark(t);
		rp_leave(t, 0);
	}
	return 0;
}

static void region_free(struct gregion *r, struct rp_thread **stack_slots)
{
	if (r->slot != stack_slots) {
		free(r->slot);
		free(r->ctx);
		free(r->pub);
	}
}

#define STACK_SLOTS 64

/* The body of every wrapper of a parallel region: EXPR calls the real
 * entry point with f_ and d_ as its function and data. */
#define REGION(fn, data, nthreads, EXPR) \
	do { \
		fn_t f_ = fn; \
		void *d_ = data; \
		struct rp_thread *st_[STACK_SLOTS]; \
		struct gctx *sc_[STACK_SLOTS]; \
		struct rp_gomp_pub sp_[STACK_SLOTS]; \
		struct gregion r_; \
		if (!recording() || region_begin(&r_, fn, data, nthreads, st_, sc_, sp_, STACK_SLOTS) < 0) { \
			EXPR; \
			break; \
		} \
		f_ = region_member; \
		d_ = &r_; \
		EXPR; \
		region_end(&r_); \
		region_free(&r_, st_); \
	} while (0)

typedef void (*par_t)(fn_t, void *, unsigned, unsigned);
REALFN(GOMP_parallel, par_t)

void GOMP_parallel(fn_t fn, void *data, unsigned nthreads, unsigned flags)
{
	REGION(fn, data, nthreads, real_GOMP_parallel()(f_, d_, nthreads, flags));
}

typedef unsigned (*parred_t)(fn_t, void *, unsigned, unsigned);
REALFN(GOMP_parallel_reductions, parred_t)

unsigned GOMP_parallel_reductions(fn_t fn, void *data, unsigned nthreads, unsigned flags)
{
	unsigned ret = 0;
	REGION(fn, data, nthreads, ret = real_GOMP_parallel_reductions()(f_, d_, nthreads, flags));
	return ret;
}

typedef void (*parsec_t)(fn_t, void *, unsigned, unsigned, unsigned);
REALFN(GOMP_parallel_sections, parsec_t)

void GOMP_parallel_sections(fn_t fn, void *data, unsigned nthreads, unsigned count,
                            unsigned flags)
{
	REGION(fn, data, nthreads,
	       real_GOMP_parallel_sections()(f_, d_, nthreads, count, flags));
}

/* Combined parallel loops: with a chunk size, and runtime (without). */
typedef void (*parloop_t)(fn_t, void *, unsigned, long, long, long, long, unsigned);
typedef void (*parloopr_t)(fn_t, void *, unsigned, long, long, long, unsigned);
#define PARLOOP(name) \
	REALFN(name, parloop_t) \
	void name(fn_t fn, void *data, unsigned nthreads, long start, long end, long incr, \
	          long chunk, unsigned flags) \
	{ \
		REGION(fn, data, nthreads, \
		       real_##name()(f_, d_, nthreads, start, end, incr, chunk, flags)); \
	}
#define PARLOOPR(name) \
	REALFN(name, parloopr_t) \
	void name(fn_t fn, void *data, unsigned nthreads, long start, long end, long incr, \
	          unsigned flags) \
	{ \
		REGION(fn, data, nthreads, \
		       real_##name()(f_, d_, nthreads, start, end, incr, flags)); \
	}
PARLOOP(GOMP_parallel_loop_static)
PARLOOP(GOMP_parallel_loop_dynamic)
PARLOOP(GOMP_parallel_loop_guided)
PARLOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
PARLOOP(GOMP_parallel_loop_nonmonotonic_guided)
PARLOOPR(GOMP_parallel_loop_runtime)
PARLOOPR(GOMP_parallel_loop_nonmonotonic_runtime)
PARLOOPR(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ---- barriers ---- */

/* The barrier the thread is inside (bar_begin to bar_end): its team
 * and the group it arrived in (the team's `rel` then).  libgomp runs the
 * team's pending tasks inside a barrier, also tasks that a member
 * creates after the group was released while this thread has not left
 * the call yet.  The trace's barrier record stands for the release
 * (every member's previous record comes before the group's first
 * barrier record: docs/trace-format.md), so such a task, whose `wait S`
 * follows its creator's barrier record and `post S`, must come after
 * this thread's barrier record too: task_run writes it first (bar_early)
 * when the group was released, and bar_end then writes nothing.  Seen
 * on ompmix, 1 recording in 150: "reaches barrier 2 after its group was
 * released". */
struct gbar {
	struct gctx *c;              /* NULL: in no barrier (or written)   */
	uint64_t group;
};
static __thread struct gbar g_bar RP_TLS;

/* After t's record of the barrier: one more of its implicit task's
 * (c's) records; the first member's record of a group shows the other
 * members that it was released (bar_early).  Each member writes its own
 * count, never another's: a count of the group's records shared by the
 * members (under G before bar_fast) was one more cache line both members
 * wrote at every barrier (perf: 2.9% of ompbarrier 300000 0 2 1's
 * samples recorded on two CPUs, as much as the rest of bar_end). */
static void bar_count(struct gctx *c)
{
	__atomic_store_n(&c->bseq, c->bseq + 1, __ATOMIC_RELEASE);
}

/* Whether some member of c's region has written its record of the group
 * that `seq` (c's count at its arrival) is: the group was released. */
static int bar_released(const struct gctx *c, uint64_t seq)
{
	const struct gregion *r = c->reg;
	for (uint32_t i = 0; r && i < r->n && i < r->cap; i++) {
		const struct gctx *m = __atomic_load_n(&r->ctx[i], __ATOMIC_RELAXED);
		if (m && __atomic_load_n(&m->bseq, __ATOMIC_ACQUIRE) > seq)
			return 1;
	}
	return 0;
}

/* Under G: `barrier B N` for t with the work it carries; counts the
 * group's records.  1 if written. */
static int bar_write(struct rp_thread *t, struct gctx *c)
{
	struct gsize *z = &c->team->sz[c->si];
	uint32_t b = obj_id(&z->b, TRACE_K_BARRIER);
	if (!b)
		return 0;
	rp_emit(t, t->carry, TRACE_BARRIER, b, c->n);
	if (!z->bo)
		__atomic_store_n(&z->bo, rp_obj(&z->b, TRACE_K_BARRIER), __ATOMIC_RELEASE);
	bar_count(c);
	return 1;
}

/* `barrier B N` without G, where the thread returned from the barrier of
 * its region's implicit task (c->reg) and the barrier has its id: the
 * record's stamp passes every member's last (each member's previous
 * record precedes the group, docs/trace-format.md; the members' stamps
 * are final for their records before the barrier, which the release
 * made visible), as stamp_g's barrier rule does for every live thread.
 * G taken at every barrier record was half of the recorder's time
 * there on two CPUs (perf, ompbarrier 300000 0 2 1: both members leave
 * the barrier together and contend for G's line); NAS SP W records 3
 * million barriers per thread (docs/record.md, OpenMP).  The stamp goes
 * through rp_emit_fast with a private object of the thread's (the
 * barrier's own would be one more line both members write).  1 written,
 * 0 not (the recording has finished), -1 to be written under G. */
static __thread struct rp_obj g_bstamp RP_TLS;
static int bar_fast(struct rp_thread *t, struct gctx *c, uint64_t k)
{
	struct gregion *r = c->reg;
	struct gsize *z = &c->team->sz[c->si];
	struct rp_obj *o = __atomic_load_n(&z->bo, __ATOMIC_ACQUIRE);
	uint32_t id = o ? __atomic_load_n(&o->id, __ATOMIC_RELAXED) : 0;
	uint64_t s = 0;
	if (!id || !r || c->task || r->n != c->n ||
	    rp_gomp_bar_stamp(__atomic_load_n(&t->stamp, __ATOMIC_RELAXED), r->slot, r->pub, k, r->n,
	                      r->cap, &s) < 0)
		return -1;
	__atomic_store_n(&t->stamp, s, __ATOMIC_RELAXED);
	if (!rp_emit_fast(t, &g_bstamp, t->carry, TRACE_BARRIER, id, c->n))
		return 0;
	bar_count(c);
	return 1;
}

/* c's member's published value for the other members' bar_fast
 * (struct rp_gomp_pub): v (rp_gomp_pub_value, or RP_GOMP_PUB_LIVE),
 * written only where it changed, so that the line stays in the other
 * members' caches in a barrier loop's steady state */
static void bar_pub(struct gctx *c, uint64_t v)
{
	struct gregion *r = c->reg;
	if (r && !c->task && c->me < r->cap && __atomic_load_n(&r->pub[c->me].stamp, __ATOMIC_RELAXED) != v)
		__atomic_store_n(&r->pub[c->me].stamp, v, __ATOMIC_RELAXED);
}

/* Before a barrier of the team: the work so far (the time inside is
 * dropped by bar_end, drop_wait) and the stamp it arrives with
 * (bar_pub); 1 if it is to be recorded.  No rp_mark (but where the
 * waits are kept as work, rp_wait_work): the span from here to bar_end
 * is dropped as libgomp's wait whether or not the recorder's few
 * instructions at its start are excluded first, so the second clock
 * read told only the recorder's own cost (2026-11-28, omp15: two of the
 * four reads a barrier took). */
static int bar_begin(void)
{
	struct gctx *c = g_cur;
	if (!recording() || !c || !c->team || c->n < 2)
		return 0;
	struct rp_thread *t = rp_enter();
	if (!t) {
		bar_pub(c, RP_GOMP_PUB_LIVE);
		return 0;
	}
	rp_work(t, TRACE_BARRIER);
	g_bar = (struct gbar){
		.c = c,
		.group = c->bseq,
	};
	bar_pub(c, rp_gomp_pub_value(__atomic_load_n(&t->stamp, __ATOMIC_RELAXED), c->bseq));
	if (rp_wait_work)
		rp_mark(t); /* the wait is kept as work: the span excluded as before */
	rp_leave(t, 0);
	return 1;
}

/* The barrier record where the thread returned from the barrier (when
 * `write`: on GOMP_single_copy_start, only the members that waited for
 * the copy), with the work before it (and after the tasks it ran
 * meanwhile, which recorded their own); nothing if bar_early wrote it.
 * on: what bar_begin returned. */
static void bar_end(int on, int write)
{
	struct gctx *c = g_bar.c;
	uint64_t k = g_bar.group; /* the groups recorded before this one */
	g_bar.c = NULL;
	struct rp_thread *t = on ? rp_enter() : NULL;
	if (!t)
		return;
	int rec = write && c ? -1 : 0;
	/* The record's work is the carry bar_begin left (the wait is
	 * dropped), so with the fast clock the record is written first and
	 * one clock read at the recorder's exit ends the wait: the
	 * recorder's span after the release is then counted in libgomp's
	 * waits, not in its own cost, and the trace is the same (the span
	 * was excluded from every record before too).  With the slow clock
	 * (rp_mark a no-op: the calibration subtracts the span from the next
	 * record's work) or the waits kept as work (rp_wait_work: the record
	 * carries the wait) the wait ends first, as before. */
	int late = t->sw && !rp_wait_work;
	if (!late)
		drop_wait(t, TRACE_BARRIER);
	if (rec)
		rec = bar_fast(t, c, k);
	if (rec < 0) {
		rec = 0;
		if (rp_lock() == 0) {
			rec = bar_write(t, c);
			rp_unlock();
		}
	}
	if (late)
		drop_wait(t, TRACE_BARRIER);
	else
		rp_mark(t);
	rp_leave(t, rec);
}

/* A task starts: if the thread is inside a barrier whose group was
 * released, its barrier record now, before the task's (struct gbar). */
static void bar_early(void)
{
	struct gctx *c = g_bar.c;
	if (!c || !bar_released(c, g_bar.group))
		return;
	struct rp_thread *t = rp_enter();
	if (!t)
		return;
	int rec = 0;
	drop_wait(t, TRACE_BARRIER);
	if (rp_lock() == 0) {
		if (bar_released(c, g_bar.group)) {
			rec = bar_write(t, c);
			g_bar.c = NULL;
		}
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
}

typedef void (*void_t)(void);
typedef bool (*bool_t)(void);

#define BARRIER_VOID(name) \
	REALFN(name, void_t) \
	void name(void) \
	{ \
		int on = bar_begin(); \
		real_##name()(); \
		bar_end(on, 1); \
	}
#define BARRIER_CANCEL(name) \
	REALFN(name, bool_t) \
	bool name(void) \
	{ \
		int on = bar_begin(); \
		bool r = real_##name()(); \
		if (r) \
			warn_once(W_CANCEL); \
		bar_end(on, 1); \
		return r; \
	}
BARRIER_VOID(GOMP_barrier)
BARRIER_VOID(GOMP_loop_end)
BARRIER_VOID(GOMP_sections_end)
BARRIER_CANCEL(GOMP_barrier_cancel)
BARRIER_CANCEL(GOMP_loop_end_cancel)
BARRIER_CANCEL(GOMP_sections_end_cancel)

/* ---- mutual exclusion: critical, atomic, locks, ordered ---- */

static char g_crit, g_atomic; /* their addresses: the mutexes' keys */

/* Before an acquisition: the work before it (its time inside is
 * dropped, drop_wait).  No rp_mark unless the waits are kept as work
 * (rp_wait_work), as bar_begin: the span from here to mx_acquired's
 * clock read is dropped as libgomp's lock wait whether or not the
 * recorder's instructions at its start are excluded first (one clock
 * read less per acquisition; issue 21, omp17). */
static struct rp_thread *mx_begin(uint64_t *w)
{
	*w = 0;
	struct rp_thread *t = recording() ? rp_enter() : NULL;
	if (t) {
		*w = rp_work(t, TRACE_LOCK);
		if (rp_wait_work)
			rp_mark(t);
	}
	return t;
}

/* After the real acquisition (ok) or failed try (!ok, try): `lock M`,
 * `trylock M ok|busy`; a re-lock by its owner (nest locks) counts.  As
 * bar_end: with the fast clock and the waits dropped the record (its
 * work the carry mx_begin left) is written first and the one clock read
 * at the exit ends the wait (the recorder's span after the acquisition
 * is counted in libgomp's waits, not its own cost; the same records). */
static void mx_acquired(struct rp_thread *t, uint64_t w, const void *key, int try, int ok)
{
	if (!t)
		return;
	int rec = 0, op = try ? TRACE_TRYLOCK : TRACE_LOCK;
	int late = t->sw && !rp_wait_work;
	w = late ? t->carry : drop_wait(t, op); /* libgomp's lock wait */
	if (rp_lock() == 0) {
		struct rp_obj *o = rp_obj(key, TRACE_K_MUTEX);
		if (o && !ok) {
			rp_emit(t, w, TRACE_TRYLOCK, rp_obj_id(o), 0);
			rec = 1;
		} else if (o && o->owner == t->id) {
			o->depth++;
		} else if (o) {
			o->owner = t->id;
			o->depth = 0;
			rp_emit(t, w, try ? TRACE_TRYLOCK : TRACE_LOCK, rp_obj_id(o), try ? 1 : 0);
			rec = 1;
		}
		rp_unlock();
	}
	if (late)
		drop_wait(t, op);
	else
		rp_mark(t);
	rp_leave(t, rec);
}

/* Before the real release: `unlock M` unless an inner nest-lock level. */
static void mx_release(const void *key)
{
	struct rp_thread *t = recording() ? rp_enter() : NULL;
	if (!t)
		return;
	uint64_t w = rp_work(t, TRACE_UNLOCK);
	int rec = 0;
	if (rp_lock() == 0) {
		struct rp_obj *o = rp_obj(key, TRACE_K_MUTEX);
		if (o && o->owner == t->id) {
			if (o->depth) {
				o->depth--;
			} else {
				o->owner = 0;
				rp_emit(t, w, TRACE_UNLOCK, rp_obj_id(o), 0);
				rec = 1;
			}
		}
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
}

#define MX_VOID(name, key) \
	REALFN(name, void_t) \
	void name(void) \
	{ \
		uint64_t w; \
		struct rp_thread *t = mx_begin(&w); \
		real_##name()(); \
		mx_acquired(t, w, key, 0, 1); \
	}
#define MX_VOID_END(name, key) \
	REALFN(name, void_t) \
	void name(void) \
	{ \
		mx_release(key); \
		real_##name()(); \
	}
MX_VOID(GOMP_critical_start, &g_crit)
MX_VOID_END(GOMP_critical_end, &g_crit)
MX_VOID(GOMP_atomic_start, &g_atomic)
MX_VOID_END(GOMP_atomic_end, &g_atomic)

/* ordered: libgomp lets the blocks of a team's ordered loops through in
 * iteration order, one at a time.  A mutex would let a replay run them
 * in any order, so each block k (the team's k-th to start, under G)
 * waits for the semaphore S(k) that block k - 1 posts at its end: the
 * recorded order, whichever thread runs each block (with --pool the
 * chunk's segment carries its wait and post).  One chain per team, over
 * all its ordered loops. */
static const void *ord_key(const struct gteam *g, uint64_t k)
{
	return (const void *)(uintptr_t)(0x4000000000000000ull | (uint64_t)(g - g_team) << 40 |
	                                 (k & 0xffffffffffull));
}

static void sem_rec_key(struct rp_thread *t, uint64_t w, const void *key, int op);

REALFN(GOMP_ordered_start, void_t)
void GOMP_ordered_start(void)
{
	struct gctx *c = g_cur;
	struct rp_thread *t = c && c->team && recording() ? rp_enter() : NULL;
	if (t) {
		rp_work(t, TRACE_WAIT);
		rp_mark(t);
	}
	real_GOMP_ordered_start()();
	if (!t)
		return;
	int rec = 0;
	uint64_t w = drop_wait(t, TRACE_WAIT); /* its turn's wait */
	if (rp_lock() == 0) {
		uint64_t k = c->team->ord++;
		c->ord_k = k;
		c->ord_on = 1;
		if (k > 0) {
			sem_rec_key(t, w, ord_key(c->team, k), TRACE_WAIT);
			rec = 1;
		}
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
}

REALFN(GOMP_ordered_end, void_t)
void GOMP_ordered_end(void)
{
	struct gctx *c = g_cur;
	struct rp_thread *t = c && c->ord_on && recording() ? rp_enter() : NULL;
	if (c)
		c->ord_on = 0;
	if (t) {
		uint64_t w = rp_work(t, TRACE_POST);
		int rec = 0;
		if (rp_lock() == 0) {
			sem_rec_key(t, w, ord_key(c->team, c->ord_k + 1), TRACE_POST);
			rec = 1;
			rp_unlock();
		}
		rp_mark(t);
		rp_leave(t, rec);
	}
	real_GOMP_ordered_end()();
}

typedef void (*ptr_t)(void *);
typedef int (*itest_t)(void *);
#define MX_PTR(name, end) \
	REALFN(name, ptr_t) \
	void name(void *p) \
	{ \
		if (end) { \
			mx_release(p); \
			real_##name()(p); \
		} else { \
			uint64_t w; \
			struct rp_thread *t = mx_begin(&w); \
			real_##name()(p); \
			mx_acquired(t, w, p, 0, 1); \
		} \
	}
#define MX_TEST(name) \
	REALFN(name, itest_t) \
	int name(void *p) \
	{ \
		uint64_t w; \
		struct rp_thread *t = mx_begin(&w); \
		int r = real_##name()(p); \
		mx_acquired(t, w, p, 1, r != 0); \
		return r; \
	}
MX_PTR(GOMP_critical_name_start, 0)
MX_PTR(GOMP_critical_name_end, 1)
MX_PTR(omp_set_lock, 0)
MX_PTR(omp_unset_lock, 1)
MX_PTR(omp_set_nest_lock, 0)
MX_PTR(omp_unset_nest_lock, 1)
MX_TEST(omp_test_lock)
MX_TEST(omp_test_nest_lock)

/* ---- work queues: dynamic and guided loops, sections, single ---- */

static struct rp_thread *q_begin(uint64_t *w)
{
	struct gctx *c = g_cur;
	*w = 0;
	if (!recording() || !c || !c->team)
		return NULL;
	struct rp_thread *t = rp_enter();
	if (t)
		*w = rp_work(t, TRACE_LOCK);
	return t;
}

static void q_end(struct rp_thread *t, uint64_t w)
{
	if (!t)
		return;
	int rec = 0;
	if (rp_lock() == 0) {
		queue_rec(t, w, g_cur->team);
		g_queue_used = 1;
		rec = 1;
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
}

/* Is the run-sched-var (schedule(runtime)) a queue: dynamic or guided? */
static int runtime_queued(void)
{
	int kind = 0, chunk = 0;
	real_omp_get_schedule()(&kind, &chunk);
	kind &= 0x7fffffff; /* omp_sched_monotonic */
	return kind == 2 || kind == 3;
}

/* libgomp's GFS_* schedule numbers (GOMP_loop_start): runtime 0,
 * static 1, dynamic 2, guided 3, auto 4; bit 31 monotonic. */
static int sched_queued(long sched)
{
	long k = sched & 0x7fffffffL;
	return k == 0 ? runtime_queued() : k == 2 || k == 3;
}

typedef bool (*lstart_t)(long, long, long, long, long *, long *);
typedef bool (*lrstart_t)(long, long, long, long *, long *);
typedef bool (*lnext_t)(long *, long *);
typedef bool (*ustart_t)(bool, ull, ull, ull, ull, ull *, ull *);
typedef bool (*urstart_t)(bool, ull, ull, ull, ull *, ull *);
typedef bool (*unext_t)(ull *, ull *);

/* One request for a chunk: the real call, recorded when `queued`. */
#define QREQ(queued, EXPR) \
	do { \
		uint64_t w_; \
		struct rp_thread *t_ = (queued) ? q_begin(&w_) : NULL; \
		bool r_ = EXPR; \
		q_end(t_, w_); \
		return r_; \
	} while (0)

#define LSTART(name, queued) \
	REALFN(name, lstart_t) \
	bool name(long start, long end, long incr, long chunk, long *is, long *ie) \
	{ QREQ(queued, real_##name()(start, end, incr, chunk, is, ie)); }
#define LRSTART(name) \
	REALFN(name, lrstart_t) \
	bool name(long start, long end, long incr, long *is, long *ie) \
	{ QREQ(runtime_queued(), real_##name()(start, end, incr, is, ie)); }
#define LNEXT(name, queued) \
	REALFN(name, lnext_t) \
	bool name(long *is, long *ie) \
	{ QREQ(queued, real_##name()(is, ie)); }
#define USTART(name) \
	REALFN(name, ustart_t) \
	bool name(bool up, ull start, ull end, ull incr, ull chunk, ull *is, ull *ie) \
	{ QREQ(1, real_##name()(up, start, end, incr, chunk, is, ie)); }
#define URSTART(name) \
	REALFN(name, urstart_t) \
	bool name(bool up, ull start, ull end, ull incr, ull *is, ull *ie) \
	{ QREQ(runtime_queued(), real_##name()(up, start, end, incr, is, ie)); }
#define UNEXT(name, queued) \
	REALFN(name, unext_t) \
	bool name(ull *is, ull *ie) \
	{ QREQ(queued, real_##name()(is, ie)); }

LSTART(GOMP_loop_dynamic_start, 1)
LSTART(GOMP_loop_guided_start, 1)
LSTART(GOMP_loop_nonmonotonic_dynamic_start, 1)
LSTART(GOMP_loop_nonmonotonic_guided_start, 1)
LSTART(GOMP_loop_ordered_dynamic_start, 1)
LSTART(GOMP_loop_ordered_guided_start, 1)
LRSTART(GOMP_loop_runtime_start)
LRSTART(GOMP_loop_nonmonotonic_runtime_start)
LRSTART(GOMP_loop_maybe_nonmonotonic_runtime_start)
LRSTART(GOMP_loop_ordered_runtime_start)
LNEXT(GOMP_loop_dynamic_next, 1)
LNEXT(GOMP_loop_guided_next, 1)
LNEXT(GOMP_loop_nonmonotonic_dynamic_next, 1)
LNEXT(GOMP_loop_nonmonotonic_guided_next, 1)
LNEXT(GOMP_loop_ordered_dynamic_next, 1)
LNEXT(GOMP_loop_ordered_guided_next, 1)
LNEXT(GOMP_loop_runtime_next, runtime_queued())
LNEXT(GOMP_loop_nonmonotonic_runtime_next, runtime_queued())
LNEXT(GOMP_loop_maybe_nonmonotonic_runtime_next, runtime_queued())
LNEXT(GOMP_loop_ordered_runtime_next, runtime_queued())
USTART(GOMP_loop_ull_dynamic_start)
USTART(GOMP_loop_ull_guided_start)
USTART(GOMP_loop_ull_nonmonotonic_dynamic_start)
USTART(GOMP_loop_ull_nonmonotonic_guided_start)
USTART(GOMP_loop_ull_ordered_dynamic_start)
USTART(GOMP_loop_ull_ordered_guided_start)
URSTART(GOMP_loop_ull_runtime_start)
URSTART(GOMP_loop_ull_nonmonotonic_runtime_start)
URSTART(GOMP_loop_ull_maybe_nonmonotonic_runtime_start)
URSTART(GOMP_loop_ull_ordered_runtime_start)
UNEXT(GOMP_loop_ull_dynamic_next, 1)
UNEXT(GOMP_loop_ull_guided_next, 1)
UNEXT(GOMP_loop_ull_nonmonotonic_dynamic_next, 1)
UNEXT(GOMP_loop_ull_nonmonotonic_guided_next, 1)
UNEXT(GOMP_loop_ull_ordered_dynamic_next, 1)
UNEXT(GOMP_loop_ull_ordered_guided_next, 1)
UNEXT(GOMP_loop_ull_runtime_next, runtime_queued())
UNEXT(GOMP_loop_ull_nonmonotonic_runtime_next, runtime_queued())
UNEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, runtime_queued())
UNEXT(GOMP_loop_ull_ordered_runtime_next, runtime_queued())

/* GOMP 5.0's generic starts: a chunk is taken only with istart. */
typedef bool (*gstart_t)(long, long, long, long, long, long *, long *, uintptr_t *, void **);
typedef bool (*gustart_t)(bool, ull, ull, ull, long, ull, ull *, ull *, uintptr_t *, void **);
#define GSTART(name) \
	REALFN(name, gstart_t) \
	bool name(long start, long end, long incr, long sched, long chunk, long *is, long *ie, \
	          uintptr_t *red, void **mem) \
	{ QREQ(is && sched_queued(sched), \
	       real_##name()(start, end, incr, sched, chunk, is, ie, red, mem)); }
#define GUSTART(name) \
	REALFN(name, gustart_t) \
	bool name(bool up, ull start, ull end, ull incr, long sched, ull chunk, ull *is, ull *ie, \
	          uintptr_t *red, void **mem) \
	{ QREQ(is && sched_queued(sched), \
	       real_##name()(up, start, end, incr, sched, chunk, is, ie, red, mem)); }
GSTART(GOMP_loop_start)
GSTART(GOMP_loop_ordered_start)
GUSTART(GOMP_loop_ull_start)
GUSTART(GOMP_loop_ull_ordered_start)

/* Sections are dealt as a queue too (libgomp hands them out in order to
 * whichever thread asks). */
typedef unsigned (*sstart_t)(unsigned);
typedef unsigned (*s2start_t)(unsigned, uintptr_t *, void **);
typedef unsigned (*snext_t)(void);
#define SREQ(EXPR) \
	do { \
		uint64_t w_; \
		struct rp_thread *t_ = q_begin(&w_); \
		unsigned r_ = EXPR; \
		q_end(t_, w_); \
		return r_; \
	} while (0)
REALFN(GOMP_sections_start, sstart_t)
unsigned GOMP_sections_start(unsigned count)
{
	SREQ(real_GOMP_sections_start()(count));
}
REALFN(GOMP_sections2_start, s2start_t)
unsigned GOMP_sections2_start(unsigned count, uintptr_t *red, void **mem)
{
	SREQ(real_GOMP_sections2_start()(count, red, mem));
}
REALFN(GOMP_sections_next, snext_t)
unsigned GOMP_sections_next(void)
{
	SREQ(real_GOMP_sections_next()());
}

/* single: the first thread to ask runs it.  copyprivate: the others wait
 * in GOMP_single_copy_start for the one that runs it, which waits in
 * GOMP_single_copy_end: a barrier of the team for both.  The request is
 * recorded before the real call here, so that it precedes that barrier. */
REALFN(GOMP_single_start, bool_t)
bool GOMP_single_start(void)
{
	QREQ(1, real_GOMP_single_start()());
}

typedef void *(*vp_t)(void);
REALFN(GOMP_single_copy_start, vp_t)
void *GOMP_single_copy_start(void)
{
	uint64_t w;
	struct rp_thread *t = q_begin(&w);
	q_end(t, w);
	int on = bar_begin();
	void *r = real_GOMP_single_copy_start()();
	bar_end(on, r != NULL);
	return r;
}

REALFN(GOMP_single_copy_end, ptr_t)
void GOMP_single_copy_end(void *data)
{
	int on = bar_begin();
	real_GOMP_single_copy_end()(data);
	bar_end(on, 1);
}

/* ---- tasks ----
 *
 * A task's function and data are wrapped: the data libgomp copies starts
 * with a header (struct ghdr, padded to the task's alignment) followed
 * by the program's data; task_run records the start and the end around
 * the program's function.  Semaphores: S (2k) is posted at creation and
 * taken where the task starts, C (2k + 1) of a task (or of a thread's
 * implicit task in a region) receives a post from each child at its end,
 * and its taskwait takes one token per child created since the last. */

struct ghdr {
	fn_t fn;
	uint64_t key;                /* S = 2 key, C = 2 key + 1           */
	uint64_t parent;             /* the parent's key: its C            */
	cpyfn_t cpyfn;               /* the program's copy function        */
	void *odata;                 /* the program's data (to copy from)  */
	size_t off;                  /* the program's data in the block    */
	int pool;                    /* 1: created outside any task        */
};

/* Under G: `op S`, S the semaphore of `key`. */
static void sem_rec_key(struct rp_thread *t, uint64_t w, const void *key, int op)
{
	struct rp_obj *o = rp_obj(key, TRACE_K_SEM);
	if (!o)
		return;
	uint32_t id = rp_obj_id(o);
	if (op == TRACE_POST)
		o->count++;
	else
		rp_sem_take(o);
	rp_emit(t, w, op, id, 0);
}

/* Under G: `op S`, S the semaphore of task key k (a task's S or C). */
static void sem_rec(struct rp_thread *t, uint64_t w, uint64_t k, int op)
{
	sem_rec_key(t, w, task_key(k), op);
}

static void sem_one(uint64_t k, int op, uint32_t times)
{
	struct rp_thread *t = recording() ? rp_enter() : NULL;
	if (!t)
		return;
	uint64_t w = rp_work(t, op);
	int rec = 0;
	if (rp_lock() == 0) {
		for (uint32_t i = 0; i < times; i++, w = 0)
			sem_rec(t, w, k, op);
		rec = times > 0;
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
}

/* A task starts in the calling thread: if `pool`, `lock Q` + `unlock Q`
 * of its team's queue, then `wait S`.  Which member runs a deferred task
 * is decided at run time, as who takes a chunk of a dynamic loop: with
 * the request, simulate --pool cuts a segment where the task starts and
 * deals it to the first member that asks (a thread in no recorded team
 * writes only the wait).  Only for a task created outside any task (a
 * single's, a region body's): the pool deals segments in the order the
 * recording started them, and a one-CPU recording starts nested tasks
 * depth first, so a member dealt a child its parent has not created yet
 * in the prediction would wait; a nested task stays with the thread
 * that ran it (docs/record.md, OpenMP, "tasks move").  g: the task's
 * team, NULL when it runs after its region's function returned. */
static void task_start(struct gteam *g, uint64_t key, int pool)
{
	struct rp_thread *t = recording() ? rp_enter() : NULL;
	if (!t)
		return;
	uint64_t w = rp_work(t, TRACE_WAIT);
	int rec = 0;
	if (rp_lock() == 0) {
		/* in the barrier at the region's end, after its function
		 * returned: the team of that region */
		if (!g && t->omp_region)
			g = ((struct gregion *)t->omp_region)->team;
		if (g && pool) {
			queue_rec(t, w, g);
			g_queue_used = 1;
			w = 0;
		}
		sem_rec(t, w, 2 * key, TRACE_WAIT);
		rec = 1;
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
}

static void task_run(void *arg)
{
	struct ghdr *h = arg;
	struct gctx *o = g_cur;
	struct gctx c = { .outer = o, .done_key = h->key, .task = 1 };
	if (o) {
		c.team = o->team;
		c.si = o->si;
		c.n = o->n;
	}
	if (g_bar.c) /* inside a barrier: it records after its arrival */
		bar_pub(g_bar.c, RP_GOMP_PUB_LIVE);
	bar_early();
	struct gbar in = g_bar;
	g_bar.c = NULL;
	task_start(c.team, h->key, h->pool);
	g_cur = &c;
	h->fn((char *)arg + h->off);
	g_cur = o;
	g_bar = in;
	sem_one(2 * h->parent + 1, TRACE_POST, 1);
}

static void task_copy(void *dst, void *src)
{
	struct ghdr *h = src;
	memcpy(dst, h, sizeof *h);
	h->cpyfn((char *)dst + h->off, h->odata);
}

typedef void (*task_t)(fn_t, void *, cpyfn_t, long, long, bool, unsigned, void **, int, void *);
REALFN(GOMP_task, task_t)

#define GOMP_TASK_FLAG_DEPEND (1 << 3)
#define GOMP_TASK_FLAG_DETACH (1 << 11)

void GOMP_task(fn_t fn, void *data, cpyfn_t cpyfn, long size, long align, bool if_clause,
               unsigned flags, void **depend, int priority, void *detach)
{
	struct gctx *c = g_cur;
	task_t real = real_GOMP_task();
	if (!recording() || !c || size < 0) {
		real(fn, data, cpyfn, size, align, if_clause, flags, depend, priority, detach);
		return;
	}
	if (flags & GOMP_TASK_FLAG_DEPEND)
		warn_once(W_DEPEND);
	if (flags & GOMP_TASK_FLAG_DETACH)
		warn_once(W_DETACH);
	long al = align > (long)_Alignof(struct ghdr) ? align : (long)_Alignof(struct ghdr);
	size_t off = (sizeof(struct ghdr) + (size_t)al - 1) / (size_t)al * (size_t)al;
	struct ghdr h = { .fn = fn, .parent = c->done_key, .cpyfn = cpyfn, .odata = data,
	                  .off = off, .pool = !c->task };
	void *block = NULL;
	if (!cpyfn) {
		/* libgomp copies the block, or runs the task on it at once */
		if (posix_memalign(&block, (size_t)al, off + (size_t)size) != 0) {
			real(fn, data, cpyfn, size, align, if_clause, flags, depend, priority, detach);
			return;
		}
		memcpy((char *)block + off, data, (size_t)size);
	}
	if (rp_lock() == 0) {
		h.key = ++g_key;
		rp_unlock();
	}
	if (block)
		memcpy(block, &h, sizeof h);
	c->children++;
	sem_one(2 * h.key, TRACE_POST, 1);
	if (block)
		real(task_run, block, NULL, (long)(off + (size_t)size), al, if_clause, flags, depend,
		     priority, detach);
	else
		real(task_run, &h, task_copy, (long)(off + (size_t)size), al, if_clause, flags,
		     depend, priority, detach);
	free(block);
}

REALFN(GOMP_taskwait, void_t)
void GOMP_taskwait(void)
{
	struct gctx *c = g_cur;
	if (c && recording()) {
		struct rp_thread *t = rp_enter();
		if (t) {
			rp_work(t, TRACE_WAIT);
			rp_mark(t);
			rp_leave(t, 0);
		}
	}
	real_GOMP_taskwait()();
	if (c && recording()) {
		struct rp_thread *t = rp_enter();
		if (t) {
			drop_wait(t, TRACE_WAIT);
			rp_mark(t);
			rp_leave(t, 0);
		}
	}
	if (c && c->children) {
		uint32_t k = c->children;
		c->children = 0;
		sem_one(2 * c->done_key + 1, TRACE_WAIT, k);
	}
}

/* ---- not mapped: pass through, say so once ---- */

#define WARN_VOID(name, w) \
	REALFN(name, void_t) \
	void name(void) \
	{ \
		warn_once(w); \
		real_##name()(); \
	}
WARN_VOID(GOMP_taskgroup_start, W_TASKGROUP)
WARN_VOID(GOMP_taskgroup_end, W_TASKGROUP)

typedef void (*tl_t)(fn_t, void *, cpyfn_t, long, long, unsigned, unsigned long, int, long,
                     long, long);
REALFN(GOMP_taskloop, tl_t)
void GOMP_taskloop(fn_t fn, void *data, cpyfn_t cpyfn, long size, long align, unsigned flags,
                   unsigned long num_tasks, int priority, long start, long end, long step)
{
	warn_once(W_TASKLOOP);
	real_GOMP_taskloop()(fn, data, cpyfn, size, align, flags, num_tasks, priority, start, end,
	                     step);
}

typedef void (*tlu_t)(fn_t, void *, cpyfn_t, long, long, unsigned, unsigned long, int, ull,
                      ull, ull);
REALFN(GOMP_taskloop_ull, tlu_t)
void GOMP_taskloop_ull(fn_t fn, void *data, cpyfn_t cpyfn, long size, long align,
                       unsigned flags, unsigned long num_tasks, int priority, ull start,
                       ull end, ull step)
{
	warn_once(W_TASKLOOP);
	real_GOMP_taskloop_ull()(fn, data, cpyfn, size, align, flags, num_tasks, priority, start,
	                         end, step);
}

typedef void (*post_t)(void *);
REALFN(GOMP_doacross_post, post_t)
void GOMP_doacross_post(void *counts)
{
	warn_once(W_DOACROSS);
	real_GOMP_doacross_post()(counts);
}
REALFN(GOMP_doacross_ull_post, post_t)
void GOMP_doacross_ull_post(void *counts)
{
	warn_once(W_DOACROSS);
	real_GOMP_doacross_ull_post()(counts);
}

typedef bool (*cancel_t)(int, bool);
REALFN(GOMP_cancel, cancel_t)
bool GOMP_cancel(int which, bool do_cancel)
{
	if (do_cancel)
		warn_once(W_CANCEL);
	return real_GOMP_cancel()(which, do_cancel);
}

typedef void (*teams_t)(fn_t, void *, unsigned, unsigned, unsigned);
REALFN(GOMP_teams_reg, teams_t)
void GOMP_teams_reg(fn_t fn, void *data, unsigned num_teams, unsigned limit, unsigned flags)
{
	warn_once(W_TEAMS);
	real_GOMP_teams_reg()(fn, data, num_teams, limit, flags);
}

typedef void (*pstart_t)(fn_t, void *, unsigned);
REALFN(GOMP_parallel_start, pstart_t)
void GOMP_parallel_start(fn_t fn, void *data, unsigned nthreads)
{
	warn_once(W_OLDABI);
	real_GOMP_parallel_start()(fn, data, nthreads);
}

/* ---- at the end: the pool to predict the queue with ---- */

int rp_gomp_pool(char *buf, size_t len, uint32_t *mutex)
{
	*mutex = 0;
	if (!g_queue_used || len < 32)
		return 0;
	for (uint32_t i = 0; i < g_nteam; i++)
		if (g_team[i].master == 1 && g_team[i].level == 1) {
			struct rp_obj *o = rp_obj(&g_team[i].q, TRACE_K_MUTEX);
			*mutex = o ? o->id : 0;
		}
	size_t k = 0;
	for (uint32_t a = 1; a < GP_MAX && k + 24 < len; a++) {
		if (!g_member[a])
			continue;
		uint32_t b = a;
		while (b + 1 < GP_MAX && g_member[b + 1])
			b++;
		char tmp[32];
		int n = b > a ? snprintf(tmp, sizeof tmp, "%s%u-%u", k ? "," : "", a, b)
		              : snprintf(tmp, sizeof tmp, "%s%u", k ? "," : "", a);
		memcpy(buf + k, tmp, (size_t)n);
		k += (size_t)n;
		a = b;
	}
	buf[k] = 0;
	return k > 0 && *mutex;
}
