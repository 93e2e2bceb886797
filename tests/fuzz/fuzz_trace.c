/*
 * fuzz_trace.c - libFuzzer harness for the trace reader and the binding
 * reader (see tests/fuzz/Makefile).  Every input is
 *   - read as a trace with the default limits and with tiny chunks, the
 *     general parser only (not the fast path) and another hash key: the
 *     two must agree exactly (result and error message);
 *   - read with a tiny line buffer: when that succeeds, so must the first
 *     read, with an equal trace; when it fails, with the same error (but
 *     for the column), or with "line too long" for a line that is (checked
 *     here) and no later than the first read's error, unless that error is
 *     one the lines past the long one could have explained;
 *   - when valid, written, read back and written again: the two outputs
 *     must be identical and the traces equal;
 *   - when invalid, the error must be one printable line naming the file;
 *   - read as a binding file for a fixed trace.
 * An input that starts with the zstd magic number is a compressed trace
 * (trace.h): read with the default limits and with tiny chunks, the same
 * answer; an error is one printable line; a valid one written (as text)
 * and read back is the same trace.  (The text checks above are about the
 * bytes the reader parses, which are then not the input's.)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "trace/traceint.h"
#include "tests/truncation.h"

static const char fixed_text[] =
	"shadowbind-trace 1\n"
	"thread 1 main\n"
	"1 0 create 2\n"
	"1 0 create 5\n"
	"2 10 exit\n"
	"5 3 exit\n"
	"1 0 join 2\n"
	"1 0 join 5\n"
	"1 0 exit\n";

static struct trace *fixed; /* harness state, not library state */

static void check_msg(const struct trace_error *e, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(e->msg, name, n) != 0 || e->msg[n] != ':')
		abort();
	for (const char *c = e->msg; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			abort();
}

/* operand v of kind k as an external id (dense numbering may differ) */
static uint32_t ext(const struct trace *tr, int k, uint32_t v)
{
	if (k < 0)
		return v;
	if (k == TRACE_K_THREAD)
		return tr->threads[v].id;
	return tr->obj_id[k][v];
}

static void kinds(int op, int *ka, int *kb)
{
	const struct trace_opinfo *O = &trace_ops[op];
	*ka = O->arg[0].type == TRACE_ARG_OBJ ? O->arg[0].kind : -1;
	*kb = O->arg[1].type == TRACE_ARG_OBJ ? O->arg[1].kind : -1;
}

/* msg without its " (column N)" (squeezed lines have none) */
static void strip_col(char *d, const char *msg)
{
	const char *c = strstr(msg, " (column ");
	size_t n = c ? (size_t)(c - msg) : strlen(msg);
	memcpy(d, msg, n);
	d[n] = 0;
	if (c) {
		c = strchr(c, ')');
		if (!c)
			abort();
		strcat(d, c + 1);
	}
}

/* Length of line `line` (1-based) of data once squeezed: comment cut
 * to its '#', runs of blanks as one space (docs/trace.md, Reader). */
static size_t squeezed_len(const char *d, size_t n, uint32_t line)
{
	size_t i = 0, w = 0;
	for (uint32_t l = 1; l < line && i < n; i++)
		if (d[i] == '\n')
			l++;
	int blank = 1, put = 0;
	for (; i < n && d[i] != '\n'; i++) {
		char c = d[i];
		if (c == ' ' || c == '\t') {
			if (!put)
				w++;
			put = blank = 1;
			continue;
		}
		if (c == '#' && blank)
			return w + 1;
		w++;
		blank = put = 0;
	}
	return w;
}

static void same_trace(const struct trace *a, const struct trace *b, int lines)
{
	if (a->nrec != b->nrec || a->nthreads != b->nthreads ||
	    a->unit != b->unit || a->unit_declared != b->unit_declared ||
	    a->initial != b->initial || !a->loc != !b->loc)
		abort();
	for (uint32_t t = 0; t < a->nthreads; t++) {
		const char *na = trace_thread_name(a, t), *nb = trace_thread_name(b, t);
		if (a->threads[t].id != b->threads[t].id ||
		    a->threads[t].first != b->threads[t].first ||
		    a->threads[t].nrec != b->threads[t].nrec || !na != !nb ||
		    (na && strcmp(na, nb)))
			abort();
	}
	for (size_t i = 0; i < a->nrec; i++) {
		const struct trace_rec *x = &a->rec[i], *y = &b->rec[i];
		const char *la = trace_rec_loc(a, i), *lb = trace_rec_loc(b, i);
		int ka, kb;
		if (x->op >= TRACE_NOPS)
			abort();
		kinds(x->op, &ka, &kb);
		if (x->work != y->work || ext(a, ka, x->a) != ext(b, ka, y->a) ||
		    ext(a, kb, x->b) != ext(b, kb, y->b) ||
		    x->op != y->op || (lines && x->line != y->line) ||
		    a->pair[i] != b->pair[i] || !la != !lb || (la && strcmp(la, lb)))
			abort();
	}
	for (int k = 0; k < TRACE_NKINDS; k++) {
		if (a->nobj[k] != b->nobj[k])
			abort();
	}
	for (uint32_t s = 0; s < a->nobj[TRACE_K_SEM]; s++) {
		uint32_t u = 0;
		while (u < b->nobj[TRACE_K_SEM] &&
		       b->obj_id[TRACE_K_SEM][u] != a->obj_id[TRACE_K_SEM][s])
			u++;
		if (u == b->nobj[TRACE_K_SEM] || a->sem_init[s] != b->sem_init[u] ||
		    a->sem_declared[s] != b->sem_declared[u])
			abort();
	}
}

static char *write_mem(const struct trace *tr, size_t *n)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);
	if (!f || trace_write(tr, f) != 0)
		abort();
	fclose(f);
	return buf;
}

/* Read the input with the default limits (*tr, e1; an error must be one
 * line naming the file, with nothing returned) and again with tiny
 * chunks, every record by the general parser (no fast path) and another
 * hash key (*tr2, e2; lim left so).  Returns the first read's status,
 * the second's in *rc2. */
static int read_two_ways(const char *text, size_t size, struct trace **tr,
                         struct trace_error *e1, struct trace **tr2, struct trace_error *e2,
                         struct trace_limits *lim, int *rc2)
{
	int rc = trace_read_mem("fuzz.trace", text, size, tr, e1);
	if (rc) {
		if (*tr)
			abort();
		check_msg(e1, "fuzz.trace");
	}
	trace_limits_default(lim);
	lim->chunk = 1 + size % 5;
	lim->slow_only = 1;
	lim->seed = 1 + size;
	*rc2 = trace_read_mem_lim("fuzz.trace", text, size, lim, tr2, e2);
	return rc;
}

static int fuzz_zst(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct trace *tr = NULL, *tr2 = NULL;
	struct trace_error e1, e2;
	struct trace_limits lim;
	int rc2, rc = read_two_ways(text, size, &tr, &e1, &tr2, &e2, &lim, &rc2);
	/* the same, but for which of two errors comes first: damaged data
	 * is found when its block (or the frame's checksum) is reached, and
	 * the text's error may come before or after, as the chunks fall */
	if (rc2 != rc || (rc && strcmp(e1.msg, e2.msg) && !strstr(e1.msg, " zstd data") &&
	                  !strstr(e2.msg, " zstd data")))
		abort();
	if (!rc) {
		same_trace(tr, tr2, 1);
		size_t n;
		char *w = write_mem(tr, &n);
		struct trace *tr3 = NULL;
		if (trace_read_mem("fuzz.trace", w, n, &tr3, &e2))
			abort();
		same_trace(tr, tr3, 0);
		trace_free(tr3);
		free(w);
	}
	trace_free(tr);
	trace_free(tr2);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (tr_zst_magic(data, size))
		return fuzz_zst(data, size);
	const char *text = (const char *)data;
	struct trace *tr = NULL, *tr2 = NULL, *tr3 = NULL;
	struct trace_error e1, e2;
	struct trace_limits lim;

	if (!fixed && trace_read_mem("fixed.trace", fixed_text,
	                             sizeof fixed_text - 1, &fixed, &e1))
		abort();

	/* tiny chunks, every record by the general parser (no fast path),
	 * another hash key: the same answer */
	int rc2, rc = read_two_ways(text, size, &tr, &e1, &tr2, &e2, &lim, &rc2);
	if (rc2 != rc || (rc && strcmp(e1.msg, e2.msg)))
		abort();
	if (!rc)
		same_trace(tr, tr2, 1);
	trace_free(tr2);
	tr2 = NULL;

	/* tiny line buffer: squeezed lines mean the same */
	lim.buf_init = 4;
	lim.buf_max = 16 + size % 48;
	if (trace_read_mem_lim("fuzz.trace", text, size, &lim, &tr2, &e2) == 0) {
		if (rc)
			abort();
		same_trace(tr, tr2, 1);
	} else {
		/* either the line was too long for the tiny buffer (and the
		 * normal read fails no earlier, if at all), or the same error */
		check_msg(&e2, "fuzz.trace");
		if (strstr(e2.msg, ": line too long (")) {
			if (squeezed_len(text, size, e2.line) < lim.buf_max)
				abort();
			if (rc && e1.line && e1.line < e2.line &&
			    !needs_continuation(e1.msg))
				abort();
		} else {
			char a[sizeof e1.msg], b[sizeof e2.msg];
			strip_col(a, e1.msg);
			strip_col(b, e2.msg);
			/* the same error; or, when a later line stopped the
			 * tiny read, an error at a line that fails anyway: the
			 * same line for a reason that lines past the stop
			 * could change, or a later line when the normal read
			 * failed first for such a reason */
			if (!rc)
				abort();
			if (strcmp(a, b) &&
			    !(truncated_after(text, size, e2.line, lim.buf_max) &&
			      (e1.line == e2.line ||
			       (e1.line && e1.line < e2.line && needs_continuation(e1.msg)))))
				abort();
		}
	}
	trace_free(tr2);

	/* round trip */
	if (!rc) {
		size_t n1, n2;
		char *w1 = write_mem(tr, &n1);
		if (trace_read_mem("rt.trace", w1, n1, &tr3, &e2))
			abort();
		same_trace(tr, tr3, 0);
		char *w2 = write_mem(tr3, &n2);
		if (n1 != n2 || memcmp(w1, w2, n1))
			abort();
		free(w1);
		free(w2);
		trace_free(tr3);
	}
	trace_free(tr);

	/* binding for the fixed trace */
	struct trace_binding b;
	if (trace_binding_read_mem("fuzz.binding", text, size, fixed, &b, &e2) == 0) {
		if (b.n != fixed->nthreads || b.cpus < 1)
			abort();
		for (uint32_t t = 0; t < b.n; t++)
			if (b.proc[t] != TRACE_SHADOW &&
			    (b.proc[t] < 0 || (uint32_t)b.proc[t] >= b.cpus))
				abort();
		char *buf = NULL;
		size_t n;
		FILE *f = open_memstream(&buf, &n);
		if (!f || trace_binding_write(fixed, &b, f) != 0)
			abort();
		fclose(f);
		struct trace_binding b2;
		if (trace_binding_read_mem("rt.binding", buf, n, fixed, &b2, &e2))
			abort();
		if (b2.cpus != b.cpus ||
		    memcmp(b2.proc, b.proc, b.n * sizeof *b.proc))
			abort();
		free(buf);
		trace_binding_release(&b2);
		trace_binding_release(&b);
	} else {
		check_msg(&e2, "fuzz.binding");
		if (b.proc || b.map || b.cpus)
			abort();
	}
	return 0;
}
