/*
 * rp_pin.c - pin each thread to the OS CPU the binding gives it: run mode
 * (shadowbind-run), or recording a bound run (shadowbind-record
 * --binding).  SHADOWBIND_PIN lists the OS CPU of thread 1, 2, ...
 * (creation order, 1 = the initial thread) separated by commas; `-` for an
 * id the binding does not name.  A new thread starts on its CPU: created
 * with that affinity (or inheriting its creator's, the same CPU), else
 * pinning itself before any code of the program (rp_pin_start_thread);
 * the initial thread pins itself in the library's constructor.  Used by
 * both libraries (libshadowbind-record.so and libshadowbind-run.so).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/preload/rp.h"

#define RP_PIN_MAX 65536

static int g_pin[RP_PIN_MAX + 1]; /* [id] OS CPU, -1 none */
static uint32_t g_npin;           /* ids listed                  */
static int g_pinning;             /* SHADOWBIND_PIN was given    */
static uint32_t g_next = 1;       /* last id given               */
/* SHADOWBIND_TREE: children of thread p are g_kids[g_first[p] ..
 * g_first[p] + g_nkids[p]) */
static int g_tree;
static uint32_t g_first[RP_PIN_MAX + 1], g_nkids[RP_PIN_MAX + 1];
static uint32_t g_kids[RP_PIN_MAX + 1], g_nk;
static __thread uint32_t t_id = 1, t_made; /* this thread's id, children */
static __thread int t_cpu = -1;            /* OS CPU pinned to, -1 none */

int rp_pin_active(void)
{
	return g_pinning;
}

void rp_pin_set_id(uint32_t id)
{
	t_id = id;
	t_made = 0;
}

static uint32_t num(const char **s)
{
	uint32_t v = 0;
	while (**s >= '0' && **s <= '9' && v < (1u << 28))
		v = v * 10 + (uint32_t)(*(*s)++ - '0');
	return v;
}

static void tree_init(const char *s)
{
	g_tree = 1;
	while (*s) {
		uint32_t p = num(&s);
		if (*s != ':' || p == 0 || p > RP_PIN_MAX)
			return;
		s++;
		g_first[p] = g_nk;
		while (*s >= '0' && *s <= '9' && g_nk <= RP_PIN_MAX) {
			g_kids[g_nk++] = num(&s);
			g_nkids[p]++;
			if (*s == ',')
				s++;
		}
		if (*s == ';')
			s++;
		else
			return;
	}
}

static void say_num(const char *a, uint32_t v, const char *b)
{
	char n[16];
	int k = 15;
	n[k] = 0;
	do {
		n[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	rp_say(a, n + k, b);
}

void rp_pin_self(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
		rp_say("shadowbind-run: cannot pin a thread to its CPU; stopping the program\n",
		       NULL, NULL);
		_exit(2);
	}
	t_cpu = cpu;
}

void rp_pin_init(void)
{
	const char *s = getenv("SHADOWBIND_PIN");
	if (!s)
		return;
	g_pinning = 1;
	while (*s && g_npin < RP_PIN_MAX) {
		int cpu = -1;
		if (*s >= '0' && *s <= '9') {
			cpu = 0;
			while (*s >= '0' && *s <= '9' && cpu < 1 << 20)
				cpu = cpu * 10 + (*s++ - '0');
		} else if (*s == '-') {
			s++;
		}
		g_pin[++g_npin] = cpu;
		if (*s == ',')
			s++;
		else
			break;
	}
	const char *tree = getenv("SHADOWBIND_TREE");
	if (tree)
		tree_init(tree);
	if (g_npin >= 1 && g_pin[1] >= 0)
		rp_pin_self(g_pin[1]);
}

int rp_pin_next(uint32_t *id)
{
	uint32_t k;
	if (g_tree) {
		uint32_t p = t_id, j = t_made++;
		if (p > RP_PIN_MAX || j >= g_nkids[p]) {
			say_num("shadowbind-run: thread ", p, NULL);
			say_num(" creates its thread number ", j + 1,
			        ", which it did not create in the recorded run; stopping the program (exit status 2)\n");
			_exit(2);
		}
		k = g_kids[g_first[p] + j];
	} else {
		k = __atomic_add_fetch(&g_next, 1, __ATOMIC_RELAXED);
	}
	*id = k;
	if (!g_pinning)
		return -1;
	if (k > g_npin || g_pin[k] < 0) {
		say_num("shadowbind-run: the program creates thread ", k,
		        ", which the binding does not name; stopping it (exit status 2)\n");
		_exit(2);
	}
	return g_pin[k];
}

/* A thread on its CPU from its first instruction: it inherits its
 * creator's affinity, and a creator that keeps its CPU (FIFO) would keep
 * it from ever running its own pinning code.  A child bound to the CPU
 * its creator is pinned to inherits that affinity and costs no system
 * call; one given its CPU in the attribute (glibc sets it before the
 * child runs) does not pin itself again (issue 25: threadtask with
 * every thread on CPU 0 was 11% slower under shadowbind-run than under
 * taskset, 4.5 us a thread, from these two calls). */
int rp_pin_start_thread(rp_create_fn create, pthread_t *pt, const pthread_attr_t *attr,
                        void *(*tramp)(void *), void *arg, struct rp_pin_start *ps)
{
	ps->pinned = 0;
	if (ps->cpu < 0)
		return create(pt, attr, tramp, arg);
	if (!attr && ps->cpu == t_cpu) {
		ps->pinned = 1;
		return create(pt, NULL, tramp, arg);
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(ps->cpu, &set);
	pthread_attr_t own;
	int r;
	if (!attr && pthread_attr_init(&own) == 0) {
		ps->pinned = pthread_attr_setaffinity_np(&own, sizeof set, &set) == 0;
		r = create(pt, &own, tramp, arg);
		pthread_attr_destroy(&own);
	} else {
		r = create(pt, attr, tramp, arg);
		if (r == 0)
			pthread_setaffinity_np(*pt, sizeof set, &set);
	}
	return r;
}

void rp_pin_started(const struct rp_pin_start *ps)
{
	if (ps->run_id)
		rp_pin_set_id(ps->run_id);
	if (ps->cpu >= 0 && ps->pinned)
		t_cpu = ps->cpu;
	else if (ps->cpu >= 0)
		rp_pin_self(ps->cpu);
}
