/*
 * gen.c - the family table, option parsing and the generate entry points.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/genint.h"

#define GEN_MAX_THREADS (1u << 20)

/* Adding a family: write gen/fam_NAME.c defining gen_fam_NAME, declare it
 * in genint.h and list it here. */
static const struct gen_family *const families[] = {
	&gen_fam_transactions, &gen_fam_pipeline, &gen_fam_forkjoin,
	&gen_fam_prodcons,     &gen_fam_worstcase, &gen_fam_dag,
};
#define NFAM (sizeof families / sizeof families[0])

enum { C_QUANTUM = 0, C_UNIT, C_NAMES, C_HEADER, NCOMMON };

static const struct gen_param common[NCOMMON] = {
	[C_QUANTUM] = {"quantum", GEN_P_INT, "10000", 0, INT64_C(1) << 62, 0,
	               0, NULL,
	               "time slice of the uniprocessor replay that orders the "
	               "file, trace units; 0: run each thread until it blocks"},
	[C_UNIT] = {"unit", GEN_P_ENUM, "none", 0, 0, 0, 0,
	            "none|tick|ns|us|ms|s",
	            "write a `unit` line (none: no line, the reader's tick)"},
	[C_NAMES] = {"names", GEN_P_INT, "1", 0, 1, 0, 0, NULL,
	             "write `thread` lines naming each thread's start "
	             "function"},
	[C_HEADER] = {"header", GEN_P_INT, "1", 0, 1, 0, 0, NULL,
	              "write a comment header: the equivalent command line "
	              "and the generator's counters"},
};

size_t gen_family_count(void)
{
	return NFAM;
}

const struct gen_family *gen_family_at(size_t i)
{
	return i < NFAM ? families[i] : NULL;
}

const struct gen_family *gen_family_find(const char *name)
{
	for (size_t i = 0; name && i < NFAM; i++)
		if (strcmp(families[i]->name, name) == 0)
			return families[i];
	return NULL;
}

size_t gen_common_count(void)
{
	return NCOMMON;
}

const struct gen_param *gen_common_at(size_t i)
{
	return i < NCOMMON ? &common[i] : NULL;
}

void gen_opts_init(struct gen_opts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = 1;
}

int gen_opts_set(struct gen_opts *o, const char *name, const char *value)
{
	if (!name || !value || strlen(name) >= GEN_KEY_MAX ||
	    strlen(value) >= GEN_VALUE_MAX)
		return -1;
	size_t i;
	for (i = 0; i < o->nkv; i++)
		if (strcmp(o->kv[i].name, name) == 0)
			break;
	if (i == o->nkv) {
		if (o->nkv == GEN_MAX_KV)
			return -1;
		o->nkv++;
	}
	strcpy(o->kv[i].name, name);
	strcpy(o->kv[i].value, value);
	return 0;
}

uint64_t gen_seed_derive(uint64_t seed, uint64_t i)
{
	uint64_t x = seed;
	uint64_t y = gen_splitmix64(&x) ^ (i * 0xD6E8FEB86659FD93ull);
	return gen_splitmix64(&y);
}

/* ---------------------------------------------------------------------
 * Values
 */

/* Index of word `s` in "a|b|c", or -1. */
static int enum_index(const char *choices, const char *s)
{
	size_t n = strlen(s);
	int i = 0;
	for (const char *c = choices; *c; i++) {
		const char *e = strchr(c, '|');
		size_t len = e ? (size_t)(e - c) : strlen(c);
		if (len == n && strncmp(c, s, n) == 0)
			return i;
		if (!e)
			break;
		c = e + 1;
	}
	return -1;
}

/* Word i of "a|b|c" into buf. */
static const char *enum_word(const char *choices, int i, char *buf,
                             size_t len)
{
	const char *c = choices;
	for (; i > 0 && c; i--) {
		c = strchr(c, '|');
		if (c)
			c++;
	}
	if (!c)
		c = "";
	size_t n = strcspn(c, "|");
	if (n >= len)
		n = len - 1;
	memcpy(buf, c, n);
	buf[n] = 0;
	return buf;
}

static int parse_value(const struct gen_param *pp, const char *text,
                       int64_t *iv, double *dv, char *err, size_t errlen)
{
	switch (pp->type) {
	case GEN_P_INT: {
		uint64_t v;
		if (trace_parse_u64(text, UINT64_MAX, &v) != 0 || v > (uint64_t)INT64_MAX ||
		    (int64_t)v < pp->min || (int64_t)v > pp->max)
			return gen_err(err, errlen,
			               "option --%s: '%s' is not an integer in "
			               "[%lld, %lld]",
			               pp->name, text, (long long)pp->min,
			               (long long)pp->max);
		*iv = (int64_t)v;
		return GEN_OK;
	}
	case GEN_P_REAL: {
		char *end;
		errno = 0;
		double v = strtod(text, &end);
		if (!*text || *end || errno || !isfinite(v) || v < pp->rmin ||
		    v > pp->rmax)
			return gen_err(err, errlen,
			               "option --%s: '%s' is not a number in "
			               "[%g, %g]",
			               pp->name, text, pp->rmin, pp->rmax);
		*dv = v;
		return GEN_OK;
	}
	case GEN_P_ENUM: {
		int i = enum_index(pp->choices, text);
		if (i < 0)
			return gen_err(err, errlen,
			               "option --%s: '%s' is not one of %s",
			               pp->name, text, pp->choices);
		*iv = i;
		return GEN_OK;
	}
	}
	return gen_err(err, errlen, "option --%s: bad type", pp->name);
}

/* Fill *a from the family's table, the common table and o. */
static int parse_args(const struct gen_family *fam, const struct gen_opts *o,
                      struct gen_args *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof *a);
	a->fam = fam;
	a->seed = o->seed;
	if (fam->nparams > GEN_MAX_PARAMS)
		return gen_err(err, errlen, "family %s: too many options",
		               fam->name);
	for (size_t i = 0; i < fam->nparams; i++) {
		int rc = parse_value(&fam->params[i], fam->params[i].def,
		                     &a->v[i], &a->d[i], err, errlen);
		if (rc)
			return rc;
	}
	int64_t cv[NCOMMON];
	double cd[NCOMMON];
	for (size_t i = 0; i < NCOMMON; i++)
		if (parse_value(&common[i], common[i].def, &cv[i], &cd[i], err,
		                errlen))
			return GEN_EINVAL;
	for (size_t k = 0; k < o->nkv; k++) {
		const char *name = o->kv[k].name, *val = o->kv[k].value;
		size_t i;
		for (i = 0; i < fam->nparams; i++)
			if (strcmp(fam->params[i].name, name) == 0)
				break;
		if (i < fam->nparams) {
			int rc = parse_value(&fam->params[i], val, &a->v[i],
			                     &a->d[i], err, errlen);
			if (rc)
				return rc;
			a->given[i] = 1;
			continue;
		}
		for (i = 0; i < NCOMMON; i++)
			if (strcmp(common[i].name, name) == 0)
				break;
		if (i == NCOMMON)
			return gen_err(err, errlen,
			               "unknown option '--%s' for family %s "
			               "(see progen --help %s)",
			               name, fam->name, fam->name);
		int rc = parse_value(&common[i], val, &cv[i], &cd[i], err,
		                     errlen);
		if (rc)
			return rc;
	}
	a->quantum = (uint64_t)cv[C_QUANTUM];
	a->unit = (int)cv[C_UNIT] - 1; /* "none" is word 0 */
	a->names = (int)cv[C_NAMES];
	a->header = (int)cv[C_HEADER];

	a->threads = o->threads;
	if (a->threads > GEN_MAX_THREADS)
		return gen_err(err, errlen,
		               "--threads %u: at most %u threads", a->threads,
		               GEN_MAX_THREADS);
	if (a->threads && a->threads < fam->min_threads)
		return gen_err(err, errlen,
		               "--threads %u: family %s needs at least %u",
		               a->threads, fam->name, fam->min_threads);
	if (!a->threads)
		a->threads = fam->def_threads; /* 0 for derived counts */
	return GEN_OK;
}

/* The comment header: the command line that reproduces the program, and
 * the counters. */
static void format_head(const struct gen_args *a, const struct gen_prog *p,
                        struct gen_buf *b)
{
	const struct gen_family *fam = a->fam;
	char word[64];
	gen_buf_printf(b, "# progen --family %s --threads %u --seed %llu",
	               fam->name, p->nthreads, (unsigned long long)a->seed);
	for (size_t i = 0; i < fam->nparams; i++) {
		const struct gen_param *pp = &fam->params[i];
		gen_buf_printf(b, " --%s ", pp->name);
		if (pp->type == GEN_P_INT)
			gen_buf_printf(b, "%lld", (long long)a->v[i]);
		else if (pp->type == GEN_P_ENUM)
			gen_buf_puts(b, enum_word(pp->choices, (int)a->v[i],
			                          word, sizeof word));
		else
			gen_buf_printf(b, "%.17g", a->d[i]);
	}
	gen_buf_printf(b, " --quantum %llu", (unsigned long long)a->quantum);
	if (a->unit >= 0)
		gen_buf_printf(b, " --unit %s",
		               enum_word(common[C_UNIT].choices, a->unit + 1,
		                         word, sizeof word));
	gen_buf_puts(b, "\n# info:");
	for (size_t i = 0; i < p->info.n; i++)
		gen_buf_printf(b, " %s=%llu", p->info.item[i].name,
		               (unsigned long long)p->info.item[i].value);
	gen_buf_puts(b, "\n");
}

static int generate(const char *family, const struct gen_opts *o,
                    struct gen_buf *out, struct gen_info *info, char *err,
                    size_t errlen)
{
	if (err && errlen)
		err[0] = 0;
	const struct gen_family *fam = gen_family_find(family);
	if (!fam) {
		struct gen_buf names = {0};
		for (size_t i = 0; i < NFAM; i++)
			gen_buf_printf(&names, "%s%s", i ? ", " : "",
			               families[i]->name);
		gen_err(err, errlen, "unknown family '%s' (families: %s)",
		        family ? family : "(null)",
		        names.p ? names.p : "");
		gen_buf_release(&names);
		return GEN_EINVAL;
	}
	struct gen_args a;
	int rc = parse_args(fam, o, &a, err, errlen);
	if (rc)
		return rc;
	struct gen_prog p;
	memset(&p, 0, sizeof p);
	rc = fam->build(&a, &p, err, errlen);
	if (rc == GEN_OK && p.bug) {
		gen_err(err, errlen, "generator bug: family %s misused the "
		        "program builder", fam->name);
		rc = GEN_EBUG;
	}
	if (rc == GEN_OK && p.overflow)
		rc = gen_err(err, errlen, "a thread's work between two records "
		             "reaches 2^62 trace units: use smaller work "
		             "options");
	if (rc == GEN_OK && (p.oom || !p.th)) {
		gen_err(err, errlen, "out of memory");
		rc = GEN_ENOMEM;
	}
	if (rc != GEN_OK) {
		gen_prog_release(&p);
		return rc;
	}
	uint64_t records = 0, work = 0;
	for (uint32_t i = 0; i < p.nthreads; i++) {
		records += p.th[i].n;
		for (size_t j = 0; j < p.th[i].n; j++)
			work += p.th[i].rec[j].work;
	}
	struct gen_info fi = p.info;
	p.info.n = 0;
	gen_info_set(&p.info, "threads", p.nthreads);
	gen_info_set(&p.info, "records", records);
	gen_info_set(&p.info, "work", work);
	for (size_t i = 0; i < fi.n; i++)
		gen_info_set(&p.info, fi.item[i].name, fi.item[i].value);

	struct gen_buf head = {0};
	if (a.header)
		format_head(&a, &p, &head);
	if (head.oom) {
		rc = GEN_ENOMEM;
	} else {
		rc = gen_serialize(&p, &a, head.p, out, err, errlen);
	}
	if (rc == GEN_ENOMEM)
		gen_err(err, errlen, "out of memory");
	if (rc == GEN_OK && info)
		*info = p.info;
	gen_buf_release(&head);
	gen_prog_release(&p);
	return rc;
}

int gen_generate(const char *family, const struct gen_opts *o, char **text,
                 size_t *len, struct gen_info *info, char *err,
                 size_t errlen)
{
	struct gen_buf b = {0};
	*text = NULL;
	*len = 0;
	if (info)
		memset(info, 0, sizeof *info);
	int rc = generate(family, o, &b, info, err, errlen);
	if (rc != GEN_OK) {
		gen_buf_release(&b);
		if (info)
			memset(info, 0, sizeof *info);
		return rc;
	}
	*text = b.p;
	*len = b.len;
	return GEN_OK;
}

int gen_write(const char *family, const struct gen_opts *o, FILE *f,
              struct gen_info *info, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc = gen_generate(family, o, &text, &len, info, err, errlen);
	if (rc != GEN_OK)
		return rc;
	if (fwrite(text, 1, len, f) != len || fflush(f) != 0) {
		int e = errno;
		gen_err(err, errlen, "write failed: %s", strerror(e));
		free(text);
		errno = e;
		return GEN_EIO;
	}
	free(text);
	return GEN_OK;
}

int gen_trace(const char *family, const struct gen_opts *o,
              struct trace **out, struct gen_info *info, char *err,
              size_t errlen)
{
	char *text;
	size_t len;
	*out = NULL;
	int rc = gen_generate(family, o, &text, &len, info, err, errlen);
	if (rc != GEN_OK)
		return rc;
	struct trace_error te;
	if (trace_read_mem(family, text, len, out, &te) != 0) {
		gen_err(err, errlen, "generator bug: output rejected: %s",
		        te.msg);
		free(text);
		if (info)
			memset(info, 0, sizeof *info);
		*out = NULL;
		return GEN_EBUG;
	}
	free(text);
	return GEN_OK;
}

/* ---------------------------------------------------------------------
 * Help
 */
static void param_print(const struct gen_param *pp, FILE *f)
{
	char lhs[64];
	const char *arg = pp->type == GEN_P_INT    ? "N"
	                  : pp->type == GEN_P_REAL ? "X"
	                                           : pp->choices;
	snprintf(lhs, sizeof lhs, "--%s %s", pp->name, arg);
	char text[512];
	snprintf(text, sizeof text, "%s (default %s)", pp->help, pp->def);
	/* "    --opt N                  help..." wrapped at 79 columns,
	 * continuation lines under the help column */
	int col = fprintf(f, "    %-24s", lhs);
	const char *s = text;
	int first = 1;
	while (*s) {
		size_t w = strcspn(s, " ");
		if (!first && col + 1 + (int)w > 79) {
			fprintf(f, "\n%28s", "");
			col = 28;
			first = 1;
		}
		col += fprintf(f, " %.*s", (int)w, s);
		first = 0;
		s += w;
		while (*s == ' ')
			s++;
	}
	fputc('\n', f);
}

void gen_help_print(const struct gen_family *fam, FILE *f)
{
	if (!fam) {
		for (size_t i = 0; i < NFAM; i++) {
			gen_help_print(families[i], f);
			fputc('\n', f);
		}
		fprintf(f, "Options of every family:\n");
		for (size_t i = 0; i < NCOMMON; i++)
			param_print(&common[i], f);
		return;
	}
	fprintf(f, "%s - %s\n", fam->name, fam->summary);
	/* help: indent every line by two spaces */
	const char *s = fam->help;
	while (*s) {
		size_t n = strcspn(s, "\n");
		fprintf(f, "  %.*s\n", (int)n, s);
		s += n;
		if (*s)
			s++;
	}
	if (fam->def_threads)
		fprintf(f, "  --threads N: total threads, thread 1 included "
		           "(default %u, at least %u)\n",
		        fam->def_threads, fam->min_threads);
	fprintf(f, "  options:\n");
	for (size_t i = 0; i < fam->nparams; i++)
		param_print(&fam->params[i], f);
	fprintf(f, "  example: %s\n", fam->example);
}
