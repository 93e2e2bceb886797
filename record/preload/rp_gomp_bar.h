/*
 * rp_gomp_bar.h - the stamp rule of an OpenMP barrier record written
 * without the recorder lock G (rp_gomp.c's bar_fast), as a pure function
 * of the members' stamps so that a test checks it without running a
 * program (tests/test_gomp_bar.c: by-hand mutants of the rule, e.g. the
 * members' stamps dropped, made only 1 recording of ompmix in 4 invalid).
 */
#ifndef RP_GOMP_BAR_H
#define RP_GOMP_BAR_H

#include <stdint.h>

#include "record/preload/rp.h"

/*
 * A member's stamp as it arrives at a barrier, published on a cache line
 * of its own (rp_gomp.c's bar_begin writes it, the other members'
 * bar_fast read it after the release), relative to the member's count k
 * of the region's barrier groups it has recorded (the same count for
 * every member at the same barrier): the value d = a - k for the arrival
 * stamp a, so that a member whose arrival stamps grow by one per group
 * writes nothing.  That is the steady state of a barrier loop: every
 * member's record of a group gets the same stamp (one more than the
 * largest arrival), which is each member's next arrival when it records
 * nothing else in between; the line then stays in every reader's cache.
 * Reading the members' stamps in their struct rp_thread instead moved
 * that line, which its owner writes at every wrapper (busy, the buffer,
 * the clock), between the CPUs twice per barrier; a stamp written at
 * every arrival still cost one miss per barrier (2026-11-28, omp15).
 * RP_GOMP_PUB_LIVE: not published (a region's start, a task run inside
 * the barrier, which records after the arrival): read the member's own
 * stamp.
 */
#define RP_GOMP_PUB_LIVE UINT64_MAX
struct rp_gomp_pub {
	_Alignas(64) uint64_t stamp; /* RP_GOMP_PUB_LIVE or a - k        */
	char pad[56];
};

/* The value a member arriving with stamp a after k recorded groups
 * publishes: a - k (modulo 2^64; where that is RP_GOMP_PUB_LIVE the
 * readers take the member's own stamp, also right). */
static inline uint64_t rp_gomp_pub_value(uint64_t a, uint64_t k)
{
	return a - k;
}

/*
 * rp_gomp_bar_stamp - the stamp that a member's `barrier B N` record must
 * pass: the largest of `own` (the member's last record's stamp) and the
 * arrival stamps of the region's n members at the group the members
 * reached after k recorded groups, slot[0..n-1] (the member itself among
 * them): member i's published value plus k, or where that is
 * RP_GOMP_PUB_LIVE (or pub is NULL) slot[i]'s stamp.  Every member's
 * record before the barrier precedes the group (docs/trace-format.md,
 * barriers), so the record, stamped one more than this (rp_emit_fast),
 * sorts after all of them; G's rule for a barrier passes every live
 * thread's stamp, this one the team's only.  The values are read with
 * relaxed atomic loads (each member writes its own; the barrier's
 * release made the ones before it visible).  A member that left the
 * barrier and arrived at the next one may have published its next
 * arrival a' (value a' - k - 1) before this is read: its value plus k is
 * a' - 1, at least its record of this group's stamp and so past its
 * arrival here: still a bound.
 *
 * Returns 0 and sets *out; -1, *out unchanged, when n is 0, n > cap (the
 * region has fewer slots than members) or a member has no recorder
 * thread (slot[i] NULL): the caller then writes the record under G.
 */
static inline int rp_gomp_bar_stamp(uint64_t own, struct rp_thread *const *slot,
                                    const struct rp_gomp_pub *pub, uint64_t k, uint32_t n,
                                    uint32_t cap, uint64_t *out)
{
	if (n == 0 || n > cap)
		return -1;
	uint64_t s = own;
	for (uint32_t i = 0; i < n; i++) {
		const struct rp_thread *m = slot[i];
		if (!m)
			return -1;
		uint64_t x = pub ? __atomic_load_n(&pub[i].stamp, __ATOMIC_RELAXED) : RP_GOMP_PUB_LIVE;
		if (x == RP_GOMP_PUB_LIVE)
			x = __atomic_load_n(&m->stamp, __ATOMIC_RELAXED);
		else
			x += k;
		if (x > s)
			s = x;
	}
	*out = s;
	return 0;
}

#endif
