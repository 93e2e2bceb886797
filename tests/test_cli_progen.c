/*
 * test_cli_progen.c - golden tests of bin/progen: the acceptance command
 * and bin/simulate on its output, determinism (stdout, -o, --count across
 * OpenMP thread counts), atomic output, --stats by hand, help, bad
 * arguments and exit codes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "gen/gen.h"
#include "tests/testutil.h"
#include "trace/trace.h"

static char bin[4096], simulate[4096], worst[4096], dir[64];

static int setup(void **state)
{
	(void)state;
	tu_bin("progen", bin, sizeof bin);
	tu_bin("simulate", simulate, sizeof simulate);
	tu_shared("examples/binpack-worst-case.trace", worst, sizeof worst);
	snprintf(dir, sizeof dir, "/tmp/sbprogenXXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void clean_dir(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -f '%s'/*", dir);
	assert_int_equal(system(cmd), 0);
}

/* The acceptance: a valid trace that bin/simulate accepts. */
static void test_transactions_simulate(void **state)
{
	(void)state;
	clean_dir();
	char path[256], *out, *err;
	snprintf(path, sizeof path, "%s/t16.trace", dir);
	int rc = tu_cmdf("progen", &out, &err,
	                "--family transactions --threads 16 --seed 1 -o '%s'",
	                path);
	if (rc)
		print_error("%s", err);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "");
	assert_string_equal(err, "");
	free(out);
	free(err);
	assert_int_equal(tu_dir_entries(dir), 1); /* no temporary left */
	struct trace *tr = NULL;
	struct trace_error te;
	if (trace_read_file(path, &tr, &te) != 0)
		fail_msg("%s", te.msg);
	assert_int_equal(tr->nthreads, 16);
	trace_free(tr);

	char cmd[8192];
	snprintf(cmd, sizeof cmd, "'%s' '%s'", simulate, path);
	rc = tu_run(cmd, &out, &err);
	if (rc)
		print_error("%s", err);
	assert_int_equal(rc, 0);
	assert_memory_equal(out, "makespan ", 9);
	/* the critical path of --stats is simulate's default makespan */
	char mk[64];
	snprintf(mk, sizeof mk, "%.*s", (int)strcspn(out + 9, "\n"), out + 9);
	free(out);
	free(err);
	rc = tu_cmdf("progen", &out, &err, "--stats '%s'", path);
	assert_int_equal(rc, 0);
	char want[96];
	snprintf(want, sizeof want, "\ncritical_path %s\n", mk);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "threads 16\n"));
	free(out);
	free(err);

	snprintf(cmd, sizeof cmd, "'%s' --unbound --cpus 4 '%s'", simulate,
	         path);
	rc = tu_run(cmd, &out, &err);
	assert_int_equal(rc, 0);
	free(out);
	free(err);
}

/* Same arguments, same bytes: stdout twice, and -o. */
static void test_deterministic(void **state)
{
	(void)state;
	clean_dir();
	static const char *const args[] = {
		"--family transactions --threads 16 --seed 1",
		"--family pipeline --limit 100 --capacity 2",
		"--family forkjoin --threads 6 --seed 9 --imbalance 0.3",
		"--family prodcons --producers 10 --consumers 4 --buffers 3",
		"--family worstcase",
		"--family dag --threads 5 --seed 77 --mapping random",
	};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		char *a, *b, *e1, *e2, path[256];
		assert_int_equal(tu_cmdf("progen", &a, &e1, "%s", args[i]), 0);
		assert_int_equal(tu_cmdf("progen", &b, &e2, "%s", args[i]), 0);
		assert_string_equal(a, b);
		assert_string_equal(e1, "");
		struct trace *tr = tu_trace(a);
		trace_free(tr);
		snprintf(path, sizeof path, "%s/d.trace", dir);
		free(b);
		free(e2);
		assert_int_equal(tu_cmdf("progen", &b, &e2, "%s -o '%s'", args[i], path),
		                 0);
		char *f = tu_slurp(path, NULL);
		assert_non_null(f);
		assert_string_equal(a, f);
		free(f);
		free(a);
		free(b);
		free(e1);
		free(e2);
	}
	/* --name=value is --name value */
	char *a, *b, *e;
	assert_int_equal(tu_cmdf("progen", &a, &e, "--family=dag --threads=3 --depth=3"),
	                 0);
	free(e);
	assert_int_equal(tu_cmdf("progen", &b, &e, "--family dag --threads 3 --depth 3"),
	                 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(e);
}

/* --count: M files, the same with 1 or 2 OpenMP threads; each program's
 * header seed reproduces it alone. */
static void test_count(void **state)
{
	(void)state;
	clean_dir();
	char cmd[8192], *out, *err;
	for (int run = 0; run < 2; run++) {
		snprintf(cmd, sizeof cmd,
		         "OMP_NUM_THREADS=%d '%s' --family transactions "
		         "--threads 8 --seed 5 --count 6 -o '%s/r%d'",
		         run + 1, bin, dir, run);
		int rc = tu_run(cmd, &out, &err);
		if (rc)
			print_error("%s", err);
		assert_int_equal(rc, 0);
		assert_string_equal(out, "");
		free(out);
		free(err);
	}
	assert_int_equal(tu_dir_entries(dir), 12);
	for (int i = 1; i <= 6; i++) {
		char p0[256], p1[256];
		snprintf(p0, sizeof p0, "%s/r0-%04d.trace", dir, i);
		snprintf(p1, sizeof p1, "%s/r1-%04d.trace", dir, i);
		char *a = tu_slurp(p0, NULL), *b = tu_slurp(p1, NULL);
		assert_non_null(a);
		assert_non_null(b);
		assert_string_equal(a, b);
		struct trace *tr = tu_trace(a);
		assert_int_equal(tr->nthreads, 8);
		trace_free(tr);
		/* reproduce from the header's seed */
		const char *s = strstr(a, " --seed ");
		assert_non_null(s);
		unsigned long long seed = strtoull(s + 8, NULL, 10);
		assert_int_equal(seed, gen_seed_derive(5, (uint64_t)i));
		char *c, *e;
		assert_int_equal(tu_cmdf("progen", &c, &e,
		                        "--family transactions --threads 8 "
		                        "--seed %llu",
		                        seed),
		                 0);
		assert_string_equal(a, c);
		free(a);
		free(b);
		free(c);
		free(e);
	}
	/* different programs */
	char p1[256], p2[256];
	snprintf(p1, sizeof p1, "%s/r0-0001.trace", dir);
	snprintf(p2, sizeof p2, "%s/r0-0002.trace", dir);
	char *a = tu_slurp(p1, NULL), *b = tu_slurp(p2, NULL);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

/*
 * --stats by hand.  The worst case: see test_gen.c (critical path 2050,
 * work 4060).  forkjoin, 4 threads, no imbalance, 3 phases of 100 work,
 * serial 10: critical path 3 * (100 + 10) = 330, work 4 * 300 + 30 = 1230,
 * parallelism 1230 / 330 = 3.727.
 */
static void test_stats(void **state)
{
	(void)state;
	clean_dir();
	char *out, *err;
	assert_int_equal(tu_cmdf("progen", &out, &err, "--stats '%s'", worst), 0);
	assert_string_equal(out, "threads 5\n"
	                         "records 21\n"
	                         "work 4060\n"
	                         "critical_path 2050\n"
	                         "parallelism 1.980\n"
	                         "op.create 4\n"
	                         "op.exit 5\n"
	                         "op.join 4\n"
	                         "op.lock 0\n"
	                         "op.unlock 0\n"
	                         "op.trylock 0\n"
	                         "op.wait 4\n"
	                         "op.post 4\n"
	                         "op.trywait 0\n"
	                         "op.cwait 0\n"
	                         "op.signal 0\n"
	                         "op.broadcast 0\n"
	                         "op.barrier 0\n"
	                         "op.rdlock 0\n"
	                         "op.wrlock 0\n"
	                         "op.rwunlock 0\n"
	                         "op.sleep 0\n");
	free(out);
	free(err);
	char path[256];
	snprintf(path, sizeof path, "%s/fj.trace", dir);
	assert_int_equal(tu_cmdf("progen", &out, &err,
	                        "--family forkjoin --threads 4 --imbalance 0 "
	                        "--phases 3 --work 100 --serial 10 -o '%s'",
	                        path),
	                 0);
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("progen", &out, &err, "--stats '%s' '%s'", path, worst),
	                 0);
	assert_non_null(strstr(out, "trace "));
	assert_non_null(strstr(out, "\nwork 1230\ncritical_path 330\n"
	                            "parallelism 3.727\n"));
	assert_non_null(strstr(out, "\nop.barrier 24\n"));
	assert_non_null(strstr(out, "\ncritical_path 2050\n"));
	free(out);
	free(err);

	/* A valid trace whose one-processor-per-thread replay deadlocks
	 * (opposite lock orders, recorded one after the other): exit 3. */
	char *dl = tu_tmpfile("shadowbind-trace 1\n"
	                      "1 0 create 2\n"
	                      "1 0 lock 1\n"
	                      "1 10 lock 2\n"
	                      "1 0 unlock 2\n"
	                      "1 0 unlock 1\n"
	                      "2 0 lock 2\n"
	                      "2 10 lock 1\n"
	                      "2 0 unlock 1\n"
	                      "2 0 unlock 2\n"
	                      "2 0 exit\n"
	                      "1 0 join 2\n"
	                      "1 0 exit\n");
	assert_int_equal(tu_cmdf("progen", &out, &err, "--stats '%s'", dl), 3);
	assert_non_null(strstr(out, "critical_path deadlock\n"));
	assert_non_null(strstr(out, "parallelism -\n"));
	assert_int_equal(tu_count_lines(err), 1);
	free(out);
	free(err);
	unlink(dl);
	free(dl);
}

static void test_help(void **state)
{
	(void)state;
	char *out, *err;
	assert_int_equal(tu_cmdf("progen", &out, &err, "--help"), 0);
	for (size_t i = 0; i < gen_family_count(); i++) {
		const struct gen_family *f = gen_family_at(i);
		char want[128];
		snprintf(want, sizeof want, "\n%s - ", f->name);
		assert_non_null(strstr(out, want));
		assert_non_null(strstr(out, f->example));
		for (size_t k = 0; k < f->nparams; k++) {
			snprintf(want, sizeof want, "--%s ",
			         f->params[k].name);
			assert_non_null(strstr(out, want));
		}
	}
	for (size_t k = 0; k < gen_common_count(); k++) {
		char want[64];
		snprintf(want, sizeof want, "--%s ", gen_common_at(k)->name);
		assert_non_null(strstr(out, want));
	}
	assert_non_null(strstr(out, "--count"));
	assert_non_null(strstr(out, "--stats"));
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("progen", &out, &err, "--help pipeline"), 0);
	assert_non_null(strstr(out, "--limit N"));
	assert_null(strstr(out, "--groups"));
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("progen", &out, &err, "--list"), 0);
	assert_int_equal(tu_count_lines(out), 6);
	assert_non_null(strstr(out, "worstcase"));
	free(out);
	free(err);
}

struct bad {
	const char *args;
	int status;
	const char *msg;
};

static void test_bad_arguments(void **state)
{
	(void)state;
	clean_dir();
	char *garbage = tu_tmpfile("shadowbind-trace 1\n1 0 wiat 3\n");
	char args[512];
	static const struct bad cases[] = {
		{"", 1, "no --family"},
		{"--family nope", 1, "unknown family 'nope'"},
		{"--family transactions --threads x", 1, "--threads: 'x'"},
		{"--family transactions --threads 0", 1, "--threads: '0' is not an integer in 1..1048576"},
		{"--family transactions --seed -1", 1, "--seed"},
		{"--family transactions --seed 18446744073709551616", 1,
		 "--seed"},
		{"--family transactions --bogus 3", 1,
		 "unknown option '--bogus'"},
		{"--family transactions --groups", 1, "needs a value"},
		{"--family transactions --continue 2", 1, "--continue"},
		{"--family transactions --impossible maybe", 1, "skip|other"},
		{"--family worstcase --threads 4", 1, "5 threads"},
		{"--family pipeline --limit 1", 1, "--limit"},
		{"--family pipeline --threads 10 --limit 397", 1,
		 "does not match"},
		{"--family transactions extra", 1, "unexpected argument"},
		{"-x", 1, "unknown option '-x'"},
		{"--family dag --count 0", 1, "--count"},
		{"--family dag --count 3 --width 9999", 1, "--width"},
		{"--stats", 1, "needs a trace"},
		{"--stats --family dag x", 1, "only trace files"},
		{"--help nope", 1, "unknown family"},
		{"--stats /nonexistent/x.trace", 2, "x.trace"},
		{"--family transactions -o /nonexistent-dir/x.trace", 2,
		 "/nonexistent-dir/x.trace"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0] + 1; i++) {
		struct bad c;
		if (i < sizeof cases / sizeof cases[0]) {
			c = cases[i];
		} else { /* a bad trace: file:line: reason */
			snprintf(args, sizeof args, "--stats '%s'", garbage);
			c.args = args;
			c.status = 2;
			c.msg = ":2: ";
		}
		char *out, *err;
		int rc = tu_cmdf("progen", &out, &err, "%s", c.args);
		if (rc != c.status || !strstr(err, c.msg) ||
		    tu_count_lines(err) != 1)
			fail_msg("progen %s: status %d (want %d), stderr '%s' "
			         "(want one line with '%s')",
			         c.args, rc, c.status, err, c.msg);
		assert_string_equal(out, "");
		free(out);
		free(err);
	}
	/* --count with bad options wrote nothing */
	assert_int_equal(tu_dir_entries(dir), 0);
	unlink(garbage);
	free(garbage);
}

/*
 * Standard output that cannot be written (/dev/full) is a system error,
 * exit 4 as for every command (README, cmd/common.h: cmd_flush), for each
 * of progen's outputs to stdout; -o /dev/full stays an output file that
 * cannot be written, 2 (as allocate -o /dev/full, test_cli_output).  Every
 * failing row is reported.
 */
static void test_stdout_full(void **state)
{
	(void)state;
	static const struct {
		const char *name, *args;
		int status;
	} cases[] = {
		{.name = "one program", .status = 4,
		 .args = "--family dag --threads 3 >/dev/full"},
		{.name = "--stats", .status = 4, .args = "--stats '%s' >/dev/full"},
		{.name = "--list", .status = 4, .args = "--list >/dev/full"},
		{.name = "-o /dev/full", .status = 2,
		 .args = "--family dag --threads 3 -o /dev/full"},
	};
	int failed = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		int rc = tu_cmdf("progen", &out, &err, cases[i].args, worst);
		if (rc != cases[i].status || tu_count_lines(err) != 1 ||
		    !strstr(err, "No space left on device")) {
			print_error("%s: status %d (want %d), stderr '%s' (want one "
			            "line with 'No space left on device')\n",
			            cases[i].name, rc, cases[i].status, err);
			failed++;
		}
		free(out);
		free(err);
	}
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transactions_simulate),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_stdout_full),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
