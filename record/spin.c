/*
 * spin.c - retry loops replayed as the waits they stand for (record.h:
 * rec_spin_as_wait; docs/record.md "Distortion and spinning", issue 28).
 *
 * Recorded on one processor, a thread that retries a trylock (or a
 * sem_trywait) spins while the thread it waits for cannot run: the
 * trace holds a run of failed tries whose number and work come from the
 * one-processor schedule, and a prediction for k processors replays that
 * schedule.  The transform replaces each run of failed tries of one
 * object (yields and short sleeps between them included) that ends with
 * a successful try, or with a blocking acquisition, of the same object by
 * that acquisition alone (a `trylock M ok` behaves as `lock M` in the
 * simulator, and stays a try: after `unlock M` it is a poll, which the
 * simulator's spinning wait knows, sim.h's sim_params.spin), in the place
 * of the success and with the work that preceded the first try; the
 * failed tries, the sleeps between them and their work are dropped (the
 * spinning itself: on a machine where the spinner has a processor of its
 * own it delays nobody; the model's wait frees the processor).
 *
 * A poll before a block: a thread that releases mutex M, tries M again
 * (failed tries allowed) and, holding it, waits on a condition variable
 * with M, polled the condition between the release and the try and found
 * it still false (PARSEC's barrier: an unsynchronized spin on a flag,
 * then trylock, then pthread_cond_wait).  Its acquisition keeps no
 * work: the poll's work is dropped too (summed in fix->poll_work: the
 * program's spin before a block).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recint.h"

/* The object a failed try is on (kind << 32 | id), or 0. */
static uint64_t busy_key(const struct trace_rec *r)
{
	if ((r->op == TRACE_TRYLOCK || r->op == TRACE_TRYWAIT) && !r->b)
		return (uint64_t)(r->op == TRACE_TRYLOCK ? TRACE_K_MUTEX : TRACE_K_SEM) << 32 | r->a |
		       1ull << 63;
	return 0;
}

/* The object record r acquires (trylock/trywait ok, lock, wait), or 0. */
static uint64_t acq_key(const struct trace_rec *r)
{
	if (((r->op == TRACE_TRYLOCK || r->op == TRACE_TRYWAIT) && r->b) || r->op == TRACE_LOCK ||
	    r->op == TRACE_WAIT)
		return (uint64_t)(r->op == TRACE_TRYLOCK || r->op == TRACE_LOCK ? TRACE_K_MUTEX
		                                                                : TRACE_K_SEM) << 32 |
		       r->a | 1ull << 63;
	return 0;
}

int rec_poll_before_block(const struct trace *tr, const struct trace_thread *T, uint32_t j,
                          uint32_t e)
{
	const struct trace_rec *s = &tr->rec[T->first + e];
	if (!(s->op == TRACE_TRYLOCK || (s->op == TRACE_LOCK && e > j)) || j == 0 || e + 1 >= T->nrec)
		return 0;
	const struct trace_rec *p = &tr->rec[T->first + j - 1], *c = &tr->rec[T->first + e + 1];
	return p->op == TRACE_UNLOCK && p->a == s->a && c->op == TRACE_CWAIT && c->b == s->a;
}

int rec_spin_as_wait(const struct trace *tr, uint64_t poll, struct trace **out,
                     struct rec_spin_fix *fix, struct trace_error *err)
{
	*out = NULL;
	memset(fix, 0, sizeof *fix);
	struct trace_rec *rec = malloc((tr->nrec ? tr->nrec : 1) * sizeof *rec);
	struct trace_thread *th = malloc((tr->nthreads ? tr->nthreads : 1) * sizeof *th);
	if (!rec || !th) {
		free(rec);
		free(th);
		return rec_fail(err, "out of memory");
	}
	size_t n = 0;
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		const struct trace_thread *T = &tr->threads[t];
		th[t] = *T;
		th[t].first = (uint32_t)n;
		for (uint32_t j = 0; j < T->nrec; j++) {
			const struct trace_rec *r = &tr->rec[T->first + j];
			uint64_t key = busy_key(r);
			if (!key && acq_key(r) && (r->op == TRACE_TRYLOCK || r->op == TRACE_TRYWAIT) &&
			    rec_poll_before_block(tr, T, j, j)) {
				/* a poll that tried once, then blocked */
				struct trace_rec w = *r; /* the try, ok */
				w.work = 0;
				rec[n++] = w;
				fix->polls++;
				fix->poll_work += r->work;
				fix->dropped_work += r->work;
				continue;
			}
			if (!key) {
				rec[n++] = *r;
				continue;
			}
			/* a run of failed tries of key, sleeps of at most poll
			 * between them; what ends it? */
			uint32_t e = j + 1, tries = 1;
			uint64_t dropped = 0;
			while (e < T->nrec) {
				const struct trace_rec *q = &tr->rec[T->first + e];
				if (busy_key(q) == key)
					tries++;
				else if (!(q->op == TRACE_SLEEP && trace_sleep_time(q) <= poll))
					break;
				dropped += q->work;
				e++;
			}
			if (e < T->nrec && acq_key(&tr->rec[T->first + e]) == key) {
				const struct trace_rec *q = &tr->rec[T->first + e];
				struct trace_rec w = *q; /* the success, as it ended */
				w.work = r->work; /* the work before the first try */
				if (rec_poll_before_block(tr, T, j, e)) {
					w.work = 0; /* a poll of the condition */
					fix->polls++;
					fix->poll_work += r->work;
					fix->dropped_work += r->work;
				}
				rec[n++] = w;
				fix->loops++;
				fix->tries += tries;
				fix->dropped_records += e - j;
				fix->dropped_work += dropped + q->work;
				j = e;
			} else {
				/* the loop gave up: kept as recorded */
				for (; j < e; j++)
					rec[n++] = tr->rec[T->first + j];
				j--;
			}
		}
		th[t].nrec = (uint32_t)n - th[t].first;
	}
	struct trace copy = *tr;
	copy.rec = rec;
	copy.nrec = n;
	copy.threads = th;
	copy.loc = NULL;
	copy.pair = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc = -1;
	if (m && trace_write(&copy, m) == 0 && fclose(m) == 0) {
		m = NULL;
		rc = trace_read_mem("spin-as-wait", buf, len, out, err);
	} else {
		rec_fail(err, "out of memory");
	}
	if (m)
		fclose(m);
	free(buf);
	free(rec);
	free(th);
	if (rc < 0)
		memset(fix, 0, sizeof *fix);
	return rc;
}
