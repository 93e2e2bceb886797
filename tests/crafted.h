/*
 * crafted.h - hostile-but-valid traces against the reader's maps (issue
 * 14): ids and locations that all collided under the reader's former
 * unkeyed hashes.  Shared by tests/test_trace.c (work counts) and
 * bench/trace-speed.c (time).
 *
 *   - thread ids k < 2^31, k != 1, with k * 0x9E3779B97F4A7C15 (mod 2^64)
 *     below 2^(64 - bits): the former map's slot (the product's top bits)
 *     was 0 for every table of up to 2^bits slots;
 *   - locations "f.c:N" whose former FNV-1a hash, folded as
 *     h ^ (h >> 29), has its low `bits` bits zero: the former location
 *     set's slot (low bits) was 0 for every table of up to 2^bits slots.
 *
 * Each function writes a complete trace into a malloc'd, NUL-terminated
 * string (NULL when out of memory): thread 1 creates each crafted thread,
 * which exits; or thread 1 sleeps 0 at each crafted location.
 */
#ifndef SHADOWBIND_CRAFTED_H
#define SHADOWBIND_CRAFTED_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t crafted_fnv(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* n crafted thread ids colliding in tables of up to 2^bits slots (n must
 * not exceed 2^(31 - bits); scans about n * 2^bits candidates). */
static inline char *crafted_threads(uint32_t n, int bits, size_t *len)
{
	size_t cap = 32 + (size_t)n * 40, k = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	k += (size_t)sprintf(s, "shadowbind-trace 1\n");
	uint32_t found = 0;
	for (uint64_t id = 0; found < n && id < ((uint64_t)1 << 31); id++) {
		if ((id * 0x9E3779B97F4A7C15ull) >> (64 - bits) || id == 1)
			continue;
		k += (size_t)sprintf(s + k, "1 0 create %llu\n%llu 0 exit\n",
		                     (unsigned long long)id, (unsigned long long)id);
		found++;
	}
	k += (size_t)sprintf(s + k, "1 0 exit\n");
	if (len)
		*len = k;
	return s;
}

/* n crafted locations colliding in tables of up to 2^bits slots (scans
 * about n * 2^bits candidates). */
static inline char *crafted_locations(uint32_t n, int bits, size_t *len)
{
	size_t cap = 32 + (size_t)n * 40, k = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	k += (size_t)sprintf(s, "shadowbind-trace 1\n");
	uint32_t found = 0;
	char loc[32];
	for (uint64_t i = 0; found < n; i++) {
		int m = sprintf(loc, "f.c:%llu", (unsigned long long)i);
		if (crafted_fnv(loc, (size_t)m) & (((uint64_t)1 << bits) - 1))
			continue;
		k += (size_t)sprintf(s + k, "1 0 sleep 0 @%s\n", loc);
		found++;
	}
	k += (size_t)sprintf(s + k, "1 0 exit\n");
	if (len)
		*len = k;
	return s;
}

#endif
