/*
 * math.c - the functions of Paper VII, Section 4-5: pi, f (three
 * independent methods), s, r, and the number of allocations.
 *
 * The three methods for f(A,q,l) (the sum over all C(n,q) rows with q ones
 * of max(l, the largest number of ones on one processor)):
 *
 *  BOUND_PAPER  the recursion of Section 4.4.2 over groups of equally
 *               loaded processors with pi(k,w,q,l) of Section 4.4.3.
 *  BOUND_POLY   counting polynomials: the number N_m(q) of rows with q ones
 *               whose busiest processor runs at most m of them is
 *               [x^q] prod_i sum_{j <= min(m, a_i)} C(a_i, j) x^j, and
 *               max(l, M) = sum_{m >= 0} [max(l, M) > m], so
 *               f(A,q,l) = l C(n,q) + sum_{m = l}^{a_1 - 1} (C(n,q) - N_m(q)).
 *               Processors with a_i <= m contribute (1+x)^{a_i} jointly:
 *               the product starts from the binomial row C(S_m, .),
 *               S_m = sum_{a_i <= m} a_i.  Cost O(n sum_i a_i^2 / 2)
 *               integer multiply-adds for all q at once.
 *  BOUND_BRUTE  enumerate the 2^n rows.
 */
#include "bound/boundint.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What each BOUND_* code means: a line for people, a word for files
 * (allocate's `no_bound WORD`); indexed by -code. */
static const struct {
	const char *text, *word;
} bound_codes[] = {
	[-BOUND_OK] = {.text = "ok", .word = "ok"},
	[-BOUND_EINVAL] = {.text = "invalid argument", .word = "no-work"},
	[-BOUND_ENOMEM] = {.text = "out of memory", .word = "out-of-memory"},
	[-BOUND_ETOOBIG] = {.text = "too many threads", .word = "too-many-threads"},
	[-BOUND_EDEADLOCK] = {.text = "the program deadlocks with one processor per thread",
	                      .word = "deadlock"},
	[-BOUND_ESIM] = {.text = "the simulation failed", .word = "failed"},
};

const char *bound_strerror(int code)
{
	if (code > 0 || -code >= (int)(sizeof bound_codes / sizeof *bound_codes))
		return "unknown error";
	return bound_codes[-code].text;
}

const char *bound_errword(int code)
{
	if (code > 0 || -code >= (int)(sizeof bound_codes / sizeof *bound_codes))
		return "failed";
	return bound_codes[-code].word;
}

void bd_mpz_set_u128(mpz_t z, bd_u128 v)
{
	uint64_t w[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
	mpz_import(z, 2, -1, sizeof(uint64_t), 0, 0, w);
}

static int cmp_desc(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? 1 : a > b ? -1 : 0;
}

uint32_t bd_sort_loads(const uint32_t *A, uint32_t a, uint32_t *out)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < a; i++)
		if (A[i])
			out[m++] = A[i];
	/* Usually already sorted (the search makes them so). */
	for (uint32_t i = 1; i < m; i++)
		if (out[i] > out[i - 1]) {
			qsort(out, m, sizeof *out, cmp_desc);
			break;
		}
	return m;
}

/* ---------------------------------------------------------------------
 * Counting workspace
 */

void bd_count_release(struct bd_count *c)
{
	if (!c)
		return;
	size_t n1 = (size_t)c->n + 1;
	free(c->binom);
	free(c->poly);
	free(c->tmp);
	free(c->F);
	mpz_t *arr[10] = {c->zpoly, c->ztmp, c->zF, c->zCn, c->zrowA, c->zQ,
	                  c->zA, c->zB, c->zD, c->zN};
	size_t len[10] = {n1, n1, n1, n1, n1, n1, n1 + 1, n1 + 1, n1 + 1, n1 + 1};
	for (int j = 0; j < 10; j++)
		if (arr[j]) {
			for (size_t i = 0; i < len[j]; i++)
				mpz_clear(arr[j][i]);
			free(arr[j]);
		}
	if (c->zP) {
		for (size_t i = 0; i < BD_GROUPS * n1; i++)
			mpz_clear(c->zP[i]);
		free(c->zP);
	}
	free(c->sorted);
	if (c->zt_init)
		mpz_clear(c->zt);
	memset(c, 0, sizeof *c);
}

static mpz_t *zarray(size_t len)
{
	mpz_t *z = malloc(len * sizeof *z);
	if (z)
		for (size_t i = 0; i < len; i++)
			mpz_init(z[i]);
	return z;
}

/* row[j] = C(N, j) for j = 0..min(N, upto) */
static void binom_row(mpz_t *row, uint32_t N, uint32_t upto)
{
	uint32_t top = N < upto ? N : upto;
	mpz_set_ui(row[0], 1);
	for (uint32_t j = 1; j <= top; j++) {
		mpz_mul_ui(row[j], row[j - 1], N - j + 1);
		mpz_divexact_ui(row[j], row[j], j);
	}
}

int bd_count_init(struct bd_count *c, uint32_t n)
{
	return bd_count_init2(c, n, n <= BD_WIDE_MAX);
}

int bd_count_init2(struct bd_count *c, uint32_t n, int wide)
{
	memset(c, 0, sizeof *c);
	if (n == 0)
		return BOUND_EINVAL;
	if (n > BOUND_MAX_THREADS)
		return BOUND_ETOOBIG;
	size_t n1 = (size_t)n + 1;
	c->n = n;
	c->wide = wide && n <= BD_WIDE_MAX;
	c->sorted = malloc(n * sizeof *c->sorted);
	if (!c->sorted)
		goto nomem;
	if (c->wide) {
		c->binom = calloc(n1 * n1, sizeof *c->binom);
		c->poly = calloc(n1, sizeof *c->poly);
		c->tmp = calloc(n1, sizeof *c->tmp);
		c->F = calloc(n1, sizeof *c->F);
		if (!c->binom || !c->poly || !c->tmp || !c->F)
			goto nomem;
		for (size_t i = 0; i < n1; i++) {
			bd_u128 *row = c->binom + i * n1;
			row[0] = 1;
			for (size_t j = 1; j <= i; j++)
				row[j] = c->binom[(i - 1) * n1 + j - 1] +
				         (j < i ? c->binom[(i - 1) * n1 + j] : 0);
		}
	} else {
		/* no table: O(n^2) big binomials would not fit for large n;
		 * the rows needed are made on demand (binom_row) */
		c->zpoly = zarray(n1);
		c->ztmp = zarray(n1);
		c->zF = zarray(n1);
		c->zCn = zarray(n1);
		c->zrowA = zarray(n1);
		c->zQ = zarray(n1);
		c->zP = zarray(BD_GROUPS * n1);
		c->zA = zarray(n1 + 1);
		c->zB = zarray(n1 + 1);
		c->zD = zarray(n1 + 1);
		c->zN = zarray(n1 + 1);
		mpz_init(c->zt);
		c->zt_init = 1;
		if (!c->zpoly || !c->ztmp || !c->zF || !c->zCn || !c->zrowA ||
		    !c->zQ || !c->zP || !c->zA || !c->zB || !c->zD || !c->zN)
			goto nomem;
		mpz_set_ui(c->zCn[0], 1);
		c->zCn_len = 1;
	}
	return BOUND_OK;
nomem:
	bd_count_release(c);
	return BOUND_ENOMEM;
}

void bd_F_get(const struct bd_count *c, uint32_t q, mpz_t out)
{
	if (c->wide)
		bd_mpz_set_u128(out, c->F[q]);
	else
		mpz_set(out, c->zF[q]);
}

/* ---------------------------------------------------------------------
 * BOUND_POLY
 */

/*
 * Only F[0..qmax] is computed (the search needs q up to the largest q with
 * v_q != 0).  Rows with q ones and m >= q are all counted by N_m(q) =
 * C(n,q), so m runs up to min(a_1, qmax) - 1, and the products are
 * truncated at degree qmax: exact, since coefficient x^q of a product only
 * depends on coefficients up to x^q of its factors.
 */
/* Count `ops` coefficient multiply-adds; 1 if the cap is passed. */
static int charge(struct bd_count *c, uint64_t ops)
{
	c->work += ops * (c->wide ? 1 : 1 + c->n / 64);
	if (c->cap && c->work > c->cap) {
		c->capped = BD_CAP_WORK;
		return 1;
	}
	if (c->deadline > 0 && c->work >= c->next_clock) {
		c->next_clock = c->work + (1u << 20);
		if (bd_now() >= c->deadline) {
			c->capped = BD_CAP_TIME;
			return 1;
		}
	}
	return 0;
}

/*
 * *poly = (*poly[0..*deg] * b[0..db]) truncated at degree qmax, through
 * the scratch *tmp (the two arrays are swapped; *deg is the new degree),
 * charging the work.  Returns 0, or 1 when the work or time cap stopped
 * it (*poly is then unchanged, *tmp partly written).
 */
static int zmul_step(struct bd_count *c, mpz_t **poly, mpz_t **tmp,
                     uint32_t *deg, mpz_t *b, uint32_t db, uint32_t qmax)
{
	mpz_t *a = *poly, *out = *tmp;
	uint32_t da = *deg;
	uint32_t nd = da + db < qmax ? da + db : qmax;
	for (uint32_t x = 0; x <= nd; x++) {
		uint32_t jlo = x > da ? x - da : 0;
		uint32_t jhi = x < db ? x : db;
		mpz_set_ui(out[x], 0);
		for (uint32_t j = jlo; j <= jhi; j++)
			mpz_addmul(out[x], b[j], a[x - j]);
		if (charge(c, jhi - jlo + 1))
			return 1;
	}
	*poly = out;
	*tmp = a;
	*deg = nd;
	return 0;
}

double bd_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int f_poly_wide(struct bd_count *c, const uint32_t *s, uint32_t m_,
                       uint32_t l, uint32_t qmax)
{
	const uint32_t n = c->n;
	const size_t n1 = (size_t)n + 1;
	const bd_u128 *Cn = c->binom + (size_t)n * n1;
	bd_u128 *F = c->F, *poly = c->poly, *tmp = c->tmp;
	const uint32_t a1 = s[0];
	const uint32_t mend = a1 < qmax ? a1 : qmax;

	for (uint32_t q = 0; q <= qmax; q++)
		F[q] = (bd_u128)l * Cn[q];
	/* big = number of processors with a_i > m (a prefix of s);
	 * S = sum of the others. */
	uint32_t big = m_, S = 0;
	for (uint32_t m = l; m < mend; m++) {
		while (big > 0 && s[big - 1] <= m)
			S += s[--big];
		const bd_u128 *CS = c->binom + (size_t)S * n1;
		uint32_t deg = S < qmax ? S : qmax;
		memcpy(poly, CS, (deg + 1) * sizeof *poly);
		for (uint32_t i = 0; i < big; i++) {
			const bd_u128 *Ca = c->binom + (size_t)s[i] * n1;
			uint32_t nd = deg + m < qmax ? deg + m : qmax;
			for (uint32_t x = 0; x <= nd; x++) {
				uint32_t jlo = x > deg ? x - deg : 0;
				uint32_t jhi = x < m ? x : m;
				bd_u128 acc = 0;
				for (uint32_t j = jlo; j <= jhi; j++)
					acc += Ca[j] * poly[x - j];
				tmp[x] = acc;
				if (charge(c, jhi - jlo + 1)) {
					c->poly = poly;
					c->tmp = tmp;
					return BD_ECAP;
				}
			}
			bd_u128 *sw = poly;
			poly = tmp;
			tmp = sw;
			deg = nd;
		}
		/* q <= m: N_m(q) = C(n,q), nothing to add */
		for (uint32_t q = m + 1; q <= qmax; q++)
			F[q] += Cn[q] - (q <= deg ? poly[q] : 0);
	}
	/* Keep the workspace pointers (they may have been swapped). */
	c->poly = poly;
	c->tmp = tmp;
	return BOUND_OK;
}

/* out[0..da+db] = a[0..da] * b[0..db] (out distinct from a and b). */
static void pmul(mpz_t *out, mpz_t *a, uint32_t da, mpz_t *b, uint32_t db)
{
	for (uint32_t x = 0; x <= da + db; x++)
		mpz_set_ui(out[x], 0);
	for (uint32_t i = 0; i <= da; i++)
		for (uint32_t j = 0; j <= db; j++)
			mpz_addmul(out[i + j], a[i], b[j]);
}

/*
 * The whole product F = (1+x)^S prod_g P_g^{e_g} at once, truncated at
 * qmax, for G <= BD_GROUPS distinct loads a_g (e_g processors each,
 * P_g = sum_{j<=m} C(a_g,j) x^j): from the logarithmic derivative,
 * D F' = N F with D = (1+x) prod_g P_g and N = S prod_g P_g + sum_g e_g
 * P_g' (1+x) prod_{h!=g} P_h, so (D_0 = 1, F_0 = 1)
 *   (t+1) F_{t+1} = sum_{i<=t} N_i F_{t-i} - sum_{1<=i<=t} D_i (t-i+1) F_{t-i+1},
 * exact in integers: O(G m) per coefficient instead of O(sum e_g m).
 * Result in out[0..*deg].  Returns BD_ECAP if the cap stopped it.
 */
static int prod_rec(struct bd_count *c, const uint32_t *a, const uint32_t *e,
                    uint32_t G, uint32_t S, uint32_t m, uint32_t qmax,
                    mpz_t *out, uint32_t *deg)
{
	const size_t n1 = (size_t)c->n + 1;
	mpz_t *A = c->zA, *B = c->zB, *D = c->zD, *N = c->zN;
	for (uint32_t g = 0; g < G; g++)
		binom_row(c->zP + g * n1, a[g], m); /* m < a_g */
	/* A = prod_g P_g (degree G m) */
	uint32_t da = 0;
	mpz_set_ui(A[0], 1);
	for (uint32_t g = 0; g < G; g++) {
		pmul(B, A, da, c->zP + g * n1, m);
		da += m;
		for (uint32_t x = 0; x <= da; x++)
			mpz_swap(A[x], B[x]);
	}
	uint32_t dd = da + 1, dn = da;
	mpz_set(D[0], A[0]);
	for (uint32_t x = 1; x <= da; x++)
		mpz_add(D[x], A[x], A[x - 1]);
	mpz_set(D[dd], A[da]);
	for (uint32_t x = 0; x <= dn; x++)
		mpz_mul_ui(N[x], A[x], S);
	for (uint32_t g = 0; g < G; g++) {
		/* B = P_g' (1+x) = sum_j (j+1) C(a_g,j+1) x^j (1+x) */
		mpz_t *P = c->zP + g * n1;
		uint32_t db = m; /* degree of P_g' (1+x) */
		for (uint32_t x = 0; x <= db; x++)
			mpz_set_ui(B[x], 0);
		for (uint32_t j = 0; j + 1 <= m; j++) {
			mpz_addmul_ui(B[j], P[j + 1], j + 1);
			mpz_addmul_ui(B[j + 1], P[j + 1], j + 1);
		}
		/* times prod_{h != g} P_h, into out (scratch here) */
		uint32_t dc = db;
		for (uint32_t h = 0; h < G; h++) {
			if (h == g)
				continue;
			pmul(out, B, dc, c->zP + h * n1, m);
			dc += m;
			for (uint32_t x = 0; x <= dc; x++)
				mpz_swap(B[x], out[x]);
		}
		for (uint32_t x = 0; x <= dc && x <= dn; x++)
			mpz_addmul_ui(N[x], B[x], e[g]);
	}
	uint64_t full = S;
	for (uint32_t g = 0; g < G; g++)
		full += (uint64_t)e[g] * m;
	uint32_t top = full < qmax ? (uint32_t)full : qmax;
	mpz_set_ui(out[0], 1);
	for (uint32_t t = 0; t < top; t++) {
		mpz_t *acc = &out[t + 1];
		mpz_set_ui(*acc, 0);
		uint32_t hi = t < dn ? t : dn;
		for (uint32_t i = 0; i <= hi; i++)
			mpz_addmul(*acc, N[i], out[t - i]);
		hi = t < dd ? t : dd;
		for (uint32_t i = 1; i <= hi; i++) {
			mpz_mul_ui(c->zt, D[i], t - i + 1);
			mpz_submul(*acc, c->zt, out[t - i + 1]);
		}
		mpz_divexact_ui(*acc, *acc, t + 1);
		if (charge(c, 2 * (uint64_t)(dn + dd + 1)))
			return BD_ECAP;
	}
	*deg = top;
	return BOUND_OK;
}

/* Extend c->zCn (C(n, q)) to q = 0..qmax, from the last entry made:
 * C(n, q) = C(n, q-1) (n - q + 1) / q, exact (the same steps as
 * binom_row, so the same values as the whole row made at once). */
static void cn_upto(struct bd_count *c, uint32_t qmax)
{
	for (uint32_t q = c->zCn_len; q <= qmax; q++) {
		mpz_mul_ui(c->zCn[q], c->zCn[q - 1], c->n - q + 1);
		mpz_divexact_ui(c->zCn[q], c->zCn[q], q);
	}
	if (qmax >= c->zCn_len)
		c->zCn_len = qmax + 1;
}

static int f_poly_mpz(struct bd_count *c, const uint32_t *s, uint32_t m_,
                      uint32_t l, uint32_t qmax)
{
	cn_upto(c, qmax);
	mpz_t *Cn = c->zCn;
	mpz_t *F = c->zF, *poly = c->zpoly, *tmp = c->ztmp;
	const uint32_t a1 = s[0];
	const uint32_t mend = a1 < qmax ? a1 : qmax;
	int rc = BD_ECAP; /* until the loop completes */

	for (uint32_t q = 0; q <= qmax; q++)
		mpz_mul_ui(F[q], Cn[q], l);
	uint32_t big = m_, S = 0;
	for (uint32_t m = l; m < mend; m++) {
		while (big > 0 && s[big - 1] <= m)
			S += s[--big];
		uint32_t deg = S < qmax ? S : qmax;
		/* The distinct loads of the big processors. */
		uint32_t G = 0, ga[BD_GROUPS], ge[BD_GROUPS];
		for (uint32_t i = 0; i < big && G <= BD_GROUPS;) {
			uint32_t g = 1;
			while (i + g < big && s[i + g] == s[i])
				g++;
			if (G < BD_GROUPS) {
				ga[G] = s[i];
				ge[G] = g;
			}
			G++;
			i += g;
		}
		uint64_t rec = (uint64_t)(qmax + 1) * (2 * (uint64_t)G * m + 2) * 2;
		uint64_t seq = (uint64_t)big * (m + 1) * (qmax + 1);
		uint32_t from = 0; /* first big processor still to multiply in */
		if (G >= 1 && G <= BD_GROUPS && big > 1 && 4 * rec < seq) {
			if (prod_rec(c, ga, ge, G, S, m, qmax, poly, &deg))
				goto cap;
			from = big;
		} else {
			binom_row(poly, S, deg);
		}
		mpz_t *Ca = c->zrowA, *Q = c->zQ;
		for (uint32_t i = from; i < big;) {
			/* A group of g processors with the same load a_i. */
			uint32_t g = 1;
			while (i + g < big && s[i + g] == s[i])
				g++;
			binom_row(Ca, s[i], m); /* C(a_i, 0..m), m < a_i */
			uint64_t pd64 = (uint64_t)g * m;
			uint32_t pdeg = pd64 < qmax ? (uint32_t)pd64 : qmax;
			uint64_t seq = (uint64_t)g * (m + 1) * (qmax + 1);
			uint64_t pw = 2 * (uint64_t)(m + 1) * (pdeg + 1) +
			              (deg ? (uint64_t)(deg + 1) * (pdeg + 1) : 0);
			if (g > 1 && pw < seq) {
				/*
				 * Q = P^g, P = sum_{j<=m} C(a_i,j) x^j, P_0 = 1,
				 * by J.C.P. Miller's recurrence (from P Q' =
				 * g P' Q): x Q_x = sum_{j=1}^{min(m,x)}
				 * ((g+1) j - x) P_j Q_{x-j}, exact in integers;
				 * O(m) per coefficient instead of O(g m).
				 */
				mpz_set_ui(Q[0], 1);
				for (uint32_t x = 1; x <= pdeg; x++) {
					uint32_t jhi = x < m ? x : m;
					mpz_set_ui(Q[x], 0);
					for (uint32_t j = 1; j <= jhi; j++) {
						long coef = (long)(g + 1) * j - (long)x;
						mpz_mul(c->zt, Ca[j], Q[x - j]);
						if (coef >= 0)
							mpz_addmul_ui(Q[x], c->zt, (unsigned long)coef);
						else
							mpz_submul_ui(Q[x], c->zt, (unsigned long)-coef);
					}
					mpz_divexact_ui(Q[x], Q[x], x);
					if (charge(c, 2 * (uint64_t)jhi))
						goto cap;
				}
				/* poly *= Q, truncated at qmax */
				if (zmul_step(c, &poly, &tmp, &deg, Q, pdeg, qmax))
					goto cap;
				i += g;
				continue;
			}
			for (uint32_t f = 0; f < g; f++, i++) {
				if (zmul_step(c, &poly, &tmp, &deg, Ca, m, qmax))
					goto cap;
			}
		}
		for (uint32_t q = m + 1; q <= qmax; q++) {
			mpz_add(F[q], F[q], Cn[q]);
			if (q <= deg)
				mpz_sub(F[q], F[q], poly[q]);
		}
	}
	rc = BOUND_OK;
cap:
	/* Keep the workspace pointers (they may have been swapped). */
	c->zpoly = poly;
	c->ztmp = tmp;
	return rc;
}

/* ---------------------------------------------------------------------
 * BOUND_BRUTE
 */

static void f_brute(struct bd_count *c, const uint32_t *s, uint32_t m,
                    uint32_t l)
{
	const uint32_t n = c->n;
	uint32_t proc[BOUND_BRUTE_MAX], cnt[BOUND_BRUTE_MAX];
	for (uint32_t i = 0, t = 0; i < m; i++)
		for (uint32_t j = 0; j < s[i]; j++)
			proc[t++] = i;
	uint64_t acc[BOUND_BRUTE_MAX + 1] = {0};
	for (uint64_t mask = 0; mask < ((uint64_t)1 << n); mask++) {
		memset(cnt, 0, m * sizeof *cnt);
		uint32_t mx = l, q = 0;
		for (uint32_t t = 0; t < n; t++)
			if (mask >> t & 1) {
				q++;
				if (++cnt[proc[t]] > mx)
					mx = cnt[proc[t]];
			}
		acc[q] += mx;
	}
	for (uint32_t q = 0; q <= n; q++) {
		if (c->wide)
			c->F[q] = acc[q];
		else
			mpz_set_ui(c->zF[q], acc[q]);
	}
}

/* ---------------------------------------------------------------------
 * BOUND_PAPER: pi and the recursion of f, Section 4.4.
 */

/*
 * pi(k,w,q,l) (Section 4.4.3):
 *   0 if q < l or q > k l; C(w,l) if k = 1; otherwise
 *   C(w,l) sum_I C(w,i_1)...C(w,i_{k-1}) k! / prod_{j=1}^{b} a(j)!
 * over non-increasing I = (i_1..i_{k-1}), i_1 <= min(w,l), sum I = q - l,
 * where b is the number of distinct integers in {l, i_1..i_{k-1}} and a(j)
 * the number of occurrences of the j-th of them.
 *
 * Reading of the transcription: it prints the denominator as
 * "b({l,I}) prod_{j=1}^{k-1} a({l,I},j)!"; taken literally that gives
 * pi(2,2,2,2) = 1, but the paper's worked example (Section 4.4.5) states
 * pi(2,2,2,2) = 2, which is the number of arrangements k!/prod_{j=1}^{b}
 * a(j)! of the multiset.  We implement that (the upper limit of the
 * product is b) and the tests check it against the paper's values and
 * brute force.  "Decreasing" is read as non-increasing, as the
 * multiplicities a(j) imply.
 *
 * A non-increasing I is enumerated as the multiplicities c_v of each value
 * v = min(w,l) .. 0 (a one-to-one correspondence).
 */
struct pi_walk {
	uint32_t k, l;
	mpz_t sum;
	const mpz_t *Cw;     /* C(w, v), v = 0..w  */
	const mpz_t *fact;   /* j!, j = 0..k       */
};

/* Values v, v-1, ..., 0 remain to be given multiplicities; `left` entries
 * of I remain, summing to `rem`; prod = prod C(w, i_j) so far; den = prod
 * of the factorials of the multiplicities decided so far. */
static void pi_enum(struct pi_walk *p, uint32_t v, uint32_t left, uint32_t rem,
                    const mpz_t prod, const mpz_t den)
{
	if ((uint64_t)left * v < rem)
		return;
	mpz_t pr, dn;
	mpz_init(pr);
	mpz_init(dn);
	if (v == 0) {
		if (rem == 0) {
			/* the remaining entries are zeros: c_0 = left; the
			 * value l (if 0) is one more occurrence */
			mpz_mul(dn, den, p->fact[left + (p->l == 0)]);
			mpz_divexact(pr, p->fact[p->k], dn);
			mpz_addmul(p->sum, pr, prod);
		}
	} else {
		uint32_t cmax = rem / v < left ? rem / v : left;
		mpz_set(pr, prod);
		for (uint32_t cv = 0; cv <= cmax; cv++) {
			if (cv)
				mpz_mul(pr, pr, p->Cw[v]);
			mpz_mul(dn, den, p->fact[cv + (v == p->l)]);
			pi_enum(p, v - 1, left - cv, rem - cv * v, pr, dn);
		}
	}
	mpz_clear(pr);
	mpz_clear(dn);
}

int bound_pi(mpz_t out, uint32_t k, uint32_t w, uint32_t q, uint32_t l)
{
	mpz_set_ui(out, 0);
	if (k == 0)
		return BOUND_EINVAL;
	if (q < l || (uint64_t)q > (uint64_t)k * l || l > w)
		return BOUND_OK;
	if (k == 1) {
		mpz_bin_uiui(out, w, l);
		return BOUND_OK;
	}
	mpz_t *Cw = zarray((size_t)w + 1), *fact = zarray((size_t)k + 1);
	if (!Cw || !fact) {
		if (Cw)
			for (uint32_t v = 0; v <= w; v++)
				mpz_clear(Cw[v]);
		if (fact)
			for (uint32_t j = 0; j <= k; j++)
				mpz_clear(fact[j]);
		free(Cw);
		free(fact);
		return BOUND_ENOMEM;
	}
	for (uint32_t v = 0; v <= w; v++)
		mpz_bin_uiui(Cw[v], w, v);
	for (uint32_t j = 0; j <= k; j++)
		mpz_fac_ui(fact[j], j);
	struct pi_walk p = {.k = k, .l = l, .Cw = (const mpz_t *)Cw,
	                    .fact = (const mpz_t *)fact};
	mpz_init(p.sum);
	mpz_t one;
	mpz_init_set_ui(one, 1);
	/* top value of I: min(w, l) = l (l <= w here) */
	pi_enum(&p, l, k - 1, q - l, one, one);
	mpz_mul(out, p.sum, Cw[l]);
	mpz_clear(p.sum);
	mpz_clear(one);
	for (uint32_t v = 0; v <= w; v++)
		mpz_clear(Cw[v]);
	for (uint32_t j = 0; j <= k; j++)
		mpz_clear(fact[j]);
	free(Cw);
	free(fact);
	return BOUND_OK;
}

/*
 * f(A,q,l) of Section 4.4.2, over the groups of equally loaded processors
 * of A (non-increasing): group g has d_g processors with w_g threads each,
 * b_g = the threads of the groups after g.
 *   b = 0: f = sum_{l1 = max(0, ceil(q/d))}^{min(q,w)} pi(d,w,q,l1) max(l1,l)
 *   else:  f = sum_{l1 = max(0, ceil((q-b)/d))}^{min(q,w)}
 *              sum_{i = max(l1, q-b)}^{min(l1 d, q)}
 *                  pi(d,w,i,l1) f(A - group, q-i, max(l1,l))
 * The transcription prints the upper limit of i as "min(l_1, d, q)"; the
 * worked example (Section 4.4.5: l1 = 2 gives i = 2..3 with d = 2, q = 3)
 * shows it is min(l1 d, q), which is also what the counting requires (d
 * processors with at most l1 ones each).  Results are memoized per call.
 */
struct fpaper {
	uint32_t n, ng;
	uint32_t nl;              /* l ranges over 0..nl-1              */
	uint32_t *gw, *gd, *gb;   /* [ng] w, d, b of each group          */
	mpz_t *pi;                /* [ng][n+1][n+1] pi(d_g,w_g,i,l1)    */
	char *pi_ok;
	mpz_t *f;                 /* [ng][n+1][n+1] f(group g.., q, l)  */
	char *f_ok;
	int oom;                  /* a pi computation ran out of memory */
};

static size_t fp_idx(const struct fpaper *P, uint32_t g, uint32_t x, uint32_t y)
{
	return ((size_t)g * ((size_t)P->n + 1) + x) * P->nl + y;
}

static const mpz_t *fp_pi(struct fpaper *P, uint32_t g, uint32_t i, uint32_t l1)
{
	size_t ix = fp_idx(P, g, i, l1);
	if (!P->pi_ok[ix]) {
		mpz_init(P->pi[ix]);
		if (bound_pi(P->pi[ix], P->gd[g], P->gw[g], i, l1) != BOUND_OK)
			P->oom = 1;
		P->pi_ok[ix] = 1;
	}
	return (const mpz_t *)&P->pi[ix];
}

static const mpz_t *fp_f(struct fpaper *P, uint32_t g, uint32_t q, uint32_t l)
{
	size_t ix = fp_idx(P, g, q, l);
	if (P->f_ok[ix])
		return (const mpz_t *)&P->f[ix];
	mpz_t acc, t;
	mpz_init(acc);
	mpz_init(t);
	const int64_t w = P->gw[g], d = P->gd[g], b = P->gb[g];
	const int64_t Q = q;
	int64_t hi = Q < w ? Q : w;
	if (b == 0) {
		int64_t lo = (Q + d - 1) / d;
		for (int64_t l1 = lo; l1 <= hi; l1++) {
			mpz_mul_ui(t, *fp_pi(P, g, (uint32_t)Q, (uint32_t)l1),
			           (uint64_t)(l1 > (int64_t)l ? l1 : (int64_t)l));
			mpz_add(acc, acc, t);
		}
	} else {
		int64_t lo = Q - b <= 0 ? 0 : (Q - b + d - 1) / d;
		for (int64_t l1 = lo; l1 <= hi; l1++) {
			int64_t ilo = l1 > Q - b ? l1 : Q - b;
			int64_t ihi = l1 * d < Q ? l1 * d : Q;
			uint32_t nl = l1 > (int64_t)l ? (uint32_t)l1 : l;
			for (int64_t i = ilo; i <= ihi; i++) {
				const mpz_t *pv = fp_pi(P, g, (uint32_t)i, (uint32_t)l1);
				if (mpz_sgn(*pv) == 0)
					continue;
				const mpz_t *fv = fp_f(P, g + 1, (uint32_t)(Q - i), nl);
				mpz_addmul(acc, *pv, *fv);
			}
		}
	}
	mpz_init_set(P->f[ix], acc);
	P->f_ok[ix] = 1;
	mpz_clear(acc);
	mpz_clear(t);
	return (const mpz_t *)&P->f[ix];
}

static int f_paper(struct bd_count *c, const uint32_t *s, uint32_t m, uint32_t l)
{
	struct fpaper P = {.n = c->n};
	uint32_t ng = 0;
	for (uint32_t i = 0; i < m; i++)
		if (i == 0 || s[i] != s[i - 1])
			ng++;
	P.ng = ng;
	/* l in the recursion: max(l1, l) <= max(n, l) */
	P.nl = (l > c->n ? l : c->n) + 1;
	size_t n1 = (size_t)c->n + 1, cells = (size_t)ng * n1 * P.nl;
	if (cells > ((size_t)1 << 24))
		return BOUND_ETOOBIG; /* the paper's method is for checking */
	P.gw = calloc(ng, sizeof *P.gw);
	P.gd = calloc(ng, sizeof *P.gd);
	P.gb = calloc(ng, sizeof *P.gb);
	P.pi = malloc(cells * sizeof *P.pi);
	P.f = malloc(cells * sizeof *P.f);
	P.pi_ok = calloc(cells, 1);
	P.f_ok = calloc(cells, 1);
	int rc = BOUND_ENOMEM;
	if (!P.gw || !P.gd || !P.gb || !P.pi || !P.f || !P.pi_ok || !P.f_ok)
		goto out;
	for (uint32_t i = 0, g = 0; i < m; i++) {
		if (i > 0 && s[i] != s[i - 1])
			g++;
		P.gw[g] = s[i];
		P.gd[g]++;
	}
	for (uint32_t g = ng; g-- > 0;)
		P.gb[g] = g + 1 < ng ? P.gb[g + 1] + P.gw[g + 1] * P.gd[g + 1] : 0;
	mpz_t v;
	mpz_init(v);
	for (uint32_t q = 0; q <= c->n; q++) {
		mpz_set(v, *fp_f(&P, 0, q, l));
		if (c->wide) {
			uint64_t w2[2] = {0, 0};
			mpz_export(w2, NULL, -1, sizeof(uint64_t), 0, 0, v);
			c->F[q] = (bd_u128)w2[1] << 64 | w2[0];
		} else {
			mpz_set(c->zF[q], v);
		}
	}
	mpz_clear(v);
	rc = P.oom ? BOUND_ENOMEM : BOUND_OK;
out:
	if (P.pi_ok)
		for (size_t i = 0; i < cells; i++)
			if (P.pi_ok[i])
				mpz_clear(P.pi[i]);
	if (P.f_ok)
		for (size_t i = 0; i < cells; i++)
			if (P.f_ok[i])
				mpz_clear(P.f[i]);
	free(P.gw);
	free(P.gd);
	free(P.gb);
	free(P.pi);
	free(P.f);
	free(P.pi_ok);
	free(P.f_ok);
	return rc;
}

/* ---------------------------------------------------------------------
 * Dispatch and the public functions
 */

int bd_f_all(struct bd_count *c, const uint32_t *A, uint32_t a, uint32_t l,
             enum bound_method meth)
{
	return bd_f_upto(c, A, a, l, meth, c->n);
}

int bd_f_upto(struct bd_count *c, const uint32_t *A, uint32_t a, uint32_t l,
              enum bound_method meth, uint32_t qmax)
{
	uint32_t m = bd_sort_loads(A, a, c->sorted);
	if (c->wide && l > BD_WIDE_L_MAX)
		return BOUND_EINVAL;
	if (qmax > c->n)
		qmax = c->n;
	switch (meth) {
	case BOUND_POLY:
		if (c->wide)
			return f_poly_wide(c, c->sorted, m, l, qmax);
		return f_poly_mpz(c, c->sorted, m, l, qmax);
	case BOUND_BRUTE:
		if (c->n > BOUND_BRUTE_MAX)
			return BOUND_ETOOBIG;
		f_brute(c, c->sorted, m, l);
		return BOUND_OK;
	case BOUND_PAPER:
		return f_paper(c, c->sorted, m, l);
	}
	return BOUND_EINVAL;
}

static uint64_t load_sum(const uint32_t *A, uint32_t a)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < a; i++)
		n += A[i];
	return n;
}

int bound_f(mpz_t out, const uint32_t *A, uint32_t a, uint32_t q, uint32_t l,
            enum bound_method m)
{
	mpz_set_ui(out, 0);
	uint64_t n = load_sum(A, a);
	if (n > BOUND_MAX_THREADS)
		return BOUND_ETOOBIG;
	if (n == 0 || q > n || l > BOUND_MAX_THREADS)
		return BOUND_EINVAL;
	struct bd_count c;
	int rc = bd_count_init2(&c, (uint32_t)n, l <= BD_WIDE_L_MAX);
	if (rc)
		return rc;
	rc = bd_f_all(&c, A, a, l, m);
	if (rc == BOUND_OK)
		bd_F_get(&c, q, out);
	bd_count_release(&c);
	return rc;
}

int bound_s(mpq_t out, const struct bound_prog *bp, const uint32_t *A,
            uint32_t a, enum bound_method m)
{
	mpq_set_ui(out, 0, 1);
	uint64_t n = load_sum(A, a);
	if (!bp || n != bp->n || n == 0)
		return BOUND_EINVAL;
	struct bd_count c;
	int rc = bd_count_init(&c, (uint32_t)n);
	if (rc)
		return rc;
	rc = bd_f_all(&c, A, a, 0, m);
	if (rc == BOUND_OK) {
		mpq_t t;
		mpq_init(t);
		mpq_set(out, bp->v[0]);
		for (uint32_t q = 1; q <= n; q++) {
			if (mpq_sgn(bp->v[q]) == 0)
				continue;
			bd_F_get(&c, q, mpq_numref(t));
			mpz_bin_uiui(mpq_denref(t), n, q);
			mpq_canonicalize(t);
			mpq_mul(t, t, bp->v[q]);
			mpq_add(out, out, t);
		}
		mpq_clear(t);
	}
	bd_count_release(&c);
	return rc;
}

int bound_r(mpq_t out, const struct bound_prog *bp, const uint32_t *A,
            uint32_t a, const mpq_t t)
{
	mpq_set_ui(out, 0, 1);
	uint64_t n = load_sum(A, a);
	if (!bp || n != bp->n || n == 0 || mpq_sgn(t) < 0)
		return BOUND_EINVAL;
	if (n == 1)
		return BOUND_OK;
	uint64_t nn = n * (n - 1), same = 0;
	for (uint32_t i = 0; i < a; i++)
		same += (uint64_t)A[i] * (A[i] ? A[i] - 1 : 0);
	mpq_t x;
	mpq_init(x);
	for (uint32_t q = 1; q <= n; q++) {
		mpq_set_ui(x, q, 1);
		mpq_mul(x, x, bp->v[q]);
		mpq_add(out, out, x);
	}
	mpz_set_ui(mpq_numref(x), nn - same);
	mpz_set_ui(mpq_denref(x), nn);
	mpq_canonicalize(x);
	mpq_mul(out, out, x);
	mpq_mul(out, out, t);
	mpq_clear(x);
	return BOUND_OK;
}

int bound_value(mpq_t out, const struct bound_prog *bp, const uint32_t *A,
                uint32_t a, const mpq_t t, enum bound_method m)
{
	mpq_t r;
	mpq_init(r);
	int rc = bound_s(out, bp, A, a, m);
	if (rc == BOUND_OK)
		rc = bound_r(r, bp, A, a, t);
	if (rc == BOUND_OK) {
		mpq_mul(r, r, bp->z);
		mpq_add(out, out, r);
	} else {
		mpq_set_ui(out, 0, 1);
	}
	mpq_clear(r);
	return rc;
}

void bound_allocations(mpz_t out, uint32_t n, uint32_t k)
{
	/* P[i] = partitions of i into parts of size <= j, for j = 1..k
	 * (conjugate: into at most k parts). */
	mpz_set_ui(out, 0);
	if (k > n)
		k = n;
	mpz_t *P = zarray((size_t)n + 1);
	if (!P)
		return;
	mpz_set_ui(P[0], 1);
	for (uint32_t j = 1; j <= k; j++)
		for (uint32_t i = j; i <= n; i++)
			mpz_add(P[i], P[i], P[i - j]);
	mpz_set(out, P[n]);
	for (uint32_t i = 0; i <= n; i++)
		mpz_clear(P[i]);
	free(P);
}

/* ---------------------------------------------------------------------
 * Program parameters
 */

int bound_prog_init(struct bound_prog *bp, uint32_t n)
{
	memset(bp, 0, sizeof *bp);
	if (n == 0)
		return BOUND_EINVAL;
	if (n > BOUND_MAX_THREADS)
		return BOUND_ETOOBIG;
	bp->v = malloc(((size_t)n + 1) * sizeof *bp->v);
	if (!bp->v)
		return BOUND_ENOMEM;
	bp->n = n;
	for (uint32_t i = 0; i <= n; i++)
		mpq_init(bp->v[i]);
	mpq_init(bp->z);
	mpq_init(bp->T);
	return BOUND_OK;
}

void bound_prog_release(struct bound_prog *bp)
{
	if (!bp || !bp->v) {
		if (bp)
			memset(bp, 0, sizeof *bp);
		return;
	}
	for (uint32_t i = 0; i <= bp->n; i++)
		mpq_clear(bp->v[i]);
	free(bp->v);
	mpq_clear(bp->z);
	mpq_clear(bp->T);
	memset(bp, 0, sizeof *bp);
}

int bound_prog_check(const struct bound_prog *bp)
{
	if (!bp || !bp->v || bp->n == 0 || mpq_sgn(bp->z) < 0)
		return BOUND_EINVAL;
	mpq_t sum;
	mpq_init(sum);
	int ok = 1;
	for (uint32_t i = 0; i <= bp->n; i++) {
		if (mpq_sgn(bp->v[i]) < 0)
			ok = 0;
		mpq_add(sum, sum, bp->v[i]);
	}
	if (mpq_cmp_ui(sum, 1, 1) != 0)
		ok = 0;
	mpq_clear(sum);
	return ok ? BOUND_OK : BOUND_EINVAL;
}
