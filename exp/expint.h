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

/* This process's rank and the number of ranks (0 and 1 without MPI). */
void exp_mpi_world(int use, int *rank, int *size);
/* 1 if several OpenMP threads may call MPI (MPI_THREAD_SERIALIZED). */
int exp_mpi_threads_ok(int use);
/* Broadcast len bytes of buf from rank 0. */
int exp_mpi_bcast(int use, void *buf, size_t len);
/* Non-root ranks: send a job's rows and timing text to rank 0. */
int exp_mpi_send_job(size_t job, const char *rows, const char *timing);
/* Non-root ranks: tell rank 0 this rank is finished, with its status and
 * (on error) its message. */
int exp_mpi_send_done(int rc, const char *err);

/* Rank 0: what arrives. */
typedef void (*exp_mpi_job_fn)(void *arg, size_t job, char *rows,
                               const char *timing);
/* Rank 0: receive what has arrived (block: until `waiting` ranks have
 * said done).  Returns the number of done messages taken; *rc the first
 * non-zero status with its message in err. */
int exp_mpi_poll(int block, int waiting, exp_mpi_job_fn fn, void *arg,
                 int *rc, char *err, size_t errlen);

#endif
