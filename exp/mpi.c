/* mpi.c - running an experiment over MPI ranks (Open MPI): rank 0 reads
 * and writes the CSV, the jobs are dealt round-robin over the ranks, the
 * others send each job's rows to rank 0.  Built with EXP_MPI when
 * exp/module.mk finds mpicc; without it every function is the one-process
 * case.
 *
 * The protocol (expint.h): every rank other than 0 sends its jobs, then
 * exactly one "done" message with its status, its message, the number of
 * jobs it sent and whether it was cancelled.  Rank 0 keeps what it has
 * received in a struct exp_mpi_in that lives for the whole run, so a
 * "done" taken by the non-blocking poll between jobs is counted as surely
 * as one taken by the final wait: the final wait ends when every rank's
 * "done" is in, in whatever order the ranks finished.  MPI keeps the order
 * of the messages of one sender, so a rank's jobs are in before its done;
 * the count checks it.  Waits poll and sleep (1 ms) instead of spinning:
 * with more ranks than cores a waiting rank must leave the core to those
 * that compute.  MPI errors are returned (MPI_ERRORS_RETURN), not fatal,
 * so that they come back as a status with a message; the command then
 * stops every rank with exp_mpi_abort. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/alloc.h"
#include "exp/expint.h"

#ifdef EXP_MPI
#include <mpi.h>

enum { TAG_JOB = 1, TAG_DONE = 2 };

/* The fixed part of a message: then text NUL text NUL. */
struct head {
	uint64_t a;     /* job: its index; done: the status (int, as signed) */
	uint64_t n;     /* done: the number of jobs sent                     */
	uint64_t flags; /* done: 1 if the rank was cancelled                 */
};

static void nap(void)
{
	struct timespec t = {0, 1000000}; /* 1 ms */
	nanosleep(&t, NULL);
}

static void mpi_msg(int code, const char *what, char *err, size_t errlen)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;
	if (MPI_Error_string(code, s, &n) != MPI_SUCCESS)
		snprintf(s, sizeof s, "error %d", code);
	snprintf(err, errlen, "%s: %s", what, s);
}

int exp_mpi_available(void)
{
	return 1;
}

/* Initialising, finalising and aborting are alloc's (alloc/mpi.c, built
 * with MPI under the same condition). */
int exp_mpi_init(int *argc, char ***argv)
{
	int rank, size;
	return alloc_mpi_init(argc, argv, &rank, &size);
}

void exp_mpi_finalize(void)
{
	alloc_mpi_finalize();
}

void exp_mpi_abort(int code)
{
	alloc_mpi_abort(code);
}

void exp_mpi_world(int use, int *rank, int *size)
{
	*rank = 0;
	*size = 1;
	if (use) {
		MPI_Comm_rank(MPI_COMM_WORLD, rank);
		MPI_Comm_size(MPI_COMM_WORLD, size);
	}
}

int exp_mpi_threads_ok(int use)
{
	int p = MPI_THREAD_SERIALIZED;
	if (use)
		MPI_Query_thread(&p);
	return p >= MPI_THREAD_SERIALIZED;
}

/* Wait for a request, polling politely. */
static int wait_req(MPI_Request *r)
{
	for (;;) {
		int flag = 0;
		int e = MPI_Test(r, &flag, MPI_STATUS_IGNORE);
		if (e != MPI_SUCCESS)
			return e;
		if (flag)
			return MPI_SUCCESS;
		nap();
	}
}

int exp_mpi_bcast(int use, void *buf, size_t len, char *err, size_t errlen)
{
	if (!use)
		return 0;
	char *p = buf;
	while (len > 0) {
		int n = len > (1u << 30) ? 1 << 30 : (int)len;
		MPI_Request r;
		int e = MPI_Ibcast(p, n, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
		if (e == MPI_SUCCESS)
			e = wait_req(&r);
		if (e != MPI_SUCCESS) {
			mpi_msg(e, "MPI broadcast", err, errlen);
			return EXP_EIO;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Sending (ranks other than 0): non-blocking, the buffers kept until
 * their send completes, so that a rank never waits for rank 0 to finish
 * its job before computing the next. */
struct exp_mpi_out {
	MPI_Request *req;
	char **buf;
	size_t n, cap;
	size_t sent; /* jobs */
};

struct exp_mpi_out *exp_mpi_out_new(void)
{
	return calloc(1, sizeof(struct exp_mpi_out));
}

/* Free the buffers of the sends that have completed. */
static int reap(struct exp_mpi_out *o)
{
	size_t k = 0;
	int rc = MPI_SUCCESS;
	for (size_t i = 0; i < o->n; i++) {
		int flag = 0;
		int e = MPI_Test(&o->req[i], &flag, MPI_STATUS_IGNORE);
		if (e != MPI_SUCCESS && rc == MPI_SUCCESS)
			rc = e;
		if (flag || e != MPI_SUCCESS) {
			free(o->buf[i]);
		} else {
			o->req[k] = o->req[i];
			o->buf[k++] = o->buf[i];
		}
	}
	o->n = k;
	return rc;
}

static int post(struct exp_mpi_out *o, int tag, const struct head *h,
                const char *a, const char *b, char *err, size_t errlen)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t n = sizeof *h + la + 1 + lb + 1;
	if (n > (size_t)1 << 30)
		return exp_fail(err, errlen, EXP_ENOMEM,
		                "a job's rows exceed 1 GiB");
	int e = reap(o);
	if (e != MPI_SUCCESS) {
		mpi_msg(e, "MPI send", err, errlen);
		return EXP_EIO;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		MPI_Request *r = realloc(o->req, cap * sizeof *r);
		if (r)
			o->req = r;
		char **bb = r ? realloc(o->buf, cap * sizeof *bb) : NULL;
		if (!r || !bb)
			return exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
		o->buf = bb;
		o->cap = cap;
	}
	char *m = malloc(n);
	if (!m)
		return exp_fail(err, errlen, EXP_ENOMEM, "out of memory");
	memcpy(m, h, sizeof *h);
	memcpy(m + sizeof *h, a, la + 1);
	memcpy(m + sizeof *h + la + 1, b, lb + 1);
	e = MPI_Isend(m, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD,
	              &o->req[o->n]);
	if (e != MPI_SUCCESS) {
		free(m);
		mpi_msg(e, "MPI send", err, errlen);
		return EXP_EIO;
	}
	o->buf[o->n++] = m;
	return 0;
}

int exp_mpi_send_job(struct exp_mpi_out *o, size_t job, const char *rows,
                     const char *timing, char *err, size_t errlen)
{
	struct head h = {.a = job};
	int rc = post(o, TAG_JOB, &h, rows, timing, err, errlen);
	if (!rc)
		o->sent++;
	return rc;
}

int exp_mpi_send_done(struct exp_mpi_out *o, int status, int cancelled,
                      const char *msg, char *err, size_t errlen)
{
	struct head h = {.a = (uint64_t)(int64_t)status, .n = o->sent,
	                 .flags = cancelled ? 1 : 0};
	int rc = post(o, TAG_DONE, &h, msg ? msg : "", "", err, errlen);
	/* Everything out: the buffers are freed as their sends complete. */
	while (!rc && o->n > 0) {
		int e = reap(o);
		if (e != MPI_SUCCESS) {
			mpi_msg(e, "MPI send", err, errlen);
			rc = EXP_EIO;
		} else if (o->n > 0) {
			nap();
		}
	}
	return rc;
}

void exp_mpi_out_free(struct exp_mpi_out *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		MPI_Cancel(&o->req[i]);
		MPI_Request_free(&o->req[i]);
		free(o->buf[i]);
	}
	free(o->req);
	free(o->buf);
	free(o);
}

int exp_mpi_in_init(struct exp_mpi_in *in, int size)
{
	memset(in, 0, sizeof *in);
	in->size = size;
	in->waiting = size > 1 ? size - 1 : 0;
	in->got = calloc((size_t)size, sizeof *in->got);
	in->said = calloc((size_t)size, 1);
	if (!in->got || !in->said) {
		exp_mpi_in_release(in);
		return EXP_ENOMEM;
	}
	return 0;
}

void exp_mpi_in_release(struct exp_mpi_in *in)
{
	free(in->got);
	free(in->said);
	memset(in, 0, sizeof *in);
}

static void in_fail(struct exp_mpi_in *in, int rc, char *err, size_t errlen,
                    const char *fmt, const char *msg, int rank)
{
	if (in->rc)
		return;
	in->rc = rc;
	snprintf(err, errlen, fmt, rank, msg);
}

int exp_mpi_poll(struct exp_mpi_in *in, int block, exp_mpi_job_fn fn,
                 void *arg, char *err, size_t errlen)
{
	while (in->waiting > 0) {
		MPI_Status st;
		int flag = 0;
		int e = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
		                   &flag, &st);
		if (e != MPI_SUCCESS) {
			if (!in->rc) {
				in->rc = EXP_EIO;
				mpi_msg(e, "MPI probe", err, errlen);
			}
			return in->rc;
		}
		if (!flag) {
			if (!block || in->rc)
				break;
			nap();
			continue;
		}
		int n = 0;
		MPI_Get_count(&st, MPI_BYTE, &n);
		int src = st.MPI_SOURCE;
		char *m = malloc((size_t)n + 1);
		e = m ? MPI_Recv(m, n, MPI_BYTE, src, st.MPI_TAG,
		                 MPI_COMM_WORLD, MPI_STATUS_IGNORE)
		      : MPI_SUCCESS;
		if (!m || e != MPI_SUCCESS) {
			/* The message stays unreceived: stop here. */
			if (!in->rc) {
				in->rc = m ? EXP_EIO : EXP_ENOMEM;
				if (m)
					mpi_msg(e, "MPI receive", err, errlen);
				else
					snprintf(err, errlen, "out of memory");
			}
			free(m);
			return in->rc;
		}
		m[n] = 0;
		struct head h;
		if ((size_t)n < sizeof h + 2 || src <= 0 || src >= in->size ||
		    in->said[src]) {
			in_fail(in, EXP_EIO, err, errlen,
			        "rank %d: a message out of protocol%s", "", src);
			free(m);
			continue;
		}
		memcpy(&h, m, sizeof h);
		char *a = m + sizeof h;
		char *b = a + strlen(a) + 1;
		if (st.MPI_TAG == TAG_DONE) {
			in->said[src] = 1;
			in->waiting--;
			int status = (int)(int64_t)h.a;
			if (h.flags & 1)
				in->cancelled = 1;
			if (status)
				in_fail(in, status, err, errlen, "rank %d: %s", a,
				        src);
			else if (h.n != in->got[src])
				in_fail(in, EXP_EIO, err, errlen,
				        "rank %d: jobs sent and received differ%s",
				        "", src);
		} else {
			in->got[src]++;
			size_t la = strlen(a);
			char *rows = malloc(la + 1);
			if (rows)
				memcpy(rows, a, la + 1);
			fn(arg, (size_t)h.a, rows, b);
		}
		free(m);
	}
	return in->rc;
}

#else /* no MPI */

int exp_mpi_available(void)
{
	return 0;
}

int exp_mpi_init(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return -1;
}

void exp_mpi_finalize(void)
{
}

void exp_mpi_abort(int code)
{
	(void)code;
}

void exp_mpi_world(int use, int *rank, int *size)
{
	(void)use;
	*rank = 0;
	*size = 1;
}

int exp_mpi_threads_ok(int use)
{
	(void)use;
	return 1;
}

int exp_mpi_bcast(int use, void *buf, size_t len, char *err, size_t errlen)
{
	(void)use;
	(void)buf;
	(void)len;
	(void)err;
	(void)errlen;
	return 0;
}

struct exp_mpi_out *exp_mpi_out_new(void)
{
	return NULL;
}

void exp_mpi_out_free(struct exp_mpi_out *o)
{
	(void)o;
}

int exp_mpi_send_job(struct exp_mpi_out *o, size_t job, const char *rows,
                     const char *timing, char *err, size_t errlen)
{
	(void)o;
	(void)job;
	(void)rows;
	(void)timing;
	return exp_fail(err, errlen, EXP_EIO, "no MPI in this build");
}

int exp_mpi_send_done(struct exp_mpi_out *o, int status, int cancelled,
                      const char *msg, char *err, size_t errlen)
{
	(void)o;
	(void)status;
	(void)cancelled;
	(void)msg;
	return exp_fail(err, errlen, EXP_EIO, "no MPI in this build");
}

int exp_mpi_in_init(struct exp_mpi_in *in, int size)
{
	memset(in, 0, sizeof *in);
	in->size = size;
	return 0;
}

void exp_mpi_in_release(struct exp_mpi_in *in)
{
	memset(in, 0, sizeof *in);
}

int exp_mpi_poll(struct exp_mpi_in *in, int block, exp_mpi_job_fn fn,
                 void *arg, char *err, size_t errlen)
{
	(void)block;
	(void)fn;
	(void)arg;
	(void)err;
	(void)errlen;
	return in->rc;
}

#endif

int exp_mpi_rank(int use)
{
	int rank, size;
	exp_mpi_world(use, &rank, &size);
	return rank;
}

int exp_mpi_launched(void)
{
	return alloc_mpi_launched();
}
