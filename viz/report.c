/*
 * report.c - the critical path for people (text) and scripts (JSON), and
 * the short explanation `allocate --explain` prints.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "viz/vizint.h"

static const char *const kind_name[VIZ_NKINDS] = {
	[VIZ_WORK] = "work", [VIZ_READY] = "ready", [VIZ_LATENCY] = "latency",
	[VIZ_SLEEP] = "sleep", [VIZ_RELEASE] = "release",
};

static double pct(uint64_t x, uint64_t total)
{
	return total ? 100.0 * (double)x / (double)total : 0;
}

static char *thread_label(const struct trace *tr, uint32_t u, char *buf, size_t len)
{
	const char *nm = trace_thread_name(tr, u);
	snprintf(buf, len, "T%u%s%s", tr->threads[u].id, nm ? " " : "", nm ? nm : "");
	return buf;
}

/* "line 12 lock @a.c:3" */
static char *rec_where(const struct trace *tr, uint32_t r, char *buf, size_t len)
{
	const char *loc = trace_rec_loc(tr, r);
	snprintf(buf, len, "line %u %s%s%s", tr->rec[r].line, trace_op_name(tr->rec[r].op),
	         loc ? " @" : "", loc ? loc : "");
	return buf;
}

int viz_path_print(const struct viz_sched *s, const struct viz_path *p, unsigned top, FILE *f)
{
	const struct trace *tr = s->tr;
	const char *unit = trace_unit_name(tr->unit);
	char a[128], b[128], c[128], d[96];
	fprintf(f, "critical path: makespan %" PRIu64 " %s, %zu items\n", p->makespan, unit, p->n);
	fprintf(f, "%12s %12s %12s %7s  %-7s %s\n", "from", "to", "length", "share", "what", "where");
	for (size_t i = 0; i < p->n; i++) {
		const struct viz_item *it = &p->items[i];
		uint64_t len = it->to - it->from;
		if (it->kind == VIZ_RELEASE) {
			if (it->obj_kind == TRACE_NKINDS)
				fprintf(f, "%12" PRIu64 " %12s %12s %7s  %-7s %s waited %" PRIu64 " for %s, held by %s until then\n",
				        it->from, "", "", "", "cpu", thread_label(tr, it->thread, a, sizeof a),
				        it->waited, viz_obj_name(tr, it->obj_kind, it->obj, d, sizeof d),
				        thread_label(tr, (uint32_t)it->other, b, sizeof b));
			else if (it->obj_kind == TRACE_K_THREAD && tr->rec[it->rec].op != TRACE_JOIN)
				fprintf(f, "%12" PRIu64 " %12s %12s %7s  %-7s %s created by %s (%s)\n",
				        it->from, "", "", "", "create", thread_label(tr, it->thread, a, sizeof a),
				        thread_label(tr, (uint32_t)it->other, b, sizeof b),
				        rec_where(tr, it->other_rec, c, sizeof c));
			else
				fprintf(f, "%12" PRIu64 " %12s %12s %7s  %-7s %s (%s) on %s, blocked %" PRIu64 ", released by %s (%s)\n",
				        it->from, "", "", "", "release", thread_label(tr, it->thread, a, sizeof a),
				        rec_where(tr, it->rec, c, sizeof c),
				        viz_obj_name(tr, it->obj_kind, it->obj, d, sizeof d), it->waited,
				        thread_label(tr, (uint32_t)it->other, b, sizeof b),
				        it->other_rec != TRACE_NONE ? rec_where(tr, it->other_rec, c + 64, 64) : "?");
			continue;
		}
		fprintf(f, "%12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %6.1f%%  %-7s %s %s", it->from, it->to,
		        len, pct(len, p->makespan), kind_name[it->kind],
		        thread_label(tr, it->thread, a, sizeof a), rec_where(tr, it->rec, c, sizeof c));
		if (it->kind == VIZ_LATENCY)
			fprintf(f, " (%s)", viz_obj_name(tr, it->obj_kind, it->obj, d, sizeof d));
		if (it->kind == VIZ_WORK && len != tr->rec[it->rec].work)
			fprintf(f, " (work %" PRIu64 ")", viz_rec_work(s, it->rec));
		fputc('\n', f);
	}
	struct viz_share *th, *ob;
	size_t nt, no;
	if (viz_path_shares(s, p, &th, &nt, &ob, &no))
		return VIZ_ENOMEM;
	fprintf(f, "\nshare of the makespan per thread (work, ready, sleep on the path):\n");
	for (size_t i = 0; i < nt && i < top; i++)
		fprintf(f, "  %-24s %12" PRIu64 " %6.1f%%  (%u items)\n", thread_label(tr, th[i].id, a, sizeof a),
		        th[i].time, pct(th[i].time, p->makespan), th[i].count);
	if (nt > top)
		fprintf(f, "  ... %zu more threads\n", nt - top);
	fprintf(f, "\nper synchronization object (time threads on the path were blocked on it, plus latency):\n");
	if (no == 0)
		fprintf(f, "  none: the path never waits\n");
	for (size_t i = 0; i < no && i < top; i++)
		fprintf(f, "  %-24s %12" PRIu64 " %6.1f%%  (%u waits)\n",
		        viz_obj_name(tr, ob[i].kind, ob[i].id, d, sizeof d), ob[i].time,
		        pct(ob[i].time, p->makespan), ob[i].count);
	if (no > top)
		fprintf(f, "  ... %zu more objects\n", no - top);
	free(th);
	free(ob);
	return ferror(f) ? VIZ_EIO : VIZ_OK;
}

int viz_path_json(const struct viz_sched *s, const struct viz_path *p, FILE *f)
{
	const struct trace *tr = s->tr;
	struct viz_json j;
	char buf[128];
	vj_init(&j, f);
	vj_obj(&j);
	vj_key(&j, "makespan"); vj_u64(&j, p->makespan);
	vj_key(&j, "unit"); vj_str(&j, trace_unit_name(tr->unit));
	vj_key(&j, "items");
	vj_arr(&j);
	for (size_t i = 0; i < p->n; i++) {
		const struct viz_item *it = &p->items[i];
		vj_obj(&j);
		vj_key(&j, "kind"); vj_str(&j, kind_name[it->kind]);
		vj_key(&j, "from"); vj_u64(&j, it->from);
		vj_key(&j, "to"); vj_u64(&j, it->to);
		vj_key(&j, "length"); vj_u64(&j, it->to - it->from);
		vj_key(&j, "share"); vj_dbl(&j, p->makespan ? (double)(it->to - it->from) / (double)p->makespan : 0);
		vj_key(&j, "thread"); vj_u64(&j, tr->threads[it->thread].id);
		vj_key(&j, "line"); vj_u64(&j, tr->rec[it->rec].line);
		vj_key(&j, "op"); vj_str(&j, trace_op_name(tr->rec[it->rec].op));
		const char *loc = trace_rec_loc(tr, it->rec);
		vj_key(&j, "location");
		if (loc)
			vj_str(&j, loc);
		else
			vj_null(&j);
		if (it->kind == VIZ_LATENCY || it->kind == VIZ_RELEASE) {
			vj_key(&j, "object");
			vj_str(&j, viz_obj_name(tr, it->obj_kind, it->obj, buf, sizeof buf));
		}
		if (it->kind == VIZ_RELEASE) {
			vj_key(&j, "by_thread"); vj_u64(&j, tr->threads[it->other].id);
			vj_key(&j, "by_line");
			if (it->other_rec != TRACE_NONE)
				vj_u64(&j, tr->rec[it->other_rec].line);
			else
				vj_null(&j);
			vj_key(&j, "waited"); vj_u64(&j, it->waited);
		}
		vj_end_obj(&j);
	}
	vj_end_arr(&j);
	struct viz_share *th, *ob;
	size_t nt, no;
	if (viz_path_shares(s, p, &th, &nt, &ob, &no))
		return VIZ_ENOMEM;
	vj_key(&j, "threads");
	vj_arr(&j);
	for (size_t i = 0; i < nt; i++) {
		vj_obj(&j);
		vj_key(&j, "thread"); vj_u64(&j, tr->threads[th[i].id].id);
		vj_key(&j, "time"); vj_u64(&j, th[i].time);
		vj_key(&j, "share"); vj_dbl(&j, p->makespan ? (double)th[i].time / (double)p->makespan : 0);
		vj_end_obj(&j);
	}
	vj_end_arr(&j);
	vj_key(&j, "objects");
	vj_arr(&j);
	for (size_t i = 0; i < no; i++) {
		vj_obj(&j);
		vj_key(&j, "object"); vj_str(&j, viz_obj_name(tr, ob[i].kind, ob[i].id, buf, sizeof buf));
		vj_key(&j, "time"); vj_u64(&j, ob[i].time);
		vj_key(&j, "waits"); vj_u64(&j, ob[i].count);
		vj_key(&j, "share"); vj_dbl(&j, p->makespan ? (double)ob[i].time / (double)p->makespan : 0);
		vj_end_obj(&j);
	}
	vj_end_arr(&j);
	vj_end_obj(&j);
	fputc('\n', f);
	free(th);
	free(ob);
	return ferror(f) ? VIZ_EIO : VIZ_OK;
}

int viz_explain_print(const struct viz_sched *s, const struct viz_path *p, unsigned top, FILE *f)
{
	const struct trace *tr = s->tr;
	const char *unit = trace_unit_name(tr->unit);
	char a[128], d[96];
	struct viz_share *th, *ob;
	size_t nt, no;
	if (viz_path_shares(s, p, &th, &nt, &ob, &no))
		return VIZ_ENOMEM;
	uint64_t wall = 0, work = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->items[i].kind == VIZ_WORK) {
			wall += p->items[i].to - p->items[i].from;
			work += viz_rec_work(s, p->items[i].rec);
		}
	fprintf(f, "explain: critical path of the makespan %" PRIu64 " %s: through %zu threads", p->makespan,
	        unit, nt);
	if (nt)
		fprintf(f, ", most in %s (%.1f%%)", thread_label(tr, th[0].id, a, sizeof a),
		        pct(th[0].time, p->makespan));
	fprintf(f, "; bin/critical lists it\n");
	if (s->par.policy == SIM_PS && wall > work)
		fprintf(f, "explain: its threads shared their processors: %.1f%% of the makespan "
		        "went to other threads on them\n", pct(wall - work, p->makespan));
	if (no == 0)
		fprintf(f, "explain: no thread on it waits; only less work on it shortens it\n");
	for (size_t i = 0; i < no && i < top; i++) {
		fprintf(f, "explain: waiting on %s: %.1f%% of the makespan (%u waits)",
		        viz_obj_name(tr, ob[i].kind, ob[i].id, d, sizeof d), pct(ob[i].time, p->makespan),
		        ob[i].count);
		if (ob[i].kind == TRACE_NKINDS)
			fprintf(f, ": move a thread off it");
		else if (ob[i].kind == TRACE_K_MUTEX || ob[i].kind == TRACE_K_RWLOCK)
			fprintf(f, ": shorten what it protects, or split it");
		else if (ob[i].kind == TRACE_K_THREAD)
			fprintf(f, ": that thread ends late");
		fputc('\n', f);
	}
	if (s->nprocs && s->makespan) {
		uint32_t best = 0;
		for (uint32_t k = 1; k < s->nprocs; k++)
			if (s->busy[k] > s->busy[best])
				best = k;
		fprintf(f, "explain: busiest processor %u: busy %.1f%% of the makespan%s\n", best,
		        100.0 * s->busy[best] / (double)s->makespan,
		        s->busy[best] >= 0.95 * (double)s->makespan ? " (its load bounds the makespan)" : "");
	}
	free(th);
	free(ob);
	return ferror(f) ? VIZ_EIO : VIZ_OK;
}
