/*
 * test_gen.c - the program generator (gen/gen.h).
 *
 * Expectations come from the papers (Paper IV Sect. 3 and 5, Paper V
 * Sect. 3.2, Paper VII Sect. 7.2, Paper I Sect. 5), from hand-worked
 * replays, and from independent computations in this file (a brute-force
 * sieve, a per-thread replay of the locking hierarchy); the distribution
 * tests compare with analytic expectations within a few standard errors.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gen/gen.h"
#include "gen/genint.h"
#include "sim/sim.h"
#include "tests/testutil.h"
#include "trace/trace.h"

/* ---------------------------------------------------------------------
 * Helpers
 */

/* opts: "name=value name=value ..." */
static void mkopts(struct gen_opts *o, uint32_t threads, uint64_t seed,
                   const char *opts)
{
	gen_opts_init(o);
	o->threads = threads;
	o->seed = seed;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", opts ? opts : "");
	for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
		char *eq = strchr(tok, '=');
		assert_non_null(eq);
		*eq = 0;
		assert_int_equal(gen_opts_set(o, tok, eq + 1), 0);
	}
}

static char *gen_ok(const char *family, uint32_t threads, uint64_t seed,
                    const char *opts, size_t *len, struct gen_info *info)
{
	struct gen_opts o;
	mkopts(&o, threads, seed, opts);
	char *text = NULL, err[512];
	size_t n = 0;
	int rc = gen_generate(family, &o, &text, &n, info, err, sizeof err);
	if (rc != GEN_OK)
		fail_msg("%s threads=%u seed=%llu %s: %s", family, threads,
		         (unsigned long long)seed, opts ? opts : "", err);
	assert_non_null(text);
	assert_int_equal(strlen(text), n);
	if (len)
		*len = n;
	return text;
}

/* Generate and parse; checks the counters against the parsed trace. */
static struct trace *gen_parse(const char *family, uint32_t threads,
                               uint64_t seed, const char *opts,
                               struct gen_info *info_out)
{
	struct gen_info info;
	size_t len;
	char *text = gen_ok(family, threads, seed, opts, &len, &info);
	struct trace *tr = NULL;
	struct trace_error err;
	if (trace_read_mem("gen.trace", text, len, &tr, &err) != 0) {
		fprintf(stderr, "%s\n", text);
		fail_msg("%s threads=%u seed=%llu %s: invalid trace: %s",
		         family, threads, (unsigned long long)seed,
		         opts ? opts : "", err.msg);
	}
	free(text);
	uint64_t v;
	assert_int_equal(gen_info_get(&info, "threads", &v), 0);
	assert_int_equal(v, tr->nthreads);
	if (threads)
		assert_int_equal(tr->nthreads, threads);
	assert_int_equal(gen_info_get(&info, "records", &v), 0);
	assert_int_equal(v, tr->nrec);
	assert_int_equal(gen_info_get(&info, "work", &v), 0);
	assert_int_equal(v, trace_total_work(tr));
	if (info_out)
		*info_out = info;
	return tr;
}

static uint64_t count_op(const struct trace *tr, int op)
{
	uint64_t n = 0;
	for (size_t i = 0; i < tr->nrec; i++)
		n += tr->rec[i].op == op;
	return n;
}

static uint64_t thread_count_op(const struct trace *tr, uint32_t t, int op)
{
	uint64_t n = 0;
	const struct trace_thread *th = &tr->threads[t];
	for (uint32_t i = 0; i < th->nrec; i++)
		n += tr->rec[th->first + i].op == op;
	return n;
}

/* Critical path: one processor per thread, latency 0. */
static sim_time critical_path(const struct trace *tr)
{
	struct sim_program *p = sim_program_new(tr);
	assert_non_null(p);
	struct sim_work *w = sim_work_new(p);
	assert_non_null(w);
	struct sim_params par;
	sim_params_init(&par);
	sim_time t;
	assert_int_equal(sim_makespan(p, w, &par, NULL, &t), SIM_OK);
	sim_work_free(w);
	sim_program_free(p);
	return t;
}

/* ---------------------------------------------------------------------
 * Every family's output is a valid trace, for many seeds and sizes.
 */
struct vcase {
	const char *family;
	uint32_t threads;
	const char *opts;
	int seeds;
};

static const struct vcase vcases[] = {
	{"transactions", 1, "", 10},
	{"transactions", 2, "", 10},
	{"transactions", 3, "", 40},
	{"transactions", 5, "", 30},
	{"transactions", 4, "impossible=other", 20},
	{"transactions", 7, "release=random", 20},
	{"transactions", 9, "choose=any", 20},
	{"transactions", 9, "choose=any impossible=other release=random", 10},
	{"transactions", 16, "", 40},
	{"transactions", 16, "primitive=mutex quantum=0", 10},
	{"transactions", 16, "main=idle quantum=1", 10},
	{"transactions", 37, "impossible=other release=random", 10},
	{"transactions", 12, "groups=12 sections=12", 5},
	{"transactions", 12, "groups=1 min-exp=3 max-exp=3 continue=0.99", 5},
	{"transactions", 9, "continue=0 enter=1", 5},
	{"transactions", 9, "continue=1e-9 enter=0 unit=us names=0 header=0",
	 5},
	{"pipeline", 0, "limit=2", 1},
	{"pipeline", 0, "limit=3", 1},
	{"pipeline", 0, "limit=30 capacity=0", 1},
	{"pipeline", 0, "limit=30 capacity=3 lock=mutex join=main", 1},
	{"pipeline", 0, "limit=50 quantum=0", 1},
	{"pipeline", 0, "limit=50 quantum=1 lock=mutex", 1},
	{"pipeline", 0, "", 1},
	{"pipeline", 10, "", 1},
	{"forkjoin", 1, "", 3},
	{"forkjoin", 2, "serial=0", 3},
	{"forkjoin", 8, "", 5},
	{"forkjoin", 13, "phases=7 skew=static imbalance=3 init=50", 5},
	{"forkjoin", 5, "quantum=0 phases=2", 3},
	{"prodcons", 0, "producers=5 consumers=3 items=4", 3},
	{"prodcons", 0, "producers=5 consumers=3 items=4 buffers=4", 3},
	{"prodcons", 0, "producers=6 consumers=4 items=2 take=1 buffers=3", 3},
	{"prodcons", 0, "producers=3 consumers=7 items=2 quantum=0", 3},
	{"prodcons", 10, "", 2},
	{"prodcons", 0, "", 1},
	{"prodcons", 0, "buffers=100", 1},
	{"worstcase", 0, "", 1},
	{"worstcase", 5, "l=7 e=0 quantum=1", 1},
	{"dag", 1, "", 3},
	{"dag", 3, "width=5 depth=4 edge-prob=0.5", 10},
	{"dag", 8, "", 10},
	{"dag", 6, "mapping=random width=9 depth=6 edge-prob=0.4", 10},
	{"dag", 4, "edge-prob=1 quantum=0", 3},
	{"dag", 4, "edge-prob=0 work-min=5 work-max=5", 3},
};

static void test_valid(void **state)
{
	(void)state;
	size_t programs = 0;
	for (size_t i = 0; i < sizeof vcases / sizeof vcases[0]; i++) {
		const struct vcase *c = &vcases[i];
		for (int s = 1; s <= c->seeds; s++) {
			struct trace *tr = gen_parse(c->family, c->threads,
			                             (uint64_t)s * 7919, c->opts,
			                             NULL);
			/* every thread ends with exit, thread 1 exists */
			assert_true(trace_thread_index(tr, 1) >= 0);
			trace_free(tr);
			programs++;
		}
	}
	assert_true(programs > 300);
}

/* Every family also at its defaults, through gen_trace. */
static void test_defaults(void **state)
{
	(void)state;
	for (size_t i = 0; i < gen_family_count(); i++) {
		const struct gen_family *f = gen_family_at(i);
		struct gen_opts o;
		gen_opts_init(&o);
		struct trace *tr = NULL;
		char err[512];
		int rc = gen_trace(f->name, &o, &tr, NULL, err, sizeof err);
		if (rc != GEN_OK)
			fail_msg("%s: %s", f->name, err);
		if (f->def_threads)
			assert_int_equal(tr->nthreads, f->def_threads);
		trace_free(tr);
		assert_ptr_equal(gen_family_find(f->name), f);
	}
	assert_int_equal(gen_family_count(), 6);
	assert_null(gen_family_find("nope"));
	assert_null(gen_family_at(6));
}

/* ---------------------------------------------------------------------
 * Determinism
 */
static void test_deterministic(void **state)
{
	(void)state;
	const char *fams[] = {"transactions", "forkjoin", "dag", "prodcons"};
	for (size_t f = 0; f < 4; f++) {
		size_t l1, l2, l3;
		const char *opts =
			f == 3 ? "producers=8 consumers=5 items=3 buffers=2" : "";
		char *a = gen_ok(fams[f], f == 3 ? 0 : 9, 42, opts, &l1, NULL);
		char *b = gen_ok(fams[f], f == 3 ? 0 : 9, 42, opts, &l2, NULL);
		char *c = gen_ok(fams[f], f == 3 ? 0 : 9, 43, opts, &l3, NULL);
		assert_int_equal(l1, l2);
		assert_memory_equal(a, b, l1);
		if (f != 3) /* prodcons draws nothing at random */
			assert_true(l1 != l3 || memcmp(a, c, l1) != 0);
		free(a);
		free(b);
		free(c);
	}
	/* derived seeds depend on (seed, i) only and differ */
	assert_int_equal(gen_seed_derive(5, 1), gen_seed_derive(5, 1));
	assert_true(gen_seed_derive(5, 1) != gen_seed_derive(5, 2));
	assert_true(gen_seed_derive(5, 1) != gen_seed_derive(6, 1));
}

/* The header's command line reproduces the program byte for byte. */
static void test_header_reproduces(void **state)
{
	(void)state;
	size_t len;
	char *text = gen_ok("transactions", 11, 99, "release=random enter=0.25",
	                    &len, NULL);
	const char *h = strstr(text, "# progen ");
	assert_non_null(h);
	const char *end = strchr(h, '\n');
	char line[1024];
	snprintf(line, sizeof line, "%.*s", (int)(end - h - 9), h + 9);
	struct gen_opts o;
	gen_opts_init(&o);
	char *family = NULL;
	char *save = NULL;
	for (char *k = strtok_r(line, " ", &save); k;
	     k = strtok_r(NULL, " ", &save)) {
		char *v = strtok_r(NULL, " ", &save);
		assert_non_null(v);
		assert_true(k[0] == '-' && k[1] == '-');
		k += 2;
		if (!strcmp(k, "family"))
			family = v;
		else if (!strcmp(k, "threads"))
			o.threads = (uint32_t)strtoul(v, NULL, 10);
		else if (!strcmp(k, "seed"))
			o.seed = strtoull(v, NULL, 10);
		else
			assert_int_equal(gen_opts_set(&o, k, v), 0);
	}
	assert_string_equal(family, "transactions");
	char *again, err[256];
	size_t len2;
	assert_int_equal(gen_generate(family, &o, &again, &len2, NULL, err,
	                              sizeof err),
	                 GEN_OK);
	assert_int_equal(len, len2);
	assert_memory_equal(text, again, len);
	free(text);
	free(again);
}

/* ---------------------------------------------------------------------
 * transactions: structure (per trace) and the papers' distributions.
 */

/* Group of a thread from its name "txn_gK" / "main_gK"; 0 if none. */
static uint32_t group_of(const struct trace *tr, uint32_t t)
{
	const char *n = trace_thread_name(tr, t);
	const char *g = n ? strstr(n, "_g") : NULL;
	return g ? (uint32_t)strtoul(g + 2, NULL, 10) : 0;
}

/* Per-thread replay of the locking hierarchy, the group rule, and the
 * record shape; returns the number of groups seen. */
static uint32_t check_transactions(const struct trace *tr, uint32_t n,
                                   int mutex)
{
	uint32_t nobj = tr->nobj[mutex ? TRACE_K_MUTEX : TRACE_K_SEM];
	uint32_t *owner_group = calloc(nobj, sizeof *owner_group);
	unsigned char *seen = calloc(n + 1, 1);
	unsigned char *held = calloc(nobj, 1);
	assert_non_null(owner_group);
	assert_non_null(seen);
	assert_non_null(held);
	uint32_t groups = 0;
	int acq = mutex ? TRACE_LOCK : TRACE_WAIT;
	int rel = mutex ? TRACE_UNLOCK : TRACE_POST;
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		uint32_t g = group_of(tr, t);
		if (g == 0) {
			/* main=idle: thread 1 "main" only creates and joins */
			assert_int_equal(t, 0);
			assert_string_equal(trace_thread_name(tr, t), "main");
			assert_int_equal(thread_count_op(tr, t, acq), 0);
			continue;
		}
		assert_true(g >= 1 && g <= n);
		if (!seen[g]) {
			seen[g] = 1;
			groups++;
		}
		const struct trace_thread *th = &tr->threads[t];
		int64_t top = -1; /* highest held external id */
		uint32_t nheld = 0;
		memset(held, 0, nobj);
		for (uint32_t i = 0; i < th->nrec; i++) {
			const struct trace_rec *r = &tr->rec[th->first + i];
			if (r->op != acq && r->op != rel)
				continue;
			uint32_t id = tr->obj_id[mutex ? TRACE_K_MUTEX
			                               : TRACE_K_SEM][r->a];
			/* a section belongs to one group */
			if (owner_group[r->a] == 0)
				owner_group[r->a] = g;
			assert_int_equal(owner_group[r->a], g);
			if (r->op == acq) {
				/* enter only above every held section */
				assert_true((int64_t)id > top);
				assert_false(held[r->a]);
				held[r->a] = 1;
				nheld++;
				top = id;
			} else {
				assert_true(held[r->a]);
				held[r->a] = 0;
				nheld--;
				top = -1;
				for (uint32_t k = 0; k < nobj; k++)
					if (held[k] &&
					    (int64_t)tr->obj_id[mutex ? TRACE_K_MUTEX
					                              : TRACE_K_SEM][k] >
					            top)
						top = tr->obj_id
							[mutex ? TRACE_K_MUTEX
							       : TRACE_K_SEM][k];
			}
		}
		assert_int_equal(nheld, 0); /* released everything */
	}
	free(owner_group);
	free(seen);
	free(held);
	return groups;
}

static void test_transactions_structure(void **state)
{
	(void)state;
	static const struct {
		uint32_t n;
		const char *opts;
		int mutex;
	} cases[] = {
		{3, "", 0},
		{16, "", 0},
		{16, "release=random", 0},
		{16, "impossible=other", 0},
		{16, "choose=any", 0},
		{16, "primitive=mutex", 1},
		{10, "main=idle", 0},
		{30, "groups=5", 0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (uint64_t seed = 1; seed <= 15; seed++) {
			struct gen_info info;
			struct trace *tr = gen_parse("transactions", cases[c].n,
			                             seed, cases[c].opts, &info);
			uint32_t g = check_transactions(tr, cases[c].n,
			                                cases[c].mutex);
			uint64_t v;
			gen_info_get(&info, "groups", &v);
			assert_int_equal(g, v);
			if (strstr(cases[c].opts, "groups=5"))
				assert_int_equal(g, 5);
			/* the counters agree with the records */
			int acq = cases[c].mutex ? TRACE_LOCK : TRACE_WAIT;
			int rel = cases[c].mutex ? TRACE_UNLOCK : TRACE_POST;
			uint64_t entries, exits, releases;
			gen_info_get(&info, "entries", &entries);
			gen_info_get(&info, "exits", &exits);
			gen_info_get(&info, "releases", &releases);
			assert_int_equal(count_op(tr, acq), entries);
			assert_int_equal(count_op(tr, rel), exits + releases);
			/* thread 1 creates and joins all others */
			assert_int_equal(count_op(tr, TRACE_CREATE),
			                 cases[c].n - 1);
			assert_int_equal(thread_count_op(tr, 0, TRACE_JOIN),
			                 cases[c].n - 1);
			trace_free(tr);
		}
}

/*
 * The papers' distributions, N = 16 threads, M programs:
 *  - groups G uniform in 1..N/2: mean (1 + 8)/2 = 4.5, variance
 *    (8^2 - 1)/12 = 5.25; every value occurs;
 *  - sections C uniform in 2N..3N: mean 2.5N = 40, variance
 *    ((N+1)^2 - 1)/12 = 24; 32 <= C <= 48;
 *  - a segment is 2^x, x uniform in 0..15: mean (2^16 - 1)/16 =
 *    4095.9375, variance (4^16 - 1)/48 - mean^2;
 *  - steps per thread geometric with continuation 15/16: mean 16,
 *    variance (15/16)/(1/16)^2 = 240; termination probability 1/16.
 * Tolerance: 4.5 standard errors.
 */
static void test_transactions_distributions(void **state)
{
	(void)state;
	const uint32_t n = 16;
	const int m = 400;
	double sum_g = 0, sum_c = 0, sum_it = 0;
	double work = 0, segments = 0, threads = 0;
	int gcount[9] = {0};
	uint32_t cmin = UINT32_MAX, cmax = 0;
	for (int s = 1; s <= m; s++) {
		struct gen_info info;
		size_t len;
		char *text = gen_ok("transactions", n, (uint64_t)s, "", &len,
		                    &info);
		/* sections: the `sem` lines, every one with one token */
		uint32_t c = 0;
		for (const char *q = strstr(text, "\nsem "); q;
		     q = strstr(q + 1, "\nsem ")) {
			const char *eol = strchr(q + 1, '\n');
			assert_memory_equal(eol - 2, " 1", 2);
			c++;
		}
		free(text);
		struct trace *tr = gen_parse("transactions", n, (uint64_t)s,
		                             "", &info);
		uint32_t g = check_transactions(tr, n, 0);
		assert_true(g >= 1 && g <= n / 2);
		gcount[g]++;
		sum_g += g;
		uint64_t declared;
		gen_info_get(&info, "sections", &declared);
		assert_int_equal(c, declared);
		cmin = c < cmin ? c : cmin;
		cmax = c > cmax ? c : cmax;
		sum_c += c;
		uint64_t seg, it;
		gen_info_get(&info, "segments", &seg);
		gen_info_get(&info, "iterations", &it);
		segments += (double)seg;
		sum_it += (double)it;
		work += (double)trace_total_work(tr);
		threads += tr->nthreads;
		trace_free(tr);
	}
	double mg = sum_g / m, se_g = sqrt(5.25 / m);
	assert_true(fabs(mg - 4.5) < 4.5 * se_g);
	for (int g = 1; g <= 8; g++)
		assert_true(gcount[g] > 0);
	double mc = sum_c / m, se_c = sqrt(24.0 / m);
	assert_true(fabs(mc - 2.5 * n) < 4.5 * se_c);
	assert_true(cmin >= 2 * n && cmax <= 3 * n);
	double mean_seg = 65535.0 / 16;
	double var_seg = 4294967295.0 / 48 - mean_seg * mean_seg;
	double ms = work / segments;
	assert_true(fabs(ms - mean_seg) < 4.5 * sqrt(var_seg / segments));
	double mit = sum_it / threads;
	assert_true(fabs(mit - 16) < 4.5 * sqrt(240 / threads));
	print_message("transactions N=16, %d programs: groups %.3f (4.5), "
	              "sections/thread %.4f (2.5), segment work %.1f "
	              "(4095.9), steps/thread %.3f (16), termination %.5f "
	              "(0.0625)\n",
	              m, mg, mc / n, ms, mit, threads / sum_it);
}

/*
 * impossible=other: every step makes a record, so each record of a
 * worker (wait, post, exit) carries exactly one segment 2^x: check x's
 * distribution from the trace alone (chi-square, 15 degrees of freedom,
 * 99.9% quantile 37.7), the mean work, and the number of segments per
 * thread against 16 steps + releases + 1.
 */
static void test_transactions_segments(void **state)
{
	(void)state;
	uint64_t hist[16] = {0}, nseg = 0;
	double work = 0;
	for (uint64_t s = 1; s <= 150; s++) {
		struct trace *tr = gen_parse("transactions", 12, s,
		                             "impossible=other", NULL);
		for (uint32_t t = 1; t < tr->nthreads; t++) { /* workers */
			const struct trace_thread *th = &tr->threads[t];
			for (uint32_t i = 0; i < th->nrec; i++) {
				uint64_t w = tr->rec[th->first + i].work;
				assert_true(w >= 1 && w <= 32768);
				assert_int_equal(w & (w - 1), 0);
				int x = 0;
				while ((1ull << x) < w)
					x++;
				hist[x]++;
				nseg++;
				work += (double)w;
			}
		}
		trace_free(tr);
	}
	double e = (double)nseg / 16, chi = 0;
	for (int x = 0; x < 16; x++)
		chi += ((double)hist[x] - e) * ((double)hist[x] - e) / e;
	assert_true(chi < 37.7);
	double mean_seg = 65535.0 / 16;
	double var_seg = 4294967295.0 / 48 - mean_seg * mean_seg;
	assert_true(fabs(work / (double)nseg - mean_seg) <
	            4.5 * sqrt(var_seg / (double)nseg));
}

/* Termination: a thread stops after each step with probability 1/16, so
 * P(exactly one step) = 1/16 and the mean is 16 (one-thread programs;
 * steps as counted by the generator). */
static void test_transactions_termination(void **state)
{
	(void)state;
	const int m = 3000;
	int one = 0;
	double sum = 0;
	for (int s = 1; s <= m; s++) {
		struct gen_info info;
		size_t len;
		char *text = gen_ok("transactions", 1, (uint64_t)s, "", &len,
		                    &info);
		uint64_t it;
		gen_info_get(&info, "iterations", &it);
		one += it == 1;
		sum += (double)it;
		free(text);
	}
	/* binomial: p = 1/16, sd = sqrt(p(1-p)/m) */
	double p = (double)one / m, sd = sqrt(1.0 / 16 * 15 / 16 / m);
	assert_true(fabs(p - 1.0 / 16) < 4.5 * sd);
	assert_true(fabs(sum / m - 16) < 4.5 * sqrt(240.0 / m));
}

/* ---------------------------------------------------------------------
 * worstcase (Paper IV Sect. 3)
 */

/* Lines of a trace text without comments and blank lines. */
static char *strip(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1);
	assert_non_null(out);
	size_t o = 0;
	const char *s = text;
	while (*s) {
		size_t l = strcspn(s, "\n");
		size_t k = 0;
		for (; k < l; k++)
			if (s[k] == '#' && (k == 0 || s[k - 1] == ' ' ||
			                    s[k - 1] == '\t'))
				break;
		while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
			k--;
		if (k > 0) {
			memcpy(out + o, s, k);
			o += k;
			out[o++] = '\n';
		}
		s += l;
		if (*s)
			s++;
	}
	out[o] = 0;
	return out;
}

static void test_worstcase_example(void **state)
{
	(void)state;
	char path[1024];
	char *ex = tu_slurp(
		tu_shared("examples/binpack-worst-case.trace", path,
		          sizeof path), NULL);
	if (!ex)
		fail_msg("cannot read %s", path);
	char *text = gen_ok("worstcase", 0, 1, "l=1000 e=10", NULL, NULL);
	char *a = strip(ex), *b = strip(text);
	assert_string_equal(b, a);
	free(a);
	free(b);
	free(ex);
	free(text);
}

static void test_worstcase_structure(void **state)
{
	(void)state;
	static const uint64_t le[][2] = {{1000, 10}, {100, 1}, {5000, 0},
	                                 {77, 3}};
	for (size_t i = 0; i < 4; i++) {
		char opts[64];
		uint64_t l = le[i][0], e = le[i][1];
		snprintf(opts, sizeof opts, "l=%llu e=%llu",
		         (unsigned long long)l, (unsigned long long)e);
		struct trace *tr = gen_parse("worstcase", 0, 1, opts, NULL);
		assert_int_equal(tr->nthreads, 5);
		/* T1..T4 = threads 2..5: l+3e, l, l+e, l+2e; main 0 */
		uint64_t want[5] = {0, l + 3 * e, l, l + e, l + 2 * e};
		for (uint32_t t = 0; t < 5; t++)
			assert_int_equal(trace_thread_work(tr, t), want[t]);
		/* binpacking {1,2,3},{4,5}: 4l+6e; best {1,2,5},{3,4}:
		 * 2l+5e; one processor each: T4 starts after T1, l+3e +
		 * l+2e = 2l+5e */
		struct sim_program *p = sim_program_new(tr);
		struct sim_work *w = sim_work_new(p);
		assert_non_null(w);
		struct sim_params par;
		sim_params_init(&par);
		par.cpus = 2;
		static const int32_t bp[5] = {0, 0, 0, 1, 1};
		static const int32_t best[5] = {0, 0, 1, 1, 0};
		for (int pol = 0; pol < 2; pol++) {
			par.policy = pol ? SIM_FIFO : SIM_PS;
			sim_time t;
			assert_int_equal(sim_makespan(p, w, &par, bp, &t),
			                 SIM_OK);
			assert_int_equal(t.den, 1);
			assert_int_equal(t.num, 4 * l + 6 * e);
			assert_int_equal(sim_makespan(p, w, &par, best, &t),
			                 SIM_OK);
			assert_int_equal(t.den, 1);
			assert_int_equal(t.num, 2 * l + 5 * e);
		}
		sim_work_free(w);
		sim_program_free(p);
		sim_time cp = critical_path(tr);
		assert_int_equal(cp.num, 2 * l + 5 * e);
		trace_free(tr);
	}
}

/* ---------------------------------------------------------------------
 * pipeline (Paper VII Sect. 7.2)
 */

/* Brute force: smallest prime factor. */
static uint64_t spf(uint64_t n)
{
	for (uint64_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return d;
	return n;
}

static void test_pipeline(void **state)
{
	(void)state;
	static const uint64_t limits[] = {2, 3, 10, 100, 397};
	for (size_t i = 0; i < 5; i++) {
		uint64_t limit = limits[i];
		char opts[128];
		/* only filter-work: a filter's work counts its tests */
		snprintf(opts, sizeof opts,
		         "limit=%llu gen-work=0 filter-work=1 send-work=0 "
		         "recv-work=0",
		         (unsigned long long)limit);
		struct trace *tr = gen_parse("pipeline", 0, 1, opts, NULL);
		uint64_t primes = 0;
		for (uint64_t n = 2; n <= limit; n++)
			primes += spf(n) == n;
		assert_int_equal(tr->nthreads, primes + 1);
		if (limit == 397)
			assert_int_equal(tr->nthreads, 79);
		assert_string_equal(trace_thread_name(tr, 0), "generator");
		/* filter k (thread k+1) has the k-th prime p and tests every
		 * n in (p, limit] with no prime factor below p */
		uint32_t t = 1;
		for (uint64_t p = 2; p <= limit; p++) {
			if (spf(p) != p)
				continue;
			char name[32];
			snprintf(name, sizeof name, "filter_%llu",
			         (unsigned long long)p);
			assert_string_equal(trace_thread_name(tr, t), name);
			uint64_t tests = 0;
			for (uint64_t n = p + 1; n <= limit; n++)
				tests += spf(n) >= p;
			assert_int_equal(trace_thread_work(tr, t), tests);
			/* each filter but the last creates the next */
			assert_int_equal(thread_count_op(tr, t, TRACE_CREATE),
			                 t + 1 < tr->nthreads ? 1 : 0);
			t++;
		}
		assert_int_equal(thread_count_op(tr, 0, TRACE_CREATE), 1);
		trace_free(tr);
	}
	/* --threads N picks the limit: the (N-1)-th prime */
	struct trace *tr = gen_parse("pipeline", 79, 1, "", NULL);
	assert_string_equal(trace_thread_name(tr, 78), "filter_397");
	trace_free(tr);
	size_t l1, l2;
	char *a = gen_ok("pipeline", 79, 1, "header=0", &l1, NULL);
	char *b = gen_ok("pipeline", 0, 1, "limit=397 header=0", &l2, NULL);
	assert_int_equal(l1, l2);
	assert_memory_equal(a, b, l1);
	free(a);
	free(b);
}

/* Chain of hand-overs: with capacity 0 (no back-pressure), 1 filter per
 * prime, only generator work g per number and no other work, the
 * critical path is the generator's: (limit - 1) * g.  With filter work f
 * per test and g = 0, the critical path is at least the busiest filter
 * (filter 2 tests limit - 2 numbers: (limit - 2) * f). */
static void test_pipeline_critical_path(void **state)
{
	(void)state;
	struct trace *tr = gen_parse("pipeline", 0, 1,
	                             "limit=60 capacity=0 gen-work=10 "
	                             "filter-work=0 send-work=0 recv-work=0",
	                             NULL);
	sim_time cp = critical_path(tr);
	assert_int_equal(cp.den, 1);
	assert_int_equal(cp.num, 59 * 10);
	trace_free(tr);
	tr = gen_parse("pipeline", 0, 1,
	               "limit=60 gen-work=0 filter-work=3 send-work=0 "
	               "recv-work=0",
	               NULL);
	cp = critical_path(tr);
	assert_true(cp.num >= 58 * 3 * cp.den);
	assert_true(cp.num <= trace_total_work(tr) * cp.den);
	trace_free(tr);
}

/* ---------------------------------------------------------------------
 * forkjoin
 */
static void test_forkjoin(void **state)
{
	(void)state;
	/* no imbalance: every part is `work`; thread 1 also does init and
	 * serial per phase; critical path = init + phases*(work + serial) */
	static const struct {
		uint32_t n;
		uint64_t phases, work, serial, init;
	} cases[] = {{1, 3, 100, 10, 0}, {4, 5, 1000, 0, 7},
	             {8, 4, 10000, 1000, 500}, {3, 1, 1, 1, 1}};
	for (size_t i = 0; i < 4; i++) {
		char opts[160];
		snprintf(opts, sizeof opts,
		         "imbalance=0 phases=%llu work=%llu serial=%llu "
		         "init=%llu",
		         (unsigned long long)cases[i].phases,
		         (unsigned long long)cases[i].work,
		         (unsigned long long)cases[i].serial,
		         (unsigned long long)cases[i].init);
		struct trace *tr = gen_parse("forkjoin", cases[i].n, 3, opts,
		                             NULL);
		uint64_t ph = cases[i].phases, w = cases[i].work;
		uint64_t s = cases[i].serial, in = cases[i].init;
		assert_int_equal(trace_thread_work(tr, 0),
		                 in + ph * (w + s));
		for (uint32_t t = 1; t < tr->nthreads; t++) {
			assert_int_equal(trace_thread_work(tr, t), ph * w);
			assert_int_equal(thread_count_op(tr, t, TRACE_BARRIER),
			                 ph * (s ? 2 : 1));
		}
		sim_time cp = critical_path(tr);
		assert_int_equal(cp.num, in + ph * (w + s));
		trace_free(tr);
	}
	/* imbalance: each part in [work, work*(1+imbalance)]; static skew:
	 * a thread's parts are all equal */
	struct trace *tr = gen_parse("forkjoin", 6, 5,
	                             "imbalance=0.5 work=1000 serial=0 "
	                             "phases=6 skew=static",
	                             NULL);
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		const struct trace_thread *th = &tr->threads[t];
		uint64_t first = UINT64_MAX;
		for (uint32_t i = 0; i < th->nrec; i++) {
			const struct trace_rec *r = &tr->rec[th->first + i];
			if (r->op != TRACE_BARRIER)
				continue;
			assert_true(r->work >= 1000 && r->work <= 1500);
			if (first == UINT64_MAX)
				first = r->work;
			assert_int_equal(r->work, first);
		}
	}
	trace_free(tr);
}

/* ---------------------------------------------------------------------
 * prodcons (Paper I Sect. 5)
 */
static void test_prodcons(void **state)
{
	(void)state;
	/* the paper's program: 150 producers x 10 items, 75 consumers, one
	 * semaphore, one mutex */
	struct trace *tr = gen_parse("prodcons", 0, 1, "", NULL);
	assert_int_equal(tr->nthreads, 1 + 150 + 75);
	assert_int_equal(tr->nobj[TRACE_K_SEM], 1);
	assert_int_equal(tr->nobj[TRACE_K_MUTEX], 1);
	assert_int_equal(count_op(tr, TRACE_POST), 1500);
	assert_int_equal(count_op(tr, TRACE_WAIT), 1500);
	assert_int_equal(count_op(tr, TRACE_LOCK), 3000);
	for (uint32_t t = 1; t <= 150; t++)
		assert_int_equal(thread_count_op(tr, t, TRACE_POST), 10);
	for (uint32_t t = 151; t <= 225; t++)
		assert_int_equal(thread_count_op(tr, t, TRACE_WAIT), 20);
	trace_free(tr);
	/* improved: 100 buffers, each a semaphore and a mutex, plus the
	 * insert and fetch mutexes; each item: choose + buffer lock on both
	 * sides */
	tr = gen_parse("prodcons", 0, 1, "buffers=100", NULL);
	assert_int_equal(tr->nobj[TRACE_K_SEM], 100);
	assert_int_equal(tr->nobj[TRACE_K_MUTEX], 102);
	assert_int_equal(count_op(tr, TRACE_LOCK), 4 * 1500);
	assert_int_equal(count_op(tr, TRACE_WAIT), 1500);
	trace_free(tr);
	/* --take and --threads */
	tr = gen_parse("prodcons", 0, 1, "producers=4 consumers=3 items=5 take=2",
	               NULL);
	assert_int_equal(count_op(tr, TRACE_WAIT), 6);
	assert_int_equal(count_op(tr, TRACE_POST), 20);
	trace_free(tr);
	tr = gen_parse("prodcons", 31, 1, "items=3", NULL);
	assert_int_equal(count_op(tr, TRACE_POST), 20 * 3); /* 2:1 split */
	trace_free(tr);
}

/* Paper I Sect. 5: on 8 processors (dynamic scheduling) the original
 * program runs only 2.2% faster than on one, the improved one 7.75 times
 * faster (predicted; 7.90 measured).  The default works reproduce this
 * shape: original below 1.05, improved above 7.5. */
static double unbound_makespan(const struct trace *tr, uint32_t cpus)
{
	struct sim_program *p = sim_program_new(tr);
	struct sim_work *w = sim_work_new(p);
	assert_non_null(w);
	struct sim_params par;
	sim_params_init(&par);
	par.cpus = cpus;
	par.mode = SIM_UNBOUND;
	sim_time t;
	assert_int_equal(sim_makespan(p, w, &par, NULL, &t), SIM_OK);
	sim_work_free(w);
	sim_program_free(p);
	return sim_time_to_double(t);
}

static void test_prodcons_speedup(void **state)
{
	(void)state;
	struct trace *tr = gen_parse("prodcons", 0, 1, "", NULL);
	double s = unbound_makespan(tr, 1) / unbound_makespan(tr, 8);
	assert_true(s > 1.0 && s < 1.05);
	/* one processor: the total work */
	assert_true(unbound_makespan(tr, 1) == (double)trace_total_work(tr));
	trace_free(tr);
	tr = gen_parse("prodcons", 0, 1, "buffers=100", NULL);
	s = unbound_makespan(tr, 1) / unbound_makespan(tr, 8);
	assert_true(s > 7.5 && s <= 8.0);
	trace_free(tr);
}

/* ---------------------------------------------------------------------
 * dag
 */
static void test_dag(void **state)
{
	(void)state;
	/* edge-prob 1, width = threads, column mapping, equal work: every
	 * task needs the whole previous level: critical path depth * work */
	struct gen_info info;
	struct trace *tr = gen_parse("dag", 4, 1,
	                             "edge-prob=1 depth=6 work-min=100 "
	                             "work-max=100",
	                             &info);
	uint64_t v;
	gen_info_get(&info, "edges", &v);
	assert_int_equal(v, 5 * 16);
	gen_info_get(&info, "cross_edges", &v);
	assert_int_equal(v, 5 * 12);
	assert_int_equal(count_op(tr, TRACE_WAIT), 60);
	assert_int_equal(count_op(tr, TRACE_POST), 60);
	sim_time cp = critical_path(tr);
	assert_int_equal(cp.num, 600);
	trace_free(tr);
	/* edge-prob 0: independent threads, each (width/threads)*depth
	 * tasks of equal work */
	tr = gen_parse("dag", 3, 1,
	               "edge-prob=0 width=6 depth=5 work-min=7 work-max=7",
	               NULL);
	assert_int_equal(count_op(tr, TRACE_WAIT), 0);
	for (uint32_t t = 0; t < 3; t++)
		assert_int_equal(trace_thread_work(tr, t), 2 * 5 * 7);
	cp = critical_path(tr);
	assert_int_equal(cp.num, 70);
	trace_free(tr);
	/* random mapping: total work = sum of the tasks, in range */
	tr = gen_parse("dag", 5, 9,
	               "mapping=random width=7 depth=9 work-min=10 "
	               "work-max=20",
	               &info);
	uint64_t total = trace_total_work(tr);
	assert_true(total >= 63 * 10 && total <= 63 * 20);
	gen_info_get(&info, "tasks", &v);
	assert_int_equal(v, 63);
	trace_free(tr);
}

/* ---------------------------------------------------------------------
 * Bad options: GEN_EINVAL, one line, nothing returned.
 */
struct bcase {
	const char *family;
	uint32_t threads;
	const char *opts;
	const char *msg; /* a substring of the error */
};

static const struct bcase bcases[] = {
	{"nope", 0, "", "unknown family 'nope'"},
	{"transactions", 4, "bogus=1", "unknown option '--bogus'"},
	{"transactions", 4, "groups=x", "--groups"},
	{"transactions", 4, "groups=-1", "--groups"},
	{"transactions", 4, "groups=5", "more groups"},
	{"transactions", 4, "sections=3", "fewer than"},
	{"transactions", 4, "continue=1.5", "--continue"},
	{"transactions", 4, "continue=nan", "--continue"},
	{"transactions", 4, "enter=", "--enter"},
	{"transactions", 4, "impossible=maybe", "skip|other"},
	{"transactions", 4, "min-exp=5 max-exp=4", "--min-exp"},
	{"transactions", 4, "max-exp=41", "--max-exp"},
	{"transactions", 1, "main=idle", "--main idle"},
	{"transactions", 4, "quantum=1x", "--quantum"},
	{"transactions", 4, "unit=days", "--unit"},
	{"transactions", 4, "names=2", "--names"},
	{"transactions", 2000000, "", "--threads"},
	{"pipeline", 0, "limit=1", "--limit"},
	{"pipeline", 0, "limit=10001", "--limit"},
	{"pipeline", 10, "limit=397", "does not match"},
	{"pipeline", 1, "", "--threads"},
	{"prodcons", 0, "producers=2 consumers=3 items=1 take=1",
	 "more than"},
	{"prodcons", 5, "producers=2 consumers=3", "does not match"},
	{"prodcons", 2, "", "--threads"},
	{"worstcase", 4, "", "5 threads"},
	{"worstcase", 0, "l=0", "--l"},
	{"dag", 4, "width=3000", "--width"},
	{"dag", 4, "work-min=5 work-max=4", "--work-min"},
	{"dag", 4, "mapping=diagonal", "column|random"},
	{"forkjoin", 4, "phases=0", "--phases"},
	{"forkjoin", 4, "imbalance=-1", "--imbalance"},
};

static void test_bad_options(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bcases / sizeof bcases[0]; i++) {
		const struct bcase *c = &bcases[i];
		struct gen_opts o;
		mkopts(&o, c->threads, 1, c->opts);
		char *text = (char *)1, err[512];
		size_t len = 99;
		struct gen_info info;
		info.n = 5;
		int rc = gen_generate(c->family, &o, &text, &len, &info, err,
		                      sizeof err);
		if (rc != GEN_EINVAL)
			fail_msg("%s %s: rc %d, want GEN_EINVAL", c->family,
			         c->opts, rc);
		assert_null(text);
		assert_int_equal(len, 0);
		assert_int_equal(info.n, 0);
		assert_null(strchr(err, '\n'));
		if (!strstr(err, c->msg))
			fail_msg("%s %s: error '%s' lacks '%s'", c->family,
			         c->opts, err, c->msg);
	}
	/* a NULL/zero-length err is allowed */
	struct gen_opts o;
	mkopts(&o, 0, 1, "");
	char *text;
	size_t len;
	assert_int_equal(gen_generate("nope", &o, &text, &len, NULL, NULL, 0),
	                 GEN_EINVAL);
}

static void test_opts(void **state)
{
	(void)state;
	struct gen_opts o;
	gen_opts_init(&o);
	assert_int_equal(o.seed, 1);
	assert_int_equal(o.threads, 0);
	assert_int_equal(gen_opts_set(&o, "groups", "3"), 0);
	assert_int_equal(gen_opts_set(&o, "groups", "4"), 0);
	assert_int_equal(o.nkv, 1);
	assert_string_equal(o.kv[0].value, "4");
	char longv[GEN_VALUE_MAX + 8];
	memset(longv, '1', sizeof longv - 1);
	longv[sizeof longv - 1] = 0;
	assert_int_equal(gen_opts_set(&o, "groups", longv), -1);
	assert_string_equal(o.kv[0].value, "4");
	for (int i = 1; i < GEN_MAX_KV; i++) {
		char k[16];
		snprintf(k, sizeof k, "k%d", i);
		assert_int_equal(gen_opts_set(&o, k, "1"), 0);
	}
	assert_int_equal(gen_opts_set(&o, "one-too-many", "1"), -1);
	assert_int_equal(o.nkv, GEN_MAX_KV);
	uint64_t v = 7;
	struct gen_info in = {0};
	assert_int_equal(gen_info_get(&in, "x", &v), -1);
	assert_int_equal(v, 0);
}

/* ---------------------------------------------------------------------
 * Statistics: the worst case by hand.  One processor per thread: T1 ends
 * at 1030, T2 at 1000; T3 runs 1030..2040, T4 1030..2050; main joins at
 * 2050.  Work 4060, parallelism 4060/2050 = 1.980.
 */
static void test_stats(void **state)
{
	(void)state;
	struct trace *tr = gen_parse("worstcase", 0, 1, "", NULL);
	struct gen_stats st;
	assert_int_equal(gen_stats_compute(tr, &st), GEN_OK);
	assert_int_equal(st.threads, 5);
	assert_int_equal(st.records, 21);
	assert_int_equal(st.work, 4060);
	assert_int_equal(st.sim_status, SIM_OK);
	assert_int_equal(st.critical_path.num, 2050);
	assert_int_equal(st.critical_path.den, 1);
	assert_true(fabs(st.parallelism - 4060.0 / 2050) < 1e-12);
	assert_int_equal(st.ops[TRACE_CREATE], 4);
	assert_int_equal(st.ops[TRACE_EXIT], 5);
	assert_int_equal(st.ops[TRACE_JOIN], 4);
	assert_int_equal(st.ops[TRACE_WAIT], 4);
	assert_int_equal(st.ops[TRACE_POST], 4);
	assert_int_equal(st.ops[TRACE_LOCK], 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gen_stats_print(&st, f);
	fclose(f);
	assert_non_null(strstr(buf, "threads 5\n"));
	assert_non_null(strstr(buf, "records 21\n"));
	assert_non_null(strstr(buf, "work 4060\n"));
	assert_non_null(strstr(buf, "critical_path 2050\n"));
	assert_non_null(strstr(buf, "parallelism 1.980\n"));
	assert_non_null(strstr(buf, "op.create 4\n"));
	assert_non_null(strstr(buf, "op.sleep 0\n"));
	free(buf);
	trace_free(tr);
}

/* ---------------------------------------------------------------------
 * The serializer on hand-built programs (gen/genint.h).
 */
static struct gen_args ser_args(uint64_t quantum)
{
	struct gen_args a;
	memset(&a, 0, sizeof a);
	a.quantum = quantum;
	a.unit = -1;
	return a;
}

static char *ser_ok(const struct gen_prog *p, uint64_t quantum)
{
	struct gen_args a = ser_args(quantum);
	struct gen_buf b = {0};
	char err[256];
	int rc = gen_serialize(p, &a, NULL, &b, err, sizeof err);
	if (rc != GEN_OK)
		fail_msg("serialize: %s", err);
	const char *magic = "shadowbind-trace 1\n";
	assert_memory_equal(b.p, magic, strlen(magic));
	char *s = strdup(b.p + strlen(magic));
	gen_buf_release(&b);
	return s;
}

/*
 * T1: create 2, create 3, [7] wait 1, join 2, join 3, exit
 * T2: [5] post 1, [3] exit;  T3: [4] exit
 * quantum 0: T1 blocks in wait; T2 posts (T1's wait is granted right
 * after) and exits; the woken T1 runs before the ready T3, blocks in
 * join 3; T3 exits.
 * quantum 1: T2 is preempted after its post (5 >= 1, T1 woken), T1 then
 * blocks in join 2, T3 exits, T2 exits.
 */
static void test_serial_order(void **state)
{
	(void)state;
	struct gen_prog p;
	memset(&p, 0, sizeof p);
	assert_int_equal(gen_prog_threads(&p, 3), 0);
	uint32_t s = gen_sem_new(&p, 0);
	gen_create(&p, 1, 2);
	gen_create(&p, 1, 3);
	gen_work(&p, 1, 7);
	gen_wait(&p, 1, s);
	gen_join(&p, 1, 2);
	gen_join(&p, 1, 3);
	gen_exit(&p, 1);
	gen_work(&p, 2, 5);
	gen_post(&p, 2, s);
	gen_work(&p, 2, 3);
	gen_exit(&p, 2);
	gen_work(&p, 3, 4);
	gen_exit(&p, 3);
	char *q0 = ser_ok(&p, 0);
	assert_string_equal(q0, "1 0 create 2\n"
	                        "1 0 create 3\n"
	                        "2 5 post 1\n"
	                        "1 7 wait 1\n"
	                        "2 3 exit\n"
	                        "1 0 join 2\n"
	                        "3 4 exit\n"
	                        "1 0 join 3\n"
	                        "1 0 exit\n");
	char *q1 = ser_ok(&p, 1);
	assert_string_equal(q1, "1 0 create 2\n"
	                        "1 0 create 3\n"
	                        "2 5 post 1\n"
	                        "1 7 wait 1\n"
	                        "3 4 exit\n"
	                        "2 3 exit\n"
	                        "1 0 join 2\n"
	                        "1 0 join 3\n"
	                        "1 0 exit\n");
	free(q0);
	free(q1);
	gen_prog_release(&p);
}

/* A barrier episode is written when the last member arrives, in arrival
 * order; a mutex hand-off writes the waiter's lock right after the
 * unlock. */
static void test_serial_barrier_mutex(void **state)
{
	(void)state;
	struct gen_prog p;
	memset(&p, 0, sizeof p);
	assert_int_equal(gen_prog_threads(&p, 3), 0);
	uint32_t b = gen_barrier_new(&p), m = gen_mutex_new(&p);
	gen_create(&p, 1, 2);
	gen_create(&p, 1, 3);
	gen_work(&p, 1, 1);
	gen_lock(&p, 1, m);
	gen_barrier(&p, 1, b, 3);
	gen_unlock(&p, 1, m);
	gen_join(&p, 1, 2);
	gen_join(&p, 1, 3);
	gen_exit(&p, 1);
	gen_work(&p, 2, 2);
	gen_barrier(&p, 2, b, 3);
	gen_lock(&p, 2, m);
	gen_unlock(&p, 2, m);
	gen_exit(&p, 2);
	gen_work(&p, 3, 3);
	gen_barrier(&p, 3, b, 3);
	gen_exit(&p, 3);
	/*
	 * T1 locks, waits at the barrier; T2 arrives; T3 arrives last: the
	 * episode is written (1, 2, 3), T3 exits.  The woken T1 runs first:
	 * unlock, join 2 blocks; T2 locks (free), unlocks, exits (granting
	 * T1's join 2); T1 joins 3 and exits.
	 */
	char *s = ser_ok(&p, 0);
	assert_string_equal(s, "1 0 create 2\n"
	                       "1 0 create 3\n"
	                       "1 1 lock 1\n"
	                       "1 0 barrier 1 3\n"
	                       "2 2 barrier 1 3\n"
	                       "3 3 barrier 1 3\n"
	                       "3 0 exit\n"
	                       "1 0 unlock 1\n"
	                       "2 0 lock 1\n"
	                       "2 0 unlock 1\n"
	                       "2 0 exit\n"
	                       "1 0 join 2\n"
	                       "1 0 join 3\n"
	                       "1 0 exit\n");
	free(s);
	gen_prog_release(&p);

	/*
	 * Hand-off, quantum 1.  T1: create 2, [5] lock, unlock, join 2,
	 * exit; T2: lock, [2] unlock, exit.  T1 is preempted after its lock
	 * (5 >= 1, T2 ready); T2 blocks in lock; T1's unlock hands the mutex
	 * to T2 (its lock line follows), T1 blocks in join; T2 unlocks and
	 * exits.
	 */
	memset(&p, 0, sizeof p);
	assert_int_equal(gen_prog_threads(&p, 2), 0);
	m = gen_mutex_new(&p);
	gen_create(&p, 1, 2);
	gen_work(&p, 1, 5);
	gen_lock(&p, 1, m);
	gen_unlock(&p, 1, m);
	gen_join(&p, 1, 2);
	gen_exit(&p, 1);
	gen_lock(&p, 2, m);
	gen_work(&p, 2, 2);
	gen_unlock(&p, 2, m);
	gen_exit(&p, 2);
	s = ser_ok(&p, 1);
	assert_string_equal(s, "1 0 create 2\n"
	                       "1 5 lock 1\n"
	                       "1 0 unlock 1\n"
	                       "2 0 lock 1\n"
	                       "2 2 unlock 1\n"
	                       "2 0 exit\n"
	                       "1 0 join 2\n"
	                       "1 0 exit\n");
	free(s);
	gen_prog_release(&p);
}

static void test_serial_bugs(void **state)
{
	(void)state;
	for (int kind = 0; kind < 4; kind++) {
		struct gen_prog p;
		memset(&p, 0, sizeof p);
		assert_int_equal(gen_prog_threads(&p, 2), 0);
		uint32_t s = gen_sem_new(&p, 0), m = gen_mutex_new(&p);
		const char *want = "";
		switch (kind) {
		case 0: /* deadlock: both wait, nobody posts */
			gen_create(&p, 1, 2);
			gen_wait(&p, 1, s);
			gen_exit(&p, 1);
			gen_wait(&p, 2, s);
			gen_exit(&p, 2);
			want = "deadlock";
			break;
		case 1: /* unlock without lock */
			gen_create(&p, 1, 2);
			gen_unlock(&p, 1, m);
			gen_exit(&p, 1);
			gen_exit(&p, 2);
			want = "does not hold";
			break;
		case 2: /* thread 2 never created */
			gen_exit(&p, 1);
			gen_exit(&p, 2);
			want = "never created";
			break;
		case 3: /* no exit record */
			gen_create(&p, 1, 2);
			gen_exit(&p, 1);
			gen_post(&p, 2, s);
			want = "no exit";
			break;
		}
		struct gen_args a = ser_args(0);
		struct gen_buf b = {0};
		char err[256] = "";
		assert_int_equal(gen_serialize(&p, &a, NULL, &b, err,
		                               sizeof err),
		                 GEN_EBUG);
		if (!strstr(err, want))
			fail_msg("kind %d: '%s' lacks '%s'", kind, err, want);
		gen_buf_release(&b);
		gen_prog_release(&p);
	}
}

/* The PRNG helpers: range bounds, chance extremes. */
static void test_rng(void **state)
{
	(void)state;
	struct gen_rng r;
	gen_rng_init(&r, 1, 0);
	int hit[7] = {0};
	for (int i = 0; i < 7000; i++) {
		uint64_t v = gen_rng_range(&r, 3, 9);
		assert_true(v >= 3 && v <= 9);
		hit[v - 3]++;
		assert_false(gen_rng_chance(&r, 0));
		assert_true(gen_rng_chance(&r, 1));
	}
	for (int i = 0; i < 7; i++)
		assert_true(hit[i] > 800 && hit[i] < 1200);
	struct gen_rng a, b;
	gen_rng_init(&a, 1, 1);
	gen_rng_init(&b, 1, 2);
	assert_true(gen_rng_next(&a) != gen_rng_next(&b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_header_reproduces),
		cmocka_unit_test(test_transactions_structure),
		cmocka_unit_test(test_transactions_distributions),
		cmocka_unit_test(test_transactions_segments),
		cmocka_unit_test(test_transactions_termination),
		cmocka_unit_test(test_worstcase_example),
		cmocka_unit_test(test_worstcase_structure),
		cmocka_unit_test(test_pipeline),
		cmocka_unit_test(test_pipeline_critical_path),
		cmocka_unit_test(test_forkjoin),
		cmocka_unit_test(test_prodcons),
		cmocka_unit_test(test_prodcons_speedup),
		cmocka_unit_test(test_dag),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_serial_order),
		cmocka_unit_test(test_serial_barrier_mutex),
		cmocka_unit_test(test_serial_bugs),
		cmocka_unit_test(test_rng),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
