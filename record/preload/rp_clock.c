/*
 * rp_clock.c - the recorder's clock and its own cost (rp.h,
 * docs/record.md "Work" and "The recorder's cost").
 *
 * The clock.  A record's work is the thread's CPU time.  The thread CPU
 * clock (clock_gettime(CLOCK_THREAD_CPUTIME_ID)) is a system call: 0.5-0.8
 * us on the project's VM, more than the work between two lock calls of a
 * lock-heavy program.  Where the machine allows, the recorder reads it
 * instead as
 *
 *     CPU time = base + (TSC now - TSC at base)
 *
 * where base is one exact reading of the thread CPU clock and the TSC at
 * that instant, valid as long as the thread has not left its processor
 * since.  A word that the kernel changes when the thread was switched
 * out tells (the switch word, t->sw); two kinds, chosen at start:
 *
 *  - rseq (the default where it works): glibc registers every thread's
 *    restartable-sequence area with the kernel; the recorder stores the
 *    address of a descriptor of its own (a critical section no code runs
 *    in) in the area's rseq_cs field, and the kernel clears that field
 *    on the thread's next return to user space after it was switched
 *    out, preempted, migrated or signalled (it finds the thread outside
 *    the section).  Costs nothing at a switch (glibc's registration
 *    already has the kernel visit the area there).
 *  - perf: a task-clock perf_event of the thread, its page mmap'd
 *    read-only; the kernel bumps the page's sequence word (`lock`)
 *    every time it schedules the thread in.  Costs 1.4 us a context
 *    switch on the project's VM (docs/record.md), which a program whose
 *    threads sleep thousands of times (libgomp's waits on one CPU) pays
 *    in its waits.
 *
 * When the word changed, or after RP_RESYNC_TICKS, the recorder reads the
 * exact clock again (and checks the extrapolation against it: rp_stats).
 * Needs an invariant TSC (x86-64) and one of the two; otherwise (or
 * SHADOWBIND_CLOCK=syscall) every read is the system call;
 * SHADOWBIND_CLOCK=perf chooses the perf event.
 *
 * The recorder's own cost.  Each wrapper reads the clock twice: where the
 * recorder's own code (the lock G, the object table, the record) begins
 * and where it ends; the span between is excluded from the work (rp_work,
 * rp_mark).  What the two reads cannot exclude (the wrapper's entry and
 * exit, half of each read) is calibrated per kind of call when the
 * library starts: the same calls on private objects, bare and recorded,
 * back to back, the recorded works' excess per record is subtracted from
 * every record of that kind.  At the end it is measured again (the
 * check), and once more with a short computation between the calls (the
 * gap: how much of the wrapper a program's own code can hide); all go to
 * the statistics file that shadowbind-record prints.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include "record/preload/rp.h"

/* ns = ticks * rp_tsc_mult >> 32 */
uint64_t rp_tsc_mult;
uint64_t rp_startup_ns;
int rp_wait_work;
static enum rec_clock g_clk;          /* the switch word's kind          */
static int64_t g_resid[TRACE_NOPS];   /* subtracted per record; ns       */
static int64_t g_resid_end[TRACE_NOPS]; /* the check at the end; ns      */
static int64_t g_resid_gap[TRACE_NOPS]; /* at the end, with the gap; ns  */
static int g_calibrated, g_checked;
static uint32_t g_est_every;          /* rp_now_wait: an exact read every
                                         that many waits (1: every one) */
static uint64_t g_fast_read, g_slow_read; /* cost of one read; ns        */
static uint64_t g_cal_ns;             /* CPU time the calibrations took  */


static uint64_t exact_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return rp_ts_ns(&ts);
}

#if defined(__x86_64__)
/* The TSC is read without a fence (rp_ticks): an lfence before the read
 * would keep the program's instructions in flight out of the recorder's
 * span, but costs 15-25 ns per read and made the lockprobe's work 2-4x
 * too long (measured). */
static int tsc_invariant(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__get_cpuid(0x80000007u, &a, &b, &c, &d);
	return (d >> 8) & 1;
}
#else
static int tsc_invariant(void)
{
	return 0;
}
#endif

static uint64_t mono_raw(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return rp_ts_ns(&ts);
}

/* The TSC's rate against CLOCK_MONOTONIC_RAW: first over TSC_WINDOW_NS
 * (busy, so that no sleep is needed), then refined over the whole
 * start-up (tsc_refine, after the calibration: no waiting of its own).
 * Measured on the project's VM, five start-ups each: over 0.2 ms the rate
 * is within 0.12% of the rate over 2 ms, over the start-up's 0.8 ms
 * within 0.03%.  0 when it looks wrong. */
#define TSC_WINDOW_NS 200000u
static uint64_t g_tsc_m0, g_tsc_t0; /* the measurement's start: ns, ticks */

static uint64_t tsc_rate(uint64_t m0, uint64_t t0, uint64_t m1, uint64_t t1)
{
	if (t1 <= t0 || t1 - t0 < (m1 - m0) / 10) /* below 0.1 GHz: not a TSC to use */
		return 0;
	/* ns per tick in 32.32 fixed point */
	return (uint64_t)(((unsigned __int128)(m1 - m0) << 32) / (t1 - t0));
}

static uint64_t tsc_mult(uint64_t window)
{
	uint64_t m0 = mono_raw(), t0 = rp_ticks(), m1, t1;
	do {
		m1 = mono_raw();
		t1 = rp_ticks();
	} while (m1 - m0 < window);
	g_tsc_m0 = m0;
	g_tsc_t0 = t0;
	return tsc_rate(m0, t0, m1, t1);
}

static void tsc_refine(void)
{
	if (!rp_tsc_mult)
		return;
	uint64_t m1 = mono_raw(), t1 = rp_ticks(), r = tsc_rate(g_tsc_m0, g_tsc_t0, m1, t1);
	if (r)
		rp_tsc_mult = r;
}

/* ---- rseq: the thread's restartable-sequence area (glibc >= 2.35
 * registers it for every thread; linux/rseq.h's struct rseq: u32
 * cpu_id_start, u32 cpu_id, u64 rseq_cs, ...).  Returning to user space
 * after the thread was switched out (or preempted, migrated, signalled),
 * the kernel reads the descriptor rseq_cs points to, finds the thread's
 * instruction pointer outside its range and clears rseq_cs.  The
 * descriptor's abort address must follow the signature glibc registered
 * (RSEQ_SIG, 0x53053053 on x86), or the kernel kills the thread. ---- */
#define RSEQ_CS_OFFSET 8 /* bytes: rseq_cs in struct rseq */
struct rseq_desc {       /* linux/rseq.h's struct rseq_cs */
	uint32_t version, flags;
	uint64_t start_ip, post_commit_offset, abort_ip;
} __attribute__((aligned(32)));
static const uint32_t rseq_sig[2] = {0x53053053u, 0};
/* two descriptors: the threads' and the calibration's own thread, which
 * runs on a recorded thread (rp_calibrate_end), so that arming one
 * makes the other's base stale */
static struct rseq_desc rseq_desc[2];
static ptrdiff_t g_rseq_off; /* bytes from the thread pointer */

static void rseq_arm(struct rp_thread *t)
{
	uint64_t d = (uint64_t)(uintptr_t)&rseq_desc[t->cal != 0];
	__atomic_store_n((uint64_t *)(uintptr_t)t->sw, d, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static uint32_t rseq_token(const struct rp_thread *t)
{
	return (uint32_t)(uintptr_t)&rseq_desc[t->cal != 0];
}

#if defined(__x86_64__)
static volatile uint32_t *rseq_word(void)
{
	return (volatile uint32_t *)((char *)__builtin_thread_pointer() + g_rseq_off + RSEQ_CS_OFFSET);
}

static long own_switches(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Whether the kernel clears rseq_cs as described, on the calling thread:
 * a system call that does not switch leaves it armed, a sleep (a
 * voluntary switch: libgomp's futex waits) clears it.  A kernel that
 * skipped voluntary switches would give a wrong clock; then the perf
 * event is used.  Costs one sleep of the timer slack (about 50 us of
 * wall time, no CPU). */
static int rseq_works(void)
{
	const ptrdiff_t *off = dlsym(RTLD_DEFAULT, "__rseq_offset");
	const unsigned *size = dlsym(RTLD_DEFAULT, "__rseq_size");
	if (!off || !size || !*size)
		return 0;
	g_rseq_off = *off;
	for (int i = 0; i < 2; i++)
		rseq_desc[i] = (struct rseq_desc){
			.start_ip = (uint64_t)(uintptr_t)&rseq_sig[1] + 64 + (uint64_t)i, /* nothing runs there */
			.post_commit_offset = 1,
			.abort_ip = (uint64_t)(uintptr_t)&rseq_sig[1],
		};
	struct rp_thread probe = {.sw = rseq_word()};
	rseq_arm(&probe);
	getppid();
	if (*probe.sw != rseq_token(&probe))
		return 0;
	for (int k = 0; k < 3; k++) {
		long n0 = own_switches();
		rseq_arm(&probe);
		nanosleep(&(struct timespec){.tv_nsec = 1}, NULL);
		int cleared = *probe.sw != rseq_token(&probe);
		long n1 = own_switches();
		if (n0 < 0 || n1 < 0)
			break;
		if (n1 > n0) {
			__atomic_store_n((uint64_t *)(uintptr_t)probe.sw, 0, __ATOMIC_RELAXED);
			return cleared;
		}
	}
	__atomic_store_n((uint64_t *)(uintptr_t)probe.sw, 0, __ATOMIC_RELAXED);
	return 0;
}
#else
static volatile uint32_t *rseq_word(void)
{
	return NULL;
}

static int rseq_works(void)
{
	return 0;
}
#endif

void rp_clock_open(struct rp_thread *t)
{
	t->pg = NULL;
	t->sw = NULL;
	t->base_ok = 0;
	t->base_est = 0;
	t->est_n = 0;
	t->est_sum = 0;
	if (g_clk == REC_CLOCK_RSEQ) {
		t->sw = rseq_word();
		return;
	}
	if (g_clk != REC_CLOCK_PERF)
		return;
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;
	void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd); /* the mapping keeps the event */
	if (p != MAP_FAILED) {
		t->pg = p;
		t->sw = &((const volatile struct perf_event_mmap_page *)p)->lock;
	}
}

void rp_clock_close(struct rp_thread *t)
{
	if (t->pg)
		munmap((void *)t->pg, 4096);
	else if (t->sw && *t->sw == rseq_token(t))
		__atomic_store_n((uint64_t *)(uintptr_t)t->sw, 0, __ATOMIC_RELAXED);
	t->pg = NULL;
	t->sw = NULL;
	t->base_ok = 0;
}

/* The exact clock and a new base; `wait`: the span since t->last was a
 * wait (rp_now_wait), whose CPU time, with what the waits estimated since
 * the last exact read were given, gives the estimate its mean. */
static uint64_t now_exact(struct rp_thread *t, uint32_t s, uint64_t c, int wait)
{
	if (!t->sw)
		return exact_now();
	/* a new base: the exact clock and the TSC read between two equal
	 * sequence words (perf), or after arming and still armed (rseq) */
	int rseq = g_clk == REC_CLOCK_RSEQ;
	if (rseq)
		rseq_arm(t);
	uint64_t ns = exact_now();
	c = rp_ticks();
	uint32_t s2 = *t->sw;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->slow_n++;
	if (wait) {
		/* this wait and the estimated ones before it: their CPU time
		 * in all is exact (the works between are TSC spans) */
		uint64_t all = ns + t->est_sum > t->last ? ns + t->est_sum - t->last : 0;
		t->est_ns = all / (t->est_n + 1u);
		t->est_have = 1;
	}
	t->est_n = 0;
	t->est_sum = 0;
	if (t->base_ok && s == t->seq && !t->base_est) {
		/* no switch since the base: check the extrapolation */
		uint64_t x = t->base_ns + (((c - t->base_tsc) * rp_tsc_mult) >> 32);
		t->chk_n++;
		t->chk_err += x > ns ? x - ns : ns - x;
	}
	t->base_ns = ns;
	t->base_tsc = c;
	t->base_est = 0;
	t->seq = rseq ? rseq_token(t) : s2;
	t->base_ok = rseq ? s2 == t->seq : s == s2;
	return ns;
}

uint64_t rp_now_slow(struct rp_thread *t, uint32_t s, uint64_t c)
{
	return now_exact(t, s, c, 0);
}

/* The exact read after each context switch cost 0.52 us on the project's
 * VM (a system call), and a one-CPU recording of an OpenMP program
 * sleeps in libgomp's waits tens of thousands of times per CPU-second
 * (NPB MG: 5,400 exact reads in 0.11 s of CPU).  A wait's CPU time is not
 * work, so where the thread slept in one its end is estimated instead;
 * the work after it is a TSC span from the new base, as exact as ever,
 * unless a switch comes before its end (then now_exact). */
uint64_t rp_now_wait(struct rp_thread *t)
{
	if (!t->sw)
		return exact_now();
	uint32_t s = *t->sw;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint64_t c = rp_ticks(), d = c - t->base_tsc;
	if (t->base_ok && s == t->seq && d < RP_RESYNC_TICKS)
		return t->base_ns + ((d * rp_tsc_mult) >> 32);
	/* no base, the resynchronisation, no estimate yet, or its turn */
	if (!t->base_ok || s == t->seq || !t->est_have || t->est_n + 1u >= g_est_every)
		return now_exact(t, s, c, 1);
	/* a long wait (wall time since it began, TSC): a thread that spun
	 * in it (recorded on several CPUs) and was preempted may have spent
	 * any of it on the CPU, and an exact read is cheap beside it */
	uint64_t since = t->last > t->base_ns ? t->last - t->base_ns : 0; /* ns */
	uint64_t wall = (uint64_t)(((unsigned __int128)d * rp_tsc_mult) >> 32); /* ns */
	if (wall < since || wall - since > RP_EST_MAX_NS)
		return now_exact(t, s, c, 1);
	int rseq = g_clk == REC_CLOCK_RSEQ;
	uint32_t s2 = 0;
	if (rseq)
		rseq_arm(t);
	else
		s2 = *t->sw; /* before the TSC: a switch after it is seen */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c = rp_ticks();
	if (rseq)
		s2 = *t->sw;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->base_ns = t->last + t->est_ns;
	t->base_tsc = c;
	t->base_est = 1;
	t->seq = rseq ? rseq_token(t) : s2;
	t->base_ok = rseq ? s2 == t->seq : 1;
	t->est_n++;
	t->est_sum += t->est_ns;
	return t->base_ns;
}

uint64_t rp_cpu_now(void)
{
	struct rp_thread *t = rp_self;
	return t ? rp_now(t) : exact_now();
}

uint64_t rp_work_at(struct rp_thread *t, int op, uint64_t now)
{
	uint64_t d = now > t->last ? now - t->last : 0;
	int64_t r = g_resid[op];
	if (r > 0 && (uint64_t)r > d) {
		t->sub += d;
		d = 0;
	} else {
		t->sub += (uint64_t)r; /* may be negative: added */
		d = (uint64_t)((int64_t)d - r);
	}
	t->ncall[op]++;
	t->last = now;
	t->mark = now;
	t->mark_op = (uint8_t)op;
	t->carry += d;
	return t->carry;
}

/* ---- calibration ---- */

enum cal_case { CAL_LOCK, CAL_TRYLOCK, CAL_SEM, CAL_TRYWAIT, CAL_WR, CAL_RD, CAL_SIGNAL,
	        CAL_BROADCAST, CAL_NCASES };

/* Each case: the calls it makes per iteration and how its excess per
 * iteration is divided between their kinds (`first` takes the excess
 * minus what `second` was given by an earlier case).  No barrier case
 * since rec36 (2026-11-28): glibc's pthread_barrier_wait makes a futex
 * system call even alone at a barrier of one, whose variance swamped the
 * wrapper's few nanoseconds (15 start-ups, loaded: 0 to 99 ns a record,
 * median 43, against 5-13 ns for every other kind, each within 2-4 ns),
 * and its 400 calls were half of each calibration's CPU time (start-up
 * and end calibrations 4.85 ms -> 2.47 ms, medians, interleaved); a
 * barrier's record now gets the mean, as create, join and exit do
 * (docs/record.md, "The calibration's cost"). */
static const struct cal_row {
	int first, second;  /* trace ops; second -1: one call           */
	int split;          /* 1: the two share the excess equally       */
} cal_rows[CAL_NCASES] = {
	[CAL_LOCK] = {.first = TRACE_LOCK, .second = TRACE_UNLOCK, .split = 1},
	[CAL_TRYLOCK] = {.first = TRACE_TRYLOCK, .second = TRACE_UNLOCK},
	[CAL_SEM] = {.first = TRACE_POST, .second = TRACE_WAIT, .split = 1},
	[CAL_TRYWAIT] = {.first = TRACE_TRYWAIT, .second = TRACE_POST},
	[CAL_WR] = {.first = TRACE_WRLOCK, .second = TRACE_RWUNLOCK, .split = 1},
	[CAL_RD] = {.first = TRACE_RDLOCK, .second = TRACE_RWUNLOCK},
	[CAL_SIGNAL] = {.first = TRACE_SIGNAL, .second = -1},
	[CAL_BROADCAST] = {.first = TRACE_BROADCAST, .second = -1},
};

static pthread_mutex_t cal_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t cal_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cal_c = PTHREAD_COND_INITIALIZER;
static sem_t cal_s;

/* n iterations of case c, through the wrappers (wrapped) or the real
 * functions */
/* The program's code between two calls, in the gap calibration: a
 * dependent chain of CAL_STEPS multiply-adds (about 1.2 ns each here)
 * before every call.  Out-of-order execution overlaps the few
 * instructions of a wrapper outside the excluded span with such a chain,
 * so what they cost depends on the code around the call: on the
 * project's VM 7-8 ns per record with calls back to back (30 start-ups
 * of 30), -5 or -6 with 20 steps (28 of 30; the other two 6-8).  The
 * Splash-3 codes carry more than back to back (BARNES 14-16 ns per
 * record, FMM about 14), a loop of dependent multiplies between its
 * locks (the lockprobe) about 1: so the back-to-back excess is the one
 * subtracted, and the gap's tells how much a program's code may hide
 * (docs/record.md, "The recorder's cost").  Overridden by
 * SHADOWBIND_CAL_STEPS. */
#define CAL_STEPS 20
static int cal_steps;
static uint64_t cal_x;

static void gap(void)
{
	uint64_t x = cal_x;
	for (int k = 0; k < cal_steps; k++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	cal_x = x;
}

#define W(wrapped_call, real_call) (gap(), wrapped ? (wrapped_call) : (real_call))

static void cal_run(int c, int n, int wrapped)
{
	for (int i = 0; i < n; i++) {
		__asm__ volatile("" ::: "memory");
		switch (c) {
		case CAL_LOCK:
			W(pthread_mutex_lock(&cal_m), rp_real.mutex_lock(&cal_m));
			W(pthread_mutex_unlock(&cal_m), rp_real.mutex_unlock(&cal_m));
			break;
		case CAL_TRYLOCK:
			W(pthread_mutex_trylock(&cal_m), rp_real.mutex_trylock(&cal_m));
			W(pthread_mutex_unlock(&cal_m), rp_real.mutex_unlock(&cal_m));
			break;
		case CAL_SEM:
			W(sem_post(&cal_s), rp_real.sem_post(&cal_s));
			W(sem_wait(&cal_s), rp_real.sem_wait(&cal_s));
			break;
		case CAL_TRYWAIT:
			W(sem_post(&cal_s), rp_real.sem_post(&cal_s));
			W(sem_trywait(&cal_s), rp_real.sem_trywait(&cal_s));
			break;
		case CAL_WR:
			W(pthread_rwlock_wrlock(&cal_rw), rp_real.rw_wrlock(&cal_rw));
			W(pthread_rwlock_unlock(&cal_rw), rp_real.rw_unlock(&cal_rw));
			break;
		case CAL_RD:
			W(pthread_rwlock_rdlock(&cal_rw), rp_real.rw_rdlock(&cal_rw));
			W(pthread_rwlock_unlock(&cal_rw), rp_real.rw_unlock(&cal_rw));
			break;
		case CAL_SIGNAL:
			W(pthread_cond_signal(&cal_c), rp_real.cond_signal(&cal_c));
			break;
		case CAL_BROADCAST:
			W(pthread_cond_broadcast(&cal_c), rp_real.cond_broadcast(&cal_c));
			break;
		}
	}
}

/* Iterations per batch and batches (the minimum of these is taken);
 * SHADOWBIND_CAL_N and SHADOWBIND_CAL_BATCHES override them.  Measured
 * on the project's VM, five start-ups each: 25 x 8 gives the residuals
 * that 400 x 7 gives (within 1 ns, but for the same bimodal -5 or +3 ns
 * both show from one start-up to the next) in 0.8 ms for the whole
 * start-up against 6-7 ms. */
#define CAL_N 25
#define CAL_BATCHES 8
static int cal_n = CAL_N, cal_batches = CAL_BATCHES;

static int env_int(const char *name, int def, int lo, int hi)
{
	const char *e = getenv(name);
	int v = e && *e ? atoi(e) : def;
	return v < lo || v > hi ? def : v;
}

/* Sum of the works of t's records since the last call. */
static uint64_t cal_take(struct rp_thread *t)
{
	uint64_t s = t->cal_sum;
	t->cal_sum = 0;
	return s;
}

/* Measure the excess per record of each kind into out[]: the wrapped
 * calls' recorded work minus the bare calls' CPU time, the minimum of
 * CAL_BATCHES batches each.  t is a private thread (never written);
 * runs with every residual 0. */
static void calibrate(struct rp_thread *t, int64_t out[TRACE_NOPS], int b2b)
{
	int64_t saved[TRACE_NOPS];
	memcpy(saved, g_resid, sizeof saved);
	memset(g_resid, 0, sizeof g_resid);
	struct rp_thread *self = rp_self;
	cal_steps = b2b ? 0 : env_int("SHADOWBIND_CAL_STEPS", CAL_STEPS, 0, 10000);
	cal_n = env_int("SHADOWBIND_CAL_N", CAL_N, 1, 1000000);
	cal_batches = env_int("SHADOWBIND_CAL_BATCHES", CAL_BATCHES, 1, 1000);
	rp_self = t;
	sem_init(&cal_s, 0, 0);
	int64_t ex[CAL_NCASES], res[TRACE_NOPS];
	for (int c = 0; c < CAL_NCASES; c++) {
		uint64_t bare = UINT64_MAX, rec = UINT64_MAX;
		for (int b = 0; b < cal_batches; b++) {
			uint64_t a = rp_now(t);
			cal_run(c, cal_n, 0);
			uint64_t z = rp_now(t);
			if (z - a < bare)
				bare = z - a;
			t->carry = 0;
			t->last = rp_now(t);
			cal_run(c, cal_n, 1);
			uint64_t w = cal_take(t) + t->carry;
			if (w < rec)
				rec = w;
		}
		ex[c] = ((int64_t)rec - (int64_t)bare) / cal_n;

	}
	for (int op = 0; op < TRACE_NOPS; op++)
		res[op] = 0;
	for (int c = 0; c < CAL_NCASES; c++) {
		const struct cal_row *r = &cal_rows[c];
		if (r->second < 0)
			res[r->first] = ex[c];
		else if (r->split)
			res[r->first] = ex[c] / 2, res[r->second] = ex[c] - ex[c] / 2;
		else
			res[r->first] = ex[c] - res[r->second];
	}
	/* kinds not calibrated (create, join, exit, cwait, sleep, barrier): the mean */
	int64_t s = 0;
	int n = 0;
	for (int c = 0; c < CAL_NCASES; c++)
		s += ex[c], n += cal_rows[c].second < 0 ? 1 : 2;
	for (int op = 0; op < TRACE_NOPS; op++) {
		int known = 0;
		for (int c = 0; c < CAL_NCASES; c++)
			known |= cal_rows[c].first == op || cal_rows[c].second == op;
		if (!known)
			res[op] = s / n;
	}
	rp_self = self;
	memcpy(g_resid, saved, sizeof saved);
	memcpy(out, res, sizeof res);
}

/* A private thread for the calibration: its records are never written. */
static struct rp_thread *cal_thread(void)
{
	static struct rp_thread ct;
	struct rec_spool_rec *buf = ct.sb.slot; /* its scratch buffer, kept */
	uint32_t cap = ct.sb.cap;
	memset(&ct, 0, sizeof ct);
	ct.cal = 1;
	ct.started = 1;
	/* reopened as buf_open (rp_state.c) opened it: out NULL, a full
	 * buffer is emptied; the first time, buf_open maps it */
	if (buf)
		rec_spool_buf_open(&ct.sb, buf, cap, ct.id, NULL, NULL);
	rp_clock_open(&ct);
	return &ct;
}

void rp_clock_init(void)
{
	const char *e = getenv("SHADOWBIND_CLOCK");
	int want_fast = !(e && !strcmp(e, "syscall"));
	rp_tsc_mult = want_fast && tsc_invariant() ? tsc_mult((uint64_t)env_int("SHADOWBIND_TSC_US", TSC_WINDOW_NS / 1000, 50, 1000000) * 1000u) : 0;
	g_clk = !rp_tsc_mult ? REC_CLOCK_SYSCALL : !(e && !strcmp(e, "perf")) && rseq_works() ? REC_CLOCK_RSEQ : REC_CLOCK_PERF;
	/* SHADOWBIND_WAIT_EXACT=1: every wait's end read exactly (as before
	 * the estimate: to compare) */
	g_est_every = env_int("SHADOWBIND_WAIT_EXACT", 0, 0, 1) ? 1u : RP_EST_EVERY;
	cpu_set_t cpus;
	rp_wait_work = env_int("SHADOWBIND_WAIT_WORK", 0, 0, 1) && sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
	               CPU_COUNT(&cpus) == 1;
	struct rp_thread *t = cal_thread();
	if (!t->sw)
		g_clk = REC_CLOCK_SYSCALL;
	/* the cost of one read, both ways (reported) */
	uint64_t best = UINT64_MAX;
	for (int b = 0; b < 8; b++) {
		uint64_t a = exact_now();
		for (int i = 0; i < 15; i++)
			exact_now();
		uint64_t d = (exact_now() - a) / 16;
		best = d < best ? d : best;
	}
	g_slow_read = best;
	g_fast_read = g_slow_read;
	if (t->sw) {
		best = UINT64_MAX;
		for (int b = 0; b < 8; b++) {
			uint64_t a = rp_now(t);
			for (int i = 0; i < 255; i++)
				rp_now(t);
			uint64_t d = (rp_now(t) - a) / 256;
			best = d < best ? d : best;
		}
		g_fast_read = best;
	}
}

/* Start: calibrate on private objects; the caller then forgets every
 * object and record they made (rp_state.c). */
uint64_t rp_calibrate_start(void)
{
	uint64_t a = exact_now();
	struct rp_thread *t = cal_thread();
	calibrate(t, g_resid, 1);
	rp_clock_close(t);
	tsc_refine();
	/* Never added: a calibration that found the wrapped calls faster
	 * than the bare ones would add work that real programs do not show
	 * (back to back the excess was 7-8 ns per record in every start-up
	 * measured; with the gap it is negative, docs/record.md). */
	for (int op = 0; op < TRACE_NOPS; op++)
		if (g_resid[op] < 0)
			g_resid[op] = 0;
	g_calibrated = 1;
	uint64_t d = exact_now() - a;
	g_cal_ns += d;
	return d;
}

void rp_calibrate_end(void)
{
	if (!g_calibrated || g_checked || !rp_self)
		return;
	g_checked = 1;
	uint64_t a = exact_now();
	struct rp_thread *t = cal_thread();
	calibrate(t, g_resid_end, 1);
	calibrate(t, g_resid_gap, 0);
	rp_clock_close(t);
	uint64_t d = exact_now() - a;
	g_cal_ns += d;
	/* not the calling thread's work */
	rp_self->last += d;
	rp_self->base_ok = 0;
}

/* ---- statistics (docs/record.md, "The recorder's cost") ---- */

static void put(int fd, const char *k, int64_t v)
{
	char b[96];
	size_t n = strlen(k);
	memcpy(b, k, n);
	b[n++] = ' ';
	char d[24];
	int j = 0;
	uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;
	do
		d[j++] = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		b[n++] = '-';
	while (j)
		b[n++] = d[--j];
	b[n++] = '\n';
	if (write(fd, b, n) < 0)
		return;
}

static uint64_t g_cpu_before_write; /* process CPU time; ns */

static uint64_t process_cpu(int who)
{
	struct rusage ru;
	if (getrusage(who, &ru) < 0)
		return 0;
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u +
	       (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
}

void rp_stats_mark(void)
{
	g_cpu_before_write = process_cpu(RUSAGE_SELF);
}

void rp_stats_write(const char *trace_path)
{
	char p[4200];
	size_t l = strlen(trace_path);
	if (l + 7 > sizeof p)
		return;
	memcpy(p, trace_path, l);
	memcpy(p + l, ".stats", 7);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	uint64_t ncall[TRACE_NOPS] = { 0 }, excl[TRACE_NOPS] = { 0 };
	uint64_t sub = 0, chk_n = 0, chk_err = 0, slow_n = 0, omp_wait = 0;
	uint32_t nt = rp_nthreads();
	for (uint32_t i = 1; i <= nt; i++) {
		struct rp_thread *t = rp_thread_at(i);
		for (int op = 0; op < TRACE_NOPS; op++) {
			ncall[op] += t->ncall[op];
			excl[op] += t->excl[op];
		}
		sub += (uint64_t)t->sub;
		chk_n += t->chk_n;
		chk_err += t->chk_err;
		slow_n += t->slow_n;
		omp_wait += t->omp_wait;
	}
	uint64_t cpu = process_cpu(RUSAGE_SELF), children = process_cpu(RUSAGE_CHILDREN);
	put(fd, "clock_fast", g_clk);
	put(fd, "tsc_mult", (int64_t)rp_tsc_mult);
	put(fd, "startup_ns", (int64_t)rp_startup_ns);
	put(fd, "read_fast_ns", (int64_t)g_fast_read);
	put(fd, "read_syscall_ns", (int64_t)g_slow_read);
	put(fd, "calibration_ns", (int64_t)g_cal_ns);
	put(fd, "subtracted_ns", (int64_t)sub);
	put(fd, "slow_reads", (int64_t)slow_n);
	put(fd, "check_n", (int64_t)chk_n);
	put(fd, "check_err_ns", (int64_t)chk_err);
	put(fd, "process_cpu_ns", (int64_t)g_cpu_before_write);
	put(fd, "process_cpu_written_ns", (int64_t)cpu);
	put(fd, "children_cpu_ns", (int64_t)children);
	put(fd, "checked", g_checked);
	put(fd, "omp_wait_ns", (int64_t)omp_wait);
	uint64_t mapped, reused;
	rp_buf_counts(&mapped, &reused);
	put(fd, "buffers_mapped", (int64_t)mapped);
	put(fd, "buffers_reused", (int64_t)reused);
	/* the calibration's figures for every kind, the calls and spans for
	 * those called */
	for (int op = 0; op < TRACE_NOPS; op++) {
		char k[64];
		const char *nm = trace_ops[op].name;
		size_t n = strlen(nm);
		if (ncall[op]) {
			memcpy(k, "calls_", 6);
			memcpy(k + 6, nm, n + 1);
			put(fd, k, (int64_t)ncall[op]);
			memcpy(k, "excl_", 5);
			memcpy(k + 5, nm, n + 1);
			put(fd, k, (int64_t)excl[op]);
		}
		memcpy(k, "resid_", 6);
		memcpy(k + 6, nm, n + 1);
		put(fd, k, g_resid[op]);
		memcpy(k, "check_", 6);
		memcpy(k + 6, nm, n + 1);
		put(fd, k, g_resid_end[op]);
		memcpy(k, "gap_", 4);
		memcpy(k + 4, nm, n + 1);
		put(fd, k, g_resid_gap[op]);
	}
	close(fd);
}
