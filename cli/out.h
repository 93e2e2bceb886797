/*
 * out.h - output files and signals of the commands: nothing partial,
 * nothing clobbered that is not a regular file, no temporary left behind.
 *
 * Output files (cli_out_open / cli_out_commit / cli_out_abort):
 *
 *   "-" or NULL       standard output, written directly.
 *   a regular file,   written to a temporary in the same directory
 *   or no file yet    (".NAME.tmpXXXXXX") and renamed over it on commit:
 *                     readers see the old or the new file, never a part.
 *                     A new file gets mode 0666 & ~umask (0644 with the
 *                     usual umask 022); a replaced file keeps its mode.
 *   a symlink         followed (also a dangling one, up to 40 links): the
 *                     file it points to is replaced as above; the link
 *                     stays a link.
 *   a FIFO, a device  (e.g. /dev/null, /dev/stdout, /dev/fd/3, a terminal)
 *   or /dev/fd/N,     written directly: never replaced by a regular file
 *   /proc/self/fd/N   (as root, -o /dev/null keeps /dev/null a device).
 *   a directory,      refused: "PATH: is a directory" (resp. "is a
 *   a socket          socket"); nothing is written.
 *
 * Signals (cli_signals_install): SIGINT and SIGTERM are caught.
 *   CLI_SIG_EXIT   the first signal removes every live temporary and exits
 *                  at once with 128 + signal (130 SIGINT, 143 SIGTERM).
 *   CLI_SIG_FLAG   the first signal only sets a flag (cli_interrupted): the
 *                  command stops cleanly, writes what it has and exits with
 *                  cli_signal_status(); a second signal acts as CLI_SIG_EXIT
 *                  (no output, temporaries removed).
 * Temporaries of cli_out are registered while they exist (at most
 * CLI_OUT_MAX at once, from any thread), so the handler can remove them.
 *
 * Global state: the signal flag and the registry of temporaries (a signal
 * handler needs them); everything else is in struct cli_out.
 */
#ifndef SHADOWBIND_CLI_OUT_H
#define SHADOWBIND_CLI_OUT_H

#include <stddef.h>
#include <stdio.h>

#define CLI_OUT_MAX 128 /* temporaries alive at once (all threads) */

enum cli_sigmode { CLI_SIG_EXIT = 0, CLI_SIG_FLAG = 1 };

/* cli_signals_install - catch SIGINT and SIGTERM as `mode` says.
 * Returns 0, or -1 (errno) if sigaction failed. */
int cli_signals_install(enum cli_sigmode mode);

/* cli_interrupted - 0, or the number of the first signal caught. */
int cli_interrupted(void);

/* cli_signal_status - the exit status for signal `sig`: 128 + sig (130
 * SIGINT, 143 SIGTERM). */
int cli_signal_status(int sig);

struct cli_out {
	FILE *f;            /* write the output here                      */
	FILE *raw;          /* a path ending in .zst: the file under the
	                       compressing f (trace_zst_writer), else NULL */
	const char *path;   /* as given (messages)                         */
	char *target;       /* the file renamed onto (malloc'd), or NULL   */
	char *tmp;          /* the temporary (malloc'd), or NULL: direct   */
	int slot;           /* registry slot of tmp, or -1                 */
	int is_stdout;
};

/*
 * cli_out_open - prepare output `path` as described above; a path ending
 * in ".zst" is compressed with zstd as it is written (trace.h,
 * "Compressed traces"; standard output never is).  Returns 0
 * with o->f ready; or -1 with a one-line reason in why ("x/y: cannot
 * write: No such file or directory", "d: is a directory")
 * and nothing created (o zeroed but for path).
 */
int cli_out_open(struct cli_out *o, const char *path, char *why, size_t len);

/*
 * cli_out_commit - finish: flush, and for a temporary fsync, close and
 * rename over the target.  Returns 0; or -1 with the reason in why
 * ("f: cannot write: No space left on device"), the temporary removed
 * and the target untouched.  o is released either way.
 */
int cli_out_commit(struct cli_out *o, char *why, size_t len);

/* cli_out_abort - give up: close, remove the temporary (the target stays
 * as it was).  Accepts a released or zeroed o. */
void cli_out_abort(struct cli_out *o);

/*
 * cli_out_write_file - write len bytes to `path` (cli_out_open, fwrite,
 * cli_out_commit).  Returns 0, or -1 with why filled.
 */
int cli_out_write_file(const char *path, const void *buf, size_t n, char *why,
                       size_t len);

#endif
