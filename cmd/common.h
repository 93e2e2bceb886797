/*
 * common.h - what the commands share (cmd/common.c, in build/libcmd.a,
 * linked into every command): the machine's option rows, the exit status
 * of each library's return codes, the output tail.
 *
 * A command's main reads: parse (its option table, with the machine rows
 * from CMD_MACHINE_OPTS), run (the libraries), print, and returns one of
 * enum cli_exit (cli/cli.h), mapping a library's code with cmd_exit_*.
 *
 * The commands only: no library includes this header (LAYERS).
 */
#ifndef SHADOWBIND_CMD_COMMON_H
#define SHADOWBIND_CMD_COMMON_H

#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "mach/mach.h"
#include "sim/sim.h"

/* ---------------------------------------------------------------------
 * The machine options
 *
 *   struct cmd_machine M;
 *   cmd_machine_init(&M, "what the command does with neither --binding
 *                         nor --unbound", or NULL);
 *   struct cli_opt opts[] = {
 *       CMD_MACHINE_OPTS(&M, CLI_M_ALL & ~CLI_M_BIT(POOL)),
 *       {CLI_GROUP, .help = "Output"}, ...};
 *   ... cli_parse ...
 *   cli_machine_check(&M.m, ...)              (with --binding/--unbound)
 *   ... read the trace ...
 *   cmd_machine_load(&M, &cmd, tr, &par, why, len)
 *   ... run with par ...
 *   cli_machine_release(&M.m)
 *
 * The rows are those of CLI_MACHINE_ROWS (cli/cli.h), under the heading
 * "Machine", with the same help in every command; `which` (CLI_M_BIT of
 * the rows' IDs) picks the ones the command takes (the others become
 * CLI_SKIP rows).
 */
struct cmd_machine {
	struct cli_machine m;  /* the options as given (cli.h), loaded      */
	struct sim_params par; /* --policy and --model parse into it; the
	                          defaults: sim_params_init, model auto      */
	struct mach_model mm;  /* the machine file's figures (--machine, or
	                          machine = FILE of an INI file): par's
	                          lat_matrix points into it                 */
};

/* cmd_machine_release - what cmd_machine_load holds (the binding, the
 * machine file's model); accepts an initialized M it did not fill. */
void cmd_machine_release(struct cmd_machine *M);

/* cmd_machine_init - zero M, sim_params_init(&M->par) with model
 * SIM_AUTO, M->m.alone = alone. */
void cmd_machine_init(struct cmd_machine *M, const char *alone);

/* CLI_FUNC callbacks of the POLICY and MODEL rows: sim_policy_parse into
 * *(struct sim_params *)dst, sim_model_parse into *(enum sim_model *)dst;
 * 0, or -1 with "is not a policy (...)" in why. */
int cmd_policy_opt(void *dst, const char *v, char *why, size_t len);
int cmd_model_opt(void *dst, const char *v, char *why, size_t len);

/* The row of each kind of CLI_MACHINE_ROWS: dst in M as FIELD says; a
 * CLI_SKIP row unless W (the row is wanted). */
#define CMD_ROW_CPUS(M, W, OPT, SH, FIELD, MV, HELP) \
	{.kind = (W) ? CLI_CPUS : CLI_SKIP, .name = OPT, .short_name = SH, \
	 .metavar = MV, .dst = &(M)->m.FIELD, .help = HELP}
#define CMD_ROW_TIME(M, W, OPT, SH, FIELD, MV, HELP) \
	{.kind = (W) ? CLI_TIME : CLI_SKIP, .name = OPT, .short_name = SH, \
	 .metavar = MV, .dst = &(M)->m.FIELD, .help = HELP}
#define CMD_ROW_FILE(M, W, OPT, SH, FIELD, MV, HELP) \
	{.kind = (W) ? CLI_STR : CLI_SKIP, .name = OPT, .short_name = SH, \
	 .metavar = MV, .dst = &(M)->m.FIELD, .help = HELP}
#define CMD_ROW_STR CMD_ROW_FILE
#define CMD_ROW_MACHFILE CMD_ROW_FILE
#define CMD_ROW_FLAG(M, W, OPT, SH, FIELD, MV, HELP) \
	{.kind = (W) ? CLI_FLAG : CLI_SKIP, .name = OPT, .short_name = SH, \
	 .metavar = MV, .dst = &(M)->m.FIELD, .help = HELP}
#define CMD_ROW_POLICY(M, W, OPT, SH, FIELD, MV, HELP) \
	{.kind = (W) ? CLI_FUNC : CLI_SKIP, .name = OPT, .short_name = SH, \
	 .metavar = MV, .dst = &(M)->par, .fn = cmd_policy_opt, .help = HELP}
#define CMD_ROW_MODEL(M, W, OPT, SH, FIELD, MV, HELP) \
	{.kind = (W) ? CLI_FUNC : CLI_SKIP, .name = OPT, .short_name = SH, \
	 .metavar = MV, .dst = &(M)->par.FIELD, .fn = cmd_model_opt, .help = HELP}

/* CLI_MACHINE_ROWS' X: A is (M, which). */
#define CMD_ROW_M_(M, W) M
#define CMD_ROW_W_(M, W) W
#define CMD_ROW_(A, ID, KIND, OPT, SH, KEY, FIELD, MV, HELP) \
	, CMD_ROW_##KIND(CMD_ROW_M_ A, (CMD_ROW_W_ A) & CLI_M_BIT(ID), OPT, SH, \
	                 FIELD, MV, HELP)

/* The heading "Machine" and the machine rows `which` picks, for a
 * command's option table (M: a struct cmd_machine *). */
#define CMD_MACHINE_OPTS(M, which) \
	{.kind = CLI_GROUP, .help = "Machine"} \
	CLI_MACHINE_ROWS(CMD_ROW_, (M, which))

/*
 * cmd_one_trace - for a command that takes exactly one trace, given nops
 * operands: CLI_CONTINUE for one; else "no trace given" or "more than
 * one trace given" printed (cli_usage) and CLI_EUSAGE.
 */
int cmd_one_trace(const struct cli_cmd *cmd, int nops);

/*
 * cmd_machine_load - after the trace tr is read: cli_machine_load (the
 * times in tr's unit, the binding file), then the machine's values into
 * *par: each option given overrides par's value (par may hold an INI
 * file's, or be &M->par): cpus (--cpus, else the binding file's), the
 * times, policy and quantum, model; --unbound sets mode SIM_UNBOUND.
 * The machine file (--machine, else `machine_ini`, an INI file's
 * machine = FILE, or NULL) first: its figures for par->cpus processors
 * in tr's unit (mach_model_apply), then the options given override them
 * (--latency replaces the matrix).
 * Returns CLI_OK; or, with the message printed (cli_usage: a time that
 * does not fit tr's unit; else "file:line: problem"), CLI_EUSAGE or
 * CLI_EINPUT and nothing held.
 */
int cmd_machine_load(struct cmd_machine *M, const struct cli_cmd *cmd,
                     const struct trace *tr, struct sim_params *par);
/* The same with an INI file's machine = FILE (NULL: none). */
int cmd_machine_load_ini(struct cmd_machine *M, const struct cli_cmd *cmd,
                         const struct trace *tr, struct sim_params *par,
                         const char *machine_ini);

/*
 * cmd_pool_open - --pool as given (M->m.pool, NULL: none) over program
 * prog into *pool and par->pool: usage error (printed, CLI_EUSAGE) under
 * a model other than direct or auto; CLI_EINPUT ("PATH: ...", printed)
 * when sim_pool_new refuses; else CLI_OK (*pool NULL without --pool).
 */
int cmd_pool_open(const struct cmd_machine *M, const struct cli_cmd *cmd,
                  const struct sim_program *prog, const char *path,
                  struct sim_params *par, struct sim_pool **pool);

/* ---------------------------------------------------------------------
 * Exit statuses: each library's return code as the README's exit status
 * (enum cli_exit), one function per library, and the words for messages.
 *
 *   sim:   OK 0, DEADLOCK 3, EOVERFLOW, ENOMEM, EINVAL 4
 *   alloc: OK 0, DEADLOCK 3, ENOMEM, ESIM 4, EINVAL 2 (parameters the
 *          command let through, from its input)
 *   viz:   OK 0, EINVAL, EIO 2, ENOMEM 4, ESIM 3 (a re-simulation
 *          deadlocked or overflowed)
 *   bound: OK 0, EDEADLOCK 3, EINVAL 2, ENOMEM, ETOOBIG, ESIM 4
 *   exp:   OK 0, EINVAL 2, ENOMEM, EIO, ERUN 4
 *   gen:   OK 0, EINVAL 1 (a family or option value: progen's usage),
 *          EIO 2 (an output file), ENOMEM, EBUG 4
 */
int cmd_exit_sim(int st);
int cmd_exit_alloc(int st);
int cmd_exit_viz(int st);
int cmd_exit_bound(int st);
int cmd_exit_exp(int st);
int cmd_exit_gen(int st);
/* "out of memory", "the simulator failed on every binding (exact-time
 * overflow)", "invalid parameters" */
const char *cmd_alloc_strerror(int st);

/*
 * cmd_flush - the output tail of a command writing to standard output:
 * flush it; CLI_OK, or CLI_ESYSTEM after "NAME: write error: REASON" on
 * stderr.
 */
int cmd_flush(const struct cli_cmd *cmd);

/* ---------------------------------------------------------------------
 * Small things several commands print.
 */

/* A processor for output: "shadow" (TRACE_SHADOW), "any" (SIM_POOL_PROC,
 * a pool's worker), else the number.  Returns b. */
const char *cmd_proc_name(int32_t p, char *b, size_t len);

/* A binding file's `trace` header for the trace read from `path` with
 * digest `hex` (64 hex digits): "NAME sha256:HEX", NAME the path's last
 * component ("-" if it cannot be copied), cut to len.  Returns buf. */
char *cmd_trace_line(char *buf, size_t len, const char *path, const char *hex);

#endif
