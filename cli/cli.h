/*
 * cli.h - the command-line language every shadowbind command speaks.
 *
 * One table of options per command (as git's parse-options): the parser,
 * the limits, the error messages and --help all come from it, so the same
 * option means the same thing, accepts the same forms and fails with the
 * same one-line message in every command.
 *
 *   static uint32_t cpus;
 *   static struct cli_time latency;
 *   static int json;
 *   static struct cli_opt opts[] = {
 *       {CLI_GROUP, .help = "Machine"},
 *       {CLI_CPUS, "cpus", 'k', .dst = &cpus, .help = "processors"},
 *       {CLI_TIME, "latency", .dst = &latency,
 *        .help = "synchronization latency between processors"},
 *       {CLI_FLAG, "json", .dst = &json, .help = "one JSON object"},
 *       {CLI_END}};
 *   static const struct cli_cmd cmd = {"simulate", "[options] TRACE",
 *       "Predict the run ...", opts};
 *   int nops, rc = cli_parse(&cmd, argc, argv, &nops);
 *   if (rc != CLI_CONTINUE)
 *       return rc;               (--help printed: 0; usage error: 1)
 *   operands are argv[1..nops]
 *
 * Forms accepted for every option: `--name VALUE`, `--name=VALUE`, `-x
 * VALUE`, `-xVALUE`, flags `--name`/`-x`; options and operands in any
 * order; `--` ends the options; `-` alone is an operand (standard input).
 * The last occurrence of an option wins; opt->given counts occurrences.
 * `-h`/`--help` (print the help generated from the table, return 0) and
 * `--version` are always there.
 *
 * Error texts (stderr, one line, exit status 1):
 *   NAME: unknown option '--foo'; see 'NAME --help'
 *   NAME: option '--cpus' needs a value; see 'NAME --help'
 *   NAME: --cpus: '0' is not an integer in 1..65536; see 'NAME --help'
 *
 * The commands keep one fact per table: cli_opt entries are static data
 * of the command; the parser writes only into dst and `given`.
 *
 * Global state: none, except the signal flag of out.h (a signal handler
 * needs one).  Nothing here allocates that the caller must free, except
 * where said.
 */
#ifndef SHADOWBIND_CLI_H
#define SHADOWBIND_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

#define CLI_VERSION "1.0"

/* Largest --cpus of every command (= a binding file's largest `cpus`). */
#define CLI_CPUS_MAX TRACE_CPUS_MAX

/* Exit status of every command (README, "Exit status"). */
enum cli_exit {
	CLI_OK = 0,        /* done                                          */
	CLI_EUSAGE = 1,    /* bad options or arguments                      */
	CLI_EINPUT = 2,    /* bad input file (trace, binding, config), or
	                      an output file that cannot be written         */
	CLI_EDEADLOCK = 3, /* the simulated run deadlocked                  */
	CLI_ESYSTEM = 4,   /* out of memory, internal limit, system error   */
	CLI_EINT = 130,    /* stopped by SIGINT (128 + 2)                   */
	CLI_ETERM = 143,   /* stopped by SIGTERM (128 + 15)                 */
	CLI_CONTINUE = -1  /* cli_parse: go on (not an exit status)         */
};

enum cli_kind {
	CLI_END = 0,  /* ends the table                                    */
	CLI_SKIP,     /* a row left out (of a shared row macro such as
	                 CMD_MACHINE_OPTS): neither parsed nor shown      */
	CLI_GROUP,    /* a heading in --help (help = the heading)          */
	CLI_TEXT,     /* a paragraph in --help under the options (help)    */
	CLI_FLAG,     /* no value; *(int *)dst = 1                         */
	CLI_STR,      /* *(const char **)dst = the value (argv's)          */
	CLI_U64,      /* *(uint64_t *)dst: decimal integer in min..max     */
	CLI_U32,      /* *(uint32_t *)dst: decimal integer in min..max     */
	CLI_CPUS,     /* *(uint32_t *)dst: processors, 1..CLI_CPUS_MAX     */
	CLI_TIME,     /* *(struct cli_time *)dst: a simulated time, trace
	                 units or a number with a unit suffix (see below)  */
	CLI_SECONDS,  /* *(double *)dst: finite, >= 0; units: s            */
	CLI_CHOICE,   /* *(int *)dst = index of the value in choices[]     */
	CLI_FUNC      /* fn(dst, value, why, len): 0, or -1 and a reason
	                 ("is not a policy (ps, fifo, rr:Q)")              */
};

struct cli_opt {
	enum cli_kind kind;
	const char *name;      /* long name without "--", or NULL            */
	char short_name;       /* 'k' for -k, or 0                           */
	const char *metavar;   /* value's name in --help; NULL: a default    */
	void *dst;
	uint64_t min, max;     /* CLI_U64, CLI_U32 (max 0: type's maximum)   */
	const char *const *choices; /* CLI_CHOICE, NULL-terminated           */
	int (*fn)(void *dst, const char *value, char *why, size_t len);
	const char *help;      /* one or more lines (LF separates)           */
	int given;             /* set by cli_parse: occurrences              */
};

struct cli_cmd {
	const char *name;      /* "simulate"                                 */
	const char *usage;     /* after "usage: NAME "; LF: another form     */
	const char *about;     /* paragraph after the usage lines            */
	struct cli_opt *opts;  /* ends with {CLI_END}                        */
	const char *epilog;    /* text after the options, or NULL            */
	const char *exit3;     /* what exit status 3 means here, or NULL     */
	/* Options not in the table (progen's family options), or NULL:
	 * `--name VALUE`/`--name=VALUE` is passed here; return 0, or -1 with
	 * a reason (a usage error). */
	int (*other)(void *arg, const char *name, const char *value, char *why,
	             size_t len);
	void *other_arg;
	/* The command's own exit statuses (a launcher passing on its
	 * program's), printed under "Exit status:" in place of the generic
	 * list, or NULL for the generic list (and exit3). */
	const char *exits;
};

/*
 * cli_parse - parse argv by cmd's table.  Moves the operands (non-option
 * arguments) to argv[1..*noperands] in their order.  Returns CLI_CONTINUE;
 * or CLI_OK after printing --help / --version on stdout; or CLI_EUSAGE
 * after printing the one-line error on stderr.
 */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, int *noperands);

/* cli_help - the help text generated from the table. */
void cli_help(const struct cli_cmd *cmd, FILE *f);

/* cli_find - the table entry of long option `name`, or NULL. */
struct cli_opt *cli_find(const struct cli_cmd *cmd, const char *name);

/*
 * cli_usage - print "NAME: <message>; see 'NAME --help'" (one line) on
 * stderr; returns CLI_EUSAGE.  cli_error - print "NAME: <message>";
 * returns `status`.  cli_errorf - print "<message>" alone (it names its
 * file, e.g. a trace_error); returns `status`.
 */
int cli_usage(const struct cli_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_error(const struct cli_cmd *cmd, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int cli_errorf(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * cli_quote - `s` made safe to print in a one-line message: bytes below
 * 0x20, 0x7f, the C1 controls U+0080..U+009F (whose bytes are written as
 * \xc2\xHH) and bytes that are not UTF-8 are written as \xHH, a
 * backslash as \\; at most `len`-1 bytes (cut with "..." if longer).
 * Returns buf.
 */
const char *cli_quote(const char *s, size_t n, char *buf, size_t len);

/* ---------------------------------------------------------------------
 * Simulated times on the command line (--latency, --create-cost, ...)
 *
 * `4` is 4 trace units.  `4us`, `0.5ms`, `10ns`, `1s` are converted to the
 * trace's unit once the trace is read (cli_time_get): the trace must
 * declare a unit (ns, us, ms or s) and the time must be a whole number of
 * trace units below 2^62.  The same forms in every command.
 */
struct cli_time {
	const char *text;   /* as given, or NULL (not given)               */
	const char *name;   /* the option's long name (for messages)       */
	uint64_t num;       /* the number times 10^frac                     */
	uint32_t frac;      /* decimals given (0 for an integer)            */
	int unit;           /* -1: no suffix (trace units); else enum trace_unit */
};

/* cli_time_parse - parse the syntax of `s` into *t.  0, or -1 (then
 * *t is unaltered). */
int cli_time_parse(const char *s, struct cli_time *t);

/*
 * cli_time_get - the value of t in the unit of trace tr (trace units);
 * `def` when t was not given.  0, or -1 with a reason in why ("--latency:
 * '4us': a unit suffix needs a trace that declares its unit (ns, us, ms
 * or s)"): a usage error.
 */
int cli_time_get(const struct cli_time *t, const struct trace *tr,
                 uint64_t def, uint64_t *out, char *why, size_t len);

/* cli_parse_seconds - a non-negative finite number of seconds ("1.5",
 * ".5"; no sign, no space), as CLI_SECONDS and INI files take it.  0, or
 * -1 and *out unaltered. */
int cli_parse_seconds(const char *s, double *out);

/* ---------------------------------------------------------------------
 * Reading inputs: the same messages in every command.
 */

/*
 * cli_trace_load - read and validate the trace at `path` ("-": standard
 * input), streaming.  Returns CLI_OK and *out, or CLI_EINPUT with the
 * one-line message in why ("t.trace:12: unknown operation 'lok'",
 * "dir: cannot read: Is a directory").
 */
int cli_trace_load(const char *path, struct trace **out, char *why, size_t len);

/*
 * cli_slurp - the bytes of `path` ("-": standard input; also a pipe or
 * /dev/fd/N), read once, into a malloc'd buffer (*buf, *n; NUL-terminated
 * one past *n).  Returns CLI_OK; CLI_EINPUT ("path: cannot open: ...",
 * "path: cannot read: Is a directory") or CLI_ESYSTEM (out of memory)
 * with why filled and *buf NULL.
 */
int cli_slurp(const char *path, char **buf, size_t *n, char *why, size_t len);

/* The name errors use for `path`: "<stdin>" for "-". */
const char *cli_input_name(const char *path);

/* ---------------------------------------------------------------------
 * Process setup.
 */

/*
 * cli_omp_passive - call first in main() of a command with OpenMP
 * searches (allocate, experiment).  OpenMP threads that wait spin by
 * default (OMP_WAIT_POLICY=active, for a while), which made short
 * parallel regions 2-5x slower on a shared machine (docs/alloc.md,
 * Parallelism).  libgomp reads the variable when it is loaded, before
 * main, so setting it needs one re-execution of the program
 * (/proc/self/exe with argv): returns only when OMP_WAIT_POLICY was
 * already set (a value the user set is kept) or the re-execution failed
 * (then the run goes on as before).
 */
void cli_omp_passive(char **argv);

/* ---------------------------------------------------------------------
 * The machine's vocabulary: one row per setting of the simulated machine
 * that a user gives, as an option of a command or as a key of an INI
 * file's [machine] section.  Generated from these rows (X macros):
 *   - every command's machine options: CMD_MACHINE_OPTS (cmd/common.h);
 *   - the INI readers' [machine] keys: allocate's --config
 *     (alloc/config.c) and experiment files (exp/spec.c);
 *   - struct cli_machine's loading below (the TIME rows).
 * So adding a machine setting is one row here, plus its members (FIELD
 * below) and the code that uses its value.  The help is the same in every command.
 *
 *   X(A, ID, KIND, OPTION, SHORT, KEY, FIELD, METAVAR, HELP)
 *
 *   A        the caller's argument, passed through
 *   ID       the row's name: CLI_M_ID, bit CLI_M_BIT(ID)
 *   KIND     how the value reads (the user of the rows maps each kind):
 *            CPUS  processors, 1..CLI_CPUS_MAX
 *            TIME  a simulated time: struct cli_time on the command line
 *                  (trace units or with a unit), an integer number of
 *                  trace units in INI files
 *            POLICY, MODEL  sim_policy_parse, sim_model_parse (sim.h)
 *            FILE, STR, FLAG  a path, a string, no value (command line
 *                  only: KEY is NULL)
 *            MACHFILE  a machine file (docs/sim.md, "Machine files"): a
 *                  path on the command line and in INI files, read by
 *                  the command (cmd_machine_load) with the trace
 *   OPTION   the long option, SHORT its letter or 0
 *   KEY      the INI key in [machine], or NULL (command line only)
 *   FIELD    its member: in struct cli_machine (the option as given) for
 *            CPUS, TIME, FILE, STR and FLAG rows; in struct sim_params
 *            (the value) for CPUS, TIME, POLICY and MODEL rows (POLICY
 *            sets policy and quantum)
 *   METAVAR, HELP  as in struct cli_opt
 *
 * The order is --help's.  Every CPUS, TIME, POLICY and MODEL row has a
 * KEY (the INI readers rely on it).
 */
#define CLI_MACHINE_ROWS(X, A) \
	X(A, CPUS, CPUS, "cpus", 'k', "cpus", cpus, "K", \
	  "processors 0..K-1 (default: the binding file's cpus)") \
	X(A, BINDING, FILE, "binding", 'b', NULL, binding, "FILE", \
	  "bind threads as FILE says (docs/binding-format.md)") \
	X(A, UNBOUND, FLAG, "unbound", 0, NULL, unbound, NULL, \
	  "no binding: K processors serve one ready queue\n" \
	  "(the operating system's dynamic scheduling)") \
	X(A, MACHINE, MACHFILE, "machine", 0, "machine", machine, "FILE", \
	  "the machine as shadowbind-calibrate measured it\n" \
	  "(docs/sim.md, Machine files): a latency per pair of\n" \
	  "processors, switch, creation and exit costs; the\n" \
	  "options below, when given, override its figures\n" \
	  "(--latency its whole matrix)") \
	X(A, LATENCY, TIME, "latency", 0, "latency", latency, "T", \
	  "synchronization latency between processors\n" \
	  "(default 0): trace units, or with a unit (4us)") \
	X(A, POLICY, POLICY, "policy", 0, "policy", policy, "P", \
	  "local scheduling: ps (processor sharing in exact\n" \
	  "integer cycles, default; docs/sim.md),\n" \
	  "fifo (run to block), rr:Q (round robin, quantum Q)") \
	X(A, CREATE_COST, TIME, "create-cost", 0, "create_cost", create_cost, "C", \
	  "CPU time a create costs its creator (default 0)") \
	X(A, SWITCH_COST, TIME, "switch-cost", 0, "switch_cost", switch_cost, "C", \
	  "context-switch time, fifo and rr only (default 0)") \
	X(A, SPIN, TIME, "spin", 0, "spin", spin, "S", \
	  "the program's waiters spin S before they block: a\n" \
	  "thread that tries a mutex it released (unlock M, then\n" \
	  "trylock M ok: a poll) on a shared processor spins at\n" \
	  "least S (default 0; docs/sim.md, Retry loops)") \
	X(A, MODEL, MODEL, "model", 0, "model", model, "M", \
	  "simulation model (Paper VIII; docs/models.md):\n" \
	  "direct (an acquisition takes the first release),\n" \
	  "client-server (the recorded releases; threads cut\n" \
	  "into lists that may run out of order), strict (the\n" \
	  "recorded releases in recorded order; never\n" \
	  "deadlocks), or auto (default: direct, on deadlock\n" \
	  "client-server, on deadlock strict)") \
	X(A, POOL, STR, "pool", 0, NULL, pool, "THREADS", \
	  "these threads are the interchangeable workers of a\n" \
	  "work queue (ids and ranges, 2-4,7, or a thread name):\n" \
	  "they take the recorded tasks in recorded order,\n" \
	  "whichever gets the queue's mutex next (docs/models.md,\n" \
	  "Work queues); Direct model only")

#define CLI_M_ENUM_(A, ID, ...) CLI_M_##ID,
enum cli_machine_row { CLI_MACHINE_ROWS(CLI_M_ENUM_, 0) CLI_M_NROWS };
#define CLI_M_BIT(ID) (1u << CLI_M_##ID)
#define CLI_M_ALL ((1u << CLI_M_NROWS) - 1)

/*
 * struct cli_machine - the machine options as given, and loaded (one
 * member per row of CLI_MACHINE_ROWS, FIELD):
 *
 *   cli_machine_check(&m, why, len)        after cli_parse
 *   cli_machine_load(&m, tr, why, len)     after the trace is read
 *   cli_machine_release(&m)
 */
struct cli_machine {
	/* Set by the option table. */
	uint32_t cpus;        /* --cpus K (processors); 0: not given         */
	const char *binding;  /* --binding FILE, or NULL                     */
	int unbound;          /* --unbound                                   */
	struct cli_time latency, create_cost, switch_cost, spin; /* as given */
	const char *pool;     /* --pool THREADS, or NULL                     */
	const char *machine;  /* --machine FILE, or NULL                     */
	/* Set by the command: what it does with neither --binding nor
	 * --unbound, for the message of a lone --cpus; or NULL. */
	const char *alone;
	/* Filled by cli_machine_load. */
	uint32_t k;           /* --cpus, else the binding file's cpus, else 0 */
	uint64_t latency_tu, create_cost_tu, switch_cost_tu, spin_tu; /* trace
	                                         units, 0 when not given     */
	struct trace_binding bind; /* the binding file (zeroed without)      */
};

/*
 * cli_machine_check - the rules of the options: --binding and --unbound
 * exclude each other, --unbound needs --cpus, --cpus needs one of them.
 * 0, or -1 with the reason of the usage error in why ("--unbound needs
 * --cpus K").
 */
int cli_machine_check(const struct cli_machine *m, char *why, size_t len);

/*
 * cli_machine_load - with trace tr read: the times in tr's unit
 * (cli_time_get) and the binding file (trace_binding_read), whose every
 * processor must be below --cpus when given.  Returns CLI_OK and fills
 * k, *_tu and bind (release with cli_machine_release); or CLI_EUSAGE (a
 * time that does not fit tr's unit) or CLI_EINPUT (the binding file:
 * "b.txt:3: ...", "b.txt: thread 3 is bound to processor 1, but --cpus
 * is 1") with the one-line reason in why and nothing held.
 */
int cli_machine_load(struct cli_machine *m, const struct trace *tr, char *why,
                     size_t len);

/* cli_machine_release - free the binding cli_machine_load read; accepts a
 * struct it did not fill (zeroed bind). */
void cli_machine_release(struct cli_machine *m);

#endif
