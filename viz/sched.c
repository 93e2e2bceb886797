/*
 * sched.c - the per-record view of a simulated run, derived from the
 * trace and the schedule sim_run gives (intervals and synchronizations).
 *
 * A thread's records run back to back inside its run intervals: record r's
 * work (plus the create cost) is consumed from where the previous record
 * ended, at rate 1 under fifo and rr and, under ps, at the rate the
 * processor's sharing gives every member (1/m on a bound processor with m
 * threads, min(1, k/m) in the unbound pool: the service function V of the
 * group, computed from the intervals, which under ps are exactly the
 * group memberships).  An operation performed at the end of an interval
 * left the processor; the thread goes on at the next interval.  Anchors
 * the schedule gives exactly: every acquisition's grant time (a record
 * found to act after its grant ran with zero work inside an interval of
 * zero length, which the schedule omits: it is placed at the thread's
 * previous ready time), every exit (the thread's end).
 */
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "viz/vizint.h"

uint64_t viz_rec_work(const struct viz_sched *s, uint32_t r)
{
	const struct trace_rec *x = &s->tr->rec[r];
	return x->work + (x->op == TRACE_CREATE ? s->par.create_cost : 0);
}

int viz_is_acq(const struct trace_rec *r)
{
	return (trace_ops[r->op].role & TRACE_BLOCKS) && trace_op_effect(r) >= 0;
}

/* Does release record x release what acquisition a waits for?  ORDER OP */
static int releases(const struct trace *tr, const struct trace_rec *a,
                    const struct trace_rec *x, uint32_t xthread)
{
	switch (a->op) {
	case TRACE_LOCK: case TRACE_TRYLOCK:
		return (x->op == TRACE_UNLOCK && x->a == a->a) ||
		       (x->op == TRACE_CWAIT && x->b == a->a);
	case TRACE_WAIT: case TRACE_TRYWAIT:
		return x->op == TRACE_POST && x->a == a->a;
	case TRACE_JOIN:
		return x->op == TRACE_EXIT && xthread == a->a;
	case TRACE_CWAIT:
		return ((x->op == TRACE_SIGNAL || x->op == TRACE_BROADCAST) && x->a == a->a) ||
		       (x->op == TRACE_UNLOCK && x->a == a->b) ||
		       (x->op == TRACE_CWAIT && x->b == a->b);
	case TRACE_BARRIER:
		return x->op == TRACE_BARRIER && x->a == a->a;
	case TRACE_RDLOCK: case TRACE_WRLOCK:
		return x->op == TRACE_RWUNLOCK && x->a == a->a;
	case TRACE_SIGNAL: case TRACE_BROADCAST:
		return (x->op == TRACE_CWAIT && x->a == a->a) || x->op == TRACE_UNLOCK ||
		       x->op == TRACE_CWAIT;
	default:
		(void)tr;
		return 0;
	}
}

void viz_acq_object(const struct viz_sched *s, uint32_t acq, uint32_t rel,
                    uint8_t *kind, uint32_t *obj)
{
	const struct trace_rec *a = &s->tr->rec[acq];
	const struct trace_rec *x = rel != TRACE_NONE ? &s->tr->rec[rel] : NULL;
	*obj = a->a;
	switch (a->op) {
	case TRACE_JOIN: *kind = TRACE_K_THREAD; break;
	case TRACE_LOCK: case TRACE_TRYLOCK: *kind = TRACE_K_MUTEX; break;
	case TRACE_WAIT: case TRACE_TRYWAIT: *kind = TRACE_K_SEM; break;
	case TRACE_BARRIER: *kind = TRACE_K_BARRIER; break;
	case TRACE_RDLOCK: case TRACE_WRLOCK: *kind = TRACE_K_RWLOCK; break;
	case TRACE_CWAIT:
		if (x && (x->op == TRACE_UNLOCK || x->op == TRACE_CWAIT)) {
			*kind = TRACE_K_MUTEX;
			*obj = a->b;
		} else {
			*kind = TRACE_K_COND;
		}
		break;
	case TRACE_SIGNAL: case TRACE_BROADCAST:
		if (x && x->op == TRACE_UNLOCK) {
			*kind = TRACE_K_MUTEX;
			*obj = x->a;
		} else {
			*kind = TRACE_K_COND;
		}
		break;
	default:
		*kind = TRACE_K_THREAD;
		*obj = s->rec_thread[acq];
	}
}

static int cmp_iv_thread(const void *a, const void *b)
{
	const struct viz_iv *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return 0;
}

static int cmp_iv_proc(const void *a, const void *b)
{
	const struct viz_iv *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

struct ept {
	uint64_t t;
	int d;
};

static int cmp_ept(const void *a, const void *b)
{
	const struct ept *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Build the ps service function of the intervals [lo, hi) of s->ivp
 * (one processor, or the pool), capacity k processors. */
static int vgrp_build(struct viz_vgrp *g, const struct viz_iv *iv, size_t n, double k)
{
	memset(g, 0, sizeof *g);
	if (n == 0)
		return 0;
	struct ept *e = malloc(2 * n * sizeof *e);
	g->t = malloc(2 * n * sizeof *g->t);
	g->v = malloc(2 * n * sizeof *g->v);
	g->rate = malloc(2 * n * sizeof *g->rate);
	if (!e || !g->t || !g->v || !g->rate) {
		free(e);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		e[2 * i].t = iv[i].from;
		e[2 * i].d = 1;
		e[2 * i + 1].t = iv[i].to;
		e[2 * i + 1].d = -1;
	}
	qsort(e, 2 * n, sizeof *e, cmp_ept);
	long m = 0;
	double v = 0;
	size_t j = 0;
	for (size_t i = 0; i < 2 * n;) {
		uint64_t t = e[i].t;
		if (j > 0)
			v += (double)(t - g->t[j - 1]) * g->rate[j - 1];
		while (i < 2 * n && e[i].t == t)
			m += e[i++].d;
		g->t[j] = t;
		g->v[j] = v;
		g->rate[j] = m <= 0 ? 0 : (k >= (double)m ? 1.0 : k / (double)m);
		j++;
	}
	g->n = j;
	free(e);
	return 0;
}

/* Index of the last breakpoint <= t (0 if none). */
static size_t vgrp_at(const struct viz_vgrp *g, uint64_t t)
{
	size_t lo = 0, hi = g->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (g->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static double vgrp_V(const struct viz_vgrp *g, uint64_t t)
{
	size_t j = vgrp_at(g, t);
	if (t < g->t[j])
		return g->v[j];
	return g->v[j] + (double)(t - g->t[j]) * g->rate[j];
}

static double vgrp_Vd(const struct viz_vgrp *g, double t)
{
	uint64_t ti = t <= 0 ? 0 : (uint64_t)t;
	size_t j = vgrp_at(g, ti);
	if (t < (double)g->t[j])
		return g->v[j];
	return g->v[j] + (t - (double)g->t[j]) * g->rate[j];
}

/* The service group of an interval (NULL: rate 1). */
static const struct viz_vgrp *grp_of(const struct viz_sched *s, const struct viz_iv *iv)
{
	if (!s->vg)
		return NULL;
	if (iv->proc == SIM_PROC_ANY)
		return &s->vg[s->par.cpus];
	if (iv->proc >= 0 && (uint32_t)iv->proc < s->par.cpus)
		return &s->vg[iv->proc];
	return NULL; /* shadow: alone */
}

/* Work the thread of iv can do in [a, b] inside iv. */
static double progress(const struct viz_sched *s, const struct viz_iv *iv, uint64_t a, uint64_t b)
{
	const struct viz_vgrp *g = grp_of(s, iv);
	if (!g)
		return (double)(b - a);
	return vgrp_V(g, b) - vgrp_V(g, a);
}

double viz_progress(const struct viz_sched *s, const struct viz_iv *iv, double a, double b)
{
	const struct viz_vgrp *g = grp_of(s, iv);
	if (!g)
		return b - a;
	return vgrp_Vd(g, b) - vgrp_Vd(g, a);
}

/* When, from a inside iv, the thread has done w more work (<= to). */
static uint64_t time_at(const struct viz_sched *s, const struct viz_iv *iv, uint64_t a, uint64_t w)
{
	const struct viz_vgrp *g = grp_of(s, iv);
	if (!g)
		return a + w;
	double target = vgrp_V(g, a) + (double)w;
	size_t j = vgrp_at(g, a);
	while (j + 1 < g->n && g->v[j + 1] < target)
		j++;
	double t = g->rate[j] > 0 ? (double)g->t[j] + (target - g->v[j]) / g->rate[j] : (double)iv->to;
	uint64_t r = t <= (double)a ? a : (uint64_t)llround(t);
	if (r > iv->to)
		r = iv->to;
	if (r < a)
		r = a;
	return r;
}

const struct viz_rec_times *viz_sched_rec(const struct viz_sched *s, uint32_t r)
{
	return &s->rt[r];
}

uint64_t viz_sched_makespan(const struct viz_sched *s)
{
	return s->makespan;
}

const struct trace *viz_sched_trace(const struct viz_sched *s)
{
	return s->tr;
}

void viz_sched_free(struct viz_sched *s)
{
	if (!s)
		return;
	if (s->vg) {
		for (uint32_t i = 0; i <= s->par.cpus; i++) {
			free(s->vg[i].t);
			free(s->vg[i].v);
			free(s->vg[i].rate);
		}
		free(s->vg);
	}
	free(s->proc);
	free(s->tstart);
	free(s->tend);
	free(s->tcpu);
	free(s->creator);
	free(s->iv);
	free(s->iv_first);
	free(s->ivp);
	free(s->busy);
	free(s->rt);
	free(s->rec_thread);
	free(s);
}

size_t viz_iv_from(const struct viz_sched *s, uint32_t u, uint64_t t)
{
	size_t lo = s->iv_first[u], hi = s->iv_first[u + 1];
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (s->iv[m].from < t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* The processor v ran on at time t (unbound fifo/rr), or INT32_MIN. */
static int32_t proc_at(const struct viz_sched *s, uint32_t v, uint64_t t)
{
	size_t i = viz_iv_from(s, v, t + 1); /* first with from > t */
	return i > s->iv_first[v] ? s->iv[i - 1].proc : INT32_MIN;
}

static int lat_applies(const struct viz_sched *s, uint32_t v, uint32_t u, uint64_t g,
                       int32_t uproc)
{
	if (!s->par.latency || v == u)
		return 0;
	if (s->par.mode == SIM_UNBOUND) {
		if (s->par.policy == SIM_PS)
			return s->par.cpus >= 2;
		return proc_at(s, v, g) != uproc;
	}
	return s->proc[v] == TRACE_SHADOW || s->proc[u] == TRACE_SHADOW || s->proc[v] != s->proc[u];
}

/* The thread went off its processor after record `prev` (at its op) and
 * runs again at `at`: set prev's ready and resume. */
static void went_off(struct viz_sched *s, uint32_t u, uint32_t prev, uint64_t at, int32_t lastproc)
{
	struct viz_rec_times *t = &s->rt[prev];
	const struct trace_rec *x = &s->tr->rec[prev];
	if (at < t->op)
		at = t->op;
	uint64_t rd = t->op;
	if (x->op == TRACE_SLEEP) {
		rd = t->op + trace_sleep_time(x);
	} else if (t->grant != UINT64_MAX) {
		rd = t->grant > t->op ? t->grant : t->op;
		if (t->releaser >= 0 && lat_applies(s, (uint32_t)t->releaser, u, t->grant, lastproc))
			rd = t->grant + s->par.latency;
		else if (t->releaser < 0 && s->par.latency)
			rd = t->op + s->par.latency;
	}
	t->ready = rd < at ? rd : at;
	t->resume = at;
}

/* Does record r stop the thread (block, sleep)?  By the schedule: an
 * acquisition granted by another thread, later than asked. */
static int stops(const struct viz_sched *s, uint32_t r, uint64_t op)
{
	const struct viz_rec_times *t = &s->rt[r];
	const struct trace_rec *x = &s->tr->rec[r];
	if (x->op == TRACE_SLEEP || x->op == TRACE_CWAIT)
		return 1;
	return t->grant != UINT64_MAX && t->releaser >= 0 && t->grant >= op;
}

/* After record r stopped (ready at rt[r].ready, next interval at `at`):
 * when does a run of zero-work records that follows happen without an
 * interval (the schedule omits zero-length ones)?  UINT64_MAX: they wait
 * for the next interval. */
static uint64_t zero_run(const struct viz_sched *s, uint32_t u, uint32_t q0, uint64_t rd,
                         uint64_t at)
{
	const struct trace_thread *th = &s->tr->threads[u];
	for (uint32_t q = q0; q < th->first + th->nrec; q++) {
		const struct trace_rec *x = &s->tr->rec[q];
		const struct viz_rec_times *t = &s->rt[q];
		if (x->op == TRACE_EXIT)
			return s->tend[u] < at ? s->tend[u] : UINT64_MAX;
		if (viz_rec_work(s, q) > 0)
			return UINT64_MAX;
		if (t->grant != UINT64_MAX && t->releaser >= 0)
			return t->grant < rd ? t->grant : rd;
		if (t->grant != UINT64_MAX)
			return t->grant <= at ? (t->grant > rd ? t->grant : rd) : UINT64_MAX;
		if (x->op == TRACE_SLEEP)
			return rd;
	}
	return UINT64_MAX;
}

/* Records of thread u: derive begin, op, ready, resume.  Zero-work
 * records at the end of an interval are performed there, before the
 * thread leaves (a leave is decided by a record that stops, or by the
 * next record needing work: a preemption). */
static void derive_thread(struct viz_sched *s, uint32_t u)
{
	const struct trace *tr = s->tr;
	const struct trace_thread *th = &tr->threads[u];
	const struct viz_iv *ivs = s->iv + s->iv_first[u];
	size_t n = s->iv_first[u + 1] - s->iv_first[u];
	size_t i = 0;             /* current interval, or the next one when off */
	int off = 1;              /* off a processor (before interval i)       */
	uint64_t pos = s->tstart[u];
	uint64_t zl = UINT64_MAX; /* time of a zero-length run while off      */
	int32_t lastproc = n ? ivs[0].proc : INT32_MIN;
	uint32_t prev = TRACE_NONE;
	if (th->nrec && (!n || ivs[0].from > pos))
		zl = zero_run(s, u, th->first, pos, n ? ivs[0].from : UINT64_MAX);
	for (uint32_t k = 0; k < th->nrec; k++) {
		uint32_t r = th->first + k;
		struct viz_rec_times *t = &s->rt[r];
		const struct trace_rec *x = &tr->rec[r];
		uint64_t w = viz_rec_work(s, r), w0 = w;
		int has_g = t->grant != UINT64_MAX, by_other = has_g && t->releaser >= 0;
		if (x->op == TRACE_EXIT) {
			uint64_t b = off ? (zl != UINT64_MAX ? zl : i < n ? ivs[i].from : pos) : pos;
			if (w > 0 && off && i < n)
				b = ivs[i].from;
			if (!off && w == 0 && prev != TRACE_NONE && i < n && pos >= ivs[i].to &&
			    pos < s->tend[u] && i + 1 >= n) {
				/* a zero-work exit after the last interval: the
				 * thread was off, waiting out the latency of its
				 * previous record (an acquisition granted at
				 * once), and exits on its return */
				went_off(s, u, prev, s->tend[u], lastproc);
				b = s->tend[u];
			}
			t->begin = b < s->tend[u] ? b : s->tend[u];
			t->op = t->ready = t->resume = s->tend[u];
			if (prev != TRACE_NONE && s->rt[prev].resume > t->begin)
				s->rt[prev].resume = t->begin;
			if (prev != TRACE_NONE && s->rt[prev].ready > s->rt[prev].resume)
				s->rt[prev].ready = s->rt[prev].resume;
			break;
		}
		if (off && w == 0 && zl != UINT64_MAX) {
			/* a zero-length run */
			if (prev != TRACE_NONE && s->rt[prev].resume > zl) {
				s->rt[prev].resume = zl;
				if (s->rt[prev].ready > zl)
					s->rt[prev].ready = zl;
			}
			t->begin = t->op = t->ready = t->resume = zl;
			if (has_g && !by_other && t->grant > zl)
				t->op = t->ready = t->resume = t->grant;
			if (stops(s, r, t->op)) {
				uint64_t at = i < n ? ivs[i].from : UINT64_MAX;
				went_off(s, u, r, at, lastproc);
				if (at == UINT64_MAX)
					t->resume = t->ready;
				zl = zero_run(s, u, r + 1, t->ready, t->resume);
				pos = t->resume;
			} else {
				zl = t->op;
				pos = t->op;
			}
			prev = r;
			continue;
		}
		if (off) {
			/* runs again at interval i */
			zl = UINT64_MAX;
			if (i < n) {
				if (prev != TRACE_NONE && s->rt[prev].resume > ivs[i].from)
					s->rt[prev].resume = ivs[i].from;
				pos = ivs[i].from;
				off = 0;
			}
		} else if (i < n && pos >= ivs[i].to &&
		           (w > 0 || (has_g && !by_other && t->grant > ivs[i].to))) {
			/* preempted (or waited out a latency) after prev */
			if (i + 1 < n) {
				i++;
				if (prev != TRACE_NONE)
					went_off(s, u, prev, ivs[i].from, lastproc);
				pos = ivs[i].from;
			}
		}
		t->begin = pos;
		while (w > 0 && i < n) {
			double avail = progress(s, &ivs[i], pos, ivs[i].to);
			if ((double)w <= avail + 1e-6) {
				pos = time_at(s, &ivs[i], pos, w);
				break;
			}
			uint64_t a = (uint64_t)llround(avail);
			w = a >= w ? 0 : w - a;
			if (i + 1 >= n) {
				pos = ivs[i].to;
				break;
			}
			i++;
			pos = ivs[i].from; /* preempted inside the record */
		}
		/* anchors: an acquisition granted at once happened at the
		 * grant; one that blocked asked at its interval's end */
		if (has_g && !by_other && t->grant >= t->begin) {
			pos = t->grant;
			while (i + 1 < n && ivs[i].to < pos)
				i++;
		} else if (by_other && i < n && ivs[i].to <= t->grant && pos <= ivs[i].to) {
			pos = ivs[i].to;
		} else if (has_g && t->grant < pos) {
			pos = t->grant > t->begin ? t->grant : t->begin;
		}
		if (w0 == 0 && pos > t->begin) {
			/* a zero-work record acted later than the thread could
			 * go on: it was not running meanwhile unless inside an
			 * interval */
			size_t q = viz_iv_from(s, u, pos + 1);
			if (q == s->iv_first[u] || s->iv[q - 1].to < pos || s->iv[q - 1].from >= pos) {
				t->begin = pos;
				if (prev != TRACE_NONE && s->rt[prev].resume < pos)
					s->rt[prev].resume = pos;
			}
		}
		t->op = t->ready = t->resume = pos;
		if (i < n)
			lastproc = ivs[i].proc;
		if (stops(s, r, pos) && !(x->op != TRACE_SLEEP && x->op != TRACE_CWAIT &&
		                          t->grant == pos && i < n && pos >= ivs[i].from && pos < ivs[i].to)) {
			if (i < n && pos >= ivs[i].from)
				i++;
			uint64_t at = i < n ? ivs[i].from : UINT64_MAX;
			went_off(s, u, r, at, lastproc);
			if (at == UINT64_MAX)
				t->resume = t->ready;
			off = 1;
			zl = zero_run(s, u, r + 1, t->ready, t->resume);
			pos = t->resume;
		}
		prev = r;
	}
	/* estimates never contradict what follows (the exit is exact) */
	for (uint32_t k = th->nrec; k-- > 0;) {
		struct viz_rec_times *t = &s->rt[th->first + k];
		if (k + 1 < th->nrec && t->resume > s->rt[th->first + k + 1].begin)
			t->resume = s->rt[th->first + k + 1].begin;
		if (t->ready > t->resume)
			t->ready = t->resume;
		if (t->op > t->ready)
			t->op = t->ready;
		if (t->begin > t->op)
			t->begin = t->op;
	}
}

/* The releasing record of acquisition r: v's record at the grant. */
static uint32_t find_release(const struct viz_sched *s, uint32_t r)
{
	const struct viz_rec_times *t = &s->rt[r];
	if (t->releaser < 0)
		return TRACE_NONE;
	uint32_t v = (uint32_t)t->releaser;
	const struct trace_thread *th = &s->tr->threads[v];
	/* last record of v with op <= grant */
	uint32_t lo = 0, hi = th->nrec;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (s->rt[th->first + mid].op <= t->grant)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return th->first;
	uint32_t best = th->first + lo - 1;
	for (uint32_t k = lo; k-- > 0;) {
		uint32_t x = th->first + k;
		if (s->rt[x].op != t->grant)
			break;
		if (releases(s->tr, &s->tr->rec[r], &s->tr->rec[x], v))
			return x;
	}
	return best;
}

int viz_sched_new(const struct sim_program *p, const struct sim_params *par,
                  const int32_t *binding, const struct sim_result *res,
                  struct viz_sched **out)
{
	*out = NULL;
	if (!p || !par || !res || res->status != SIM_OK || !res->threads ||
	    (res->nintervals && !res->intervals))
		return VIZ_EINVAL;
	const struct trace *tr = sim_program_trace(p);
	struct viz_sched *s = calloc(1, sizeof *s);
	if (!s)
		return VIZ_ENOMEM;
	s->tr = tr;
	s->par = *par;
	s->makespan = res->makespan.num / (res->makespan.den ? res->makespan.den : 1);
	uint32_t n = tr->nthreads;
	s->proc = malloc(n * sizeof *s->proc);
	s->tstart = malloc(n * sizeof *s->tstart);
	s->tend = malloc(n * sizeof *s->tend);
	s->tcpu = malloc(n * sizeof *s->tcpu);
	s->creator = malloc(n * sizeof *s->creator);
	s->iv_first = calloc(n + 1, sizeof *s->iv_first);
	s->niv = res->nintervals;
	s->iv = malloc((s->niv ? s->niv : 1) * sizeof *s->iv);
	s->ivp = malloc((s->niv ? s->niv : 1) * sizeof *s->ivp);
	s->rt = malloc((tr->nrec ? tr->nrec : 1) * sizeof *s->rt);
	s->rec_thread = malloc((tr->nrec ? tr->nrec : 1) * sizeof *s->rec_thread);
	s->nprocs = par->mode == SIM_BOUND && !binding ? 0 : par->cpus;
	s->busy = calloc(par->cpus + 1, sizeof *s->busy);
	if (!s->proc || !s->tstart || !s->tend || !s->tcpu || !s->creator || !s->iv_first ||
	    !s->iv || !s->ivp || !s->rt || !s->rec_thread || !s->busy)
		goto nomem;
	for (uint32_t u = 0; u < n; u++) {
		s->proc[u] = par->mode == SIM_UNBOUND ? SIM_PROC_ANY : binding ? binding[u] : TRACE_SHADOW;
		s->tstart[u] = res->threads[u].start.num / res->threads[u].start.den;
		s->tend[u] = res->threads[u].end.num / res->threads[u].end.den;
		s->tcpu[u] = res->threads[u].cpu.num / res->threads[u].cpu.den;
		s->creator[u] = TRACE_NONE;
		for (uint32_t k = 0; k < tr->threads[u].nrec; k++)
			s->rec_thread[tr->threads[u].first + k] = u;
	}
	if (res->busy && s->nprocs)
		for (uint32_t k = 0; k < s->nprocs; k++)
			s->busy[k] = sim_time_to_double(res->busy[k]);
	for (size_t r = 0; r < tr->nrec; r++) {
		struct viz_rec_times *t = &s->rt[r];
		memset(t, 0, sizeof *t);
		t->grant = UINT64_MAX;
		t->releaser = -1;
		t->rel_rec = TRACE_NONE;
		if (tr->rec[r].op == TRACE_CREATE)
			s->creator[tr->rec[r].a] = (uint32_t)r;
	}
	for (size_t i = 0; i < res->nsyncs; i++) {
		const struct sim_sync *y = &res->syncs[i];
		if (y->rec >= tr->nrec)
			continue;
		struct viz_rec_times *t = &s->rt[y->rec];
		uint64_t g = y->time.num / y->time.den;
		if (t->grant == UINT64_MAX || g >= t->grant) {
			t->grant = g;
			t->releaser = y->releaser == (int32_t)y->thread ? -1 : y->releaser;
		}
	}
	for (size_t i = 0; i < s->niv; i++) {
		const struct sim_interval *x = &res->intervals[i];
		s->iv[i].thread = x->thread;
		s->iv[i].proc = x->proc;
		s->iv[i].from = x->from.num / x->from.den;
		s->iv[i].to = x->to.num / x->to.den;
	}
	qsort(s->iv, s->niv, sizeof *s->iv, cmp_iv_thread);
	memcpy(s->ivp, s->iv, s->niv * sizeof *s->iv);
	qsort(s->ivp, s->niv, sizeof *s->ivp, cmp_iv_proc);
	for (size_t i = 0; i < s->niv; i++)
		s->iv_first[s->iv[i].thread + 1]++;
	for (uint32_t u = 0; u < n; u++)
		s->iv_first[u + 1] += s->iv_first[u];
	if (par->policy == SIM_PS) {
		s->vg = calloc(par->cpus + 1, sizeof *s->vg);
		if (!s->vg)
			goto nomem;
		size_t a = 0;
		while (a < s->niv) {
			size_t b = a;
			while (b < s->niv && s->ivp[b].proc == s->ivp[a].proc)
				b++;
			int32_t pr = s->ivp[a].proc;
			struct viz_vgrp *g = NULL;
			double k = 1;
			if (pr == SIM_PROC_ANY) {
				g = &s->vg[par->cpus];
				k = par->cpus;
			} else if (pr >= 0 && (uint32_t)pr < par->cpus) {
				g = &s->vg[pr];
			}
			if (g && vgrp_build(g, s->ivp + a, b - a, k))
				goto nomem;
			a = b;
		}
	}
	for (uint32_t u = 0; u < n; u++)
		derive_thread(s, u);
	for (size_t r = 0; r < tr->nrec; r++)
		if (s->rt[r].releaser >= 0)
			s->rt[r].rel_rec = find_release(s, (uint32_t)r);
	*out = s;
	return VIZ_OK;
nomem:
	viz_sched_free(s);
	return VIZ_ENOMEM;
}

char *viz_rec_label(const struct trace *tr, uint32_t r, char *buf, size_t len)
{
	uint32_t u = 0;
	/* binary search the thread of r (thread-major records) */
	uint32_t lo = 0, hi = tr->nthreads;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (tr->threads[mid].first <= r)
			lo = mid;
		else
			hi = mid;
	}
	u = lo;
	const char *nm = trace_thread_name(tr, u);
	const char *loc = trace_rec_loc(tr, r);
	if (loc)
		snprintf(buf, len, "T%u%s%s @%s", tr->threads[u].id, nm ? " " : "", nm ? nm : "", loc);
	else
		snprintf(buf, len, "T%u%s%s line %u", tr->threads[u].id, nm ? " " : "", nm ? nm : "",
		         tr->rec[r].line);
	return buf;
}

char *viz_us(enum trace_unit u, uint64_t t, char *buf, size_t len)
{
	uint64_t ns = trace_unit_ns(u); /* units: ns per trace unit */
	if (t == 0 || ns == 0 || ns == 1000) { /* tick: shown as us */
		snprintf(buf, len, "%llu", (unsigned long long)t);
	} else if (ns < 1000) { /* ns: three decimals */
		snprintf(buf, len, "%llu.%03llu", (unsigned long long)(t / 1000),
		         (unsigned long long)(t % 1000));
	} else { /* ms, s: t with the zeros of ns / 1000 appended (exact) */
		int n = snprintf(buf, len, "%llu", (unsigned long long)t);
		for (uint64_t z = ns / 1000; z > 1 && n > 0 && (size_t)n + 1 < len; z /= 10)
			buf[n++] = '0', buf[n] = 0;
	}
	return buf;
}

char *viz_obj_name(const struct trace *tr, uint8_t kind, uint32_t obj, char *buf, size_t len)
{
	if (kind == TRACE_NKINDS) {
		if (obj == UINT32_MAX)
			snprintf(buf, len, "shadow processor");
		else
			snprintf(buf, len, "processor %u", obj);
	} else if (kind == TRACE_K_THREAD) {
		snprintf(buf, len, "thread %u", obj < tr->nthreads ? tr->threads[obj].id : obj);
	} else {
		uint32_t id = obj < tr->nobj[kind] && tr->obj_id[kind] ? tr->obj_id[kind][obj] : obj;
		snprintf(buf, len, "%s %u", trace_kind_name(kind), id);
	}
	return buf;
}
