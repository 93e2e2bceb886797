/*
 * trace-speed - the trace reader's speed: parse MB/s on a generated trace
 * of typical records, and the reader on hostile-but-valid traces (issue
 * 14): thread ids and locations crafted to collide under the former
 * unkeyed hashes (tests/crafted.h) against ordinary ones of the same
 * count.  Prints a table.  Not a test.
 *
 *   build/bench/trace-speed [--records N] [--repeat R] [FILE...]
 *   build/bench/trace-speed --records N --dump FILE   (write the typical trace)
 *
 * With FILEs, parses each (trace_read_file) instead and prints its MB/s.
 * The typical trace (as docs/trace.md's): 17 threads, records such as
 * `7 52310 lock 12 @queue.c:88` (lock, unlock, post, wait), half of them
 * with a location.  For instructions per byte, run it under
 * `valgrind --tool=callgrind` with one FILE.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/crafted.h"
#include "trace/trace.h"
#include "trace/traceint.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* 16 workers, each: work lock(m) work unlock(m) post(own) wait(own) */
static char *typical(uint64_t records, size_t *len)
{
	size_t cap = 64 + records * 48, k = 0;
	char *s = malloc(cap);
	uint64_t seed = 42;
	if (!s)
		return NULL;
	k += (size_t)sprintf(s + k, "shadowbind-trace 1\n");
	for (int t = 2; t <= 17; t++)
		k += (size_t)sprintf(s + k, "1 0 create %d\n", t);
	uint64_t n = 16;
	static const char *const ops[] = { "lock", "unlock", "post", "wait" };
	while (n + 16 * 4 + 17 < records) {
		for (int t = 2; t <= 17; t++)
			for (int i = 0; i < 4; i++) {
				int m = i < 2 ? t % 8 + 1 : t;
				uint64_t r = rng(&seed);
				k += (size_t)sprintf(s + k, "%d %" PRIu64 " %s %d", t,
				                     r % 100000, ops[i], m);
				if (r >> 63)
					k += (size_t)sprintf(s + k, " @queue.c:%d",
					                     (int)(r >> 40) % 200 + 1);
				s[k++] = '\n';
				n++;
			}
	}
	for (int t = 2; t <= 17; t++)
		k += (size_t)sprintf(s + k, "%d 0 exit\n1 0 join %d\n", t, t);
	k += (size_t)sprintf(s + k, "1 0 exit\n");
	*len = k;
	return s;
}

/* the same shapes as crafted_*, with ids and locations from a PRNG */
static char *random_threads(uint32_t n, size_t *len)
{
	size_t k = 0;
	char *s = malloc(32 + (size_t)n * 40);
	uint64_t seed = 7;
	if (!s)
		return NULL;
	k += (size_t)sprintf(s, "shadowbind-trace 1\n");
	for (uint32_t i = 0; i < n; i++) {
		/* distinct: i in the low 17 bits, random above */
		uint64_t id = ((rng(&seed) & 0x3fff) << 17 | i) + 2;
		k += (size_t)sprintf(s + k, "1 0 create %llu\n%llu 0 exit\n",
		                     (unsigned long long)id, (unsigned long long)id);
	}
	k += (size_t)sprintf(s + k, "1 0 exit\n");
	*len = k;
	return s;
}

static char *plain_locations(uint32_t n, size_t *len)
{
	size_t k = 0;
	char *s = malloc(32 + (size_t)n * 40);
	if (!s)
		return NULL;
	k += (size_t)sprintf(s, "shadowbind-trace 1\n");
	for (uint32_t i = 0; i < n; i++)
		k += (size_t)sprintf(s + k, "1 0 sleep 0 @f.c:%u\n", i);
	k += (size_t)sprintf(s + k, "1 0 exit\n");
	*len = k;
	return s;
}

/* best of `repeat` reads: seconds; the probes of the last read */
static double parse(const char *text, size_t len, int repeat,
                    struct tr_probes *pr)
{
	double best = 1e300;
	for (int r = 0; r < repeat; r++) {
		struct trace_limits lim;
		struct trace *tr = NULL;
		struct trace_error e;
		trace_limits_default(&lim);
		lim.probes = pr;
		double t0 = now();
		if (trace_read_mem_lim("bench.trace", text, len, &lim, &tr, &e)) {
			fprintf(stderr, "%s\n", e.msg);
			exit(2);
		}
		double t = now() - t0;
		trace_free(tr);
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	uint64_t records = 5000000;
	int repeat = 3, files = 0;
	const char *dump = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--records") == 0 && i + 1 < argc) {
			records = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
			repeat = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
			dump = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "usage: trace-speed [--records N] [--repeat R] [--dump FILE] [FILE...]\n");
			return 1;
		} else {
			files = 1;
		}
	}
	if (repeat < 1)
		repeat = 1;
	if (files) {
		for (int i = 1; i < argc; i++) {
			if (argv[i][0] == '-' && argv[i][1]) {
				i++;
				continue;
			}
			double best = 1e300;
			size_t bytes = 0;
			for (int r = 0; r < repeat; r++) {
				struct trace *tr = NULL;
				struct trace_error e;
				double t0 = now();
				if (trace_read_file(argv[i], &tr, &e)) {
					fprintf(stderr, "%s\n", e.msg);
					return 2;
				}
				double t = now() - t0;
				bytes = tr->nrec;
				trace_free(tr);
				if (t < best)
					best = t;
			}
			FILE *f = fopen(argv[i], "rb");
			long sz = 0;
			if (f && fseek(f, 0, SEEK_END) == 0)
				sz = ftell(f);
			if (f)
				fclose(f);
			printf("%s: %zu records, %.1f MB, %.3f s, %.0f MB/s\n", argv[i],
			       bytes, (double)sz / 1e6, best, (double)sz / 1e6 / best);
		}
		return 0;
	}

	size_t len;
	struct tr_probes pr;
	char *t = typical(records, &len);
	if (!t) {
		fprintf(stderr, "trace-speed: out of memory\n");
		return 1;
	}
	if (dump) {
		FILE *f = fopen(dump, "wb");
		if (!f || fwrite(t, 1, len, f) != len || fclose(f)) {
			perror(dump);
			return 1;
		}
		free(t);
		return 0;
	}
	double s = parse(t, len, repeat, &pr);
	printf("%-34s %9s %8s %9s %12s\n", "trace", "MB", "s", "MB/s", "slots/insert");
	printf("%-34s %9.1f %8.3f %9.0f %12s\n", "typical, 17 threads",
	       (double)len / 1e6, s, (double)len / 1e6 / s, "-");
	free(t);

	struct {
		const char *name;
		char *text;
		int loc;
	} rows[] = {
		{ "100k random thread ids", NULL, 0 },
		{ "100k crafted thread ids", NULL, 0 },
		{ "32768 plain locations", NULL, 1 },
		{ "32768 crafted locations", NULL, 1 },
	};
	rows[0].text = random_threads(100000, &len);
	for (int i = 0; i < 4; i++) {
		size_t n = 0;
		if (i == 0)
			n = len;
		else if (i == 1)
			rows[1].text = crafted_threads(100000, 14, &n);
		else if (i == 2)
			rows[2].text = plain_locations(32768, &n);
		else
			rows[3].text = crafted_locations(32768, 12, &n);
		if (!rows[i].text) {
			fprintf(stderr, "trace-speed: out of memory\n");
			return 1;
		}
		s = parse(rows[i].text, n, repeat, &pr);
		double spi = rows[i].loc ? (double)pr.loc_probes / (double)pr.loc_inserts
		                         : (double)pr.obj_probes / (double)pr.obj_inserts;
		printf("%-34s %9.1f %8.3f %9.0f %12.2f\n", rows[i].name,
		       (double)n / 1e6, s, (double)n / 1e6 / s, spi);
		free(rows[i].text);
	}
	return 0;
}
