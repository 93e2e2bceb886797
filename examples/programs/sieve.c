/*
 * sieve.c - the prime number generator of Paper VII, Section 7.2: a
 * generator thread feeds 2..X into a chain of filter threads; each filter
 * owns one prime, drops the numbers it divides and passes on the others;
 * a number that passes the last filter is a new prime and gets a new
 * filter thread.  X = 397 gives 78 primes, 79 threads besides main.
 * Channels are one-slot buffers guarded by two semaphores.
 *
 *   sieve [X [WORK]]   X = 397, WORK = 500 (units of ~1 us per test)
 */
#include <pthread.h>
#include <semaphore.h>

#include "work.h"

struct chan {
	sem_t empty, full;
	long item;
};

struct filter {
	struct chan *in;
	long prime;
};

static long g_work;
static volatile uint64_t g_sink;

static void send(struct chan *c, long v)
{
	sem_wait(&c->empty);
	count(C_WAIT);
	c->item = v;
	sem_post(&c->full);
	count(C_POST);
}

static long recv(struct chan *c)
{
	sem_wait(&c->full);
	count(C_WAIT);
	long v = c->item;
	sem_post(&c->empty);
	count(C_POST);
	return v;
}

static struct chan *chan_new(void)
{
	struct chan *c = calloc(1, sizeof *c);
	sem_init(&c->empty, 0, 1);
	sem_init(&c->full, 0, 0);
	return c;
}

static void *filter(void *arg)
{
	struct filter *f = arg;
	struct chan *out = NULL;
	pthread_t next;
	struct filter *nf = NULL;
	for (;;) {
		long v = recv(f->in);
		if (v == 0)
			break;
		g_sink += work(g_work, (uint64_t)v);
		if (v % f->prime == 0)
			continue;
		if (!out) {
			out = chan_new();
			nf = malloc(sizeof *nf);
			nf->in = out;
			nf->prime = v;
			count(C_THREADS);
			count(C_CREATE);
			pthread_create(&next, NULL, filter, nf);
			continue; /* v is the new filter's prime */
		}
		send(out, v);
	}
	if (out) {
		send(out, 0);
		pthread_join(next, NULL);
		count(C_JOIN);
		sem_destroy(&out->empty);
		sem_destroy(&out->full);
		free(out);
		free(nf);
	}
	return NULL;
}

struct gen {
	struct chan *out;
	long x;
};

static void *generator(void *arg)
{
	struct gen *g = arg;
	for (long v = 2; v <= g->x; v++) {
		g_sink += work(g_work / 4, (uint64_t)v);
		send(g->out, v);
	}
	send(g->out, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	long x = arg_long(argc, argv, 1, 397);
	g_work = arg_long(argc, argv, 2, 500);
	struct chan *c = chan_new();
	struct gen g = { c, x };
	struct filter f = { c, 0 };
	pthread_t tg, tf;
	count(C_THREADS); /* main */
	/* the first number the first filter receives is 2, its prime */
	count(C_THREADS);
	count(C_CREATE);
	pthread_create(&tg, NULL, generator, &g);
	/* the first filter takes its prime from the channel */
	struct chan *first = c;
	long p = recv(first);
	f.prime = p;
	count(C_THREADS);
	count(C_CREATE);
	pthread_create(&tf, NULL, filter, &f);
	pthread_join(tg, NULL);
	count(C_JOIN);
	pthread_join(tf, NULL);
	count(C_JOIN);
	printf("sieve: primes up to %ld in a chain of filter threads\n", x);
	print_counts();
	return 0;
}
