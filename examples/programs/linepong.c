/*
 * linepong.c - the probe of bench/validate's real runs on two or more CPUs
 * (issue 28): two threads, pinned to the first two CPUs this process may
 * use, hand one cache line back and forth N times by spinning on it (no
 * system call, no lock), and the program prints
 *   linepong cpus A B round_trips N ns R
 * with R the wall time of one round trip (two moves of the line), in ns.
 *
 * On the project's VM the figure has two modes that last seconds each:
 * about 70 ns, and about 350 ns when the host runs the VM's two CPUs far
 * apart (measured 2026-11-26: NAS SP on two CPUs took 2.2-2.9 s in the
 * first, 4.5-6.8 s in the second).  A real run is only comparable with a
 * prediction from a machine file measured in the same mode.
 *
 *   linepong [N]   N = 200000 round trips (about 15 ms at 70 ns)
 *
 * Exit status 0; 1 on a bad argument; 2 when fewer than two CPUs may be
 * used or a thread cannot be made or pinned.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "work.h"

/* the line: odd values are the first thread's serves, even the returns */
static struct {
	_Alignas(64) atomic_long v;
	char pad[64 - sizeof(atomic_long)];
} g_line;
static long g_n;

static int pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* plays unpinned when it cannot pin (main reports that), never hangs */
static void *returner(void *arg)
{
	void *failed = pin((int)(long)arg - 1) != 0 ? arg : NULL; /* arg: CPU + 1 */
	for (long i = 0; i < g_n; i++) {
		while (atomic_load_explicit(&g_line.v, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&g_line.v, 2 * i + 2, memory_order_release);
	}
	return failed;
}

int main(int argc, char **argv)
{
	g_n = arg_long(argc, argv, 1, 200000);
	cpu_set_t s;
	int cpu[2], k = 0;
	if (sched_getaffinity(0, sizeof s, &s) != 0)
		return 2;
	for (int c = 0; c < CPU_SETSIZE && k < 2; c++)
		if (CPU_ISSET(c, &s))
			cpu[k++] = c;
	if (k < 2) {
		fprintf(stderr, "linepong: needs two CPUs, may use %d\n", k);
		return 2;
	}
	if (pin(cpu[0]) != 0) {
		fprintf(stderr, "linepong: cannot pin to CPU %d\n", cpu[0]);
		return 2;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, returner, (void *)(long)(cpu[1] + 1)) != 0) {
		fprintf(stderr, "linepong: cannot create a thread\n");
		return 2;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < g_n; i++) {
		atomic_store_explicit(&g_line.v, 2 * i + 1, memory_order_release);
		while (atomic_load_explicit(&g_line.v, memory_order_acquire) != 2 * i + 2)
			;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	void *failed;
	pthread_join(t, &failed);
	if (failed) {
		fprintf(stderr, "linepong: cannot pin to CPU %d\n", cpu[1]);
		return 2;
	}
	double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)g_n;
	printf("linepong cpus %d %d round_trips %ld ns %.1f\n", cpu[0], cpu[1], g_n, ns);
	return 0;
}
