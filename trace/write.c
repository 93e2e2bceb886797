/*
 * write.c - trace_write: a trace back into the text format, records in
 * file order (by line; a k-way merge of the threads' record runs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

struct out {
	FILE *f;
	char buf[1 << 16];
	size_t n;
	int err;
};

static void flush(struct out *o)
{
	if (o->n && !o->err && fwrite(o->buf, 1, o->n, o->f) != o->n)
		o->err = 1;
	o->n = 0;
}

static void put(struct out *o, const char *s, size_t n)
{
	while (n) {
		if (o->n == sizeof o->buf)
			flush(o);
		size_t k = sizeof o->buf - o->n;
		if (k > n)
			k = n;
		memcpy(o->buf + o->n, s, k);
		o->n += k;
		s += k;
		n -= k;
	}
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void putu(struct out *o, uint64_t v)
{
	char t[TRACE_DEC_MAX];
	put(o, t, (size_t)(trace_dec(t, v) - t));
}

static void sp_u(struct out *o, uint64_t v)
{
	put(o, " ", 1);
	putu(o, v);
}

static uint32_t oid(const struct trace *tr, int kind, uint32_t i)
{
	if (kind == TRACE_K_THREAD)
		return i < tr->nthreads ? tr->threads[i].id : i;
	return tr->obj_id[kind] && i < tr->nobj[kind] ? tr->obj_id[kind][i] : i;
}

static void rec_line(struct out *o, const struct trace *tr, uint32_t t, size_t k)
{
	const struct trace_rec *r = &tr->rec[k];
	putu(o, tr->threads[t].id);
	sp_u(o, r->work);
	put(o, " ", 1);
	puts_(o, trace_op_name(r->op));
	const struct trace_opinfo *O = &trace_ops[r->op];
	for (int i = 0; i < 2; i++) {
		uint32_t v = i ? r->b : r->a;
		switch (O->arg[i].type) {
		case TRACE_ARG_NONE:
			break;
		case TRACE_ARG_OBJ:
			sp_u(o, oid(tr, O->arg[i].kind, v));
			break;
		case TRACE_ARG_OUTCOME:
			puts_(o, v ? " ok" : " busy");
			break;
		case TRACE_ARG_DURATION:
			sp_u(o, trace_sleep_time(r));
			break;
		default: /* counts, sizes */
			sp_u(o, v);
			break;
		}
	}
	const char *loc = trace_rec_loc(tr, k);
	if (loc) {
		put(o, " @", 2);
		puts_(o, loc);
	}
	put(o, "\n", 1);
}

/* min-heap of threads by the line of their next record (ties: thread) */
struct mh {
	uint64_t *a;
	size_t n;
};

static void mh_down(struct mh *h, size_t i)
{
	uint64_t k = h->a[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1] < h->a[c])
			c++;
		if (k <= h->a[c])
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	h->a[i] = k;
}

int trace_write(const struct trace *tr, FILE *f)
{
	struct out *o = malloc(sizeof *o);
	struct mh h = { NULL, 0 };
	uint32_t *next = NULL;
	if (!o)
		return -1;
	o->f = f;
	o->n = 0;
	o->err = 0;

	puts_(o, "shadowbind-trace 1\n");
	if (tr->unit_declared) {
		puts_(o, "unit ");
		puts_(o, trace_unit_name(tr->unit));
		put(o, "\n", 1);
	}
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		const char *name = trace_thread_name(tr, t);
		if (!name)
			continue;
		puts_(o, "thread");
		sp_u(o, tr->threads[t].id);
		put(o, " ", 1);
		puts_(o, name);
		put(o, "\n", 1);
	}
	for (uint32_t s = 0; s < tr->nobj[TRACE_K_SEM]; s++) {
		int decl = tr->sem_declared ? tr->sem_declared[s] != 0
		                            : tr->sem_init && tr->sem_init[s];
		if (!decl)
			continue;
		puts_(o, "sem");
		sp_u(o, oid(tr, TRACE_K_SEM, s));
		sp_u(o, tr->sem_init ? tr->sem_init[s] : 0);
		put(o, "\n", 1);
	}
	put(o, "\n", 1);

	h.a = malloc(((size_t)tr->nthreads + 1) * sizeof *h.a);
	next = malloc(((size_t)tr->nthreads + 1) * sizeof *next);
	if (!h.a || !next) {
		o->err = 1;
		errno = ENOMEM;
		goto out;
	}
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		next[t] = 0;
		if (tr->threads[t].nrec)
			h.a[h.n++] = (uint64_t)tr->rec[tr->threads[t].first].line << 32 | t;
	}
	for (size_t i = h.n; i-- > 0;)
		mh_down(&h, i);
	while (h.n && !o->err) {
		uint32_t t = (uint32_t)h.a[0];
		const struct trace_thread *T = &tr->threads[t];
		rec_line(o, tr, t, (size_t)T->first + next[t]);
		if (++next[t] < T->nrec) {
			h.a[0] = (uint64_t)tr->rec[T->first + next[t]].line << 32 | t;
		} else {
			h.a[0] = h.a[--h.n];
		}
		if (h.n)
			mh_down(&h, 0);
	}
out:
	flush(o);
	int rc = o->err ? -1 : 0;
	if (!rc && fflush(f) != 0)
		rc = -1;
	free(h.a);
	free(next);
	free(o);
	return rc;
}
