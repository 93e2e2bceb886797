/*
 * refsim.c - the reference simulator (see refsim.h): docs/simulation.md,
 * Direct model, written from the contract alone, slow and plain.
 *
 * Shape: time advances from one integer instant to the next event.  At an
 * instant T:
 *   1. ps: cycles that end at T credit their members (the contract's "ps in
 *      integer cycles"), and threads that became ready during the cycle
 *      join;
 *   2. steps: repeatedly, the thread with the smallest id that has
 *      something to do at T (end a sleep or latency wait; perform the
 *      operation of its current record because its work is done and it
 *      holds its processor) does ONE such step; wake-ups take effect inside
 *      the step in queue order;
 *   3. rr: quantum expiries at T, in increasing id of the expiring thread,
 *      each followed by the steps it enables;
 *   4. ps: processors at a boundary start their next cycle.
 * Dense thread indices are in increasing order of thread id (trace.h), so
 * "smallest id" is "smallest dense index".
 *
 * Readings of corners the contract leaves open are marked "reading:".
 */
#include "tests/refsim.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT64_MAX

/* A FIFO of ints (thread indices), small and simple. */
struct q {
	int *v;
	int n, cap;
};

static int q_push(struct q *q, int x)
{
	if (q->n == q->cap) {
		int cap = q->cap ? 2 * q->cap : 4;
		int *v = realloc(q->v, (size_t)cap * sizeof *v);
		if (!v)
			return -1;
		q->v = v;
		q->cap = cap;
	}
	q->v[q->n++] = x;
	return 0;
}

static int q_pop(struct q *q)
{
	int x = q->v[0];
	memmove(q->v, q->v + 1, (size_t)(q->n - 1) * sizeof *q->v);
	q->n--;
	return x;
}

/* Where and when a release happened, for the latency rule. */
struct stamp {
	int has;
	uint64_t time; /* units: trace unit */
	long proc;     /* latency processor of the releaser (see lproc) */
};

enum tstate { T_NEW, T_READY, T_BLOCKED, T_TIMED, T_DONE };
/* What a timed thread does when its time comes. */
enum after { A_READY, A_ASK_MUTEX };

struct thr {
	enum tstate st;
	int src;           /* the thread whose records it replays: itself,
	                      or under a work queue the worker that recorded
	                      its current segment                            */
	uint32_t pos;      /* index of the current record within src's      */
	uint64_t rem;      /* work left of the current record; trace units  */
	/* fifo/rr */
	int cpu;           /* processor it is on (running), or -1           */
	long lastcpu;      /* unbound fifo/rr: processor it last ran on, -1 */
	uint64_t qused;    /* rr: work done in this quantum; trace units    */
	/* ps */
	int member;        /* in its processor's (pool's) sharing           */
	/* timed */
	uint64_t until;    /* trace units                                   */
	enum after after;
	/* blocked */
	int need;          /* grants still missing before it may go on      */
	uint64_t proceed;  /* earliest time it may go on; trace units       */
	int cw_mutex;      /* cwait: the mutex it asks for when woken, or -1 */
	int ask_list_n;    /* blocked signaller: mutexes released, to re-ask */
	int *ask_list;     /* [nmutex] in the order they had been taken     */
	int sig_n;         /* blocked signaller: waiters it needs           */
	/* mutexes held, in the order taken */
	int *held;         /* [nmutex] */
	int nheld;
	struct stamp exitst;
	int remote;        /* created on another processor than its
	                      creator's (docs/sim.md, "Machine files")      */
	uint64_t since;    /* blocked: waiting since ("it blocked, or asked
	                      for its mutex again"); trace units          */
};

struct proc {
	int cur;           /* fifo/rr: running thread or -1                 */
	int last;          /* fifo/rr: thread it ran last, or -1            */
	int shadow;        /* a shadow processor: no switch cost            */
	uint64_t switch_left; /* trace units                                */
	struct q ready;    /* fifo/rr ready queue (bound); ps: unused        */
	uint64_t cycle_end;/* ps: end of the current cycle, NONE at a boundary */
	uint64_t *grant;   /* ps pool: units each member gets this cycle     */
};

struct mutex {
	int holder;
	struct q waiters;
	struct stamp st;
};

struct sem {
	uint64_t ntok;
	struct stamp *tok; /* FIFO of tokens: [head, ntok) */
	size_t head, cap;
	struct q waiters;
};

struct cond {
	struct q registered; /* waiters not yet claimed, FIFO */
	struct q signallers; /* blocked signallers, FIFO      */
};

struct barrier {
	struct q arrived;
};

struct rwl {
	int writer;
	int readers;
	struct q waiters;  /* thread indices; want[] says read or write */
	struct stamp wst;  /* last release that excluded readers (a writer's) */
	struct stamp anyst;/* last release of any kind */
};

struct S {
	const struct trace *tr;
	const struct refsim_params *p;
	const int32_t *binding;
	uint64_t t;          /* the latency */
	int n, nprocs;
	struct thr *th;
	struct proc *pr;
	struct q gready;     /* unbound fifo/rr: the global ready queue */
	struct mutex *mx;
	struct sem *sm;
	struct cond *cv;
	struct barrier *ba;
	struct rwl *rw;
	int *want_write;     /* [n] rwlock waiter kind */
	struct q *joiners;   /* [n] threads joining thread i */
	uint64_t T;          /* now; trace units */
	/* a work queue: its mutex and the workers' `lock M` records in file
	 * order (thread, position) */
	int pool_m;
	uint32_t nseg, seg_next;
	uint32_t *seg_thr, *seg_pos;
	uint64_t makespan;
	long steps;
	int oom;
	uint64_t creates;    /* creates performed so far (remote_child) */
	int spread;          /* bound: a remote create has happened       */
	uint64_t ncreated;   /* bound: creates performed so far           */
};

static const struct trace_rec *cur_rec(struct S *s, int i)
{
	return &s->tr->rec[s->tr->threads[s->th[i].src].first + s->th[i].pos];
}

static int unbound(struct S *s) { return s->p->unbound; }
static int is_ps(struct S *s) { return s->p->policy == REFSIM_PS; }
static int sproc(struct S *s, int i);

/* docs/sim.md, "Machine files": "a created thread is remote when its
 * processor differs from its creator's: in bound mode, bound to another
 * processor (a shadow thread always); unbound, when k >= 2, all but a
 * share: of the first n creates, floor(n * unbound_local_ppm / 10^6) are
 * local", so the n-th create is local when that count grows at n.
 * Called once per create. */
static int remote_child(struct S *s, int creator, int child)
{
	if (unbound(s)) {
		if (s->p->cpus < 2)
			return 0;
		uint64_t n = ++s->creates, l = s->p->unbound_local_ppm;
		return n * l / 1000000 == (n - 1) * l / 1000000;
	}
	return sproc(s, creator) != sproc(s, child);
}

/* docs/sim.md, "Machine files": "unbound, with unbound_create,
 * unbound_start and unbound_exit in the file, a remote thread's costs
 * are those instead" of create_cost_remote, start_cost_remote and
 * exit_cost_remote. */
static uint64_t cost_cr(struct S *s)
{
	return unbound(s) && s->p->unbound_costs ? s->p->unbound_create_cost_remote :
	       s->p->create_cost_remote;
}
static uint64_t cost_sr(struct S *s)
{
	return unbound(s) && s->p->unbound_costs ? s->p->unbound_start_cost_remote :
	       s->p->start_cost_remote;
}
static uint64_t cost_xr(struct S *s)
{
	return unbound(s) && s->p->unbound_costs ? s->p->unbound_exit_cost_remote :
	       s->p->exit_cost_remote;
}

/* The work a record of thread i costs it: its work, plus the creation
 * cost for a create ("CPU time the creating thread spends, after the
 * create record's work, before the child becomes ready"), and the exit
 * cost for an exit; with the machine model, the remote one for the exit
 * of a remote thread ("exit_remote instead of exit"; thread 1 is local;
 * a remote create's extra is charged after it, see perform). */
static uint64_t rec_work(struct S *s, int i, const struct trace_rec *r)
{
	const struct refsim_params *p = s->p;
	if (r->op == TRACE_CREATE)
		return r->work + p->create_cost;
	if (r->op == TRACE_EXIT)
		return r->work + (p->machine && s->th[i].remote ? cost_xr(s) : p->exit_cost);
	return r->work;
}

/* The processor a bound thread runs on: 0..k-1, or k+i for its shadow
 * processor.  Unbound ps: the pool, processor 0. */
static int sproc(struct S *s, int i)
{
	if (unbound(s))
		return 0;
	int32_t b = s->binding ? s->binding[i] : TRACE_SHADOW;
	return b >= 0 ? b : (int)s->p->cpus + i;
}

/* The thread's processor for the latency rule.  Bound: its processor (a
 * shadow processor differs from every other).  Unbound fifo/rr: the one it
 * runs on or last ran on (reading: a thread that never ran is on a
 * processor of its own; it cannot matter, it runs before it can acquire).
 * Unbound ps: k >= 2 a processor of its own, k = 1 processor 0. */
static long lproc(struct S *s, int i)
{
	if (!unbound(s))
		return sproc(s, i);
	if (is_ps(s))
		return s->p->cpus == 1 ? 0 : -2 - (long)i;
	return s->th[i].lastcpu >= 0 ? s->th[i].lastcpu : -2 - (long)i;
}

static struct stamp stamp_now(struct S *s, int i)
{
	struct stamp st = {1, s->T, lproc(s, i)};
	return st;
}

/* The latency rule: thread i may proceed after a release `st` no earlier
 * than st.time + t when the release came from another processor. */
static uint64_t lat(struct S *s, struct stamp st, int i, uint64_t now, int woken);

/* The latency between processors x and y (docs/sim.md, "Machine
 * files"): "the matrix's entry where both are processors 0..k-1; a
 * shadow processor, the unbound ps pool's threads and a thread that
 * never ran: the uniform latency". */
static uint64_t lat_between(struct S *s, long x, long y)
{
	long k = (long)s->p->cpus;
	if (s->p->lat_matrix && x >= 0 && x < k && y >= 0 && y < k)
		return s->p->lat_matrix[x * k + y];
	return s->t;
}

/* docs/sim.md, "Machine files", the kinds of hand-off: "busy: as many
 * threads running or ready on it (unbound: in the whole pool; under ps
 * those sharing it and those made ready inside a cycle, waiting for its
 * end to join) as it has processors".  Thread i is blocked, so it is
 * none of them. */
/* The threads running on a processor (fifo, rr). */
static long running(struct S *s)
{
	long n = 0;
	for (int c = 0; c < s->nprocs; c++)
		n += s->pr[c].cur >= 0;
	return n;
}

/* ps: the threads other than i ready on processor p (sharing its cycle or
 * waiting for its end), or on any (p < 0: unbound). */
static long ready_others(struct S *s, int i, long p)
{
	long n = 0;
	for (int j = 0; j < s->n; j++)
		if (j != i && s->th[j].st == T_READY && (p < 0 || sproc(s, j) == p))
			n++;
	return n;
}

static int busy_at(struct S *s, int i)
{
	long cap = 1, p = unbound(s) ? -1 : sproc(s, i);
	if (unbound(s))
		cap = (long)s->p->cpus;
	else if (p >= (long)s->p->cpus)
		return 0; /* its shadow processor: nobody else's */
	long cnt;
	if (is_ps(s))
		cnt = ready_others(s, i, p);
	else if (p < 0)
		cnt = running(s) + s->gready.n;
	else
		cnt = (s->pr[p].cur >= 0) + s->pr[p].ready.n;
	return cnt >= cap;
}

/* The spinning wait (docs/sim.md, "Retry loops"), read here on its own:
 * thread i, running, has just released mutex m and gone on to its next
 * record.  polls: that record is `trylock m ok`.  shared_at: i's
 * processor "has more threads ready or running than processors, u
 * included; ps: those waiting for a cycle's end too" (bound: the
 * threads bound to it, a shadow processor never; unbound: all of them
 * against k).  Under fifo and rr, bound, i runs on its processor, so
 * that is anyone in its ready queue; unbound, the threads running
 * and those in the global queue (which may hold one made ready at
 * this instant, not yet dispatched to an idle processor) against k;
 * under ps a ready thread is one sharing the cycle or waiting for its
 * end. */
static int polls(struct S *s, int i, int m)
{
	const struct thr *t = &s->th[i];
	if (t->pos >= s->tr->threads[t->src].nrec)
		return 0;
	const struct trace_rec *n = cur_rec(s, i);
	return n->op == TRACE_TRYLOCK && n->b && (int)n->a == m;
}

static int shared_at(struct S *s, int i)
{
	long p = unbound(s) ? -1 : sproc(s, i);
	if (p >= (long)s->p->cpus)
		return 0; /* its shadow processor: its own */
	if (!is_ps(s))
		return p < 0 ? running(s) + s->gready.n > (long)s->p->cpus : s->pr[p].ready.n > 0;
	return 1 + ready_others(s, i, p) > (p < 0 ? (long)s->p->cpus : 1); /* i and the others */
}

/* woken: thread i was blocked waiting for the release `st` (it happens
 * now); else it asks after it ("a thread that asks after the release
 * pays the transfer", and so does one "released less than sleep after it
 * began to wait"). */
static uint64_t lat(struct S *s, struct stamp st, int i, uint64_t now, int woken)
{
	if (!st.has || st.proc == lproc(s, i))
		return now;
	uint64_t d;
	if (!s->p->lat_kinds)
		d = lat_between(s, st.proc, lproc(s, i));
	else if (!woken || st.time - s->th[i].since < s->p->sleep)
		d = s->p->transfer;
	else
		d = busy_at(s, i) ? s->p->wake_busy : lat_between(s, st.proc, lproc(s, i));
	uint64_t at = st.time + d;
	return at > now ? at : now;
}

/* ---------------------------------------------------------------------
 * Scheduling: ready, leave, dispatch.
 */

static void run_on(struct S *s, int i, int c)
{
	struct proc *pr = &s->pr[c];
	pr->cur = i;
	s->th[i].cpu = c;
	s->th[i].qused = 0;
	if (unbound(s))
		s->th[i].lastcpu = c;
	/* Context switch: each time a processor starts running a different
	 * thread than it ran last; the first thread on a processor and shadow
	 * processors pay nothing. */
	pr->switch_left = (!pr->shadow && pr->last >= 0 && pr->last != i) ? s->p->switch_cost : 0;
	pr->last = i;
}

/* A processor that is idle starts its next ready thread at once. */
static void dispatch(struct S *s)
{
	if (is_ps(s))
		return;
	if (unbound(s)) {
		/* a ready thread runs on the lowest-numbered idle processor */
		for (int c = 0; c < s->nprocs && s->gready.n > 0; c++)
			if (s->pr[c].cur < 0)
				run_on(s, q_pop(&s->gready), c);
		return;
	}
	for (int c = 0; c < s->nprocs; c++)
		if (s->pr[c].cur < 0 && s->pr[c].ready.n > 0)
			run_on(s, q_pop(&s->pr[c].ready), c);
}

/* Thread i becomes ready now: the back of its processor's ready queue
 * (fifo/rr), or joins the sharing: at once at a boundary, else at the end
 * of the cycle (ps). */
static void make_ready(struct S *s, int i)
{
	struct thr *t = &s->th[i];
	t->st = T_READY;
	if (is_ps(s)) {
		struct proc *pr = &s->pr[sproc(s, i)];
		t->member = pr->cycle_end == NONE;
		return;
	}
	struct q *rq = unbound(s) ? &s->gready : &s->pr[sproc(s, i)].ready;
	if (q_push(rq, i))
		s->oom = 1;
}

/* Thread i leaves its processor (blocks, sleeps, exits). */
static void leave(struct S *s, int i)
{
	struct thr *t = &s->th[i];
	if (is_ps(s)) {
		t->member = 0;
		return;
	}
	if (t->cpu >= 0) {
		s->pr[t->cpu].cur = -1;
		t->cpu = -1;
	}
}

/* Go on to the next record (the current one's operation is complete). */
static void advance(struct S *s, int i)
{
	struct thr *t = &s->th[i];
	/* a work queue (docs/models.md): a worker that has just taken the
	 * queue's mutex with a `lock` record goes on after the next of the
	 * workers' `lock M` records in file order */
	const struct trace_rec *r = cur_rec(s, i);
	if (s->p->pool && s->p->pool[i] && r->op == TRACE_LOCK && (int)r->a == s->pool_m &&
	    s->seg_next < s->nseg) {
		t->src = (int)s->seg_thr[s->seg_next];
		t->pos = s->seg_pos[s->seg_next++];
	}
	t->pos++;
	if (t->pos < s->tr->threads[t->src].nrec)
		t->rem = rec_work(s, i, cur_rec(s, i));
}

/* A blocked thread whose operation completed at time now (all grants in):
 * it goes on no earlier than t->proceed. */
static void unblock(struct S *s, int i)
{
	struct thr *t = &s->th[i];
	advance(s, i);
	if (t->proceed > s->T) {
		t->st = T_TIMED;
		t->until = t->proceed;
		t->after = A_READY;
	} else {
		make_ready(s, i);
	}
}

/* A running thread i acquired at once something released at `st`: it
 * goes on now, or waits out the latency (reading, as docs/sim.md: waiting
 * out a latency uses no processor; it is ready again at its end). */
static void acquired_now(struct S *s, int i, struct stamp st)
{
	uint64_t at = lat(s, st, i, s->T, 0);
	advance(s, i);
	if (at > s->T) {
		leave(s, i);
		s->th[i].st = T_TIMED;
		s->th[i].until = at;
		s->th[i].after = A_READY;
	}
}

static void block(struct S *s, int i, int need)
{
	leave(s, i);
	s->th[i].st = T_BLOCKED;
	s->th[i].need = need;
	s->th[i].proceed = s->T;
	s->th[i].since = s->T;
}

/* A blocked thread i receives one grant released at `st`: woken by it
 * (1), or the thing was free when it asked (0). */
static void grant(struct S *s, int i, struct stamp st, int woken)
{
	struct thr *t = &s->th[i];
	uint64_t at = lat(s, st, i, s->T, woken);
	if (at > t->proceed)
		t->proceed = at;
	if (--t->need == 0)
		unblock(s, i);
}

/* ---------------------------------------------------------------------
 * Mutexes.
 */

static void hold(struct S *s, int i, int m)
{
	s->mx[m].holder = i;
	s->th[i].held[s->th[i].nheld++] = m;
}

/* Thread i releases mutex m at now: hand it to the first queued thread. */
static void mutex_release(struct S *s, int i, int m)
{
	struct thr *t = &s->th[i];
	for (int j = 0; j < t->nheld; j++)
		if (t->held[j] == m) {
			memmove(t->held + j, t->held + j + 1, (size_t)(t->nheld - j - 1) * sizeof *t->held);
			t->nheld--;
			break;
		}
	struct mutex *mx = &s->mx[m];
	mx->holder = -1;
	mx->st = stamp_now(s, i);
	if (mx->waiters.n > 0) {
		int w = q_pop(&mx->waiters);
		/* docs/sim.md, "Machine files": "a waiter of a mutex that was
		 * asleep (it waited at least sleep) and whose wake-up takes time
		 * does not own the mutex meanwhile: it stays free, any thread may
		 * take it, and the waiter asks for it again when its wake-up
		 * arrives"; a blocked signaller asking again for its mutexes
		 * keeps the hand-off */
		int op = cur_rec(s, w)->op;
		if (s->p->lat_kinds && s->T - s->th[w].since >= s->p->sleep &&
		    op != TRACE_SIGNAL && op != TRACE_BROADCAST) {
			uint64_t at = lat(s, mx->st, w, s->T, 1);
			if (at > s->T) {
				s->th[w].st = T_TIMED;
				s->th[w].until = at;
				s->th[w].after = A_ASK_MUTEX;
				s->th[w].cw_mutex = m;
				return;
			}
		}
		hold(s, w, m);
		grant(s, w, mx->st, 1);
	}
}

/* A blocked thread i (need already counted) asks for mutex m: takes it if
 * free (one grant now), else queues for it. */
static void mutex_ask_blocked(struct S *s, int i, int m)
{
	struct mutex *mx = &s->mx[m];
	if (mx->holder < 0) {
		hold(s, i, m);
		grant(s, i, mx->st, 0);
	} else if (q_push(&mx->waiters, i)) {
		s->oom = 1;
	}
}

/* A woken cwait thread's wake-up arrives: it asks for its mutex and
 * continues once it holds it. */
static void cwait_arrive(struct S *s, int i)
{
	struct thr *t = &s->th[i];
	int m = t->cw_mutex;
	t->cw_mutex = -1;
	t->st = T_BLOCKED;
	t->need = 1;
	t->proceed = s->T;
	t->since = s->T;
	mutex_ask_blocked(s, i, m);
}

/* Wake a registered cwait thread by a release `st` (a signal). */
static void cwait_wake(struct S *s, int w, struct stamp st)
{
	uint64_t at = lat(s, st, w, s->T, 1);
	if (at > s->T) {
		s->th[w].st = T_TIMED;
		s->th[w].until = at;
		s->th[w].after = A_ASK_MUTEX;
	} else {
		cwait_arrive(s, w);
	}
}

/* ---------------------------------------------------------------------
 * Condition variables.
 */

/* Blocked signallers of C whose N waiters are now registered go on, first
 * come first: each asks again for the mutexes it released, in the order it
 * had taken them, then wakes its N waiters (whose requests for their mutex
 * queue behind it); it continues once it holds all of them, no earlier
 * than the latency after the registration (`reg`) that completed it.
 * (reading, agreed with sim/: it asks for all of them at once, queueing
 * for each one held, before it wakes the waiters; "behind it" holds for
 * every one of its mutexes.) */
static void cond_check(struct S *s, int c, struct stamp reg)
{
	struct cond *cv = &s->cv[c];
	while (cv->signallers.n > 0) {
		int g = cv->signallers.v[0];
		struct thr *t = &s->th[g];
		if (cv->registered.n < t->sig_n)
			return;
		q_pop(&cv->signallers);
		t->need = 1 + t->ask_list_n; /* the registration, the mutexes */
		t->proceed = s->T;
		/* it waits for its mutexes from now; for the registration since
		 * it blocked in its signal */
		uint64_t blocked_at = t->since;
		t->since = s->T;
		int n = t->ask_list_n;
		t->ask_list_n = 0;
		for (int j = 0; j < n; j++)
			mutex_ask_blocked(s, g, t->ask_list[j]);
		/* then wakes the N waiters; it continues (the registration is
		 * its last grant) once it holds all its mutexes: after the
		 * waiters in the ready queue when it holds them at once */
		struct stamp st = {1, s->T, lproc(s, g)};
		for (int j = 0; j < t->sig_n; j++)
			cwait_wake(s, q_pop(&cv->registered), st);
		uint64_t asked_at = t->since;
		t->since = blocked_at;
		grant(s, g, reg, 1);
		t->since = asked_at;
	}
}

/* ---------------------------------------------------------------------
 * Read-write locks: writers exclusive, readers shared, FIFO between
 * waiters (reading: a reader does not pass a queued writer).
 */

static void rw_grant_queue(struct S *s, int r)
{
	struct rwl *rw = &s->rw[r];
	while (rw->waiters.n > 0) {
		int w = rw->waiters.v[0];
		if (s->want_write[w]) {
			if (rw->writer >= 0 || rw->readers > 0)
				return;
			q_pop(&rw->waiters);
			rw->writer = w;
			/* reading: a writer waits for the last release of any
			 * kind */
			grant(s, w, rw->anyst, 1);
			return;
		}
		if (rw->writer >= 0)
			return;
		q_pop(&rw->waiters);
		rw->readers++;
		/* A read lock waits only for the last release that excluded
		 * readers (a writer's). */
		grant(s, w, rw->wst, rw->wst.has && rw->wst.time == s->T);
	}
}

/* ---------------------------------------------------------------------
 * One step of thread i at T: perform the operation of its current record.
 */

static void perform(struct S *s, int i)
{
	struct thr *t = &s->th[i];
	const struct trace_rec *r = cur_rec(s, i);
	s->steps++;
	switch (r->op) {
	case TRACE_CREATE: {
		/* the new thread is ready at that instant, on its processor,
		 * with no latency; with the machine model a remote thread "becomes
		 * ready no earlier than the create plus the latency from the
		 * creator's processor to its own" */
		struct thr *c = &s->th[r->a];
		c->pos = 0;
		c->remote = s->p->machine && remote_child(s, i, (int)r->a);
		c->rem = rec_work(s, (int)r->a, cur_rec(s, (int)r->a));
		/* "a remote thread spends start_cost_remote of CPU time at its
		 * start, before its first record's work"; its creator "spends
		 * create_cost_remote less create_cost (if more) right after
		 * the create, before its next record's work", and it "becomes
		 * ready no earlier than the create plus that plus the latency
		 * from the creator's processor to its own" */
		uint64_t extra = 0;
		if (c->remote) {
			c->rem += cost_sr(s);
			if (cost_cr(s) > s->p->create_cost)
				extra = cost_cr(s) - s->p->create_cost;
		}
		/* docs/sim.md, "A process on two CPUs: the per-thread cost":
		 * "bound, once a create of a thread bound to another processor
		 * than its creator's has happened, every later create of a
		 * thread on the creator's own processor costs the creator
		 * spread_create more, right after the create, before its next
		 * record's work", but "not the run's first spread_cached
		 * creates (counted over all creates)" */
		if (s->p->machine && !unbound(s)) {
			s->ncreated++;
			if (c->remote)
				s->spread = 1;
			else if (s->spread && s->ncreated > s->p->spread_cached)
				extra += s->p->spread_create;
		}
		/* "bound, the creator of a remote thread waits
		 * create_wait_remote off its processor right after the
		 * create, before that excess; the thread becomes ready no
		 * earlier than the create plus the wait, the excess and the
		 * latency" */
		uint64_t wait = c->remote && !unbound(s) ? s->p->create_wait_remote : 0;
		uint64_t at = c->remote ? s->T + wait + extra +
		                          lat_between(s, lproc(s, i), lproc(s, (int)r->a)) : s->T;
		if (at > s->T) {
			c->st = T_TIMED;
			c->until = at;
			c->after = A_READY;
		} else {
			make_ready(s, (int)r->a);
		}
		advance(s, i);
		t->rem += extra;
		if (wait) {
			leave(s, i);
			t->st = T_TIMED;
			t->until = s->T + wait;
			t->after = A_READY;
		}
		break;
	}
	case TRACE_EXIT: {
		/* leaves its processor before the releases take effect */
		leave(s, i);
		t->st = T_DONE;
		t->pos++;
		t->exitst = stamp_now(s, i);
		if (s->T > s->makespan)
			s->makespan = s->T;
		while (s->joiners[i].n > 0) {
			int j = q_pop(&s->joiners[i]);
			grant(s, j, t->exitst, 1);
		}
		break;
	}
	case TRACE_JOIN: {
		struct thr *o = &s->th[r->a];
		if (o->st == T_DONE) {
			acquired_now(s, i, o->exitst);
		} else {
			block(s, i, 1);
			if (q_push(&s->joiners[r->a], i))
				s->oom = 1;
		}
		break;
	}
	case TRACE_TRYLOCK:
		if (!r->b) { /* busy: does nothing */
			advance(s, i);
			break;
		}
		/* ok behaves as lock */
		/* fall through */
	case TRACE_LOCK: {
		struct mutex *mx = &s->mx[r->a];
		if (mx->holder < 0) {
			hold(s, i, (int)r->a);
			acquired_now(s, i, mx->st);
		} else {
			block(s, i, 1);
			if (q_push(&mx->waiters, i))
				s->oom = 1;
		}
		break;
	}
	case TRACE_UNLOCK:
		mutex_release(s, i, (int)r->a);
		advance(s, i);
		if (s->p->spin && polls(s, i, (int)r->a) && shared_at(s, i) &&
		    s->th[i].rem < s->p->spin)
			s->th[i].rem = s->p->spin;
		break;
	case TRACE_TRYWAIT:
		if (!r->b) {
			advance(s, i);
			break;
		}
		/* fall through */
	case TRACE_WAIT: {
		struct sem *sm = &s->sm[r->a];
		if (sm->ntok > 0) {
			/* reading: tokens are taken oldest first */
			struct stamp st = sm->tok[sm->head++];
			sm->ntok--;
			acquired_now(s, i, st);
		} else {
			block(s, i, 1);
			if (q_push(&sm->waiters, i))
				s->oom = 1;
		}
		break;
	}
	case TRACE_POST: {
		struct sem *sm = &s->sm[r->a];
		struct stamp st = stamp_now(s, i);
		advance(s, i);
		if (sm->waiters.n > 0) {
			grant(s, q_pop(&sm->waiters), st, 1);
		} else {
			if (sm->head + sm->ntok == sm->cap) {
				size_t cap = sm->cap ? 2 * sm->cap : 8;
				struct stamp *v = realloc(sm->tok, cap * sizeof *v);
				if (!v) {
					s->oom = 1;
					break;
				}
				sm->tok = v;
				sm->cap = cap;
			}
			sm->tok[sm->head + sm->ntok++] = st;
		}
		break;
	}
	case TRACE_CWAIT: {
		/* releases M and blocks on C; leaves its processor before the
		 * releases take effect; the registration may complete a blocked
		 * signaller (a release for the latency rule) */
		int c = (int)r->a, m = (int)r->b;
		block(s, i, 0);
		t->cw_mutex = m; /* it goes on when it holds M again */
		mutex_release(s, i, m);
		if (q_push(&s->cv[c].registered, i))
			s->oom = 1;
		cond_check(s, c, stamp_now(s, i));
		break;
	}
	case TRACE_SIGNAL:
	case TRACE_BROADCAST: {
		int c = (int)r->a, n = (int)r->b;
		struct cond *cv = &s->cv[c];
		if (n == 0) {
			advance(s, i);
			break;
		}
		if (cv->signallers.n == 0 && cv->registered.n >= n) {
			struct stamp st = stamp_now(s, i);
			for (int j = 0; j < n; j++)
				cwait_wake(s, q_pop(&cv->registered), st);
			advance(s, i);
			break;
		}
		/* Fewer than N waiting: block until N are, releasing the
		 * mutexes it holds (reading: behind any signaller of C already
		 * blocked, first come first). */
		block(s, i, 0);
		t->sig_n = n;
		t->ask_list_n = t->nheld;
		memcpy(t->ask_list, t->held, (size_t)t->nheld * sizeof *t->held);
		if (q_push(&cv->signallers, i))
			s->oom = 1;
		while (t->nheld > 0)
			mutex_release(s, i, t->held[0]);
		break;
	}
	case TRACE_BARRIER: {
		struct barrier *b = &s->ba[r->a];
		if ((uint32_t)b->arrived.n + 1 >= r->b) {
			struct stamp st = stamp_now(s, i);
			advance(s, i);
			while (b->arrived.n > 0)
				grant(s, q_pop(&b->arrived), st, 1);
		} else {
			block(s, i, 1);
			if (q_push(&b->arrived, i))
				s->oom = 1;
		}
		break;
	}
	case TRACE_RDLOCK: {
		struct rwl *rw = &s->rw[r->a];
		if (rw->writer < 0 && rw->waiters.n == 0) {
			rw->readers++;
			acquired_now(s, i, rw->wst);
		} else {
			block(s, i, 1);
			s->want_write[i] = 0;
			if (q_push(&rw->waiters, i))
				s->oom = 1;
		}
		break;
	}
	case TRACE_WRLOCK: {
		struct rwl *rw = &s->rw[r->a];
		if (rw->writer < 0 && rw->readers == 0 && rw->waiters.n == 0) {
			rw->writer = i;
			acquired_now(s, i, rw->anyst);
		} else {
			block(s, i, 1);
			s->want_write[i] = 1;
			if (q_push(&rw->waiters, i))
				s->oom = 1;
		}
		break;
	}
	case TRACE_RWUNLOCK: {
		struct rwl *rw = &s->rw[r->a];
		struct stamp st = stamp_now(s, i);
		if (rw->writer == i) {
			rw->writer = -1;
			rw->wst = st;
		} else {
			rw->readers--;
		}
		rw->anyst = st;
		advance(s, i);
		rw_grant_queue(s, (int)r->a);
		break;
	}
	case TRACE_SLEEP: {
		uint64_t d = trace_sleep_time(r);
		leave(s, i);
		advance(s, i);
		if (d == 0) {
			/* a yield: ready again at once, at the back of its queue
			 * (reading: unbound fifo/rr, it then runs on the lowest
			 * numbered idle processor, like any ready thread) */
			make_ready(s, i);
		} else {
			t->st = T_TIMED;
			t->until = s->T + d;
			t->after = A_READY;
		}
		break;
	}
	default:
		s->oom = 1; /* cannot happen on a valid trace */
		break;
	}
}

/* Does thread i have something to do at T? */
static int has_step(struct S *s, int i)
{
	struct thr *t = &s->th[i];
	if (t->st == T_TIMED)
		return t->until == s->T;
	if (t->st != T_READY || t->rem != 0)
		return 0;
	if (is_ps(s))
		return t->member;
	return t->cpu >= 0 && s->pr[t->cpu].switch_left == 0;
}

static void step(struct S *s, int i)
{
	struct thr *t = &s->th[i];
	if (t->st == T_TIMED) {
		if (t->after == A_ASK_MUTEX)
			cwait_arrive(s, i);
		else
			make_ready(s, i);
	} else {
		perform(s, i);
	}
	dispatch(s);
}

static int run_steps(struct S *s)
{
	for (;;) {
		int i;
		for (i = 0; i < s->n; i++)
			if (has_step(s, i))
				break;
		if (i == s->n)
			return 0;
		step(s, i);
		if (s->oom || s->steps > 10000000)
			return -1;
	}
}

/* ---------------------------------------------------------------------
 * ps cycles.  A processor with m ready threads serves them in cycles of m
 * time units, one unit of work each.  The unbound pool: m <= k, every
 * thread one unit per unit of time (cycles of 1); m > k, cycles giving
 * each min(k, need) units, "with no capacity lost when a thread needs
 * fewer than k in its last cycle" (reading, agreed with sim/ and in
 * docs/sim.md: the cycle lasts max(largest grant, ceil(sum of grants /
 * k)) units, which is m when every thread needs k or more).
 */

static void ps_cycle_end(struct S *s)
{
	for (int c = 0; c < s->nprocs; c++) {
		struct proc *pr = &s->pr[c];
		if (pr->cycle_end != s->T)
			continue;
		pr->cycle_end = NONE;
		for (int i = 0; i < s->n; i++) {
			struct thr *t = &s->th[i];
			if (t->st != T_READY || sproc(s, i) != c)
				continue;
			if (t->member)
				t->rem -= pr->grant[i];
			else
				t->member = 1; /* joins at the end of the cycle */
		}
	}
}

static void ps_cycle_start(struct S *s)
{
	uint64_t k = s->p->cpus;
	for (int c = 0; c < s->nprocs; c++) {
		struct proc *pr = &s->pr[c];
		if (pr->cycle_end != NONE)
			continue;
		uint64_t m = 0, sum = 0, big = 0;
		for (int i = 0; i < s->n; i++)
			if (s->th[i].st == T_READY && s->th[i].member && sproc(s, i) == c)
				m++;
		if (m == 0)
			continue;
		uint64_t each = unbound(s) && m > k ? k : 1;
		for (int i = 0; i < s->n; i++) {
			struct thr *t = &s->th[i];
			pr->grant[i] = 0;
			if (t->st != T_READY || !t->member || sproc(s, i) != c)
				continue;
			uint64_t g = t->rem < each ? t->rem : each;
			pr->grant[i] = g;
			sum += g;
			if (g > big)
				big = g;
		}
		uint64_t len;
		if (!unbound(s))
			len = m;
		else if (m <= k)
			len = 1;
		else {
			len = (sum + k - 1) / k;
			if (len < big)
				len = big;
		}
		pr->cycle_end = s->T + len;
	}
}

/* ---------------------------------------------------------------------
 * Round robin: a thread that used Q units without blocking goes to the
 * back of the ready queue (reading: with no other thread ready it keeps
 * running, on a new quantum).
 */
static int rr_expiries(struct S *s)
{
	for (int i = 0; i < s->n; i++) {
		struct thr *t = &s->th[i];
		if (t->st != T_READY || t->cpu < 0 || t->qused < s->p->quantum)
			continue;
		struct q *rq = unbound(s) ? &s->gready : &s->pr[t->cpu].ready;
		if (rq->n == 0) {
			t->qused = 0;
			continue;
		}
		leave(s, i);
		make_ready(s, i);
		dispatch(s);
		if (run_steps(s))
			return -1;
	}
	return 0;
}

/* The next instant something happens, or NONE. */
static uint64_t next_event(struct S *s)
{
	uint64_t nx = NONE;
#define AT(x) do { uint64_t x_ = (x); if (x_ < nx) nx = x_; } while (0)
	for (int i = 0; i < s->n; i++) {
		struct thr *t = &s->th[i];
		if (t->st == T_TIMED)
			AT(t->until);
		if (!is_ps(s) && t->st == T_READY && t->cpu >= 0) {
			struct proc *pr = &s->pr[t->cpu];
			if (pr->switch_left > 0) {
				AT(s->T + pr->switch_left);
			} else {
				AT(s->T + t->rem);
				if (s->p->policy == REFSIM_RR)
					AT(s->T + (s->p->quantum - t->qused));
			}
		}
	}
	if (is_ps(s))
		for (int c = 0; c < s->nprocs; c++)
			if (s->pr[c].cycle_end != NONE)
				AT(s->pr[c].cycle_end);
#undef AT
	return nx;
}

static void progress(struct S *s, uint64_t d)
{
	if (is_ps(s))
		return;
	for (int c = 0; c < s->nprocs; c++) {
		struct proc *pr = &s->pr[c];
		if (pr->cur < 0)
			continue;
		if (pr->switch_left > 0) {
			pr->switch_left -= d; /* d <= switch_left by next_event */
			continue;
		}
		s->th[pr->cur].rem -= d;
		s->th[pr->cur].qused += d;
	}
}

static int simulate(struct S *s)
{
	s->T = 0;
	struct thr *t1 = &s->th[s->tr->initial];
	t1->pos = 0;
	t1->rem = rec_work(s, (int)s->tr->initial, cur_rec(s, (int)s->tr->initial));
	make_ready(s, (int)s->tr->initial);
	dispatch(s);
	for (;;) {
		if (is_ps(s))
			ps_cycle_end(s);
		if (run_steps(s))
			return REFSIM_ERROR;
		if (s->p->policy == REFSIM_RR && rr_expiries(s))
			return REFSIM_ERROR;
		if (is_ps(s))
			ps_cycle_start(s);
		int alive = 0;
		for (int i = 0; i < s->n; i++)
			alive += s->th[i].st != T_DONE && s->th[i].st != T_NEW;
		if (!alive)
			return REFSIM_OK;
		uint64_t nx = next_event(s);
		if (nx == NONE) {
			s->makespan = s->T;
			return REFSIM_DEADLOCK;
		}
		progress(s, nx - s->T);
		s->T = nx;
	}
}

static void release(struct S *s)
{
	if (s->th)
		for (int i = 0; i < s->n; i++) {
			free(s->th[i].held);
			free(s->th[i].ask_list);
		}
	if (s->pr)
		for (int c = 0; c < s->nprocs; c++) {
			free(s->pr[c].ready.v);
			free(s->pr[c].grant);
		}
	if (s->joiners)
		for (int i = 0; i < s->n; i++)
			free(s->joiners[i].v);
	const struct trace *tr = s->tr;
	if (s->mx)
		for (uint32_t j = 0; j < tr->nobj[TRACE_K_MUTEX]; j++)
			free(s->mx[j].waiters.v);
	if (s->sm)
		for (uint32_t j = 0; j < tr->nobj[TRACE_K_SEM]; j++) {
			free(s->sm[j].waiters.v);
			free(s->sm[j].tok);
		}
	if (s->cv)
		for (uint32_t j = 0; j < tr->nobj[TRACE_K_COND]; j++) {
			free(s->cv[j].registered.v);
			free(s->cv[j].signallers.v);
		}
	if (s->ba)
		for (uint32_t j = 0; j < tr->nobj[TRACE_K_BARRIER]; j++)
			free(s->ba[j].arrived.v);
	if (s->rw)
		for (uint32_t j = 0; j < tr->nobj[TRACE_K_RWLOCK]; j++)
			free(s->rw[j].waiters.v);
	free(s->gready.v);
	free(s->th);
	free(s->pr);
	free(s->joiners);
	free(s->mx);
	free(s->sm);
	free(s->cv);
	free(s->ba);
	free(s->rw);
	free(s->want_write);
	free(s->seg_thr);
	free(s->seg_pos);
}

/* The work queue of s->p->pool, read from the contract: the mutex each
 * worker locks first (the same for all, else an error) and every
 * worker's `lock M` record, ordered by line (the file's order).
 * Selection sort: the reference stays obvious, traces here are small. */
static int pool_setup(struct S *s)
{
	const struct trace *tr = s->tr;
	s->pool_m = -1;
	uint32_t total = 0;
	for (int i = 0; i < s->n; i++) {
		if (!s->p->pool[i])
			continue;
		const struct trace_rec *rec = tr->rec + tr->threads[i].first;
		int first = -1;
		for (uint32_t j = 0; j < tr->threads[i].nrec; j++) {
			if (rec[j].op == TRACE_LOCK) {
				first = (int)rec[j].a;
				break;
			}
		}
		if (first < 0 || (s->pool_m >= 0 && first != s->pool_m))
			return -1;
		s->pool_m = first;
		total += tr->threads[i].nrec;
	}
	s->seg_thr = calloc(total + 1, sizeof *s->seg_thr);
	s->seg_pos = calloc(total + 1, sizeof *s->seg_pos);
	if (!s->seg_thr || !s->seg_pos)
		return -1;
	for (int i = 0; i < s->n; i++) {
		if (!s->p->pool[i])
			continue;
		const struct trace_rec *rec = tr->rec + tr->threads[i].first;
		for (uint32_t j = 0; j < tr->threads[i].nrec; j++) {
			if (rec[j].op == TRACE_LOCK && (int)rec[j].a == s->pool_m) {
				s->seg_thr[s->nseg] = (uint32_t)i;
				s->seg_pos[s->nseg++] = j;
			}
		}
	}
	for (uint32_t a = 0; a < s->nseg; a++) {
		uint32_t best = a;
		for (uint32_t b = a + 1; b < s->nseg; b++)
			if (tr->rec[tr->threads[s->seg_thr[b]].first + s->seg_pos[b]].line <
			    tr->rec[tr->threads[s->seg_thr[best]].first + s->seg_pos[best]].line)
				best = b;
		uint32_t x = s->seg_thr[a], y = s->seg_pos[a];
		s->seg_thr[a] = s->seg_thr[best];
		s->seg_pos[a] = s->seg_pos[best];
		s->seg_thr[best] = x;
		s->seg_pos[best] = y;
	}
	return 0;
}

int refsim_run(const struct trace *tr, const struct refsim_params *p,
               const int32_t *binding, uint64_t *makespan)
{
	*makespan = 0;
	if (!tr || !p || p->cpus < 1 || p->cpus > 4096 || (p->policy == REFSIM_RR && p->quantum < 1))
		return REFSIM_ERROR;
	struct S s;
	memset(&s, 0, sizeof s);
	s.tr = tr;
	s.p = p;
	s.binding = p->unbound ? NULL : binding;
	s.t = p->latency;
	s.n = (int)tr->nthreads;
	if (!p->unbound && binding)
		for (int i = 0; i < s.n; i++)
			if (binding[i] != TRACE_SHADOW && (binding[i] < 0 || (uint32_t)binding[i] >= p->cpus))
				return REFSIM_ERROR;
	/* processors: bound k + one shadow per thread; unbound fifo/rr k;
	 * unbound ps the pool */
	s.nprocs = p->unbound ? (p->policy == REFSIM_PS ? 1 : (int)p->cpus) : (int)p->cpus + s.n;
	uint32_t nm = tr->nobj[TRACE_K_MUTEX];
	s.th = calloc((size_t)s.n, sizeof *s.th);
	s.pr = calloc((size_t)s.nprocs, sizeof *s.pr);
	s.joiners = calloc((size_t)s.n, sizeof *s.joiners);
	s.mx = calloc(nm + 1, sizeof *s.mx);
	s.sm = calloc(tr->nobj[TRACE_K_SEM] + 1, sizeof *s.sm);
	s.cv = calloc(tr->nobj[TRACE_K_COND] + 1, sizeof *s.cv);
	s.ba = calloc(tr->nobj[TRACE_K_BARRIER] + 1, sizeof *s.ba);
	s.rw = calloc(tr->nobj[TRACE_K_RWLOCK] + 1, sizeof *s.rw);
	s.want_write = calloc((size_t)s.n, sizeof *s.want_write);
	int rc = REFSIM_ERROR;
	if (!s.th || !s.pr || !s.joiners || !s.mx || !s.sm || !s.cv || !s.ba || !s.rw || !s.want_write)
		goto out;
	if (p->pool && pool_setup(&s) != 0)
		goto out;
	for (int i = 0; i < s.n; i++) {
		struct thr *t = &s.th[i];
		t->src = i;
		t->st = T_NEW;
		t->cpu = -1;
		t->lastcpu = -1;
		t->cw_mutex = -1;
		t->held = calloc(nm + 1, sizeof *t->held);
		t->ask_list = calloc(nm + 1, sizeof *t->ask_list);
		if (!t->held || !t->ask_list)
			goto out;
	}
	for (int c = 0; c < s.nprocs; c++) {
		s.pr[c].cur = -1;
		s.pr[c].last = -1;
		s.pr[c].shadow = !p->unbound && c >= (int)p->cpus;
		s.pr[c].cycle_end = NONE;
		s.pr[c].grant = calloc((size_t)s.n, sizeof *s.pr[c].grant);
		if (!s.pr[c].grant)
			goto out;
	}
	for (uint32_t j = 0; j < nm; j++)
		s.mx[j].holder = -1;
	for (uint32_t j = 0; j < tr->nobj[TRACE_K_RWLOCK]; j++)
		s.rw[j].writer = -1;
	for (uint32_t j = 0; j < tr->nobj[TRACE_K_SEM]; j++) {
		struct sem *sm = &s.sm[j];
		sm->cap = tr->sem_init[j] + 8;
		sm->tok = calloc(sm->cap, sizeof *sm->tok);
		if (!sm->tok)
			goto out;
		sm->ntok = tr->sem_init[j]; /* initial tokens carry no stamp */
	}
	rc = simulate(&s);
	if (rc == REFSIM_ERROR)
		*makespan = 0;
	else
		*makespan = s.makespan;
out:
	release(&s);
	return rc;
}
