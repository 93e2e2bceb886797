/* recint.h - internals shared by the files of record/ (not the preload). */
#ifndef SHADOWBIND_RECINT_H
#define SHADOWBIND_RECINT_H

#include <stdarg.h>
#include <stdio.h>

#include "record/record.h"

/* Fill err with a one-line message (printf format); returns -1. */
static inline int rec_fail(struct trace_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int rec_fail(struct trace_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->line = 0;
	return -1;
}

/* Is the try at thread T's records j..e (failed tries j..e-1, the
 * success e: a trylock, or a lock after failed tries) a poll before a
 * block: record j-1 releases the mutex the try takes and record e+1 waits
 * on a condition variable with it?  The one rule of rec_spin_as_wait
 * (spin.c), which rewrites them, and rec_spin_scan (report.c), which
 * counts them. */
int rec_poll_before_block(const struct trace *tr, const struct trace_thread *T, uint32_t j,
                          uint32_t e);

#endif
