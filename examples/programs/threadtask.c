/*
 * threadtask.c - thread per task (issue 25): the main thread creates N
 * short threads, BATCH at a time, and joins each batch before the next;
 * each thread does WORK units of work and takes one mutex (a shared
 * counter).  Creation, wake-up and join dominate: across processors they
 * cost tens of microseconds here, which the machine model
 * (shadowbind-calibrate, --machine) charges and the contract's does not.
 *
 *   threadtask [N [BATCH [WORK]]]   N = 20000, BATCH = 64, WORK = 10 us
 */
#include <pthread.h>

#include "work.h"

static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static long g_work, g_done;
static volatile uint64_t g_sink;

static void *task(void *arg)
{
	uint64_t r = work((uint64_t)g_work, (uint64_t)(long)arg);
	pthread_mutex_lock(&g_m);
	count(C_LOCK);
	g_done++;
	g_sink += r;
	pthread_mutex_unlock(&g_m);
	count(C_UNLOCK);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 20000);
	long batch = arg_long(argc, argv, 2, 64);
	g_work = arg_long(argc, argv, 3, 10);
	pthread_t *t = malloc((size_t)batch * sizeof *t);
	if (!t)
		return 1;
	count(C_THREADS);
	for (long i = 0; i < n; i += batch) {
		long b = n - i < batch ? n - i : batch;
		for (long j = 0; j < b; j++) {
			if (pthread_create(&t[j], NULL, task, (void *)(i + j)) != 0) {
				fprintf(stderr, "threadtask: pthread_create failed\n");
				return 1;
			}
			count(C_THREADS);
			count(C_CREATE);
		}
		for (long j = 0; j < b; j++) {
			pthread_join(t[j], NULL);
			count(C_JOIN);
		}
	}
	free(t);
	printf("threadtask: %ld tasks done\n", g_done);
	print_counts();
	return g_done == n ? 0 : 1;
}
