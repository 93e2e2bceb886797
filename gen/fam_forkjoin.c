/*
 * fam_forkjoin.c - phases of parallel work separated by barriers, the
 * shape of the SPLASH-2 programs.
 *
 * Thread 1 does `init` serial work, creates threads 2..N (no work) and
 * works as one of the N workers.  Each phase: every worker does its part
 * (work + an extra uniform in [0, floor(work * imbalance)]), then all meet
 * at barrier 1; if serial > 0, thread 1 then does `serial` work alone
 * while the others wait at the barrier again.  After the last phase the
 * workers exit and thread 1 joins them in order.  skew=random draws the
 * extra per thread and phase; skew=static once per thread (a thread that
 * is slow stays slow).
 */
#include "gen/genint.h"

enum { P_PHASES = 0, P_WORK, P_IMBALANCE, P_SKEW, P_SERIAL, P_INIT, NP };

static const struct gen_param params[NP] = {
	[P_PHASES] = {"phases", GEN_P_INT, "4", 1, 1 << 20, 0, 0, NULL,
	              "parallel phases"},
	[P_WORK] = {"work", GEN_P_INT, "10000", 0, INT64_C(1) << 40, 0, 0,
	            NULL, "base work of each thread per phase, trace units"},
	[P_IMBALANCE] = {"imbalance", GEN_P_REAL, "0.5", 0, 0, 0, 1000,
	                 NULL,
	                 "load imbalance: a part's extra work is uniform in "
	                 "0..imbalance*work"},
	[P_SKEW] = {"skew", GEN_P_ENUM, "random", 0, 0, 0, 0,
	            "random|static",
	            "draw the extra per thread and phase, or once per thread"},
	[P_SERIAL] = {"serial", GEN_P_INT, "1000", 0, INT64_C(1) << 40, 0, 0,
	              NULL,
	              "serial work of thread 1 after each phase, between two "
	              "barriers; 0: one barrier per phase"},
	[P_INIT] = {"init", GEN_P_INT, "0", 0, INT64_C(1) << 40, 0, 0, NULL,
	            "serial work of thread 1 before it creates the others"},
};

static int build(const struct gen_args *a, struct gen_prog *p, char *err,
                 size_t errlen)
{
	uint32_t n = a->threads;
	uint64_t phases = (uint64_t)a->v[P_PHASES];
	uint64_t work = (uint64_t)a->v[P_WORK];
	uint64_t serial = (uint64_t)a->v[P_SERIAL];
	/* work * imbalance <= 2^40 * 1000 < 2^50: exact enough, and the
	 * conversion is the same on every IEEE machine. */
	uint64_t spread = (uint64_t)((double)work * a->d[P_IMBALANCE]);
	if (gen_prog_threads(p, n) != 0)
		return gen_oom(err, errlen);
	uint32_t b = gen_barrier_new(p);
	gen_name(p, 1, "main");
	for (uint32_t t = 2; t <= n; t++)
		gen_name(p, t, "worker");
	gen_work(p, 1, (uint64_t)a->v[P_INIT]);
	for (uint32_t t = 2; t <= n; t++)
		gen_create(p, 1, t);
	uint64_t total = 0, episodes = 0;
	for (uint32_t t = 1; t <= n; t++) {
		struct gen_rng r;
		gen_rng_init(&r, a->seed, t);
		uint64_t fixed = gen_rng_range(&r, 0, spread);
		for (uint64_t ph = 0; ph < phases; ph++) {
			uint64_t extra = a->v[P_SKEW] == 1
			                         ? fixed
			                         : gen_rng_range(&r, 0, spread);
			gen_work(p, t, work + extra);
			total += work + extra;
			gen_barrier(p, t, b, n);
			if (serial) {
				if (t == 1)
					gen_work(p, t, serial);
				gen_barrier(p, t, b, n);
			}
		}
		if (t != 1)
			gen_exit(p, t);
	}
	episodes = phases * (serial ? 2 : 1);
	for (uint32_t t = 2; t <= n; t++)
		gen_join(p, 1, t);
	gen_exit(p, 1);
	gen_info_set(&p->info, "phases", phases);
	gen_info_set(&p->info, "barriers", episodes);
	gen_info_set(&p->info, "parallel_work", total);
	return GEN_OK;
}

const struct gen_family gen_fam_forkjoin = {
	.name = "forkjoin",
	.summary = "phases of parallel work separated by barriers (SPLASH-2 "
	           "shape)",
	.help =
		"Thread 1 creates N-1 workers and works as one of them.  Each "
		"phase every thread\n"
		"does work + U[0, imbalance*work], then all meet at a barrier; "
		"thread 1 then does\n"
		"the serial part while the others wait at the barrier again.  "
		"Thread 1 joins\n"
		"the workers at the end.",
	.example = "progen --family forkjoin --threads 8 --seed 1 --phases 10 "
	           "--imbalance 0.2 --serial 500",
	.params = params,
	.nparams = NP,
	.def_threads = 8,
	.min_threads = 1,
	.build = build,
};
