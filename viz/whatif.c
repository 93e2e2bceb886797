/*
 * whatif.c - "what if this code were faster": re-simulate with works
 * scaled down (the virtual speedup of causal profiling, and Paper VI's
 * segment weights by re-simulation instead of the time-segment formula).
 */
#include <stdlib.h>
#include <string.h>

#include "viz/vizint.h"

const char *const viz_whatif_kinds[TRACE_NKINDS] = {
	[TRACE_K_THREAD] = "thread",
	[TRACE_K_MUTEX] = "mutex",
	[TRACE_K_SEM] = "sem",
	[TRACE_K_COND] = "cond",
	[TRACE_K_BARRIER] = "barrier",
	[TRACE_K_RWLOCK] = "rwlock",
};

/* "KIND:ID:T" of "latency:KIND:ID:T" into w. */
static int parse_objlat(const char *s, struct viz_whatif *w)
{
	const char *c = strchr(s, ':'), *c2 = c ? strchr(c + 1, ':') : NULL;
	char num[32];
	if (!c2 || (size_t)(c2 - c - 1) >= sizeof num)
		return VIZ_EINVAL;
	int kind = -1;
	for (int k = 0; k < TRACE_NKINDS; k++)
		if (strlen(viz_whatif_kinds[k]) == (size_t)(c - s) &&
		    strncmp(s, viz_whatif_kinds[k], (size_t)(c - s)) == 0)
			kind = k;
	memcpy(num, c + 1, (size_t)(c2 - c - 1));
	num[c2 - c - 1] = 0;
	uint64_t id, t;
	if (kind < 0 || trace_parse_u64(num, UINT32_MAX, &id) ||
	    trace_parse_u64(c2 + 1, TRACE_WORK_LIMIT - 1, &t))
		return VIZ_EINVAL;
	w->what = VIZ_WI_OBJLAT;
	w->kind = (uint8_t)kind;
	w->obj = (uint32_t)id;
	w->arg = t;
	return VIZ_OK;
}

int viz_whatif_parse(const char *s, struct viz_whatif *w)
{
	memset(w, 0, sizeof *w);
	if (!s)
		return VIZ_EINVAL;
	const char *c = strchr(s, ':');
	if (!c)
		return VIZ_EINVAL;
	size_t kl = (size_t)(c - s);
	char num[32], pc[32];
	if (kl == 7 && strncmp(s, "latency", 7) == 0 && strchr(c + 1, ':')) {
		if (parse_objlat(c + 1, w)) {
			memset(w, 0, sizeof *w);
			return VIZ_EINVAL;
		}
		w->text = s;
		return VIZ_OK;
	}
	if (kl == 7 && strncmp(s, "latency", 7) == 0) {
		uint64_t v;
		if (trace_parse_u64(c + 1, TRACE_WORK_LIMIT - 1, &v))
			return VIZ_EINVAL;
		w->what = VIZ_WI_LATENCY;
		w->arg = v;
		w->text = s;
		return VIZ_OK;
	}
	int what;
	if (kl == 2 && strncmp(s, "at", 2) == 0) {
		/* at:FILE:LINE:P% -- the percent after the last ':' */
		const char *pcol = strrchr(s, ':');
		size_t pl = strlen(pcol + 1);
		uint64_t p;
		if (pcol <= c + 1 || pl < 2 || pl >= sizeof pc || pcol[pl] != '%')
			return VIZ_EINVAL;
		memcpy(pc, pcol + 1, pl - 1);
		pc[pl - 1] = 0;
		if (trace_parse_u64(pc, 100, &p))
			return VIZ_EINVAL;
		w->what = VIZ_WI_LOC;
		w->percent = (uint32_t)p;
		w->text = s;
		w->loc_len = (size_t)(pcol - (c + 1));
		return VIZ_OK;
	}
	if (kl == 4 && strncmp(s, "line", 4) == 0)
		what = VIZ_WI_LINE;
	else if (kl == 6 && strncmp(s, "thread", 6) == 0)
		what = VIZ_WI_THREAD;
	else
		return VIZ_EINVAL;
	const char *c2 = strchr(c + 1, ':');
	if (!c2 || (size_t)(c2 - c - 1) >= sizeof num)
		return VIZ_EINVAL;
	memcpy(num, c + 1, (size_t)(c2 - c - 1));
	num[c2 - c - 1] = 0;
	size_t pl = strlen(c2 + 1);
	if (pl < 2 || pl >= sizeof pc || c2[pl] != '%')
		return VIZ_EINVAL;
	memcpy(pc, c2 + 1, pl - 1);
	pc[pl - 1] = 0;
	uint64_t a, p;
	if (trace_parse_u64(num, UINT32_MAX, &a) || trace_parse_u64(pc, 100, &p))
		return VIZ_EINVAL;
	w->what = what;
	w->arg = a;
	w->percent = (uint32_t)p;
	w->text = s;
	return VIZ_OK;
}

int viz_whatif_run(const struct trace *tr, const struct sim_params *par,
                   const int32_t *binding, const struct viz_whatif *w,
                   uint64_t *saved, sim_time *out)
{
	*saved = 0;
	*out = sim_time_int(0);
	struct sim_params pp = *par;
	struct trace copy = *tr;
	struct trace_rec *rec = NULL;
	uint64_t *olat = NULL;
	uint64_t cut = 0;
	if (w->what == VIZ_WI_LATENCY) {
		pp.latency = w->arg;
	} else if (w->what == VIZ_WI_OBJLAT) {
		unsigned kd = w->kind < TRACE_NKINDS ? w->kind : TRACE_K_THREAD;
		uint32_t no = kd == TRACE_K_THREAD ? tr->nthreads : tr->nobj[kd], ix = UINT32_MAX;
		for (uint32_t i = 0; i < no && w->kind < TRACE_NKINDS; i++)
			if ((kd == TRACE_K_THREAD ? tr->threads[i].id : tr->obj_id[kd][i]) == w->obj)
				ix = i;
		if (ix == UINT32_MAX)
			return VIZ_EINVAL;
		olat = malloc(no * sizeof *olat);
		if (!olat)
			return VIZ_ENOMEM;
		for (uint32_t i = 0; i < no; i++)
			olat[i] = par->obj_latency[kd] ? par->obj_latency[kd][i] : par->latency;
		olat[ix] = w->arg;
		pp.obj_latency[kd] = olat;
	} else {
		rec = malloc((tr->nrec ? tr->nrec : 1) * sizeof *rec);
		if (!rec)
			return VIZ_ENOMEM;
		memcpy(rec, tr->rec, tr->nrec * sizeof *rec);
		int found = 0;
		for (uint32_t u = 0; u < tr->nthreads; u++) {
			const struct trace_thread *th = &tr->threads[u];
			if (w->what == VIZ_WI_THREAD && th->id != w->arg)
				continue;
			for (uint32_t k = 0; k < th->nrec; k++) {
				struct trace_rec *x = &rec[th->first + k];
				if (w->what == VIZ_WI_LINE && x->line != w->arg)
					continue;
				if (w->what == VIZ_WI_LOC) {
					const char *loc = trace_rec_loc(tr, th->first + k);
					if (!loc || strlen(loc) != w->loc_len ||
					    memcmp(loc, w->text + 3, w->loc_len) != 0)
						continue;
				}
				found = 1;
				/* work * (100 - P) / 100, rounded down, without overflow */
				uint64_t keep = x->work / 100 * (100 - w->percent) +
				                x->work % 100 * (100 - w->percent) / 100;
				cut += x->work - keep;
				x->work = keep;
			}
		}
		if (!found) {
			free(rec);
			return VIZ_EINVAL;
		}
		copy.rec = rec;
	}
	int rc = VIZ_OK;
	struct sim_program *p = sim_program_new(&copy);
	struct sim_work *wk = p ? sim_work_new(p) : NULL;
	if (!wk) {
		rc = VIZ_ENOMEM;
	} else {
		sim_time m;
		int st = sim_makespan(p, wk, &pp, binding, &m);
		if (st == SIM_OK) {
			*out = m;
			*saved = cut;
		} else {
			rc = st == SIM_ENOMEM ? VIZ_ENOMEM : VIZ_ESIM;
		}
	}
	sim_work_free(wk);
	sim_program_free(p);
	free(rec);
	free(olat);
	return rc;
}
