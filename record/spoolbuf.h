/*
 * spoolbuf.h - one thread's spool buffer: the recorder's writer of the
 * SBSPOOL3 slots (record.h, "the spool"), with the thread's latest
 * record, which the wrapper that made it may still mark dead or noted.
 *
 * The preload library (record/preload/rp_state.c) records through these
 * functions, and tests/test_record.c (test_spool_writer) drives the same
 * ones with a small buffer, so that what a full buffer does to the
 * latest record is tested on the library's own code.  Header only:
 * the record's path (rec_spool_buf_emit, _put, _sync) is inlined in the
 * library's wrappers; the flush is out of line (cold).
 *
 * No locking: a buffer is written by its thread (or, at the end, by the
 * thread finishing the spool while the others are stopped).
 */
#ifndef REC_SPOOLBUF_H
#define REC_SPOOLBUF_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "record/record.h"

/* A thread's latest record: the library hands its wrappers a pointer to
 * it (valid until the thread's next record), and they may still mark it
 * dead (a failed call, a condition wait's reservation) or alive again,
 * or noted (an exit written at process exit); rec_spool_buf_sync writes
 * that to its slot. */
struct rec_spool_pend {
	uint64_t stamp; /* Lamport stamp                                    */
	uint64_t work;  /* CPU time before the operation; ns                */
	uint64_t arg;   /* a | b << 32; for sleep the duration in ns        */
	uint8_t op;     /* enum trace_op                                    */
	uint8_t dead;   /* 1: not written (a reservation that was not used) */
	uint8_t note;   /* 1: an exit written at process exit (comment)     */
};

/* Where a full buffer's records go: a block whose header is *h
 * (REC_SPOOL_BLOCK: x the slots, y the thread, the stamp the last
 * record's) and whose n slots are r[0..n-1]; the callee writes them to
 * the spool (errors are its to keep). */
typedef void rec_spool_out(void *ctx, const struct rec_spool_rec *h, const struct rec_spool_rec *r,
                           uint32_t n);

struct rec_spool_buf {
	struct rec_spool_rec *slot; /* cap slots, slot 0 its header
	                               (REC_SPOOL_TAIL); NULL: not open    */
	uint32_t pos;            /* next free slot (1..cap)                 */
	uint32_t cap;            /* slots, the header's included            */
	uint32_t tid;            /* the thread                              */
	rec_spool_out *out;      /* NULL: a full buffer is emptied (the
	                            calibration's records are never kept)   */
	void *ctx;               /* out's                                   */
	struct rec_spool_rec *pend_slot; /* where the latest record is (NULL:
	                            nowhere it can still be patched)        */
	uint8_t pend_flags;      /* the flags its slot holds                */
	int has_pend;            /* pend is a record to keep                */
	uint64_t put_last;       /* the stamp of the last slot written      */
	uint64_t pend_before;    /* the stamp written before the latest
	                            record (a full block's last, when that
	                            record stays in the buffer)             */
	uint64_t nrec;           /* records written (the spool's count)     */
	int err;                 /* EOVERFLOW: a stamp past
	                            REC_SPOOL_STAMP_MAX (not written)       */
	struct rec_spool_pend pend; /* the latest record                    */
};

/*
 * rec_spool_buf_open - b writes thread tid's records into slot[0..cap-1]
 * (zeros; cap at least 3: a header and a long record), slot 0 made its
 * header (REC_SPOOL_TAIL, stored last), and gives full buffers to out
 * (NULL: emptied, nothing kept).  b's other fields as they were (zeros
 * for a new thread).
 */
static inline void rec_spool_buf_open(struct rec_spool_buf *b, struct rec_spool_rec *slot,
                                      uint32_t cap, uint32_t tid, rec_spool_out *out, void *ctx)
{
	b->slot = slot;
	b->cap = cap;
	b->pos = 1;
	b->tid = tid;
	b->out = out;
	b->ctx = ctx;
	slot[0].y = tid;
	__atomic_store_n(&slot[0].head, (uint64_t)REC_SPOOL_TAIL << 56, __ATOMIC_RELEASE);
}

static inline uint8_t rec_spool_pend_flags(const struct rec_spool_pend *r)
{
	return (uint8_t)((r->dead ? REC_SPOOL_DEAD : 0) | (r->note ? REC_SPOOL_NOTE : 0));
}

/* The latest record's flags (b->pend.dead, .note) into its slot, when
 * they changed (they mostly stay 0). */
static inline void rec_spool_buf_sync(struct rec_spool_buf *b)
{
	uint8_t f = rec_spool_pend_flags(&b->pend);
	if (__builtin_expect(f != b->pend_flags, 0) && b->has_pend && b->pend_slot) {
		rec_spool_set_flags(b->pend_slot, f);
		b->pend_flags = f;
	}
}

/* b cannot take `need` more slots: its records go out as a block
 * (REC_SPOOL_BLOCK), but its latest one (rec_spool_buf_sync may still
 * patch it) and what follows it (a declaration), which move to slot 1
 * (unless that would leave no room for `need`: then they go out too,
 * the latest record's flags as its slot has them); the rest is emptied.
 * The flags are not synced here: whoever writes a slot syncs the latest
 * record first (rec_spool_buf_emit, _decl), so its slot holds what its
 * wrapper said, and b->pend may already be the record being written
 * (a flush that synced b->pend itself, as the first 16-byte version
 * did, gave the previous record the flags of the one being written, 0:
 * a condition wait's dead reservation came back as a live `unlock M`
 * before its `cwait C M` when the buffer filled there, idle run C's
 * invalid FMM trace of 2026-11-27; test_spool_writer).
 * A crash between the copy and the emptying leaves records twice:
 * rec_spool_convert reads a buffer's records only past the stamps of
 * its thread's blocks. */
static __attribute__((noinline, cold, unused)) void rec_spool_buf_flush(struct rec_spool_buf *b,
                                                                        uint32_t need)
{
	uint32_t from = b->pos; /* the first slot kept */
	uint64_t last = b->put_last;
	if (b->pend_slot && b->pend_slot > &b->slot[1] && b->pend_slot < &b->slot[b->pos] &&
	    b->pos - (uint32_t)(b->pend_slot - b->slot) + 1 + need <= b->cap) {
		from = (uint32_t)(b->pend_slot - b->slot);
		last = b->pend_before;
	}
	uint32_t n = from - 1, keep = b->pos - from;
	if (!b->out) {
		b->pos = 1;
		b->pend_slot = NULL;
		return;
	}
	if (n) {
		struct rec_spool_rec h = {
			.head = last | (uint64_t)REC_SPOOL_BLOCK << 56, .x = n, .y = b->tid,
		};
		b->out(b->ctx, &h, &b->slot[1], n);
	}
	if (keep) {
		memmove(&b->slot[1], &b->slot[from], (size_t)keep * sizeof *b->slot);
		b->pend_slot = &b->slot[1];
	} else {
		b->pend_slot = NULL; /* in the block as it is */
	}
	memset(&b->slot[1 + keep], 0, (size_t)n * sizeof *b->slot);
	b->pos = 1 + keep;
}

/* Append a record (stamp, work in ns, arg, op: enum trace_op or a
 * declaration, REC_SPOOL_SEMINIT) to b; its slot, or NULL (b not open,
 * or the stamp past REC_SPOOL_STAMP_MAX: b->err EOVERFLOW).  Its head
 * is stored last (rec_spool_put): a slot with a head is written.  It
 * does not become the latest record (rec_spool_buf_emit does that), and
 * the latest record's flags must have been synced (a full buffer may
 * send it out). */
static inline __attribute__((always_inline)) struct rec_spool_rec *
rec_spool_buf_put(struct rec_spool_buf *b, uint64_t stamp, uint64_t work, uint64_t arg, unsigned op)
{
	if (__builtin_expect(!b->slot, 0))
		return NULL;
	if (__builtin_expect(stamp > REC_SPOOL_STAMP_MAX, 0)) {
		b->err = EOVERFLOW; /* 2^52 records: not in this life */
		return NULL;
	}
	unsigned len = rec_spool_len(work, arg);
	if (__builtin_expect(b->pos + len > b->cap, 0))
		rec_spool_buf_flush(b, len);
	struct rec_spool_rec *d = &b->slot[b->pos];
	b->pos += rec_spool_put(d, stamp, work, arg, op, 0);
	b->put_last = stamp;
	b->nrec++;
	return d;
}

/* A declaration (REC_SPOOL_SEMINIT: arg a | b << 32) after the latest
 * record, which stays the latest (its flags synced first). */
static inline void rec_spool_buf_decl(struct rec_spool_buf *b, uint64_t stamp, uint64_t arg,
                                      unsigned op)
{
	rec_spool_buf_sync(b);
	rec_spool_buf_put(b, stamp, 0, arg, op);
}

/*
 * rec_spool_buf_release - b's thread ended (its exit is its latest
 * record, which nothing patches any more): the records still in b go
 * out as a block (REC_SPOOL_BLOCK, the last one's stamp; none when b has
 * no out: the calibration's), the slots they used are zeroed, and b is
 * closed (slot NULL).  Returns the slots, for rec_spool_buf_open by
 * another thread, or NULL when b was not open.  Until that open their
 * header still names b's thread, and a spool cut in between holds its
 * records in the block; its buffer then reads as empty (zeroed slots)
 * or, cut before the zeroing, as copies of the block's records, which
 * rec_spool_convert skips (a buffer's records count only past the
 * stamps of its thread's blocks).  A thread per task reuses the buffers
 * of the threads that ended instead of mapping one each
 * (docs/record.md, "Buffers").
 */
static inline struct rec_spool_rec *rec_spool_buf_release(struct rec_spool_buf *b)
{
	struct rec_spool_rec *s = b->slot;
	if (!s)
		return NULL;
	rec_spool_buf_sync(b);
	uint32_t n = b->pos - 1;
	if (n && b->out) {
		struct rec_spool_rec h = {
			.head = b->put_last | (uint64_t)REC_SPOOL_BLOCK << 56, .x = n, .y = b->tid,
		};
		b->out(b->ctx, &h, &s[1], n);
	}
	memset(&s[1], 0, (size_t)n * sizeof *s);
	b->slot = NULL;
	b->pos = 1;
	b->pend_slot = NULL;
	b->has_pend = 0;
	return s;
}

/*
 * rec_spool_buf_emit - the thread's next record (stamp, work in ns, op,
 * arg a | b << 32 or a sleep's duration): the previous one's flags
 * synced to its slot, then this one written (a full buffer flushed:
 * the previous one is final by then), flags 0, and made the latest.
 * Returns b->pend (also when b is not open: then it is nowhere but
 * there).
 */
static inline __attribute__((always_inline)) struct rec_spool_pend *
rec_spool_buf_emit(struct rec_spool_buf *b, uint64_t stamp, uint64_t work, unsigned op, uint64_t arg)
{
	rec_spool_buf_sync(b);
	uint64_t before = b->put_last;
	struct rec_spool_rec *slot = rec_spool_buf_put(b, stamp, work, arg, op);
	struct rec_spool_pend *r = &b->pend;
	r->stamp = stamp;
	r->work = work;
	r->arg = arg;
	r->op = (uint8_t)op;
	r->dead = 0;
	r->note = 0;
	b->pend_slot = slot;
	b->pend_before = before;
	b->pend_flags = 0;
	b->has_pend = b->out != NULL;
	return r;
}

#endif
