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
