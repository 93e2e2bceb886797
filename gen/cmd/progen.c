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
#include "gen/gen.h"

#define COUNT_MAX 10000000u

/* Write len bytes to path through a temporary in the same directory. */
static int write_atomic(const char *path, const char *text, size_t len,
                        char *err, size_t errlen)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	if (!tmp) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp.XXXXXX", 12);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	int e = done == len ? 0 : errno ? errno : EIO;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
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

static int do_batch(const char *family, const struct gen_opts *o,
                    const char *prefix, uint64_t count)
{
	int width = 4;
	for (uint64_t c = count; c >= 10000; c /= 10)
		width++;
	long long bad = -1;  /* lowest failing program, or -1 */
	int bad_rc = GEN_OK;
	char bad_msg[512] = "";
#pragma omp parallel for schedule(dynamic, 1)
	for (long long i = 1; i <= (long long)count; i++) {
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
			if (write_atomic(path, text, len, err, sizeof err))
				rc = GEN_EIO;
		}
		free(text);
		if (rc != GEN_OK) {
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
	if (bad >= 0) {
		fprintf(stderr, "progen: program %lld: %s\n", bad, bad_msg);
		return exit_for(bad_rc);
	}
	return 0;
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
	if (out && strcmp(out, "-") != 0) {
		if (write_atomic(out, text, len, err, sizeof err)) {
			fprintf(stderr, "progen: %s\n", err);
			status = 2;
		}
	} else if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) {
		fprintf(stderr, "progen: standard output: %s\n",
		        strerror(errno));
		status = 2;
	}
	free(text);
	return status;
}
