/*
 * rp_pin.c - run mode (shadowbind-run): pin each thread to the OS CPU the
 * binding gives it.  SHADOWBIND_PIN lists the OS CPU of thread 1, 2, ...
 * (creation order, 1 = the initial thread) separated by commas; `-` for an
 * id the binding does not name.  Threads pin themselves with
 * pthread_setaffinity_np as their first action (the initial thread in the
 * library's constructor), so no code of theirs runs elsewhere.
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
	if (g_npin >= 1 && g_pin[1] >= 0)
		rp_pin_self(g_pin[1]);
}

int rp_pin_next(uint32_t *id)
{
	uint32_t k = __atomic_add_fetch(&g_next, 1, __ATOMIC_RELAXED);
	*id = k;
	if (!g_pinning)
		return -1;
	if (k > g_npin || g_pin[k] < 0) {
		char num[16];
		int n = 15;
		num[n] = 0;
		uint32_t v = k;
		do {
			num[--n] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		rp_say("shadowbind-run: the program creates thread ", num + n,
		       ", which the binding does not name; stopping it (exit status 2)\n");
		_exit(2);
	}
	return g_pin[k];
}
