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

/* Work on the path per source location (Paper VI, 2.2: the profile of
 * the path); sorted by decreasing time.  *n = 0 when the trace has no
 * locations.  Returns a malloc'd array or NULL (none, or no memory). */
struct locshare {
	const char *loc;
	uint64_t time;
	uint32_t count;
};

static int cmp_loc(const void *a, const void *b)
{
	const struct locshare *x = a, *y = b;
	return strcmp(x->loc, y->loc);
}

static int cmp_loctime(const void *a, const void *b)
{
	const struct locshare *x = a, *y = b;
	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return strcmp(x->loc, y->loc);
}

static struct locshare *loc_shares(const struct viz_sched *s, const struct viz_path *p, size_t *n)
{
	*n = 0;
	const struct trace *tr = s->tr;
	if (!tr->loc || p->n == 0)
		return NULL;
	struct locshare *a = malloc(p->n * sizeof *a);
	if (!a)
		return NULL;
	size_t m = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct viz_item *it = &p->items[i];
		const char *loc = it->kind == VIZ_WORK ? trace_rec_loc(tr, it->rec) : NULL;
		if (!loc || it->to == it->from)
			continue;
		a[m].loc = loc;
		a[m].time = it->to - it->from;
		a[m].count = 1;
		m++;
	}
	qsort(a, m, sizeof *a, cmp_loc);
	size_t k = 0;
	for (size_t i = 0; i < m; i++) {
		if (k && strcmp(a[k - 1].loc, a[i].loc) == 0) {
			a[k - 1].time += a[i].time;
			a[k - 1].count++;
		} else {
			a[k++] = a[i];
		}
	}
	qsort(a, k, sizeof *a, cmp_loctime);
	*n = k;
	return a;
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
	size_t nl;
	struct locshare *ls = loc_shares(s, p, &nl);
	if (nl) {
		fprintf(f, "\nshare of the makespan per source location (work on the path):\n");
		for (size_t i = 0; i < nl && i < top; i++)
			fprintf(f, "  @%-23s %12" PRIu64 " %6.1f%%  (%u items)\n", ls[i].loc, ls[i].time,
			        pct(ls[i].time, p->makespan), ls[i].count);
		if (nl > top)
			fprintf(f, "  ... %zu more locations\n", nl - top);
	}
	free(ls);
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
	struct cli_json j;
	char buf[128];
	cli_json_init(&j, f);
	cli_json_object(&j);
	cli_json_key(&j, "makespan"); cli_json_u64(&j, p->makespan);
	cli_json_key(&j, "unit"); cli_json_str(&j, trace_unit_name(tr->unit));
	cli_json_key(&j, "items");
	cli_json_array(&j);
	for (size_t i = 0; i < p->n; i++) {
		const struct viz_item *it = &p->items[i];
		cli_json_object(&j);
		cli_json_key(&j, "kind"); cli_json_str(&j, kind_name[it->kind]);
		cli_json_key(&j, "from"); cli_json_u64(&j, it->from);
		cli_json_key(&j, "to"); cli_json_u64(&j, it->to);
		cli_json_key(&j, "length"); cli_json_u64(&j, it->to - it->from);
		cli_json_key(&j, "share"); cli_json_double(&j, p->makespan ? (double)(it->to - it->from) / (double)p->makespan : 0);
		cli_json_key(&j, "thread"); cli_json_u64(&j, tr->threads[it->thread].id);
		cli_json_key(&j, "line"); cli_json_u64(&j, tr->rec[it->rec].line);
		cli_json_key(&j, "op"); cli_json_str(&j, trace_op_name(tr->rec[it->rec].op));
		const char *loc = trace_rec_loc(tr, it->rec);
		cli_json_key(&j, "location");
		if (loc)
			cli_json_str(&j, loc);
		else
			cli_json_null(&j);
		if (it->kind == VIZ_LATENCY || it->kind == VIZ_RELEASE) {
			cli_json_key(&j, "object");
			cli_json_str(&j, viz_obj_name(tr, it->obj_kind, it->obj, buf, sizeof buf));
		}
		if (it->kind == VIZ_RELEASE) {
			cli_json_key(&j, "by_thread"); cli_json_u64(&j, tr->threads[it->other].id);
			cli_json_key(&j, "by_line");
			if (it->other_rec != TRACE_NONE)
				cli_json_u64(&j, tr->rec[it->other_rec].line);
			else
				cli_json_null(&j);
			cli_json_key(&j, "waited"); cli_json_u64(&j, it->waited);
		}
		cli_json_end(&j);
	}
	cli_json_end(&j);
	struct viz_share *th, *ob;
	size_t nt, no;
	if (viz_path_shares(s, p, &th, &nt, &ob, &no))
		return VIZ_ENOMEM;
	cli_json_key(&j, "threads");
	cli_json_array(&j);
	for (size_t i = 0; i < nt; i++) {
		cli_json_object(&j);
		cli_json_key(&j, "thread"); cli_json_u64(&j, tr->threads[th[i].id].id);
		cli_json_key(&j, "time"); cli_json_u64(&j, th[i].time);
		cli_json_key(&j, "share"); cli_json_double(&j, p->makespan ? (double)th[i].time / (double)p->makespan : 0);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	size_t nl;
	struct locshare *ls = loc_shares(s, p, &nl);
	cli_json_key(&j, "locations");
	cli_json_array(&j);
	for (size_t i = 0; i < nl; i++) {
		cli_json_object(&j);
		cli_json_key(&j, "location"); cli_json_str(&j, ls[i].loc);
		cli_json_key(&j, "time"); cli_json_u64(&j, ls[i].time);
		cli_json_key(&j, "share"); cli_json_double(&j, p->makespan ? (double)ls[i].time / (double)p->makespan : 0);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	free(ls);
	cli_json_key(&j, "objects");
	cli_json_array(&j);
	for (size_t i = 0; i < no; i++) {
		cli_json_object(&j);
		cli_json_key(&j, "object"); cli_json_str(&j, viz_obj_name(tr, ob[i].kind, ob[i].id, buf, sizeof buf));
		cli_json_key(&j, "time"); cli_json_u64(&j, ob[i].time);
		cli_json_key(&j, "waits"); cli_json_u64(&j, ob[i].count);
		cli_json_key(&j, "share"); cli_json_double(&j, p->makespan ? (double)ob[i].time / (double)p->makespan : 0);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	cli_json_end(&j);
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
