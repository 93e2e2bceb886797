/*
 * file.c - the machine file (mach.h): write it, read it back, and turn
 * it into the simulator's parameters for a trace's unit.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/ini.h"
#include "mach/mach.h"
#include "mach/machint.h"

/* ---- writing ---- */

/* A string made safe for a quoted INI value: no quote, no control. */
static void safe(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	for (; *s && o + 1 < len; s++)
		buf[o++] = (*s == '"' || (unsigned char)*s < 0x20 || *s == 0x7f) ? ' ' : *s;
	buf[o] = 0;
}

static void put_fig(FILE *f, const char *name, struct mach_fig v, const char *what)
{
	fprintf(f, "%s = %.0f\t; %s\n", name, v.med, what);
	fprintf(f, "%s.lo = %.0f\n%s.hi = %.0f\n", name, v.lo, name, v.hi);
}

int mach_write(const struct mach *m, FILE *f)
{
	char b[512];
	uint32_t n = m->ncpu;
	fprintf(f, "; The machine as the simulator models it (docs/sim.md, \"Machine files\"),\n"
	           "; measured by shadowbind-calibrate.  Times in ns: each figure is the\n"
	           "; median of the rounds, .lo and .hi their smallest and largest.\n"
	           "[machine]\n");
	safe(m->host, b, sizeof b);
	fprintf(f, "host = \"%s\"\n", b);
	safe(m->cpu_model, b, sizeof b);
	fprintf(f, "cpu = \"%s\"\n", b);
	safe(m->when, b, sizeof b);
	fprintf(f, "when = \"%s\"\n", b);
	safe(m->topology, b, sizeof b);
	fprintf(f, "topology = \"%s\"\n", b);
	safe(m->method, b, sizeof b);
	fprintf(f, "method = \"%s\"\n", b);
	fprintf(f, "unit = ns\n");
	fprintf(f, "; the simulator's processors 0..k-1 are these OS CPUs, in this order\ncpus =");
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, " %d", m->os_cpu[i]);
	fprintf(f, "\n");
	for (uint32_t i = 0; i < n; i++) {
		safe(m->place && m->place[i] ? m->place[i] : "", b, sizeof b);
		fprintf(f, "place.%u = \"%s\"\n", i, b);
	}
	fprintf(f, "; latency.X: what one hand-off from processor X to each processor adds\n"
	           "; to the threads' CPU time (a row of the matrix); kind.X: what the pair\n"
	           "; shares (hwloc: the deepest object holding both; - on the diagonal)\n");
	for (uint32_t x = 0; x < n; x++) {
		static const char *const part[3] = {"", ".lo", ".hi"};
		for (int p = 0; p < 3; p++) {
			fprintf(f, "latency.%u%s =", x, part[p]);
			for (uint32_t y = 0; y < n; y++) {
				const struct mach_fig *v = &m->lat[x * n + y];
				fprintf(f, " %.0f", p == 0 ? v->med : p == 1 ? v->lo : v->hi);
			}
			fprintf(f, "\n");
		}
		fprintf(f, "kind.%u =", x);
		for (uint32_t y = 0; y < n; y++) {
			const char *k = m->pair_kind ? m->pair_kind[x * n + y] : NULL;
			safe(k && *k ? k : "-", b, sizeof b);
			for (char *c = b; *c; c++)
				if (*c == ' ' || *c == ';' || *c == '#')
					*c = '_';
			fprintf(f, " %s", b);
		}
		fprintf(f, "\n");
	}
	put_fig(f, "switch", m->switch_cost, "a hand-off between two threads of one processor, beyond their CPU time");
	put_fig(f, "switch_cpu", m->switch_cpu, "its CPU time (information: a trace's work holds it)");
	put_fig(f, "create", m->create, "the creator's CPU in pthread_create, child on its processor");
	put_fig(f, "create_remote", m->create_remote, "the same, child on another processor");
	put_fig(f, "join", m->join, "the joiner's CPU in pthread_join, child on its processor");
	put_fig(f, "join_remote", m->join_remote, "the same, child on another processor");
	put_fig(f, "exit", m->exit, "a thread's CPU after its start routine (kernel's too), creator's processor");
	put_fig(f, "exit_remote", m->exit_remote, "the same, on another processor");
	if (m->has_start) {
		put_fig(f, "start", m->start, "a thread's CPU before its start routine, on its creator's processor");
		put_fig(f, "start_remote", m->start_remote, "the same, on another processor");
	}
	if (m->has_kinds) {
		put_fig(f, "wake_busy", m->wake_busy, "a wake-up onto a busy CPU (as latency)");
		put_fig(f, "transfer", m->transfer, "a cache line's move between two CPUs (a free lock)");
		put_fig(f, "sleep", m->sleep, "a blocked thread falls asleep after that long");
	}
	if (m->has_share) {
		fprintf(f, "remote_share = %.3f\t; the share of new threads the OS starts on another "
		        "CPU than their creator's (no unit)\n", m->remote_share.med);
		fprintf(f, "remote_share.lo = %.3f\nremote_share.hi = %.3f\n", m->remote_share.lo,
		        m->remote_share.hi);
	}
	if (m->has_unbound) {
		put_fig(f, "unbound_create", m->unbound_create, "unbound: the creator's extra CPU in create and join, per child the OS started on another CPU");
		put_fig(f, "unbound_start", m->unbound_start, "the child's extra before its start routine");
		put_fig(f, "unbound_exit", m->unbound_exit, "the child's extra after it");
	}
	if (m->has_wait)
		put_fig(f, "create_wait", m->create_wait, "the creator's wait (wall beyond its CPU) in pthread_create, child pinned to another processor");
	if (m->has_margin)
		fprintf(f, "margin = %g\t; allocate's advice margin on this machine, percent "
		        "(measured by its user: docs/sim.md)\n", m->margin);
	if (m->has_wake_local)
		put_fig(f, "wake_local", m->wake_local, "a blocked thread's wait when woken from its own processor (OpenMP traces only: shadowbind-calibrate --openmp)");
	if (m->has_spread)
		put_fig(f, "spread", m->spread, "a local thread's extra CPU (create to join) once the process has run a thread on another CPU");
	fflush(f);
	return ferror(f) ? -1 : 0;
}

/* ---- reading ---- */

static int perr(char *why, size_t len, const char *name, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int perr(char *why, size_t len, const char *name, size_t line, const char *fmt, ...)
{
	int o = snprintf(why, len, "%s:%zu: ", name, line);
	if (o >= 0 && (size_t)o < len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why + o, len - (size_t)o, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Up to `max` non-negative numbers (ns, below 1e15) of s into v; the
 * count, or -1 for a token that is not one. */
static long numbers(const char *s, double *v, long max)
{
	long n = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		char *e;
		errno = 0;
		double d = strtod(s, &e);
		if (e == s || errno || !(d >= 0) || d >= 1e15 || (*e && *e != ' ' && *e != '\t'))
			return -1;
		if (n < max)
			v[n] = d;
		n++;
		s = e;
	}
	return n;
}


/* The index after "prefix." in key, or -1. */
static long index_of(const char *key, const char *prefix, const char **rest)
{
	size_t p = strlen(prefix);
	if (strncmp(key, prefix, p) || key[p] != '.' || key[p + 1] < '0' || key[p + 1] > '9')
		return -1;
	char *e;
	errno = 0;
	long v = strtol(key + p + 1, &e, 10);
	if (errno || v < 0 || v >= MACH_CPUS_MAX)
		return -1;
	*rest = e;
	return v;
}

int mach_parse(const char *name, const char *buf, size_t len, struct mach *m, char *why,
               size_t whylen)
{
	memset(m, 0, sizeof *m);
	struct cli_ini ini;
	if (cli_ini_parse(name, buf, len, &ini, why, whylen) != 0)
		return -1;
	int rc = -1;
	double *v = NULL;
	/* seen: the scalars, then per CPU latency/lo/hi/kind/place */
	enum { S_UNIT, S_CPUS, S_SWITCH, S_CREATE, S_CREATE_R, S_EXIT, S_EXIT_R, S_N };
	int seen[S_N] = {0};
	unsigned kinds = 0; /* wake_busy 1, transfer 2, sleep 4: all or none */
	unsigned starts = 0; /* start_remote 1, start 2: both or neither */
	unsigned unb = 0; /* unbound_create 1, _start 2, _exit 4: all or none */
	uint8_t *row = NULL;
	size_t sec_line = 0;
	for (size_t i = 0; i < ini.n; i++) {
		const struct cli_ini_entry *e = &ini.e[i];
		if (strcmp(e->section, "machine")) {
			perr(why, whylen, name, e->line, "unknown section [%s] (a machine file has [machine])",
			     e->section);
			goto out;
		}
		if (!e->key) {
			sec_line = e->line;
			continue;
		}
		if (!strcmp(e->key, "cpus")) {
			long c = numbers(e->value, NULL, 0);
			if (c < 1 || c > MACH_CPUS_MAX) {
				perr(why, whylen, name, e->line, "cpus: expected 1 to %d OS CPU numbers",
				     MACH_CPUS_MAX);
				goto out;
			}
			double *d = malloc((size_t)c * sizeof *d);
			m->os_cpu = calloc((size_t)c, sizeof *m->os_cpu);
			m->lat = calloc((size_t)c * (size_t)c, sizeof *m->lat);
			m->place = calloc((size_t)c, sizeof *m->place);
			m->pair_kind = calloc((size_t)c * (size_t)c, sizeof *m->pair_kind);
			row = calloc((size_t)c, 1);
			v = malloc((size_t)c * sizeof *v);
			m->ncpu = (uint32_t)c;
			if (!d || !m->os_cpu || !m->lat || !m->place || !m->pair_kind || !row || !v) {
				free(d);
				snprintf(why, whylen, "%s: out of memory", name);
				goto out;
			}
			numbers(e->value, d, c);
			for (long k = 0; k < c; k++) {
				if (d[k] != floor(d[k]) || d[k] >= 1e6) {
					free(d);
					char q[64];
					perr(why, whylen, name, e->line, "cpus: '%s' is not a list of CPU numbers",
					     cli_quote(e->value, strlen(e->value), q, sizeof q));
					goto out;
				}
				m->os_cpu[k] = (int)d[k];
			}
			free(d);
			seen[S_CPUS] = 1;
			continue;
		}
		static const char *const text[] = {"host", "cpu", "when", "topology", "method"};
		char *dst[] = {m->host, m->cpu_model, m->when, m->topology, m->method};
		size_t dlen[] = {sizeof m->host, sizeof m->cpu_model, sizeof m->when,
		                 sizeof m->topology, sizeof m->method};
		int done = 0;
		for (int k = 0; k < 5; k++)
			if (!strcmp(e->key, text[k])) {
				snprintf(dst[k], dlen[k], "%s", e->value);
				done = 1;
			}
		if (done)
			continue;
		if (!strcmp(e->key, "margin")) {
			double d;
			if (numbers(e->value, &d, 1) != 1 || d > 100) {
				perr(why, whylen, name, e->line, "margin: expected a percentage from 0 to 100");
				goto out;
			}
			m->margin = d;
			m->has_margin = 1;
			continue;
		}
		if (!strcmp(e->key, "unit")) {
			if (strcmp(e->value, "ns")) {
				char q[64];
				perr(why, whylen, name, e->line, "unit: '%s': a machine file is in ns",
				     cli_quote(e->value, strlen(e->value), q, sizeof q));
				goto out;
			}
			seen[S_UNIT] = 1;
			continue;
		}
		/* The figures, one row each, in matching order (a key before
		 * the keys it begins: switch_cpu before switch): where it goes,
		 * the seen[] slot it fills (-1 none), and the optional group
		 * it belongs to with its bit there (kinds of hand-off, start
		 * costs) or the share. */
		enum { G_NONE, G_KIND, G_START, G_SHARE, G_UNBOUND, G_WAIT, G_LOCAL, G_SPREAD };
		static const struct {
			const char *key;
			size_t off;  /* offsetof(struct mach, the figure) */
			int need;    /* S_*, or -1                        */
			int group;   /* G_*                               */
			int bit;     /* in kinds or starts                */
		} rows[] = {
			{.key = "switch_cpu", .off = offsetof(struct mach, switch_cpu), .need = -1},
			{.key = "switch", .off = offsetof(struct mach, switch_cost), .need = S_SWITCH},
			{.key = "create_wait", .off = offsetof(struct mach, create_wait), .need = -1,
			 .group = G_WAIT},
			{.key = "create_remote", .off = offsetof(struct mach, create_remote), .need = S_CREATE_R},
			{.key = "create", .off = offsetof(struct mach, create), .need = S_CREATE},
			{.key = "exit_remote", .off = offsetof(struct mach, exit_remote), .need = S_EXIT_R},
			{.key = "exit", .off = offsetof(struct mach, exit), .need = S_EXIT},
			{.key = "join_remote", .off = offsetof(struct mach, join_remote), .need = -1},
			{.key = "join", .off = offsetof(struct mach, join), .need = -1},
			{.key = "wake_busy", .off = offsetof(struct mach, wake_busy), .need = -1,
			 .group = G_KIND, .bit = 0},
			{.key = "transfer", .off = offsetof(struct mach, transfer), .need = -1,
			 .group = G_KIND, .bit = 1},
			{.key = "sleep", .off = offsetof(struct mach, sleep), .need = -1,
			 .group = G_KIND, .bit = 2},
			{.key = "start_remote", .off = offsetof(struct mach, start_remote), .need = -1,
			 .group = G_START, .bit = 0},
			{.key = "start", .off = offsetof(struct mach, start), .need = -1,
			 .group = G_START, .bit = 1},
			{.key = "remote_share", .off = offsetof(struct mach, remote_share), .need = -1,
			 .group = G_SHARE},
			{.key = "unbound_create", .off = offsetof(struct mach, unbound_create),
			 .need = -1, .group = G_UNBOUND, .bit = 0},
			{.key = "unbound_start", .off = offsetof(struct mach, unbound_start),
			 .need = -1, .group = G_UNBOUND, .bit = 1},
			{.key = "unbound_exit", .off = offsetof(struct mach, unbound_exit),
			 .need = -1, .group = G_UNBOUND, .bit = 2},
			{.key = "wake_local", .off = offsetof(struct mach, wake_local), .need = -1,
			 .group = G_LOCAL},
			{.key = "spread", .off = offsetof(struct mach, spread), .need = -1,
			 .group = G_SPREAD},
		};
		for (size_t k = 0; k < sizeof rows / sizeof *rows && !done; k++) {
			size_t l = strlen(rows[k].key);
			if (strncmp(e->key, rows[k].key, l))
				continue;
			const char *rest = e->key + l;
			struct mach_fig *fig = (struct mach_fig *)((char *)m + rows[k].off);
			double *slot = !*rest ? &fig->med : !strcmp(rest, ".lo") ? &fig->lo :
			               !strcmp(rest, ".hi") ? &fig->hi : NULL;
			if (!slot)
				continue;
			int share = rows[k].group == G_SHARE;
			double d;
			if (numbers(e->value, &d, 1) != 1 || (share && d > 1)) {
				perr(why, whylen, name, e->line, share ? "%s: expected a share from 0 to 1" :
				     "%s: expected a time in ns", e->key);
				goto out;
			}
			*slot = d;
			if (!*rest && rows[k].need >= 0)
				seen[rows[k].need] = 1;
			if (!*rest && rows[k].group == G_KIND)
				kinds |= 1 << rows[k].bit;
			if (!*rest && rows[k].group == G_START)
				starts |= 1 << rows[k].bit;
			if (!*rest && share)
				m->has_share = 1;
			if (!*rest && rows[k].group == G_WAIT)
				m->has_wait = 1;
			if (!*rest && rows[k].group == G_LOCAL)
				m->has_wake_local = 1;
			if (!*rest && rows[k].group == G_SPREAD)
				m->has_spread = 1;
			if (!*rest && rows[k].group == G_UNBOUND)
				unb |= 1u << rows[k].bit;
			done = 1;
		}
		if (done)
			continue;
		const char *rest;
		long x;
		int which = -1; /* 0 latency, 1 .lo, 2 .hi, 3 kind, 4 place */
		if ((x = index_of(e->key, "latency", &rest)) >= 0)
			which = !*rest ? 0 : !strcmp(rest, ".lo") ? 1 : !strcmp(rest, ".hi") ? 2 : -1;
		else if ((x = index_of(e->key, "kind", &rest)) >= 0)
			which = *rest ? -1 : 3;
		else if ((x = index_of(e->key, "place", &rest)) >= 0)
			which = *rest ? -1 : 4;
		if (which < 0) {
			perr(why, whylen, name, e->line, "unknown key '%s'", e->key);
			goto out;
		}
		if (!seen[S_CPUS]) {
			perr(why, whylen, name, e->line, "%s before cpus", e->key);
			goto out;
		}
		uint32_t n = m->ncpu;
		if ((uint32_t)x >= n) {
			perr(why, whylen, name, e->line, "%s: cpus names %u CPUs (0..%u)", e->key, n,
			     n - 1);
			goto out;
		}
		if (which == 4) {
			free(m->place[x]);
			m->place[x] = mach_dupstr(e->value);
		} else if (which == 3) {
			const char *s = e->value;
			for (uint32_t y = 0; y < n; y++) {
				while (*s == ' ' || *s == '\t')
					s++;
				size_t l = strcspn(s, " \t");
				if (!l) {
					perr(why, whylen, name, e->line, "%s: expected %u words", e->key, n);
					goto out;
				}
				char *k = malloc(l + 1);
				if (!k) {
					snprintf(why, whylen, "%s: out of memory", name);
					goto out;
				}
				memcpy(k, s, l);
				k[l] = 0;
				if (l == 1 && k[0] == '-')
					k[0] = 0;
				free(m->pair_kind[(size_t)x * n + y]);
				m->pair_kind[(size_t)x * n + y] = k;
				s += l;
			}
		} else {
			if (numbers(e->value, v, n) != (long)n) {
				perr(why, whylen, name, e->line, "%s: expected %u times in ns", e->key, n);
				goto out;
			}
			if (v[x] != 0) {
				perr(why, whylen, name, e->line,
				     "%s: the latency of a processor to itself must be 0", e->key);
				goto out;
			}
			for (uint32_t y = 0; y < n; y++) {
				struct mach_fig *f = &m->lat[(size_t)x * n + y];
				*(which == 0 ? &f->med : which == 1 ? &f->lo : &f->hi) = v[y];
			}
			if (which == 0)
				row[x] = 1;
		}
		if (which >= 3 && ((which == 4 && !m->place[x]))) {
			snprintf(why, whylen, "%s: out of memory", name);
			goto out;
		}
	}
	static const char *const need[S_N] = {"unit", "cpus", "switch", "create",
	                                      "create_remote", "exit", "exit_remote"};
	for (int k = 0; k < S_N; k++)
		if (!seen[k]) {
			perr(why, whylen, name, sec_line, "[machine] has no %s", need[k]);
			goto out;
		}
	if (kinds && kinds != 7) {
		perr(why, whylen, name, sec_line, "[machine] has %s without %s",
		     kinds & 1 ? "wake_busy" : kinds & 2 ? "transfer" : "sleep",
		     !(kinds & 1) ? "wake_busy" : !(kinds & 2) ? "transfer" : "sleep");
		goto out;
	}
	m->has_kinds = kinds == 7;
	if (starts == 1 || starts == 2) {
		perr(why, whylen, name, sec_line, "[machine] has %s without %s",
		     starts == 1 ? "start_remote" : "start", starts == 1 ? "start" : "start_remote");
		goto out;
	}
	m->has_start = starts == 3;
	if (unb && unb != 7) {
		static const char *const uk[] = {"unbound_create", "unbound_start", "unbound_exit"};
		int have = unb & 1 ? 0 : unb & 2 ? 1 : 2, lack = !(unb & 1) ? 0 : !(unb & 2) ? 1 : 2;
		perr(why, whylen, name, sec_line, "[machine] has %s without %s", uk[have], uk[lack]);
		goto out;
	}
	m->has_unbound = unb == 7;
	for (uint32_t x = 0; x < m->ncpu; x++)
		if (!row[x]) {
			perr(why, whylen, name, sec_line, "[machine] has no latency.%u", x);
			goto out;
		}
	rc = 0;
out:
	free(v);
	free(row);
	cli_ini_release(&ini);
	if (rc)
		mach_release(m);
	return rc;
}

int mach_read(const char *path, struct mach *m, char *why, size_t len)
{
	memset(m, 0, sizeof *m);
	char *b = NULL;
	size_t n = 0;
	if (cli_slurp(path, &b, &n, why, len) != CLI_OK)
		return -1;
	int rc = mach_parse(path, b, n, m, why, len);
	free(b);
	return rc;
}

/* ---- the model ---- */

static uint64_t in_unit(double ns, double per)
{
	return (uint64_t)llround(ns / per);
}

int mach_model_init(struct mach_model *mm, const struct mach *m, uint32_t k,
                    enum trace_unit unit, char *why, size_t len)
{
	memset(mm, 0, sizeof *mm);
	static const double ns_per[] = {[TRACE_NS] = 1, [TRACE_US] = 1e3, [TRACE_MS] = 1e6,
	                                [TRACE_S] = 1e9};
	if (unit != TRACE_NS && unit != TRACE_US && unit != TRACE_MS && unit != TRACE_S) {
		snprintf(why, len, "a machine file needs a trace that declares its time unit "
		         "(ns, us, ms or s)");
		return -1;
	}
	if (k == 0 || k > m->ncpu) {
		snprintf(why, len, "the machine file describes %u CPU%s, not %u", m->ncpu,
		         m->ncpu == 1 ? "" : "s", k);
		return -1;
	}
	double per = ns_per[unit];
	mm->lat = calloc((size_t)k * k, sizeof *mm->lat);
	if (!mm->lat) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	mm->k = k;
	for (uint32_t x = 0; x < k; x++)
		for (uint32_t y = 0; y < k; y++)
			mm->lat[x * k + y] = x == y ? 0 : in_unit(m->lat[(size_t)x * m->ncpu + y].med, per);
	/* a shadow processor (one per thread: the critical path) is as far
	 * as the farthest pair of the machine (with one CPU described: 0,
	 * the contract's default) */
	for (size_t q = 0; q < (size_t)m->ncpu * m->ncpu; q++) {
		uint64_t t = in_unit(m->lat[q].med, per);
		if (q / m->ncpu != q % m->ncpu && t > mm->latency)
			mm->latency = t;
	}
	mm->switch_cost = in_unit(m->switch_cost.med, per);
	/* the work of a trace recorded on one CPU holds a local create */
	mm->create_cost = 0;
	double extra = (m->create_remote.med - m->create.med) +
	               (m->join_remote.med - m->join.med);
	mm->create_cost_remote = extra > 0 ? in_unit(extra, per) : 0;
	mm->exit_cost = in_unit(m->exit.med, per);
	mm->exit_cost_remote = in_unit(m->exit_remote.med, per);
	double sx = m->has_start ? m->start_remote.med - m->start.med : 0;
	mm->start_cost_remote = sx > 0 ? in_unit(sx, per) : 0;
	/* unbound, the share of children started on the creator's CPU (no
	 * remote_share: every child remote, the rule before it) */
	mm->local_ppm = m->has_share ?
	                (uint32_t)llround(1e6 * (1 - m->remote_share.med)) : 0;
	/* unbound, a remote child's costs as the OS's placement has them */
	mm->unbound_costs = m->has_unbound;
	if (m->has_unbound) {
		double uc = m->unbound_create.med, us = m->unbound_start.med,
		       ux = m->unbound_exit.med;
		mm->unbound_create_cost_remote = uc > 0 ? in_unit(uc, per) : 0;
		mm->unbound_start_cost_remote = us > 0 ? in_unit(us, per) : 0;
		mm->unbound_exit_cost_remote = in_unit(m->exit.med + (ux > 0 ? ux : 0), per);
	}
	/* bound: the creator's wait in a remote create (off its CPU) */
	double cw = m->has_wait ? m->create_wait.med : 0;
	mm->create_wait_remote = cw > 0 ? in_unit(cw, per) : 0;
	/* a wake-up from the thread's own processor (bench/validate's
	 * OpenMP file; none without it) */
	double wl = m->has_wake_local ? m->wake_local.med : 0;
	mm->wake_local = wl > 0 ? in_unit(wl, per) : 0;
	/* bound: a local create's extra once the process is spread over
	 * two processors (none without it) */
	double sp = m->has_spread ? m->spread.med : 0;
	mm->spread_create = sp > 0 ? in_unit(sp, per) : 0;
	mm->lat_kinds = m->has_kinds;
	mm->wake_busy = m->has_kinds ? in_unit(m->wake_busy.med, per) : 0;
	mm->transfer = m->has_kinds ? in_unit(m->transfer.med, per) : 0;
	mm->sleep = m->has_kinds ? in_unit(m->sleep.med, per) : 0;
	mm->has_margin = m->has_margin;
	mm->margin = m->margin;
	return 0;
}

void mach_model_release(struct mach_model *mm)
{
	if (mm) {
		free(mm->lat);
		memset(mm, 0, sizeof *mm);
	}
}

void mach_model_apply(const struct mach_model *mm, struct sim_params *par)
{
	par->cpus = mm->k;
	par->lat_matrix = mm->lat;
	par->latency = mm->latency;
	par->switch_cost = mm->switch_cost;
	par->create_cost = mm->create_cost;
	par->create_cost_remote = mm->create_cost_remote;
	par->exit_cost = mm->exit_cost;
	par->exit_cost_remote = mm->exit_cost_remote;
	par->start_cost_remote = mm->start_cost_remote;
	par->create_wait_remote = mm->create_wait_remote;
	par->unbound_local_ppm = mm->local_ppm;
	par->unbound_costs = mm->unbound_costs;
	par->unbound_create_cost_remote = mm->unbound_create_cost_remote;
	par->unbound_start_cost_remote = mm->unbound_start_cost_remote;
	par->unbound_exit_cost_remote = mm->unbound_exit_cost_remote;
	par->lat_kinds = mm->lat_kinds;
	par->wake_busy = mm->wake_busy;
	par->transfer = mm->transfer;
	par->sleep = mm->sleep;
	par->wake_local = mm->wake_local;
	par->spread_create = mm->spread_create;
	par->spread_cached = MACH_STACKS_CACHED;
	par->machine = 1;
}
