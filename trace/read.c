/*
 * read.c - the streaming trace reader: chunked input into a line buffer,
 * the tokenizer, and pass 1 (syntax, declarations, dense numbering of the
 * objects, records in file order).  Pass 2, the replay, is validate.c.
 *
 * The line buffer always holds whole lines, each ending with LF (the last
 * line of the input gets one), so the tokenizer never checks for the end
 * of the buffer: every scan stops at the LF of its line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/traceint.h"

void trace_limits_default(struct trace_limits *lim)
{
	lim->max_line = UINT32_MAX - 1;
	lim->max_rec = UINT32_MAX;
	lim->max_work = TRACE_WORK_LIMIT;
	lim->chunk = (size_t)1 << 20;
	lim->buf_init = (size_t)1 << 20;
	lim->buf_max = (size_t)64 << 20;
	lim->seed = 0;
	lim->probes = NULL;
	lim->slow_only = 0;
}

/* ---------------------------------------------------------------------
 * Tokenizer.  Blanks are space and tab; a CR counts as the end of the
 * line when an LF follows it, and as a token byte otherwise.
 */

static const unsigned char delim[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
};

static inline const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static inline const char *tok_end(const char *p)
{
	for (;;) {
		while (!delim[(unsigned char)*p])
			p++;
		if (*p != '\r' || p[1] == '\n')
			return p;
		p++;
	}
}

/* After skip_ws: the line's content has ended (LF, CR LF or a comment;
 * a '#' here is always preceded by a blank or starts the line). */
static inline int at_end(const char *p)
{
	return *p == '\n' || *p == '#' || (*p == '\r' && p[1] == '\n');
}

/* At at_end(p): the start of the next line. */
static inline const char *next_line(const char *p)
{
	if (*p == '#')
		p = rawmemchr(p, '\n');
	else if (*p == '\r')
		p++;
	return p + 1;
}

#define NUM_BAD UINT64_MAX       /* not a string of digits       */
#define NUM_BIG (UINT64_MAX - 1) /* digits, but at least 2^64-ish */

/* Decimal token at p (not empty).  Returns its end; *v is its value,
 * NUM_BAD or NUM_BIG.  Leading zeros are allowed. */
static inline const char *num(const char *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned d;
	while (*p == '0')
		p++;
	const char *s = p;
	while ((d = (unsigned)(unsigned char)*p - '0') < 10) {
		x = x * 10 + d;
		p++;
	}
	if (p - s > 19)
		x = NUM_BIG;
	if (!delim[(unsigned char)*p] || (*p == '\r' && p[1] != '\n')) {
		*v = NUM_BAD;
		return tok_end(p);
	}
	*v = x;
	return p;
}

static inline uint64_t ld64(const char *s)
{
	uint64_t v;
	memcpy(&v, s, 8);
	return v;
}

/* The first n bytes (0..8) of w, the rest zero. */
static inline uint64_t low_bytes(uint64_t w, size_t n)
{
	return n >= 8 ? w : w & (((uint64_t)1 << (8 * n)) - 1);
}

/* The operation named by the token [s, s + n), or -1: a small open-
 * addressing map built from trace_ops (tr_opmap_init), keyed by the
 * token's first two words, zero-padded (tokens of up to 16 bytes; the
 * line buffer has TR_PAD bytes past any line). */
static inline unsigned opmap_pos(uint64_t w0, size_t n)
{
	return (unsigned)(((w0 ^ n) * 0x9E3779B97F4A7C15ull) >> (64 - TR_OPMAP_BITS));
}

void tr_opmap_init(struct tr_opmap *m)
{
	memset(m, 0, sizeof *m);
	for (int op = 0; op < TRACE_NOPS; op++) {
		char name[16] = { 0 };
		size_t n = strlen(trace_ops[op].name);
		if (n < 1 || n > 16)
			continue; /* found by the scan in op_lookup */
		memcpy(name, trace_ops[op].name, n);
		unsigned k = opmap_pos(ld64(name), n);
		while (m->len[k])
			k = (k + 1) & ((1u << TR_OPMAP_BITS) - 1);
		m->w0[k] = ld64(name);
		m->w1[k] = ld64(name + 8);
		m->len[k] = (uint8_t)n;
		m->op[k] = (uint8_t)op;
	}
	for (int op = 0; op < TRACE_NOPS; op++)
		if (trace_ops[op].arg[0].type == TRACE_ARG_OBJ &&
		    trace_ops[op].arg[1].type == TRACE_ARG_NONE)
			m->one[op] = (uint8_t)(1 + trace_ops[op].arg[0].kind);
}

static inline int op_lookup(const struct tr_opmap *m, const char *s, size_t n)
{
	if (n - 1 < 16) {
		uint64_t w0 = low_bytes(ld64(s), n);
		uint64_t w1 = n > 8 ? low_bytes(ld64(s + 8), n - 8) : 0;
		/* (equal zero-padded words are equal tokens: neither a
		 * token nor a name has a NUL byte) */
		for (unsigned k = opmap_pos(w0, n); m->len[k];
		     k = (k + 1) & ((1u << TR_OPMAP_BITS) - 1))
			if (m->w0[k] == w0 && m->w1[k] == w1)
				return m->op[k];
		return -1;
	}
	for (int op = 0; op < TRACE_NOPS; op++)
		if (strlen(trace_ops[op].name) == n &&
		    memcmp(trace_ops[op].name, s, n) == 0)
			return op;
	return -1;
}

/* ---------------------------------------------------------------------
 * Errors of pass 1: always about the current line.
 */

static void perr(struct tr_p1 *P, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void perr(struct tr_p1 *P, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tr_verr(P->err, P->file, P->line, fmt, ap);
	va_end(ap);
	P->err_line = P->line;
}

#define FAIL(...)                   \
	do {                        \
		perr(P, __VA_ARGS__); \
		return NULL;        \
	} while (0)

static const char *oom(struct tr_p1 *P)
{
	tr_err(P->err, P->file, 0, "out of memory");
	P->err_line = UINT32_MAX;
	P->fatal = 1;
	return NULL;
}

/* "work '-5' is not a non-negative integer", "... is not below 2^62" */
static const char *bad_num(struct tr_p1 *P, const char *what, const char *s,
                           const char *e, uint64_t v, const char *limit)
{
	struct tr_quote q;
	tr_quote(&q, s, (size_t)(e - s));
	if (v == NUM_BAD)
		FAIL("%s %s is not a non-negative integer", what, q.s);
	FAIL("%s %s is not below %s", what, q.s, limit);
}

/* column of p in the current line, 0 if unknown (line was squeezed) */
static unsigned column(const struct tr_p1 *P, const char *p)
{
	if (P->squeezed_line == P->line)
		return 0;
	return (unsigned)(p - P->line_start) + 1;
}

/* "unexpected token 'x' after 'lock 3'": the context [after, +alen) is
 * quoted with each run of blanks as one space (as a squeezed line has it). */
static const char *unexpected(struct tr_p1 *P, const char *p,
                              const char *after, size_t alen)
{
	struct tr_quote q, a;
	char ctx[TR_QUOTE_MAX + 1];
	size_t n = 0;
	for (size_t i = 0; i < alen && n <= TR_QUOTE_MAX; i++) {
		char c = after[i];
		if (c == ' ' || c == '\t') {
			if (n && ctx[n - 1] == ' ')
				continue;
			c = ' ';
		}
		ctx[n++] = c;
	}
	const char *e = tok_end(p);
	unsigned col = column(P, p);
	tr_quote(&q, p, (size_t)(e - p));
	tr_quote(&a, ctx, n);
	if (col)
		FAIL("unexpected token %s after %s (column %u)", q.s, a.s, col);
	FAIL("unexpected token %s after %s", q.s, a.s);
}

/* A name or location token: no control bytes. */
static const char *ctrl_byte(const char *s, const char *e)
{
	for (; s < e; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return s;
	return NULL;
}

/* ---------------------------------------------------------------------
 * Objects: external id -> dense index per kind.
 */

static const uint64_t EMPTY = UINT64_MAX;

static int obj_init(struct tr_obj *o)
{
	o->mask = 15;
	o->shift = 64 - 4;
	o->slot = malloc(16 * sizeof *o->slot);
	if (!o->slot)
		return -1;
	memset(o->slot, 0xff, 16 * sizeof *o->slot);
	for (int i = 0; i < TR_OBJCACHE; i++)
		o->cache[i].key = UINT32_MAX;
	return 0;
}

static inline size_t hpos(const struct tr_hash *h, uint32_t key, int shift)
{
	return (size_t)(tr_hash32(h, key) >> shift);
}

static int obj_rehash(const struct tr_hash *h, struct tr_obj *o)
{
	size_t slots = ((size_t)o->mask + 1) * 2;
	if (slots > ((size_t)1 << 32))
		return -1;
	uint64_t *ns = malloc(slots * sizeof *ns);
	if (!ns)
		return -1;
	memset(ns, 0xff, slots * sizeof *ns);
	int shift = o->shift - 1;
	uint32_t mask = (uint32_t)(slots - 1);
	for (size_t i = 0; i <= o->mask; i++) {
		uint64_t v = o->slot[i];
		if (v == EMPTY)
			continue;
		size_t k = hpos(h, (uint32_t)(v >> 32), shift);
		while (ns[k] != EMPTY)
			k = (k + 1) & mask;
		ns[k] = v;
	}
	free(o->slot);
	o->slot = ns;
	o->mask = mask;
	o->shift = shift;
	return 0;
}

/* The array a of *cap entries of `size` bytes, reallocated to twice as
 * many (64 at first); *cap is updated.  NULL when out of memory (a and
 * *cap are then unchanged). */
static void *grow2(void *a, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *n = realloc(a, c * size);
	if (n)
		*cap = c;
	return n;
}

static int grow32(uint32_t **a, uint32_t cap)
{
	uint32_t *n = realloc(*a, (size_t)cap * sizeof **a);
	if (!n)
		return -1;
	*a = n;
	return 0;
}

/* Grow the direct table of o to cover `key` if that keeps it within
 * TR_DIR_SPREAD entries per object (counting the one being added).
 * Returns 0, or -1 when out of memory. */
static int dir_grow(struct tr_obj *o, uint32_t key)
{
	size_t cap = o->dcap ? o->dcap : 64;
	while (cap <= key)
		cap *= 2;
	size_t lim = ((size_t)o->n + 1) * TR_DIR_SPREAD;
	if (cap > lim && cap > TR_DIR_MIN)
		return 0;
	uint32_t *d = realloc(o->dir, cap * sizeof *d);
	if (!d)
		return -1;
	memset(d + o->dcap, 0xff, (cap - o->dcap) * sizeof *d);
	/* ids now covered that the map holds: the map keeps them, unused */
	for (uint32_t i = 0; i < o->n; i++)
		if (o->id[i] >= o->dcap && o->id[i] < cap)
			d[o->id[i]] = i;
	o->dir = d;
	o->dcap = (uint32_t)cap;
	return 0;
}

/* A new object `key` of `kind` (its arrays have room): its dense index,
 * its side arrays set (`line`: its first use, as obj_get_map says). */
static inline uint32_t obj_new(struct tr_p1 *P, int kind, uint32_t key, uint32_t line)
{
	struct tr_obj *o = &P->obj[kind];
	uint32_t d = o->n++;
	o->id[d] = key;
	if (kind == TRACE_K_THREAD) {
		P->th_name[d] = TRACE_NONE;
		P->th_name_line[d] = 0;
		P->th_first_use[d] = line;
		P->th_last[d] = TRACE_NONE;
		P->th_cw0[d] = TRACE_NONE;
		P->th_nrec[d] = 0;
	} else if (kind == TRACE_K_SEM) {
		P->sem_init[d] = 0;
		P->sem_line[d] = line;
	}
	P->probes.obj_inserts++;
	P->probes.obj_probes++;
	return d;
}

static int obj_insert(struct tr_p1 *P, int kind, uint32_t key, uint32_t line,
                      uint32_t *idx)
{
	struct tr_obj *o = &P->obj[kind];
	if (o->n >= UINT32_MAX - 1)
		return -1;
	if (key >= o->dcap && dir_grow(o, key))
		return -1;
	int direct = key < o->dcap;
	if (!direct && ((size_t)o->hn + 1) * 2 > (size_t)o->mask + 1 &&
	    obj_rehash(&P->hash, o))
		return -1;
	if (o->n == o->cap) {
		uint32_t cap = o->cap ? (o->cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : o->cap * 2) : 16;
		if (grow32(&o->id, cap))
			return -1;
		if (kind == TRACE_K_THREAD &&
		    (grow32(&P->th_name, cap) || grow32(&P->th_name_line, cap) ||
		     grow32(&P->th_first_use, cap) || grow32(&P->th_last, cap) ||
		     grow32(&P->th_cw0, cap) || grow32(&P->th_nrec, cap)))
			return -1;
		if (kind == TRACE_K_SEM &&
		    (grow32(&P->sem_init, cap) || grow32(&P->sem_line, cap)))
			return -1;
		o->cap = cap;
	}
	uint32_t d = obj_new(P, kind, key, line);
	*idx = d;
	if (direct) {
		o->dir[key] = d;
		return 0;
	}
	size_t k = hpos(&P->hash, key, o->shift);
	while (o->slot[k] != EMPTY) {
		k = (k + 1) & o->mask;
		P->probes.obj_probes++;
	}
	o->slot[k] = (uint64_t)key << 32 | d;
	o->hn++;
	return 0;
}

/* The dense index of object `key` of `kind`, added if new; `line`: the
 * line of the record that names it (its first use, if new), 0 for a
 * declaration.  (A first use matters only for an object added by a
 * record: a declaration of an object added by a declaration is an error
 * of its own.) */
static int obj_get_map(struct tr_p1 *P, int kind, uint32_t key, uint32_t line,
                       uint32_t *idx)
{
	struct tr_obj *o = &P->obj[kind];
	if (key < o->dcap) { /* not in dir[]: new */
		if (o->n >= o->cap) /* (cap <= UINT32_MAX - 1) */
			return obj_insert(P, kind, key, line, idx);
		/* the common case of obj_insert (a task graph adds a
		 * semaphore every two records), without its call */
		uint32_t d = obj_new(P, kind, key, line);
		o->dir[key] = d;
		*idx = d;
		return 0;
	}
	unsigned c = key % TR_OBJCACHE;
	if (o->cache[c].key == key) {
		*idx = o->cache[c].idx;
		return 0;
	}
	size_t k = hpos(&P->hash, key, o->shift);
	for (;;) {
		uint64_t v = o->slot[k];
		if ((uint32_t)(v >> 32) == key) {
			*idx = (uint32_t)v;
			break;
		}
		if (v == EMPTY) {
			if (obj_insert(P, kind, key, line, idx))
				return -1;
			break;
		}
		k = (k + 1) & o->mask;
	}
	/* (an insert may have grown dir[] over key: the cache is not
	 * consulted for such keys any more) */
	o->cache[c].key = key;
	o->cache[c].idx = *idx;
	return 0;
}

/* The same, returning the index (TRACE_NONE when out of memory): the
 * index of a known object stays in a register (through an out-parameter
 * it went through memory, since obj_get_map takes its address). */
static inline __attribute__((always_inline)) uint32_t
obj_at(struct tr_p1 *P, int kind, uint32_t key, uint32_t line)
{
	struct tr_obj *o = &P->obj[kind];
	if (key < o->dcap) {
		uint32_t d = o->dir[key];
		if (d != TRACE_NONE)
			return d;
	}
	uint32_t d;
	return obj_get_map(P, kind, key, line, &d) ? TRACE_NONE : d;
}

static inline __attribute__((always_inline)) int
obj_get(struct tr_p1 *P, int kind, uint32_t key, uint32_t line, uint32_t *idx)
{
	*idx = obj_at(P, kind, key, line);
	return *idx == TRACE_NONE ? -1 : 0;
}

/* ---------------------------------------------------------------------
 * String pool.
 */

static int str_add(struct tr_p1 *P, const char *s, size_t n, uint32_t *off)
{
	if (P->slen + n + 1 >= TRACE_NONE)
		return -2;
	if (P->slen + n + 1 + TR_PAD > P->scap) { /* TR_PAD: tr_hash_bytes */
		size_t cap = P->scap ? P->scap : 4096;
		while (cap < P->slen + n + 1 + TR_PAD)
			cap *= 2;
		char *ns = realloc(P->str, cap);
		if (!ns)
			return -1;
		P->str = ns;
		P->scap = cap;
	}
	memcpy(P->str + P->slen, s, n);
	P->str[P->slen + n] = 0;
	*off = (uint32_t)P->slen;
	P->slen += n + 1;
	return 0;
}

/* A location (without '@'), shared by all records that name it; TR_PAD
 * readable bytes must follow s + n. */
static int loc_add(struct tr_p1 *P, const char *s, size_t n, uint32_t *off)
{
	if (((size_t)P->nlocs + 1) * 2 > (size_t)P->locmask + 1) {
		size_t slots = P->locset ? ((size_t)P->locmask + 1) * 2 : 64;
		if (slots > ((size_t)1 << 31))
			return -1;
		uint32_t *ns = malloc(slots * sizeof *ns);
		uint64_t *nh = malloc(slots * sizeof *nh);
		if (!ns || !nh) {
			free(ns);
			free(nh);
			return -1;
		}
		memset(ns, 0xff, slots * sizeof *ns);
		if (P->locset) {
			for (size_t i = 0; i <= P->locmask; i++) {
				uint32_t o = P->locset[i];
				if (o == TRACE_NONE)
					continue;
				size_t k = P->lochash[i] & (slots - 1);
				while (ns[k] != TRACE_NONE)
					k = (k + 1) & (slots - 1);
				ns[k] = o;
				nh[k] = P->lochash[i];
			}
		}
		free(P->locset);
		free(P->lochash);
		P->locset = ns;
		P->lochash = nh;
		P->locmask = (uint32_t)(slots - 1);
	}
	uint64_t h = tr_hash_bytes(&P->hash, s, n);
	size_t k = h & P->locmask;
	uint64_t probes = 1;
	for (;;) {
		uint32_t o = P->locset[k];
		if (o == TRACE_NONE)
			break;
		probes++;
		if (P->lochash[k] == h && memcmp(P->str + o, s, n) == 0 &&
		    P->str[o + n] == 0) {
			*off = o;
			return 0;
		}
		k = (k + 1) & P->locmask;
	}
	int rc = str_add(P, s, n, off);
	if (rc)
		return rc;
	P->locset[k] = *off;
	P->lochash[k] = h;
	P->nlocs++;
	P->probes.loc_inserts++;
	P->probes.loc_probes += probes;
	return 0;
}

/* ---------------------------------------------------------------------
 * Records.
 */

/* The next operand after p, or NULL when the line's content has ended or
 * a location follows. */
static inline const char *operand(const char *p)
{
	p = skip_ws(p);
	return (at_end(p) || *p == '@') ? NULL : p;
}

static const char *bad_op(struct tr_p1 *P, const char *s, const char *e)
{
	const char *names[TRACE_NOPS];
	struct tr_quote q;
	int sug;
	for (int i = 0; i < TRACE_NOPS; i++)
		names[i] = trace_ops[i].name;
	tr_lookup(names, TRACE_NOPS, s, (size_t)(e - s), &sug);
	tr_quote(&q, s, (size_t)(e - s));
	if (sug >= 0)
		FAIL("%s is not an operation (did you mean '%s'?)", q.s, names[sug]);
	FAIL("%s is not an operation", q.s);
}

/* bad_num for an operand named after its operation: "barrier size" */
static const char *bad_opnum(struct tr_p1 *P, const char *op, const char *what,
                             const char *s, const char *e, uint64_t v,
                             const char *limit)
{
	char w[64];
	snprintf(w, sizeof w, "%s %s", op, what);
	return bad_num(P, w, s, e, v, limit);
}

static int rec_grow(struct tr_p1 *P)
{
	size_t cap = P->rcap ? P->rcap * 2 : 4096;
	if (cap > P->lim.max_rec)
		cap = (size_t)P->lim.max_rec;
	struct tr_rec1 *r = realloc(P->rec, cap * sizeof *r);
	if (!r)
		return -1;
	P->rec = r;
	if (P->loc) {
		uint32_t *l = realloc(P->loc, cap * sizeof *l);
		if (!l)
			return -1;
		P->loc = l;
	}
	P->rcap = cap;
	return 0;
}

/* ORDER OP */
_Static_assert(TRACE_NOPS <= 32, "an operation fits in 5 bits (struct tr_rec1)");

/* The line of the first record (P->nrec > 0): its line difference from
 * line 0, or its escape entry's line (the first one). */
static uint32_t first_rec_line(const struct tr_p1 *P)
{
	uint32_t diff = P->rec[0].wl >> TR1_DIFF_SHIFT & TR1_ESC;
	return diff == TR1_ESC ? P->esc[0].line : diff;
}

/* Record i does not pack: its work and line go to the escape list.
 * Returns 0, or -1 when out of memory. */
static int rec_escape(struct tr_p1 *P, uint32_t i, unsigned op, uint64_t work,
                      uint32_t line)
{
	if (P->nesc == P->esccap) {
		struct tr_esc *e = grow2(P->esc, &P->esccap, sizeof *e);
		if (!e)
			return -1;
		P->esc = e;
	}
	P->esc[P->nesc++] = (struct tr_esc){ work, line };
	P->rec[i].wl = TR1_ESC << TR1_DIFF_SHIFT | (uint32_t)op << TR1_OP_SHIFT;
	return 0;
}

/* Record i's location (lo: a string offset or TRACE_NONE); the array
 * starts with the first location.  Returns 0, or -1 when out of memory. */
static int rec_loc(struct tr_p1 *P, uint32_t i, uint32_t lo)
{
	if (!P->loc) {
		P->loc = tr_big_alloc(P->rcap * sizeof *P->loc);
		if (!P->loc)
			return -1;
		for (size_t k = 0; k < i; k++)
			P->loc[k] = TRACE_NONE;
	}
	P->loc[i] = lo;
	return 0;
}

/* A cwait, record i of thread t: the replay registers the waiter after
 * the thread's previous record (or at its create): say so there.
 * Returns 0, or -1 when out of memory. */
static int rec_cwait(struct tr_p1 *P, uint32_t i, uint32_t t, uint32_t prev)
{
	if (prev == TRACE_NONE) {
		P->th_cw0[t] = i;
		return 0;
	}
	if (P->ncw == P->cwcap) {
		uint64_t *c = grow2(P->cw, &P->cwcap, sizeof *c);
		if (!c)
			return -1;
		P->cw = c;
	}
	P->cw[P->ncw++] = (uint64_t)prev << 32 | i;
	P->rec[prev].wl |= TR1_CWNEXT;
	return 0;
}

/* Store a record that parsed: operation op, operands a and b (dense),
 * thread t, location lo (or TRACE_NONE), its work and its sleep's
 * duration `dur` (units: trace unit); checks of the record count and
 * the total work.  Returns
 * 1, or 0 on an error.  (The rare cases are out of line, so that the
 * common one keeps its values in registers.) */
static inline __attribute__((always_inline)) int
rec_store(struct tr_p1 *P, unsigned op, uint32_t a, uint32_t b, uint32_t t,
          uint32_t lo, uint64_t work, uint64_t dur)
{
	uint32_t line = P->line;
	size_t n = P->nrec;
	if (n == P->rcap) { /* rcap <= max_rec */
		if (n >= P->lim.max_rec) {
			perr(P, "too many records (at most %llu)",
			     (unsigned long long)P->lim.max_rec);
			return 0;
		}
		if (rec_grow(P))
			return oom(P), 0;
	}
	uint64_t total = P->total + work + dur;
	P->total = total;
	if (total >= P->lim.max_work) {
		if (P->lim.max_work == TRACE_WORK_LIMIT)
			perr(P, "total work exceeds 2^62 - 1 (work plus sleep of all records)");
		else
			perr(P, "total work exceeds %llu (work plus sleep of all records)",
			     (unsigned long long)(P->lim.max_work - 1));
		return 0;
	}
	uint32_t i = (uint32_t)n, diff = line - P->last_line; /* lines increase */
	struct tr_rec1 *q = &P->rec[i];
	P->last_line = line;
	q->a = a;
	if (P->bused >> op & 1) {
		if (P->ntid == P->tidcap) {
			uint32_t *x = grow2(P->tid, &P->tidcap, sizeof *x);
			if (!x)
				return oom(P), 0;
			P->tid = x;
		}
		P->tid[P->ntid++] = t;
		q->b = b;
	} else {
		q->b = t;
	}
	if (__builtin_expect(diff < TR1_ESC && work <= TR1_WORK_MASK, 1))
		q->wl = (uint32_t)work | diff << TR1_DIFF_SHIFT | op << TR1_OP_SHIFT;
	else if (rec_escape(P, i, op, work, line))
		return oom(P), 0;
	if (__builtin_expect(P->loc != NULL || lo != TRACE_NONE, 0) && rec_loc(P, i, lo))
		return oom(P), 0;
	uint32_t prev = P->th_last[t];
	P->th_last[t] = i;
	P->th_nrec[t]++;
	if (__builtin_expect(op == TRACE_CWAIT, 0) && rec_cwait(P, i, t, prev))
		return oom(P), 0;
	P->nrec = n + 1;
	return 1;
}

static const char *parse_record(struct tr_p1 *P, const char *p)
{
	const char *s = p, *o, *opstart, *opend;
	uint64_t v, w, dur = 0;
	uint32_t t, d, line = P->line, lo = TRACE_NONE;
	struct trace_rec r;

	p = num(p, &v);
	if (v >= TRACE_ID_LIMIT)
		return bad_num(P, "thread id", s, p, v, "2^31");
	if (obj_get(P, TRACE_K_THREAD, (uint32_t)v, line, &t))
		return oom(P);
	p = skip_ws(p);
	if (at_end(p))
		FAIL("missing work after the thread id");
	s = p;
	p = num(p, &w);
	if (w >= TRACE_WORK_LIMIT)
		return bad_num(P, "work", s, p, w, "2^62");
	p = skip_ws(p);
	if (at_end(p))
		FAIL("missing operation after the work");
	opstart = s = p;
	p = tok_end(p);
	int op = op_lookup(&P->opmap, s, (size_t)(p - s));
	if (op < 0)
		return bad_op(P, s, p);
	r.work = w;
	r.a = r.b = 0;
	r.line = line;
	r.op = (uint8_t)op;

	const struct trace_opinfo *O = &trace_ops[op];
	for (int i = 0; i < 2 && O->arg[i].type != TRACE_ARG_NONE; i++) {
		struct tr_quote q;
		uint32_t *f = i ? &r.b : &r.a;
		o = operand(p);
		if (!o)
			FAIL("'%s' needs %s", O->name, O->usage);
		if (O->arg[i].type == TRACE_ARG_OUTCOME) {
			p = tok_end(o);
			if (p - o == 2 && o[0] == 'o' && o[1] == 'k')
				*f = 1;
			else if (p - o == 4 && memcmp(o, "busy", 4) == 0)
				*f = 0;
			else
				FAIL("%s outcome %s is not 'ok' or 'busy'", O->name,
				     tr_quote(&q, o, (size_t)(p - o)));
			continue;
		}
		p = num(o, &v);
		switch (O->arg[i].type) {
		case TRACE_ARG_OBJ: {
			int k = O->arg[i].kind;
			if (v >= TRACE_ID_LIMIT)
				return bad_num(P, trace_kinds[k].id, o, p, v, "2^31");
			if (obj_get(P, k, (uint32_t)v, line, &d))
				return oom(P);
			*f = d;
			break;
		}
		case TRACE_ARG_DURATION:
			if (v >= TRACE_WORK_LIMIT)
				return bad_opnum(P, O->name, "duration", o, p, v, "2^62");
			r.a = (uint32_t)v;
			r.b = (uint32_t)(v >> 32);
			dur = v;
			break;
		case TRACE_ARG_COUNT1:
			if (v > 1)
				FAIL("%s count %s is not 0 or 1", O->name,
				     tr_quote(&q, o, (size_t)(p - o)));
			*f = (uint32_t)v;
			break;
		case TRACE_ARG_SIZE:
			if (v == 0)
				FAIL("%s size '0' is not at least 1", O->name);
			if (v >= TRACE_ID_LIMIT)
				return bad_opnum(P, O->name, "size", o, p, v, "2^31");
			*f = (uint32_t)v;
			break;
		default: /* TRACE_ARG_COUNT */
			if (v >= TRACE_ID_LIMIT)
				return bad_opnum(P, O->name, "count", o, p, v, "2^31");
			*f = (uint32_t)v;
			break;
		}
	}
	opend = p;
	p = skip_ws(p);
	if (*p == '@') {
		const char *ls = p, *c;
		struct tr_quote q;
		p = tok_end(p);
		if (p - ls < 2)
			FAIL("empty location '@'");
		if ((c = ctrl_byte(ls, p))) {
			unsigned col = column(P, c);
			tr_quote(&q, ls, (size_t)(p - ls));
			if (col)
				FAIL("location %s contains a control byte (column %u)", q.s, col);
			FAIL("location %s contains a control byte", q.s);
		}
		int rc = loc_add(P, ls + 1, (size_t)(p - ls - 1), &lo);
		if (rc == -2)
			FAIL("the strings of the trace exceed 4 GiB");
		if (rc)
			return oom(P);
		p = skip_ws(p);
		if (!at_end(p))
			return unexpected(P, p, ls, (size_t)(tok_end(ls) - ls));
	} else if (!at_end(p)) {
		return unexpected(P, p, opstart, (size_t)(opend - opstart));
	}

	return rec_store(P, r.op, r.a, r.b, t, lo, w, dur) ? next_line(p) : NULL;
}

/* ---------------------------------------------------------------------
 * The fast path: a record of the common shape, its tokens separated by
 * one space each, ending with LF right after its last token, numbers of
 * at most 15 digits, every value in range.  It reads words (the line
 * buffer has TR_PAD bytes past every line), checks the whole line first,
 * and only then acts, exactly as parse_record would; anything else
 * (blanks, comments, CR, long numbers, any error) is left to
 * parse_record, which then reads the line from its start.
 */

#define REP(b) ((uint64_t)(b) * 0x0101010101010101ull)

/* Numbers are read from t, a word of the line minus '0' in every byte
 * (digits become 0..9).  The index of the first byte of t that was not
 * a decimal digit (8: none): a byte of t is one iff it is 0..9, i.e.
 * neither it nor it + 0x76 has its top bit.  (A byte below '0' borrows
 * from the next, and t + 0x76 carries out of a byte only from a non-
 * digit, so only bytes past the first non-digit can be misjudged.)
 * 4 operations, not the 6 of testing both nibbles of the bytes. */
static inline unsigned digits8(uint64_t t)
{
	uint64_t z = ((t + REP(0x76)) | t) & REP(0x80);
	return z ? (unsigned)__builtin_ctzll(z) >> 3 : 8;
}

/* The value of the first n (1..8) bytes of t, all digits (exact: a
 * borrow runs only from a non-digit byte upwards, past them, and the
 * shift drops those), the first the most significant. */
static inline uint64_t value8(uint64_t t, unsigned n)
{
	t <<= 8 * (8 - n);
	t = t * 10 + (t >> 8);
	return (((t & 0x000000FF000000FFull) * 0x000F424000000064ull) +
	        (((t >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
}

/* The same for n in 1..4, in 32 bits (cheaper; the common case). */
static inline uint64_t value4(uint64_t t, unsigned n)
{
	uint32_t x = (uint32_t)t << (8 * (4 - n));
	x = x * 10 + (x >> 8);
	return (x & 0xff) * 100 + ((x >> 16) & 0xff);
}

static const uint64_t pow10_[8] = { 1, 10, 100, 1000, 10000, 100000,
	                            1000000, 10000000 };

/* A decimal of 1 to 15 digits at p, followed by a space (or with `lf`,
 * a space or an LF): its end, else NULL. */
static inline __attribute__((always_inline)) const char *
fnum(const char *p, int lf, uint64_t *v)
{
	uint64_t t = ld64(p) - REP('0');
	unsigned n = digits8(t);
	if (n == 0)
		return NULL;
	if (n < 8) {
		if (p[n] != ' ' && !(lf && p[n] == '\n'))
			return NULL;
		*v = n <= 4 ? value4(t, n) : value8(t, n);
		return p + n;
	}
	uint64_t t2 = ld64(p + 8) - REP('0');
	unsigned m = digits8(t2);
	if (m == 8 || (p[8 + m] != ' ' && !(lf && p[8 + m] == '\n')))
		return NULL;
	*v = m ? value8(t, 8) * pow10_[m] + value8(t2, m) : value8(t, 8);
	return p + 8 + m;
}

/* Index of the first byte of w below 0x21 (blanks, LF, CR, controls) or
 * equal to 0x7f (8: none).  A flag can be wrong only above the first
 * true one (borrows run upwards). */
static inline unsigned stop8(uint64_t w)
{
	uint64_t lo = (w - REP(0x21)) & ~w;
	uint64_t x = w ^ REP(0x7f);
	uint64_t del = (x - REP(0x01)) & ~x;
	uint64_t z = (lo | del) & REP(0x80);
	return z ? (unsigned)__builtin_ctzll(z) >> 3 : 8;
}

/* Returns the next line, or NULL with *slow (read the line with
 * parse_record) or an error. */
static inline const char *record_fast(struct tr_p1 *P, const char *p, int *slow)
{
	uint64_t id, w, v[2] = { 0, 0 };
	*slow = 1;
	if (!(p = fnum(p, 0, &id)) || id >= TRACE_ID_LIMIT)
		return NULL;
	if (!(p = fnum(p + 1, 0, &w)))
		return NULL; /* < 10^15 < 2^62 */
	const char *s = ++p;
	unsigned n = stop8(ld64(s));
	if (n == 8 && (n += stop8(ld64(s + 8))) == 16)
		return NULL;
	int op = op_lookup(&P->opmap, s, n);
	if (op < 0)
		return NULL;
	p = s + n;
	const struct trace_opinfo *O = &trace_ops[op];
	/* the most common shape first: one object */
	int one = P->opmap.one[op];
	if (one) {
		uint64_t a;
		if (*p != ' ' || !(p = fnum(p + 1, 1, &a)) || a >= TRACE_ID_LIMIT)
			return NULL;
		if (*p == '\n') {
			/* no location: the line is good (as below, in short) */
			uint32_t t, d;
			*slow = 0;
			if ((t = obj_at(P, TRACE_K_THREAD, (uint32_t)id, P->line)) == TRACE_NONE ||
			    (d = obj_at(P, one - 1, (uint32_t)a, P->line)) == TRACE_NONE)
				return oom(P);
			return rec_store(P, (unsigned)op, d, 0, t, TRACE_NONE, w, 0) ? p + 1 : NULL;
		}
		v[0] = a;
	}
	for (int i = 0; !one && i < 2 && O->arg[i].type != TRACE_ARG_NONE; i++) {
		if (*p != ' ')
			return NULL;
		p++;
		if (O->arg[i].type == TRACE_ARG_OUTCOME) {
			uint64_t x = ld64(p);
			if ((x & 0xFFFFFF) == ('o' | 'k' << 8 | ' ' << 16) ||
			    (x & 0xFFFFFF) == ('o' | 'k' << 8 | '\n' << 16)) {
				v[i] = 1;
				p += 2;
			} else if ((x & 0xFFFFFFFFFFull) == ((uint64_t)0x79737562 | (uint64_t)' ' << 32) ||
			           (x & 0xFFFFFFFFFFull) == ((uint64_t)0x79737562 | (uint64_t)'\n' << 32)) {
				v[i] = 0; /* "busy" */
				p += 4;
			} else {
				return NULL;
			}
			continue;
		}
		const char *e = fnum(p, 1, &v[i]);
		if (!e)
			return NULL;
		p = e;
		switch (O->arg[i].type) {
		case TRACE_ARG_OBJ:
		case TRACE_ARG_COUNT:
			if (v[i] >= TRACE_ID_LIMIT)
				return NULL;
			break;
		case TRACE_ARG_COUNT1:
			if (v[i] > 1)
				return NULL;
			break;
		case TRACE_ARG_SIZE:
			if (v[i] == 0 || v[i] >= TRACE_ID_LIMIT)
				return NULL;
			break;
		default: /* duration: < 10^15 */
			break;
		}
	}
	const char *ls = NULL;
	size_t ln = 0;
	if (*p == ' ') {
		if (p[1] != '@')
			return NULL;
		ls = p + 2;
		const char *e = ls;
		for (;;) {
			unsigned k = stop8(ld64(e));
			e += k;
			if (k < 8)
				break;
		}
		if (*e != '\n' || e == ls)
			return NULL;
		ln = (size_t)(e - ls);
		p = e;
	} else if (*p != '\n') {
		return NULL;
	}

	/* the line is good: act as parse_record does */
	*slow = 0;
	uint32_t t, d, line = P->line, lo = TRACE_NONE, ra, rb;
	uint64_t dur = 0;
	if (obj_get(P, TRACE_K_THREAD, (uint32_t)id, line, &t))
		return oom(P);
	if (one) {
		if (obj_get(P, one - 1, (uint32_t)v[0], line, &d))
			return oom(P);
		ra = d;
		rb = 0;
	} else {
		ra = (uint32_t)v[0];
		rb = (uint32_t)v[1];
		for (int i = 0; i < 2; i++) {
			if (O->arg[i].type == TRACE_ARG_OBJ) {
				int k = O->arg[i].kind;
				if (obj_get(P, k, (uint32_t)v[i], line, &d))
					return oom(P);
				if (i)
					rb = d;
				else
					ra = d;
			} else if (O->arg[i].type == TRACE_ARG_DURATION) {
				ra = (uint32_t)v[0];
				rb = (uint32_t)(v[0] >> 32);
				dur = v[0];
			}
		}
	}
	if (ls) {
		/* a location of up to 16 bytes seen lately: its string */
		uint64_t w0 = 0, w1 = 0;
		struct tr_loccache *c = NULL;
		if (ln <= 16) {
			w0 = low_bytes(ld64(ls), ln);
			w1 = ln > 8 ? low_bytes(ld64(ls + 8), ln - 8) : 0;
			c = &P->loccache[((w0 ^ w1 ^ ln) * 0x9E3779B97F4A7C15ull) >>
			                 (64 - TR_LOCCACHE_BITS)];
			if (c->w0 == w0 && c->w1 == w1 && c->n == ln)
				lo = c->off;
		}
		if (lo == TRACE_NONE) {
			int rc = loc_add(P, ls, ln, &lo);
			if (rc == -2)
				FAIL("the strings of the trace exceed 4 GiB");
			if (rc)
				return oom(P);
			if (c)
				*c = (struct tr_loccache){ w0, w1, (uint32_t)ln, lo };
		}
	}
	return rec_store(P, (unsigned)op, ra, rb, t, lo, w, dur) ? p + 1 : NULL;
}

/* ---------------------------------------------------------------------
 * Other lines: the magic, declarations, errors.
 */

static const char *tail(struct tr_p1 *P, const char *p, const char *after,
                        size_t alen)
{
	p = skip_ws(p);
	if (!at_end(p))
		return unexpected(P, p, after, alen);
	return next_line(p);
}

static const char *parse_magic(struct tr_p1 *P, const char *p)
{
	struct tr_quote q;
	const char *s = p - 16, *o;
	uint64_t v;
	o = skip_ws(p);
	if (at_end(o))
		FAIL("missing version after 'shadowbind-trace'");
	p = num(o, &v);
	if (v != TRACE_VERSION) {
		if (v == NUM_BAD)
			FAIL("unsupported trace version %s",
			     tr_quote(&q, o, (size_t)(p - o)));
		while (*o == '0' && o + 1 < p)
			o++;
		if (p - o > 20)
			FAIL("unsupported trace version %.20s...", o);
		FAIL("unsupported trace version %.*s", (int)(p - o), o);
	}
	p = tail(P, p, s, (size_t)(p - s));
	if (p) {
		P->magic = 1;
		P->magic_line = P->line;
	}
	return p;
}

static const char *parse_unit(struct tr_p1 *P, const char *p)
{
	struct tr_quote q;
	const char *s = p - 4, *o = skip_ws(p);
	if (at_end(o))
		FAIL("missing unit after 'unit'");
	p = tok_end(o);
	int u = tr_lookup(tr_unit_names, TRACE_NUNITS, o, (size_t)(p - o), NULL);
	if (u < 0)
		FAIL("unit %s is not one of ns, us, ms, s, tick",
		     tr_quote(&q, o, (size_t)(p - o)));
	p = tail(P, p, s, (size_t)(p - s));
	if (!p)
		return NULL;
	if (P->unit_declared)
		FAIL("duplicate unit (first at line %u)", P->unit_line);
	if (P->nrec)
		FAIL("unit must come before the first record (line %u)",
		     first_rec_line(P));
	P->unit = (enum trace_unit)u;
	P->unit_declared = 1;
	P->unit_line = P->line;
	return p;
}

static const char *parse_thread(struct tr_p1 *P, const char *p)
{
	struct tr_quote q;
	const char *s = p - 6, *o, *name, *c;
	uint64_t v;
	uint32_t t, off;
	o = skip_ws(p);
	if (at_end(o))
		FAIL("missing thread id after 'thread'");
	p = num(o, &v);
	if (v >= TRACE_ID_LIMIT)
		return bad_num(P, "thread id", o, p, v, "2^31");
	name = skip_ws(p);
	if (at_end(name))
		FAIL("missing name of thread %u", (unsigned)v);
	p = tok_end(name);
	if ((c = ctrl_byte(name, p))) {
		unsigned col = column(P, c);
		tr_quote(&q, name, (size_t)(p - name));
		if (col)
			FAIL("thread name %s contains a control byte (column %u)", q.s, col);
		FAIL("thread name %s contains a control byte", q.s);
	}
	const char *e = p;
	p = tail(P, p, s, (size_t)(e - s));
	if (!p)
		return NULL;
	if (obj_get(P, TRACE_K_THREAD, (uint32_t)v, 0, &t))
		return oom(P);
	if (P->th_name[t] != TRACE_NONE)
		FAIL("thread %u already named at line %u", (unsigned)v,
		     P->th_name_line[t]);
	if (P->th_first_use[t])
		FAIL("thread %u named after its first use at line %u",
		     (unsigned)v, P->th_first_use[t]);
	int rc = str_add(P, name, (size_t)(e - name), &off);
	if (rc == -2)
		FAIL("the strings of the trace exceed 4 GiB");
	if (rc)
		return oom(P);
	P->th_name[t] = off;
	P->th_name_line[t] = P->line;
	return p;
}

static const char *parse_sem(struct tr_p1 *P, const char *p)
{
	const char *s = p - 3, *o;
	uint64_t v, init;
	uint32_t d;
	o = skip_ws(p);
	if (at_end(o))
		FAIL("missing semaphore id after 'sem'");
	p = num(o, &v);
	if (v >= TRACE_ID_LIMIT)
		return bad_num(P, "semaphore id", o, p, v, "2^31");
	o = skip_ws(p);
	if (at_end(o))
		FAIL("missing initial value of semaphore %u", (unsigned)v);
	p = num(o, &init);
	if (init >= TRACE_ID_LIMIT)
		return bad_num(P, "semaphore value", o, p, init, "2^31");
	p = tail(P, p, s, (size_t)(p - s));
	if (!p)
		return NULL;
	if (obj_get(P, TRACE_K_SEM, (uint32_t)v, 0, &d))
		return oom(P);
	if (P->sem_init[d] & TR_SEM_DECLARED)
		FAIL("semaphore %u declared twice (first at line %u)",
		     (unsigned)v, P->sem_line[d]);
	if (P->sem_line[d])
		FAIL("semaphore %u declared after its first use at line %u",
		     (unsigned)v, P->sem_line[d]);
	P->sem_init[d] = (uint32_t)init | TR_SEM_DECLARED; /* init < 2^31 */
	P->sem_line[d] = P->line;
	return p;
}

static const char *parse_other(struct tr_p1 *P, const char *p)
{
	static const char *const kw[] = { "shadowbind-trace", "unit", "thread", "sem" };
	struct tr_quote q;
	const char *s = p;
	int sug;
	p = tok_end(p);
	size_t n = (size_t)(p - s);
	int k = tr_lookup(kw, 4, s, n, &sug);
	tr_quote(&q, s, n);
	if (!P->magic) {
		if (k != 0)
			FAIL("not a shadowbind trace (expected 'shadowbind-trace 1', got %s)", q.s);
		return parse_magic(P, p);
	}
	switch (k) {
	case 0:
		FAIL("duplicate 'shadowbind-trace' line (first at line %u)",
		     P->magic_line);
	case 1:
		return parse_unit(P, p);
	case 2:
		return parse_thread(P, p);
	case 3:
		return parse_sem(P, p);
	}
	if (*s == '-' || *s == '+')
		return bad_num(P, "thread id", s, p, NUM_BAD, "2^31");
	if (sug >= 0)
		FAIL("%s is not a declaration or a thread id (did you mean '%s'?)",
		     q.s, kw[sug]);
	FAIL("%s is not a declaration or a thread id", q.s);
}

/* Whole lines [p, end), each ending with LF.  Returns 0, or -1 with the
 * error in *P->err. */
static int parse_block(struct tr_p1 *P, const char *p, const char *end)
{
	/* a line has at least one byte: no test of the line limit while the
	 * block cannot reach it */
	int check = (size_t)(end - p) >= (size_t)(P->lim.max_line - P->line);
	/* the fast path, for records (after the magic line) */
	int fast = !P->lim.slow_only && P->magic;
	while (p < end) {
		if (check && P->line >= P->lim.max_line) {
			tr_err(P->err, P->file, 0, "more than %u lines",
			       (unsigned)P->lim.max_line);
			P->err_line = UINT32_MAX;
			return -1;
		}
		P->line++;
		P->line_start = p;
		unsigned c = (unsigned char)*p;
		if (c - '0' >= 10) {
			p = skip_ws(p);
			c = (unsigned char)*p;
		}
		if (c - '0' < 10 && fast) {
			int slow = 1;
			const char *q = record_fast(P, p, &slow);
			p = slow ? parse_record(P, p) : q;
		} else if (c - '0' < 10 && P->magic) {
			p = parse_record(P, p);
		} else if (c == '\n') {
			p++;
		} else if (c == '#') {
			p = (const char *)rawmemchr(p, '\n') + 1;
		} else if (c == '\r' && p[1] == '\n') {
			p += 2;
		} else {
			p = parse_other(P, p);
			fast = !P->lim.slow_only && P->magic;
		}
		if (!p)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Input: chunks into a line buffer.
 */

struct src {
	int fd;           /* >= 0: read this descriptor */
	const char *mem;  /* else these bytes            */
	size_t mlen, mpos;
	struct tr_zin *z; /* non-NULL: the input is zstd-compressed */
	char head[4];     /* the descriptor's first bytes, read to probe */
	size_t nhead, hpos;
	struct trace_sha256 *sha; /* non-NULL: hash the descriptor's bytes */
	size_t size;      /* the text's length when known (memory, a regular
	                     file not compressed), else 0; units: bytes */
};

static ssize_t src_raw(void *ctx, char *dst, size_t n)
{
	struct src *S = ctx;
	if (S->hpos < S->nhead) {
		size_t k = S->nhead - S->hpos;
		if (k > n)
			k = n;
		memcpy(dst, S->head + S->hpos, k);
		S->hpos += k;
		return (ssize_t)k;
	}
	if (S->fd >= 0) {
		for (;;) {
			ssize_t k = read(S->fd, dst, n);
			if (k < 0 && errno == EINTR)
				continue;
			if (k > 0 && S->sha)
				trace_sha256_update(S->sha, dst, (size_t)k);
			return k;
		}
	}
	size_t k = S->mlen - S->mpos;
	if (k > n)
		k = n;
	if (k)
		memcpy(dst, S->mem + S->mpos, k);
	S->mpos += k;
	return (ssize_t)k;
}

/* Bytes of the trace's text: decompressed if the input is zstd.  -2: bad
 * compressed data (tr_zin_error). */
static ssize_t src_read(struct src *S, char *dst, size_t n)
{
	if (S->z)
		return tr_zin_read(S->z, dst, n, src_raw, S);
	return src_raw(S, dst, n);
}

/* The buffer holds one partial line (no LF) and is full: drop a comment
 * (setting *skip: discard input up to the LF) and squeeze each run of
 * blanks into one space.  The line means the same.  b[0, from) is
 * already squeezed.  Returns the new length. */
static size_t squeeze(char *b, size_t from, size_t n, int *skip)
{
	size_t w = from;
	int put = from > 0 && b[from - 1] == ' '; /* last byte: a squeezed run */
	int blank = from == 0 || put;              /* a '#' starts a comment  */
	for (size_t i = from; i < n; i++) {
		char c = b[i];
		if (c == ' ' || c == '\t') {
			if (!put)
				b[w++] = ' ';
			put = blank = 1;
			continue;
		}
		if (c == '#' && blank) {
			b[w++] = '#';
			*skip = 1;
			return w;
		}
		b[w++] = c;
		blank = put = 0;
	}
	return w;
}

static int read_stream(struct tr_p1 *P, struct src *S)
{
	size_t cap = P->lim.buf_init, len = 0, sq = 0; /* b[0, sq) squeezed */
	int skip = 0;
	/* + TR_PAD: word loads near a line's end stay in the buffer; the
	 * TR_PAD bytes past the data are kept zero, so that no byte such a
	 * load reads is undefined */
	char *buf = malloc(cap + 1 + TR_PAD);
	if (!buf) {
		oom(P);
		return -1;
	}
	int rc = 0;
	for (;;) {
		if (len == cap) {
			/* one line fills the buffer */
			len = sq = squeeze(buf, sq, len, &skip);
			P->squeezed_line = P->line + 1;
			if (len > cap / 2 && cap < P->lim.buf_max) {
				size_t ncap = cap * 2 > P->lim.buf_max ? P->lim.buf_max : cap * 2;
				char *nb = realloc(buf, ncap + 1 + TR_PAD);
				if (!nb) {
					oom(P);
					rc = -1;
					break;
				}
				buf = nb;
				cap = ncap;
			} else if (len == cap) {
				P->line++;
				perr(P, "line too long (more than %zu bytes without its comment and repeated blanks)",
				     P->lim.buf_max);
				rc = -1;
				break;
			}
		}
		size_t want = cap - len;
		if (want > P->lim.chunk)
			want = P->lim.chunk;
		if (S->fd < 0 && !S->z && len == 0 && S->mlen - S->mpos > TR_PAD) {
			/* bytes in memory: their whole lines are read where they
			 * are, not copied (3% of a read's time, measured), up to
			 * the last LF of the next `want` bytes (so no line of
			 * them would have filled the buffer) and TR_PAD bytes
			 * before the end of the input (the word loads read past
			 * a line's end) */
			const char *b = S->mem + S->mpos;
			size_t n = S->mlen - S->mpos - TR_PAD;
			const char *last = memrchr(b, '\n', n < want ? n : want);
			if (last) {
				S->mpos += (size_t)(last + 1 - b);
				if ((rc = parse_block(P, b, last + 1)))
					break;
				continue;
			}
		}
		ssize_t k = src_read(S, buf + len, want);
		if (k < 0) {
			char eb[128];
			if (k == -2)
				tr_err(P->err, P->file, 0, "%s", tr_zin_error(S->z));
			else
				tr_err(P->err, P->file, 0, "cannot read: %s",
				       strerror_r(errno, eb, sizeof eb));
			P->err_line = UINT32_MAX;
			P->fatal = 1;
			rc = -1;
			break;
		}
		if (k == 0) {
			if (len) {
				buf[len++] = '\n';
				memset(buf + len, 0, TR_PAD);
				rc = parse_block(P, buf, buf + len);
			}
			break;
		}
		char *nb = buf + len;
		if (skip) {
			char *lf = memchr(nb, '\n', (size_t)k);
			if (!lf)
				continue;
			k = nb + k - lf;
			memmove(nb, lf, (size_t)k);
			skip = 0;
		}
		len += (size_t)k;
		memset(buf + len, 0, TR_PAD);
		char *last = memrchr(nb, '\n', (size_t)k);
		if (!last)
			continue;
		if ((rc = parse_block(P, buf, last + 1)))
			break;
		len = (size_t)(buf + len - (last + 1));
		memmove(buf, last + 1, len);
		sq = 0;
	}
	free(buf);
	return rc;
}

/* ---------------------------------------------------------------------
 * Entry points.
 */

void tr_p1_release(struct tr_p1 *P)
{
	free(P->rec);
	free(P->tid);
	free(P->loc);
	for (int k = 0; k < TRACE_NKINDS; k++) {
		free(P->obj[k].slot);
		free(P->obj[k].dir);
		free(P->obj[k].id);
	}
	free(P->th_name);
	free(P->th_name_line);
	free(P->th_first_use);
	free(P->th_last);
	free(P->th_cw0);
	free(P->th_nrec);
	free(P->cw);
	free(P->esc);
	free(P->sem_init);
	free(P->sem_line);
	free(P->str);
	free(P->locset);
	free(P->lochash);
	memset(P, 0, sizeof *P);
}

static int read_src(const char *name, struct src *S,
                    const struct trace_limits *lim, struct trace **out,
                    struct trace_error *err)
{
	struct trace_error dummy;
	struct tr_p1 P;
	if (!err)
		err = &dummy;
	memset(err, 0, sizeof *err);
	if (out)
		*out = NULL;
	memset(&P, 0, sizeof P);
	P.file = name;
	P.err = err;
	if (lim)
		P.lim = *lim;
	else
		trace_limits_default(&P.lim);
	if (P.lim.chunk < 1)
		P.lim.chunk = 1;
	if (P.lim.buf_init < 2)
		P.lim.buf_init = 2;
	if (P.lim.buf_max < P.lim.buf_init)
		P.lim.buf_max = P.lim.buf_init;
	int rc = 0;
	/* the records' array at once for the most records the text can
	 * hold (a record line has at least 9 bytes: `1 0 exit` and its
	 * LF): pages are only touched as records fill them, and no
	 * doubling copies the array (in a process that has freed large
	 * blocks, malloc serves them from its heap, where realloc copies:
	 * 7% of a read's time in sim-speed's loop, measured) */
	if (S->size / 9 >= 4096) {
		size_t cap = S->size / 9 + 1;
		if (cap > P.lim.max_rec)
			cap = (size_t)P.lim.max_rec;
		if ((P.rec = tr_big_alloc(cap * sizeof *P.rec)))
			P.rcap = cap;
	}
	tr_opmap_init(&P.opmap);
	P.bused = tr_bused();
	tr_hash_init(&P.hash, P.lim.seed);
	for (int k = 0; k < TRACE_NKINDS; k++)
		if (obj_init(&P.obj[k]))
			rc = -1;
	if (rc) {
		oom(&P);
	} else {
		rc = read_stream(&P, S);
		if (rc == 0 && !P.magic) {
			tr_err(err, name, 0,
			       "not a shadowbind trace (no 'shadowbind-trace 1' line)");
			rc = -1;
		} else if (rc == 0) {
			struct trace *tr = NULL;
			rc = tr_finish(&P, 0, &tr);
			if (out)
				*out = tr;
			else
				trace_free(tr);
		} else if (!P.fatal && P.nrec) {
			tr_finish(&P, 1, NULL);
		}
	}
	if (P.lim.probes)
		*P.lim.probes = P.probes;
	tr_p1_release(&P);
	return rc;
}

static int zst_oom(const char *name, struct trace **out, struct trace_error *err)
{
	struct trace_error dummy;
	if (!err)
		err = &dummy;
	memset(err, 0, sizeof *err);
	if (out)
		*out = NULL;
	tr_err(err, name, 0, "out of memory");
	return -1;
}

int trace_read_mem_lim(const char *name, const char *buf, size_t len,
                       const struct trace_limits *lim, struct trace **out,
                       struct trace_error *err)
{
	struct src S = { .fd = -1, .mem = buf, .mlen = buf ? len : 0 };
	if (buf && tr_zst_magic(buf, len) && !(S.z = tr_zin_new()))
		return zst_oom(name ? name : "<memory>", out, err);
	if (buf && !S.z)
		S.size = len;
	int rc = read_src(name ? name : "<memory>", &S, lim, out, err);
	tr_zin_free(S.z);
	return rc;
}

int trace_read_mem(const char *name, const char *buf, size_t len,
                   struct trace **out, struct trace_error *err)
{
	return trace_read_mem_lim(name, buf, len, NULL, out, err);
}

static int read_file(const char *path, const struct trace_limits *lim, struct trace **out,
                     char *hex, struct trace_error *err)
{
	struct trace_error dummy;
	if (!err)
		err = &dummy;
	if (out)
		*out = NULL;
	memset(err, 0, sizeof *err);
	int std = path && strcmp(path, "-") == 0;
	const char *name = std ? "<stdin>" : path ? path : "(null)";
	int fd = std ? 0 : path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		char eb[128];
		tr_err(err, name, 0, "cannot open: %s",
		       strerror_r(path ? errno : EINVAL, eb, sizeof eb));
		return -1;
	}
	struct trace_sha256 sha;
	struct src S = { .fd = fd, .sha = hex ? &sha : NULL };
	if (hex)
		trace_sha256_init(&sha);
	/* probe: a zstd frame, whatever the name? */
	while (S.nhead < sizeof S.head) {
		ssize_t k = read(fd, S.head + S.nhead, sizeof S.head - S.nhead);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* a read error shows again in read_src */
		S.nhead += (size_t)k;
	}
	if (hex)
		trace_sha256_update(&sha, S.head, S.nhead);
	int rc;
	struct stat st;
	int zst = tr_zst_magic(S.head, S.nhead);
	if (!zst && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		S.size = (size_t)st.st_size;
	if (zst && !(S.z = tr_zin_new()))
		rc = zst_oom(name, out, err);
	else
		rc = read_src(name, &S, lim, out, err);
	tr_zin_free(S.z);
	if (!std)
		close(fd);
	if (hex)
		trace_sha256_final(&sha, hex);
	return rc;
}

int trace_read_file_lim(const char *path, const struct trace_limits *lim,
                        struct trace **out, struct trace_error *err)
{
	return read_file(path, lim, out, NULL, err);
}

int trace_read_file_sha256(const char *path, struct trace **out, char hex[65],
                           struct trace_error *err)
{
	return read_file(path, NULL, out, hex, err);
}

int trace_read_file(const char *path, struct trace **out, struct trace_error *err)
{
	return trace_read_file_lim(path, NULL, out, err);
}
