/*
 * sha256.c - SHA-256 (FIPS 180-4), for the `trace` header line.
 *
 * Two implementations of the compression function: the portable one
 * below (about 64 instructions per byte: 310 MB/s here, as slow as
 * parsing the trace, so `allocate` spent as long hashing a trace as
 * reading it) and one with the x86 SHA extensions (sha256rnds2, msg1,
 * msg2), chosen at run time when the processor has them: 1.3-1.5 GB/s.
 * Both give the same digest (tests/test_alloc.c checks each against
 * FIPS vectors, and the two against each other).
 */
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define SHA256_X86 1
#endif

#include "trace/trace.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
		              (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^
		              (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5],
	         g = h[6], hh = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = ror(e, 6) ^ ror(e, 11) ^ ror(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + S1 + ch + K[i] + w[i];
		uint32_t S0 = ror(a, 2) ^ ror(a, 13) ^ ror(a, 22);
		uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + mj;
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

#ifdef SHA256_X86
/* n blocks of 64 bytes at p with the SHA extensions.  The state lives in
 * two registers as the instructions want it: s0 = (A, B, E, F) and
 * s1 = (C, D, G, H), most significant word first; each sha256rnds2 does
 * two rounds with the two low words of its message operand. */
__attribute__((target("sha,ssse3,sse4.1")))
static void blocks_x86(uint32_t h[8], const uint8_t *p, size_t n)
{
	/* big-endian words: reverse the bytes of each 32-bit lane */
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
	__m128i dcba = _mm_loadu_si128((const __m128i *)&h[0]);
	__m128i hgfe = _mm_loadu_si128((const __m128i *)&h[4]);
	__m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
	__m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
	__m128i s0 = _mm_alignr_epi8(cdab, efgh, 8);       /* ABEF */
	__m128i s1 = _mm_blend_epi16(efgh, cdab, 0xF0);    /* CDGH */
	for (; n; n--, p += 64) {
		__m128i save0 = s0, save1 = s1, m[4];
		for (int i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
		/* round group i: W[4i .. 4i+3] is m[i & 3]; after using it,
		 * the slot receives W[4i+16 .. 4i+19] = s1(W[t-2]) + W[t-7] +
		 * s0(W[t-15]) + W[t-16] */
		for (int i = 0; i < 16; i++) {
			__m128i w = m[i & 3];
			__m128i msg = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)&K[4 * i]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
			s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(msg, 0x0E));
			if (i < 12) {
				__m128i t = _mm_sha256msg1_epu32(w, m[(i + 1) & 3]);
				t = _mm_add_epi32(t, _mm_alignr_epi8(m[(i + 3) & 3], m[(i + 2) & 3], 4));
				m[i & 3] = _mm_sha256msg2_epu32(t, m[(i + 3) & 3]);
			}
		}
		s0 = _mm_add_epi32(s0, save0);
		s1 = _mm_add_epi32(s1, save1);
	}
	__m128i feba = _mm_shuffle_epi32(s0, 0x1B);
	__m128i dchg = _mm_shuffle_epi32(s1, 0xB1);
	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(feba, dchg, 0xF0)); /* DCBA */
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(dchg, feba, 8));    /* HGFE */
}
#endif

int trace_sha256_accelerated(void)
{
#ifdef SHA256_X86
	/* CPUID (clang has no __builtin_cpu_supports("sha")): leaf 1 ECX
	 * bit 9 SSSE3, bit 19 SSE4.1; leaf 7 EBX bit 29 SHA */
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & 1u << 9) || !(c & 1u << 19))
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b >> 29) & 1;
#else
	return 0;
#endif
}

/* n blocks of 64 bytes at p, with the SHA extensions unless s is
 * portable (init asked the processor once: CPUID is slow, and in a
 * virtual machine a trap to the host). */
static void blocks(struct trace_sha256 *s, const uint8_t *p, size_t n)
{
#ifdef SHA256_X86
	if (!s->portable) {
		blocks_x86(s->h, p, n);
		return;
	}
#endif
	for (; n; n--, p += 64)
		block(s->h, p);
}

void trace_sha256_init(struct trace_sha256 *s)
{
	static const uint32_t H0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(s->h, H0, sizeof H0);
	s->len = 0;
	s->nbuf = 0;
	s->portable = !trace_sha256_accelerated();
}

void trace_sha256_update(struct trace_sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	s->len += len;
	if (s->nbuf) {
		size_t take = 64 - s->nbuf < len ? 64 - s->nbuf : len;
		memcpy(s->buf + s->nbuf, p, take);
		s->nbuf += take;
		p += take;
		len -= take;
		if (s->nbuf < 64)
			return;
		blocks(s, s->buf, 1);
		s->nbuf = 0;
	}
	blocks(s, p, len / 64);
	p += len / 64 * 64;
	len %= 64;
	memcpy(s->buf, p, len);
	s->nbuf = len;
}

void trace_sha256_final(struct trace_sha256 *s, char hex[65])
{
	uint64_t bits = s->len * 8;
	uint8_t pad[72] = {0x80};
	size_t npad = s->nbuf < 56 ? 56 - s->nbuf : 120 - s->nbuf;
	uint8_t lenb[8];
	for (int i = 0; i < 8; i++)
		lenb[i] = (uint8_t)(bits >> (56 - 8 * i));
	trace_sha256_update(s, pad, npad);
	trace_sha256_update(s, lenb, 8);
	static const char dig[] = "0123456789abcdef";
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			hex[8 * i + j] = dig[(s->h[i] >> (28 - 4 * j)) & 15];
	hex[64] = 0;
}
