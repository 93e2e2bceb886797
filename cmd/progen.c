/*
 * progen - generate synthetic multithreaded programs as traces, or print
 * statistics of traces.  See `progen --help` and docs/gen.md.
 *
 * Exit status: 0 ok, 1 usage (bad arguments), 2 bad input or a failure to
 * write, 3 --stats: a trace's critical-path simulation deadlocked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "gen/gen.h"

#define COUNT_MAX 10000000u

/*
 * Write len bytes to path ("-": standard output) with cli_out (a temporary
 * renamed over a regular file; a FIFO or device written directly), in
 * chunks of 1 MB; stops (removing the temporary) on SIGINT/SIGTERM.
 * Returns 0, -1 with err filled, or -2 when interrupted.
 */
static int write_out(const char *path, const char *text, size_t len,
                     char *err, size_t errlen)
{
	struct cli_out o;
	if (cli_out_open(&o, path, err, errlen) != 0)
		return -1;
	for (size_t done = 0; done < len;) {
		if (cli_interrupted()) {
			cli_out_abort(&o);
			return -2;
		}
		size_t n = len - done < (1u << 20) ? len - done : 1u << 20;
		if (fwrite(text + done, 1, n, o.f) != n) {
			snprintf(err, errlen, "%s: cannot write: %s", o.path, strerror(errno));
			cli_out_abort(&o);
			return -1;
		}
		done += n;
	}
	return cli_out_commit(&o, err, errlen);
}

static int exit_for(int rc)
{
	return rc == GEN_EINVAL ? 1 : 2;
}

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
			return 2;
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
	if (fflush(stdout) != 0) {
		fprintf(stderr, "progen: standard output: %s\n",
		        strerror(errno));
		return 2;
	}
	return status;
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
		return exit_for(bad_rc);
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

int main(int argc, char **argv)
{
	struct gen_opts o;
	gen_opts_init(&o);
	const char *family = NULL, *out = NULL;
	uint64_t count = 0;
	int stats = 0, list = 0;
	uint32_t threads = 0;
	/* progen --help FAMILY: that family's options. */
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
	char *families = NULL;
	size_t flen = 0;
	FILE *m = open_memstream(&families, &flen);
	if (m) {
		gen_help_print(NULL, m);
		fclose(m);
	}
	struct cli_opt opts[] = {
		{CLI_STR, "family", .metavar = "NAME", .dst = &family,
		 .help = "transactions, pipeline, forkjoin, prodcons, worstcase, dag"},
		{CLI_U32, "threads", .dst = &threads, .min = 1, .max = 1u << 20,
		 .help = "total threads, thread 1 included (default: the family's)"},
		{CLI_U64, "seed", .metavar = "S", .dst = &o.seed,
		 .help = "64-bit seed (default 1)"},
		{CLI_U64, "count", .metavar = "M", .dst = &count, .min = 1, .max = COUNT_MAX,
		 .help = "write M programs FILE-0001.trace, ... (FILE defaults to\n"
		         "the family name), in parallel (OpenMP); program i uses\n"
		         "the seed derived from (S, i) that its header records"},
		{CLI_STR, "output", 'o', .dst = &out,
		 .help = "output file (with --count: the prefix); written to a\n"
		         "temporary and renamed"},
		{CLI_FLAG, "stats", .dst = &stats,
		 .help = "print threads, records, work, critical path (one\n"
		         "processor per thread, latency 0), parallelism (work /\n"
		         "critical path) and the count of each operation of each\n"
		         "TRACE"},
		{CLI_FLAG, "list", .dst = &list, .help = "list the families"},
		{CLI_TEXT, .help = "--OPTION VALUE: a family option (or --OPTION=VALUE);\n"
		                   "see below, or progen --help FAMILY"},
		{CLI_END}};
	const struct cli_cmd cmd = {
		.name = "progen",
		.usage = "--family NAME [--threads N] [--seed S] [--count M] [-o FILE] [--OPTION VALUE]...\n"
		         "--stats TRACE...\n"
		         "--list\n"
		         "--help [FAMILY]",
		.about = "Writes a synthetic multithreaded program of family NAME as a trace\n"
		         "(docs/trace-format.md) to FILE or standard output.  The same arguments\n"
		         "give the same bytes on every machine.",
		.opts = opts,
		.epilog = families,
		.exit3 = "--stats: a trace's critical-path simulation deadlocked",
		.other = family_opt,
		.other_arg = &o,
	};
	int nfiles, prc = cli_parse(&cmd, argc, argv, &nfiles);
	free(families);
	if (prc != CLI_CONTINUE)
		return prc;
	char **files = argv + 1;
	if (cli_find(&cmd, "threads")->given)
		o.threads = threads;
	if (list) {
		for (size_t k = 0; k < gen_family_count(); k++) {
			const struct gen_family *f = gen_family_at(k);
			printf("%-13s %s\n", f->name, f->summary);
		}
		return 0;
	}
	if (stats) {
		if (family || count || out || o.nkv)
			return cli_usage(&cmd, "--stats takes only trace files");
		if (nfiles == 0)
			return cli_usage(&cmd, "--stats needs a trace file");
		return do_stats(files, nfiles);
	}
	if (nfiles > 0)
		return cli_usage(&cmd, "unexpected argument '%s' (trace files go with --stats)",
		                 files[0]);
	if (!family)
		return cli_usage(&cmd, "no --family given");

	char err[512];
	int status = 0;
	/* One program: a signal removes the temporary and exits at once
	 * (generation itself does not look at a flag). */
	if (!count)
		cli_signals_install(CLI_SIG_EXIT);
	if (count) {
		/* Check the options once, serially, so that a usage error is
		 * reported before any file is written. */
		char *text = NULL;
		size_t len = 0;
		struct gen_opts o1 = o;
		o1.seed = gen_seed_derive(o.seed, 1);
		int rc = gen_generate(family, &o1, &text, &len, NULL, err,
		                      sizeof err);
		free(text);
		if (rc != GEN_OK)
			return fprintf(stderr, "progen: %s\n", err), exit_for(rc);
		return do_batch(family, &o, out ? out : family, count);
	}
	char *text = NULL;
	size_t len = 0;
	int rc = gen_generate(family, &o, &text, &len, NULL, err, sizeof err);
	if (rc != GEN_OK) {
		fprintf(stderr, "progen: %s\n", err);
		return exit_for(rc);
	}
	int w = write_out(out ? out : "-", text, len, err, sizeof err);
	if (w == -1) {
		fprintf(stderr, "progen: %s\n", err);
		status = CLI_EINPUT;
	} else if (w == -2) {
		status = cli_signal_status(cli_interrupted());
	}
	free(text);
	return status;
}
