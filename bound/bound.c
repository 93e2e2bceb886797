/*
 * bound.c - formatting, and the one call for allocation tools.
 */
#include "bound/boundint.h"

#include <stdlib.h>
#include <string.h>

char *bound_qfmt(const mpq_t q, int digits, int dir, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	if (digits < 0)
		digits = 0;
	mpz_t s, num;
	mpz_inits(s, num, NULL);
	mpz_ui_pow_ui(s, 10, (unsigned long)digits);
	mpz_mul(num, mpq_numref(q), s);
	int neg = mpz_sgn(num) < 0;
	if (dir < 0) {
		mpz_fdiv_q(num, num, mpq_denref(q));
	} else if (dir > 0) {
		mpz_cdiv_q(num, num, mpq_denref(q));
	} else {
		/* nearest, half away from zero: |x| -> floor(|x| + 1/2) */
		mpz_abs(num, num);
		mpz_mul_ui(num, num, 2);
		mpz_add(num, num, mpq_denref(q));
		mpz_fdiv_q(num, num, mpq_denref(q));
		mpz_fdiv_q_ui(num, num, 2);
		if (neg)
			mpz_neg(num, num);
	}
	neg = mpz_sgn(num) < 0;
	mpz_abs(num, num);
	mpz_t ip, fp;
	mpz_inits(ip, fp, NULL);
	mpz_fdiv_qr(ip, fp, num, s);
	char *is = mpz_get_str(NULL, 10, ip);
	char frac[64] = "";
	if (digits > 0 && mpz_sgn(fp)) {
		char *fs = mpz_get_str(NULL, 10, fp);
		size_t fl = strlen(fs);
		size_t pad = (size_t)digits > fl ? (size_t)digits - fl : 0;
		if ((size_t)digits < sizeof frac) {
			memset(frac, '0', pad);
			memcpy(frac + pad, fs, fl + 1);
			size_t e = strlen(frac);
			while (e > 0 && frac[e - 1] == '0')
				frac[--e] = 0;
		}
		free(fs);
	}
	snprintf(buf, len, "%s%s%s%s", neg ? "-" : "", is, frac[0] ? "." : "",
	         frac);
	free(is);
	mpz_clears(s, num, ip, fp, NULL);
	return buf;
}

/* A sim_time as an mpq. */
static void q_from_time(mpq_t q, sim_time t)
{
	mpz_import(mpq_numref(q), 1, -1, sizeof t.num, 0, 0, &t.num);
	mpz_import(mpq_denref(q), 1, -1, sizeof t.den, 0, 0, &t.den);
	mpq_canonicalize(q);
}

void bound_trace_opts_init(struct bound_trace_opts *o)
{
	o->max_work = BOUND_WORK_QUICK;
	o->max_seconds = 0.1;
	o->ilp_ms = 100;
	o->ilp_iters = 0;
}

/* a * b / c, saturating; units as the caller's */
static uint64_t muldiv_sat(uint64_t a, uint64_t b, uint64_t c)
{
	bd_u128 x = (bd_u128)a * b / (c ? c : 1);
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

void bound_trace_opts_budget(struct bound_trace_opts *o, const struct trace *tr,
                             uint32_t k, uint64_t tests)
{
	o->max_seconds = 0;
	o->ilp_ms = 1000;
	o->max_work = 0;
	o->ilp_iters = 0;
	if (tests == 0 || !tr)
		return;
	/* the header's share: a tenth of the search's record-equivalents */
	uint64_t per_test = tr->nrec + 4 * (uint64_t)tr->nthreads + 16;
	uint64_t share = muldiv_sat(tests, per_test, 10);
	o->max_work = muldiv_sat(share, BOUND_UNITS_PER_REC, 1);
	if (o->max_work == 0)
		o->max_work = 1;
	/* a GLPK iteration costs about BOUND_GLPK_COST x threads x k (the
	 * integer program has threads x k columns); GLPK gets what the
	 * header's fixed parts (parameters, relaxed critical path, about
	 * BOUND_FIXED_PER_REC per record) leave of the share */
	uint64_t nk = (uint64_t)tr->nthreads * (k ? k : 1);
	uint64_t fixed = muldiv_sat(tr->nrec, BOUND_FIXED_PER_REC, 1);
	o->ilp_iters = share > fixed ? muldiv_sat(share - fixed, 1, nk * BOUND_GLPK_COST) : 0;
	if (o->ilp_iters == 0)
		o->ilp_iters = 1;
}

int bound_for_trace(const struct trace *tr, uint32_t k, uint64_t latency,
                    struct bound_result *out)
{
	return bound_for_trace_opts(tr, k, latency, NULL, out);
}

int bound_for_trace_lower(const struct trace *tr, uint32_t k, uint64_t latency,
                          const struct bound_trace_opts *to, struct bound_result *out)
{
	memset(out, 0, sizeof *out);
	struct bound_trace_opts dto;
	if (!to) {
		bound_trace_opts_init(&dto);
		to = &dto;
	}
	if (!tr || k == 0)
		return BOUND_EINVAL;
	struct bound_lower lo;
	int rc = bound_lower_partition(tr, k, to->ilp_ms ? to->ilp_ms : 1000, to->ilp_iters, &lo);
	if (rc != BOUND_OK)
		return rc;
	mpq_t b;
	mpq_init(b);
	q_from_time(b, lo.lower);
	bound_qfmt(b, 3, -1, out->lower_str, sizeof out->lower_str);
	mpq_clear(b);
	out->k = k;
	out->latency = latency;
	out->lower = strtod(out->lower_str, NULL);
	out->lower_exact_partition = lo.part_lb == lo.part_ub;
	out->lower_any = lo.work_max > lo.part_lb ? lo.work_max : lo.part_lb;
	out->part_timeout = lo.part_timeout;
	out->part_itercap = lo.part_itercap;
	return BOUND_OK;
}

int bound_for_trace_upper(const struct trace *tr, uint32_t k, uint64_t latency,
                          const struct bound_trace_opts *to, struct bound_result *out)
{
	struct bound_trace_opts dto;
	if (!to) {
		bound_trace_opts_init(&dto);
		to = &dto;
	}
	struct bound_opts po;
	bound_opts_init(&po);
	po.max_work = to->max_work;
	po.max_seconds = to->max_seconds;
	if (!tr || k == 0 || out->k != k || out->latency != latency)
		return BOUND_EINVAL;
	struct bound_prog bp;
	int rc = bound_prog_from_trace(tr, &bp);
	if (rc)
		return rc;
	mpq_t t, b;
	mpq_inits(t, b, NULL);
	mpz_import(mpq_numref(t), 1, -1, sizeof latency, 0, 0, &latency);
	struct bound_pres pr;
	memset(&pr, 0, sizeof pr);
	/* the printed lower bound: the search's part, raised to the relaxed
	 * critical path (bound_lower_capped's) */
	struct bound_lower lo;
	memset(&lo, 0, sizeof lo);
	lo.lower = sim_time_int(out->lower_any);
	/* the relaxed critical path is a lower bound under the Direct model
	 * only (docs/bound.md); a trace that needs client-server keeps the
	 * parts that hold under every model */
	rc = bp.model == SIM_DIRECT ? bound_lower_path(tr, &lo) : BOUND_OK;
	if (rc == BOUND_OK)
		rc = bound_p(&bp, k, t, &po, &pr);
	if (rc == BOUND_OK) {
		q_from_time(b, lo.lower);
		bound_qfmt(b, 3, -1, out->lower_str, sizeof out->lower_str);
		out->lower = strtod(out->lower_str, NULL);
		out->n = bp.n;
		out->z = mpq_get_d(bp.z);
		out->T = mpq_get_d(bp.T);
		char buf[64];
		/* p rounded up to 1e-9, so that the double stays an upper bound
		 * up to the double's own rounding */
		out->p = strtod(bound_qfmt(pr.p, 9, 1, buf, sizeof buf), NULL);
		mpq_mul(b, pr.p, bp.T);
		bound_qfmt(b, 3, 1, out->bound_str, sizeof out->bound_str);
		out->bound = strtod(out->bound_str, NULL);
		out->classes = pr.classes;
		out->thick = pr.thick;
		out->work = pr.work;
		out->capped = pr.capped;
	}
	bound_pres_release(&pr);
	bound_prog_release(&bp);
	mpq_clears(t, b, NULL);
	return rc;
}

int bound_for_trace_opts(const struct trace *tr, uint32_t k, uint64_t latency,
                         const struct bound_trace_opts *to,
                         struct bound_result *out)
{
	/* the lower bound first: it is the part that can stop a search */
	int rc = bound_for_trace_lower(tr, k, latency, to, out);
	if (rc == BOUND_OK)
		rc = bound_for_trace_upper(tr, k, latency, to, out);
	if (rc != BOUND_OK)
		memset(out, 0, sizeof *out);
	return rc;
}
