/*
 * rp_state.c - the recorder's state: the lock G, the record buffer and
 * the spool it streams to, the object table, and finishing the spool at
 * exit or on SIGINT/SIGTERM (rp.h, record.h, docs/record.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "record/preload/rp.h"

int rp_mode;
volatile int rp_finished;
__thread struct rp_thread *rp_self __attribute__((tls_model("initial-exec")));
struct rp_real rp_real;

struct rp_hot rp_hot;                 /* G, the sequence, the buffer (rp.h) */
__thread char rp_g_me __attribute__((tls_model("initial-exec")));
static int g_spin;                    /* G: tries before sleeping (0 on one
                                         CPU: its holder cannot run then) */
/* Tries on more CPUs: pauses of 27 ns here, so about 80 us, which covers
 * G's holds but a preempted holder's.  A waiter that sleeps leaves G
 * marked contended, and every release after is a futex system call
 * until a release finds no waiter: BARNES (4 threads) recorded on 2 CPUs
 * took 0.70-0.77 s with 100 tries, 0.44-0.60 s with 3000 (2026-11-26,
 * under load; lockprobe's 2 threads the same either way). */
#define RP_G_SPIN 3000
static int g_oom;                     /* a table could not grow           */
static int g_ioerr;                   /* errno of a failed spool write    */
static int g_inited;
static char g_path[4096];             /* the spool file                   */

/* the spool (record.h): its file, its header page (mapped shared, so
 * that it survives the process) and its blocks: each thread's buffer
 * (a block mapped shared) and the full buffers copied out */
static int g_fd = -1;
static struct rec_spool_head *g_head;
static uint32_t g_block;              /* slots (32 bytes) per block       */
static uint64_t g_end;                /* the file's size: the next block's
                                         offset; bytes (under g_blk)      */
static int g_blk;                     /* the block allocator's lock       */
static uint64_t g_alloc;              /* bytes allocated (fallocate)      */
static uint64_t g_ahead = 8u << 20;   /* allocated at a time; bytes (0:
                                         none; SHADOWBIND_SPOOL_AHEAD)    */
/* 1: rp_write_trace's membarrier (MEMBARRIER_CMD_PRIVATE_EXPEDITED) puts
 * a full barrier in every running thread of the process, so that
 * rp_emit_fast needs none of its own (an asymmetric Dekker, as in
 * liburcu): BARNES recorded on two CPUs spent 75% of rp_emit_fast's
 * samples, 6% of the process's, just after the exchange that made
 * `app` visible (2026-11-27, perf record -e cpu-clock). 0: the kernel
 * refused to register; rp_emit_fast exchanges. */
static int g_membar;

/* threads by id (1-based); capacity in pointers */
static struct rp_thread **g_th;
static uint32_t g_nth, g_thcap;

/* object table: open addressing, power-of-two size (rp_hot.objtab) */
static size_t g_objcap, g_objn;
static uint32_t g_next_id[TRACE_NKINDS];
/* the mutexes by id (their stamps for the records under G); capacity */
static struct rp_obj **g_mx;
static uint32_t g_mxcap;

static void *rp_mmap(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* old, an rp_mmap'd array of *cap elements of elem bytes (NULL when *cap
 * is 0), grown to hold at least need: its capacity doubled (first when
 * it had none) until it does, the elements copied, old unmapped, *cap
 * set; the new array, or NULL when out of memory (old and *cap as they
 * were).  The caller serialises. */
static void *rp_grow(void *old, uint32_t *cap, uint32_t need, uint32_t first, size_t elem)
{
	uint32_t ncap = *cap ? *cap * 2 : first;
	while (ncap < need)
		ncap *= 2;
	void *n = rp_mmap((size_t)ncap * elem);
	if (!n)
		return NULL;
	if (old) {
		memcpy(n, old, (size_t)*cap * elem);
		munmap(old, (size_t)*cap * elem);
	}
	*cap = ncap;
	return n;
}

uint64_t rp_ts_ns(const struct timespec *ts)
{
	if (ts->tv_sec < 0)
		return 0;
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

uint64_t rp_until(clockid_t clk, const struct timespec *deadline, const struct timespec *now)
{
	struct timespec n;
	if (!now) {
		clock_gettime(clk, &n);
		now = &n;
	}
	uint64_t d = rp_ts_ns(deadline), s = rp_ts_ns(now);
	return d > s ? d - s : 0;
}

static long futex(int *w, int op, int v)
{
	return syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

/* One spin-wait hint: x86's PAUSE (about 27 ns here, see RP_G_SPIN),
 * elsewhere a compiler barrier only, so the file builds on every
 * architecture Debian has. */
static inline void g_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* One step of a wait for another thread: a pause, and every
 * RP_SPIN_YIELD steps a sched_yield (the other thread may be preempted
 * on this CPU).  *i counts the steps. */
static void backoff(unsigned *i)
{
	if (++*i % RP_SPIN_YIELD)
		g_pause();
	else
		rp_real.yield();
}

/* G taken (U. Drepper, "Futexes are tricky", mutex 3): spin a little
 * when another CPU may be releasing it, then sleep marked 2. */
void rp_g_wait(void)
{
	for (int i = 0; i < g_spin; i++) {
		g_pause();
		int z = 0;
		if (__atomic_load_n(&rp_hot.g, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&rp_hot.g, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
	}
	while (__atomic_exchange_n(&rp_hot.g, 2, __ATOMIC_ACQUIRE) != 0)
		futex(&rp_hot.g, FUTEX_WAIT_PRIVATE, 2);
}

void rp_g_wake(void)
{
	futex(&rp_hot.g, FUTEX_WAKE_PRIVATE, 1);
}

/* ---- objects ---- */

/* Items of one size carved from anonymous mappings of `n` items each,
 * never freed (a pointer stays valid for the process's life); the item
 * is zeroed (fresh anonymous memory), NULL when out of memory.  The
 * caller serialises (G). */
struct rp_chunks {
	char *next;  /* the next item of the current mapping */
	size_t left; /* items left in it                     */
};

static void *chunk_take(struct rp_chunks *c, size_t size, size_t n)
{
	if (!c->left) {
		c->next = rp_mmap(n * size);
		if (!c->next)
			return NULL;
		c->left = n;
	}
	c->left--;
	void *p = c->next;
	c->next += size;
	return p;
}

/* The objects themselves, in chunks that are never freed (so that a
 * pointer a lock-free lookup found stays valid): RP_OBJ_CHUNK at a time. */
#define RP_OBJ_CHUNK 4096
static struct rp_chunks g_objs;

static struct rp_obj *obj_alloc(void)
{
	return chunk_take(&g_objs, sizeof(struct rp_obj), RP_OBJ_CHUNK);
}

static int rp_obj_grow(void)
{
	size_t ncap = g_objcap ? g_objcap * 2 : 4096;
	struct rp_objtab *n = rp_mmap(sizeof *n + ncap * sizeof *n->e);
	if (!n)
		return -1;
	n->mask = ncap - 1;
	for (size_t i = 0; i < g_objcap; i++) {
		struct rp_obj *o = rp_hot.objtab->e[i];
		if (!o)
			continue;
		size_t j = rp_obj_hash(o->key, o->kind) & n->mask;
		while (n->e[j])
			j = (j + 1) & n->mask;
		n->e[j] = o;
	}
	/* the old table stays mapped: rp_obj_peek may be probing it */
	__atomic_store_n(&rp_hot.objtab, n, __ATOMIC_RELEASE);
	g_objcap = ncap;
	return 0;
}

struct rp_obj *rp_obj_find(uintptr_t key, int kind)
{
	if ((g_objn + 1) * 2 > g_objcap && rp_obj_grow() < 0) {
		g_oom = 1;
		return NULL;
	}
	struct rp_objtab *tab = rp_hot.objtab;
	size_t j = rp_obj_hash(key, kind) & tab->mask;
	while (tab->e[j]) {
		if (tab->e[j]->key == key && tab->e[j]->kind == kind)
			return tab->e[j];
		j = (j + 1) & tab->mask;
	}
	struct rp_obj *o = obj_alloc();
	if (!o) {
		g_oom = 1;
		return NULL;
	}
	o->key = key;
	o->kind = (uint8_t)kind;
	__atomic_store_n(&tab->e[j], o, __ATOMIC_RELEASE);
	g_objn++;
	return o;
}

static void emit_decl(int op, uint64_t a, uint64_t b);

static void mx_note(struct rp_obj *o)
{
	if (o->id >= g_mxcap) {
		struct rp_obj **n = rp_grow(g_mx, &g_mxcap, o->id + 1, 1024, sizeof *g_mx);
		if (!n) {
			g_oom = 1;
			return;
		}
		g_mx = n;
	}
	g_mx[o->id] = o;
}

uint32_t rp_obj_newid(struct rp_obj *o)
{
	o->id = ++g_next_id[o->kind];
	if (g_head && o->id > g_head->ids)
		g_head->ids = o->id; /* the converter's bound */
	if (o->kind == TRACE_K_MUTEX)
		mx_note(o);
	if (o->kind == TRACE_K_SEM && o->has_init) {
		/* its sem_init value, declared where it is first used */
		o->count = o->init;
		if (o->init)
			emit_decl(REC_SPOOL_SEMINIT, o->id, o->init);
	}
	return o->id;
}

void rp_obj_reinit(const void *addr, int kind, uint32_t init)
{
	struct rp_obj *o = rp_obj(addr, kind);
	if (!o)
		return;
	uintptr_t key = o->key;
	uint64_t stamp = o->stamp; /* stamps never go back */
	memset(o, 0, sizeof *o);
	o->stamp = stamp;
	o->kind = (uint8_t)kind;
	__atomic_store_n(&o->key, key, __ATOMIC_RELEASE); /* rp_obj_peek */
	o->init = init;
	o->has_init = 1;
}

void rp_sem_take(struct rp_obj *o)
{
	/* a token the recorder did not see (sem_open, or initialized before
	 * the recorder started) is an initial token: rec_spool_convert
	 * counts them from the records */
	if (o->count > 0)
		o->count--;
}

/* ---- condition variables ----
 *
 * The trace says, for each signal/broadcast, how many waiters it woke,
 * and each woken waiter's `cwait` must follow it; a waiter counts as
 * registered from its previous record on.  glibc does not say whom a
 * signal woke, so the recorder decides: a signal claims the oldest
 * unclaimed waiter, a broadcast all of them.  A waiter that returns
 * without a claim (the kernel woke another one than we chose, or a
 * timeout) takes over the claim of a still-blocked waiter if that claim
 * was made when it was already registered (so the same signal could have
 * woken it); else it is recorded as not woken (docs/record.md).
 */

void rp_cv_register(struct rp_obj *c, struct rp_thread *t)
{
	t->cw_ticket = ++c->reg;
	t->cw_claimed = 0;
	t->cw_next = NULL;
	struct rp_thread **p = &c->wq;
	while (*p)
		p = &(*p)->cw_next;
	*p = t;
}

uint32_t rp_cv_claim(struct rp_obj *c, int all)
{
	uint32_t n = 0;
	for (struct rp_thread *w = c->wq; w; w = w->cw_next) {
		if (w->cw_claimed)
			continue;
		w->cw_claimed = 1;
		w->cw_limit = c->reg;
		n++;
		if (!all)
			break;
	}
	return n;
}

int rp_cv_leave(struct rp_obj *c, struct rp_thread *t, int returned)
{
	if (!t->cw_claimed && returned) {
		for (struct rp_thread *w = c->wq; w; w = w->cw_next)
			if (w != t && w->cw_claimed && w->cw_limit >= t->cw_ticket) {
				w->cw_claimed = 0;
				t->cw_claimed = 1;
				t->cw_limit = w->cw_limit;
				break;
			}
	}
	for (struct rp_thread **p = &c->wq; *p; p = &(*p)->cw_next)
		if (*p == t) {
			*p = t->cw_next;
			break;
		}
	t->cw_next = NULL;
	return t->cw_claimed;
}

/* ---- the spool ---- */

static void spool_pwrite(const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;
	while (len && !g_ioerr) {
		ssize_t w = pwrite(g_fd, p, len, (off_t)off);
		if (w < 0) {
			if (errno != EINTR)
				g_ioerr = errno;
		} else {
			p += w;
			len -= (size_t)w;
			off += (uint64_t)w;
		}
	}
}

/* A block's header and its records at off, in one write (pwritev): one
 * system call per block instead of two, and the block's first page
 * written whole, so the file system does not zero the rest of a new
 * page for a 16-byte write first (rec37, docs/record.md "Where BARNES's
 * recording's cost goes"); a short write goes on with spool_pwrite.
 * After an I/O error nothing more is written, as spool_pwrite. */
static void spool_pwrite2(const struct rec_spool_rec *h, const struct rec_spool_rec *r, size_t n,
                          uint64_t off)
{
	struct iovec v[2] = {
		{.iov_base = (void *)h, .iov_len = sizeof *h},
		{.iov_base = (void *)r, .iov_len = n * sizeof *r},
	};
	size_t len = v[0].iov_len + v[1].iov_len;
	ssize_t w;
	if (g_ioerr)
		return;
	do
		w = pwritev(g_fd, v, 2, (off_t)off);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		g_ioerr = errno;
		return;
	}
	if ((size_t)w >= len)
		return;
	/* short: the rest, byte-wise from where it stopped */
	size_t done = (size_t)w;
	if (done < sizeof *h) {
		spool_pwrite((const char *)h + done, sizeof *h - done, off + done);
		done = sizeof *h;
	}
	spool_pwrite((const char *)r + (done - sizeof *h), len - done, off + done);
}

/* g_blk, the block allocator's lock (any thread, without G) */
static void blk_lock(void)
{
	unsigned i = 0;
	while (__atomic_exchange_n(&g_blk, 1, __ATOMIC_ACQUIRE))
		backoff(&i);
}

static void blk_unlock(void)
{
	__atomic_store_n(&g_blk, 0, __ATOMIC_RELEASE);
}

/* A new block at the spool's end: its offset, or -1 (g_ioerr set).  The
 * file is allocated g_ahead bytes at a time (fallocate: the blocks'
 * writes then neither extend the file nor allocate its blocks, page by
 * page); without it (g_ahead 0, or a file system that cannot), grown to
 * hold a buffer when `map` (a copied block's pwrite grows it: an
 * ftruncate per block was 2% of BARNES's recorded process).  Any
 * thread, without G: a lock of its own. */
static int64_t blk_new(int map)
{
	blk_lock();
	uint64_t off = g_end, len = (uint64_t)g_block * sizeof(struct rec_spool_rec);
	int64_t r = -1;
	if (off + len > g_alloc && g_ahead) {
		uint64_t n = g_ahead > len ? g_ahead : len;
		if (fallocate(g_fd, 0, (off_t)g_alloc, (off_t)(off + n - g_alloc)) == 0)
			g_alloc = off + n;
		else
			g_ahead = 0; /* not here: as before */
	}
	if (!map || off + len <= g_alloc || ftruncate(g_fd, (off_t)(off + len)) == 0) {
		g_end = off + len;
		r = (int64_t)off;
	} else {
		g_ioerr = errno;
	}
	blk_unlock();
	return r;
}

/* A full buffer's block into the spool (rec_spool_out): at the
 * spool's end, without G (the block allocator's lock). */
static void blk_out(void *ctx, const struct rec_spool_rec *h, const struct rec_spool_rec *r,
                    uint32_t n)
{
	(void)ctx;
	int64_t off = blk_new(0);
	if (off >= 0) {
		spool_pwrite2(h, r, n, (uint64_t)off);
	}
}

/* The buffers of threads that ended (rec_spool_buf_release), for the
 * next threads' buf_open: a thread per task then maps, faults in and
 * allocates a block of the spool only as many times as threads were
 * alive at once, not once per thread (issues 20 and 25: threadtask's
 * 20,000 threads spent 200-490 us each there, loaded; docs/record.md,
 * "Buffers").  Under g_blk: emit opens a buffer without G
 * (rp_emit_fast).  g_nbufs: buffers mapped, g_reused: opened from
 * here (the end-of-recording figures). */
static struct rec_spool_rec **g_free;
static uint32_t g_nfree, g_freecap;
static uint64_t g_nbufs, g_reused;

/* t's buffer: a released one, or a new block mapped shared, its header
 * slot written (REC_SPOOL_TAIL); the calibration's thread a private
 * one, never written out.  0 or -1 (also for a thread that has
 * ended: its buffer was released). */
__attribute__((noinline, cold)) static int buf_open(struct rp_thread *t)
{
	uint32_t cap = t->cal ? RP_CAL_BUFFER : g_block; /* slots */
	size_t len = (size_t)cap * sizeof(struct rec_spool_rec);
	void *p = NULL;
	if (t->exited)
		return -1;
	if (t->cal) {
		p = rp_mmap(len);
	} else {
		blk_lock();
		if (g_nfree) {
			p = g_free[--g_nfree];
			g_reused++;
		}
		blk_unlock();
	}
	if (!p && !t->cal) {
		int64_t off = blk_new(1);
		if (off < 0)
			return -1;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, g_fd, (off_t)off);
		if (p == MAP_FAILED)
			p = NULL;
		else
			__atomic_fetch_add(&g_nbufs, 1, __ATOMIC_RELAXED);
	}
	if (!p) {
		g_oom = 1;
		return -1;
	}
	rec_spool_buf_open(&t->sb, p, cap, t->id, t->cal ? NULL : blk_out, NULL);
	return 0;
}

/* Under G: t has ended (its exit recorded): its records out of its
 * buffer into a block, the buffer kept for the next thread's buf_open
 * (rec_spool_buf_release).  A buffer the list cannot take stays mapped,
 * unused. */
static void buf_release(struct rp_thread *t)
{
	if (t->cal || !t->sb.slot)
		return;
	struct rec_spool_rec *s = rec_spool_buf_release(&t->sb);
	if (!s)
		return;
	blk_lock();
	if (g_nfree == g_freecap) {
		struct rec_spool_rec **n = rp_grow(g_free, &g_freecap, g_nfree + 1, 256, sizeof *g_free);
		if (n)
			g_free = n;
	}
	if (g_nfree < g_freecap)
		g_free[g_nfree++] = s;
	blk_unlock();
}

void rp_buf_counts(uint64_t *mapped, uint64_t *reused)
{
	*mapped = g_nbufs;
	*reused = g_reused;
}

/* t's buffer open (or NULL: the spool failed, g_oom or g_ioerr say it
 * at the end). */
static inline __attribute__((always_inline)) struct rec_spool_buf *buf(struct rp_thread *t)
{
	if (__builtin_expect(!t->sb.slot, 0) && buf_open(t) < 0)
		return NULL;
	return &t->sb;
}

void rp_sync(struct rp_thread *t)
{
	rec_spool_buf_sync(&t->sb);
}

static inline uint64_t stamp_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void stamp_store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* Under G: the stamp of t's record `op a b` (rp.h's head): past t's
 * last, G's last, its mutex's last (a lock, a successful trylock, an
 * unlock, a cwait: made by the mutex's holder) and, for a barrier,
 * every live thread's last (each member's previous record precedes the
 * group); all of them advanced to it. */
static uint64_t stamp_g(struct rp_thread *t, int op, uint64_t a, uint64_t b)
{
	uint64_t s = stamp_load(&t->stamp);
	if (rp_hot.stamp > s)
		s = rp_hot.stamp;
	uint64_t mid = op == TRACE_LOCK || op == TRACE_UNLOCK || (op == TRACE_TRYLOCK && b) ? a
	               : op == TRACE_CWAIT ? b : 0;
	struct rp_obj *m = mid && mid < g_mxcap ? g_mx[mid] : NULL;
	if (m && stamp_load(&m->stamp) > s)
		s = stamp_load(&m->stamp);
	if (op == TRACE_BARRIER)
		for (uint32_t i = 1; i <= g_nth; i++)
			if (g_th[i] && !g_th[i]->exited && stamp_load(&g_th[i]->stamp) > s)
				s = stamp_load(&g_th[i]->stamp);
	s++;
	if (m)
		stamp_store(&m->stamp, s);
	stamp_store(&t->stamp, s);
	rp_hot.stamp = s;
	return s;
}

/* Under G: a declaration (REC_SPOOL_SEMINIT) in the calling thread's
 * buffer (thread 1's when the caller is not recorded: only at the end),
 * stamped as a record under G, before the record that uses it. */
static void emit_decl(int op, uint64_t a, uint64_t b)
{
	struct rp_thread *t = rp_self ? rp_self : rp_thread_at(1);
	if (!t || t->cal)
		return; /* the calibration's objects */
	uint64_t s = stamp_g(t, op, 0, 0);
	if (buf(t))
		rec_spool_buf_decl(&t->sb, s, a | b << 32, (unsigned)op);
}

/* ---- records and threads ---- */

/* inlined (rp_emit_fast's path): it was a call of its own, 3 ns of
 * BARNES's 29 ns per record in the library (rec37) */
static inline __attribute__((always_inline)) struct rec_spool_pend *
emit(struct rp_thread *t, uint64_t stamp, uint64_t work, int op, uint64_t a, uint64_t b)
{
	if (t->cal)
		t->cal_sum += work; /* the calibration: only the work counts */
	buf(t); /* (if it fails, the record is kept in t->sb.pend only) */
	return rec_spool_buf_emit(&t->sb, stamp, work, (unsigned)op,
	                          op == TRACE_SLEEP ? a : (a | b << 32));
}

struct rec_spool_pend *rp_emit(struct rp_thread *t, uint64_t work, int op, uint64_t a,
                               uint64_t b)
{
	struct rec_spool_pend *r = emit(t, stamp_g(t, op, a, b), work, op, a, b);
	if (op == TRACE_CREATE && !t->cal) {
		/* the child's records follow its create */
		struct rp_thread *c = rp_thread_at((uint32_t)a);
		if (c && stamp_load(&c->stamp) < r->stamp)
			stamp_store(&c->stamp, r->stamp);
	}
	return r;
}

struct rec_spool_pend *rp_emit_fast(struct rp_thread *t, struct rp_obj *o, uint64_t work,
                                    int op, uint64_t a, uint64_t b)
{
	/* rp_write_trace sets rp_finished, then waits until no thread's
	 * app is 1: either it sees this thread's 1 and waits for the
	 * record, or this thread sees rp_finished (both are sequentially
	 * consistent) */
	int done;
	if (__builtin_expect(g_membar, 1)) {
		__atomic_store_n(&t->app, 1, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the membarrier's */
		done = __atomic_load_n(&rp_finished, __ATOMIC_RELAXED);
	} else {
		__atomic_exchange_n(&t->app, 1, __ATOMIC_SEQ_CST);
		done = __atomic_load_n(&rp_finished, __ATOMIC_SEQ_CST);
	}
	struct rec_spool_pend *r = NULL;
	if (!done) {
		/* the caller holds the mutex: its stamp is ours to advance */
		uint64_t s = stamp_load(&t->stamp), m = stamp_load(&o->stamp);
		s = (m > s ? m : s) + 1;
		stamp_store(&o->stamp, s);
		stamp_store(&t->stamp, s);
		r = emit(t, s, work, op, a, b);
	}
	__atomic_store_n(&t->app, 0, __ATOMIC_RELEASE);
	return r;
}

/* The threads' states, RP_TH_CHUNK to a mapping (one mapping and its
 * page fault per thread: rp_thread_new was 7% of a thread-per-task
 * recording's samples, perf, 2026-11-28); never freed (rp_reset
 * forgets them). */
#define RP_TH_CHUNK 64
static struct rp_chunks g_ths;

static struct rp_thread *thread_alloc(void)
{
	return chunk_take(&g_ths, sizeof(struct rp_thread), RP_TH_CHUNK);
}

struct rp_thread *rp_thread_new(void *(*fn)(void *))
{
	if (g_nth + 1 >= g_thcap) {
		struct rp_thread **n = rp_grow(g_th, &g_thcap, g_nth + 2, 1024, sizeof *g_th);
		if (!n) {
			g_oom = 1;
			return NULL;
		}
		g_th = n;
	}
	struct rp_thread *t = thread_alloc();
	if (!t) {
		g_oom = 1;
		return NULL;
	}
	t->id = ++g_nth;
	g_th[t->id] = t;
	if (g_head && t->id > g_head->threads)
		g_head->threads = t->id; /* the converter's bound */
	t->fn = fn; /* named when the trace is written (rp_name.c) */
	return t;
}

uint32_t rp_thread_of(pthread_t pt)
{
	struct rp_obj *o = rp_obj((const void *)pt, TRACE_K_THREAD);
	return o ? o->init : 0;
}

void rp_thread_map(pthread_t pt, uint32_t id)
{
	struct rp_obj *o = rp_obj((const void *)pt, TRACE_K_THREAD);
	if (o)
		o->init = id;
}

void rp_thread_exit(struct rp_thread *t)
{
	if (t->exited)
		return;
	t->busy = 1;
	if (t->omp_region && rp_lock() == 0) {
		rp_gomp_exit(t);
		rp_unlock();
	}
	uint64_t w = rp_work(t, TRACE_EXIT);
	if (rp_lock() == 0) {
		rp_emit(t, w, TRACE_EXIT, 0, 0);
		t->exited = 1;
		buf_release(t);
		rp_unlock();
	}
	rp_mark(t); /* the exit's span (its buffer's release, a pwrite):
	               the recorder's, not in no record */
	t->exited = 1;
	rp_clock_close(t);
}

uint32_t rp_nthreads(void)
{
	return g_nth;
}

struct rp_thread *rp_thread_at(uint32_t id)
{
	return id >= 1 && id <= g_nth ? g_th[id] : NULL;
}

void rp_reset(void)
{
	for (uint32_t i = 1; i <= g_nth; i++)
		g_th[i] = NULL; /* their states stay mapped (thread_alloc) */
	g_nth = 0;
	rp_hot.stamp = 0;
	if (g_mx)
		memset(g_mx, 0, (size_t)g_mxcap * sizeof *g_mx);
	if (rp_hot.objtab)
		memset(rp_hot.objtab->e, 0, g_objcap * sizeof *rp_hot.objtab->e);
	g_objn = 0;
	memset(g_next_id, 0, sizeof g_next_id);
}

/* ---- finishing the spool ---- */

/* The footer: the `thread N name` lines, written at offset `off`;
 * returns their length in bytes. */
static uint64_t write_names(uint64_t off)
{
	char buf[4096];
	size_t n = 0;
	uint64_t len = 0;
	/* one symbol lookup per distinct start routine (the last 16) */
	struct rp_thread *named[16] = { NULL };
	for (uint32_t i = 1; i <= g_nth; i++) {
		struct rp_thread *t = g_th[i];
		if (i > 1 && t->fn) {
			int k = 0;
			while (k < 16 && named[k] && named[k]->fn != t->fn)
				k++;
			if (k < 16 && named[k]) {
				memcpy(t->name, named[k]->name, sizeof t->name);
			} else {
				rp_symname((void *)t->fn, t->name, sizeof t->name);
				memmove(named + 1, named, 15 * sizeof *named);
				named[0] = t;
			}
		}
		const char *nm = i == 1 ? "main" : t->name;
		if (!*nm)
			continue;
		char line[128], num[16];
		int k = 15;
		num[k] = 0;
		uint32_t v = i;
		do {
			num[--k] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		size_t ll = 0, nl = strnlen(nm, sizeof t->name);
		memcpy(line, "thread ", 7);
		ll = 7;
		memcpy(line + ll, num + k, (size_t)(15 - k));
		ll += (size_t)(15 - k);
		line[ll++] = ' ';
		memcpy(line + ll, nm, nl);
		ll += nl;
		line[ll++] = '\n';
		if (n + ll > sizeof buf) {
			spool_pwrite(buf, n, off + len);
			len += n;
			n = 0;
		}
		memcpy(buf + n, line, ll);
		n += ll;
	}
	spool_pwrite(buf, n, off + len);
	return len + n;
}

/* Under G: give every thread that has not exited its exit, complete the
 * waits cut short.  (Barrier episodes that not every member left are
 * dropped by rec_spool_convert.) */
static void finalize_records(void)
{
	for (uint32_t i = 1; i <= g_nth; i++) {
		struct rp_thread *t = g_th[i];
		if (t->exited)
			continue;
		if (t->cw_active) {
			struct rp_obj *c = rp_obj(t->cw_cond, TRACE_K_COND);
			struct rp_obj *m = rp_obj(t->cw_mutex, TRACE_K_MUTEX);
			if (c && m && rp_cv_leave(c, t, 0)) {
				/* woken, not yet returned: its cwait */
				rp_emit(t, t->cw_rec ? t->cw_rec->work : 0, TRACE_CWAIT,
				        rp_obj_id(c), rp_obj_id(m));
			} else if (t->cw_rec) {
				t->cw_rec->dead = 0; /* it released M and waits */
			}
			t->cw_active = 0;
		}
		uint64_t w = 0;
		if (t->started) {
			struct timespec ts;
			if (t == rp_self) {
				w = rp_work(t, TRACE_EXIT);
			} else if (clock_gettime(t->clock, &ts) == 0) {
				uint64_t now = rp_ts_ns(&ts);
				w = t->carry + (now > t->last ? now - t->last : 0);
			}
		}
		struct rec_spool_pend *r = rp_emit(t, w, TRACE_EXIT, 0, 0);
		if (t != rp_self)
			r->note = 1;
		t->exited = 1;
	}
}

/* Under G, once: finish the spool (its last records, the thread names,
 * state DONE); shadowbind-record writes the trace from it. */
static void rp_write_trace(const char *why)
{
	if (rp_finished || !g_head)
		return;
	rp_stats_mark();
	/* no record after this but ours: rp_emit_fast sees rp_finished, or
	 * its thread's app is 1 until its record is in its buffer */
	__atomic_store_n(&rp_finished, 1, __ATOMIC_SEQ_CST);
	if (g_membar && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		g_membar = 0; /* cannot happen once registered; then no record
		                 after this is guaranteed only as before */
	for (uint32_t i = 1; i <= g_nth; i++)
		for (unsigned k = 0; __atomic_load_n(&g_th[i]->app, __ATOMIC_SEQ_CST);)
			backoff(&k);
	finalize_records();
	uint64_t n = 0;
	for (uint32_t i = 1; i <= g_nth; i++) {
		rp_sync(g_th[i]);
		n += g_th[i]->sb.nrec;
		if (g_th[i]->sb.err && !g_ioerr)
			g_ioerr = g_th[i]->sb.err; /* a stamp past 2^52 */
	}
	g_head->emitted = n;
	uint64_t foot = g_end;
	uint64_t footlen = write_names(foot);
	size_t wl = strlen(why);
	if (wl >= sizeof g_head->why)
		wl = sizeof g_head->why - 1;
	memcpy(g_head->why, why, wl);
	g_head->why[wl] = 0;
	if (g_oom || g_ioerr) {
		const char *m = g_oom ? "out of memory while recording" : strerror(g_ioerr);
		size_t ml = strlen(m);
		if (ml >= sizeof g_head->why)
			ml = sizeof g_head->why - 1;
		memcpy(g_head->why, m, ml);
		g_head->why[ml] = 0;
		g_head->state = REC_SPOOL_FAILED;
		rp_say("shadowbind-record: ", g_oom ? "out of memory while recording" : "cannot write the spool",
		       "; no trace written\n");
		return;
	}
	g_head->foot = foot;
	g_head->footlen = footlen;
	__atomic_store_n(&g_head->state, (uint64_t)REC_SPOOL_DONE, __ATOMIC_RELEASE);
	char pool[256];
	uint32_t qm = 0;
	if (rp_gomp_pool(pool, sizeof pool, &qm))
		rp_say("shadowbind-record: OpenMP work queue recorded (dynamic/guided loops, sections, single, tasks): predict with --pool ",
		       pool, " (docs/record.md, OpenMP)\n");
}

/* Open the spool at g_path: its header page (mapped shared); blocks of
 * `records` slots rounded up to whole pages.  0, or -1 (then nothing is
 * recorded). */
static int spool_open(uint64_t records)
{
	g_fd = open(g_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (g_fd < 0)
		return -1;
	if (ftruncate(g_fd, REC_SPOOL_HEAD) < 0)
		return -1;
	void *h = mmap(NULL, REC_SPOOL_HEAD, PROT_READ | PROT_WRITE, MAP_SHARED, g_fd, 0);
	if (h == MAP_FAILED)
		return -1;
	uint64_t page = 4096 / sizeof(struct rec_spool_rec), b = records + 1; /* + its header */
	_Static_assert(sizeof(struct rec_spool_rec) == 16, "a spool slot is 16 bytes");
	b = (b + page - 1) / page * page;
	g_block = (uint32_t)b;
	g_end = g_alloc = REC_SPOOL_HEAD;
	const char *ah = getenv("SHADOWBIND_SPOOL_AHEAD");
	if (ah && *ah) {
		char *e;
		unsigned long long v = strtoull(ah, &e, 10);
		if (!*e && v <= (1ull << 32))
			g_ahead = v;
	}
	g_head = h;
	memcpy(g_head->magic, REC_SPOOL_MAGIC, 8);
	g_head->block = b;
	return 0;
}

/* ---- start, exit, signals ---- */

static void on_fatal(int sig)
{
	if (rp_mode == RP_RECORD && !rp_finished) {
		if (rp_hot.owner == &rp_g_me || (rp_self && rp_self->app)) {
			/* the spool is left as it is (state RUNNING):
			 * shadowbind-record writes the trace of what was
			 * flushed, cut */
			rp_finished = 1;
		} else {
			rp_g_acquire();
			rp_write_trace(sig == SIGINT ? "interrupted by SIGINT" : "terminated by SIGTERM");
			rp_stats_write(g_path);
			rp_g_release();
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_fork_child(void)
{
	rp_mode = RP_OFF;
	rp_finished = 1;
}

static void on_fork_prepare(void)
{
	static int said;
	if (rp_mode == RP_RECORD && !said) {
		said = 1;
		rp_say("shadowbind-record: warning: the program forks; the child process is not recorded\n",
		       NULL, NULL);
	}
}

#define REAL(field, name) \
	(*(void **)&rp_real.field = dlsym(RTLD_NEXT, name))
#define REALV(field, name, ver) \
	do { \
		if (!(*(void **)&rp_real.field = dlvsym(RTLD_NEXT, name, ver))) \
			REAL(field, name); \
	} while (0)

void rp_init(void)
{
	if (g_inited)
		return;
	g_inited = 1;
	REAL(create, "pthread_create");
	REAL(join, "pthread_join");
	REAL(exit, "pthread_exit");
	REAL(mutex_lock, "pthread_mutex_lock");
	REAL(mutex_trylock, "pthread_mutex_trylock");
	REAL(mutex_timedlock, "pthread_mutex_timedlock");
	REAL(mutex_clocklock, "pthread_mutex_clocklock");
	REAL(mutex_unlock, "pthread_mutex_unlock");
	/* the condition variables of glibc 2.3.2 (the default version), not
	 * the old compatibility ones that dlsym may return */
	REALV(cond_wait, "pthread_cond_wait", "GLIBC_2.3.2");
	REALV(cond_timedwait, "pthread_cond_timedwait", "GLIBC_2.3.2");
	REAL(cond_clockwait, "pthread_cond_clockwait");
	REALV(cond_signal, "pthread_cond_signal", "GLIBC_2.3.2");
	REALV(cond_broadcast, "pthread_cond_broadcast", "GLIBC_2.3.2");
	REAL(barrier_init, "pthread_barrier_init");
	REAL(barrier_wait, "pthread_barrier_wait");
	REAL(rw_rdlock, "pthread_rwlock_rdlock");
	REAL(rw_tryrdlock, "pthread_rwlock_tryrdlock");
	REAL(rw_timedrdlock, "pthread_rwlock_timedrdlock");
	REAL(rw_clockrdlock, "pthread_rwlock_clockrdlock");
	REAL(rw_wrlock, "pthread_rwlock_wrlock");
	REAL(rw_trywrlock, "pthread_rwlock_trywrlock");
	REAL(rw_timedwrlock, "pthread_rwlock_timedwrlock");
	REAL(rw_clockwrlock, "pthread_rwlock_clockwrlock");
	REAL(rw_unlock, "pthread_rwlock_unlock");
	REAL(sem_init, "sem_init");
	REAL(sem_wait, "sem_wait");
	REAL(sem_trywait, "sem_trywait");
	REAL(sem_timedwait, "sem_timedwait");
	REAL(sem_clockwait, "sem_clockwait");
	REAL(sem_post, "sem_post");
	REAL(sleep, "sleep");
	REAL(usleep, "usleep");
	REAL(nanosleep, "nanosleep");
	REAL(clock_nanosleep, "clock_nanosleep");
	REAL(yield, "sched_yield");

	const char *path = getenv("SHADOWBIND_TRACE");
	const char *mode = getenv("SHADOWBIND_MODE");
	if (path && *path && strlen(path) < sizeof g_path - 1) {
		memcpy(g_path, path, strlen(path) + 1);
		rp_mode = RP_RECORD;
		rp_pin_init(); /* a bound run, if SHADOWBIND_PIN is set */
	} else if (mode && !strcmp(mode, "run")) {
		rp_mode = RP_RUN;
		rp_pin_init();
	}
	if (rp_mode == RP_RECORD) {
		const char *bs = getenv("SHADOWBIND_BUFFER");
		uint64_t records = RP_BUFFER;
		if (bs && *bs) {
			char *e;
			unsigned long long v = strtoull(bs, &e, 10);
			if (!*e && v >= 1 && v <= (1ull << 24))
				records = v;
		}
		if (spool_open(records) < 0) {
			rp_say("shadowbind-record: cannot create the spool ", g_path, "; nothing recorded\n");
			rp_mode = RP_OFF;
		}
	}
	if (rp_mode == RP_RECORD) {
		cpu_set_t cpus;
		if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 1)
			g_spin = RP_G_SPIN;
		g_membar = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
		struct timespec a0, a1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a0);
		rp_clock_init();
		rp_calibrate_start();
		rp_reset();
		struct rp_thread *t = rp_thread_new(NULL);
		if (t) {
			t->pt = pthread_self();
			t->clock = CLOCK_THREAD_CPUTIME_ID;
			pthread_getcpuclockid(t->pt, &t->clock);
			t->started = 1;
			rp_clock_open(t);
			/* work of thread 1 counts from process start, but for
			 * the clock's set-up and the calibration */
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a1);
			t->last = rp_startup_ns = rp_ts_ns(&a1) - rp_ts_ns(&a0);
			rp_thread_map(t->pt, t->id);
			rp_self = t;
		}
		pthread_atfork(on_fork_prepare, NULL, on_fork_child);
		int sigs[2] = { SIGINT, SIGTERM };
		for (int i = 0; i < 2; i++) {
			struct sigaction old, sa;
			if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
				memset(&sa, 0, sizeof sa);
				sa.sa_handler = on_fatal;
				sigfillset(&sa.sa_mask);
				sigaction(sigs[i], &sa, NULL);
			}
		}
	}
	rp_env_clean();
}

__attribute__((constructor)) static void rp_ctor(void)
{
	rp_init();
}

__attribute__((destructor)) static void rp_dtor(void)
{
	if (rp_mode != RP_RECORD || rp_finished)
		return;
	rp_calibrate_end();
	rp_g_acquire();
	rp_write_trace("process exit");
	rp_stats_write(g_path);
	rp_g_release();
}
