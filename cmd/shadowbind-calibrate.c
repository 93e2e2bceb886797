/*
 * shadowbind-calibrate - measure this machine for the simulator
 * (docs/sim.md, "Machine files"): hand-off latency per pair of CPUs,
 * context switch, thread creation and exit, written as a [machine] INI;
 * with --openmp also a wake-up on a CPU an OpenMP team shares.
 *
 *   shadowbind-calibrate [--quick] [--openmp] [--cpus N] [-o FILE]
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "mach/mach.h"

int main(int argc, char **argv)
{
	const char *out = "-";
	int quick = 0, openmp = 0;
	uint32_t cpus = 0;
	struct cli_opt opts[] = {
		{CLI_STR, "output", 'o', .metavar = "FILE", .dst = &out,
		 .help = "write the machine file here (default: standard output)"},
		{CLI_FLAG, "quick", .dst = &quick,
		 .help = "a few seconds instead of about a minute (fewer, shorter\n"
		         "rounds: a wider spread)"},
		{CLI_FLAG, "openmp", .dst = &openmp,
		 .help = "also measure wake_local, a wake-up on a CPU that two\n"
		         "threads of an OpenMP team share (libgomp's barrier: a short\n"
		         "spin, a futex sleep, the wake-up): for traces of OpenMP\n"
		         "programs only, which leave libgomp's waits out; a pthread\n"
		         "trace's work holds them, so its file must not have it"},
		{CLI_CPUS, "cpus", 'k', .dst = &cpus,
		 .help = "describe at most N of the CPUs this process may use\n"
		         "(default: all of them)"},
		{CLI_END}};
	const struct cli_cmd cmd = {
		"shadowbind-calibrate", "[--quick] [--openmp] [--cpus N] [-o FILE]",
		"Measure, on this machine, what the simulator's machine model needs: a\n"
		"hand-off between threads on one CPU (the switch) and between each kind\n"
		"of pair of CPUs the topology distinguishes (hwloc: SMT siblings, cores\n"
		"sharing a cache, packages), thread creation and exit on the creator's\n"
		"CPU and on another.  Writes a [machine] INI file (what, where, when,\n"
		"each figure's median and spread) for --machine FILE of simulate,\n"
		"critical, allocate, bound and experiment.  Run it on an idle machine:\n"
		"other load stretches every figure.",
		opts, NULL, NULL, NULL, NULL,
		"  0    done\n"
		"  1    usage error\n"
		"  2    the output cannot be written\n"
		"  4    the measurement failed (a thread could not be made or pinned, hwloc)"};
	int nops, rc = cli_parse(&cmd, argc, argv, &nops);
	if (rc != CLI_CONTINUE)
		return rc;
	if (nops > 0)
		return cli_usage(&cmd, "unexpected operand '%s'", argv[1]);
	cli_signals_install(CLI_SIG_EXIT);
	char why[512];
	struct cli_out o;
	if (cli_out_open(&o, out, why, sizeof why) != 0)
		return cli_errorf(CLI_EINPUT, "%s", why);
	struct mach m;
	struct mach_opts mo = {.quick = quick, .max_cpus = cpus, .openmp = openmp};
	if (mach_calibrate(&m, &mo, why, sizeof why) != 0) {
		cli_out_abort(&o);
		return cli_error(&cmd, CLI_ESYSTEM, "%s", why);
	}
	/* a process that has run on two CPUs (fresh processes: after
	 * mach_calibrate's threads are gone) */
	if (mach_calibrate_spread(&m, &mo, why, sizeof why) != 0) {
		mach_release(&m);
		cli_out_abort(&o);
		return cli_error(&cmd, CLI_ESYSTEM, "%s", why);
	}
	int wr = mach_write(&m, o.f);
	mach_release(&m);
	if (wr != 0) {
		cli_out_abort(&o);
		return cli_errorf(CLI_EINPUT, "%s: cannot write", out);
	}
	if (cli_out_commit(&o, why, sizeof why) != 0)
		return cli_errorf(CLI_EINPUT, "%s", why);
	return CLI_OK;
}
