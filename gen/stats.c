/*
 * stats.c - statistics of a trace: size, work, critical path, parallelism
 * and operation counts (progen --stats).
 */
#include <string.h>

#include "gen/genint.h"

int gen_stats_compute(const struct trace *tr, struct gen_stats *st)
{
	memset(st, 0, sizeof *st);
	st->threads = tr->nthreads;
	st->records = tr->nrec;
	st->unit = tr->unit;
	for (size_t i = 0; i < tr->nrec; i++) {
		st->work += tr->rec[i].work;
		if (tr->rec[i].op < TRACE_NOPS)
			st->ops[tr->rec[i].op]++;
	}
	struct sim_program *p = sim_program_new(tr);
	struct sim_work *w = p ? sim_work_new(p) : NULL;
	if (!w) {
		sim_program_free(p);
		memset(st, 0, sizeof *st);
		return GEN_ENOMEM;
	}
	struct sim_params par;
	sim_params_init(&par);
	par.cpus = 1;
	par.latency = 0;
	par.model = SIM_DIRECT; /* the critical path of the Direct model */
	struct sim_result res;
	st->sim_status = sim_run(p, w, &par, NULL, 0, &res);
	if (st->sim_status == SIM_OK) {
		st->critical_path = res.makespan;
		double cp = sim_time_to_double(res.makespan);
		if (cp > 0 && st->work > 0)
			st->parallelism = (double)st->work / cp;
	}
	sim_work_free(w);
	sim_program_free(p);
	if (st->sim_status == SIM_ENOMEM) {
		memset(st, 0, sizeof *st);
		return GEN_ENOMEM;
	}
	return GEN_OK;
}

void gen_stats_print(const struct gen_stats *st, FILE *f)
{
	char buf[64];
	fprintf(f, "threads %u\n", st->threads);
	fprintf(f, "records %llu\n", (unsigned long long)st->records);
	fprintf(f, "work %llu\n", (unsigned long long)st->work);
	if (st->sim_status == SIM_OK) {
		fprintf(f, "critical_path %s\n",
		        sim_time_format(st->critical_path, buf, sizeof buf));
		if (st->parallelism > 0)
			fprintf(f, "parallelism %.3f\n", st->parallelism);
		else
			fprintf(f, "parallelism -\n");
	} else {
		fprintf(f, "critical_path %s\n",
		        st->sim_status == SIM_DEADLOCK   ? "deadlock"
		        : st->sim_status == SIM_EOVERFLOW ? "overflow"
		                                         : "error");
		fprintf(f, "parallelism -\n");
	}
	for (int op = 0; op < TRACE_NOPS; op++)
		fprintf(f, "op.%s %llu\n", trace_op_name(op),
		        (unsigned long long)st->ops[op]);
}
