/*
 * program.c - what the simulator prepares once: the program (per-trace
 * facts: the most mutexes each thread holds, semaphore capacities, the
 * recorded pairing) and the workspace (every array a run needs, sized by
 * the program; the group and slot arrays by the largest k seen; the
 * pairing models' state on their first run).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/simint.h"

/* ------------------------------------------------------------------ */
/* Program */

/* The facts that take a pass over the records (sim_program.facts_ready);
 * returns whether the trace has a signal or broadcast. */
static uint8_t program_scan(struct sim_program *p)
{
	const struct trace *tr = p->tr;
	/* One pass over the records (also the total work), without a
	 * branch per operation but for posts: a switch mispredicted on
	 * mixed traces (the 2.5M-record transactions trace: 6.0 -> 3.9 ns
	 * per record, though 29 -> 38 instructions; a lock trace stays at
	 * 2.0 ns, the speed of streaming the records) */
	uint8_t sig = 0;
	uint64_t nsync = 0, work = 0;
	uint32_t held_total = 0, tok_total = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		const struct trace_thread *t = &tr->threads[i];
		const struct trace_rec *rec = tr->rec + t->first, *end = rec + t->nrec;
		uint32_t h = 0, mh = 0;
		uint64_t tw = 0;
		for (; rec < end; rec++) {
			unsigned op = rec->op;
			tw += rec->work;
			/* ORDER OP: mutexes held: lock +1, trylock +b (1 ok,
			 * 0 busy), unlock -1 (not below 0); each semaphore's
			 * posts (the latency token rings' size) */
			h += (op == TRACE_LOCK) + (op == TRACE_TRYLOCK ? rec->b : 0);
			h -= (op == TRACE_UNLOCK) & (h != 0);
			mh = h > mh ? h : mh;
			sig |= (op == TRACE_SIGNAL) | (op == TRACE_BROADCAST);
			nsync += (op != TRACE_SLEEP) & (op != TRACE_EXIT);
			if (op == TRACE_POST)
				p->sem_cap[rec->a]++;
		}
		p->thwork[i] = tw;
		work += tw;
		p->maxheld[i] = mh;
		held_total += mh;
	}
	for (uint32_t s = 0; s < tr->nobj[TRACE_K_SEM]; s++)
		tok_total += p->sem_cap[s];
	p->nsync = nsync;
	p->held_total = held_total;
	p->tok_total = tok_total;
	p->work = work; /* trace_total_work: the threads' records are all */
	return sig;
}

struct sim_program *sim_program_new(const struct trace *tr)
{
	struct sim_program *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->tr = tr;
	p->n = tr->nthreads;
	p->maxheld = calloc(p->n ? p->n : 1, sizeof *p->maxheld);
	p->thwork = calloc(p->n ? p->n : 1, sizeof *p->thwork);
	uint32_t nsem = tr->nobj[TRACE_K_SEM];
	p->sem_cap = calloc(nsem ? nsem : 1, sizeof *p->sem_cap);
	if (!p->maxheld || !p->thwork || !p->sem_cap) {
		sim_program_free(p);
		return NULL;
	}
	atomic_init(&p->px_ready, 0);
	atomic_init(&p->facts_ready, 0);
	if (pthread_mutex_init(&p->px_lock, NULL) != 0) {
		free(p->maxheld);
		free(p->thwork);
		free(p->sem_cap);
		free(p);
		return NULL;
	}
	/* A signal or broadcast names a condition variable: without one
	 * nobody keeps the mutexes a thread holds (has_signal = 0), and the
	 * pass over the records waits until a run needs its facts
	 * (sim_program_facts); a ps run without latency or costs never does
	 * (2-5 ns per record saved). */
	if (tr->nobj[TRACE_K_COND]) {
		p->has_signal = program_scan(p);
		atomic_store_explicit(&p->facts_ready, 1, memory_order_release);
	}
	return p;
}

void sim_program_facts(const struct sim_program *cp)
{
	/* a cache, as the pairing: the program stays logically immutable */
	struct sim_program *p = (struct sim_program *)cp;
	if (atomic_load_explicit(&p->facts_ready, memory_order_acquire))
		return;
	pthread_mutex_lock(&p->px_lock);
	if (!atomic_load_explicit(&p->facts_ready, memory_order_relaxed)) {
		program_scan(p);
		atomic_store_explicit(&p->facts_ready, 1, memory_order_release);
	}
	pthread_mutex_unlock(&p->px_lock);
}

int sim_program_pairs(const struct sim_program *cp)
{
	/* the pairing is a cache: the program was allocated non-const by
	 * sim_program_new, and stays logically immutable */
	struct sim_program *p = (struct sim_program *)cp;
	if (atomic_load_explicit(&p->px_ready, memory_order_acquire))
		return 0;
	int rc = 0;
	pthread_mutex_lock(&p->px_lock);
	if (!atomic_load_explicit(&p->px_ready, memory_order_relaxed)) {
		rc = sim_pairs_build(p->tr, &p->px);
		if (rc == 0)
			atomic_store_explicit(&p->px_ready, 1, memory_order_release);
	}
	pthread_mutex_unlock(&p->px_lock);
	return rc;
}

void sim_program_free(struct sim_program *p)
{
	if (!p)
		return;
	free(p->maxheld);
	free(p->thwork);
	free(p->sem_cap);
	sim_pairs_release(&p->px);
	pthread_mutex_destroy(&p->px_lock);
	free(p);
}

const struct trace *sim_program_trace(const struct sim_program *p)
{
	return p->tr;
}

/* ------------------------------------------------------------------ */
/* Workspace */

static void *xcalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

#define WORK_HUGE ((size_t)2 << 20) /* units: bytes */

/* An array of one entry per object of a kind (a task graph has a
 * semaphore per edge: 8 MB at 10^6 records) that setup writes before any
 * read, or that is read only where written first (the token rings): not
 * zeroed, and from 2 MiB up in whole huge pages where the system offers
 * them (MADV_HUGEPAGE; THP `madvise`).  The first run faulted such an
 * array in 4 KiB at a time, ~2.7 us a fault on this machine (a virtual
 * machine): 5-6 ns per record of the first run on the dag trace of
 * bench/vs-simgrid.  Freed with free(). */
static void *obj_alloc(size_t n, size_t size)
{
	if (n == 0 || size > SIZE_MAX / n || n * size < WORK_HUGE)
		return xcalloc(n, size);
	size_t bytes = (n * size + WORK_HUGE - 1) & ~(WORK_HUGE - 1);
	void *p = aligned_alloc(WORK_HUGE, bytes);
#ifdef MADV_HUGEPAGE
	if (p)
		madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

static void work_free_groups(struct sim_work *w)
{
	free(w->g);
	free(w->sl);
	free(w->heap);
	free(w->hpos);
	free(w->gth);
	free(w->gtl);
	free(w->busy);
	w->gth = w->gtl = NULL;
	w->gtcap = 0;
	w->g = NULL;
	w->sl = NULL;
	w->heap = NULL;
	w->hpos = NULL;
	w->busy = NULL;
	w->kmax = 0;
}

/* Size the group, slot and heap arrays for k processors. */
int sim_work_reserve_k(struct sim_work *w, uint32_t k)
{
	if (k <= w->kmax)
		return 0;
	work_free_groups(w);
	uint32_t n = w->p->n;
	size_t ng = (size_t)k + n, ids = (size_t)n + 2 * ng;
	w->g = xcalloc(ng, sizeof *w->g);
	w->sl = xcalloc(ng, sizeof *w->sl);
	w->heap = xcalloc(ids + 1, sizeof *w->heap); /* + 1: see heap_down */
	w->hpos = xcalloc(ids, sizeof *w->hpos);
	uint32_t gtcap = 1;
	while (gtcap < ng)
		gtcap *= 2;
	w->gth = xcalloc(2 * (size_t)gtcap, sizeof *w->gth);
	w->gtl = xcalloc(2 * (size_t)gtcap, sizeof *w->gtl);
	w->busy = xcalloc(k, sizeof *w->busy);
	if (!w->g || !w->sl || !w->heap || !w->hpos || !w->gth || !w->gtl || !w->busy) {
		work_free_groups(w);
		return -1;
	}
	w->kmax = k;
	w->ids = (uint32_t)ids;
	w->gtcap = gtcap;
	return 0;
}

struct sim_work *sim_work_new(const struct sim_program *p)
{
	struct sim_work *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	const struct trace *tr = p->tr;
	w->p = p;
	/* the mutexes each thread holds: kept only with a signal (has_signal,
	 * set by sim_program_new; the facts are there then) */
	uint32_t held_total = p->has_signal ? p->held_total : 0;
	w->th = xcalloc(p->n, sizeof *w->th);
	w->held = xcalloc(held_total, sizeof *w->held);
	w->hlink = xcalloc(held_total, sizeof *w->hlink);
	w->hthr = xcalloc(held_total, sizeof *w->hthr);
	w->mx = obj_alloc(tr->nobj[TRACE_K_MUTEX], sizeof *w->mx);
	w->sem = obj_alloc(tr->nobj[TRACE_K_SEM], sizeof *w->sem);
	w->ring = obj_alloc(tr->nobj[TRACE_K_SEM], sizeof *w->ring);

	w->cv = xcalloc(tr->nobj[TRACE_K_COND], sizeof *w->cv);
	w->bar = xcalloc(tr->nobj[TRACE_K_BARRIER], sizeof *w->bar);
	w->rw = xcalloc(tr->nobj[TRACE_K_RWLOCK], sizeof *w->rw);
	w->rt = xcalloc(4 * (size_t)p->n, sizeof *w->rt);
	w->rleaf = xcalloc(p->n, sizeof *w->rleaf);
	w->stats = xcalloc(p->n, sizeof *w->stats);
	w->ist = xcalloc(p->n, sizeof *w->ist);
	w->blocked = xcalloc(p->n, sizeof *w->blocked);
	if (!w->th || !w->held || !w->hlink || !w->hthr || !w->mx || !w->sem || !w->ring || !w->cv ||
	    !w->bar || !w->rw || !w->rt || !w->rleaf || !w->stats || !w->ist || !w->blocked ||
	    sim_work_reserve_k(w, 8) != 0) {
		sim_work_free(w);
		return NULL;
	}
	/* held slots by thread, as setup lays them out (sth.hbase) */
	for (uint32_t i = 0, hb = 0; held_total && i < p->n; i++)
		for (uint32_t j = 0; j < p->maxheld[i]; j++)
			w->hthr[hb++] = i;
	return w;
}

void sim_work_free(struct sim_work *w)
{
	if (!w)
		return;
	work_free_groups(w);
	free(w->th);
	free(w->held);
	free(w->hlink);
	free(w->hthr);
	free(w->mx);
	free(w->sem);
	free(w->ring);
	free(w->tok);
	free(w->cv);
	free(w->bar);
	free(w->rw);
	free(w->rt);
	free(w->rleaf);
	free(w->stats);
	free(w->ist);
	free(w->blocked);
	free(w->iv);
	free(w->prof);
	free(w->prof_out);
	free(w->sy);
	free(w->pt);
	free(w->ev);
	free(w->w_left);
	free(w->lheap);
	free(w->sq_next);
	free(w);
}

/* Allocate the strict / client-server state (once per workspace). */
int sim_work_reserve_pm(struct sim_work *w)
{
	if (w->pm_ok)
		return 0;
	if (sim_program_pairs(w->p) != 0)
		return -1;
	const struct sim_pairs *px = &w->p->px;
	w->pt = xcalloc(w->p->n, sizeof *w->pt);
	w->ev = xcalloc(px->nev, sizeof *w->ev);
	w->w_left = xcalloc(px->nwait, sizeof *w->w_left);
	w->lheap = xcalloc(px->nwait, sizeof *w->lheap);
	w->sq_next = xcalloc(px->nwait, sizeof *w->sq_next);
	if (!w->pt || !w->ev || !w->w_left || !w->lheap || !w->sq_next) {
		free(w->pt);
		free(w->ev);
		free(w->w_left);
		free(w->lheap);
		free(w->sq_next);
		w->pt = NULL;
		w->ev = NULL;
		w->w_left = w->lheap = w->sq_next = NULL;
		return -1;
	}
	w->pm_ok = 1;
	return 0;
}

/* The token times of a run under a latency: w->tok for the program's
 * posts (allocated on the first such run, or by sim_work_reserve). */
int sim_work_reserve_tok(struct sim_work *w)
{
	sim_program_facts(w->p);
	if (w->tok && w->tok_cap >= w->p->tok_total)
		return 0;
	struct stok *tok = obj_alloc(w->p->tok_total, sizeof *tok);
	if (!tok)
		return -1;
	free(w->tok);
	w->tok = tok;
	w->tok_cap = w->p->tok_total;
	return 0;
}

int sim_work_reserve(struct sim_work *w, const struct sim_params *par)
{
	if (par->cpus == 0)
		return SIM_EINVAL;
	if (sim_work_reserve_k(w, par->cpus) != 0)
		return SIM_ENOMEM;
	/* whatever latency later runs have */
	if (w->p->tr->nobj[TRACE_K_SEM] && sim_work_reserve_tok(w) != 0)
		return SIM_ENOMEM;
	if (par->model != SIM_DIRECT && sim_work_reserve_pm(w) != 0)
		return SIM_ENOMEM;
	return SIM_OK;
}
