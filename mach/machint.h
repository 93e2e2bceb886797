/* machint.h - internals shared by the files of mach/. */
#ifndef SHADOWBIND_MACHINT_H
#define SHADOWBIND_MACHINT_H

#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of s, or NULL. */
static inline char *mach_dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

#endif
