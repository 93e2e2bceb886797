/*
 * slot.h - processors that run one thread at a time: the fifo and rr
 * policies (part of the hot loop; fifo.c includes it with SLOT_RR 0,
 * rr.c with SLOT_RR 1, so the quantum's code is there only for rr).
 *
 * A scheduling group (a bound processor, a shadow thread's own, or the
 * unbound pool) has slots (1, or k in the pool) and one FIFO ready queue.
 * The running thread's event is the end of its current work (key id: the
 * thread) at the slot's leaf of the tournament tree w->gth/gtl (heap.h);
 * under rr the slot's quantum expiry is in the heap (class 1).  A context switch
 * (a slot starting another thread than it ran last) delays the start by
 * switch_cost, counted as the slot's busy time.
 */
#ifndef SHADOWBIND_SIM_SLOT_H
#define SHADOWBIND_SIM_SLOT_H

#ifndef SLOT_RR
#error "slot.h is included by fifo.c or rr.c after they define SLOT_RR"
#endif

#include "sim/heap.h"

#if SLOT_RR
static void rr_queued(struct sim_work *w, struct sgrp *g, stime A);
#endif

/* The heap entry of slot s's quantum expiry. */
static inline uint32_t slot_qid(const struct sim_work *w, uint32_t s)
{
	return w->p->n + w->ngrp + s;
}

/* Start (or continue) running u's current work on its slot. */
static void slot_arm(struct sim_work *w, uint32_t s, uint32_t u)
{
	struct sth *t = &w->th[u];
	stime done = t->seg + t->rem;
	/* the end of its work: in the slots' tournament tree (w->gth/gtl) */
	if (SLOT_RR) {
		struct sslot *sl = &w->sl[s];
		gt_set(w, s, done <= sl->qend ? hent_key(done, 0, u, u) : GT_NONE);
		heap_set(w, slot_qid(w, s), sl->qend, 1, u);
	} else {
		gt_set(w, s, hent_key(done, 0, u, u));
	}
}

/* Start u on slot s at T. */
static void slot_start(struct sim_work *w, uint32_t s, uint32_t u, stime T)
{
	struct sslot *sl = &w->sl[s];
	struct sth *t = &w->th[u];
	stime start = T;
	if (sl->last != (int32_t)u && sl->last >= 0 && w->par->switch_cost) {
		start = T + w->par->switch_cost;
		if (w->flags & SIM_STATS)
			sl->busy = sl->busy + w->par->switch_cost;
	}
	sl->run = (int32_t)u;
	sl->last = (int32_t)u;
	if (SLOT_RR)
		sl->skip = 0;
	t->state = ST_RUN;
	t->slot = (int32_t)s;
	if (w->par->mode == SIM_UNBOUND)
		t->lproc = (int32_t)s;
	t->seg = start;
	if (SLOT_RR)
		sl->qend = start + w->par->quantum;
	if (w->flags & SIM_SCHEDULE) {
		t->run_from = start;
		sim_iv_open(w, start);
	}
	slot_arm(w, s, u);
}

/* The group of slot s. */
static inline struct sgrp *slot_group(struct sim_work *w, uint32_t s)
{
	return &w->g[w->par->mode == SIM_UNBOUND ? 0 : s];
}

/* A slot fell idle at T (its thread left it): start the next ready
 * thread of its group, which takes over the slot's leaf (and under rr
 * the slot's expiry entry stays, to be moved). */
static void slot_idle(struct sim_work *w, uint32_t s, stime T)
{
	struct sslot *sl = &w->sl[s];
	sl->run = -1;
	struct sgrp *g = slot_group(w, s);
	uint32_t u = q_pop(w, &g->rqh, &g->rqt);
	if (u == NIL) {
		grp_idle(g, T);
		gt_set(w, s, GT_NONE);
		if (SLOT_RR)
			heap_del(w, slot_qid(w, s));
		return;
	}
	slot_start(w, s, u, T);
}

/* class enqueue: u ready at T runs on an idle slot of its group (the
 * lowest-numbered), or waits at the back of the group's queue. */
static void slot_enqueue(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	struct sgrp *g = &w->g[t->grp];
	t->state = ST_READY;
	for (uint32_t i = 0; i < g->nslots; i++) {
		uint32_t s = g->slot0 + i;
		if (w->sl[s].run < 0) {
			if (g->nslots == 1)
				grp_busy(w, g, T);
			slot_start(w, s, u, T);
			return;
		}
	}
	q_push(w, &g->rqh, &g->rqt, u);
#if SLOT_RR
	if (g->rr_skip)
		rr_queued(w, g, T);
#endif
}

/* class dequeue: u leaves its slot at T. */
static void slot_dequeue(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	uint32_t s = (uint32_t)t->slot;
	t->slot = -1;
	slot_idle(w, s, T);
}

/* class go_on: u keeps its slot (and its quantum) for its next record. */
static void slot_go_on(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	t->seg = T;
	slot_arm(w, (uint32_t)t->slot, u);
}

/* class work_done: the running thread's work ended at T. */
static inline void slot_work_done(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	if (w->flags & SIM_STATS)
		w->sl[t->slot].busy += T - t->seg;
	t->rem = 0;
}

/* class busy */
static sim_time slot_busy(const struct sim_work *w, uint32_t c, int *ovf)
{
	(void)ovf;
	return ST(w->sl[c].busy);
}

#endif
