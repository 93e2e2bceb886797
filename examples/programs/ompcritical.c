/*
 * ompcritical.c - a reduction through critical sections: T threads share
 * N items (static schedule); each item costs UNIT of work, then adds its
 * result to a shared sum in `#pragma omp critical`; every 8th item also
 * updates a histogram in `#pragma omp critical(hist)`, every 32nd a
 * shared maximum under an omp_lock_t, every 64th a long double total
 * with `#pragma omp atomic` (libgomp's atomic fallback: GOMP_atomic_start).
 *
 *   ompcritical [N [UNIT [T]]]   N = 6000, UNIT = 50 us, T = 2
 *
 * Counts in the recorder's mapping (docs/record.md, OpenMP): each
 * critical section, lock and atomic fallback a `lock`/`unlock`; the
 * loop's end a `barrier`, the region two per member; each thread's
 * first region a `lock`/`unlock` of the team's queue.
 */
#include <omp.h>

#include "work.h"

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 6000);
	long unit = arg_long(argc, argv, 2, 50);
	long nt = arg_long(argc, argv, 3, 2);
	uint64_t sum = 0, max = 0, hist[16] = { 0 };
	long double total = 0;
	long team = 0;
	omp_lock_t lk;
	omp_init_lock(&lk);
#pragma omp parallel num_threads((int)nt)
	{
#pragma omp master
		team = omp_get_num_threads();
#pragma omp for schedule(static)
		for (long i = 0; i < n; i++) {
			uint64_t v = work((uint64_t)unit, (uint64_t)i);
#pragma omp critical
			{
				sum += v >> 8;
				count(C_LOCK);
			}
			if (i % 8 == 0) {
#pragma omp critical(hist)
				{
					hist[v % 16]++;
					count(C_LOCK);
				}
			}
			if (i % 32 == 0) {
				omp_set_lock(&lk);
				if (v > max)
					max = v;
				count(C_LOCK);
				omp_unset_lock(&lk);
			}
			if (i % 64 == 0) {
#pragma omp atomic
				total += (long double)(v % 1000);
				count(C_LOCK);
			}
		}
		count(C_BARRIER);
	}
	omp_destroy_lock(&lk);
	counts[C_THREADS] = team;
	counts[C_LOCK] += team;
	counts[C_UNLOCK] = counts[C_LOCK];
	counts[C_BARRIER] += 2 * team;
	printf("ompcritical: %ld threads, %ld items, sum %llu, total %.0Lf\n", team, n,
	       (unsigned long long)(sum % 1000000), total);
	print_counts();
	return 0;
}
