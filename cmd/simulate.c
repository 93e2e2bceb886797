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

int main(int argc, char **argv)
{
	struct cmd_machine M;
	cmd_machine_init(&M, "simulate computes the critical path, one processor "
	                     "per thread");
	struct sim_params *par = &M.par;
	int json = 0;
	const char *timeline = NULL, *svg = NULL;
	struct cli_opt opts[] = {
		CMD_MACHINE_OPTS(&M, CLI_M_ALL),
		{CLI_TEXT, .help = "With neither --binding nor --unbound, every thread\n"
		                   "gets a processor of its own: the program's critical\n"
		                   "path."},
		{CLI_GROUP, .help = "Output"},
		{CLI_FLAG, "json", .dst = &json, .help = "the same result as one JSON object"},
		{CLI_STR, "timeline", .metavar = "FILE", .dst = &timeline,
		 .help = "also write the schedule as Chrome/Perfetto trace-event\n"
		         "JSON (open it in ui.perfetto.dev; docs/viz.md)"},
		{CLI_STR, "svg", .metavar = "FILE", .dst = &svg,
		 .help = "also draw the execution flow graph and the parallelism\n"
		         "graph, with the critical path, as SVG (docs/viz.md)"},
		{CLI_END}};
	const struct cli_cmd cmd = {
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
	int nops, prc = cli_parse(&cmd, argc, argv, &nops);
	if (prc != CLI_CONTINUE)
		return prc;
	cli_signals_install(CLI_SIG_EXIT); /* 130/143 */
	char why[600];
	if (nops != 1)
		return cli_usage(&cmd, nops == 0 ? "no trace given" : "more than one trace given");
	if (cli_machine_check(&M.m, why, sizeof why))
		return cli_usage(&cmd, "%s", why);
	const char *binding_path = M.m.binding, *pool_spec = M.m.pool;
	const int unbound = M.m.unbound;
	const char *path = argv[1];

	struct trace *tr = NULL;
	if (cli_trace_load(path, &tr, why, sizeof why) != CLI_OK)
		return cli_errorf(CLI_EINPUT, "%s", why);
	int mrc = cmd_machine_load(&M, &cmd, tr, par);
	if (mrc != CLI_OK) {
		trace_free(tr);
		return mrc;
	}
	const char *mode = binding_path ? "bound" : unbound ? "unbound" : "critical-path";

	if (pool_spec && par->model != SIM_DIRECT && par->model != SIM_AUTO) {
		trace_free(tr);
		cli_machine_release(&M.m);
		return cli_usage(&cmd, "--pool works with the Direct model only (--model direct or auto)");
	}
	int rc = 4;
	struct sim_pool *pool = NULL;
	struct sim_program *prog = sim_program_new(tr);
	struct sim_work *work = prog ? sim_work_new(prog) : NULL;
	if (!work) {
		fprintf(stderr, "simulate: out of memory\n");
		goto out;
	}
	if ((rc = cmd_pool_open(&M, &cmd, prog, path, par, &pool)) != CLI_OK)
		goto out;
	rc = CLI_ESYSTEM;
	struct sim_result res;
	int st = sim_run(prog, work, par, binding_path ? M.m.bind.proc : NULL,
	                 SIM_STATS | (timeline || svg ? SIM_SCHEDULE : 0), &res);
	if (st == SIM_DEADLOCK) {
		char b[64];
		fprintf(stderr, "%s: the simulated run deadlocked at time %s with %zu threads blocked (model %s):\n",
		        path, sim_time_format_dec(res.makespan, b, sizeof b), res.nblocked,
		        sim_model_name(res.model));
		sim_deadlock_print(prog, &res, stderr);
		rc = 3;
		goto out;
	}
	if (st == SIM_EOVERFLOW) {
		fprintf(stderr, "%s: simulated times exceed 64-bit exact arithmetic (try --policy fifo)\n", path);
		goto out;
	}
	if (st != SIM_OK) {
		fprintf(stderr, "%s: simulation failed (%s)\n", path, st == SIM_ENOMEM ? "out of memory" : "invalid parameters");
		goto out;
	}

	if ((timeline || svg) && (st = viz_save_run(prog, par, binding_path ? M.m.bind.proc : NULL, &res,
	                                            timeline, svg, why, sizeof why)) != VIZ_OK) {
		rc = cli_errorf(st == VIZ_ENOMEM ? CLI_ESYSTEM : CLI_EINPUT, "%s", why);
		goto out;
	}
	char b1[64], b2[64], b3[64], b4[64], b5[64], pb[32];
	const char *unit = trace_unit_name(tr->unit);
	sim_policy_format(par, pb, sizeof pb);
	uint64_t total = trace_total_work(tr);
	if (json) {
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
	} else {
		printf("makespan %s\n", sim_time_format_dec(res.makespan, b1, sizeof b1));
		printf("unit %s\n", unit);
		if (!binding_path && !unbound)
			printf("mode critical-path  # no --binding and no --unbound: one processor per thread\n");
		else
			printf("mode %s\ncpus %u\n", mode, par->cpus);
		printf("policy %s\nlatency %" PRIu64 "\nmodel %s\n", pb, par->latency, sim_model_name(res.model));
		if (par->create_cost || par->switch_cost)
			printf("create_cost %" PRIu64 "\nswitch_cost %" PRIu64 "\n", par->create_cost, par->switch_cost);
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
	rc = cmd_flush(&cmd);
out:
	sim_work_free(work);
	sim_pool_free(pool);
	sim_program_free(prog);
	cli_machine_release(&M.m);
	trace_free(tr);
	return rc;
}
