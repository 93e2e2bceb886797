/*
 * ompbarrier.c - an imbalanced OpenMP barrier loop (issue 21): T threads
 * run P phases separated by `#pragma omp barrier`; in phase p thread
 * p mod T does 3 units of work and the others 1.
 *
 *   ompbarrier [PHASES [UNIT [T]]]   PHASES = 100, UNIT = 1000 us, T = 2
 *
 * Its counts line uses the recorder's mapping (docs/record.md, OpenMP):
 * each explicit barrier is a `barrier`, a parallel region two more per
 * member (its start and its end), and each thread's first region a
 * `lock`/`unlock` of the team's work queue.
 */
#include <omp.h>

#include "work.h"

int main(int argc, char **argv)
{
	long phases = arg_long(argc, argv, 1, 100);
	long unit = arg_long(argc, argv, 2, 1000);
	long nt = arg_long(argc, argv, 3, 2);
	static volatile uint64_t sink;
	long team = 0;
#pragma omp parallel num_threads((int)nt)
	{
		long me = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp single
		team = n;
		/* the single's own request and its barrier */
		count(C_LOCK);
		count(C_UNLOCK);
		count(C_BARRIER);
		for (long p = 0; p < phases; p++) {
			sink += work((uint64_t)(p % n == me ? 3 * unit : unit), (uint64_t)(p * 131 + me));
#pragma omp barrier
			count(C_BARRIER);
		}
	}
	counts[C_THREADS] = team;
	counts[C_BARRIER] += 2 * team;
	counts[C_LOCK] += team;
	counts[C_UNLOCK] += team;
	printf("ompbarrier: %ld threads, %ld phases\n", team, phases);
	print_counts();
	return 0;
}
