/*
 * traceint.h - internals of the trace module, shared by the trace/ sources and by
 * the trace tests (which shrink the reader's limits to reach them).
 * Nothing here is part of the public interface.
 */
#ifndef SHADOWBIND_TRACEINT_H
#define SHADOWBIND_TRACEINT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/* ---------------------------------------------------------------------
 * Reader limits.  trace_read_file/trace_read_mem use the defaults; tests
 * and the fuzzer shrink them to reach the limit errors and the chunk
 * boundary code with small inputs.
 */
struct trace_limits {
	uint32_t max_line;   /* largest line number allowed (default
	                        UINT32_MAX - 1, TRACE_NONE is reserved)      */
	uint64_t max_rec;    /* most records (default UINT32_MAX: record
	                        indices stay below TRACE_NONE)              */
	uint64_t max_work;   /* exclusive bound of total work + total sleep;
	                        units: trace unit (default TRACE_WORK_LIMIT) */
	size_t chunk;        /* bytes per read; units: bytes (default 1 MiB) */
	size_t buf_init;     /* initial line buffer; units: bytes (1 MiB)    */
	size_t buf_max;      /* largest line buffer; units: bytes (64 MiB).
	                        A line longer than this, after dropping its
	                        comment and squeezing runs of blanks, is an
	                        error.                                       */
	uint64_t seed;       /* key of the hash maps (struct tr_hash); 0 (the
	                        default): a fresh random key for each read.
	                        No result depends on it.                    */
	struct tr_probes *probes; /* NULL, or filled with the maps' work
	                        counts at the end of the read (tests)       */
	int slow_only;       /* 1: every record by the general parser, not
	                        the fast path (tests: same results)         */
};

/* Work of the hash maps during one read: inserts of new keys, and slots
 * examined by those inserts (the probe walk to the empty slot, >= 1 per
 * insert).  obj: object ids (all kinds); loc: locations; rd: read holds
 * of the validator. */
struct tr_probes {
	uint64_t obj_inserts, obj_probes;
	uint64_t loc_inserts, loc_probes;
	uint64_t rd_inserts, rd_probes;
};

/* trace_limits_default - fill *lim with the defaults above. */
void trace_limits_default(struct trace_limits *lim);

/*
 * trace_read_mem_lim, trace_read_file_lim - trace_read_mem and
 * trace_read_file with explicit limits (NULL: the defaults).  Same
 * contract otherwise.
 */
int trace_read_mem_lim(const char *name, const char *buf, size_t len,
                       const struct trace_limits *lim, struct trace **out,
                       struct trace_error *err);
int trace_read_file_lim(const char *path, const struct trace_limits *lim,
                        struct trace **out, struct trace_error *err);

/* ---------------------------------------------------------------------
 * Error helpers.
 */

/* Quoted token: 'text', at most TR_QUOTE_MAX bytes of the token then
 * "...", every byte outside 0x20..0x7e (and the backslash) as \xNN. */
#define TR_QUOTE_MAX 40
struct tr_quote {
	char s[2 + TR_QUOTE_MAX * 4 + 3 + 1];
};
const char *tr_quote(struct tr_quote *q, const char *s, size_t n);

/* Fill *e with "file:line: reason" (line 0: "file: reason").  The file
 * name is escaped like a token (without quotes) and shortened to its last
 * 200 bytes. */
void tr_verr(struct trace_error *e, const char *file, uint32_t line,
             const char *fmt, va_list ap);
void tr_err(struct trace_error *e, const char *file, uint32_t line,
            const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Index of the name `s` (n bytes) in names[0..count), or -1; *suggest is
 * set to the index of the nearest name at edit distance <= 2 (optimal
 * string alignment, case-insensitive), or -1. */
/* The names of enum trace_unit, by value ("tick", "ns", ...; TRACE_NUNITS
 * of them), as the `unit` lines of traces and binding files spell them. */
#define TRACE_NUNITS 5
extern const char *const tr_unit_names[TRACE_NUNITS];

int tr_lookup(const char *const *names, int count, const char *s, size_t n,
              int *suggest);

/* ---------------------------------------------------------------------
 * Keyed hashing (hash.c), so that reading stays linear on any ids:
 * simple tabulation (Patrascu and Thorup, "The power of simple tabulation
 * hashing", 2011: linear probing takes expected constant time per
 * operation whatever the keys) with tables drawn from a random key per
 * read.  Strings are first reduced to a number: those of up to 32 bytes
 * to 32 bits by strongly universal multilinear hashing (Lemire and Kaser,
 * "Strongly universal string hashing is fast", 2014: two different
 * strings collide with probability 2^-32), longer ones to 61 bits by a
 * polynomial with a random base modulo 2^61 - 1 (probability below
 * (n/7 + 2) / 2^61); then tabulation.  The key is secret to the input,
 * so no input can be crafted to collide.  Nothing depends on the key:
 * dense indices and string offsets follow first appearance, never the
 * order of the slots.
 */
struct tr_hash {
	uint64_t t[8][256];  /* tabulation tables, one per key byte         */
	uint64_t ml[10];     /* multilinear keys                            */
	uint64_t base;       /* string polynomial base, in [1, 2^61 - 1)    */
};

/* tr_hash_init - draw the tables from `seed` (0: from getrandom, else
 * from the clock and addresses when that fails). */
void tr_hash_init(struct tr_hash *h, uint64_t seed);

static inline uint64_t tr_hash32(const struct tr_hash *h, uint32_t k)
{
	return h->t[0][k & 255] ^ h->t[1][(k >> 8) & 255] ^
	       h->t[2][(k >> 16) & 255] ^ h->t[3][k >> 24];
}

static inline uint64_t tr_hash64(const struct tr_hash *h, uint64_t k)
{
	return tr_hash32(h, (uint32_t)k) ^ h->t[4][(k >> 32) & 255] ^
	       h->t[5][(k >> 40) & 255] ^ h->t[6][(k >> 48) & 255] ^
	       h->t[7][k >> 56];
}

/* The hash of the n bytes at s; reads (but does not use) up to 7 bytes
 * past s + n, which must be readable (the line buffer and the string
 * pool keep TR_PAD spare bytes). */
uint64_t tr_hash_bytes(const struct tr_hash *h, const char *s, size_t n);
#define TR_PAD 16
#define TR_LOCCACHE_BITS 8

/* ---------------------------------------------------------------------
 * Pass 1 (read.c) -> pass 2 (validate.c).
 */

/* External id -> dense index, per object kind: ids below dcap in a
 * direct table (no hashing: traces mostly number their objects from 0 or
 * 1 up), the others in a keyed open-addressing map.  The direct table
 * grows to cover a new id while it stays at most TR_DIR_SPREAD times the
 * objects (or TR_DIR_MIN entries): 4 * TR_DIR_SPREAD bytes per object at
 * most, whatever the ids. */
#define TR_OBJCACHE 64
#define TR_DIR_MIN 4096
#define TR_DIR_SPREAD 8

/* tr_p1.sem_init: the semaphore was declared by a `sem` line (its value
 * is below 2^31, TRACE_ID_LIMIT) */
#define TR_SEM_DECLARED 0x80000000u

struct tr_obj {
	uint32_t *dir;   /* [dcap] dense index of id, or TRACE_NONE         */
	uint32_t dcap;   /* ids below it are (only) in dir[]: 0 or a power
	                    of two                                          */
	uint64_t *slot;  /* key << 32 | index; empty: UINT64_MAX            */
	uint32_t mask;   /* slots - 1                                       */
	int shift;       /* 64 - log2(slots)                                */
	uint32_t hn;     /* ids in slot[]                                   */
	uint32_t n;      /* objects                                         */
	struct {         /* ids seen lately, by id mod TR_OBJCACHE (a miss
	                    costs one lookup in slot[], so no input makes it
	                    slower than without); key UINT32_MAX: empty     */
		uint32_t key, idx;
	} cache[TR_OBJCACHE];
	uint32_t cap;    /* capacity of id[] and of the side arrays         */
	uint32_t *id;    /* [n] external ids, in order of first appearance */
};

/* Operation names -> enum trace_op, built from trace_ops: names of 1 to
 * 16 bytes as two little-endian words (zero-padded). */
#define TR_OPMAP_BITS 6
struct tr_opmap {
	uint64_t w0[1 << TR_OPMAP_BITS], w1[1 << TR_OPMAP_BITS];
	uint8_t len[1 << TR_OPMAP_BITS];   /* its length; 0: empty slot      */
	uint8_t op[1 << TR_OPMAP_BITS];
	uint8_t one[TRACE_NOPS];   /* by op: 1 + the kind of its only operand
	                              if that is an object, else 0         */
};
void tr_opmap_init(struct tr_opmap *m);

struct tr_p1 {
	const char *file;          /* name for messages                    */
	struct trace_error *err;
	struct trace_limits lim;
	uint32_t line;             /* current line (1-based)               */
	uint32_t err_line;         /* line of the syntax error, or 0; an
	                              error not about a line: UINT32_MAX   */
	uint32_t squeezed_line;    /* line shortened by the buffer (no
	                              column in its messages), or 0        */
	const char *line_start;
	struct tr_opmap opmap;
	struct tr_hash hash;       /* keys of obj[] and locset            */
	struct tr_probes probes;
	int fatal;                 /* out of memory or I/O error: no replay */
	int magic;                 /* 1 after the magic line               */
	uint32_t magic_line;
	int unit_declared;
	uint32_t unit_line;
	enum trace_unit unit;
	uint64_t total;            /* work + sleep so far; units: trace unit */

	/* records in file order (packed, struct tr_rec1), each with its
	 * thread (in first-appearance order): in its b field when its
	 * operation has no b (tr_bused), else in tid[], in file order */
	struct tr_rec1 *rec;
	uint32_t *tid;
	size_t ntid, tidcap;
	uint32_t bused;            /* tr_bused()                           */
	uint32_t last_line;        /* line of the last record stored       */
	struct tr_esc *esc;        /* records that do not pack, file order */
	size_t nesc, esccap;
	uint32_t *loc;             /* NULL until the first location        */
	size_t nrec, rcap;

	struct tr_obj obj[TRACE_NKINDS];
	/* side arrays of obj[TRACE_K_THREAD]; th_last: its last record so
	 * far, th_cw0: its first record if that is a cwait (else NONE),
	 * th_nrec: its records */
	uint32_t *th_name, *th_name_line, *th_first_use, *th_last, *th_cw0;
	uint32_t *th_nrec;
	/* cwaits after a thread's earlier record: prev << 32 | cwait, both
	 * record indices, in the order of the cwaits; rec[prev] has
	 * TR1_CWNEXT */
	uint64_t *cw;
	size_t ncw, cwcap;
	/* side arrays of obj[TRACE_K_SEM] (4 bytes each per semaphore: the
	 * dag trace has one per two records).  sem_init: the initial tokens
	 * (< 2^31), | TR_SEM_DECLARED once a `sem` line declared it;
	 * sem_line: the line of that declaration, else of its first use (0:
	 * added by a declaration being read); a declaration after a use is
	 * an error, so one line each is enough.  tr_finish splits them into
	 * trace.sem_init and trace.sem_declared (reusing sem_line's array). */
	uint32_t *sem_init, *sem_line;

	/* string pool and the set of locations in it */
	char *str;
	size_t slen, scap;
	uint32_t *locset;          /* offsets; empty: UINT32_MAX           */
	uint64_t *lochash;         /* tr_hash_bytes of each slot's string  */
	struct tr_loccache {       /* recent locations of up to 16 bytes,
	                              direct-mapped by their bytes (a miss
	                              costs one lookup in locset, so no
	                              input makes it slower than without) */
		uint64_t w0, w1;   /* the bytes, zero-padded               */
		uint32_t n, off;   /* length (0: empty), string offset     */
	} loccache[1 << TR_LOCCACHE_BITS];
	uint32_t locmask, nlocs;
};

/* A record of pass 1, packed into 12 bytes (pass 2 unpacks it into its
 * struct trace_rec): the work (below 2^24), the line as the difference
 * from the previous record's (1 or 2: records on consecutive lines, or
 * one line between), the operation, and whether the thread's next record
 * is a cwait (the replay registers the waiter right after this record).
 * A record whose work or line difference does not fit has the difference
 * TR1_ESC and its work and line in the next entry of tr_p1.esc (16 more
 * bytes).  (12 bytes per record with its thread while reading, not 28:
 * fewer pages to fault in, which cost 1.5-2.8 us each on the machine of
 * docs/trace.md.  16 bytes with a 48-bit work until 2026-11-26: works of
 * 2^24 units and more, 16.8 ms in ns, are rare in long traces, whose
 * records are many because their works are short.) */
struct tr_rec1 {
	uint32_t wl;    /* work | difference << 24 | op << 26 | TR1_CWNEXT */
	uint32_t a, b;  /* as struct trace_rec's; b: the thread if the
	                   operation has no b (tr_bused)                   */
};
/* Bit op set: operation op has a b field (a second operand, or a sleep's
 * high half).  Operations without one (most records) keep their thread
 * in b: 16 bytes per record while reading, not 20 (one page fault in 12
 * fewer per record). */
static inline uint32_t tr_bused(void)
{
	uint32_t m = 0;
	for (int op = 0; op < TRACE_NOPS; op++)
		if (trace_ops[op].arg[1].type != TRACE_ARG_NONE ||
		    trace_ops[op].arg[0].type == TRACE_ARG_DURATION)
			m |= 1u << op;
	return m;
}
#define TR1_WORK_MASK ((1u << 24) - 1)
#define TR1_DIFF_SHIFT 24
#define TR1_ESC 3u
#define TR1_OP_SHIFT 26
#define TR1_CWNEXT (1u << 31)
struct tr_esc {
	uint64_t work;  /* units: trace unit */
	uint32_t line;
};

void tr_p1_release(struct tr_p1 *P);

/* tr_big_alloc - malloc(bytes) (at least 1), the 2 MB-aligned inside of
 * a block of 8 MB or more advised for transparent huge pages
 * (MADV_HUGEPAGE) before anything touches it: for the large arrays that
 * pass 1 and the check's replay fill (trace/util.c).  NULL when out of
 * memory; free() it. */
void *tr_big_alloc(size_t bytes);

/*
 * tr_finish - pass 2: permute the records of P into thread-major order,
 * replay them in file order (docs/trace-format.md, Order), fill pair[],
 * and build the trace.  With `truncated` (pass 1 stopped at a syntax error
 * on line P->err_line), only the lines before it are replayed, the
 * end-of-file checks are skipped, and a replay error replaces the syntax
 * error in *P->err; the function then always returns -1.  Consumes P's
 * arrays (P must still be released).  Returns 0 and sets *out, or -1.
 */
int tr_finish(struct tr_p1 *P, int truncated, struct trace **out);

/* ---------------------------------------------------------------------
 * zstd input (trace/zst.c): the reader decompresses a trace that starts
 * with a zstd frame as it reads it.
 */
#include <sys/types.h>

struct tr_zin;
/* 1 if the n bytes at p begin with the zstd magic number (28 B5 2F FD). */
int tr_zst_magic(const void *p, size_t n);
/* A new decompressor, or NULL (out of memory). */
struct tr_zin *tr_zin_new(void);
void tr_zin_free(struct tr_zin *z); /* accepts NULL */
/* Up to n decompressed bytes into dst, pulling compressed bytes with
 * more(ctx, buf, cap) (bytes read, 0 at the end, < 0 on error with
 * errno).  Returns the bytes produced (> 0); 0 at the end of the input,
 * every frame complete; -1 when more failed (errno); -2 on bad or
 * truncated data (tr_zin_error says which, one line). */
ssize_t tr_zin_read(struct tr_zin *z, char *dst, size_t n,
                    ssize_t (*more)(void *, char *, size_t), void *ctx);
const char *tr_zin_error(const struct tr_zin *z);

#endif
