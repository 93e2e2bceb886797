/* run.c - running an experiment: resume, compute the missing jobs in
 * parallel (OpenMP threads, MPI ranks), append them durably, rewrite the
 * CSV in job order. */
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp/expint.h"

/* The run's shared state on rank 0 (or the only process). */
struct sink {
	const struct exp_run_opts *o;
	int fd, tfd;          /* CSV, timing (or -1)               */
	char **store;         /* [njobs] rows of finished jobs     */
	size_t done, total;   /* progress                          */
	int rc;
	char *err;
	size_t errlen;
};

/* Rank 0: keep a finished job's rows (takes `rows`). */
static void take(void *arg, size_t job, char *rows, const char *timing)
{
	struct sink *k = arg;
	if (!rows) {
		if (!k->rc) {
			k->rc = EXP_ENOMEM;
			snprintf(k->err, k->errlen, "out of memory");
		}
		return;
	}
	if (exp_append(k->fd, rows, strlen(rows)) != 0 && !k->rc) {
		k->rc = EXP_EIO;
		snprintf(k->err, k->errlen, "cannot append to the CSV");
	}
	if (k->tfd >= 0 && timing[0])
		(void)!write(k->tfd, timing, strlen(timing));
	free(k->store[job]);
	k->store[job] = rows;
	k->done++;
	if (k->o->progress)
		k->o->progress(k->o->progress_arg, k->done, k->total);
}

/* "job,algorithm,seconds" lines for a job's rows. */
static char *timing_text(const struct exp_spec *s, size_t job,
                         const double *secs)
{
	size_t cap = 64 * (s->nvar * (EXP_MAX_CHECKS + 1) + 2) + 1;
	char *t = malloc(cap);
	if (!t)
		return NULL;
	size_t at = 0, row = 0;
	for (size_t v = 0; v < s->nvar; v++) {
		row += s->var[v].ncheck;
		at += (size_t)snprintf(t + at, cap - at, "%zu,%s,%.6f\n", job,
		                       s->var[v].name, secs[row++]);
	}
	if (s->unbound)
		at += (size_t)snprintf(t + at, cap - at, "%zu,unbound,%.6f\n", job,
		                       secs[row]);
	t[at] = 0;
	return t;
}

int exp_run(const struct exp_spec *s, const struct exp_run_opts *o,
            struct exp_run_stats *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	int mpi = o->use_mpi;
	int rank, size;
	exp_mpi_world(mpi, &rank, &size);
	st->rank = rank;
	st->ranks = size;
	struct exp_jobs j;
	memset(&j, 0, sizeof j);
	int rc = exp_jobs_make(s, &j, err, errlen);
	int made = rc == 0;
	char *done = NULL;
	char **store = NULL;
	size_t *mine = NULL;
	struct exp_mpi_out *out = NULL;
	struct exp_mpi_in in;
	struct sink k = {.o = o, .fd = -1, .tfd = -1, .err = err,
	                 .errlen = errlen};
	char lerr[512] = "";
	int lrc = 0;
	if (exp_mpi_in_init(&in, rank == 0 ? size : 1) && !rc)
		rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
	if (!rc && rank == 0) {
		done = calloc(j.njobs + 1, 1);
		store = calloc(j.njobs + 1, sizeof *store);
		if (!done || !store)
			rc = exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
	}
	/* Rank 0 resumes and rewrites the CSV with the complete jobs. */
	if (!rc && rank == 0) {
		rc = exp_csv_resume(s->output, s, &j, done, store, err, errlen);
		if (!rc)
			rc = exp_csv_write_all(s->output, &j, store, err, errlen);
		if (!rc) {
			k.fd = open(s->output, O_WRONLY | O_APPEND);
			if (k.fd < 0)
				rc = exp_fail(err, errlen, EXP_EIO, "%s: cannot open",
				              s->output);
		}
		if (!rc && o->timing) {
			k.tfd = open(o->timing, O_WRONLY | O_APPEND | O_CREAT, 0644);
			if (k.tfd >= 0 && lseek(k.tfd, 0, SEEK_END) == 0) {
				const char *h = "job,algorithm,seconds\n";
				(void)!write(k.tfd, h, strlen(h));
			}
		}
	}
	/* Everyone learns whether to go on, the number of jobs and which
	 * are done.  A rank that cannot take part (out of memory, another
	 * experiment than rank 0's) still follows the protocol: it computes
	 * nothing and says so in its "done", which rank 0 reports. */
	int64_t head[2] = {rank == 0 ? rc : 0, (int64_t)j.njobs};
	int mrc = exp_mpi_bcast(mpi, head, sizeof head, err, errlen);
	if (mrc) {
		rc = mrc;
		st->own_failure = 1;
		goto out;
	}
	if (head[0]) {
		if (rank != 0)
			rc = exp_fail(err, errlen, (int)head[0], "rank 0 failed");
		goto out;
	}
	if (rank != 0) {
		if (rc) {
			lrc = rc;
			snprintf(lerr, sizeof lerr, "%s", err);
		} else if ((size_t)head[1] != j.njobs) {
			lrc = exp_fail(lerr, sizeof lerr, EXP_EINVAL,
			               "%s has %zu jobs here, %lld on rank 0 (not "
			               "the same experiment file)", s->name,
			               j.njobs, (long long)head[1]);
		}
		rc = 0;
		done = calloc((size_t)head[1] + 1, 1);
		out = exp_mpi_out_new();
		if ((!done || !out) && !lrc)
			lrc = exp_fail(lerr, sizeof lerr, EXP_ENOMEM,
			               "out of memory");
		if (!done) {
			/* Cannot receive the list: say so, then wait for the
			 * verdict like the others. */
			head[1] = 0;
		}
	}
	char dummy = 0;
	mrc = exp_mpi_bcast(mpi, done ? done : &dummy,
	                    done ? (size_t)head[1] : 0, err, errlen);
	if (mrc) {
		rc = mrc;
		st->own_failure = 1;
		goto out;
	}
	st->jobs = (size_t)head[1];
	mine = calloc(j.njobs + 1, sizeof *mine);
	if (!mine && !lrc)
		lrc = exp_fail(lerr, sizeof lerr, EXP_ENOMEM, "out of memory");
	size_t npend = 0, nmine = 0;
	for (size_t i = 0; !lrc && i < j.njobs; i++) {
		if (done[i]) {
			st->kept++;
			continue;
		}
		if (npend++ % (size_t)size == (size_t)rank)
			mine[nmine++] = i;
	}
	k.store = store;
	k.total = npend;
	if (o->progress && rank == 0)
		o->progress(o->progress_arg, 0, npend);
	int threads_ok = exp_mpi_threads_ok(mpi);
	int cancelled = 0;
	char perr[512] = "";
#pragma omp parallel for schedule(dynamic, 1) if (threads_ok)
	for (size_t i = 0; i < nmine; i++) {
		int stop, other;
#pragma omp atomic read
		stop = lrc;
#pragma omp atomic read
		other = in.rc;
		if (stop || other || (o->cancel && *o->cancel)) {
			if (o->cancel && *o->cancel) {
#pragma omp atomic write
				cancelled = 1;
			}
			continue;
		}
		size_t job = mine[i];
		char *rows = NULL;
		char jerr[512];
		double *secs = calloc(j.rows_per_job + 1, sizeof *secs);
		int r = secs ? exp_job_run(s, &j, job, &rows, secs, jerr,
		                           sizeof jerr)
		             : exp_fail(jerr, sizeof jerr, EXP_ENOMEM,
		                        "out of memory");
		char *tt = r ? NULL : timing_text(s, job, secs);
		free(secs);
#pragma omp critical(exp_sink)
		{
			if (r) {
				if (!lrc) {
					snprintf(lerr, sizeof lerr, "%s", jerr);
#pragma omp atomic write
					lrc = r;
				}
				free(rows);
			} else if (rank == 0) {
				take(&k, job, rows, tt ? tt : "");
				if (size > 1)
					exp_mpi_poll(&in, 0, take, &k, perr,
					             sizeof perr);
			} else {
				char serr[512];
				int sr = exp_mpi_send_job(out, job, rows,
				                          tt ? tt : "", serr,
				                          sizeof serr);
				if (sr && !lrc) {
					snprintf(lerr, sizeof lerr, "%s", serr);
#pragma omp atomic write
					lrc = sr;
				}
				free(rows);
			}
		}
		free(tt);
	}
	if (rank != 0) {
		/* The last message; then the verdict (none if rank 0 failed:
		 * the command stops every rank). */
		rc = exp_mpi_send_done(out, lrc, cancelled, lerr, err, errlen);
		if (rc) {
			st->own_failure = 1;
			goto out;
		}
		int all[2] = {0, 0};
		rc = exp_mpi_bcast(mpi, all, sizeof all, err, errlen);
		if (rc) {
			st->own_failure = 1;
			goto out;
		}
		rc = lrc ? exp_fail(err, errlen, lrc, "%s", lerr)
		         : all[0] ? exp_fail(err, errlen, all[0],
		                             "rank 0 reported a failure")
		                  : 0;
		st->cancelled = all[1] || cancelled;
		goto out;
	}
	/* Rank 0: every other rank's jobs and "done", whatever the order in
	 * which they come (unless a rank already failed). */
	if (size > 1 && !lrc && !in.rc)
		exp_mpi_poll(&in, 1, take, &k, perr, sizeof perr);
	if (lrc)
		rc = exp_fail(err, errlen, lrc, "%s", lerr);
	else if (in.rc)
		rc = exp_fail(err, errlen, in.rc, "%s", perr);
	else
		rc = k.rc; /* its message is in err */
	/* The final file: job order, whatever the finishing order. */
	char werr[512];
	int wr = exp_csv_write_all(s->output, &j, store, werr, sizeof werr);
	if (wr && !rc)
		rc = exp_fail(err, errlen, wr, "%s", werr);
	st->computed = k.done;
	st->cancelled = cancelled || in.cancelled;
	if (size > 1 && in.waiting == 0) {
		/* Everyone is in: the verdict (when a rank has not said done,
		 * the caller stops the run with exp_mpi_abort). */
		int all[2] = {rc, st->cancelled};
		char berr[512];
		int brc = exp_mpi_bcast(mpi, all, sizeof all, berr, sizeof berr);
		if (brc && !rc)
			rc = exp_fail(err, errlen, brc, "%s", berr);
	}
out:
	if (k.fd >= 0)
		close(k.fd);
	if (k.tfd >= 0)
		close(k.tfd);
	for (size_t i = 0; store && i < j.njobs; i++)
		free(store[i]);
	free(store);
	free(done);
	free(mine);
	exp_mpi_out_free(out);
	exp_mpi_in_release(&in);
	if (made)
		exp_jobs_release(&j);
	return rc;
}
