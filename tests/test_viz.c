/*
 * test_viz.c - the visualizer (viz/): the extended critical path against
 * hand-derived paths (derivations in the comments), what-if
 * re-simulations against hand-computed makespans, the per-record view
 * against the schedule it comes from, the Perfetto timeline parsed by an
 * independent JSON parser (jansson) and checked against the trace-event
 * format's documented fields, the SVG's bounds, and the commands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "sim/sim.h"
#include "tests/testutil.h"
#include "trace/trace.h"
#include "viz/vizint.h"

/*
 * Three threads; the path crosses them through a mutex, a semaphore and a
 * join.  One processor per thread (shadow), latency 0:
 *   T1 creates T2, T3 at 0, works 5, joins T2 (blocked from 5).
 *   T2 works 10, locks M1 at 10 (free), works 100, unlocks at 110.
 *   T3 works 20, lock M1 at 20: held by T2 -> granted at 110 (T2's unlock).
 *   T2 then waits S1 at 110 (no token): blocked.
 *   T3 works 50, unlocks at 160, posts S1 at 160 -> T2 granted at 160;
 *   T3 works 10, exits at 170.
 *   T2 works 30, exits at 190 -> T1's join granted at 190; join T3
 *   (exited) at once; T1 exits at 190 = the makespan.
 * Backward from T1's exit: T1 was blocked on join T2 [5, 190], released by
 * T2's exit (line 14); T2 ran its exit's work [160, 190]; before, blocked
 * on S1 [110, 160], released by T3's post (line 11); T3 ran the unlock's
 * work [110, 160]; before, blocked on M1 [20, 110], released by T2's unlock
 * (line 8); T2 ran [10, 110] and [0, 10]; T2 was created by T1 at 0.
 * Lengths 10 + 100 + 50 + 30 = 190.
 */
static const char three[] =
	"shadowbind-trace 1\n"
	"thread 1 main\n"
	"thread 2 a\n"
	"thread 3 b\n"
	"1 0 create 2\n"            /* line 5 */
	"1 0 create 3\n"            /* 6 */
	"2 10 lock 1 @a.c:10\n"     /* 7 */
	"2 100 unlock 1 @a.c:11\n"  /* 8 */
	"3 20 lock 1 @b.c:20\n"     /* 9 */
	"3 50 unlock 1 @b.c:21\n"   /* 10 */
	"3 0 post 1 @b.c:22\n"      /* 11 */
	"2 0 wait 1 @a.c:12\n"      /* 12 */
	"3 10 exit\n"               /* 13 */
	"2 30 exit @a.c:13\n"       /* 14 */
	"1 5 join 2 @m.c:5\n"       /* 15 */
	"1 0 join 3\n"              /* 16 */
	"1 0 exit\n";               /* 17 */

/*
 * Contention on one processor (fifo, all on processor 0):
 *   T1 creates T2, T3 at 0 (queue T2, T3), joins T2: blocked at 0.
 *   T2 runs [0, 100], exits: T1 woken at 100, queued behind T3.
 *   T3 runs [100, 150], exits; T1 runs at 150: join T3 at once, exits.
 * Backward: T1 was ready [100, 150] while T3 held the processor -> T3's
 * work [100, 150]; T3 was ready [0, 100] while T2 held it -> T2's work
 * [0, 100]; T2 was created at 0.  Lengths 100 + 50 = 150; processor 0
 * accounts for the two waits: 100 (T3) + 50 (T1).
 */
static const char contention[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"   /* line 2 */
	"1 0 create 3\n"   /* 3 */
	"2 100 exit\n"     /* 4 */
	"3 50 exit\n"      /* 5 */
	"1 0 join 2\n"     /* 6 */
	"1 0 join 3\n"     /* 7 */
	"1 0 exit\n";      /* 8 */

/* An expected path item: kind, thread id, record line, from, to; for a
 * release the releasing thread id and line and the wait. */
struct exp_item {
	int kind;
	uint32_t thread, line;
	uint64_t from, to;
	uint32_t other, other_line;
	uint64_t waited;
};

struct path_case {
	const char *name;
	const char *trace;
	const char *policy;
	uint32_t cpus;           /* 0: every thread shadow */
	int32_t bind[8];         /* by dense thread, when cpus > 0 */
	uint64_t makespan;
	size_t n;
	struct exp_item items[12];
};

static const struct path_case path_cases[] = {
	{"three threads: mutex, semaphore, join", three, "ps", 0, {0}, 190, 8,
	 {{VIZ_RELEASE, 2, 7, 0, 0, 1, 5, 0},      /* T2 created by T1's line 5 */
	  {VIZ_WORK, 2, 7, 0, 10, 0, 0, 0},
	  {VIZ_WORK, 2, 8, 10, 110, 0, 0, 0},
	  {VIZ_RELEASE, 3, 9, 110, 110, 2, 8, 90}, /* lock M1 asked at 20 */
	  {VIZ_WORK, 3, 10, 110, 160, 0, 0, 0},
	  {VIZ_RELEASE, 2, 12, 160, 160, 3, 11, 50}, /* wait S1 asked at 110 */
	  {VIZ_WORK, 2, 14, 160, 190, 0, 0, 0},
	  {VIZ_RELEASE, 1, 15, 190, 190, 2, 14, 185}}}, /* join asked at 5 */
	{"one processor, fifo: waits for the processor", contention, "fifo", 1, {0, 0, 0}, 150, 5,
	 {{VIZ_RELEASE, 2, 4, 0, 0, 1, 2, 0},
	  {VIZ_WORK, 2, 4, 0, 100, 0, 0, 0},
	  {VIZ_RELEASE, 3, 5, 100, 100, 2, 4, 100}, /* ready since 0 */
	  {VIZ_WORK, 3, 5, 100, 150, 0, 0, 0},
	  {VIZ_RELEASE, 1, 7, 150, 150, 3, 5, 50}}}, /* ready since 100 */
};

static void run_case(struct tu_sim *c, const char *policy, uint32_t cpus, const int32_t *bind,
                     unsigned unbound, struct sim_params *par, struct sim_result *res)
{
	sim_params_init(par);
	assert_int_equal(sim_policy_parse(policy, par), 0);
	if (unbound) {
		par->mode = SIM_UNBOUND;
		par->cpus = cpus;
	} else if (cpus) {
		par->cpus = cpus;
	}
	assert_int_equal(sim_run(c->p, c->w, par, cpus && !unbound ? bind : NULL,
	                         SIM_STATS | SIM_SCHEDULE, res), SIM_OK);
}

static void test_paths(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof path_cases / sizeof *path_cases; k++) {
		const struct path_case *pc = &path_cases[k];
		struct tu_sim c;
		tu_sim_open(&c, pc->trace);
		struct sim_params par;
		struct sim_result res;
		run_case(&c, pc->policy, pc->cpus, pc->bind, 0, &par, &res);
		assert_int_equal(res.makespan.num, pc->makespan);
		struct viz_sched *s;
		struct viz_path *p;
		assert_int_equal(viz_sched_new(c.p, &par, pc->cpus ? pc->bind : NULL, &res, &s), VIZ_OK);
		assert_int_equal(viz_critical(s, &p), VIZ_OK);
		if (p->n != pc->n) {
			viz_path_print(s, p, 10, stderr);
			fail_msg("%s: %zu items, expected %zu", pc->name, p->n, pc->n);
		}
		for (size_t i = 0; i < p->n; i++) {
			const struct viz_item *it = &p->items[i];
			const struct exp_item *e = &pc->items[i];
			const struct trace *tr = c.tr;
			if (it->kind != e->kind || tr->threads[it->thread].id != e->thread ||
			    tr->rec[it->rec].line != e->line || it->from != e->from || it->to != e->to ||
			    (e->kind == VIZ_RELEASE &&
			     (tr->threads[it->other].id != e->other || tr->rec[it->other_rec].line != e->other_line ||
			      it->waited != e->waited))) {
				viz_path_print(s, p, 10, stderr);
				fail_msg("%s: item %zu differs", pc->name, i);
			}
		}
		viz_path_free(p);
		viz_sched_free(s);
		tu_sim_close(&c);
	}
}

/* A latency waited out after an acquisition granted at once, just before
 * the exit.  T1 on processor 0, T2 on 1, latency 50, fifo: T2 locks and
 * unlocks M1 at 0, waits S1 (blocked); T1 posts at 10 (T2 woken at 60,
 * exits at 65), works 100, locks M1 at 110 (released at 0: no wait),
 * joins T2 at 110: T2's exit at 65 on processor 1 arrives at 115; T1
 * exits at 115.  Path: T1's work [0, 10] (line 5) and [10, 110] (line 7),
 * then the join's latency [110, 115] on thread 2, not work of the exit. */
static const char late_join[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"   /* line 2 */
	"2 0 lock 1\n"     /* 3 */
	"2 0 unlock 1\n"   /* 4 */
	"1 10 post 1\n"    /* 5 */
	"2 0 wait 1\n"     /* 6 */
	"1 100 lock 1\n"   /* 7 */
	"1 0 unlock 1\n"   /* 8 */
	"2 5 exit\n"       /* 9 */
	"1 0 join 2\n"     /* 10 */
	"1 0 exit\n";      /* 11 */

static void test_path_late_join(void **state)
{
	(void)state;
	struct tu_sim c;
	tu_sim_open(&c, late_join);
	struct sim_params par;
	sim_params_init(&par);
	par.cpus = 2;
	par.policy = SIM_FIFO;
	par.latency = 50;
	int32_t bind[2] = {0, 1};
	struct sim_result res;
	assert_int_equal(sim_run(c.p, c.w, &par, bind, SIM_STATS | SIM_SCHEDULE, &res), SIM_OK);
	assert_int_equal(res.makespan.num, 115);
	struct viz_sched *s;
	struct viz_path *p;
	assert_int_equal(viz_sched_new(c.p, &par, bind, &res, &s), VIZ_OK);
	assert_int_equal(viz_critical(s, &p), VIZ_OK);
	static const struct {
		int kind;
		uint32_t line;
		uint64_t from, to;
	} want[] = {{VIZ_WORK, 5, 0, 10}, {VIZ_WORK, 7, 10, 110}, {VIZ_LATENCY, 10, 110, 115}};
	if (p->n != 3)
		viz_path_print(s, p, 10, stderr);
	assert_int_equal(p->n, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct viz_item *it = &p->items[i];
		if (it->kind != want[i].kind || c.tr->rec[it->rec].line != want[i].line ||
		    it->from != want[i].from || it->to != want[i].to) {
			viz_path_print(s, p, 10, stderr);
			fail_msg("item %zu differs", i);
		}
	}
	assert_int_equal(p->items[2].obj_kind, TRACE_K_THREAD);
	assert_int_equal(c.tr->threads[p->items[2].obj].id, 2);
	viz_path_free(p);
	viz_sched_free(s);
	tu_sim_close(&c);
}

/* Shares of the three-thread path: T2 10 + 100 + 30 = 140, T3 50.  The
 * objects: mutex 1: T3 waited [20, 110], the path was in T2 since 0:
 * 110 - 20 = 90; semaphore 1: T2 waited [110, 160], the path came to T3
 * at 110: 50; thread 2 (T1's join): waited [5, 190], the path came to T2
 * at 160: 30. */
static void test_shares(void **state)
{
	(void)state;
	struct tu_sim c;
	tu_sim_open(&c, three);
	struct sim_params par;
	struct sim_result res;
	run_case(&c, "ps", 0, NULL, 0, &par, &res);
	struct viz_sched *s;
	struct viz_path *p;
	assert_int_equal(viz_sched_new(c.p, &par, NULL, &res, &s), VIZ_OK);
	assert_int_equal(viz_critical(s, &p), VIZ_OK);
	struct viz_share *th, *ob;
	size_t nt, no;
	assert_int_equal(viz_path_shares(s, p, &th, &nt, &ob, &no), VIZ_OK);
	assert_int_equal(nt, 2);
	assert_int_equal(c.tr->threads[th[0].id].id, 2);
	assert_int_equal(th[0].time, 140);
	assert_int_equal(c.tr->threads[th[1].id].id, 3);
	assert_int_equal(th[1].time, 50);
	static const struct {
		uint8_t kind;
		uint32_t id;
		uint64_t time;
	} want[] = {{TRACE_K_MUTEX, 1, 90}, {TRACE_K_SEM, 1, 50}, {TRACE_K_THREAD, 2, 30}};
	assert_int_equal(no, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(ob[i].kind, want[i].kind);
		uint32_t ext = want[i].kind == TRACE_K_THREAD ? c.tr->threads[ob[i].id].id
		                                              : c.tr->obj_id[ob[i].kind][ob[i].id];
		assert_int_equal(ext, want[i].id);
		assert_int_equal(ob[i].time, want[i].time);
	}
	free(th);
	free(ob);
	/* the printed forms name the pieces */
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(viz_path_print(s, p, 10, f), VIZ_OK);
	assert_int_equal(viz_explain_print(s, p, 3, f), VIZ_OK);
	fclose(f);
	assert_non_null(strstr(buf, "@b.c:21"));
	assert_non_null(strstr(buf, "waiting on mutex 1: 47.4% of the makespan (1 waits)"));
	free(buf);
	viz_path_free(p);
	viz_sched_free(s);
	tu_sim_close(&c);
}

/* What-if `spec` on trace tr with par (shadow): the makespan and the
 * makespan saved that the caller computed by hand; objlat: the spec must
 * be one object's latency. */
static void expect_whatif(const struct trace *tr, const struct sim_params *par, const char *spec,
                          int objlat, uint64_t makespan, uint64_t saved)
{
	struct viz_whatif w;
	uint64_t sv;
	sim_time m;
	assert_int_equal(viz_whatif_parse(spec, &w), VIZ_OK);
	if (objlat)
		assert_int_equal(w.what, VIZ_WI_OBJLAT);
	assert_int_equal(viz_whatif_run(tr, par, NULL, &w, &sv, &m), VIZ_OK);
	if (m.num != makespan || m.den != 1 || sv != saved)
		fail_msg("%s: makespan %llu/%llu saved %llu", spec, (unsigned long long)m.num,
		         (unsigned long long)m.den, (unsigned long long)sv);
}

/* Specs viz_whatif_parse must refuse. */
static void expect_refused(const char *const *bad, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct viz_whatif w;
		if (viz_whatif_parse(bad[i], &w) != VIZ_EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	}
}

/* What-ifs on the three-thread program (shadow), by hand:
 *   line 10 (T3's 50 before its unlock) 50% faster: 25 saved on the path
 *     -> 165;
 *   line 13 (T3's 10 before its exit) 50% faster: not on the path -> 190;
 *   line 8 (T2's 100 in the critical section) 10% faster: T2 unlocks at
 *     100, T3 at 150, T2 exits at 180;
 *   thread 2 50% faster: T2 locks at 5, unlocks at 55; T3 (asking at 20)
 *     gets M1 at 55, posts at 105; T2 waits S1 from 55, exits at 105 + 15
 *     = 120;
 *   latency 7 (every thread on its own processor): T3 gets M1 at 117,
 *     posts at 167, T2 goes on at 174, exits at 204, T1 at 211. */
static void test_whatif(void **state)
{
	(void)state;
	static const struct {
		const char *spec;
		uint64_t makespan, saved;
	} cases[] = {
		{"line:10:50%", 165, 25}, {"line:13:50%", 190, 5}, {"line:8:10%", 180, 10},
		{"thread:2:50%", 120, 70}, {"latency:7", 211, 0}, {"line:10:0%", 190, 0},
		{"at:b.c:21:50%", 165, 25}, /* the location of line 10 */
	};
	struct tu_sim c;
	tu_sim_open(&c, three);
	struct sim_params par;
	sim_params_init(&par);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		expect_whatif(c.tr, &par, cases[i].spec, 0, cases[i].makespan, cases[i].saved);
	static const char *const bad[] = {"", "line", "line:10", "line:10:50", "line:x:5%",
	                                  "line:10:101%", "thread:2:-1%", "latency:", "latency:-3",
	                                  "speed:1:5%", "line:10:%", "line:10:5%%", "at:5%",
	                                  "at::5%", "at:b.c:21:x%"};
	expect_refused(bad, sizeof bad / sizeof *bad);
	struct viz_whatif w;
	uint64_t saved;
	sim_time m;
	assert_int_equal(viz_whatif_parse("line:99:5%", &w), VIZ_OK);
	assert_int_equal(viz_whatif_run(c.tr, &par, NULL, &w, &saved, &m), VIZ_EINVAL);
	assert_int_equal(m.num, 0);
	assert_int_equal(viz_whatif_parse("at:b.c:2:5%", &w), VIZ_OK); /* a prefix is no match */
	assert_int_equal(viz_whatif_run(c.tr, &par, NULL, &w, &saved, &m), VIZ_EINVAL);
	tu_sim_close(&c);
}

/* One object's latency (latency:KIND:ID:T) on the three-thread program,
 * shadow, by hand.  Uniform latency 7 (as in test_whatif): T3 gets M1 at
 * 110 + 7 = 117, unlocks and posts at 167; T2 woken at 174, exits at 204;
 * T3 exits at 177; T1's join T2 at 211, join T3 at once (177 + 7 < 211):
 * 211.  One object's latency 0:
 *   mutex 1: T3 at 110, posts at 160, T2 at 167, exits 197, T1 at 204;
 *   sem 1: T3 at 117, posts 167, T2 at 167, exits 197, T1 at 204;
 *   thread 2 (T1's join): T2 exits 204, T1 at 204;
 *   thread 3: the join of T3 never waited: 211.
 * mutex 1 at 20 instead: T3 at 130, posts 180, T2 at 187, exits 217, T1
 *   at 224.
 * Uniform 0, sem 1 at 7: T3 at 110, posts 160, T2 at 167, exits 197, T1
 *   at 197. */
static void test_whatif_object_latency(void **state)
{
	(void)state;
	static const struct {
		const char *spec;
		uint64_t latency, makespan;
	} cases[] = {
		{"latency:mutex:1:0", 7, 204}, {"latency:sem:1:0", 7, 204},
		{"latency:thread:2:0", 7, 204}, {"latency:thread:3:0", 7, 211},
		{"latency:mutex:1:20", 7, 224}, {"latency:sem:1:7", 0, 197},
		{"latency:mutex:1:7", 7, 211},
	};
	struct tu_sim c;
	tu_sim_open(&c, three);
	struct sim_params par;
	sim_params_init(&par);
	struct viz_whatif w;
	uint64_t saved;
	sim_time m;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		par.latency = cases[i].latency;
		expect_whatif(c.tr, &par, cases[i].spec, 1, cases[i].makespan, 0);
	}
	static const char *const bad[] = {"latency:mutex:1", "latency:lock:1:0", "latency:mutex:x:0",
	                                  "latency:mutex:1:-1", "latency::1:0", "latency:mutex::0",
	                                  "latency:mutex:1:", "latency:mutex:1:0:0"};
	expect_refused(bad, sizeof bad / sizeof *bad);
	/* no such object; a model other than Direct */
	par.latency = 7;
	assert_int_equal(viz_whatif_parse("latency:mutex:9:0", &w), VIZ_OK);
	assert_int_equal(viz_whatif_run(c.tr, &par, NULL, &w, &saved, &m), VIZ_EINVAL);
	assert_int_equal(viz_whatif_parse("latency:cond:1:0", &w), VIZ_OK);
	assert_int_equal(viz_whatif_run(c.tr, &par, NULL, &w, &saved, &m), VIZ_EINVAL);
	assert_int_equal(viz_whatif_parse("latency:mutex:1:0", &w), VIZ_OK);
	par.model = SIM_STRICT;
	assert_int_equal(viz_whatif_run(c.tr, &par, NULL, &w, &saved, &m), VIZ_ESIM);
	assert_int_equal(m.num, 0);
	tu_sim_close(&c);
}

/* A program generated by progen (path: malloc'd, unlink and free). */
static char *progen(const char *args)
{
	char *path = tu_tmpfile("");
	char *out, *err;
	int st = tu_cmdf("progen", &out, &err, "%s -o '%s'", args, path);
	if (st != 0)
		fail_msg("progen %s: %s", args, err);
	free(out);
	free(err);
	return path;
}

/* Every machine the invariants run on. */
static const struct {
	const char *policy;
	uint32_t cpus;
	int unbound;
	uint64_t latency;
} machines[] = {
	{"ps", 0, 0, 0}, {"fifo", 2, 1, 0}, {"rr:50", 3, 1, 0}, {"ps", 2, 1, 0},
	{"fifo", 1, 1, 0}, {"ps", 4, 1, 7}, {"fifo", 3, 1, 7}, {"rr:20", 2, 0, 5},
};

/*
 * The per-record view against the schedule, on generated programs: times
 * in order within a thread (begin <= op <= ready <= resume <= the next
 * record's begin); an acquisition granted at once happened at its grant;
 * under fifo and rr each record's work is exactly the run time inside
 * [begin, op]; the critical path tiles [0, makespan] (contiguous, lengths
 * adding up to the makespan).
 */
static void test_invariants(void **state)
{
	(void)state;
	static const char *const progs[] = {
		"--family pipeline --limit 60",
		"--family transactions --threads 12 --seed 3",
		"--family dag --threads 6 --width 8 --depth 6 --edge-prob 0.3",
		"--family forkjoin --threads 5 --phases 4 --imbalance 0.3 --serial 100",
		"--family prodcons --producers 6 --consumers 3 --items 5",
	};
	for (size_t pi = 0; pi < sizeof progs / sizeof *progs; pi++) {
		char *path = progen(progs[pi]);
		size_t len;
		char *text = tu_slurp(path, &len);
		assert_non_null(text);
		struct tu_sim c;
		tu_sim_open(&c, text);
		const struct trace *tr = c.tr;
		for (size_t mi = 0; mi < sizeof machines / sizeof *machines; mi++) {
			struct sim_params par;
			struct sim_result res;
			int32_t *bind = calloc(tr->nthreads, sizeof *bind);
			for (uint32_t u = 0; u < tr->nthreads; u++)
				bind[u] = (int32_t)(u % (machines[mi].cpus ? machines[mi].cpus : 1));
			run_case(&c, machines[mi].policy, machines[mi].cpus, bind, machines[mi].unbound,
			         &par, &res);
			par.latency = machines[mi].latency;
			const int32_t *b = machines[mi].cpus && !machines[mi].unbound ? bind : NULL;
			int st = sim_run(c.p, c.w, &par, b, SIM_STATS | SIM_SCHEDULE, &res);
			if (st == SIM_DEADLOCK) {
				free(bind);
				continue;
			}
			assert_int_equal(st, SIM_OK);
			struct viz_sched *s;
			assert_int_equal(viz_sched_new(c.p, &par, b, &res, &s), VIZ_OK);
			int exact = par.policy != SIM_PS;
			for (uint32_t u = 0; u < tr->nthreads; u++) {
				const struct trace_thread *th = &tr->threads[u];
				for (uint32_t k = 0; k < th->nrec; k++) {
					uint32_t r = th->first + k;
					const struct viz_rec_times *t = viz_sched_rec(s, r);
					int ok = t->begin <= t->op && t->op <= t->ready && t->ready <= t->resume;
					if (k + 1 < th->nrec)
						ok &= t->resume <= viz_sched_rec(s, r + 1)->begin;
					if (t->grant != UINT64_MAX && t->releaser < 0 && par.latency == 0)
						ok &= t->op == t->grant;
					if (exact && tr->rec[r].op != TRACE_EXIT) {
						uint64_t ran = 0;
						for (size_t i = s->iv_first[u]; i < s->iv_first[u + 1]; i++) {
							uint64_t a = s->iv[i].from > t->begin ? s->iv[i].from : t->begin;
							uint64_t z = s->iv[i].to < t->op ? s->iv[i].to : t->op;
							ran += z > a ? z - a : 0;
						}
						ok &= ran == viz_rec_work(s, r);
					}
					if (!ok)
						fail_msg("%s, %s on %u (unbound %d, latency %llu): T%u line %u: begin %llu op %llu ready %llu resume %llu",
						         progs[pi], machines[mi].policy, machines[mi].cpus, machines[mi].unbound,
						         (unsigned long long)par.latency, th->id, tr->rec[r].line,
						         (unsigned long long)t->begin, (unsigned long long)t->op,
						         (unsigned long long)t->ready, (unsigned long long)t->resume);
				}
			}
			struct viz_path *p;
			assert_int_equal(viz_critical(s, &p), VIZ_OK);
			uint64_t at = 0;
			for (size_t i = 0; i < p->n; i++) {
				if (p->items[i].from != at)
					fail_msg("%s, %s: path not contiguous at %llu", progs[pi], machines[mi].policy,
					         (unsigned long long)at);
				at = p->items[i].to;
			}
			assert_int_equal(at, res.makespan.num);
			viz_path_free(p);
			viz_sched_free(s);
			free(bind);
		}
		tu_sim_close(&c);
		free(text);
		unlink(path);
		free(path);
	}
}

/* The number at key k of object o, or -1 (failing the test if absent and
 * `need`). */
static double num(json_t *o, const char *k, int need)
{
	json_t *v = json_object_get(o, k);
	if (!v || !json_is_number(v)) {
		if (need)
			fail_msg("event without a numeric '%s': %s", k, json_dumps(o, JSON_COMPACT));
		return -1;
	}
	return json_number_value(v);
}

struct slice {
	double pid, tid, ts, end;
};

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * The timeline against the trace-event format: a JSON object with a
 * traceEvents array; every event has a string "ph" of the phases we use
 * (X complete, i instant, s/f flow, C counter, M metadata) and integer
 * pid (and tid, but for process metadata); X has a string name, ts >= 0
 * and dur >= 0 (microseconds) and slices of one track never overlap; i
 * has scope s in t/p/g; every flow id has exactly one "s" and one "f",
 * the f (bp "e") not before its s; C has numeric args; M names processes
 * and threads with args.name or sorts them with args.sort_index.
 * Figures: unit us, fifo on one processor: the slices of each thread add
 * up to its cpu; the running counter never exceeds 1 and ends at 0.
 */
static void check_timeline(const char *json, uint32_t cpus, const struct trace *tr,
                           const struct sim_result *res, double us_per_unit, int cpu_exact)
{
	json_error_t je;
	json_t *root = json_loads(json, 0, &je);
	if (!root)
		fail_msg("timeline is not JSON: line %d: %s", je.line, je.text);
	assert_true(json_is_object(root));
	json_t *ev = json_object_get(root, "traceEvents");
	assert_true(json_is_array(ev));
	assert_true(json_is_string(json_object_get(root, "displayTimeUnit")));
	size_t n = json_array_size(ev), nx = 0;
	struct slice *sl = calloc(n ? n : 1, sizeof *sl);
	double *cpu = calloc(tr->nthreads, sizeof *cpu);
	size_t nflow_s = 0, nflow_f = 0, ninst = 0, ncount = 0;
	double maxrun = 0, lastrun = -1, lastts = -1;
	json_t *flows = json_object();
	double mk = (double)res->makespan.num * us_per_unit;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(ev, i);
		assert_true(json_is_object(e));
		const char *ph = json_string_value(json_object_get(e, "ph"));
		assert_non_null(ph);
		assert_true(json_is_integer(json_object_get(e, "pid")));
		if (strcmp(ph, "M") == 0) {
			const char *nm = json_string_value(json_object_get(e, "name"));
			assert_non_null(nm);
			json_t *args = json_object_get(e, "args");
			assert_true(json_is_object(args));
			if (strcmp(nm, "process_name") == 0 || strcmp(nm, "thread_name") == 0)
				assert_true(json_is_string(json_object_get(args, "name")));
			else if (strcmp(nm, "process_sort_index") == 0 || strcmp(nm, "thread_sort_index") == 0)
				assert_true(json_is_integer(json_object_get(args, "sort_index")));
			else
				fail_msg("unknown metadata '%s'", nm);
			if (strncmp(nm, "thread", 6) == 0)
				assert_true(json_is_integer(json_object_get(e, "tid")));
			continue;
		}
		assert_true(json_is_integer(json_object_get(e, "tid")));
		double ts = num(e, "ts", 1);
		assert_true(ts >= 0 && ts <= mk + 1e-6);
		if (strcmp(ph, "X") == 0) {
			const char *nm = json_string_value(json_object_get(e, "name"));
			assert_non_null(nm);
			double dur = num(e, "dur", 1);
			assert_true(dur > 0 && ts + dur <= mk + 1e-6);
			sl[nx].pid = num(e, "pid", 1);
			sl[nx].tid = num(e, "tid", 1);
			sl[nx].ts = ts;
			sl[nx].end = ts + dur;
			nx++;
			unsigned id;
			assert_int_equal(sscanf(nm, "T%u", &id), 1);
			int64_t u = trace_thread_index(tr, id);
			assert_true(u >= 0);
			cpu[u] += dur;
		} else if (strcmp(ph, "i") == 0) {
			const char *sc = json_string_value(json_object_get(e, "s"));
			assert_non_null(sc);
			assert_true(strcmp(sc, "t") == 0 || strcmp(sc, "p") == 0 || strcmp(sc, "g") == 0);
			assert_true(json_is_object(json_object_get(e, "args")));
			ninst++;
		} else if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {
			json_t *id = json_object_get(e, "id");
			assert_true(json_is_integer(id));
			char key[32];
			snprintf(key, sizeof key, "%s%lld", ph, (long long)json_integer_value(id));
			assert_null(json_object_get(flows, key)); /* once each */
			json_object_set_new(flows, key, json_real(ts));
			if (*ph == 's') {
				nflow_s++;
			} else {
				nflow_f++;
				const char *bp = json_string_value(json_object_get(e, "bp"));
				assert_non_null(bp);
				assert_string_equal(bp, "e");
			}
		} else if (strcmp(ph, "C") == 0) {
			json_t *args = json_object_get(e, "args");
			assert_true(json_is_object(args));
			double run = num(args, "running", 1), rdy = num(args, "ready", 1);
			assert_true(run >= 0 && rdy >= 0);
			assert_true(ts >= lastts);
			lastts = ts;
			if (run > maxrun)
				maxrun = run;
			lastrun = run;
			ncount++;
		} else {
			fail_msg("unexpected phase '%s'", ph);
		}
	}
	/* flows pair up, finish not before start */
	assert_int_equal(nflow_s, nflow_f);
	const char *key;
	json_t *v;
	json_object_foreach(flows, key, v) {
		if (key[0] != 's')
			continue;
		char fk[32];
		snprintf(fk, sizeof fk, "f%s", key + 1);
		json_t *f = json_object_get(flows, fk);
		assert_non_null(f);
		assert_true(json_real_value(f) >= json_real_value(v));
	}
	/* slices of a track do not overlap */
	qsort(sl, nx, sizeof *sl, cmp_slice);
	for (size_t i = 1; i < nx; i++)
		if (sl[i].pid == sl[i - 1].pid && sl[i].tid == sl[i - 1].tid)
			assert_true(sl[i].ts >= sl[i - 1].end - 1e-9);
	if (cpu_exact)
		for (uint32_t u = 0; u < tr->nthreads; u++)
			assert_true(cpu[u] == (double)res->threads[u].cpu.num * us_per_unit);
	assert_true(ninst > 0);
	assert_true(ncount > 0);
	if (cpus)
		assert_true(maxrun <= cpus);
	assert_true(lastrun == 0);
	json_decref(flows);
	json_decref(root);
	free(sl);
	free(cpu);
}

static void test_timeline(void **state)
{
	(void)state;
	static const struct {
		const char *unit;
		double us;
	} units[] = {{"us", 1}, {"ms", 1000}, {"ns", 0.001}};
	for (size_t k = 0; k < sizeof units / sizeof *units; k++) {
		char text[2048];
		snprintf(text, sizeof text, "shadowbind-trace 1\nunit %s\n%s", units[k].unit,
		         three + strlen("shadowbind-trace 1\n"));
		for (int fifo = 0; fifo < 2; fifo++) {
			struct tu_sim c;
			tu_sim_open(&c, text);
			struct sim_params par;
			struct sim_result res;
			int32_t bind[3] = {0, 0, 0};
			run_case(&c, fifo ? "fifo" : "ps", fifo ? 1 : 0, bind, 0, &par, &res);
			struct viz_sched *s;
			assert_int_equal(viz_sched_new(c.p, &par, fifo ? bind : NULL, &res, &s), VIZ_OK);
			char *buf;
			size_t len;
			FILE *f = open_memstream(&buf, &len);
			assert_int_equal(viz_timeline_write(s, f), VIZ_OK);
			fclose(f);
			check_timeline(buf, fifo ? 1 : 0, c.tr, &res, units[k].us, 1);
			/* the three sync edges: named by location and releaser */
			assert_non_null(strstr(buf, "\"T3 b @b.c:21\""));
			if (!fifo) /* on one processor T3 never waits for M1 */
				assert_non_null(strstr(buf, "lock mutex 1 <- T2"));
			assert_non_null(strstr(buf, "wait semaphore 1 <- T3"));
			free(buf);
			viz_sched_free(s);
			tu_sim_close(&c);
		}
	}
	/* the prime sieve bound round-robin on 2 processors, ps: at most 2
	 * running (the sharing threads count as ready) */
	{
		char *pp = progen("--family pipeline --limit 40");
		char *pt = tu_slurp(pp, NULL);
		struct tu_sim c2;
		tu_sim_open(&c2, pt);
		int32_t *bind = calloc(c2.tr->nthreads, sizeof *bind);
		for (uint32_t u = 0; u < c2.tr->nthreads; u++)
			bind[u] = (int32_t)(u % 2);
		struct sim_params par2;
		struct sim_result res2;
		run_case(&c2, "ps", 2, bind, 0, &par2, &res2);
		struct viz_sched *s2;
		assert_int_equal(viz_sched_new(c2.p, &par2, bind, &res2, &s2), VIZ_OK);
		char *b2;
		size_t l2;
		FILE *f2 = open_memstream(&b2, &l2);
		assert_int_equal(viz_timeline_write(s2, f2), VIZ_OK);
		fclose(f2);
		check_timeline(b2, 2, c2.tr, &res2, 1, 0);
		free(b2);
		viz_sched_free(s2);
		free(bind);
		tu_sim_close(&c2);
		free(pt);
		unlink(pp);
		free(pp);
	}
	/* a generated program on 3 processors, unbound fifo: exact cpu */
	char *path = progen("--family transactions --threads 10 --seed 7");
	char *text = tu_slurp(path, NULL);
	struct tu_sim c;
	tu_sim_open(&c, text);
	struct sim_params par;
	struct sim_result res;
	run_case(&c, "fifo", 3, NULL, 1, &par, &res);
	struct viz_sched *s;
	assert_int_equal(viz_sched_new(c.p, &par, NULL, &res, &s), VIZ_OK);
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(viz_timeline_write(s, f), VIZ_OK);
	fclose(f);
	check_timeline(buf, 3, c.tr, &res, 1, 1);
	free(buf);
	viz_sched_free(s);
	tu_sim_close(&c);
	free(text);
	unlink(path);
	free(path);
}

/* Strings from a trace reach JSON escaped: a thread name with a quote, a
 * backslash and an invalid UTF-8 byte (jansson rejects invalid UTF-8). */
static void test_timeline_escapes(void **state)
{
	(void)state;
	struct tu_sim c;
	tu_sim_open(&c, "shadowbind-trace 1\nthread 1 m\"a\\in\xff\n1 5 exit @f\"\\\xc3\xa9.c:1\n");
	struct sim_params par;
	struct sim_result res;
	run_case(&c, "ps", 0, NULL, 0, &par, &res);
	struct viz_sched *s;
	assert_int_equal(viz_sched_new(c.p, &par, NULL, &res, &s), VIZ_OK);
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(viz_timeline_write(s, f), VIZ_OK);
	fclose(f);
	json_error_t je;
	json_t *root = json_loads(buf, 0, &je);
	if (!root)
		fail_msg("not JSON: %s: %s", je.text, buf);
	assert_non_null(strstr(buf, "\\u00ff"));
	assert_non_null(strstr(buf, "\xc3\xa9")); /* valid UTF-8 kept */
	json_decref(root);
	free(buf);
	viz_sched_free(s);
	tu_sim_close(&c);
}

/*
 * The SVG: well-formed enough to start and end as SVG, a viewBox (zoom),
 * and bounded: 1000 threads are grouped into at most 80 rows, so the file
 * stays below the documented bound of 3 x 80 x 1000 rectangles of at most
 * 60 bytes each plus 1 MB (docs/viz.md), whatever the number of records.
 */
static void test_svg(void **state)
{
	(void)state;
	static const struct {
		const char *args;
		const char *policy;
		uint32_t cpus;
	} cases[] = {
		{"--family transactions --threads 1000 --seed 2", "fifo", 8},
		{"--family pipeline --limit 100", "ps", 4},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *path = progen(cases[k].args);
		char *text = tu_slurp(path, NULL);
		struct tu_sim c;
		tu_sim_open(&c, text);
		struct sim_params par;
		struct sim_result res;
		run_case(&c, cases[k].policy, cases[k].cpus, NULL, 1, &par, &res);
		struct viz_sched *s;
		struct viz_path *p;
		assert_int_equal(viz_sched_new(c.p, &par, NULL, &res, &s), VIZ_OK);
		assert_int_equal(viz_critical(s, &p), VIZ_OK);
		char *buf;
		size_t len;
		FILE *f = open_memstream(&buf, &len);
		assert_int_equal(viz_svg_write(s, p, NULL, f), VIZ_OK);
		fclose(f);
		assert_true(len > 1000);
		assert_true(len < 3u * 80 * 1000 * 60 + (1u << 20));
		assert_non_null(strstr(buf, "<svg"));
		assert_non_null(strstr(buf, "viewBox"));
		assert_non_null(strstr(buf + len - 16, "</svg>"));
		free(buf);
		viz_path_free(p);
		viz_sched_free(s);
		tu_sim_close(&c);
		free(text);
		unlink(path);
		free(path);
	}
}

/* The commands: critical's path, JSON and errors; simulate's files. */
static void test_commands(void **state)
{
	(void)state;
	char *t = tu_tmpfile(three);
	char *out, *err;
	/* the path as text: the three edges with their lines and locations */
	assert_int_equal(tu_cmdf("critical", &out, &err, "'%s'", t), 0);
	assert_non_null(strstr(out, "makespan 190"));
	assert_non_null(strstr(out, "line 10 unlock @b.c:21"));
	assert_non_null(strstr(out, "mutex 1"));
	assert_non_null(strstr(out, "semaphore 1"));
	free(out);
	free(err);
	/* JSON: lengths add up to the makespan; the what-if as by hand */
	assert_int_equal(tu_cmdf("critical", &out, &err, "--json --what-if line:10:50%% '%s'", t), 0);
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	if (!root)
		fail_msg("critical --json: %s: %s", je.text, out);
	json_t *path = json_object_get(root, "path");
	assert_int_equal(json_integer_value(json_object_get(path, "makespan")), 190);
	json_t *items = json_object_get(path, "items");
	json_int_t sum = 0;
	for (size_t i = 0; i < json_array_size(items); i++)
		sum += json_integer_value(json_object_get(json_array_get(items, i), "length"));
	assert_int_equal(sum, 190);
	/* the profile of the path by source location: a.c:11 100 first */
	json_t *loc0 = json_array_get(json_object_get(path, "locations"), 0);
	assert_string_equal(json_string_value(json_object_get(loc0, "location")), "a.c:11");
	assert_int_equal(json_integer_value(json_object_get(loc0, "time")), 100);
	json_t *wi = json_array_get(json_object_get(root, "what_if"), 0);
	assert_true(json_number_value(json_object_get(wi, "makespan")) == 165);
	json_decref(root);
	free(out);
	free(err);
	/* errors: usage 1, a line the trace lacks 2, a missing trace 2 */
	assert_int_equal(tu_cmdf("critical", &out, &err, "--what-if speed:1 '%s'", t), 1);
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("critical", &out, &err, "--what-if line:99:5%% '%s'", t), 2);
	assert_int_equal(tu_count_lines(err), 1);
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("critical", &out, &err, "/nonexistent/t.trace"), 2);
	free(out);
	free(err);
	/* latency 7: what each object's latency costs, and one object's
	 * what-if (test_whatif_object_latency: 211 -> 204 for mutex 1,
	 * sem 1 and thread 2) */
	assert_int_equal(tu_cmdf("critical", &out, &err,
	                         "--latency 7 --weights 0 --what-if latency:thread:3:0 '%s'", t), 0);
	assert_non_null(strstr(out, "makespan 211"));
	assert_non_null(strstr(out, "latency:mutex:1:0        makespan 211 -> 204 tick: its latency costs 7"));
	assert_non_null(strstr(out, "latency:sem:1:0          makespan 211 -> 204 tick: its latency costs 7"));
	assert_non_null(strstr(out, "latency:thread:2:0       makespan 211 -> 204 tick: its latency costs 7"));
	assert_non_null(strstr(out, "latency:thread:3:0       makespan 211 -> 211"));
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("critical", &out, &err,
	                         "--json --latency 7 --weights 0 --what-if latency:sem:1:0 '%s'", t), 0);
	root = json_loads(out, 0, &je);
	if (!root)
		fail_msg("critical --json: %s: %s", je.text, out);
	json_t *lc = json_object_get(root, "latency_cost");
	assert_int_equal(json_array_size(lc), 3);
	for (size_t i = 0; i < 3; i++)
		assert_true(json_number_value(json_object_get(json_array_get(lc, i), "cost")) == 7);
	wi = json_array_get(json_object_get(root, "what_if"), 0);
	assert_true(json_number_value(json_object_get(wi, "makespan")) == 204);
	json_decref(root);
	free(out);
	free(err);
	/* the override is for the Direct model: usage 1; no such object 2 */
	assert_int_equal(tu_cmdf("critical", &out, &err,
	                         "--model strict --latency 7 --what-if latency:mutex:1:0 '%s'", t), 1);
	free(out);
	free(err);
	assert_int_equal(tu_cmdf("critical", &out, &err, "--latency 7 --what-if latency:mutex:9:0 '%s'", t), 2);
	assert_int_equal(tu_count_lines(err), 1);
	free(out);
	free(err);
	/* simulate writes both files; an unwritable one fails with 2 and
	 * leaves nothing behind */
	char *dir = tu_tmpfile("");
	unlink(dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(tu_cmdf("simulate", &out, &err, "--timeline '%s/t.json' --svg '%s/t.svg' '%s'",
	                         dir, dir, t), 0);
	free(out);
	free(err);
	char p1[512], p2[512];
	snprintf(p1, sizeof p1, "%s/t.json", dir);
	snprintf(p2, sizeof p2, "%s/t.svg", dir);
	char *j = tu_slurp(p1, NULL);
	assert_non_null(j);
	root = json_loads(j, 0, &je);
	assert_non_null(root);
	json_decref(root);
	free(j);
	struct stat st;
	assert_int_equal(stat(p2, &st), 0);
	assert_true(st.st_size > 1000);
	unlink(p1);
	unlink(p2);
	assert_int_equal(tu_cmdf("simulate", &out, &err, "--svg '%s/no/such/dir/t.svg' '%s'", dir, t), 2);
	assert_int_equal(tu_count_lines(err), 1);
	free(out);
	free(err);
	/* allocate --explain: the binding file stays a binding file; the
	 * explanation on stderr names the semaphore T4 waited on (the
	 * shipped example: SGA's binding, makespan 2050, the path runs T1's
	 * 1030 then T4's 1020; T4 waited on semaphore 1 for 1030 = 50.2%) */
	char ex[512], bf[512];
	tu_root("examples/binpack-worst-case.trace", ex, sizeof ex);
	snprintf(bf, sizeof bf, "%s/b.txt", dir);
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q --explain -o '%s' '%s'", bf, ex), 0);
	assert_non_null(strstr(err, "explain: waiting on semaphore 1: 50.2% of the makespan"));
	assert_non_null(strstr(err, "explain: busiest processor"));
	char *btext = tu_slurp(bf, NULL);
	assert_non_null(btext);
	assert_null(strstr(btext, "explain"));
	free(btext);
	free(out);
	free(err);
	unlink(bf);
	assert_int_equal(rmdir(dir), 0); /* empty: no temporary left */
	free(dir);
	unlink(t);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_path_late_join),
		cmocka_unit_test(test_whatif),
		cmocka_unit_test(test_whatif_object_latency),
		cmocka_unit_test(test_invariants),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_escapes),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_commands),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	viz_fonts_release(); /* cairo's and fontconfig's caches: not leaks */
	return rc;
}
