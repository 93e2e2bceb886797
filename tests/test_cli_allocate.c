/*
 * test_cli_allocate.c - golden tests of bin/allocate: the paper's worked
 * example, the binding file's headers, the configuration file and its
 * errors, bad arguments, exit codes, atomic output, determinism across
 * OpenMP thread counts.
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

#include "tests/testutil.h"
#include "trace/trace.h"

static char bin[4096], worst[4096];

static int setup(void **state)
{
	(void)state;
	tu_bin("allocate", bin, sizeof bin);
	tu_shared("examples/binpack-worst-case.trace", worst, sizeof worst);
	return 0;
}

static void test_worst_case(void **state)
{
	(void)state;
	char *out, *err;
	int rc = tu_cmdf("allocate", &out, &err, "--cpus 2 --algorithm sga '%s'", worst);
	if (rc != 0)
		print_error("%s", err);
	assert_int_equal(rc, 0);
	/* Paper IV Section 4: T1 (2), T4 (5) and main on one processor, T2
	 * (3), T3 (4) on the other: 2050, after 8 tests (Figure 3) and
	 * binpacking's, tested first (the floor, docs/alloc.md). */
	assert_non_null(strstr(out, "shadowbind-binding 1\n"));
	assert_non_null(strstr(out, "\ncpus 2\n"));
	assert_non_null(strstr(out, "\nmakespan 2050 "));
	assert_non_null(strstr(out, "\nunit tick\n"));
	assert_non_null(strstr(out, "\nalgorithm sga\n"));
	assert_non_null(strstr(out, "\ntests 9 "));
	assert_non_null(strstr(out, "\n1 0"));
	assert_non_null(strstr(out, "\n2 0"));
	assert_non_null(strstr(out, "\n3 1"));
	assert_non_null(strstr(out, "\n4 1"));
	assert_non_null(strstr(out, "\n5 0"));
	/* The summary: binpack 4060, the result 2050. */
	assert_non_null(strstr(err, "makespan 2050"));
	assert_non_null(strstr(err, "binpack 4060"));
	assert_non_null(strstr(err, "9 tests"));
	/* The judgement: the lower bound is the best split of the work
	 * 1030, 1000, 1010, 1020 over 2 processors, 2030 (both semaphores
	 * have two waiters, so the critical path does not count); 2050 is
	 * 20/2030 = 1.0% above it. */
	assert_non_null(strstr(out, "\nlower 2030 "));
	assert_non_null(strstr(out, "\nmodel direct "));
	assert_non_null(strstr(out, "\nbound "));
	assert_non_null(strstr(err, "\nallocate: 1.0% above the lower bound 2030; below the analytic bound\n"));
	assert_int_equal(tu_count_lines(err), 2);
	free(out);
	free(err);

	rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -a binpack -q '%s'", worst);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\nmakespan 4060 "));
	assert_non_null(strstr(out, "\n4 1"));
	assert_non_null(strstr(out, "\n5 1"));
	assert_string_equal(err, "");
	free(out);
	free(err);
}

/* The trace header: file name and the sha256 that sha256sum computes. */
static void test_trace_header(void **state)
{
	(void)state;
	char *out, *err, *sum, *e2, cmd[8192];
	snprintf(cmd, sizeof cmd, "sha256sum '%s' | cut -c1-64", worst);
	assert_int_equal(tu_run(cmd, &sum, &e2), 0);
	sum[strcspn(sum, "\n")] = 0;
	assert_int_equal(strlen(sum), 64);
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q '%s'", worst), 0);
	char want[200];
	snprintf(want, sizeof want, "\ntrace binpack-worst-case.trace sha256:%s\n",
	         sum);
	assert_non_null(strstr(out, want));
	/* auto: the default; the optimum 2050. */
	assert_non_null(strstr(out, "\nalgorithm auto\n"));
	assert_non_null(strstr(out, "\nmakespan 2050 "));
	free(out);
	free(err);
	/* Standard input: the same digest. */
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q - < '%s'", worst), 0);
	snprintf(want, sizeof want, "sha256:%s\n", sum);
	assert_non_null(strstr(out, want));
	free(out);
	free(err);
	free(sum);
	free(e2);
}

/* -o writes the file atomically; it reads back as a valid binding. */
static void test_output_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/sballocXXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/b.binding", dir);
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q -o '%s' '%s'", path,
	                          worst), 0);
	assert_string_equal(out, "");
	free(out);
	free(err);
	struct trace *tr = NULL;
	struct trace_error te;
	assert_int_equal(trace_read_file(worst, &tr, &te), 0);
	struct trace_binding b;
	if (trace_binding_read(path, tr, &b, &te) != 0)
		fail_msg("%s", te.msg);
	assert_int_equal(b.cpus, 2);
	assert_string_equal(b.makespan, "2050");
	trace_binding_release(&b);
	trace_free(tr);
	/* Only the file: no temporary left behind. */
	char cmd[512], *ls;
	snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
	assert_int_equal(tu_run(cmd, &ls, &err), 0);
	assert_string_equal(ls, "b.binding\n");
	free(ls);
	free(err);
	/* An unwritable destination: exit 2, one line. */
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q -o /nonexistent/dir/x "
	                          "'%s'", worst), 2);
	assert_non_null(strstr(err, "/nonexistent/dir/x: cannot write"));
	assert_int_equal(tu_count_lines(err), 1);
	free(out);
	free(err);
	unlink(path);
	rmdir(dir);
}

static void test_config_file(void **state)
{
	(void)state;
	char *ini = tu_tmpfile("; test\n[machine]\ncpus = 2\n\n[search]\n"
	                       "algorithm = sga\nseed = 3\n");
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "-q --config '%s' '%s'", ini, worst),
	                 0);
	assert_non_null(strstr(out, "\nalgorithm sga\n"));
	assert_non_null(strstr(out, "\ncpus 2\n"));
	free(out);
	free(err);
	/* Options override the file. */
	assert_int_equal(tu_cmdf("allocate", &out, &err, "-q --config '%s' -a binpack "
	                          "--cpus 3 '%s'", ini, worst), 0);
	assert_non_null(strstr(out, "\nalgorithm binpack\n"));
	assert_non_null(strstr(out, "\ncpus 3\n"));
	free(out);
	free(err);
	unlink(ini);
	free(ini);

	/* The shipped example works as it is. */
	char ex[4096];
	tu_root("examples/allocate.ini", ex, sizeof ex);
	assert_int_equal(tu_cmdf("allocate", &out, &err, "-q --config '%s' --max-tests 50 "
	                          "'%s'", ex, worst), 0);
	assert_non_null(strstr(out, "shadowbind-binding 1\n"));
	free(out);
	free(err);
}

static void test_config_errors(void **state)
{
	(void)state;
	struct {
		const char *text, *msg; /* msg follows the file name */
	} bad[] = {
		{"[machine]\ncpus = 2\n[search]\nmax_tests = abc\n",
		 ":4: [search] max_tests: 'abc' is not an integer in 0..18446744073709551615\n"},
		{"[machine]\ncpus = two\n",
		 ":2: [machine] cpus: 'two' is not an integer in 1..65536\n"},
		{"[machine]\ncpus = 2\npolicy = random\n",
		 ":3: [machine] policy: 'random' is not a policy (ps, fifo, rr:Q with Q >= 1)\n"},
		{"[machine]\ncpus = 2\n[search]\nbinpack_input = wall\n",
		 ":4: [search] binpack_input: 'wall' is not a binpacking input (work, "
		 "lifetime, elapsed)\n"},
		{"[search]\nalgoritm = sga\n",
		 ":2: [search] algoritm: unknown key\n"},
		{"[search]\ntime_limit = forever\n",
		 ":2: [search] time_limit: 'forever' is not a non-negative number of "
		 "seconds\n"},
		{"[machine]\ncpus = 2\nthis is not ini\n",
		 ":3: syntax error: not a [section], key = value, or comment: "
		 "'this is not ini'\n"},
		/* issue 14 item 8: the line is the true one, not a '(' in the text */
		{"[machine]\ncpus = 2\nfoo(99)\n",
		 ":3: syntax error: not a [section], key = value, or comment: 'foo(99)'\n"},
		/* control and high bytes are quoted, never echoed raw */
		{"[machine]\n\033[2J\xff\n",
		 ":2: syntax error: not a [section], key = value, or comment: '\\x1b[2J\\xff'\n"},
		/* duplicates: typos and repeats do not pass silently */
		{"[machine]\ncpus = 2\ncpus = 4\n",
		 ":3: [machine] cpus: repeated (first at line 2)\n"},
		{"[machine]\ncpus = 2\n[search]\n[machine]\n",
		 ":4: section [machine] repeated (first at line 1)\n"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *ini = tu_tmpfile(bad[i].text);
		char *out, *err, want[512];
		int rc = tu_cmdf("allocate", &out, &err, "--cpus 2 --config '%s' '%s'", ini,
		                  worst);
		assert_int_equal(rc, 2);
		snprintf(want, sizeof want, "%s%s", ini, bad[i].msg);
		assert_string_equal(err, want);
		assert_string_equal(out, "");
		free(out);
		free(err);
		unlink(ini);
		free(ini);
	}
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 --config /nonexistent.ini "
	                          "'%s'", worst), 2);
	assert_string_equal(err, "/nonexistent.ini: cannot open: No such file or "
	                    "directory\n");
	free(out);
	free(err);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	struct {
		const char *args, *msg; /* msg: stderr starts with it */
		int rc;
	} bad[] = {
		{"%s", "allocate: --cpus is required", 1},
		{"--cpus abc %s", "allocate: --cpus: 'abc' is not an integer in "
		 "1..65536", 1},
		{"--cpus 0 %s", "allocate: --cpus: '0' is not an integer in 1..65536", 1},
		{"--cpus 2 --algorithm magic %s", "allocate: --algorithm: 'magic' is "
		 "not an algorithm", 1},
		{"--cpus 2 --policy lifo %s", "allocate: --policy: 'lifo' is not a "
		 "policy", 1},
		{"--cpus 2 --max-tests -1 %s", "allocate: --max-tests: '-1' is not an "
		 "integer in 0..", 1},
		{"--cpus 2 --time-limit x %s", "allocate: --time-limit: 'x' is not a "
		 "non-negative number of seconds", 1},
		{"--cpus 2 --frobnicate %s", "allocate: unknown option '--frobnicate'",
		 1},
		{"--cpus 2", "allocate: no trace given", 1},
		{"--cpus 2 %s %s", "allocate: one trace only", 1},
		{"--cpus 2 /nonexistent.trace", "/nonexistent.trace: cannot open: ",
		 2},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *out, *err, args[8192], q[4200];
		snprintf(q, sizeof q, "'%s'", worst);
		snprintf(args, sizeof args, bad[i].args, q, q);
		int rc = tu_cmdf("allocate", &out, &err, "%s", args);
		assert_int_equal(rc, bad[i].rc);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("'%s': got '%s'", args, err);
		assert_int_equal(tu_count_lines(err), 1); /* one line */
		assert_string_equal(out, "");
		free(out);
		free(err);
	}
	/* A bad trace: exit 2, one line naming file and line. */
	char *tr = tu_tmpfile("shadowbind-trace 1\n1 0 create 2\n1 0 wiat 3\n");
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 '%s'", tr), 2);
	char want[300];
	snprintf(want, sizeof want, "%s:3: ", tr);
	assert_true(strncmp(err, want, strlen(want)) == 0);
	assert_int_equal(tu_count_lines(err), 1);
	free(out);
	free(err);
	unlink(tr);
	free(tr);
}

/* Exhaustive enumeration stopped early says so (issue 11 item 1): 5
 * threads on at most 3 processors have S(5,1) + S(5,2) + S(5,3) = 1 + 15
 * + 25 = 41 canonical bindings, more than a budget of 20 tests; with a
 * budget of 1000 it completes and the header has no `complete` line. */
static void test_exhaustive_incomplete(void **state)
{
	(void)state;
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 3 -a exhaustive --max-tests 20 "
	                         "'%s'", worst), 0);
	assert_non_null(strstr(out, "\ncomplete no "));
	assert_non_null(strstr(out, "\nstopped max-tests "));
	assert_non_null(strstr(err, "; the enumeration is incomplete\n"));
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 3 -a exhaustive --max-tests 1000 "
	                         "'%s'", worst), 0);
	assert_null(strstr(out, "\ncomplete "));
	assert_null(strstr(err, "incomplete"));
	free(out);
	free(err);
}

static void test_help_list(void **state)
{
	(void)state;
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--help"), 0);
	assert_non_null(strstr(out, "usage: allocate --cpus K"));
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--list-algorithms"), 0);
	const char *names[] = {"binpack ", "sga ", "csga ", "greedy ", "dsg ",
	                       "auto "};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		assert_non_null(strstr(out, names[i]));
	free(out);
	free(err);
}

static void test_deadlock_exit(void **state)
{
	(void)state;
	char *tr = tu_tmpfile("shadowbind-trace 1\n"
	                      "1 0 create 2\n1 0 create 3\n"
	                      "2 10 lock 1\n2 10 lock 2\n2 0 unlock 2\n"
	                      "2 0 unlock 1\n2 0 exit\n"
	                      "3 10 lock 2\n3 10 lock 1\n3 0 unlock 1\n"
	                      "3 0 unlock 2\n3 0 exit\n"
	                      "1 0 join 2\n1 0 join 3\n1 0 exit\n");
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 --model direct '%s'", tr), 3);
	assert_non_null(strstr(err, "deadlocks under every binding tried"));
	assert_int_equal(tu_count_lines(err), 1);
	assert_string_equal(out, "");
	free(out);
	free(err);
	/* The auto model never deadlocks. */
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q --model auto '%s'",
	                          tr), 0);
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 --model best '%s'", tr),
	                 1);
	assert_non_null(strstr(err, "--model: 'best' is not a model"));
	free(out);
	free(err);
	/* Under fifo a shared processor avoids it. */
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q --policy fifo '%s'",
	                          tr), 0);
	free(out);
	free(err);
	unlink(tr);
	free(tr);
}

/* The lines a binding file normally has and why one is missing (issue 20
 * item 5, issue 25).  A lock-order inversion among three threads, with a
 * machine file whose costs are all zero (so the contract's rules):
 *   main creates 2, 3, 4 at 0 and joins them; 2 takes mutex 1, works 5,
 *   takes 2; 3 takes 2, works 5, takes 1 (recorded after 2's unlocks);
 *   4 works 10.
 * Binpacking by work under fifo: 4 (10) on 0, 2 (5) on 1, 3 (5) on 1
 * (load 5 < 10), main (0) on 0.  Under Direct, cpu 1 runs 2 from 0 to 5
 * (both locks free), then 3 from 5 to 10; cpu 0 runs 4 from 0 to 10:
 * makespan 10, no deadlock, so the search's model is direct.
 * Unbound (the OS: one queue, 2 processors), Direct: 2 and 3 start at 0
 * on the two processors, each takes its first mutex at 0, works 5, and
 * waits for the other's: deadlock.  simulate --unbound falls back to
 * client-server (Paper VIII's scheme), where each lock waits for its
 * recorded release: 3's locks wait for 2's unlocks (at 5), so 3 is
 * idle and 4 runs from 0 to 10; 2 from 0 to 5; 3 from 5 to 10: unbound
 * 10, under client-server, which the header names.  The binding is
 * (10 - 10) / 10 = 0% faster: under the 13% margin, advice unbound.
 * With --model direct the unbound run deadlocks: no unbound, no advice,
 * and `no_unbound deadlock` says why.  The machine file leaves out the
 * bound line (`no_bound machine`: Paper VII's bound knows no machine
 * costs) but keeps the lower bound, whose parts (the largest thread's
 * work, the partition) hold when a model only adds non-negative costs:
 * works 0, 5, 5, 10; the largest 10; the best partition of {5, 5, 10}
 * on 2 processors {10 | 5 + 5} = 10: lower 10, which binpack's binding
 * reaches (`stopped lower-bound`).  --spin keeps it too; --no-bound
 * leaves both out (`no_bound option`). */
static void test_missing_lines(void **state)
{
	(void)state;
	char *tr = tu_tmpfile("shadowbind-trace 1\nunit ns\n"
	                      "1 0 create 2\n1 0 create 3\n1 0 create 4\n"
	                      "2 0 lock 1\n2 5 lock 2\n2 0 unlock 2\n2 0 unlock 1\n2 0 exit\n"
	                      "3 0 lock 2\n3 5 lock 1\n3 0 unlock 1\n3 0 unlock 2\n3 0 exit\n"
	                      "4 10 exit\n"
	                      "1 0 join 2\n1 0 join 3\n1 0 join 4\n1 0 exit\n");
	char *mf = tu_tmpfile("[machine]\nunit = ns\ncpus = 0 1\nlatency.0 = 0 0\n"
	                      "latency.1 = 0 0\nswitch = 0\ncreate = 0\ncreate_remote = 0\n"
	                      "exit = 0\nexit_remote = 0\n");
	char *out, *err;
	/* simulate, the independent method: Direct deadlocks unbound,
	 * auto falls back to client-server at 10 */
	assert_int_equal(tu_cmdf("simulate", &out, &err, "--unbound --cpus 2 --policy fifo "
	                          "--model direct --machine '%s' '%s'", mf, tr), 3);
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("simulate", &out, &err, "--unbound --cpus 2 --policy fifo "
	                          "--machine '%s' '%s'", mf, tr), 0);
	assert_non_null(strstr(out, "makespan 10\n"));
	assert_non_null(strstr(out, "\nmodel client-server\n"));
	free(out);
	free(err);
	int rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -q -a binpack --policy fifo "
	                 "--machine '%s' '%s'", mf, tr);
	if (rc != 0)
		fail_msg("allocate: status %d: %s", rc, err);
	assert_non_null(strstr(out,
		"\nmakespan 10 "));
	assert_non_null(strstr(out,
		"\nlower 10            # proven lower bound: no binding's makespan is below it\n"
		"advice unbound      # binding: predicted the margin faster than unbound; unbound: run it unbound\n"
		"tests 1             # allocations simulated by the search\n"
		"model direct        # the simulation model every test used\n"
		"binpack_input work  # what binpacking was told of each thread\n"
		"stopped lower-bound # why the search stopped\n"
		"unbound 10          # predicted left unbound (the OS; --machine)\n"
		"unbound_model client-server  # the model of the unbound run (simulate's fallback)\n"
		"no_bound machine    # why bound (and lower, if absent) is missing\n"
		"\n1 0\n2 1\n3 1\n4 0\n"));
	assert_null(strstr(out, "\nbound "));
	free(out);
	free(err);
	/* the same in --json: reasons, not bare nulls */
	rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -q -a binpack --policy fifo --json "
	             "--machine '%s' '%s'", mf, tr);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"bound\": null, \"lower\": 10, \"no_bound\": \"machine\", "
	                       "\"unbound\": 10, \"run_unbound\": true, "
	                       "\"unbound_model\": \"client-server\""));
	free(out);
	free(err);
	/* --model direct: the unbound run deadlocks under the model asked for */
	rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -a binpack --policy fifo --model direct "
	             "--machine '%s' '%s'", mf, tr);
	if (rc != 0)
		fail_msg("allocate: status %d: %s", rc, err);
	assert_non_null(strstr(out,
		"stopped lower-bound # why the search stopped\n"
		"no_unbound deadlock # why the unbound and advice lines are missing\n"
		"no_bound machine    # why bound (and lower, if absent) is missing\n"
		"\n1 0\n"));
	assert_null(strstr(out, "\nadvice "));
	assert_null(strstr(out, "\nunbound "));
	assert_non_null(strstr(err, "no unbound prediction and no advice: the unbound run "
	                       "deadlocks (model direct)\n"));
	assert_non_null(strstr(err, "at the lower bound (optimal); no analytic bound: Paper VII's "
	                       "bound knows one latency and no machine file's costs\n"));
	free(out);
	free(err);
	rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -q -a binpack --policy fifo --model direct "
	             "--json --machine '%s' '%s'", mf, tr);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"unbound\": null, \"run_unbound\": null, "
	                       "\"no_unbound\": \"deadlock\""));
	free(out);
	free(err);
	/* without a machine file: bound and lower (no reason line); with
	 * --no-bound the reason is the option */
	rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -q -a binpack --policy fifo '%s'", tr);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\nbound "));
	assert_non_null(strstr(out, "\nlower "));
	assert_null(strstr(out, "\nno_"));
	assert_null(strstr(out, "unbound"));
	free(out);
	free(err);
	/* --spin: no analytic bound, the lower bound stays */
	rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -a binpack --policy fifo --spin 1us '%s'", tr);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\nlower 10 "));
	assert_non_null(strstr(out, "\nno_bound spin "));
	assert_null(strstr(out, "\nbound "));
	assert_non_null(strstr(err, "at the lower bound (optimal); no analytic bound: Paper VII's "
	                       "bound knows no spinning wait's CPU\n"));
	free(out);
	free(err);
	rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -q -a binpack --policy fifo --no-bound '%s'",
	             tr);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\nno_bound option "));
	assert_null(strstr(out, "\nbound "));
	assert_null(strstr(out, "\nlower "));
	free(out);
	free(err);
	unlink(mf);
	free(mf);
	unlink(tr);
	free(tr);
}

/* More threads than Paper VII's bound used to take (BOUND_MAX_THREADS was
 * 4096 before issue 20 item 5; threadtask has 20,001): the bound is there
 * now, beside the lower bound.  Main creates 4097 threads of work 1 each
 * (and does no work), n = 4098.
 * lower: the partition of 4097 units on 2 processors is at least
 * ceil(4097 / 2) = 2049, which binpacking's halves (2049 and 2048) reach.
 * bound: with one processor per thread main creates all children at 0 and
 * all 4097 run in [0, 1]: T(P,n,0) = 1, v_4097 = 1.  The header's work
 * budget for one test (bound_trace_opts_budget: a tenth of 8196 records
 * + 4 x 4098 threads + 16 record-equivalents, x BOUND_UNITS_PER_REC = 40:
 * under 10^5 units) is far below the first class's counting (q_max =
 * 4097: ~4097 x 2 x 2049^2 = 3.4 10^10 multiply-adds), so it stops at the
 * work cap with the one-processor allocation's value p = sum q v_q = 4097
 * (docs/bound.md §8): bound = 4097 x T = 4097, marked capped. */
static void test_bound_many_threads(void **state)
{
	(void)state;
	char *tr = tu_fanout_trace(4097, 1, -1);
	char *out, *err;
	int rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -a binpack '%s'", tr);
	if (rc != 0)
		fail_msg("allocate: status %d: %s", rc, err);
	assert_non_null(strstr(out, "\nmakespan 2049 "));
	assert_non_null(strstr(out, "\nlower 2049 "));
	assert_non_null(strstr(out, "\nbound 4097 "));
	assert_non_null(strstr(out, "\nbound_search stopped-at-work-cap "));
	assert_null(strstr(out, "\nno_bound "));
	assert_non_null(strstr(err, "at the lower bound (optimal); below the analytic bound\n"));
	free(out);
	free(err);
	rc = tu_cmdf("allocate", &out, &err, "--cpus 2 -q -a binpack --json '%s'", tr);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"bound\": 4097, \"lower\": 2049, "
	                       "\"bound_search\": \"stopped at work cap\""));
	assert_null(strstr(out, "\"no_bound\""));
	free(out);
	free(err);
	unlink(tr);
	free(tr);
}

/* The same bytes for OMP_NUM_THREADS=1 and 2, and a binding file for a
 * larger generated program. */
static void test_determinism(void **state)
{
	(void)state;
	char progen[4096], cmd[8192];
	tu_bin("progen", progen, sizeof progen);
	char *gen = strdup("/tmp/sballocgenXXXXXX");
	int fd = mkstemp(gen);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "'%s' --family transactions --threads 24 "
	         "--seed 4 > '%s'", progen, gen);
	char *o0, *e0;
	if (tu_run(cmd, &o0, &e0) != 0) {
		/* progen not built in this tree: a trace of our own. */
		FILE *f = fopen(gen, "w");
		fputs("shadowbind-trace 1\n", f);
		for (int i = 2; i <= 24; i++)
			fprintf(f, "1 0 create %d\n", i);
		for (int i = 2; i <= 24; i++)
			fprintf(f, "%d %d lock 1\n%d %d unlock 1\n%d %d exit\n", i,
			        100 + 17 * i, i, 50 + (i * 31) % 200, i, 10 * i);
		for (int i = 2; i <= 24; i++)
			fprintf(f, "1 0 join %d\n", i);
		fputs("1 0 exit\n", f);
		fclose(f);
	}
	free(o0);
	free(e0);
	char *out[2], *err[2];
	for (int t = 0; t < 2; t++) {
		snprintf(cmd, sizeof cmd, "OMP_NUM_THREADS=%d '%s' --cpus 4 -q "
		         "--max-tests 300 --seed 9 '%s'", t + 1, bin, gen);
		assert_int_equal(tu_run(cmd, &out[t], &err[t]), 0);
	}
	assert_string_equal(out[0], out[1]);
	assert_non_null(strstr(out[0], "\ncpus 4\n"));
	assert_non_null(strstr(out[0], "\ntests "));
	for (int t = 0; t < 2; t++) {
		free(out[t]);
		free(err[t]);
	}
	unlink(gen);
	free(gen);
}

/* --binpack-input (docs/alloc.md, "Binpacking's input"): the program
 * tu_binpack_inputs, whose three inputs give three different binpacking
 * allocations on 2 processors (fifo), derived by hand in test_alloc.c's
 * test_binpack_input: work {main, w4, w5} / {w2, w3}; lifetime {main, w2, w3} / {w4,
 * w5}; elapsed {main, w4} / {w2, w3, w5}.  The header line
 * `binpack_input` and --json's key say which; a bad value is a usage
 * error, in the configuration file bad input. */
static void test_binpack_input(void **state)
{
	(void)state;
	char *tr = tu_tmpfile(tu_binpack_inputs);
	static const struct {
		const char *opt;    /* the option, or "" (the default)  */
		const char *header; /* the header line                  */
		const char *lines;  /* the binding                      */
	} want[] = {
		{.opt = "", .header = "\nbinpack_input work  # what binpacking was told of each thread\n",
		 .lines = "\n1 0 # main\n2 1 # w2\n3 1 # w3\n4 0 # w4\n5 0 # w5\n"},
		{.opt = "--binpack-input work", .header = "\nbinpack_input work ",
		 .lines = "\n1 0 # main\n2 1 # w2\n3 1 # w3\n4 0 # w4\n5 0 # w5\n"},
		{.opt = "--binpack-input lifetime", .header = "\nbinpack_input lifetime ",
		 .lines = "\n1 0 # main\n2 0 # w2\n3 0 # w3\n4 1 # w4\n5 1 # w5\n"},
		{.opt = "--binpack-input elapsed", .header = "\nbinpack_input elapsed ",
		 .lines = "\n1 0 # main\n2 1 # w2\n3 1 # w3\n4 0 # w4\n5 1 # w5\n"},
	};
	char *out, *err;
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 --policy fifo "
		                          "--model direct -a binpack -q --no-bound %s '%s'",
		                          want[i].opt, tr), 0);
		assert_non_null(strstr(out, want[i].header));
		assert_non_null(strstr(out, want[i].lines));
		assert_string_equal(err, "");
		free(out);
		free(err);
	}
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 --policy fifo -a binpack "
	                          "-q --no-bound --json --binpack-input elapsed '%s'", tr), 0);
	assert_non_null(strstr(out, "\"binpack_input\": \"elapsed\""));
	free(out);
	free(err);
	/* The configuration file; the option overrides it. */
	char *ini = tu_tmpfile("[machine]\ncpus = 2\npolicy = fifo\n[search]\n"
	                       "algorithm = binpack\nbinpack_input = lifetime\n");
	assert_int_equal(tu_cmdf("allocate", &out, &err, "-q --no-bound --config '%s' '%s'",
	                          ini, tr), 0);
	assert_non_null(strstr(out, "\nbinpack_input lifetime "));
	assert_non_null(strstr(out, want[2].lines));
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("allocate", &out, &err, "-q --no-bound --config '%s' "
	                          "--binpack-input elapsed '%s'", ini, tr), 0);
	assert_non_null(strstr(out, "\nbinpack_input elapsed "));
	assert_non_null(strstr(out, want[3].lines));
	free(out);
	free(err);
	unlink(ini);
	free(ini);
	/* A bad value: usage (1), one line, nothing on stdout. */
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 --binpack-input wall '%s'",
	                          tr), 1);
	assert_string_equal(out, "");
	assert_string_equal(err, "allocate: --binpack-input: 'wall' is not a binpacking "
	                         "input (work, lifetime, elapsed); see 'allocate --help'\n");
	free(out);
	free(err);
	unlink(tr);
	free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worst_case),
		cmocka_unit_test(test_trace_header),
		cmocka_unit_test(test_output_file),
		cmocka_unit_test(test_config_file),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_help_list),
		cmocka_unit_test(test_exhaustive_incomplete),
		cmocka_unit_test(test_deadlock_exit),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_binpack_input),
		cmocka_unit_test(test_missing_lines),
		cmocka_unit_test(test_bound_many_threads),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
