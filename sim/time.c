/* time.c - exact times and simulation parameters. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/simint.h"

int sim_time_cmp(sim_time a, sim_time b)
{
	return st_cmp(a, b);
}

double sim_time_to_double(sim_time t)
{
	return (double)t.num / (double)t.den;
}

char *sim_time_format(sim_time t, char *buf, size_t len)
{
	if (t.den == 1)
		snprintf(buf, len, "%" PRIu64, t.num);
	else
		snprintf(buf, len, "%" PRIu64 "/%" PRIu64, t.num, t.den);
	return buf;
}

char *sim_time_format_dec(sim_time t, char *buf, size_t len)
{
	if (t.den == 1) {
		snprintf(buf, len, "%" PRIu64, t.num);
		return buf;
	}
	/* Round half up to 3 decimals, exactly. */
	uint64_t ip = t.num / t.den, rem = t.num % t.den;
	st_u128 frac = ((st_u128)rem * 1000 * 2 + t.den) / ((st_u128)t.den * 2);
	if (frac >= 1000) {
		ip++;
		frac -= 1000;
	}
	snprintf(buf, len, "%" PRIu64 ".%03u", ip, (unsigned)frac);
	return buf;
}

void sim_params_init(struct sim_params *p)
{
	memset(p, 0, sizeof *p);
	p->cpus = 1;
	p->mode = SIM_BOUND;
	p->policy = SIM_PS;
	p->quantum = 1;
	p->model = SIM_DIRECT;
}

int sim_policy_parse(const char *s, struct sim_params *p)
{
	if (strcmp(s, "ps") == 0) {
		p->policy = SIM_PS;
		return 0;
	}
	if (strcmp(s, "fifo") == 0) {
		p->policy = SIM_FIFO;
		return 0;
	}
	if (strncmp(s, "rr:", 3) == 0) {
		const char *q = s + 3;
		uint64_t v = 0;
		if (!*q)
			return -1;
		for (; *q; q++) {
			if (*q < '0' || *q > '9' || v > (TRACE_WORK_LIMIT - 1) / 10)
				return -1;
			v = v * 10 + (uint64_t)(*q - '0');
		}
		if (v == 0 || v >= TRACE_WORK_LIMIT)
			return -1;
		p->policy = SIM_RR;
		p->quantum = v;
		return 0;
	}
	return -1;
}

char *sim_policy_format(const struct sim_params *p, char *buf, size_t len)
{
	switch (p->policy) {
	case SIM_FIFO:
		snprintf(buf, len, "fifo");
		break;
	case SIM_RR:
		snprintf(buf, len, "rr:%" PRIu64, p->quantum);
		break;
	default:
		snprintf(buf, len, "ps");
	}
	return buf;
}

const char *sim_model_name(enum sim_model m)
{
	switch (m) {
	case SIM_DIRECT:
		return "direct";
	case SIM_CLIENT_SERVER:
		return "client-server";
	case SIM_STRICT:
		return "strict";
	case SIM_AUTO:
		return "auto";
	}
	return "?";
}

int sim_model_parse(const char *s, enum sim_model *out)
{
	for (int m = SIM_DIRECT; s && m <= SIM_AUTO; m++)
		if (strcmp(s, sim_model_name((enum sim_model)m)) == 0) {
			*out = (enum sim_model)m;
			return 0;
		}
	return -1;
}
