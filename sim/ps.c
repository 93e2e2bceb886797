/*
 * ps.c - the processor-sharing policy (docs/simulation.md), in exact
 * integer cycles (docs/sim.md): the ready threads of a group share its
 * processors, each group keeping them in a heap by finish tag, and its
 * next completion in the event heap.  Defines sim_class_ps and the
 * policy's event loops (loop.h).
 */
#include "sim/simint.h"
#include "sim/heap.h"

static void policy_run(struct sim_work *w);

/* A group's ready threads, a heap by (finish tag, id). */

static inline int pent_less(const struct pent *a, const struct pent *b)
{
	return a->tag != b->tag ? a->tag < b->tag : a->u < b->u;
}

static void pheap_up(struct sim_work *w, struct sgrp *g, uint32_t i)
{
	struct pent *h = w->pheap + g->hbase, e = h[i];
	while (i > 0) {
		uint32_t pa = (i - 1) / 2;
		if (!pent_less(&e, &h[pa]))
			break;
		h[i] = h[pa];
		w->ppos[h[i].u] = (int32_t)i;
		i = pa;
	}
	h[i] = e;
	w->ppos[e.u] = (int32_t)i;
}

static void pheap_down(struct sim_work *w, struct sgrp *g, uint32_t i)
{
	struct pent *h = w->pheap + g->hbase, e = h[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= g->hn)
			break;
		if (c + 1 < g->hn && pent_less(&h[c + 1], &h[c]))
			c++;
		if (!pent_less(&h[c], &e))
			break;
		h[i] = h[c];
		w->ppos[h[i].u] = (int32_t)i;
		i = c;
	}
	h[i] = e;
	w->ppos[e.u] = (int32_t)i;
}

/* Add ready thread u with finish tag t->seg. */
static void pheap_push(struct sim_work *w, struct sgrp *g, uint32_t u)
{
	struct pent e = {w->th[u].seg, u};
	w->pheap[g->hbase + g->hn] = e;
	pheap_up(w, g, g->hn++);
}

/* u's finish tag grew to t->seg. */
static void pheap_later(struct sim_work *w, struct sgrp *g, uint32_t u)
{
	uint32_t pos = (uint32_t)w->ppos[u];
	w->pheap[g->hbase + pos].tag = w->th[u].seg;
	pheap_down(w, g, pos);
}

static void pheap_del(struct sim_work *w, struct sgrp *g, uint32_t u)
{
	struct pent *h = w->pheap + g->hbase;
	uint32_t pos = (uint32_t)w->ppos[u];
	struct pent last = h[--g->hn];
	w->ppos[u] = -1;
	if (pos == g->hn)
		return;
	h[pos] = last;
	w->ppos[last.u] = (int32_t)pos;
	pheap_up(w, g, pos);
	pheap_down(w, g, (uint32_t)w->ppos[last.u]);
}

/*
 * ps in cycles (an exact integer scheme for processor sharing).  A group
 * with c slots and m ready threads serves them in cycles: with m <= c a
 * cycle lasts 1 tick and gives every thread 1 unit of work; with m > c it
 * lasts m ticks and gives every thread c units (bound processors: c = 1,
 * so m ticks, 1 unit each).  V counts the units each thread has received
 * since the group last fell empty; a thread's finish tag is V + its work.
 * Threads finish, and arrivals join, only at cycle boundaries: a thread
 * that becomes ready inside a cycle joins at the next boundary.
 *
 * No capacity is lost (the unbound pool, c >= 2, m > c): in the cycle in
 * which some threads need fewer than c units, each thread gets only what
 * it needs (g_i <= c), and the cycle lasts max(max g_i, ceil(S / c))
 * ticks, S = sum g_i (a thread runs at rate <= 1; otherwise only the
 * rounding of the division idles).  The threads whose
 * work ends at that boundary act in increasing id: their tags, which may
 * lie below the new V, are raised to V (ps_clamp).
 *
 * All times stay integers; the processor never idles while one of its
 * threads is ready; a lone thread runs at full speed.  This differs from
 * the fluid limit by less than one cycle per event (docs/sim.md).
 */
static inline uint64_t ps_len(const struct sgrp *g)
{
	return g->m <= g->nslots ? 1 : g->m;
}

/* Pool: raise the tags below V to V (threads whose work ended at this
 * boundary), so that they act in increasing id. */
static void ps_clamp(struct sim_work *w, struct sgrp *g)
{
	struct pent *h = w->pheap + g->hbase;
	while (g->hn && h[0].tag < g->V) {
		h[0].tag = g->V;
		pheap_down(w, g, 0);
	}
}

/* The pool, m > c: advance by dt ticks, full cycles and maybe a short
 * last one (out of line, so that ps_advance inlines). */
static __attribute__((noinline)) void ps_advance_pool(struct sim_work *w, struct sgrp *g,
                                                      stime T, uint64_t dt)
{
	uint64_t c = g->nslots;
	g->V += (dt + g->m - 1) / g->m * c;
	if (w->flags & SIM_STATS) {
		if (T > g->tshort)
			g->busy += (g->tshort - g->tlast) * c + g->slast;
		else
			g->busy += dt * c;
	}
	ps_clamp(w, g);
}

/* Advance a ps group to T, a boundary of its current cycle (or any time
 * when the group is empty). */
static inline void ps_advance(struct sim_work *w, struct sgrp *g, stime T)
{
	uint64_t dt = T - g->tlast;
	if (dt && g->m) {
		if (g->m <= g->nslots) {
			g->V += dt;
			if (w->flags & SIM_STATS)
				g->busy += dt * g->m;
		} else if (g->nslots == 1) {
			/* at the completion ps_resched computed, V is known
			 * (no division on the common path) */
			g->V = T == g->tnext ? g->vnext : g->V + dt / g->m;
			if (w->flags & SIM_STATS)
				g->busy += dt;
		} else {
			ps_advance_pool(w, g, T, dt);
		}
	}
	g->tlast = T;
}

/* The first cycle boundary of g at or after T. */
static inline uint64_t ps_boundary(const struct sgrp *g, uint64_t T)
{
	if (g->m == 0)
		return T;
	if (T > g->tshort) /* inside the pool's last, short cycle */
		return g->tnext;
	uint64_t len = ps_len(g), dt = T - g->tlast;
	return g->tlast + (dt + len - 1) / len * len;
}

/* The threads that finish in a pool's last cycle. */
struct ps_fin {
	uint64_t lost;  /* sum of c - need over them; units: work units  */
	uint64_t maxg;  /* the largest need among them                   */
	uint32_t n;     /* how many                                      */
	uint32_t id;    /* the smallest id                               */
};

/* Pool: the threads whose tags are at most X = V0 + c, in the subtree of
 * heap position i (each needs tag - V0 units of that cycle). */
static void ps_finishing(const struct sim_work *w, const struct sgrp *g, uint32_t i,
                         uint64_t X, struct ps_fin *f)
{
	const struct pent *h = w->pheap + g->hbase;
	while (i < g->hn && h[i].tag <= X) {
		uint64_t c_minus_need = X - h[i].tag;
		f->lost += c_minus_need;
		if (g->nslots - c_minus_need > f->maxg)
			f->maxg = g->nslots - c_minus_need;
		f->n++;
		if (h[i].u < f->id)
			f->id = h[i].u;
		ps_finishing(w, g, 2 * i + 1, X, f);
		i = 2 * i + 2;
	}
}

/* The pool, m > c, its next completion `cycles` >= 1 cycles away: the
 * last cycle gives each thread what it needs, at most c units; the
 * threads that finish in it act by id from the smallest.  Sets tshort and
 * slast; returns the completion's time, *u its first thread.  Out of
 * line: bound processors (the common case) never come here, and
 * ps_resched stays small enough to inline. */
static __attribute__((noinline)) uint64_t ps_pool_last(struct sim_work *w, struct sgrp *g,
                                                       uint64_t cycles, uint32_t *u)
{
	uint64_t units = g->nslots, len = g->m;
	uint64_t V0 = g->V + (cycles - 1) * units;
	struct ps_fin f = {0, 0, 0, *u};
	ps_finishing(w, g, 0, V0 + units, &f);
	uint64_t S = g->m * units - f.lost, L = (S + units - 1) / units;
	if (f.n < g->m)
		f.maxg = units; /* the others get c units */
	if (L < f.maxg)
		L = f.maxg; /* no thread runs faster than rate 1 */
	*u = f.id;
	g->tshort = g->tlast + (cycles - 1) * len;
	g->slast = S;
	return g->tshort + L;
}

/* Put a ps group's next completion into the event heap. */
static inline void ps_resched(struct sim_work *w, uint32_t gi)
{
	struct sgrp *g = &w->g[gi];
	uint32_t id = w->p->n + gi;
	if (g->hn == 0) {
		g->tshort = g->tnext = UINT64_MAX;
		heap_del(w, id);
		return;
	}
	uint32_t u = w->pheap[g->hbase].u;
	uint64_t F = w->th[u].seg, left = F > g->V ? F - g->V : 0;
	uint64_t t;
	g->tshort = UINT64_MAX;
	if (g->m <= g->nslots) {
		t = g->tlast + left; /* cycles of 1 tick, 1 unit each */
		g->vnext = g->V + left;
	} else if (g->nslots == 1) {
		t = g->tlast + left * g->m; /* a bound processor: m ticks, 1 unit */
		g->vnext = g->V + left;
	} else {
		uint64_t units = g->nslots, cycles = (left + units - 1) / units;
		t = g->tlast + cycles * g->m;
		if (cycles)
			t = ps_pool_last(w, g, cycles, &u);
	}
	g->tnext = t;
	heap_set(w, id, t, 0, u);
}

/* The class members on the hot path (enqueue, dequeue, go_on, tick) are
 * always inlined into this file's event loops (the class table keeps an
 * out-of-line copy): 7-14% fewer instructions in sim_makespan on the
 * barrier, prodcons and dag traces of bench/vs-simgrid (callgrind).  The
 * event heap's functions gained nothing so (heap.h). */

/* class enqueue: u ready at T joins its group at the next cycle boundary
 * (at once if T is one; else it waits as a timer, ready time). */
static inline __attribute__((always_inline)) void ps_enqueue(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	struct sgrp *g = &w->g[t->grp];
	uint64_t join = ps_boundary(g, T);
	if (join != T) {
		/* inside a cycle: join at its end, ready meanwhile */
		t->state = ST_TIMER;
		t->deferred = 1;
		heap_set(w, u, join, 0, u);
		return;
	}
	t->deferred = 0;
	t->state = ST_RUN;
	ps_advance(w, g, T);
	if (g->m == 0) {
		g->V = 0;
		grp_busy(w, g, T);
	}
	t->seg = g->V + t->rem;
	g->m++;
	pheap_push(w, g, u);
	if (w->flags & SIM_SCHEDULE)
		t->run_from = T;
	ps_resched(w, t->grp);
}

/* class dequeue: u leaves its group at T (a boundary). */
static inline __attribute__((always_inline)) void ps_dequeue(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	struct sgrp *g = &w->g[t->grp];
	ps_advance(w, g, T);
	pheap_del(w, g, u);
	g->m--;
	if (g->m == 0) {
		g->V = 0;
		grp_idle(g, T);
	}
	ps_resched(w, t->grp);
}

/* class go_on: u's new work gives it a new finish tag.
 *
 * A record with no work (most records of a task graph: its posts and
 * waits) leaves everything as it was: u acted at T as its group's first
 * thread, with tag V; its tag stays V, so its group's heap is unchanged,
 * and when the group's event already says (T, u) and no short pool cycle
 * is pending, ps_resched would compute exactly that event again (left =
 * 0 cycles: t = tlast = T, first thread u, tshort = UINT64_MAX).  Then
 * nothing is done. */
static inline __attribute__((always_inline)) void ps_go_on(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	struct sgrp *g = &w->g[t->grp];
	stime tag = g->V + t->rem;
	if (tag == t->seg && tag == g->V && g->tlast == T && g->tnext == T &&
	    g->tshort == UINT64_MAX && w->pheap[g->hbase].u == u) {
		int32_t pos = w->hpos[w->p->n + t->grp];
		if (pos >= 0 && w->heap[pos].key == hent_key(T, 0, u, w->p->n + t->grp))
			return;
	}
	t->seg = tag;
	pheap_later(w, g, u);
	ps_resched(w, t->grp);
}

/* class work_done: never called (under ps a thread's heap entry is only
 * ever a timer). */
static void ps_work_done(struct sim_work *w, uint32_t u, stime T)
{
	(void)w;
	(void)u;
	(void)T;
}

/* class tick: the heap's entry n + g is group g's next completion: the
 * thread with the smallest finish tag (ties: id) acts. */
static inline __attribute__((always_inline)) uint32_t ps_tick(struct sim_work *w, uint32_t id, stime T)
{
	struct sgrp *g = &w->g[id - w->p->n];
	ps_advance(w, g, T);
	return w->pheap[g->hbase].u;
}

/* class busy: a processor's group (the unbound pool: its busy time / k). */
static sim_time ps_busy(const struct sim_work *w, uint32_t c, int *ovf)
{
	if (w->par->mode == SIM_UNBOUND)
		return st_make(w->g[0].busy, w->par->cpus, ovf); /* average */
	return ST(w->g[c].busy);
}

const struct sim_class sim_class_ps = {
	.name = "ps",
	.enqueue = ps_enqueue,
	.dequeue = ps_dequeue,
	.go_on = ps_go_on,
	.work_done = ps_work_done,
	.tick = ps_tick,
	.busy = ps_busy,
	.run = policy_run,
};

#define SIM_CLASS (&sim_class_ps)
#include "sim/loop.h"
