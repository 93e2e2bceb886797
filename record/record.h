/*
 * record.h - the recorder's and launcher's library side (docs/record.md):
 * what bin/shadowbind-record and bin/shadowbind-run need besides the
 * LD_PRELOAD library (record/preload/, built into
 * libshadowbind-record.so, never into this library).
 *
 * No global state (except the child's pid that rec_wait keeps for its
 * signal handler while it waits, as cli/out.h keeps its signal flag);
 * nothing prints.  Functions that can fail return 0 or
 * -1 with a one-line reason in `err` (struct trace_error's msg).
 */
#ifndef SHADOWBIND_RECORD_H
#define SHADOWBIND_RECORD_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "trace/trace.h"

/* Name of the preload library, next to the commands. */
#define REC_PRELOAD_NAME "libshadowbind-record.so"

/*
 * rec_preload_path - where the preload library is: $SHADOWBIND_PRELOAD if
 * set, else next to the running executable (/proc/self/exe), else
 * ../lib/shadowbind/ from it (an installed layout).  Fills buf (absolute
 * path) and returns 0, or -1 with the reason in err.
 */
int rec_preload_path(char *buf, size_t len, struct trace_error *err);

/* What rec_inspect finds out about a program before running it. */
struct rec_program {
	char path[4096];  /* resolved through PATH                           */
	int is_elf;       /* an ELF file we could read                       */
	int is_static;    /* no program interpreter: LD_PRELOAD cannot work  */
	int uses_gomp;    /* needs libgomp (OpenMP: raw futex barriers)      */
};

/*
 * rec_inspect - resolve `prog` (as execvp would) and read its ELF headers.
 * Returns 0 and fills *out, or -1 (not found / not executable) with err.
 * A file that is not ELF (a script) gives is_elf = 0 and no further facts.
 */
int rec_inspect(const char *prog, struct rec_program *out, struct trace_error *err);

/*
 * rec_pins_from_binding - read the binding file at `path` (its thread
 * lines give the threads; the official reader validates it) and produce
 * the SHADOWBIND_PIN value: the OS CPU of thread 1, 2, ... up to the
 * largest id, comma-separated, `-` for ids the binding does not name.
 * Logical processor p runs on OS CPU map[p] (the `map` line) or p.
 * `allowed` is the set of CPUs this process may use: a binding needing
 * more processors than it holds, or mapped to a CPU outside it, is an
 * error.  *pins is malloc'd (free it); *nthreads the threads named.
 */
int rec_pins_from_binding(const char *path, const cpu_set_t *allowed, char **pins,
                          uint32_t *nthreads, struct trace_error *err);

/*
 * rec_tree_from_trace - the SHADOWBIND_TREE value for the trace at `path`
 * (read and validated): for each thread that creates threads, in
 * increasing id, `P:C1,C2,...;` its children's ids in the order it created
 * them.  With it the launcher numbers a new thread by its creator and the
 * creator's count of creates, not by global creation order (which differs
 * between runs when several threads create threads).  *tree is malloc'd
 * (free it).  0, or -1 with err.
 */
int rec_tree_from_trace(const char *path, char **tree, struct trace_error *err);

/* Number of CPUs in the set, and its first CPU (-1 if empty). */
int rec_cpu_count(const cpu_set_t *s);
int rec_cpu_first(const cpu_set_t *s);

/*
 * rec_spawn - run argv[0] (resolved path `path`) with `extra` added to the
 * environment (NAME=VALUE strings, NULL-terminated; LD_PRELOAD is put in
 * front of an existing one) in a child process.  Returns its pid, or -1
 * with err.
 */
pid_t rec_spawn(const char *path, char *const argv[], char *const extra[],
                struct trace_error *err);

/*
 * rec_pin_env - the environment that pins a program's threads as the
 * binding at `binding` says (shadowbind-run, and a bound recording):
 * env[0] = "SHADOWBIND_PIN=..." (rec_pins_from_binding) and, with `trace`
 * (number threads by their creator), env[1] = "SHADOWBIND_TREE=..."
 * (rec_tree_from_trace), else NULL; both malloc'd (free them).  Returns
 * 0; or -1 (bad binding or trace) or -2 (out of memory) with env[] NULL
 * and the reason in err.
 */
int rec_pin_env(const char *binding, const char *trace, const cpu_set_t *allowed,
                char *env[2], struct trace_error *err);
/*
 * rec_wait - wait for pid; forwards SIGINT and SIGTERM sent to us to the
 * child meanwhile.  Returns the exit status in shell form (0..255, or
 * 128 + signal) and the elapsed wall time in *ns (may be NULL).
 * rec_wait_cpu also gives the CPU time (user + system) of the child and
 * the children it waited for, in *cpu_ns (may be NULL).
 */
int rec_wait(pid_t pid, uint64_t *ns);
int rec_wait_cpu(pid_t pid, uint64_t *ns, uint64_t *cpu_ns);

/* ---------------------------------------------------------------------
 * What shadowbind-record says about a recording (docs/record.md, "The
 * recorder's cost", "CPU accounting", "Spinning").
 */

/* The preload library's figures (the file TRACE.stats it writes next to
 * the trace).  Units: ns, counts. */
struct rec_stats {
	int have;                    /* read                                  */
	int64_t clock_fast;          /* 1: TSC between context switches       */
	int64_t read_fast_ns, read_syscall_ns; /* one clock read; ns          */
	int64_t calibration_ns;      /* CPU time of the calibrations; ns      */
	int64_t subtracted_ns;       /* calibrated cost subtracted; ns        */
	int64_t slow_reads;          /* reads that needed the system call     */
	int64_t check_n, check_err_ns; /* TSC extrapolations checked; ns      */
	int64_t process_cpu_ns;      /* the process's CPU time before the
	                                trace was written; ns                 */
	int64_t process_cpu_written_ns; /* after; ns                          */
	int64_t checked;             /* 1: the calibration was repeated       */
	int64_t calls[TRACE_NOPS];   /* wrapper calls per kind                */
	int64_t excl[TRACE_NOPS];    /* the recorder's spans excluded; ns     */
	int64_t resid[TRACE_NOPS];   /* subtracted per call (start); ns       */
	int64_t check[TRACE_NOPS];   /* the same measured at the end; ns      */
	int64_t b2b[TRACE_NOPS];     /* at the end, calls back to back; ns    */
};

/*
 * rec_stats_read - read the statistics file at path into *st (zeroed
 * first; unknown keys are ignored).  0, or -1 with err (st->have 0).
 */
int rec_stats_read(const char *path, struct rec_stats *st, struct trace_error *err);

/* Sleeps up to this long count as polls in a retry loop; ns. */
#define REC_POLL_NS 1000000

/* Retry loops seen in a trace (rec_spin_scan): on one thread, two or more
 * consecutive failed tries (`trylock M busy`, `trywait S busy`) of the
 * same object, or two or more consecutive yields (`sleep 0`) or short
 * sleeps (<= poll), and the record that ends them.  Work in trace
 * units. */
struct rec_spin {
	uint64_t loops;        /* retry loops                                */
	uint64_t tries;        /* their failed tries, yields and polls       */
	uint64_t work;         /* the work of their records, the ending one
	                          included                                   */
	uint64_t total;        /* the trace's total work                     */
	uint64_t busy_trylock, busy_trywait, yields, polls; /* all, in loops
	                          or not                                     */
};

/* rec_spin_scan - find the retry loops of tr; poll in trace units. */
void rec_spin_scan(const struct trace *tr, uint64_t poll, struct rec_spin *out);

/* What shadowbind-record measured of the run. */
struct rec_run {
	uint64_t wall_ns;      /* the recording's wall time; ns              */
	uint64_t cpu_ns;       /* the process's CPU time (wait4); ns, 0: unknown */
	int one_cpu;           /* recorded pinned to one processor           */
};

/* The report (rec_report_make).  Times in ns. */
struct rec_report {
	uint64_t records;
	uint32_t threads;
	uint64_t work_ns;            /* the trace's total work                */
	uint64_t wall_ns, cpu_ns;
	int one_cpu;
	double rate;                 /* records per second of recorded work   */
	int have_stats;
	int clock_fast;
	uint64_t read_ns, read_syscall_ns;
	uint64_t excluded_ns, calibration_ns, write_ns;
	int64_t subtracted_ns;
	double recorder_per_call_ns; /* excluded + subtracted, per call       */
	double resid_ns;             /* estimated residual per record         */
	double resid_share;          /* resid_ns * records / work             */
	double clock_err_ns;         /* mean |TSC extrapolation - exact|      */
	uint64_t process_cpu_ns;
	int64_t unaccounted_ns;      /* process CPU - work - recorder         */
	struct rec_spin spin;
};

/*
 * rec_report_make - the report of a recording from its trace (unit ns, as
 * the recorder writes it), the library's statistics (NULL or st->have 0:
 * none) and what the launcher measured.
 */
void rec_report_make(const struct trace *tr, const struct rec_stats *st, const struct rec_run *run,
                     struct rec_report *rep);

/*
 * rec_report_print - print the report on f, each line starting "WHO: ":
 * the record rate, the clock, the recorder's cost and the estimated
 * residual; the CPU accounting; retry loops; and a warning for each sign
 * of distortion (docs/record.md).  Returns 1 if it warned, else 0.
 */
int rec_report_print(FILE *f, const char *who, const struct rec_report *rep);

#endif
