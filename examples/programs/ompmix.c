/*
 * ompmix.c - a test program (not a benchmark): every OpenMP construct the
 * recorder maps (docs/record.md, OpenMP), each counted in that mapping,
 * so that test_record compares its counts with the trace: sections,
 * single with copyprivate, an ordered dynamic loop, a schedule(runtime)
 * loop made dynamic with omp_set_schedule, critical (named and not),
 * atomic on a long double, simple and nest locks with omp_test_lock
 * that finds them busy and free, tasks created in a loop with taskwait,
 * explicit barriers, a loop end with nowait, and a nested parallel region
 * (two levels of two threads).
 *
 *   ompmix [N]   N = 40 (loop iterations)
 */
#include <omp.h>

#include "work.h"

static omp_lock_t g_lk;
static omp_nest_lock_t g_nest;

/* omp_test_lock, counted by outcome (a success: a trylock ok, and the
 * unlock after it) */
static void test_lock(long *ok, long *busy)
{
	if (omp_test_lock(&g_lk)) {
		__atomic_fetch_add(ok, 1, __ATOMIC_RELAXED);
		omp_unset_lock(&g_lk);
		count(C_UNLOCK);
	} else {
		__atomic_fetch_add(busy, 1, __ATOMIC_RELAXED);
	}
}

/* a request to the team's queue: lock + unlock */
static void q(void)
{
	count(C_LOCK);
	count(C_UNLOCK);
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 40);
	static volatile uint64_t sink;
	long double ld = 0;
	long team = 0, threads = 0;
	static long trylock_ok, trylock_busy;
	omp_init_lock(&g_lk);
	omp_init_nest_lock(&g_nest);
	omp_set_schedule(omp_sched_dynamic, 2);
	omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
	{
		long me = omp_get_thread_num();
#pragma omp master
		team = omp_get_num_threads();
		q(); /* the first region: the queue's first lock */
		count(C_BARRIER); /* the region's start */
		/* sections: 3 sections, a request each, and each thread's
		 * last, empty request */
#pragma omp sections
		{
#pragma omp section
			{ sink += work(20, 1); q(); }
#pragma omp section
			{ sink += work(20, 2); q(); }
#pragma omp section
			{ sink += work(20, 3); q(); }
		}
		q();
		count(C_BARRIER);
		/* single with copyprivate: a request each, a barrier each
		 * (inside), then the construct's end barrier */
		long v = 0;
#pragma omp single copyprivate(v)
		v = 7;
		q();
		count(C_BARRIER);
		count(C_BARRIER);
		sink += (uint64_t)v;
		/* ordered dynamic loop: chunks of one */
#pragma omp for ordered schedule(dynamic)
		for (long i = 0; i < n; i++) {
			sink += work(5, (uint64_t)i);
			q();
#pragma omp ordered
			{
				/* the team's block i waits for block i - 1's post */
				sink += (uint64_t)i;
				if (i > 0)
					count(C_WAIT);
				count(C_POST);
			}
		}
		q();
		count(C_BARRIER);
		/* schedule(runtime), dynamic,2 (omp_set_schedule), nowait */
#pragma omp for schedule(runtime) nowait
		for (long i = 0; i < n; i++) {
			sink += work(5, (uint64_t)i);
			if (i % 2 == 0)
				q();
		}
		q();
		/* critical, named critical, atomic fallback, locks */
		for (int k = 0; k < 5; k++) {
#pragma omp critical
			{ sink += 1; count(C_LOCK); count(C_UNLOCK); }
#pragma omp critical(other)
			{ sink += 2; count(C_LOCK); count(C_UNLOCK); }
#pragma omp atomic
			ld += 1.0;
			count(C_LOCK);
			count(C_UNLOCK);
			omp_set_nest_lock(&g_nest);
			omp_set_nest_lock(&g_nest); /* inner level: not recorded */
			sink += 3;
			omp_unset_nest_lock(&g_nest);
			omp_unset_nest_lock(&g_nest);
			count(C_LOCK);
			count(C_UNLOCK);
		}
#pragma omp barrier
		count(C_BARRIER);
		/* omp_test_lock: thread 0 holds the lock across a barrier, so
		 * thread 1's test finds it busy; then free */
		if (me == 0) {
			omp_set_lock(&g_lk);
			count(C_LOCK);
		}
#pragma omp barrier
		count(C_BARRIER);
		if (me == 1)
			test_lock(&trylock_ok, &trylock_busy);
#pragma omp barrier
		count(C_BARRIER);
		if (me == 0) {
			omp_unset_lock(&g_lk);
			count(C_UNLOCK);
		}
#pragma omp barrier
		count(C_BARRIER);
		if (me == 1)
			test_lock(&trylock_ok, &trylock_busy);
		/* tasks: each thread creates 3 and waits for them */
		for (int k = 0; k < 3; k++) {
#pragma omp task
			sink += work(10, (uint64_t)k);
			count(C_POST); /* created */
			count(C_LOCK); /* started: the team's queue */
			count(C_UNLOCK);
			count(C_WAIT); /* started */
			count(C_POST); /* ended */
		}
#pragma omp taskwait
		for (int k = 0; k < 3; k++)
			count(C_WAIT);
		/* a nested region: each thread leads a team of two */
#pragma omp parallel num_threads(2)
		{
			if (omp_get_thread_num() == 1) {
				__atomic_fetch_add(&threads, 1, __ATOMIC_RELAXED);
				q(); /* a new thread's first region */
			}
			count(C_BARRIER);
			sink += work(20, 9);
#pragma omp barrier
			count(C_BARRIER);
			count(C_BARRIER); /* the region's end */
		}
		count(C_BARRIER); /* the outer region's end */
	}
	omp_destroy_lock(&g_lk);
	omp_destroy_nest_lock(&g_nest);
	counts[C_THREADS] = team + threads;
	counts[C_TRYLOCK] = trylock_ok + trylock_busy;
	/* a successful test is a trylock ok, not a lock */
	printf("ompmix: %ld threads, trylock ok %ld busy %ld, %.0Lf\n", team + threads, trylock_ok,
	       trylock_busy, ld);
	print_counts();
	return 0;
}
