/* report.c - the CSVs of an experiments directory into tables, SVG plots
 * (gnuplot) and the report: each experiment file's [plot.NAME] sections
 * say what to aggregate (docs/exp.md, "The report"). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "exp/exp.h"
#include "exp/expint.h"

#define MAXC 32     /* CSV columns      */
#define MAXL 16     /* lines of a plot  */
#define MAXF 4      /* filters          */
#define MAXX 256    /* x values, series */
#define MAXP 32     /* plots per file   */

struct filt {
	char col[32], val[64];
	int prefix; /* col~val: the value starts with val */
};

struct line {
	char label[64];
	char num[32], den[32]; /* den "" : the column alone            */
	int stat;              /* S_*                                   */
	double arg;            /* frac threshold                        */
	size_t nf;
	struct filt f[MAXF];
};

enum { S_MEAN, S_MIN, S_MAX, S_FRAC_LT, S_FRAC_LE, S_FRAC_GT, S_COUNT };

struct plot {
	char name[48], title[160], xlabel[96], ylabel[96], x[32], series[32];
	char yrange[32];
	int logx;
	size_t nw;
	struct filt where[MAXF];
	size_t nl;
	struct line l[MAXL];
};

struct pfile {
	size_t np;
	struct plot p[MAXP];
	char err[512];
};

struct csv {
	size_t ncol, nrow;
	char *col[MAXC];
	char **cell; /* [nrow * ncol], pointers into buf */
	char *buf;
};

static int filters(const char *v, struct filt *f, size_t *n)
{
	*n = 0;
	while (*v) {
		while (*v == ' ' || *v == ';')
			v++;
		if (!*v)
			break;
		const char *eq = strchr(v, '=');
		const char *ti = strchr(v, '~');
		const char *end = strchr(v, ';');
		if (!end)
			end = v + strlen(v);
		if (ti && ti < end && (!eq || ti < eq))
			eq = ti;
		if (!eq || eq > end || *n >= MAXF)
			return -1;
		f[*n].prefix = *eq == '~';
		const char *ke = eq;
		while (ke > v && ke[-1] == ' ')
			ke--;
		const char *vb = eq + 1, *ve = end;
		while (*vb == ' ')
			vb++;
		while (ve > vb && ve[-1] == ' ')
			ve--;
		snprintf(f[*n].col, sizeof f[*n].col, "%.*s", (int)(ke - v), v);
		snprintf(f[*n].val, sizeof f[*n].val, "%.*s", (int)(ve - vb), vb);
		(*n)++;
		v = end;
	}
	return 0;
}

/* "LABEL: NUM[/DEN] [STAT] [@ filters]" */
static int parse_line(const char *v, struct line *l)
{
	memset(l, 0, sizeof *l);
	const char *colon = strchr(v, ':');
	if (!colon)
		return -1;
	snprintf(l->label, sizeof l->label, "%.*s", (int)(colon - v), v);
	const char *at = strchr(colon, '@');
	char expr[128];
	size_t el = at ? (size_t)(at - colon - 1) : strlen(colon + 1);
	if (el >= sizeof expr)
		return -1;
	memcpy(expr, colon + 1, el);
	expr[el] = 0;
	char a[64] = "", b[64] = "mean";
	if (sscanf(expr, " %63s %63s", a, b) < 1 || strlen(a) >= sizeof l->num)
		return -1;
	char *sl = strchr(a, '/');
	if (sl) {
		*sl = 0;
		memcpy(l->den, sl + 1, strlen(sl + 1) + 1);
	}
	memcpy(l->num, a, strlen(a) + 1);
	if (strcmp(b, "mean") == 0)
		l->stat = S_MEAN;
	else if (strcmp(b, "min") == 0)
		l->stat = S_MIN;
	else if (strcmp(b, "max") == 0)
		l->stat = S_MAX;
	else if (strcmp(b, "count") == 0)
		l->stat = S_COUNT;
	else if (strncmp(b, "frac<=", 6) == 0)
		l->stat = S_FRAC_LE, l->arg = atof(b + 6);
	else if (strncmp(b, "frac<", 5) == 0)
		l->stat = S_FRAC_LT, l->arg = atof(b + 5);
	else if (strncmp(b, "frac>", 5) == 0)
		l->stat = S_FRAC_GT, l->arg = atof(b + 5);
	else
		return -1;
	if (at && filters(at + 1, l->f, &l->nf))
		return -1;
	return 0;
}

static int on_plot_key(void *arg, const char *sec, const char *key,
                       const char *val, unsigned line, char *err,
                       size_t errlen)
{
	struct pfile *pf = arg;
	(void)line;
	if (strncmp(sec, "plot.", 5) != 0)
		return 0;
	struct plot *p = NULL;
	for (size_t i = 0; i < pf->np; i++)
		if (strcmp(pf->p[i].name, sec + 5) == 0)
			p = &pf->p[i];
	if (!p) {
		if (pf->np >= MAXP)
			return exp_fail(err, errlen, -1, "[%s]: too many plots", sec);
		p = &pf->p[pf->np++];
		memset(p, 0, sizeof *p);
		snprintf(p->name, sizeof p->name, "%s", sec + 5);
	}
	struct {
		const char *k;
		char *dst;
		size_t len;
	} s[] = {{"title", p->title, sizeof p->title},
	         {"xlabel", p->xlabel, sizeof p->xlabel},
	         {"ylabel", p->ylabel, sizeof p->ylabel},
	         {"x", p->x, sizeof p->x},
	         {"series", p->series, sizeof p->series},
	         {"yrange", p->yrange, sizeof p->yrange}};
	for (size_t i = 0; i < sizeof s / sizeof *s; i++)
		if (strcmp(key, s[i].k) == 0) {
			snprintf(s[i].dst, s[i].len, "%s", val);
			return 0;
		}
	if (strcmp(key, "logx") == 0) {
		p->logx = atoi(val);
		return 0;
	}
	if (strcmp(key, "where") == 0) {
		if (filters(val, p->where, &p->nw))
			return exp_fail(err, errlen, -1, "[%s] where: bad filter", sec);
		return 0;
	}
	if (strcmp(key, "line") == 0) {
		if (p->nl >= MAXL || parse_line(val, &p->l[p->nl]))
			return exp_fail(err, errlen, -1,
			            "[%s] line: '%s' is not 'LABEL: NUM[/DEN] "
			            "[STAT] [@ col=val;...]'", sec, val);
		p->nl++;
		return 0;
	}
	return exp_fail(err, errlen, -1, "[%s] %s: unknown key", sec, key);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, got;
	char *b = malloc(cap + 1);
	while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(b, (cap *= 2) + 1);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	fclose(f);
	if (b) {
		b[n] = 0;
		*len = n;
	}
	return b;
}

static int csv_load(const char *path, struct csv *c)
{
	memset(c, 0, sizeof *c);
	size_t len;
	c->buf = slurp(path, &len);
	if (!c->buf)
		return -1;
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += c->buf[i] == '\n';
	char *p = c->buf;
	char *nl = strchr(p, '\n');
	if (!nl)
		return -1;
	*nl = 0;
	for (char *t = strtok(p, ","); t && c->ncol < MAXC; t = strtok(NULL, ","))
		c->col[c->ncol++] = t;
	c->cell = malloc(sizeof *c->cell * (lines + 1) * c->ncol);
	if (!c->cell)
		return -1;
	p = nl + 1;
	while ((nl = strchr(p, '\n'))) {
		*nl = 0;
		char **row = c->cell + c->nrow * c->ncol;
		size_t k = 0;
		char *q = p;
		while (k < c->ncol) {
			row[k++] = q;
			char *cm = strchr(q, ',');
			if (!cm)
				break;
			*cm = 0;
			q = cm + 1;
		}
		if (k == c->ncol)
			c->nrow++;
		p = nl + 1;
	}
	return 0;
}

static void csv_free(struct csv *c)
{
	free(c->cell);
	free(c->buf);
}

static int colidx(const struct csv *c, const char *name)
{
	for (size_t i = 0; i < c->ncol; i++)
		if (strcmp(c->col[i], name) == 0)
			return (int)i;
	return -1;
}

static int match(const struct csv *c, char **row, const struct filt *f,
                 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int k = colidx(c, f[i].col);
		if (k < 0)
			return 0;
		if (f[i].prefix ? strncmp(row[k], f[i].val, strlen(f[i].val)) != 0
		                : strcmp(row[k], f[i].val) != 0)
			return 0;
	}
	return 1;
}

/* Distinct values of column k over rows passing filters, ordered
 * numerically if all numeric, else by first appearance. */
struct vals {
	size_t n;
	const char *v[MAXX];
};

static int numeric(const char *s)
{
	char *e;
	if (!*s)
		return 0;
	strtod(s, &e);
	return *e == 0;
}

static int vcmp(const void *a, const void *b)
{
	double x = atof(*(const char *const *)a), y = atof(*(const char *const *)b);
	return (x > y) - (x < y);
}

/* x = checkpoint (when the CSV has no such column): the test count N of
 * a checkpoint row NAME@N; other rows have no x and are left out. */
#define X_CHECKPOINT (-3)

/* Row's value of column k (X_CHECKPOINT included), or NULL. */
static const char *xval(const struct csv *c, char **row, int k)
{
	if (k != X_CHECKPOINT)
		return row[k];
	int a = colidx(c, "algorithm");
	const char *at = a >= 0 ? strchr(row[a], '@') : NULL;
	return at ? at + 1 : NULL;
}

static void distinct(const struct csv *c, int k, const struct plot *p,
                     struct vals *v)
{
	v->n = 0;
	if (k < 0 && k != X_CHECKPOINT) {
		v->n = 1;
		v->v[0] = "";
		return;
	}
	for (size_t r = 0; r < c->nrow; r++) {
		char **row = c->cell + r * c->ncol;
		const char *x = xval(c, row, k);
		if (!x || !match(c, row, p->where, p->nw))
			continue;
		size_t i;
		for (i = 0; i < v->n; i++)
			if (strcmp(v->v[i], x) == 0)
				break;
		if (i == v->n && v->n < MAXX)
			v->v[v->n++] = x;
	}
	int all = 1;
	for (size_t i = 0; i < v->n; i++)
		all &= numeric(v->v[i]);
	if (all)
		qsort(v->v, v->n, sizeof *v->v, vcmp);
}

struct acc {
	size_t n, hit;
	double sum, min, max;
};

static double result(const struct acc *a, int stat)
{
	if (a->n == 0)
		return NAN;
	switch (stat) {
	case S_MEAN:
		return a->sum / (double)a->n;
	case S_MIN:
		return a->min;
	case S_MAX:
		return a->max;
	case S_COUNT:
		return (double)a->n;
	default:
		return (double)a->hit / (double)a->n;
	}
}

/* Make one plot: its table (markdown, malloc'd into *table), its data
 * file and its SVG. */
static int make_plot(const char *dir, const char *exp, const struct plot *p,
                     const struct csv *c, char **table, int *drawn,
                     char *err, size_t errlen)
{
	*table = NULL;
	*drawn = 0;
	int xk = colidx(c, p->x);
	if (xk < 0 && strcmp(p->x, "checkpoint") == 0)
		xk = X_CHECKPOINT;
	int sk = p->series[0] ? colidx(c, p->series) : -1;
	if (xk == -1 || (p->series[0] && sk < 0))
		return exp_fail(err, errlen, EXP_EINVAL,
		            "%s [plot.%s]: no column '%s'", exp, p->name,
		            xk == -1 ? p->x : p->series);
	struct vals xs, ss;
	distinct(c, xk, p, &xs);
	distinct(c, sk, p, &ss);
	size_t ncols = p->nl * ss.n;
	struct acc *a = calloc(xs.n * ncols + 1, sizeof *a);
	if (!a)
		return exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
	int nk[MAXL], dk[MAXL];
	for (size_t l = 0; l < p->nl; l++) {
		nk[l] = colidx(c, p->l[l].num);
		dk[l] = p->l[l].den[0] ? colidx(c, p->l[l].den) : -2;
		if (nk[l] < 0 || dk[l] == -1) {
			free(a);
			return exp_fail(err, errlen, EXP_EINVAL,
			            "%s [plot.%s]: line '%s': no such column", exp,
			            p->name, p->l[l].label);
		}
	}
	for (size_t r = 0; r < c->nrow; r++) {
		char **row = c->cell + r * c->ncol;
		const char *x = xval(c, row, xk);
		if (!x || !match(c, row, p->where, p->nw))
			continue;
		size_t xi, si = 0;
		for (xi = 0; xi < xs.n && strcmp(xs.v[xi], x); xi++)
			;
		if (sk >= 0)
			for (si = 0; si < ss.n && strcmp(ss.v[si], row[sk]); si++)
				;
		if (xi == xs.n || si == ss.n)
			continue;
		for (size_t l = 0; l < p->nl; l++) {
			const struct line *ln = &p->l[l];
			if (!match(c, row, ln->f, ln->nf))
				continue;
			if (!numeric(row[nk[l]]) ||
			    (dk[l] >= 0 && !numeric(row[dk[l]])))
				continue;
			double v = atof(row[nk[l]]);
			if (dk[l] >= 0) {
				double d = atof(row[dk[l]]);
				if (d == 0)
					continue;
				v /= d;
			}
			struct acc *q = &a[xi * ncols + l * ss.n + si];
			if (q->n == 0 || v < q->min)
				q->min = v;
			if (q->n == 0 || v > q->max)
				q->max = v;
			q->n++;
			q->sum += v;
			if ((ln->stat == S_FRAC_LT && v < ln->arg) ||
			    (ln->stat == S_FRAC_LE && v <= ln->arg) ||
			    (ln->stat == S_FRAC_GT && v > ln->arg))
				q->hit++;
		}
	}
	/* Table and data file. */
	char path[1024];
	snprintf(path, sizeof path, "%s/plots/%s-%s.dat", dir, exp, p->name);
	FILE *df = fopen(path, "w");
	size_t tcap = 256 + (xs.n + 2) * (ncols + 2) * 80;
	char *t = malloc(tcap);
	if (!df || !t) {
		if (df)
			fclose(df);
		free(t);
		free(a);
		return exp_fail(err, errlen, EXP_EIO, "%s: cannot write", path);
	}
	size_t at = 0;
	at += (size_t)snprintf(t + at, tcap - at, "| %s |",
	                       p->xlabel[0] ? p->xlabel : p->x);
	fprintf(df, "\"%s\"", p->x);
	for (size_t l = 0; l < p->nl; l++)
		for (size_t s = 0; s < ss.n; s++) {
			char lab[160];
			if (ss.v[s][0])
				snprintf(lab, sizeof lab, "%s, %s %s", p->l[l].label,
				         p->series, ss.v[s]);
			else
				snprintf(lab, sizeof lab, "%s", p->l[l].label);
			at += (size_t)snprintf(t + at, tcap - at, " %s |", lab);
			fprintf(df, "\t\"%s\"", lab);
		}
	at += (size_t)snprintf(t + at, tcap - at, " n |\n|---|");
	fputc('\n', df);
	for (size_t k = 0; k < ncols + 1; k++)
		at += (size_t)snprintf(t + at, tcap - at, "---|");
	at += (size_t)snprintf(t + at, tcap - at, "\n");
	for (size_t xi = 0; xi < xs.n; xi++) {
		/* A checkpoint row's x: the test count after '@'. */
		const char *xl = strchr(xs.v[xi], '@');
		xl = xl && xk == colidx(c, "algorithm") ? xl + 1 : xs.v[xi];
		at += (size_t)snprintf(t + at, tcap - at, "| %s |", xl);
		fprintf(df, "\"%s\"", xl);
		size_t nmax = 0;
		for (size_t k = 0; k < ncols; k++) {
			const struct acc *q = &a[xi * ncols + k];
			double v = result(q, p->l[k / ss.n].stat);
			if (q->n > nmax)
				nmax = q->n;
			if (isnan(v)) {
				at += (size_t)snprintf(t + at, tcap - at, " - |");
				fprintf(df, "\tNaN");
			} else {
				at += (size_t)snprintf(t + at, tcap - at, " %.3f |", v);
				fprintf(df, "\t%.6f", v);
			}
		}
		at += (size_t)snprintf(t + at, tcap - at, " %zu |\n", nmax);
		fputc('\n', df);
	}
	fclose(df);
	size_t have = 0;
	for (size_t k = 0; k < xs.n * ncols; k++)
		have += a[k].n > 0;
	free(a);
	*table = t;
	if (have == 0) { /* nothing to draw (yet): the table says so */
		free(t);
		*table = NULL;
		size_t l2 = strlen(exp) + strlen(p->name) + 64;
		*table = malloc(l2);
		if (*table)
			snprintf(*table, l2, "*(no rows for %s/%s yet)*\n", exp,
			         p->name);
		return EXP_OK;
	}
	/* The SVG. */
	char gp[1024], svg[1024];
	snprintf(gp, sizeof gp, "%s/plots/%s-%s.gp", dir, exp, p->name);
	snprintf(svg, sizeof svg, "%s-%s.svg", exp, p->name);
	FILE *g = fopen(gp, "w");
	if (!g)
		return exp_fail(err, errlen, EXP_EIO, "%s: cannot write", gp);
	fprintf(g,
	        "set terminal svg size 820,520 dynamic font 'Helvetica,13' "
	        "background rgb 'white'\n"
	        "set output '%s'\n"
	        "set title \"%s\"\n"
	        "set xlabel \"%s\"\nset ylabel \"%s\"\n"
	        "set key outside right top box\n"
	        "set grid\nset datafile missing 'NaN'\n"
	        "set offsets 0.3, 0.3, 0, 0\n",
	        svg, p->title, p->xlabel, p->ylabel);
	if (p->yrange[0])
		fprintf(g, "set yrange [%s]\n", p->yrange);
	/* Twelve distinguishable colours; categories (non-numeric x) as
	 * points only: a line between two families would mean nothing. */
	static const char *const colour[] = {
		"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
		"#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"};
	int cat = 0;
	for (size_t i = 0; i < xs.n; i++)
		cat |= !numeric(xs.v[i]) && !strchr(xs.v[i], '@');
	fprintf(g, "plot ");
	for (size_t k = 0; k < ncols; k++)
		fprintf(g, "%s'%s-%s.dat' using 0:%zu%s with %s lw 2 pt %zu "
		        "ps 1.3 lc rgb '%s' title columnheader",
		        k ? ", \\\n     " : "", exp, p->name, k + 2,
		        k == 0 ? ":xtic(1)" : "", cat ? "points" : "linespoints",
		        k % 13 + 1, colour[k % 12]);
	fprintf(g, "\n");
	fclose(g);
	char cmd[3072];
	snprintf(cmd, sizeof cmd, "cd '%s/plots' && gnuplot '%s-%s.gp'", dir,
	         exp, p->name);
	int st = system(cmd);
	if (st != 0)
		return exp_fail(err, errlen, EXP_EIO, "gnuplot failed on %s (status "
		            "%d); is gnuplot-nox installed?", gp, st);
	*drawn = 1;
	return EXP_OK;
}

struct made {
	char key[128];   /* EXP/PLOT */
	char *table;
	int drawn;       /* its SVG was drawn now */
};

/* Cell i (0: the x column) of the markdown table row `line` into out,
 * trimmed; 0, or -1 if the row has no cell i. */
static int md_cell(const char *line, size_t i, char *out, size_t outlen)
{
	const char *q = strchr(line, '|');
	for (size_t k = 0; q && k < i; k++)
		q = strchr(q + 1, '|');
	const char *e = q ? strchr(q + 1, '|') : NULL;
	const char *nl = strchr(line, '\n');
	if (!e || (nl && e > nl))
		return -1;
	q++;
	while (q < e && *q == ' ')
		q++;
	while (e > q && e[-1] == ' ')
		e--;
	snprintf(out, outlen, "%.*s", (int)(e - q), q);
	return 0;
}

/*
 * The value of @CELL:EXP/PLOT/ROW/COLUMN@: in the plot's table, the cell
 * of the row whose first cell (the x value) is ROW, in the column whose
 * header is COLUMN (a line's label, or "n").  0, or -1 if there is no such
 * row or column.
 */
static int table_cell(const char *table, const char *row, size_t rl,
                      const char *col, size_t cl, char *out, size_t outlen)
{
	char c[256];
	size_t ci = 0;
	for (size_t i = 1; ci == 0 && md_cell(table, i, c, sizeof c) == 0; i++)
		if (strlen(c) == cl && strncmp(c, col, cl) == 0)
			ci = i;
	if (ci == 0)
		return -1;
	for (const char *l = strchr(table, '\n'); l && l[1]; l = strchr(l + 1, '\n'))
		if (md_cell(l + 1, 0, c, sizeof c) == 0 && strlen(c) == rl &&
		    strncmp(c, row, rl) == 0)
			return md_cell(l + 1, ci, out, outlen);
	return -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int exp_report(const char *dir, const char *report, char *err, size_t errlen)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/plots", dir);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return exp_fail(err, errlen, EXP_EIO, "%s: cannot create", path);
	DIR *d = opendir(dir);
	if (!d)
		return exp_fail(err, errlen, EXP_EIO, "%s: cannot open", dir);
	char *names[256];
	size_t nn = 0;
	struct dirent *e;
	while ((e = readdir(d)) && nn < 256) {
		size_t l = strlen(e->d_name);
		if (l > 4 && strcmp(e->d_name + l - 4, ".ini") == 0)
			names[nn++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, nn, sizeof *names, by_name);
	struct made *made = calloc(256 * MAXP, sizeof *made);
	size_t nmade = 0;
	int rc = made ? EXP_OK : EXP_ENOMEM;
	struct pfile *pf = malloc(sizeof *pf);
	struct exp_spec *s = calloc(1, sizeof *s);
	if (!pf || !s)
		rc = EXP_ENOMEM;
	for (size_t i = 0; !rc && i < nn; i++) {
		if (!names[i]) {
			rc = EXP_ENOMEM;
			break;
		}
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		rc = exp_spec_load(path, s, err, errlen);
		if (rc)
			break;
		size_t len;
		char *text = slurp(path, &len);
		memset(pf, 0, sizeof *pf);
		if (!text ||
		    exp_ini_parse(text, len, path, on_plot_key, pf, err, errlen)) {
			free(text);
			exp_spec_release(s);
			rc = text ? EXP_EINVAL : EXP_EIO;
			break;
		}
		free(text);
		struct csv c;
		if (pf->np && csv_load(s->output, &c) == 0) {
			for (size_t k = 0; !rc && k < pf->np; k++) {
				struct made *m = &made[nmade++];
				snprintf(m->key, sizeof m->key, "%s/%s", s->name,
				         pf->p[k].name);
				rc = make_plot(dir, s->name, &pf->p[k], &c, &m->table,
				               &m->drawn, err, errlen);
			}
			csv_free(&c);
		} else if (pf->np) {
			csv_free(&c);
		}
		exp_spec_release(s);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(pf);
	free(s);
	/* Never replace a report with one that has no data at all (a fresh
	 * clone has no CSVs: they are not in git). */
	if (!rc && nmade == 0)
		rc = exp_fail(err, errlen, EXP_EINVAL,
		          "%s: no experiment has its CSV yet; run bin/experiment "
		          "%s/NAME.ini first (%s left as it is)", dir, dir, report);
	/* The report from its template. */
	if (!rc) {
		snprintf(path, sizeof path, "%s/REPORT.md.in", dir);
		size_t len;
		char *in = slurp(path, &len);
		char tmp[1100];
		snprintf(tmp, sizeof tmp, "%s.tmp", report);
		FILE *o = in ? fopen(tmp, "w") : NULL;
		if (!o) {
			rc = exp_fail(err, errlen, EXP_EIO, "%s: cannot read, or %s: "
			          "cannot write", path, tmp);
		} else {
			/* The plots directory relative to the report. */
			const char *rel = dir;
			const char *slash = strrchr(report, '/');
			size_t rl = slash ? (size_t)(slash - report + 1) : 0;
			if (rl && strncmp(dir, report, rl) == 0)
				rel = dir + rl;
			else if (rl && strlen(dir) == rl - 1 &&
			         strncmp(dir, report, rl - 1) == 0)
				rel = ".";
			for (char *p = in; *p;) {
				char *m = strchr(p, '@');
				if (!m) {
					fputs(p, o);
					break;
				}
				fwrite(p, 1, (size_t)(m - p), o);
				int tab = strncmp(m, "@TABLE:", 7) == 0;
				int plot = strncmp(m, "@PLOT:", 6) == 0;
				int cell = strncmp(m, "@CELL:", 6) == 0;
				char *end = (tab || plot || cell) ? strchr(m + 1, '@') : NULL;
				if (!end) {
					fputc('@', o);
					p = m + 1;
					continue;
				}
				const char *k = m + (tab ? 7 : 6);
				size_t kl = (size_t)(end - k);
				/* @CELL:EXP/PLOT/ROW/COLUMN@: the plot's key is
				 * EXP/PLOT, then the row, then the column (which
				 * may hold '/'). */
				const char *row = NULL, *col = NULL;
				if (cell) {
					const char *s1 = memchr(k, '/', kl);
					const char *s2 = s1 ? memchr(s1 + 1, '/', (size_t)(end - s1 - 1)) : NULL;
					const char *s3 = s2 ? memchr(s2 + 1, '/', (size_t)(end - s2 - 1)) : NULL;
					if (!s3) {
						rc = exp_fail(err, errlen, EXP_EINVAL,
						          "%s: %.*s: not @CELL:EXP/PLOT/ROW/COLUMN@",
						          path, (int)(end - m + 1), m);
						break;
					}
					row = s2 + 1;
					col = s3 + 1;
					kl = (size_t)(s2 - k);
				}
				struct made *f = NULL;
				for (size_t i = 0; i < nmade; i++)
					if (strlen(made[i].key) == kl &&
					    strncmp(made[i].key, k, kl) == 0)
						f = &made[i];
				if (cell && f && f->table && strncmp(f->table, "*(", 2)) {
					char v[256];
					if (table_cell(f->table, row, (size_t)(col - 1 - row),
					               col, (size_t)(end - col), v, sizeof v)) {
						rc = exp_fail(err, errlen, EXP_EINVAL,
						          "%s: %.*s: no such row or column in "
						          "the table of %.*s", path,
						          (int)(end - m + 1), m, (int)kl, k);
						break;
					}
					fputs(v, o);
				} else if (cell) {
					fprintf(o, "*(no data for %.*s)*", (int)kl, k);
				} else if (!f || (!tab && !f->drawn)) {
					fprintf(o, "*(no data for %.*s: run its "
					        "experiment)*", (int)kl, k);
				} else if (tab) {
					if (f->table)
						fputs(f->table, o);
				} else {
					char file[160];
					snprintf(file, sizeof file, "%s", f->key);
					*strchr(file, '/') = '-';
					fprintf(o, "![%s](%s/plots/%s.svg)", f->key, rel,
					        file);
				}
				p = end + 1;
			}
			if (fclose(o) != 0 || (!rc && rename(tmp, report) != 0))
				rc = rc ? rc : exp_fail(err, errlen, EXP_EIO,
				                        "%s: cannot write", report);
			if (rc)
				remove(tmp);
		}
		free(in);
	}
	for (size_t i = 0; made && i < nmade; i++)
		free(made[i].table);
	free(made);
	return rc;
}
