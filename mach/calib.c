/*
 * calib.c - measure this machine (mach.h: mach_calibrate).
 *
 * hwloc names the topology: for every pair of usable CPUs the deepest
 * object that holds both (a core for SMT siblings, a cache level for
 * cores sharing it, a package, the machine) is the pair's kind; one pair
 * of each kind is measured (the first in CPU order) and stands for all
 * pairs of its kind.  Every figure is measured in `rounds` repeats, round
 * by round (each round measures every figure once, so that a phase of the
 * host, other load coming and going for seconds, touches all figures
 * alike and the medians span the whole run); the file gets their median
 * and extremes.
 *
 *   switch (x = x): two threads of one CPU pass a token through two
 *     semaphores (sem_post wakes the other, sem_wait blocks): what a
 *     hand-off adds to the threads' CPU time (a trace's work holds it,
 *     docs/record.md): the wall time less the process's CPU time per
 *     hand-off (about 0 on an idle CPU; switch_cpu says its CPU time).
 *   latency x -> y: a thread on y blocks in sem_wait, one on x spinning
 *     posts 5 us later (the waiter asleep); the time from the post to
 *     the waiter running again (wake_after), the median of a round.
 *   the kinds of hand-off (docs/sim.md), on the first pair of the first
 *     kind: wake_busy, the same with a SCHED_IDLE spinner on y; transfer,
 *     a counter passed back and forth by two spinning threads (a cache
 *     line's move); sleep, the dwell from which a posted waiter has
 *     fallen asleep (its wake-up takes half the latency or more).
 *   create: a thread on x creates threads pinned to y
 *     (pthread_attr_setaffinity_np, as shadowbind-run does), each a task
 *     as threadtask's (its work(10) and a mutex), CJ_BATCH in a row,
 *     then joins them (a thread-per-task program's state: y busy with the
 *     earlier ones; local and remote batches back to back in each
 *     round): the creator's CPU time inside pthread_create (create,
 *     create_remote) and pthread_join (join, join_remote), the child's
 *     before its start routine (start, start_remote), and the child's
 *     CPU time after its start routine returned (exit, exit_remote: the
 *     process's CPU time less the creator's, less what the children's
 *     clocks read at the end of their routines), which no record of a
 *     trace holds; plus the CPU's time the process's CPU time leaves out
 *     (the kernel's end of the thread: on one CPU, threads created
 *     CJ_BATCH at a time and then joined, as a thread-per-task program
 *     does, the wall time less the process's CPU time and less a switch
 *     per thread; the round's figure is added to exit_remote too, where
 *     the creator's CPU idles and the wall time cannot say it).
 *   wake_local (mach_opts.openmp): two threads on processor 0's CPU meet
 *     at a barrier as libgomp's (GCC 12, config/linux: bar.c, wait.h)
 *     when a binding shares a CPU (shadowbind-run's GOMP_SPINCOUNT=100):
 *     a waiter spins 100 pauses on the barrier's generation, then sleeps
 *     in futex_wait; the last arrival advances the generation and wakes
 *     the waiters with futex_wake, every time.  No work between the
 *     barriers, so the wall time of one barrier is what a waiter woken
 *     on its own CPU waits beyond the work: an OpenMP trace leaves all
 *     of it out (libgomp's waits are not work, docs/record.md), a
 *     pthread trace holds a local hand-off's system calls in its work
 *     (for it the figure is `switch`).
 */
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mach/mach.h"
#include "mach/machint.h"

static int fail(char *why, size_t len, const char *fmt, const char *arg)
{
	snprintf(why, len, fmt, arg);
	return -1;
}

static double now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int pin_self(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* ---- hand-off ---- */

struct pp {
	sem_t ping, pong;
	long n;       /* round trips */
	int cpu;      /* the partner's CPU */
	int err;
};

static void *pp_partner(void *arg)
{
	struct pp *p = arg;
	if (pin_self(p->cpu) != 0) {
		p->err = 1;
		/* keep the protocol so that the measuring thread ends */
	}
	for (long i = 0; i < p->n; i++) {
		sem_wait(&p->ping);
		sem_post(&p->pong);
	}
	return NULL;
}

/* One round of n round trips between x and y: the wall time and the
 * process's CPU time per hand-off (ns); -1, or 0. */
static int handoff(int x, int y, long n, double *wall, double *cpu)
{
	struct pp p;
	memset(&p, 0, sizeof p);
	p.n = n;
	p.cpu = y;
	sem_init(&p.ping, 0, 0);
	sem_init(&p.pong, 0, 0);
	int rc = -1;
	pthread_t t;
	if (n < 2 || pin_self(x) != 0 || pthread_create(&t, NULL, pp_partner, &p) != 0)
		goto out;
	/* one round trip first: the partner has pinned itself */
	sem_post(&p.ping);
	sem_wait(&p.pong);
	double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 1; i < n; i++) {
		sem_post(&p.ping);
		sem_wait(&p.pong);
	}
	double t1 = now_ns(CLOCK_MONOTONIC), c1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	pthread_join(t, NULL);
	if (!p.err) {
		*wall = (t1 - t0) / (2.0 * (double)(n - 1));
		*cpu = (c1 - c0) / (2.0 * (double)(n - 1));
		rc = 0;
	}
out:
	sem_destroy(&p.ping);
	sem_destroy(&p.pong);
	return rc;
}

static struct mach_fig fig_of(double *v, int n);

/* ---- the kinds of hand-off ---- */

/* A spinner of the lowest priority (SCHED_IDLE) on a CPU: it keeps the
 * CPU busy, so that a thread woken there finds it running (no halted CPU
 * to wake), and gives way at once to any other thread. */
struct spin {
	atomic_int *stop;
	int cpu;
};

static void *spinner(void *arg)
{
	struct spin *s = arg;
	struct sched_param sp = {0};
	if (pin_self(s->cpu) == 0)
		pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	while (!atomic_load_explicit(s->stop, memory_order_relaxed))
		;
	return NULL;
}

/* A wake-up timed from both ends: a thread on y blocks in sem_wait; a
 * thread on x, spinning, posts `dwell` ns after the waiter began to wait
 * (clock_gettime before the call); the waiter reads the clock when
 * sem_wait returns.  The median over n wake-ups of post to running
 * (ns): with dwell of a few us the waiter has fallen asleep (the
 * latency of a wake-up); with dwell near 0 it had not yet. */
struct wk {
	sem_t sem;
	atomic_long go, done;
	double t0, posted;   /* written before go/done: ordered by them */
	double dwell;
	long n;
	int cpu, err;
};

static void *wk_waker(void *arg)
{
	struct wk *k = arg;
	k->err = pin_self(k->cpu) != 0;
	for (long i = 1; i <= k->n; i++) {
		while (atomic_load_explicit(&k->go, memory_order_acquire) != i)
			;
		double until = k->t0 + k->dwell;
		while (now_ns(CLOCK_MONOTONIC) < until)
			;
		k->posted = now_ns(CLOCK_MONOTONIC);
		sem_post(&k->sem);
		while (atomic_load_explicit(&k->done, memory_order_acquire) != i)
			;
	}
	return NULL;
}

static int wake_after(int x, int y, long n, double dwell, double *med)
{
	struct wk k;
	memset(&k, 0, sizeof k);
	atomic_init(&k.go, 0);
	atomic_init(&k.done, 0);
	k.n = n;
	k.cpu = x;
	k.dwell = dwell;
	double *v = malloc((size_t)n * sizeof *v);
	if (!v || sem_init(&k.sem, 0, 0) != 0) {
		free(v);
		return -1;
	}
	pthread_t t;
	int rc = -1;
	if (pin_self(y) != 0 || pthread_create(&t, NULL, wk_waker, &k) != 0)
		goto out;
	for (long i = 1; i <= n; i++) {
		k.t0 = now_ns(CLOCK_MONOTONIC);
		atomic_store_explicit(&k.go, i, memory_order_release);
		sem_wait(&k.sem);
		v[i - 1] = now_ns(CLOCK_MONOTONIC) - k.posted;
		atomic_store_explicit(&k.done, i, memory_order_release);
	}
	pthread_join(t, NULL);
	if (!k.err) {
		*med = fig_of(v, (int)n).med;
		rc = 0;
	}
out:
	sem_destroy(&k.sem);
	free(v);
	return rc;
}

/* The same with y busy (a SCHED_IDLE spinner there). */
static int wake_after_busy(int x, int y, long n, double dwell, double *med)
{
	atomic_int stop = 0;
	struct spin sy = {&stop, y};
	pthread_t ty;
	if (pthread_create(&ty, NULL, spinner, &sy) != 0)
		return -1;
	int rc = wake_after(x, y, n, dwell, med);
	atomic_store(&stop, 1);
	pthread_join(ty, NULL);
	return rc;
}

/* Spinning hand-offs: two threads on x and y that never block pass a
 * counter back and forth; the wall time of one pass (ns): a cache line's
 * move between the CPUs, what a thread that takes a free lock released
 * on the other CPU waits for. */
struct sp {
	atomic_long flag;
	long n;
	int cpu, err;
};

static void *sp_partner(void *arg)
{
	struct sp *p = arg;
	p->err = pin_self(p->cpu) != 0;
	for (long i = 0; i < p->n; i++) {
		while (atomic_load_explicit(&p->flag, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&p->flag, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

static int transfer(int x, int y, long n, double *one)
{
	struct sp p;
	memset(&p, 0, sizeof p);
	atomic_init(&p.flag, 0);
	p.n = n;
	p.cpu = y;
	pthread_t t;
	if (pin_self(x) != 0 || pthread_create(&t, NULL, sp_partner, &p) != 0)
		return -1;
	double t0 = now_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < n; i++) {
		atomic_store_explicit(&p.flag, 2 * i + 1, memory_order_release);
		while (atomic_load_explicit(&p.flag, memory_order_acquire) != 2 * i + 2)
			;
	}
	double t1 = now_ns(CLOCK_MONOTONIC);
	pthread_join(t, NULL);
	if (p.err)
		return -1;
	*one = (t1 - t0) / (2.0 * (double)n);
	return 0;
}

/* ---- a wake-up on a CPU an OpenMP team shares (wake_local) ---- */

/* libgomp's spin before it sleeps where a binding shares a CPU
 * (GOMP_SPINCOUNT=100, which shadowbind-run sets then, and libgomp's own
 * count when a team has more threads than CPUs) */
#define GOMP_SPIN 100

/* libgomp's cpu_relax (config/x86/cpu.h: a pause; elsewhere a compiler
 * barrier) */
static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* A barrier of two threads as libgomp's (config/linux/bar.c,
 * gomp_barrier_wait; wait.h, do_wait): the generation is the futex word. */
struct gb {
	atomic_int gen, awaited;
	long n;
};

static void gb_wait(struct gb *b)
{
	int g = atomic_load_explicit(&b->gen, memory_order_acquire);
	if (atomic_fetch_sub_explicit(&b->awaited, 1, memory_order_acq_rel) == 1) {
		/* the last: the next barrier awaits both again, then the
		 * release, and a futex_wake whether anyone sleeps or not */
		atomic_store_explicit(&b->awaited, 2, memory_order_relaxed);
		atomic_store_explicit(&b->gen, g + 1, memory_order_release);
		syscall(SYS_futex, (void *)&b->gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		return;
	}
	while (atomic_load_explicit(&b->gen, memory_order_acquire) == g) {
		int i = 0;
		while (i < GOMP_SPIN && atomic_load_explicit(&b->gen, memory_order_relaxed) == g) {
			relax();
			i++;
		}
		if (i == GOMP_SPIN)
			syscall(SYS_futex, (void *)&b->gen, FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
	}
}

static void *gb_partner(void *arg)
{
	struct gb *b = arg;
	for (long i = 0; i < b->n; i++)
		gb_wait(b);
	return NULL;
}

/* n barriers of two threads on CPU x (the partner inherits x): the wall
 * time of one (ns), the first left out (the partner's start); -1, or 0. */
static int local_wake(int x, long n, double *one)
{
	struct gb b;
	atomic_init(&b.gen, 0);
	atomic_init(&b.awaited, 2);
	b.n = n;
	pthread_t t;
	if (n < 2 || pin_self(x) != 0 || pthread_create(&t, NULL, gb_partner, &b) != 0)
		return -1;
	gb_wait(&b);
	double t0 = now_ns(CLOCK_MONOTONIC);
	for (long i = 1; i < n; i++)
		gb_wait(&b);
	double t1 = now_ns(CLOCK_MONOTONIC);
	pthread_join(t, NULL);
	*one = (t1 - t0) / (double)(n - 1);
	return 0;
}

/* ---- create and join ---- */

/* Threads alive at once when calibrate measures the kernel's end of a
 * thread (batch_gap).  With one at a time (one create and its join) glibc
 * reuses one cached stack; a thread-per-task program keeps many alive,
 * more than glibc's stack cache (40 MB: five 8 MB stacks) holds, and its
 * CPU then spends more time the process is not charged with: on the
 * development machine (1 CPU, 20,000 threads, 3 runs each, load 6-11
 * with builds niced) 4.4-5.3 us a thread one at a time, 7.4-8.8 us 64
 * at a time (7.5-8.5 us in threadtask, 64 at a time, docs/sim.md).  64
 * is threadtask's batch: a program creating its threads one at a time
 * is charged about 3 us a thread too much. */
#define CJ_BATCH 64

static void *nothing(void *arg)
{
	return arg;
}

/* n threads on CPU x, CJ_BATCH created at a time and then joined: the
 * wall time less the process's CPU time per thread (ns; the CPU never
 * idles: a runnable thread is always there), or -1. */
static double batch_gap(int x, long n)
{
	pthread_t t[CJ_BATCH];
	if (pin_self(x) != 0)
		return -1;
	double w0 = now_ns(CLOCK_MONOTONIC), p0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i += CJ_BATCH) {
		long b = n - i < CJ_BATCH ? n - i : CJ_BATCH, k;
		for (k = 0; k < b; k++)
			if (pthread_create(&t[k], NULL, nothing, NULL) != 0)
				break;
		for (long m = 0; m < k; m++)
			pthread_join(t[m], NULL);
		if (k < b)
			return -1;
	}
	double p1 = now_ns(CLOCK_PROCESS_CPUTIME_ID), w1 = now_ns(CLOCK_MONOTONIC);
	return ((w1 - w0) - (p1 - p0)) / (double)n;
}

/* A task as threadtask's (examples/programs/threadtask.c): its
 * work(10), CPU work (cpu_work), or a 10 us wall-clock spin, then a
 * mutex; it notes the CPU it started on and its CPU time when its
 * routine begins and ends (ns).  The pinned batches (cycles_batch) run
 * threadtask's CPU work: with the spin, used by all batches until issue
 * 25's eleventh session, the creator's remote creates waited twice as
 * long as threadtask's own main does (cycles_batch); the OS's
 * placement (sh_round) keeps the spin, see there. */
struct sh_child {
	int cpu;               /* sched_getcpu() at its start                */
	int cpu_work;          /* 1: work(10), 0: the spin                  */
	double st, en;         /* its CPU clock at its routine's start, end  */
	uint64_t sink;         /* its work's result (kept from the optimizer) */
	pthread_mutex_t *mx;
};

static void *sh_task(void *arg)
{
	struct sh_child *c = arg;
	c->st = now_ns(CLOCK_THREAD_CPUTIME_ID);
	c->cpu = sched_getcpu();
	if (c->cpu_work) { /* 4,000 steps of a dependent LCG, as work.h's */
		uint64_t x = (uint64_t)(uintptr_t)c | 1;
		for (int i = 0; i < 4000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		c->sink = x;
	} else {
		double until = now_ns(CLOCK_MONOTONIC) + 10000;
		while (now_ns(CLOCK_MONOTONIC) < until)
			;
	}
	pthread_mutex_lock(c->mx);
	pthread_mutex_unlock(c->mx);
	c->en = now_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* n children of x pinned to y (pthread_attr_setaffinity_np), each a
 * task as threadtask's (sh_task: its work(10), CPU work, and a mutex), created
 * `batch` at a time and then joined, as a thread-per-task program does:
 * y busy with the earlier ones (remote) or the children queued behind
 * the creator (local); per child (ns) the creator's CPU time in
 * pthread_create and in pthread_join, the child's CPU time before its
 * routine began, and its CPU time after the routine returned (its exit:
 * the process's CPU time less the creator's, less the children's clocks
 * at their routines' ends), and the creator's wall time in
 * pthread_create beyond its CPU time there (wait: remote, the time it
 * spent off its CPU, alone there; local, the children it let run
 * besides); -1, or 0.  (Until issue 25's ninth session
 * the children returned at once: y then idled between them, and whether
 * it halted (idle) or ran other load decided a round's remote creation,
 * so the creator's remote excess came out 4-12 or 18-23 us by round and
 * 9.4-25.2 us between calibrations; with these tasks 14.6-17.6 us per
 * round in one run, near what threadtask's main shows pinned, 13.7-18.9
 * us, though medians still moved with the host's phases, which the
 * rounds spread over the run (run_job) even out; docs/sim.md, "Stable
 * figures".  Until the eleventh session the task was a 10 us wall-clock
 * spin: with it the creator's remote batches waited 11.3-12.4 us a
 * create off its CPU and spent 34.4-35.0 us on it, where threadtask's
 * own main, pinned the same way, waited 4.3-6.7 us and spent 27.9-31.5
 * us; with threadtask's CPU work 5.5-6.3 and 29.0-29.8 us, docs/sim.md,
 * "The creator's wait".  Before the seventh session the exit
 * came from one create and its join at a time, each child ending on an
 * idle CPU: 10.9-14.0 us remote against 7.1-7.8 us in a batch, 01:58
 * UTC 2026-11-27, load 8, builds niced.) */
static int cycles_batch(int x, int y, long n, long batch, double *create, double *join,
                        double *start_cpu, double *exit_cpu, double *wait)
{
	pthread_attr_t a;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(y, &s);
	if (batch > CJ_BATCH || pin_self(x) != 0 || pthread_attr_init(&a) != 0)
		return -1;
	int rc = -1;
	if (pthread_attr_setaffinity_np(&a, sizeof s, &s) != 0)
		goto out;
	pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
	pthread_t t[CJ_BATCH];
	struct sh_child c[CJ_BATCH];
	double cpu = 0, jcpu = 0, start = 0, end = 0, wall = 0; /* ns */
	long done = 0;
	double p0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), m0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < n; i += batch) {
		long b = n - i < batch ? n - i : batch, k;
		for (k = 0; k < b; k++) {
			c[k] = (struct sh_child){.cpu = -1, .cpu_work = 1, .mx = &mx};
			double w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
			if (pthread_create(&t[k], &a, sh_task, &c[k]) != 0)
				break;
			cpu += now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
			wall += now_ns(CLOCK_MONOTONIC) - w0;
		}
		double c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (long m = 0; m < k; m++) {
			pthread_join(t[m], NULL);
			start += c[m].st;
			end += c[m].en;
		}
		jcpu += now_ns(CLOCK_THREAD_CPUTIME_ID) - c1;
		done += k;
		if (k < b)
			goto out;
	}
	double children = (now_ns(CLOCK_PROCESS_CPUTIME_ID) - p0) -
	                  (now_ns(CLOCK_THREAD_CPUTIME_ID) - m0);
	*create = cpu / (double)done;
	*join = jcpu / (double)done;
	*start_cpu = start / (double)done;
	*exit_cpu = (children - end) / (double)done;
	*wait = (wall - cpu) / (double)done;
	rc = 0;
out:
	pthread_attr_destroy(&a);
	return rc;
}

/* ---- where the OS starts a new thread (remote_share) ---- */

/* One round of remote_share's threads: the share started on another CPU
 * than their creator's, and per thread (ns) the creator's CPU time in
 * pthread_create and pthread_join, the thread's before its routine and
 * after it (the process's CPU time less the creator's, less the
 * threads' at their routines' ends). */
struct sh_round {
	double share, create, start, exit;
};

/* n threads created CJ_BATCH at a time and then joined by this thread,
 * which, as they, may run on any of the n_cpu CPUs cpus (nothing pinned;
 * local: this thread pinned to cpus[0], the threads inheriting it, as a
 * trace recorded on one CPU has them); 0 and *o, or -1.  Its tasks
 * spin 10 us of wall time, as all batches' did until issue 25's
 * eleventh session: with threadtask's CPU work here too the OS's
 * remote costs came out 4-6 us (create), 2-3 us (exit) against 13 and
 * 8 us, and threadtask's unbound prediction fell from 0.730 to
 * 0.585-0.612 s (09:25 UTC, load 3) against an idle real run of 0.707
 * s (run S); that change was not measured against unbound runs, so not
 * made. */
static int sh_round(const int *cpus, uint32_t n_cpu, int local, long n, struct sh_round *o)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (uint32_t i = 0; i < (local ? 1 : n_cpu); i++)
		CPU_SET(cpus[i], &s);
	if (pthread_setaffinity_np(pthread_self(), sizeof s, &s) != 0)
		return -1;
	pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
	pthread_t t[CJ_BATCH];
	struct sh_child c[CJ_BATCH];
	int at[CJ_BATCH];
	long remote = 0, done = 0;
	double cj = 0, st = 0, en = 0; /* ns */
	double p0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), m0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < n; i += CJ_BATCH) {
		long b = n - i < CJ_BATCH ? n - i : CJ_BATCH, k;
		for (k = 0; k < b; k++) {
			c[k] = (struct sh_child){.cpu = -1, .mx = &mx};
			at[k] = sched_getcpu();
			double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
			if (pthread_create(&t[k], NULL, sh_task, &c[k]) != 0)
				break;
			cj += now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		}
		for (long m = 0; m < k; m++) {
			double j0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
			pthread_join(t[m], NULL);
			cj += now_ns(CLOCK_THREAD_CPUTIME_ID) - j0;
			remote += c[m].cpu != at[m];
			st += c[m].st;
			en += c[m].en;
		}
		done += k;
		if (k < b)
			return -1;
	}
	double all = now_ns(CLOCK_PROCESS_CPUTIME_ID) - p0, me = now_ns(CLOCK_THREAD_CPUTIME_ID) - m0;
	if (!done)
		return -1;
	*o = (struct sh_round){(double)remote / (double)done, cj / (double)done,
	                       st / (double)done, (all - me - en) / (double)done};
	return 0;
}

/* ---- statistics ---- */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static struct mach_fig fig_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	struct mach_fig f = {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]};
	return f;
}

static struct mach_fig fig_clamp(struct mach_fig f)
{
	f.med = f.med < 0 ? 0 : f.med;
	f.lo = f.lo < 0 ? 0 : f.lo;
	f.hi = f.hi < 0 ? 0 : f.hi;
	return f;
}

/* ---- a process that has run on two CPUs (spread) ---- */

/* m threads as threadtask's (sh_task, its CPU work and a mutex), each
 * pinned to `cpu` (pthread_attr_setaffinity_np, as shadowbind-run does),
 * CJ_BATCH created at a time and then joined; 0, or -1. */
static int spread_run(int cpu, long m, pthread_mutex_t *mx)
{
	pthread_attr_t a;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (pthread_attr_init(&a) != 0)
		return -1;
	int rc = pthread_attr_setaffinity_np(&a, sizeof s, &s) != 0 ? -1 : 0;
	struct sh_child c[CJ_BATCH];
	pthread_t t[CJ_BATCH];
	for (long i = 0; rc == 0 && i < m; i += CJ_BATCH) {
		long b = m - i < CJ_BATCH ? m - i : CJ_BATCH, k;
		for (k = 0; k < b; k++) {
			c[k] = (struct sh_child){.cpu_work = 1, .mx = mx};
			if (pthread_create(&t[k], &a, sh_task, &c[k]) != 0)
				break;
		}
		for (long j = 0; j < k; j++)
			pthread_join(t[j], NULL);
		rc = k < b ? -1 : 0;
	}
	pthread_attr_destroy(&a);
	return rc;
}

/* In a fresh process (a child of fork, one thread): pinned to x, a
 * warm-up of n / 4 threads on x (glibc's stack cache, the first page
 * faults), then with `once` a single thread on y, then n threads on x
 * (spread_run): the process's CPU time per thread of the last n (ns),
 * or -1. */
static double spread_batch(int x, int y, int once, long n)
{
	pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
	if (pin_self(x) != 0 || spread_run(x, n / 4, &mx) != 0 ||
	    (once && spread_run(y, 1, &mx) != 0))
		return -1;
	double p0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (spread_run(x, n, &mx) != 0)
		return -1;
	return (now_ns(CLOCK_PROCESS_CPUTIME_ID) - p0) / (double)n;
}

/* spread_batch in a fresh process: its figure (ns), or -1.  Called by
 * a thread pinned to x (spread_pinned), so that the child starts on x:
 * a process that starts on y and then pins itself to x has already run
 * on y (in a first version the child was forked by the caller's
 * unpinned thread, and calibrate's median came out 0 where the probe
 * measured 16 us, see docs/sim.md). */
static double spread_fork(int x, int y, int once, long n)
{
	int fd[2];
	if (pipe(fd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		double v = spread_batch(x, y, once, n);
		_exit(write(fd[1], &v, sizeof v) == (ssize_t)sizeof v ? 0 : 1);
	}
	close(fd[1]);
	double v = -1;
	ssize_t got;
	do
		got = read(fd[0], &v, sizeof v);
	while (got < 0 && errno == EINTR);
	close(fd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return got == (ssize_t)sizeof v && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? v : -1;
}

struct spread_arg {
	int x, y, once;
	long n;
	double v;              /* spread_fork's figure (ns), or -1        */
};

static void *spread_pinned(void *arg)
{
	struct spread_arg *a = arg;
	a->v = pin_self(a->x) != 0 ? -1 : spread_fork(a->x, a->y, a->once, a->n);
	return NULL;
}

/* The rounds of spread (mach.h): each round a fresh process that never
 * ran on y and one that ran a single thread there, their order
 * alternating by round (a phase of the host falls on both); the
 * difference of their CPU per thread.  Measured on this host (issue 25,
 * docs/sim.md, "A process on two CPUs: the per-thread cost"): one more
 * TLB flush per thread once the process has run on the second CPU. */
#define SPREAD_ROUNDS_MAX 15

int mach_calibrate_spread(struct mach *m, const struct mach_opts *o, char *why, size_t len)
{
	if (m->ncpu < 2)
		return 0;
	int R = o->quick ? 3 : 9;
	long n = o->quick ? 256 : 1024;
	double d[SPREAD_ROUNDS_MAX];
	int X = m->os_cpu[0], Y = m->os_cpu[1];
	for (int r = 0; r < R; r++) {
		double v[2];
		for (int side = 0; side < 2; side++) {
			int once = (side + r) % 2;
			/* from a thread of our own, pinned to X (the caller's
			 * affinity stays as it is) */
			struct spread_arg a = {.x = X, .y = Y, .once = once, .n = n, .v = -1};
			pthread_t t;
			if (pthread_create(&t, NULL, spread_pinned, &a) == 0)
				pthread_join(t, NULL);
			v[once] = a.v;
			if (v[once] < 0) {
				snprintf(why, len, "cannot run a fresh process's threads on CPUs %d and %d", X, Y);
				return -1;
			}
		}
		d[r] = v[1] - v[0];
	}
	/* a negative median (noise) is none */
	m->spread = fig_clamp(fig_of(d, R));
	m->has_spread = 1;
	return 0;
}

/* ---- topology ---- */


/* The pair's kind: the type of the deepest object holding both. */
static void pair_kind(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b, char *buf,
                      size_t len)
{
	hwloc_obj_t c = hwloc_get_common_ancestor_obj(topo, a, b);
	if (!c || hwloc_obj_type_snprintf(buf, len, c, 0) <= 0)
		snprintf(buf, len, "machine");
	for (char *p = buf; *p; p++)
		if (*p == ' ')
			*p = '_';
}

static void place_of(hwloc_obj_t pu, char *buf, size_t len)
{
	hwloc_obj_t chain[64];
	int n = 0;
	for (hwloc_obj_t o = pu; o && n < 64; o = o->parent)
		if (o->type != HWLOC_OBJ_MACHINE)
			chain[n++] = o;
	size_t off = 0;
	buf[0] = 0;
	for (int i = n - 1; i >= 0 && off < len; i--) {
		char t[32];
		hwloc_obj_type_snprintf(t, sizeof t, chain[i], 0);
		int w = snprintf(buf + off, len - off, "%s%s#%u", off ? " " : "", t,
		                 chain[i]->logical_index);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static void topo_summary(hwloc_topology_t topo, char *buf, size_t len)
{
	static const hwloc_obj_type_t types[] = {HWLOC_OBJ_PACKAGE, HWLOC_OBJ_L3CACHE,
	                                         HWLOC_OBJ_L2CACHE, HWLOC_OBJ_CORE, HWLOC_OBJ_PU};
	size_t off = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof types / sizeof *types && off < len; i++) {
		int n = hwloc_get_nbobjs_by_type(topo, types[i]);
		if (n <= 0)
			continue;
		int w = snprintf(buf + off, len - off, "%s%d %s", off ? ", " : "", n,
		                 hwloc_obj_type_string(types[i]));
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

static void cpu_model(char *buf, size_t len)
{
	buf[0] = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				c[strcspn(c, "\n")] = 0;
				snprintf(buf, len, "%s", c);
			}
			break;
		}
	fclose(f);
}

/* ---- the measurement ---- */

/* Most rounds a calibration takes. */
#define ROUNDS_MAX 64

/* One measured pair of CPUs (indices into m->os_cpu) and its rounds'
 * samples (ns). */
struct pair_s {
	uint32_t x, y;
	int kinds;             /* the kinds of hand-off are measured here   */
	double h[ROUNDS_MAX], hc[ROUNDS_MAX], busy[ROUNDS_MAX], xfer[ROUNDS_MAX],
	       sleep[ROUNDS_MAX];
};

struct job {
	const struct mach_opts *o;
	struct mach *m;
	hwloc_topology_t topo;
	int rounds;
	long n_pp, n_cj;
	struct pair_s *pairs;  /* [npairs]: the switch (0, 0) first        */
	uint32_t npairs, y0;   /* y0: creation's remote CPU (0: none)       */
	/* creation in batches (cycles_batch; r: the remote child's) and a
	 * thread's exit outside the process's CPU time (batch_gap), per
	 * round (ns) */
	double cv[ROUNDS_MAX], jv[ROUNDS_MAX], ev[ROUNDS_MAX], stv[ROUNDS_MAX],
	       rc_[ROUNDS_MAX], rj[ROUNDS_MAX], re[ROUNDS_MAX], rs[ROUNDS_MAX],
	       rw[ROUNDS_MAX], lw[ROUNDS_MAX], gapv[ROUNDS_MAX];
	/* the OS's placement, per round: share (no unit), excesses (ns) */
	double shv[ROUNDS_MAX], ucv[ROUNDS_MAX], usv[ROUNDS_MAX], uxv[ROUNDS_MAX];
	/* a barrier's wall time on one CPU (local_wake; o->openmp), per
	 * round (ns) */
	double lwv[ROUNDS_MAX];
	double exit_gap;       /* ns: the rounds' median of gapv             */
	char *why;
	size_t len;
	int rc;
};

/* The dwells (ns) scanned for the time a blocked thread takes to fall
 * asleep. */
static const double dwells[] = {0, 100, 200, 300, 400, 500, 600, 800, 1000, 1500, 2000};
#define NDWELL (sizeof dwells / sizeof *dwells)

/* Round r of one pair p.  x = y: the switch (a local hand-off's wall
 * time less its CPU time) and its CPU time.  x != y: the latency
 * (wake_after with a dwell of 5 us: the waiter asleep, its CPU idle).
 * With p->kinds, the kinds of hand-off: a wake-up onto a busy CPU, a
 * cache line's move, and the time to fall asleep (the dwell halfway
 * between the last of `dwells` whose wake-up took less than half the
 * latency and the next). */
static int pair_round(struct job *j, struct pair_s *p, int r)
{
	int X = j->m->os_cpu[p->x], Y = j->m->os_cpu[p->y];
	long nw = j->n_pp / 5;
	double wall = 0, cpu = 0;
	int bad = 0;
	if (p->x == p->y) {
		bad = handoff(X, Y, j->n_pp, &wall, &cpu) != 0;
		p->h[r] = wall - cpu;
		p->hc[r] = cpu;
	} else {
		bad = wake_after(X, Y, nw, 5000, &p->h[r]) != 0;
	}
	if (!bad && p->kinds) {
		double d[NDWELL];
		bad = wake_after_busy(X, Y, nw, 5000, &p->busy[r]) != 0 ||
		      transfer(X, Y, 20 * j->n_pp, &p->xfer[r]) != 0;
		size_t i = 0;
		for (; !bad && i < NDWELL; i++)
			bad = wake_after(X, Y, nw / 10 + 1, dwells[i], &d[i]) != 0;
		for (i = 0; !bad && i + 1 < NDWELL && d[i] < p->h[r] / 2; i++)
			;
		p->sleep[r] = i == 0 ? 0 : (dwells[i - 1] + dwells[i]) / 2;
	}
	if (bad) {
		snprintf(j->why, j->len, "cannot run threads on CPUs %d and %d", X, Y);
		return -1;
	}
	return 0;
}

/* Round r of the creation, its join, the child's start and its exit as
 * a thread-per-task program sees them (cycles_batch), on processor 0's
 * CPU and, when j->y0 > 0, its children on processor y0's: the local
 * batch, the remote one (their order alternating by round) and the
 * kernel's end of a thread back to back, so that a phase of the host
 * (other load coming and going) falls on both sides of the differences
 * the model uses.  A thread's exit costs its CPU the kernel's time after
 * the process's clocks stop counting it (docs/sim.md, "Thread-per-
 * task"): on one CPU, CJ_BATCH threads alive at a time, the wall time
 * less the process's CPU time less the round's switch per thread; a
 * remote exit gets the round's same figure (the same kernel path, on a
 * CPU whose idling hides it from the wall time). */
static int cycles_round(struct job *j, int r)
{
	int X = j->m->os_cpu[0], Y = j->m->os_cpu[j->y0];
	for (int side = 0; side < 2; side++) {
		int remote = (side + r) % 2; /* remote first in odd rounds */
		if (remote && j->y0 == 0)
			continue;
		if (remote ? cycles_batch(X, Y, j->n_cj, CJ_BATCH, &j->rc_[r], &j->rj[r], &j->rs[r],
		                          &j->re[r], &j->rw[r]) < 0 :
		             cycles_batch(X, X, j->n_cj, CJ_BATCH, &j->cv[r], &j->jv[r], &j->stv[r],
		                          &j->ev[r], &j->lw[r]) < 0)
			return fail(j->why, j->len, "cannot create a thread%s", "");
	}
	double gv = batch_gap(X, j->n_cj); /* ns */
	if (gv < 0)
		return fail(j->why, j->len, "cannot create a thread%s", "");
	gv -= j->pairs[0].h[r] > 0 ? j->pairs[0].h[r] : 0;
	j->gapv[r] = gv > 0 ? gv : 0;
	j->ev[r] += j->gapv[r];
	j->re[r] += j->gapv[r];
	return 0;
}

/* Round r of the OS's placement (n >= 2 CPUs): where the OS starts a
 * new thread and what that costs, on threads as threadtask's, nothing
 * pinned, after the same threads on one CPU; the excess per thread
 * started remotely. */
static int unbound_round(struct job *j, int r)
{
	struct sh_round l, u;
	if (sh_round(j->m->os_cpu, j->m->ncpu, 1, j->n_cj, &l) < 0 ||
	    sh_round(j->m->os_cpu, j->m->ncpu, 0, j->n_cj, &u) < 0)
		return fail(j->why, j->len, "cannot create a thread%s", "");
	j->shv[r] = u.share;
	double d = u.share >= 0.05 ? u.share : 0;
	j->ucv[r] = d ? (u.create - l.create) / d : 0;
	j->usv[r] = d ? (u.start - l.start) / d : 0;
	j->uxv[r] = d ? (u.exit - l.exit) / d : 0;
	return 0;
}

static void *run_job(void *arg)
{
	struct job *j = arg;
	struct mach *m = j->m;
	uint32_t n = m->ncpu;
	hwloc_obj_t *pu = calloc(n, sizeof *pu);
	char *kinds = calloc((size_t)n * n, 32);
	int32_t *rep = malloc((size_t)n * n * sizeof *rep);
	j->rc = -1;
	if (!pu || !kinds || !rep) {
		fail(j->why, j->len, "out of memory%s", "");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		pu[i] = hwloc_get_pu_obj_by_os_index(j->topo, (unsigned)m->os_cpu[i]);
		char pl[256] = "";
		if (pu[i])
			place_of(pu[i], pl, sizeof pl);
		m->place[i] = mach_dupstr(pl[0] ? pl : "unknown");
		if (!m->place[i]) {
			fail(j->why, j->len, "out of memory%s", "");
			goto out;
		}
	}
	/* kinds, and the first pair of each kind (its representative) */
	for (uint32_t x = 0; x < n; x++)
		for (uint32_t y = 0; y < n; y++) {
			char *k = kinds + ((size_t)x * n + y) * 32;
			if (x == y)
				k[0] = 0;
			else if (pu[x] && pu[y])
				pair_kind(j->topo, pu[x], pu[y], k, 32);
			else
				snprintf(k, 32, "machine");
			rep[x * n + y] = -1;
			for (uint32_t q = 0; q < x * n + y; q++)
				if (q / n != q % n && !strcmp(kinds + (size_t)q * 32, k)) {
					rep[x * n + y] = (int32_t)q;
					break;
				}
			m->pair_kind[x * n + y] = mach_dupstr(k);
			if (!m->pair_kind[x * n + y]) {
				fail(j->why, j->len, "out of memory%s", "");
				goto out;
			}
		}
	/* the pairs: the switch (0, 0), then the first pair of each kind
	 * (x < y), the kinds of hand-off and creation on the first */
	uint32_t np = 1;
	for (uint32_t q = 0; q < n * n; q++)
		np += q / n != q % n && rep[q] < 0;
	j->pairs = calloc(np, sizeof *j->pairs);
	if (!j->pairs) {
		fail(j->why, j->len, "out of memory%s", "");
		goto out;
	}
	j->npairs = 1;
	for (uint32_t x = 0; x < n; x++)
		for (uint32_t y = 0; y < n; y++) {
			if (x == y || rep[x * n + y] >= 0)
				continue;
			struct pair_s *p = &j->pairs[j->npairs++];
			p->x = x;
			p->y = y;
			p->kinds = j->npairs == 2;
			if (p->kinds)
				j->y0 = y;
		}
	/* round by round, every figure once a round: a phase of the host
	 * (other load coming and going, seconds long) then touches every
	 * figure alike, and the medians span the whole calibration */
	for (int r = 0; r < j->rounds; r++) {
		for (uint32_t q = 0; q < j->npairs; q++)
			if (pair_round(j, &j->pairs[q], r) < 0)
				goto out;
		if (cycles_round(j, r) < 0 || (n >= 2 && unbound_round(j, r) < 0))
			goto out;
		if (j->o->openmp && local_wake(m->os_cpu[0], j->n_pp, &j->lwv[r]) < 0) {
			snprintf(j->why, j->len, "cannot run two threads on CPU %d", m->os_cpu[0]);
			goto out;
		}
	}
	int R = j->rounds;
	m->switch_cost = fig_clamp(fig_of(j->pairs[0].h, R));
	m->switch_cpu = fig_of(j->pairs[0].hc, R);
	for (uint32_t q = 1; q < j->npairs; q++) {
		struct pair_s *p = &j->pairs[q];
		m->lat[p->x * n + p->y] = fig_clamp(fig_of(p->h, R));
		if (p->kinds) {
			m->wake_busy = fig_of(p->busy, R);
			m->transfer = fig_of(p->xfer, R);
			m->sleep = fig_of(p->sleep, R);
			m->has_kinds = 1;
		}
	}
	for (uint32_t q = 0; q < n * n; q++) {
		if (q / n == q % n)
			m->lat[q] = (struct mach_fig){0, 0, 0};
		else if (rep[q] >= 0)
			m->lat[q] = m->lat[rep[q]];
	}
	j->exit_gap = fig_of(j->gapv, R).med;
	m->create = fig_of(j->cv, R);
	m->join = fig_of(j->jv, R);
	m->exit = fig_clamp(fig_of(j->ev, R));
	m->start = fig_of(j->stv, R);
	m->has_start = 1;
	if (j->y0) {
		m->create_remote = fig_of(j->rc_, R);
		m->join_remote = fig_of(j->rj, R);
		m->exit_remote = fig_clamp(fig_of(j->re, R));
		m->start_remote = fig_of(j->rs, R);
		/* the creator's wait in a remote create (clamped: the wall
		 * and CPU clocks' noise) */
		m->create_wait = fig_clamp(fig_of(j->rw, R));
		m->has_wait = 1;
	} else {
		m->create_remote = m->create;
		m->join_remote = m->join;
		m->exit_remote = m->exit;
		m->start_remote = m->start;
	}
	if (n >= 2) {
		m->remote_share = fig_of(j->shv, R);
		m->has_share = 1;
		/* an excess under 0 (noise) is none */
		m->unbound_create = fig_clamp(fig_of(j->ucv, R));
		m->unbound_start = fig_clamp(fig_of(j->usv, R));
		m->unbound_exit = fig_clamp(fig_of(j->uxv, R));
		m->has_unbound = 1;
	}
	if (j->o->openmp) {
		m->wake_local = fig_of(j->lwv, R);
		m->has_wake_local = 1;
	}
	j->rc = 0;
out:
	free(j->pairs);
	j->pairs = NULL;
	free(pu);
	free(kinds);
	free(rep);
	return NULL;
}

void mach_release(struct mach *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->ncpu; i++) {
		if (m->place)
			free(m->place[i]);
	}
	if (m->pair_kind)
		for (size_t q = 0; q < (size_t)m->ncpu * m->ncpu; q++)
			free(m->pair_kind[q]);
	free(m->place);
	free(m->pair_kind);
	free(m->os_cpu);
	free(m->lat);
	memset(m, 0, sizeof *m);
}

int mach_calibrate(struct mach *m, const struct mach_opts *o, char *why, size_t len)
{
	memset(m, 0, sizeof *m);
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return fail(why, len, "sched_getaffinity: %s", strerror(errno));
	uint32_t n = (uint32_t)CPU_COUNT(&allowed);
	if (o->max_cpus && n > o->max_cpus)
		n = o->max_cpus;
	if (n > MACH_CPUS_MAX)
		n = MACH_CPUS_MAX;
	if (n == 0)
		return fail(why, len, "no usable CPU%s", "");
	hwloc_topology_t topo;
	if (hwloc_topology_init(&topo) != 0)
		return fail(why, len, "hwloc: cannot initialize the topology%s", "");
	if (hwloc_topology_load(topo) != 0) {
		hwloc_topology_destroy(topo);
		return fail(why, len, "hwloc: cannot load the topology%s", "");
	}
	m->ncpu = n;
	m->os_cpu = calloc(n, sizeof *m->os_cpu);
	m->place = calloc(n, sizeof *m->place);
	m->lat = calloc((size_t)n * n, sizeof *m->lat);
	m->pair_kind = calloc((size_t)n * n, sizeof *m->pair_kind);
	if (!m->os_cpu || !m->place || !m->lat || !m->pair_kind) {
		hwloc_topology_destroy(topo);
		mach_release(m);
		return fail(why, len, "out of memory%s", "");
	}
	uint32_t i = 0;
	for (int c = 0; c < CPU_SETSIZE && i < n; c++)
		if (CPU_ISSET(c, &allowed))
			m->os_cpu[i++] = c;
	if (gethostname(m->host, sizeof m->host) != 0)
		snprintf(m->host, sizeof m->host, "unknown");
	m->host[sizeof m->host - 1] = 0;
	cpu_model(m->cpu_model, sizeof m->cpu_model);
	topo_summary(topo, m->topology, sizeof m->topology);
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(m->when, sizeof m->when, "%Y-%m-%dT%H:%M:%SZ", &tm);

	struct job j = {.o = o, .m = m, .topo = topo, .why = why, .len = len};
	/* on the 2 CPUs of the development machine (a VM) 21 s at load
	 * 7-14 with builds niced (7 rounds, before issue 25's ninth
	 * session: 6-8 s); 15 rounds spread the figures over phases of the
	 * host seconds long (docs/sim.md, "Stable figures") */
	j.rounds = o->quick ? 3 : 15;
	j.n_pp = o->quick ? 2000 : 10000;
	j.n_cj = o->quick ? 300 : 2000;
	/* the load around the run: other load changes the wall-time figures
	 * and a thread's first run on another CPU (18-24 us onto an idle
	 * CPU, 14-15 us onto a busy one here: docs/sim.md), so the file says
	 * in what state it was measured */
	double la0[1] = {-1}, la1[1] = {-1};
	if (getloadavg(la0, 1) != 1)
		la0[0] = -1;
	/* a thread of our own, so that pinning it leaves the caller's
	 * affinity alone */
	pthread_t t;
	if (pthread_create(&t, NULL, run_job, &j) != 0) {
		hwloc_topology_destroy(topo);
		mach_release(m);
		return fail(why, len, "cannot create a thread%s", "");
	}
	pthread_join(t, NULL);
	hwloc_topology_destroy(topo);
	if (j.rc != 0) {
		mach_release(m);
		return -1;
	}
	if (getloadavg(la1, 1) != 1)
		la1[0] = -1;
	int w = snprintf(m->method, sizeof m->method,
	                 "median and extremes of %d rounds: %ld semaphore round trips, "
	                 "%ld create-join cycles each, %d at a time; exit holds %.0f ns of the CPU's time "
	                 "outside the process's CPU time (%d threads alive)", j.rounds, j.n_pp,
	                 j.n_cj, CJ_BATCH, j.exit_gap, CJ_BATCH);
	if (la0[0] >= 0 && la1[0] >= 0 && w > 0 && (size_t)w < sizeof m->method)
		snprintf(m->method + w, sizeof m->method - (size_t)w,
		         "; load average %.2f before, %.2f after", la0[0], la1[0]);
	return 0;
}
