/*
 * rp_wrap.c - the interposed functions (rp.h, docs/record.md): threads,
 * mutexes, semaphores, condition variables, barriers, read-write locks,
 * sleeps.  Each calls the real function; when the calling thread is
 * recorded it also appends a record, under G, in the order the operation
 * took effect: a release takes its place (under G) just before the real
 * operation, an acquisition just after the real operation returned; so
 * whatever an acquisition waited for precedes it.  (A release performed
 * while holding G would make the thread it wakes block on G at once on
 * one processor: two more context switches per hand-off.)
 */
#include <errno.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/preload/rp.h"

#define INIT() do { if (!rp_real.mutex_lock) rp_init(); } while (0)

/* ---- threads ---- */

struct rp_start {
	void *(*fn)(void *);
	void *arg;
	struct rp_thread *t;     /* recording */
	struct rp_pin_start pin; /* its CPU (run mode, a bound recording) */
};

static void *rp_trampoline(void *p)
{
	struct rp_start s = *(struct rp_start *)p;
	struct rp_thread *t = s.t;
	/* the recorder's set-up of a recorded thread (with the perf clock
	 * its perf_event_open and mapping: 12 us a thread on the project's
	 * VM, docs/sim.md; with rseq nothing) is not the thread's work: its span, from here to the
	 * first reading of the new clock, is left out of the first record;
	 * the thread's CPU time before it (its start) stays in */
	uint64_t setup0 = t ? rp_cpu_now() : 0; /* ns */
	free(p);
	rp_pin_started(&s.pin);
	if (t) {
		t->pt = pthread_self();
		t->clock = CLOCK_THREAD_CPUTIME_ID;
		pthread_getcpuclockid(t->pt, &t->clock);
		rp_clock_open(t);
		uint64_t setup1 = rp_now(t);
		t->last = setup1 > setup0 ? setup1 - setup0 : 0;
		t->excl[TRACE_CREATE] += t->last; /* the recorder's, in its report */
		rp_self = t;
		__atomic_store_n(&t->started, 1, __ATOMIC_RELEASE);
	}
	void *ret = s.fn(s.arg);
	if (t)
		rp_thread_exit(t);
	return ret;
}

int pthread_create(pthread_t *pt, const pthread_attr_t *attr,
                   void *(*fn)(void *), void *arg)
{
	INIT();
	if (rp_mode == RP_OFF)
		return rp_real.create(pt, attr, fn, arg);
	struct rp_start *s = malloc(sizeof *s);
	if (!s)
		return EAGAIN;
	s->fn = fn;
	s->arg = arg;
	s->t = NULL;
	s->pin = (struct rp_pin_start){ .cpu = -1 };
	if (rp_mode == RP_RUN) {
		s->pin.cpu = rp_pin_next(&s->pin.run_id);
		int r = rp_pin_start_thread(rp_real.create, pt, attr, rp_trampoline, s, &s->pin);
		if (r)
			free(s);
		return r;
	}
	struct rp_thread *t = rp_enter();
	if (!t) {
		/* a thread the recorder does not know creates one: its
		 * children are not recorded either */
		if (rp_pin_active())
			s->pin.cpu = rp_pin_next(&s->pin.run_id);
		int r = rp_pin_start_thread(rp_real.create, pt, attr, rp_trampoline, s, &s->pin);
		if (r)
			free(s);
		return r;
	}
	uint64_t w = rp_work(t, TRACE_CREATE);
	struct rec_spool_pend *rec = NULL;
	if (rp_lock() == 0) {
		s->t = rp_thread_new(fn);
		if (s->t)
			rec = rp_emit(t, w, TRACE_CREATE, s->t->id, 0);
		rp_unlock();
	}
	rp_mark(t);
	struct rp_thread *child = s->t;
	if (rp_pin_active())
		s->pin.cpu = rp_pin_next(&s->pin.run_id); /* recording a bound run */
	int r = rp_pin_start_thread(rp_real.create, pt, attr, rp_trampoline, s, &s->pin);
	if (r) {
		free(s);
		if (child && rp_lock() == 0) {
			if (rec)
				rec->dead = 1;
			/* never started: its exit at process exit is dropped
			 * with its create */
			child->exited = 1;
			rp_unlock();
		}
	} else if (child && rp_lock() == 0) {
		rp_thread_map(*pt, child->id);
		rp_unlock();
	}
	rp_leave(t, r == 0 && rec);
	return r;
}

void pthread_exit(void *ret)
{
	INIT();
	struct rp_thread *t = rp_self;
	if (rp_mode == RP_RECORD && t && !t->exited && !rp_finished)
		rp_thread_exit(t);
	rp_real.exit(ret);
}

int pthread_join(pthread_t pt, void **ret)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.join(pt, ret);
	/* which thread: looked up before the join, since once joined its
	 * pthread_t may be reused at once by a thread created meanwhile */
	uint32_t id = 0;
	if (rp_lock() == 0) {
		id = rp_thread_of(pt);
		rp_unlock();
	}
	int r = rp_real.join(pt, ret);
	uint64_t w = rp_work(t, TRACE_JOIN);
	int rec = 0;
	if (r == 0 && id && rp_lock() == 0) {
		rp_emit(t, w, TRACE_JOIN, id, 0);
		rec = 1;
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	return r;
}

/* ---- mutexes ---- */

/* After a successful acquisition of m (under G): record it unless it is a
 * recursive re-lock by its owner. */
static int mutex_acquired(struct rp_thread *t, pthread_mutex_t *m, uint64_t w,
                          int op, uint64_t b)
{
	struct rp_obj *o = rp_obj(m, TRACE_K_MUTEX);
	if (!o)
		return 0;
	if (o->owner == t->id) {
		o->depth++;
		return 0;
	}
	o->owner = t->id;
	o->depth = 0;
	rp_emit(t, w, op, rp_obj_id(o), b);
	return 1;
}

/* The fast path of a mutex's lock and unlock (issue 20): when the
 * mutex's id is known, the record is appended without G (rp_emit_fast):
 * the calling thread holds the mutex, which guards its owner, depth and
 * stamp, and the record goes to the thread's own buffer.  0: recorded or nothing to record (*rec
 * says; *nested: a recursive re-lock or inner unlock), -1: take the path
 * under G. */
static int mutex_fast(struct rp_thread *t, pthread_mutex_t *m, uint64_t w, int op,
                      struct rec_spool_pend **rec, int *nested)
{
	struct rp_obj *o = rp_obj_peek(m, TRACE_K_MUTEX);
	uint32_t id = o ? __atomic_load_n(&o->id, __ATOMIC_RELAXED) : 0;
	if (!id)
		return -1;
	*rec = NULL;
	*nested = 0;
	if (op == TRACE_LOCK) {
		if (o->owner == t->id) {
			o->depth++; /* a recursive re-lock: no record */
			*nested = 1;
			return 0;
		}
		o->owner = t->id;
		o->depth = 0;
	} else {
		if (o->owner != t->id)
			return 0; /* not its holder as the recorder sees it */
		if (o->depth) {
			o->depth--;
			*nested = 1;
			return 0;
		}
		o->owner = 0;
	}
	*rec = rp_emit_fast(t, o, w, op, id, 0);
	return 0;
}

/* The lock wrappers call the real function first and read the clock
 * right after it returns, before rp_enter: see rp_now_at. */
int pthread_mutex_lock(pthread_mutex_t *m)
{
	INIT();
	int r = rp_real.mutex_lock(m), rec = 0;
	uint64_t c = rp_ticks();
	struct rp_thread *t = rp_enter();
	if (!t)
		return r;
	uint64_t w = rp_work_at(t, TRACE_LOCK, rp_now_at(t, c));
	struct rec_spool_pend *fr;
	int nested;
	if (r == 0 && mutex_fast(t, m, w, TRACE_LOCK, &fr, &nested) == 0) {
		rec = fr != NULL;
	} else if (r == 0 && rp_lock() == 0) {
		rec = mutex_acquired(t, m, w, TRACE_LOCK, 0);
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	return r;
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	INIT();
	int r = rp_real.mutex_trylock(m), rec = 0;
	uint64_t c = rp_ticks();
	struct rp_thread *t = rp_enter();
	if (!t)
		return r;
	uint64_t w = rp_work_at(t, TRACE_TRYLOCK, rp_now_at(t, c));
	if ((r == 0 || r == EBUSY) && rp_lock() == 0) {
		if (r == 0) {
			rec = mutex_acquired(t, m, w, TRACE_TRYLOCK, 1);
		} else {
			struct rp_obj *o = rp_obj(m, TRACE_K_MUTEX);
			if (o) {
				rp_emit(t, w, TRACE_TRYLOCK, rp_obj_id(o), 0);
				rec = 1;
			}
		}
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	return r;
}

static int mutex_timed(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs,
                       int clocked)
{
	struct rp_thread *t = rp_enter();
	if (!t)
		return clocked ? rp_real.mutex_clocklock(m, clk, abs)
		               : rp_real.mutex_timedlock(m, abs);
	struct timespec start;
	clock_gettime(clk, &start);
	int r = clocked ? rp_real.mutex_clocklock(m, clk, abs) : rp_real.mutex_timedlock(m, abs);
	uint64_t w = rp_work(t, TRACE_LOCK);
	int rec = 0;
	if ((r == 0 || r == ETIMEDOUT) && rp_lock() == 0) {
		if (r == 0) {
			rec = mutex_acquired(t, m, w, TRACE_LOCK, 0);
		} else {
			/* timed out: it waited until the deadline */
			rp_emit(t, w, TRACE_SLEEP, rp_until(clk, abs, &start), 0);
			rec = 1;
		}
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	return r;
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
	INIT();
	return mutex_timed(m, CLOCK_REALTIME, abs, 0);
}

int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs)
{
	INIT();
	return mutex_timed(m, clk, abs, 1);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	uint64_t c = rp_ticks(); /* the work ends here: rp_now_at */
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.mutex_unlock(m);
	uint64_t w = rp_work_at(t, TRACE_UNLOCK, rp_now_at(t, c));
	struct rec_spool_pend *rec = NULL;
	int recursive = 0;
	/* the record takes its place before the real release (see
	 * rp_release_undo): nobody can acquire M before it */
	if (mutex_fast(t, m, w, TRACE_UNLOCK, &rec, &recursive) == 0) {
		/* recorded (or not) without G */
	} else if (rp_lock() == 0) {
		struct rp_obj *o = rp_obj(m, TRACE_K_MUTEX);
		if (o && o->owner == t->id) {
			if (o->depth) {
				o->depth--;
				recursive = 1;
			} else {
				o->owner = 0;
				rec = rp_emit(t, w, TRACE_UNLOCK, rp_obj_id(o), 0);
			}
		}
		rp_unlock();
	}
	rp_mark(t);
	int r = rp_real.mutex_unlock(m);
	if (r != 0 && (rec || recursive) && rp_lock() == 0) {
		struct rp_obj *o = rp_obj(m, TRACE_K_MUTEX);
		if (rec)
			rec->dead = 1;
		if (o && rec)
			o->owner = t->id;
		else if (o)
			o->depth++;
		rp_unlock();
		rec = NULL;
	}
	rp_leave(t, rec != NULL);
	return r;
}

/* ---- condition variables ---- */

enum { CW_PLAIN, CW_TIMED, CW_CLOCK };

static int cond_real(pthread_cond_t *c, pthread_mutex_t *m, int how, clockid_t clk,
                     const struct timespec *abs)
{
	switch (how) {
	case CW_TIMED:
		return rp_real.cond_timedwait(c, m, abs);
	case CW_CLOCK:
		return rp_real.cond_clockwait(c, m, clk, abs);
	default:
		return rp_real.cond_wait(c, m);
	}
}

static int cond_wait_any(pthread_cond_t *c, pthread_mutex_t *m, int how, clockid_t clk,
                         const struct timespec *abs)
{
	struct rp_thread *t = rp_enter();
	if (!t)
		return cond_real(c, m, how, clk, abs);
	uint64_t w = rp_work(t, TRACE_CWAIT);
	struct timespec start;
	if (how != CW_PLAIN)
		clock_gettime(clk, &start);
	if (rp_lock() < 0) {
		rp_leave(t, 0);
		return cond_real(c, m, how, clk, abs);
	}
	struct rp_obj *co = rp_obj(c, TRACE_K_COND), *mo = rp_obj(m, TRACE_K_MUTEX);
	if (!co || !mo || mo->owner != t->id || mo->depth) {
		/* not held by this thread as the recorder sees it, or held
		 * recursively: the trace cannot express it; not recorded */
		rp_unlock();
		rp_leave(t, 0);
		return cond_real(c, m, how, clk, abs);
	}
	uint32_t cid = rp_obj_id(co), mid = rp_obj_id(mo);
	rp_cv_register(co, t);
	mo->owner = 0;
	/* reserve the place of an `unlock M` where it began waiting: used
	 * only if the wait ends without a wake-up (timeout, spurious) */
	t->cw_rec = rp_emit(t, w, TRACE_UNLOCK, mid, cid); /* b: the condvar (cut traces) */
	if (t->cw_rec) {
		t->cw_rec->dead = 1;
		rp_sync(t); /* dead in the spool while it waits (a cut spool) */
	}
	t->cw_cond = c;
	t->cw_mutex = m;
	t->cw_active = 1;
	rp_unlock();
	rp_mark(t);

	int r = cond_real(c, m, how, clk, abs);

	if (rp_lock() < 0) {
		rp_leave(t, 0);
		return r;
	}
	t->cw_active = 0;
	co = rp_obj(c, TRACE_K_COND);
	mo = rp_obj(m, TRACE_K_MUTEX);
	if (co && mo && (r == 0 || r == ETIMEDOUT)) {
		mo->owner = t->id;
		mo->depth = 0;
		if (rp_cv_leave(co, t, r == 0)) {
			/* a signal or broadcast claimed it */
			rp_emit(t, w, TRACE_CWAIT, cid, mid);
		} else {
			/* timed out, or woken by no signal the recorder saw:
			 * unlock where it began, [sleep until the deadline],
			 * lock again here */
			if (t->cw_rec)
				t->cw_rec->dead = 0;
			if (r == ETIMEDOUT)
				rp_emit(t, 0, TRACE_SLEEP, rp_until(clk, abs, &start), 0);
			rp_emit(t, 0, TRACE_LOCK, mid, 0);
		}
	} else if (co && mo) {
		/* failed (EINVAL, EPERM): nothing happened */
		rp_cv_leave(co, t, 0);
		mo->owner = t->id;
	}
	t->cw_rec = NULL;
	rp_unlock();
	rp_leave(t, 1);
	return r;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	INIT();
	return cond_wait_any(c, m, CW_PLAIN, CLOCK_REALTIME, NULL);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abs)
{
	INIT();
	return cond_wait_any(c, m, CW_TIMED, CLOCK_REALTIME, abs);
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                           const struct timespec *abs)
{
	INIT();
	return cond_wait_any(c, m, CW_CLOCK, clk, abs);
}

static int cond_wake(pthread_cond_t *c, int all)
{
	struct rp_thread *t = rp_enter();
	if (!t)
		return all ? rp_real.cond_broadcast(c) : rp_real.cond_signal(c);
	uint64_t w = rp_work(t, all ? TRACE_BROADCAST : TRACE_SIGNAL);
	int rec = 0;
	/* claimed and recorded before the real call, which wakes only
	 * waiters registered before (they registered under G holding the
	 * mutex); it cannot fail on a valid condition variable */
	if (rp_lock() == 0) {
		struct rp_obj *o = rp_obj(c, TRACE_K_COND);
		if (o) {
			uint32_t n = rp_cv_claim(o, all);
			rp_emit(t, w, all ? TRACE_BROADCAST : TRACE_SIGNAL, rp_obj_id(o), (uint64_t)n);
			rec = 1;
		}
		rp_unlock();
	}
	rp_mark(t);
	int r = all ? rp_real.cond_broadcast(c) : rp_real.cond_signal(c);
	rp_leave(t, rec);
	return r;
}

int pthread_cond_signal(pthread_cond_t *c)
{
	INIT();
	return cond_wake(c, 0);
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	INIT();
	return cond_wake(c, 1);
}

/* ---- barriers ---- */

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n)
{
	INIT();
	int r = rp_real.barrier_init(b, a, n);
	if (r == 0 && rp_mode == RP_RECORD && rp_lock() == 0) {
		rp_obj_reinit(b, TRACE_K_BARRIER, n);
		rp_unlock();
	}
	return r;
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.barrier_wait(b);
	int r = rp_real.barrier_wait(b), rec = 0;
	uint64_t w = rp_work(t, TRACE_BARRIER);
	if ((r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD) && rp_lock() == 0) {
		struct rp_obj *o = rp_obj(b, TRACE_K_BARRIER);
		if (o && o->has_init) {
			uint32_t id = rp_obj_id(o);
			rp_emit(t, w, TRACE_BARRIER, id, o->init);
			rec = 1;
		}
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	return r;
}

/* ---- read-write locks ---- */

static int rw_acq(pthread_rwlock_t *l, int op, int (*fn)(pthread_rwlock_t *))
{
	struct rp_thread *t = rp_enter();
	if (!t)
		return fn(l);
	int r = fn(l), rec = 0;
	uint64_t w = rp_work(t, op);
	if (r == 0 && rp_lock() == 0) {
		struct rp_obj *o = rp_obj(l, TRACE_K_RWLOCK);
		if (o) {
			rp_emit(t, w, op, rp_obj_id(o), 0);
			rec = 1;
		}
		rp_unlock();
	}
	/* a failed try (EBUSY) is not recorded: the trace has no try for
	 * rwlocks, and a failed try changes nothing */
	rp_mark(t);
	rp_leave(t, rec);
	return r;
}

static int rw_timed(pthread_rwlock_t *l, int op, clockid_t clk, const struct timespec *abs,
                    int clocked)
{
	struct rp_thread *t = rp_enter();
#define RW_CALL() (op == TRACE_RDLOCK \
	? (clocked ? rp_real.rw_clockrdlock(l, clk, abs) : rp_real.rw_timedrdlock(l, abs)) \
	: (clocked ? rp_real.rw_clockwrlock(l, clk, abs) : rp_real.rw_timedwrlock(l, abs)))
	if (!t)
		return RW_CALL();
	struct timespec start;
	clock_gettime(clk, &start);
	int r = RW_CALL(), rec = 0;
#undef RW_CALL
	uint64_t w = rp_work(t, op);
	if ((r == 0 || r == ETIMEDOUT) && rp_lock() == 0) {
		struct rp_obj *o = rp_obj(l, TRACE_K_RWLOCK);
		if (o && r == 0)
			rp_emit(t, w, op, rp_obj_id(o), 0);
		else if (o)
			rp_emit(t, w, TRACE_SLEEP, rp_until(clk, abs, &start), 0);
		rec = o != NULL;
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	return r;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	INIT();
	return rw_acq(l, TRACE_RDLOCK, rp_real.rw_rdlock);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	INIT();
	return rw_acq(l, TRACE_RDLOCK, rp_real.rw_tryrdlock);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	INIT();
	return rw_acq(l, TRACE_WRLOCK, rp_real.rw_wrlock);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	INIT();
	return rw_acq(l, TRACE_WRLOCK, rp_real.rw_trywrlock);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abs)
{
	INIT();
	return rw_timed(l, TRACE_RDLOCK, CLOCK_REALTIME, abs, 0);
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abs)
{
	INIT();
	return rw_timed(l, TRACE_WRLOCK, CLOCK_REALTIME, abs, 0);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk, const struct timespec *abs)
{
	INIT();
	return rw_timed(l, TRACE_RDLOCK, clk, abs, 1);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk, const struct timespec *abs)
{
	INIT();
	return rw_timed(l, TRACE_WRLOCK, clk, abs, 1);
}

int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.rw_unlock(l);
	uint64_t w = rp_work(t, TRACE_RWUNLOCK);
	struct rec_spool_pend *rec = NULL;
	if (rp_lock() == 0) {
		struct rp_obj *o = rp_obj(l, TRACE_K_RWLOCK);
		if (o)
			rec = rp_emit(t, w, TRACE_RWUNLOCK, rp_obj_id(o), 0);
		rp_unlock();
	}
	rp_mark(t);
	int r = rp_real.rw_unlock(l);
	if (r != 0 && rec && rp_lock() == 0) {
		rec->dead = 1;
		rp_unlock();
		rec = NULL;
	}
	rp_leave(t, rec != NULL);
	return r;
}

/* ---- semaphores ---- */

int sem_init(sem_t *s, int pshared, unsigned value)
{
	INIT();
	int r = rp_real.sem_init(s, pshared, value);
	if (r == 0 && rp_mode == RP_RECORD && rp_lock() == 0) {
		rp_obj_reinit(s, TRACE_K_SEM, value);
		rp_unlock();
	}
	return r;
}

static int sem_acquired(struct rp_thread *t, sem_t *s, uint64_t w, int op, uint64_t b)
{
	struct rp_obj *o = rp_obj(s, TRACE_K_SEM);
	if (!o)
		return 0;
	uint32_t id = rp_obj_id(o);
	if (op != TRACE_TRYWAIT || b)
		rp_sem_take(o);
	rp_emit(t, w, op, id, b);
	return 1;
}

int sem_wait(sem_t *s)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.sem_wait(s);
	int r = rp_real.sem_wait(s), e = errno, rec = 0;
	uint64_t w = rp_work(t, TRACE_WAIT);
	if (r == 0 && rp_lock() == 0) {
		rec = sem_acquired(t, s, w, TRACE_WAIT, 0);
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	errno = e;
	return r;
}

int sem_trywait(sem_t *s)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.sem_trywait(s);
	int r = rp_real.sem_trywait(s), e = errno, rec = 0;
	uint64_t w = rp_work(t, TRACE_TRYWAIT);
	if ((r == 0 || e == EAGAIN) && rp_lock() == 0) {
		rec = sem_acquired(t, s, w, TRACE_TRYWAIT, r == 0);
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	errno = e;
	return r;
}

static int sem_timed(sem_t *s, clockid_t clk, const struct timespec *abs, int clocked)
{
	struct rp_thread *t = rp_enter();
	if (!t)
		return clocked ? rp_real.sem_clockwait(s, clk, abs) : rp_real.sem_timedwait(s, abs);
	struct timespec start;
	clock_gettime(clk, &start);
	int r = clocked ? rp_real.sem_clockwait(s, clk, abs) : rp_real.sem_timedwait(s, abs);
	int e = errno, rec = 0;
	uint64_t w = rp_work(t, TRACE_WAIT);
	if ((r == 0 || e == ETIMEDOUT) && rp_lock() == 0) {
		if (r == 0) {
			rec = sem_acquired(t, s, w, TRACE_WAIT, 0);
		} else {
			rp_emit(t, w, TRACE_SLEEP, rp_until(clk, abs, &start), 0);
			rec = 1;
		}
		rp_unlock();
	}
	rp_mark(t);
	rp_leave(t, rec);
	errno = e;
	return r;
}

int sem_timedwait(sem_t *s, const struct timespec *abs)
{
	INIT();
	return sem_timed(s, CLOCK_REALTIME, abs, 0);
}

int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abs)
{
	INIT();
	return sem_timed(s, clk, abs, 1);
}

int sem_post(sem_t *s)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.sem_post(s);
	uint64_t w = rp_work(t, TRACE_POST);
	struct rec_spool_pend *rec = NULL;
	struct rp_obj *o = NULL;
	if (rp_lock() == 0) {
		o = rp_obj(s, TRACE_K_SEM);
		if (o) {
			uint32_t id = rp_obj_id(o);
			o->count++;
			rec = rp_emit(t, w, TRACE_POST, id, 0);
		}
		rp_unlock();
	}
	rp_mark(t);
	int r = rp_real.sem_post(s), e = errno;
	if (r != 0 && rec && rp_lock() == 0) {
		rec->dead = 1;
		o = rp_obj(s, TRACE_K_SEM);
		if (o)
			o->count--;
		rp_unlock();
		rec = NULL;
	}
	rp_leave(t, rec != NULL);
	errno = e;
	return r;
}

/* ---- sleeping ---- */

static void slept(struct rp_thread *t, uint64_t w, uint64_t ns)
{
	int rec = 0;
	if (rp_lock() == 0) {
		rp_emit(t, w, TRACE_SLEEP, ns, 0);
		rec = 1;
		rp_unlock();
	}
	rp_leave(t, rec);
}

unsigned sleep(unsigned s)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.sleep(s);
	uint64_t w = rp_work(t, TRACE_SLEEP);
	unsigned left = rp_real.sleep(s);
	int e = errno;
	slept(t, w, (uint64_t)(s - (left < s ? left : s)) * 1000000000u);
	errno = e;
	return left;
}

int usleep(useconds_t us)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.usleep(us);
	uint64_t w = rp_work(t, TRACE_SLEEP);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int r = rp_real.usleep(us), e = errno;
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* interrupted: how long it really slept */
	slept(t, w, r == 0 ? (uint64_t)us * 1000u : rp_until(CLOCK_MONOTONIC, &b, &a));
	errno = e;
	return r;
}

static uint64_t slept_rel(const struct timespec *req, const struct timespec *rem, int full)
{
	uint64_t q = rp_ts_ns(req), m = full || !rem ? 0 : rp_ts_ns(rem);
	return q > m ? q - m : 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.nanosleep(req, rem);
	uint64_t w = rp_work(t, TRACE_SLEEP);
	int r = rp_real.nanosleep(req, rem), e = errno;
	if (r == 0 || e == EINTR)
		slept(t, w, slept_rel(req, rem, r == 0));
	else
		rp_leave(t, 0);
	errno = e;
	return r;
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.clock_nanosleep(clk, flags, req, rem);
	uint64_t w = rp_work(t, TRACE_SLEEP);
	struct timespec start;
	clock_gettime(clk, &start);
	int r = rp_real.clock_nanosleep(clk, flags, req, rem);
	if (r == 0 || r == EINTR) {
		uint64_t d;
		if (flags & TIMER_ABSTIME) {
			struct timespec end;
			clock_gettime(clk, &end);
			d = rp_until(clk, r == 0 ? req : &end, &start);
		} else {
			d = slept_rel(req, rem, r == 0);
		}
		slept(t, w, d);
	} else {
		rp_leave(t, 0);
	}
	return r;
}

/* sched_yield: `sleep 0`, the trace's yield (docs/simulation.md) */
int sched_yield(void)
{
	INIT();
	struct rp_thread *t = rp_enter();
	if (!t)
		return rp_real.yield();
	uint64_t w = rp_work(t, TRACE_SLEEP);
	int r = rp_real.yield();
	slept(t, w, 0);
	return r;
}
