/*
 * pool.c - work queues (sim.h, "Work queues"; docs/models.md): which
 * threads are a queue's interchangeable workers, its mutex, and the
 * workers' `lock M` records in the order the recording acquired them.
 * The run deals them out (sync.h, pool_take).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/simint.h"

static int fail(char *why, size_t len, struct sim_pool *pl, const char *fmt, const char *a,
                uint32_t x, uint32_t y)
{
	snprintf(why, len, fmt, a, x, y);
	sim_pool_free(pl);
	return -1;
}

/* A `lock M` record and its line in the file. */
struct lr {
	uint32_t line, rec;
};

static int lr_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct lr *)a)->line, y = ((const struct lr *)b)->line;
	return (x > y) - (x < y);
}

/* Dense index of external thread id `id`, or UINT32_MAX. */
static uint32_t dense_of(const struct trace *tr, uint32_t id)
{
	uint32_t lo = 0, hi = tr->nthreads;
	while (lo < hi) { /* threads[] by increasing id */
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->threads[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tr->nthreads && tr->threads[lo].id == id ? lo : UINT32_MAX;
}

/* "2-4,7" into member[]; 0, or -1 (not such a list, or an unknown id). */
static int parse_ids(const struct trace *tr, const char *s, uint8_t *member, char *why,
                     size_t len)
{
	const char *q = s;
	while (*q) {
		char *e;
		unsigned long a = strtoul(q, &e, 10), b = a;
		if (e == q || *q < '0' || *q > '9')
			return 1; /* not a list: a name */
		q = e;
		if (*q == '-') {
			const char *q2 = q + 1;
			b = strtoul(q2, &e, 10);
			if (e == q2 || *q2 < '0' || *q2 > '9' || b < a)
				return 1;
			q = e;
		}
		if (*q == ',')
			q++;
		else if (*q)
			return 1;
		for (unsigned long id = a; id <= b; id++) {
			uint32_t d = id <= UINT32_MAX ? dense_of(tr, (uint32_t)id) : UINT32_MAX;
			if (d == UINT32_MAX) {
				snprintf(why, len, "pool %s: the trace has no thread %lu", s, id);
				return -1;
			}
			member[d] = 1;
		}
	}
	return 0;
}

int sim_pool_new(const struct sim_program *p, const char *spec, struct sim_pool **out,
                 char *why, size_t len)
{
	*out = NULL;
	const struct trace *tr = p->tr;
	uint32_t n = p->n;
	struct sim_pool *pl = calloc(1, sizeof *pl);
	if (!pl || !(pl->member = calloc(n ? n : 1, 1)))
		return fail(why, len, pl, "%s: out of memory", "pool", 0, 0);
	pl->p = p;
	int r = parse_ids(tr, spec, pl->member, why, len);
	if (r < 0) {
		sim_pool_free(pl);
		return -1;
	}
	if (r > 0) { /* a name */
		memset(pl->member, 0, n);
		for (uint32_t i = 0; i < n; i++)
			if (tr->threads[i].name != TRACE_NONE &&
			    strcmp(tr->strings + tr->threads[i].name, spec) == 0)
				pl->member[i] = 1;
	}
	sim_program_facts(p); /* maxheld */
	/* the mutex: each worker's first lock */
	uint32_t m = UINT32_MAX, first = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!pl->member[i])
			continue;
		pl->nworkers++;
		const struct trace_rec *rec = tr->rec + tr->threads[i].first;
		uint32_t j = 0, nr = tr->threads[i].nrec;
		while (j < nr && rec[j].op != TRACE_LOCK)
			j++;
		if (j == nr)
			return fail(why, len, pl, "pool %s: thread %u never locks a mutex: not a worker of a queue",
			            spec, tr->threads[i].id, 0);
		if (m == UINT32_MAX) {
			m = rec[j].a;
			first = i;
		} else if (rec[j].a != m) {
			return fail(why, len, pl,
			            "pool %s: threads %u and %u first lock different mutexes: not the workers of one queue",
			            spec, tr->threads[first].id, tr->threads[i].id);
		} else if (p->maxheld[i] != p->maxheld[first]) {
			return fail(why, len, pl,
			            "pool %s: threads %u and %u hold different numbers of mutexes at once: not interchangeable",
			            spec, tr->threads[first].id, tr->threads[i].id);
		}
	}
	if (pl->nworkers < 2)
		return fail(why, len, pl, "pool %s: names %u thread(s); a pool needs two workers or more",
		            spec, pl->nworkers, 0);
	/* At each of its `lock M` records a worker holds no mutex: then a
	 * worker running another's segment holds what that one held, never
	 * more than their common maxheld (the run keeps at most that many,
	 * sync.h held_push).  A mutex held across the queue's lock ties the
	 * tasks to their worker (the differential test found one whose
	 * dealt segments unlocked a mutex their worker never took). */
	for (uint32_t i = 0; i < n; i++) {
		if (!pl->member[i])
			continue;
		const struct trace_rec *rec = tr->rec + tr->threads[i].first;
		uint32_t h = 0;
		for (uint32_t j = 0; j < tr->threads[i].nrec; j++) {
			unsigned op = rec[j].op;
			if (op == TRACE_LOCK && rec[j].a == m && h)
				return fail(why, len, pl,
				            "pool %s: thread %u holds a mutex at its lock of the queue's mutex (line %u): its tasks are not interchangeable",
				            spec, tr->threads[i].id, rec[j].line);
			h += (op == TRACE_LOCK) + (op == TRACE_TRYLOCK ? rec[j].b : 0);
			h -= (op == TRACE_UNLOCK) & (h != 0);
		}
	}
	pl->m = m;
	/* the workers' `lock M` records, in file order */
	size_t cap = 1;
	for (uint32_t i = 0; i < n; i++)
		cap += pl->member[i] ? tr->threads[i].nrec : 0;
	struct lr *v = malloc(cap * sizeof *v);
	if (!v)
		return fail(why, len, pl, "%s: out of memory", "pool", 0, 0);
	for (uint32_t i = 0; i < n; i++) {
		if (!pl->member[i])
			continue;
		const struct trace_thread *th = &tr->threads[i];
		for (uint32_t j = 0; j < th->nrec; j++) {
			const struct trace_rec *rc = &tr->rec[th->first + j];
			if (rc->op == TRACE_LOCK && rc->a == m)
				v[pl->nseg++] = (struct lr){rc->line, th->first + j};
		}
	}
	pl->seg = malloc((size_t)pl->nseg * sizeof *pl->seg + 1);
	if (!pl->seg) {
		free(v);
		return fail(why, len, pl, "%s: out of memory", "pool", 0, 0);
	}
	/* file order: lines are distinct, so the order is total */
	qsort(v, pl->nseg, sizeof *v, lr_cmp);
	for (uint32_t k = 0; k < pl->nseg; k++)
		pl->seg[k] = v[k].rec;
	free(v);
	*out = pl;
	return 0;
}

void sim_pool_free(struct sim_pool *pool)
{
	if (!pool)
		return;
	free(pool->seg);
	free(pool->member);
	free(pool);
}

uint32_t sim_pool_workers(const struct sim_pool *pool)
{
	return pool ? pool->nworkers : 0;
}

uint32_t sim_pool_segments(const struct sim_pool *pool)
{
	return pool ? pool->nseg : 0;
}

uint32_t sim_pool_mutex(const struct sim_pool *pool)
{
	return pool ? pool->m : 0;
}
