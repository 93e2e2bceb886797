/*
 * params.c - Paper VII's program parameters from a trace (Sections 2, 7.1):
 * n, T(P,n,0), the parallel profile V and the granularity z.
 */
#include "bound/boundint.h"

#include <stdlib.h>
#include <string.h>

/*
 * Synchronization signals.  Paper VII's programs synchronize by
 * Activate(Event) / Wait(Event) pairs; a signal is one such pair, and it
 * costs the latency t exactly when the two processes are on different
 * processors.  In our format the same thing is a release that lets another
 * thread proceed: the simulator charges t for it when the two threads are on
 * different processors (docs/simulation.md, Latency).  The recording tells
 * which release satisfied which acquisition (trace.pair), so a signal is:
 *   - a `create` (the child's start waits for it), and
 *   - an acquisition whose paired release record belongs to another thread.
 * A release the same thread acquires again (re-locking its own mutex, a
 * barrier's last arrival, which pairs with itself), an acquisition that
 * needed no release (a free mutex, an initial semaphore token) and a release
 * nobody acquired cost no latency under any binding and are not counted;
 * sleeps are not synchronizations.  A `cwait` counts once (its wake-up); its
 * re-acquisition of the mutex usually comes from the same signalling
 * thread at about the same time and is not counted separately.
 */
uint64_t bound_signals(const struct trace *tr, uint64_t by_op[TRACE_NOPS])
{
	uint64_t total = 0;
	if (by_op)
		memset(by_op, 0, TRACE_NOPS * sizeof *by_op);
	if (!tr)
		return 0;
	for (uint32_t u = 0; u < tr->nthreads; u++) {
		const struct trace_thread *th = &tr->threads[u];
		for (uint32_t r = th->first; r < th->first + th->nrec; r++) {
			const struct trace_rec *rec = &tr->rec[r];
			int sig = 0;
			if (rec->op == TRACE_CREATE) {
				sig = 1;
			} else if (tr->pair && tr->pair[r] != TRACE_NONE &&
			           tr->pair[r] < tr->nrec) {
				uint32_t rel = tr->pair[r];
				/* the releasing record's thread: the thread whose
				 * record range holds it (records are thread-major) */
				sig = !(rel >= th->first && rel < th->first + th->nrec);
			}
			if (sig) {
				total++;
				if (by_op)
					by_op[rec->op]++;
			}
		}
	}
	return total;
}

struct edge {
	sim_time t;
	int d; /* +1 start, -1 end */
};

static int edge_cmp(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;
	int c = sim_time_cmp(a->t, b->t);
	if (c)
		return c;
	return (a->d > b->d) - (a->d < b->d); /* ends first */
}

static void q_of_time(mpq_t q, sim_time t)
{
	mpz_set_ui(mpq_numref(q), 0);
	mpz_set_ui(mpq_denref(q), 1);
	mpz_import(mpq_numref(q), 1, -1, sizeof t.num, 0, 0, &t.num);
	mpz_import(mpq_denref(q), 1, -1, sizeof t.den, 0, 0, &t.den);
	mpq_canonicalize(q);
}

int bound_prog_from_trace(const struct trace *tr, struct bound_prog *bp)
{
	memset(bp, 0, sizeof *bp);
	if (!tr || tr->nthreads == 0)
		return BOUND_EINVAL;
	uint64_t work = trace_total_work(tr);
	if (work == 0)
		return BOUND_EINVAL;
	int rc = bound_prog_init(bp, tr->nthreads);
	if (rc)
		return rc;
	const uint32_t n = tr->nthreads;

	struct sim_program *prog = sim_program_new(tr);
	struct sim_work *w = prog ? sim_work_new(prog) : NULL;
	struct edge *ev = NULL;
	mpq_t *dur = NULL;
	mpq_t a, b;
	mpq_inits(a, b, NULL);
	rc = BOUND_ENOMEM;
	if (!w)
		goto out;
	struct sim_params par;
	sim_params_init(&par);
	par.latency = 0;
	/* the model the trace needs (issue 20: a trace that deadlocks under
	 * Direct with one processor per thread, as pigz's does because the
	 * model may wake another waiter than the recording did) */
	par.model = SIM_AUTO;
	struct sim_result res;
	/* V from the profile the run sums as it goes (no memory per
	 * interval: 10^8 records made about 10^7 intervals, 88 bytes each
	 * with the sweep's edges); from the intervals if it could not */
	unsigned fl = SIM_SCHEDULE | SIM_NO_SYNCS;
	int st = sim_run(prog, w, &par, NULL, fl | SIM_PROFILE, &res);
	if (st == SIM_OK && !res.profile)
		st = sim_run(prog, w, &par, NULL, fl, &res);
	bp->model = (int)res.model;
	if (st == SIM_DEADLOCK) {
		rc = BOUND_EDEADLOCK;
		goto out;
	}
	if (st == SIM_ENOMEM)
		goto out;
	if (st != SIM_OK) {
		rc = BOUND_ESIM;
		goto out;
	}
	/* V: sweep over the run intervals (one processor per thread, so an
	 * interval is a thread running at full speed), or the profile */
	size_t ne = res.profile ? 0 : 2 * res.nintervals;
	ev = malloc((ne ? ne : 1) * sizeof *ev);
	dur = malloc(((size_t)n + 1) * sizeof *dur);
	if (!ev || !dur)
		goto out;
	for (uint32_t i = 0; i <= n; i++)
		mpq_init(dur[i]);
	for (size_t i = 0; i < res.nintervals; i++) {
		ev[2 * i].t = res.intervals[i].from;
		ev[2 * i].d = 1;
		ev[2 * i + 1].t = res.intervals[i].to;
		ev[2 * i + 1].d = -1;
	}
	qsort(ev, ne, sizeof *ev, edge_cmp);
	/* integer fast path while every time is an integer */
	bd_u128 *idur = calloc((size_t)n + 1, sizeof *idur);
	if (!idur)
		goto out_dur;
	int64_t running = 0;
	sim_time prev = sim_time_int(0);
	for (size_t i = 0; i < ne; i++) {
		sim_time t = ev[i].t;
		if (running < 0 || running > (int64_t)n) {
			free(idur);
			rc = BOUND_ESIM;
			goto out_dur;
		}
		if (sim_time_cmp(t, prev) > 0) {
			if (t.den == 1 && prev.den == 1) {
				idur[running] += t.num - prev.num;
			} else {
				q_of_time(a, t);
				q_of_time(b, prev);
				mpq_sub(a, a, b);
				mpq_add(dur[running], dur[running], a);
			}
			prev = t;
		}
		running += ev[i].d;
	}
	for (uint32_t i = 0; res.profile && i <= n; i++) {
		if (res.profile[i].den == 1) {
			idur[i] += res.profile[i].num;
		} else {
			q_of_time(a, res.profile[i]);
			mpq_add(dur[i], dur[i], a);
		}
	}
	/* idle time after the last interval (trailing sleeps) */
	if (!res.profile && sim_time_cmp(res.makespan, prev) > 0) {
		q_of_time(a, res.makespan);
		q_of_time(b, prev);
		mpq_sub(a, a, b);
		mpq_add(dur[0], dur[0], a);
	}
	q_of_time(bp->T, res.makespan);
	if (mpq_sgn(bp->T) == 0) {
		free(idur);
		rc = BOUND_EINVAL;
		goto out_dur;
	}
	for (uint32_t i = 0; i <= n; i++) {
		bd_mpz_set_u128(mpq_numref(a), idur[i]);
		mpz_set_ui(mpq_denref(a), 1);
		mpq_add(dur[i], dur[i], a);
		mpq_div(bp->v[i], dur[i], bp->T);
	}
	free(idur);
	bp->work = work;
	bp->signals = bound_signals(tr, NULL);
	mpz_set_ui(mpq_numref(bp->z), 0);
	mpz_import(mpq_numref(bp->z), 1, -1, sizeof bp->signals, 0, 0, &bp->signals);
	mpz_import(mpq_denref(bp->z), 1, -1, sizeof work, 0, 0, &work);
	mpq_canonicalize(bp->z);
	rc = bound_prog_check(bp) == BOUND_OK ? BOUND_OK : BOUND_ESIM;
out_dur:
	for (uint32_t i = 0; i <= n; i++)
		mpq_clear(dur[i]);
out:
	free(dur);
	free(ev);
	mpq_clears(a, b, NULL);
	sim_work_free(w);
	sim_program_free(prog);
	if (rc != BOUND_OK)
		bound_prog_release(bp);
	return rc;
}
