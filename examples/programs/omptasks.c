/*
 * omptasks.c - nested OpenMP tasks: one thread (single) starts a binary
 * tree of tasks of depth D; a node does UNIT/4 of work, creates its two
 * children as tasks and waits for them (taskwait); a leaf does UNIT.
 * The team's threads run the tasks.
 *
 *   omptasks [D [UNIT [T]]]   D = 8, UNIT = 1000 us, T = 2
 *
 * Counts in the recorder's mapping (docs/record.md, OpenMP): a task is a
 * `post` where it is created, a `wait` where it starts, before it a
 * `lock`/`unlock` of the team's queue if it was created outside any task
 * (the root's two children: the root runs in the single), and a `post`
 * at its end; a taskwait one
 * `wait` per child; the single a `lock`/`unlock` of the team's queue per
 * thread and a `barrier`; the region two
 * `barrier`s per member; each thread's first region a `lock`/`unlock`.
 */
#include <omp.h>

#include "work.h"

static long g_unit;
static long g_depth; /* the root's: its node runs in the single */
static volatile uint64_t g_sink;

static void node(long d, uint64_t seed)
{
	if (d == 0) {
		g_sink += work((uint64_t)g_unit, seed);
		return;
	}
	g_sink += work((uint64_t)g_unit / 4, seed);
	for (int c = 0; c < 2; c++) {
#pragma omp task firstprivate(c)
		node(d - 1, seed * 2 + (uint64_t)c);
		count(C_POST);
		if (d == g_depth)
			count(C_LOCK); /* its start: a request to the team's queue */
		count(C_WAIT);
		count(C_POST);
	}
#pragma omp taskwait
	count(C_WAIT);
	count(C_WAIT);
}

int main(int argc, char **argv)
{
	long depth = arg_long(argc, argv, 1, 8);
	g_depth = depth;
	g_unit = arg_long(argc, argv, 2, 1000);
	long nt = arg_long(argc, argv, 3, 2);
	long team = 0;
#pragma omp parallel num_threads((int)nt)
	{
#pragma omp single
		{
			team = omp_get_num_threads();
			node(depth, 1);
		}
		count(C_LOCK);
		count(C_BARRIER);
	}
	counts[C_THREADS] = team;
	counts[C_LOCK] += team;
	counts[C_UNLOCK] = counts[C_LOCK];
	counts[C_BARRIER] += 2 * team;
	printf("omptasks: %ld threads, depth %ld\n", team, depth);
	print_counts();
	return 0;
}
