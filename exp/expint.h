/* expint.h - internals of the exp module shared between its files: the
 * message passing of exp/mpi.c (all no-ops with one process when the
 * build has no MPI), and the error helper of exp/err.c. */
#ifndef SHADOWBIND_EXPINT_H
#define SHADOWBIND_EXPINT_H

#include <stddef.h>

#include "exp/exp.h"

/* exp_fail - the message printf-style into err[len]; returns rc (exp/err.c). */
int exp_fail(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The message passing of a run over MPI ranks (exp/mpi.c; the protocol is
 * described there).  Without MPI in the build, or with use == 0, they are
 * the one-process case.  Functions returning int give 0 or an EXP_E* code
 * with a message in err. */

/* This process's rank and the number of ranks (0 and 1 without MPI). */
void exp_mpi_world(int use, int *rank, int *size);
/* 1 if several OpenMP threads may call MPI (MPI_THREAD_SERIALIZED). */
int exp_mpi_threads_ok(int use);
/* Broadcast len bytes of buf from rank 0 (a collective: every rank calls
 * it; the waiting ranks poll and sleep instead of spinning). */
int exp_mpi_bcast(int use, void *buf, size_t len, char *err, size_t errlen);

/* Ranks other than 0: the sends under way (NULL without MPI, or out of
 * memory).  free cancels those still under way. */
struct exp_mpi_out;
struct exp_mpi_out *exp_mpi_out_new(void);
void exp_mpi_out_free(struct exp_mpi_out *o);
/* Send a job's rows and timing text to rank 0 (without waiting for it). */
int exp_mpi_send_job(struct exp_mpi_out *o, size_t job, const char *rows,
                     const char *timing, char *err, size_t errlen);
/* The rank's last message: its status (0 or EXP_E*), whether it was
 * cancelled and its message (on error), with the number of jobs it sent;
 * returns when every send of the rank has completed. */
int exp_mpi_send_done(struct exp_mpi_out *o, int status, int cancelled,
                      const char *msg, char *err, size_t errlen);

/* Rank 0: what has arrived, for the whole run. */
struct exp_mpi_in {
	int size;        /* ranks                                       */
	int waiting;     /* ranks whose "done" has not arrived           */
	size_t *got;     /* [size] jobs received from each rank          */
	char *said;      /* [size] 1 once the rank's "done" arrived       */
	int rc;          /* the first failure (EXP_E*), 0 if none         */
	int cancelled;   /* some rank said it was cancelled               */
};
int exp_mpi_in_init(struct exp_mpi_in *in, int size);
void exp_mpi_in_release(struct exp_mpi_in *in);
/* Rank 0: a job has arrived (fn takes rows, NULL if out of memory). */
typedef void (*exp_mpi_job_fn)(void *arg, size_t job, char *rows,
                               const char *timing);
/* Rank 0: take what has arrived, passing each job to fn; block: until
 * every other rank's "done" is in (or a failure: in->rc).  Returns
 * in->rc; the first failure's message ("rank R: ...") is in err. */
int exp_mpi_poll(struct exp_mpi_in *in, int block, exp_mpi_job_fn fn,
                 void *arg, char *err, size_t errlen);

#endif
