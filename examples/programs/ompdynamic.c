/*
 * ompdynamic.c - OpenMP dynamic loops with uneven iterations: L loops of
 * N iterations, `schedule(dynamic)` (chunks of one), iteration i costs
 * 1 + (37 i mod 11) units (1 to 11), in one parallel region of T threads.
 * Whichever thread asks next takes the next iteration: a work queue.
 *
 *   ompdynamic [N [UNIT [T [L]]]]   N = 100, UNIT = 200 us, T = 2, L = 4
 *
 * Counts in the recorder's mapping (docs/record.md, OpenMP): every
 * request for a chunk, the last, empty one of each thread in each loop
 * too, is a `lock`/`unlock` of the team's queue, as is each thread's
 * first region; each loop's end a `barrier`, the region two per member.
 */
#include <omp.h>

#include "work.h"

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 100);
	long unit = arg_long(argc, argv, 2, 200);
	long nt = arg_long(argc, argv, 3, 2);
	long loops = arg_long(argc, argv, 4, 4);
	static volatile uint64_t sink;
	long team = 0, done = 0;
#pragma omp parallel num_threads((int)nt)
	{
#pragma omp master
		team = omp_get_num_threads();
		for (long l = 0; l < loops; l++) {
#pragma omp for schedule(dynamic)
			for (long i = 0; i < n; i++) {
				sink += work((uint64_t)(unit * (1 + (37 * i) % 11)), (uint64_t)(i + l));
				__atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
				count(C_LOCK);
			}
			count(C_LOCK); /* the empty request */
			count(C_BARRIER);
		}
	}
	counts[C_THREADS] = team;
	counts[C_LOCK] += team;
	counts[C_UNLOCK] = counts[C_LOCK];
	counts[C_BARRIER] += 2 * team;
	printf("ompdynamic: %ld threads, %ld loops, %ld iterations\n", team, loops, done);
	print_counts();
	return 0;
}
