/*
 * test_cmd.c - what the commands share (cmd/common.h): the exit status of
 * each library's return codes, the machine's option rows, and the exit
 * statuses allocate promises (README, "Exit status"; docs/reliability.md).
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

#include "alloc/alloc.h"
#include "bound/bound.h"
#include "cli/cli.h"
#include "cmd/common.h"
#include "exp/exp.h"
#include "gen/gen.h"
#include "sim/sim.h"
#include "tests/testutil.h"
#include "viz/viz.h"

/* Every return code of every library, and the README's status for it:
 * 0 ok, 2 bad input, 3 (simulated) deadlock, 4 out of memory, internal
 * limit or system error (written from the README's table and the codes'
 * comments in each header, not from cmd/common.c). */
static void test_exit_statuses(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int (*map)(int);
		int code, status;
	} rows[] = {
		{.name = "SIM_OK", .map = cmd_exit_sim, .code = SIM_OK, .status = 0},
		{.name = "SIM_DEADLOCK", .map = cmd_exit_sim, .code = SIM_DEADLOCK, .status = 3},
		{.name = "SIM_EINVAL", .map = cmd_exit_sim, .code = SIM_EINVAL, .status = 4},
		{.name = "SIM_EOVERFLOW", .map = cmd_exit_sim, .code = SIM_EOVERFLOW, .status = 4},
		{.name = "SIM_ENOMEM", .map = cmd_exit_sim, .code = SIM_ENOMEM, .status = 4},
		{.name = "ALLOC_OK", .map = cmd_exit_alloc, .code = ALLOC_OK, .status = 0},
		{.name = "ALLOC_DEADLOCK", .map = cmd_exit_alloc, .code = ALLOC_DEADLOCK, .status = 3},
		{.name = "ALLOC_EINVAL", .map = cmd_exit_alloc, .code = ALLOC_EINVAL, .status = 2},
		{.name = "ALLOC_ENOMEM", .map = cmd_exit_alloc, .code = ALLOC_ENOMEM, .status = 4},
		{.name = "ALLOC_ESIM", .map = cmd_exit_alloc, .code = ALLOC_ESIM, .status = 4},
		{.name = "ALLOC_EMPI", .map = cmd_exit_alloc, .code = ALLOC_EMPI, .status = 4},
		{.name = "VIZ_OK", .map = cmd_exit_viz, .code = VIZ_OK, .status = 0},
		{.name = "VIZ_EINVAL", .map = cmd_exit_viz, .code = VIZ_EINVAL, .status = 2},
		{.name = "VIZ_ENOMEM", .map = cmd_exit_viz, .code = VIZ_ENOMEM, .status = 4},
		{.name = "VIZ_EIO", .map = cmd_exit_viz, .code = VIZ_EIO, .status = 2},
		{.name = "VIZ_ESIM", .map = cmd_exit_viz, .code = VIZ_ESIM, .status = 3},
		{.name = "BOUND_OK", .map = cmd_exit_bound, .code = BOUND_OK, .status = 0},
		{.name = "BOUND_EINVAL", .map = cmd_exit_bound, .code = BOUND_EINVAL, .status = 2},
		{.name = "BOUND_ENOMEM", .map = cmd_exit_bound, .code = BOUND_ENOMEM, .status = 4},
		{.name = "BOUND_ETOOBIG", .map = cmd_exit_bound, .code = BOUND_ETOOBIG, .status = 4},
		{.name = "BOUND_EDEADLOCK", .map = cmd_exit_bound, .code = BOUND_EDEADLOCK, .status = 3},
		{.name = "BOUND_ESIM", .map = cmd_exit_bound, .code = BOUND_ESIM, .status = 4},
		{.name = "EXP_OK", .map = cmd_exit_exp, .code = EXP_OK, .status = 0},
		{.name = "EXP_EINVAL", .map = cmd_exit_exp, .code = EXP_EINVAL, .status = 2},
		{.name = "EXP_ENOMEM", .map = cmd_exit_exp, .code = EXP_ENOMEM, .status = 4},
		{.name = "EXP_EIO", .map = cmd_exit_exp, .code = EXP_EIO, .status = 4},
		{.name = "EXP_ERUN", .map = cmd_exit_exp, .code = EXP_ERUN, .status = 4},
		/* progen: a bad family or option value is a usage error (1),
		 * an output file that cannot be written bad output (2), out
		 * of memory 4 (README, "Exit status") */
		{.name = "GEN_OK", .map = cmd_exit_gen, .code = GEN_OK, .status = 0},
		{.name = "GEN_EINVAL", .map = cmd_exit_gen, .code = GEN_EINVAL, .status = 1},
		{.name = "GEN_EIO", .map = cmd_exit_gen, .code = GEN_EIO, .status = 2},
		{.name = "GEN_ENOMEM", .map = cmd_exit_gen, .code = GEN_ENOMEM, .status = 4},
		{.name = "GEN_EBUG", .map = cmd_exit_gen, .code = GEN_EBUG, .status = 4},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		int got = rows[i].map(rows[i].code);
		if (got != rows[i].status) {
			print_message("%s: exit status %d, want %d\n", rows[i].name, got,
			              rows[i].status);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* The machine rows: every command that takes a row shows it with the same
 * help; a row left out is a CLI_SKIP entry, neither found nor parsed. */
static void test_machine_rows(void **state)
{
	(void)state;
	struct cmd_machine M;
	cmd_machine_init(&M, NULL);
	struct cli_opt all[] = {CMD_MACHINE_OPTS(&M, CLI_M_ALL), {CLI_END}};
	struct cli_opt some[] = {CMD_MACHINE_OPTS(&M, CLI_M_BIT(CPUS) | CLI_M_BIT(MODEL)),
	                         {CLI_END}};
	const struct cli_cmd ca = {.name = "a", .opts = all}, cs = {.name = "s", .opts = some};
	/* the rows by hand: 11 options under one heading */
	static const char *const names[] = {"cpus", "binding", "unbound", "machine", "latency",
	                                    "policy", "create-cost", "switch-cost", "spin",
	                                    "model", "pool"};
	assert_int_equal(CLI_M_NROWS, 11);
	assert_int_equal(all[0].kind, CLI_GROUP);
	for (size_t i = 0; i < 11; i++) {
		struct cli_opt *a = cli_find(&ca, names[i]), *s = cli_find(&cs, names[i]);
		assert_non_null(a);
		assert_true(a->help && a->help[0]);
		if (!strcmp(names[i], "cpus") || !strcmp(names[i], "model"))
			assert_ptr_equal(s->help, a->help);
		else
			assert_null(s);
	}
	/* parse: the values land in M */
	char *argv[] = {"s", "-k", "3", "--model", "strict", "x", NULL};
	int nops;
	assert_int_equal(cli_parse(&cs, 6, argv, &nops), CLI_CONTINUE);
	assert_int_equal(nops, 1);
	assert_int_equal(M.m.cpus, 3);
	assert_int_equal(M.par.model, SIM_STRICT);
	char *argv2[] = {"s", "--latency", "3", "x", NULL};
	assert_int_equal(cli_parse(&cs, 4, argv2, &nops), CLI_EUSAGE);
}

/* The values' words: each policy class's name and each model's name is
 * in the syntax the messages show (SIM_POLICY_SYNTAX, SIM_MODEL_SYNTAX). */
static void test_syntax_words(void **state)
{
	(void)state;
	static const char *const policies[] = {"ps", "fifo", "rr:4"};
	for (size_t i = 0; i < 3; i++) {
		struct sim_params p;
		sim_params_init(&p);
		char why[128], b[32];
		assert_int_equal(cmd_policy_opt(&p, policies[i], why, sizeof why), 0);
		sim_policy_format(&p, b, sizeof b);
		assert_string_equal(b, policies[i]);
		*strchrnul(b, ':') = 0;
		assert_non_null(strstr(SIM_POLICY_SYNTAX, b));
	}
	for (int m = SIM_DIRECT; m <= SIM_AUTO; m++) {
		enum sim_model got = SIM_DIRECT;
		assert_int_equal(sim_model_parse(sim_model_name((enum sim_model)m), &got), 0);
		assert_int_equal(got, m);
		assert_non_null(strstr(SIM_MODEL_SYNTAX, sim_model_name((enum sim_model)m)));
	}
	char why[128];
	enum sim_model m = SIM_STRICT;
	assert_int_equal(cmd_model_opt(&m, "best", why, sizeof why), -1);
	assert_int_equal(m, SIM_STRICT);
	assert_string_equal(why, "is not a model (direct, client-server, strict, auto)");
}

/* allocate: the simulator failing on every binding (exact-time overflow:
 * a latency of 2^62 - 1 with synchronization) is an internal limit,
 * status 4 (it was 2), as simulate's status for the same overflow. */
static void test_allocate_overflow(void **state)
{
	(void)state;
	char *tr = tu_tmpfile("shadowbind-trace 1\n"
	           "thread 1 main\nthread 2 w\n"
	           "1 100 create 2\n1 10 lock 1\n1 10 unlock 1\n"
	           "2 10 lock 1\n2 10 unlock 1\n2 0 exit\n1 0 join 2\n1 0 exit\n");
	char *out = NULL, *err = NULL;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "-q -k 2 --latency 4611686018427387903 '%s'",
	                         tr), 4);
	assert_non_null(strstr(err, "the simulator failed on every binding (exact-time overflow)"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("simulate", &out, &err, "--unbound -k 2 --latency 4611686018427387903 '%s'",
	                         tr), 4);
	free(out);
	free(err);
	unlink(tr);
	free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_statuses),
		cmocka_unit_test(test_machine_rows),
		cmocka_unit_test(test_syntax_words),
		cmocka_unit_test(test_allocate_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
