/*
 * spawn.c - run the program with the preload library in its environment
 * and wait for it (record.h: rec_spawn, rec_wait), timed from before the
 * fork to the reaping.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

int rec_spawn(struct rec_child *c, const char *path, char *const argv[], char *const extra[],
              struct trace_error *err)
{
	int fds[2];
	c->pid = -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return rec_fail(err, "pipe: %s", strerror(errno));
	/* the clock starts before the fork: the wall time covers the fork,
	 * the exec and the loading as `time PROGRAM` does (issue 20: read
	 * after the exec, it missed them, and a parent waiting for a CPU
	 * the program held read it late) */
	c->t0_ns = child_now(c);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return rec_fail(err, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		for (size_t i = 0; extra && extra[i]; i++) {
			char *eq = strchr(extra[i], '=');
			if (!eq)
				continue;
			size_t k = (size_t)(eq - extra[i]);
			char name[64];
			if (k >= sizeof name)
				continue;
			memcpy(name, extra[i], k);
			name[k] = 0;
			const char *old = getenv(name);
			if (!strcmp(name, "LD_PRELOAD") && old && *old) {
				size_t l = strlen(eq + 1) + strlen(old) + 2;
				char *v = malloc(l);
				if (v) {
					snprintf(v, l, "%s:%s", eq + 1, old);
					setenv(name, v, 1);
				}
			} else {
				setenv(name, eq + 1, 1);
			}
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(path, argv);
		int e = errno;
		if (write(fds[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	int e = 0;
	ssize_t r;
	do
		r = read(fds[0], &e, sizeof e);
	while (r < 0 && errno == EINTR);
	close(fds[0]);
	if (r == (ssize_t)sizeof e) {
		waitpid(pid, NULL, 0);
		return rec_fail(err, "%s: cannot run: %s", path, strerror(e));
	}
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
