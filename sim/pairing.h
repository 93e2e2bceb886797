/*
 * pairing.h - the step of the strict-sequence and client-server models
 * (docs/models.md), which follow the recorded pairing of releases and
 * acquisitions (struct sim_pairs, built by models.c).  Part of the hot
 * loop of those models: included by each policy's file (see simint.h).
 */
#ifndef SHADOWBIND_SIM_PAIRING_H
#define SHADOWBIND_SIM_PAIRING_H

#include "sim/thread.h"

/* The strict-sequence and client-server models (docs/models.md).
 *
 * Both follow the recorded pairing (struct sim_pairs): an acquisition
 * waits for exactly the releases it depended on in the recording (its
 * wait's conditions); a signal/broadcast waits until the waiters it woke
 * in the recording are there.  Strict: each thread runs its records in
 * order, blocking at a wait until its conditions have happened; a
 * signaller waits for its waiters' registrations (the first half of
 * their cwaits).  Client-server: a thread is cut into lists at its
 * acquisition waits; at the end of a list it starts the earliest of its
 * lists that can start (all conditions happened), or becomes idle; a
 * signal is a rendezvous with its waiters' threads: it happens when all
 * of them are idle, and each then starts its cwait's list; meanwhile the
 * signaller blocks inside its list (the paper's synchronous Activate).
 */

static void lheap_push(struct sim_work *w, uint32_t u, uint32_t d)
{
	uint32_t *h = w->lheap + w->p->px.th_wbase[u];
	uint32_t i = w->pt[u].lhn++;
	while (i > 0) {
		uint32_t pa = (i - 1) / 2;
		if (h[pa] <= d)
			break;
		h[i] = h[pa];
		i = pa;
	}
	h[i] = d;
}

static uint32_t lheap_pop(struct sim_work *w, uint32_t u)
{
	uint32_t *h = w->lheap + w->p->px.th_wbase[u];
	uint32_t top = h[0], n = --w->pt[u].lhn, d = h[n], i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (d <= h[c])
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = d;
	return top;
}

/* u's not-before from every release its wait d needed: those at `woken`
 * woke it (blocked until then; (stime)-1: it was running). */
static void pm_latency(struct sim_work *w, uint32_t u, uint32_t d, stime woken)
{
	const struct sim_pairs *px = &w->p->px;
	w->th[u].nb = 0;
	if (!w->lat_on)
		return;
	for (uint32_t i = px->w_off[d]; i < px->w_off[d + 1]; i++) {
		uint32_t e = px->w_cond[i];
		nb_after_u(w, u, w->ev[e].t, w->ev[e].p, w->ev[e].t == woken);
	}
}

static void pm_wait_ready(struct sim_work *w, uint32_t d, stime T, int32_t x);

/* Event e (or one contribution to it) happens at T on processor x. */
static void pm_fire(struct sim_work *w, uint32_t e, stime T, int32_t x)
{
	struct pev *ev = &w->ev[e];
	if (ev->left == 0 || --ev->left)
		return;
	ev->t = T;
	ev->p = x;
	const struct sim_pairs *px = &w->p->px;
	for (uint32_t i = px->ev_off[e]; i < px->ev_off[e + 1]; i++) {
		uint32_t d = px->ev_dep[i];
		if (--w->w_left[d] == 0)
			pm_wait_ready(w, d, T, x);
	}
}

/* v, blocked in wait d, has all it needs at T (the last release came
 * from processor x): go on. */
static void pm_grant_blocked(struct sim_work *w, uint32_t v, uint32_t d,
                             stime T, int32_t x)
{
	struct sth *t = &w->th[v];
	uint32_t rec = t->cur;
	if (w->flags & SIM_SCHEDULE)
		sim_sy_add(w, v, rec, T, w->cur_releaser);
	if (!is_signal(&w->tr->rec[rec])) {
		pm_latency(w, v, d, T);
		proceed(w, v, T);
		return;
	}
	/* strict: a signaller whose last waiter registered at T on x
	 * proceeds (as in the Direct model), then wakes its waiters */
	int32_t me = t->lproc;
	uint32_t e = w->p->px.rp[rec].ev;
	t->nb = 0;
	nb_after_u(w, v, T, x, 1);
	proceed(w, v, T);
	if (e != SIM_NONE) {
		int32_t saved = w->cur_releaser;
		w->cur_releaser = (int32_t)v;
		pm_fire(w, e, T, me);
		w->cur_releaser = saved;
	}
}

/* client-server: idle v starts the list of wait d at T. */
static void pm_start_idle(struct sim_work *w, uint32_t v, uint32_t d, stime T)
{
	struct pth *pt = &w->pt[v];
	pt->idle = 0;
	pt->npend--;
	w->th[v].cur = w->p->px.w_rec[d];
	if (w->flags & SIM_SCHEDULE)
		sim_sy_add(w, v, w->th[v].cur, T, w->cur_releaser);
	pm_latency(w, v, d, T);
	proceed(w, v, T);
}

/* Wait d has all its conditions at T (the last from processor x). */
static void pm_wait_ready(struct sim_work *w, uint32_t d, stime T, int32_t x)
{
	const struct sim_pairs *px = &w->p->px;
	uint32_t v = px->w_th[d];
	struct sth *t = &w->th[v];
	if (t->state == ST_BLOCK && t->wobj == d &&
	    (t->bk == BK_PAIR || (t->bk == BK_SIGWAIT && !w->cs))) {
		pm_grant_blocked(w, v, d, T, x);
		return;
	}
	if (!w->cs)
		return; /* strict: v finds it done when it gets there */
	const struct trace_rec *r = &w->tr->rec[px->w_rec[d]];
	if (r->op == TRACE_CWAIT || is_signal(r))
		return; /* these start by rendezvous (pm_cs_fire) */
	if (w->pt[v].idle)
		pm_start_idle(w, v, d, T);
	else
		lheap_push(w, v, d);
}

/* u, running at T, got (or already had) everything wait d needs. */
static int pm_grant_running(struct sim_work *w, uint32_t u, uint32_t d, stime T)
{
	pm_latency(w, u, d, (stime)-1);
	if (w->flags & SIM_SCHEDULE)
		sim_sy_add(w, u, w->th[u].cur, T, -1);
	if (w->th[u].nb > T) {
		leave_cpu(w, u, T);
		proceed(w, u, T);
		return STOPPED;
	}
	return GO_ON;
}

/* The exit of u (running) at T; its record is u's current one. */
static int pm_exit(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	int32_t x = t->lproc;
	uint32_t e = w->p->px.rp[t->cur].ev;
	thread_exit(w, u, T);
	if (e != SIM_NONE)
		pm_fire(w, e, T, x);
	return STOPPED;
}

/* client-server: the wait of the signal whose waiter is cwait wait c. */
static inline uint32_t pm_signal_of(const struct sim_work *w, uint32_t c)
{
	const struct sim_pairs *px = &w->p->px;
	uint32_t e = px->w_cond[px->w_off[c]];
	return px->rp[px->ev_rec[e]].wait;
}

/* client-server: the waiter threads of signal wait s are all idle. */
static int pm_can_fire(const struct sim_work *w, uint32_t s)
{
	const struct sim_pairs *px = &w->p->px;
	for (uint32_t i = px->w_off[s]; i < px->w_off[s + 1]; i++) {
		uint32_t c = px->rp[px->ev_rec[px->w_cond[i]]].wait;
		if (!w->pt[px->w_th[c]].idle)
			return 0;
	}
	return 1;
}

/*
 * client-server: signal wait s happens at T.  u is the running thread:
 * the signaller itself (it reached s and its waiters were idle), or one
 * of the waiters, at the end of a list (the signaller was blocked: it
 * proceeds no earlier than t after, as in the Direct model).  Every
 * waiter starts its cwait's list; returns u's continuation.
 */
static int pm_cs_fire(struct sim_work *w, uint32_t s, stime T, uint32_t u)
{
	const struct sim_pairs *px = &w->p->px;
	uint32_t y = px->w_th[s], srec = px->w_rec[s];
	struct sth *ty = &w->th[y];
	int32_t xy = ty->lproc;
	if (u != y) {
		ty->nb = 0;
		nb_after_u(w, y, T, w->th[u].lproc, 1);
		if (w->flags & SIM_SCHEDULE)
			sim_sy_add(w, y, srec, T, (int32_t)u);
		proceed(w, y, T);
	}
	uint32_t mine = SIM_NONE;
	for (uint32_t i = px->w_off[s]; i < px->w_off[s + 1]; i++) {
		uint32_t c = px->rp[px->ev_rec[px->w_cond[i]]].wait, v = px->w_th[c];
		w->pt[v].idle = 0;
		w->pt[v].npend--;
		w->th[v].cur = px->w_rec[c];
		if (v == u) {
			mine = c;
		} else {
			w->th[v].bk = BK_PAIR;
			w->th[v].wobj = c;
		}
	}
	int32_t saved = w->cur_releaser;
	w->cur_releaser = (int32_t)y;
	pm_fire(w, px->rp[srec].ev, T, xy);
	w->cur_releaser = saved;
	if (u == y || mine == SIM_NONE)
		return GO_ON;
	if (w->w_left[mine] == 0)
		return pm_grant_running(w, u, mine, T);
	block(w, u, T, BK_PAIR, mine); /* its mutex is not released yet */
	return STOPPED;
}

/*
 * client-server: u (running) ended a list at T.  It serves a signaller
 * blocked on one of its cwaits if that signal can now happen (oldest
 * first), else starts the earliest of its lists that can start, else
 * exits if it is at its exit with no list left, else becomes idle.
 */
static int pm_list_end(struct sim_work *w, uint32_t u, stime T)
{
	struct pth *pt = &w->pt[u];
	const struct sim_pairs *px = &w->p->px;
	pt->idle = 1;
	uint32_t prev = SIM_NONE, c = pt->sqh;
	while (c != SIM_NONE) {
		uint32_t nx = w->sq_next[c], s = pm_signal_of(w, c);
		int fired = w->ev[px->rp[px->w_rec[s]].ev].left == 0;
		int now = !fired && pm_can_fire(w, s);
		if (fired || now) {
			if (prev == SIM_NONE)
				pt->sqh = nx;
			else
				w->sq_next[prev] = nx;
			if (pt->sqt == c)
				pt->sqt = prev;
		} else {
			prev = c;
		}
		if (now)
			return pm_cs_fire(w, s, T, u);
		c = nx;
	}
	if (pt->lhn) {
		uint32_t d = lheap_pop(w, u);
		pt->idle = 0;
		pt->npend--;
		w->th[u].cur = px->w_rec[d];
		return pm_grant_running(w, u, d, T);
	}
	if (pt->npend == 0 && pt->exit_wait) {
		pt->idle = 0;
		w->th[u].cur = w->th[u].end - 1;
		return pm_exit(w, u, T);
	}
	block(w, u, T, BK_IDLE, 0);
	return STOPPED;
}

/* u (running) reached the acquisition part of its current record at T;
 * d is the record's wait. */
static int pm_acquire(struct sim_work *w, uint32_t u, stime T, uint32_t d)
{
	struct sth *t = &w->th[u];
	if (d == SIM_NONE) { /* nothing to wait for */
		if (w->flags & SIM_SCHEDULE)
			sim_sy_add(w, u, t->cur, T, -1);
		return GO_ON;
	}
	if (w->cs)
		return pm_list_end(w, u, T);
	if (w->w_left[d] == 0)
		return pm_grant_running(w, u, d, T);
	block(w, u, T, BK_PAIR, d);
	return STOPPED;
}

static int step_pm(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	const struct trace_rec *r = cur_rec(w, u);
	const struct sim_pairs *px = &w->p->px;
	int32_t x = t->lproc;
	const struct sim_prec rp = px->rp[t->cur];
	uint32_t ev = rp.ev;
	step_begin(w, u, r);

	switch (r->op) { /* ORDER OP */
	case TRACE_CREATE:
		return create_step(w, u, r, T);
	case TRACE_EXIT:
		if (w->cs && w->pt[u].npend) {
			w->pt[u].exit_wait = 1;
			return pm_list_end(w, u, T);
		}
		return pm_exit(w, u, T);
	case TRACE_TRYLOCK:
	case TRACE_TRYWAIT:
		if (!r->b)
			return GO_ON;
		return pm_acquire(w, u, T, rp.wait);
	case TRACE_LOCK:
	case TRACE_WAIT:
	case TRACE_JOIN:
	case TRACE_RDLOCK:
	case TRACE_WRLOCK:
		return pm_acquire(w, u, T, rp.wait);
	case TRACE_CWAIT:
	case TRACE_BARRIER:
		/* first half: release the mutex and register / arrive */
		if (ev != SIM_NONE)
			pm_fire(w, ev, T, x);
		return pm_acquire(w, u, T, rp.wait);
	case TRACE_UNLOCK:
	case TRACE_POST:
	case TRACE_RWUNLOCK:
		if (ev != SIM_NONE)
			pm_fire(w, ev, T, x);
		return GO_ON;
	case TRACE_SIGNAL:
	case TRACE_BROADCAST: {
		uint32_t s = rp.wait;
		if (s == SIM_NONE)
			return GO_ON; /* it woke nobody in the recording */
		if (w->cs) {
			if (pm_can_fire(w, s))
				return pm_cs_fire(w, s, T, u);
		} else if (w->w_left[s] == 0) {
			pm_fire(w, ev, T, x);
			return GO_ON;
		}
		block(w, u, T, BK_SIGWAIT, s);
		if (w->cs) {
			for (uint32_t i = px->w_off[s]; i < px->w_off[s + 1]; i++) {
				uint32_t c = px->rp[px->ev_rec[px->w_cond[i]]].wait;
				struct pth *pv = &w->pt[px->w_th[c]];
				w->sq_next[c] = SIM_NONE;
				if (pv->sqh == SIM_NONE)
					pv->sqh = c;
				else
					w->sq_next[pv->sqt] = c;
				pv->sqt = c;
			}
		}
		return STOPPED;
	}
	case TRACE_SLEEP:
		leave_cpu(w, u, T);
		t->nb = T + trace_sleep_time(r);
		proceed(w, u, T);
		return STOPPED;
	default:
		return GO_ON;
	}
}

#endif
