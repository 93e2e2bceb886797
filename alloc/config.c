/* config.c - the INI configuration of the search (cli/ini.h): [machine]
 * from the machine's vocabulary (CLI_MACHINE_ROWS, cli.h), [search]. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "cli/cli.h"
#include "cli/ini.h"

/* [machine]: the keys of the machine's vocabulary (CLI_MACHINE_ROWS,
 * cli.h), each with its kind and its member of struct sim_params. */
enum mkind { MK_CPUS, MK_TIME, MK_POLICY, MK_MODEL };
static const struct mkey {
	const char *key;
	enum mkind kind;
	size_t off; /* offsetof(struct sim_params, FIELD) */
} mkeys[] = {
#define MKEY_(A, ID, KIND, OPT, SH, KEY, FIELD, MV, HELP) MKEY_##KIND(KEY, FIELD)
#define MKEY_ROW(KEY, KIND, FIELD) \
	{.key = KEY, .kind = KIND, .off = offsetof(struct sim_params, FIELD)},
#define MKEY_CPUS(KEY, FIELD) MKEY_ROW(KEY, MK_CPUS, FIELD)
#define MKEY_TIME(KEY, FIELD) MKEY_ROW(KEY, MK_TIME, FIELD)
#define MKEY_POLICY(KEY, FIELD) MKEY_ROW(KEY, MK_POLICY, FIELD)
#define MKEY_MODEL(KEY, FIELD) MKEY_ROW(KEY, MK_MODEL, FIELD)
#define MKEY_FILE(KEY, FIELD)
#define MKEY_STR(KEY, FIELD)
#define MKEY_FLAG(KEY, FIELD)
#define MKEY_MACHFILE(KEY, FIELD)
	CLI_MACHINE_ROWS(MKEY_, 0)
};
#define NMKEYS (sizeof mkeys / sizeof *mkeys)

/* [machine]'s keys that name a machine file (MACHFILE rows): known, and
 * left to the command, which reads the file with the trace. */
static const char *const file_keys[] = {
#define FKEY_(A, ID, KIND, OPT, SH, KEY, FIELD, MV, HELP) FKEY_##KIND(KEY)
#define FKEY_MACHFILE(KEY) KEY,
#define FKEY_CPUS(KEY)
#define FKEY_TIME(KEY)
#define FKEY_POLICY(KEY)
#define FKEY_MODEL(KEY)
#define FKEY_FILE(KEY)
#define FKEY_STR(KEY)
#define FKEY_FLAG(KEY)
	CLI_MACHINE_ROWS(FKEY_, 0) NULL
};

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

static int machine_key(const char *k)
{
	if (known(file_keys, k))
		return 1;
	for (size_t i = 0; i < NMKEYS; i++)
		if (strcmp(mkeys[i].key, k) == 0)
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
		int unknown = !e->key ? 0
		              : !strcmp(e->section, "machine") ? !machine_key(e->key)
		              : !strcmp(e->section, "search") ? !known(search_keys, e->key)
		              : 0;
		char b[160];
		if (unknown)
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

/* The [machine] key k, when the file gives it, into par. */
static int machine_apply(const struct cli_ini *ini, const struct mkey *k,
                         struct sim_params *par, char *err, size_t len)
{
	size_t line;
	const char *s = get(ini, "machine", k->key, &line);
	char b[160];
	void *dst = (char *)par + k->off;
	uint64_t v;
	switch (k->kind) {
	case MK_CPUS:
		v = *(uint32_t *)dst;
		if (u64_key(ini, "machine", k->key, 1, CLI_CPUS_MAX, &v, err, len))
			return -1;
		*(uint32_t *)dst = (uint32_t)v;
		return 0;
	case MK_TIME: /* trace units */
		return u64_key(ini, "machine", k->key, 0, TRACE_WORK_LIMIT - 1,
		               dst, err, len);
	case MK_POLICY:
	case MK_MODEL:
		if (s && (k->kind == MK_POLICY ? sim_policy_parse(s, par)
		                               : sim_model_parse(s, dst)))
			return fail(err, len, "%s:%zu: [machine] %s: '%s' is not a %s",
			            ini->name, line, k->key, q(s, b, 80),
			            k->kind == MK_POLICY ? "policy (" SIM_POLICY_SYNTAX ")"
			                                 : "model (" SIM_MODEL_SYNTAX ")");
		return 0;
	}
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

	for (size_t i = 0; i < NMKEYS; i++)
		if (machine_apply(ini, &mkeys[i], &par->sim, err, errlen))
			return -1;
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
		            "a binpacking input (" ALLOC_INPUT_SYNTAX ")", ini->name,
		            line, q(s, b, 80));
	if ((s = get(ini, "search", "time_limit", &line)) &&
	    cli_parse_seconds(s, &par->time_limit))
		return fail(err, errlen, "%s:%zu: [search] time_limit: '%s' is not a "
		            "non-negative number of seconds", ini->name, line, q(s, b, 80));
	return 0;
}
