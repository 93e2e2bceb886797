/*
 * sim-speed - parse speed (MB/s) and simulation speed on generated traces
 * of 10^4 to 10^7 records, 4 to 1000 threads, for each policy and for
 * k = 2, 8, 64.  Prints a table.  Not a test.
 *
 * What the speeds count: `steps/s` is operations performed (records,
 * sim_result.steps) per second of the run; `events/s` is the events the
 * loop processed (sim_result.events: timers, ends of work, ps cycle
 * ends, rr expiries) per second.  The table and its worst-case line
 * give steps/s (until 2026-11-26 they were labelled events/s); --trace
 * gives both.  Issue 15's goals below were stated as "events/s" and have
 * always been judged on steps/s.
 *
 *   build/bench/sim-speed [--max-records N] [--repeat R]
 *   build/bench/sim-speed --one RECORDS THREADS POLICY K [MODEL]
 *
 * --one generates one trace and simulates it once (POLICY fifo, rr:Q or
 * ps; MODEL direct, client-server or strict): for instruction counts,
 * e.g. valgrind --tool=callgrind --toggle-collect=sim_run.
 *
 *   build/bench/sim-speed --trace TRACE BINDING [POLICY [REPEAT]]
 *   build/bench/sim-speed --dump RECORDS THREADS FILE
 *   build/bench/sim-speed --parse-only [--max-records N] [--repeat R]
 *
 * --dump writes the table's trace of RECORDS records and THREADS threads
 * to FILE (for the reader's instruction counts: `trace-speed FILE` under
 * callgrind).  --parse-only prints the table's parse column alone (each
 * trace read R times in the process, best), without simulating.
 *
 * --trace simulates a trace file under a binding file (bound mode, the
 * binding's k, POLICY default ps, Direct model) REPEAT times (default 5)
 * and prints the makespan, steps, events and the CPU time per run (best and
 * mean; CLOCK_THREAD_CPUTIME_ID, so other processes matter less), e.g.
 * what one test of allocate costs on that trace (docs/sim.md,
 * "Performance").
 *
 * Goals on one core (issue 15): parsing >= 500 MB/s; simulation >= 15 M
 * steps/s (fifo, also at k = 64 with 1000 threads) and >= 5 M steps/s
 * (ps); a 10^7-record trace under 500 MB (Direct model).
 *
 * Then the same traces under each simulation model (direct,
 * client-server, strict; fifo and ps, k = 8): steps/s and the time
 * relative to Direct (Paper VIII found no significant difference), and
 * the time the recorded pairing those models follow takes to build (on
 * their first run; the Direct model never builds it).  Peak memory is
 * printed twice: the largest peak of one trace with the Direct model
 * (what simulate needs with the default model, plus the trace's text,
 * which simulate reads in chunks but this benchmark holds; Linux: the
 * peak restarts before each trace), and the peak of the whole run.
 * The trace: thread 1 creates the workers, which loop over
 *   work lock(m) work unlock(m) work post(next) [work wait(own)]
 * (mutex m = worker mod 8, semaphores pass tokens around the ring), then
 * exit; thread 1 joins them.  Binding: worker i on processor i mod k.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/sim.h"
#include "trace/trace.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->cap + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			fprintf(stderr, "sim-speed: out of memory\n");
			exit(1);
		}
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void gen(struct buf *b, uint32_t nthreads, uint64_t records)
{
	char line[128];
	uint32_t nw = nthreads - 1;
	uint64_t seed = records * 31 + nthreads;
	b->len = 0;
	put(b, "shadowbind-trace 1\nunit us\n", 27);
	for (uint32_t i = 0; i < nw; i++)
		put(b, line, (size_t)snprintf(line, sizeof line, "1 %u create %u\n", 1 + i % 7, i + 2));
	uint64_t per_round = 5 * (uint64_t)nw;
	uint64_t rounds = records > per_round ? records / per_round : 1;
	uint32_t *tokens = calloc(nw, sizeof *tokens);
	for (uint64_t r = 0; r < rounds; r++) {
		for (uint32_t i = 0; i < nw; i++) {
			uint32_t t = i + 2, m = i % 8 + 1, next = (i + 1) % nw;
			put(b, line, (size_t)snprintf(line, sizeof line, "%u %" PRIu64 " lock %u\n", t, 10 + rng(&seed) % 1000, m));
			put(b, line, (size_t)snprintf(line, sizeof line, "%u %" PRIu64 " unlock %u\n", t, 1 + rng(&seed) % 50, m));
			put(b, line, (size_t)snprintf(line, sizeof line, "%u %" PRIu64 " post %u\n", t, rng(&seed) % 100, next + 1));
			tokens[next]++;
			if (tokens[i]) {
				tokens[i]--;
				put(b, line, (size_t)snprintf(line, sizeof line, "%u %" PRIu64 " wait %u\n", t, rng(&seed) % 100, i + 1));
			}
		}
	}
	for (uint32_t i = 0; i < nw; i++)
		put(b, line, (size_t)snprintf(line, sizeof line, "%u 5 exit\n", i + 2));
	for (uint32_t i = 0; i < nw; i++)
		put(b, line, (size_t)snprintf(line, sizeof line, "1 0 join %u\n", i + 2));
	put(b, "1 1 exit\n", 9);
	b->p[b->len] = 0;
	free(tokens);
}

/* Peak resident memory since the last hwm_reset (VmHWM of
 * /proc/self/status), MB; -1 when unknown. */
static long hwm_mb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char l[256];
	long kb = -1;
	if (!f)
		return -1;
	while (fgets(l, sizeof l, f))
		if (strncmp(l, "VmHWM:", 6) == 0)
			kb = atol(l + 6);
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

/* Restart the peak at the current resident memory (Linux: clear_refs 5).
 * Returns 0, or -1 when that is not possible. */
static int hwm_reset(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	if (!f)
		return -1;
	int ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static long peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* --one: one trace, one run. */
static int run_one(uint64_t records, uint32_t nthreads, const char *pol, uint32_t k,
                   const char *model)
{
	struct buf b = {0};
	gen(&b, nthreads, records);
	struct trace *tr = NULL;
	struct trace_error err;
	if (trace_read_mem("bench.trace", b.p, b.len, &tr, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	struct sim_params par;
	sim_params_init(&par);
	if (sim_policy_parse(pol, &par) != 0 || k == 0) {
		fprintf(stderr, "sim-speed: bad policy or k\n");
		return 1;
	}
	par.cpus = k;
	if (model)
		par.model = strcmp(model, "strict") == 0 ? SIM_STRICT :
		            strcmp(model, "client-server") == 0 ? SIM_CLIENT_SERVER : SIM_DIRECT;
	struct sim_program *p = sim_program_new(tr);
	struct sim_work *w = p ? sim_work_new(p) : NULL;
	int32_t *bind = malloc(tr->nthreads * sizeof *bind);
	if (!p || !w || !bind) {
		fprintf(stderr, "sim-speed: out of memory\n");
		return 1;
	}
	for (uint32_t i = 0; i < tr->nthreads; i++)
		bind[i] = (int32_t)(i % k);
	/* size the workspace (and build the pairing index) outside the run */
	if (sim_work_reserve(w, &par) != SIM_OK) {
		fprintf(stderr, "sim-speed: out of memory\n");
		return 1;
	}
	struct sim_result res;
	double t0 = now();
	int rc = sim_run(p, w, &par, bind, 0, &res);
	double t = now() - t0;
	char ms[64];
	printf("records %zu threads %u policy %s k %u model %s: status %d makespan %s steps %" PRIu64
	       " events %" PRIu64 " sim %.4f s\n", tr->nrec, tr->nthreads, pol, k,
	       sim_model_name(par.model), rc, sim_time_format(res.makespan, ms, sizeof ms),
	       res.steps, res.events, t);
	free(bind);
	sim_work_free(w);
	sim_program_free(p);
	trace_free(tr);
	free(b.p);
	return 0;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --trace: a trace file under a binding file, REPEAT runs. */
static int run_trace(const char *path, const char *bpath, const char *pol, int repeat)
{
	struct trace *tr = NULL;
	struct trace_error err;
	struct trace_binding bd;
	if (trace_read_file(path, &tr, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	if (trace_binding_read(bpath, tr, &bd, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		trace_free(tr);
		return 2;
	}
	struct sim_params par;
	sim_params_init(&par);
	par.cpus = bd.cpus;
	par.model = SIM_DIRECT;
	if (sim_policy_parse(pol, &par) != 0 || repeat < 1) {
		fprintf(stderr, "sim-speed: bad policy or repeat\n");
		return 1;
	}
	struct sim_program *p = sim_program_new(tr);
	struct sim_work *w = p ? sim_work_new(p) : NULL;
	if (!p || !w || sim_work_reserve(w, &par) != SIM_OK) {
		fprintf(stderr, "sim-speed: out of memory\n");
		return 1;
	}
	double best = 1e300, sum = 0;
	struct sim_result res;
	int rc = 0;
	for (int r = 0; r < repeat; r++) {
		double t0 = cpu_now();
		rc = sim_run(p, w, &par, bd.proc, 0, &res);
		double t = cpu_now() - t0;
		sum += t;
		if (t < best)
			best = t;
	}
	char ms[64];
	printf("%s: %zu records, %u threads, k %u, %s: status %d makespan %s steps %" PRIu64
	       " events %" PRIu64 "; CPU per run best %.2f ms, mean %.2f ms (%d runs); "
	       "%.1f M steps/s, %.1f M events/s\n",
	       path, tr->nrec, tr->nthreads, bd.cpus, pol, rc,
	       sim_time_format(res.makespan, ms, sizeof ms), res.steps, res.events, best * 1e3,
	       sum / repeat * 1e3, repeat, (double)res.steps / best / 1e6,
	       (double)res.events / best / 1e6);
	sim_work_free(w);
	sim_program_free(p);
	trace_binding_release(&bd);
	trace_free(tr);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t max_records = 10000000;
	int repeat = 1, parse_only = 0;
	if (argc >= 4 && strcmp(argv[1], "--trace") == 0)
		return run_trace(argv[2], argv[3], argc > 4 ? argv[4] : "ps",
		                 argc > 5 ? atoi(argv[5]) : 5);
	if (argc == 5 && strcmp(argv[1], "--dump") == 0) {
		struct buf b = {0};
		gen(&b, (uint32_t)strtoul(argv[3], NULL, 10), strtoull(argv[2], NULL, 10));
		FILE *f = fopen(argv[4], "w");
		int bad = !f || fwrite(b.p, 1, b.len, f) != b.len;
		if (f && fclose(f))
			bad = 1;
		free(b.p);
		if (bad)
			fprintf(stderr, "sim-speed: cannot write %s\n", argv[4]);
		return bad ? 4 : 0;
	}
	if (argc >= 6 && strcmp(argv[1], "--one") == 0)
		return run_one(strtoull(argv[2], NULL, 10), (uint32_t)strtoul(argv[3], NULL, 10), argv[4],
		               (uint32_t)strtoul(argv[5], NULL, 10), argc > 6 ? argv[6] : NULL);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--max-records") == 0 && i + 1 < argc)
			max_records = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (strcmp(argv[i], "--parse-only") == 0)
			parse_only = 1;
		else {
			fprintf(stderr, "usage: sim-speed [--max-records N] [--repeat R]\n"
			        "       sim-speed --one RECORDS THREADS POLICY K [MODEL]\n"
			        "       sim-speed --trace TRACE BINDING [POLICY [REPEAT]]\n"
			        "       sim-speed --dump RECORDS THREADS FILE\n"
			        "       sim-speed --parse-only [--max-records N] [--repeat R]\n");
			return 1;
		}
	}
	static const uint64_t sizes[] = {10000, 100000, 1000000, 10000000};
	static const uint32_t threads[] = {4, 64, 1000};
	static const uint32_t ks[] = {2, 8, 64};
	static const char *const pols[] = {"fifo", "rr:500", "ps"};
	struct buf b = {0};
	double worst_parse = 1e300, worst_fifo = 1e300, worst_ps = 1e300, worst_rr = 1e300;
	/* per-model table, printed at the end */
	static const enum sim_model models[] = {SIM_DIRECT, SIM_CLIENT_SERVER, SIM_STRICT};
	static const char *const mpols[] = {"fifo", "ps"};
	struct mrow {
		uint64_t nrec;
		uint32_t threads;
		double prep;              /* the recorded pairing, s     */
		double t[2][3];           /* [policy][model] best run, s */
		uint64_t steps[2][3];
		int rc[2][3];
	} mrows[16];
	size_t nmrows = 0;
	long direct_rss = 0, direct_text = 0; /* MB */
	int per_trace = 1; /* the peak restarts for each trace */
	printf("%-9s %-7s %8s %9s | %-7s %3s %10s %9s %12s\n", "records", "threads", "MB", "parse MB/s",
	       "policy", "k", "steps", "sim s", "steps/s");
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		if (sizes[si] > max_records)
			break;
		for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
			/* each trace's peak alone: the earlier traces' pairing
			 * runs (below) must not count in the Direct model's */
			if (hwm_reset() != 0)
				per_trace = 0;
			gen(&b, threads[ti], sizes[si]);
			struct trace *tr = NULL;
			struct trace_error err;
			double best = 1e300;
			for (int r = 0; r < repeat; r++) {
				trace_free(tr);
				tr = NULL;
				double t0 = now();
				if (trace_read_mem("bench.trace", b.p, b.len, &tr, &err) != 0) {
					fprintf(stderr, "%s\n", err.msg);
					return 2;
				}
				double t = now() - t0;
				if (t < best)
					best = t;
			}
			double mbps = (double)b.len / 1e6 / best;
			if (sizes[si] >= 100000 && mbps < worst_parse)
				worst_parse = mbps;
			if (parse_only) {
				printf("%-9zu %-7u %8.1f %9.0f\n", tr->nrec, tr->nthreads,
				       (double)b.len / 1e6, mbps);
				trace_free(tr);
				continue;
			}
			struct sim_program *p = sim_program_new(tr);
			struct sim_work *w = p ? sim_work_new(p) : NULL;
			if (!p || !w) {
				fprintf(stderr, "sim-speed: out of memory\n");
				return 1;
			}
			int32_t *bind = malloc(tr->nthreads * sizeof *bind);
			for (size_t pi = 0; pi < 3; pi++) {
				for (size_t ki = 0; ki < 3; ki++) {
					struct sim_params par;
					sim_params_init(&par);
					sim_policy_parse(pols[pi], &par);
					par.cpus = ks[ki];
					for (uint32_t i = 0; i < tr->nthreads; i++)
						bind[i] = (int32_t)(i % ks[ki]);
					struct sim_result res;
					double sbest = 1e300;
					int rc = 0;
					for (int r = 0; r < repeat; r++) {
						double t0 = now();
						rc = sim_run(p, w, &par, bind, 0, &res);
						double t = now() - t0;
						if (t < sbest)
							sbest = t;
					}
					double eps = (double)res.steps / sbest;
					if (sizes[si] >= 100000) {
						double *worst = pi == 0 ? &worst_fifo : pi == 1 ? &worst_rr : &worst_ps;
						if (eps < *worst)
							*worst = eps;
					}
					printf("%-9" PRIu64 " %-7u %8.1f %9.0f | %-7s %3u %10" PRIu64 " %9.4f %12.0f%s\n",
					       (uint64_t)tr->nrec, tr->nthreads, (double)b.len / 1e6, mbps, pols[pi], ks[ki],
					       res.steps, sbest, eps,
					       rc == SIM_OK ? "" : rc == SIM_DEADLOCK ? " DEADLOCK" : " ERROR");
					fflush(stdout);
				}
			}
			long m = per_trace ? hwm_mb() : peak_rss_mb();
			if (m < 0) {
				per_trace = 0;
				m = peak_rss_mb();
			}
			if (m > direct_rss) {
				direct_rss = m;
				direct_text = (long)(b.len >> 20);
			}
			/* each model: fifo and ps on k = 8 */
			if (nmrows < sizeof mrows / sizeof mrows[0]) {
				struct sim_params sp;
				sim_params_init(&sp);
				sp.cpus = 8;
				sp.model = SIM_STRICT;
				double tp = now();
				if (sim_work_reserve(w, &sp) != SIM_OK) {
					fprintf(stderr, "sim-speed: out of memory\n");
					return 1;
				}
				tp = now() - tp;
				struct mrow *mr = &mrows[nmrows++];
				mr->nrec = (uint64_t)tr->nrec;
				mr->threads = tr->nthreads;
				mr->prep = tp;
				for (size_t pi = 0; pi < 2; pi++) {
					for (size_t mi = 0; mi < 3; mi++) {
						struct sim_params par;
						sim_params_init(&par);
						sim_policy_parse(mpols[pi], &par);
						par.cpus = 8;
						par.model = models[mi];
						for (uint32_t i = 0; i < tr->nthreads; i++)
							bind[i] = (int32_t)(i % 8);
						struct sim_result res;
						double sbest = 1e300;
						int rc = 0;
						/* the first pairing-model run allocates its state:
						 * time the best of R + 1 runs */
						for (int r = 0; r <= repeat; r++) {
							double t0 = now();
							rc = sim_run(p, w, &par, bind, 0, &res);
							double t = now() - t0;
							if (t < sbest)
								sbest = t;
						}
						mr->t[pi][mi] = sbest;
						mr->steps[pi][mi] = res.steps;
						mr->rc[pi][mi] = rc;
					}
				}
			}
			free(bind);
			sim_work_free(w);
			sim_program_free(p);
			trace_free(tr);
		}
	}
	if (parse_only) {
		printf("worst over traces of >= 1e5 records: parse %.0f MB/s (goal 500)\n", worst_parse);
		free(b.p);
		return 0;
	}
	printf("\nper model (k = 8; time relative to direct on the same policy):\n");
	printf("%-9s %-7s %9s | %-7s %-13s %10s %9s %12s %7s\n", "records", "threads", "pairing s",
	       "policy", "model", "steps", "sim s", "steps/s", "vs dir");
	for (size_t i = 0; i < nmrows; i++) {
		const struct mrow *mr = &mrows[i];
		for (size_t pi = 0; pi < 2; pi++) {
			for (size_t mi = 0; mi < 3; mi++) {
				printf("%-9" PRIu64 " %-7u %9.4f | %-7s %-13s %10" PRIu64 " %9.4f %12.0f %6.2fx%s\n",
				       mr->nrec, mr->threads, mr->prep, mpols[pi], sim_model_name(models[mi]),
				       mr->steps[pi][mi], mr->t[pi][mi],
				       (double)mr->steps[pi][mi] / mr->t[pi][mi],
				       mr->t[pi][mi] / mr->t[pi][0],
				       mr->rc[pi][mi] == SIM_OK ? "" : mr->rc[pi][mi] == SIM_DEADLOCK ? " DEADLOCK" : " ERROR");
			}
		}
	}
	if (worst_parse == 1e300) /* --max-records below 1e5 */
		printf("\nworst over traces of >= 1e5 records: none measured (--max-records)\n");
	else
		printf("\nworst over traces of >= 1e5 records: parse %.0f MB/s (goal 500), "
		       "fifo %.2f M steps/s (goal 15), rr %.2f M steps/s, ps %.2f M steps/s (goal 5)\n",
		       worst_parse, worst_fifo / 1e6, worst_rr / 1e6, worst_ps / 1e6);
	if (per_trace)
		printf("peak resident memory with the Direct model, largest over the traces (each "
		       "measured alone: text, parse, program, runs): %ld MB, of which %ld MB is the "
		       "trace's text the benchmark holds (goal: 10^7 records under 500 MB); "
		       "%ld MB over the whole run with the pairing models\n",
		       direct_rss, direct_text, peak_rss_mb());
	else
		printf("peak resident memory %ld MB after the Direct runs (since the start: the "
		       "peak could not be restarted per trace; goal: 10^7 records under 500 MB), "
		       "%ld MB with the pairing models\n", direct_rss, peak_rss_mb());
	free(b.p);
	return 0;
}
