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

#endif
