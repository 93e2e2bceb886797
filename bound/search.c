/*
 * search.c - p(n,k,t,z,V) = min_A (s(A,V) + z r(A,t,V)) by allocation
 * classes, best-first branch-and-bound and lazy evaluation (Paper VII,
 * Sections 6.1-6.3), or by exhaustive enumeration.
 *
 * An allocation is a non-increasing vector of k loads (zeros: unused
 * processors) summing to n.  A class is a common prefix c_1 >= ... >= c_j;
 * its members are the allocations that start with it.  The R = n - sum c
 * remaining threads go to the k - j remaining processors with at most c_j
 * each (n when j = 0).  The class is evaluated with
 *   thick completion: R spread evenly (loads differ by at most one),
 *   thin completion:  as few processors as possible, c_j threads each,
 * value = s(c ++ thick) + z r(c ++ thin).  Every member A satisfies
 * s(A) >= s(c ++ thick) (Theorem 3: s does not increase when a thread moves
 * from a more loaded to a less loaded processor, and every member's tail is
 * reached from the even one by moves the other way) and r(A) >= r(c ++ thin)
 * (r decreases with sum a_i(a_i-1), which the greedy fill maximizes under
 * the cap and the number of processors).  So the value is a lower bound on
 * every member, exact when the two completions coincide (then the class has
 * exactly one member: every member majorizes the even tail and is
 * majorized by the greedy one).
 *
 * Best-first: a priority queue of classes ordered by value.  The smallest
 * is expanded into its subclasses c ++ x, x = ceil(R/(k-j)) .. min(c_j, R);
 * when the smallest is a single-member class, its value is the minimum
 * over all allocations (every other allocation is in some queued class
 * whose value is at least as large).
 *
 * Lazy evaluation (Section 6.3): the thick value of the subclass c ++ x
 * does not decrease with x (its thick completion majorizes that of x - 1),
 * and the thin value of every subclass is at least that of the largest x,
 * whose thin completion is the parent's.  So the subclasses x..x_max are
 * all worth at least thick(c ++ x) + z r(parent thin): the queue holds
 * that range as one deferred node, and subclass x is evaluated only when
 * the deferred node reaches the front of the queue (then x + 1 is
 * deferred in turn).
 *
 * Exact arithmetic: every value is N / den with one common denominator
 * den for the whole search (see struct search), so comparisons are
 * comparisons of GMP integers.  The thick value of each distinct thick
 * allocation is computed once (a per-search memo): this is the paper's
 * re-use of the parent's thick part by its first subclass.
 */
#include "bound/boundint.h"

#include <stdlib.h>
#include <string.h>

struct node {
	uint32_t pre;    /* offset of the prefix in arena              */
	uint32_t j;      /* prefix length                               */
	uint32_t x;      /* deferred node: the next subclass's x        */
	uint32_t xhi;    /* deferred node: the last x                   */
	uint8_t lazy;    /* 1: deferred range of subclasses             */
	uint8_t leaf;    /* 1: single-member class                      */
	uint64_t seq;
	mpz_t key;       /* value numerator (lower bound for deferred)  */
};

struct memo_ent {
	uint32_t off;    /* offset of the allocation in memo_arena       */
	mpz_t val;       /* thick numerator S_num                        */
};

struct search {
	const struct bound_prog *bp;
	uint32_t n, k;
	enum bound_method meth;
	struct bd_count cnt;
	/*
	 * v_q = w_q / D;  L = lcm{C(n,q) : q >= 1, w_q != 0};
	 * S_num(A) = w_0 L + sum_q alpha_q F_q(A), alpha_q = w_q L / C(n,q),
	 *   so s(A) = S_num(A) / (D L);
	 * M = sum q w_q, z t = Zn / Zd, nn = n(n-1), X(A) = nn - sum a(a-1),
	 *   so z r(A) = Zn M X(A) / (Zd D nn);
	 * value = (S_num K1 + X K2) / den, K1 = Zd nn, K2 = Zn M L,
	 *   den = D L Zd nn.  (n = 1: nn = 1, K2 = 0.)
	 */
	mpz_t *alpha;
	uint8_t *use;    /* [n+1] alpha_q != 0 */
	uint32_t qmax;   /* largest q with alpha_q != 0 (0 if none)   */
	mpz_t base, K1, K2, den, F, tmp;
	uint64_t nn;
	uint32_t *thick_a, *thin_a, *child; /* [k] scratch */
	uint32_t *arena;
	size_t alen, acap;
	struct node *nodes;
	size_t nlen, ncap;
	uint32_t *heap;
	size_t hlen, hcap;
	/* memo of thick values */
	struct memo_ent *ments;
	size_t mlen, mcap;
	uint32_t *marena;
	size_t malen, macap;
	uint32_t *mtab;  /* open addressing: index+1 into ments, 0 empty */
	size_t mtcap;
	uint64_t seq;
	int oom;
	/* counts */
	uint64_t classes, thick, complete, lazy_nodes;
	/* the best single-member class queued so far (for a capped search) */
	int have_leaf;
	mpz_t leafkey;
	uint32_t *leaf_a;  /* [k] */
};

/* ---------------------------------------------------------------------
 * Growable arrays
 */

/* Make room for `need` elements in array `arr` of capacity `cap`;
 * evaluates to 0, or -1 on allocation failure (arr unchanged). */
#define GROW(arr, cap, need) grow_((void *)&(arr), &(cap), (need), sizeof *(arr))

static int grow_(void *pp, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 64;
	while (nc < need)
		nc *= 2;
	void *old;
	memcpy(&old, pp, sizeof old);
	void *q = realloc(old, nc * elem);
	if (!q)
		return -1;
	memcpy(pp, &q, sizeof q);
	*cap = nc;
	return 0;
}

/* ---------------------------------------------------------------------
 * Thick values (memoized)
 */

static uint64_t hash_alloc(const uint32_t *a, uint32_t k)
{
	uint64_t h = 1469598103934665603ull;
	for (uint32_t i = 0; i < k && a[i]; i++) {
		h ^= a[i];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 29);
}

static int memo_rehash(struct search *S)
{
	size_t nc = S->mtcap ? S->mtcap * 2 : 256;
	uint32_t *t = calloc(nc, sizeof *t);
	if (!t)
		return -1;
	for (size_t e = 0; e < S->mlen; e++) {
		size_t h = hash_alloc(S->marena + S->ments[e].off, S->k) & (nc - 1);
		while (t[h])
			h = (h + 1) & (nc - 1);
		t[h] = (uint32_t)e + 1;
	}
	free(S->mtab);
	S->mtab = t;
	S->mtcap = nc;
	return 0;
}

/* out = S_num(a), computed (counted as a thick evaluation). */
static int thick_compute(struct search *S, const uint32_t *a, mpz_t out)
{
	int rc = bd_f_upto(&S->cnt, a, S->k, 0, S->meth, S->qmax);
	if (rc != BOUND_OK)
		return rc;
	mpz_set(out, S->base);
	for (uint32_t q = 1; q <= S->qmax; q++)
		if (S->use[q]) {
			bd_F_get(&S->cnt, q, S->F);
			mpz_addmul(out, S->alpha[q], S->F);
		}
	S->thick++;
	return BOUND_OK;
}

/* The thick numerator of allocation a (k loads, non-increasing); a pointer
 * into the memo (valid until the next call), or NULL on failure. */
static const mpz_t *thick_value(struct search *S, const uint32_t *a)
{
	const uint32_t k = S->k;
	if (S->mtcap == 0 || 2 * (S->mlen + 1) > S->mtcap)
		if (memo_rehash(S))
			return NULL;
	size_t h = hash_alloc(a, k) & (S->mtcap - 1);
	while (S->mtab[h]) {
		struct memo_ent *e = &S->ments[S->mtab[h] - 1];
		if (memcmp(S->marena + e->off, a, k * sizeof *a) == 0)
			return (const mpz_t *)&e->val;
		h = (h + 1) & (S->mtcap - 1);
	}
	if (GROW(S->ments, S->mcap, S->mlen + 1) ||
	    GROW(S->marena, S->macap, S->malen + k))
		return NULL;
	struct memo_ent *e = &S->ments[S->mlen];
	mpz_init(e->val);
	if (thick_compute(S, a, e->val) != BOUND_OK) {
		mpz_clear(e->val);
		return NULL;
	}
	e->off = (uint32_t)S->malen;
	memcpy(S->marena + S->malen, a, k * sizeof *a);
	S->malen += k;
	S->mtab[h] = (uint32_t)++S->mlen;
	return (const mpz_t *)&e->val;
}

static uint64_t xval(const struct search *S, const uint32_t *a)
{
	uint64_t same = 0;
	for (uint32_t i = 0; i < S->k; i++)
		same += (uint64_t)a[i] * (a[i] ? a[i] - 1 : 0);
	return S->n > 1 ? S->nn - same : 0;
}

/* Completions of prefix c[0..j-1] (sum C): thick into S->thick_a, thin into
 * S->thin_a.  The class must be non-empty (R <= (k-j) cap). */
static void complete(struct search *S, const uint32_t *c, uint32_t j)
{
	const uint32_t k = S->k;
	uint64_t C = 0;
	for (uint32_t i = 0; i < j; i++)
		C += c[i];
	uint32_t R = S->n - (uint32_t)C;
	uint32_t cap = j ? c[j - 1] : S->n;
	if (j) {
		memcpy(S->thick_a, c, j * sizeof *c);
		memcpy(S->thin_a, c, j * sizeof *c);
	}
	uint32_t m = k - j;
	for (uint32_t i = 0; i < m; i++) {
		S->thick_a[j + i] = m ? R / m + (i < R % m) : 0;
		uint64_t lo = (uint64_t)i * cap;
		S->thin_a[j + i] = lo >= R ? 0 : (R - lo >= cap ? cap : (uint32_t)(R - lo));
	}
}

/* ---------------------------------------------------------------------
 * The queue
 */

static int node_less(const struct search *S, uint32_t a, uint32_t b)
{
	const struct node *x = &S->nodes[a], *y = &S->nodes[b];
	int c = mpz_cmp(x->key, y->key);
	if (c)
		return c < 0;
	if (x->leaf != y->leaf)
		return x->leaf > y->leaf;
	if (x->lazy != y->lazy)
		return x->lazy < y->lazy;
	if (x->j != y->j)
		return x->j > y->j;
	return x->seq < y->seq;
}

static int heap_push(struct search *S, uint32_t id)
{
	if (GROW(S->heap, S->hcap, S->hlen + 1))
		return -1;
	size_t i = S->hlen++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!node_less(S, id, S->heap[p]))
			break;
		S->heap[i] = S->heap[p];
		i = p;
	}
	S->heap[i] = id;
	return 0;
}

static uint32_t heap_pop(struct search *S)
{
	uint32_t top = S->heap[0], last = S->heap[--S->hlen];
	size_t i = 0, n = S->hlen;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		uint32_t mv = last;
		if (l < n && node_less(S, S->heap[l], mv)) {
			m = l;
			mv = S->heap[l];
		}
		if (r < n && node_less(S, S->heap[r], mv))
			m = r;
		if (m == i)
			break;
		S->heap[i] = S->heap[m];
		i = m;
	}
	if (n)
		S->heap[i] = last;
	return top;
}

/* A new node with prefix c[0..j-1] (copied); returns its index or -1. */
static int64_t node_new(struct search *S, const uint32_t *c, uint32_t j)
{
	if (GROW(S->nodes, S->ncap, S->nlen + 1) ||
	    GROW(S->arena, S->acap, S->alen + j))
		return -1;
	struct node *nd = &S->nodes[S->nlen];
	memset(nd, 0, sizeof *nd);
	nd->pre = (uint32_t)S->alen;
	nd->j = j;
	nd->seq = S->seq++;
	if (j)
		memcpy(S->arena + S->alen, c, j * sizeof *c);
	S->alen += j;
	mpz_init(nd->key);
	return (int64_t)S->nlen++;
}

/* Evaluate the class with prefix c[0..j-1] and queue it. */
static int push_class(struct search *S, const uint32_t *c, uint32_t j)
{
	complete(S, c, j);
	const mpz_t *th = thick_value(S, S->thick_a);
	if (!th)
		return -1;
	int64_t id = node_new(S, c, j);
	if (id < 0)
		return -1;
	struct node *nd = &S->nodes[id];
	mpz_mul(nd->key, *th, S->K1);
	mpz_set_ui(S->tmp, xval(S, S->thin_a));
	mpz_addmul(nd->key, S->tmp, S->K2);
	nd->leaf = memcmp(S->thick_a, S->thin_a, S->k * sizeof *c) == 0;
	if (nd->leaf && (!S->have_leaf || mpz_cmp(nd->key, S->leafkey) < 0)) {
		mpz_set(S->leafkey, nd->key);
		memcpy(S->leaf_a, S->thick_a, S->k * sizeof *c);
		S->have_leaf = 1;
	}
	S->classes++;
	S->complete += nd->leaf;
	return heap_push(S, (uint32_t)id);
}

/* Queue the deferred subclasses x..xhi of prefix c[0..j-1] (x <= xhi). */
static int push_lazy(struct search *S, const uint32_t *c, uint32_t j,
                     uint32_t x, uint32_t xhi)
{
	/* thin part of every subclass >= that of the parent's thin */
	complete(S, c, j);
	uint64_t xmin = xval(S, S->thin_a);
	if (j)
		memcpy(S->child, c, j * sizeof *c);
	S->child[j] = x;
	complete(S, S->child, j + 1);
	const mpz_t *th = thick_value(S, S->thick_a);
	if (!th)
		return -1;
	int64_t id = node_new(S, c, j);
	if (id < 0)
		return -1;
	struct node *nd = &S->nodes[id];
	nd->lazy = 1;
	nd->x = x;
	nd->xhi = xhi;
	mpz_mul(nd->key, *th, S->K1);
	mpz_set_ui(S->tmp, xmin);
	mpz_addmul(nd->key, S->tmp, S->K2);
	S->lazy_nodes++;
	return heap_push(S, (uint32_t)id);
}

/* Range of subclass x for prefix c[0..j-1]; 0 if there is none. */
static int sub_range(const struct search *S, const uint32_t *c, uint32_t j,
                     uint32_t *xlo, uint32_t *xhi)
{
	uint64_t C = 0;
	for (uint32_t i = 0; i < j; i++)
		C += c[i];
	uint32_t R = S->n - (uint32_t)C, m = S->k - j;
	if (R == 0 || m == 0)
		return 0;
	uint32_t cap = j ? c[j - 1] : S->n;
	*xlo = (R + m - 1) / m;
	*xhi = cap < R ? cap : R;
	return *xlo <= *xhi;
}

/* ---------------------------------------------------------------------
 * Set-up
 */

static void search_release(struct search *S)
{
	if (S->alpha) {
		for (uint32_t q = 0; q <= S->n; q++)
			mpz_clear(S->alpha[q]);
		free(S->alpha);
	}
	free(S->use);
	mpz_clear(S->base);
	mpz_clear(S->K1);
	mpz_clear(S->K2);
	mpz_clear(S->den);
	mpz_clear(S->F);
	mpz_clear(S->tmp);
	mpz_clear(S->leafkey);
	free(S->leaf_a);
	bd_count_release(&S->cnt);
	free(S->thick_a);
	free(S->thin_a);
	free(S->child);
	free(S->arena);
	for (size_t i = 0; i < S->nlen; i++)
		mpz_clear(S->nodes[i].key);
	free(S->nodes);
	free(S->heap);
	for (size_t i = 0; i < S->mlen; i++)
		mpz_clear(S->ments[i].val);
	free(S->ments);
	free(S->marena);
	free(S->mtab);
}

static int search_init(struct search *S, const struct bound_prog *bp,
                       uint32_t k, const mpq_t t, enum bound_method meth)
{
	memset(S, 0, sizeof *S);
	mpz_init(S->base);
	mpz_init(S->K1);
	mpz_init(S->K2);
	mpz_init(S->den);
	mpz_init(S->F);
	mpz_init(S->tmp);
	mpz_init(S->leafkey);
	const uint32_t n = bp->n;
	S->bp = bp;
	S->n = n;
	S->k = k;
	S->meth = meth;
	int rc = bd_count_init(&S->cnt, n);
	if (rc)
		return rc;
	S->alpha = malloc(((size_t)n + 1) * sizeof *S->alpha);
	S->use = calloc((size_t)n + 1, 1);
	S->thick_a = calloc(k, sizeof *S->thick_a);
	S->thin_a = calloc(k, sizeof *S->thin_a);
	S->child = calloc(k, sizeof *S->child);
	S->leaf_a = calloc(k, sizeof *S->leaf_a);
	if (!S->alpha || !S->use || !S->thick_a || !S->thin_a || !S->child ||
	    !S->leaf_a) {
		free(S->alpha);
		S->alpha = NULL;
		return BOUND_ENOMEM;
	}
	for (uint32_t q = 0; q <= n; q++)
		mpz_init(S->alpha[q]);

	mpz_t D, L, M, w, b;
	mpz_inits(D, L, M, w, b, NULL);
	mpz_set_ui(D, 1);
	for (uint32_t q = 0; q <= n; q++)
		mpz_lcm(D, D, mpq_denref(bp->v[q]));
	mpz_set_ui(L, 1);
	for (uint32_t q = 1; q <= n; q++)
		if (mpq_sgn(bp->v[q])) {
			mpz_bin_uiui(b, n, q);
			mpz_lcm(L, L, b);
		}
	for (uint32_t q = 0; q <= n; q++) {
		/* w_q = v_q D */
		mpz_divexact(w, D, mpq_denref(bp->v[q]));
		mpz_mul(w, w, mpq_numref(bp->v[q]));
		if (q == 0) {
			mpz_mul(S->base, w, L);
			continue;
		}
		mpz_addmul_ui(M, w, q);
		if (mpz_sgn(w)) {
			mpz_bin_uiui(b, n, q);
			mpz_divexact(S->alpha[q], L, b);
			mpz_mul(S->alpha[q], S->alpha[q], w);
			S->use[q] = 1;
			S->qmax = q;
		}
	}
	mpq_t zt;
	mpq_init(zt);
	mpq_mul(zt, bp->z, t);
	S->nn = n > 1 ? (uint64_t)n * (n - 1) : 1;
	mpz_mul_ui(S->K1, mpq_denref(zt), S->nn);
	if (n > 1) {
		mpz_mul(S->K2, mpq_numref(zt), M);
		mpz_mul(S->K2, S->K2, L);
	}
	mpz_mul(S->den, D, L);
	mpz_mul(S->den, S->den, S->K1);
	mpq_clear(zt);
	mpz_clears(D, L, M, w, b, NULL);
	return BOUND_OK;
}

/* ---------------------------------------------------------------------
 * The searches
 */

static int branch_and_bound(struct search *S, int lazy, uint32_t *best)
{
	uint32_t *c = malloc(((size_t)S->k + 1) * sizeof *c);
	if (!c)
		return BOUND_ENOMEM;
	int rc = BOUND_ENOMEM;
	if (push_class(S, NULL, 0))
		goto out;
	while (S->hlen) {
		uint32_t id = heap_pop(S);
		struct node nd = S->nodes[id]; /* copy: nodes may move */
		if (nd.j)
			memcpy(c, S->arena + nd.pre, nd.j * sizeof *c);
		if (nd.lazy) {
			c[nd.j] = nd.x;
			if (push_class(S, c, nd.j + 1))
				goto out;
			if (nd.x < nd.xhi && push_lazy(S, c, nd.j, nd.x + 1, nd.xhi))
				goto out;
			continue;
		}
		if (nd.leaf) {
			complete(S, c, nd.j);
			memcpy(best, S->thick_a, S->k * sizeof *best);
			rc = BOUND_OK;
			goto out;
		}
		uint32_t xlo, xhi;
		if (!sub_range(S, c, nd.j, &xlo, &xhi)) {
			rc = BOUND_EINVAL; /* cannot happen: not a leaf */
			goto out;
		}
		if (lazy) {
			if (push_lazy(S, c, nd.j, xlo, xhi))
				goto out;
		} else {
			for (uint32_t x = xlo; x <= xhi; x++) {
				c[nd.j] = x;
				if (push_class(S, c, nd.j + 1))
					goto out;
			}
		}
	}
	rc = BOUND_EINVAL;
out:
	if (rc != BOUND_OK && S->cnt.capped)
		rc = BD_ECAP;
	free(c);
	return rc;
}

/* Every allocation: partitions of n into at most k parts, in decreasing
 * lexicographic order; *bestkey receives the minimum numerator. */
static int exhaustive(struct search *S, uint32_t *best, mpz_t bestkey)
{
	const uint32_t k = S->k, n = S->n;
	uint32_t *a = calloc(k, sizeof *a);
	if (!a)
		return BOUND_ENOMEM;
	int rc = BOUND_OK, have = 0;
	mpz_t v;
	mpz_init(v);
	/* first: (n, 0, ..., 0) */
	a[0] = n;
	for (;;) {
		/* no memo: every allocation is distinct */
		rc = thick_compute(S, a, v);
		if (rc != BOUND_OK)
			break;
		mpz_mul(v, v, S->K1);
		mpz_set_ui(S->tmp, xval(S, a));
		mpz_addmul(v, S->tmp, S->K2);
		S->classes++;
		S->complete++;
		if (!have || mpz_cmp(v, bestkey) < 0) {
			mpz_set(bestkey, v);
			memcpy(best, a, k * sizeof *a);
			have = 1;
			mpz_set(S->leafkey, v);
			memcpy(S->leaf_a, a, k * sizeof *a);
			S->have_leaf = 1;
		}
		/* next partition: find the rightmost position i < k-1 with
		 * a[i] > 1 that can give one unit to the right, then refill
		 * the tail greedily with parts <= a[i] - 1 */
		uint32_t rest = 0;
		int64_t i;
		for (i = (int64_t)k - 1; i >= 0; i--) {
			rest += a[i];
			if (a[i] > 1 && i < (int64_t)k - 1) {
				uint32_t cap = a[i] - 1;
				/* the tail from i holds rest; a[i] becomes cap */
				uint32_t tail = rest - cap;
				uint64_t room = (uint64_t)cap * (k - 1 - (uint32_t)i);
				if (tail <= room)
					break;
			}
		}
		if (i < 0)
			break;
		uint32_t cap = a[i] - 1, tail = rest - cap;
		a[i] = cap;
		for (uint32_t t = (uint32_t)i + 1; t < k; t++) {
			uint32_t x = tail < cap ? tail : cap;
			a[t] = x;
			tail -= x;
		}
	}
	mpz_clear(v);
	free(a);
	return rc;
}

void bound_opts_init(struct bound_opts *o)
{
	memset(o, 0, sizeof *o);
	o->method = BOUND_POLY;
	o->lazy = 1;
	o->max_work = BOUND_WORK_DEFAULT;
}

const char *bound_cap_name(int capped)
{
	switch (capped) {
	case 0: return "minimal";
	case BOUND_CAP_WORK: return "stopped at work cap";
	case BOUND_CAP_TIME: return "stopped at time cap";
	case BOUND_CAP_MEMORY: return "stopped at memory cap";
	}
	return "?";
}

/* The value numerator of the one-processor allocation (n, 0, ..., 0):
 * f((n),q,0) = q C(n,q) (every row's busiest processor runs all q), and
 * X = 0, so key = (base + sum_q alpha_q q C(n,q)) K1.  Cheap: no
 * counting. */
static void one_processor(struct search *S, uint32_t *best, mpz_t key)
{
	mpz_t C, f;
	mpz_inits(C, f, NULL);
	mpz_set(key, S->base);
	mpz_set_ui(C, 1);
	for (uint32_t q = 1; q <= S->qmax; q++) {
		mpz_mul_ui(C, C, S->n - q + 1);
		mpz_divexact_ui(C, C, q);
		if (S->use[q]) {
			mpz_mul_ui(f, C, q);
			mpz_addmul(key, S->alpha[q], f);
		}
	}
	mpz_mul(key, key, S->K1);
	memset(best, 0, S->k * sizeof *best);
	best[0] = S->n;
	mpz_clears(C, f, NULL);
}

void bound_pres_release(struct bound_pres *r)
{
	if (!r)
		return;
	if (r->alloc) {
		mpq_clear(r->p);
		mpz_clear(r->total);
		free(r->alloc);
	}
	memset(r, 0, sizeof *r);
}

/* The bits a search would hold (BOUND_MEMORY_CAP_BITS says what is
 * counted); a double: only compared with the cap. */
static double search_bits(const struct bound_prog *bp)
{
	double used = 0, qmax = 0;
	for (uint32_t q = 1; q <= bp->n; q++)
		if (mpq_sgn(bp->v[q])) {
			used++;
			qmax = q;
		}
	return used * 1.4427 * ((double)bp->n + 1) +
	       3 * (qmax + 1) * (double)bp->n;
}

/* Past the memory cap: the one-processor allocation's value, v0 + sum q
 * v_q (every row's busiest processor runs all q; r = 0), exact, with no
 * common denominator and no counting. */
static int memory_capped(const struct bound_prog *bp, uint32_t k,
                         struct bound_pres *out)
{
	out->alloc = calloc(k, sizeof *out->alloc);
	if (!out->alloc)
		return BOUND_ENOMEM;
	out->alloc[0] = bp->n;
	mpq_init(out->p);
	mpq_t x;
	mpq_init(x);
	mpq_set(out->p, bp->v[0]);
	for (uint32_t q = 1; q <= bp->n; q++)
		if (mpq_sgn(bp->v[q])) {
			mpq_set_ui(x, q, 1);
			mpq_mul(x, x, bp->v[q]);
			mpq_add(out->p, out->p, x);
		}
	mpq_clear(x);
	out->k = k;
	out->classes = 1;
	out->complete = 1;
	out->capped = BOUND_CAP_MEMORY;
	mpz_init(out->total);
	bound_allocations(out->total, bp->n, k);
	return BOUND_OK;
}

int bound_p(const struct bound_prog *bp, uint32_t k, const mpq_t t,
            const struct bound_opts *o, struct bound_pres *out)
{
	memset(out, 0, sizeof *out);
	struct bound_opts def;
	if (!o) {
		bound_opts_init(&def);
		o = &def;
	}
	if (!bp || k == 0 || mpq_sgn(t) < 0 || bound_prog_check(bp))
		return BOUND_EINVAL;
	if (bp->n > BOUND_MAX_THREADS)
		return BOUND_ETOOBIG;
	if (search_bits(bp) > BOUND_MEMORY_CAP_BITS)
		return memory_capped(bp, k, out);
	struct search S;
	int rc = search_init(&S, bp, k, t, o->method);
	uint32_t *best = rc ? NULL : calloc(k, sizeof *best);
	mpz_t key;
	mpz_init(key);
	if (rc == BOUND_OK && !best)
		rc = BOUND_ENOMEM;
	S.cnt.cap = o->max_work;
	S.cnt.deadline = o->max_seconds > 0 ? bd_now() + o->max_seconds : 0;
	if (rc == BOUND_OK) {
		if (o->exhaustive) {
			rc = exhaustive(&S, best, key);
		} else {
			rc = branch_and_bound(&S, o->lazy, best);
			if (rc == BOUND_OK) {
				/* the answer's value: recompute from the memo */
				const mpz_t *th = thick_value(&S, best);
				if (!th) {
					rc = BOUND_ENOMEM;
				} else {
					mpz_mul(key, *th, S.K1);
					mpz_set_ui(S.tmp, xval(&S, best));
					mpz_addmul(key, S.tmp, S.K2);
				}
			}
		}
	}
	int capped = 0;
	if (rc == BD_ECAP) {
		/* Stopped at a cap: the best complete allocation evaluated, or
		 * one processor (never worse than it), is still an upper bound
		 * on min_A. */
		capped = S.cnt.capped;
		rc = BOUND_OK;
		one_processor(&S, best, key);
		S.classes++; /* evaluated, exactly */
		S.complete++;
		if (S.have_leaf && mpz_cmp(S.leafkey, key) < 0) {
			mpz_set(key, S.leafkey);
			memcpy(best, S.leaf_a, k * sizeof *best);
		}
	}
	if (rc == BOUND_OK) {
		out->capped = capped;
		out->work = S.cnt.work;
		mpq_init(out->p);
		mpz_set(mpq_numref(out->p), key);
		mpz_set(mpq_denref(out->p), S.den);
		mpq_canonicalize(out->p);
		out->k = k;
		out->alloc = best;
		best = NULL;
		out->classes = S.classes;
		out->thick = S.thick;
		out->complete = S.complete;
		out->lazy_nodes = S.lazy_nodes;
		mpz_init(out->total);
		bound_allocations(out->total, bp->n, k);
	}
	mpz_clear(key);
	free(best);
	search_release(&S);
	return rc;
}
