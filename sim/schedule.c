/*
 * schedule.c - recording the schedule (SIM_SCHEDULE): the intervals
 * during which each thread ran on a processor, and every completed
 * synchronization.  The only place a run allocates after setup: the
 * arrays double as needed; on allocation failure the run stops with
 * SIM_ENOMEM (w->nomem).
 */
#include <stdlib.h>

#include "sim/simint.h"

/* Room for one more of n elements of `size` bytes in arr (cap allocated;
 * doubles).  Returns the array, or NULL (out of memory: sets w->nomem; arr
 * stays valid and unaltered). */
static void *grow(struct sim_work *w, void *arr, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return arr;
	size_t c = *cap ? 2 * *cap : 1024;
	void *a = realloc(arr, c * size);
	if (!a) {
		w->nomem = 1;
		w->halt = 1;
		return NULL;
	}
	*cap = c;
	return a;
}

void sim_prof_step(struct sim_work *w, stime T, int d)
{
	if (T < w->prof_last || (d < 0 && w->prof_run == 0) ||
	    (d > 0 && w->prof_run >= w->p->n)) {
		w->prof_bad = 1;
		return;
	}
	w->prof[w->prof_run] += T - w->prof_last;
	w->prof_last = T;
	w->prof_run = (uint32_t)((int64_t)w->prof_run + d);
}

void sim_iv_add(struct sim_work *w, uint32_t u, int32_t proc, stime from,
                   stime to)
{
	if (w->flags & SIM_PROFILE) {
		sim_prof_step(w, to, -1);
		return;
	}
	if (from == to)
		return;
	struct sim_interval *a = grow(w, w->iv, w->niv, &w->iv_cap, sizeof *a);
	if (!a)
		return;
	w->iv = a;
	struct sim_interval *iv = &a[w->niv++];
	iv->thread = u;
	iv->proc = proc;
	iv->from = ST(from);
	iv->to = ST(to);
}

void sim_sy_add(struct sim_work *w, uint32_t u, uint32_t rec, stime T,
                   int32_t releaser)
{
	if (w->flags & SIM_NO_SYNCS)
		return;
	struct sim_sync *a = grow(w, w->sy, w->nsy, &w->sy_cap, sizeof *a);
	if (!a)
		return;
	w->sy = a;
	struct sim_sync *s = &a[w->nsy++];
	s->time = ST(T);
	s->rec = rec;
	s->thread = u;
	s->releaser = releaser;
}

/* The processor a thread's interval is reported on. */
int32_t sim_iv_proc(const struct sim_work *w, uint32_t u)
{
	if (w->par->mode == SIM_UNBOUND)
		return w->par->policy == SIM_PS ? SIM_PROC_ANY : w->th[u].slot;
	uint32_t gi = w->th[u].grp;
	return gi < w->par->cpus ? (int32_t)gi : TRACE_SHADOW;
}
