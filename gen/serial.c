/*
 * serial.c - order a generated program's records into a valid trace.
 *
 * The threads are replayed as one execution on a single processor (the
 * way the thesis's Recorder saw its programs), and each record is written
 * where it took effect (docs/trace-format.md, Order):
 *
 *   - the running thread executes records until it blocks, exits, or has
 *     run `quantum` trace units of work since it was dispatched (checked
 *     after each record; quantum 0: never preempted) while another thread
 *     is ready; a preempted thread goes to the back of the ready queue;
 *   - `create` puts the child at the back of the ready queue;
 *   - a blocked acquisition is granted by the release that satisfies it
 *     (FIFO among waiters: semaphore token hand-off, mutex hand-off,
 *     barrier release, exit for join); its line is written right after
 *     the releasing line, and the woken thread joins the "woken" queue,
 *     which runs before the ready queue (like the wake-up priority boost
 *     of time-sharing schedulers, Solaris TS among them);
 *   - a barrier episode's lines are written together when its last member
 *     arrives, in arrival order.
 *
 * Everything is deterministic: plain arrays and FIFO queues, no hashing.
 * Only the operations the families use are supported: create, exit, join,
 * lock, unlock, wait, post, barrier.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/genint.h"

#define NIL UINT32_MAX

enum { S_NEW = 0, S_READY, S_BLOCKED, S_DONE };

struct wlist {
	uint32_t head, tail; /* thread indices, NIL when empty */
};

struct fifo {
	uint32_t *q;
	uint32_t head, n, cap;
};

struct ser {
	const struct gen_prog *p;
	struct gen_buf *out;
	uint32_t n;          /* threads                                    */
	size_t *pc;          /* [n] next record                            */
	uint8_t *st;         /* [n] S_*                                    */
	uint32_t *next;      /* [n] link in the wait list it is queued in  */
	struct wlist *joinq; /* [n] threads joining thread i               */
	struct wlist *semq;  /* [nsem + 1]                                 */
	uint64_t *semc;      /* [nsem + 1] tokens                          */
	struct wlist *mutq;  /* [nmutex + 1]                               */
	uint32_t *holder;    /* [nmutex + 1] thread index + 1, 0: free     */
	struct wlist *barq;  /* [nbarrier + 1]                             */
	uint32_t *barn;      /* [nbarrier + 1] arrived in this episode     */
	uint32_t *barN;      /* [nbarrier + 1] N of this episode           */
	struct fifo ready, woken;
	char *err;
	size_t errlen;
};

static const char *const unit_names[] = {"tick", "ns", "us", "ms", "s"};

static void fifo_push(struct fifo *f, uint32_t t)
{
	/* Each thread is in at most one queue once: n < cap always. */
	f->q[(f->head + f->n) % f->cap] = t;
	f->n++;
}

static uint32_t fifo_pop(struct fifo *f)
{
	uint32_t t = f->q[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	return t;
}

static void wl_push(struct ser *s, struct wlist *w, uint32_t t)
{
	s->next[t] = NIL;
	if (w->head == NIL)
		w->head = t;
	else
		s->next[w->tail] = t;
	w->tail = t;
}

static uint32_t wl_pop(struct ser *s, struct wlist *w)
{
	uint32_t t = w->head;
	if (t != NIL) {
		w->head = s->next[t];
		if (w->head == NIL)
			w->tail = NIL;
	}
	return t;
}

static void emit(struct ser *s, uint32_t t, const struct gen_rec *r)
{
	struct gen_buf *b = s->out;
	if (gen_buf_reserve(b, 96) != 0)
		return;
	gen_buf_u64(b, (uint64_t)t + 1);
	gen_buf_put(b, " ", 1);
	gen_buf_u64(b, r->work);
	gen_buf_put(b, " ", 1);
	gen_buf_puts(b, trace_ops[r->op].name);
	for (int i = 0; i < 2; i++) {
		uint32_t v = i ? r->b : r->a;
		switch (trace_ops[r->op].arg[i].type) {
		case TRACE_ARG_NONE:
			break;
		case TRACE_ARG_OUTCOME:
			gen_buf_puts(b, v ? " ok" : " busy");
			break;
		case TRACE_ARG_DURATION:
			gen_buf_put(b, " ", 1);
			gen_buf_u64(b, (uint64_t)r->a | (uint64_t)r->b << 32);
			break;
		default: /* external ids, counts, sizes */
			gen_buf_put(b, " ", 1);
			gen_buf_u64(b, v);
			break;
		}
	}
	gen_buf_put(b, "\n", 1);
}

static const struct gen_rec *cur(const struct ser *s, uint32_t t)
{
	return &s->p->th[t].rec[s->pc[t]];
}

/* Grant thread w's blocked acquisition: write it, advance, wake it. */
static void grant(struct ser *s, uint32_t w)
{
	emit(s, w, cur(s, w));
	s->pc[w]++;
	s->st[w] = S_READY;
	fifo_push(&s->woken, w);
}

static int bug(struct ser *s, uint32_t t, const char *what)
{
	const struct gen_rec *r = s->pc[t] < s->p->th[t].n ? cur(s, t) : NULL;
	if (s->err && s->errlen)
		snprintf(s->err, s->errlen,
		         "generator bug: thread %u, record %zu (%s %u): %s",
		         t + 1, s->pc[t] + 1, r ? trace_op_name(r->op) : "end",
		         r ? r->a : 0, what);
	return GEN_EBUG;
}

enum { STEP_CONT = 0, STEP_BLOCK, STEP_EXIT };

/* Perform thread t's next record.  Returns STEP_* or GEN_EBUG. */
static int step(struct ser *s, uint32_t t)
{
	const struct gen_prog *p = s->p;
	if (s->pc[t] >= p->th[t].n)
		return bug(s, t, "no exit record");
	const struct gen_rec *r = cur(s, t);
	uint32_t a = r->a;
	const struct trace_opinfo *O = &trace_ops[r->op];
	if (O->arg[0].type == TRACE_ARG_OBJ) {
		/* ids 1..count; a thread does not create or join itself; a
		 * barrier's size is at least 1 */
		int k = O->arg[0].kind;
		int64_t count = k == TRACE_K_THREAD ? (int64_t)s->n
		              : k == TRACE_K_MUTEX ? p->nmutex
		              : k == TRACE_K_SEM ? p->nsem
		              : k == TRACE_K_BARRIER ? p->nbarrier
		              : (int64_t)-1; /* not supported: the default below */
		if (count >= 0 && (a == 0 || a > count ||
		              (k == TRACE_K_THREAD && a - 1 == t) ||
		              (O->arg[1].type == TRACE_ARG_SIZE && r->b == 0))) {
			char what[48];
			snprintf(what, sizeof what, "bad %s", trace_kinds[k].name);
			return bug(s, t, what);
		}
	}
	switch (r->op) { /* ORDER OP */
	case TRACE_CREATE:
		if (s->st[a - 1] != S_NEW)
			return bug(s, t, "thread created twice");
		emit(s, t, r);
		s->pc[t]++;
		s->st[a - 1] = S_READY;
		fifo_push(&s->ready, a - 1);
		return STEP_CONT;
	case TRACE_EXIT: {
		if (s->pc[t] + 1 != p->th[t].n)
			return bug(s, t, "records after exit");
		emit(s, t, r);
		s->pc[t]++;
		s->st[t] = S_DONE;
		uint32_t w;
		while ((w = wl_pop(s, &s->joinq[t])) != NIL)
			grant(s, w);
		return STEP_EXIT;
	}
	case TRACE_JOIN:
		if (s->st[a - 1] == S_DONE) {
			emit(s, t, r);
			s->pc[t]++;
			return STEP_CONT;
		}
		wl_push(s, &s->joinq[a - 1], t);
		s->st[t] = S_BLOCKED;
		return STEP_BLOCK;
	case TRACE_LOCK:
		if (s->holder[a] == t + 1)
			return bug(s, t, "relocks a mutex it holds");
		if (s->holder[a] == 0) {
			s->holder[a] = t + 1;
			emit(s, t, r);
			s->pc[t]++;
			return STEP_CONT;
		}
		wl_push(s, &s->mutq[a], t);
		s->st[t] = S_BLOCKED;
		return STEP_BLOCK;
	case TRACE_UNLOCK: {
		if (s->holder[a] != t + 1)
			return bug(s, t, "unlocks a mutex it does not hold");
		emit(s, t, r);
		s->pc[t]++;
		uint32_t w = wl_pop(s, &s->mutq[a]);
		s->holder[a] = w == NIL ? 0 : w + 1;
		if (w != NIL)
			grant(s, w);
		return STEP_CONT;
	}
	case TRACE_WAIT:
		if (s->semc[a] > 0) {
			s->semc[a]--;
			emit(s, t, r);
			s->pc[t]++;
			return STEP_CONT;
		}
		wl_push(s, &s->semq[a], t);
		s->st[t] = S_BLOCKED;
		return STEP_BLOCK;
	case TRACE_POST: {
		emit(s, t, r);
		s->pc[t]++;
		uint32_t w = wl_pop(s, &s->semq[a]);
		if (w != NIL)
			grant(s, w);
		else
			s->semc[a]++;
		return STEP_CONT;
	}
	case TRACE_BARRIER: {
		uint32_t n = r->b;
		if (s->barn[a] == 0)
			s->barN[a] = n;
		else if (s->barN[a] != n)
			return bug(s, t, "barrier size differs within an episode");
		if (s->barn[a] + 1 < n) {
			s->barn[a]++;
			wl_push(s, &s->barq[a], t);
			s->st[t] = S_BLOCKED;
			return STEP_BLOCK;
		}
		uint32_t w;
		while ((w = wl_pop(s, &s->barq[a])) != NIL)
			grant(s, w);
		s->barn[a] = 0;
		emit(s, t, r);
		s->pc[t]++;
		return STEP_CONT;
	}
	default:
		return bug(s, t, "operation not supported by the generator");
	}
}

static void header(const struct gen_prog *p, const struct gen_args *a,
                   const char *head, struct gen_buf *out)
{
	gen_buf_puts(out, "shadowbind-trace 1\n");
	if (head)
		gen_buf_puts(out, head);
	if (a->unit >= 0 && a->unit < 5)
		gen_buf_printf(out, "unit %s\n", unit_names[a->unit]);
	for (uint32_t i = 0; a->names && i < p->nthreads; i++)
		if (p->th[i].name[0])
			gen_buf_printf(out, "thread %u %s\n", i + 1,
			               p->th[i].name);
	for (uint32_t i = 1; i <= p->nsem; i++)
		if (p->sem_init[i]) {
			gen_buf_puts(out, "sem ");
			gen_buf_u64(out, i);
			gen_buf_put(out, " ", 1);
			gen_buf_u64(out, p->sem_init[i]);
			gen_buf_put(out, "\n", 1);
		}
}

int gen_serialize(const struct gen_prog *p, const struct gen_args *a,
                  const char *head, struct gen_buf *out, char *err,
                  size_t errlen)
{
	struct ser s;
	memset(&s, 0, sizeof s);
	s.p = p;
	s.out = out;
	s.n = p->nthreads;
	s.err = err;
	s.errlen = errlen;
	uint32_t n = s.n;
	s.pc = calloc(n, sizeof *s.pc);
	s.st = calloc(n, sizeof *s.st);
	s.next = calloc(n, sizeof *s.next);
	s.joinq = malloc(n * sizeof *s.joinq);
	s.semq = malloc(((size_t)p->nsem + 1) * sizeof *s.semq);
	s.semc = calloc((size_t)p->nsem + 1, sizeof *s.semc);
	s.mutq = malloc(((size_t)p->nmutex + 1) * sizeof *s.mutq);
	s.holder = calloc((size_t)p->nmutex + 1, sizeof *s.holder);
	s.barq = malloc(((size_t)p->nbarrier + 1) * sizeof *s.barq);
	s.barn = calloc((size_t)p->nbarrier + 1, sizeof *s.barn);
	s.barN = calloc((size_t)p->nbarrier + 1, sizeof *s.barN);
	s.ready.q = malloc(((size_t)n + 1) * sizeof *s.ready.q);
	s.woken.q = malloc(((size_t)n + 1) * sizeof *s.woken.q);
	s.ready.cap = s.woken.cap = n + 1;
	int rc = GEN_OK;
	if (!s.pc || !s.st || !s.next || !s.joinq || !s.semq || !s.semc ||
	    !s.mutq || !s.holder || !s.barq || !s.barn || !s.barN ||
	    !s.ready.q || !s.woken.q) {
		rc = GEN_ENOMEM;
		goto out;
	}
	struct wlist empty = {NIL, NIL};
	for (uint32_t i = 0; i < n; i++)
		s.joinq[i] = empty;
	for (uint32_t i = 0; i <= p->nsem; i++) {
		s.semq[i] = empty;
		s.semc[i] = p->sem_init ? p->sem_init[i] : 0;
	}
	for (uint32_t i = 0; i <= p->nmutex; i++)
		s.mutq[i] = empty;
	for (uint32_t i = 0; i <= p->nbarrier; i++)
		s.barq[i] = empty;

	header(p, a, head, out);
	s.st[0] = S_READY;
	fifo_push(&s.ready, 0);
	while (s.woken.n + s.ready.n > 0) {
		uint32_t t = s.woken.n ? fifo_pop(&s.woken) : fifo_pop(&s.ready);
		uint64_t slice = 0; /* work since dispatch; trace units */
		for (;;) {
			if (s.pc[t] >= p->th[t].n) {
				rc = bug(&s, t, "no exit record");
				goto out;
			}
			uint64_t w = cur(&s, t)->work;
			int r = step(&s, t);
			if (r < 0) {
				rc = r;
				goto out;
			}
			if (r != STEP_CONT)
				break;
			slice += w;
			if (a->quantum && slice >= a->quantum &&
			    s.woken.n + s.ready.n > 0) {
				fifo_push(&s.ready, t);
				break;
			}
		}
		if (out->oom) {
			rc = GEN_ENOMEM;
			goto out;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (s.st[i] == S_DONE)
			continue;
		if (s.st[i] == S_NEW) {
			if (err && errlen)
				snprintf(err, errlen,
				         "generator bug: thread %u is never created",
				         i + 1);
			rc = GEN_EBUG;
		} else {
			rc = bug(&s, i, "blocked forever (the program deadlocks)");
		}
		goto out;
	}
	if (out->oom)
		rc = GEN_ENOMEM;
out:
	free(s.pc);
	free(s.st);
	free(s.next);
	free(s.joinq);
	free(s.semq);
	free(s.semc);
	free(s.mutq);
	free(s.holder);
	free(s.barq);
	free(s.barn);
	free(s.barN);
	free(s.ready.q);
	free(s.woken.q);
	return rc;
}
