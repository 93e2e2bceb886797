/*
 * affinity.c - prints the CPUs each of its threads may run on, as the
 * launcher's test reads them back (tests/test_record.c): N threads are
 * created one after the other (thread ids 2..N+1 in creation order, 1 =
 * the initial thread); each records its affinity set; main prints
 *   thread ID cpus C1,C2,...
 * for every thread after joining them.
 *
 *   affinity [N]   N = 3
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "work.h"

static char g_sets[65][256];

static void self_set(char *out)
{
	cpu_set_t s;
	size_t k = 0;
	out[0] = 0;
	if (sched_getaffinity(0, sizeof s, &s) != 0)
		return;
	for (int c = 0; c < CPU_SETSIZE && k + 8 < 256; c++)
		if (CPU_ISSET(c, &s))
			k += (size_t)snprintf(out + k, 256 - k, "%s%d", k ? "," : "", c);
}

static void *thread(void *arg)
{
	self_set(g_sets[(long)arg]);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 3);
	if (n > 64)
		n = 64;
	pthread_t t[64];
	self_set(g_sets[0]);
	for (long i = 0; i < n; i++) {
		pthread_create(&t[i], NULL, thread, (void *)(i + 1));
		pthread_join(t[i], NULL);
	}
	for (long i = 0; i <= n; i++)
		printf("thread %ld cpus %s\n", i + 1, g_sets[i]);
	return 0;
}
