/* alloc.c - the search driver: table, context, parallel evaluation, tests,
 * budget, progress, result. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/allocint.h"

/* The table (ALLOC_TABLE in allocint.h). */
#define ALLOC_ENTRY(name) &alloc_alg_##name,
static const struct alloc_algorithm *const table[] = {ALLOC_TABLE(ALLOC_ENTRY)};
#undef ALLOC_ENTRY
#define NALGS (sizeof table / sizeof table[0])

size_t alloc_algorithm_count(void)
{
	return NALGS;
}

const char *alloc_algorithm_name(size_t i)
{
	return i < NALGS ? table[i]->name : NULL;
}

const char *alloc_algorithm_summary(size_t i)
{
	return i < NALGS ? table[i]->summary : NULL;
}

int alloc_algorithm_baseline(size_t i)
{
	return i < NALGS ? table[i]->baseline : 0;
}

int alloc_algorithm_find(const char *name)
{
	for (size_t i = 0; i < NALGS; i++)
		if (strcmp(table[i]->name, name) == 0)
			return (int)i;
	return -1;
}

const char *alloc_stop_name(enum alloc_stop s)
{
	switch (s) {
	case ALLOC_STOP_DONE: return "done";
	case ALLOC_STOP_CRITERION: return "stop criterion";
	case ALLOC_STOP_TESTS: return "test budget";
	case ALLOC_STOP_TIME: return "time limit";
	case ALLOC_STOP_LOWER: return "lower bound reached";
	case ALLOC_STOP_EXHAUSTED: return "search space exhausted";
	case ALLOC_STOP_CANCELLED: return "cancelled";
	}
	return "?";
}

void alloc_params_init(struct alloc_params *p)
{
	memset(p, 0, sizeof *p);
	sim_params_init(&p->sim);
	p->sim.model = SIM_AUTO;
	strcpy(p->algorithm, "auto");
	p->seed = 1;
	p->stop_after = 100;
	p->lower = sim_time_int(0);
	p->progress_interval = 0.1;
	p->history_bytes = ALLOC_HISTORY_BYTES;
	p->unbound_margin = ALLOC_UNBOUND_MARGIN;
}

/* The processors 0..k-1 that binding b (n dense threads) puts a thread
 * on. */
static uint32_t cpus_used(const int32_t *b, uint32_t n, uint32_t k)
{
	uint32_t used = 0;
	for (uint32_t p = 0; p < k && used < n; p++)
		for (uint32_t i = 0; i < n; i++)
			if (b[i] == (int32_t)p) {
				used++;
				break;
			}
	return used;
}

void alloc_result_release(struct alloc_result *r)
{
	if (!r)
		return;
	free(r->binding);
	memset(r, 0, sizeof *r);
}

/* Simulated work per default budget: records simulated.  Calibrated so
 * that a 64-thread transactions program takes about a second on one core
 * of the development machine (docs/alloc.md). */
#define DEFAULT_WORK 12000000.0

uint64_t alloc_default_budget(const struct trace *tr)
{
	double per = (double)tr->nrec + 4.0 * tr->nthreads + 16.0;
	double b = DEFAULT_WORK / per;
	if (b < 200)
		b = 200;
	if (b > 20000)
		b = 20000;
	return (uint64_t)b;
}

uint64_t alloc_partitions(uint32_t n, uint32_t k)
{
	if (n == 0)
		return 1;
	if (k > n)
		k = n;
	if (k == 0)
		return 0;
	if (k >= 2 && n > 80)
		return UINT64_MAX; /* S(n, 2) = 2^(n-1) - 1 alone overflows */
	/* s[j] = S(i, j) for the current i; S(i, j) = j S(i-1, j) + S(i-1, j-1) */
	uint64_t s[82] = {0};
	s[0] = 1;
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t top = i < k ? i : k;
		for (uint32_t j = top; j >= 1; j--) {
			uint64_t a, t;
			if (__builtin_mul_overflow(s[j], (uint64_t)j, &a) ||
			    __builtin_add_overflow(a, s[j - 1], &t))
				t = UINT64_MAX;
			s[j] = t;
		}
		s[0] = 0;
	}
	uint64_t sum = 0;
	for (uint32_t j = 1; j <= k; j++)
		if (__builtin_add_overflow(sum, s[j], &sum))
			return UINT64_MAX;
	return sum;
}

void alloc_canonical(const int32_t *b, uint32_t n, int32_t *out)
{
	/* Label of thread i: the label of the first thread on its processor,
	 * or the next new label.  The first threads' processors are kept in
	 * order of appearance in `first` (at most 64 on the stack, else a
	 * scan back, O(n^2), fine for a helper). */
	int32_t first[64];
	uint32_t nl = 0;
	int32_t next = 0;
	for (uint32_t i = 0; i < n; i++) {
		int32_t p = b[i], l = -1;
		if (p == TRACE_SHADOW) {
			out[i] = TRACE_SHADOW;
			continue;
		}
		if (next <= 64) {
			for (uint32_t j = 0; j < nl; j++)
				if (first[j] == p)
					l = (int32_t)j;
		} else {
			for (uint32_t j = 0; j < i; j++)
				if (b[j] == p) {
					l = out[j];
					break;
				}
		}
		if (l < 0) {
			l = next++;
			if (nl < 64)
				first[nl++] = p;
		}
		out[i] = l;
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double alloc_elapsed(const struct alloc_ctx *c)
{
	return now_s() - c->t0;
}

int alloc_complete(const struct alloc_ctx *c, const int32_t *b)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (b[i] < 0)
			return 0;
	return 1;
}

uint64_t alloc_room(const struct alloc_ctx *c)
{
	if (c->max_tests == UINT64_MAX)
		return UINT64_MAX;
	return c->tests >= c->max_tests ? 0 : c->max_tests - c->tests;
}

uint64_t alloc_room_planned(const struct alloc_ctx *c)
{
	uint64_t room = alloc_room(c);
	if (c->deadline > 0) {
		double t = now_s(), left = c->deadline - t;
		double t1 = c->ts > 0 ? c->ts : c->t0;
		double per = (t - t1) / (double)(c->tests ? c->tests : 1);
		if (left <= 0)
			return 0;
		double est = per > 0 ? left / per : 1e18;
		if (est < (double)room)
			room = est >= 1.8e19 ? UINT64_MAX : (uint64_t)est;
	}
	return room;
}

static void progress(struct alloc_ctx *c, double t, int force)
{
	const struct alloc_params *par = c->par;
	if (!par->progress)
		return;
	if (!force && t - c->last_progress < par->progress_interval)
		return;
	c->last_progress = t;
	struct alloc_progress pr = {
		.algorithm = c->phase,
		.tests = c->tests,
		.sims = c->sims,
		.have_best = c->have_best && c->best_st == SIM_OK,
		.best = c->best_ms,
		.elapsed = t - c->t0,
	};
	if (par->progress(par->progress_arg, &pr) && !force &&
	    c->stop == ALLOC_STOP_DONE)
		c->stop = ALLOC_STOP_CANCELLED;
}

int alloc_check(struct alloc_ctx *c)
{
	if (c->stop == ALLOC_STOP_DONE) {
		if (c->tests >= c->max_tests)
			c->stop = ALLOC_STOP_TESTS;
		else if (c->have_best && c->best_st == SIM_OK &&
		         (c->par->lower.num > 0) &&
		         sim_time_cmp(c->best_ms, c->par->lower) <= 0)
			c->stop = ALLOC_STOP_LOWER;
		else if (c->deadline > 0 || c->par->progress) {
			double t = now_s();
			if (c->deadline > 0 && t >= c->deadline)
				c->stop = ALLOC_STOP_TIME;
			else
				progress(c, t, 0);
		}
	}
	return c->stop != ALLOC_STOP_DONE || c->error != 0;
}

int alloc_lookup(struct alloc_ctx *c, const int32_t *b, int *st, sim_time *ms)
{
	uint8_t *key = c->skeys; /* scratch slot 0; callers are sequential */
	uint64_t h = alloc_hist_key(&c->hist, b, key);
	int64_t e = alloc_hist_find(&c->hist, key, h);
	if (e < 0)
		return -1;
	const struct alloc_hentry *en = &c->hist.ent[e];
	if (en->state != ALLOC_H_PENDING) {
		*st = en->st;
		*ms = en->ms;
	}
	return en->state;
}

int alloc_tested(struct alloc_ctx *c, const int32_t *b)
{
	int st;
	sim_time ms;
	return alloc_lookup(c, b, &st, &ms) == ALLOC_H_TESTED;
}

int alloc_commit(struct alloc_ctx *c, const int32_t *b, int st, sim_time ms)
{
	if (alloc_complete(c, b)) {
		uint8_t *key = c->skeys;
		uint64_t h = alloc_hist_key(&c->hist, b, key);
		int64_t e = alloc_hist_find(&c->hist, key, h);
		if (e >= 0 && c->hist.ent[e].state == ALLOC_H_TESTED)
			return 0;
		if (e < 0) {
			e = alloc_hist_add(&c->hist, key, h);
			if (e == -1) {
				c->error = ALLOC_ENOMEM;
				return 0;
			}
			if (e >= 0) {
				c->hist.ent[e].ms = ms;
				c->hist.ent[e].st = (int8_t)st;
			}
		}
		if (e >= 0) /* else the history is full: not remembered */
			c->hist.ent[e].state = ALLOC_H_TESTED;
		if (!c->have_best ||
		    alloc_cmp(st, ms, c->best_st, c->best_ms) < 0) {
			memcpy(c->best, b, sizeof *b * c->n);
			c->best_ms = ms;
			c->best_st = st;
			c->have_best = 1;
		}
	}
	c->tests++;
	if (st == SIM_DEADLOCK)
		c->deadlocks++;
	alloc_check(c);
	return 1;
}

/*
 * Parallel evaluation only where it pays.  On a machine whose other cores
 * are busy (other processes), an OpenMP team waits for a descheduled
 * thread at every join, and a batch can take milliseconds instead of
 * microseconds.  So the wall time per simulation of both modes is kept
 * (moving averages), batches use the faster mode, and the slower one is
 * tried again from time to time (at most about 5% of the time), to notice
 * when the machine frees up.  Results never depend on the mode: only the
 * speed does.
 */
static int parallel_pays(struct alloc_ctx *c, size_t nrun)
{
	struct alloc_pmode *m = &c->pmode;
	/* A region must be worth its start-up: a batch that takes less
	 * than 50 us on one thread stays there (a fork-join costs a few us
	 * on an idle machine, milliseconds when a team member waits for a
	 * descheduled thread). */
	if (m->per[0] > 0 && m->per[0] * (double)nrun < 50e-6)
		return 0;
	if (m->per[1] == 0)
		return 1;
	if (m->per[0] == 0)
		return 0;
	int best = m->per[1] < m->per[0];
	double t = now_s();
	if (t - m->last_try > 20 * m->try_cost + 0.002) {
		m->last_try = t;
		m->trying = 1;
		return !best;
	}
	return best;
}

size_t alloc_width_max(const struct alloc_ctx *c)
{
	return c->par->width ? c->par->width : (size_t)c->nworkers;
}

size_t alloc_width(const struct alloc_ctx *c)
{
	const struct alloc_pmode *m = &c->pmode;
	if (c->par->width)
		return c->par->width;
	if (c->nworkers < 2)
		return 1;
	if (m->per[0] > 0 && m->per[0] * (double)c->nworkers < 50e-6)
		return 1; /* too small a region (parallel_pays) */
	if (m->per[1] == 0 || m->per[0] == 0 || m->per[1] < m->per[0] ||
	    now_s() - m->last_try > 20 * m->try_cost + 0.002)
		return (size_t)c->nworkers;
	return 1;
}

static void parallel_note(struct alloc_ctx *c, int par, double dt, size_t sims)
{
	struct alloc_pmode *m = &c->pmode;
	double per = dt / (double)sims;
	m->per[par] = m->per[par] == 0 ? per : 0.7 * m->per[par] + 0.3 * per;
	if (m->trying) {
		m->try_cost = dt;
		m->trying = 0;
	}
}

static int scratch(struct alloc_ctx *c, size_t m)
{
	if (m <= c->scap)
		return 0;
	size_t cap = c->scap ? c->scap : 16;
	while (cap < m)
		cap *= 2;
	uint8_t *k = realloc(c->skeys, cap * c->hist.keylen);
	if (k)
		c->skeys = k;
	uint64_t *h = realloc(c->shash, cap * sizeof *h);
	if (h)
		c->shash = h;
	int64_t *e = realloc(c->sent, cap * sizeof *e);
	if (e)
		c->sent = e;
	uint32_t *r = realloc(c->srun, cap * sizeof *r);
	if (r)
		c->srun = r;
	int *s = realloc(c->sst, cap * sizeof *s);
	if (s)
		c->sst = s;
	sim_time *t = realloc(c->sms, cap * sizeof *t);
	if (t)
		c->sms = t;
	uint64_t *u = realloc(c->scut, cap * sizeof *u);
	if (u)
		c->scut = u;
	uint8_t *sk = realloc(c->sskip, cap);
	if (sk)
		c->sskip = sk;
	if (!k || !h || !e || !r || !s || !t || !u || !sk)
		return ALLOC_ENOMEM;
	c->scap = cap;
	return 0;
}

uint64_t alloc_cut_at(int st, sim_time t)
{
	if (st != SIM_OK || t.den == 0)
		return UINT64_MAX;
	uint64_t q = t.num / t.den;
	return q + (t.num % t.den != 0);
}

/* The load bound of binding b: the busiest processor's work (a shadow
 * thread runs alone on its own processor). */
static unsigned __int128 load_bound(struct alloc_ctx *c, const int32_t *b)
{
	memset(c->sload, 0, sizeof *c->sload * c->k);
	unsigned __int128 mx = 0;
	for (uint32_t t = 0; t < c->n; t++) {
		unsigned __int128 l = b[t] < 0 ? c->work[t] :
		                      (c->sload[b[t]] += c->work[t]);
		if (l > mx)
			mx = l;
	}
	return mx;
}

int alloc_evaluate(struct alloc_ctx *c, const int32_t *cand, size_t m,
                   int commit, int *st, sim_time *ms)
{
	return alloc_evaluate_cut(c, cand, m, commit, NULL, st, ms);
}

int alloc_evaluate_cut(struct alloc_ctx *c, const int32_t *cand, size_t m,
                       int commit, const uint64_t *cut, int *st,
                       sim_time *ms)
{
	if (c->par->no_cutoff || c->par->observe)
		cut = NULL;
	if (c->error)
		return c->error;
	if (cut && !c->sload &&
	    !(c->sload = malloc(sizeof *c->sload * c->k)))
		return c->error = ALLOC_ENOMEM;
	if (scratch(c, m + 1)) /* slot m: scratch key of alloc_commit */
		return c->error = ALLOC_ENOMEM;
	struct alloc_hist *h = &c->hist;
	const uint32_t n = c->n;
	size_t nrun = 0;
	uint64_t *scut = c->scut;
	/* Keys live in slots 1..m (slot 0 is alloc_commit's).  A binding
	 * twice in the batch is simulated once, at the highest of its
	 * cutoffs (the entry's `slot` names the simulating candidate). */
	for (size_t i = 0; i < m; i++) {
		const int32_t *b = cand + i * n;
		uint64_t ci = cut ? cut[i] : UINT64_MAX;
		c->sent[i] = -1;
		if (!alloc_complete(c, b)) {
			scut[i] = ci;
			c->srun[nrun++] = (uint32_t)i;
			continue;
		}
		uint8_t *key = c->skeys + (i + 1) * h->keylen;
		uint64_t hv = alloc_hist_key(h, b, key);
		int64_t e = alloc_hist_find(h, key, hv);
		if (e < 0) {
			e = alloc_hist_add(h, key, hv);
			if (e == -1)
				return c->error = ALLOC_ENOMEM;
			/* e == -2: the history is full; simulated, not kept
			 * (a duplicate within the batch is simulated twice) */
			scut[i] = ci;
			c->srun[nrun++] = (uint32_t)i;
			if (e >= 0) {
				h->ent[e].slot = (uint32_t)i;
				h->ent[e].resim = 1;
			}
		} else {
			struct alloc_hentry *en = &h->ent[e];
			if (en->resim) {
				/* simulated in this batch already: at least
				 * at this cutoff */
				if (scut[en->slot] < ci)
					scut[en->slot] = ci;
			} else if (en->st == SIM_CUTOFF &&
			           (uint64_t)en->ms.num < ci) {
				/* known only as "more than" a lower cutoff:
				 * simulate again (a simulation, not a test) */
				en->slot = (uint32_t)i;
				en->resim = 1;
				scut[i] = ci;
				c->srun[nrun++] = (uint32_t)i;
			}
		}
		c->sent[i] = e >= 0 ? e : -1;
	}

	/* The load bound: no processor executes more than one unit of work
	 * per unit of time under any policy, and costs and latency only add
	 * time, so the makespan is at least the busiest processor's work.
	 * Above the cutoff, the run need not be simulated at all. */
	for (size_t j = 0; j < nrun; j++) {
		uint32_t i = c->srun[j];
		c->sskip[i] = 0;
		if (scut[i] == UINT64_MAX)
			continue;
		if (load_bound(c, cand + (size_t)i * n) > scut[i])
			c->sskip[i] = 1;
	}

	/* Simulate in parallel; each OpenMP thread has its own workspace and
	 * writes only its own slots, so the order of completion is
	 * irrelevant. */
	const struct sim_program *prog = c->prog;
	const struct sim_params *sp = &c->sim;
	struct sim_work **wk = c->wk;
	uint32_t *run = c->srun;
	int *sst = c->sst;
	sim_time *sms = c->sms;
	int nth = (int)(nrun < (size_t)c->nworkers ? nrun : (size_t)c->nworkers);
	int par = nth > 1 && parallel_pays(c, nrun);
	double t0 = nth > 1 ? now_s() : 0;
	if (!par) {
		for (size_t j = 0; j < nrun; j++) {
			uint32_t i = run[j];
			sst[i] = c->sskip[i] ? SIM_CUTOFF :
			         sim_makespan_within(prog, wk[0], sp,
			                             cand + (size_t)i * n,
			                             scut[i], &sms[i]);
		}
	} else {
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
		for (size_t j = 0; j < nrun; j++) {
			uint32_t i = run[j];
			int t = omp_get_thread_num();
			sst[i] = c->sskip[i] ? SIM_CUTOFF :
			         sim_makespan_within(prog, wk[t], sp,
			                             cand + (size_t)i * n,
			                             scut[i], &sms[i]);
		}
	}
	if (nth > 1)
		parallel_note(c, par, now_s() - t0, nrun);

	/* Reduce in order. */
	for (size_t j = 0; j < nrun; j++) {
		uint32_t i = run[j];
		if (c->sskip[i])
			c->pruned++;
		else
			c->sims++;
		if (sst[i] == SIM_EINVAL)
			return c->error = ALLOC_ESIM;
		if (sst[i] == SIM_ENOMEM)
			return c->error = ALLOC_ENOMEM;
		if (sst[i] == SIM_EOVERFLOW)
			c->overflows++;
		if (sst[i] == SIM_CUTOFF) {
			c->cutoffs++;
			sms[i] = sim_time_int(scut[i]); /* "more than this" */
		}
		if (c->par->observe)
			c->par->observe(c->par->observe_arg, cand + (size_t)i * n,
			                n, sst[i],
			                sst[i] == SIM_CUTOFF ? sim_time_int(0) : sms[i]);
		if (c->sent[i] >= 0) {
			struct alloc_hentry *en = &h->ent[c->sent[i]];
			en->ms = sms[i];
			en->st = (int8_t)sst[i];
			en->resim = 0;
			if (en->state == ALLOC_H_PENDING)
				en->state = ALLOC_H_SPECULATIVE;
		}
	}
	for (size_t i = 0; i < m; i++) {
		if (c->sent[i] >= 0) {
			st[i] = h->ent[c->sent[i]].st;
			ms[i] = h->ent[c->sent[i]].ms;
		} else {
			st[i] = sst[i];
			ms[i] = sms[i];
		}
	}
	if (commit)
		for (size_t i = 0; i < m; i++)
			alloc_commit(c, cand + i * n, st[i], ms[i]);
	return c->error;
}

int alloc_evaluate_pick(struct alloc_ctx *c, const int32_t *cand, size_t m,
                        int *st, sim_time *ms)
{
	const uint32_t n = c->n;
	if (m < 2 || c->par->no_cutoff || c->par->observe)
		return alloc_evaluate(c, cand, m, 1, st, ms);
	if (!c->sload && !(c->sload = malloc(sizeof *c->sload * c->k)))
		return c->error = ALLOC_ENOMEM;
	size_t *ord = malloc(sizeof *ord * m);
	unsigned __int128 *lb = malloc(sizeof *lb * m);
	int32_t *rb = malloc(sizeof *rb * n * m);
	uint64_t *cut = malloc(sizeof *cut * m);
	int *rst = malloc(sizeof *rst * m);
	sim_time *rms = malloc(sizeof *rms * m);
	int r = 0;
	if (!ord || !lb || !rb || !cut || !rst || !rms) {
		r = c->error = ALLOC_ENOMEM;
		goto out;
	}
	/* The order: by load bound, then index (insertion sort, m small). */
	for (size_t i = 0; i < m; i++) {
		lb[i] = load_bound(c, cand + i * n);
		size_t j = i;
		while (j > 0 && lb[ord[j - 1]] > lb[i]) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
	/* The candidate with the least load bound first, exactly; then the
	 * others in that order, in rounds of alloc_width, each cut at the
	 * shortest makespan found so far: above it a candidate can be
	 * neither the first of the shortest nor a new best, and every
	 * candidate that ties or beats it is exact. */
	int bst = SIM_CUTOFF;
	sim_time bms = sim_time_int(0);
	for (size_t j = 0; j < m;) {
		size_t w = j == 0 ? 1 : alloc_width(c);
		if (w > m - j)
			w = m - j;
		for (size_t q = 0; q < w; q++) {
			memcpy(rb + q * n, cand + ord[j + q] * n, sizeof *rb * n);
			cut[q] = alloc_cut_at(bst, bms);
		}
		if ((r = alloc_evaluate_cut(c, rb, w, 0, j == 0 ? NULL : cut,
		                            rst, rms)) != 0)
			goto out;
		for (size_t q = 0; q < w; q++) {
			st[ord[j + q]] = rst[q];
			ms[ord[j + q]] = rms[q];
			if (rst[q] == SIM_OK && (bst != SIM_OK ||
			                         sim_time_cmp(rms[q], bms) < 0)) {
				bst = SIM_OK;
				bms = rms[q];
			}
		}
		j += w;
	}
	for (size_t i = 0; i < m; i++)
		alloc_commit(c, cand + i * n, st[i], ms[i]);
	r = c->error;
out:
	free(ord);
	free(lb);
	free(rb);
	free(cut);
	free(rst);
	free(rms);
	return r;
}

int alloc_run_phase(struct alloc_ctx *c, const struct alloc_algorithm *a)
{
	const char *old = c->phase;
	c->phase = a->name;
	int r = a->run(c);
	c->phase = old;
	return r;
}

void alloc_random_binding(struct alloc_ctx *c, int32_t *b)
{
	for (uint32_t i = 0; i < c->n; i++)
		b[i] = (int32_t)alloc_rand_below(&c->rng, c->k);
}

struct byw {
	uint64_t w;
	uint32_t i;
};

static int byw_cmp(const void *pa, const void *pb)
{
	const struct byw *a = pa, *b = pb;
	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Threads by decreasing time[], ties by increasing dense index. */
static int time_order(const uint64_t *time, uint32_t n, uint32_t *order)
{
	struct byw *v = malloc(sizeof *v * (n ? n : 1));
	if (!v)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		v[i].w = time[i];
		v[i].i = i;
	}
	qsort(v, n, sizeof *v, byw_cmp);
	for (uint32_t i = 0; i < n; i++)
		order[i] = v[i].i;
	free(v);
	return 0;
}

/* Binpacking along `order` (by decreasing time): each thread onto the
 * processor with the least time so far (ties: lowest number).  load[cpus]
 * is scratch. */
static void pack(const uint64_t *time, const uint32_t *order, uint32_t n,
                 uint32_t cpus, unsigned __int128 *load, int32_t *out)
{
	memset(load, 0, sizeof *load * cpus);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t t = order[j], best = 0;
		for (uint32_t p = 1; p < cpus; p++)
			if (load[p] < load[best])
				best = p;
		out[t] = (int32_t)best;
		load[best] += time[t];
	}
}

void alloc_binpack_times(const uint64_t *time, uint32_t n, uint32_t cpus,
                         int32_t *out)
{
	uint32_t *order = malloc(sizeof *order * (n ? n : 1));
	unsigned __int128 *load = malloc(sizeof *load * (cpus ? cpus : 1));
	if (!order || !load || !cpus || time_order(time, n, order) != 0) {
		/* Out of memory: a valid (if poor) binding all the same. */
		for (uint32_t i = 0; i < n; i++)
			out[i] = (int32_t)(i % (cpus ? cpus : 1));
	} else {
		pack(time, order, n, cpus, load, out);
	}
	free(order);
	free(load);
}

void alloc_binpack(const struct trace *tr, uint32_t cpus, int32_t *out)
{
	uint32_t n = tr->nthreads;
	uint64_t *work = malloc(sizeof *work * (n ? n : 1));
	if (!work) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = (int32_t)(i % (cpus ? cpus : 1));
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		work[i] = trace_thread_work(tr, i);
	alloc_binpack_times(work, n, cpus, out);
	free(work);
}

int alloc_thread_times(const struct sim_program *p, struct sim_work *w,
                       const struct sim_params *sim, enum alloc_input in,
                       uint64_t *time)
{
	if (!p || !sim || !time)
		return ALLOC_EINVAL;
	const struct trace *tr = sim_program_trace(p);
	uint32_t n = tr->nthreads;
	memset(time, 0, sizeof *time * n);
	if (in == ALLOC_INPUT_WORK) {
		for (uint32_t i = 0; i < n; i++)
			time[i] = trace_thread_work(tr, i);
		return ALLOC_OK;
	}
	if ((in != ALLOC_INPUT_LIFETIME && in != ALLOC_INPUT_ELAPSED) ||
	    sim->cpus < 1)
		return ALLOC_EINVAL;
	struct sim_params sp = *sim;
	int32_t *one = NULL;
	if (in == ALLOC_INPUT_LIFETIME) {
		/* One processor, run to block: every thread on processor 0. */
		sp.mode = SIM_BOUND;
		sp.cpus = 1;
		sp.policy = SIM_FIFO;
		sp.lat_matrix = NULL; /* one processor: no latency */
		if (!(one = calloc(n ? n : 1, sizeof *one)))
			return ALLOC_ENOMEM;
	} else {
		sp.mode = SIM_UNBOUND;
	}
	struct sim_work *own = w ? NULL : sim_work_new(p);
	if (!w && !own) {
		free(one);
		return ALLOC_ENOMEM;
	}
	struct sim_result r;
	int st;
	for (;;) {
		st = sim_run(p, w ? w : own, &sp, one, SIM_STATS, &r);
		enum sim_model next = sim_model_fallback(r.model);
		if (st != SIM_DEADLOCK || sp.model == SIM_AUTO || next == r.model)
			break;
		sp.model = next; /* Paper VIII's scheme, from the model given */
	}
	int rc = st == SIM_OK ? ALLOC_OK : st == SIM_ENOMEM ? ALLOC_ENOMEM :
	         st == SIM_EINVAL ? ALLOC_EINVAL : ALLOC_ESIM;
	for (uint32_t i = 0; rc == ALLOC_OK && i < n; i++)
		/* every time of a run is an integer (sim.h) */
		time[i] = r.threads[i].end.num - r.threads[i].start.num;
	sim_work_free(own);
	free(one);
	return rc;
}

uint64_t alloc_sga_tests(uint64_t threads, uint64_t cpus)
{
	/* Thread i (1-based) is tested on min(i, P) processors when every
	 * earlier thread took a free processor (the worst case); the first
	 * thread, and a thread with a single candidate, need no test. */
	uint64_t sum = 0;
	for (uint64_t i = 2; i <= threads; i++) {
		uint64_t m = i < cpus ? i : cpus;
		if (m > 1)
			sum += m;
	}
	return sum;
}

static void ctx_release(struct alloc_ctx *c)
{
	if (c->wk)
		for (int i = 0; i < c->nworkers; i++)
			sim_work_free(c->wk[i]);
	free(c->wk);
	alloc_hist_release(&c->hist);
	free(c->best);
	free((void *)c->work);
	free((void *)c->time);
	free((void *)c->order);
	free((void *)c->binpack);
	free(c->skeys);
	free(c->shash);
	free(c->sent);
	free(c->srun);
	free(c->sst);
	free(c->sms);
	free(c->scut);
	free(c->sskip);
	free(c->sload);
	memset(c, 0, sizeof *c);
}

static int ctx_init(struct alloc_ctx *c, const struct sim_program *p,
                    const struct alloc_params *par)
{
	memset(c, 0, sizeof *c);
	c->prog = p;
	c->tr = sim_program_trace(p);
	c->par = par;
	c->sim = par->sim;
	c->n = c->tr->nthreads;
	c->k = par->sim.cpus;
	c->t0 = now_s();
	c->last_progress = c->t0;
	c->deadline = par->time_limit > 0 ? c->t0 + par->time_limit : 0;
	c->max_tests = par->max_tests ? par->max_tests : UINT64_MAX;
	c->rng = par->seed ^ 0x5eed5eed5eed5eedull;
	c->nworkers = omp_get_max_threads();
	if (c->nworkers < 1)
		c->nworkers = 1;
	uint32_t n1 = c->n ? c->n : 1;
	uint64_t *work = malloc(sizeof *work * n1);
	uint64_t *time = malloc(sizeof *time * n1);
	uint32_t *order = malloc(sizeof *order * n1);
	int32_t *bp = malloc(sizeof *bp * n1);
	unsigned __int128 *load = malloc(sizeof *load * c->k);
	c->work = work;
	c->time = time;
	c->order = order;
	c->binpack = bp;
	c->best = calloc(n1, sizeof *c->best);
	c->wk = calloc((size_t)c->nworkers, sizeof *c->wk);
	int r = ALLOC_ENOMEM;
	if (!work || !time || !order || !bp || !load || !c->best || !c->wk ||
	    alloc_hist_init(&c->hist, c->n, c->k, par->history_bytes) != 0)
		goto out;
	for (int i = 0; i < c->nworkers; i++)
		if (!(c->wk[i] = sim_work_new(p)))
			goto out;
	if (scratch(c, 16))
		goto out;
	for (uint32_t i = 0; i < c->n; i++)
		work[i] = trace_thread_work(c->tr, i);
	/* Binpacking's input, its order and its allocation, once. */
	if ((r = alloc_thread_times(p, c->wk[0], &c->sim, par->binpack_input,
	                            time)) != 0)
		goto out;
	if (par->binpack_input != ALLOC_INPUT_WORK)
		c->sims++;
	r = ALLOC_ENOMEM;
	if (time_order(time, c->n, order) != 0)
		goto out;
	pack(time, order, c->n, c->k, load, bp);
	r = 0;
out:
	free(load);
	return r;
}

/* Makespan of binding b from the history, or simulated (a reference run,
 * neither a test nor observed). */
static int reference(struct alloc_ctx *c, const struct sim_params *sp,
                     const int32_t *b, sim_time *ms)
{
	if (sp == &c->sim) {
		uint64_t h = alloc_hist_key(&c->hist, b, c->skeys);
		int64_t e = alloc_hist_find(&c->hist, c->skeys, h);
		if (e >= 0 && c->hist.ent[e].state != ALLOC_H_PENDING) {
			*ms = c->hist.ent[e].ms;
			return c->hist.ent[e].st;
		}
	}
	c->sims++;
	return sim_makespan(c->prog, c->wk[0], sp, b, ms);
}

int alloc_run(const struct sim_program *p, const struct alloc_params *par,
              struct alloc_result *res)
{
	memset(res, 0, sizeof *res);
	if (!p || !par || par->sim.cpus < 1 || par->sim.mode != SIM_BOUND ||
	    par->time_limit < 0 || par->time_limit != par->time_limit)
		return ALLOC_EINVAL;
	const char *name = par->algorithm[0] ? par->algorithm : "auto";
	int ai = alloc_algorithm_find(name);
	if (ai < 0)
		return ALLOC_EINVAL;
	if (alloc_restartable(par)) /* R independent searches */
		return alloc_run_share(p, par, 0, 1, res);

	struct alloc_ctx c;
	int r = ctx_init(&c, p, par);
	if (r) {
		ctx_release(&c);
		return r;
	}
	c.phase = table[ai]->name;
	if (c.sim.model == SIM_AUTO && c.n > 0) {
		/* One model for the whole search (docs/models.md): the scheme's
		 * choice for the search's starting point, binpacking's
		 * allocation; tests never mix models. */
		struct sim_result sr;
		int st = sim_run(p, c.wk[0], &c.sim, c.binpack, 0, &sr);
		c.sim.model = st == SIM_OK || st == SIM_DEADLOCK ? sr.model : SIM_DIRECT;
		c.sims++;
	}
	res->model = c.sim.model;
	if (!par->max_tests && !(par->time_limit > 0) && table[ai]->search)
		c.max_tests = alloc_default_budget(c.tr);
	if (c.n > 0 && !table[ai]->baseline) {
		/* The floor: binpacking's allocation, tested first. */
		int st0;
		sim_time ms0;
		const char *old = c.phase;
		c.phase = "binpack";
		c.ts = now_s();
		r = alloc_evaluate(&c, c.binpack, 1, 1, &st0, &ms0);
		c.phase = old;
	}
	if (c.n > 0 && !r)
		r = table[ai]->run(&c);
	if (!r)
		r = c.error;
	if (r) {
		ctx_release(&c);
		return r;
	}

	uint32_t n1 = c.n ? c.n : 1;
	const int32_t *bp = c.binpack;
	int32_t *one = calloc(n1, sizeof *one);
	res->binding = malloc(sizeof *res->binding * n1);
	if (!one || !res->binding) {
		free(one);
		ctx_release(&c);
		alloc_result_release(res);
		return ALLOC_ENOMEM;
	}
	res->binpack_input = par->binpack_input;
	res->binpack_status = reference(&c, &c.sim, bp, &res->binpack);
	struct sim_params sp1 = c.sim;
	sp1.cpus = 1;
	res->serial_status = reference(&c, &sp1, one, &res->serial);
	if (c.sim.machine && c.k >= 2) {
		/* the OS's scheduling under the same model (alloc.h) */
		struct sim_params spu = c.sim;
		spu.mode = SIM_UNBOUND;
		/* the model asked for, as simulate --unbound: under auto the
		 * scheme runs on the unbound run itself (alloc.h) */
		spu.model = par->sim.model;
		struct sim_result sru;
		res->unbound_run = 1;
		res->unbound_status = sim_run(c.prog, c.wk[0], &spu, NULL, 0, &sru);
		res->unbound_model = res->unbound_status == SIM_OK ||
		                     res->unbound_status == SIM_DEADLOCK
		                     ? sru.model : spu.model == SIM_AUTO ? SIM_DIRECT : spu.model;
		res->has_unbound = res->unbound_status == SIM_OK;
		res->unbound = res->has_unbound ? sru.makespan : sim_time_int(0);
	}
	if (!c.have_best) {
		/* Nothing complete was tested (cancelled at once, or no thread):
		 * the binpacking allocation is the answer. */
		memcpy(c.best, bp, sizeof *bp * c.n);
		c.best_st = res->binpack_status;
		c.best_ms = res->binpack;
		c.have_best = 1;
	}
	free(one);
	if (c.best_st == SIM_EINVAL || c.best_st == SIM_EOVERFLOW ||
	    c.best_st == SIM_ENOMEM) {
		r = c.best_st == SIM_ENOMEM ? ALLOC_ENOMEM : ALLOC_ESIM;
		ctx_release(&c);
		alloc_result_release(res);
		return r;
	}
	progress(&c, now_s(), 1);
	memcpy(res->binding, c.best, sizeof *c.best * c.n);
	res->nthreads = c.n;
	res->cpus = c.k;
	res->status = c.best_st;
	res->makespan = c.best_st == SIM_OK ? c.best_ms : sim_time_int(0);
	res->cpus_used = cpus_used(res->binding, c.n, c.k);
	if (res->has_unbound) {
		/* not at least unbound_margin percent faster, or fewer
		 * processors than the OS would use (alloc.h) */
		double u = sim_time_to_double(res->unbound), m = sim_time_to_double(res->makespan);
		res->run_unbound = res->status != SIM_OK || 100.0 * (u - m) < par->unbound_margin * u ||
		                   res->cpus_used < (c.n < c.k ? c.n : c.k);
		res->unbound_margin = par->unbound_margin;
	}
	res->tests = c.tests;
	res->sims = c.sims;
	res->deadlocks = c.deadlocks;
	res->restarts = c.restarts;
	res->stop = c.stop;
	res->cutoffs = c.cutoffs;
	res->pruned = c.pruned;
	res->history_full = c.hist.full;
	res->history_bytes = alloc_hist_bytes(&c.hist);
	res->enumerated = c.enumerated;
	res->complete = c.enumerated && c.complete;
	res->seconds = now_s() - c.t0;
	res->algorithm = table[ai]->name;
	ctx_release(&c);
	return res->status == SIM_DEADLOCK ? ALLOC_DEADLOCK : ALLOC_OK;
}
