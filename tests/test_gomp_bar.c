/*
 * test_gomp_bar.c - the stamp rule of an OpenMP `barrier B N` written
 * without the recorder lock G (record/preload/rp_gomp_bar.h,
 * rp_gomp_bar_stamp; rp_gomp.c's bar_fast).  A member leaving a barrier
 * stamps its record past the last stamp of every member of its region:
 * each member's records before the barrier precede the group
 * (docs/trace-format.md), so the merged trace must put the barrier's
 * records after all of them.  Recording ompmix on two CPUs caught a
 * by-hand mutant of this rule 1 time in 4 (it depends on which member
 * leaves first); this checks the rule itself, with no program run, each
 * expected stamp worked out by hand in its row.  Since 2026-11-28 (omp15)
 * a member publishes its arrival stamp a, as a - k after k recorded
 * groups, on a line of its own (struct rp_gomp_pub) and the rule reads
 * that, falling back to the member's own stamp where it published none
 * (RP_GOMP_PUB_LIVE): rows with `pub` set check both; test_steady checks
 * that a barrier loop's members publish nothing new after its first
 * group (why the value is relative to k).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "record/preload/rp_gomp_bar.h"

#define MAXM 4

struct row {
	const char *what;
	uint64_t own;            /* the leaving member's last stamp        */
	uint32_t n, cap;         /* members, the region's slots            */
	uint64_t stamp[MAXM];    /* each member's last stamp               */
	int absent;              /* 1 + the member with no recorder thread */
	int pub;                 /* 1: the published stamps below; 0: none
	                          * (pub NULL: every member's own read)   */
	uint64_t pubs[MAXM];     /* each member's published value a - k   */
	uint64_t k;              /* the groups recorded before             */
	int ret;                 /* expected: 0 or -1                      */
	uint64_t want;           /* expected stamp (ret 0); else unchanged */
};

static const struct row ROWS[] = {
	{ .what = "the other member recorded later: its stamp",
	  /* member 0 (own 5) leaves; member 1's last record has stamp 9:
	   * max(5, 5, 9) = 9 (the members' stamps dropped would give 5) */
	  .own = 5, .n = 2, .cap = 2, .stamp = { 5, 9 }, .want = 9 },
	{ .what = "its own the latest: its own",
	  /* max(12, 12, 3) = 12 */
	  .own = 12, .n = 2, .cap = 2, .stamp = { 12, 3 }, .want = 12 },
	{ .what = "equal stamps",
	  /* max(7, 7, 7) = 7: not advanced here (rp_emit_fast adds 1) */
	  .own = 7, .n = 2, .cap = 2, .stamp = { 7, 7 }, .want = 7 },
	{ .what = "the own argument beyond its slot (read first)",
	  /* own is read before the slots; max(20, 4, 6) = 20 */
	  .own = 20, .n = 2, .cap = 2, .stamp = { 4, 6 }, .want = 20 },
	{ .what = "three members, the middle one latest",
	  /* max(4, 4, 10, 6) = 10 */
	  .own = 4, .n = 3, .cap = 4, .stamp = { 4, 10, 6 }, .want = 10 },
	{ .what = "three members, the last one latest",
	  /* max(4, 4, 6, 11) = 11: a loop that stops one member short
	   * gives 6 */
	  .own = 4, .n = 3, .cap = 3, .stamp = { 4, 6, 11 }, .want = 11 },
	{ .what = "the first member latest, the leaver last",
	  /* member 2 (own 2) leaves: max(2, 15, 8, 2) = 15 (a loop from 1
	   * gives 8) */
	  .own = 2, .n = 3, .cap = 3, .stamp = { 15, 8, 2 }, .want = 15 },
	{ .what = "a slot past n is not a member",
	  /* n = 2 of cap 4: slots 2 and 3 (stamp 99) belong to no member;
	   * max(3, 3, 5) = 5 */
	  .own = 3, .n = 2, .cap = 4, .stamp = { 3, 5, 99, 99 }, .want = 5 },
	{ .what = "a member without a recorder thread: under G",
	  /* member 1 has no slot yet: -1, the stamp untouched */
	  .own = 3, .n = 2, .cap = 2, .stamp = { 3, 50 }, .absent = 2, .ret = -1 },
	{ .what = "more members than slots: under G",
	  /* n 3 > cap 2: -1 */
	  .own = 3, .n = 3, .cap = 2, .stamp = { 3, 4, 5 }, .ret = -1 },
	{ .what = "no members: under G",
	  .own = 3, .n = 0, .cap = 2, .ret = -1 },
	{ .what = "published stamps: read instead of the threads'",
	  /* member 1 published 9 as it arrived; its thread's stamp (4 here,
	   * a value no arrival gives, to tell which was read) is not read:
	   * max(5, 5, 9) = 9 (reading the threads' would give 5) */
	  .own = 5, .n = 2, .cap = 2, .stamp = { 5, 4 }, .pub = 1, .pubs = { 5, 9 }, .want = 9 },
	{ .what = "a member not published (LIVE): its thread's stamp",
	  /* member 1 ran a task inside the barrier (RP_GOMP_PUB_LIVE):
	   * its thread's 13 counts, not a stale published value:
	   * max(5, 5, 13) = 13 */
	  .own = 5, .n = 2, .cap = 2, .stamp = { 5, 13 }, .pub = 1,
	  .pubs = { 5, RP_GOMP_PUB_LIVE }, .want = 13 },
	{ .what = "three members, one published, two LIVE",
	  /* member 0 published 3 (its thread's 30 not read), members 1 and
	   * 2 LIVE: their threads' 8 and 6; max(2, 3, 8, 6) = 8 */
	  .own = 2, .n = 3, .cap = 3, .stamp = { 30, 8, 6 }, .pub = 1,
	  .pubs = { 3, RP_GOMP_PUB_LIVE, RP_GOMP_PUB_LIVE }, .want = 8 },
	{ .what = "published, the last member latest",
	  /* max(4, 4, 6, 11) = 11 from the published values (the threads'
	   * 0 not read); a loop one member short gives 6 */
	  .own = 4, .n = 3, .cap = 3, .stamp = { 0, 0, 0 }, .pub = 1, .pubs = { 4, 6, 11 }, .want = 11 },
	{ .what = "published after 3 groups: the value plus 3",
	  /* k = 3: member 0 published 2 (arrival 5), member 1 6 (arrival 9);
	   * max(5, 5, 9) = 9 (the values alone would give 6) */
	  .own = 5, .n = 2, .cap = 2, .stamp = { 0, 0 }, .pub = 1, .pubs = { 2, 6 }, .k = 3, .want = 9 },
	{ .what = "published, a member already at the next barrier",
	  /* k = 3: member 1 left, recorded its group-3 record (stamp 10) and
	   * arrived at the next barrier with 10, publishing 10 - 4 = 6: read
	   * here as 6 + 3 = 9, its arrival at this one (at least); member
	   * 0's 4 + 3 = 7; max(7, 7, 9) = 9 */
	  .own = 7, .n = 2, .cap = 2, .stamp = { 0, 0 }, .pub = 1, .pubs = { 4, 6 }, .k = 3, .want = 9 },
	{ .what = "published after 2 groups, one member LIVE",
	  /* member 0: 10 + 2 = 12; member 1 LIVE: its thread's 15;
	   * max(1, 12, 15) = 15 */
	  .own = 1, .n = 2, .cap = 2, .stamp = { 0, 15 }, .pub = 1, .pubs = { 10, RP_GOMP_PUB_LIVE },
	  .k = 2, .want = 15 },
	{ .what = "published, a member without a recorder thread: under G",
	  /* member 1 has no slot: -1 whatever it published */
	  .own = 3, .n = 2, .cap = 2, .stamp = { 3, 50 }, .pub = 1, .pubs = { 3, 50 }, .absent = 2,
	  .ret = -1 },
};

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
		const struct row *r = &ROWS[i];
		static struct rp_thread th[MAXM];
		static struct rp_gomp_pub pub[MAXM];
		struct rp_thread *slot[MAXM] = { 0 };
		for (uint32_t m = 0; m < MAXM; m++) {
			memset(&th[m], 0, sizeof th[m]);
			th[m].id = m + 1;
			th[m].stamp = r->stamp[m];
			if ((int)m + 1 != r->absent)
				slot[m] = &th[m];
			pub[m].stamp = r->pubs[m];
		}
		const uint64_t untouched = 0xdeadbeef;
		uint64_t got = untouched;
		int ret = rp_gomp_bar_stamp(r->own, slot, r->pub ? pub : NULL, r->k, r->n, r->cap, &got);
		if (ret != r->ret || got != (r->ret ? untouched : r->want))
			fail_msg("row %zu (%s): returned %d, stamp %llu; want %d, %llu", i, r->what, ret,
			         (unsigned long long)got, r->ret, (unsigned long long)(r->ret ? untouched : r->want));
		/* the members' stamps are read, never written */
		for (uint32_t m = 0; m < MAXM; m++) {
			assert_int_equal(th[m].stamp, r->stamp[m]);
			assert_int_equal(pub[m].stamp, r->pubs[m]);
		}
	}
}

/* A barrier loop of three members that record nothing between
 * barriers, as bar_begin and bar_fast run it (a member's record gets the
 * rule's stamp plus one, rp_emit_fast; each arrival publishes
 * rp_gomp_pub_value of its stamp and its count of groups): after the
 * first group every record of a group has the same stamp, one more per
 * group, and from the second arrival on no member's published value
 * changes, so no line is written again.  Start: the members' `barrier D`
 * records under G, stamps 4, 7 and 5: group 0's records get max(4, 7,
 * 5) + 1 = 8, group 1's 9, group g's 8 + g; the values are 4, 7, 5 at
 * group 0 and 8 - 1 = 7 from group 1 on (arrival 8 + g - 1 at group g,
 * less g): members 0 and 2 write once at group 1 (4 -> 7, 5 -> 7),
 * member 1 never. */
static void test_steady(void **state)
{
	(void)state;
	static struct rp_thread th[3];
	static struct rp_gomp_pub pub[3];
	struct rp_thread *slot[3];
	const uint64_t d_stamp[3] = { 4, 7, 5 };
	for (int m = 0; m < 3; m++) {
		memset(&th[m], 0, sizeof th[m]);
		th[m].stamp = d_stamp[m];
		pub[m].stamp = RP_GOMP_PUB_LIVE;
		slot[m] = &th[m];
	}
	int writes_g1 = 0, writes_later = 0;
	for (uint64_t g = 0; g < 6; g++) {
		for (int m = 0; m < 3; m++) {
			uint64_t v = rp_gomp_pub_value(th[m].stamp, g);
			if (pub[m].stamp != v) {
				pub[m].stamp = v;
				writes_g1 += g == 1;
				writes_later += g > 1;
			}
			assert_int_equal(pub[m].stamp, g == 0 ? d_stamp[m] : 7);
		}
		uint64_t rec[3];
		for (int m = 0; m < 3; m++) {
			uint64_t s = 0;
			assert_int_equal(rp_gomp_bar_stamp(th[m].stamp, slot, pub, g, 3, 3, &s), 0);
			rec[m] = s + 1;
		}
		for (int m = 0; m < 3; m++) {
			th[m].stamp = rec[m];
			assert_int_equal(rec[m], 8 + g);
		}
	}
	assert_int_equal(writes_g1, 2);
	assert_int_equal(writes_later, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_steady),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
