/*
 * thread.h - threads on processors, for every policy (part of the hot
 * loop: included by each policy's file after it defines SIM_CLASS, a
 * constant pointer to its struct sim_class; see simint.h).
 *
 * A thread becomes ready (created, woken, end of a timer), runs, leaves
 * its processor (blocks, sleeps, exits), proceeds past an acquisition
 * (at once or after a latency, as a timer), or goes on with its next
 * record while it keeps running.  What a policy does with a group's ready
 * threads is SIM_CLASS's business.
 *
 * Order of a step's effects (docs/sim.md): a thread blocked on an
 * acquisition proceeds past its record when the release decides it; it
 * becomes ready at max(decision, not-before), where not-before collects
 * latencies (time of the release + t when the releaser's processor
 * differs); waiting out a latency uses no CPU and counts as blocked time.
 * A processor that becomes free starts its next ready thread at once (so
 * a ready thread with zero work can act in the same instant).
 */
#ifndef SHADOWBIND_SIM_THREAD_H
#define SHADOWBIND_SIM_THREAD_H

#ifndef SIM_CLASS
#error "thread.h is included by a policy's file after it defines SIM_CLASS"
#endif

#include "sim/heap.h"

enum { GO_ON, STOPPED };

/* u becomes ready at T (created, woken, end of a timer). */
static void make_ready(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	/* its next record is cold (threads' streams lie apart): fetch it now,
	 * before the thread runs */
	__builtin_prefetch(&w->tr->rec[t->cur]);
	if (w->flags & SIM_STATS) {
		if (t->state == ST_NEW)
			w->ist[u].start = T;
		else if (!t->deferred)
			w->ist[u].blocked += T - t->bstart;
	}
	t->bk = BK_NONE;
	SIM_CLASS->enqueue(w, u, T);
}

/* u, running, stops using its processor at T (blocks, sleeps, exits). */
static void leave_cpu(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	if (w->flags & SIM_SCHEDULE)
		sim_iv_add(w, u, sim_iv_proc(w, u), t->run_from, T);
	SIM_CLASS->dequeue(w, u, T);
	t->bstart = T;
	t->wsince = T;
}

/* u's acquisition record completed at decision time T while u was off its
 * processor: go on with the next record, after any latency. */
static inline __attribute__((always_inline)) void proceed(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	t->cur++;
	load_work(w, u);
	if (t->nb > T) {
		t->state = ST_TIMER;
		heap_set(w, u, t->nb, 0, u);
	} else {
		make_ready(w, u, T);
	}
}

/* u (running) exits at T: it leaves its processor, and the run's makespan
 * and count of live threads take it in; exit_proc keeps its processor
 * for the latency of its joiners, whom each model releases itself. */
static void thread_exit(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	t->exit_proc = t->lproc;
	leave_cpu(w, u, T);
	t->state = ST_DONE;
	t->exit_time = T;
	if (w->flags & SIM_STATS)
		w->ist[u].end = T;
	if (T > w->makespan)
		w->makespan = T;
	w->live--;
}

/* Block u (running) at T for reason bk on object obj. */
static void block(struct sim_work *w, uint32_t u, stime T, uint8_t bk,
                  uint32_t obj)
{
	leave_cpu(w, u, T);
	w->th[u].state = ST_BLOCK;
	w->th[u].bk = bk;
	w->th[u].wobj = obj;
}

/* What every step of every model does first: count it, name the releaser
 * for the schedule, charge the record's work (and create cost), and clear
 * the latency constraint of the previous acquisition. */
static inline void step_begin(struct sim_work *w, uint32_t u, const struct trace_rec *r)
{
	w->steps++;
	w->cur_releaser = (int32_t)u;
	if (w->flags & SIM_STATS)
		w->ist[u].cpu += r->work + op_cost(w, u, r);
	w->th[u].nb = 0;
}

/* u creates a at T (its create record's step): a becomes ready.  A
 * remote a (create_is_remote) spends start_cost_remote at its start; u
 * spends create_cost_remote's excess over create_cost right after the
 * create, before its next record's work (pend); a becomes ready no
 * earlier than T + that excess + the latency between their processors
 * (waiting it out counts as blocked time from T, its start); the first
 * remote create marks the process spread (w->spread), and from then on
 * a local create past the run's first spread_cached costs u spread_cost
 * more the same way.  Returns
 * how long u waits off its processor right after the create (bound
 * mode, a remote a: create_wait_remote; else 0): the caller's step
 * (create_step) makes it wait. */
static inline uint64_t create_thread(struct sim_work *w, uint32_t u, uint32_t a, stime T)
{
	struct sth *t = &w->th[a];
	/* (counting the creates: spread_cached) */
	if (__builtin_expect(w->op_remote, 0) && (w->ncreated++, create_is_remote(w, u, a))) {
		const struct sim_params *par = w->par;
		w->spread = 1;
		t->xremote = 1;
		load_work(w, a);
		/* its start costs more CPU than a local one: before its first
		 * record's work */
		t->rem += par->start_cost_remote;
		uint64_t extra = par->create_cost_remote > par->create_cost ?
		                 par->create_cost_remote - par->create_cost : 0;
		w->th[u].pend += extra;
		if (w->flags & SIM_STATS) {
			w->ist[a].cpu += par->start_cost_remote;
			w->ist[u].cpu += extra;
		}
		uint64_t wait = par->mode == SIM_BOUND ? par->create_wait_remote : 0;
		stime nb = T + wait + extra + (w->lat_on ? lat_pair(w, w->th[u].lproc, t->lproc) : 0);
		if (nb > T) {
			if (w->flags & SIM_STATS)
				w->ist[a].start = T;
			t->bstart = T;
			t->state = ST_TIMER;
			heap_set(w, a, nb, 0, a);
			return wait;
		}
		make_ready(w, a, T);
		return wait;
	}
	/* a local create in a bound process spread over two processors,
	 * past the run's first spread_cached creates (spread_cost is 0
	 * unless bound with spread_create) */
	if (__builtin_expect(w->spread, 0) && w->spread_cost && w->ncreated > w->par->spread_cached) {
		w->th[u].pend += w->spread_cost;
		if (w->flags & SIM_STATS)
			w->ist[u].cpu += w->spread_cost;
	}
	load_work(w, a);
	make_ready(w, a, T);
	return 0;
}

/* u's create step at T (record r creates r->a): GO_ON, or STOPPED when
 * u waits off its processor first (create_thread), as a sleep does. */
static inline int create_step(struct sim_work *w, uint32_t u, const struct trace_rec *r, stime T)
{
	uint64_t wait = create_thread(w, u, r->a, T);
	if (!wait)
		return GO_ON;
	leave_cpu(w, u, T);
	w->th[u].nb = T + wait;
	proceed(w, u, T);
	return STOPPED;
}

/* After a step returned GO_ON: next record, keep running. */
static void go_on(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	t->cur++;
	load_work(w, u);
	SIM_CLASS->go_on(w, u, T);
}

#endif
