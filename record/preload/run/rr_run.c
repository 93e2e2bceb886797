/*
 * rr_run.c - libshadowbind-run.so, the LD_PRELOAD library of
 * shadowbind-run --binding: it interposes pthread_create only, so that
 * each new thread starts on the OS CPU the binding gives it (rp_pin.c,
 * SHADOWBIND_PIN and SHADOWBIND_TREE), and nothing else of the program
 * goes through it.  The recorder's library (libshadowbind-record.so)
 * also interposes every mutex, condition, semaphore and sleep call and
 * passes them through in a run; that cost was not measurable on BARNES
 * (Splash-3, the suite's most lock-heavy program: one CPU, 9
 * interleaved runs each, 2026-11-26 23:34, idle, median CPU 0.26 s
 * plain, through it and through this library alike), so this library
 * is for a run that holds nothing of ours but the pinning, by
 * construction (issue 25), not for a measured speed-up.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "record/preload/rp.h"

static rp_create_fn g_create; /* the real pthread_create */

struct rr_start {
	void *(*fn)(void *);
	void *arg;
	struct rp_pin_start pin;
};

static void *rr_trampoline(void *p)
{
	struct rr_start s = *(struct rr_start *)p;
	free(p);
	rp_pin_started(&s.pin);
	return s.fn(s.arg);
}

int pthread_create(pthread_t *pt, const pthread_attr_t *attr,
                   void *(*fn)(void *), void *arg)
{
	if (!g_create)
		*(void **)&g_create = dlsym(RTLD_NEXT, "pthread_create");
	if (!g_create)
		return EAGAIN;
	if (!rp_pin_active())
		return g_create(pt, attr, fn, arg);
	struct rr_start *s = malloc(sizeof *s);
	if (!s)
		return EAGAIN;
	s->fn = fn;
	s->arg = arg;
	s->pin = (struct rp_pin_start){ .cpu = -1 };
	s->pin.cpu = rp_pin_next(&s->pin.run_id);
	int r = rp_pin_start_thread(g_create, pt, attr, rr_trampoline, s, &s->pin);
	if (r)
		free(s);
	return r;
}

__attribute__((constructor)) static void rr_init(void)
{
	*(void **)&g_create = dlsym(RTLD_NEXT, "pthread_create");
	rp_pin_init(); /* pins the initial thread */
	rp_env_clean();
}
