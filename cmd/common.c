/* common.c - what the commands share (common.h). */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "bound/bound.h"
#include "cmd/common.h"
#include "exp/exp.h"
#include "gen/gen.h"
#include "viz/viz.h"

void cmd_machine_init(struct cmd_machine *M, const char *alone)
{
	memset(M, 0, sizeof *M);
	sim_params_init(&M->par);
	M->par.model = SIM_AUTO;
	M->m.alone = alone;
}

int cmd_policy_opt(void *dst, const char *v, char *why, size_t len)
{
	if (sim_policy_parse(v, dst)) {
		snprintf(why, len, "is not a policy (" SIM_POLICY_SYNTAX ")");
		return -1;
	}
	return 0;
}

int cmd_model_opt(void *dst, const char *v, char *why, size_t len)
{
	if (sim_model_parse(v, dst)) {
		snprintf(why, len, "is not a model (" SIM_MODEL_SYNTAX ")");
		return -1;
	}
	return 0;
}

/* Was long option `name` given? */
static int given(const struct cli_cmd *cmd, const char *name)
{
	const struct cli_opt *o = cli_find(cmd, name);
	return o && o->given;
}

void cmd_machine_release(struct cmd_machine *M)
{
	if (!M)
		return;
	cli_machine_release(&M->m);
	mach_model_release(&M->mm);
}

/* Each option given of CLI_MACHINE_ROWS: its value into par. */
static void machine_rows(struct cmd_machine *M, const struct cli_cmd *cmd,
                         struct sim_params *par)
{
	const struct cli_machine *m = &M->m;
	/* each row of CLI_MACHINE_ROWS given: its value into par */
#define SET_(A, ID, KIND, OPT, SH, KEY, FIELD, MV, HELP) SET_##KIND(OPT, FIELD)
#define SET_CPUS(OPT, FIELD) \
	if (m->k) \
		par->FIELD = m->k;
#define SET_TIME(OPT, FIELD) \
	if (m->FIELD.text) \
		par->FIELD = m->FIELD##_tu;
#define SET_POLICY(OPT, FIELD) \
	if (given(cmd, OPT)) { \
		par->policy = M->par.policy; \
		par->quantum = M->par.quantum; \
	}
#define SET_MODEL(OPT, FIELD) \
	if (given(cmd, OPT)) \
		par->FIELD = M->par.FIELD;
#define SET_FLAG(OPT, FIELD)
#define SET_FILE(OPT, FIELD)
#define SET_STR(OPT, FIELD)
#define SET_MACHFILE(OPT, FIELD)
	CLI_MACHINE_ROWS(SET_, 0)
	if (m->unbound)
		par->mode = SIM_UNBOUND;
}

int cmd_one_trace(const struct cli_cmd *cmd, int nops)
{
	if (nops == 1)
		return CLI_CONTINUE;
	return cli_usage(cmd, nops == 0 ? "no trace given" : "more than one trace given");
}

int cmd_machine_load_ini(struct cmd_machine *M, const struct cli_cmd *cmd,
                         const struct trace *tr, struct sim_params *par,
                         const char *machine_ini)
{
	char why[600];
	int rc = cli_machine_load(&M->m, tr, why, sizeof why);
	if (rc == CLI_EUSAGE)
		return cli_usage(cmd, "%s", why);
	if (rc != CLI_OK)
		return cli_errorf(rc, "%s", why);
	machine_rows(M, cmd, par);
	const char *file = M->m.machine ? M->m.machine : machine_ini;
	if (!file)
		return CLI_OK;
	/* the machine's figures for par->cpus processors, then the options
	 * given again over them */
	struct mach mf;
	if (mach_read(file, &mf, why, sizeof why) != 0) {
		cli_machine_release(&M->m);
		return cli_errorf(CLI_EINPUT, "%s", why);
	}
	mach_model_release(&M->mm);
	rc = mach_model_init(&M->mm, &mf, par->cpus ? par->cpus : 1, tr->unit, why, sizeof why);
	mach_release(&mf);
	if (rc != 0) {
		cli_machine_release(&M->m);
		return cli_errorf(CLI_EINPUT, "%s: %s", file, why);
	}
	mach_model_apply(&M->mm, par);
	machine_rows(M, cmd, par);
	if (M->m.latency.text)
		par->lat_matrix = NULL;
	return CLI_OK;
}

int cmd_machine_load(struct cmd_machine *M, const struct cli_cmd *cmd,
                     const struct trace *tr, struct sim_params *par)
{
	return cmd_machine_load_ini(M, cmd, tr, par, NULL);
}

int cmd_pool_open(const struct cmd_machine *M, const struct cli_cmd *cmd,
                  const struct sim_program *prog, const char *path,
                  struct sim_params *par, struct sim_pool **pool)
{
	*pool = NULL;
	if (!M->m.pool)
		return CLI_OK;
	if (par->model != SIM_DIRECT && par->model != SIM_AUTO)
		return cli_usage(cmd, "--pool works with the Direct model only "
		                 "(--model direct or auto)");
	char why[600];
	if (sim_pool_new(prog, M->m.pool, pool, why, sizeof why) != 0)
		return cli_errorf(CLI_EINPUT, "%s: %s", path, why);
	par->pool = *pool;
	return CLI_OK;
}

/* ---------------------------------------------------------------------
 * Exit statuses
 */

int cmd_exit_sim(int st)
{
	switch (st) {
	case SIM_OK: return CLI_OK;
	case SIM_DEADLOCK: return CLI_EDEADLOCK;
	default: return CLI_ESYSTEM; /* EOVERFLOW, ENOMEM, EINVAL */
	}
}

int cmd_exit_alloc(int st)
{
	switch (st) {
	case ALLOC_OK: return CLI_OK;
	case ALLOC_DEADLOCK: return CLI_EDEADLOCK;
	case ALLOC_EINVAL: return CLI_EINPUT;
	default: return CLI_ESYSTEM; /* ENOMEM, ESIM */
	}
}

const char *cmd_alloc_strerror(int st)
{
	return st == ALLOC_ENOMEM ? "out of memory"
	       : st == ALLOC_EMPI ? "the message passing between the ranks "
	                            "failed (MPI)"
	       : st == ALLOC_ESIM ? "the simulator failed on every binding "
	                            "(exact-time overflow)"
	       : "invalid parameters";
}

int cmd_exit_viz(int st)
{
	switch (st) {
	case VIZ_OK: return CLI_OK;
	case VIZ_ESIM: return CLI_EDEADLOCK;
	case VIZ_ENOMEM: return CLI_ESYSTEM;
	default: return CLI_EINPUT; /* EINVAL, EIO */
	}
}

int cmd_exit_bound(int st)
{
	switch (st) {
	case BOUND_OK: return CLI_OK;
	case BOUND_EDEADLOCK: return CLI_EDEADLOCK;
	case BOUND_EINVAL: return CLI_EINPUT;
	default: return CLI_ESYSTEM; /* ENOMEM, ETOOBIG, ESIM */
	}
}

int cmd_exit_exp(int st)
{
	switch (st) {
	case EXP_OK: return CLI_OK;
	case EXP_EINVAL: return CLI_EINPUT;
	default: return CLI_ESYSTEM; /* ENOMEM, EIO, ERUN */
	}
}

int cmd_exit_gen(int st)
{
	switch (st) {
	case GEN_OK: return CLI_OK;
	case GEN_EINVAL: return CLI_EUSAGE;
	case GEN_EIO: return CLI_EINPUT;
	default: return CLI_ESYSTEM; /* ENOMEM, EBUG */
	}
}

int cmd_flush(const struct cli_cmd *cmd)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		return cli_error(cmd, CLI_ESYSTEM, "write error: %s", strerror(errno));
	return CLI_OK;
}

const char *cmd_proc_name(int32_t p, char *b, size_t len)
{
	if (p == TRACE_SHADOW)
		snprintf(b, len, "shadow");
	else if (p == SIM_PROC_ANY)
		snprintf(b, len, "any");
	else
		snprintf(b, len, "%d", p);
	return b;
}

char *cmd_trace_line(char *buf, size_t len, const char *path, const char *hex)
{
	char *pc = strdup(path);
	snprintf(buf, len, "%s sha256:%s", pc ? basename(pc) : "-", hex);
	free(pc);
	return buf;
}
