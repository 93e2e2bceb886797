/*
 * test_trace_rebind.c - a binding carried from one recording to another by
 * creator path (trace/rebind.c: trace_rebind_map, trace_binding_rebind).
 * Each expected mapping is worked out by hand in the comments: every
 * thread's creator path in both traces, then the thread of the same path.
 * The command: test_cli_rebind.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/testutil.h"
#include "trace/trace.h"

/* Two recordings of one program whose thread 1 creates two threads, each
 * of which creates one.  A: 1 creates 2 and 3, then 2 creates 4, then 3
 * creates 5 (global order).  B: 1 creates 2, 2 creates 3 before 1's
 * second create (4), then 4 creates 5.
 *   paths A: 2 = 1.1, 3 = 1.2, 4 = 1.1.1, 5 = 1.2.1
 *   paths B: 2 = 1.1, 3 = 1.1.1, 4 = 1.2, 5 = 1.2.1
 *   A -> B: 1->1, 2->2, 3->4, 4->3, 5->5 */
static const char TWO_A[] = "shadowbind-trace 1\n"
                            "1 10 create 2\n"
                            "1 10 create 3\n"
                            "2 10 create 4\n"
                            "3 10 create 5\n"
                            "4 10 exit\n"
                            "5 10 exit\n"
                            "2 10 exit\n"
                            "3 10 exit\n"
                            "1 10 exit\n";
static const char TWO_B[] = "shadowbind-trace 1\n"
                            "1 10 create 2\n"
                            "2 10 create 3\n"
                            "1 10 create 4\n"
                            "4 10 create 5\n"
                            "3 10 exit\n"
                            "5 10 exit\n"
                            "2 10 exit\n"
                            "4 10 exit\n"
                            "1 10 exit\n";

/* Three levels.  C: 1 creates 2; 2 creates 3 and 4; 1 creates 5; 3
 * creates 6.  D: 1 creates 2 and 3; 2 creates 4; 4 creates 5; 2 creates 6.
 *   paths C: 2 = 1.1, 3 = 1.1.1, 4 = 1.1.2, 5 = 1.2, 6 = 1.1.1.1
 *   paths D: 2 = 1.1, 3 = 1.2, 4 = 1.1.1, 5 = 1.1.1.1, 6 = 1.1.2
 *   C -> D: 1->1, 2->2, 3->4, 4->6, 5->3, 6->5 */
static const char DEEP_C[] = "shadowbind-trace 1\n"
                             "1 5 create 2\n"
                             "2 5 create 3\n"
                             "2 5 create 4\n"
                             "1 5 create 5\n"
                             "3 5 create 6\n"
                             "6 5 exit\n"
                             "3 5 exit\n"
                             "4 5 exit\n"
                             "5 5 exit\n"
                             "2 5 exit\n"
                             "1 5 exit\n";
static const char DEEP_D[] = "shadowbind-trace 1\n"
                             "1 5 create 2\n"
                             "1 5 create 3\n"
                             "2 5 create 4\n"
                             "4 5 create 5\n"
                             "2 5 create 6\n"
                             "5 5 exit\n"
                             "4 5 exit\n"
                             "6 5 exit\n"
                             "3 5 exit\n"
                             "2 5 exit\n"
                             "1 5 exit\n";

/* Creators whose counterparts come in another id order: P's creators by
 * id are 1, 2, 3, 4, their counterparts in Q 1, 2, 5, 3.  P: 1 creates 2,
 * 2 creates 3, 1 creates 4, 4 creates 5, 3 creates 6.  Q: 1 creates 2 and
 * 3, 3 creates 4, 2 creates 5, 5 creates 6.
 *   paths P: 2 = 1.1, 3 = 1.1.1, 4 = 1.2, 5 = 1.2.1, 6 = 1.1.1.1
 *   paths Q: 2 = 1.1, 3 = 1.2, 4 = 1.2.1, 5 = 1.1.1, 6 = 1.1.1.1
 *   P -> Q: 1->1, 2->2, 3->5, 4->3, 5->4, 6->6
 * (mapping by the place of a create among all of P's creates, thread by
 * thread, would give 6->4 and 5->6) */
static const char ORD_P[] = "shadowbind-trace 1\n"
                            "1 5 create 2\n"
                            "2 5 create 3\n"
                            "1 5 create 4\n"
                            "4 5 create 5\n"
                            "3 5 create 6\n"
                            "6 5 exit\n"
                            "5 5 exit\n"
                            "4 5 exit\n"
                            "3 5 exit\n"
                            "2 5 exit\n"
                            "1 5 exit\n";
static const char ORD_Q[] = "shadowbind-trace 1\n"
                            "1 5 create 2\n"
                            "1 5 create 3\n"
                            "3 5 create 4\n"
                            "2 5 create 5\n"
                            "5 5 create 6\n"
                            "6 5 exit\n"
                            "5 5 exit\n"
                            "4 5 exit\n"
                            "3 5 exit\n"
                            "2 5 exit\n"
                            "1 5 exit\n";

/* Ids that are not creation order: E's thread 1 creates 9 then 4, and 9
 * creates 7.  F: 1 creates 3, then 3 creates 8, then 1 creates 2.
 *   paths E: 9 = 1.1, 4 = 1.2, 7 = 1.1.1
 *   paths F: 3 = 1.1, 8 = 1.1.1, 2 = 1.2
 *   E -> F: 1->1, 9->3, 4->2, 7->8 */
static const char IDS_E[] = "shadowbind-trace 1\n"
                            "1 1 create 9\n"
                            "1 1 create 4\n"
                            "9 1 create 7\n"
                            "7 1 exit\n"
                            "9 1 exit\n"
                            "4 1 exit\n"
                            "1 1 exit\n";
static const char IDS_F[] = "shadowbind-trace 1\n"
                            "1 1 create 3\n"
                            "3 1 create 8\n"
                            "1 1 create 2\n"
                            "8 1 exit\n"
                            "3 1 exit\n"
                            "2 1 exit\n"
                            "1 1 exit\n";

struct map_case {
	const char *what, *from, *to;
	uint32_t from_id[8], to_id[8]; /* pairs, ending with 0 */
};

static const struct map_case map_cases[] = {
	{.what = "nested creates, another global order", .from = TWO_A, .to = TWO_B,
	 .from_id = {1, 2, 3, 4, 5}, .to_id = {1, 2, 4, 3, 5}},
	{.what = "the same the other way", .from = TWO_B, .to = TWO_A,
	 .from_id = {1, 2, 3, 4, 5}, .to_id = {1, 2, 4, 3, 5}},
	{.what = "three levels", .from = DEEP_C, .to = DEEP_D,
	 .from_id = {1, 2, 3, 4, 5, 6}, .to_id = {1, 2, 4, 6, 3, 5}},
	{.what = "creators in another id order", .from = ORD_P, .to = ORD_Q,
	 .from_id = {1, 2, 3, 4, 5, 6}, .to_id = {1, 2, 5, 3, 4, 6}},
	{.what = "ids not in creation order", .from = IDS_E, .to = IDS_F,
	 .from_id = {1, 9, 4, 7}, .to_id = {1, 3, 2, 8}},
	{.what = "a trace onto itself", .from = DEEP_C, .to = DEEP_C,
	 .from_id = {1, 2, 3, 4, 5, 6}, .to_id = {1, 2, 3, 4, 5, 6}},
};

static uint32_t dense(const struct trace *tr, uint32_t id)
{
	int64_t i = trace_thread_index(tr, id);
	assert_true(i >= 0);
	return (uint32_t)i;
}

static void test_map(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof map_cases / sizeof *map_cases; c++) {
		const struct map_case *m = &map_cases[c];
		struct trace *from = tu_trace(m->from), *to = tu_trace(m->to);
		uint32_t map[8];
		struct trace_error err;
		if (trace_rebind_map(from, "from", to, "to", map, &err) != 0)
			fail_msg("%s: %s", m->what, err.msg);
		size_t n = 0;
		for (; n < 8 && m->from_id[n]; n++) {
			uint32_t got = to->threads[map[dense(from, m->from_id[n])]].id;
			if (got != m->to_id[n])
				fail_msg("%s: thread %u -> %u, expected %u", m->what, m->from_id[n], got,
				         m->to_id[n]);
		}
		assert_int_equal(n, from->nthreads);
		trace_free(from);
		trace_free(to);
	}
}

/* A binding of TWO_A carried to TWO_B: A's 1 0, 2 1, 3 0, 4 1, 5 0; by
 * A -> B (1->1, 2->2, 3->4, 4->3, 5->5): B's 1 0, 2 1, 4 0, 3 1, 5 0.
 * Headers: cpus, unit, algorithm, map, advice copied; makespan, bound,
 * lower, trace, extra not. */
static void test_binding(void **state)
{
	(void)state;
	struct trace *a = tu_trace(TWO_A), *b = tu_trace(TWO_B);
	struct trace_binding in = {0}, out;
	struct trace_error err;
	const char *text = "shadowbind-binding 1\ncpus 2\nmakespan 50\nunit tick\n"
	                   "algorithm sga\ntrace a.trace sha256:00\nbound 40\nlower 30\n"
	                   "map 0 1\nadvice binding\n"
	                   "1 0\n2 1\n3 0\n4 1\n5 0\n";
	assert_int_equal(trace_binding_read_mem("a.bind", text, strlen(text), a, &in, &err), 0);
	assert_int_equal(trace_binding_rebind(a, "a", &in, b, "b", &out, &err), 0);
	static const int32_t want[][2] = {{1, 0}, {2, 1}, {3, 1}, {4, 0}, {5, 0}};
	assert_int_equal(out.n, 5);
	assert_int_equal(out.cpus, 2);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(out.proc[dense(b, (uint32_t)want[i][0])], want[i][1]);
	assert_string_equal(out.unit, "tick");
	assert_string_equal(out.algorithm, "sga");
	assert_string_equal(out.map, "0 1");
	assert_string_equal(out.advice, "binding");
	assert_null(out.makespan);
	assert_null(out.bound);
	assert_null(out.lower);
	assert_null(out.trace);
	assert_null(out.extra);
	trace_binding_release(&out);
	trace_binding_release(&in);
	trace_free(a);
	trace_free(b);
}

/* Traces that do not correspond: the message names the thread and its
 * path (see trace.h). */
struct bad_case {
	const char *what, *from, *to, *msg;
};

static const struct bad_case bad_cases[] = {
	/* G: 1 creates 2 and 3.  H: 1 creates 2, 2 creates 3.  Thread 3 of
	 * G is 1.2; H's thread 1 creates one thread. */
	{"a creator with fewer creates here",
	 "shadowbind-trace 1\n1 1 create 2\n1 1 create 3\n2 1 exit\n3 1 exit\n1 1 exit\n",
	 "shadowbind-trace 1\n1 1 create 2\n2 1 create 3\n3 1 exit\n2 1 exit\n1 1 exit\n",
	 "to: no thread for thread 3 of from (creator path 1.2): thread 1, its creator's "
	 "counterpart, creates 1 thread here, 2 there"},
	/* G': 1 creates 2.  H': 1 creates 2, 2 creates 3 (path 1.1.1): every
	 * thread of G' maps, H's 3 is left. */
	{"a thread here with none there",
	 "shadowbind-trace 1\n1 1 create 2\n2 1 exit\n1 1 exit\n",
	 "shadowbind-trace 1\n1 1 create 2\n2 1 create 3\n3 1 exit\n2 1 exit\n1 1 exit\n",
	 "to: thread 3 (creator path 1.1.1) has no thread in from: from has 2 threads, "
	 "this trace 3"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof bad_cases / sizeof *bad_cases; c++) {
		const struct bad_case *m = &bad_cases[c];
		struct trace *from = tu_trace(m->from), *to = tu_trace(m->to);
		uint32_t map[4] = {7, 7, 7, 7};
		struct trace_error err;
		assert_int_equal(trace_rebind_map(from, "from", to, "to", map, &err), -1);
		if (strcmp(err.msg, m->msg))
			fail_msg("%s: got \"%s\"", m->what, err.msg);
		for (uint32_t i = 0; i < from->nthreads; i++)
			assert_int_equal(map[i], 0); /* zeroed on failure */
		trace_free(from);
		trace_free(to);
	}
}

/* The binding must be from's: a binding of another thread count is
 * refused, *out zeroed. */
static void test_binding_count(void **state)
{
	(void)state;
	struct trace *a = tu_trace(TWO_A), *b = tu_trace(TWO_B);
	int32_t proc[3] = {0, 0, 0};
	struct trace_binding in = {.cpus = 1, .n = 3, .proc = proc}, out;
	struct trace_error err;
	memset(&out, 0xff, sizeof out);
	assert_int_equal(trace_binding_rebind(a, "a", &in, b, "b", &out, &err), -1);
	assert_string_equal(err.msg, "a: the binding names 3 threads, the trace has 5");
	assert_null(out.proc);
	assert_int_equal(out.n, 0);
	trace_free(a);
	trace_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_binding),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_binding_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
