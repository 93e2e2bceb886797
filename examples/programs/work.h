/*
 * work.h - what the example programs share: a deterministic CPU-bound
 * work loop and operation counters, printed as one line
 *   counts threads N <op> N ...
 * whose operation names are the trace's (docs/trace-format.md), so that a
 * recorded trace can be checked against what the program did.
 */
#ifndef SB_EXAMPLE_WORK_H
#define SB_EXAMPLE_WORK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* About one microsecond of CPU work per unit on a 2020s x86 core. */
static inline uint64_t work(uint64_t units, uint64_t seed)
{
	uint64_t x = seed | 1;
	for (uint64_t i = 0; i < units * 400; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

enum { C_THREADS, C_CREATE, C_JOIN, C_LOCK, C_UNLOCK, C_TRYLOCK, C_WAIT, C_POST,
       C_CWAIT, C_SIGNAL, C_BROADCAST, C_BARRIER, C_SLEEP, C_N };
static const char *const count_name[C_N] = {
	"threads", "create", "join", "lock", "unlock", "trylock", "wait", "post",
	"cwait", "signal", "broadcast", "barrier", "sleep"
};
static long counts[C_N];

static inline void count(int what)
{
	__atomic_fetch_add(&counts[what], 1, __ATOMIC_RELAXED);
}

static inline void print_counts(void)
{
	printf("counts");
	for (int i = 0; i < C_N; i++)
		if (counts[i] || i == C_THREADS)
			printf(" %s %ld", count_name[i], counts[i]);
	printf("\n");
}

/* A positive integer argument, or the default. */
static inline long arg_long(int argc, char **argv, int i, long dflt)
{
	if (argc <= i)
		return dflt;
	char *end;
	long v = strtol(argv[i], &end, 10);
	if (*end || v <= 0) {
		fprintf(stderr, "%s: argument %d must be a positive integer\n", argv[0], i);
		exit(1);
	}
	return v;
}

#endif
