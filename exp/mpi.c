/* mpi.c - running an experiment over MPI ranks (Open MPI): rank 0 reads
 * and writes the CSV, the jobs are dealt round-robin over the ranks, the
 * others send each job's rows to rank 0.  Built with EXP_MPI when
 * exp/module.mk finds mpicc; without it every function is the one-process
 * case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/expint.h"

#ifdef EXP_MPI
#include <mpi.h>

enum { TAG_JOB = 1, TAG_DONE = 2 };

int exp_mpi_available(void)
{
	return 1;
}

int exp_mpi_init(int *argc, char ***argv)
{
	int provided;
	return MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) ==
	               MPI_SUCCESS ? 0 : -1;
}

void exp_mpi_finalize(void)
{
	int inited = 0, fin = 0;
	MPI_Initialized(&inited);
	MPI_Finalized(&fin);
	if (inited && !fin)
		MPI_Finalize();
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

int exp_mpi_bcast(int use, void *buf, size_t len)
{
	if (!use)
		return 0;
	char *p = buf;
	while (len > 0) {
		int n = len > (1u << 30) ? 1 << 30 : (int)len;
		if (MPI_Bcast(p, n, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Message: 8-byte job (or status), then text NUL text NUL. */
static int send(int tag, unsigned long long head, const char *a,
                const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t n = 8 + la + 1 + lb + 1;
	if (n > (size_t)1 << 30)
		return -1;
	char *m = malloc(n);
	if (!m)
		return -1;
	memcpy(m, &head, 8);
	memcpy(m + 8, a, la + 1);
	memcpy(m + 9 + la, b, lb + 1);
	int r = MPI_Send(m, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
	free(m);
	return r == MPI_SUCCESS ? 0 : -1;
}

int exp_mpi_send_job(size_t job, const char *rows, const char *timing)
{
	return send(TAG_JOB, job, rows, timing);
}

int exp_mpi_send_done(int rc, const char *err)
{
	return send(TAG_DONE, (unsigned long long)(long long)rc, err ? err : "",
	            "");
}

int exp_mpi_poll(int block, int waiting, exp_mpi_job_fn fn, void *arg,
                 int *rc, char *err, size_t errlen)
{
	int dones = 0;
	for (;;) {
		MPI_Status st;
		int flag = 0;
		if (block) {
			if (dones >= waiting)
				break;
			MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			flag = 1;
		} else {
			MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
			           &st);
		}
		if (!flag)
			break;
		int n;
		MPI_Get_count(&st, MPI_BYTE, &n);
		char *m = malloc((size_t)n + 1);
		if (!m) {
			*rc = EXP_ENOMEM;
			MPI_Abort(MPI_COMM_WORLD, 4);
			return dones;
		}
		MPI_Recv(m, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG,
		         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		m[n] = 0;
		unsigned long long head;
		memcpy(&head, m, 8);
		char *a = m + 8;
		char *b = a + strlen(a) + 1;
		if (st.MPI_TAG == TAG_DONE) {
			dones++;
			if ((long long)head != 0 && *rc == 0) {
				*rc = (int)(long long)head;
				snprintf(err, errlen, "rank %d: %s", st.MPI_SOURCE, a);
			}
			free(m);
			continue;
		}
		size_t la = strlen(a);
		char *rows = malloc(la + 1);
		if (rows)
			memcpy(rows, a, la + 1);
		fn(arg, (size_t)head, rows, b);
		free(m);
	}
	return dones;
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

int exp_mpi_bcast(int use, void *buf, size_t len)
{
	(void)use;
	(void)buf;
	(void)len;
	return 0;
}

int exp_mpi_send_job(size_t job, const char *rows, const char *timing)
{
	(void)job;
	(void)rows;
	(void)timing;
	return -1;
}

int exp_mpi_send_done(int rc, const char *err)
{
	(void)rc;
	(void)err;
	return -1;
}

int exp_mpi_poll(int block, int waiting, exp_mpi_job_fn fn, void *arg,
                 int *rc, char *err, size_t errlen)
{
	(void)block;
	(void)waiting;
	(void)fn;
	(void)arg;
	(void)rc;
	(void)err;
	(void)errlen;
	return 0;
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
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
	                                   "PMI_SIZE", NULL};
	for (size_t i = 0; vars[i]; i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}
