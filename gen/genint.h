/*
 * genint.h - internals of the program generator: the PRNG, the growable
 * text buffer, the program builder the families write into, the parsed
 * arguments, and the serializer that turns a program into a valid trace.
 *
 * A family's build function describes each thread's records in program
 * order (gen_prog); it never decides the file order.  gen_serialize then
 * replays the threads as one uniprocessor execution (see serial.c) and
 * writes every record where it took effect, so the file satisfies the
 * sequential-replay rule of docs/trace-format.md by construction.  A
 * program that cannot be replayed (a deadlock, an unlock of a mutex not
 * held, ...) is a generator bug and is reported as GEN_EBUG.
 */
#ifndef SHADOWBIND_GENINT_H
#define SHADOWBIND_GENINT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/gen.h"

/* ---------------------------------------------------------------------
 * PRNG: xoshiro256** seeded through splitmix64.  Same bits on every
 * machine; no floating point except gen_rng_chance, whose comparison is
 * exact in IEEE double.
 */
struct gen_rng {
	uint64_t s[4];
};

static inline uint64_t gen_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Stream `stream` of seed `seed`: independent generators for the
 * structure (stream 0) and each thread (stream = thread id). */
static inline void gen_rng_init(struct gen_rng *r, uint64_t seed,
                                uint64_t stream)
{
	uint64_t x = seed;
	uint64_t k = gen_splitmix64(&x) ^ (stream * 0xD1B54A32D192ED03ull);
	for (int i = 0; i < 4; i++)
		r->s[i] = gen_splitmix64(&k);
}

static inline uint64_t gen_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t gen_rng_next(struct gen_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = gen_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = gen_rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n), n >= 1, unbiased (rejection). */
static inline uint64_t gen_rng_below(struct gen_rng *r, uint64_t n)
{
	uint64_t lim = -n % n; /* 2^64 mod n */
	for (;;) {
		uint64_t x = gen_rng_next(r);
		if (x >= lim)
			return x % n;
	}
}

/* Uniform in [lo, hi], lo <= hi. */
static inline uint64_t gen_rng_range(struct gen_rng *r, uint64_t lo,
                                     uint64_t hi)
{
	if (hi - lo == UINT64_MAX)
		return gen_rng_next(r);
	return lo + gen_rng_below(r, hi - lo + 1);
}

/* 1 with probability p (0 <= p <= 1): u < p for u = k / 2^53, k uniform
 * in [0, 2^53).  Exact: p = 1 always, p = 0 never, p = 15/16 exactly. */
static inline int gen_rng_chance(struct gen_rng *r, double p)
{
	return (double)(gen_rng_next(r) >> 11) * 0x1p-53 < p;
}

/* ---------------------------------------------------------------------
 * Growable text buffer.  An allocation failure sets `oom` and makes
 * every later append a no-op; check it once at the end.
 */
struct gen_buf {
	char *p;
	size_t len, cap;
	int oom;
};

void gen_buf_release(struct gen_buf *b);
int gen_buf_reserve(struct gen_buf *b, size_t more);
void gen_buf_put(struct gen_buf *b, const char *s, size_t n);
void gen_buf_puts(struct gen_buf *b, const char *s);
void gen_buf_u64(struct gen_buf *b, uint64_t v);
void gen_buf_printf(struct gen_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------------
 * Parsed arguments (gen.c fills them from gen_opts and the tables).
 */
#define GEN_MAX_PARAMS 24

struct gen_args {
	const struct gen_family *fam;
	uint32_t threads;      /* as given; 0 when not given              */
	uint64_t seed;
	uint64_t quantum;      /* serializer time slice; trace units       */
	int unit;              /* enum trace_unit, or -1: no unit line     */
	int names;             /* write `thread` name lines                */
	int header;            /* write the comment header                 */
	int64_t v[GEN_MAX_PARAMS];  /* GEN_P_INT value, GEN_P_ENUM index  */
	double d[GEN_MAX_PARAMS];   /* GEN_P_REAL value                    */
	unsigned char given[GEN_MAX_PARAMS]; /* set explicitly by caller  */
};

/* ---------------------------------------------------------------------
 * Program builder.  Thread ids are 1..nthreads (thread 1 is the initial
 * thread); object ids of each kind are 1..n.  Appends never fail: an
 * allocation failure sets p->oom, checked by gen.c after build.
 */
struct gen_rec {
	uint64_t work; /* trace units */
	uint32_t a, b; /* operands, external ids (see enum trace_op)   */
	uint8_t op;    /* enum trace_op                                 */
};

#define GEN_THREAD_NAME 40

struct gen_thread {
	struct gen_rec *rec;
	size_t n, cap;
	uint64_t pending;          /* work not yet attached to a record */
	char name[GEN_THREAD_NAME]; /* "" when unnamed                   */
};

struct gen_prog {
	uint32_t nthreads;
	struct gen_thread *th;     /* [nthreads], index = id - 1         */
	uint32_t nsem, nmutex, nbarrier;
	uint32_t *sem_init;        /* [nsem + 1], by id                  */
	size_t sem_cap;
	struct gen_info info;
	int oom;
	int overflow;              /* some work reached TRACE_WORK_LIMIT */
	int bug;                   /* builder misuse (a family bug)      */
};

/* Allocate threads 1..n (once).  Returns 0, or -1 (p->oom). */
int gen_prog_threads(struct gen_prog *p, uint32_t n);
void gen_prog_release(struct gen_prog *p);
void gen_name(struct gen_prog *p, uint32_t tid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* New objects; ids from 1.  A semaphore with `init` tokens. */
uint32_t gen_sem_new(struct gen_prog *p, uint32_t init);
uint32_t gen_mutex_new(struct gen_prog *p);
uint32_t gen_barrier_new(struct gen_prog *p);

/* Work for thread tid, attached to its next record. */
void gen_work(struct gen_prog *p, uint32_t tid, uint64_t w);
/* Append a record with the pending work. */
void gen_op(struct gen_prog *p, uint32_t tid, int op, uint32_t a, uint32_t b);

static inline void gen_create(struct gen_prog *p, uint32_t t, uint32_t c)
{
	gen_op(p, t, TRACE_CREATE, c, 0);
}
static inline void gen_exit(struct gen_prog *p, uint32_t t)
{
	gen_op(p, t, TRACE_EXIT, 0, 0);
}
static inline void gen_join(struct gen_prog *p, uint32_t t, uint32_t c)
{
	gen_op(p, t, TRACE_JOIN, c, 0);
}
static inline void gen_wait(struct gen_prog *p, uint32_t t, uint32_t s)
{
	gen_op(p, t, TRACE_WAIT, s, 0);
}
static inline void gen_post(struct gen_prog *p, uint32_t t, uint32_t s)
{
	gen_op(p, t, TRACE_POST, s, 0);
}
static inline void gen_lock(struct gen_prog *p, uint32_t t, uint32_t m)
{
	gen_op(p, t, TRACE_LOCK, m, 0);
}
static inline void gen_unlock(struct gen_prog *p, uint32_t t, uint32_t m)
{
	gen_op(p, t, TRACE_UNLOCK, m, 0);
}
static inline void gen_barrier(struct gen_prog *p, uint32_t t, uint32_t b,
                               uint32_t n)
{
	gen_op(p, t, TRACE_BARRIER, b, n);
}

/* Set info item `name` (a string literal) to v, replacing an old value. */
void gen_info_set(struct gen_info *in, const char *name, uint64_t v);
void gen_info_add(struct gen_info *in, const char *name, uint64_t v);

/* "out of memory" into err; returns GEN_ENOMEM. */
int gen_oom(char *err, size_t errlen);
/* Format an error into err (may be NULL) and return GEN_EINVAL. */
int gen_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------------
 * Serializer (serial.c): write program p as a trace into out, after the
 * header lines in `head` (already formatted comments, may be empty).
 * Returns GEN_OK, GEN_ENOMEM, or GEN_EBUG (message in err) when the
 * program cannot be replayed.
 */
int gen_serialize(const struct gen_prog *p, const struct gen_args *a,
                  const char *head, struct gen_buf *out, char *err,
                  size_t errlen);

/* ---------------------------------------------------------------------
 * The families (fam_*.c).  gen.c lists them in gen_family_table.
 */
extern const struct gen_family gen_fam_transactions;
extern const struct gen_family gen_fam_pipeline;
extern const struct gen_family gen_fam_forkjoin;
extern const struct gen_family gen_fam_prodcons;
extern const struct gen_family gen_fam_worstcase;
extern const struct gen_family gen_fam_dag;

#endif
