/*
 * test_cli_signal.c - interrupts (issue 11 item 2, issue 14 item 6):
 * SIGINT/SIGTERM during allocate's search write the best binding so far
 * with `stopped interrupted` and exit 130/143; a second signal exits at
 * once with no output and no temporary; cli_out's temporaries are removed
 * by a signal; a progen batch that fails leaves no partial batch.
 *
 * No sleeps: the test waits for allocate's first progress line on a pipe
 * (--progress-fd 3), then signals it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/out.h"
#include "tests/testutil.h"
#include "trace/trace.h"

static char dir[64], trace_path[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/sbsigXXXXXX");
	if (!mkdtemp(dir))
		return -1;
	/* 32 threads on 8 processors: a search that runs far longer than
	 * its first progress report with a budget of 10^9 tests. */
	snprintf(trace_path, sizeof trace_path, "%s/t32.trace", dir);
	char *out, *err;
	int rc = tu_cmdf("progen", &out, &err, "--family transactions --threads 32 "
	                 "--seed 3 -o '%s'", trace_path);
	free(out);
	free(err);
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	unlink(trace_path);
	rmdir(dir);
	return 0;
}

/*
 * Start allocate writing to `outp`, wait for its first progress line,
 * send sig1 (and sig2 with it, if not 0); returns the wait status.  Two
 * signals are sent to the stopped process (SIGSTOP, both, SIGCONT), so
 * that both are pending when it runs again: sent one after the other to
 * a running process, a test preempted between the two kills (a loaded
 * machine) could let allocate take the first alone, write its binding
 * and exit 130 before the second arrives.
 */
static int interrupt_allocate(const char *outp, int sig1, int sig2)
{
	char bin[4096];
	tu_bin("allocate", bin, sizeof bin);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (pfd[0] != 3)
			close(pfd[0]);
		dup2(pfd[1], 3);
		if (pfd[1] != 3)
			close(pfd[1]);
		int dn = open("/dev/null", O_WRONLY);
		dup2(dn, 2);
		alarm(TU_RUN_LIMIT); /* a hang ends in SIGALRM, not here */
		execl(bin, "allocate", "--cpus", "8", "-a", "anneal", "--max-tests",
		      "1000000000", "--progress-fd", "3", "-o", outp, trace_path,
		      (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	char c;
	ssize_t k;
	while ((k = read(pfd[0], &c, 1)) == 1 && c != '\n')
		;
	assert_int_equal(k, 1); /* a progress line came */
	int st;
	if (sig2) {
		assert_int_equal(kill(pid, SIGSTOP), 0);
		assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
		assert_true(WIFSTOPPED(st));
	}
	kill(pid, sig1);
	if (sig2) {
		kill(pid, sig2);
		kill(pid, SIGCONT);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(pfd[0]);
	return st;
}

static void test_interrupt_writes_best(void **state)
{
	(void)state;
	static const struct {
		int sig, status;
	} t[] = {{SIGINT, 130}, {SIGTERM, 143}};
	struct trace *tr = NULL;
	struct trace_error te;
	assert_int_equal(trace_read_file(trace_path, &tr, &te), 0);
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		char outp[300];
		snprintf(outp, sizeof outp, "%s/b.binding", dir);
		int st = interrupt_allocate(outp, t[i].sig, 0);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), t[i].status);
		char *text = tu_slurp(outp, NULL);
		assert_non_null(text);
		assert_non_null(strstr(text, "\nstopped interrupted"));
		/* a complete, valid binding: every thread once */
		struct trace_binding b;
		if (trace_binding_read(outp, tr, &b, &te) != 0)
			fail_msg("%s", te.msg);
		assert_int_equal(b.cpus, 8);
		trace_binding_release(&b);
		free(text);
		unlink(outp);
		assert_int_equal(tu_dir_entries(dir), 1); /* no temporary */
	}
	trace_free(tr);
}

/* A second signal: exit at once, no output, no temporary. */
static void test_second_signal_aborts(void **state)
{
	(void)state;
	char outp[300];
	snprintf(outp, sizeof outp, "%s/b2.binding", dir);
	/* Both signals are pending at once; threads may take them in either
	 * order, so the status is 128 + the second one taken: 130 or 143.
	 * The missing output tells the abort from a clean stop. */
	int st = interrupt_allocate(outp, SIGINT, SIGTERM);
	assert_true(WIFEXITED(st));
	assert_true(WEXITSTATUS(st) == 130 || WEXITSTATUS(st) == 143);
	assert_int_equal(access(outp, F_OK), -1);
	assert_int_equal(tu_dir_entries(dir), 1); /* only the trace */
}

/* cli_out's temporary is removed by the handler (what progen relies on
 * when killed during a large write). */
static void test_temporary_removed(void **state)
{
	(void)state;
	static const int modes[] = {CLI_SIG_EXIT, CLI_SIG_FLAG};
	for (size_t i = 0; i < 2; i++) {
		char outp[300];
		snprintf(outp, sizeof outp, "%s/big.trace", dir);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			char why[256];
			struct cli_out o;
			cli_signals_install((enum cli_sigmode)modes[i]);
			if (cli_out_open(&o, outp, why, sizeof why) != 0)
				_exit(99);
			fputs("partial", o.f);
			fflush(o.f);
			raise(SIGTERM);
			if (modes[i] == CLI_SIG_FLAG)
				raise(SIGINT); /* the second one */
			_exit(98);         /* not reached */
		}
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), modes[i] == CLI_SIG_EXIT ? 143 : 130);
		assert_int_equal(tu_dir_entries(dir), 1);
	}
}

/* progen --count: program 3's file is a directory, so program 3 fails:
 * the other programs written are removed, the message says so. */
static void test_batch_all_or_nothing(void **state)
{
	(void)state;
	char sub[300], block[400];
	snprintf(sub, sizeof sub, "%s/batch", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(block, sizeof block, "%s/p-0003.trace", sub);
	assert_int_equal(mkdir(block, 0700), 0);
	char *out, *err;
	int rc = tu_cmdf("progen", &out, &err, "--family dag --count 6 -o '%s/p'", sub);
	assert_int_equal(rc, 2);
	char want[600];
	snprintf(want, sizeof want, "progen: program 3: %s: is a directory; no partial batch: removed the ", block);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("stderr '%s'", err);
	assert_int_equal(tu_count_lines(err), 1);
	assert_int_equal(tu_dir_entries(sub), 1); /* only the blocking directory */
	free(out);
	free(err);
	rmdir(block);
	/* without the obstacle: all six */
	rc = tu_cmdf("progen", &out, &err, "--family dag --count 6 -o '%s/p'", sub);
	assert_int_equal(rc, 0);
	assert_int_equal(tu_dir_entries(sub), 6);
	free(out);
	free(err);
	for (int i = 1; i <= 6; i++) {
		snprintf(block, sizeof block, "%s/p-%04d.trace", sub, i);
		unlink(block);
	}
	rmdir(sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interrupt_writes_best),
		cmocka_unit_test(test_second_signal_aborts),
		cmocka_unit_test(test_temporary_removed),
		cmocka_unit_test(test_batch_all_or_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
