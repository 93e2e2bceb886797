/* job.c - one job: a program on a machine, every algorithm of the
 * experiment, the unbound run and the bounds; its CSV rows. */
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bound/bound.h"
#include "exp/exp.h"
#include "exp/expint.h"
#include "mach/mach.h"
#include "trace/trace.h"

/* The columns, in order (docs/exp.md, "The CSV"). */
static const char header[] =
	"job,family,options,threads,program,seed,cpus,latency,policy,model,"
	"algorithm,makespan,tests,stop,binpack,serial,bound,lower,gap\n";

const char *exp_csv_header(void)
{
	return header;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct text {
	char *buf;
	size_t len, cap;
	int oom;
};

static void put(struct text *t, const char *fmt, ...)
{
	if (t->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->oom = 1;
			return;
		}
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		size_t nc = (t->cap + (size_t)n + 1) * 2;
		char *nb = realloc(t->buf, nc);
		if (!nb) {
			t->oom = 1;
			return;
		}
		t->buf = nb;
		t->cap = nc;
	}
}

static const char *fmt_ms(int st, sim_time t, char *buf, size_t len)
{
	if (st == SIM_DEADLOCK)
		return "deadlock";
	if (st != SIM_OK)
		return "error";
	return sim_time_format_dec(t, buf, len);
}

/* Trajectory of a search: the best complete makespan after each test. */
struct traj {
	const struct exp_variant *v;
	uint64_t tests;
	int have;
	sim_time best;
	size_t next;               /* next checkpoint                     */
	int have_at[EXP_MAX_CHECKS];
	sim_time at[EXP_MAX_CHECKS];
	/* raw (track): the complete bindings after the floor's (sga: the
	 * last step's candidates), their best and (sga) one of them */
	int track;
	uint64_t complete, after;
	int have_after;
	sim_time best_after;
	int32_t *sample;           /* [n] or NULL                          */
};

static void observe(void *arg, const int32_t *b, uint32_t n, int st,
                    sim_time ms)
{
	struct traj *t = arg;
	int complete = 1;
	for (uint32_t i = 0; i < n; i++)
		if (b[i] == TRACE_SHADOW)
			complete = 0;
	t->tests++;
	if (complete && t->track) {
		if (t->complete++ > 0) {
			if (t->after++ == 0 && t->sample)
				memcpy(t->sample, b, sizeof *b * n);
			if (st == SIM_OK && (!t->have_after ||
			                     sim_time_cmp(ms, t->best_after) < 0)) {
				t->have_after = 1;
				t->best_after = ms;
			}
		}
	}
	if (complete && st == SIM_OK &&
	    (!t->have || sim_time_cmp(ms, t->best) < 0)) {
		t->have = 1;
		t->best = ms;
	}
	while (t->next < t->v->ncheck && t->v->check[t->next] == t->tests) {
		t->have_at[t->next] = t->have;
		t->at[t->next] = t->best;
		t->next++;
	}
}

/* The columns a job fixes: "job,family,options," into a and
 * "program,seed,cpus,latency,policy," into b (threads and model, between
 * and after them, depend on the program and the run). */
void exp_row_key(const struct exp_spec *s, const struct exp_jobs *j,
                 size_t job, char *a, size_t alen, char *b, size_t blen)
{
	const struct exp_prog *p = &j->prog[job / j->nconf];
	const struct exp_conf *c = &j->conf[job % j->nconf];
	char opts[512];
	exp_prog_options(s, p, opts, sizeof opts);
	for (char *q = opts; *q; q++)
		if (*q == ',' || *q == '"' || *q == '\n' || *q == '\r')
			*q = '_';
	snprintf(a, alen, "%zu,%s,%s,", job,
	         p->path ? "trace" : s->fam[p->fam].name, opts);
	snprintf(b, blen, "%llu,%llu,%u,%llu,%s,",
	         (unsigned long long)p->index, (unsigned long long)p->seed,
	         c->sim.cpus, (unsigned long long)c->sim.latency, c->policy);
}

/* The common first columns of a row. */
static void lead(struct text *t, size_t job, const struct exp_spec *s,
                 const struct exp_jobs *j, uint32_t n, const char *model)
{
	char a[640], b[256];
	exp_row_key(s, j, job, a, sizeof a, b, sizeof b);
	put(t, "%s%u,%s%s,", a, n, b, model);
}

struct refs {
	char serial[48], bound[48], lower[48];
	int have_lower;
	double lower_v;
};

/* Binpacking on the job's machine under one input (docs/alloc.md): the
 * threads' times (SGA's order too) and its allocation's makespan, the
 * binpack column of the rows whose algorithm uses that input. */
struct bpref {
	int have;          /* computed                                */
	int st;            /* its sim status (SIM_EINVAL: no times)  */
	sim_time ms;
	char txt[48];      /* the column                              */
	uint64_t *time;    /* [n] trace units                         */
};

static int bpref_get(struct bpref *b, const struct sim_program *sp,
                     struct sim_work *w, const struct sim_params *sim,
                     enum alloc_input in, int32_t *scratch)
{
	if (b->have)
		return EXP_OK;
	uint32_t n = sim_program_trace(sp)->nthreads;
	if (!(b->time = malloc(sizeof *b->time * (n ? n : 1))))
		return EXP_ENOMEM;
	int rc = alloc_thread_times(sp, w, sim, in, b->time);
	if (rc == ALLOC_ENOMEM)
		return EXP_ENOMEM;
	if (rc == ALLOC_OK) {
		alloc_binpack_times(b->time, n, sim->cpus, scratch);
		b->st = sim_makespan(sp, w, sim, scratch, &b->ms);
	} else {
		b->st = SIM_EINVAL;
		b->ms = sim_time_int(0);
	}
	if (b->st == SIM_OK)
		sim_time_format_dec(b->ms, b->txt, sizeof b->txt);
	else
		snprintf(b->txt, sizeof b->txt, "%s", fmt_ms(b->st, b->ms, NULL, 0));
	b->have = 1;
	return EXP_OK;
}

static void tail(struct text *t, const struct refs *r, const struct bpref *bp,
                 int st, sim_time ms)
{
	char gap[48] = "";
	if (r->have_lower && st == SIM_OK && r->lower_v > 0)
		snprintf(gap, sizeof gap, "%.4f",
		         sim_time_to_double(ms) / r->lower_v - 1.0);
	put(t, ",%s,%s,%s,%s,%s\n", bp->txt, r->serial, r->bound, r->lower,
	    gap);
}

/*
 * The makespan of SGA's own allocation (Paper IV), which alloc_run hides
 * under its binpacking floor: the best of SGA's last step, whose
 * candidates are the only complete bindings it tests (every earlier step
 * has threads on shadow processors).  One of them may be binpacking's
 * allocation, already tested as the floor and so not simulated again: it
 * was a candidate iff fewer candidates were simulated than the step has
 * (the processors used by the other threads, plus a free one if any).
 * The last thread is the shortest by binpacking's input time[] (ties: the
 * highest index), SGA's order.
 */
static int sga_raw(const struct trace *tr, const struct traj *t, uint32_t k,
                   const uint64_t *time, int bst, sim_time bms, sim_time *out)
{
	uint32_t n = tr->nthreads;
	if (t->after == 0) { /* k = 1 or n = 1: SGA's allocation is binpack's */
		*out = bms;
		return bst;
	}
	uint32_t last = 0;
	uint64_t lw = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t w = time[i];
		if (w <= lw) {
			lw = w;
			last = i;
		}
	}
	uint32_t used = 0;
	char *seen = calloc(k, 1);
	if (!seen)
		return SIM_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (i != last && t->sample[i] >= 0 && (uint32_t)t->sample[i] < k &&
		    !seen[t->sample[i]]) {
			seen[t->sample[i]] = 1;
			used++;
		}
	free(seen);
	uint64_t cands = used + (used < k);
	int st = t->have_after ? SIM_OK : SIM_DEADLOCK;
	sim_time best = t->best_after;
	if (t->after < cands && bst == SIM_OK &&
	    (st != SIM_OK || sim_time_cmp(bms, best) < 0)) {
		st = SIM_OK;
		best = bms;
	}
	*out = best;
	return st;
}

/*
 * The makespan of rgreedy's runs alone (Paper V Figure 3's "10 x 50":
 * greedy runs from random allocations, with no binpacking among them):
 * the best of the tests after the floor.  With no test after it (one
 * processor or one thread: every start is binpacking's allocation), the
 * floor's result.
 */
static int runs_raw(const struct traj *t, int bst, sim_time bms,
                    sim_time *out)
{
	if (t->after == 0) {
		*out = bms;
		return bst;
	}
	*out = t->best_after;
	return t->have_after ? SIM_OK : SIM_DEADLOCK;
}

int exp_job_run(const struct exp_spec *s, const struct exp_jobs *j,
                size_t job, char **rows, double *secs, char *err,
                size_t errlen)
{
	*rows = NULL;
	const struct exp_prog *p = &j->prog[job / j->nconf];
	const struct exp_conf *c = &j->conf[job % j->nconf];
	struct trace *tr = NULL;
	struct sim_program *sp = NULL;
	struct sim_work *w = NULL;
	int32_t *b = NULL;
	struct text t = {0};
	struct bpref bp[3]; /* by enum alloc_input */
	memset(bp, 0, sizeof bp);
	int rc = EXP_OK;
	char opts[512];
	struct mach_model mm;
	memset(&mm, 0, sizeof mm);
	exp_prog_options(s, p, opts, sizeof opts);
	if (p->path) {
		struct trace_error te;
		if (trace_read_file(p->path, &tr, &te) != 0)
			return exp_fail(err, errlen, EXP_ERUN, "%s", te.msg);
	} else {
		struct gen_opts o;
		char gerr[256];
		if (exp_prog_gen_opts(s, p, &o) ||
		    gen_trace(s->fam[p->fam].name, &o, &tr, NULL, gerr,
		              sizeof gerr) != GEN_OK)
			return exp_fail(err, errlen, EXP_ERUN,
			            "job %zu: family %s, %s, threads %u, seed "
			            "%llu: %s", job, s->fam[p->fam].name, opts,
			            p->threads, (unsigned long long)p->seed, gerr);
	}
	/* the machine file (docs/sim.md, Machine files): its figures for
	 * this configuration's k in this trace's unit */
	struct exp_conf cm;
	if (s->machine) {
		struct mach mf;
		char merr[600];
		cm = *c;
		if (mach_read(s->machine, &mf, merr, sizeof merr) != 0) {
			rc = exp_fail(err, errlen, EXP_ERUN, "%s", merr);
			goto out;
		}
		int mrc = mach_model_init(&mm, &mf, c->sim.cpus, tr->unit, merr, sizeof merr);
		mach_release(&mf);
		if (mrc != 0) {
			rc = exp_fail(err, errlen, EXP_ERUN, "job %zu: %s: %s", job, s->machine, merr);
			goto out;
		}
		mach_model_apply(&mm, &cm.sim);
		c = &cm;
	}
	uint32_t n = tr->nthreads;
	sp = sim_program_new(tr);
	w = sp ? sim_work_new(sp) : NULL;
	b = malloc(sizeof *b * (n ? n : 1));
	if (!sp || !w || !b) {
		rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
		goto out;
	}

	/* References: one processor; binpacking on this machine under each
	 * input used (bp, on demand). */
	struct refs r;
	memset(&r, 0, sizeof r);
	sim_time ms;
	struct sim_params one = c->sim;
	one.cpus = 1;
	memset(b, 0, sizeof *b * n);
	int st = sim_makespan(sp, w, &one, b, &ms);
	snprintf(r.serial, sizeof r.serial, "%s",
	         fmt_ms(st, ms, opts, sizeof opts));
	double tb = now_s();
	if (s->bound) {
		/* Work caps only (as allocate's header for its default
		 * budget): a time cap would make the CSV depend on load. */
		struct bound_result br;
		struct bound_trace_opts bo;
		bound_trace_opts_budget(&bo, tr, c->sim.cpus,
		                        alloc_default_budget(tr));
		int brc = bound_for_trace_opts(tr, c->sim.cpus, c->sim.latency,
		                               &bo, &br);
		if (brc == BOUND_OK) {
			snprintf(r.bound, sizeof r.bound, "%s", br.bound_str);
			if (c->sim.model == SIM_CLIENT_SERVER) {
				snprintf(r.lower, sizeof r.lower, "%llu",
				         (unsigned long long)br.lower_any);
				r.lower_v = (double)br.lower_any;
			} else {
				snprintf(r.lower, sizeof r.lower, "%s",
				         br.lower_str);
				r.lower_v = br.lower;
			}
			r.have_lower = 1;
		} else {
			snprintf(r.bound, sizeof r.bound, "%s",
			         brc == BOUND_ETOOBIG ? "toobig" : "error");
		}
	}
	double tbound = now_s() - tb; /* charged to the first row */
	size_t row = 0;

	for (size_t v = 0; v < s->nvar; v++) {
		const struct exp_variant *var = &s->var[v];
		struct bpref *bpr = &bp[var->binpack_input];
		if (bpref_get(bpr, sp, w, &c->sim, var->binpack_input, b)) {
			rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
			goto out;
		}
		struct alloc_params ap;
		alloc_params_init(&ap);
		ap.sim = c->sim;
		ap.binpack_input = var->binpack_input;
		if (var->cpus)
			ap.sim.cpus = var->cpus;
		snprintf(ap.algorithm, sizeof ap.algorithm, "%s", var->algorithm);
		ap.seed = var->have_seed ? var->seed : p->seed;
		ap.stop_after = var->stop_after;
		ap.max_tests = var->max_tests;
		ap.restarts = var->restarts;
		struct traj tj;
		memset(&tj, 0, sizeof tj);
		tj.v = var;
		if (var->ncheck || var->raw) {
			ap.observe = observe;
			ap.observe_arg = &tj;
			ap.width = 1; /* one simulation per test */
		}
		int sga = strcmp(var->algorithm, "sga") == 0;
		tj.track = var->raw;
		if (var->raw && sga) {
			tj.sample = malloc(sizeof *tj.sample * (n ? n : 1));
			if (!tj.sample) {
				rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
				goto out;
			}
		}
		struct alloc_result res;
		double t0 = now_s();
		int arc = alloc_run(sp, &ap, &res);
		double dt = now_s() - t0;
		if (arc < 0) {
			free(tj.sample);
			rc = exp_fail(err, errlen, EXP_ERUN,
			          "job %zu (%s %s, %u cpus): %s failed (%d)", job,
			          p->path ? "trace" : s->fam[p->fam].name, opts,
			          c->sim.cpus, var->name, arc);
			goto out;
		}
		/* raw: the floor is binpacking on the algorithm's machine
		 * (res.binpack), SGA's order that machine's times */
		if (var->raw && res.status == SIM_OK && sga) {
			const uint64_t *tm = bpr->time;
			uint64_t *own = NULL;
			if (ap.sim.cpus != c->sim.cpus) {
				own = malloc(sizeof *own * (n ? n : 1));
				if (!own || alloc_thread_times(sp, w, &ap.sim,
				                               var->binpack_input, own)) {
					free(own);
					free(tj.sample);
					alloc_result_release(&res);
					rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
					goto out;
				}
				tm = own;
			}
			res.status = sga_raw(tr, &tj, ap.sim.cpus, tm,
			                     res.binpack_status, res.binpack,
			                     &res.makespan);
			free(own);
		} else if (var->raw && res.status == SIM_OK)
			res.status = runs_raw(&tj, res.binpack_status, res.binpack,
			                      &res.makespan);
		free(tj.sample);
		tj.sample = NULL;
		if (var->raw) {
			if (res.status == SIM_ENOMEM) {
				alloc_result_release(&res);
				rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
				goto out;
			}
		}
		const char *model = sim_model_name(res.model);
		for (size_t k = 0; k < var->ncheck; k++) {
			int have = k < tj.next ? tj.have_at[k] : tj.have;
			sim_time at = k < tj.next ? tj.at[k] : tj.best;
			uint64_t used = k < tj.next ? var->check[k] : tj.tests;
			lead(&t, job, s, j, n, model);
			char m[48];
			put(&t, "%s@%llu,%s,%llu,", var->name,
			    (unsigned long long)var->check[k],
			    have ? sim_time_format_dec(at, m, sizeof m) : "",
			    (unsigned long long)used);
			tail(&t, &r, bpr, have ? SIM_OK : SIM_DEADLOCK, at);
			if (secs)
				secs[row] = 0;
			row++;
		}
		lead(&t, job, s, j, n, model);
		char m[48];
		put(&t, "%s,%s,%llu,%s", var->name,
		    fmt_ms(res.status, res.makespan, m, sizeof m),
		    (unsigned long long)res.tests, alloc_stop_name(res.stop));
		tail(&t, &r, bpr, res.status, res.makespan);
		if (secs)
			secs[row] = dt + (row == 0 ? tbound : 0);
		row++;
		alloc_result_release(&res);
	}
	if (s->unbound) {
		struct sim_params u = c->sim;
		u.mode = SIM_UNBOUND;
		struct sim_result sr;
		double t0 = now_s();
		st = sim_run(sp, w, &u, NULL, 0, &sr);
		double dt = now_s() - t0;
		lead(&t, job, s, j, n, sim_model_name(sr.model));
		char m[48];
		put(&t, "unbound,%s,0,", fmt_ms(st, sr.makespan, m, sizeof m));
		struct bpref *bpr = &bp[s->binpack_input];
		if (bpref_get(bpr, sp, w, &c->sim, s->binpack_input, b)) {
			rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
			goto out;
		}
		tail(&t, &r, bpr, st, sr.makespan);
		if (secs)
			secs[row] = dt + (row == 0 ? tbound : 0);
		row++;
	}
	if (t.oom) {
		rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
		goto out;
	}
	if (!t.buf) { /* no rows: cannot happen for a valid spec */
		t.buf = calloc(1, 1);
		if (!t.buf)
			rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
	}
	*rows = t.buf;
	t.buf = NULL;
out:
	mach_model_release(&mm);
	for (size_t i = 0; i < sizeof bp / sizeof *bp; i++)
		free(bp[i].time);
	free(t.buf);
	free(b);
	sim_work_free(w);
	sim_program_free(sp);
	trace_free(tr);
	return rc;
}
