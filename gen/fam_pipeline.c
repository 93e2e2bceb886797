/*
 * fam_pipeline.c - the prime number sieve of Paper VII Section 7.2.
 *
 * Thread 1 is the number generator: it produces 2, 3, ..., limit in order
 * and feeds them to the chain of filter threads, one per prime.  A filter
 * tests each number it receives for divisibility by its prime: a multiple
 * is thrown away, any other number goes to the next filter or, when there
 * is none yet, becomes the prime of a new filter that this filter creates.
 * The generator creates the first filter (prime 2) itself.  After `limit`
 * the generator sends an end marker down the chain; each filter forwards
 * it and exits.  limit = 397 (the 78th prime) gives 79 threads.
 *
 * Hand-over between neighbouring stages: a buffer of `capacity` slots
 * with two semaphores (full: items, empty: free slots; capacity 0: an
 * unbounded buffer, only full), optionally protected by a mutex.
 *   send: [wait empty] [lock m] send-work [unlock m] post full
 *   recv: wait full [lock m] recv-work [unlock m] [post empty]
 * Per number: gen-work in the generator, filter-work in each filter that
 * tests it.  Joins: chain (each stage joins its successor after forwarding
 * the end marker) or main (the generator joins every filter in order).
 */
#include <stdlib.h>
#include <string.h>

#include "gen/genint.h"

#define LIMIT_MAX 10000

enum {
	P_LIMIT = 0,
	P_GENWORK,
	P_FILTERWORK,
	P_SENDWORK,
	P_RECVWORK,
	P_CAPACITY,
	P_LOCK,
	P_JOIN,
	NP
};

static const struct gen_param params[NP] = {
	[P_LIMIT] = {"limit", GEN_P_INT, "0", 0, LIMIT_MAX, 0, 0, NULL,
	             "the generator stops at this number, >= 2; 0: 397 "
	             "(Paper VII), or the (threads-1)-th prime when "
	             "--threads is given"},
	[P_GENWORK] = {"gen-work", GEN_P_INT, "10", 0, INT64_C(1) << 40, 0,
	               0, NULL, "generator work per number, trace units"},
	[P_FILTERWORK] = {"filter-work", GEN_P_INT, "10", 0,
	                  INT64_C(1) << 40, 0, 0, NULL,
	                  "work of one divisibility test, trace units"},
	[P_SENDWORK] = {"send-work", GEN_P_INT, "1", 0, INT64_C(1) << 40, 0,
	                0, NULL, "work to put a number in the next buffer"},
	[P_RECVWORK] = {"recv-work", GEN_P_INT, "1", 0, INT64_C(1) << 40, 0,
	                0, NULL, "work to take a number from the buffer"},
	[P_CAPACITY] = {"capacity", GEN_P_INT, "1", 0, 1 << 20, 0, 0, NULL,
	                "buffer slots between two stages; 0: unbounded"},
	[P_LOCK] = {"lock", GEN_P_ENUM, "none", 0, 0, 0, 0, "none|mutex",
	            "protect each buffer access with the buffer's mutex"},
	[P_JOIN] = {"join", GEN_P_ENUM, "chain", 0, 0, 0, 0, "chain|main",
	            "who joins the filters: each its predecessor, or the "
	            "generator all"},
};

/* Primes <= n into a malloc'd array; *count.  NULL on allocation failure. */
static uint64_t *primes_upto(uint64_t n, uint64_t *count)
{
	*count = 0;
	char *comp = calloc(n + 1, 1);
	uint64_t *pr = malloc((n / 2 + 2) * sizeof *pr);
	if (!comp || !pr) {
		free(comp);
		free(pr);
		return NULL;
	}
	for (uint64_t i = 2; i <= n; i++) {
		if (comp[i])
			continue;
		pr[(*count)++] = i;
		for (uint64_t j = i * i; j <= n; j += i)
			comp[j] = 1;
	}
	free(comp);
	return pr;
}

struct pipe {
	struct gen_prog *p;
	const struct gen_args *a;
	uint32_t *full, *empty, *mx; /* by channel 1..nf */
};

static void send(struct pipe *x, uint32_t tid, uint32_t ch)
{
	const struct gen_args *a = x->a;
	if (a->v[P_CAPACITY])
		gen_wait(x->p, tid, x->empty[ch]);
	if (a->v[P_LOCK])
		gen_lock(x->p, tid, x->mx[ch]);
	gen_work(x->p, tid, (uint64_t)a->v[P_SENDWORK]);
	if (a->v[P_LOCK])
		gen_unlock(x->p, tid, x->mx[ch]);
	gen_post(x->p, tid, x->full[ch]);
}

static void recv(struct pipe *x, uint32_t tid, uint32_t ch)
{
	const struct gen_args *a = x->a;
	gen_wait(x->p, tid, x->full[ch]);
	if (a->v[P_LOCK])
		gen_lock(x->p, tid, x->mx[ch]);
	gen_work(x->p, tid, (uint64_t)a->v[P_RECVWORK]);
	if (a->v[P_LOCK])
		gen_unlock(x->p, tid, x->mx[ch]);
	if (a->v[P_CAPACITY])
		gen_post(x->p, tid, x->empty[ch]);
}

static int build(const struct gen_args *a, struct gen_prog *p, char *err,
                 size_t errlen)
{
	uint64_t limit = (uint64_t)a->v[P_LIMIT];
	uint64_t nprimes = 0;
	uint64_t *pr = primes_upto(LIMIT_MAX, &nprimes);
	if (!pr)
		return gen_oom(err, errlen);
	if (limit == 0 && a->threads) {
		if (a->threads < 2 || a->threads - 1 > nprimes) {
			free(pr);
			return gen_err(err, errlen,
			               "--threads %u: the pipeline has 2..%llu "
			               "threads (limit up to %d)",
			               a->threads,
			               (unsigned long long)nprimes + 1, LIMIT_MAX);
		}
		limit = pr[a->threads - 2];
	}
	if (limit == 0)
		limit = 397;
	if (limit < 2) {
		free(pr);
		return gen_err(err, errlen,
		               "--limit %llu: the generator needs a limit of 2 "
		               "or more",
		               (unsigned long long)limit);
	}
	uint32_t nf = 0; /* filters = primes <= limit */
	while (nf < nprimes && pr[nf] <= limit)
		nf++;
	if (a->threads && a->threads != nf + 1) {
		free(pr);
		return gen_err(err, errlen,
		               "--threads %u does not match --limit %llu (%u "
		               "threads)",
		               a->threads, (unsigned long long)limit, nf + 1);
	}
	struct pipe x = {.p = p, .a = a};
	x.full = calloc((size_t)nf + 2, sizeof *x.full);
	x.empty = calloc((size_t)nf + 2, sizeof *x.empty);
	x.mx = calloc((size_t)nf + 2, sizeof *x.mx);
	if (!x.full || !x.empty || !x.mx || gen_prog_threads(p, nf + 1)) {
		free(pr);
		free(x.full);
		free(x.empty);
		free(x.mx);
		return gen_oom(err, errlen);
	}
	for (uint32_t ch = 1; ch <= nf; ch++) {
		x.full[ch] = gen_sem_new(p, 0);
		if (a->v[P_CAPACITY])
			x.empty[ch] =
				gen_sem_new(p, (uint32_t)a->v[P_CAPACITY]);
		if (a->v[P_LOCK])
			x.mx[ch] = gen_mutex_new(p);
	}
	gen_name(p, 1, "generator");
	for (uint32_t k = 1; k <= nf; k++)
		gen_name(p, k + 1, "filter_%llu", (unsigned long long)pr[k - 1]);

	/* Numbers in increasing order; filter k (thread k + 1) has prime
	 * pr[k - 1] and receives on channel k. */
	uint64_t gw = (uint64_t)a->v[P_GENWORK];
	uint64_t fw = (uint64_t)a->v[P_FILTERWORK];
	uint32_t have = 0; /* filters created so far */
	uint64_t passes = 0;
	for (uint64_t n = 2; n <= limit; n++) {
		gen_work(p, 1, gw);
		if (have == 0) {
			gen_create(p, 1, 2);
			have = 1;
			continue;
		}
		send(&x, 1, 1);
		for (uint32_t k = 1;; k++) {
			recv(&x, k + 1, k);
			gen_work(p, k + 1, fw);
			passes++;
			if (n % pr[k - 1] == 0)
				break;
			if (k == have) { /* n is the next prime */
				gen_create(p, k + 1, k + 2);
				have++;
				break;
			}
			send(&x, k + 1, k + 1);
		}
	}
	/* The end marker. */
	send(&x, 1, 1);
	for (uint32_t k = 1; k <= nf; k++) {
		recv(&x, k + 1, k);
		if (k < nf) {
			send(&x, k + 1, k + 1);
			if (a->v[P_JOIN] == 0)
				gen_join(p, k + 1, k + 2);
		}
		gen_exit(p, k + 1);
	}
	if (a->v[P_JOIN] == 0) {
		gen_join(p, 1, 2);
	} else {
		for (uint32_t k = 1; k <= nf; k++)
			gen_join(p, 1, k + 1);
	}
	gen_exit(p, 1);
	gen_info_set(&p->info, "limit", limit);
	gen_info_set(&p->info, "primes", nf);
	gen_info_set(&p->info, "numbers", limit - 1);
	gen_info_set(&p->info, "tests", passes);
	free(pr);
	free(x.full);
	free(x.empty);
	free(x.mx);
	return GEN_OK;
}

const struct gen_family gen_fam_pipeline = {
	.name = "pipeline",
	.summary = "the prime number sieve of Paper VII Sect. 7.2",
	.help =
		"A number generator (thread 1) feeds 2..limit to a chain of "
		"filter threads, one\n"
		"per prime, each created by its predecessor when a number "
		"passes all filters.\n"
		"Neighbouring stages hand numbers over through a buffer with "
		"two semaphores.\n"
		"--limit 397 gives 79 threads (78 primes + the generator); "
		"--threads N without\n"
		"--limit picks the limit that gives N threads.",
	.example = "progen --family pipeline --limit 397",
	.params = params,
	.nparams = NP,
	.def_threads = 0,
	.min_threads = 2,
	.build = build,
};
