/*
 * gen.h - the synthetic program generator: multithreaded programs written
 * as traces (docs/trace-format.md, version 1) for tests, experiments and
 * benchmarks.  docs/gen.md describes every family and the choices made
 * where the papers are silent; `progen --help` prints the same tables.
 *
 * A family (transactions, pipeline, forkjoin, prodcons, worstcase, dag)
 * builds each thread's records in program order; the generator then
 * replays the threads as one uniprocessor execution and writes every
 * record where it took effect, so the output is valid under the
 * sequential-replay rule by construction.
 *
 * Determinism: the output depends only on the family, gen_opts (threads,
 * seed, options) and nothing else: no clock, no rand(), no global state,
 * the same bytes on every machine.  Program i of a batch uses seed
 * gen_seed_derive(seed, i).
 *
 * Typical use (a test or benchmark generating a trace in memory):
 *
 *	struct gen_opts o;
 *	gen_opts_init(&o);
 *	o.threads = 16;
 *	o.seed = 7;
 *	gen_opts_set(&o, "groups", "3");
 *	char *text; size_t len; char err[256];
 *	if (gen_generate("transactions", &o, &text, &len, NULL, err,
 *	                 sizeof err) != GEN_OK)
 *		... err says why ...
 *	... use text[0..len) ...
 *	free(text);
 *
 * or gen_trace() for a parsed struct trace directly.
 *
 * No global mutable state: every function may run concurrently with
 * itself on different arguments.  Library functions never print except to
 * a FILE* they are given, never exit.
 */
#ifndef SHADOWBIND_GEN_H
#define SHADOWBIND_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/sim.h"
#include "trace/trace.h"

/* Return codes. */
enum {
	GEN_OK = 0,
	GEN_EINVAL = -1, /* bad family, option or value: see err           */
	GEN_ENOMEM = -2, /* allocation failed (or the program is too big)  */
	GEN_EIO = -3,    /* writing to the FILE* failed (errno set)        */
	GEN_EBUG = -4    /* the generated program could not be replayed:
	                    a generator bug, err names the thread          */
};

/* ---------------------------------------------------------------------
 * Options
 */
#define GEN_MAX_KV 32
#define GEN_KEY_MAX 32
#define GEN_VALUE_MAX 64

struct gen_kv {
	char name[GEN_KEY_MAX];    /* option name without "--"          */
	char value[GEN_VALUE_MAX]; /* its text, as on the command line  */
};

struct gen_opts {
	uint32_t threads; /* total threads in the trace, thread 1 included;
	                     0: the family's default (or derived from its
	                     options: pipeline --limit, prodcons
	                     --producers/--consumers, worstcase: 5)       */
	uint64_t seed;    /* default 1                                    */
	size_t nkv;
	struct gen_kv kv[GEN_MAX_KV]; /* family and common options        */
};

/* gen_opts_init - threads 0 (family default), seed 1, no options. */
void gen_opts_init(struct gen_opts *o);

/*
 * gen_opts_set - set option `name` (without "--") to the text `value`,
 * replacing an earlier value of the same name.  Nothing is checked here:
 * gen_generate checks names and values against the family.  Returns 0, or
 * -1 if the name or value is too long or the table is full (o unchanged).
 */
int gen_opts_set(struct gen_opts *o, const char *name, const char *value);

/* ---------------------------------------------------------------------
 * Families
 */
enum gen_ptype {
	GEN_P_INT = 0, /* decimal integer in [min, max]                    */
	GEN_P_REAL,    /* decimal real in [rmin, rmax] (strtod syntax)     */
	GEN_P_ENUM     /* one of the '|'-separated words in `choices`      */
};

struct gen_param {
	const char *name;    /* option name without "--"                    */
	enum gen_ptype type;
	const char *def;     /* default value, as text                      */
	int64_t min, max;    /* GEN_P_INT bounds, inclusive                 */
	double rmin, rmax;   /* GEN_P_REAL bounds, inclusive                */
	const char *choices; /* GEN_P_ENUM: "skip|other"                    */
	const char *help;    /* one line; names the unit                    */
};

struct gen_prog; /* internal (gen/genint.h) */
struct gen_args; /* internal (gen/genint.h) */

struct gen_family {
	const char *name;     /* "transactions"                             */
	const char *summary;  /* one line                                   */
	const char *help;     /* a paragraph: the program and its source    */
	const char *example;  /* one example command line                   */
	const struct gen_param *params;
	size_t nparams;
	uint32_t def_threads; /* default --threads; 0: derived (see build)  */
	uint32_t min_threads; /* smallest accepted --threads                */
	/* Build the program; returns GEN_OK or GEN_EINVAL/GEN_ENOMEM with
	 * err filled.  Internal: called by gen_generate. */
	int (*build)(const struct gen_args *a, struct gen_prog *p, char *err,
	             size_t errlen);
};

/* The families, in a fixed order; i < gen_family_count(). */
size_t gen_family_count(void);
const struct gen_family *gen_family_at(size_t i);
/* The family called `name`, or NULL. */
const struct gen_family *gen_family_find(const char *name);

/*
 * Options every family accepts (besides threads and seed), in gen_opts:
 *   quantum  Q  time slice of the uniprocessor replay that orders the
 *               file, trace units; 0 runs each thread until it blocks
 *               (default 10000)
 *   unit     U  write `unit U` (tick|ns|us|ms|s); none: no unit line
 *               (default none: the reader's default, tick)
 *   names    0|1 write `thread` name lines (default 1)
 *   header   0|1 write the comment header: the equivalent command line
 *               and the generator's counters (default 1)
 */
size_t gen_common_count(void);
const struct gen_param *gen_common_at(size_t i);

/* ---------------------------------------------------------------------
 * What the generator drew: named counters, filled by gen_generate when
 * asked.  Every family sets "threads", "records" and "work" (total,
 * trace units); family counters are listed in docs/gen.md, e.g.
 * transactions: groups, sections, segments, iterations, entries, exits,
 * releases, skipped.
 */
#define GEN_INFO_MAX 24

struct gen_info {
	size_t n;
	struct gen_info_item {
		const char *name; /* static string */
		uint64_t value;
	} item[GEN_INFO_MAX];
};

/* *value = counter `name`; returns 0, or -1 (and *value = 0) if absent. */
int gen_info_get(const struct gen_info *in, const char *name,
                 uint64_t *value);

/* ---------------------------------------------------------------------
 * Generating
 */

/*
 * gen_generate - generate a program of family `family` with options `o`
 * as trace text.  On GEN_OK, *text is a malloc'd buffer of *len bytes
 * (NUL-terminated after them; free it) and *info (if info is not NULL)
 * holds the counters.  On failure returns GEN_EINVAL (unknown family,
 * unknown option, bad value: a one-line reason in err, e.g.
 * "option --groups: 'x' is not an integer in [0, 1048576]"), GEN_ENOMEM
 * or GEN_EBUG; *text is NULL, *len and *info are zeroed.  err (errlen
 * bytes, may be NULL/0) is always NUL-terminated when errlen > 0.
 */
int gen_generate(const char *family, const struct gen_opts *o, char **text,
                 size_t *len, struct gen_info *info, char *err,
                 size_t errlen);

/*
 * gen_write - the same, written to `f` (all or, on GEN_EIO, part of it).
 */
int gen_write(const char *family, const struct gen_opts *o, FILE *f,
              struct gen_info *info, char *err, size_t errlen);

/*
 * gen_trace - the same, parsed: *out is a new trace (trace_free it).  A
 * parse failure of the generated text is a generator bug: GEN_EBUG with
 * the reader's message in err.  On failure *out is NULL.
 */
int gen_trace(const char *family, const struct gen_opts *o,
              struct trace **out, struct gen_info *info, char *err,
              size_t errlen);

/* gen_seed_derive - the seed of program i (1-based) of a batch made with
 * seed `seed`: depends on (seed, i) only. */
uint64_t gen_seed_derive(uint64_t seed, uint64_t i);

/* gen_help_print - describe `fam` (NULL: every family, and the common
 * options) with its options, defaults and example, to f. */
void gen_help_print(const struct gen_family *fam, FILE *f);

/* ---------------------------------------------------------------------
 * Statistics of any trace (progen --stats)
 */
struct gen_stats {
	uint32_t threads;
	uint64_t records;
	uint64_t work;              /* total work; trace units             */
	int sim_status;             /* sim_run's status for the critical
	                               path (SIM_OK, SIM_DEADLOCK, ...)    */
	sim_time critical_path;     /* makespan with one processor per
	                               thread, latency 0, ps; trace units;
	                               0 unless sim_status == SIM_OK       */
	double parallelism;         /* work / critical path; 0 if either
	                               is 0 or the simulation failed       */
	uint64_t ops[TRACE_NOPS];   /* records of each operation           */
	enum trace_unit unit;
};

/*
 * gen_stats_compute - fill *st for trace tr.  The critical path is
 * sim_run(binding NULL): every thread on its own processor, latency 0, ps,
 * the Direct model (no fallback to other models: a Direct deadlock is
 * reported as such).
 * Returns GEN_OK (a deadlocked or overflowed simulation is still GEN_OK,
 * reported in st->sim_status), or GEN_ENOMEM with *st zeroed.
 */
int gen_stats_compute(const struct trace *tr, struct gen_stats *st);

/*
 * gen_stats_print - "key value" lines: threads, records, work,
 * critical_path, parallelism (3 decimals), then "op.<name> <count>" for
 * every operation, e.g.
 *   threads 16
 *   records 812
 *   work 3310224
 *   critical_path 401112
 *   parallelism 8.253
 *   op.create 15
 *   ...
 * A critical path that could not be computed prints as "deadlock" or
 * "overflow", and parallelism as "-".
 */
void gen_stats_print(const struct gen_stats *st, FILE *f);

#endif
