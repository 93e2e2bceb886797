/*
 * test_cli_mpi.c - the commands under mpirun (issue 23).
 *
 * bin/experiment (exp/mpi.c): the CSV is the same bytes as the one-process run's whatever the
 * order in which the ranks finish (the others before rank 0, rank 0 first,
 * a rank with no job at all), an interrupted run resumes under another
 * number of ranks, and a rank that fails or dies ends the run with a
 * non-zero status (rank 0 reporting the failing rank's message) instead of
 * hanging.  Every mpirun and every rank runs under `timeout` (mpi_run): a
 * hang fails the test with the command and its standard error, it does
 * not stall the suite, and no rank outlives it.  Without MPI in the build
 * or without mpirun every test is SKIPPED with the reason.
 *
 * The finishing order is steered by the work dealt: jobs are dealt
 * round-robin over the pending jobs (job i to rank i mod N, docs/exp.md),
 * and a job whose program has 100 threads and a 1000-test anneal costs
 * many times the CPU of one of 4 threads.  Steered, not forced: under
 * load the ranks start and run whenever the scheduler lets them, so any
 * order can happen, and nothing here depends on it: every order must give
 * the one-process CSV.  The work is kept small (the heavy job: 0.02 s of
 * CPU, 0.1 s under the sanitizers; 400 threads and 3000 tests took 0.3
 * and 0.85 s) so that the bound on a run (LIMIT) is far above its cost
 * even on a machine loaded tenfold.
 *
 * bin/allocate --restarts R (alloc/mpi.c): the binding file is the same
 * bytes as the one-process run's for -np 2 and 3, for each algorithm that
 * restarts, also when a rank has no search (R < N).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "exp/exp.h"
#include "tests/testutil.h"

/* Open MPI as root, more ranks than cores, shared memory only; the
 * sanitizer's leak check off for MPI's own allocations.  MPIRUN(NP) is
 * followed by the ranks' command.
 *
 * The bounds (wall-clock seconds): mpirun gets LIMIT, then SIGKILL 10 s
 * after its SIGTERM (`timeout -k`: an mpirun stuck in its teardown cannot
 * hold the test).  Its ranks are in process groups of their own, which
 * timeout's signal does not reach, and one that ignores or never sees
 * mpirun's SIGTERM outlives it: each rank runs under a timeout of its own,
 * RANK_LIMIT = LIMIT + 20 s, so that none outlives the test's verdict by
 * more. */
#define LIMIT "120"
#define RANK_LIMIT "140"
#define BOUND "timeout -k 10 " LIMIT " "
#define MPIRUN(np)                                                          \
	"OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "        \
	"OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1 "      \
	"ASAN_OPTIONS=detect_leaks=0 " BOUND "mpirun "                       \
	"--oversubscribe -np " np " timeout -k 5 " RANK_LIMIT " "

/* Run a command line under timeout (MPIRUN's, or BOUND's for one
 * process); the exit status, the standard output in *out
 * and the standard error in *er (either may be NULL: not kept).  A run
 * still going after LIMIT seconds fails the test, saying so, instead of
 * returning: timeout's 124, or 137 when mpirun needed the SIGKILL (137 is
 * also mpirun's status for a rank killed by SIGKILL, as the CPU limit of
 * test_failures does: the clock tells the two apart, it asserts nothing). */
static int mpi_run(const char *what, const char *cmd, char **out, char **er)
{
	char *o = NULL, *e = NULL;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = tu_run(cmd, &o, &e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc == 124 || (rc == 137 && t1.tv_sec - t0.tv_sec >= atoi(LIMIT)))
		fail_msg("%s: still running after " LIMIT " s (hung), ended "
		         "by timeout (status %d)\ncommand: %s\nits standard "
		         "error:\n%s", what, rc, cmd, e ? e : "");
	if (out)
		*out = o;
	else
		free(o);
	if (er)
		*er = e;
	else
		free(e);
	return rc;
}

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test_mpi.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Skip with the reason, or fail where MPI is required (.ci/run sets
 * SB_REQUIRE_MPI=1: CI must run these tests, not skip them). */
static void need_mpi(void)
{
	const char *why = NULL;
	char *out = NULL, *er = NULL;
	if (!exp_mpi_available())
		why = "built without MPI (no mpicc: "
		      "apt-get install libopenmpi-dev openmpi-bin)";
	else if (tu_run("command -v mpirun >/dev/null", &out, &er) != 0)
		why = "mpirun not found (apt-get install openmpi-bin)";
	free(out);
	free(er);
	if (!why)
		return;
	const char *req = getenv("SB_REQUIRE_MPI");
	if (req && strcmp(req, "1") == 0)
		fail_msg("SB_REQUIRE_MPI=1 but %s", why);
	print_message("SKIPPED: %s\n", why);
	skip();
}

static void put(const char *name, const char *text, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Run bin/experiment on ini into csv, under mpirun -np np (0: no mpirun)
 * with env; returns the exit status, the standard error in *er. */
static int experiment(int np, const char *env, const char *ini,
                      const char *csv, char **er)
{
	char bin[512], cmd[2048], pre[512] = BOUND;
	tu_bin("experiment", bin, sizeof bin);
	if (np)
		snprintf(pre, sizeof pre, MPIRUN("%d"), np);
	snprintf(cmd, sizeof cmd, "%s %s'%s' -o '%s' '%s'", env, pre, bin, csv,
	         ini);
	char what[64];
	snprintf(what, sizeof what, "experiment on %d rank(s)", np ? np : 1);
	return mpi_run(what, cmd, NULL, er);
}

/* The CSV of a one-process run of ini (malloc'd). */
static char *reference(const char *ini)
{
	char csv[128];
	snprintf(csv, sizeof csv, "%s/ref.csv", dir);
	unlink(csv);
	char *er = NULL;
	int rc = experiment(0, "OMP_NUM_THREADS=1", ini, csv, &er);
	if (rc != 0)
		fail_msg("one process: exit %d: %s", rc, er ? er : "");
	free(er);
	char *t = tu_slurp(csv, NULL);
	assert_non_null(t);
	return t;
}

/* ------------------------------------------------------------------ */
/* The finishing orders.                                               */

static const struct {
	const char *what;
	const char *threads; /* the programs, one job each, in job order */
	int np;
} orders[] = {
	/* job 0 (100 threads) on rank 0: rank 1 says done while rank 0
	 * still computes (the deadlock of issue 23). */
	{"the other ranks finish first", "100, 4", 2},
	{"the other ranks finish first", "100, 4, 4", 3},
	/* job 1 (100 threads) on rank 1: rank 0 waits. */
	{"rank 0 finishes first", "4, 100", 2},
	{"rank 0 finishes first", "4, 100, 100", 3},
	/* 2 jobs over 3 ranks: rank 2 has none, says done at once. */
	{"a rank without a job", "100, 4", 3},
	{"a rank without a job", "4, 4", 3},
};

static void test_orders(void **state)
{
	(void)state;
	need_mpi();
	for (size_t i = 0; i < sizeof orders / sizeof *orders; i++) {
		char text[512], ini[128], csv[128];
		snprintf(text, sizeof text,
		         "[programs]\nfamily = transactions\nthreads = %s\n"
		         "[machine]\ncpus = 8\n[run]\nalgorithms = binpack, a\n"
		         "[alg.a]\nalgorithm = anneal\nmax_tests = 1000\n"
		         "stop_after = 0\n", orders[i].threads);
		put("order.ini", text, ini, sizeof ini);
		char *one = reference(ini);
		snprintf(csv, sizeof csv, "%s/mpi.csv", dir);
		unlink(csv);
		char *er = NULL;
		int rc = experiment(orders[i].np, "OMP_NUM_THREADS=1", ini, csv,
		                    &er);
		if (rc != 0)
			fail_msg("%s (threads %s, -np %d): exit %d: %s",
			         orders[i].what, orders[i].threads, orders[i].np,
			         rc, er ? er : "");
		char *m = tu_slurp(csv, NULL);
		assert_non_null(m);
		if (strcmp(one, m) != 0)
			fail_msg("%s (threads %s, -np %d): the CSV differs from "
			         "the one-process run's:\n%s\n---\n%s",
			         orders[i].what, orders[i].threads, orders[i].np,
			         one, m);
		free(m);
		free(one);
		free(er);
	}
}

/* ------------------------------------------------------------------ */
/* Resuming an interrupted run under another number of ranks.          */

/* 10 programs x 2 machines = 20 jobs of 3 rows. */
static const char resume_ini[] =
	"[programs]\nfamily = transactions\nthreads = 4..40/4\n"
	"[machine]\ncpus = 2, 3\n[run]\nalgorithms = binpack, g, a\n"
	"[alg.g]\nalgorithm = greedy\nmax_tests = 60\n"
	"[alg.a]\nalgorithm = anneal\nmax_tests = 100\nstop_after = 0\n";

/* The file an interrupted run leaves: the header, then some jobs' rows in
 * finishing order (not job order), then a torn row.  keep[i]: job i's rows
 * are there. */
static void interrupted(const char *one, const char *csv, const int *keep,
                        const int *order, size_t n)
{
	FILE *f = fopen(csv, "w");
	assert_non_null(f);
	const char *body = strchr(one, '\n') + 1;
	fwrite(one, 1, (size_t)(body - one), f);
	for (size_t k = 0; k < n; k++) {
		if (!keep[order[k]])
			continue;
		/* job j's rows: lines 3j .. 3j+2 of the body */
		const char *p = body;
		for (int l = 0; l < 3 * order[k]; l++)
			p = strchr(p, '\n') + 1;
		const char *e = p;
		for (int l = 0; l < 3; l++)
			e = strchr(e, '\n') + 1;
		fwrite(p, 1, (size_t)(e - p), f);
	}
	fputs("7,transactions,,16,1,14400951", f); /* torn */
	assert_int_equal(fclose(f), 0);
}

static void test_resume(void **state)
{
	(void)state;
	need_mpi();
	char ini[128], csv[128];
	put("resume.ini", resume_ini, ini, sizeof ini);
	char *one = reference(ini);
	assert_int_equal(tu_count_lines(one), 20 * 3 + 1);
	snprintf(csv, sizeof csv, "%s/resume.csv", dir);
	/* Left by a 2-rank run: rank 0's and rank 1's jobs interleaved. */
	static const int order[20] = {1, 0, 3, 2, 5, 4, 7, 6, 9, 8,
	                              11, 10, 13, 12, 15, 14, 17, 16, 19, 18};
	static const struct {
		int np;
		const char *env;
		int keep[20];
	} cases[] = {
		/* 14 jobs done; 6 left over 3 ranks (2 each). */
		{3, "OMP_NUM_THREADS=1",
		 {1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1}},
		/* 18 done; 2 left over 3 ranks: rank 2 has none. */
		{3, "OMP_NUM_THREADS=2",
		 {1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0}},
		/* Left by a 3-rank run, resumed by 2. */
		{2, "OMP_NUM_THREADS=1",
		 {0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1}},
		/* Nothing done yet. */
		{2, "OMP_NUM_THREADS=2", {0}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		interrupted(one, csv, cases[c].keep, order, 20);
		char *er = NULL;
		int rc = experiment(cases[c].np, cases[c].env, ini, csv, &er);
		if (rc != 0)
			fail_msg("case %zu (-np %d): exit %d: %s", c, cases[c].np,
			         rc, er ? er : "");
		/* "20 jobs (K kept, C computed) ... x N process(es)" */
		char want[128];
		int kept = 0;
		for (int i = 0; i < 20; i++)
			kept += cases[c].keep[i];
		snprintf(want, sizeof want, "20 jobs (%d kept, %d computed)",
		         kept, 20 - kept);
		if (!strstr(er, want))
			fail_msg("case %zu: expected '%s' in: %s", c, want, er);
		snprintf(want, sizeof want, "x %d process(es)", cases[c].np);
		assert_non_null(strstr(er, want));
		char *m = tu_slurp(csv, NULL);
		assert_non_null(m);
		if (strcmp(one, m) != 0)
			fail_msg("case %zu (-np %d): the resumed CSV differs:\n%s"
			         "\n---\n%s", c, cases[c].np, one, m);
		free(m);
		free(er);
	}
	free(one);
}

/* ------------------------------------------------------------------ */
/* A rank that fails, a rank that dies: reported, non-zero, no hang.   */

static void test_failures(void **state)
{
	(void)state;
	need_mpi();
	char path[128], ini[128], csv[128], tdir[128];
	snprintf(tdir, sizeof tdir, "%s/traces", dir);
	assert_int_equal(mkdir(tdir, 0755), 0);
	char ex[512];
	char *good = tu_slurp(tu_shared("examples/binpack-worst-case.trace", ex,
	                                sizeof ex), NULL);
	assert_non_null(good);
	/* Traces sorted by name: a.trace is job 0 (rank 0), b.trace job 1
	 * (rank 1), which cannot be read. */
	put("traces/a.trace", good, path, sizeof path);
	put("traces/b.trace", "not a trace\n", path, sizeof path);
	free(good);
	char text[256];
	snprintf(text, sizeof text,
	         "[programs]\ntraces = %s\n[machine]\ncpus = 2\n[run]\n"
	         "algorithms = binpack\n", tdir);
	put("fail.ini", text, ini, sizeof ini);
	snprintf(csv, sizeof csv, "%s/fail.csv", dir);
	char *er = NULL;
	int one = experiment(0, "", ini, csv, &er);
	assert_int_not_equal(one, 0);
	free(er);
	for (int np = 2; np <= 3; np++) {
		unlink(csv);
		er = NULL;
		int rc = experiment(np, "OMP_NUM_THREADS=1", ini, csv, &er);
		/* The one-process status, rank 0 naming rank 1 and its
		 * message. */
		assert_int_equal(rc, one);
		if (!strstr(er, "experiment: rank 1: ") ||
		    !strstr(er, "b.trace:1: not a shadowbind trace"))
			fail_msg("-np %d: rank 1's failure not reported: %s", np,
			         er);
		free(er);
	}

	/* Rank 1 cannot read the experiment file (files differ between
	 * machines): it reports and stops the run, no hang. */
	char badini[128];
	put("bad.ini", "[programs]\nfamily = nosuch\n", badini, sizeof badini);
	unlink(csv);
	char bin0[512], cmd0[2048];
	snprintf(cmd0, sizeof cmd0,
	         MPIRUN("2") "sh -c 'if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then "
	         "f=%s; else f=%s; fi; exec \"$0\" -q -o %s \"$f\"' '%s'", badini,
	         ini, csv, tu_bin("experiment", bin0, sizeof bin0));
	char *out0 = NULL;
	er = NULL;
	int rc0 = mpi_run("rank 1 could not read the file", cmd0, &out0, &er);
	assert_int_equal(rc0, 2);
	assert_non_null(strstr(er, "'nosuch' is not a family"));
	free(out0);
	free(er);

	/* Rank 1 killed by the kernel (CPU limit, 1 s) in the middle of
	 * its job: mpirun ends the run, non-zero. */
	put("die.ini",
	    "[programs]\nfamily = transactions\nthreads = 4, 400\n"
	    "[machine]\ncpus = 8\n[run]\nalgorithms = a\n[alg.a]\n"
	    "algorithm = anneal\nmax_tests = 100000\nstop_after = 0\n",
	    ini, sizeof ini);
	unlink(csv);
	char bin[512], cmd[2048];
	snprintf(cmd, sizeof cmd,
	         MPIRUN("2") "sh -c '[ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && "
	         "ulimit -t 1; exec \"$0\" -q -o %s %s' '%s'", csv, ini,
	         tu_bin("experiment", bin, sizeof bin));
	char *out = NULL;
	er = NULL;
	int rc = mpi_run("rank 1 died", cmd, &out, &er);
	assert_int_not_equal(rc, 0);
	free(out);
	free(er);
}

/* ------------------------------------------------------------------ */
/* allocate --restarts over the ranks.                                 */

static const struct {
	const char *trace; /* "": the generated 40-thread program */
	const char *args;
	int np;
} searches[] = {
	{"examples/binpack-worst-case.trace", "--cpus 2 --restarts 8", 2},
	{"examples/binpack-worst-case.trace", "--cpus 2 --restarts 8", 3},
	{"", "--cpus 4 --restarts 8 --max-tests 800", 2},
	{"", "--cpus 4 --restarts 8 --max-tests 800", 3},
	{"", "--cpus 4 --restarts 5 --max-tests 500 -a tabu --seed 3", 3},
	{"", "--cpus 4 --restarts 4 --max-tests 400 -a greedy", 2},
	{"", "--cpus 4 --restarts 3 --max-tests 300 -a anneal", 3},
	/* 2 searches over 3 ranks: rank 2 has none */
	{"", "--cpus 4 --restarts 2 --max-tests 300", 3},
};

static void test_allocate(void **state)
{
	(void)state;
	need_mpi();
	char bin[512], gen[128], cmd[2048];
	snprintf(gen, sizeof gen, "%s/t40.trace", dir);
	char *out = NULL, *er = NULL;
	if (tu_cmdf("progen", &out, &er, "--family transactions --threads 40 "
	            "--seed 1 -o '%s'", gen) != 0)
		fail_msg("progen: %s", er);
	free(out);
	free(er);
	tu_bin("allocate", bin, sizeof bin);
	for (size_t i = 0; i < sizeof searches / sizeof *searches; i++) {
		char ex[512];
		const char *t = searches[i].trace[0]
		                ? tu_shared(searches[i].trace, ex, sizeof ex) : gen;
		char one[128], many[128];
		snprintf(one, sizeof one, "%s/one.txt", dir);
		snprintf(many, sizeof many, "%s/many.txt", dir);
		snprintf(cmd, sizeof cmd, "'%s' %s -q -o '%s' '%s'", bin,
		         searches[i].args, one, t);
		out = er = NULL;
		if (tu_run(cmd, &out, &er) != 0)
			fail_msg("%s: %s", cmd, er);
		free(out);
		free(er);
		snprintf(cmd, sizeof cmd, MPIRUN("%d") "'%s' %s -q -o '%s' '%s'",
		         searches[i].np, bin, searches[i].args, many, t);
		out = er = NULL;
		int rc = mpi_run("allocate --restarts", cmd, &out, &er);
		if (rc != 0)
			fail_msg("%s: exit %d: %s", cmd, rc, er);
		free(out);
		free(er);
		char *a = tu_slurp(one, NULL), *b = tu_slurp(many, NULL);
		assert_non_null(a);
		assert_non_null(b);
		if (strcmp(a, b) != 0)
			fail_msg("%s -np %d: the binding file differs from the "
			         "one-process run's:\n%s\n---\n%s",
			         searches[i].args, searches[i].np, a, b);
		free(a);
		free(b);
	}
	/* --trajectory needs the one process: a usage error, not a hang. */
	snprintf(cmd, sizeof cmd, MPIRUN("2") "'%s' --cpus 4 --restarts 4 "
	         "--trajectory '%s/tr.csv' -o /dev/null '%s'", bin, dir, gen);
	out = er = NULL;
	int rc = mpi_run("allocate --trajectory", cmd, &out, &er);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(er, "--trajectory"));
	free(out);
	free(er);
	/* Standard input goes to rank 0 only: a usage error on every rank
	 * (it used to leave rank 0 waiting for the others' searches). */
	snprintf(cmd, sizeof cmd, MPIRUN("2") "'%s' --cpus 4 --restarts 4 "
	         "-o /dev/null - <'%s'", bin, gen);
	out = er = NULL;
	rc = mpi_run("allocate from standard input", cmd, &out, &er);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(er, "standard input"));
	free(out);
	free(er);
	/* Rank 1 cannot read its trace (the file differs between machines):
	 * it reports and stops the run, status 2, instead of leaving rank 0
	 * waiting. */
	char bad[128];
	put("bad.trace", "garbage\n", bad, sizeof bad);
	snprintf(cmd, sizeof cmd, MPIRUN("2") "sh -c 'if [ \"$OMPI_COMM_WORLD_RANK\" "
	         "= 1 ]; then t=%s; else t=%s; fi; exec \"$0\" --cpus 4 "
	         "--restarts 4 -o /dev/null \"$t\"' '%s'", bad, gen, bin);
	out = er = NULL;
	rc = mpi_run("allocate, rank 1 failed", cmd, &out, &er);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(er, "bad.trace:1: not a shadowbind trace"));
	free(out);
	free(er);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_allocate),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
