/*
 * models.c - the recorded pairing of releases and acquisitions, as the
 * strict-sequence and client-server models use it (docs/models.md).
 *
 * For every acquisition the trace's pair[] names the release that
 * satisfied it in the recording.  This file turns that into a compact
 * dependency graph (struct sim_pairs, simint.h): events (releases some
 * record depends on) and waits (records that depend on events), with
 * the few dependencies pair[] does not spell out derived from the file
 * order:
 *   - lock / trylock ok: pair[] is the previous unlock of the mutex, or
 *     the record after which a cwait released it (then the event is that
 *     cwait's first half);
 *   - cwait: its signal (pair[]), and the release of its mutex that
 *     preceded its line (the re-acquisition; from the file order of the
 *     mutex's releases); the signal in turn waits for the registration
 *     (first half) of every cwait it woke;
 *   - barrier: one event per group (the records whose pair[] is the
 *     group's last arrival), complete when all its members have arrived;
 *   - rdlock: the release of the last write hold before it; wrlock: every
 *     rwunlock since the previous wrlock (so writers stay exclusive and
 *     readers do not wait for each other), from the file order of the
 *     rwlock's records;
 *   - wait / trywait ok: its post; join: the target's exit.
 * Acquisitions with nothing to wait for (a first lock, an initial token)
 * and dependencies of a record on its own first half are left out.
 *
 * Every dependency points backwards in file order; the strict-sequence
 * model's freedom from deadlock rests on that (docs/models.md).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/simint.h"

struct edge {
	uint32_t src; /* record whose release (or group) is needed */
	uint32_t dst; /* record that waits                         */
};

struct ebuf {
	struct edge *e;
	size_t n, cap;
	int oom;
};

static void edge_add(struct ebuf *b, uint32_t src, uint32_t dst)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1024;
		struct edge *e = realloc(b->e, cap * sizeof *e);
		if (!e) {
			b->oom = 1;
			return;
		}
		b->e = e;
		b->cap = cap;
	}
	b->e[b->n].src = src;
	b->e[b->n].dst = dst;
	b->n++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void sim_pairs_release(struct sim_pairs *px)
{
	free(px->rp);
	free(px->ev_need);
	free(px->ev_rec);
	free(px->ev_off);
	free(px->ev_dep);
	free(px->w_off);
	free(px->w_cond);
	free(px->w_rec);
	free(px->w_th);
	free(px->th_wbase);
	free(px->th_ncut);
	memset(px, 0, sizeof *px);
}

static void *xmalloc(size_t n, size_t size)
{
	return malloc((n ? n : 1) * size);
}

/* Items of one object in file order. */
struct item {
	uint64_t key; /* 2 * line where it stands, or 2 * line + 1: a cwait's
	                 registration, right after the waiter's previous record */
	uint32_t rec;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

/* rwlock items: line << 32 | record (lines < 2^32). */
static uint64_t item(uint64_t line, uint32_t rec)
{
	return line << 32 | rec;
}

/* Condition-variable mutexes: each cwait re-acquires after the release
 * of its mutex that precedes its line. */
static int cwait_mutex_edges(const struct trace *tr, const uint32_t *thr,
                             struct ebuf *eb)
{
	uint32_t nm = tr->nobj[TRACE_K_MUTEX];
	size_t n = tr->nrec;
	uint32_t *cnt = calloc((size_t)nm + 1, sizeof *cnt);
	if (!cnt)
		return -1;
	/* mutexes used by a cwait */
	for (size_t r = 0; r < n; r++)
		if (tr->rec[r].op == TRACE_CWAIT && tr->rec[r].b < nm)
			cnt[tr->rec[r].b] = 1;
	/* items per marked mutex: unlocks, registrations, re-acquisitions */
	uint32_t *off = calloc((size_t)nm + 1, sizeof *off);
	if (!off) {
		free(cnt);
		return -1;
	}
	for (size_t r = 0; r < n; r++) {
		const struct trace_rec *x = &tr->rec[r];
		if (x->op == TRACE_UNLOCK && x->a < nm && cnt[x->a])
			off[x->a]++;
		else if (x->op == TRACE_CWAIT && x->b < nm)
			off[x->b] += 2;
	}
	size_t tot = 0;
	for (uint32_t m = 0; m < nm; m++) {
		uint32_t c = off[m];
		off[m] = (uint32_t)tot;
		tot += c;
	}
	off[nm] = (uint32_t)tot;
	struct item *it = xmalloc(tot, sizeof *it);
	if (!it) {
		free(cnt);
		free(off);
		return -1;
	}
	memset(cnt, 0, ((size_t)nm + 1) * sizeof *cnt);
	for (size_t r = 0; r < n; r++) {
		const struct trace_rec *x = &tr->rec[r];
		if (x->op == TRACE_UNLOCK && x->a < nm && off[x->a + 1] > off[x->a]) {
			it[off[x->a] + cnt[x->a]++] = (struct item){2 * (uint64_t)x->line, (uint32_t)r};
		} else if (x->op == TRACE_CWAIT && x->b < nm) {
			/* registration right after the previous record of its
			 * thread (a valid trace has one) */
			uint64_t rk = 0;
			if (r > 0 && thr[r - 1] == thr[r])
				rk = 2 * (uint64_t)tr->rec[r - 1].line + 1;
			it[off[x->b] + cnt[x->b]++] = (struct item){rk, (uint32_t)r};
			it[off[x->b] + cnt[x->b]++] = (struct item){2 * (uint64_t)x->line, (uint32_t)r};
		}
	}
	for (uint32_t m = 0; m < nm; m++) {
		struct item *a = it + off[m];
		size_t k = off[m + 1] - off[m];
		if (!k)
			continue;
		qsort(a, k, sizeof *a, cmp_item);
		uint32_t last = SIM_NONE;
		for (size_t i = 0; i < k; i++) {
			uint32_t r = a[i].rec;
			uint64_t key = a[i].key;
			if (tr->rec[r].op == TRACE_UNLOCK) {
				last = r;
			} else if (key & 1) {
				last = r; /* the cwait's first half releases it */
			} else if (key == 2 * (uint64_t)tr->rec[r].line) {
				if (last != SIM_NONE && last != r)
					edge_add(eb, last, r);
			} else {
				last = r; /* registration key 0 (no previous record) */
			}
		}
	}
	free(it);
	free(cnt);
	free(off);
	return eb->oom ? -1 : 0;
}

/* Read-write locks, in file order per rwlock. */
static int rwlock_edges(const struct trace *tr, struct ebuf *eb)
{
	uint32_t nr = tr->nobj[TRACE_K_RWLOCK];
	size_t n = tr->nrec;
	if (!nr)
		return 0;
	uint32_t *off = calloc((size_t)nr + 1, sizeof *off);
	if (!off)
		return -1;
	for (size_t r = 0; r < n; r++) {
		uint8_t op = tr->rec[r].op;
		if ((op == TRACE_RDLOCK || op == TRACE_WRLOCK || op == TRACE_RWUNLOCK) &&
		    tr->rec[r].a < nr)
			off[tr->rec[r].a]++;
	}
	size_t tot = 0, most = 0;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t c = off[i];
		if (c > most)
			most = c;
		off[i] = (uint32_t)tot;
		tot += c;
	}
	off[nr] = (uint32_t)tot;
	uint64_t *it = xmalloc(tot, sizeof *it);
	uint32_t *fill = calloc(nr, sizeof *fill);
	uint32_t *epoch = xmalloc(most, sizeof *epoch);
	if (!it || !fill || !epoch) {
		free(it);
		free(fill);
		free(epoch);
		free(off);
		return -1;
	}
	for (size_t r = 0; r < n; r++) {
		const struct trace_rec *x = &tr->rec[r];
		if ((x->op == TRACE_RDLOCK || x->op == TRACE_WRLOCK || x->op == TRACE_RWUNLOCK) &&
		    x->a < nr)
			it[off[x->a] + fill[x->a]++] = item(x->line, (uint32_t)r);
	}
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t *a = it + off[i];
		size_t k = off[i + 1] - off[i], ne = 0;
		qsort(a, k, sizeof *a, cmp_u64);
		uint32_t lwr = SIM_NONE; /* release of the last write hold */
		int open = 0;            /* a write hold awaits its release */
		for (size_t j = 0; j < k; j++) {
			uint32_t r = (uint32_t)a[j];
			switch (tr->rec[r].op) {
			case TRACE_RDLOCK:
				if (lwr != SIM_NONE)
					edge_add(eb, lwr, r);
				break;
			case TRACE_WRLOCK:
				for (size_t q = 0; q < ne; q++)
					edge_add(eb, epoch[q], r);
				ne = 0;
				open = 1;
				break;
			default: /* rwunlock */
				epoch[ne++] = r;
				if (open) {
					lwr = r;
					open = 0;
				}
				break;
			}
		}
	}
	free(it);
	free(fill);
	free(epoch);
	free(off);
	return eb->oom ? -1 : 0;
}

/* Stable counting sort of edge indices by key(edge) < nkeys. */
static int csort(const struct edge *e, size_t ne, const uint32_t *order,
                 const uint32_t *keyof, int by_src, uint32_t nkeys,
                 uint32_t *off, uint32_t *out)
{
	memset(off, 0, ((size_t)nkeys + 1) * sizeof *off);
	for (size_t i = 0; i < ne; i++) {
		uint32_t r = by_src ? e[i].src : e[i].dst;
		off[keyof[r] + 1]++;
	}
	for (uint32_t k = 0; k < nkeys; k++)
		off[k + 1] += off[k];
	uint32_t *pos = xmalloc(nkeys, sizeof *pos);
	if (!pos)
		return -1;
	memcpy(pos, off, (size_t)nkeys * sizeof *pos);
	for (size_t j = 0; j < ne; j++) {
		size_t i = order ? order[j] : j;
		uint32_t r = by_src ? e[i].src : e[i].dst;
		out[pos[keyof[r]]++] = (uint32_t)i;
	}
	free(pos);
	return 0;
}

int sim_pairs_build(const struct trace *tr, struct sim_pairs *px)
{
	memset(px, 0, sizeof *px);
	size_t n = tr->nrec;
	uint32_t nth = tr->nthreads;
	const struct trace_rec *rec = tr->rec;
	const uint32_t *pair = tr->pair;
	struct ebuf eb = {0};
	uint32_t *thr = xmalloc(n, sizeof *thr);
	uint32_t *ord = NULL, *ord2 = NULL;
	uint32_t *evid = xmalloc(n, sizeof *evid), *wid = xmalloc(n, sizeof *wid);
	px->th_wbase = calloc((size_t)nth + 1, sizeof *px->th_wbase);
	px->th_ncut = calloc(nth ? nth : 1, sizeof *px->th_ncut);
	if (!thr || !evid || !wid || !px->th_wbase || !px->th_ncut)
		goto oom;
	for (uint32_t t = 0; t < nth; t++)
		for (uint32_t r = tr->threads[t].first; r < tr->threads[t].first + tr->threads[t].nrec; r++)
			thr[r] = t;

	/* Dependencies given by pair[], in record order; a cwait's signal
	 * edge is emitted before its mutex edge (cwait_mutex_edges, later),
	 * so after the stable sort a cwait's first condition is its signal. */
	for (size_t i = 0; i < n && pair; i++) {
		const struct trace_rec *x = &rec[i];
		uint32_t r = (uint32_t)i, p = pair[i];
		if (p == TRACE_NONE || p >= n)
			continue;
		switch (trace_op_effect(x)) { /* ORDER OP; busy tries: -1 */
		case TRACE_LOCK:
			if (rec[p].op == TRACE_UNLOCK && rec[p].a == x->a) {
				edge_add(&eb, p, r);
			} else if (p + 1 < n && thr[p + 1] == thr[p] &&
			           rec[p + 1].op == TRACE_CWAIT && rec[p + 1].b == x->a) {
				if (p + 1 != r)
					edge_add(&eb, p + 1, r);
			}
			break;
		case TRACE_WAIT:
			if (rec[p].op == TRACE_POST && rec[p].a == x->a)
				edge_add(&eb, p, r);
			break;
		case TRACE_JOIN:
			if (rec[p].op == TRACE_EXIT && thr[p] == x->a)
				edge_add(&eb, p, r);
			break;
		case TRACE_CWAIT:
			if ((rec[p].op == TRACE_SIGNAL || rec[p].op == TRACE_BROADCAST) &&
			    rec[p].a == x->a && thr[p] != thr[r]) {
				edge_add(&eb, p, r); /* the wake-up        */
				edge_add(&eb, r, p); /* its registration   */
			}
			break;
		case TRACE_BARRIER:
			if (x->b >= 2 && rec[p].op == TRACE_BARRIER && rec[p].a == x->a)
				edge_add(&eb, p, r); /* the group, keyed by its last arrival */
			break;
		default:
			break;
		}
	}
	if (eb.oom || cwait_mutex_edges(tr, thr, &eb) || rwlock_edges(tr, &eb) ||
	    eb.n >= UINT32_MAX)
		goto oom; /* (32-bit offsets: more dependencies than that is "too big") */

	/* Number events (sources) and waits (destinations) in record order. */
	for (size_t i = 0; i < n; i++)
		evid[i] = wid[i] = SIM_NONE;
	for (size_t i = 0; i < eb.n; i++) {
		evid[eb.e[i].src] = 0;
		wid[eb.e[i].dst] = 0;
	}
	uint32_t nev = 0, nw = 0;
	for (size_t i = 0; i < n; i++) {
		if (evid[i] == 0)
			evid[i] = nev++;
		if (wid[i] == 0) {
			wid[i] = nw++;
			px->th_wbase[thr[i] + 1]++;
			if (rec[i].op != TRACE_SIGNAL && rec[i].op != TRACE_BROADCAST)
				px->th_ncut[thr[i]]++;
		}
	}
	for (uint32_t t = 0; t < nth; t++)
		px->th_wbase[t + 1] += px->th_wbase[t];
	px->nev = nev;
	px->nwait = nw;
	px->ev_need = xmalloc(nev, sizeof *px->ev_need);
	px->ev_rec = xmalloc(nev, sizeof *px->ev_rec);
	px->ev_off = xmalloc((size_t)nev + 1, sizeof *px->ev_off);
	px->ev_dep = xmalloc(eb.n, sizeof *px->ev_dep);
	px->w_off = xmalloc((size_t)nw + 1, sizeof *px->w_off);
	px->w_cond = xmalloc(eb.n, sizeof *px->w_cond);
	px->w_rec = xmalloc(nw, sizeof *px->w_rec);
	px->w_th = xmalloc(nw, sizeof *px->w_th);
	ord = xmalloc(eb.n, sizeof *ord);
	ord2 = xmalloc(eb.n, sizeof *ord2);
	if (!px->ev_need || !px->ev_rec || !px->ev_off || !px->ev_dep || !px->w_off ||
	    !px->w_cond || !px->w_rec || !px->w_th || !ord || !ord2)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		if (evid[i] != SIM_NONE) {
			px->ev_need[evid[i]] = 1;
			px->ev_rec[evid[i]] = (uint32_t)i;
		}
		if (wid[i] != SIM_NONE) {
			px->w_rec[wid[i]] = (uint32_t)i;
			px->w_th[wid[i]] = thr[i];
		}
	}
	/* Barrier members contribute their arrival to their group's event. */
	for (size_t i = 0; i < n; i++) {
		if (rec[i].op != TRACE_BARRIER || wid[i] == SIM_NONE)
			continue;
		uint32_t e = evid[pair[i]];
		if (i == pair[i])
			px->ev_need[e] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (rec[i].op != TRACE_BARRIER || wid[i] == SIM_NONE)
			continue;
		uint32_t e = evid[pair[i]];
		evid[i] = e;
		px->ev_need[e]++;
	}

	/* Conditions of each wait (stable: emission order), then dependents
	 * of each event (stable over that: ascending wait). */
	if (csort(eb.e, eb.n, NULL, wid, 0, nw, px->w_off, ord) ||
	    csort(eb.e, eb.n, ord, evid, 1, nev, px->ev_off, ord2))
		goto oom;
	for (size_t j = 0; j < eb.n; j++) {
		px->w_cond[j] = evid[eb.e[ord[j]].src];
		px->ev_dep[j] = wid[eb.e[ord2[j]].dst];
	}
	px->rp = xmalloc(n, sizeof *px->rp);
	if (!px->rp)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		px->rp[i].ev = evid[i];
		px->rp[i].wait = wid[i];
	}
	free(evid);
	free(wid);
	free(ord);
	free(ord2);
	free(thr);
	free(eb.e);
	return 0;
oom:
	free(evid);
	free(wid);
	free(ord);
	free(ord2);
	free(thr);
	free(eb.e);
	sim_pairs_release(px);
	return -1;
}

enum sim_model sim_model_fallback(enum sim_model m)
{
	return m == SIM_DIRECT ? SIM_CLIENT_SERVER : SIM_STRICT;
}
