/*
 * forkjoin.c - a fork-join program with barriers and load imbalance, as
 * the SPLASH-2 programs: W worker threads run P phases separated by a
 * barrier; worker i does WORK * (1 + i/W) per phase (the last worker
 * about twice the first), and worker 0 does a serial part between phases
 * (a second barrier holds the others until it is done).
 *
 *   forkjoin [PHASES [WORK [W]]]   PHASES = 30, WORK = 5000 us, W = 4
 */
#include <pthread.h>

#include "work.h"

static pthread_barrier_t g_bar;
static long g_phases, g_work, g_w;
static volatile uint64_t g_sink;

static void *worker(void *arg)
{
	long i = (long)arg;
	for (long p = 0; p < g_phases; p++) {
		g_sink += work((uint64_t)(g_work + g_work * i / g_w), (uint64_t)(p * 131 + i));
		pthread_barrier_wait(&g_bar);
		count(C_BARRIER);
		if (i == 0)
			g_sink += work((uint64_t)g_work / 5, (uint64_t)p);
		pthread_barrier_wait(&g_bar);
		count(C_BARRIER);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	g_phases = arg_long(argc, argv, 1, 30);
	g_work = arg_long(argc, argv, 2, 5000);
	g_w = arg_long(argc, argv, 3, 4);
	pthread_t *t = malloc((size_t)g_w * sizeof *t);
	pthread_barrier_init(&g_bar, NULL, (unsigned)g_w);
	count(C_THREADS);
	for (long i = 0; i < g_w; i++) {
		pthread_create(&t[i], NULL, worker, (void *)i);
		count(C_THREADS);
		count(C_CREATE);
	}
	for (long i = 0; i < g_w; i++) {
		pthread_join(t[i], NULL);
		count(C_JOIN);
	}
	pthread_barrier_destroy(&g_bar);
	free(t);
	printf("forkjoin: %ld workers, %ld phases\n", g_w, g_phases);
	print_counts();
	return 0;
}
