/* config.c - the INI configuration of the search (iniparser dictionary)
 * and the value parsers shared with the command line. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iniparser/iniparser.h>

#include "alloc/alloc.h"

int alloc_parse_seconds(const char *s, double *out)
{
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || errno || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

static const char *const machine_keys[] = {
	"cpus", "latency", "policy", "create_cost", "switch_cost", "model", NULL
};

int alloc_parse_model(const char *s, enum sim_model *out)
{
	static const enum sim_model all[] = {SIM_DIRECT, SIM_CLIENT_SERVER,
	                                     SIM_STRICT, SIM_AUTO};
	for (size_t i = 0; s && i < sizeof all / sizeof *all; i++)
		if (strcmp(s, sim_model_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	return -1;
}
static const char *const search_keys[] = {
	"algorithm", "stop_after", "max_tests", "time_limit", "seed",
	"restarts", NULL
};

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Value of [sec] key, or NULL. */
static const char *get(const dictionary *d, const char *sec, const char *key)
{
	char full[128];
	snprintf(full, sizeof full, "%s:%s", sec, key);
	return iniparser_getstring(d, full, NULL);
}

static int known(const char *const *keys, const char *k)
{
	for (; *keys; keys++)
		if (strcmp(*keys, k) == 0)
			return 1;
	return 0;
}

/* Check that every key of section `sec` is one of `keys`. */
static int check_keys(const dictionary *d, const char *fname,
                      const char *sec, const char *const *keys, char *err,
                      size_t len)
{
	int nk = iniparser_getsecnkeys(d, sec);
	if (nk <= 0)
		return 0;
	const char **names = calloc((size_t)nk, sizeof *names);
	if (!names)
		return fail(err, len, "%s: out of memory", fname);
	int r = 0;
	if (iniparser_getseckeys(d, sec, names)) {
		size_t sl = strlen(sec);
		for (int i = 0; i < nk && r == 0; i++) {
			const char *k = names[i] + sl + 1; /* "sec:key" */
			if (!known(keys, k))
				r = fail(err, len, "%s: [%s] %s: unknown key", fname,
				         sec, k);
		}
	}
	free(names);
	return r;
}

static int u64_key(const dictionary *d, const char *fname, const char *sec,
                   const char *key, uint64_t min, uint64_t max, uint64_t *out,
                   char *err, size_t len)
{
	const char *v = get(d, sec, key);
	if (!v)
		return 0;
	uint64_t x;
	if (trace_parse_u64(v, UINT64_MAX, &x) != 0)
		return fail(err, len, "%s: [%s] %s: '%s' is not a non-negative "
		            "integer", fname, sec, key, v);
	if (x < min || x > max)
		return fail(err, len, "%s: [%s] %s: '%s' is out of range "
		            "(%llu..%llu)", fname, sec, key, v,
		            (unsigned long long)min, (unsigned long long)max);
	*out = x;
	return 0;
}

int alloc_config_apply(const dictionary *d, const char *fname,
                       struct alloc_params *par, char *err, size_t errlen)
{
	if (check_keys(d, fname, "machine", machine_keys, err, errlen) ||
	    check_keys(d, fname, "search", search_keys, err, errlen))
		return -1;
	uint64_t v;
	const char *s;

	v = par->sim.cpus;
	if (u64_key(d, fname, "machine", "cpus", 1, 65536, &v, err, errlen))
		return -1;
	par->sim.cpus = (uint32_t)v;
	if (u64_key(d, fname, "machine", "latency", 0, (1ull << 62) - 1,
	            &par->sim.latency, err, errlen) ||
	    u64_key(d, fname, "machine", "create_cost", 0, (1ull << 62) - 1,
	            &par->sim.create_cost, err, errlen) ||
	    u64_key(d, fname, "machine", "switch_cost", 0, (1ull << 62) - 1,
	            &par->sim.switch_cost, err, errlen))
		return -1;
	if ((s = get(d, "machine", "policy")) && sim_policy_parse(s, &par->sim))
		return fail(err, errlen, "%s: [machine] policy: '%s' is not a "
		            "policy (ps, fifo, rr:Q)", fname, s);

	if ((s = get(d, "machine", "model")) &&
	    alloc_parse_model(s, &par->sim.model))
		return fail(err, errlen, "%s: [machine] model: '%s' is not a "
		            "model (direct, client-server, strict, auto)", fname, s);

	if ((s = get(d, "search", "algorithm"))) {
		if (alloc_algorithm_find(s) < 0)
			return fail(err, errlen, "%s: [search] algorithm: '%s' is "
			            "not an algorithm (see --list-algorithms)",
			            fname, s);
		snprintf(par->algorithm, sizeof par->algorithm, "%s", s);
	}
	if (u64_key(d, fname, "search", "stop_after", 0, UINT64_MAX,
	            &par->stop_after, err, errlen) ||
	    u64_key(d, fname, "search", "max_tests", 0, UINT64_MAX,
	            &par->max_tests, err, errlen) ||
	    u64_key(d, fname, "search", "seed", 0, UINT64_MAX, &par->seed, err,
	            errlen))
		return -1;
	v = par->restarts;
	if (u64_key(d, fname, "search", "restarts", 0, UINT32_MAX, &v, err,
	            errlen))
		return -1;
	par->restarts = (uint32_t)v;
	if ((s = get(d, "search", "time_limit")) &&
	    alloc_parse_seconds(s, &par->time_limit))
		return fail(err, errlen, "%s: [search] time_limit: '%s' is not a "
		            "non-negative number of seconds", fname, s);
	return 0;
}
