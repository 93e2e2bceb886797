/*
 * workqueue.c - a condition-variable work queue: the main thread puts N
 * tasks of varying size into a bounded queue (8 slots), W worker threads
 * take them; `not empty` and `not full` condition variables, one mutex; at
 * the end the main thread broadcasts `done`.
 *
 *   workqueue [N [WORK [W]]]   N = 400 tasks, WORK = 2500 us on average,
 *                              W = 3 workers
 */
#include <pthread.h>

#include "work.h"

#define SLOTS 8

static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_not_full = PTHREAD_COND_INITIALIZER;
static long g_q[SLOTS];
static int g_n, g_head, g_done;
static long g_work;
static volatile uint64_t g_sink;

static void lock(void)
{
	pthread_mutex_lock(&g_mx);
	count(C_LOCK);
}

static void unlock(void)
{
	pthread_mutex_unlock(&g_mx);
	count(C_UNLOCK);
}

static void cwait(pthread_cond_t *c)
{
	pthread_cond_wait(c, &g_mx);
	count(C_CWAIT);
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		lock();
		while (g_n == 0 && !g_done)
			cwait(&g_not_empty);
		if (g_n == 0) {
			unlock();
			return NULL;
		}
		long task = g_q[g_head];
		g_head = (g_head + 1) % SLOTS;
		g_n--;
		pthread_cond_signal(&g_not_full);
		count(C_SIGNAL);
		unlock();
		g_sink += work((uint64_t)(g_work * (1 + task % 5) / 3), (uint64_t)task);
	}
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 400);
	g_work = arg_long(argc, argv, 2, 2500);
	long w = arg_long(argc, argv, 3, 3);
	pthread_t *t = malloc((size_t)w * sizeof *t);
	count(C_THREADS);
	for (long i = 0; i < w; i++) {
		pthread_create(&t[i], NULL, worker, NULL);
		count(C_THREADS);
		count(C_CREATE);
	}
	for (long k = 0; k < n; k++) {
		g_sink += work((uint64_t)g_work / 20, (uint64_t)k); /* make the task */
		lock();
		while (g_n == SLOTS)
			cwait(&g_not_full);
		g_q[(g_head + g_n) % SLOTS] = k * 7;
		g_n++;
		pthread_cond_signal(&g_not_empty);
		count(C_SIGNAL);
		unlock();
	}
	lock();
	g_done = 1;
	pthread_cond_broadcast(&g_not_empty);
	count(C_BROADCAST);
	unlock();
	for (long i = 0; i < w; i++) {
		pthread_join(t[i], NULL);
		count(C_JOIN);
	}
	free(t);
	printf("workqueue: %ld tasks, %ld workers\n", n, w);
	print_counts();
	return 0;
}
