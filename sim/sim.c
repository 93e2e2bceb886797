/*
 * sim.c - the simulation engine (docs/simulation.md) and its three
 * models (docs/models.md): the Direct model (step), and the
 * strict-sequence and client-server models (step_pm), which follow the
 * recorded pairing of releases and acquisitions (sim_pairs, models.c).
 * A run branches once on the model: run_events is instantiated twice, so
 * the Direct model's event loop is the same code as before the other
 * models existed.
 *
 * Discrete-event simulation.  One indexed binary heap orders everything
 * that can happen at a future instant by (time, class, thread id):
 *   - a thread's timer (end of a sleep or of a latency wait), and under
 *     fifo/rr the end of a running thread's current work;
 *   - under ps, each scheduling group's next completion (the thread with
 *     the smallest finish tag, ties by id);
 *   - under rr, each processor's quantum expiry (class 1: after all the
 *     threads' steps of the same instant).
 * Popping the heap's top is exactly the spec's rule for simultaneous
 * events: the smallest id with something to do at that instant acts first.
 *
 * Scheduling groups: bound mode has one group per processor 0..k-1 and one
 * per shadow thread, each with one slot (processor).  Unbound mode has one
 * group with k slots sharing one ready queue.  Under ps a group serves its
 * ready threads in cycles (see ps_advance): every time is an integer.
 *
 * Order of a step's effects (documented choices where the spec is silent):
 *   - a thread blocked on an acquisition proceeds past its record when the
 *     release decides it; it becomes ready at max(decision, not-before),
 *     where not-before collects latencies (time of the release + t when
 *     the releaser's processor differs); waiting out a latency uses no CPU
 *     and counts as blocked time;
 *   - a woken cwait waiter asks for its mutex when its wake-up arrives
 *     (after the latency, BK_CWAIT_WAKE); a thread that blocks or exits
 *     leaves its processor before its step's releases; a blocked
 *     signaller, when enough waiters have arrived, re-requests the mutexes
 *     it released (in the order it had taken them) before its wake-ups ask
 *     for theirs; it proceeds no earlier than t after the last waiter's
 *     registration if that came from another processor;
 *   - a processor that becomes free starts its next ready thread at once
 *     (so a ready thread with zero work can act in the same instant).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/simint.h"

/* Internal time: every time is an integer (ps runs in cycles), below 2^63
 * (checked in setup), so plain 64-bit arithmetic is exact.  Units: trace unit. */
typedef uint64_t stime;

static inline sim_time ST(stime t)
{
	sim_time r = {t, 1};
	return r;
}

/* Per-thread statistics while running. */
struct istat {
	stime start, end, cpu, blocked;
};

#define NIL UINT32_MAX
#define NOPROC INT32_MIN /* a release with no processor: no latency */

enum { ST_NEW = 0, ST_READY, ST_RUN, ST_BLOCK, ST_TIMER, ST_DONE };

/* What a blocked thread waits for. */
enum {
	BK_NONE = 0,
	BK_LOCK,        /* lock / trylock ok on mutex                       */
	BK_WAIT,        /* semaphore                                       */
	BK_JOIN,
	BK_BARRIER,
	BK_CWAIT,       /* registered on a condition variable               */
	BK_CWAIT_REACQ, /* woken, re-acquiring its mutex                    */
	BK_CWAIT_WAKE,  /* woken, its wake-up still on the way (a timer):
	                   asks for its mutex when it arrives               */
	BK_SIGWAIT,     /* signaller waiting for enough waiters             */
	BK_SIG_REACQ,   /* signaller re-acquiring its mutexes               */
	BK_RDLOCK,
	BK_WRLOCK,
	BK_PAIR,        /* strict, client-server: a wait (wobj = wait id)   */
	BK_IDLE         /* client-server: between lists, none can start     */
};

static const char *const bk_why[] = {
	"?", "lock", "wait on", "join", "pass", "be signalled on",
	"re-acquire after cwait", "re-acquire after cwait", "see enough waiters on",
	"re-acquire after signal", "rdlock", "wrlock", "?", "?"};

/* A thread's state.  The fields every step touches come first, in one
 * 64-byte cache line. */
struct sth {
	uint32_t cur, end;   /* current record, one past the last        */
	uint8_t state, bk;
	uint8_t deferred;    /* ps: ready, waiting for a cycle boundary  */
	uint32_t grp;        /* scheduling group                         */
	int32_t lproc;       /* processor for the latency rule           */
	int32_t slot;        /* fifo/rr: slot running on, -1             */
	uint32_t qnext;      /* link in one FIFO queue                   */
	uint32_t hbase;      /* held mutexes: held[hbase .. hbase+nheld) */
	uint32_t nheld;
	stime rem;           /* remaining work of the current record     */
	stime seg;           /* fifo/rr: start of the running segment;
	                        ps: finish tag                           */
	stime nb;            /* not before (latency)                      */
	/* less often */
	uint32_t reacq;
	uint32_t wobj;       /* object blocked on (dense)                */
	uint32_t jhead, jtail; /* threads joining this one               */
	int32_t exit_proc;
	stime bstart;        /* blocked since (stats)                     */
	stime exit_time;
	stime run_from;      /* schedule: current interval start          */
};

struct smutex {
	int32_t owner;
	uint32_t qh, qt;
	int32_t rel_proc;
	stime rel;
};

struct stok {
	stime t;
	int32_t proc;
};

struct ssem {
	uint32_t init_left;
	uint32_t qh, qt;
	uint32_t rbase, rcap, rhead, rcount;
};

struct scond {
	uint32_t wh, wt, nw; /* registered waiters       */
	uint32_t sh, stl;    /* blocked signallers       */
};

struct sbar {
	uint32_t count;
	uint32_t qh, qt;
};

struct srw {
	int32_t writer;
	uint32_t readers;
	uint32_t qh, qt;
	int32_t rel_proc;    /* last release of any kind (for writers)     */
	int32_t wrel_proc;   /* last writer's release (for readers)         */
	stime rel, wrel;
};

struct sgrp {
	uint32_t nslots, slot0;
	uint32_t rqh, rqt;   /* fifo/rr ready queue                        */
	uint32_t m;          /* ps: ready threads                          */
	uint32_t hbase, hn;  /* ps: heap of ready threads by (tag, id)      */
	stime V, tlast;   /* ps: virtual time at tlast                  */
	stime tnext;      /* ps: the next completion (end of a cycle)   */
	stime tshort;     /* ps pool, m > c: start of the last cycle
	                     before tnext, which may be short; else
	                     UINT64_MAX                                  */
	uint64_t slast;   /* ps pool: units the threads get in that cycle */
	stime busy;       /* ps: units of work done; units: trace unit  */
};

struct sslot {
	int32_t run, last;
	stime qend;       /* rr quantum end                            */
	stime busy;
};

struct sim_program {
	const struct trace *tr;
	uint32_t n;
	uint32_t *maxheld;   /* [n] most mutexes held at once            */
	uint32_t held_total;
	uint32_t *sem_cap;   /* [nsem] posts of each semaphore            */
	uint32_t tok_total;
	uint64_t nsync;      /* records that can pay a latency or cost    */
	struct sim_pairs px; /* the recorded pairing (strict, client-server) */
};

/* An event of a strict or client-server run. */
struct pev {
	stime t;             /* when it happened                             */
	int32_t p;           /* on which processor                           */
	uint32_t left;       /* contributions still missing                  */
};

/* Per-thread state of the strict and client-server models. */
struct pth {
	uint32_t npend;      /* client-server: its lists not started yet     */
	uint32_t lhn;        /* client-server: lists that may start (heap)   */
	uint32_t sqh, sqt;   /* client-server: blocked signallers that need
	                        it, as the waits of its cwaits (sq_next)     */
	uint8_t idle;        /* client-server: between lists, none can start */
	uint8_t exit_wait;   /* client-server: at its exit, lists pending    */
};

/* An event, ordered by key = time << 64 | class << 32 | thread id (one
 * 128-bit comparison, which the compiler makes branch-free). */
struct hent {
	unsigned __int128 key;
	uint32_t id;
};

/* A ready thread in a ps group's heap, by (finish tag, id). */
struct pent {
	stime tag;
	uint32_t u;
};

struct sim_work {
	const struct sim_program *p;
	uint32_t kmax;       /* capacity of group/slot arrays            */
	struct sth *th;
	uint32_t *held;
	struct smutex *mx;
	struct ssem *sem;
	struct stok *tok;
	struct scond *cv;
	struct sbar *bar;
	struct srw *rw;
	struct sgrp *g;
	struct sslot *sl;
	struct pent *pheap;  /* [n] ps group heaps                         */
	int32_t *ppos;       /* [n] ps: position in its group's heap, -1   */
	/* global event heap */
	struct hent *heap;
	int32_t *hpos;
	uint32_t hn, ids;
	/* results */
	struct istat *ist;
	struct sim_thread_stats *stats;
	sim_time *busy;
	struct sim_blocked *blocked;
	struct sim_interval *iv;
	size_t niv, iv_cap;
	struct sim_sync *sy;
	size_t nsy, sy_cap;
	/* per run */
	const struct sim_params *par;
	const struct trace *tr;
	uint32_t ngrp, nslot;
	stime t_lat;
	unsigned flags;
	int nomem;
	int32_t cur_releaser; /* schedule: who performs the current step */
	uint64_t steps;
	stime makespan;
	stime cutoff;        /* stop when an event lies later (SIM_CUTOFF) */
	int cut;             /* the run stopped at the cutoff              */
	uint32_t live;
	/* strict and client-server (allocated on their first run) */
	int pm_ok;
	int cs;              /* this run is client-server                    */
	struct pth *pt;      /* [n]                                          */
	struct pev *ev;      /* [nev]                                        */
	uint32_t *w_left;    /* [nwait] events still missing                 */
	uint32_t *lheap;     /* [nwait] client-server: each thread's heap of
	                        lists that may start, at px.th_wbase[thread] */
	uint32_t *sq_next;   /* [nwait] client-server: signaller queues       */
};

/* ------------------------------------------------------------------ */
/* Program */

struct sim_program *sim_program_new(const struct trace *tr)
{
	struct sim_program *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->tr = tr;
	p->n = tr->nthreads;
	p->maxheld = calloc(p->n ? p->n : 1, sizeof *p->maxheld);
	uint32_t nsem = tr->nobj[TRACE_K_SEM];
	p->sem_cap = calloc(nsem ? nsem : 1, sizeof *p->sem_cap);
	if (!p->maxheld || !p->sem_cap) {
		sim_program_free(p);
		return NULL;
	}
	for (uint32_t i = 0; i < p->n; i++) {
		const struct trace_thread *t = &tr->threads[i];
		uint32_t h = 0, mh = 0;
		for (uint32_t r = t->first; r < t->first + t->nrec; r++) {
			const struct trace_rec *rec = &tr->rec[r];
			switch (rec->op) {
			case TRACE_LOCK:
				h++;
				break;
			case TRACE_TRYLOCK:
				h += rec->b;
				break;
			case TRACE_UNLOCK:
				if (h)
					h--;
				break;
			case TRACE_POST:
				p->sem_cap[rec->a]++;
				break;
			default:
				break;
			}
			if (rec->op != TRACE_SLEEP && rec->op != TRACE_EXIT)
				p->nsync++;
			if (h > mh)
				mh = h;
		}
		p->maxheld[i] = mh;
		p->held_total += mh;
	}
	for (uint32_t s = 0; s < nsem; s++)
		p->tok_total += p->sem_cap[s];
	if (sim_pairs_build(tr, &p->px) != 0) {
		sim_program_free(p);
		return NULL;
	}
	return p;
}

void sim_program_free(struct sim_program *p)
{
	if (!p)
		return;
	free(p->maxheld);
	free(p->sem_cap);
	sim_pairs_release(&p->px);
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

static void work_free_groups(struct sim_work *w)
{
	free(w->g);
	free(w->sl);
	free(w->heap);
	free(w->hpos);
	free(w->busy);
	w->g = NULL;
	w->sl = NULL;
	w->heap = NULL;
	w->hpos = NULL;
	w->busy = NULL;
	w->kmax = 0;
}

/* Size the group, slot and heap arrays for k processors. */
static int work_reserve(struct sim_work *w, uint32_t k)
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
	w->busy = xcalloc(k, sizeof *w->busy);
	if (!w->g || !w->sl || !w->heap || !w->hpos || !w->busy) {
		work_free_groups(w);
		return -1;
	}
	w->kmax = k;
	w->ids = (uint32_t)ids;
	return 0;
}

struct sim_work *sim_work_new(const struct sim_program *p)
{
	struct sim_work *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	const struct trace *tr = p->tr;
	w->p = p;
	w->th = xcalloc(p->n, sizeof *w->th);
	w->held = xcalloc(p->held_total, sizeof *w->held);
	w->mx = xcalloc(tr->nobj[TRACE_K_MUTEX], sizeof *w->mx);
	w->sem = xcalloc(tr->nobj[TRACE_K_SEM], sizeof *w->sem);
	w->tok = xcalloc(p->tok_total, sizeof *w->tok);
	w->cv = xcalloc(tr->nobj[TRACE_K_COND], sizeof *w->cv);
	w->bar = xcalloc(tr->nobj[TRACE_K_BARRIER], sizeof *w->bar);
	w->rw = xcalloc(tr->nobj[TRACE_K_RWLOCK], sizeof *w->rw);
	w->pheap = xcalloc(p->n, sizeof *w->pheap);
	w->ppos = xcalloc(p->n, sizeof *w->ppos);
	w->stats = xcalloc(p->n, sizeof *w->stats);
	w->ist = xcalloc(p->n, sizeof *w->ist);
	w->blocked = xcalloc(p->n, sizeof *w->blocked);
	if (!w->th || !w->held || !w->mx || !w->sem || !w->tok || !w->cv ||
	    !w->bar || !w->rw || !w->pheap || !w->ppos || !w->stats || !w->ist || !w->blocked ||
	    work_reserve(w, 8) != 0) {
		sim_work_free(w);
		return NULL;
	}
	return w;
}

void sim_work_free(struct sim_work *w)
{
	if (!w)
		return;
	work_free_groups(w);
	free(w->th);
	free(w->held);
	free(w->mx);
	free(w->sem);
	free(w->tok);
	free(w->cv);
	free(w->bar);
	free(w->rw);
	free(w->pheap);
	free(w->ppos);
	free(w->stats);
	free(w->ist);
	free(w->blocked);
	free(w->iv);
	free(w->sy);
	free(w->pt);
	free(w->ev);
	free(w->w_left);
	free(w->lheap);
	free(w->sq_next);
	free(w);
}

/* ------------------------------------------------------------------ */
/* The event heap: ids 0..n-1 threads, n+g groups (ps), n+G+s slots (rr). */

static inline int hent_less(const struct hent *a, const struct hent *b)
{
	return a->key < b->key;
}

static void heap_up(struct sim_work *w, uint32_t i)
{
	struct hent e = w->heap[i];
	while (i > 0) {
		uint32_t pa = (i - 1) / 2;
		if (!hent_less(&e, &w->heap[pa]))
			break;
		w->heap[i] = w->heap[pa];
		w->hpos[w->heap[i].id] = (int32_t)i;
		i = pa;
	}
	w->heap[i] = e;
	w->hpos[e.id] = (int32_t)i;
}

static void heap_down(struct sim_work *w, uint32_t i)
{
	struct hent e = w->heap[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= w->hn)
			break;
		/* the smaller child without a branch (heap[hn] is allocated) */
		c += (c + 1 < w->hn) & hent_less(&w->heap[c + 1], &w->heap[c]);
		if (!hent_less(&w->heap[c], &e))
			break;
		w->heap[i] = w->heap[c];
		w->hpos[w->heap[i].id] = (int32_t)i;
		i = c;
	}
	w->heap[i] = e;
	w->hpos[e.id] = (int32_t)i;
}

/* Schedule event `id` at (t, cls, tid), or move it there. */
static void heap_set(struct sim_work *w, uint32_t id, stime t, uint8_t cls,
                     uint32_t tid)
{
	struct hent e = {(unsigned __int128)t << 64 | (uint64_t)cls << 32 | tid, id};
	int32_t pos = w->hpos[id];
	if (pos < 0) {
		w->heap[w->hn] = e;
		heap_up(w, w->hn++);
		return;
	}
	int later = hent_less(&w->heap[pos], &e);
	w->heap[pos] = e;
	if (later)
		heap_down(w, (uint32_t)pos);
	else
		heap_up(w, (uint32_t)pos);
}

static void heap_del(struct sim_work *w, uint32_t id)
{
	int32_t pos = w->hpos[id];
	if (pos < 0)
		return;
	w->hpos[id] = -1;
	struct hent last = w->heap[--w->hn];
	if ((uint32_t)pos == w->hn)
		return;
	w->heap[pos] = last;
	w->hpos[last.id] = pos;
	heap_up(w, (uint32_t)pos);
	heap_down(w, (uint32_t)w->hpos[last.id]);
}

/* ------------------------------------------------------------------ */
/* ps group heaps: ready threads by (finish tag, id). */

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

static inline uint64_t ps_units(const struct sgrp *g)
{
	return g->m <= g->nslots ? 1 : g->nslots;
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

/* Advance a ps group to T, a boundary of its current cycle (or any time
 * when the group is empty). */
static void ps_advance(struct sim_work *w, struct sgrp *g, stime T)
{
	uint64_t dt = T - g->tlast;
	if (dt && g->m) {
		if (g->m <= g->nslots) {
			g->V += dt;
			if (w->flags & SIM_STATS)
				g->busy += dt * g->m;
		} else if (g->nslots == 1) {
			g->V += dt / g->m;
			if (w->flags & SIM_STATS)
				g->busy += dt;
		} else { /* the pool: full cycles, maybe a short last one */
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

/* Put a ps group's next completion into the event heap. */
static void ps_resched(struct sim_work *w, uint32_t gi)
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
	uint64_t units = ps_units(g), cycles = (left + units - 1) / units;
	uint64_t len = ps_len(g), t = g->tlast + cycles * len;
	g->tshort = UINT64_MAX;
	if (units > 1 && cycles) {
		/* the pool, m > c: the last cycle gives each thread what it
		 * needs, at most c units; the threads that finish in it act by
		 * id from the smallest */
		uint64_t V0 = g->V + (cycles - 1) * units;
		struct ps_fin f = {0, 0, 0, u};
		ps_finishing(w, g, 0, V0 + units, &f);
		uint64_t S = g->m * units - f.lost, L = (S + units - 1) / units;
		if (f.n < g->m)
			f.maxg = units; /* the others get c units */
		if (L < f.maxg)
			L = f.maxg; /* no thread runs faster than rate 1 */
		u = f.id;
		g->tshort = g->tlast + (cycles - 1) * len;
		g->slast = S;
		t = g->tshort + L;
	}
	g->tnext = t;
	heap_set(w, id, t, 0, u);
}

/* ------------------------------------------------------------------ */
/* Queues (FIFO through sth.qnext) */

static inline void q_push(struct sim_work *w, uint32_t *h, uint32_t *t, uint32_t u)
{
	w->th[u].qnext = NIL;
	if (*h == NIL)
		*h = u;
	else
		w->th[*t].qnext = u;
	*t = u;
}

static inline uint32_t q_pop(struct sim_work *w, uint32_t *h, uint32_t *t)
{
	uint32_t u = *h;
	if (u != NIL) {
		*h = w->th[u].qnext;
		if (*h == NIL)
			*t = NIL;
	}
	return u;
}

/* ------------------------------------------------------------------ */
/* Schedule recording (allocates: SIM_SCHEDULE only) */

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
		return NULL;
	}
	*cap = c;
	return a;
}

static void iv_add(struct sim_work *w, uint32_t u, int32_t proc, stime from,
                   stime to)
{
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

static void sy_add(struct sim_work *w, uint32_t u, uint32_t rec, stime T,
                   int32_t releaser)
{
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
static int32_t iv_proc(const struct sim_work *w, uint32_t u)
{
	if (w->par->mode == SIM_UNBOUND)
		return w->par->policy == SIM_PS ? -2 : w->th[u].slot;
	uint32_t gi = w->th[u].grp;
	return gi < w->par->cpus ? (int32_t)gi : TRACE_SHADOW;
}

/* ------------------------------------------------------------------ */
/* Threads on processors */

static inline const struct trace_rec *cur_rec(const struct sim_work *w, uint32_t u)
{
	return &w->tr->rec[w->th[u].cur];
}

/* Latency from a release on processor x to thread u. */
static inline int lat_applies(const struct sim_work *w, int32_t x, uint32_t u)
{
	return w->par->latency && x != NOPROC && x != w->th[u].lproc;
}

static inline void nb_after(struct sim_work *w, uint32_t u, stime r, int32_t x)
{
	if (lat_applies(w, x, u)) {
		stime t = r + w->t_lat;
		if (t > w->th[u].nb)
			w->th[u].nb = t;
	}
}

/* Load the work of u's current record into rem. */
static inline void load_work(struct sim_work *w, uint32_t u)
{
	const struct trace_rec *r = cur_rec(w, u);
	uint64_t wk = r->work;
	if (r->op == TRACE_CREATE)
		wk += w->par->create_cost;
	w->th[u].rem = wk;
}

static void fifo_start(struct sim_work *w, uint32_t s, uint32_t u, stime T);

/* Start (or continue) running u's current work on its slot at T. */
static void fifo_arm(struct sim_work *w, uint32_t s, uint32_t u)
{
	struct sth *t = &w->th[u];
	stime done = t->seg + t->rem;
	if (w->par->policy == SIM_RR) {
		struct sslot *sl = &w->sl[s];
		if (done <= sl->qend)
			heap_set(w, u, done, 0, u);
		else
			heap_del(w, u);
		heap_set(w, w->p->n + w->ngrp + s, sl->qend, 1, u);
	} else {
		heap_set(w, u, done, 0, u);
	}
}

static void fifo_start(struct sim_work *w, uint32_t s, uint32_t u, stime T)
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
	t->state = ST_RUN;
	t->slot = (int32_t)s;
	if (w->par->mode == SIM_UNBOUND)
		t->lproc = (int32_t)s;
	t->seg = start;
	if (w->par->policy == SIM_RR)
		sl->qend = start + w->par->quantum;
	if (w->flags & SIM_SCHEDULE)
		t->run_from = start;
	fifo_arm(w, s, u);
}

/* A slot fell idle at T: start the next ready thread of its group. */
static void fifo_idle(struct sim_work *w, uint32_t s, stime T)
{
	struct sslot *sl = &w->sl[s];
	sl->run = -1;
	if (w->par->policy == SIM_RR)
		heap_del(w, w->p->n + w->ngrp + s);
	struct sgrp *g = &w->g[w->par->mode == SIM_UNBOUND ? 0 : s];
	uint32_t u = q_pop(w, &g->rqh, &g->rqt);
	if (u != NIL)
		fifo_start(w, s, u, T);
}

/* u becomes ready at T (created, woken, end of a timer). */
static void make_ready(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	struct sgrp *g = &w->g[t->grp];
	/* its next record is cold (threads' streams lie apart): fetch it now,
	 * before the thread runs */
	__builtin_prefetch(&w->tr->rec[t->cur]);
	uint64_t join = 0;
	if (w->par->policy == SIM_PS)
		join = ps_boundary(g, T);
	if (w->flags & SIM_STATS) {
		if (t->state == ST_NEW)
			w->ist[u].start = T;
		else if (!t->deferred)
			w->ist[u].blocked += T - t->bstart;
	}
	t->bk = BK_NONE;
	if (w->par->policy == SIM_PS) {
		if (join != T) {
			/* inside a cycle: join at its end, ready meanwhile */
			t->state = ST_TIMER;
			t->deferred = 1;
			heap_set(w, u, (join), 0, u);
			return;
		}
		t->deferred = 0;
		t->state = ST_RUN;
		ps_advance(w, g, T);
		if (g->m == 0)
			g->V = 0;
		t->seg = g->V + t->rem;
		g->m++;
		pheap_push(w, g, u);
		if (w->flags & SIM_SCHEDULE)
			t->run_from = T;
		ps_resched(w, t->grp);
		return;
	}
	t->state = ST_READY;
	for (uint32_t i = 0; i < g->nslots; i++) {
		uint32_t s = g->slot0 + i;
		if (w->sl[s].run < 0) {
			fifo_start(w, s, u, T);
			return;
		}
	}
	q_push(w, &g->rqh, &g->rqt, u);
}

/* u, running, stops using its processor at T (blocks, sleeps, exits). */
static void leave_cpu(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	if (w->flags & SIM_SCHEDULE)
		iv_add(w, u, iv_proc(w, u), t->run_from, T);
	if (w->par->policy == SIM_PS) {
		struct sgrp *g = &w->g[t->grp];
		ps_advance(w, g, T);
		pheap_del(w, g, u);
		g->m--;
		if (g->m == 0)
			g->V = 0;
		ps_resched(w, t->grp);
	} else {
		heap_del(w, u);
		uint32_t s = (uint32_t)t->slot;
		t->slot = -1;
		fifo_idle(w, s, T);
	}
	t->bstart = T;
}

/* u's acquisition record completed at decision time T while u was off its
 * processor: go on with the next record, after any latency. */
static void proceed(struct sim_work *w, uint32_t u, stime T)
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

/* Block u (running) at T for reason bk on object obj. */
static void block(struct sim_work *w, uint32_t u, stime T, uint8_t bk,
                  uint32_t obj)
{
	leave_cpu(w, u, T);
	w->th[u].state = ST_BLOCK;
	w->th[u].bk = bk;
	w->th[u].wobj = obj;
}

/* ------------------------------------------------------------------ */
/* Mutexes */

static void held_push(struct sim_work *w, uint32_t u, uint32_t m)
{
	struct sth *t = &w->th[u];
	if (t->nheld < w->p->maxheld[u])
		w->held[t->hbase + t->nheld++] = m;
}

static void held_remove(struct sim_work *w, uint32_t u, uint32_t m)
{
	struct sth *t = &w->th[u];
	uint32_t *h = w->held + t->hbase;
	for (uint32_t i = t->nheld; i-- > 0;) {
		if (h[i] == m) {
			memmove(h + i, h + i + 1, (t->nheld - i - 1) * sizeof *h);
			t->nheld--;
			return;
		}
	}
}

static void sig_reacquire(struct sim_work *w, uint32_t s, stime T);

/* v was handed mutex m at T (it was queued). */
static void mutex_granted(struct sim_work *w, uint32_t v, uint32_t m, stime T)
{
	struct sth *t = &w->th[v];
	if (w->flags & SIM_SCHEDULE)
		sy_add(w, v, t->cur, T, w->cur_releaser);
	if (t->bk == BK_SIG_REACQ) {
		t->reacq++;
		sig_reacquire(w, v, T);
		return;
	}
	held_push(w, v, m);
	proceed(w, v, T);
}

/* Release mutex m at T by a thread on processor x. */
static void mutex_release(struct sim_work *w, uint32_t m, stime T, int32_t x)
{
	struct smutex *mx = &w->mx[m];
	uint32_t v = q_pop(w, &mx->qh, &mx->qt);
	if (v == NIL) {
		mx->owner = -1;
		mx->rel = T;
		mx->rel_proc = x;
		return;
	}
	mx->owner = (int32_t)v;
	nb_after(w, v, T, x);
	mutex_granted(w, v, m, T);
}

/* u asks for m at T while off its processor (woken waiter, signaller).
 * Returns 1 if it got it now. */
static int mutex_request(struct sim_work *w, uint32_t u, uint32_t m, stime T)
{
	struct smutex *mx = &w->mx[m];
	if (mx->owner < 0 && mx->qh == NIL) {
		mx->owner = (int32_t)u;
		if (T < mx->rel + w->t_lat)
			nb_after(w, u, mx->rel, mx->rel_proc);
		return 1;
	}
	q_push(w, &mx->qh, &mx->qt, u);
	return 0;
}

/* Signaller s re-acquires its released mutexes, in order, from s.reacq. */
static void sig_reacquire(struct sim_work *w, uint32_t s, stime T)
{
	struct sth *t = &w->th[s];
	while (t->reacq < t->nheld) {
		uint32_t m = w->held[t->hbase + t->reacq];
		t->wobj = m;
		if (!mutex_request(w, s, m, T))
			return;
		t->reacq++;
	}
	proceed(w, s, T);
}

/* ------------------------------------------------------------------ */
/* Condition variables */

/* v, woken from cwait, asks for its mutex (wobj) at T. */
static void cwait_reacquire(struct sim_work *w, uint32_t v, stime T)
{
	struct sth *t = &w->th[v];
	uint32_t m = t->wobj;
	t->state = ST_BLOCK;
	t->bk = BK_CWAIT_REACQ;
	if (mutex_request(w, v, m, T)) {
		held_push(w, v, m);
		proceed(w, v, T);
	}
}

/* Wake the first n registered waiters of c at T, released from x. */
static void cond_wake(struct sim_work *w, uint32_t c, uint32_t n, stime T,
                      int32_t x)
{
	struct scond *cv = &w->cv[c];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = q_pop(w, &cv->wh, &cv->wt);
		cv->nw--;
		struct sth *t = &w->th[v];
		nb_after(w, v, T, x);
		if (w->flags & SIM_SCHEDULE)
			sy_add(w, v, t->cur, T, w->cur_releaser);
		uint32_t m = cur_rec(w, v)->b;
		t->wobj = m;
		if (t->nb > T) { /* the wake-up arrives at nb: ask then */
			t->bk = BK_CWAIT_WAKE;
			t->state = ST_TIMER;
			heap_set(w, v, t->nb, 0, v);
			continue;
		}
		cwait_reacquire(w, v, T);
	}
}

/* The wake-up of v (woken from a cwait) arrived at T (the timer of
 * BK_CWAIT_WAKE fired): v asks for its mutex now. */
static void cwait_arrive(struct sim_work *w, uint32_t v, stime T)
{
	w->th[v].nb = 0;
	cwait_reacquire(w, v, T);
}

/* Serve blocked signallers of c that now have enough waiters; the last
 * waiter registered from processor x at T. */
static void cond_serve(struct sim_work *w, uint32_t c, stime T, int32_t x)
{
	struct scond *cv = &w->cv[c];
	while (cv->sh != NIL) {
		uint32_t s = cv->sh;
		uint32_t need = cur_rec(w, s)->b;
		if (cv->nw < need)
			return;
		q_pop(w, &cv->sh, &cv->stl);
		struct sth *t = &w->th[s];
		nb_after(w, s, T, x);
		if (w->flags & SIM_SCHEDULE)
			sy_add(w, s, t->cur, T, w->cur_releaser);
		t->bk = BK_SIG_REACQ;
		t->reacq = 0;
		int32_t saved = w->cur_releaser;
		w->cur_releaser = (int32_t)s;
		sig_reacquire(w, s, T);
		cond_wake(w, c, need, T, t->lproc);
		w->cur_releaser = saved;
	}
}

/* ------------------------------------------------------------------ */
/* Read-write locks */

static inline int before_latency_end(struct sim_work *w, stime T, stime rel)
{
	return w->par->latency && T < rel + w->t_lat;
}

static void rw_grant_queue(struct sim_work *w, uint32_t r, stime T, int32_t x)
{
	struct srw *rw = &w->rw[r];
	while (rw->qh != NIL && rw->writer < 0) {
		uint32_t v = rw->qh;
		int wr = cur_rec(w, v)->op == TRACE_WRLOCK;
		if (wr && rw->readers)
			return;
		q_pop(w, &rw->qh, &rw->qt);
		if (wr) {
			rw->writer = (int32_t)v;
			nb_after(w, v, T, x);
		} else {
			rw->readers++;
			/* a reader waits only for the last writer's release */
			if (before_latency_end(w, T, rw->wrel))
				nb_after(w, v, rw->wrel, rw->wrel_proc);
		}
		if (w->flags & SIM_SCHEDULE)
			sy_add(w, v, w->th[v].cur, T, w->cur_releaser);
		proceed(w, v, T);
		if (wr)
			return;
	}
}

/* ------------------------------------------------------------------ */
/* One step: the running thread u performs its current record's op at T. */

enum { GO_ON, STOPPED };

/* u, running, acquired something now: go on, or wait out a latency. */
static int acquired_now(struct sim_work *w, uint32_t u, stime T)
{
	if (w->flags & SIM_SCHEDULE)
		sy_add(w, u, w->th[u].cur, T, -1);
	if (w->th[u].nb > T) {
		leave_cpu(w, u, T);
		proceed(w, u, T);
		return STOPPED;
	}
	return GO_ON;
}

/* What every step of every model does first: count it, name the releaser
 * for the schedule, charge the record's work (and create cost), and clear
 * the latency constraint of the previous acquisition. */
static inline void step_begin(struct sim_work *w, uint32_t u, const struct trace_rec *r)
{
	w->steps++;
	w->cur_releaser = (int32_t)u;
	if (w->flags & SIM_STATS)
		w->ist[u].cpu += r->work + (r->op == TRACE_CREATE ? w->par->create_cost : 0);
	w->th[u].nb = 0;
}

static int step(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	const struct trace_rec *r = cur_rec(w, u);
	int32_t x = t->lproc;
	step_begin(w, u, r);

	switch (r->op) {
	case TRACE_CREATE:
		load_work(w, r->a);
		make_ready(w, r->a, T);
		return GO_ON;
	case TRACE_EXIT: {
		leave_cpu(w, u, T);
		t->state = ST_DONE;
		t->exit_time = T;
		t->exit_proc = x;
		if (w->flags & SIM_STATS)
			w->ist[u].end = T;
		if (T > w->makespan)
			w->makespan = T;
		w->live--;
		uint32_t v;
		while ((v = q_pop(w, &t->jhead, &t->jtail)) != NIL) {
			nb_after(w, v, T, x);
			if (w->flags & SIM_SCHEDULE)
				sy_add(w, v, w->th[v].cur, T, (int32_t)u);
			proceed(w, v, T);
		}
		return STOPPED;
	}
	case TRACE_JOIN: {
		struct sth *tt = &w->th[r->a];
		if (tt->state == ST_DONE) {
			nb_after(w, u, tt->exit_time, tt->exit_proc);
			return acquired_now(w, u, T);
		}
		q_push(w, &tt->jhead, &tt->jtail, u);
		block(w, u, T, BK_JOIN, r->a);
		return STOPPED;
	}
	case TRACE_TRYLOCK:
		if (!r->b)
			return GO_ON;
		__attribute__((fallthrough)); /* ok behaves as lock */
	case TRACE_LOCK: {
		struct smutex *mx = &w->mx[r->a];
		if (mx->owner < 0 && mx->qh == NIL) {
			mx->owner = (int32_t)u;
			held_push(w, u, r->a);
			if (before_latency_end(w, T, mx->rel))
				nb_after(w, u, mx->rel, mx->rel_proc);
			return acquired_now(w, u, T);
		}
		q_push(w, &mx->qh, &mx->qt, u);
		block(w, u, T, BK_LOCK, r->a);
		return STOPPED;
	}
	case TRACE_UNLOCK:
		held_remove(w, u, r->a);
		mutex_release(w, r->a, T, x);
		return GO_ON;
	case TRACE_TRYWAIT:
		if (!r->b)
			return GO_ON;
		__attribute__((fallthrough));
	case TRACE_WAIT: {
		struct ssem *s = &w->sem[r->a];
		if (s->init_left) {
			s->init_left--;
			return acquired_now(w, u, T);
		}
		if (s->rcount) {
			struct stok *tk = &w->tok[s->rbase + s->rhead];
			s->rhead = s->rhead + 1 == s->rcap ? 0 : s->rhead + 1;
			s->rcount--;
			nb_after(w, u, tk->t, tk->proc);
			return acquired_now(w, u, T);
		}
		q_push(w, &s->qh, &s->qt, u);
		block(w, u, T, BK_WAIT, r->a);
		return STOPPED;
	}
	case TRACE_POST: {
		struct ssem *s = &w->sem[r->a];
		uint32_t v = q_pop(w, &s->qh, &s->qt);
		if (v != NIL) {
			nb_after(w, v, T, x);
			if (w->flags & SIM_SCHEDULE)
				sy_add(w, v, w->th[v].cur, T, (int32_t)u);
			proceed(w, v, T);
		} else if (s->rcount < s->rcap) {
			uint32_t i = s->rhead + s->rcount;
			if (i >= s->rcap)
				i -= s->rcap;
			w->tok[s->rbase + i].t = T;
			w->tok[s->rbase + i].proc = x;
			s->rcount++;
		}
		return GO_ON;
	}
	case TRACE_CWAIT: {
		struct scond *cv = &w->cv[r->a];
		/* leave the processor first, then release (as exit and a
		 * blocking signal do) */
		block(w, u, T, BK_CWAIT, r->a);
		held_remove(w, u, r->b);
		mutex_release(w, r->b, T, x);
		q_push(w, &cv->wh, &cv->wt, u);
		cv->nw++;
		cond_serve(w, r->a, T, x);
		return STOPPED;
	}
	case TRACE_SIGNAL:
	case TRACE_BROADCAST: {
		struct scond *cv = &w->cv[r->a];
		if (r->b == 0)
			return GO_ON;
		if (cv->sh == NIL && cv->nw >= r->b) {
			cond_wake(w, r->a, r->b, T, x);
			return GO_ON;
		}
		/* Too few waiters: block, releasing the mutexes held. */
		block(w, u, T, BK_SIGWAIT, r->a);
		for (uint32_t i = 0; i < t->nheld; i++)
			mutex_release(w, w->held[t->hbase + i], T, x);
		q_push(w, &cv->sh, &cv->stl, u);
		return STOPPED;
	}
	case TRACE_BARRIER: {
		struct sbar *b = &w->bar[r->a];
		if (++b->count < r->b) {
			q_push(w, &b->qh, &b->qt, u);
			block(w, u, T, BK_BARRIER, r->a);
			return STOPPED;
		}
		b->count = 0;
		uint32_t v;
		while ((v = q_pop(w, &b->qh, &b->qt)) != NIL) {
			nb_after(w, v, T, x);
			if (w->flags & SIM_SCHEDULE)
				sy_add(w, v, w->th[v].cur, T, (int32_t)u);
			proceed(w, v, T);
		}
		return acquired_now(w, u, T);
	}
	case TRACE_RDLOCK:
	case TRACE_WRLOCK: {
		struct srw *rw = &w->rw[r->a];
		int wr = r->op == TRACE_WRLOCK;
		if (rw->qh == NIL && rw->writer < 0 && (!wr || rw->readers == 0)) {
			if (wr) {
				rw->writer = (int32_t)u;
				if (before_latency_end(w, T, rw->rel))
					nb_after(w, u, rw->rel, rw->rel_proc);
			} else {
				rw->readers++;
				/* only the last writer's release excluded readers */
				if (before_latency_end(w, T, rw->wrel))
					nb_after(w, u, rw->wrel, rw->wrel_proc);
			}
			return acquired_now(w, u, T);
		}
		q_push(w, &rw->qh, &rw->qt, u);
		block(w, u, T, wr ? BK_WRLOCK : BK_RDLOCK, r->a);
		return STOPPED;
	}
	case TRACE_RWUNLOCK: {
		struct srw *rw = &w->rw[r->a];
		if (rw->writer == (int32_t)u) {
			rw->writer = -1;
			rw->wrel = T;
			rw->wrel_proc = x;
		} else if (rw->readers) {
			rw->readers--;
		}
		rw->rel = T;
		rw->rel_proc = x;
		rw_grant_queue(w, r->a, T, x);
		return GO_ON;
	}
	case TRACE_SLEEP: {
		leave_cpu(w, u, T);
		t->nb = (T + trace_sleep_time(r));
		proceed(w, u, T);
		return STOPPED;
	}
	default:
		return GO_ON;
	}
}

/* After step(u) returned GO_ON: next record, keep running. */
static void go_on(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	t->cur++;
	load_work(w, u);
	if (w->par->policy == SIM_PS) {
		struct sgrp *g = &w->g[t->grp];
		t->seg = g->V + t->rem;
		pheap_later(w, g, u);
		ps_resched(w, t->grp);
	} else {
		t->seg = T;
		fifo_arm(w, (uint32_t)t->slot, u);
	}
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
	struct sgrp *g = &w->g[w->par->mode == SIM_UNBOUND ? 0 : s];
	if (g->rqh == NIL) {
		sl->qend = T + w->par->quantum;
		fifo_arm(w, s, u);
		return;
	}
	if (w->flags & SIM_SCHEDULE)
		iv_add(w, u, iv_proc(w, u), t->run_from, T);
	heap_del(w, u);
	t->state = ST_READY;
	t->slot = -1;
	q_push(w, &g->rqh, &g->rqt, u);
	fifo_idle(w, s, T);
}

/* ------------------------------------------------------------------ */
/* The strict-sequence and client-server models (docs/models.md).
 *
 * Both follow the recorded pairing (struct sim_pairs): an acquisition
 * waits for exactly the releases it depended on in the recording (its
 * wait's conditions); a signal/broadcast waits until the waiters it woke
 * in the recording are there.  Strict: each thread runs its records in
 * order, blocking at a wait until its conditions have happened; a
 * signaller waits for its waiters' registrations (the first half of
 * their cwaits).  Client-server: a thread is cut into lists at its
 * acquisition waits; at the end of a list it starts the earliest of its
 * lists that can start (all conditions happened), or becomes idle; a
 * signal is a rendezvous with its waiters' threads: it happens when all
 * of them are idle, and each then starts its cwait's list; meanwhile the
 * signaller blocks inside its list (the paper's synchronous Activate).
 */

static inline int is_signal(const struct trace_rec *r)
{
	return r->op == TRACE_SIGNAL || r->op == TRACE_BROADCAST;
}

static void lheap_push(struct sim_work *w, uint32_t u, uint32_t d)
{
	uint32_t *h = w->lheap + w->p->px.th_wbase[u];
	uint32_t i = w->pt[u].lhn++;
	while (i > 0) {
		uint32_t pa = (i - 1) / 2;
		if (h[pa] <= d)
			break;
		h[i] = h[pa];
		i = pa;
	}
	h[i] = d;
}

static uint32_t lheap_pop(struct sim_work *w, uint32_t u)
{
	uint32_t *h = w->lheap + w->p->px.th_wbase[u];
	uint32_t top = h[0], n = --w->pt[u].lhn, d = h[n], i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (d <= h[c])
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = d;
	return top;
}

/* u's not-before from every release its wait d needed. */
static void pm_latency(struct sim_work *w, uint32_t u, uint32_t d)
{
	const struct sim_pairs *px = &w->p->px;
	w->th[u].nb = 0;
	if (!w->t_lat)
		return;
	for (uint32_t i = px->w_off[d]; i < px->w_off[d + 1]; i++) {
		uint32_t e = px->w_cond[i];
		nb_after(w, u, w->ev[e].t, w->ev[e].p);
	}
}

static void pm_wait_ready(struct sim_work *w, uint32_t d, stime T, int32_t x);

/* Event e (or one contribution to it) happens at T on processor x. */
static void pm_fire(struct sim_work *w, uint32_t e, stime T, int32_t x)
{
	struct pev *ev = &w->ev[e];
	if (ev->left == 0 || --ev->left)
		return;
	ev->t = T;
	ev->p = x;
	const struct sim_pairs *px = &w->p->px;
	for (uint32_t i = px->ev_off[e]; i < px->ev_off[e + 1]; i++) {
		uint32_t d = px->ev_dep[i];
		if (--w->w_left[d] == 0)
			pm_wait_ready(w, d, T, x);
	}
}

/* v, blocked in wait d, has all it needs at T (the last release came
 * from processor x): go on. */
static void pm_grant_blocked(struct sim_work *w, uint32_t v, uint32_t d,
                             stime T, int32_t x)
{
	struct sth *t = &w->th[v];
	uint32_t rec = t->cur;
	if (w->flags & SIM_SCHEDULE)
		sy_add(w, v, rec, T, w->cur_releaser);
	if (!is_signal(&w->tr->rec[rec])) {
		pm_latency(w, v, d);
		proceed(w, v, T);
		return;
	}
	/* strict: a signaller whose last waiter registered at T on x
	 * proceeds (as in the Direct model), then wakes its waiters */
	int32_t me = t->lproc;
	uint32_t e = w->p->px.rp[rec].ev;
	t->nb = 0;
	nb_after(w, v, T, x);
	proceed(w, v, T);
	if (e != SIM_NONE) {
		int32_t saved = w->cur_releaser;
		w->cur_releaser = (int32_t)v;
		pm_fire(w, e, T, me);
		w->cur_releaser = saved;
	}
}

/* client-server: idle v starts the list of wait d at T. */
static void pm_start_idle(struct sim_work *w, uint32_t v, uint32_t d, stime T)
{
	struct pth *pt = &w->pt[v];
	pt->idle = 0;
	pt->npend--;
	w->th[v].cur = w->p->px.w_rec[d];
	if (w->flags & SIM_SCHEDULE)
		sy_add(w, v, w->th[v].cur, T, w->cur_releaser);
	pm_latency(w, v, d);
	proceed(w, v, T);
}

/* Wait d has all its conditions at T (the last from processor x). */
static void pm_wait_ready(struct sim_work *w, uint32_t d, stime T, int32_t x)
{
	const struct sim_pairs *px = &w->p->px;
	uint32_t v = px->w_th[d];
	struct sth *t = &w->th[v];
	if (t->state == ST_BLOCK && t->wobj == d &&
	    (t->bk == BK_PAIR || (t->bk == BK_SIGWAIT && !w->cs))) {
		pm_grant_blocked(w, v, d, T, x);
		return;
	}
	if (!w->cs)
		return; /* strict: v finds it done when it gets there */
	const struct trace_rec *r = &w->tr->rec[px->w_rec[d]];
	if (r->op == TRACE_CWAIT || is_signal(r))
		return; /* these start by rendezvous (pm_cs_fire) */
	if (w->pt[v].idle)
		pm_start_idle(w, v, d, T);
	else
		lheap_push(w, v, d);
}

/* u, running at T, got (or already had) everything wait d needs. */
static int pm_grant_running(struct sim_work *w, uint32_t u, uint32_t d, stime T)
{
	pm_latency(w, u, d);
	if (w->flags & SIM_SCHEDULE)
		sy_add(w, u, w->th[u].cur, T, -1);
	if (w->th[u].nb > T) {
		leave_cpu(w, u, T);
		proceed(w, u, T);
		return STOPPED;
	}
	return GO_ON;
}

/* The exit of u (running) at T; its record is u's current one. */
static int pm_exit(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	int32_t x = t->lproc;
	uint32_t e = w->p->px.rp[t->cur].ev;
	leave_cpu(w, u, T);
	t->state = ST_DONE;
	t->exit_time = T;
	t->exit_proc = x;
	if (w->flags & SIM_STATS)
		w->ist[u].end = T;
	if (T > w->makespan)
		w->makespan = T;
	w->live--;
	if (e != SIM_NONE)
		pm_fire(w, e, T, x);
	return STOPPED;
}

/* client-server: the wait of the signal whose waiter is cwait wait c. */
static inline uint32_t pm_signal_of(const struct sim_work *w, uint32_t c)
{
	const struct sim_pairs *px = &w->p->px;
	uint32_t e = px->w_cond[px->w_off[c]];
	return px->rp[px->ev_rec[e]].wait;
}

/* client-server: the waiter threads of signal wait s are all idle. */
static int pm_can_fire(const struct sim_work *w, uint32_t s)
{
	const struct sim_pairs *px = &w->p->px;
	for (uint32_t i = px->w_off[s]; i < px->w_off[s + 1]; i++) {
		uint32_t c = px->rp[px->ev_rec[px->w_cond[i]]].wait;
		if (!w->pt[px->w_th[c]].idle)
			return 0;
	}
	return 1;
}

/*
 * client-server: signal wait s happens at T.  u is the running thread:
 * the signaller itself (it reached s and its waiters were idle), or one
 * of the waiters, at the end of a list (the signaller was blocked: it
 * proceeds no earlier than t after, as in the Direct model).  Every
 * waiter starts its cwait's list; returns u's continuation.
 */
static int pm_cs_fire(struct sim_work *w, uint32_t s, stime T, uint32_t u)
{
	const struct sim_pairs *px = &w->p->px;
	uint32_t y = px->w_th[s], srec = px->w_rec[s];
	struct sth *ty = &w->th[y];
	int32_t xy = ty->lproc;
	if (u != y) {
		ty->nb = 0;
		nb_after(w, y, T, w->th[u].lproc);
		if (w->flags & SIM_SCHEDULE)
			sy_add(w, y, srec, T, (int32_t)u);
		proceed(w, y, T);
	}
	uint32_t mine = SIM_NONE;
	for (uint32_t i = px->w_off[s]; i < px->w_off[s + 1]; i++) {
		uint32_t c = px->rp[px->ev_rec[px->w_cond[i]]].wait, v = px->w_th[c];
		w->pt[v].idle = 0;
		w->pt[v].npend--;
		w->th[v].cur = px->w_rec[c];
		if (v == u) {
			mine = c;
		} else {
			w->th[v].bk = BK_PAIR;
			w->th[v].wobj = c;
		}
	}
	int32_t saved = w->cur_releaser;
	w->cur_releaser = (int32_t)y;
	pm_fire(w, px->rp[srec].ev, T, xy);
	w->cur_releaser = saved;
	if (u == y || mine == SIM_NONE)
		return GO_ON;
	if (w->w_left[mine] == 0)
		return pm_grant_running(w, u, mine, T);
	block(w, u, T, BK_PAIR, mine); /* its mutex is not released yet */
	return STOPPED;
}

/*
 * client-server: u (running) ended a list at T.  It serves a signaller
 * blocked on one of its cwaits if that signal can now happen (oldest
 * first), else starts the earliest of its lists that can start, else
 * exits if it is at its exit with no list left, else becomes idle.
 */
static int pm_list_end(struct sim_work *w, uint32_t u, stime T)
{
	struct pth *pt = &w->pt[u];
	const struct sim_pairs *px = &w->p->px;
	pt->idle = 1;
	uint32_t prev = SIM_NONE, c = pt->sqh;
	while (c != SIM_NONE) {
		uint32_t nx = w->sq_next[c], s = pm_signal_of(w, c);
		int fired = w->ev[px->rp[px->w_rec[s]].ev].left == 0;
		int now = !fired && pm_can_fire(w, s);
		if (fired || now) {
			if (prev == SIM_NONE)
				pt->sqh = nx;
			else
				w->sq_next[prev] = nx;
			if (pt->sqt == c)
				pt->sqt = prev;
		} else {
			prev = c;
		}
		if (now)
			return pm_cs_fire(w, s, T, u);
		c = nx;
	}
	if (pt->lhn) {
		uint32_t d = lheap_pop(w, u);
		pt->idle = 0;
		pt->npend--;
		w->th[u].cur = px->w_rec[d];
		return pm_grant_running(w, u, d, T);
	}
	if (pt->npend == 0 && pt->exit_wait) {
		pt->idle = 0;
		w->th[u].cur = w->th[u].end - 1;
		return pm_exit(w, u, T);
	}
	block(w, u, T, BK_IDLE, 0);
	return STOPPED;
}

/* u (running) reached the acquisition part of its current record at T;
 * d is the record's wait. */
static int pm_acquire(struct sim_work *w, uint32_t u, stime T, uint32_t d)
{
	struct sth *t = &w->th[u];
	if (d == SIM_NONE) { /* nothing to wait for */
		if (w->flags & SIM_SCHEDULE)
			sy_add(w, u, t->cur, T, -1);
		return GO_ON;
	}
	if (w->cs)
		return pm_list_end(w, u, T);
	if (w->w_left[d] == 0)
		return pm_grant_running(w, u, d, T);
	block(w, u, T, BK_PAIR, d);
	return STOPPED;
}

static int step_pm(struct sim_work *w, uint32_t u, stime T)
{
	struct sth *t = &w->th[u];
	const struct trace_rec *r = cur_rec(w, u);
	const struct sim_pairs *px = &w->p->px;
	int32_t x = t->lproc;
	const struct sim_prec rp = px->rp[t->cur];
	uint32_t ev = rp.ev;
	step_begin(w, u, r);

	switch (r->op) {
	case TRACE_CREATE:
		load_work(w, r->a);
		make_ready(w, r->a, T);
		return GO_ON;
	case TRACE_EXIT:
		if (w->cs && w->pt[u].npend) {
			w->pt[u].exit_wait = 1;
			return pm_list_end(w, u, T);
		}
		return pm_exit(w, u, T);
	case TRACE_TRYLOCK:
	case TRACE_TRYWAIT:
		if (!r->b)
			return GO_ON;
		return pm_acquire(w, u, T, rp.wait);
	case TRACE_LOCK:
	case TRACE_WAIT:
	case TRACE_JOIN:
	case TRACE_RDLOCK:
	case TRACE_WRLOCK:
		return pm_acquire(w, u, T, rp.wait);
	case TRACE_CWAIT:
	case TRACE_BARRIER:
		/* first half: release the mutex and register / arrive */
		if (ev != SIM_NONE)
			pm_fire(w, ev, T, x);
		return pm_acquire(w, u, T, rp.wait);
	case TRACE_UNLOCK:
	case TRACE_POST:
	case TRACE_RWUNLOCK:
		if (ev != SIM_NONE)
			pm_fire(w, ev, T, x);
		return GO_ON;
	case TRACE_SIGNAL:
	case TRACE_BROADCAST: {
		uint32_t s = rp.wait;
		if (s == SIM_NONE)
			return GO_ON; /* it woke nobody in the recording */
		if (w->cs) {
			if (pm_can_fire(w, s))
				return pm_cs_fire(w, s, T, u);
		} else if (w->w_left[s] == 0) {
			pm_fire(w, ev, T, x);
			return GO_ON;
		}
		block(w, u, T, BK_SIGWAIT, s);
		if (w->cs) {
			for (uint32_t i = px->w_off[s]; i < px->w_off[s + 1]; i++) {
				uint32_t c = px->rp[px->ev_rec[px->w_cond[i]]].wait;
				struct pth *pv = &w->pt[px->w_th[c]];
				w->sq_next[c] = SIM_NONE;
				if (pv->sqh == SIM_NONE)
					pv->sqh = c;
				else
					w->sq_next[pv->sqt] = c;
				pv->sqt = c;
			}
		}
		return STOPPED;
	}
	case TRACE_SLEEP:
		leave_cpu(w, u, T);
		t->nb = T + trace_sleep_time(r);
		proceed(w, u, T);
		return STOPPED;
	default:
		return GO_ON;
	}
}

/* ------------------------------------------------------------------ */
/* Run */

/* Allocate the strict / client-server state (once per workspace). */
static int pm_reserve(struct sim_work *w)
{
	if (w->pm_ok)
		return 0;
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
	if (k == 0 || (par->policy == SIM_RR && par->quantum == 0) ||
	    par->policy > SIM_RR || par->mode > SIM_UNBOUND)
		return SIM_EINVAL;
	if (par->model != SIM_DIRECT && par->model != SIM_CLIENT_SERVER &&
	    par->model != SIM_STRICT)
		return SIM_EINVAL;
	/* Times stay below 2^63: trace work + sleeps < 2^62 (reader), and
	 * each record adds at most one latency, create and switch cost. */
	uint64_t per = 0, lim = (uint64_t)1 << 62;
	if (par->latency >= lim || par->create_cost >= lim ||
	    par->switch_cost >= lim || par->quantum >= lim)
		return SIM_EOVERFLOW;
	per = par->latency + par->create_cost + par->switch_cost;
	if (per && (p->nsync + n) > (lim / per))
		return SIM_EOVERFLOW;
	if (work_reserve(w, k) != 0)
		return SIM_ENOMEM;
	w->cs = par->model == SIM_CLIENT_SERVER;
	if (par->model != SIM_DIRECT) {
		if (pm_reserve(w) != 0)
			return SIM_ENOMEM;
		pm_setup(w);
	}

	w->par = par;
	w->tr = tr;
	w->t_lat = par->latency;
	w->nomem = 0;
	w->steps = 0;
	w->makespan = 0;
	w->live = n;
	w->niv = w->nsy = 0;
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
	for (uint32_t gi = 0; gi < ngrp; gi++) {
		w->g[gi].rqh = w->g[gi].rqt = NIL;
		w->g[gi].V = w->g[gi].tlast = w->g[gi].busy = 0;
		w->g[gi].tnext = w->g[gi].tshort = UINT64_MAX;
	}
	for (uint32_t s = 0; s < w->nslot; s++) {
		w->sl[s].run = w->sl[s].last = -1;
		w->sl[s].qend = w->sl[s].busy = 0;
	}
	/* ps heaps: carve the pool by group size */
	if (par->mode == SIM_UNBOUND) {
		w->g[0].hbase = 0;
	} else {
		for (uint32_t i = 0; i < n; i++)
			w->g[w->th[i].grp].hn++;
		uint32_t base = 0;
		for (uint32_t gi = 0; gi < ngrp; gi++) {
			w->g[gi].hbase = base;
			base += w->g[gi].hn;
			w->g[gi].hn = 0;
		}
	}

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
		w->ppos[i] = -1;
		t->qnext = t->jhead = t->jtail = NIL;
		t->hbase = hb;
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
			w->stats[i].proc = par->mode == SIM_UNBOUND ? -2 :
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
	uint32_t tb = 0;
	for (uint32_t s = 0; s < tr->nobj[TRACE_K_SEM]; s++) {
		struct ssem *sm = &w->sem[s];
		sm->init_left = tr->sem_init[s];
		sm->qh = sm->qt = NIL;
		sm->rbase = tb;
		sm->rcap = p->sem_cap[s];
		sm->rhead = sm->rcount = 0;
		tb += sm->rcap;
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

static void collect_blocked(struct sim_work *w, struct sim_result *res)
{
	size_t nb = 0;
	for (uint32_t u = 0; u < w->p->n; u++) {
		struct sth *t = &w->th[u];
		if (t->state != ST_BLOCK)
			continue;
		struct sim_blocked *b = &w->blocked[nb++];
		b->thread = u;
		b->rec = t->cur;
		b->obj = t->wobj;
		b->holder = -1;
		b->after = UINT32_MAX;
		b->lists = 0;
		b->why = bk_why[t->bk];
		switch (t->bk) {
		case BK_LOCK:
		case BK_CWAIT_REACQ:
		case BK_SIG_REACQ:
			b->kind = TRACE_K_MUTEX;
			b->holder = w->mx[t->wobj].owner;
			break;
		case BK_WAIT:
			b->kind = TRACE_K_SEM;
			break;
		case BK_JOIN:
			b->kind = TRACE_K_THREAD;
			b->holder = (int32_t)t->wobj;
			break;
		case BK_BARRIER:
			b->kind = TRACE_K_BARRIER;
			break;
		case BK_CWAIT:
		case BK_SIGWAIT:
			b->kind = TRACE_K_COND;
			break;
		default:
			b->kind = TRACE_K_RWLOCK;
			b->holder = w->rw[t->wobj].writer;
			break;
		}
	}
	res->nblocked = nb;
	res->blocked = w->blocked;
}

/* The thread whose records include record r. */
static uint32_t rec_thread(const struct trace *tr, uint32_t r)
{
	uint32_t lo = 0, hi = tr->nthreads;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->threads[mid].first <= r)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Blocked threads of a strict or client-server run: each waits for the
 * first release its wait still needs (b->after, by thread b->holder). */
static void collect_blocked_pm(struct sim_work *w, struct sim_result *res)
{
	const struct trace *tr = w->tr;
	const struct sim_pairs *px = &w->p->px;
	size_t nb = 0;
	for (uint32_t u = 0; u < w->p->n; u++) {
		struct sth *t = &w->th[u];
		if (t->state != ST_BLOCK)
			continue;
		struct sim_blocked *b = &w->blocked[nb++];
		uint32_t d = t->wobj, lists = 0;
		if (t->bk == BK_IDLE) { /* its earliest list that cannot start */
			d = SIM_NONE;
			for (uint32_t i = px->th_wbase[u]; i < px->th_wbase[u + 1]; i++) {
				if (w->w_left[i] == 0 && tr->rec[px->w_rec[i]].op != TRACE_CWAIT)
					continue;
				if (is_signal(&tr->rec[px->w_rec[i]]))
					continue;
				if (tr->rec[px->w_rec[i]].op == TRACE_CWAIT &&
				    w->ev[px->w_cond[px->w_off[i]]].left == 0)
					continue; /* started */
				if (d == SIM_NONE)
					d = i;
				lists++;
			}
			if (d == SIM_NONE) /* cannot happen: it would have exited */
				d = px->th_wbase[u];
		}
		uint32_t rec = px->w_rec[d];
		const struct trace_rec *r = &tr->rec[rec];
		b->thread = u;
		b->rec = rec;
		b->obj = r->a;
		b->holder = -1;
		b->after = UINT32_MAX;
		b->lists = lists;
		/* the first release it still needs */
		for (uint32_t i = px->w_off[d]; i < px->w_off[d + 1]; i++) {
			uint32_t e = px->w_cond[i];
			if (w->ev[e].left == 0)
				continue;
			if (r->op != TRACE_BARRIER) {
				b->after = px->ev_rec[e];
				b->holder = (int32_t)rec_thread(tr, b->after);
			}
			break;
		}
		if (is_signal(r) && w->cs) { /* a waiter that is not idle */
			b->after = UINT32_MAX;
			b->holder = -1;
			for (uint32_t i = px->w_off[d]; i < px->w_off[d + 1]; i++) {
				uint32_t c = px->rp[px->ev_rec[px->w_cond[i]]].wait;
				if (!w->pt[px->w_th[c]].idle) {
					b->after = px->w_rec[c];
					b->holder = (int32_t)px->w_th[c];
					break;
				}
			}
		}
		switch (r->op) {
		case TRACE_LOCK:
		case TRACE_TRYLOCK:
			b->kind = TRACE_K_MUTEX;
			b->why = "lock";
			break;
		case TRACE_WAIT:
		case TRACE_TRYWAIT:
			b->kind = TRACE_K_SEM;
			b->why = "wait on";
			break;
		case TRACE_JOIN:
			b->kind = TRACE_K_THREAD;
			b->why = "join";
			break;
		case TRACE_BARRIER:
			b->kind = TRACE_K_BARRIER;
			b->why = "pass";
			break;
		case TRACE_CWAIT:
			if (w->ev[px->w_cond[px->w_off[d]]].left == 0) {
				b->kind = TRACE_K_MUTEX;
				b->obj = r->b;
				b->why = "re-acquire after cwait";
			} else {
				b->kind = TRACE_K_COND;
				b->why = "be signalled on";
			}
			break;
		case TRACE_RDLOCK:
		case TRACE_WRLOCK:
			b->kind = TRACE_K_RWLOCK;
			b->why = r->op == TRACE_RDLOCK ? "rdlock" : "wrlock";
			break;
		default: /* signal, broadcast */
			b->kind = TRACE_K_COND;
			b->why = "see its waiters on";
			break;
		}
	}
	res->nblocked = nb;
	res->blocked = w->blocked;
}

/*
 * The event loop.  Always inlined with a constant `pm`, so that the
 * Direct model (pm = 0) and the pairing models (pm = 1) each get their
 * own copy: the Direct model's loop does not test the model per step.
 */
static inline __attribute__((always_inline)) void run_events(struct sim_work *w,
                                                            const int pm)
{
	const uint32_t n = w->p->n, ngrp = w->ngrp, nng = n + ngrp;
	const stime cutoff = w->cutoff;
	while (w->hn && !w->nomem) {
		uint32_t id = w->heap[0].id;
		stime T = (stime)(w->heap[0].key >> 64);
		if (__builtin_expect(T > cutoff, 0)) {
			w->cut = 1; /* threads remain, and nothing happens <= cutoff */
			return;
		}
		if (id < n) {
			struct sth *t = &w->th[id];
			if (t->state == ST_TIMER) {
				heap_del(w, id);
				if (__builtin_expect(t->bk == BK_CWAIT_WAKE, 0))
					cwait_arrive(w, id, T);
				else
					make_ready(w, id, T);
				continue;
			}
			/* fifo/rr: the running thread finished its work; its event
			 * stays in the heap: go_on moves it, leave_cpu removes it */
			if (w->flags & SIM_STATS)
				w->sl[t->slot].busy += T - t->seg;
			t->rem = 0;
			if ((pm ? step_pm(w, id, T) : step(w, id, T)) == GO_ON)
				go_on(w, id, T);
		} else if (id < nng) {
			struct sgrp *g = &w->g[id - n];
			ps_advance(w, g, T);
			uint32_t u = w->pheap[g->hbase].u;
			if ((pm ? step_pm(w, u, T) : step(w, u, T)) == GO_ON)
				go_on(w, u, T);
		} else {
			rr_expire(w, id - nng, T);
		}
	}
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

/* One run of one model (not SIM_AUTO). */
static int run_model(const struct sim_program *p, struct sim_work *w,
                     const struct sim_params *par, const int32_t *binding,
                     unsigned flags, stime cutoff, struct sim_result *res)
{
	memset(res, 0, sizeof *res);
	res->makespan = ST(0);
	res->model = par->model;
	w->flags = flags;
	w->cutoff = cutoff;
	w->cut = 0;
	int rc = setup(w, par, binding);
	if (rc != SIM_OK) {
		res->status = rc;
		return rc;
	}
	const uint32_t n = p->n;
	load_work(w, p->tr->initial);
	make_ready(w, p->tr->initial, 0);

	if (par->model == SIM_DIRECT)
		run_events(w, 0);
	else
		run_events(w, 1);
	res->steps = w->steps;
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
			if (par->mode == SIM_UNBOUND)
				w->busy[c] = par->policy == SIM_PS ?
				             st_make(w->g[0].busy, par->cpus, &ovf) : /* average */
				             ST(w->sl[c].busy);
			else
				w->busy[c] = ST(par->policy == SIM_PS ? w->g[c].busy : w->sl[c].busy);
		}
		res->threads = w->stats;
		res->busy = w->busy;
	}
	if (flags & SIM_SCHEDULE) {
		res->nintervals = w->niv;
		res->intervals = w->iv;
		res->nsyncs = w->nsy;
		res->syncs = w->sy;
	}
	if (w->live) {
		if (par->model == SIM_DIRECT)
			collect_blocked(w, res);
		else
			collect_blocked_pm(w, res);
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
                      unsigned flags, stime cutoff, struct sim_result *res)
{
	if (w->p != p || par->model > SIM_AUTO) {
		memset(res, 0, sizeof *res);
		res->makespan = ST(0);
		res->model = par->model;
		res->status = SIM_EINVAL;
		return SIM_EINVAL;
	}
	if (par->model != SIM_AUTO)
		return run_model(p, w, par, binding, flags, cutoff, res);
	/* Paper VIII, Figure 14: Direct; on deadlock client-server; on
	 * deadlock strict sequence. */
	static const enum sim_model scheme[] = {SIM_DIRECT, SIM_CLIENT_SERVER, SIM_STRICT};
	struct sim_params q = *par;
	int rc = SIM_EINVAL;
	for (size_t i = 0; i < sizeof scheme / sizeof scheme[0]; i++) {
		q.model = scheme[i];
		rc = run_model(p, w, &q, binding, flags, cutoff, res);
		if (rc != SIM_DEADLOCK)
			break;
	}
	return rc;
}

int sim_run(const struct sim_program *p, struct sim_work *w,
            const struct sim_params *par, const int32_t *binding,
            unsigned flags, struct sim_result *res)
{
	return run_scheme(p, w, par, binding, flags, UINT64_MAX, res);
}

int sim_makespan(const struct sim_program *p, struct sim_work *w,
                 const struct sim_params *par, const int32_t *binding,
                 sim_time *out)
{
	struct sim_result res;
	int rc = sim_run(p, w, par, binding, 0, &res);
	*out = rc == SIM_OK ? res.makespan : ST(0);
	return rc;
}

int sim_makespan_cutoff(const struct sim_program *p, struct sim_work *w,
                        const struct sim_params *par, const int32_t *binding,
                        uint64_t cutoff, sim_time *out)
{
	struct sim_result res;
	int rc = run_scheme(p, w, par, binding, 0, cutoff, &res);
	*out = rc == SIM_OK ? res.makespan : ST(0);
	return rc;
}

void sim_deadlock_print(const struct sim_program *p,
                        const struct sim_result *res, FILE *f)
{
	const struct trace *tr = p->tr;
	for (size_t i = 0; i < res->nblocked; i++) {
		const struct sim_blocked *b = &res->blocked[i];
		const char *name = trace_thread_name(tr, b->thread);
		fprintf(f, "thread %u", tr->threads[b->thread].id);
		if (name)
			fprintf(f, " (%s)", name);
		if (b->lists)
			fprintf(f, " is idle with %u list%s waiting; the first waits at line %u to %s ",
			        b->lists, b->lists == 1 ? "" : "s", tr->rec[b->rec].line, b->why);
		else
			fprintf(f, " waits at line %u to %s ", tr->rec[b->rec].line, b->why);
		if (b->kind == TRACE_K_THREAD)
			fprintf(f, "thread %u", tr->threads[b->obj].id);
		else
			fprintf(f, "%s %u", trace_kind_name(b->kind),
			        tr->obj_id[b->kind][b->obj]);
		if (b->after != UINT32_MAX && b->holder >= 0)
			fprintf(f, ", until thread %u's %s at line %u",
			        tr->threads[b->holder].id, trace_op_name(tr->rec[b->after].op),
			        tr->rec[b->after].line);
		else if (b->holder >= 0 && b->kind != TRACE_K_THREAD)
			fprintf(f, ", held by thread %u", tr->threads[b->holder].id);
		fputc('\n', f);
	}
}
