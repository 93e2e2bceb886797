/*
 * hash.c - the keyed hash of the reader's maps (traceint.h, struct
 * tr_hash): simple tabulation for integer keys, a polynomial modulo the
 * Mersenne prime 2^61 - 1 for strings.
 */
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "trace/traceint.h"

#define P61 (((uint64_t)1 << 61) - 1)

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void tr_hash_init(struct tr_hash *h, uint64_t seed)
{
	uint64_t s = seed;
	if (!s && getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^
		    (uint64_t)(uintptr_t)h ^ (uint64_t)(uintptr_t)&ts << 17;
	}
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 256; j++)
			h->t[i][j] = splitmix(&s);
	for (int i = 0; i < 10; i++)
		h->ml[i] = splitmix(&s);
	do
		h->base = splitmix(&s) & P61;
	while (h->base == 0 || h->base == P61);
}

static inline uint64_t mulmod61(uint64_t a, uint64_t b)
{
	unsigned __int128 x = (unsigned __int128)a * b;
	uint64_t r = ((uint64_t)x & P61) + (uint64_t)(x >> 61);
	r = (r & P61) + (r >> 61);
	return r >= P61 ? r - P61 : r;
}

uint64_t tr_hash_bytes(const struct tr_hash *h, const char *s, size_t n)
{
	if (n <= 32) {
		/* multilinear: 8 words of 32 bits, zero-padded, and the length */
		uint64_t v = h->ml[0] + h->ml[9] * n;
		for (size_t i = 0; i < n; i += 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (n - i < 8)
				w &= ((uint64_t)1 << (8 * (n - i))) - 1;
			v += h->ml[i / 4 + 1] * (uint32_t)w + h->ml[i / 4 + 2] * (w >> 32);
		}
		return tr_hash32(h, (uint32_t)(v >> 32));
	}
	/* chunks of 7 bytes (56 bits < 2^61 - 1), loaded 8 at a time: the
	 * caller guarantees 7 readable bytes past s + n */
	uint64_t v = 0;
	size_t i = 0;
	for (; i + 7 <= n; i += 7) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		v = mulmod61(v, h->base) + (w & 0x00FFFFFFFFFFFFFFull); /* < 2^62 */
	}
	uint64_t w = 0;
	if (i < n) {
		memcpy(&w, s + i, 8);
		w &= ((uint64_t)1 << (8 * (n - i))) - 1;
	}
	v = mulmod61(v, h->base) + w;
	v = mulmod61(v, h->base) + (uint64_t)n;
	v = v >= P61 ? v - P61 : v;
	return tr_hash64(h, v);
}
