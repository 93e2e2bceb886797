/*
 * test_cli_common.c - the command-line language (cli/cli.h): the option
 * parser on its own, then the same option giving the same result and the
 * same message in every command (issue 11, item 3).
 */
#include <inttypes.h>
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
	/* Each row: arguments, then the expected result (hand-written; a
	 * field left out is 0 or NULL).  Every failing row is reported, named
	 * by its arguments. */
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
		{.args = {"--cpus", "4", "x"}, .rc = CLI_CONTINUE, .cpus = 4, .nops = 1, .op0 = "x"},
		{.args = {"--cpus=4", "x"}, .rc = CLI_CONTINUE, .cpus = 4, .nops = 1, .op0 = "x"},
		{.args = {"-k4", "x"}, .rc = CLI_CONTINUE, .cpus = 4, .nops = 1, .op0 = "x"},
		{.args = {"-k", "4", "x"}, .rc = CLI_CONTINUE, .cpus = 4, .nops = 1, .op0 = "x"},
		{.args = {"x", "-k", "4"}, .rc = CLI_CONTINUE, .cpus = 4, .nops = 1, .op0 = "x"},
		{.args = {"-qk", "3", "-"}, .rc = CLI_CONTINUE, .cpus = 3, .flag = 1, .nops = 1, .op0 = "-"},
		{.args = {"--", "--cpus"}, .rc = CLI_CONTINUE, .nops = 1, .op0 = "--cpus"},
		{.args = {"--cpus", "1", "--cpus", "2"}, .rc = CLI_CONTINUE, .cpus = 2},
		{.args = {"-o", "f", "--n", "7"}, .rc = CLI_CONTINUE, .n = 7, .file = "f"},
		{.args = {"--cpus", "65536"}, .rc = CLI_CONTINUE, .cpus = 65536},
		{.args = {"--cpus", "65537"}, .rc = CLI_EUSAGE},
		{.args = {"--cpus", "0"}, .rc = CLI_EUSAGE},
		{.args = {"--cpus", "+3"}, .rc = CLI_EUSAGE},
		{.args = {"--cpus"}, .rc = CLI_EUSAGE},
		{.args = {"--quiet=1"}, .rc = CLI_EUSAGE},
		{.args = {"--nope"}, .rc = CLI_EUSAGE},
		{.args = {"-z"}, .rc = CLI_EUSAGE},
		{.args = {"--n", "9"}, .rc = CLI_EUSAGE}, /* max 8 */
		{.args = {"--n", "1"}, .rc = CLI_EUSAGE}, /* min 2 */
		{.args = {"--t", "4xs"}, .rc = CLI_EUSAGE},
		{.args = {"--t", "1.5"}, .rc = CLI_EUSAGE}, /* decimals need a unit */
		{.args = {"--sec", "-1"}, .rc = CLI_EUSAGE},
		{.args = {"--sec", "nan"}, .rc = CLI_EUSAGE},
	};
	int failed = 0;
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
		/* the row's name: its arguments */
		char name[128] = "";
		for (const char *const *a = t[i].args; *a; a++)
			snprintf(name + strlen(name), sizeof name - strlen(name),
			         "%s%s", a == t[i].args ? "" : " ", *a);
		int ok = rc == t[i].rc;
		if (ok && rc == CLI_CONTINUE)
			ok = v.cpus == t[i].cpus && v.n == t[i].n && v.flag == t[i].flag &&
			     (!t[i].file || (v.file && !strcmp(v.file, t[i].file))) &&
			     nops == t[i].nops && (!t[i].op0 || !strcmp(ops[0], t[i].op0));
		if (!ok) {
			print_error("'%s': rc %d cpus %u n %" PRIu64 " flag %d file %s "
			            "nops %d; want rc %d cpus %u n %" PRIu64 " flag %d "
			            "file %s nops %d op0 %s\n",
			            name, rc, v.cpus, v.n, v.flag, v.file ? v.file : "-",
			            nops, t[i].rc, t[i].cpus, t[i].n, t[i].flag,
			            t[i].file ? t[i].file : "-", t[i].nops,
			            t[i].op0 ? t[i].op0 : "-");
			failed++;
		}
	}
	assert_int_equal(failed, 0);
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
		{.text = "4us", .unit = "ns", .ok = 1, .want = 4000},
		{.text = "0.5ms", .unit = "us", .ok = 1, .want = 500},
		{.text = "1s", .unit = "ms", .ok = 1, .want = 1000},
		{.text = "10ns", .unit = "ns", .ok = 1, .want = 10},
		{.text = "1ns", .unit = "us", .ok = 0},
		{.text = "3", .unit = NULL, .ok = 1, .want = 3},
		{.text = "3", .unit = "s", .ok = 1, .want = 3},
		{.text = "4us", .unit = NULL, .ok = 0},
		{.text = "4611686018427387904ns", .unit = "ns", .ok = 0}, /* 2^62 */
		{.text = "4611686018427387903ns", .unit = "ns", .ok = 1, .want = 4611686018427387903ull},
	};
	int failed = 0;
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
		if ((rc == 0) != t[i].ok || (t[i].ok && v != t[i].want) ||
		    (!t[i].ok && !strstr(why, "--latency: "))) {
			print_error("%s in %s: rc %d, value %" PRIu64 " (%s); want %s %" PRIu64 "\n",
			            t[i].text, t[i].unit ? t[i].unit : "no unit", rc, v,
			            why, t[i].ok ? "ok" : "refused", t[i].want);
			failed++;
		}
		trace_free(tr);
	}
	assert_int_equal(failed, 0);
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
	/* a command's own statuses replace the generic list: one block */
	const struct cli_cmd own = {.name = "t", .usage = "X", .opts = opts,
	                            .epilog = "Limits: none.",
	                            .exits = "  the program's; else\n  1    usage error"};
	f = open_memstream(&buf, &len);
	cli_help(&own, f);
	fclose(f);
	assert_non_null(strstr(buf, "\nLimits: none.\n\nExit status:\n  the program's; else\n"
	                            "  1    usage error\n"));
	assert_null(strstr(buf, "out of memory"));
	assert_null(strstr(strstr(buf, "Exit status:") + 1, "Exit status:"));
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
		{.cmd = "simulate", .args = "", .status = 2, .err = "%s: cannot read: Is a directory\n"},
		{.cmd = "allocate", .args = "--cpus 2", .status = 2, .err = "%s: cannot read: Is a directory\n"},
		{.cmd = "bound", .args = "--cpus 2", .status = 2, .err = "%s: cannot read: Is a directory\n"},
		{.cmd = "progen", .args = "--stats", .status = 2, .err = "%s: cannot read: Is a directory\n"},
		/* one --cpus limit */
		{.cmd = "simulate", .args = "--unbound --cpus 65537", .status = 1,
		 .err = "simulate: --cpus: '65537' is not an integer in 1..65536; see 'simulate --help'\n"},
		{.cmd = "allocate", .args = "--cpus 65537", .status = 1,
		 .err = "allocate: --cpus: '65537' is not an integer in 1..65536; see 'allocate --help'\n"},
		{.cmd = "bound", .args = "--cpus 65537", .status = 1,
		 .err = "bound: --cpus: '65537' is not an integer in 1..65536; see 'bound --help'\n"},
		/* unknown options, missing values */
		{.cmd = "simulate", .args = "--frob", .status = 1, .err = "simulate: unknown option '--frob'; see 'simulate --help'\n"},
		{.cmd = "allocate", .args = "--frob", .status = 1, .err = "allocate: unknown option '--frob'; see 'allocate --help'\n"},
		{.cmd = "bound", .args = "--frob", .status = 1, .err = "bound: unknown option '--frob'; see 'bound --help'\n"},
		{.cmd = "progen", .args = "--stats -z", .status = 1, .err = "progen: unknown option '-z'; see 'progen --help'\n"},
		/* a unit suffix on a trace without a unit */
		{.cmd = "simulate", .args = "--latency 4us", .status = 1,
		 .err = "simulate: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'simulate --help'\n"},
		{.cmd = "allocate", .args = "--cpus 2 --latency 4us", .status = 1,
		 .err = "allocate: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'allocate --help'\n"},
		{.cmd = "bound", .args = "--cpus 2 --latency 4us", .status = 1,
		 .err = "bound: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'bound --help'\n"},
		{.cmd = "critical", .args = "--latency 4us", .status = 1,
		 .err = "critical: --latency: '4us': a unit suffix needs a trace that declares its unit (ns, us, ms or s); see 'critical --help'\n"},
		/* the machine rules of simulate and critical (cli_machine) */
		{.cmd = "simulate", .args = "--unbound", .status = 1, .err = "simulate: --unbound needs --cpus K; see 'simulate --help'\n"},
		{.cmd = "critical", .args = "--unbound", .status = 1, .err = "critical: --unbound needs --cpus K; see 'critical --help'\n"},
		{.cmd = "simulate", .args = "--unbound --binding b", .status = 1,
		 .err = "simulate: --binding and --unbound exclude each other; see 'simulate --help'\n"},
		{.cmd = "critical", .args = "--unbound --binding b", .status = 1,
		 .err = "critical: --binding and --unbound exclude each other; see 'critical --help'\n"},
		{.cmd = "critical", .args = "--cpus 2", .status = 1,
		 .err = "critical: --cpus needs --binding FILE or --unbound; see 'critical --help'\n"},
		{.cmd = "critical", .args = "--binding /nonexistent", .status = 2,
		 .err = "/nonexistent: cannot open: No such file or directory\n"},
		{.cmd = "simulate", .args = "--binding /nonexistent", .status = 2,
		 .err = "/nonexistent: cannot open: No such file or directory\n"},
	};
	char dir[] = "/tmp/sbcliXXXXXX";
	assert_non_null(mkdtemp(dir));
	int failed = 0;
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		const char *input = strstr(t[i].err, "Is a directory") ? dir : worst;
		char *out, *err, want[1024];
		int rc = tu_cmdf(t[i].cmd, &out, &err, "%s '%s'", t[i].args, input);
		snprintf(want, sizeof want, t[i].err, input);
		if (rc != t[i].status || strcmp(err, want) != 0 || out[0]) {
			print_error("%s %s: status %d, stderr '%s', stdout '%s'; want %d '%s', "
			            "no stdout\n", t[i].cmd, t[i].args, rc, err, out,
			            t[i].status, want);
			failed++;
		}
		free(out);
		free(err);
	}
	rmdir(dir);
	assert_int_equal(failed, 0);
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
	const char *cmds[] = {"simulate", "allocate", "bound", "progen", "rebind"};
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
