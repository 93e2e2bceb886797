/*
 * prodcons.c - the producer-consumer program of Paper I, Section 5: 150
 * producer threads each insert ten items into a shared buffer and exit; 75
 * consumer threads fetch items.  A semaphore counts the items in the
 * buffer; one mutex guards insertion and removal; the buffer is large
 * enough that producers never stall.  (In the paper each consumer picks
 * one item; here each picks 20, so that all 1500 items are consumed and
 * the program ends by joining everyone.)
 *
 *   prodcons [WORK]    WORK = 500 (units of ~1 us to produce an item;
 *                      consuming one takes WORK/2)
 */
#include <pthread.h>
#include <semaphore.h>

#include "work.h"

#define PRODUCERS 150
#define CONSUMERS 75
#define ITEMS 10                            /* per producer */
#define TAKES (PRODUCERS * ITEMS / CONSUMERS) /* per consumer */

static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
static sem_t g_items;
static long g_buf[PRODUCERS * ITEMS];
static int g_head, g_tail;
static long g_work;
static volatile uint64_t g_sink;

static void *producer(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < ITEMS; i++) {
		long item = (long)work(g_work, (uint64_t)(id * ITEMS + i));
		pthread_mutex_lock(&g_mx);
		count(C_LOCK);
		g_buf[g_tail++] = item;
		pthread_mutex_unlock(&g_mx);
		count(C_UNLOCK);
		sem_post(&g_items);
		count(C_POST);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	for (int i = 0; i < TAKES; i++) {
		sem_wait(&g_items);
		count(C_WAIT);
		pthread_mutex_lock(&g_mx);
		count(C_LOCK);
		long item = g_buf[g_head++];
		pthread_mutex_unlock(&g_mx);
		count(C_UNLOCK);
		g_sink += work(g_work / 2, (uint64_t)item);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	g_work = arg_long(argc, argv, 1, 500);
	pthread_t t[PRODUCERS + CONSUMERS];
	sem_init(&g_items, 0, 0);
	count(C_THREADS);
	for (long i = 0; i < PRODUCERS + CONSUMERS; i++) {
		/* interleaved, two producers per consumer */
		int cons = i % 3 == 2;
		pthread_create(&t[i], NULL, cons ? consumer : producer, (void *)i);
		count(C_THREADS);
		count(C_CREATE);
	}
	for (int i = 0; i < PRODUCERS + CONSUMERS; i++) {
		pthread_join(t[i], NULL);
		count(C_JOIN);
	}
	printf("prodcons: %d producers, %d consumers, %d items\n", PRODUCERS, CONSUMERS,
	       PRODUCERS * ITEMS);
	print_counts();
	return 0;
}
