/*
 * validate.c - pass 2 of the reader: the records of pass 1 (file order)
 * are permuted into thread-major order, then replayed in file order as one
 * sequential execution (docs/trace-format.md, Order; docs/trace.md), which
 * fills pair[].  The first record where the replay fails is reported.
 *
 * Condition variables: a thread whose next record is `cwait C M`
 * registers as a waiter of C right after its current record (or at its
 * create, if the cwait is its first record), releasing M.  Registered
 * waiters of C sit in a min-heap by the line of their cwait; a
 * signal/broadcast C N claims the N waiters whose cwait lines come first
 * (earliest deadline first, optimal for these interval constraints).  A
 * cwait line then needs a claim, and M free.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/traceint.h"

#define NONE TRACE_NONE
#define TR_AHEAD 16 /* records: how far ahead the replay prefetches */
#define TR_PREFETCH_THREADS 16 /* threads: above, the replay prefetches */
#define TR_DROP_MIN ((size_t)16 << 20) /* bytes: pass-1 arrays dropped above */
#define NOT_CREATED UINT32_MAX

struct vth {
	uint32_t first, cur, end; /* records [first, end), next: cur       */
	uint32_t last_line;       /* line of its record before cur         */
	uint32_t created;         /* line of its create; 0: the initial
	                             thread; NOT_CREATED                    */
	uint32_t exit_line;       /* 0 while it runs                        */
	uint32_t exit_rec;
	uint32_t woken_by;        /* signal that claimed its pending cwait  */
	uint32_t reg_line;        /* line after which it began that cwait   */
	uint8_t reg_bad;          /* it did not hold M then                 */
	uint8_t reg_first;        /* that cwait is its first record         */
	uint8_t phantom_used;     /* truncated: assumed to have begun a
	                             cwait past the syntax error            */
};

struct vmx {
	uint32_t owner, since;    /* thread and line, or NONE             */
	uint32_t last_release;    /* record after which it was released   */
};

struct vsem {
	uint32_t left;            /* initial tokens not taken yet          */
	uint32_t head, tail;      /* posts not taken yet, linked by pair[] */
};

struct vheap {
	uint64_t *a;              /* cwait line << 32 | thread             */
	uint32_t n, cap;
};

struct vbar {
	uint32_t count, size, first_line;
	uint32_t chain;           /* arrivals of the open group, by pair[] */
};

struct vrw {
	uint32_t writer, since, last_unlock;
	uint64_t readers;         /* read holds                            */
};

/* read holds per (thread, rwlock) */
struct vrd {
	uint64_t *key;            /* thread << 32 | rwlock; empty: ~0      */
	uint32_t *cnt;
	size_t mask, n;
};

struct v {
	struct tr_p1 *P;
	struct trace_error err;
	int oom;
	int truncated;
	struct trace_rec *rec;    /* thread-major, written by the replay   */
	uint32_t *loc;            /* the same for locations, or NULL       */
	uint32_t *pair;
	const uint32_t *newidx;   /* pass-1 thread -> dense thread         */
	const uint32_t *ord;      /* dense thread -> pass-1 thread         */
	uint32_t thop;            /* bit op: operand a is a thread         */
	uint32_t *thid;           /* external id of each (new) thread      */
	struct vth *th;
	struct vmx *mx;
	struct vsem *sem;
	struct vheap *cv;
	struct vbar *bar;
	struct vrw *rw;
	struct vrd rd;
	uint64_t exhausted;       /* truncated: live threads whose next
	                             record is past the syntax error        */
	uint64_t phantom;         /* of those, assumed woken already        */
};

static int verr(struct v *V, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int verr(struct v *V, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tr_verr(&V->err, V->P->file, line, fmt, ap);
	va_end(ap);
	return -1;
}

static int voom(struct v *V)
{
	V->oom = 1;
	return verr(V, 0, "out of memory");
}

static inline uint32_t xid(const struct v *V, int kind, uint32_t i)
{
	return V->P->obj[kind].id[i];
}

/* ---------------------------------------------------------------------
 * Containers
 */

static int heap_push(struct vheap *h, uint64_t k)
{
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 4;
		uint64_t *a = realloc(h->a, (size_t)cap * sizeof *a);
		if (!a)
			return -1;
		h->a = a;
		h->cap = cap;
	}
	uint32_t i = h->n++;
	while (i) {
		uint32_t p = (i - 1) / 2;
		if (h->a[p] <= k)
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = k;
	return 0;
}

static uint64_t heap_pop(struct vheap *h)
{
	uint64_t top = h->a[0], k = h->a[--h->n];
	uint32_t i = 0, n = h->n;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h->a[c + 1] < h->a[c])
			c++;
		if (k <= h->a[c])
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (n)
		h->a[i] = k;
	return top;
}

static inline size_t rd_hash(const struct tr_hash *h, uint64_t k, size_t mask)
{
	return (size_t)tr_hash64(h, k) & mask;
}

/* The read-hold count of (t, r); inserted as 0 with `insert`, else NULL
 * when absent.  NULL with `insert`: out of memory. */
static uint32_t *rd_get(struct tr_p1 *P, struct vrd *m, uint32_t t, uint32_t r,
                        int insert)
{
	const struct tr_hash *h = &P->hash;
	uint64_t key = (uint64_t)t << 32 | r;
	if (insert && (m->n + 1) * 2 > (m->key ? m->mask + 1 : 0)) {
		size_t slots = m->key ? (m->mask + 1) * 2 : 64;
		uint64_t *nk = malloc(slots * sizeof *nk);
		uint32_t *nc = malloc(slots * sizeof *nc);
		if (!nk || !nc) {
			free(nk);
			free(nc);
			return NULL;
		}
		memset(nk, 0xff, slots * sizeof *nk);
		if (m->key) {
			for (size_t i = 0; i <= m->mask; i++) {
				if (m->key[i] == UINT64_MAX)
					continue;
				size_t k = rd_hash(h, m->key[i], slots - 1);
				while (nk[k] != UINT64_MAX)
					k = (k + 1) & (slots - 1);
				nk[k] = m->key[i];
				nc[k] = m->cnt[i];
			}
		}
		free(m->key);
		free(m->cnt);
		m->key = nk;
		m->cnt = nc;
		m->mask = slots - 1;
	}
	if (!m->key)
		return NULL;
	size_t k = rd_hash(h, key, m->mask);
	uint64_t probes = 1;
	while (m->key[k] != UINT64_MAX) {
		if (m->key[k] == key)
			return &m->cnt[k];
		k = (k + 1) & m->mask;
		probes++;
	}
	if (!insert)
		return NULL;
	P->probes.rd_inserts++;
	P->probes.rd_probes += probes;
	m->key[k] = key;
	m->cnt[k] = 0;
	m->n++;
	return &m->cnt[k];
}

/* ---------------------------------------------------------------------
 * Replay
 */

/*
 * Truncated replay (a syntax error on line L): a live thread whose next
 * record lies past L may begin a cwait there, and that cwait would have
 * released its mutex right after the thread's last known record.  So a
 * mutex held by such a thread is not held against the lines before L: the
 * thread is assumed to have released it (once: one cwait, one mutex).
 */
static int phantom_release(struct v *V, uint32_t o)
{
	struct vth *O = &V->th[o];
	if (!V->truncated || O->phantom_used || O->exit_line ||
	    O->created == NOT_CREATED || O->cur != O->end)
		return 0;
	O->phantom_used = 1;
	return 1;
}

/* Thread t begins the cwait c (pass-1 record k) right after record
 * `prev` (NONE: at its start), on line reg_line.  The waiters of a
 * condition variable are ordered by their cwait's record index, which
 * orders them as their lines do. */
static int reg(struct v *V, uint32_t t, const struct tr_rec1 *c, uint32_t k,
               uint32_t prev, uint32_t reg_line)
{
	struct vmx *m = &V->mx[c->b];
	struct vth *T = &V->th[t];
	if (prev != NONE && m->owner == t) {
		m->owner = NONE;
		m->last_release = prev;
		T->reg_bad = 0;
	} else {
		T->reg_bad = 1;
	}
	T->reg_first = prev == NONE;
	T->woken_by = NONE;
	T->reg_line = reg_line;
	if (heap_push(&V->cv[c->a], (uint64_t)k << 32 | t))
		return voom(V);
	return 0;
}

/* The whole pages of a[0, bytes) not given back yet (*done: the address
 * up to which they were) go back to the system (their contents are not
 * read again; the block is freed later). */
static void drop_pages(void *a, size_t bytes, uintptr_t *done)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)a + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)a + bytes) & ~(page - 1);
	if (*done > lo)
		lo = *done;
	if (hi > lo + 16 * page) {
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
		*done = hi;
	}
}

/* The records of pass 1 (P->rec, file order), n of them, replayed in file
 * order; each is copied to its thread-major place rec[j] as it is
 * replayed (one pass over the records, read in order; the pages of the
 * pass-1 arrays go back to the system behind it, so that the records take
 * about one copy of memory, not two).  cw[0, ncw): P->cw sorted by the
 * earlier record. */
static int replay(struct v *V, size_t n, const uint64_t *cw, size_t ncw)
{
	struct tr_p1 *P = V->P;
	const struct tr_rec1 *prec = P->rec;
	struct trace_rec *rec = V->rec;
	const struct tr_esc *esc = P->esc;
	uint32_t last = 0; /* line of the previous record */
	const uint32_t *tid = P->tid, *ploc = P->loc, *newidx = V->newidx;
	uint32_t bused = P->bused;
	size_t ti = 0; /* next of tid[] */
	uint32_t *loc = V->loc, *pair = V->pair, thop = V->thop;
	struct vth *th = V->th;
	const uint32_t *thid = V->thid;
	uintptr_t rdone = 0, tdone = 0, ldone = 0;
	size_t cwn = 0;
	/* The pages of the pass-1 arrays go back to the system behind the
	 * replay (every 65,536 records) when they are large (the peak then
	 * stays near one copy of the records); small ones stay: a process
	 * that reads trace after trace (sim-speed, experiments) reuses them
	 * from malloc without faulting them in again (2,303 of 2,303 page
	 * faults of each read of 800k records, after its first, were these
	 * pages), for at most TR_DROP_MIN more bytes at the peak. */
	size_t p1_bytes = n * sizeof *prec + P->ntid * sizeof *tid + (ploc ? n * sizeof *ploc : 0);
	size_t next_drop = p1_bytes > TR_DROP_MIN ? 0xffff : SIZE_MAX;
	/* the rule each record follows, by op and whether its b is 0
	 * (trace_op_effect: -1 for a busy trylock or trywait) */
	int8_t effect[TRACE_NOPS][2];
	for (int op = 0; op < TRACE_NOPS; op++)
		for (int nz = 0; nz < 2; nz++)
			effect[op][nz] = (int8_t)trace_op_effect(
				&(struct trace_rec){ .op = (uint8_t)op, .b = (uint32_t)nz });
	/* prefetch for the records before pf_end: none with few threads,
	 * whose places the hardware follows alone */
	size_t pf_end = V->P->obj[TRACE_K_THREAD].n > TR_PREFETCH_THREADS &&
	                n > TR_AHEAD ? n - TR_AHEAD : 0;

	for (size_t i = 0; i < n; i++) {
		/* The records go to one place per thread, more places than
		 * the hardware follows with many threads: ask for the lines
		 * of the place of the record TR_AHEAD on (the next 3 lines of
		 * rec[]: a thread often has a run of records) */
		if (i < pf_end &&
		    !(bused >> (prec[i + TR_AHEAD].wl >> TR1_OP_SHIFT & 31) & 1)) {
			uint32_t c = th[newidx[prec[i + TR_AHEAD].b]].cur;
			const char *x = (const char *)&rec[c];
			__builtin_prefetch(x, 1);
			__builtin_prefetch(x + 64, 1);
			__builtin_prefetch(x + 128, 1);
		}
		const struct tr_rec1 *q = &prec[i];
		uint32_t wl = q->wl;
		uint8_t op = (uint8_t)((wl >> TR1_OP_SHIFT) & 31);
		int hasb = bused >> op & 1;
		uint32_t t = newidx[hasb ? tid[ti++] : q->b];
		struct vth *T = &th[t];
		uint32_t j = T->cur;
		struct trace_rec *w = &rec[j];
		uint32_t diff = wl >> TR1_DIFF_SHIFT & TR1_ESC;
		int cwnext = (wl & TR1_CWNEXT) != 0;
		uint64_t work;
		if (diff == TR1_ESC) {
			work = esc->work;
			last = esc->line;
			esc++;
		} else {
			work = wl & TR1_WORK_MASK;
			last += diff;
		}
		/* the record, kept in registers: rec[] is only written (a
		 * read of what was just stored there waited for the store,
		 * whose line, one of nthreads places, was often not in the
		 * cache: most of pass 2's time with 64 threads, measured) */
		uint32_t ra = thop >> op & 1 ? newidx[q->a] : q->a, rb = hasb ? q->b : 0;
		uint32_t line = last;
		w->work = work;
		w->a = ra;
		w->b = rb;
		w->line = line;
		w->op = op;
		if (loc)
			loc[j] = ploc[i];
		if (i == next_drop) {
			next_drop += 0x10000;
			drop_pages(P->rec, (i + 1) * sizeof *prec, &rdone);
			drop_pages(P->tid, ti * sizeof *tid, &tdone);
			if (loc)
				drop_pages(P->loc, (i + 1) * sizeof *ploc, &ldone);
		}
#define opn trace_op_name(op) /* for messages only */

		if (T->created == NOT_CREATED)
			return verr(V, line, "thread %u used before any create names it",
			            thid[t]);
		if (T->exit_line)
			return verr(V, line, "thread %u has a record after its exit at line %u",
			            thid[t], T->exit_line);

		/* trylock ok: lock, ...; busy: nothing (from the registers) */
		switch (effect[op][rb != 0]) { /* ORDER OP */
		case TRACE_CREATE: {
			uint32_t c = ra;
			struct vth *C = &th[c];
			if (C->created == 0)
				return verr(V, line, "create of thread %u, which already exists (the initial thread)",
				            thid[c]);
			if (C->created != NOT_CREATED)
				return verr(V, line, "create of thread %u, which already exists (created at line %u)",
				            thid[c], C->created);
			C->created = line;
			if (C->cur < C->end) {
				uint32_t k = P->th_cw0[V->ord[c]];
				if (k != NONE && reg(V, c, &prec[k], k, NONE, line))
					return -1;
			} else if (V->truncated) {
				V->exhausted++;
			}
			break;
		}
		case TRACE_EXIT:
			T->exit_line = line;
			T->exit_rec = j;
			break;
		case TRACE_JOIN: {
			uint32_t u = ra;
			if (u == t)
				return verr(V, line, "thread %u joins itself", thid[t]);
			if (th[u].created == NOT_CREATED)
				return verr(V, line, "thread %u used before any create names it",
				            thid[u]);
			if (!th[u].exit_line)
				return verr(V, line, "join of thread %u before its exit",
				            thid[u]);
			pair[j] = th[u].exit_rec;
			break;
		}
		case TRACE_LOCK: {
			struct vmx *m = &V->mx[ra];
			if (m->owner == t)
				return verr(V, line, "%s of mutex %u, which thread %u already holds (since line %u)",
				            opn, xid(V, TRACE_K_MUTEX, ra), thid[t], m->since);
			if (m->owner != NONE && !phantom_release(V, m->owner))
				return verr(V, line, "%s of mutex %u, which thread %u holds (since line %u)",
				            opn, xid(V, TRACE_K_MUTEX, ra),
				            thid[m->owner], m->since);
			m->owner = t;
			m->since = line;
			pair[j] = m->last_release;
			break;
		}
		case TRACE_UNLOCK: {
			struct vmx *m = &V->mx[ra];
			if (m->owner == NONE)
				return verr(V, line, "unlock of mutex %u, which is not locked",
				            xid(V, TRACE_K_MUTEX, ra));
			if (m->owner != t)
				return verr(V, line, "unlock of mutex %u, which thread %u holds (since line %u)",
				            xid(V, TRACE_K_MUTEX, ra), thid[m->owner],
				            m->since);
			m->owner = NONE;
			m->last_release = j;
			break;
		}
		case TRACE_WAIT: {
			struct vsem *s = &V->sem[ra];
			if (s->left) {
				s->left--;
			} else if (s->head != NONE) {
				uint32_t p = s->head;
				s->head = pair[p];
				pair[p] = NONE;
				if (s->head == NONE)
					s->tail = NONE;
				pair[j] = p;
			} else {
				return verr(V, line, "%s on semaphore %u, which has no token",
				            opn, xid(V, TRACE_K_SEM, ra));
			}
			break;
		}
		case TRACE_POST: {
			struct vsem *s = &V->sem[ra];
			if (s->tail == NONE)
				s->head = j;
			else
				pair[s->tail] = j;
			s->tail = j;
			break;
		}
		case TRACE_CWAIT: {
			struct vmx *m = &V->mx[rb];
			if (T->reg_bad) {
				if (T->reg_first)
					return verr(V, line, "thread %u does not hold mutex %u when it begins this cwait (its first record)",
					            thid[t], xid(V, TRACE_K_MUTEX, rb));
				return verr(V, line, "thread %u does not hold mutex %u when it begins this cwait (after line %u)",
				            thid[t], xid(V, TRACE_K_MUTEX, rb), T->reg_line);
			}
			if (T->woken_by == NONE)
				return verr(V, line, "cwait of thread %u on condition variable %u is not woken by any signal or broadcast after line %u",
				            thid[t], xid(V, TRACE_K_COND, ra), T->reg_line);
			if (m->owner != NONE && !phantom_release(V, m->owner))
				return verr(V, line, "cwait of thread %u re-acquires mutex %u, which thread %u holds (since line %u)",
				            thid[t], xid(V, TRACE_K_MUTEX, rb),
				            thid[m->owner], m->since);
			m->owner = t;
			m->since = line;
			pair[j] = T->woken_by;
			T->woken_by = NONE;
			break;
		}
		case TRACE_SIGNAL:
		case TRACE_BROADCAST: {
			struct vheap *h = &V->cv[ra];
			uint32_t want = rb;
			if (h->n < want) {
				uint64_t miss = want - h->n;
				if (V->truncated && V->exhausted - V->phantom >= miss) {
					V->phantom += miss;
				} else {
					char waiting[64];
					if (h->n == 0)
						snprintf(waiting, sizeof waiting, "none was waiting");
					else
						snprintf(waiting, sizeof waiting, "only %u %s waiting",
						         h->n, h->n == 1 ? "was" : "were");
					return verr(V, line, "%s of condition variable %u woke %u thread%s, but %s",
					            opn, xid(V, TRACE_K_COND, ra), want,
					            want == 1 ? "" : "s", waiting);
				}
				want = h->n;
			}
			while (want--) {
				uint32_t w = (uint32_t)heap_pop(h);
				th[w].woken_by = j;
			}
			break;
		}
		case TRACE_BARRIER: {
			struct vbar *b = &V->bar[ra];
			uint32_t prev = j > T->first ? T->last_line : T->created;
			if (b->count == 0) {
				b->size = rb;
				b->first_line = line;
				b->chain = NONE;
			} else {
				if (rb != b->size)
					return verr(V, line, "barrier %u of size %u, but its group (from line %u) has size %u",
					            xid(V, TRACE_K_BARRIER, ra), rb,
					            b->first_line, b->size);
				if (prev >= b->first_line) {
					if (j > T->first)
						return verr(V, line, "thread %u reaches barrier %u after its group was released at line %u (its previous record is at line %u)",
						            thid[t], xid(V, TRACE_K_BARRIER, ra),
						            b->first_line, prev);
					return verr(V, line, "thread %u reaches barrier %u after its group was released at line %u (it was created at line %u)",
					            thid[t], xid(V, TRACE_K_BARRIER, ra),
					            b->first_line, prev);
				}
			}
			pair[j] = b->chain;
			b->chain = j;
			if (++b->count == b->size) {
				for (uint32_t k = j; k != NONE;) {
					uint32_t nx = pair[k];
					pair[k] = j;
					k = nx;
				}
				b->count = 0;
			}
			break;
		}
		case TRACE_RDLOCK: {
			struct vrw *w = &V->rw[ra];
			if (w->writer != NONE)
				return verr(V, line, "rdlock of rwlock %u, which thread %u holds for writing (since line %u)",
				            xid(V, TRACE_K_RWLOCK, ra), thid[w->writer],
				            w->since);
			uint32_t *c = rd_get(V->P, &V->rd, t, ra, 1);
			if (!c)
				return voom(V);
			(*c)++;
			w->readers++;
			pair[j] = w->last_unlock;
			break;
		}
		case TRACE_WRLOCK: {
			struct vrw *w = &V->rw[ra];
			if (w->writer != NONE)
				return verr(V, line, "wrlock of rwlock %u, which thread %u holds for writing (since line %u)",
				            xid(V, TRACE_K_RWLOCK, ra), thid[w->writer],
				            w->since);
			if (w->readers)
				return verr(V, line, "wrlock of rwlock %u while it is held for reading",
				            xid(V, TRACE_K_RWLOCK, ra));
			w->writer = t;
			w->since = line;
			pair[j] = w->last_unlock;
			break;
		}
		case TRACE_RWUNLOCK: {
			struct vrw *w = &V->rw[ra];
			if (w->writer == t) {
				w->writer = NONE;
			} else {
				uint32_t *c = rd_get(V->P, &V->rd, t, ra, 0);
				if (!c || !*c)
					return verr(V, line, "rwunlock of rwlock %u, which thread %u does not hold",
					            xid(V, TRACE_K_RWLOCK, ra), thid[t]);
				(*c)--;
				w->readers--;
			}
			w->last_unlock = j;
			break;
		}
		default: /* sleep; trylock, trywait busy */
			break;
		}

#undef opn
		T->cur = j + 1;
		T->last_line = line;
		if (cwnext) {
			/* its next record is a cwait (pass 1 said where) */
			if (cwn >= ncw || cw[cwn] >> 32 != i)
				return verr(V, line, "internal error: cwait list");
			uint32_t k = (uint32_t)cw[cwn++];
			if (reg(V, t, &prec[k], k, j, line))
				return -1;
		} else if (V->truncated && op != TRACE_EXIT && j + 1 == T->end) {
			V->exhausted++;
		}
	}
	return 0;
}

/* End of file: every thread exited, every barrier group complete. */
static int eof_checks(struct v *V, uint32_t nth, const uint32_t *ord)
{
	for (uint32_t t = 0; t < nth; t++) {
		const struct vth *T = &V->th[t];
		if (T->exit_line)
			continue;
		if (T->end > T->first)
			return verr(V, 0, "thread %u has no exit record (last record at line %u)",
			            V->thid[t], T->last_line);
		if (T->created == NOT_CREATED)
			return verr(V, 0, "thread %u has no records (named at line %u, never created)",
			            V->thid[t], V->P->th_name_line[ord[t]]);
		if (T->created == 0)
			return verr(V, 0, "thread %u has no records", V->thid[t]);
		return verr(V, 0, "thread %u has no exit record (created at line %u, no records)",
		            V->thid[t], T->created);
	}
	uint32_t nb = V->P->obj[TRACE_K_BARRIER].n, worst = NONE;
	for (uint32_t b = 0; b < nb; b++)
		if (V->bar[b].count &&
		    (worst == NONE || V->bar[b].first_line < V->bar[worst].first_line))
			worst = b;
	if (worst != NONE) {
		const struct vbar *b = &V->bar[worst];
		return verr(V, 0, "barrier %u has an incomplete group: %u of %u threads arrived (from line %u)",
		            xid(V, TRACE_K_BARRIER, worst), b->count, b->size,
		            b->first_line);
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Shrink a[n] to its size (NULL when empty); steals it. */
static void *fit(void *a, size_t n, size_t size)
{
	if (!n) {
		free(a);
		return NULL;
	}
	void *b = realloc(a, n * size);
	return b ? b : a;
}

static void v_release(struct v *V, uint32_t ncond)
{
	free(V->thid);
	free(V->th);
	free(V->mx);
	free(V->sem);
	if (V->cv)
		for (uint32_t c = 0; c < ncond; c++)
			free(V->cv[c].a);
	free(V->cv);
	free(V->bar);
	free(V->rw);
	free(V->rd.key);
	free(V->rd.cnt);
}

int tr_finish(struct tr_p1 *P, int truncated, struct trace **out)
{
	struct v V;
	size_t n = P->nrec;
	uint32_t nth = P->obj[TRACE_K_THREAD].n;
	uint32_t ncond = P->obj[TRACE_K_COND].n;
	uint32_t *ord = NULL, *newidx = NULL;
	uint64_t *key = NULL;
	struct trace_rec *rec = NULL;
	uint32_t *loc = NULL, *pair = NULL;
	struct trace *tr = NULL;
	int rc = -1;

	if (out)
		*out = NULL;
	memset(&V, 0, sizeof V);
	V.P = P;
	V.truncated = truncated;
	if (!truncated && n == 0) {
		tr_err(P->err, P->file, 0, "no records (thread 1 must run and exit)");
		return -1;
	}

	/* pass 1 reserved its records' array for the most records the text
	 * could hold: give back what it did not fill before the result is
	 * allocated, so that the result can take that room */
	if (P->rcap > n + n / 8 + 1024) {
		struct tr_rec1 *r = realloc(P->rec, (n ? n : 1) * sizeof *r);
		uint32_t *l = r && P->loc ? realloc(P->loc, (n ? n : 1) * sizeof *l) : NULL;
		if (r)
			P->rec = r;
		if (l)
			P->loc = l;
		if (r && (l || !P->loc))
			P->rcap = n;
	}

	/* dense thread order == increasing external id */
	key = malloc(((size_t)nth + 1) * sizeof *key);
	ord = malloc(((size_t)nth + 1) * sizeof *ord);
	newidx = malloc(((size_t)nth + 1) * sizeof *newidx);
	V.thid = malloc(((size_t)nth + 1) * sizeof *V.thid);
	V.th = calloc((size_t)nth + 1, sizeof *V.th);
	pair = tr_big_alloc(n * sizeof *pair);
	if (!key || !ord || !newidx || !V.thid || !V.th || !pair) {
		voom(&V);
		goto done;
	}
	for (uint32_t i = 0; i < nth; i++)
		key[i] = (uint64_t)P->obj[TRACE_K_THREAD].id[i] << 32 | i;
	qsort(key, nth, sizeof *key, cmp_u64);
	for (uint32_t i = 0; i < nth; i++) {
		ord[i] = (uint32_t)key[i];
		newidx[ord[i]] = i;
		V.thid[i] = (uint32_t)(key[i] >> 32);
	}
	free(key);
	key = NULL;

	/* thread-major places, from each thread's count (the records are
	 * copied there by the replay) */
	for (uint32_t i = 0; i < nth; i++)
		V.th[newidx[i]].end = P->th_nrec[i];
	uint32_t acc = 0;
	for (uint32_t t = 0; t < nth; t++) {
		uint32_t c = V.th[t].end;
		V.th[t].first = V.th[t].cur = acc;
		acc += c;
		V.th[t].end = acc;
		V.th[t].created = NOT_CREATED;
		V.th[t].woken_by = NONE;
	}
	rec = tr_big_alloc(n * sizeof *rec);
	if (P->loc)
		loc = tr_big_alloc(n * sizeof *loc);
	if (!rec || (P->loc && !loc)) {
		voom(&V);
		goto done;
	}
	V.rec = rec;
	V.loc = loc;
	/* every record's pair is NONE until the replay sets it: filled
	 * here in one sweep, so that the replay writes pair[] only at the
	 * records that have one (a wait, a lock, a join...), not at one
	 * place per thread for every record */
	memset(pair, 0xff, (n ? n : 1) * sizeof *pair);
	V.pair = pair;
	V.newidx = newidx;
	V.ord = ord;
	for (int op = 0; op < TRACE_NOPS; op++)
		if (trace_ops[op].arg[0].type == TRACE_ARG_OBJ &&
		    trace_ops[op].arg[0].kind == TRACE_K_THREAD)
			V.thop |= 1u << op;
	/* the cwaits by the record after which they are registered */
	if (P->ncw)
		qsort(P->cw, P->ncw, sizeof *P->cw, cmp_u64);

	/* object state */
	uint32_t nmx = P->obj[TRACE_K_MUTEX].n, nsem = P->obj[TRACE_K_SEM].n;
	uint32_t nbar = P->obj[TRACE_K_BARRIER].n, nrw = P->obj[TRACE_K_RWLOCK].n;
	V.mx = malloc(((size_t)nmx + 1) * sizeof *V.mx);
	V.sem = malloc(((size_t)nsem + 1) * sizeof *V.sem);
	V.cv = calloc((size_t)ncond + 1, sizeof *V.cv);
	V.bar = calloc((size_t)nbar + 1, sizeof *V.bar);
	V.rw = malloc(((size_t)nrw + 1) * sizeof *V.rw);
	if (!V.mx || !V.sem || !V.cv || !V.bar || !V.rw) {
		voom(&V);
		goto done;
	}
	for (uint32_t i = 0; i < nmx; i++)
		V.mx[i] = (struct vmx){ NONE, 0, NONE };
	/* pass 1's sem_init carries TR_SEM_DECLARED: split it, the flags
	 * into sem_line's array (the lines served pass 1's messages only) */
	for (uint32_t i = 0; i < nsem; i++) {
		uint32_t v = P->sem_init[i], init = v & ~TR_SEM_DECLARED;
		P->sem_init[i] = init;
		P->sem_line[i] = v >> 31;
		V.sem[i] = (struct vsem){ init, NONE, NONE };
	}
	for (uint32_t i = 0; i < nrw; i++)
		V.rw[i] = (struct vrw){ NONE, 0, NONE, 0 };

	/* the initial thread */
	uint32_t init = NONE;
	for (uint32_t t = 0; t < nth; t++)
		if (V.thid[t] == 1)
			init = t;
	if (init != NONE) {
		struct vth *T = &V.th[init];
		T->created = 0;
		if (T->cur < T->end) {
			uint32_t k = P->th_cw0[ord[init]];
			if (k != NONE && reg(&V, init, &P->rec[k], k, NONE, 0))
				goto done;
		} else if (truncated) {
			V.exhausted++;
		}
	}

	int bad = replay(&V, n, P->cw, P->ncw);
	free(P->rec);
	P->rec = NULL;
	free(P->tid);
	P->tid = NULL;
	free(P->loc);
	P->loc = NULL;
	if (bad)
		goto done;
	if (truncated)
		goto done;
	if (eof_checks(&V, nth, ord))
		goto done;

	/* untaken posts: their pair[] links back to TRACE_NONE */
	for (uint32_t s = 0; s < nsem; s++)
		for (uint32_t p = V.sem[s].head; p != NONE;) {
			uint32_t nx = pair[p];
			pair[p] = NONE;
			p = nx;
		}

	tr = calloc(1, sizeof *tr);
	if (!tr || !(tr->threads = malloc(((size_t)nth + 1) * sizeof *tr->threads))) {
		free(tr);
		tr = NULL;
		voom(&V);
		goto done;
	}
	tr->unit = P->unit;
	tr->unit_declared = P->unit_declared;
	tr->nthreads = nth;
	for (uint32_t t = 0; t < nth; t++) {
		tr->threads[t].id = V.thid[t];
		tr->threads[t].first = V.th[t].first;
		tr->threads[t].nrec = V.th[t].end - V.th[t].first;
		tr->threads[t].name = P->th_name[ord[t]];
	}
	tr->initial = init;
	tr->nrec = n;
	tr->rec = rec;
	tr->loc = loc;
	tr->pair = pair;
	rec = NULL;
	loc = pair = NULL;
	for (int k = 0; k < TRACE_NKINDS; k++) {
		tr->nobj[k] = P->obj[k].n;
		if (k == TRACE_K_THREAD)
			continue;
		tr->obj_id[k] = fit(P->obj[k].id, P->obj[k].n, sizeof(uint32_t));
		P->obj[k].id = NULL;
	}
	tr->sem_init = fit(P->sem_init, nsem, sizeof(uint32_t));
	tr->sem_declared = fit(P->sem_line, nsem, sizeof(uint32_t));
	P->sem_init = P->sem_line = NULL;
	tr->strings = fit(P->str, P->slen, 1);
	tr->strings_len = P->slen;
	P->str = NULL;
	if (out)
		*out = tr;
	else
		trace_free(tr);
	rc = 0;
done:
	if (rc && !(truncated && V.oom) && V.err.msg[0])
		*P->err = V.err;
	free(key);
	free(ord);
	free(newidx);
	free(rec);
	free(loc);
	free(pair);
	v_release(&V, ncond);
	return rc;
}
