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
	for (int c = 0; c < SIM_NPOLICIES; c++) {
		const struct sim_class *cls = sim_classes[c];
		size_t n = strlen(cls->name);
		if (strncmp(s, cls->name, n) != 0)
			continue;
		if (!cls->quantum) {
			if (s[n])
				continue;
			p->policy = (enum sim_policy)c;
			return 0;
		}
		if (s[n] != ':' || !s[n + 1]) /* NAME:Q, Q >= 1 */
			continue;
		uint64_t v = 0;
		for (const char *q = s + n + 1; *q; q++) {
			if (*q < '0' || *q > '9' || v > (TRACE_WORK_LIMIT - 1) / 10)
				return -1;
			v = v * 10 + (uint64_t)(*q - '0');
		}
		if (v == 0 || v >= TRACE_WORK_LIMIT)
			return -1;
		p->policy = (enum sim_policy)c;
		p->quantum = v;
		return 0;
	}
	return -1;
}

char *sim_policy_format(const struct sim_params *p, char *buf, size_t len)
{
	const struct sim_class *cls = (unsigned)p->policy < SIM_NPOLICIES
	                              ? sim_classes[p->policy] : sim_classes[SIM_PS];
	if (cls->quantum)
		snprintf(buf, len, "%s:%" PRIu64, cls->name, p->quantum);
	else
		snprintf(buf, len, "%s", cls->name);
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
