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

/* The options (parse), then what one recording carries from step to
 * step: main is parse, prepare, run_program, convert, finish. */
static struct {
	const char *out, *binding, *btrace;
	uint32_t cpu_opt;
	uint32_t ref_runs;           /* --ref-runs (0: not given, 1)        */
	int all, check, spin, correct;
	char **argv;                 /* PROGRAM ARGS..., NULL-terminated    */
} A;

static struct cli_opt opts[] = {
	{CLI_STR, "output", 'o', .metavar = "FILE", .dst = &A.out,
	 .help = "the trace (default: PROGRAM's base name + .trace;\n"
	         "NAME.zst: compressed with zstd); written only when\n"
	         "complete and valid"},
	{CLI_U32, "cpu", .metavar = "N", .dst = &A.cpu_opt, .max = CPU_SETSIZE - 1,
	 .help = "the OS CPU to record on (default: the first one this\n"
	         "process may use)"},
	{CLI_FLAG, "all-cpus", .dst = &A.all,
	 .help = "do not pin (the trace is still valid, its work less\n"
	         "like a uniprocessor's)"},
	{CLI_STR, "binding", 'b', .metavar = "FILE", .dst = &A.binding,
	 .help = "record a bound run: pin each thread as FILE says, as\n"
	         "shadowbind-run does (to tell the simulator's error from\n"
	         "the trace's: docs/record.md, Validation)"},
	{CLI_STR, "trace", .metavar = "FILE", .dst = &A.btrace,
	 .help = "with --binding: the trace the binding is for (number\n"
	         "threads by their creator, as shadowbind-run --trace)"},
	{CLI_FLAG, "spin-as-wait", .dst = &A.spin,
	 .help = "replace each retry loop (failed trylocks or trywaits\n"
	         "of one object ended by its acquisition) by the blocking\n"
	         "wait it stands for (docs/record.md, Distortion and spinning)"},
	{CLI_FLAG, "check", .dst = &A.check,
	 .help = "first run PROGRAM once unrecorded on every CPU this\n"
	         "process may use and compare its CPU time with the\n"
	         "recording's (spinning, caches shared by time slicing:\n"
	         "docs/record.md, Distortion and spinning); the program runs twice"},
	{CLI_FLAG, "correct", .dst = &A.correct,
	 .help = "where the recorder's own cost is 1% of the work or more,\n"
	         "run PROGRAM again unrecorded where it was recorded, and\n"
	         "take the recorded work's excess over that run's CPU time\n"
	         "out of the trace (or add a shortfall), an equal share per\n"
	         "record, as far as the recorder can have caused it (the cost\n"
	         "its calibration misses at millions of calls per second:\n"
	         "docs/record.md, The recorder's cost); the program may run\n"
	         "twice"},
	{CLI_U32, "ref-runs", .metavar = "N", .dst = &A.ref_runs, .min = 1, .max = 100,
	 .help = "with --correct: run it unrecorded N times and take the\n"
	         "least CPU time (other load only adds to it; default 1)"},
	{CLI_END}};
static const struct cli_cmd cmd = {
	"shadowbind-record", "[options] -- PROGRAM [ARGS...]",
	"Run PROGRAM (unmodified, dynamically linked, POSIX threads; C or C++)\n"
	"under the recorder and write the trace of its run (docs/trace-format.md,\n"
	"unit ns, work = thread CPU time).  The run is pinned to one processor,\n"
	"as the thesis recorded (a monitored uniprocessor execution).  Prints\n"
	"where the trace went, its threads and records on stderr.",
	opts,
	"Limits: docs/record.md (static binaries, raw futexes/atomics such as\n"
	"OpenMP barriers, fork).",
	NULL, NULL, NULL,
	"  the program's (128 + signal if it was killed) once the trace is\n"
	"  written; else\n"
	"  1    usage error\n"
	"  2    the program cannot be recorded (static binary, not found)\n"
	"  4    no valid trace"};

/* opts[OPT_CPU]: --cpu, whose .given says it was given */
enum { OPT_CPU = 1 };

static int parse(int argc, char **argv)
{
	int nops, prc = cli_parse(&cmd, argc, argv, &nops);
	if (prc != CLI_CONTINUE)
		return prc;
	if (nops < 1)
		return cli_usage(&cmd, "no program to record");
	if (A.all + opts[OPT_CPU].given + (A.binding != NULL) > 1)
		return cli_usage(&cmd, "--cpu, --all-cpus and --binding exclude each other");
	if (A.btrace && !A.binding)
		return cli_usage(&cmd, "--trace needs --binding");
	if (A.correct && A.binding)
		return cli_usage(&cmd, "--correct and --binding exclude each other");
	if (A.ref_runs && !A.correct)
		return cli_usage(&cmd, "--ref-runs needs --correct");
	A.argv = argv + 1;
	A.argv[nops] = NULL;
	return CLI_CONTINUE;
}

struct rec {
	struct rec_program prog;
	char preload[PATH_MAX];
	cpu_set_t allowed;
	struct rec_run run;
	int cpu;                     /* the CPU recorded on, -1: not one   */
	char *pe[2];                 /* SHADOWBIND_PIN, SHADOWBIND_TREE    */
	const char *out;
	char defout[PATH_MAX];
	char raw[PATH_MAX + 64];     /* the recorder's spool               */
	char txt[PATH_MAX + 80];     /* the trace written from it          */
	uint64_t ns, cpu_ns;         /* the run's wall and CPU time; ns    */
	uint64_t ref_cpu_ns;         /* --correct: the unrecorded run's CPU
	                                time; ns                           */
	int ref_st;                  /* its exit status                    */
	off_t in0;                   /* --correct: the standard input's
	                                offset before the recording (-1:
	                                none)                              */
	int st;                      /* the program's exit status          */
	struct rec_stats stats;
	struct rec_spool_info info;
};

static int fail(const char *msg, int status)
{
	fprintf(stderr, "shadowbind-record: %s\n", msg);
	return status;
}

/* The standard input's offset (*off; -1 if it has none, as /dev/null
 * may not), which a second run of the program (`opt`: --check,
 * --correct) needs to read it again: CLI_OK, or CLI_EUSAGE for a pipe
 * or terminal (said). */
static int in_offset(const char *opt, off_t *off)
{
	*off = lseek(0, 0, SEEK_CUR);
	if (*off < 0 && errno == ESPIPE) {
		fprintf(stderr, "shadowbind-record: %s runs the program twice: its standard input must be a file "
		        "(read again by the recording), not a pipe or terminal\n", opt);
		return CLI_EUSAGE;
	}
	return CLI_OK;
}

/* Run the program once unrecorded (--check, --correct) where this
 * process may run: its status, its wall and CPU time; the standard input,
 * which the recording will read again, rewound to where it was.
 * CLI_OK, or an exit status. */
static int run_alone(const char *path, const char *opt, int *st, uint64_t *wall_ns, uint64_t *cpu_ns)
{
	struct trace_error err;
	off_t in;
	int rc = in_offset(opt, &in);
	if (rc != CLI_OK)
		return rc;
	struct rec_child cp = {0};
	if (rec_spawn(&cp, path, A.argv, NULL, &err) < 0)
		return fail(err.msg, CLI_EINPUT);
	*st = rec_wait(&cp, wall_ns, cpu_ns, NULL);
	if (in >= 0 && lseek(0, in, SEEK_SET) < 0) {
		fprintf(stderr, "shadowbind-record: %s: cannot rewind the standard input: %s\n", opt, strerror(errno));
		return CLI_ESYSTEM;
	}
	return CLI_OK;
}

/* The program inspected, the library found, the --check run, and this
 * process pinned as the recording will be (children inherit it). */
static int prepare(struct rec *R)
{
	struct trace_error err;
	const char *prog = A.argv[0];
	if (rec_inspect(prog, &R->prog, &err) < 0)
		return fail(err.msg, CLI_EINPUT);
	if (R->prog.is_elf && R->prog.is_static) {
		fprintf(stderr, "shadowbind-record: %s is statically linked: the recorder (LD_PRELOAD) cannot see its thread calls; nothing recorded\n",
		        R->prog.path);
		return CLI_EINPUT;
	}
	if (R->prog.uses_llvm_omp)
		fprintf(stderr, "shadowbind-record: warning: %s uses LLVM's or Intel's OpenMP runtime (libomp), whose __kmpc_* calls the recorder does not see (only GCC's libgomp is recorded); the trace will miss that synchronization\n",
		        R->prog.path);
	if (rec_preload_path(R->preload, sizeof R->preload, &err) < 0)
		return fail(err.msg, CLI_ESYSTEM);
	if (sched_getaffinity(0, sizeof R->allowed, &R->allowed) < 0) {
		fprintf(stderr, "shadowbind-record: sched_getaffinity: %s\n", strerror(errno));
		return CLI_ESYSTEM;
	}
	if (A.check) {
		/* the program on its own, on every CPU we may use */
		int cst, rc = run_alone(R->prog.path, "--check", &cst, &R->run.check_wall_ns, &R->run.check_cpu_ns);
		if (rc != CLI_OK)
			return rc;
		R->run.check_ncpu = rec_cpu_count(&R->allowed);
		if (cst)
			fprintf(stderr, "shadowbind-record: --check: the unrecorded run exited with status %d\n", cst);
	}
	R->cpu = -1;
	if (A.binding) {
		int pinrc = rec_pin_env(A.binding, A.btrace, &R->allowed, R->pe, NULL, &err);
		if (pinrc < 0) {
			fprintf(stderr, pinrc == -2 ? "shadowbind-record: %s\n" : "%s\n", err.msg);
			return pinrc == -2 ? CLI_ESYSTEM : CLI_EINPUT;
		}
	} else if (!A.all) {
		if (opts[OPT_CPU].given) {
			R->cpu = (int)A.cpu_opt;
			if (!CPU_ISSET(R->cpu, &R->allowed)) {
				fprintf(stderr, "shadowbind-record: --cpu %d: not a CPU this process may use\n", R->cpu);
				return CLI_EINPUT;
			}
		} else {
			R->cpu = rec_cpu_first(&R->allowed);
		}
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(R->cpu, &one);
		if (sched_setaffinity(0, sizeof one, &one) < 0) {
			fprintf(stderr, "shadowbind-record: cannot pin to CPU %d: %s\n", R->cpu, strerror(errno));
			return CLI_ESYSTEM;
		}
	}
	/* --correct runs it after the recording (correct), reading the
	 * standard input again from here */
	if (A.correct)
		return in_offset("--correct", &R->in0);
	return CLI_OK;
}

/* The program run under the recorder, which streams into the spool
 * R->raw (a private name; the trace is validated, then renamed). */
static int run_program(struct rec *R)
{
	struct trace_error err;
	const char *prog = A.argv[0];
	/* default output: the program's base name + .trace */
	R->out = A.out;
	if (!R->out) {
		const char *b = strrchr(prog, '/');
		snprintf(R->defout, sizeof R->defout, "%s.trace", b ? b + 1 : prog);
		R->out = R->defout;
	}
	char absraw[2 * PATH_MAX + 128];
	snprintf(R->raw, sizeof R->raw, "%s.rec-%ld", R->out, (long)getpid());
	if (R->raw[0] == '/') {
		snprintf(absraw, sizeof absraw, "%s", R->raw);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd)) {
			fprintf(stderr, "shadowbind-record: getcwd: %s\n", strerror(errno));
			return CLI_ESYSTEM;
		}
		snprintf(absraw, sizeof absraw, "%s/%s", cwd, R->raw);
	}
	char envp[2][2 * PATH_MAX + 256];
	snprintf(envp[0], sizeof envp[0], "LD_PRELOAD=%s", R->preload);
	snprintf(envp[1], sizeof envp[1], "SHADOWBIND_TRACE=%s", absraw);
	char *extra[6] = { envp[0], envp[1], R->pe[0], R->pe[1], NULL, NULL };
	/* threads sharing a CPU: libgomp's short spin, as shadowbind-run */
	if (R->pe[0] && R->prog.uses_gomp && rec_pins_share(R->pe[0]) && !getenv("GOMP_SPINCOUNT") &&
	    !getenv("OMP_WAIT_POLICY"))
		extra[R->pe[1] ? 4 : 3] = REC_OMP_SPIN;
	unlink(R->raw);
	struct rec_child child = {0};
	int sprc = rec_spawn(&child, R->prog.path, A.argv, extra, &err);
	free(R->pe[0]);
	free(R->pe[1]);
	R->pe[0] = R->pe[1] = NULL;
	if (sprc < 0)
		return fail(err.msg, CLI_EINPUT);
	R->st = rec_wait(&child, &R->ns, &R->cpu_ns, &R->run.ivcsw);
	/* the library's figures (TRACE.stats): read, then removed */
	char statp[PATH_MAX + 80];
	snprintf(statp, sizeof statp, "%s.stats", R->raw);
	if (rec_stats_read(statp, &R->stats, &err) < 0)
		R->stats.have = 0;
	unlink(statp);
	if (access(R->raw, F_OK) != 0) {
		fprintf(stderr, "shadowbind-record: %s wrote no trace (status %d): the recorder could not load\n",
		        prog, R->st);
		return CLI_ESYSTEM;
	}
	return CLI_OK;
}

/* The trace R->txt written from the spool (a cut one if the program
 * died); the spool removed. */
static int convert(struct rec *R)
{
	struct trace_error err;
	struct rec_spool_info *info = &R->info;
	snprintf(R->txt, sizeof R->txt, "%s.trace", R->raw);
	FILE *tf = fopen(R->txt, "w"), *zf = NULL;
	if (tf && trace_zst_name(R->out) && !(zf = trace_zst_writer(tf, 3))) {
		fclose(tf);
		tf = NULL;
	}
	/* the process's CPU time after the recorder wrote the spool (its
	 * memory freed, the exit): thread 1's, at its end (record.h) */
	uint64_t teardown = 0;
	if (R->stats.have && R->cpu_ns && R->stats.process_cpu_written_ns > 0 &&
	    (int64_t)R->cpu_ns > R->stats.process_cpu_written_ns + R->stats.children_cpu_ns)
		teardown = (uint64_t)((int64_t)R->cpu_ns - R->stats.process_cpu_written_ns -
		                      R->stats.children_cpu_ns);
	int crc = tf ? rec_spool_convert(R->raw, teardown, zf ? zf : tf, info, &err) : -1;
	if (!tf)
		snprintf(err.msg, sizeof err.msg, "%.400s: %s", R->txt, strerror(errno));
	if (zf && fclose(zf) != 0 && crc == 0) {
		snprintf(err.msg, sizeof err.msg, "%.400s: %s", R->txt, strerror(errno));
		crc = -1;
	}
	if (tf && fclose(tf) != 0 && crc == 0) {
		snprintf(err.msg, sizeof err.msg, "%.400s: %s", R->txt, strerror(errno));
		crc = -1;
	}
	if (crc == 0 && !info->complete && info->kept == 0) {
		snprintf(err.msg, sizeof err.msg,
		         "it ended without the recorder's exit (_exit, abort, SIGKILL, a crash) before its "
		         "first record was written");
		crc = -1;
	}
	unlink(R->raw);
	if (crc < 0) {
		unlink(R->txt);
		fprintf(stderr, "shadowbind-record: %s wrote no trace (status %d): %s\n", A.argv[0], R->st,
		        err.msg);
		return CLI_ESYSTEM;
	}
	if (!info->complete)
		fprintf(stderr,
		        "shadowbind-record: %s ended without the recorder's exit (status %d: _exit, abort, "
		        "SIGKILL or a crash): the trace is cut after %llu records (those being written "
		        "then were lost), %llu records added to end it\n",
		        A.argv[0], R->st, (unsigned long long)info->kept, (unsigned long long)info->added);
	return CLI_OK;
}

/* R->txt rewritten from tr, compressed when the output's name asks for
 * it (as the recording was written); on failure the error is printed
 * after `who` and R->txt removed. */
static int rewrite(struct rec *R, const struct trace *tr, const char *who)
{
	FILE *tf = fopen(R->txt, "w"), *zf = NULL;
	if (tf && trace_zst_name(R->out) && !(zf = trace_zst_writer(tf, 3))) {
		fclose(tf);
		tf = NULL;
	}
	int bad = !tf || trace_write(tr, zf ? zf : tf) != 0;
	if (zf && fclose(zf) != 0)
		bad = 1;
	if (tf && fclose(tf) != 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, "%s: %s: %s\n", who, R->txt, strerror(errno));
		unlink(R->txt);
		return CLI_ESYSTEM;
	}
	return CLI_OK;
}

/* --spin-as-wait: R->txt rewritten from *tr with its retry loops as
 * waits; *tr replaced by the rewritten trace. */
static int spin_as_wait(struct rec *R, struct trace **tr)
{
	struct trace_error err;
	struct trace *st = NULL;
	struct rec_spin_fix fix;
	uint64_t before = trace_total_work(*tr);
	if (rec_spin_as_wait(*tr, REC_POLL_NS, &st, &fix, &err) < 0) {
		fprintf(stderr, "shadowbind-record: --spin-as-wait: %s\n", err.msg);
		unlink(R->txt);
		return CLI_ESYSTEM;
	}
	if (rewrite(R, st, "shadowbind-record: --spin-as-wait") != CLI_OK) {
		trace_free(st);
		return CLI_ESYSTEM;
	}
	fprintf(stderr, "shadowbind-record: --spin-as-wait: %llu retry loops replaced by waits "
	        "(%llu failed tries, %.3f s of work dropped: %.1f%% of the recorded work)\n",
	        (unsigned long long)fix.loops, (unsigned long long)fix.tries,
	        (double)fix.dropped_work / 1e9, before ? 100.0 * (double)fix.dropped_work / (double)before : 0);
	if (fix.polls) {
		double us = (double)fix.poll_work / (double)fix.polls / 1e3; /* a poll's spin; us */
		fprintf(stderr, "shadowbind-record: --spin-as-wait: %llu polls before a block spun %.1f us "
		        "each before blocking: where threads share a processor a poll spins that long, "
		        "so predict with --spin %.1fus (docs/sim.md, Retry loops)\n",
		        (unsigned long long)fix.polls, us, us);
	}
	trace_free(*tr);
	*tr = st;
	return CLI_OK;
}

/* --correct: where the recorder's cost can matter (rec_correct_worth),
 * the program run unrecorded where it was recorded (the least CPU time
 * of --ref-runs runs), and the recorded work's excess over it (or
 * shortfall), as far as the recorder can have caused it
 * (rec_correction), taken out of *tr (added to it); R->txt rewritten.
 * The report `rep` is the recording's; its `corrected` fields are set
 * when the trace changed. */
static int correct(struct rec *R, struct rec_report *rep, struct trace *tr)
{
	const char *who = "shadowbind-record: --correct";
	if (rep->omp_wait_ns) {
		fprintf(stderr, "%s: nothing corrected: libgomp's waits are CPU time in the unrecorded run "
		        "but not work in the trace (docs/record.md, OpenMP)\n", who);
		return CLI_OK;
	}
	double cost = (double)rec_own_cost(rep); /* ns */
	if (!rec_correct_worth(rep)) {
		if (rep->have_stats)
			fprintf(stderr, "%s: not measured: the recorder's own cost is %.2f%% of the recorded work "
			        "(under %d%%), too little for what it leaves behind to matter\n", who,
			        rep->work_ns ? 100 * cost / (double)rep->work_ns : 0, REC_CORRECT_MIN_PCT);
		else
			fprintf(stderr, "%s: nothing corrected: the recorder's figures are missing\n", who);
		return CLI_OK;
	}
	/* the program on its own, pinned as it was recorded, reading the
	 * standard input from where the recording began */
	if (R->in0 >= 0 && lseek(0, R->in0, SEEK_SET) < 0) {
		fprintf(stderr, "%s: cannot rewind the standard input: %s\n", who, strerror(errno));
		return CLI_ESYSTEM;
	}
	for (uint32_t i = 0; i < (A.ref_runs ? A.ref_runs : 1) && !R->ref_st; i++) {
		uint64_t wall, cpu;
		int rc = run_alone(R->prog.path, "--correct", &R->ref_st, &wall, &cpu);
		if (rc != CLI_OK)
			return rc;
		if (i == 0 || cpu < R->ref_cpu_ns)
			R->ref_cpu_ns = cpu;
	}
	if (R->ref_st) {
		fprintf(stderr, "%s: the unrecorded run exited with status %d: nothing corrected\n", who,
		        R->ref_st);
		return CLI_OK;
	}
	int64_t target, excess;
	enum rec_corr_why why;
	int64_t amount = rec_correction(rep, R->ref_cpu_ns, &target, &excess, &why);
	fprintf(stderr, "%s: unrecorded the program used %.3f s of CPU; the trace holds %.3f s of work "
	        "(%+.1f%% against %.3f s: that CPU time without what the recording had in no record)", who,
	        (double)R->ref_cpu_ns / 1e9, (double)rep->work_ns / 1e9,
	        target > 0 ? 100.0 * (double)excess / (double)target : 0, (double)target / 1e9);
	switch (why) {
	case REC_CORR_NONE:
		fprintf(stderr, ": nothing to correct\n");
		return CLI_OK;
	case REC_CORR_UNLIKE:
		fprintf(stderr, ": more than half the work, not the recorder's cost (spinning? a run unlike "
		        "the reference?): nothing corrected\n");
		return CLI_OK;
	case REC_CORR_NOSTATS:
		fprintf(stderr, ": the recorder's figures are missing: nothing corrected\n");
		return CLI_OK;
	case REC_CORR_OK:
	case REC_CORR_CAPPED:
		break;
	}
	int64_t moved = rec_correct(tr, amount);
	rep->corrected = 1;
	rep->corrected_ns = moved;
	double m = (double)(moved < 0 ? -moved : moved);
	fprintf(stderr, ": %.3f s %s, %.1f ns per record", m / 1e9, moved < 0 ? "added" : "taken out",
	        m / (double)tr->nrec);
	if (why == REC_CORR_CAPPED)
		fprintf(stderr, excess > 0 ? " (all the recorder can have left in the work: its own cost in "
		                             "the run; the other %.3f s are the machine's or the run's)"
		                           : " (all the recorder's calibration took out; the other %.3f s "
		                             "are the machine's or the run's)",
		        (double)((excess < 0 ? -excess : excess) - (int64_t)m) / 1e9);
	fprintf(stderr, "\n");
	return rewrite(R, tr, who);
}

/* The trace validated (kept as OUT.invalid if not), reported, renamed
 * to its name; the program's status, or an error's. */
static int finish(struct rec *R)
{
	struct trace_error err;
	struct trace *tr;
	if (trace_read_file(R->txt, &tr, &err) < 0) {
		char bad[PATH_MAX + 64];
		snprintf(bad, sizeof bad, "%s.invalid", R->out);
		rename(R->txt, bad);
		fprintf(stderr, "shadowbind-record: the recorded trace is not valid (kept as %s): %s\n", bad,
		        err.msg);
		return CLI_ESYSTEM;
	}
	/* the report is about the recording, before any rewriting */
	R->run.wall_ns = R->ns;
	R->run.cpu_ns = R->cpu_ns;
	R->run.one_cpu = R->cpu >= 0;
	struct rec_report rep;
	rec_report_make(tr, &R->stats, &R->run, &rep);
	if (A.correct) {
		int rc = correct(R, &rep, tr);
		if (rc != CLI_OK) {
			trace_free(tr);
			return rc;
		}
	}
	if (A.spin) {
		int rc = spin_as_wait(R, &tr);
		if (rc != CLI_OK) {
			trace_free(tr);
			return rc;
		}
	}
	if (rename(R->txt, R->out) < 0) {
		fprintf(stderr, "shadowbind-record: cannot rename %s to %s: %s\n", R->txt, R->out, strerror(errno));
		unlink(R->txt);
		trace_free(tr);
		return CLI_ESYSTEM;
	}
	fprintf(stderr, "shadowbind-record: trace %s: %u threads, %zu records", R->out, tr->nthreads,
	        tr->nrec);
	if (R->cpu >= 0)
		fprintf(stderr, ", recorded on CPU %d", R->cpu);
	else if (A.binding)
		fprintf(stderr, ", recorded bound as %s says", A.binding);
	fprintf(stderr, " (%.3f s)\n", (double)R->ns / 1e9);
	rec_report_print(stderr, "shadowbind-record", &rep);
	if (R->st)
		fprintf(stderr, "shadowbind-record: %s exited with status %d\n", A.argv[0], R->st);
	trace_free(tr);
	return R->st;
}

int main(int argc, char **argv)
{
	int rc = parse(argc, argv);
	if (rc != CLI_CONTINUE)
		return rc;
	static struct rec R;
	rc = prepare(&R);
	if (rc == CLI_OK)
		rc = run_program(&R);
	free(R.pe[0]);
	free(R.pe[1]);
	if (rc == CLI_OK)
		rc = convert(&R);
	return rc == CLI_OK ? finish(&R) : rc;
}
