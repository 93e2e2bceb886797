/*
 * test_cli_bound.c - golden tests of bin/bound: parameter mode on Paper
 * VII's Figure 1 profile, trace mode on the same program in our format,
 * latency units, the sweep CSV, JSON, --exact round trip, the methods and
 * searches agreeing, bad arguments and exit codes.  Expected values are
 * computed by hand in the comments (and in tests/test_bound.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gen/gen.h"
#include "tests/testutil.h"
#include "trace/trace.h"

static char bin[4096];

/* Figure 1 in our format: T = 35, V = (1/7, 5/7, 1/7), 5 signals, work
 * 70, z = 1/14; thread works 10 (thread 1), 30, 30. */
static const char *fig_text =
	"shadowbind-trace 1\n"
	"unit us\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 10 post 1\n"
	"2 20 exit\n"
	"3 30 exit\n"
	"1 5 wait 1\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 5 exit\n";

static char *fig, *fig_tick, *deadlock, *badtrace;

static int setup(void **state)
{
	(void)state;
	tu_bin("bound", bin, sizeof bin);
	fig = tu_tmpfile(fig_text);
	/* the same without a unit line: ticks */
	char buf[1024];
	snprintf(buf, sizeof buf, "shadowbind-trace 1\n%s", strstr(fig_text, "1 0 create 2"));
	fig_tick = tu_tmpfile(buf);
	/* lock-order inversion: valid when replayed sequentially (as
	 * recorded), deadlocks with one processor per thread */
	deadlock = tu_tmpfile(
		"shadowbind-trace 1\n"
		"1 0 create 2\n"
		"1 0 lock 1\n"
		"1 5 lock 2\n"
		"1 0 unlock 2\n"
		"1 0 unlock 1\n"
		"2 0 lock 2\n"
		"2 5 lock 1\n"
		"2 0 unlock 1\n"
		"2 0 unlock 2\n"
		"2 0 exit\n"
		"1 0 join 2\n"
		"1 0 exit\n");
	badtrace = tu_tmpfile("shadowbind-trace 1\n1 0 wiat 1\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char *f[] = {fig, fig_tick, deadlock, badtrace};
	for (size_t i = 0; i < 4; i++) {
		unlink(f[i]);
		free(f[i]);
	}
	return 0;
}

/* The value of `key` in key-value output, in a static buffer ("" if
 * absent). */
static const char *val(const char *out, const char *key)
{
	static char b[4096];
	char pat[128];
	snprintf(pat, sizeof pat, "\n%s ", key);
	const char *p = strncmp(out, pat + 1, strlen(pat) - 1) == 0 ? out - 1 : strstr(out, pat);
	b[0] = 0;
	if (!p)
		return b;
	p += strlen(pat);
	size_t i = 0;
	while (p[i] && p[i] != '\n' && i + 1 < sizeof b) {
		b[i] = p[i];
		i++;
	}
	b[i] = 0;
	return b;
}

static void test_params_figure1(void **state)
{
	(void)state;
	char *out, *err;
	/* n = 3, V = (1/3,1/3,1/3), z = 5/6 (Section 2), k = 2, t = 0:
	 * (2,1): 13/9 = 1.4444.. rounded up; (3): 2 */
	int rc = tu_cmdf("bound", &out, &err, "--threads 3 --profile 1/3,1/3,1/3 --granularity 5/6 --cpus 2 --exact");
	assert_int_equal(rc, 0);
	assert_string_equal(val(out, "n"), "3");
	assert_string_equal(val(out, "V"), "0.333333,0.333333,0.333333");
	assert_string_equal(val(out, "p"), "1.444445");
	assert_string_equal(val(out, "p_exact"), "13/9");
	assert_string_equal(val(out, "allocation"), "2,1");
	assert_string_equal(val(out, "allocations"), "2");
	assert_string_equal(val(out, "z_exact"), "5/6");
	/* no trace: no T, bound, lower */
	assert_string_equal(val(out, "T"), "");
	assert_string_equal(val(out, "bound"), "");
	assert_string_equal(val(out, "lower"), "");
	assert_string_equal(err, "");
	free(out);
	free(err);
	/* t = 3: (2,1) 13/9 + 5/6 * 4 = 43/9; (3): 2 */
	rc = tu_cmdf("bound", &out, &err, "--threads 3 --profile 1/3,1/3,1/3 --granularity 5/6 --cpus 2 --latency 3");
	assert_int_equal(rc, 0);
	assert_string_equal(val(out, "p"), "2");
	assert_string_equal(val(out, "allocation"), "3");
	free(out);
	free(err);
	/* decimals, raw weights (divided by their sum), and the idle rest */
	rc = tu_cmdf("bound", &out, &err, "--threads 3 --profile 6,6,6 --granularity 0.8333333333333333333 --cpus 2");
	assert_int_equal(rc, 0);
	assert_string_equal(val(out, "p"), "1.444445");
	free(out);
	free(err);
	/* V sums to 1/2: v0 = 1/2, s((2,1)) = 1/2 + (1 + 4/3 + 2)/6
	 * = 9/18 + 13/18 = 11/9 < s((3)) = 1/2 + 6/6 = 3/2 */
	rc = tu_cmdf("bound", &out, &err, "--threads 3 --profile 1/6,1/6,1/6 --granularity 0 --cpus 2 --exact");
	assert_int_equal(rc, 0);
	assert_string_equal(val(out, "V0"), "0.5");
	assert_string_equal(val(out, "p_exact"), "11/9");
	free(out);
	free(err);
}

static void test_trace_figure(void **state)
{
	(void)state;
	char *out, *err;
	int rc = tu_cmdf("bound", &out, &err, "--cpus 2 '%s'", fig);
	if (rc)
		print_error("%s", err);
	assert_int_equal(rc, 0);
	/* the keys of the issue, in order, then the counts */
	const char *golden =
		"n 3\n"
		"z 0.0714285714\n"
		"V 0.142857,0.714286,0.142857\n"
		"T 35\n"
		"p 1.380953\n"      /* 29/21 = 1.38095238.. rounded up */
		"bound 48.334\n"    /* 29/21 * 35 = 48.333.. rounded up */
		"lower 40\n"        /* works 10 | 30 | 30 on 2 processors */
		"allocation 2,1\n"
		"classes ";
	assert_memory_equal(out, golden, strlen(golden));
	assert_string_equal(val(out, "signals"), "5");
	assert_string_equal(val(out, "work"), "70");
	assert_string_equal(val(out, "unit"), "us");
	assert_string_equal(val(out, "lower_work"), "30");
	assert_string_equal(val(out, "lower_partition"), "40");
	assert_string_equal(val(out, "lower_path"), "35");
	assert_string_equal(val(out, "lower_path_relaxed"), "0");
	assert_string_equal(val(out, "speedup"), "1.448"); /* 2 / (29/21) */
	assert_string_equal(err, "");
	free(out);
	free(err);
	/* latency 2 us in several units: p = 11/7, bound = 55 */
	static const char *lat[] = {"2", "2us", "2000ns", "0.002ms", "1/500000s"};
	for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
		rc = tu_cmdf("bound", &out, &err, "--cpus 2 --latency %s --exact '%s'", lat[i], fig);
		assert_int_equal(rc, 0);
		assert_string_equal(val(out, "p_exact"), "11/7");
		assert_string_equal(val(out, "bound"), "55");
		free(out);
		free(err);
	}
	/* no lower bound asked */
	rc = tu_cmdf("bound", &out, &err, "--cpus 2 --no-lower '%s'", fig);
	assert_int_equal(rc, 0);
	assert_string_equal(val(out, "lower"), "");
	free(out);
	free(err);
}

/* Every method and search gives the same p. */
static void test_methods_agree(void **state)
{
	(void)state;
	static const char *opts[] = {"", "--method paper", "--method brute", "--no-lazy",
	                             "--exhaustive", "--method paper --no-lazy"};
	char first[64] = "";
	for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
		char *out, *err;
		int rc = tu_cmdf("bound", &out, &err, "--cpus 2 --latency 1 --no-lower --exact %s '%s'",
		               opts[i], fig);
		assert_int_equal(rc, 0);
		if (i == 0)
			snprintf(first, sizeof first, "%s", val(out, "p_exact"));
		else
			assert_string_equal(val(out, "p_exact"), first);
		free(out);
		free(err);
	}
	assert_true(first[0] != 0);
}

static void test_sweep(void **state)
{
	(void)state;
	char *out, *err;
	int rc = tu_cmdf("bound", &out, &err, "--threads 3 --profile 1/3,1/3,1/3 --granularity 5/6 --sweep 3 --latency 0,3");
	assert_int_equal(rc, 0);
	/* k = 1: (3): sum q v_q = 2; k = 2 see above; k = 3, t = 0:
	 * (1,1,1): 1; t = 3: (3) 2 < (2,1) 43/9 < (1,1,1) 1 + 5/6 * 6 = 6 */
	assert_string_equal(out,
		"k,latency,p,speedup,bound,lower,allocation,classes,thick_evaluations\n"
		"1,0,2,1,,,\"3\",1,1\n"
		"1,3,2,1,,,\"3\",1,1\n"
		"2,0,1.444445,1.384,,,\"2,1\",2,2\n"
		"2,3,2,1,,,\"3\",3,2\n"
		"3,0,1,2,,,\"1,1,1\",2,2\n"
		"3,3,2,1,,,\"3\",4,3\n");
	free(out);
	free(err);
	/* with a trace: bound and lower columns */
	rc = tu_cmdf("bound", &out, &err, "--sweep 2 '%s'", fig);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\n1,0,2,1,70,70,\"3\","));
	assert_non_null(strstr(out, "\n2,0,1.380953,1.448,48.334,40,\"2,1\","));
	free(out);
	free(err);
	/* JSON */
	rc = tu_cmdf("bound", &out, &err, "--threads 3 --profile 1/3,1/3,1/3 --granularity 5/6 --sweep 2 --json");
	assert_int_equal(rc, 0);
	assert_memory_equal(out, "{\"sweep\": [", 11);
	assert_non_null(strstr(out, "{\"k\": 2, \"latency\": \"0\", \"p\": 1.444445,"));
	assert_non_null(strstr(out, "\"allocation\": [2, 1]"));
	free(out);
	free(err);
}

static void test_json(void **state)
{
	(void)state;
	char *out, *err;
	int rc = tu_cmdf("bound", &out, &err, "--cpus 2 --json '%s'", fig);
	assert_int_equal(rc, 0);
	assert_int_equal(out[0], '{');
	assert_int_equal(tu_count_lines(out), 1);
	assert_non_null(strstr(out, "\"n\": 3, \"z\": 0.0714285714, \"V\": [0.142857, 0.714286, 0.142857], "
	                            "\"T\": 35, \"p\": 1.380953, \"bound\": 48.334, \"lower\": 40, "
	                            "\"allocation\": [2, 1], "));
	assert_non_null(strstr(out, "\"lower_partition_status\": \"optimal\""));
	assert_string_equal(out + strlen(out) - 2, "}\n");
	free(out);
	free(err);
}

/* --exact from a trace, fed back as parameters, gives the same p. */
static void test_exact_round_trip(void **state)
{
	(void)state;
	struct gen_opts go;
	gen_opts_init(&go);
	go.threads = 12;
	go.seed = 5;
	char *text = NULL, e[256];
	size_t len;
	assert_int_equal(gen_generate("dag", &go, &text, &len, NULL, e, sizeof e), GEN_OK);
	char *path = tu_tmpfile(text);
	free(text);
	char *out, *err;
	int rc = tu_cmdf("bound", &out, &err, "--cpus 4 --latency 3 --exact --no-lower '%s'", path);
	assert_int_equal(rc, 0);
	char *V = strdup(val(out, "V_exact")), *z = strdup(val(out, "z_exact"));
	char *p = strdup(val(out, "p_exact"));
	free(out);
	free(err);
	rc = tu_cmdf("bound", &out, &err, "--threads 12 --profile %s --granularity %s --cpus 4 --latency 3 --exact",
	           V, z);
	assert_int_equal(rc, 0);
	assert_string_equal(val(out, "p_exact"), p);
	free(out);
	free(err);
	free(V);
	free(z);
	free(p);
	unlink(path);
	free(path);
}

static void test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *args;
		int status;
		const char *msg; /* substring of the one-line error */
	} t[] = {
		{"", 1, "no trace given"},
		{"--cpus 0 x", 1, "--cpus: '0' is not an integer in 1..65536"},
		{"--cpus 2", 1, "no trace given"},
		{"--cpus 2 a b", 1, "more than one trace"},
		{"--bogus", 1, "unknown"},
		{"--threads 3 --profile 1,1,1 --cpus 2", 1, "--granularity"},
		{"--threads 3 --profile 1,1 --granularity 0 --cpus 2", 1, "fewer entries"},
		{"--threads 2 --profile 1,1,1 --granularity 0 --cpus 2", 1, "more entries"},
		{"--threads 3 --profile 1,x,1 --granularity 0 --cpus 2", 1, "--profile"},
		{"--threads 3 --profile 0,0,0 --granularity 0 --cpus 2", 2, "all zero"},
		{"--threads 3 --profile 1,1,1 --granularity -1 --cpus 2", 1, "--granularity"},
		{"--threads 3 --profile 1,1,1 --granularity 1/0 --cpus 2", 1, "--granularity"},
		{"--threads 3 --profile 1,1,1 --granularity 1 --cpus 2 --latency 1,2", 1, "--sweep"},
		{"--threads 3 --profile 1,1,1 --granularity 1 --cpus 2 --latency 4us", 1, "unit"},
		{"--threads 3 --profile 1,1,1 --granularity 1 --cpus 2 --sweep 3", 1, "exclude"},
		{"--threads 30 --profile 1 --granularity 1 --cpus 2 --method brute", 1, ""},
		{"--cpus 2 /nonexistent/trace", 2, "/nonexistent/trace"},
		{"--cpus 2 --method fast x", 1, "--method"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char *out, *err;
		int rc = tu_cmdf("bound", &out, &err, "%s", t[i].args);
		if (rc != t[i].status || !strstr(err, t[i].msg) ||
		    (t[i].status && tu_count_lines(err) != 1))
			fail_msg("'%s': status %d, stderr '%s'", t[i].args, rc, err);
		if (t[i].status)
			assert_string_equal(out, "");
		free(out);
		free(err);
	}
	char *out, *err;
	/* a trace error names the file and line */
	int rc = tu_cmdf("bound", &out, &err, "--cpus 2 '%s'", badtrace);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, ":2:"));
	assert_int_equal(tu_count_lines(err), 1);
	free(out);
	free(err);
	/* a unit suffix on a trace without a unit */
	rc = tu_cmdf("bound", &out, &err, "--cpus 2 --latency 4us '%s'", fig_tick);
	assert_int_equal(rc, 1);
	assert_int_equal(tu_count_lines(err), 1);
	free(out);
	free(err);
	/* deadlocks under Direct with one processor per thread: T and V from
	 * the client-server model, which pairs each lock with the recorded
	 * previous unlock: thread 1 holds 1 and 2 until 5; thread 2's lock 2
	 * follows thread 1's unlock 2 (5), its work 5 ends at 10, lock 1 is
	 * free since 5: T = 10.  The lower bound is the part that holds
	 * under every model: the largest thread's work, 5 (issue 20) */
	rc = tu_cmdf("bound", &out, &err, "--cpus 2 '%s'", deadlock);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(err, "client-server"));
	assert_int_equal(tu_count_lines(err), 1);
	assert_non_null(strstr(out, "\nT 10\n"));
	assert_non_null(strstr(out, "\nlower 5\n"));
	free(out);
	free(err);
	/* help */
	rc = tu_cmdf("bound", &out, &err, "--help");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "usage: bound --cpus K"));
	free(out);
	free(err);
}

/* The 79-thread sieve of Paper VII Section 7.2 answers (bin/bound-speed
 * measures the time). */
static void test_pipeline79(void **state)
{
	(void)state;
	struct gen_opts go;
	gen_opts_init(&go);
	gen_opts_set(&go, "unit", "us");
	gen_opts_set(&go, "filter-work", "100");
	gen_opts_set(&go, "gen-work", "100");
	gen_opts_set(&go, "send-work", "10");
	gen_opts_set(&go, "recv-work", "10");
	char *text = NULL, e[256];
	size_t len;
	assert_int_equal(gen_generate("pipeline", &go, &text, &len, NULL, e, sizeof e), GEN_OK);
	char *path = tu_tmpfile(text);
	free(text);
	char *out, *err;
	int rc = tu_cmdf("bound", &out, &err, "--cpus 16 --latency 8us --ilp-ms 200 '%s'", path);
	assert_int_equal(rc, 0);
	assert_string_equal(val(out, "n"), "79");
	assert_string_equal(val(out, "allocations"), "6158681");
	/* the bound is above the lower bound */
	assert_true(strtod(val(out, "bound"), NULL) >= strtod(val(out, "lower"), NULL));
	free(out);
	free(err);
	unlink(path);
	free(path);
}

/*
 * More threads than the bound took before issue 20 item 5 (4096): main
 * creates threads 2..5001 one at a time; each child works 10 and exits
 * while main works 10 and joins it.  n = 5001.  With one processor per
 * thread exactly two threads run at every instant: T(P,n,0) = 5000 x 10
 * = 50000, V = (v_2 = 1).  Signals: 5000 creates + 5000 joins = 10000,
 * work 100000, z = 1/10; sum q v_q = 2.
 * Every row has q = 2 ones: f(A,2,0) = C(n,2) + sum_i C(a_i,2) (a pair on
 * one processor takes 2), so with x = sum a_i(a_i-1) / (n(n-1)):
 *   s = 1 + x,  z r = (1 - x) t 2 / 10,  value = 1 + x + (1 - x) t / 5,
 * linear in x: for t < 5 the smallest x wins (the even split), for t > 5
 * the largest (one processor, x = 1, value 2).
 *   k = 2, t = 0: (2501,2500): x = (2501*2500 + 2500*2499) / (5001*5000)
 *     = 2500/5001, p = 7501/5001 = 1.49990001.. -> 1.499901 (up);
 *     bound = 50000 * 7501/5001 = 74995.00099.. -> 74995.001 (up).
 *   k = 3, t = 0: (1667,1667,1667): x = 3*1667*1666 / (5001*5000)
 *     = 1666/5000, p = 1.3332, bound 66660.
 *   k = 2, t = 4: p = 1 + 2500/5001 + (2501/5001)(4/5) = 47509/25005 =
 *     1.89998000.. -> 1.899981; bound = 50000 p = 94999.0002.. ->
 *     94999.001.
 *   k = 2, t = 8: one processor, p = 2, bound 100000.
 * The lower bound: the partition of works (main 50000, children 10
 * each) is at least main's 50000 = T.
 */
static void test_many_threads(void **state)
{
	(void)state;
	char *tr = tu_fanout_trace(5000, 10, 10);
	static const struct {
		const char *args, *p, *p_exact, *bound, *alloc;
	} rows[] = {
		{.args = "--cpus 2", .p = "1.499901", .p_exact = "7501/5001",
		 .bound = "74995.001", .alloc = "2501,2500"},
		{.args = "--cpus 3", .p = "1.3332", .p_exact = "3333/2500",
		 .bound = "66660", .alloc = "1667,1667,1667"},
		{.args = "--cpus 2 --latency 4", .p = "1.899981",
		 .p_exact = "47509/25005", .bound = "94999.001", .alloc = "2501,2500"},
		{.args = "--cpus 2 --latency 8", .p = "2", .p_exact = "2",
		 .bound = "100000", .alloc = "5001"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		char *out, *err;
		int rc = tu_cmdf("bound", &out, &err, "%s --exact '%s'", rows[i].args, tr);
		if (rc != 0)
			fail_msg("bound %s: status %d: %s", rows[i].args, rc, err);
		assert_string_equal(val(out, "n"), "5001");
		assert_string_equal(val(out, "T"), "50000");
		assert_string_equal(val(out, "z_exact"), "1/10");
		assert_string_equal(val(out, "p"), rows[i].p);
		assert_string_equal(val(out, "p_exact"), rows[i].p_exact);
		assert_string_equal(val(out, "bound"), rows[i].bound);
		assert_string_equal(val(out, "allocation"), rows[i].alloc);
		assert_string_equal(val(out, "p_search"), "minimal");
		assert_string_equal(val(out, "lower"), "50000");
		free(out);
		free(err);
	}
	unlink(tr);
	free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_figure1),
		cmocka_unit_test(test_trace_figure),
		cmocka_unit_test(test_methods_agree),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_exact_round_trip),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pipeline79),
		cmocka_unit_test(test_many_threads),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
