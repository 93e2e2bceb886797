/* out.c - output files that are never partial and never clobber what is
 * not a regular file; signal handling that removes temporaries (out.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/out.h"
#include "trace/trace.h"

/* ---------------------------------------------------------------------
 * The registry of live temporaries, read by the signal handler.  A slot's
 * path is written before `used` is set, and `used` is cleared before the
 * slot is reused, so the handler never reads a half-written path.
 */
static char slot_path[CLI_OUT_MAX][PATH_MAX];
static volatile sig_atomic_t slot_used[CLI_OUT_MAX];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
/* The first signal, or 0.  An atomic claimed by compare-and-swap (lock
 * free, so safe in a handler): two signals pending at once may be taken
 * by two threads at the same time, and only one may be the first. */
static atomic_int caught;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the handler needs a lock-free int");
static volatile sig_atomic_t sigmode;

static int slot_take(const char *path)
{
	if (strlen(path) >= PATH_MAX)
		return -1;
	int got = -1;
	pthread_mutex_lock(&slot_lock);
	for (int i = 0; i < CLI_OUT_MAX; i++) {
		if (!slot_used[i]) {
			strcpy(slot_path[i], path);
			slot_used[i] = 1;
			got = i;
			break;
		}
	}
	pthread_mutex_unlock(&slot_lock);
	return got;
}

static void slot_drop(int i)
{
	if (i >= 0 && i < CLI_OUT_MAX)
		slot_used[i] = 0;
}

static void on_signal(int sig)
{
	int none = 0;
	if (sigmode == CLI_SIG_FLAG && atomic_compare_exchange_strong(&caught, &none, sig))
		return;
	for (int i = 0; i < CLI_OUT_MAX; i++)
		if (slot_used[i])
			unlink(slot_path[i]);
	_exit(128 + sig);
}

int cli_signals_install(enum cli_sigmode mode)
{
	sigmode = mode;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
		return -1;
	return 0;
}

int cli_interrupted(void)
{
	return atomic_load(&caught);
}

int cli_signal_status(int sig)
{
	return 128 + sig;
}

/* ---------------------------------------------------------------------
 * Output files
 */

static int is_fd_path(const char *p)
{
	return strncmp(p, "/dev/fd/", 8) == 0 || strncmp(p, "/proc/self/fd/", 14) == 0 ||
	       strcmp(p, "/dev/stdout") == 0 || strcmp(p, "/dev/stderr") == 0;
}

/* Follow the symlinks at `path` (also dangling ones): the final name,
 * malloc'd, or NULL (errno). */
static char *resolve(const char *path)
{
	char *cur = strdup(path);
	for (int hops = 0; cur && hops < 40; hops++) {
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		char link[PATH_MAX];
		ssize_t n = readlink(cur, link, sizeof link - 1);
		if (n < 0) {
			free(cur);
			return NULL;
		}
		link[n] = 0;
		char *next;
		if (link[0] == '/') {
			next = strdup(link);
		} else {
			const char *sl = strrchr(cur, '/');
			size_t dl = sl ? (size_t)(sl - cur) + 1 : 0;
			next = malloc(dl + (size_t)n + 1);
			if (next) {
				memcpy(next, cur, dl);
				memcpy(next + dl, link, (size_t)n + 1);
			}
		}
		free(cur);
		cur = next;
	}
	if (cur) {
		free(cur);
		errno = ELOOP;
	}
	return NULL;
}

static int out_open_plain(struct cli_out *o, const char *path, char *why, size_t len)
{
	memset(o, 0, sizeof *o);
	o->slot = -1;
	o->path = path;
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		o->is_stdout = 1;
		o->path = "<stdout>";
		return 0;
	}
	struct stat st;
	int exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s: is a directory", path);
		return -1;
	}
	if (exists && S_ISSOCK(st.st_mode)) {
		snprintf(why, len, "%s: is a socket", path);
		return -1;
	}
	if ((exists && !S_ISREG(st.st_mode)) || is_fd_path(path)) {
		/* A FIFO, a device, a terminal, an inherited descriptor:
		 * written directly, never replaced. */
		int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY |
		                    (exists && S_ISREG(st.st_mode) ? O_TRUNC : 0));
		if (fd < 0) {
			snprintf(why, len, "%s: cannot write: %s", path, strerror(errno));
			return -1;
		}
		o->f = fdopen(fd, "w");
		if (!o->f) {
			snprintf(why, len, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		return 0;
	}
	o->target = resolve(path);
	if (!o->target) {
		snprintf(why, len, "%s: cannot follow the link: %s", path, strerror(errno));
		return -1;
	}
	mode_t mode;
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t um = umask(0);
		umask(um);
		mode = 0666 & ~um;
	}
	const char *sl = strrchr(o->target, '/');
	size_t dl = sl ? (size_t)(sl - o->target) + 1 : 0;
	size_t tl = strlen(o->target) + 16;
	o->tmp = malloc(tl);
	if (!o->tmp) {
		snprintf(why, len, "%s: out of memory", path);
		free(o->target);
		o->target = NULL;
		return -1;
	}
	snprintf(o->tmp, tl, "%.*s.%s.tmpXXXXXX", (int)dl, o->target, o->target + dl);
	int fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s: cannot write: %s", path, strerror(errno));
		free(o->tmp);
		free(o->target);
		o->tmp = o->target = NULL;
		return -1;
	}
	o->slot = slot_take(o->tmp);
	if (o->slot < 0 || fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
		int e = o->slot < 0 ? EMFILE : errno;
		snprintf(why, len, "%s: %s", path, strerror(e));
		close(fd);
		unlink(o->tmp);
		slot_drop(o->slot);
		free(o->tmp);
		free(o->target);
		o->tmp = o->target = NULL;
		o->slot = -1;
		return -1;
	}
	return 0;
}

static void release(struct cli_out *o)
{
	slot_drop(o->slot);
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	o->f = NULL;
	o->slot = -1;
}

int cli_out_open(struct cli_out *o, const char *path, char *why, size_t len)
{
	if (out_open_plain(o, path, why, len) != 0)
		return -1;
	if (o->is_stdout || !trace_zst_name(path))
		return 0;
	/* NAME.zst: compressed (zstd) as it is written */
	FILE *z = trace_zst_writer(o->f, 3);
	if (!z) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		cli_out_abort(o);
		return -1;
	}
	o->raw = o->f;
	o->f = z;
	return 0;
}

/* The compressed stream ends (its last bytes go to o->raw); 0 or errno. */
static int out_unzst(struct cli_out *o)
{
	if (!o->raw)
		return 0;
	int e = fclose(o->f) != 0 ? (errno ? errno : EIO) : 0;
	o->f = o->raw;
	o->raw = NULL;
	return e;
}

int cli_out_commit(struct cli_out *o, char *why, size_t len)
{
	if (!o->f) {
		snprintf(why, len, "%s: not open", o->path ? o->path : "?");
		return -1;
	}
	int e = out_unzst(o);
	if (fflush(o->f) != 0 || ferror(o->f))
		e = e ? e : errno ? errno : EIO;
	if (o->is_stdout) {
		release(o);
		if (e) {
			snprintf(why, len, "<stdout>: cannot write: %s", strerror(e));
			return -1;
		}
		return 0;
	}
	if (!e && o->tmp && fsync(fileno(o->f)) != 0)
		e = errno;
	if (fclose(o->f) != 0 && !e)
		e = errno;
	o->f = NULL;
	if (!e && o->tmp && rename(o->tmp, o->target) != 0)
		e = errno;
	if (e && o->tmp)
		unlink(o->tmp);
	if (e)
		snprintf(why, len, "%s: cannot write: %s", o->path, strerror(e));
	release(o);
	return e ? -1 : 0;
}

void cli_out_abort(struct cli_out *o)
{
	out_unzst(o);
	if (o->f && !o->is_stdout)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

int cli_out_write_file(const char *path, const void *buf, size_t n, char *why,
                       size_t len)
{
	struct cli_out o;
	if (cli_out_open(&o, path, why, len) != 0)
		return -1;
	if (n && fwrite(buf, 1, n, o.f) != n) {
		snprintf(why, len, "%s: cannot write: %s", o.path, strerror(errno));
		cli_out_abort(&o);
		return -1;
	}
	return cli_out_commit(&o, why, len);
}
