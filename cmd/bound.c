/*
 * bound - Paper VII's bound on the minimal completion time, and a proven
 * lower bound, for a trace or for program parameters (docs/bound.md).
 *
 * Exit status: 0 ok, 1 usage error, 2 bad input, 3 the program deadlocks
 * with one processor per thread, 4 internal limit (too many threads, out of
 * memory, simulator overflow).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>

#include "bound/bound.h"
#include "cli/cli.h"
#include "cmd/common.h"
#include "cli/json.h"
#include "cli/out.h"
#include "sim/sim.h"
#include "trace/trace.h"

#define MAXLAT 64

struct opts {
	uint32_t k, sweep, threads;
	int have_k, have_threads, have_profile, have_z;
	const char *profile, *latency, *z;
	struct bound_opts bo;
	uint32_t ilp_ms;
	int no_lower, exact, json;
};

/* ---------------------------------------------------------------------
 * Parsing
 */

/* A non-negative decimal "12", "0.25", ".5" of length len into q. */
static int parse_dec(const char *s, size_t len, mpq_t q)
{
	if (len == 0 || len > 200)
		return -1;
	char buf[256];
	size_t d = 0, frac = 0;
	int dot = 0, digits = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.' && !dot) {
			dot = 1;
		} else if (s[i] >= '0' && s[i] <= '9') {
			buf[d++] = s[i];
			digits++;
			frac += dot;
		} else {
			return -1;
		}
	}
	if (!digits)
		return -1;
	buf[d] = 0;
	mpz_set_str(mpq_numref(q), buf, 10);
	mpz_ui_pow_ui(mpq_denref(q), 10, frac);
	mpq_canonicalize(q);
	return 0;
}

/* "a", "a/b" with a, b decimals, b > 0. */
static int parse_rat(const char *s, size_t len, mpq_t q)
{
	const char *sl = memchr(s, '/', len);
	if (!sl)
		return parse_dec(s, len, q);
	mpq_t d;
	mpq_init(d);
	int rc = -1;
	if (parse_dec(s, (size_t)(sl - s), q) == 0 &&
	    parse_dec(sl + 1, len - (size_t)(sl - s) - 1, d) == 0 && mpq_sgn(d) > 0) {
		mpq_div(q, q, d);
		rc = 0;
	}
	mpq_clear(d);
	return rc;
}

/*
 * One latency "4", "0.5", "1/3", "4us": into q, in trace units (unit: the
 * trace's unit; -1 in parameter mode, where suffixes are refused).
 * Returns 0, -1 bad syntax, -2 suffix not allowed.
 */
static int parse_latency(const char *s, size_t len, int unit, mpq_t q)
{
	enum trace_unit su;
	size_t sl = trace_unit_suffix(s, len, &su);
	if (sl) {
		if (parse_rat(s, len - sl, q))
			return -1;
		uint64_t tu = unit < 0 ? 0 : trace_unit_ns((enum trace_unit)unit);
		if (tu == 0)
			return -2;
		mpq_t f;
		mpq_init(f);
		mpq_set_ui(f, trace_unit_ns(su), tu);
		mpq_canonicalize(f);
		mpq_mul(q, q, f);
		mpq_clear(f);
		return 0;
	}
	return parse_rat(s, len, q);
}

/* Comma-separated list; calls back for each item.  Returns the count or -1. */
static int split_list(const char *s, int (*fn)(const char *, size_t, void *, int),
                      void *arg)
{
	int i = 0;
	for (;;) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		int rc = fn(s, len, arg, i);
		if (rc)
			return rc;
		i++;
		if (!c)
			return i;
		s = c + 1;
	}
}

struct lat_list {
	mpq_t t[MAXLAT];
	char *text[MAXLAT];
	int n, unit;
};

static int lat_item(const char *s, size_t len, void *arg, int i)
{
	struct lat_list *L = arg;
	if (i >= MAXLAT)
		return -3;
	int rc = parse_latency(s, len, L->unit, L->t[i]);
	if (rc)
		return rc;
	L->text[i] = strndup(s, len);
	L->n = i + 1;
	return 0;
}

struct prof {
	struct bound_prog *bp;
	int bad;
};

static int prof_item(const char *s, size_t len, void *arg, int i)
{
	struct prof *P = arg;
	if ((uint32_t)i >= P->bp->n)
		return -4;
	if (parse_rat(s, len, P->bp->v[i + 1]))
		return -1;
	return 0;
}

/* ---------------------------------------------------------------------
 * Output
 */

struct out {
	FILE *f;
	int json;
	struct cli_json j;
};

static void o_begin(struct out *o)
{
	if (o->json) {
		cli_json_init(&o->j, o->f);
		cli_json_object(&o->j);
	}
}

static void o_end(struct out *o)
{
	if (o->json)
		cli_json_end(&o->j);
}

/* key with a number (decimal text) */
static void o_num(struct out *o, const char *key, const char *v)
{
	if (o->json) {
		cli_json_key(&o->j, key);
		cli_json_number(&o->j, v);
	} else {
		fprintf(o->f, "%s %s\n", key, v);
	}
}

static void o_str(struct out *o, const char *key, const char *v)
{
	if (o->json) {
		cli_json_key(&o->j, key);
		cli_json_str(&o->j, v);
	} else {
		fprintf(o->f, "%s %s\n", key, v);
	}
}

static void o_u64(struct out *o, const char *key, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%" PRIu64, v);
	o_num(o, key, b);
}

static void o_q(struct out *o, const char *key, const mpq_t q, int digits, int dir,
                int exact)
{
	char b[128];
	o_num(o, key, bound_qfmt(q, digits, dir, b, sizeof b));
	if (exact) {
		char k2[64];
		snprintf(k2, sizeof k2, "%s_exact", key);
		char *s = mpq_get_str(NULL, 10, q);
		o_str(o, k2, s);
		free(s);
	}
}

/* comma-separated list; JSON: an array of numbers (strings: of strings) */
static void o_list(struct out *o, const char *key, char **items, size_t n,
                   int strings)
{
	if (o->json) {
		cli_json_key(&o->j, key);
		cli_json_array(&o->j);
		for (size_t i = 0; i < n; i++) {
			if (strings)
				cli_json_str(&o->j, items[i]);
			else
				cli_json_number(&o->j, items[i]);
		}
		cli_json_end(&o->j);
		return;
	}
	fprintf(o->f, "%s ", key);
	for (size_t i = 0; i < n; i++)
		fprintf(o->f, "%s%s", i ? "," : "", items[i]);
	fputc('\n', o->f);
}

static void o_qlist(struct out *o, const char *key, const mpq_t *v, size_t n,
                    int digits, int dir, int strings)
{
	char **it = calloc(n ? n : 1, sizeof *it);
	if (!it)
		return;
	for (size_t i = 0; i < n; i++) {
		char b[128];
		if (digits >= 0) {
			bound_qfmt(v[i], digits, dir, b, sizeof b);
			it[i] = strdup(b);
		} else {
			it[i] = mpq_get_str(NULL, 10, v[i]);
		}
	}
	o_list(o, key, it, n, strings);
	for (size_t i = 0; i < n; i++)
		free(it[i]);
	free(it);
}

static void alloc_text(const uint32_t *a, uint32_t k, char *buf, size_t len,
                       const char *sep)
{
	size_t p = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < k && a[i]; i++) {
		int w = snprintf(buf + p, len - p, "%s%u", i ? sep : "", a[i]);
		if (w < 0 || (size_t)w >= len - p)
			break;
		p += (size_t)w;
	}
}

static const char *part_status(const struct bound_lower *lo)
{
	if (lo->part_lb == lo->part_ub)
		return lo->part_ilp ? "optimal-ilp" : "optimal";
	if (lo->part_timeout)
		return "ilp-time-limit";
	return lo->part_ilp ? "ilp-stopped" : "trivial";
}

/* Everything for one (k, t) point. */
struct point {
	struct bound_pres pr;
	int have_lower;
	struct bound_lower lo;
};

/* ---------------------------------------------------------------------
 * The command line
 */

static const char *const method_names[] = {"poly", "paper", "brute", NULL};
static const enum bound_method method_values[] = {BOUND_POLY, BOUND_PAPER, BOUND_BRUTE};

static struct args {
	struct cmd_machine M;
	struct opts O;
	int method, no_lazy, exhaustive;
	int param_mode;         /* --threads/--profile/--granularity       */
	const char *path;       /* the trace, or NULL in parameter mode    */
} A = {.O = {.ilp_ms = 1000 /* ms */}};

static struct cli_opt opts[] = {
	/* --latency is bound's own: a list of exact fractions */
	CMD_MACHINE_OPTS(&A.M, CLI_M_BIT(CPUS) | CLI_M_BIT(MACHINE)),
	{CLI_STR, "latency", .metavar = "T", .dst = &A.O.latency,
	 .help = "synchronization latency t (default 0): a non-negative\n"
	         "number, decimal (0.5) or fraction (1/3).  With a trace:\n"
	         "trace units, or with a unit suffix ns, us, ms or s\n"
	         "converted to the trace's unit (4us; the trace must\n"
	         "declare one).  With parameters: the time unit of Z.\n"
	         "A comma-separated list with --sweep."},
	{CLI_U32, "sweep", .metavar = "K", .dst = &A.O.sweep, .min = 1, .max = 4096,
	 .help = "CSV of p for k = 1..K and every latency (Paper VII,\n"
	         "Figure 22)"},
	{CLI_GROUP, .help = "Program parameters (instead of a trace)"},
	{CLI_U32, "threads", .dst = &A.O.threads, .min = 1, .max = BOUND_MAX_THREADS,
	 .help = "n, the number of threads"},
	{CLI_STR, "profile", .metavar = "V1,..,VN", .dst = &A.O.profile,
	 .help = "the parallel profile: Vi = fraction of T(P,n,0) with\n"
	         "exactly i threads running.  If they sum to less than 1\n"
	         "the rest is time with none running (V0); if to more,\n"
	         "they are divided by their sum (raw times work)."},
	{CLI_STR, "granularity", .metavar = "Z", .dst = &A.O.z,
	 .help = "synchronization signals per unit of total work"},
	{CLI_GROUP, .help = "Method"},
	{CLI_CHOICE, "method", .metavar = "M", .dst = &A.method, .choices = method_names,
	 .help = "s(A,V) by poly (counting polynomials, default), paper\n"
	         "(f and pi of Section 4.4) or brute (n <= 24)"},
	{CLI_FLAG, "no-lazy", .dst = &A.no_lazy,
	 .help = "branch-and-bound without lazy evaluation"},
	{CLI_FLAG, "exhaustive", .dst = &A.exhaustive,
	 .help = "evaluate every allocation instead"},
	{CLI_U32, "ilp-ms", .metavar = "MS", .dst = &A.O.ilp_ms, .min = 1, .max = 86400000,
	 .help = "time limit of the lower bound's integer program,\n"
	         "milliseconds (default 1000)"},
	{CLI_FLAG, "no-lower", .dst = &A.O.no_lower,
	 .help = "do not compute the lower bound"},
	{CLI_GROUP, .help = "Output"},
	{CLI_FLAG, "exact", .dst = &A.O.exact,
	 .help = "also print exact fractions (keys ending in _exact)"},
	{CLI_FLAG, "json", .dst = &A.O.json,
	 .help = "the same as one JSON object (--sweep: {\"sweep\": [...]})"},
{CLI_END}};

static const struct cli_cmd cmd = {
	.name = "bound",
	.usage = "--cpus K [options] TRACE\n"
	         "--threads N --profile V1,...,VN --granularity Z --cpus K [options]\n"
	         "--sweep K [--latency T1,T2,...] (TRACE | parameters)",
	.about = "Paper VII's bound p(n,k,t,z,V): some binding of the program to K processors\n"
	         "completes within p * T(P,n,0), and no better bound holds for every program\n"
	         "with the same n, V, z; and a proven lower bound that no binding beats.",
	.opts = opts,
	.epilog = "Output is one `key value` per line: n, z, V, T, p, bound (= p*T), lower,\n"
	          "allocation (threads per processor of an allocation attaining p), then the\n"
	          "evaluation counts and details (docs/bound.md).  p and bound are rounded up\n"
	          "(6 and 3 decimals), lower down (3 decimals), so the printed interval\n"
	          "[lower, bound] is still proven.",
	.exit3 = "the trace deadlocks with one processor per thread",
};

/* CLI_CONTINUE, or the exit status (--help, a usage error). */
static int parse(int argc, char **argv)
{
	struct opts *O = &A.O;
	cmd_machine_init(&A.M, NULL);
	bound_opts_init(&O->bo);
	int nops, rc = cli_parse(&cmd, argc, argv, &nops);
	if (rc != CLI_CONTINUE)
		return rc;
	cli_signals_install(CLI_SIG_EXIT); /* 130/143 */
	O->have_k = cli_find(&cmd, "cpus")->given;
	O->k = A.M.m.cpus;
	O->have_threads = cli_find(&cmd, "threads")->given;
	O->have_profile = cli_find(&cmd, "profile")->given;
	O->have_z = cli_find(&cmd, "granularity")->given;
	O->bo.method = method_values[A.method];
	if (A.no_lazy)
		O->bo.lazy = 0;
	if (A.exhaustive)
		O->bo.exhaustive = 1;
	A.param_mode = O->have_threads || O->have_profile || O->have_z;
	if (A.param_mode) {
		if (!O->have_threads || !O->have_profile || !O->have_z)
			return cli_usage(&cmd, "parameter mode needs all of --threads, --profile and --granularity");
		if (nops != 0)
			return cli_usage(&cmd, "a trace and --threads/--profile/--granularity exclude each other");
	} else if (nops != 1) {
		return cmd_one_trace(&cmd, nops);
	}
	if (!O->sweep && !O->have_k)
		return cli_usage(&cmd, "--cpus K is required (or --sweep K)");
	if (O->sweep && O->have_k)
		return cli_usage(&cmd, "--cpus and --sweep exclude each other");
	if (O->bo.exhaustive && !O->bo.lazy)
		return cli_usage(&cmd, "--exhaustive and --no-lazy exclude each other");
	A.path = A.param_mode ? NULL : argv[1];
	return CLI_CONTINUE;
}

/* ---------------------------------------------------------------------
 * The program: from a trace or from parameters; the latencies
 */

struct run {
	struct trace *tr;       /* NULL in parameter mode                  */
	struct bound_prog bp;
	struct lat_list L;
	mpq_t mw;               /* sum q v_q: the mean work of the profile  */
};

static void run_init(struct run *r)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < MAXLAT; i++)
		mpq_init(r->L.t[i]);
	mpq_init(r->mw);
}

static void run_release(struct run *r)
{
	for (int i = 0; i < MAXLAT; i++) {
		mpq_clear(r->L.t[i]);
		free(r->L.text[i]);
	}
	mpq_clear(r->mw);
	bound_prog_release(&r->bp);
	trace_free(r->tr);
}

/* --threads, --profile, --granularity into r->bp. */
static int load_params(struct run *r)
{
	const struct opts *O = &A.O;
	struct bound_prog *bp = &r->bp;
	r->L.unit = -1;
	if (bound_prog_init(bp, O->threads) != BOUND_OK)
		return CLI_ESYSTEM;
	struct prof P = {.bp = bp};
	int cnt = split_list(O->profile, prof_item, &P);
	if (cnt == -4 || (cnt >= 0 && (uint32_t)cnt != O->threads))
		return cli_usage(&cmd, "--profile: %s entries than --threads %u",
		                 cnt == -4 || (cnt >= 0 && (uint32_t)cnt > O->threads) ? "more" : "fewer",
		                 O->threads);
	if (cnt < 0)
		return cli_usage(&cmd, "--profile: '%s' is not a list of non-negative numbers (decimal or a/b)",
		                 O->profile);
	mpq_t sum;
	mpq_init(sum);
	for (uint32_t i = 1; i <= O->threads; i++)
		mpq_add(sum, sum, bp->v[i]);
	int zero = mpq_sgn(sum) == 0;
	if (!zero && mpq_cmp_ui(sum, 1, 1) > 0) {
		for (uint32_t i = 1; i <= O->threads; i++)
			mpq_div(bp->v[i], bp->v[i], sum);
	} else if (!zero) {
		mpq_set_ui(bp->v[0], 1, 1);
		mpq_sub(bp->v[0], bp->v[0], sum);
	}
	mpq_clear(sum);
	if (zero)
		return cli_error(&cmd, CLI_EINPUT, "--profile: all zero");
	if (parse_rat(O->z, strlen(O->z), bp->z))
		return cli_usage(&cmd, "--granularity: '%s' is not a non-negative number (decimal or a/b)", O->z);
	return CLI_OK;
}

/* The trace at A.path into r->tr and r->bp. */
static int load_trace(struct run *r)
{
	char why[600];
	if (cli_trace_load(A.path, &r->tr, why, sizeof why) != CLI_OK)
		return cli_errorf(CLI_EINPUT, "%s", why);
	/* suffixes need a declared time unit (not tick) */
	r->L.unit = r->tr->unit_declared ? (int)r->tr->unit : -1;
	int brc = bound_prog_from_trace(r->tr, &r->bp);
	if (brc == BOUND_EDEADLOCK)
		fprintf(stderr, "%s: the program deadlocks when simulated with one processor per thread; T(P,n,0) does not exist\n", A.path);
	else if (brc == BOUND_EINVAL)
		fprintf(stderr, "%s: the trace has no work; the bound is undefined\n", A.path);
	else if (brc == BOUND_ETOOBIG)
		fprintf(stderr, "%s: %u threads; the bound handles at most %u\n", A.path,
		        r->tr->nthreads, BOUND_MAX_THREADS);
	else if (brc)
		fprintf(stderr, "%s: %s\n", A.path, bound_strerror(brc));
	return cmd_exit_bound(brc);
}

/* --machine FILE into r->L: Paper VII's one latency, the machine's
 * farthest pair among the k processors (docs/sim.md, Machine files). */
static int machine_latency(struct run *r)
{
	const struct opts *O = &A.O;
	const char *file = A.M.m.machine;
	if (O->latency || !r->tr)
		return cli_usage(&cmd, "--machine needs a trace and excludes --latency");
	char why[600];
	struct mach mf;
	struct mach_model mm;
	if (mach_read(file, &mf, why, sizeof why) != 0)
		return cli_errorf(CLI_EINPUT, "%s", why);
	uint32_t k = O->sweep ? O->sweep : O->k;
	int mrc = mach_model_init(&mm, &mf, k ? k : 1, r->tr->unit, why, sizeof why);
	mach_release(&mf);
	if (mrc != 0)
		return cli_errorf(CLI_EINPUT, "%s: %s", file, why);
	uint64_t t = 0;
	for (uint32_t q = 0; q < mm.k * mm.k; q++)
		if (mm.lat[q] > t)
			t = mm.lat[q];
	mach_model_release(&mm);
	char num[32];
	snprintf(num, sizeof num, "%llu", (unsigned long long)t);
	r->L.n = 1;
	r->L.text[0] = strdup(num);
	mpq_set_ui(r->L.t[0], (unsigned long)t, 1);
	return r->L.text[0] ? CLI_OK : CLI_ESYSTEM;
}

/* --latency into r->L (in r->L.unit); "0" without it. */
static int load_latencies(struct run *r)
{
	const struct opts *O = &A.O;
	if (A.M.m.machine)
		return machine_latency(r);
	if (!O->latency) {
		r->L.n = 1;
		r->L.text[0] = strdup("0");
		return r->L.text[0] ? CLI_OK : CLI_ESYSTEM;
	}
	int cnt = split_list(O->latency, lat_item, &r->L);
	if (cnt == -2)
		return cli_usage(&cmd, "--latency: '%s': a unit suffix needs a trace that declares its unit (ns, us, ms or s)",
		                 O->latency);
	if (cnt == -3)
		return cli_usage(&cmd, "--latency: at most %d values", MAXLAT);
	if (cnt < 0)
		return cli_usage(&cmd, "--latency: '%s' is not a time (a non-negative number, decimal or a/b, "
		                 "with an optional unit: 4us, 0.5ms, 10ns, 1s)", O->latency);
	if (cnt > 1 && !O->sweep)
		return cli_usage(&cmd, "--latency: several latencies need --sweep");
	return CLI_OK;
}

/* ---------------------------------------------------------------------
 * The bound at one point (k, t), and the sweep
 */

/* An exact simulated time as a fraction. */
static void mpq_of_time(mpq_t q, sim_time t)
{
	mpz_import(mpq_numref(q), 1, -1, 8, 0, 0, &t.num);
	mpz_import(mpq_denref(q), 1, -1, 8, 0, 0, &t.den);
	mpq_canonicalize(q);
}

/* p at (k, t) into *pr: CLI_OK, or the exit status after the message. */
static int compute_p(const struct run *r, uint32_t k, const mpq_t t, struct bound_pres *pr)
{
	int prc = bound_p(&r->bp, k, t, &A.O.bo, pr);
	if (prc == BOUND_OK)
		return CLI_OK;
	fprintf(stderr, "bound: %s\n", prc == BOUND_ETOOBIG ?
	        "brute force handles at most 24 threads" : bound_strerror(prc));
	return prc == BOUND_ETOOBIG ? CLI_EUSAGE : CLI_ESYSTEM;
}

/* The lower bound at k into *lo (*have 1), or nothing (*have 0) without
 * a trace or with --no-lower: CLI_OK, or the exit status. */
static int compute_lower(const struct run *r, uint32_t k, struct bound_lower *lo, int *have)
{
	*have = 0;
	if (!r->tr || A.O.no_lower)
		return CLI_OK;
	int lrc = bound_lower(r->tr, k, A.O.ilp_ms, lo);
	if (lrc) {
		fprintf(stderr, "%s: lower bound: %s\n", A.path, bound_strerror(lrc));
		return lrc == BOUND_EDEADLOCK ? CLI_EDEADLOCK : CLI_ESYSTEM;
	}
	*have = 1;
	return CLI_OK;
}

/* The program's lines: n, z, V, V0, T. */
static void print_program(struct out *o, const struct run *r)
{
	const struct bound_prog *bp = &r->bp;
	char b[256];
	snprintf(b, sizeof b, "%u", bp->n);
	o_num(o, "n", b);
	snprintf(b, sizeof b, "%.9g", mpq_get_d(bp->z));
	o_num(o, "z", b);
	if (A.O.exact) {
		char *s = mpq_get_str(NULL, 10, bp->z);
		o_str(o, "z_exact", s);
		free(s);
	}
	o_qlist(o, "V", (const mpq_t *)bp->v + 1, bp->n, 6, 0, 0);
	if (A.O.exact)
		o_qlist(o, "V_exact", (const mpq_t *)bp->v + 1, bp->n, -1, 0, 1);
	if (mpq_sgn(bp->v[0]))
		o_q(o, "V0", bp->v[0], 6, 0, A.O.exact);
	if (r->tr)
		o_q(o, "T", bp->T, 3, 0, A.O.exact);
}

/* p's search: the allocation attaining it and the counts. */
static void print_search(struct out *o, const struct bound_pres *pr, mpq_t tmp)
{
	char al[4096];
	alloc_text(pr->alloc, pr->k, al, sizeof al, ",");
	if (o->json) {
		cli_json_key(&o->j, "allocation");
		cli_json_array(&o->j);
		for (uint32_t i = 0; i < pr->k && pr->alloc[i]; i++)
			cli_json_u64(&o->j, pr->alloc[i]);
		cli_json_end(&o->j);
	} else {
		o_num(o, "allocation", al);
	}
	o_u64(o, "classes", pr->classes);
	o_u64(o, "thick_evaluations", pr->thick);
	o_u64(o, "complete_allocations", pr->complete);
	char *s = mpz_get_str(NULL, 10, pr->total);
	o_num(o, "allocations", s);
	free(s);
	/* one class evaluated in `one_in` allocations */
	mpq_t c;
	mpq_init(c);
	mpq_set_z(tmp, pr->total);
	mpq_set_ui(c, pr->classes, 1);
	mpq_div(tmp, tmp, c);
	mpq_clear(c);
	o_q(o, "one_in", tmp, 0, 0, 0);
}

/* The lower bound's parts. */
static void print_lower_parts(struct out *o, const struct bound_lower *lo, mpq_t tmp)
{
	o_u64(o, "lower_work", lo->work_max);
	o_u64(o, "lower_partition", lo->part_lb);
	o_u64(o, "lower_partition_best", lo->part_ub);
	o_str(o, "lower_partition_status", part_status(lo));
	mpq_of_time(tmp, lo->path);
	o_q(o, "lower_path", tmp, 3, -1, 0);
	o_u64(o, "lower_path_relaxed", (uint64_t)lo->path_relaxed);
	o_u64(o, "lower_path_dropped", lo->path_dropped);
}

/* One point: `key value` lines (or one JSON object). */
static int point(const struct run *r)
{
	const struct opts *O = &A.O;
	const struct lat_list *L = &r->L;
	struct point pt;
	memset(&pt, 0, sizeof pt);
	int rc = compute_p(r, O->k, L->t[0], &pt.pr);
	if (rc != CLI_OK)
		return rc;
	if ((rc = compute_lower(r, O->k, &pt.lo, &pt.have_lower)) != CLI_OK) {
		bound_pres_release(&pt.pr);
		return rc;
	}
	if (pt.have_lower && r->bp.model != SIM_DIRECT) {
		/* the relaxed critical path bounds Direct runs only */
		uint64_t any = pt.lo.work_max > pt.lo.part_lb ? pt.lo.work_max : pt.lo.part_lb;
		pt.lo.lower = sim_time_int(any);
	}
	if (r->tr && r->bp.model != SIM_DIRECT)
		fprintf(stderr, "%s: note: the program deadlocks when simulated with one processor per "
		        "thread under the Direct model; T and V come from the %s model (the thesis's "
		        "scheme, as simulate falls back), and the lower bound is the part that holds "
		        "under every model\n", A.path, sim_model_name((enum sim_model)r->bp.model));
	mpq_t tmp;
	mpq_init(tmp);
	struct out o = {.f = stdout, .json = O->json};
	o_begin(&o);
	print_program(&o, r);
	o_q(&o, "p", pt.pr.p, 6, 1, O->exact);
	if (r->tr) {
		mpq_mul(tmp, pt.pr.p, r->bp.T);
		o_q(&o, "bound", tmp, 3, 1, O->exact);
	}
	if (pt.have_lower) {
		mpq_of_time(tmp, pt.lo.lower);
		o_q(&o, "lower", tmp, 3, -1, O->exact);
	}
	print_search(&o, &pt.pr, tmp);
	o_u64(&o, "k", O->k);
	o_str(&o, "latency", L->text[0]);
	if (r->tr) {
		o_str(&o, "unit", trace_unit_name(r->tr->unit));
		if (strcmp(L->text[0], "0"))
			o_q(&o, "latency_trace_units", L->t[0], 6, 0, 0);
		o_u64(&o, "signals", r->bp.signals);
		o_u64(&o, "work", r->bp.work);
	}
	/* speedup of the bound: sum q v_q / p (= work / bound) */
	mpq_div(tmp, r->mw, pt.pr.p);
	o_q(&o, "speedup", tmp, 3, -1, 0);
	o_str(&o, "method", method_names[A.method]);
	o_str(&o, "search", O->bo.exhaustive ? "exhaustive" : O->bo.lazy ? "lazy" : "eager");
	/* "minimal", or the cap that stopped p's search (a weaker upper
	 * bound; docs/bound.md section 8) */
	o_str(&o, "p_search", bound_cap_name(pt.pr.capped));
	if (pt.pr.capped)
		fprintf(stderr, "bound: p %s after %" PRIu64 " units: the value of "
		        "the best allocation evaluated, an upper bound weaker than "
		        "Paper VII's minimum\n", bound_cap_name(pt.pr.capped),
		        pt.pr.work);
	if (pt.have_lower)
		print_lower_parts(&o, &pt.lo, tmp);
	o_end(&o);
	mpq_clear(tmp);
	bound_pres_release(&pt.pr);
	return CLI_OK;
}

/* One row of the sweep: CSV, or a JSON object. */
static void sweep_row(struct out *o, const struct run *r, uint32_t k, int li,
                      const struct bound_pres *pr, const struct bound_lower *lo)
{
	char pb[64], sb[64], bb[64] = "", lb[64] = "", al[4096];
	mpq_t tmp;
	mpq_init(tmp);
	bound_qfmt(pr->p, 6, 1, pb, sizeof pb);
	mpq_div(tmp, r->mw, pr->p);
	bound_qfmt(tmp, 3, -1, sb, sizeof sb);
	if (r->tr) {
		mpq_mul(tmp, pr->p, r->bp.T);
		bound_qfmt(tmp, 3, 1, bb, sizeof bb);
	}
	if (lo) {
		mpq_of_time(tmp, lo->lower);
		bound_qfmt(tmp, 3, -1, lb, sizeof lb);
	}
	mpq_clear(tmp);
	if (!o->json) {
		alloc_text(pr->alloc, pr->k, al, sizeof al, ",");
		printf("%u,%s,%s,%s,%s,%s,\"%s\",%" PRIu64 ",%" PRIu64 "\n",
		       k, r->L.text[li], pb, sb, bb, lb, al, pr->classes, pr->thick);
		return;
	}
	struct cli_json *j = &o->j;
	cli_json_object(j);
	cli_json_key(j, "k");
	cli_json_u64(j, k);
	cli_json_key(j, "latency");
	cli_json_str(j, r->L.text[li]);
	cli_json_key(j, "p");
	cli_json_number(j, pb);
	cli_json_key(j, "speedup");
	cli_json_number(j, sb);
	if (r->tr) {
		cli_json_key(j, "bound");
		cli_json_number(j, bb);
	}
	if (lo) {
		cli_json_key(j, "lower");
		cli_json_number(j, lb);
	}
	cli_json_key(j, "allocation");
	cli_json_array(j);
	for (uint32_t i = 0; i < pr->k && pr->alloc[i]; i++)
		cli_json_u64(j, pr->alloc[i]);
	cli_json_end(j);
	cli_json_key(j, "classes");
	cli_json_u64(j, pr->classes);
	cli_json_key(j, "thick_evaluations");
	cli_json_u64(j, pr->thick);
	cli_json_end(j);
}

/* --sweep: p over k = 1..K and the latencies, as CSV (or JSON). */
static int sweep(const struct run *r)
{
	struct out o = {.f = stdout, .json = A.O.json};
	if (o.json) {
		cli_json_init(&o.j, stdout);
		cli_json_object(&o.j);
		cli_json_key(&o.j, "sweep");
		cli_json_array(&o.j);
	} else {
		printf("k,latency,p,speedup,bound,lower,allocation,classes,thick_evaluations\n");
	}
	for (uint32_t k = 1; k <= A.O.sweep; k++) {
		struct bound_lower lo;
		int have_lower, rc = compute_lower(r, k, &lo, &have_lower);
		if (rc != CLI_OK)
			return rc;
		for (int li = 0; li < r->L.n; li++) {
			struct bound_pres pr;
			if ((rc = compute_p(r, k, r->L.t[li], &pr)) != CLI_OK)
				return rc;
			sweep_row(&o, r, k, li, &pr, have_lower ? &lo : NULL);
			bound_pres_release(&pr);
		}
	}
	if (o.json) {
		cli_json_end(&o.j);
		cli_json_end(&o.j);
	}
	return CLI_OK;
}

int main(int argc, char **argv)
{
	int rc = parse(argc, argv);
	if (rc != CLI_CONTINUE)
		return rc;
	struct run r;
	run_init(&r);
	rc = A.param_mode ? load_params(&r) : load_trace(&r);
	if (rc == CLI_OK)
		rc = load_latencies(&r);
	if (rc == CLI_OK) {
		for (uint32_t q = 1; q <= r.bp.n; q++) { /* sum q v_q */
			mpq_t t;
			mpq_init(t);
			mpq_set_ui(t, q, 1);
			mpq_mul(t, t, r.bp.v[q]);
			mpq_add(r.mw, r.mw, t);
			mpq_clear(t);
		}
		rc = A.O.sweep ? sweep(&r) : point(&r);
	}
	if (rc == CLI_OK)
		rc = cmd_flush(&cmd);
	run_release(&r);
	return rc;
}
