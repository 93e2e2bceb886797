/*
 * truncation.h - the rules a reader stopped early by a too-long line must
 * follow (docs/trace.md): one oracle for tests/test_trace.c and the fuzz
 * harness tests/fuzz/fuzz_trace.c.  Test code only: static functions.
 */
#ifndef SHADOWBIND_TRUNCATION_H
#define SHADOWBIND_TRUNCATION_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Some line after `line` is too long for a buffer of `max` bytes (its
 * squeezed length, as in squeezed_len, is at least max): a reader with
 * that buffer stops there. */
static inline int truncated_after(const char *d, size_t n, uint32_t line, size_t max)
{
	uint32_t l = 1;
	size_t w = 0;
	int blank = 1, put = 0, cut = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || d[i] == '\n') {
			if (l > line && w >= max)
				return 1;
			l++;
			w = 0;
			blank = 1;
			put = cut = 0;
			continue;
		}
		char c = d[i];
		if (cut)
			continue;
		if (c == ' ' || c == '\t') {
			if (!put)
				w++;
			put = blank = 1;
			continue;
		}
		w++;
		if (c == '#' && blank)
			cut = 1;
		blank = put = 0;
	}
	return 0;
}

/* Errors that lines after a truncation could explain away (a cwait acts
 * right after its thread's previous record): a truncated read may pass
 * them. */
static inline int needs_continuation(const char *msg)
{
	return strstr(msg, " was waiting") || strstr(msg, " were waiting") ||
	       strstr(msg, ": lock of mutex ") || strstr(msg, ": trylock of mutex ") ||
	       strstr(msg, " re-acquires mutex ");
}

#endif
