/*
 * spool.c - the recorder's spool into a trace (record.h, docs/record.md
 * "Buffers"): two sequential passes over the spool, so that memory is
 * per thread and per object, never per record.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/recint.h"

_Static_assert(sizeof(struct rec_spool_rec) == 16, "a spool slot is 16 bytes");
_Static_assert(sizeof(struct rec_spool_head) <= REC_SPOOL_HEAD, "the header fits its page");

#define SP_BUF 128 /* slots each thread's stream reads at once */

/* A record as read: its stamp, work (ns), operands (a | b << 32; sleep:
 * the duration in ns), thread, op and flags (REC_SPOOL_DEAD, _NOTE). */
struct sp_rec {
	uint64_t stamp, work, arg;
	uint32_t tid;
	uint8_t op, flags;
};

/* A block of the spool: where it is and how many slots it holds. */
struct sp_blk {
	uint64_t off;            /* bytes                                  */
	uint64_t n;              /* slots of records after its header      */
	uint32_t tid;
	uint8_t tail;            /* its thread's buffer                    */
	uint64_t stamp;          /* BLOCK: its last record's stamp         */
};

/* One thread's records: its blocks in file order, then its buffer. */
struct sp_stream {
	uint32_t tid;
	struct sp_blk *blk;      /* its blocks, in file order (into in->blk) */
	size_t nblk;
	uint64_t tail;           /* its buffer's offset, 0: none           */
	uint64_t bstamp;         /* its blocks' last stamp                 */
	size_t bi;               /* current block (nblk: the buffer)       */
	uint64_t slot, end;      /* next slot to read, the block's end     */
	uint64_t prev;           /* the last stamp returned                */
	size_t have, pos;
	unsigned len;            /* slots of the record at pos             */
	struct sp_rec cur;       /* the record at pos, decoded             */
	struct rec_spool_rec raw[SP_BUF];
};

/* The records of every thread merged by (stamp, thread id): a binary
 * heap of the streams by their next record. */
struct sp_in {
	int fd;
	uint64_t bsize;          /* a block's size; bytes                  */
	uint64_t maxtid;         /* the largest thread id the header allows */
	struct sp_blk *blk;      /* every used block, by (thread, offset)   */
	size_t nblk;
	struct sp_stream *st;    /* by thread id, ascending                 */
	size_t nst;
	struct sp_stream **heap;
	size_t nheap;
	uint64_t i;              /* records returned so far                */
	struct sp_rec cur;
};

static void sp_in_free(struct sp_in *in)
{
	if (!in)
		return;
	free(in->blk);
	free(in->st);
	free(in->heap);
	free(in);
}

static int sp_pread(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t r = pread(fd, (char *)buf + *got, len - *got, (off_t)(off + *got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			break; /* the file's end (a cut spool) */
		*got += (size_t)r;
	}
	return 0;
}

static int sp_blk_cmp(const void *x, const void *y)
{
	const struct sp_blk *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* The spool's blocks [REC_SPOOL_HEAD, end) sorted into streams, one per
 * thread: memory per block, whatever ids the headers hold.  0, or an
 * errno (ENOMEM; EINVAL: not a spool's block, or a thread id past the
 * header's `threads`: *bad is its offset). */
static int sp_scan(struct sp_in *in, uint64_t end, uint64_t *bad)
{
	size_t cap = 0;
	uint64_t slots = in->bsize / sizeof(struct rec_spool_rec) - 1;
	for (uint64_t off = REC_SPOOL_HEAD; off + sizeof(struct rec_spool_rec) <= end; off += in->bsize) {
		struct rec_spool_rec h;
		size_t got;
		int e = sp_pread(in->fd, &h, sizeof h, off, &got);
		if (e)
			return e;
		if (got < sizeof h)
			break;
		if (!h.head)
			continue; /* never used */
		unsigned op = rec_spool_op(h.head);
		if ((op != REC_SPOOL_TAIL && op != REC_SPOOL_BLOCK) || !h.y || h.y > in->maxtid) {
			*bad = off;
			return EINVAL;
		}
		if (in->nblk == cap) {
			cap = cap ? 2 * cap : 64;
			struct sp_blk *nb = realloc(in->blk, cap * sizeof *nb);
			if (!nb)
				return ENOMEM;
			in->blk = nb;
		}
		in->blk[in->nblk++] = (struct sp_blk){
			.off = off, .n = h.x < slots ? h.x : slots, .tid = h.y,
			.tail = op == REC_SPOOL_TAIL, .stamp = rec_spool_stamp(h.head),
		};
	}
	if (!in->nblk)
		return 0;
	qsort(in->blk, in->nblk, sizeof *in->blk, sp_blk_cmp);
	size_t nst = 1;
	for (size_t k = 1; k < in->nblk; k++)
		nst += in->blk[k].tid != in->blk[k - 1].tid;
	in->st = calloc(nst, sizeof *in->st);
	if (!in->st)
		return ENOMEM;
	/* each thread's blocks in file order; its buffer (the last one in
	 * the file, if several) taken out of them */
	for (size_t k = 0; k < in->nblk;) {
		struct sp_stream *s = &in->st[in->nst++];
		s->tid = in->blk[k].tid;
		s->blk = &in->blk[k];
		size_t j = k, w = k;
		for (; j < in->nblk && in->blk[j].tid == s->tid; j++) {
			if (in->blk[j].tail) {
				s->tail = in->blk[j].off;
				continue;
			}
			if (in->blk[j].stamp > s->bstamp)
				s->bstamp = in->blk[j].stamp;
			in->blk[w++] = in->blk[j];
		}
		s->nblk = w - k;
		k = j;
	}
	return 0;
}

/* Position s on block bi (its records' slots). */
static void sp_block(struct sp_in *in, struct sp_stream *s)
{
	for (; s->bi <= s->nblk; s->bi++) {
		/* a block's count comes from its header (sp_scan); the
		 * buffer's slots are all read, to its first empty one */
		uint64_t off = s->bi < s->nblk ? s->blk[s->bi].off : s->tail;
		if (!off)
			continue;
		uint64_t n = s->bi < s->nblk ? s->blk[s->bi].n
		                             : in->bsize / sizeof(struct rec_spool_rec) - 1;
		s->slot = off + sizeof(struct rec_spool_rec);
		s->end = s->slot + n * sizeof(struct rec_spool_rec);
		s->have = s->pos = 0;
		return;
	}
}

/* Read s's next slots from the file, keeping the `keep` not yet used
 * (a long record's first slot); 0 or an errno. */
static int sp_fill(struct sp_in *in, struct sp_stream *s, size_t keep)
{
	memmove(s->raw, s->raw + s->have - keep, keep * sizeof *s->raw);
	uint64_t want = (s->end - s->slot) / sizeof *s->raw;
	if (want > SP_BUF - keep)
		want = SP_BUF - keep;
	size_t got = 0;
	int e = want ? sp_pread(in->fd, s->raw + keep, (size_t)want * sizeof *s->raw, s->slot, &got) : 0;
	if (e)
		return e;
	got /= sizeof *s->raw;
	s->have = keep + got;
	s->pos = 0;
	s->slot += (uint64_t)got * sizeof *s->raw;
	return 0;
}

/* s's next record into s->cur (not consumed: s->len slots); 1, 0 at its
 * end, or -errno. */
static int sp_peek(struct sp_in *in, struct sp_stream *s)
{
	for (;;) {
		if (s->bi > s->nblk)
			return 0;
		int e;
		if (s->pos == s->have) {
			if ((e = sp_fill(in, s, 0)) != 0)
				return -e;
			if (!s->have) { /* the block's end */
				s->bi++;
				sp_block(in, s);
				continue;
			}
		}
		const struct rec_spool_rec *r = &s->raw[s->pos];
		uint64_t stamp = rec_spool_stamp(r->head);
		unsigned fl = rec_spool_flags(r->head), len = fl & REC_SPOOL_LONG ? 2 : 1;
		int in_tail = s->bi == s->nblk;
		if (len == 2 && s->pos + 1 == s->have) {
			if ((e = sp_fill(in, s, 1)) != 0)
				return -e;
			r = &s->raw[0];
		}
		const struct rec_spool_rec *x = len == 2 && s->pos + 1 < s->have ? &s->raw[s->pos + 1] : NULL;
		if (!stamp || (len == 2 && (!x || x->head != (uint64_t)REC_SPOOL_EXT << 56)) ||
		    (in_tail && s->prev > s->bstamp && stamp <= s->prev)) {
			/* an empty slot, a long record not written whole (the
			 * process died), or a copy behind the buffer's records:
			 * a block's records end, the buffer's too */
			s->pos = s->have;
			s->slot = s->end;
			if (in_tail)
				s->bi = s->nblk + 1;
			continue;
		}
		if (in_tail && stamp <= s->bstamp) {
			s->pos += len; /* a copy of a block's record */
			continue;
		}
		s->len = len;
		s->cur = (struct sp_rec){
			.stamp = stamp, .tid = s->tid, .op = (uint8_t)rec_spool_op(r->head),
			.flags = (uint8_t)(fl & (REC_SPOOL_DEAD | REC_SPOOL_NOTE)),
			.work = len == 1 ? r->x : r->x | (uint64_t)r->y << 32,
			.arg = len == 1 ? r->y : x->x | (uint64_t)x->y << 32,
		};
		return 1;
	}
}

static int sp_less(const struct sp_stream *a, const struct sp_stream *b)
{
	return a->cur.stamp < b->cur.stamp || (a->cur.stamp == b->cur.stamp && a->tid < b->tid);
}

static void sp_down(struct sp_in *in, size_t k)
{
	for (;;) {
		size_t l = 2 * k + 1, m = k;
		if (l < in->nheap && sp_less(in->heap[l], in->heap[m]))
			m = l;
		if (l + 1 < in->nheap && sp_less(in->heap[l + 1], in->heap[m]))
			m = l + 1;
		if (m == k)
			return;
		struct sp_stream *x = in->heap[k];
		in->heap[k] = in->heap[m];
		in->heap[m] = x;
		k = m;
	}
}

/* Start (or restart) the merge; 0 or an errno. */
static int sp_start(struct sp_in *in)
{
	free(in->heap);
	in->heap = malloc((in->nst ? in->nst : 1) * sizeof *in->heap);
	if (!in->heap)
		return ENOMEM;
	in->nheap = 0;
	in->i = 0;
	for (size_t k = 0; k < in->nst; k++) {
		struct sp_stream *s = &in->st[k];
		s->bi = 0;
		s->prev = 0;
		s->have = s->pos = 0;
		s->slot = s->end = 0;
		sp_block(in, s);
		int r = sp_peek(in, s);
		if (r < 0)
			return -r;
		if (r)
			in->heap[in->nheap++] = s;
	}
	for (size_t k = in->nheap / 2; k-- > 0;)
		sp_down(in, k);
	return 0;
}

/* The next record, or NULL at the end (or on a read error: *rerr set). */
static const struct sp_rec *sp_next(struct sp_in *in, int *rerr)
{
	if (!in->nheap)
		return NULL;
	struct sp_stream *s = in->heap[0];
	in->cur = s->cur;
	s->pos += s->len;
	s->prev = in->cur.stamp;
	in->i++;
	int r = sp_peek(in, s);
	if (r < 0) {
		*rerr = -r;
		return NULL;
	}
	if (!r)
		in->heap[0] = in->heap[--in->nheap];
	sp_down(in, 0);
	return &in->cur;
}

/* Per thread, per semaphore, per barrier, per condition variable. */
struct sp_thread {
	uint64_t last;    /* index of its last record + 1 (0: none)       */
	uint64_t carry;   /* work of dropped lines for its next record; ns */
	uint8_t known;    /* created, or has records                      */
	uint8_t exited;
	uint8_t revive;   /* cut: its last record, a reservation, is live */
	uint8_t cwait;    /* cut: a signal claimed it: append its cwait   */
	struct sp_rec lastrec;
};
struct sp_sem { uint64_t initial; int64_t count; };
struct sp_bar { uint64_t n, lines, seen; };

struct sp_tables {
	struct sp_thread *th;
	struct sp_sem *sem;
	struct sp_bar *bar;
	int64_t *claims;  /* per condition variable: claims not yet met    */
	uint32_t *owner;  /* per mutex: the thread holding it, 0 = none    */
	size_t nth, nsem, nbar, ncond, nmx; /* capacities                  */
};

/* Grow *a (elements of `size` bytes, *cap of them) to hold index i,
 * zeroing the new part; 0 or -1. */
static int sp_grow(void *a, size_t *cap, size_t size, uint64_t i)
{
	if (i < *cap)
		return 0;
	if (i >= (uint64_t)1 << 32)
		return -1;
	size_t ncap = *cap ? *cap : 64;
	while (ncap <= i)
		ncap *= 2;
	void *n = realloc(*(void **)a, ncap * size);
	if (!n)
		return -1;
	memset((char *)n + *cap * size, 0, (ncap - *cap) * size);
	*(void **)a = n;
	*cap = ncap;
	return 0;
}

/* sp_grow's test inline (it runs for every record) */
static inline int sp_need(void *a, size_t *cap, size_t size, uint64_t i)
{
	return i < *cap ? 0 : sp_grow(a, cap, size, i);
}

static void sp_tables_free(struct sp_tables *t)
{
	free(t->th);
	free(t->sem);
	free(t->bar);
	free(t->claims);
	free(t->owner);
}

/* ---- output ---- */

struct sp_out {
	FILE *f;
	size_t n;
	int err;
	char buf[1 << 16];
};

static void o_flush(struct sp_out *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		o->err = errno ? errno : EIO;
	o->n = 0;
}

static void o_mem(struct sp_out *o, const char *s, size_t len)
{
	if (o->n + len > sizeof o->buf)
		o_flush(o);
	if (len > sizeof o->buf) {
		if (fwrite(s, 1, len, o->f) != len)
			o->err = errno ? errno : EIO;
		return;
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

static void o_s(struct sp_out *o, const char *s)
{
	o_mem(o, s, strlen(s));
}

static void o_u(struct sp_out *o, uint64_t v)
{
	char b[TRACE_DEC_MAX];
	o_mem(o, b, (size_t)(trace_dec(b, v) - b));
}

/* The longest record line: three numbers of 20 digits, a thread id of
 * 10, the longest operation's name and outcome, blanks and newline. */
#define O_REC_MAX 128

/* Each operation's name and its length, looked up once per record. */
struct o_names {
	size_t len[TRACE_NOPS];
	char name[TRACE_NOPS][16]; /* padded with NULs: copied 16 at a time */
};

static void o_names_init(struct o_names *n)
{
	memset(n, 0, sizeof *n);
	for (int op = 0; op < TRACE_NOPS; op++) {
		n->len[op] = strlen(trace_ops[op].name);
		if (n->len[op] < sizeof n->name[op])
			memcpy(n->name[op], trace_ops[op].name, n->len[op]);
	}
}

static void o_rec(struct sp_out *o, const struct o_names *nm, uint32_t tid, uint64_t work, int op,
                  uint64_t arg)
{
	const struct trace_opinfo *oi = &trace_ops[op];
	if (o->n + O_REC_MAX > sizeof o->buf)
		o_flush(o);
	char *p = o->buf + o->n;
	p = trace_dec(p, tid);
	*p++ = ' ';
	p = trace_dec(p, work);
	*p++ = ' ';
	if (nm->len[op] < sizeof nm->name[op])
		memcpy(p, nm->name[op], sizeof nm->name[op]); /* O_REC_MAX leaves room */
	else
		memcpy(p, oi->name, nm->len[op]);
	p += nm->len[op];
	for (int i = 0; i < 2; i++) {
		uint64_t v = i == 0 ? (arg & 0xffffffffu) : (arg >> 32);
		switch (oi->arg[i].type) {
		case TRACE_ARG_NONE:
			continue;
		case TRACE_ARG_OUTCOME:
			if (v) {
				memcpy(p, " ok", 3);
				p += 3;
			} else {
				memcpy(p, " busy", 5);
				p += 5;
			}
			continue;
		case TRACE_ARG_DURATION:
			v = arg;
			break;
		default:
			break;
		}
		*p++ = ' ';
		p = trace_dec(p, v);
	}
	*p++ = '\n';
	o->n = (size_t)(p - o->buf);
}

static void o_note(struct sp_out *o, uint32_t tid, const char *when)
{
	o_s(o, "# thread ");
	o_u(o, tid);
	o_s(o, " was still running ");
	o_s(o, when);
	o_s(o, ": its exit is recorded here\n");
}

/* ---- the two passes ---- */

static int is_wait(const struct sp_rec *r)
{
	return r->op == TRACE_WAIT || (r->op == TRACE_TRYWAIT && (r->arg >> 32));
}

/* The id r names past the spool header's bounds (threads: maxtid, other
 * objects: maxid), or 0: the tables are indexed by id, so that a
 * corrupt spool is refused rather than allocating for ids no recorder
 * gave. */
static uint64_t bad_id(const struct sp_rec *r, uint64_t maxtid, uint64_t maxid)
{
	uint64_t v[2] = { r->arg & 0xffffffffu, r->arg >> 32 };
	if (r->op == REC_SPOOL_SEMINIT)
		return v[0] > maxid ? v[0] : 0;
	if (r->op == TRACE_UNLOCK && v[1] > maxid)
		return v[1]; /* a reservation's condvar */
	for (int k = 0; k < 2; k++) {
		const struct trace_operand *ai = &trace_ops[r->op].arg[k];
		if (ai->type == TRACE_ARG_OBJ && v[k] > (ai->kind == TRACE_K_THREAD ? maxtid : maxid))
			return v[k];
	}
	return 0;
}

/* Pass 1: what the header needs (semaphore initial tokens), the barrier
 * episodes, and the state of each thread at the end. */
static int pass1(struct sp_in *in, const struct rec_spool_head *h, struct sp_tables *t,
                 struct trace_error *err, const char *path)
{
	const struct sp_rec *r;
	int rerr = 0;
	while ((r = sp_next(in, &rerr))) {
		uint64_t i = in->i - 1, a = r->arg & 0xffffffffu, b = r->arg >> 32;
		if (r->op >= TRACE_NOPS && r->op != REC_SPOOL_SEMINIT)
			return rec_fail(err, "%s: record %" PRIu64 " has no operation %u: not a spool", path,
			                i, r->op);
		uint64_t bad = bad_id(r, h->threads, h->ids);
		if (bad)
			return rec_fail(err,
			                "%s: record %" PRIu64 " of thread %" PRIu32 " names id %" PRIu64
			                ", past the recorder's %" PRIu64 " threads and %" PRIu64
			                " objects: not a recorder's spool",
			                path, i, r->tid, bad, h->threads, h->ids);
		if (r->op == REC_SPOOL_SEMINIT) {
			if (sp_need(&t->sem, &t->nsem, sizeof *t->sem, a) < 0)
				goto oom;
			t->sem[a].initial += b;
			t->sem[a].count += (int64_t)b;
			continue;
		}
		if (sp_need(&t->th, &t->nth, sizeof *t->th, r->tid) < 0)
			goto oom;
		struct sp_thread *th = &t->th[r->tid];
		th->known = 1;
		th->last = i + 1;
		th->lastrec = *r;
		if (r->flags & REC_SPOOL_DEAD)
			continue;
		switch (r->op) { /* ORDER OP */
		case TRACE_CREATE:
			if (sp_need(&t->th, &t->nth, sizeof *t->th, a) < 0)
				goto oom;
			t->th[a].known = 1;
			break;
		case TRACE_EXIT:
			th->exited = 1;
			break;
		case TRACE_WAIT:
		case TRACE_TRYWAIT:
		case TRACE_POST:
			if (sp_need(&t->sem, &t->nsem, sizeof *t->sem, a) < 0)
				goto oom;
			if (r->op == TRACE_POST)
				t->sem[a].count++;
			else if (is_wait(r) && t->sem[a].count > 0)
				t->sem[a].count--;
			else if (is_wait(r))
				t->sem[a].initial++; /* a token no post gave */
			break;
		case TRACE_LOCK:
		case TRACE_TRYLOCK:
		case TRACE_UNLOCK:
			if (sp_need(&t->owner, &t->nmx, sizeof *t->owner, a) < 0)
				goto oom;
			if (r->op == TRACE_UNLOCK)
				t->owner[a] = 0;
			else if (r->op == TRACE_LOCK || b)
				t->owner[a] = r->tid;
			break;
		case TRACE_BARRIER:
			if (sp_need(&t->bar, &t->nbar, sizeof *t->bar, a) < 0)
				goto oom;
			t->bar[a].n = b;
			t->bar[a].lines++;
			break;
		case TRACE_SIGNAL:
		case TRACE_BROADCAST:
		case TRACE_CWAIT:
			if (sp_need(&t->claims, &t->ncond, sizeof *t->claims, a) < 0)
				goto oom;
			t->claims[a] += r->op == TRACE_CWAIT ? -1 : (int64_t)b;
			if (r->op == TRACE_CWAIT) {
				if (sp_need(&t->owner, &t->nmx, sizeof *t->owner, b) < 0)
					goto oom;
				t->owner[b] = r->tid;
			}
			break;
		default:
			break;
		}
	}
	if (rerr)
		return rec_fail(err, "%s: %s", path, strerror(rerr));
	return 0;
oom:
	return rec_fail(err, "%s: out of memory", path);
}

/* A cut spool: a thread whose last record is a condition wait's
 * reservation (a dead unlock naming its condvar) was waiting there; the
 * claims of the kept signals not met by a cwait go to those waiters in
 * the order they began waiting, the others get their unlock. */
static int settle_waiters(struct sp_tables *t)
{
	size_t n = 0;
	uint32_t *w = NULL;
	for (size_t i = 1; i < t->nth; i++) {
		struct sp_thread *th = &t->th[i];
		if (!th->known || th->exited || !th->last)
			continue;
		if (th->lastrec.op == TRACE_UNLOCK && (th->lastrec.flags & REC_SPOOL_DEAD)) {
			uint32_t *nw = realloc(w, (n + 1) * sizeof *w);
			if (!nw) {
				free(w);
				return -1;
			}
			w = nw;
			w[n++] = (uint32_t)i;
		}
	}
	/* in the order they began waiting (insertion sort: few waiters) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && t->th[w[j - 1]].last > t->th[w[j]].last; j--) {
			uint32_t x = w[j];
			w[j] = w[j - 1];
			w[j - 1] = x;
		}
	for (size_t i = 0; i < n; i++) {
		struct sp_thread *th = &t->th[w[i]];
		uint64_t c = th->lastrec.arg >> 32, m = th->lastrec.arg & 0xffffffffu;
		if (m < t->nmx && t->owner[m] == w[i])
			t->owner[m] = 0; /* it released M when it began waiting */
		if (c < t->ncond && t->claims[c] > 0) {
			t->claims[c]--;
			th->cwait = 1;
		} else {
			th->revive = 1;
		}
	}
	free(w);
	return 0;
}

int rec_spool_convert(const char *path, uint64_t teardown_ns, FILE *out,
                      struct rec_spool_info *info, struct trace_error *err)
{
	memset(info, 0, sizeof *info);
	memset(err, 0, sizeof *err);
	struct rec_spool_head h;
	struct sp_tables t = { 0 };
	struct sp_in *in = NULL;
	struct sp_out *o = NULL;
	char *names = NULL;
	int rc = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rec_fail(err, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
	    memcmp(h.magic, REC_SPOOL_MAGIC, 8)) {
		rec_fail(err, "%s: not a recorder's spool", path);
		goto out;
	}
	h.why[sizeof h.why - 1] = 0;
	if (h.state == REC_SPOOL_FAILED) {
		rec_fail(err, "%s: the recorder failed: %s", path, h.why);
		goto out;
	}
	info->complete = h.state == REC_SPOOL_DONE;
	uint64_t bsize = h.block * sizeof(struct rec_spool_rec);
	uint64_t end = info->complete ? h.foot : (uint64_t)st.st_size;
	if (h.block < 2 || h.block > (1u << 24) ||
	    (info->complete && (h.foot < REC_SPOOL_HEAD || (h.foot - REC_SPOOL_HEAD) % bsize ||
	                        h.foot + h.footlen > (uint64_t)st.st_size || h.footlen > (1u << 30)))) {
		rec_fail(err, "%s: the spool is shorter than its header says", path);
		goto out;
	}
	in = calloc(1, sizeof *in);
	o = malloc(sizeof *o);
	if (!in || !o) {
		rec_fail(err, "%s: out of memory", path);
		goto out;
	}
	in->fd = fd;
	in->bsize = bsize;
	in->maxtid = h.threads;
	uint64_t bad = 0;
	int e = sp_scan(in, end, &bad);
	if (e == EINVAL) {
		struct rec_spool_rec b = { 0 };
		size_t got;
		sp_pread(fd, &b, sizeof b, bad, &got);
		if (rec_spool_op(b.head) == REC_SPOOL_TAIL || rec_spool_op(b.head) == REC_SPOOL_BLOCK)
			rec_fail(err,
			         "%s: the block at byte %" PRIu64 " names thread %" PRIu32
			         ", past the recorder's %" PRIu64 " threads: not a recorder's spool",
			         path, bad, b.y, h.threads);
		else
			rec_fail(err, "%s: the block at byte %" PRIu64 " has no block header: not a recorder's spool",
			         path, bad);
		goto out;
	}
	if (!e)
		e = sp_start(in);
	if (e) {
		rec_fail(err, "%s: %s", path, strerror(e));
		goto out;
	}
	if (pass1(in, &h, &t, err, path) < 0)
		goto out;
	info->kept = in->i;
	info->emitted = info->complete ? h.emitted : in->i;
	if (!info->complete && settle_waiters(&t) < 0) {
		rec_fail(err, "%s: out of memory", path);
		goto out;
	}
	if (info->complete && h.footlen) {
		names = malloc(h.footlen);
		if (!names || pread(fd, names, h.footlen, (off_t)h.foot) != (ssize_t)h.footlen) {
			rec_fail(err, "%s: cannot read the thread names", path);
			goto out;
		}
	}

	/* the header */
	struct o_names nm;
	o_names_init(&nm);
	o->f = out;
	o->n = 0;
	o->err = 0;
	o_s(o, "shadowbind-trace 1\n# recorded by shadowbind-record (");
	if (info->complete) {
		o_s(o, h.why);
	} else {
		o_s(o, "cut: the program ended without the recorder's exit; ");
		o_u(o, info->kept);
		o_s(o, " records kept, those being written then lost");
	}
	o_s(o, "); work is thread CPU time\nunit ns\n");
	if (names)
		o_mem(o, names, h.footlen);
	else
		o_s(o, "thread 1 main\n");
	for (size_t s = 1; s < t.nsem; s++) {
		if (!t.sem[s].initial)
			continue;
		o_s(o, "sem ");
		o_u(o, s);
		o_s(o, " ");
		o_u(o, t.sem[s].initial);
		o_s(o, "\n");
	}
	o_s(o, "\n");

	/* the records */
	if ((e = sp_start(in)) != 0) {
		rec_fail(err, "%s: %s", path, strerror(e));
		goto out;
	}
	const struct sp_rec *r;
	int rerr = 0;
	while ((r = sp_next(in, &rerr)) && !o->err) {
		if (r->op == REC_SPOOL_SEMINIT || r->tid >= t.nth)
			continue;
		struct sp_thread *th = &t.th[r->tid];
		int live = !(r->flags & REC_SPOOL_DEAD) || (th->revive && in->i == th->last);
		if (!live)
			continue;
		uint64_t a = r->arg & 0xffffffffu;
		if (r->op == TRACE_BARRIER && a < t.nbar) {
			struct sp_bar *b = &t.bar[a];
			if (b->seen++ >= b->lines - (b->n ? b->lines % b->n : 0)) {
				/* an episode not every member left */
				th->carry += r->work;
				info->dropped++;
				continue;
			}
		}
		if (r->flags & REC_SPOOL_NOTE)
			o_note(o, r->tid, "at process exit");
		uint64_t arg = r->op == TRACE_UNLOCK ? a : r->arg; /* b: the reservation's condvar */
		uint64_t tail = 0;
		if (r->tid == 1 && r->op == TRACE_EXIT && info->complete && !info->teardown) {
			tail = teardown_ns; /* the process's end, after the spool */
			info->teardown = teardown_ns;
		}
		o_rec(o, &nm, r->tid, r->work + th->carry + tail, r->op, arg);
		th->carry = 0;
	}
	if (rerr) {
		rec_fail(err, "%s: %s", path, strerror(rerr));
		goto out;
	}
	/* a cut trace: end every thread: the mutexes still held are
	 * released (a woken waiter must take its mutex back), the waiters a
	 * kept signal claimed return, then every thread exits */
	if (!info->complete) {
		o_s(o, "# the recording was cut here: what follows ends the threads still running\n");
		for (size_t m = 1; m < t.nmx; m++) {
			uint32_t w = t.owner[m];
			if (!w || w >= t.nth || t.th[w].exited)
				continue;
			o_rec(o, &nm, w, t.th[w].carry, TRACE_UNLOCK, m);
			t.th[w].carry = 0;
			info->added++;
		}
		for (size_t i = 1; i < t.nth; i++) {
			struct sp_thread *th = &t.th[i];
			if (!th->known || th->exited || !th->cwait)
				continue;
			/* woken by a kept signal, not yet returned */
			uint64_t c = th->lastrec.arg >> 32, m = th->lastrec.arg & 0xffffffffu;
			o_rec(o, &nm, (uint32_t)i, th->lastrec.work + th->carry, TRACE_CWAIT, c | m << 32);
			o_rec(o, &nm, (uint32_t)i, 0, TRACE_UNLOCK, m);
			th->carry = 0;
			info->added += 2;
		}
		for (size_t i = 1; i < t.nth; i++) {
			struct sp_thread *th = &t.th[i];
			if (!th->known || th->exited)
				continue;
			o_note(o, (uint32_t)i, "when the recording was cut");
			o_rec(o, &nm, (uint32_t)i, th->carry, TRACE_EXIT, 0);
			info->added++;
		}
	}
	o_flush(o);
	if (o->err || fflush(out) != 0) {
		rec_fail(err, "cannot write the trace: %s", strerror(o->err ? o->err : errno));
		goto out;
	}
	rc = 0;
out:
	close(fd);
	sp_in_free(in);
	free(o);
	free(names);
	sp_tables_free(&t);
	return rc;
}
