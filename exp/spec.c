/* spec.c - the experiment file: sections, keys and their values
 * (docs/exp.md, "The experiment file"). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/ini.h"
#include "exp/exp.h"
#include "trace/trace.h"

struct pstate {
	struct exp_spec *s;
	const char *fname;
	struct exp_list famlist, alglist; /* from [programs], [run]      */
	unsigned famline, algline;
	int have_threads;
	struct exp_list threads;          /* [programs] threads          */
	int famdef[EXP_MAX_FAMILIES];     /* defined by a section        */
	int vardef[EXP_MAX_VARIANTS];
};

/* One printable line, whatever the file's bytes. */
static void printable(char *err, size_t len)
{
	for (char *c = err; len && *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	printable(err, len);
	return EXP_EINVAL;
}

int exp_ini_parse(const char *buf, size_t len, const char *fname,
                  exp_ini_fn cb, void *arg, char *err, size_t errlen)
{
	struct cli_ini ini;
	if (cli_ini_parse_flags(fname, buf, len, CLI_INI_REPEATS, &ini, err,
	                        errlen)) {
		printable(err, errlen);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; !rc && i < ini.n; i++) {
		const struct cli_ini_entry *e = &ini.e[i];
		if (!e->key)
			continue;
		for (const char *c = e->value; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t') {
				fail(err, errlen, "%s:%zu: control character",
				     fname, e->line);
				rc = -1;
				break;
			}
		if (!rc)
			rc = cb(arg, e->section, e->key, e->value,
			        (unsigned)e->line, err, errlen);
	}
	cli_ini_release(&ini);
	return rc;
}

static void list_clear(struct exp_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

static int list_add(struct exp_list *l, const char *a, size_t n)
{
	if (l->n >= EXP_MAX_VALUES)
		return EXP_EINVAL;
	char *v = malloc(n + 1);
	if (!v)
		return EXP_ENOMEM;
	memcpy(v, a, n);
	v[n] = 0;
	l->v[l->n++] = v;
	return EXP_OK;
}

/* "A..B" or "A..B/S" (decimal), expanded. */
static int range(const char *v, uint64_t *a, uint64_t *b, uint64_t *st)
{
	char x[32], y[32], z[32] = "1";
	const char *dots = strstr(v, "..");
	if (!dots || dots == v || (size_t)(dots - v) >= sizeof x)
		return 0;
	memcpy(x, v, (size_t)(dots - v));
	x[dots - v] = 0;
	const char *sl = strchr(dots + 2, '/');
	size_t ylen = sl ? (size_t)(sl - dots - 2) : strlen(dots + 2);
	if (ylen == 0 || ylen >= sizeof y || (sl && strlen(sl + 1) >= sizeof z))
		return 0;
	memcpy(y, dots + 2, ylen);
	y[ylen] = 0;
	if (sl)
		strcpy(z, sl + 1);
	if (trace_parse_u64(x, UINT64_MAX, a) || trace_parse_u64(y, UINT64_MAX, b) ||
	    trace_parse_u64(z, UINT64_MAX, st) || *st == 0 || *a > *b)
		return 0;
	return 1;
}

/* Split "a, b, c" into l (replacing it); ranges expanded. */
static int split(struct exp_list *l, const char *val, const char *where,
                 char *err, size_t errlen)
{
	list_clear(l);
	const char *p = val;
	for (;;) {
		const char *c = strchr(p, ',');
		const char *a = p, *b = c ? c : p + strlen(p);
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (a == b)
			return fail(err, errlen, "%s: empty value in list", where);
		char one[128];
		uint64_t x, y, st;
		if ((size_t)(b - a) < sizeof one) {
			memcpy(one, a, (size_t)(b - a));
			one[b - a] = 0;
		} else {
			one[0] = 0;
		}
		if (one[0] && range(one, &x, &y, &st)) {
			for (uint64_t v = x; v <= y; v += st) {
				char num[24];
				int n = snprintf(num, sizeof num, "%llu",
				                 (unsigned long long)v);
				int r = list_add(l, num, (size_t)n);
				if (r == EXP_EINVAL)
					return fail(err, errlen,
					            "%s: more than %d values", where,
					            EXP_MAX_VALUES);
				if (r)
					return r;
				if (y - v < st)
					break;
			}
		} else {
			int r = list_add(l, a, (size_t)(b - a));
			if (r == EXP_EINVAL)
				return fail(err, errlen, "%s: more than %d values",
				            where, EXP_MAX_VALUES);
			if (r)
				return r;
		}
		if (!c)
			return EXP_OK;
		p = c + 1;
	}
}

static int u64(const char *val, uint64_t max, uint64_t *out,
               const char *where, char *err, size_t errlen)
{
	if (trace_parse_u64(val, max, out))
		return fail(err, errlen, "%s: '%s' is not an integer in [0, %llu]",
		            where, val, (unsigned long long)max);
	return EXP_OK;
}

static int flag(const char *val, int *out, const char *where, char *err,
                size_t errlen)
{
	uint64_t v;
	if (trace_parse_u64(val, 1, &v))
		return fail(err, errlen, "%s: '%s' is not 0 or 1", where, val);
	*out = (int)v;
	return EXP_OK;
}

static int input(const char *val, enum alloc_input *out, const char *where,
                 char *err, size_t errlen)
{
	if (alloc_parse_input(val, out))
		return fail(err, errlen, "%s: '%s' is not a binpacking input "
		            "(" ALLOC_INPUT_SYNTAX ")", where, val);
	return EXP_OK;
}

/* Check every element of l with a u64 limit. */
static int u64_list(const struct exp_list *l, uint64_t min, uint64_t max,
                    const char *where, char *err, size_t errlen)
{
	for (size_t i = 0; i < l->n; i++) {
		uint64_t v;
		if (trace_parse_u64(l->v[i], max, &v) || v < min)
			return fail(err, errlen,
			            "%s: '%s' is not an integer in [%llu, %llu]",
			            where, l->v[i], (unsigned long long)min,
			            (unsigned long long)max);
	}
	return EXP_OK;
}

static struct exp_family *family(struct pstate *ps, const char *name,
                                 int def, const char *where, char *err,
                                 size_t errlen, int *rc)
{
	struct exp_spec *s = ps->s;
	for (size_t i = 0; i < s->nfam; i++)
		if (strcmp(s->fam[i].name, name) == 0) {
			if (def)
				ps->famdef[i] = 1;
			return &s->fam[i];
		}
	if (!gen_family_find(name)) {
		*rc = fail(err, errlen, "%s: '%s' is not a family", where, name);
		return NULL;
	}
	if (s->nfam >= EXP_MAX_FAMILIES) {
		*rc = fail(err, errlen, "%s: more than %d families", where,
		           EXP_MAX_FAMILIES);
		return NULL;
	}
	struct exp_family *f = &s->fam[s->nfam];
	ps->famdef[s->nfam++] = def;
	snprintf(f->name, sizeof f->name, "%s", name);
	return f;
}

static struct exp_variant *variant(struct pstate *ps, const char *name,
                                   int def, const char *where, char *err,
                                   size_t errlen, int *rc)
{
	struct exp_spec *s = ps->s;
	for (size_t i = 0; i < s->nvar; i++)
		if (strcmp(s->var[i].name, name) == 0) {
			if (def)
				ps->vardef[i] = 1;
			return &s->var[i];
		}
	if (strlen(name) >= EXP_NAME_MAX || !*name ||
	    strcspn(name, ",\"@ \t") != strlen(name)) {
		*rc = fail(err, errlen,
		           "%s: '%s' is not a name (at most %d bytes, no "
		           "comma, quote, @ or blank)", where, name,
		           EXP_NAME_MAX - 1);
		return NULL;
	}
	if (s->nvar >= EXP_MAX_VARIANTS) {
		*rc = fail(err, errlen, "%s: more than %d algorithms", where,
		           EXP_MAX_VARIANTS);
		return NULL;
	}
	struct exp_variant *v = &s->var[s->nvar];
	ps->vardef[s->nvar++] = def;
	snprintf(v->name, sizeof v->name, "%s", name);
	snprintf(v->algorithm, sizeof v->algorithm, "%s", name);
	v->stop_after = 100;
	return v;
}

/* Is `key` an option of family f (or a common one)? */
static int gen_option_known(const char *fam, const char *key)
{
	const struct gen_family *f = gen_family_find(fam);
	for (size_t i = 0; f && i < f->nparams; i++)
		if (strcmp(f->params[i].name, key) == 0)
			return 1;
	for (size_t i = 0; i < gen_common_count(); i++)
		if (strcmp(gen_common_at(i)->name, key) == 0)
			return 1;
	return 0;
}

/* Is `key` one of [machine]'s (the machine's vocabulary, CLI_MACHINE_ROWS
 * in cli.h: the rows with an INI key)? */
static int machine_key(const char *key)
{
#define MKEY_(A, ID, KIND, OPT, SH, KEY, ...) KEY,
	static const char *const keys[] = {CLI_MACHINE_ROWS(MKEY_, 0)};
#undef MKEY_
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (keys[i] && strcmp(keys[i], key) == 0)
			return 1;
	return 0;
}

static int on_key(void *arg, const char *sec, const char *key,
                  const char *val, unsigned line, char *err, size_t errlen)
{
	struct pstate *ps = arg;
	struct exp_spec *s = ps->s;
	char where[512];
	snprintf(where, sizeof where, "%s:%u: [%.100s] %.100s", ps->fname, line,
	         sec, key);
	int rc = EXP_OK;
	if (strcmp(sec, "experiment") == 0) {
		if (strcmp(key, "name") == 0) {
			if (strlen(val) >= EXP_NAME_MAX || !*val)
				return fail(err, errlen, "%s: 1 to %d bytes", where,
				            EXP_NAME_MAX - 1);
			snprintf(s->name, sizeof s->name, "%s", val);
			return EXP_OK;
		}
		if (strcmp(key, "output") == 0) {
			free(s->output);
			s->output = strdup(val);
			return s->output ? EXP_OK : EXP_ENOMEM;
		}
	} else if (strcmp(sec, "programs") == 0) {
		if (strcmp(key, "family") == 0) {
			ps->famline = line;
			return split(&ps->famlist, val, where, err, errlen);
		}
		if (strcmp(key, "threads") == 0) {
			ps->have_threads = 1;
			if ((rc = split(&ps->threads, val, where, err, errlen)))
				return rc;
			return u64_list(&ps->threads, 0, 1u << 20, where, err,
			                errlen);
		}
		if (strcmp(key, "count") == 0)
			return u64(val, 1000000, &s->count, where, err, errlen);
		if (strcmp(key, "seed") == 0)
			return u64(val, UINT64_MAX, &s->seed, where, err, errlen);
		if (strcmp(key, "traces") == 0) {
			free(s->traces);
			s->traces = strdup(val);
			return s->traces ? EXP_OK : EXP_ENOMEM;
		}
	} else if (strncmp(sec, "family.", 7) == 0) {
		struct exp_family *f = family(ps, sec + 7, 1, where, err, errlen,
		                              &rc);
		if (!f)
			return rc;
		if (strcmp(key, "threads") == 0) {
			if ((rc = split(&f->threads, val, where, err, errlen)))
				return rc;
			return u64_list(&f->threads, 0, 1u << 20, where, err,
			                errlen);
		}
		if (strcmp(key, "count") == 0) {
			if ((rc = u64(val, 1000000, &f->count, where, err, errlen)))
				return rc;
			if (f->count == 0)
				return fail(err, errlen, "%s: must be at least 1",
				            where);
			return EXP_OK;
		}
		if (strcmp(key, "seed") == 0)
			return fail(err, errlen, "%s: set in [programs]", where);
		if (!gen_option_known(f->name, key))
			return fail(err, errlen, "%s: not an option of family %s",
			            where, f->name);
		size_t i;
		for (i = 0; i < f->nopt; i++)
			if (strcmp(f->opt[i], key) == 0)
				break;
		if (i == f->nopt) {
			if (f->nopt >= GEN_MAX_KV || strlen(key) >= GEN_KEY_MAX)
				return fail(err, errlen, "%s: too many options",
				            where);
			snprintf(f->opt[f->nopt++], GEN_KEY_MAX, "%s", key);
		}
		if ((rc = split(&f->val[i], val, where, err, errlen)))
			return rc;
		for (size_t k = 0; k < f->val[i].n; k++)
			if (strlen(f->val[i].v[k]) >= GEN_VALUE_MAX ||
			    strchr(f->val[i].v[k], ';') ||
			    strchr(f->val[i].v[k], '"'))
				return fail(err, errlen,
				            "%s: '%s' is too long or has ';' or '\"'",
				            where, f->val[i].v[k]);
		return EXP_OK;
	} else if (strcmp(sec, "machine") == 0 && machine_key(key)) {
		/* the machine's vocabulary (CLI_MACHINE_ROWS, cli.h); cpus,
		 * latency, policy and model take a list (one job each) */
		if (strcmp(key, "cpus") == 0) {
			if ((rc = split(&s->cpus, val, where, err, errlen)))
				return rc;
			return u64_list(&s->cpus, 1, 4096, where, err, errlen);
		}
		if (strcmp(key, "latency") == 0) {
			if ((rc = split(&s->latency, val, where, err, errlen)))
				return rc;
			return u64_list(&s->latency, 0, UINT32_MAX, where, err,
			                errlen);
		}
		if (strcmp(key, "policy") == 0) {
			if ((rc = split(&s->policy, val, where, err, errlen)))
				return rc;
			for (size_t i = 0; i < s->policy.n; i++) {
				struct sim_params sp;
				sim_params_init(&sp);
				if (sim_policy_parse(s->policy.v[i], &sp))
					return fail(err, errlen,
					            "%s: '%s' is not a policy ("
					            SIM_POLICY_SYNTAX ")", where,
					            s->policy.v[i]);
			}
			return EXP_OK;
		}
		if (strcmp(key, "model") == 0) {
			if ((rc = split(&s->model, val, where, err, errlen)))
				return rc;
			for (size_t i = 0; i < s->model.n; i++) {
				enum sim_model m;
				if (sim_model_parse(s->model.v[i], &m))
					return fail(err, errlen,
					            "%s: '%s' is not a model ("
					            SIM_MODEL_SYNTAX ")",
					            where, s->model.v[i]);
			}
			return EXP_OK;
		}
		if (strcmp(key, "create_cost") == 0)
			return u64(val, UINT32_MAX, &s->create_cost, where, err,
			           errlen);
		if (strcmp(key, "machine") == 0) {
			/* read with each program's trace (its unit), exp/job.c */
			free(s->machine);
			s->machine = strdup(val);
			return s->machine ? EXP_OK : EXP_ENOMEM;
		}
		if (strcmp(key, "switch_cost") == 0)
			return u64(val, UINT32_MAX, &s->switch_cost, where, err,
			           errlen);
	} else if (strcmp(sec, "run") == 0) {
		if (strcmp(key, "algorithms") == 0) {
			ps->algline = line;
			return split(&ps->alglist, val, where, err, errlen);
		}
		if (strcmp(key, "unbound") == 0)
			return flag(val, &s->unbound, where, err, errlen);
		if (strcmp(key, "bound") == 0)
			return flag(val, &s->bound, where, err, errlen);
		if (strcmp(key, "binpack_input") == 0)
			return input(val, &s->binpack_input, where, err, errlen);
	} else if (strncmp(sec, "alg.", 4) == 0) {
		struct exp_variant *v = variant(ps, sec + 4, 1, where, err,
		                                errlen, &rc);
		if (!v)
			return rc;
		if (strcmp(key, "algorithm") == 0) {
			if (alloc_algorithm_find(val) < 0)
				return fail(err, errlen,
				            "%s: '%s' is not an algorithm "
				            "(allocate --list-algorithms)", where,
				            val);
			snprintf(v->algorithm, sizeof v->algorithm, "%s", val);
			return EXP_OK;
		}
		if (strcmp(key, "max_tests") == 0)
			return u64(val, UINT32_MAX, &v->max_tests, where, err,
			           errlen);
		if (strcmp(key, "stop_after") == 0)
			return u64(val, UINT32_MAX, &v->stop_after, where, err,
			           errlen);
		if (strcmp(key, "seed") == 0) {
			v->have_seed = 1;
			return u64(val, UINT64_MAX, &v->seed, where, err, errlen);
		}
		if (strcmp(key, "raw") == 0)
			return flag(val, &v->raw, where, err, errlen);
		if (strcmp(key, "binpack_input") == 0) {
			v->have_input = 1;
			return input(val, &v->binpack_input, where, err, errlen);
		}
		if (strcmp(key, "cpus") == 0) {
			uint64_t k;
			if ((rc = u64(val, 4096, &k, where, err, errlen)))
				return rc;
			if (k == 0)
				return fail(err, errlen, "%s: must be at least 1", where);
			v->cpus = (uint32_t)k;
			return EXP_OK;
		}
		if (strcmp(key, "restarts") == 0) {
			uint64_t r;
			if ((rc = u64(val, UINT32_MAX, &r, where, err, errlen)))
				return rc;
			v->restarts = (uint32_t)r;
			return EXP_OK;
		}
		if (strcmp(key, "checkpoints") == 0) {
			struct exp_list l = {0};
			rc = split(&l, val, where, err, errlen);
			if (!rc)
				rc = u64_list(&l, 1, UINT32_MAX, where, err, errlen);
			if (!rc && l.n > EXP_MAX_CHECKS)
				rc = fail(err, errlen, "%s: more than %d values",
				          where, EXP_MAX_CHECKS);
			v->ncheck = 0;
			for (size_t i = 0; !rc && i < l.n; i++) {
				uint64_t c;
				trace_parse_u64(l.v[i], UINT32_MAX, &c);
				if (i && c <= v->check[i - 1])
					rc = fail(err, errlen,
					          "%s: not increasing", where);
				v->check[v->ncheck++] = c;
			}
			list_clear(&l);
			return rc;
		}
	} else if (strncmp(sec, "plot.", 5) == 0) {
		return EXP_OK; /* the report's (exp/report.c) */
	} else {
		return fail(err, errlen, "%s:%u: [%.100s]: unknown section",
		            ps->fname, line, sec);
	}
	return fail(err, errlen, "%s: unknown key", where);
}

/* Reorder table entries by a name list; every defined one must be listed. */
static int finish(struct pstate *ps, char *err, size_t errlen)
{
	struct exp_spec *s = ps->s;
	int rc = EXP_OK;
	char where[512];
	/* Families. */
	snprintf(where, sizeof where, "%s:%u: [programs] family", ps->fname,
	         ps->famline);
	for (size_t i = 0; i < ps->famlist.n; i++)
		if (!family(ps, ps->famlist.v[i], 0, where, err, errlen, &rc))
			return rc;
	if (s->traces && s->nfam)
		return fail(err, errlen,
		            "%s: [programs] traces and family exclude each "
		            "other", ps->fname);
	if (!s->traces && ps->famlist.n == 0)
		return fail(err, errlen,
		            "%s: [programs] needs family = ... or traces = DIR",
		            ps->fname);
	struct exp_family tmp[EXP_MAX_FAMILIES];
	for (size_t i = 0; i < ps->famlist.n; i++)
		for (size_t k = 0; k < ps->famlist.n; k++)
			if (k != i && strcmp(ps->famlist.v[i], ps->famlist.v[k]) == 0)
				return fail(err, errlen, "%s: '%s' twice", where,
				            ps->famlist.v[i]);
	if (s->nfam != ps->famlist.n)
		for (size_t i = 0; i < s->nfam; i++) {
			size_t k;
			for (k = 0; k < ps->famlist.n; k++)
				if (strcmp(s->fam[i].name, ps->famlist.v[k]) == 0)
					break;
			if (k == ps->famlist.n)
				return fail(err, errlen,
				            "%s: [family.%s] is not in [programs] "
				            "family", ps->fname, s->fam[i].name);
		}
	memcpy(tmp, s->fam, sizeof tmp);
	for (size_t k = 0; k < ps->famlist.n; k++)
		for (size_t i = 0; i < s->nfam; i++)
			if (strcmp(tmp[i].name, ps->famlist.v[k]) == 0)
				s->fam[k] = tmp[i];
	for (size_t i = 0; i < s->nfam; i++)
		if (s->fam[i].threads.n == 0) {
			const struct exp_list *src = &ps->threads;
			struct exp_list zero = {0};
			char z[] = "0";
			zero.n = 1;
			zero.v[0] = z;
			if (!ps->have_threads)
				src = &zero;
			for (size_t k = 0; k < src->n; k++)
				if ((rc = list_add(&s->fam[i].threads, src->v[k],
				                   strlen(src->v[k]))))
					return rc;
		}
	/* Algorithms. */
	snprintf(where, sizeof where, "%s:%u: [run] algorithms", ps->fname,
	         ps->algline);
	for (size_t i = 0; i < ps->alglist.n; i++)
		if (!variant(ps, ps->alglist.v[i], 0, where, err, errlen, &rc))
			return rc;
	for (size_t i = 0; i < ps->alglist.n; i++)
		for (size_t k = i + 1; k < ps->alglist.n; k++)
			if (strcmp(ps->alglist.v[i], ps->alglist.v[k]) == 0)
				return fail(err, errlen, "%s: '%s' twice", where,
				            ps->alglist.v[i]);
	if (s->nvar != ps->alglist.n)
		for (size_t i = 0; i < s->nvar; i++) {
			size_t k;
			for (k = 0; k < ps->alglist.n; k++)
				if (strcmp(s->var[i].name, ps->alglist.v[k]) == 0)
					break;
			if (k == ps->alglist.n)
				return fail(err, errlen,
				            "%s: [alg.%s] is not in [run] "
				            "algorithms", ps->fname, s->var[i].name);
		}
	struct exp_variant *vt = malloc(sizeof *vt * s->nvar + 1);
	if (!vt)
		return EXP_ENOMEM;
	memcpy(vt, s->var, sizeof *vt * s->nvar);
	for (size_t k = 0; k < ps->alglist.n; k++)
		for (size_t i = 0; i < s->nvar; i++)
			if (strcmp(vt[i].name, ps->alglist.v[k]) == 0)
				s->var[k] = vt[i];
	free(vt);
	for (size_t i = 0; i < s->nvar; i++)
		if (!s->var[i].have_input)
			s->var[i].binpack_input = s->binpack_input;
	for (size_t i = 0; i < s->nvar; i++)
		if (s->var[i].raw && strcmp(s->var[i].algorithm, "sga") != 0 &&
		    strcmp(s->var[i].algorithm, "rgreedy") != 0)
			return fail(err, errlen,
			            "%s: [alg.%s] raw = 1 is for algorithms sga and "
			            "rgreedy only", ps->fname, s->var[i].name);
	for (size_t i = 0; i < s->nvar; i++)
		if (alloc_algorithm_find(s->var[i].algorithm) < 0)
			return fail(err, errlen,
			            "%s: '%s' is not an algorithm (allocate "
			            "--list-algorithms) and has no [alg.%s]",
			            where, s->var[i].algorithm, s->var[i].name);
	if (s->nvar == 0 && !s->unbound)
		return fail(err, errlen,
		            "%s: [run] needs algorithms = ... or unbound = 1",
		            ps->fname);
	/* Machine defaults. */
	struct {
		struct exp_list *l;
		const char *def;
	} d[] = {{&s->cpus, "2"}, {&s->latency, "0"}, {&s->policy, "ps"},
	         {&s->model, "direct"}};
	for (size_t i = 0; i < sizeof d / sizeof *d; i++)
		if (d[i].l->n == 0 &&
		    (rc = list_add(d[i].l, d[i].def, strlen(d[i].def))))
			return rc;
	return EXP_OK;
}

int exp_spec_parse(const char *buf, size_t len, const char *fname,
                   struct exp_spec *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->count = 1;
	s->seed = 1;
	struct pstate ps;
	memset(&ps, 0, sizeof ps);
	ps.s = s;
	ps.fname = fname;
	int rc = exp_ini_parse(buf, len, fname, on_key, &ps, err, errlen);
	if (rc == -1)
		rc = EXP_EINVAL;
	if (!rc)
		rc = finish(&ps, err, errlen);
	if (!rc && !s->name[0]) {
		const char *b = strrchr(fname, '/');
		b = b ? b + 1 : fname;
		size_t n = strcspn(b, ".");
		if (n >= EXP_NAME_MAX)
			n = EXP_NAME_MAX - 1;
		memcpy(s->name, b, n);
		s->name[n] = 0;
	}
	if (!rc && !s->output) {
		size_t n = strlen(fname);
		if (n > 4 && strcmp(fname + n - 4, ".ini") == 0)
			n -= 4;
		s->output = malloc(n + 5);
		if (!s->output)
			rc = EXP_ENOMEM;
		else
			sprintf(s->output, "%.*s.csv", (int)n, fname);
	}
	list_clear(&ps.famlist);
	list_clear(&ps.alglist);
	list_clear(&ps.threads);
	if (rc == EXP_ENOMEM)
		snprintf(err, errlen, "%s: out of memory", fname);
	return rc;
}

int exp_spec_load(const char *path, struct exp_spec *s, char *err,
                  size_t errlen)
{
	memset(s, 0, sizeof *s);
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open", path);
		return EXP_EIO;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap > (64u << 20)) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "%s: larger than 64 MiB", path);
				return EXP_EINVAL;
			}
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		return EXP_ENOMEM;
	}
	if (bad) {
		free(buf);
		snprintf(err, errlen, "%s: read error", path);
		return EXP_EIO;
	}
	int rc = exp_spec_parse(buf, n, path, s, err, errlen);
	free(buf);
	return rc;
}

void exp_spec_release(struct exp_spec *s)
{
	if (!s)
		return;
	free(s->output);
	free(s->traces);
	free(s->machine);
	for (size_t i = 0; i < s->nfam; i++) {
		list_clear(&s->fam[i].threads);
		for (size_t k = 0; k < s->fam[i].nopt; k++)
			list_clear(&s->fam[i].val[k]);
	}
	list_clear(&s->cpus);
	list_clear(&s->latency);
	list_clear(&s->policy);
	list_clear(&s->model);
	memset(s, 0, sizeof *s);
}
