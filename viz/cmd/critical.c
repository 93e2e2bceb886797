/*
 * critical - the extended critical path (Paper VI) of a simulated run,
 * and what-if re-simulations (docs/viz.md).
 *
 * Exit status: 0 ok, 1 usage, 2 bad input, 3 the simulated run (or a
 * what-if) deadlocked, 4 internal limit (overflow, out of memory).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "trace/trace.h"
#include "viz/viz.h"

static const char usage[] =
"usage: critical [options] TRACE\n"
"\n"
"Simulate the recorded program as `simulate` does and print its extended\n"
"critical path (Paper VI): the chain of work, waits for a processor,\n"
"latencies and releases that determines the completion time, walked back\n"
"from the last exit.  Each item gives its thread, the trace line and\n"
"@file:line of its record, its length and its share of the makespan; then\n"
"the share per thread and per synchronization object; then the weight of\n"
"the longest work items (re-simulated 10% faster: makespan saved per unit\n"
"of work saved; Paper VI's weight, negative when faster makes it later).\n"
"\n"
"Machine (as simulate):\n"
"  --cpus K            processors (default: the binding file's cpus)\n"
"  --binding FILE      bind threads as FILE says\n"
"  --unbound           K processors serve one ready queue (needs --cpus)\n"
"                      With neither: one processor per thread.\n"
"  --latency T         synchronization latency between processors (trace units)\n"
"  --policy P          ps (default), fifo, rr:Q\n"
"  --create-cost C     --switch-cost C\n"
"  --model M           direct, client-server, strict, auto (default)\n"
"\n"
"Analysis:\n"
"  --what-if SPEC      re-simulate with a change and print the new makespan;\n"
"                      repeatable.  SPEC: line:L:P%  (the record at trace\n"
"                      line L runs P% faster), thread:ID:P%  (every record\n"
"                      of thread ID), latency:T  (latency T instead)\n"
"  --weights N         weigh the N longest work items (default 5, 0: none)\n"
"  --top N             summary lines (default 10)\n"
"  --json              everything as one JSON object\n"
"  -h, --help          this text\n"
"\n"
"Example: critical --cpus 2 --unbound --policy fifo --what-if line:12:50% t.trace\n"
"\n"
"Exit status: 0 ok, 1 usage, 2 bad input, 3 simulated deadlock, 4 internal limit.\n";

#define MAX_WHATIF 32

struct opt {
	const char *name;
	int has_arg;
	int id;
};

enum { O_CPUS = 1, O_BINDING, O_UNBOUND, O_LATENCY, O_POLICY, O_CREATE, O_SWITCH, O_MODEL,
       O_WHATIF, O_WEIGHTS, O_TOP, O_JSON, O_HELP };

static const struct opt table[] = {
	{"cpus", 1, O_CPUS}, {"binding", 1, O_BINDING}, {"unbound", 0, O_UNBOUND},
	{"latency", 1, O_LATENCY}, {"policy", 1, O_POLICY}, {"create-cost", 1, O_CREATE},
	{"switch-cost", 1, O_SWITCH}, {"model", 1, O_MODEL}, {"what-if", 1, O_WHATIF},
	{"weights", 1, O_WEIGHTS}, {"top", 1, O_TOP}, {"json", 0, O_JSON}, {"help", 0, O_HELP},
};
#define NOPT (sizeof table / sizeof table[0])

static const char *const model_names[] = {
	[SIM_DIRECT] = "direct", [SIM_CLIENT_SERVER] = "client-server",
	[SIM_STRICT] = "strict", [SIM_AUTO] = "auto",
};

static int cmp_len(const void *a, const void *b)
{
	const struct viz_item *x = *(const struct viz_item *const *)a;
	const struct viz_item *y = *(const struct viz_item *const *)b;
	uint64_t lx = x->to - x->from, ly = y->to - y->from;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

int main(int argc, char **argv)
{
	struct option lopts[NOPT + 1];
	for (size_t i = 0; i < NOPT; i++) {
		lopts[i].name = table[i].name;
		lopts[i].has_arg = table[i].has_arg ? required_argument : no_argument;
		lopts[i].flag = NULL;
		lopts[i].val = table[i].id;
	}
	memset(&lopts[NOPT], 0, sizeof lopts[NOPT]);
	struct sim_params par;
	sim_params_init(&par);
	par.model = SIM_AUTO;
	const char *binding_path = NULL;
	int unbound = 0, json = 0, have_cpus = 0;
	uint64_t v, weights = 5, top = 10;
	struct viz_whatif wi[MAX_WHATIF];
	size_t nwi = 0;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case O_CPUS:
			if (trace_parse_u64(optarg, 1u << 20, &v) || v == 0) {
				fprintf(stderr, "critical: --cpus '%s' is not an integer in 1..1048576\n", optarg);
				return 1;
			}
			par.cpus = (uint32_t)v;
			have_cpus = 1;
			break;
		case O_BINDING:
			binding_path = optarg;
			break;
		case O_UNBOUND:
			unbound = 1;
			break;
		case O_LATENCY: case O_CREATE: case O_SWITCH:
			if (trace_parse_u64(optarg, TRACE_WORK_LIMIT - 1, &v)) {
				fprintf(stderr, "critical: --%s '%s' is not a non-negative integer below 2^62\n",
				        c == O_LATENCY ? "latency" : c == O_CREATE ? "create-cost" : "switch-cost", optarg);
				return 1;
			}
			if (c == O_LATENCY)
				par.latency = v;
			else if (c == O_CREATE)
				par.create_cost = v;
			else
				par.switch_cost = v;
			break;
		case O_POLICY:
			if (sim_policy_parse(optarg, &par)) {
				fprintf(stderr, "critical: --policy '%s' is not ps, fifo or rr:Q (Q >= 1)\n", optarg);
				return 1;
			}
			break;
		case O_MODEL: {
			size_t m;
			for (m = 0; m < sizeof model_names / sizeof model_names[0]; m++)
				if (strcmp(optarg, model_names[m]) == 0)
					break;
			if (m == sizeof model_names / sizeof model_names[0]) {
				fprintf(stderr, "critical: --model '%s' is not a model (direct, client-server, strict, auto)\n", optarg);
				return 1;
			}
			par.model = (enum sim_model)m;
			break;
		}
		case O_WHATIF:
			if (nwi == MAX_WHATIF) {
				fprintf(stderr, "critical: at most %d --what-if\n", MAX_WHATIF);
				return 1;
			}
			if (viz_whatif_parse(optarg, &wi[nwi])) {
				fprintf(stderr, "critical: --what-if '%s' is not line:L:P%%, thread:ID:P%% or latency:T\n", optarg);
				return 1;
			}
			nwi++;
			break;
		case O_WEIGHTS: case O_TOP:
			if (trace_parse_u64(optarg, 1000000, &v)) {
				fprintf(stderr, "critical: --%s '%s' is not an integer in 0..1000000\n",
				        c == O_WEIGHTS ? "weights" : "top", optarg);
				return 1;
			}
			if (c == O_WEIGHTS)
				weights = v;
			else
				top = v;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_HELP: case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fprintf(stderr, "critical: option '%s' is unknown or lacks its value; see 'critical --help'\n",
			        argv[optind - 1 < argc ? optind - 1 : argc - 1]);
			return 1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "critical: %s; see 'critical --help'\n",
		        optind >= argc ? "no trace given" : "more than one trace given");
		return 1;
	}
	if (binding_path && unbound) {
		fputs("critical: --binding and --unbound exclude each other\n", stderr);
		return 1;
	}
	if (unbound && !have_cpus) {
		fputs("critical: --unbound needs --cpus K\n", stderr);
		return 1;
	}
	const char *path = argv[optind];
	struct trace *tr = NULL;
	struct trace_error err;
	if (trace_read_file(path, &tr, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	struct trace_binding bind;
	memset(&bind, 0, sizeof bind);
	if (binding_path) {
		if (trace_binding_read(binding_path, tr, &bind, &err) != 0) {
			fprintf(stderr, "%s\n", err.msg);
			trace_free(tr);
			return 2;
		}
		if (!have_cpus)
			par.cpus = bind.cpus;
		for (uint32_t i = 0; i < bind.n; i++) {
			if (bind.proc[i] >= (int32_t)par.cpus) {
				fprintf(stderr, "%s: thread %u is bound to processor %d, but --cpus is %u\n",
				        binding_path, tr->threads[i].id, bind.proc[i], par.cpus);
				trace_binding_release(&bind);
				trace_free(tr);
				return 2;
			}
		}
	} else if (unbound) {
		par.mode = SIM_UNBOUND;
	}
	const int32_t *binding = binding_path ? bind.proc : NULL;
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
		const struct viz_item **w = malloc((cp->n ? cp->n : 1) * sizeof *w);
		if (!w) {
			fprintf(stderr, "critical: out of memory\n");
			goto out;
		}
		size_t nw = 0;
		for (size_t i = 0; i < cp->n; i++)
			if (cp->items[i].kind == VIZ_WORK && tr->rec[cp->items[i].rec].work >= 10)
				w[nw++] = &cp->items[i];
		qsort(w, nw, sizeof *w, cmp_len);
		if (json)
			fputs(", \"weights\": [", stdout);
		else
			printf("\nweights (the record re-simulated 10%% faster; makespan saved / work saved):\n");
		size_t shown = 0;
		for (size_t i = 0; i < nw && shown < weights; i++) {
			int dup = 0;
			for (size_t k = 0; k < i; k++)
				dup |= w[k]->rec == w[i]->rec;
			if (dup)
				continue;
			char spec[64];
			snprintf(spec, sizeof spec, "line:%u:10%%", tr->rec[w[i]->rec].line);
			struct viz_whatif x;
			viz_whatif_parse(spec, &x);
			uint64_t saved;
			sim_time nm;
			int r2 = viz_whatif_run(tr, &rpar, binding, &x, &saved, &nm);
			if (r2 != VIZ_OK || saved == 0)
				continue;
			double gain = (double)cp->makespan - sim_time_to_double(nm);
			const char *loc = trace_rec_loc(tr, w[i]->rec);
			if (json)
				printf("%s{\"line\": %u, \"thread\": %u, \"work_saved\": %" PRIu64 ", \"makespan\": %.17g, \"weight\": %.6g}",
				       shown ? ", " : "", tr->rec[w[i]->rec].line, tr->threads[w[i]->thread].id,
				       saved, sim_time_to_double(nm), gain / (double)saved);
			else
				printf("  line %-8u T%-6u %s%-20s work saved %" PRIu64 ", makespan %.0f, weight %.3f\n",
				       tr->rec[w[i]->rec].line, tr->threads[w[i]->thread].id, loc ? "@" : "",
				       loc ? loc : "", saved, sim_time_to_double(nm), gain / (double)saved);
			shown++;
		}
		if (json)
			fputs("]", stdout);
		free(w);
	}
	if (nwi) {
		if (json)
			fputs(", \"what_if\": [", stdout);
		else
			printf("\nwhat if:\n");
		for (size_t i = 0; i < nwi; i++) {
			uint64_t saved;
			sim_time nm;
			int r2 = viz_whatif_run(tr, &rpar, binding, &wi[i], &saved, &nm);
			if (r2 == VIZ_EINVAL) {
				fprintf(stderr, "%s: --what-if '%s': no such %s in the trace\n", path, wi[i].text,
				        wi[i].what == VIZ_WI_LINE ? "record line" : "thread");
				rc = 2;
				goto out;
			}
			if (r2 != VIZ_OK) {
				fprintf(stderr, "%s: --what-if '%s': the re-simulation %s\n", path, wi[i].text,
				        r2 == VIZ_ESIM ? "deadlocked or overflowed" : "ran out of memory");
				rc = r2 == VIZ_ESIM ? 3 : 4;
				goto out;
			}
			double m0 = (double)cp->makespan, m1 = sim_time_to_double(nm);
			if (json)
				printf("%s{\"what\": \"%s\", \"makespan\": %.17g, \"before\": %" PRIu64 ", \"work_saved\": %" PRIu64 "}",
				       i ? ", " : "", wi[i].text, m1, cp->makespan, saved);
			else
				printf("  %-24s makespan %" PRIu64 " -> %.0f %s (%+.1f%%), work saved %" PRIu64 "%s\n",
				       wi[i].text, cp->makespan, m1, unit, m0 > 0 ? 100 * (m1 - m0) / m0 : 0, saved,
				       saved ? "" : "");
		}
		if (json)
			fputs("]", stdout);
	}
	if (json)
		fputs("}\n", stdout);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "critical: write error: %s\n", strerror(errno));
		rc = 4;
		goto out;
	}
	rc = 0;
out:
	viz_path_free(cp);
	viz_sched_free(vs);
	sim_work_free(work);
	sim_program_free(prog);
	trace_binding_release(&bind);
	trace_free(tr);
	return rc;
}
