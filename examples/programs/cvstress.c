/*
 * cvstress.c - a tiny condition-variable torture program for the
 * recorder's tests (tests/test_record.c): signals sent before anyone
 * waits and without the mutex, broadcasts, timed waits that time out
 * (1-60 us timeouts), plain waits, spurious-looking wake-ups.  Not an
 * example to predict: its timing is arbitrary by design.
 *
 *   cvstress [ROUNDS]   ROUNDS = 30
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "work.h"

#define WAITERS 3

static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static long g_gen;
static int g_done;

static void *waiter(void *arg)
{
	long id = (long)arg, seen = 0;
	for (;;) {
		pthread_mutex_lock(&g_mx);
		while (seen == g_gen && !g_done) {
			if (id == WAITERS - 1) {
				pthread_cond_wait(&g_cv, &g_mx);
			} else {
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_nsec += 1000 + 20000 * (seen % 3) + 1000 * id;
				if (ts.tv_nsec >= 1000000000) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000;
				}
				pthread_cond_timedwait(&g_cv, &g_mx, &ts);
			}
		}
		seen = g_gen;
		int done = g_done;
		pthread_mutex_unlock(&g_mx);
		work(3, (uint64_t)id);
		if (done)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 30);
	pthread_t t[WAITERS];
	count(C_THREADS);
	/* a signal and a broadcast before anyone waits */
	pthread_cond_signal(&g_cv);
	count(C_SIGNAL);
	pthread_cond_broadcast(&g_cv);
	count(C_BROADCAST);
	for (long i = 0; i < WAITERS; i++) {
		pthread_create(&t[i], NULL, waiter, (void *)i);
		count(C_THREADS);
		count(C_CREATE);
	}
	for (long r = 0; r < rounds; r++) {
		if (r % 4 == 1) {
			pthread_cond_signal(&g_cv); /* without the mutex */
			count(C_SIGNAL);
		}
		pthread_mutex_lock(&g_mx);
		g_gen++;
		if (r % 3 == 0) {
			pthread_cond_broadcast(&g_cv);
			count(C_BROADCAST);
		} else {
			pthread_cond_signal(&g_cv);
			count(C_SIGNAL);
		}
		pthread_mutex_unlock(&g_mx);
		work((uint64_t)(r % 5) * 10, (uint64_t)r);
	}
	pthread_mutex_lock(&g_mx);
	g_done = 1;
	pthread_cond_broadcast(&g_cv);
	count(C_BROADCAST);
	pthread_mutex_unlock(&g_mx);
	for (int i = 0; i < WAITERS; i++) {
		pthread_join(t[i], NULL);
		count(C_JOIN);
	}
	print_counts();
	return 0;
}
