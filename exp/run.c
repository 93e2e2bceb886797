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
	int rc = exp_jobs_make(s, &j, err, errlen);
	char *done = NULL;
	char **store = NULL;
	size_t *mine = NULL;
	struct sink k = {.o = o, .fd = -1, .tfd = -1, .err = err,
	                 .errlen = errlen};
	if (!rc) {
		done = calloc(j.njobs + 1, 1);
		store = calloc(j.njobs + 1, sizeof *store);
		mine = calloc(j.njobs + 1, sizeof *mine);
		if (!done || !store || !mine) {
			snprintf(err, errlen, "out of memory");
			rc = EXP_ENOMEM;
		}
	}
	st->jobs = j.njobs;
	/* Rank 0 resumes and rewrites the CSV with the complete jobs. */
	if (!rc && rank == 0) {
		rc = exp_csv_resume(s->output, s, &j, done, store, err, errlen);
		if (!rc)
			rc = exp_csv_write_all(s->output, &j, store, err, errlen);
		if (!rc) {
			k.fd = open(s->output, O_WRONLY | O_APPEND);
			if (k.fd < 0) {
				snprintf(err, errlen, "%s: cannot open", s->output);
				rc = EXP_EIO;
			}
		}
		if (!rc && o->timing) {
			k.tfd = open(o->timing, O_WRONLY | O_APPEND | O_CREAT, 0644);
			if (k.tfd >= 0 && lseek(k.tfd, 0, SEEK_END) == 0) {
				const char *h = "job,algorithm,seconds\n";
				(void)!write(k.tfd, h, strlen(h));
			}
		}
	}
	/* Everyone learns whether to go on, and what is done. */
	int go = rc;
	exp_mpi_bcast(mpi, &go, sizeof go);
	if (go) {
		if (rank != 0) {
			rc = go;
			snprintf(err, errlen, "rank 0 failed");
		}
		goto out;
	}
	exp_mpi_bcast(mpi, done, j.njobs);
	size_t npend = 0, nmine = 0;
	for (size_t i = 0; i < j.njobs; i++) {
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
	int lrc = 0;
	char lerr[512] = "";
#pragma omp parallel for schedule(dynamic, 1) if (threads_ok)
	for (size_t i = 0; i < nmine; i++) {
		int stop;
#pragma omp atomic read
		stop = lrc;
		if (stop || (o->cancel && *o->cancel)) {
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
		             : EXP_ENOMEM;
		if (!secs)
			snprintf(jerr, sizeof jerr, "out of memory");
		char *tt = r ? NULL : timing_text(s, job, secs);
		free(secs);
#pragma omp critical(exp_sink)
		{
			if (r) {
				if (!lrc) {
					lrc = r;
					snprintf(lerr, sizeof lerr, "%s", jerr);
				}
				free(rows);
			} else if (rank == 0) {
				take(&k, job, rows, tt ? tt : "");
				if (size > 1)
					exp_mpi_poll(0, 0, take, &k, &k.rc, err,
					             errlen);
			} else {
				if (exp_mpi_send_job(job, rows, tt ? tt : "") && !lrc) {
					lrc = EXP_EIO;
					snprintf(lerr, sizeof lerr, "MPI send failed");
				}
				free(rows);
			}
		}
		free(tt);
	}
	if (rank != 0) {
		exp_mpi_send_done(lrc, lerr);
		rc = lrc;
		if (rc)
			snprintf(err, errlen, "%s", lerr);
	} else {
		if (size > 1)
			exp_mpi_poll(1, size - 1, take, &k, &k.rc, err, errlen);
		rc = lrc ? lrc : k.rc;
		if (lrc)
			snprintf(err, errlen, "%s", lerr);
		/* The final file: job order, whatever the finishing order. */
		char werr[512];
		int wr = exp_csv_write_all(s->output, &j, store, werr,
		                           sizeof werr);
		if (wr && !rc) {
			rc = wr;
			snprintf(err, errlen, "%s", werr);
		}
		st->computed = k.done;
	}
	st->cancelled = cancelled;
	int all[2] = {rc, cancelled};
	exp_mpi_bcast(mpi, all, sizeof all);
	if (rank != 0 && all[0] && !rc) {
		rc = all[0];
		snprintf(err, errlen, "another rank failed");
	}
	st->cancelled = all[1] || cancelled;
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
	exp_jobs_release(&j);
	return rc;
}
