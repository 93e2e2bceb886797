/*
 * allocate - find the binding of threads to processors with the shortest
 * simulated completion time (docs/alloc.md).
 *
 *   allocate --cpus K [options] TRACE
 *
 * Writes a binding file (docs/binding-format.md) to standard output or -o.
 * Exit: 0 ok, 1 usage, 2 bad input (trace, configuration, output), 3 the
 * program deadlocks under every binding tried, 4 out of memory or an
 * internal limit (the simulator's exact times overflow on every binding).
 *
 * main: parse (the command line and --config), load (the trace, hashed;
 * its program), search (with the judgement beside it), write_result and
 * summary.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <inttypes.h>
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

/* The lower bound alone into *br (bound_for_trace_lower): 0, or -1 with
 * the failure in j->rc. */
static int judge_lower(struct judge *j, const struct trace *tr, const struct alloc_params *par,
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
	return j->rc == BOUND_OK ? 0 : -1;
}

/* Starts the judgement: 0 with the lower bound in *br (the analytic bound
 * maybe still being computed), or -1 (no bound/lower lines). */
static int judge_start(struct judge *j, const struct trace *tr, const struct alloc_params *par,
                       int full, struct bound_result *br)
{
	if (judge_lower(j, tr, par, full, br) != 0)
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

/* Why the unbound and advice lines are missing: the unbound run's sim
 * status as one word for the header's `no_unbound` and --json's
 * (docs/alloc.md), and as the verb of stderr's "the unbound run ...";
 * any other status is the last row's.  sim/ has no word table of its own
 * (bound's is bound_errword), so the fact lives here, once. */
static const struct unbound_reason {
	int status;       /* SIM_* */
	const char *word; /* no_unbound's word */
	const char *verb; /* stderr: "the unbound run VERB" */
} unbound_reasons[] = {
	{.status = SIM_DEADLOCK, .word = "deadlock", .verb = "deadlocks"},
	{.status = SIM_EOVERFLOW, .word = "overflow", .verb = "overflows 64-bit exact times"},
	{.status = SIM_ENOMEM, .word = "out-of-memory", .verb = "failed"},
	{.word = "failed", .verb = "failed"}, /* any other status (not matched) */
};

static const struct unbound_reason *unbound_why(int st)
{
	size_t i = 0, last = sizeof unbound_reasons / sizeof *unbound_reasons - 1;
	while (i < last && unbound_reasons[i].status != st)
		i++;
	return &unbound_reasons[i];
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
                       const char *stopped, const char *no_bound)
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
	cli_json_number(&j, b->lower); /* NULL (null) when missing */
	if (no_bound) { /* why bound (and lower) are null (the header's no_bound) */
		cli_json_key(&j, "no_bound");
		cli_json_str(&j, no_bound);
	}
	if (br && br->capped) {
		cli_json_key(&j, "bound_search");
		cli_json_str(&j, bound_cap_name(br->capped));
	}
	if (res->has_unbound) { /* under a machine file (the header's unbound) */
		cli_json_key(&j, "unbound");
		cli_json_number(&j, sim_time_format(res->unbound, t, sizeof t));
		/* the advice of the warning "run it unbound" (docs/alloc.md) */
		cli_json_key(&j, "run_unbound");
		cli_json_bool(&j, res->run_unbound);
	} else if (res->unbound_run) { /* tried, failed: null and why */
		cli_json_key(&j, "unbound");
		cli_json_null(&j);
		cli_json_key(&j, "run_unbound");
		cli_json_null(&j);
		cli_json_key(&j, "no_unbound");
		cli_json_str(&j, unbound_why(res->unbound_status)->word);
	}
	if (res->unbound_run && res->unbound_model != res->model) {
		cli_json_key(&j, "unbound_model");
		cli_json_str(&j, sim_model_name(res->unbound_model));
	}
	cli_json_key(&j, "tests");
	cli_json_u64(&j, res->tests);
	cli_json_key(&j, "simulations");
	cli_json_u64(&j, res->sims);
	cli_json_key(&j, "seconds");
	cli_json_double(&j, res->seconds);
	cli_json_key(&j, "model");
	cli_json_str(&j, sim_model_name(res->model));
	cli_json_key(&j, "binpack_input");
	cli_json_str(&j, alloc_input_name(res->binpack_input));
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

static int binpack_input_opt(void *dst, const char *v, char *why, size_t len)
{
	if (alloc_parse_input(v, dst)) {
		snprintf(why, len, "is not a binpacking input (" ALLOC_INPUT_SYNTAX ")");
		return -1;
	}
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
	{"binpack_input", "what binpacking was told of each thread"},
	{"stopped", "why the search stopped"},
	{"complete", "exhaustive enumeration stopped before the end"},
	{"bound_search", "the bound's search was capped: a weaker upper bound"},
	{"unbound", "predicted left unbound (the OS; --machine)"},
	{"advice", "binding: predicted the margin faster than unbound; unbound: run it unbound"},
	{"unbound_model", "the model of the unbound run (simulate's fallback)"},
	{"no_unbound", "why the unbound and advice lines are missing"},
	{"no_bound", "why bound (and lower, if absent) is missing"},
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

/* ---------------------------------------------------------------------
 * The command line
 */

/* Why allocate computes no analytic bound, in order of precedence (the
 * first that applies is the header's `no_bound` word), and whether the
 * lower bound's parts that hold under every model (the largest thread's
 * work, the partition: bound_result.lower_any) still hold: they do when
 * the model only adds non-negative costs to each thread's recorded work
 * (a machine file's latencies and thread costs, the spinning wait's CPU),
 * not when threads' work moves between them (--pool). */
static const struct no_bound_reason {
	const char *word;  /* the header's no_bound word                 */
	int lower_holds;   /* 1: lower_any stays a proven lower bound    */
	const char *text;  /* stderr: "no analytic bound: TEXT"          */
} no_bound_reasons[] = {
	{.word = "option", .lower_holds = 0, .text = "--no-bound"},
	{.word = "pool", .lower_holds = 0,
	 .text = "--pool moves work between threads, which the bounds fix"},
	{.word = "machine", .lower_holds = 1,
	 .text = "Paper VII's bound knows one latency and no machine file's costs"},
	{.word = "spin", .lower_holds = 1,
	 .text = "Paper VII's bound knows no spinning wait's CPU"},
};

/* The options as given (file scope: the option table points into it). */
static struct args {
	struct cmd_machine M;
	const char *out_path, *config, *algorithm, *traj_path, *trace_path;
	int quiet, no_bound, full_bound, list, json, explain;
	const struct no_bound_reason *why; /* why no analytic bound, or NULL */
	uint32_t progress_fd, restarts;
	uint64_t seed, max_tests, stop_after;
	double time_limit;
	char machine_ini[4096]; /* --config's [machine] machine = FILE, or "" */
	enum alloc_input binpack_input;
} A;

static struct cli_opt opts[] = {
	CMD_MACHINE_OPTS(&A.M, CLI_M_ALL & ~CLI_M_BIT(BINDING) & ~CLI_M_BIT(UNBOUND)),
	{CLI_TEXT, .help = "allocate --model auto applies Paper VIII's scheme\n"
	                   "once, to binpacking's allocation, and the whole\n"
	                   "search uses the model it chose; --cpus is required\n"
	                   "here or in --config"},
	{CLI_GROUP, .help = "Search"},
	{CLI_FUNC, "algorithm", 'a', .metavar = "NAME", .dst = &A.algorithm,
	 .fn = algorithm_opt, .help = "see --list-algorithms (default auto)"},
	{CLI_U64, "seed", .metavar = "S", .dst = &A.seed,
	 .help = "random seed (default 1)"},
	{CLI_U64, "max-tests", .dst = &A.max_tests,
	 .help = "test budget (default: depends on the trace)"},
	{CLI_U64, "stop-after", .dst = &A.stop_after,
	 .help = "greedy/dsg: stop after N tests without\n"
	         "improvement (default 100; 0 never)"},
	{CLI_U32, "restarts", .dst = &A.restarts,
	 .help = "greedy, anneal, tabu, auto: N independent searches,\n"
	         "each with 1/N of the budget, the best kept (under\n"
	         "mpirun dealt over the ranks: the same binding);\n"
	         "dsg: at most N restarts (default 0: unlimited);\n"
	         "rgreedy: N runs (0: 10)"},
	{CLI_SECONDS, "time-limit", .dst = &A.time_limit,
	 .help = "stop searching after SEC seconds (the result\n"
	         "then depends on the machine's speed)"},
	{CLI_FUNC, "binpack-input", .metavar = "IN", .dst = &A.binpack_input,
	 .fn = binpack_input_opt,
	 .help = "what binpacking is told of each thread: work\n"
	         "(default: its CPU work), lifetime (creation to exit\n"
	         "on one processor under fifo, as recorded), elapsed\n"
	         "(start to exit under dynamic scheduling on K\n"
	         "processors); the floor, binpack, csga, SGA's order\n"
	         "and greedy's start use it (docs/alloc.md)"},
	{CLI_STR, "config", .dst = &A.config,
	 .help = "INI file: [machine] and [search] keys, as in\n"
	         "examples/allocate.ini; options override it"},
	{CLI_GROUP, .help = "Output"},
	{CLI_STR, "output", 'o', .dst = &A.out_path,
	 .help = "write the binding to FILE (atomically)"},
	{CLI_FLAG, "quiet", 'q', .dst = &A.quiet,
	 .help = "no progress line, no summary"},
	{CLI_FLAG, "explain", .dst = &A.explain,
	 .help = "then, on stderr, the top causes of waiting on the\n"
	         "critical path under the binding found and the\n"
	         "busiest processor's share (docs/viz.md)"},
	{CLI_FLAG, "no-bound", .dst = &A.no_bound,
	 .help = "leave out the bound and lower header lines\n"
	         "(Paper VII's bound and the lower bound)"},
	{CLI_FLAG, "full-bound", .dst = &A.full_bound,
	 .help = "compute the bound and lower lines as bin/bound\n"
	         "does, however long it takes (default: at most a\n"
	         "tenth of the search's work; `bound_search` says\n"
	         "when that cap weakened the bound)"},
	{CLI_FLAG, "json", .dst = &A.json,
	 .help = "write one JSON object instead of the binding file:\n"
	         "the binding, makespan, binpacking's makespan, bound,\n"
	         "lower bound, tests, time, model, why it stopped"},
	{CLI_STR, "trajectory", .dst = &A.traj_path,
	 .help = "write the best makespan after each test as CSV\n"
	         "(test,best_makespan; empty before the first complete\n"
	         "binding) to FILE: gain-vs-tests curves from one run"},
	{CLI_U32, "progress-fd", .metavar = "FD", .dst = &A.progress_fd, .min = 0,
	 .max = 1024,
	 .help = "write `progress TESTS BEST SECONDS` lines to file\n"
	         "descriptor FD as the search goes (for scripts)"},
	{CLI_FLAG, "list-algorithms", .dst = &A.list,
	 .help = "the algorithms, one per line"},
	{CLI_END}};

static const struct cli_cmd cmd = {
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

static int given(const char *name)
{
	return cli_find(&cmd, name)->given;
}

/* --config FILE into *par: CLI_OK, or CLI_EINPUT after its message. */
static int load_config(const char *path, struct alloc_params *par)
{
	struct cli_ini ini;
	char err[600];
	if (cli_ini_read(path, &ini, err, sizeof err) != 0)
		return cli_errorf(CLI_EINPUT, "%s", err);
	int r = alloc_config_apply(&ini, par, err, sizeof err);
	const struct cli_ini_entry *e = cli_ini_get(&ini, "machine", "machine");
	if (!r && e && snprintf(A.machine_ini, sizeof A.machine_ini, "%s", e->value) >=
	               (int)sizeof A.machine_ini) {
		r = -1;
		snprintf(err, sizeof err, "%s:%zu: [machine] machine: the path is too long",
		         path, e->line);
	}
	cli_ini_release(&ini);
	return r ? cli_errorf(CLI_EINPUT, "%s", err) : CLI_OK;
}

/* Parse the command line and --config into *par (the machine's options
 * wait for the trace: cmd_machine_load).  CLI_CONTINUE, or the exit
 * status (--help, --list-algorithms, a usage error). */
static int parse(int argc, char **argv, struct alloc_params *par)
{
	cmd_machine_init(&A.M, NULL);
	int nops, rc = cli_parse(&cmd, argc, argv, &nops);
	if (rc != CLI_CONTINUE)
		return rc;
	if (A.list) {
		for (size_t i = 0; i < alloc_algorithm_count(); i++)
			printf("%-11s %s\n", alloc_algorithm_name(i),
			       alloc_algorithm_summary(i));
		return CLI_OK;
	}
	if (nops == 0)
		return cli_usage(&cmd, "no trace given");
	if (nops > 1)
		return cli_usage(&cmd, "one trace only ('%s' is extra)", argv[2]);
	A.trace_path = argv[1];
	alloc_params_init(par);
	par->sim.cpus = 0; /* required */
	if (A.config && (rc = load_config(A.config, par)) != CLI_OK)
		return rc;
	if (A.algorithm)
		snprintf(par->algorithm, sizeof par->algorithm, "%s", A.algorithm);
	if (given("seed"))
		par->seed = A.seed;
	if (given("max-tests"))
		par->max_tests = A.max_tests;
	if (given("stop-after"))
		par->stop_after = A.stop_after;
	if (given("restarts"))
		par->restarts = A.restarts;
	if (given("time-limit"))
		par->time_limit = A.time_limit;
	if (given("binpack-input"))
		par->binpack_input = A.binpack_input;
	if (par->sim.cpus == 0 && A.M.m.cpus == 0)
		return cli_usage(&cmd, "--cpus is required (or [machine] cpus in --config)");
	return CLI_CONTINUE;
}

/* ---------------------------------------------------------------------
 * The input: the trace (read once, hashed), its program, the pool
 */

struct input {
	struct trace *tr;
	char hex[65];           /* sha256 of the bytes parsed             */
	struct sim_program *sp;
	struct sim_pool *pool;
};

static void input_release(struct input *in)
{
	sim_pool_free(in->pool);
	sim_program_free(in->sp);
	trace_free(in->tr);
	cmd_machine_release(&A.M);
}

/* Read the trace, the machine's options in its unit into par->sim, the
 * program and --pool.  CLI_OK, or the exit status after the message
 * (nothing held). */
static int load(struct input *in, struct alloc_params *par)
{
	memset(in, 0, sizeof *in);
	/* streaming (never whole in memory): the reader hashes the bytes
	 * it parses */
	struct trace_error terr;
	int rc = trace_read_file_sha256(A.trace_path, &in->tr, in->hex, &terr);
	if (rc)
		return cli_errorf(strstr(terr.msg, ": out of memory") ? CLI_ESYSTEM : CLI_EINPUT, "%s",
		                  terr.msg);
	if ((rc = cmd_machine_load_ini(&A.M, &cmd, in->tr, &par->sim,
	                               A.machine_ini[0] ? A.machine_ini : NULL)) != CLI_OK) {
		input_release(in);
		return rc;
	}
	in->sp = sim_program_new(in->tr);
	if (!in->sp) {
		input_release(in);
		return cli_errorf(CLI_ESYSTEM, "%s: out of memory", A.trace_path);
	}
	rc = cmd_pool_open(&A.M, &cmd, in->sp, A.trace_path, &par->sim, &in->pool);
	if (rc != CLI_OK) {
		input_release(in);
		return rc;
	}
	/* the first reason that applies is the header's no_bound word
	 * (docs/alloc.md); applies[i] is no_bound_reasons[i]'s condition */
	const int applies[] = {A.no_bound, in->pool != NULL, par->sim.machine != 0,
	                       par->sim.spin != 0};
	_Static_assert(sizeof applies / sizeof *applies ==
	               sizeof no_bound_reasons / sizeof *no_bound_reasons,
	               "one condition per no_bound reason");
	A.why = NULL;
	for (size_t i = 0; i < sizeof no_bound_reasons / sizeof *no_bound_reasons && !A.why; i++)
		if (applies[i])
			A.why = &no_bound_reasons[i];
	if (A.M.mm.has_margin)
		par->unbound_margin = A.M.mm.margin; /* the file's advice margin */
	A.no_bound = A.why != NULL;
	return CLI_OK;
}

/* ---------------------------------------------------------------------
 * The search, with the judgement beside it
 */

struct outcome {
	struct alloc_result res;
	int judged;             /* 0: br holds the bound and lower bound  */
	int lower_only;         /* 1: the analytic bound failed after the
	                           lower bound: br's lower bound (the parts
	                           valid under every model) stands alone  */
	int judge_rc;           /* why not (BOUND_*), when judged != 0 and
	                           the bound was asked for                */
	struct bound_result br;
	int sig;                /* the signal that stopped it, or 0       */
};

/* Under mpirun: this process's rank and the number of ranks (the
 * independent searches of --restarts are dealt over them; every rank
 * reads the trace and computes the lower bound, at which the search
 * stops; rank 0 alone writes). */
static int rank, ranks = 1;
static uint32_t searches; /* alloc_restartable: par.restarts, else 0 */

/* Run the search (progress, --trajectory, the judgement).  CLI_OK with
 * *o filled (release o->res), or the exit status after the message. */
static int search(const struct input *in, struct alloc_params *par, struct outcome *o)
{
	memset(o, 0, sizeof *o);
	char why[600];
	/* From here on a first signal stops the search cleanly. */
	cli_signals_install(CLI_SIG_FLAG);
	struct judge jd;
	o->judged = A.no_bound ? -1 : judge_start(&jd, in->tr, par, A.full_bound, &o->br);
	o->judge_rc = A.no_bound ? BOUND_OK : jd.rc;
	/* no analytic bound asked for, but the lower bound holds (a machine
	 * file, spinning): the lower line alone, with no_bound's word; a
	 * failure here leaves both out and says nothing more (the search's
	 * own result stands) */
	if (A.no_bound && A.why->lower_holds && judge_lower(&jd, in->tr, par, A.full_bound, &o->br) == 0)
		o->lower_only = 1;
	if ((o->judged == 0 || o->lower_only) && par->lower.num == 0)
		par->lower = sim_time_int(o->br.lower_any); /* valid for every model */

	struct prog_state ps = {.show = !A.quiet && isatty(2) && rank == 0, .fd = -1};
	if (given("progress-fd") && rank == 0)
		ps.fd = (int)A.progress_fd;
	par->progress = on_progress;
	par->progress_arg = &ps;
	par->progress_interval = 0.05;
	struct trajectory traj = {0};
	struct cli_out tout = {0};
	if (A.traj_path) {
		if (cli_out_open(&tout, A.traj_path, why, sizeof why) != 0) {
			if (o->judged == 0)
				judge_finish(&jd);
			return cli_errorf(CLI_EINPUT, "%s", why);
		}
		traj.f = tout.f;
		fputs("test,best_makespan\n", traj.f);
		par->observe = on_test;
		par->observe_arg = &traj;
	}
	char merr[512] = "";
	int r = alloc_run_ranks(in->sp, par, &o->res, merr, sizeof merr);
	if (o->judged == 0) {
		o->judged = judge_finish(&jd);
		o->judge_rc = jd.rc;
		/* the lower bound was computed (judge_start); the analytic one
		 * failed (out of memory, or more than BOUND_MAX_THREADS
		 * threads): the lower line stays, no_bound says why bound is
		 * missing; lower_str is the lower half's, which holds under
		 * every model (bound_for_trace_upper writes it only on success) */
		o->lower_only = o->judged != 0;
	}
	if (ranks > 1 && (rank != 0 || r < 0)) {
		/* Rank 0 reports every rank's failure (merr names the rank)
		 * and stops the run; the others are done once rank 0 has
		 * their best. */
		if (rank == 0 || r == ALLOC_EMPI) {
			fprintf(stderr, "%s: %s: %s\n", prog, A.trace_path,
			        merr[0] ? merr : cmd_alloc_strerror(r));
			fflush(stderr);
			alloc_mpi_abort(cmd_exit_alloc(r));
		}
		alloc_result_release(&o->res);
		return CLI_OK;
	}
	if (ps.shown)
		fprintf(stderr, "\r\033[K");
	o->sig = cli_interrupted();
	if (A.traj_path && (r == ALLOC_OK || r == ALLOC_DEADLOCK)) {
		if (cli_out_commit(&tout, why, sizeof why) != 0) {
			alloc_result_release(&o->res);
			return cli_errorf(CLI_EINPUT, "%s", why);
		}
	} else if (A.traj_path) {
		cli_out_abort(&tout);
	}
	if (r == ALLOC_DEADLOCK) {
		fprintf(stderr, "%s: the program deadlocks under every binding "
		        "tried (%" PRIu64 " tests)\n", A.trace_path, o->res.tests);
		alloc_result_release(&o->res);
	} else if (r != ALLOC_OK) {
		fprintf(stderr, "%s: %s\n", A.trace_path, cmd_alloc_strerror(r));
	}
	return cmd_exit_alloc(r);
}

/* ---------------------------------------------------------------------
 * The output: the binding file (or --json), the summary on stderr
 */

/* The binding file's fields for o's result; the strings in bufs. */
struct header {
	char ms[64], tline[4200], extra[640], lower[48], capped[96];
	const char *stopped;
	const char *no_bound;   /* why bound and lower are missing, or NULL */
};

static struct trace_binding binding_of(const struct input *in, struct outcome *o,
                                       struct header *h)
{
	const struct alloc_result *res = &o->res;
	sim_time_format(res->makespan, h->ms, sizeof h->ms);
	cmd_trace_line(h->tline, sizeof h->tline, A.trace_path, in->hex);
	struct trace_binding b = {
		.cpus = res->cpus,
		.n = res->nthreads,
		.proc = res->binding,
		.makespan = h->ms,
		.unit = (char *)trace_unit_name(in->tr->unit),
		.algorithm = (char *)res->algorithm,
		.trace = h->tline,
	};
	h->stopped = res->stop == ALLOC_STOP_CANCELLED && !o->sig ? "cancelled"
	             : stop_word(res->stop);
	h->capped[0] = 0;
	if (o->judged == 0 && o->br.capped)
		snprintf(h->capped, sizeof h->capped, "\nbound_search %s",
		         bound_cap_name(o->br.capped));
	for (char *c = h->capped; *c; c++)
		if (*c == ' ' && c > h->capped + 13)
			*c = '-'; /* one word: "stopped-at-time-cap" */
	char unb[160] = "";
	if (res->has_unbound) {
		char u[64];
		snprintf(unb, sizeof unb, "\nunbound %s",
		         sim_time_format(res->unbound, u, sizeof u));
		/* advice: the stderr warning's, for a reader of the file
		 * (docs/alloc.md; issue 25: prodcons's binding, predicted
		 * 0.4% faster, ran 2.3-11.9% slower than the OS); a key of
		 * trace/binding.c's, which shadowbind-run reads */
		b.advice = (char *)(res->run_unbound ? "unbound" : "binding");
	} else if (res->unbound_run) {
		/* tried and failed: say why unbound and advice are missing */
		snprintf(unb, sizeof unb, "\nno_unbound %s", unbound_why(res->unbound_status)->word);
	}
	if (res->unbound_run && res->unbound_model != res->model) {
		/* the unbound run fell back (or not) on its own, as simulate
		 * --unbound does: its model, when not the search's */
		size_t l = strlen(unb);
		snprintf(unb + l, sizeof unb - l, "\nunbound_model %s",
		         sim_model_name(res->unbound_model));
	}
	snprintf(h->extra, sizeof h->extra, "tests %" PRIu64 "\nmodel %s\nbinpack_input %s\n"
	         "stopped %s%s%s%s", res->tests, sim_model_name(res->model),
	         alloc_input_name(res->binpack_input), h->stopped,
	         res->enumerated && !res->complete ? "\ncomplete no" : "", h->capped, unb);
	h->no_bound = o->judged == 0 ? NULL
	              : o->judge_rc != BOUND_OK ? bound_errword(o->judge_rc) : A.why->word;
	if (h->no_bound) {
		/* say why the bound and lower lines are missing (a header line
		 * of its own: the binding writer takes no comment there, and
		 * readers ignore a key they do not know) */
		size_t l = strlen(h->extra);
		snprintf(h->extra + l, sizeof h->extra - l, "\nno_bound %s", h->no_bound);
	}
	b.extra = h->extra;
	if (o->judged == 0) {
		b.bound = o->br.bound_str;
		b.lower = (char *)lower_for(&o->br, res->model, h->lower, sizeof h->lower);
	} else if (o->lower_only) {
		snprintf(h->lower, sizeof h->lower, "%" PRIu64, o->br.lower_any);
		b.lower = h->lower;
	}
	return b;
}

/* Write the binding file (or --json) to -o or standard output, atomically.
 * CLI_OK, or the exit status after the message: a file that cannot be
 * written 2, standard output that cannot be written 4 (as cmd_flush). */
static int write_result(const struct input *in, const struct outcome *o,
                        const struct trace_binding *b, const struct header *h)
{
	char why[600];
	struct cli_out out;
	if (cli_out_open(&out, A.out_path, why, sizeof why) != 0)
		return cli_errorf(CLI_EINPUT, "%s", why);
	if (A.json) {
		write_json(out.f, in->tr, &o->res, b, o->judged == 0 ? &o->br : NULL, h->stopped,
		           h->no_bound);
	} else {
		size_t rawlen = 0, len = 0;
		char *raw = binding_text(in->tr, b, &rawlen);
		char *text = raw ? annotate(raw, rawlen, &len) : NULL;
		free(raw);
		if (!text) {
			cli_out_abort(&out);
			return cli_errorf(CLI_ESYSTEM, "%s: cannot format the binding",
			                  A.trace_path);
		}
		fwrite(text, 1, len, out.f);
		free(text);
	}
	int to_stdout = out.is_stdout;
	if (cli_out_commit(&out, why, sizeof why) != 0)
		return cli_errorf(to_stdout ? CLI_ESYSTEM : CLI_EINPUT, "%s", why);
	return CLI_OK;
}

/* The summary lines on stderr (without --quiet). */
static void summary(const struct outcome *o, const struct trace_binding *b)
{
	const struct alloc_result *res = &o->res;
	char bp[64] = "deadlock", one[64] = "?", mk[64];
	if (res->binpack_status == SIM_OK)
		sim_time_format_dec(res->binpack, bp, sizeof bp);
	sim_time_format_dec(res->makespan, mk, sizeof mk);
	double m = sim_time_to_double(res->makespan);
	char speed[512] = "";
	if (res->serial_status == SIM_OK && m > 0) {
		sim_time_format_dec(res->serial, one, sizeof one);
		snprintf(speed, sizeof speed, ", speedup %.2f over 1 cpu (%s)",
		         sim_time_to_double(res->serial) / m, one);
	}
	char gain[128] = "";
	if (res->binpack_status == SIM_OK && m > 0)
		snprintf(gain, sizeof gain, " (%.2fx)",
		         sim_time_to_double(res->binpack) / m);
	fprintf(stderr, "%s: %s on %u cpus: makespan %s, binpack %s%s%s; "
	        "%" PRIu64 " tests, %.2f s, %s%s\n", prog, res->algorithm,
	        res->cpus, mk, bp, gain, speed, res->tests, res->seconds,
	        o->sig && res->stop == ALLOC_STOP_CANCELLED
	        ? (o->sig == SIGTERM ? "interrupted (SIGTERM)" : "interrupted (SIGINT)")
	        : alloc_stop_name(res->stop),
	        res->enumerated && !res->complete ? "; the enumeration is incomplete" : "");
	if (searches > 1)
		fprintf(stderr, "%s: %u independent searches on %d process(es), "
		        "the best is search %u\n", prog, searches, ranks,
		        res->restart);
	if (res->has_unbound && m > 0) {
		char un[64];
		sim_time_format_dec(res->unbound, un, sizeof un);
		double u = sim_time_to_double(res->unbound), gain = 100.0 * (u - m) / u;
		char um[64] = "";
		if (res->unbound_model != res->model)
			snprintf(um, sizeof um, " under the %s model", sim_model_name(res->unbound_model));
		fprintf(stderr, "%s: unbound (the OS's scheduling) predicted %s%s: the binding %.1f%% %s\n",
		        prog, un, um, gain < 0 ? -gain : gain, gain < 0 ? "slower" : "faster");
		uint32_t most = res->nthreads < res->cpus ? res->nthreads : res->cpus;
		if (res->run_unbound && res->cpus_used < most)
			fprintf(stderr, "%s: warning: the binding puts the threads on %u of %u "
			        "processors, where the OS would use %u; the model does not charge "
			        "what sharing a processor costs beyond the recorded work "
			        "(docs/alloc.md): run it unbound\n", prog, res->cpus_used,
			        res->cpus, most);
		else if (res->run_unbound)
			fprintf(stderr, "%s: warning: the binding is not predicted %g%% faster "
			        "than leaving the program unbound (both predictions can be off "
			        "by the model's error on 2 CPUs): run it unbound\n", prog,
			        res->unbound_margin);
	}
	if (res->unbound_run && !res->has_unbound)
		fprintf(stderr, "%s: no unbound prediction and no advice: the unbound run %s "
		        "(model %s)\n", prog, unbound_why(res->unbound_status)->verb,
		        sim_model_name(res->unbound_model));
	if (o->judged != 0 && !o->lower_only) {
		if (o->judge_rc != BOUND_OK)
			fprintf(stderr, "%s: no bound or lower bound: %s\n", prog, bound_strerror(o->judge_rc));
		return;
	}
	double lo = strtod(b->lower, NULL);
	char pct[64] = "at the lower bound (optimal)";
	if (m > lo && lo > 0)
		snprintf(pct, sizeof pct, "%.1f%% above the lower bound %s",
		         100.0 * (m - lo) / lo, b->lower);
	if (o->lower_only)
		fprintf(stderr, "%s: %s; no analytic bound: %s\n", prog, pct,
		        o->judge_rc != BOUND_OK ? bound_strerror(o->judge_rc) : A.why->text);
	else
		fprintf(stderr, "%s: %s; %s\n", prog, pct,
		        m > o->br.bound ? "above the analytic bound: a better allocation exists"
		                        : "below the analytic bound");
}

/* Under mpirun, a rank that fails before the searches' results are in
 * would leave the others waiting for it: stop them all (its message is
 * out). */
static int stop_ranks(int rc)
{
	if (ranks > 1 && rc != CLI_OK) {
		fflush(stderr);
		alloc_mpi_abort(rc);
	}
	return rc;
}

int main(int argc, char **argv)
{
	cli_omp_passive(argv);
	struct alloc_params par;
	int rc = parse(argc, argv, &par);
	if (rc != CLI_CONTINUE)
		return rc;
	if (alloc_mpi_available() && alloc_mpi_launched()) {
		if (alloc_mpi_init(&argc, &argv, &rank, &ranks) != 0) {
			fprintf(stderr, "%s: MPI_Init failed\n", prog);
			return CLI_ESYSTEM;
		}
		atexit(alloc_mpi_finalize);
	}
	searches = alloc_restartable(&par) ? par.restarts : 0;
	if (ranks > 1 && A.traj_path)
		return cli_usage(&cmd, "--trajectory needs one process (not mpirun)");
	if (ranks > 1 && strcmp(A.trace_path, "-") == 0)
		return cli_usage(&cmd, "the trace - (standard input) needs one process "
		                 "(mpirun gives standard input to rank 0 only)");
	/* Until the search: a signal exits at once (reading a trace from a
	 * terminal or a pipe that never ends must stay interruptible). */
	cli_signals_install(CLI_SIG_EXIT);
	struct input in;
	if ((rc = load(&in, &par)) != CLI_OK)
		return stop_ranks(rc);
	struct outcome o;
	if ((rc = search(&in, &par, &o)) != CLI_OK || rank != 0) {
		input_release(&in);
		return rc;
	}
	struct header h;
	struct trace_binding b = binding_of(&in, &o, &h);
	rc = write_result(&in, &o, &b, &h);
	if (rc == CLI_OK && !A.quiet)
		summary(&o, &b);
	if (rc == CLI_OK && A.explain &&
	    viz_explain_binding(in.sp, &par.sim, o.res.binding, o.res.model, 3, stderr) != VIZ_OK)
		fprintf(stderr, "%s: --explain: the binding's run could not be analysed\n", prog);
	alloc_result_release(&o.res);
	input_release(&in);
	if (rc == CLI_OK && o.sig)
		rc = cli_signal_status(o.sig);
	return rc;
}
