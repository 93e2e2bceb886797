/*
 * shadowbind-run - run a program with its threads pinned as a binding
 * file says (docs/record.md).
 *
 *   shadowbind-run --binding FILE [--time] -- PROGRAM ARGS...
 *   shadowbind-run --unbound [--time] -- PROGRAM ARGS...
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

static const char usage[] =
	"usage: shadowbind-run (--binding FILE | --unbound) [--time] -- PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM with each of its threads pinned to the processor the binding\n"
	"file gives it (docs/binding-format.md): thread 1 is the initial thread,\n"
	"then threads are numbered in the order the program creates them, as\n"
	"shadowbind-record numbers them.  Logical processor p runs on OS CPU\n"
	"map[p] (the binding's `map` line), else on the p-th CPU this process may\n"
	"use.  Threads pin themselves (pthread_setaffinity_np) before they run\n"
	"any code of the program.\n"
	"\n"
	"  -b, --binding FILE  the binding\n"
	"      --unbound       no pinning: the operating system schedules\n"
	"      --time          print the wall time of the run on stderr\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: the program's (128 + signal if it was killed); 1 usage;\n"
	"2 bad binding, or the machine has fewer CPUs than it needs (nothing\n"
	"run), or the program created a thread the binding does not name (the\n"
	"program is stopped at that point); 4 system error.\n";

enum { O_BINDING, O_UNBOUND, O_TIME, O_HELP };
static const struct opt {
	const char *s, *l;
	int arg;
} opts[] = {
	[O_BINDING] = { "-b", "--binding", 1 },
	[O_UNBOUND] = { NULL, "--unbound", 0 },
	[O_TIME] = { NULL, "--time", 0 },
	[O_HELP] = { "-h", "--help", 0 },
};

static void die_usage(const char *msg, const char *what)
{
	fprintf(stderr, "shadowbind-run: %s%s%s\n", msg, what ? ": " : "", what ? what : "");
	fprintf(stderr, "usage: shadowbind-run (--binding FILE | --unbound) [--time] -- PROGRAM [ARGS...]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *binding = NULL;
	int unbound = 0, timed = 0, i = 1;
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
		case O_BINDING: binding = val; break;
		case O_UNBOUND: unbound = 1; break;
		case O_TIME: timed = 1; break;
		case O_HELP: fputs(usage, stdout); return 0;
		}
	}
	if (i >= argc)
		die_usage("no program to run", NULL);
	if (!binding == !unbound)
		die_usage("give exactly one of --binding FILE and --unbound", NULL);

	struct trace_error err;
	struct rec_program prog;
	if (rec_inspect(argv[i], &prog, &err) < 0) {
		fprintf(stderr, "shadowbind-run: %s\n", err.msg);
		return 2;
	}
	if (prog.is_elf && prog.is_static && binding) {
		fprintf(stderr, "shadowbind-run: %s is statically linked: its threads cannot be pinned (LD_PRELOAD); nothing run\n",
		        prog.path);
		return 2;
	}
	char preload[PATH_MAX];
	if (rec_preload_path(preload, sizeof preload, &err) < 0) {
		fprintf(stderr, "shadowbind-run: %s\n", err.msg);
		return 4;
	}
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
		fprintf(stderr, "shadowbind-run: sched_getaffinity: %s\n", strerror(errno));
		return 4;
	}
	char *pins = NULL;
	uint32_t nthreads = 0;
	if (binding && rec_pins_from_binding(binding, &allowed, &pins, &nthreads, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	char e0[PATH_MAX + 32], *e1 = NULL;
	snprintf(e0, sizeof e0, "LD_PRELOAD=%s", preload);
	if (pins) {
		size_t l = strlen(pins) + 32;
		e1 = malloc(l);
		if (!e1) {
			fprintf(stderr, "shadowbind-run: out of memory\n");
			free(pins);
			return 4;
		}
		snprintf(e1, l, "SHADOWBIND_PIN=%s", pins);
	}
	char *extra[4] = { e0, "SHADOWBIND_MODE=run", e1, NULL };
	pid_t pid = rec_spawn(prog.path, argv + i, extra, &err);
	free(pins);
	free(e1);
	if (pid < 0) {
		fprintf(stderr, "shadowbind-run: %s\n", err.msg);
		return 2;
	}
	uint64_t ns;
	int st = rec_wait(pid, &ns);
	if (timed)
		fprintf(stderr, "shadowbind-run: elapsed %.6f s\n", (double)ns / 1e9);
	return st;
}
