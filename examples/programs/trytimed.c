/*
 * trytimed.c - a test program for the recorder (tests/test_record.c):
 * read-write locks (readers together, writers alone, tries and timed
 * forms), mutex trylock that finds the mutex busy and free, sem_trywait
 * that finds a token and none, and timed waits that time out and that
 * do not (pthread_mutex_timedlock, sem_timedwait, pthread_cond_timedwait,
 * pthread_rwlock_timedrdlock/_timedwrlock), and sleeps (usleep,
 * nanosleep, clock_nanosleep relative and absolute, sleep, sched_yield),
 * and a recursive mutex locked three deep.  Not an example to predict.
 *
 *   trytimed [ROUNDS [SLEEP_S]]   ROUNDS = 3; SLEEP_S = 0: sleep(SLEEP_S)
 *                                 once at the end when > 0
 *
 * Two threads, main and a helper, go through phases separated by a
 * barrier of 2; within a phase each call's outcome is decided by the
 * phase (a try or a short timed wait on an object the other thread holds
 * until the next barrier fails; a timed wait with a 60 s deadline on an
 * object the other thread releases succeeds), so the outcomes are the
 * same on every run.  The program counts its own calls by outcome and
 * prints them as one line
 *   calls NAME N NAME N ...
 * (every NAME once, in a fixed order); the test maps each call to the
 * records docs/record.md says it gives.  A condition wait that returns
 * with its predicate still false is counted as spurious, and the timed
 * waits that time out were given TIMEOUT_NS (printed as `timeout_ns N`),
 * the relative sleeps the durations printed as `usleep_ns N` (usleep's
 * microseconds in ns), `nanosleep_ns N`, `clocksleep_ns N`, the absolute
 * clock_nanosleep a deadline `abssleep_ns N` after its call; its one
 * semaphore starts with `sem_value N` tokens.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

#define TIMEOUT_NS 2000000L     /* 2 ms: the waits that must time out   */
#define LONG_S 60               /* s: the waits that must not            */
#define USLEEP_US 1111          /* us: usleep's                          */
#define NANOSLEEP_NS 1234567L   /* ns: nanosleep's                       */
#define CLOCKSLEEP_NS 1345678L  /* ns: clock_nanosleep's, relative       */
#define ABSSLEEP_NS 1300000L    /* ns: clock_nanosleep's, absolute       */
#define SEM_VALUE 0             /* g_sem's initial tokens                */

enum {
	K_CREATE, K_JOIN, K_BARRIER,
	K_LOCK, K_UNLOCK, K_TRYLOCK_OK, K_TRYLOCK_BUSY, K_TIMEDLOCK_OK, K_TIMEDLOCK_TIMEOUT,
	K_POST, K_TRYWAIT_OK, K_TRYWAIT_BUSY, K_SEMTIMED_OK, K_SEMTIMED_TIMEOUT,
	K_SIGNAL, K_CONDTIMED_OK, K_CONDTIMED_SPURIOUS, K_CONDTIMED_TIMEOUT,
	K_RDLOCK, K_WRLOCK, K_TRYRDLOCK_OK, K_TRYRDLOCK_BUSY, K_TRYWRLOCK_BUSY,
	K_TIMEDRDLOCK_OK, K_TIMEDRDLOCK_TIMEOUT, K_TIMEDWRLOCK_OK, K_TIMEDWRLOCK_TIMEOUT,
	K_RWUNLOCK, K_USLEEP, K_NANOSLEEP, K_CLOCKSLEEP_REL, K_CLOCKSLEEP_ABS, K_SLEEP,
	K_YIELD, K_RLOCK_OUTER, K_RLOCK_INNER, K_RTRYLOCK_INNER, K_RUNLOCK_INNER, K_RUNLOCK_OUTER, K_N
};
static const char *const kname[K_N] = {
	"create", "join", "barrier",
	"mutex_lock", "mutex_unlock", "mutex_trylock_ok", "mutex_trylock_busy",
	"mutex_timedlock_ok", "mutex_timedlock_timeout",
	"sem_post", "sem_trywait_ok", "sem_trywait_busy", "sem_timedwait_ok",
	"sem_timedwait_timeout",
	"cond_signal", "cond_timedwait_ok", "cond_timedwait_spurious", "cond_timedwait_timeout",
	"rwlock_rdlock", "rwlock_wrlock", "rwlock_tryrdlock_ok", "rwlock_tryrdlock_busy",
	"rwlock_trywrlock_busy", "rwlock_timedrdlock_ok", "rwlock_timedrdlock_timeout",
	"rwlock_timedwrlock_ok", "rwlock_timedwrlock_timeout", "rwlock_unlock",
	"usleep", "nanosleep", "clock_nanosleep_rel", "clock_nanosleep_abs", "sleep",
	"sched_yield", "recursive_lock_outer", "recursive_lock_inner", "recursive_trylock_inner",
	"recursive_unlock_inner", "recursive_unlock_outer",
};
static long kcount[K_N];
static int g_bad; /* an outcome other than the phase's: exit 1 */

static pthread_barrier_t g_bar;
static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER, g_cmx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t g_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t g_rmx; /* recursive */
static sem_t g_sem;
static int g_flag; /* under g_cmx */
static volatile uint64_t g_sink; /* keeps the work */

static void k(int what)
{
	__atomic_fetch_add(&kcount[what], 1, __ATOMIC_RELAXED);
}

static void want(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "trytimed: unexpected outcome: %s\n", what);
		g_bad = 1;
	}
}

static void bar(void)
{
	pthread_barrier_wait(&g_bar);
	k(K_BARRIER);
}

/* An absolute CLOCK_REALTIME deadline ns nanoseconds from now. */
static struct timespec deadline(long ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ns / 1000000000L;
	ts.tv_nsec += ns % 1000000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static void mlock(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	k(K_LOCK);
}

static void munlock(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
	k(K_UNLOCK);
}

static void rwunlock(void)
{
	pthread_rwlock_unlock(&g_rw);
	k(K_RWUNLOCK);
}

/* The helper's side of each phase; main's is in round() below. */
static void *helper(void *arg)
{
	long rounds = (long)arg;
	for (long r = 0; r < rounds; r++) {
		/* 1. mutexes: held across a barrier, then released */
		mlock(&g_mx);
		bar();          /* main: trylock busy, timedlock times out */
		bar();
		g_sink += work(50, 1);
		munlock(&g_mx); /* main's timedlock (60 s) gets it */
		bar();          /* main: trylock ok */
		/* 2. semaphore: no token, then tokens */
		bar();          /* main: trywait busy, timedwait times out */
		sem_post(&g_sem);
		k(K_POST);
		bar();          /* main: trywait ok */
		g_sink += work(50, 2);
		sem_post(&g_sem); /* main's timedwait (60 s) gets it */
		k(K_POST);
		bar();
		/* 3. condition variable: main times out alone, then is
		 * signalled with the mutex held */
		bar();          /* main: timed out */
		bar();          /* main holds g_cmx until it waits */
		mlock(&g_cmx);
		g_flag = 1;
		pthread_cond_signal(&g_cv);
		k(K_SIGNAL);
		munlock(&g_cmx);
		bar();
		/* 4. rwlock: a reader here, main reads beside it, fails to
		 * write */
		pthread_rwlock_rdlock(&g_rw);
		k(K_RDLOCK);
		bar();          /* main: trywrlock busy, timedwrlock times out,
		                   rdlock, tryrdlock, timedrdlock ok */
		bar();
		rwunlock();
		bar();
		/* 5. rwlock: main writes; tries to read fail here, then this
		 * thread writes after main */
		bar();          /* main holds the write lock */
		if (pthread_rwlock_tryrdlock(&g_rw) == EBUSY)
			k(K_TRYRDLOCK_BUSY);
		else
			want(0, "tryrdlock while main writes");
		struct timespec ts = deadline(TIMEOUT_NS);
		if (pthread_rwlock_timedrdlock(&g_rw, &ts) == ETIMEDOUT)
			k(K_TIMEDRDLOCK_TIMEOUT);
		else
			want(0, "timedrdlock while main writes");
		bar();          /* main unlocks after some work */
		pthread_rwlock_wrlock(&g_rw);
		k(K_WRLOCK);
		g_sink += work(20, 3);
		rwunlock();
		bar();
	}
	return NULL;
}

static void round_main(void)
{
	struct timespec ts;
	int r;
	/* 1. the helper holds g_mx */
	bar();
	r = pthread_mutex_trylock(&g_mx);
	want(r == EBUSY, "trylock of a held mutex");
	k(r == 0 ? K_TRYLOCK_OK : K_TRYLOCK_BUSY);
	ts = deadline(TIMEOUT_NS);
	r = pthread_mutex_timedlock(&g_mx, &ts);
	want(r == ETIMEDOUT, "timedlock of a held mutex");
	k(r == 0 ? K_TIMEDLOCK_OK : K_TIMEDLOCK_TIMEOUT);
	bar();
	ts = deadline(LONG_S * 1000000000L);
	r = pthread_mutex_timedlock(&g_mx, &ts); /* the helper unlocks it */
	want(r == 0, "timedlock (60 s) of a mutex being released");
	k(r == 0 ? K_TIMEDLOCK_OK : K_TIMEDLOCK_TIMEOUT);
	munlock(&g_mx);
	bar();
	r = pthread_mutex_trylock(&g_mx);
	want(r == 0, "trylock of a free mutex");
	k(r == 0 ? K_TRYLOCK_OK : K_TRYLOCK_BUSY);
	munlock(&g_mx);
	/* 2. semaphore */
	r = sem_trywait(&g_sem);
	want(r != 0, "trywait without a token");
	k(r == 0 ? K_TRYWAIT_OK : K_TRYWAIT_BUSY);
	ts = deadline(TIMEOUT_NS);
	r = sem_timedwait(&g_sem, &ts);
	want(r != 0 && errno == ETIMEDOUT, "timedwait without a token");
	k(r == 0 ? K_SEMTIMED_OK : K_SEMTIMED_TIMEOUT);
	bar();
	bar();          /* the helper posted */
	r = sem_trywait(&g_sem);
	want(r == 0, "trywait with a token");
	k(r == 0 ? K_TRYWAIT_OK : K_TRYWAIT_BUSY);
	ts = deadline(LONG_S * 1000000000L);
	r = sem_timedwait(&g_sem, &ts);
	want(r == 0, "timedwait (60 s) for a post");
	k(r == 0 ? K_SEMTIMED_OK : K_SEMTIMED_TIMEOUT);
	bar();
	/* 3. condition variable: nobody signals, then the helper does */
	mlock(&g_cmx);
	ts = deadline(TIMEOUT_NS);
	r = pthread_cond_timedwait(&g_cv, &g_cmx, &ts);
	while (r == 0) { /* woken by nobody: spurious; wait out the deadline */
		k(K_CONDTIMED_SPURIOUS);
		r = pthread_cond_timedwait(&g_cv, &g_cmx, &ts);
	}
	want(r == ETIMEDOUT, "timedwait without a signal");
	k(K_CONDTIMED_TIMEOUT);
	munlock(&g_cmx);
	bar();
	mlock(&g_cmx);
	g_flag = 0;
	bar();          /* the helper locks g_cmx once main waits */
	ts = deadline(LONG_S * 1000000000L);
	while (!g_flag) {
		r = pthread_cond_timedwait(&g_cv, &g_cmx, &ts);
		want(r == 0, "timedwait (60 s) for a signal");
		k(g_flag ? K_CONDTIMED_OK : K_CONDTIMED_SPURIOUS);
	}
	munlock(&g_cmx);
	bar();
	/* 4. the helper reads */
	bar();
	r = pthread_rwlock_trywrlock(&g_rw);
	want(r == EBUSY, "trywrlock beside a reader");
	k(K_TRYWRLOCK_BUSY);
	ts = deadline(TIMEOUT_NS);
	r = pthread_rwlock_timedwrlock(&g_rw, &ts);
	want(r == ETIMEDOUT, "timedwrlock beside a reader");
	k(r == 0 ? K_TIMEDWRLOCK_OK : K_TIMEDWRLOCK_TIMEOUT);
	pthread_rwlock_rdlock(&g_rw);
	k(K_RDLOCK);
	r = pthread_rwlock_tryrdlock(&g_rw);
	want(r == 0, "tryrdlock beside readers");
	k(r == 0 ? K_TRYRDLOCK_OK : K_TRYRDLOCK_BUSY);
	ts = deadline(LONG_S * 1000000000L);
	r = pthread_rwlock_timedrdlock(&g_rw, &ts);
	want(r == 0, "timedrdlock beside readers");
	k(r == 0 ? K_TIMEDRDLOCK_OK : K_TIMEDRDLOCK_TIMEOUT);
	rwunlock();
	rwunlock();
	rwunlock();
	bar();
	bar();          /* the helper unlocked */
	/* 5. main writes */
	ts = deadline(LONG_S * 1000000000L);
	r = pthread_rwlock_timedwrlock(&g_rw, &ts);
	want(r == 0, "timedwrlock of a free rwlock");
	k(r == 0 ? K_TIMEDWRLOCK_OK : K_TIMEDWRLOCK_TIMEOUT);
	bar();          /* the helper's tries fail */
	bar();
	g_sink += work(50, 4);
	rwunlock();     /* the helper's wrlock gets it */
	bar();
	/* 6. sleeps, main alone */
	want(usleep(USLEEP_US) == 0, "usleep");
	k(K_USLEEP);
	struct timespec rq = {0, NANOSLEEP_NS};
	want(nanosleep(&rq, NULL) == 0, "nanosleep");
	k(K_NANOSLEEP);
	rq.tv_nsec = CLOCKSLEEP_NS;
	want(clock_nanosleep(CLOCK_MONOTONIC, 0, &rq, NULL) == 0, "clock_nanosleep");
	k(K_CLOCKSLEEP_REL);
	clock_gettime(CLOCK_MONOTONIC, &rq);
	rq.tv_nsec += ABSSLEEP_NS;
	if (rq.tv_nsec >= 1000000000L) {
		rq.tv_sec++;
		rq.tv_nsec -= 1000000000L;
	}
	want(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &rq, NULL) == 0,
	     "clock_nanosleep, absolute");
	k(K_CLOCKSLEEP_ABS);
	want(sched_yield() == 0, "sched_yield");
	k(K_YIELD);
	/* 7. a recursive mutex, locked three deep by its owner */
	want(pthread_mutex_lock(&g_rmx) == 0, "recursive lock");
	k(K_RLOCK_OUTER);
	want(pthread_mutex_lock(&g_rmx) == 0, "recursive lock again");
	k(K_RLOCK_INNER);
	want(pthread_mutex_trylock(&g_rmx) == 0, "recursive trylock by its owner");
	k(K_RTRYLOCK_INNER);
	want(pthread_mutex_unlock(&g_rmx) == 0, "recursive unlock");
	k(K_RUNLOCK_INNER);
	want(pthread_mutex_unlock(&g_rmx) == 0, "recursive unlock");
	k(K_RUNLOCK_INNER);
	want(pthread_mutex_unlock(&g_rmx) == 0, "recursive unlock, the last");
	k(K_RUNLOCK_OUTER);
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 3);
	unsigned sleep_s = argc > 2 ? (unsigned)arg_long(argc, argv, 2, 1) : 0;
	pthread_t t;
	pthread_barrier_init(&g_bar, NULL, 2);
	pthread_mutexattr_t ra;
	pthread_mutexattr_init(&ra);
	pthread_mutexattr_settype(&ra, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&g_rmx, &ra);
	pthread_mutexattr_destroy(&ra);
	sem_init(&g_sem, 0, SEM_VALUE);
	pthread_create(&t, NULL, helper, (void *)rounds);
	k(K_CREATE);
	for (long r = 0; r < rounds; r++)
		round_main();
	pthread_join(t, NULL);
	k(K_JOIN);
	if (sleep_s) {
		want(sleep(sleep_s) == 0, "sleep");
		k(K_SLEEP);
	}
	printf("calls");
	for (int i = 0; i < K_N; i++)
		printf(" %s %ld", kname[i], kcount[i]);
	printf(" timeout_ns %ld usleep_ns %ld nanosleep_ns %ld clocksleep_ns %ld abssleep_ns %ld"
	       " sleep_ns %ld sem_value %d\n", TIMEOUT_NS, USLEEP_US * 1000L, NANOSLEEP_NS,
	       CLOCKSLEEP_NS, ABSSLEEP_NS, (long)sleep_s * 1000000000L, SEM_VALUE);
	return g_bad;
}
