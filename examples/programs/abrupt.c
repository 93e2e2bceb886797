/*
 * abrupt.c - ends while its threads are still running or blocked, for the
 * recorder's tests (tests/test_record.c): thread 2 waits on a condition
 * variable nobody signals, thread 3 on a semaphore nobody posts, thread 4
 * computes; then the main thread ends the process:
 *
 *   abrupt exit    exit(0)
 *   abrupt term    raise(SIGTERM)
 *   abrupt int     raise(SIGINT)
 *   abrupt _exit   _exit(0) (a cut trace, or none: docs/record.md)
 *   abrupt kill    raise(SIGKILL) (the same)
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "work.h"

static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static sem_t g_sem, g_ready;
static volatile int g_stop;

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&g_mx);
	sem_post(&g_ready);
	for (;;)
		pthread_cond_wait(&g_cv, &g_mx);
	return NULL;
}

static void *sem_waiter(void *arg)
{
	(void)arg;
	sem_post(&g_ready);
	sem_wait(&g_sem);
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	sem_post(&g_ready);
	while (!g_stop)
		work(10, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	pthread_t t[3];
	sem_init(&g_sem, 0, 0);
	sem_init(&g_ready, 0, 0);
	pthread_create(&t[0], NULL, cond_waiter, NULL);
	pthread_create(&t[1], NULL, sem_waiter, NULL);
	pthread_create(&t[2], NULL, spinner, NULL);
	for (int i = 0; i < 3; i++)
		sem_wait(&g_ready);
	/* thread 2 is in pthread_cond_wait once it can take the mutex */
	pthread_mutex_lock(&g_mx);
	pthread_mutex_unlock(&g_mx);
	fflush(stdout);
	if (!strcmp(how, "term"))
		raise(SIGTERM);
	else if (!strcmp(how, "int"))
		raise(SIGINT);
	else if (!strcmp(how, "_exit"))
		_exit(0);
	else if (!strcmp(how, "kill"))
		raise(SIGKILL);
	exit(0);
}
