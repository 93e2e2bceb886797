/*
 * spawn.c - run the program with the preload library in its environment
 * and wait for it (record.h: rec_spawn, rec_wait), timed from before the
 * fork to the reaping.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/recint.h"

/* the child's clock: c->now, else CLOCK_MONOTONIC; ns */
static uint64_t child_now(const struct rec_child *c)
{
	if (c->now)
		return c->now(c->ctx);
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The child's environment: environ with each NAME=VALUE of `extra` in
 * place of NAME's entry (LD_PRELOAD's value put in front of a non-empty
 * one, joined by ':'), or added; names of 64 bytes or more, and entries
 * without '=', left out.  *own: the strings made here (free them with
 * the array).  NULL when out of memory. */
static char **child_env(char *const extra[], char ***own)
{
	extern char **environ;
	size_t ne = 0, nx = 0;
	while (environ && environ[ne])
		ne++;
	while (extra && extra[nx])
		nx++;
	char **env = malloc((ne + nx + 1) * sizeof *env);
	char **mine = calloc(nx + 1, sizeof *mine);
	if (!env || !mine) {
		free(env);
		free(mine);
		return NULL;
	}
	memcpy(env, environ, ne * sizeof *env);
	size_t n = ne, nm = 0;
	for (size_t i = 0; i < nx; i++) {
		const char *eq = strchr(extra[i], '=');
		size_t k = eq ? (size_t)(eq - extra[i]) : 0;
		if (!eq || k >= 64)
			continue;
		size_t at = n;
		for (size_t e = 0; e < n; e++)
			if (!strncmp(env[e], extra[i], k + 1)) {
				at = e;
				break;
			}
		char *v = extra[i];
		if (at < n && k == 10 && !strncmp(extra[i], "LD_PRELOAD", 10) && env[at][k + 1]) {
			size_t l = strlen(extra[i]) + strlen(env[at] + k + 1) + 2;
			if (!(v = malloc(l))) {
				for (size_t m = 0; m < nm; m++)
					free(mine[m]);
				free(mine);
				free(env);
				return NULL;
			}
			snprintf(v, l, "%s:%s", extra[i], env[at] + k + 1);
			mine[nm++] = v;
		}
		env[at] = v;
		if (at == n)
			n++;
	}
	env[n] = NULL;
	*own = mine;
	return env;
}

int rec_spawn(struct rec_child *c, const char *path, char *const argv[], char *const extra[],
              struct trace_error *err)
{
	c->pid = -1;
	char **own = NULL, **env = child_env(extra, &own);
	if (!env)
		return rec_fail(err, "out of memory");
	/* SIGINT and SIGTERM as the shell leaves them for a program */
	posix_spawnattr_t at;
	sigset_t dfl;
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	int e = posix_spawnattr_init(&at);
	if (!e)
		e = posix_spawnattr_setsigdefault(&at, &dfl);
	if (!e)
		e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	/* the clock starts before the spawn: the wall time covers the
	 * fork, the exec and the loading as `time PROGRAM` does (issue 20:
	 * read after the exec, it missed them, and a parent waiting for a
	 * CPU the program held read it late).  posix_spawn, not fork: glibc
	 * clones with the memory shared (CLONE_VM | CLONE_VFORK), so that a
	 * command holding a large trace (shadowbind-record's --correct
	 * runs, shadowbind-run --trace) neither copies its page tables nor
	 * takes a copy-on-write fault at every page it writes afterwards;
	 * an exec that fails is its return value, the child reaped */
	pid_t pid = -1;
	c->t0_ns = child_now(c);
	if (!e)
		e = posix_spawn(&pid, path, NULL, &at, argv, env);
	posix_spawnattr_destroy(&at);
	for (size_t i = 0; own[i]; i++)
		free(own[i]);
	free(own);
	free(env);
	if (e)
		return rec_fail(err, "%s: cannot run: %s", path, strerror(e));
	c->pid = pid;
	return 0;
}

static volatile pid_t g_child;

static void forward(int sig)
{
	if (g_child > 0)
		kill(g_child, sig);
}

int rec_wait(const struct rec_child *c, uint64_t *ns, uint64_t *cpu_ns, uint64_t *ivcsw)
{
	pid_t pid = c->pid;
	g_child = pid;
	struct sigaction sa, oi, ot;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigaction(SIGINT, &sa, &oi);
	sigaction(SIGTERM, &sa, &ot);
	int st = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	uint64_t t1 = child_now(c);
	if (cpu_ns)
		*cpu_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u +
		          (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
	if (ivcsw)
		*ivcsw = ru.ru_nivcsw > 0 ? (uint64_t)ru.ru_nivcsw : 0;
	sigaction(SIGINT, &oi, NULL);
	sigaction(SIGTERM, &ot, NULL);
	g_child = 0;
	if (ns)
		*ns = t1 - c->t0_ns;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}
