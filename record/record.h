/*
 * record.h - the recorder's and launcher's library side (docs/record.md):
 * what bin/shadowbind-record and bin/shadowbind-run need besides the
 * LD_PRELOAD library (record/preload/, built into
 * libshadowbind-record.so, never into this library).
 *
 * No global state (except the child's pid that rec_wait keeps for its
 * signal handler while it waits, as cli/out.h keeps its signal flag);
 * nothing prints.  Functions that can fail return 0 or
 * -1 with a one-line reason in `err` (struct trace_error's msg).
 */
#ifndef SHADOWBIND_RECORD_H
#define SHADOWBIND_RECORD_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/trace.h"

/* Name of the preload library, next to the commands. */
#define REC_PRELOAD_NAME "libshadowbind-record.so"

/*
 * rec_preload_path - where the preload library is: $SHADOWBIND_PRELOAD if
 * set, else next to the running executable (/proc/self/exe), else
 * ../lib/shadowbind/ from it (an installed layout).  Fills buf (absolute
 * path) and returns 0, or -1 with the reason in err.
 */
int rec_preload_path(char *buf, size_t len, struct trace_error *err);

/* What rec_inspect finds out about a program before running it. */
struct rec_program {
	char path[4096];  /* resolved through PATH                           */
	int is_elf;       /* an ELF file we could read                       */
	int is_static;    /* no program interpreter: LD_PRELOAD cannot work  */
	int uses_gomp;    /* needs libgomp (GCC's OpenMP: recorded through
	                     its GOMP_* entry points, docs/record.md)        */
	int uses_llvm_omp; /* needs LLVM's or Intel's OpenMP runtime (libomp,
	                     libiomp5): its __kmpc_* calls are not recorded  */
};

/*
 * rec_inspect - resolve `prog` (as execvp would) and read its ELF headers.
 * Returns 0 and fills *out, or -1 (not found / not executable) with err.
 * A file that is not ELF (a script) gives is_elf = 0 and no further facts.
 */
int rec_inspect(const char *prog, struct rec_program *out, struct trace_error *err);

/*
 * rec_pins_from_binding - read the binding file at `path` (its thread
 * lines give the threads; the official reader validates it) and produce
 * the SHADOWBIND_PIN value: the OS CPU of thread 1, 2, ... up to the
 * largest id, comma-separated, `-` for ids the binding does not name.
 * Logical processor p runs on OS CPU map[p] (the `map` line) or p.
 * `allowed` is the set of CPUs this process may use: a binding needing
 * more processors than it holds, or mapped to a CPU outside it, is an
 * error.  *pins is malloc'd (free it); *nthreads the threads named.
 */
int rec_pins_from_binding(const char *path, const cpu_set_t *allowed, char **pins,
                          uint32_t *nthreads, struct trace_error *err);

/*
 * rec_tree_from_trace - the SHADOWBIND_TREE value for the trace at `path`
 * (read and validated): for each thread that creates threads, in
 * increasing id, `P:C1,C2,...;` its children's ids in the order it created
 * them.  With it the launcher numbers a new thread by its creator and the
 * creator's count of creates, not by global creation order (which differs
 * between runs when several threads create threads).  *tree is malloc'd
 * (free it).  0, or -1 with err.
 */
int rec_tree_from_trace(const char *path, char **tree, struct trace_error *err);

/*
 * rec_omp_places - the OpenMP places list equivalent to a pin list (the
 * value of SHADOWBIND_PIN, with or without its name): "{c1},{c2},...",
 * the OS CPU of thread 1, 2, ... in order; with OMP_PROC_BIND=close
 * libgomp puts team member i on the i-th place, which is thread i + 1 of
 * a recorded OpenMP program with one team (docs/record.md, OpenMP).
 * malloc'd (free it); NULL when a thread has no CPU or out of memory.
 */
char *rec_omp_places(const char *pins);

/* Number of CPUs in the set, and its first CPU (-1 if empty). */
int rec_cpu_count(const cpu_set_t *s);
int rec_cpu_first(const cpu_set_t *s);

/*
 * rec_spawn - run argv[0] (resolved path `path`) with `extra` added to the
 * environment (NAME=VALUE strings, NULL-terminated; LD_PRELOAD is put in
 * front of an existing one) in a child process.  Returns its pid, or -1
 * with err.
 */
pid_t rec_spawn(const char *path, char *const argv[], char *const extra[],
                struct trace_error *err);

/*
 * rec_pin_env - the environment that pins a program's threads as the
 * binding at `binding` says (shadowbind-run, and a bound recording):
 * env[0] = "SHADOWBIND_PIN=..." (rec_pins_from_binding) and, with `trace`
 * (number threads by their creator), env[1] = "SHADOWBIND_TREE=..."
 * (rec_tree_from_trace), else NULL; both malloc'd (free them).  Returns
 * 0; or -1 (bad binding or trace) or -2 (out of memory) with env[] NULL
 * and the reason in err.
 */
int rec_pin_env(const char *binding, const char *trace, const cpu_set_t *allowed,
                char *env[2], struct trace_error *err);
/*
 * rec_wait - wait for pid; forwards SIGINT and SIGTERM sent to us to the
 * child meanwhile.  Returns the exit status in shell form (0..255, or
 * 128 + signal) and the elapsed wall time in *ns (may be NULL).
 */
int rec_wait(pid_t pid, uint64_t *ns);

#endif
