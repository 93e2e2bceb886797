/*
 * loop.h - the event loop, instantiated by each policy's file (after it
 * defines SIM_CLASS, a constant pointer to its struct sim_class) for the
 * Direct model and for the pairing models: six loops in all, each with
 * its policy's code inlined and no test of the policy or the model per
 * event (see simint.h).  It also defines the policy's class member `run`
 * as policy_run, declared by the policy's file before its class.
 */
#ifndef SHADOWBIND_SIM_LOOP_H
#define SHADOWBIND_SIM_LOOP_H

#include "sim/direct.h"
#include "sim/pairing.h"

/*
 * Pop events in (time, class, id) order (the heap's top, or the
 * tournament tree's root if earlier) until none is left, memory ran
 * out (SIM_SCHEDULE), or an event lies later than w->cutoff while threads
 * remain (w->cut: the makespan is then larger, or the run would deadlock
 * later).  Always inlined with a constant `pm`.
 */
static inline __attribute__((always_inline)) void loop_events(struct sim_work *w,
                                                             const int pm)
{
	const uint32_t n = w->p->n;
	const stime cutoff = w->cutoff;
	while (!w->halt) {
		st_u128 key;
		if (SIM_CLASS->gtree) {
			/* the earlier of the heap's and the tree's */
			key = gt_key(w, 1);
			if (w->hn && w->heap[0].key < key)
				key = w->heap[0].key;
			if (key == GT_NONE)
				break;
		} else {
			if (!w->hn)
				break;
			key = w->heap[0].key;
		}
		uint32_t id = (uint32_t)key;
		stime T = (stime)(key >> 64);
		w->events++;
		if (__builtin_expect(T > cutoff, 0)) {
			w->cut = 1;
			return;
		}
		uint32_t u = id;
		if (id < n) {
			struct sth *t = &w->th[id];
			if (t->state == ST_TIMER) {
				heap_del(w, id);
				if (!pm && __builtin_expect(t->bk == BK_CWAIT_WAKE, 0))
					cwait_arrive(w, id, T);
				else if (!pm && __builtin_expect(t->bk == BK_LOCK_WAKE, 0))
					lock_arrive(w, id, T);
				else
					make_ready(w, id, T);
				continue;
			}
			/* fifo/rr: the running thread finished its work; its event
			 * stays in the heap: go_on moves it, leave_cpu removes it */
			SIM_CLASS->work_done(w, id, T);
		} else {
			u = SIM_CLASS->tick(w, id, T, (uint32_t)(key >> 32) & 0x7fffffff);
			if (u == NIL)
				continue;
		}
		if ((pm ? step_pm(w, u, T) : step(w, u, T)) == GO_ON)
			go_on(w, u, T);
	}
}

/* The class's run: thread 1 (the trace's initial thread) is ready at 0;
 * then the loop of w's model. */
static void policy_run(struct sim_work *w)
{
	load_work(w, w->tr->initial);
	make_ready(w, w->tr->initial, 0);
	if (w->par->model == SIM_DIRECT)
		loop_events(w, 0);
	else
		loop_events(w, 1);
}

#endif
