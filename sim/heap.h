/*
 * heap.h - the event heap (part of the hot loop: included by each
 * policy's file, see simint.h).
 *
 * One indexed binary heap orders everything that can happen at a future
 * instant by (time, class, thread id), packed with the entry's id into
 * one 16-byte key (struct hent), one 128-bit comparison that the compiler
 * makes branch-free:
 *   - a thread's timer (end of a sleep or of a latency wait, a cwait's
 *     wake-up on its way; entry id = the thread, 0..n-1); the end of a
 *     running thread's current work under fifo and rr (key id = the
 *     thread) is in a tournament tree over the slots instead (gt_set);
 *   - under ps, each scheduling group's next completion (key id n + g,
 *     ordered by the id of the thread that acts first): not in the heap
 *     but in a tournament tree over the groups (gt_set), whose root the
 *     loop compares with the heap's top;
 *   - under rr, each slot's quantum expiry (entry n + G + s, class 1:
 *     after all the threads' steps of the same instant, in increasing id
 *     of the expiring thread).
 * Popping the top is exactly the contract's rule for simultaneous events:
 * the smallest id with something to do at that instant acts first.
 * hpos[id] is an entry's position, -1 when it is not in the heap.
 */
#ifndef SHADOWBIND_SIM_HEAP_H
#define SHADOWBIND_SIM_HEAP_H

#include "sim/simint.h"

static inline int hent_less(const struct hent *a, const struct hent *b)
{
	return a->key < b->key;
}

static inline void heap_up(struct sim_work *w, uint32_t i)
{
	struct hent e = w->heap[i];
	while (i > 0) {
		uint32_t pa = (i - 1) / 2;
		if (!hent_less(&e, &w->heap[pa]))
			break;
		w->heap[i] = w->heap[pa];
		w->hpos[hent_id(w->heap[i])] = (int32_t)i;
		i = pa;
	}
	w->heap[i] = e;
	w->hpos[hent_id(e)] = (int32_t)i;
}

static inline void heap_down(struct sim_work *w, uint32_t i)
{
	struct hent e = w->heap[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= w->hn)
			break;
		/* the smaller child without a branch (heap[hn] is allocated) */
		c += (c + 1 < w->hn) & hent_less(&w->heap[c + 1], &w->heap[c]);
		if (!hent_less(&w->heap[c], &e))
			break;
		w->heap[i] = w->heap[c];
		w->hpos[hent_id(w->heap[i])] = (int32_t)i;
		i = c;
	}
	w->heap[i] = e;
	w->hpos[hent_id(e)] = (int32_t)i;
}

/* Schedule event `id` at (t, cls, tid), or move it there. */
static inline void heap_set(struct sim_work *w, uint32_t id, stime t, uint8_t cls,
                     uint32_t tid)
{
	struct hent e = {hent_key(t, cls, tid, id)};
	int32_t pos = w->hpos[id];
	if (pos < 0) {
		w->heap[w->hn] = e;
		heap_up(w, w->hn++);
		return;
	}
	int later = hent_less(&w->heap[pos], &e);
	w->heap[pos] = e;
	if (later)
		heap_down(w, (uint32_t)pos);
	else
		heap_up(w, (uint32_t)pos);
}

/* The tournament tree w->gth/gtl (sim_class.gtree): under ps group g's next
 * completion, under fifo slot g's end of work (the heap key; GT_NONE:
 * none) at leaf gtn + g, every inner node the smaller of its children,
 * so node 1 is the earliest.  Each key lies in two arrays of 64-bit
 * halves: the loop reads the root right after gt_set wrote it, and a
 * 16-byte load (which the compiler chose for a 128-bit array, depending
 * on unrelated code) cannot take its data from two 8-byte stores; that
 * stall made every ps run 30% slower (docs/sim.md).  An update walks the fixed path to the root;
 * the siblings' addresses are known in advance and the minimum is taken
 * without a branch (the binary heap's sift, with its data-dependent
 * exits, was a quarter of a ps run's instructions and a third of its
 * mispredicted branches). */
static inline void gt_set(struct sim_work *w, uint32_t g, st_u128 key)
{
	uint64_t *hi = w->gth, *lo = w->gtl;
	uint32_t i = w->gtn + g;
	st_u128 m = key;
	hi[i] = (uint64_t)(key >> 64);
	lo[i] = (uint64_t)key;
	for (; i > 1; i >>= 1) {
		st_u128 b = (st_u128)hi[i ^ 1] << 64 | lo[i ^ 1];
		m = m < b ? m : b;
		hi[i >> 1] = (uint64_t)(m >> 64);
		lo[i >> 1] = (uint64_t)m;
	}
}

/* Node i's key. */
static inline st_u128 gt_key(const struct sim_work *w, uint32_t i)
{
	return (st_u128)w->gth[i] << 64 | w->gtl[i];
}

static inline void heap_del(struct sim_work *w, uint32_t id)
{
	int32_t pos = w->hpos[id];
	if (pos < 0)
		return;
	w->hpos[id] = -1;
	struct hent last = w->heap[--w->hn];
	if ((uint32_t)pos == w->hn)
		return;
	w->heap[pos] = last;
	w->hpos[hent_id(last)] = pos;
	heap_up(w, (uint32_t)pos);
	heap_down(w, (uint32_t)w->hpos[hent_id(last)]);
}

#endif
