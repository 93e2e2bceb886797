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

#include "cli/cli.h"
#include "record/record.h"

int main(int argc, char **argv)
{
	const char *binding = NULL, *trace = NULL;
	int unbound = 0, timed = 0;
	struct cli_opt opts[] = {
		{CLI_STR, "binding", 'b', .metavar = "FILE", .dst = &binding,
		 .help = "the binding (docs/binding-format.md)"},
		{CLI_STR, "trace", .metavar = "FILE", .dst = &trace,
		 .help = "the recorded trace the binding is for: number the threads\n"
		         "by their creator (its 1st, 2nd, ... create, as recorded)\n"
		         "instead of by global creation order (docs/record.md)"},
		{CLI_FLAG, "unbound", .dst = &unbound,
		 .help = "no pinning: the operating system schedules"},
		{CLI_FLAG, "time", .dst = &timed,
		 .help = "print the wall time of the run, from just before the fork\n"
		         "to the reaping (the program's exec and loading included,\n"
		         "as `time PROGRAM`), and the program's CPU time (user +\n"
		         "system of it and the children it reaped; not this\n"
		         "command's own, such as reading --trace) on stderr"},
		{CLI_END}};
	const struct cli_cmd cmd = {
		"shadowbind-run", "(--binding FILE [--trace FILE] | --unbound) [--time] -- PROGRAM [ARGS...]",
		"Run PROGRAM with each of its threads pinned to the processor the binding\n"
		"file gives it: thread 1 is the initial thread, then threads are numbered\n"
		"in the order the program creates them, as shadowbind-record numbers\n"
		"them.  Logical processor p runs on OS CPU map[p] (the binding's `map`\n"
		"line), else on the p-th CPU this process may use.  Each thread starts\n"
		"on its CPU: it is created with that affinity (libshadowbind-run.so,\n"
		"which interposes pthread_create and nothing else).  --unbound runs\n"
		"the program as it is, with no library.",
		opts, NULL, NULL, NULL, NULL,
		"  the program's (128 + signal if it was killed); else\n"
		"  1    usage error\n"
		"  2    bad binding, or the machine has fewer CPUs than it needs (nothing\n"
		"       run), or the program created a thread the binding does not name\n"
		"       (the program is stopped at that point, docs/record.md)\n"
		"  4    out of memory or system error"};
	int nops, prc = cli_parse(&cmd, argc, argv, &nops);
	if (prc != CLI_CONTINUE)
		return prc;
	if (nops < 1)
		return cli_usage(&cmd, "no program to run");
	if (!binding == !unbound)
		return cli_usage(&cmd, "give exactly one of --binding FILE and --unbound");
	argv = argv + 1;
	argv[nops] = NULL;
	int i = 0;

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
	if (binding && rec_run_preload_path(preload, sizeof preload, &err) < 0) {
		fprintf(stderr, "shadowbind-run: %s\n", err.msg);
		return 4;
	}
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
		fprintf(stderr, "shadowbind-run: sched_getaffinity: %s\n", strerror(errno));
		return 4;
	}
	char *pe[2] = { NULL, NULL }; /* SHADOWBIND_PIN, SHADOWBIND_TREE */
	char *advice = NULL; /* the binding's header says allocate's advice */
	int pinrc = binding ? rec_pin_env(binding, trace, &allowed, pe, &advice, &err) : 0;
	if (pinrc < 0) {
		fprintf(stderr, pinrc == -2 ? "shadowbind-run: %s\n" : "%s\n", err.msg);
		return pinrc == -2 ? 4 : 2;
	}
	int unbound_advised = advice && !strcmp(advice, "unbound");
	free(advice);
	if (unbound_advised)
		fprintf(stderr, "shadowbind-run: note: %s says `advice unbound`: allocate did not predict this binding its margin faster than the OS; the program may well run faster unbound (docs/alloc.md)\n",
		        binding);
	if (binding && prog.uses_gomp) {
		char *places = rec_omp_places(pe[0]);
		if (places)
			fprintf(stderr, "shadowbind-run: OpenMP equivalent of this binding: OMP_PLACES='%s' OMP_PROC_BIND=close\n",
			        places);
		free(places);
		if (getenv("OMP_PROC_BIND") || getenv("OMP_PLACES") || getenv("GOMP_CPU_AFFINITY"))
			fprintf(stderr, "shadowbind-run: warning: OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY is set: libgomp pins the threads too (the binding's pinning comes last and wins)\n");
	}
	/* threads sharing a CPU: libgomp's short spin (docs/record.md, OpenMP) */
	int spin = binding && prog.uses_gomp && pe[0] && rec_pins_share(pe[0]) &&
	           !getenv("GOMP_SPINCOUNT") && !getenv("OMP_WAIT_POLICY");
	char e0[PATH_MAX + 32];
	/* unbound: nothing of ours in the program (extra stays empty) */
	char *extra[6] = { NULL, NULL, NULL, NULL, NULL, NULL };
	if (binding) {
		snprintf(e0, sizeof e0, "LD_PRELOAD=%s", preload);
		extra[0] = e0;
		extra[1] = "SHADOWBIND_MODE=run";
		extra[2] = pe[0];
		extra[3] = pe[1];
		if (spin)
			extra[pe[1] ? 4 : 3] = REC_OMP_SPIN;
	}
	struct rec_child child = {0};
	int sprc = rec_spawn(&child, prog.path, argv + i, extra, &err);
	free(pe[0]);
	free(pe[1]);
	if (sprc < 0) {
		fprintf(stderr, "shadowbind-run: %s\n", err.msg);
		return 2;
	}
	uint64_t ns, cpu_ns; /* wall, the program's user + system: ns */
	int st = rec_wait(&child, &ns, &cpu_ns, NULL);
	if (timed)
		fprintf(stderr, "shadowbind-run: elapsed %.6f s, the program's CPU %.6f s\n", (double)ns / 1e9,
		        (double)cpu_ns / 1e9);
	return st;
}
