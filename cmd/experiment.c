/*
 * experiment - run batch experiments from INI files into CSVs, and make
 * the report (docs/exp.md).
 *
 * main: parse (MPI_Init under MPI, the options), then do_report or
 * do_files (load and run each file); the exit status of exp's codes by
 * cmd_exit_exp (cmd/common.h).
 */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/common.h"
#include "exp/exp.h"

static volatile sig_atomic_t stop_flag;
static volatile int cancel;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
	cancel = 1;
}

static const char about[] =
	"Runs every (program, machine) job of each experiment file "
	"(docs/exp.md) and\n"
	"writes one CSV row per (program, machine, algorithm) to the file's "
	"output\n"
	"(default: the file with .csv for .ini): makespan, tests, why the "
	"search\n"
	"stopped, binpacking's and one processor's makespan, the analytic "
	"bound, the\n"
	"lower bound, the gap.  Rows already in the CSV are kept (resume "
	"after an\n"
	"interruption); the file is the same bytes for any number of OpenMP "
	"threads\n"
	"(OMP_NUM_THREADS) or MPI processes (mpirun -np N experiment FILE).  "
	"Wall\n"
	"times go to the timing file (default: OUTPUT without .csv + "
	".timing.csv).\n"
	"A progress bar with ETA is shown when standard error is a "
	"terminal.\n"
	"--report turns DIR's (default bench/experiments) CSVs into SVG "
	"plots\n"
	"(gnuplot) and regenerates REPORT (default bench/REPORT.md).";

struct bar {
	int tty;
	double t0;
	const char *name;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void progress(void *arg, size_t done, size_t total)
{
	struct bar *b = arg;
	if (!b->tty)
		return;
	double el = now_s() - b->t0;
	char eta[32] = "--";
	if (done > 0 && total >= done) {
		double left = el / (double)done * (double)(total - done);
		snprintf(eta, sizeof eta, "%dm%02ds", (int)(left / 60),
		         (int)left % 60);
	}
	int width = 30;
	int fill = total ? (int)((double)width * (double)done / (double)total)
	                 : width;
	char bar[64];
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '=' : ' ';
	bar[width] = 0;
	fprintf(stderr, "\r%s [%s] %zu/%zu jobs  %.0fs  ETA %s ", b->name, bar,
	        done, total, el, eta);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
}

/* ---------------------------------------------------------------------
 * The command line
 */

static struct args {
	int quiet, report;
	const char *timing, *output, *machine;
	char **files;  /* the operands: experiment files, or --report's     */
	int nfiles;
	int mpi;       /* launched under MPI (exp_mpi_init done)           */
} A;

static struct cli_opt opts[] = {
	{CLI_STR, "output", 'o', "CSV", .dst = &A.output,
	 .help = "write (and resume) CSV instead of the file's output"},
	{CLI_STR, "timing", 0, "FILE", .dst = &A.timing,
	 .help = "wall times (seconds per row; not deterministic)"},
	{CLI_FLAG, "report", 0, .dst = &A.report,
	 .help = "make the plots and the report instead of running"},
	{CLI_FLAG, "quiet", 'q', .dst = &A.quiet,
	 .help = "no progress bar, no summary"},
	{CLI_STR, "machine", 0, "FILE", .dst = &A.machine,
	 .help = "the machine file (shadowbind-calibrate) of every job,\n"
	         "instead of the files' [machine] machine = FILE\n"
	         "(docs/sim.md, Machine files; recorded traces only:\n"
	         "it needs a trace's time unit)"},
	{CLI_END},
};

static const struct cli_cmd cmd = {
	.name = "experiment",
	.usage = "[options] EXPERIMENT.ini ...\n--report [DIR [REPORT]]",
	.about = about,
	.opts = opts,
};

/* MPI_Init when launched under MPI, then the options.  CLI_CONTINUE, or
 * the exit status (--help, a usage error, MPI_Init failed; MPI then
 * finalized). */
static int parse(int argc, char **argv)
{
	A.mpi = exp_mpi_available() && exp_mpi_launched();
	if (A.mpi && exp_mpi_init(&argc, &argv) != 0) {
		fprintf(stderr, "experiment: MPI_Init failed\n");
		return CLI_ESYSTEM;
	}
	int rc = cli_parse(&cmd, argc, argv, &A.nfiles);
	if (rc != CLI_CONTINUE) {
		exp_mpi_finalize();
		return rc;
	}
	A.files = argv + 1;
	if (!A.report && A.nfiles == 0) {
		exp_mpi_finalize();
		return cli_usage(&cmd, "no experiment file");
	}
	return CLI_CONTINUE;
}

/* ---------------------------------------------------------------------
 * The runs
 */

/* --report [DIR [REPORT]] */
static int do_report(void)
{
	char err[1024];
	const char *dir = A.nfiles > 0 ? A.files[0] : "bench/experiments";
	const char *out = A.nfiles > 1 ? A.files[1] : "bench/REPORT.md";
	int rc = exp_report(dir, out, err, sizeof err);
	if (rc)
		fprintf(stderr, "experiment: %s\n", err);
	return cmd_exit_exp(rc);
}

/* *field = a copy of value (replacing the file's); 0, or -1 (out of
 * memory, *field kept). */
static int override(char **field, const char *value)
{
	char *v = strdup(value);
	if (!v)
		return -1;
	free(*field);
	*field = v;
	return 0;
}

/* Read experiment file path into s, with --machine and --output.  CLI_OK,
 * or the exit status after the message (under MPI every rank stopped). */
static int load(const char *path, struct exp_spec *s)
{
	char err[1024];
	int rc = exp_spec_load(path, s, err, sizeof err);
	if (rc) {
		int r = exp_mpi_rank(A.mpi);
		if (r == 0)
			fprintf(stderr, "%s\n", err);
		else /* a rank whose file differs from rank 0's */
			fprintf(stderr, "experiment: rank %d: %s\n", r, err);
		int status = cmd_exit_exp(rc);
		/* A rank that cannot read the file while the others can
		 * would leave them waiting: stop them all. */
		if (A.mpi)
			exp_mpi_abort(status);
		return status;
	}
	if ((A.machine && override(&s->machine, A.machine)) ||
	    (A.output && override(&s->output, A.output))) {
		fprintf(stderr, "experiment: out of memory\n");
		return CLI_ESYSTEM;
	}
	return CLI_OK;
}

/* The timing file's default: OUTPUT without .csv + .timing.csv (malloc'd;
 * NULL when out of memory: no timing file). */
static char *timing_path(const char *output)
{
	size_t n = strlen(output);
	if (n > 4 && strcmp(output + n - 4, ".csv") == 0)
		n -= 4;
	char *tpath = malloc(n + 12);
	if (tpath)
		sprintf(tpath, "%.*s.timing.csv", (int)n, output);
	return tpath;
}

/* Run the loaded experiment s; the exit status, after the message or the
 * summary. */
static int run(const struct exp_spec *s)
{
	char err[1024];
	char *tpath = A.timing ? NULL : timing_path(s->output);
	struct bar b = {isatty(2) && !A.quiet, now_s(), s->name};
	struct exp_run_opts o = {
		.progress = progress,
		.progress_arg = &b,
		.cancel = &cancel,
		.use_mpi = A.mpi,
		.timing = A.timing ? A.timing : tpath,
	};
	struct exp_run_stats st;
	double t0 = now_s();
	int status = CLI_OK;
	int rc = exp_run(s, &o, &st, err, sizeof err);
	if (rc) {
		if (st.rank == 0)
			fprintf(stderr, "experiment: %s\n", err);
		else if (st.own_failure)
			fprintf(stderr, "experiment: rank %d: %s\n", st.rank, err);
		status = cmd_exit_exp(rc);
		/* Under MPI the other ranks may still be computing or
		 * waiting for this one: stop them all, reported. */
		if (st.ranks > 1 && (st.rank == 0 || st.own_failure)) {
			fflush(stderr);
			exp_mpi_abort(status);
		}
	} else if (st.cancelled) {
		if (st.rank == 0)
			fprintf(stderr,
			        "experiment: %s: interrupted; %s holds the "
			        "finished jobs, rerun to resume\n",
			        s->name, s->output);
		status = CLI_EINT;
	} else if (!A.quiet && st.rank == 0) {
		fprintf(stderr,
		        "experiment: %s: %zu jobs (%zu kept, %zu computed) "
		        "in %.1f s on %d thread(s) x %d process(es) -> %s\n",
		        s->name, st.jobs, st.kept, st.computed, now_s() - t0,
		        omp_get_max_threads(), st.ranks, s->output);
	}
	free(tpath);
	return status;
}

/* Each experiment file in turn, until one fails. */
static int do_files(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	int status = CLI_OK;
	for (int i = 0; i < A.nfiles && status == CLI_OK; i++) {
		struct exp_spec *s = calloc(1, sizeof *s);
		if (!s) {
			fprintf(stderr, "experiment: out of memory\n");
			return CLI_ESYSTEM;
		}
		status = load(A.files[i], s);
		if (status == CLI_OK)
			status = run(s);
		exp_spec_release(s);
		free(s);
	}
	return status;
}

int main(int argc, char **argv)
{
	cli_omp_passive(argv);
	int rc = parse(argc, argv);
	if (rc != CLI_CONTINUE)
		return rc;
	rc = A.report ? do_report() : do_files();
	exp_mpi_finalize();
	return rc;
}
