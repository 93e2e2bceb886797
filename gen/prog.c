/*
 * prog.c - the growable text buffer, the program builder and the info
 * counters (genint.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/genint.h"

/* ---------------------------------------------------------------------
 * Text buffer
 */
void gen_buf_release(struct gen_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

int gen_buf_reserve(struct gen_buf *b, size_t more)
{
	if (b->oom)
		return -1;
	if (b->cap - b->len > more)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len <= more) {
		if (cap > SIZE_MAX / 2) {
			b->oom = 1;
			return -1;
		}
		cap *= 2;
	}
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void gen_buf_put(struct gen_buf *b, const char *s, size_t n)
{
	if (gen_buf_reserve(b, n) != 0)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void gen_buf_puts(struct gen_buf *b, const char *s)
{
	gen_buf_put(b, s, strlen(s));
}

void gen_buf_u64(struct gen_buf *b, uint64_t v)
{
	char tmp[24];
	int i = 24;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	gen_buf_put(b, tmp + i, (size_t)(24 - i));
}

void gen_buf_printf(struct gen_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || gen_buf_reserve(b, (size_t)n + 1) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* ---------------------------------------------------------------------
 * Program builder
 */
int gen_prog_threads(struct gen_prog *p, uint32_t n)
{
	if (p->th || n == 0) {
		p->oom = 1;
		return -1;
	}
	p->th = calloc(n, sizeof *p->th);
	if (!p->th) {
		p->oom = 1;
		return -1;
	}
	p->nthreads = n;
	return 0;
}

void gen_prog_release(struct gen_prog *p)
{
	for (uint32_t i = 0; p->th && i < p->nthreads; i++)
		free(p->th[i].rec);
	free(p->th);
	free(p->sem_init);
	memset(p, 0, sizeof *p);
}

void gen_name(struct gen_prog *p, uint32_t tid, const char *fmt, ...)
{
	if (tid == 0 || tid > p->nthreads)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->th[tid - 1].name, GEN_THREAD_NAME, fmt, ap);
	va_end(ap);
}

uint32_t gen_sem_new(struct gen_prog *p, uint32_t init)
{
	uint32_t id = p->nsem + 1;
	if (id + 1 > p->sem_cap) {
		size_t cap = p->sem_cap ? p->sem_cap * 2 : 64;
		uint32_t *s = realloc(p->sem_init, cap * sizeof *s);
		if (!s) {
			p->oom = 1;
			return id;
		}
		p->sem_init = s;
		p->sem_cap = cap;
	}
	p->sem_init[id] = init;
	p->nsem = id;
	return id;
}

uint32_t gen_mutex_new(struct gen_prog *p)
{
	return ++p->nmutex;
}

uint32_t gen_barrier_new(struct gen_prog *p)
{
	return ++p->nbarrier;
}

void gen_work(struct gen_prog *p, uint32_t tid, uint64_t w)
{
	if (tid == 0 || tid > p->nthreads)
		return;
	struct gen_thread *t = &p->th[tid - 1];
	if (w >= TRACE_WORK_LIMIT - t->pending)
		p->overflow = 1;
	else
		t->pending += w;
}

void gen_op(struct gen_prog *p, uint32_t tid, int op, uint32_t a, uint32_t b)
{
	if (tid == 0 || tid > p->nthreads) {
		p->bug = 1;
		return;
	}
	struct gen_thread *t = &p->th[tid - 1];
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct gen_rec *r = realloc(t->rec, cap * sizeof *r);
		if (!r) {
			p->oom = 1;
			return;
		}
		t->rec = r;
		t->cap = cap;
	}
	struct gen_rec *r = &t->rec[t->n++];
	r->work = t->pending;
	r->a = a;
	r->b = b;
	r->op = (uint8_t)op;
	t->pending = 0;
}

/* ---------------------------------------------------------------------
 * Info counters
 */
void gen_info_set(struct gen_info *in, const char *name, uint64_t v)
{
	for (size_t i = 0; i < in->n; i++)
		if (strcmp(in->item[i].name, name) == 0) {
			in->item[i].value = v;
			return;
		}
	if (in->n < GEN_INFO_MAX) {
		in->item[in->n].name = name;
		in->item[in->n].value = v;
		in->n++;
	}
}

void gen_info_add(struct gen_info *in, const char *name, uint64_t v)
{
	for (size_t i = 0; i < in->n; i++)
		if (strcmp(in->item[i].name, name) == 0) {
			in->item[i].value += v;
			return;
		}
	gen_info_set(in, name, v);
}

int gen_info_get(const struct gen_info *in, const char *name, uint64_t *value)
{
	for (size_t i = 0; in && i < in->n; i++)
		if (strcmp(in->item[i].name, name) == 0) {
			*value = in->item[i].value;
			return 0;
		}
	*value = 0;
	return -1;
}

int gen_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return GEN_EINVAL;
}

int gen_oom(char *err, size_t errlen)
{
	gen_err(err, errlen, "out of memory");
	return GEN_ENOMEM;
}
