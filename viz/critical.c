/*
 * critical.c - the extended critical path (Paper VI) of a simulated run.
 *
 * Paper VI, Figure 3, walks backward from the end of the execution: along
 * the last thread while it ran, and where it had been blocked, to the
 * thread whose event released it, and so on to the start.  With fewer
 * processors than threads a thread can also wait for its processor; the
 * walk then goes on in the thread that held the processor until then
 * (fifo, rr), since that is what delayed it.  Under ps the sharing slows a
 * thread's work instead: the sharing is inside the work's wall time.
 * Every item covers a time span; together they cover [0, makespan].
 */
#include <stdlib.h>
#include <string.h>

#include "viz/vizint.h"

struct buf {
	struct viz_item *a;
	size_t n, cap;
	int nomem;
};

static void push(struct buf *b, const struct viz_item *it)
{
	if (b->n == b->cap) {
		size_t c = b->cap ? 2 * b->cap : 64;
		struct viz_item *a = realloc(b->a, c * sizeof *a);
		if (!a) {
			b->nomem = 1;
			return;
		}
		b->a = a;
		b->cap = c;
	}
	b->a[b->n++] = *it;
}

static void item(struct buf *b, uint8_t kind, uint32_t u, uint32_t rec, uint64_t from, uint64_t to)
{
	struct viz_item it;
	memset(&it, 0, sizeof it);
	it.kind = kind;
	it.thread = u;
	it.rec = rec;
	it.from = from;
	it.to = to;
	it.other = -1;
	it.other_rec = TRACE_NONE;
	push(b, &it);
}

/* Another thread that ran on u's processor `proc` up to a time in
 * [lo, at] (fifo, rr): the latest such; -1 if none. */
static int32_t occupant(const struct viz_sched *s, int32_t proc, uint32_t u, uint64_t lo,
                        uint64_t at, uint64_t *until)
{
	if (s->par.policy == SIM_PS || proc == TRACE_SHADOW)
		return -1;
	/* ivp sorted by (proc, to): the last with proc and to <= at */
	size_t a = 0, b = s->niv;
	while (a < b) {
		size_t m = (a + b) / 2;
		const struct viz_iv *x = &s->ivp[m];
		if (x->proc < proc || (x->proc == proc && x->to <= at))
			a = m + 1;
		else
			b = m;
	}
	for (size_t i = a; i-- > 0;) {
		const struct viz_iv *x = &s->ivp[i];
		if (x->proc != proc || x->to < lo)
			break;
		if (x->thread != u && x->to > x->from) {
			*until = x->to;
			return (int32_t)x->thread;
		}
	}
	return -1;
}

/* The record of v in progress at time t (first with op >= t). */
static uint32_t rec_at(const struct viz_sched *s, uint32_t v, uint64_t t)
{
	const struct trace_thread *th = &s->tr->threads[v];
	uint32_t lo = 0, hi = th->nrec - 1;
	while (lo < hi) {
		uint32_t m = (lo + hi) / 2;
		if (s->rt[th->first + m].op >= t)
			hi = m;
		else
			lo = m + 1;
	}
	return th->first + lo;
}

/* The processor u ran on when it resumed at t. */
static int32_t proc_resumed(const struct viz_sched *s, uint32_t u, uint64_t t)
{
	size_t i = viz_iv_from(s, u, t);
	return i < s->iv_first[u + 1] ? s->iv[i].proc : s->proc[u];
}

int viz_critical(const struct viz_sched *s, struct viz_path **out)
{
	*out = NULL;
	const struct trace *tr = s->tr;
	struct buf b = {0};
	struct viz_path *p = calloc(1, sizeof *p);
	if (!p)
		return VIZ_ENOMEM;
	p->makespan = s->makespan;
	if (tr->nthreads == 0 || tr->nrec == 0) {
		*out = p;
		return VIZ_OK;
	}
	/* the last exit (ties: the smallest id, which acted first) */
	uint32_t u = 0;
	for (uint32_t v = 1; v < tr->nthreads; v++)
		if (s->tend[v] > s->tend[u])
			u = v;
	uint32_t r = tr->threads[u].first + tr->threads[u].nrec - 1;
	uint64_t t = s->tend[u];
	size_t guard = 4 * (tr->nrec + s->niv) + 4 * (size_t)tr->nthreads + 16;
	while (guard-- > 0 && !b.nomem) {
		const struct viz_rec_times *rt = &s->rt[r];
		uint64_t beg = rt->begin < t ? rt->begin : t;
		if (s->par.policy != SIM_PS && t > beg) {
			/* preempted inside the record (rr, or a switch cost):
			 * the part since it got the processor back, then the
			 * wait for it */
			size_t q = viz_iv_from(s, u, t);
			if (q > s->iv_first[u] && s->iv[q - 1].from > beg && s->iv[q - 1].to >= t) {
				const struct viz_iv *x = &s->iv[q - 1];
				item(&b, VIZ_WORK, u, r, x->from, t);
				uint64_t gap = q - 1 > s->iv_first[u] && s->iv[q - 2].to > beg ? s->iv[q - 2].to : beg;
				uint64_t until = 0;
				int32_t v = occupant(s, x->proc, u, gap, x->from, &until);
				if (v >= 0 && until > gap) {
					if (x->from > until)
						item(&b, VIZ_READY, u, r, until, x->from);
					struct viz_item it;
					memset(&it, 0, sizeof it);
					it.kind = VIZ_RELEASE;
					it.obj_kind = TRACE_NKINDS;
					it.obj = x->proc >= 0 ? (uint32_t)x->proc : UINT32_MAX;
					it.thread = u;
					it.rec = r;
					it.other = v;
					it.other_rec = rec_at(s, (uint32_t)v, until);
					it.from = it.to = until;
					it.waited = x->from - gap;
					push(&b, &it);
					u = (uint32_t)v;
					r = it.other_rec;
					t = until;
					continue;
				}
				if (x->from > gap)
					item(&b, VIZ_READY, u, r, gap, x->from);
				t = gap;
				continue;
			}
		}
		if (t > beg)
			item(&b, VIZ_WORK, u, r, beg, t);
		t = beg;
		const struct trace_thread *th = &tr->threads[u];
		uint64_t ready, resume = t;
		int first = r == th->first;
		const struct viz_rec_times *pt = first ? NULL : &s->rt[r - 1];
		if (first)
			ready = s->tstart[u];
		else if (pt->resume == pt->op)
			ready = pt->op;
		else
			ready = pt->ready < resume ? pt->ready : resume;
		if (ready > resume)
			ready = resume;
		/* waiting for the processor: [ready, resume] */
		if (resume > ready) {
			uint64_t until = 0;
			int32_t proc = proc_resumed(s, u, resume);
			int32_t v = occupant(s, proc, u, ready, resume, &until);
			if (v >= 0 && until > ready) {
				if (resume > until)
					item(&b, VIZ_READY, u, r, until, resume);
				struct viz_item it;
				memset(&it, 0, sizeof it);
				it.kind = VIZ_RELEASE;
				it.obj_kind = TRACE_NKINDS;
				it.obj = proc >= 0 ? (uint32_t)proc : UINT32_MAX;
				it.thread = u;
				it.rec = r;
				it.other = v;
				it.other_rec = rec_at(s, (uint32_t)v, until);
				it.from = it.to = until;
				it.waited = resume - ready;
				push(&b, &it);
				u = (uint32_t)v;
				r = it.other_rec;
				t = until;
				continue;
			}
			item(&b, VIZ_READY, u, r, ready, resume);
			b.a[b.n - 1].other = v;
			t = ready;
		}
		if (first) {
			if (s->creator[u] == TRACE_NONE)
				break; /* the initial thread at its start */
			uint32_t c = s->creator[u];
			struct viz_item it;
			memset(&it, 0, sizeof it);
			it.kind = VIZ_RELEASE;
			it.obj_kind = TRACE_K_THREAD;
			it.obj = u;
			it.thread = u;
			it.rec = r;
			it.other = (int32_t)s->rec_thread[c];
			it.other_rec = c;
			it.from = it.to = t;
			push(&b, &it);
			u = s->rec_thread[c];
			r = c;
			if (s->rt[c].op < t)
				t = s->rt[c].op;
			continue;
		}
		/* blocked part [pt->op, ready] of record r - 1 */
		uint32_t pr = r - 1;
		const struct trace_rec *x = &tr->rec[pr];
		if (t > pt->op && x->op == TRACE_SLEEP) {
			item(&b, VIZ_SLEEP, u, pr, pt->op, t);
			t = pt->op;
			r = pr;
			continue;
		}
		if (pt->releaser >= 0 && pt->grant != UINT64_MAX && pt->grant <= t) {
			if (t > pt->grant) {
				item(&b, VIZ_LATENCY, u, pr, pt->grant, t);
				viz_acq_object(s, pr, pt->rel_rec, &b.a[b.n - 1].obj_kind, &b.a[b.n - 1].obj);
			}
			struct viz_item it;
			memset(&it, 0, sizeof it);
			it.kind = VIZ_RELEASE;
			viz_acq_object(s, pr, pt->rel_rec, &it.obj_kind, &it.obj);
			it.thread = u;
			it.rec = pr;
			it.other = pt->releaser;
			it.other_rec = pt->rel_rec;
			it.from = it.to = pt->grant;
			it.waited = pt->grant > pt->op ? pt->grant - pt->op : 0;
			push(&b, &it);
			u = (uint32_t)pt->releaser;
			r = pt->rel_rec != TRACE_NONE ? pt->rel_rec : rec_at(s, u, pt->grant);
			t = pt->grant;
			continue;
		}
		if (t > pt->op) {
			/* a wait no other thread explains: a latency after a
			 * free acquisition */
			item(&b, VIZ_LATENCY, u, pr, pt->op, t);
			uint8_t k;
			uint32_t o;
			viz_acq_object(s, pr, TRACE_NONE, &k, &o);
			b.a[b.n - 1].obj_kind = k;
			b.a[b.n - 1].obj = o;
			t = pt->op;
		}
		r = pr;
	}
	if (b.nomem) {
		free(b.a);
		free(p);
		return VIZ_ENOMEM;
	}
	/* a start later than 0 (cannot happen: thread 1 starts at 0) */
	for (size_t i = 0; i < b.n / 2; i++) {
		struct viz_item tmp = b.a[i];
		b.a[i] = b.a[b.n - 1 - i];
		b.a[b.n - 1 - i] = tmp;
	}
	p->items = b.a;
	p->n = b.n;
	*out = p;
	return VIZ_OK;
}

void viz_path_free(struct viz_path *p)
{
	if (!p)
		return;
	free(p->items);
	free(p);
}

static int cmp_share(const void *a, const void *b)
{
	const struct viz_share *x = a, *y = b;
	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int viz_path_shares(const struct viz_sched *s, const struct viz_path *p,
                    struct viz_share **threads, size_t *nthreads,
                    struct viz_share **objects, size_t *nobjects)
{
	*threads = NULL;
	*objects = NULL;
	*nthreads = *nobjects = 0;
	const struct trace *tr = s->tr;
	struct viz_share *th = calloc(tr->nthreads ? tr->nthreads : 1, sizeof *th);
	struct viz_share *ob = malloc((p->n ? p->n : 1) * sizeof *ob);
	if (!th || !ob) {
		free(th);
		free(ob);
		return VIZ_ENOMEM;
	}
	size_t no = 0;
	uint64_t last_jump = 0; /* time of the previous release on the path */
	for (size_t i = 0; i < p->n; i++) {
		const struct viz_item *it = &p->items[i];
		uint64_t len = it->to - it->from;
		if (it->kind == VIZ_WORK || it->kind == VIZ_READY || it->kind == VIZ_SLEEP) {
			th[it->thread].time += len;
			th[it->thread].count++;
		}
		uint64_t add = 0;
		if (it->kind == VIZ_LATENCY) {
			add = len;
		} else if (it->kind == VIZ_RELEASE) {
			/* the part of the path spent in the releaser's chain
			 * while this thread waited: disjoint from the others */
			uint64_t since = it->from >= it->waited ? it->from - it->waited : 0;
			if (since < last_jump)
				since = last_jump;
			add = it->from - since;
			last_jump = it->from;
			if (it->waited == 0)
				continue; /* a create, or no wait */
		} else {
			continue;
		}
		size_t k;
		for (k = 0; k < no; k++)
			if (ob[k].kind == it->obj_kind && ob[k].id == it->obj)
				break;
		if (k == no) {
			ob[no].kind = it->obj_kind;
			ob[no].id = it->obj;
			ob[no].time = 0;
			ob[no].count = 0;
			no++;
		}
		ob[k].time += add;
		if (it->kind == VIZ_RELEASE)
			ob[k].count++;
	}
	size_t nt = 0;
	for (uint32_t u = 0; u < tr->nthreads; u++) {
		if (th[u].count) {
			th[nt] = th[u];
			th[nt].id = u;
			th[nt].kind = 0;
			nt++;
		}
	}
	qsort(th, nt, sizeof *th, cmp_share);
	qsort(ob, no, sizeof *ob, cmp_share);
	*threads = th;
	*nthreads = nt;
	*objects = ob;
	*nobjects = no;
	return VIZ_OK;
}
