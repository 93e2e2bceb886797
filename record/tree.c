/*
 * tree.c - who created whom in a recorded trace, for the launcher
 * (record.h: rec_tree_from_trace).
 *
 * The launcher needs only the `create` records, so the trace is scanned
 * line by line without building it (issue 20: reading a 553 MB trace
 * whole took 1.8 s and 950 MB before the program could start): memory is
 * one line and one pair per create.  The trace was validated when it was
 * recorded and when the binding was computed from it; the scan checks
 * the magic line and the create lines it uses.  A file that is not plain
 * text (compressed) goes through the full reader instead.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recint.h"

struct pair {
	uint32_t parent, child, order; /* order: position in the file */
};

static int pair_cmp(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The tree text from the pairs (sorted here). */
static int tree_text(struct pair *p, size_t n, char **tree, const char *path,
                     struct trace_error *err)
{
	qsort(p, n, sizeof *p, pair_cmp);
	char *s = malloc(n * 24 + 1);
	if (!s)
		return rec_fail(err, "%s: out of memory", path);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int first = i == 0 || p[i - 1].parent != p[i].parent;
		int last = i + 1 == n || p[i + 1].parent != p[i].parent;
		k += first ? (size_t)sprintf(s + k, "%" PRIu32 ":%" PRIu32, p[i].parent, p[i].child)
		           : (size_t)sprintf(s + k, ",%" PRIu32, p[i].child);
		if (last)
			s[k++] = ';';
	}
	s[k] = 0;
	*tree = s;
	return 0;
}

/* The full reader's way (compressed or otherwise unusual input). */
static int tree_by_reader(const char *path, char **tree, struct trace_error *err)
{
	struct trace *tr;
	if (trace_read_file(path, &tr, err) < 0)
		return -1;
	size_t n = 0;
	for (size_t r = 0; r < tr->nrec; r++)
		n += tr->rec[r].op == TRACE_CREATE;
	struct pair *p = malloc((n ? n : 1) * sizeof *p);
	if (!p) {
		trace_free(tr);
		return rec_fail(err, "%s: out of memory", path);
	}
	n = 0;
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		const struct trace_thread *T = &tr->threads[t];
		for (uint32_t r = T->first; r < T->first + T->nrec; r++)
			if (tr->rec[r].op == TRACE_CREATE) {
				p[n] = (struct pair){.parent = T->id, .child = tr->threads[tr->rec[r].a].id,
				                     .order = (uint32_t)n};
				n++;
			}
	}
	trace_free(tr);
	int rc = tree_text(p, n, tree, path, err);
	free(p);
	return rc;
}

/* A decimal id in [0, 2^31) at *s (advanced), or -1. */
static int64_t id_at(const char **s)
{
	const char *p = *s;
	int64_t v = 0;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p++ - '0');
		if (v >= (1ll << 31))
			return -1;
	}
	*s = p;
	return v;
}

int rec_tree_from_trace(const char *path, char **tree, struct trace_error *err)
{
	*tree = NULL;
	FILE *f = fopen(path, "r");
	if (!f)
		return rec_fail(err, "%s: %s", path, strerror(errno));
	unsigned char magic[4] = { 0 };
	size_t got = fread(magic, 1, 4, f);
	if (got == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) {
		fclose(f);
		return tree_by_reader(path, tree, err); /* zstd */
	}
	rewind(f);
	char *line = NULL;
	size_t cap = 0, n = 0, pcap = 0;
	struct pair *p = NULL;
	uint32_t lineno = 0;
	int seen_magic = 0, rc = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		const char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || *s == 0)
			continue;
		if (!seen_magic) {
			if (strncmp(s, "shadowbind-trace", 16)) {
				rc = rec_fail(err, "%s:%" PRIu32 ": not a shadowbind trace", path, lineno);
				break;
			}
			seen_magic = 1;
			continue;
		}
		/* <thread> <work> create <child> */
		const char *q = s;
		int64_t parent = id_at(&q);
		if (parent < 0 || (*q != ' ' && *q != '\t'))
			continue; /* a declaration */
		while (*q == ' ' || *q == '\t')
			q++;
		while (*q >= '0' && *q <= '9')
			q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "create", 6) || (q[6] != ' ' && q[6] != '\t'))
			continue;
		q += 6;
		while (*q == ' ' || *q == '\t')
			q++;
		int64_t child = id_at(&q);
		if (child < 0) {
			rc = rec_fail(err, "%s:%" PRIu32 ": create without a thread id", path, lineno);
			break;
		}
		if (n == pcap) {
			size_t nc = pcap ? 2 * pcap : 64;
			struct pair *g = realloc(p, nc * sizeof *p);
			if (!g) {
				rc = rec_fail(err, "%s: out of memory", path);
				break;
			}
			p = g;
			pcap = nc;
		}
		p[n] = (struct pair){.parent = (uint32_t)parent, .child = (uint32_t)child,
		                     .order = (uint32_t)n};
		n++;
	}
	if (rc == 0 && ferror(f))
		rc = rec_fail(err, "%s: %s", path, strerror(errno));
	if (rc == 0 && !seen_magic)
		rc = rec_fail(err, "%s: not a shadowbind trace (empty)", path);
	free(line);
	fclose(f);
	if (rc == 0)
		rc = tree_text(p, n, tree, path, err);
	free(p);
	return rc;
}
