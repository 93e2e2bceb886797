/*
 * test_cli_output.c - output files (cli/out.h, issue 14 item 5, issue 11
 * item 3's umask): regular files replaced atomically, through symlinks;
 * FIFOs and devices written directly and never replaced; directories
 * refused; the umask honoured; full disks reported; allocate reads its
 * trace once (issue 14 item 7); allocate --trajectory (issue 12 item 3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/out.h"
#include "tests/testutil.h"

static char dir[64], worst[4096];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/sboutXXXXXX");
	tu_shared("examples/binpack-worst-case.trace", worst, sizeof worst);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

static int put(const char *path, const char *text)
{
	char why[512];
	int rc = cli_out_write_file(path, text, strlen(text), why, sizeof why);
	if (rc)
		print_message("%s\n", why);
	return rc;
}

/* New files: 0666 & ~umask; replaced files keep their mode. */
static void test_modes(void **state)
{
	(void)state;
	static const struct {
		mode_t umask, pre; /* pre: existing file's mode, 0: none */
		mode_t want;
	} t[] = {
		{022, 0, 0644}, {077, 0, 0600}, {002, 0, 0664},
		{022, 0640, 0640}, {077, 0755, 0755},
	};
	char p[300];
	snprintf(p, sizeof p, "%s/f", dir);
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		mode_t old = umask(t[i].umask);
		if (t[i].pre) {
			int fd = open(p, O_CREAT | O_WRONLY, 0600);
			assert_true(fd >= 0);
			close(fd);
			chmod(p, t[i].pre);
		}
		assert_int_equal(put(p, "x\n"), 0);
		umask(old);
		struct stat st;
		assert_int_equal(stat(p, &st), 0);
		assert_int_equal(st.st_mode & 07777, t[i].want);
		assert_int_equal(unlink(p), 0);
		assert_int_equal(tu_dir_entries(dir), 0);
	}
}

/* A symlink: its target is replaced, the link stays; also dangling. */
static void test_symlink(void **state)
{
	(void)state;
	char target[300], link[300];
	snprintf(target, sizeof target, "%s/target", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	assert_int_equal(symlink("target", link), 0); /* dangling, relative */
	assert_int_equal(put(link, "one\n"), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	char *s = tu_slurp(target, NULL);
	assert_string_equal(s, "one\n");
	free(s);
	assert_int_equal(put(link, "two\n"), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	s = tu_slurp(target, NULL);
	assert_string_equal(s, "two\n");
	free(s);
	unlink(link);
	unlink(target);
	assert_int_equal(tu_dir_entries(dir), 0);
}

/* A FIFO is written into, not replaced; a directory is refused; /dev/full
 * reports the full disk; /dev/null stays a device. */
static void test_special(void **state)
{
	(void)state;
	char fifo[300], why[512];
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(put(fifo, "through\n"), 0);
	char buf[64] = "";
	assert_int_equal(read(rd, buf, sizeof buf), 8);
	assert_memory_equal(buf, "through\n", 8);
	close(rd);
	struct stat st;
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(fifo);

	assert_int_equal(cli_out_write_file(dir, "x", 1, why, sizeof why), -1);
	char want[300];
	snprintf(want, sizeof want, "%s: is a directory", dir);
	assert_string_equal(why, want);

	assert_int_equal(cli_out_write_file("/dev/full", "x", 1, why, sizeof why), -1);
	assert_string_equal(why, "/dev/full: cannot write: No space left on device");

	assert_int_equal(put("/dev/null", "x"), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(tu_dir_entries(dir), 0);
}

/* abort removes the temporary and leaves the old file. */
static void test_abort(void **state)
{
	(void)state;
	char p[300], why[512];
	snprintf(p, sizeof p, "%s/keep", dir);
	assert_int_equal(put(p, "old\n"), 0);
	struct cli_out o;
	assert_int_equal(cli_out_open(&o, p, why, sizeof why), 0);
	fputs("new, half", o.f);
	assert_int_equal(tu_dir_entries(dir), 2); /* the file and the temporary */
	cli_out_abort(&o);
	assert_int_equal(tu_dir_entries(dir), 1);
	char *s = tu_slurp(p, NULL);
	assert_string_equal(s, "old\n");
	free(s);
	unlink(p);
}

/* The commands: -o onto a FIFO-free device, a symlink, a full device, a
 * directory; the same message forms everywhere. */
static void test_commands(void **state)
{
	(void)state;
	char link[300], target[300];
	snprintf(link, sizeof link, "%s/b.link", dir);
	snprintf(target, sizeof target, "%s/b.binding", dir);
	assert_int_equal(symlink("b.binding", link), 0);
	static const struct {
		const char *cmd, *args;
		int status;
		const char *err; /* stderr, exactly; %s = dir */
	} t[] = {
		{"allocate", "--cpus 2 -q -o /dev/null", 0, ""},
		{"progen", "--family worstcase -o /dev/null", 0, ""},
		{"allocate", "--cpus 2 -q -o /dev/full", 2,
		 "/dev/full: cannot write: No space left on device\n"},
		{"progen", "--family worstcase -o /dev/full", 2,
		 "progen: /dev/full: cannot write: No space left on device\n"},
		/* standard output that cannot be written: a system error */
		{"allocate", "--cpus 2 -q >/dev/full", 4,
		 "<stdout>: cannot write: No space left on device\n"},
		{"allocate", "--cpus 2 -q --json >/dev/full", 4,
		 "<stdout>: cannot write: No space left on device\n"},
		{"allocate", "--cpus 2 -q -o %s", 2, "%s: is a directory\n"},
		{"allocate", "--cpus 2 -q --trajectory %s", 2, "%s: is a directory\n"},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		char args[512], want[512], *out, *err;
		snprintf(args, sizeof args, t[i].args, dir);
		snprintf(want, sizeof want, t[i].err, dir);
		int rc = strcmp(t[i].cmd, "progen") == 0
		         ? tu_cmdf(t[i].cmd, &out, &err, "%s", args)
		         : tu_cmdf(t[i].cmd, &out, &err, "%s '%s'", args, worst);
		if (rc != t[i].status || strcmp(err, want) != 0)
			fail_msg("%s %s: %d '%s', want %d '%s'", t[i].cmd, args, rc, err,
			         t[i].status, want);
		free(out);
		free(err);
	}
	struct stat st;
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* through the symlink */
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q -o '%s' '%s'", link, worst), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	char *s = tu_slurp(target, NULL);
	assert_non_null(s);
	assert_non_null(strstr(s, "\nmakespan 2050 "));
	free(s);
	free(out);
	free(err);
	unlink(link);
	unlink(target);
	assert_int_equal(tu_dir_entries(dir), 0);
}

/* allocate reads its trace once: a pipe works, and the sha256 is that of
 * the bytes parsed (sha256sum of the same bytes). */
static void test_read_once(void **state)
{
	(void)state;
	char *out, *err, *sum, *e2, cmd[16384];
	snprintf(cmd, sizeof cmd, "sha256sum < '%s' | cut -c1-64", worst);
	assert_int_equal(tu_run(cmd, &sum, &e2), 0);
	sum[strcspn(sum, "\n")] = 0;
	char bin[4096];
	tu_bin("allocate", bin, sizeof bin);
	/* a pipe as a path, as bash's <(cat t.trace) gives */
	snprintf(cmd, sizeof cmd, "cat '%s' | '%s' --cpus 2 -q /dev/stdin", worst, bin);
	assert_int_equal(tu_run(cmd, &out, &err), 0);
	char want[200];
	snprintf(want, sizeof want, "sha256:%s\n", sum);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "\nmakespan 2050 "));
	free(out);
	free(err);
	free(sum);
	free(e2);
}

/* --trajectory: one row per test; the best makespan never increases and
 * ends at the binding's makespan; as many rows as the header's tests. */
static void test_trajectory(void **state)
{
	(void)state;
	char p[300], *out, *err;
	snprintf(p, sizeof p, "%s/traj.csv", dir);
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--cpus 2 -q -a greedy --trajectory '%s' '%s'",
	                         p, worst), 0);
	char *csv = tu_slurp(p, NULL);
	assert_non_null(csv);
	assert_true(strncmp(csv, "test,best_makespan\n", 19) == 0);
	const char *tl = strstr(out, "\ntests ");
	assert_non_null(tl);
	long tests = strtol(tl + 7, NULL, 10);
	long rows = 0, prev = -1, best = -1;
	for (char *l = strchr(csv, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
		long n = strtol(l, NULL, 10);
		assert_int_equal(n, ++rows);
		char *c = strchr(l, ',');
		if (c[1] != '\n') {
			best = strtol(c + 1, NULL, 10);
			if (prev >= 0)
				assert_true(best <= prev);
			prev = best;
		}
	}
	assert_true(rows >= tests); /* tests, plus any partial simulations */
	const char *ms = strstr(out, "\nmakespan ");
	assert_int_equal(best, strtol(ms + 10, NULL, 10));
	free(csv);
	free(out);
	free(err);
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_symlink),
		cmocka_unit_test(test_special),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_read_once),
		cmocka_unit_test(test_trajectory),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
