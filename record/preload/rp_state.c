/*
 * rp_state.c - the recorder's state: the lock G, the record buffer and
 * the spool it streams to, the object table, and finishing the spool at
 * exit or on SIGINT/SIGTERM (rp.h, record.h, docs/record.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
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

/* the spool (record.h): its file and its header page (mapped shared, so
 * that its counters survive the process); the ring of records
 * [rp_hot.flushed, rp_hot.seq) not yet written is in rp_hot */
static int g_fd = -1;
static struct rec_spool_head *g_head;

/* threads by id (1-based); capacity in pointers */
static struct rp_thread **g_th;
static uint32_t g_nth, g_thcap;

/* object table: open addressing, power-of-two size (rp_hot.objtab) */
static size_t g_objcap, g_objn;
static uint32_t g_next_id[TRACE_NKINDS];

static void *rp_mmap(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
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

/* The objects themselves, in chunks that are never freed (so that a
 * pointer a lock-free lookup found stays valid): RP_OBJ_CHUNK at a time. */
#define RP_OBJ_CHUNK 4096
static struct rp_obj *g_arena;
static size_t g_arena_left;

static struct rp_obj *obj_alloc(void)
{
	if (!g_arena_left) {
		g_arena = rp_mmap(RP_OBJ_CHUNK * sizeof *g_arena);
		if (!g_arena)
			return NULL;
		g_arena_left = RP_OBJ_CHUNK;
	}
	g_arena_left--;
	return g_arena++; /* zeroed (fresh anonymous memory) */
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

uint32_t rp_obj_newid(struct rp_obj *o)
{
	o->id = ++g_next_id[o->kind];
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
	memset(o, 0, sizeof *o);
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

/* ---- records and threads ---- */

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

static uint8_t rec_flags(const struct rp_rec *r)
{
	return (uint8_t)((r->dead ? REC_SPOOL_DEAD : 0) | (r->note ? REC_SPOOL_NOTE : 0));
}

static struct rec_spool_rec disk_rec(uint32_t tid, const struct rp_rec *r)
{
	struct rec_spool_rec d = {
		.work = r->work, .arg = r->arg, .tid = tid, .op = r->op,
		.flags = rec_flags(r),
	};
	return d;
}

/* Put the flags of t's latest record (the only fields that change after
 * rp_emit) where the spool will read them: the ring, or the file if its
 * half of the ring went out since.  Under G (the ring goes out under G),
 * or at the end once no rp_emit_fast runs. */
static void sync_pend(struct rp_thread *t)
{
	if (!t->has_pend)
		return;
	uint8_t f = rec_flags(&t->pend);
	if (f == t->pend_flags)
		return;
	if (t->pend.seq >= rp_hot.flushed) {
		rp_hot.win[t->pend.seq & (rp_hot.wincap - 1)].flags = f;
	} else {
		struct rec_spool_rec d = disk_rec(t->id, &t->pend);
		spool_pwrite(&d, sizeof d, REC_SPOOL_HEAD + t->pend.seq * sizeof d);
	}
	t->pend_flags = f;
}

/* A slot holds its record once its writer stored the thread id last (a
 * declaration, thread 0: its op); an empty slot is all zeros. */
static int slot_written(struct rec_spool_rec *d)
{
	return __atomic_load_n(&d->tid, __ATOMIC_ACQUIRE) != 0 ||
	       __atomic_load_n(&d->op, __ATOMIC_ACQUIRE) == REC_SPOOL_SEMINIT;
}

static void slot_wait(struct rec_spool_rec *d)
{
	for (unsigned i = 1; !slot_written(d); i++) {
		if (i % RP_SPIN_YIELD)
			g_pause();
		else
			rp_real.yield(); /* its writer may be preempted here */
	}
}

/* Under G: write records [flushed, end) to the file (end - flushed at
 * most the ring's size; every one of them numbered), once their writers
 * have written them, and empty their slots. */
static void win_write(uint64_t end)
{
	uint64_t mask = rp_hot.wincap - 1, s = rp_hot.flushed;
	for (uint64_t k = s; k < end; k++)
		slot_wait(&rp_hot.win[k & mask]);
	while (s < end) {
		uint64_t i = s & mask, n = end - s;
		if (n > rp_hot.wincap - i)
			n = rp_hot.wincap - i; /* up to the ring's end */
		spool_pwrite(&rp_hot.win[i], n * sizeof *rp_hot.win, REC_SPOOL_HEAD + s * sizeof *rp_hot.win);
		memset(&rp_hot.win[i], 0, n * sizeof *rp_hot.win);
		s += n;
	}
	__atomic_store_n(&rp_hot.flushed, end, __ATOMIC_RELEASE);
	if (g_head) {
		/* emitted: the numbers given so far, at least */
		g_head->emitted = __atomic_load_n(&rp_hot.seq, __ATOMIC_RELAXED);
		if (!g_ioerr)
			g_head->flushed = end;
	}
}

/* Record s has no slot yet (the ring holds [flushed, flushed + wincap)):
 * the oldest half goes out under G, by whoever gets G first (the holder
 * of G, if it is this thread, at once).  The records of that half were
 * numbered before s, and their writers need neither G nor room. */
static void win_room(uint64_t s)
{
	int mine = rp_hot.owner == &rp_g_me;
	for (unsigned i = 1; s >= __atomic_load_n(&rp_hot.flushed, __ATOMIC_ACQUIRE) + rp_hot.wincap; i++) {
		/* G tried, not waited for: its holder may be rp_write_trace
		 * waiting for this record (it makes the room itself) */
		int z = 0;
		if (mine || __atomic_compare_exchange_n(&rp_hot.g, &z, 1, 0, __ATOMIC_ACQUIRE,
		                                        __ATOMIC_RELAXED)) {
			if (!mine)
				rp_hot.owner = &rp_g_me;
			uint64_t f = rp_hot.flushed;
			if (s >= f + rp_hot.wincap)
				win_write(f + rp_hot.half);
			if (!mine)
				rp_g_release();
		} else if (i % RP_SPIN_YIELD) {
			g_pause();
		} else {
			rp_real.yield();
		}
	}
}

/* The next sequence number and its slot. */
static struct rec_spool_rec *win_next(uint64_t *seq)
{
	uint64_t s = __atomic_fetch_add(&rp_hot.seq, 1, __ATOMIC_ACQ_REL);
	if (__builtin_expect(s >= __atomic_load_n(&rp_hot.flushed, __ATOMIC_ACQUIRE) + rp_hot.wincap, 0))
		win_room(s);
	*seq = s;
	return &rp_hot.win[s & (rp_hot.wincap - 1)];
}

static void emit_decl(int op, uint64_t a, uint64_t b)
{
	if (rp_self && rp_self->cal)
		return; /* the calibration's objects */
	uint64_t s;
	struct rec_spool_rec *d = win_next(&s);
	d->work = 0;
	d->arg = a | b << 32;
	d->flags = 0;
	__atomic_store_n(&d->op, (uint8_t)op, __ATOMIC_RELEASE); /* last */
}

/* ---- records and threads ---- */

struct rp_rec *rp_emit(struct rp_thread *t, uint64_t work, int op,
                       uint64_t a, uint64_t b)
{
	if (t->cal) {
		/* the calibration: only the work counts */
		t->cal_sum += work;
		memset(&t->pend, 0, sizeof t->pend);
		return &t->pend;
	}
	sync_pend(t);
	struct rp_rec *r = &t->pend;
	struct rec_spool_rec *d = win_next(&r->seq);
	r->work = work;
	r->arg = op == TRACE_SLEEP ? a : (a | b << 32);
	r->op = (uint8_t)op;
	r->dead = 0;
	r->note = 0;
	d->work = work;
	d->arg = r->arg;
	d->op = (uint8_t)op;
	d->flags = 0;
	d->pad = 0;
	__atomic_store_n(&d->tid, t->id, __ATOMIC_RELEASE); /* last: written */
	t->pend_flags = 0;
	t->has_pend = 1;
	return r;
}

struct rp_rec *rp_emit_fast(struct rp_thread *t, uint64_t work, int op,
                            uint64_t a, uint64_t b)
{
	/* rp_write_trace sets rp_finished, then waits until no thread's
	 * app is 1: either it sees this thread's 1 and waits for the
	 * record, or this thread sees rp_finished (both are sequentially
	 * consistent) */
	__atomic_exchange_n(&t->app, 1, __ATOMIC_SEQ_CST);
	struct rp_rec *r = NULL;
	if (!__atomic_load_n(&rp_finished, __ATOMIC_SEQ_CST))
		r = rp_emit(t, work, op, a, b);
	__atomic_store_n(&t->app, 0, __ATOMIC_RELEASE);
	return r;
}

struct rp_thread *rp_thread_new(void *(*fn)(void *))
{
	if (g_nth + 1 >= g_thcap) {
		uint32_t ncap = g_thcap ? g_thcap * 2 : 1024;
		struct rp_thread **n = rp_mmap((size_t)ncap * sizeof *n);
		if (!n) {
			g_oom = 1;
			return NULL;
		}
		if (g_th) {
			memcpy(n, g_th, (size_t)g_thcap * sizeof *n);
			munmap(g_th, (size_t)g_thcap * sizeof *g_th);
		}
		g_th = n;
		g_thcap = ncap;
	}
	struct rp_thread *t = rp_mmap(sizeof *t);
	if (!t) {
		g_oom = 1;
		return NULL;
	}
	t->id = ++g_nth;
	g_th[t->id] = t;
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
		rp_unlock();
	}
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
	for (uint32_t i = 1; i <= g_nth; i++) {
		munmap(g_th[i], sizeof *g_th[i]);
		g_th[i] = NULL;
	}
	g_nth = 0;
	if (rp_hot.win && rp_hot.seq)
		memset(rp_hot.win, 0, (rp_hot.seq < rp_hot.wincap ? rp_hot.seq : rp_hot.wincap) *
		                      sizeof *rp_hot.win);
	rp_hot.seq = rp_hot.flushed = 0;
	if (g_head)
		g_head->emitted = g_head->flushed = 0;
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
		struct rp_rec *r = rp_emit(t, w, TRACE_EXIT, 0, 0);
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
	 * its thread's app is 1 until its record is in its slot (it may need
	 * room, which only G's holder, this thread, makes) */
	__atomic_store_n(&rp_finished, 1, __ATOMIC_SEQ_CST);
	for (uint32_t i = 1; i <= g_nth; i++)
		for (unsigned k = 1; __atomic_load_n(&g_th[i]->app, __ATOMIC_SEQ_CST); k++) {
			if (__atomic_load_n(&rp_hot.seq, __ATOMIC_ACQUIRE) > rp_hot.flushed + rp_hot.wincap)
				win_write(rp_hot.flushed + rp_hot.half);
			else if (k % RP_SPIN_YIELD)
				g_pause();
			else
				rp_real.yield();
		}
	finalize_records();
	for (uint32_t i = 1; i <= g_nth; i++)
		sync_pend(g_th[i]);
	win_write(rp_hot.seq);
	uint64_t foot = REC_SPOOL_HEAD + rp_hot.seq * sizeof(struct rec_spool_rec);
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

/* Open the spool at g_path: its header page (mapped shared) and the
 * buffer of `records` records.  0, or -1 (then nothing is recorded). */
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
	uint64_t cap = 1;
	while (cap < records)
		cap *= 2;
	rp_hot.win = rp_mmap(cap * sizeof *rp_hot.win);
	if (!rp_hot.win)
		return -1;
	rp_hot.wincap = cap;
	rp_hot.half = cap > 1 ? cap / 2 : 1;
	g_head = h;
	memcpy(g_head->magic, REC_SPOOL_MAGIC, 8);
	g_head->buffer = records;
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
			if (!*e && v >= 1 && v <= (1ull << 32))
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
