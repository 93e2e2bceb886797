/*
 * lockprobe.c - the recorder's worst case (issue 20): two threads, each
 * taking its own, never contended mutex around a short update (about 50
 * ns of CPU) N times.  Unrecorded, a lock/unlock pair costs a few tens of
 * nanoseconds, so the recorder's own cost per record decides how far a
 * prediction from its trace is off: the one-processor prediction is the
 * trace's total work, the real one-processor time this program's CPU
 * time.  bench/validate's probe compares the two.
 *
 *   lockprobe [N [U]]   N = 1000000 updates per thread, U = 36 steps per
 *                       update (about 1.2 ns each: an update of about 45
 *                       ns, 50 ns with the lock and unlock, measured)
 */
#include <pthread.h>

#include "work.h"

static long g_n, g_u;

struct slot {
	pthread_mutex_t m;
	uint64_t x;
	char pad[64];
};
static struct slot g_slot[2];

static void *worker(void *arg)
{
	struct slot *s = arg;
	for (long i = 0; i < g_n; i++) {
		pthread_mutex_lock(&s->m);
		uint64_t x = s->x;
		for (long k = 0; k < g_u; k++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		s->x = x;
		pthread_mutex_unlock(&s->m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	g_n = arg_long(argc, argv, 1, 1000000);
	g_u = arg_long(argc, argv, 2, 36);
	pthread_t t[2];
	count(C_THREADS);
	for (int i = 0; i < 2; i++) {
		pthread_mutex_init(&g_slot[i].m, NULL);
		g_slot[i].x = (uint64_t)i + 1;
		pthread_create(&t[i], NULL, worker, &g_slot[i]);
		count(C_THREADS);
		count(C_CREATE);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		count(C_JOIN);
	}
	counts[C_LOCK] = counts[C_UNLOCK] = 2 * g_n;
	fprintf(stderr, "lockprobe: %llx\n", (unsigned long long)(g_slot[0].x ^ g_slot[1].x));
	print_counts();
	return 0;
}
