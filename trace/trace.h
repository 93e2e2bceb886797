/*
 * trace.h - the shadowbind trace (docs/trace-format.md, version 1) and the
 * binding file (docs/binding-format.md): reading, validating, writing.
 *
 * A trace is stored compactly: one flat array of fixed-size records grouped
 * by thread (thread-major, each thread's records in program order), flat
 * per-object arrays, and one string pool.  Objects (threads, mutexes,
 * semaphores, ...) are renumbered densely per kind: the trace keeps the
 * external id of each dense index for reports.  Dense thread indices are in
 * increasing order of external thread id, so comparing dense indices
 * compares thread ids (the simulator's tie-break rule relies on it).
 *
 * Every record keeps its line number in the file; line numbers increase in
 * file order, so file order (the order the operations took effect in the
 * recording) is recovered by sorting records by line.
 *
 * No global state: every function may be called from several threads at
 * once on different objects; a const trace may be shared freely.
 */
#ifndef SHADOWBIND_TRACE_H
#define SHADOWBIND_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_VERSION 1

/* Largest work, sleep duration: exclusive bound (docs/trace-format.md). */
#define TRACE_WORK_LIMIT ((uint64_t)1 << 62)
/* Largest object id: exclusive bound. */
#define TRACE_ID_LIMIT ((uint64_t)1 << 31)
/* No string / no location. */
#define TRACE_NONE UINT32_MAX

/*
 * The operations.  ORDER OP: adding, removing or moving an operation
 * touches every place below (each marked "ORDER OP" in its file).  Most
 * take what an operation is from its row in trace_ops (name, operands
 * and their kinds, role bits, effect, verbs); these depend on the set of
 * operations or on their order:
 *   trace/ops.c        the row (trace_ops, by enum value)
 *   trace/read.c       an operation fits in 5 bits (_Static_assert)
 *   trace/validate.c   the replay rule of each operation (the contract,
 *                      docs/trace-format.md and docs/simulation.md)
 *   sim/direct.h       the Direct model's rule of each effect
 *   sim/pairing.h      the pairing models' rule of each effect
 *   sim/models.c       the recorded pairs' dependency edges, by effect
 *   sim/simint.h       load_work's prefetch: lock, unlock, trylock and
 *                      wait, post, trywait contiguous (_Static_assert)
 *   sim/program.c      the counts by operation: mutexes held, each
 *                      semaphore's posts (the latency token rings' size)
 *   viz/sched.c        which release an acquisition waits for (releases),
 *                      the critical path's items
 *   gen/serial.c       the serial replay of generated programs (the
 *                      operations the families write)
 *   bound/lower.c      what the relaxed program drops (by operand kind)
 *   record/preload/    the wrappers that record each operation;
 *   record/spool.c     the recorder's records
 *   tests/refsim.c     the reference simulator (its own rule for each)
 *   tests/test_differential.c  its generator writes every operation
 *   docs/trace-format.md, docs/simulation.md  (shared contracts)
 */
enum trace_op {
	TRACE_CREATE = 0, /* a = child thread (dense)                       */
	TRACE_EXIT,       /* -                                              */
	TRACE_JOIN,       /* a = thread (dense)                             */
	TRACE_LOCK,       /* a = mutex                                      */
	TRACE_UNLOCK,     /* a = mutex                                      */
	TRACE_TRYLOCK,    /* a = mutex, b = 1 ok / 0 busy                   */
	TRACE_WAIT,       /* a = semaphore                                  */
	TRACE_POST,       /* a = semaphore                                  */
	TRACE_TRYWAIT,    /* a = semaphore, b = 1 ok / 0 busy               */
	TRACE_CWAIT,      /* a = condition variable, b = mutex              */
	TRACE_SIGNAL,     /* a = condition variable, b = N woken (0 or 1)   */
	TRACE_BROADCAST,  /* a = condition variable, b = N woken            */
	TRACE_BARRIER,    /* a = barrier, b = N (group size, >= 1)          */
	TRACE_RDLOCK,     /* a = rwlock                                     */
	TRACE_WRLOCK,     /* a = rwlock                                     */
	TRACE_RWUNLOCK,   /* a = rwlock                                     */
	TRACE_SLEEP,      /* duration = a | (uint64_t)b << 32, trace units  */
	TRACE_NOPS
};

/* Object kinds, each its own id namespace. */
enum trace_kind {
	TRACE_K_THREAD = 0,
	TRACE_K_MUTEX,
	TRACE_K_SEM,
	TRACE_K_COND,
	TRACE_K_BARRIER,
	TRACE_K_RWLOCK,
	TRACE_NKINDS
};

enum trace_unit { TRACE_TICK = 0, TRACE_NS, TRACE_US, TRACE_MS, TRACE_S };

/* ---------------------------------------------------------------------
 * The operation table: what each operation is, in one place (as Lua's
 * lopcodes).  The reader, the writer, the validator, the simulator's
 * reports and the generator take names, operands and roles from here.
 * Adding an operation: a value in enum trace_op, a row in trace/ops.c,
 * its replay rule in trace/validate.c and its rule in sim/.
 */

/* What a record's operand field holds. */
enum trace_arg {
	TRACE_ARG_NONE = 0, /* unused (0)                                    */
	TRACE_ARG_OBJ,      /* dense index of an object of kind `kind`; in
	                       the file its external id, [0, 2^31)          */
	TRACE_ARG_OUTCOME,  /* 1 for `ok`, 0 for `busy`                      */
	TRACE_ARG_COUNT1,   /* a count, 0 or 1 (signal)                      */
	TRACE_ARG_COUNT,    /* a count in [0, 2^31) (broadcast)              */
	TRACE_ARG_SIZE,     /* a group size in [1, 2^31) (barrier)           */
	TRACE_ARG_DURATION, /* a duration in [0, 2^62), trace units, stored
	                       as a (low 32 bits) and b (high 32 bits):
	                       read it with trace_sleep_time; only in arg[0] */
};

/* Roles (bits of trace_opinfo.role), docs/trace-format.md, Order: where
 * the record stands in the file. */
#define TRACE_ACQUIRE 1 /* where it completed (join, lock, wait, cwait,
                           barrier, rdlock, wrlock; trylock and trywait
                           when `ok`)                                    */
#define TRACE_RELEASE 2 /* where it was performed (create, exit, unlock,
                           post, signal, broadcast, rwunlock)            */
#define TRACE_BLOCKS 4  /* a thread may wait at it (join, lock, wait,
                           cwait, signal, broadcast, barrier, rdlock,
                           wrlock; trylock and trywait when `ok`: see
                           trace_op_effect): its verb[0] says for what   */

struct trace_operand {
	uint8_t type;       /* enum trace_arg                                */
	uint8_t kind;       /* enum trace_kind, for TRACE_ARG_OBJ            */
};

struct trace_opinfo {
	const char *name;   /* the operation's word in the file: "lock"      */
	const char *usage;  /* its operands, for "'lock' needs a mutex id"   */
	struct trace_operand arg[2]; /* of fields a and b, in file order     */
	uint8_t role;       /* TRACE_ACQUIRE or TRACE_RELEASE (0: sleep),
	                       and TRACE_BLOCKS                              */
	uint8_t effect;     /* enum trace_op whose rule the record follows:
	                       lock for trylock, wait for trywait (when `ok`;
	                       `busy` does nothing, see trace_op_effect),
	                       else the operation itself                     */
	const char *verb[2]; /* what a thread blocked at this record waits to
	                        do with object a, b (reports: "thread 2
	                        cannot <verb> <kind name> 4"): "lock",
	                        "wait on", "join", "pass", "be signalled
	                        on", "re-acquire after cwait" (cwait's
	                        mutex), "rdlock", "wrlock", "see its waiters
	                        on" (signal, broadcast); NULL where it does
	                        not apply                                   */
};

/* [TRACE_NOPS], indexed by enum trace_op. */
extern const struct trace_opinfo trace_ops[TRACE_NOPS];

struct trace_kindinfo {
	const char *name;   /* "mutex", "condition variable", ...            */
	const char *id;     /* "mutex id", for messages                      */
};

/* [TRACE_NKINDS], indexed by enum trace_kind. */
extern const struct trace_kindinfo trace_kinds[TRACE_NKINDS];

/* One record: 24 bytes. */
struct trace_rec {
	uint64_t work;  /* CPU work before the operation; units: trace unit */
	uint32_t a, b;  /* operands, dense indices (see enum trace_op)      */
	uint32_t line;  /* 1-based line number in the file                  */
	uint8_t op;     /* enum trace_op                                    */
};

struct trace_thread {
	uint32_t id;    /* external thread id                               */
	uint32_t first; /* index of its first record in trace.rec           */
	uint32_t nrec;  /* number of records (the last is TRACE_EXIT)       */
	uint32_t name;  /* offset in trace.strings, or TRACE_NONE           */
};

struct trace {
	enum trace_unit unit;
	int unit_declared;            /* 1 if the file had a `unit` line     */
	uint32_t nthreads;
	struct trace_thread *threads; /* [nthreads], by increasing id       */
	uint32_t initial;             /* dense index of thread 1            */
	size_t nrec;
	struct trace_rec *rec;        /* [nrec], thread-major               */
	uint32_t *loc;                /* [nrec] offset of "@file:line" text
	                                 (without '@') in strings, TRACE_NONE;
	                                 NULL when the trace has no location */
	uint32_t *pair;               /* [nrec] for each acquisition record,
	                                 the index of the release record that
	                                 satisfied it in the recording (see
	                                 docs/trace-format.md, Order), or
	                                 TRACE_NONE: join -> the target's exit;
	                                 lock, trylock ok -> the previous
	                                 unlock of M (none for the first);
	                                 wait, trywait ok -> its post (none:
	                                 an initial token); cwait -> the
	                                 signal/broadcast that woke it;
	                                 barrier -> the last arrival of its
	                                 group; rdlock, wrlock -> the last
	                                 rwunlock of R before it (or none);
	                                 TRACE_NONE for other records.
	                                 A mutex released by a thread that
	                                 begins a cwait (right after its
	                                 previous record, see the spec) has
	                                 no unlock record: the next lock of
	                                 it pairs with that previous record
	                                 of the waiter (docs/trace.md)       */
	uint32_t nobj[TRACE_NKINDS];  /* dense objects of each kind         */
	uint32_t *obj_id[TRACE_NKINDS]; /* [nobj[kind]] external ids;
	                                   obj_id[TRACE_K_THREAD] is unused
	                                   (use threads[i].id)              */
	uint32_t *sem_init;           /* [nobj[TRACE_K_SEM]] initial tokens  */
	uint32_t *sem_declared;       /* [nobj[TRACE_K_SEM]] 1 if a `sem`
	                                 line declared it (for the writer)  */
	char *strings;                /* string pool, NUL-terminated items  */
	size_t strings_len;
};

/* Error report: one line, "file:line: reason" (or "file: reason"), no
 * trailing newline.  Always NUL-terminated. */
struct trace_error {
	char msg[512];
	uint32_t line; /* 0 when not about a line */
};

/*
 * trace_read_file - parse and validate the trace at `path` ("-" reads
 * standard input).  The file is read in chunks (streaming), never whole
 * into memory, and validated by the sequential-replay rule of the spec.
 * Returns 0 and sets *out to a new trace (free with trace_free) on success.
 * On error returns -1, sets *out to NULL, fills *err with the one-line
 * report naming the file and line, and leaves nothing allocated.
 */
int trace_read_file(const char *path, struct trace **out, struct trace_error *err);

/*
 * trace_read_mem - the same for `len` bytes at `buf` (need not be
 * NUL-terminated); `name` is used in error reports.
 */
int trace_read_mem(const char *name, const char *buf, size_t len,
                   struct trace **out, struct trace_error *err);

/* trace_free - free a trace; accepts NULL. */
void trace_free(struct trace *tr);

/*
 * trace_write - write `tr` in the trace format to `f`: the magic, `unit`
 * (if the input declared one), `thread` names, `sem` initial values, then
 * the records in file order.  Reading the output gives an equal trace; the
 * output equals the original file modulo comments and whitespace.
 * Returns 0, or -1 on an I/O error (errno set).
 */
int trace_write(const struct trace *tr, FILE *f);

/*
 * Compressed traces.  trace_read_file and trace_read_mem read a trace
 * compressed with zstd (a `.trace.zst`, one or more frames) as they read
 * the text: they recognize it by its first four bytes (the zstd magic
 * number), whatever the file's name, and decompress as they go (the text
 * is never whole in memory).  Bad or truncated compressed data is an
 * error like any other ("f.trace.zst: truncated zstd data (the compressed
 * file is cut)").
 *
 * trace_zst_name - 1 if path ends in ".zst" (the writers' convention:
 * such an output is compressed), else 0.
 *
 * trace_zst_writer - a FILE that compresses what is written to it (zstd
 * at `level`, 1..19; 3 is zstd's default) into `under`.  fclose() on it
 * ends the frame and flushes `under` (which it does not close) and returns
 * EOF if any write failed.  NULL (errno set) when out of memory.
 */
int trace_zst_name(const char *path);
FILE *trace_zst_writer(FILE *under, int level);

/*
 * trace_dec - v in decimal at p, without a terminator; returns the end
 * (at most p + TRACE_DEC_MAX).  Two digits per division from one table,
 * inline: the writers (trace_write, the recorder's spool conversion)
 * format some ten numbers a record.
 */
#define TRACE_DEC_MAX 20 /* digits of UINT64_MAX */
extern const char trace_dec2[201]; /* "00".."99", util.c */
static inline char *trace_dec(char *p, uint64_t v)
{
	int n = 0;
	uint64_t x = v;
	for (; x >= 100; x /= 100)
		n += 2;
	n += x >= 10 ? 2 : 1; /* the leading group x < 100 */
	char *e = p + n, *q = e;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		q -= 2;
		q[0] = trace_dec2[2 * r];
		q[1] = trace_dec2[2 * r + 1];
	}
	if (v >= 10) {
		q -= 2;
		q[0] = trace_dec2[2 * v];
		q[1] = trace_dec2[2 * v + 1];
	} else {
		*--q = (char)('0' + v);
	}
	return e;
}

/* Small accessors. */
static inline uint64_t trace_sleep_time(const struct trace_rec *r)
{
	return (uint64_t)r->a | ((uint64_t)r->b << 32);
}
/* The operation whose rule record r follows: trace_ops[r->op].effect, or
 * -1 for a `busy` trylock/trywait (which does nothing). */
static inline int trace_op_effect(const struct trace_rec *r)
{
	const struct trace_opinfo *o = &trace_ops[r->op];
	if (o->arg[1].type == TRACE_ARG_OUTCOME && !r->b)
		return -1;
	return o->effect;
}
const char *trace_op_name(enum trace_op op);       /* "create", ...      */
const char *trace_unit_name(enum trace_unit unit); /* "tick", "us", ...  */
/* Nanoseconds per trace unit `unit` (1 for ns ... 10^9 for s); 0 for
 * tick (no declared length) and for a value that is not a unit. */
uint64_t trace_unit_ns(enum trace_unit unit);
/*
 * trace_unit_suffix - the unit suffix (ns, us, ms, s) that ends s[0..n),
 * as in "4us" or "0.5ms": its length, and the unit in *unit; 0 when s
 * ends in none (or the suffix is part of a longer word: the byte before
 * it is a lowercase letter, or nothing is before it).  The one table of
 * the units' names and lengths (cli's times, bound's latencies).
 */
size_t trace_unit_suffix(const char *s, size_t n, enum trace_unit *unit);
const char *trace_kind_name(enum trace_kind kind); /* "mutex", ...       */
/* Name of thread i (dense), or NULL. */
const char *trace_thread_name(const struct trace *tr, uint32_t i);
/* "@file:line" text of record r (index), without '@', or NULL. */
const char *trace_rec_loc(const struct trace *tr, size_t r);
/* Total work of thread i, and of the whole trace; units: trace unit. */
uint64_t trace_thread_work(const struct trace *tr, uint32_t i);
uint64_t trace_total_work(const struct trace *tr);
/* trace_parse_u64 - a strict unsigned decimal: digits only (no sign,
 * blank or prefix), at most `max`.  Returns 0 and sets *out, or -1 and
 * leaves *out unaltered.  (For command-line and configuration values.) */
int trace_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Dense index of external thread id `id`, or -1. O(log n). */
int64_t trace_thread_index(const struct trace *tr, uint32_t id);

/* ---------------------------------------------------------------------
 * Binding files (docs/binding-format.md)
 */

#define TRACE_SHADOW (-1) /* processor value of a shadow thread */

/* Most processors (k) anything accepts: a binding file's `cpus` and every
 * command's --cpus are in 1..TRACE_CPUS_MAX.  Memory and output grow with
 * k (one schedule and one report line per processor), so an unbounded k
 * would let one header line ask for gigabytes. */
#define TRACE_CPUS_MAX 65536u

struct trace_binding {
	uint32_t cpus;     /* k                                               */
	uint32_t n;        /* threads (equals the trace's nthreads)           */
	int32_t *proc;     /* [n] processor per dense thread, or TRACE_SHADOW */
	/* Optional header values as written, or NULL (owned strings).
	 * advice: allocate's under a machine file, `unbound` when the
	 * binding is not predicted its margin faster than the OS, `binding`
	 * otherwise (docs/alloc.md); the reader does not check the word. */
	char *makespan, *unit, *algorithm, *trace, *bound, *lower, *map, *advice;
	/* Further header lines for the writer, `key value` each, separated
	 * by LF, written after the ones above; NULL for none.  The reader
	 * leaves it NULL (it ignores keys it does not know).  Owned. */
	char *extra;
};

/*
 * trace_binding_read - read the binding file at `path` for trace `tr`:
 * `cpus` in 1..TRACE_CPUS_MAX, every thread of the trace exactly once,
 * processors in 0..cpus-1 or `shadow`.  Unknown header keys are ignored.  Returns 0 and fills *out
 * (release with trace_binding_release); on error returns -1, zeroes *out
 * and fills *err ("file:line: reason").
 */
int trace_binding_read(const char *path, const struct trace *tr,
                       struct trace_binding *out, struct trace_error *err);
int trace_binding_read_mem(const char *name, const char *buf, size_t len,
                           const struct trace *tr, struct trace_binding *out,
                           struct trace_error *err);

/* trace_binding_release - free what *b owns and zero it; accepts zeroed. */
void trace_binding_release(struct trace_binding *b);

/*
 * trace_binding_write - write a binding file: magic, `cpus`, then each
 * non-NULL optional header of `b` (makespan, unit, algorithm, trace,
 * bound, lower, map, advice), then b->extra's lines, then one line per thread in
 * increasing id order with the thread's name as a comment.  Returns 0, or
 * -1 with errno EINVAL (bad binding, or a header value with a newline or
 * `#`; an extra line that is blank or has `#`) or an I/O error's errno.
 */
int trace_binding_write(const struct trace *tr, const struct trace_binding *b,
                        FILE *f);

/* ---------------------------------------------------------------------
 * A binding carried to another recording of the program (trace/rebind.c).
 *
 * A trace numbers threads in global creation order, which a program whose
 * threads create threads (a parallel quicksort) does not repeat: two
 * recordings number the same thread differently.  A thread's creator path
 * names it in both: the initial thread "1", its j-th create "1.j", that
 * thread's i-th create "1.j.i", ...  (shadowbind-run --trace pins a run's
 * threads by the same path).  Two recordings correspond when every
 * thread has the same number of creates in both.
 */

/*
 * trace_rebind_map - for each dense thread t of `from`, map[t] = the dense
 * index in `to` of the thread with the same creator path (map has
 * from->nthreads entries; the caller's).  The names are for messages
 * only.  Returns 0 (a bijection: every thread of `to` is some map[t]); or
 * -1, map zeroed and *err filled ("TO_NAME: reason", line 0) when:
 *   - a thread of `from` has no counterpart: its creator's counterpart
 *     creates fewer threads in `to` ("no thread for thread 5 of FROM
 *     (creator path 1.2.1): thread 4, its creator's counterpart, creates 0
 *     threads here, 1 there");
 *   - a thread of `to` has none in `from` (its creator creates more there:
 *     "thread 6 (creator path 1.3) has no thread in FROM: ...");
 *   - out of memory.
 * Both traces must be valid (as trace_read_* leaves them).
 */
int trace_rebind_map(const struct trace *from, const char *from_name,
                     const struct trace *to, const char *to_name, uint32_t *map,
                     struct trace_error *err);

/*
 * trace_binding_rebind - binding `b` (made for `from`: b->n ==
 * from->nthreads) as a binding for `to`: each thread of `to` on the
 * processor of its counterpart in `from` (trace_rebind_map); `cpus` and
 * the headers `unit`, `algorithm`, `map` and `advice` copied; `makespan`,
 * `bound`, `lower` (predictions for the other trace), `trace` and `extra`
 * left NULL for the caller.  Returns 0 and fills *out (release with
 * trace_binding_release); or -1, *out zeroed and *err filled: the
 * binding's thread count is not `from`'s, the traces do not correspond
 * (trace_rebind_map's failures), out of memory.
 */
int trace_binding_rebind(const struct trace *from, const char *from_name,
                         const struct trace_binding *b, const struct trace *to,
                         const char *to_name, struct trace_binding *out,
                         struct trace_error *err);

/* ---------------------------------------------------------------------
 * SHA-256 (trace/sha256.c), for the `trace` header of binding files: the
 * digest of the trace's bytes (FIPS 180-4).
 */
struct trace_sha256 {
	uint32_t h[8];
	uint64_t len;       /* bytes so far */
	uint8_t buf[64];
	size_t nbuf;
	int portable;       /* 1: portable C, not the processor's SHA
	                       instructions; init sets 1 when the
	                       processor lacks them (tests may set 1,
	                       to compare both ways)                    */
};
/* Uses the x86 SHA extensions when the processor has them (about 5x
 * faster), else portable C; the digest is the same. */
void trace_sha256_init(struct trace_sha256 *s);
/* 1 if this processor has the SHA extensions used above. */
int trace_sha256_accelerated(void);
void trace_sha256_update(struct trace_sha256 *s, const void *data, size_t len);
/* Writes 64 lowercase hex digits and a NUL to hex[65]. */
void trace_sha256_final(struct trace_sha256 *s, char hex[65]);

/*
 * trace_read_file_sha256 - trace_read_file, and the SHA-256 of the bytes
 * it read (the file's own: compressed ones for a .zst) in hex, so that a
 * pipe need not be read twice nor a file held whole in memory.  The hash
 * is of the whole input when the read succeeds (on an error, of what was
 * read up to it).
 */
int trace_read_file_sha256(const char *path, struct trace **out, char hex[65],
                           struct trace_error *err);

#endif
