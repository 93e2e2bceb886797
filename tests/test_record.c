/*
 * test_record.c - the recorder (bin/shadowbind-record with
 * libshadowbind-record.so) and the launcher (bin/shadowbind-run), black
 * box, on the example programs of examples/programs/ (built into
 * $(BUILD)/examples/, found next to this test's own directory).
 *
 * Expected values come from the programs themselves (each prints what it
 * did: `counts threads N <op> N ...`, counted with its own atomic
 * counters), from the trace reader of trace/ (validity: the spec's replay)
 * and from the kernel (sched_getaffinity in the recorded program), never
 * from the recorder's own bookkeeping.  Sizes are small: the whole file
 * runs in a few seconds.
 */
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim/sim.h"
#include "tests/testutil.h"
#include "trace/trace.h"

static char g_ex[PATH_MAX + 16]; /* examples directory */
static char g_dir[PATH_MAX]; /* scratch directory  */

static int setup(void **state)
{
	(void)state;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	char *s = strrchr(self, '/');
	*s = 0; /* .../tests */
	s = strrchr(self, '/');
	*s = 0;
	snprintf(g_ex, sizeof g_ex, "%s/examples", self);
	snprintf(g_dir, sizeof g_dir, "/tmp/sbrecXXXXXX");
	return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void need_example(const char *name)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", g_ex, name);
	if (access(p, X_OK) != 0)
		fail_msg("example program %s not built (make builds it into $(BUILD)/examples)", p);
}

/* ---- recording the examples ---- */

struct example {
	const char *name, *args; /* small sizes */
};

static const struct example examples[] = {
	{ "sieve", "60 20" },
	{ "prodcons", "20" },
	{ "quicksort", "200000" },
	{ "forkjoin", "5 300 3" },
	{ "workqueue", "60 100 3" },
	{ "cxxpool", "40 100 3" },
	/* OpenMP (libgomp), docs/record.md "OpenMP" */
	{ "ompbarrier", "10 100 2" },
	{ "ompdynamic", "30 50 3 2" },
	{ "ompcritical", "300 20 2" },
	{ "omptasks", "4 100 3" },
};

/* Count the records of each operation in the trace. */
static void op_counts(const struct trace *tr, long *c)
{
	memset(c, 0, TRACE_NOPS * sizeof *c);
	for (size_t i = 0; i < tr->nrec; i++)
		c[tr->rec[i].op]++;
}

/* Compare the program's `counts` line with the trace. */
static void check_counts(const char *name, const char *out, const struct trace *tr)
{
	const char *line = strstr(out, "counts ");
	if (!line)
		fail_msg("%s printed no counts line:\n%s", name, out);
	long c[TRACE_NOPS];
	op_counts(tr, c);
	char word[32];
	long v, want[TRACE_NOPS];
	int off, given[TRACE_NOPS] = { 0 };
	const char *p = line + 7;
	int checked = 0;
	while (sscanf(p, "%31s %ld%n", word, &v, &off) == 2) {
		p += off;
		if (!strcmp(word, "threads")) {
			if ((long)tr->nthreads != v)
				fail_msg("%s: %ld threads, trace has %u", name, v, tr->nthreads);
			checked++;
			continue;
		}
		int op = -1;
		for (int k = 0; k < TRACE_NOPS; k++)
			if (!strcmp(trace_ops[k].name, word))
				op = k;
		if (op < 0)
			fail_msg("%s: unknown count '%s'", name, word);
		want[op] = v;
		given[op] = 1;
		checked++;
		if (*p == '\n' || !*p)
			break;
	}
	/* A condition wait that returns without a wake-up the recorder
	 * counted (spurious) is recorded as `unlock` where it began and
	 * `lock` where it returned (docs/record.md): s such waits move s
	 * from cwait to lock and add s unlocks.  Programs without timed
	 * waits have no other difference. */
	long s = 0;
	if (given[TRACE_CWAIT] && given[TRACE_LOCK]) {
		s = c[TRACE_LOCK] - want[TRACE_LOCK];
		if (s < 0 || c[TRACE_SLEEP] != 0)
			fail_msg("%s: %ld locks recorded, the program did %ld", name, c[TRACE_LOCK],
			         want[TRACE_LOCK]);
		if (s)
			print_message("%s: %ld condition waits recorded as not woken\n", name, s);
		want[TRACE_LOCK] += s;
		want[TRACE_CWAIT] -= s;
		if (given[TRACE_UNLOCK])
			want[TRACE_UNLOCK] += s;
	}
	for (int op = 0; op < TRACE_NOPS; op++)
		if (given[op] && c[op] != want[op])
			fail_msg("%s: the program did %ld %s, the trace has %ld (%ld spurious)", name,
			         want[op], trace_ops[op].name, c[op], s);
	assert_true(checked >= 3);
	/* every thread has exactly one exit */
	assert_int_equal(c[TRACE_EXIT], tr->nthreads);
}

static struct trace *record(const char *prog, const char *args, const char *out_name,
                            char **out, int want_status)
{
	char *err = NULL;
	need_example(prog);
	int st = tu_cmdf("shadowbind-record", out, &err, "-o '%s/%s' -- '%s/%s' %s", g_dir,
	                 out_name, g_ex, prog, args);
	if (st != want_status)
		fail_msg("shadowbind-record %s %s: status %d (want %d): %s", prog, args, st,
		         want_status, err);
	if (!strstr(err, "shadowbind-record: trace "))
		fail_msg("no summary line: %s", err);
	free(err);
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", g_dir, out_name);
	struct trace *tr;
	struct trace_error e;
	if (trace_read_file(path, &tr, &e) < 0)
		fail_msg("recorded trace of %s is not valid: %s", prog, e.msg);
	return tr;
}

static void test_examples(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
		const struct example *x = &examples[i];
		char *out = NULL;
		struct trace *tr = record(x->name, x->args, "ex.trace", &out, 0);
		assert_int_equal(tr->unit, TRACE_NS);
		check_counts(x->name, out, tr);
		/* simulates without deadlock under the auto scheme, bound to
		 * one processor and unbound on two */
		struct sim_program *p = sim_program_new(tr);
		struct sim_work *w = sim_work_new(p);
		assert_non_null(p);
		assert_non_null(w);
		for (int k = 1; k <= 2; k++) {
			struct sim_params par;
			sim_params_init(&par);
			par.cpus = (uint32_t)k;
			par.model = SIM_AUTO;
			int32_t *bind = NULL;
			if (k == 1) {
				bind = calloc(tr->nthreads, sizeof *bind);
				assert_non_null(bind);
			} else {
				par.mode = SIM_UNBOUND;
			}
			struct sim_result res;
			int rc = sim_run(p, w, &par, bind, 0, &res);
			if (rc != SIM_OK)
				fail_msg("%s: simulation on %d processor(s) returned %d", x->name, k, rc);
			/* one processor: at least the total work */
			if (k == 1)
				assert_true(sim_time_cmp(res.makespan, sim_time_int(trace_total_work(tr))) >= 0);
			free(bind);
		}
		sim_work_free(w);
		sim_program_free(p);
		trace_free(tr);
		free(out);
	}
}

/* Signals before waits, signals without the mutex, broadcasts, timed
 * waits that time out: 200 recordings, every one valid, each with the
 * program's signal/broadcast/create/join counts. */
static void test_condvar_stress(void **state)
{
	(void)state;
	need_example("cvstress");
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/cv.trace", g_dir);
	for (int run = 0; run < 200; run++) {
		char *out = NULL;
		struct trace *tr = record("cvstress", run % 2 ? "12" : "20", "cv.trace", &out, 0);
		check_counts("cvstress", out, tr);
		trace_free(tr);
		free(out);
	}
}

/* The program ends while threads run or block: exit(), SIGTERM, SIGINT
 * still give a valid trace whose running threads end with an exit and a
 * comment; _exit gives a clear error and no file. */
static void test_abrupt(void **state)
{
	(void)state;
	static const struct { const char *how; int status; } cases[] = {
		{ "exit", 0 }, { "term", 128 + 15 }, { "int", 128 + 2 },
	};
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/ab.trace", g_dir);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *out = NULL;
		unlink(path);
		struct trace *tr = record("abrupt", cases[i].how, "ab.trace", &out, cases[i].status);
		assert_int_equal(tr->nthreads, 4);
		trace_free(tr);
		char *text = tu_slurp(path, NULL);
		assert_non_null(text);
		/* threads 2, 3, 4 were still running */
		for (int t = 2; t <= 4; t++) {
			char note[96];
			snprintf(note, sizeof note, "# thread %d was still running at process exit", t);
			if (!strstr(text, note))
				fail_msg("%s: no note for thread %d:\n%s", cases[i].how, t, text);
		}
		free(text);
		free(out);
	}
	unlink(path);
	char *out = NULL, *err = NULL;
	int st = tu_cmdf("shadowbind-record", &out, &err, "-o '%s' -- '%s/abrupt' _exit", path, g_ex);
	assert_int_equal(st, 4);
	assert_non_null(strstr(err, "wrote no trace"));
	assert_int_not_equal(access(path, F_OK), 0);
	free(out);
	free(err);
}

/* ---- the launcher ---- */

/* The OS CPUs this process may use (the launcher's identity map takes the
 * p-th of them for logical processor p). */
static int allowed_cpus(int *cpu, int max)
{
	cpu_set_t s;
	if (sched_getaffinity(0, sizeof s, &s) != 0)
		return 0;
	int n = 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &s))
			cpu[n++] = c;
	return n;
}

/* Run `affinity 3` (threads 1..4) under `binding`, with the launcher and
 * then recorded bound (shadowbind-record --binding); check each thread's
 * affinity is the single CPU want[t-1], and that the bound recording is a
 * valid trace of the 4 threads. */
static void run_affinity(const char *binding, const int *want)
{
	char *bpath = tu_tmpfile(binding);
	need_example("affinity");
	for (int rec = 0; rec < 2; rec++) {
		char *out = NULL, *err = NULL;
		int st = rec ? tu_cmdf("shadowbind-record", &out, &err,
		                       "--binding '%s' -o '%s/affb.trace' -- '%s/affinity' 3", bpath,
		                       g_dir, g_ex)
		             : tu_cmdf("shadowbind-run", &out, &err,
		                       "--binding '%s' -- '%s/affinity' 3", bpath, g_ex);
		if (st != 0)
			fail_msg("%s: status %d: %s", rec ? "shadowbind-record" : "shadowbind-run", st,
			         err);
		for (int t = 1; t <= 4; t++) {
			char line[64];
			snprintf(line, sizeof line, "thread %d cpus %d\n", t, want[t - 1]);
			if (!strstr(out, line))
				fail_msg("%s: want '%s' in:\n%s", rec ? "recording" : "launcher", line,
				         out);
		}
		if (rec) {
			char path[PATH_MAX + 64];
			snprintf(path, sizeof path, "%s/affb.trace", g_dir);
			struct trace *tr;
			struct trace_error e;
			if (trace_read_file(path, &tr, &e) < 0)
				fail_msg("bound recording is not valid: %s", e.msg);
			assert_int_equal(tr->nthreads, 4);
			trace_free(tr);
			unlink(path);
		}
		free(out);
		free(err);
	}
	unlink(bpath);
	free(bpath);
}

static void test_pinning(void **state)
{
	(void)state;
	int cpu[CPU_SETSIZE];
	int n = allowed_cpus(cpu, CPU_SETSIZE);
	assert_true(n >= 1);
	if (n >= 2) {
		/* threads alternate between processors 0 and 1 */
		int want[4] = { cpu[0], cpu[1], cpu[0], cpu[1] };
		run_affinity("shadowbind-binding 1\ncpus 2\n1 0\n2 1\n3 0\n4 1\n", want);
		/* the map line: processor 0 on the second CPU, 1 on the first */
		char b[256];
		snprintf(b, sizeof b, "shadowbind-binding 1\ncpus 2\nmap %d %d\n1 0\n2 1\n3 1\n4 0\n",
		         cpu[1], cpu[0]);
		int want2[4] = { cpu[1], cpu[0], cpu[0], cpu[1] };
		run_affinity(b, want2);
	} else {
		print_message("one CPU only: pinning checked on one processor\n");
	}
	int want1[4] = { cpu[0], cpu[0], cpu[0], cpu[0] };
	run_affinity("shadowbind-binding 1\ncpus 1\n1 0\n2 0\n3 0\n4 0\n", want1);

	/* --unbound: every thread may use every allowed CPU */
	char *out = NULL, *err = NULL;
	assert_int_equal(tu_cmdf("shadowbind-run", &out, &err, "--unbound -- '%s/affinity' 2", g_ex), 0);
	char all[4096] = "";
	size_t k = 0;
	for (int i = 0; i < n && k + 12 < sizeof all; i++)
		k += (size_t)snprintf(all + k, sizeof all - k, "%s%d", i ? "," : "", cpu[i]);
	char line[4200];
	snprintf(line, sizeof line, "thread 3 cpus %s\n", all);
	assert_non_null(strstr(out, line));
	free(out);
	free(err);
}

struct run_error {
	const char *name;
	const char *binding; /* %d: the number of available CPUs + 1 */
	int status;
	const char *err_has;
	int ran;             /* the program printed something */
};

static const struct run_error run_errors[] = {
	/* the program creates threads 2..4; the binding names 1..2 */
	{ "too many threads", "shadowbind-binding 1\ncpus 1\n1 0\n2 0\n", 2,
	  "the program creates thread 3, which the binding does not name", 0 },
	{ "too few cpus", "shadowbind-binding 1\ncpus %d\n1 0\n2 0\n3 0\n4 0\n", 2,
	  "processors, but only", 0 },
	{ "shadow", "shadowbind-binding 1\ncpus 1\n1 0\n2 shadow\n3 0\n4 0\n", 2,
	  "shadow processor", 0 },
	{ "bad binding", "shadowbind-binding 1\ncpus 1\n1 0\n2 3\n", 2, ":4:", 0 },
};

static void test_run_errors(void **state)
{
	(void)state;
	int cpu[CPU_SETSIZE];
	int n = allowed_cpus(cpu, CPU_SETSIZE);
	for (size_t i = 0; i < sizeof run_errors / sizeof *run_errors; i++) {
		const struct run_error *c = &run_errors[i];
		char b[512];
		snprintf(b, sizeof b, c->binding, n + 1);
		char *bpath = tu_tmpfile(b);
		char *out = NULL, *err = NULL;
		int st = tu_cmdf("shadowbind-run", &out, &err, "--binding '%s' -- '%s/affinity' 3",
		                 bpath, g_ex);
		if (st != c->status || !strstr(err, c->err_has))
			fail_msg("%s: status %d, stderr: %s", c->name, st, err);
		/* affinity prints only after all threads ran: nothing */
		assert_string_equal(out, "");
		unlink(bpath);
		free(bpath);
		free(out);
		free(err);
	}
	/* usage errors */
	char *out = NULL, *err = NULL;
	assert_int_equal(tu_cmdf("shadowbind-run", &out, &err, "-- true"), 1);
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("shadowbind-record", &out, &err, "--frobnicate -- true"), 1);
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("shadowbind-record", &out, &err, "-- /nonexistent/prog"), 2);
	free(out);
	free(err);
}

/* --trace numbers threads by their creator as recorded: a binding for
 * the recorded run of `affinity 2` applies to `affinity 2`; `affinity 3`
 * creates a thread the recorded main thread did not: exit 2. */
static void test_tree(void **state)
{
	(void)state;
	char *out = NULL;
	struct trace *tr = record("affinity", "2", "aff.trace", &out, 0);
	assert_int_equal(tr->nthreads, 3);
	trace_free(tr);
	free(out);
	int cpu[CPU_SETSIZE];
	assert_true(allowed_cpus(cpu, CPU_SETSIZE) >= 1);
	char *bpath = tu_tmpfile("shadowbind-binding 1\ncpus 1\n1 0\n2 0\n3 0\n");
	char *err = NULL;
	int st = tu_cmdf("shadowbind-run", &out, &err, "--binding '%s' --trace '%s/aff.trace' -- '%s/affinity' 2",
	                 bpath, g_dir, g_ex);
	if (st != 0)
		fail_msg("status %d: %s", st, err);
	char line[64];
	snprintf(line, sizeof line, "thread 3 cpus %d\n", cpu[0]);
	assert_non_null(strstr(out, line));
	free(out);
	free(err);
	st = tu_cmdf("shadowbind-run", &out, &err, "--binding '%s' --trace '%s/aff.trace' -- '%s/affinity' 3",
	             bpath, g_dir, g_ex);
	assert_int_equal(st, 2);
	assert_non_null(strstr(err, "thread 1 creates its thread number 3, which it did not create in the recorded run"));
	free(out);
	free(err);
	unlink(bpath);
	free(bpath);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_condvar_stress),
		cmocka_unit_test(test_abrupt),
		cmocka_unit_test(test_pinning),
		cmocka_unit_test(test_run_errors),
		cmocka_unit_test(test_tree),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
