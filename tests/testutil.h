/*
 * testutil.h - helpers shared by the cmocka test programs.
 *
 * Tests find things through the environment that `make check` sets:
 *   SB_BIN     the directory of the commands under test (bin/ or build/san/bin)
 *   SB_ROOT    the repository
 *   SB_SHARED  ../shared (the specs and the shared examples)
 */
#ifndef SHADOWBIND_TESTUTIL_H
#define SHADOWBIND_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"
#include "trace/trace.h"

/* Path of a file under shared/, $SB_ROOT or $SB_BIN, in a buffer of the
 * caller's (buf, len).  SB_ROOT falls back to ., SB_BIN to bin.
 *
 * shared/ is the first of: $SB_SHARED, $SB_ROOT/../shared, the main
 * working tree's ../shared when $SB_ROOT is a git worktree, ../shared,
 * that has spec/simulation.md (tu_shared_dir; NULL, with a message naming
 * the places tried, when none has).  Without shared/, tu_shared gives the
 * repo's own copy for "examples/..." (kept equal by test_docs), and for
 * anything else prints why and skips the calling test (cmocka skip(): call
 * it inside a test, not in a group setup). */
const char *tu_shared_dir(void);
const char *tu_shared(const char *rel, char *buf, size_t len);
const char *tu_root(const char *rel, char *buf, size_t len);
const char *tu_bin(const char *cmd, char *buf, size_t len);

/* Parse a trace from a string; fails the test (cmocka) on a parse error,
 * printing the error.  Free with trace_free. */
struct trace *tu_trace(const char *text);

/* A parsed trace with a simulator program and workspace. */
struct tu_sim {
	struct trace *tr;
	struct sim_program *p;
	struct sim_work *w;
};

/* Parse `text` (failing the test on an error) and prepare it for
 * simulation; release with tu_sim_close. */
void tu_sim_open(struct tu_sim *c, const char *text);
void tu_sim_close(struct tu_sim *c);

/* A lock-order inversion that deadlocks the Direct model with every thread
 * on its own processor: T2 locks mutex 1 (line 4) then 2 at 10 (line 5),
 * T3 locks 2 (line 9) then 1 at 10 (line 10), recorded one after the
 * other; T1 joins both (line 14). */
extern const char tu_lock_inversion[];

/* A program whose three binpacking inputs (docs/alloc.md) give three
 * different binpacking allocations on 2 processors under fifo: main (1)
 * works 5, creates 2, 3, 4, works 5, creates 5, joins all; 2 works 10,
 * posts semaphore 1, works 20; 3 works 40; 4 works 10; 5 waits for the
 * semaphore, works 50.  Derived by hand in test_alloc.c
 * (test_binpack_input). */
extern const char tu_binpack_inputs[];

/* Seconds a command run by tu_run may take before it is killed: ten
 * times the slowest sanitized command seen under load (test_orders'
 * 52 s), so only a hang reaches it. */
#ifndef TU_RUN_LIMIT
#define TU_RUN_LIMIT 600
#endif

/* Run `cmdline` with /bin/sh in its own process group; capture stdout
 * and stderr (NUL-terminated, malloc'd; free them).  Returns the exit
 * status (0..255), or -1 if it did not exit normally: a command still
 * running after TU_RUN_LIMIT seconds is ended by SIGALRM (said on
 * stderr) and its process group killed. */
int tu_run(const char *cmdline, char **out, char **err);

/* Run the command `cmd` of $SB_BIN with the arguments `fmt` (a printf
 * format, passed to /bin/sh, so quote paths); as tu_run. */
int tu_cmdf(const char *cmd, char **out, char **err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Lines (LF characters) in s. */
int tu_count_lines(const char *s);

/* The whole file at `path`, NUL-terminated (malloc'd), its length in *len
 * when len is not NULL; NULL if it cannot be read. */
char *tu_slurp(const char *path, size_t *len);

/* Write `text` to a new temporary file; returns its malloc'd path
 * (unlink and free it). */
char *tu_tmpfile(const char *text);

/* A fork-join trace in a new temporary file (as tu_tmpfile): thread 1
 * creates threads 2..children+1, each runs child_work (ns) and exits;
 * unless join_work < 0 it then joins each after join_work (ns) of its own
 * work, right after that child's create.  Thread 1 exits last. */
char *tu_fanout_trace(int children, int child_work, int join_work);

/* The entries of directory `dir` other than . and .., or -1 when it
 * cannot be opened (tests that no temporary file is left behind). */
int tu_dir_entries(const char *dir);

/* A tiny deterministic PRNG for randomized tests (splitmix64). */
static inline uint64_t tu_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#endif
