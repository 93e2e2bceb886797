/*
 * fuzz_binding.c - libFuzzer harness for the binding-file reader
 * (trace_binding_read_mem; see tests/fuzz/Makefile).  The input is a
 * trace and a binding file separated by the first NUL byte (no NUL: the
 * whole input is a binding for a fixed trace).  When the trace reads, the
 * binding is read for it:
 *   - accepted: cpus in 1..TRACE_CPUS_MAX, every thread of the trace on a
 *     processor in 0..cpus-1 or shadow; written, read back, equal;
 *   - rejected: one printable line naming the file, nothing left in *out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

static const char fixed_text[] =
	"shadowbind-trace 1\nthread 1 main\n1 0 create 2\n1 0 create 5\n"
	"2 10 exit\n5 3 exit\n1 0 join 2\n1 0 join 5\n1 0 exit\n";

static void check_msg(const struct trace_error *e, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(e->msg, name, n) != 0 || e->msg[n] != ':')
		abort();
	for (const char *c = e->msg; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			abort();
}

static int same_opt(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check(const struct trace *tr, const char *text, size_t size)
{
	struct trace_binding b, b2;
	struct trace_error e;
	if (trace_binding_read_mem("fuzz.binding", text, size, tr, &b, &e)) {
		check_msg(&e, "fuzz.binding");
		if (b.proc || b.map || b.makespan || b.cpus || b.n)
			abort();
		return;
	}
	if (b.n != tr->nthreads || b.cpus < 1 || b.cpus > TRACE_CPUS_MAX)
		abort();
	for (uint32_t t = 0; t < b.n; t++)
		if (b.proc[t] != TRACE_SHADOW &&
		    (b.proc[t] < 0 || (uint32_t)b.proc[t] >= b.cpus))
			abort();
	char *buf = NULL;
	size_t n;
	FILE *f = open_memstream(&buf, &n);
	if (!f || trace_binding_write(tr, &b, f) != 0)
		abort();
	fclose(f);
	if (trace_binding_read_mem("rt.binding", buf, n, tr, &b2, &e))
		abort();
	if (b2.cpus != b.cpus || memcmp(b2.proc, b.proc, b.n * sizeof *b.proc) ||
	    !same_opt(b.makespan, b2.makespan) || !same_opt(b.unit, b2.unit) ||
	    !same_opt(b.algorithm, b2.algorithm) || !same_opt(b.trace, b2.trace) ||
	    !same_opt(b.bound, b2.bound) || !same_opt(b.lower, b2.lower) ||
	    !same_opt(b.map, b2.map) || !same_opt(b.advice, b2.advice))
		abort();
	free(buf);
	trace_binding_release(&b2);
	trace_binding_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trace *fixed; /* harness state, not library state */
	struct trace_error e;
	const char *text = (const char *)data;
	if (!fixed && trace_read_mem("fixed.trace", fixed_text,
	                             sizeof fixed_text - 1, &fixed, &e))
		abort();
	const char *nul = memchr(text, 0, size);
	if (!nul) {
		check(fixed, text, size);
		return 0;
	}
	struct trace *tr = NULL;
	size_t tn = (size_t)(nul - text);
	if (trace_read_mem("fuzz.trace", text, tn, &tr, &e) == 0) {
		check(tr, nul + 1, size - tn - 1);
		trace_free(tr);
	}
	return 0;
}
