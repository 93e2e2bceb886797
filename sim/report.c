/*
 * report.c - what a deadlocked run reports: the threads left blocked,
 * the record each is blocked in, the object and who holds it (Direct) or
 * the release it still waits for (strict, client-server), and
 * sim_deadlock_print.  Names, operand kinds and verbs come from the
 * operation table (trace_ops, trace/ops.c).
 */
#include <stdio.h>

#include "sim/simint.h"

/* For each Direct-model blocked state: the operand of the current record
 * whose object the thread waits on (0: a, 1: b; -1: a mutex a signaller
 * re-acquires, no operand of its record), and the Direct model's own
 * verb where the operation table's does not say it (NULL: the table's). */
static const struct {
	int8_t arg;
	const char *why;
} bk_info[] = {
	[BK_NONE] = {0, NULL},
	[BK_LOCK] = {0, NULL},
	[BK_WAIT] = {0, NULL},
	[BK_JOIN] = {0, NULL},
	[BK_BARRIER] = {0, NULL},
	[BK_CWAIT] = {0, NULL},
	[BK_CWAIT_REACQ] = {1, NULL},
	[BK_CWAIT_WAKE] = {1, NULL},
	[BK_LOCK_WAKE] = {0, NULL},
	[BK_SIGWAIT] = {0, "see enough waiters on"}, /* any N, not its own */
	[BK_SIG_REACQ] = {-1, "re-acquire after signal"},
	[BK_RDLOCK] = {0, NULL},
	[BK_WRLOCK] = {0, NULL},
	[BK_PAIR] = {0, NULL},
	[BK_IDLE] = {0, NULL},
};

void sim_collect_blocked(struct sim_work *w, struct sim_result *res)
{
	size_t nb = 0;
	for (uint32_t u = 0; u < w->p->n; u++) {
		struct sth *t = &w->th[u];
		if (t->state != ST_BLOCK)
			continue;
		struct sim_blocked *b = &w->blocked[nb++];
		const struct trace_rec *r = &w->tr->rec[t->cur];
		int arg = bk_info[t->bk].arg;
		b->thread = u;
		b->rec = t->cur;
		b->obj = t->wobj;
		b->holder = -1;
		b->after = UINT32_MAX;
		b->lists = 0;
		b->kind = arg >= 0 ? trace_ops[r->op].arg[arg].kind : TRACE_K_MUTEX;
		b->why = bk_info[t->bk].why ? bk_info[t->bk].why : trace_ops[r->op].verb[arg];
		if (b->kind == TRACE_K_MUTEX)
			b->holder = w->mx[t->wobj].owner;
		else if (b->kind == TRACE_K_RWLOCK)
			b->holder = w->rw[t->wobj].writer;
		else if (b->kind == TRACE_K_THREAD)
			b->holder = (int32_t)t->wobj;
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
void sim_collect_blocked_pm(struct sim_work *w, struct sim_result *res)
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
		/* what it waits to do, from the operation table: the mutex of a
		 * cwait whose signal happened (operand b), else operand a */
		int arg = r->op == TRACE_CWAIT && w->ev[px->w_cond[px->w_off[d]]].left == 0;
		if (arg)
			b->obj = r->b;
		b->kind = trace_ops[r->op].arg[arg].kind;
		b->why = trace_ops[r->op].verb[arg];
	}
	res->nblocked = nb;
	res->blocked = w->blocked;
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
