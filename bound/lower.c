/*
 * lower.c - a proven lower bound on the simulated completion time of any
 * binding of a trace's threads to k processors:
 *
 *   lower = max(largest thread work, P||Cmax bound, relaxed critical path)
 *
 * Work bounds.  A thread progresses at rate at most 1 under every policy,
 * and a processor executes the work of the threads bound to it at total
 * rate at most 1 (docs/simulation.md), so the completion time is at least
 * the largest thread's work and at least the busiest processor's work,
 * which is at least the optimum of partitioning the works over k
 * processors (P||Cmax).  That optimum is bounded from below exactly by
 * max(w_max, ceil(W / k), w_(k) + w_(k+1)) (the k+1 largest works cannot
 * all have a processor of their own) and, when that is not already met by
 * the LPT heuristic, by an integer program solved with GLPK under a time
 * limit (see bound_partition).
 *
 * Critical path.  The critical path T(P,n,0) (one processor per thread,
 * t = 0) is a lower bound only for programs whose synchronization order
 * cannot change with timing: with a mutex, condition variable, read-write
 * lock or a semaphore with several waiting threads, sharing a processor can
 * make the Direct model grant in a better order and finish earlier than
 * T(P,n,0) (docs/simulation.md, last section).  We therefore use the
 * critical path of a relaxed program P': every record whose order can change
 * is dropped, its work added to its thread's next record (no
 * synchronization at all, as a `sleep 0` in its place), keeping
 *   create, exit, join, sleep;
 *   wait/post of a semaphore all of whose waits are by one thread;
 *   barrier B if exactly N distinct threads ever use it (then episode e
 *   consists of every user's e-th arrival, whatever the timing: a thread
 *   blocked in an episode cannot arrive again before it releases);
 * and dropping every mutex, condition variable and read-write lock record,
 * every trywait, and the wait/post records of semaphores waited on by two
 * or more threads, and the records of the other barriers.
 *
 * Claim: in any simulated execution E of P (any binding to k processors,
 * or unbound; any policy, latency and costs), every record completes no
 * earlier than in the one-processor-per-thread, t = 0 execution S of P'.
 * Hence makespan(E) >= makespan(S) = path.
 *
 * Proof.  Write op(r) for the instant record r's operation is performed and
 * done(r) for the instant its thread continues after it.  In S every thread
 * runs whenever it is not blocked, at rate 1, and latency is 0, so
 *   op_S(r)   = done_S(prev(r)) + work(r)  (the thread's start for its
 *               first record: done_S of the create that made it),
 *   done_S(r) = op_S(r) + D for sleep D (and for the dropped records, D=0),
 *               max(op_S(r), done_S(exit of T)) for join T,
 *               max over the episode's members of their op_S for a barrier,
 *               max(op_S(r), tau_i) for the i-th wait of a single-waiter
 *               semaphore, tau_i = the i-th smallest release time of its
 *               tokens (initial tokens at 0, then the posts' op_S: a FIFO
 *               queue with one waiter takes the tokens in time order),
 *               op_S(r) otherwise.
 * In E the same relations hold as inequalities (>=): rates are at most 1,
 * latency and costs only delay, and the kept synchronizations impose the same
 * conditions (a join still needs the exit, the e-th episode of a kept
 * barrier has the same members, the single waiter's i-th wait still needs
 * i tokens released).  Suppose some record completes earlier in E than in S;
 * among those take r with the smallest done_E(r) and, among equal times, the
 * one E's simulator processed first.  Every record E processed before r and
 * completed no later than done_E(r) is then not such a record, so its
 * done_E >= done_S.  prev(r), the create that started r's thread, the exit
 * r joins, the arrivals of r's barrier episode and the releases of the
 * tokens r's wait took are all processed before r in E and complete no
 * later, so each is at least its S time; in the semaphore case at least i
 * tokens have S release times <= the E time of the i-th token, so tau_i in
 * S is <= tau_i in E.  Every relation above is monotone in those times, so
 * done_E(r) >= done_S(r): a contradiction.  When nothing is dropped P' = P
 * and path = T(P,n,0).                                                     []
 */
#include "bound/boundint.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

/* ---------------------------------------------------------------------
 * The relaxed program
 */

/* Whether record `rec` is dropped from the relaxed program (the list
 * above), given each semaphore's waiter (UINT32_MAX: several) and each
 * barrier's N and distinct users. */
static int relax_drops(const struct trace_rec *rec, uint32_t nsem, uint32_t nbar,
                       const uint32_t *sem_waiter, const uint32_t *bar_n,
                       const uint32_t *bar_users)
{
	const struct trace_operand *a = &trace_ops[rec->op].arg[0];
	if (a->type != TRACE_ARG_OBJ)
		return 0; /* exit, sleep */
	if (trace_ops[rec->op].arg[1].type == TRACE_ARG_OUTCOME)
		return 1; /* trylock, trywait */
	switch (a->kind) { /* by the kind of object it names; ORDER OP */
	case TRACE_K_MUTEX: case TRACE_K_COND: case TRACE_K_RWLOCK:
		return 1;
	case TRACE_K_SEM:
		return rec->a >= nsem || sem_waiter[rec->a] == UINT32_MAX;
	case TRACE_K_BARRIER:
		return rec->a >= nbar || bar_users[rec->a] != bar_n[rec->a];
	default:
		return 0; /* threads: create, join */
	}
}

struct trace *bound_relaxed_trace(const struct trace *tr, uint64_t *dropped)
{
	if (dropped)
		*dropped = 0;
	struct trace *rt = calloc(1, sizeof *rt);
	if (!rt)
		return NULL;
	*rt = *tr;
	rt->rec = NULL;
	rt->pair = NULL;
	rt->loc = NULL; /* the records are renumbered */
	rt->threads = malloc(((size_t)tr->nthreads + 1) * sizeof *rt->threads);
	/* newidx: each record's index in rt, or TRACE_NONE when dropped */
	uint32_t *newidx = malloc((tr->nrec ? tr->nrec : 1) * sizeof *newidx);
	uint32_t nsem = tr->nobj[TRACE_K_SEM], nbar = tr->nobj[TRACE_K_BARRIER];
	/* semaphore: the one waiting thread + 1, or UINT32_MAX if several */
	uint32_t *sem_waiter = calloc(nsem ? nsem : 1, sizeof *sem_waiter);
	/* barrier: N, distinct users, last user seen (users' records are
	 * thread-major, so one thread's uses are consecutive) */
	uint32_t *bar_n = calloc(nbar ? nbar : 1, sizeof *bar_n);
	uint32_t *bar_users = calloc(nbar ? nbar : 1, sizeof *bar_users);
	uint32_t *bar_last = calloc(nbar ? nbar : 1, sizeof *bar_last);
	if (!rt->threads || !newidx || !sem_waiter || !bar_n || !bar_users || !bar_last)
		goto fail;
	for (uint32_t u = 0; u < tr->nthreads; u++) {
		const struct trace_thread *th = &tr->threads[u];
		for (uint32_t r = th->first; r < th->first + th->nrec; r++) {
			const struct trace_rec *rec = &tr->rec[r];
			if (rec->op == TRACE_WAIT && rec->a < nsem) {
				uint32_t *s = &sem_waiter[rec->a];
				if (*s == 0)
					*s = u + 1;
				else if (*s != u + 1)
					*s = UINT32_MAX;
			} else if (rec->op == TRACE_BARRIER && rec->a < nbar) {
				bar_n[rec->a] = rec->b;
				if (bar_last[rec->a] != u + 1) {
					bar_users[rec->a]++;
					bar_last[rec->a] = u + 1;
				}
			}
		}
	}
	size_t kept = 0;
	for (size_t r = 0; r < tr->nrec; r++) {
		int drop = relax_drops(&tr->rec[r], nsem, nbar, sem_waiter, bar_n, bar_users);
		newidx[r] = drop ? TRACE_NONE : (uint32_t)kept;
		kept += !drop;
	}
	rt->nrec = kept;
	rt->rec = malloc((kept ? kept : 1) * sizeof *rt->rec);
	rt->pair = malloc((kept ? kept : 1) * sizeof *rt->pair);
	if (!rt->rec || !rt->pair)
		goto fail;
	/* A dropped record takes no time in the relaxed run but its work
	 * (done_S = op_S in the proof above): its work goes to its thread's
	 * next kept record, which exists (a thread ends with its exit, never
	 * dropped).  Without the records the run has a few events per
	 * thread instead of one per record (a mutex program of 538k
	 * records: 30 ms -> ~1 ms). */
	for (uint32_t u = 0; u < tr->nthreads; u++) {
		const struct trace_thread *th = &tr->threads[u];
		uint64_t carry = 0; /* units: trace unit */
		rt->threads[u] = *th;
		rt->threads[u].nrec = 0;
		for (uint32_t r = th->first; r < th->first + th->nrec; r++) {
			if (newidx[r] == TRACE_NONE) {
				carry += tr->rec[r].work;
				if (dropped)
					(*dropped)++;
				continue;
			}
			struct trace_rec *q = &rt->rec[newidx[r]];
			if (rt->threads[u].nrec++ == 0)
				rt->threads[u].first = newidx[r];
			*q = tr->rec[r];
			q->work += carry;
			carry = 0;
			/* a kept record pairs with a kept one (the same semaphore,
			 * barrier or thread); anything else: none */
			uint32_t pr = tr->pair ? tr->pair[r] : TRACE_NONE;
			rt->pair[newidx[r]] = pr < tr->nrec ? newidx[pr] : TRACE_NONE;
		}
		if (rt->threads[u].nrec == 0)
			rt->threads[u].first = (uint32_t)kept;
	}
	goto out;
fail:
	bound_relaxed_trace_free(rt);
	rt = NULL;
out:
	free(newidx);
	free(sem_waiter);
	free(bar_n);
	free(bar_users);
	free(bar_last);
	return rt;
}

void bound_relaxed_trace_free(struct trace *rt)
{
	if (!rt)
		return;
	free(rt->rec);
	free(rt->pair);
	free(rt->threads);
	free(rt);
}

/* ---------------------------------------------------------------------
 * P||Cmax
 */

static int cmp_u64_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? 1 : a > b ? -1 : 0;
}

struct ilp_cb {
	double best_bound;   /* largest global bound seen (objective units) */
	int have_bound;
	const double *heur;  /* [1 + ncols] LPT solution for GLP_IHEUR     */
	int heur_given;
	uint64_t max_iters;  /* simplex iterations (root and branch-and-
	                        bound together); 0: no cap                  */
	int itercap;         /* 1 once stopped there                        */
};

static void ilp_callback(glp_tree *T, void *info)
{
	struct ilp_cb *cb = info;
	if (cb->max_iters && !cb->itercap &&
	    (uint64_t)glp_get_it_cnt(glp_ios_get_prob(T)) > cb->max_iters) {
		/* the iteration cap: deterministic (checked at every call) */
		cb->itercap = 1;
		glp_ios_terminate(T);
	}
	switch (glp_ios_reason(T)) {
	case GLP_IHEUR:
		if (!cb->heur_given) {
			cb->heur_given = 1;
			glp_ios_heur_sol(T, cb->heur);
		}
		/* fall through */
	case GLP_ISELECT:
	case GLP_IBINGO:
	case GLP_IPREPRO:
	case GLP_IROWGEN: {
		int bn = glp_ios_best_node(T);
		if (bn) {
			double b = glp_ios_node_bound(T, bn);
			if (!cb->have_bound || b > cb->best_bound) {
				cb->best_bound = b;
				cb->have_bound = 1;
			}
		}
		break;
	}
	default:
		break;
	}
}

/*
 * GLPK's bound is a floating-point LP bound; it is discounted by a relative
 * 1e-6 (far above GLPK's relative tolerances of 1e-7 and double round-off
 * on data below 2^52) and rounded up to the next integer (the optimum is an
 * integer: works are integers).
 */
static uint64_t safe_ceil(double b)
{
	if (!(b > 0))
		return 0;
	double d = b * (1.0 - 1e-6);
	if (d >= 18446744073709549568.0)
		return UINT64_MAX;
	uint64_t v = (uint64_t)d;
	return (double)v < d ? v + 1 : v;
}

int bound_partition(const uint64_t *w, uint32_t n, uint32_t k, uint32_t ilp_ms,
                    uint64_t *lb, uint64_t *ub, int *ilp, int *timeout)
{
	int itercap;
	return bound_partition_capped(w, n, k, ilp_ms, 0, lb, ub, ilp, timeout,
	                             &itercap);
}

int bound_partition_capped(const uint64_t *w_in, uint32_t n, uint32_t k,
                          uint32_t ilp_ms, uint64_t ilp_iters, uint64_t *lb,
                          uint64_t *ub, int *ilp, int *timeout, int *itercap)
{
	*lb = *ub = 0;
	*ilp = *timeout = *itercap = 0;
	if (k == 0)
		return BOUND_EINVAL;
	if (n == 0)
		return BOUND_OK;
	if (ilp_ms == 0)
		ilp_ms = 1000;
	uint64_t *w = malloc(n * sizeof *w);
	uint64_t *load = calloc(k, sizeof *load);
	if (!w || !load) {
		free(w);
		free(load);
		return BOUND_ENOMEM;
	}
	memcpy(w, w_in, n * sizeof *w);
	qsort(w, n, sizeof *w, cmp_u64_desc);
	bd_u128 total = 0;
	for (uint32_t i = 0; i < n; i++)
		total += w[i];
	/* trivial bounds, exact in integers */
	bd_u128 l0 = (total + k - 1) / k;
	if (w[0] > l0)
		l0 = w[0];
	if (n > k && (bd_u128)w[k - 1] + w[k] > l0)
		l0 = (bd_u128)w[k - 1] + w[k];
	/* LPT: largest first onto the least loaded processor */
	uint32_t *where = malloc(n * sizeof *where);
	if (!where) {
		free(w);
		free(load);
		return BOUND_ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t best = 0;
		for (uint32_t j = 1; j < k; j++)
			if (load[j] < load[best])
				best = j;
		load[best] += w[i];
		where[i] = best;
	}
	uint64_t u0 = 0;
	for (uint32_t j = 0; j < k; j++)
		if (load[j] > u0)
			u0 = load[j];
	*lb = l0 > u0 ? u0 : (uint64_t)l0;
	*ub = u0;
	int rc = BOUND_OK;
	if (*lb >= *ub || n <= k || k == 1) {
		*lb = *ub;
		goto out;
	}
	if (total >= ((bd_u128)1 << 52))
		goto out; /* too large for exact data in doubles: trivial bound */

	/* min C  s.t.  sum_j x_ij = 1 (each thread),
	 *              sum_i w_i x_ij - C <= 0 (each processor),
	 *              x_ij binary, x_ij = 0 for j > i (symmetry: sorted
	 *              works, the i-th largest goes to a processor <= i),
	 *              l0 <= C <= u0. */
	if (ilp_iters && ilp_iters < (uint64_t)n + k) {
		/* fewer iterations than the root relaxation's basis needs: its
		 * bound would be the trivial one; GLPK's set-up alone would pass
		 * the cap */
		*itercap = 1;
		goto out;
	}
	*ilp = 1;
	/* library code never prints: GLPK writes some messages whatever
	 * msg_lev says (e.g. "Constructing initial basis..." when a capped
	 * search restores a basis); its terminal switch is per thread
	 * (GLPK 5's environment is thread-local), restored below */
	int term = glp_term_out(GLP_OFF);
	glp_prob *P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MIN);
	uint32_t kk = k;
	size_t ncols = 1;
	for (uint32_t i = 0; i < n; i++)
		ncols += (i + 1 < kk ? i + 1 : kk);
	int *col = malloc(((size_t)n * kk) * sizeof *col); /* x_ij column or 0 */
	/* non-zeros: -1 for C in each of the k load rows, and 2 per x_ij;
	 * GLPK's arrays are 1-based */
	size_t nz = (size_t)kk + 2 * (ncols - 1) + 1;
	int *ia = malloc(nz * sizeof *ia);
	int *ja = malloc(nz * sizeof *ja);
	double *ar = malloc(nz * sizeof *ar);
	double *heur = calloc(ncols + 1, sizeof *heur);
	if (!col || !ia || !ja || !ar || !heur) {
		rc = BOUND_ENOMEM;
		goto ilp_out;
	}
	glp_add_rows(P, (int)(n + kk));
	for (uint32_t i = 0; i < n; i++)
		glp_set_row_bnds(P, (int)i + 1, GLP_FX, 1.0, 1.0);
	for (uint32_t j = 0; j < kk; j++)
		glp_set_row_bnds(P, (int)(n + j) + 1, GLP_UP, 0.0, 0.0);
	glp_add_cols(P, (int)ncols);
	/* column 1: C */
	glp_set_col_bnds(P, 1, GLP_DB, (double)l0, (double)u0);
	glp_set_obj_coef(P, 1, 1.0);
	size_t ne = 0;
	for (uint32_t j = 0; j < kk; j++) {
		ne++;
		ia[ne] = (int)(n + j) + 1;
		ja[ne] = 1;
		ar[ne] = -1.0;
	}
	int c = 2;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < kk; j++) {
			col[(size_t)i * kk + j] = 0;
			if (j > i)
				continue;
			col[(size_t)i * kk + j] = c;
			glp_set_col_kind(P, c, GLP_BV);
			ne++;
			ia[ne] = (int)i + 1;
			ja[ne] = c;
			ar[ne] = 1.0;
			ne++;
			ia[ne] = (int)(n + j) + 1;
			ja[ne] = c;
			ar[ne] = (double)w[i];
			c++;
		}
	glp_load_matrix(P, (int)ne, ia, ja, ar);
	/* the LPT solution as the first incumbent: relabel its processors
	 * so that thread i uses a processor <= i (first use order) */
	{
		uint32_t *lab = malloc(kk * sizeof *lab);
		if (lab) {
			for (uint32_t j = 0; j < kk; j++)
				lab[j] = UINT32_MAX;
			uint32_t next = 0;
			for (uint32_t i = 0; i < n; i++) {
				if (lab[where[i]] == UINT32_MAX)
					lab[where[i]] = next++;
				heur[col[(size_t)i * kk + lab[where[i]]]] = 1.0;
			}
			heur[1] = (double)u0;
			free(lab);
		}
	}
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	sp.tm_lim = (int)ilp_ms;
	if (ilp_iters)
		sp.it_lim = ilp_iters > INT_MAX ? INT_MAX : (int)ilp_iters;
	int src = glp_simplex(P, &sp);
	if (src != 0 || glp_get_status(P) != GLP_OPT) {
		if (src == GLP_ETMLIM)
			*timeout = 1;
		if (src == GLP_EITLIM)
			*itercap = 1;
		goto ilp_out; /* keep the trivial bound */
	}
	struct ilp_cb cb = {.heur = heur, .max_iters = ilp_iters};
	glp_iocp ip;
	glp_init_iocp(&ip);
	ip.msg_lev = GLP_MSG_OFF;
	ip.tm_lim = (int)ilp_ms;
	ip.presolve = GLP_OFF;
	ip.cb_func = ilp_callback;
	ip.cb_info = &cb;
	ip.br_tech = GLP_BR_DTH;
	ip.bt_tech = GLP_BT_BLB;
	int irc = glp_intopt(P, &ip);
	int ms = glp_mip_status(P);
	if (irc == 0 && ms == GLP_OPT) {
		uint64_t v = safe_ceil(glp_mip_obj_val(P));
		if (v > *lb)
			*lb = v;
	} else {
		/* a time-out, or another early stop: keep what was proven */
		if (irc == GLP_ETMLIM)
			*timeout = 1;
		if (cb.itercap)
			*itercap = 1;
		if (cb.have_bound) {
			uint64_t v = safe_ceil(cb.best_bound);
			if (v > *lb)
				*lb = v;
		}
	}
	if (ms == GLP_OPT || ms == GLP_FEAS) {
		/* the incumbent's exact makespan */
		memset(load, 0, kk * sizeof *load);
		int okay = 1;
		for (uint32_t i = 0; i < n && okay; i++) {
			uint32_t jj = UINT32_MAX;
			for (uint32_t j = 0; j <= i && j < kk; j++)
				if (glp_mip_col_val(P, col[(size_t)i * kk + j]) > 0.5)
					jj = j;
			if (jj == UINT32_MAX)
				okay = 0;
			else
				load[jj] += w[i];
		}
		if (okay) {
			uint64_t m = 0;
			for (uint32_t j = 0; j < kk; j++)
				if (load[j] > m)
					m = load[j];
			if (m < *ub)
				*ub = m;
		}
	}
	if (*lb > *ub)
		*lb = *ub; /* cannot happen for a sound bound; keep it consistent */
ilp_out:
	free(col);
	free(ia);
	free(ja);
	free(ar);
	free(heur);
	glp_delete_prob(P);
	glp_term_out(term);
out:
	free(where);
	free(w);
	free(load);
	if (rc != BOUND_OK)
		*lb = *ub = 0, *ilp = *timeout = *itercap = 0;
	return rc;
}

/* ---------------------------------------------------------------------
 * The lower bound
 */

int bound_lower(const struct trace *tr, uint32_t k, uint32_t ilp_ms,
                struct bound_lower *out)
{
	return bound_lower_capped(tr, k, ilp_ms, 0, out);
}

int bound_lower_partition(const struct trace *tr, uint32_t k, uint32_t ilp_ms,
                          uint64_t ilp_iters, struct bound_lower *out)
{
	memset(out, 0, sizeof *out);
	if (!tr || k == 0 || tr->nthreads == 0)
		return BOUND_EINVAL;
	const uint32_t n = tr->nthreads;
	uint64_t *w = malloc(n * sizeof *w);
	if (!w)
		return BOUND_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		w[i] = trace_thread_work(tr, i);
		if (w[i] > out->work_max)
			out->work_max = w[i];
	}
	int rc = bound_partition_capped(w, n, k, ilp_ms, ilp_iters, &out->part_lb,
	                               &out->part_ub, &out->part_ilp,
	                               &out->part_timeout, &out->part_itercap);
	free(w);
	if (rc) {
		memset(out, 0, sizeof *out);
		return rc;
	}
	out->lower = sim_time_int(out->work_max > out->part_lb ? out->work_max : out->part_lb);
	return BOUND_OK;
}

int bound_lower_path(const struct trace *tr, struct bound_lower *out)
{
	struct trace *rt = bound_relaxed_trace(tr, &out->path_dropped);
	struct sim_program *prog = rt ? sim_program_new(rt) : NULL;
	struct sim_work *sw = prog ? sim_work_new(prog) : NULL;
	int rc = BOUND_ENOMEM;
	if (sw) {
		struct sim_params par;
		sim_params_init(&par);
		sim_time ms;
		int st = sim_makespan(prog, sw, &par, NULL, &ms);
		if (st == SIM_OK) {
			out->path = ms;
			out->path_relaxed = out->path_dropped > 0;
			rc = BOUND_OK;
		} else if (st == SIM_DEADLOCK) {
			/* no critical path under Direct: the bound keeps the
			 * parts that hold under every model */
			out->path = sim_time_int(0);
			out->path_deadlock = 1;
			rc = BOUND_OK;
		} else {
			rc = st == SIM_DEADLOCK ? BOUND_EDEADLOCK :
			     st == SIM_ENOMEM ? BOUND_ENOMEM : BOUND_ESIM;
		}
	}
	sim_work_free(sw);
	sim_program_free(prog);
	bound_relaxed_trace_free(rt);
	if (rc) {
		memset(out, 0, sizeof *out);
		return rc;
	}
	if (sim_time_cmp(out->path, out->lower) > 0)
		out->lower = out->path;
	return BOUND_OK;
}

int bound_lower_capped(const struct trace *tr, uint32_t k, uint32_t ilp_ms,
                      uint64_t ilp_iters, struct bound_lower *out)
{
	int rc = bound_lower_partition(tr, k, ilp_ms, ilp_iters, out);
	return rc ? rc : bound_lower_path(tr, out);
}
