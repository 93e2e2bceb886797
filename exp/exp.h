/*
 * exp.h - batch experiments (docs/exp.md): an experiment file (INI) names
 * programs (generated families and their parameters, or a directory of
 * traces), machines (processors, latencies, policies, models) and
 * algorithms with their budgets; exp_* runs every (program, machine) pair
 * -- a *job* -- and writes one CSV row per (program, machine, algorithm).
 *
 * Determinism: a row depends only on the experiment file (and the traces
 * it names): never on the number of OpenMP threads or MPI processes, nor
 * on the order jobs finish in.  The CSV is written in job order.  Wall
 * times are not in it: they go to a separate timing file.
 *
 * Resumption: rows are appended, one job's rows in one write followed by
 * fsync; a later run keeps the complete jobs of an existing CSV (a torn
 * last line or an incomplete job is dropped), computes only the others,
 * and finally rewrites the CSV in job order through a temporary file and
 * rename.  An interrupted run never leaves a corrupt CSV.
 *
 * No global state; library functions never print (but exp_report writes
 * the files it is asked for) and never exit.
 */
#ifndef SHADOWBIND_EXP_H
#define SHADOWBIND_EXP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc/alloc.h"
#include "gen/gen.h"
#include "sim/sim.h"

enum {
	EXP_OK = 0,
	EXP_EINVAL = -1,  /* bad experiment file or CSV: err says where      */
	EXP_ENOMEM = -2,
	EXP_EIO = -3,     /* reading or writing a file failed: err says which */
	EXP_ERUN = -4     /* a program could not be generated or simulated   */
};

/* ---------------------------------------------------------------------
 * Reading the experiment file (exp/spec.c)
 */

/*
 * exp_ini_parse - read the INI text of an experiment file with cli's
 * reader (cli/ini.h: `[section]`, `key = value`, `;`/`#` comments, inline
 * comments, quoted values; CLI_INI_REPEATS, since `line` of [plot.NAME]
 * repeats) and call cb for every key in file order, with its section and
 * line; a non-zero return from cb stops and is returned.  A control
 * character (other than tab) in a value is an error too.  Errors return
 * -1 with one line "FILE:LINE: problem" in err, every byte outside
 * printable ASCII shown as '?'.  Any bytes are accepted as input.
 */
typedef int (*exp_ini_fn)(void *arg, const char *section, const char *key,
                          const char *value, unsigned line, char *err,
                          size_t errlen);
int exp_ini_parse(const char *buf, size_t len, const char *fname,
                  exp_ini_fn cb, void *arg, char *err, size_t errlen);

#define EXP_NAME_MAX 48
#define EXP_MAX_VALUES 256  /* values of one list key            */
#define EXP_MAX_FAMILIES 8
#define EXP_MAX_VARIANTS 64
#define EXP_MAX_CHECKS 64

/* A list of values as text (a comma-separated key). */
struct exp_list {
	size_t n;
	char *v[EXP_MAX_VALUES]; /* owned */
};

/* One family of generated programs: [programs] family = NAME, with the
 * options of [family.NAME]; every option is a list (a sweep). */
struct exp_family {
	char name[EXP_NAME_MAX];
	struct exp_list threads;      /* "0": the family's default          */
	uint64_t count;               /* programs per cell; 0: [programs]'s */
	size_t nopt;
	char opt[GEN_MAX_KV][GEN_KEY_MAX];
	struct exp_list val[GEN_MAX_KV];
};

/* One algorithm of the run: a table algorithm with its budget. */
struct exp_variant {
	char name[EXP_NAME_MAX];        /* the row's `algorithm` column     */
	char algorithm[ALLOC_NAME_MAX]; /* alloc table name                 */
	uint64_t max_tests;             /* 0: the algorithm's default       */
	uint64_t stop_after;            /* default 100 (Paper V)            */
	uint64_t seed;                  /* default: the program's index     */
	int have_seed;
	uint32_t restarts;
	int raw;                        /* sga: SGA's own allocation,
	                                   without alloc's binpacking floor
	                                   (Paper IV's SGA); rgreedy: the
	                                   best of its runs alone (Paper V
	                                   Fig. 3)                          */
	enum alloc_input binpack_input; /* binpacking's input (docs/alloc.md):
	                                   [alg.NAME] binpack_input, else
	                                   [run]'s; also the row's binpack
	                                   column                           */
	int have_input;                 /* set by [alg.NAME]                */
	uint32_t cpus;                  /* 0: the machine's; else the
	                                   algorithm runs on this many
	                                   processors (the row's binpack
	                                   column stays the machine's)      */
	size_t ncheck;                  /* rows at these test counts too    */
	uint64_t check[EXP_MAX_CHECKS]; /* increasing                       */
};

struct exp_spec {
	char name[EXP_NAME_MAX];  /* [experiment] name; default: file base  */
	char *output;             /* CSV path; default FILE without .ini +
	                             ".csv" (owned)                          */
	char *traces;             /* [programs] traces = DIR, or NULL       */
	size_t nfam;
	struct exp_family fam[EXP_MAX_FAMILIES];
	uint64_t count;           /* programs per cell (default 1)          */
	uint64_t seed;            /* batch seed (default 1)                 */
	struct exp_list cpus, latency, policy, model; /* [machine] sweeps   */
	uint64_t create_cost, switch_cost; /* units: trace unit            */
	char *machine;            /* [machine] machine = FILE (a machine
	                             file, docs/sim.md), or NULL (owned)   */
	size_t nvar;
	struct exp_variant var[EXP_MAX_VARIANTS];
	int unbound;              /* [run] unbound = 1: an `unbound` row    */
	int bound;                /* [run] bound = 1: bound, lower columns  */
	enum alloc_input binpack_input; /* [run] binpack_input (work): every
	                             algorithm's without its own, and the
	                             unbound row's binpack column           */
};

/*
 * exp_spec_parse - read experiment file text buf[len] named fname into
 * *s (zeroed first; release with exp_spec_release, also on failure).
 * Returns EXP_OK, EXP_EINVAL ("FILE:LINE: problem" in err) or
 * EXP_ENOMEM.  Unknown sections and keys are errors.
 */
int exp_spec_parse(const char *buf, size_t len, const char *fname,
                   struct exp_spec *s, char *err, size_t errlen);
/* exp_spec_load - the same from a file. */
int exp_spec_load(const char *path, struct exp_spec *s, char *err,
                  size_t errlen);
void exp_spec_release(struct exp_spec *s);

/* ---------------------------------------------------------------------
 * Jobs (exp/jobs.c)
 */

/* One program of the experiment. */
struct exp_prog {
	uint32_t fam;          /* index in spec.fam; UINT32_MAX: a trace file */
	uint32_t combo;        /* index of the option combination            */
	uint32_t threads;      /* --threads (0: family default)              */
	uint64_t index;        /* 1..count within its cell                   */
	uint64_t seed;         /* gen_seed_derive(spec.seed, index)          */
	char *path;            /* trace file (owned), or NULL                */
};

/* One machine. */
struct exp_conf {
	struct sim_params sim; /* cpus, latency, policy, model, costs       */
	const char *policy;    /* text as in the file                       */
	const char *model;
};

struct exp_jobs {
	size_t nprog, nconf;
	struct exp_prog *prog;
	struct exp_conf *conf;
	size_t njobs;          /* nprog * nconf (job j: prog j / nconf,
	                          conf j % nconf)                           */
	size_t rows_per_job;
};

/* exp_jobs_make - enumerate programs and machines.  Returns EXP_OK,
 * EXP_EINVAL (bad value: err), EXP_EIO (traces directory), EXP_ENOMEM;
 * *j must be released with exp_jobs_release in every case. */
int exp_jobs_make(const struct exp_spec *s, struct exp_jobs *j, char *err,
                  size_t errlen);
void exp_jobs_release(struct exp_jobs *j);

/* The option text of program p: "groups=3;max-exp=15" (buf). */
char *exp_prog_options(const struct exp_spec *s, const struct exp_prog *p,
                       char *buf, size_t len);
/* Fill gen options of program p into *o. */
int exp_prog_gen_opts(const struct exp_spec *s, const struct exp_prog *p,
                      struct gen_opts *o);

/* The columns a job fixes, to check a CSV against the experiment:
 * "job,family,options," into a, "program,seed,cpus,latency,policy," into
 * b (the threads column is between them). */
void exp_row_key(const struct exp_spec *s, const struct exp_jobs *j,
                 size_t job, char *a, size_t alen, char *b, size_t blen);

/* The CSV header line (with '\n'). */
const char *exp_csv_header(void);

/*
 * exp_job_run - compute the rows of job `job`: a malloc'd text of
 * j->rows_per_job CSV lines in *rows (free it), and the wall time of each
 * row's computation, in seconds, into secs[rows_per_job] (may be NULL).
 * Returns EXP_OK, or EXP_ERUN/EXP_ENOMEM with a reason in err.
 */
int exp_job_run(const struct exp_spec *s, const struct exp_jobs *j,
                size_t job, char **rows, double *secs, char *err,
                size_t errlen);

/* ---------------------------------------------------------------------
 * The CSV (exp/csv.c)
 */

/*
 * exp_csv_resume - read an existing CSV at `path` (absent: nothing done)
 * and mark done[job] = 1 for every job whose rows_per_job rows are all
 * there, copying their text into store[job] (malloc'd, NULL otherwise).
 * A header that is not exp_csv_header, or a row whose job number is out
 * of range or whose key columns (exp_row_key) differ, is EXP_EINVAL
 * ("PATH:LINE: ...": the file belongs to another experiment).  A torn last
 * line is ignored.
 */
int exp_csv_resume(const char *path, const struct exp_spec *s,
                   const struct exp_jobs *j, char *done, char **store,
                   char *err, size_t errlen);

/* exp_csv_write_all - write the header and store[0..njobs) in order to
 * path through path.tmp + fsync + rename.  Jobs without rows are left
 * out. */
int exp_csv_write_all(const char *path, const struct exp_jobs *j,
                      char *const *store, char *err, size_t errlen);

/* exp_append - append len bytes to the open descriptor fd and fsync. */
int exp_append(int fd, const char *text, size_t len);

/* ---------------------------------------------------------------------
 * Running (exp/run.c)
 */

/* Progress: called from the calling thread after each finished job. */
typedef void (*exp_progress_fn)(void *arg, size_t done, size_t total);

struct exp_run_opts {
	exp_progress_fn progress;
	void *progress_arg;
	const volatile int *cancel;  /* stop after the running jobs when set */
	int use_mpi;                 /* deal jobs over MPI ranks (exp/mpi.c) */
	const char *timing;          /* timing CSV path, or NULL: none       */
};

struct exp_run_stats {
	size_t jobs, kept, computed;  /* all, found complete, computed now */
	int rank, ranks;              /* MPI: this process, all of them    */
	int cancelled;
	int own_failure;              /* MPI: this rank failed in the message
	                               * passing itself; rank 0 does not know:
	                               * the rank reports it */
};

/*
 * exp_run - run experiment *s: resume from spec->output, compute the
 * missing jobs (OpenMP over jobs; with use_mpi dealt over the ranks, rank
 * 0 writing), rewrite the CSV in order.  Returns EXP_OK (also when
 * cancelled: st->cancelled, the CSV holds the finished jobs), or an EXP_E*
 * code with err.  Under MPI rank 0 reports (in err) a failure of any
 * rank, "rank R: its message"; when rank 0 fails the others may still be
 * computing or waiting for it, so the caller stops the run with
 * exp_mpi_abort after reporting (the other ranks report nothing unless
 * st->own_failure).
 */
int exp_run(const struct exp_spec *s, const struct exp_run_opts *o,
            struct exp_run_stats *st, char *err, size_t errlen);

/* 1 if this build has MPI (exp/mpi.c). */
int exp_mpi_available(void);
/* exp_mpi_launched - 1 if the process was started by mpirun (the
 * environment says so). */
int exp_mpi_launched(void);
/* exp_mpi_rank - this process's MPI rank (0 without MPI). */
int exp_mpi_rank(int use);
/* exp_mpi_init/finalize - MPI_Init_thread / MPI_Finalize when available;
 * init returns 0 or -1. */
int exp_mpi_init(int *argc, char ***argv);
void exp_mpi_finalize(void);
/* exp_mpi_abort - stop every rank of the run with exit status code
 * (MPI_Abort; nothing without MPI): what a command does after reporting
 * a failure under MPI, since the other ranks may be waiting for this one
 * or still computing. */
void exp_mpi_abort(int code);

/* ---------------------------------------------------------------------
 * Report (exp/report.c)
 */

/*
 * exp_report - for every experiment file DIR/NAME.ini (sorted by name):
 * its [plot.ID] sections (docs/exp.md, "The report") aggregated from its
 * CSV into a markdown table and DIR/plots/EXP-ID.{dat,gp,svg} (gnuplot,
 * run as a command); then `report` is rewritten (temporary + rename) from
 * DIR/REPORT.md.in with @TABLE:EXP/ID@ and @PLOT:EXP/ID@ replaced (a
 * plot without data yet: a note instead).  Returns EXP_OK, EXP_EINVAL (a
 * bad experiment file or plot section), EXP_EIO (a file, or gnuplot
 * failed) or EXP_ENOMEM, with err.
 */
int exp_report(const char *dir, const char *report, char *err, size_t errlen);

#endif
