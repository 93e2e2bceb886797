/*
 * binding.c - binding files (docs/binding-format.md): reader and writer.
 * Binding files hold one short line per thread, so the reader takes the
 * whole file into memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/traceint.h"

/* header keys we know; index into hdr_field() */
static const char *const keys[] = {
	"makespan", "unit", "algorithm", "trace", "bound", "lower", "map", "advice",
};
enum { NKEYS = 8, K_UNIT = 1, K_MAP = 6 };

static char **hdr_field(struct trace_binding *b, int k)
{
	switch (k) {
	case 0: return &b->makespan;
	case 1: return &b->unit;
	case 2: return &b->algorithm;
	case 3: return &b->trace;
	case 4: return &b->bound;
	case 5: return &b->lower;
	case 6: return &b->map;
	default: return &b->advice;
	}
}

void trace_binding_release(struct trace_binding *b)
{
	if (!b)
		return;
	free(b->proc);
	for (int k = 0; k < NKEYS; k++)
		free(*hdr_field(b, k));
	free(b->extra);
	memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------------
 * Reader.  The text is copied with an LF appended, so that every scan
 * stops at the LF of its line (as in read.c).
 */

static inline int is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static inline int is_eol(const char *p)
{
	return *p == '\n' || (*p == '\r' && p[1] == '\n');
}

static inline const char *skip_ws(const char *p)
{
	while (is_ws(*p))
		p++;
	return p;
}

static inline int at_end(const char *p)
{
	return is_eol(p) || *p == '#';
}

static const char *tok_end(const char *p)
{
	while (!is_ws(*p) && !is_eol(p))
		p++;
	return p;
}

/* Decimal token [s, e): value, or UINT64_MAX if not all digits or too
 * large (>= 2^62). */
static uint64_t dec(const char *s, const char *e)
{
	uint64_t v = 0;
	if (s == e)
		return UINT64_MAX;
	for (; s < e; s++) {
		unsigned d = (unsigned)(unsigned char)*s - '0';
		if (d > 9)
			return UINT64_MAX;
		v = v * 10 + d;
		if (v >= TRACE_WORK_LIMIT)
			return UINT64_MAX - 1;
	}
	return v;
}

struct br {
	const char *file;
	struct trace_error *err;
	uint32_t line;
};

#define BFAIL(...)                                          \
	do {                                                \
		tr_err(B->err, B->file, B->line, __VA_ARGS__); \
		return -1;                                  \
	} while (0)

static int unexpected(struct br *B, const char *p)
{
	struct tr_quote q;
	BFAIL("unexpected token %s", tr_quote(&q, p, (size_t)(tok_end(p) - p)));
}

static int check_map(struct br *B, const char *map, uint32_t cpus)
{
	struct tr_quote q;
	uint32_t n = 0;
	const char *p = skip_ws(map);
	while (*p) {
		const char *e = p;
		while (*e && !is_ws(*e))
			e++;
		if (dec(p, e) >= TRACE_ID_LIMIT)
			BFAIL("map entry %s is not a non-negative integer below 2^31",
			      tr_quote(&q, p, (size_t)(e - p)));
		n++;
		p = skip_ws(e);
	}
	if (n != cpus)
		BFAIL("map has %u entr%s, but cpus is %u", n, n == 1 ? "y" : "ies", cpus);
	return 0;
}

static int parse(struct br *B, const char *p, const char *end,
                 const struct trace *tr, struct trace_binding *b)
{
	struct tr_quote q;
	int magic = 0, in_threads = 0;
	uint32_t cpus = 0, cpus_line = 0, map_line = 0;
	uint32_t key_line[NKEYS] = { 0 };
	uint32_t *seen = calloc((size_t)tr->nthreads + 1, sizeof *seen);
	int rc = -1;
	if (!seen) {
		tr_err(B->err, B->file, 0, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < tr->nthreads; i++)
		b->proc[i] = TRACE_SHADOW;

#undef BFAIL
#define BFAIL(...)                                          \
	do {                                                \
		tr_err(B->err, B->file, B->line, __VA_ARGS__); \
		goto out;                                   \
	} while (0)

	while (p < end) {
		const char *ls = p, *s, *e;
		if (B->line >= UINT32_MAX - 1) {
			tr_err(B->err, B->file, 0, "too many lines");
			goto out;
		}
		B->line++;
		p = (const char *)rawmemchr(p, '\n') + 1;
		s = skip_ws(ls);
		if (at_end(s))
			continue;
		e = tok_end(s);
		size_t n = (size_t)(e - s);
		if (!magic) {
			if (n != 18 || memcmp(s, "shadowbind-binding", 18))
				BFAIL("not a shadowbind binding (expected 'shadowbind-binding 1', got %s)",
				      tr_quote(&q, s, n));
			const char *v = skip_ws(e);
			if (at_end(v))
				BFAIL("missing version after 'shadowbind-binding'");
			const char *ve = tok_end(v);
			uint64_t ver = dec(v, ve);
			if (ver != 1) {
				if (ver >= UINT64_MAX - 1 || ve - v > 20)
					BFAIL("unsupported binding version %s",
					      tr_quote(&q, v, (size_t)(ve - v)));
				BFAIL("unsupported binding version %.*s",
				      (int)(ve - v), v);
			}
			v = skip_ws(ve);
			if (!at_end(v)) {
				unexpected(B, v);
				goto out;
			}
			magic = 1;
			continue;
		}
		if (*s == '-' || *s == '+')
			BFAIL("thread id %s is not a non-negative integer below 2^31",
			      tr_quote(&q, s, n));
		if ((unsigned)(unsigned char)*s - '0' < 10) {
			/* <thread id> <processor> */
			uint64_t id = dec(s, e);
			if (id >= TRACE_ID_LIMIT)
				BFAIL("thread id %s is not a non-negative integer below 2^31",
				      tr_quote(&q, s, n));
			if (!cpus)
				BFAIL("thread line before the 'cpus' line");
			int64_t t = trace_thread_index(tr, (uint32_t)id);
			if (t < 0)
				BFAIL("thread %u is not in the trace", (unsigned)id);
			if (seen[t])
				BFAIL("thread %u listed twice (first at line %u)",
				      (unsigned)id, seen[t]);
			const char *v = skip_ws(e);
			if (at_end(v))
				BFAIL("missing processor of thread %u", (unsigned)id);
			const char *ve = tok_end(v);
			int32_t proc;
			if (ve - v == 6 && memcmp(v, "shadow", 6) == 0) {
				proc = TRACE_SHADOW;
			} else {
				uint64_t c = dec(v, ve);
				if (c == UINT64_MAX)
					BFAIL("processor %s is not a non-negative integer or 'shadow'",
					      tr_quote(&q, v, (size_t)(ve - v)));
				if (c >= cpus)
					BFAIL("processor %s out of range 0..%u (cpus %u)",
					      tr_quote(&q, v, (size_t)(ve - v)), cpus - 1, cpus);
				proc = (int32_t)c;
			}
			v = skip_ws(ve);
			if (!at_end(v)) {
				unexpected(B, v);
				goto out;
			}
			seen[t] = B->line;
			b->proc[t] = proc;
			in_threads = 1;
			continue;
		}
		/* header line: key value... */
		int k = -1;
		for (int i = 0; i < NKEYS; i++)
			if (strlen(keys[i]) == n && memcmp(keys[i], s, n) == 0)
				k = i;
		int is_cpus = n == 4 && memcmp(s, "cpus", 4) == 0;
		int is_magic = n == 18 && memcmp(s, "shadowbind-binding", 18) == 0;
		if (k < 0 && !is_cpus && !is_magic)
			continue; /* unknown key: ignored */
		if (in_threads)
			BFAIL("header %s after the thread lines", tr_quote(&q, s, n));
		if (is_magic)
			BFAIL("duplicate 'shadowbind-binding' line");
		const char *v = skip_ws(e);
		if (at_end(v))
			BFAIL("missing value after %s", tr_quote(&q, s, n));
		if (is_cpus) {
			const char *ve = tok_end(v);
			uint64_t c = dec(v, ve);
			if (c == 0 || c > TRACE_CPUS_MAX)
				BFAIL("cpus %s is not an integer in 1..%u",
				      tr_quote(&q, v, (size_t)(ve - v)), TRACE_CPUS_MAX);
			const char *x = skip_ws(ve);
			if (!at_end(x)) {
				unexpected(B, x);
				goto out;
			}
			if (cpus)
				BFAIL("duplicate 'cpus' (first at line %u)", cpus_line);
			cpus = (uint32_t)c;
			cpus_line = B->line;
			b->cpus = cpus;
			continue;
		}
		/* the value: from its first token to the end of its last */
		const char *ve = v, *x = v;
		while (!at_end(x)) {
			ve = tok_end(x);
			x = skip_ws(ve);
		}
		for (const char *c = v; c < ve; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				BFAIL("value of '%s' contains a control byte", keys[k]);
			else if (*c == 0x7f)
				BFAIL("value of '%s' contains a control byte", keys[k]);
		if (key_line[k])
			BFAIL("duplicate '%s' (first at line %u)", keys[k], key_line[k]);
		if (k == K_UNIT) {
			int u = tr_lookup(tr_unit_names, TRACE_NUNITS, v, (size_t)(ve - v), NULL);
			if (u < 0)
				BFAIL("unit %s is not one of ns, us, ms, s, tick",
				      tr_quote(&q, v, (size_t)(ve - v)));
			if ((enum trace_unit)u != tr->unit)
				BFAIL("unit '%s' differs from the trace's unit '%s'",
				      tr_unit_names[u], trace_unit_name(tr->unit));
		}
		char *val = malloc((size_t)(ve - v) + 1);
		if (!val) {
			tr_err(B->err, B->file, 0, "out of memory");
			goto out;
		}
		memcpy(val, v, (size_t)(ve - v));
		val[ve - v] = 0;
		*hdr_field(b, k) = val;
		key_line[k] = B->line;
		if (k == K_MAP)
			map_line = B->line;
	}
	if (!magic) {
		tr_err(B->err, B->file, 0,
		       "not a shadowbind binding (no 'shadowbind-binding 1' line)");
		goto out;
	}
	if (!cpus) {
		tr_err(B->err, B->file, 0, "no 'cpus' line");
		goto out;
	}
	if (b->map) {
		B->line = map_line;
		if (check_map(B, b->map, cpus))
			goto out;
	}
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		if (!seen[t]) {
			tr_err(B->err, B->file, 0, "thread %u has no processor",
			       tr->threads[t].id);
			goto out;
		}
	}
	rc = 0;
out:
	free(seen);
	return rc;
}

int trace_binding_read_mem(const char *name, const char *buf, size_t len,
                           const struct trace *tr, struct trace_binding *out,
                           struct trace_error *err)
{
	struct trace_error dummy;
	struct br B = { name ? name : "<memory>", err ? err : &dummy, 0 };
	memset(B.err, 0, sizeof *B.err);
	memset(out, 0, sizeof *out);
	if (!tr) {
		tr_err(B.err, B.file, 0, "no trace");
		return -1;
	}
	char *text = malloc(len + 1);
	out->proc = malloc(((size_t)tr->nthreads + 1) * sizeof *out->proc);
	if (!text || !out->proc) {
		free(text);
		trace_binding_release(out);
		tr_err(B.err, B.file, 0, "out of memory");
		return -1;
	}
	if (len)
		memcpy(text, buf, len);
	text[len] = '\n';
	out->n = tr->nthreads;
	int rc = parse(&B, text, text + len + (len && buf[len - 1] != '\n'), tr, out);
	free(text);
	if (rc)
		trace_binding_release(out);
	return rc;
}

int trace_binding_read(const char *path, const struct trace *tr,
                       struct trace_binding *out, struct trace_error *err)
{
	struct trace_error dummy;
	char eb[128];
	if (!err)
		err = &dummy;
	memset(out, 0, sizeof *out);
	FILE *f = path ? fopen(path, "rb") : NULL;
	if (!f) {
		tr_err(err, path ? path : "(null)", 0, "cannot open: %s",
		       strerror_r(path ? errno : EINVAL, eb, sizeof eb));
		return -1;
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			tr_err(err, path, 0, "out of memory");
			return -1;
		}
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap)
			break;
		char *nb = realloc(buf, cap * 2);
		if (!nb)
			free(buf);
		buf = nb;
		cap *= 2;
	}
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		free(buf);
		tr_err(err, path, 0, "cannot read: %s", strerror_r(e, eb, sizeof eb));
		return -1;
	}
	fclose(f);
	int rc = trace_binding_read_mem(path, buf, len, tr, out, err);
	free(buf);
	return rc;
}

/* ---------------------------------------------------------------------
 * Writer
 */

/* A header value that reads back as written: not empty, no control
 * bytes, no comment. */
static int clean(const char *s)
{
	if (!*s || *s == '#')
		return 0;
	for (const char *c = s; *c; c++) {
		if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
			return 0;
		if (*c == '#' && (c[-1] == ' ' || c[-1] == '\t'))
			return 0;
	}
	return 1;
}

int trace_binding_write(const struct trace *tr, const struct trace_binding *b,
                        FILE *f)
{
	if (!tr || !b || b->n != tr->nthreads || b->cpus < 1 ||
	    (b->n && !b->proc)) {
		errno = EINVAL;
		return -1;
	}
	for (uint32_t t = 0; t < b->n; t++)
		if (b->proc[t] != TRACE_SHADOW &&
		    (b->proc[t] < 0 || (uint32_t)b->proc[t] >= b->cpus)) {
			errno = EINVAL;
			return -1;
		}
	struct trace_binding *bb = (struct trace_binding *)b;
	for (int k = 0; k < NKEYS; k++) {
		const char *v = *hdr_field(bb, k);
		if (v && !clean(v)) {
			errno = EINVAL;
			return -1;
		}
	}
	for (const char *x = b->extra; x && *x;) {
		size_t l = strcspn(x, "\n");
		if (l == 0 || memchr(x, '#', l)) {
			errno = EINVAL;
			return -1;
		}
		x += l + (x[l] == '\n');
	}
	int bad = fprintf(f, "shadowbind-binding 1\ncpus %u\n", b->cpus) < 0;
	for (int k = 0; k < NKEYS && !bad; k++) {
		const char *v = *hdr_field(bb, k);
		if (v)
			bad = fprintf(f, "%s %s\n", keys[k], v) < 0;
	}
	for (const char *x = b->extra; x && *x && !bad;) {
		size_t l = strcspn(x, "\n");
		bad = fprintf(f, "%.*s\n", (int)l, x) < 0;
		x += l + (x[l] == '\n');
	}
	if (!bad)
		bad = fputc('\n', f) == EOF;
	for (uint32_t t = 0; t < b->n && !bad; t++) {
		const char *name = trace_thread_name(tr, t);
		char proc[16];
		if (b->proc[t] == TRACE_SHADOW)
			strcpy(proc, "shadow");
		else
			snprintf(proc, sizeof proc, "%d", b->proc[t]);
		if (name)
			bad = fprintf(f, "%u %s # %s\n", tr->threads[t].id, proc, name) < 0;
		else
			bad = fprintf(f, "%u %s\n", tr->threads[t].id, proc) < 0;
	}
	if (!bad && fflush(f) != 0)
		bad = 1;
	return bad ? -1 : 0;
}
