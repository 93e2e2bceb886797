/*
 * ps.c - the processor-sharing policy (docs/simulation.md), in exact
 * integer cycles (docs/sim.md): the ready threads of a group share its
 * processors, each group keeping them in a tournament tree by finish
 * tag, and its next completion in the groups' tournament tree (gt_set,
 * heap.h).  Defines sim_class_ps and the policy's event loops (loop.h).
 */
#include "sim/simint.h"
#include "sim/heap.h"

static void policy_run(struct sim_work *w);

/* A group's ready threads, by (finish tag, id): a tournament tree of
 * keys tag << 64 | id (GT_NONE: not ready), w->rt[g->hbase + 1] the
 * first, thread u's leaf at w->rleaf[u].  Every update walks the fixed
 * path to the root, taking each minimum without a branch (a binary
 * heap's sift, whose exit depends on the data, mispredicted about 0.8
 * branches per event of a ps run). */

static inline st_u128 rt_key(stime tag, uint32_t u)
{
	return (st_u128)tag << 64 | u;
}

static inline st_u128 rt_set(struct sim_work *w, const struct sgrp *g, uint32_t u,
                             st_u128 key)
{
	st_u128 *t = w->rt + g->hbase;
	uint32_t i = w->rleaf[u];
	st_u128 m = key;
	t[i] = key;
	for (; i > 1; i >>= 1) {
		st_u128 b = t[i ^ 1];
		m = m < b ? m : b;
		t[i >> 1] = m;
	}
	return m; /* the new root: the group's first thread */
}

/* The first ready thread of g (g->hn > 0). */
static inline uint32_t rt_top(const struct sim_work *w, const struct sgrp *g)
{
	return (uint32_t)w->rt[g->hbase + 1];
}

/* Add ready thread u with finish tag t->seg; each returns the tree's new
 * root, for ps_resched (not reloading it from memory shortens the chain
 * from one event to the next). */
static inline st_u128 pheap_push(struct sim_work *w, struct sgrp *g, uint32_t u)
{
	g->hn++;
	return rt_set(w, g, u, rt_key(w->th[u].seg, u));
}

/* u's finish tag grew to t->seg. */
static inline st_u128 pheap_later(struct sim_work *w, struct sgrp *g, uint32_t u)
{
	return rt_set(w, g, u, rt_key(w->th[u].seg, u));
}

static inline st_u128 pheap_del(struct sim_work *w, struct sgrp *g, uint32_t u)
{
	g->hn--;
	return rt_set(w, g, u, GT_NONE);
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
	const st_u128 *t = w->rt + g->hbase;
	while (g->hn && (stime)(t[1] >> 64) < g->V) {
		uint32_t u = (uint32_t)t[1];
		rt_set(w, g, u, rt_key(g->V, u));
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
 * tree node i (each needs tag - V0 units of that cycle; a node holds its
 * subtree's least key, GT_NONE above every X). */
static void ps_finishing(const struct sim_work *w, const struct sgrp *g, uint32_t i,
                         uint64_t X, struct ps_fin *f)
{
	const st_u128 *t = w->rt + g->hbase;
	if ((stime)(t[i] >> 64) > X)
		return;
	if (i < g->rcap) {
		ps_finishing(w, g, 2 * i, X, f);
		ps_finishing(w, g, 2 * i + 1, X, f);
		return;
	}
	uint64_t c_minus_need = X - (stime)(t[i] >> 64);
	f->lost += c_minus_need;
	if (g->nslots - c_minus_need > f->maxg)
		f->maxg = g->nslots - c_minus_need;
	f->n++;
	if ((uint32_t)t[i] < f->id)
		f->id = (uint32_t)t[i];
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
	ps_finishing(w, g, 1, V0 + units, &f);
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

/* Put a ps group's next completion into the groups' tree (gt_set);
 * `top` is the root of the group's tree of ready threads.  Always
 * inlined into the class members (the compiler kept one copy, called
 * from each): 3-8% less time per run on the traces of bench/vs-simgrid;
 * inlining make_ready and leave_cpu (thread.h) as well made every run
 * about 30% slower. */
static inline __attribute__((always_inline)) void ps_resched(struct sim_work *w, uint32_t gi, st_u128 top)
{
	struct sgrp *g = &w->g[gi];
	uint32_t id = w->p->n + gi;
	if (g->hn == 0) {
		g->tshort = g->tnext = UINT64_MAX;
		gt_set(w, gi, GT_NONE);
		return;
	}
	/* the first thread and its tag, from the tree (the pool's ps_clamp
	 * may have raised the tag above th[u].seg to V: left is 0 either
	 * way) */
	uint32_t u = (uint32_t)top;
	uint64_t F = (stime)(top >> 64), left = F > g->V ? F - g->V : 0;
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
	g->unext = u;
	gt_set(w, gi, hent_key(t, 0, u, id));
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
		g->ndef += !t->deferred;
		t->deferred = 1;
		heap_set(w, u, join, 0, u);
		return;
	}
	g->ndef -= t->deferred;
	t->deferred = 0;
	t->state = ST_RUN;
	ps_advance(w, g, T);
	if (g->m == 0) {
		g->V = 0;
		grp_busy(w, g, T);
	}
	t->seg = g->V + t->rem;
	g->m++;
	st_u128 top = pheap_push(w, g, u);
	if (w->flags & SIM_SCHEDULE) {
		t->run_from = T;
		sim_iv_open(w, T);
	}
	ps_resched(w, t->grp, top);
}

/* class dequeue: u leaves its group at T (a boundary). */
static inline __attribute__((always_inline)) void ps_dequeue(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	struct sgrp *g = &w->g[t->grp];
	ps_advance(w, g, T);
	st_u128 top = pheap_del(w, g, u);
	g->m--;
	if (g->m == 0) {
		g->V = 0;
		grp_idle(g, T);
	}
	ps_resched(w, t->grp, top);
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
	/* (the group's entry in the groups' tree is (tnext, unext) while
	 * tnext is not UINT64_MAX: only ps_resched writes it) */
	if (tag == t->seg && tag == g->V && g->tlast == T && g->tnext == T &&
	    g->unext == u && g->tshort == UINT64_MAX && rt_top(w, g) == u)
		return;
	t->seg = tag;
	ps_resched(w, t->grp, pheap_later(w, g, u));
}

/* class work_done: never called (under ps a thread's heap entry is only
 * ever a timer). */
static void ps_work_done(struct sim_work *w, uint32_t u, stime T)
{
	(void)w;
	(void)u;
	(void)T;
}

/* class tick: the tree's entry n + g is group g's next completion: the
 * thread with the smallest finish tag (ties: id) acts.  That thread is
 * the one the key names (ps_resched wrote it; every change of the group
 * since went through ps_resched; in the pool, the smallest id of those
 * finishing, which ps_clamp puts first): taking it from the key, not
 * from the group's tree, shortens the chain of dependent loads from one
 * event to the next (key -> thread -> record, not key -> group -> tree
 * -> thread -> record). */
static inline __attribute__((always_inline)) uint32_t ps_tick(struct sim_work *w, uint32_t id, stime T, uint32_t kt)
{
	struct sgrp *g = &w->g[id - w->p->n];
	ps_advance(w, g, T);
	return kt;
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
	.quantum = 0,
	.enqueue = ps_enqueue,
	.dequeue = ps_dequeue,
	.go_on = ps_go_on,
	.work_done = ps_work_done,
	.tick = ps_tick,
	.gtree = GT_GROUPS,
	.busy = ps_busy,
	.run = policy_run,
};

#define SIM_CLASS (&sim_class_ps)
#include "sim/loop.h"
