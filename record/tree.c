/*
 * tree.c - who created whom in a recorded trace, for the launcher
 * (record.h: rec_tree_from_trace).
 */
#include <stdlib.h>
#include <string.h>

#include "record/recint.h"

int rec_tree_from_trace(const char *path, char **tree, struct trace_error *err)
{
	*tree = NULL;
	struct trace *tr;
	if (trace_read_file(path, &tr, err) < 0)
		return -1;
	size_t cap = 64, n = 0;
	char *s = malloc(cap);
	if (!s) {
		trace_free(tr);
		return rec_fail(err, "%s: out of memory", path);
	}
	s[0] = 0;
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		const struct trace_thread *T = &tr->threads[t];
		int any = 0;
		for (uint32_t r = T->first; r < T->first + T->nrec; r++) {
			if (tr->rec[r].op != TRACE_CREATE)
				continue;
			char item[32];
			int k = any ? snprintf(item, sizeof item, ",%u", tr->threads[tr->rec[r].a].id)
			            : snprintf(item, sizeof item, "%u:%u", T->id, tr->threads[tr->rec[r].a].id);
			any = 1;
			if (n + (size_t)k + 2 >= cap) {
				char *g = realloc(s, cap * 2 + (size_t)k);
				if (!g) {
					free(s);
					trace_free(tr);
					return rec_fail(err, "%s: out of memory", path);
				}
				s = g;
				cap = cap * 2 + (size_t)k;
			}
			memcpy(s + n, item, (size_t)k + 1);
			n += (size_t)k;
		}
		if (any) {
			s[n++] = ';';
			s[n] = 0;
		}
	}
	trace_free(tr);
	*tree = s;
	return 0;
}
