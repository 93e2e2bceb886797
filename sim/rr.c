/*
 * rr.c - the round-robin policy rr:Q (docs/simulation.md): a thread that
 * used Q units without blocking goes to the back of its group's ready
 * queue.  The slots of slot.h with a quantum: each busy slot has a
 * quantum-expiry event (class 1, so expiries at an instant come after
 * every thread's step of that instant, in increasing id of the expiring
 * thread).  Defines sim_class_rr and the policy's event loops (loop.h).
 */
#include "sim/simint.h"

#define SLOT_RR 1
#include "sim/slot.h"

static void policy_run(struct sim_work *w);

/*
 * Whole rounds (a bound processor, m >= 2 threads sharing it, no
 * schedule recorded): at an expiry at T, the running thread u and the
 * queue q1..q(m-1) rotate; one round of m quanta, each after a context
 * switch, lasts L = m (Q + switch cost), gives every thread Q units and
 * ends in the same state (u's quantum expiring, the same queue).  As long
 * as no thread's work ends within the rounds (rem > R Q) and no other
 * event comes before their end (the heap's next entry, E > T + R L),
 * nothing else can happen to this processor meanwhile: R rounds are
 * taken at once.  Returns the time of the expiry to handle, T + R L.
 */
static stime rr_rounds(struct sim_work *w, uint32_t s, struct sgrp *g, stime T)
{
	uint64_t Q = w->par->quantum, sc = w->par->switch_cost;
	/* the earliest event other than this expiry (the heap's top): the
	 * heap's next, or the slots' earliest end of work */
	stime E = UINT64_MAX / 2;
	if (w->hn > 1) {
		uint32_t c = w->hn > 2 && w->heap[2].key < w->heap[1].key ? 2 : 1;
		E = (stime)(w->heap[c].key >> 64);
	}
	if (gt_key(w, 1) != GT_NONE && (stime)w->gth[1] < E)
		E = (stime)w->gth[1];
	if (E - T <= 2 * (Q + sc))
		return T; /* not even a round of two threads fits */
	struct sth *t = &w->th[w->sl[s].run];
	uint64_t m = 1, minrem = t->rem;
	for (uint32_t v = g->rqh; v != NIL; v = w->th[v].qnext) {
		m++;
		if (w->th[v].rem < minrem)
			minrem = w->th[v].rem;
	}
	uint64_t L = m * (Q + sc), R = minrem ? (minrem - 1) / Q : 0;
	if (R > (E - T - 1) / L)
		R = (E - T - 1) / L;
	if (R == 0)
		return T;
	t->rem -= R * Q;
	for (uint32_t v = g->rqh; v != NIL; v = w->th[v].qnext)
		w->th[v].rem -= R * Q;
	if (w->flags & SIM_STATS)
		w->sl[s].busy += R * L;
	T += R * L;
	t->seg = T;
	w->rr_last = hent_key(T, 1, (uint32_t)w->sl[s].run, 0);
	return T;
}

/* rr quantum expiry on slot s at T. */
static inline __attribute__((always_inline)) void rr_expire(struct sim_work *w, uint32_t s, stime T)
{
	struct sslot *sl = &w->sl[s];
	uint32_t u = (uint32_t)sl->run;
	struct sth *t = &w->th[u];
	t->rem = (t->rem - (T - t->seg));
	if (w->flags & SIM_STATS)
		sl->busy = (sl->busy + (T - t->seg));
	t->seg = T;
	struct sgrp *g = slot_group(w, s);
	if (g->rqh == NIL) {
		/* alone: it keeps the processor until another thread joins the
		 * queue (rr_queued), so its next expiry that matters is the
		 * first boundary at or after the end of its current work */
		uint64_t Q = w->par->quantum, q = t->rem > Q ? (t->rem + Q - 1) / Q : 1;
		sl->qend = T + q * Q;
		if (q > 1) {
			sl->skip = 1;
			g->rr_skip = 1;
		}
		slot_arm(w, s, u);
		return;
	}
	if (g->nslots == 1 && !(w->flags & SIM_SCHEDULE))
		T = rr_rounds(w, s, g, T);
	if (w->flags & SIM_SCHEDULE)
		sim_iv_add(w, u, sim_iv_proc(w, u), t->run_from, T);
	t->state = ST_READY;
	t->slot = -1;
	q_push(w, &g->rqh, &g->rqt, u);
	slot_idle(w, s, T); /* the queue's head takes over the slot */
}

/*
 * A thread joined group g's empty queue at A: each slot whose running
 * thread was alone and skipped its expiries gets back its next quantum
 * boundary (boundaries lie Q apart, ending at qend): the first at or
 * after A, unless the expiry at A has already been handled in the order
 * of this instant (it would have come before rr_last, the expiry being
 * handled or last handled, and found the queue empty): then the one
 * after.  The same expiries happen as if it had stepped every quantum.
 */
static void rr_queued(struct sim_work *w, struct sgrp *g, stime A)
{
	uint64_t Q = w->par->quantum;
	g->rr_skip = 0;
	for (uint32_t i = 0; i < g->nslots; i++) {
		uint32_t s = g->slot0 + i;
		struct sslot *sl = &w->sl[s];
		if (!sl->skip)
			continue;
		sl->skip = 0;
		uint32_t u = (uint32_t)sl->run;
		stime B = sl->qend - (sl->qend - A) / Q * Q;
		st_u128 key = hent_key(B, 1, u, 0);
		if (key < w->rr_last)
			B += Q;
		if (B != sl->qend) {
			sl->qend = B;
			slot_arm(w, s, u);
		}
	}
}

/* class tick: the heap's entry n + G + s is slot s's quantum expiry. */
static uint32_t rr_tick(struct sim_work *w, uint32_t id, stime T, uint32_t kt)
{
	(void)kt;
	w->rr_last = w->heap[0].key;
	rr_expire(w, id - w->p->n - w->ngrp, T);
	return NIL;
}

const struct sim_class sim_class_rr = {
	.name = "rr",
	.quantum = 1,
	.enqueue = slot_enqueue,
	.dequeue = slot_dequeue,
	.go_on = slot_go_on,
	.work_done = slot_work_done,
	.tick = rr_tick,
	.gtree = GT_SLOTS,
	.busy = slot_busy,
	.run = policy_run,
};

#define SIM_CLASS (&sim_class_rr)
#include "sim/loop.h"
