/*
 * test_cli_simulate.c - golden tests of bin/simulate: output, exit status,
 * errors.  Expected makespans are the shared example's documented values
 * (../shared/examples/binpack-worst-case.trace).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/testutil.h"

static const char binpack_binding[] =
	"shadowbind-binding 1\ncpus 2\n1 0\n2 0\n3 0\n4 1\n5 1\n";
static const char sga_binding[] =
	"shadowbind-binding 1\ncpus 2\n1 0  # main\n2 0\n5 0\n3 1\n4 1\n";

struct golden {
	const char *name;
	const char *binding; /* text of a binding file, or NULL */
	const char *args;    /* before the trace */
	const char *trace;   /* text of a trace, or NULL: the shared example */
	int status;
	const char *out_prefix; /* stdout starts with this, or NULL */
	const char *out_has;    /* stdout contains this, or NULL */
	const char *err_line;   /* stderr's first line after "<path>" or exact */
};


static const struct golden cases[] = {
	{"binpack ps", binpack_binding, "", NULL, 0, "makespan 4060\n", "mode bound\ncpus 2\npolicy ps\n", NULL},
	{"binpack fifo", binpack_binding, "--policy fifo", NULL, 0, "makespan 4060\n", "policy fifo\n", NULL},
	{"binpack rr", binpack_binding, "--policy rr:10", NULL, 0, "makespan 4060\n", "policy rr:10\n", NULL},
	{"sga", sga_binding, "", NULL, 0, "makespan 2050\n", NULL, NULL},
	{"sga latency", sga_binding, "--latency 100", NULL, 0, "makespan 2240\n", "latency 100\n", NULL},
	{"sga latency fifo", sga_binding, "--latency 100 --policy fifo", NULL, 0, "makespan 2240\n", NULL, NULL},
	{"critical path", NULL, "", NULL, 0, "makespan 2050\n", "mode critical-path", NULL},
	/* Unbound, 2 processors, fifo: T1 and T2 run at once (T2 ends at
	 * 1000, T1 at 1030); T3 and T4 wait for T1's posts and then run in
	 * parallel: 1030 + 1020 = 2050. */
	{"unbound 2", NULL, "--unbound --cpus 2 --policy fifo", NULL, 0, "makespan 2050\n", "mode unbound\n", NULL},
	{"unbound 1", NULL, "--unbound --cpus 1 --policy fifo", NULL, 0, "makespan 4060\n", NULL, NULL},
	{"json", sga_binding, "--json", NULL, 0, "{\"makespan\": \"2050\"", "\"threads\": [", NULL},
	{"table", binpack_binding, "", NULL, 0, NULL,
	 "2          T1               0                 0         2030         1030         1000            0\n", NULL},
	{"help", NULL, "--help", NULL, 0, "usage: simulate", "--binding FILE", NULL},
	{"no trace", NULL, "", "", 1, NULL, NULL, "simulate: no trace given; see 'simulate --help'"},
	{"bad policy", NULL, "--policy lifo", NULL, 1, NULL, NULL, "simulate: --policy: 'lifo' is not a policy (ps, fifo, rr:Q with Q >= 1); see 'simulate --help'"},
	{"bad cpus", NULL, "--cpus 0", NULL, 1, NULL, NULL, "simulate: --cpus: '0' is not an integer in 1..65536; see 'simulate --help'"},
	{"bad latency", NULL, "--latency -3", NULL, 1, NULL, NULL, "simulate: --latency: '-3' is not a time (an integer in trace units below 2^62, or a number with a unit: 4us, 0.5ms, 10ns, 1s); see 'simulate --help'"},
	/* issue 11: --cpus alone would print the critical path */
	{"cpus alone", NULL, "--cpus 4", NULL, 1, NULL, NULL, "simulate: --cpus needs --binding FILE or --unbound (without either, simulate computes the critical path, one processor per thread); see 'simulate --help'"},
	/* a unit suffix: 4us = 4000 ns; 0.5us = 500 ns; needs a declared unit */
	{"latency unit", NULL, "--unbound --cpus 1 --latency 4us", "shadowbind-trace 1\nunit ns\n1 10 exit\n", 0, "makespan 10\n", "latency 4000\n", NULL},
	{"latency fraction", NULL, "--unbound --cpus 1 --latency=0.5us", "shadowbind-trace 1\nunit ns\n1 10 exit\n", 0, "makespan 10\n", "latency 500\n", NULL},
	{"latency not whole", NULL, "--unbound --cpus 1 --latency 1ns", "shadowbind-trace 1\nunit us\n1 10 exit\n", 1, NULL, NULL, "simulate: --latency: '1ns' is not a whole number of trace units (us); see 'simulate --help'"},
	{"latency no unit", NULL, "--latency 4us", NULL, 1, NULL, NULL, "simulate: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'simulate --help'"},
	{"unbound needs cpus", NULL, "--unbound", NULL, 1, NULL, NULL, "simulate: --unbound needs --cpus K"},
	{"both modes", sga_binding, "--unbound --cpus 2", NULL, 1, NULL, NULL, "simulate: --binding and --unbound exclude each other"},
	{"unknown option", NULL, "--frobnicate", NULL, 1, NULL, NULL, NULL},
	{"bad trace", NULL, "", "shadowbind-trace 1\n1 0 wiat 1\n1 0 exit\n", 2, NULL, NULL,
	 ":2: 'wiat' is not an operation (did you mean 'wait'?)"},
	{"bad binding", "shadowbind-binding 1\ncpus 2\n1 0\n2 0\n9 1\n", "", NULL, 2, NULL, NULL, ":5: thread 9 is not in the trace"},
	{"binding beyond cpus", sga_binding, "--cpus 1", NULL, 2, NULL, NULL, ": thread 3 is bound to processor 1, but --cpus is 1"},
	{"deadlock", NULL, "--model direct", tu_lock_inversion, 3, NULL, NULL, ": the simulated run deadlocked at time 10 with 3 threads blocked (model direct):"},
};

static int starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static void test_golden(void **state)
{
	(void)state;
	char bin[4096], ex[4096], cmd[16384];
	tu_bin("simulate", bin, sizeof bin);
	tu_shared("examples/binpack-worst-case.trace", ex, sizeof ex);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct golden *g = &cases[i];
		char *bpath = g->binding ? tu_tmpfile(g->binding) : NULL;
		char *tpath = g->trace && *g->trace ? tu_tmpfile(g->trace) : NULL;
		const char *trace = g->trace ? (tpath ? tpath : "") : ex;
		snprintf(cmd, sizeof cmd, "%s %s%s %s %s", bin, bpath ? "--binding " : "",
		         bpath ? bpath : "", g->args, trace);
		char *out = NULL, *err = NULL;
		int st = tu_run(cmd, &out, &err);
		if (st != g->status)
			fail_msg("%s: exit %d, expected %d\nstdout: %s\nstderr: %s", g->name, st, g->status, out, err);
		if (g->out_prefix && !starts_with(out, g->out_prefix))
			fail_msg("%s: stdout does not start with '%s':\n%s", g->name, g->out_prefix, out);
		if (g->out_has && !strstr(out, g->out_has))
			fail_msg("%s: stdout lacks '%s':\n%s", g->name, g->out_has, out);
		if (g->status != 0 && g->status != 3) {
			/* errors: one line, nothing on stdout */
			assert_string_equal(out, "");
			char *nl = strchr(err, '\n');
			if (!nl || nl[1] != 0)
				fail_msg("%s: stderr is not one line: '%s'", g->name, err);
		}
		if (g->err_line) {
			const char *e = err;
			if (g->err_line[0] == ':') { /* after the file's path */
				const char *path = g->binding && strstr(g->err_line, "thread 9") ? bpath :
				                   (tpath ? tpath : (strstr(g->err_line, "processor") ? bpath : ex));
				if (!starts_with(e, path))
					fail_msg("%s: stderr does not start with the path %s: %s", g->name, path, e);
				e += strlen(path);
			}
			if (!starts_with(e, g->err_line))
				fail_msg("%s: stderr '%s', expected '%s'", g->name, err, g->err_line);
		}
		free(out);
		free(err);
		if (bpath) {
			unlink(bpath);
			free(bpath);
		}
		if (tpath) {
			unlink(tpath);
			free(tpath);
		}
	}
}

/* The deadlock report names every blocked thread and what holds it. */
static void test_deadlock_lines(void **state)
{
	(void)state;
	char bin[4096], cmd[8192];
	tu_bin("simulate", bin, sizeof bin);
	char *t = tu_tmpfile(tu_lock_inversion);
	snprintf(cmd, sizeof cmd, "%s --model direct %s", bin, t);
	char *out = NULL, *err = NULL;
	assert_int_equal(tu_run(cmd, &out, &err), 3);
	assert_non_null(strstr(err, "thread 2 waits at line 5 to lock mutex 2, held by thread 3\n"));
	assert_non_null(strstr(err, "thread 3 waits at line 10 to lock mutex 1, held by thread 2\n"));
	assert_non_null(strstr(err, "thread 1 waits at line 14 to join thread 2\n"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	unlink(t);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_deadlock_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
