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

/* ---------------------------------------------------------------------
 * The command line
 */

static struct args {
	struct cmd_machine M;
	int json;
	uint32_t weights, top;
	struct whatifs wi;
	const char *path;
} A = {.weights = 5, .top = 10};

static struct cli_opt opts[] = {
	CMD_MACHINE_OPTS(&A.M, CLI_M_ALL & ~CLI_M_BIT(POOL)),
	{CLI_GROUP, .help = "Analysis"},
	{CLI_FUNC, "what-if", .metavar = "SPEC", .dst = &A.wi, .fn = whatif_opt,
	 .help = "re-simulate with a change, print the new makespan\n"
	         "(repeatable): line:L:P% (the record at trace line L\n"
	         "runs P% faster), at:FILE:LINE:P% (every record\n"
	         "at that source location), thread:ID:P% (every\n"
	         "record of thread ID), latency:T (latency T instead),\n"
	         "latency:KIND:ID:T (the releases of that one object\n"
	         "take latency T; KIND mutex, sem, cond, barrier,\n"
	         "rwlock, or thread: its exit for a join; Direct model)"},
	{CLI_U32, "weights", .metavar = "N", .dst = &A.weights, .max = 1000,
	 .help = "weigh the N records with the most work on the path\n"
	         "(re-simulated 10% faster; default 5, 0: none)"},
	{CLI_U32, "top", .metavar = "N", .dst = &A.top, .max = 1000000,
	 .help = "summary lines (default 10)"},
	{CLI_FLAG, "json", .dst = &A.json, .help = "everything as one JSON object"},
	{CLI_END}};

static const struct cli_cmd cmd = {
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

/* CLI_CONTINUE, or the exit status (--help, a usage error). */
static int parse(int argc, char **argv)
{
	cmd_machine_init(&A.M, NULL);
	int nops, rc = cli_parse(&cmd, argc, argv, &nops);
	if (rc != CLI_CONTINUE)
		return rc;
	char why[600];
	if (nops != 1)
		return cmd_one_trace(&cmd, nops);
	if (cli_machine_check(&A.M.m, why, sizeof why))
		return cli_usage(&cmd, "%s", why);
	for (size_t i = 0; i < A.wi.n; i++)
		if (A.wi.w[i].what == VIZ_WI_OBJLAT && A.M.par.model != SIM_DIRECT &&
		    A.M.par.model != SIM_AUTO)
			return cli_usage(&cmd, "--what-if %s needs the Direct model", A.wi.w[i].text);
	A.path = argv[1];
	return CLI_CONTINUE;
}

/* ---------------------------------------------------------------------
 * The run: simulate, walk the critical path back
 */

struct run {
	struct trace *tr;
	struct sim_params par;
	struct sim_params rpar;   /* par with the model that produced res:
	                             what-ifs and weights re-simulate with it */
	const int32_t *binding;   /* --binding's processors, or NULL          */
	struct sim_program *prog;
	struct sim_work *work;
	struct sim_result res;
	struct viz_sched *vs;
	struct viz_path *cp;
};

static void run_release(struct run *r)
{
	viz_path_free(r->cp);
	viz_sched_free(r->vs);
	sim_work_free(r->work);
	sim_program_free(r->prog);
	cmd_machine_release(&A.M);
	trace_free(r->tr);
}

/* CLI_OK with *r filled, or the exit status after the message (then
 * release r all the same). */
static int run(struct run *r)
{
	char why[600];
	memset(r, 0, sizeof *r);
	if (cli_trace_load(A.path, &r->tr, why, sizeof why) != CLI_OK)
		return cli_errorf(CLI_EINPUT, "%s", why);
	r->par = A.M.par;
	int rc = cmd_machine_load(&A.M, &cmd, r->tr, &r->par);
	if (rc != CLI_OK)
		return rc;
	r->binding = A.M.m.binding ? A.M.m.bind.proc : NULL;
	r->prog = sim_program_new(r->tr);
	r->work = r->prog ? sim_work_new(r->prog) : NULL;
	if (!r->work)
		return cli_error(&cmd, CLI_ESYSTEM, "out of memory");
	int st = sim_run(r->prog, r->work, &r->par, r->binding, SIM_STATS | SIM_SCHEDULE, &r->res);
	if (st == SIM_DEADLOCK) {
		char b[64];
		fprintf(stderr, "%s: the simulated run deadlocked at time %s (model %s):\n", A.path,
		        sim_time_format_dec(r->res.makespan, b, sizeof b), sim_model_name(r->res.model));
		sim_deadlock_print(r->prog, &r->res, stderr);
	} else if (st != SIM_OK) {
		fprintf(stderr, "%s: simulation failed (%s)\n", A.path,
		        st == SIM_EOVERFLOW ? "times exceed 64-bit exact arithmetic" :
		        st == SIM_ENOMEM ? "out of memory" : "invalid parameters");
	}
	if (st != SIM_OK)
		return cmd_exit_sim(st);
	r->rpar = r->par;
	r->rpar.model = r->res.model;
	if (viz_sched_new(r->prog, &r->par, r->binding, &r->res, &r->vs) ||
	    viz_critical(r->vs, &r->cp))
		return cli_error(&cmd, CLI_ESYSTEM, "out of memory");
	return CLI_OK;
}

/* ---------------------------------------------------------------------
 * The output
 */

/* The weights of the longest work items on the path (distinct records):
 * each re-simulated 10% faster. */
static int print_weights(const struct run *r)
{
	const struct trace *tr = r->tr;
	const struct viz_path *cp = r->cp;
	const int32_t *binding = r->binding;
	struct weigh *w = malloc((cp->n ? cp->n : 1) * sizeof *w);
	if (!w) {
		return cli_error(&cmd, CLI_ESYSTEM, "out of memory");
	}
	size_t nw = 0;
	for (size_t i = 0; i < cp->n; i++)
		if (cp->items[i].kind == VIZ_WORK && tr->rec[cp->items[i].rec].work >= 10) {
			w[nw].work = tr->rec[cp->items[i].rec].work;
			w[nw++].it = &cp->items[i];
		}
	qsort(w, nw, sizeof *w, cmp_weigh);
	if (A.json)
		fputs(", \"weights\": [", stdout);
	else
		printf("\nweights (the record re-simulated 10%% faster; makespan saved / work saved):\n");
	size_t shown = 0;
	for (size_t i = 0; i < nw && shown < A.weights; i++) {
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
		int r2 = viz_whatif_run(tr, &r->rpar, binding, &x, &saved, &nm);
		if (r2 != VIZ_OK || saved == 0)
			continue;
		double gain = (double)cp->makespan - sim_time_to_double(nm);
		const char *loc = trace_rec_loc(tr, w[i].it->rec);
		if (A.json)
			printf("%s{\"line\": %u, \"thread\": %u, \"work_saved\": %" PRIu64 ", \"makespan\": %.17g, \"weight\": %.6g}",
			       shown ? ", " : "", tr->rec[w[i].it->rec].line, tr->threads[w[i].it->thread].id,
			       saved, sim_time_to_double(nm), gain / (double)saved);
		else
			printf("  line %-8u T%-6u %s%-20s work saved %" PRIu64 ", makespan %.0f, weight %.3f\n",
			       tr->rec[w[i].it->rec].line, tr->threads[w[i].it->thread].id, loc ? "@" : "",
			       loc ? loc : "", saved, sim_time_to_double(nm), gain / (double)saved);
		shown++;
	}
	if (A.json)
		fputs("]", stdout);
	free(w);
	return CLI_OK;
}

/* What each object's latency costs: re-simulated with it 0 (Direct
 * model, with a latency). */
static int print_latency_costs(const struct run *r)
{
	const struct trace *tr = r->tr;
	const struct viz_path *cp = r->cp;
	const int32_t *binding = r->binding;
	const struct viz_sched *vs = r->vs;
	const char *unit = trace_unit_name(tr->unit);
	struct viz_share *th, *ob;
	size_t nt, no;
	if (viz_path_shares(vs, cp, &th, &nt, &ob, &no)) {
		return cli_error(&cmd, CLI_ESYSTEM, "out of memory");
	}
	if (A.json)
		fputs(", \"latency_cost\": [", stdout);
	else
		printf("\nlatency cost per object on the path (re-simulated with its latency 0):\n");
	size_t shown = 0;
	for (size_t i = 0; i < no && shown < A.top; i++) {
		if (ob[i].kind >= TRACE_NKINDS)
			continue; /* a processor */
		char spec[96];
		uint32_t id = ob[i].kind == TRACE_K_THREAD ? tr->threads[ob[i].id].id
		                                           : tr->obj_id[ob[i].kind][ob[i].id];
		snprintf(spec, sizeof spec, "latency:%s:%u:0", viz_whatif_kinds[ob[i].kind], id);
		struct viz_whatif x;
		uint64_t saved;
		sim_time nm;
		if (viz_whatif_parse(spec, &x) || viz_whatif_run(tr, &r->rpar, binding, &x, &saved, &nm))
			continue;
		double m1 = sim_time_to_double(nm);
		if (A.json)
			printf("%s{\"what\": \"%s\", \"makespan\": %.17g, \"cost\": %.17g}", shown ? ", " : "",
			       spec, m1, (double)cp->makespan - m1);
		else
			printf("  %-24s makespan %" PRIu64 " -> %.0f %s: its latency costs %.0f\n", spec,
			       cp->makespan, m1, unit, (double)cp->makespan - m1);
		shown++;
	}
	if (!A.json && shown == 0)
		printf("  none: the path waits on no object\n");
	if (A.json)
		fputs("]", stdout);
	free(th);
	free(ob);
	return CLI_OK;
}

/* --what-if: each re-simulated with its change. */
static int print_whatifs(const struct run *r)
{
	const struct trace *tr = r->tr;
	const struct viz_path *cp = r->cp;
	const int32_t *binding = r->binding;
	const char *unit = trace_unit_name(tr->unit);
	if (A.json)
		fputs(", \"what_if\": [", stdout);
	else
		printf("\nwhat if:\n");
	for (size_t i = 0; i < A.wi.n; i++) {
		uint64_t saved;
		sim_time nm;
		if (A.wi.w[i].what == VIZ_WI_OBJLAT && r->rpar.model != SIM_DIRECT) {
			fprintf(stderr, "%s: --what-if '%s': needs the Direct model, which deadlocks on this run (it used %s)\n",
			        A.path, A.wi.w[i].text, sim_model_name(r->rpar.model));
			return CLI_EDEADLOCK;
		}
		int r2 = viz_whatif_run(tr, &r->rpar, binding, &A.wi.w[i], &saved, &nm);
		if (r2 == VIZ_EINVAL) {
			fprintf(stderr, "%s: --what-if '%s': no such %s in the trace\n", A.path, A.wi.w[i].text,
			        A.wi.w[i].what == VIZ_WI_LINE ? "record line"
			        : A.wi.w[i].what == VIZ_WI_LOC ? "source location"
			        : A.wi.w[i].what == VIZ_WI_OBJLAT ? "object" : "thread");
			return CLI_EINPUT;
		}
		if (r2 != VIZ_OK) {
			fprintf(stderr, "%s: --what-if '%s': the re-simulation %s\n", A.path, A.wi.w[i].text,
			        r2 == VIZ_ESIM ? "deadlocked or overflowed" : "ran out of memory");
			return r2 == VIZ_ESIM ? CLI_EDEADLOCK : CLI_ESYSTEM;
		}
		double m0 = (double)cp->makespan, m1 = sim_time_to_double(nm);
		if (A.json)
			printf("%s{\"what\": \"%s\", \"makespan\": %.17g, \"before\": %" PRIu64 ", \"work_saved\": %" PRIu64 "}",
			       i ? ", " : "", A.wi.w[i].text, m1, cp->makespan, saved);
		else
			printf("  %-24s makespan %" PRIu64 " -> %.0f %s (%+.1f%%), work saved %" PRIu64 "%s\n",
			       A.wi.w[i].text, cp->makespan, m1, unit, m0 > 0 ? 100 * (m1 - m0) / m0 : 0, saved,
			       saved ? "" : "");
	}
	if (A.json)
		fputs("]", stdout);
	return CLI_OK;
}

int main(int argc, char **argv)
{
	int rc = parse(argc, argv);
	if (rc != CLI_CONTINUE)
		return rc;
	struct run r;
	if ((rc = run(&r)) == CLI_OK) {
		if (A.json) {
			fputs("{\"path\": ", stdout);
			viz_path_json(r.vs, r.cp, stdout);
			printf(", \"model\": \"%s\"", sim_model_name(r.res.model));
		} else {
			viz_path_print(r.vs, r.cp, (unsigned)A.top, stdout);
		}
		if (A.weights)
			rc = print_weights(&r);
		if (rc == CLI_OK && r.par.latency && r.res.model == SIM_DIRECT)
			rc = print_latency_costs(&r);
		if (rc == CLI_OK && A.wi.n)
			rc = print_whatifs(&r);
		if (rc == CLI_OK && A.json)
			fputs("}\n", stdout);
		if (rc == CLI_OK)
			rc = cmd_flush(&cmd);
	}
	run_release(&r);
	return rc;
}
