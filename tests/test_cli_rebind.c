/*
 * test_cli_rebind.c - golden tests of bin/rebind (a binding carried to
 * another recording by creator path; trace/rebind.c).
 *
 * a.trace: 1 creates 2 and 3, then 2 creates 4, then 3 creates 5.
 * b.trace: 1 creates 2, 2 creates 3, then 1 creates 4, 4 creates 5.
 *   paths a: 2 = 1.1, 3 = 1.2, 4 = 1.1.1, 5 = 1.2.1
 *   paths b: 2 = 1.1, 3 = 1.1.1, 4 = 1.2, 5 = 1.2.1
 * a.bind (1 0, 2 1, 3 0, 4 1, 5 0) for b.trace: b's 1 0, 2 1, 4 0 (a's 3),
 * 3 1 (a's 4), 5 0.  The SHA-256 digests of the two files' bytes are
 * sha256sum's (coreutils), not ours.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/testutil.h"

static const char A[] = "shadowbind-trace 1\n1 10 create 2\n1 10 create 3\n2 10 create 4\n"
                        "3 10 create 5\n4 10 exit\n5 10 exit\n2 10 exit\n3 10 exit\n1 10 exit\n";
static const char B[] = "shadowbind-trace 1\n1 10 create 2\n2 10 create 3\n1 10 create 4\n"
                        "4 10 create 5\n3 10 exit\n5 10 exit\n2 10 exit\n4 10 exit\n1 10 exit\n";
/* 1 creates 2, 2 creates 3: a's thread 3 (1.2) has no counterpart */
static const char C[] = "shadowbind-trace 1\n1 1 create 2\n2 1 create 3\n3 1 exit\n2 1 exit\n1 1 exit\n";
static const char BIND[] = "shadowbind-binding 1\ncpus 2\nmakespan 50\nalgorithm sga\n"
                           "1 0\n2 1\n3 0\n4 1\n5 0\n";

static const char WANT[] =
	"shadowbind-binding 1\n"
	"cpus 2\n"
	"algorithm sga\n"
	"trace b.trace sha256:d61588e4fb5d5df06c73afdb15bcbc28508db096988c086e37d8c8197c2c8a48\n"
	"rebound-from a.trace sha256:ff4acd174cf2a894dabb77350fa44fc80a3f988bada446c6121f537bf4b203d6\n"
	"\n"
	"1 0\n"
	"2 1\n"
	"3 1\n"
	"4 0\n"
	"5 0\n";

static char dir[64];

static void put(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/sb-rebind-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	put("a.trace", A);
	put("b.trace", B);
	put("c.trace", C);
	put("a.bind", BIND);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	const char *names[] = {"a.trace", "b.trace", "c.trace", "a.bind", "b.bind"};
	char p[128];
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	return 0;
}

struct row {
	const char *args; /* after "cd DIR && rebind " */
	int status;
	const char *out, *err;
};

static const struct row rows[] = {
	{"--from a.trace a.bind b.trace", 0, WANT, ""},
	{"a.bind b.trace", 1, "",
	 "rebind: --from TRACE is required (the trace BINDING was made for); see 'rebind --help'\n"},
	{"--from a.trace a.bind", 1, "", "rebind: give BINDING and NEW.trace; see 'rebind --help'\n"},
	{"--from a.trace a.bind b.trace c.trace", 1, "",
	 "rebind: unexpected operand 'c.trace'; see 'rebind --help'\n"},
	{"--from a.trace a.bind c.trace", 2, "",
	 "c.trace: no thread for thread 3 of a.trace (creator path 1.2): thread 1, its "
	 "creator's counterpart, creates 1 thread here, 2 there\n"},
	{"--from c.trace a.bind b.trace", 2, "", NULL}, /* the binding is a.trace's */
};

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		char *out, *err, cmd[512], bin[256];
		snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s", dir,
		         tu_bin("rebind", bin, sizeof bin), rows[i].args);
		int rc = tu_run(cmd, &out, &err);
		if (rc != rows[i].status)
			fail_msg("%s: status %d, expected %d (%s)", rows[i].args, rc, rows[i].status, err);
		assert_string_equal(out, rows[i].out);
		if (rows[i].err)
			assert_string_equal(err, rows[i].err);
		else
			assert_true(strlen(err) > 0);
		free(out);
		free(err);
	}
}

/* -o writes the same bytes to a file, and nothing on standard output */
static void test_output_file(void **state)
{
	(void)state;
	char cmd[512], bin[256], p[128];
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --from a.trace -o b.bind a.bind b.trace", dir,
	         tu_bin("rebind", bin, sizeof bin));
	char *out, *err;
	assert_int_equal(tu_run(cmd, &out, &err), 0);
	assert_string_equal(out, "");
	free(out);
	free(err);
	snprintf(p, sizeof p, "%s/b.bind", dir);
	char *got = tu_slurp(p, NULL);
	assert_non_null(got);
	assert_string_equal(got, WANT);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_output_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
