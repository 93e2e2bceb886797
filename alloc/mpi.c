/* mpi.c - the independent searches of alloc_run_share dealt over MPI
 * ranks (alloc.h, "MPI"): rank r runs searches r, r + N, ...; then each
 * rank sends rank 0 its best binding and its sums in one message, and
 * rank 0 merges them with alloc_result_merge, whose choice (status,
 * makespan, search index) does not depend on the order: the result is
 * the one-process result for any N.  Built with ALLOC_MPI when
 * alloc/module.mk finds mpicc; without it, the one-process case.  Waits
 * poll and sleep (1 ms) instead of spinning, so that a rank done early
 * leaves its core to those still searching. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/allocint.h"

int alloc_mpi_launched(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
	                                   "PMI_SIZE", NULL};
	for (size_t i = 0; vars[i]; i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}

#ifdef ALLOC_MPI
#include <mpi.h>

enum { TAG_BEST = 7 };

/* A rank's part: fixed fields, then nthreads int32 processors. */
struct part {
	int64_t rc, have, status, stop, restart, nthreads, cpus;
	int64_t history_full, enumerated, complete, model;
	sim_time makespan, binpack, serial, unbound;
	int64_t binpack_status, serial_status, has_unbound, run_unbound, cpus_used;
	int64_t unbound_run, unbound_status, unbound_model;
	uint64_t tests, sims, deadlocks, restarts, cutoffs, pruned;
	uint64_t history_bytes;
	double seconds, unbound_margin;
};

static void nap(void)
{
	struct timespec t = {0, 1000000}; /* 1 ms */
	nanosleep(&t, NULL);
}

static int mpi_fail(int code, const char *what, int rank, char *err,
                    size_t errlen)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;
	if (MPI_Error_string(code, s, &n) != MPI_SUCCESS)
		snprintf(s, sizeof s, "error %d", code);
	snprintf(err, errlen, "rank %d: %s: %s", rank, what, s);
	return ALLOC_EMPI;
}

int alloc_mpi_available(void)
{
	return 1;
}

int alloc_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
	*rank = 0;
	*size = 1;
	/* Open MPI's shared-memory transport copies large messages with
	 * process_vm_readv (CMA), which containers often forbid (EPERM:
	 * "Read -1, expected ..., errno = 1", then a hang).  Our messages
	 * are small: copy through the shared buffers unless the user chose
	 * otherwise. */
	setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
	int provided;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) !=
	    MPI_SUCCESS)
		return -1;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	return 0;
}

void alloc_mpi_finalize(void)
{
	int inited = 0, fin = 0;
	MPI_Initialized(&inited);
	MPI_Finalized(&fin);
	if (inited && !fin)
		MPI_Finalize();
}

void alloc_mpi_abort(int code)
{
	int inited = 0, fin = 0;
	MPI_Initialized(&inited);
	MPI_Finalized(&fin);
	if (inited && !fin)
		MPI_Abort(MPI_COMM_WORLD, code);
}

static void to_part(const struct alloc_result *r, int rc, struct part *q)
{
	memset(q, 0, sizeof *q);
	q->rc = rc;
	q->have = r->binding != NULL;
	q->status = r->status;
	q->stop = r->stop;
	q->restart = r->restart;
	q->nthreads = r->binding ? r->nthreads : 0;
	q->cpus = r->cpus;
	q->history_full = r->history_full;
	q->enumerated = r->enumerated;
	q->complete = r->complete;
	q->model = r->model;
	q->makespan = r->makespan;
	q->binpack = r->binpack;
	q->serial = r->serial;
	q->binpack_status = r->binpack_status;
	q->serial_status = r->serial_status;
	q->has_unbound = r->has_unbound;
	q->unbound_run = r->unbound_run;
	q->unbound_status = r->unbound_status;
	q->unbound_model = r->unbound_model;
	q->run_unbound = r->run_unbound;
	q->cpus_used = r->cpus_used;
	q->unbound_margin = r->unbound_margin;
	q->unbound = r->unbound;
	q->tests = r->tests;
	q->sims = r->sims;
	q->deadlocks = r->deadlocks;
	q->restarts = r->restarts;
	q->cutoffs = r->cutoffs;
	q->pruned = r->pruned;
	q->history_bytes = r->history_bytes;
	q->seconds = r->seconds;
}

/* q's result into *r (the binding copied from b). */
static int from_part(const struct part *q, const int32_t *b,
                     struct alloc_result *r)
{
	memset(r, 0, sizeof *r);
	if (!q->have)
		return 0;
	size_t n = q->nthreads ? (size_t)q->nthreads : 1;
	r->binding = malloc(sizeof *r->binding * n);
	if (!r->binding)
		return ALLOC_ENOMEM;
	memcpy(r->binding, b, sizeof *b * (size_t)q->nthreads);
	r->nthreads = (uint32_t)q->nthreads;
	r->cpus = (uint32_t)q->cpus;
	r->status = (int)q->status;
	r->makespan = q->makespan;
	r->binpack = q->binpack;
	r->binpack_status = (int)q->binpack_status;
	r->serial = q->serial;
	r->serial_status = (int)q->serial_status;
	r->has_unbound = (int)q->has_unbound;
	r->unbound_run = (int)q->unbound_run;
	r->unbound_status = (int)q->unbound_status;
	r->unbound_model = (enum sim_model)q->unbound_model;
	r->run_unbound = (int)q->run_unbound;
	r->cpus_used = (uint32_t)q->cpus_used;
	r->unbound_margin = q->unbound_margin;
	r->unbound = q->unbound;
	r->tests = q->tests;
	r->sims = q->sims;
	r->deadlocks = q->deadlocks;
	r->restarts = q->restarts;
	r->stop = (enum alloc_stop)q->stop;
	r->seconds = q->seconds;
	r->model = (enum sim_model)q->model;
	r->history_full = (int)q->history_full;
	r->history_bytes = (size_t)q->history_bytes;
	r->cutoffs = q->cutoffs;
	r->pruned = q->pruned;
	r->enumerated = (int)q->enumerated;
	r->complete = (int)q->complete;
	r->restart = (uint32_t)q->restart;
	return 0;
}

static int wait_req(MPI_Request *r)
{
	for (;;) {
		int flag = 0;
		int e = MPI_Test(r, &flag, MPI_STATUS_IGNORE);
		if (e != MPI_SUCCESS || flag)
			return e;
		nap();
	}
}

int alloc_run_ranks(const struct sim_program *p,
                    const struct alloc_params *par, struct alloc_result *res,
                    char *err, size_t errlen)
{
	int inited = 0, fin = 0;
	MPI_Initialized(&inited);
	MPI_Finalized(&fin);
	if (!inited || fin)
		return alloc_run(p, par, res);
	int rank = 0, size = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size == 1)
		return alloc_run(p, par, res);
	int rc = alloc_run_share(p, par, (uint32_t)rank, (uint32_t)size, res);
	uint32_t n = sim_program_trace(p)->nthreads;
	size_t len = sizeof(struct part) + sizeof(int32_t) * n;
	if (len > (size_t)INT32_MAX) {
		alloc_result_release(res);
		snprintf(err, errlen, "rank %d: %u threads: too many to send",
		         rank, n);
		return ALLOC_EINVAL;
	}
	char *m = malloc(len);
	if (!m) {
		alloc_result_release(res);
		snprintf(err, errlen, "rank %d: out of memory", rank);
		return ALLOC_ENOMEM;
	}
	if (rank != 0) {
		struct part q;
		to_part(res, rc, &q);
		memcpy(m, &q, sizeof q);
		if (q.have)
			memcpy(m + sizeof q, res->binding,
			       sizeof(int32_t) * (size_t)q.nthreads);
		size_t sl = sizeof q + sizeof(int32_t) * (size_t)q.nthreads;
		MPI_Request r;
		int e = MPI_Isend(m, (int)sl, MPI_BYTE, 0, TAG_BEST,
		                  MPI_COMM_WORLD, &r);
		if (e == MPI_SUCCESS)
			e = wait_req(&r);
		free(m);
		if (e != MPI_SUCCESS) {
			alloc_result_release(res);
			return mpi_fail(e, "sending the best to rank 0", rank, err,
			                errlen);
		}
		return rc;
	}
	/* Rank 0: the others' parts, in rank order (the merge does not
	 * depend on it; the first failure reported does). */
	for (int k = 1; k < size; k++) {
		MPI_Request r;
		MPI_Status st;
		int e = MPI_Irecv(m, (int)len, MPI_BYTE, k, TAG_BEST,
		                  MPI_COMM_WORLD, &r);
		for (int flag = 0; e == MPI_SUCCESS && !flag;) {
			e = MPI_Test(&r, &flag, &st);
			if (e == MPI_SUCCESS && !flag)
				nap();
		}
		int got = 0;
		if (e == MPI_SUCCESS)
			e = MPI_Get_count(&st, MPI_BYTE, &got);
		if (e != MPI_SUCCESS) {
			free(m);
			alloc_result_release(res);
			return mpi_fail(e, "receiving a rank's best", 0, err,
			                errlen);
		}
		struct part q;
		if ((size_t)got < sizeof q) {
			free(m);
			alloc_result_release(res);
			snprintf(err, errlen, "rank %d: a message of %d bytes out "
			         "of protocol", k, got);
			return ALLOC_EMPI;
		}
		memcpy(&q, m, sizeof q);
		if (q.have && ((uint64_t)q.nthreads != n ||
		               (size_t)got != sizeof q + sizeof(int32_t) * n)) {
			free(m);
			alloc_result_release(res);
			snprintf(err, errlen, "rank %d: its program has %lld "
			         "threads, rank 0's %u (not the same trace)", k,
			         (long long)q.nthreads, n);
			return ALLOC_EINVAL;
		}
		if (q.rc < 0 && rc >= 0) {
			rc = (int)q.rc;
			snprintf(err, errlen, "rank %d: its searches failed (%d)",
			         k, rc);
		}
		if (rc < 0)
			continue;
		struct alloc_result rk;
		if (from_part(&q, (const int32_t *)(m + sizeof q), &rk)) {
			rc = ALLOC_ENOMEM;
			snprintf(err, errlen, "out of memory");
			continue;
		}
		alloc_result_merge(res, &rk);
	}
	free(m);
	if (rc < 0) {
		alloc_result_release(res);
		return rc;
	}
	/* The table's static string (alloc_result.algorithm). */
	int ai = alloc_algorithm_find(par->algorithm[0] ? par->algorithm
	                                                : "auto");
	res->algorithm = ai >= 0 ? alloc_algorithm_name((size_t)ai) : NULL;
	return res->binding && res->status == SIM_DEADLOCK ? ALLOC_DEADLOCK
	                                                   : ALLOC_OK;
}

#else /* no MPI */

int alloc_mpi_available(void)
{
	return 0;
}

int alloc_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
	(void)argc;
	(void)argv;
	*rank = 0;
	*size = 1;
	return -1;
}

void alloc_mpi_finalize(void)
{
}

void alloc_mpi_abort(int code)
{
	(void)code;
}

int alloc_run_ranks(const struct sim_program *p,
                    const struct alloc_params *par, struct alloc_result *res,
                    char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return alloc_run(p, par, res);
}

#endif
