#include "tests/testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

static const char *path_in(const char *var, const char *dflt, const char *rel,
                           char *buf, size_t len)
{
	const char *d = getenv(var);
	snprintf(buf, len, "%s/%s", d && *d ? d : dflt, rel);
	return buf;
}

/* Is `dir` a shared/ directory (it has spec/simulation.md)? */
static int is_shared(const char *dir)
{
	char p[4096];
	if ((size_t)snprintf(p, sizeof p, "%s/spec/simulation.md", dir) >= sizeof p)
		return 0;
	return access(p, R_OK) == 0;
}

/* From a git worktree (.git is a file "gitdir: MAIN/.git/worktrees/NAME"),
 * the main working tree MAIN into buf; 0, or -1. */
static int main_worktree(const char *root, char *buf, size_t len)
{
	char p[4096], line[4096];
	if ((size_t)snprintf(p, sizeof p, "%s/.git", root) >= sizeof p)
		return -1;
	FILE *f = fopen(p, "r");
	if (!f)
		return -1; /* not a worktree (or a directory: fopen fails) */
	int ok = fgets(line, sizeof line, f) != NULL;
	fclose(f);
	char *w = ok ? strstr(line, "/.git/worktrees/") : NULL;
	if (strncmp(line, "gitdir: ", 8) != 0 || !w)
		return -1;
	*w = 0;
	return (size_t)snprintf(buf, len, "%s", line + 8) < len ? 0 : -1;
}

const char *tu_shared_dir(void)
{
	static char found[4096];
	static int done;
	if (done)
		return found[0] ? found : NULL;
	done = 1;
	const char *env = getenv("SB_SHARED"), *root = getenv("SB_ROOT");
	char cand[4][4096] = {{0}}, top[2048];
	if (!root || !*root)
		root = ".";
	if (env && *env && (size_t)snprintf(cand[0], sizeof cand[0], "%s", env) >= sizeof cand[0])
		cand[0][0] = 0;
	if ((size_t)snprintf(cand[1], sizeof cand[1], "%s/../shared", root) >= sizeof cand[1])
		cand[1][0] = 0;
	if (main_worktree(root, top, sizeof top) == 0 &&
	    (size_t)snprintf(cand[2], sizeof cand[2], "%s/../shared", top) >= sizeof cand[2])
		cand[2][0] = 0;
	snprintf(cand[3], sizeof cand[3], "../shared");
	for (int i = 0; i < 4; i++)
		if (cand[i][0] && is_shared(cand[i])) {
			memcpy(found, cand[i], sizeof found);
			return found;
		}
	print_message("shared/ not found (tried SB_SHARED=%s, %s, %s, %s): set SB_SHARED to "
	              "the directory with spec/ and examples/\n",
	              cand[0][0] ? cand[0] : "(unset)", cand[1], cand[2][0] ? cand[2] : "(not a git worktree)",
	              cand[3]);
	return NULL;
}

const char *tu_shared(const char *rel, char *buf, size_t len)
{
	const char *d = tu_shared_dir();
	if (d) {
		if ((size_t)snprintf(buf, len, "%s/%s", d, rel) >= len)
			fail_msg("path too long: %s/%s", d, rel);
		return buf;
	}
	if (strncmp(rel, "examples/", 9) == 0) {
		/* the repo keeps copies of the shared examples (test_docs checks
		 * them against shared/ when it is there) */
		tu_root(rel, buf, len);
		if (access(buf, R_OK) == 0) {
			print_message("using the repo's copy %s (shared/ not found)\n", buf);
			return buf;
		}
	}
	print_message("SKIPPED: needs %s from shared/, which was not found\n", rel);
	skip();
	return buf;
}

const char *tu_root(const char *rel, char *buf, size_t len)
{
	return path_in("SB_ROOT", ".", rel, buf, len);
}

const char *tu_bin(const char *cmd, char *buf, size_t len)
{
	return path_in("SB_BIN", "bin", cmd, buf, len);
}

struct trace *tu_trace(const char *text)
{
	struct trace *tr = NULL;
	struct trace_error err;
	if (trace_read_mem("test.trace", text, strlen(text), &tr, &err) != 0) {
		print_error("%s\n", err.msg);
		fail_msg("trace did not parse: %s", err.msg);
	}
	return tr;
}

static char *slurp_stream(FILE *f, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	rewind(f);
	for (;;) {
		size_t n = fread(s + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
		if (len + 1 == cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
	}
	s[len] = 0;
	if (lenp)
		*lenp = len;
	return s;
}

int tu_run(const char *cmdline, char **out, char **err)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	if (!fo || !fe)
		fail_msg("tmpfile failed");
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		/* Its own process group, so that what it started can be
		 * killed with it; the alarm survives exec and ends the shell
		 * (or the command dash execs in its place) if it hangs. */
		setpgid(0, 0);
		alarm(TU_RUN_LIMIT);
		dup2(fileno(fo), 1);
		dup2(fileno(fe), 2);
		execl("/bin/sh", "sh", "-c", cmdline, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		fail_msg("fork failed");
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		;
	/* Whatever it left running (a hung grandchild) goes with it. */
	kill(-pid, SIGKILL);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		print_error("tu_run: no exit within %d s, killed: %s\n",
			    TU_RUN_LIMIT, cmdline);
	if (out)
		*out = slurp_stream(fo, NULL);
	if (err)
		*err = slurp_stream(fe, NULL);
	fclose(fo);
	fclose(fe);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *tu_tmpfile(const char *text)
{
	char *path = strdup("/tmp/sbtestXXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		fail_msg("mkstemp failed");
	size_t len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len)
		fail_msg("write failed");
	close(fd);
	return path;
}

char *tu_fanout_trace(int children, int child_work, int join_work)
{
	size_t cap = 64 + (size_t)children * 64, len = 0;
	char *text = malloc(cap);
	if (!text)
		fail_msg("out of memory");
	len += (size_t)snprintf(text + len, cap - len, "shadowbind-trace 1\n");
	for (int i = 2; i <= children + 1; i++) {
		len += (size_t)snprintf(text + len, cap - len, "1 0 create %d\n%d %d exit\n", i, i, child_work);
		if (join_work >= 0)
			len += (size_t)snprintf(text + len, cap - len, "1 %d join %d\n", join_work, i);
	}
	snprintf(text + len, cap - len, "1 0 exit\n");
	char *path = tu_tmpfile(text);
	free(text);
	return path;
}

int tu_cmdf(const char *cmd, char **out, char **err, const char *fmt, ...)
{
	char bin[4096], args[8192], line[16384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	snprintf(line, sizeof line, "'%s' %s", tu_bin(cmd, bin, sizeof bin), args);
	return tu_run(line, out, err);
}

int tu_count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

char *tu_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *s = slurp_stream(f, len);
	fclose(f);
	return s;
}

void tu_sim_open(struct tu_sim *c, const char *text)
{
	c->tr = tu_trace(text);
	c->p = sim_program_new(c->tr);
	assert_non_null(c->p);
	c->w = sim_work_new(c->p);
	assert_non_null(c->w);
}

void tu_sim_close(struct tu_sim *c)
{
	sim_work_free(c->w);
	sim_program_free(c->p);
	trace_free(c->tr);
}

const char tu_lock_inversion[] =
	"shadowbind-trace 1\n"
	"1 0 create 2\n"
	"1 0 create 3\n"
	"2 0 lock 1\n"
	"2 10 lock 2\n"
	"2 0 unlock 2\n"
	"2 0 unlock 1\n"
	"2 0 exit\n"
	"3 0 lock 2\n"
	"3 10 lock 1\n"
	"3 0 unlock 1\n"
	"3 0 unlock 2\n"
	"3 0 exit\n"
	"1 0 join 2\n"
	"1 0 join 3\n"
	"1 0 exit\n";

const char tu_binpack_inputs[] =
	"shadowbind-trace 1\n"
	"thread 1 main\nthread 2 w2\nthread 3 w3\nthread 4 w4\nthread 5 w5\n"
	"1 5 create 2\n1 0 create 3\n1 0 create 4\n1 5 create 5\n"
	"2 10 post 1\n2 20 exit\n3 40 exit\n4 10 exit\n5 0 wait 1\n5 50 exit\n"
	"1 0 join 2\n1 0 join 3\n1 0 join 4\n1 0 join 5\n1 0 exit\n";

int tu_dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}
