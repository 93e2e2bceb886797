/*
 * util.c - names, accessors, trace_free, error formatting.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "trace/traceint.h"

/* The units: name and length, by enum trace_unit (one table). */
const char *const tr_unit_names[TRACE_NUNITS] = {
	[TRACE_TICK] = "tick", [TRACE_NS] = "ns", [TRACE_US] = "us",
	[TRACE_MS] = "ms", [TRACE_S] = "s",
};
static const uint64_t unit_ns[TRACE_NUNITS] = { /* units: ns */
	[TRACE_TICK] = 0, [TRACE_NS] = 1, [TRACE_US] = 1000,
	[TRACE_MS] = 1000000, [TRACE_S] = 1000000000,
};

/* trace_dec's pairs of digits (trace.h). */
const char trace_dec2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

const char *trace_op_name(enum trace_op op)
{
	return (unsigned)op < TRACE_NOPS ? trace_ops[op].name : "?";
}

const char *trace_unit_name(enum trace_unit unit)
{
	return (unsigned)unit < TRACE_NUNITS ? tr_unit_names[unit] : "?";
}

uint64_t trace_unit_ns(enum trace_unit unit)
{
	return (unsigned)unit < TRACE_NUNITS ? unit_ns[unit] : 0;
}

size_t trace_unit_suffix(const char *s, size_t n, enum trace_unit *unit)
{
	for (unsigned u = 0; u < TRACE_NUNITS; u++) {
		size_t sl = strlen(tr_unit_names[u]);
		if (unit_ns[u] && n > sl &&
		    memcmp(s + n - sl, tr_unit_names[u], sl) == 0 &&
		    !(s[n - sl - 1] >= 'a' && s[n - sl - 1] <= 'z')) {
			*unit = (enum trace_unit)u;
			return sl;
		}
	}
	return 0;
}

const char *trace_kind_name(enum trace_kind kind)
{
	return (unsigned)kind < TRACE_NKINDS ? trace_kinds[kind].name : "?";
}

const char *trace_thread_name(const struct trace *tr, uint32_t i)
{
	if (!tr || i >= tr->nthreads || tr->threads[i].name == TRACE_NONE)
		return NULL;
	return tr->strings + tr->threads[i].name;
}

const char *trace_rec_loc(const struct trace *tr, size_t r)
{
	if (!tr || !tr->loc || r >= tr->nrec || tr->loc[r] == TRACE_NONE)
		return NULL;
	return tr->strings + tr->loc[r];
}

uint64_t trace_thread_work(const struct trace *tr, uint32_t i)
{
	uint64_t w = 0;
	if (!tr || i >= tr->nthreads)
		return 0;
	const struct trace_thread *t = &tr->threads[i];
	for (uint32_t k = 0; k < t->nrec; k++)
		w += tr->rec[t->first + k].work;
	return w;
}

uint64_t trace_total_work(const struct trace *tr)
{
	uint64_t w = 0;
	if (!tr)
		return 0;
	for (size_t k = 0; k < tr->nrec; k++)
		w += tr->rec[k].work;
	return w;
}

int64_t trace_thread_index(const struct trace *tr, uint32_t id)
{
	if (!tr)
		return -1;
	uint32_t lo = 0, hi = tr->nthreads;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (tr->threads[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tr->nthreads && tr->threads[lo].id == id)
		return lo;
	return -1;
}

void trace_free(struct trace *tr)
{
	if (!tr)
		return;
	free(tr->threads);
	free(tr->rec);
	free(tr->loc);
	free(tr->pair);
	for (int k = 0; k < TRACE_NKINDS; k++)
		free(tr->obj_id[k]);
	free(tr->sem_init);
	free(tr->sem_declared);
	free(tr->strings);
	free(tr);
}

/* ---------------------------------------------------------------------
 * Errors
 */

static char *escape(char *d, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			*d++ = (char)c;
		} else {
			*d++ = '\\';
			*d++ = 'x';
			*d++ = hex[c >> 4];
			*d++ = hex[c & 15];
		}
	}
	return d;
}

const char *tr_quote(struct tr_quote *q, const char *s, size_t n)
{
	char *d = q->s;
	*d++ = '\'';
	d = escape(d, s, n < TR_QUOTE_MAX ? n : TR_QUOTE_MAX);
	if (n > TR_QUOTE_MAX) {
		memcpy(d, "...", 3);
		d += 3;
	}
	*d++ = '\'';
	*d = 0;
	return q->s;
}

void tr_verr(struct trace_error *e, const char *file, uint32_t line,
             const char *fmt, va_list ap)
{
	char name[3 + 200 * 4 + 1];
	char *d = name;
	size_t n = file ? strlen(file) : 0;
	const char *s = file ? file : "";
	if (n > 200) {
		memcpy(d, "...", 3);
		d += 3;
		s += n - 200;
		n = 200;
	}
	d = escape(d, s, n);
	*d = 0;
	int k;
	if (line)
		k = snprintf(e->msg, sizeof e->msg, "%s:%u: ", name, line);
	else
		k = snprintf(e->msg, sizeof e->msg, "%s: ", name);
	if (k < 0)
		k = 0;
	if ((size_t)k < sizeof e->msg)
		vsnprintf(e->msg + k, sizeof e->msg - (size_t)k, fmt, ap);
	/* the reason never holds raw control bytes (tokens are quoted),
	 * but make sure of one line whatever the caller passed */
	for (char *c = e->msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	e->line = line;
}

void tr_err(struct trace_error *e, const char *file, uint32_t line,
            const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tr_verr(e, file, line, fmt, ap);
	va_end(ap);
}

/* Optimal string alignment distance, case-insensitive, for short words;
 * returns 3 for anything farther than 2. */
static int osa(const char *a, size_t n, const char *b, size_t m)
{
	enum { W = 24 };
	int d[W + 1][W + 1];
	if (n > W || m > W)
		return 3;
	if ((n > m ? n - m : m - n) > 2)
		return 3;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			int c = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb &&
			    d[i - 2][j - 2] + 1 < c)
				c = d[i - 2][j - 2] + 1;
			d[i][j] = c;
		}
	}
	return d[n][m];
}

int tr_lookup(const char *const *names, int count, const char *s, size_t n,
              int *suggest)
{
	int best = -1, bestd = 3;
	for (int i = 0; i < count; i++) {
		size_t m = strlen(names[i]);
		if (m == n && memcmp(names[i], s, n) == 0) {
			if (suggest)
				*suggest = -1;
			return i;
		}
	}
	for (int i = 0; i < count; i++) {
		int dd = osa(s, n, names[i], strlen(names[i]));
		if (dd < bestd) {
			bestd = dd;
			best = i;
		}
	}
	if (suggest)
		*suggest = best;
	return -1;
}

int trace_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10 || v * 10 + d > max)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* The 2 MB-aligned inside of a large block marked for transparent huge
 * pages before anything touches it (traceint.h).  The check's replay
 * writes each record once to one of nthreads places, and with 4 KB pages
 * every page was a fault and a fresh TLB entry (BARNES's 4.3 M records:
 * the replay's stores most of the check's time; with huge pages the read
 * took 0.46-0.69 s against 0.94-1.30 s, loaded, rec33); pass 1's arrays
 * fill in order, a page fault every 4 KB as well (rec34).  Only advice:
 * where THP is off it changes nothing. */
void *tr_big_alloc(size_t bytes)
{
	void *a = malloc(bytes ? bytes : 1);
	const uintptr_t huge = (uintptr_t)2 << 20;
	if (a && bytes >= 4 * huge) {
		uintptr_t lo = ((uintptr_t)a + huge - 1) & ~(huge - 1);
		uintptr_t hi = ((uintptr_t)a + bytes) & ~(huge - 1);
		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	}
	return a;
}
