/*
 * vs-simgrid - our simulator against SimGrid on the same traces: CPU time
 * of each (parse included), the ratio, and the makespans' relative
 * difference.  A benchmark, not a test, and not a build dependency.
 *
 *   make vs-simgrid                 (builds build/bench/vs-simgrid when
 *                                    `pkg-config simgrid` succeeds)
 *   build/bench/vs-simgrid [--runs] [--records N[,N...]] [--repeat R] [--kinds a,b]
 *   build/bench/vs-simgrid --one FILE   (both simulators on one trace)
 *   --runs: also each run's figures (stderr), for the arithmetic of a
 *   goal: R our read, E ours after it, Rs and S SimGrid's read and what
 *   follows it; the ratio is (Rs + S) / (R + E), so with Rs = R a ratio
 *   of X needs (X - 1) R + X E <= S
 *
 * Needs Debian's libsimgrid-dev (3.32), only for this benchmark (not in
 * bootstrap.sh's package list).
 *
 * Traces, about N records each (default N = 10^5 and 10^6), k = 8, ps,
 * thread i (dense, in id order) bound to processor i mod 8, latency 0:
 *   lock          32 workers loop: work, lock(m), work, unlock(m), with
 *                 m = worker mod 4 (written here)
 *   barrier       8 workers loop: work, barrier(all 8) (written here)
 *   transactions, pipeline, prodcons, dag
 *                 from the generator (gen/, as `bin/progen`), one size
 *                 option scaled to reach about N records (transactions
 *                 32 threads, --continue; pipeline --limit, its threads
 *                 grow with it; prodcons 16 + 16 threads, 4 buffers,
 *                 --items; dag 32 threads, --depth).  prodcons with its
 *                 works times 1000, pipeline times 10^5 (as in a trace
 *                 recorded in ns): with the generator's default works of
 *                 1..200 units our ps cycles (m units for m threads on a
 *                 processor: about 27 for pipeline at 10^5 records, 87
 *                 at 10^6) are as long as the works, and the makespans
 *                 differ from SimGrid's fluid sharing by 14-24%
 *                 (pipeline) and 1-8% (prodcons); pipeline times 1000
 *                 still 0.2% at 10^5 records but 16% at 10^6; times 10^5,
 *                 0.07% (measured).
 * Each simulator runs in a child process of its own (SimGrid's engine can
 * be initialised once per process); its CPU time (user + system, from
 * getrusage) covers reading the trace file with trace_read_file, setting
 * up and simulating; neither side frees its memory before the child
 * exits (the SimGrid engine keeps its state to the end).  Both sides
 * read the trace with our reader, so the last two columns split it off:
 * our read's CPU time, and the ratio of the CPU each side spends after
 * its read (setting up and simulating: engine against engine).  R repeats give a range.
 *
 * The SimGrid replay (written from SimGrid's public C API: simgrid_init,
 * simgrid_load_platform, sg_actor_create, sg_actor_execute, sg_actor_join,
 * sg_mutex_*, sg_sem_*, sg_barrier_*, sg_actor_sleep_for, sg_actor_yield,
 * simgrid_get_clock): a platform of k hosts of speed 1 flop/s (one trace
 * unit of work = one flop); one actor per trace thread, created by its
 * creator's `create` on the host of its processor; each record executes
 * its work, then its operation: lock/trylock ok -> sg_mutex_lock, unlock
 * -> sg_mutex_unlock, wait/trywait ok -> sg_sem_acquire, post ->
 * sg_sem_release, barrier -> sg_barrier_wait, join -> sg_actor_join, sleep
 * D -> sg_actor_sleep_for(D) (0: sg_actor_yield), busy try-operations do
 * nothing.  SimGrid shares a host among its running executions fairly:
 * the fluid limit of processor sharing, which our ps approximates in
 * integer cycles (docs/sim.md: less than one cycle per event).  Traces
 * with condition variables or read-write locks are refused (SimGrid's
 * notify does not wait for its waiters as our replay's signal does).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mutex.h>
#include <simgrid/semaphore.h>

#include "gen/gen.h"
#include "sim/sim.h"
#include "trace/trace.h"

#define K 8

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
	       (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* CPU seconds of the last read_or_die in this process (each side reads
 * the trace with the same reader, trace_read_file). */
static double read_cpu;

static struct trace *read_or_die(const char *path)
{
	struct trace *tr = NULL;
	struct trace_error err;
	double t0 = cpu_seconds();
	if (trace_read_file(path, &tr, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	read_cpu = cpu_seconds() - t0;
	return tr;
}

/* ---------------------------------------------------------------------
 * Ours: read, prepare, simulate (ps, k = 8, thread i on i mod 8).
 */
static int run_ours(const char *path, double *makespan)
{
	struct trace *tr = read_or_die(path);
	struct sim_program *p = sim_program_new(tr);
	struct sim_work *w = p ? sim_work_new(p) : NULL;
	int32_t *b = malloc(tr->nthreads * sizeof *b);
	if (!w || !b)
		return -1;
	for (uint32_t i = 0; i < tr->nthreads; i++)
		b[i] = (int32_t)(i % K);
	struct sim_params par;
	sim_params_init(&par);
	par.cpus = K;
	par.policy = SIM_PS;
	sim_time ms;
	int rc = sim_makespan(p, w, &par, b, &ms);
	*makespan = sim_time_to_double(ms);
	/* Nothing is freed: the child exits right after, as the SimGrid
	 * replay's does (it keeps its trace and engine), so neither side's
	 * CPU time counts its teardown (ours: 3-7 ms at 10^6 records). */
	return rc;
}

/* ---------------------------------------------------------------------
 * SimGrid: the replay.  Global state is fine here: one replay per process.
 */
static struct trace *G;
static sg_host_t hosts[K];
static sg_actor_t *actors;
static sg_mutex_t *mutexes;
static sg_sem_t *sems;
static sg_bar_t *barriers;

static void actor_main(int argc, char *argv[])
{
	(void)argc;
	uint32_t t = (uint32_t)strtoul(argv[1], NULL, 10);
	const struct trace_thread *th = &G->threads[t];
	for (uint32_t j = 0; j < th->nrec; j++) {
		const struct trace_rec *r = &G->rec[th->first + j];
		if (r->work)
			sg_actor_execute((double)r->work);
		switch (r->op) {
		case TRACE_CREATE: {
			char name[32], idx[16];
			snprintf(name, sizeof name, "t%u", G->threads[r->a].id);
			snprintf(idx, sizeof idx, "%u", r->a);
			char *av[] = {name, idx, NULL};
			actors[r->a] = sg_actor_create(name, hosts[r->a % K], actor_main, 2, av);
			sg_actor_ref(actors[r->a]);
			break;
		}
		case TRACE_EXIT:
			return;
		case TRACE_JOIN:
			sg_actor_join(actors[r->a], -1);
			break;
		case TRACE_TRYLOCK:
			if (!r->b)
				break;
			/* fall through */
		case TRACE_LOCK:
			sg_mutex_lock(mutexes[r->a]);
			break;
		case TRACE_UNLOCK:
			sg_mutex_unlock(mutexes[r->a]);
			break;
		case TRACE_TRYWAIT:
			if (!r->b)
				break;
			/* fall through */
		case TRACE_WAIT:
			sg_sem_acquire(sems[r->a]);
			break;
		case TRACE_POST:
			sg_sem_release(sems[r->a]);
			break;
		case TRACE_BARRIER:
			if (!barriers[r->a])
				barriers[r->a] = sg_barrier_init(r->b);
			sg_barrier_wait(barriers[r->a]);
			break;
		case TRACE_SLEEP: {
			uint64_t d = trace_sleep_time(r);
			if (d)
				sg_actor_sleep_for((double)d);
			else
				sg_actor_yield();
			break;
		}
		default:
			fprintf(stderr, "vs-simgrid: %s is not replayed on SimGrid\n", trace_op_name(r->op));
			exit(2);
		}
	}
}

static int run_simgrid(const char *path, double *makespan)
{
	char plat[] = "/tmp/vs-simgrid-XXXXXX";
	int fd = mkstemp(plat);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	fprintf(f, "<?xml version='1.0'?>\n"
	           "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
	           "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n");
	for (int c = 0; c < K; c++)
		fprintf(f, "<host id=\"cpu%d\" speed=\"1f\"/>\n", c);
	fprintf(f, "</zone>\n</platform>\n");
	fclose(f);
	char a0[] = "vs-simgrid", a1[] = "--log=root.thresh:critical",
	     a2[] = "--cfg=contexts/factory:raw";
	char *argv[] = {a0, a1, a2, NULL};
	int argc = 3;
	simgrid_init(&argc, argv);
	simgrid_load_platform(plat);
	unlink(plat);
	G = read_or_die(path);
	for (int c = 0; c < K; c++) {
		char name[16];
		snprintf(name, sizeof name, "cpu%d", c);
		hosts[c] = sg_host_by_name(name);
	}
	for (size_t i = 0; i < G->nrec; i++)
		if (G->rec[i].op == TRACE_CWAIT || G->rec[i].op == TRACE_SIGNAL ||
		    G->rec[i].op == TRACE_BROADCAST || G->rec[i].op == TRACE_RDLOCK ||
		    G->rec[i].op == TRACE_WRLOCK || G->rec[i].op == TRACE_RWUNLOCK) {
			fprintf(stderr, "vs-simgrid: %s: %s is not replayed on SimGrid\n", path,
			        trace_op_name(G->rec[i].op));
			return -1;
		}
	actors = calloc(G->nthreads, sizeof *actors);
	mutexes = calloc(G->nobj[TRACE_K_MUTEX] + 1, sizeof *mutexes);
	sems = calloc(G->nobj[TRACE_K_SEM] + 1, sizeof *sems);
	barriers = calloc(G->nobj[TRACE_K_BARRIER] + 1, sizeof *barriers);
	for (uint32_t i = 0; i < G->nobj[TRACE_K_MUTEX]; i++)
		mutexes[i] = sg_mutex_init();
	for (uint32_t i = 0; i < G->nobj[TRACE_K_SEM]; i++)
		sems[i] = sg_sem_init((int)G->sem_init[i]);
	char name[32], idx[16];
	snprintf(name, sizeof name, "t%u", G->threads[G->initial].id);
	snprintf(idx, sizeof idx, "%u", G->initial);
	char *av[] = {name, idx, NULL};
	actors[G->initial] = sg_actor_create(name, hosts[G->initial % K], actor_main, 2, av);
	sg_actor_ref(actors[G->initial]);
	simgrid_run();
	*makespan = simgrid_get_clock();
	return 0;
}

/* Run `fn` on `path` in a child; its makespan, CPU seconds in all and
 * CPU seconds of reading the trace. */
static int in_child(int (*fn)(const char *, double *), const char *path, double *ms, double *cpu,
                    double *rd)
{
	int pfd[2];
	if (pipe(pfd))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(pfd[0]);
		double t0 = cpu_seconds(), m = 0;
		int rc = fn(path, &m);
		double res[4] = {rc, m, cpu_seconds() - t0, read_cpu};
		if (write(pfd[1], res, sizeof res) != (ssize_t)sizeof res)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	double res[4] = {-1, 0, 0, 0};
	ssize_t n = read(pfd[0], res, sizeof res);
	close(pfd[0]);
	int st;
	waitpid(pid, &st, 0);
	if (n != (ssize_t)sizeof res || res[0] != 0)
		return -1;
	*ms = res[1];
	*cpu = res[2];
	*rd = res[3];
	return 0;
}

/* ---------------------------------------------------------------------
 * Traces.
 */
static void write_lock(FILE *f, long records)
{
	int w = 32;
	long loops = records / (2 * w) + 1;
	uint64_t s = 7;
	fprintf(f, "shadowbind-trace 1\nunit ns\n");
	for (int i = 2; i <= w + 1; i++)
		fprintf(f, "1 0 create %d\n", i);
	/* one valid order: each worker's critical sections one after the
	 * other (the order of lines is a sequential execution) */
	for (long l = 0; l < loops; l++)
		for (int i = 2; i <= w + 1; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			unsigned a = 100 + (unsigned)(s >> 33) % 1000, b = 10 + (unsigned)(s >> 50) % 100;
			fprintf(f, "%d %u lock %d\n%d %u unlock %d\n", i, a, i % 4, i, b, i % 4);
		}
	for (int i = 2; i <= w + 1; i++)
		fprintf(f, "%d 0 exit\n", i);
	for (int i = 2; i <= w + 1; i++)
		fprintf(f, "1 0 join %d\n", i);
	fprintf(f, "1 0 exit\n");
}

static void write_barrier(FILE *f, long records)
{
	int w = 8;
	long loops = records / w + 1;
	uint64_t s = 11;
	fprintf(f, "shadowbind-trace 1\nunit ns\n");
	for (int i = 2; i <= w + 1; i++)
		fprintf(f, "1 0 create %d\n", i);
	for (long l = 0; l < loops; l++)
		for (int i = 2; i <= w + 1; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			fprintf(f, "%d %u barrier 1 %d\n", i, 100 + (unsigned)(s >> 33) % 1000, w);
		}
	for (int i = 2; i <= w + 1; i++)
		fprintf(f, "%d 0 exit\n", i);
	for (int i = 2; i <= w + 1; i++)
		fprintf(f, "1 0 join %d\n", i);
	fprintf(f, "1 0 exit\n");
}

/* A generator family with one option scaled to about `records`. */
static int write_gen(FILE *f, const char *family, long records)
{
	struct gen_opts o;
	gen_opts_init(&o);
	o.seed = 1;
	char v[64];
	if (!strcmp(family, "transactions")) {
		o.threads = 32;
		/* about 1 / (3.7 (1 - p)) records per thread (measured) */
		snprintf(v, sizeof v, "%.9f", 1.0 - 0.27 * 32 / (double)records);
		gen_opts_set(&o, "continue", v);
	} else if (!strcmp(family, "pipeline")) {
		/* the prime sieve up to L: threads grow with L (169 at 1000),
		 * records about 63657 (L / 1000)^1.66 (measured) */
		/* (the generator's limit is at most 10000: about 3.1 M records) */
		snprintf(v, sizeof v, "%ld", (long)fmin(10000, 1000 * pow((double)records / 63657, 1 / 1.66)));
		gen_opts_set(&o, "limit", v);
		gen_opts_set(&o, "gen-work", "1000000");
		gen_opts_set(&o, "filter-work", "1000000");
		gen_opts_set(&o, "send-work", "100000");
		gen_opts_set(&o, "recv-work", "100000");
	} else if (!strcmp(family, "prodcons")) {
		gen_opts_set(&o, "producers", "16");
		gen_opts_set(&o, "consumers", "16");
		snprintf(v, sizeof v, "%ld", records / (16 * 10) + 1);
		gen_opts_set(&o, "items", v);
		gen_opts_set(&o, "buffers", "4");
		gen_opts_set(&o, "produce-work", "5000");
		gen_opts_set(&o, "insert-work", "200000");
		gen_opts_set(&o, "fetch-work", "200000");
		gen_opts_set(&o, "consume-work", "5000");
	} else if (!strcmp(family, "dag")) {
		o.threads = 32;
		/* about 3 records per task and edge end */
		snprintf(v, sizeof v, "%ld", records / (32 * 18) + 1);
		gen_opts_set(&o, "depth", v);
	}
	/* transactions' length is random (geometric per thread): correct
	 * the continue probability by the measured length until it gives
	 * 0.7N..1.5N lines (at most 8 tries) */
	char err[256], *text = NULL;
	size_t len = 0;
	double q = 0.27 * 32 / (double)records; /* 1 - continue */
	for (int tries = 0; tries < 8; tries++) {
		free(text);
		int rc = gen_generate(family, &o, &text, &len, NULL, err, sizeof err);
		if (rc) {
			fprintf(stderr, "vs-simgrid: %s: %s\n", family, err);
			return rc;
		}
		long lines = 0;
		for (size_t i = 0; i < len; i++)
			lines += text[i] == '\n';
		if (strcmp(family, "transactions") || (lines >= records * 7 / 10 && lines <= records * 3 / 2))
			break;
		q *= (double)lines / (double)records;
		snprintf(v, sizeof v, "%.9f", 1.0 - q);
		gen_opts_set(&o, "continue", v);
	}
	int rc = fwrite(text, 1, len, f) == len ? 0 : -1;
	free(text);
	return rc;
}

static int make_trace(const char *kind, long records, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = 0;
	if (!strcmp(kind, "lock"))
		write_lock(f, records);
	else if (!strcmp(kind, "barrier"))
		write_barrier(f, records);
	else
		rc = write_gen(f, kind, records);
	if (fclose(f))
		rc = -1;
	return rc;
}

/* --runs: print each run's R, E, Rs, S on stderr (see the header) */
static int print_runs;

static int one(const char *kind, const char *path, int repeat)
{
	struct trace *tr = read_or_die(path);
	size_t nrec = tr->nrec;
	uint32_t nth = tr->nthreads;
	trace_free(tr);
	/* [side]: 0 ours, 1 SimGrid; lo/hi: CPU in all; slo/shi: CPU after
	 * the read (setting up and simulating); rlo/rhi: our read */
	double lo[2] = {1e300, 1e300}, hi[2] = {0, 0}, ms[2] = {0, 0};
	double slo[2] = {1e300, 1e300}, shi[2] = {0, 0}, rlo = 1e300, rhi = 0;
	for (int r = 0; r < repeat; r++) {
		double run[2][2] = {{0, 0}, {0, 0}}; /* [side]: read, after it */
		for (int side = 0; side < 2; side++) {
			double m, c, rd;
			if (in_child(side ? run_simgrid : run_ours, path, &m, &c, &rd)) {
				fprintf(stderr, "vs-simgrid: %s: %s failed\n", path,
				        side ? "the SimGrid replay" : "our simulator");
				return -1;
			}
			ms[side] = m;
			run[side][0] = rd;
			run[side][1] = c - rd;
			lo[side] = fmin(lo[side], c);
			hi[side] = fmax(hi[side], c);
			slo[side] = fmin(slo[side], c - rd);
			shi[side] = fmax(shi[side], c - rd);
			if (!side) {
				rlo = fmin(rlo, rd);
				rhi = fmax(rhi, rd);
			}
		}
		if (print_runs)
			fprintf(stderr, "%s run %d: R %.4f E %.4f Rs %.4f S %.4f s, ratio %.2f, "
			        "without the read %.2f\n", kind, r + 1, run[0][0], run[0][1],
			        run[1][0], run[1][1], (run[1][0] + run[1][1]) / (run[0][0] + run[0][1]),
			        run[1][1] / run[0][1]);
	}
	double rel = ms[1] > 0 ? fabs(ms[0] - ms[1]) / ms[1] : 0;
	printf("%-13s %9zu %5u   %7.3f-%-7.3f %8.3f-%-8.3f %6.1f-%-6.1fx   %.3e %.3e %9.2e   "
	       "%6.3f-%-6.3f %6.0f-%-6.0fx\n",
	       kind, nrec, nth, lo[0], hi[0], lo[1], hi[1], lo[1] / hi[0], hi[1] / fmax(lo[0], 1e-9),
	       ms[0], ms[1], rel, rlo, rhi, slo[1] / fmax(shi[0], 1e-9), shi[1] / fmax(slo[0], 1e-9));
	fflush(stdout);
	return 0;
}

/* The table's heading. */
static void heading(void)
{
	printf("%-13s %9s %5s   %-15s %-17s %-15s   %-9s %-9s %9s   %-13s %s\n", "trace", "records",
	       "thr", "ours CPU s", "SimGrid CPU s", "ratio", "makespan", "SimGrid", "rel diff",
	       "ours read s", "ratio without the read");
}

int main(int argc, char **argv)
{
	const char *kinds = "lock,barrier,transactions,pipeline,prodcons,dag";
	char recs[256] = "100000,1000000";
	int repeat = 2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--records") && i + 1 < argc)
			snprintf(recs, sizeof recs, "%s", argv[++i]);
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--kinds") && i + 1 < argc)
			kinds = argv[++i];
		else if (!strcmp(argv[i], "--runs"))
			print_runs = 1;
		else if (!strcmp(argv[i], "--one") && i + 1 < argc) {
			heading();
			return one("file", argv[++i], repeat) ? 1 : 0;
		} else {
			fprintf(stderr, "usage: vs-simgrid [--runs] [--records N[,N...]] [--repeat R] [--kinds a,b,...] | --one FILE\n");
			return strcmp(argv[i], "--help") ? 1 : 0;
		}
	}
	if (repeat < 1)
		repeat = 1;
	printf("k = %d, ps, thread i on processor i mod %d, latency 0; CPU seconds (parse included), "
	       "min-max over %d runs; ratio = SimGrid / ours\n", K, K, repeat);
	heading();
	char path[] = "/tmp/vs-simgrid-trace-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 4;
	close(fd);
	int bad = 0;
	for (char *rs = strtok(recs, ","); rs; rs = strtok(NULL, ",")) {
		long n = atol(rs);
		char kl[256];
		snprintf(kl, sizeof kl, "%s", kinds);
		char *save = NULL;
		for (char *k = strtok_r(kl, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
			if (make_trace(k, n, path)) {
				bad = 1;
				continue;
			}
			if (one(k, path, repeat))
				bad = 1;
		}
	}
	unlink(path);
	return bad;
}
