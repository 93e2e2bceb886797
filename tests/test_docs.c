/*
 * test_docs.c - our copies of the shared contracts and examples equal
 * shared/ (the specs are contracts: a change is a new version; the
 * examples are the shared test inputs, which the tests read from the
 * repo's copies when shared/ is not beside the clone).
 *
 * shared/ is found by tu_shared_dir (tests/testutil.h): $SB_SHARED,
 * ../shared beside the repo, or beside the main working tree of a git
 * worktree.  Without it every test here is SKIPPED with a message saying
 * why: it never passes having compared nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/testutil.h"

/* One file of shared/ and its copy in the repo. */
static const struct copy {
	const char *shared, *repo;
} copies[] = {
	{"spec/trace-format.md", "docs/trace-format.md"},
	{"spec/binding-format.md", "docs/binding-format.md"},
	{"spec/simulation.md", "docs/simulation.md"},
	{"examples/binpack-worst-case.trace", "examples/binpack-worst-case.trace"},
};

static void test_copies(void **state)
{
	(void)state;
	const char *dir = tu_shared_dir();
	if (!dir) {
		print_message("SKIPPED: shared/ not found, the copies in docs/ and examples/ "
		              "are not compared with it (set SB_SHARED)\n");
		skip();
	}
	int compared = 0, bad = 0;
	for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++) {
		char a[4096], b[4096];
		snprintf(a, sizeof a, "%s/%s", dir, copies[i].shared);
		tu_root(copies[i].repo, b, sizeof b);
		size_t la, lb;
		char *sa = tu_slurp(a, &la), *sb = tu_slurp(b, &lb);
		if (!sa || !sb) {
			print_error("cannot read %s\n", sa ? b : a);
			bad++;
		} else if (la != lb || memcmp(sa, sb, la) != 0) {
			print_error("%s differs from %s: copy the shared file again\n", b, a);
			bad++;
		} else {
			compared++;
		}
		free(sa);
		free(sb);
	}
	print_message("compared %d copies with %s\n", compared, dir);
	assert_int_equal(bad, 0);
	assert_int_equal(compared, (int)(sizeof copies / sizeof copies[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
