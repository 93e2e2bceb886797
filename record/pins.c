/*
 * pins.c - a binding file into the launcher's pin list (record.h:
 * rec_pins_from_binding).  The binding reader of trace/ validates the file
 * against a trace; the launcher has no trace, so a first pass collects the
 * thread ids (and the unit) the file names and builds the smallest trace
 * with exactly those threads, against which the official reader then
 * checks everything (duplicates, ranges, header).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/recint.h"

int rec_cpu_count(const cpu_set_t *s)
{
	return CPU_COUNT(s);
}

int rec_cpu_first(const cpu_set_t *s)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, s))
			return c;
	return -1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The ids of the thread lines and the unit: the first token of a line
 * that is all digits, after the magic line. */
static int prepass(const char *buf, size_t len, uint32_t **ids, uint32_t *n,
                   enum trace_unit *unit)
{
	size_t cap = 64;
	*ids = malloc(cap * sizeof **ids);
	*n = 0;
	*unit = TRACE_TICK;
	if (!*ids)
		return -1;
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *s = p;
		while (s < e && is_blank(*s))
			s++;
		const char *t = s;
		while (t < e && !is_blank(*t) && *t != '#')
			t++;
		if (t > s && *s >= '0' && *s <= '9') {
			uint64_t v = 0;
			const char *d = s;
			while (d < t && *d >= '0' && *d <= '9' && v < TRACE_ID_LIMIT)
				v = v * 10 + (uint64_t)(*d++ - '0');
			if (d == t && v < TRACE_ID_LIMIT) {
				if (*n == cap) {
					uint32_t *g = realloc(*ids, 2 * cap * sizeof *g);
					if (!g)
						return -1;
					*ids = g;
					cap *= 2;
				}
				(*ids)[(*n)++] = (uint32_t)v;
			}
		} else if ((size_t)(t - s) == 4 && !memcmp(s, "unit", 4)) {
			static const char *const u[] = { "tick", "ns", "us", "ms", "s" };
			const char *v = t;
			while (v < e && is_blank(*v))
				v++;
			const char *ve = v;
			while (ve < e && !is_blank(*ve) && *ve != '#')
				ve++;
			for (int k = 0; k < 5; k++)
				if ((size_t)(ve - v) == strlen(u[k]) && !memcmp(v, u[k], strlen(u[k])))
					*unit = (enum trace_unit)k;
		}
		p = e + 1;
	}
	qsort(*ids, *n, sizeof **ids, cmp_u32);
	uint32_t k = 0;
	for (uint32_t i = 0; i < *n; i++)
		if (!k || (*ids)[k - 1] != (*ids)[i])
			(*ids)[k++] = (*ids)[i];
	*n = k;
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	while (b) {
		size_t r = fread(b + n, 1, cap - n, f);
		n += r;
		if (n < cap)
			break;
		if (cap >= (1u << 28)) {
			free(b);
			b = NULL;
			errno = EFBIG;
			break;
		}
		char *g = realloc(b, cap * 2);
		if (!g) {
			free(b);
			b = NULL;
			break;
		}
		b = g;
		cap *= 2;
	}
	if (b && ferror(f)) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = n;
	return b;
}

/* The `map` value: OS CPU of logical processor p, for p < k. */
static int parse_map(const char *map, uint32_t k, int *cpu, struct trace_error *err,
                     const char *path)
{
	const char *s = map;
	for (uint32_t p = 0; p < k; p++) {
		while (is_blank(*s))
			s++;
		char num[16];
		size_t n = 0;
		while (*s >= '0' && *s <= '9' && n < sizeof num - 1)
			num[n++] = *s++;
		num[n] = 0;
		uint64_t v;
		if (!n || trace_parse_u64(num, CPU_SETSIZE - 1, &v) < 0)
			return rec_fail(err, "%s: map: OS CPU of processor %u is missing or not a CPU number",
			                path, p);
		cpu[p] = (int)v;
	}
	return 0;
}

int rec_pins_from_binding(const char *path, const cpu_set_t *allowed, char **pins,
                          uint32_t *nthreads, char **advice, struct trace_error *err)
{
	*pins = NULL;
	*nthreads = 0;
	if (advice)
		*advice = NULL;
	size_t len;
	char *buf = slurp(path, &len);
	if (!buf)
		return rec_fail(err, "%s: %s", path, strerror(errno));
	uint32_t *ids = NULL, n = 0;
	enum trace_unit unit;
	struct trace tr;
	struct trace_binding b;
	memset(&tr, 0, sizeof tr);
	memset(&b, 0, sizeof b);
	int rc = -1, *cpu = NULL;
	if (prepass(buf, len, &ids, &n, &unit) < 0) {
		rec_fail(err, "%s: out of memory", path);
		goto out;
	}
	tr.unit = unit;
	tr.nthreads = n;
	tr.threads = calloc(n ? n : 1, sizeof *tr.threads);
	if (!tr.threads) {
		rec_fail(err, "%s: out of memory", path);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		tr.threads[i].id = ids[i];
		tr.threads[i].name = TRACE_NONE;
	}
	if (trace_binding_read_mem(path, buf, len, &tr, &b, err) < 0)
		goto out;
	if (!n || ids[0] != 1) {
		rec_fail(err, "%s: the binding does not name thread 1 (the initial thread)", path);
		goto out;
	}
	int have = rec_cpu_count(allowed);
	if (b.cpus > (uint32_t)have) {
		rec_fail(err, "%s: the binding needs %u processors, but only %d CPUs are available here",
		         path, b.cpus, have);
		goto out;
	}
	cpu = malloc(b.cpus * sizeof *cpu);
	if (!cpu) {
		rec_fail(err, "%s: out of memory", path);
		goto out;
	}
	if (b.map) {
		if (parse_map(b.map, b.cpus, cpu, err, path) < 0)
			goto out;
	} else {
		/* identity over the CPUs we may use: logical p -> the p-th
		 * allowed CPU (the same as p on an unrestricted machine) */
		int p = 0;
		for (int c = 0; c < CPU_SETSIZE && p < (int)b.cpus; c++)
			if (CPU_ISSET(c, allowed))
				cpu[p++] = c;
	}
	for (uint32_t p = 0; p < b.cpus; p++)
		if (!CPU_ISSET(cpu[p], allowed)) {
			rec_fail(err, "%s: processor %u maps to OS CPU %d, which is not available here",
			         path, p, cpu[p]);
			goto out;
		}
	size_t cap = (size_t)ids[n - 1] * 12 + 16, o = 0;
	char *s = malloc(cap);
	if (!s) {
		rec_fail(err, "%s: out of memory", path);
		goto out;
	}
	uint32_t k = 0;
	for (uint32_t id = 1; id <= ids[n - 1]; id++) {
		if (k < n && ids[k] == id) {
			int32_t pr = b.proc[k++];
			if (pr == TRACE_SHADOW) {
				free(s);
				rec_fail(err, "%s: thread %u is on a shadow processor, which a real run does not have",
				         path, id);
				goto out;
			}
			o += (size_t)snprintf(s + o, cap - o, "%s%d", id > 1 ? "," : "", cpu[pr]);
		} else {
			o += (size_t)snprintf(s + o, cap - o, "%s-", id > 1 ? "," : "");
		}
	}
	*pins = s;
	*nthreads = n;
	if (advice) { /* handed over: the release below frees the rest */
		*advice = b.advice;
		b.advice = NULL;
	}
	rc = 0;
out:
	trace_binding_release(&b);
	free(tr.threads);
	free(ids);
	free(cpu);
	free(buf);
	return rc;
}

/* "NAME=VALUE", malloc'd, or NULL. */
static char *env_var(const char *name, const char *value)
{
	size_t a = strlen(name), b = strlen(value);
	char *e = malloc(a + b + 2);
	if (!e)
		return NULL;
	memcpy(e, name, a);
	e[a] = '=';
	memcpy(e + a + 1, value, b + 1);
	return e;
}

int rec_pin_env(const char *binding, const char *trace, const cpu_set_t *allowed,
                char *env[2], char **advice, struct trace_error *err)
{
	env[0] = env[1] = NULL;
	char *pins = NULL, *tree = NULL;
	uint32_t nthreads;
	if (rec_pins_from_binding(binding, allowed, &pins, &nthreads, advice, err) < 0 ||
	    (trace && rec_tree_from_trace(trace, &tree, err) < 0)) {
		free(pins);
		if (advice) {
			free(*advice);
			*advice = NULL;
		}
		return -1;
	}
	env[0] = env_var("SHADOWBIND_PIN", pins);
	env[1] = tree ? env_var("SHADOWBIND_TREE", tree) : NULL;
	int oom = !env[0] || (tree && !env[1]);
	free(pins);
	free(tree);
	if (oom) {
		free(env[0]);
		free(env[1]);
		env[0] = env[1] = NULL;
		if (advice) {
			free(*advice);
			*advice = NULL;
		}
		rec_fail(err, "out of memory");
		return -2;
	}
	return 0;
}

char *rec_omp_places(const char *pins)
{
	if (!strncmp(pins, "SHADOWBIND_PIN=", 15))
		pins += 15;
	size_t n = strlen(pins);
	if (!n || n > (1u << 20))
		return NULL;
	char *out = malloc(2 * n + 8), *o = out;
	if (!out)
		return NULL;
	for (const char *p = pins; *p;) {
		if (*p < '0' || *p > '9') {
			free(out); /* a thread the binding does not name */
			return NULL;
		}
		if (o != out)
			*o++ = ',';
		*o++ = '{';
		while (*p >= '0' && *p <= '9')
			*o++ = *p++;
		*o++ = '}';
		if (*p == ',')
			p++;
		else if (*p) {
			free(out);
			return NULL;
		}
	}
	*o = 0;
	return out;
}

int rec_pins_share(const char *pins)
{
	if (!strncmp(pins, "SHADOWBIND_PIN=", 15))
		pins += 15;
	for (const char *p = pins; *p;) {
		const char *q = p;
		while (*q && *q != ',')
			q++;
		size_t len = (size_t)(q - p);
		for (const char *r = *q ? q + 1 : q; *r && len && *p != '-';) {
			const char *e = r;
			while (*e && *e != ',')
				e++;
			if ((size_t)(e - r) == len && !strncmp(p, r, len))
				return 1;
			r = *e ? e + 1 : e;
		}
		p = *q ? q + 1 : q;
	}
	return 0;
}
