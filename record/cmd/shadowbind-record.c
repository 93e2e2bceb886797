/*
 * shadowbind-record - record a run of an unmodified, dynamically linked
 * pthread program as a shadowbind trace (docs/record.md).
 *
 *   shadowbind-record [-o FILE] [--cpu N | --all-cpus] -- PROGRAM ARGS...
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"
#include "trace/trace.h"

static const char usage[] =
	"usage: shadowbind-record [-o FILE] [--cpu N | --all-cpus] -- PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM (unmodified, dynamically linked, POSIX threads; C or C++)\n"
	"under the recorder and write the trace of its run (docs/trace-format.md,\n"
	"unit ns, work = thread CPU time).  The run is pinned to one processor,\n"
	"as the thesis recorded (a monitored uniprocessor execution).\n"
	"\n"
	"  -o, --output FILE  the trace (default: PROGRAM's base name + .trace);\n"
	"                     written only when complete and valid\n"
	"      --cpu N        the OS CPU to record on (default: the first one this\n"
	"                     process may use)\n"
	"      --all-cpus     do not pin (a multiprocessor recording: the trace is\n"
	"                     still valid, the work less like a uniprocessor's)\n"
	"  -h, --help         this text\n"
	"\n"
	"Prints where the trace went, its threads and records on stderr.  Exit\n"
	"status: the program's (128 + signal if it was killed), 1 usage, 2 the\n"
	"program cannot be recorded (static binary, not found), 4 no valid trace.\n"
	"Limits: docs/record.md (static binaries, raw futexes/atomics such as\n"
	"OpenMP barriers, fork, spin locks).\n";

enum { O_OUTPUT, O_CPU, O_ALL, O_HELP };
static const struct opt {
	const char *s, *l;
	int arg;
} opts[] = {
	[O_OUTPUT] = { "-o", "--output", 1 },
	[O_CPU] = { NULL, "--cpu", 1 },
	[O_ALL] = { NULL, "--all-cpus", 0 },
	[O_HELP] = { "-h", "--help", 0 },
};

static void die_usage(const char *msg, const char *what)
{
	fprintf(stderr, "shadowbind-record: %s%s%s\n", msg, what ? ": " : "", what ? what : "");
	fprintf(stderr, "usage: shadowbind-record [-o FILE] [--cpu N | --all-cpus] -- PROGRAM [ARGS...]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *cpu_arg = NULL;
	int all = 0, i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][0] != '-')
			break;
		int k = -1;
		for (int o = 0; o < (int)(sizeof opts / sizeof *opts); o++)
			if ((opts[o].s && !strcmp(argv[i], opts[o].s)) || !strcmp(argv[i], opts[o].l))
				k = o;
		if (k < 0)
			die_usage("unknown option", argv[i]);
		const char *val = NULL;
		if (opts[k].arg) {
			if (i + 1 >= argc)
				die_usage("option needs a value", argv[i]);
			val = argv[++i];
		}
		switch (k) {
		case O_OUTPUT: out = val; break;
		case O_CPU: cpu_arg = val; break;
		case O_ALL: all = 1; break;
		case O_HELP: fputs(usage, stdout); return 0;
		}
	}
	if (i >= argc)
		die_usage("no program to record", NULL);
	if (all && cpu_arg)
		die_usage("--cpu and --all-cpus exclude each other", NULL);

	struct trace_error err;
	struct rec_program prog;
	if (rec_inspect(argv[i], &prog, &err) < 0) {
		fprintf(stderr, "shadowbind-record: %s\n", err.msg);
		return 2;
	}
	if (prog.is_elf && prog.is_static) {
		fprintf(stderr, "shadowbind-record: %s is statically linked: the recorder (LD_PRELOAD) cannot see its thread calls; nothing recorded\n",
		        prog.path);
		return 2;
	}
	if (prog.uses_gomp)
		fprintf(stderr, "shadowbind-record: warning: %s uses OpenMP (libgomp), whose barriers and locks use raw futexes the recorder does not see; the trace will miss that synchronization\n",
		        prog.path);
	char preload[PATH_MAX];
	if (rec_preload_path(preload, sizeof preload, &err) < 0) {
		fprintf(stderr, "shadowbind-record: %s\n", err.msg);
		return 4;
	}

	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
		fprintf(stderr, "shadowbind-record: sched_getaffinity: %s\n", strerror(errno));
		return 4;
	}
	int cpu = -1;
	if (!all) {
		if (cpu_arg) {
			uint64_t v;
			if (trace_parse_u64(cpu_arg, CPU_SETSIZE - 1, &v) < 0)
				die_usage("--cpu needs a CPU number", cpu_arg);
			cpu = (int)v;
			if (!CPU_ISSET(cpu, &allowed)) {
				fprintf(stderr, "shadowbind-record: --cpu %d: not a CPU this process may use\n", cpu);
				return 2;
			}
		} else {
			cpu = rec_cpu_first(&allowed);
		}
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof one, &one) < 0) {
			fprintf(stderr, "shadowbind-record: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
			return 4;
		}
	}

	/* default output: the program's base name + .trace */
	char defout[PATH_MAX];
	if (!out) {
		const char *b = strrchr(argv[i], '/');
		snprintf(defout, sizeof defout, "%s.trace", b ? b + 1 : argv[i]);
		out = defout;
	}
	/* the recorder writes a private name; we validate, then rename */
	char raw[PATH_MAX + 64], absraw[2 * PATH_MAX + 128];
	snprintf(raw, sizeof raw, "%s.rec-%ld", out, (long)getpid());
	if (raw[0] == '/') {
		snprintf(absraw, sizeof absraw, "%s", raw);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd)) {
			fprintf(stderr, "shadowbind-record: getcwd: %s\n", strerror(errno));
			return 4;
		}
		snprintf(absraw, sizeof absraw, "%s/%s", cwd, raw);
	}
	char envp[2][2 * PATH_MAX + 256];
	snprintf(envp[0], sizeof envp[0], "LD_PRELOAD=%s", preload);
	snprintf(envp[1], sizeof envp[1], "SHADOWBIND_TRACE=%s", absraw);
	char *extra[3] = { envp[0], envp[1], NULL };
	unlink(raw);
	pid_t pid = rec_spawn(prog.path, argv + i, extra, &err);
	if (pid < 0) {
		fprintf(stderr, "shadowbind-record: %s\n", err.msg);
		return 2;
	}
	uint64_t ns;
	int st = rec_wait(pid, &ns);
	if (access(raw, F_OK) != 0) {
		fprintf(stderr, "shadowbind-record: %s wrote no trace (status %d): it ended without exit() "
		        "(_exit, abort, a signal the recorder does not catch), or the recorder could not load\n",
		        argv[i], st);
		return 4;
	}
	struct trace *tr;
	if (trace_read_file(raw, &tr, &err) < 0) {
		char bad[PATH_MAX + 64];
		snprintf(bad, sizeof bad, "%s.invalid", out);
		rename(raw, bad);
		fprintf(stderr, "shadowbind-record: the recorded trace is not valid (kept as %s): %s\n", bad,
		        err.msg);
		return 4;
	}
	if (rename(raw, out) < 0) {
		fprintf(stderr, "shadowbind-record: cannot rename %s to %s: %s\n", raw, out, strerror(errno));
		unlink(raw);
		trace_free(tr);
		return 4;
	}
	fprintf(stderr, "shadowbind-record: trace %s: %u threads, %zu records", out, tr->nthreads,
	        tr->nrec);
	if (cpu >= 0)
		fprintf(stderr, ", recorded on CPU %d", cpu);
	fprintf(stderr, " (%.3f s)\n", (double)ns / 1e9);
	if (st)
		fprintf(stderr, "shadowbind-record: %s exited with status %d\n", argv[i], st);
	trace_free(tr);
	return st;
}
