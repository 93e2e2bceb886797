/*
 * shadowbind-record - record a run of an unmodified, dynamically linked
 * pthread program as a shadowbind trace (docs/record.md).
 *
 *   shadowbind-record [-o FILE] [--cpu N | --all-cpus] -- PROGRAM ARGS...
 *   shadowbind-record [-o FILE] --binding FILE [--trace FILE] -- PROGRAM ARGS...
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "record/record.h"
#include "trace/trace.h"

int main(int argc, char **argv)
{
	const char *out = NULL, *binding = NULL, *btrace = NULL;
	uint32_t cpu_opt = 0;
	int all = 0, check = 0, spin = 0;
	struct cli_opt opts[] = {
		{CLI_STR, "output", 'o', .metavar = "FILE", .dst = &out,
		 .help = "the trace (default: PROGRAM's base name + .trace;\n"
		         "NAME.zst: compressed with zstd); written only when\n"
		         "complete and valid"},
		{CLI_U32, "cpu", .metavar = "N", .dst = &cpu_opt, .max = CPU_SETSIZE - 1,
		 .help = "the OS CPU to record on (default: the first one this\n"
		         "process may use)"},
		{CLI_FLAG, "all-cpus", .dst = &all,
		 .help = "do not pin (the trace is still valid, its work less\n"
		         "like a uniprocessor's)"},
		{CLI_STR, "binding", 'b', .metavar = "FILE", .dst = &binding,
		 .help = "record a bound run: pin each thread as FILE says, as\n"
		         "shadowbind-run does (to tell the simulator's error from\n"
		         "the trace's: docs/record.md, Validation)"},
		{CLI_STR, "trace", .metavar = "FILE", .dst = &btrace,
		 .help = "with --binding: the trace the binding is for (number\n"
		         "threads by their creator, as shadowbind-run --trace)"},
		{CLI_FLAG, "spin-as-wait", .dst = &spin,
		 .help = "replace each retry loop (failed trylocks or trywaits\n"
		         "of one object ended by its acquisition) by the blocking\n"
		         "wait it stands for (docs/record.md, Distortion and spinning)"},
		{CLI_FLAG, "check", .dst = &check,
		 .help = "first run PROGRAM once unrecorded on every CPU this\n"
		         "process may use and compare its CPU time with the\n"
		         "recording's (spinning, caches shared by time slicing:\n"
		         "docs/record.md, Distortion and spinning); the program runs twice"},
		{CLI_END}};
	const struct cli_cmd cmd = {
		"shadowbind-record", "[options] -- PROGRAM [ARGS...]",
		"Run PROGRAM (unmodified, dynamically linked, POSIX threads; C or C++)\n"
		"under the recorder and write the trace of its run (docs/trace-format.md,\n"
		"unit ns, work = thread CPU time).  The run is pinned to one processor,\n"
		"as the thesis recorded (a monitored uniprocessor execution).  Prints\n"
		"where the trace went, its threads and records on stderr.",
		opts,
		"Exit status: the program's (128 + signal if it was killed) once the\n"
		"trace is written; 1 usage; 2 the program cannot be recorded (static\n"
		"binary, not found); 4 no valid trace.  Limits: docs/record.md (static\n"
		"binaries, raw futexes/atomics such as OpenMP barriers, fork).",
		NULL, NULL, NULL};
	int nops, prc = cli_parse(&cmd, argc, argv, &nops);
	if (prc != CLI_CONTINUE)
		return prc;
	if (nops < 1)
		return cli_usage(&cmd, "no program to record");
	if (all + opts[1].given + (binding != NULL) > 1)
		return cli_usage(&cmd, "--cpu, --all-cpus and --binding exclude each other");
	if (btrace && !binding)
		return cli_usage(&cmd, "--trace needs --binding");
	char **pargv = argv + 1;
	pargv[nops] = NULL;
	int i = 0;
	argv = pargv;

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
	if (prog.uses_llvm_omp)
		fprintf(stderr, "shadowbind-record: warning: %s uses LLVM's or Intel's OpenMP runtime (libomp), whose __kmpc_* calls the recorder does not see (only GCC's libgomp is recorded); the trace will miss that synchronization\n",
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
	struct rec_run run = { .check_ncpu = 0 };
	if (check) {
		/* the program on its own, on every CPU we may use */
		pid_t cp = rec_spawn(prog.path, argv + i, NULL, &err);
		if (cp < 0) {
			fprintf(stderr, "shadowbind-record: %s\n", err.msg);
			return 2;
		}
		int cst = rec_wait_cpu(cp, &run.check_wall_ns, &run.check_cpu_ns);
		run.check_ncpu = rec_cpu_count(&allowed);
		if (cst)
			fprintf(stderr, "shadowbind-record: --check: the unrecorded run exited with status %d\n", cst);
	}
	int cpu = -1;
	char *pe[2] = { NULL, NULL }; /* SHADOWBIND_PIN, SHADOWBIND_TREE */
	if (binding) {
		int pinrc = rec_pin_env(binding, btrace, &allowed, pe, &err);
		if (pinrc < 0) {
			fprintf(stderr, pinrc == -2 ? "shadowbind-record: %s\n" : "%s\n", err.msg);
			return pinrc == -2 ? 4 : 2;
		}
	} else if (!all) {
		if (opts[1].given) {
			cpu = (int)cpu_opt;
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
	char *extra[6] = { envp[0], envp[1], pe[0], pe[1], NULL, NULL };
	/* threads sharing a CPU: libgomp's short spin, as shadowbind-run */
	if (pe[0] && prog.uses_gomp && rec_pins_share(pe[0]) && !getenv("GOMP_SPINCOUNT") &&
	    !getenv("OMP_WAIT_POLICY"))
		extra[pe[1] ? 4 : 3] = REC_OMP_SPIN;
	unlink(raw);
	pid_t pid = rec_spawn(prog.path, argv + i, extra, &err);
	free(pe[0]);
	free(pe[1]);
	if (pid < 0) {
		fprintf(stderr, "shadowbind-record: %s\n", err.msg);
		return 2;
	}
	uint64_t ns, cpu_ns = 0;
	int st = rec_wait_cpu(pid, &ns, &cpu_ns);
	/* the library's figures (TRACE.stats): read, then removed */
	char statp[PATH_MAX + 80];
	snprintf(statp, sizeof statp, "%s.stats", raw);
	struct rec_stats stats;
	if (rec_stats_read(statp, &stats, &err) < 0)
		stats.have = 0;
	unlink(statp);
	if (access(raw, F_OK) != 0) {
		fprintf(stderr, "shadowbind-record: %s wrote no trace (status %d): the recorder could not load\n",
		        argv[i], st);
		return 4;
	}
	/* the recorder streamed its records into the spool `raw`; the trace
	 * is written from it (a cut one if the program died) */
	char txt[PATH_MAX + 80];
	snprintf(txt, sizeof txt, "%s.trace", raw);
	struct rec_spool_info info;
	FILE *tf = fopen(txt, "w"), *zf = NULL;
	if (tf && trace_zst_name(out) && !(zf = trace_zst_writer(tf, 3))) {
		fclose(tf);
		tf = NULL;
	}
	int crc = tf ? rec_spool_convert(raw, zf ? zf : tf, &info, &err) : -1;
	if (!tf)
		snprintf(err.msg, sizeof err.msg, "%.400s: %s", txt, strerror(errno));
	if (zf && fclose(zf) != 0 && crc == 0) {
		snprintf(err.msg, sizeof err.msg, "%.400s: %s", txt, strerror(errno));
		crc = -1;
	}
	if (tf && fclose(tf) != 0 && crc == 0) {
		snprintf(err.msg, sizeof err.msg, "%.400s: %s", txt, strerror(errno));
		crc = -1;
	}
	if (crc == 0 && !info.complete && info.kept == 0) {
		snprintf(err.msg, sizeof err.msg,
		         "it ended without the recorder's exit (_exit, abort, SIGKILL, a crash) before the "
		         "first flush: all %llu records were lost", (unsigned long long)info.emitted);
		crc = -1;
	}
	unlink(raw);
	if (crc < 0) {
		unlink(txt);
		fprintf(stderr, "shadowbind-record: %s wrote no trace (status %d): %s\n", argv[i], st,
		        err.msg);
		return 4;
	}
	if (!info.complete)
		fprintf(stderr,
		        "shadowbind-record: %s ended without the recorder's exit (status %d: _exit, abort, "
		        "SIGKILL or a crash): the trace is cut after %llu of %llu records (%llu lost: "
		        "those since the last flush), %llu records added to end it\n",
		        argv[i], st, (unsigned long long)info.kept, (unsigned long long)info.emitted,
		        (unsigned long long)(info.emitted - info.kept), (unsigned long long)info.added);
	struct trace *tr;
	if (trace_read_file(txt, &tr, &err) < 0) {
		char bad[PATH_MAX + 64];
		snprintf(bad, sizeof bad, "%s.invalid", out);
		rename(txt, bad);
		fprintf(stderr, "shadowbind-record: the recorded trace is not valid (kept as %s): %s\n", bad,
		        err.msg);
		return 4;
	}
	/* the report is about the recording, before any rewriting */
	run.wall_ns = ns;
	run.cpu_ns = cpu_ns;
	run.one_cpu = cpu >= 0;
	struct rec_report rep;
	rec_report_make(tr, &stats, &run, &rep);
	if (spin) {
		struct trace *st = NULL;
		struct rec_spin_fix fix;
		uint64_t before = trace_total_work(tr);
		FILE *sf = NULL;
		if (rec_spin_as_wait(tr, REC_POLL_NS, &st, &fix, &err) < 0 || !(sf = fopen(txt, "w")) ||
		    trace_write(st, sf) != 0 || fclose(sf) != 0) {
			fprintf(stderr, "shadowbind-record: --spin-as-wait: %s\n", sf ? strerror(errno) : err.msg);
			unlink(txt);
			trace_free(st);
			trace_free(tr);
			return 4;
		}
		fprintf(stderr, "shadowbind-record: --spin-as-wait: %llu retry loops replaced by waits "
		        "(%llu failed tries, %.3f s of work dropped: %.1f%% of the recorded work)\n",
		        (unsigned long long)fix.loops, (unsigned long long)fix.tries,
		        (double)fix.dropped_work / 1e9, before ? 100.0 * (double)fix.dropped_work / (double)before : 0);
		trace_free(tr);
		tr = st;
	}
	if (rename(txt, out) < 0) {
		fprintf(stderr, "shadowbind-record: cannot rename %s to %s: %s\n", txt, out, strerror(errno));
		unlink(txt);
		trace_free(tr);
		return 4;
	}
	fprintf(stderr, "shadowbind-record: trace %s: %u threads, %zu records", out, tr->nthreads,
	        tr->nrec);
	if (cpu >= 0)
		fprintf(stderr, ", recorded on CPU %d", cpu);
	else if (binding)
		fprintf(stderr, ", recorded bound as %s says", binding);
	fprintf(stderr, " (%.3f s)\n", (double)ns / 1e9);
	rec_report_print(stderr, "shadowbind-record", &rep);
	if (st)
		fprintf(stderr, "shadowbind-record: %s exited with status %d\n", argv[i], st);
	trace_free(tr);
	return st;
}
