/*
 * fam_transactions.c - the thesis's generated test applications (Paper IV
 * Section 5, Paper V Section 3.2): transaction threads entering and
 * leaving critical sections protected by semaphores.
 *
 * Paper text and the choices made where it is silent (docs/gen.md):
 *   - C critical sections, C uniform in [2T, 3T] for T transaction threads
 *     ("between two and three times the number of threads");
 *   - G groups, G uniform in [1, max(1, floor(T/2))] ("one to half of the
 *     number of threads"); the threads are shuffled and dealt round-robin
 *     into the groups (sizes differ by at most one); the sections are
 *     split among the groups in proportion to their sizes (floor, the
 *     remainder one each to the first groups), so every group has at
 *     least two per thread; a thread only uses its group's sections;
 *   - a segment is 2^x units of work, x uniform in [0, 15];
 *   - loop: segment; with probability 1/2 enter, else exit, a critical
 *     section; "(if possible)": an impossible choice generates only the
 *     segment (impossible=skip, the papers' wording) or does the other
 *     action (impossible=other); then continue with probability 15/16;
 *   - enter: hierarchical numbering; a thread may only enter a section
 *     numbered above every section it holds; the section is uniform among
 *     those (choose=above), or drawn uniformly among all the group's and
 *     entered only if above every held one, else the step is impossible
 *     (choose=any: another reading of the papers); exit: the most
 *     recently entered one (release=lifo, properly
 *     nested) or a uniformly chosen held one (release=random);
 *   - termination: each held section (most recent first) is released
 *     after a segment, then a final segment, then exit;
 *   - sections are semaphores with one token (wait = enter, post = exit),
 *     or mutexes with primitive=mutex;
 *   - thread 1 (main) creates the other threads at time 0 with no work,
 *     runs a transaction itself (main=txn) or nothing (main=idle), then
 *     joins the others in creation order and exits.  With main=txn the
 *     trace has exactly --threads transaction threads (the papers' "N
 *     threads"); with main=idle, --threads - 1.
 */
#include <stdlib.h>
#include <string.h>

#include "gen/genint.h"

enum {
	P_GROUPS = 0,
	P_SECTIONS,
	P_MINEXP,
	P_MAXEXP,
	P_CONTINUE,
	P_ENTER,
	P_IMPOSSIBLE,
	P_RELEASE,
	P_PRIMITIVE,
	P_MAIN,
	P_CHOOSE,
	NP
};

static const struct gen_param params[NP] = {
	[P_GROUPS] = {"groups", GEN_P_INT, "0", 0, 1 << 20, 0, 0, NULL,
	              "groups of threads that synchronize only within the "
	              "group; 0: uniform in 1..max(1, T/2) (papers)"},
	[P_SECTIONS] = {"sections", GEN_P_INT, "0", 0, 1 << 24, 0, 0, NULL,
	                "critical sections in all, at least T; 0: uniform in "
	                "2T..3T (papers)"},
	[P_MINEXP] = {"min-exp", GEN_P_INT, "0", 0, 40, 0, 0, NULL,
	              "segments are 2^x work units, x uniform in "
	              "min-exp..max-exp"},
	[P_MAXEXP] = {"max-exp", GEN_P_INT, "15", 0, 40, 0, 0, NULL,
	              "see min-exp (papers: 0..15)"},
	[P_CONTINUE] = {"continue", GEN_P_REAL, "0.9375", 0, 0, 0, 1, NULL,
	                "probability of another segment + enter/exit step "
	                "(papers: 93.75%)"},
	[P_ENTER] = {"enter", GEN_P_REAL, "0.5", 0, 0, 0, 1, NULL,
	             "probability that a step chooses enter rather than exit "
	             "(papers: 1/2)"},
	[P_IMPOSSIBLE] = {"impossible", GEN_P_ENUM, "skip", 0, 0, 0, 0,
	                  "skip|other",
	                  "a step whose choice is impossible: only the "
	                  "segment, or the other action"},
	[P_RELEASE] = {"release", GEN_P_ENUM, "lifo", 0, 0, 0, 0,
	               "lifo|random",
	               "which held section an exit step releases"},
	[P_PRIMITIVE] = {"primitive", GEN_P_ENUM, "sem", 0, 0, 0, 0,
	                 "sem|mutex",
	                 "critical sections as semaphores (1 token, papers) "
	                 "or mutexes"},
	[P_MAIN] = {"main", GEN_P_ENUM, "txn", 0, 0, 0, 0, "txn|idle",
	            "thread 1 runs a transaction too, or only creates and "
	            "joins"},
	[P_CHOOSE] = {"choose", GEN_P_ENUM, "above", 0, 0, 0, 0, "above|any",
	              "the section an enter step picks: uniform among those "
	              "numbered above every held one, or uniform among all "
	              "the group's (entering only if above every held one, "
	              "else the step is impossible)"},
};

struct txn {
	struct gen_prog *p;
	const struct gen_args *a;
	uint32_t *held;  /* stack of held section ids, increasing (lifo) */
	int mutex;
	uint64_t segments, iterations, entries, exits, releases, skipped;
};

static void segment(struct txn *x, struct gen_rng *r, uint32_t tid)
{
	uint64_t lo = (uint64_t)x->a->v[P_MINEXP];
	uint64_t hi = (uint64_t)x->a->v[P_MAXEXP];
	gen_work(x->p, tid, (uint64_t)1 << gen_rng_range(r, lo, hi));
	x->segments++;
}

static void acquire(struct txn *x, uint32_t tid, uint32_t s)
{
	if (x->mutex)
		gen_lock(x->p, tid, s);
	else
		gen_wait(x->p, tid, s);
}

static void release(struct txn *x, uint32_t tid, uint32_t s)
{
	if (x->mutex)
		gen_unlock(x->p, tid, s);
	else
		gen_post(x->p, tid, s);
}

/* One thread's transaction on sections lo..hi (ids). */
static void transaction(struct txn *x, uint32_t tid, uint32_t lo,
                        uint32_t hi)
{
	const struct gen_args *a = x->a;
	struct gen_rng r;
	gen_rng_init(&r, a->seed, tid);
	int other = a->v[P_IMPOSSIBLE] == 1;
	int lifo = a->v[P_RELEASE] == 0;
	int any = a->v[P_CHOOSE] == 1;
	uint32_t h = 0;
	uint32_t *held = x->held;
	do {
		segment(x, &r, tid);
		x->iterations++;
		int enter = gen_rng_chance(&r, a->d[P_ENTER]);
		int can_enter = h == 0 || held[h - 1] < hi;
		uint32_t pick = 0;
		if (any && enter) {
			/* choose=any: draw first, then see if the hierarchy
			 * allows it */
			pick = (uint32_t)gen_rng_range(&r, lo, hi);
			can_enter = h == 0 || held[h - 1] < pick;
		}
		int can_exit = h > 0;
		if (enter ? !can_enter : !can_exit) {
			if (!other) {
				x->skipped++;
				continue;
			}
			enter = !enter; /* always possible: hi >= lo */
		}
		if (enter) {
			uint32_t from = h ? held[h - 1] + 1 : lo;
			uint32_t s = any && pick >= from
			                     ? pick
			                     : (uint32_t)gen_rng_range(&r, from, hi);
			held[h++] = s;
			acquire(x, tid, s);
			x->entries++;
		} else {
			uint32_t i = lifo ? h - 1
			                  : (uint32_t)gen_rng_below(&r, h);
			uint32_t s = held[i];
			memmove(held + i, held + i + 1,
			        (h - i - 1) * sizeof *held);
			h--;
			release(x, tid, s);
			x->exits++;
		}
	} while (gen_rng_chance(&r, a->d[P_CONTINUE]));
	while (h > 0) {
		segment(x, &r, tid);
		release(x, tid, held[--h]);
		x->releases++;
	}
	segment(x, &r, tid); /* the final segment */
}

static int build(const struct gen_args *a, struct gen_prog *p, char *err,
                 size_t errlen)
{
	uint32_t n = a->threads;
	int idle = a->v[P_MAIN] == 1;
	if (idle && n < 2)
		return gen_err(err, errlen,
		               "--main idle needs --threads 2 or more");
	if (a->v[P_MINEXP] > a->v[P_MAXEXP])
		return gen_err(err, errlen,
		               "--min-exp %lld is above --max-exp %lld",
		               (long long)a->v[P_MINEXP],
		               (long long)a->v[P_MAXEXP]);
	uint32_t first = idle ? 2 : 1; /* first transaction thread */
	uint32_t t = n - first + 1;    /* transaction threads        */
	struct gen_rng r;
	gen_rng_init(&r, a->seed, 0);
	uint32_t maxg = t / 2 > 1 ? t / 2 : 1;
	uint32_t g = a->v[P_GROUPS] ? (uint32_t)a->v[P_GROUPS]
	                            : (uint32_t)gen_rng_range(&r, 1, maxg);
	if (g > t)
		return gen_err(err, errlen,
		               "--groups %u: more groups than the %u "
		               "transaction threads",
		               g, t);
	uint64_t c = a->v[P_SECTIONS] ? (uint64_t)a->v[P_SECTIONS]
	                              : gen_rng_range(&r, 2 * (uint64_t)t,
	                                              3 * (uint64_t)t);
	if (c < t)
		return gen_err(err, errlen,
		               "--sections %llu: fewer than the %u transaction "
		               "threads",
		               (unsigned long long)c, t);

	uint32_t *perm = malloc(t * sizeof *perm);
	uint32_t *group = calloc((size_t)n + 1, sizeof *group); /* by id */
	uint32_t *size = calloc(g, sizeof *size);
	uint32_t *lo = calloc(g, sizeof *lo), *hi = calloc(g, sizeof *hi);
	struct txn x = {.p = p, .a = a, .mutex = a->v[P_PRIMITIVE] == 1};
	int rc = GEN_OK;
	if (!perm || !group || !size || !lo || !hi ||
	    gen_prog_threads(p, n) != 0) {
		rc = GEN_ENOMEM;
		goto out;
	}
	/* Groups: shuffle, deal round-robin. */
	for (uint32_t i = 0; i < t; i++)
		perm[i] = first + i;
	for (uint32_t i = t; i > 1; i--) {
		uint32_t j = (uint32_t)gen_rng_below(&r, i);
		uint32_t tmp = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = tmp;
	}
	for (uint32_t i = 0; i < t; i++) {
		group[perm[i]] = i % g;
		size[i % g]++;
	}
	/* Sections: in proportion to group size, ids contiguous per group. */
	uint64_t left = c, maxc = 0;
	for (uint32_t k = 0; k < g; k++) {
		uint64_t ck = c * size[k] / t;
		hi[k] = (uint32_t)ck; /* count for now */
		left -= ck;
	}
	for (uint32_t k = 0; left > 0; k = (k + 1) % g, left--)
		hi[k]++;
	for (uint32_t k = 0, next = 1; k < g; k++) {
		uint32_t ck = hi[k];
		lo[k] = next;
		hi[k] = next + ck - 1;
		next += ck;
		if (ck > maxc)
			maxc = ck;
	}
	for (uint64_t i = 0; i < c; i++) {
		if (x.mutex)
			gen_mutex_new(p);
		else
			gen_sem_new(p, 1);
	}
	x.held = malloc(maxc * sizeof *x.held);
	if (!x.held || p->oom) {
		rc = GEN_ENOMEM;
		goto out;
	}

	if (idle)
		gen_name(p, 1, "main");
	for (uint32_t id = first; id <= n; id++)
		gen_name(p, id, id == 1 ? "main_g%u" : "txn_g%u",
		         group[id] + 1);
	for (uint32_t id = 2; id <= n; id++)
		gen_create(p, 1, id);
	for (uint32_t id = first; id <= n; id++) {
		uint32_t k = group[id];
		transaction(&x, id, lo[k], hi[k]);
		if (id != 1)
			gen_exit(p, id);
	}
	for (uint32_t id = 2; id <= n; id++)
		gen_join(p, 1, id);
	gen_exit(p, 1);

	gen_info_set(&p->info, "groups", g);
	gen_info_set(&p->info, "sections", c);
	gen_info_set(&p->info, "segments", x.segments);
	gen_info_set(&p->info, "iterations", x.iterations);
	gen_info_set(&p->info, "entries", x.entries);
	gen_info_set(&p->info, "exits", x.exits);
	gen_info_set(&p->info, "releases", x.releases);
	gen_info_set(&p->info, "skipped", x.skipped);
out:
	free(perm);
	free(group);
	free(size);
	free(lo);
	free(hi);
	free(x.held);
	return rc == GEN_ENOMEM ? gen_oom(err, errlen) : rc;
}

const struct gen_family gen_fam_transactions = {
	.name = "transactions",
	.summary = "the thesis's generated test applications (Paper IV "
	           "Sect. 5, Paper V Sect. 3.2)",
	.help =
		"Threads run transactions: segments of 2^x work (x uniform in "
		"0..15), each\n"
		"followed by entering or leaving a critical section (a "
		"semaphore) with\n"
		"probability 1/2 each, hierarchically numbered so that no "
		"deadlock is possible;\n"
		"continue with probability 93.75%, else release the held "
		"sections (a segment\n"
		"before each) and end with a final segment.  2T..3T sections "
		"for T transaction\n"
		"threads, split among 1..T/2 groups that synchronize only "
		"within the group.\n"
		"Thread 1 creates the others, runs a transaction too "
		"(--main txn) and joins\n"
		"them.  Threads are named txn_gK (main_gK for thread 1), K = "
		"their group.",
	.example = "progen --family transactions --threads 16 --seed 1",
	.params = params,
	.nparams = NP,
	.def_threads = 16,
	.min_threads = 1,
	.build = build,
};
