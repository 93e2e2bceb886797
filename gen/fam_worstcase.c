/*
 * fam_worstcase.c - the binpacking worst case of Paper IV Section 3.
 *
 * Four threads T1..T4 (trace threads 2..5) with works l+3e, l, l+e, l+2e;
 * T3 and T4 each need the results of both T1 and T2: T1 posts semaphore 1
 * twice and T2 semaphore 2 twice after their work; T3 and T4 wait on 1
 * and 2 before theirs.  Thread 1 (main) creates T1..T4 with no work, joins
 * them in order and exits.  On two processors, latency 0, binpacking
 * ({1,2,3} on one processor, {4,5} on the other) gives 4l+6e; the optimum
 * ({1,2,5}, {3,4}) gives 2l+5e.  With l = 1000, e = 10 the output equals
 * ../shared/examples/binpack-worst-case.trace up to comments.
 */
#include "gen/genint.h"

enum { P_L = 0, P_E, NP };

static const struct gen_param params[NP] = {
	[P_L] = {"l", GEN_P_INT, "1000", 1, INT64_C(1) << 50, 0, 0, NULL,
	         "the long work l, trace units"},
	[P_E] = {"e", GEN_P_INT, "10", 0, INT64_C(1) << 50, 0, 0, NULL,
	         "epsilon, the small work difference (l >> e), trace units"},
};

static int build(const struct gen_args *a, struct gen_prog *p, char *err,
                 size_t errlen)
{
	if (a->threads && a->threads != 5)
		return gen_err(err, errlen,
		               "--threads %u: the worst case has 5 threads "
		               "(main and T1..T4)",
		               a->threads);
	uint64_t l = (uint64_t)a->v[P_L], e = (uint64_t)a->v[P_E];
	if (gen_prog_threads(p, 5) != 0)
		return gen_oom(err, errlen);
	gen_name(p, 1, "main");
	for (uint32_t i = 1; i <= 4; i++)
		gen_name(p, i + 1, "T%u", i);
	uint32_t s1 = gen_sem_new(p, 0), s2 = gen_sem_new(p, 0);
	for (uint32_t t = 2; t <= 5; t++)
		gen_create(p, 1, t);
	/* T1 = thread 2: l + 3e, then both results of T1 */
	gen_work(p, 2, l + 3 * e);
	gen_post(p, 2, s1);
	gen_post(p, 2, s1);
	gen_exit(p, 2);
	/* T2 = thread 3: l */
	gen_work(p, 3, l);
	gen_post(p, 3, s2);
	gen_post(p, 3, s2);
	gen_exit(p, 3);
	/* T3 = thread 4: l + e;  T4 = thread 5: l + 2e */
	for (uint32_t t = 4; t <= 5; t++) {
		gen_wait(p, t, s1);
		gen_wait(p, t, s2);
		gen_work(p, t, l + (t - 3) * e);
		gen_exit(p, t);
	}
	for (uint32_t t = 2; t <= 5; t++)
		gen_join(p, 1, t);
	gen_exit(p, 1);
	gen_info_set(&p->info, "binpack_makespan", 4 * l + 6 * e);
	gen_info_set(&p->info, "optimal_makespan", 2 * l + 5 * e);
	return GEN_OK;
}

const struct gen_family gen_fam_worstcase = {
	.name = "worstcase",
	.summary = "the binpacking worst case of Paper IV Sect. 3",
	.help =
		"Four threads T1..T4 (ids 2..5) with works l+3e, l, l+e, l+2e; "
		"T3 and T4 each\n"
		"wait for the results of T1 and T2 (semaphores 1 and 2).  On "
		"two processors\n"
		"binpacking ({1,2,3},{4,5}) takes 4l+6e, the best binding "
		"({1,2,5},{3,4}) 2l+5e.\n"
		"Always 5 threads; no randomness (--seed is ignored).",
	.example = "progen --family worstcase --l 1000 --e 10",
	.params = params,
	.nparams = NP,
	.def_threads = 0,
	.min_threads = 1,
	.build = build,
};
