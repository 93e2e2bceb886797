/*
 * run.c - a run: check the parameters, set the workspace up for them
 * (groups, slots, threads, objects), run the policy's event loop (its
 * class's run: fifo.c, rr.c, ps.c), and fill the result; the model scheme
 * of Paper VIII (SIM_AUTO) and the cutoff for searches.
 *
 * Scheduling groups: bound mode has one group per processor 0..k-1 and
 * one per shadow thread, each with one slot (processor).  Unbound mode
 * has one group with k slots sharing one ready queue.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/simint.h"

/* The policies' classes, by enum sim_policy (ORDER POLICY, sim.h). */
const struct sim_class *const sim_classes[SIM_NPOLICIES] = {
	[SIM_PS] = &sim_class_ps,
	[SIM_FIFO] = &sim_class_fifo,
	[SIM_RR] = &sim_class_rr,
};

static void pm_setup(struct sim_work *w)
{
	const struct sim_pairs *px = &w->p->px;
	for (uint32_t u = 0; u < w->p->n; u++) {
		struct pth *pt = &w->pt[u];
		pt->npend = px->th_ncut[u];
		pt->lhn = 0;
		pt->sqh = pt->sqt = SIM_NONE;
		pt->idle = pt->exit_wait = 0;
	}
	for (uint32_t e = 0; e < px->nev; e++)
		w->ev[e].left = px->ev_need[e];
	for (uint32_t d = 0; d < px->nwait; d++)
		w->w_left[d] = px->w_off[d + 1] - px->w_off[d];
}

static int setup(struct sim_work *w, const struct sim_params *par,
                 const int32_t *binding)
{
	const struct sim_program *p = w->p;
	const struct trace *tr = p->tr;
	uint32_t n = p->n, k = par->cpus;
	/* unbound with the OS's own remote costs: a copy that has them */
	if (par->mode == SIM_UNBOUND && par->machine && par->unbound_costs) {
		w->upar = *par;
		w->upar.create_cost_remote = par->unbound_create_cost_remote;
		w->upar.start_cost_remote = par->unbound_start_cost_remote;
		w->upar.exit_cost_remote = par->unbound_exit_cost_remote;
		par = &w->upar;
	}
	if (k == 0 || n >= (uint32_t)1 << 31 || (unsigned)par->policy >= SIM_NPOLICIES ||
	    (sim_classes[par->policy]->quantum && par->quantum == 0) || par->mode > SIM_UNBOUND ||
	    par->unbound_local_ppm > 1000000)
		return SIM_EINVAL;
	if (par->model != SIM_DIRECT && par->model != SIM_CLIENT_SERVER &&
	    par->model != SIM_STRICT)
		return SIM_EINVAL;
	/* Times stay below 2^63: trace work + sleeps < 2^62 (reader), and
	 * each record adds at most one latency, create and switch cost. */
	uint64_t per = 0, lim = (uint64_t)1 << 62, lat = par->latency;
	int over = 0;
	for (unsigned kd = 0; kd < TRACE_NKINDS; kd++) {
		const uint64_t *o = par->obj_latency[kd];
		if (!o)
			continue;
		over = 1;
		uint32_t no = kd == TRACE_K_THREAD ? n : tr->nobj[kd];
		for (uint32_t i = 0; i < no; i++)
			if (o[i] > lat)
				lat = o[i];
	}
	if ((over || par->pool) && par->model != SIM_DIRECT)
		return SIM_EINVAL; /* the override and pools: Direct model only */
	/* the machine's matrix (its diagonal is not read) */
	uint64_t latmax = par->latency;
	if (par->lat_matrix)
		for (uint64_t i = 0; i < (uint64_t)k * k; i++)
			if (i / k != i % k && par->lat_matrix[i] > latmax)
				latmax = par->lat_matrix[i];
	if (par->lat_kinds) {
		if (par->wake_busy > latmax)
			latmax = par->wake_busy;
		if (par->transfer > latmax)
			latmax = par->transfer;
	}
	if (latmax > lat)
		lat = latmax;
	uint64_t cc = par->create_cost, ec = par->exit_cost;
	if (par->machine && par->create_cost_remote > cc)
		cc = par->create_cost_remote;
	if (par->machine && par->exit_cost_remote > ec)
		ec = par->exit_cost_remote;
	if (par->pool && par->pool->p != p)
		return SIM_EINVAL;
	if (lat >= lim || cc >= lim || ec >= lim || par->start_cost_remote >= lim ||
	    par->create_wait_remote >= lim || par->switch_cost >= lim || par->quantum >= lim || par->spin >= lim ||
	    par->wake_local >= lim || par->spread_create >= lim)
		return SIM_EOVERFLOW;
	/* a create record may pay a latency (create_latency) besides its
	 * cost, an exit record its cost; a wake-up from the thread's own
	 * processor wake_local */
	per = lat + cc + ec + par->switch_cost + par->spin + par->wake_local +
	      (par->machine ? lat + par->start_cost_remote + par->create_wait_remote +
	                      par->spread_create : 0);
	/* the checks below (a latency or a cost: per > 0), the lower bounds
	 * of sim_makespan_within and the token rings (a latency) read the
	 * program's per-record facts */
	if (per || (w->lbcut != UINT64_MAX && par->mode == SIM_BOUND))
		sim_program_facts(p);
	if (lat && tr->nobj[TRACE_K_SEM] && sim_work_reserve_tok(w) != 0)
		return SIM_ENOMEM;
	if (per && (p->nsync + n) > (lim / per))
		return SIM_EOVERFLOW;
	/* rr may also switch once per quantum of work */
	if (sim_classes[par->policy]->quantum && par->switch_cost &&
	    p->work / par->quantum > (lim - (p->nsync + n) * per) / par->switch_cost)
		return SIM_EOVERFLOW;
	if (sim_work_reserve_k(w, k) != 0)
		return SIM_ENOMEM;
	w->cs = par->model == SIM_CLIENT_SERVER;
	if (par->model != SIM_DIRECT) {
		if (sim_work_reserve_pm(w) != 0)
			return SIM_ENOMEM;
		pm_setup(w);
	}

	w->par = par;
	w->cls = sim_classes[par->policy];
	w->tr = tr;
	w->t_lat = par->latency;
	w->t_latmax = lat;
	w->lmat = par->lat_matrix;
	w->lk = k;
	w->lat_on = lat != 0;
	w->lkinds = par->lat_kinds != 0;
	memset(w->opcost, 0, sizeof w->opcost);
	w->opcost[TRACE_CREATE] = par->create_cost;
	w->opcost[TRACE_EXIT] = par->exit_cost;
	w->local_acc = 0;
	w->spread = 0;
	w->ncreated = 0;
	w->spread_cost = par->machine && par->mode == SIM_BOUND ? par->spread_create : 0;
	w->op_remote = par->machine && (par->create_cost_remote != par->create_cost ||
	                                par->exit_cost_remote != par->exit_cost || lat ||
	                                par->start_cost_remote || par->create_wait_remote ||
	                                w->spread_cost);
	w->pend_on = w->op_remote || par->wake_local;
	w->held_on = p->has_signal;
	w->nomem = 0;
	w->halt = 0;
	w->steps = 0;
	w->events = 0;
	w->rr_last = 0;
	w->makespan = 0;
	w->live = n;
	w->pool = par->pool;
	w->pool_next = 0;
	w->niv = w->nsy = 0;
	w->prof_last = 0;
	w->prof_run = 0;
	w->prof_bad = 0;
	w->hn = 0;
	for (uint32_t i = 0; i < w->ids; i++)
		w->hpos[i] = -1;

	/* groups */
	uint32_t ngrp;
	if (par->mode == SIM_UNBOUND) {
		ngrp = 1;
		memset(&w->g[0], 0, sizeof w->g[0]);
		w->g[0].nslots = k;
		w->g[0].slot0 = 0;
		w->nslot = k;
	} else {
		ngrp = k;
		for (uint32_t i = 0; i < n; i++) {
			int32_t b = binding ? binding[i] : TRACE_SHADOW;
			if (b != TRACE_SHADOW && (b < 0 || (uint32_t)b >= k))
				return SIM_EINVAL;
			w->th[i].grp = b == TRACE_SHADOW ? ngrp++ : (uint32_t)b;
		}
		for (uint32_t gi = 0; gi < ngrp; gi++) {
			memset(&w->g[gi], 0, sizeof w->g[gi]);
			w->g[gi].nslots = 1;
			w->g[gi].slot0 = gi;
		}
		w->nslot = ngrp;
	}
	w->ngrp = ngrp;
	/* ps, fifo: the groups' or slots' tournament tree, none with an
	 * event */
	w->gtn = 0;
	if (w->cls->gtree) {
		uint32_t leaves = w->cls->gtree == GT_SLOTS ? w->nslot : ngrp;
		w->gtn = 1;
		while (w->gtn < leaves)
			w->gtn *= 2;
		for (uint32_t i = 1; i < 2 * w->gtn; i++)
			w->gth[i] = w->gtl[i] = UINT64_MAX; /* GT_NONE */
	}
	for (uint32_t gi = 0; gi < ngrp; gi++) {
		w->g[gi].rqh = w->g[gi].rqt = NIL;
		w->g[gi].V = w->g[gi].tlast = w->g[gi].busy = 0;
		w->g[gi].tnext = w->g[gi].tshort = UINT64_MAX;
		w->g[gi].rr_skip = 0;
		w->g[gi].lb = w->g[gi].idle0 = 0;
	}
	if (par->mode == SIM_BOUND && w->lbcut != UINT64_MAX) /* grp_busy */
		for (uint32_t i = 0; i < n; i++)
			w->g[w->th[i].grp].lb += p->thwork[i];
	for (uint32_t s = 0; s < w->nslot; s++) {
		w->sl[s].run = w->sl[s].last = -1;
		w->sl[s].qend = w->sl[s].busy = 0;
		w->sl[s].skip = 0;
	}
	/* ps: each group's tree of ready threads (ps.c), 2 * rcap keys,
	 * rcap the least power of two >= its threads, all not ready */
	for (uint32_t i = 0; i < n; i++)
		w->g[par->mode == SIM_UNBOUND ? 0 : w->th[i].grp].hn++;
	uint32_t rbase = 0;
	for (uint32_t gi = 0; gi < ngrp; gi++) {
		struct sgrp *g = &w->g[gi];
		g->rcap = g->hn ? 1 : 0;
		while (g->rcap < g->hn)
			g->rcap *= 2;
		g->hbase = rbase;
		rbase += 2 * g->rcap;
		g->hn = 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct sgrp *g = &w->g[par->mode == SIM_UNBOUND ? 0 : w->th[i].grp];
		w->rleaf[i] = g->rcap + g->hn++;
	}
	for (uint32_t gi = 0; gi < ngrp; gi++)
		w->g[gi].hn = 0;
	if (w->cls->gtree == GT_GROUPS)
		for (uint32_t i = 0; i < rbase; i++)
			w->rt[i] = GT_NONE;

	/* threads */
	uint32_t hb = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct sth *t = &w->th[i];
		uint32_t grp = par->mode == SIM_UNBOUND ? 0 : t->grp;
		memset(t, 0, sizeof *t);
		t->grp = grp;
		t->cur = tr->threads[i].first;
		t->end = t->cur + tr->threads[i].nrec;
		t->state = ST_NEW;
		t->slot = -1;
		t->qnext = t->jhead = t->jtail = NIL;
		t->hbase = hb;
		if (w->held_on)
			hb += p->maxheld[i];
		if (par->mode == SIM_BOUND)
			t->lproc = (int32_t)grp;
		else if (par->policy == SIM_PS && k == 1)
			t->lproc = 0;
		else
			t->lproc = -(int32_t)i - 2; /* never ran / own processor */
	}
	if (w->flags & SIM_STATS) {
		memset(w->stats, 0, n * sizeof *w->stats);
		for (uint32_t i = 0; i < n; i++) {
			w->ist[i].start = w->ist[i].end = w->ist[i].cpu = w->ist[i].blocked = 0;
			w->stats[i].proc = par->mode == SIM_UNBOUND ? SIM_PROC_ANY :
			                   (binding ? binding[i] : TRACE_SHADOW);
		}
	}
	/* objects */
	for (uint32_t m = 0; m < tr->nobj[TRACE_K_MUTEX]; m++) {
		w->mx[m].owner = -1;
		w->mx[m].qh = w->mx[m].qt = NIL;
		w->mx[m].rel = 0;
		w->mx[m].rel_proc = NOPROC;
	}
	for (uint32_t s = 0; s < tr->nobj[TRACE_K_SEM]; s++) {
		struct ssem *sm = &w->sem[s];
		sm->init_left = tr->sem_init[s];
		sm->qh = sm->qt = NIL;
		sm->rcount = 0;
	}
	if (w->lat_on) {
		uint32_t tb = 0;
		for (uint32_t s = 0; s < tr->nobj[TRACE_K_SEM]; s++) {
			w->ring[s].rbase = tb;
			w->ring[s].rcap = p->sem_cap[s];
			w->ring[s].rhead = 0;
			tb += p->sem_cap[s];
		}
	}
	for (uint32_t c = 0; c < tr->nobj[TRACE_K_COND]; c++) {
		w->cv[c].wh = w->cv[c].wt = w->cv[c].sh = w->cv[c].stl = NIL;
		w->cv[c].nw = 0;
	}
	for (uint32_t b = 0; b < tr->nobj[TRACE_K_BARRIER]; b++) {
		w->bar[b].count = 0;
		w->bar[b].qh = w->bar[b].qt = NIL;
	}
	for (uint32_t r = 0; r < tr->nobj[TRACE_K_RWLOCK]; r++) {
		w->rw[r].writer = -1;
		w->rw[r].readers = 0;
		w->rw[r].qh = w->rw[r].qt = NIL;
		w->rw[r].rel = w->rw[r].wrel = 0;
		w->rw[r].rel_proc = w->rw[r].wrel_proc = NOPROC;
	}
	return SIM_OK;
}

/* When a replay got stuck: its last event made the last running thread
 * block or exit, and leave_cpu noted that time in bstart. */
static stime stuck_time(const struct sim_work *w)
{
	stime t = 0;
	for (uint32_t u = 0; u < w->p->n; u++)
		if ((w->th[u].state == ST_BLOCK || w->th[u].state == ST_DONE) &&
		    w->th[u].bstart > t)
			t = w->th[u].bstart;
	return t;
}

/* One run of one model (not SIM_AUTO); `within`: also stop when a
 * processor's work and idle time pass the cutoff (grp_busy). */
static int run_model(const struct sim_program *p, struct sim_work *w,
                     const struct sim_params *par, const int32_t *binding,
                     unsigned flags, stime cutoff, int within,
                     struct sim_result *res)
{
	memset(res, 0, sizeof *res);
	res->makespan = ST(0);
	res->model = par->model;
	w->flags = flags;
	w->cutoff = cutoff;
	w->lbcut = within && par->mode == SIM_BOUND ? cutoff : UINT64_MAX;
	w->cut = 0;
	int rc = setup(w, par, binding);
	if (rc != SIM_OK) {
		res->status = rc;
		return rc;
	}
	const uint32_t n = p->n;
	if (flags & SIM_PROFILE) {
		if (!w->prof)
			w->prof = malloc(((size_t)n + 1) * sizeof *w->prof);
		if (!w->prof_out)
			w->prof_out = malloc(((size_t)n + 1) * sizeof *w->prof_out);
		if (!w->prof || !w->prof_out) {
			res->status = SIM_ENOMEM;
			return SIM_ENOMEM;
		}
		memset(w->prof, 0, ((size_t)n + 1) * sizeof *w->prof);
	}
	w->cls->run(w);
	res->steps = w->steps;
	res->events = w->events;
	if (w->nomem) {
		res->status = SIM_ENOMEM;
		return SIM_ENOMEM;
	}
	if (w->cut) {
		res->status = SIM_CUTOFF;
		return SIM_CUTOFF;
	}
	res->steps = w->steps;
	res->nprocs = par->cpus;
	if (flags & SIM_STATS) {
		for (uint32_t u = 0; u < n; u++) {
			struct sim_thread_stats *s = &w->stats[u];
			if (w->th[u].state != ST_DONE)
				continue;
			const struct istat *is = &w->ist[u];
			stime span = is->end - is->start, used = is->cpu + is->blocked;
			s->start = ST(is->start);
			s->end = ST(is->end);
			s->cpu = ST(is->cpu);
			s->blocked = ST(is->blocked);
			s->ready = ST(span > used ? span - used : 0);
		}
		for (uint32_t c = 0; c < par->cpus; c++) {
			int ovf = 0;
			w->busy[c] = w->cls->busy(w, c, &ovf);
		}
		res->threads = w->stats;
		res->busy = w->busy;
	}
	if ((flags & SIM_PROFILE) && !w->prof_bad && w->prof_last <= w->makespan &&
	    !w->live && w->prof_run == 0) {
		w->prof[w->prof_run] += w->makespan - w->prof_last;
		for (uint32_t i = 0; i <= n; i++)
			w->prof_out[i] = ST(w->prof[i]);
		res->profile = w->prof_out;
	}
	if (flags & SIM_SCHEDULE) {
		res->nintervals = w->niv;
		res->intervals = w->iv;
		res->nsyncs = w->nsy;
		res->syncs = w->sy;
	}
	if (w->live) {
		if (par->model == SIM_DIRECT)
			sim_collect_blocked(w, res);
		else
			sim_collect_blocked_pm(w, res);
		res->makespan = ST(stuck_time(w)); /* when the replay got stuck */
		res->status = SIM_DEADLOCK;
		return SIM_DEADLOCK;
	}
	res->makespan = ST(w->makespan);
	res->status = SIM_OK;
	return SIM_OK;
}

static int run_scheme(const struct sim_program *p, struct sim_work *w,
                      const struct sim_params *par, const int32_t *binding,
                      unsigned flags, stime cutoff, int within,
                      struct sim_result *res)
{
	if (w->p != p || par->model > SIM_AUTO) {
		memset(res, 0, sizeof *res);
		res->makespan = ST(0);
		res->model = par->model;
		res->status = SIM_EINVAL;
		return SIM_EINVAL;
	}
	if (par->model != SIM_AUTO)
		return run_model(p, w, par, binding, flags, cutoff, within, res);
	/* Paper VIII, Figure 14: Direct; on deadlock client-server; on
	 * deadlock strict sequence. */
	static const enum sim_model scheme[] = {SIM_DIRECT, SIM_CLIENT_SERVER, SIM_STRICT};
	struct sim_params q = *par;
	int rc = SIM_EINVAL;
	for (size_t i = 0; i < sizeof scheme / sizeof scheme[0]; i++) {
		q.model = scheme[i];
		/* the scheme must see Direct's deadlocks: no `within` */
		rc = run_model(p, w, &q, binding, flags, cutoff, 0, res);
		if (rc != SIM_DEADLOCK)
			break;
		if (par->pool)
			return rc; /* Direct only (sim.h) */
		for (unsigned kd = 0; kd < TRACE_NKINDS; kd++)
			if (par->obj_latency[kd])
				return rc; /* the override: Direct only (sim.h) */
	}
	return rc;
}

int sim_run(const struct sim_program *p, struct sim_work *w,
            const struct sim_params *par, const int32_t *binding,
            unsigned flags, struct sim_result *res)
{
	return run_scheme(p, w, par, binding, flags, UINT64_MAX, 0, res);
}

/* The makespan of a run without statistics: *out, or 0 when it did not
 * finish (deadlock, cutoff, error). */
static int makespan_of(const struct sim_program *p, struct sim_work *w,
                       const struct sim_params *par, const int32_t *binding,
                       uint64_t cutoff, int within, sim_time *out)
{
	struct sim_result res;
	int rc = run_scheme(p, w, par, binding, 0, cutoff, within, &res);
	*out = rc == SIM_OK ? res.makespan : ST(0);
	return rc;
}

int sim_makespan(const struct sim_program *p, struct sim_work *w,
                 const struct sim_params *par, const int32_t *binding,
                 sim_time *out)
{
	return makespan_of(p, w, par, binding, UINT64_MAX, 0, out);
}

int sim_makespan_cutoff(const struct sim_program *p, struct sim_work *w,
                        const struct sim_params *par, const int32_t *binding,
                        uint64_t cutoff, sim_time *out)
{
	return makespan_of(p, w, par, binding, cutoff, 0, out);
}

int sim_makespan_within(const struct sim_program *p, struct sim_work *w,
                        const struct sim_params *par, const int32_t *binding,
                        uint64_t cutoff, sim_time *out)
{
	return makespan_of(p, w, par, binding, cutoff, 1, out);
}
