/*
 * fam_dag.c - a random layered task graph mapped onto threads with
 * semaphores.
 *
 * `depth` levels of `width` tasks; between each task u of level i and
 * each task v of level i+1 an edge u -> v with probability edge-prob.
 * Each task's work is uniform in [work-min, work-max].  Task j of a level
 * runs on thread (j mod N) + 1 (mapping=column) or on a uniformly chosen
 * thread (mapping=random).  A thread runs its tasks in (level, index)
 * order: for each incoming edge from another thread (in order of the
 * source's index) it waits on that edge's semaphore, does the task's
 * work, then posts the semaphore of each outgoing edge to another thread.
 * Edges between tasks of one thread need nothing (program order).  Every
 * edge goes one level down and each thread runs its tasks level by level,
 * so the program cannot deadlock.  Thread 1 creates the others first and
 * joins them at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "gen/genint.h"

#define WIDTH_MAX 2048
#define TASKS_MAX (1u << 22)
#define EDGES_MAX (1u << 24)

enum { P_WIDTH = 0, P_DEPTH, P_EDGE, P_WMIN, P_WMAX, P_MAPPING, NP };

static const struct gen_param params[NP] = {
	[P_WIDTH] = {"width", GEN_P_INT, "0", 0, WIDTH_MAX, 0, 0, NULL,
	             "tasks per level; 0: the number of threads"},
	[P_DEPTH] = {"depth", GEN_P_INT, "8", 1, 1 << 20, 0, 0, NULL,
	             "levels"},
	[P_EDGE] = {"edge-prob", GEN_P_REAL, "0.3", 0, 0, 0, 1, NULL,
	            "probability of an edge from a task to each task of the "
	            "next level"},
	[P_WMIN] = {"work-min", GEN_P_INT, "100", 0, INT64_C(1) << 40, 0, 0,
	            NULL, "smallest task work, trace units"},
	[P_WMAX] = {"work-max", GEN_P_INT, "1000", 0, INT64_C(1) << 40, 0, 0,
	            NULL, "largest task work, trace units"},
	[P_MAPPING] = {"mapping", GEN_P_ENUM, "column", 0, 0, 0, 0,
	               "column|random",
	               "task j of a level on thread (j mod N)+1, or on a "
	               "random thread"},
};

static void owners(struct gen_rng *r, int random, uint32_t w, uint32_t n,
                   uint32_t *own)
{
	for (uint32_t j = 0; j < w; j++)
		own[j] = random ? (uint32_t)gen_rng_range(r, 1, n)
		                : j % n + 1;
}

static int build(const struct gen_args *a, struct gen_prog *p, char *err,
                 size_t errlen)
{
	uint32_t n = a->threads;
	uint32_t w = a->v[P_WIDTH] ? (uint32_t)a->v[P_WIDTH] : n;
	uint32_t depth = (uint32_t)a->v[P_DEPTH];
	uint64_t wmin = (uint64_t)a->v[P_WMIN], wmax = (uint64_t)a->v[P_WMAX];
	if (w > WIDTH_MAX)
		return gen_err(err, errlen,
		               "width %u: at most %d tasks per level (use "
		               "--width)",
		               w, WIDTH_MAX);
	if ((uint64_t)w * depth > TASKS_MAX)
		return gen_err(err, errlen,
		               "width %u x depth %u: at most %u tasks", w,
		               depth, TASKS_MAX);
	if (wmin > wmax)
		return gen_err(err, errlen,
		               "--work-min %llu is above --work-max %llu",
		               (unsigned long long)wmin,
		               (unsigned long long)wmax);
	int random = a->v[P_MAPPING] == 1;
	double pe = a->d[P_EDGE];
	size_t ww = (size_t)w * w;
	uint32_t *own = malloc(w * sizeof *own);
	uint32_t *own_next = malloc(w * sizeof *own_next);
	uint32_t *in = calloc(ww, sizeof *in);  /* level i-1 -> i: sem+1 */
	uint32_t *out = calloc(ww, sizeof *out); /* level i -> i+1       */
	int rc = GEN_OK;
	if (!own || !own_next || !in || !out || gen_prog_threads(p, n) != 0) {
		rc = gen_oom(err, errlen);
		goto done;
	}
	struct gen_rng r;
	gen_rng_init(&r, a->seed, 0);
	gen_name(p, 1, "main");
	for (uint32_t t = 2; t <= n; t++) {
		gen_name(p, t, "worker");
		gen_create(p, 1, t);
	}
	uint64_t edges = 0, cross = 0;
	owners(&r, random, w, n, own);
	for (uint32_t i = 0; i < depth; i++) {
		/* edges i -> i+1 (matrix out[u * w + v]: 0 none, 1 same
		 * thread, s + 1 semaphore s) */
		memset(out, 0, ww * sizeof *out);
		if (i + 1 < depth) {
			owners(&r, random, w, n, own_next);
			for (uint32_t u = 0; u < w; u++)
				for (uint32_t v = 0; v < w; v++) {
					if (!gen_rng_chance(&r, pe))
						continue;
					edges++;
					if (own[u] == own_next[v]) {
						out[(size_t)u * w + v] = 1;
						continue;
					}
					if (++cross > EDGES_MAX) {
						rc = gen_err(err, errlen,
						             "more than %u edges "
						             "between threads: use a "
						             "smaller --edge-prob, "
						             "--width or --depth",
						             EDGES_MAX);
						goto done;
					}
					out[(size_t)u * w + v] =
						gen_sem_new(p, 0) + 1;
				}
		}
		for (uint32_t j = 0; j < w; j++) {
			uint32_t t = own[j];
			for (uint32_t u = 0; i > 0 && u < w; u++) {
				uint32_t s = in[(size_t)u * w + j];
				if (s > 1)
					gen_wait(p, t, s - 1);
			}
			gen_work(p, t, gen_rng_range(&r, wmin, wmax));
			for (uint32_t v = 0; v < w; v++) {
				uint32_t s = out[(size_t)j * w + v];
				if (s > 1)
					gen_post(p, t, s - 1);
			}
		}
		uint32_t *tmp = in;
		in = out;
		out = tmp;
		tmp = own;
		own = own_next;
		own_next = tmp;
		if (p->oom)
			break;
	}
	for (uint32_t t = 2; t <= n; t++)
		gen_exit(p, t);
	for (uint32_t t = 2; t <= n; t++)
		gen_join(p, 1, t);
	gen_exit(p, 1);
	gen_info_set(&p->info, "tasks", (uint64_t)w * depth);
	gen_info_set(&p->info, "edges", edges);
	gen_info_set(&p->info, "cross_edges", cross);
done:
	free(own);
	free(own_next);
	free(in);
	free(out);
	return rc;
}

const struct gen_family gen_fam_dag = {
	.name = "dag",
	.summary = "a random layered task graph mapped onto threads with "
	           "semaphores",
	.help =
		"depth levels of width tasks, an edge from each task to each "
		"task of the next\n"
		"level with probability edge-prob, task work uniform in "
		"[work-min, work-max].\n"
		"Tasks are mapped onto the threads (by column or at random); "
		"an edge between\n"
		"two threads is a semaphore: the source posts it after its "
		"work, the target\n"
		"waits on it before its work.  Thread 1 creates the others and "
		"joins them.",
	.example = "progen --family dag --threads 8 --seed 1 --width 16 "
	           "--depth 10 --edge-prob 0.2",
	.params = params,
	.nparams = NP,
	.def_threads = 8,
	.min_threads = 1,
	.build = build,
};
