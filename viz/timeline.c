/*
 * timeline.c - the schedule as a Chrome/Perfetto trace-event JSON file
 * (the JSON object form: {"traceEvents": [...], "displayTimeUnit": ...}).
 *
 * Layout (pids from 1; Perfetto reserves 0): one process per processor ("cpu 0", ...; "shadow cpu of T3" for
 * a shadow thread; "pool" for the unbound ps pool), one thread track in
 * it per thread that ran there (tid unique per processor and thread, so
 * that Perfetto never merges two).  Under ps several threads share a
 * processor at once, so one track per processor would need overlapping
 * slices, which the format does not allow on one track.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "viz/vizint.h"

/* Process id of a processor (pid 0 holds the counters). */
static uint64_t pid_of(const struct viz_sched *s, int32_t proc, uint32_t u)
{
	if (proc == SIM_PROC_ANY)
		return 1;
	if (proc >= 0)
		return (uint64_t)proc + 1;
	return (uint64_t)s->par.cpus + 2 + u; /* shadow */
}

static uint64_t tid_of(const struct viz_sched *s, uint64_t pid, uint32_t u)
{
	return pid * ((uint64_t)s->tr->nthreads + 1) + u + 1;
}

static void ts_key(struct cli_json *j, const char *key, enum trace_unit unit, uint64_t t)
{
	char b[48];
	cli_json_key(j, key);
	cli_json_number(j, viz_us(unit, t, b, sizeof b));
}

/* A time strictly inside [a, b] (a < b) as microseconds: the midpoint. */
static void mid_key(struct cli_json *j, enum trace_unit unit, uint64_t a, uint64_t b)
{
	char buf[64];
	uint64_t m2 = a + b; /* twice the midpoint */
	viz_us(unit, m2 / 2, buf, sizeof buf);
	if (m2 & 1) {
		/* add half a unit */
		double scale = unit == TRACE_NS ? 0.001 : unit == TRACE_MS ? 1000 : unit == TRACE_S ? 1e6 : 1;
		snprintf(buf, sizeof buf, "%.4f", ((double)m2 / 2) * scale);
	}
	cli_json_key(j, "ts");
	cli_json_number(j, buf);
}

/* The piece of record r's work on the interval containing its end
 * (last != 0) or its beginning; returns 0 if the record ran no time. */
static int piece(const struct viz_sched *s, uint32_t r, int last, const struct viz_iv **iv,
                 uint64_t *from, uint64_t *to)
{
	const struct viz_rec_times *t = &s->rt[r];
	if (t->op <= t->begin)
		return 0;
	uint32_t u = s->rec_thread[r];
	size_t lo = s->iv_first[u], hi = s->iv_first[u + 1];
	uint64_t at = last ? t->op - 1 : t->begin;
	/* last interval with from <= at */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->iv[mid].from <= at)
			lo = mid;
		else
			hi = mid;
	}
	if (lo >= s->iv_first[u + 1])
		return 0;
	const struct viz_iv *x = &s->iv[lo];
	if (!(x->from <= at && at < x->to))
		return 0;
	*iv = x;
	*from = t->begin > x->from ? t->begin : x->from;
	*to = t->op < x->to ? t->op : x->to;
	return *to > *from;
}

/* A change of the counters: `ready` +-1 (alive and not blocked), or a
 * member +-1 of processor group `grp` (running while the group has room,
 * else ready: processor sharing). */
struct cev {
	uint64_t t;
	int32_t grp;   /* -1: the ready count itself */
	int8_t d;
};

static int cmp_cev(const void *a, const void *b)
{
	const struct cev *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

static void meta(struct cli_json *j, const char *what, uint64_t pid, uint64_t tid, int with_tid,
                 const char *name, int64_t sort)
{
	cli_json_object(j);
	cli_json_key(j, "ph"); cli_json_str(j, "M");
	cli_json_key(j, "name"); cli_json_str(j, what);
	cli_json_key(j, "pid"); cli_json_u64(j, pid);
	if (with_tid) {
		cli_json_key(j, "tid"); cli_json_u64(j, tid);
	}
	cli_json_key(j, "args"); cli_json_object(j);
	if (name) {
		cli_json_key(j, "name"); cli_json_str(j, name);
	} else {
		cli_json_key(j, "sort_index"); cli_json_i64(j, sort);
	}
	cli_json_end(j);
	cli_json_end(j);
}

int viz_timeline_write(const struct viz_sched *s, FILE *f)
{
	const struct trace *tr = s->tr;
	enum trace_unit unit = tr->unit;
	struct cli_json j;
	char lab[256], b2[128];
	uint32_t n = tr->nthreads;
	cli_json_init(&j, f);
	cli_json_object(&j);
	cli_json_key(&j, "displayTimeUnit");
	cli_json_str(&j, unit == TRACE_NS ? "ns" : "ms");
	cli_json_key(&j, "otherData");
	cli_json_object(&j);
	cli_json_key(&j, "tool"); cli_json_str(&j, "shadowbind simulate --timeline");
	cli_json_key(&j, "trace_unit"); cli_json_str(&j, trace_unit_name(unit));
	cli_json_key(&j, "makespan"); cli_json_u64(&j, s->makespan);
	cli_json_key(&j, "cpus"); cli_json_u64(&j, s->par.cpus);
	cli_json_key(&j, "mode"); cli_json_str(&j, s->par.mode == SIM_UNBOUND ? "unbound" : s->nprocs ? "bound" : "critical-path");
	sim_policy_format(&s->par, b2, sizeof b2);
	cli_json_key(&j, "policy"); cli_json_str(&j, b2);
	cli_json_key(&j, "latency"); cli_json_u64(&j, s->par.latency);
	cli_json_end(&j);
	cli_json_key(&j, "traceEvents");
	cli_json_array(&j);

	/* Names: processes, then each (processor, thread) track once. */
	/* the counters' process: after every processor (pid 0 is the idle
	 * process in Perfetto) */
	uint64_t cpid = (uint64_t)s->par.cpus + 2 + n;
	meta(&j, "process_name", cpid, 0, 0, "threads (counters)", 0);
	meta(&j, "process_sort_index", cpid, 0, 0, NULL, 0);
	uint8_t *seen = NULL;
	size_t nseen = 0;
	for (size_t i = 0; i < s->niv; i++) {
		const struct viz_iv *x = &s->ivp[i];
		uint64_t pid = pid_of(s, x->proc, x->thread);
		if (i == 0 || x->proc != s->ivp[i - 1].proc || x->proc == TRACE_SHADOW) {
			if (x->proc == SIM_PROC_ANY)
				snprintf(lab, sizeof lab, "pool of %u cpus (processor sharing)", s->par.cpus);
			else if (x->proc >= 0)
				snprintf(lab, sizeof lab, "cpu %d", x->proc);
			else
				snprintf(lab, sizeof lab, "shadow cpu of T%u", tr->threads[x->thread].id);
			if (x->proc != TRACE_SHADOW || !seen || !seen[x->thread]) {
				meta(&j, "process_name", pid, 0, 0, lab, 0);
				meta(&j, "process_sort_index", pid, 0, 0, NULL, (int64_t)pid);
			}
		}
		(void)nseen;
		if (!seen) {
			seen = calloc(n ? n : 1, 1);
			if (!seen)
				return VIZ_ENOMEM;
		}
		if (x->proc == TRACE_SHADOW)
			seen[x->thread] = 1;
	}
	/* thread tracks: (pid, thread) pairs from the by-proc list */
	{
		size_t a = 0;
		while (a < s->niv) {
			size_t b = a;
			while (b < s->niv && s->ivp[b].proc == s->ivp[a].proc)
				b++;
			memset(seen, 0, n ? n : 1);
			for (size_t i = a; i < b; i++) {
				uint32_t u = s->ivp[i].thread;
				if (seen[u])
					continue;
				seen[u] = 1;
				uint64_t pid = pid_of(s, s->ivp[i].proc, u);
				const char *nm = trace_thread_name(tr, u);
				snprintf(lab, sizeof lab, "T%u%s%s", tr->threads[u].id, nm ? " " : "", nm ? nm : "");
				meta(&j, "thread_name", pid, tid_of(s, pid, u), 1, lab, 0);
				meta(&j, "thread_sort_index", pid, tid_of(s, pid, u), 1, NULL, u);
			}
			a = b;
		}
	}
	free(seen);

	/* Slices: each record's work, piece by piece over the intervals. */
	for (uint32_t u = 0; u < n; u++) {
		const struct trace_thread *th = &tr->threads[u];
		size_t i = s->iv_first[u], e = s->iv_first[u + 1];
		for (uint32_t k = 0; k < th->nrec; k++) {
			uint32_t r = th->first + k;
			const struct viz_rec_times *t = &s->rt[r];
			if (t->op <= t->begin)
				continue;
			while (i < e && s->iv[i].to <= t->begin)
				i++;
			viz_rec_label(tr, r, lab, sizeof lab);
			for (size_t q = i; q < e && s->iv[q].from < t->op; q++) {
				const struct viz_iv *x = &s->iv[q];
				uint64_t a = t->begin > x->from ? t->begin : x->from;
				uint64_t b = t->op < x->to ? t->op : x->to;
				if (b <= a)
					continue;
				uint64_t pid = pid_of(s, x->proc, u);
				cli_json_object(&j);
				cli_json_key(&j, "ph"); cli_json_str(&j, "X");
				cli_json_key(&j, "cat"); cli_json_str(&j, "run");
				cli_json_key(&j, "name"); cli_json_str(&j, lab);
				cli_json_key(&j, "pid"); cli_json_u64(&j, pid);
				cli_json_key(&j, "tid"); cli_json_u64(&j, tid_of(s, pid, u));
				ts_key(&j, "ts", unit, a);
				ts_key(&j, "dur", unit, b - a);
				cli_json_key(&j, "args"); cli_json_object(&j);
				cli_json_key(&j, "line"); cli_json_u64(&j, tr->rec[r].line);
				cli_json_key(&j, "op"); cli_json_str(&j, trace_op_name(tr->rec[r].op));
				cli_json_key(&j, "work"); cli_json_u64(&j, viz_rec_work(s, r));
				cli_json_end(&j);
				cli_json_end(&j);
			}
		}
	}

	/* Synchronizations: an instant on the acquirer, a flow from the
	 * releaser's last slice before the release to the acquirer's next. */
	uint64_t flow = 0;
	for (uint32_t r = 0; r < tr->nrec; r++) {
		const struct viz_rec_times *t = &s->rt[r];
		if (t->releaser < 0 || t->grant == UINT64_MAX)
			continue;
		uint32_t u = s->rec_thread[r], v = (uint32_t)t->releaser;
		uint8_t ok;
		uint32_t obj;
		viz_acq_object(s, r, t->rel_rec, &ok, &obj);
		char on[96];
		viz_obj_name(tr, ok, obj, on, sizeof on);
		/* acquirer's track: the interval it resumes on */
		const struct viz_iv *dst = NULL;
		size_t q = viz_iv_from(s, u, t->resume);
		if (q < s->iv_first[u + 1])
			dst = &s->iv[q];
		if (!dst && s->iv_first[u + 1] > s->iv_first[u])
			dst = &s->iv[s->iv_first[u + 1] - 1];
		if (!dst)
			continue;
		uint64_t dpid = pid_of(s, dst->proc, u);
		snprintf(lab, sizeof lab, "%s %s <- T%u", trace_op_name(tr->rec[r].op), on, tr->threads[v].id);
		cli_json_object(&j);
		cli_json_key(&j, "ph"); cli_json_str(&j, "i");
		cli_json_key(&j, "s"); cli_json_str(&j, "t");
		cli_json_key(&j, "cat"); cli_json_str(&j, "sync");
		cli_json_key(&j, "name"); cli_json_str(&j, lab);
		cli_json_key(&j, "pid"); cli_json_u64(&j, dpid);
		cli_json_key(&j, "tid"); cli_json_u64(&j, tid_of(s, dpid, u));
		ts_key(&j, "ts", unit, t->grant);
		cli_json_key(&j, "args"); cli_json_object(&j);
		cli_json_key(&j, "object"); cli_json_str(&j, on);
		cli_json_key(&j, "line"); cli_json_u64(&j, tr->rec[r].line);
		cli_json_key(&j, "releaser");
		if (t->rel_rec != TRACE_NONE) {
			cli_json_str(&j, viz_rec_label(tr, t->rel_rec, b2, sizeof b2));
			cli_json_key(&j, "release_line"); cli_json_u64(&j, tr->rec[t->rel_rec].line);
		} else {
			snprintf(b2, sizeof b2, "T%u", tr->threads[v].id);
			cli_json_str(&j, b2);
		}
		cli_json_key(&j, "blocked"); cli_json_u64(&j, t->grant > t->op ? t->grant - t->op : 0);
		cli_json_key(&j, "latency"); cli_json_u64(&j, t->ready > t->grant ? t->ready - t->grant : 0);
		cli_json_key(&j, "ready_wait"); cli_json_u64(&j, t->resume - t->ready);
		cli_json_end(&j);
		cli_json_end(&j);
		/* flow: source slice = the releaser's record (or an earlier
		 * one of it) that ran up to the release */
		const struct viz_iv *siv = NULL, *div = NULL;
		uint64_t sa = 0, sb = 0, da = 0, db = 0;
		int have_s = 0, have_d = 0;
		if (t->rel_rec != TRACE_NONE) {
			uint32_t first = tr->threads[v].first;
			for (uint32_t x = t->rel_rec + 1; x-- > first;) {
				if (piece(s, x, 1, &siv, &sa, &sb)) {
					have_s = 1;
					break;
				}
				if (s->rt[x].begin < t->grant && x != t->rel_rec)
					break;
				if (x > first && s->rt[x - 1].resume != s->rt[x - 1].op)
					break; /* the releaser had stopped: no slice leads here */
			}
		}
		const struct trace_thread *uth = &tr->threads[u];
		for (uint32_t x = r + 1; x < uth->first + uth->nrec; x++) {
			if (piece(s, x, 0, &div, &da, &db)) {
				have_d = 1;
				break;
			}
			if (s->rt[x].resume != s->rt[x].op)
				break;
		}
		if (!have_s || !have_d)
			continue;
		flow++;
		uint64_t spid = pid_of(s, siv->proc, v), fpid = pid_of(s, div->proc, u);
		cli_json_object(&j);
		cli_json_key(&j, "ph"); cli_json_str(&j, "s");
		cli_json_key(&j, "cat"); cli_json_str(&j, "sync");
		cli_json_key(&j, "name"); cli_json_str(&j, "release");
		cli_json_key(&j, "id"); cli_json_u64(&j, flow);
		cli_json_key(&j, "pid"); cli_json_u64(&j, spid);
		cli_json_key(&j, "tid"); cli_json_u64(&j, tid_of(s, spid, v));
		mid_key(&j, unit, sa, sb);
		cli_json_end(&j);
		cli_json_object(&j);
		cli_json_key(&j, "ph"); cli_json_str(&j, "f");
		cli_json_key(&j, "bp"); cli_json_str(&j, "e");
		cli_json_key(&j, "cat"); cli_json_str(&j, "sync");
		cli_json_key(&j, "name"); cli_json_str(&j, "release");
		cli_json_key(&j, "id"); cli_json_u64(&j, flow);
		cli_json_key(&j, "pid"); cli_json_u64(&j, fpid);
		cli_json_key(&j, "tid"); cli_json_u64(&j, tid_of(s, fpid, u));
		mid_key(&j, unit, da, db);
		cli_json_end(&j);
	}

	/* Counters: running and ready threads.  ready = alive, not running,
	 * not blocked; under ps a group with more members than processors
	 * runs as many as it has and the rest are ready (sharing). */
	size_t nev = 2 * s->niv + 2 * (tr->nrec + n), m = 0;
	struct cev *ev = malloc((nev ? nev : 1) * sizeof *ev);
	uint32_t ngrp = s->par.cpus + 2; /* processors, the pool, shadows */
	long *mem = calloc(ngrp, sizeof *mem);
	if (!ev || !mem) {
		free(ev);
		free(mem);
		return VIZ_ENOMEM;
	}
	for (size_t i = 0; i < s->niv; i++) {
		int32_t g = s->iv[i].proc >= 0 ? s->iv[i].proc : s->iv[i].proc == SIM_PROC_ANY ? (int32_t)s->par.cpus
		                                                 : (int32_t)s->par.cpus + 1;
		ev[m++] = (struct cev){s->iv[i].from, g, 1};
		ev[m++] = (struct cev){s->iv[i].to, g, -1};
	}
	for (uint32_t u = 0; u < n; u++) {
		const struct trace_thread *th = &tr->threads[u];
		ev[m++] = (struct cev){s->tstart[u], -1, 1};
		ev[m++] = (struct cev){s->tend[u], -1, -1};
		for (uint32_t k = 0; k + 1 < th->nrec; k++) {
			const struct viz_rec_times *t = &s->rt[th->first + k];
			if (t->ready > t->op) { /* blocked */
				ev[m++] = (struct cev){t->op, -1, -1};
				ev[m++] = (struct cev){t->ready, -1, 1};
			}
		}
	}
	qsort(ev, m, sizeof *ev, cmp_cev);
	long alive = 0, run = 0;
	for (size_t i = 0; i < m;) {
		uint64_t t = ev[i].t;
		while (i < m && ev[i].t == t) {
			if (ev[i].grp < 0) {
				alive += ev[i].d;
			} else {
				uint32_t g = (uint32_t)ev[i].grp;
				long cap = g == s->par.cpus ? (long)s->par.cpus : g == s->par.cpus + 1 ? LONG_MAX : 1;
				run -= mem[g] < cap ? mem[g] : cap;
				mem[g] += ev[i].d;
				run += mem[g] < cap ? mem[g] : cap;
			}
			i++;
		}
		/* alive counts every live thread not blocked; members of a
		 * group are alive too */
		long ready = alive - run;
		cli_json_object(&j);
		cli_json_key(&j, "ph"); cli_json_str(&j, "C");
		cli_json_key(&j, "name"); cli_json_str(&j, "threads");
		cli_json_key(&j, "pid"); cli_json_u64(&j, cpid);
		cli_json_key(&j, "tid"); cli_json_u64(&j, tid_of(s, cpid, n));
		ts_key(&j, "ts", unit, t);
		cli_json_key(&j, "args"); cli_json_object(&j);
		cli_json_key(&j, "running"); cli_json_i64(&j, run);
		cli_json_key(&j, "ready"); cli_json_i64(&j, ready > 0 ? ready : 0);
		cli_json_end(&j);
		cli_json_end(&j);
	}
	free(mem);
	free(ev);
	cli_json_end(&j);
	cli_json_end(&j);
	if (fflush(f) != 0 || ferror(f) || cli_json_error(&j))
		return VIZ_EIO;
	return VIZ_OK;
}
