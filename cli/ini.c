/* ini.c - the strict INI reader (ini.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/ini.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* Trim blanks of [*b, *e). */
static void trim(const char **b, const char **e)
{
	while (*b < *e && is_blank(**b))
		(*b)++;
	while (*e > *b && is_blank((*e)[-1]))
		(*e)--;
}

static int all_name(const char *b, const char *e)
{
	if (b == e)
		return 0;
	for (; b < e; b++)
		if (!is_name(*b))
			return 0;
	return 1;
}

struct P {
	const char *name;
	char *pool;
	size_t used;
	char *why;
	size_t whylen;
};

static const char *keep(struct P *p, const char *b, const char *e)
{
	char *s = p->pool + p->used;
	memcpy(s, b, (size_t)(e - b));
	s[e - b] = 0;
	p->used += (size_t)(e - b) + 1;
	return s;
}

static int bad(struct P *p, size_t line, const char *what, const char *b,
               const char *e)
{
	char q[160];
	if (b)
		snprintf(p->why, p->whylen, "%s:%zu: %s: '%s'", p->name, line, what,
		         cli_quote(b, (size_t)(e - b), q, 80));
	else
		snprintf(p->why, p->whylen, "%s:%zu: %s", p->name, line, what);
	return -1;
}

/* For the duplicate check: entries sorted by (section, key), then line. */
static int cmp_entry(const void *a, const void *b)
{
	const struct cli_ini_entry *x = a, *y = b;
	int c = strcmp(x->section, y->section);
	if (c)
		return c;
	if (!x->key || !y->key) {
		if (x->key != y->key)
			return x->key ? 1 : -1;
	} else if ((c = strcmp(x->key, y->key))) {
		return c;
	}
	return x->line < y->line ? -1 : x->line > y->line;
}

static int same(const struct cli_ini_entry *a, const struct cli_ini_entry *b)
{
	return !strcmp(a->section, b->section) && (a->key == NULL) == (b->key == NULL) &&
	       (!a->key || !strcmp(a->key, b->key));
}

int cli_ini_parse(const char *name, const char *buf, size_t len,
                  struct cli_ini *out, char *why, size_t whylen)
{
	return cli_ini_parse_flags(name, buf, len, 0, out, why, whylen);
}

int cli_ini_parse_flags(const char *name, const char *buf, size_t len,
                        unsigned flags, struct cli_ini *out, char *why,
                        size_t whylen)
{
	memset(out, 0, sizeof *out);
	if (len > (SIZE_MAX - 16) / 3) {
		snprintf(why, whylen, "%s: too large", name);
		return -1;
	}
	struct P p = {.name = name, .why = why, .whylen = whylen};
	p.pool = malloc(3 * len + 16);
	struct cli_ini_entry *e = malloc((len + 1) * sizeof *e);
	char *nm = strdup(name);
	if (!p.pool || !e || !nm) {
		free(p.pool);
		free(e);
		free(nm);
		snprintf(why, whylen, "%s: out of memory", name);
		return -1;
	}
	size_t n = 0, line = 0;
	const char *section = NULL;
	int rc = 0;
	for (const char *s = buf, *end = buf + len; s < end && rc == 0;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		const char *next = nl ? nl + 1 : end;
		line++;
		if (memchr(s, 0, (size_t)(le - s))) {
			rc = bad(&p, line, "a NUL byte", NULL, NULL);
			break;
		}
		const char *b = s, *t = le;
		if (t > b && t[-1] == '\r')
			t--;
		const char *rawb = b, *rawe = t;
		trim(&b, &t);
		s = next;
		if (b == t || *b == ';' || *b == '#')
			continue;
		if (*b == '[') {
			const char *close = memchr(b, ']', (size_t)(t - b));
			const char *after = close ? close + 1 : t;
			while (after < t && is_blank(*after))
				after++;
			const char *nb = b + 1, *ne = close ? close : b;
			trim(&nb, &ne);
			if (!close || (after < t && *after != ';' && *after != '#') ||
			    !all_name(nb, ne)) {
				rc = bad(&p, line, "syntax error: not a [section] (names: letters, "
				         "digits, _ - .)", rawb, rawe);
				break;
			}
			section = keep(&p, nb, ne);
			e[n++] = (struct cli_ini_entry){section, NULL, NULL, line};
			continue;
		}
		const char *eq = memchr(b, '=', (size_t)(t - b));
		const char *kb = b, *ke = eq ? eq : b;
		trim(&kb, &ke);
		if (!eq || !all_name(kb, ke)) {
			rc = bad(&p, line, "syntax error: not a [section], key = value, or "
			         "comment", rawb, rawe);
			break;
		}
		if (!section) {
			rc = bad(&p, line, "key outside any [section]", kb, ke);
			break;
		}
		const char *vb = eq + 1, *ve = t;
		trim(&vb, &ve);
		if (vb < ve && *vb == '"') {
			const char *q = memchr(vb + 1, '"', (size_t)(ve - vb - 1));
			const char *rest = q ? q + 1 : ve;
			while (rest < ve && is_blank(*rest))
				rest++;
			if (!q || (rest < ve && *rest != ';' && *rest != '#')) {
				rc = bad(&p, line, "syntax error: a quoted value must end "
				         "with '\"'", rawb, rawe);
				break;
			}
			vb++;
			ve = q;
		} else {
			for (const char *c = vb; c < ve; c++) {
				if ((*c == ';' || *c == '#') && c > vb && is_blank(c[-1])) {
					ve = c;
					break;
				}
			}
			trim(&vb, &ve);
		}
		const char *key = keep(&p, kb, ke);
		const char *val = keep(&p, vb, ve);
		e[n++] = (struct cli_ini_entry){section, key, val, line};
	}
	if (rc == 0 && n > 1 && !(flags & CLI_INI_REPEATS)) {
		/* Duplicates: the repeat with the smallest line is reported. */
		struct cli_ini_entry *sorted = malloc(n * sizeof *sorted);
		if (!sorted) {
			snprintf(why, whylen, "%s: out of memory", name);
			rc = -1;
		} else {
			memcpy(sorted, e, n * sizeof *sorted);
			qsort(sorted, n, sizeof *sorted, cmp_entry);
			const struct cli_ini_entry *first = NULL, *rep = NULL;
			/* Groups of equal (section, key), each sorted by line:
			 * its first repeat is its second entry. */
			for (size_t i = 0, j; i < n; i = j) {
				for (j = i + 1; j < n && same(&sorted[i], &sorted[j]); j++)
					;
				if (j > i + 1 && (!rep || sorted[i + 1].line < rep->line)) {
					first = &sorted[i];
					rep = &sorted[i + 1];
				}
			}
			if (rep) {
				char q1[160], q2[160];
				cli_quote(rep->section, strlen(rep->section), q1, 80);
				if (rep->key)
					snprintf(why, whylen, "%s:%zu: [%s] %s: repeated (first "
					         "at line %zu)", name, rep->line, q1,
					         cli_quote(rep->key, strlen(rep->key), q2, 80),
					         first->line);
				else
					snprintf(why, whylen, "%s:%zu: section [%s] repeated "
					         "(first at line %zu)", name, rep->line, q1,
					         first->line);
				rc = -1;
			}
			free(sorted);
		}
	}
	if (rc) {
		free(p.pool);
		free(e);
		free(nm);
		return -1;
	}
	out->name = nm;
	out->e = e;
	out->n = n;
	out->pool = p.pool;
	return 0;
}

int cli_ini_read(const char *path, struct cli_ini *out, char *why, size_t whylen)
{
	char *buf;
	size_t n;
	memset(out, 0, sizeof *out);
	if (cli_slurp(path, &buf, &n, why, whylen) != CLI_OK)
		return -1;
	int rc = cli_ini_parse(cli_input_name(path), buf, n, out, why, whylen);
	free(buf);
	return rc;
}

void cli_ini_release(struct cli_ini *ini)
{
	if (!ini)
		return;
	free(ini->name);
	free(ini->e);
	free(ini->pool);
	memset(ini, 0, sizeof *ini);
}

const struct cli_ini_entry *cli_ini_get(const struct cli_ini *ini,
                                        const char *section, const char *key)
{
	for (size_t i = 0; i < ini->n; i++)
		if (ini->e[i].key && strcmp(ini->e[i].section, section) == 0 &&
		    strcmp(ini->e[i].key, key) == 0)
			return &ini->e[i];
	return NULL;
}
