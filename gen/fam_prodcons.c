/*
 * fam_prodcons.c - the producer-consumer program of Paper I Section 5 and
 * its improved variant.
 *
 * Original (buffers = 1): 150 producers insert ten items each into one
 * buffer, 75 consumers fetch items from it; one semaphore counts the
 * items, one mutex protects insertion and fetching; the buffer is large
 * enough that producers never wait for space.
 *   producer, per item: produce-work; lock m; insert-work; unlock m; post s
 *   consumer, per item: wait s; lock m; fetch-work; unlock m; consume-work
 *
 * Improved (buffers = B > 1), "100 buffers with their own mutex locks, a
 * mutex for the whole buffer system held for the short time it takes to
 * choose a buffer, different mutexes for inserting and fetching": each
 * buffer has its own semaphore and mutex; a producer chooses the buffer
 * under the insert mutex, a consumer under the fetch mutex (choose-work).
 * Item g (producer i's j-th item is g = i*items + j) goes to buffer g mod
 * B; the consumers' fetches are numbered the same way, so every buffer
 * receives as many items as are fetched from it.
 *
 * The paper's "75 consumers, picking one item each" is read as each
 * consumer fetching items one at a time until all are consumed: by
 * default the 1500 items are split evenly (20 each); --take K makes every
 * consumer fetch K.  Thread 1 creates the producers (ids 2..P+1), then the
 * consumers, then joins them all in id order.  The paper gives no work
 * values; the defaults (produce/consume 5, insert/fetch 200, choose 5)
 * are calibrated on the paper's results: unbound on 8 processors the
 * original runs 2.5% faster than on one (paper: 2.2%), the improved
 * program 7.99 times faster (paper: 7.75 predicted, 7.90 measured).
 */
#include "gen/genint.h"

enum {
	P_PRODUCERS = 0,
	P_CONSUMERS,
	P_ITEMS,
	P_TAKE,
	P_BUFFERS,
	P_PRODUCE,
	P_INSERT,
	P_FETCH,
	P_CONSUME,
	P_CHOOSE,
	P_CREATE,
	NP
};

#define WMAX (INT64_C(1) << 40)

static const struct gen_param params[NP] = {
	[P_PRODUCERS] = {"producers", GEN_P_INT, "150", 1, 1 << 19, 0, 0,
	                 NULL, "producer threads"},
	[P_CONSUMERS] = {"consumers", GEN_P_INT, "75", 1, 1 << 19, 0, 0,
	                 NULL, "consumer threads"},
	[P_ITEMS] = {"items", GEN_P_INT, "10", 0, 1 << 20, 0, 0, NULL,
	             "items each producer inserts"},
	[P_TAKE] = {"take", GEN_P_INT, "0", 0, 1 << 30, 0, 0, NULL,
	            "items each consumer fetches; 0: all items, split "
	            "evenly"},
	[P_BUFFERS] = {"buffers", GEN_P_INT, "1", 1, 1 << 16, 0, 0, NULL,
	               "1: the original program; B > 1: the improved one "
	               "with B buffers (paper: 100)"},
	[P_PRODUCE] = {"produce-work", GEN_P_INT, "5", 0, WMAX, 0, 0, NULL,
	               "work to produce an item, trace units"},
	[P_INSERT] = {"insert-work", GEN_P_INT, "200", 0, WMAX, 0, 0, NULL,
	              "work to insert an item, holding the buffer's mutex"},
	[P_FETCH] = {"fetch-work", GEN_P_INT, "200", 0, WMAX, 0, 0, NULL,
	             "work to fetch an item, holding the buffer's mutex"},
	[P_CONSUME] = {"consume-work", GEN_P_INT, "5", 0, WMAX, 0, 0, NULL,
	               "work to consume an item"},
	[P_CHOOSE] = {"choose-work", GEN_P_INT, "5", 0, WMAX, 0, 0, NULL,
	              "improved variant: work to choose a buffer, holding "
	              "the insert or fetch mutex"},
	[P_CREATE] = {"create-work", GEN_P_INT, "0", 0, WMAX, 0, 0, NULL,
	              "thread 1's work before each create"},
};

static int build(const struct gen_args *a, struct gen_prog *p, char *err,
                 size_t errlen)
{
	uint64_t np = (uint64_t)a->v[P_PRODUCERS];
	uint64_t nc = (uint64_t)a->v[P_CONSUMERS];
	if (a->threads) {
		if (!a->given[P_PRODUCERS] && !a->given[P_CONSUMERS]) {
			if (a->threads < 3)
				return gen_err(err, errlen,
				               "--threads %u: prodcons needs at "
				               "least 3 (main, a producer, a "
				               "consumer)",
				               a->threads);
			np = (2 * ((uint64_t)a->threads - 1) + 1) / 3;
			nc = a->threads - 1 - np;
		} else if (!a->given[P_CONSUMERS] && a->threads > np + 1) {
			nc = a->threads - 1 - np;
		} else if (!a->given[P_PRODUCERS] && a->threads > nc + 1) {
			np = a->threads - 1 - nc;
		}
		if (np + nc + 1 != a->threads)
			return gen_err(err, errlen,
			               "--threads %u does not match %llu "
			               "producers + %llu consumers + main",
			               a->threads, (unsigned long long)np,
			               (unsigned long long)nc);
	}
	if (np + nc + 1 > (1u << 20))
		return gen_err(err, errlen, "too many threads (at most %u)",
		               1u << 20);
	uint64_t items = (uint64_t)a->v[P_ITEMS];
	uint64_t total = np * items;
	uint64_t take = (uint64_t)a->v[P_TAKE];
	if (take && take * nc > total)
		return gen_err(err, errlen,
		               "--take %llu: %llu consumers would fetch more "
		               "than the %llu items produced",
		               (unsigned long long)take, (unsigned long long)nc,
		               (unsigned long long)total);
	uint32_t nb = (uint32_t)a->v[P_BUFFERS];
	uint32_t n = (uint32_t)(np + nc + 1);
	if (gen_prog_threads(p, n) != 0)
		return gen_oom(err, errlen);
	/* buffer b (0-based): semaphore b + 1, mutex b + 1 */
	for (uint32_t b = 0; b < nb; b++) {
		gen_sem_new(p, 0);
		gen_mutex_new(p);
	}
	uint32_t choose_in = 0, choose_out = 0;
	if (nb > 1) {
		choose_in = gen_mutex_new(p);
		choose_out = gen_mutex_new(p);
	}
	gen_name(p, 1, "main");
	for (uint32_t t = 2; t <= n; t++) {
		gen_name(p, t, t < np + 2 ? "producer" : "consumer");
		gen_work(p, 1, (uint64_t)a->v[P_CREATE]);
		gen_create(p, 1, t);
	}
	for (uint64_t i = 0; i < np; i++) {
		uint32_t t = (uint32_t)(i + 2);
		for (uint64_t j = 0; j < items; j++) {
			uint32_t b = (uint32_t)((i * items + j) % nb);
			gen_work(p, t, (uint64_t)a->v[P_PRODUCE]);
			if (nb > 1) {
				gen_lock(p, t, choose_in);
				gen_work(p, t, (uint64_t)a->v[P_CHOOSE]);
				gen_unlock(p, t, choose_in);
			}
			gen_lock(p, t, b + 1);
			gen_work(p, t, (uint64_t)a->v[P_INSERT]);
			gen_unlock(p, t, b + 1);
			gen_post(p, t, b + 1);
		}
		gen_exit(p, t);
	}
	uint64_t g = 0; /* global fetch number */
	for (uint64_t c = 0; c < nc; c++) {
		uint32_t t = (uint32_t)(np + 2 + c);
		uint64_t k = take ? take : total / nc + (c < total % nc);
		for (uint64_t j = 0; j < k; j++, g++) {
			uint32_t b = (uint32_t)(g % nb);
			if (nb > 1) {
				gen_lock(p, t, choose_out);
				gen_work(p, t, (uint64_t)a->v[P_CHOOSE]);
				gen_unlock(p, t, choose_out);
			}
			gen_wait(p, t, b + 1);
			gen_lock(p, t, b + 1);
			gen_work(p, t, (uint64_t)a->v[P_FETCH]);
			gen_unlock(p, t, b + 1);
			gen_work(p, t, (uint64_t)a->v[P_CONSUME]);
		}
		gen_exit(p, t);
	}
	for (uint32_t t = 2; t <= n; t++)
		gen_join(p, 1, t);
	gen_exit(p, 1);
	gen_info_set(&p->info, "producers", np);
	gen_info_set(&p->info, "consumers", nc);
	gen_info_set(&p->info, "items", total);
	gen_info_set(&p->info, "fetched", g);
	gen_info_set(&p->info, "buffers", nb);
	return GEN_OK;
}

const struct gen_family gen_fam_prodcons = {
	.name = "prodcons",
	.summary = "the producer-consumer program of Paper I Sect. 5 and its "
	           "improved variant",
	.help =
		"150 producers insert 10 items each into a buffer, 75 consumers "
		"fetch them; one\n"
		"semaphore counts the items, one mutex protects the buffer.  "
		"--buffers 100 gives\n"
		"the improved program: 100 buffers with their own semaphore and "
		"mutex, and\n"
		"separate mutexes to choose the buffer to insert into and to "
		"fetch from.\n"
		"Thread 1 creates all, then joins all.  --threads N alone "
		"splits N-1 threads\n"
		"2:1 into producers and consumers.",
	.example = "progen --family prodcons --buffers 100",
	.params = params,
	.nparams = NP,
	.def_threads = 0,
	.min_threads = 3,
	.build = build,
};
