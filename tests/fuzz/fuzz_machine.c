/*
 * fuzz_machine.c - libFuzzer harness for machine files (mach_parse,
 * mach/mach.h; docs/sim.md, "Machine files"), which `--machine FILE`
 * reads from outside; see tests/fuzz/Makefile.  Every input
 *   - is accepted: then mach_write writes it, that text is accepted
 *     again and written again the same (a file the calibration writes
 *     reads back to itself), and the model of its first k CPUs (k = 1
 *     up to 4) is made or refused with one line;
 *   - or is refused with one line "m.ini:..." safe to print and the
 *     machine zeroed (mach.h: "*m zeroed and one line in why").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mach/mach.h"

/* One line, no control byte: what a command prints after "error: ". */
static void one_line(const char *why)
{
	if (!why[0])
		abort();
	for (const unsigned char *c = (const unsigned char *)why; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			abort();
}

static void zeroed(const struct mach *m)
{
	static const struct mach zero;
	if (memcmp(m, &zero, sizeof zero) != 0)
		abort();
}

/* mach_write's text of m, malloc'd; *len its length. */
static char *written(const struct mach *m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		abort();
	if (mach_write(m, f) != 0)
		abort();
	if (fclose(f) != 0)
		abort();
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mach m;
	char why[512];
	if (mach_parse("m.ini", (const char *)data, size, &m, why, sizeof why) != 0) {
		one_line(why);
		if (strncmp(why, "m.ini", 5) != 0)
			abort();
		zeroed(&m);
		return 0;
	}
	size_t n1, n2;
	char *t1 = written(&m, &n1);
	struct mach back;
	if (mach_parse("w.ini", t1, n1, &back, why, sizeof why) != 0)
		abort(); /* what mach_write wrote must read back */
	char *t2 = written(&back, &n2);
	if (n1 != n2 || memcmp(t1, t2, n1) != 0)
		abort();
	for (uint32_t k = 1; k <= 4 && k <= m.ncpu; k++) {
		struct mach_model mm;
		if (mach_model_init(&mm, &m, k, TRACE_NS, why, sizeof why) != 0)
			one_line(why);
		mach_model_release(&mm);
	}
	free(t1);
	free(t2);
	mach_release(&back);
	mach_release(&m);
	return 0;
}
