/*
 * test_cli_common.c - the command-line language (cli/cli.h): the option
 * parser on its own, then the same option giving the same result and the
 * same message in every command (issue 11, item 3).
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

#include "cli/cli.h"
#include "tests/testutil.h"

/* ---------------------------------------------------------------------
 * The parser itself
 */

struct vals {
	uint32_t cpus;
	uint64_t n;
	int flag;
	const char *file;
	struct cli_time t;
	double sec;
};

static int run_parse(struct vals *v, struct cli_opt *opts, const char *const *args,
                     int *nops, char **ops_out)
{
	char *argv[16];
	int argc = 0;
	argv[argc++] = "t";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	const struct cli_cmd cmd = {.name = "t", .usage = "[options] X", .opts = opts};
	(void)v;
	int rc = cli_parse(&cmd, argc, argv, nops);
	for (int i = 0; i < *nops; i++)
		ops_out[i] = argv[1 + i];
	return rc;
}

static void test_parse_forms(void **state)
{
	(void)state;
	/* Each row: arguments, then the expected result (hand-written). */
	static const struct {
		const char *args[8];
		int rc;
		uint32_t cpus;
		uint64_t n;
		int flag;
		const char *file;
		int nops;
		const char *op0;
	} t[] = {
		{{"--cpus", "4", "x"}, CLI_CONTINUE, 4, 0, 0, NULL, 1, "x"},
		{{"--cpus=4", "x"}, CLI_CONTINUE, 4, 0, 0, NULL, 1, "x"},
		{{"-k4", "x"}, CLI_CONTINUE, 4, 0, 0, NULL, 1, "x"},
		{{"-k", "4", "x"}, CLI_CONTINUE, 4, 0, 0, NULL, 1, "x"},
		{{"x", "-k", "4"}, CLI_CONTINUE, 4, 0, 0, NULL, 1, "x"},
		{{"-qk", "3", "-"}, CLI_CONTINUE, 3, 0, 1, NULL, 1, "-"},
		{{"--", "--cpus"}, CLI_CONTINUE, 0, 0, 0, NULL, 1, "--cpus"},
		{{"--cpus", "1", "--cpus", "2"}, CLI_CONTINUE, 2, 0, 0, NULL, 0, NULL},
		{{"-o", "f", "--n", "7"}, CLI_CONTINUE, 0, 7, 0, "f", 0, NULL},
		{{"--cpus", "65536"}, CLI_CONTINUE, 65536, 0, 0, NULL, 0, NULL},
		{{"--cpus", "65537"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"--cpus", "0"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"--cpus", "+3"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"--cpus"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"--quiet=1"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"--nope"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"-z"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"--n", "9"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL}, /* max 8 */
		{{"--n", "1"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL}, /* min 2 */
		{{"--t", "4xs"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"--t", "1.5"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL}, /* decimals need a unit */
		{{"--sec", "-1"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
		{{"--sec", "nan"}, CLI_EUSAGE, 0, 0, 0, NULL, 0, NULL},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		struct vals v = {0};
		struct cli_opt opts[] = {
			{CLI_CPUS, "cpus", 'k', .dst = &v.cpus, .help = "k"},
			{CLI_U64, "n", .dst = &v.n, .min = 2, .max = 8, .help = "n"},
			{CLI_FLAG, "quiet", 'q', .dst = &v.flag, .help = "q"},
			{CLI_STR, "output", 'o', .dst = &v.file, .help = "o"},
			{CLI_TIME, "t", .dst = &v.t, .help = "t"},
			{CLI_SECONDS, "sec", .dst = &v.sec, .help = "s"},
			{CLI_END}};
		int nops = 0;
		char *ops[16];
		int rc = run_parse(&v, opts, t[i].args, &nops, ops);
		if (rc != t[i].rc)
			fail_msg("row %zu: rc %d, want %d", i, rc, t[i].rc);
		if (rc != CLI_CONTINUE)
			continue;
		assert_int_equal(v.cpus, t[i].cpus);
		assert_int_equal(v.n, t[i].n);
		assert_int_equal(v.flag, t[i].flag);
		if (t[i].file)
			assert_string_equal(v.file, t[i].file);
		assert_int_equal(nops, t[i].nops);
		if (t[i].op0)
			assert_string_equal(ops[0], t[i].op0);
	}
}

/* Times: the value in trace units, by hand: 4us in ns = 4000; 0.5ms in
 * us = 500; 1s in ms = 1000; 1ns in us is not whole; 3 = 3 units. */
static void test_times(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *unit; /* the trace's unit line, or NULL */
		int ok;
		uint64_t want;
	} t[] = {
		{"4us", "ns", 1, 4000},
		{"0.5ms", "us", 1, 500},
		{"1s", "ms", 1, 1000},
		{"10ns", "ns", 1, 10},
		{"1ns", "us", 0, 0},
		{"3", NULL, 1, 3},
		{"3", "s", 1, 3},
		{"4us", NULL, 0, 0},
		{"4611686018427387904ns", "ns", 0, 0}, /* 2^62 */
		{"4611686018427387903ns", "ns", 1, 4611686018427387903ull},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		char text[200];
		snprintf(text, sizeof text, "shadowbind-trace 1\n%s%s%s1 1 exit\n",
		         t[i].unit ? "unit " : "", t[i].unit ? t[i].unit : "",
		         t[i].unit ? "\n" : "");
		struct trace *tr = tu_trace(text);
		struct cli_time ct = {.name = "latency"};
		assert_int_equal(cli_time_parse(t[i].text, &ct), 0);
		uint64_t v = 77;
		char why[200] = "";
		int rc = cli_time_get(&ct, tr, 0, &v, why, sizeof why);
		if ((rc == 0) != t[i].ok)
			fail_msg("%s in %s: rc %d (%s)", t[i].text, t[i].unit, rc, why);
		if (t[i].ok)
			assert_int_equal(v, t[i].want);
		else
			assert_non_null(strstr(why, "--latency: "));
		trace_free(tr);
	}
}

/* The help text comes from the table, and lists every exit status. */
static void test_help(void **state)
{
	(void)state;
	uint32_t k;
	struct cli_opt opts[] = {
		{CLI_GROUP, .help = "Machine"},
		{CLI_CPUS, "cpus", 'k', .dst = &k, .help = "processors\nsecond line"},
		{CLI_END}};
	const struct cli_cmd cmd = {.name = "t", .usage = "[options] X", .opts = opts,
	                            .exit3 = "deadlock"};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cli_help(&cmd, f);
	fclose(f);
	assert_non_null(strstr(buf, "usage: t [options] X\n"));
	assert_non_null(strstr(buf, "\nMachine:\n  -k, --cpus K          processors\n"
	                            "                        second line\n"));
	assert_non_null(strstr(buf, "  3    deadlock\n"));
	assert_non_null(strstr(buf, "  4    out of memory"));
	assert_non_null(strstr(buf, "  130  interrupted (SIGINT); 143 terminated (SIGTERM)\n"));
	free(buf);
}

static void test_quote(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(cli_quote("a\033[2Jb", 6, b, sizeof b), "a\\x1b[2Jb");
	assert_string_equal(cli_quote("\xff\xc3\xa9", 3, b, sizeof b), "\\xff\xc3\xa9");
	assert_string_equal(cli_quote("a\\b", 3, b, sizeof b), "a\\\\b");
	/* U+009B (CSI to some terminals) escaped; U+00A0 is text */
	assert_string_equal(cli_quote("\xc2\x9b" "31m\xc2\xa0", 7, b, sizeof b),
	                    "\\xc2\\x9b31m\xc2\xa0");
	assert_string_equal(cli_quote("abcdefghij", 10, b, 8), "abcd...");
}

/* ---------------------------------------------------------------------
 * The same option, the same message, in every command
 */

static char worst[4096];

static int setup(void **state)
{
	(void)state;
	tu_shared("examples/binpack-worst-case.trace", worst, sizeof worst);
	return 0;
}

static void test_same_messages(void **state)
{
	(void)state;
	/* cmd + args before the input; the input; status; stderr exactly. */
	static const struct {
		const char *cmd, *args;
		int status;
		const char *err; /* %s: the input path */
	} t[] = {
		/* a directory: the same words everywhere */
		{"simulate", "", 2, "%s: cannot read: Is a directory\n"},
		{"allocate", "--cpus 2", 2, "%s: cannot read: Is a directory\n"},
		{"bound", "--cpus 2", 2, "%s: cannot read: Is a directory\n"},
		{"progen", "--stats", 2, "%s: cannot read: Is a directory\n"},
		/* one --cpus limit */
		{"simulate", "--unbound --cpus 65537", 1,
		 "simulate: --cpus: '65537' is not an integer in 1..65536; see 'simulate --help'\n"},
		{"allocate", "--cpus 65537", 1,
		 "allocate: --cpus: '65537' is not an integer in 1..65536; see 'allocate --help'\n"},
		{"bound", "--cpus 65537", 1,
		 "bound: --cpus: '65537' is not an integer in 1..65536; see 'bound --help'\n"},
		/* unknown options, missing values */
		{"simulate", "--frob", 1, "simulate: unknown option '--frob'; see 'simulate --help'\n"},
		{"allocate", "--frob", 1, "allocate: unknown option '--frob'; see 'allocate --help'\n"},
		{"bound", "--frob", 1, "bound: unknown option '--frob'; see 'bound --help'\n"},
		{"progen", "--stats -z", 1, "progen: unknown option '-z'; see 'progen --help'\n"},
		/* a unit suffix on a trace without a unit */
		{"simulate", "--latency 4us", 1,
		 "simulate: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'simulate --help'\n"},
		{"allocate", "--cpus 2 --latency 4us", 1,
		 "allocate: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'allocate --help'\n"},
		{"bound", "--cpus 2 --latency 4us", 1,
		 "bound: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'bound --help'\n"},
		{"critical", "--latency 4us", 1,
		 "critical: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'critical --help'\n"},
		/* the machine rules of simulate and critical (cli_machine) */
		{"simulate", "--unbound", 1, "simulate: --unbound needs --cpus K; see 'simulate --help'\n"},
		{"critical", "--unbound", 1, "critical: --unbound needs --cpus K; see 'critical --help'\n"},
		{"simulate", "--unbound --binding b", 1,
		 "simulate: --binding and --unbound exclude each other; see 'simulate --help'\n"},
		{"critical", "--unbound --binding b", 1,
		 "critical: --binding and --unbound exclude each other; see 'critical --help'\n"},
		{"critical", "--cpus 2", 1,
		 "critical: --cpus needs --binding FILE or --unbound; see 'critical --help'\n"},
		{"critical", "--binding /nonexistent", 2,
		 "/nonexistent: cannot open: No such file or directory\n"},
		{"simulate", "--binding /nonexistent", 2,
		 "/nonexistent: cannot open: No such file or directory\n"},
	};
	char dir[] = "/tmp/sbcliXXXXXX";
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		const char *input = strstr(t[i].err, "Is a directory") ? dir : worst;
		char *out, *err, want[1024];
		int rc = tu_cmdf(t[i].cmd, &out, &err, "%s '%s'", t[i].args, input);
		snprintf(want, sizeof want, t[i].err, input);
		if (rc != t[i].status || strcmp(err, want) != 0)
			fail_msg("%s %s: status %d, stderr '%s', want %d '%s'", t[i].cmd,
			         t[i].args, rc, err, t[i].status, want);
		assert_string_equal(out, "");
		free(out);
		free(err);
	}
	rmdir(dir);
}

/* --latency 4us means 4000 ns in every command that takes a trace. */
static void test_latency_units(void **state)
{
	(void)state;
	/* Two threads on two processors: main creates T2 (work 0), works 10
	 * and joins it; T2 works 10000 ns and exits.  The join waits for a
	 * release on another processor: + latency.  Simulate: 10000 + 4000
	 * = 14000 with --latency 4us or --latency 4000. */
	char *tr = tu_tmpfile("shadowbind-trace 1\nunit ns\n1 0 create 2\n"
	                      "2 10000 exit\n1 10 join 2\n1 0 exit\n");
	char *bind = tu_tmpfile("shadowbind-binding 1\ncpus 2\n1 0\n2 1\n");
	char *out, *err, *out2, *err2;
	assert_int_equal(tu_cmdf("simulate", &out, &err, "--binding '%s' --latency 4us '%s'",
	                         bind, tr), 0);
	assert_int_equal(tu_cmdf("simulate", &out2, &err2, "--binding '%s' --latency 4000 '%s'",
	                         bind, tr), 0);
	assert_true(strncmp(out, "makespan 14000\n", 15) == 0);
	assert_string_equal(out, out2);
	free(out), free(err), free(out2), free(err2);
	/* allocate: the same binding file either way */
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q --latency 4us '%s'", tr), 0);
	assert_int_equal(tu_cmdf("allocate", &out2, &err2, "--cpus 2 -q --latency 4000 '%s'", tr), 0);
	assert_string_equal(out, out2);
	free(out), free(err), free(out2), free(err2);
	/* bound: the same p and bound */
	assert_int_equal(tu_cmdf("bound", &out, &err, "--cpus 2 --latency 4us '%s'", tr), 0);
	assert_int_equal(tu_cmdf("bound", &out2, &err2, "--cpus 2 --latency 4000 '%s'", tr), 0);
	char *p1 = strstr(out, "\np "), *p2 = strstr(out2, "\np ");
	assert_non_null(p1);
	assert_non_null(p2);
	assert_true(strncmp(p1, p2, strcspn(p1 + 1, "\n")) == 0);
	free(out), free(err), free(out2), free(err2);
	unlink(tr);
	unlink(bind);
	free(tr);
	free(bind);
}

/* Every command's --help names every exit status. */
static void test_help_exit_codes(void **state)
{
	(void)state;
	const char *cmds[] = {"simulate", "allocate", "bound", "progen"};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		char *out, *err;
		assert_int_equal(tu_cmdf(cmds[i], &out, &err, "--help"), 0);
		assert_non_null(strstr(out, "  1    usage error\n"));
		assert_non_null(strstr(out, "  2    bad input"));
		assert_non_null(strstr(out, "  4    out of memory or system error\n"));
		assert_non_null(strstr(out, "  130  interrupted (SIGINT); 143"));
		free(out);
		free(err);
		assert_int_equal(tu_cmdf(cmds[i], &out, &err, "--version"), 0);
		assert_non_null(strstr(out, "(shadowbind)"));
		free(out);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_same_messages),
		cmocka_unit_test(test_latency_units),
		cmocka_unit_test(test_help_exit_codes),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
