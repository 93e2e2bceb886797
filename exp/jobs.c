/* jobs.c - the programs and machines of an experiment, in a fixed order:
 * job j is program j / nconf on machine j % nconf. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp.h"
#include "trace/trace.h"

/* Option combinations of family f: the product of its lists. */
static uint64_t combos(const struct exp_family *f)
{
	uint64_t n = 1;
	for (size_t i = 0; i < f->nopt; i++)
		n *= f->val[i].n;
	return n;
}

/* Value index of option i in combination c (the last option varies
 * fastest). */
static size_t combo_at(const struct exp_family *f, uint32_t c, size_t i)
{
	for (size_t k = f->nopt; k-- > i + 1;)
		c /= (uint32_t)f->val[k].n;
	return c % f->val[i].n;
}

char *exp_prog_options(const struct exp_spec *s, const struct exp_prog *p,
                       char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (p->path) {
		const char *b = strrchr(p->path, '/');
		snprintf(buf, len, "%s", b ? b + 1 : p->path);
		return buf;
	}
	const struct exp_family *f = &s->fam[p->fam];
	size_t at = 0;
	for (size_t i = 0; i < f->nopt && at < len; i++) {
		int n = snprintf(buf + at, len - at, "%s%s=%s", i ? ";" : "",
		                 f->opt[i], f->val[i].v[combo_at(f, p->combo, i)]);
		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}

int exp_prog_gen_opts(const struct exp_spec *s, const struct exp_prog *p,
                      struct gen_opts *o)
{
	gen_opts_init(o);
	o->threads = p->threads;
	o->seed = p->seed;
	const struct exp_family *f = &s->fam[p->fam];
	for (size_t i = 0; i < f->nopt; i++)
		if (gen_opts_set(o, f->opt[i],
		                 f->val[i].v[combo_at(f, p->combo, i)]))
			return -1;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_traces(const char *dir, char ***out, size_t *n, char *err,
                       size_t errlen)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: cannot open the traces directory",
		         dir);
		return EXP_EIO;
	}
	size_t cap = 0;
	struct dirent *e;
	int rc = EXP_OK;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 7 || strcmp(e->d_name + l - 6, ".trace") != 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			char **nv = realloc(*out, cap * sizeof *nv);
			if (!nv) {
				rc = EXP_ENOMEM;
				break;
			}
			*out = nv;
		}
		char *path = malloc(strlen(dir) + l + 2);
		if (!path) {
			rc = EXP_ENOMEM;
			break;
		}
		sprintf(path, "%s/%s", dir, e->d_name);
		(*out)[(*n)++] = path;
	}
	closedir(d);
	if (!rc && *n == 0) {
		snprintf(err, errlen, "%s: no *.trace files", dir);
		rc = EXP_EINVAL;
	}
	if (!rc)
		qsort(*out, *n, sizeof **out, by_name);
	return rc;
}

int exp_jobs_make(const struct exp_spec *s, struct exp_jobs *j, char *err,
                  size_t errlen)
{
	memset(j, 0, sizeof *j);
	/* Machines. */
	size_t nc = s->cpus.n * s->latency.n * s->policy.n * s->model.n;
	j->conf = calloc(nc, sizeof *j->conf);
	if (!j->conf)
		return EXP_ENOMEM;
	for (size_t a = 0; a < s->cpus.n; a++)
		for (size_t b = 0; b < s->latency.n; b++)
			for (size_t c = 0; c < s->policy.n; c++)
				for (size_t d = 0; d < s->model.n; d++) {
					struct exp_conf *cf = &j->conf[j->nconf++];
					uint64_t v;
					sim_params_init(&cf->sim);
					trace_parse_u64(s->cpus.v[a], 4096, &v);
					cf->sim.cpus = (uint32_t)v;
					trace_parse_u64(s->latency.v[b], UINT32_MAX, &v);
					cf->sim.latency = v;
					sim_policy_parse(s->policy.v[c], &cf->sim);
					sim_model_parse(s->model.v[d], &cf->sim.model);
					cf->sim.create_cost = s->create_cost;
					cf->sim.switch_cost = s->switch_cost;
					cf->policy = s->policy.v[c];
					cf->model = s->model.v[d];
				}
	/* Programs. */
	if (s->traces) {
		char **paths;
		size_t n;
		int rc = list_traces(s->traces, &paths, &n, err, errlen);
		if (rc) {
			for (size_t i = 0; i < n; i++)
				free(paths[i]);
			free(paths);
			return rc;
		}
		j->prog = calloc(n, sizeof *j->prog);
		if (!j->prog) {
			for (size_t i = 0; i < n; i++)
				free(paths[i]);
			free(paths);
			return EXP_ENOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			j->prog[i].fam = UINT32_MAX;
			j->prog[i].index = i + 1;
			j->prog[i].path = paths[i];
		}
		j->nprog = n;
		free(paths);
	} else {
		uint64_t total = 0;
		for (size_t f = 0; f < s->nfam; f++)
			total += combos(&s->fam[f]) * s->fam[f].threads.n *
			         (s->fam[f].count ? s->fam[f].count : s->count);
		if (total > 100000000) {
			snprintf(err, errlen, "more than 10^8 programs");
			return EXP_EINVAL;
		}
		j->prog = calloc(total ? total : 1, sizeof *j->prog);
		if (!j->prog)
			return EXP_ENOMEM;
		for (size_t f = 0; f < s->nfam; f++) {
			const struct exp_family *fm = &s->fam[f];
			uint64_t nc2 = combos(fm);
			uint64_t cnt = fm->count ? fm->count : s->count;
			for (uint64_t c = 0; c < nc2; c++)
				for (size_t t = 0; t < fm->threads.n; t++)
					for (uint64_t i = 1; i <= cnt; i++) {
						struct exp_prog *p = &j->prog[j->nprog++];
						uint64_t v;
						trace_parse_u64(fm->threads.v[t], 1u << 20,
						                &v);
						p->fam = (uint32_t)f;
						p->combo = (uint32_t)c;
						p->threads = (uint32_t)v;
						p->index = i;
						p->seed = gen_seed_derive(s->seed, i);
					}
		}
	}
	j->njobs = j->nprog * j->nconf;
	size_t rows = s->unbound ? 1 : 0;
	for (size_t v = 0; v < s->nvar; v++)
		rows += 1 + s->var[v].ncheck;
	j->rows_per_job = rows;
	return EXP_OK;
}

void exp_jobs_release(struct exp_jobs *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nprog; i++)
		free(j->prog[i].path);
	free(j->prog);
	free(j->conf);
	memset(j, 0, sizeof *j);
}
