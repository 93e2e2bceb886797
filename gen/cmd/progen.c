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

#include "gen/gen.h"

#define COUNT_MAX 10000000u

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: progen --family NAME [--threads N] [--seed S] "
	        "[--count M] [-o FILE]\n"
	        "              [--OPTION VALUE]...\n"
	        "       progen --stats TRACE...\n"
	        "       progen --list\n"
	        "       progen --help [FAMILY]\n"
	        "\n"
	        "Writes a synthetic multithreaded program of family NAME as a "
	        "trace\n"
	        "(docs/trace-format.md) to FILE (written to a temporary and "
	        "renamed) or\n"
	        "standard output.  The same arguments give the same bytes on "
	        "every machine.\n"
	        "\n"
	        "  --family NAME  transactions, pipeline, forkjoin, prodcons, "
	        "worstcase, dag\n"
	        "  --threads N    total threads, thread 1 included (default: "
	        "the family's)\n"
	        "  --seed S       64-bit seed (default 1)\n"
	        "  --count M      write M programs FILE-0001.trace, ... (FILE "
	        "defaults to the\n"
	        "                 family name), in parallel (OpenMP); program "
	        "i uses the seed\n"
	        "                 derived from (S, i) that its header "
	        "records\n"
	        "  -o FILE        output file (with --count: the prefix)\n"
	        "  --stats        print threads, records, work, critical path "
	        "(one processor\n"
	        "                 per thread, latency 0), parallelism (work / "
	        "critical path)\n"
	        "                 and the count of each operation of each "
	        "TRACE\n"
	        "  --list         list the families\n"
	        "  --OPTION VALUE a family option (or --OPTION=VALUE); see "
	        "below\n"
	        "\n");
}

/* A usage error: one line, exit status 1. */
static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "progen: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 1;
}

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
		struct trace_error err;
		if (trace_read_file(files[i], &tr, &err) != 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 2;
		}
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

int main(int argc, char **argv)
{
	struct gen_opts o;
	gen_opts_init(&o);
	const char *family = NULL, *out = NULL;
	uint64_t count = 0;
	int stats = 0, nfiles = 0;
	char **files = calloc((size_t)argc + 1, sizeof *files);
	if (!files)
		return 2;
	int status = 0;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			const struct gen_family *fam = NULL;
			if (i + 1 < argc) {
				fam = gen_family_find(argv[i + 1]);
				if (!fam) {
					free(files);
					return die("unknown family '%s' (see "
					           "progen --list)",
					           argv[i + 1]);
				}
			}
			if (!fam)
				usage(stdout);
			gen_help_print(fam, stdout);
			free(files);
			return 0;
		}
		if (!strcmp(arg, "--list")) {
			for (size_t k = 0; k < gen_family_count(); k++) {
				const struct gen_family *f = gen_family_at(k);
				printf("%-13s %s\n", f->name, f->summary);
			}
			free(files);
			return 0;
		}
		if (!strcmp(arg, "--stats")) {
			stats = 1;
			continue;
		}
		if (arg[0] != '-' || !strcmp(arg, "-")) {
			files[nfiles++] = argv[i];
			continue;
		}
		/* --name value, --name=value, -o value */
		char name[64];
		const char *val = NULL;
		if (!strcmp(arg, "-o")) {
			snprintf(name, sizeof name, "output");
		} else if (arg[1] == '-' && arg[2]) {
			const char *eq = strchr(arg + 2, '=');
			size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
			if (n >= sizeof name) {
				free(files);
				return die("unknown option '%s'", arg);
			}
			memcpy(name, arg + 2, n);
			name[n] = 0;
			if (eq)
				val = eq + 1;
		} else {
			free(files);
			return die("unknown option '%s' (see progen "
			           "--help)",
			           arg);
		}
		if (!val) {
			if (i + 1 >= argc) {
				free(files);
				return die("option %s needs a value", arg);
			}
			val = argv[++i];
		}
		if (!strcmp(name, "family")) {
			family = val;
		} else if (!strcmp(name, "output")) {
			out = val;
		} else if (!strcmp(name, "threads")) {
			uint64_t v;
			if (trace_parse_u64(val, UINT64_MAX, &v) || v < 1 || v > (1u << 20)) {
				free(files);
				return die("--threads '%s' is not an integer in "
				           "[1, 1048576]",
				           val);
			}
			o.threads = (uint32_t)v;
		} else if (!strcmp(name, "seed")) {
			if (trace_parse_u64(val, UINT64_MAX, &o.seed)) {
				free(files);
				return die("--seed '%s' is not an unsigned 64-bit "
				           "integer",
				           val);
			}
		} else if (!strcmp(name, "count")) {
			if (trace_parse_u64(val, UINT64_MAX, &count) || count < 1 ||
			    count > COUNT_MAX) {
				free(files);
				return die("--count '%s' is not an integer in "
				           "[1, 10000000]",
				           val);
			}
		} else if (gen_opts_set(&o, name, val) != 0) {
			free(files);
			return die("option --%s: too many options or value too "
			           "long",
			           name);
		}
	}

	if (stats) {
		if (family || count || out || o.nkv) {
			free(files);
			return die("--stats takes only trace files");
		}
		if (nfiles == 0) {
			free(files);
			return die("--stats needs a trace file");
		}
		status = do_stats(files, nfiles);
		free(files);
		return status;
	}
	if (nfiles > 0) {
		status = die("unexpected argument '%s' (trace files go with "
		             "--stats)",
		             files[0]);
		free(files);
		return status;
	}
	free(files);
	if (!family)
		return die("no --family given (see progen --help)");

	char err[512];
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
