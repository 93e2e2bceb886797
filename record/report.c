/*
 * report.c - what shadowbind-record says about a recording (record.h:
 * rec_stats_read, rec_spin_scan, rec_report_make, rec_report_print;
 * docs/record.md "The recorder's cost", "CPU accounting", "Distortion and spinning").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "record/recint.h"

int rec_stats_read(const char *path, struct rec_stats *st, struct trace_error *err)
{
	memset(st, 0, sizeof *st);
	FILE *f = fopen(path, "r");
	if (!f)
		return rec_fail(err, "%s: %s", path, strerror(errno));
	char line[256];
	static const struct {
		const char *key;
		size_t off;
	} scalars[] = {
		{"clock_fast", offsetof(struct rec_stats, clock_fast)},
		{"read_fast_ns", offsetof(struct rec_stats, read_fast_ns)},
		{"read_syscall_ns", offsetof(struct rec_stats, read_syscall_ns)},
		{"calibration_ns", offsetof(struct rec_stats, calibration_ns)},
		{"subtracted_ns", offsetof(struct rec_stats, subtracted_ns)},
		{"slow_reads", offsetof(struct rec_stats, slow_reads)},
		{"check_n", offsetof(struct rec_stats, check_n)},
		{"check_err_ns", offsetof(struct rec_stats, check_err_ns)},
		{"process_cpu_ns", offsetof(struct rec_stats, process_cpu_ns)},
		{"process_cpu_written_ns", offsetof(struct rec_stats, process_cpu_written_ns)},
		{"children_cpu_ns", offsetof(struct rec_stats, children_cpu_ns)},
		{"checked", offsetof(struct rec_stats, checked)},
		{"omp_wait_ns", offsetof(struct rec_stats, omp_wait_ns)},
		{"buffers_mapped", offsetof(struct rec_stats, buffers_mapped)},
		{"buffers_reused", offsetof(struct rec_stats, buffers_reused)},
	};
	static const struct {
		const char *prefix;
		size_t off;
	} perop[] = {
		{"calls_", offsetof(struct rec_stats, calls)},
		{"excl_", offsetof(struct rec_stats, excl)},
		{"resid_", offsetof(struct rec_stats, resid)},
		{"check_", offsetof(struct rec_stats, check)},
		{"gap_", offsetof(struct rec_stats, gap)},
	};
	while (fgets(line, sizeof line, f)) {
		char key[128];
		long long v;
		if (sscanf(line, "%127s %lld", key, &v) != 2)
			continue;
		int done = 0;
		for (size_t i = 0; i < sizeof scalars / sizeof *scalars && !done; i++)
			if (!strcmp(key, scalars[i].key)) {
				*(int64_t *)((char *)st + scalars[i].off) = v;
				done = 1;
			}
		for (size_t i = 0; i < sizeof perop / sizeof *perop && !done; i++) {
			size_t pl = strlen(perop[i].prefix);
			if (strncmp(key, perop[i].prefix, pl))
				continue;
			for (int op = 0; op < TRACE_NOPS; op++)
				if (!strcmp(key + pl, trace_ops[op].name)) {
					((int64_t *)((char *)st + perop[i].off))[op] = v;
					done = 1;
					break;
				}
		}
	}
	fclose(f);
	st->have = 1;
	return 0;
}

/* Is record r (of thread-major trace tr) one try of a retry loop, and on
 * what: *key = kind << 32 | object for failed tries, ~0 for yields and
 * short sleeps. */
static int spin_step(const struct trace_rec *r, uint64_t poll_ns, uint64_t *key)
{
	switch (r->op) {
	case TRACE_TRYLOCK:
	case TRACE_TRYWAIT:
		if (r->b)
			return 0;
		*key = (uint64_t)r->op << 32 | r->a;
		return 1;
	case TRACE_SLEEP:
		if (trace_sleep_time(r) > poll_ns)
			return 0;
		*key = UINT64_MAX;
		return 1;
	default:
		return 0;
	}
}

/* The polls before a block of thread th (rec_spin_as_wait's rule, from
 * the wait backwards): `unlock M`, failed tries of M (short sleeps
 * between them), the acquisition (a trylock, or a lock after failed
 * tries), `cwait C M`.  Those with fewer than two failed tries, which
 * no retry loop counts, add their work to out->work. */
static void poll_scan(const struct trace *tr, const struct trace_thread *th, uint64_t poll,
                      struct rec_spin *out)
{
	const struct trace_rec *R = &tr->rec[th->first];
	for (uint32_t j = 2; j < th->nrec; j++) {
		if (R[j].op != TRACE_CWAIT)
			continue;
		uint32_t m = R[j].b, s = j - 1;
		if (!((R[s].op == TRACE_TRYLOCK && R[s].b) || R[s].op == TRACE_LOCK) || R[s].a != m)
			continue;
		uint32_t k = s, fails = 0;
		uint64_t w = R[s].work, key;
		while (k > 0 && spin_step(&R[k - 1], poll, &key) &&
		       (R[k - 1].op == TRACE_SLEEP || (R[k - 1].op == TRACE_TRYLOCK && R[k - 1].a == m))) {
			k--;
			w += R[k].work;
			fails += R[k].op == TRACE_TRYLOCK;
		}
		while (k < s && R[k].op == TRACE_SLEEP) /* sleeps before the first try */
			w -= R[k++].work;
		if (!rec_poll_before_block(tr, th, k, s))
			continue;
		out->blocked_polls++;
		if (fails < 2) {
			out->blocked_work += w;
			out->work += w;
		}
	}
}

void rec_spin_scan(const struct trace *tr, uint64_t poll, struct rec_spin *out)
{
	memset(out, 0, sizeof *out);
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		const struct trace_thread *th = &tr->threads[i];
		uint32_t run = 0;
		uint64_t runkey = 0, runwork = 0;
		for (uint32_t j = 0; j <= th->nrec; j++) {
			uint64_t key = 0;
			const struct trace_rec *r = j < th->nrec ? &tr->rec[th->first + j] : NULL;
			int step = r && spin_step(r, poll, &key);
			if (step && run && key == runkey) {
				run++;
				runwork += r->work;
				continue;
			}
			/* a run of two or more tries ends here: the record that
			 * ends it (the success) was its last iteration */
			if (run >= 2) {
				out->loops++;
				out->tries += run;
				out->work += runwork + (r ? r->work : 0);
			}
			run = 0;
			runwork = 0;
			if (step) {
				run = 1;
				runkey = key;
				runwork = r->work;
			}
		}
		poll_scan(tr, th, poll, out);
		for (uint32_t j = 0; j < th->nrec; j++) {
			const struct trace_rec *r = &tr->rec[th->first + j];
			if (r->op == TRACE_TRYLOCK && !r->b)
				out->busy_trylock++;
			else if (r->op == TRACE_TRYWAIT && !r->b)
				out->busy_trywait++;
			else if (r->op == TRACE_SLEEP && trace_sleep_time(r) == 0)
				out->yields++;
			else if (r->op == TRACE_SLEEP && trace_sleep_time(r) <= poll)
				out->polls++;
		}
	}
	out->total = trace_total_work(tr);
}

void rec_report_make(const struct trace *tr, const struct rec_stats *st, const struct rec_run *run,
                     struct rec_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->records = tr->nrec;
	rep->threads = tr->nthreads;
	/* the recorder writes unit ns */
	rep->work_ns = trace_total_work(tr);
	rep->wall_ns = run->wall_ns;
	rep->cpu_ns = run->cpu_ns;
	rep->one_cpu = run->one_cpu;
	rep->ivcsw = run->ivcsw;
	rep->check_ncpu = run->check_ncpu;
	rep->check_wall_ns = run->check_wall_ns;
	rep->check_cpu_ns = run->check_cpu_ns;
	if (rep->work_ns)
		rep->rate = (double)rep->records / ((double)rep->work_ns / 1e9);
	if (st && st->have) {
		rep->have_stats = 1;
		rep->clock_fast = (int)st->clock_fast;
		rep->read_ns = (uint64_t)(st->clock_fast ? st->read_fast_ns : st->read_syscall_ns);
		rep->read_syscall_ns = (uint64_t)st->read_syscall_ns;
		rep->slow_reads = st->slow_reads > 0 ? (uint64_t)st->slow_reads : 0;
		int64_t excl = 0, calls = 0;
		double drift = 0, ilp = 0;
		for (int op = 0; op < TRACE_NOPS; op++) {
			excl += st->excl[op];
			calls += st->calls[op];
			if (st->checked) {
				int64_t d = st->check[op] - st->resid[op];
				drift += (double)st->calls[op] * (double)(d < 0 ? -d : d);
				/* the subtraction (calls back to back) less what
				 * a program's code may hide of it */
				int64_t b = st->resid[op] - (st->gap[op] > 0 ? st->gap[op] : 0);
				ilp += (double)st->calls[op] * (double)(b < 0 ? -b : b);
			}
		}
		rep->excluded_ns = (uint64_t)excl;
		rep->buffers_mapped = st->buffers_mapped > 0 ? (uint64_t)st->buffers_mapped : 0;
		rep->buffers_reused = st->buffers_reused > 0 ? (uint64_t)st->buffers_reused : 0;
		int64_t te = st->excl[TRACE_CREATE] + st->excl[TRACE_EXIT];
		rep->thread_excl_ns = te > 0 ? (uint64_t)te : 0;
		rep->subtracted_ns = st->subtracted_ns;
		rep->calibration_ns = (uint64_t)st->calibration_ns;
		if (calls) {
			rep->recorder_per_call_ns = ((double)excl + (double)st->subtracted_ns) / (double)calls;
			/* what the subtraction may be off by: the calibration's
			 * drift from start to end, and how much of the wrapper
			 * a program's own code may hide (docs/record.md) */
			rep->resid_ns = (drift + ilp) / (double)calls;
			if (st->check_n)
				rep->clock_err_ns = (double)st->check_err_ns / (double)st->check_n;
		}
		if (rep->work_ns)
			rep->resid_share = rep->resid_ns * (double)rep->records / (double)rep->work_ns;
		rep->process_cpu_ns = (uint64_t)st->process_cpu_ns;
		rep->write_ns = st->process_cpu_written_ns > st->process_cpu_ns
		                ? (uint64_t)(st->process_cpu_written_ns - st->process_cpu_ns) : 0;
		/* CPU time of the process = recorded work + the recorder's own
		 * (excluded, subtracted, calibration, writing the trace) + what
		 * no record holds */
		rep->omp_wait_ns = st->omp_wait_ns > 0 ? (uint64_t)st->omp_wait_ns : 0;
		int64_t known = (int64_t)rep->work_ns + (int64_t)rep->excluded_ns + rep->subtracted_ns +
		                (int64_t)rep->calibration_ns + (int64_t)rep->write_ns +
		                (int64_t)rep->omp_wait_ns;
		if (run->cpu_ns)
			rep->unaccounted_ns = (int64_t)run->cpu_ns - known;
	}
	rec_spin_scan(tr, REC_POLL_NS, &rep->spin);
}

int64_t rec_correct(struct trace *tr, int64_t excess)
{
	if (!tr->nrec || !excess)
		return 0;
	int add = excess < 0;
	uint64_t e = add ? 0 - (uint64_t)excess : (uint64_t)excess, moved = 0;
	unsigned __int128 n = tr->nrec;
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		const struct trace_thread *th = &tr->threads[i];
		uint64_t owed = 0;
		for (uint32_t j = 0; j < th->nrec; j++) {
			size_t k = th->first + j;
			owed += (uint64_t)((unsigned __int128)e * (k + 1) / n - (unsigned __int128)e * k / n);
			struct trace_rec *r = &tr->rec[k];
			uint64_t g = add || r->work >= owed ? owed : r->work;
			r->work = add ? r->work + g : r->work - g;
			owed -= g;
			moved += g;
		}
	}
	return add ? -(int64_t)moved : (int64_t)moved;
}

int64_t rec_correction(const struct rec_report *rep, uint64_t ref_cpu_ns, int64_t *target,
                       int64_t *excess, enum rec_corr_why *why)
{
	*target = (int64_t)ref_cpu_ns - rep->unaccounted_ns;
	*excess = (int64_t)rep->work_ns - *target;
	if (!rep->have_stats) {
		*why = REC_CORR_NOSTATS;
		return 0;
	}
	if (*target <= 0 || 2 * *excess > (int64_t)rep->work_ns) {
		*why = REC_CORR_UNLIKE;
		return 0;
	}
	if (!*excess) {
		*why = REC_CORR_NONE;
		return 0;
	}
	/* what the recorder can have left in the work, and taken out of it */
	int64_t most = rec_own_cost(rep), least = rep->subtracted_ns > 0 ? -rep->subtracted_ns : 0;
	*why = REC_CORR_OK;
	if (*excess > most || *excess < least) {
		*why = REC_CORR_CAPPED;
		return *excess > most ? most : least;
	}
	return *excess;
}

int64_t rec_own_cost(const struct rec_report *rep)
{
	return (int64_t)rep->excluded_ns + (rep->subtracted_ns > 0 ? rep->subtracted_ns : 0);
}

int rec_correct_worth(const struct rec_report *rep)
{
	return rep->have_stats && rep->work_ns &&
	       100 * (double)rec_own_cost(rep) >= REC_CORRECT_MIN_PCT * (double)rep->work_ns;
}

static double pct(double a, double b)
{
	return b > 0 ? 100.0 * a / b : 0;
}

enum rec_mode_advice rec_mode_advice(uint64_t work_ns, uint64_t check_cpu_ns, uint32_t threads)
{
	if (!work_ns || !check_cpu_ns)
		return REC_ADVICE_NONE;
	/* |work - cpu| <= REC_CHECK_PCT % of cpu, in integers */
	uint64_t d = work_ns > check_cpu_ns ? work_ns - check_cpu_ns : check_cpu_ns - work_ns;
	if ((unsigned __int128)d * 100 <= (unsigned __int128)check_cpu_ns * REC_CHECK_PCT)
		return REC_ADVICE_NONE;
	/* threads x REC_THREAD_MODEL_NS over REC_MODE_MODEL_PCT % of the work */
	if ((unsigned __int128)threads * REC_THREAD_MODEL_NS * 100 >
	    (unsigned __int128)work_ns * REC_MODE_MODEL_PCT)
		return REC_ADVICE_ONE_CPU;
	return REC_ADVICE_ALL_CPUS;
}

int rec_report_print(FILE *f, const char *who, const struct rec_report *r)
{
	int warned = 0;
	double work_s = (double)r->work_ns / 1e9;
	if (r->have_stats) {
		/* each context switch costs the fast clock one exact read */
		char sw[128] = "";
		if (r->clock_fast && r->slow_reads)
			snprintf(sw, sizeof sw, "; %" PRIu64 " exact reads after context switches, %" PRIu64 " ns each",
			         r->slow_reads, r->read_syscall_ns);
		fprintf(f, "%s: %" PRIu64 " records, %.3g per CPU-second of recorded work; clock: %s (%" PRIu64
		        " ns per read%s); the recorder's own cost %.0f ns per call (excluded and subtracted), "
		        "estimated residual %.1f ns per record (%.2f%% of the work)\n",
		        who, r->records, r->rate,
		        r->clock_fast == REC_CLOCK_RSEQ   ? "TSC between context switches, seen by rseq"
		        : r->clock_fast                   ? "TSC between context switches, seen by a perf event"
		                                          : "thread CPU clock (system call)",
		        r->read_ns, sw,
		        r->recorder_per_call_ns, r->resid_ns, 100 * r->resid_share);
		if (r->corrected) {
			/* measured against the program itself (--correct) */
			double m = (double)(r->corrected_ns < 0 ? -r->corrected_ns : r->corrected_ns);
			fprintf(f, "%s: the recorder's residual (estimated at %.1f%% of the work) was measured "
			        "against unrecorded runs of the program (--correct): %.1f ns per record %s, "
			        "%.1f%% of the recorded work\n", who, 100 * r->resid_share,
			        r->records ? m / (double)r->records : 0,
			        r->corrected_ns < 0 ? "added" : "taken out", pct(m, (double)r->work_ns));
		} else if (r->resid_share > 0.02) {
			fprintf(f, "%s: warning: the recorder's residual cost may be %.1f%% of the recorded work "
			        "(%.3g records per CPU-second): predictions from this trace may be that much too long "
			        "or short (--correct measures it with an unrecorded run and takes it out)\n", who,
			        100 * r->resid_share, r->rate);
			warned = 1;
		}
		if (r->cpu_ns) {
			double un = (double)r->unaccounted_ns;
			double aun = un < 0 ? -un : un; /* units: ns */
			/* a thread per task: what is in no record may be its
			 * threads' starts and ends */
			int per_task = un > 0 && r->threads >= 100;
			char omp[64] = "";
			if (r->omp_wait_ns)
				snprintf(omp, sizeof omp, " + libgomp's waits %.3f s", (double)r->omp_wait_ns / 1e9);
			/* per thread: what each thread runs outside its records
			 * (the kernel's and glibc's start before the recorder's
			 * clock, its end after its exit record) lands here too:
			 * threadtask, 2,000 and 8,000 threads, 15-18 us each */
			char per[96] = "";
			if (per_task)
				snprintf(per, sizeof per, ", %.1f us per thread of %" PRIu32, un / 1e3 / r->threads,
				         r->threads);
			fprintf(f, "%s: CPU time of the process %.3f s = recorded work %.3f s + recorder %.3f s%s "
			        "+ in no record %+.3f s (%.1f%%%s: the threads' start and end outside their "
			        "records, threads the recorder did not know, children reaped after the trace)\n",
			        who, (double)r->cpu_ns / 1e9, work_s,
			        (double)(r->excluded_ns + r->calibration_ns + r->write_ns + (uint64_t)(r->subtracted_ns > 0 ? r->subtracted_ns : 0)) / 1e9,
			        omp, un / 1e9, pct(aun, (double)r->cpu_ns), per);
			/* a thread per task: what the recorder spent on each
			 * thread (its set-up, its buffer, its end), out of the
			 * trace, and how few buffers it mapped (docs/record.md,
			 * Buffers) */
			if (per_task && r->buffers_mapped)
				fprintf(f, "%s: per thread: the recorder's set-up and end %.1f us (excluded, not "
				        "work); %" PRIu64 " buffers mapped for %" PRIu32 " threads (%" PRIu64
				        " opened again from threads that had ended)\n",
				        who, (double)r->thread_excl_ns / 1e3 / r->threads, r->buffers_mapped,
				        r->threads, r->buffers_reused);
			if (aun > 0.05 * (double)r->cpu_ns && aun > 10e6) {
				fprintf(f, "%s: warning: %.0f%% of the process's CPU time is in no record: the trace "
				        "%s the program's work%s (docs/record.md, CPU accounting)\n",
				        who, pct(aun, (double)r->cpu_ns), un > 0 ? "misses part of" : "overstates",
				        per_task && un / r->threads <= REC_THREAD_END_NS
				        ? "; most of it may be its threads' starts and ends (about 15-20 us each here), "
				          "which a program creating a thread per task pays and predictions leave out"
				        : "");
				warned = 1;
			}
		}
	}
	const struct rec_spin *s = &r->spin;
	double sh = pct((double)s->work, (double)s->total);
	int spin_warn = sh >= 10 || (!r->one_cpu && s->loops >= REC_SPIN_MULTI_LOOPS);
	if ((s->loops || s->blocked_polls) && sh >= 1) {
		fprintf(f, "%s: %s: %.1f%% of the recorded work is in %" PRIu64 " retry loops (%" PRIu64
		        " failed trylock, %" PRIu64 " failed trywait, %" PRIu64 " yields, %" PRIu64
		        " polls of at most %d us) and %" PRIu64 " polls before a block (unlock, trylock, "
		        "condition wait)%s\n", who, spin_warn ? "warning: spinning" : "spinning", sh,
		        s->loops, s->busy_trylock, s->busy_trywait, s->yields, s->polls, REC_POLL_NS / 1000,
		        s->blocked_polls,
		        r->one_cpu ? (sh < 10 ? ""
		                      : ": on one processor a spinning thread burns its time slice while the "
		                        "thread it waits for cannot run, and predictions for more processors "
		                        "inherit that schedule; record on as many CPUs as threads (--all-cpus) "
		                        "(docs/record.md, Distortion and spinning)")
		                   : ": --spin-as-wait replays them as the waits they stand for, and the "
		                     "simulator's --spin (the spin --spin-as-wait prints) makes a poll after "
		                     "the thread's own unlock spin where its processor is shared; predictions "
		                     "for fewer processors than threads still leave out the rest of what "
		                     "spinning costs where threads share one: the spinning of retry loops "
		                     "elsewhere, and polls the program makes only when slowed, which this "
		                     "recording does not hold (docs/record.md, Distortion and spinning)");
		warned |= spin_warn;
	}
	if (r->one_cpu && !r->check_ncpu && r->ivcsw >= REC_PREEMPT_MIN &&
	    r->ivcsw > REC_PREEMPT_PER_RECORD * r->records) {
		/* --check, when it ran, measured instead of guessing */
		fprintf(f, "%s: warning: the program's threads were preempted %" PRIu64 " times in %" PRIu64
		        " records (%.1f per record): they ran whole time slices without a synchronization call. "
		        "If a thread waits by polling memory (a flag spin: a volatile flag, an OpenMP flush loop; "
		        "the recorder cannot see it), on one processor it burns its time slice while the thread "
		        "it waits for cannot run, and the trace counts the polling as work (NAS LU: 100x); "
		        "--check compares with an unrecorded run on every CPU, or record on as many CPUs as "
		        "threads (--all-cpus) (docs/record.md, Distortion and spinning)\n",
		        who, r->ivcsw, r->records, r->records ? (double)r->ivcsw / (double)r->records : 0.0);
		warned = 1;
	}
	if (r->one_cpu && r->omp_wait_ns * 100 > REC_OMP_WAIT_PCT * r->work_ns) {
		fprintf(f, "%s: warning: on one processor the program spent %.3f s in libgomp's waits, %.0f%% "
		        "of its recorded work: the trace leaves them out (they wait), but where threads share "
		        "a processor each wait costs a sleep, a wake-up and context switches, so predictions "
		        "for fewer processors than threads are that much too short (SHADOWBIND_WAIT_WORK=1 "
		        "records them as work, for those predictions) (docs/record.md, Distortion and spinning)\n",
		        who, (double)r->omp_wait_ns / 1e9, pct((double)r->omp_wait_ns, (double)r->work_ns));
		warned = 1;
	}
	if (r->check_ncpu && r->check_cpu_ns) {
		/* the recorded work against the program's own CPU time */
		double ratio = (double)r->work_ns / (double)r->check_cpu_ns;
		fprintf(f, "%s: --check: unrecorded on %d CPUs the program used %.3f s of CPU (%.3f s wall); "
		        "the trace holds %.3f s of work (%+.1f%%)\n", who, r->check_ncpu,
		        (double)r->check_cpu_ns / 1e9, (double)r->check_wall_ns / 1e9, work_s,
		        100 * (ratio - 1));
		if (ratio > 2 && r->one_cpu) {
			fprintf(f, "%s: warning: recorded on one processor the program worked %.1fx its own CPU "
			        "time: it waits by spinning (on one processor a spinning thread burns its time "
			        "slice while the thread it waits for cannot run); record on as many CPUs as it has "
			        "threads (--all-cpus) (docs/record.md, Distortion and spinning)\n", who, ratio);
			warned = 1;
		} else if (ratio > 1 + REC_CHECK_PCT / 100.0 || ratio < 1 - REC_CHECK_PCT / 100.0) {
			/* the advice follows bench/validate's mode probe */
			enum rec_mode_advice adv = r->one_cpu ? rec_mode_advice(r->work_ns, r->check_cpu_ns, r->threads)
			                                      : REC_ADVICE_NONE;
			fprintf(f, "%s: warning: the trace's work differs from the program's own CPU time by "
			        "%+.0f%%%s: predictions inherit it (docs/record.md, Distortion and spinning)\n", who,
			        100 * (ratio - 1),
			        adv == REC_ADVICE_ONE_CPU
			        ? " (its threads' creations, starts and ends on other processors are a large part "
			          "of its CPU time there, and a machine file's remote costs add them to predictions: "
			          "keep this trace, a recording on several processors would hold them twice)"
			        : adv != REC_ADVICE_ALL_CPUS ? ""
			        : ratio > 1 ? " (threads time-sliced on one processor share its "
			                      "caches; for predictions on several processors record "
			                      "with --all-cpus on them, which runs the threads side by "
			                      "side; keep this trace for one processor)"
			                    : " (threads side by side cost each other more, e.g. wake-ups across "
			                      "processors; for predictions on several processors record with "
			                      "--all-cpus on them; keep this trace for one processor)");
			warned = 1;
		}
	}
	return warned;
}
