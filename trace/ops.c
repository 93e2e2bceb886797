/*
 * ops.c - the operation table (trace.h, struct trace_opinfo): one row per
 * trace operation, the only place that says what an operation is.  Adding
 * an operation means adding its enum value, its row here, and its replay
 * rule (trace/validate.c) and simulation rule (sim/).
 */
#include "trace/trace.h"

#define OBJ(k) { TRACE_ARG_OBJ, TRACE_K_##k }
#define NUM(a) { TRACE_ARG_##a, 0 }
#define NOARG { TRACE_ARG_NONE, 0 }

const struct trace_opinfo trace_ops[TRACE_NOPS] = {
	[TRACE_CREATE] = { "create", "a thread id", { OBJ(THREAD), NOARG },
	                   TRACE_RELEASE, TRACE_CREATE, { NULL, NULL } },
	[TRACE_EXIT] = { "exit", "nothing", { NOARG, NOARG },
	                 TRACE_RELEASE, TRACE_EXIT, { NULL, NULL } },
	[TRACE_JOIN] = { "join", "a thread id", { OBJ(THREAD), NOARG },
	                 TRACE_ACQUIRE, TRACE_JOIN, { "join", NULL } },
	[TRACE_LOCK] = { "lock", "a mutex id", { OBJ(MUTEX), NOARG },
	                 TRACE_ACQUIRE, TRACE_LOCK, { "lock", NULL } },
	[TRACE_UNLOCK] = { "unlock", "a mutex id", { OBJ(MUTEX), NOARG },
	                   TRACE_RELEASE, TRACE_UNLOCK, { NULL, NULL } },
	[TRACE_TRYLOCK] = { "trylock", "a mutex id and 'ok' or 'busy'",
	                    { OBJ(MUTEX), NUM(OUTCOME) },
	                    TRACE_ACQUIRE, TRACE_LOCK, { "lock", NULL } },
	[TRACE_WAIT] = { "wait", "a semaphore id", { OBJ(SEM), NOARG },
	                 TRACE_ACQUIRE, TRACE_WAIT, { "wait on", NULL } },
	[TRACE_POST] = { "post", "a semaphore id", { OBJ(SEM), NOARG },
	                 TRACE_RELEASE, TRACE_POST, { NULL, NULL } },
	[TRACE_TRYWAIT] = { "trywait", "a semaphore id and 'ok' or 'busy'",
	                    { OBJ(SEM), NUM(OUTCOME) },
	                    TRACE_ACQUIRE, TRACE_WAIT, { "wait on", NULL } },
	[TRACE_CWAIT] = { "cwait", "a condition variable id and a mutex id",
	                  { OBJ(COND), OBJ(MUTEX) },
	                  TRACE_ACQUIRE, TRACE_CWAIT,
	                  { "be signalled on", "re-acquire after cwait" } },
	[TRACE_SIGNAL] = { "signal", "a condition variable id and a count (0 or 1)",
	                   { OBJ(COND), NUM(COUNT1) },
	                   TRACE_RELEASE, TRACE_SIGNAL, { "see its waiters on", NULL } },
	[TRACE_BROADCAST] = { "broadcast", "a condition variable id and a count",
	                      { OBJ(COND), NUM(COUNT) },
	                      TRACE_RELEASE, TRACE_BROADCAST,
	                      { "see its waiters on", NULL } },
	[TRACE_BARRIER] = { "barrier", "a barrier id and a size",
	                    { OBJ(BARRIER), NUM(SIZE) },
	                    TRACE_ACQUIRE, TRACE_BARRIER, { "pass", NULL } },
	[TRACE_RDLOCK] = { "rdlock", "an rwlock id", { OBJ(RWLOCK), NOARG },
	                   TRACE_ACQUIRE, TRACE_RDLOCK, { "rdlock", NULL } },
	[TRACE_WRLOCK] = { "wrlock", "an rwlock id", { OBJ(RWLOCK), NOARG },
	                   TRACE_ACQUIRE, TRACE_WRLOCK, { "wrlock", NULL } },
	[TRACE_RWUNLOCK] = { "rwunlock", "an rwlock id", { OBJ(RWLOCK), NOARG },
	                     TRACE_RELEASE, TRACE_RWUNLOCK, { NULL, NULL } },
	[TRACE_SLEEP] = { "sleep", "a duration", { NUM(DURATION), NOARG },
	                  0, TRACE_SLEEP, { NULL, NULL } },
};

const struct trace_kindinfo trace_kinds[TRACE_NKINDS] = {
	[TRACE_K_THREAD] = { "thread", "thread id" },
	[TRACE_K_MUTEX] = { "mutex", "mutex id" },
	[TRACE_K_SEM] = { "semaphore", "semaphore id" },
	[TRACE_K_COND] = { "condition variable", "condition variable id" },
	[TRACE_K_BARRIER] = { "barrier", "barrier id" },
	[TRACE_K_RWLOCK] = { "rwlock", "rwlock id" },
};
