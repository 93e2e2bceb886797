/*
 * pingpong.c - two threads hand a token back and forth N times through
 * two semaphores: the calibration program of bench/validate.  Bound to one
 * processor every hand-off is a context switch; bound to two, a wake-up
 * of a thread on another processor.  The measured time per hand-off gives
 * the simulator's --switch-cost and --latency for this machine.
 *
 *   pingpong [N]   N = 20000 round trips (40000 hand-offs)
 */
#include <pthread.h>
#include <semaphore.h>

#include "work.h"

static sem_t g_ping, g_pong;
static long g_n;

static void *pong(void *arg)
{
	(void)arg;
	for (long i = 0; i < g_n; i++) {
		sem_wait(&g_ping);
		count(C_WAIT);
		sem_post(&g_pong);
		count(C_POST);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	g_n = arg_long(argc, argv, 1, 20000);
	sem_init(&g_ping, 0, 0);
	sem_init(&g_pong, 0, 0);
	pthread_t t;
	count(C_THREADS);
	pthread_create(&t, NULL, pong, NULL);
	count(C_THREADS);
	count(C_CREATE);
	for (long i = 0; i < g_n; i++) {
		sem_post(&g_ping);
		count(C_POST);
		sem_wait(&g_pong);
		count(C_WAIT);
	}
	pthread_join(t, NULL);
	count(C_JOIN);
	printf("pingpong: %ld round trips\n", g_n);
	print_counts();
	return 0;
}
