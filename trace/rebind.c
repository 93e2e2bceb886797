/*
 * rebind.c - a binding carried from one recording of a program to another
 * by the threads' creator paths (trace.h: trace_rebind_map,
 * trace_binding_rebind).
 *
 * A trace numbers threads in global creation order, which a program whose
 * threads create threads does not repeat from run to run.  What names a
 * thread in every run is its creator path: the initial thread, its j-th
 * create, that thread's i-th create, ...; shadowbind-run --trace pins a
 * run's threads by the same path (record/tree.c, the launcher's
 * SHADOWBIND_TREE).  Both traces are valid (every thread but the initial
 * one created exactly once, by a thread created before it), so the
 * creations form a tree rooted at the initial thread, and mapping each
 * creator's j-th child onto its counterpart's j-th child, parents first,
 * reaches every thread.  Memory: O(threads) per trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/traceint.h"

/* The creations of one trace: for each dense thread its children, in the
 * order it created them (kid[first[t] .. first[t+1])), and its creator
 * and its place among the creator's children (for messages). */
struct tree {
	uint32_t *first; /* [nthreads + 1]                                 */
	uint32_t *kid;   /* [creates]                                      */
	uint32_t *up;    /* [nthreads] creator, or UINT32_MAX (initial)     */
	uint32_t *nth;   /* [nthreads] 1-based place among its siblings     */
};

static void tree_release(struct tree *t)
{
	free(t->first);
	free(t->kid);
	free(t->up);
	free(t->nth);
}

static int tree_of(const struct trace *tr, struct tree *t)
{
	uint32_t n = tr->nthreads;
	size_t creates = 0;
	for (size_t r = 0; r < tr->nrec; r++)
		creates += tr->rec[r].op == TRACE_CREATE;
	t->first = calloc((size_t)n + 1, sizeof *t->first);
	t->kid = malloc((creates ? creates : 1) * sizeof *t->kid);
	t->up = malloc((n ? n : 1) * sizeof *t->up);
	t->nth = malloc((n ? n : 1) * sizeof *t->nth);
	if (!t->first || !t->kid || !t->up || !t->nth) {
		tree_release(t);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		t->up[i] = UINT32_MAX, t->nth[i] = 0;
	size_t k = 0;
	for (uint32_t p = 0; p < n; p++) {
		const struct trace_thread *T = &tr->threads[p];
		t->first[p] = (uint32_t)k;
		for (uint32_t r = T->first; r < T->first + T->nrec; r++) {
			if (tr->rec[r].op != TRACE_CREATE)
				continue;
			uint32_t c = tr->rec[r].a;
			t->kid[k++] = c;
			t->up[c] = p;
			t->nth[c] = (uint32_t)(k - t->first[p]);
		}
	}
	t->first[n] = (uint32_t)k;
	return 0;
}

/* Thread c's creator path ("1.2.1": the initial thread's 2nd child's 1st
 * child) into buf; a path longer than buf ends in "...". */
static const char *path_of(const struct tree *t, uint32_t c, char *buf, size_t len)
{
	uint32_t st[64];
	int d = 0, cut = 0;
	for (uint32_t x = c; t->up[x] != UINT32_MAX; x = t->up[x]) {
		if (d == 64) {
			cut = 1;
			break;
		}
		st[d++] = t->nth[x];
	}
	size_t k = (size_t)snprintf(buf, len, "%s", cut ? "..." : "1");
	while (d > 0 && k < len)
		k += (size_t)snprintf(buf + k, len - k, ".%u", st[--d]);
	return buf;
}

int trace_rebind_map(const struct trace *from, const char *from_name,
                     const struct trace *to, const char *to_name, uint32_t *map,
                     struct trace_error *err)
{
	uint32_t n = from->nthreads;
	memset(err, 0, sizeof *err);
	struct tree F = {0}, T = {0};
	uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
	uint8_t *hit = calloc(to->nthreads ? to->nthreads : 1, 1);
	if (!queue || !hit || tree_of(from, &F) < 0 || tree_of(to, &T) < 0) {
		tr_err(err, to_name, 0, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < n; i++)
		map[i] = UINT32_MAX;
	/* parents first: breadth first from the initial thread */
	uint32_t head = 0, tail = 0;
	map[from->initial] = to->initial;
	hit[to->initial] = 1;
	queue[tail++] = from->initial;
	while (head < tail) {
		uint32_t p = queue[head++], q = map[p];
		uint32_t have = T.first[q + 1] - T.first[q];
		for (uint32_t j = F.first[p]; j < F.first[p + 1]; j++) {
			uint32_t c = F.kid[j], nth = j - F.first[p]; /* 0-based */
			if (nth >= have) {
				char pa[160];
				tr_err(err, to_name, 0,
				       "no thread for thread %u of %s (creator path %s): "
				       "thread %u, its creator's counterpart, creates %u thread%s here, "
				       "%u there",
				       from->threads[c].id, from_name, path_of(&F, c, pa, sizeof pa),
				       to->threads[q].id, have, have == 1 ? "" : "s",
				       F.first[p + 1] - F.first[p]);
				goto fail;
			}
			map[c] = T.kid[T.first[q] + nth];
			hit[map[c]] = 1;
			queue[tail++] = c;
		}
	}
	/* every thread of `from` reached (a valid trace's creations are a
	 * tree); a thread of `to` left over was created by a counterpart
	 * that creates more threads here than its thread in `from` */
	for (uint32_t i = 0; i < to->nthreads; i++)
		if (!hit[i]) {
			char pa[160];
			tr_err(err, to_name, 0,
			       "thread %u (creator path %s) has no thread in %s: "
			       "%s has %u threads, this trace %u",
			       to->threads[i].id, path_of(&T, i, pa, sizeof pa), from_name, from_name,
			       n, to->nthreads);
			goto fail;
		}
	free(queue);
	free(hit);
	tree_release(&F);
	tree_release(&T);
	return 0;
fail:
	for (uint32_t i = 0; i < n; i++)
		map[i] = 0;
	free(queue);
	free(hit);
	tree_release(&F);
	tree_release(&T);
	return -1;
}

static int dup_str(char **dst, const char *s)
{
	*dst = NULL;
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -1;
}

int trace_binding_rebind(const struct trace *from, const char *from_name,
                         const struct trace_binding *b, const struct trace *to,
                         const char *to_name, struct trace_binding *out,
                         struct trace_error *err)
{
	memset(out, 0, sizeof *out);
	uint32_t *map = malloc((from->nthreads ? from->nthreads : 1) * sizeof *map);
	if (!map) {
		memset(err, 0, sizeof *err);
		tr_err(err, to_name, 0, "out of memory");
		return -1;
	}
	if (b->n != from->nthreads) {
		memset(err, 0, sizeof *err);
		tr_err(err, from_name, 0, "the binding names %u threads, the trace has %u",
		       b->n, from->nthreads);
		free(map);
		return -1;
	}
	if (trace_rebind_map(from, from_name, to, to_name, map, err) < 0) {
		free(map);
		return -1;
	}
	out->cpus = b->cpus;
	out->n = to->nthreads;
	out->proc = malloc((to->nthreads ? to->nthreads : 1) * sizeof *out->proc);
	int oom = !out->proc;
	if (!oom)
		for (uint32_t i = 0; i < from->nthreads; i++)
			out->proc[map[i]] = b->proc[i];
	oom |= dup_str(&out->unit, b->unit) | dup_str(&out->algorithm, b->algorithm) |
	       dup_str(&out->map, b->map) | dup_str(&out->advice, b->advice);
	free(map);
	if (oom) {
		trace_binding_release(out);
		memset(err, 0, sizeof *err);
		tr_err(err, to_name, 0, "out of memory");
		return -1;
	}
	return 0;
}
