/*
 * progen - generate synthetic multithreaded programs as traces, or print
 * statistics of traces.  See `progen --help` and docs/gen.md.
 *
 * Exit status: 0 ok, 1 usage (bad arguments), 2 bad input or a failure to
 * write a file, 3 --stats: a trace's critical-path simulation deadlocked,
 * 4 a failure to write standard output (cmd/common.h).
 *
 * main: parse (the options, --help FAMILY), then one of do_list,
 * do_stats, do_one, do_count (do_batch).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "cmd/common.h"
#include "gen/gen.h"

#define COUNT_MAX 10000000u

/*
 * Write len bytes to path ("-": standard output) with cli_out (a temporary
 * renamed over a regular file; a FIFO or device written directly), in
 * chunks of 1 MB; stops (removing the temporary) on SIGINT/SIGTERM.
 * Returns 0; -1 with err filled, or -3 when writing to standard output
 * failed (a system error, exit 4); or -2 when interrupted.
 */
static int write_out(const char *path, const char *text, size_t len,
                     char *err, size_t errlen)
{
	struct cli_out o;
	if (cli_out_open(&o, path, err, errlen) != 0)
		return -1;
	int to_stdout = o.is_stdout;
	for (size_t done = 0; done < len;) {
		if (cli_interrupted()) {
			cli_out_abort(&o);
			return -2;
		}
		size_t n = len - done < (1u << 20) ? len - done : 1u << 20;
		if (fwrite(text + done, 1, n, o.f) != n) {
			snprintf(err, errlen, "%s: cannot write: %s", o.path, strerror(errno));
			cli_out_abort(&o);
			return to_stdout ? -3 : -1;
		}
		done += n;
	}
	if (cli_out_commit(&o, err, errlen) != 0)
		return to_stdout ? -3 : -1;
	return 0;
}

static _Atomic int batch_stop; /* a program failed: start no more */

/*
 * A batch is all or nothing: programs are written in parallel; if one
 * fails, or SIGINT/SIGTERM arrives, no new one starts and every program
 * already written by this batch is removed again.
 */
static int do_batch(const char *family, const struct gen_opts *o,
                    const char *prefix, uint64_t count)
{
	int width = 4;
	for (uint64_t c = count; c >= 10000; c /= 10)
		width++;
	long long bad = -1;  /* lowest failing program, or -1 */
	int bad_rc = GEN_OK;
	char bad_msg[512] = "";
	unsigned char *done = calloc(count + 1, 1);
	if (!done) {
		fprintf(stderr, "progen: out of memory\n");
		return CLI_ESYSTEM;
	}
	cli_signals_install(CLI_SIG_FLAG);
#pragma omp parallel for schedule(dynamic, 1)
	for (long long i = 1; i <= (long long)count; i++) {
		if (batch_stop || cli_interrupted())
			continue;
		struct gen_opts oi = *o;
		oi.seed = gen_seed_derive(o->seed, (uint64_t)i);
		char err[512], path[4096];
		char *text = NULL;
		size_t len = 0;
		int rc = gen_generate(family, &oi, &text, &len, NULL, err,
		                      sizeof err);
		if (rc == GEN_OK) {
			snprintf(path, sizeof path, "%s-%0*lld.trace", prefix,
			         width, i);
			int w = write_out(path, text, len, err, sizeof err);
			if (w == 0)
				done[i] = 1;
			else if (w == -1)
				rc = GEN_EIO;
		}
		free(text);
		if (rc != GEN_OK) {
			batch_stop = 1;
#pragma omp critical(progen_batch_error)
			{
				if (bad < 0 || i < bad) {
					bad = i;
					bad_rc = rc;
					snprintf(bad_msg, sizeof bad_msg, "%s",
					         err);
				}
			}
		}
	}
	int sig = cli_interrupted();
	if (bad < 0 && !sig) {
		free(done);
		return 0;
	}
	uint64_t removed = 0;
	for (uint64_t i = 1; i <= count; i++) {
		if (!done[i])
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s-%0*llu.trace", prefix, width,
		         (unsigned long long)i);
		if (unlink(path) == 0)
			removed++;
	}
	free(done);
	if (bad >= 0) {
		fprintf(stderr, "progen: program %lld: %s; no partial batch: removed "
		        "the %llu programs written\n", bad, bad_msg,
		        (unsigned long long)removed);
		return cmd_exit_gen(bad_rc);
	}
	fprintf(stderr, "progen: interrupted; no partial batch: removed the %llu "
	        "programs written\n", (unsigned long long)removed);
	return cli_signal_status(sig);
}

static int family_opt(void *arg, const char *name, const char *value,
                      char *why, size_t len)
{
	if (gen_opts_set(arg, name, value) != 0) {
		snprintf(why, len, "too many options or value too long");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * The command line
 */

static struct args {
	struct gen_opts o;
	const char *family, *out;
	uint64_t count;
	int stats, list;
	uint32_t threads;
	char **files;  /* the operands (--stats' traces)                   */
	int nfiles;
} A;

/* progen --help FAMILY: that family's options.  CLI_CONTINUE when argv
 * asks for no family's help, else the exit status. */
static int family_help(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "--help") && strcmp(argv[i], "-h"))
			continue;
		if (argv[i + 1][0] == '-')
			break;
		const struct gen_family *fam = gen_family_find(argv[i + 1]);
		if (!fam) {
			fprintf(stderr, "progen: unknown family '%s'; see 'progen --list'\n",
			        argv[i + 1]);
			return CLI_EUSAGE;
		}
		gen_help_print(fam, stdout);
		return CLI_OK;
	}
	return CLI_CONTINUE;
}

static struct cli_opt opts[] = {
	{CLI_STR, "family", .metavar = "NAME", .dst = &A.family,
	 .help = "transactions, pipeline, forkjoin, prodcons, worstcase, dag"},
	{CLI_U32, "threads", .dst = &A.threads, .min = 1, .max = 1u << 20,
	 .help = "total threads, thread 1 included (default: the family's)"},
	{CLI_U64, "seed", .metavar = "S", .dst = &A.o.seed,
	 .help = "64-bit seed (default 1)"},
	{CLI_U64, "count", .metavar = "M", .dst = &A.count, .min = 1, .max = COUNT_MAX,
	 .help = "write M programs FILE-0001.trace, ... (FILE defaults to\n"
	         "the family name), in parallel (OpenMP); program i uses\n"
	         "the seed derived from (S, i) that its header records"},
	{CLI_STR, "output", 'o', .dst = &A.out,
	 .help = "output file (with --count: the prefix); written to a\n"
	         "temporary and renamed"},
	{CLI_FLAG, "stats", .dst = &A.stats,
	 .help = "print threads, records, work, critical path (one\n"
	         "processor per thread, latency 0), parallelism (work /\n"
	         "critical path) and the count of each operation of each\n"
	         "TRACE"},
	{CLI_FLAG, "list", .dst = &A.list, .help = "list the families"},
	{CLI_TEXT, .help = "--OPTION VALUE: a family option (or --OPTION=VALUE);\n"
	                   "see below, or progen --help FAMILY"},
	{CLI_END}};

static struct cli_cmd cmd = {
	.name = "progen",
	.usage = "--family NAME [--threads N] [--seed S] [--count M] [-o FILE] [--OPTION VALUE]...\n"
	         "--stats TRACE...\n"
	         "--list\n"
	         "--help [FAMILY]",
	.about = "Writes a synthetic multithreaded program of family NAME as a trace\n"
	         "(docs/trace-format.md) to FILE or standard output.  The same arguments\n"
	         "give the same bytes on every machine.",
	.opts = opts,
	.exit3 = "--stats: a trace's critical-path simulation deadlocked",
	.other = family_opt,
	.other_arg = &A.o,
};

/* CLI_CONTINUE, or the exit status (--help, a usage error). */
static int parse(int argc, char **argv)
{
	gen_opts_init(&A.o);
	int rc = family_help(argc, argv);
	if (rc != CLI_CONTINUE)
		return rc;
	/* The epilog: every family's options. */
	char *families = NULL;
	size_t flen = 0;
	FILE *m = open_memstream(&families, &flen);
	if (m) {
		gen_help_print(NULL, m);
		fclose(m);
	}
	cmd.epilog = families;
	rc = cli_parse(&cmd, argc, argv, &A.nfiles);
	cmd.epilog = NULL;
	free(families);
	if (rc != CLI_CONTINUE)
		return rc;
	A.files = argv + 1;
	if (cli_find(&cmd, "threads")->given)
		A.o.threads = A.threads;
	if (A.list)
		return CLI_CONTINUE;
	if (A.stats) {
		if (A.family || A.count || A.out || A.o.nkv)
			return cli_usage(&cmd, "--stats takes only trace files");
		if (A.nfiles == 0)
			return cli_usage(&cmd, "--stats needs a trace file");
		return CLI_CONTINUE;
	}
	if (A.nfiles > 0)
		return cli_usage(&cmd, "unexpected argument '%s' (trace files go with --stats)",
		                 A.files[0]);
	if (!A.family)
		return cli_usage(&cmd, "no --family given");
	return CLI_CONTINUE;
}

/* ---------------------------------------------------------------------
 * The runs: --list, --stats, one program, a batch (do_batch above)
 */

static int do_list(void)
{
	for (size_t k = 0; k < gen_family_count(); k++) {
		const struct gen_family *f = gen_family_at(k);
		printf("%-13s %s\n", f->name, f->summary);
	}
	return cmd_flush(&cmd);
}

/* --stats: each trace's statistics. */
static int do_stats(char **files, int n)
{
	int status = 0;
	for (int i = 0; i < n; i++) {
		struct trace *tr = NULL;
		char why[600];
		if (cli_trace_load(files[i], &tr, why, sizeof why) != CLI_OK)
			return cli_errorf(CLI_EINPUT, "%s", why);
		struct gen_stats st;
		int rc = gen_stats_compute(tr, &st);
		trace_free(tr);
		if (rc != GEN_OK) {
			fprintf(stderr, "%s: out of memory\n", files[i]);
			return cmd_exit_gen(rc);
		}
		if (n > 1)
			printf("trace %s\n", files[i]);
		gen_stats_print(&st, stdout);
		if (st.sim_status == SIM_DEADLOCK) {
			fprintf(stderr,
			        "%s: the critical-path simulation deadlocked\n",
			        files[i]);
			status = 3;
		} else if (st.sim_status != SIM_OK && !status) {
			fprintf(stderr,
			        "%s: the critical path could not be computed "
			        "(status %d)\n",
			        files[i], st.sim_status);
			status = 2;
		}
	}
	int frc = cmd_flush(&cmd);
	return frc != CLI_OK ? frc : status;
}

/* One program to -o FILE or standard output: a signal removes the
 * temporary and exits at once (generation itself looks at no flag). */
static int do_one(void)
{
	char err[512];
	cli_signals_install(CLI_SIG_EXIT);
	char *text = NULL;
	size_t len = 0;
	int rc = gen_generate(A.family, &A.o, &text, &len, NULL, err, sizeof err);
	if (rc != GEN_OK) {
		fprintf(stderr, "progen: %s\n", err);
		return cmd_exit_gen(rc);
	}
	int status = CLI_OK;
	int w = write_out(A.out ? A.out : "-", text, len, err, sizeof err);
	if (w == -1 || w == -3) {
		fprintf(stderr, "progen: %s\n", err);
		status = w == -3 ? CLI_ESYSTEM : CLI_EINPUT;
	} else if (w == -2) {
		status = cli_signal_status(cli_interrupted());
	}
	free(text);
	return status;
}

/* --count M: the options checked once, serially, so that a usage error is
 * reported before any file is written; then do_batch. */
static int do_count(void)
{
	char err[512];
	char *text = NULL;
	size_t len = 0;
	struct gen_opts o1 = A.o;
	o1.seed = gen_seed_derive(A.o.seed, 1);
	int rc = gen_generate(A.family, &o1, &text, &len, NULL, err, sizeof err);
	free(text);
	if (rc != GEN_OK)
		return fprintf(stderr, "progen: %s\n", err), cmd_exit_gen(rc);
	return do_batch(A.family, &A.o, A.out ? A.out : A.family, A.count);
}

int main(int argc, char **argv)
{
	int rc = parse(argc, argv);
	if (rc != CLI_CONTINUE)
		return rc;
	if (A.list)
		return do_list();
	if (A.stats)
		return do_stats(A.files, A.nfiles);
	return A.count ? do_count() : do_one();
}
