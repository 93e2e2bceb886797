/*
 * ompbarrier.c - an imbalanced OpenMP barrier loop (issue 21): T threads
 * run P phases separated by `#pragma omp barrier`; in phase p thread
 * p mod T does HEAVY units of work and the others 1.
 *
 *   ompbarrier [PHASES [UNIT [T [HEAVY]]]]
 *     PHASES = 100, UNIT = 1000 us (0: none), T = 2, HEAVY = 3
 *
 * HEAVY = 1 balances the phases: every thread arrives at about the same
 * time, so what a barrier costs its last arrival (libgomp wakes the
 * others with a system call each time) is on the critical path, which
 * with HEAVY = 3 it is not (bench/validate's OpenMP latency, issue 28).
 *
 * Its counts line uses the recorder's mapping (docs/record.md, OpenMP):
 * each explicit barrier is a `barrier`, a parallel region two more per
 * member (its start and its end), and each thread's first region a
 * `lock`/`unlock` of the team's work queue.
 */
#include <omp.h>
#include <string.h>

#include "work.h"

int main(int argc, char **argv)
{
	long phases = arg_long(argc, argv, 1, 100);
	/* UNIT = 0: no work, the barriers alone */
	long unit = argc > 2 && !strcmp(argv[2], "0") ? 0 : arg_long(argc, argv, 2, 1000);
	long nt = arg_long(argc, argv, 3, 2);
	long heavy = arg_long(argc, argv, 4, 3);
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
			sink += work((uint64_t)(p % n == me ? heavy * unit : unit), (uint64_t)(p * 131 + me));
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
