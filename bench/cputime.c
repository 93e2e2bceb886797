/*
 * cputime - run a command and write its CPU time (user and system, of
 * it and every descendant it waited for) and wall time, to the
 * microsecond, in the line /usr/bin/time -f "cpu %U %S %e %w %c" writes:
 *
 *   build/bench/cputime -o FILE COMMAND [ARGS...]
 *
 * FILE gets `cpu USER SYS WALL VCSW IVCSW` (seconds, six decimals: the
 * kernel's rusage is in microseconds, where /usr/bin/time prints
 * hundredths, a 10 ms tick that is 7-14% of a 0.07-0.14 s program; then
 * the voluntary and involuntary context switches).  USER + SYS is exact
 * to the microsecond; the kernel splits it between the two by sampling.  Exit status: the
 * command's (128 + signal if it was killed); 127 if it cannot be run, 1
 * on a usage or output error.  bench/validate's overhead column.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* a timeval in seconds */
static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

int main(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[1], "-o")) {
		fprintf(stderr, "usage: cputime -o FILE COMMAND [ARGS...]\n");
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cputime: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "cputime: %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "cputime: wait4: %s\n", strerror(errno));
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* wait4's rusage is the child's and its waited-for descendants' */
	double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	FILE *f = fopen(argv[2], "w");
	if (!f || fprintf(f, "cpu %.6f %.6f %.6f %ld %ld\n", tv_s(ru.ru_utime), tv_s(ru.ru_stime), wall,
	                    ru.ru_nvcsw, ru.ru_nivcsw) < 0 ||
	    fclose(f) != 0) {
		fprintf(stderr, "cputime: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
