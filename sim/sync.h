/*
 * sync.h - the synchronization objects of the Direct model
 * (docs/simulation.md): mutexes (with the mutexes a thread holds),
 * condition variables, read-write locks, and what an acquisition by the
 * running thread does.  Semaphores, barriers and joins are simple enough
 * to live in the step (direct.h).  Part of the hot loop: included by each
 * policy's file (see simint.h).
 *
 * An acquisition is decided when the thread asks, or for a blocked thread
 * at the release that satisfies it, in FIFO order among waiters; a
 * thread that still has to wait out a latency already owns what it
 * acquired.  Every release remembers its time and processor (smutex.rel,
 * srw.rel and srw.wrel, stok) for the latency rule.
 *
 * Condition variables: a woken cwait waiter asks for its mutex when its
 * wake-up arrives (after the latency: BK_CWAIT_WAKE, a timer); a
 * signaller that found too few waiters blocks releasing its mutexes, and
 * when enough have registered it asks again for them (in the order it
 * had taken them) before its wake-ups ask for theirs; it proceeds no
 * earlier than t after the last registration if that came from another
 * processor.
 */
#ifndef SHADOWBIND_SIM_SYNC_H
#define SHADOWBIND_SIM_SYNC_H

#include "sim/thread.h"

/* ------------------------------------------------------------------ */
/* Mutexes */

/* The mutexes each thread holds, in the order it took them, are only
 * read by a blocked signaller: kept only when the program has a signal
 * or broadcast (w->held_on). */
static inline void held_push(struct sim_work *w, uint32_t u, uint32_t m)
{
	struct sth *t = &w->th[u];
	if (w->held_on && t->nheld < w->p->maxheld[u])
		w->held[t->hbase + t->nheld++] = m;
}

static inline void held_remove(struct sim_work *w, uint32_t u, uint32_t m)
{
	if (!w->held_on)
		return;
	struct sth *t = &w->th[u];
	uint32_t *h = w->held + t->hbase;
	for (uint32_t i = t->nheld; i-- > 0;) {
		if (h[i] == m) {
			for (uint32_t j = i + 1; j < t->nheld; j++)
				h[j - 1] = h[j];
			t->nheld--;
			return;
		}
	}
}

/*
 * A mutex's queue holds waiter ids: a thread u < n (lock, a woken cwait),
 * linked through th[u].qnext; or n + i for slot i of the held array, a
 * blocked signaller asking again for the mutex it had taken i-th, linked
 * through hlink[i] (a signaller queues on several mutexes at once).
 */
static inline void mq_push(struct sim_work *w, struct smutex *mx, uint32_t id)
{
	uint32_t n = w->p->n;
	uint32_t *link = id < n ? &w->th[id].qnext : &w->hlink[id - n];
	*link = NIL;
	if (mx->qh == NIL)
		mx->qh = id;
	else if (mx->qt < n)
		w->th[mx->qt].qnext = id;
	else
		w->hlink[mx->qt - n] = id;
	mx->qt = id;
}

static inline uint32_t mq_pop(struct sim_work *w, struct smutex *mx)
{
	uint32_t id = mx->qh, n = w->p->n;
	if (id != NIL) {
		mx->qh = id < n ? w->th[id].qnext : w->hlink[id - n];
		if (mx->qh == NIL)
			mx->qt = NIL;
	}
	return id;
}

/* A work queue (sim_params.pool; callers test that w->pool is set): if
 * worker u acquires the queue's mutex with its current record r, a
 * `lock`, it goes on after the next segment's `lock M` record instead of
 * its own (sim.h, "Work queues"). */
static inline void pool_take(struct sim_work *w, uint32_t u, const struct trace_rec *r)
{
	const struct sim_pool *pl = w->pool;
	if (r->op == TRACE_LOCK && r->a == pl->m && pl->member[u] &&
	    w->pool_next < pl->nseg)
		w->th[u].cur = pl->seg[w->pool_next++];
}

/* v was handed mutex m at T (it was queued: lock, a woken cwait). */
static void mutex_granted(struct sim_work *w, uint32_t v, uint32_t m, stime T)
{
	struct sth *t = &w->th[v];
	if (w->flags & SIM_SCHEDULE)
		sim_sy_add(w, v, t->cur, T, w->cur_releaser);
	held_push(w, v, m);
	if (w->pool)
		pool_take(w, v, cur_rec(w, v));
	proceed(w, v, T);
}

/* Signaller s, asking again for its mutexes, got one at T: it goes on
 * when it holds all of them. */
static void sig_granted(struct sim_work *w, uint32_t s, stime T)
{
	struct sth *t = &w->th[s];
	if (w->flags & SIM_SCHEDULE)
		sim_sy_add(w, s, t->cur, T, w->cur_releaser);
	if (--t->reacq) {
		/* report one it still waits for */
		for (uint32_t i = 0; i < t->nheld; i++)
			if (w->mx[w->held[t->hbase + i]].owner != (int32_t)s)
				t->wobj = w->held[t->hbase + i];
		return;
	}
	proceed(w, s, T);
}

/* Under the kinds of hand-off (docs/sim.md, "Machine files"): waiter v
 * of mutex m, popped by an unlock at T on x, was asleep (it waited at
 * least `sleep`): the mutex stays free, any thread may take it, and v
 * asks for it again when its wake-up arrives.  Returns 1 so, 0 when the
 * wake-up costs nothing (the contract's hand-off then). */
static int mutex_wake_free(struct sim_work *w, uint32_t v, uint32_t m, stime T, int32_t x)
{
	struct sth *t = &w->th[v];
	if (!lat_applies(w, x, v) || T - t->wsince < w->par->sleep)
		return 0;
	const uint64_t *o = w->par->obj_latency[TRACE_K_MUTEX];
	stime at = T + (o ? o[m] : lat_wake(w, v, x, t->lproc, T, t->wsince));
	if (at <= T)
		return 0;
	struct smutex *mx = &w->mx[m];
	mx->owner = -1;
	mx->rel = T;
	mx->rel_proc = x;
	t->bk = BK_LOCK_WAKE;
	t->wobj = m;
	t->state = ST_TIMER;
	heap_set(w, v, at, 0, v);
	return 1;
}

/* Release mutex m at T by a thread on processor x. */
static void mutex_release(struct sim_work *w, uint32_t m, stime T, int32_t x)
{
	struct smutex *mx = &w->mx[m];
	uint32_t v = mq_pop(w, mx);
	if (v == NIL) {
		mx->owner = -1;
		mx->rel = T;
		mx->rel_proc = x;
		return;
	}
	if (w->lkinds && v < w->p->n && mutex_wake_free(w, v, m, T, x))
		return;
	if (v >= w->p->n) { /* a signaller's held slot */
		uint32_t s = w->hthr[v - w->p->n];
		mx->owner = (int32_t)s;
		nb_wake(w, s, T, x, TRACE_K_MUTEX, m);
		sig_granted(w, s, T);
		return;
	}
	mx->owner = (int32_t)v;
	nb_wake(w, v, T, x, TRACE_K_MUTEX, m);
	mutex_granted(w, v, m, T);
}

/* u asks for m at T while off its processor (woken waiter, signaller),
 * queueing as waiter id `id` (u, or a signaller's held slot).  Returns 1
 * if it got it now. */
static int mutex_request(struct sim_work *w, uint32_t u, uint32_t id, uint32_t m, stime T)
{
	struct smutex *mx = &w->mx[m];
	/* (under the kinds of hand-off a free mutex may have waiters) */
	if (mx->owner < 0 && (mx->qh == NIL || w->lkinds)) {
		mx->owner = (int32_t)u;
		if (before_latency_end(w, T, mx->rel, TRACE_K_MUTEX, m))
			nb_after(w, u, mx->rel, mx->rel_proc, TRACE_K_MUTEX, m);
		return 1;
	}
	mq_push(w, mx, id);
	return 0;
}

/* Signaller s asks again, at T, for all the mutexes it released, in the
 * order it had taken them: it takes the free ones and queues on the
 * others at once.  Returns how many it still waits for (th.reacq). */
static uint32_t sig_reacquire(struct sim_work *w, uint32_t s, stime T)
{
	struct sth *t = &w->th[s];
	uint32_t missing = 0;
	t->wsince = T;
	for (uint32_t i = 0; i < t->nheld; i++) {
		uint32_t m = w->held[t->hbase + i];
		if (!mutex_request(w, s, w->p->n + t->hbase + i, m, T)) {
			if (!missing)
				t->wobj = m;
			missing++;
		}
	}
	t->reacq = missing;
	return missing;
}

/* ------------------------------------------------------------------ */
/* Condition variables */

/* v, woken from cwait, asks for its mutex (wobj) at T. */
static void cwait_reacquire(struct sim_work *w, uint32_t v, stime T)
{
	struct sth *t = &w->th[v];
	uint32_t m = t->wobj;
	t->state = ST_BLOCK;
	t->bk = BK_CWAIT_REACQ;
	t->wsince = T;
	if (mutex_request(w, v, v, m, T)) {
		held_push(w, v, m);
		proceed(w, v, T);
	}
}

/* Wake the first n registered waiters of c at T, released from x. */
static void cond_wake(struct sim_work *w, uint32_t c, uint32_t n, stime T,
                      int32_t x)
{
	struct scond *cv = &w->cv[c];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = q_pop(w, &cv->wh, &cv->wt);
		cv->nw--;
		struct sth *t = &w->th[v];
		nb_wake(w, v, T, x, TRACE_K_COND, c);
		if (w->flags & SIM_SCHEDULE)
			sim_sy_add(w, v, t->cur, T, w->cur_releaser);
		uint32_t m = cur_rec(w, v)->b;
		t->wobj = m;
		if (t->nb > T) { /* the wake-up arrives at nb: ask then */
			t->bk = BK_CWAIT_WAKE;
			t->state = ST_TIMER;
			heap_set(w, v, t->nb, 0, v);
			continue;
		}
		cwait_reacquire(w, v, T);
	}
}

/* The wake-up of v, a waiter of mutex wobj woken by an unlock that left
 * it free (mutex_wake_free), arrived at T: it asks for it again. */
static void lock_arrive(struct sim_work *w, uint32_t v, stime T)
{
	struct sth *t = &w->th[v];
	uint32_t m = t->wobj;
	t->nb = 0;
	t->state = ST_BLOCK;
	t->bk = BK_LOCK;
	t->wsince = T;
	if (mutex_request(w, v, v, m, T))
		mutex_granted(w, v, m, T);
}

/* The wake-up of v (woken from a cwait) arrived at T (the timer of
 * BK_CWAIT_WAKE fired): v asks for its mutex now. */
static void cwait_arrive(struct sim_work *w, uint32_t v, stime T)
{
	w->th[v].nb = 0;
	cwait_reacquire(w, v, T);
}

/* Serve blocked signallers of c that now have enough waiters; the last
 * waiter registered from processor x at T. */
static void cond_serve(struct sim_work *w, uint32_t c, stime T, int32_t x)
{
	struct scond *cv = &w->cv[c];
	while (cv->sh != NIL) {
		uint32_t s = cv->sh;
		uint32_t need = cur_rec(w, s)->b;
		if (cv->nw < need)
			return;
		q_pop(w, &cv->sh, &cv->stl);
		struct sth *t = &w->th[s];
		if (w->flags & SIM_SCHEDULE)
			sim_sy_add(w, s, t->cur, T, w->cur_releaser);
		t->bk = BK_SIG_REACQ;
		/* it asks for its mutexes, then wakes the waiters from the
		 * processor it blocked on (their requests queue behind its
		 * own), then goes on if it holds them all */
		int32_t saved = w->cur_releaser, xs = t->lproc;
		stime since = t->wsince;
		w->cur_releaser = (int32_t)s;
		uint32_t missing = sig_reacquire(w, s, T);
		cond_wake(w, c, need, T, xs);
		/* the registration woke it: after its waiters (whether its
		 * processor is busy counts them, docs/sim.md) */
		nb_wake_since(w, s, T, x, TRACE_K_COND, c, since);
		if (!missing)
			proceed(w, s, T);
		w->cur_releaser = saved;
	}
}

/* ------------------------------------------------------------------ */
/* Read-write locks */

static void rw_grant_queue(struct sim_work *w, uint32_t r, stime T, int32_t x)
{
	struct srw *rw = &w->rw[r];
	while (rw->qh != NIL && rw->writer < 0) {
		uint32_t v = rw->qh;
		int wr = cur_rec(w, v)->op == TRACE_WRLOCK;
		if (wr && rw->readers)
			return;
		q_pop(w, &rw->qh, &rw->qt);
		if (wr) {
			rw->writer = (int32_t)v;
			nb_wake(w, v, T, x, TRACE_K_RWLOCK, r);
		} else {
			rw->readers++;
			/* a reader waits only for the last writer's release */
			if (rw->wrel == T) /* that release woke it */
				nb_wake(w, v, T, rw->wrel_proc, TRACE_K_RWLOCK, r);
			else if (before_latency_end(w, T, rw->wrel, TRACE_K_RWLOCK, r))
				nb_after(w, v, rw->wrel, rw->wrel_proc, TRACE_K_RWLOCK, r);
		}
		if (w->flags & SIM_SCHEDULE)
			sim_sy_add(w, v, w->th[v].cur, T, w->cur_releaser);
		proceed(w, v, T);
		if (wr)
			return;
	}
}

/* ------------------------------------------------------------------ */
/* Acquisitions by the running thread */

/* u, running, acquired something now: go on, or wait out a latency. */
static int acquired_now(struct sim_work *w, uint32_t u, stime T)
{
	if (w->flags & SIM_SCHEDULE)
		sim_sy_add(w, u, w->th[u].cur, T, -1);
	if (w->th[u].nb > T) {
		leave_cpu(w, u, T);
		proceed(w, u, T);
		return STOPPED;
	}
	return GO_ON;
}

#endif
