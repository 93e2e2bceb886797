/*
 * critical - the extended critical path (Paper VI) of a simulated run,
 * and what-if re-simulations (docs/viz.md).
 *
 * Exit status: 0 ok, 1 usage, 2 bad input, 3 the simulated run (or a
 * what-if) deadlocked, 4 internal limit (overflow, out of memory).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/common.h"
#include "sim/sim.h"
#include "trace/trace.h"
#include "viz/viz.h"

#define MAX_WHATIF 32

struct whatifs {
	struct viz_whatif w[MAX_WHATIF];
	size_t n;
};

static int whatif_opt(void *dst, const char *v, char *why, size_t len)
{
	struct whatifs *w = dst;
	if (w->n == MAX_WHATIF) {
		snprintf(why, len, "at most %d what-ifs", MAX_WHATIF);
		return -1;
	}
	if (viz_whatif_parse(v, &w->w[w->n])) {
		snprintf(why, len, "is not line:L:P%%, at:FILE:LINE:P%%, thread:ID:P%%, latency:T or latency:KIND:ID:T");
		return -1;
	}
	w->n++;
	return 0;
}

/* A work item of the path and its record's work, to weigh. */
struct weigh {
	uint64_t work;
	const struct viz_item *it;
};

static int cmp_weigh(const void *a, const void *b)
{
	const struct weigh *x = a, *y = b;
	if (x->work != y->work)
		return x->work > y->work ? -1 : 1;
	return x->it->from < y->it->from ? -1 : x->it->from > y->it->from;
}

int main(int argc, char **argv)
{
	struct cmd_machine M;
	cmd_machine_init(&M, NULL);
	struct sim_params par;
	int json = 0;
	uint32_t weights = 5, top = 10;
	struct whatifs wi;
	memset(&wi, 0, sizeof wi);
	struct cli_opt opts[] = {
		CMD_MACHINE_OPTS(&M, CLI_M_ALL & ~CLI_M_BIT(POOL)),
		{CLI_GROUP, .help = "Analysis"},
		{CLI_FUNC, "what-if", .metavar = "SPEC", .dst = &wi, .fn = whatif_opt,
		 .help = "re-simulate with a change, print the new makespan\n"
		         "(repeatable): line:L:P% (the record at trace line L\n"
		         "runs P% faster), at:FILE:LINE:P% (every record\n"
		         "at that source location), thread:ID:P% (every\n"
		         "record of thread ID), latency:T (latency T instead),\n"
		         "latency:KIND:ID:T (the releases of that one object\n"
		         "take latency T; KIND mutex, sem, cond, barrier,\n"
		         "rwlock, or thread: its exit for a join; Direct model)"},
		{CLI_U32, "weights", .metavar = "N", .dst = &weights, .max = 1000,
		 .help = "weigh the N records with the most work on the path\n"
		         "(re-simulated 10% faster; default 5, 0: none)"},
		{CLI_U32, "top", .metavar = "N", .dst = &top, .max = 1000000,
		 .help = "summary lines (default 10)"},
		{CLI_FLAG, "json", .dst = &json, .help = "everything as one JSON object"},
		{CLI_END}};
	const struct cli_cmd cmd = {
		.name = "critical",
		.usage = "[--binding FILE | --unbound --cpus K] [options] TRACE",
		.about = "Simulate the recorded program as `simulate` does and print its extended\n"
		         "critical path (Paper VI): the chain of work, waits for a processor,\n"
		         "latencies and releases that determines the completion time, walked back\n"
		         "from the last exit.  Each item gives its thread, the trace line and\n"
		         "@file:line of its record, its length and its share of the makespan; then\n"
		         "the share per thread and per synchronization object; then the weight of\n"
		         "the records with the most work on the path (makespan saved per unit of\n"
		         "work saved; Paper VI's weight, negative when faster makes it later).\n"
		         "With --latency > 0 (Direct model), what each object's latency costs:\n"
		         "the makespan re-simulated with that object's latency 0.",
		.opts = opts,
		.epilog = "Example: critical --unbound --cpus 2 --policy fifo --what-if line:21:50% T.trace\n"
		          "docs/viz.md explains the items and the shares.",
		.exit3 = "the simulated run, or a what-if's, deadlocked",
	};
	int nops, prc = cli_parse(&cmd, argc, argv, &nops);
	if (prc != CLI_CONTINUE)
		return prc;
	char why[600];
	if (nops != 1)
		return cli_usage(&cmd, nops == 0 ? "no trace given" : "more than one trace given");
	if (cli_machine_check(&M.m, why, sizeof why))
		return cli_usage(&cmd, "%s", why);
	for (size_t i = 0; i < wi.n; i++)
		if (wi.w[i].what == VIZ_WI_OBJLAT && M.par.model != SIM_DIRECT && M.par.model != SIM_AUTO)
			return cli_usage(&cmd, "--what-if %s needs the Direct model", wi.w[i].text);
	const char *path = argv[1];
	struct trace *tr = NULL;
	if (cli_trace_load(path, &tr, why, sizeof why) != CLI_OK)
		return cli_errorf(CLI_EINPUT, "%s", why);
	par = M.par;
	int mrc = cmd_machine_load(&M, &cmd, tr, &par);
	if (mrc != CLI_OK) {
		trace_free(tr);
		return mrc;
	}
	const int32_t *binding = M.m.binding ? M.m.bind.proc : NULL;
	int rc = 4;
	struct viz_sched *vs = NULL;
	struct viz_path *cp = NULL;
	struct sim_program *prog = sim_program_new(tr);
	struct sim_work *work = prog ? sim_work_new(prog) : NULL;
	if (!work) {
		fprintf(stderr, "critical: out of memory\n");
		goto out;
	}
	struct sim_result res;
	int st = sim_run(prog, work, &par, binding, SIM_STATS | SIM_SCHEDULE, &res);
	if (st == SIM_DEADLOCK) {
		char b[64];
		fprintf(stderr, "%s: the simulated run deadlocked at time %s (model %s):\n", path,
		        sim_time_format_dec(res.makespan, b, sizeof b), sim_model_name(res.model));
		sim_deadlock_print(prog, &res, stderr);
		rc = 3;
		goto out;
	}
	if (st != SIM_OK) {
		fprintf(stderr, "%s: simulation failed (%s)\n", path,
		        st == SIM_EOVERFLOW ? "times exceed 64-bit exact arithmetic" :
		        st == SIM_ENOMEM ? "out of memory" : "invalid parameters");
		goto out;
	}
	/* what-ifs and weights re-simulate with the model that produced it */
	struct sim_params rpar = par;
	rpar.model = res.model;
	if (viz_sched_new(prog, &par, binding, &res, &vs) || viz_critical(vs, &cp)) {
		fprintf(stderr, "critical: out of memory\n");
		goto out;
	}
	const char *unit = trace_unit_name(tr->unit);
	if (json) {
		fputs("{\"path\": ", stdout);
		viz_path_json(vs, cp, stdout);
		printf(", \"model\": \"%s\"", sim_model_name(res.model));
	} else {
		viz_path_print(vs, cp, (unsigned)top, stdout);
	}
	/* weights of the longest work items (distinct records) */
	if (weights) {
		struct weigh *w = malloc((cp->n ? cp->n : 1) * sizeof *w);
		if (!w) {
			fprintf(stderr, "critical: out of memory\n");
			goto out;
		}
		size_t nw = 0;
		for (size_t i = 0; i < cp->n; i++)
			if (cp->items[i].kind == VIZ_WORK && tr->rec[cp->items[i].rec].work >= 10) {
				w[nw].work = tr->rec[cp->items[i].rec].work;
				w[nw++].it = &cp->items[i];
			}
		qsort(w, nw, sizeof *w, cmp_weigh);
		if (json)
			fputs(", \"weights\": [", stdout);
		else
			printf("\nweights (the record re-simulated 10%% faster; makespan saved / work saved):\n");
		size_t shown = 0;
		for (size_t i = 0; i < nw && shown < weights; i++) {
			int dup = 0;
			for (size_t k = 0; k < i; k++)
				dup |= w[k].it->rec == w[i].it->rec;
			if (dup)
				continue;
			char spec[64];
			snprintf(spec, sizeof spec, "line:%u:10%%", tr->rec[w[i].it->rec].line);
			struct viz_whatif x;
			viz_whatif_parse(spec, &x);
			uint64_t saved;
			sim_time nm;
			int r2 = viz_whatif_run(tr, &rpar, binding, &x, &saved, &nm);
			if (r2 != VIZ_OK || saved == 0)
				continue;
			double gain = (double)cp->makespan - sim_time_to_double(nm);
			const char *loc = trace_rec_loc(tr, w[i].it->rec);
			if (json)
				printf("%s{\"line\": %u, \"thread\": %u, \"work_saved\": %" PRIu64 ", \"makespan\": %.17g, \"weight\": %.6g}",
				       shown ? ", " : "", tr->rec[w[i].it->rec].line, tr->threads[w[i].it->thread].id,
				       saved, sim_time_to_double(nm), gain / (double)saved);
			else
				printf("  line %-8u T%-6u %s%-20s work saved %" PRIu64 ", makespan %.0f, weight %.3f\n",
				       tr->rec[w[i].it->rec].line, tr->threads[w[i].it->thread].id, loc ? "@" : "",
				       loc ? loc : "", saved, sim_time_to_double(nm), gain / (double)saved);
			shown++;
		}
		if (json)
			fputs("]", stdout);
		free(w);
	}
	/* what each object's latency costs: re-simulated with it 0 */
	if (par.latency && res.model == SIM_DIRECT) {
		struct viz_share *th, *ob;
		size_t nt, no;
		if (viz_path_shares(vs, cp, &th, &nt, &ob, &no)) {
			fprintf(stderr, "critical: out of memory\n");
			goto out;
		}
		if (json)
			fputs(", \"latency_cost\": [", stdout);
		else
			printf("\nlatency cost per object on the path (re-simulated with its latency 0):\n");
		size_t shown = 0;
		for (size_t i = 0; i < no && shown < top; i++) {
			if (ob[i].kind >= TRACE_NKINDS)
				continue; /* a processor */
			char spec[96];
			uint32_t id = ob[i].kind == TRACE_K_THREAD ? tr->threads[ob[i].id].id
			                                           : tr->obj_id[ob[i].kind][ob[i].id];
			snprintf(spec, sizeof spec, "latency:%s:%u:0", viz_whatif_kinds[ob[i].kind], id);
			struct viz_whatif x;
			uint64_t saved;
			sim_time nm;
			if (viz_whatif_parse(spec, &x) || viz_whatif_run(tr, &rpar, binding, &x, &saved, &nm))
				continue;
			double m1 = sim_time_to_double(nm);
			if (json)
				printf("%s{\"what\": \"%s\", \"makespan\": %.17g, \"cost\": %.17g}", shown ? ", " : "",
				       spec, m1, (double)cp->makespan - m1);
			else
				printf("  %-24s makespan %" PRIu64 " -> %.0f %s: its latency costs %.0f\n", spec,
				       cp->makespan, m1, unit, (double)cp->makespan - m1);
			shown++;
		}
		if (!json && shown == 0)
			printf("  none: the path waits on no object\n");
		if (json)
			fputs("]", stdout);
		free(th);
		free(ob);
	}
	if (wi.n) {
		if (json)
			fputs(", \"what_if\": [", stdout);
		else
			printf("\nwhat if:\n");
		for (size_t i = 0; i < wi.n; i++) {
			uint64_t saved;
			sim_time nm;
			if (wi.w[i].what == VIZ_WI_OBJLAT && rpar.model != SIM_DIRECT) {
				fprintf(stderr, "%s: --what-if '%s': needs the Direct model, which deadlocks on this run (it used %s)\n",
				        path, wi.w[i].text, sim_model_name(rpar.model));
				rc = 3;
				goto out;
			}
			int r2 = viz_whatif_run(tr, &rpar, binding, &wi.w[i], &saved, &nm);
			if (r2 == VIZ_EINVAL) {
				fprintf(stderr, "%s: --what-if '%s': no such %s in the trace\n", path, wi.w[i].text,
				        wi.w[i].what == VIZ_WI_LINE ? "record line"
				        : wi.w[i].what == VIZ_WI_LOC ? "source location"
				        : wi.w[i].what == VIZ_WI_OBJLAT ? "object" : "thread");
				rc = 2;
				goto out;
			}
			if (r2 != VIZ_OK) {
				fprintf(stderr, "%s: --what-if '%s': the re-simulation %s\n", path, wi.w[i].text,
				        r2 == VIZ_ESIM ? "deadlocked or overflowed" : "ran out of memory");
				rc = r2 == VIZ_ESIM ? 3 : 4;
				goto out;
			}
			double m0 = (double)cp->makespan, m1 = sim_time_to_double(nm);
			if (json)
				printf("%s{\"what\": \"%s\", \"makespan\": %.17g, \"before\": %" PRIu64 ", \"work_saved\": %" PRIu64 "}",
				       i ? ", " : "", wi.w[i].text, m1, cp->makespan, saved);
			else
				printf("  %-24s makespan %" PRIu64 " -> %.0f %s (%+.1f%%), work saved %" PRIu64 "%s\n",
				       wi.w[i].text, cp->makespan, m1, unit, m0 > 0 ? 100 * (m1 - m0) / m0 : 0, saved,
				       saved ? "" : "");
		}
		if (json)
			fputs("]", stdout);
	}
	if (json)
		fputs("}\n", stdout);
	rc = cmd_flush(&cmd);
out:
	viz_path_free(cp);
	viz_sched_free(vs);
	sim_work_free(work);
	sim_program_free(prog);
	cli_machine_release(&M.m);
	trace_free(tr);
	return rc;
}
