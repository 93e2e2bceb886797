/* err.c - the one-line error messages of the exp module (expint.h). */
#include <stdarg.h>
#include <stdio.h>

#include "exp/expint.h"

int exp_fail(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}
