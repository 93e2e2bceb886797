/*
 * simulate - predict how a recorded program runs on k processors.
 *
 * Exit status: 0 ok, 1 usage error, 2 bad input, 3 simulated deadlock,
 * 4 internal limit (exact time overflow, out of memory).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/common.h"
#include "cli/json.h"
#include "cli/out.h"
#include "sim/sim.h"
#include "trace/trace.h"
#include "viz/viz.h"

/* A simulated time as "key": "exact" and "key_value": number. */
static void json_time(struct cli_json *j, const char *key, sim_time t)
{
	char b[64], k[64];
	cli_json_key(j, key);
	cli_json_str(j, sim_time_format(t, b, sizeof b));
	snprintf(k, sizeof k, "%s_value", key);
	cli_json_key(j, k);
	cli_json_double(j, sim_time_to_double(t));
}

/* ---------------------------------------------------------------------
 * The command line
 */

static struct args {
	struct cmd_machine M;
	int json;
	const char *timeline, *svg, *path;
} A;

static struct cli_opt opts[] = {
	CMD_MACHINE_OPTS(&A.M, CLI_M_ALL),
	{CLI_TEXT, .help = "With neither --binding nor --unbound, every thread\n"
	                   "gets a processor of its own: the program's critical\n"
	                   "path."},
	{CLI_GROUP, .help = "Output"},
	{CLI_FLAG, "json", .dst = &A.json, .help = "the same result as one JSON object"},
	{CLI_STR, "timeline", .metavar = "FILE", .dst = &A.timeline,
	 .help = "also write the schedule as Chrome/Perfetto trace-event\n"
	         "JSON (open it in ui.perfetto.dev; docs/viz.md)"},
	{CLI_STR, "svg", .metavar = "FILE", .dst = &A.svg,
	 .help = "also draw the execution flow graph and the parallelism\n"
	         "graph, with the critical path, as SVG (docs/viz.md)"},
	{CLI_END}};

static const struct cli_cmd cmd = {
	.name = "simulate",
	.usage = "--binding FILE [options] TRACE\n"
	         "--unbound --cpus K [options] TRACE\n"
	         "[options] TRACE    (the critical path)",
	.about = "Predict the run of a recorded program (a shadowbind trace) on K processors\n"
	         "by trace-driven discrete-event simulation (docs/simulation.md).",
	.opts = opts,
	.epilog = "The first line is `makespan <value>` in trace units (an exact integer).\n"
	          "Then the machine, `model NAME` (the model that produced\n"
	          "the result), a per-thread table (start, end, cpu,\n"
	          "ready = waiting for a processor, blocked = waiting on synchronization,\n"
	          "sleeping or a latency) and a per-processor table (busy time, utilization).",
	.exit3 = "the simulated run deadlocked (the blocked threads are\nlisted on stderr)",
};

/* CLI_CONTINUE, or the exit status (--help, a usage error). */
static int parse(int argc, char **argv)
{
	cmd_machine_init(&A.M, "simulate computes the critical path, one processor "
	                       "per thread");
	int nops, rc = cli_parse(&cmd, argc, argv, &nops);
	if (rc != CLI_CONTINUE)
		return rc;
	char why[600];
	if (nops != 1)
		return cmd_one_trace(&cmd, nops);
	if (cli_machine_check(&A.M.m, why, sizeof why))
		return cli_usage(&cmd, "%s", why);
	A.path = argv[1];
	return CLI_CONTINUE;
}

/* ---------------------------------------------------------------------
 * The run
 */

struct run {
	struct trace *tr;
	struct sim_program *prog;
	struct sim_work *work;
	struct sim_pool *pool;
	const int32_t *binding;  /* --binding's processors, or NULL         */
	struct sim_result res;
};

static void run_release(struct run *r)
{
	sim_work_free(r->work);
	sim_pool_free(r->pool);
	sim_program_free(r->prog);
	cmd_machine_release(&A.M);
	trace_free(r->tr);
}

/* Read the trace and the machine into par, simulate, write --timeline and
 * --svg.  CLI_OK with *r filled, or the exit status after the message
 * (then release r all the same). */
static int run(struct run *r, struct sim_params *par)
{
	char why[600];
	memset(r, 0, sizeof *r);
	if (cli_trace_load(A.path, &r->tr, why, sizeof why) != CLI_OK)
		return cli_errorf(CLI_EINPUT, "%s", why);
	int rc = cmd_machine_load(&A.M, &cmd, r->tr, par);
	if (rc != CLI_OK)
		return rc;
	if (A.M.m.pool && par->model != SIM_DIRECT && par->model != SIM_AUTO)
		return cli_usage(&cmd, "--pool works with the Direct model only (--model direct or auto)");
	r->prog = sim_program_new(r->tr);
	r->work = r->prog ? sim_work_new(r->prog) : NULL;
	if (!r->work)
		return cli_error(&cmd, CLI_ESYSTEM, "out of memory");
	if ((rc = cmd_pool_open(&A.M, &cmd, r->prog, A.path, par, &r->pool)) != CLI_OK)
		return rc;
	r->binding = A.M.m.binding ? A.M.m.bind.proc : NULL;
	int st = sim_run(r->prog, r->work, par, r->binding,
	                 SIM_STATS | (A.timeline || A.svg ? SIM_SCHEDULE : 0), &r->res);
	if (st == SIM_DEADLOCK) {
		char b[64];
		fprintf(stderr, "%s: the simulated run deadlocked at time %s with %zu threads blocked (model %s):\n",
		        A.path, sim_time_format_dec(r->res.makespan, b, sizeof b), r->res.nblocked,
		        sim_model_name(r->res.model));
		sim_deadlock_print(r->prog, &r->res, stderr);
	} else if (st == SIM_EOVERFLOW) {
		fprintf(stderr, "%s: simulated times exceed 64-bit exact arithmetic (try --policy fifo)\n", A.path);
	} else if (st != SIM_OK) {
		fprintf(stderr, "%s: simulation failed (%s)\n", A.path, st == SIM_ENOMEM ? "out of memory" : "invalid parameters");
	}
	if (st != SIM_OK)
		return cmd_exit_sim(st);
	if ((A.timeline || A.svg) &&
	    (st = viz_save_run(r->prog, par, r->binding, &r->res, A.timeline, A.svg, why,
	                       sizeof why)) != VIZ_OK)
		return cli_errorf(st == VIZ_ENOMEM ? CLI_ESYSTEM : CLI_EINPUT, "%s", why);
	return CLI_OK;
}

/* ---------------------------------------------------------------------
 * The output
 */

/* --json. */
static void print_json(const struct run *r, const struct sim_params *par, const char *mode)
{
	const struct trace *tr = r->tr;
	const struct sim_result res = r->res;
	const struct sim_pool *pool = r->pool;
	const char *pool_spec = A.M.m.pool, *binding_path = A.M.m.binding;
	const char *unit = trace_unit_name(tr->unit);
	char b1[64], pb[32];
	sim_policy_format(par, pb, sizeof pb);
	uint64_t total = trace_total_work(tr);
	struct cli_json j;
	cli_json_init(&j, stdout);
	cli_json_object(&j);
	json_time(&j, "makespan", res.makespan);
	cli_json_key(&j, "unit");
	cli_json_str(&j, unit);
	cli_json_key(&j, "mode");
	cli_json_str(&j, mode);
	cli_json_key(&j, "cpus");
	cli_json_u64(&j, par->cpus);
	cli_json_key(&j, "policy");
	cli_json_str(&j, pb);
	cli_json_key(&j, "latency");
	cli_json_u64(&j, par->latency);
	cli_json_key(&j, "create_cost");
	cli_json_u64(&j, par->create_cost);
	cli_json_key(&j, "switch_cost");
	cli_json_u64(&j, par->switch_cost);
	if (par->machine) {
		cli_json_key(&j, "machine");
		cli_json_str(&j, A.M.m.machine);
		cli_json_key(&j, "create_cost_remote");
		cli_json_u64(&j, par->create_cost_remote);
		cli_json_key(&j, "exit_cost");
		cli_json_u64(&j, par->exit_cost);
		cli_json_key(&j, "exit_cost_remote");
		cli_json_u64(&j, par->exit_cost_remote);
		if (par->start_cost_remote) {
			cli_json_key(&j, "start_cost_remote");
			cli_json_u64(&j, par->start_cost_remote);
		}
		if (par->create_wait_remote) {
			cli_json_key(&j, "create_wait_remote");
			cli_json_u64(&j, par->create_wait_remote);
		}
		if (par->unbound_local_ppm) {
			cli_json_key(&j, "unbound_local_ppm");
			cli_json_u64(&j, par->unbound_local_ppm);
		}
		if (par->unbound_costs) {
			cli_json_key(&j, "unbound_create_cost_remote");
			cli_json_u64(&j, par->unbound_create_cost_remote);
			cli_json_key(&j, "unbound_start_cost_remote");
			cli_json_u64(&j, par->unbound_start_cost_remote);
			cli_json_key(&j, "unbound_exit_cost_remote");
			cli_json_u64(&j, par->unbound_exit_cost_remote);
		}
		if (par->lat_kinds) {
			cli_json_key(&j, "wake_busy");
			cli_json_u64(&j, par->wake_busy);
			cli_json_key(&j, "transfer");
			cli_json_u64(&j, par->transfer);
			cli_json_key(&j, "sleep");
			cli_json_u64(&j, par->sleep);
		}
		if (par->wake_local) {
			cli_json_key(&j, "wake_local");
			cli_json_u64(&j, par->wake_local);
		}
	}
	cli_json_key(&j, "model");
	cli_json_str(&j, sim_model_name(res.model));
	if (pool) {
		cli_json_key(&j, "pool");
		cli_json_str(&j, pool_spec);
	}
	cli_json_key(&j, "steps");
	cli_json_u64(&j, res.steps);
	cli_json_key(&j, "total_work");
	cli_json_u64(&j, total);
	cli_json_key(&j, "threads");
	cli_json_array(&j);
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		const struct sim_thread_stats *s = &res.threads[i];
		cli_json_object(&j);
		cli_json_key(&j, "id");
		cli_json_u64(&j, tr->threads[i].id);
		cli_json_key(&j, "name");
		cli_json_str(&j, trace_thread_name(tr, i));
		cli_json_key(&j, "proc");
		cli_json_str(&j, cmd_proc_name(s->proc, b1, sizeof b1));
		json_time(&j, "start", s->start);
		json_time(&j, "end", s->end);
		json_time(&j, "cpu", s->cpu);
		json_time(&j, "ready", s->ready);
		json_time(&j, "blocked", s->blocked);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	cli_json_key(&j, "processors");
	cli_json_array(&j);
	if (!(par->mode == SIM_BOUND && !binding_path)) {
		for (uint32_t p = 0; p < par->cpus; p++) {
			cli_json_object(&j);
			cli_json_key(&j, "proc");
			cli_json_u64(&j, p);
			json_time(&j, "busy", res.busy[p]);
			cli_json_end(&j);
		}
	}
	cli_json_end(&j);
	cli_json_end(&j);
}

/* The text: the header lines, the thread and processor tables. */
static void print_text(const struct run *r, const struct sim_params *par, const char *mode)
{
	const struct trace *tr = r->tr;
	const struct sim_result res = r->res;
	const struct sim_pool *pool = r->pool;
	const char *pool_spec = A.M.m.pool, *binding_path = A.M.m.binding;
	const int unbound = A.M.m.unbound;
	const char *unit = trace_unit_name(tr->unit);
	char b1[64], b2[64], b3[64], b4[64], b5[64], pb[32];
	sim_policy_format(par, pb, sizeof pb);
	uint64_t total = trace_total_work(tr);
	printf("makespan %s\n", sim_time_format_dec(res.makespan, b1, sizeof b1));
	printf("unit %s\n", unit);
	if (!binding_path && !unbound)
		printf("mode critical-path  # no --binding and no --unbound: one processor per thread\n");
	else
		printf("mode %s\ncpus %u\n", mode, par->cpus);
	printf("policy %s\nlatency %" PRIu64 "\nmodel %s\n", pb, par->latency, sim_model_name(res.model));
	if (par->create_cost || par->switch_cost)
		printf("create_cost %" PRIu64 "\nswitch_cost %" PRIu64 "\n", par->create_cost, par->switch_cost);
	if (par->machine) {
		printf("machine %s  # docs/sim.md, Machine files\n", A.M.m.machine);
		if (par->lat_matrix)
			for (uint32_t x = 0; x < par->cpus; x++) {
				printf("latency.%u", x);
				for (uint32_t y = 0; y < par->cpus; y++)
					printf(" %" PRIu64, x == y ? 0 : par->lat_matrix[x * par->cpus + y]);
				printf("\n");
			}
		printf("create_cost_remote %" PRIu64 "\nexit_cost %" PRIu64
		       "\nexit_cost_remote %" PRIu64 "\n", par->create_cost_remote,
		       par->exit_cost, par->exit_cost_remote);
		if (par->start_cost_remote)
			printf("start_cost_remote %" PRIu64 "\n", par->start_cost_remote);
		if (par->create_wait_remote)
			printf("create_wait_remote %" PRIu64 "\n", par->create_wait_remote);
		if (par->unbound_local_ppm)
			printf("unbound_local_ppm %" PRIu32 "\n", par->unbound_local_ppm);
		if (par->unbound_costs)
			printf("unbound_cost_remote %" PRIu64 " %" PRIu64 " %" PRIu64
			       "  # create start exit\n", par->unbound_create_cost_remote,
			       par->unbound_start_cost_remote, par->unbound_exit_cost_remote);
		if (par->lat_kinds)
			printf("wake_busy %" PRIu64 "\ntransfer %" PRIu64 "\nsleep %" PRIu64 "\n",
			       par->wake_busy, par->transfer, par->sleep);
		if (par->wake_local)
			printf("wake_local %" PRIu64 "\n", par->wake_local);
	}
	if (pool)
		printf("pool %s  # %u workers share %u segments of mutex %u\n", pool_spec,
		       sim_pool_workers(pool), sim_pool_segments(pool),
		       tr->obj_id[TRACE_K_MUTEX][sim_pool_mutex(pool)]);
	printf("steps %" PRIu64 "\n", res.steps);
	if (res.makespan.num)
		printf("speedup %.3f  # total work %" PRIu64 " / makespan\n",
		       (double)total / sim_time_to_double(res.makespan), total);
	printf("\n%-10s %-16s %-6s %12s %12s %12s %12s %12s\n", "thread", "name", "proc",
	       "start", "end", "cpu", "ready", "blocked");
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		const struct sim_thread_stats *s = &res.threads[i];
		const char *nm = trace_thread_name(tr, i);
		printf("%-10u %-16.16s %-6s %12s %12s %12s %12s %12s\n", tr->threads[i].id,
		       nm ? nm : "-", cmd_proc_name(s->proc, pb, sizeof pb),
		       sim_time_format_dec(s->start, b1, sizeof b1),
		       sim_time_format_dec(s->end, b2, sizeof b2),
		       sim_time_format_dec(s->cpu, b3, sizeof b3),
		       sim_time_format_dec(s->ready, b4, sizeof b4),
		       sim_time_format_dec(s->blocked, b5, sizeof b5));
	}
	if (binding_path || unbound) {
		printf("\n%-10s %12s %12s\n", "processor", "busy", "utilization");
		for (uint32_t p = 0; p < par->cpus; p++) {
			double u = res.makespan.num ? sim_time_to_double(res.busy[p]) /
			                              sim_time_to_double(res.makespan) : 0;
			printf("%-10u %12s %11.1f%%\n", p, sim_time_format_dec(res.busy[p], b1, sizeof b1), 100 * u);
		}
	}
}

int main(int argc, char **argv)
{
	int rc = parse(argc, argv);
	if (rc != CLI_CONTINUE)
		return rc;
	cli_signals_install(CLI_SIG_EXIT); /* 130/143 */
	struct sim_params *par = &A.M.par;
	struct run r;
	rc = run(&r, par);
	if (rc == CLI_OK) {
		const char *mode = A.M.m.binding ? "bound" : A.M.m.unbound ? "unbound"
		                                                     : "critical-path";
		if (A.json)
			print_json(&r, par, mode);
		else
			print_text(&r, par, mode);
		rc = cmd_flush(&cmd);
	}
	run_release(&r);
	return rc;
}
