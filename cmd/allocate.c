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
#include <pthread.h>
#include <signal.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/alloc.h"
#include "bound/bound.h"
#include "cli/cli.h"
#include "cmd/common.h"
#include "cli/ini.h"
#include "cli/json.h"
#include "cli/out.h"
#include "sim/sim.h"
#include "trace/trace.h"
#include "viz/viz.h"

static const char *prog = "allocate";

static void die_input(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void load_config(const char *path, struct alloc_params *par)
{
	struct cli_ini ini;
	char err[600];
	if (cli_ini_read(path, &ini, err, sizeof err) != 0)
		die_input("%s", err);
	int r = alloc_config_apply(&ini, par, err, sizeof err);
	cli_ini_release(&ini);
	if (r)
		die_input("%s", err);
}

/* Why the search stopped, one word each, for the `stopped` header line
 * and --json (a signal turns ALLOC_STOP_CANCELLED into "interrupted"). */
static const char *const stop_words[] = {
	[ALLOC_STOP_DONE] = "done",
	[ALLOC_STOP_CRITERION] = "criterion",
	[ALLOC_STOP_TESTS] = "max-tests",
	[ALLOC_STOP_TIME] = "time-limit",
	[ALLOC_STOP_LOWER] = "lower-bound",
	[ALLOC_STOP_EXHAUSTED] = "exhausted",
	[ALLOC_STOP_CANCELLED] = "interrupted",
};

static const char *stop_word(enum alloc_stop s)
{
	return (size_t)s < sizeof stop_words / sizeof *stop_words && stop_words[s]
	       ? stop_words[s] : "unknown";
}

struct prog_state {
	int show;        /* a progress line on the terminal              */
	int shown;
	double last;     /* elapsed at the last line shown; units: s     */
	int fd;          /* --progress-fd, or -1                         */
};

/* Called every 50 ms of the search: stops it on SIGINT/SIGTERM, shows the
 * progress line (5 times a second) and writes --progress-fd's line. */
static int on_progress(void *arg, const struct alloc_progress *p)
{
	struct prog_state *ps = arg;
	char b[64] = "-";
	if (p->have_best)
		sim_time_format_dec(p->best, b, sizeof b);
	if (ps->fd >= 0) {
		char line[160];
		int n = snprintf(line, sizeof line, "progress %" PRIu64 " %s %.3f\n",
		                 p->tests, b, p->elapsed);
		if (n > 0 && write(ps->fd, line, (size_t)n) < 0)
			ps->fd = -1;
	}
	if (ps->show && (!ps->shown || p->elapsed - ps->last >= 0.2)) {
		fprintf(stderr, "\r%s: %s: %" PRIu64 " tests, best %s, %.1f s\033[K",
		        prog, p->algorithm, p->tests, b, p->elapsed);
		fflush(stderr);
		ps->shown = 1;
		ps->last = p->elapsed;
	}
	return cli_interrupted() != 0;
}

/* --trajectory: one CSV row per test, the best complete makespan so far. */
struct trajectory {
	FILE *f;
	uint64_t tests;
	int have;
	sim_time best;
};

static void on_test(void *arg, const int32_t *binding, uint32_t n, int status,
                    sim_time makespan)
{
	struct trajectory *t = arg;
	t->tests++;
	int complete = 1;
	for (uint32_t i = 0; i < n && complete; i++)
		complete = binding[i] != TRACE_SHADOW;
	if (complete && status == SIM_OK &&
	    (!t->have || sim_time_cmp(makespan, t->best) < 0)) {
		t->best = makespan;
		t->have = 1;
	}
	char b[64] = "";
	if (t->have)
		sim_time_format(t->best, b, sizeof b);
	fprintf(t->f, "%" PRIu64 ",%s\n", t->tests, b);
}

/*
 * The judgement of Paper VII and the lower bound (bound/).  The lower
 * bound is computed before the search, so that the search can stop at it;
 * Paper VII's bound is only reported, so on a machine with more than one
 * CPU it is computed on a thread of its own while the search runs
 * (judge_finish waits for it).  The two share only the read-only trace,
 * and the bound's limits are work counts, so its value does not depend on
 * which way it ran.
 */
struct judge {
	const struct trace *tr;
	uint32_t k;
	uint64_t latency;          /* trace units */
	struct bound_trace_opts o;
	struct bound_result *br;
	int rc;                    /* BOUND_OK or the failure */
	int threaded;              /* th runs the upper half */
	pthread_t th;
};

static void *judge_upper(void *arg)
{
	struct judge *j = arg;
	j->rc = bound_for_trace_upper(j->tr, j->k, j->latency, &j->o, j->br);
	return NULL;
}

/* Starts the judgement: 0 with the lower bound in *br (the analytic bound
 * maybe still being computed), or -1 (no bound/lower lines). */
static int judge_start(struct judge *j, const struct trace *tr, const struct alloc_params *par,
                       int full, struct bound_result *br)
{
	memset(j, 0, sizeof *j);
	j->tr = tr;
	j->k = par->sim.cpus;
	j->latency = par->sim.latency;
	j->br = br;
	/* a tenth of the search's work (bound_trace_opts_budget), or as
	 * bin/bound computes it (--full-bound) */
	bound_trace_opts_budget(&j->o, tr, par->sim.cpus,
	                        full ? 0 : par->max_tests ? par->max_tests
	                                                  : alloc_default_budget(tr));
	if (full)
		j->o.max_work = BOUND_WORK_DEFAULT;
	else if (par->time_limit > 0 && !par->max_tests)
		j->o.max_seconds = par->time_limit / 10; /* the search is timed anyway */
	j->rc = bound_for_trace_lower(tr, j->k, j->latency, &j->o, br);
	if (j->rc != BOUND_OK)
		return -1;
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1 && pthread_create(&j->th, NULL, judge_upper, j) == 0)
		j->threaded = 1;
	else
		judge_upper(j);
	return 0;
}

/* Waits for the analytic bound: 0 when *br is complete, else -1. */
static int judge_finish(struct judge *j)
{
	if (j->threaded)
		pthread_join(j->th, NULL);
	j->threaded = 0;
	return j->rc == BOUND_OK ? 0 : -1;
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

/* --json: the result as one object (the same writer as simulate's and
 * bound's --json). */
static void write_json(FILE *f, const struct trace *tr, const struct alloc_result *res,
                       const struct trace_binding *b, const struct bound_result *br,
                       const char *stopped)
{
	struct cli_json j;
	char t[64];
	cli_json_init(&j, f);
	cli_json_object(&j);
	cli_json_key(&j, "algorithm");
	cli_json_str(&j, res->algorithm);
	cli_json_key(&j, "cpus");
	cli_json_u64(&j, res->cpus);
	cli_json_key(&j, "unit");
	cli_json_str(&j, trace_unit_name(tr->unit));
	cli_json_key(&j, "makespan");
	cli_json_number(&j, sim_time_format(res->makespan, t, sizeof t));
	cli_json_key(&j, "binpack");
	if (res->binpack_status == SIM_OK)
		cli_json_number(&j, sim_time_format(res->binpack, t, sizeof t));
	else
		cli_json_null(&j);
	cli_json_key(&j, "serial");
	if (res->serial_status == SIM_OK)
		cli_json_number(&j, sim_time_format(res->serial, t, sizeof t));
	else
		cli_json_null(&j);
	cli_json_key(&j, "bound");
	cli_json_number(&j, br ? b->bound : NULL);
	cli_json_key(&j, "lower");
	cli_json_number(&j, br ? b->lower : NULL);
	if (br && br->capped) {
		cli_json_key(&j, "bound_search");
		cli_json_str(&j, bound_cap_name(br->capped));
	}
	cli_json_key(&j, "tests");
	cli_json_u64(&j, res->tests);
	cli_json_key(&j, "simulations");
	cli_json_u64(&j, res->sims);
	cli_json_key(&j, "seconds");
	cli_json_double(&j, res->seconds);
	cli_json_key(&j, "model");
	cli_json_str(&j, sim_model_name(res->model));
	cli_json_key(&j, "stopped");
	cli_json_str(&j, stopped);
	if (res->enumerated) {
		cli_json_key(&j, "complete");
		cli_json_bool(&j, res->complete);
	}
	cli_json_key(&j, "trace");
	cli_json_str(&j, b->trace);
	cli_json_key(&j, "binding");
	cli_json_array(&j);
	for (uint32_t i = 0; i < res->nthreads; i++) {
		cli_json_object(&j);
		cli_json_key(&j, "thread");
		cli_json_u64(&j, tr->threads[i].id);
		cli_json_key(&j, "name");
		cli_json_str(&j, trace_thread_name(tr, i));
		cli_json_key(&j, "cpu");
		cli_json_i64(&j, res->binding[i]);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	cli_json_end(&j);
}

static int algorithm_opt(void *dst, const char *v, char *why, size_t len)
{
	if (alloc_algorithm_find(v) < 0) {
		snprintf(why, len, "is not an algorithm (see --list-algorithms)");
		return -1;
	}
	*(const char **)dst = v;
	return 0;
}

/* The header lines of the binding file say what they are (comments). */
static const struct {
	const char *key, *comment;
} header_notes[] = {
	{"makespan", "predicted completion time of this binding, trace units"},
	{"bound", "upper bound on the best binding's makespan (Paper VII)"},
	{"lower", "proven lower bound: no binding's makespan is below it"},
	{"tests", "allocations simulated by the search"},
	{"model", "the simulation model every test used"},
	{"stopped", "why the search stopped"},
	{"complete", "exhaustive enumeration stopped before the end"},
	{"bound_search", "the bound's search was capped: a weaker upper bound"},
};

/* text with the notes appended to its header lines; malloc'd (NULL: out
 * of memory).  Stops at the first blank line (the end of the header). */
static char *annotate(const char *text, size_t len, size_t *outlen)
{
	size_t cap = len + 1024;
	char *o = malloc(cap);
	if (!o)
		return NULL;
	size_t n = 0;
	int header = 1;
	for (const char *p = text; p < text + len;) {
		const char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
		memcpy(o + n, p, l);
		n += l;
		if (l == 0)
			header = 0;
		for (size_t i = 0; header && i < sizeof header_notes / sizeof *header_notes; i++) {
			size_t kl = strlen(header_notes[i].key);
			if (l > kl && memcmp(p, header_notes[i].key, kl) == 0 && p[kl] == ' ') {
				int w = snprintf(o + n, cap - n, "%*s# %s",
				                 l < 20 ? (int)(20 - l) : 2, "",
				                 header_notes[i].comment);
				n += (size_t)w;
			}
		}
		if (nl)
			o[n++] = '\n';
		p += l + (nl ? 1 : 0);
	}
	*outlen = n;
	return o;
}

int main(int argc, char **argv)
{
	cli_omp_passive(argv);
	const char *out_path = NULL, *config = NULL, *algorithm = NULL;
	const char *traj_path = NULL;
	int quiet = 0, no_bound = 0, full_bound = 0, list = 0, json = 0, explain = 0;
	uint32_t progress_fd = 0;
	uint32_t restarts = 0;
	uint64_t seed = 0, max_tests = 0, stop_after = 0;
	double time_limit = 0;
	struct cmd_machine M;
	cmd_machine_init(&M, NULL);
	struct cli_opt opts[] = {
		CMD_MACHINE_OPTS(&M, CLI_M_ALL & ~CLI_M_BIT(BINDING) & ~CLI_M_BIT(UNBOUND)),
		{CLI_TEXT, .help = "allocate --model auto applies Paper VIII's scheme\n"
		                   "once, to binpacking's allocation, and the whole\n"
		                   "search uses the model it chose; --cpus is required\n"
		                   "here or in --config"},
		{CLI_GROUP, .help = "Search"},
		{CLI_FUNC, "algorithm", 'a', .metavar = "NAME", .dst = &algorithm,
		 .fn = algorithm_opt, .help = "see --list-algorithms (default auto)"},
		{CLI_U64, "seed", .metavar = "S", .dst = &seed,
		 .help = "random seed (default 1)"},
		{CLI_U64, "max-tests", .dst = &max_tests,
		 .help = "test budget (default: depends on the trace)"},
		{CLI_U64, "stop-after", .dst = &stop_after,
		 .help = "greedy/dsg: stop after N tests without\n"
		         "improvement (default 100; 0 never)"},
		{CLI_U32, "restarts", .dst = &restarts,
		 .help = "dsg: at most N restarts (default 0: unlimited); rgreedy: N runs (0: 10)"},
		{CLI_SECONDS, "time-limit", .dst = &time_limit,
		 .help = "stop searching after SEC seconds (the result\n"
		         "then depends on the machine's speed)"},
		{CLI_STR, "config", .dst = &config,
		 .help = "INI file: [machine] and [search] keys, as in\n"
		         "examples/allocate.ini; options override it"},
		{CLI_GROUP, .help = "Output"},
		{CLI_STR, "output", 'o', .dst = &out_path,
		 .help = "write the binding to FILE (atomically)"},
		{CLI_FLAG, "quiet", 'q', .dst = &quiet,
		 .help = "no progress line, no summary"},
		{CLI_FLAG, "explain", .dst = &explain,
		 .help = "then, on stderr, the top causes of waiting on the\n"
		         "critical path under the binding found and the\n"
		         "busiest processor's share (docs/viz.md)"},
		{CLI_FLAG, "no-bound", .dst = &no_bound,
		 .help = "leave out the bound and lower header lines\n"
		         "(Paper VII's bound and the lower bound)"},
		{CLI_FLAG, "full-bound", .dst = &full_bound,
		 .help = "compute the bound and lower lines as bin/bound\n"
		         "does, however long it takes (default: at most a\n"
		         "tenth of the search's work; `bound_search` says\n"
		         "when that cap weakened the bound)"},
		{CLI_FLAG, "json", .dst = &json,
		 .help = "write one JSON object instead of the binding file:\n"
		         "the binding, makespan, binpacking's makespan, bound,\n"
		         "lower bound, tests, time, model, why it stopped"},
		{CLI_STR, "trajectory", .dst = &traj_path,
		 .help = "write the best makespan after each test as CSV\n"
		         "(test,best_makespan; empty before the first complete\n"
		         "binding) to FILE: gain-vs-tests curves from one run"},
		{CLI_U32, "progress-fd", .metavar = "FD", .dst = &progress_fd, .min = 0,
		 .max = 1024,
		 .help = "write `progress TESTS BEST SECONDS` lines to file\n"
		         "descriptor FD as the search goes (for scripts)"},
		{CLI_FLAG, "list-algorithms", .dst = &list,
		 .help = "the algorithms, one per line"},
		{CLI_END}};
	const struct cli_cmd cmd = {
		.name = "allocate",
		.usage = "--cpus K [options] TRACE",
		.about = "Find the binding of TRACE's threads to K processors with the shortest\n"
		         "simulated completion time; write it as a binding file\n"
		         "(docs/binding-format.md).  TRACE may be - (standard input) or a pipe.",
		.opts = opts,
		.exit3 = "the program deadlocks under every binding tried",
		.epilog = "SIGINT or SIGTERM stops the search: the best binding found so far is\n"
		          "written (header `stopped interrupted`) and the exit status is 130\n"
		          "(SIGINT) or 143 (SIGTERM); a second signal exits at once, writing\n"
		          "nothing and removing temporaries.",
	};
	int nops, prc = cli_parse(&cmd, argc, argv, &nops);
	if (prc != CLI_CONTINUE)
		return prc;
	if (list) {
		for (size_t i = 0; i < alloc_algorithm_count(); i++)
			printf("%-11s %s\n", alloc_algorithm_name(i),
			       alloc_algorithm_summary(i));
		return 0;
	}
	if (nops == 0)
		return cli_usage(&cmd, "no trace given");
	if (nops > 1)
		return cli_usage(&cmd, "one trace only ('%s' is extra)", argv[2]);
	const char *trace_path = argv[1];

	struct alloc_params par;
	alloc_params_init(&par);
	par.sim.cpus = 0; /* required */
	if (config)
		load_config(config, &par);
#define GIVEN(name) (cli_find(&cmd, name)->given)
	if (algorithm)
		snprintf(par.algorithm, sizeof par.algorithm, "%s", algorithm);
	if (GIVEN("seed"))
		par.seed = seed;
	if (GIVEN("max-tests"))
		par.max_tests = max_tests;
	if (GIVEN("stop-after"))
		par.stop_after = stop_after;
	if (GIVEN("restarts"))
		par.restarts = restarts;
	if (GIVEN("time-limit"))
		par.time_limit = time_limit;
	if (par.sim.cpus == 0 && M.m.cpus == 0)
		return cli_usage(&cmd, "--cpus is required (or [machine] cpus in --config)");

	/* Until the search: a signal exits at once (reading a trace from a
	 * terminal or a pipe that never ends must stay interruptible). */
	cli_signals_install(CLI_SIG_EXIT);
	/* Read the trace once: hash the bytes parsed. */
	char hex[65], why[600];
	char *bytes = NULL;
	size_t nbytes = 0;
	int rc = cli_slurp(trace_path, &bytes, &nbytes, why, sizeof why);
	if (rc != CLI_OK)
		return cli_errorf(rc, "%s", why);
	struct trace_sha256 sh;
	trace_sha256_init(&sh);
	trace_sha256_update(&sh, bytes, nbytes);
	trace_sha256_final(&sh, hex);
	struct trace *tr = NULL;
	struct trace_error terr;
	rc = trace_read_mem(cli_input_name(trace_path), bytes, nbytes, &tr, &terr);
	free(bytes);
	if (rc)
		return cli_errorf(CLI_EINPUT, "%s", terr.msg);
	if ((rc = cmd_machine_load(&M, &cmd, tr, &par.sim)) != CLI_OK) {
		trace_free(tr);
		return rc;
	}
	struct sim_program *sp = sim_program_new(tr);
	if (!sp)
		die_input("%s: out of memory", trace_path);
	struct sim_pool *pool = NULL;
	if ((rc = cmd_pool_open(&M, &cmd, sp, trace_path, &par.sim, &pool)) != CLI_OK) {
		sim_program_free(sp);
		trace_free(tr);
		return rc;
	}
	if (pool)
		no_bound = 1; /* the bound and the lower bound fix each thread's work */

	struct bound_result br;
	/* From here on a first signal stops the search cleanly. */
	cli_signals_install(CLI_SIG_FLAG);
	struct judge jd;
	int judged = no_bound ? -1 : judge_start(&jd, tr, &par, full_bound, &br);
	if (judged == 0 && par.lower.num == 0)
		par.lower = sim_time_int(br.lower_any); /* valid for every model */

	struct prog_state ps = {.show = !quiet && isatty(2), .fd = -1};
	if (cli_find(&cmd, "progress-fd")->given)
		ps.fd = (int)progress_fd;
	par.progress = on_progress;
	par.progress_arg = &ps;
	par.progress_interval = 0.05;
	struct trajectory traj = {0};
	struct cli_out tout = {0};
	if (traj_path) {
		if (cli_out_open(&tout, traj_path, why, sizeof why) != 0)
			die_input("%s", why);
		traj.f = tout.f;
		fputs("test,best_makespan\n", traj.f);
		par.observe = on_test;
		par.observe_arg = &traj;
	}
	struct alloc_result res;
	int r = alloc_run(sp, &par, &res);
	if (judged == 0)
		judged = judge_finish(&jd);
	if (ps.shown)
		fprintf(stderr, "\r\033[K");
	int sig = cli_interrupted();
	if (traj_path && (r == ALLOC_OK || r == ALLOC_DEADLOCK)) {
		if (cli_out_commit(&tout, why, sizeof why) != 0)
			die_input("%s", why);
	} else if (traj_path) {
		cli_out_abort(&tout);
	}
	if (r == ALLOC_DEADLOCK) {
		fprintf(stderr, "%s: the program deadlocks under every binding "
		        "tried (%" PRIu64 " tests)\n", trace_path, res.tests);
		alloc_result_release(&res);
		sim_pool_free(pool);
		sim_program_free(sp);
		trace_free(tr);
		return 3;
	}
	if (r != ALLOC_OK) {
		const char *why = r == ALLOC_ENOMEM ? "out of memory"
		                  : r == ALLOC_ESIM ? "the simulator failed on every "
		                    "binding (exact-time overflow)"
		                  : "invalid parameters";
		sim_pool_free(pool);
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
	const char *stopped = res.stop == ALLOC_STOP_CANCELLED && !sig ? "cancelled"
	                      : stop_word(res.stop);
	char extra[320], lower_buf[48], capped[96] = "";
	if (judged == 0 && br.capped)
		snprintf(capped, sizeof capped, "\nbound_search %s", bound_cap_name(br.capped));
	for (char *c = capped; *c; c++)
		if (*c == ' ' && c > capped + 13)
			*c = '-'; /* one word: "stopped-at-time-cap" */
	snprintf(extra, sizeof extra, "tests %" PRIu64 "\nmodel %s\nstopped %s%s%s",
	         res.tests, sim_model_name(res.model), stopped,
	         res.enumerated && !res.complete ? "\ncomplete no" : "", capped);
	b.extra = extra;
	if (judged == 0) {
		b.bound = br.bound_str;
		b.lower = (char *)lower_for(&br, res.model, lower_buf, sizeof lower_buf);
	}
	struct cli_out out;
	if (cli_out_open(&out, out_path, why, sizeof why) != 0)
		die_input("%s", why);
	if (json) {
		write_json(out.f, tr, &res, &b, judged == 0 ? &br : NULL, stopped);
	} else {
		size_t rawlen = 0, len = 0;
		char *raw = binding_text(tr, &b, &rawlen);
		char *text = raw ? annotate(raw, rawlen, &len) : NULL;
		free(raw);
		if (!text) {
			cli_out_abort(&out);
			die_input("%s: cannot format the binding", trace_path);
		}
		fwrite(text, 1, len, out.f);
		free(text);
	}
	if (cli_out_commit(&out, why, sizeof why) != 0)
		die_input("%s", why);

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
		        "%" PRIu64 " tests, %.2f s, %s%s\n", prog, res.algorithm,
		        res.cpus, mk, bp, gain, speed, res.tests, res.seconds,
		        sig && res.stop == ALLOC_STOP_CANCELLED
		        ? (sig == SIGTERM ? "interrupted (SIGTERM)" : "interrupted (SIGINT)")
		        : alloc_stop_name(res.stop),
		        res.enumerated && !res.complete ? "; the enumeration is incomplete" : "");
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
	if (explain && viz_explain_binding(sp, &par.sim, res.binding, res.model, 3, stderr) != VIZ_OK)
		fprintf(stderr, "%s: --explain: the binding's run could not be analysed\n", prog);
	alloc_result_release(&res);
	sim_pool_free(pool);
	sim_program_free(sp);
	trace_free(tr);
	return sig ? cli_signal_status(sig) : 0;
}
