/* experiment - run batch experiments from INI files into CSVs, and make
 * the report (docs/exp.md). */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
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

int main(int argc, char **argv)
{
	cli_omp_passive(argv);
	int quiet = 0, report = 0;
	const char *timing = NULL, *output = NULL, *machine = NULL;
	struct cli_opt opts[] = {
		{CLI_STR, "output", 'o', "CSV", .dst = &output,
		 .help = "write (and resume) CSV instead of the file's output"},
		{CLI_STR, "timing", 0, "FILE", .dst = &timing,
		 .help = "wall times (seconds per row; not deterministic)"},
		{CLI_FLAG, "report", 0, .dst = &report,
		 .help = "make the plots and the report instead of running"},
		{CLI_FLAG, "quiet", 'q', .dst = &quiet,
		 .help = "no progress bar, no summary"},
		{CLI_STR, "machine", 0, "FILE", .dst = &machine,
		 .help = "the machine file (shadowbind-calibrate) of every job,\n"
		         "instead of the files' [machine] machine = FILE\n"
		         "(docs/sim.md, Machine files; recorded traces only:\n"
		         "it needs a trace's time unit)"},
		{CLI_END},
	};
	static const struct cli_cmd cmd = {
		"experiment",
		"[options] EXPERIMENT.ini ...\n--report [DIR [REPORT]]",
		about, NULL, NULL, NULL, NULL, NULL};
	struct cli_cmd c = cmd;
	c.opts = opts;
	int mpi = exp_mpi_available() && exp_mpi_launched();
	if (mpi && exp_mpi_init(&argc, &argv) != 0) {
		fprintf(stderr, "experiment: MPI_Init failed\n");
		return CLI_ESYSTEM;
	}
	int nops, prc = cli_parse(&c, argc, argv, &nops);
	if (prc != CLI_CONTINUE) {
		exp_mpi_finalize();
		return prc;
	}
	int first = 1;
	argc = nops + 1;
	char err[1024];
	if (report) {
		const char *dir = first < argc ? argv[first] : "bench/experiments";
		const char *out = first + 1 < argc ? argv[first + 1]
		                                   : "bench/REPORT.md";
		int rc = exp_report(dir, out, err, sizeof err);
		if (rc)
			fprintf(stderr, "experiment: %s\n", err);
		exp_mpi_finalize();
		return rc == EXP_OK ? 0 : rc == EXP_EINVAL ? 2 : 4;
	}
	if (first >= argc) {
		exp_mpi_finalize();
		return cli_usage(&c, "no experiment file");
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	int status = 0;
	for (int i = first; i < argc && !status; i++) {
		struct exp_spec *s = calloc(1, sizeof *s);
		if (!s) {
			fprintf(stderr, "experiment: out of memory\n");
			status = 4;
			break;
		}
		int rc = exp_spec_load(argv[i], s, err, sizeof err);
		if (rc) {
			int r = exp_mpi_rank(mpi);
			if (r == 0)
				fprintf(stderr, "%s\n", err);
			else /* a rank whose file differs from rank 0's */
				fprintf(stderr, "experiment: rank %d: %s\n", r, err);
			exp_spec_release(s);
			free(s);
			status = rc == EXP_EINVAL ? 2 : 4;
			/* A rank that cannot read the file while the others can
			 * would leave them waiting: stop them all. */
			if (mpi)
				exp_mpi_abort(status);
			break;
		}
		if (machine) {
			char *m2 = strdup(machine);
			if (!m2) {
				fprintf(stderr, "experiment: out of memory\n");
				status = 4;
				exp_spec_release(s);
				free(s);
				break;
			}
			free(s->machine);
			s->machine = m2;
		}
		if (output) {
			char *o2 = strdup(output);
			if (!o2) {
				fprintf(stderr, "experiment: out of memory\n");
				status = 4;
				exp_spec_release(s);
				free(s);
				break;
			}
			free(s->output);
			s->output = o2;
		}
		char *tpath = NULL;
		if (!timing) {
			size_t n = strlen(s->output);
			if (n > 4 && strcmp(s->output + n - 4, ".csv") == 0)
				n -= 4;
			tpath = malloc(n + 12);
			if (tpath)
				sprintf(tpath, "%.*s.timing.csv", (int)n, s->output);
		}
		struct bar b = {isatty(2) && !quiet, now_s(), s->name};
		struct exp_run_opts o = {
			.progress = progress,
			.progress_arg = &b,
			.cancel = &cancel,
			.use_mpi = mpi,
			.timing = timing ? timing : tpath,
		};
		struct exp_run_stats st;
		double t0 = now_s();
		rc = exp_run(s, &o, &st, err, sizeof err);
		if (rc) {
			if (st.rank == 0)
				fprintf(stderr, "experiment: %s\n", err);
			else if (st.own_failure)
				fprintf(stderr, "experiment: rank %d: %s\n",
				        st.rank, err);
			status = rc == EXP_EINVAL ? 2 : 4;
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
		} else if (!quiet && st.rank == 0) {
			fprintf(stderr,
			        "experiment: %s: %zu jobs (%zu kept, %zu computed) "
			        "in %.1f s on %d thread(s) x %d process(es) -> %s\n",
			        s->name, st.jobs, st.kept, st.computed, now_s() - t0,
			        omp_get_max_threads(), st.ranks, s->output);
		}
		free(tpath);
		exp_spec_release(s);
		free(s);
	}
	exp_mpi_finalize();
	return status;
}
