/*
 * direct.h - the Direct model's step (the thesis's Direct Simulation
 * Model, Paper VIII; docs/simulation.md): an acquisition takes whatever
 * release of its object comes first.  Part of the hot loop: included by
 * each policy's file (see simint.h).
 */
#ifndef SHADOWBIND_SIM_DIRECT_H
#define SHADOWBIND_SIM_DIRECT_H

#include "sim/sync.h"

/* lock (and trylock ok, record r) of mutex m by running thread u at T. */
static inline int step_lock(struct sim_work *w, uint32_t u, const struct trace_rec *r,
                            uint32_t m, stime T)
{
	struct smutex *mx = &w->mx[m];
	if (mx->owner < 0 && (mx->qh == NIL || w->lkinds)) {
		mx->owner = (int32_t)u;
		held_push(w, u, m);
		if (before_latency_end(w, T, mx->rel, TRACE_K_MUTEX, m))
			nb_after(w, u, mx->rel, mx->rel_proc, TRACE_K_MUTEX, m);
		if (w->pool)
			pool_take(w, u, r);
		return acquired_now(w, u, T);
	}
	mq_push(w, mx, u);
	block(w, u, T, BK_LOCK, m);
	return STOPPED;
}

/* The spinning wait (sim_params.spin): u, running, has released mutex m
 * at T.  If its next record tries m and gets it (`trylock m ok`: a poll)
 * and its processor is
 * shared (its group has more threads ready or running than processors,
 * u included; ps: those waiting for a cycle's end too), u goes on with
 * that record's work raised to at least par->spin (it spins to the end:
 * the thread it waits for cannot run meanwhile) and the step returns
 * STOPPED (it has gone on); else GO_ON, nothing done. */
static int spin_poll(struct sim_work *w, uint32_t u, uint32_t m, stime T)
{
	struct sth *t = &w->th[u];
	if (t->cur + 1 >= t->end)
		return GO_ON;
	const struct trace_rec *n = &w->tr->rec[t->cur + 1];
	if (n->op != TRACE_TRYLOCK || !n->b || n->a != m)
		return GO_ON;
	const struct sgrp *g = &w->g[t->grp];
	int shared = SIM_CLASS->gtree == GT_GROUPS ? g->m + g->ndef > g->nslots : g->rqh != NIL;
	if (!shared)
		return GO_ON;
	t->cur++;
	load_work(w, u);
	if (t->rem < w->par->spin) {
		if (w->flags & SIM_STATS)
			w->ist[u].cpu += w->par->spin - t->rem;
		t->rem = w->par->spin;
	}
	SIM_CLASS->go_on(w, u, T);
	return STOPPED;
}

/* unlock of mutex m by running thread u, on processor x, at T. */
static inline int step_unlock(struct sim_work *w, uint32_t u, uint32_t m, stime T,
                              int32_t x)
{
	held_remove(w, u, m);
	mutex_release(w, m, T, x);
	if (__builtin_expect(w->par->spin != 0, 0))
		return spin_poll(w, u, m, T);
	return GO_ON;
}

/* One step: the running thread u performs its current record's operation
 * at T.  Returns GO_ON (it keeps running) or STOPPED. */
static int step(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	const struct trace_rec *r = cur_rec(w, u);
	int32_t x = t->lproc;
	step_begin(w, u, r);

	/* Lock and unlock (most records of a lock-heavy trace) first: two
	 * conditional branches mispredict less than the switch's indirect
	 * jump (a ps run of the README's 539k-record mutex program: 3-5%
	 * less CPU time). */
	if (t->op == TRACE_UNLOCK)
		return step_unlock(w, u, t->a, T, x);
	if (t->op == TRACE_LOCK)
		return step_lock(w, u, r, t->a, T);
	switch (t->op) { /* ORDER OP */
	case TRACE_CREATE:
		return create_step(w, u, r, T);
	case TRACE_EXIT: {
		thread_exit(w, u, T);
		uint32_t v;
		while ((v = q_pop(w, &t->jhead, &t->jtail)) != NIL) {
			nb_wake(w, v, T, x, TRACE_K_THREAD, u);
			if (w->flags & SIM_SCHEDULE)
				sim_sy_add(w, v, w->th[v].cur, T, (int32_t)u);
			proceed(w, v, T);
		}
		return STOPPED;
	}
	case TRACE_JOIN: {
		struct sth *tt = &w->th[r->a];
		if (tt->state == ST_DONE) {
			nb_after(w, u, tt->exit_time, tt->exit_proc, TRACE_K_THREAD, r->a);
			return acquired_now(w, u, T);
		}
		q_push(w, &tt->jhead, &tt->jtail, u);
		block(w, u, T, BK_JOIN, r->a);
		return STOPPED;
	}
	case TRACE_TRYLOCK:
		if (!r->b)
			return GO_ON;
		return step_lock(w, u, r, r->a, T); /* ok behaves as lock */
	case TRACE_LOCK:
		return step_lock(w, u, r, r->a, T);
	case TRACE_UNLOCK:
		return step_unlock(w, u, r->a, T, x);
	case TRACE_TRYWAIT:
		if (!r->b)
			return GO_ON;
		__attribute__((fallthrough));
	case TRACE_WAIT: {
		struct ssem *s = &w->sem[t->a];
		if (s->init_left) {
			s->init_left--;
			return acquired_now(w, u, T);
		}
		if (s->rcount) {
			s->rcount--;
			if (w->lat_on) { /* the oldest token's release */
				struct sring *rg = &w->ring[r->a];
				struct stok *tk = &w->tok[rg->rbase + rg->rhead];
				rg->rhead = rg->rhead + 1 == rg->rcap ? 0 : rg->rhead + 1;
				nb_after(w, u, tk->t, tk->proc, TRACE_K_SEM, r->a);
			}
			return acquired_now(w, u, T);
		}
		q_push(w, &s->qh, &s->qt, u);
		block(w, u, T, BK_WAIT, r->a);
		return STOPPED;
	}
	case TRACE_POST: {
		struct ssem *s = &w->sem[t->a];
		uint32_t v = q_pop(w, &s->qh, &s->qt);
		if (v != NIL) {
			nb_wake(w, v, T, x, TRACE_K_SEM, r->a);
			if (w->flags & SIM_SCHEDULE)
				sim_sy_add(w, v, w->th[v].cur, T, (int32_t)u);
			proceed(w, v, T);
		} else if (!w->lat_on) {
			s->rcount++; /* at most the semaphore's posts */
		} else if (s->rcount < w->ring[r->a].rcap) {
			struct sring *rg = &w->ring[r->a];
			uint32_t i = rg->rhead + s->rcount;
			if (i >= rg->rcap)
				i -= rg->rcap;
			w->tok[rg->rbase + i].t = T;
			w->tok[rg->rbase + i].proc = x;
			s->rcount++;
		}
		return GO_ON;
	}
	case TRACE_CWAIT: {
		struct scond *cv = &w->cv[r->a];
		/* leave the processor first, then release (as exit and a
		 * blocking signal do) */
		block(w, u, T, BK_CWAIT, r->a);
		held_remove(w, u, r->b);
		mutex_release(w, r->b, T, x);
		q_push(w, &cv->wh, &cv->wt, u);
		cv->nw++;
		cond_serve(w, r->a, T, x);
		return STOPPED;
	}
	case TRACE_SIGNAL:
	case TRACE_BROADCAST: {
		struct scond *cv = &w->cv[r->a];
		if (r->b == 0)
			return GO_ON;
		if (cv->sh == NIL && cv->nw >= r->b) {
			cond_wake(w, r->a, r->b, T, x);
			return GO_ON;
		}
		/* Too few waiters: block, releasing the mutexes held. */
		block(w, u, T, BK_SIGWAIT, r->a);
		for (uint32_t i = 0; i < t->nheld; i++)
			mutex_release(w, w->held[t->hbase + i], T, x);
		q_push(w, &cv->sh, &cv->stl, u);
		return STOPPED;
	}
	case TRACE_BARRIER: {
		struct sbar *b = &w->bar[t->a];
		if (++b->count < r->b) {
			q_push(w, &b->qh, &b->qt, u);
			block(w, u, T, BK_BARRIER, r->a);
			return STOPPED;
		}
		b->count = 0;
		uint32_t v;
		while ((v = q_pop(w, &b->qh, &b->qt)) != NIL) {
			nb_wake(w, v, T, x, TRACE_K_BARRIER, r->a);
			if (w->flags & SIM_SCHEDULE)
				sim_sy_add(w, v, w->th[v].cur, T, (int32_t)u);
			proceed(w, v, T);
		}
		return acquired_now(w, u, T);
	}
	case TRACE_RDLOCK:
	case TRACE_WRLOCK: {
		struct srw *rw = &w->rw[r->a];
		int wr = r->op == TRACE_WRLOCK;
		if (rw->qh == NIL && rw->writer < 0 && (!wr || rw->readers == 0)) {
			if (wr) {
				rw->writer = (int32_t)u;
				if (before_latency_end(w, T, rw->rel, TRACE_K_RWLOCK, r->a))
					nb_after(w, u, rw->rel, rw->rel_proc, TRACE_K_RWLOCK, r->a);
			} else {
				rw->readers++;
				/* only the last writer's release excluded readers */
				if (before_latency_end(w, T, rw->wrel, TRACE_K_RWLOCK, r->a))
					nb_after(w, u, rw->wrel, rw->wrel_proc, TRACE_K_RWLOCK, r->a);
			}
			return acquired_now(w, u, T);
		}
		q_push(w, &rw->qh, &rw->qt, u);
		block(w, u, T, wr ? BK_WRLOCK : BK_RDLOCK, r->a);
		return STOPPED;
	}
	case TRACE_RWUNLOCK: {
		struct srw *rw = &w->rw[r->a];
		if (rw->writer == (int32_t)u) {
			rw->writer = -1;
			rw->wrel = T;
			rw->wrel_proc = x;
		} else if (rw->readers) {
			rw->readers--;
		}
		rw->rel = T;
		rw->rel_proc = x;
		rw_grant_queue(w, r->a, T, x);
		return GO_ON;
	}
	case TRACE_SLEEP: {
		leave_cpu(w, u, T);
		t->nb = (T + trace_sleep_time(r));
		proceed(w, u, T);
		return STOPPED;
	}
	default:
		return GO_ON;
	}
}

#endif
