/*
 * allocate - find the binding of threads to processors with the shortest
 * simulated completion time (docs/alloc.md).
 *
 *   allocate --cpus K [options] TRACE
 *
 * Writes a binding file (docs/binding-format.md) to standard output or -o.
 * Exit: 0 ok, 1 usage, 2 bad input (trace, configuration, output), 3 the
 * program deadlocks under every binding tried.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iniparser/iniparser.h>

#include "alloc/alloc.h"
#include "bound/bound.h"
#include "sim/sim.h"
#include "trace/trace.h"

static const char *prog = "allocate";

static void usage(FILE *f)
{
	fprintf(f,
	"usage: allocate --cpus K [options] TRACE\n"
	"Find the binding of TRACE's threads to K processors with the shortest\n"
	"simulated completion time; write it as a binding file.\n"
	"\n"
	"machine:\n"
	"  -k, --cpus K          processors (required here or in --config)\n"
	"      --latency T       synchronization latency between processors,\n"
	"                        trace units (default 0)\n"
	"      --policy P        local scheduling: ps (default), fifo, rr:Q\n"
	"      --create-cost C   CPU time of a thread creation (default 0)\n"
	"      --switch-cost C   context switch time, fifo and rr (default 0)\n"
	"      --model M         simulation model: auto (default), direct,\n"
	"                        client-server, strict.  auto applies Paper\n"
	"                        VIII's scheme (direct, on deadlock client-server,\n"
	"                        then strict) once, to binpacking's allocation,\n"
	"                        and the whole search uses the model it chose\n"
	"search:\n"
	"  -a, --algorithm NAME  see --list-algorithms (default auto)\n"
	"      --seed S          random seed (default 1)\n"
	"      --max-tests N     test budget (default: depends on the trace)\n"
	"      --stop-after N    greedy/dsg: stop after N tests without\n"
	"                        improvement (default 100; 0 never)\n"
	"      --restarts N      dsg: at most N restarts (default 0: unlimited)\n"
	"      --time-limit SEC  stop searching after SEC seconds (the result\n"
	"                        then depends on the machine's speed)\n"
	"      --config FILE     INI file: [machine] and [search] keys, as in\n"
	"                        examples/allocate.ini; options override it\n"
	"output:\n"
	"  -o, --output FILE     write the binding to FILE (atomically)\n"
	"  -q, --quiet           no progress line, no summary\n"
	"      --no-bound        leave out the bound and lower header lines\n"
	"                        (Paper VII's bound and the lower bound; their\n"
	"                        computation may take up to about a second)\n"
	"      --list-algorithms the algorithms, one per line\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 ok, 1 usage, 2 bad input, 3 the program deadlocks under\n"
	"every binding tried.\n");
}

static void die_usage(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see '%s --help'\n", prog);
	exit(1);
}

static void die_input(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* iniparser reports syntax errors through a callback: keep the first. */
static char ini_msg[1024];
static int ini_errback(const char *fmt, ...)
{
	if (ini_msg[0])
		return 0;
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(ini_msg, sizeof ini_msg, fmt, ap);
	va_end(ap);
	return r;
}

static void load_config(const char *path, struct alloc_params *par)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die_input("%s: cannot open: %s", path, strerror(errno));
	fclose(f);
	iniparser_set_error_callback(ini_errback);
	dictionary *d = iniparser_load(path);
	if (!d) {
		/* "iniparser: syntax error in FILE (LINE):\n-> TEXT\n" */
		const char *p = strrchr(ini_msg, '(');
		long line = p ? strtol(p + 1, NULL, 10) : 0;
		const char *text = strstr(ini_msg, "-> ");
		char t[256] = "";
		if (text) {
			snprintf(t, sizeof t, "%s", text + 3);
			t[strcspn(t, "\n")] = 0;
		}
		if (line > 0)
			die_input("%s:%ld: syntax error: '%s' is not a section, "
			          "key = value, or comment", path, line, t);
		die_input("%s: cannot read the configuration", path);
	}
	char err[512];
	int r = alloc_config_apply(d, path, par, err, sizeof err);
	iniparser_freedict(d);
	if (r)
		die_input("%s", err);
}

/* Command-line values, kept as strings until the config file is read, so
 * that they override it. */
enum {
	O_CPUS = 'k', O_ALG = 'a', O_OUT = 'o', O_QUIET = 'q', O_HELP = 'h',
	O_LATENCY = 256, O_POLICY, O_CCOST, O_SCOST, O_SEED, O_MAXT, O_STOP,
	O_RESTARTS, O_TIME, O_CONFIG, O_LIST, O_MODEL, O_NOBOUND, O_NOPTS
};

static const struct option longopts[] = {
	{"cpus", required_argument, NULL, O_CPUS},
	{"latency", required_argument, NULL, O_LATENCY},
	{"policy", required_argument, NULL, O_POLICY},
	{"create-cost", required_argument, NULL, O_CCOST},
	{"switch-cost", required_argument, NULL, O_SCOST},
	{"model", required_argument, NULL, O_MODEL},
	{"algorithm", required_argument, NULL, O_ALG},
	{"seed", required_argument, NULL, O_SEED},
	{"max-tests", required_argument, NULL, O_MAXT},
	{"stop-after", required_argument, NULL, O_STOP},
	{"restarts", required_argument, NULL, O_RESTARTS},
	{"time-limit", required_argument, NULL, O_TIME},
	{"config", required_argument, NULL, O_CONFIG},
	{"output", required_argument, NULL, O_OUT},
	{"quiet", no_argument, NULL, O_QUIET},
	{"no-bound", no_argument, NULL, O_NOBOUND},
	{"list-algorithms", no_argument, NULL, O_LIST},
	{"help", no_argument, NULL, O_HELP},
	{NULL, 0, NULL, 0},
};

static uint64_t opt_u64(const char *opt, const char *v, uint64_t min,
                        uint64_t max)
{
	uint64_t x;
	if (trace_parse_u64(v, UINT64_MAX, &x) != 0)
		die_usage("--%s: '%s' is not a non-negative integer", opt, v);
	if (x < min || x > max)
		die_usage("--%s: '%s' is out of range (%" PRIu64 "..%" PRIu64 ")",
		          opt, v, min, max);
	return x;
}

static void apply_options(const char **val, struct alloc_params *par)
{
	const uint64_t W = (1ull << 62) - 1;
	if (val[O_CPUS])
		par->sim.cpus = (uint32_t)opt_u64("cpus", val[O_CPUS], 1, 65536);
	if (val[O_LATENCY])
		par->sim.latency = opt_u64("latency", val[O_LATENCY], 0, W);
	if (val[O_CCOST])
		par->sim.create_cost = opt_u64("create-cost", val[O_CCOST], 0, W);
	if (val[O_SCOST])
		par->sim.switch_cost = opt_u64("switch-cost", val[O_SCOST], 0, W);
	if (val[O_POLICY] && sim_policy_parse(val[O_POLICY], &par->sim))
		die_usage("--policy: '%s' is not a policy (ps, fifo, rr:Q)",
		          val[O_POLICY]);
	if (val[O_MODEL] && alloc_parse_model(val[O_MODEL], &par->sim.model))
		die_usage("--model: '%s' is not a model (direct, client-server, "
		          "strict, auto)", val[O_MODEL]);
	if (val[O_ALG]) {
		if (alloc_algorithm_find(val[O_ALG]) < 0)
			die_usage("--algorithm: '%s' is not an algorithm (see "
			          "--list-algorithms)", val[O_ALG]);
		snprintf(par->algorithm, sizeof par->algorithm, "%s", val[O_ALG]);
	}
	if (val[O_SEED])
		par->seed = opt_u64("seed", val[O_SEED], 0, UINT64_MAX);
	if (val[O_MAXT])
		par->max_tests = opt_u64("max-tests", val[O_MAXT], 0, UINT64_MAX);
	if (val[O_STOP])
		par->stop_after = opt_u64("stop-after", val[O_STOP], 0,
		                          UINT64_MAX);
	if (val[O_RESTARTS])
		par->restarts = (uint32_t)opt_u64("restarts", val[O_RESTARTS], 0,
		                                  UINT32_MAX);
	if (val[O_TIME] && alloc_parse_seconds(val[O_TIME], &par->time_limit))
		die_usage("--time-limit: '%s' is not a non-negative number of "
		          "seconds", val[O_TIME]);
}

/* Read the trace; hash its bytes for the `trace` header. */
static struct trace *read_trace(const char *path, char hex[65])
{
	struct trace *tr = NULL;
	struct trace_error err;
	struct alloc_sha256 sh;
	alloc_sha256_init(&sh);
	if (strcmp(path, "-") == 0) {
		size_t cap = 1 << 16, len = 0;
		char *buf = malloc(cap);
		for (;;) {
			if (!buf)
				die_input("<stdin>: out of memory");
			size_t got = fread(buf + len, 1, cap - len, stdin);
			len += got;
			if (got == 0)
				break;
			if (len == cap) {
				char *nb = realloc(buf, cap *= 2);
				if (!nb)
					free(buf);
				buf = nb;
			}
		}
		if (ferror(stdin))
			die_input("<stdin>: read error: %s", strerror(errno));
		alloc_sha256_update(&sh, buf, len);
		int r = trace_read_mem("<stdin>", buf, len, &tr, &err);
		free(buf);
		if (r)
			die_input("%s", err.msg);
	} else {
		FILE *f = fopen(path, "rb");
		if (!f)
			die_input("%s: cannot open: %s", path, strerror(errno));
		char buf[1 << 16];
		size_t got;
		while ((got = fread(buf, 1, sizeof buf, f)) > 0)
			alloc_sha256_update(&sh, buf, got);
		int bad = ferror(f);
		fclose(f);
		if (bad)
			die_input("%s: read error", path);
		if (trace_read_file(path, &tr, &err))
			die_input("%s", err.msg);
	}
	alloc_sha256_final(&sh, hex);
	return tr;
}

struct prog_state {
	int shown;
};

static int on_progress(void *arg, const struct alloc_progress *p)
{
	struct prog_state *ps = arg;
	char b[64] = "-";
	if (p->have_best)
		sim_time_format_dec(p->best, b, sizeof b);
	fprintf(stderr, "\r%s: %s: %" PRIu64 " tests, best %s, %.1f s\033[K",
	        prog, p->algorithm, p->tests, b, p->elapsed);
	fflush(stderr);
	ps->shown = 1;
	return 0;
}

/*
 * The judgement of Paper VII and the lower bound (bound/): computed before
 * the search so that it can stop at the lower bound.  Returns 0 and fills
 * *br, or -1 (then the binding file has no bound/lower lines).
 */
static int judge(const struct trace *tr, const struct alloc_params *par,
                 struct bound_result *br)
{
	return bound_for_trace(tr, par->sim.cpus, par->sim.latency, br) == BOUND_OK ? 0 : -1;
}

/* The lower bound valid for the model the search used, as printed. */
static const char *lower_for(const struct bound_result *br, enum sim_model m,
                             char *buf, size_t len)
{
	if (m == SIM_CLIENT_SERVER) {
		snprintf(buf, len, "%" PRIu64, br->lower_any);
		return buf;
	}
	return br->lower_str;
}

/* The binding file as text (trace_binding_write), malloc'd. */
static char *binding_text(const struct trace *tr, const struct trace_binding *b,
                          size_t *len)
{
	char *raw = NULL;
	FILE *m = open_memstream(&raw, len);
	if (!m)
		return NULL;
	int bad = trace_binding_write(tr, b, m) != 0;
	if (fclose(m) != 0 || bad) {
		free(raw);
		return NULL;
	}
	return raw;
}

/* Write text to path through a temporary in the same directory. */
static int write_atomic(const char *path, const char *text, size_t len)
{
	size_t pl = strlen(path);
	char *tmp = malloc(pl + 16);
	if (!tmp)
		return -1;
	snprintf(tmp, pl + 16, "%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	int bad = !f;
	if (f) {
		bad = fwrite(text, 1, len, f) != len;
		bad |= fflush(f) != 0;
		bad |= fsync(fd) != 0;
		bad |= fclose(f) != 0;
	} else {
		close(fd);
	}
	if (!bad)
		bad = rename(tmp, path) != 0;
	int e = errno;
	if (bad)
		unlink(tmp);
	free(tmp);
	errno = e;
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *val[O_NOPTS] = {0};
	const char *out_path = NULL, *config = NULL;
	int quiet = 0, no_bound = 0, opt;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":k:a:o:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case O_HELP:
			usage(stdout);
			return 0;
		case O_LIST:
			for (size_t i = 0; i < alloc_algorithm_count(); i++)
				printf("%-11s %s\n", alloc_algorithm_name(i),
				       alloc_algorithm_summary(i));
			return 0;
		case O_QUIET:
			quiet = 1;
			break;
		case O_NOBOUND:
			no_bound = 1;
			break;
		case O_OUT:
			out_path = optarg;
			break;
		case O_CONFIG:
			config = optarg;
			break;
		case ':':
			die_usage("%s needs a value", argv[optind - 1]);
			break;
		case '?':
			die_usage("unknown option '%s'", argv[optind - 1]);
			break;
		default:
			val[opt] = optarg;
		}
	}
	if (optind >= argc)
		die_usage("no trace given");
	if (optind + 1 < argc)
		die_usage("one trace only ('%s' is extra)", argv[optind + 1]);
	const char *trace_path = argv[optind];

	struct alloc_params par;
	alloc_params_init(&par);
	par.sim.cpus = 0; /* required */
	if (config)
		load_config(config, &par);
	apply_options(val, &par);
	if (par.sim.cpus == 0)
		die_usage("--cpus is required (or [machine] cpus in --config)");

	char hex[65];
	struct trace *tr = read_trace(trace_path, hex);
	struct sim_program *sp = sim_program_new(tr);
	if (!sp)
		die_input("%s: out of memory", trace_path);

	struct bound_result br;
	int judged = no_bound ? -1 : judge(tr, &par, &br);
	if (judged == 0 && par.lower.num == 0)
		par.lower = sim_time_int(br.lower_any); /* valid for every model */

	struct prog_state ps = {0};
	if (!quiet && isatty(2)) {
		par.progress = on_progress;
		par.progress_arg = &ps;
		par.progress_interval = 0.2;
	}
	struct alloc_result res;
	int r = alloc_run(sp, &par, &res);
	if (ps.shown)
		fprintf(stderr, "\r\033[K");
	if (r == ALLOC_DEADLOCK) {
		fprintf(stderr, "%s: the program deadlocks under every binding "
		        "tried (%" PRIu64 " tests)\n", trace_path, res.tests);
		alloc_result_release(&res);
		sim_program_free(sp);
		trace_free(tr);
		return 3;
	}
	if (r != ALLOC_OK) {
		const char *why = r == ALLOC_ENOMEM ? "out of memory"
		                  : r == ALLOC_ESIM ? "the simulator failed on every "
		                    "binding (exact-time overflow)"
		                  : "invalid parameters";
		sim_program_free(sp);
		trace_free(tr);
		die_input("%s: %s", trace_path, why);
	}

	char ms[64], tline[4200];
	sim_time_format(res.makespan, ms, sizeof ms);
	const char *path_copy = strcmp(trace_path, "-") == 0 ? "-" : trace_path;
	char *pc = strdup(path_copy);
	snprintf(tline, sizeof tline, "%s sha256:%s", pc ? basename(pc) : "-",
	         hex);
	free(pc);
	struct trace_binding b = {
		.cpus = res.cpus,
		.n = res.nthreads,
		.proc = res.binding,
		.makespan = ms,
		.unit = (char *)trace_unit_name(tr->unit),
		.algorithm = (char *)res.algorithm,
		.trace = tline,
	};
	char extra[128], lower_buf[48];
	snprintf(extra, sizeof extra, "tests %" PRIu64 "\nmodel %s", res.tests,
	         sim_model_name(res.model));
	b.extra = extra;
	if (judged == 0) {
		b.bound = br.bound_str;
		b.lower = (char *)lower_for(&br, res.model, lower_buf, sizeof lower_buf);
	}
	size_t len = 0;
	char *text = binding_text(tr, &b, &len);
	if (!text)
		die_input("%s: cannot format the binding", trace_path);
	if (out_path) {
		if (write_atomic(out_path, text, len) != 0)
			die_input("%s: cannot write: %s", out_path, strerror(errno));
	} else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
		die_input("<stdout>: write error: %s", strerror(errno));
	}
	free(text);

	if (!quiet) {
		char bp[64] = "deadlock", one[64] = "?", mk[64];
		if (res.binpack_status == SIM_OK)
			sim_time_format_dec(res.binpack, bp, sizeof bp);
		sim_time_format_dec(res.makespan, mk, sizeof mk);
		double m = sim_time_to_double(res.makespan);
		char speed[512] = "";
		if (res.serial_status == SIM_OK && m > 0) {
			sim_time_format_dec(res.serial, one, sizeof one);
			snprintf(speed, sizeof speed, ", speedup %.2f over 1 cpu (%s)",
			         sim_time_to_double(res.serial) / m, one);
		}
		char gain[128] = "";
		if (res.binpack_status == SIM_OK && m > 0)
			snprintf(gain, sizeof gain, " (%.2fx)",
			         sim_time_to_double(res.binpack) / m);
		fprintf(stderr, "%s: %s on %u cpus: makespan %s, binpack %s%s%s; "
		        "%" PRIu64 " tests, %.2f s, %s\n", prog, res.algorithm,
		        res.cpus, mk, bp, gain, speed, res.tests, res.seconds,
		        alloc_stop_name(res.stop));
		if (judged == 0) {
			double lo = strtod(b.lower, NULL);
			char pct[64] = "at the lower bound (optimal)";
			if (m > lo && lo > 0)
				snprintf(pct, sizeof pct, "%.1f%% above the lower bound %s",
				         100.0 * (m - lo) / lo, b.lower);
			fprintf(stderr, "%s: %s; %s\n", prog, pct,
			        m > br.bound ? "above the analytic bound: a better allocation exists"
			                     : "below the analytic bound");
		}
	}
	alloc_result_release(&res);
	sim_program_free(sp);
	trace_free(tr);
	return 0;
}
