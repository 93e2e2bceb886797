/* history.c - the set of tested allocations in canonical form. */
#include <stdlib.h>
#include <string.h>

#include "alloc/allocint.h"

int alloc_hist_init(struct alloc_hist *h, uint32_t n, uint32_t k,
                    size_t max_bytes)
{
	memset(h, 0, sizeof *h);
	h->max_bytes = max_bytes;
	h->n = n;
	h->k = k;
	h->width = k <= 256 ? 1 : k <= 65536 ? 2 : 4;
	h->keylen = (size_t)n * h->width;
	if (h->keylen == 0)
		h->keylen = 1;
	h->cap = 1024;
	h->slot_hash = calloc(h->cap, sizeof *h->slot_hash);
	h->slot_idx = calloc(h->cap, sizeof *h->slot_idx);
	h->map = malloc(sizeof *h->map * (k ? k : 1));
	if (!h->slot_hash || !h->slot_idx || !h->map) {
		alloc_hist_release(h);
		return -1;
	}
	for (uint32_t p = 0; p < k; p++)
		h->map[p] = -1;
	return 0;
}

void alloc_hist_release(struct alloc_hist *h)
{
	free(h->slot_hash);
	free(h->slot_idx);
	free(h->ent);
	free(h->keys);
	free(h->map);
	memset(h, 0, sizeof *h);
}

uint64_t alloc_hist_key(struct alloc_hist *h, const int32_t *b, uint8_t *key)
{
	int32_t *map = h->map;
	int32_t next = 0;
	uint64_t hv = 0x9E3779B97F4A7C15ull;
	for (uint32_t i = 0; i < h->n; i++) {
		int32_t p = b[i];
		if (map[p] < 0)
			map[p] = next++;
		uint32_t l = (uint32_t)map[p];
		switch (h->width) {
		case 1:
			key[i] = (uint8_t)l;
			break;
		case 2:
			memcpy(key + 2 * (size_t)i, &(uint16_t){(uint16_t)l}, 2);
			break;
		default:
			memcpy(key + 4 * (size_t)i, &l, 4);
		}
		hv = (hv ^ l) * 0x100000001B3ull;
		hv ^= hv >> 29;
	}
	/* Reset the map: the processors used are those of b. */
	for (uint32_t i = 0; i < h->n; i++)
		map[b[i]] = -1;
	hv ^= hv >> 33;
	hv *= 0xFF51AFD7ED558CCDull;
	hv ^= hv >> 33;
	return hv ? hv : 1;
}

int64_t alloc_hist_find(const struct alloc_hist *h, const uint8_t *key,
                        uint64_t hv)
{
	size_t mask = h->cap - 1;
	for (size_t s = hv & mask;; s = (s + 1) & mask) {
		if (h->slot_hash[s] == 0)
			return -1;
		if (h->slot_hash[s] == hv) {
			uint32_t e = h->slot_idx[s];
			if (memcmp(h->keys + (size_t)e * h->keylen, key,
			           h->keylen) == 0)
				return e;
		}
	}
}

static int grow(struct alloc_hist *h)
{
	size_t cap = h->cap * 2;
	uint64_t *sh = calloc(cap, sizeof *sh);
	uint32_t *si = calloc(cap, sizeof *si);
	if (!sh || !si) {
		free(sh);
		free(si);
		return -1;
	}
	for (size_t s = 0; s < h->cap; s++) {
		uint64_t hv = h->slot_hash[s];
		if (!hv)
			continue;
		size_t t = hv & (cap - 1);
		while (sh[t])
			t = (t + 1) & (cap - 1);
		sh[t] = hv;
		si[t] = h->slot_idx[s];
	}
	free(h->slot_hash);
	free(h->slot_idx);
	h->slot_hash = sh;
	h->slot_idx = si;
	h->cap = cap;
	return 0;
}

size_t alloc_hist_bytes(const struct alloc_hist *h)
{
	return h->cap * (sizeof *h->slot_hash + sizeof *h->slot_idx) +
	       h->ecap * (sizeof *h->ent + h->keylen);
}

int64_t alloc_hist_add(struct alloc_hist *h, const uint8_t *key, uint64_t hv)
{
	if (h->count >= UINT32_MAX - 1)
		return -1;
	int gs = 2 * (h->count + 1) > h->cap, ge = h->count == h->ecap;
	if ((gs || ge) && h->max_bytes) {
		/* The memory the history would hold after growing. */
		size_t cap = gs ? 2 * h->cap : h->cap;
		size_t ecap = ge ? (h->ecap ? 2 * h->ecap : 256) : h->ecap;
		size_t b = cap * (sizeof *h->slot_hash + sizeof *h->slot_idx) +
		           ecap * (sizeof *h->ent + h->keylen);
		if (b > h->max_bytes) {
			h->full = 1;
			return -2;
		}
	}
	if (gs && grow(h) != 0)
		return -1;
	if (ge) {
		size_t ecap = h->ecap ? 2 * h->ecap : 256;
		struct alloc_hentry *e = realloc(h->ent, ecap * sizeof *e);
		if (!e)
			return -1;
		h->ent = e;
		uint8_t *k = realloc(h->keys, ecap * h->keylen);
		if (!k)
			return -1;
		h->keys = k;
		h->ecap = ecap;
	}
	size_t idx = h->count++;
	memcpy(h->keys + idx * h->keylen, key, h->keylen);
	memset(&h->ent[idx], 0, sizeof h->ent[idx]);
	h->ent[idx].state = ALLOC_H_PENDING;
	size_t mask = h->cap - 1, s = hv & mask;
	while (h->slot_hash[s])
		s = (s + 1) & mask;
	h->slot_hash[s] = hv;
	h->slot_idx[s] = (uint32_t)idx;
	return (int64_t)idx;
}
