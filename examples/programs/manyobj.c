/*
 * manyobj.c - many synchronization objects, each used once, for the
 * recorder's tests (tests/test_record.c, test_many_objects): N mutexes,
 * each locked and unlocked once, then N condition variables, each
 * signalled once with no waiter (as Splash-3's BARNES signals some
 * 9,900 distinct ones).  The recorder's object table then grows past
 * its first sizes and its objects past their first chunk.  Not an
 * example to predict.
 *
 *   manyobj [N]   N = 10000
 */
#include <pthread.h>
#include <stdlib.h>

#include "work.h"

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 10000);
	pthread_mutex_t *m = calloc((size_t)n, sizeof *m);
	pthread_cond_t *c = calloc((size_t)n, sizeof *c);
	if (!m || !c)
		return 1;
	counts[C_THREADS] = 1;
	for (long i = 0; i < n; i++) {
		pthread_mutex_init(&m[i], NULL);
		pthread_mutex_lock(&m[i]);
		count(C_LOCK);
		pthread_mutex_unlock(&m[i]);
		count(C_UNLOCK);
	}
	for (long i = 0; i < n; i++) {
		pthread_cond_init(&c[i], NULL);
		pthread_cond_signal(&c[i]);
		count(C_SIGNAL);
	}
	print_counts();
	free(c);
	free(m);
	return 0;
}
