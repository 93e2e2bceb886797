/*
 * test_exp.c - the experiment runner (exp/, bin/experiment): the file
 * reader's errors, CSV rows against hand-computed values, determinism
 * across OpenMP threads, resumption (MPI processes:
 * test_cli_mpi.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "exp/exp.h"
#include "tests/testutil.h"

/* ------------------------------------------------------------------ */
/* The reader: good files and the one-line error of bad ones.          */

static const struct {
	const char *text;
	const char *err; /* NULL: parses; else a substring of the error */
} spec_cases[] = {
	{"[programs]\nfamily = transactions\n[run]\nalgorithms = binpack\n",
	 NULL},
	{"[programs]\nfamily = transactions\nthreads = 4..12/4\n"
	 "[family.transactions]\ngroups = 1, 2\n[machine]\ncpus = 2..4\n"
	 "policy = ps, fifo, rr:100\n[run]\nalgorithms = g\n"
	 "[alg.g]\nalgorithm = greedy\ncheckpoints = 20, 60\n", NULL},
	{"", "needs family"},
	{"[programs]\nfamily = nosuch\n[run]\nalgorithms = binpack\n",
	 "t.ini:2: [programs] family: 'nosuch' is not a family"},
	{"[programs]\nfamily = transactions\n[run]\nalgorithms = nosuch\n",
	 "'nosuch' is not an algorithm"},
	{"[programs]\nfamily = transactions\n[machine]\ncpus = 0\n", "t.ini:4:"},
	{"[programs]\nfamily = transactions\n[machine]\npolicy = random\n",
	 "'random' is not a policy"},
	{"[programs]\nfamily = transactions\n[machine]\nmodel = x\n",
	 "'x' is not a model"},
	{"[programs]\nfamily = transactions\n[machin]\ncpus = 2\n",
	 "t.ini:4: [machin]: unknown section"},
	{"[programs]\nfamily = transactions\ncont = 3\n",
	 "t.ini:3: [programs] cont: unknown key"},
	{"[programs]\nfamily = transactions\n[family.transactions]\n"
	 "groupz = 3\n", "not an option of family transactions"},
	{"[programs]\nfamily = transactions\n[family.pipeline]\nlimit = 30\n"
	 "[run]\nalgorithms = binpack\n", "[family.pipeline] is not in"},
	{"[programs]\nfamily = transactions\n[run]\nalgorithms = a\n"
	 "[alg.a]\nalgorithm = greedy\ncheckpoints = 60, 20\n",
	 "not increasing"},
	{"[programs]\nfamily = transactions\n[family.transactions]\n"
	 "count = 0\n", "t.ini:4: [family.transactions] count: must be at least 1"},
	{"[programs]\nfamily = transactions\n[family.transactions]\n"
	 "seed = 2\n", "set in [programs]"},
	{"this is not ini\n", "t.ini:1: syntax error"},
	{"[programs\n", "t.ini:1: syntax error"},
	{"[programs]\nfamily = transactions,\n", "empty value"},
	{"[programs]\nfamily = transactions\nthreads = 4..x\n", "t.ini:3:"},
	{"[programs]\nfamily = transactions\n[run]\nalgorithms = binpack\n"
	 "unbound = 2\n", "'2' is not 0 or 1"},
	/* The reader is cli's (cli/ini.h) with repeats allowed. */
	{"[programs]\nfamily = transactions\n[run]\nalgorithms = binpack\n"
	 "[plot.p]\nline = a: makespan\nline = b: tests\n", NULL},
	{"[programs]\nfamily = transactions ; inline comment\n[run]\n"
	 "algorithms = binpack\n", NULL},
	{"family = transactions\n", "t.ini:1: key outside any [section]"},
	{"[programs]\nfamily = trans\001actions\n", "t.ini:2: control character"},
	{"[programs]\nfamily = transactions\n[\xc3\xa9]\n",
	 "t.ini:3: syntax error: not a [section] (names: letters, digits, _ - .): "
	 "'[??]'"},
};

static void test_spec(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof spec_cases / sizeof *spec_cases; i++) {
		struct exp_spec *s = calloc(1, sizeof *s);
		assert_non_null(s);
		char err[512] = "";
		int rc = exp_spec_parse(spec_cases[i].text,
		                        strlen(spec_cases[i].text), "t.ini", s, err,
		                        sizeof err);
		if (!spec_cases[i].err) {
			if (rc)
				fail_msg("case %zu: %s", i, err);
		} else {
			if (rc == EXP_OK || !strstr(err, spec_cases[i].err))
				fail_msg("case %zu: got %d '%s', want '%s'", i, rc, err,
				         spec_cases[i].err);
			assert_null(strchr(err, '\n'));
		}
		exp_spec_release(s);
		free(s);
	}
}

/* Ranges, lists and the job count: 3 thread counts x 2 groups x 2
 * programs = 12 programs; 3 cpus x 3 policies = 9 machines. */
static void test_jobs(void **state)
{
	(void)state;
	const char *t = "[programs]\nfamily = transactions\nthreads = 4..12/4\n"
	                "count = 2\n[family.transactions]\ngroups = 1, 2\n"
	                "[machine]\ncpus = 2..4\npolicy = ps, fifo, rr:100\n"
	                "[run]\nalgorithms = binpack, g\nunbound = 1\n"
	                "[alg.g]\nalgorithm = greedy\ncheckpoints = 20, 60\n";
	struct exp_spec *s = calloc(1, sizeof *s);
	char err[512];
	assert_int_equal(exp_spec_parse(t, strlen(t), "t.ini", s, err,
	                                sizeof err), EXP_OK);
	assert_string_equal(s->output, "t.csv");
	assert_string_equal(s->name, "t");
	struct exp_jobs j;
	assert_int_equal(exp_jobs_make(s, &j, err, sizeof err), EXP_OK);
	assert_int_equal(j.nprog, 12);
	assert_int_equal(j.nconf, 9);
	assert_int_equal(j.njobs, 108);
	/* binpack, g@20, g@60, g, unbound */
	assert_int_equal(j.rows_per_job, 5);
	char o[128];
	/* Options outermost, then threads, then the index: program 2
	 * (0-based) is groups 1, threads 8, index 1; program 6 is groups 2,
	 * threads 4, index 1. */
	assert_string_equal(exp_prog_options(s, &j.prog[2], o, sizeof o),
	                    "groups=1");
	assert_int_equal(j.prog[2].threads, 8);
	assert_int_equal(j.prog[2].index, 1);
	assert_string_equal(exp_prog_options(s, &j.prog[6], o, sizeof o),
	                    "groups=2");
	assert_int_equal(j.prog[6].threads, 4);
	assert_int_equal(j.prog[6].seed, j.prog[0].seed);
	assert_int_equal(j.conf[8].sim.cpus, 4);
	assert_int_equal(j.conf[8].sim.policy, SIM_RR);
	assert_int_equal(j.conf[8].sim.quantum, 100);
	exp_jobs_release(&j);
	exp_spec_release(s);

	/* A family's own count: transactions 2 thread counts x 3, pipeline
	 * 2 limits x 1 (a program without randomness: one per cell). */
	const char *t2 = "[programs]\nfamily = transactions, pipeline\n"
	                 "count = 3\n[family.transactions]\nthreads = 4, 8\n"
	                 "[family.pipeline]\ncount = 1\nlimit = 20, 30\n"
	                 "[run]\nalgorithms = binpack\n";
	assert_int_equal(exp_spec_parse(t2, strlen(t2), "t.ini", s, err,
	                                sizeof err), EXP_OK);
	assert_int_equal(exp_jobs_make(s, &j, err, sizeof err), EXP_OK);
	assert_int_equal(j.nprog, 8);
	assert_int_equal(j.prog[5].index, 3);
	assert_int_equal(j.prog[6].index, 1);
	assert_int_equal(j.prog[7].index, 1);
	assert_string_equal(exp_prog_options(s, &j.prog[7], o, sizeof o),
	                    "limit=30");
	exp_jobs_release(&j);
	exp_spec_release(s);
	free(s);
}

/* ------------------------------------------------------------------ */
/* Helpers.                                                            */

static char *tmpdir(void)
{
	char *d = strdup("/tmp/test_exp.XXXXXX");
	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static void rmtree(const char *d)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Field `col` (0-based) of the CSV row whose `algorithm` column (10) is
 * alg and whose options column (2) is opt, into buf. */
static const char *field(const char *csv, const char *opt, const char *alg,
                         int col, char *buf, size_t len)
{
	const char *l = strchr(csv, '\n');
	buf[0] = 0;
	while (l && l[1]) {
		l++;
		const char *e = strchr(l, '\n');
		char row[1024];
		size_t n = (size_t)(e - l) < sizeof row - 1 ? (size_t)(e - l)
		                                             : sizeof row - 1;
		memcpy(row, l, n);
		row[n] = 0;
		char *f[32];
		int nf = 0;
		char *p = row;
		f[nf++] = p;
		while ((p = strchr(p, ',')) && nf < 32) {
			*p++ = 0;
			f[nf++] = p;
		}
		if (nf > col && strcmp(f[2], opt) == 0 && strcmp(f[10], alg) == 0) {
			snprintf(buf, len, "%s", f[col]);
			return buf;
		}
		l = e;
	}
	return buf;
}

enum { C_THREADS = 3, C_MS = 11, C_TESTS = 12, C_STOP = 13, C_BINPACK = 14,
       C_SERIAL = 15, C_LOWER = 17, C_GAP = 18 };

/* Two independent threads of work 100 and 50 created by main (0 work). */
static const char two_text[] =
	"shadowbind-trace 1\n"
	"thread 1 main\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 100 exit\n"
	"1 0 join 2\n"
	"3 50 exit\n"
	"1 0 join 3\n"
	"1 0 exit\n";

/*
 * Hand-computed rows on 2 processors, latency 0, ps, Direct.
 *
 * binpack-worst-case.trace (Paper IV Sect. 3, l = 1000, e = 10; the
 * trace's own comment and docs/alloc.md's worked example):
 *   binpack {main,T1,T2} / {T3,T4}: T3 and T4 wait for T1 and T2, which
 *     share a processor: 1030 + 1000, then 1010 + 1020: 4060, 1 test;
 *   sga: 8 tests (Fig. 3: P(P+1)/2 - 1 + P(T-P) = 2 + 6 = 8 for T = 5,
 *     P = 2), {main,T1,T4} / {T2,T3}: 2050, after alloc's binpacking floor
 *     (docs/alloc.md: binpacking's allocation tested first; not among
 *     sga's, which never tests T3 with T4 alone): 9 tests;
 *   sga raw (SGA's own allocation, Paper IV): the same 2050;
 *   csga: the floor is its binpacking test: 9 tests, 2050;
 *   exhaustive: every partition of 5 threads into at most 2 sets,
 *     S(5,1) + S(5,2) = 1 + 15 = 16 tests; the best is 2050 (no binding
 *     can do better: T4 starts after T1's 1030 and runs 1020);
 *   serial (1 processor): all the work, 1030 + 1000 + 1010 + 1020 = 4060;
 *   unbound (2 processors shared dynamically): T1 and T2 run at once
 *     (T2 ends at 1000, T1 at 1030), then T3 and T4 at once: 1030 + 1020
 *     = 2050;
 *   lower: the partition bound 4060 / 2 = 2030 ({T1,T2} / {T3,T4} splits
 *     it exactly); the critical-path part drops the semaphores (each is
 *     waited on by two threads, docs/bound.md), leaving the longest
 *     thread 1030; so 2030, and sga's gap 2050 / 2030 - 1 = 0.0099.
 * two.trace: binpack puts thread 2 (100) on one processor, thread 3 (50)
 *   and main (0) on the other: 100; serial 150; unbound 100; lower
 *   max(100, 150 / 2) = 100, gap 0.
 *   rgreedy raw (its runs alone, without the floor): the 4 canonical
 *   allocations (S(3,1) + S(3,2)) are {all} 150, {main} / {T2,T3} 150,
 *   {T2} / {main,T3} 100 (binpack's, the floor) and {T3} / {main,T2}
 *   100; each is one move or swap from every other, so the runs, which
 *   go on until 64 + 8nk draws in a row find nothing untested, test the
 *   three after the floor (a miss has probability (5/6)^112 < 1e-8):
 *   their best is 100.
 */
/* The experiment file ini loaded and run (default options) into *st;
 * fails the test on an error.  The spec is the caller's (release and
 * free it). */
static struct exp_spec *load_and_run(const char *ini, struct exp_run_stats *st)
{
	struct exp_spec *s = calloc(1, sizeof *s);
	assert_non_null(s);
	char err[512];
	assert_int_equal(exp_spec_load(ini, s, err, sizeof err), EXP_OK);
	struct exp_run_opts o = {0};
	if (exp_run(s, &o, st, err, sizeof err))
		fail_msg("%s", err);
	return s;
}

/* The hand experiment of the two programs above in a new temporary
 * directory (returned; its file in ini), run through exp_run. */
static char *hand_experiment(char *ini, size_t inilen)
{
	char *d = tmpdir();
	char tdir[512], p[512];
	snprintf(tdir, sizeof tdir, "%s/traces", d);
	assert_int_equal(mkdir(tdir, 0755), 0);
	size_t len;
	char *wc = tu_slurp(tu_root("examples/binpack-worst-case.trace", p,
	                            sizeof p), &len);
	assert_non_null(wc);
	put_file(tdir, "worst.trace", wc);
	free(wc);
	put_file(tdir, "two.trace", two_text);
	char text[1024];
	snprintf(text, sizeof text,
	         "[programs]\ntraces = %s\n[machine]\ncpus = 2\n"
	         "[run]\nalgorithms = binpack, sga, csga, exhaustive, sgaraw, "
	         "rgraw\n"
	         "unbound = 1\nbound = 1\n[alg.exhaustive]\nmax_tests = 100\n"
	         "checkpoints = 1, 16\n"
	         "[alg.sgaraw]\nalgorithm = sga\nraw = 1\n"
	         "[alg.rgraw]\nalgorithm = rgreedy\nraw = 1\nmax_tests = 100\n"
	         "restarts = 2\nstop_after = 0\n",
	         tdir);
	put_file(d, "hand.ini", text);
	snprintf(ini, inilen, "%s/hand.ini", d);
	struct exp_run_stats st;
	struct exp_spec *s = load_and_run(ini, &st);
	assert_int_equal(st.jobs, 2);
	assert_int_equal(st.computed, 2);
	exp_spec_release(s);
	free(s);
	return d;
}

static void test_hand_rows(void **state)
{
	(void)state;
	char ini[600], buf[64], csvpath[640];
	char *d = hand_experiment(ini, sizeof ini);
	snprintf(csvpath, sizeof csvpath, "%s/hand.csv", d);
	char *csv = tu_slurp(csvpath, NULL);
	assert_non_null(csv);
	static const struct {
		const char *prog, *alg;
		int col;
		const char *want;
	} rows[] = {
		{"worst.trace", "binpack", C_MS, "4060"},
		{"worst.trace", "binpack", C_TESTS, "1"},
		{"worst.trace", "sga", C_MS, "2050"},
		{"worst.trace", "sga", C_TESTS, "9"},
		{"worst.trace", "sgaraw", C_MS, "2050"},
		{"two.trace", "sgaraw", C_MS, "100"},
		{"two.trace", "rgraw", C_MS, "100"},
		{"worst.trace", "csga", C_MS, "2050"},
		{"worst.trace", "csga", C_TESTS, "9"},
		{"worst.trace", "exhaustive", C_MS, "2050"},
		{"worst.trace", "exhaustive", C_TESTS, "16"},
		{"worst.trace", "unbound", C_MS, "2050"},
		{"worst.trace", "sga", C_BINPACK, "4060"},
		{"worst.trace", "sga", C_SERIAL, "4060"},
		{"worst.trace", "sga", C_THREADS, "5"},
		{"worst.trace", "sga", C_LOWER, "2030"},
		{"worst.trace", "sga", C_GAP, "0.0099"},
		{"worst.trace", "binpack", C_GAP, "1.0000"},
		{"two.trace", "binpack", C_MS, "100"},
		{"two.trace", "unbound", C_MS, "100"},
		{"two.trace", "binpack", C_SERIAL, "150"},
		{"two.trace", "binpack", C_LOWER, "100"},
		{"two.trace", "binpack", C_GAP, "0.0000"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		field(csv, rows[i].prog, rows[i].alg, rows[i].col, buf, sizeof buf);
		if (strcmp(buf, rows[i].want) != 0)
			fail_msg("%s %s column %d: got '%s', want '%s'",
			         rows[i].prog, rows[i].alg, rows[i].col, buf,
			         rows[i].want);
	}
	/* 2 programs x 9 rows (2 checkpoints) + header. */
	assert_int_equal(tu_count_lines(csv), 19);
	free(csv);
	rmtree(d);
	free(d);
}

/* The report of the hand experiment (needs gnuplot for the SVGs): the
 * binpack/sga ratio per program is 4060/2050 = 1.980 and 100/100 = 1,
 * mean 1.490, min 1, 2 programs; sga worse than binpacking on neither
 * (frac<1 = 0). */
static void test_hand_report(void **state)
{
	(void)state;
	char *o1 = NULL, *e1 = NULL;
	int have = tu_run("command -v gnuplot >/dev/null", &o1, &e1) == 0;
	free(o1);
	free(e1);
	if (!have) {
		print_message("test_hand_report: gnuplot absent (make deps installs "
		              "gnuplot-nox): SKIPPED the report\n");
		skip();
	}
	char ini[600], err[512];
	char *d = hand_experiment(ini, sizeof ini);
	{
		FILE *f = fopen(ini, "a");
		assert_non_null(f);
		fputs("[plot.r]\ntitle = t\nx = cpus\nxlabel = processors\n"
		      "ylabel = ratio\nwhere = algorithm=sga\n"
		      "line = mean: binpack/makespan\n"
		      "line = min: binpack/makespan min\n"
		      "line = worse: binpack/makespan frac<1\n"
		      "[plot.ck]\ntitle = c\nx = checkpoint\nxlabel = tests\n"
		      "ylabel = ms\nline = ex: makespan @ algorithm~exhaustive@\n",
		      f);
		fclose(f);
		put_file(d, "REPORT.md.in", "# R\n@TABLE:hand/r@\n@PLOT:hand/r@\n"
		         "@TABLE:hand/ck@\n"
		         "@PLOT:hand/nosuch@ @ left alone\n"
		         "cell @CELL:hand/r/2/mean@ of @CELL:hand/r/2/n@; "
		         "@CELL:hand/nosuch/2/mean@\n");
		char rep[600];
		snprintf(rep, sizeof rep, "%s/REPORT.md", d);
		if (exp_report(d, rep, err, sizeof err))
			fail_msg("%s", err);
		char *r = tu_slurp(rep, NULL);
		assert_non_null(r);
		assert_non_null(strstr(r, "| processors | mean | min | worse | n |"));
		assert_non_null(strstr(r, "| 2 | 1.490 | 1.000 | 0.000 | 2 |"));
		assert_non_null(strstr(r, "![hand/r](./plots/hand-r.svg)"));
		assert_non_null(strstr(r, "*(no data for hand/nosuch"));
		assert_non_null(strstr(r, "@ left alone"));
		/* x = checkpoint: exhaustive's best after 1 test (the floor:
		 * binpack, 4060 and 100) and after 16 (worst: all 16
		 * partitions, 2050; two: its 4 partitions, 100): means 2080
		 * and 1075. */
		assert_non_null(strstr(r, "| tests | ex | n |\n|---|---|---|\n"
		                          "| 1 | 2080.000 | 2 |\n"
		                          "| 16 | 1075.000 | 2 |\n"));
		assert_non_null(strstr(r, "cell 1.490 of 2; *(no data for hand/nosuch)*"));
		free(r);
		/* A cell the table does not have: an error naming it, the
		 * report left as it was. */
		static const char *const bad[] = {"@CELL:hand/r/3/mean@",
		                                  "@CELL:hand/r/2/max@",
		                                  "@CELL:hand/r/2@"};
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			put_file(d, "REPORT.md.in", bad[i]);
			assert_int_not_equal(exp_report(d, rep, err, sizeof err), 0);
			assert_non_null(strstr(err, bad[i]));
			r = tu_slurp(rep, NULL);
			assert_non_null(strstr(r, "cell 1.490 of 2"));
			free(r);
		}
		snprintf(rep, sizeof rep, "%s/plots/hand-r.svg", d);
		r = tu_slurp(rep, NULL);
		assert_non_null(r);
		assert_non_null(strstr(r, "<svg"));
		free(r);
	}
	rmtree(d);
	free(d);
}

/* ------------------------------------------------------------------ */
/* Determinism and resumption, through the command.                   */

static const char small_ini[] =
	"[programs]\nfamily = transactions, forkjoin\nthreads = 6, 9\n"
	"count = 3\n[family.forkjoin]\nphases = 3\n"
	"[machine]\ncpus = 2, 3\nlatency = 0, 20\n"
	"[run]\nalgorithms = binpack, csga, g, dsg\nunbound = 1\n"
	"[alg.g]\nalgorithm = greedy\nmax_tests = 60\nstop_after = 0\n"
	"checkpoints = 20, 40\n[alg.dsg]\nmax_tests = 80\n";

static char *run_cmd(const char *env, const char *ini, const char *csv)
{
	char *out = NULL, *er = NULL;
	char bin[512];
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s '%s' -q '%s'", env,
	         tu_bin("experiment", bin, sizeof bin), ini);
	int rc = tu_run(cmd, &out, &er);
	if (rc != 0)
		fail_msg("%s: exit %d: %s", cmd, rc, er ? er : "");
	free(out);
	free(er);
	char *text = tu_slurp(csv, NULL);
	assert_non_null(text);
	return text;
}

/* docs/exp.md: the CSV is in job order, "programs (family, option
 * combination, threads, index), then machines (cpus, latency, policy,
 * model)", each job's rows together.  For small_ini the order is
 * computed here by nested loops over the file's own lists (not from
 * exp_jobs_make): job j's key columns (family, options, threads,
 * program, cpus, latency) must be those of the j-th iteration, and every
 * job has the same 7 algorithm rows, in the same order. */
static void check_job_order(const char *csv)
{
	static const char *const fam[] = {"transactions", "forkjoin"};
	static const char *const opts[] = {"", "phases=3"}; /* [family.forkjoin] */
	static const int threads[] = {6, 9}, cpus[] = {2, 3}, lat[] = {0, 20};
	static const char *const algs[] = {"binpack", "csga", "g@20", "g@40", "g", "dsg",
	                                   "unbound"};
	const char *l = strchr(csv, '\n'); /* after the header */
	assert_non_null(l);
	char order0[7][32] = {{0}};
	int job = 0;
	for (int f = 0; f < 2; f++)
		for (int t = 0; t < 2; t++)
			for (int idx = 1; idx <= 3; idx++)
				for (int c = 0; c < 2; c++)
					for (int a = 0; a < 2; a++, job++) {
						char key[128];
						snprintf(key, sizeof key, "%d,%s,%s,%d,%d,", job, fam[f],
						         opts[f], threads[t], idx);
						for (int r = 0; r < 7; r++) {
							l++;
							char row[1024];
							const char *e = strchr(l, '\n');
							assert_non_null(e);
							snprintf(row, sizeof row, "%.*s", (int)(e - l), l);
							l = e;
							/* job,family,options,threads,program,seed,cpus,latency,
							 * policy,model,algorithm,... */
							char *fld[12];
							int nf = 0;
							for (char *p = row; p && nf < 12; nf++) {
								fld[nf] = p;
								p = strchr(p, ',');
								if (p)
									p++;
							}
							assert_int_equal(nf, 12);
							char mach[64], alg[32];
							snprintf(mach, sizeof mach, "%d,%d,ps,direct,", cpus[c],
							         lat[a]);
							snprintf(alg, sizeof alg, "%.*s",
							         (int)strcspn(fld[10], ","), fld[10]);
							if (strncmp(row, key, strlen(key)) ||
							    strncmp(fld[6], mach, strlen(mach)))
								fail_msg("CSV row %d of job %d is not in job order "
								         "(want %s...%s...): %s", r, job, key, mach,
								         fld[0]);
							if (job == 0)
								snprintf(order0[r], sizeof order0[r], "%s", alg);
							else if (strcmp(alg, order0[r]))
								fail_msg("job %d row %d: %s, job 0 had %s", job, r,
								         alg, order0[r]);
						}
					}
	assert_int_equal(job, 48);
	assert_string_equal(l, "\n"); /* nothing after job 47 */
	/* job 0 has each algorithm once */
	for (int a = 0; a < 7; a++) {
		int n = 0;
		for (int r = 0; r < 7; r++)
			n += strcmp(order0[r], algs[a]) == 0;
		if (n != 1)
			fail_msg("job 0 has %d rows of %s", n, algs[a]);
	}
}

static void test_determinism_resume(void **state)
{
	(void)state;
	char *d = tmpdir();
	char ini[512], csv[512];
	put_file(d, "small.ini", small_ini);
	snprintf(ini, sizeof ini, "%s/small.ini", d);
	snprintf(csv, sizeof csv, "%s/small.csv", d);
	char *one = run_cmd("OMP_NUM_THREADS=1", ini, csv);
	/* 2 families x 2 thread counts x 3 programs x 4 machines = 48 jobs,
	 * 7 rows each (binpack, csga, g@20, g@40, g, dsg, unbound) + header. */
	assert_int_equal(tu_count_lines(one), 48 * 7 + 1);
	check_job_order(one);
	unlink(csv);
	char *two = run_cmd("OMP_NUM_THREADS=2", ini, csv);
	assert_string_equal(one, two);
	free(two);

	/* Interrupt-equivalent: cut the file in the middle of a row. */
	size_t cut = strlen(one) / 2 + 7;
	FILE *f = fopen(csv, "w");
	assert_non_null(f);
	fwrite(one, 1, cut, f);
	fclose(f);
	struct exp_run_stats st;
	struct exp_spec *s = load_and_run(ini, &st);
	struct exp_run_opts o = {0};
	char err[512];
	/* The complete jobs before the cut were kept, not recomputed. */
	assert_true(st.kept >= 20 && st.kept < 48);
	assert_int_equal(st.kept + st.computed, 48);
	char *again = tu_slurp(csv, NULL);
	assert_string_equal(one, again);
	free(again);
	/* A finished CSV: nothing to compute. */
	assert_int_equal(exp_run(s, &o, &st, err, sizeof err), EXP_OK);
	assert_int_equal(st.computed, 0);
	assert_int_equal(st.kept, 48);
	/* A CSV of another experiment is refused, untouched. */
	f = fopen(csv, "w");
	fputs(exp_csv_header(), f);
	fputs("0,pipeline,x,6,1,1,2,0,ps,direct,binpack,1,1,done,1,1,,,\n", f);
	fclose(f);
	assert_int_equal(exp_run(s, &o, &st, err, sizeof err), EXP_EINVAL);
	assert_non_null(strstr(err, ":2: the row does not match"));
	exp_spec_release(s);
	free(s);

	/* MPI (mpirun -np 2 and 3, every finishing order, resumption
	 * under another number of ranks, failures): test_cli_mpi.c. */
	free(one);
	rmtree(d);
	free(d);
}

/* A directory whose experiments have no CSV yet (a fresh clone) leaves
 * the report as it is. */
static void test_report_no_data(void **state)
{
	(void)state;
	char *d = tmpdir();
	char rep[600], err[512];
	put_file(d, "e.ini", "[programs]\nfamily = worstcase\n[run]\n"
	         "algorithms = binpack\n[plot.p]\nx = cpus\n"
	         "line = m: makespan\n");
	put_file(d, "REPORT.md.in", "@TABLE:e/p@\n");
	put_file(d, "REPORT.md", "kept\n");
	snprintf(rep, sizeof rep, "%s/REPORT.md", d);
	assert_int_equal(exp_report(d, rep, err, sizeof err), EXP_EINVAL);
	assert_non_null(strstr(err, "no experiment has its CSV yet"));
	char *r = tu_slurp(rep, NULL);
	assert_string_equal(r, "kept\n");
	free(r);
	rmtree(d);
	free(d);
}

/* ------------------------------------------------------------------ */
/* binpack_input ([run] and [alg.NAME]) and [alg.NAME] cpus.            */

/* test_alloc.c's program whose three binpacking inputs give three
 * different allocations on 2 processors under fifo (derived there):
 * work {main, w4, w5} / {w2, w3}, lifetime {main, w2, w3} / {w4, w5},
 * elapsed {main, w4} / {w2, w3, w5}.  Their makespans, bound, fifo, by
 * hand (main works 5, creates w2, w3, w4, works 5, creates w5, joins all;
 * w2 works 10, posts, works 20; w3 40; w4 10; w5 waits, works 50):
 *   work: w2 runs on P1 5-15, posts, 15-35; w3 35-75; on P0 main 0-10,
 *     w4 10-20, w5 20-70 (the token is there), main 70, waits for w3:
 *     75.
 *   lifetime: P1 w4 5-15, w5 waits for the post at 20, 20-70; P0 main
 *     0-10, w2 10-40 (posts at 20), w3 40-80, main finds all exited: 80.
 *   elapsed: P1 w2 5-35, w3 35-75, w5 75-125; P0 main 0-10, w4 10-20,
 *     main 35 waits for w3 then w5: 125.
 * One processor (fifo): 140, the sum of the works.  Unbound on 2 (fifo):
 * main exits at 95 (test_alloc.c's elapsed derivation).  The program is
 * tu_binpack_inputs (testutil.c). */

static void test_binpack_input(void **state)
{
	(void)state;
	static const struct {
		const char *text, *err;
	} bad[] = {
		{"[programs]\nfamily = transactions\n[run]\nalgorithms = binpack\n"
		 "binpack_input = wall\n",
		 "t.ini:5: [run] binpack_input: 'wall' is not a binpacking input "
		 "(work, lifetime, elapsed)"},
		{"[programs]\nfamily = transactions\n[run]\nalgorithms = a\n"
		 "[alg.a]\nalgorithm = binpack\nbinpack_input = Work\n",
		 "t.ini:7: [alg.a] binpack_input: 'Work' is not a binpacking input"},
		{"[programs]\nfamily = transactions\n[run]\nalgorithms = a\n"
		 "[alg.a]\ncpus = 0\n", "t.ini:6: [alg.a] cpus: must be at least 1"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct exp_spec *s = calloc(1, sizeof *s);
		char err[512] = "";
		int rc = exp_spec_parse(bad[i].text, strlen(bad[i].text), "t.ini", s,
		                        err, sizeof err);
		if (rc == EXP_OK || !strstr(err, bad[i].err))
			fail_msg("case %zu: got %d '%s', want '%s'", i, rc, err, bad[i].err);
		exp_spec_release(s);
		free(s);
	}

	char *d = tmpdir();
	char tdir[512], ini[600], buf[64];
	snprintf(tdir, sizeof tdir, "%s/traces", d);
	assert_int_equal(mkdir(tdir, 0755), 0);
	put_file(tdir, "in.trace", tu_binpack_inputs);
	char text[1024];
	/* [run]'s input is lifetime: binpack and c1 inherit it, bpw and bpe
	 * have their own; c1 runs binpacking on one processor, its binpack
	 * column is still the machine's (2). */
	snprintf(text, sizeof text,
	         "[programs]\ntraces = %s\n[machine]\ncpus = 2\npolicy = fifo\n"
	         "[run]\nalgorithms = binpack, bpw, bpe, c1\nunbound = 1\n"
	         "binpack_input = lifetime\n"
	         "[alg.bpw]\nalgorithm = binpack\nbinpack_input = work\n"
	         "[alg.bpe]\nalgorithm = binpack\nbinpack_input = elapsed\n"
	         "[alg.c1]\nalgorithm = binpack\ncpus = 1\n", tdir);
	put_file(d, "in.ini", text);
	snprintf(ini, sizeof ini, "%s/in.ini", d);
	struct exp_run_stats st;
	struct exp_spec *s = load_and_run(ini, &st);
	char *csv = tu_slurp(s->output, NULL);
	assert_non_null(csv);
	static const struct {
		const char *alg;
		int col;
		const char *want;
	} rows[] = {
		{"binpack", C_MS, "80"}, {"binpack", C_BINPACK, "80"},
		{"bpw", C_MS, "75"}, {"bpw", C_BINPACK, "75"},
		{"bpe", C_MS, "125"}, {"bpe", C_BINPACK, "125"},
		{"c1", C_MS, "140"}, {"c1", C_BINPACK, "80"},
		{"unbound", C_MS, "95"}, {"unbound", C_BINPACK, "80"},
		{"bpe", C_SERIAL, "140"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		field(csv, "in.trace", rows[i].alg, rows[i].col, buf, sizeof buf);
		if (strcmp(buf, rows[i].want) != 0)
			fail_msg("%s column %d: got '%s', want '%s'", rows[i].alg,
			         rows[i].col, buf, rows[i].want);
	}
	free(csv);
	exp_spec_release(s);
	free(s);
	rmtree(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_hand_rows),
		cmocka_unit_test(test_hand_report),
		cmocka_unit_test(test_determinism_resume),
		cmocka_unit_test(test_report_no_data),
		cmocka_unit_test(test_binpack_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
