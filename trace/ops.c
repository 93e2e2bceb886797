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
	[TRACE_CREATE] = {
		.name = "create",
		.usage = "a thread id",
		.arg = { OBJ(THREAD), NOARG },
		.role = TRACE_RELEASE,
		.effect = TRACE_CREATE,
		.verb = { NULL, NULL },
	},
	[TRACE_EXIT] = {
		.name = "exit",
		.usage = "nothing",
		.arg = { NOARG, NOARG },
		.role = TRACE_RELEASE,
		.effect = TRACE_EXIT,
		.verb = { NULL, NULL },
	},
	[TRACE_JOIN] = {
		.name = "join",
		.usage = "a thread id",
		.arg = { OBJ(THREAD), NOARG },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_JOIN,
		.verb = { "join", NULL },
	},
	[TRACE_LOCK] = {
		.name = "lock",
		.usage = "a mutex id",
		.arg = { OBJ(MUTEX), NOARG },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_LOCK,
		.verb = { "lock", NULL },
	},
	[TRACE_UNLOCK] = {
		.name = "unlock",
		.usage = "a mutex id",
		.arg = { OBJ(MUTEX), NOARG },
		.role = TRACE_RELEASE,
		.effect = TRACE_UNLOCK,
		.verb = { NULL, NULL },
	},
	[TRACE_TRYLOCK] = {
		.name = "trylock",
		.usage = "a mutex id and 'ok' or 'busy'",
		.arg = { OBJ(MUTEX), NUM(OUTCOME) },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_LOCK,
		.verb = { "lock", NULL },
	},
	[TRACE_WAIT] = {
		.name = "wait",
		.usage = "a semaphore id",
		.arg = { OBJ(SEM), NOARG },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_WAIT,
		.verb = { "wait on", NULL },
	},
	[TRACE_POST] = {
		.name = "post",
		.usage = "a semaphore id",
		.arg = { OBJ(SEM), NOARG },
		.role = TRACE_RELEASE,
		.effect = TRACE_POST,
		.verb = { NULL, NULL },
	},
	[TRACE_TRYWAIT] = {
		.name = "trywait",
		.usage = "a semaphore id and 'ok' or 'busy'",
		.arg = { OBJ(SEM), NUM(OUTCOME) },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_WAIT,
		.verb = { "wait on", NULL },
	},
	[TRACE_CWAIT] = {
		.name = "cwait",
		.usage = "a condition variable id and a mutex id",
		.arg = { OBJ(COND), OBJ(MUTEX) },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_CWAIT,
		.verb = { "be signalled on", "re-acquire after cwait" },
	},
	[TRACE_SIGNAL] = {
		.name = "signal",
		.usage = "a condition variable id and a count (0 or 1)",
		.arg = { OBJ(COND), NUM(COUNT1) },
		.role = TRACE_RELEASE | TRACE_BLOCKS,
		.effect = TRACE_SIGNAL,
		.verb = { "see its waiters on", NULL },
	},
	[TRACE_BROADCAST] = {
		.name = "broadcast",
		.usage = "a condition variable id and a count",
		.arg = { OBJ(COND), NUM(COUNT) },
		.role = TRACE_RELEASE | TRACE_BLOCKS,
		.effect = TRACE_BROADCAST,
		.verb = { "see its waiters on", NULL },
	},
	[TRACE_BARRIER] = {
		.name = "barrier",
		.usage = "a barrier id and a size",
		.arg = { OBJ(BARRIER), NUM(SIZE) },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_BARRIER,
		.verb = { "pass", NULL },
	},
	[TRACE_RDLOCK] = {
		.name = "rdlock",
		.usage = "an rwlock id",
		.arg = { OBJ(RWLOCK), NOARG },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_RDLOCK,
		.verb = { "rdlock", NULL },
	},
	[TRACE_WRLOCK] = {
		.name = "wrlock",
		.usage = "an rwlock id",
		.arg = { OBJ(RWLOCK), NOARG },
		.role = TRACE_ACQUIRE | TRACE_BLOCKS,
		.effect = TRACE_WRLOCK,
		.verb = { "wrlock", NULL },
	},
	[TRACE_RWUNLOCK] = {
		.name = "rwunlock",
		.usage = "an rwlock id",
		.arg = { OBJ(RWLOCK), NOARG },
		.role = TRACE_RELEASE,
		.effect = TRACE_RWUNLOCK,
		.verb = { NULL, NULL },
	},
	[TRACE_SLEEP] = {
		.name = "sleep",
		.usage = "a duration",
		.arg = { NUM(DURATION), NOARG },
		.role = 0,
		.effect = TRACE_SLEEP,
		.verb = { NULL, NULL },
	},
};

const struct trace_kindinfo trace_kinds[TRACE_NKINDS] = {
	[TRACE_K_THREAD] = { "thread", "thread id" },
	[TRACE_K_MUTEX] = { "mutex", "mutex id" },
	[TRACE_K_SEM] = { "semaphore", "semaphore id" },
	[TRACE_K_COND] = { "condition variable", "condition variable id" },
	[TRACE_K_BARRIER] = { "barrier", "barrier id" },
	[TRACE_K_RWLOCK] = { "rwlock", "rwlock id" },
};
