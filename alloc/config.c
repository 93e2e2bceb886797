/* config.c - the INI configuration of the search (cli/ini.h) and the
 * value parsers shared with the command line. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "cli/cli.h"
#include "cli/ini.h"

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

/* The binpacking inputs by name (enum alloc_input). */
static const char *const input_names[] = {
	[ALLOC_INPUT_WORK] = "work",
	[ALLOC_INPUT_LIFETIME] = "lifetime",
	[ALLOC_INPUT_ELAPSED] = "elapsed",
};
#define NINPUTS (sizeof input_names / sizeof *input_names)

const char *alloc_input_name(enum alloc_input in)
{
	return (size_t)in < NINPUTS ? input_names[in] : "?";
}

int alloc_parse_input(const char *s, enum alloc_input *out)
{
	for (size_t i = 0; s && i < NINPUTS; i++)
		if (strcmp(s, input_names[i]) == 0) {
			*out = (enum alloc_input)i;
			return 0;
		}
	return -1;
}

int alloc_input_opt(void *dst, const char *v, char *why, size_t len)
{
	if (alloc_parse_input(v, dst)) {
		snprintf(why, len, "is not a binpacking input (work, lifetime, elapsed)");
		return -1;
	}
	return 0;
}

const char alloc_pool_help[] =
	"these threads are the interchangeable workers of a\n"
	"work queue (ids and ranges, 2-4,7, or a thread name):\n"
	"they take the recorded tasks in recorded order,\n"
	"whichever gets the queue's mutex next (docs/models.md,\n"
	"Work queues); Direct model only";

void alloc_machine_params(const struct cli_machine *m, struct sim_params *par)
{
	par->latency = m->latency_tu;
	par->create_cost = m->create_cost_tu;
	par->switch_cost = m->switch_cost_tu;
	if (m->k)
		par->cpus = m->k;
	if (m->unbound)
		par->mode = SIM_UNBOUND;
}

int alloc_policy_opt(void *dst, const char *v, char *why, size_t len)
{
	if (sim_policy_parse(v, dst)) {
		snprintf(why, len, "is not a policy (ps, fifo, rr:Q with Q >= 1)");
		return -1;
	}
	return 0;
}

int alloc_model_opt(void *dst, const char *v, char *why, size_t len)
{
	if (alloc_parse_model(v, dst)) {
		snprintf(why, len, "is not a model (direct, client-server, strict, auto)");
		return -1;
	}
	return 0;
}

static const char *const search_keys[] = {
	"algorithm", "stop_after", "max_tests", "time_limit", "seed",
	"restarts", "binpack_input", NULL
};

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Value of [sec] key, or NULL; *line its line. */
static const char *get(const struct cli_ini *ini, const char *sec,
                       const char *key, size_t *line)
{
	const struct cli_ini_entry *e = cli_ini_get(ini, sec, key);
	*line = e ? e->line : 0;
	return e ? e->value : NULL;
}

static int known(const char *const *keys, const char *k)
{
	for (; *keys; keys++)
		if (strcmp(*keys, k) == 0)
			return 1;
	return 0;
}

static const char *q(const char *s, char *buf, size_t len)
{
	return cli_quote(s, strlen(s), buf, len);
}

/* Every key of [machine] and [search] is one we know. */
static int check_keys(const struct cli_ini *ini, char *err, size_t len)
{
	for (size_t i = 0; i < ini->n; i++) {
		const struct cli_ini_entry *e = &ini->e[i];
		const char *const *keys = !e->key ? NULL
		                          : !strcmp(e->section, "machine") ? machine_keys
		                          : !strcmp(e->section, "search") ? search_keys : NULL;
		char b[160];
		if (keys && !known(keys, e->key))
			return fail(err, len, "%s:%zu: [%s] %s: unknown key", ini->name,
			            e->line, e->section, q(e->key, b, 80));
	}
	return 0;
}

static int u64_key(const struct cli_ini *ini, const char *sec, const char *key,
                   uint64_t min, uint64_t max, uint64_t *out, char *err,
                   size_t len)
{
	size_t line;
	const char *v = get(ini, sec, key, &line);
	if (!v)
		return 0;
	uint64_t x;
	char b[160];
	if (trace_parse_u64(v, max, &x) != 0 || x < min)
		return fail(err, len, "%s:%zu: [%s] %s: '%s' is not an integer in "
		            "%llu..%llu", ini->name, line, sec, key, q(v, b, 80),
		            (unsigned long long)min, (unsigned long long)max);
	*out = x;
	return 0;
}

int alloc_config_apply(const struct cli_ini *ini, struct alloc_params *par,
                       char *err, size_t errlen)
{
	if (check_keys(ini, err, errlen))
		return -1;
	uint64_t v;
	const char *s;
	size_t line;
	char b[160];

	v = par->sim.cpus;
	if (u64_key(ini, "machine", "cpus", 1, CLI_CPUS_MAX, &v, err, errlen))
		return -1;
	par->sim.cpus = (uint32_t)v;
	if (u64_key(ini, "machine", "latency", 0, TRACE_WORK_LIMIT - 1,
	            &par->sim.latency, err, errlen) ||
	    u64_key(ini, "machine", "create_cost", 0, TRACE_WORK_LIMIT - 1,
	            &par->sim.create_cost, err, errlen) ||
	    u64_key(ini, "machine", "switch_cost", 0, TRACE_WORK_LIMIT - 1,
	            &par->sim.switch_cost, err, errlen))
		return -1;
	if ((s = get(ini, "machine", "policy", &line)) && sim_policy_parse(s, &par->sim))
		return fail(err, errlen, "%s:%zu: [machine] policy: '%s' is not a "
		            "policy (ps, fifo, rr:Q with Q >= 1)", ini->name, line,
		            q(s, b, 80));
	if ((s = get(ini, "machine", "model", &line)) &&
	    alloc_parse_model(s, &par->sim.model))
		return fail(err, errlen, "%s:%zu: [machine] model: '%s' is not a "
		            "model (direct, client-server, strict, auto)", ini->name,
		            line, q(s, b, 80));
	if ((s = get(ini, "search", "algorithm", &line))) {
		if (alloc_algorithm_find(s) < 0)
			return fail(err, errlen, "%s:%zu: [search] algorithm: '%s' is "
			            "not an algorithm (see --list-algorithms)",
			            ini->name, line, q(s, b, 80));
		snprintf(par->algorithm, sizeof par->algorithm, "%s", s);
	}
	if (u64_key(ini, "search", "stop_after", 0, UINT64_MAX, &par->stop_after,
	            err, errlen) ||
	    u64_key(ini, "search", "max_tests", 0, UINT64_MAX, &par->max_tests,
	            err, errlen) ||
	    u64_key(ini, "search", "seed", 0, UINT64_MAX, &par->seed, err, errlen))
		return -1;
	v = par->restarts;
	if (u64_key(ini, "search", "restarts", 0, UINT32_MAX, &v, err, errlen))
		return -1;
	par->restarts = (uint32_t)v;
	if ((s = get(ini, "search", "binpack_input", &line)) &&
	    alloc_parse_input(s, &par->binpack_input))
		return fail(err, errlen, "%s:%zu: [search] binpack_input: '%s' is not "
		            "a binpacking input (work, lifetime, elapsed)", ini->name,
		            line, q(s, b, 80));
	if ((s = get(ini, "search", "time_limit", &line)) &&
	    alloc_parse_seconds(s, &par->time_limit))
		return fail(err, errlen, "%s:%zu: [search] time_limit: '%s' is not a "
		            "non-negative number of seconds", ini->name, line, q(s, b, 80));
	return 0;
}
