/*
 * lockloop.c - a long, lock-heavy run for `make bench-scale`
 * (bench/scale): T threads make CALLS synchronization calls in all, each
 * an iteration of lock(m[i % 4]), a little work, unlock, and every 64th
 * iteration a post/wait on a semaphore shared by all (so that the trace
 * has semaphores too).  At the end it prints its peak resident memory
 * (VmHWM of /proc/self/status: with the recorder loaded, the recorder's
 * buffers are in it) and its counts.
 *
 *   lockloop [CALLS [T]]   CALLS = 1000000, T = 4
 */
#include <pthread.h>
#include <semaphore.h>
#include <string.h>

#include "work.h"

static pthread_mutex_t g_m[4] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
};
static sem_t g_sem;
static long g_iters; /* per thread */

static void *loop(void *arg)
{
	long id = (long)arg;
	uint64_t x = (uint64_t)id;
	for (long i = 0; i < g_iters; i++) {
		if (i % 64 == 63) {
			sem_post(&g_sem);
			count(C_POST);
			sem_wait(&g_sem);
			count(C_WAIT);
			continue;
		}
		pthread_mutex_t *m = &g_m[(i + id) % 4];
		pthread_mutex_lock(m);
		count(C_LOCK);
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		pthread_mutex_unlock(m);
		count(C_UNLOCK);
	}
	return (void *)(uintptr_t)(x & 1);
}

static long peak_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	long calls = arg_long(argc, argv, 1, 1000000);
	long nt = arg_long(argc, argv, 2, 4);
	g_iters = calls / 2 / nt;
	sem_init(&g_sem, 0, 0);
	pthread_t t[64];
	if (nt > 64)
		nt = 64;
	count(C_THREADS);
	for (long i = 0; i < nt; i++) {
		pthread_create(&t[i], NULL, loop, (void *)i);
		count(C_THREADS);
		count(C_CREATE);
	}
	for (long i = 0; i < nt; i++) {
		pthread_join(t[i], NULL);
		count(C_JOIN);
	}
	printf("peak_rss_kb %ld\n", peak_kb());
	print_counts();
	return 0;
}
